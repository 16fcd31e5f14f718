# SPDX-License-Identifier: Apache-2.0
"""XTS bodies for the AES-NI and VAES backends: whole blocks under
consecutive tweaks, C_j = E(P_j ^ T_j) ^ T_j with T_(j+1) = T_j * alpha (the
algebra is gen/aes_math.py's xts_times_alpha: a block is a little-endian
element of GF(2^128), reduced by x^128 + x^7 + x^2 + x + 1).

iv holds the tweak of the first block.  Lane i of the register `tw` holds
T_(j+i) for the group's first blocks; block register r takes tw * alpha^(L r)
(L lanes), and the next group tw * alpha^W.  A multiplication by alpha^s
(s <= 56) is per 16-byte lane: the two qwords shifted left by s, the s bits
out of the low qword into the high one, and the s bits out of the high one,
carry-less times 0x87, into the low one (one carry-less product).

The tweak is XORed in twice: into the whitening before the first round, and
into the last round key, since aesenclast(x, rkN ^ T) = aesenclast(x, rkN) ^ T.
Those last keys (one per block register) are parked in dst, whose blocks are
loaded before anything is stored there (dst may be src), and the last round
reads them back as its memory operand (SSE: through tmp, unaligned).
Decryption is the same with the equivalent inverse cipher.
"""

from .asm import Const, mem, rip
from .skeletons import TMP_ROLE

MAX_SHIFT = 56  # a product of the carried bits and 0x87 stays within the low qword

ROLES = (("tw", "tweaks of the group's first register: lane i T_(j+i)"),
         ("t", "a block register's tweaks; then the tweaks ^ the last round key"),
         ("c", "tweak arithmetic: the bits carried out of each qword"),
         ("r", "tweak arithmetic: the high qword's carry times 0x87"),
         ("tmp", TMP_ROLE))


def _poly(k):
    """0x87 (x^7 + x^2 + x + 1) in the low qword of every lane."""
    c = Const(f".L{k.v.backend_symbol}_xts_poly", "x^128 = x^7 + x^2 + x + 1 (0x87), "
              "in each lane's low qword", (".quad 0x87, 0",) * k.vec.lanes)
    return rip(k.p.const(c).name)


def times_alpha(k, w, src, s, dst):
    """dst = src * alpha^s in each 16-byte lane of strategy w; any s (steps of
    at most MAX_SHIFT); dst may be src."""
    p, n = k.p, k.plan.named
    c, r = n["c"].as_kind(w.kind), n["r"].as_kind(w.kind)
    poly = _poly(k)
    while s:
        step = min(s, MAX_SHIFT)
        w.shift_qwords(p, "srl", 64 - step, src, c)   # c = the bits out of each qword
        w.clmul(p, 0x01, poly, c, r)                  # the high qword's, times 0x87
        w.shift_up_qword(p, c, c)                     # the low qword's, into the high one
        w.shift_qwords(p, "sll", step, src, dst)
        w.xor_into(p, r, c, dst)
        src, s = dst, s - step


def _first_tweaks(k):
    """tw = T, T * alpha, ... in its lanes, T from iv."""
    vec, x, n = k.vec, k.vec.narrow(), k.plan.named
    tw, t = n["tw"], n["t"]
    x.load(k.p, mem(k.arg("iv")), tw.as_kind("xmm"))
    for lane in range(1, vec.lanes):
        times_alpha(k, x, tw.as_kind("xmm"), lane, t.as_kind("xmm"))
        vec.insert_lane(k.p, t.as_kind("xmm"), lane, tw)


def _xts(k, v, decrypt):
    p, vec, n = k.p, k.vec, k.plan.named
    tw, t, r, tmp = n["tw"], n["t"], n["r"], k.tmp
    blocks, lanes, rounds = k.plan.blocks, vec.lanes, k.plan.rounds
    last = "aesdeclast" if decrypt else "aesenclast"

    def group():
        for j, reg in enumerate(blocks):
            lanes_j = tw
            if j:
                # from tw while the shift is short, else from the register before
                source, s = (tw, lanes * j) if lanes * j <= MAX_SHIFT else (t, lanes)
                times_alpha(k, vec, source, s, t)
                lanes_j = t
            vec.load(p, k.src(j * lanes), reg)
            vec.xor_into(p, lanes_j, k.key(0), reg)
            vec.xor3(p, k.key(rounds), lanes_j, r)
            vec.store(p, r, k.dst(j * lanes))  # the block's last round key, parked
        k.middle_rounds(blocks, decrypt)
        for j, reg in enumerate(blocks):
            if vec.enc == "sse":
                vec.load(p, k.dst(j * lanes), tmp)
                vec.aes(p, last, tmp, reg)
            else:
                vec.aes(p, last, k.dst(j * lanes), reg)
            vec.store(p, reg, k.dst(j * lanes))
        times_alpha(k, vec, tw, v.width, tw)

    _first_tweaks(k)
    k.loop(v.width, group)
    vec.narrow().store(p, tw.as_kind("xmm"), mem(k.arg("iv")))


def xts_enc(k, v):
    """C_j = E(P_j ^ T_j) ^ T_j."""
    _xts(k, v, decrypt=False)


def xts_dec(k, v):
    """P_j = D(C_j ^ T_j) ^ T_j (the equivalent inverse cipher)."""
    _xts(k, v, decrypt=True)


xts_enc.roles = xts_dec.roles = ROLES
BODIES = {"xts_enc": xts_enc, "xts_dec": xts_dec}
