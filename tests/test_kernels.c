/* SPDX-License-Identifier: Apache-2.0 */
/* Every registered kernel, called directly, against the reference: nblocks W,
 * 2W and 3W, out of place and in place, aligned and not, with CTR counters
 * that carry across bytes and wrap, and guard bytes around dst; the GCM
 * kernels also at byte counts that end in their tail (partial blocks, none),
 * with and without AES_GEN_GCM_LAST.  New widths and backends are covered by
 * regenerating: the loop runs over the registry, and the buffers are sized by
 * each kernel's width. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* Bytes around dst that a kernel must leave alone. */
#define GUARD 32

/* CTR start values: case 0 random, case 1 a carry out of byte 15 only; cases
 * 2.. put the carry from byte 8 into byte 7 at every block of the first two
 * groups, with the high half at ff..ff from case 2 + W on (the 2^128 wrap). */
static size_t ctr_case_count(unsigned width)
{
    return 2 + 2 * (size_t)width * 2;
}

static void ctr_start(size_t c, unsigned width, uint8_t iv[16], uint64_t *rng)
{
    rng_fill(rng, iv, 16);
    if (c == 1) {
        iv[15] = 0xff;
    } else if (c >= 2) {
        const size_t d = (c - 2) % (2 * width); /* blocks before the carry */
        memset(iv + 8, 0xff, 8);
        iv[15] = (uint8_t)(0xff - d);
        if (c - 2 >= 2 * (size_t)width)
            memset(iv, 0xff, 8);
    }
}

/* XTS tweaks beside the random ones: tweaks whose multiplications by alpha^s
 * carry out of a qword at once: all ones, only x^127, x^63 and x^127, and the
 * top 56 bits of each qword set (every carry the kernels' widest step makes). */
enum { XTS_CASES = 5 };

static void xts_start(size_t c, uint8_t iv[16], uint64_t *rng)
{
    rng_fill(rng, iv, 16);
    if (c == 1)
        memset(iv, 0xff, 16);
    else if (c == 2 || c == 3) {
        memset(iv, 0, 16);
        iv[15] = 0x80;
        if (c == 3)
            iv[7] = 0x80;
    } else if (c == 4) {
        memset(iv + 1, 0xff, 7);
        memset(iv + 9, 0xff, 7);
    }
}

