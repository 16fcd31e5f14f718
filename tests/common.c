#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int api_ecb_enc(const aes_gen_key *k, uint8_t *iv, void *dst, const void *src, size_t len)
{
    (void)iv;
    return aes_gen_ecb_encrypt(k, dst, src, len);
}

static int api_ecb_dec(const aes_gen_key *k, uint8_t *iv, void *dst, const void *src, size_t len)
{
    (void)iv;
    return aes_gen_ecb_decrypt(k, dst, src, len);
}

const struct mode_case mode_cases[AES_GEN_MODE_DIRS] = {
    {AES_GEN_MD_ecb_enc, "ecb_enc", api_ecb_enc, REF_ECB, 0, 1},
    {AES_GEN_MD_ecb_dec, "ecb_dec", api_ecb_dec, REF_ECB, 1, 1},
    {AES_GEN_MD_cbc_enc, "cbc_enc", aes_gen_cbc_encrypt, REF_CBC, 0, 1},
    {AES_GEN_MD_cbc_dec, "cbc_dec", aes_gen_cbc_decrypt, REF_CBC, 1, 1},
    {AES_GEN_MD_cfb_enc, "cfb_enc", aes_gen_cfb_encrypt, REF_CFB, 0, 0},
    {AES_GEN_MD_cfb_dec, "cfb_dec", aes_gen_cfb_decrypt, REF_CFB, 1, 0},
    {AES_GEN_MD_ofb_enc, "ofb_enc", aes_gen_ofb_crypt, REF_OFB, 0, 0},
    {AES_GEN_MD_ctr_enc, "ctr_enc", aes_gen_ctr_crypt, REF_CTR, 0, 0},
};

uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rng_fill(uint64_t *state, void *buf, size_t n)
{
    uint8_t *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rng_next(state) >> 56);
}

uint64_t test_seed(void)
{
    const char *env = getenv("AES_GEN_TEST_SEED");
    return env ? strtoull(env, NULL, 0) : 0x5eed2026ull;
}

size_t hex_to_bytes(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    unsigned byte;
    while (n < cap && sscanf(hex + 2 * n, "%2x", &byte) == 1)
        out[n++] = (uint8_t)byte;
    return n;
}

void hexdump_diff(const char *what, const uint8_t *want, const uint8_t *got, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (want[i] != got[i]) {
            fprintf(stderr, "%s: first difference at byte %zu of %zu: want %02x got %02x\n",
                    what, i, n, want[i], got[i]);
            return;
        }
    }
}

size_t usable_backends(size_t *out, size_t cap, unsigned key_bits)
{
    size_t n = 0;
    for (size_t i = 0; i < aes_gen_backend_count; i++)
        if (aes_gen_backend_usable(i, key_bits) && n < cap)
            out[n++] = i;
    return n;
}

unsigned backend_max_width(size_t backend)
{
    unsigned w = 1;
    for (size_t i = 0; i < aes_gen_registry_count; i++)
        if (strcmp(aes_gen_registry[i].backend, aes_gen_backend_table[backend].name) == 0 &&
            aes_gen_registry[i].width > w)
            w = aes_gen_registry[i].width;
    return w;
}

void ref_run(const struct mode_case *mc, const uint8_t *key, size_t key_len, uint8_t iv[16],
             uint8_t *dst, const uint8_t *src, size_t len)
{
    ref_key rk;
    ref_setkey(&rk, key, key_len);
    ref_crypt(&rk, mc->ref, mc->decrypt, iv, dst, src, len);
}

int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
