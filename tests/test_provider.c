/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aes_gen_provider.so against OpenSSL's default provider, through EVP only.
 * Both are loaded into one library context; every cipher is fetched from
 * each ("provider=aesgen", "provider=default") and the same calls on both
 * must give the same bytes and return values: random keys, IVs (GCM: 12
 * bytes and 1..64) and lengths (every one to 300, random ones to 4096, a few
 * larger), the message in random update chunks (0 and 1 bytes among them),
 * padding on and off, in place and out of place, both directions, the
 * updated IV and num after every update, GCM's AAD in pieces and its tags
 * (16, 12, 8, 4 bytes); random ciphertexts and tampered GCM messages; the
 * error paths; a context copied mid-message (the original freed first);
 * reinitialisation with a new IV and no key.  The provider's deliberate
 * differences (README.md, OpenSSL provider) are checked as differences.
 * Usage: test_provider MODULE_DIR.  AES_GEN_TEST_SEED=0x... repeats a run.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/proverr.h>
#include <openssl/provider.h>

#include "common.h"

static const char *const cipher_names[] = {
    "AES-128-ECB", "AES-192-ECB", "AES-256-ECB", "AES-128-CBC", "AES-192-CBC",
    "AES-256-CBC", "AES-128-CFB", "AES-192-CFB", "AES-256-CFB", "AES-128-OFB",
    "AES-192-OFB", "AES-256-OFB", "AES-128-CTR", "AES-192-CTR", "AES-256-CTR",
    "AES-128-GCM", "AES-192-GCM", "AES-256-GCM", "AES-128-XTS", "AES-256-XTS"};
#define NCIPHERS (sizeof cipher_names / sizeof cipher_names[0])

enum { AESGEN, DEFAULT };
static const char *const provider_names[] = {"aesgen", "default"};
static OSSL_LIB_CTX *libctx;
/* aes-gen's provider alone: a name is known there only if that provider
 * registers it (in libctx the default provider's aliases serve both). */
static OSSL_LIB_CTX *alone;
static EVP_CIPHER *ciphers[NCIPHERS][2]; /* [AESGEN] NULL: not offered in this build */
static uint64_t seed;

/* Check records every assertion that passes (a write to its log each): the
 * loops here check with these, which call Check only to fail. */
#define REQUIRE(cond) \
    do { \
        if (!(cond)) \
            ck_abort_msg("%s:%d: %s (seed 0x%llx)", __FILE__, __LINE__, #cond, \
                         (unsigned long long)seed); \
    } while (0)
#define REQUIRE_EQ(a, b) \
    do { \
        const long long a_ = (long long)(a), b_ = (long long)(b); \
        if (a_ != b_) \
            ck_abort_msg("%s:%d: %s is %lld, %s is %lld (seed 0x%llx)", __FILE__, __LINE__, #a, \
                         a_, #b, b_, (unsigned long long)seed); \
    } while (0)

/* --- helpers ------------------------------------------------------------------------ */

static int mode_of(size_t i)
{
    return EVP_CIPHER_get_mode(ciphers[i][DEFAULT]);
}

static int is_block(size_t i)
{
    return mode_of(i) == EVP_CIPH_ECB_MODE || mode_of(i) == EVP_CIPH_CBC_MODE;
}

static int is_gcm(size_t i)
{
    return mode_of(i) == EVP_CIPH_GCM_MODE;
}

static int is_xts(size_t i)
{
    return mode_of(i) == EVP_CIPH_XTS_MODE;
}

static size_t key_len(size_t i)
{
    return (size_t)EVP_CIPHER_get_key_length(ciphers[i][DEFAULT]);
}

/* A generator per test and loop index, from the run's seed. */
static uint64_t rng_for(const char *test, int index)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *test; test++)
        h = (h ^ (uint8_t)*test) * 0x100000001b3ull;
    return seed ^ h ^ ((uint64_t)index * 0x9e3779b97f4a7c15ull);
}

static size_t rnd(uint64_t *s, size_t n)
{
    return n ? (size_t)(rng_next(s) % n) : 0;
}

static void random_key(uint64_t *s, size_t i, uint8_t *key)
{
    rng_fill(s, key, key_len(i));
    if (is_xts(i)) /* halves that differ: equal ones have a test of their own */
        key[0] = (uint8_t)(key[key_len(i) / 2] ^ 1);
}

/* The skip for a cipher this build does not offer (make gen KEYS=...). */
static int offered(size_t i)
{
    if (ciphers[i][AESGEN] != NULL)
        return 1;
    printf("%s: not offered by aesgen in this build, skipped\n", cipher_names[i]);
    return 0;
}

/* --- traces: what the calls returned, one line each ------------------------------- */

struct trace {
    char *s;
    size_t len, cap;
};

static void tr(struct trace *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        const int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            ck_abort_msg("vsnprintf failed");
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = 2 * (t->cap + (size_t)n + 256);
        t->s = realloc(t->s, t->cap);
        if (t->s == NULL)
            ck_abort_msg("out of memory");
    }
}

/* Bytes: in hex up to 64 of them, else their length and an FNV-1a hash. */
static void tr_bytes(struct trace *t, const char *what, const uint8_t *p, size_t n)
{
    tr(t, " %s[%zu]=", what, n);
    if (n <= 64) {
        for (size_t k = 0; k < n; k++)
            tr(t, "%02x", p[k]);
        return;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 0x100000001b3ull;
    tr(t, "#%016llx", (unsigned long long)h);
}

/* A return value and the library and reason of the last error if it is
 * OpenSSL's (EVP or PROV): the provider's own reasons, and none, count as 0. */
static void tr_ret(struct trace *t, const char *what, int r)
{
    const unsigned long e = ERR_peek_last_error();
    const int lib = ERR_GET_LIB(e);
    const int ossl = lib == ERR_LIB_PROV || lib == ERR_LIB_EVP;
    tr(t, "%s r=%d lib=%d reason=%d", what, r, ossl ? lib : 0, ossl ? ERR_GET_REASON(e) : 0);
    ERR_clear_error();
}

/* aes-gen's provider's reasons (aes_gen_provider.c). */
#define BAD_NUM "num is not a position in the block in use"
#define TLS_UNSUPPORTED "TLS record-layer parameters are not supported"
#define TAG_MISMATCH "GCM tag does not match"
#define MESSAGE_FINISHED "GCM message finished: set a new IV"

/* One of aes-gen's provider's reasons, by its text, is in the error queue
 * (OpenSSL's may follow it, as the default provider raises them); the queue
 * is emptied. */
static void require_aesgen_reason(const char *text)
{
    int found = 0;
    for (unsigned long e; (e = ERR_get_error()) != 0;) {
        const char *r = ERR_reason_error_string(e);
        found |= r != NULL && strcmp(r, text) == 0;
    }
    if (!found)
        ck_abort_msg("no error \"%s\"", text);
}

/* The last error is one of OpenSSL's provider reasons. */
static void require_prov_reason(int reason)
{
    const unsigned long e = ERR_peek_last_error();
    REQUIRE_EQ(ERR_GET_LIB(e), ERR_LIB_PROV);
    REQUIRE_EQ(ERR_GET_REASON(e), reason);
    ERR_clear_error();
}

static void tr_free(struct trace *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

/* The first line where the traces differ, or nothing. */
static void same_trace(const struct trace *a, const struct trace *d, const char *what)
{
    if (a->len == d->len && memcmp(a->s, d->s, a->len) == 0)
        return;
    size_t k = 0, line = 0;
    while (k < a->len && k < d->len && a->s[k] == d->s[k])
        k++;
    while (line < k && a->s[k - line - 1] != '\n')
        line++;
    const char *la = a->s + k - line, *ld = d->s + k - line;
    const int na = (int)strcspn(la, "\n"), nd = (int)strcspn(ld, "\n");
    ck_abort_msg("%s: the providers differ (seed 0x%llx)\n  aesgen:  %.*s\n  default: %.*s", what,
                 (unsigned long long)seed, na, la, nd, ld);
}

/* --- one message through EVP ------------------------------------------------------- */

#define MAX_CHUNKS 200

struct msg {
    int enc;
    int pad; /* ECB, CBC: 0 or 1; -1 leaves the default */
    int in_place;
    const uint8_t *key, *iv;
    size_t ivlen;
    const uint8_t *aad;
    size_t aad_cuts[6], naad; /* AAD piece lengths */
    const uint8_t *in;
    size_t len;
    size_t chunks[MAX_CHUNKS], nchunks; /* update lengths (XTS: data units) */
    const uint8_t *tag;                 /* GCM decryption: the expected tag */
    size_t taglen;                      /* GCM: the tag's length */
};

/* What the context says of itself: its lengths, its padding, num. */
static void tr_context(EVP_CIPHER_CTX *ctx, struct trace *t)
{
    unsigned int pad = 7;
    OSSL_PARAM params[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &pad), OSSL_PARAM_END};
    tr(t, " key_length=%d iv_length=%d tag_length=%d num=%d", EVP_CIPHER_CTX_get_key_length(ctx),
       EVP_CIPHER_CTX_get_iv_length(ctx), EVP_CIPHER_CTX_get_tag_length(ctx),
       EVP_CIPHER_CTX_get_num(ctx));
    tr_ret(t, " padding", EVP_CIPHER_CTX_get_params(ctx, params));
    tr(t, "=%u", pad);
}

/* Runs m on cipher c into out (m->len + 16 bytes) and t; returns the bytes
 * written.  After every update: the updated IV (not for ECB) and num. */
static size_t run_msg(const EVP_CIPHER *c, const struct msg *m, uint8_t *out, struct trace *t)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    const int mode = EVP_CIPHER_get_mode(c);
    const int gcm = mode == EVP_CIPH_GCM_MODE;
    size_t in_off = 0, out_off = 0, aad_off = 0;
    uint8_t ivb[16], tag[16];
    int outl, r;

    REQUIRE((ctx) != NULL);
    tr_ret(t, "init", EVP_CipherInit_ex2(ctx, c, NULL, NULL, m->enc, NULL));
    if (gcm && m->ivlen != 12)
        tr_ret(t, "\nivlen", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)m->ivlen, NULL));
    if (m->pad >= 0)
        tr_ret(t, "\npadding", EVP_CIPHER_CTX_set_padding(ctx, m->pad));
    if (gcm && !m->enc && m->tag)
        tr_ret(t, "\nset-tag",
               EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, (int)m->taglen, (void *)m->tag));
    tr_ret(t, "\nkey-iv", EVP_CipherInit_ex2(ctx, NULL, m->key, m->iv, m->enc, NULL));
    tr_context(ctx, t);
    for (size_t k = 0; k < m->naad; k++) {
        r = EVP_CipherUpdate(ctx, NULL, &outl, m->aad + aad_off, (int)m->aad_cuts[k]);
        tr_ret(t, "\naad", r);
        tr(t, " outl=%d", outl);
        aad_off += m->aad_cuts[k];
    }
    if (m->in_place)
        memcpy(out, m->in, m->len);
    for (size_t k = 0; k < m->nchunks; k++) {
        /* In place: the input where it is in out, the output where the
         * output so far ends (behind it by the bytes the cipher holds). */
        const uint8_t *src = m->in_place ? out + in_off : m->in + in_off;
        outl = -1;
        r = EVP_CipherUpdate(ctx, out + out_off, &outl, src, (int)m->chunks[k]);
        tr_ret(t, "\nupdate", r);
        tr(t, " in=%zu outl=%d", m->chunks[k], outl);
        if (r == 1) {
            tr_bytes(t, "out", out + out_off, (size_t)outl);
            out_off += (size_t)outl;
        }
        in_off += m->chunks[k];
        if (mode != EVP_CIPH_ECB_MODE && !gcm) {
            memset(ivb, 0, sizeof ivb);
            tr_ret(t, " updated-iv", EVP_CIPHER_CTX_get_updated_iv(ctx, ivb, sizeof ivb));
            tr_bytes(t, "iv", ivb, sizeof ivb);
        }
        tr(t, " num=%d", EVP_CIPHER_CTX_get_num(ctx));
    }
    outl = -1;
    r = EVP_CipherFinal_ex(ctx, out + out_off, &outl);
    tr_ret(t, "\nfinal", r);
    tr(t, " outl=%d", outl);
    if (r == 1) {
        tr_bytes(t, "out", out + out_off, (size_t)outl);
        out_off += (size_t)outl;
    }
    if (!gcm) {
        memset(ivb, 0, sizeof ivb);
        tr_ret(t, " updated-iv", EVP_CIPHER_CTX_get_updated_iv(ctx, ivb, sizeof ivb));
        tr_bytes(t, "iv", ivb, sizeof ivb);
    } else if (m->enc) {
        memset(tag, 0, sizeof tag);
        tr_ret(t, "\nget-tag", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, (int)m->taglen, tag));
        tr_bytes(t, "tag", tag, m->taglen);
    }
    tr_context(ctx, t);
    tr(t, "\n");
    EVP_CIPHER_CTX_free(ctx);
    return out_off;
}

