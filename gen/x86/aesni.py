# SPDX-License-Identifier: Apache-2.0
"""aesni: xmm kernels with legacy-SSE AES-NI, one block per register.

The shared skeletons at 16-byte vectors with the SSE encoding.  Every AES
instruction is reg-reg (spilled round keys are reloaded into the temporary),
so no memory operand needs the 16-byte alignment legacy SSE would require.
"""

from . import skeletons
from .vector import Vector

VECTOR = Vector(16, 16, "sse")
PARAMS = "const uint8_t *rk, uint8_t *iv, uint8_t *dst, const uint8_t *src, size_t nblocks"
BODIES = skeletons.BODIES
DIRECTORY = ("x86_64", "x86-64 assembly (GNU as), one file per backend and mode")


def file_for(v):
    return f"x86_64/{v.backend_symbol}_{v.mode.tag}.S"


def vector(v):
    """The vector strategy of kernel v: xmm with legacy SSE for every kernel."""
    return VECTOR


def emit(variants, render, backend):
    return skeletons.emit(variants, render, vector, BODIES, backend.isa, PARAMS, file_for)


def max_width(backend):
    """The planner's limit for the parallel modes (checked against variants.py)."""
    return skeletons.max_width(VECTOR)
