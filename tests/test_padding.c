/* SPDX-License-Identifier: Apache-2.0 */
/* CBC with PKCS#7 padding: one-shot and streamed, every backend and key size,
 * against OpenSSL's EVP (padding on) and the reference's CBC; in place, and
 * nothing written past the output; every kind of wrong padding one error with
 * the output zeroed; sizes and arguments refused with nothing changed. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#ifdef HAVE_OPENSSL
#include <openssl/evp.h>

#include "evp_cipher.h"

/* OpenSSL's padded CBC of src: its length. */
static size_t evp_cbc(int enc, const uint8_t *key, size_t key_len, const uint8_t iv[16],
                      uint8_t *dst, const uint8_t *src, size_t len)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int a = 0, b = 0;
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(EVP_CipherInit_ex(c, evp_cipher(REF_CBC, key_len), NULL, key, iv, enc), 1);
    ck_assert_int_eq(EVP_CipherUpdate(c, dst, &a, src, (int)len), 1);
    ck_assert_int_eq(EVP_CipherFinal_ex(c, dst + a, &b), 1);
    EVP_CIPHER_CTX_free(c);
    return (size_t)(a + b);
}
#endif

#define MAX 600
#define GUARD 32

static size_t backends[AES_GEN_BACKEND_COUNT], nbackends;

/* The reference's padded CBC encryption. */
static size_t ref_encrypt_padded(const uint8_t *key, size_t key_len, const uint8_t iv[16],
                                 uint8_t *dst, const uint8_t *src, size_t len)
{
    uint8_t padded[MAX + 16], chain[16];
    const size_t n = 16 - len % 16;
    memcpy(padded, src, len);
    memset(padded + len, (int)n, n);
    memcpy(chain, iv, 16);
    ref_run(&mode_cases[AES_GEN_MD_cbc_enc], key, key_len, chain, dst, padded, len + n);
    return len + n;
}

/* A stream of message in chunks of random sizes: the output and its length. */
static size_t stream_chunks(const aes_gen_key *k, int decrypt, const uint8_t iv[16], uint8_t *dst,
                            const uint8_t *src, size_t len, uint64_t *rng, int *err)
{
    aes_gen_cbc_stream s;
    size_t at = 0, out = 0, got;
    ck_assert_int_eq(aes_gen_cbc_stream_init(&s, k, decrypt, iv), AES_GEN_OK);
    while (at < len) {
        size_t take = rng_next(rng) % 40;
        take = take > len - at ? len - at : take;
        ck_assert_int_eq(aes_gen_cbc_stream_update(&s, dst + out, take + 15, &got, src + at, take),
                         AES_GEN_OK);
        ck_assert_uint_le(got, take + 15);
        at += take, out += got;
    }
    *err = aes_gen_cbc_stream_final(&s, dst + out, 16, &got);
    return out + got;
}

