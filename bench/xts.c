/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aes-gen-bench --xts: AES-XTS per data-unit size, ours beside OpenSSL EVP,
 * libgcrypt and nettle (whichever the build found; OpenSSL and nettle have
 * no AES-192-XTS).  A data unit is one call, in place, its tweak the next
 * sector number (16 bytes, little-endian), as a disk driver calls it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef HAVE_OPENSSL
#include <openssl/evp.h>
#endif
#ifdef HAVE_GCRYPT
#include <gcrypt.h>
#endif
#ifdef HAVE_NETTLE
#include <nettle/xts.h>
#endif

const char *const xts_peer_names[XTS_PEER_COUNT] = {"openssl", "gcrypt", "nettle"};

static const uint8_t xts_bench_key[64] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3,
                                          2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5,
                                          0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3, 9, 9, 3, 7,
                                          5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5, 9, 2};

/* The start of every job's context: the direction and the next sector. */
struct xts_common {
    int decrypt;
    uint64_t sector;
    uint8_t tweak[16];
};

static const uint8_t *next_tweak(struct xts_common *c)
{
    const uint64_t s = c->sector++;
    memcpy(c->tweak, &s, 8); /* little-endian hosts */
    return c->tweak;
}

static void fail(const char *who)
{
    fprintf(stderr, "aes-gen-bench --xts: %s failed\n", who);
    exit(1);
}

struct xts_ours {
    struct xts_common c;
    aes_gen_xts_key xk;
};

static void run_ours(void *p, uint8_t *buf, size_t len)
{
    struct xts_ours *o = p;
    const uint8_t *t = next_tweak(&o->c);
    if (o->c.decrypt ? aes_gen_xts_decrypt(&o->xk, t, buf, buf, len)
                     : aes_gen_xts_encrypt(&o->xk, t, buf, buf, len))
        fail("aes-gen");
}

#ifdef HAVE_OPENSSL
struct xts_openssl {
    struct xts_common c;
    EVP_CIPHER_CTX *ctx;
};

static void run_openssl(void *p, uint8_t *buf, size_t len)
{
    struct xts_openssl *r = p;
    int n = 0;
    EVP_CipherInit_ex(r->ctx, NULL, NULL, NULL, next_tweak(&r->c), -1);
    if (EVP_CipherUpdate(r->ctx, buf, &n, buf, (int)len) != 1)
        fail("OpenSSL");
}

static void *open_openssl(int decrypt, unsigned bits)
{
    if (bits == 192)
        return NULL;
    struct xts_openssl *r = calloc(1, sizeof *r);
    if (!r || !(r->ctx = EVP_CIPHER_CTX_new()) ||
        EVP_CipherInit_ex(r->ctx, bits == 128 ? EVP_aes_128_xts() : EVP_aes_256_xts(), NULL,
                          xts_bench_key, NULL, !decrypt) != 1)
        fail("OpenSSL setup");
    r->c.decrypt = decrypt;
    return r;
}
#endif

#ifdef HAVE_GCRYPT
struct xts_gcrypt {
    struct xts_common c;
    gcry_cipher_hd_t h;
};

static void run_gcrypt(void *p, uint8_t *buf, size_t len)
{
    struct xts_gcrypt *r = p;
    gcry_cipher_setiv(r->h, next_tweak(&r->c), 16);
    if (r->c.decrypt ? gcry_cipher_decrypt(r->h, buf, len, NULL, 0)
                     : gcry_cipher_encrypt(r->h, buf, len, NULL, 0))
        fail("libgcrypt");
}

static void *open_gcrypt(int decrypt, unsigned bits)
{
    struct xts_gcrypt *r = calloc(1, sizeof *r);
    const int algo = bits == 128 ? GCRY_CIPHER_AES128
                     : bits == 192 ? GCRY_CIPHER_AES192 : GCRY_CIPHER_AES256;
    bench_gcrypt_init();
    if (!r || gcry_cipher_open(&r->h, algo, GCRY_CIPHER_MODE_XTS, 0) ||
        gcry_cipher_setkey(r->h, xts_bench_key, bits / 4))
        fail("libgcrypt setup");
    r->c.decrypt = decrypt;
    return r;
}
#endif

#ifdef HAVE_NETTLE
struct xts_nettle {
    struct xts_common c;
    unsigned bits;
    union {
        struct xts_aes128_key k128;
        struct xts_aes256_key k256;
    } k;
};

static void run_nettle(void *p, uint8_t *buf, size_t len)
{
    struct xts_nettle *r = p;
    const uint8_t *t = next_tweak(&r->c);
    if (r->bits == 128)
        (r->c.decrypt ? xts_aes128_decrypt_message : xts_aes128_encrypt_message)(&r->k.k128, t,
                                                                                 len, buf, buf);
    else
        (r->c.decrypt ? xts_aes256_decrypt_message : xts_aes256_encrypt_message)(&r->k.k256, t,
                                                                                 len, buf, buf);
}

