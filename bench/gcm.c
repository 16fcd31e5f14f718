/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aes-gen-bench --gcm: AES-GCM per message size, ours beside OpenSSL EVP,
 * libgcrypt, nettle and Intel ipsec-mb (whichever the build found), and the
 * carry-less-multiply bound.  A message is one call: encryption in place
 * with a new 96-bit IV each time and a 16-byte tag; decryption of a fixed
 * ciphertext into the buffer, its tag verified (ipsec-mb computes the tag,
 * the caller compares it: a constant-time compare is added).  No AAD.
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
#include <nettle/gcm.h>
#include <nettle/memops.h>
#endif
#ifdef HAVE_IPSECMB
#define LINUX /* the header aligns its key structures (64) only for LINUX */
#include <intel-ipsec-mb.h>
#endif

const char *const gcm_peer_names[GCM_PEER_COUNT] = {"openssl", "gcrypt", "nettle", "ipsec-mb"};

static const uint8_t gcm_bench_key[32] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

/* The start of every job's context: the message, the IV of its encryptions
 * and the tag they write. */
struct gcm_common {
    const struct bench_gcm_message *m;
    uint8_t iv[12], tag[16];
};

/* The IV of the next encryption: a 96-bit counter, as a TLS record layer keeps. */
static void next_iv(uint8_t iv[12])
{
    for (int i = 11; i >= 0 && ++iv[i] == 0; i--)
        ;
}

