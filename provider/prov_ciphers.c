/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cipher operations of aes_gen_provider.so, on aes-gen's public API:
 * ECB and CBC with EVP's block buffering and PKCS#7 padding; CFB-128, OFB and
 * CTR on aes-gen's mode functions (OpenSSL's `num` semantics); GCM on
 * aes-gen's GCM stream; XTS one data unit per update.  The parameters, the
 * return values and the failures are those of OpenSSL 3.0's default
 * provider (provider-cipher(7), EVP_EncryptInit(3), and that provider
 * observed through EVP); where they differ, the function says so (README.md
 * lists it all).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/prov_ssl.h>
#include <openssl/proverr.h>
#include <openssl/rand.h>

#include "prov.h"

#define GCM_IV_MAX 128    /* the default provider's longest GCM IV */
#define GCM_TAG_MAX 16
#define GCM_TAG_MIN 4     /* aes-gen verifies tags of 4..16 bytes (SP 800-38D) */
#define TAG_UNSET SIZE_MAX
/* TLS 1.2's AES-GCM records (RFC 5288): a 13-byte AAD, a 4-byte fixed IV
 * part and an 8-byte explicit one carried in front of each record, a 16-byte
 * tag behind it. */
#define TLS_AAD_LEN 13
#define TLS_FIXED_IV_LEN 4
#define TLS_EXPLICIT_IV_LEN 8
#define TLS_TAG_LEN 16
/* An IV whose invocation field counts: a fixed part and 8 counted bytes
 * (checked where it is used too: the IV length may change after). */
#define TLS_IV_MIN (TLS_FIXED_IV_LEN + TLS_EXPLICIT_IV_LEN)
/* IEEE 1619-2018 and SP 800-38E: at most 2^20 blocks per XTS data unit. */
#define XTS_MAX_UNIT (((size_t)1 << 20) * AES_GEN_BLOCK_SIZE)

/* GCM in TLS 1.2's record mode: whether the next update is a record. */
enum tls_record {
    TLS_NO_RECORD, /* not in record mode (or its record is done) */
    TLS_RECORD_DUE, /* tlsaad set: the next update is a record under it */
    TLS_AAD_REFUSED /* tlsaad refused: the next update fails (never a plain message) */
};

/* GCM: the IV of the context, and its message. */
enum iv_state {
    IV_UNSET,    /* no IV yet */
    IV_BUFFERED, /* an IV; its message starts with the first update or final */
    IV_STARTED,  /* the message is under way in st.g */
    IV_FINISHED  /* the message is over: a new IV is needed */
};

struct agp_ctx {
    union { /* first: aes-gen's key types are 64-byte aligned */
        aes_gen_key aes; /* ECB, CBC, CFB, OFB, CTR */
        aes_gen_gcm_key gcm;
        aes_gen_xts_key xts;
    } key;
    aes_gen_gcm_stream g; /* GCM, while iv_state is IV_STARTED */
    const struct agp_alg *alg;
    const struct agp_provctx *prov;
    unsigned char raw_key[64]; /* the key as set, while key_set */
    /* The IV as it stands (CBC's chaining value, the IV register of CFB, OFB
     * and CTR, GCM's IV of up to GCM_IV_MAX bytes) and as it was set. */
    unsigned char iv[GCM_IV_MAX];
    unsigned char oiv[AES_GEN_BLOCK_SIZE];
    /* ECB, CBC: pending bytes; CTR: the keystream block in use; GCM: the tag */
    unsigned char buf[AES_GEN_BLOCK_SIZE];
    size_t bufsz;
    size_t ivlen;
    size_t taglen;    /* GCM: the tag's length, TAG_UNSET until set or computed */
    unsigned int num; /* CFB, OFB, CTR: bytes used of the block in use */
    unsigned int pad; /* ECB, CBC: PKCS#7 padding (the default: on) */
    int enc, key_set, iv_set;
    int ctr_block_set; /* CTR: buf holds a block of this key and IV */
    enum iv_state iv_state;
    /* GCM in TLS 1.2's record mode: the record's AAD (its length field
     * made the plaintext's) while one is due, and whether the IV's explicit
     * part counts on by itself (tlsivfixed set). */
    unsigned char tls_aad[TLS_AAD_LEN];
    enum tls_record tls_record;
    int iv_gen;
    size_t tls_aad_pad;   /* tlsaadpad: the tag's length once an AAD is set */
    uint64_t tls_records; /* encrypted under this key: IVs wrap after 2^64 */
    /* ECB, CBC in TLS's record mode (tls-version set): each update is a
     * record, padded when encrypting, unpadded and its MAC taken out (into
     * tls_mac, tls-mac to read) when decrypting. */
    unsigned int tls_version;
    size_t tls_mac_size;
    unsigned char tls_mac[AGP_TLS_MAC_MAX];
    int tls_mac_set; /* tls_mac is the last update's (a record opened) */
};

/* --- errors and parameters ------------------------------------------------------- */

/* An aes-gen call that failed where OpenSSL has a reason of its own: that
 * reason, with aes-gen's message as its data. */
static int aes_gen_failed(int reason, int err)
{
    ERR_raise_data(ERR_LIB_PROV, reason, "aes-gen: %s", aes_gen_strerror(err));
    return 0;
}

static int set_failed(void)
{
    ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
    return 0;
}

static int get_failed(void)
{
    ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER);
    return 0;
}

/* Each returns 0 (with the error raised) only when the parameter is there and
 * cannot take the value. */
static int put_size(OSSL_PARAM params[], const char *key, size_t v)
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, key);
    return p == NULL || OSSL_PARAM_set_size_t(p, v) || set_failed();
}

static int put_uint(OSSL_PARAM params[], const char *key, unsigned int v)
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, key);
    return p == NULL || OSSL_PARAM_set_uint(p, v) || set_failed();
}

static int put_int(OSSL_PARAM params[], const char *key, int v)
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, key);
    return p == NULL || OSSL_PARAM_set_int(p, v) || set_failed();
}

/* An IV, as a pointer to ours or as a copy: whichever the caller asked for. */
static int set_iv(OSSL_PARAM *p, const unsigned char *iv, size_t len)
{
    return p->data_type == OSSL_PARAM_OCTET_PTR ? OSSL_PARAM_set_octet_ptr(p, iv, len)
                                                : OSSL_PARAM_set_octet_string(p, iv, len);
}

/* The context parameters the ciphers know. */
enum param {
    P_OTHER, P_KEYLEN, P_IVLEN, P_PADDING, P_NUM, P_USE_BITS, P_IV, P_UPDATED_IV, P_TAG,
    P_TAGLEN, P_TLS_VERSION, P_TLS_MAC_SIZE, P_TLS_MAC, P_TLS_AAD, P_TLS_IV_FIXED,
    P_TLS_IV_INV, P_TLS_AAD_PAD, P_TLS_IV_GEN
};

/* Which one a name is.  The context's get and set functions go once over
 * the caller's array, this for each entry: EVP passes one or two at a time,
 * and an OSSL_PARAM_locate for every name known (a strcmp per entry each)
 * took a quarter of a short GCM message initialised anew per message, as
 * openssl speed does. */
