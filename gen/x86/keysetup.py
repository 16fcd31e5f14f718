# SPDX-License-Identifier: Apache-2.0
"""AES-NI key setup, straight-line: for each key size one function

    void aes_gen_aesni_key_setup_k<bits>(const uint8_t *key, uint8_t *ks)

that writes the fips format's 480 bytes (gen/variants.py KEY_FORMATS, zeros
where a key size leaves room): the FIPS-197 5.2 encryption schedule at ks,
and at ks + 240 the decryption schedule of the
equivalent inverse cipher (5.3.5: the keys in reverse order, InvMixColumns
(aesimc) on all but the outer two), both in one pass where the key size
lets the decryption key follow the encryption key in a register.

A round key's words come from the key Nk words before it: word i of a row is
the xor of words 0..i of that earlier row (a prefix xor: two shifts and
xors) and of one word aeskeygenassist gives, SubWord(RotWord(w)) ^ Rcon in
dword 1 or 3, SubWord(w) in dword 0 or 2, broadcast by pshufd.  AES-192's
six-word steps straddle rows: each step's four words are stored at their
word offset, and the two after them at theirs (16 bytes whose upper half
the next step overwrites); its decryption keys then come from memory.
Nothing branches or indexes memory; the registers are cleared at the end.
"""

from aes_math import RCON

from .asm import Program, gp, mem, xmm

DEC_OFFSET = 240  # the fips format's decryption schedule
PARAMS = "const uint8_t *key, uint8_t *ks"

KEY, KS = gp("rdi"), gp("rsi")
A, B, T, U, V = (xmm(n) for n in range(5))


def _prefix_xor(p, x, t):
    """x's dwords become x0, x0^x1, x0^x1^x2, x0^..^x3 (t: scratch)."""
    for shift in (4, 8):
        p("movdqa", x, t)
        p("pslldq", shift, t)
        p("pxor", t, x)


def _step(p, x, source, rcon, dword):
    """x = prefix_xor(x) ^ broadcast(dword of aeskeygenassist(source, rcon))."""
    p("aeskeygenassist", rcon, source, U)
    p("pshufd", 0x55 * dword, U, U)
    _prefix_xor(p, x, T)
    p("pxor", U, x)


def _enc(r):
    return mem(KS, 16 * r, show_zero=True)


def _dec(r):
    return mem(KS, DEC_OFFSET + 16 * r)


def _store_both(p, x, r, rounds):
    """x is encryption key r: store it, and decryption key rounds - r."""
    p("movdqu", x, _enc(r))
    if r in (0, rounds):
        p("movdqu", x, _dec(rounds - r))
    else:
        p("aesimc", x, V)
        p("movdqu", V, _dec(rounds - r))


def _k128(p):
    p("movdqu", mem(KEY, 0, show_zero=True), A)
    _store_both(p, A, 0, 10)
    for r in range(1, 11):
        _step(p, A, A, RCON[r - 1], 3)
        _store_both(p, A, r, 10)


def _k256(p):
    p("movdqu", mem(KEY, 0, show_zero=True), A)
    p("movdqu", mem(KEY, 16), B)
    _store_both(p, A, 0, 14)
    _store_both(p, B, 1, 14)
    for r in range(2, 15):
        if r % 2 == 0:  # words 8j..8j+3: SubWord(RotWord(last word)) ^ Rcon
            _step(p, A, B, RCON[r // 2 - 1], 3)
            _store_both(p, A, r, 14)
        else:           # words 8j+4..8j+7: SubWord(last word)
            _step(p, B, A, 0, 2)
            _store_both(p, B, r, 14)


def _k192(p):
    # A: the step's first four words; B's dwords 0-1: its last two.
    p("movdqu", mem(KEY, 0, show_zero=True), A)
    p("movdqu", mem(KEY, 8), B)
    p("pshufd", 0xEE, B, B)  # words 4, 5 into dwords 0, 1
    p("movdqu", A, _enc(0))
    p("movdqu", B, mem(KS, 16))
    for j in range(8):  # words 6j+6 .. 6j+11 (the last step needs four)
        _step(p, A, B, RCON[j], 1)
        p("movdqu", A, mem(KS, 24 * j + 24))
        if j == 7:
            break
        # w[6j+10] = w[6j+4] ^ w[6j+9], w[6j+11] = w[6j+5] ^ w[6j+10]
        p("pshufd", 0xFF, A, U)
        p("movdqa", B, T)
        p("pslldq", 4, T)
        p("pxor", T, B)
        p("pxor", U, B)
        p("movdqu", B, mem(KS, 24 * j + 40))
    for r in range(13):
        p("movdqu", _enc(12 - r), V)
        if 0 < r < 12:
            p("aesimc", V, V)
        p("movdqu", V, _dec(r))


BUILDERS = {128: _k128, 192: _k192, 256: _k256}
REGMAP = ("%xmm0 the step's key words (AES-256: the even round keys)",
          "%xmm1 AES-256: the odd round keys; AES-192: the step's last two words",
          "%xmm2 the prefix xor's shifted copy",
          "%xmm3 aeskeygenassist's word, broadcast",
          "%xmm4 a decryption key",
          "rdi key, rsi ks (SysV)")


def symbol(bits):
    return f"aes_gen_aesni_key_setup_k{bits}"


def kernel(bits):
    """Template context (x86_kernels.S.j2) of the AES-bits key setup."""
    p = Program(symbol(bits))
    BUILDERS[bits](p)
    for reg in (A, B, T, U, V):  # no key word stays in a register
        p("pxor", reg, reg)
    rounds = bits // 32 + 6
    # Zeros where the schedules leave room (an earlier, longer key's words).
    for start in (0, DEC_OFFSET):
        for at in range(start + 16 * (rounds + 1), start + DEC_OFFSET, 16):
            p("movdqu", A, mem(KS, at))
    p("ret")
    return {"symbol": symbol(bits), "params": PARAMS, "program": p, "consts": [],
            "body": p.lines(), "regmap": list(REGMAP),
            "notes": [f"AES-{bits} key setup ({rounds} rounds): the fips format, encryption "
                      f"round keys at ks, decryption (equivalent inverse cipher) at ks + "
                      f"{DEC_OFFSET}, zeros to ks + {2 * DEC_OFFSET}; key: {bits // 8} bytes, "
                      "any alignment.",
                      "Requires: " + ", ".join(sorted(f.upper() for f in p.needs())) + "."]}


PATH = "x86_64/aesni_key_setup.S"


def emit(render):
    """{path: text}: the three key sizes' setup, one file."""
    return {PATH: render("x86_kernels.S.j2", kernels=[kernel(b) for b in (128, 192, 256)],
                         rodata=[])}
