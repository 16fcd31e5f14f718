# SPDX-License-Identifier: Apache-2.0
"""ttable: x86-64 T-table AES in general-purpose registers, fully unrolled.

The design of the Linux kernel's aes-x86_64 patch (Huang Ying, 2008), with
its two optimisations as generator switches so their effect is measured
rather than assumed:

  key_loads 32 | 64  round keys read as four 32-bit words, or as two 64-bit
                     loads whose high halves are shifted down
  temps     0 | 2    byte indices of a column go through one register, or
                     through three, so the extraction of a column's four
                     bytes does not wait for the register to come free

A block is four 32-bit columns (the little-endian column convention of
aes_math.py: byte r of a column is row r).  One round takes each input
column's four bytes and XORs the table entry of byte r into output column
i - r (i + r when decrypting), tables 0-3 for the middle rounds and 4-7
(the S-box byte alone, in its row) for the last: 16 table loads and 4 key
loads per block and round, no MixColumns code.  The columns live in home
registers; each round moves them to eax-edx, whose second byte is
addressable (%ah), so bytes 0 and 1 come by movzbl from %al and %ah and
bytes 2 and 3 the same after one shift by 16 (see Kernel).

NOT constant-time: the table addresses depend on the key and the data.
"""

from dataclasses import dataclass

from emitter import RUNTIME_AEAD_XTS, Emitter, by_file, contract_notes, requires
from variants import SHAPES, Variant, VariantError

from .asm import Mem, Program, Reg, gp, mem
from .skeletons import SkeletonEmitter, group_loop, return_ok
from .vector import sysv

ARGS = sysv(SHAPES["block"])
CALLEE_SAVED = ("rbx", "rbp", "r12", "r13", "r14", "r15")
RSP = gp("rsp")


class TtableError(VariantError):
    """A width the general-purpose registers cannot hold."""


@dataclass(frozen=True)
class Options:
    key_loads: int = 64
    temps: int = 0


def options_of(backend):
    return Options(**dict(backend.params))


# --- the kernel --------------------------------------------------------------

