# SPDX-License-Identifier: Apache-2.0
"""The emitter contract: what the generator asks of each backend's emitter.

An emitter (one per module, listed in gen/targets.py) writes the kernels of
the backends that name it in gen/variants.py.  It provides:

  bodies          {body name: function}: a mode's kernel body (Mode.body_name);
                  body() turns a missing one into a generator error
  without         {body name: why}: the bodies the emitter declares it does not
                  write (a key of its backends takes those modes from another
                  backend with its key format, as vaes takes the serial ones)
  directory       (folder under generated/, what it holds), for generated/README.md
  file_for(v)     the generated file that holds kernel v
  emit(vs, render, backend)   {path: text} for the backend's variants
  width_problem(backend, w, mode)   "" if the backend's planner can hold a
                  group of w blocks in the kernel of (parallel) mode, else the
                  planner's reason: the one source of width limits
  report()        optional: the text of `aesgen.py --report <target>`
  support(backend, render)   optional: functions a backend adds beside its
                  kernels (aesni: its key setup), as {"files": {path: text},
                  "functions": [(symbol, C parameters, what and what it needs, the CPU
                  features its instructions need)]}: compiled, declared in kernels.h
                  (with AES_GEN_NEEDS_<symbol>, the features as the runtime's bits)
                  and exported with the kernels

contract_notes() writes the comment every kernel carries (its mode, key
size, round keys, iv, nblocks and CPU needs), the same for every target.
"""

from variants import CPU_FEATURES, MODES, VariantError


class Emitter:
    directory = ("", "")
    bodies = {}
    without = {}  # {body name: why this emitter has none}: declared, not forgotten
    source = ""   # where the bodies live, for the error that names a missing one

    def modes(self, backend):
        """The modes the backend has kernels for: all (or the parallel ones)
        but those the emitter declares it is without."""
        return [m for m in MODES if (m.parallel or backend.serial_modes) and
                m.body_name not in self.without]

    def body(self, backend, mode):
        """The function that writes mode's body; a missing one is an error."""
        fn = self.bodies.get(mode.body_name)
        if fn is None:
            raise VariantError(f"mode {mode.tag}: backend {backend.name} has no body "
                               f"'{mode.body_name}' (add it to the bodies of {self.source}, "
                               f"which has: {', '.join(sorted(self.bodies))})")
        return fn

    def check_bodies(self, backend):
        for mode in self.modes(backend):
            self.body(backend, mode)

    def file_for(self, v):
        raise NotImplementedError

    def emit(self, variants, render, backend):
        raise NotImplementedError

    def width_problem(self, backend, width, mode):
        raise NotImplementedError

    def report(self):
        return None

    def support(self, backend, render):
        return {"files": {}, "functions": []}


def requires(v, backend, needs):
    """The Requires line of kernel v from the features its instructions need,
    which its backend must declare: a kernel never needs more than the
    runtime checks before running it."""
    extra = set(needs) - set(backend.isa_for(v.mode))
    if extra:
        raise VariantError(f"{v.symbol}: its instructions need {', '.join(sorted(extra))}, "
                           f"which backend {backend.name} does not declare for it "
                           "(gen/variants.py: isa, mode_isa)")
    return ", ".join(f.upper() for f in CPU_FEATURES if f in needs) or "x86-64"


# The absence most emitters declare: GCM then runs on the key's CTR kernels and
# the runtime's GHASH (carry-less multiplication, or its constant-time
# integer form; runtime/gcm.c).
GCM_ABSENT = "no stitched GCM kernels: the key's CTR kernels and the runtime's GHASH"
XTS_ABSENT = "no XTS kernels: the runtime's XTS over the key's ECB kernels"
# The bodies an emitter without GCM and XTS kernels declares absent.
RUNTIME_AEAD_XTS = {"gcm_enc": GCM_ABSENT, "gcm_dec": GCM_ABSENT, "xts_enc": XTS_ABSENT,
                    "xts_dec": XTS_ABSENT}


def by_file(variants, file_for):
    """{path: [variant, ...]} in the variants' order: the kernels each file holds."""
    files = {}
    for v in variants:
        files.setdefault(file_for(v), []).append(v)
    return files


def contract_notes(v, backend, requires, rk_detail=""):
    """The comment lines of kernel v: what it computes, the round keys it takes
    (rk_detail: what this backend adds, e.g. how many keys it reloads), iv and
    nblocks (GCM: state and len) and what it needs to run."""
    blocks = f"{v.width} block{'s' if v.width > 1 else ''} per iteration"
    tables = "" if backend.constant_time else \
        " NOT constant-time: table lookups indexed by key and data."
    schedule = "decryption" if v.mode.schedule == "dec" else "encryption"
    return [
        f"{v.mode.description}, AES-{v.key_bits} ({v.rounds} rounds, fully unrolled), "
        f"{blocks}.{tables}",
        f"rk: {schedule} round keys ({backend.key_format} format), {v.rounds + 1} x 16 bytes"
        f"{rk_detail}.",
    ] + (_gcm_notes(v) if v.mode.kernel_shape.name == "gcm" else [
        f"iv: {v.mode.iv_note}",
        f"nblocks: a multiple of {v.width}." if v.width > 1 else "nblocks: any count.",
    ]) + [f"Requires: {requires}."]


def _gcm_notes(v):
    return [f"state: the hash and the counter (and with AES_GEN_GCM_LAST J0 -> zeros, the "
            "lengths block -> the tag); htable: the key's powers (kernels.h).",
            f"len: any number of bytes: groups of {v.width} blocks, then what is left a "
            "vector at a time (the last one partial).",
            ]
