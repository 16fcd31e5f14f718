# SPDX-License-Identifier: Apache-2.0
"""GCM bodies for the AES-NI and VAES backends: CTR with the 32-bit counter
stitched with GHASH (the algebra is gen/aes_math.py's: reflected blocks, the
key powers stored as H^k * x^-1, four carry-less products per block summed
over a group, two folds by 0xc2 << 56).

A group of W blocks is R = W / L block registers of L lanes.  Its GHASH is
(Y ^ X_0) * H^W + X_1 * H^(W-1) + ... + X_(W-1) * H: block register r takes
the powers from the table at 16 * (64 - W + L r), L consecutive powers in
its lanes (the table holds them from H^64 down to H^1).  The products of
every register are summed per lane, the sums folded per lane (the fold is
linear), and the lanes XORed into Y.

The counter is kept byte-reversed (a 16-byte pshufb of the block), where
its 32 low bits are the first dword: vpaddd then counts exactly as inc32
does, modulo 2^32, and lane j holds the counter of block j of the group.

Encryption hashes the ciphertext it writes: the AES of group i + 1 runs
stitched with the GHASH of group i (read back from dst), a group of AES
alone before the loop and a GHASH alone after it.  Decryption hashes what
it reads: each group's AES and GHASH together.  Stitching merges the two
instruction streams in proportion (stitch()), every load of the hashed data
before the AES stores (dst may be src).
"""

from .asm import Const, mem, rip
from .skeletons import TMP_ROLE

POWERS = 64  # AES_GEN_GCM_POWERS: the powers an aes_gen_gcm_key holds

ROLES = (("ctr", "counter blocks, byte-reversed: lane j counts block j of the group"),
         ("tmp", TMP_ROLE), ("bswap", "the byte-reversal pattern"),
         ("y", "the running hash, reflected"), ("lo", "GHASH: low products"),
         ("mi", "GHASH: middle products"), ("hi", "GHASH: high products"),
         ("d", "GHASH: a block register of data"), ("t", "GHASH: a key power, a product"),
         ("x", "GHASH: a product"))


def _consts(k, width):
    """The byte reversal, the per-register counter increments (entry r adds
    L r to every lane's counter; entry R, the group's step), the lanes'
    offsets and the folding constant."""
    prefix, L = k.v.backend_symbol, k.vec.lanes
    R = width // L
    bswap = Const(f".L{prefix}_gcm_bswap", "reverses each 16-byte lane",
                  (".quad 0x08090a0b0c0d0e0f, 0x0001020304050607",) * L)
    inc = Const(f".L{prefix}_gcm_inc{L}", "entry r: L r added to each lane's counter (dword 0)",
                tuple(f".quad {L * r}, 0" for r in range(R + 1) for _ in range(L)))
    lanes = Const(f".L{prefix}_gcm_lanes{L}", "lane j: j added to the counter",
                  tuple(f".quad {j}, 0" for j in range(L)))
    fold = Const(".Lgcm_fold", "x^6 + x + 1 reflected (0xc2 << 56), in the high qword",
                 (".quad 1, 0xc200000000000000",))
    return tuple(k.p.const(c) for c in (bswap, inc, lanes, fold))


class Capture:
    """The instructions a piece of body appends, taken out of the program."""

    def __init__(self, k):
        self.k = k

    def __enter__(self):
        self.saved, self.k.p.items = self.k.p.items, []
        return self

    def __exit__(self, *exc):
        self.items, self.k.p.items = self.k.p.items, self.saved
        return False


def stitch(k, aes, ghash, stores):
    """The AES stream and the GHASH stream merged in proportion (the
    instructions of each keep their order; their registers are disjoint),
    then the AES stores: after every load of hashed data."""
    out, g = [], 0
    for i, item in enumerate(aes):
        out.append(item)
        while g < len(ghash) and (g + 1) * len(aes) <= (i + 1) * len(ghash):
            out.append(ghash[g])
            g += 1
    k.p.items += out + ghash[g:] + stores


def _aes_group(k, width, inc, bswap, src_off=0):
    """(the AES of one group but its stores, the stores): counters from ctr,
    the rounds, the XOR with src."""
    vec, p, blocks, L = k.vec, k.p, k.plan.blocks, k.vec.lanes
    ctr = k.plan.named["ctr"]
    with Capture(k) as body:
        for r, reg in enumerate(blocks):
            vec.add32_mem(p, rip(inc.name, 16 * L * r), ctr, reg)
        for reg in blocks:
            vec.shuffle(p, reg, k.plan.named["bswap"], reg)
        vec.add32_mem(p, rip(inc.name, 16 * L * len(blocks)), ctr, ctr)
        k.whiten(blocks)
        k.rounds(blocks, False)
        for r, reg in enumerate(blocks):
            vec.xor_mem(p, k.src(src_off + r * L), reg, k.tmp)
    with Capture(k) as stores:
        for r, reg in enumerate(blocks):
            vec.store(p, reg, k.dst(r * L))
    return body.items, stores.items


