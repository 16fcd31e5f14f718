# SPDX-License-Identifier: Apache-2.0
"""TILE-Gx assembly of the tilegx backend's block functions, scheduled into
bundles (gen/tilegx/sched.py), and the aes_core.c-style baseline the report
compares them with.

The programs are the C of gen/tilegx/c.py instruction by instruction:
tblidxbK + ld4u per table lookup (1 KiB-aligned tables), ldna/dblalign/
revbytes input, the v2int_l + mm + v2packh last round (Td4 with v1int_l/
v2int_l/v4int_l for decryption).  Two things only assembly can do: the round
keys come two per 64-bit `ld_add` (a column's key word may carry its
neighbour in the upper half: tblidxbK reads byte K <= 3 only and v4int_l
drops the upper halves), and each table has a small pool of pointer
registers, so a lookup is one tblidxbK on a pointer whose upper bits are
already the table's base.

Calling convention of the generated functions (TILE-Gx ABI, a leaf):
  r0 rk: round keys as OpenSSL's AES_KEY.rd_key words, 8-byte aligned
  r1 Te0 (Te1-3 follow at 1 KiB steps) or Td0 (Td1-3 following)
  r2 Td4 (decryption's last round; not read by encryption)
  r3.. in0..in{w-1} (any alignment), then out0..out{w-1}
  *_aligned: every out 8-byte aligned (GX_STORE_ALIGNED); else any alignment.
"""

import functools

from variants import KEY_BITS, ROUNDS

from . import sched as ts

# (function, width, aligned output) per key size and direction.
SHAPES = ((1, True), (1, False), (2, True))


class _Lookups:
    """tblidxbK + ld4u, each table's pointers taken in turn."""

    def __init__(self, prog, pools):
        self.prog, self.pools, self.turn = prog, pools, [0] * len(pools)

    def __call__(self, t, k, s):
        j = self.turn[t]
        self.turn[t] = (j + 1) % len(self.pools[t])
        ptr = self.prog.tied(f"tblidxb{k}", self.pools[t][j], s, name=f"T{t}")
        self.pools[t][j] = ptr
        return self.prog.load("ld4u", ptr, "table")


def _table_pointers(prog, base, count, per):
    """Pools of `per` pointer registers into each of `count` 1 KiB tables
    from `base` (the argument register itself is the first pointer of the
    first table)."""
    pools = []
    for t in range(count):
        pool = [base] if t == 0 else []
        while len(pool) < per:
            pool.append(prog.alu("addli", base, 1024 * t, name=f"T{t}"))
        pools.append(pool)
    return pools


def _xor4(p, v, key):
    """((v0 ^ v1) ^ key) ^ (v2 ^ v3): two levels after the last lookup."""
    return p.alu("xor", p.alu("xor", p.alu("xor", v[0], v[1]), key), p.alu("xor", v[2], v[3]))


def _load_keys(p, state, pairs):
    """The next four round-key words: two 64-bit ld_add (pairs) or four ld4u_add."""
    loaded = []
    for _ in range(2 if pairs else 4):
        v, state["rk"] = p.load_add("ld_add" if pairs else "ld4u_add", state["rk"],
                                    8 if pairs else 4, "key", name="k")
        loaded.append(v)
    return loaded


def _column_keys(p, state, pairs):
    """Key words for columns 0-3 (a word may carry junk above bit 31)."""
    loaded = _load_keys(p, state, pairs)
    if not pairs:
        return loaded
    return [w for v in loaded for w in (v, p.alu("shrui", v, 32))]


def _double_keys(p, state, pairs):
    """(k0 << 32 | k1, k2 << 32 | k3): the keys of two columns as doublewords."""
    loaded = _load_keys(p, state, pairs)
    if pairs:  # ld gives k1 << 32 | k0
        return [p.alu("rotli", v, 32) for v in loaded]
    return [p.alu("v4int_l", loaded[0], loaded[1]), p.alu("v4int_l", loaded[2], loaded[3])]