/* m on both providers: the same trace and the same bytes. */
static size_t run_both(size_t i, const struct msg *m, uint8_t *out_aesgen, const char *what)
{
    struct trace t[2] = {{0}};
    uint8_t *out_default = malloc(m->len + 32);
    REQUIRE((out_default) != NULL);
    const size_t n = run_msg(ciphers[i][AESGEN], m, out_aesgen, &t[AESGEN]);
    const size_t nd = run_msg(ciphers[i][DEFAULT], m, out_default, &t[DEFAULT]);
    char label[160];
    snprintf(label, sizeof label, "%s %s %s, %zu bytes in %zu updates, %s, padding %d", what,
             cipher_names[i], m->enc ? "encryption" : "decryption", m->len, m->nchunks,
             m->in_place ? "in place" : "out of place", m->pad);
    same_trace(&t[AESGEN], &t[DEFAULT], label);
    REQUIRE_EQ(n, nd);
    if (memcmp(out_aesgen, out_default, n) != 0)
        ck_abort_msg("%s: outputs differ (seed 0x%llx)", label, (unsigned long long)seed);
    free(out_default);
    tr_free(&t[0]);
    tr_free(&t[1]);
    return n;
}

/* Update lengths for len bytes: 0, 1, a few, whole blocks, any.  XTS: data
 * units of 16 bytes or more (one that is shorter stays so, and fails). */
static void split(uint64_t *s, size_t i, struct msg *m)
{
    size_t left = m->len;
    m->nchunks = 0;
    while (left > 0 && m->nchunks < MAX_CHUNKS - 2) {
        size_t c;
        if (is_xts(i)) {
            c = left < 32 ? left : 16 + rnd(s, left - 15);
            if (left - c < 16)
                c = left;
        } else {
            switch (rnd(s, 8)) {
            case 0: c = 0; break;
            case 1: c = 1; break;
            case 2: c = 1 + rnd(s, 15); break;
            case 3: c = 16 * (1 + rnd(s, 4)); break;
            case 4: c = 1 + rnd(s, 64); break;
            default: c = rnd(s, left + 1); break;
            }
            c = c < left ? c : left;
        }
        m->chunks[m->nchunks++] = c;
        left -= c;
    }
    if (left > 0 || m->nchunks == 0)
        m->chunks[m->nchunks++] = left;
    if (!is_xts(i) && rnd(s, 4) == 0)
        m->chunks[m->nchunks++] = 0;
}

static const size_t tag_lens[] = {16, 12, 8, 4};

/* A random message for cipher i of len bytes (the key and IV buffers are
 * the caller's). */
static void plan(uint64_t *s, size_t i, struct msg *m, size_t len, uint8_t *key, uint8_t *iv,
                 uint8_t *aad, const uint8_t *in)
{
    memset(m, 0, sizeof *m);
    m->enc = 1;
    random_key(s, i, key);
    m->key = key;
    m->ivlen = (size_t)EVP_CIPHER_get_iv_length(ciphers[i][DEFAULT]);
    if (is_gcm(i) && rnd(s, 2))
        m->ivlen = 1 + rnd(s, 64);
    rng_fill(s, iv, 64);
    if (mode_of(i) == EVP_CIPH_CTR_MODE && rnd(s, 4) == 0) /* the counter about to carry */
        memset(iv + 16 - 1 - rnd(s, 16), 0xff, 1 + rnd(s, 16));
    m->iv = mode_of(i) == EVP_CIPH_ECB_MODE ? NULL : iv;
    m->pad = is_block(i) ? (int)rnd(s, 2) : -1;
    m->in_place = (int)rnd(s, 2);
    m->in = in;
    m->len = len;
    if (is_gcm(i)) {
        size_t total = 0;
        m->aad = aad;
        m->naad = rnd(s, 5);
        for (size_t k = 0; k < m->naad; k++)
            total += m->aad_cuts[k] = rnd(s, 3) == 0 ? 0 : rnd(s, 40);
        rng_fill(s, aad, total);
        m->taglen = tag_lens[rnd(s, 4)];
    }
    split(s, i, m);
}

/* --- the suites -------------------------------------------------------------------- */

START_TEST(provider_params)
{
    OSSL_PROVIDER *p = OSSL_PROVIDER_load(libctx, "aesgen");
    REQUIRE((p) != NULL);
    const char *name = NULL, *version = NULL, *buildinfo = NULL;
    int status = 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, &name, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, &version, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, &buildinfo, 0),
        OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, &status), OSSL_PARAM_END};
    REQUIRE_EQ(OSSL_PROVIDER_get_params(p, params), 1);
    ck_assert_str_eq(name, "aes-gen provider");
    ck_assert_str_eq(version, aes_gen_version());
    REQUIRE_EQ(status, 1);
    printf("aesgen: %s %s (%s)\n", name, version, buildinfo);
    REQUIRE_EQ(OSSL_PROVIDER_available(libctx, "aesgen"), 1);
    OSSL_PROVIDER_unload(p);
}
END_TEST

/* Every cipher whose AES key size this build sets up is offered (none
 * silently missing), and none other. */
START_TEST(offered_where_the_key_size_runs)
{
    const size_t i = (size_t)_i;
    static const uint8_t zero[32];
    aes_gen_key k;
    const size_t aes_len = is_xts(i) ? key_len(i) / 2 : key_len(i);
    const int runs = aes_gen_setkey(&k, zero, aes_len) == AES_GEN_OK;
    aes_gen_wipe(&k);
    ck_assert_msg((ciphers[i][AESGEN] != NULL) == runs, "%s: %s by aesgen, its key size %s",
                  cipher_names[i], ciphers[i][AESGEN] ? "offered" : "not offered",
                  runs ? "runs" : "does not run");
}
END_TEST

/* Parameter lists: ours are the default provider's but for its TLS ones
 * (GCM's are in both, maybe in another order: left out on both sides). */
static int is_tls_param(const char *key)
{
    static const char *const tls[] = {"tls-mac", "tls-version", "tls-mac-size", "tlsaad",
                                      "tlsaadpad", "tlsivfixed", "tlsivgen", "tlsivinv"};
    for (size_t k = 0; k < sizeof tls / sizeof tls[0]; k++)
        if (strcmp(key, tls[k]) == 0)
            return 1;
    return 0;
}

static void same_param_list(const OSSL_PARAM *a, const OSSL_PARAM *d, const char *what)
{
    struct trace t[2] = {{0}};
    for (; a && a->key; a++)
        if (!is_tls_param(a->key))
            tr(&t[AESGEN], "%s:%u ", a->key, a->data_type);
    for (; d && d->key; d++)
        if (!is_tls_param(d->key))
            tr(&t[DEFAULT], "%s:%u ", d->key, d->data_type);
    same_trace(&t[AESGEN], &t[DEFAULT], what);
    tr_free(&t[0]);
    tr_free(&t[1]);
}

/* A name of a default provider cipher fetches aes-gen's, where that
 * provider is the only one loaded. */
static void fetch_ours(const char *name, void *unused)
{
    (void)unused;
    EVP_CIPHER *ours = EVP_CIPHER_fetch(alone, name, NULL);
    if (ours == NULL)
        ck_abort_msg("%s: not offered by aesgen", name);
    EVP_CIPHER_free(ours);
}

START_TEST(cipher_descriptions)
{
    const size_t i = (size_t)_i;
    if (!offered(i))
        return;
    const EVP_CIPHER *a = ciphers[i][AESGEN], *d = ciphers[i][DEFAULT];
    ck_assert_str_eq(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(a)), "aesgen");
    ck_assert_str_eq(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(d)), "default");
    REQUIRE_EQ(EVP_CIPHER_get_mode(a), EVP_CIPHER_get_mode(d));
    REQUIRE_EQ(EVP_CIPHER_get_flags(a), EVP_CIPHER_get_flags(d));
    REQUIRE_EQ(EVP_CIPHER_get_key_length(a), EVP_CIPHER_get_key_length(d));
    REQUIRE_EQ(EVP_CIPHER_get_iv_length(a), EVP_CIPHER_get_iv_length(d));
    REQUIRE_EQ(EVP_CIPHER_get_block_size(a), EVP_CIPHER_get_block_size(d));
    REQUIRE_EQ(EVP_CIPHER_get_nid(a), EVP_CIPHER_get_nid(d));
    /* Every name and alias of the default's answers with ours. */
    REQUIRE_EQ(EVP_CIPHER_names_do_all(d, fetch_ours, NULL), 1);
    same_param_list(EVP_CIPHER_gettable_params(a), EVP_CIPHER_gettable_params(d), "gettable");
    same_param_list(EVP_CIPHER_gettable_ctx_params(a), EVP_CIPHER_gettable_ctx_params(d),
                    "gettable ctx");
    same_param_list(EVP_CIPHER_settable_ctx_params(a), EVP_CIPHER_settable_ctx_params(d),
                    "settable ctx");
}
END_TEST

