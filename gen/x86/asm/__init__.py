# SPDX-License-Identifier: Apache-2.0
"""The x86-64 model: operands, instruction forms, our encoder, kernel programs."""

from .encoder import EncodeError, encode
from .forms import BYTE_ENCODED, FORMS
from .operands import GP_NAMES, Imm, Label, Mem, Reg, gp, k, mem, rip, xmm, ymm, zmm
from .program import Const, Insn, Program

__all__ = ["EncodeError", "encode", "BYTE_ENCODED", "FORMS", "GP_NAMES", "Imm", "Label", "Mem",
           "Reg", "gp", "k", "mem", "rip", "xmm", "ymm", "zmm", "Const", "Insn", "Program"]
