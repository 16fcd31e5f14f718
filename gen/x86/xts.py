# SPDX-License-Identifier: Apache-2.0
"""XTS bodies for the AES-NI and VAES backends: whole blocks under
consecutive tweaks, C_j = E(P_j ^ T_j) ^ T_j with T_(j+1) = T_j * alpha (the
algebra is gen/aes_math.py's xts_times_alpha: a block is a little-endian
element of GF(2^128), reduced by x^128 + x^7 + x^2 + x + 1).

iv holds the tweak of the first block.  A group is R block registers of L
lanes; lane i of block register r takes T_(j + L r + i).  Where the register
file holds them, each block register has its own tweak register, held
across groups: the group XORs it in, then steps it by alpha^W for the next
group during the rounds, so no block waits on tweak arithmetic.  Each
register's step stays whole, one after every R/2 instructions of the rounds
(about every half round; the doublings of one block a register are spread
evenly instead): on Zen 5 at 64 KiB, vaes512's 32-block kernel ran at
1.00-1.04x the ECB kernel's time so, and the same kernel at 1.05-1.09x with
each step's instructions spread one by one among the rounds.
Otherwise (aesni and vaes256 at their widest) one register `tw` holds the
first block register's tweaks and each block register takes tw * alpha^(L r)
as its group starts.  The first group's tweaks come from T by per-lane
variable shifts, every register's at once (_first_tweaks).

With one block a register (xmm) the tweaks step by a chain of doublings
instead (aes_math.xts_double_masked): each register's tweak is the one
before it times alpha, in five simple operations (pshufd, psrad, pand,
paddq, pxor) and no carry-less product, which on Zen 1 costs about two
cycles of the pipes the AES rounds issue on.

A multiplication by alpha^s is per 16-byte lane, in qword shifts, a qword
swap (pshufd), one carry-less product and an XOR (aes_math's
xts_times_alpha_clmul): no byte shift, which on Zen 5 issues on the pipes the
AES rounds use (in a loop that keeps both AES pipes busy, each pslldq or
psrldq delayed the rounds about 0.4 cycles; qword shifts, pshufd and the
XORs, nothing).  By s <= 56 bits at a step, or by 64 (a swap and the
product); by exactly 32 (vaes512's 32-block groups), a dword rotation
(pshufd), the top dword alone, the product and an XOR
(aes_math.xts_times_alpha32_rotate).  The top dword comes from a pshufd
zero-masked to dword 0 (TOP_MASK), not a qword shift: on Intel's Golden Cove
a zmm shift issues on port 0 with the AES rounds, a shuffle on port 5 with
the products (AES-128 XTS at 64 KiB 9% faster).

The tweak is XORed in twice: into the whitening before the first round, and
into the last round key, since aesenclast(x, rkN ^ T) = aesenclast(x, rkN) ^ T.
Those last keys (one per block register) wait in registers of their own where
that leaves every round key in one (vaes512 up to 16 blocks), else they are
parked in dst, whose blocks are loaded before anything is stored there (dst
may be src), and the last round reads them back as its memory operand (SSE:
through tmp, unaligned): on a buffer that is not 64-byte aligned the extra
split stores and loads cost about 6% (Zen 4).
Decryption is the same with the equivalent inverse cipher.
"""

import aes_math

from .asm import Const, Reg, mem, rip
from .plan import block_registers
from .skeletons import TMP_ROLE, Capture, stitch, stitch_groups

TOP_MASK = Reg("k", 1)  # EVEX's step by alpha^32: the dwords its top-dword shuffle keeps
MAX_SHIFT = 56  # a product of the carried bits and the fold stays within the low qword
SWAP_SHIFT = 64  # a qword swap and a product of the high qword
ROTATE_SHIFT = 32  # a dword rotation and a product of the top dword

T_ROLE = ("t", "a block register's tweaks")
C_ROLE = ("c", "tweak arithmetic: the bits carried out; a last round key ^ tweaks, for dst")
R_ROLE = ("r", "tweak arithmetic: the carry times 0x87")
ROLES = (T_ROLE, C_ROLE, R_ROLE, ("tmp", TMP_ROLE))
TW_ROLE = ("tw", "tweaks of the group's first register: lane i T_(j+i)")


