# SPDX-License-Identifier: Apache-2.0
"""aesni: xmm kernels with legacy-SSE AES-NI, one block per register.

The shared skeletons at 16-byte vectors with the SSE encoding.  Every AES
instruction is reg-reg (spilled round keys are reloaded into the temporary),
so no memory operand needs the 16-byte alignment legacy SSE would require.
"""

from . import gcm, skeletons, xts
from .vector import Vector

EMITTER = skeletons.SkeletonEmitter({"aesni": Vector(16, 16, "sse")},
                                    bodies={**skeletons.BODIES, **gcm.BODIES, **xts.BODIES}, without={})
