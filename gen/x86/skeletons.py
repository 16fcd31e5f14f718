# SPDX-License-Identifier: Apache-2.0
"""Mode skeletons shared by the x86 backends, written once against a Vector
strategy (16/32/64-byte vectors; SSE, VEX or EVEX), and the emitter of the
backends built on them.

Kernels are GNU as (AT&T) functions with the SysV ABI, their arguments in
the argument registers in the order of their shape (gen/variants.py SHAPES;
the block modes: rdi rk, rsi iv, rdx dst, rcx src, r8 nblocks).  They use
only caller-saved registers (rax, rcx, rdx, rsi, rdi, r8-r11, all vector
registers), touch no stack, and clear every vector register they used
before returning so no round key outlives the call.

A body is a function (kernel, variant) registered with the registers it needs
beside its blocks; `BODIES` maps the body names of gen/variants.py MODES to
them.  The pieces every body is built from: the group loop, the chained IV
(CBC/CFB decryption), the whitened serial chain (CFB encryption, OFB) and the
CTR counter.
"""

from emitter import RUNTIME_AEAD_XTS, Emitter, by_file, contract_notes, requires
from variants import Variant

from .asm import Const, Program, Reg, gp, mem, rip
from .plan import PlanError, plan
from .vector import sysv, sysv_note

TMP_ROLE = "temporary: data loads"
# Caller-saved general-purpose registers a body may use beside the arguments.
SCRATCH_GP = ("r9", "r10", "r11", "rax", "r8", "rcx", "rdx", "rsi", "rdi")
# Every x86 backend: one assembly file per backend and (mode, direction).
DIRECTORY = ("x86_64", "x86-64 assembly (GNU as), one file per backend and mode")


def file_for(v):
    return f"x86_64/{v.backend_symbol}_{v.mode.tag}.S"


