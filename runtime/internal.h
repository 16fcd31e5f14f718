/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime internals shared by the runtime, the tests and the bench: CPU
 * features, the modes and backends (generated/modes.inc, backends.inc), the
 * kernel registry (kernels.inc, groups.inc), key formats and the mode
 * drivers.  Not installed.
 */
#ifndef AES_GEN_INTERNAL_H
#define AES_GEN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "aes_gen.h"
#include "kernels.h"

/* CPU features (cpu.c detects them), in the order of gen/variants.py
 * CPU_FEATURES: AES_GEN_CPU_<NAME> is bit AES_GEN_CPU_BIT_<NAME>; the
 * generated cpu columns OR these. */
enum aes_gen_cpu_bit {
#define AES_GEN_CPU_FEATURE(NAME, name) AES_GEN_CPU_BIT_##NAME,
#include "backends.inc"
    AES_GEN_CPU_FEATURE_COUNT
};
enum {
#define AES_GEN_CPU_FEATURE(NAME, name) AES_GEN_CPU_##NAME = 1u << AES_GEN_CPU_BIT_##NAME,
#include "backends.inc"
};
/* Zeroes every vector register and the caller-saved general-purpose ones
 * (wipe.c): the end of calls that handled key material in C. */
void aes_gen_clear_registers(void);
uint32_t aes_gen_cpu_features(void);
/* "aesni avx2 ..." for the features in mask, into buf. */
const char *aes_gen_cpu_feature_names(uint32_t mask, char *buf, size_t size);

/* Modes and directions, in the order of gen/variants.py MODES. */
enum aes_gen_mode_dir {
#define AES_GEN_MODE(md, ...) AES_GEN_MD_##md,
#include "modes.inc"
    AES_GEN_MODE_COUNT
};

/* Kernel shapes (gen/variants.py SHAPES): the function types of kernels.h. */
enum aes_gen_shape {
#define AES_GEN_SHAPE(shape, type, args) AES_GEN_SHAPE_##shape,
#include "modes.inc"
    AES_GEN_SHAPE_COUNT
};
/* A kernel's function, under the member of its shape. */
union aes_gen_kernel_fns {
#define AES_GEN_SHAPE(shape, type, args) type *shape;
#include "modes.inc"
};
/* Every parameter of every shape, by name: a kernel of any shape is called
 * with these (aes_gen_call_kernel); those its shape lacks are ignored. */
struct aes_gen_kernel_args {
#define AES_GEN_PARAM(name, declaration) declaration;
#include "modes.inc"
};

/* AES-128, -192, -256 as 0, 1, 2 (-1 for any other bit count): the one index
 * of every per-key-size table; a constant expression for a constant. */
#define AES_GEN_KEY_SIZES 3
#define AES_GEN_KEY_INDEX(bits) ((bits) == 128 ? 0 : (bits) == 192 ? 1 : (bits) == 256 ? 2 : -1)

/* The standard mode a mode belongs to (what peers and the reference implement). */
enum aes_gen_family {
#define AES_GEN_FAMILY(F) AES_GEN_FAMILY_##F,
#include "modes.inc"
};

/* What a mode's kernels do with iv, and with a partial last block. */
enum { AES_GEN_IV_NONE, AES_GEN_IV_CHAIN, AES_GEN_IV_COUNTER };
enum { AES_GEN_TAIL_NONE, AES_GEN_TAIL_OUTPUT, AES_GEN_TAIL_INPUT, AES_GEN_TAIL_KEYSTREAM,
       AES_GEN_TAIL_COUNTER };

struct aes_gen_mode_info {
    const char *name;   /* "cbc_dec" */
    const char *label;  /* "CBC dec" */
    enum aes_gen_family family;
    unsigned decrypt : 1, parallel : 1, dec_schedule : 1, whole_blocks : 1;
    unsigned iv, tail, counter_bits;
    enum aes_gen_shape shape;
};
extern const struct aes_gen_mode_info aes_gen_modes[AES_GEN_MODE_COUNT];