/* Encryption, decryption of the result, and decryption of random bytes. */
static void round_trip(uint64_t *s, size_t i, size_t len)
{
    uint8_t key[64], iv[64], aad[256], tag[16];
    uint8_t *in = malloc(len + 16), *ct = malloc(len + 32), *pt = malloc(len + 32);
    struct msg m;
    REQUIRE(in && ct && pt);
    rng_fill(s, in, len);
    plan(s, i, &m, len, key, iv, aad, in);
    /* Without padding, mostly whole blocks (a partial one fails at final). */
    if (is_block(i) && m.pad == 0 && rnd(s, 4) != 0) {
        m.len = len & ~(size_t)15;
        split(s, i, &m);
    }
    size_t n = run_both(i, &m, ct, "encrypt");
    /* The tag, from a run that kept it. */
    if (is_gcm(i)) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        int outl;
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], NULL, NULL, 1, NULL), 1);
        if (m.ivlen != 12)
            REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)m.ivlen, NULL), 1);
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, NULL), 1);
        size_t aad_len = 0;
        for (size_t k = 0; k < m.naad; k++)
            aad_len += m.aad_cuts[k];
        REQUIRE_EQ(EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)aad_len), 1);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, pt, &outl, in, (int)m.len), 1);
        REQUIRE(memcmp(pt, ct, m.len) == 0);
        REQUIRE_EQ(EVP_CipherFinal_ex(ctx, pt, &outl), 1);
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, (int)m.taglen, tag), 1);
        EVP_CIPHER_CTX_free(ctx);
        m.tag = tag;
    }
    const int encrypted = !(is_block(i) && m.pad == 0 && m.len % 16) && !(is_xts(i) && m.len < 16);
    if (encrypted) { /* back again, split anew */
        const size_t plain_len = m.len;
        m.enc = 0;
        m.in = ct;
        m.len = n;
        m.in_place = (int)rnd(s, 2);
        if (!is_xts(i)) /* XTS: the same data units */
            split(s, i, &m);
        const size_t back = run_both(i, &m, pt, "decrypt");
        REQUIRE_EQ(back, plain_len);
        if (memcmp(pt, in, plain_len) != 0)
            ck_abort_msg("%s: no round trip (seed 0x%llx)", cipher_names[i],
                         (unsigned long long)seed);
    }
    /* Random ciphertext (a wrong padding, a wrong tag, a partial block). */
    m.enc = 0;
    m.in = in;
    m.len = rnd(s, len + 1);
    if (is_gcm(i))
        rng_fill(s, tag, sizeof tag), m.tag = tag;
    m.in_place = (int)rnd(s, 2);
    split(s, i, &m);
    run_both(i, &m, pt, "decrypt random");
    free(in);
    free(ct);
    free(pt);
}

START_TEST(random_messages)
{
    const size_t i = (size_t)_i;
    if (!offered(i))
        return;
    uint64_t s = rng_for("random_messages", _i);
    for (size_t len = 0; len <= 300; len++)
        round_trip(&s, i, len);
    for (int k = 0; k < 200; k++)
        round_trip(&s, i, rnd(&s, 4097));
    static const size_t larger[] = {4096 + 16 * 7 + 5, 65536 + 13, (1 << 20) + 3};
    for (size_t k = 0; k < sizeof larger / sizeof larger[0]; k++)
        round_trip(&s, i, larger[k]);
}
END_TEST

/* GCM: a bit flipped in the ciphertext, the AAD or the tag: final fails in
 * both (the bytes released before it are the same). */
START_TEST(gcm_tampering)
{
    const size_t i = (size_t)_i;
    if (!is_gcm(i) || !offered(i))
        return;
    uint64_t s = rng_for("gcm_tampering", _i);
    for (int round = 0; round < 40; round++) {
        uint8_t key[64], iv[64], aad[256], tag[16], in[600], ct[640], pt[640];
        struct msg m;
        const size_t len = 1 + rnd(&s, sizeof in - 1);
        rng_fill(&s, in, len);
        plan(&s, i, &m, len, key, iv, aad, in);
        m.naad = 1 + rnd(&s, 3);
        for (size_t k = 0; k < m.naad; k++)
            m.aad_cuts[k] = 1 + rnd(&s, 30);
        rng_fill(&s, aad, sizeof aad);
        const size_t n = run_both(i, &m, ct, "encrypt");
        /* The tag through the one-shot path of the default provider. */
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        int outl;
        size_t aad_len = 0;
        for (size_t k = 0; k < m.naad; k++)
            aad_len += m.aad_cuts[k];
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][DEFAULT], NULL, NULL, 1, NULL), 1);
        if (m.ivlen != 12)
            REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)m.ivlen, NULL), 1);
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, NULL), 1);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)aad_len), 1);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, pt, &outl, in, (int)len), 1);
        REQUIRE_EQ(EVP_CipherFinal_ex(ctx, pt, &outl), 1);
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, (int)m.taglen, tag), 1);
        EVP_CIPHER_CTX_free(ctx);
        m.enc = 0;
        m.in = ct;
        m.len = n;
        m.tag = tag;
        split(&s, i, &m);
        run_both(i, &m, pt, "decrypt untouched");
        REQUIRE(memcmp(pt, in, len) == 0);
        for (int what = 0; what < 3; what++) {
            uint8_t *p = what == 0 ? ct : what == 1 ? aad : tag;
            const size_t span = what == 0 ? n : what == 1 ? aad_len : m.taglen;
            const size_t bit = rnd(&s, 8 * span);
            p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            struct trace t[2] = {{0}};
            for (int prov = 0; prov < 2; prov++) {
                run_msg(ciphers[i][prov], &m, pt, &t[prov]);
                if (strstr(t[prov].s, "\nfinal r=0") == NULL)
                    ck_abort_msg("%s: %s took a tampered %s (seed 0x%llx)", cipher_names[i],
                                 provider_names[prov],
                                 what == 0 ? "ciphertext" : what == 1 ? "AAD" : "tag",
                                 (unsigned long long)seed);
            }
            same_trace(&t[AESGEN], &t[DEFAULT], "tampered");
            tr_free(&t[0]);
            tr_free(&t[1]);
            p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
    }
}
END_TEST

/* --- error paths and context handling: a scenario per test, on both --------------- */

typedef void scenario_fn(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t);

/* The scenario on both providers from the same generator state. */
static void both(size_t i, scenario_fn *fn, const char *what, int index)
{
    struct trace t[2] = {{0}};
    for (int prov = 0; prov < 2; prov++) {
        uint64_t s = rng_for(what, index);
        fn(i, ciphers[i][prov], &s, &t[prov]);
    }
    char label[96];
    snprintf(label, sizeof label, "%s, %s", what, cipher_names[i]);
    same_trace(&t[AESGEN], &t[DEFAULT], label);
    tr_free(&t[0]);
    tr_free(&t[1]);
}

static EVP_CIPHER_CTX *ctx_new(void)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    REQUIRE((ctx) != NULL);
    return ctx;
}

/* An update of len random bytes, traced with its output. */
static void upd(EVP_CIPHER_CTX *ctx, uint64_t *s, size_t len, struct trace *t)
{
    uint8_t *in = malloc(len + 1), *out = malloc(len + 32);
    int outl = -1;
    REQUIRE(in && out);
    rng_fill(s, in, len);
    const int r = EVP_CipherUpdate(ctx, out, &outl, in, (int)len);
    tr_ret(t, "\nupdate", r);
    tr(t, " in=%zu outl=%d", len, outl);
    if (r == 1)
        tr_bytes(t, "out", out, (size_t)outl);
    free(in);
    free(out);
}

static void fin(EVP_CIPHER_CTX *ctx, struct trace *t)
{
    uint8_t out[32];
    int outl = -1;
    const int r = EVP_CipherFinal_ex(ctx, out, &outl);
    tr_ret(t, "\nfinal", r);
    tr(t, " outl=%d", outl);
    if (r == 1)
        tr_bytes(t, "out", out, (size_t)outl);
}

static void updated_iv(EVP_CIPHER_CTX *ctx, struct trace *t)
{
    uint8_t iv[16] = {0};
    tr_ret(t, "\nupdated-iv", EVP_CIPHER_CTX_get_updated_iv(ctx, iv, sizeof iv));
    tr_bytes(t, "iv", iv, sizeof iv);
}

static void gcm_tag(EVP_CIPHER_CTX *ctx, size_t len, struct trace *t)
{
    uint8_t tag[32] = {0};
    tr_ret(t, "\nget-tag", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, (int)len, tag));
    tr_bytes(t, "tag", tag, len);
}

/* Key and IV, fresh random ones, into an encryption (or decryption) context. */
static EVP_CIPHER_CTX *keyed(size_t i, const EVP_CIPHER *c, uint64_t *s, int enc, struct trace *t)
{
    uint8_t key[64], iv[16];
    random_key(s, i, key);
    rng_fill(s, iv, sizeof iv);
    EVP_CIPHER_CTX *ctx = ctx_new();
    tr_ret(t, "init", EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL));
    return ctx;
}

/* Key lengths: EVP_CIPHER_CTX_set_key_length, the ctrl, the parameter. */
static void sc_key_length(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    const int kl = (int)key_len(i);
    const int tries[] = {kl, kl + 8, kl - 8, 2 * kl, 0, 64};
    uint8_t key[64], iv[16];
    random_key(s, i, key);
    rng_fill(s, iv, sizeof iv);
    EVP_CIPHER_CTX *ctx = ctx_new();
    tr_ret(t, "init", EVP_CipherInit_ex2(ctx, c, NULL, NULL, 1, NULL));
    for (size_t k = 0; k < sizeof tries / sizeof tries[0]; k++) {
        tr_ret(t, "\nset_key_length", EVP_CIPHER_CTX_set_key_length(ctx, tries[k]));
        tr_ret(t, " ctrl", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_SET_KEY_LENGTH, tries[k], NULL));
        tr(t, " key_length=%d", EVP_CIPHER_CTX_get_key_length(ctx));
    }
    size_t wrong = (size_t)kl + 8;
    OSSL_PARAM params[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &wrong), OSSL_PARAM_END};
    tr_ret(t, "\ninit keylen param", EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, params));
    tr_ret(t, "\ninit", EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, NULL));
    upd(ctx, s, 48, t);
    fin(ctx, t);
    EVP_CIPHER_CTX_free(ctx);
}

/* Update after final, final twice, empty updates, an update with no key. */
static void sc_after_final(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    EVP_CIPHER_CTX *ctx = keyed(i, c, s, 1, t);
    upd(ctx, s, 37, t);
    fin(ctx, t);
    if (is_gcm(i))
        gcm_tag(ctx, 16, t);
    upd(ctx, s, 21, t);
    upd(ctx, s, 0, t);
    fin(ctx, t);
    fin(ctx, t);
    upd(ctx, s, 32, t);
    EVP_CIPHER_CTX_free(ctx);

    ctx = ctx_new();
    tr_ret(t, "\ninit without key", EVP_CipherInit_ex2(ctx, c, NULL, NULL, 1, NULL));
    upd(ctx, s, 32, t);
    fin(ctx, t);
    EVP_CIPHER_CTX_free(ctx);
}