/* len bytes (a multiple of 16 but for GCM kernels); last: AES_GEN_GCM_LAST. */
static void check_kernel(const struct aes_gen_kernel_info *ki, size_t len, int last,
                         size_t src_off, size_t dst_off, int in_place, const uint8_t iv0[16],
                         uint64_t *rng)
{
    const struct mode_case *mc = &mode_cases[ki->mode_dir];
    const size_t key_len = ki->key_bits / 8, nblocks = len / 16;
    uint8_t key[32], rk_fips[15 * 16], iv_want[16], iv_got[16];
    uint8_t *plain = malloc(len + 32), *want = malloc(len), *area = malloc(len + 16 + 2 * GUARD);
    ref_key ref;
    aes_gen_key k;
    const uint8_t *rk = rk_fips;

    ck_assert(plain && want && area);
    rng_fill(rng, key, key_len);
    rng_fill(rng, plain, len + 32);
    ref_setkey(&ref, key, key_len);
    if (aes_gen_backend_table[ki->backend].key_format == AES_GEN_KF_fips) {
        /* The FIPS-197 schedule straight from the reference. */
        if (aes_gen_uses_dec_schedule(ki->mode_dir))
            ref_equivalent_inverse_keys(&ref, rk_fips);
        else
            memcpy(rk_fips, ref.rk, 16 * (size_t)(ref.rounds + 1));
    } else {
        /* A backend with its own layout: the runtime's key setup for it. */
        ck_assert_int_eq(aes_gen_setkey_backend(&k, key, key_len,
                                                aes_gen_backend_table[ki->backend].name),
                         AES_GEN_OK);
        rk = aes_gen_schedule(&k, ki->mode_dir);
    }

    memcpy(iv_want, iv0, 16);
    ref_crypt(&ref, mc->ref, mc->decrypt, mc->counter_bits, iv_want, want, plain + src_off, len);

    /* Round keys at any alignment the caller may give (struct members,
     * malloc'd copies): here at an odd offset, never 16-byte aligned.  Not
     * for the TILE-Gx code, whose AES_KEY words are 32-bit aligned. */
    static uint8_t rk_buf[15 * 16 + 16];
    if (aes_gen_backend_table[ki->backend].key_format != AES_GEN_KF_openssl) {
        uint8_t *rk_odd = rk_buf + 1 + 2 * (src_off % 7);
        memcpy(rk_odd, rk, 16 * (size_t)(ref.rounds + 1));
        rk = rk_odd;
    }

    /* GCM: the hash-key table of a GCM key; the state (a random running hash,
     * the counter, a random J0 and lengths block); the hash the reference
     * continues over the ciphertext (and the lengths block: the tag). */
    static aes_gen_gcm_key gk;
    uint8_t state[64], state_want[64], y[16], h[16];
    const uint8_t *htable = NULL;
    if (ki->shape == AES_GEN_SHAPE_gcm) {
        ck_assert_int_eq(aes_gen_gcm_setkey_backend(&gk, key, key_len,
                                                    aes_gen_backend_table[ki->backend].name),
                         AES_GEN_OK);
        htable = gk.private_htable[0][0];
        rng_fill(rng, state, sizeof state);
        memcpy(state + 16, iv0, 16);
        memcpy(state_want, state, sizeof state);
        for (int i = 0; i < 16; i++) /* the state's hash: the block reflected, little-endian */
            y[i] = state[15 - i];
        ref_encrypt_block(&ref, (const uint8_t[16]){0}, h);
        ref_ghash(h, y, mc->decrypt ? plain + src_off : want, len);
        if (last) {
            ref_ghash(h, y, state + 48, 16);
            ref_encrypt_block(&ref, state + 32, state_want + 48);
            for (int i = 0; i < 16; i++)
                state_want[48 + i] ^= y[i];
            memset(state_want + 32, 0, 16); /* J0 consumed: E(J0) not left there */
        }
        for (int i = 0; i < 16; i++) /* the tag hides E(J0) with the hash: both zeroed */
            state_want[i] = last ? 0 : y[15 - i];
        memcpy(state_want + 16, iv_want, 16);
    }

    memcpy(iv_got, iv0, 16);
    memset(area, 0xa5, len + 16 + 2 * GUARD);
    uint8_t *dst = area + GUARD + dst_off;
    const uint8_t *src = plain + src_off;
    if (in_place) {
        memcpy(dst, src, len);
        src = dst;
    }
    const struct aes_gen_kernel_args args = {.rk = rk, .iv = mc->ref == REF_ECB ? NULL : iv_got,
                                             .htable = htable, .state = state,
                                             .dst = dst, .src = src, .nblocks = nblocks,
                                             .len = len | (last ? AES_GEN_GCM_LAST : 0)};
    aes_gen_call_kernel(ki, &args);
    if (memcmp(dst, want, len) != 0)
        hexdump_diff(ki->symbol, want, dst, len);
    ck_assert_msg(memcmp(dst, want, len) == 0,
                  "%s: output differs from the reference (%zu bytes%s, src+%zu, dst+%zu, %s)",
                  ki->symbol, len, last ? ", last" : "", src_off, dst_off,
                  in_place ? "in place" : "out of place");
    if (ki->shape == AES_GEN_SHAPE_gcm)
        ck_assert_msg(memcmp(state, state_want, 64) == 0, "%s: %s after %zu bytes%s differs",
                      ki->symbol, memcmp(state, state_want, 16) ? "the hash"
                      : memcmp(state + 16, state_want + 16, 16) ? "the counter" : "the tag",
                      len, last ? " (last)" : "");
    else if (mc->ref != REF_ECB)
        ck_assert_msg(memcmp(iv_got, iv_want, 16) == 0, "%s: iv after %zu blocks differs",
                      ki->symbol, nblocks);
    for (size_t i = 0; i < len + 16 + 2 * GUARD; i++)
        if (area + i < dst || area + i >= dst + len)
            ck_assert_msg(area[i] == 0xa5, "%s writes outside dst (byte %td from dst, %zu bytes)",
                          ki->symbol, (ptrdiff_t)(area + i - dst), len);
    free(plain), free(want), free(area);
}

