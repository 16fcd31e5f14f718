/* SPDX-License-Identifier: Apache-2.0 */
/*
 * First use from many threads at once: the CPU feature cache, the backend
 * choice and key setup race on purpose.  Built with ThreadSanitizer
 * (test_threads_tsan), which reports any data race; every thread must also
 * pick the same backend and compute the same bytes as one thread alone.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "aes_gen.h"

#define THREADS 16

static pthread_barrier_t start;
static uint8_t results[THREADS][64];
static const char *backends[THREADS];

static void *work(void *arg)
{
    const size_t t = (size_t)arg;
    uint8_t key[32], ctr[16] = {0}, in[64] = {0};
    aes_gen_key k;
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)i;
    pthread_barrier_wait(&start);
    /* The first key size this build has (make gen KEYS=...). */
    size_t len = 16;
    while (len <= 32 && aes_gen_setkey(&k, key, len) == AES_GEN_EKEYSIZE)
        len += 8;
    if (len > 32 || aes_gen_ctr_crypt(&k, ctr, results[t], in, sizeof in) != AES_GEN_OK)
        return (void *)1;
    backends[t] = aes_gen_key_backend(&k);
    aes_gen_wipe(&k);
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (size_t t = 0; t < THREADS; t++)
        if (pthread_create(&th[t], NULL, work, (void *)t))
            return 1;
    int failed = 0;
    for (size_t t = 0; t < THREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        failed |= r != NULL;
    }
    for (size_t t = 1; t < THREADS && !failed; t++)
        failed |= memcmp(results[t], results[0], 64) || strcmp(backends[t], backends[0]);
    printf("test_threads: %d threads, first use together: %s (backend %s)\n", THREADS,
           failed ? "FAILED" : "same backend and bytes", failed ? "-" : backends[0]);
    return failed;
}