class Kernel:
    """One kernel being written: its program, register plan and vector
    strategy, and the AES-NI rounds.  A backend with other rounds subclasses
    it (plan_for, load_keys, whiten, middle_rounds, rounds, folds_last_xor,
    register_map) and keeps the mode bodies."""

    def __init__(self, variant, vec, plan_):
        self.v = variant
        self.vec = vec
        self.plan = plan_
        self.p = Program(variant.symbol)
        self.args = sysv(variant.mode.kernel_shape)
        self.gp_notes = []

    @classmethod
    def plan_for(cls, v, vec, roles):
        serial = not v.mode.parallel
        plan_ = plan(vec, 0 if serial else v.width, v.rounds, roles)
        if keys_from_memory(v, vec):
            plan_.keys = {r: None for r in plan_.keys}
            plan_.keys_in_memory = True
        elif keys_reloaded(v, vec, plan_.named):
            plan_.keys = {r: None for r in plan_.keys}
        # The serial modes use rk0 and the last key directly: they must be held.
        assert not serial or (plan_.keys[0] is not None and plan_.keys[v.rounds] is not None)
        return plan_

    def rk_detail(self):
        """What the kernel's comment adds about its round keys."""
        if self.plan.keys_in_memory:
            return ", any alignment; each round reads its key from memory"
        spilled = self.plan.spilled()
        return ", any alignment" + (f"; {len(spilled)} reloaded per group" if spilled else "")

    def register_map(self, body_fn):
        return register_map(self, body_fn)

    @property
    def tmp(self):
        return self.plan.named["tmp"]

    def arg(self, name):
        """The register an argument of the kernel's shape arrives in."""
        return self.args[name]

    def scratch(self, count):
        """count caller-saved general-purpose registers that hold no argument."""
        free = [gp(n) for n in SCRATCH_GP if gp(n) not in self.args.values()]
        assert len(free) >= count, "not enough scratch registers beside the arguments"
        return free[:count]

    def src(self, block):
        return mem(self.arg("src"), 16 * block, show_zero=True)

    def dst(self, block):
        return mem(self.arg("dst"), 16 * block, show_zero=True)

    def loop(self, width, body, countdown=False):
        """The group loop on the kernel's src, dst and nblocks; what follows
        it uses none of them (the last group leaves them where they are)."""
        group_loop(self.p, width, body, self.arg("nblocks"), self.arg("src"), self.arg("dst"),
                   countdown=countdown, in_place=not countdown)

    def key(self, r):
        """The register holding round key r, loading it into tmp if spilled;
        its memory where the plan keeps the keys there."""
        reg = self.plan.keys[r]
        if self.plan.keys_in_memory:
            return mem(self.arg("rk"), 16 * r, show_zero=True)
        if reg is None:
            self.vec.broadcast(self.p, mem(self.arg("rk"), 16 * r, show_zero=True), self.tmp)
            return self.tmp
        return reg

    def key_operand(self, r):
        """Round key r as the source of an XOR: its register, or where a VEX
        or EVEX xmm kernel spilled it, its memory (the load folds into the
        XOR; an AES instruction takes keys from registers, each spilled key
        loaded once per group)."""
        if self.plan.keys[r] is None and self.vec.enc != "sse" and self.vec.bytes == 16:
            return mem(self.arg("rk"), 16 * r, show_zero=True)
        return self.key(r)

    def load_keys(self):
        for r, reg in sorted(self.plan.keys.items()):
            if reg is not None:
                self.vec.broadcast(self.p, mem(self.arg("rk"), 16 * r, show_zero=True), reg)

    def whiten(self, regs):
        k = self.key(0)
        for reg in regs:
            self.vec.xor(self.p, k, reg)

    def middle_rounds(self, regs, decrypt):
        op = "aesdec" if decrypt else "aesenc"
        for r in range(1, self.plan.rounds):
            k = self.key(r)
            for reg in regs:
                self.vec.aes(self.p, op, k, reg)

    def rounds(self, regs, decrypt):
        self.middle_rounds(regs, decrypt)
        k = self.key(self.plan.rounds)
        for reg in regs:
            self.vec.aes(self.p, "aesdeclast" if decrypt else "aesenclast", k, reg)

    def rounds_xor(self, regs, decrypt, operands):
        """rounds(), then regs[j] ^= operands[j]: a register, memory, or a
        function writing the value into the register it is given.  The last
        AES instruction XORs its key in last, so the XOR goes into that key
        (rkN ^ operand, computed off the chain): a chained caller, who waits
        for this output before the next call, waits one XOR less.  Where
        folds_last_xor() says no, the XOR stays after the rounds."""
        if not self.folds_last_xor():
            self.rounds(regs, decrypt)
            for reg, operand in zip(regs, operands, strict=True):
                self.xor_operand(operand, reg)
            return
        self.middle_rounds(regs, decrypt)
        op = "aesdeclast" if decrypt else "aesenclast"
        for reg, operand in zip(regs, operands, strict=True):
            self._last_key_xor(operand)
            self.vec.aes(self.p, op, self.tmp, reg)

    def folds_last_xor(self):
        """Whether rounds_xor folds into the last round's key: rkN in a
        register or (VEX xmm) in memory.  A spilled rkN (the widest groups)
        would be reloaded per block register, costing more than the chain
        gains."""
        return self.plan.keys[self.plan.rounds] is not None or self.plan.keys_in_memory

    def _last_key_xor(self, operand):
        """tmp = rkN ^ operand, rkN in a register or (VEX xmm) in memory."""
        p, vec, tmp, n = self.p, self.vec, self.tmp, self.plan.rounds
        key = self.key(n)
        if callable(operand):
            operand(tmp)
            if isinstance(key, Reg):
                vec.xor(p, key, tmp)
            else:
                vec.xor_mem(p, key, tmp, None)
        elif isinstance(key, Reg):
            vec.xor3(p, operand, key, tmp)
        elif isinstance(operand, Reg):
            vec.xor3(p, key, operand, tmp)
        else:
            vec.load(p, operand, tmp)
            vec.xor_mem(p, key, tmp, None)

    def xor_operand(self, operand, reg):
        """reg ^= operand (as rounds_xor takes it), through tmp where needed."""
        if isinstance(operand, Reg):
            self.vec.xor(self.p, operand, reg)
        elif callable(operand):
            operand(self.tmp)
            self.vec.xor(self.p, self.tmp, reg)
        else:
            self.vec.xor_mem(self.p, operand, reg, self.tmp)

    def clear(self):
        """Zero every planned vector register the kernel named (one it never
        named, such as the width-1 kernels' unused tmp, holds nothing)."""
        named = self.p.vector_numbers()
        for reg in sorted(set(self.plan.used()), key=lambda r: r.num):
            if reg.num in named:
                self.vec.zero(self.p, reg)
        self.vec.finish(self.p)


