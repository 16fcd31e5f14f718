# SPDX-License-Identifier: Apache-2.0
"""GCM bodies for the AES-NI and VAES backends: CTR with the 32-bit counter
stitched with GHASH (the algebra is gen/aes_math.py's: reflected blocks, the
key powers stored as H^k * x^-1, four carry-less products per block summed
over a group, two folds by 0xc2 << 56).

A kernel takes any number of bytes.  Groups of W blocks come first.  A group
is R = W / L block registers of L lanes; its GHASH is
(Y ^ X_0) * H^W + X_1 * H^(W-1) + ... + X_(W-1) * H: block register r takes
the powers from the table at 16 * (64 - W + L r), L consecutive powers in
its lanes (the table holds them from H^64 down to H^1).  The products of
every register are summed per lane, the sums folded per lane (the fold is
linear), and the lanes XORed into Y.

The rest, fewer than W blocks and maybe a partial one (t blocks), goes in
pieces of R/2, ..., 2, 1 block registers (each taken if that many are
left, so at most once; a piece's rounds run side by side: a short message
is never encrypted a block at a time), then what is left of a register:
with AVX-512 one vector masked to the bytes left; otherwise one block (ymm)
and a partial block through the red zone.  Its m = t (+ 1 for the lengths
block) blocks are hashed against H^m .. H^1 with one reduction:
(Y ^ X_1) * H^m, X_i * H^(m + 1 - i), L * H ((L ^ Y) * H without data):
Y waits in state's hash slot for the first vector of data, which takes it
and zeroes the slot, so Y costs no product of its own.  With
AES_GEN_GCM_LAST (bit 63 of len) the kernel also hashes the lengths block
(state + 48) and writes the tag E(J0) ^ GHASH there, E(J0) computed before
the data (its rounds overlap the rest) and kept in a block register the
tail leaves alone, or across the groups at state + 32 (Tail.run); J0 and
the hash are zeroed at the end.

The registers beside the blocks: the counters, a temporary, the three
product sums, two data registers and two temporaries; VEX on xmm takes one
data register at a time and reduces through it (seven, not nine: 8 blocks
fit in 16 registers, 1.2x faster than 4 on Zen 1).

In the groups the counter blocks are kept big-endian, lane j the counter of
block j, and its low 32 bits in a GP register.  While the low byte (byte 15)
of every counter of the group stays below 256, a group's blocks are the base
plus (b << 56) in the high qword: one vpaddd a register.  Otherwise the base
is byte-reversed (a 16-byte pshufb), where the counter's low 32 bits are
the first dword: vpaddd then counts exactly as inc32 does, modulo 2^32; and
each block reversed back.  The tail keeps the byte-reversed form too, whose
dword 0 is the counter's low 32 bits: state's counter is that plus the
tail's blocks, one vector add, stored once before the tail runs.  Its
blocks take big-endian counters (a register of them, byte 15 added to)
where no byte 15 carries, which from a 96-bit IV is always the case for
a message shorter than a group: an addition is then all that stands
between the state's counter and the rounds (Tail.choose_pieces); else the
byte-reversed ones, each block reversed back.

Encryption hashes the ciphertext it writes: the AES of group i + 1 runs
stitched with the GHASH of group i (read back from dst), a group of AES
alone before the loop and a GHASH alone after it.  Decryption hashes what
it reads: each group's AES and GHASH together.  Stitching merges the two
instruction streams in proportion (stitch()), every load of the hashed data
before the AES stores (dst may be src).
"""

from .asm import Const, Reg, gp, mem, rip
from .plan import block_registers
from .skeletons import TMP_ROLE, Capture, group_loop, stitch

POWERS = 64  # AES_GEN_GCM_POWERS: the powers an aes_gen_gcm_key holds
MASK = Reg("k", 1)
RED_ZONE = mem("rsp", -16)  # the partial block without opmasks (SysV leaves it alone)

ROLES = (("ctr", "counter blocks, big-endian (the tail's byte-reversed): lane j counts "
                 "block j of the group"),
         ("tmp", TMP_ROLE), ("lo", "GHASH: low products"),
         ("mi", "GHASH: middle products"),
         ("hi", "GHASH: high products; between groups the running hash, reflected"),
         ("d", "GHASH: a block register of data"), ("e", "GHASH: the next one"),
         ("t", "GHASH: a key power, a product"), ("x", "GHASH: a product"))
