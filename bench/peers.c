/* SPDX-License-Identifier: Apache-2.0 */
/* The libraries users would pick instead, timed on the same buffer.  Each
 * adapter sets up one (mode, direction, key size) and runs it in place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef HAVE_OPENSSL
#define OPENSSL_SUPPRESS_DEPRECATED /* AES_set_*_key: what OpenSSL's own AES_KEY users call */
#include <openssl/aes.h>
#include <openssl/evp.h>
#endif
#ifdef HAVE_GCRYPT
#include <gcrypt.h>
#endif
#ifdef HAVE_IPSECMB
#include <intel-ipsec-mb.h>
#endif
#ifdef HAVE_NETTLE
#include <nettle/aes.h>
#include <nettle/cbc.h>
#include <nettle/cfb.h>
#include <nettle/ctr.h>
#endif

const char *const peer_names[PEER_COUNT] = {"openssl", "gcrypt", "nettle", "ipsec-mb"};

#if defined(HAVE_OPENSSL) || defined(HAVE_GCRYPT) || defined(HAVE_NETTLE) || defined(HAVE_IPSECMB)
#define ANY_PEER 1 /* else every peer is a column of n/a and the helpers go unused */
#endif

#ifdef ANY_PEER
static const uint8_t bench_key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

#endif

int peer_built(int peer)
{
    switch (peer) {
#ifdef HAVE_OPENSSL
    case PEER_OPENSSL: return 1;
#endif
#ifdef HAVE_GCRYPT
    case PEER_GCRYPT: return 1;
#endif
#ifdef HAVE_NETTLE
    case PEER_NETTLE: return 1;
#endif
#ifdef HAVE_IPSECMB
    case PEER_IPSECMB: return 1;
#endif
    default: return 0;
    }
}

#ifdef ANY_PEER
static int is_decrypt(enum aes_gen_mode_dir md)
{
    return aes_gen_modes[md].decrypt;
}

/* Peers run the SP 800-38A modes: a mode of ours with another counter width
 * has no peer row. */
static int standard_mode(enum aes_gen_mode_dir md)
{
    const unsigned bits = aes_gen_modes[md].counter_bits;
    return bits == 0 || bits == 128;
}
#endif

#ifdef HAVE_OPENSSL
static void run_openssl(void *ctx, uint8_t *buf, size_t len)
{
    int out;
    EVP_CipherUpdate(ctx, buf, &out, buf, (int)len);
}

static int openssl_open(enum aes_gen_mode_dir md, unsigned bits, struct bench_job *job)
{
    static const char *const names[] = {
        [AES_GEN_FAMILY_ECB] = "ECB", [AES_GEN_FAMILY_CBC] = "CBC", [AES_GEN_FAMILY_CFB] = "CFB",
        [AES_GEN_FAMILY_OFB] = "OFB", [AES_GEN_FAMILY_CTR] = "CTR"};
    char name[32];
    uint8_t iv[16] = {0};
    if (!standard_mode(md))
        return -1;
    snprintf(name, sizeof name, "AES-%u-%s", bits, names[aes_gen_modes[md].family]);
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, name, NULL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    const int ok = cipher && ctx &&
                   EVP_CipherInit_ex(ctx, cipher, NULL, bench_key, iv, !is_decrypt(md));
    EVP_CIPHER_free(cipher);
    if (!ok) {
        EVP_CIPHER_CTX_free(ctx);
        return -1;
    }
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    job->fn = run_openssl;
    job->ctx = ctx;
    return 0;
}
#endif

#ifdef HAVE_GCRYPT
static int gcrypt_ready;

void bench_gcrypt_init(void)
{
    if (!gcrypt_ready) {
        gcry_check_version(NULL);
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        gcrypt_ready = 1;
    }
}

struct gcrypt_run {
    gcry_cipher_hd_t h;
    int decrypt;
};

static void run_gcrypt(void *ctx, uint8_t *buf, size_t len)
{
    struct gcrypt_run *r = ctx;
    if (r->decrypt)
        gcry_cipher_decrypt(r->h, buf, len, NULL, 0);
    else
        gcry_cipher_encrypt(r->h, buf, len, NULL, 0);
}