START_TEST(padded_matches_openssl_and_reference)
{
    const size_t b = backends[_i];
    size_t lens[3];
    const size_t nk = built_key_lens(lens);
    uint64_t rng = test_seed() ^ (0x9ad0u + _i);
    static uint8_t key[32], iv[16], plain[MAX], want[MAX + 16], got[MAX + 16 + GUARD],
        back[MAX + 16 + GUARD];
    for (size_t ki = 0; ki < nk; ki++) {
        aes_gen_key k;
        rng_fill(&rng, key, sizeof key);
        if (aes_gen_setkey_backend(&k, key, lens[ki], aes_gen_backend_table[b].name) != AES_GEN_OK)
            continue;
        for (size_t len = 0; len <= MAX; len += (len < 70 ? 1 : 53) * AES_GEN_TEST_THIN) {
            const char *name = aes_gen_backend_table[b].name;
            size_t n;
            int err;
            rng_fill(&rng, iv, sizeof iv);
            rng_fill(&rng, plain, len);
            const size_t want_len = ref_encrypt_padded(key, lens[ki], iv, want, plain, len);
            ck_assert_uint_eq(want_len, AES_GEN_CBC_PADDED_LEN(len));
#ifdef HAVE_OPENSSL
            uint8_t evp[MAX + 16];
            ck_assert_uint_eq(evp_cbc(1, key, lens[ki], iv, evp, plain, len), want_len);
            ck_assert_msg(!memcmp(evp, want, want_len), "the reference is not OpenSSL's");
#endif
            /* One-shot, out of place and in place; the guard bytes stay. */
            for (int in_place = 0; in_place < 2; in_place++) {
                memset(got, 0xa5, sizeof got);
                memcpy(got, plain, len);
                ck_assert_int_eq(aes_gen_cbc_encrypt_padded(&k, iv, got, want_len, &n,
                                                            in_place ? got : plain, len),
                                 AES_GEN_OK);
                ck_assert_uint_eq(n, want_len);
                ck_assert_msg(!memcmp(got, want, n), "%s AES-%zu len %zu: encryption differs",
                              name, 8 * lens[ki], len);
                for (size_t i = n; i < sizeof got; i++)
                    ck_assert_uint_eq(got[i], 0xa5);
                memcpy(back, got, sizeof back);
                ck_assert_int_eq(aes_gen_cbc_decrypt_padded(&k, iv, back, n, &n,
                                                            in_place ? back : got, want_len),
                                 AES_GEN_OK);
                ck_assert_uint_eq(n, len);
                ck_assert_msg(!memcmp(back, plain, len), "%s len %zu: decryption differs", name,
                              len);
                for (size_t i = len; i < want_len; i++)
                    ck_assert_uint_eq(back[i], 0); /* the padding is not left in dst */
                for (size_t i = want_len; i < sizeof back; i++)
                    ck_assert_uint_eq(back[i], 0xa5);
            }
            /* Streamed in random chunks. */
            memset(got, 0xa5, sizeof got);
            ck_assert_uint_eq(stream_chunks(&k, 0, iv, got, plain, len, &rng, &err), want_len);
            ck_assert_int_eq(err, AES_GEN_OK);
            ck_assert_msg(!memcmp(got, want, want_len), "%s len %zu: stream differs", name, len);
            memset(back, 0xa5, sizeof back);
            ck_assert_uint_eq(stream_chunks(&k, 1, iv, back, want, want_len, &rng, &err), len);
            ck_assert_int_eq(err, AES_GEN_OK);
            ck_assert_msg(!memcmp(back, plain, len), "%s len %zu: stream decryption", name, len);
        }
        aes_gen_wipe(&k);
    }
}
END_TEST

/* Every wrong padding: the last plaintext block's byte 15 out of 1..16, or
 * one padding byte wrong at each position; one error, the output zeroed, the
 * bytes past it untouched, for the one-shot call and the stream. */
START_TEST(bad_padding_is_one_error)
{
    aes_gen_key k;
    size_t lens[3];
    built_key_lens(lens);
    uint8_t key[32] = {7}, iv[16] = {9}, plain[48], cipher[48], out[48 + GUARD], chain[16];
    ck_assert_int_eq(aes_gen_setkey(&k, key, lens[0]), AES_GEN_OK);
    int cases = 0;
    for (int n = 0; n < 256; n++)
        for (int wrong = -1; wrong < 16; wrong++) {
            memset(plain, 0x11, 32);
            memset(plain + 32, n, 16);
            if (n >= 1 && n <= 16) {
                if (wrong < 0 || wrong >= n - 1)
                    continue; /* right padding, or a byte outside it */
                plain[47 - 1 - wrong] ^= 0x40;
            } else if (wrong >= 0) {
                continue;
            }
            memcpy(chain, iv, 16);
            ck_assert_int_eq(aes_gen_cbc_encrypt(&k, chain, cipher, plain, 48), AES_GEN_OK);
            size_t got = 99;
            memset(out, 0xa5, sizeof out);
            ck_assert_int_eq(aes_gen_cbc_decrypt_padded(&k, iv, out, 48, &got, cipher, 48),
                             AES_GEN_EPADDING);
            ck_assert_uint_eq(got, 0);
            for (size_t i = 0; i < sizeof out; i++)
                ck_assert_uint_eq(out[i], i < 48 ? 0 : 0xa5);
            aes_gen_cbc_stream s;
            size_t part;
            memset(out, 0xa5, sizeof out);
            ck_assert_int_eq(aes_gen_cbc_stream_init(&s, &k, 1, iv), AES_GEN_OK);
            ck_assert_int_eq(aes_gen_cbc_stream_update(&s, out, 48, &part, cipher, 48), AES_GEN_OK);
            ck_assert_uint_eq(part, 32);
            ck_assert_int_eq(aes_gen_cbc_stream_final(&s, out + 32, 16, &got), AES_GEN_EPADDING);
            ck_assert_uint_eq(got, 0);
            for (size_t i = 32; i < sizeof out; i++)
                ck_assert_uint_eq(out[i], i < 48 ? 0 : 0xa5);
            cases++;
        }
    ck_assert_int_eq(cases, 240 + 120); /* 240 bad last bytes, 0+1+...+15 bad padding bytes */
    aes_gen_wipe(&k);
}
END_TEST

