/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Guard pages: every backend, mode and key size at lengths 1 to 300 and,
 * beyond, around one, two and three groups of every backend's widest kernel
 * (whole blocks where the mode needs them), with the source and destination
 * ending exactly at an inaccessible page and, again, starting right after
 * one, in place and not; the key structure and the iv end at an inaccessible
 * page too.  A read or write past either end faults; the bytes of the
 * destination's page outside dst must keep their pattern; the output must
 * match the reference.  GCM the same way, its IV, AAD, tag and key
 * structure at guard pages too, decrypting what it encrypted.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

enum { SHORT_LEN = 300 };

/* The lengths to try: every one up to SHORT_LEN, then a few around each
 * multiple (1, 2, 3) of each backend's widest group; returns the count. */
static size_t lengths(size_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t len = 1; len <= SHORT_LEN; len++)
        out[n++] = len;
    static const int around[] = {-17, -1, 0, 1, 15, 16, 17, 31};
    for (size_t b = 0; b < AES_GEN_BACKEND_COUNT; b++) {
        const size_t group = 16 * (size_t)backend_max_width(b);
        for (size_t m = 1; m <= 3; m++)
            for (size_t a = 0; a < sizeof around / sizeof around[0]; a++) {
                const ptrdiff_t len = (ptrdiff_t)(m * group) + around[a];
                int seen = len <= SHORT_LEN;
                for (size_t i = SHORT_LEN; i < n && !seen; i++)
                    seen = out[i] == (size_t)len;
                if (!seen) {
                    ck_assert_uint_lt(n, cap);
                    out[n++] = (size_t)len;
                }
            }
    }
    return n;
}

/* area accessible bytes between two PROT_NONE pages. */
struct guarded {
    uint8_t *lo; /* first accessible byte */
    size_t area;
};

static struct guarded guarded_area(size_t max_len)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), area = (max_len + page) / page * page;
    uint8_t *m = mmap(NULL, area + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    ck_assert_int_eq(mprotect(m, page, PROT_NONE), 0);
    ck_assert_int_eq(mprotect(m + page + area, page, PROT_NONE), 0);
    return (struct guarded){m + page, area};
}

/* len bytes ending at the upper guard page, or starting at the lower one. */
static uint8_t *place(struct guarded g, size_t len, int at_end)
{
    return at_end ? g.lo + g.area - len : g.lo;
}

START_TEST(guard_pages)
{
    const struct mode_case *mc = &mode_cases[_i];
    if (!mc->block)
        return; /* GCM: gcm_guard_pages */
    static size_t lens_to_try[SHORT_LEN + 24 * AES_GEN_BACKEND_COUNT];
    const size_t nlen = lengths(lens_to_try, sizeof lens_to_try / sizeof lens_to_try[0]);
    size_t max_len = 0;
    for (size_t i = 0; i < nlen; i++)
        max_len = lens_to_try[i] > max_len ? lens_to_try[i] : max_len;
    struct guarded src_area = guarded_area(max_len), dst_area = guarded_area(max_len),
                   key_area = guarded_area(sizeof(aes_gen_key)), iv_area = guarded_area(16);
    /* The key structure and the iv end where their page ends. */
    aes_gen_key *k = (aes_gen_key *)(key_area.lo + key_area.area - sizeof(aes_gen_key));
    uint8_t *iv = iv_area.lo + iv_area.area - 16;
    uint8_t *src = malloc(max_len), *want = malloc(max_len);
    size_t lens[3], ids[AES_GEN_BACKEND_COUNT];
    const size_t nk = built_key_lens(lens);
    uint64_t rng = test_seed();
    long calls = 0;
    ck_assert(src && want);
    for (size_t ki = 0; ki < nk; ki++) {
        uint8_t key[32], iv0[16], iv_want[16];
        rng_fill(&rng, key, sizeof key);
        rng_fill(&rng, iv0, sizeof iv0);
        const size_t nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, (unsigned)(8 * lens[ki]));
        for (size_t li = 0; li < nlen; li++) {
            const size_t len = lens_to_try[li];
            if (mc->whole_blocks && len % 16)
                continue;
            rng_fill(&rng, src, len);
            memcpy(iv_want, iv0, 16);
            ref_run(mc, key, lens[ki], iv_want, want, src, len);
            for (size_t b = 0; b < nb; b++) {
                const char *name = aes_gen_backend_table[ids[b]].name;
                if (aes_gen_setkey_backend(k, key, lens[ki], name) != AES_GEN_OK)
                    ck_abort_msg("%s: setkey failed", name);
                for (int placement = 0; placement < 4; placement++) {
                    const int at_end = placement & 1, in_place = placement >> 1;
                    uint8_t *d = place(dst_area, len, at_end);
                    memset(dst_area.lo, 0xa5, dst_area.area);
                    const uint8_t *s = d;
                    if (in_place)
                        memcpy(d, src, len);
                    else
                        s = memcpy(place(src_area, len, !at_end), src, len);
                    memcpy(iv, iv0, 16);
                    if (mode_call(mc, k, iv, d, s, len) != AES_GEN_OK)
                        ck_abort_msg("%s %s: call failed", name, mc->name);
                    calls++;
                    if (memcmp(d, want, len) || (mc->ref != REF_ECB && memcmp(iv, iv_want, 16)))
                        ck_abort_msg("%s %s AES-%zu len %zu placement %d: wrong output", name,
                                     mc->name, 8 * lens[ki], len, placement);
                    for (size_t i = 0; i < dst_area.area; i++)
                        if ((dst_area.lo + i < d || dst_area.lo + i >= d + len) &&
                            dst_area.lo[i] != 0xa5)
                            ck_abort_msg("%s %s len %zu placement %d: wrote byte %td outside dst",
                                         name, mc->name, len, placement,
                                         (ptrdiff_t)(dst_area.lo + i - d));
                }
                aes_gen_wipe(k);
            }
        }
    }
    ck_assert_int_gt(calls, 0);
    free(src), free(want);
}
END_TEST

