/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the test suites: the mode table, the reference, RNG. */
#ifndef AES_GEN_TEST_COMMON_H
#define AES_GEN_TEST_COMMON_H

/* 1, or n > 1 on a sanitized build: the long loops of the differential tests
 * take every nth case there.  The sanitizers instrument the C code (the
 * runtime, the tests), which the thinned loops still run through every
 * path; the kernels, assembly, are checked case by case on the plain build. */
#ifndef AES_GEN_TEST_THIN
#define AES_GEN_TEST_THIN 1
#endif

#include <stddef.h>
#include <stdint.h>

#include <check.h>

#include "internal.h"
#include "ref/ref_aes.h"

typedef int api_fn(const aes_gen_key *k, uint8_t *iv, void *dst, const void *src, size_t len);

/* One per generated mode (generated/modes.inc). */
struct mode_case {
    enum aes_gen_mode_dir md;
    const char *name;
    enum ref_mode ref;
    int decrypt;
    int whole_blocks; /* ECB/CBC: len must be a multiple of 16 */
    unsigned counter_bits; /* CTR: the counting bits of the block */
    int block;        /* the block modes' shape: what the API's mode calls run */
};
extern const struct mode_case mode_cases[AES_GEN_MODE_COUNT];
/* The mode's public function behind the uniform signature (NULL for a mode
 * without one). */
api_fn *mode_api(const struct mode_case *mc);
/* The mode through its public function, or aes_gen_crypt if it has none. */
int mode_call(const struct mode_case *mc, const aes_gen_key *k, uint8_t *iv, void *dst,
              const void *src, size_t len);

/* Deterministic generator (splitmix64) so failures reproduce. */
uint64_t rng_next(uint64_t *state);
void rng_fill(uint64_t *state, void *buf, size_t n);
/* Seed from AES_GEN_TEST_SEED, else the fixed default; printed once. */
uint64_t test_seed(void);
/* Seed from AES_GEN_TEST_SEED, else a new random one per process (the same
 * for every call): the caller prints it so that a failure reproduces. */
uint64_t test_seed_random(void);

/* A CAVP .rsp line "name = hex": its bytes into out (the count), or
 * (size_t)-1 for a line of another name. */
size_t cavp_field(const char *line, const char *name, uint8_t *out, size_t cap);
/* "2b7e15..." -> bytes; returns the count. */
size_t hex_to_bytes(const char *hex, uint8_t *out, size_t cap);
void hexdump_diff(const char *what, const uint8_t *want, const uint8_t *got, size_t n);

/* The key lengths (16, 24, 32) this build generated, ascending; returns the count.
 * Every build has at least one. */
size_t built_key_lens(size_t out[3]);

/* Backends usable on this CPU for key_bits (0: any), in table order. */
size_t usable_backends(size_t *out, size_t cap, unsigned key_bits);
/* Widest kernel width a backend has for any mode. */
unsigned backend_max_width(size_t backend);
/* 1 if this host and CPU run the kernel; otherwise prints why it is skipped. */
int kernel_runs_here(const struct aes_gen_kernel_info *ki);

/* Reference run with the API semantics for one mode case. */
void ref_run(const struct mode_case *mc, const uint8_t *key, size_t key_len, uint8_t iv[16],
             uint8_t *dst, const uint8_t *src, size_t len);

/* One GCM differential case for the fuzzers: the one-shot calls against
 * tests/ref (output, tag, bytes around dst), the stream API split at
 * aad_cut and data_cut, decryption, and a tag forged at byte forge (EAUTH,
 * dst zeroed).  Bad key, IV or tag lengths must give their error and change
 * nothing.  Returns NULL, or what went wrong (in why). */
struct gcm_case {
    const char *backend;
    const uint8_t *key, *iv, *aad, *src;
    size_t key_len, iv_len, aad_len, len, tag_len;
    size_t dst_off, aad_cut, data_cut, forge;
    int in_place;
};
const char *gcm_check(const struct gcm_case *c, char *why, size_t size);

/* Run a suite, print Check's summary; the process exit status. */
int run_suite(Suite *s);

#endif
