# SPDX-License-Identifier: Apache-2.0
"""The variant matrix, declared once: kernel shapes, modes, backends, key
sizes, CPU features and key formats.

Everything here is data; this module imports no emitter.  The generator
(gen/aesgen.py) writes generated/modes.inc, backends.inc and kernels.h from
these declarations for the runtime, the tests and the bench, and finds each
backend's emitter by the name it declares in gen/targets.py.  Behaviour
follows a mode's properties, never its name.  What a backend can hold (its
width limits) is not declared here: its emitter's planner answers that
(gen/request.py asks it).
"""

from dataclasses import dataclass

KEY_BITS = (128, 192, 256)
ROUNDS = {128: 10, 192: 12, 256: 14}

# The CPU features a backend may need: runtime/cpu.c detects each
# (AES_GEN_CPU_<NAME>, from generated/backends.inc); bit i is feature i.
CPU_FEATURES = ("sse2", "ssse3", "aesni", "pclmul", "avx", "avx2", "vaes", "vpclmulqdq",
                "avx512f", "avx512bw", "avx512vl")

# Expanded-key layouts (runtime/key_schedule.c implements each as
# AES_GEN_KF_<name>): what a kernel's rk points to.
KEY_FORMATS = {
    "fips": "the FIPS-197 round keys, (rounds + 1) x 16 bytes; the equivalent-inverse "
            "schedule (FIPS-197 5.3.5) for the kernels that decrypt",
    "openssl": "OpenSSL's AES_KEY rd_key words (each four key bytes as a big-endian "
               "32-bit number), 4-byte aligned",
    "vpaes": "each round key in the vector-permutation representation of the state it is "
             "added to (gen/aes_math.py VPAES.round_keys), 16 bytes a round",
}


@dataclass(frozen=True)
class Param:
    """One argument of a kernel shape: its name (the role a body refers to),
    its C declaration and what the kernel does with it."""
    name: str
    decl: str
    note: str


@dataclass(frozen=True)
class Shape:
    """The arguments a family of kernels takes.  kernels.h declares one
    function type per shape, the registry keeps each kernel under its
    shape's member, and the x86 kernels take the parameters in the SysV
    argument registers in this order (at most six: none on the stack)."""
    name: str
    typedef: str       # the C function type in kernels.h
    params: tuple      # Param, in C order

    def __post_init__(self):
        assert len(self.params) <= 6, "SysV passes six integer arguments in registers"

    @property
    def c_params(self):
        return ", ".join(p.decl for p in self.params)

    @property
    def names(self):
        return tuple(p.name for p in self.params)


SHAPES = {s.name: s for s in (
    Shape("block", "aes_gen_kernel_fn", (
        Param("rk", "const uint8_t *rk", "the round keys of the mode's schedule, in the "
              "backend's key format (below)"),
        Param("iv", "uint8_t *iv", "16 bytes: the chaining value or the counter, updated so "
              "that the next call continues the stream; unused by ECB (may be NULL)"),
        Param("dst", "uint8_t *dst", "nblocks x 16 bytes, any alignment; dst == src is "
              "allowed, other overlaps are not"),
        Param("src", "const uint8_t *src", "nblocks x 16 bytes, any alignment"),
        Param("nblocks", "size_t nblocks", "a multiple of the kernel's width (the _w<width> "
              "suffix)"))),
    Shape("gcm", "aes_gen_gcm_kernel_fn", (
        Param("rk", "const uint8_t *rk", "the encryption round keys, in the backend's key format"),
        Param("htable", "const uint8_t *htable", "the hash-key powers of aes_gen_gcm_key: "
              "H^k * x^-1 reflected (16 bytes, low half first) at 16 * (64 - k), k = 1..64, "
              "then each one's two halves XORed, in both halves; 48 readable bytes after "
              "(the last vector's lanes past the data load them)"),
        Param("state", "uint8_t *state", "32 bytes, 64 with AES_GEN_GCM_LAST: the running "
              "hash (reflected, low half first) and the counter block (its low 32 bits count "
              "modulo 2^32, as GCM's inc32), both updated; then J0 (zeroed) and the lengths "
              "block, whose place the tag E(J0) ^ GHASH takes (the hash is then zeroed too)"),
        Param("dst", "uint8_t *dst", "len bytes, any alignment; dst == src is allowed"),
        Param("src", "const uint8_t *src", "len bytes, any alignment; the ciphertext is "
              "hashed (dst when encrypting, src when decrypting), a partial last block "
              "zero-padded"),
        Param("len", "uint64_t len", "the bytes, any number; with AES_GEN_GCM_LAST (bit 63) "
              "the message ends here: the lengths block is hashed and the tag written"))),
)}


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
    shape: str = "block"  # the arguments its kernels take (SHAPES)

    @property
    def sp800_38a(self):
        return self.family or self.name

    @property
    def tag(self):
        return f"{self.name}_{self.direction}"

    @property
    def body_name(self):
        return self.body or self.tag

    @property
    def kernel_shape(self):
        return SHAPES[self.shape]