/* ECB and CBC decryption take the equivalent-inverse schedule. */
static inline int aes_gen_uses_dec_schedule(enum aes_gen_mode_dir md)
{
    return aes_gen_modes[md].dec_schedule;
}

/* Each block needs the previous one's output: width 1 only. */
static inline int aes_gen_mode_is_serial(enum aes_gen_mode_dir md)
{
    return !aes_gen_modes[md].parallel;
}

/* The block modes' shape (rk, iv, dst, src, nblocks): what the drivers,
 * streams and public block-mode functions run; the AEAD and other shapes
 * have APIs of their own. */
static inline int aes_gen_mode_is_block(enum aes_gen_mode_dir md)
{
    return aes_gen_modes[md].shape == AES_GEN_SHAPE_block;
}

/* Whether a key may go without kernels for md: GCM then runs on the CTR
 * kernels and the runtime's GHASH, XTS on the ECB kernels and the runtime's
 * tweaks; every other mode needs its own. */
static inline int aes_gen_mode_optional(enum aes_gen_mode_dir md)
{
    return aes_gen_modes[md].family == AES_GEN_FAMILY_GCM ||
           aes_gen_modes[md].family == AES_GEN_FAMILY_XTS;
}

/* The mode whose kernels run md for a key without md's own. */
static inline enum aes_gen_mode_dir aes_gen_mode_via(enum aes_gen_mode_dir md)
{
    if (aes_gen_modes[md].family == AES_GEN_FAMILY_GCM)
        return AES_GEN_MD_ctr_enc;
    return aes_gen_modes[md].decrypt ? AES_GEN_MD_ecb_dec : AES_GEN_MD_ecb_enc;
}

static inline int aes_gen_mode_uses_iv(enum aes_gen_mode_dir md)
{
    return aes_gen_modes[md].iv != AES_GEN_IV_NONE;
}

/* Expanded-key layouts (gen/variants.py KEY_FORMATS; key_schedule.c expands
 * each); a backend names the one its kernels take. */
enum aes_gen_key_format {
#define AES_GEN_KEY_FORMAT(name) AES_GEN_KF_##name,
#include "backends.inc"
    AES_GEN_KEY_FORMAT_COUNT
};
/* Every key's setup writes (zeros where its schedules leave room) the first
 * AES_GEN_FORMAT_BYTES of its schedule area, the largest format's size
 * (openssl's two 256-byte halves), so a key set over an earlier one of any
 * size or format leaves none of its words.  The generated key setup writes
 * the fips format's AES_GEN_SETUP_BYTES (gen/x86/keysetup.py ZERO_TO: what
 * vendored callers give it); setkey zeroes the rest. */
#define AES_GEN_FORMAT_BYTES 512
#define AES_GEN_SETUP_BYTES 496
/* Every format: the encryption round keys at ks + 0, the decryption round
 * keys at ks + AES_GEN_DEC_KEYS (openssl's AES_KEY ends its first half with
 * the round count), so a public function's kernel gets its round keys with
 * no load: the start of its call is what independent short messages wait
 * for (a load of the offset made 16-byte AES-256 calls 15% slower). */
#define AES_GEN_DEC_KEYS 256
struct aes_gen_key_format_info {
    const char *name; /* as gen/variants.py KEY_FORMATS and kernels.h say it */
    /* Writes the expanded key into ks, whose first AES_GEN_FORMAT_BYTES the
     * caller has zeroed (the schedules leave room where a key size is short). */
    void (*expand)(const uint8_t *key, size_t key_len, uint8_t *ks);
};
extern const struct aes_gen_key_format_info aes_gen_key_formats[AES_GEN_KEY_FORMAT_COUNT];

