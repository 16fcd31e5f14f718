# SPDX-License-Identifier: Apache-2.0
"""tilegx: TILE-Gx AES in C with GCC's __insn_* builtins (Corneliusen's
"OpenSSL aes_core.c Replacement for Tilera TILE-Gx"), and its host emulation.

The state is OpenSSL's: four big-endian 32-bit words.  The tables are
OpenSSL's Te0-3 and Td0-3 (and Td4, the inverse S-box as words), each aligned
to 1 KiB, so `tblidxbK(table, word)` is the address of the entry for byte K of
the word in one operation, and `ld4u` loads it.  Input of any alignment comes
through two or three `ldna` doubleword loads, `dblalign` and `revbytes`;
output through byte stores, or `st` when GX_STORE_ALIGNED promises 8-byte
aligned output (the article's aligned store path).

What this module writes:
  tilegx/aes_tilegx_core.h  the tables and one- and two-block encryption and
                            decryption per key size (static inline)
  tilegx/tilegx_kernels.c   the runtime's tilegx-emu kernels (every mode) on it
  tilegx/aes_core_tilegx.c  a drop-in for OpenSSL's aes_core.c with the same
                            code inlined: AES_set_encrypt_key, AES_set_decrypt_key,
                            AES_encrypt, AES_decrypt on OpenSSL's AES_KEY
  tilegx/aes_tilegx.S       the block functions as scheduled TILE-Gx bundles
                            (gen/c/tilegx_asm.py), and aes_core_c_baseline.S,
                            the aes_core.c-style code the report compares
On a host the runtime's kernels are compiled with -include tilegx_emu.h.
Not constant-time (table lookups indexed by key and data).
"""

import aes_math
from . import tilegx_asm
from variants import KERNEL_PARAMS

DIRECTORY = ("tilegx", "TILE-Gx C (__insn_* builtins; emulated on other hosts), the "
             "aes_core.c drop-in")


# --- block code --------------------------------------------------------------

def _load(i, src):
    """Words s0..s3 of block i (suffix) from src, any alignment."""
    return [f"uint64_t d0{i} = __insn_ldna({src}), d1{i} = __insn_ldna({src} + 8), "
            f"d2{i} = __insn_ldna({src} + 15);",
            f"uint64_t lo{i} = __insn_revbytes(__insn_dblalign(d0{i}, d1{i}, {src}));",
            f"uint64_t hi{i} = __insn_revbytes(__insn_dblalign(d1{i}, d2{i}, {src}));",
            f"uint64_t s0{i} = lo{i} >> 32, s1{i} = lo{i} & 0xffffffff, "
            f"s2{i} = hi{i} >> 32, s3{i} = hi{i} & 0xffffffff;"]


def _lookup(table, k, word):
    return f"__insn_ld4u((const void *)__insn_tblidxb{k}({table}, {word}))"


def _rounds(rounds, decrypt, blocks):
    """Rounds 1..N-1 on s0..s3 of each block (suffixes), result in s0..s3;
    the blocks' statements interleave round by round."""
    lines = []
    T = "TD" if decrypt else "TE"
    # Row r of output column c comes from column c + r (encryption) or c - r.
    step = -1 if decrypt else 1
    for r in range(1, rounds):
        for i in blocks:
            for c in range(4):
                src = [f"s{(c + step * row) % 4}{i}" for row in range(4)]
                terms = [_lookup(f"{T}{row}", 3 - row, src[row]) for row in range(4)]
                lines.append(f"t{c}{i} = {' ^ '.join(terms)} ^ rk[{4 * r + c}];")
        for i in blocks:
            lines.append(" ".join(f"s{c}{i} = t{c}{i};" for c in range(4)))
    return lines


