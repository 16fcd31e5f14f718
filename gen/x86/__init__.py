# SPDX-License-Identifier: Apache-2.0
"""The x86-64 target: the machine model (asm/), the vector-length strategy
(vector.py), the register planner (plan.py), the mode bodies written once
(skeletons.py) and one module per backend (aesni, vaes, vpaes, ttable), each
exporting its EMITTER (gen/emitter.py)."""
