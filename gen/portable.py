# SPDX-License-Identifier: Apache-2.0
"""Portable C backend: fully unrolled T-table kernels.

One function per (mode, direction) builds a kernel body from three pieces:
`_load` lines that put whitened state into x<b>_<c> (block b, column c), the
unrolled `_rounds`, which leave the cipher output in o<b>_<c>, and mode-specific
store/chaining lines.  All W blocks of a group are loaded before any is stored,
so dst == src works for every mode.
"""

import re

import cgen
from emitter import RUNTIME_AEAD_XTS, Emitter, by_file, contract_notes


def _rk(rnd, col):
    return f"RK({rnd}, {col})"


def _blk(ptr, b, c):
    """Address of column c of block b."""
    offset = 16 * b + 4 * c
    return f"{ptr} + {offset}" if offset else ptr


def _rounds(schedule, rounds, width):
    """Unrolled middle and final rounds on x<b>_<c>, final output in o<b>_<c>.

    Round r reads one set of names and writes the other (x -> y -> x ...) so that no
    copies are written; the compiler sees every round as fresh values.
    """
    col, last = ("ENC_COL", "ENC_LAST") if schedule == "enc" else ("DEC_COL", "DEC_LAST")
    # Encryption takes row r from column c + r (ShiftRows); decryption from c - r.
    step = 1 if schedule == "enc" else -1
    lines, src, dst = [], "x", "y"
    for rnd in range(1, rounds + 1):
        final = rnd == rounds
        lines.append(f"/* round {rnd}{' (final)' if final else ''} */")
        out = "o" if final else dst
        for b in range(width):
            for c in range(4):
                args = ", ".join(f"{src}{b}_{(c + r * step) % 4}" for r in range(4))
                lines.append(f"{out}{b}_{c} = {last if final else col}({args}) ^ {_rk(rnd, c)};")
        src, dst = dst, src
    return lines


def _whiten_src(width):
    return [f"x{b}_{c} = LOAD32({_blk('src', b, c)}) ^ {_rk(0, c)};"
            for b in range(width) for c in range(4)]


def _store_xor(width, other):
    """dst = o ^ other(b, c)."""
    return [f"STORE32({_blk('dst', b, c)}, o{b}_{c} ^ {other(b, c)});"
            for b in range(width) for c in range(4)]


def _load_iv():
    return [f"v{c} = LOAD32({_blk('iv', 0, c)});" for c in range(4)]


def _store_iv():
    return [f"STORE32({_blk('iv', 0, c)}, v{c});" for c in range(4)]


def _loop(width, body, rounds, schedule, before=(), after=()):
    return (list(before) + cgen.group_loop(width, body[0] + _rounds(schedule, rounds, width) +
                                           body[1]) + list(after))


def ecb(v):
    store = [f"STORE32({_blk('dst', b, c)}, o{b}_{c});" for b in range(v.width) for c in range(4)]
    return _loop(v.width, (_whiten_src(v.width), store), v.rounds, v.mode.schedule)


def cbc_enc(v):
    load = [f"x0_{c} = LOAD32({_blk('src', 0, c)}) ^ v{c} ^ {_rk(0, c)};" for c in range(4)]
    store = [f"v{c} = o0_{c};" for c in range(4)] + \
            [f"STORE32({_blk('dst', 0, c)}, v{c});" for c in range(4)]
    return _loop(1, (load, store), v.rounds, "enc", _load_iv(), _store_iv())


def cbc_dec(v):
    w = v.width
    # Keep the ciphertext: block b is XORed with ciphertext b-1 (the IV for b = 0).
    load = [f"c{b}_{c} = LOAD32({_blk('src', b, c)});" for b in range(w) for c in range(4)] + \
           [f"x{b}_{c} = c{b}_{c} ^ {_rk(0, c)};" for b in range(w) for c in range(4)]
    prev = lambda b, c: f"v{c}" if b == 0 else f"c{b - 1}_{c}"
    store = _store_xor(w, prev) + [f"v{c} = c{w - 1}_{c};" for c in range(4)]
    return _loop(w, (load, store), v.rounds, "dec", _load_iv(), _store_iv())


def cfb_enc(v):
    load = [f"x0_{c} = v{c} ^ {_rk(0, c)};" for c in range(4)]
    store = [f"v{c} = o0_{c} ^ LOAD32({_blk('src', 0, c)});" for c in range(4)] + \
            [f"STORE32({_blk('dst', 0, c)}, v{c});" for c in range(4)]
    return _loop(1, (load, store), v.rounds, "enc", _load_iv(), _store_iv())