# Constants the groups keep in registers where every round key still fits
# (roles_for): on Intel's Golden Cove cores a byte reversal with its mask in
# memory made AES-128 at vaes512's 32 blocks 5% slower at 64 KiB, and the
# counters' eight additions of memory constants another 2%.
BSWAP_ROLE = ("bsw", "the byte reversal, in the groups")
STEP_ROLE = ("step", "in the groups, a block register's lanes added to byte 15 of every "
             "lane: from one register's counters to the next's")
# The running hash lives in hi's xmm between groups: the sums are folded into
# it, and the next group XORs it into its first block before any product.
Y = "hi"


class Consts:
    """The byte reversal, the per-register counter increments (entry r adds
    L r to every lane's counter; entry R, the group's step), the same for
    big-endian blocks (to byte 15), the lanes' offsets, one in every lane,
    the folding constant and the partial-block mask."""

    def __init__(self, k, width):
        prefix, L = k.v.backend_symbol, k.vec.lanes
        R = max(width // L, 1)
        tables = (
            Const(f".L{prefix}_gcm_bswap", "reverses each 16-byte lane",
                  (".quad 0x08090a0b0c0d0e0f, 0x0001020304050607",) * L),
            Const(f".L{prefix}_gcm_inc{L}", "entry r: L r added to each lane's counter "
                  "(dword 0)", tuple(f".quad {L * r}, 0" for r in range(R + 1) for _ in range(L))),
            Const(f".L{prefix}_gcm_inc_be{L}", "entry r: L r added to byte 15 of each lane",
                  tuple(f".quad 0, 0x{L * r << 56:016x}" for r in range(R + 1)
                        for _ in range(L))),
            Const(f".L{prefix}_gcm_lanes{L}", "lane j: j added to the counter",
                  tuple(f".quad {j}, 0" for j in range(L))),
            Const(f".L{prefix}_gcm_lanes_be{L}", "lane j: j added to byte 15",
                  tuple(f".quad 0, 0x{j << 56:016x}" for j in range(L))),
            Const(f".L{prefix}_gcm_one{L}", "1 added to each lane's counter",
                  (".quad 1, 0",) * L),
            Const(f".L{prefix}_gcm_one_be{L}", "1 added to byte 15 of each lane",
                  (".quad 0, 0x0100000000000000",) * L),
            Const(".Lgcm_fold", "x^6 + x + 1 reflected (0xc2 << 56), in the high qword",
                  (".quad 1, 0xc200000000000000",)),
            Const(".Lgcm_partial", "16 bytes of ones, 16 of zeros: at 16 - n, n bytes kept",
                  (".quad -1, -1", ".quad 0, 0")))
        (self.bswap, self.inc, self.inc_be, self.lanes, self.lanes_be, self.one, self.one_be,
         self.fold, self.partial) = (k.p.const(c).name for c in tables)


def _at(k, w, role):
    """A named register at the length of strategy w."""
    return k.plan.named[role].as_kind(w.kind)


def _encrypt(k, w, regs):
    """regs = the AES of regs, their rounds side by side, at the length of
    strategy w (the keys are broadcast)."""
    p, rounds = k.p, k.plan.rounds
    for r in range(rounds + 1):
        key = k.key(r).as_kind(w.kind)
        for reg in regs:
            if r == 0:
                w.xor(p, key, reg)
            else:
                w.aes(p, "aesenclast" if r == rounds else "aesenc", key, reg)


def _halves(power):
    """The table entry of a power's two halves XORed (the second row)."""
    return mem(power.base, power.disp + 16 * POWERS, power.index, power.scale)


def _mul_acc(k, w, regs, powers, first):
    """Karatsuba products of each data register (one, or two but for SSE)
    with its power, at w's length: lo (+)= d.lo * P.lo, hi (+)= d.hi * P.hi,
    mi (+)= (d.lo ^ d.hi) * (P.lo ^ P.hi); the middle term mi ^ lo ^ hi is
    taken at the reduction.  The sums are at the kernel's length (a shorter
    write clears the lanes above it); with two registers each sum takes both
    products in one three-way XOR.  powers are memory (SSE: loaded through t);
    the registers are consumed."""
    p, vec = k.p, k.vec
    lo, mi, hi, t = (_at(k, w, r) for r in ("lo", "mi", "hi", "t"))
    x = _at(k, w, "x") if "x" in k.plan.named else None
    wide = lambda r: r.as_kind(vec.kind)
    if w.enc == "sse":  # one register; e is free for the halves
        (d,), (power,) = regs, powers
        e = _at(k, w, "e")
        w.load(p, power, t)
        for imm, acc in ((0x00, lo), (0x11, hi)):
            w.clmul(p, imm, t, d, acc if first else x)
            if not first:
                w.xor(p, x, acc)
        w.swap_halves(p, d, e)
        w.xor(p, e, d)
        w.load(p, _halves(power), t)
        w.clmul(p, 0x00, t, d, mi if first else d)
        if not first:
            w.xor(p, d, mi)
        return
    temps = (x, t) if x is not None else (t,)
    for imm, acc in ((0x00, lo), (0x11, hi)):
        if first:
            w.clmul(p, imm, powers[0], regs[0], acc)
            outs = []
        else:
            outs = [temps[0]]
            w.clmul(p, imm, powers[0], regs[0], temps[0])
        for j in range(1, len(regs)):
            w.clmul(p, imm, powers[j], regs[j], temps[len(outs)])
            outs.append(temps[len(outs)])
        _add(k, w, outs, acc)
    for reg, tmp in zip(regs, temps):
        w.swap_halves(p, reg, tmp)
        w.xor(p, tmp, reg)
    for j, (reg, power) in enumerate(zip(regs, powers)):
        w.clmul(p, 0x00, _halves(power), reg, mi if first and j == 0 else reg)
    _add(k, w, regs[1:] if first else regs, mi)


def _add(k, w, terms, acc):
    """acc ^= the terms (registers of w's length), at the kernel's length."""
    vec, wide = k.vec, lambda r: r.as_kind(k.vec.kind)
    if len(terms) == 2:
        vec.xor_into(k.p, wide(terms[0]), wide(terms[1]), wide(acc))
    elif terms:
        vec.xor(k.p, wide(terms[0]), wide(acc))


def _reduce(k, c):
    """y = the accumulated products folded: per lane MI ^= swap(LO) ^ LO.lo * c,
    HI ^= swap(MI) ^ MI.lo * c; then the lanes XORed."""
    vec, p, n = k.vec, k.p, k.plan.named
    lo, mi, hi, t = (n[r] for r in ("lo", "mi", "hi", "t"))
    x = n.get("x", n["d"])  # the data register is free by now
    vec.xor_into(p, lo, hi, mi)  # Karatsuba's middle term
    f = rip(c.fold)
    if vec.enc == "sse" or vec.lanes > 1:
        vec.broadcast(p, f, t)
        f = t
    for low, high in ((lo, mi), (mi, hi)):
        vec.clmul(p, 0x10, f, low, x)
        vec.swap_halves(p, low, low)
        vec.xor_into(p, low, x, high)
    vec.fold_lanes(p, hi, x)  # ends with an xmm write: hi's upper lanes clear


def _counters(k, c, count):
    """The group's counter blocks into the block registers and ctr to the
    next group's: big-endian additions while byte 15 does not carry (count,
    the GP copy of the low 32 bits, tells), else through the byte-reversed
    form."""
    vec, p, blocks, L = k.vec, k.p, k.plan.blocks, k.vec.lanes
    ctr, bswap, R = k.plan.named["ctr"], rip(c.bswap), len(blocks)
    slow, done = p.label(f"carry{len(p.items)}"), p.label(f"counted{len(p.items)}")
    step = k.plan.named.get("step")
    p("cmp", 256 - R * L - L, count.as_byte())
    p("ja", slow)
    if step is not None:  # a chain of additions: R cycles against the group's rounds
        vec.copy(p, ctr, blocks[0])
        for prev, reg in zip(blocks, blocks[1:] + [ctr]):
            vec.add32(p, step, prev, reg)
    else:
        for r, reg in enumerate(blocks):
            vec.add32(p, rip(c.inc_be, 16 * L * r), ctr, reg)
        vec.add32(p, rip(c.inc_be, 16 * L * R), ctr, ctr)
    p("jmp", done)
    p.place(slow)
    vec.shuffle(p, ctr, bswap, ctr)
    for r, reg in enumerate(blocks):
        vec.add32(p, rip(c.inc, 16 * L * r), ctr, reg)
        vec.shuffle(p, reg, bswap, reg)
    vec.add32(p, rip(c.inc, 16 * L * R), ctr, ctr)
    vec.shuffle(p, ctr, bswap, ctr)
    p.place(done)
    p("add", R * L, count.d)


def _aes_group(k, c, src_off=0):
    """(the AES of one group but its stores, the stores): counters (see
    _counters, run first), the rounds, the XOR with src."""
    vec, p, blocks, L = k.vec, k.p, k.plan.blocks, k.vec.lanes
    _counters(k, c, k.scratch(2)[1])
    with Capture(k) as body:
        k.whiten(blocks)
        k.rounds(blocks, False)
        for r, reg in enumerate(blocks):
            vec.xor_mem(p, k.src(src_off + r * L), reg, k.plan.named.get("tmp"))
    with Capture(k) as stores:
        for r, reg in enumerate(blocks):
            vec.store(p, reg, k.dst(r * L))
    return body.items, stores.items


def _ghash_group(k, width, base, disp, c):
    """The GHASH of one group of data at base + disp: products (two block
    registers at a time but with SSE, whose powers go through t), folds, Y."""
    vec, p, n, L = k.vec, k.p, k.plan.named, k.vec.lanes
    table, R = k.arg("htable"), width // L
    power = lambda r: mem(table, 16 * (POWERS - width + L * r), show_zero=True)
    step = 1 if vec.enc == "sse" or "e" not in n else 2
    bswap = n.get("bsw", rip(c.bswap))
    with Capture(k) as g:
        for r in range(0, R, step):
            regs = [n["d"], n.get("e")][:min(step, R - r)]
            for j, reg in enumerate(regs):
                vec.load(p, mem(base, disp + 16 * L * (r + j), show_zero=True), reg)
                vec.shuffle(p, reg, bswap, reg)
            if r == 0:
                vec.xor(p, n[Y].as_kind(vec.kind), regs[0])
            _mul_acc(k, vec, regs, [power(r + j) for j in range(len(regs))], first=r == 0)
        _reduce(k, c)
    return g.items


# --- the tail --------------------------------------------------------------------

def _widest_piece(R):
    """The most block registers a piece of the tail takes (Tail.pieces)."""
    q = 1
    while 2 * q < R:
        q *= 2
    return q


class Tail:
    """The bytes after the groups (fewer than W blocks), with the registers
    it adds: len's bytes left (n), the AES_GEN_GCM_LAST flag, the pointer to
    the next key power, and a scratch register: the counter's low 32 bits
    (_prologue's count), free once the tail has chosen its counters."""

    def __init__(self, k, c, decrypt):
        self.k, self.c, self.decrypt = k, c, decrypt
        self.n = k.arg("len")
        self.last, self.scratch, self.power = k.scratch(3)
        assert self.scratch == k.scratch(2)[1]  # the count
        k.gp_notes.append(f"{self.last.name} 1 with AES_GEN_GCM_LAST; {self.scratch.name} the "
                          "counter's low 32 bits, in the tail's pieces counts and masks; "
                          f"{self.power.name} the tail's blocks, then its next key power"
                          + (f"; {MASK.name} the tail's byte mask" if k.vec.enc == "evex"
                             else "; the red zone a partial block"))

    def split_len(self):
        """len: the bytes in n, AES_GEN_GCM_LAST as 0 or 1 in last."""
        p = self.k.p
        p("mov", self.n, self.last)
        p("shr", 63, self.last)
        p("btr", 63, self.n)

    def ek0(self, into):
        """With AES_GEN_GCM_LAST, E(J0) from state + 32 into a register, or
        (into None) back to state + 32 through the first block register: a
        chain of rounds nothing else waits for, so it runs beside the rest."""
        k, p, x = self.k, self.k.p, self.k.vec.narrow()
        skip = p.label("no_ek0" if into is None else "short_no_ek0")
        p("test", self.last, self.last)
        p("jz", skip)
        blk = into or k.plan.blocks[0].as_kind("xmm")
        x.load(p, mem(k.arg("state"), 32), blk)
        _encrypt(k, x, [blk])
        if into is None:
            x.store(p, blk, mem(k.arg("state"), 32))
        p.place(skip)

    def run(self, groups):
        """The counters' lanes, the groups (groups() emits them on big-endian
        counters) where len has one, E(J0), then the tail (emit) on
        byte-reversed counters and big-endian ones in the last block register
        but one.  E(J0) waits in the last block register,
        which the tail leaves alone (its pieces take at most half the
        registers): computed there for a message shorter than a group; the
        groups need every register, so before them it goes to state + 32
        and comes back after them, long since stored.  The tag then waits
        on no store and reload of E(J0) (64-byte decryption, AES-256, Zen 5:
        about 2% of the call), and a message with no group no byte reversal
        to and back from big-endian counters (2% more).  One block a
        register, whose prologue adds no lanes, keeps them big-endian until
        the tail."""
        k, p, vec, c = self.k, self.k.p, self.k.vec, self.c
        W, ctr, bswap = len(k.plan.blocks) * vec.lanes, k.plan.named["ctr"], rip(c.bswap)
        short, tail = p.label("short"), p.label("tail_start")
        blocks, widest = k.plan.blocks, _widest_piece(len(k.plan.blocks))
        self.ek = blocks[-1].as_kind("xmm") if len(blocks) > 1 else None
        self.be = blocks[-2] if len(blocks) - 2 >= widest else None
        if self.ek is not None:
            k.plan.notes[blocks[-1]] = "in the tail E(J0)"
        if self.be is not None:  # the tail's counters as they come, big-endian
            k.plan.notes[self.be] = "in the tail the counter blocks, big-endian"
            if vec.lanes > 1:
                vec.add32(p, rip(c.lanes_be), ctr, self.be)
            else:
                vec.copy(p, ctr, self.be)
        if vec.lanes > 1:
            vec.shuffle(p, ctr, bswap, ctr)
            vec.add32(p, rip(c.lanes), ctr, ctr)
        if self.ek is None:
            self.ek0(None)
        p("cmp", 16 * W, self.n)
        p("jb", short)
        if vec.lanes > 1:
            vec.shuffle(p, ctr, bswap, ctr)
        if self.ek is not None:
            self.ek0(None)
        groups()
        if self.be is not None:
            vec.copy(p, ctr, self.be)
        vec.shuffle(p, ctr, bswap, ctr)
        if self.ek is not None:
            back = p.label("ek0_back")
            p("test", self.last, self.last)
            p("jz", back)
            k.vec.narrow().load(p, mem(k.arg("state"), 32), self.ek)
            p.place(back)
        p("jmp", tail)
        p.place(short)
        if vec.lanes == 1:
            vec.shuffle(p, ctr, bswap, ctr)
        if self.ek is not None:
            self.ek0(self.ek)
        p.place(tail)
        self.emit()

    def piece(self, w, q, how, be):
        """q block registers of strategy w: counters from ctr's lanes (be:
        from the big-endian ones, no byte 15 carrying), the rounds of all q
        side by side, then per register the XOR with src to dst (how:
        "full", or for one register "masked" or "bounce": through the red
        zone, n < 16 bytes) and the ciphertext's products into the sums; the
        counters then count on by q registers' lanes."""
        k, c, p = self.k, self.c, self.k.p
        vec, src, dst, L = k.vec, k.arg("src"), k.arg("dst"), w.lanes
        assert q == 1 or how == "full"
        blks, d = [b.as_kind(w.kind) for b in k.plan.blocks[:q]], _at(k, w, "d")
        bswap = rip(c.bswap)
        ctr = self.be if be else k.plan.named["ctr"]
        inc, one = (c.inc_be, c.one_be) if be else (c.inc, c.one)
        for r, blk in enumerate(blks):
            if r:
                w.add32(p, rip(inc, 16 * vec.lanes * r), ctr.as_kind(w.kind), blk)
            else:
                w.copy(p, ctr.as_kind(w.kind), blk)
            if not be:
                w.shuffle(p, blk, bswap, blk)
        step = rip(inc, 16 * vec.lanes * q) if L == vec.lanes else rip(one)
        vec.add32(p, step, ctr, ctr)
        _encrypt(k, w, blks)
        for r, blk in enumerate(blks):
            at = 16 * L * r
            if how == "masked":
                w.load_masked(p, mem(src), d, MASK)
            elif how == "bounce":
                self.bounce(src, None)
                w.load(p, RED_ZONE, d)
            else:
                w.load(p, mem(src, at), d)
            w.xor(p, d, blk)
            if how == "masked":
                w.store_masked(p, blk, mem(dst), MASK)
            elif how == "bounce":
                w.store(p, blk, RED_ZONE)
                self.bounce(None, dst)
            else:
                w.store(p, blk, mem(dst, at))
            if not self.decrypt:  # the ciphertext: what was written, zero past n
                if how == "masked":
                    w.keep_masked(p, blk, MASK)
                elif how == "bounce":
                    p("lea", rip(c.partial, 16), self.scratch)
                    p("sub", self.n, self.scratch)
                    t = _at(k, w, "t")
                    w.load(p, mem(self.scratch), t)
                    w.and_(p, t, blk)
                w.copy(p, blk, d)
            w.shuffle(p, d, bswap, d)
            if r == 0:
                self.take_y(w, d)
            _mul_acc(k, w, [d], [mem(self.power, at)], first=False)
            if how == "bounce":
                w.zero(p, blk)
                w.store(p, blk, RED_ZONE)

    def bounce(self, src, dst):
        """n bytes, a byte at a time: from src into the red zone (zeroed
        first), or from it to dst.  The byte goes through htable's register
        (no longer needed: the powers are in self.power)."""
        k, p = self.k, self.k.p
        i, byte = self.scratch, k.arg("htable")
        loop = p.label(("bounce_in" if src else "bounce_out") + self.sfx)
        if src:
            x = k.vec.narrow()
            x.zero(p, _at(k, x, "t"))
            x.store(p, _at(k, x, "t"), RED_ZONE)
        p("xor", i, i)
        p.place(loop)
        if src:
            p("movzbq", mem(src, 0, i), byte)
            p("mov", byte.as_byte(), mem("rsp", -16, i))
        else:
            p("movzbq", mem("rsp", -16, i), byte)
            p("mov", byte.as_byte(), mem(dst, 0, i))
        p("add", 1, i)
        p("cmp", self.n, i)
        p("jb", loop)
        p("xor", byte, byte)

    def take_y(self, w, d):
        """d ^= Y, which waits at state (the hash's slot) for the first
        vector hashed and is zeroed there once taken; through t, free until
        the products."""
        k, p = self.k, self.k.p
        x, state = k.vec.narrow(), mem(k.arg("state"))
        t = _at(k, x, "t")
        x.load(p, state, t)  # a VEX/EVEX xmm write: zero above lane 0
        w.xor(p, t.as_kind(w.kind), d)
        x.zero(p, t)
        x.store(p, t, state)

    def advance(self, step):
        p = self.k.p
        for reg in (self.k.arg("src"), self.k.arg("dst"), self.power):
            p("add", step, reg)
        p("sub", step, self.n)

    def emit(self):
        """The counter, the powers, the vectors (and L * H, E(J0)) with Y
        folded into the first, the reduction (and the tag)."""
        k, c, p = self.k, self.c, self.k.p
        vec, x = k.vec, k.vec.narrow()
        n, last, power, t = self.n, self.last, self.power, self.power
        state, table = k.arg("state"), k.arg("htable")
        go, done, l_times_h, no_last, sums, reduce_, tag_done = (p.label(s) for s in (
            "tail", "tail_done", "l_times_h", "no_last", "sums", "reduce", "tag_done"))
        ctr = k.plan.named["ctr"]
        # t = the tail's blocks; state's counter = the counter + t: dword 0
        # of the byte-reversed form counts modulo 2^32, as inc32.
        p("lea", mem(n, 15), t)
        p("shr", 4, t)
        tx, bswap = _at(k, x, "t"), rip(c.bswap)
        x.from_gp(p, t, tx)
        x.add32(p, ctr.as_kind("xmm"), tx, tx)
        x.shuffle(p, tx, bswap, tx)
        x.store(p, tx, mem(state, 16))
        p("test", n, n)
        p("jnz", go)
        p("test", last, last)
        p("jz", tag_done)  # nothing to hash: the hash as the groups left it
        p.place(go)
        # m = t + last blocks to hash: power = H^m.
        p("add", last, t)
        p("shl", 4, t)
        p("neg", t)
        p("lea", mem(table, 16 * POWERS, t), power)  # t is power
        d, y = _at(k, x, "d"), _at(k, x, Y)
        x.store(p, y, mem(state))  # for the first vector (take_y)
        p("test", last, last)
        p("jz", no_last)
        # L * H first, off the data's path; without data, (L ^ Y) * H.
        x.load(p, mem(state, 48), d)
        x.shuffle(p, d, bswap, d)
        p("test", n, n)
        p("jnz", l_times_h)
        x.xor(p, y, d)
        p.place(l_times_h)
        _mul_acc(k, x, [d], [mem(table, 16 * (POWERS - 1))], first=True)
        p("jmp", sums)
        p.place(no_last)
        for acc in ("lo", "mi", Y):
            x.zero(p, _at(k, x, acc))
        p.place(sums)
        self.choose_pieces(reduce_)
        p.place(reduce_)
        _reduce(k, c)
        p("test", last, last)
        p("jz", tag_done)
        if self.ek is None:
            x.load(p, mem(state, 32), d)
        else:
            x.copy(p, self.ek, d)
        t_ = _at(k, x, "t")
        x.shuffle(p, y, bswap, t_)
        x.xor(p, t_, d)
        x.store(p, d, mem(state, 48))
        x.zero(p, d)
        x.store(p, d, mem(state, 32))  # J0 consumed, E(J0) (the key's) not left behind
        x.store(p, d, mem(state))      # nor the hash that the tag hides it with
        p("jmp", done)
        p.place(tag_done)
        _store_hash(k)
        p.place(done)

    def choose_pieces(self, end):
        """The pieces on the big-endian counters where no byte 15 of them
        carries (the low byte of the counter at most 256 - W: always, from a
        96-bit IV, for a message shorter than a group), their additions then
        the only step before the rounds (3-5% of a 64-byte one-shot call on
        Zen 5); else on the byte-reversed ones."""
        k, p = self.k, self.k.p
        if self.be is None:
            self.pieces(end, False)
            return
        W, le = len(k.plan.blocks) * k.vec.lanes, p.label("tail_le")
        assert W < 256
        p("cmp", 256 - W, self.scratch.as_byte())  # still the count
        p("ja", le)
        self.pieces(end, True)
        p("jmp", end)
        p.place(le)
        self.pieces(end, False)

    def pieces(self, end, be):
        """Whole block registers in pieces of R/2, ..., 2, 1 registers (R the
        group's), each taken if that many are left: fewer than R remain, so
        each piece runs at most once, and its blocks' rounds run side by
        side.  Then fewer than a register's bytes: with AVX-512 one masked
        vector; otherwise one xmm block (ymm) and a partial block."""
        k, p, n = self.k, self.k.p, self.n
        w, x = k.vec, k.vec.narrow()
        R, sfx = len(k.plan.blocks), "_be" if be else ""
        self.sfx = sfx  # bounce's labels
        q = _widest_piece(R)
        while q >= 1 and R > 1:
            skip = p.label(f"tail_past{q}{sfx}")
            p("cmp", 16 * w.lanes * q, n)
            p("jb", skip)
            self.piece(w, q, "full", be)
            self.advance(16 * w.lanes * q)
            p.place(skip)
            q //= 2
        p("test", n, n)
        p("jz", end)
        if w.enc == "evex":
            p("xor", self.scratch, self.scratch)
            p("bts", n, self.scratch)
            p("sub", 1, self.scratch)
            p("kmovq", self.scratch, MASK)
            self.piece(w, 1, "masked", be)
            return
        if w.lanes > 1:
            one = p.label("tail_one" + sfx)
            p("cmp", 16, n)
            p("jb", one)
            self.piece(x, 1, "full", be)
            self.advance(16)
            p("test", n, n)
            p("jz", end)
            p.place(one)
        self.piece(x, 1, "bounce", be)


# --- the bodies ------------------------------------------------------------------

def _prologue(k):
    """y and the counter from state (big-endian in every lane: Tail.run
    adds the lanes), and its low 32 bits in a GP register."""
    vec, p, n = k.vec, k.p, k.plan.named
    state, count = k.arg("state"), k.scratch(2)[1]
    vec.narrow().load(p, mem(state), n[Y].as_kind("xmm"))
    vec.broadcast(p, mem(state, 16), n["ctr"])
    p("mov", mem(state, 28), count.d)
    p("bswap", count.d)


def _group_constants(k, c):
    """The constants the groups keep in registers (roles_for), loaded where a
    message has a group: a short one pays nothing for them."""
    n, L = k.plan.named, k.vec.lanes
    if "bsw" in n:
        k.vec.load(k.p, rip(c.bswap), n["bsw"])
    if "step" in n:
        k.vec.load(k.p, rip(c.inc_be, 16 * L), n["step"])


def _store_hash(k):
    k.vec.narrow().store(k.p, k.plan.named[Y].as_kind("xmm"), mem(k.arg("state")))


def gcm_enc(k, v):
    """The AES of group i + 1 stitched with the GHASH of group i's output."""
    p, w = k.p, v.width
    c = Consts(k, w)
    tail = Tail(k, c, decrypt=False)
    n, src, dst = k.arg("len"), k.arg("src"), k.arg("dst")
    tail.split_len()
    _prologue(k)

    def groups():  # at least one
        loop, last = p.label("loop"), p.label("last")
        _group_constants(k, c)
        body_, stores = _aes_group(k, c)
        p.items += body_ + stores
        p("add", 16 * w, src)
        p("add", 16 * w, dst)
        p("sub", 16 * w, n)
        p.directive(".p2align 4")
        p.place(loop)
        p("cmp", 16 * w, n)
        p("jb", last)
        body_, stores = _aes_group(k, c)
        stitch(k, body_, _ghash_group(k, w, dst, -16 * w, c), stores)
        p("add", 16 * w, src)
        p("add", 16 * w, dst)
        p("sub", 16 * w, n)
        p("jmp", loop)
        p.place(last)
        p.items += _ghash_group(k, w, dst, -16 * w, c)
    tail.run(groups)


def gcm_dec(k, v):
    """Each group's AES stitched with the GHASH of its input."""
    w = v.width
    c = Consts(k, w)
    tail = Tail(k, c, decrypt=True)
    tail.split_len()
    _prologue(k)

    def group():
        body_, stores = _aes_group(k, c)
        stitch(k, body_, _ghash_group(k, w, k.arg("src"), 0, c), stores)

    def groups():
        _group_constants(k, c)
        group_loop(k.p, w, group, k.arg("len"), k.arg("src"), k.arg("dst"), unit=16,
                   first_checked=True)
    tail.run(groups)


def width_problem(width):
    """A group of W blocks and, in the tail, W blocks and the lengths block
    take W + 1 of the key's powers."""
    if width + 1 > POWERS:
        return (f"width {width} needs {width + 1} hash-key powers (a group, or the tail's "
                f"blocks and the lengths block), more than the {POWERS} a key holds "
                "(AES_GEN_GCM_POWERS)")
    return ""


def roles_for(vec, width, rounds):
    """VEX on xmm: one data register at a time (e and x dropped).  tmp only
    for SSE or spilled round keys; then, while every round key still fits,
    the groups' byte reversal and counter step in registers (AES-256 at
    vaes512's 32 blocks: the byte reversal in tmp's place)."""
    roles = ROLES
    if vec.enc == "vex" and vec.lanes == 1:
        roles = tuple(r for r in ROLES if r[0] not in ("e", "x"))
    fixed = block_registers(vec, width) + rounds + 1
    lean = tuple(r for r in roles if r[0] != "tmp")
    if vec.enc == "sse" or fixed + len(lean) > vec.regs:
        return roles
    extras = (BSWAP_ROLE, STEP_ROLE)
    while fixed + len(lean + extras) > vec.regs:
        extras = extras[:-1]
    return lean + extras


gcm_enc.roles_for = gcm_dec.roles_for = roles_for
gcm_enc.width_problem = gcm_dec.width_problem = width_problem
# Widths up to 4 on xmm: a GCM call of up to 4 blocks (the one-shot path of a
# message of up to 16 bytes) spends its time broadcasting round keys and hash
# key powers, and one zmm ran 22-33% slower than four xmm on Zen 4.
gcm_enc.narrow_up_to = gcm_dec.narrow_up_to = 4
BODIES = {"gcm_enc": gcm_enc, "gcm_dec": gcm_dec}
