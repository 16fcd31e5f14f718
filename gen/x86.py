"""x86-64 emitters.  `aesni`: xmm kernels with .byte-encoded AES instructions.

Planned here as well: `vaes256`/`vaes512` (ymm/zmm, which need their own
encoder: Debian's PeachPy has no VAES forms) and `ttable`.

Kernels are GNU as (AT&T) functions with the SysV ABI and the shared kernel
prototype (generated/kernels.h):

    rdi rk, rsi iv, rdx dst, rcx src, r8 nblocks

They use only caller-saved registers (rax, rcx, rdx, rsi, rdi, r8-r11, all
xmm), touch no stack, and clear every xmm they used before returning so no
round key outlives the call.

Register plan (`_Plan`): block b of a group lives in xmm<b>; mode registers
(chaining value) follow; one temporary loads spilled round keys and unaligned
data; the rest of the 16 xmm hold round keys.  Round keys are spilled middle
first (rk1, rk2, ...): rk0 and the last keys are used where a block enters or
leaves the dependency chain.  Every AES instruction is reg-reg, so no memory
operand ever needs alignment.
"""

from dataclasses import dataclass

from peachpy.x86_64 import AESDEC, AESDECLAST, AESENC, AESENCLAST
from peachpy.x86_64 import registers as _regs

XMM_COUNT = 16
PARAMS = "const uint8_t *rk, uint8_t *iv, uint8_t *dst, const uint8_t *src, size_t nblocks"
ISA = ("sse2", "ssse3", "aesni")

_AES_OPS = {"aesenc": AESENC, "aesenclast": AESENCLAST, "aesdec": AESDEC,
            "aesdeclast": AESDECLAST}
# Registers each mode keeps beside its blocks: the chaining value.
MODE_EXTRA = {"ecb": 0, "cbc": 1, "cfb": 1, "ctr": 0, "ofb": 1}


def max_width():
    """Widest group that fits: blocks + the chaining value + one temporary."""
    return XMM_COUNT - max(MODE_EXTRA[m] for m in ("ecb", "cbc", "cfb", "ctr")) - 1


def xmm(n):
    return f"%xmm{n}"


def aes(op, src, dst):
    """An AES instruction as .byte (PeachPy's encoding), the mnemonic in the comment."""
    insn = _AES_OPS[op](getattr(_regs, f"xmm{dst}"), getattr(_regs, f"xmm{src}"))
    code = ",".join(f"0x{b:02x}" for b in insn.encode())
    return f".byte {code:<32} # {op} {xmm(src)}, {xmm(dst)}"


@dataclass
class _Plan:
    """Who holds what for one kernel."""
    width: int
    rounds: int
    chain: int | None       # chaining value (CBC/CFB/OFB), else None
    tmp: int
    extra: int | None       # CBC encryption's second temporary
    keys: dict              # round -> xmm, or None when the key is loaded per use

    def key_map(self):
        """(names of the spilled round keys, register-map lines of the held ones)"""
        spilled = [f"rk{r}" for r in range(self.rounds + 1) if self.keys[r] is None]
        lines = [f"{xmm(self.keys[r])} rk{r}" for r in range(self.rounds + 1)
                 if self.keys[r] is not None]
        return spilled, lines


def plan(width, rounds, extra, temps=1):
    blocks = list(range(width))
    nxt = width
    chain = None
    if extra:
        chain, nxt = nxt, nxt + 1
    tmp, nxt = nxt, nxt + 1
    second = None
    if temps == 2:
        second, nxt = nxt, nxt + 1
    free = list(range(nxt, XMM_COUNT))
    # Keep rk0 and the last rounds; spill rk1, rk2, ... first.
    priority = [0] + list(range(rounds, 0, -1))
    keys = {r: None for r in range(rounds + 1)}
    for r, reg in zip(priority, free):
        keys[r] = reg
    assert len(blocks) + (extra or 0) + temps <= XMM_COUNT
    return _Plan(width, rounds, chain, tmp, second, keys)


