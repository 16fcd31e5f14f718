/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aes_gen_provider.so: an OpenSSL 3 provider named "aesgen" whose AES
 * ciphers (ECB, CBC, CFB-128, OFB, CTR, GCM, XTS under the default
 * provider's names, property "provider=aesgen") run on aes-gen's kernels.
 * This file is the provider itself: its entry point, parameters, error
 * strings and algorithm table; prov_ciphers.c has the ciphers.  The module
 * carries libaes_gen.a and exports OSSL_provider_init only.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include "prov.h"

#define AGP_NAME "aes-gen provider"
#define AGP_PROPERTIES "provider=aesgen"

struct agp_provider {
    struct agp_provctx pc;   /* first: the ciphers' newctx gets it as its provctx */
    OSSL_ALGORITHM *ciphers; /* those this build runs, then an empty entry */
    char buildinfo[128];
};

void agp_raise(const struct agp_provctx *pc, int reason, const char *file, int line,
               const char *func, const char *fmt, ...)
{
    va_list ap;
    if (pc == NULL || pc->new_error == NULL || pc->set_error_debug == NULL ||
        pc->vset_error == NULL)
        return;
    pc->new_error(pc->handle);
    pc->set_error_debug(pc->handle, file, line, func);
    va_start(ap, fmt);
    pc->vset_error(pc->handle, reason, fmt, ap);
    va_end(ap);
}

static const OSSL_ITEM reason_strings[] = {
    {AGP_R_AES_GEN, "aes-gen call failed"},
    {AGP_R_TAG_MISMATCH, "GCM tag does not match"},
    {AGP_R_TAG_TOO_SHORT, "GCM tags to verify need 4 to 16 bytes"},
    {AGP_R_TAG_NOT_SET, "GCM decryption needs the expected tag before final"},
    {AGP_R_NO_IV, "no IV set (this provider generates no GCM IVs)"},
    {AGP_R_MESSAGE_FINISHED, "GCM message finished: set a new IV"},
    {AGP_R_NOT_WHOLE_BLOCKS, "EVP_Cipher on ECB or CBC takes whole blocks"},
    {AGP_R_TLS_UNSUPPORTED, "TLS record-layer parameters are not supported"},
    {AGP_R_NO_KEY, "no key set"},
    {AGP_R_BAD_NUM, "num is not a position in the block in use"},
    {0, NULL}};

static const OSSL_ITEM *agp_reason_strings(void *provctx)
{
    (void)provctx;
    return reason_strings;
}

static const OSSL_PARAM provider_gettable[] = {
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM *agp_gettable_params(void *provctx)
{
    (void)provctx;
    return provider_gettable;
}

static int put_utf8(OSSL_PARAM params[], const char *key, const char *value)
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, key);
    return p == NULL || OSSL_PARAM_set_utf8_ptr(p, value);
}

static int agp_get_params(void *provctx, OSSL_PARAM params[])
{
    const struct agp_provider *prov = provctx;
    OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS);
    return put_utf8(params, OSSL_PROV_PARAM_NAME, AGP_NAME) &&
           put_utf8(params, OSSL_PROV_PARAM_VERSION, aes_gen_version()) &&
           put_utf8(params, OSSL_PROV_PARAM_BUILDINFO, prov->buildinfo) &&
           (p == NULL || OSSL_PARAM_set_int(p, 1));
}

static const OSSL_ALGORITHM *agp_query(void *provctx, int operation_id, int *no_cache)
{
    const struct agp_provider *prov = provctx;
    *no_cache = 0;
    return operation_id == OSSL_OP_CIPHER ? prov->ciphers : NULL;
}

static void agp_teardown(void *provctx)
{
    struct agp_provider *prov = provctx;
    OSSL_LIB_CTX_free(prov->pc.libctx);
    free(prov->ciphers);
    free(prov);
}

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))agp_teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))agp_gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))agp_get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))agp_query},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))agp_reason_strings},
    {0, NULL}};

/* Whether aes_gen_setkey takes an AES key of len bytes here: a build can
 * leave key sizes out (make gen KEYS=), and the constant-time policy can
 * refuse every key on a CPU without a constant-time backend. */
static int key_size_runs(size_t len)
{
    static const unsigned char zero[32];
    aes_gen_key k;
    const int err = aes_gen_setkey(&k, zero, len);
    aes_gen_wipe(&k);
    return err == AES_GEN_OK;
}

/* The ciphers whose AES key size runs here (XTS: two keys of it); returns
 * how many, 0 also when out of memory. */
static size_t offer_ciphers(struct agp_provider *prov)
{
    const int runs[3] = {key_size_runs(16), key_size_runs(24), key_size_runs(32)};
    size_t n = 0;

    prov->ciphers = calloc(agp_cipher_count + 1, sizeof *prov->ciphers);
    if (prov->ciphers == NULL)
        return 0;
    for (size_t i = 0; i < agp_cipher_count; i++) {
        const struct agp_alg *a = agp_ciphers[i].alg;
        const size_t aes_len = a->mode == AGP_XTS ? a->keylen / 2 : a->keylen;
        if (!runs[(aes_len - 16) / 8])
            continue;
        prov->ciphers[n].algorithm_names = agp_ciphers[i].names;
        prov->ciphers[n].property_definition = AGP_PROPERTIES;
        prov->ciphers[n].implementation = agp_ciphers[i].functions;
        prov->ciphers[n].algorithm_description = "AES on aes-gen's kernels";
        n++;
    }
    return n;
}

static void core_functions(struct agp_provctx *pc, const OSSL_DISPATCH *in)
{
    for (; in != NULL && in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            pc->new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            pc->set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            pc->vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        default:
            break;
        }
    }
}

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
                                                              const OSSL_DISPATCH *in,
                                                              const OSSL_DISPATCH **out,
                                                              void **provctx)
{
    struct agp_provider *prov = calloc(1, sizeof *prov);
    const char *best = NULL;

    if (prov == NULL)
        return 0;
    prov->pc.handle = handle;
    core_functions(&prov->pc, in);
    prov->pc.libctx = OSSL_LIB_CTX_new_child(handle, in);
    if (prov->pc.libctx == NULL) {
        AGP_RAISE(&prov->pc, AGP_R_AES_GEN, "no library context");
        agp_teardown(prov);
        return 0;
    }
    if (offer_ciphers(prov) == 0) {
        AGP_RAISE(&prov->pc, AGP_R_AES_GEN, "no AES key size runs here (%s)",
                  prov->ciphers == NULL ? "out of memory" : "aes_gen_setkey refuses them");
        agp_teardown(prov);
        return 0;
    }
    aes_gen_backends(&best, 1);
    snprintf(prov->buildinfo, sizeof prov->buildinfo, "aes-gen %s, built with aes_gen.h %s, backend %s",
             aes_gen_version(), AES_GEN_VERSION, best != NULL ? best : "none");
    *out = provider_functions;
    *provctx = prov;
    return 1;
}