# --- shared pieces -----------------------------------------------------------

def keys_from_memory(v, vec):
    """A parallel block kernel of width 1 on VEX xmm registers takes every
    round key as its instruction's memory operand (VEX allows any alignment):
    it is what a message of one block runs, where loading eleven or more keys
    into registers and clearing them after shows in the time of a call (a
    load folded into an AES instruction is no extra instruction), and no key
    is left in a register."""
    return (v.mode.parallel and v.width == 1 and v.mode.kernel_shape.name == "block"
            and vec.enc != "sse" and vec.bytes == 16)


def keys_reloaded(v, vec, named):
    """A parallel block kernel of 2 or 3 blocks on xmm whose body names a
    temporary and no chaining value (ECB, CTR: `named`, its roles) loads each round key into the temporary
    just before its round, once for all its blocks: no key loads or clears
    beyond the rounds'.  Independent 32-byte ECB calls on Golden Cove took 8%
    less time than with the keys held in registers (their loads and clears
    are a third of the call), and more as the AES instructions' memory
    operands (a load per block per round).  CBC and CFB decryption keep their
    keys in registers: reloaded, 32-byte calls each on the last one's output
    took 4% longer."""
    return (v.mode.parallel and 2 <= v.width <= 3 and v.mode.kernel_shape.name == "block"
            and vec.bytes == 16 and "tmp" in named and "chain" not in named)


def return_ok(p):
    """Every kernel returns 0 (AES_GEN_OK), so that a public function whose
    message one kernel takes ends in a tail call to it."""
    p("xor", gp("rax").d, gp("rax").d)


def group_loop(p, width, body, n, src, dst, suffix="", countdown=False, unit=1,
               first_checked=False, in_place=False):
    """while (n >= width) { body(); src += 16W; dst += 16W; n -= W; }

    n counts blocks (unit 16: bytes).  n, src and dst may be registers or
    stack slots (suffix "q" sizes the instructions for those).  countdown
    (width 1): test once, then let the subtraction's flags close the loop.
    first_checked: the caller knows n >= width (a do-while).  in_place: what
    follows uses neither pointer nor n, so the loop leaves before advancing
    them (n then holds the blocks left minus W): one group, what the public
    functions' short path calls, costs two fused subtract-and-branch
    instructions around its body; each further group the same four."""
    done, loop = p.label("done"), p.label("loop")
    assert not countdown or (width == 1 and unit == 1)
    step = unit * width
    if in_place:
        assert not countdown and not first_checked
        p("sub" + suffix, step, n)
        p("jb", done)
        p.directive(".p2align 4")
        p.place(loop)
        body()
        p("sub" + suffix, step, n)
        p("jb", done)
        p("add" + suffix, 16 * width, src)
        p("add" + suffix, 16 * width, dst)
        p("jmp", loop)
        p.place(done)
        return
    if countdown and not first_checked:
        p("test", n, n)
        p("jz", done)
    elif not first_checked:
        p("cmp" + suffix, unit * width, n)
        p("jb", done)
    p.directive(".p2align 4")
    p.place(loop)
    body()
    p("add" + suffix, 16 * width, src)
    p("add" + suffix, 16 * width, dst)
    p("sub" + suffix, unit * width, n)
    if countdown:
        p("jnz", loop)
    else:
        p("cmp" + suffix, unit * width, n)
        p("jae", loop)
    p.place(done)



def chained(k, width, body):
    """CBC/CFB decryption: the chaining value comes from iv into every lane of
    its register, where the top lane is the block before the group; the group
    leaves its last ciphertext vector there, and the top lane goes back to iv."""
    chain = k.plan.named["chain"]
    k.vec.broadcast(k.p, mem(k.arg("iv")), chain)
    k.loop(width, body)
    k.vec.extract_top(k.p, chain, mem(k.arg("iv")))


def previous_blocks(k, reg_index, dst):
    """dst = the ciphertext blocks before those of block register reg_index:
    the chaining value's top lane, then the group's blocks, for register 0;
    a load at a 16-byte offset for the others."""
    lanes = k.vec.lanes
    if reg_index:
        k.vec.load(k.p, k.src(reg_index * lanes - 1), dst)
    elif lanes == 1:
        k.vec.copy(k.p, k.plan.named["chain"], dst)
    else:
        k.vec.shift_in_top(k.p, k.plan.named["chain"], k.src(0), dst)


