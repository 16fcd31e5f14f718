# SPDX-License-Identifier: Apache-2.0
"""vaes256 / vaes512: the shared skeletons on ymm (VEX, 16 registers, 2
blocks per register) and zmm (EVEX, 32 registers, 4 blocks per register).

Only the parallel modes: a key takes its serial modes (one block at a time,
bound by AES latency, not width) from the best backend that has them with
the same round-key layout (aesni).  Every width that fills whole ymm or zmm
registers runs on them, the short ones too (GCM's up to 4 blocks excepted:
gcm.py; vaes512's CBC decryption of 4 blocks runs on two ymm, HALF_UP_TO);
the others run on xmm with the VEX encoding.  Round keys are
broadcast into every lane once per call; vaes512 keeps all fifteen in
registers at any width it allows.
"""

from . import gcm, skeletons, xts
from .vector import Vector

# Widths up to this would run on xmm.  None do: on Zen 4, back-to-back calls on
# separate buffers, AES-128, ticks per byte xmm -> full vector: vaes512 W=4 ECB
# 0.363 -> 0.247, CTR 0.411 -> 0.313, XTS 0.586 -> 0.551; vaes256 W=2 ECB
# 0.670 -> 0.541, W=4 ECB 0.367 -> 0.297, CTR 0.483 -> 0.357.  (Chained in
# place, where each call waits for the last, W=4 ECB on zmm is 5% slower.)
NARROW_UP_TO = 0

# vaes512's CBC decryption of 4 blocks on two ymm registers, not one zmm: on
# Golden Cove, 64-byte AES-256 calls each on the last one's output took
# 0.214-0.223 ns/B against 0.232-0.238 on zmm (libgcrypt 0.22), independent
# ones 0.096 against 0.085 (the best peer 0.20).  2 blocks stay on xmm (one
# ymm: chained 32-byte calls 8% slower).  ECB and CFB decryption keep zmm:
# ECB is level with nettle chained, CFB on ymm measured slower both ways.
HALF_UP_TO = {"cbc_dec": 4}

EMITTER = skeletons.SkeletonEmitter(
    {"vaes256": Vector(32, 16, "vex"), "vaes512": Vector(64, 32, "evex")},
    bodies={**skeletons.BODIES, **gcm.BODIES, **xts.BODIES}, narrow_up_to=NARROW_UP_TO, without={},
    half_up_to=HALF_UP_TO)
