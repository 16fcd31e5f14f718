/* SPDX-License-Identifier: Apache-2.0 */
/* Timing, clock estimates and the AES instruction bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[n / 2];
}

size_t bench_misalign;

uint8_t *bench_message_alloc(size_t bytes, uint8_t **base)
{
    const size_t size = BENCH_SLOT(bytes) + 64; /* room for the offset */
    *base = aligned_alloc(64, size);
    if (!*base)
        return NULL;
    memset(*base, 0, size);
    return *base + bench_misalign;
}

void bench_jobs(struct bench_job *jobs, int n, uint8_t *buf, size_t len, int samples)
{
    bench_jobs_spread(jobs, n, buf, len, samples, 1);
}

/* reps calls of the job, going round nbuf buffers (no division per call:
 * at 16 bytes a 64-bit div is a sizeable part of a call). */
static void run_reps(const struct bench_job *job, size_t reps, uint8_t *buf, size_t len,
                     size_t slot, int nbuf)
{
    uint8_t *const end = buf + (size_t)nbuf * slot;
    uint8_t *b = buf;
    for (size_t r = 0; r < reps; r++) {
        job->fn(job->ctx, b, len);
        b += slot;
        if (b == end)
            b = buf;
    }
}

/* Scalar work before each timing: after one job's wide vector code (Intel
 * ipsec-mb's AVX-512, our zmm kernels) the core runs slower for a while
 * (measured: the next job of a 16-byte table 2-6% slower for about half a
 * millisecond), which would otherwise count against whichever job comes
 * next. */
static void settle(void)
{
    const double start = bench_now_ns();
    while (bench_now_ns() - start < 1e6)
        ;
}

void bench_jobs_spread(struct bench_job *jobs, int n, uint8_t *buf, size_t len, int samples,
                       int nbuf)
{
    const size_t slot = BENCH_SLOT(len);
    enum { MAX_JOBS = 256, MAX_SAMPLES = BENCH_MAX_SAMPLES };
    size_t reps[MAX_JOBS];
    static double t[MAX_JOBS][MAX_SAMPLES];

    if (samples > MAX_SAMPLES) /* the parser refuses more */
        samples = MAX_SAMPLES;
    if (n > MAX_JOBS) {
        fprintf(stderr, "aes-gen-bench: %d jobs in one timing group, at most %d\n", n, MAX_JOBS);
        exit(2);
    }
    for (int j = 0; j < n && j < MAX_JOBS; j++) {
        /* Warm-up: double the repetitions until one sample takes about 2 ms. */
        for (reps[j] = 1;; reps[j] *= 2) {
            const double start = bench_now_ns();
            run_reps(&jobs[j], reps[j], buf, len, slot, nbuf);
            if (bench_now_ns() - start > 2e6)
                break;
        }
    }
    for (int s = 0; s < samples; s++)
        for (int j = 0; j < n && j < MAX_JOBS; j++) {
            settle();
            const double start = bench_now_ns();
            run_reps(&jobs[j], reps[j], buf, len, slot, nbuf);
            t[j][s] = (bench_now_ns() - start) / ((double)reps[j] * (double)len);
        }
    for (int j = 0; j < n && j < MAX_JOBS; j++) {
        jobs[j].ns_per_byte = median(t[j], samples); /* sorts t[j] */
        jobs[j].min_ns = t[j][0];
        jobs[j].max_ns = t[j][samples - 1];
    }
}

#if defined(__x86_64__)
static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

/* 64 dependent register-register adds per iteration: one per cycle on every
 * x86-64 core.  Not `add $1`: Intel cores since Golden Cove fold immediate
 * adds at rename and run such a chain several times a cycle. */
static void add_chain(long iters)
{
    uint64_t x = 0, one = 1;
    __asm__ volatile("1:\n\t.rept 64\n\tadd %2, %0\n\t.endr\n\tdec %1\n\tjnz 1b"
                     : "+r"(x), "+r"(iters) : "r"(one) : "cc");
}
#endif

void bench_measure_clock(struct bench_clock *c)
{
    double est[9];
    c->core_ghz = c->tsc_ghz = 0;
#if defined(__x86_64__)
    for (int i = 0; i < 9; i++) {
        const long iters = 200000;
        const double start = bench_now_ns();
        add_chain(iters);
        est[i] = 64.0 * iters / (bench_now_ns() - start);
    }
    c->core_ghz = median(est, 9);
    c->core_min = est[0];
    c->core_max = est[8];
    const double t0 = bench_now_ns();
    const uint64_t c0 = rdtsc();
    while (bench_now_ns() - t0 < 20e6)
        ;
    c->tsc_ghz = (double)(rdtsc() - c0) / (bench_now_ns() - t0);
#else
    (void)est;
#endif
}

#if defined(__x86_64__)
/* Each loop: 32 AES instructions; `chain` uses one register (latency),
 * `spread` cycles through 12 independent ones (throughput).  Mnemonics are
 * fine here: this is the bench, not generated code. */