START_TEST(kernel_matches_reference)
{
    const struct aes_gen_kernel_info *ki = &aes_gen_registry[_i];
    uint64_t rng = test_seed() ^ (uint64_t)_i;
    static const size_t offsets[][2] = {{0, 0}, {1, 3}, {7, 0}, {0, 15}};

    if (!kernel_runs_here(ki))
        return;
    const enum ref_mode ref = mode_cases[ki->mode_dir].ref;
    const size_t nctr = ref == REF_CTR || ref == REF_GCM ? ctr_case_count(ki->width) : 1;
    /* Every alignment and both in place and not for the first two counter
     * cases; the carry cases (where a carry happens has nothing to do with
     * where the buffers are) each at one of the eight, in turn. */
    for (size_t mult = 1; mult <= 3; mult++)
        for (size_t o = 0; o < 4; o++)
            for (int in_place = 0; in_place < 2; in_place++)
                for (size_t c = 0; c < nctr; c++) {
                    if (c >= 2 && (c + mult) % 8 != 2 * o + (size_t)in_place)
                        continue;
                    if ((c + mult + o) % AES_GEN_TEST_THIN)
                        continue;
                    uint8_t iv[16];
                    ctr_start(c, ki->width, iv, &rng);
                    check_kernel(ki, 16 * mult * ki->width, 0, offsets[o][0], offsets[o][1],
                                 in_place, iv, &rng);
                }
    if (ref == REF_XTS) /* the tweaks that carry, unaligned and in place */
        for (size_t c = 1; c < XTS_CASES; c++) {
            uint8_t iv[16];
            xts_start(c, iv, &rng);
            check_kernel(ki, 16 * 2 * ki->width, 0, offsets[c % 4][0], offsets[c % 4][1],
                         (int)(c & 1), iv, &rng);
        }
    if (ki->shape != AES_GEN_SHAPE_gcm)
        return;
    /* Byte counts that end in the tail: nothing, partial blocks, a vector's
     * worth and less, up to a group; with and without the lengths block. */
    const size_t group = 16 * (size_t)ki->width;
    const size_t extra[] = {0, 1, 15, 16, 17, 31, 33, 63, 64, 65, 100, group - 1, group + 1,
                            group + 16, 2 * group - 17, 2 * group - 1};
    for (size_t e = 0; e < sizeof extra / sizeof extra[0]; e++)
        for (int last = 0; last < 2; last++)
            for (size_t o = 0; o < 4; o++) {
                if ((e + (size_t)last + o) % AES_GEN_TEST_THIN)
                    continue;
                uint8_t iv[16];
                ctr_start(rng_next(&rng) % nctr, ki->width, iv, &rng);
                check_kernel(ki, extra[e], last, offsets[o][0], offsets[o][1], (int)(o & 1), iv,
                             &rng);
            }
}
END_TEST

/* modes.c relies on this order: a group is adjacent and ends at width 1. */
START_TEST(registry_groups_widest_first)
{
    for (size_t i = 0; i < aes_gen_registry_count; i++) {
        const struct aes_gen_kernel_info *a = &aes_gen_registry[i];
        if (aes_gen_mode_is_serial(a->mode_dir))
            ck_assert_msg(a->width == 1, "%s: serial modes have width 1", a->symbol);
        if (i + 1 == aes_gen_registry_count)
            ck_assert_uint_eq(a->width, 1);
        else {
            const struct aes_gen_kernel_info *b = &aes_gen_registry[i + 1];
            const int same = a->backend == b->backend &&
                             a->mode_dir == b->mode_dir && a->key_bits == b->key_bits;
            ck_assert_msg(same ? b->width < a->width : a->width == 1,
                          "%s then %s: group order broken", a->symbol, b->symbol);
        }
    }
}
END_TEST

int main(void)
{
    printf("seed 0x%llx (set AES_GEN_TEST_SEED to change), %zu kernels\n",
           (unsigned long long)test_seed(), aes_gen_registry_count);
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("registry");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, registry_groups_widest_first);
    tcase_add_loop_test(tc, kernel_matches_reference, 0, (int)aes_gen_registry_count);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