/* A key and no IV: all-zero IVs (not GCM: see the differences). */
static void sc_no_iv(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    uint8_t key[64];
    random_key(s, i, key);
    EVP_CIPHER_CTX *ctx = ctx_new();
    tr_ret(t, "init", EVP_CipherInit_ex2(ctx, c, key, NULL, 1, NULL));
    upd(ctx, s, 40, t);
    fin(ctx, t);
    updated_iv(ctx, t);
    EVP_CIPHER_CTX_free(ctx);
}

/* num: read after updates, then set to each position in the block (0 only
 * for GCM and XTS), an update after it and the updated IV traced, in both
 * directions.  The updates before it end mid-block or, half the time, at a
 * block boundary after a partial block: CTR's keystream block, made only for
 * a partial block, is then an earlier one (the default provider's ecount;
 * CTR with no block made is a deliberate difference: see below). */
static void sc_num(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    const unsigned positions = is_gcm(i) || is_xts(i) ? 1 : 16;
    for (int enc = 0; enc < 2; enc++) {
        for (unsigned v = 0; v < positions; v++) {
            EVP_CIPHER_CTX *ctx = keyed(i, c, s, enc, t);
            const size_t first = 17 + rnd(s, 15) + 16 * rnd(s, 2);
            upd(ctx, s, first, t);
            if (rnd(s, 2))
                upd(ctx, s, 16 - first % 16 + 16 * rnd(s, 2), t);
            tr(t, "\nnum=%d", EVP_CIPHER_CTX_get_num(ctx));
            tr_ret(t, " set_num", EVP_CIPHER_CTX_set_num(ctx, (int)v));
            tr(t, " num=%d", EVP_CIPHER_CTX_get_num(ctx));
            upd(ctx, s, 1 + rnd(s, 40), t);
            tr(t, " num=%d", EVP_CIPHER_CTX_get_num(ctx));
            if (!is_gcm(i) && mode_of(i) != EVP_CIPH_ECB_MODE)
                updated_iv(ctx, t);
            EVP_CIPHER_CTX_free(ctx);
        }
    }
}

/* ECB and CBC: every padding value, right and with a wrong byte; no padding
 * and a partial block in either direction. */
static void sc_padding(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    uint8_t key[64], iv[16], pt[64], ct[80], out[96];
    int outl, n;
    for (int last = 0; last < 258; last++) {
        for (int wrong = 0; wrong < 2; wrong++) {
            const int val = last == 257 ? 255 : last;
            random_key(s, i, key);
            rng_fill(s, iv, sizeof iv);
            rng_fill(s, pt, sizeof pt);
            for (int k = 0; k < val && k < 16; k++)
                pt[63 - k] = (uint8_t)val;
            if (wrong && val >= 2 && val <= 16)
                pt[63 - rnd(s, (size_t)val - 1) - 1] ^= (uint8_t)(1 + rnd(s, 255));
            /* The ciphertext from the default provider, padding off. */
            EVP_CIPHER_CTX *ctx = ctx_new();
            REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][DEFAULT], key, iv, 1, NULL), 1);
            EVP_CIPHER_CTX_set_padding(ctx, 0);
            REQUIRE_EQ(EVP_CipherUpdate(ctx, ct, &n, pt, sizeof pt), 1);
            REQUIRE_EQ(EVP_CipherFinal_ex(ctx, ct + n, &outl), 1);
            EVP_CIPHER_CTX_free(ctx);
            ctx = ctx_new();
            tr_ret(t, "\ninit", EVP_CipherInit_ex2(ctx, c, key, iv, 0, NULL));
            const int cut = 1 + (int)rnd(s, 63);
            tr_ret(t, " update", EVP_CipherUpdate(ctx, out, &n, ct, cut));
            tr_ret(t, " update", EVP_CipherUpdate(ctx, out + n, &outl, ct + cut, 64 - cut));
            n += outl;
            tr_bytes(t, "out", out, (size_t)n);
            fin(ctx, t);
            updated_iv(ctx, t);
            EVP_CIPHER_CTX_free(ctx);
        }
    }
    for (int enc = 0; enc < 2; enc++) {
        for (size_t len = 0; len < 40; len += 1 + rnd(s, 5)) {
            EVP_CIPHER_CTX *ctx = keyed(i, c, s, enc, t);
            tr_ret(t, " padding off", EVP_CIPHER_CTX_set_padding(ctx, 0));
            upd(ctx, s, len, t);
            fin(ctx, t);
            EVP_CIPHER_CTX_free(ctx);
        }
    }
}

/* GCM: tag lengths to get and set, IV lengths, AAD after data, a
 * decryption without a tag. */
static void sc_gcm_params(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    static const int tag_tries[] = {0, 4, 8, 12, 13, 16, 17, 32, -1};
    static const int iv_tries[] = {0, 1, 12, 16, 64, 128, 129, -1};
    uint8_t key[64], iv[128], tag[32];
    random_key(s, i, key);
    rng_fill(s, iv, sizeof iv);
    rng_fill(s, tag, sizeof tag);
    EVP_CIPHER_CTX *ctx = ctx_new();
    tr_ret(t, "init", EVP_CipherInit_ex2(ctx, c, key, iv, 1, NULL));
    gcm_tag(ctx, 16, t); /* before final */
    upd(ctx, s, 20, t);
    int outl;
    tr_ret(t, "\naad after data", EVP_CipherUpdate(ctx, NULL, &outl, iv, 5));
    fin(ctx, t);
    for (size_t k = 0; k < sizeof tag_tries / sizeof tag_tries[0]; k++)
        if (tag_tries[k] >= 0)
            gcm_tag(ctx, (size_t)tag_tries[k], t);
    tr_ret(t, "\nset tag on encryption", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, tag));
    for (size_t k = 0; k < sizeof iv_tries / sizeof iv_tries[0]; k++) {
        tr_ret(t, "\nivlen", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, iv_tries[k], NULL));
        tr(t, " iv_length=%d", EVP_CIPHER_CTX_get_iv_length(ctx));
    }
    /* After an IV length change the IV set is unusable: a new one is needed. */
    upd(ctx, s, 8, t);
    tr_ret(t, "\nreinit", EVP_CipherInit_ex2(ctx, NULL, NULL, iv, 0, NULL));
    for (size_t k = 0; k < sizeof tag_tries / sizeof tag_tries[0]; k++) {
        const int len = tag_tries[k];
        if (len > 0 && len < 4)
            continue; /* see the differences */
        rng_fill(s, tag, sizeof tag);
        tr_ret(t, "\nset tag", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, len, tag));
    }
    tr_ret(t, "\nset tag NULL", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, NULL));
    upd(ctx, s, 30, t);
    fin(ctx, t); /* a random tag: fails */
    EVP_CIPHER_CTX_free(ctx);
    /* Decryption with no tag set. */
    ctx = keyed(i, c, s, 0, t);
    upd(ctx, s, 30, t);
    fin(ctx, t);
    EVP_CIPHER_CTX_free(ctx);
}

/* XTS: data units around 16 bytes and around 2^20 blocks; equal key halves
 * for encryption; NULL output. */
static void sc_xts_units(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    static uint8_t big[((size_t)1 << 20) * 16 + 16], big_out[sizeof big];
    EVP_CIPHER_CTX *ctx = keyed(i, c, s, 1, t);
    int outl = -1;
    for (size_t len = 0; len <= 33; len++)
        upd(ctx, s, len, t);
    tr_ret(t, "\n2^20 blocks", EVP_CipherUpdate(ctx, big_out, &outl, big, (int)sizeof big - 16));
    tr(t, " outl=%d", outl);
    tr_bytes(t, "out", big_out, sizeof big - 16);
    tr_ret(t, "\n2^20 blocks and one", EVP_CipherUpdate(ctx, big_out, &outl, big, (int)sizeof big));
    tr_ret(t, "\n2^20 blocks and 15 bytes",
           EVP_CipherUpdate(ctx, big_out, &outl, big, (int)sizeof big - 1));
    tr_ret(t, "\nNULL out", EVP_CipherUpdate(ctx, NULL, &outl, big, 32));
    fin(ctx, t);
    upd(ctx, s, 48, t); /* after final: the same tweak */
    EVP_CIPHER_CTX_free(ctx);
    uint8_t key[64], iv[16] = {0};
    rng_fill(s, key, sizeof key);
    memcpy(key + key_len(i) / 2, key, key_len(i) / 2);
    ctx = ctx_new();
    tr_ret(t, "\nequal halves, encryption", EVP_CipherInit_ex2(ctx, c, key, iv, 1, NULL));
    EVP_CIPHER_CTX_free(ctx);
}

/* EVP_Cipher, the raw cipher: whole blocks for ECB and CBC, anything for
 * the stream modes; GCM's AAD (out NULL) and end (in NULL); XTS units. */
static void sc_evp_cipher(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    for (int enc = 0; enc < 2; enc++) {
        EVP_CIPHER_CTX *ctx = keyed(i, c, s, enc, t);
        uint8_t in[512], out[512];
        if (is_gcm(i)) {
            rng_fill(s, in, 40);
            tr(t, "\naad %d", EVP_Cipher(ctx, NULL, in, 17));
            ERR_clear_error();
        }
        for (int k = 0; k < 5; k++) {
            size_t len = 16 + rnd(s, 200);
            if (is_block(i))
                len &= ~(size_t)15;
            rng_fill(s, in, len);
            const int r = EVP_Cipher(ctx, out, in, (unsigned)len);
            tr(t, "\nEVP_Cipher %zu r=%d", len, r);
            ERR_clear_error();
            if (r > 0)
                tr_bytes(t, "out", out, len);
        }
        if (is_gcm(i)) {
            tr(t, "\nend %d", EVP_Cipher(ctx, NULL, NULL, 0));
            ERR_clear_error();
            if (enc)
                gcm_tag(ctx, 16, t);
        }
        EVP_CIPHER_CTX_free(ctx);
    }
}

/* Reinitialisation: a new IV and no key, mid-message and after final; no
 * IV and no key (CBC, CFB, OFB: back to the IV set; CTR: on from its
 * counter); the direction changed. */
static void sc_reinit(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    for (int enc = 0; enc < 2; enc++) {
        uint8_t iv2[16];
        EVP_CIPHER_CTX *ctx = keyed(i, c, s, enc, t);
        const size_t unit = is_xts(i) ? 16 : 1;
        upd(ctx, s, unit * (1 + rnd(s, 40)), t);
        rng_fill(s, iv2, sizeof iv2);
        tr_ret(t, "\nnew iv", EVP_CipherInit_ex2(ctx, NULL, NULL, iv2, enc, NULL));
        upd(ctx, s, unit * (1 + rnd(s, 40)), t);
        if (!is_gcm(i) && mode_of(i) != EVP_CIPH_ECB_MODE)
            updated_iv(ctx, t);
        if (enc && is_gcm(i)) {
            fin(ctx, t);
            gcm_tag(ctx, 16, t);
        }
        tr_ret(t, "\nno iv, no key", EVP_CipherInit_ex2(ctx, NULL, NULL, NULL, enc, NULL));
        upd(ctx, s, unit * (1 + rnd(s, 40)), t);
        if (!is_gcm(i) && mode_of(i) != EVP_CIPH_ECB_MODE)
            updated_iv(ctx, t);
        /* The default provider's ECB, CBC and XTS keys have the schedule of
         * one direction: a new direction there needs the key again. */
        uint8_t key[64];
        random_key(s, i, key);
        rng_fill(s, iv2, sizeof iv2);
        tr_ret(t, "\nother direction",
               EVP_CipherInit_ex2(ctx, NULL, is_block(i) || is_xts(i) ? key : NULL, iv2, !enc, NULL));
        upd(ctx, s, unit * (2 + rnd(s, 40)), t);
        fin(ctx, t);
        if (!enc && is_gcm(i))
            gcm_tag(ctx, 12, t);
        EVP_CIPHER_CTX_free(ctx);
    }
}