def roles_for(vec, width, rounds):
    """A tweak register per block register where the registers hold them
    (the round keys spill first), else tw; and a register per block register
    for its last round key ^ tweaks where that leaves every round key in a
    register (else they are parked in dst).  Held tweaks need only the
    temporaries of their step (r not for a dword rotation or a doubling) and
    tmp only for spilled keys or SSE's parked ones: AES-256 at vaes512's 32
    blocks then keeps every round key in a register (reloading three per
    group made the kernel 2.5-3% slower on Zen 5 at 64 KiB)."""
    nblock, keys = block_registers(vec, width), rounds + 1
    held = tuple((f"tw{r}", f"tweaks of block register {r}: this group's, then the next "
                  "group's") for r in range(nblock))
    parks = tuple((f"pk{r}", f"block register {r}'s last round key ^ its tweaks")
                  for r in range(nblock))
    temps = (C_ROLE,) if vec.lanes == 1 or width == ROTATE_SHIFT else (C_ROLE, R_ROLE)
    if nblock + len(temps + held + parks) + keys <= vec.regs:
        return temps + held + parks
    if nblock + len(temps + held) + 1 <= vec.regs:
        spills = nblock + len(temps + held) + keys > vec.regs
        return temps + held + ((("tmp", TMP_ROLE),) if spills or vec.enc == "sse" else ())
    return (TW_ROLE,) + ROLES


def _fold(k):
    """aes_math.XTS_FOLD (x^7 + x^2 + x) in the low qword of every lane."""
    c = Const(f".L{k.v.backend_symbol}_xts_fold", "x^128 = x^7 + x^2 + x + 1 less the x^0 "
              "the swapped carries bring (0x86), in each lane's low qword",
              (f".quad {aes_math.XTS_FOLD:#x}, 0",) * k.vec.lanes)
    return rip(k.p.const(c).name)


def _double_mask(k):
    """aes_math.xts_double_mask(): the dwords the sign masks keep."""
    d = aes_math.xts_double_mask()
    c = Const(f".L{k.v.backend_symbol}_xts_double", "times alpha: x^128 folded back as 0x87 "
              "(dword 0), the low qword's carry (dword 2)",
              (f".quad {d[0] | d[1] << 32:#x}, {d[2] | d[3] << 32:#x}",))
    return rip(k.p.const(c).name)


def double(k, w, src, dst):
    """dst = src * alpha (one block, xmm) with no product
    (aes_math.xts_double_masked): each qword added to itself, plus the sign
    masks of dwords 3 and 1 kept where the carries land; dst may be src."""
    p, c = k.p, k.plan.named["c"].as_kind(w.kind)
    w.shuffle_dwords(p, aes_math.XTS_DOUBLE_SHUFFLE, src, c)
    w.sar32(p, 31, c, c)
    w.and_(p, _double_mask(k), c)
    w.add64(p, src, src, dst)
    w.xor(p, c, dst)


def times_alpha(k, w, src, s, dst):
    """dst = src * alpha^s in each 16-byte lane of strategy w; any s (steps of
    SWAP_SHIFT, then ROTATE_SHIFT where exactly that is left, else steps of
    at most MAX_SHIFT); dst may be src."""
    p, c, fold = k.p, k.plan.named["c"].as_kind(w.kind), _fold(k)
    while s:
        if s >= SWAP_SHIFT:
            r = _product(k, w)
            w.clmul(p, 0x01, fold, src, r)             # the high qword, times the fold
            w.swap_halves(p, src, c)
            w.xor3(p, r, c, dst)
            src, s = dst, s - SWAP_SHIFT
            continue
        if s == ROTATE_SHIFT:  # aes_math.xts_times_alpha32_rotate
            if w.enc == "evex":  # c's low qword: the top dword
                assert getattr(k, "top_mask", False), "TOP_MASK is set before the groups"
                w.shuffle_dwords(p, aes_math.XTS_TOP_DWORD, src, c, keep=TOP_MASK)
                w.clmul(p, 0x00, fold, c, c)          # times the fold
            else:  # c's high qword: the top dword
                w.shift_qwords(p, "srl", 32, src, c)
                w.clmul(p, 0x01, fold, c, c)
            w.shuffle_dwords(p, aes_math.XTS_ROTATE_DWORDS, src, dst)
            w.xor(p, c, dst)
            return
        step = min(s, MAX_SHIFT)
        _shift_step(k, w, src, 64 - step, step, dst)
        src, s = dst, s - step


