/* SPDX-License-Identifier: Apache-2.0 */
/* aes-gen-bench internals: timing, clock estimates, hardware bounds, peers. */
#ifndef AES_GEN_BENCH_H
#define AES_GEN_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef void bench_run_fn(void *ctx, uint8_t *buf, size_t len);

struct bench_job {
    bench_run_fn *fn;
    void *ctx;
    double ns_per_byte; /* result: the median */
    double min_ns, max_ns; /* and the spread of the samples */
};

/* The most timings per figure bench_jobs keeps (--samples). */
enum { BENCH_MAX_SAMPLES = 64 };

double bench_now_ns(void);
/* Times n jobs on the same buffer: each is warmed up and sized to about 2 ms a
 * sample, then the samples are taken round-robin (job 0, 1, ..., n-1, 0, ...)
 * so that clock drift on a shared machine hits every job alike; each job's
 * figure is the median of its samples. */
void bench_jobs(struct bench_job *jobs, int n, uint8_t *buf, size_t len, int samples);
/* The same with the calls going round nbuf message buffers of len bytes, each
 * BENCH_SLOT(len) from the last from buf on: with nbuf 1 every call waits for
 * the output of the one before it, with more a call's input is one written
 * nbuf calls ago (independent messages, as a server's). */
#define BENCH_SLOT(len) (((len) + 63) & ~(size_t)63)
/* The message buffers' offset past a 64-byte boundary (--misalign), and
 * such a buffer of `bytes` zeros (GCM's ciphertext for decryption is one
 * too); *base is what to free.  NULL when out of memory. */
extern size_t bench_misalign;
uint8_t *bench_message_alloc(size_t bytes, uint8_t **base);
void bench_jobs_spread(struct bench_job *jobs, int n, uint8_t *buf, size_t len, int samples,
                       int nbuf);

struct bench_clock {
    double core_ghz; /* estimated from a dependent-add loop (1 add per cycle) */
    double core_min, core_max; /* the spread of the estimates */
    double tsc_ghz;  /* rdtsc against CLOCK_MONOTONIC; 0 where there is no TSC */
};
void bench_measure_clock(struct bench_clock *c);
/* Warns on stderr when the clock estimates disagree (more than 10% apart, or
 * the clock moved that much between before and after): cycles/B are then
 * rough, and only same-run ratios mean something. */
void bench_check_clock(const struct bench_clock *before, const struct bench_clock *after);

/* AES instruction latency and reciprocal throughput, in core cycles, for one
 * vector length (xmm, ymm, zmm), measured with register-pinned asm loops. */
enum { BENCH_XMM, BENCH_YMM, BENCH_ZMM, BENCH_VLENS };
struct bench_bounds {
    int have[BENCH_VLENS];
    double latency[BENCH_VLENS];
    double recip_tput[BENCH_VLENS];
};
void bench_measure_bounds(struct bench_bounds *b, double core_ghz);

/* A job that runs `insns` AES instructions of one vector length as a single
 * dependency chain (serial) or spread over 12 registers (parallel), for timing
 * a row's hardware bound side by side with the row.  -1 if the CPU lacks it. */
struct bench_aes_run {
    void (*loop)(long);
    long iters;
    double scale; /* insns asked for / insns run: multiplies the job's time */
};
int bench_aes_job(int vlen, int serial, double insns, struct bench_aes_run *run,
                  struct bench_job *job);

/* Peers: OpenSSL EVP, libgcrypt, nettle (whichever CMake found). */
enum { PEER_OPENSSL, PEER_GCRYPT, PEER_NETTLE, PEER_IPSECMB, PEER_COUNT };
extern const char *const peer_names[PEER_COUNT];
int peer_built(int peer);
/* libgcrypt: turn off its hardware AES paths; before any other peer call. */
void peer_gcrypt_disable_hw(int keep_ssse3);
/* --setkey: a peer's key setup (both schedules) from the buffer's first
 * bytes: 0, or -1 where the build lacks the peer. */