class _Kernel:
    """Collects the instructions of one kernel."""

    def __init__(self, symbol, p):
        self.symbol = symbol
        self.p = p
        self.lines = []

    def label(self, name):
        return f".L{self.symbol}_{name}"

    def emit(self, text):
        self.lines.append(text)

    def key(self, r):
        """The register holding round key r, loading it into tmp if spilled."""
        reg = self.p.keys[r]
        if reg is None:
            self.emit(f"movdqu {16 * r}(%rdi), {xmm(self.p.tmp)}")
            return self.p.tmp
        return reg

    def load_keys(self):
        for r, reg in sorted(self.p.keys.items()):
            if reg is not None:
                self.emit(f"movdqu {16 * r}(%rdi), {xmm(reg)}")

    def whiten(self, blocks):
        k = self.key(0)
        for b in blocks:
            self.emit(f"pxor {xmm(k)}, {xmm(b)}")

    def middle_rounds(self, blocks, decrypt):
        op = "aesdec" if decrypt else "aesenc"
        for r in range(1, self.p.rounds):
            k = self.key(r)
            for b in blocks:
                self.emit(aes(op, k, b))

    def rounds(self, blocks, decrypt):
        self.middle_rounds(blocks, decrypt)
        k = self.key(self.p.rounds)
        for b in blocks:
            self.emit(aes("aesdeclast" if decrypt else "aesenclast", k, b))

    def clear_xmm(self):
        used = set(range(self.p.width)) | {self.p.tmp} | \
            {r for r in self.p.keys.values() if r is not None}
        used |= {r for r in (self.p.chain, self.p.extra) if r is not None}
        for n in sorted(used):
            self.emit(f"pxor {xmm(n)}, {xmm(n)}")


def _group_loop(k, width, body):
    """while (nblocks >= width) { body; src += 16W; dst += 16W; nblocks -= W; }"""
    k.emit(f"cmp ${width}, %r8")
    k.emit(f"jb {k.label('done')}")
    k.emit(".p2align 4")
    k.lines.append(f"{k.label('loop')}:")
    body()
    k.emit(f"add ${16 * width}, %rcx")
    k.emit(f"add ${16 * width}, %rdx")
    k.emit(f"sub ${width}, %r8")
    k.emit(f"cmp ${width}, %r8")
    k.emit(f"jae {k.label('loop')}")
    k.lines.append(f"{k.label('done')}:")


def _chained(k, width, body):
    """The chaining value comes from iv, lives in its register across the loop,
    and goes back to iv at the end."""
    k.emit(f"movdqu (%rsi), {xmm(k.p.chain)}")
    _group_loop(k, width, body)
    k.emit(f"movdqu {xmm(k.p.chain)}, (%rsi)")


def _xor_src(k, pairs):
    """block ^= src block i, for each (block, i), through the temporary (legacy
    SSE pxor would need an aligned memory operand)."""
    for b, i in pairs:
        k.emit(f"movdqu {16 * i}(%rcx), {xmm(k.p.tmp)}")
        k.emit(f"pxor {xmm(k.p.tmp)}, {xmm(b)}")


def _load_src(k, blocks, first=0):
    for b in blocks:
        k.emit(f"movdqu {16 * (b + first)}(%rcx), {xmm(b)}")


def _store_dst(k, blocks):
    for b in blocks:
        k.emit(f"movdqu {xmm(b)}, {16 * b}(%rdx)")


def ecb(k, v):
    blocks = list(range(v.width))
    decrypt = v.mode.direction == "dec"

    def body():
        _load_src(k, blocks)
        k.whiten(blocks)
        k.rounds(blocks, decrypt)
        _store_dst(k, blocks)
    _group_loop(k, v.width, body)


# Serial modes: the chain from one block to the next is only the AES rounds.
# aesenclast XORs its key in last, so XORing the next block's whitening (and
# data) into the last round key hands the next block its whitened input with
# no pxor on the chain; the output block is recovered off the chain.


