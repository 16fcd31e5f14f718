# SPDX-License-Identifier: Apache-2.0
"""The variant matrix: backend x mode x direction x key bits x width.

Modes and backends are declared here once, as data, and this module imports
no emitter: the generator (gen/aesgen.py) loads each backend's emitter by the
module name declared here, and writes generated/modes.inc and
generated/backends.inc from these declarations for the runtime, the tests and
the bench.  Behaviour follows a mode's properties, never its name.  A request
is validated as a whole before anything is written.
"""

from dataclasses import dataclass

KEY_BITS = (128, 192, 256)
ROUNDS = {128: 10, 192: 12, 256: 14}


@dataclass(frozen=True)
class Mode:
    name: str          # ecb, cbc, cfb, ofb, ctr: the SP 800-38A family
    direction: str     # enc or dec
    label: str         # the bench's row label
    description: str   # the kernels' contract line
    parallel: bool     # blocks independent: W at a time; else width 1, serial
    schedule: str      # round keys the kernels take: "enc", or "dec" (equivalent inverse)
    iv: str            # none, chain (a chaining value) or counter
    iv_note: str       # what iv means to a kernel of this mode
    whole_blocks: bool  # the API takes whole blocks only (else any length, a partial tail)
    tail: str = "none"  # a partial last block: "output" or "input" fed back (CFB
                        # encryption/decryption), "keystream" kept (OFB), "counter" advanced
    counter_bits: int = 0  # CTR: the low bits of the block that count (big-endian)
    body: str = ""     # the emitters' body for it; default name_direction
    api: str = ""      # the public function, if the mode has one
    family: str = ""   # the SP 800-38A mode it is a variant of; default its name

    @property
    def sp800_38a(self):
        return self.family or self.name

    @property
    def tag(self):
        return f"{self.name}_{self.direction}"

    @property
    def body_name(self):
        return self.body or self.tag


_CHAIN = "the chaining value, updated for the next call."

# Order is the registry order.  CTR and OFB are their own inverses: only "enc".
MODES = (
    Mode("ecb", "enc", "ECB enc", "ECB encryption", True, "enc", "none", "unused.", True,
         body="ecb", api="aes_gen_ecb_encrypt"),
    Mode("ecb", "dec", "ECB dec", "ECB decryption", True, "dec", "none", "unused.", True,
         body="ecb", api="aes_gen_ecb_decrypt"),
    Mode("cbc", "enc", "CBC enc", "CBC encryption", False, "enc", "chain", _CHAIN, True,
         api="aes_gen_cbc_encrypt"),
    Mode("cbc", "dec", "CBC dec", "CBC decryption", True, "dec", "chain", _CHAIN, True,
         api="aes_gen_cbc_decrypt"),
    Mode("cfb", "enc", "CFB enc", "CFB-128 encryption", False, "enc", "chain", _CHAIN, False,
         tail="output", api="aes_gen_cfb_encrypt"),
    Mode("cfb", "dec", "CFB dec", "CFB-128 decryption", True, "enc", "chain", _CHAIN, False,
         tail="input", api="aes_gen_cfb_decrypt"),
    Mode("ofb", "enc", "OFB", "OFB encryption and decryption", False, "enc", "chain", _CHAIN,
         False, tail="keystream", body="ofb", api="aes_gen_ofb_crypt"),
    Mode("ctr", "enc", "CTR", "CTR encryption and decryption", True, "enc", "counter",
         "the 128-bit big-endian counter, advanced by nblocks.", False, tail="counter",
         counter_bits=128, body="ctr", api="aes_gen_ctr_crypt"),
)
MODE_BY_TAG = {m.tag: m for m in MODES}
# The public functions of aes_gen.h besides the modes' (MODES[].api): the shared
# library exports these, the modes' and the kernels, nothing else.
PUBLIC_FUNCTIONS = ("aes_gen_version", "aes_gen_setkey", "aes_gen_setkey_backend",
                    "aes_gen_key_backend", "aes_gen_backends", "aes_gen_round_keys",
                    "aes_gen_wipe", "aes_gen_strerror", "aes_gen_backend_describe",
                    "aes_gen_mode_name", "aes_gen_key_mode_use", "aes_gen_stream_init",
                    "aes_gen_stream_update", "aes_gen_stream_final")