def _ghash_group(k, width, base, disp, fold, bswap):
    """The GHASH of one group of data at base + disp: products, folds, y."""
    vec, p, n, L = k.vec, k.p, k.plan.named, k.vec.lanes
    y, lo, mi, hi, d, t, x = (n[r] for r in ("y", "lo", "mi", "hi", "d", "t", "x"))
    table = k.arg("htable")
    with Capture(k) as g:
        for r in range(width // L):
            vec.load(p, mem(base, disp + 16 * L * r, show_zero=True), d)
            vec.shuffle(p, d, n["bswap"], d)
            if r == 0:
                vec.xor(p, y.as_kind(vec.kind), d)
            power = mem(table, 16 * (POWERS - width + L * r), show_zero=True)
            if vec.enc == "sse":  # legacy SSE takes no unaligned memory operand
                vec.load(p, power, t)
                power = t
            first = r == 0
            for imm, acc in ((0x00, lo), (0x11, hi), (0x01, mi)):
                if first:
                    vec.clmul(p, imm, power, d, acc)
                else:
                    vec.clmul(p, imm, power, d, x)
                    vec.xor(p, x, acc)
            vec.clmul(p, 0x10, power, d, d)
            vec.xor(p, d, mi)
        # The folds, per lane: MI ^= swap(LO) ^ LO.lo * c; HI ^= swap(MI) ^ MI.lo * c.
        f = rip(fold.name)
        if vec.enc == "sse" or vec.lanes > 1:
            vec.broadcast(p, f, t)
            f = t
        for low, high in ((lo, mi), (mi, hi)):
            vec.clmul(p, 0x10, f, low, x)
            vec.swap_halves(p, low, low)
            vec.xor_into(p, low, x, high)
        vec.fold_lanes(p, hi, x)
        vec.narrow().copy(p, hi.as_kind("xmm"), y.as_kind("xmm"))
    return g.items


def _prologue(k, bswap, lanes):
    """y and the counters from state; the counter byte-reversed, lane j + j."""
    vec, p, n = k.vec, k.p, k.plan.named
    state = k.arg("state")
    vec.load(p, rip(bswap.name), n["bswap"])
    vec.narrow().load(p, mem(state), n["y"].as_kind("xmm"))
    vec.broadcast(p, mem(state, 16), n["ctr"])
    vec.shuffle(p, n["ctr"], n["bswap"], n["ctr"])
    if vec.lanes > 1:
        vec.add32_mem(p, rip(lanes.name), n["ctr"], n["ctr"])


def _epilogue(k):
    """y and lane 0's counter (byte-reversed back) to state."""
    vec, p, n = k.vec, k.p, k.plan.named
    state = k.arg("state")
    x = vec.narrow()
    x.store(p, n["y"].as_kind("xmm"), mem(state))
    c = n["ctr"].as_kind("xmm")
    x.shuffle(p, c, n["bswap"].as_kind("xmm"), c)
    x.store(p, c, mem(state, 16))


def gcm_enc(k, v):
    """The AES of group i + 1 stitched with the GHASH of group i's output."""
    p, w = k.p, v.width
    bswap, inc, lanes, fold = _consts(k, w)
    n, src, dst = k.arg("nblocks"), k.arg("src"), k.arg("dst")
    done, loop, last = p.label("done"), p.label("loop"), p.label("last")
    _prologue(k, bswap, lanes)
    p("cmp", w, n)
    p("jb", done)
    body_, stores = _aes_group(k, w, inc, bswap)
    p.items += body_ + stores
    p("add", 16 * w, src)
    p("add", 16 * w, dst)
    p("sub", w, n)
    p.directive(".p2align 4")
    p.place(loop)
    p("cmp", w, n)
    p("jb", last)
    body_, stores = _aes_group(k, w, inc, bswap)
    stitch(k, body_, _ghash_group(k, w, dst, -16 * w, fold, bswap), stores)
    p("add", 16 * w, src)
    p("add", 16 * w, dst)
    p("sub", w, n)
    p("jmp", loop)
    p.place(last)
    p.items += _ghash_group(k, w, dst, -16 * w, fold, bswap)
    p.place(done)
    _epilogue(k)


def gcm_dec(k, v):
    """Each group's AES stitched with the GHASH of its input."""
    w = v.width
    bswap, inc, lanes, fold = _consts(k, w)
    _prologue(k, bswap, lanes)

    def group():
        body_, stores = _aes_group(k, w, inc, bswap)
        stitch(k, body_, _ghash_group(k, w, k.arg("src"), 0, fold, bswap), stores)
    k.loop(w, group)
    _epilogue(k)


gcm_enc.roles = gcm_dec.roles = ROLES
BODIES = {"gcm_enc": gcm_enc, "gcm_dec": gcm_dec}
