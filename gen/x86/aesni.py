# SPDX-License-Identifier: Apache-2.0
"""aesni: xmm kernels with legacy-SSE AES-NI, one block per register.

The shared skeletons at 16-byte vectors with the SSE encoding.  Every AES
instruction is reg-reg (spilled round keys are reloaded into the temporary),
so no memory operand needs the 16-byte alignment legacy SSE would require.
"""

from . import skeletons
from .vector import Vector

VECTOR = Vector(16, 16, "sse")
BODIES = skeletons.BODIES
DIRECTORY, file_for = skeletons.DIRECTORY, skeletons.file_for


def vector(v):
    """The vector strategy of kernel v: xmm with legacy SSE for every kernel."""
    return VECTOR


def emit(variants, render, backend):
    return skeletons.emit(variants, render, vector, BODIES, backend.isa)


def max_width(backend):
    """The planner's limit for the parallel modes (checked against variants.py)."""
    return skeletons.max_width(VECTOR)