_CHAIN = "the chaining value, updated for the next call."
_TWEAK = ("the tweak of the first block (the tweak key's encryption of the data unit's "
          "tweak, times alpha^j: a little-endian element of GF(2^128)), updated to the next "
          "block's.")

# Order is the registry order.  CTR and OFB are their own inverses: only "enc".
MODES = (
    Mode("ecb", "enc", "ECB enc", "ECB encryption", True, "enc", "none",
         "unused (may be NULL).", True, body="ecb", api="aes_gen_ecb_encrypt"),
    Mode("ecb", "dec", "ECB dec", "ECB decryption", True, "dec", "none",
         "unused (may be NULL).", True, body="ecb", api="aes_gen_ecb_decrypt"),
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
    # GCM (SP 800-38D): CTR with the 32-bit counter, stitched with GHASH of the
    # ciphertext; the API (aes_gen_gcm_*) is in runtime/gcm.c.
    Mode("gcm", "enc", "GCM enc", "GCM encryption: CTR (32-bit counter) and GHASH of the "
         "output", True, "enc", "counter", "unused (the counter is in state).", True,
         counter_bits=32, body="gcm_enc", shape="gcm"),
    Mode("gcm", "dec", "GCM dec", "GCM decryption: GHASH of the input and CTR (32-bit "
         "counter)", True, "enc", "counter", "unused (the counter is in state).", True,
         counter_bits=32, body="gcm_dec", shape="gcm"),
    # XTS (IEEE 1619): whole blocks under consecutive tweaks T * alpha^j; the
    # API (aes_gen_xts_*, ciphertext stealing, the tweak key) is runtime/xts.c.
    Mode("xts", "enc", "XTS enc", "XTS encryption of whole blocks: C = E(P ^ T) ^ T, T times "
         "alpha from block to block", True, "enc", "chain", _TWEAK, True),
    Mode("xts", "dec", "XTS dec", "XTS decryption of whole blocks: P = D(C ^ T) ^ T, T times "
         "alpha from block to block", True, "dec", "chain", _TWEAK, True),
)
MODE_BY_TAG = {m.tag: m for m in MODES}
# The public functions of aes_gen.h besides the modes' (MODES[].api): the shared
# library exports these, the modes' and the kernels, nothing else.
PUBLIC_FUNCTIONS = ("aes_gen_version", "aes_gen_setkey", "aes_gen_setkey_backend",
                    "aes_gen_key_backend", "aes_gen_key_constant_time",
                    "aes_gen_constant_time_required", "aes_gen_backends", "aes_gen_round_keys",
                    "aes_gen_wipe", "aes_gen_strerror", "aes_gen_backend_describe",
                    "aes_gen_mode_name", "aes_gen_key_mode_use", "aes_gen_stream_init",
                    "aes_gen_stream_init_mode", "aes_gen_key_size", "aes_gen_stream_size",
                    "aes_gen_gcm_key_size", "aes_gen_gcm_stream_size", "aes_gen_xts_key_size",
                    "aes_gen_cbc_encrypt_padded", "aes_gen_cbc_decrypt_padded",
                    "aes_gen_cbc_stream_init", "aes_gen_cbc_stream_update",
                    "aes_gen_cbc_stream_final", "aes_gen_expand_key",
                    "aes_gen_stream_update", "aes_gen_stream_final", "aes_gen_stream_resume",
                    "aes_gen_stream_position", "aes_gen_gcm_setkey",
                    "aes_gen_gcm_setkey_backend", "aes_gen_gcm_encrypt", "aes_gen_gcm_decrypt",
                    "aes_gen_gcm_wipe", "aes_gen_gcm_init", "aes_gen_gcm_aad", "aes_gen_gcm_update",
                    "aes_gen_gcm_final", "aes_gen_gcm_verify", "aes_gen_xts_setkey",
                    "aes_gen_xts_setkey_backend", "aes_gen_xts_encrypt", "aes_gen_xts_decrypt",
                    "aes_gen_xts_encrypt_sectors", "aes_gen_xts_decrypt_sectors",
                    "aes_gen_xts_wipe")