static int gcrypt_open(enum aes_gen_mode_dir md, unsigned bits, struct bench_job *job)
{
    static const int modes[] = {
        [AES_GEN_FAMILY_ECB] = GCRY_CIPHER_MODE_ECB, [AES_GEN_FAMILY_CBC] = GCRY_CIPHER_MODE_CBC,
        [AES_GEN_FAMILY_CFB] = GCRY_CIPHER_MODE_CFB, [AES_GEN_FAMILY_OFB] = GCRY_CIPHER_MODE_OFB,
        [AES_GEN_FAMILY_CTR] = GCRY_CIPHER_MODE_CTR};
    const int algo = bits == 128 ? GCRY_CIPHER_AES128
                     : bits == 192 ? GCRY_CIPHER_AES192 : GCRY_CIPHER_AES256;
    uint8_t iv[16] = {0};
    if (!standard_mode(md))
        return -1;
    struct gcrypt_run *r = calloc(1, sizeof *r);
    bench_gcrypt_init();
    if (!r || gcry_cipher_open(&r->h, algo, modes[aes_gen_modes[md].family], 0)) {
        free(r);
        return -1;
    }
    r->decrypt = is_decrypt(md);
    if (gcry_cipher_setkey(r->h, bench_key, bits / 8) ||
        (aes_gen_modes[md].iv == AES_GEN_IV_COUNTER ? gcry_cipher_setctr(r->h, iv, 16)
         : aes_gen_modes[md].iv == AES_GEN_IV_CHAIN ? gcry_cipher_setiv(r->h, iv, 16) : 0)) {
        gcry_cipher_close(r->h);
        free(r);
        return -1;
    }
    job->fn = run_gcrypt;
    job->ctx = r;
    return 0;
}
#endif

void peer_gcrypt_disable_hw(int keep_ssse3)
{
#ifdef HAVE_GCRYPT
    /* Before gcry_check_version; names as libgcrypt's hwfeatures.c spells them. */
    gcry_control(GCRYCTL_DISABLE_HWF, "intel-aesni", NULL);
    gcry_control(GCRYCTL_DISABLE_HWF, "intel-vaes-vpclmul", NULL);
    if (!keep_ssse3) {
        gcry_control(GCRYCTL_DISABLE_HWF, "intel-ssse3", NULL);
        gcry_control(GCRYCTL_DISABLE_HWF, "intel-avx2", NULL);
    }
#else
    (void)keep_ssse3;
#endif
}

#ifdef HAVE_NETTLE
struct nettle_run {
    union {
        struct aes128_ctx k128;
        struct aes192_ctx k192;
        struct aes256_ctx k256;
    } ctx;
    nettle_cipher_func *enc, *dec;
    enum aes_gen_family family;
    int decrypt;
    unsigned bits;
    uint8_t iv[16];
};

static void run_nettle(void *p, uint8_t *buf, size_t len)
{
    struct nettle_run *r = p;
    switch (r->family) {
    case AES_GEN_FAMILY_ECB: (r->decrypt ? r->dec : r->enc)(&r->ctx, len, buf, buf); break;
    case AES_GEN_FAMILY_CBC:
        if (r->decrypt) {
            cbc_decrypt(&r->ctx, r->dec, 16, r->iv, len, buf, buf);
            break;
        }
        /* nettle's own CBC-AES entry points (AES-NI where available) */
        if (r->bits == 128)
            cbc_aes128_encrypt(&r->ctx.k128, r->iv, len, buf, buf);
        else if (r->bits == 192)
            cbc_aes192_encrypt(&r->ctx.k192, r->iv, len, buf, buf);
        else
            cbc_aes256_encrypt(&r->ctx.k256, r->iv, len, buf, buf);
        break;
    case AES_GEN_FAMILY_CFB:
        (r->decrypt ? cfb_decrypt : cfb_encrypt)(&r->ctx, r->enc, 16, r->iv, len, buf, buf);
        break;
    case AES_GEN_FAMILY_CTR: ctr_crypt(&r->ctx, r->enc, 16, r->iv, len, buf, buf); break;
    default: break;
    }
}

static int nettle_open(enum aes_gen_mode_dir md, unsigned bits, struct bench_job *job)
{
    if (aes_gen_modes[md].family == AES_GEN_FAMILY_OFB || !standard_mode(md))
        return -1; /* nettle has no OFB */
    struct nettle_run *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->family = aes_gen_modes[md].family;
    r->decrypt = aes_gen_modes[md].decrypt;
    r->bits = bits;
    /* ECB and CBC decryption use the decryption key; CFB decrypts with E. */
    const int dec = aes_gen_modes[md].dec_schedule;
    if (bits == 128) {
        (dec ? aes128_set_decrypt_key : aes128_set_encrypt_key)(&r->ctx.k128, bench_key);
        r->enc = (nettle_cipher_func *)aes128_encrypt;
        r->dec = (nettle_cipher_func *)aes128_decrypt;
    } else if (bits == 192) {
        (dec ? aes192_set_decrypt_key : aes192_set_encrypt_key)(&r->ctx.k192, bench_key);
        r->enc = (nettle_cipher_func *)aes192_encrypt;
        r->dec = (nettle_cipher_func *)aes192_decrypt;
    } else {
        (dec ? aes256_set_decrypt_key : aes256_set_encrypt_key)(&r->ctx.k256, bench_key);
        r->enc = (nettle_cipher_func *)aes256_encrypt;
        r->dec = (nettle_cipher_func *)aes256_decrypt;
    }
    job->fn = run_nettle;
    job->ctx = r;
    return 0;
}
#endif