/* Every byte of the area outside [d, d + len) still 0xa5. */
static void untouched_outside(struct guarded a, const uint8_t *d, size_t len, const char *who,
                              size_t placement)
{
    for (size_t i = 0; i < a.area; i++)
        if ((a.lo + i < d || a.lo + i >= d + len) && a.lo[i] != 0xa5)
            ck_abort_msg("%s len %zu placement %zu: wrote byte %td outside dst", who, len,
                         placement, (ptrdiff_t)(a.lo + i - d));
}

/* _i: the key size. */
START_TEST(gcm_guard_pages)
{
    size_t lens[3], ids[AES_GEN_BACKEND_COUNT];
    if ((size_t)_i >= built_key_lens(lens))
        return;
    const size_t key_len = lens[_i];
    static size_t lens_to_try[SHORT_LEN + 24 * AES_GEN_BACKEND_COUNT];
    const size_t nlen = lengths(lens_to_try, sizeof lens_to_try / sizeof lens_to_try[0]);
    size_t max_len = 0;
    for (size_t i = 0; i < nlen; i++)
        max_len = lens_to_try[i] > max_len ? lens_to_try[i] : max_len;
    struct guarded src_area = guarded_area(max_len), dst_area = guarded_area(max_len),
                   key_area = guarded_area(sizeof(aes_gen_gcm_key)), iv_area = guarded_area(12),
                   aad_area = guarded_area(13), tag_area = guarded_area(16);
    aes_gen_gcm_key *gk = (aes_gen_gcm_key *)(key_area.lo + key_area.area - sizeof *gk);
    uint8_t *iv = iv_area.lo + iv_area.area - 12, *aad = aad_area.lo + aad_area.area - 13;
    uint8_t *tag = tag_area.lo + tag_area.area - 16;
    uint8_t *src = malloc(max_len), *want = malloc(max_len), want_tag[16], key[32];
    ck_assert(src && want);
    uint64_t rng = test_seed() ^ (uint64_t)_i << 24;
    long calls = 0;
    const size_t nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, (unsigned)(8 * key_len));
    for (size_t li = 0; li < nlen; li++) {
        const size_t len = lens_to_try[li];
        rng_fill(&rng, key, sizeof key);
        rng_fill(&rng, iv, 12);
        rng_fill(&rng, aad, 13);
        rng_fill(&rng, src, len);
        ref_key rk;
        ref_setkey(&rk, key, key_len);
        ref_gcm(&rk, 0, iv, 12, aad, 13, want, src, len, want_tag);
        for (size_t b = 0; b < nb; b++) {
            const char *name = aes_gen_backend_table[ids[b]].name;
            char who[64];
            snprintf(who, sizeof who, "%s gcm AES-%zu", name, 8 * key_len);
            ck_assert_int_eq(aes_gen_gcm_setkey_backend(gk, key, key_len, name), AES_GEN_OK);
            for (size_t placement = 0; placement < 4; placement++) {
                const int at_end = placement & 1, in_place = placement >> 1;
                uint8_t *d = place(dst_area, len, at_end);
                memset(dst_area.lo, 0xa5, dst_area.area);
                const uint8_t *s = in_place ? memcpy(d, src, len)
                                            : memcpy(place(src_area, len, !at_end), src, len);
                ck_assert_int_eq(aes_gen_gcm_encrypt(gk, iv, 12, aad, 13, d, s, len, tag, 16),
                                 AES_GEN_OK);
                calls++;
                if (memcmp(d, want, len) || memcmp(tag, want_tag, 16))
                    ck_abort_msg("%s len %zu placement %zu: wrong output", who, len, placement);
                untouched_outside(dst_area, d, len, who, placement);
                /* Back: the ciphertext moved to the other area unless in place. */
                const uint8_t *c = in_place ? d : memcpy(place(src_area, len, !at_end), d, len);
                if (!in_place)
                    memset(dst_area.lo, 0xa5, dst_area.area);
                ck_assert_int_eq(aes_gen_gcm_decrypt(gk, iv, 12, aad, 13, d, c, len, tag, 16),
                                 AES_GEN_OK);
                if (memcmp(d, src, len))
                    ck_abort_msg("%s len %zu placement %zu: decryption differs", who, len,
                                 placement);
                untouched_outside(dst_area, d, len, who, placement);
            }
            aes_gen_gcm_wipe(gk);
        }
    }
    ck_assert_int_gt(calls, 0);
    free(src), free(want);
}
END_TEST

