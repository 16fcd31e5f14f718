/* SPDX-License-Identifier: Apache-2.0 */
/* CPU feature detection: CPUID for what the core has, XGETBV for what the OS
 * saves on context switch (AVX needs YMM state, AVX-512 also opmask and ZMM). */
#define _GNU_SOURCE /* secure_getenv */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

static uint32_t detect(void)
{
    unsigned a, b, c, d, max = __get_cpuid_max(0, NULL);
    uint32_t f = 0;
    if (max < 1)
        return 0;
    __cpuid(1, a, b, c, d);
    if (d & bit_SSE2) f |= AES_GEN_CPU_SSE2;
    if (c & bit_SSSE3) f |= AES_GEN_CPU_SSSE3;
    if (c & bit_AES) f |= AES_GEN_CPU_AESNI;
    if (c & bit_PCLMUL) f |= AES_GEN_CPU_PCLMUL;
    int os_ymm = 0, os_zmm = 0;
    if (c & bit_OSXSAVE) {
        uint64_t xcr0 = xgetbv0();
        os_ymm = (xcr0 & 0x6) == 0x6;    /* XMM, YMM */
        os_zmm = (xcr0 & 0xe6) == 0xe6;  /* and opmask, ZMM_Hi256, Hi16_ZMM */
    }
    if ((c & bit_AVX) && os_ymm) f |= AES_GEN_CPU_AVX;
    if (max < 7 || !os_ymm)
        return f;
    __cpuid_count(7, 0, a, b, c, d);
    if (b & bit_AVX2) f |= AES_GEN_CPU_AVX2;
    if (c & bit_VAES) f |= AES_GEN_CPU_VAES;
    if (c & bit_VPCLMULQDQ) f |= AES_GEN_CPU_VPCLMULQDQ;
    if (os_zmm) {
        if (b & bit_AVX512F) f |= AES_GEN_CPU_AVX512F;
        if (b & bit_AVX512BW) f |= AES_GEN_CPU_AVX512BW;
        if (b & bit_AVX512VL) f |= AES_GEN_CPU_AVX512VL;
    }
    return f;
}
#else
static uint32_t detect(void)
{
    return 0;
}
#endif

static const char *const feature_names[] = {
#define AES_GEN_CPU_FEATURE(NAME, name) #name,
#include "backends.inc"
};
#define FEATURE_COUNT (sizeof feature_names / sizeof feature_names[0])
/* detect() above sets each feature of gen/variants.py CPU_FEATURES. */
_Static_assert(AES_GEN_CPU_FEATURE_COUNT == 11,
               "a CPU feature added to gen/variants.py needs its detection in cpu.c");

const char *aes_gen_secure_getenv(const char *name)
{
#if defined(__GLIBC__)
    return secure_getenv(name);
#else
    return getenv(name);
#endif
}

/* AES_GEN_CPU_MASK="aesni,vaes": features to treat as absent (tests and
 * benchmarks of the fallbacks, like OPENSSL_ia32cap); it can only remove.
 * Read once (the features are cached), through secure_getenv: a set-uid
 * program is not downgraded by its caller.  An unknown name is reported on
 * stderr, once, and otherwise ignored. */
static uint32_t masked(uint32_t f)
{
    const char *env = aes_gen_secure_getenv("AES_GEN_CPU_MASK");
    while (env && *env) {
        const size_t len = strcspn(env, ", ");
        int known = 0;
        for (size_t i = 0; i < FEATURE_COUNT; i++)
            if (len && strlen(feature_names[i]) == len && !strncmp(env, feature_names[i], len)) {
                f &= ~(1u << i);
                known = 1;
            }
        if (len && !known)
            fprintf(stderr, "aes-gen: AES_GEN_CPU_MASK: unknown CPU feature '%.*s', ignored "
                    "(the names are aes_gen_backend_describe's cpu_needs)\n", (int)len, env);
        env += len + (env[len] != '\0');
    }
    return f;
}

/* Detected once, by the first caller of any thread (pthread_once orders the
 * write before every later read). */
static uint32_t features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

static void detect_once(void)
{
    features = masked(detect());
}

uint32_t aes_gen_cpu_features(void)
{
    pthread_once(&features_once, detect_once);
    return features;
}

const char *aes_gen_cpu_feature_names(uint32_t mask, char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < FEATURE_COUNT; i++) {
        if (mask & (1u << i)) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", feature_names[i]);
            if (n < 0 || (size_t)n >= size - used)
                break;
            used += (size_t)n;
        }
    }
    return buf;
}
