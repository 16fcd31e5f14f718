# SPDX-License-Identifier: Apache-2.0
"""The TILE-Gx C: block functions on the __insn_* builtins (one or two blocks
per call, per key size and direction) and the mode bodies of the runtime's
tilegx-emu kernels, which call them.  The state is OpenSSL's: four
big-endian 32-bit words; rk is OpenSSL's AES_KEY rd_key (the `openssl` key
format)."""

import aes_math
import cgen
from variants import ROUNDS

# The block functions interleave this many blocks: a kernel's width is one of them.
BLOCK_WIDTHS = (1, 2)


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
    rounds = ROUNDS[bits]
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


def core_context():
    funcs = [block_function(bits, dec, w) for bits in ROUNDS for dec in (False, True)
             for w in BLOCK_WIDTHS]
    tables = {"te": [_words(t) for t in aes_math.TE_BE], "td": [_words(t) for t in aes_math.TD_BE],
              "td4": _words(aes_math.INV_SBOX), "te4": _words(aes_math.SBOX),
              "rcon": ", ".join(f"0x{r << 24:08x}" for r in aes_math.RCON)}
    return {"funcs": funcs, "tables": tables}


def _words(table):
    return [", ".join(f"0x{v:08x}" for v in table[i:i + 6]) + "," for i in range(0, 256, 6)]


# --- mode bodies: C lines of a kernel's body, on the block functions ---------

def _call(v, decrypt, ins, outs):
    """One call of the block function for len(ins) blocks."""
    fn = f"aes_gen_tilegx_{'decrypt' if decrypt else 'encrypt'}{len(ins)}_k{v.key_bits}"
    return f"{fn}(rk32, {', '.join(list(ins) + list(outs))});"


def _blocks(base, width):
    """base, base + 16, ...: the blocks of a group in a buffer."""
    return [base] + [f"{base} + {16 * b}" for b in range(1, width)]


def ecb(v):
    w = v.width
    return ["(void)iv;"] + cgen.group_loop(w, [
        _call(v, v.mode.schedule == "dec", _blocks("src", w), _blocks("dst", w))])


def cbc_enc(v):
    return ["uint8_t x[16];"] + cgen.group_loop(1, [
        "for (int i = 0; i < 16; i++)",
        "    x[i] = src[i] ^ iv[i];",
        _call(v, False, ["x"], ["iv"]),
        "memcpy(dst, iv, 16);"], countdown=True) + ["memset(x, 0, sizeof x);"]


def cbc_dec(v):
    w = v.width
    xors = ["    dst[i] ^= iv[i];"] + [f"    dst[{16 * b} + i] ^= c[{16 * (b - 1)} + i];"
                                       for b in range(1, w)]
    return [f"uint8_t c[{16 * w}];"] + cgen.group_loop(w, [
        f"memcpy(c, src, {16 * w}); /* dst may be src */",
        _call(v, True, _blocks("c", w), _blocks("dst", w)),
        "for (int i = 0; i < 16; i++) {", *xors, "}",
        f"memcpy(iv, c + {16 * (w - 1)}, 16);"]) + ["memset(c, 0, sizeof c);"]


def cfb_enc(v):
    return ["uint8_t ks[16];"] + cgen.group_loop(1, [
        _call(v, False, ["iv"], ["ks"]),
        "for (int i = 0; i < 16; i++)",
        "    dst[i] = iv[i] = src[i] ^ ks[i];"], countdown=True) + ["memset(ks, 0, sizeof ks);"]


def cfb_dec(v):
    w = v.width
    return [f"uint8_t c[{16 * w}], ks[{16 * w}];"] + cgen.group_loop(w, [
        f"memcpy(c, src, {16 * w}); /* dst may be src */",
        _call(v, False, ["iv"] + _blocks("c", w)[:w - 1], _blocks("ks", w)),
        f"for (int i = 0; i < {16 * w}; i++)",
        "    dst[i] = c[i] ^ ks[i];",
        f"memcpy(iv, c + {16 * (w - 1)}, 16);"]) + ["memset(c, 0, sizeof c);",
                                                    "memset(ks, 0, sizeof ks);"]


def ofb(v):
    return cgen.group_loop(1, [
        _call(v, False, ["iv"], ["iv"]),
        "for (int i = 0; i < 16; i++)",
        "    dst[i] = src[i] ^ iv[i];"], countdown=True)


def ctr(v):
    """Counter blocks by aes_gen_tilegx_ctr_inc (tilegx_kernels.c)."""
    w = v.width
    counters = [line for b in range(w) for line in (
        f"memcpy(ctr + {16 * b}, iv, 16);",
        f"aes_gen_tilegx_ctr_inc(iv, {v.mode.counter_bits});")]
    return [f"uint8_t ctr[{16 * w}], ks[{16 * w}];"] + cgen.group_loop(w, counters + [
        _call(v, False, _blocks("ctr", w), _blocks("ks", w)),
        f"for (int i = 0; i < {16 * w}; i++)",
        "    dst[i] = src[i] ^ ks[i];"]) + ["memset(ctr, 0, sizeof ctr);",
                                           "memset(ks, 0, sizeof ks);"]


BODIES = {"ecb": ecb, "cbc_enc": cbc_enc, "cbc_dec": cbc_dec, "cfb_enc": cfb_enc,
          "cfb_dec": cfb_dec, "ofb": ofb, "ctr": ctr}