/* EVP_CIPHER_CTX_copy mid-message, the original freed before the copy goes
 * on (a copy still tied to the original's key would show it); copies of a
 * context with no key and of a finished one. */
static void sc_copy(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    for (int enc = 0; enc < 2; enc++) {
        EVP_CIPHER_CTX *ctx = keyed(i, c, s, enc, t);
        uint8_t aad[64];
        int outl;
        const size_t unit = is_xts(i) ? 16 : 1;
        if (is_gcm(i)) {
            rng_fill(s, aad, sizeof aad);
            tr_ret(t, "\naad", EVP_CipherUpdate(ctx, NULL, &outl, aad, 13));
            if (!enc)
                tr_ret(t, "\nset tag", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, aad));
        }
        upd(ctx, s, unit * (1 + rnd(s, 50)), t);
        EVP_CIPHER_CTX *copy = ctx_new();
        tr_ret(t, "\ncopy", EVP_CIPHER_CTX_copy(copy, ctx));
        /* The original goes on too, then is freed; the copy then runs the same. */
        const uint64_t fork = *s;
        upd(ctx, s, unit * (1 + rnd(s, 50)), t);
        fin(ctx, t);
        EVP_CIPHER_CTX_free(ctx);
        *s = fork;
        upd(copy, s, unit * (1 + rnd(s, 50)), t);
        fin(copy, t);
        if (!is_gcm(i) && mode_of(i) != EVP_CIPH_ECB_MODE)
            updated_iv(copy, t);
        if (enc && is_gcm(i))
            gcm_tag(copy, 16, t);
        /* A copy of a finished context (encryption: a failed GCM verification
         * ends the message here, not in the default provider). */
        if (enc) {
            EVP_CIPHER_CTX *again = ctx_new();
            tr_ret(t, "\ncopy after final", EVP_CIPHER_CTX_copy(again, copy));
            upd(again, s, unit * 3, t);
            EVP_CIPHER_CTX_free(again);
        }
        EVP_CIPHER_CTX_free(copy);
    }
    EVP_CIPHER_CTX *bare = ctx_new(), *copy = ctx_new();
    tr_ret(t, "\ninit without key", EVP_CipherInit_ex2(bare, c, NULL, NULL, 1, NULL));
    tr_ret(t, "\ncopy without key", EVP_CIPHER_CTX_copy(copy, bare));
    EVP_CIPHER_CTX_free(bare);
    uint8_t key[64], iv[16];
    random_key(s, i, key);
    rng_fill(s, iv, sizeof iv);
    tr_ret(t, "\nkey the copy", EVP_CipherInit_ex2(copy, NULL, key, iv, 1, NULL));
    upd(copy, s, is_xts(i) ? 64 : 61, t);
    fin(copy, t);
    EVP_CIPHER_CTX_free(copy);
}

/* New keys on a context: the same key again (kept, not set up anew), one
 * that differs in a single byte (of either XTS half), then the first again. */
static void sc_rekey(size_t i, const EVP_CIPHER *c, uint64_t *s, struct trace *t)
{
    uint8_t keys[3][64], iv[16];
    random_key(s, i, keys[0]);
    memcpy(keys[1], keys[0], sizeof keys[1]);
    keys[1][rnd(s, key_len(i))] ^= (uint8_t)(1 + rnd(s, 255));
    memcpy(keys[2], keys[0], sizeof keys[2]);
    if (is_xts(i)) /* equal halves after a good key: refused, not kept (for
                     * encryption: the default provider takes them to decrypt) */
        memcpy(keys[2] + key_len(i) / 2, keys[2], key_len(i) / 2);
    static const int order[] = {0, 0, 1, 1, 0, 2, 0};
    for (int enc = 0; enc < 2; enc++) {
        EVP_CIPHER_CTX *ctx = ctx_new();
        tr_ret(t, "init", EVP_CipherInit_ex2(ctx, c, NULL, NULL, enc, NULL));
        for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
            rng_fill(s, iv, sizeof iv);
            const int which = is_xts(i) && !enc && order[k] == 2 ? 1 : order[k];
            tr_ret(t, "\nkey", EVP_CipherInit_ex2(ctx, NULL, keys[which], iv, enc, NULL));
            upd(ctx, s, is_xts(i) ? 48 : 40, t);
            fin(ctx, t);
            if (enc && is_gcm(i))
                gcm_tag(ctx, 16, t);
        }
        EVP_CIPHER_CTX_free(ctx);
    }
}

struct scenario {
    const char *name;
    scenario_fn *fn;
    int (*applies)(size_t i);
};

static int any(size_t i)
{
    (void)i;
    return 1;
}

static int not_gcm(size_t i)
{
    return !is_gcm(i);
}

static const struct scenario scenarios[] = {
    {"key lengths", sc_key_length, any},
    {"after final", sc_after_final, any},
    {"no iv", sc_no_iv, not_gcm},
    {"num", sc_num, any},
    {"padding", sc_padding, is_block},
    {"gcm parameters", sc_gcm_params, is_gcm},
    {"xts data units", sc_xts_units, is_xts},
    {"EVP_Cipher", sc_evp_cipher, any},
    {"reinit", sc_reinit, any},
    {"rekey", sc_rekey, any},
    {"copy", sc_copy, any},
};
#define NSCENARIOS (sizeof scenarios / sizeof scenarios[0])

START_TEST(error_paths_and_contexts)
{
    const size_t i = (size_t)_i / NSCENARIOS, k = (size_t)_i % NSCENARIOS;
    if (!scenarios[k].applies(i) || !offered(i))
        return;
    both(i, scenarios[k].fn, scenarios[k].name, _i);
}
END_TEST

/* --- the deliberate differences (README.md) --------------------------------------- */

static int init_ok(size_t i, int prov, const uint8_t *key, const uint8_t *iv, int enc)
{
    EVP_CIPHER_CTX *ctx = ctx_new();
    const int r = EVP_CipherInit_ex2(ctx, ciphers[i][prov], key, iv, enc, NULL);
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    return r;
}

START_TEST(deliberate_differences)
{
    const size_t i = (size_t)_i;
    if (!offered(i))
        return;
    uint64_t s = rng_for("deliberate_differences", _i);
    uint8_t key[64], iv[16], buf[64], out[96];
    int outl;
    random_key(&s, i, key);
    rng_fill(&s, iv, sizeof iv);
    rng_fill(&s, buf, sizeof buf);
    if (is_xts(i)) {
        /* Equal key halves: refused for encryption by both, for decryption
         * by aes-gen only. */
        memcpy(key + key_len(i) / 2, key, key_len(i) / 2);
        REQUIRE_EQ(init_ok(i, DEFAULT, key, iv, 1), 0);
        REQUIRE_EQ(init_ok(i, AESGEN, key, iv, 1), 0);
        REQUIRE_EQ(init_ok(i, DEFAULT, key, iv, 0), 1);
        EVP_CIPHER_CTX *ctx = ctx_new();
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], key, iv, 0, NULL), 0);
        require_prov_reason(PROV_R_XTS_DUPLICATED_KEYS);
        EVP_CIPHER_CTX_free(ctx);
    }
    if (is_gcm(i)) {
        /* Tags of 1 to 3 bytes to verify: taken by the default provider,
         * refused by aes-gen's. */
        for (int len = 1; len < 4; len++) {
            for (int prov = 0; prov < 2; prov++) {
                EVP_CIPHER_CTX *ctx = ctx_new();
                REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][prov], key, iv, 0, NULL), 1);
                REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, len, buf),
                                 prov == DEFAULT);
                ERR_clear_error();
                EVP_CIPHER_CTX_free(ctx);
            }
        }
        /* Encryption without an IV: the default provider makes a random one;
         * aes-gen's provider fails. */
        for (int prov = 0; prov < 2; prov++) {
            EVP_CIPHER_CTX *ctx = ctx_new();
            REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][prov], key, NULL, 1, NULL), 1);
            REQUIRE_EQ(EVP_CipherUpdate(ctx, out, &outl, buf, 16), prov == DEFAULT);
            ERR_clear_error();
            EVP_CIPHER_CTX_free(ctx);
        }
    }
    if (is_block(i)) {
        /* EVP_Cipher with a partial block: refused. */
        EVP_CIPHER_CTX *ctx = ctx_new();
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], key, iv, 1, NULL), 1);
        REQUIRE_EQ(EVP_Cipher(ctx, out, buf, 20), -1);
        ERR_clear_error();
        EVP_CIPHER_CTX_free(ctx);
    }
    if (is_block(i)) {
        /* After a wrong padding the message is over: a second final fails
         * (the default provider decrypts the decrypted block again). */
        EVP_CIPHER_CTX *ctx = ctx_new();
        uint8_t zero[16] = {0};
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], key, iv, 0, NULL), 1);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, out, &outl, zero, 16), 1);
        const int first = EVP_CipherFinal_ex(ctx, out, &outl);
        if (first == 0)
            require_prov_reason(PROV_R_BAD_DECRYPT);
        REQUIRE_EQ(EVP_CipherFinal_ex(ctx, out, &outl), 0);
        require_prov_reason(PROV_R_WRONG_FINAL_BLOCK_LENGTH);
        EVP_CIPHER_CTX_free(ctx);
    }
    random_key(&s, i, key);
    if (!is_gcm(i) && !is_xts(i)) {
        /* num past the block: refused, changing nothing (the default
         * provider takes any value and reads past the end of its block). */
        EVP_CIPHER_CTX *ctx = ctx_new();
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], key, iv, 1, NULL), 1);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, out, &outl, buf, 5), 1);
        for (int v = 16; v < 300; v += 283) {
            ERR_clear_error();
            REQUIRE_EQ(EVP_CIPHER_CTX_set_num(ctx, v), 0);
            require_aesgen_reason(BAD_NUM);
            REQUIRE_EQ(EVP_CIPHER_CTX_get_num(ctx), is_block(i) ? 0 : 5);
        }
        EVP_CIPHER_CTX_free(ctx);
    }
    if (mode_of(i) == EVP_CIPH_CTR_MODE) {
        /* CTR's num with no keystream block made since the key or IV (a
         * fresh context, whole blocks only, a new IV after a partial
         * block): refused.  The default provider XORs the bytes with its
         * zeroed buffer, or with an earlier IV's keystream. */
        for (int how = 0; how < 3; how++) {
            EVP_CIPHER_CTX *ctx = ctx_new();
            REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], key, iv, 1, NULL), 1);
            if (how == 1)
                REQUIRE_EQ(EVP_CipherUpdate(ctx, out, &outl, buf, 32), 1);
            if (how == 2) {
                REQUIRE_EQ(EVP_CipherUpdate(ctx, out, &outl, buf, 20), 1);
                REQUIRE_EQ(EVP_CipherInit_ex2(ctx, NULL, NULL, iv, 1, NULL), 1);
            }
            ERR_clear_error();
            REQUIRE_EQ(EVP_CIPHER_CTX_set_num(ctx, 1), 0);
            require_aesgen_reason(BAD_NUM);
            REQUIRE_EQ(EVP_CIPHER_CTX_get_num(ctx), 0);
            EVP_CIPHER_CTX_free(ctx);
        }
        EVP_CIPHER_CTX *def = ctx_new();
        REQUIRE_EQ(EVP_CipherInit_ex2(def, ciphers[i][DEFAULT], key, iv, 1, NULL), 1);
        if (EVP_CIPHER_CTX_set_num(def, 1) == 1) {
            REQUIRE_EQ(EVP_CipherUpdate(def, out, &outl, buf, 15), 1);
            REQUIRE(memcmp(out, buf, 15) == 0);
        }
        ERR_clear_error();
        EVP_CIPHER_CTX_free(def);
    }
}
END_TEST

