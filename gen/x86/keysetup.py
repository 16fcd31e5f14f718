# SPDX-License-Identifier: Apache-2.0
"""AES-NI key setup, straight-line: for each key size and flavor one function

    void aes_gen_<flavor>_key_setup_k<bits>(const uint8_t *key, uint8_t *ks)

(flavor aesni: legacy SSE; avx512: VEX and vpternlogq, where the CPU has
AVX-512VL: runtime/key_schedule.c picks)

that writes the first ZERO_TO bytes of ks, the fips format's schedules
(gen/variants.py KEY_FORMATS) and zeros where they leave room (a key set
over a longer one leaves none of its words): the FIPS-197 5.2 encryption
schedule at ks,
and at ks + 256 the decryption schedule of the
equivalent inverse cipher (5.3.5: the keys in reverse order, InvMixColumns
(aesimc) on all but the outer two), both in one pass where the key size
lets the decryption key follow the encryption key in a register.

A round key's words come from the key Nk words before it: word i of a row is
the xor of words 0..i of that earlier row (a prefix xor: two shufps and
xors through a register whose dword 0 stays zero, 2 ticks a setup faster on
Zen 5 than two pslldq and xors) and of one word, SubWord(RotWord(w)) ^ Rcon
(SubWord(w) for AES-256's odd rows), in every dword: pshufb puts w (rotated)
in all four columns, where ShiftRows moves nothing, so aesenclast with Rcon
in every dword as its key gives SubWord and the XOR.  Not aeskeygenassist:
on Intel's Golden Cove it takes 12 cycles (microcode) against pshufb's 1 and
aesenclast's 3, and each step waits on it.  AES-192's
six-word steps straddle rows: each step's four words are stored at their
word offset, and the two after them at theirs (16 bytes whose upper half
the next step overwrites); its decryption keys then come from memory.
Nothing branches or indexes memory; the registers are cleared at the end.
"""

from aes_math import RCON

from .asm import Const, Program, gp, mem, rip, xmm
from .skeletons import merge_consts

DEC_OFFSET = 256  # every format's decryption schedule (runtime/internal.h AES_GEN_DEC_KEYS)
ZERO_TO = 496     # the fips format's size: what vendored callers give (docs/VENDORING.md);
                  # setkey zeroes the rest of a key's AES_GEN_FORMAT_BYTES (runtime/api.c)
PARAMS = "const uint8_t *key, uint8_t *ks"

KEY, KS = gp("rdi"), gp("rsi")
A, B, T, U, V, Z, R = (xmm(n) for n in range(7))

RCONS = Const(".Laes_gen_key_rcon", "entry i: Rcon[i] in every dword (entry 0: none)",
              tuple(f".quad 0x{r << 32 | r:016x}, 0x{r << 32 | r:016x}" for r in (0,) + RCON))


def _word_mask(w, rotated):
    """pshufb's pattern: word w of the source (rotated: RotWord of it) in every dword."""
    order = (1, 2, 3, 0) if rotated else (0, 1, 2, 3)
    b = [4 * w + i for i in order] * 2
    q = int.from_bytes(bytes(b), "little")
    rot = "RotWord of " if rotated else ""
    return Const(f".Laes_gen_key_{'rot' if rotated else ''}word{w}", f"{rot}word {w} in every dword",
                 (f".quad 0x{q:016x}, 0x{q:016x}",))


