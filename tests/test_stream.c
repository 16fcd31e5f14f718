/* SPDX-License-Identifier: Apache-2.0 */
/* Streams: for every streamable mode, backend and key size, a message split at
 * every byte offset (and at random three-way splits) gives the bytes of one
 * call, and the bytes OpenSSL's EVP gives for the same chunks; a stream
 * resumed from the position another stopped at goes on as that one would. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#ifdef HAVE_OPENSSL
#include <openssl/evp.h>

static const EVP_CIPHER *evp_for(enum ref_mode mode, size_t key_len)
{
    const int i = key_len == 16 ? 0 : key_len == 24 ? 1 : 2;
    switch (mode) {
    case REF_CFB: return (const EVP_CIPHER *[]){EVP_aes_128_cfb128(), EVP_aes_192_cfb128(), EVP_aes_256_cfb128()}[i];
    case REF_OFB: return (const EVP_CIPHER *[]){EVP_aes_128_ofb(), EVP_aes_192_ofb(), EVP_aes_256_ofb()}[i];
    case REF_CTR: return (const EVP_CIPHER *[]){EVP_aes_128_ctr(), EVP_aes_192_ctr(), EVP_aes_256_ctr()}[i];
    default: return NULL;
    }
}
#endif

#define LEN 100

static size_t backends[AES_GEN_BACKEND_COUNT], nbackends;

/* One message through a stream in chunks cut at cuts[0..ncuts) (ascending). */
static void stream_in_chunks(const aes_gen_key *k, const struct mode_case *mc, const uint8_t iv[16],
                             uint8_t *out, const uint8_t *in, const size_t *cuts, size_t ncuts,
                             uint8_t iv_out[16])
{
    aes_gen_stream s;
    size_t at = 0;
    ck_assert_int_eq(aes_gen_stream_init(&s, k, mc->name, iv), AES_GEN_OK);
    for (size_t c = 0; c <= ncuts; c++) {
        const size_t end = c < ncuts ? cuts[c] : LEN;
        ck_assert_int_eq(aes_gen_stream_update(&s, out + at, in + at, end - at), AES_GEN_OK);
        at = end;
    }
    ck_assert_int_eq(aes_gen_stream_final(&s, iv_out), AES_GEN_OK);
}

#ifdef HAVE_OPENSSL
static void evp_in_chunks(const struct mode_case *mc, const uint8_t *key, size_t key_len,
                          const uint8_t iv[16], uint8_t *out, const uint8_t *in,
                          const size_t *cuts, size_t ncuts)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    size_t at = 0;
    ck_assert_int_eq(EVP_CipherInit_ex(ctx, evp_for(mc->ref, key_len), NULL, key, iv,
                                       !mc->decrypt), 1);
    for (size_t c = 0; c <= ncuts; c++) {
        const size_t end = c < ncuts ? cuts[c] : LEN;
        int n;
        ck_assert_int_eq(EVP_CipherUpdate(ctx, out + at, &n, in + at, (int)(end - at)), 1);
        ck_assert_int_eq((size_t)n, end - at);
        at = end;
    }
    EVP_CIPHER_CTX_free(ctx);
}
#endif

