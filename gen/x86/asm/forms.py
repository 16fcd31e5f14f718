# SPDX-License-Identifier: Apache-2.0
"""The instruction forms the encoder knows: legacy SSE, VEX and EVEX.

A form is one encoding of one mnemonic: prefix (pp), opcode map, opcode, W,
an optional ModRM.reg opcode extension, the vector sizes it takes and its
operand slots in Intel order (destination first).  Slots say where an operand
goes and what it may be:

    r:<kinds>   ModRM.reg          v:<kinds>   VEX/EVEX vvvv
    m:<kinds>   ModRM.rm           i           an 8-bit immediate
    kinds: V (the form's vector size), x (xmm whatever the size), g (64-bit GP),
           k (opmask), mem (memory)

`n` is the EVEX disp8 scale for a memory operand: 0 means the full vector
(Intel's full-vector tuple); tuple forms give their element size.  Forms are
listed VEX before EVEX: like GNU as, the encoder takes the first that fits, so
an instruction that VEX can express gets the shorter VEX encoding.

Each mnemonic is here because a body emits it (a test lists what the
generator emits and requires every form to be among it); gen/tests/test_encoder.py
assembles every form with GNU as.
"""

from dataclasses import dataclass

PP = {"": 0, "66": 1, "F3": 2, "F2": 3}
MAP = {"0F": 1, "0F38": 2, "0F3A": 3}
X, XY, XYZ, YZ, Y, Z = ("xmm",), ("xmm", "ymm"), ("xmm", "ymm", "zmm"), ("ymm", "zmm"), \
    ("ymm",), ("zmm",)


@dataclass(frozen=True)
class Form:
    mnemonic: str
    enc: str          # sse, vex, evex
    pp: int
    map: int
    opcode: int
    slots: tuple
    sizes: tuple = X
    w: int = 0
    ext: int | None = None
    n: int = 0        # EVEX disp8 scale; 0: the vector length
    store: bool = False  # the store direction of a load/store pair (see encoder)

    @property
    def maskable(self):
        """EVEX opmasks apply, except to the AES instructions (VAES has none)
        and to moves between GP and vector registers."""
        return self.enc == "evex" and "aes" not in self.mnemonic and \
            "clmul" not in self.mnemonic and "m:g" not in self.slots

    def needs(self, size):
        """The CPUID features this form needs at vector size `size` (Intel SDM,
        each instruction's "CPUID Feature Flag" column): legacy AES-NI needs
        AES, VEX.128 AES needs AES and AVX, VEX.256 and EVEX AES need VAES; VEX
        integer ops on ymm need AVX2 (moves only AVX; the variable shifts at
        any size); EVEX needs AVX512F,
        AVX512VL below zmm and AVX512BW for byte shuffles."""
        aes, clmul = "aes" in self.mnemonic, "clmul" in self.mnemonic
        if self.mnemonic == "kmovq":  # VEX-encoded, but an AVX512BW instruction
            return {"avx512bw"}
        if self.enc == "sse":
            return {"aesni"} if aes else {"pclmul"} if clmul else \
                {"ssse3"} if self.mnemonic == "pshufb" else {"sse2"}
        if self.enc == "vex":
            if aes:
                return {"avx", "aesni"} if size == "xmm" else {"avx", "vaes"}
            if clmul:
                return {"avx", "pclmul"} if size == "xmm" else {"avx", "vpclmulqdq"}
            moves = {"vmovdqa", "vmovdqu", "vmovq", "vpinsrq"}
            if self.mnemonic in ("vpsllvq", "vpsrlvq"):  # AVX2 at any size
                return {"avx2"}
            return {"avx"} if size == "xmm" or self.mnemonic in moves else {"avx2"}
        out = {"avx512f"} | ({"avx512vl"} if size != "zmm" else set())
        if aes:
            out.add("vaes")
        if clmul:
            out.add("vpclmulqdq")
        if self.mnemonic in ("vpshufb", "vmovdqu8"):
            out.add("avx512bw")
        return out


FORMS = []