#ifdef HAVE_IPSECMB
/* Intel ipsec-mb's job API (it has no direct block-mode functions): ECB,
 * CBC and CTR, one message per job, submitted and flushed (its multi-buffer
 * managers would otherwise wait for more jobs). */
struct ipsecmb_run {
    _Alignas(16) uint8_t enc[16 * 15], dec[16 * 15];
    uint8_t iv[16];
    unsigned bits;
    IMB_CIPHER_MODE mode;
    IMB_CIPHER_DIRECTION dir;
};

static void run_ipsecmb(void *ctx, uint8_t *buf, size_t len)
{
    struct ipsecmb_run *r = ctx;
    IMB_MGR *mgr = bench_ipsecmb_mgr();
    IMB_JOB *job = IMB_GET_NEXT_JOB(mgr);
    job->enc_keys = r->enc;
    job->dec_keys = r->dec;
    job->key_len_in_bytes = r->bits / 8;
    job->src = buf;
    job->dst = buf;
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = len;
    job->iv = r->iv;
    job->iv_len_in_bytes = r->mode == IMB_CIPHER_ECB ? 0 : 16;
    job->cipher_mode = r->mode;
    job->cipher_direction = r->dir;
    job->hash_alg = IMB_AUTH_NULL;
    job->chain_order = r->dir == IMB_DIR_ENCRYPT ? IMB_ORDER_CIPHER_HASH : IMB_ORDER_HASH_CIPHER;
    job = IMB_SUBMIT_JOB(mgr);
    while (!job)
        job = IMB_FLUSH_JOB(mgr);
    if (job->status != IMB_STATUS_COMPLETED) {
        fprintf(stderr, "aes-gen-bench: ipsec-mb job failed (status %d)\n", (int)job->status);
        exit(1);
    }
}

static int ipsecmb_open(enum aes_gen_mode_dir md, unsigned key_bits, struct bench_job *job)
{
    const int family = aes_gen_modes[md].family;
    if (!standard_mode(md) || (family != AES_GEN_FAMILY_ECB && family != AES_GEN_FAMILY_CBC &&
                               family != AES_GEN_FAMILY_CTR))
        return -1;
    IMB_MGR *mgr = bench_ipsecmb_mgr();
    struct ipsecmb_run *r = aligned_alloc(16, (sizeof *r + 15) / 16 * 16);
    if (!r)
        return -1;
    memset(r, 0, sizeof *r);
    r->bits = key_bits;
    r->mode = family == AES_GEN_FAMILY_ECB ? IMB_CIPHER_ECB
              : family == AES_GEN_FAMILY_CBC ? IMB_CIPHER_CBC : IMB_CIPHER_CNTR;
    r->dir = is_decrypt(md) ? IMB_DIR_DECRYPT : IMB_DIR_ENCRYPT;
    if (key_bits == 128)
        IMB_AES_KEYEXP_128(mgr, bench_key, r->enc, r->dec);
    else if (key_bits == 192)
        IMB_AES_KEYEXP_192(mgr, bench_key, r->enc, r->dec);
    else
        IMB_AES_KEYEXP_256(mgr, bench_key, r->enc, r->dec);
    job->fn = run_ipsecmb;
    job->ctx = r;
    return 0;
}
#endif

int peer_open(int peer, enum aes_gen_mode_dir md, unsigned key_bits, struct bench_job *job)
{
    (void)md, (void)key_bits, (void)job;
    switch (peer) {
#ifdef HAVE_OPENSSL
    case PEER_OPENSSL: return openssl_open(md, key_bits, job);
#endif
#ifdef HAVE_GCRYPT
    case PEER_GCRYPT: return gcrypt_open(md, key_bits, job);
#endif
#ifdef HAVE_NETTLE
    case PEER_NETTLE: return nettle_open(md, key_bits, job);
#endif
#ifdef HAVE_IPSECMB
    case PEER_IPSECMB: return ipsecmb_open(md, key_bits, job);
#endif
    default: return -1;
    }
}

void peer_close(int peer, struct bench_job *job)
{
    switch (peer) {
#ifdef HAVE_OPENSSL
    case PEER_OPENSSL: EVP_CIPHER_CTX_free(job->ctx); break;
#endif
#ifdef HAVE_GCRYPT
    case PEER_GCRYPT: gcry_cipher_close(((struct gcrypt_run *)job->ctx)->h); free(job->ctx); break;
#endif
    default: free(job->ctx); break;
    }
    job->ctx = NULL;
}

/* --setkey's peers: each library's key setup with both schedules, as
 * aes_gen_setkey makes both, keyed from the buffer's first bytes. */