#define AES_LOOP(name, body, tail)                                         \
    static void name(long iters)                                           \
    {                                                                      \
        __asm__ volatile("1:\n\t" body "\n\tdec %0\n\tjnz 1b" tail        \
                         : "+r"(iters) : : "cc", XMM_CLOBBERS);            \
    }
#define XMM_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
                     "xmm8", "xmm9", "xmm10", "xmm11", "xmm15"
/* 8 x 12 instructions on 12 registers, each its own dependency chain. */
#define EACH12(F) F("0") F("1") F("2") F("3") F("4") F("5") F("6") F("7") F("8") F("9") \
    F("10") F("11")
#define XMM_ONE(n) "aesenc %%xmm15, %%xmm" n "\n\t"
#define YMM_ONE(n) "vaesenc %%ymm15, %%ymm" n ", %%ymm" n "\n\t"
#define ZMM_ONE(n) "vaesenc %%zmm15, %%zmm" n ", %%zmm" n "\n\t"
#define SPREAD(one) ".rept 8\n\t" EACH12(one) ".endr"
#define VZU "\n\tvzeroupper"
AES_LOOP(xmm_chain, ".rept 32\n\taesenc %%xmm15, %%xmm0\n\t.endr", "")
AES_LOOP(ymm_chain, ".rept 32\n\tvaesenc %%ymm15, %%ymm0, %%ymm0\n\t.endr", VZU)
AES_LOOP(zmm_chain, ".rept 32\n\tvaesenc %%zmm15, %%zmm0, %%zmm0\n\t.endr", VZU)
AES_LOOP(xmm_spread, SPREAD(XMM_ONE), "")
AES_LOOP(ymm_spread, SPREAD(YMM_ONE), VZU)
AES_LOOP(zmm_spread, SPREAD(ZMM_ONE), VZU)

/* GCM's mix: per vector of blocks, the rounds' AES instructions and 3
 * (Karatsuba) or 4 (schoolbook) carry-less products (independent: the
 * products write registers nothing reads; the SSE ones restart from a
 * copy).  12 vectors an iteration, the products spread over the rounds:
 * runs of a, b, c (and d) rounds, each followed by 12 products. */
#define GCM_CLOBBERS XMM_CLOBBERS, "xmm12", "xmm13", "xmm14"
#define XMM_CLMUL(n) "movdqa %%xmm15, %%xmm1" n "\n\tpclmulqdq $0x00, %%xmm14, %%xmm1" n "\n\t"
#define YMM_CLMUL(n) "vpclmulqdq $0x00, %%ymm15, %%ymm14, %%ymm1" n "\n\t"
#define ZMM_CLMUL(n) "vpclmulqdq $0x00, %%zmm15, %%zmm14, %%zmm1" n "\n\t"
#define CLMUL12(one) ".rept 6\n\t" one("2") one("3") ".endr\n\t"
#define RUN(aes, n) ".rept " #n "\n\t" EACH12(aes) ".endr\n\t"
#define GCM_LOOP(name, aes, clmul, a, b, c, d, tail)                                     \
    static void name(long iters)                                                         \
    {                                                                                    \
        __asm__ volatile("1:\n\t" RUN(aes, a) CLMUL12(clmul) RUN(aes, b) CLMUL12(clmul) \
                         RUN(aes, c) CLMUL12(clmul) RUN(aes, d) CLMUL12(clmul)           \
                         "dec %0\n\tjnz 1b" tail : "+r"(iters) : : "cc", GCM_CLOBBERS);   \
    }
#define GCM3_LOOP(name, aes, clmul, a, b, c, tail)                                       \
    static void name(long iters)                                                         \
    {                                                                                    \
        __asm__ volatile("1:\n\t" RUN(aes, a) CLMUL12(clmul) RUN(aes, b) CLMUL12(clmul) \
                         RUN(aes, c) CLMUL12(clmul)                                      \
                         "dec %0\n\tjnz 1b" tail : "+r"(iters) : : "cc", GCM_CLOBBERS);   \
    }