# The SP 800-38A modes the runtime's tail handling, the reference and the peers know.
FAMILIES = ("ecb", "cbc", "cfb", "ofb", "ctr")


@dataclass(frozen=True)
class Backend:
    name: str             # the API's name (aes_gen_setkey_backend); need not be a C token
    symbol: str           # C token: kernel symbols aes_gen_<symbol>_..., AES_GEN_BACKEND_<symbol>
    what: str             # one line for the docs
    constant_time: bool   # no secret-dependent addresses or branches
    rank: int             # preference within its constant-time class: lower first
    isa: tuple = ()       # CPU features every kernel needs (AES_GEN_CPU_* in runtime/internal.h)
    emitter: str = ""     # module under gen/ that emits it; "" = planned, known to the API only
    key_format: str = "fips"  # expanded-key layout its kernels take (runtime/key_schedule.c)
    default_widths: tuple = (1,)
    width_multiple: int = 1   # blocks per vector register: other widths run on xmm
    max_width: int = 1
    narrow_max_width: int = 0  # the limit for widths that run on xmm (0: max_width)
    width_limit_reason: str = ""
    arch: str = ""        # key of ARCHES for hosts that can build it; "" = every host
    aes_bytes: int = 0    # vector bytes per AES instruction (16, 32, 64); 0: no AES instructions
    serial_modes: bool = True  # emits the serial modes; if not, a key takes them from the
                               # best backend that has them with the same key format
    params: tuple = ()    # (name, value) pairs for its emitter
    alias_of: str = ""    # a name for another backend's kernels (the generator's choice)
    family: str = ""      # an alias whose request brings this backend in
    compile_options: tuple = ()  # for its generated sources (CMake list items)


# The T-table combination `ttable` names (--ttable-key-loads, --ttable-temps
# choose another): the fastest of the four as measured, see the README.
TTABLE_DEFAULT = "ttable-k64t0"

# Conditions under which an architecture-specific backend is built.
ARCHES = {
    "x86_64": {"c": "defined(__x86_64__)",
               "cmake": 'CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$"'},
}

