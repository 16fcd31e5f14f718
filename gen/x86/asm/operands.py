# SPDX-License-Identifier: Apache-2.0
"""Operands of the x86-64 model: registers, memory references, immediates, labels.

A register is a value object: its kind (gp, gp32, gp8, gp8h, xmm, ymm, zmm,
k) and its number.  What a register holds in a kernel is the planner's
business (gen/x86/plan.py); each kernel's register map is printed from it.
"""

from dataclasses import dataclass, replace

GP_NAMES = ("rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
            "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
GP8_NAMES = ("al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil",
             "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b")
GP32_NAMES = ("eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
              "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d")
VECTOR_BYTES = {"xmm": 16, "ymm": 32, "zmm": 64}
KINDS = ("gp", "gp32", "gp8", "gp8h", "k") + tuple(VECTOR_BYTES)


@dataclass(frozen=True)
class Reg:
    kind: str
    num: int

    def __post_init__(self):
        limit = {"gp": 16, "gp32": 16, "gp8": 16, "gp8h": 4, "k": 8}.get(self.kind, 32)
        if self.kind not in KINDS or not 0 <= self.num < limit:
            raise ValueError(f"no register {self.kind}{self.num}")

    @property
    def name(self):
        if self.kind == "gp":
            return GP_NAMES[self.num]
        if self.kind == "gp8":
            return GP8_NAMES[self.num]
        if self.kind == "gp32":
            return GP32_NAMES[self.num]
        if self.kind == "gp8h":  # the second byte of rax, rcx, rdx, rbx
            return ("ah", "ch", "dh", "bh")[self.num]
        return f"{self.kind}{self.num}"

    def as_byte(self):
        """The low byte of a GP register (%r9 -> %r9b)."""
        assert self.kind in ("gp", "gp32")
        return replace(self, kind="gp8")

    @property
    def d(self):
        """The 32-bit view of a GP register (%r9 -> %r9d)."""
        assert self.kind in ("gp", "gp32")
        return replace(self, kind="gp32")

    @property
    def is_vector(self):
        return self.kind in VECTOR_BYTES

    @property
    def bytes(self):
        return VECTOR_BYTES.get(self.kind, 8)

    def att(self):
        return f"%{self.name}"

    def as_kind(self, kind):
        """The same register number viewed at another vector length."""
        return replace(self, kind=kind)



def gp(name):
    return Reg("gp", GP_NAMES.index(name))


def xmm(n):
    return Reg("xmm", n)


def ymm(n):
    return Reg("ymm", n)


def zmm(n):
    return Reg("zmm", n)


def k(n):
    return Reg("k", n)


@dataclass(frozen=True)
class Label:
    name: str

    def att(self):
        return self.name


@dataclass(frozen=True)
class Imm:
    value: int

    def att(self):
        return f"${self.value}"


@dataclass(frozen=True)
class Mem:
    """disp(base, index, scale), or label+disp(%rip) when base is None."""
    base: Reg | None = None
    disp: int = 0
    index: Reg | None = None
    scale: int = 1
    label: str = ""
    show_zero: bool = False  # print "0(%rdi)": offsets computed per block or round

    def __eq__(self, other):
        return isinstance(other, Mem) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return (self.base, self.disp, self.index, self.scale, self.label)

    def __post_init__(self):
        if self.base is None and self.index is not None:
            raise ValueError("rip-relative operands take no index")
        if self.index is not None and self.index.num == 4:
            raise ValueError("rsp cannot be an index register")
        if self.scale not in (1, 2, 4, 8):
            raise ValueError(f"scale {self.scale}")

    @property
    def rip(self):
        return self.base is None

    def as_kind(self, kind):
        """A memory operand reads as many bytes as the instruction's vector
        length, whatever register kind a caller views it at."""
        return self

    def att(self):
        if self.rip:
            where = self.label + (f"{self.disp:+d}" if self.label and self.disp else
                                  "" if self.label else str(self.disp))
            return f"{where}(%rip)"
        disp = str(self.disp) if self.disp or self.show_zero else ""
        inner = self.base.att()
        if self.index is not None:
            inner += f",{self.index.att()},{self.scale}"
        return f"{disp}({inner})"


def mem(base, disp=0, index=None, scale=1, show_zero=False):
    return Mem(gp(base) if isinstance(base, str) else base, disp,
               gp(index) if isinstance(index, str) else index, scale, show_zero=show_zero)


def rip(label, disp=0):
    return Mem(None, disp, label=label)