/* Backends, in preference order: constant-time first, each class fastest first. */
enum aes_gen_backend_id {
#define AES_GEN_BACKEND(symbol, ...) AES_GEN_BACKEND_##symbol,
#include "backends.inc"
    AES_GEN_BACKEND_COUNT
};
struct aes_gen_backend_info {
    const char *name;
    const char *symbol; /* C token: kernel symbols, tuning tables */
    unsigned constant_time : 1, generated : 1, serial : 1;
    enum aes_gen_key_format key_format;
    unsigned aes_bytes; /* vector bytes per AES instruction; 0 if it uses none */
    uint32_t cpu;       /* features every kernel needs */
    const char *cpu_names; /* the same as text, "sse2 ssse3 aesni" */
};
extern const struct aes_gen_backend_info aes_gen_backend_table[AES_GEN_BACKEND_COUNT];
/* Index of name in the backend table, or -1. */
int aes_gen_backend_index(const char *name);

struct aes_gen_kernel_info {
    const char *symbol;
    enum aes_gen_backend_id backend;
    enum aes_gen_mode_dir mode_dir;
    enum aes_gen_shape shape;
    unsigned key_bits;
    unsigned width;
    unsigned width_mask;   /* width - 1 for a power of two, else UINT_MAX (the drivers divide) */
    uint32_t cpu;          /* features the kernel needs */
    unsigned built;        /* 0 where this host does not build the kernel's arch */
    union aes_gen_kernel_fns fn; /* fn.<shape>; NULL where not built */
};
/* Every generated kernel, in kernels.inc order (widest first within a group). */
/* The tables a public function reads on every call are hidden (the library
 * exports neither), so that position-independent code reaches them without
 * a load from the GOT. */
#define AES_GEN_HIDDEN __attribute__((visibility("hidden")))
extern AES_GEN_HIDDEN const struct aes_gen_kernel_info aes_gen_registry[];
extern const size_t aes_gen_registry_count;

/* Calls a built kernel with the arguments its shape takes from *a. */
static inline void aes_gen_call_kernel(const struct aes_gen_kernel_info *ki,
                                       const struct aes_gen_kernel_args *a)
{
#define AES_GEN_ARG(name) a->name
    switch (ki->shape) {
#define AES_GEN_SHAPE(shape, type, args) \
    case AES_GEN_SHAPE_##shape: \
        ki->fn.shape args; \
        break;
#include "modes.inc"
    default:
        break;
    }
#undef AES_GEN_ARG
}

static inline int aes_gen_key_index(unsigned key_bits)
{
    return AES_GEN_KEY_INDEX(key_bits);
}
/* AES's rounds for a key of key_len bytes (16, 24, 32: 10, 12, 14). */
static inline unsigned aes_gen_rounds(size_t key_len)
{
    return (unsigned)(key_len / 4 + 6);
}
/* Registry range of one (backend, mode_dir, key_bits), from groups.inc:
 * returns the count and sets *first (0 if there is none). */
size_t aes_gen_kernel_range(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                            unsigned key_bits, size_t *first);
/* 1 if some backend was generated for key_bits. */
int aes_gen_key_size_built(unsigned key_bits);
/* 1 if this library was built with a `make tune` table. */
int aes_gen_tuning_active(void);

/* What keys run, per backend, key size and mode: computed once from the
 * registry, the CPU's features and the tuning table (registry.c). */
struct aes_gen_mode_plan {
    int16_t source;         /* the backend whose kernels run the mode; -1: none here */
    uint16_t first, count;  /* their registry range, from the tuned width if any */
    uint16_t picks;         /* the range's group in aes_gen_picks */
};
/* Short messages: for each group (backend, mode, key size) of the registry and
 * each n = 0..its widest width, the kernel n blocks start with and the blocks
 * it takes (the widest whose width is at most n: whole groups of it), so a
 * message of up to the widest width reaches its kernels with no search and no
 * division.  A range that starts at a narrower (tuned) width uses the same
 * table up to that width, which entry 0 holds. */