_BACKENDS = (
    Backend("vaes512", "vaes512", "zmm, 4 blocks per register; parallel modes", True, 0,
            ("avx512f", "avx512vl", "avx512bw", "vaes"), "x86.vaes",
            default_widths=(1, 4, 8, 16, 32), width_multiple=4, max_width=120,
            width_limit_reason="32 zmm registers hold the blocks, 4 per register, a chaining "
                               "value and a temporary; round keys take what is left",
            arch="x86_64", aes_bytes=64, serial_modes=False),
    Backend("vaes256", "vaes256", "ymm, 2 blocks per register; parallel modes", True, 1,
            ("avx", "avx2", "vaes"), "x86.vaes", default_widths=(1, 2, 4, 8, 16),
            width_multiple=2, max_width=28,
            width_limit_reason="16 ymm registers hold the blocks, 2 per register, a chaining "
                               "value and a temporary; round keys take what is left",
            arch="x86_64", aes_bytes=32, serial_modes=False),
    Backend("aesni", "aesni", "xmm blocks, .byte-encoded aesenc/aesdec", True, 2,
            ("sse2", "ssse3", "aesni"), "x86.aesni", default_widths=(1, 2, 4, 8),
            max_width=14,
            width_limit_reason="16 xmm registers hold the blocks, a chaining value and a "
                               "temporary; round keys take what is left",
            arch="x86_64", aes_bytes=16),
    # Vector-permutation AES: 4 temporaries per block register beside the
    # blocks, the mode's registers and (VEX/EVEX) four table registers.
    Backend("vpaes512", "vpaes512", "vector-permutation AES on zmm, 4 blocks per register; "
            "parallel modes", True, 3, ("avx512f", "avx512vl", "avx512bw"), "x86.vpaes",
            key_format="vpaes", default_widths=(1, 4, 8, 16), width_multiple=4, max_width=20,
            narrow_max_width=5,
            width_limit_reason="32 zmm registers hold the blocks, 4 per register, four "
                               "temporaries per block register, the mode's two and four tables; "
                               "widths not a multiple of 4 run on xmm, up to 5",
            arch="x86_64", serial_modes=False),
    Backend("vpaes256", "vpaes256", "vector-permutation AES on ymm, 2 blocks per register; "
            "parallel modes", True, 4, ("avx", "avx2"), "x86.vpaes", key_format="vpaes",
            default_widths=(1, 2, 4), width_multiple=2, max_width=4, narrow_max_width=2,
            width_limit_reason="16 ymm registers hold the blocks, 2 per register, four "
                               "temporaries per block register, the mode's two and four tables; "
                               "odd widths run on xmm, up to 2",
            arch="x86_64", serial_modes=False),
    Backend("vpaes", "vpaes", "vector-permutation AES on xmm (SSSE3)", True, 5,
            ("sse2", "ssse3"), "x86.vpaes", key_format="vpaes", default_widths=(1, 2),
            max_width=2,
            width_limit_reason="16 xmm registers hold the blocks, four temporaries per block "
                               "and the mode's two",
            arch="x86_64"),
    Backend("ttable", "ttable", "x86-64 T-table assembly: the measured best of the four "
            "ttable-k* variants", False, 0, alias_of=TTABLE_DEFAULT),
    # Two blocks, the round output, the index registers, the table base and rk
    # take 15 general-purpose registers with one index register: with three
    # there is room for one block only.
    *(Backend(f"ttable-k{kl}t{t}", f"ttable_k{kl}t{t}",
              f"x86-64 T-table assembly, {kl}-bit key loads, {1 + t} index registers", False,
              1, (), "x86.ttable", default_widths=(1, 2) if t == 0 else (1,),
              max_width=2 if t == 0 else 1,
              width_limit_reason="15 general-purpose registers hold the columns of each block "
                                 "and of the round output, the index registers, the table base "
                                 "and the round-key pointer",
              arch="x86_64", params=(("key_loads", kl), ("temps", t)), family="ttable")
      for kl in (32, 64) for t in (0, 2)),
    Backend("portable", "portable", "fully unrolled T-table C", False, 1, (), "c.portable",
            default_widths=(1, 2, 4), max_width=16,
            width_limit_reason="wider portable C kernels only spill their state to the stack"),
    Backend("tilegx-emu", "tilegx_emu", "TILE-Gx C (tblidx, ld4u) on an emulation of its "
            "intrinsics", False, 2, (), "c.tilegx", key_format="openssl",
            default_widths=(1, 2), max_width=2,
            width_limit_reason="the TILE-Gx code interleaves one or two blocks",
            compile_options=("-include", "${PROJECT_SOURCE_DIR}/runtime/tilegx/tilegx_emu.h",
                             "-DAES_GEN_TILEGX_TRAP")),
)
# Preference order: constant-time backends first, each class by rank.  The
# runtime's backend ids follow this order.
BACKENDS = {b.name: b for b in sorted(_BACKENDS, key=lambda b: (not b.constant_time, b.rank))}
GENERATED = tuple(name for name, b in BACKENDS.items() if b.emitter or b.alias_of)
DEFAULT_BACKENDS = ("vaes512", "vaes256", "aesni", "vpaes512", "vpaes256", "vpaes", "ttable",
                    "portable", "tilegx-emu")


def expand(backends):
    """The request's backends with the members of any alias it names."""
    out = list(backends)
    for name in backends:
        out += [m for m, b in BACKENDS.items() if b.family == name and m not in out]
    return out


def ttable_alias(key_loads=None, temps=None):
    """The combination `ttable` names: TTABLE_DEFAULT unless a switch is given."""
    opts = dict(BACKENDS[TTABLE_DEFAULT].params)
    if key_loads is not None:
        opts["key_loads"] = key_loads
    if temps is not None:
        opts["temps"] = temps
    if opts["key_loads"] not in (32, 64) or opts["temps"] not in (0, 2):
        raise VariantError(f"--ttable-key-loads takes 32 or 64, --ttable-temps 0 or 2 "
                           f"(given {opts['key_loads']}, {opts['temps']})")
    return f"ttable-k{opts['key_loads']}t{opts['temps']}"
