/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aes_gen_provider.so: what the provider entry (aes_gen_provider.c) and the
 * cipher operations (prov_ciphers.c) share.  Written from the public OpenSSL
 * 3.0 headers (core_dispatch.h, core_names.h, params.h) and provider-cipher(7).
 */
#ifndef AES_GEN_PROV_H
#define AES_GEN_PROV_H

#include <stdarg.h>
#include <stddef.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <aes_gen.h>

/* The modes the provider offers; each has its own set of operations. */
enum agp_mode { AGP_ECB, AGP_CBC, AGP_CFB, AGP_OFB, AGP_CTR, AGP_GCM, AGP_XTS };

/* One algorithm, as OSSL_FUNC_cipher_get_params describes it. */
struct agp_alg {
    enum agp_mode mode;
    unsigned int evp_mode; /* EVP_CIPH_*_MODE */
    size_t keylen, ivlen, blocksize;
    int aead, custom_iv;
};

/* The provider's own reason codes (OSSL_FUNC_provider_get_reason_strings);
 * where OpenSSL's default provider has a reason for the same failure, the
 * operations raise that one (ERR_LIB_PROV) instead. */
enum {
    AGP_R_AES_GEN = 1,      /* an aes-gen call failed: its aes_gen_strerror() follows */
    AGP_R_TAG_MISMATCH,     /* GCM: the tag does not match */
    AGP_R_TAG_TOO_SHORT,    /* GCM: a tag to verify of fewer than 4 bytes */
    AGP_R_TAG_NOT_SET,      /* GCM decryption finished without an expected tag */
    AGP_R_NO_IV,            /* GCM: no IV (the provider does not generate them) */
    AGP_R_MESSAGE_FINISHED, /* GCM: the IV's message is finished */
    AGP_R_NOT_WHOLE_BLOCKS, /* EVP_Cipher on ECB/CBC with a partial block */
    AGP_R_TLS_UNSUPPORTED,  /* TLS record-layer parameters */
    AGP_R_NO_KEY,           /* GCM: no key set */
    AGP_R_BAD_NUM           /* num past the block, or CTR's with no block */
};

/* The provider context: the core's handle, its error functions, and a
 * child of the caller's library context (GCM's TLS IVs draw from its RAND). */
struct agp_provctx {
    const OSSL_CORE_HANDLE *handle;
    OSSL_LIB_CTX *libctx;
    OSSL_FUNC_core_new_error_fn *new_error;
    OSSL_FUNC_core_set_error_debug_fn *set_error_debug;
    OSSL_FUNC_core_vset_error_fn *vset_error;
};

/* Raises one of the AGP_R_* reasons through the core (fmt may be NULL). */
#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
void agp_raise(const struct agp_provctx *pc, int reason, const char *file, int line,
               const char *func, const char *fmt, ...);
#define AGP_RAISE(pc, reason, ...) \
    agp_raise((pc), (reason), OPENSSL_FILE, OPENSSL_LINE, OPENSSL_FUNC, __VA_ARGS__)

/* The ciphers (prov_ciphers.c): OpenSSL's names for each, what it is, its
 * operations.  The entry offers those whose key size this build of aes-gen
 * has kernels for. */
struct agp_cipher {
    const char *names; /* the default provider's names and aliases */
    const struct agp_alg *alg;
    const OSSL_DISPATCH *functions;
};
extern const struct agp_cipher agp_ciphers[];
extern const size_t agp_cipher_count;

/* TLS's CBC records (prov_tls.c).  The longest MAC libssl hands over
 * (EVP_MAX_MD_SIZE). */
#define AGP_TLS_MAC_MAX 64
/* Whether v is a version whose records the default provider unpads. */
int agp_tls_version_known(unsigned int v);
/* A decrypted record of *len bytes (the explicit IV first where the version
 * has one): its padding checked and its MAC taken out into mac in constant
 * time, *len left the data's length.  0 for a record too short for the IV,
 * padding byte and MAC (public), a bad padding when mac_size is 0 (the MAC
 * was checked before: encrypt-then-MAC), or no random bytes to be had.
 * Otherwise a bad padding stays in the data and the MAC is random. */
int agp_tls_unpad(OSSL_LIB_CTX *libctx, unsigned int version, uint8_t *rec, size_t *len,
                  size_t mac_size, uint8_t mac[AGP_TLS_MAC_MAX]);

#endif