def _shift_step(k, w, src, right, left, dst):
    """dst = src * alpha^s for s <= MAX_SHIFT, right = 64 - s and left = s:
    numbers, or memory holding a count per qword (each lane its own s)."""
    p, c, r = k.p, k.plan.named["c"].as_kind(w.kind), _product(k, w)

    def shift(op, by, a, b):
        (w.shift_qwords if isinstance(by, int) else w.shift_qwords_by)(p, op, by, a, b)
    shift("srl", right, src, c)                   # c = the bits out of each qword
    w.clmul(p, 0x01, _fold(k), c, r)              # the high qword's, times the fold
    w.swap_halves(p, c, c)                        # the low qword's into the high one
    shift("sll", left, src, dst)
    w.xor_into(p, r, c, dst)


def _product(k, w):
    """r, the second temporary of a step; where the plan has none (held
    tweaks that step by a rotation), the last block register, whose blocks
    are not loaded yet (only the first group's tweaks take other steps)."""
    return (k.plan.named.get("r") or k.plan.blocks[-1]).as_kind(w.kind)


def _shift_counts(k, count):
    """The per-lane shifts of block registers 0..count-1 (lane i of register j
    takes T * alpha^s, s = L j + i <= MAX_SHIFT): entry j is 64 - s, then s,
    in both qwords of every lane."""
    L = k.vec.lanes
    lines = tuple(f".quad {n}, {n}" for j in range(count) for right in (True, False)
                  for n in ((64 - (L * j + i)) if right else L * j + i for i in range(L)))
    c = Const(f".L{k.v.backend_symbol}_xts_shifts{L}", "block register j: per lane i, "
              "64 - (L j + i) in each qword, then L j + i (T to T * alpha^(L j + i))", lines)
    return k.p.const(c).name


def _top_mask(k, v, held):
    """TOP_MASK where an EVEX kernel steps by alpha^(64 i + 32): from group to
    group, or (derived tweaks) from the first register's tweaks to another's."""
    L, nblock = k.vec.lanes, len(k.plan.blocks)
    steps = [v.width] + ([] if held else [L * j for j in range(1, nblock) if L * j <= MAX_SHIFT])
    if k.vec.enc != "evex" or all(s % SWAP_SHIFT != ROTATE_SHIFT for s in steps):
        return
    k.top_mask = True  # times_alpha checks it
    keep = sum(aes_math.XTS_TOP_KEEP << 4 * i for i in range(k.vec.lanes))
    g = k.scratch(1)[0]
    k.p("mov", keep, g.d)
    k.p("kmovq", g, TOP_MASK)
    k.gp_notes.append(f"{TOP_MASK.name} the dwords the step by alpha^32 keeps "
                      f"({g.name} on the way)")