static enum param param_of(const char *key)
{
    static const struct {
        const char *name;
        enum param id;
    } names[] = {
        {OSSL_CIPHER_PARAM_KEYLEN, P_KEYLEN},
        {OSSL_CIPHER_PARAM_IVLEN, P_IVLEN}, /* = OSSL_CIPHER_PARAM_AEAD_IVLEN */
        {OSSL_CIPHER_PARAM_PADDING, P_PADDING},
        {OSSL_CIPHER_PARAM_NUM, P_NUM},
        {OSSL_CIPHER_PARAM_USE_BITS, P_USE_BITS},
        {OSSL_CIPHER_PARAM_IV, P_IV},
        {OSSL_CIPHER_PARAM_UPDATED_IV, P_UPDATED_IV},
        {OSSL_CIPHER_PARAM_AEAD_TAG, P_TAG},
        {OSSL_CIPHER_PARAM_AEAD_TAGLEN, P_TAGLEN},
        {OSSL_CIPHER_PARAM_TLS_VERSION, P_TLS_VERSION},
        {OSSL_CIPHER_PARAM_TLS_MAC_SIZE, P_TLS_MAC_SIZE},
        {OSSL_CIPHER_PARAM_TLS_MAC, P_TLS_MAC},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, P_TLS_AAD},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, P_TLS_IV_FIXED},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, P_TLS_IV_INV},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, P_TLS_AAD_PAD},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, P_TLS_IV_GEN},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (key[0] == names[i].name[0] && strcmp(key, names[i].name) == 0)
            return names[i].id;
    return P_OTHER;
}

/* TLS's record-layer modes are those of ECB and CBC (tls_block_record; libssl's
 * TLS 1.2 and earlier set them for CBC) and GCM's (gcm_tls_record).  The
 * stream modes' are refused, never ignored, so that a caller fails cleanly
 * instead of getting records whose MAC nobody took out (XTS ignores them, as
 * the default provider's does). */
static int refuse_tls(const struct agp_ctx *c, const OSSL_PARAM *p)
{
    AGP_RAISE(c->prov, AGP_R_TLS_UNSUPPORTED, "%s", p->key);
    return 0;
}

/* --- what each algorithm is ------------------------------------------------------- */

/* No AES mode here is CTS, TLS multiblock, or has a key generator of its own. */
static int get_params(const struct agp_alg *a, OSSL_PARAM params[])
{
    return put_uint(params, OSSL_CIPHER_PARAM_MODE, a->evp_mode) &&
           put_int(params, OSSL_CIPHER_PARAM_AEAD, a->aead) &&
           put_int(params, OSSL_CIPHER_PARAM_CUSTOM_IV, a->custom_iv) &&
           put_int(params, OSSL_CIPHER_PARAM_CTS, 0) &&
           put_int(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0) &&
           put_int(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0) &&
           put_size(params, OSSL_CIPHER_PARAM_KEYLEN, a->keylen) &&
           put_size(params, OSSL_CIPHER_PARAM_BLOCK_SIZE, a->blocksize) &&
           put_size(params, OSSL_CIPHER_PARAM_IVLEN, a->ivlen);
}

static const OSSL_PARAM gettable_params[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *agp_gettable_params(void *provctx)
{
    (void)provctx;
    return gettable_params;
}

/* --- contexts --------------------------------------------------------------------- */

static void wipe_key(struct agp_ctx *c)
{
    if (c->alg->mode == AGP_GCM)
        aes_gen_gcm_wipe(&c->key.gcm);
    else if (c->alg->mode == AGP_XTS)
        aes_gen_xts_wipe(&c->key.xts);
    else
        aes_gen_wipe(&c->key.aes);
    OPENSSL_cleanse(c->raw_key, sizeof c->raw_key);
    c->key_set = 0;
}

/* Whether key is the key set already.  Applications that initialise every
 * message with the key again (openssl speed does, for GCM) then keep the
 * expanded key instead of wiping it and setting it up anew (for GCM, the
 * powers of the hash key: most of a short message's time).  The comparison
 * is constant-time; its outcome, the same key or not, says nothing of it. */
static int same_key(const struct agp_ctx *c, const unsigned char *key)
{
    return c->key_set && CRYPTO_memcmp(c->raw_key, key, c->alg->keylen) == 0;
}

/* After a key is set up: the bytes same_key compares. */
static void key_is_set(struct agp_ctx *c, const unsigned char *key)
{
    memcpy(c->raw_key, key, c->alg->keylen);
    c->key_set = 1;
}

/* GCM's message under way, gone (a reinit, or a message dropped). */
static void wipe_stream(struct agp_ctx *c)
{
    OPENSSL_cleanse(&c->g, sizeof c->g);
}

static struct agp_ctx *ctx_alloc(void)
{
    /* aligned_alloc: aes-gen's types want 64 bytes where malloc gives 16
     * (sizeof is a multiple of 64, as aligned_alloc needs). */
    struct agp_ctx *c = aligned_alloc(_Alignof(struct agp_ctx), sizeof(struct agp_ctx));
    if (c == NULL)
        ERR_raise(ERR_LIB_PROV, ERR_R_MALLOC_FAILURE);
    return c;
}

static void *newctx(void *provctx, const struct agp_alg *alg)
{
    struct agp_ctx *c = ctx_alloc();
    if (c == NULL)
        return NULL;
    memset(c, 0, sizeof *c);
    c->alg = alg;
    c->prov = provctx;
    c->ivlen = alg->ivlen;
    c->taglen = TAG_UNSET;
    c->pad = 1;
    return c;
}

static void agp_freectx(void *vctx)
{
    struct agp_ctx *c = vctx;
    if (c == NULL)
        return;
    wipe_key(c);
    OPENSSL_cleanse(c, sizeof *c);
    free(c);
}

/* aes-gen's GCM stream holds a pointer to its key, and the copy's must point
 * at the copy's key (the source may be freed first).  aes_gen.h has no call
 * that moves a stream, and public calls cannot rebuild one (its running
 * hash): that pointer is the one private field of aes-gen's types written
 * here. */
static void rebind_stream(struct agp_ctx *c)
{
    if (c->alg->mode == AGP_GCM && c->iv_state == IV_STARTED)
        c->g.private_key = &c->key.gcm;
}

static void *agp_dupctx(void *vctx)
{
    const struct agp_ctx *src = vctx;
    struct agp_ctx *c = ctx_alloc();
    if (c == NULL)
        return NULL;
    memcpy(c, src, sizeof *c);
    rebind_stream(c);
    return c;
}

/* --- ECB, CBC, CFB, OFB, CTR: initialisation and parameters ----------------------- */

static int set_aes_key(struct agp_ctx *c, const unsigned char *key, size_t keylen)
{
    if (keylen != c->alg->keylen) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
        return 0;
    }
    if (same_key(c, key))
        return 1;
    wipe_key(c);
    const int err = aes_gen_setkey(&c->key.aes, key, keylen);
    if (err != AES_GEN_OK) {
        AGP_RAISE(c->prov, AGP_R_AES_GEN, "aes_gen_setkey: %s", aes_gen_strerror(err));
        return 0;
    }
    key_is_set(c, key);
    return 1;
}

/*
 * CFB, OFB and CTR keep OpenSSL's state: c->iv is the IV register (CTR: the
 * next counter; OFB: the keystream block in use; CFB: the feedback block,
 * its used bytes ciphertext) and num the bytes used of the block in use,
 * which is c->iv itself but for CTR, whose keystream block is c->buf (made
 * for a partial block only, as OpenSSL's ecount buffer).  That is the
 * position of an aes-gen stream: each update resumes one there, whose whole
 * blocks go through the one-shot mode functions, and reads back where it
 * stopped.
 */

static int generic_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

/* OpenSSL's rules: a new IV for every mode but ECB; without one, CBC, CFB
 * and OFB go back to the IV last set, CTR goes on from its counter; a new
 * key; num and the pending bytes start again. */
static int generic_init(struct agp_ctx *c, const unsigned char *key, size_t keylen,
                        const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[], int enc)
{
    c->num = 0;
    c->bufsz = 0;
    OPENSSL_cleanse(c->buf, sizeof c->buf);
    c->ctr_block_set = 0;
    c->enc = enc;
    if (iv != NULL && c->alg->mode != AGP_ECB) {
        if (ivlen != c->alg->ivlen) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
            return 0;
        }
        memcpy(c->iv, iv, ivlen);
        memcpy(c->oiv, iv, ivlen);
        c->iv_set = 1;
    } else if (iv == NULL && c->iv_set && c->alg->mode != AGP_CTR) {
        memcpy(c->iv, c->oiv, c->alg->ivlen);
    }
    if (key != NULL && !set_aes_key(c, key, keylen))
        return 0;
    return generic_set_ctx_params(c, params);
}

