/* aes-gen-bench internals: timing, clock estimates, hardware bounds, peers. */
#ifndef AES_GEN_BENCH_H
#define AES_GEN_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef void bench_run_fn(void *ctx, uint8_t *buf, size_t len);

double bench_now_ns(void);
/* Median ns per byte of `samples` timings (each about 2 ms of calls) after a
 * warm-up of the same length. */
double bench_ns_per_byte(bench_run_fn *fn, void *ctx, uint8_t *buf, size_t len, int samples);

struct bench_clock {
    double core_ghz; /* estimated from a dependent-add loop (1 add per cycle) */
    double tsc_ghz;  /* rdtsc against CLOCK_MONOTONIC; 0 where there is no TSC */
};
void bench_measure_clock(struct bench_clock *c);

/* AES instruction latency and reciprocal throughput, in core cycles, for one
 * vector length (xmm, ymm, zmm), measured with register-pinned asm loops. */
enum { BENCH_XMM, BENCH_YMM, BENCH_ZMM, BENCH_VLENS };
struct bench_bounds {
    int have[BENCH_VLENS];
    double latency[BENCH_VLENS];
    double recip_tput[BENCH_VLENS];
};
void bench_measure_bounds(struct bench_bounds *b, double core_ghz);

/* Peers: OpenSSL EVP, libgcrypt, nettle (whichever CMake found). */
enum { PEER_OPENSSL, PEER_GCRYPT, PEER_NETTLE, PEER_COUNT };
extern const char *const peer_names[PEER_COUNT];
int peer_built(int peer);
/* libgcrypt: turn off its hardware AES paths; before any other peer call. */
void peer_gcrypt_disable_hw(void);
/* ns/B of the peer on the same buffer, or -1 where it lacks the mode. */
double peer_ns_per_byte(int peer, enum aes_gen_mode_dir md, unsigned key_bits, uint8_t *buf,
                        size_t len, int samples);

#endif
