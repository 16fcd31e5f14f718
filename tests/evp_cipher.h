/* SPDX-License-Identifier: Apache-2.0 */
/* OpenSSL's EVP cipher for a reference mode and key length: the second,
 * external reference of the fuzz, Monte Carlo and libFuzzer tests. */
#ifndef AES_GEN_TEST_EVP_CIPHER_H
#define AES_GEN_TEST_EVP_CIPHER_H

#include <openssl/evp.h>

#include "ref/ref_aes.h"

static inline const EVP_CIPHER *evp_cipher(enum ref_mode mode, size_t key_len)
{
    const int i = key_len == 16 ? 0 : key_len == 24 ? 1 : 2;
    switch (mode) {
    case REF_ECB: return (const EVP_CIPHER *[]){EVP_aes_128_ecb(), EVP_aes_192_ecb(), EVP_aes_256_ecb()}[i];
    case REF_CBC: return (const EVP_CIPHER *[]){EVP_aes_128_cbc(), EVP_aes_192_cbc(), EVP_aes_256_cbc()}[i];
    case REF_CFB: return (const EVP_CIPHER *[]){EVP_aes_128_cfb128(), EVP_aes_192_cfb128(), EVP_aes_256_cfb128()}[i];
    case REF_OFB: return (const EVP_CIPHER *[]){EVP_aes_128_ofb(), EVP_aes_192_ofb(), EVP_aes_256_ofb()}[i];
    case REF_CTR: return (const EVP_CIPHER *[]){EVP_aes_128_ctr(), EVP_aes_192_ctr(), EVP_aes_256_ctr()}[i];
    case REF_GCM: return (const EVP_CIPHER *[]){EVP_aes_128_gcm(), EVP_aes_192_gcm(), EVP_aes_256_gcm()}[i];
    case REF_XTS: return NULL; /* EVP's XTS takes the tweak before the tweak key: test_xts.c */
    }
    return NULL;
}

#endif