def cbc_enc(k, v):
    """c_i = E(p_i ^ c_{i-1}).  The chain holds x_i = p_i ^ c_{i-1} ^ rk0.  With
    t = p_{i+1} ^ rk0, aesenclast(., rkN ^ t) = c_i ^ t = x_{i+1}, and c_i = x_{i+1} ^ t.
    The last block of a call uses rkN alone."""
    x, tmp, t2 = k.p.chain, k.p.tmp, k.p.extra
    k0, kn = k.p.keys[0], k.p.keys[k.p.rounds]
    k.emit(f"movdqu (%rsi), {xmm(x)}")
    k.emit("test %r8, %r8")
    k.emit(f"jz {k.label('done')}")
    k.emit(f"movdqu (%rcx), {xmm(tmp)}")
    k.emit(f"pxor {xmm(k0)}, {xmm(tmp)}")
    k.emit(f"pxor {xmm(tmp)}, {xmm(x)}")
    k.emit("sub $1, %r8")
    k.emit(f"jz {k.label('last')}")
    k.emit(".p2align 4")
    k.lines.append(f"{k.label('loop')}:")
    k.middle_rounds([x], False)
    k.emit(f"movdqu 16(%rcx), {xmm(tmp)}")
    k.emit(f"pxor {xmm(k0)}, {xmm(tmp)}")
    k.emit(f"movdqa {xmm(tmp)}, {xmm(t2)}")
    k.emit(f"pxor {xmm(kn)}, {xmm(t2)}")
    k.emit(aes("aesenclast", t2, x))
    k.emit(f"movdqa {xmm(x)}, {xmm(t2)}")
    k.emit(f"pxor {xmm(tmp)}, {xmm(t2)}")
    k.emit(f"movdqu {xmm(t2)}, (%rdx)")
    k.emit("add $16, %rcx")
    k.emit("add $16, %rdx")
    k.emit("sub $1, %r8")
    k.emit(f"jnz {k.label('loop')}")
    k.lines.append(f"{k.label('last')}:")
    k.rounds([x], False)
    k.emit(f"movdqu {xmm(x)}, (%rdx)")
    k.lines.append(f"{k.label('done')}:")
    k.emit(f"movdqu {xmm(x)}, (%rsi)")


def _whitened_chain(k, body):
    """CFB encryption and OFB: rkN ^= rk0, so aesenclast yields the next block's
    input already whitened; the chain register holds it between blocks and
    across the loop, and is un-whitened into iv at the end."""
    x, k0 = k.p.chain, k.p.keys[0]
    k.emit(f"pxor {xmm(k0)}, {xmm(k.p.keys[k.p.rounds])}")
    k.emit(f"movdqu (%rsi), {xmm(x)}")
    k.emit(f"pxor {xmm(k0)}, {xmm(x)}")
    _group_loop(k, 1, body)
    k.emit(f"pxor {xmm(k0)}, {xmm(x)}")
    k.emit(f"movdqu {xmm(x)}, (%rsi)")


def cbc_dec(k, v):
    """p_b = D(c_b) ^ c_{b-1}: every c_b is read before any p_b is written, so
    dst == src is safe; the IV for the next group is the group's last c."""
    blocks, iv = list(range(v.width)), k.p.chain

    def body():
        _load_src(k, blocks)
        k.whiten(blocks)
        k.rounds(blocks, True)
        _xor_src(k, [(b, b - 1) for b in reversed(blocks[1:])])
        k.emit(f"pxor {xmm(iv)}, %xmm0")
        k.emit(f"movdqu {16 * (v.width - 1)}(%rcx), {xmm(iv)}")
        _store_dst(k, blocks)
    _chained(k, v.width, body)


def cfb_enc(k, v):
    """c_i = E(c_{i-1}) ^ p_i.  The chain holds c_i ^ rk0: with the last key
    rkN ^ rk0 ^ p_i, aesenclast gives it directly, and c_i = chain ^ rk0."""
    x, tmp, k0, kf = k.p.chain, k.p.tmp, k.p.keys[0], k.p.keys[k.p.rounds]

    def body():
        k.middle_rounds([x], False)
        k.emit(f"movdqu (%rcx), {xmm(tmp)}")
        k.emit(f"pxor {xmm(kf)}, {xmm(tmp)}")
        k.emit(aes("aesenclast", tmp, x))
        k.emit(f"movdqa {xmm(x)}, {xmm(tmp)}")
        k.emit(f"pxor {xmm(k0)}, {xmm(tmp)}")
        k.emit(f"movdqu {xmm(tmp)}, (%rdx)")
    _whitened_chain(k, body)