def _last_round(rounds, decrypt, i):
    """The last round of block i as two doublewords ready to store, olo{i}
    (columns 0, 1) and ohi{i} (2, 3), big-endian words, key added.

    Encryption (the article's trick): Te0..Te3 hold S(x) in the high byte of
    one halfword each (Te0, Te1: the low halfword; Te2, Te3: the high one), so
    v2int_l(Te2[a], Te3[b]) has S(a), S(b) in the high bytes of halfwords 3,
    2 and v2int_l(Te0[c], Te1[d]) S(c), S(d) in those of halfwords 1, 0; mm
    takes the top half of one and the bottom half of the other, and v2packh
    keeps the high bytes: two output columns per v2packh, no masks or shifts.
    Decryption: the inverse S-box bytes of a column paired by v1int_l, the
    pairs by v2int_l, two columns by v4int_l."""
    lines, step, base = [], (-1 if decrypt else 1), 4 * rounds
    cols = []
    for c in range(4):
        src = [f"s{(c + step * row) % 4}{i}" for row in range(4)]
        if decrypt:
            x = [_lookup("TD4", 3 - row, src[row]) for row in range(4)]
            lines.append(f"uint64_t x{c}{i} = __insn_v2int_l(__insn_v1int_l({x[0]}, {x[1]}), "
                         f"__insn_v1int_l({x[2]}, {x[3]}));")
        else:
            ab = f"__insn_v2int_l({_lookup('TE2', 3, src[0])}, {_lookup('TE3', 2, src[1])})"
            cd = f"__insn_v2int_l({_lookup('TE0', 1, src[2])}, {_lookup('TE1', 0, src[3])})"
            lines.append(f"uint64_t x{c}{i} = __insn_mm({ab}, {cd}, 32, 63);")
        cols.append(f"x{c}{i}")
    pair = (lambda a, b: f"__insn_v4int_l({a}, {b})") if decrypt else \
        (lambda a, b: f"__insn_v2packh({a}, {b})")
    for name, (a, b) in (("olo", (0, 1)), ("ohi", (2, 3))):
        key = f"__insn_v4int_l(rk[{base + a}], rk[{base + b}])"
        lines.append(f"uint64_t {name}{i} = {pair(cols[a], cols[b])} ^ {key};")
    return lines


def block_function(bits, decrypt, width):
    """C of one static inline function: width blocks through all rounds."""
    rounds = bits // 32 + 6
    name = f"aes_gen_tilegx_{'decrypt' if decrypt else 'encrypt'}{width}_k{bits}"
    blocks = [str(i) for i in range(width)]
    args = ", ".join([f"const uint8_t *in{i}" for i in blocks] + [f"uint8_t *out{i}" for i in blocks])
    body = ["uint64_t " + ", ".join(f"t{c}{i}" for i in blocks for c in range(4)) + ";"]
    for i in blocks:
        body += _load(i, f"in{i}")
        body.append(" ".join(f"s{c}{i} ^= rk[{c}];" for c in range(4)))
    body += _rounds(rounds, decrypt, blocks)
    for i in blocks:
        body += _last_round(rounds, decrypt, i)
    for i in blocks:
        body.append(f"aes_gen_tilegx_put(out{i}, __insn_revbytes(olo{i}), __insn_revbytes(ohi{i}));")
    return {"name": name, "args": args, "body": body, "width": width}


# --- files --------------------------------------------------------------------

def _words(table):
    return [", ".join(f"0x{v:08x}" for v in table[i:i + 6]) + "," for i in range(0, 256, 6)]


def core_context():
    funcs = [block_function(bits, dec, w) for bits in (128, 192, 256) for dec in (False, True)
             for w in (1, 2)]
    tables = {"te": [_words(t) for t in aes_math.TE_BE], "td": [_words(t) for t in aes_math.TD_BE],
              "td4": _words(aes_math.INV_SBOX), "te4": _words(aes_math.SBOX),
              "rcon": ", ".join(f"0x{r << 24:08x}" for r in aes_math.RCON)}
    return {"funcs": funcs, "tables": tables}


def file_for(v):
    return "tilegx/tilegx_kernels.c"


BODIES = {name: name for name in ("ecb", "cbc_enc", "cbc_dec", "cfb_enc", "cfb_dec", "ofb", "ctr")}


def emit(variants, render, backend):
    core = core_context()
    kernels = [{"symbol": v.symbol, "body": v.mode.body_name, "bits": v.key_bits,
                "width": v.width, "dec": v.mode.schedule == "dec",
                "counter_bits": v.mode.counter_bits, "description": v.mode.description,
                "iv_note": v.mode.iv_note} for v in variants]
    return {
        "tilegx/aes_tilegx_core.h": render("tilegx_core.h.j2", **core),
        "tilegx/tilegx_kernels.c": render("tilegx_kernels.c.j2", kernels=kernels, params=KERNEL_PARAMS),
        # The drop-in: one block at a time (AES_encrypt, AES_decrypt).
        "tilegx/aes_core_tilegx.c": render("aes_core_tilegx.c.j2", **dict(
            core, funcs=[f for f in core["funcs"] if f["width"] == 1])),
        **tilegx_asm.files(render),
    }