const char *const setkey_peer_names[SETKEY_PEER_COUNT] = {"openssl", "gcrypt", "nettle",
                                                         "ipsec-mb"};

struct setkey_run {
    unsigned bits;
    union {
#ifdef HAVE_OPENSSL
        struct {
            AES_KEY enc, dec;
        } openssl;
#endif
#ifdef HAVE_GCRYPT
        gcry_cipher_hd_t gcrypt;
#endif
#ifdef HAVE_NETTLE
        struct {
            struct aes128_ctx enc128, dec128;
            struct aes192_ctx enc192, dec192;
            struct aes256_ctx enc256, dec256;
        } nettle;
#endif
#ifdef HAVE_IPSECMB
        struct {
            _Alignas(16) uint8_t enc[16 * 15], dec[16 * 15];
        } ipsecmb;
#endif
        char none;
    } u;
};

#ifdef HAVE_OPENSSL
static void run_openssl_setkey(void *ctx, uint8_t *buf, size_t len)
{
    struct setkey_run *s = ctx;
    (void)len;
    AES_set_encrypt_key(buf, (int)s->bits, &s->u.openssl.enc);
    AES_set_decrypt_key(buf, (int)s->bits, &s->u.openssl.dec);
}
#endif

#ifdef HAVE_GCRYPT
/* gcry_cipher_setkey expands the encryption schedule and, on this path,
 * the decryption one only at the first decryption: one block's decryption
 * makes it (and is counted). */
static void run_gcrypt_setkey(void *ctx, uint8_t *buf, size_t len)
{
    struct setkey_run *s = ctx;
    uint8_t block[16] = {0};
    (void)len;
    gcry_cipher_setkey(s->u.gcrypt, buf, s->bits / 8);
    gcry_cipher_decrypt(s->u.gcrypt, block, 16, NULL, 0);
}
#endif

#ifdef HAVE_NETTLE
static void run_nettle_setkey(void *ctx, uint8_t *buf, size_t len)
{
    struct setkey_run *s = ctx;
    (void)len;
    if (s->bits == 128) {
        aes128_set_encrypt_key(&s->u.nettle.enc128, buf);
        aes128_invert_key(&s->u.nettle.dec128, &s->u.nettle.enc128);
    } else if (s->bits == 192) {
        aes192_set_encrypt_key(&s->u.nettle.enc192, buf);
        aes192_invert_key(&s->u.nettle.dec192, &s->u.nettle.enc192);
    } else {
        aes256_set_encrypt_key(&s->u.nettle.enc256, buf);
        aes256_invert_key(&s->u.nettle.dec256, &s->u.nettle.enc256);
    }
}
#endif

#ifdef HAVE_IPSECMB
static void run_ipsecmb_setkey(void *ctx, uint8_t *buf, size_t len)
{
    struct setkey_run *s = ctx;
    IMB_MGR *mgr = bench_ipsecmb_mgr();
    (void)len;
    if (s->bits == 128)
        IMB_AES_KEYEXP_128(mgr, buf, s->u.ipsecmb.enc, s->u.ipsecmb.dec);
    else if (s->bits == 192)
        IMB_AES_KEYEXP_192(mgr, buf, s->u.ipsecmb.enc, s->u.ipsecmb.dec);
    else
        IMB_AES_KEYEXP_256(mgr, buf, s->u.ipsecmb.enc, s->u.ipsecmb.dec);
}
#endif

int peer_open_setkey(int peer, unsigned key_bits, struct bench_job *job)
{
    static struct setkey_run runs[SETKEY_PEER_COUNT][3];
    struct setkey_run *s = &runs[peer][aes_gen_key_index(key_bits)];
    s->bits = key_bits;
    job->ctx = s;
    switch (peer) {
#ifdef HAVE_OPENSSL
    case SETKEY_PEER_OPENSSL: job->fn = run_openssl_setkey; return 0;
#endif
#ifdef HAVE_GCRYPT
    case SETKEY_PEER_GCRYPT: {
        static const int algo[3] = {GCRY_CIPHER_AES128, GCRY_CIPHER_AES192, GCRY_CIPHER_AES256};
        bench_gcrypt_init();
        if (!s->u.gcrypt && gcry_cipher_open(&s->u.gcrypt, algo[aes_gen_key_index(key_bits)],
                                             GCRY_CIPHER_MODE_ECB, 0))
            return -1;
        job->fn = run_gcrypt_setkey;
        return 0;
    }
#endif
#ifdef HAVE_NETTLE
    case SETKEY_PEER_NETTLE: job->fn = run_nettle_setkey; return 0;
#endif
#ifdef HAVE_IPSECMB
    case SETKEY_PEER_IPSECMB:
        bench_ipsecmb_mgr(); /* set up before the timing */
        job->fn = run_ipsecmb_setkey;
        return 0;
#endif
    default: return -1;
    }
}