struct aes_gen_pick {
    aes_gen_kernel_fn *fn; /* the kernel's function: one load fewer on the call path */
    uint16_t kernel;       /* registry index */
    uint16_t blocks;       /* the blocks it takes: whole groups of its width */
    /* 16 n where this kernel takes all n blocks in one call, else 0; for
     * n = 0, 16 x the width the key's range starts at (the limit).  A call
     * compares the message length with entry 0's and then with entry
     * len / 16's (modes.c: one_call): a ragged length or one that needs a
     * second call matches neither. */
    uint32_t bytes;
};
extern AES_GEN_HIDDEN struct aes_gen_pick aes_gen_picks[]; /* filled once, with the plans */
/* A plan of every mode as a key holds it (aes_gen_key's private_kernels and
 * private_picks), so key setup copies it, and the key setup this CPU runs
 * for the backend's format and the key size: generated code (which clears
 * its registers), or NULL for the format's expand. */
struct aes_gen_key_plan {
    /* What the key holds from private_kernels to private_rounds, in its order
     * (registry.c checks): setkey copies it in one go. */
    uint16_t kernels[16][2];
    uint16_t picks[16];
    uint16_t rk_offset[2];
    uint16_t backend;
    uint16_t rounds;
    void (*setup)(const uint8_t *key, uint8_t *ks);
};
/* key_schedule.c: the generated key setup for a format and key size on a
 * CPU with the features `have`, or NULL. */
void (*aes_gen_generated_setup(enum aes_gen_key_format format, unsigned key_bits,
                               uint32_t have))(const uint8_t *key, uint8_t *ks);
struct aes_gen_plans {
    /* A key of this backend (aes_gen_setkey_backend): its own kernels, or for
     * a mode it has none of (vaes512's serial modes), the first usable
     * backend with its key format. */
    struct aes_gen_mode_plan mode[AES_GEN_BACKEND_COUNT][AES_GEN_KEY_SIZES][AES_GEN_MODE_COUNT];
    /* The key's backend runs here and every mode has a source; [.][KEY_SIZES]:
     * for some key size. */
    uint8_t usable[AES_GEN_BACKEND_COUNT][AES_GEN_KEY_SIZES + 1];
    /* aes_gen_setkey: the first usable backend (-1: none), and per mode what it
     * runs, a `make tune` table's backend where it shares the key format. */
    int16_t chosen[AES_GEN_KEY_SIZES];
    struct aes_gen_mode_plan chosen_mode[AES_GEN_KEY_SIZES][AES_GEN_MODE_COUNT];
    /* mode[b][ks] and chosen_mode[ks] as keys hold them. */
    struct aes_gen_key_plan key_plan[AES_GEN_BACKEND_COUNT][AES_GEN_KEY_SIZES];
    struct aes_gen_key_plan chosen_key_plan[AES_GEN_KEY_SIZES];
    /* The default must be constant-time (AES_GEN_REQUIRE_CONSTANT_TIME). */
    int require_ct;
    /* aes_gen_key_size_built, per key size. */
    uint8_t built[AES_GEN_KEY_SIZES];
};
/* The plans for this CPU and policy, computed once: after the first call a
 * load and a test (key setup is short enough for pthread_once's call to
 * show). */
extern struct aes_gen_plans aes_gen_plans_data;
extern int aes_gen_plans_ready;
void aes_gen_fill_plans_once(void);
static inline const struct aes_gen_plans *aes_gen_plans(void)
{
    if (__builtin_expect(!__atomic_load_n(&aes_gen_plans_ready, __ATOMIC_ACQUIRE), 0))
        aes_gen_fill_plans_once();
    return &aes_gen_plans_data;
}
/* The plans a CPU with the features `have` would get (the tests try every
 * subset of the features). */
void aes_gen_compute_plans(struct aes_gen_plans *plans, uint32_t have, int require_ct);
/* getenv, but NULL where the process runs with privileges it was given
 * (set-uid/set-gid: the caller's environment is not to be trusted). */