static int generic_einit(void *vctx, const unsigned char *key, size_t keylen,
                         const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return generic_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int generic_dinit(void *vctx, const unsigned char *key, size_t keylen,
                         const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return generic_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* Also XTS's: its num stays 0 and its padding is never used, as in the
 * default provider. */
static int generic_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    struct agp_ctx *c = vctx;

    for (OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        int ok = 1;
        switch (param_of(p->key)) {
        case P_IVLEN:
            ok = OSSL_PARAM_set_size_t(p, c->alg->ivlen);
            break;
        case P_KEYLEN:
            ok = OSSL_PARAM_set_size_t(p, c->alg->keylen);
            break;
        case P_PADDING:
            ok = OSSL_PARAM_set_uint(p, c->pad);
            break;
        case P_NUM:
            ok = OSSL_PARAM_set_uint(p, c->num);
            break;
        case P_IV:
            ok = set_iv(p, c->oiv, c->alg->ivlen);
            break;
        case P_UPDATED_IV:
            ok = set_iv(p, c->iv, c->alg->ivlen);
            break;
        case P_TLS_MAC: /* the last record opened's, until the next update; else NULL */
            ok = OSSL_PARAM_set_octet_ptr(p, c->tls_mac_set ? c->tls_mac : NULL, c->tls_mac_size);
            break;
        default:
            break;
        }
        if (!ok)
            return set_failed();
    }
    return 1;
}

/* A TLS parameter (tls-version or tls-mac-size).  ECB and CBC take a version
 * whose records the default provider unpads (or 0: none) and a MAC of up to
 * AGP_TLS_MAC_MAX bytes, and refuse others when set (the default provider
 * takes them and fails each record); the other modes take only 0, no TLS. */
static int set_tls_value(struct agp_ctx *c, const OSSL_PARAM *p, enum param id)
{
    unsigned int version = 0;
    size_t macsize = 0;
    const int ok = id == P_TLS_VERSION ? OSSL_PARAM_get_uint(p, &version)
                                       : OSSL_PARAM_get_size_t(p, &macsize);
    if (!ok)
        return get_failed();
    if (c->alg->mode != AGP_ECB && c->alg->mode != AGP_CBC)
        return version == 0 && macsize == 0 ? 1 : refuse_tls(c, p);
    if (id == P_TLS_VERSION) {
        if (version != 0 && !agp_tls_version_known(version)) {
            AGP_RAISE(c->prov, AGP_R_TLS_UNSUPPORTED, "tls-version 0x%x: not a TLS or DTLS version",
                      version);
            return 0;
        }
        c->tls_version = version;
    } else {
        if (macsize > AGP_TLS_MAC_MAX) {
            AGP_RAISE(c->prov, AGP_R_TLS_UNSUPPORTED, "tls-mac-size %zu: at most %d", macsize,
                      AGP_TLS_MAC_MAX);
            return 0;
        }
        c->tls_mac_size = macsize;
    }
    return 1;
}

/* num: a position in the block in use.  The default provider takes any
 * value; past the block it reads and writes beyond its buffers, and CTR's
 * block made for no partial block is zeros or an earlier IV's keystream. */
static int num_fits(const struct agp_ctx *c, unsigned int v)
{
    if (v >= AES_GEN_BLOCK_SIZE) {
        AGP_RAISE(c->prov, AGP_R_BAD_NUM, "num %u: at most %d", v, AES_GEN_BLOCK_SIZE - 1);
        return 0;
    }
    if (v != 0 && c->alg->mode == AGP_CTR && !c->ctr_block_set) {
        AGP_RAISE(c->prov, AGP_R_BAD_NUM,
                  "num %u: no keystream block yet (none since the key or IV)", v);
        return 0;
    }
    return 1;
}

static int generic_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    struct agp_ctx *c = vctx;
    unsigned int v;

    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        const enum param id = param_of(p->key);
        switch (id) {
        case P_PADDING:
            if (!OSSL_PARAM_get_uint(p, &v))
                return get_failed();
            c->pad = v != 0;
            break;
        case P_USE_BITS: /* CFB-1 only, which this provider does not offer */
            if (!OSSL_PARAM_get_uint(p, &v))
                return get_failed();
            break;
        case P_NUM:
            if (!OSSL_PARAM_get_uint(p, &v))
                return get_failed();
            if (!num_fits(c, v))
                return 0;
            c->num = v;
            break;
        case P_TLS_VERSION:
        case P_TLS_MAC_SIZE:
            if (!set_tls_value(c, p, id))
                return 0;
            break;
        default:
            break;
        }
    }
    return 1;
}

static const OSSL_PARAM generic_gettable_ctx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM generic_settable_ctx[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_USE_BITS, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *generic_gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return generic_gettable_ctx;
}

static const OSSL_PARAM *generic_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return generic_settable_ctx;
}

static int no_key(void)
{
    ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
    return 0;
}

static int output_too_small(void)
{
    ERR_raise(ERR_LIB_PROV, PROV_R_OUTPUT_BUFFER_TOO_SMALL);
    return 0;
}

/* --- ECB and CBC ------------------------------------------------------------------ */

/* Whole blocks in the context's direction; CBC chains through c->iv. */
static int block_crypt(struct agp_ctx *c, unsigned char *out, const unsigned char *in,
                       size_t len)
{
    const aes_gen_key *k = &c->key.aes;
    int err;
    if (c->alg->mode == AGP_ECB)
        err = c->enc ? aes_gen_ecb_encrypt(k, out, in, len) : aes_gen_ecb_decrypt(k, out, in, len);
    else
        err = c->enc ? aes_gen_cbc_encrypt(k, c->iv, out, in, len)
                     : aes_gen_cbc_decrypt(k, c->iv, out, in, len);
    return err == AES_GEN_OK || aes_gen_failed(PROV_R_CIPHER_OPERATION_FAILED, err);
}

/* Up to this many bytes of input blocks, the pending block and those blocks
 * go to aes-gen in one call, the input moved behind the pending block in
 * out: below it, moving them costs less than a call of its own for the one
 * block (measured here: a 16-byte call about 27 ns, moving 496 bytes about
 * as much, 1008 bytes 47 ns).  openssl speed's CBC decryption has a held-back
 * block pending at every update. */
#define FUSE_MAX 512

/* The pending block, then `whole` bytes of input blocks, into out.  When out
 * trails in by a block (in place, as EVP's contract has it) they are one
 * range already; short ranges are made one; long ones go in two calls, as
 * the default provider makes them (so out == in with a block pending
 * overwrites input before it is read, there as here). */
static int flush_and_crypt(struct agp_ctx *c, unsigned char *out, const unsigned char *in,
                           size_t whole)
{
    if (whole == 0)
        return block_crypt(c, out, c->buf, AES_GEN_BLOCK_SIZE);
    if (out + AES_GEN_BLOCK_SIZE == in || whole <= FUSE_MAX) {
        if (out + AES_GEN_BLOCK_SIZE != in)
            memmove(out + AES_GEN_BLOCK_SIZE, in, whole);
        memcpy(out, c->buf, AES_GEN_BLOCK_SIZE);
        return block_crypt(c, out, out, AES_GEN_BLOCK_SIZE + whole);
    }
    return block_crypt(c, out, c->buf, AES_GEN_BLOCK_SIZE) &&
           block_crypt(c, out + AES_GEN_BLOCK_SIZE, in, whole);
}

/* One TLS record in place, as the default provider takes it: encryption pads
 * it (SSL 3.0: zeros and the length; TLS: the length byte repeated; out has
 * room for the block, as EVP_CipherUpdate's outsize says), decryption hands
 * it to agp_tls_unpad.  *outl: the record encrypted, or the data decrypted
 * (after the explicit IV, which stays in out). */