def serial_blocks(k, enter, block):
    """One block at a time, the last peeled off: enter() once, block(False)
    for each block but the last (src and dst then move on), block(True) for
    the last; nblocks == 0 skips all of it to what the caller emits next."""
    p, n = k.p, k.arg("nblocks")
    done, loop, last = p.label("done"), p.label("loop"), p.label("last")
    p("test", n, n)
    p("jz", done)
    enter()
    p("sub", 1, n)
    p("jz", last)
    p.directive(".p2align 4")
    p.place(loop)
    block(False)
    p("add", 16, k.arg("src"))
    p("add", 16, k.arg("dst"))
    p("sub", 1, n)
    p("jnz", loop)
    p.place(last)
    block(True)
    p.place(done)


def whitened_chain(k, body):
    """CFB encryption and OFB: rkN ^= rk0, so aesenclast yields the next block's
    input already whitened; the chain register holds it between blocks.  The
    last block of a call, body(True), un-whitens in its last key instead
    (rkN alone, plus what the mode adds): the chain value leaves for iv with
    no XOR after the rounds, which a caller's next call would wait for."""
    x, k0, kn = k.plan.named["chain"], k.plan.keys[0], k.plan.keys[k.plan.rounds]
    k.plan.notes[kn] = f"rk{k.plan.rounds} ^ rk0"
    k.vec.xor(k.p, k0, kn)
    k.vec.load(k.p, mem(k.arg("iv")), x)
    serial_blocks(k, lambda: k.vec.xor(k.p, k0, x), body)
    k.vec.store(k.p, x, mem(k.arg("iv")))


def ctr_constants(k, width):
    """The byte-swap pattern, the per-block increments (of byte 15 of a
    big-endian block, and of the low qword of a byte-swapped one) and the
    group's step, each as the body's lanes need them."""
    prefix, lanes = k.v.backend_symbol, k.vec.lanes
    bswap = Const(f".L{prefix}_ctr_bswap", "reverses the 16 bytes: LE lanes <-> BE block",
                  (".quad 0x08090a0b0c0d0e0f, 0x0001020304050607",) * lanes)
    inc_be = Const(f".L{prefix}_ctr_inc_be", "b added to byte 15 of a big-endian block, "
                   "for block b", tuple(f".quad 0, 0x{b << 56:016x}" for b in range(width)))
    inc_le = Const(f".L{prefix}_ctr_inc_le", "b added to the low qword of a byte-swapped "
                   "block, for block b", tuple(f".quad {b}, 0" for b in range(width)))
    step = Const(f".L{prefix}_ctr_step{width}", f"{width} added to byte 15, in every lane",
                 (f".quad 0, 0x{width << 56:016x}",) * lanes)
    return tuple(k.p.const(c) for c in (bswap, inc_be, inc_le, step))


def _add_increments(k, inc, base):
    """Block register j = base + the increments of its blocks (base in every lane)."""
    vec = k.vec
    for j, reg in enumerate(k.plan.blocks):
        if j == 0 and vec.lanes == 1:
            vec.copy(k.p, base, reg)
        else:
            vec.add64(k.p, rip(inc.name, 16 * j * vec.lanes), base, reg)


