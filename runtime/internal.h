/*
 * Runtime internals shared by the runtime, the tests and the bench: CPU
 * features, the kernel registry built from generated/kernels.inc, the backend
 * table and the mode drivers.  Not installed.
 */
#ifndef AES_GEN_INTERNAL_H
#define AES_GEN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "aes_gen.h"
#include "kernels.h"

/* CPU features (cpu.c); the generated cpu_features column ORs these. */
enum {
    AES_GEN_CPU_SSE2 = 1u << 0,
    AES_GEN_CPU_SSSE3 = 1u << 1,
    AES_GEN_CPU_AESNI = 1u << 2,
    AES_GEN_CPU_PCLMUL = 1u << 3,
    AES_GEN_CPU_AVX = 1u << 4,
    AES_GEN_CPU_AVX2 = 1u << 5,
    AES_GEN_CPU_VAES = 1u << 6,
    AES_GEN_CPU_VPCLMULQDQ = 1u << 7,
    AES_GEN_CPU_AVX512F = 1u << 8,
    AES_GEN_CPU_AVX512BW = 1u << 9,
    AES_GEN_CPU_AVX512VL = 1u << 10,
};
uint32_t aes_gen_cpu_features(void);
/* "aesni avx2 ..." for the features in mask, into buf. */
const char *aes_gen_cpu_feature_names(uint32_t mask, char *buf, size_t size);

/* Mode and direction, in the order of gen/variants.py MODES. */
enum aes_gen_mode_dir {
    AES_GEN_MD_ecb_enc, AES_GEN_MD_ecb_dec, AES_GEN_MD_cbc_enc, AES_GEN_MD_cbc_dec,
    AES_GEN_MD_cfb_enc, AES_GEN_MD_cfb_dec, AES_GEN_MD_ofb_enc, AES_GEN_MD_ctr_enc,
};
extern const char *const aes_gen_mode_dir_names[AES_GEN_MODE_DIRS];

struct aes_gen_kernel_info {
    const char *symbol;
    const char *backend;
    enum aes_gen_mode_dir mode_dir;
    unsigned key_bits;
    unsigned width;
    uint32_t cpu;  /* features the kernel needs */
    aes_gen_kernel_fn *fn;
};
/* Every generated kernel, in kernels.inc order (widest first within a group). */
extern const struct aes_gen_kernel_info aes_gen_registry[];
extern const size_t aes_gen_registry_count;

/* Mode properties (gen/variants.py MODES says the same for the generator). */
/* ECB and CBC decryption take the equivalent-inverse schedule. */
static inline int aes_gen_uses_dec_schedule(enum aes_gen_mode_dir md)
{
    return md == AES_GEN_MD_ecb_dec || md == AES_GEN_MD_cbc_dec;
}

/* Each block needs the previous one's output: width 1 only. */
static inline int aes_gen_mode_is_serial(enum aes_gen_mode_dir md)
{
    return md == AES_GEN_MD_cbc_enc || md == AES_GEN_MD_cfb_enc || md == AES_GEN_MD_ofb_enc;
}

/* Every mode but ECB takes an IV or counter. */
static inline int aes_gen_mode_uses_iv(enum aes_gen_mode_dir md)
{
    return md != AES_GEN_MD_ecb_enc && md != AES_GEN_MD_ecb_dec;
}

/* What a backend needs of the CPU is not listed here: every kernel carries
 * its own features (generated/kernels.inc), and aes_gen_backend_usable checks
 * them. */
struct aes_gen_backend_info {
    const char *name;
    int constant_time;
};
/* All backends the API knows, fastest first. */
extern const struct aes_gen_backend_info aes_gen_backend_table[];
extern const size_t aes_gen_backend_count;
/* Index of name in the backend table, or -1. */
int aes_gen_backend_index(const char *name);
/* 1 if this CPU runs the backend and the build has all its modes for key_bits
 * (key_bits 0: for any key size). */
int aes_gen_backend_usable(size_t backend, unsigned key_bits);
/* Registry range of one (backend, mode_dir, key_bits): returns the count and
 * sets *first, 0 if there is none. */
size_t aes_gen_kernel_range(size_t backend, enum aes_gen_mode_dir md, unsigned key_bits,
                            size_t *first);

/* The same range, starting at the width a `make tune` table chose, if any. */
size_t aes_gen_kernel_range_tuned(size_t backend, enum aes_gen_mode_dir md, unsigned key_bits,
                                  size_t *first);
/* 1 if this library was built with a tuning table. */
int aes_gen_tuning_active(void);

/* key_schedule.c: FIPS-197 expansion and the equivalent-inverse schedule. */
void aes_gen_expand_key(const uint8_t *key, size_t key_len, uint8_t enc[240],
                        uint8_t dec[240]);

/* api.c: one mode call with the public functions' checks and semantics
 * (iv is ignored for ECB). */
int aes_gen_crypt(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv, void *dst,
                  const void *src, size_t len);

/* modes.c: whole blocks through the key's kernels, widest first. */
void aes_gen_run_blocks(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv,
                        uint8_t *dst, const uint8_t *src, size_t nblocks);
/* The final partial block (1..15 bytes) of CFB, OFB or CTR. */
void aes_gen_run_tail(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t iv[16],
                      uint8_t *dst, const uint8_t *src, size_t len);

/* Zeroing that the compiler may not drop. */
void aes_gen_secure_zero(void *p, size_t n);

#endif