/* _i = (backend, mode) */
START_TEST(any_split_equals_one_call)
{
    const size_t b = backends[_i / AES_GEN_MODE_COUNT];
    const struct mode_case *mc = &mode_cases[_i % AES_GEN_MODE_COUNT];
    if (mc->whole_blocks || !mc->block)
        return; /* ECB, CBC and GCM do not stream here */
    uint64_t rng = test_seed() ^ (uint64_t)_i << 12;
    size_t lens[3];
    const size_t nlens = built_key_lens(lens);
    for (size_t kl = 0; kl < nlens; kl++) {
        uint8_t key[32], iv[16], in[LEN], one[LEN], got[LEN], iv_one[16], iv_got[16];
        aes_gen_key k;
        rng_fill(&rng, key, sizeof key);
        rng_fill(&rng, iv, 16);
        rng_fill(&rng, in, LEN);
        if (!aes_gen_backend_usable((enum aes_gen_backend_id)b, (unsigned)lens[kl] * 8))
            continue;
        ck_assert_int_eq(aes_gen_setkey_backend(&k, key, lens[kl],
                                                aes_gen_backend_table[b].name), AES_GEN_OK);
        memcpy(iv_one, iv, 16);
        ck_assert_int_eq(mode_call(mc, &k, iv_one, one, in, LEN), AES_GEN_OK);
        for (size_t cut = 0; cut <= LEN; cut++) {
            stream_in_chunks(&k, mc, iv, got, in, &cut, 1, iv_got);
            ck_assert_msg(memcmp(got, one, LEN) == 0, "%s %s AES-%zu: split at %zu differs",
                          aes_gen_backend_table[b].name, mc->name, lens[kl] * 8, cut);
#ifdef HAVE_OPENSSL
            uint8_t evp[LEN];
            if (mc->counter_bits == 0 || mc->counter_bits == 128) {
                evp_in_chunks(mc, key, lens[kl], iv, evp, in, &cut, 1);
                ck_assert_msg(memcmp(got, evp, LEN) == 0, "%s %s AES-%zu: split at %zu differs "
                              "from OpenSSL", aes_gen_backend_table[b].name, mc->name,
                              lens[kl] * 8, cut);
            }
#endif
        }
        for (int r = 0; r < 200; r++) {
            size_t cuts[2] = {rng_next(&rng) % (LEN + 1), rng_next(&rng) % (LEN + 1)};
            if (cuts[0] > cuts[1]) {
                const size_t t = cuts[0];
                cuts[0] = cuts[1], cuts[1] = t;
            }
            stream_in_chunks(&k, mc, iv, got, in, cuts, 2, iv_got);
            ck_assert_msg(memcmp(got, one, LEN) == 0, "%s %s: splits at %zu, %zu differ",
                          aes_gen_backend_table[b].name, mc->name, cuts[0], cuts[1]);
        }
        /* On a block boundary the stream ends where the one-shot call does. */
        aes_gen_stream s;
        uint8_t iv_blocks[16];
        memcpy(iv_blocks, iv, 16);
        ck_assert_int_eq(mode_call(mc, &k, iv_blocks, one, in, 96), AES_GEN_OK);
        ck_assert_int_eq(aes_gen_stream_init(&s, &k, mc->name, iv), AES_GEN_OK);
        ck_assert_int_eq(aes_gen_stream_update(&s, got, in, 33), AES_GEN_OK);
        ck_assert_int_eq(aes_gen_stream_update(&s, got + 33, in + 33, 63), AES_GEN_OK);
        ck_assert_int_eq(aes_gen_stream_final(&s, iv_got), AES_GEN_OK);
        ck_assert_mem_eq(iv_got, iv_blocks, 16);
        aes_gen_wipe(&k);
    }
}
END_TEST

/* The mode constants and the _dec aliases start the stream their names do. */
START_TEST(stream_mode_constants)
{
    static const struct {
        aes_gen_stream_mode mode;
        const char *name, *alias;
    } cases[] = {{AES_GEN_STREAM_CTR, "ctr_enc", "ctr_dec"},
                 {AES_GEN_STREAM_CFB_ENCRYPT, "cfb_enc", NULL},
                 {AES_GEN_STREAM_CFB_DECRYPT, "cfb_dec", NULL},
                 {AES_GEN_STREAM_OFB, "ofb_enc", "ofb_dec"}};
    aes_gen_key k;
    uint8_t key[32], iv[16], in[100], want[sizeof in], got[sizeof in];
    size_t lens[3];
    built_key_lens(lens);
    uint64_t rng = test_seed() ^ 0x5157;
    rng_fill(&rng, key, sizeof key);
    rng_fill(&rng, iv, sizeof iv);
    rng_fill(&rng, in, sizeof in);
    ck_assert_int_eq(aes_gen_setkey(&k, key, lens[0]), AES_GEN_OK);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int form = 0; form < 3; form++) {
            aes_gen_stream s;
            uint8_t *out = form ? got : want;
            if (form == 2 && !cases[c].alias)
                continue;
            ck_assert_int_eq(form == 1 ? aes_gen_stream_init_mode(&s, &k, cases[c].mode, iv)
                                       : aes_gen_stream_init(&s, &k, form ? cases[c].alias
                                                                          : cases[c].name, iv),
                             AES_GEN_OK);
            ck_assert_int_eq(aes_gen_stream_update(&s, out, in, 37), AES_GEN_OK);
            ck_assert_int_eq(aes_gen_stream_update(&s, out + 37, in + 37, sizeof in - 37),
                             AES_GEN_OK);
            ck_assert_int_eq(aes_gen_stream_final(&s, NULL), AES_GEN_OK);
            if (form)
                ck_assert_msg(memcmp(got, want, sizeof in) == 0, "%s: form %d differs",
                              cases[c].name, form);
        }
    aes_gen_wipe(&k);
}
END_TEST