def _add(enc, mnemonics, pp, mp, opcode, slots, sizes=X, w=0, ext=None, n=0, store=False):
    for name in mnemonics.split():
        FORMS.append(Form(name, enc, PP[pp], MAP[mp], opcode, tuple(slots.split()), sizes, w,
                          ext, n, store))


RVM = "r:V v:V m:V|mem"
RM = "r:V m:V|mem"

# --- legacy SSE: two-operand, destination in ModRM.reg --------------------
for name, mp, op in (("aesenc", "0F38", 0xDC), ("aesenclast", "0F38", 0xDD),
                     ("aesdec", "0F38", 0xDE), ("aesdeclast", "0F38", 0xDF),
                     ("pshufb", "0F38", 0x00), ("pxor", "0F", 0xEF), ("pand", "0F", 0xDB),
                     ("pandn", "0F", 0xDF), ("paddq", "0F", 0xD4), ("paddd", "0F", 0xFE),
                     ("punpcklqdq", "0F", 0x6C)):
    _add("sse", name, "66", mp, op, RM)
_add("sse", "aesimc", "66", "0F38", 0xDB, RM)
_add("sse", "pclmulqdq", "66", "0F3A", 0x44, RM + " i")
_add("sse", "pshufd", "66", "0F", 0x70, RM + " i")
_add("sse", "shufps", "", "0F", 0xC6, RM + " i")
_add("sse", "psrld", "66", "0F", 0x72, "m:V i", ext=2)
_add("sse", "psrad", "66", "0F", 0x72, "m:V i", ext=4)
_add("sse", "pslldq", "66", "0F", 0x73, "m:V i", ext=7)
for name, pp in (("movdqa", "66"), ("movdqu", "F3")):
    _add("sse", name, pp, "0F", 0x6F, RM)
    _add("sse", name, pp, "0F", 0x7F, "m:V|mem r:V", store=True)
_add("sse", "movq", "66", "0F", 0x6E, "r:V m:g", w=1)
_add("sse", "movq", "66", "0F", 0x7E, "m:g r:V", w=1)

# --- VEX: 128/256-bit, three-operand, registers 0-15 ----------------------
for name, op in (("vaesenc", 0xDC), ("vaesenclast", 0xDD), ("vaesdec", 0xDE),
                 ("vaesdeclast", 0xDF), ("vpshufb", 0x00)):
    _add("vex", name, "66", "0F38", op, RVM, XY)
for name, op in (("vpxor", 0xEF), ("vpand", 0xDB), ("vpandn", 0xDF), ("vpaddq", 0xD4),
                 ("vpaddd", 0xFE)):
    _add("vex", name, "66", "0F", op, RVM, XY)
_add("vex", "vpclmulqdq", "66", "0F3A", 0x44, RVM + " i", XY)
_add("vex", "vpshufd", "66", "0F", 0x70, RM + " i", XY)
_add("vex", "vshufps", "", "0F", 0xC6, RVM + " i", XY)
_add("vex", "vaesimc", "66", "0F38", 0xDB, RM, X)
_add("vex", "vpsrld", "66", "0F", 0x72, "v:V m:V i", XY, ext=2)
_add("vex", "vpsrad", "66", "0F", 0x72, "v:V m:V i", XY, ext=4)
_add("vex", "vpsrlq", "66", "0F", 0x73, "v:V m:V i", XY, ext=2)
_add("vex", "vpsllq", "66", "0F", 0x73, "v:V m:V i", XY, ext=6)
_add("vex", "vpslldq", "66", "0F", 0x73, "v:V m:V i", XY, ext=7)
_add("vex", "vpsrlvq", "66", "0F38", 0x45, RVM, XY, w=1)
_add("vex", "vpsllvq", "66", "0F38", 0x47, RVM, XY, w=1)
for name, pp in (("vmovdqa", "66"), ("vmovdqu", "F3")):
    _add("vex", name, pp, "0F", 0x6F, RM, XY)
    _add("vex", name, pp, "0F", 0x7F, "m:V|mem r:V", XY, store=True)