enum { SETKEY_PEER_OPENSSL, SETKEY_PEER_GCRYPT, SETKEY_PEER_NETTLE, SETKEY_PEER_IPSECMB,
       SETKEY_PEER_COUNT };
extern const char *const setkey_peer_names[SETKEY_PEER_COUNT];
int peer_open_setkey(int peer, unsigned key_bits, struct bench_job *job);
/* Intel ipsec-mb's manager (an IMB_MGR *), set up by init_mb_mgr_auto on
 * first use (bench/gcm.c); NULL without ipsec-mb. */
void *bench_ipsecmb_mgr(void);
/* Sets up job for (mode, key size): 0, or -1 where the peer lacks the mode. */
int peer_open(int peer, enum aes_gen_mode_dir md, unsigned key_bits, struct bench_job *job);
void peer_close(int peer, struct bench_job *job);

/* --gcm (bench/gcm.c): one message per call, ours and the peers found. */
enum { GCM_PEER_OPENSSL, GCM_PEER_GCRYPT, GCM_PEER_NETTLE, GCM_PEER_IPSECMB, GCM_PEER_COUNT };
extern const char *const gcm_peer_names[GCM_PEER_COUNT];
/* What every job of one (key size, direction, size) shares: the message
 * decryption takes, its IV and tag (encryption makes its own, new IVs). */
struct bench_gcm_message {
    uint8_t iv[12], tag[16];
    uint8_t *cipher, *cipher_base; /* bench_message_alloc's buffer, its base */
    size_t len;
    int decrypt;
};
struct bench_gcm_set {
    struct bench_gcm_message message;
    struct bench_job jobs[2 + GCM_PEER_COUNT]; /* ours, the peers, a slot for the bound */
    int n, peer_job[GCM_PEER_COUNT];           /* peer_job: its index in jobs, or -1 */
};
/* Sets up ours (backend NULL: the default) and, with compare, the peers; each
 * encrypts one message first and must agree with our tag.  The set must stay
 * where it is until bench_gcm_close.  0, or -1 with a message. */
int bench_gcm_jobs(unsigned bits, int decrypt, size_t len, const char *backend, int compare,
                   struct bench_gcm_set *set);
void bench_gcm_close(struct bench_gcm_set *set);
const aes_gen_gcm_key *bench_gcm_key(const struct bench_gcm_set *set); /* ours */
/* The code path init_mb_mgr_auto chose ("avx512", ...), once a job is set up. */
const char *bench_ipsecmb_arch(void);
void bench_gcrypt_init(void);

/* The carry-less-multiply bound of a GCM row: per vector of blocks, `rounds`
 * AES instructions and `products` (3 or 4) carry-less multiplications, all
 * independent, for `vectors` vectors; -1 where the CPU lacks them. */
enum { GCM_PRODUCTS = 3 }; /* the kernels' per block: Karatsuba */
int bench_gcm_bound_job(int vlen, unsigned rounds, unsigned products, double vectors,
                        struct bench_aes_run *run, struct bench_job *job);

/* --xts (bench/xts.c): one data unit per call, in place, ours and the peers. */
enum { XTS_PEER_OPENSSL, XTS_PEER_GCRYPT, XTS_PEER_NETTLE, XTS_PEER_COUNT };
extern const char *const xts_peer_names[XTS_PEER_COUNT];
struct bench_xts_set {
    struct bench_job jobs[2 + XTS_PEER_COUNT]; /* ours, the peers, a slot for the bound */
    int n, peer_job[XTS_PEER_COUNT];           /* peer_job: its index in jobs, or -1 */
};
/* Sets up ours (backend NULL: the default) and, with compare, the peers that
 * have the key size, and checks that they agree.  0, or -1 with a message. */
int bench_xts_jobs(unsigned bits, int decrypt, size_t len, const char *backend, int compare,
                   struct bench_xts_set *set);
void bench_xts_close(struct bench_xts_set *set);
const aes_gen_xts_key *bench_xts_key(const struct bench_xts_set *set); /* ours */

#endif