def program(bits, decrypt, width, aligned, per=2, pairs=True):
    """Our block function: `width` blocks through every round.  pairs=False:
    the round keys a word per load, as the C (for the report's comparison)."""
    rounds = ROUNDS[bits]
    name = (f"aes_gen_tilegx_asm_{'decrypt' if decrypt else 'encrypt'}{width}_k{bits}"
            f"{'_aligned' if aligned else ''}{'' if pairs else '_wordkeys'}")
    p = ts.Program(name, ["rk", "tables", "td4"] + [f"in{i}" for i in range(width)] +
                   [f"out{i}" for i in range(width)])
    state = {"rk": p.args[0]}
    ins, outs = p.args[3:3 + width], p.args[3 + width:]
    p.phase = "setup"
    pools = _table_pointers(p, p.args[1], 4, per)
    if decrypt:
        pools.append([p.args[2]] + [p.alu("move", p.args[2], name="T4") for _ in range(per - 1)])
    look = _Lookups(p, pools)
    p.phase = "input"
    k01, k23 = _double_keys(p, state, pairs)
    s = []
    for src in ins:
        a8, a15 = p.alu("addi", src, 8), p.alu("addi", src, 15)
        d0, d1, d2 = (p.load("ldna", a, "in", name="d") for a in (src, a8, a15))
        lo = p.alu("revbytes", p.tied("dblalign", d0, d1, src))
        hi = p.alu("revbytes", p.tied("dblalign", d1, d2, src))
        # (s0 << 32 | s1) ^ (k0 << 32 | k1), likewise s2, s3.
        x, y = p.alu("xor", lo, k01), p.alu("xor", hi, k23)
        s.append([p.alu("shrui", x, 32), x, p.alu("shrui", y, 32), y])
    step = -1 if decrypt else 1
    p.phase = "rounds"
    for _ in range(1, rounds):
        key = _column_keys(p, state, pairs)
        for i in range(width):
            s[i] = [_xor4(p, [look(row, 3 - row, s[i][(c + step * row) % 4]) for row in range(4)],
                          key[c]) for c in range(4)]
    p.phase = "last"
    key = _double_keys(p, state, pairs)
    out = []
    for i in range(width):
        cols = []
        for c in range(4):
            src = [s[i][(c + step * row) % 4] for row in range(4)]
            if decrypt:
                x = [look(4, 3 - row, src[row]) for row in range(4)]
                cols.append(p.alu("v2int_l", p.alu("v1int_l", x[0], x[1]),
                                  p.alu("v1int_l", x[2], x[3])))
            else:
                ab = p.alu("v2int_l", look(2, 3, src[0]), look(3, 2, src[1]))
                cd = p.alu("v2int_l", look(0, 1, src[2]), look(1, 0, src[3]))
                cols.append(p.tied("mm", ab, cd, 32, 63))
        pair = "v4int_l" if decrypt else "v2packh"
        out.append([p.alu("xor", p.alu(pair, cols[0], cols[1]), key[0]),
                    p.alu("xor", p.alu(pair, cols[2], cols[3]), key[1])])
    p.phase = "output"
    for i in range(width):
        lo, hi = (p.alu("revbytes", v) for v in out[i])
        if aligned:
            p.store("st", p.store_add("st_add", outs[i], lo, 8, "out"), hi, "out")
        else:
            _store_bytes(p, outs[i], [lo, hi])
    return p


def _store_bytes(p, dst, words):
    """Doublewords to dst a byte at a time, low byte first."""
    for v in words:
        for b in range(8):
            dst = p.store_add("st1_add", dst, v, 1, "out")
            if b < 7:
                v = p.alu("shrui", v, 8)


def baseline(bits, decrypt):
    """OpenSSL's aes_core.c (GETU32/PUTU32, Te[(s >> 8k) & 0xff], the last
    round by masks) as a compiler would write it for TILE-Gx, one block:
    a byte index by shrui (the top byte) or bfextu, its address by shl2add,
    ld4u; the key
    words by ld4u_add; the same xor tree as ours."""
    rounds = ROUNDS[bits]
    name = f"aes_core_c_{'decrypt' if decrypt else 'encrypt'}_k{bits}"
    p = ts.Program(name, ["rk", "tables", "td4", "in", "out"])
    rk, src, dst = p.args[0], p.args[3], p.args[4]
    p.phase = "setup"
    bases = [p.args[1]] + [p.alu("addli", p.args[1], 1024 * t, name=f"T{t}") for t in (1, 2, 3)]
    if decrypt:
        bases.append(p.args[2])
    else:
        m = p.alu("moveli", 255, name="mask")
        masks = [m] + [p.alu("shli", m, 8 * k, name="mask") for k in (1, 2, 3)]

    def key():
        nonlocal rk
        w, rk = p.load_add("ld4u_add", rk, 4, "key", name="k")
        return w

    def look(t, k, s):
        idx = p.alu("shrui", s, 24) if k == 3 else p.alu("bfextu", s, 8 * k, 8 * k + 7)
        return p.load("ld4u", p.alu("shl2add", idx, bases[t]), "table")

    p.phase = "input"
    s = []
    for _ in range(4):
        b = []
        for _ in range(4):
            v, src = p.load_add("ld1u_add", src, 1, "in", name="b")
            b.append(v)
        w = p.alu("xor", p.alu("xor", p.alu("shli", b[0], 24), p.alu("shli", b[1], 16)),
                  p.alu("xor", p.alu("shli", b[2], 8), b[3]))
        s.append(p.alu("xor", w, key()))
    step = -1 if decrypt else 1
    p.phase = "rounds"
    for _ in range(1, rounds):
        k = [key() for _ in range(4)]
        s = [_xor4(p, [look(row, 3 - row, s[(c + step * row) % 4]) for row in range(4)], k[c])
             for c in range(4)]
    p.phase = "last"
    k = [key() for _ in range(4)]
    out = []
    for c in range(4):
        src4 = [s[(c + step * row) % 4] for row in range(4)]
        if decrypt:
            v = [look(4, 3 - row, src4[row]) for row in range(4)]
            v = [p.alu("shli", v[row], 8 * (3 - row)) if row < 3 else v[row] for row in range(4)]
        else:
            # Te2 for the top byte, Te3, Te0, Te1 below: the table whose
            # entry has S(x) in that byte.
            v = [p.alu("and", look((row + 2) % 4, 3 - row, src4[row]), masks[3 - row])
                 for row in range(4)]
        out.append(_xor4(p, v, k[c]))
    p.phase = "output"
    for w in out:
        for shift in (24, 16, 8, 0):
            v = p.alu("shrui", w, shift) if shift else w
            dst = p.store_add("st1_add", dst, v, 1, "out")
    return p