class Kernel:
    """Registers, stack frame and instructions of one T-table kernel.

    Each block's four columns live in home registers.  A round moves them to
    eax, ebx, ecx, edx (register moves, eliminated at rename on current
    cores), the only registers whose second byte is addressable (%ah), and
    accumulates the new columns in the homes: byte 0 and 1 with movzbl from
    %al and %ah, then one shift by 16 for bytes 2 and 3, five ALU operations
    a column.  An index register must then be one of the legacy eight (no REX
    prefix beside %ah): esi, then edi and ebp with the extra temps."""

    def __init__(self, v, opts, width):
        self.v, self.opts, self.width = v, opts, width
        self.decrypt = v.mode.schedule == "dec"
        self.p = Program(v.symbol)
        self.rounds = v.rounds
        self.work = [gp(n) for n in ("rax", "rbx", "rcx", "rdx")]
        self.idx = [gp(n) for n in ("rsi", "rdi", "rbp")[:1 + opts.temps]]
        free = [gp(n) for n in ("r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
                                "rdi", "rbp") if gp(n) not in self.idx]
        need = 4 * width + 2
        if need > len(free):
            raise TtableError(f"width {width} needs {4 * width} general-purpose registers for "
                              f"the blocks' columns and 2 for the table base and the round-key "
                              f"pointer, and {len(free)} are left beside eax-edx and "
                              f"{len(self.idx)} index register{'s' if len(self.idx) > 1 else ''}")
        self.homes = [[free.pop(0) for _ in range(4)] for _ in range(width)]
        self.base = free.pop(0)
        self.slots = {}
        self.frame = 0
        self.home = {"rk": free.pop(0)}
        for name in ("src", "dst", "nblocks", "iv"):
            self.home[name] = free.pop(0) if free else None
        self.used = self.work + self.idx + [r for h in self.homes for r in h] + [self.base] + \
            [r for r in self.home.values() if r is not None]
        self.saved = [gp(n) for n in CALLEE_SAVED if gp(n) in self.used]

    def slot_off(self, name, size=8):
        """The rsp offset of a stack slot of the frame (after the prologue)."""
        if name not in self.slots:
            self.slots[name] = (self.frame, size)
            self.frame += size
        return self.slots[name][0]

    def slot(self, name, size=8):
        return mem("rsp", self.slot_off(name, size))

    def arg(self, name):
        """The register holding an argument, or the stack slot it arrived in."""
        return self.home[name] if self.home[name] is not None else self.slot("arg_" + name)

    def ptr(self, name, scratch):
        """A register holding pointer `name` (loaded into scratch from its slot)."""
        home = self.home[name]
        if home is not None:
            return home
        self.p("mov", self.slot("arg_" + name), scratch)
        return scratch

    # --- prologue / epilogue -------------------------------------------------
    def prologue(self, body):
        """Saves, moves the arguments where the plan wants them, then body; the
        frame size is known only after the body, so the prologue is built last."""
        p = self.p
        for r in self.saved:
            p("push", r)
        sub_at = len(p.items)
        # Arguments to their homes through the stack, so that no move overwrites
        # an argument not yet moved; those without a register stay there.
        for name, reg in ARGS.items():
            p("mov", reg, self.slot("arg_" + name))
        for name in ARGS:
            if self.home[name] is not None:
                p("mov", self.slot("arg_" + name), self.home[name])
        table = "aes_gen_ttable_dec" if self.decrypt else "aes_gen_ttable_enc"
        p("lea", Mem(None, 0, label=table), self.base)
        body()
        # Scrub what held data or key-dependent values: the frame, the registers.
        for off in range(0, self.frame, 8):
            p("movq", 0, mem("rsp", off))
        for r in self.used:
            if r not in self.saved:
                p("xor", r.d, r.d)
        if gp("rax") not in self.used:
            return_ok(p)
        p("add", self._frame_size(), gp("rsp"))
        for r in reversed(self.saved):
            p("pop", r)
        p("ret")
        p.items.insert(sub_at, _Raw(f"sub ${self._frame_size()}, %rsp"))

    def _frame_size(self):
        # rsp is 8 mod 16 at entry; keep it 16-aligned below the pushes.
        size = (self.frame + 15) & ~15
        if len(self.saved) % 2 == 0:
            size += 8
        return size

    # --- blocks --------------------------------------------------------------
    def load(self, cols, base, off):
        for c, r in enumerate(cols):
            self.p("mov", mem(base, off + 4 * c, show_zero=True), r.d)

    def store(self, cols, base, off):
        for c, r in enumerate(cols):
            self.p("mov", r.d, mem(base, off + 4 * c, show_zero=True))

    def xor_mem(self, cols, base, off):
        for c, r in enumerate(cols):
            self.p("xor", mem(base, off + 4 * c, show_zero=True), r.d)

    def key_words(self, rk, r, cols, xor):
        """Round key r into cols (xor: into them, else as their start value)."""
        p, off = self.p, 16 * r
        if self.opts.key_loads == 32:
            for c, col in enumerate(cols):
                p("xor" if xor else "mov", mem(rk, off + 4 * c, show_zero=True), col.d)
            return
        for half in (0, 1):
            lo, hi = cols[2 * half], cols[2 * half + 1]
            src = mem(rk, off + 8 * half, show_zero=True)
            if xor:
                t = self.idx[0]
                p("mov", src, t)
                p("xor", t.d, lo.d)
                p("shr", 32, t)
                p("xor", t.d, hi.d)
            else:
                p("mov", src, lo)
                p("mov", lo, hi)
                p("shr", 32, hi)

    def round(self, rk, r, home):
        """home = round r of home, through eax-edx."""
        p, last = self.p, r == self.rounds
        for x, h in zip(self.work, home):
            p("mov", h.d, x.d)
        self.key_words(rk, r, home, xor=False)
        step = 1 if self.decrypt else -1
        table = 4 if last else 0
        n = 0
        for i, x in enumerate(self.work):
            for row in range(4):
                if row == 2:
                    p("shr", 16, x.d)
                t = self.idx[n % len(self.idx)]
                n += 1
                low = x.as_byte() if row % 2 == 0 else Reg("gp8h", x.num)
                p("movzbl", low, t.d)
                p("xor", Mem(self.base, 1024 * (table + row), t, 4),
                  home[(i + step * row) % 4].d)

    def encrypt(self, blocks, rk):
        """Whitened blocks (home sets) through all rounds, in place."""
        for r in range(1, self.rounds + 1):
            for home in blocks:
                self.round(rk, r, home)
        return blocks

    def whiten(self, blocks, rk):
        for cols in blocks:
            self.key_words(rk, 0, cols, xor=True)


class _Raw:
    def __init__(self, text):
        self.text = text

    def line(self):
        return self.text