/* One parameter set on a keyed encryption context: what set_params says. */
static int set_one(size_t i, const uint8_t *key, const uint8_t *iv, OSSL_PARAM param)
{
    OSSL_PARAM params[] = {param, OSSL_PARAM_END};
    EVP_CIPHER_CTX *ctx = ctx_new();
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], key, iv, 1, NULL), 1);
    ERR_clear_error();
    const int r = EVP_CIPHER_CTX_set_params(ctx, params);
    EVP_CIPHER_CTX_free(ctx);
    return r;
}

/* TLS's record-layer parameters: the stream modes refuse them with aes-gen's
 * reason (no TLS, tls-version or tls-mac-size 0, is taken); ECB
 * and CBC take the versions the default provider unpads and MACs of up to
 * 64 bytes, and refuse the rest (which the default provider takes, to fail
 * every record). */
START_TEST(tls_parameters)
{
    const size_t i = (size_t)_i;
    if (!offered(i) || is_gcm(i) || is_xts(i)) /* (XTS ignores them, as the default provider) */
        return;
    uint64_t s = rng_for("tls_parameters", _i);
    uint8_t key[64], iv[16];
    unsigned int version = 0x0303, no_version = 0, unknown = 0x0304;
    size_t macsize = 20, no_macsize = 0, too_long = 65;
    random_key(&s, i, key);
    rng_fill(&s, iv, sizeof iv);
    REQUIRE_EQ(set_one(i, key, iv, OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &version)),
               is_block(i));
    if (!is_block(i))
        require_aesgen_reason(TLS_UNSUPPORTED);
    REQUIRE_EQ(set_one(i, key, iv, OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize)),
               is_block(i));
    if (!is_block(i))
        require_aesgen_reason(TLS_UNSUPPORTED);
    REQUIRE_EQ(set_one(i, key, iv, OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &unknown)), 0);
    require_aesgen_reason(TLS_UNSUPPORTED);
    REQUIRE_EQ(set_one(i, key, iv, OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &too_long)), 0);
    require_aesgen_reason(TLS_UNSUPPORTED);
    REQUIRE_EQ(set_one(i, key, iv, OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &no_version)), 1);
    REQUIRE_EQ(set_one(i, key, iv, OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &no_macsize)), 1);
}
END_TEST

/* --- CBC's TLS records ------------------------------------------------------------- */

/* SSL 3.0, TLS 1.0-1.2, DTLS 1.0 and 1.2, and OpenSSL's DTLS1_BAD_VER */
static const unsigned int cbc_tls_versions[] = {0x0300, 0x0301, 0x0302, 0x0303,
                                                0xfeff, 0xfefd, 0x0100};
static const size_t cbc_tls_macs[] = {0, 20, 48, 64};
#define NCBCTLS (sizeof cbc_tls_versions / sizeof cbc_tls_versions[0] * 4)

/* A context of provider prov in TLS record mode, as libssl sets one up
 * (the version as an int). */
static EVP_CIPHER_CTX *cbc_tls_ctx(size_t i, int prov, const uint8_t *key, const uint8_t *iv,
                                   int enc, int version, size_t mac)
{
    EVP_CIPHER_CTX *ctx = ctx_new();
    OSSL_PARAM params[] = {OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
                           OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac),
                           OSSL_PARAM_END};
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][prov], key, iv, enc, params), 1);
    return ctx;
}

/* Decryption contexts started anew (the IV set again: a failed record's
 * context is not used on). */
static void cbc_tls_renew(EVP_CIPHER_CTX *dec[2], size_t i, const uint8_t *key, const uint8_t *iv,
                          int version, size_t mac)
{
    for (int p = 0; p < 2; p++) {
        EVP_CIPHER_CTX_free(dec[p]);
        dec[p] = cbc_tls_ctx(i, p, key, iv, 0, version, mac);
    }
}

/* One record decrypted in place by each provider: the same result, length
 * and data; the same MAC where the padding was good (and, with want, the
 * data and MAC that were sealed: want's after the explicit IV), two random
 * ones (not the record's bytes) where it was not.  Returns whether it was
 * good. */
static int cbc_tls_open(EVP_CIPHER_CTX *const dec[2], const uint8_t *rec, size_t len,
                        size_t explicit_iv, size_t mac, const uint8_t *want)
{
    static uint8_t buf[2][20000];
    int r[2], outl[2] = {-1, -1};
    const uint8_t *macp[2] = {NULL, NULL};
    for (int p = 0; p < 2; p++) {
        memcpy(buf[p], rec, len);
        ERR_clear_error();
        r[p] = EVP_CipherUpdate(dec[p], buf[p], &outl[p], buf[p], (int)len);
        OSSL_PARAM get[] = {OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC,
                                                           (void **)&macp[p], mac),
                            OSSL_PARAM_END};
        if (r[p] == 1 && mac != 0)
            REQUIRE_EQ(EVP_CIPHER_CTX_get_params(dec[p], get), 1);
    }
    REQUIRE_EQ(r[AESGEN], r[DEFAULT]);
    if (r[DEFAULT] != 1)
        return 0;
    REQUIRE_EQ(outl[AESGEN], outl[DEFAULT]);
    REQUIRE(memcmp(buf[AESGEN], buf[DEFAULT], explicit_iv + (size_t)outl[DEFAULT]) == 0);
    const int good = (size_t)outl[DEFAULT] + explicit_iv + mac < len;
    if (good && want != NULL)
        REQUIRE(memcmp(buf[AESGEN] + explicit_iv, want + explicit_iv, (size_t)outl[AESGEN]) == 0);
    if (mac != 0) {
        REQUIRE(macp[AESGEN] != NULL && macp[DEFAULT] != NULL);
        if (good)
            REQUIRE(memcmp(macp[AESGEN], macp[DEFAULT], mac) == 0 &&
                    (want == NULL ||
                     memcmp(macp[AESGEN], want + explicit_iv + (size_t)outl[AESGEN], mac) == 0));
        else
            REQUIRE(memcmp(macp[AESGEN], macp[DEFAULT], mac) != 0 &&
                    memcmp(macp[AESGEN], buf[AESGEN] + len - mac, mac) != 0);
    }
    return good;
}

/* Records as libssl makes them (explicit IV block where the version has one,
 * data, MAC) of random lengths up to 16 KiB: both providers seal the same
 * bytes and open them alike; neither has a MAC to give after sealing, nor
 * a final.  Then records padded by hand with every length of padding the
 * version allows (TLS: 1 to 256 bytes; SSL 3.0: 1 to 16), good and with one
 * byte of it changed, and random ones: opened alike (see cbc_tls_open). */
START_TEST(cbc_tls_records)
{
    const size_t i = (size_t)_i / NCBCTLS, v = (size_t)_i % NCBCTLS / 4;
    const int version = (int)cbc_tls_versions[v];
    const size_t mac = cbc_tls_macs[_i % 4];
    const size_t explicit_iv = version == 0x0300 || version == 0x0301 ? 0 : 16;
    if (!offered(i) || !is_block(i))
        return;
    uint64_t s = rng_for("cbc_tls_records", _i);
    enum { MAX = 16384 + 16 + 64 + 256 + 16 };
    static uint8_t rec[2][MAX], plain[MAX];
    uint8_t key[32], iv[16];
    random_key(&s, i, key);
    rng_fill(&s, iv, sizeof iv);
    EVP_CIPHER_CTX *enc[2], *dec[2];
    for (int p = 0; p < 2; p++) {
        enc[p] = cbc_tls_ctx(i, p, key, iv, 1, version, mac);
        dec[p] = cbc_tls_ctx(i, p, key, iv, 0, version, mac);
    }
    int good = 0;
    for (int n = 0; n < 24; n++) {
        const size_t len = explicit_iv + (n == 23 ? 16384 : rnd(&s, 300)) + mac;
        int outl[2];
        rng_fill(&s, plain, len);
        for (int p = 0; p < 2; p++) {
            memcpy(rec[p], plain, len);
            REQUIRE_EQ(EVP_CipherUpdate(enc[p], rec[p], &outl[p], rec[p], (int)len), 1);
        }
        REQUIRE_EQ(outl[AESGEN], outl[DEFAULT]);
        REQUIRE_EQ(outl[AESGEN], (len / 16 + 1) * 16);
        REQUIRE(memcmp(rec[AESGEN], rec[DEFAULT], (size_t)outl[AESGEN]) == 0);
        for (int p = 0; p < 2 && mac != 0; p++) {
            const uint8_t *macp = rec[p];
            OSSL_PARAM get[] = {OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC,
                                                               (void **)&macp, mac),
                                OSSL_PARAM_END};
            REQUIRE_EQ(EVP_CIPHER_CTX_get_params(enc[p], get), 1);
            REQUIRE(macp == NULL);
        }
        good += cbc_tls_open(dec, rec[AESGEN], (size_t)outl[AESGEN], explicit_iv, mac, plain);
    }
    REQUIRE_EQ(good, 24);
    for (int p = 0; p < 2; p++) {
        int outl;
        ERR_clear_error();
        REQUIRE_EQ(EVP_CipherFinal_ex(enc[p], rec[p], &outl), 0);
        require_prov_reason(PROV_R_CIPHER_OPERATION_FAILED);
    }
    /* Padded by hand: data then MAC then padding, encrypted without TLS. */
    EVP_CIPHER_CTX *raw = ctx_new();
    const size_t most = version == 0x0300 ? 16 : 256;
    for (size_t pad = 1; pad <= most; pad++) {
        const size_t data = (32 - (explicit_iv + mac + pad) % 16) % 16 + 16 * rnd(&s, 3);
        const size_t body = explicit_iv + data + mac;
        rng_fill(&s, plain, body + pad);
        if (version != 0x0300)
            memset(plain + body, (int)(pad - 1), pad);
        plain[body + pad - 1] = (uint8_t)(pad - 1);
        for (int bad = 0; bad < 2; bad++) {
            if (bad) { /* SSL 3.0's padding bytes are free: a length too long */
                if (version == 0x0300)
                    plain[body + pad - 1] = (uint8_t)(16 + rnd(&s, 240));
                else if (pad > 1) /* a padding byte (the length kept) */
                    plain[body + rnd(&s, pad - 1)] ^= (uint8_t)(1 + rnd(&s, 255));
                else /* a length longer than the record */
                    plain[body] = 255;
            }
            int outl;
            REQUIRE_EQ(EVP_CipherInit_ex2(raw, ciphers[i][DEFAULT], key, iv, 1, NULL), 1);
            EVP_CIPHER_CTX_set_padding(raw, 0);
            REQUIRE_EQ(EVP_CipherUpdate(raw, rec[0], &outl, plain, (int)(body + pad)), 1);
            cbc_tls_renew(dec, i, key, iv, version, mac);
            REQUIRE_EQ(cbc_tls_open(dec, rec[0], body + pad, explicit_iv, mac, plain), !bad);
        }
    }
    for (int n = 0; n < 32; n++) { /* random records of every short length */
        const size_t len = 16 * (size_t)(n % 8 + 1);
        rng_fill(&s, rec[0], len);
        cbc_tls_renew(dec, i, key, iv, version, mac);
        cbc_tls_open(dec, rec[0], len, explicit_iv, mac, NULL);
    }
    EVP_CIPHER_CTX_free(raw);
    for (int p = 0; p < 2; p++) {
        EVP_CIPHER_CTX_free(enc[p]);
        EVP_CIPHER_CTX_free(dec[p]);
    }
}
END_TEST