START_TEST(errors_change_nothing)
{
    aes_gen_key k, unset;
    size_t lens[3], n = 77;
    built_key_lens(lens);
    uint8_t key[32] = {1}, iv[16] = {2}, buf[64], copy[64];
    memset(&unset, 0, sizeof unset);
    ck_assert_int_eq(aes_gen_setkey(&k, key, lens[0]), AES_GEN_OK);
    memset(buf, 0x5c, sizeof buf);
    memcpy(copy, buf, sizeof buf);
    ck_assert_int_eq(aes_gen_cbc_encrypt_padded(&k, iv, buf, 31, &n, buf, 16), AES_GEN_ESPACE);
    ck_assert_int_eq(aes_gen_cbc_encrypt_padded(&k, iv, buf, 15, &n, buf, 0), AES_GEN_ESPACE);
    ck_assert_int_eq(aes_gen_cbc_encrypt_padded(&unset, iv, buf, 64, &n, buf, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_cbc_encrypt_padded(&k, NULL, buf, 64, &n, buf, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_cbc_encrypt_padded(&k, iv, buf, 64, NULL, buf, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_cbc_decrypt_padded(&k, iv, buf, 64, &n, buf, 0), AES_GEN_ELEN);
    ck_assert_int_eq(aes_gen_cbc_decrypt_padded(&k, iv, buf, 64, &n, buf, 17), AES_GEN_ELEN);
    ck_assert_int_eq(aes_gen_cbc_decrypt_padded(&k, iv, buf, 31, &n, buf, 32), AES_GEN_ESPACE);
    ck_assert_int_eq(aes_gen_cbc_decrypt_padded(&k, iv, NULL, 64, &n, buf, 32), AES_GEN_EARG);
    ck_assert_mem_eq(buf, copy, sizeof buf);
    ck_assert_uint_eq(n, 77);
    /* Zero bytes encrypt to one block of padding: src may be NULL. */
    ck_assert_int_eq(aes_gen_cbc_encrypt_padded(&k, iv, buf, 16, &n, NULL, 0), AES_GEN_OK);
    ck_assert_uint_eq(n, 16);

    aes_gen_cbc_stream s;
    ck_assert_int_eq(aes_gen_cbc_stream_init(&s, &unset, 0, iv), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_cbc_stream_init(&s, &k, 0, iv), AES_GEN_OK);
    memcpy(buf, copy, sizeof buf);
    ck_assert_int_eq(aes_gen_cbc_stream_update(&s, buf, 15, &n, copy, 20), AES_GEN_ESPACE);
    ck_assert_int_eq(aes_gen_cbc_stream_update(&s, buf + 8, 64, &n, buf, 20), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_cbc_stream_update(&s, buf, 64, &n, buf, 20), AES_GEN_EARG);
    ck_assert_mem_eq(buf, copy, sizeof buf);
    ck_assert_int_eq(aes_gen_cbc_stream_update(&s, buf, 0, &n, copy, 5), AES_GEN_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(aes_gen_cbc_stream_final(&s, buf, 15, &n), AES_GEN_ESPACE);
    ck_assert_int_eq(aes_gen_cbc_stream_final(&s, buf, 16, &n), AES_GEN_OK);
    ck_assert_uint_eq(n, 16);
    ck_assert_int_eq(aes_gen_cbc_stream_update(&s, buf, 64, &n, copy, 5), AES_GEN_EARG);
    /* A decryption whose ciphertext is not a positive multiple of 16. */
    for (size_t len = 0; len < 40; len += 13) {
        ck_assert_int_eq(aes_gen_cbc_stream_init(&s, &k, 1, iv), AES_GEN_OK);
        ck_assert_int_eq(aes_gen_cbc_stream_update(&s, buf, 64, &n, copy, len), AES_GEN_OK);
        ck_assert_int_eq(aes_gen_cbc_stream_final(&s, buf, 16, &n), AES_GEN_ELEN);
        ck_assert_uint_eq(n, 0);
    }
    aes_gen_wipe(&k);
}
END_TEST

int main(void)
{
    nbackends = usable_backends(backends, AES_GEN_BACKEND_COUNT, 0);
    Suite *su = suite_create("padding");
    TCase *tc = tcase_create("padding");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, padded_matches_openssl_and_reference, 0, (int)nbackends);
    tcase_add_test(tc, bad_padding_is_one_error);
    tcase_add_test(tc, errors_change_nothing);
    suite_add_tcase(su, tc);
    return run_suite(su);
}
