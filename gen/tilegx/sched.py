# SPDX-License-Identifier: Apache-2.0
"""TILE-Gx bundles: straight-line programs of TILE-Gx instructions on values,
register allocation, a list scheduler into bundles, and the assembly text.

A program is built on values (SSA, except that a tied destination takes its
source's register: tblidxbK, mm, dblalign and the post-increment forms).  It
is then
  1. allocated in program order: each value takes the register that has been
     free longest (a FIFO), so a register is reused as late as possible and
     the false dependencies that reuse creates are few and far apart;
  2. scheduled on those registers: an operation may issue once what it reads
     is ready (producer's issue + latency), once every earlier reader of what
     it overwrites has issued (same bundle allowed: all reads of a bundle
     happen before any write) and after the earlier write of the same
     register; memory operations keep input loads before output stores and
     stack saves before restores.  Each cycle the ready operations with the
     longest path to the end are packed into one bundle when the set fits
     X mode (X0, X1) or Y mode (Y0, Y1, Y2).

Pipes and latencies are the fact sheet's (docs: tilegx-isa.md).  It does not
list the simple ALU operations (xor, and, or, addi, andi, shrui, shli, rotli,
shl2add, move) or jrp: we assume the four ALU pipes X0, X1, Y0, Y1 for the
former, as for the other one-cycle integer operations, and X1 or Y1 for jrp;
addli and moveli (16-bit immediates) X0 or X1.  The schedule assumes L1 hits for every
load (2 cycles), as the round code's tables (9 KiB) and keys do after the
first block.
"""

from dataclasses import dataclass

X0, X1, Y0, Y1, Y2 = "X0", "X1", "Y0", "Y1", "Y2"
_ALU = (X0, X1, Y0, Y1)
_LDST = (X1, Y2)
PIPES = {
    **{f"tblidxb{k}": (X0, Y0) for k in range(4)},
    **{op: _LDST for op in ("ld", "ld4u", "ld1u", "st", "st1")},
    **{op: (X1,) for op in ("ldna", "ld_add", "ld4u_add", "ld1u_add", "st_add", "st1_add")},
    **{op: (X0, X1) for op in ("v1int_l", "v2int_l", "v4int_l", "v2packh", "addli", "moveli")},
    **{op: (X0,) for op in ("dblalign", "mm", "bfextu")},
    "revbytes": (X0, Y0),
    **{op: _ALU for op in ("xor", "and", "or", "addi", "andi", "shrui", "shli", "rotli",
                           "shl2add", "move")},
    "jrp": (X1, Y1),
}
LOAD_LATENCY = 2
LOADS = {"ld", "ld4u", "ld1u", "ldna", "ld_add", "ld4u_add", "ld1u_add"}
STORES = {"st", "st1", "st_add", "st1_add"}

# The TILE-Gx ABI: r0-r9 arguments, r0-r29 caller-saved, r30-r51 callee-saved,
# r52 frame pointer, r53 tp, r54 sp, r55 lr.
CALLER_SAVED = tuple(range(30))
CALLEE_SAVED = tuple(range(30, 52))
SP, LR = 54, 55
SAVE_CURSOR = 29  # walks the register save area; no argument lives there
REG_NAMES = {SP: "sp", LR: "lr"}


def reg_name(r):
    return REG_NAMES.get(r, f"r{r}")


@dataclass(eq=False)
class Value:
    name: str
    reg: int = None          # pinned (arguments, saved registers) or allocated
    tied: "Value" = None     # takes this value's register (its last use)


@dataclass(eq=False)
class Op:
    mnemonic: str
    operands: tuple          # printed in order: Values and ints
    reads: tuple
    writes: tuple
    region: str = None       # memory: "in", "out", "table", "key", "stack"
    kind: str = None         # report category: load, store, tblidx, alu
    phase: str = None        # the program part it belongs to (setup, rounds, last, ...)
    cycle: int = None

    @property
    def latency(self):
        return LOAD_LATENCY if self.mnemonic in LOADS else 1

    def write_latency(self, value):
        # A load's value takes LOAD_LATENCY; a post-increment's address one cycle.
        return LOAD_LATENCY if self.mnemonic in LOADS and value is self.writes[0] else 1

    def latency_of(self, reg):
        return next(self.write_latency(v) for v in self.writes if v.reg == reg)

    def text(self):
        args = ", ".join(reg_name(o.reg) if isinstance(o, Value) else str(o)
                         for o in self.operands)
        return f"{self.mnemonic} {args}" if args else self.mnemonic


