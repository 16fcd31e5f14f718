# SPDX-License-Identifier: Apache-2.0
"""Instructions, labels and directives as objects, and the program of one kernel.

An instruction holds its mnemonic and operands (AT&T order, sources first) and
prints itself: AES-family instructions as `.byte` with the mnemonic in the
comment, everything else as AT&T text.  `Program` collects a kernel's lines,
names its labels and records the read-only constants its body asks for, so a
file emits exactly the constants its kernels use.
"""

from dataclasses import dataclass
from functools import lru_cache

from . import encoder
from .forms import BY_MNEMONIC, BYTE_ENCODED, NO_OPERAND_NEEDS
from .operands import Imm, Label, Reg


def _operand(op):
    if isinstance(op, int):
        return Imm(op)
    return op


@dataclass(frozen=True)
class Insn:
    mnemonic: str
    operands: tuple
    mask: Reg | None = None
    zero: bool = False

    def att(self):
        ops = [op.att() for op in self.operands]
        if ops and self.mask is not None:
            ops[-1] += "{" + self.mask.att() + "}" + ("{z}" if self.zero else "")
        return f"{self.mnemonic} {', '.join(ops)}" if ops else self.mnemonic

    def encode(self):
        return encoder.encode(self.mnemonic, list(self.operands), self.mask, self.zero)

    def needs(self):
        """The CPU features this instruction needs (none for the base x86-64
        integer instructions, which the encoder's table does not hold)."""
        if self.mnemonic in NO_OPERAND_NEEDS:
            return NO_OPERAND_NEEDS[self.mnemonic]
        vector = any(isinstance(op, Reg) and (op.is_vector or op.kind == "k")
                     for op in self.operands)
        if self.mnemonic not in BY_MNEMONIC or not vector:
            return set()  # movq $0, mem: the integer instruction of that name
        return _needs(self.mnemonic, self.operands, self.mask)

    def line(self):
        if self.mnemonic in BYTE_ENCODED:
            code = ",".join(f"0x{b:02x}" for b in _encoding(self))
            return f".byte {code:<32} # {self.att()}"
        return self.att()


# A kernel file repeats the same few hundred instructions thousands of times:
# each one's form and bytes are worked out once (the generator runs 2x faster).
@lru_cache(maxsize=None)
def _needs(mnemonic, operands, mask):
    form, size = encoder.select(mnemonic, list(reversed(operands)), mask)
    return frozenset(form.needs(size))


@lru_cache(maxsize=None)
def _encoding(insn):
    return insn.encode()


@dataclass(frozen=True)
class Const:
    """A read-only constant a kernel body uses: name, why, and .quad lines."""
    name: str
    why: str
    lines: tuple


class Program:
    """The body of one kernel: instructions, local labels, constants used."""

    def __init__(self, symbol):
        self.symbol = symbol
        self.items = []
        self.consts = {}

    def __call__(self, mnemonic, *operands, mask=None, zero=False):
        """Append one instruction: p("pxor", src, dst)."""
        self.items.append(Insn(mnemonic, tuple(_operand(op) for op in operands), mask, zero))

    def label(self, name):
        """A label local to this kernel (not yet placed)."""
        return Label(f".L{self.symbol}_{name}")

    def place(self, label):
        self.items.append(f"{label.name}:")

    def directive(self, text):
        self.items.append(_Directive(text))

    def const(self, const):
        """The constant's rip-relative operand; the file will define it once."""
        known = self.consts.setdefault(const.name, const)
        if known != const:
            raise ValueError(f"constant {const.name} defined twice, differently")
        return Label(const.name)

    def needs(self):
        """The CPU features the program's instructions need."""
        return set().union(*(item.needs() for item in self.items if isinstance(item, Insn)))

    def _vector_operands(self):
        return (op for item in self.items if isinstance(item, Insn) for op in item.operands
                if isinstance(op, Reg) and op.is_vector)

    def vector_numbers(self):
        """The numbers of the vector registers the instructions name."""
        return {op.num for op in self._vector_operands()}

    def dirties_upper(self):
        """Whether an instruction names ymm0-15 or zmm0-15: only such a write
        leaves upper state that vzeroupper clears (a VEX or EVEX write of an
        xmm register zeroes its bits 128 and up; zmm16-31 are no part of it)."""
        return any(op.kind in ("ymm", "zmm") and op.num < 16 for op in self._vector_operands())

    def lines(self):
        return [item if isinstance(item, str) else item.line() for item in self.items]


@dataclass(frozen=True)
class _Directive:
    text: str

    def line(self):
        return self.text