/* --- GCM's TLS 1.2 record mode ----------------------------------------------------- */

enum { TLS_EXPLICIT = 8, TLS_TAG = 16, TLS_OVERHEAD = TLS_EXPLICIT + TLS_TAG };

/* A GCM context of provider prov in TLS record mode: the whole IV given as
 * its fixed part (so that both providers count the same invocation fields)
 * or, for decryption, 4 fixed bytes. */
static EVP_CIPHER_CTX *tls_ctx(size_t i, int prov, const uint8_t *key, const uint8_t *iv, int enc)
{
    EVP_CIPHER_CTX *ctx = ctx_new();
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][prov], key, NULL, enc, NULL), 1);
    REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IV_FIXED, enc ? -1 : 4, (void *)iv), 1);
    return ctx;
}

/* One record through ctx in place (buf: explicit IV, data, tag; len the
 * whole record's), its AAD's length field as libssl writes it: what
 * EVP_CipherUpdate says, its output length in *outl. */
static int tls_record(EVP_CIPHER_CTX *ctx, int enc, uint64_t seq, uint8_t *buf, size_t len, int *outl)
{
    uint8_t aad[13];
    const size_t field = enc ? len - TLS_TAG : len;
    for (int b = 0; b < 8; b++)
        aad[b] = (uint8_t)(seq >> (56 - 8 * b));
    aad[8] = 23, aad[9] = 3, aad[10] = 3;
    aad[11] = (uint8_t)(field >> 8), aad[12] = (uint8_t)field;
    REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad), TLS_TAG);
    *outl = -1;
    return EVP_CipherUpdate(ctx, buf, outl, buf, (int)len);
}

/* Records of random lengths (0..300 bytes of data, and 16 KiB) sealed by
 * both providers give the same bytes, and each opens the other's; a record
 * with a flipped bit opens with neither, and ours leaves its data zeroed.
 * The IV's invocation field random, then about to carry out of its last
 * byte, then about to wrap to zero (without touching the fixed part). */
START_TEST(gcm_tls_records)
{
    const size_t i = (size_t)_i / 3;
    if (!offered(i) || !is_gcm(i))
        return;
    uint64_t s = rng_for("gcm_tls_records", _i);
    enum { MAX = 16384 + TLS_OVERHEAD };
    static uint8_t plain[MAX], sealed[2][MAX], opened[MAX];
    uint8_t key[32], iv[12];
    random_key(&s, i, key);
    rng_fill(&s, iv, sizeof iv);
    if (_i % 3 == 1)
        memset(iv + 4, 0, 7), iv[11] = 0xf0;
    else if (_i % 3 == 2)
        memset(iv + 4, 0xff, 7), iv[11] = 0xe8;
    EVP_CIPHER_CTX *enc[2], *dec[2];
    for (int p = 0; p < 2; p++) {
        enc[p] = tls_ctx(i, p, key, iv, 1);
        dec[p] = tls_ctx(i, p, key, iv, 0);
    }
    for (uint64_t seq = 0; seq < 40; seq++) {
        const size_t plen = seq == 39 ? 16384 : rnd(&s, 301), len = plen + TLS_OVERHEAD;
        rng_fill(&s, plain, plen);
        int outl;
        for (int p = 0; p < 2; p++) {
            memset(sealed[p], 0xa5, len);
            memcpy(sealed[p] + TLS_EXPLICIT, plain, plen);
            REQUIRE_EQ(tls_record(enc[p], 1, seq, sealed[p], len, &outl), 1);
            REQUIRE_EQ(outl, len);
        }
        REQUIRE(memcmp(sealed[AESGEN], sealed[DEFAULT], len) == 0);
        uint64_t field = 0, want = 0; /* the invocation field, counted from the IV's */
        for (int b = 0; b < 8; b++) {
            field = field << 8 | sealed[AESGEN][b];
            want = want << 8 | iv[4 + b];
        }
        REQUIRE(field == want + seq); /* modulo 2^64 */
        for (int p = 0; p < 2; p++) { /* each opens the other's */
            memcpy(opened, sealed[!p], len);
            REQUIRE_EQ(tls_record(dec[p], 0, seq, opened, len, &outl), 1);
            REQUIRE_EQ(outl, plen);
            REQUIRE(memcmp(opened + TLS_EXPLICIT, plain, plen) == 0);
        }
        const size_t flip = rnd(&s, len);
        for (int p = 0; p < 2; p++) {
            memcpy(opened, sealed[AESGEN], len);
            opened[flip] ^= (uint8_t)(1 << rnd(&s, 8));
            ERR_clear_error();
            REQUIRE_EQ(tls_record(dec[p], 0, seq, opened, len, &outl), 0);
            if (p == AESGEN)
                for (size_t b = 0; b < plen; b++)
                    REQUIRE_EQ(opened[TLS_EXPLICIT + b], 0);
        }
    }
    for (int p = 0; p < 2; p++) {
        EVP_CIPHER_CTX_free(enc[p]);
        EVP_CIPHER_CTX_free(dec[p]);
    }
}
END_TEST

/* What both providers refuse in record mode, alike: an AAD of another
 * length or whose length field has no room for the explicit IV (and the
 * tag, decrypting), a record too short for them, one not in place, an
 * invocation field set for encryption or before a fixed part; and what
 * they give alike: tlsaadpad, tlsivgen's fields and the message after it. */
START_TEST(gcm_tls_rules)
{
    const size_t i = (size_t)_i;
    if (!offered(i) || !is_gcm(i))
        return;
    uint64_t s = rng_for("gcm_tls_rules", _i);
    uint8_t key[32], iv[12], buf[64], out[2][64], gen[2][8], tag[2][16];
    random_key(&s, i, key);
    rng_fill(&s, iv, sizeof iv);
    for (int p = 0; p < 2; p++) {
        EVP_CIPHER_CTX *ctx = tls_ctx(i, p, key, iv, 1);
        uint8_t aad[13] = {0};
        size_t pad = 99;
        OSSL_PARAM get[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, &pad),
                            OSSL_PARAM_END};
        ERR_clear_error();
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 12, aad) <= 0);
        aad[12] = TLS_EXPLICIT - 1;
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) <= 0);
        aad[12] = TLS_EXPLICIT;
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad), TLS_TAG);
        REQUIRE_EQ(EVP_CIPHER_CTX_get_params(ctx, get), 1);
        REQUIRE_EQ(pad, TLS_TAG);
        int outl;
        memset(buf, 0, sizeof buf);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, buf, &outl, buf, TLS_OVERHEAD - 1), 0); /* too short */
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad), TLS_TAG);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, out[p], &outl, buf, TLS_OVERHEAD), 0); /* not in place */
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_INV, 8, buf) <= 0); /* encrypting */
        /* tlsivgen: the invocation field out, then a plain message under that IV */
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_IV_GEN, 8, gen[p]), 1);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, NULL, &outl, aad, 13), 1);
        REQUIRE_EQ(EVP_CipherUpdate(ctx, out[p], &outl, key, 16), 1);
        REQUIRE_EQ(EVP_CipherFinal_ex(ctx, out[p] + 16, &outl), 1);
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag[p]), 1);
        EVP_CIPHER_CTX_free(ctx);
        ctx = tls_ctx(i, p, key, iv, 0);
        aad[11] = 0, aad[12] = TLS_OVERHEAD - 1;
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) <= 0); /* no room */
        EVP_CIPHER_CTX_free(ctx);
        ctx = ctx_new(); /* no fixed part */
        REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][p], key, NULL, 0, NULL), 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_INV, 8, buf) <= 0);
        EVP_CIPHER_CTX_free(ctx);
        ERR_clear_error();
    }
    REQUIRE(memcmp(gen[AESGEN], gen[DEFAULT], 8) == 0);
    REQUIRE(memcmp(gen[AESGEN], iv + 4, 8) == 0);
    REQUIRE(memcmp(out[AESGEN], out[DEFAULT], 16) == 0);
    REQUIRE(memcmp(tag[AESGEN], tag[DEFAULT], 16) == 0);
}
END_TEST

/* More of record mode, both providers alike: a record through EVP_Cipher
 * (which gives the input's length); EVP_CipherFinal with a record due fails
 * and ends record mode; after an AAD refused for its length field the next
 * update fails too, never a plain message (encrypting, the default provider
 * seals it under the AAD refused; ours refuses it); fixed parts of 2 and 9
 * bytes are refused; and with a 4-byte fixed part each encryption context
 * draws its own invocation field, which a decryption context with the same
 * fixed part opens.  Ours alone: a fixed part of (size_t)-4 bytes is
 * refused (the default provider of OpenSSL 3.0 copies that much). */
