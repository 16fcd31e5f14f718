"""The variant matrix: backend x mode x direction x key bits x width.

Declared once here and validated before anything is emitted.  Every other part of
the generator (emitters, registry, manifest, build lists) is driven by the list of
`Variant`s that `build_matrix` returns.
"""

from dataclasses import dataclass

import x86

KEY_BITS = (128, 192, 256)
ROUNDS = {128: 10, 192: 12, 256: 14}


@dataclass(frozen=True)
class Mode:
    name: str        # ecb, cbc, cfb, ofb, ctr
    direction: str   # enc or dec
    parallel: bool   # blocks independent: can be interleaved W at a time
    key_schedule: str  # "enc" or "dec": which round keys the kernel takes

    @property
    def tag(self):
        return f"{self.name}_{self.direction}"

    @property
    def description(self):
        name = {"cfb": "CFB-128"}.get(self.name, self.name.upper())
        if self.name in ("ofb", "ctr"):
            return f"{name} encryption and decryption"
        return f"{name} {'encryption' if self.direction == 'enc' else 'decryption'}"


# Order is the registry order; CTR and OFB are their own inverses, so only "enc".
MODES = (
    Mode("ecb", "enc", True, "enc"),
    Mode("ecb", "dec", True, "dec"),
    Mode("cbc", "enc", False, "enc"),
    Mode("cbc", "dec", True, "dec"),
    Mode("cfb", "enc", False, "enc"),
    Mode("cfb", "dec", True, "enc"),
    Mode("ofb", "enc", False, "enc"),
    Mode("ctr", "enc", True, "enc"),
)


@dataclass(frozen=True)
class Backend:
    name: str
    isa: tuple            # CPU features every kernel needs (AES_GEN_CPU_* in runtime/internal.h)
    default_widths: tuple
    max_width: int
    width_limit_reason: str
    arch: str = ""        # key of ARCHES for hosts that can build it; "" = every host


# Conditions under which an architecture-specific backend is built and registered.
ARCHES = {
    "x86_64": {"c": "defined(__x86_64__)",
               "cmake": 'CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$"'},
}


# Backends the generator can emit.  The runtime knows further names (aesni, vaes256,
# ...) and reports them as unavailable until their emitters land in x86.py/tilegx.py.
BACKENDS = {
    "aesni": Backend("aesni", x86.ISA, (1, 2, 4, 8), x86.max_width(),
                     "16 xmm registers hold the blocks, a chaining value and a temporary",
                     "x86_64"),
    "portable": Backend("portable", (), (1, 2, 4), 16,
                        "wider portable C kernels only spill their state to the stack"),
}
DEFAULT_BACKENDS = ("aesni", "portable")
REQUIRED_BACKEND = "portable"  # the runtime's fallback on every CPU


@dataclass(frozen=True)
class Variant:
    backend: str
    mode: Mode
    key_bits: int
    width: int

    @property
    def rounds(self):
        return ROUNDS[self.key_bits]

    @property
    def symbol(self):
        return f"aes_gen_{self.backend}_{self.mode.tag}_k{self.key_bits}_w{self.width}"


class VariantError(ValueError):
    """A request the generator cannot honour; the message names the offending value."""


def parse_list(text, what, convert=str):
    """'1,2,4' -> [1, 2, 4]; a clear error names `what` and the bad item."""
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise VariantError(f"{what}: empty item in '{text}'")
    try:
        return [convert(item) for item in items]
    except ValueError:
        raise VariantError(f"{what}: '{text}' is not a comma-separated list of "
                           f"{'integers' if convert is int else 'names'}") from None


def _check_unique(values, what):
    seen = set()
    for value in values:
        if value in seen:
            raise VariantError(f"{what}: {value} is listed twice")
        seen.add(value)


def validate(backends, widths, keys):
    """Raise VariantError unless the request can be generated as a whole."""
    for name in backends:
        if name not in BACKENDS:
            raise VariantError(f"BACKENDS: unknown backend '{name}' "
                               f"(the generator emits: {', '.join(BACKENDS)})")
    if REQUIRED_BACKEND not in backends:
        raise VariantError(f"BACKENDS: must include '{REQUIRED_BACKEND}', the runtime's "
                           "fallback on CPUs without the other backends' features")
    for key_bits in keys:
        if key_bits not in KEY_BITS:
            raise VariantError(f"KEYS: {key_bits} is not an AES key size "
                               f"(one of {', '.join(map(str, KEY_BITS))})")
    if widths is not None:
        if 1 not in widths:
            raise VariantError("WIDTHS: must include 1 (the serial modes and the last "
                               "blocks of every message use width 1)")
        for width in widths:
            if width < 1:
                raise VariantError(f"WIDTHS: {width} is not a positive width")
            for name in backends:
                backend = BACKENDS[name]
                if width > backend.max_width:
                    raise VariantError(f"WIDTHS: {width} exceeds the {name} backend's limit "
                                       f"of {backend.max_width} ({backend.width_limit_reason})")
    _check_unique(backends, "BACKENDS")
    _check_unique(keys, "KEYS")
    _check_unique(widths or (), "WIDTHS")


def build_matrix(backends, widths, keys):
    """All variants for the request, in registry order.

    Within one (backend, mode, direction, key size) the widths run widest first:
    the runtime's mode drivers rely on that order (tests check it).
    `widths` None means each backend's own default widths.
    """
    validate(backends, widths, keys)
    variants = []
    for name in sorted(backends):
        backend = BACKENDS[name]
        for mode in MODES:
            for key_bits in sorted(keys):
                mode_widths = (widths or backend.default_widths) if mode.parallel else (1,)
                for width in sorted(mode_widths, reverse=True):
                    variants.append(Variant(name, mode, key_bits, width))
    return variants
