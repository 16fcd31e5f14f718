# SPDX-License-Identifier: Apache-2.0
"""vaes256 / vaes512: the shared skeletons on ymm (VEX, 16 registers, 2
blocks per register) and zmm (EVEX, 32 registers, 4 blocks per register).

Only the parallel modes: a key takes its serial modes (one block at a time,
bound by AES latency, not width) from the best backend that has them with
the same round-key layout (aesni).  Widths up to 4 (the last blocks of a
message, short messages) run on xmm with the VEX encoding.  Round keys are
broadcast into every lane once per call; vaes512 keeps all fifteen in
registers at any width it allows.
"""

from . import gcm, skeletons, xts
from .vector import Vector

# Widths up to this run on xmm: a group this short is bound by AES latency, and
# xmm saves the broadcasts (measured at W=4 on vaes256: 15.8 ns xmm, 16.2 ns ymm).
NARROW_UP_TO = 4

EMITTER = skeletons.SkeletonEmitter(
    {"vaes256": Vector(32, 16, "vex"), "vaes512": Vector(64, 32, "evex")},
    bodies={**skeletons.BODIES, **gcm.BODIES, **xts.BODIES}, narrow_up_to=NARROW_UP_TO, without={})
