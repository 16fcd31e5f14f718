# SPDX-License-Identifier: Apache-2.0
"""vaes256 / vaes512: the shared skeletons on ymm (VEX, 16 registers, 2
blocks per register) and zmm (EVEX, 32 registers, 4 blocks per register).

Only the parallel modes: a key takes its serial modes (one block at a time,
bound by AES latency, not width) from the best backend that has them with
the same round-key layout (aesni).  Width 1, the last block of a message,
runs on xmm with the VEX encoding.  Round keys are broadcast into every lane
once per call; vaes512 keeps all fifteen in registers at any width it allows.
"""

from . import skeletons
from .aesni import PARAMS
from .vector import Vector

VECTORS = {"vaes256": Vector(32, 16, "vex"), "vaes512": Vector(64, 32, "evex")}
BODIES = skeletons.BODIES
DIRECTORY = ("x86_64", "x86-64 assembly (GNU as), one file per backend and mode")


def file_for(v):
    return f"x86_64/{v.backend_symbol}_{v.mode.tag}.S"


def emit(variants, render, backend):
    return skeletons.emit(variants, render, VECTORS[backend.name], BODIES, backend.isa, PARAMS,
                          file_for)


def max_width(backend):
    """The planner's limit for the parallel modes (checked against variants.py)."""
    return skeletons.max_width(VECTORS[backend.name])
