# SPDX-License-Identifier: Apache-2.0
"""A static data-flow check of generated kernels: does any memory address or
branch depend on the key or the data?

x86: every kernel's Program is interpreted abstractly.  A register or stack
slot holds "pub" (public: counts, public values), "sec" (derived from the
key, the data or a chaining value) or a pointer to one of the kernel's
arguments ("ptr:rk", ...).  A load through a pointer to rk, src, dst or iv
gives a secret (a counter is public and may steer a branch: CTR's iv,
GCM's state bytes 16-31), one
from the stack what was stored there, one from a rip-relative constant a
public value.  Every operation's result joins its sources; xor of a register
with itself is public.  Jumps merge states at their labels, iterated to a
fixpoint.  A violation is a memory operand whose base or index register is
secret, or a conditional jump on flags set from a secret.

C (portable, TILE-Gx): the emitters' statements are followed the same way
over variable names: LOAD32 of src or iv, RK() and rk[] are secret, and a
T-table lookup (ENC_COL, DEC_COL, ENC_LAST, DEC_LAST, __insn_tblidxbK) of a
secret is an address that depends on it.
"""

import re

from x86.asm import Insn, Label, Mem, Reg

PUB, SEC = "pub", "sec"
CONDITIONAL = {"jb", "jc", "jae", "jz", "jnz", "ja", "jbe", "jnc", "je", "jne", "jl", "jg"}
FLAG_SETTERS = {"add", "sub", "adc", "cmp", "test", "xor", "and", "or", "shr", "addq", "subq",
                "cmpq", "xorq", "andq"}


def join(a, b):
    if a == b:
        return a
    if SEC in (a, b):
        return SEC
    if a == PUB:
        return b if b.startswith("ptr") else PUB
    if b == PUB:
        return a if a.startswith("ptr") else PUB
    return "ptr:?"


def _key(reg):
    """The architectural register a view belongs to."""
    if reg.kind in ("gp", "gp32", "gp8"):
        return ("gp", reg.num)
    if reg.kind == "gp8h":
        return ("gp", reg.num)  # ah, ch, dh, bh: rax..rbx
    return ("vec" if reg.kind != "k" else "k", reg.num)


class State:
    def __init__(self, regs=None, slots=None, flags=PUB):
        self.regs = dict(regs or {})
        self.slots = dict(slots or {})
        self.flags = flags

    def copy(self):
        return State(self.regs, self.slots, self.flags)

    def merged(self, other):
        if other is None:
            return self.copy()
        out = State(flags=join(self.flags, other.flags))
        for k in set(self.regs) | set(other.regs):
            out.regs[k] = join(self.regs.get(k, PUB), other.regs.get(k, PUB))
        for k in set(self.slots) | set(other.slots):
            out.slots[k] = join(self.slots.get(k, PUB), other.slots.get(k, PUB))
        return out

    def __eq__(self, other):
        return isinstance(other, State) and (self.regs, self.slots, self.flags) == \
            (other.regs, other.slots, other.flags)