static int tls_block_record(struct agp_ctx *c, unsigned char *out, size_t *outl,
                            size_t outsize, const unsigned char *in, size_t inl)
{
    c->tls_mac_set = 0;
    if (in == NULL || out != in || outsize < inl || !c->pad)
        goto fail;
    if (c->enc) {
        const size_t n = AES_GEN_BLOCK_SIZE - inl % AES_GEN_BLOCK_SIZE;
        if (outsize < inl + n)
            goto fail;
        memset(out + inl, c->tls_version == SSL3_VERSION ? 0 : (int)(n - 1), n - 1);
        out[inl + n - 1] = (unsigned char)(n - 1);
        inl += n;
    }
    if (inl % AES_GEN_BLOCK_SIZE != 0 || !block_crypt(c, out, in, inl))
        goto fail;
    *outl = inl;
    if (!c->enc) {
        if (!agp_tls_unpad(c->prov->libctx, c->tls_version, out, outl, c->tls_mac_size,
                           c->tls_mac))
            goto fail;
        c->tls_mac_set = 1;
    }
    return 1;
fail:
    ERR_raise(ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED);
    return 0;
}

/*
 * EVP's block buffering: bytes short of a block wait in c->buf; decrypting
 * with padding, the last whole block waits too (it may be the padded one)
 * until more input or final.  The output is the pending block, once
 * complete, then the input's whole blocks: a caller working in place (out
 * trailing in by the bytes pending, as EVP's contract has it) gets
 * dst == src for aes-gen's kernels.
 */
static int block_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                        const unsigned char *in, size_t inl)
{
    struct agp_ctx *c = vctx;

    if (!c->key_set)
        return no_key();
    if (c->tls_version != 0)
        return tls_block_record(c, out, outl, outsize, in, inl);
    if (c->bufsz != 0 && inl != 0) { /* top up the pending block */
        const size_t take = inl < AES_GEN_BLOCK_SIZE - c->bufsz ? inl
                                                                 : AES_GEN_BLOCK_SIZE - c->bufsz;
        memcpy(c->buf + c->bufsz, in, take);
        c->bufsz += take;
        in += take;
        inl -= take;
    }
    const int flush = c->bufsz == AES_GEN_BLOCK_SIZE && (c->enc || inl > 0 || !c->pad);
    size_t whole = inl & ~(size_t)(AES_GEN_BLOCK_SIZE - 1);
    if (whole != 0 && whole == inl && !c->enc && c->pad)
        whole -= AES_GEN_BLOCK_SIZE; /* held back: perhaps the padded block */
    const size_t done = (flush ? AES_GEN_BLOCK_SIZE : 0) + whole;
    if (done != 0) {
        if (outsize < done || out == NULL)
            return output_too_small();
        if (!(flush ? flush_and_crypt(c, out, in, whole) : block_crypt(c, out, in, whole)))
            return 0;
        if (flush)
            c->bufsz = 0;
    }
    if (inl != whole) { /* the rest waits (in may be NULL when inl is 0) */
        memcpy(c->buf + c->bufsz, in + whole, inl - whole);
        c->bufsz += inl - whole;
    }
    *outl = done;
    return 1;
}

/* The last block: encryption pads it (or, without padding, needs none
 * pending); decryption checks and strips the padding in constant time
 * through aes_gen_cbc_decrypt_padded, which zeroes the block on a bad one. */
static int block_final_encrypt(struct agp_ctx *c, unsigned char *out, size_t *outl,
                               size_t outsize)
{
    if (c->pad) {
        const size_t n = AES_GEN_BLOCK_SIZE - c->bufsz;
        memset(c->buf + c->bufsz, (int)n, n);
    } else if (c->bufsz == 0) {
        *outl = 0;
        return 1;
    } else if (c->bufsz != AES_GEN_BLOCK_SIZE) {
        ERR_raise(ERR_LIB_PROV, PROV_R_WRONG_FINAL_BLOCK_LENGTH);
        return 0;
    }
    if (outsize < AES_GEN_BLOCK_SIZE)
        return output_too_small();
    if (!block_crypt(c, out, c->buf, AES_GEN_BLOCK_SIZE))
        return 0;
    c->bufsz = 0;
    OPENSSL_cleanse(c->buf, sizeof c->buf);
    *outl = AES_GEN_BLOCK_SIZE;
    return 1;
}

/* One block decrypted and unpadded in place in c->buf: its length is left in
 * *len.  For ECB, CBC with a zero chaining value (one block of it is ECB);
 * for CBC, c->iv moves on to the block, as the unpadded path does. */
static int unpad_last_block(struct agp_ctx *c, size_t *len)
{
    static const uint8_t zero_iv[AES_GEN_BLOCK_SIZE];
    uint8_t ct[AES_GEN_BLOCK_SIZE];
    const int cbc = c->alg->mode == AGP_CBC;

    memcpy(ct, c->buf, sizeof ct);
    const int err = aes_gen_cbc_decrypt_padded(&c->key.aes, cbc ? c->iv : zero_iv, c->buf,
                                               sizeof c->buf, len, c->buf, sizeof c->buf);
    if (cbc)
        memcpy(c->iv, ct, sizeof ct);
    if (err == AES_GEN_EPADDING) {
        ERR_raise(ERR_LIB_PROV, PROV_R_BAD_DECRYPT);
        return 0;
    }
    return err == AES_GEN_OK || aes_gen_failed(PROV_R_CIPHER_OPERATION_FAILED, err);
}

static int block_final_decrypt(struct agp_ctx *c, unsigned char *out, size_t *outl,
                               size_t outsize)
{
    size_t len = AES_GEN_BLOCK_SIZE;

    if (c->bufsz != AES_GEN_BLOCK_SIZE) {
        if (c->bufsz == 0 && !c->pad) {
            *outl = 0;
            return 1;
        }
        ERR_raise(ERR_LIB_PROV, PROV_R_WRONG_FINAL_BLOCK_LENGTH);
        return 0;
    }
    c->bufsz = 0; /* the block is used up, whatever its padding */
    if (c->pad ? !unpad_last_block(c, &len) : !block_crypt(c, c->buf, c->buf, len))
        goto fail;
    if (outsize < len) {
        output_too_small();
        goto fail;
    }
    if (len != 0) /* (a whole block of padding leaves nothing: out may be NULL) */
        memcpy(out, c->buf, len);
    OPENSSL_cleanse(c->buf, sizeof c->buf);
    *outl = len;
    return 1;
fail:
    OPENSSL_cleanse(c->buf, sizeof c->buf);
    return 0;
}

static int block_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct agp_ctx *c = vctx;
    if (!c->key_set)
        return no_key();
    if (c->tls_version != 0) { /* records have no final, as in the default provider */
        ERR_raise(ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED);
        return 0;
    }
    return c->enc ? block_final_encrypt(c, out, outl, outsize)
                  : block_final_decrypt(c, out, outl, outsize);
}

/* EVP_Cipher: whole blocks, no buffering, no padding.  The default provider
 * takes a partial block too, with output that depends on its kernels;
 * here it is refused. */
static int block_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                        const unsigned char *in, size_t inl)
{
    struct agp_ctx *c = vctx;
    if (!c->key_set)
        return no_key();
    if (outsize < inl)
        return output_too_small();
    if (inl % AES_GEN_BLOCK_SIZE != 0) {
        AGP_RAISE(c->prov, AGP_R_NOT_WHOLE_BLOCKS, NULL);
        return 0;
    }
    if (!block_crypt(c, out, in, inl))
        return 0;
    *outl = inl;
    return 1;
}

/* --- CFB, OFB, CTR ---------------------------------------------------------------- */

static aes_gen_stream_mode stream_mode(const struct agp_ctx *c)
{
    switch (c->alg->mode) {
    case AGP_CTR:
        return AES_GEN_STREAM_CTR;
    case AGP_OFB:
        return AES_GEN_STREAM_OFB;
    default:
        return c->enc ? AES_GEN_STREAM_CFB_ENCRYPT : AES_GEN_STREAM_CFB_DECRYPT;
    }
}