def cfb_dec(k, v):
    """p_b = E(c_{b-1}) ^ c_b: all inputs are known ciphertext, so W blocks run
    in parallel."""
    blocks, iv = list(range(v.width)), k.p.chain

    def body():
        k.emit(f"movdqa {xmm(iv)}, %xmm0")
        for b in blocks[1:]:
            k.emit(f"movdqu {16 * (b - 1)}(%rcx), {xmm(b)}")
        k.whiten(blocks)
        k.rounds(blocks, False)
        k.emit(f"movdqu {16 * (v.width - 1)}(%rcx), {xmm(iv)}")
        _xor_src(k, [(b, b) for b in blocks[:-1]])
        k.emit(f"pxor {xmm(iv)}, {xmm(v.width - 1)}")
        _store_dst(k, blocks)
    _chained(k, v.width, body)


def ofb_enc(k, v):
    """The keystream is the next input: with the last key rkN ^ rk0 the chain
    holds keystream ^ rk0, and dst = src ^ rk0 ^ chain."""
    x, tmp, k0, kf = k.p.chain, k.p.tmp, k.p.keys[0], k.p.keys[k.p.rounds]

    def body():
        k.middle_rounds([x], False)
        k.emit(aes("aesenclast", kf, x))
        k.emit(f"movdqu (%rcx), {xmm(tmp)}")
        k.emit(f"pxor {xmm(k0)}, {xmm(tmp)}")
        k.emit(f"pxor {xmm(x)}, {xmm(tmp)}")
        k.emit(f"movdqu {xmm(tmp)}, (%rdx)")
    _whitened_chain(k, body)


# Constants of the CTR file, read by paddq/pshufb as aligned memory operands.
CTR_INC = ".Laesni_ctr_inc"        # b in the low lane, for block b of a group
CTR_BSWAP = ".Laesni_ctr_bswap"    # reverses 16 bytes: little-endian lanes <-> BE block


def ctr_enc(k, v):
    """The counter lives byte-swapped in r10:r9 (high:low 64 bits), so the
    128-bit carry is add/adc.  Block b of a group is the counter plus b: with
    the low half + W - 1 not wrapping (all but once per 2^64 blocks) that is a
    paddq on the low lane; otherwise each block is built from r10:r9 with add/adc.
    pshufb then turns the little-endian lanes into the big-endian block."""
    blocks, tmp, w = list(range(v.width)), k.p.tmp, v.width

    def build_from_gprs(b):
        k.emit(f"movq %r9, {xmm(b)}")
        k.emit(f"movq %r10, {xmm(tmp)}")
        k.emit(f"punpcklqdq {xmm(tmp)}, {xmm(b)}")

    def body():
        if w > 1:
            k.emit("mov %r9, %r11")
            k.emit(f"add ${w - 1}, %r11")
            k.emit(f"jc {k.label('carry')}")
        build_from_gprs(0)
        for b in blocks[1:]:
            k.emit(f"movdqa %xmm0, {xmm(b)}")
            k.emit(f"paddq {CTR_INC}+{16 * b}(%rip), {xmm(b)}")
        k.emit(f"add ${w}, %r9")
        k.emit("adc $0, %r10")
        if w > 1:
            k.emit(f"jmp {k.label('counters')}")
            k.lines.append(f"{k.label('carry')}:")
            for b in blocks:
                build_from_gprs(b)
                k.emit("add $1, %r9")
                k.emit("adc $0, %r10")
            k.lines.append(f"{k.label('counters')}:")
        for b in blocks:
            k.emit(f"pshufb {CTR_BSWAP}(%rip), {xmm(b)}")
        k.whiten(blocks)
        k.rounds(blocks, False)
        _xor_src(k, [(b, b) for b in blocks])
        _store_dst(k, blocks)
    k.emit("mov (%rsi), %r10")
    k.emit("mov 8(%rsi), %r9")
    k.emit("bswap %r10")
    k.emit("bswap %r9")
    _group_loop(k, w, body)
    k.emit("bswap %r10")
    k.emit("bswap %r9")
    k.emit("mov %r10, (%rsi)")
    k.emit("mov %r9, 8(%rsi)")