/* A stream stopped at any byte, its position read and the stream erased,
 * then resumed from that position (a new context, as the OpenSSL provider
 * does for each update), gives the bytes of one stream; num is the offset
 * in the block. */
START_TEST(resume_at_every_position)
{
    static const aes_gen_stream_mode modes[] = {AES_GEN_STREAM_CTR, AES_GEN_STREAM_CFB_ENCRYPT,
                                                AES_GEN_STREAM_CFB_DECRYPT, AES_GEN_STREAM_OFB};
    aes_gen_key k;
    uint8_t key[32], iv[16], in[LEN], want[LEN], got[LEN];
    size_t lens[3];
    const size_t nlens = built_key_lens(lens);
    uint64_t rng = test_seed() ^ 0x7e5u;
    for (size_t kl = 0; kl < nlens; kl++)
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            aes_gen_stream s;
            rng_fill(&rng, key, sizeof key);
            rng_fill(&rng, iv, sizeof iv);
            rng_fill(&rng, in, sizeof in);
            ck_assert_int_eq(aes_gen_setkey(&k, key, lens[kl]), AES_GEN_OK);
            ck_assert_int_eq(aes_gen_stream_init_mode(&s, &k, modes[m], iv), AES_GEN_OK);
            ck_assert_int_eq(aes_gen_stream_update(&s, want, in, LEN), AES_GEN_OK);
            ck_assert_int_eq(aes_gen_stream_final(&s, NULL), AES_GEN_OK);
            for (size_t cut = 0; cut <= LEN; cut++) {
                uint8_t at_iv[16], at_ks[16];
                unsigned num = 99;
                memset(got, 0, sizeof got);
                ck_assert_int_eq(aes_gen_stream_init_mode(&s, &k, modes[m], iv), AES_GEN_OK);
                ck_assert_int_eq(aes_gen_stream_update(&s, got, in, cut), AES_GEN_OK);
                ck_assert_int_eq(aes_gen_stream_position(&s, at_iv, at_ks, &num), AES_GEN_OK);
                ck_assert_int_eq(aes_gen_stream_final(&s, NULL), AES_GEN_OK);
                ck_assert_uint_eq(num, cut % 16);
                ck_assert_int_eq(aes_gen_stream_resume(&s, &k, modes[m], at_iv, at_ks, num),
                                 AES_GEN_OK);
                ck_assert_int_eq(aes_gen_stream_update(&s, got + cut, in + cut, LEN - cut),
                                 AES_GEN_OK);
                ck_assert_int_eq(aes_gen_stream_final(&s, NULL), AES_GEN_OK);
                ck_assert_msg(memcmp(got, want, LEN) == 0,
                              "mode %d AES-%zu: resumed at %zu differs", (int)modes[m],
                              lens[kl] * 8, cut);
            }
            aes_gen_wipe(&k);
        }
}
END_TEST

