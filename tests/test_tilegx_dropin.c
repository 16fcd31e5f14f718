/* SPDX-License-Identifier: Apache-2.0 */
/* The aes_core.c drop-in (generated/tilegx/aes_core_tilegx.c), compiled with
 * its symbols renamed gx_* (-D), through its own API against OpenSSL's
 * AES_encrypt/AES_decrypt: every key size, random keys and blocks, input at
 * every alignment, the round keys left in AES_KEY, the return codes.  Built twice: output by bytes at any
 * alignment, and with GX_STORE_ALIGNED (8-byte aligned output; a misaligned
 * one must trap in the emulation's trapping mode). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <check.h>
#include <openssl/aes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

int gx_AES_set_encrypt_key(const unsigned char *userKey, const int bits, AES_KEY *key);
int gx_AES_set_decrypt_key(const unsigned char *userKey, const int bits, AES_KEY *key);
void gx_AES_encrypt(const unsigned char *in, unsigned char *out, const AES_KEY *key);
void gx_AES_decrypt(const unsigned char *in, unsigned char *out, const AES_KEY *key);

#ifdef GX_STORE_ALIGNED
#define OUT_OFFSETS 1 /* the store path needs 8-byte aligned output */
#else
#define OUT_OFFSETS 16
#endif

/* The drop-in keeps aes_core.c's AES_KEY: each word the big-endian value of
 * four key bytes. The host's OpenSSL has either that layout (its C code) or,
 * in the x86-64 assembly, every word byte-swapped; all words must agree with
 * one of the two. */
static int same_round_keys(const AES_KEY *ours, const AES_KEY *theirs)
{
    int as_is = ours->rounds == theirs->rounds, swapped = as_is;
    for (int i = 0; i < 4 * (ours->rounds + 1); i++) {
        const unsigned char *t = (const unsigned char *)&theirs->rd_key[i];
        const uint32_t be = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3];
        as_is &= ours->rd_key[i] == theirs->rd_key[i];
        swapped &= ours->rd_key[i] == be;
    }
    return as_is || swapped;
}

START_TEST(matches_openssl)
{
    uint64_t rng = test_seed();
    static const int bits[3] = {128, 192, 256};
    _Alignas(16) unsigned char key[32], in[64], want[16], got[64];
    for (int b = 0; b < 3; b++)
        for (int round = 0; round < 200; round++) {
            AES_KEY ours, theirs;
            const size_t in_off = (size_t)round % 16, out_off = (size_t)round % OUT_OFFSETS;
            rng_fill(&rng, key, sizeof key);
            rng_fill(&rng, in, sizeof in);
            ck_assert_int_eq(gx_AES_set_encrypt_key(key, bits[b], &ours), 0);
            ck_assert_int_eq(AES_set_encrypt_key(key, bits[b], &theirs), 0);
            ck_assert_int_eq(ours.rounds, bits[b] / 32 + 6);
            /* So that the rest of OpenSSL (aes_cbc.c, aes_ige.c) can use it. */
            ck_assert_msg(same_round_keys(&ours, &theirs),
                          "AES-%d encryption round keys differ from OpenSSL's", bits[b]);
            gx_AES_encrypt(in + in_off, got + out_off, &ours);
            AES_encrypt(in + in_off, want, &theirs);
            ck_assert_msg(memcmp(got + out_off, want, 16) == 0, "AES-%d encrypt, in+%zu out+%zu",
                          bits[b], in_off, out_off);
            ck_assert_int_eq(gx_AES_set_decrypt_key(key, bits[b], &ours), 0);
            ck_assert_int_eq(AES_set_decrypt_key(key, bits[b], &theirs), 0);
            ck_assert_msg(same_round_keys(&ours, &theirs),
                          "AES-%d decryption round keys differ from OpenSSL's", bits[b]);
            gx_AES_decrypt(in + in_off, got + out_off, &ours);
            AES_decrypt(in + in_off, want, &theirs);
            ck_assert_msg(memcmp(got + out_off, want, 16) == 0, "AES-%d decrypt, in+%zu out+%zu",
                          bits[b], in_off, out_off);
            /* In place, as OpenSSL allows. */
            memcpy(got, in + in_off, 16);
            gx_AES_decrypt(got, got, &ours);
            ck_assert_mem_eq(got, want, 16);
        }
}
END_TEST

START_TEST(return_codes)
{
    unsigned char key[32] = {0};
    AES_KEY k;
    ck_assert_int_eq(gx_AES_set_encrypt_key(NULL, 128, &k), -1);
    ck_assert_int_eq(gx_AES_set_encrypt_key(key, 128, NULL), -1);
    ck_assert_int_eq(gx_AES_set_decrypt_key(NULL, 128, &k), -1);
    ck_assert_int_eq(gx_AES_set_encrypt_key(key, 100, &k), -2);
    ck_assert_int_eq(gx_AES_set_decrypt_key(key, 0, &k), -2);
}
END_TEST

#ifdef GX_STORE_ALIGNED
START_TEST(misaligned_output_traps)
{
    _Alignas(16) unsigned char key[16] = {0}, in[16] = {0}, out[32];
    AES_KEY k;
    ck_assert_int_eq(gx_AES_set_encrypt_key(key, 128, &k), 0);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        gx_AES_encrypt(in, out + 4, &k); /* st on a 4-byte boundary */
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
                  "an unaligned store in GX_STORE_ALIGNED mode must trap");
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("tilegx_dropin");
    TCase *tc = tcase_create("aes_core");
    tcase_add_test(tc, matches_openssl);
    tcase_add_test(tc, return_codes);
#ifdef GX_STORE_ALIGNED
    tcase_add_test(tc, misaligned_output_traps);
#endif
    suite_add_tcase(s, tc);
    return run_suite(s);
}
