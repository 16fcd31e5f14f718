# SPDX-License-Identifier: Apache-2.0
"""aesni: xmm kernels with legacy-SSE AES-NI, one block per register, and
the fips format's key setup (keysetup.py).

The shared skeletons at 16-byte vectors with the SSE encoding.  Every AES
instruction is reg-reg (spilled round keys are reloaded into the temporary),
so no memory operand needs the 16-byte alignment legacy SSE would require.
"""

from . import gcm, keysetup, skeletons, xts
from .vector import Vector


class AesniEmitter(skeletons.SkeletonEmitter):
    def support(self, backend, render):
        if backend.name != "aesni":
            return {"files": {}, "functions": []}
        return keysetup.support(render)


EMITTER = AesniEmitter({"aesni": Vector(16, 16, "sse"), "aesni-avx": Vector(16, 16, "vex")},
                       bodies={**skeletons.BODIES, **gcm.BODIES, **xts.BODIES}, without={})