def ctr_counters(k, width):
    """Counter blocks for one group into the block registers.

    The counter is kept twice: big-endian in every lane of `ctr`, as the
    blocks need it, and byte-swapped in hi:lo (two scratch registers) for
    arithmetic.
    Byte 15 of a big-endian block is the top byte of its high qword, so while
    that byte plus W stays below 256 the group's counters, and the next
    group's base, are the base plus b << 56 in the high qword: one vector add
    per register (all but one group in 256 / W).  Otherwise, while the low
    qword plus W - 1 does not wrap, block b is the byte-swapped counter plus b
    in the low qword, then byte-swapped (pshufb); once per 2^64 blocks each
    block is built from hi:lo with add/adc.  Both slower paths rebuild `ctr`
    from hi:lo."""
    p, vec, blocks, tmp, ctr = k.p, k.vec, k.plan.blocks, k.tmp, k.plan.named["ctr"]
    lo, hi, probe = k.scratch(3)
    assert width < 256
    bswap, inc_be, inc_le, step = ctr_constants(k, width)
    swapped, carry, swap, counters = (p.label(n) for n in ("swapped", "carry", "swap",
                                                          "counters"))
    p("cmp", 255 - width, lo.as_byte())
    p("ja", swapped)
    _add_increments(k, inc_be, ctr)
    vec.add64(p, rip(step.name), ctr, ctr)
    p("add", width, lo)
    p("jmp", counters)
    p.place(swapped)
    if width > 1:
        p("mov", lo, probe)
        p("add", width - 1, probe)
        p("jc", carry)
    vec.from_gp_pair(p, lo, hi, ctr, tmp)
    vec.splat_lane0(p, ctr)
    _add_increments(k, inc_le, ctr)
    p("add", width, lo)
    p("adc", 0, hi)
    if width > 1:
        p("jmp", swap)
        p.place(carry)
        for b in range(width):
            reg, lane = k.plan.block(b)
            if lane == 0:
                vec.from_gp_pair(p, lo, hi, reg, tmp)
            else:
                vec.from_gp_pair(p, lo, hi, tmp, None)
                vec.insert_lane(p, tmp.as_kind("xmm"), lane, reg)
            p("add", 1, lo)
            p("adc", 0, hi)
        p.place(swap)
    vec.from_gp_pair(p, lo, hi, ctr, tmp)
    vec.splat_lane0(p, ctr)
    for reg in blocks + [ctr]:
        vec.shuffle_mem(p, rip(bswap.name), reg)
    p.place(counters)


# --- bodies ------------------------------------------------------------------

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


def stitch(k, main, side, after=()):
    """Two instruction streams on disjoint registers merged in proportion
    (each keeps its order: GCM's AES and GHASH, XTS's rounds and next
    tweaks), then the items of after (GCM: the AES stores, once every load
    of hashed data has run)."""
    out, g = [], 0
    for i, item in enumerate(main):
        out.append(item)
        while g < len(side) and (g + 1) * len(main) <= (i + 1) * len(side):
            out.append(side[g])
            g += 1
    k.p.items += out + side[g:] + list(after)


def stitch_groups(k, main, groups, every):
    """The items of main with a whole group of side items after every
    `every` of them, the groups still left after the last (XTS: a tweak
    register's step between half rounds)."""
    out, g = [], 0
    for i, item in enumerate(main):
        out.append(item)
        if g < len(groups) and (i + 1) % every == 0:
            out += groups[g]
            g += 1
    k.p.items += out + [item for group in groups[g:] for item in group]


BODIES = {}


def body_roles(body_fn, vec, v):
    """(role, register-map text) for the registers a body asks for beside its
    blocks: its roles, or what its roles_for gives for the kernel's vector
    and variant v (XTS: tweak registers per block register where they fit)."""
    roles_for = getattr(body_fn, "roles_for", None)
    return roles_for(vec, v.width, v.rounds) if roles_for else body_fn.roles


def body(name, *roles):
    """Register a body with the registers it needs: (role, register-map text)."""
    def register(fn):
        fn.roles = roles
        BODIES[name] = fn
        return fn
    return register


def _load_blocks(k):
    for j, reg in enumerate(k.plan.blocks):
        k.vec.load(k.p, k.src(j * k.vec.lanes), reg)


def _store_blocks(k):
    for j, reg in enumerate(k.plan.blocks):
        k.vec.store(k.p, reg, k.dst(j * k.vec.lanes))


@body("ecb", ("tmp", TMP_ROLE))
def ecb(k, v):
    decrypt = v.mode.schedule == "dec"

    def group():
        _load_blocks(k)
        k.whiten(k.plan.blocks)
        k.rounds(k.plan.blocks, decrypt)
        _store_blocks(k)
    k.loop(v.width, group)


# Serial modes: the chain from one block to the next is only the AES rounds.
# aesenclast XORs its key in last, so XORing the next block's whitening (and
# data) into the last round key hands the next block its whitened input with
# no pxor on the chain; the output block is recovered off the chain.