BODIES = {"ecb_enc": ecb, "ecb_dec": ecb, "cbc_enc": cbc_enc, "cbc_dec": cbc_dec,
          "cfb_enc": cfb_enc, "cfb_dec": cfb_dec, "ofb_enc": ofb_enc, "ctr_enc": ctr_enc}

def file_for(v):
    return f"x86_64/aesni_{v.mode.tag}.S"


def kernel(v):
    # Serial modes hold their single block in the chaining register.
    serial = not v.mode.parallel
    p = plan(0 if serial else v.width, v.rounds, MODE_EXTRA[v.mode.name],
             2 if v.mode.tag == "cbc_enc" else 1)
    # The serial modes use rk0 and the last key directly; 13 or more free
    # registers always hold them.
    assert not serial or (p.keys[0] is not None and p.keys[v.rounds] is not None)
    k = _Kernel(v.symbol, p)
    k.load_keys()
    BODIES[v.mode.tag](k, v)
    k.clear_xmm()
    k.emit("ret")
    spilled, key_lines = p.key_map()
    regmap = [f"{xmm(b)} block {b}" for b in range(p.width)]
    if p.chain is not None:
        regmap.append(f"{xmm(p.chain)} " + ("chaining value / current block" if serial
                                            else "chaining value (IV, last ciphertext)"))
    regmap.append(f"{xmm(p.tmp)} temporary: data loads"
                  + (f", spilled round keys {' '.join(spilled)}" if spilled else ""))
    if p.extra is not None:
        regmap.append(f"{xmm(p.extra)} temporary: last round key ^ next input, output block")
    if v.mode.tag in ("cfb_enc", "ofb_enc"):
        key_lines = [line.replace(f"rk{v.rounds}", f"rk{v.rounds} ^ rk0") for line in key_lines]
    regmap += key_lines
    regmap += ["rdi rk, rsi iv, rdx dst, rcx src, r8 nblocks (SysV)"]
    if v.mode.name == "ctr":
        regmap.append("r10:r9 counter, byte-swapped (high:low); r11 carry test")
    notes = [
        f"{v.mode.description}, AES-{v.key_bits} ({v.rounds} rounds, fully unrolled), "
        f"{v.width} block{'s' if v.width > 1 else ''} per iteration.",
        f"rk: {'equivalent-inverse decryption' if v.mode.key_schedule == 'dec' else 'encryption'}"
        f" round keys, {v.rounds + 1} x 16 bytes, any alignment"
        + ("" if not spilled else f"; {len(spilled)} reloaded per group") + ".",
        ("iv: unused." if v.mode.name == "ecb" else
         "iv: the 128-bit big-endian counter, advanced by nblocks." if v.mode.name == "ctr"
         else "iv: the chaining value, updated for the next call."),
        f"nblocks: a multiple of {v.width}." if v.width > 1 else "nblocks: any count.",
        "Requires: " + ", ".join(s.upper() for s in ISA) + ".",
    ]
    return {"symbol": v.symbol, "params": PARAMS, "notes": notes, "regmap": regmap,
            "body": k.lines}


def emit(variants, render):
    """{path: text}: one assembly file per (mode, direction) with every key size and width."""
    by_file = {}
    for v in variants:
        by_file.setdefault(file_for(v), []).append(v)
    files = {}
    for path, group in by_file.items():
        rodata = []
        if group[0].mode.name == "ctr":
            widest = max(v.width for v in group)
            rodata = [(CTR_BSWAP[1:], "reverses the 16 bytes: LE lanes <-> BE block",
                       [f".quad 0x{0x08090a0b0c0d0e0f:016x}, 0x{0x0001020304050607:016x}"]),
                      (CTR_INC[1:], "b in the low lane, for block b of a group",
                       [f".quad {b}, 0" for b in range(widest)])]
        files[path] = render("x86_kernels.S.j2", kernels=[kernel(v) for v in group],
                             rodata=rodata)
    return files