# --- mode bodies ---------------------------------------------------------------

def _loop(k, width, body):
    """The group loop on the arguments' homes (registers or stack slots)."""
    group_loop(k.p, width, body, k.arg("nblocks"), k.arg("src"), k.arg("dst"), suffix="q")


def ecb(k, v):
    rk = k.home["rk"]
    blocks = k.homes

    def body():
        src = k.ptr("src", k.idx[0])
        for b, cols in enumerate(blocks):
            k.load(cols, src, 16 * b)
        k.whiten(blocks, rk)
        out = k.encrypt(blocks, rk)
        dst = k.ptr("dst", k.idx[0])
        for b, cols in enumerate(out):
            k.store(cols, dst, 16 * b)
    _loop(k, k.width, body)


def cbc_enc(k, v):
    """c_i = E(p_i ^ c_{i-1}); the chain lives in iv."""
    rk, cols = k.home["rk"], k.homes[0]

    def body():
        k.load(cols, k.ptr("src", k.idx[0]), 0)
        k.xor_mem(cols, k.ptr("iv", k.idx[0]), 0)
        k.whiten([cols], rk)
        out = k.encrypt([cols], rk)[0]
        k.store(out, k.ptr("dst", k.idx[0]), 0)
        k.store(out, k.ptr("iv", k.idx[0]), 0)
    _loop(k, 1, body)


def cbc_dec(k, v):
    """p_b = D(c_b) ^ c_{b-1}.  The ciphertexts of the group are copied to the
    frame before decryption (dst may be src), the chain to iv after."""
    rk, w = k.home["rk"], k.width
    blocks = k.homes

    def body():
        src = k.ptr("src", k.idx[0])
        for b, cols in enumerate(blocks):
            k.load(cols, src, 16 * b)
            k.store(cols, RSP, k.slot_off(f"c{b}", 16))
        k.whiten(blocks, rk)
        out = k.encrypt(blocks, rk)
        iv = k.ptr("iv", k.idx[0])
        k.xor_mem(out[0], iv, 0)
        for b in range(1, w):
            k.xor_mem(out[b], RSP, k.slot_off(f"c{b - 1}"))
        dst = k.ptr("dst", k.idx[0])
        for b, cols in enumerate(out):
            k.store(cols, dst, 16 * b)
        spare = k.work
        k.load(spare, RSP, k.slot_off(f"c{w - 1}"))
        k.store(spare, k.ptr("iv", k.idx[0]), 0)
    _loop(k, w, body)


def cfb_enc(k, v):
    """c_i = E(c_{i-1}) ^ p_i; the chain lives in iv."""
    rk, cols = k.home["rk"], k.homes[0]

    def body():
        k.load(cols, k.ptr("iv", k.idx[0]), 0)
        k.whiten([cols], rk)
        out = k.encrypt([cols], rk)[0]
        k.xor_mem(out, k.ptr("src", k.idx[0]), 0)
        k.store(out, k.ptr("dst", k.idx[0]), 0)
        k.store(out, k.ptr("iv", k.idx[0]), 0)
    _loop(k, 1, body)


def cfb_dec(k, v):
    """p_b = E(c_{b-1}) ^ c_b: block 0 from iv, the others from src; the last
    ciphertext goes to iv before dst can overwrite it."""
    rk, w = k.home["rk"], k.width
    blocks = k.homes

    def body():
        k.load(blocks[0], k.ptr("iv", k.idx[0]), 0)
        src = k.ptr("src", k.idx[0])
        for b in range(1, w):
            k.load(blocks[b], src, 16 * (b - 1))
        k.whiten(blocks, rk)
        out = k.encrypt(blocks, rk)
        spare = k.work
        k.load(spare, k.ptr("src", k.idx[0]), 16 * (w - 1))
        k.store(spare, k.ptr("iv", k.idx[0]), 0)
        for b in range(w - 1):
            k.xor_mem(out[b], k.ptr("src", k.idx[0]), 16 * b)
        k.xor_mem(out[w - 1], k.ptr("iv", k.idx[0]), 0)
        dst = k.ptr("dst", k.idx[0])
        for b, cols in enumerate(out):
            k.store(cols, dst, 16 * b)
    _loop(k, w, body)


