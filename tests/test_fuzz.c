/* SPDX-License-Identifier: Apache-2.0 */
/* Randomised differential test: random backend, mode, key size, length,
 * alignment, in-place use and chunking against the reference and, where it is
 * installed, OpenSSL's EVP.  Fixed seed; AES_GEN_FUZZ_ITERS runs longer and
 * AES_GEN_TEST_SEED picks another stream. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#ifdef HAVE_OPENSSL
#include "evp_cipher.h"

/* One-shot EVP over the whole message: the second, external reference. */
static void openssl_crypt(const struct mode_case *mc, const uint8_t *key, size_t key_len,
                          const uint8_t iv[16], uint8_t *dst, const uint8_t *src, size_t len)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int out = 0, fin = 0;
    ck_assert_ptr_nonnull(ctx);
    ck_assert_int_eq(EVP_CipherInit_ex(ctx, evp_cipher(mc->ref, key_len), NULL, key,
                                       mc->ref == REF_ECB ? NULL : iv, !mc->decrypt), 1);
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    ck_assert_int_eq(EVP_CipherUpdate(ctx, dst, &out, src, (int)len), 1);
    ck_assert_int_eq(EVP_CipherFinal_ex(ctx, dst + out, &fin), 1);
    ck_assert_uint_eq((size_t)(out + fin), len);
    EVP_CIPHER_CTX_free(ctx);
}
#endif

#define MAX_LEN 3000

START_TEST(fuzz_against_references)
{
    const char *env = getenv("AES_GEN_FUZZ_ITERS");
    const long iters = env ? atol(env) : 3000;
    uint64_t rng = test_seed_random();
    size_t backends[64];
    const size_t nbackends = usable_backends(backends, 64, 0);
    static uint8_t src[MAX_LEN + 16], want[MAX_LEN], got[MAX_LEN + 16];

    printf("fuzz: %ld iterations, seed AES_GEN_TEST_SEED=0x%llx (random unless set), second "
           "reference: %s\n", iters, (unsigned long long)test_seed_random(),
#ifdef HAVE_OPENSSL
           "OpenSSL EVP"
#else
           "none (libssl-dev not found at configure time)"
#endif
    );
    for (long it = 0; it < iters; it++) {
        const size_t b = backends[rng_next(&rng) % nbackends];
        const struct mode_case *mc = &mode_cases[rng_next(&rng) % AES_GEN_MODE_COUNT];
        const size_t key_len = 16 + 8 * (rng_next(&rng) % 3);
        size_t len = rng_next(&rng) % (rng_next(&rng) % 2 ? 100 : MAX_LEN);
        if (!mc->block) { /* GCM: lengths valid and not, the stream split anywhere */
            uint8_t key[32], iv[64], aad[200];
            rng_fill(&rng, key, sizeof key);
            rng_fill(&rng, iv, sizeof iv);
            rng_fill(&rng, aad, sizeof aad);
            rng_fill(&rng, src, len);
            const uint64_t r = rng_next(&rng);
            const struct gcm_case c = {
                aes_gen_backend_table[b].name, key, iv, aad, src, key_len,
                r % 8 ? 12 : r / 8 % 65, r / 1024 % 4 ? r / 4096 % 40 : r / 4096 % 201,
                len, r >> 20 & 3 ? 16 : (r >> 22) % 18, rng_next(&rng) % 16,
                rng_next(&rng) % 210, rng_next(&rng) % (len + 17), rng_next(&rng),
                rng_next(&rng) % 4 == 0};
            char why[256];
            const char *bad = gcm_check(&c, why, sizeof why);
            ck_assert_msg(bad == NULL, "iteration %ld: %s", it, bad);
            continue;
        }
        if (mc->whole_blocks)
            len &= ~(size_t)15;
        const size_t src_off = rng_next(&rng) % 16, dst_off = rng_next(&rng) % 16;
        const int in_place = rng_next(&rng) % 4 == 0;
        uint8_t key[32], iv0[16], iv_want[16], iv_got[16];
        aes_gen_key k;

        if (!aes_gen_backend_usable(b, (unsigned)key_len * 8))
            continue;
        rng_fill(&rng, key, key_len);
        rng_fill(&rng, iv0, 16);
        rng_fill(&rng, src, src_off + len);
        memcpy(iv_want, iv0, 16);
        ref_run(mc, key, key_len, iv_want, want, src + src_off, len);
#ifdef HAVE_OPENSSL
        /* OpenSSL has the SP 800-38A modes: CTR counts in all 128 bits (XTS's
         * block modes take an encrypted tweak: test_xts compares EVP's XTS). */
        if ((len % 16 == 0 || !mc->whole_blocks) && mc->ref != REF_XTS &&
            (mc->counter_bits == 0 || mc->counter_bits == 128)) {
            openssl_crypt(mc, key, key_len, iv0, got, src + src_off, len);
            ck_assert_msg(memcmp(got, want, len) == 0,
                          "iteration %ld: the reference and OpenSSL disagree (%s, len %zu)", it,
                          mc->name, len);
        }
#endif
        ck_assert_int_eq(aes_gen_setkey_backend(&k, key, key_len, aes_gen_backend_table[b].name),
                         AES_GEN_OK);
        uint8_t *dst = got + dst_off;
        const uint8_t *in = src + src_off;
        if (in_place) {
            memmove(dst, in, len);
            in = dst;
        }
        /* Split into whole-block chunks; a partial block can only come last. */
        memcpy(iv_got, iv0, 16);
        for (size_t off = 0; off < len;) {
            size_t n = rng_next(&rng) % 3 ? len - off : 16 * (rng_next(&rng) % 9);
            if (n > len - off || len - off - n < 16)
                n = len - off;
            ck_assert_int_eq(mode_call(mc, &k, iv_got, dst + off, in + off, n), AES_GEN_OK);
            off += n;
        }
        ck_assert_msg(memcmp(dst, want, len) == 0,
                      "iteration %ld: %s %s AES-%zu len %zu src+%zu dst+%zu%s differs", it,
                      aes_gen_backend_table[b].name, mc->name, key_len * 8, len, src_off, dst_off,
                      in_place ? " in place" : "");
        if (mc->ref != REF_ECB)
            ck_assert_msg(memcmp(iv_got, iv_want, 16) == 0, "iteration %ld: iv differs", it);
        aes_gen_wipe(&k);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fuzz");
    TCase *tc = tcase_create("differential");
    tcase_set_timeout(tc, 0); /* long runs on demand */
    tcase_add_test(tc, fuzz_against_references);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
