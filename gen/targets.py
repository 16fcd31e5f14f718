# SPDX-License-Identifier: Apache-2.0
"""The targets and their emitters, listed once: Backend.emitter in
gen/variants.py names one of EMITTERS.  Each emitter implements the contract
of gen/emitter.py."""

import portable
import tilegx
from variants import BACKENDS, VariantError
from x86 import aesni, ttable, vaes, vpaes

EMITTERS = {
    "aesni": aesni.EMITTER,
    "vaes": vaes.EMITTER,
    "vpaes": vpaes.EMITTER,
    "ttable": ttable.EMITTER,
    "portable": portable.EMITTER,
    "tilegx": tilegx.EMITTER,
}
# `aesgen.py --report NAME`: the emitters that have a report.
REPORTS = {"tilegx": tilegx.EMITTER}


def emitter_of(name):
    """The emitter of backend `name` (not an alias)."""
    b = BACKENDS[name]
    if b.emitter not in EMITTERS:
        raise VariantError(f"backend {name}: emitter '{b.emitter}' is not one of "
                           f"{', '.join(EMITTERS)} (gen/targets.py)")
    return EMITTERS[b.emitter]


# The planner gen/request.py asks: modes() and width_problem() by backend name.

def modes(name):
    """The modes backend `name` has kernels for."""
    return emitter_of(name).modes(BACKENDS[name])


def width_problem(name, mode, width):
    """"" if backend `name` can hold `width` blocks per group in its kernel of
    mode, else its planner's reason."""
    return emitter_of(name).width_problem(BACKENDS[name], width, mode)