class Program:
    """A straight-line TILE-Gx function under construction."""

    def __init__(self, name, args):
        self.name = name
        self.ops = []
        self.args = [Value(a, reg=i) for i, a in enumerate(args)]
        self.sp, self.lr = Value("sp", reg=SP), Value("lr", reg=LR)
        self.phase = None

    def emit(self, mnemonic, operands, reads, writes, region=None):
        kind = ("load" if mnemonic in LOADS else "store" if mnemonic in STORES
                else "tblidx" if mnemonic.startswith("tblidx") else "alu")
        self.ops.append(Op(mnemonic, tuple(operands), tuple(reads), tuple(writes), region, kind,
                           self.phase))

    def alu(self, mnemonic, *srcs, name="t"):
        """d = mnemonic(srcs...): registers and immediates in assembly order."""
        d = Value(name)
        self.emit(mnemonic, (d,) + srcs, [s for s in srcs if isinstance(s, Value)], [d])
        return d

    def tied(self, mnemonic, d, *srcs, name="t"):
        """mnemonic d, srcs...: d is read and overwritten (tblidxbK, mm, dblalign)."""
        n = Value(name, tied=d)
        self.emit(mnemonic, (n,) + srcs, [d] + [s for s in srcs if isinstance(s, Value)], [n])
        return n

    def load(self, mnemonic, addr, region, name="t"):
        d = Value(name)
        self.emit(mnemonic, (d, addr), [addr], [d], region)
        return d

    def load_add(self, mnemonic, addr, step, region, name="t"):
        """(loaded value, advanced address): mnemonic d, addr, step."""
        d, a = Value(name), Value(addr.name, tied=addr)
        self.emit(mnemonic, (d, a, step), [addr], [d, a], region)
        return d, a

    def store(self, mnemonic, addr, v, region):
        self.emit(mnemonic, (addr, v), [addr, v], [], region)

    def store_add(self, mnemonic, addr, v, step, region):
        a = Value(addr.name, tied=addr)
        self.emit(mnemonic, (a, v, step), [addr, v], [a], region)
        return a


# --- register allocation -------------------------------------------------------

def _with_saves(prog, saved):
    """The program with the callee-saved registers `saved` stored to the stack
    first and reloaded last, and the return."""
    body, prog.ops = prog.ops, []
    prog.phase = "setup"
    keep = [Value(f"r{r}", reg=r) for r in saved]
    sp = prog.sp
    if saved:
        sp = prog.alu("addli", sp, -8 * len(saved), name="sp")
        sp.reg = SP
        cur = prog.alu("move", sp, name="save")
        cur.reg = SAVE_CURSOR
        for v in keep:
            cur = prog.store_add("st_add", cur, v, 8, "stack")
    prog.ops += body
    restored = []
    prog.phase = "return"
    if saved:
        cur = prog.alu("move", sp, name="save")
        cur.reg = SAVE_CURSOR
        for r in saved:
            v, cur = prog.load_add("ld_add", cur, 8, "stack", name=f"r{r}")
            v.reg = r
            restored.append(v)
        sp = prog.alu("addli", sp, 8 * len(saved), name="sp")
        sp.reg = SP
    prog.emit("jrp", (prog.lr,), [prog.lr, sp] + restored, [])
    return prog


def allocate(prog, pool):
    """Registers for every value.  `pool`: the registers values may take, in
    the order they are first handed out; a register joins the back of the
    free list when its value dies (arguments and saved registers included)."""
    last, seen, entry = {}, set(), {}
    for i, op in enumerate(prog.ops):
        for v in op.reads:
            if v not in seen:
                assert v.reg is not None, f"{prog.name}: {v.name} read before written"
                entry[v.reg] = v
            seen.add(v)
        seen.update(op.writes)
        for v in op.reads + op.writes:
            last[v] = i
    free = [r for r in pool if r not in entry]
    live = dict(entry)
    for i, op in enumerate(prog.ops):
        for v in op.writes:
            if v.tied is not None:
                assert last[v.tied] == i, f"{prog.name}: {v.tied.name} read after it is tied"
                v.reg = v.tied.reg
            elif v.reg is not None:
                old = live.get(v.reg)
                assert old is None or (old in op.reads and last[old] == i), \
                    f"{prog.name}: r{v.reg} pinned while live"
                if v.reg in free:
                    free.remove(v.reg)
            elif free:
                v.reg = free.pop(0)
            else:
                raise ValueError(f"{prog.name}: out of registers")
            live[v.reg] = v
        tied = {w.tied for w in op.writes}
        for v in dict.fromkeys(op.reads + op.writes):
            if last[v] == i and v not in tied and live.get(v.reg) is v:
                del live[v.reg]
                if v.reg in pool:
                    free.append(v.reg)
    return prog