def cfb_dec(v):
    w = v.width
    # Block b's keystream is E(ciphertext b-1), E(IV) for b = 0: all known up front.
    prev = lambda b, c: f"v{c}" if b == 0 else f"c{b - 1}_{c}"
    load = [f"c{b}_{c} = LOAD32({_blk('src', b, c)});" for b in range(w) for c in range(4)] + \
           [f"x{b}_{c} = {prev(b, c)} ^ {_rk(0, c)};" for b in range(w) for c in range(4)]
    store = _store_xor(w, lambda b, c: f"c{b}_{c}") + [f"v{c} = c{w - 1}_{c};" for c in range(4)]
    return _loop(w, (load, store), v.rounds, "enc", _load_iv(), _store_iv())


def ofb_enc(v):
    load = [f"x0_{c} = v{c} ^ {_rk(0, c)};" for c in range(4)]
    store = [f"v{c} = o0_{c};" for c in range(4)] + \
            [f"STORE32({_blk('dst', 0, c)}, v{c} ^ LOAD32({_blk('src', 0, c)}));" for c in range(4)]
    return _loop(1, (load, store), v.rounds, "enc", _load_iv(), _store_iv())


def ctr_enc(v):
    w = v.width
    # The counter is a 128-bit big-endian number held as two host integers; a state
    # column is four counter bytes, i.e. a byte-swapped 32-bit half of hi or lo.
    halves = ("hi >> 32", "(uint32_t)hi", "lo >> 32", "(uint32_t)lo")
    load = []
    for b in range(w):
        load += [f"x{b}_{c} = BSWAP32((uint32_t)({halves[c]})) ^ {_rk(0, c)};" for c in range(4)]
        load.append("hi += (++lo == 0); /* carry into the high half: once per 2^64 blocks */")
    store = [f"STORE32({_blk('dst', b, c)}, o{b}_{c} ^ LOAD32({_blk('src', b, c)}));"
             for b in range(w) for c in range(4)]
    return _loop(w, (load, store), v.rounds, "enc",
                 ["hi = LOAD64_BE(iv);", "lo = LOAD64_BE(iv + 8);"],
                 ["STORE64_BE(iv, hi);", "STORE64_BE(iv + 8, lo);"])


# Body names of gen/variants.py MODES -> the function that writes the body.
BODIES = {"ecb": ecb, "cbc_enc": cbc_enc, "cbc_dec": cbc_dec, "cfb_enc": cfb_enc,
          "cfb_dec": cfb_dec, "ofb": ofb_enc, "ctr": ctr_enc}
# Wider groups only spill their state to the stack: the compiler holds the
# columns of a few blocks in registers (W=2 and 4 measured best on x86-64).
MAX_WIDTH = 16


def _declarations(body):
    """Declare exactly the locals the body uses, grouped by kind."""
    names = sorted(set(re.findall(r"\b([xyocv]\d+(?:_\d)?)\b", "\n".join(body))),
                   key=lambda n: (n[0], [int(p) for p in n[1:].split("_")]))
    decls = []
    for kind in "vcxyo":
        group = [n for n in names if n[0] == kind]
        for i in range(0, len(group), 8):
            decls.append("uint32_t " + ", ".join(group[i:i + 8]) + ";")
    if "hi" in "\n".join(body):
        decls.append("uint64_t hi, lo;")
    return decls


class PortableEmitter(Emitter):
    directory = ("portable", "portable C kernels (`portable.h` holds their helpers)")
    source = "gen/portable.py"
    bodies = BODIES
    without = RUNTIME_AEAD_XTS

    def file_for(self, v):
        return f"portable/portable_{v.mode.tag}.c"

    def kernel(self, v, backend):
        """Template context for one kernel."""
        body = self.body(backend, v.mode)(v)
        text = "\n".join(body)
        notes = contract_notes(v, backend, "C99") + [
            "Register map: x<b>_<c>/y<b>_<c> column c of block b between rounds (alternating),",
            "o<b>_<c> cipher output" + (", c<b>_<c> ciphertext kept for chaining" if
                                        "c0_0" in text else "")
            + (", v<c> chaining value" if "v0" in text else "")
            + (", hi:lo counter." if "hi" in text else "."),
        ]
        return {"symbol": v.symbol, "params": v.mode.kernel_shape.c_params, "notes": notes,
                "decls": _declarations(body), "unused_iv": v.mode.iv == "none", "body": body}

    def emit(self, variants, render, backend):
        """{path: text}: portable.h and one C file per (mode, direction)."""
        files = {"portable/portable.h": render("portable.h.j2")}
        for path, group in by_file(variants, self.file_for).items():
            files[path] = render("portable_kernels.c.j2",
                                 kernels=[self.kernel(v, backend) for v in group])
        return files

    def width_problem(self, backend, width, mode):
        return "" if width <= MAX_WIDTH else (
            f"width {width} is over the portable C limit of {MAX_WIDTH}: a compiler holds "
            "the columns of a few blocks in registers, and wider groups only spill them to "
            "the stack")


EMITTER = PortableEmitter()