class Isa:
    """The instruction spellings of a flavor: legacy SSE (two-operand), or
    VEX with AVX-512VL's three-way XOR (vpternlogq: the last two XORs of a
    step in one instruction, 8% faster a setup on Zen 5).  dst is last, as in
    AT&T; the two-operand forms read it."""

    def __init__(self, vex):
        self.vex = vex

    def __call__(self, p, op, *ops):
        """op src.., dst: dst = op(dst, src) (SSE) / op(src, dst) into dst (VEX)."""
        if self.vex:
            p("v" + op, *ops, ops[-1])
        else:
            p(op, *ops)

    def unary(self, p, op, *ops):
        """An instruction that does not read dst (loads, stores, pshufd, aesimc)."""
        p(("v" if self.vex else "") + op, *ops)

    def zero_store(self, p, zero, start, end):
        """Zeros (zero: a zeroed xmm register) over ks[start:end]: 16 bytes a
        store, or the widest of 64, 32, 16 that fits with AVX-512."""
        while start < end:
            n = 16 if not self.vex else max(w for w in (64, 32, 16) if w <= end - start)
            reg = zero.as_kind({16: "xmm", 32: "ymm", 64: "zmm"}[n])
            p({16: "vmovdqu" if self.vex else "movdqu", 32: "vmovdqu", 64: "vmovdqu64"}[n],
              reg, mem(KS, start))
            start += n

    def xor3(self, p, a, b, dst):
        """dst ^= a ^ b."""
        if self.vex:
            p("vpternlogq", 0x96, a, b, dst)
        else:
            p("pxor", a, dst)
            p("pxor", b, dst)


FLAVORS = {"aesni": Isa(False), "avx512": Isa(True)}


def _step(p, f, x, source, word, rcon):
    """x = prefix_xor(x) ^ the step's word in every dword: SubWord(RotWord(w))
    ^ Rcon[rcon] for a round constant (rcon 1..), SubWord(w) for none (0), w
    the source's word `word`, by pshufb and aesenclast (the module's note).
    The prefix xor (x's dwords become x0, x0^x1, x0^x1^x2, x0^..^x3) through Z,
    whose dword 0 stays zero: Z = 0, 0, x1, x0; x ^= Z; Z = 0, x0, x0, x1^x2;
    then x ^= Z ^ the broadcast word."""
    mask = rip(p.const(_word_mask(word, rotated=rcon > 0)).name)
    if f.vex:
        p("vpshufb", mask, source, U)
    else:
        p("movdqa", source, U)
        p("pshufb", mask, U)
    f.unary(p, "movdqa", rip(p.const(RCONS).name, 16 * rcon), R)
    f(p, "aesenclast", R, U)
    f(p, "shufps", 0x10, x, Z)
    f(p, "pxor", Z, x)
    f(p, "shufps", 0x8C, x, Z)
    f.xor3(p, Z, U, x)


def _enc(r):
    return mem(KS, 16 * r, show_zero=True)


def _dec(r):
    return mem(KS, DEC_OFFSET + 16 * r)


def _store_both(p, f, x, r, rounds):
    """x is encryption key r: store it, and decryption key rounds - r."""
    f.unary(p, "movdqu", x, _enc(r))
    if r in (0, rounds):
        f.unary(p, "movdqu", x, _dec(rounds - r))
    else:
        f.unary(p, "aesimc", x, V)
        f.unary(p, "movdqu", V, _dec(rounds - r))


def _k128(p, f):
    f.unary(p, "movdqu", mem(KEY, 0, show_zero=True), A)
    _store_both(p, f, A, 0, 10)
    for r in range(1, 11):
        _step(p, f, A, A, 3, r)
        _store_both(p, f, A, r, 10)