const char *aes_gen_secure_getenv(const char *name);
/* 1 if this CPU runs the backend and the build has all its modes for key_bits
 * (key_bits 0: for any key size). */
int aes_gen_backend_usable(enum aes_gen_backend_id backend, unsigned key_bits);

#define AES_GEN_KEY_MAGIC 0x41455347u /* "AESG": private_magic while a key is set */

static inline int aes_gen_key_is_set(const aes_gen_key *k)
{
    return k && k->private_magic == AES_GEN_KEY_MAGIC &&
           k->private_backend < AES_GEN_BACKEND_COUNT;
}

/* The round keys a mode's kernels take, in the key's backend format. */
static inline const uint8_t *aes_gen_schedule(const aes_gen_key *k, enum aes_gen_mode_dir md)
{
    return k->private_ks + (aes_gen_uses_dec_schedule(md) ? AES_GEN_DEC_KEYS : 0);
}

/* gcm.c: the GCM kernel a one-shot call of len bytes runs (NULL: none, the
 * key's CTR kernels and the C GHASH instead). */
const struct aes_gen_kernel_info *aes_gen_gcm_one_shot_kernel(const aes_gen_gcm_key *gk,
                                                              int decrypt, size_t len);

/* xts.c: the XTS block modes over the key's ECB kernels, for a key whose
 * backend has no XTS kernels (tw: the first block's tweak, then the next). */
void aes_gen_xts_blocks_ecb(const aes_gen_key *k, int decrypt, uint8_t tw[16], uint8_t *dst,
                            const uint8_t *src, size_t n);

/* modes.c: nblocks > 0 whole blocks through the key's kernels of md, which
 * it has (no checks: for the runtime's own calls). */
void aes_gen_run_blocks(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv,
                        uint8_t *dst, const uint8_t *src, size_t nblocks);

/* modes.c: one mode call with the public functions' checks and semantics
 * (iv is ignored by modes without one). */
int aes_gen_crypt(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv, void *dst,
                  const void *src, size_t len);

/* gcm.c: a stream from a given pre-counter block J0 (for the tests of the
 * counter's wrap, which no 12-byte IV reaches). */
int aes_gen_gcm_init_j0(aes_gen_gcm_stream *s, const aes_gen_gcm_key *gk, int direction,
                        const uint8_t j0[16]);

/* 8 bytes as a little-endian number, and back (the library is built for
 * little-endian hosts: x86-64, TILE-Gx). */
static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline void store_le64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* 8 bytes read as one 8-byte load, never merged with a neighbouring load
 * into a wider one (the empty asm takes the value from a register): where
 * the caller has just stored those 8 bytes, a wider load would not be
 * forwarded from that store and would wait until it retired. */
static inline uint64_t load_le64_alone(const uint8_t *p)
{
    uint64_t v = load_le64(p);
    __asm__("" : "+r"(v));
    return v;
}

/* lo and hi as 16 bytes in one store where the ISA has one: a kernel's
 * 16-byte load of them is forwarded from it, not stalled until two 8-byte
 * stores retire. */
static inline void store_le128(uint8_t *p, uint64_t lo, uint64_t hi)
{
#if defined(__x86_64__)
    _mm_storeu_si128((__m128i *)(void *)p, _mm_set_epi64x((long long)hi, (long long)lo));
#else
    store_le64(p, lo);
    store_le64(p + 8, hi);
#endif
}

/* Zeroing that the compiler may not drop (inline: a constant size becomes a
 * few stores).  memset, then a barrier that claims to read the memory: the
 * stores cannot be dropped as dead, and memset keeps its speed. */
static inline void aes_gen_secure_zero(void *p, size_t n)
{
#if defined(__GNUC__)
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile uint8_t *v = p;
    while (n--)
        *v++ = 0;
#endif
}

#endif
