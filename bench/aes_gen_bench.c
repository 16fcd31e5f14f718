/*
 * aes-gen-bench: throughput of each mode through the public API.
 *
 *   aes-gen-bench [--backend NAME] [--keys 128,192,256] [--bytes N]
 *
 * Each row is the median of repeated timings (CLOCK_MONOTONIC) of one buffer,
 * after a warm-up; nothing is assumed, every figure is measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

typedef int mode_fn(const aes_gen_key *k, uint8_t *iv, void *dst, const void *src, size_t len);

static int ecb_enc(const aes_gen_key *k, uint8_t *iv, void *dst, const void *src, size_t len)
{
    (void)iv;
    return aes_gen_ecb_encrypt(k, dst, src, len);
}

static int ecb_dec(const aes_gen_key *k, uint8_t *iv, void *dst, const void *src, size_t len)
{
    (void)iv;
    return aes_gen_ecb_decrypt(k, dst, src, len);
}

static const struct {
    const char *name;
    mode_fn *fn;
} modes[AES_GEN_MODE_DIRS] = {
    {"ECB enc", ecb_enc}, {"ECB dec", ecb_dec},
    {"CBC enc", aes_gen_cbc_encrypt}, {"CBC dec", aes_gen_cbc_decrypt},
    {"CFB enc", aes_gen_cfb_encrypt}, {"CFB dec", aes_gen_cfb_decrypt},
    {"OFB", aes_gen_ofb_crypt}, {"CTR", aes_gen_ctr_crypt},
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median ns per byte over `samples` timings of `reps` calls each. */
static double time_mode(mode_fn *fn, const aes_gen_key *k, uint8_t *buf, size_t bytes)
{
    enum { SAMPLES = 15 };
    uint8_t iv[16] = {0};
    double t[SAMPLES];
    size_t reps = 1;

    /* Warm up and size a sample to about 2 ms. */
    for (double start = now_ns(); now_ns() - start < 2e6; reps *= 2)
        for (size_t r = 0; r < reps; r++)
            fn(k, iv, buf, buf, bytes);
    for (int s = 0; s < SAMPLES; s++) {
        const double start = now_ns();
        for (size_t r = 0; r < reps; r++)
            fn(k, iv, buf, buf, bytes);
        t[s] = (now_ns() - start) / ((double)reps * (double)bytes);
    }
    qsort(t, SAMPLES, sizeof t[0], cmp_double);
    return t[SAMPLES / 2];
}

static void usage(void)
{
    fprintf(stderr, "usage: aes-gen-bench [--backend NAME] [--keys 128,192,256] [--bytes N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *backend = NULL, *keys = "128,192,256";
    size_t bytes = 8192;

    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--backend") == 0)
            backend = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--keys") == 0)
            keys = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--bytes") == 0)
            bytes = strtoul(argv[++i], NULL, 0);
        else
            usage();
    }
    if (bytes == 0 || bytes % 16) {
        fprintf(stderr, "aes-gen-bench: --bytes must be a positive multiple of 16\n");
        return 2;
    }
    uint8_t *buf = calloc(1, bytes);
    if (!buf)
        return 1;
    for (const char *p = keys; *p;) {
        const unsigned bits = (unsigned)strtoul(p, (char **)&p, 10);
        uint8_t key[32] = {1, 2, 3};
        aes_gen_key k;
        const int err = backend ? aes_gen_setkey_backend(&k, key, bits / 8, backend)
                                : aes_gen_setkey(&k, key, bits / 8);
        if (err) {
            fprintf(stderr, "aes-gen-bench: AES-%u with %s: %s\n", bits,
                    backend ? backend : "the default backend", aes_gen_strerror(err));
            return 1;
        }
        printf("AES-%u, backend %s, %zu-byte buffer, median of 15 timings\n", bits,
               aes_gen_key_backend(&k), bytes);
        printf("  %-8s %10s %10s\n", "mode", "ns/B", "MiB/s");
        for (int m = 0; m < AES_GEN_MODE_DIRS; m++) {
            const double ns = time_mode(modes[m].fn, &k, buf, bytes);
            printf("  %-8s %10.3f %10.1f\n", modes[m].name, ns, 1e9 / ns / (1024.0 * 1024.0));
        }
        aes_gen_wipe(&k);
        if (*p == ',')
            p++;
        else if (*p) {
            fprintf(stderr, "aes-gen-bench: --keys takes a list like 128,256\n");
            return 2;
        }
    }
    free(buf);
    return 0;
}