# --- scheduling ------------------------------------------------------------------

def _dependencies(ops):
    """For each op, [(earlier op index, minimum cycle distance)]."""
    deps = [[] for _ in ops]
    writer, readers = {}, {}
    loads_in, stores = [], []
    for j, op in enumerate(ops):
        for v in op.reads:
            if v.reg in writer:
                w = writer[v.reg]
                deps[j].append((w, ops[w].latency_of(v.reg)))
        for v in op.writes:
            for r in readers.get(v.reg, ()):
                if r != j:
                    deps[j].append((r, 0))
            if v.reg in writer:
                w = writer[v.reg]
                deps[j].append((w, max(1, ops[w].latency_of(v.reg) - op.write_latency(v) + 1)))
        if op.region == "stack" and op.mnemonic in LOADS:
            deps[j] += [(s, 1) for s in stores if ops[s].region == "stack"]
        if op.mnemonic in STORES and op.region == "out":
            deps[j] += [(l, 1) for l in loads_in]
        if op.mnemonic == "jrp":
            deps[j] += [(i, 0) for i in range(j)]
        for v in op.reads:
            readers.setdefault(v.reg, set()).add(j)
        for v in op.writes:
            writer[v.reg] = j
            readers[v.reg] = set()
        if op.region == "in":
            loads_in.append(j)
        if op.mnemonic in STORES:
            stores.append(j)
    return deps


def fits(mnemonics):
    """Whether these operations make one bundle: X mode or Y mode."""
    for pipes in ((X0, X1), (Y0, Y1, Y2)):
        if len(mnemonics) <= len(pipes) and _match(list(mnemonics), set(pipes)):
            return True
    return False


def _match(ops, pipes):
    if not ops:
        return True
    return any(_match(ops[1:], pipes - {p}) for p in PIPES[ops[0]] if p in pipes)


def schedule(prog):
    """Bundles (lists of ops) for the allocated program."""
    ops = prog.ops
    deps = _dependencies(ops)
    succ = [[] for _ in ops]
    for j, ds in enumerate(deps):
        for i, d in ds:
            succ[i].append((j, d))
    height = [0] * len(ops)
    for i in reversed(range(len(ops))):
        height[i] = max([ops[i].latency] + [d + height[j] for j, d in succ[i]])
    waiting = [len(ds) for ds in deps]
    earliest = [0] * len(ops)
    ready = [i for i in range(len(ops)) if not waiting[i]]
    bundles, cycle = [], 0
    while ready or any(w for w in waiting):
        bundle = []
        progress = True
        while progress:
            progress = False
            for i in sorted(ready, key=lambda i: (-height[i], i)):
                if earliest[i] <= cycle and fits([ops[b].mnemonic for b in bundle] +
                                                 [ops[i].mnemonic]):
                    bundle.append(i)
                    ready.remove(i)
                    ops[i].cycle = cycle
                    for j, d in succ[i]:
                        earliest[j] = max(earliest[j], cycle + d)
                        waiting[j] -= 1
                        if not waiting[j]:
                            ready.append(j)
                    progress = True
                    break
        bundles.append([ops[i] for i in bundle])
        cycle += 1
    while bundles and not bundles[-1]:
        bundles.pop()
    return bundles


def build(prog, pool, saved=()):
    """Allocate, schedule: the bundles of `prog`."""
    return schedule(allocate(_with_saves(prog, saved), list(pool)))


def assembly(name, bundles, comment):
    """One function's text: a bundle per line, `{ a ; b ; c }`; an empty
    bundle (every op waits on a load) is a `{ fnop }`."""
    lines = [f"/* {line} */" if line else "" for line in comment]
    lines += ["\t.align 8", f"\t.global {name}", f"\t.type {name}, @function",
              f"{name}:"]
    for b in bundles:
        lines.append("\t{ " + " ; ".join(op.text() for op in b) + " }" if b else "\t{ fnop }")
    lines.append(f"\t.size {name}, .-{name}")
    return "\n".join(lines) + "\n"