/* Whole blocks from a block boundary: one call of the mode's function, whose
 * IV update chains as the stream's does (num stays 0, CTR's keystream block
 * is untouched).  A resumed stream costs about as much again as a 16-byte
 * block's kernel: openssl speed's CTR at 16 and 64 bytes ran at 0.45-0.55x
 * the default provider through it. */
static int stream_whole_blocks(struct agp_ctx *c, unsigned char *out, const unsigned char *in,
                               size_t len)
{
    const aes_gen_key *k = &c->key.aes;
    switch (c->alg->mode) {
    case AGP_CTR:
        return aes_gen_ctr_crypt(k, c->iv, out, in, len);
    case AGP_OFB:
        return aes_gen_ofb_crypt(k, c->iv, out, in, len);
    default:
        return c->enc ? aes_gen_cfb_encrypt(k, c->iv, out, in, len)
                      : aes_gen_cfb_decrypt(k, c->iv, out, in, len);
    }
}

/* Any number of bytes, any split of the message. */
static int stream_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                         const unsigned char *in, size_t inl)
{
    struct agp_ctx *c = vctx;
    unsigned char *ks = c->alg->mode == AGP_CTR ? c->buf : NULL;
    aes_gen_stream s;
    unsigned int num = 0;
    int err;

    if (!c->key_set)
        return no_key();
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (outsize < inl)
        return output_too_small();
    if (c->num == 0 && inl % AES_GEN_BLOCK_SIZE == 0) {
        err = stream_whole_blocks(c, out, in, inl);
        if (err != AES_GEN_OK)
            return aes_gen_failed(PROV_R_CIPHER_OPERATION_FAILED, err);
        *outl = inl;
        return 1;
    }
    err = aes_gen_stream_resume(&s, &c->key.aes, stream_mode(c), c->iv, ks, c->num);
    if (err == AES_GEN_OK)
        err = aes_gen_stream_update(&s, out, in, inl);
    if (err == AES_GEN_OK)
        err = aes_gen_stream_position(&s, c->iv, ks, &num);
    aes_gen_stream_final(&s, NULL); /* erases it */
    if (err != AES_GEN_OK)
        return aes_gen_failed(PROV_R_CIPHER_OPERATION_FAILED, err);
    c->num = num;
    if (num != 0) /* a keystream block was made for a partial block */
        c->ctr_block_set = 1;
    *outl = inl;
    return 1;
}

/* Nothing to flush; the stream goes on (EVP allows updates after final). */
static int stream_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct agp_ctx *c = vctx;
    (void)out, (void)outsize;
    if (!c->key_set)
        return no_key();
    *outl = 0;
    return 1;
}

/* --- GCM -------------------------------------------------------------------------- */

/* A message under way is dropped (a new IV or key). */
static void gcm_drop_message(struct agp_ctx *c)
{
    if (c->iv_state == IV_STARTED) {
        wipe_stream(c);
        c->iv_state = IV_BUFFERED;
    }
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

static int gcm_set_key(struct agp_ctx *c, const unsigned char *key, size_t keylen)
{
    if (keylen != c->alg->keylen) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
        return 0;
    }
    gcm_drop_message(c);
    if (same_key(c, key))
        return 1;
    wipe_key(c);
    const int err = aes_gen_gcm_setkey(&c->key.gcm, key, keylen);
    if (err != AES_GEN_OK) {
        AGP_RAISE(c->prov, AGP_R_AES_GEN, "aes_gen_gcm_setkey: %s", aes_gen_strerror(err));
        return 0;
    }
    key_is_set(c, key);
    return 1;
}

/* As the default provider: the IV waits until the first update or final; a
 * new key keeps the IV (a message under way starts again under the new key:
 * the default provider goes on with a broken state there). */
static int gcm_init(struct agp_ctx *c, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[], int enc)
{
    c->enc = enc;
    if (iv != NULL) {
        if (ivlen == 0 || ivlen > GCM_IV_MAX) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
            return 0;
        }
        gcm_drop_message(c);
        memcpy(c->iv, iv, ivlen);
        c->ivlen = ivlen;
        c->iv_state = IV_BUFFERED;
    }
    if (key != NULL) {
        if (!gcm_set_key(c, key, keylen))
            return 0;
        c->tls_records = 0;
    }
    return gcm_set_ctx_params(c, params);
}

static int gcm_einit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int gcm_dinit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* The end of the message: encryption computes the whole tag (get_ctx_params
 * hands out any length of it), decryption compares the tag set, in constant
 * time, in aes-gen.  Either way the IV is used up. */
static int gcm_finish(struct agp_ctx *c)
{
    int err;
    if (c->enc) {
        err = aes_gen_gcm_final(&c->g, c->buf, GCM_TAG_MAX);
        if (err == AES_GEN_OK)
            c->taglen = GCM_TAG_MAX;
    } else {
        if (c->taglen == TAG_UNSET) {
            AGP_RAISE(c->prov, AGP_R_TAG_NOT_SET, NULL);
            return 0;
        }
        err = aes_gen_gcm_verify(&c->g, c->buf, c->taglen);
    }
    c->iv_state = IV_FINISHED; /* final and verify have erased the stream */
    if (err == AES_GEN_EAUTH) {
        AGP_RAISE(c->prov, AGP_R_TAG_MISMATCH, NULL);
        return 0;
    }
    if (err != AES_GEN_OK) { /* refused before it erased the stream */
        wipe_stream(c);
        AGP_RAISE(c->prov, AGP_R_AES_GEN, "%s", aes_gen_strerror(err));
        return 0;
    }
    return 1;
}

/* AAD (out NULL), data, or the end (in NULL), the message started first. */
static int gcm_process(struct agp_ctx *c, unsigned char *out, const unsigned char *in,
                       size_t len)
{
    int err;
    if (!c->key_set) { /* the default provider raises nothing of its own here */
        AGP_RAISE(c->prov, AGP_R_NO_KEY, NULL);
        return 0;
    }
    if (c->iv_state == IV_UNSET || c->iv_state == IV_FINISHED) {
        /* The default provider makes a random IV for an encryption without
         * one; this one does not (README: differences). */
        AGP_RAISE(c->prov, c->iv_state == IV_UNSET ? AGP_R_NO_IV : AGP_R_MESSAGE_FINISHED, NULL);
        return 0;
    }
    if (c->iv_state == IV_BUFFERED) {
        err = aes_gen_gcm_init(&c->g, &c->key.gcm,
                               c->enc ? AES_GEN_GCM_ENCRYPT : AES_GEN_GCM_DECRYPT, c->iv,
                               c->ivlen);
        if (err != AES_GEN_OK) {
            AGP_RAISE(c->prov, AGP_R_AES_GEN, "aes_gen_gcm_init: %s", aes_gen_strerror(err));
            return 0;
        }
        c->iv_state = IV_STARTED;
    }
    if (in == NULL)
        return gcm_finish(c);
    err = out == NULL ? aes_gen_gcm_aad(&c->g, in, len)
                      : aes_gen_gcm_update(&c->g, out, in, len);
    if (err != AES_GEN_OK) { /* AAD after data: AES_GEN_ESTATE */
        AGP_RAISE(c->prov, AGP_R_AES_GEN, "%s", aes_gen_strerror(err));
        return 0;
    }
    return 1;
}

/* The IV's last 8 bytes (its invocation field), big-endian, plus one. */
static void count_invocation(unsigned char *p)
{
    for (int i = 7; i >= 0 && ++p[i] == 0; i--)
        ;
}