START_TEST(gcm_tls_more)
{
    const size_t i = (size_t)_i;
    if (!offered(i) || !is_gcm(i))
        return;
    uint64_t s = rng_for("gcm_tls_more", _i);
    uint8_t key[32], iv[12], rec[2][2][64], aad[13] = {0};
    int outl;
    random_key(&s, i, key);
    rng_fill(&s, iv, sizeof iv);
    for (int p = 0; p < 2; p++) {
        EVP_CIPHER_CTX *ctx = tls_ctx(i, p, key, iv, 1);
        aad[11] = 0, aad[12] = TLS_EXPLICIT + 16;
        memset(rec[p][0], 7, sizeof rec[p][0]);
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad), TLS_TAG);
        REQUIRE_EQ(EVP_Cipher(ctx, rec[p][0], rec[p][0], 16 + TLS_OVERHEAD), 16 + TLS_OVERHEAD);
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad), TLS_TAG);
        ERR_clear_error();
        REQUIRE(EVP_CipherFinal_ex(ctx, rec[p][1], &outl) <= 0); /* a record was due */
        REQUIRE(EVP_CipherUpdate(ctx, rec[p][1], &outl, rec[p][1], 16 + TLS_OVERHEAD) <= 0);
        aad[12] = TLS_EXPLICIT - 1;
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) <= 0);
        if (p == AESGEN) /* the default provider seals it under the refused AAD */
            REQUIRE(EVP_CipherUpdate(ctx, rec[p][1], &outl, rec[p][1], 16 + TLS_OVERHEAD) <= 0);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IV_FIXED, 2, iv) <= 0);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IV_FIXED, 9, iv) <= 0);
        if (p == AESGEN)
            REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IV_FIXED, -4, iv) <= 0);
        EVP_CIPHER_CTX_free(ctx);
        /* a 4-byte fixed part: random invocation fields, one per context */
        for (int k = 0; k < 2; k++) {
            ctx = ctx_new();
            REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][p], key, NULL, 1, NULL), 1);
            REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IV_FIXED, 4, iv), 1);
            aad[12] = TLS_EXPLICIT + 16;
            REQUIRE_EQ(tls_record(ctx, 1, 0, rec[p][k], 16 + TLS_OVERHEAD, &outl), 1);
            EVP_CIPHER_CTX_free(ctx);
            ctx = tls_ctx(i, !p, key, iv, 0);
            REQUIRE_EQ(tls_record(ctx, 0, 0, rec[p][k], 16 + TLS_OVERHEAD, &outl), 1);
            REQUIRE_EQ(outl, 16);
            EVP_CIPHER_CTX_free(ctx);
        }
        REQUIRE(memcmp(rec[p][0], rec[p][1], TLS_EXPLICIT) != 0);
        /* decrypting, a length field with no room for the tag: refused, and
         * the record after it is not opened */
        ctx = tls_ctx(i, p, key, iv, 0);
        aad[12] = TLS_OVERHEAD - 1;
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) <= 0);
        memcpy(rec[p][1], rec[p][0], sizeof rec[p][0]);
        REQUIRE(EVP_CipherUpdate(ctx, rec[p][1], &outl, rec[p][1], TLS_OVERHEAD - 1) <= 0);
        EVP_CIPHER_CTX_free(ctx);
        ERR_clear_error();
    }
}
END_TEST

/* A whole message through ctx (padding off), and for GCM its tag out (enc)
 * or in: what final says. */
static int whole(size_t i, EVP_CIPHER_CTX *ctx, uint8_t *out, const uint8_t *in, int len, uint8_t tag[16],
                 int enc)
{
    int outl = -1, finl = -1;
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    if (is_gcm(i) && !enc)
        REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, tag), 1);
    REQUIRE_EQ(EVP_CipherUpdate(ctx, out, &outl, in, len), 1);
    const int r = EVP_CipherFinal_ex(ctx, out + outl, &finl);
    if (r == 1) {
        REQUIRE_EQ(outl + finl, len);
        if (is_gcm(i) && enc)
            REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag), 1);
    }
    return r;
}

/* A new direction without the key (aes-gen's keys hold both schedules):
 * every mode decrypts what it encrypted with the key given once, and
 * encrypts again; the default provider's ECB, CBC and XTS need the key
 * again (sc_reinit gives it there). */
START_TEST(direction_without_key)
{
    const size_t i = (size_t)_i;
    if (!offered(i))
        return;
    uint64_t s = rng_for("direction_without_key", _i);
    uint8_t key[64], iv[16], pt[48], ct[48], back[48], again[48], tag[16];
    random_key(&s, i, key);
    rng_fill(&s, iv, sizeof iv);
    rng_fill(&s, pt, sizeof pt);
    EVP_CIPHER_CTX *ctx = ctx_new();
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], key, iv, 1, NULL), 1);
    REQUIRE_EQ(whole(i, ctx, ct, pt, 48, tag, 1), 1);
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, NULL, NULL, iv, 0, NULL), 1);
    REQUIRE_EQ(whole(i, ctx, back, ct, 48, tag, 0), 1);
    REQUIRE(memcmp(back, pt, sizeof pt) == 0);
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, NULL, NULL, iv, 1, NULL), 1);
    REQUIRE_EQ(whole(i, ctx, again, pt, 48, tag, 1), 1);
    REQUIRE(memcmp(again, ct, sizeof ct) == 0);
    EVP_CIPHER_CTX_free(ctx);
}
END_TEST

/* GCM's message: a new key in the middle of one, with no IV, starts it again
 * from its IV; after a tag that does not match it is over (updates and
 * final fail until a new IV; the default provider goes on); a tag set on
 * encryption is refused and the computed tag stays (the default provider's
 * is overwritten with the one refused). */
START_TEST(gcm_message_rules)
{
    const size_t i = (size_t)_i;
    if (!offered(i) || !is_gcm(i))
        return;
    uint64_t s = rng_for("gcm_message_rules", _i);
    uint8_t key[64], key2[64], iv[12], aad[13], pt[48], ct[48], ct2[48], tag[16], tag2[16], wrong[16];
    int outl;
    random_key(&s, i, key);
    random_key(&s, i, key2);
    rng_fill(&s, iv, sizeof iv);
    rng_fill(&s, aad, sizeof aad);
    rng_fill(&s, pt, sizeof pt);

    EVP_CIPHER_CTX *ctx = ctx_new();
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, ciphers[i][AESGEN], key, iv, 1, NULL), 1);
    REQUIRE_EQ(EVP_CipherUpdate(ctx, NULL, &outl, aad, sizeof aad), 1);
    REQUIRE_EQ(EVP_CipherUpdate(ctx, ct, &outl, pt, 20), 1);
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, NULL, key2, NULL, 1, NULL), 1);
    REQUIRE_EQ(whole(i, ctx, ct, pt, 48, tag, 1), 1);
    EVP_CIPHER_CTX *fresh = ctx_new();
    REQUIRE_EQ(EVP_CipherInit_ex2(fresh, ciphers[i][AESGEN], key2, iv, 1, NULL), 1);
    REQUIRE_EQ(whole(i, fresh, ct2, pt, 48, tag2, 1), 1);
    REQUIRE(memcmp(ct, ct2, sizeof ct) == 0 && memcmp(tag, tag2, sizeof tag) == 0);
    EVP_CIPHER_CTX_free(fresh);

    memcpy(wrong, tag, sizeof wrong);
    wrong[rnd(&s, 16)] ^= (uint8_t)(1 + rnd(&s, 255));
    REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, wrong), 0);
    ERR_clear_error();
    REQUIRE_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag2), 1);
    REQUIRE(memcmp(tag, tag2, sizeof tag) == 0);

    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, NULL, NULL, iv, 0, NULL), 1);
    ERR_clear_error();
    REQUIRE_EQ(whole(i, ctx, ct2, ct, 48, wrong, 0), 0);
    require_aesgen_reason(TAG_MISMATCH);
    REQUIRE_EQ(EVP_CipherUpdate(ctx, ct2, &outl, ct, 16), 0);
    require_aesgen_reason(MESSAGE_FINISHED);
    REQUIRE_EQ(EVP_CipherFinal_ex(ctx, ct2, &outl), 0);
    require_aesgen_reason(MESSAGE_FINISHED);
    REQUIRE_EQ(EVP_CipherInit_ex2(ctx, NULL, NULL, iv, 0, NULL), 1);
    REQUIRE_EQ(whole(i, ctx, ct2, ct, 48, tag, 0), 1);
    REQUIRE(memcmp(ct2, pt, sizeof pt) == 0);
    EVP_CIPHER_CTX_free(ctx);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODULE_DIR (where aes_gen_provider.so and aesgen.so are)\n",
                argv[0]);
        return 2;
    }
    seed = test_seed_random();
    printf("seed 0x%llx (AES_GEN_TEST_SEED=0x%llx repeats this run), provider from %s\n",
           (unsigned long long)seed, (unsigned long long)seed, argv[1]);
    libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL || !OSSL_PROVIDER_set_default_search_path(libctx, argv[1])) {
        fprintf(stderr, "no library context\n");
        return 1;
    }
    alone = OSSL_LIB_CTX_new();
    if (alone == NULL || !OSSL_PROVIDER_set_default_search_path(alone, argv[1])) {
        fprintf(stderr, "no library context\n");
        return 1;
    }
    OSSL_PROVIDER *def = OSSL_PROVIDER_load(libctx, "default");
    OSSL_PROVIDER *ours = OSSL_PROVIDER_load(libctx, "aesgen");
    OSSL_PROVIDER *ours_alone = OSSL_PROVIDER_load(alone, "aesgen");
    if (def == NULL || ours == NULL || ours_alone == NULL) {
        fprintf(stderr, "cannot load the %s provider from %s:\n", def ? "aesgen" : "default", argv[1]);
        ERR_print_errors_fp(stderr);
        return 1;
    }
    for (size_t i = 0; i < NCIPHERS; i++) {
        ciphers[i][DEFAULT] = EVP_CIPHER_fetch(libctx, cipher_names[i], "provider=default");
        ciphers[i][AESGEN] = EVP_CIPHER_fetch(libctx, cipher_names[i], "provider=aesgen");
        if (ciphers[i][DEFAULT] == NULL) {
            fprintf(stderr, "%s: not in the default provider\n", cipher_names[i]);
            return 1;
        }
    }
    ERR_clear_error();

    Suite *suite = suite_create("provider");
    TCase *tc = tcase_create("provider");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, provider_params);
    tcase_add_loop_test(tc, offered_where_the_key_size_runs, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, cipher_descriptions, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, random_messages, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, gcm_tampering, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, error_paths_and_contexts, 0, (int)(NCIPHERS * NSCENARIOS));
    tcase_add_loop_test(tc, deliberate_differences, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, tls_parameters, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, cbc_tls_records, 0, (int)(NCIPHERS * NCBCTLS));
    tcase_add_loop_test(tc, gcm_tls_records, 0, (int)(3 * NCIPHERS));
    tcase_add_loop_test(tc, gcm_tls_more, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, gcm_tls_rules, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, direction_without_key, 0, (int)NCIPHERS);
    tcase_add_loop_test(tc, gcm_message_rules, 0, (int)NCIPHERS);
    suite_add_tcase(suite, tc);
    const int status = run_suite(suite);
    for (size_t i = 0; i < NCIPHERS; i++) {
        EVP_CIPHER_free(ciphers[i][AESGEN]);
        EVP_CIPHER_free(ciphers[i][DEFAULT]);
    }
    OSSL_PROVIDER_unload(ours);
    OSSL_PROVIDER_unload(def);
    OSSL_PROVIDER_unload(ours_alone);
    OSSL_LIB_CTX_free(libctx);
    OSSL_LIB_CTX_free(alone);
    return status;
}
