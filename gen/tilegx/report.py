# SPDX-License-Identifier: Apache-2.0
"""`gen/aesgen.py --report tilegx`: the schedule's operations, bundles and
estimated cycles per block, ours against the aes_core.c-style baseline."""

from variants import KEY_BITS

from .bundles import SHAPES, functions


def _counts(bundles, blocks):
    """Per block: operations by kind, the last round's, bundles."""
    ops = [op for b in bundles for op in b]
    kinds = {k: sum(op.kind == k for op in ops) / blocks for k in ("load", "tblidx", "alu", "store")}
    last = [op for op in ops if op.phase == "last"]
    return {"ops": len(ops) / blocks, **kinds, "last": len(last) / blocks,
            "last_alu": sum(op.kind == "alu" for op in last) / blocks,
            "bundles": len(bundles), "cycles": len(bundles) / blocks}


def report():
    """`gen/aesgen.py --report tilegx`: the schedule's figures per key size and
    direction, ours against the aes_core.c-style baseline."""
    ours, base = functions()
    n = len(KEY_BITS) * 2
    base, wordkeys = base[:n], base[n:]
    shape_names = {(1, True): "ours, aligned out", (1, False): "ours, any out",
                   (2, True): "ours x2, aligned"}
    head = (f"{'AES':>7} {'code':<19}{'ops':>6}{'loads':>7}{'tblidx':>7}{'alu':>6}{'stores':>7}"
            f" | {'last':>5}{'l.alu':>6} | {'bundles':>7}{'cyc/blk':>8}{'vs base':>8}")
    lines = ["TILE-Gx block code as scheduled (gen/tilegx/sched.py): operations per block",
             "by kind (alu: everything but loads, stores and tblidxb), the last round alone",
             "(all of it, and its alu part), bundles per call and estimated cycles per block",
             "(one bundle a cycle, every load an L1 hit: the schedule has no stall).",
             "ours, word keys: aligned output, one ld4u_add per round-key word as in the C",
             "(the others load them two at a time).",
             "", head, "-" * len(head)]
    i = 0
    for bits in KEY_BITS:
        for dec in (False, True):
            b = _counts(base[i // len(SHAPES)][1], 1) if i % len(SHAPES) == 0 else None
            label = f"{bits} {'dec' if dec else 'enc'}"
            rows = [("aes_core.c-style", b),
                    ("ours, word keys", _counts(wordkeys[i // len(SHAPES)][1], 1))]
            for w, a in SHAPES:
                rows.append((shape_names[(w, a)], _counts(ours[i][1], w)))
                i += 1
            for name, c in rows:
                lines.append(f"{label:>7} {name:<19}{c['ops']:6.0f}{c['load']:7.0f}{c['tblidx']:7.0f}"
                             f"{c['alu']:6.0f}{c['store']:7.0f} | {c['last']:5.0f}{c['last_alu']:6.0f}"
                             f" | {c['bundles']:7d}{c['cycles']:8.1f}"
                             f"{100 * (c['cycles'] / b['cycles'] - 1):+7.0f}%")
                label = ""
    return "\n".join(lines)
