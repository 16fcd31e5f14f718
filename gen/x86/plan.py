# SPDX-License-Identifier: Apache-2.0
"""The register planner: who holds what in one x86 kernel.

Block b of a group is lane b % lanes of vector register b // lanes, from
register 0 up; the registers a mode body asks for (chaining value,
temporaries) follow in the order it names them; round keys take the rest.
When the keys do not all fit, the middle ones are spilled first (rk1, rk2,
...) and reloaded into the temporary per use (at the widest, all of them): rk0 and the last keys are used
where a block enters or leaves the dependency chain, and the serial modes fold
the last key into the chain, so they keep those in registers.
"""

from dataclasses import dataclass, field

from variants import VariantError


class PlanError(VariantError):
    """A width the register file cannot hold; the message names the limit."""


@dataclass
class Plan:
    vec: object              # the Vector strategy
    width: int               # blocks per group (0: a serial mode's block lives in "chain")
    rounds: int
    blocks: list             # vector registers holding blocks, lanes per register
    named: dict              # role name -> register
    keys: dict               # round -> register, or None when spilled
    keys_in_memory: bool = False  # every key an operand in memory (keys_from_memory)
    notes: dict = field(default_factory=dict)  # register -> role text (a key's), or more (a block's)

    def block(self, b):
        """(register, lane) of block b."""
        return self.blocks[b // self.vec.lanes], b % self.vec.lanes

    def spilled(self):
        return [r for r in range(self.rounds + 1) if self.keys[r] is None]

    def used(self):
        regs = list(self.blocks) + list(self.named.values())
        return regs + [r for r in self.keys.values() if r is not None]


def block_registers(vec, width):
    return -(-width // vec.lanes)


def plan(vec, width, rounds, roles):
    """roles: the names of the registers the body needs beside its blocks, in
    allocation order (e.g. ("chain", "tmp"))."""
    if width % vec.lanes:
        raise PlanError(f"width {width} is not a multiple of {vec.lanes} blocks per "
                        f"{vec.kind} register")
    nblock = block_registers(vec, width)
    if nblock + len(roles) > vec.regs:
        raise PlanError(f"width {width} needs {nblock} {vec.kind} registers for blocks and "
                        f"{len(roles)} for the mode, more than the {vec.regs} there are")
    blocks = [vec.reg(n) for n in range(nblock)]
    named = {role: vec.reg(nblock + i) for i, role in enumerate(roles)}
    free = [vec.reg(n) for n in range(nblock + len(roles), vec.regs)]
    priority = [0] + list(range(rounds, 0, -1))
    keys = {r: None for r in range(rounds + 1)}
    for r, reg in zip(priority, free):
        keys[r] = reg
    return Plan(vec, width, rounds, blocks, named, keys)