class Analysis:
    """Runs over one Program; `violations` lists (instruction, why)."""

    def __init__(self, program, args, counter_args=()):
        """counter_args: the arguments that point to a public counter, each a
        name or (name, first byte, end byte)."""
        self.program = program
        self.counter_args = {c if isinstance(c, tuple) else (c, 0, 1 << 62) for c in counter_args}
        self.violations = []
        self.entry = State({("gp", 4): "ptr:stack"})
        for name, reg in args.items():
            self.entry.regs[_key(reg)] = PUB if name in ("nblocks", "len") else f"ptr:{name}"

    def run(self):
        items = self.program.items
        labels = {item[:-1]: i for i, item in enumerate(items) if isinstance(item, str)}
        at_label = {}
        for _ in range(20):
            before = {k: v.copy() for k, v in at_label.items()}
            self.violations = []
            state = self.entry.copy()
            for item in items:
                if isinstance(item, str):  # a label
                    state = at_label.get(item[:-1], state).merged(state) if state is not None \
                        else at_label.get(item[:-1])
                    if state is None:
                        state = State()
                    continue
                if state is None or not isinstance(item, Insn):
                    continue
                if item.mnemonic in CONDITIONAL or item.mnemonic == "jmp":
                    target = item.operands[0].name
                    if item.mnemonic != "jmp" and state.flags == SEC:
                        self.violations.append((item, "a branch on flags set from a secret"))
                    at_label[target] = state.merged(at_label.get(target))
                    if item.mnemonic == "jmp":
                        state = None
                    continue
                self.step(state, item)
            if at_label == before:
                return self
        raise AssertionError(f"{self.program.symbol}: no fixpoint")

    # --- values -----------------------------------------------------------------
    def address(self, state, m, insn):
        """The object a memory operand points into; a violation if the address
        depends on a secret."""
        if m.base is None:
            return "const"
        base = state.regs.get(_key(m.base), PUB)
        index = state.regs.get(_key(m.index), PUB) if m.index is not None else PUB
        if base == SEC or index == SEC:
            self.violations.append((insn, f"the address {m.att()} depends on a secret"))
        return base[4:] if base.startswith("ptr:") else "?"

    def load(self, state, m, insn):
        obj = self.address(state, m, insn)
        if obj == "stack":
            return state.slots.get(m.disp, PUB)
        if obj == "const":
            return PUB
        if any(obj == name and lo <= m.disp < hi for name, lo, hi in self.counter_args):
            return PUB
        return SEC  # rk, src, dst, iv, a table: key- or data-derived

    def value(self, state, op, insn):
        if isinstance(op, Reg):
            return state.regs.get(_key(op), PUB)
        if isinstance(op, Mem):
            return self.load(state, op, insn)
        return PUB  # an immediate or a label

    def write(self, state, op, v, insn):
        if isinstance(op, Reg):
            state.regs[_key(op)] = v
        elif isinstance(op, Mem):
            obj = self.address(state, op, insn)
            if obj == "stack":
                state.slots[op.disp] = v

    # --- instructions -------------------------------------------------------------
    def step(self, state, insn):
        m, ops = insn.mnemonic, list(insn.operands)
        if m in ("ret", "vzeroupper", "endbr64"):
            return
        if m in ("push", "pop"):
            return  # callee-saved registers, saved and restored: public
        if m == "lea":
            src, dst = ops
            obj = src.label if src.base is None else None
            v = f"ptr:{obj}" if obj else state.regs.get(_key(src.base), PUB)
            if src.index is not None:
                v = join(v, state.regs.get(_key(src.index), PUB))
            state.regs[_key(dst)] = v
            return
        if m in ("mov", "movq", "movzbl", "movzbq", "kmovq", "vmovdqu8", "movdqu", "movdqa", "vmovdqu", "vmovdqa", "vmovdqu64",
                 "vmovdqa64", "vmovq", "vbroadcasti128", "vbroadcasti32x4"):
            self.write(state, ops[-1], self.value(state, ops[0], insn), insn)
            return
        if m == "bswap":
            return
        sources = ops[:-1]
        dst = ops[-1]
        same = len(ops) >= 2 and all(isinstance(o, Reg) for o in ops) and \
            len({_key(o) for o in ops}) == 1
        if m in ("xor", "pxor", "vpxor", "vpxord") and same:
            v = PUB  # the zeroing idiom
        else:
            v = PUB
            for o in sources:
                v = join(v, self.value(state, o, insn))
            if len(ops) == 2 or m in ("add", "sub", "adc", "shr", "cmp", "test", "addq", "subq",
                                      "cmpq") or not m.startswith("v"):
                v = join(v, self.value(state, dst, insn))  # two-operand forms read dst
        if m in FLAG_SETTERS:
            state.flags = SEC if v == SEC else PUB
        if m in ("cmp", "test", "cmpq"):
            return
        # Pointer arithmetic keeps the pointer (add $16, %rcx).
        if isinstance(dst, Reg) and state.regs.get(_key(dst), PUB).startswith("ptr") and \
                all(not isinstance(o, (Reg, Mem)) for o in sources):
            return
        self.write(state, dst, v, insn)


def x86_violations(program, args, counter_args=()):
    return Analysis(program, args, counter_args).run().violations


# --- C ------------------------------------------------------------------------------

LOOKUPS = re.compile(r"\b(ENC_COL|DEC_COL|ENC_LAST|DEC_LAST|__insn_tblidxb[0-3])\s*\(")
ASSIGN = re.compile(r"^\s*(?:[\w ]+\s)?\*?(\w+)\s*(\^?=)\s*(.+)$", re.S)
SOURCES = re.compile(r"\bLOAD32\((src|iv|dst)\b|\bRK\(|\brk\[|\bin\d\b|__insn_ldna")
NAME = re.compile(r"\b[a-z]\w*\b")


def _split_top(text, sep):
    """text split at `sep` outside parentheses and brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def c_violations(lines):
    """(line, why) for each table lookup of a secret in C statements."""
    secret, out = set(), []
    for line in lines:
        for stmt in (part for s in _split_top(line, ";") for part in _split_top(s, ",")):
            m = ASSIGN.match(stmt)
            if not m:
                continue
            lhs, _, rhs = m.groups()
            names = set(NAME.findall(rhs))
            tainted = bool(SOURCES.search(rhs)) or bool(names & secret)
            for call in LOOKUPS.finditer(rhs):
                args = rhs[call.end():]
                if SOURCES.search(args) or set(NAME.findall(args)) & secret:
                    out.append((line.strip(), f"{call.group(1)} of a secret: a table address "
                                              "that depends on it"))
                    break
            if tainted:
                secret.add(lhs)
    return out


def exits_with_vzeroupper(program):
    """The kernel's last instruction before ret is vzeroupper."""
    insns = [i for i in program.items if isinstance(i, Insn)]
    return len(insns) >= 2 and insns[-1].mnemonic == "ret" and insns[-2].mnemonic == "vzeroupper"


__all__ = ["x86_violations", "c_violations", "exits_with_vzeroupper", "Label"]