/* One TLS 1.2 record in place, as the default provider's: in = explicit IV
 * || data || tag.  Encryption writes the IV's invocation field in front (and
 * counts it on) and the tag behind, and gives the record's length;
 * decryption takes the explicit IV from the record and verifies the tag in
 * constant time (aes_gen_gcm_decrypt: on a mismatch the data is zeroed,
 * nothing released) and gives the plaintext's length.  Either way the AAD
 * is used up and the IV's message is over. */
static int gcm_tls_record(struct agp_ctx *c, unsigned char *out, size_t *outl,
                          const unsigned char *in, size_t len)
{
    unsigned char iv[GCM_IV_MAX], *data;
    size_t plen;
    int ok = 0, err;

    *outl = 0;
    if (c->tls_record != TLS_RECORD_DUE || !c->key_set || !c->iv_gen || c->ivlen < TLS_IV_MIN ||
        out == NULL || out != in || len < TLS_EXPLICIT_IV_LEN + TLS_TAG_LEN)
        goto end;
    data = out + TLS_EXPLICIT_IV_LEN;
    plen = len - TLS_EXPLICIT_IV_LEN - TLS_TAG_LEN;
    gcm_drop_message(c);
    if (c->enc) {
        if (++c->tls_records == 0) { /* every invocation field used */
            ERR_raise(ERR_LIB_PROV, PROV_R_TOO_MANY_RECORDS);
            goto end;
        }
        memcpy(iv, c->iv, c->ivlen);
        memcpy(out, c->iv + c->ivlen - TLS_EXPLICIT_IV_LEN, TLS_EXPLICIT_IV_LEN);
        count_invocation(c->iv + c->ivlen - TLS_EXPLICIT_IV_LEN);
        err = aes_gen_gcm_encrypt(&c->key.gcm, iv, c->ivlen, c->tls_aad, TLS_AAD_LEN, data, data,
                                  plen, data + plen, TLS_TAG_LEN);
    } else {
        memcpy(c->iv + c->ivlen - TLS_EXPLICIT_IV_LEN, in, TLS_EXPLICIT_IV_LEN);
        memcpy(iv, c->iv, c->ivlen);
        err = aes_gen_gcm_decrypt(&c->key.gcm, iv, c->ivlen, c->tls_aad, TLS_AAD_LEN, data, data,
                                  plen, data + plen, TLS_TAG_LEN);
    }
    if (err == AES_GEN_EAUTH)
        AGP_RAISE(c->prov, AGP_R_TAG_MISMATCH, NULL);
    else if (err != AES_GEN_OK)
        AGP_RAISE(c->prov, AGP_R_AES_GEN, "%s", aes_gen_strerror(err));
    else {
        ok = 1;
        *outl = c->enc ? len : plen;
    }
end:
    OPENSSL_cleanse(iv, sizeof iv);
    c->tls_record = TLS_NO_RECORD;
    c->iv_state = IV_FINISHED;
    return ok;
}

static int gcm_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    struct agp_ctx *c = vctx;
    if (inl == 0) { /* even after final, as the default provider */
        *outl = 0;
        return 1;
    }
    if (outsize < inl)
        return output_too_small();
    if (c->tls_record != TLS_NO_RECORD) {
        if (!gcm_tls_record(c, out, outl, in, inl)) {
            ERR_raise(ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED);
            return 0;
        }
        return 1;
    }
    if (!gcm_process(vctx, out, in, inl)) {
        ERR_raise(ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED);
        return 0;
    }
    *outl = inl;
    return 1;
}

static int gcm_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct agp_ctx *c = vctx;
    (void)outsize;
    if (c->tls_record != TLS_NO_RECORD) /* a record is due, not an end: it fails */
        return gcm_tls_record(c, out, outl, NULL, 0);
    if (!gcm_process(vctx, NULL, NULL, 0))
        return 0;
    *outl = 0;
    return 1;
}

/* EVP_Cipher: the same steps, in NULL being the end; a TLS record gives its
 * input's length, as the default provider's. */
static int gcm_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    struct agp_ctx *c = vctx;
    if (outsize < inl)
        return output_too_small();
    if (c->tls_record != TLS_NO_RECORD) { /* in NULL too: a record is due */
        if (!gcm_tls_record(c, out, outl, in, inl))
            return 0;
    } else if (!gcm_process(vctx, out, in, inl))
        return 0;
    *outl = inl;
    return 1;
}

/* tlsivgen: the message starts under the IV as it is, whose last olen
 * bytes (all of it for 0 or more than its length) go to out, and the IV's
 * invocation field counts on for the next. */
static int gcm_iv_gen(struct agp_ctx *c, unsigned char *out, size_t olen)
{
    if (!c->iv_gen || !c->key_set || c->ivlen < TLS_IV_MIN)
        return 0;
    gcm_drop_message(c);
    if (aes_gen_gcm_init(&c->g, &c->key.gcm, c->enc ? AES_GEN_GCM_ENCRYPT : AES_GEN_GCM_DECRYPT,
                         c->iv, c->ivlen) != AES_GEN_OK)
        return 0;
    c->iv_state = IV_STARTED;
    if (olen == 0 || olen > c->ivlen)
        olen = c->ivlen;
    memcpy(out, c->iv + c->ivlen - olen, olen);
    count_invocation(c->iv + c->ivlen - TLS_EXPLICIT_IV_LEN);
    return 1;
}

static int gcm_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    struct agp_ctx *c = vctx;

    for (OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        int ok = 1;
        switch (param_of(p->key)) {
        case P_IVLEN:
            ok = OSSL_PARAM_set_size_t(p, c->ivlen);
            break;
        case P_KEYLEN:
            ok = OSSL_PARAM_set_size_t(p, c->alg->keylen);
            break;
        case P_TAGLEN:
            ok = OSSL_PARAM_set_size_t(p, c->taglen != TAG_UNSET ? c->taglen : GCM_TAG_MAX);
            break;
        case P_IV: /* GCM never updates its IV: both give the IV set */
        case P_UPDATED_IV:
            if (c->iv_state == IV_UNSET)
                return 0;
            if (c->ivlen > p->data_size) {
                ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
                return 0;
            }
            ok = set_iv(p, c->iv, c->ivlen);
            break;
        case P_TAG: /* encryption's tag once computed: its first data_size bytes */
            if (p->data_size == 0 || p->data_size > GCM_TAG_MAX || !c->enc ||
                c->taglen == TAG_UNSET) {
                ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_TAG);
                return 0;
            }
            ok = OSSL_PARAM_set_octet_string(p, c->buf, p->data_size);
            break;
        case P_TLS_AAD_PAD:
            ok = OSSL_PARAM_set_size_t(p, c->tls_aad_pad);
            break;
        case P_TLS_IV_GEN:
            if (p->data == NULL || p->data_type != OSSL_PARAM_OCTET_STRING ||
                !gcm_iv_gen(c, p->data, p->data_size)) {
                ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
                return 0;
            }
            break;
        default:
            break;
        }
        if (!ok)
            return set_failed();
    }
    return 1;
}

/* The expected tag, for decryption.  The default provider takes 1 to 16
 * bytes and compares as many; aes-gen verifies 4 to 16 (SP 800-38D), so
 * shorter ones are refused here, when they are set. */
static int gcm_set_tag(struct agp_ctx *c, const OSSL_PARAM *p)
{
    unsigned char tag[GCM_TAG_MAX];
    void *vp = tag;
    size_t len;

    if (!OSSL_PARAM_get_octet_string(p, &vp, sizeof tag, &len))
        return get_failed();
    if (len == 0 || c->enc) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_TAG);
        return 0;
    }
    if (len < GCM_TAG_MIN) {
        AGP_RAISE(c->prov, AGP_R_TAG_TOO_SHORT, "%zu bytes", len);
        return 0;
    }
    memcpy(c->buf, tag, len);
    c->taglen = len;
    return 1;
}