REQUIRED_BACKEND = "portable"  # the runtime's fallback on every CPU
# Every kernel's C parameters (aes_gen_kernel_fn in kernels.h).
KERNEL_PARAMS = "const uint8_t *rk, uint8_t *iv, uint8_t *dst, const uint8_t *src, size_t nblocks"


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
    def backend_symbol(self):
        return BACKENDS[self.backend].symbol

    @property
    def symbol(self):
        return f"aes_gen_{self.backend_symbol}_{self.mode.tag}_k{self.key_bits}_w{self.width}"


def by_file(variants, file_for):
    """{path: [variant, ...]} in the variants' order: the kernels each file holds."""
    files = {}
    for v in variants:
        files.setdefault(file_for(v), []).append(v)
    return files


class VariantError(ValueError):
    """A request the generator cannot honour; the message names the offending value."""


def parse_list(text, what, convert=str):
    """'1,2,4' -> [1, 2, 4]; a clear error names `what` and the bad item."""
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise VariantError(f"{what}: empty item in '{text}'")
    out = []
    for item in items:
        try:
            out.append(convert(item))
        except ValueError:
            kind = "an integer" if convert is int else "a name"
            raise VariantError(f"{what}: '{item}' is not {kind} (in '{text}')") from None
    return out


def parse_widths(text):
    """WIDTHS: '1,2,4' for every backend, or per backend
    'aesni:1,2,4,8+portable:1,2' (a backend not named keeps its defaults).
    Returns {"*": [...]} or {backend: [...], ...}."""
    if ":" not in text:
        return {"*": parse_list(text, "WIDTHS", int)}
    out = {}
    for part in text.split("+"):
        name, sep, widths = part.partition(":")
        name = name.strip()
        if not sep or not name:
            raise VariantError(f"WIDTHS: '{part}' is not BACKEND:W,W,... "
                               "(per-backend lists are joined with '+')")
        if name in out:
            raise VariantError(f"WIDTHS: {name} is given widths twice")
        out[name] = parse_list(widths, f"WIDTHS for {name}", int)
    return out


def format_widths(widths):
    if widths is None:
        return None
    if set(widths) == {"*"}:
        return ",".join(map(str, widths["*"]))
    return "+".join(f"{name}:{','.join(map(str, ws))}" for name, ws in sorted(widths.items()))


def _check_unique(values, what):
    seen = set()
    for value in values:
        if value in seen:
            raise VariantError(f"{what}: {value} is listed twice")
        seen.add(value)


def holds(b, width):
    """Whether backend b can have a width-`width` kernel."""
    narrow = width % b.width_multiple and b.narrow_max_width
    return width <= (b.narrow_max_width if narrow else b.max_width)


def widths_for(backend, widths):
    """The widths of one backend's parallel modes for a request.  A list for
    every backend ("*") gives each the widths up to its own limit."""
    if widths is None:
        return list(BACKENDS[backend].default_widths)
    if backend in widths:
        return list(widths[backend])
    if "*" in widths:
        return [w for w in widths["*"] if holds(BACKENDS[backend], w)]
    return list(BACKENDS[backend].default_widths)


def left_out(backends, widths):
    """{backend: widths of a list for every backend that it cannot hold}."""
    if widths is None or "*" not in widths:
        return {}
    out = {}
    for name in backends:
        b = BACKENDS[name]
        if b.emitter and name not in widths:
            skipped = [w for w in widths["*"] if not holds(b, w)]
            if skipped:
                out[name] = skipped
    return out


def _validate_widths(name, widths, source):
    backend = BACKENDS[name]
    for width in widths:
        if width < 1:
            raise VariantError(f"{source}: {width} is not a width (a width is a positive "
                               "number of blocks)")
    if 1 not in widths:
        raise VariantError(f"{source}: {name} needs width 1 (the serial modes and the last "
                           "blocks of every message use it)")
    for width in widths:
        if not holds(backend, width):
            limit = backend.max_width if width > backend.max_width else backend.narrow_max_width
            raise VariantError(f"{source}: {width} exceeds the {name} backend's limit of "
                               f"{limit} ({backend.width_limit_reason})")
    _check_unique(widths, source)