def ofb(k, v):
    """The keystream block is the next input: iv = E(iv), dst = src ^ iv."""
    rk, cols = k.home["rk"], k.homes[0]

    def body():
        k.load(cols, k.ptr("iv", k.idx[0]), 0)
        k.whiten([cols], rk)
        out = k.encrypt([cols], rk)[0]
        k.store(out, k.ptr("iv", k.idx[0]), 0)
        k.xor_mem(out, k.ptr("src", k.idx[0]), 0)
        k.store(out, k.ptr("dst", k.idx[0]), 0)
    _loop(k, 1, body)


def _ctr_increment(k, iv, lo, hi):
    """The 128-bit big-endian counter at iv plus one (lo, hi: scratch)."""
    p = k.p
    p("mov", mem(iv, 8), lo)
    p("mov", mem(iv, 0), hi)
    p("bswap", lo)
    p("bswap", hi)
    p("add", 1, lo)
    p("adc", 0, hi)
    p("bswap", lo)
    p("bswap", hi)
    p("mov", lo, mem(iv, 8))
    p("mov", hi, mem(iv, 0))


def ctr(k, v):
    """Block b of a group is E(counter + b) ^ src; the counter in iv counts on."""
    rk, w = k.home["rk"], k.width
    blocks = k.homes

    def body():
        for b, cols in enumerate(blocks):
            iv = k.ptr("iv", k.idx[0])
            k.load(cols, iv, 0)
            spare = k.work
            _ctr_increment(k, iv, spare[0], spare[1])
        k.whiten(blocks, rk)
        out = k.encrypt(blocks, rk)
        src = k.ptr("src", k.idx[0])
        for b, cols in enumerate(out):
            k.xor_mem(cols, src, 16 * b)
        dst = k.ptr("dst", k.idx[0])
        for b, cols in enumerate(out):
            k.store(cols, dst, 16 * b)
    _loop(k, w, body)


BODIES = {"ecb": ecb, "cbc_enc": cbc_enc, "cbc_dec": cbc_dec, "cfb_enc": cfb_enc,
          "cfb_dec": cfb_dec, "ofb": ofb, "ctr": ctr}


# --- the emitter -----------------------------------------------------------------

class TtableEmitter(Emitter):
    directory = SkeletonEmitter.directory
    source = "gen/x86/ttable.py"
    bodies = BODIES
    without = RUNTIME_AEAD_XTS
    file_for = SkeletonEmitter.file_for

    def kernel(self, v, backend):
        opts = options_of(backend)
        width = v.width if v.mode.parallel else 1
        k = Kernel(v, opts, width)
        body = self.body(backend, v.mode)
        k.prologue(lambda: body(k, v))
        regmap = [f"{' '.join(r.d.att() for r in s)}: block {b} columns, the round's output"
                  for b, s in enumerate(k.homes)]
        regmap.append(f"{' '.join(r.d.att() for r in k.work)}: the round's input columns "
                      "(bytes through %al/%ah), scratch outside the rounds")
        regmap.append(f"{' '.join(r.att() for r in k.idx)}: byte indices")
        regmap.append(f"{k.base.att()}: table base "
                      f"({'aes_gen_ttable_dec' if k.decrypt else 'aes_gen_ttable_enc'})")
        for name in ARGS:
            home = k.home[name]
            regmap.append(f"{name}: {home.att() if home is not None else 'stack'}")
        if k.saved:
            regmap.append("saved and restored: " + " ".join(r.att() for r in k.saved))
        detail = (f", any alignment; {opts.key_loads}-bit key loads, {1 + opts.temps} index "
                  f"register{'s' if opts.temps else ''}")
        return {"symbol": v.symbol, "params": v.mode.kernel_shape.c_params,
                "notes": contract_notes(v, backend, requires(v, backend, k.p.needs()), detail),
                "regmap": regmap,
                "body": k.p.lines(), "consts": [], "program": k.p}

    def emit(self, variants, render, backend):
        files = {}
        for path, group in by_file(variants, self.file_for).items():
            kernels = [self.kernel(v, backend) for v in group]
            files[path] = render("x86_kernels.S.j2", kernels=kernels, rodata=[],
                                 hidden=["aes_gen_ttable_dec" if group[0].mode.schedule == "dec"
                                         else "aes_gen_ttable_enc"])
        return files

    def width_problem(self, backend, width, mode):
        """Whether the general-purpose registers hold the blocks."""
        try:
            Kernel(Variant(backend.name, mode, 256, width), options_of(backend), width)
        except TtableError as e:
            return str(e)
        return ""


EMITTER = TtableEmitter()