@body("cbc_enc", ("chain", "chaining value / current block"), ("tmp", TMP_ROLE),
      ("extra", "temporary: last round key ^ next input, output block"))
def cbc_enc(k, v):
    """c_i = E(p_i ^ c_{i-1}).  The chain holds x_i = p_i ^ c_{i-1} ^ rk0.  With
    t = p_{i+1} ^ rk0, aesenclast(., rkN ^ t) = c_i ^ t = x_{i+1}, and c_i = x_{i+1} ^ t.
    The last block of a call uses rkN alone."""
    p, vec = k.p, k.vec
    x, tmp, t2 = k.plan.named["chain"], k.tmp, k.plan.named["extra"]
    k0, kn = k.plan.keys[0], k.plan.keys[k.plan.rounds]
    src, dst = k.arg("src"), k.arg("dst")

    def enter():
        vec.load(p, mem(src), tmp)
        vec.xor(p, k0, tmp)
        vec.xor(p, tmp, x)

    def block(last):
        if last:
            k.rounds([x], False)
            vec.store(p, x, mem(dst))
            return
        k.middle_rounds([x], False)
        vec.load(p, mem(src, 16), tmp)
        vec.xor(p, k0, tmp)
        vec.xor3(p, kn, tmp, t2)
        vec.aes(p, "aesenclast", t2, x)
        vec.xor3(p, tmp, x, t2)
        vec.store(p, t2, mem(dst))
    vec.load(p, mem(k.arg("iv")), x)
    serial_blocks(k, enter, block)
    vec.store(p, x, mem(k.arg("iv")))


@body("cbc_dec", ("chain", "chaining value (IV, last ciphertext)"), ("tmp", TMP_ROLE))
def cbc_dec(k, v):
    """p_b = D(c_b) ^ c_{b-1}: every c_b is read before any p_b is written, so
    dst == src is safe; the IV for the next group is the group's last c."""
    blocks, lanes = k.plan.blocks, k.vec.lanes

    # What block register 0 is XORed with: the chaining value, or the vector
    # of its top lane and the group's first blocks, built where it is used.
    first = (k.plan.named["chain"] if lanes == 1
             else lambda dst: previous_blocks(k, 0, dst))

    def group():
        _load_blocks(k)
        k.whiten(blocks)
        k.rounds_xor(blocks, True, [first] + [k.src(j * lanes - 1)
                                              for j in range(1, len(blocks))])
        k.vec.load(k.p, k.src(v.width - lanes), k.plan.named["chain"])
        _store_blocks(k)
    chained(k, v.width, group)


@body("cfb_enc", ("chain", "chaining value / current block"), ("tmp", TMP_ROLE))
def cfb_enc(k, v):
    """c_i = E(c_{i-1}) ^ p_i.  The chain holds c_i ^ rk0: with the last key
    rkN ^ rk0 ^ p_i, aesenclast gives it directly, and c_i = chain ^ rk0; the
    last block of a call takes rkN ^ p_i and leaves c_i itself."""
    x, tmp, k0, kf = k.plan.named["chain"], k.tmp, k.plan.keys[0], k.plan.keys[k.plan.rounds]

    def block(last):
        k.middle_rounds([x], False)
        k.vec.load(k.p, mem(k.arg("src")), tmp)
        k.vec.xor(k.p, kf, tmp)
        if last:
            k.vec.xor(k.p, k0, tmp)
        k.vec.aes(k.p, "aesenclast", tmp, x)
        if last:
            k.vec.store(k.p, x, mem(k.arg("dst")))
            return
        k.vec.xor3(k.p, k0, x, tmp)
        k.vec.store(k.p, tmp, mem(k.arg("dst")))
    whitened_chain(k, block)


@body("cfb_dec", ("chain", "chaining value (IV, last ciphertext)"), ("tmp", TMP_ROLE))
def cfb_dec(k, v):
    """p_b = E(c_{b-1}) ^ c_b: all inputs are known ciphertext, so W blocks run
    in parallel."""
    blocks, lanes, chain = k.plan.blocks, k.vec.lanes, k.plan.named["chain"]

    def group():
        for j, reg in enumerate(blocks):
            previous_blocks(k, j, reg)
        k.whiten(blocks)
        k.vec.load(k.p, k.src(v.width - lanes), chain)
        k.rounds_xor(blocks, False, [k.src(j * lanes) for j in range(len(blocks) - 1)] + [chain])
        _store_blocks(k)
    chained(k, v.width, group)