# --- files ----------------------------------------------------------------------

def _best(make):
    """The fewest bundles over a few register budgets: one or two pointers
    per table, none or eight callee-saved registers (saving costs 16 memory
    operations).  Returns (program, bundles)."""
    best = None
    for per in (1, 2):
        for saved in (0, 8):
            prog = make(per)
            try:
                bundles = ts.build(prog, ts.CALLER_SAVED + ts.CALLEE_SAVED[:saved],
                                   ts.CALLEE_SAVED[:saved])
            except ValueError:
                continue
            if best is None or len(bundles) < len(best[1]):
                best = (prog, bundles)
    return best


@functools.lru_cache(maxsize=None)
def functions():
    """[(program, bundles)]: ours per key size, direction and shape, then the
    baseline's.  The same for every request: scheduled once a process (the
    scheduler's search is most of the generator's time)."""
    ours = [_best(lambda per, b=bits, d=dec, w=w, a=a: program(b, d, w, a, per))
            for bits in KEY_BITS for dec in (False, True) for w, a in SHAPES]
    base = [_best(lambda per, b=bits, d=dec: baseline(b, d))
            for bits in KEY_BITS for dec in (False, True)]
    base += [_best(lambda per, b=bits, d=dec: program(b, d, 1, True, per, pairs=False))
             for bits in KEY_BITS for dec in (False, True)]
    return ours, base


def register_map(prog, bundles):
    """Comment lines: what the registers hold."""
    roles = {}
    for b in bundles:
        for op in b:
            for v in op.writes + op.reads:
                if v.name.startswith("T") and v.name[1:].isdigit():
                    roles.setdefault(f"pointers into table {v.name[1:]}", set()).add(v.reg)
    lines = [", ".join(f"{ts.reg_name(a.reg)} {a.name}" for a in prog.args) +
             " (arguments; free for values once read)"]
    lines += [f"{role}: " + ", ".join(ts.reg_name(r) for r in sorted(regs))
              for role, regs in sorted(roles.items())]
    saved = sorted({v.reg for b in bundles for op in b if op.region == "stack"
                    for v in op.reads + op.writes if v.reg in ts.CALLEE_SAVED})
    if saved:
        lines.append("saved at entry, reloaded before the return: " +
                     ", ".join(ts.reg_name(r) for r in saved))
    lines.append("every other register: state words, table entries, key pairs, in turn")
    return lines


def file_body(pairs):
    """The functions of `pairs`, each with its register map and bundle count."""
    out = ["\t.text"]
    for prog, bundles in pairs:
        ops = sum(len(b) for b in bundles)
        comment = [f"{prog.name}: {ops} operations in {len(bundles)} bundles "
                   f"(cycles with L1 hits)"] + ["  " + line for line in register_map(prog, bundles)]
        out.append(ts.assembly(prog.name, bundles, comment))
    return "\n".join(out)


ABOUT = {
    "aes_tilegx.S": [
        "TILE-Gx assembly of the tilegx block functions (gen/tilegx/bundles.py),",
        "scheduled into bundles by gen/tilegx/sched.py; the C beside it",
        "(aes_tilegx_core.h) is the same algorithm.  Verified on the host by",
        "tests/test_tilegx_bundles.c, which interprets these bundles.",
        "",
        "r0 rk: OpenSSL AES_KEY.rd_key words, 8-byte aligned",
        "r1 Te0 (encryption) or Td0 (decryption), the other three tables",
        "   following at 1 KiB steps, 1 KiB aligned",
        "r2 Td4 (decryption's last round), 1 KiB aligned",
        "r3.. in0..in{w-1} (any alignment), then out0..out{w-1}: any",
        "   alignment, or 8-byte aligned for the *_aligned functions",
    ],
    "aes_core_c_baseline.S": [
        "The comparisons of `gen/aesgen.py --report tilegx`: aes_core_c_*,",
        "OpenSSL's aes_core.c rounds as a compiler would translate them for",
        "TILE-Gx, and *_wordkeys, ours with a round key per load as in the C.",
        "Scheduled by the same scheduler as aes_tilegx.S, interpreted by the",
        "same test.  Not part of the library.  The calling convention of",
        "aes_tilegx.S.",
    ],
}


def files(render):
    """{path under generated/: text} for the two assembly files."""
    ours, base = functions()
    return {f"tilegx/{name}": render("tilegx_asm.S.j2", about=ABOUT[name], body=file_body(pairs))
            for name, pairs in (("aes_tilegx.S", ours), ("aes_core_c_baseline.S", base))}
