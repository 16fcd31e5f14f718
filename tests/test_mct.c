/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AESAVS Monte Carlo tests (ECB, CBC, CFB128, OFB; encryption and
 * decryption): 100 outer iterations of 1000 chained blocks, the key changed
 * after each from the last outputs, as the AESAVS loops do.  The same loop
 * drives three implementations: every usable backend through the API (one
 * block per call, the iv carried by the API), the reference, and OpenSSL's
 * EVP; all 100 outputs must agree.  Any wrong round, key schedule or
 * chaining step compounds through 100,000 dependent blocks.
 */
#include <check.h>
#include <string.h>
#include "common.h"
#ifdef HAVE_OPENSSL
#include "evp_cipher.h"
#endif

enum { OUTER = 100, INNER = 1000 };
/* Calls that failed (counted, not asserted: Check reports every passing
 * assertion to its parent process, too slow for 100,000 calls). */
static int bad_calls;

struct impl {
    void (*setkey)(struct impl *, const uint8_t *key, size_t len, const uint8_t iv[16]);
    void (*block)(struct impl *, uint8_t out[16], const uint8_t in[16]);
    const struct mode_case *mc;
    const char *backend;
    aes_gen_key k;
    ref_key ref;
    uint8_t iv[16];
#ifdef HAVE_OPENSSL
    EVP_CIPHER_CTX *evp;
#endif
};

static void ours_setkey(struct impl *m, const uint8_t *key, size_t len, const uint8_t iv[16])
{
    bad_calls += aes_gen_setkey_backend(&m->k, key, len, m->backend) != AES_GEN_OK;
    memcpy(m->iv, iv, 16);
}

static void ours_block(struct impl *m, uint8_t out[16], const uint8_t in[16])
{
    bad_calls += mode_call(m->mc, &m->k, m->iv, out, in, 16) != AES_GEN_OK;
}

static void ref_setkey_(struct impl *m, const uint8_t *key, size_t len, const uint8_t iv[16])
{
    ref_setkey(&m->ref, key, len);
    memcpy(m->iv, iv, 16);
}

static void ref_block(struct impl *m, uint8_t out[16], const uint8_t in[16])
{
    ref_crypt(&m->ref, m->mc->ref, m->mc->decrypt, 0, m->iv, out, in, 16);
}

#ifdef HAVE_OPENSSL
static void evp_setkey(struct impl *m, const uint8_t *key, size_t len, const uint8_t iv[16])
{
    bad_calls += EVP_CipherInit_ex(m->evp, evp_cipher(m->mc->ref, len), NULL, key, iv,
                                   !m->mc->decrypt) != 1;
    EVP_CIPHER_CTX_set_padding(m->evp, 0);
}

static void evp_block(struct impl *m, uint8_t out[16], const uint8_t in[16])
{
    int n = 0;
    bad_calls += EVP_CipherUpdate(m->evp, out, &n, in, 16) != 1 || n != 16;
}
#endif

/* AESAVS 6.4: outputs[i] = the last block of outer iteration i.  ECB feeds
 * each output back as the next input; the chained modes feed the previous
 * output (the first block's: the iv), and the next outer iteration starts
 * from the last two outputs, with the iv the last output. */
static void monte_carlo(struct impl *m, size_t key_len, uint8_t outputs[OUTER][16])
{
    uint8_t key[32], iv[16], in[16], out[INNER][16];
    const int chained = m->mc->ref != REF_ECB;
    for (size_t i = 0; i < 32; i++)
        key[i] = (uint8_t)(0x10 + 3 * i);
    for (size_t i = 0; i < 16; i++)
        iv[i] = (uint8_t)(0xa0 ^ i), in[i] = (uint8_t)(0x55 + i);
    for (int i = 0; i < OUTER; i++) {
        m->setkey(m, key, key_len, iv);
        for (int j = 0; j < INNER; j++) {
            m->block(m, out[j], in);
            if (!chained)
                memcpy(in, out[j], 16);
            else
                memcpy(in, j ? out[j - 1] : iv, 16);
        }
        memcpy(outputs[i], out[INNER - 1], 16);
        /* Key[i+1] = Key[i] ^ the last key_len bytes of out[998] || out[999]. */
        uint8_t tail[32];
        memcpy(tail, out[INNER - 2], 16);
        memcpy(tail + 16, out[INNER - 1], 16);
        for (size_t b = 0; b < key_len; b++)
            key[b] ^= tail[32 - key_len + b];
        if (chained) {
            memcpy(iv, out[INNER - 1], 16);
            memcpy(in, out[INNER - 2], 16);
        } else {
            memcpy(in, out[INNER - 1], 16);
        }
    }
}

START_TEST(monte_carlo_every_backend)
{
    const struct mode_case *mc = &mode_cases[_i];
    if (mc->ref == REF_CTR || mc->ref == REF_XTS || !mc->block) /* AESAVS has neither */
        return;
    size_t lens[3], ids[64];
    const size_t nk = built_key_lens(lens);
    for (size_t ki = 0; ki < nk; ki++) {
        static uint8_t want[OUTER][16], got[OUTER][16];
        struct impl ref = {.setkey = ref_setkey_, .block = ref_block, .mc = mc};
        monte_carlo(&ref, lens[ki], want);
#ifdef HAVE_OPENSSL
        struct impl evp = {.setkey = evp_setkey, .block = evp_block, .mc = mc};
        evp.evp = EVP_CIPHER_CTX_new();
        monte_carlo(&evp, lens[ki], got);
        EVP_CIPHER_CTX_free(evp.evp);
        ck_assert_msg(!memcmp(got, want, sizeof want), "%s AES-%zu: OpenSSL != reference",
                      mc->name, 8 * lens[ki]);
#endif
        const size_t nb = usable_backends(ids, 64, (unsigned)(8 * lens[ki]));
        for (size_t b = 0; b < nb; b++) {
            struct impl ours = {.setkey = ours_setkey, .block = ours_block, .mc = mc,
                                .backend = aes_gen_backend_table[ids[b]].name};
            monte_carlo(&ours, lens[ki], got);
            aes_gen_wipe(&ours.k);
            ck_assert_msg(!bad_calls, "%s AES-%zu backend %s: %d calls failed", mc->name,
                          8 * lens[ki], ours.backend, bad_calls);
            for (int i = 0; i < OUTER; i++)
                ck_assert_msg(!memcmp(got[i], want[i], 16),
                              "%s AES-%zu backend %s: outer iteration %d differs", mc->name,
                              8 * lens[ki], ours.backend, i);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mct");
    TCase *tc = tcase_create("aesavs");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, monte_carlo_every_backend, 0, AES_GEN_MODE_COUNT);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