@body("ofb", ("chain", "chaining value / current block"), ("tmp", TMP_ROLE))
def ofb(k, v):
    """The keystream is the next input: with the last key rkN ^ rk0 the chain
    holds keystream ^ rk0, and dst = src ^ rk0 ^ chain; the last block of a
    call takes rkN (rk0 ^ the held key) and leaves the keystream itself."""
    x, tmp, k0, kf = k.plan.named["chain"], k.tmp, k.plan.keys[0], k.plan.keys[k.plan.rounds]

    def block(last):
        k.middle_rounds([x], False)
        if last:
            k.vec.xor3(k.p, k0, kf, tmp)
            k.vec.aes(k.p, "aesenclast", tmp, x)
        else:
            k.vec.aes(k.p, "aesenclast", kf, x)
        k.vec.load(k.p, mem(k.arg("src")), tmp)
        if not last:
            k.vec.xor(k.p, k0, tmp)
        k.vec.xor(k.p, x, tmp)
        k.vec.store(k.p, tmp, mem(k.arg("dst")))
    whitened_chain(k, block)


def ctr_stream(k, v, counter, after_group=None):
    """E(counter + b) ^ src for the blocks of each group (see ctr_counters),
    the counter read from and written back to argument `counter`;
    after_group() runs once a group's output is stored."""
    p, (lo, hi, probe) = k.p, k.scratch(3)
    k.gp_notes.append(f"{hi.name}:{lo.name} the same counter, byte-swapped (high:low); "
                      f"{probe.name} carry test")

    def group():
        ctr_counters(k, v.width)
        k.whiten(k.plan.blocks)
        k.rounds(k.plan.blocks, False)
        for j, reg in enumerate(k.plan.blocks):
            k.vec.xor_mem(p, k.src(j * k.vec.lanes), reg, k.tmp)
        _store_blocks(k)
        if after_group:
            after_group()
    k.vec.broadcast(p, mem(k.arg(counter)), k.plan.named["ctr"])
    p("mov", mem(k.arg(counter)), hi)
    p("mov", mem(k.arg(counter), 8), lo)
    p("bswap", hi)
    p("bswap", lo)
    k.loop(v.width, group)
    # One 16-byte store of the big-endian counter (exact on every path): the
    # next call's 16-byte load of the counter is forwarded from it.
    k.vec.store(p, k.plan.named["ctr"].as_kind("xmm"), mem(k.arg(counter)))


@body("ctr", ("ctr", "counter block, big-endian, in every lane"), ("tmp", TMP_ROLE))
def ctr(k, v):
    """CTR: the counter is iv."""
    ctr_stream(k, v, "iv")


# --- a kernel, a file, the emitter ---------------------------------------------

def block_role(plan_, j):
    lanes = plan_.vec.lanes
    return f"block {j}" if lanes == 1 else f"blocks {j * lanes}-{j * lanes + lanes - 1}"


def register_map(k, body_fn):
    plan_ = k.plan
    notes = [plan_.notes.get(reg) for reg in plan_.blocks]  # a block register's other use
    lines = [f"{reg.att()} {block_role(plan_, j)}" + (f"; {notes[j]}" if notes[j] else "")
             for j, reg in enumerate(plan_.blocks)]
    spilled = "" if plan_.keys_in_memory else " ".join(f"rk{r}" for r in plan_.spilled())
    for role, text in body_roles(body_fn, k.vec, k.v):
        reg = plan_.named[role]
        if role == "tmp" and spilled:
            text += f", spilled round keys {spilled}"
        lines.append(f"{reg.att()} {text}")
    for r in range(plan_.rounds + 1):
        reg = plan_.keys[r]
        if reg is not None:
            lines.append(f"{reg.att()} {plan_.notes.get(reg, f'rk{r}')}")
    return lines + [sysv_note(k.v.mode.kernel_shape)] + k.gp_notes


def merge_consts(kernels):
    """The constants of a file: each once, the longest version of a table that
    kernels of several widths ask for (they are prefixes of each other)."""
    merged = {}
    for kern in kernels:
        for c in kern["consts"]:
            have = merged.get(c.name)
            if have is not None and have.lines[:len(c.lines)] != c.lines[:len(have.lines)]:
                raise ValueError(f"{c.name}: two kernels ask for different contents")
            if have is None or len(c.lines) > len(have.lines):
                merged[c.name] = c
    return [merged[name] for name in sorted(merged)]