/* _i: the key size.  XTS data units from 16 bytes (ciphertext stealing at
 * every partial length) at the guard pages, the key and tweak at page ends. */
START_TEST(xts_guard_pages)
{
    size_t lens[3], ids[AES_GEN_BACKEND_COUNT];
    if ((size_t)_i >= built_key_lens(lens))
        return;
    const size_t key_len = 2 * lens[_i];
    static size_t lens_to_try[SHORT_LEN + 24 * AES_GEN_BACKEND_COUNT];
    const size_t nlen = lengths(lens_to_try, sizeof lens_to_try / sizeof lens_to_try[0]);
    size_t max_len = 0;
    for (size_t i = 0; i < nlen; i++)
        max_len = lens_to_try[i] > max_len ? lens_to_try[i] : max_len;
    struct guarded src_area = guarded_area(max_len), dst_area = guarded_area(max_len),
                   key_area = guarded_area(sizeof(aes_gen_xts_key)), tw_area = guarded_area(16);
    aes_gen_xts_key *xk = (aes_gen_xts_key *)(key_area.lo + key_area.area - sizeof *xk);
    uint8_t *tw = tw_area.lo + tw_area.area - 16;
    uint8_t *src = malloc(max_len), *want = malloc(max_len), key[64];
    ck_assert(src && want);
    uint64_t rng = test_seed() ^ (uint64_t)_i << 28;
    long calls = 0;
    const size_t nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, (unsigned)(4 * key_len));
    for (size_t li = 0; li < nlen; li++) {
        const size_t len = lens_to_try[li];
        if (len < 16)
            continue;
        rng_fill(&rng, key, sizeof key);
        rng_fill(&rng, tw, 16);
        rng_fill(&rng, src, len);
        ref_xts(key, key_len, 0, tw, want, src, len);
        for (size_t b = 0; b < nb; b++) {
            const char *name = aes_gen_backend_table[ids[b]].name;
            char who[64];
            snprintf(who, sizeof who, "%s xts AES-%zu", name, 4 * key_len);
            ck_assert_int_eq(aes_gen_xts_setkey_backend(xk, key, key_len, name), AES_GEN_OK);
            for (size_t placement = 0; placement < 4; placement++) {
                const int at_end = placement & 1, in_place = placement >> 1;
                uint8_t *d = place(dst_area, len, at_end);
                memset(dst_area.lo, 0xa5, dst_area.area);
                const uint8_t *s = in_place ? memcpy(d, src, len)
                                            : memcpy(place(src_area, len, !at_end), src, len);
                ck_assert_int_eq(aes_gen_xts_encrypt(xk, tw, d, s, len), AES_GEN_OK);
                calls++;
                if (memcmp(d, want, len))
                    ck_abort_msg("%s len %zu placement %zu: wrong output", who, len, placement);
                untouched_outside(dst_area, d, len, who, placement);
                const uint8_t *c = in_place ? d : memcpy(place(src_area, len, !at_end), d, len);
                if (!in_place)
                    memset(dst_area.lo, 0xa5, dst_area.area);
                ck_assert_int_eq(aes_gen_xts_decrypt(xk, tw, d, c, len), AES_GEN_OK);
                if (memcmp(d, src, len))
                    ck_abort_msg("%s len %zu placement %zu: decryption differs", who, len,
                                 placement);
                untouched_outside(dst_area, d, len, who, placement);
            }
            aes_gen_xts_wipe(xk);
        }
    }
    ck_assert_int_gt(calls, 0);
    free(src), free(want);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("guard");
    TCase *tc = tcase_create("pages");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, guard_pages, 0, AES_GEN_MODE_COUNT);
    tcase_add_loop_test(tc, gcm_guard_pages, 0, 3);
    tcase_add_loop_test(tc, xts_guard_pages, 0, 3);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