/* A new IV length: an IV of the old length is no longer usable. */
static int gcm_set_ivlen(struct agp_ctx *c, const OSSL_PARAM *p)
{
    size_t len;

    if (!OSSL_PARAM_get_size_t(p, &len))
        return get_failed();
    if (len == 0 || len > GCM_IV_MAX) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
        return 0;
    }
    if (len != c->ivlen) {
        if (c->iv_state != IV_UNSET) {
            gcm_drop_message(c);
            c->iv_state = IV_FINISHED;
        }
        c->ivlen = len;
    }
    return 1;
}

/* tlsaad: the next update is one TLS record under this AAD, whose length
 * field (the record's) becomes the plaintext's: less the explicit IV, and
 * for decryption the tag. */
static int gcm_set_tls_aad(struct agp_ctx *c, const OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING)
        return get_failed();
    const unsigned char *aad = p->data;
    if (aad == NULL || p->data_size != TLS_AAD_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_AAD);
        return 0;
    }
    size_t len = (size_t)aad[11] << 8 | aad[12];
    const size_t less = TLS_EXPLICIT_IV_LEN + (c->enc ? 0 : TLS_TAG_LEN);
    /* A length field with no room: record mode still, as the default
     * provider's, so that the next update fails instead of running as a
     * plain message (which would release unauthenticated plaintext). */
    if (len < less) {
        c->tls_record = TLS_AAD_REFUSED;
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_AAD);
        return 0;
    }
    len -= less;
    c->tls_record = TLS_RECORD_DUE;
    memcpy(c->tls_aad, aad, TLS_AAD_LEN);
    c->tls_aad[11] = (unsigned char)(len >> 8);
    c->tls_aad[12] = (unsigned char)len;
    c->tls_aad_pad = TLS_TAG_LEN;
    return 1;
}

/* tlsivfixed: the IV's fixed part (len (size_t)-1: the whole IV); the rest,
 * the invocation field, random for encryption and counted on by each record
 * or tlsivgen.  At least 4 fixed bytes and 8 counted. */
static int gcm_set_iv_fixed(struct agp_ctx *c, const OSSL_PARAM *p)
{
    size_t len = p->data_size;
    if (p->data == NULL || p->data_type != OSSL_PARAM_OCTET_STRING)
        return 0;
    if (c->ivlen < TLS_IV_MIN)
        return 0;
    if (len == SIZE_MAX)
        len = c->ivlen;
    else if (len < TLS_FIXED_IV_LEN || len > c->ivlen || c->ivlen - len < TLS_EXPLICIT_IV_LEN)
        return 0;
    gcm_drop_message(c);
    memcpy(c->iv, p->data, len);
    if (c->enc && len < c->ivlen &&
        RAND_bytes_ex(c->prov->libctx, c->iv + len, c->ivlen - len, 0) <= 0)
        return 0;
    c->iv_gen = 1;
    c->iv_state = IV_BUFFERED;
    return 1;
}

/* tlsivinv: decryption's invocation field, the IV's last bytes. */
static int gcm_set_iv_inv(struct agp_ctx *c, const OSSL_PARAM *p)
{
    if (!c->iv_gen || !c->key_set || c->enc || p->data == NULL ||
        p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size > c->ivlen)
        return 0;
    gcm_drop_message(c);
    memcpy(c->iv + c->ivlen - p->data_size, p->data, p->data_size);
    c->iv_state = IV_BUFFERED;
    return 1;
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    struct agp_ctx *c = vctx;

    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        switch (param_of(p->key)) {
        case P_TAG:
            if (!gcm_set_tag(c, p))
                return 0;
            break;
        case P_IVLEN:
            if (!gcm_set_ivlen(c, p))
                return 0;
            break;
        case P_TLS_AAD:
            if (!gcm_set_tls_aad(c, p))
                return 0;
            break;
        case P_TLS_IV_FIXED:
            if (!gcm_set_iv_fixed(c, p)) {
                ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
                return 0;
            }
            break;
        case P_TLS_IV_INV:
            if (!gcm_set_iv_inv(c, p)) {
                ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
                return 0;
            }
            break;
        default:
            break;
        }
    }
    return 1;
}

static const OSSL_PARAM gcm_gettable_ctx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM gcm_settable_ctx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM *gcm_gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return gcm_gettable_ctx;
}

static const OSSL_PARAM *gcm_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return gcm_settable_ctx;
}

/* --- XTS -------------------------------------------------------------------------- */

static int xts_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

/* aes-gen refuses equal key halves in both directions; the default provider
 * refuses them for encryption only (README: differences).  A refused key
 * leaves the key before it in place, as in the default provider: the new
 * one is set up aside first. */
static int xts_set_key(struct agp_ctx *c, const unsigned char *key, size_t keylen)
{
    aes_gen_xts_key fresh;

    if (keylen != c->alg->keylen) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
        return 0;
    }
    if (same_key(c, key))
        return 1;
    const int err = aes_gen_xts_setkey(&fresh, key, keylen);
    if (err == AES_GEN_EKEYEQUAL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_XTS_DUPLICATED_KEYS);
        return 0;
    }
    if (err != AES_GEN_OK) {
        AGP_RAISE(c->prov, AGP_R_AES_GEN, "aes_gen_xts_setkey: %s", aes_gen_strerror(err));
        return 0;
    }
    wipe_key(c);
    c->key.xts = fresh;
    aes_gen_xts_wipe(&fresh);
    key_is_set(c, key);
    return 1;
}

static int xts_init(struct agp_ctx *c, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[], int enc)
{
    c->enc = enc;
    if (iv != NULL) {
        if (ivlen != c->alg->ivlen) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
            return 0;
        }
        memcpy(c->iv, iv, ivlen);
        memcpy(c->oiv, iv, ivlen);
        c->iv_set = 1;
    }
    if (key != NULL && !xts_set_key(c, key, keylen))
        return 0;
    return xts_set_ctx_params(c, params);
}

static int xts_einit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return xts_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int xts_dinit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return xts_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* One data unit under the IV (its tweak), which stays: every update is a
 * data unit of its own, as OpenSSL has it. */
static int xts_unit(struct agp_ctx *c, unsigned char *out, const unsigned char *in, size_t len)
{
    if (!c->key_set || !c->iv_set || out == NULL || in == NULL || len < AES_GEN_BLOCK_SIZE)
        return 0;
    if (len > XTS_MAX_UNIT) {
        ERR_raise(ERR_LIB_PROV, PROV_R_XTS_DATA_UNIT_IS_TOO_LARGE);
        return 0;
    }
    const int err = c->enc ? aes_gen_xts_encrypt(&c->key.xts, c->iv, out, in, len)
                           : aes_gen_xts_decrypt(&c->key.xts, c->iv, out, in, len);
    return err == AES_GEN_OK || aes_gen_failed(PROV_R_CIPHER_OPERATION_FAILED, err);
}

static int xts_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    if (outsize < inl)
        return output_too_small();
    if (!xts_unit(vctx, out, in, inl)) {
        ERR_raise(ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED);
        return 0;
    }
    *outl = inl;
    return 1;
}

static int xts_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    (void)vctx, (void)out, (void)outsize;
    *outl = 0;
    return 1;
}

static int xts_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    if (outsize < inl)
        return output_too_small();
    if (!xts_unit(vctx, out, in, inl))
        return 0;
    *outl = inl;
    return 1;
}

/* The key length is fixed: asking for another fails (quietly, as the
 * default provider). */
static int xts_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    const struct agp_ctx *c = vctx;
    size_t keylen;

    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        if (param_of(p->key) != P_KEYLEN)
            continue;
        if (!OSSL_PARAM_get_size_t(p, &keylen))
            return get_failed();
        if (keylen != c->alg->keylen)
            return 0;
    }
    return 1;
}

static const OSSL_PARAM xts_settable_ctx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *xts_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return xts_settable_ctx;
}

/* --- the algorithms --------------------------------------------------------------- */

#define FN(id, f) {OSSL_FUNC_CIPHER_##id, (void (*)(void))(f)}
#define COMMON_FUNCTIONS \
    FN(FREECTX, agp_freectx), FN(DUPCTX, agp_dupctx), \
    FN(GETTABLE_PARAMS, agp_gettable_params)