def vector_for(vec, v, narrow_up_to=0, half_up_to=0):
    """The strategy for kernel v: vec, or its xmm form for the serial modes, for
    widths that are not a multiple of the lanes and for widths up to
    narrow_up_to (short groups are latency-bound: wider registers only add
    broadcasts); zmm's ymm form for widths up to half_up_to that would fill
    zmm registers."""
    if not v.mode.parallel or v.width % vec.lanes or v.width <= narrow_up_to:
        return vec.narrow()
    if vec.bytes == 64 and v.width <= half_up_to:
        return vec.half()
    return vec


class SkeletonEmitter(Emitter):
    """The x86 backends on these skeletons: a Vector per backend name, the
    bodies, and the Kernel class that writes the rounds.  Widths up to
    narrow_up_to run on xmm, and a zmm backend's widths up to half_up_to[body]
    on ymm (see vector_for)."""
    directory = ("x86_64", "x86-64 assembly (GNU as), one file per backend and mode")
    source = "gen/x86/skeletons.py"

    def __init__(self, vectors, bodies=BODIES, narrow_up_to=0, kernel_class=Kernel, without=None,
                 half_up_to=None):
        self.vectors, self.bodies = vectors, bodies
        self.narrow_up_to, self.kernel_class = narrow_up_to, kernel_class
        self.half_up_to = half_up_to or {}
        self.without = without if without is not None else RUNTIME_AEAD_XTS

    def vector(self, v):
        """A body may set its own narrow_up_to (GCM's short tails)."""
        body_fn = self.bodies.get(v.mode.body_name)
        return vector_for(self.vectors[v.backend], v,
                          getattr(body_fn, "narrow_up_to", self.narrow_up_to),
                          self.half_up_to.get(v.mode.body_name, 0))

    def file_for(self, v):
        return f"x86_64/{v.backend_symbol}_{v.mode.tag}.S"

    def kernel(self, v, backend):
        """Template context for kernel v (its program, notes and register map)."""
        body_fn = self.body(backend, v.mode)
        vec = self.vector(v)
        cls = self.kernel_class
        roles = [role for role, _ in body_roles(body_fn, vec, v)]
        k = cls(v, vec, cls.plan_for(v, vec, roles))
        k.load_keys()
        body_fn(k, v)
        return_ok(k.p)  # before the clearing: the constant-time check wants vzeroupper last
        k.clear()
        k.p("ret")
        return {"symbol": v.symbol, "params": v.mode.kernel_shape.c_params,
                "notes": contract_notes(v, backend, requires(v, backend, k.p.needs()),
                                        k.rk_detail()),
                "regmap": k.register_map(body_fn), "body": k.p.lines(),
                "consts": list(k.p.consts.values()), "program": k.p}

    def emit(self, variants, render, backend):
        """{path: text}: one assembly file per (mode, direction) with every key
        size and width of the backend."""
        files = {}
        for path, group in by_file(variants, self.file_for).items():
            kernels = [self.kernel(v, backend) for v in group]
            files[path] = render("x86_kernels.S.j2", kernels=kernels,
                                 rodata=merge_consts(kernels))
        return files

    def width_problem(self, backend, width, mode):
        """The planner's answer for the mode's kernel at width (the round keys
        spill as needed, so the widest key size decides nothing)."""
        v = Variant(backend.name, mode, 256, width)
        vec, full = self.vector(v), self.vectors[backend.name]
        body_fn = self.body(backend, mode)
        roles = [role for role, _ in body_roles(body_fn, vec, v)]
        # A body's own limit (GCM: the key powers there are).
        if getattr(body_fn, "width_problem", None) and body_fn.width_problem(width):
            return body_fn.width_problem(width)
        try:
            self.kernel_class.plan_for(v, vec, roles)
        except PlanError as e:
            if vec != full and width % full.lanes:
                return (f"a width that is not a multiple of the {full.lanes} blocks of a "
                        f"{full.kind} register runs on {vec.kind}, and {e}")
            return str(e)
        return ""