# The SP 800-38A modes the runtime's tail handling, the reference and the peers know.
FAMILIES = ("ecb", "cbc", "cfb", "ofb", "ctr", "gcm", "xts")


@dataclass(frozen=True)
class Backend:
    name: str             # the API's name (aes_gen_setkey_backend); need not be a C token
    symbol: str           # C token: kernel symbols aes_gen_<symbol>_..., AES_GEN_BACKEND_<symbol>
    what: str             # one line for the docs
    constant_time: bool   # no secret-dependent addresses or branches
    rank: int             # preference within its constant-time class: lower first
    isa: tuple = ()       # CPU features its kernels need (CPU_FEATURES): the generator
                          # refuses a kernel whose instructions need another
    emitter: str = ""     # its emitter in gen/targets.py EMITTERS ("" for an alias)
    key_format: str = "fips"  # expanded-key layout its kernels take (KEY_FORMATS)
    default_widths: tuple = (1,)  # parallel-mode widths without a request (measured)
    arch: str = ""        # key of ARCHES for hosts that can build it; "" = every host
    aes_bytes: int = 0    # vector bytes per AES instruction (16, 32, 64); 0: no AES instructions
    serial_modes: bool = True  # emits the serial modes; if not, a key takes them from the
                               # best backend that has them with the same key format
    params: tuple = ()    # (name, value) pairs for its emitter
    alias_of: str = ""    # a name for another backend's kernels (the generator's choice)
    family: str = ""      # an alias whose request brings this backend in
    compile_options: tuple = ()  # for its generated sources (CMake list items)
    mode_isa: tuple = ()  # (family, features) pairs: what that family's kernels need
    needs_files: tuple = ()  # generated/ files its kernels need beside their own (tables)
                          # beyond isa (GCM's carry-less multiplier)
    family_widths: tuple = ()  # (family, widths) pairs: a family's defaults where they
                               # differ from default_widths (measured)

    def default_widths_for(self, mode):
        """The widths a mode's kernels get without a request."""
        return dict(self.family_widths).get(mode.sp800_38a, self.default_widths)

    def isa_for(self, mode):
        """What this backend's kernels of mode may need: isa and the family's extra."""
        extra = dict(self.mode_isa).get(mode.sp800_38a, ())
        return tuple(f for f in CPU_FEATURES if f in self.isa or f in extra)


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
            ("aesni", "avx", "vaes", "avx512f", "avx512bw", "avx512vl"), "vaes",
            default_widths=(1, 2, 3, 4, 8, 16, 32), arch="x86_64", aes_bytes=64, serial_modes=False,
            # Widths 2 and 3 run on xmm (ECB and CTR reload each round key
            # into one register, the others hold them: skeletons.keys_reloaded):
            # a message of 32 or 48 bytes (and a group's last 2 or 3 blocks)
            # otherwise went block by block through width 1.  Independent 32-
            # and 48-byte ECB calls on Zen 5: 0.162 -> 0.143 and 0.171 -> 0.108
            # ns/B; their keys as memory operands measured 0.162 (width 1 keeps
            # them there: 16 bytes, 0.22 against 0.26 with registers).  GCM and
            # XTS keep their widths (family_widths).
            # XTS at 32 blocks (a tweak register per block register, gen/x86/
            # xts.py): AES-192/256 reload a few round keys per group and the
            # tweaks step by a dword rotation; on Zen 5 at 64 KiB it ran
            # 0.95-0.99x the 16-block kernel's time (AES-128 and AES-192;
            # AES-256 the same).  On Zen 4, with the steps spread among the
            # rounds, 32 blocks measured no faster: `make tune` measures it
            # per machine.
            mode_isa=(("gcm", ("pclmul", "vpclmulqdq")), ("xts", ("pclmul", "vpclmulqdq"))),
            family_widths=(("gcm", (1, 4, 8, 16, 32)), ("xts", (1, 4, 8, 16, 32)))),
    Backend("vaes256", "vaes256", "ymm, 2 blocks per register; parallel modes", True, 1,
            ("aesni", "avx", "avx2", "vaes"), "vaes", default_widths=(1, 2, 4, 8, 16), arch="x86_64",
            aes_bytes=32, serial_modes=False,
            mode_isa=(("gcm", ("pclmul", "vpclmulqdq")), ("xts", ("pclmul", "vpclmulqdq"))),
            # XTS at 16 blocks has no room for a tweak register per block
            # register; 8 blocks with them measured 1.28x faster on Zen 4.
            family_widths=(("xts", (1, 2, 4, 8)),)),
    Backend("aesni", "aesni", "xmm blocks, .byte-encoded aesenc/aesdec", True, 3,
            ("sse2", "ssse3", "aesni"), "aesni", default_widths=(1, 2, 4, 8, 12), arch="x86_64",
            aes_bytes=16, mode_isa=(("gcm", ("pclmul",)), ("xts", ("pclmul",))),
            # 12 blocks hide more of the AES latency (4 cycles, 2 a cycle on
            # Zen 1-4) than 8: CTR and CBC decryption 7-8% faster on Zen 1.
            # XTS: 6 blocks with a tweak register each measured 1.3x faster
            # than 8 without on Zen 4; GCM holds 7 blocks with SSE, 6 measured
            # faster than 4 on Zen 1.
            family_widths=(("xts", (1, 2, 4, 6)), ("gcm", (1, 2, 4, 6)))),
    Backend("aesni-avx", "aesni_avx", "xmm blocks, VEX-encoded (AVX): three-operand forms, "
            "so GCM holds 8 blocks in 16 registers", True, 2, ("aesni", "avx"), "aesni",
            default_widths=(1, 2, 4, 8, 12), arch="x86_64", aes_bytes=16,
            mode_isa=(("gcm", ("pclmul",)), ("xts", ("pclmul",))),
            # As aesni; GCM at 8 blocks (its widest): 1.2x faster than aesni's 4 on Zen 1.
            family_widths=(("xts", (1, 2, 4, 6)), ("gcm", (1, 2, 4, 8)))),
    Backend("vpaes512", "vpaes512", "vector-permutation AES on zmm, 4 blocks per register; "
            "parallel modes", True, 4, ("avx", "avx512f", "avx512bw", "avx512vl"), "vpaes",
            key_format="vpaes", default_widths=(1, 4, 8, 16), arch="x86_64", serial_modes=False),
    Backend("vpaes256", "vpaes256", "vector-permutation AES on ymm, 2 blocks per register; "
            "parallel modes", True, 5, ("avx", "avx2"), "vpaes", key_format="vpaes",
            default_widths=(1, 2, 4), arch="x86_64", serial_modes=False),
    Backend("vpaes", "vpaes", "vector-permutation AES on xmm (SSSE3)", True, 6,
            ("sse2", "ssse3"), "vpaes", key_format="vpaes", default_widths=(1, 2),
            arch="x86_64"),
    Backend("ttable", "ttable", "x86-64 T-table assembly: the measured best of the four "
            "ttable-k* variants", False, 0, alias_of=TTABLE_DEFAULT),
    *(Backend(f"ttable-k{kl}t{t}", f"ttable_k{kl}t{t}",
              f"x86-64 T-table assembly, {kl}-bit key loads, {1 + t} index registers", False,
              1, (), "ttable", default_widths=(1, 2) if t == 0 else (1,), arch="x86_64",
              params=(("key_loads", kl), ("temps", t)), family="ttable",
              needs_files=("tables.c", "tables.h"))
      for kl in (32, 64) for t in (0, 2)),
    Backend("portable", "portable", "fully unrolled T-table C", False, 1, (), "portable",
            default_widths=(1, 2, 4),
            needs_files=("portable/portable.h", "kernels.h", "tables.c", "tables.h")),
    Backend("tilegx-emu", "tilegx_emu", "TILE-Gx C (tblidx, ld4u) on an emulation of its "
            "intrinsics", False, 2, (), "tilegx", key_format="openssl",
            default_widths=(1, 2), needs_files=("kernels.h", "tilegx/aes_tilegx_core.h"),
            compile_options=("-include", "${PROJECT_SOURCE_DIR}/runtime/tilegx/tilegx_emu.h",
                             "-DAES_GEN_TILEGX_TRAP")),
)
# Preference order: constant-time backends first, each class by rank.  The
# runtime's backend ids follow this order.
BACKENDS = {b.name: b for b in sorted(_BACKENDS, key=lambda b: (not b.constant_time, b.rank))}
DEFAULT_BACKENDS = ("vaes512", "vaes256", "aesni-avx", "aesni", "vpaes512", "vpaes256", "vpaes",
                    "ttable", "portable", "tilegx-emu")
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
    def backend_symbol(self):
        return BACKENDS[self.backend].symbol

    @property
    def isa(self):
        """What the kernel may need: its backend's features and its family's extra ones."""
        return BACKENDS[self.backend].isa_for(self.mode)

    @property
    def symbol(self):
        return f"aes_gen_{self.backend_symbol}_{self.mode.tag}_k{self.key_bits}_w{self.width}"