#define BLOCK_FUNCTIONS \
    COMMON_FUNCTIONS, FN(ENCRYPT_INIT, generic_einit), FN(DECRYPT_INIT, generic_dinit), \
    FN(UPDATE, block_update), FN(FINAL, block_final), FN(CIPHER, block_cipher), \
    FN(GET_CTX_PARAMS, generic_get_ctx_params), FN(SET_CTX_PARAMS, generic_set_ctx_params), \
    FN(GETTABLE_CTX_PARAMS, generic_gettable_ctx_params), \
    FN(SETTABLE_CTX_PARAMS, generic_settable_ctx_params)
/* EVP_Cipher on a stream mode is an update. */
#define STREAM_FUNCTIONS \
    COMMON_FUNCTIONS, FN(ENCRYPT_INIT, generic_einit), FN(DECRYPT_INIT, generic_dinit), \
    FN(UPDATE, stream_update), FN(FINAL, stream_final), FN(CIPHER, stream_update), \
    FN(GET_CTX_PARAMS, generic_get_ctx_params), FN(SET_CTX_PARAMS, generic_set_ctx_params), \
    FN(GETTABLE_CTX_PARAMS, generic_gettable_ctx_params), \
    FN(SETTABLE_CTX_PARAMS, generic_settable_ctx_params)
#define GCM_FUNCTIONS \
    COMMON_FUNCTIONS, FN(ENCRYPT_INIT, gcm_einit), FN(DECRYPT_INIT, gcm_dinit), \
    FN(UPDATE, gcm_update), FN(FINAL, gcm_final), FN(CIPHER, gcm_cipher), \
    FN(GET_CTX_PARAMS, gcm_get_ctx_params), FN(SET_CTX_PARAMS, gcm_set_ctx_params), \
    FN(GETTABLE_CTX_PARAMS, gcm_gettable_ctx_params), \
    FN(SETTABLE_CTX_PARAMS, gcm_settable_ctx_params)
#define XTS_FUNCTIONS \
    COMMON_FUNCTIONS, FN(ENCRYPT_INIT, xts_einit), FN(DECRYPT_INIT, xts_dinit), \
    FN(UPDATE, xts_update), FN(FINAL, xts_final), FN(CIPHER, xts_cipher), \
    FN(GET_CTX_PARAMS, generic_get_ctx_params), FN(SET_CTX_PARAMS, xts_set_ctx_params), \
    FN(GETTABLE_CTX_PARAMS, generic_gettable_ctx_params), \
    FN(SETTABLE_CTX_PARAMS, xts_settable_ctx_params)

/* One algorithm: its description, newctx and get_params (which only it
 * knows), and its mode's operations.  Key, IV and block sizes in bits. */
#define CIPHER(name, FAMILY, mode, evp_mode, kbits, ivbits, blkbits, aead, custom_iv) \
    static const struct agp_alg name##_alg = {mode, evp_mode, (kbits) / 8, (ivbits) / 8, \
                                              (blkbits) / 8, aead, custom_iv}; \
    static void *name##_newctx(void *provctx) \
    { \
        return newctx(provctx, &name##_alg); \
    } \
    static int name##_get_params(OSSL_PARAM params[]) \
    { \
        return get_params(&name##_alg, params); \
    } \
    static const OSSL_DISPATCH name##_functions[] = { \
        FN(NEWCTX, name##_newctx), FN(GET_PARAMS, name##_get_params), FAMILY##_FUNCTIONS, \
        {0, NULL}};

#define AES_SIZES(macro, ...) macro(128, __VA_ARGS__) macro(192, __VA_ARGS__) macro(256, __VA_ARGS__)
#define ECB(k, x) CIPHER(aes##k##ecb, BLOCK, AGP_ECB, EVP_CIPH_ECB_MODE, k, 0, 128, 0, 0)
#define CBC(k, x) CIPHER(aes##k##cbc, BLOCK, AGP_CBC, EVP_CIPH_CBC_MODE, k, 128, 128, 0, 0)
#define CFB(k, x) CIPHER(aes##k##cfb, STREAM, AGP_CFB, EVP_CIPH_CFB_MODE, k, 128, 8, 0, 0)
#define OFB(k, x) CIPHER(aes##k##ofb, STREAM, AGP_OFB, EVP_CIPH_OFB_MODE, k, 128, 8, 0, 0)
#define CTR(k, x) CIPHER(aes##k##ctr, STREAM, AGP_CTR, EVP_CIPH_CTR_MODE, k, 128, 8, 0, 0)
#define GCM(k, x) CIPHER(aes##k##gcm, GCM, AGP_GCM, EVP_CIPH_GCM_MODE, k, 96, 8, 1, 1)
AES_SIZES(ECB, _)
AES_SIZES(CBC, _)
AES_SIZES(CFB, _)
AES_SIZES(OFB, _)
AES_SIZES(CTR, _)
AES_SIZES(GCM, _)
/* XTS: two keys of the AES size; no AES-192-XTS in OpenSSL, none here. */
CIPHER(aes128xts, XTS, AGP_XTS, EVP_CIPH_XTS_MODE, 256, 128, 8, 0, 1)
CIPHER(aes256xts, XTS, AGP_XTS, EVP_CIPH_XTS_MODE, 512, 128, 8, 0, 1)

/* The default provider's names, aliases and OIDs, so that either answers a
 * fetch by any of them. */
const struct agp_cipher agp_ciphers[] = {
    {"AES-128-ECB:2.16.840.1.101.3.4.1.1", &aes128ecb_alg, aes128ecb_functions},
    {"AES-192-ECB:2.16.840.1.101.3.4.1.21", &aes192ecb_alg, aes192ecb_functions},
    {"AES-256-ECB:2.16.840.1.101.3.4.1.41", &aes256ecb_alg, aes256ecb_functions},
    {"AES-128-CBC:AES128:2.16.840.1.101.3.4.1.2", &aes128cbc_alg, aes128cbc_functions},
    {"AES-192-CBC:AES192:2.16.840.1.101.3.4.1.22", &aes192cbc_alg, aes192cbc_functions},
    {"AES-256-CBC:AES256:2.16.840.1.101.3.4.1.42", &aes256cbc_alg, aes256cbc_functions},
    {"AES-128-CFB:2.16.840.1.101.3.4.1.4", &aes128cfb_alg, aes128cfb_functions},
    {"AES-192-CFB:2.16.840.1.101.3.4.1.24", &aes192cfb_alg, aes192cfb_functions},
    {"AES-256-CFB:2.16.840.1.101.3.4.1.44", &aes256cfb_alg, aes256cfb_functions},
    {"AES-128-OFB:2.16.840.1.101.3.4.1.3", &aes128ofb_alg, aes128ofb_functions},
    {"AES-192-OFB:2.16.840.1.101.3.4.1.23", &aes192ofb_alg, aes192ofb_functions},
    {"AES-256-OFB:2.16.840.1.101.3.4.1.43", &aes256ofb_alg, aes256ofb_functions},
    {"AES-128-CTR", &aes128ctr_alg, aes128ctr_functions},
    {"AES-192-CTR", &aes192ctr_alg, aes192ctr_functions},
    {"AES-256-CTR", &aes256ctr_alg, aes256ctr_functions},
    {"AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6", &aes128gcm_alg, aes128gcm_functions},
    {"AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26", &aes192gcm_alg, aes192gcm_functions},
    {"AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46", &aes256gcm_alg, aes256gcm_functions},
    {"AES-128-XTS:1.3.111.2.1619.0.1.1", &aes128xts_alg, aes128xts_functions},
    {"AES-256-XTS:1.3.111.2.1619.0.1.2", &aes256xts_alg, aes256xts_functions},
};
const size_t agp_cipher_count = sizeof agp_ciphers / sizeof agp_ciphers[0];