def validate_modes(modes):
    """The declarations themselves: unique tags, known families, consistent properties."""
    _check_unique([m.tag for m in modes], "MODES")
    for m in modes:
        if m.sp800_38a not in FAMILIES:
            raise VariantError(f"mode {m.tag}: family '{m.sp800_38a}' is not one of "
                               f"{', '.join(FAMILIES)} (set family= for a variant)")
        if (m.iv == "counter") != (m.counter_bits > 0) or m.counter_bits % 8 or \
                m.counter_bits > 128:
            raise VariantError(f"mode {m.tag}: a counter mode needs counter_bits, a multiple "
                               "of 8 up to 128; other modes none")
        if m.whole_blocks != (m.tail == "none"):
            raise VariantError(f"mode {m.tag}: a mode that takes any length says what its "
                               "partial last block does (tail=)")


def validate(backends, widths, keys):
    """Raise VariantError unless the request can be generated as a whole."""
    validate_modes(MODES)
    for name in backends:
        if name not in BACKENDS:
            raise VariantError(f"BACKENDS: unknown backend '{name}' "
                               f"(the generator emits: {', '.join(GENERATED)})")
        if not BACKENDS[name].emitter and not BACKENDS[name].alias_of:
            raise VariantError(f"BACKENDS: '{name}' is planned but has no emitter yet "
                               f"(the generator emits: {', '.join(GENERATED)})")
    if REQUIRED_BACKEND not in backends:
        raise VariantError(f"BACKENDS: must include '{REQUIRED_BACKEND}', the runtime's "
                           "fallback on CPUs without the other backends' features")
    for key_bits in keys:
        if key_bits not in KEY_BITS:
            raise VariantError(f"KEYS: {key_bits} is not an AES key size "
                               f"(one of {', '.join(map(str, KEY_BITS))})")
    _check_unique(backends, "BACKENDS")
    _check_unique(keys, "KEYS")
    for name in backends:
        b = BACKENDS[name]
        if not b.serial_modes and not any(BACKENDS[o].serial_modes and
                                          BACKENDS[o].key_format == b.key_format
                                          for o in backends):
            raise VariantError(f"BACKENDS: {name} takes its serial modes from a backend with "
                               f"key format {b.key_format}; none is requested")
    if widths is None:
        return
    for name in widths:
        if name != "*" and name not in backends:
            raise VariantError(f"WIDTHS: widths for '{name}', which is not among the "
                               f"backends generated ({', '.join(backends)})")
    for name in (n for n in backends if BACKENDS[n].emitter):
        if name in widths:
            _validate_widths(name, widths[name], f"WIDTHS for {name}")
    if "*" in widths:
        emitted = [n for n in backends if BACKENDS[n].emitter]
        for width in widths["*"]:
            if width < 1:
                raise VariantError(f"WIDTHS: {width} is not a width (a width is a positive "
                                   "number of blocks)")
        if 1 not in widths["*"]:
            raise VariantError("WIDTHS: must include 1 (the serial modes and the last blocks "
                               "of every message use it)")
        _check_unique(widths["*"], "WIDTHS")
        for width in widths["*"]:
            if emitted and all(not holds(BACKENDS[n], width) for n in emitted):
                widest = max(emitted, key=lambda n: BACKENDS[n].max_width)
                raise VariantError(f"WIDTHS: {width} exceeds every backend's limit; the widest "
                                   f"is {widest}'s {BACKENDS[widest].max_width} "
                                   f"({BACKENDS[widest].width_limit_reason})")


def build_matrix(backends, widths, keys):
    """All variants for the request, in registry order: backends in preference
    order, then MODES order, then key size.  Within one (backend, mode, key
    size) the widths run widest first: the runtime's mode drivers rely on that
    order (tests check it).  `widths` None means each backend's defaults."""
    validate(backends, widths, keys)
    variants = []
    for name in (b for b in BACKENDS if b in backends and BACKENDS[b].emitter):
        for mode in (m for m in MODES if m.parallel or BACKENDS[name].serial_modes):
            for key_bits in sorted(keys):
                mode_widths = widths_for(name, widths) if mode.parallel else [1]
                for width in sorted(mode_widths, reverse=True):
                    variants.append(Variant(name, mode, key_bits, width))
    return variants