class VariantError(ValueError):
    """A request or declaration the generator cannot honour; the message names
    the offending value."""


def check_unique(values, what):
    seen = set()
    for value in values:
        if value in seen:
            raise VariantError(f"{what}: {value} is listed twice")
        seen.add(value)


def validate_declarations(modes=MODES, backends=BACKENDS):
    """The declarations themselves: unique tags, known families, shapes, CPU
    features and key formats, consistent properties."""
    check_unique([m.tag for m in modes], "MODES")
    for m in modes:
        if m.sp800_38a not in FAMILIES:
            raise VariantError(f"mode {m.tag}: family '{m.sp800_38a}' is not one of "
                               f"{', '.join(FAMILIES)} (set family= for a variant)")
        if m.shape not in SHAPES:
            raise VariantError(f"mode {m.tag}: shape '{m.shape}' is not declared "
                               f"(SHAPES has {', '.join(SHAPES)})")
        if (m.iv == "counter") != (m.counter_bits > 0) or m.counter_bits % 8 or \
                m.counter_bits > 128:
            raise VariantError(f"mode {m.tag}: a counter mode needs counter_bits, a multiple "
                               "of 8 up to 128; other modes none")
        if m.whole_blocks != (m.tail == "none"):
            raise VariantError(f"mode {m.tag}: a mode that takes any length says what its "
                               "partial last block does (tail=)")
    for b in backends.values():
        unknown = [f for f in b.isa + sum((fs for _, fs in b.mode_isa), ()) if f not in CPU_FEATURES]
        if unknown:
            raise VariantError(f"backend {b.name}: CPU feature {unknown[0]} is not one of "
                               f"{', '.join(CPU_FEATURES)} (add it to CPU_FEATURES and to "
                               "runtime/cpu.c's detection)")
        families = [fam for fam, _ in b.mode_isa if fam not in FAMILIES]
        if families:
            raise VariantError(f"backend {b.name}: mode_isa names family '{families[0]}', not one "
                               f"of {', '.join(FAMILIES)}")
        if b.key_format not in KEY_FORMATS:
            raise VariantError(f"backend {b.name}: key format {b.key_format} is not one of "
                               f"{', '.join(KEY_FORMATS)}")
        if bool(b.emitter) == bool(b.alias_of):
            raise VariantError(f"backend {b.name}: names an emitter or another backend "
                               "(alias_of), not both")
        if b.alias_of and b.alias_of not in backends:
            raise VariantError(f"backend {b.name}: alias of unknown backend {b.alias_of}")
        if b.arch and b.arch not in ARCHES:
            raise VariantError(f"backend {b.name}: architecture {b.arch} is not in ARCHES")
        for family, widths in (("", b.default_widths),) + b.family_widths:
            if 1 not in widths:
                raise VariantError(f"backend {b.name}: default widths{' of ' + family if family else ''}"
                                   " need 1")
            if family and family not in FAMILIES:
                raise VariantError(f"backend {b.name}: family_widths names unknown family {family}")