#ifdef HAVE_IPSECMB
static int tags_equal(const uint8_t *a, const uint8_t *b)
{
    uint8_t d = 0;
    for (int i = 0; i < 16; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}
#endif

static void fail(const char *who)
{
    fprintf(stderr, "aes-gen-bench --gcm: %s failed (tag or setup)\n", who);
    exit(1);
}

/* --- ours --------------------------------------------------------------------- */

struct gcm_ours {
    struct gcm_common c;
    aes_gen_gcm_key gk;
};

static void run_ours(void *ctx, uint8_t *buf, size_t len)
{
    struct gcm_ours *o = ctx;
    if (o->c.m->decrypt) {
        if (aes_gen_gcm_decrypt(&o->gk, o->c.m->iv, 12, NULL, 0, buf, o->c.m->cipher, len, o->c.m->tag,
                                16))
            fail("aes-gen decryption");
        return;
    }
    next_iv(o->c.iv);
    aes_gen_gcm_encrypt(&o->gk, o->c.iv, 12, NULL, 0, buf, buf, len, o->c.tag, 16);
}

/* --- peers -------------------------------------------------------------------- */

#ifdef HAVE_OPENSSL
struct gcm_openssl {
    struct gcm_common c;
    EVP_CIPHER_CTX *ctx;
};

static void run_openssl(void *p, uint8_t *buf, size_t len)
{
    struct gcm_openssl *r = p;
    int n = 0, fin = 0;
    if (r->c.m->decrypt) {
        EVP_DecryptInit_ex(r->ctx, NULL, NULL, NULL, r->c.m->iv);
        EVP_DecryptUpdate(r->ctx, buf, &n, r->c.m->cipher, (int)len);
        EVP_CIPHER_CTX_ctrl(r->ctx, EVP_CTRL_GCM_SET_TAG, 16, (void *)r->c.m->tag);
        if (EVP_DecryptFinal_ex(r->ctx, buf + n, &fin) != 1)
            fail("OpenSSL decryption");
        return;
    }
    next_iv(r->c.iv);
    EVP_EncryptInit_ex(r->ctx, NULL, NULL, NULL, r->c.iv);
    EVP_EncryptUpdate(r->ctx, buf, &n, buf, (int)len);
    EVP_EncryptFinal_ex(r->ctx, buf + n, &fin);
    EVP_CIPHER_CTX_ctrl(r->ctx, EVP_CTRL_GCM_GET_TAG, 16, r->c.tag);
}

static void *open_openssl(const struct bench_gcm_message *m, unsigned bits)
{
    struct gcm_openssl *r = calloc(1, sizeof *r);
    const EVP_CIPHER *c = bits == 128 ? EVP_aes_128_gcm() : bits == 192 ? EVP_aes_192_gcm()
                                                                          : EVP_aes_256_gcm();
    if (!r || !(r->ctx = EVP_CIPHER_CTX_new()) ||
        EVP_CipherInit_ex(r->ctx, c, NULL, gcm_bench_key, NULL, 1) != 1)
        fail("OpenSSL setup");
    r->c.m = m;
    return r;
}
#endif

#ifdef HAVE_GCRYPT
struct gcm_gcrypt {
    struct gcm_common c;
    gcry_cipher_hd_t h;
};

static void run_gcrypt(void *p, uint8_t *buf, size_t len)
{
    struct gcm_gcrypt *r = p;
    if (r->c.m->decrypt) {
        gcry_cipher_setiv(r->h, r->c.m->iv, 12);
        gcry_cipher_decrypt(r->h, buf, len, r->c.m->cipher, len);
        if (gcry_cipher_checktag(r->h, r->c.m->tag, 16))
            fail("libgcrypt decryption");
        return;
    }
    next_iv(r->c.iv);
    gcry_cipher_setiv(r->h, r->c.iv, 12);
    gcry_cipher_encrypt(r->h, buf, len, NULL, 0);
    gcry_cipher_gettag(r->h, r->c.tag, 16);
}

static void *open_gcrypt(const struct bench_gcm_message *m, unsigned bits)
{
    struct gcm_gcrypt *r = calloc(1, sizeof *r);
    const int algo = bits == 128 ? GCRY_CIPHER_AES128
                     : bits == 192 ? GCRY_CIPHER_AES192 : GCRY_CIPHER_AES256;
    bench_gcrypt_init();
    if (!r || gcry_cipher_open(&r->h, algo, GCRY_CIPHER_MODE_GCM, 0) ||
        gcry_cipher_setkey(r->h, gcm_bench_key, bits / 8))
        fail("libgcrypt setup");
    r->c.m = m;
    return r;
}
#endif

#ifdef HAVE_NETTLE
struct gcm_nettle {
    struct gcm_common c;
    unsigned bits;
    union {
        struct gcm_aes128_ctx k128;
        struct gcm_aes192_ctx k192;
        struct gcm_aes256_ctx k256;
    } k;
};

/* nettle's per-key-size entry points, one switch for all four steps. */
static void nettle_step(struct gcm_nettle *r, int step, uint8_t *dst, const uint8_t *src,
                        size_t len)
{
    switch (r->bits * 4 + (unsigned)step) {
    case 128 * 4 + 0: gcm_aes128_set_iv(&r->k.k128, 12, src); break;
    case 128 * 4 + 1: gcm_aes128_encrypt(&r->k.k128, len, dst, src); break;
    case 128 * 4 + 2: gcm_aes128_decrypt(&r->k.k128, len, dst, src); break;
    case 128 * 4 + 3: gcm_aes128_digest(&r->k.k128, 16, dst); break;
    case 192 * 4 + 0: gcm_aes192_set_iv(&r->k.k192, 12, src); break;
    case 192 * 4 + 1: gcm_aes192_encrypt(&r->k.k192, len, dst, src); break;
    case 192 * 4 + 2: gcm_aes192_decrypt(&r->k.k192, len, dst, src); break;
    case 192 * 4 + 3: gcm_aes192_digest(&r->k.k192, 16, dst); break;
    case 256 * 4 + 0: gcm_aes256_set_iv(&r->k.k256, 12, src); break;
    case 256 * 4 + 1: gcm_aes256_encrypt(&r->k.k256, len, dst, src); break;
    case 256 * 4 + 2: gcm_aes256_decrypt(&r->k.k256, len, dst, src); break;
    default: gcm_aes256_digest(&r->k.k256, 16, dst); break;
    }
}

static void run_nettle(void *p, uint8_t *buf, size_t len)
{
    struct gcm_nettle *r = p;
    if (r->c.m->decrypt) {
        uint8_t tag[16];
        nettle_step(r, 0, NULL, r->c.m->iv, 0);
        nettle_step(r, 2, buf, r->c.m->cipher, len);
        nettle_step(r, 3, tag, NULL, 0);
        if (!memeql_sec(tag, r->c.m->tag, 16))
            fail("nettle decryption");
        return;
    }
    next_iv(r->c.iv);
    nettle_step(r, 0, NULL, r->c.iv, 0);
    nettle_step(r, 1, buf, buf, len);
    nettle_step(r, 3, r->c.tag, NULL, 0);
}

static void *open_nettle(const struct bench_gcm_message *m, unsigned bits)
{
    struct gcm_nettle *r = calloc(1, sizeof *r);
    if (!r)
        fail("nettle setup");
    r->c.m = m;
    r->bits = bits;
    if (bits == 128)
        gcm_aes128_set_key(&r->k.k128, gcm_bench_key);
    else if (bits == 192)
        gcm_aes192_set_key(&r->k.k192, gcm_bench_key);
    else
        gcm_aes256_set_key(&r->k.k256, gcm_bench_key);
    return r;
}
#endif

#ifdef HAVE_IPSECMB
/* The manager init_mb_mgr_auto picks for this CPU (its VAES-512 code on
 * AVX-512 machines), shared by every job. */
static IMB_MGR *ipsecmb_mgr;
static IMB_ARCH ipsecmb_arch;

struct gcm_ipsecmb {
    struct gcm_common c;
    unsigned bits;
    struct gcm_key_data key;
    struct gcm_context_data ctx;
};

static void run_ipsecmb(void *p, uint8_t *buf, size_t len)
{
    struct gcm_ipsecmb *r = p;
    IMB_MGR *mgr = ipsecmb_mgr;
    const int dec = r->c.m->decrypt;
    uint8_t *tag = dec ? (uint8_t[16]){0} : r->c.tag;
    const uint8_t *src = dec ? r->c.m->cipher : buf, *iv = dec ? r->c.m->iv : r->c.iv;
    if (!dec)
        next_iv(r->c.iv);
    switch (r->bits + (unsigned)dec) {
    case 128: IMB_AES128_GCM_ENC(mgr, &r->key, &r->ctx, buf, src, len, iv, NULL, 0, tag, 16); break;
    case 129: IMB_AES128_GCM_DEC(mgr, &r->key, &r->ctx, buf, src, len, iv, NULL, 0, tag, 16); break;
    case 192: IMB_AES192_GCM_ENC(mgr, &r->key, &r->ctx, buf, src, len, iv, NULL, 0, tag, 16); break;
    case 193: IMB_AES192_GCM_DEC(mgr, &r->key, &r->ctx, buf, src, len, iv, NULL, 0, tag, 16); break;
    case 256: IMB_AES256_GCM_ENC(mgr, &r->key, &r->ctx, buf, src, len, iv, NULL, 0, tag, 16); break;
    default: IMB_AES256_GCM_DEC(mgr, &r->key, &r->ctx, buf, src, len, iv, NULL, 0, tag, 16); break;
    }
    if (dec && !tags_equal(tag, r->c.m->tag))
        fail("ipsec-mb decryption");
}

static void *open_ipsecmb(const struct bench_gcm_message *m, unsigned bits)
{
    bench_ipsecmb_mgr();
    struct gcm_ipsecmb *r = aligned_alloc(64, (sizeof *r + 63) / 64 * 64);
    if (!r)
        fail("ipsec-mb setup");
    memset(r, 0, sizeof *r);
    r->c.m = m;
    r->bits = bits;
    if (bits == 128)
        IMB_AES128_GCM_PRE(ipsecmb_mgr, gcm_bench_key, &r->key);
    else if (bits == 192)
        IMB_AES192_GCM_PRE(ipsecmb_mgr, gcm_bench_key, &r->key);
    else
        IMB_AES256_GCM_PRE(ipsecmb_mgr, gcm_bench_key, &r->key);
    return r;
}
#endif

void *bench_ipsecmb_mgr(void)
{
#ifdef HAVE_IPSECMB
    if (!ipsecmb_mgr) {
        ipsecmb_mgr = alloc_mb_mgr(0);
        if (!ipsecmb_mgr)
            fail("ipsec-mb setup");
        init_mb_mgr_auto(ipsecmb_mgr, &ipsecmb_arch);
    }
    return ipsecmb_mgr;
#else
    return NULL;
#endif
}

const char *bench_ipsecmb_arch(void)
{
#ifdef HAVE_IPSECMB
    static const char *const names[] = {"none", "no-aesni", "sse", "avx", "avx2", "avx512"};
    if (!ipsecmb_mgr)
        return "not set up";
    return ipsecmb_arch < IMB_ARCH_NUM ? names[ipsecmb_arch] : "?";
#else
    return "not built";
#endif
}

static bench_run_fn *const peer_run[GCM_PEER_COUNT] = {
#ifdef HAVE_OPENSSL
    [GCM_PEER_OPENSSL] = run_openssl,
#endif
#ifdef HAVE_GCRYPT
    [GCM_PEER_GCRYPT] = run_gcrypt,
#endif
#ifdef HAVE_NETTLE
    [GCM_PEER_NETTLE] = run_nettle,
#endif
#ifdef HAVE_IPSECMB
    [GCM_PEER_IPSECMB] = run_ipsecmb,
#endif
};

static void *(*const peer_open_fn[GCM_PEER_COUNT])(const struct bench_gcm_message *, unsigned) = {
#ifdef HAVE_OPENSSL
    [GCM_PEER_OPENSSL] = open_openssl,
#endif
#ifdef HAVE_GCRYPT
    [GCM_PEER_GCRYPT] = open_gcrypt,
#endif
#ifdef HAVE_NETTLE
    [GCM_PEER_NETTLE] = open_nettle,
#endif
#ifdef HAVE_IPSECMB
    [GCM_PEER_IPSECMB] = open_ipsecmb,
#endif
};

/* Every job's tag after one encryption of the same message under the same
 * IV: a peer set up wrongly would be timed doing something else. */
static void check_agreement(struct bench_job *jobs, int n, size_t len)
{
    uint8_t *msg = malloc(len + 1), want[16];
    if (!msg)
        fail("the agreement check");
    for (int j = 0; j < n; j++) {
        struct gcm_common *c = jobs[j].ctx;
        memset(c->iv, 0, 12);
        memset(msg, 0x5a, len);
        jobs[j].fn(c, msg, len);
        if (j == 0)
            memcpy(want, c->tag, 16);
        else if (memcmp(want, c->tag, 16))
            fail("a peer's agreement with ours");
    }
    free(msg);
}

int bench_gcm_jobs(unsigned bits, int decrypt, size_t len, const char *backend, int compare,
                   struct bench_gcm_set *set)
{
    memset(set, 0, sizeof *set);
    struct bench_gcm_message *m = &set->message;
    m->decrypt = 0;
    m->len = len;
    m->cipher = bench_message_alloc(len + 1, &m->cipher_base);
    struct gcm_ours *o = aligned_alloc(64, (sizeof *o + 63) / 64 * 64);
    if (!m->cipher || !o)
        fail("setup");
    memset(o, 0, sizeof *o);
    o->c.m = m;
    const int err = backend ? aes_gen_gcm_setkey_backend(&o->gk, gcm_bench_key, bits / 8, backend)
                            : aes_gen_gcm_setkey(&o->gk, gcm_bench_key, bits / 8);
    if (err) {
        fprintf(stderr, "aes-gen-bench --gcm: AES-%u: %s\n", bits, aes_gen_strerror(err));
        free(o), free(m->cipher_base);
        return -1;
    }
    set->jobs[0] = (struct bench_job){.fn = run_ours, .ctx = o};
    set->n = 1;
    for (int p = 0; p < GCM_PEER_COUNT; p++) {
        set->peer_job[p] = -1;
        if (compare && peer_open_fn[p]) {
            set->peer_job[p] = set->n;
            set->jobs[set->n++] = (struct bench_job){.fn = peer_run[p],
                                                     .ctx = peer_open_fn[p](m, bits)};
        }
    }
    check_agreement(set->jobs, set->n, len);
    /* The message decryption takes: ours, encrypted under a fixed IV. */
    memset(m->iv, 0x24, 12);
    memset(m->cipher, 0x42, len);
    if (aes_gen_gcm_encrypt(&o->gk, m->iv, 12, NULL, 0, m->cipher, m->cipher, len, m->tag, 16))
        fail("the message to decrypt");
    m->decrypt = decrypt;
    return 0;
}

const aes_gen_gcm_key *bench_gcm_key(const struct bench_gcm_set *set)
{
    return &((const struct gcm_ours *)set->jobs[0].ctx)->gk;
}

void bench_gcm_close(struct bench_gcm_set *set)
{
    struct gcm_ours *o = set->jobs[0].ctx;
    aes_gen_gcm_wipe(&o->gk);
    free(o);
    for (int p = 0; p < GCM_PEER_COUNT; p++) {
        const int j = set->peer_job[p];
        if (j < 0)
            continue;
#ifdef HAVE_OPENSSL
        if (p == GCM_PEER_OPENSSL)
            EVP_CIPHER_CTX_free(((struct gcm_openssl *)set->jobs[j].ctx)->ctx);
#endif
#ifdef HAVE_GCRYPT
        if (p == GCM_PEER_GCRYPT)
            gcry_cipher_close(((struct gcm_gcrypt *)set->jobs[j].ctx)->h);
#endif
        free(set->jobs[j].ctx);
    }
    free(set->message.cipher_base);
    memset(set, 0, sizeof *set);
}