def _first_tweaks(k, tws):
    """The first group's tweaks from T at iv: block register j's lane i
    T * alpha^(L j + i).  One block a register: a chain of doublings.  Else T
    is broadcast into tmp, or where the plan has none the first block
    register (both free before the groups), and each register's lanes
    come from it at once by per-lane shifts while L j + i <= MAX_SHIFT, all
    registers side by side (a later register from the one before it): the
    first group's rounds wait on one product, not on a chain of them (its
    lanes built one by one and inserted, then each register from those, made
    512-byte XTS calls 5-19% slower on Zen 5)."""
    vec = k.vec
    if vec.lanes == 1:
        vec.load(k.p, mem(k.arg("iv")), tws[0])
        for j in range(1, len(tws)):
            _register_tweaks(k, tws[0], tws[j - 1], j, tws[j])
        return
    L = vec.lanes
    bcast = k.plan.named.get("tmp") or k.plan.blocks[0]  # blocks: not loaded yet
    assert bcast != _product(k, vec)
    vec.broadcast(k.p, mem(k.arg("iv")), bcast)
    direct = min(len(tws), (MAX_SHIFT + 1) // L)  # registers whose s stay <= MAX_SHIFT
    table = _shift_counts(k, direct)
    for j, tw in enumerate(tws):
        if j < direct:
            _shift_step(k, vec, bcast, rip(table, vec.bytes * 2 * j),
                        rip(table, vec.bytes * (2 * j + 1)), tw)
        else:
            times_alpha(k, vec, tws[j - 1], L, tw)


def _register_tweaks(k, first, before, j, dst):
    """dst = the tweaks of block register j: one block a register, the
    register's before it doubled; else from the first register's while the
    shift is short, else from the register's before it."""
    lanes = k.vec.lanes
    if lanes == 1:
        double(k, k.vec, first if j == 1 else before, dst)
    elif lanes * j <= MAX_SHIFT:
        times_alpha(k, k.vec, first, lanes * j, dst)
    else:
        times_alpha(k, k.vec, before, lanes, dst)


def _enter(k, j, reg, tweak):
    """Block register j loaded and whitened under its tweaks, its last round
    key ^ tweaks parked: in its register, or in dst."""
    p, vec, c = k.p, k.vec, k.plan.named["c"]  # c: free once the tweaks are stepped
    vec.load(p, k.src(j * vec.lanes), reg)
    vec.xor_into(p, k.key_operand(0), tweak, reg)  # a memory operand goes first (EVEX)
    park = k.plan.named.get(f"pk{j}")
    vec.xor3(p, k.key_operand(k.plan.rounds), tweak, park or c)
    if not park:
        vec.store(p, c, k.dst(j * vec.lanes))


def _leave(k, blocks, decrypt):
    """The last rounds on the parked keys, the blocks stored."""
    p, vec = k.p, k.vec
    last = "aesdeclast" if decrypt else "aesenclast"
    for j, reg in enumerate(blocks):
        park = k.plan.named.get(f"pk{j}")
        if park:
            vec.aes(p, last, park, reg)
        elif vec.enc == "sse":
            vec.load(p, k.dst(j * vec.lanes), k.tmp)
            vec.aes(p, last, k.tmp, reg)
        else:
            vec.aes(p, last, k.dst(j * vec.lanes), reg)
        vec.store(p, reg, k.dst(j * vec.lanes))


def _xts_held(k, v, decrypt):
    """Tweak registers tw0..tw(R-1) held across groups."""
    blocks = k.plan.blocks
    tws = [k.plan.named[f"tw{r}"] for r in range(len(blocks))]

    def group():
        for j, reg in enumerate(blocks):
            _enter(k, j, reg, tws[j])
        with Capture(k) as rounds:
            k.middle_rounds(blocks, decrypt)
        if k.vec.lanes == 1:  # the next group's: a chain of doublings, spread
            with Capture(k) as tweaks:
                for j, tw in enumerate(tws):
                    double(k, k.vec, tws[j - 1], tw)
            stitch(k, rounds.items, tweaks.items)
        else:  # each register's step whole, one after every half round
            steps = []
            for tw in tws:
                with Capture(k) as step:
                    times_alpha(k, k.vec, tw, v.width, tw)
                steps.append(step.items)
            stitch_groups(k, rounds.items, steps, max(1, len(blocks) // 2))
        _leave(k, blocks, decrypt)

    _first_tweaks(k, tws)
    _top_mask(k, v, held=True)
    k.loop(v.width, group)
    k.vec.narrow().store(k.p, tws[0].as_kind("xmm"), mem(k.arg("iv")))


def _xts_derived(k, v, decrypt):
    """One tweak register tw; each block register's derived as its group starts."""
    blocks, n = k.plan.blocks, k.plan.named
    tw, t = n["tw"], n["t"]

    def group():
        for j, reg in enumerate(blocks):
            if j:
                _register_tweaks(k, tw, t, j, t)  # t: register j - 1's
            _enter(k, j, reg, t if j else tw)
        k.middle_rounds(blocks, decrypt)
        _leave(k, blocks, decrypt)
        if k.vec.lanes == 1:
            double(k, k.vec, t if len(blocks) > 1 else tw, tw)
        else:
            times_alpha(k, k.vec, tw, v.width, tw)

    _first_tweaks(k, [tw])
    _top_mask(k, v, held=False)
    k.loop(v.width, group)
    k.vec.narrow().store(k.p, tw.as_kind("xmm"), mem(k.arg("iv")))


def _xts(k, v, decrypt):
    (_xts_held if "tw0" in k.plan.named else _xts_derived)(k, v, decrypt)


def xts_enc(k, v):
    """C_j = E(P_j ^ T_j) ^ T_j."""
    _xts(k, v, decrypt=False)


def xts_dec(k, v):
    """P_j = D(C_j ^ T_j) ^ T_j (the equivalent inverse cipher)."""
    _xts(k, v, decrypt=True)


xts_enc.roles = xts_dec.roles = (TW_ROLE,) + ROLES
xts_enc.roles_for = xts_dec.roles_for = roles_for
BODIES = {"xts_enc": xts_enc, "xts_dec": xts_dec}