_add("vex", "vbroadcasti128", "66", "0F38", 0x5A, "r:V m:mem", Y)
_add("vex", "vinserti128", "66", "0F3A", 0x38, "r:V v:V m:x|mem i", Y)
_add("vex", "vextracti128", "66", "0F3A", 0x39, "m:x|mem r:V i", Y)
_add("vex", "vperm2i128", "66", "0F3A", 0x46, RVM + " i", Y)
_add("vex", "vmovq", "66", "0F", 0x6E, "r:V m:g", X, w=1)
_add("vex", "vpinsrq", "66", "0F3A", 0x22, "r:V v:V m:g i", X, w=1)
_add("vex", "kmovq", "F2", "0F", 0x92, "r:k m:g", X, w=1)

# --- EVEX: 128/256/512-bit, registers 0-31, opmasks -----------------------
for name, op in (("vaesenc", 0xDC), ("vaesenclast", 0xDD), ("vaesdec", 0xDE),
                 ("vaesdeclast", 0xDF), ("vpshufb", 0x00)):
    _add("evex", name, "66", "0F38", op, RVM, XYZ)
for name, op, w in (("vpxord", 0xEF, 0), ("vpandq", 0xDB, 1), ("vpandnq", 0xDF, 1),
                    ("vpaddq", 0xD4, 1), ("vpaddd", 0xFE, 0)):
    _add("evex", name, "66", "0F", op, RVM, XYZ, w=w)
_add("evex", "vpclmulqdq", "66", "0F3A", 0x44, RVM + " i", XYZ)
_add("evex", "vpshufd", "66", "0F", 0x70, RM + " i", XYZ)
_add("evex", "vpternlogq", "66", "0F3A", 0x25, RVM + " i", XYZ, w=1)
_add("evex", "valignq", "66", "0F3A", 0x03, RVM + " i", XYZ, w=1)
_add("evex", "vshufi64x2", "66", "0F3A", 0x43, RVM + " i", YZ, w=1)
_add("evex", "vpsrld", "66", "0F", 0x72, "v:V m:V|mem i", XYZ, ext=2)
_add("evex", "vpsrad", "66", "0F", 0x72, "v:V m:V|mem i", XYZ, ext=4)
_add("evex", "vpsrlq", "66", "0F", 0x73, "v:V m:V|mem i", XYZ, w=1, ext=2)
_add("evex", "vpsllq", "66", "0F", 0x73, "v:V m:V|mem i", XYZ, w=1, ext=6)
_add("evex", "vpslldq", "66", "0F", 0x73, "v:V m:V|mem i", XYZ, ext=7)
_add("evex", "vpsrlvq", "66", "0F38", 0x45, RVM, XYZ, w=1)
_add("evex", "vpsllvq", "66", "0F38", 0x47, RVM, XYZ, w=1)
for name, pp, w in (("vmovdqa64", "66", 1), ("vmovdqu64", "F3", 1), ("vmovdqu8", "F2", 0)):
    _add("evex", name, pp, "0F", 0x6F, RM, XYZ, w=w)
    _add("evex", name, pp, "0F", 0x7F, "m:V|mem r:V", XYZ, w=w, store=True)
_add("evex", "vbroadcasti32x4", "66", "0F38", 0x5A, "r:V m:mem", YZ, n=16)
_add("evex", "vinserti32x4", "66", "0F3A", 0x38, "r:V v:V m:x|mem i", YZ, n=16)
_add("evex", "vextracti32x4", "66", "0F3A", 0x39, "m:x|mem r:V i", YZ, n=16)
_add("evex", "vmovq", "66", "0F", 0x6E, "r:V m:g", X, w=1, n=8)
_add("evex", "vpinsrq", "66", "0F3A", 0x22, "r:V v:V m:g i", X, w=1, n=8)

# Legacy forms with no operands, and what they need.
NO_OPERANDS = {"vzeroupper": bytes([0xC5, 0xF8, 0x77]), "ret": bytes([0xC3])}
NO_OPERAND_NEEDS = {"vzeroupper": {"avx"}, "ret": set()}

# AES-family instructions are always written as .byte (the assembler need not
# know them); every other instruction is written as its mnemonic.
BYTE_ENCODED = frozenset(f.mnemonic for f in FORMS if "aes" in f.mnemonic)

BY_MNEMONIC = {}
for _form in FORMS:
    BY_MNEMONIC.setdefault(_form.mnemonic, []).append(_form)