#define GCM_LOOPS(v, aes, clmul, tail)                            \
    GCM_LOOP(v##_gcm10, aes, clmul, 3, 2, 3, 2, tail)             \
    GCM_LOOP(v##_gcm12, aes, clmul, 3, 3, 3, 3, tail)             \
    GCM_LOOP(v##_gcm14, aes, clmul, 4, 3, 4, 3, tail)             \
    GCM3_LOOP(v##_gcm3_10, aes, clmul, 4, 3, 3, tail)             \
    GCM3_LOOP(v##_gcm3_12, aes, clmul, 4, 4, 4, tail)             \
    GCM3_LOOP(v##_gcm3_14, aes, clmul, 5, 5, 4, tail)
GCM_LOOPS(xmm, XMM_ONE, XMM_CLMUL, "")
GCM_LOOPS(ymm, YMM_ONE, YMM_CLMUL, VZU)
GCM_LOOPS(zmm, ZMM_ONE, ZMM_CLMUL, VZU)
/* [vector length][products - 3][rounds] */
static void (*const gcm_loops[BENCH_VLENS][2][3])(long) = {
    {{xmm_gcm3_10, xmm_gcm3_12, xmm_gcm3_14}, {xmm_gcm10, xmm_gcm12, xmm_gcm14}},
    {{ymm_gcm3_10, ymm_gcm3_12, ymm_gcm3_14}, {ymm_gcm10, ymm_gcm12, ymm_gcm14}},
    {{zmm_gcm3_10, zmm_gcm3_12, zmm_gcm3_14}, {zmm_gcm10, zmm_gcm12, zmm_gcm14}}};

static void (*const chain_loops[BENCH_VLENS])(long) = {xmm_chain, ymm_chain, zmm_chain};
static void (*const spread_loops[BENCH_VLENS])(long) = {xmm_spread, ymm_spread, zmm_spread};

/* Cycles per instruction: the median of 9 timings. */
static double cycles_per_insn(void (*loop)(long), int insns, double core_ghz)
{
    double est[9];
    const long iters = 20000;
    loop(iters); /* warm-up: wakes the vector units */
    for (int i = 0; i < 9; i++) {
        const double start = bench_now_ns();
        loop(iters);
        est[i] = (bench_now_ns() - start) * core_ghz / ((double)iters * insns);
    }
    return median(est, 9);
}
#endif

#if defined(__x86_64__)
static void run_aes_loop(void *ctx, uint8_t *buf, size_t len)
{
    const struct bench_aes_run *r = ctx;
    (void)buf, (void)len;
    r->loop(r->iters);
}
#endif

static int vlen_runs_here(int vlen)
{
    const uint32_t cpu = aes_gen_cpu_features();
    const uint32_t need[BENCH_VLENS] = {
        AES_GEN_CPU_AESNI,
        AES_GEN_CPU_VAES | AES_GEN_CPU_AVX2,
        AES_GEN_CPU_VAES | AES_GEN_CPU_AVX512F,
    };
    return (cpu & need[vlen]) == need[vlen];
}

int bench_aes_job(int vlen, int serial, double insns, struct bench_aes_run *run,
                  struct bench_job *job)
{
#if defined(__x86_64__)
    if (!vlen_runs_here(vlen))
        return -1;
    const int per_iter = serial ? 32 : 96;
    run->loop = serial ? chain_loops[vlen] : spread_loops[vlen];
    run->iters = (long)(insns / per_iter) + 1;
    run->scale = insns / ((double)run->iters * per_iter);
    job->fn = run_aes_loop;
    job->ctx = run;
    return 0;
#else
    (void)vlen, (void)serial, (void)insns, (void)run, (void)job;
    return -1;
#endif
}

int bench_gcm_bound_job(int vlen, unsigned rounds, unsigned products, double vectors,
                        struct bench_aes_run *run, struct bench_job *job)
{
#if defined(__x86_64__)
    const uint32_t clmul = vlen == BENCH_XMM ? AES_GEN_CPU_PCLMUL : AES_GEN_CPU_VPCLMULQDQ;
    if (!vlen_runs_here(vlen) || (aes_gen_cpu_features() & clmul) != clmul ||
        (products != 3 && products != 4) || (rounds != 10 && rounds != 12 && rounds != 14))
        return -1;
    run->loop = gcm_loops[vlen][products - 3][(rounds - 10) / 2];
    run->iters = (long)(vectors / 12) + 1;
    run->scale = vectors / ((double)run->iters * 12);
    job->fn = run_aes_loop;
    job->ctx = run;
    return 0;
#else
    (void)vlen, (void)rounds, (void)products, (void)vectors, (void)run, (void)job;
    return -1;
#endif
}

void bench_measure_bounds(struct bench_bounds *b, double core_ghz)
{
    for (int v = 0; v < BENCH_VLENS; v++)
        b->have[v] = 0, b->latency[v] = b->recip_tput[v] = 0;
#if defined(__x86_64__)
    for (int v = 0; v < BENCH_VLENS; v++) {
        if (!vlen_runs_here(v))
            continue;
        b->have[v] = 1;
        b->latency[v] = cycles_per_insn(chain_loops[v], 32, core_ghz);
        b->recip_tput[v] = cycles_per_insn(spread_loops[v], 96, core_ghz);
    }
#else
    (void)core_ghz;
#endif
}

void bench_check_clock(const struct bench_clock *before, const struct bench_clock *after)
{
    const double lo = before->core_min < after->core_min ? before->core_min : after->core_min;
    const double hi = before->core_max > after->core_max ? before->core_max : after->core_max;
    if (lo > 0 && hi / lo > 1.10)
        fprintf(stderr, "aes-gen-bench: warning: the core clock estimates range from %.2f to "
                        "%.2f GHz (before and after the run): the machine is busy or changing "
                        "frequency; cycles/B are rough, compare ratios within one run\n", lo, hi);
}