/* Bad positions are refused and change nothing. */
START_TEST(resume_errors)
{
    aes_gen_stream s, before;
    aes_gen_key k;
    uint8_t key[32] = {1}, iv[16] = {2}, ks[16] = {3}, out[16];
    unsigned num;
    size_t lens[3];
    built_key_lens(lens);
    ck_assert_int_eq(aes_gen_setkey(&k, key, lens[0]), AES_GEN_OK);
    memset(&s, 0xa5, sizeof s);
    memcpy(&before, &s, sizeof s);
    ck_assert_int_eq(aes_gen_stream_resume(&s, &k, AES_GEN_STREAM_OFB, iv, NULL, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_resume(&s, &k, AES_GEN_STREAM_CTR, iv, ks, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_resume(&s, &k, AES_GEN_STREAM_CTR, iv, NULL, 1), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_resume(&s, &k, AES_GEN_STREAM_CTR, NULL, ks, 0), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_resume(NULL, &k, AES_GEN_STREAM_CTR, iv, ks, 0), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_resume(&s, &k, (aes_gen_stream_mode)5, iv, ks, 0),
                     AES_GEN_EMODE);
    ck_assert_mem_eq(&s, &before, sizeof s);
    /* CFB and OFB need no block beside iv; CTR at num 0 none either. */
    ck_assert_int_eq(aes_gen_stream_resume(&s, &k, AES_GEN_STREAM_CFB_DECRYPT, iv, NULL, 15),
                     AES_GEN_OK);
    ck_assert_int_eq(aes_gen_stream_resume(&s, &k, AES_GEN_STREAM_CTR, iv, NULL, 0), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_stream_position(&s, NULL, out, &num), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_position(&s, out, out, NULL), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_position(&s, out, NULL, &num), AES_GEN_OK);
    ck_assert_uint_eq(num, 0);
    ck_assert_int_eq(aes_gen_stream_final(&s, NULL), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_stream_position(&s, out, out, &num), AES_GEN_EARG); /* erased */
    aes_gen_wipe(&k);
}
END_TEST

START_TEST(stream_errors)
{
    aes_gen_stream s;
    aes_gen_key k;
    uint8_t key[32] = {0}, iv[16] = {0}, buf[16] = {0};
    size_t lens[3];
    built_key_lens(lens);
    ck_assert_int_eq(aes_gen_setkey(&k, key, lens[0]), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_stream_init(&s, &k, "ecb_enc", iv), AES_GEN_EMODE);
    ck_assert_int_eq(aes_gen_stream_init(&s, &k, "cbc_dec", iv), AES_GEN_EMODE);
    ck_assert_int_eq(aes_gen_stream_init(&s, &k, "nope", iv), AES_GEN_EMODE);
    ck_assert_int_eq(aes_gen_stream_init(&s, &k, "ctr_dec\n", iv), AES_GEN_EMODE);
    ck_assert_int_eq(aes_gen_stream_init(NULL, &k, "ctr_enc", iv), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_init(&s, &k, NULL, iv), AES_GEN_EARG);
    static const int bad_constants[] = {0, 5, -1, 0x7fffffff};
    for (size_t i = 0; i < sizeof bad_constants / sizeof bad_constants[0]; i++)
        ck_assert_int_eq(aes_gen_stream_init_mode(&s, &k, (aes_gen_stream_mode)bad_constants[i],
                                                  iv), AES_GEN_EMODE);
    ck_assert_int_eq(aes_gen_stream_init_mode(NULL, &k, AES_GEN_STREAM_CTR, iv), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_init_mode(&s, &k, AES_GEN_STREAM_CTR, NULL), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_init(&s, &k, "ctr_enc", NULL), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_init(&s, &k, "ctr_enc", iv), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_stream_update(&s, NULL, buf, 1), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_stream_update(&s, buf, buf, 0), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_stream_final(&s, NULL), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_stream_update(&s, buf, buf, 1), AES_GEN_EARG); /* final erased it */

    /* A context whose magic is intact but whose fields are corrupted is refused,
     * and the bytes are left alone. */
    static const uint32_t bad_modes[] = {AES_GEN_MODE_COUNT, 0x7fffffff, 0xffffffff,
                                         AES_GEN_MD_ecb_enc, AES_GEN_MD_cbc_dec};
    for (size_t i = 0; i < sizeof bad_modes / sizeof bad_modes[0] + 2; i++) {
        ck_assert_int_eq(aes_gen_stream_init(&s, &k, "ctr_enc", iv), AES_GEN_OK);
        if (i < sizeof bad_modes / sizeof bad_modes[0])
            s.private_mode = bad_modes[i];
        else
            s.private_num = i == sizeof bad_modes / sizeof bad_modes[0] ? 16 : 0x80000000u;
        memset(buf, 0x33, sizeof buf);
        ck_assert_int_eq(aes_gen_stream_update(&s, buf, buf, 5), AES_GEN_EARG);
        for (size_t j = 0; j < sizeof buf; j++)
            ck_assert_uint_eq(buf[j], 0x33);
    }
    aes_gen_wipe(&k);
}
END_TEST

int main(void)
{
    nbackends = usable_backends(backends, AES_GEN_BACKEND_COUNT, 0);
    Suite *su = suite_create("stream");
    TCase *tc = tcase_create("stream");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, any_split_equals_one_call, 0, (int)(nbackends * AES_GEN_MODE_COUNT));
    tcase_add_test(tc, stream_mode_constants);
    tcase_add_test(tc, stream_errors);
    tcase_add_test(tc, resume_at_every_position);
    tcase_add_test(tc, resume_errors);
    suite_add_tcase(su, tc);
    return run_suite(su);
}