def _k256(p, f):
    f.unary(p, "movdqu", mem(KEY, 0, show_zero=True), A)
    f.unary(p, "movdqu", mem(KEY, 16), B)
    _store_both(p, f, A, 0, 14)
    _store_both(p, f, B, 1, 14)
    for r in range(2, 15):
        if r % 2 == 0:  # words 8j..8j+3: SubWord(RotWord(last word)) ^ Rcon
            _step(p, f, A, B, 3, r // 2)
            _store_both(p, f, A, r, 14)
        else:           # words 8j+4..8j+7: SubWord(last word)
            _step(p, f, B, A, 3, 0)
            _store_both(p, f, B, r, 14)


def _k192(p, f):
    # A: the step's first four words; B's dwords 0-1: its last two.
    f.unary(p, "movdqu", mem(KEY, 0, show_zero=True), A)
    f.unary(p, "movdqu", mem(KEY, 8), B)
    f.unary(p, "pshufd", 0xEE, B, B)  # words 4, 5 into dwords 0, 1
    f.unary(p, "movdqu", A, _enc(0))
    f.unary(p, "movdqu", B, mem(KS, 16))
    for j in range(8):  # words 6j+6 .. 6j+11 (the last step needs four)
        _step(p, f, A, B, 1, j + 1)
        f.unary(p, "movdqu", A, mem(KS, 24 * j + 24))
        if j == 7:
            break
        # w[6j+10] = w[6j+4] ^ w[6j+9], w[6j+11] = w[6j+5] ^ w[6j+10]
        f.unary(p, "pshufd", 0xFF, A, U)
        f.unary(p, "movdqa", B, T)
        f(p, "pslldq", 4, T)
        f.xor3(p, T, U, B)
        f.unary(p, "movdqu", B, mem(KS, 24 * j + 40))
    for r in range(13):
        f.unary(p, "movdqu", _enc(12 - r), V)
        if 0 < r < 12:
            f.unary(p, "aesimc", V, V)
        f.unary(p, "movdqu", V, _dec(r))


BUILDERS = {128: _k128, 192: _k192, 256: _k256}
REGMAP = ("%xmm0 the step's key words (AES-256: the even round keys)",
          "%xmm1 AES-256: the odd round keys; AES-192: the step's last two words",
          "%xmm2 AES-192: the last two words shifted",
          "%xmm3 the step's word: broadcast, then SubWord (and Rcon)",
          "%xmm4 a decryption key",
          "%xmm5 the prefix xor's shuffled words (dword 0 zero)",
          "%xmm6 Rcon in every dword",
          "rdi key, rsi ks (SysV)")


def symbol(bits, flavor="aesni"):
    return f"aes_gen_{flavor}_key_setup_k{bits}"


def kernel(bits, flavor="aesni"):
    """Template context (x86_kernels.S.j2) of the AES-bits key setup."""
    f = FLAVORS[flavor]
    p = Program(symbol(bits, flavor))
    f(p, "pxor", Z, Z)  # the prefix xor's zero dword
    BUILDERS[bits](p, f)
    for reg in (A, B, T, U, V, Z, R):  # no key word stays in a register
        f(p, "pxor", reg, reg)
    rounds = bits // 32 + 6
    # Zeros where the schedules leave room, to ZERO_TO.
    f.zero_store(p, A, 16 * (rounds + 1), DEC_OFFSET)
    f.zero_store(p, A, DEC_OFFSET + 16 * (rounds + 1), ZERO_TO)
    if f.vex and p.dirties_upper():  # xmm alone: it never does
        p("vzeroupper")
    p("ret")
    return {"symbol": symbol(bits, flavor), "params": PARAMS, "program": p,
            "consts": list(p.consts.values()),
            "body": p.lines(), "regmap": list(REGMAP),
            "bits": bits,
            "notes": [f"AES-{bits} key setup ({rounds} rounds): the fips format, "
                      f"encryption round keys at ks, decryption (equivalent inverse cipher) at "
                      f"ks + {DEC_OFFSET}, zeros elsewhere to ks + {ZERO_TO}; key: {bits // 8} bytes, "
                      "any alignment.",
                      "Requires: " + ", ".join(sorted(x.upper() for x in p.needs())) + "."]}


PATH = "x86_64/aesni_key_setup.S"


def support(render):
    """The three key sizes' setup in each flavor, one file, and the functions
    kernels.h declares (emitter.py: support), each with the CPU features its
    program needs."""
    kernels = [kernel(b, f) for f in FLAVORS for b in (128, 192, 256)]
    needs = [k["program"].needs() for k in kernels]
    return {"files": {PATH: render("x86_kernels.S.j2", kernels=kernels,
                                   rodata=merge_consts(kernels))},
            "functions": [(k["symbol"], PARAMS,
                           f"AES-{k['bits']} key setup into the fips format (both schedules); "
                           "needs " + ", ".join(sorted(n.upper() for n in need)), need)
                          for k, need in zip(kernels, needs)]}
