# SPDX-License-Identifier: Apache-2.0
"""The vector-length strategy: how a kernel body's vector operations are
spelt for 16-, 32- or 64-byte vectors and for the legacy SSE, VEX or EVEX
encoding (the Linux VAES files' `VL`, as an object).

Bodies say `vec.xor(p, src, dst)`; the strategy picks pxor, vpxor or vpxord,
and whether a memory operand may be used directly (VEX and EVEX take
unaligned memory operands, legacy SSE needs 16-byte alignment, so SSE code
loads through a temporary).  A block's 16 bytes are one lane of a vector:
`lanes` blocks per register.
"""

from dataclasses import dataclass

from .asm import Reg, gp

KINDS = {16: "xmm", 32: "ymm", 64: "zmm"}


@dataclass(frozen=True)
class Vector:
    bytes: int   # 16, 32, 64
    regs: int    # 16 or 32 architectural vector registers
    enc: str     # sse, vex, evex

    def __post_init__(self):
        assert self.bytes in KINDS and self.regs in (16, 32)
        assert self.enc in ("sse", "vex", "evex")
        assert self.enc == "evex" or self.regs == 16, "only EVEX reaches registers 16-31"
        assert self.enc != "sse" or self.bytes == 16, "legacy SSE is xmm only"
        assert self.enc == "evex" or self.bytes < 64, "zmm needs EVEX"

    @property
    def kind(self):
        return KINDS[self.bytes]

    @property
    def lanes(self):
        return self.bytes // 16

    def reg(self, n):
        return Reg(self.kind, n)

    def narrow(self):
        """The xmm strategy of the same encoding, for the serial (one-block) modes."""
        return Vector(16, self.regs, self.enc)

    def half(self):
        """The ymm strategy of a zmm one (EVEX, all 32 registers)."""
        assert self.bytes == 64
        return Vector(32, self.regs, self.enc)

    def _evex(self, *regs):
        """EVEX mnemonics only where VEX cannot say it (zmm, registers 16-31),
        and for every ymm of an EVEX strategy (a zmm backend's half width:
        VEX's ymm integer forms need AVX2, AVX-512VL's do not)."""
        return self.enc == "evex" and (self.bytes == 32 or any(
            isinstance(r, Reg) and (r.kind == "zmm" or r.num >= 16) for r in regs))

    # --- moves -------------------------------------------------------------
    def load(self, p, src, dst):
        p("movdqu" if self.enc == "sse" else "vmovdqu64" if self._evex(dst) else "vmovdqu",
          src, dst)

    def store(self, p, src, dst):
        p("movdqu" if self.enc == "sse" else "vmovdqu64" if self._evex(src) else "vmovdqu",
          src, dst)

    def load_masked(self, p, src, dst, mask):
        """dst = the bytes of memory src that mask selects, zeros elsewhere
        (EVEX: a masked-off byte is not read, so it may lie past a buffer)."""
        assert self.enc == "evex"
        p("vmovdqu8", src, dst, mask=mask, zero=True)

    def store_masked(self, p, src, dst, mask):
        """The bytes of src that mask selects to memory dst; the others stay."""
        assert self.enc == "evex"
        p("vmovdqu8", src, dst, mask=mask)

    def keep_masked(self, p, reg, mask):
        """reg's bytes that mask deselects = 0."""
        assert self.enc == "evex"
        p("vmovdqu8", reg, reg, mask=mask, zero=True)

    def copy(self, p, src, dst):
        p("movdqa" if self.enc == "sse" else "vmovdqa64" if self._evex(src, dst) else "vmovdqa",
          src, dst)

    def broadcast(self, p, src, dst):
        """A 16-byte memory value into every lane of dst."""
        if self.bytes == 16:
            self.load(p, src, dst)
        elif self.bytes == 32 and not self._evex(dst):
            p("vbroadcasti128", src, dst)
        else:
            p("vbroadcasti32x4", src, dst)

    def extract_top(self, p, src, dst):
        """The top lane of src (a vector register) to memory."""
        if self.lanes == 1:
            self.store(p, src, dst)
        elif self.bytes == 32 and not self._evex(src):
            p("vextracti128", 1, src, dst)
        else:
            p("vextracti32x4", self.lanes - 1, src, dst)

    def fold_lanes(self, p, reg, tmp):
        """The xmm view of reg = the XOR of reg's lanes (tmp: scratch).  By
        halves: an xmm write clears the lanes above it, so the top half is
        folded down at full width first (zmm: lanes 2, 3 onto 0, 1)."""
        if self.lanes == 4:
            p("vshufi64x2", 0x4E, reg, reg, tmp)
            self.xor(p, tmp, reg)
        if self.lanes >= 2:
            x, t = reg.as_kind("xmm"), tmp.as_kind("xmm")
            if self.bytes == 32 and not self._evex(reg, tmp):
                p("vextracti128", 1, reg, t)
            else:
                p("vextracti32x4", 1, reg, t)
            self.narrow().xor(p, t, x)

    # --- arithmetic --------------------------------------------------------
    def xor(self, p, src, dst):
        """dst ^= src (src a register)."""
        if self.enc == "sse":
            p("pxor", src, dst)
        else:
            p("vpxord" if self._evex(src, dst) else "vpxor", src, dst, dst)

    def xor3(self, p, a, b, dst):
        """dst = a ^ b (a may be memory, any alignment: SSE then loads it into
        dst, which must not be b)."""
        if self.enc == "sse":
            if not isinstance(a, Reg):
                assert dst != b
                self.load(p, a, dst)
                a = b
            elif dst != b:
                self.copy(p, b, dst)
            p("pxor", a, dst)
        else:
            p("vpxord" if self._evex(a, b, dst) else "vpxor", a, b, dst)

    def xor_mem(self, p, src, dst, tmp):
        """dst ^= memory at src, any alignment (SSE loads it into tmp first)."""
        if self.enc == "sse":
            self.load(p, src, tmp)
            p("pxor", tmp, dst)
        else:
            p("vpxord" if self._evex(dst) else "vpxor", src, dst, dst)

    def add64(self, p, src, base, dst):
        """dst = base + src, as 64-bit lanes (src a register, or memory:
        aligned for SSE)."""
        if self.enc == "sse":
            if dst != base:
                self.copy(p, base, dst)
            p("paddq", src, dst)
        else:
            p("vpaddq", src, base, dst)

    def shuffle_mem(self, p, src, dst):
        """pshufb dst by the byte pattern at src (aligned for SSE)."""
        if self.enc == "sse":
            p("pshufb", src, dst)
        else:
            p("vpshufb", src, dst, dst)

    def shuffle(self, p, table, idx, dst):
        """dst = pshufb(table, idx): table's bytes picked by idx per 16-byte lane.
        SSE copies table into dst first (table may be memory, aligned; idx
        must not be dst); VEX/EVEX need table in a register."""
        if self.enc == "sse":
            if table != dst:
                assert idx != dst, "pshufb: the index would be overwritten"
                self.copy(p, table, dst)
            p("pshufb", idx, dst)
        else:
            assert isinstance(table, Reg), "vpshufb takes its table from a register"
            p("vpshufb", idx, table, dst)

    def and_(self, p, src, dst):
        """dst &= src (src a register, or aligned memory for SSE)."""
        if self.enc == "sse":
            p("pand", src, dst)
        else:
            p("vpandq" if self._evex(src, dst) else "vpand", src, dst, dst)

    def andn(self, p, mask, src, dst):
        """dst = ~mask & src (SSE: dst is copied from mask first; dst != src)."""
        if self.enc == "sse":
            assert dst != src
            self.copy(p, mask, dst)
            p("pandn", src, dst)
        else:
            p("vpandnq" if self._evex(mask, src, dst) else "vpandn", src, mask, dst)

    def add32(self, p, src, base, dst):
        """dst = base + src, as 32-bit lanes (src a register, or memory:
        aligned for SSE)."""
        if self.enc == "sse":
            if dst != base:
                self.copy(p, base, dst)
            p("paddd", src, dst)
        else:
            p("vpaddd", src, base, dst)

    def clmul(self, p, imm, src2, src1, dst):
        """dst = the carry-less product, per 16-byte lane, of src1's qword
        imm & 1 and src2's qword imm >> 4 & 1 (src2 a register, or memory but
        for SSE; SSE: dst may be src1 or not src2)."""
        if self.enc == "sse":  # src2 a register or aligned memory (a constant)
            assert dst != src2
            if dst != src1:
                self.copy(p, src1, dst)
            p("pclmulqdq", imm, src2, dst)
        else:
            p("vpclmulqdq", imm, src2, src1, dst)

    def shuffle_dwords(self, p, imm, src, dst, keep=None):
        """pshufd: dword i of each 16-byte lane of dst = dword (imm >> 2i) & 3 of
        src's; keep (EVEX): an opmask of the dwords written, the others zeroed."""
        if keep is not None:
            assert self.enc == "evex"
            p("vpshufd", imm, src, dst, mask=keep, zero=True)
            return
        p("pshufd" if self.enc == "sse" else "vpshufd", imm, src, dst)

    def swap_halves(self, p, src, dst):
        """Each 16-byte lane's two qwords exchanged."""
        self.shuffle_dwords(p, 0x4E, src, dst)

    def xor_into(self, p, a, b, dst):
        """dst ^= a ^ b (one ternary logic operation where EVEX has it)."""
        if self.enc == "evex" and self._evex(a, b, dst):
            p("vpternlogq", 0x96, a, b, dst)
        else:
            self.xor(p, a, dst)
            self.xor(p, b, dst)

    def sar32(self, p, n, src, dst):
        """dst = each 32-bit lane of src shifted right by n bits, arithmetically."""
        if self.enc == "sse":
            if dst != src:
                self.copy(p, src, dst)
            p("psrad", n, dst)
        else:
            p("vpsrad", n, src, dst)

    def shr32(self, p, n, dst):
        """Each 32-bit lane of dst shifted right by n bits, in place."""
        if self.enc == "sse":
            p("psrld", n, dst)
        else:
            p("vpsrld", n, dst, dst)

    def shift_qwords(self, p, op, n, src, dst):
        """dst = each 64-bit lane of src shifted (op: "sll" or "srl") by n bits."""
        if self.enc == "sse":
            if dst != src:
                self.copy(p, src, dst)
            p(f"p{op}q", n, dst)
        else:
            p(f"vp{op}q", n, src, dst)

    def shift_qwords_by(self, p, op, counts, src, dst):
        """dst = each 64-bit lane of src shifted (op: "sll" or "srl") by the
        count in the same lane of counts (a register or memory; 64 or more
        gives 0): AVX2 and AVX-512 only."""
        assert self.enc != "sse"
        p(f"vp{op}vq", counts, src, dst)

    def shift_bytes(self, p, op, n, src, dst):
        """dst = each 16-byte lane of src shifted (op: "sll" up, "srl" down) by n bytes."""
        if self.enc == "sse":
            if dst != src:
                self.copy(p, src, dst)
            p(f"p{op}dq", n, dst)
        else:
            p(f"vp{op}dq", n, src, dst)

    def aes(self, p, op, key, dst):
        """One AES round (op: aesenc, aesenclast, aesdec, aesdeclast) on dst."""
        if self.enc == "sse":
            p(op, key, dst)
        else:
            p("v" + op, key, dst, dst)

    def zero(self, p, reg):
        """reg = 0 in full (a VEX/EVEX write of the xmm view clears the rest)."""
        x = reg.as_kind("xmm")
        if self.enc == "sse":
            p("pxor", x, x)
        else:
            p("vpxord" if x.num >= 16 else "vpxor", x, x, x)

    # --- lanes -------------------------------------------------------------
    def from_gp(self, p, src, dst):
        """dst's xmm view = the 64-bit GP register src, zero above."""
        p("movq" if self.enc == "sse" else "vmovq", src, dst.as_kind("xmm"))

    def from_gp_pair(self, p, lo, hi, dst, tmp):
        """dst's xmm view = hi:lo (two 64-bit GP registers)."""
        x = dst.as_kind("xmm")
        if self.enc == "sse":
            p("movq", lo, x)
            p("movq", hi, tmp.as_kind("xmm"))
            p("punpcklqdq", tmp.as_kind("xmm"), x)
        else:
            p("vmovq", lo, x)
            p("vpinsrq", 1, hi, x, x)

    def insert_lane(self, p, src, lane, dst):
        """Lane `lane` of dst = the xmm src."""
        if self.bytes == 32 and not self._evex(dst, src):
            p("vinserti128", lane, src, dst, dst)
        else:
            p("vinserti32x4", lane, src, dst, dst)

    def splat_lane0(self, p, reg):
        """Every lane of reg = its lane 0."""
        if self.lanes == 1:
            return
        if self.bytes == 32 and not self._evex(reg):
            p("vinserti128", 1, reg.as_kind("xmm"), reg, reg)
        else:
            p("vshufi64x2", 0, reg, reg, reg)

    def shift_in_top(self, p, prev, cur, dst):
        """dst = the top lane of the register prev, then the lanes of cur (a
        register or memory) but its top one: the previous-block vector of
        chained decryption.  dst may be cur but not prev."""
        if self.bytes == 32 and not self._evex(prev, dst):
            # vperm2i128: low half from prev's high half (1), high from cur's low (2)
            p("vperm2i128", 0x21, cur, prev, dst)
            return
        if not isinstance(cur, Reg):
            self.load(p, cur, dst)
            cur = dst
        # valignq: (cur : prev) shifted right by all but the top lane's qwords
        p("valignq", 2 * (self.lanes - 1), prev, cur, dst)

    def finish(self, p):
        """Leave no dirty upper state for SSE code that runs next (even when
        called with it dirty: the ABI test calls every kernel so) where the
        kernel wrote any: one on xmm alone leaves the upper halves as it found
        them, without vzeroupper (several uops, which a one-block call pays:
        about a tenth of an independent 16-byte ECB call on Golden Cove)."""
        if self.enc != "sse" and p.dirties_upper():
            p("vzeroupper")


# The SysV integer argument registers, in order.
ARG_REGS = tuple(gp(name) for name in ("rdi", "rsi", "rdx", "rcx", "r8", "r9"))


def sysv(shape):
    """{parameter name: the register it arrives in} for a kernel shape."""
    return dict(zip(shape.names, ARG_REGS))


def sysv_note(shape):
    """The register map's line for the arguments."""
    return ", ".join(f"{reg.name} {name}" for name, reg in sysv(shape).items()) + " (SysV)"