static void *open_nettle(int decrypt, unsigned bits)
{
    if (bits == 192)
        return NULL;
    struct xts_nettle *r = calloc(1, sizeof *r);
    if (!r)
        fail("nettle setup");
    r->c.decrypt = decrypt;
    r->bits = bits;
    if (bits == 128)
        (decrypt ? xts_aes128_set_decrypt_key : xts_aes128_set_encrypt_key)(&r->k.k128,
                                                                             xts_bench_key);
    else
        (decrypt ? xts_aes256_set_decrypt_key : xts_aes256_set_encrypt_key)(&r->k.k256,
                                                                             xts_bench_key);
    return r;
}
#endif

static bench_run_fn *const peer_run[XTS_PEER_COUNT] = {
#ifdef HAVE_OPENSSL
    [XTS_PEER_OPENSSL] = run_openssl,
#endif
#ifdef HAVE_GCRYPT
    [XTS_PEER_GCRYPT] = run_gcrypt,
#endif
#ifdef HAVE_NETTLE
    [XTS_PEER_NETTLE] = run_nettle,
#endif
};

static void *(*const peer_open_fn[XTS_PEER_COUNT])(int, unsigned) = {
#ifdef HAVE_OPENSSL
    [XTS_PEER_OPENSSL] = open_openssl,
#endif
#ifdef HAVE_GCRYPT
    [XTS_PEER_GCRYPT] = open_gcrypt,
#endif
#ifdef HAVE_NETTLE
    [XTS_PEER_NETTLE] = open_nettle,
#endif
};

/* Every job's output for one data unit under the same tweak: a peer set up
 * wrongly would be timed doing something else. */
static void check_agreement(struct bench_job *jobs, int n, size_t len)
{
    uint8_t *want = malloc(len), *got = malloc(len);
    if (!want || !got)
        fail("the agreement check");
    for (int j = 0; j < n; j++) {
        struct xts_common *c = jobs[j].ctx;
        uint8_t *out = j ? got : want;
        c->sector = 77;
        memset(out, 0x5a, len);
        jobs[j].fn(c, out, len);
        if (j && memcmp(want, got, len))
            fail("a peer's agreement with ours");
        c->sector = 0;
    }
    free(want), free(got);
}

int bench_xts_jobs(unsigned bits, int decrypt, size_t len, const char *backend, int compare,
                   struct bench_xts_set *set)
{
    memset(set, 0, sizeof *set);
    struct xts_ours *o = aligned_alloc(64, (sizeof *o + 63) / 64 * 64);
    if (!o)
        fail("setup");
    memset(o, 0, sizeof *o);
    o->c.decrypt = decrypt;
    const int err = backend ? aes_gen_xts_setkey_backend(&o->xk, xts_bench_key, bits / 4, backend)
                            : aes_gen_xts_setkey(&o->xk, xts_bench_key, bits / 4);
    if (err) {
        fprintf(stderr, "aes-gen-bench --xts: AES-%u: %s\n", bits, aes_gen_strerror(err));
        free(o);
        return -1;
    }
    set->jobs[0] = (struct bench_job){.fn = run_ours, .ctx = o};
    set->n = 1;
    for (int p = 0; p < XTS_PEER_COUNT; p++) {
        set->peer_job[p] = -1;
        void *ctx = compare && peer_open_fn[p] ? peer_open_fn[p](decrypt, bits) : NULL;
        if (ctx) {
            set->peer_job[p] = set->n;
            set->jobs[set->n++] = (struct bench_job){.fn = peer_run[p], .ctx = ctx};
        }
    }
    check_agreement(set->jobs, set->n, len);
    return 0;
}

const aes_gen_xts_key *bench_xts_key(const struct bench_xts_set *set)
{
    return &((const struct xts_ours *)set->jobs[0].ctx)->xk;
}

void bench_xts_close(struct bench_xts_set *set)
{
    struct xts_ours *o = set->jobs[0].ctx;
    aes_gen_xts_wipe(&o->xk);
    free(o);
    for (int p = 0; p < XTS_PEER_COUNT; p++) {
        const int j = set->peer_job[p];
        if (j < 0)
            continue;
#ifdef HAVE_OPENSSL
        if (p == XTS_PEER_OPENSSL)
            EVP_CIPHER_CTX_free(((struct xts_openssl *)set->jobs[j].ctx)->ctx);
#endif
#ifdef HAVE_GCRYPT
        if (p == XTS_PEER_GCRYPT)
            gcry_cipher_close(((struct xts_gcrypt *)set->jobs[j].ctx)->h);
#endif
        free(set->jobs[j].ctx);
    }
    memset(set, 0, sizeof *set);
}
