/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* memmem */
/* The public API against the reference, for every usable backend: all lengths
 * up to 3 x the widest kernel + 1 blocks with partial tails, in place and
 * unaligned; CTR carry and wrap; chunked calls; every error code; wiping. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#if defined(__x86_64__)
#include <cpuid.h>
#endif

static size_t backends[AES_GEN_BACKEND_COUNT], nbackends;
static const size_t key_lens[3] = {16, 24, 32};
/* The shortest key length this build generated: what tests that need one key use. */
static size_t klen;

static const char *bname(size_t b)
{
    return aes_gen_backend_table[b].name;
}

/* API call == reference call, output and iv, for one configuration. */
static void compare_once(const struct mode_case *mc, size_t b, const uint8_t *key, size_t key_len,
                         size_t len, size_t src_off, size_t dst_off, int in_place, uint64_t *rng)
{
    uint8_t *src = malloc(len + 64), *want = malloc(len + 1), *buf = malloc(len + 64);
    uint8_t iv0[16], iv_want[16], iv_got[16];
    aes_gen_key k;

    ck_assert(src && want && buf);
    rng_fill(rng, src, len + 64);
    rng_fill(rng, iv0, 16);
    memcpy(iv_want, iv0, 16);
    memcpy(iv_got, iv0, 16);
    ref_run(mc, key, key_len, iv_want, want, src + src_off, len);
    ck_assert_int_eq(aes_gen_setkey_backend(&k, key, key_len, bname(b)), AES_GEN_OK);
    uint8_t *dst = buf + dst_off;
    const uint8_t *in = src + src_off;
    if (in_place) {
        memmove(dst, in, len);
        in = dst;
    }
    ck_assert_int_eq(mode_call(mc, &k, iv_got, dst, in, len), AES_GEN_OK);
    ck_assert_msg(memcmp(dst, want, len) == 0, "%s %s AES-%zu len %zu src+%zu dst+%zu %s",
                  bname(b), mc->name, key_len * 8, len, src_off, dst_off,
                  in_place ? "in place" : "");
    if (mc->ref != REF_ECB)
        ck_assert_msg(memcmp(iv_got, iv_want, 16) == 0, "%s %s AES-%zu len %zu: iv differs",
                      bname(b), mc->name, key_len * 8, len);
    free(src), free(want), free(buf);
}

/* _i = (backend, mode, key size) */
START_TEST(api_all_lengths)
{
    const size_t b = backends[_i / (AES_GEN_MODE_COUNT * 3)];
    const struct mode_case *mc = &mode_cases[(_i / 3) % AES_GEN_MODE_COUNT];
    const size_t key_len = key_lens[_i % 3];
    uint64_t rng = test_seed() ^ (uint64_t)_i;
    uint8_t key[32];

    if (!mc->block)
        return; /* GCM: tests/test_gcm.c */
    static const size_t tails[] = {0, 1, 15};
    static const size_t offsets[][3] = {{0, 0, 0}, {0, 0, 1}, {1, 3, 0}, {5, 5, 1}};

    if (!aes_gen_backend_usable(b, (unsigned)key_len * 8)) {
        printf("SKIP %s AES-%zu: not built\n", bname(b), key_len * 8);
        return;
    }
    rng_fill(&rng, key, key_len);
    const size_t max_blocks = 3 * backend_max_width(b) + 1;
    for (size_t nblocks = 0; nblocks <= max_blocks; nblocks++)
        for (size_t t = 0; t < (mc->whole_blocks ? 1u : 3u); t++)
            for (size_t o = 0; o < 4; o++)
                compare_once(mc, b, key, key_len, 16 * nblocks + tails[t], offsets[o][0],
                             offsets[o][1], (int)offsets[o][2], &rng);
}
END_TEST

/* _i = (backend, mode): random whole-block chunks (a tail only last) == one call. */
START_TEST(api_chunked_equals_one_call)
{
    const size_t b = backends[_i / AES_GEN_MODE_COUNT];
    const struct mode_case *mc = &mode_cases[_i % AES_GEN_MODE_COUNT];
    uint64_t rng = test_seed() ^ (uint64_t)_i << 8;
    uint8_t key[32], iv_one[16], iv_chunks[16], src[1024 + 7], one[1024 + 7], chunks[1024 + 7];
    aes_gen_key k;

    if (!mc->block)
        return;

    rng_fill(&rng, key, sizeof key);
    rng_fill(&rng, src, sizeof src);
    rng_fill(&rng, iv_one, 16);
    memcpy(iv_chunks, iv_one, 16);
    const size_t len = mc->whole_blocks ? 1024 : sizeof src;
    ck_assert_int_eq(aes_gen_setkey_backend(&k, key, klen, bname(b)), AES_GEN_OK);
    ck_assert_int_eq(mode_call(mc, &k, iv_one, one, src, len), AES_GEN_OK);
    for (int round = 0; round < 20; round++) {
        uint8_t iv[16];
        memcpy(iv, iv_chunks, 16);
        for (size_t off = 0; off < len;) {
            size_t n = 16 * (rng_next(&rng) % 20);
            if (off + n > len || len - off < 16)
                n = len - off;
            ck_assert_int_eq(mode_call(mc, &k, iv, chunks + off, src + off, n), AES_GEN_OK);
            off += n;
        }
        ck_assert_msg(memcmp(one, chunks, len) == 0, "%s %s: chunked output differs",
                      bname(b), mc->name);
        if (mc->ref != REF_ECB)
            ck_assert_mem_eq(iv, iv_one, 16);
    }
}
END_TEST

static const struct {
    const char *start, *after; /* counter before, and after `blocks` blocks */
    size_t blocks;
} ctr_cases[] = {
    {"000102030405060708090a0b0c0d0eff", "000102030405060708090a0b0c0d0f00", 1},
    {"0001020304050607ffffffffffffffff", "00010203040506080000000000000000", 1},
    {"00000000000000ffffffffffffffffff", "00000000000001000000000000000001", 2},
    {"fffffffffffffffffffffffffffffffe", "00000000000000000000000000000003", 5},
    {"ffffffffffffffffffffffffffffffff", "00000000000000000000000000000000", 1},
};

/* _i = (backend, case): every length from 1 block to 5 blocks + 15 bytes across
 * the carry, against the reference, and the counter's value spelled out. */
START_TEST(ctr_carry_and_wrap)
{
    const size_t b = backends[_i / 5];
    const size_t c = (size_t)_i % 5;
    uint8_t key[32] = {0}, start[16], after[16], ctr[16];
    uint8_t src[5 * 16 + 15] = {0}, got[sizeof src], want[sizeof src];
    aes_gen_key k;
    const struct mode_case *mc = &mode_cases[AES_GEN_MD_ctr_enc];

    hex_to_bytes(ctr_cases[c].start, start, 16);
    hex_to_bytes(ctr_cases[c].after, after, 16);
    for (size_t kl = 0; kl < 3; kl++) {
        if (!aes_gen_backend_usable(b, (unsigned)key_lens[kl] * 8))
            continue;
        ck_assert_int_eq(aes_gen_setkey_backend(&k, key, key_lens[kl], bname(b)), AES_GEN_OK);
        memcpy(ctr, start, 16);
        ck_assert_int_eq(aes_gen_ctr_crypt(&k, ctr, got, src, 16 * ctr_cases[c].blocks),
                         AES_GEN_OK);
        ck_assert_msg(memcmp(ctr, after, 16) == 0, "%s: counter %s + %zu wrong", bname(b),
                      ctr_cases[c].start, ctr_cases[c].blocks);
        for (size_t len = 16; len <= sizeof src; len += AES_GEN_TEST_THIN) {
            uint8_t ref_ctr[16];
            memcpy(ctr, start, 16);
            memcpy(ref_ctr, start, 16);
            ref_run(mc, key, key_lens[kl], ref_ctr, want, src, len);
            ck_assert_int_eq(aes_gen_ctr_crypt(&k, ctr, got, src, len), AES_GEN_OK);
            ck_assert_msg(memcmp(got, want, len) == 0, "%s: CTR from %s, len %zu", bname(b),
                          ctr_cases[c].start, len);
            ck_assert_mem_eq(ctr, ref_ctr, 16);
        }
    }
}
END_TEST

START_TEST(setkey_errors_change_nothing)
{
    uint8_t key[33] = {1, 2, 3};
    aes_gen_key k, before;
    static const size_t bad_lens[] = {0, 1, 15, 17, 23, 25, 31, 33, 64};

    memset(&k, 0xa5, sizeof k);
    memcpy(&before, &k, sizeof k);
    for (size_t i = 0; i < sizeof bad_lens / sizeof bad_lens[0]; i++) {
        ck_assert_int_eq(aes_gen_setkey(&k, key, bad_lens[i]), AES_GEN_EKEYLEN);
        ck_assert_int_eq(aes_gen_setkey_backend(&k, key, bad_lens[i], "portable"),
                         AES_GEN_EKEYLEN);
    }
    ck_assert_int_eq(aes_gen_setkey(NULL, key, klen), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_setkey(&k, NULL, klen), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_setkey_backend(&k, key, klen, NULL), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_setkey_backend(&k, NULL, klen, "portable"), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_setkey_backend(&k, key, klen, "no-such-backend"), AES_GEN_EBACKEND);
    ck_assert_int_eq(aes_gen_setkey_backend(&k, key, klen, ""), AES_GEN_EBACKEND);
    /* Known names the CPU or the build cannot run are EBACKEND too. */
    for (size_t i = 0; i < AES_GEN_BACKEND_COUNT; i++)
        if (!aes_gen_backend_usable(i, (unsigned)klen * 8))
            ck_assert_int_eq(aes_gen_setkey_backend(&k, key, klen, bname(i)), AES_GEN_EBACKEND);
    /* A valid AES key size that was not generated has its own code. */
    for (size_t kl = 0; kl < 3; kl++)
        if (!aes_gen_key_size_built((unsigned)key_lens[kl] * 8)) {
            ck_assert_int_eq(aes_gen_setkey(&k, key, key_lens[kl]), AES_GEN_EKEYSIZE);
            ck_assert_int_eq(aes_gen_setkey_backend(&k, key, key_lens[kl], "portable"),
                             AES_GEN_EKEYSIZE);
        }
    ck_assert_mem_eq(&k, &before, sizeof k);
    /* A garbage (never set) key is refused by every mode function. */
    uint8_t iv[16] = {0}, buf[16] = {0};
    for (int m = 0; m < AES_GEN_MODE_COUNT; m++)
        ck_assert_int_eq(mode_call(&mode_cases[m], &k, iv, buf, buf, 16), AES_GEN_EARG);
}
END_TEST

/* _i = backend */
START_TEST(mode_errors_change_nothing)
{
    const size_t b = backends[_i];
    uint8_t key[32] = {9}, iv[16], dst[64], src[64] = {1};
    aes_gen_key k;

    ck_assert_int_eq(aes_gen_setkey_backend(&k, key, klen, bname(b)), AES_GEN_OK);
    for (int m = 0; m < AES_GEN_MODE_COUNT; m++) {
        const struct mode_case *mc = &mode_cases[m];
        const int needs_iv = mc->ref != REF_ECB;
        if (!mc->block)
            continue;
        memset(iv, 0x11, 16);
        memset(dst, 0x22, sizeof dst);
        ck_assert_int_eq(mode_call(mc, NULL, iv, dst, src, 16), AES_GEN_EARG);
        ck_assert_int_eq(mode_call(mc, &k, iv, NULL, src, 16), AES_GEN_EARG);
        ck_assert_int_eq(mode_call(mc, &k, iv, dst, NULL, 16), AES_GEN_EARG);
        if (needs_iv)
            ck_assert_int_eq(mode_call(mc, &k, NULL, dst, src, 16), AES_GEN_EARG);
        if (mc->whole_blocks) {
            ck_assert_int_eq(mode_call(mc, &k, iv, dst, src, 15), AES_GEN_ELEN);
            ck_assert_int_eq(mode_call(mc, &k, iv, dst, src, 17), AES_GEN_ELEN);
            ck_assert_int_eq(mode_call(mc, &k, iv, dst, src, 63), AES_GEN_ELEN);
        }
        /* Empty messages are fine, even without buffers, and change nothing. */
        ck_assert_int_eq(mode_call(mc, &k, iv, NULL, NULL, 0), AES_GEN_OK);
        for (int i = 0; i < 16; i++)
            ck_assert_uint_eq(iv[i], 0x11);
        for (size_t i = 0; i < sizeof dst; i++)
            ck_assert_uint_eq(dst[i], 0x22);
    }
}
END_TEST

/* aes_gen_expand_key gives the schedules a key of each backend holds, in its
 * format; bad arguments change nothing. */
START_TEST(expand_key_is_the_backends_schedule)
{
    size_t ids[AES_GEN_BACKEND_COUNT], lens[3];
    const size_t nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, 0), nk = built_key_lens(lens);
    uint64_t rng = test_seed() ^ 0xe7e7;
    uint8_t key[32], out[256 + 8];
    int checked = 0;
    for (size_t b = 0; b < nb; b++)
        for (size_t ki = 0; ki < nk; ki++) {
            const struct aes_gen_backend_info *bi = &aes_gen_backend_table[ids[b]];
            const size_t bytes = 16 * (aes_gen_rounds(lens[ki]) + 1);
            aes_gen_key k;
            rng_fill(&rng, key, sizeof key);
            if (aes_gen_setkey_backend(&k, key, lens[ki], bi->name) != AES_GEN_OK)
                continue;
            for (int dec = 0; dec < 2; dec++) {
                memset(out, 0xa5, sizeof out);
                ck_assert_int_eq(aes_gen_expand_key(aes_gen_key_formats[bi->key_format].name, key, lens[ki], dec,
                                                    out, bytes), AES_GEN_OK);
                ck_assert_msg(!memcmp(out, aes_gen_round_keys(&k, dec), bytes),
                              "%s AES-%zu: %s schedule %d differs", bi->name, 8 * lens[ki],
                              aes_gen_key_formats[bi->key_format].name, dec);
                for (size_t i = bytes; i < sizeof out; i++)
                    ck_assert_uint_eq(out[i], 0xa5);
                checked++;
            }
            aes_gen_wipe(&k);
        }
    ck_assert_int_gt(checked, 0);
    memset(out, 0x5a, sizeof out);
    ck_assert_int_eq(aes_gen_expand_key("fips", key, 16, 0, out, 175), AES_GEN_ESPACE);
    ck_assert_int_eq(aes_gen_expand_key("fips", key, 20, 0, out, sizeof out), AES_GEN_EKEYLEN);
    ck_assert_int_eq(aes_gen_expand_key("fips2", key, 16, 0, out, sizeof out), AES_GEN_EMODE);
    if (!(aes_gen_cpu_features() & AES_GEN_CPU_SSSE3)) /* its expansion needs SSSE3 */
        ck_assert_int_eq(aes_gen_expand_key("vpaes", key, 16, 0, out, sizeof out),
                         AES_GEN_EBACKEND);
    ck_assert_int_eq(aes_gen_expand_key(NULL, key, 16, 0, out, sizeof out), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_expand_key("fips", NULL, 16, 0, out, sizeof out), AES_GEN_EARG);
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_uint_eq(out[i], 0x5a);
}
END_TEST

/* The sizes an FFI caller allocates are the header's. */
START_TEST(type_sizes)
{
    ck_assert_uint_eq(aes_gen_key_size(), sizeof(aes_gen_key));
    ck_assert_uint_eq(aes_gen_stream_size(), sizeof(aes_gen_stream));
    ck_assert_uint_eq(aes_gen_gcm_key_size(), sizeof(aes_gen_gcm_key));
    ck_assert_uint_eq(aes_gen_gcm_stream_size(), sizeof(aes_gen_gcm_stream));
    ck_assert_uint_eq(aes_gen_xts_key_size(), sizeof(aes_gen_xts_key));
}
END_TEST

START_TEST(strerror_names_every_code)
{
    static const int codes[] = {AES_GEN_OK, AES_GEN_EKEYLEN, AES_GEN_ELEN, AES_GEN_EBACKEND,
                                AES_GEN_EARG, AES_GEN_EKEYSIZE, AES_GEN_ENOTCT, AES_GEN_EAUTH,
                                AES_GEN_ESTATE, AES_GEN_EKEYEQUAL, AES_GEN_EMODE,
                                AES_GEN_EPADDING, AES_GEN_ESPACE};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        ck_assert_ptr_nonnull(aes_gen_strerror(codes[i]));
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(aes_gen_strerror(codes[i]), aes_gen_strerror(codes[j]));
        ck_assert_str_ne(aes_gen_strerror(codes[i]), aes_gen_strerror(-99));
    }
}
END_TEST

START_TEST(wipe_leaves_no_key_bytes)
{
    uint8_t key[32], iv[16] = {0}, buf[16] = {0};
    static const uint8_t zero[sizeof(aes_gen_key)];
    aes_gen_key k;

    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)(0xc0 + i);
    /* portable keeps the FIPS-197 schedule, whose first bytes are the key:
     * the test can see a key (every backend's wipe zeroes all of k, below). */
    ck_assert_int_eq(aes_gen_setkey_backend(&k, key, klen, "portable"), AES_GEN_OK);
    ck_assert_ptr_nonnull(memmem(&k, sizeof k, key, klen));
    aes_gen_wipe(&k);
    ck_assert_ptr_null(memmem(&k, sizeof k, key, 4));
    ck_assert_mem_eq(&k, zero, sizeof k);
    ck_assert_ptr_null(aes_gen_key_backend(&k));
    ck_assert_ptr_null(aes_gen_round_keys(&k, 0));
    for (int m = 0; m < AES_GEN_MODE_COUNT; m++)
        ck_assert_int_eq(mode_call(&mode_cases[m], &k, iv, buf, buf, 16), AES_GEN_EARG);
    aes_gen_wipe(NULL);
}
END_TEST

/* A key set over another (any backend, any size) leaves exactly what the same
 * key set on the struct without the earlier key does (both start as the same
 * garbage: setkey reads nothing of k): no byte of the earlier key's schedules
 * stays, whatever its size or format. */
START_TEST(setkey_over_a_key_leaves_none_of_it)
{
    uint8_t old_key[32], key[32];
    for (int i = 0; i < 32; i++)
        old_key[i] = (uint8_t)(0xa0 + i), key[i] = (uint8_t)(0x11 * i + 3);
    for (size_t b1 = 0; b1 < nbackends; b1++)
        for (size_t b2 = 0; b2 < nbackends; b2++)
            for (int l1 = 0; l1 < 3; l1++)
                for (int l2 = 0; l2 < 3; l2++) {
                    if (!aes_gen_key_size_built((unsigned)key_lens[l1] * 8) ||
                        !aes_gen_key_size_built((unsigned)key_lens[l2] * 8))
                        continue;
                    aes_gen_key k, fresh;
                    memset(&k, 0xa5, sizeof k);
                    memset(&fresh, 0xa5, sizeof fresh);
                    ck_assert_int_eq(aes_gen_setkey_backend(&k, old_key, key_lens[l1],
                                                            bname(backends[b1])), AES_GEN_OK);
                    ck_assert_int_eq(aes_gen_setkey_backend(&k, key, key_lens[l2],
                                                            bname(backends[b2])), AES_GEN_OK);
                    ck_assert_int_eq(aes_gen_setkey_backend(&fresh, key, key_lens[l2],
                                                            bname(backends[b2])), AES_GEN_OK);
                    ck_assert_msg(memcmp(k.private_ks, fresh.private_ks, sizeof k.private_ks) == 0,
                                  "%s AES-%zu over %s AES-%zu: schedules differ from a fresh key's",
                                  bname(backends[b2]), key_lens[l2] * 8, bname(backends[b1]),
                                  key_lens[l1] * 8);
                    aes_gen_wipe(&k);
                    aes_gen_wipe(&fresh);
                }
}
END_TEST

START_TEST(backend_list_and_default)
{
    const char *names[16];
    const size_t n = aes_gen_backends(names, 16);
    uint8_t key[32] = {0};
    aes_gen_key k;

    ck_assert_uint_ge(n, 1);
    ck_assert_uint_eq(aes_gen_backends(NULL, 0), n);
    ck_assert_uint_eq(n, nbackends);
    int has_portable = 0;
    for (size_t i = 0; i < n; i++) {
        has_portable |= strcmp(names[i], "portable") == 0;
        ck_assert_int_eq(aes_gen_setkey_backend(&k, key, klen, names[i]), AES_GEN_OK);
        ck_assert_str_eq(aes_gen_key_backend(&k), names[i]);
    }
    ck_assert(has_portable);
    const char *first[1];
    ck_assert_uint_eq(aes_gen_backends(first, 1), n);
    ck_assert_int_eq(aes_gen_setkey(&k, key, klen), AES_GEN_OK);
    ck_assert_str_eq(aes_gen_key_backend(&k), first[0]);
    /* The default is constant-time whenever a constant-time backend runs here. */
    int any_ct = 0;
    for (size_t i = 0; i < n; i++)
        any_ct |= aes_gen_backend_table[aes_gen_backend_index(names[i])].constant_time;
    ck_assert_int_eq(aes_gen_backend_table[aes_gen_backend_index(first[0])].constant_time,
                     any_ct);
    /* With aesni built and runnable here, the T-table backend is never the default. */
    if (aes_gen_backend_usable((size_t)aes_gen_backend_index("aesni"), 0))
        ck_assert_str_ne(first[0], "portable");
    ck_assert_ptr_null(aes_gen_key_backend(NULL));
}
END_TEST

/* Whether CPUID (read here, not through the library) reports the feature and
 * AES_GEN_CPU_MASK does not take it away. */
static int cpu_reports(const char *name, int leaf, int reg, unsigned bit)
{
    unsigned r[4] = {0};
#if defined(__x86_64__)
    if ((unsigned)leaf > (unsigned)__get_cpuid_max(0, NULL))
        return 0;
    __cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
#else
    (void)leaf, (void)bit;
    return 0;
#endif
    const char *mask = getenv("AES_GEN_CPU_MASK");
    return (r[reg] & bit) && !(mask && strstr(mask, name));
}

/* The default follows the CPU: a hardware-AES backend where CPUID reports
 * AES-NI, else the fastest vector-permutation one; never a table backend
 * where either runs (ctest also runs this suite with AES-NI masked). */
START_TEST(default_follows_the_cpu)
{
    uint8_t key[32] = {0};
    size_t lens[3];
    aes_gen_key k;
    built_key_lens(lens);
    ck_assert_int_eq(aes_gen_setkey(&k, key, lens[0]), AES_GEN_OK);
    const struct aes_gen_backend_info *b =
        &aes_gen_backend_table[aes_gen_backend_index(aes_gen_key_backend(&k))];
    const int aesni = cpu_reports("aesni", 1, 2, 1u << 25), ssse3 = cpu_reports("ssse3", 1, 2, 1u << 9);
    printf("default_follows_the_cpu: CPUID aesni %d ssse3 %d, default %s\n", aesni, ssse3, b->name);
    const int generated = aes_gen_backend_table[aes_gen_backend_index("aesni")].generated &&
                          aes_gen_backend_table[aes_gen_backend_index("vpaes")].generated;
    if (!generated)
        return; /* a build without the x86 backends */
    if (aesni) {
        ck_assert_msg(b->aes_bytes > 0 && b->constant_time, "AES-NI reported, default %s", b->name);
    } else if (ssse3) {
        ck_assert_msg(!strncmp(b->name, "vpaes", 5), "no AES-NI, default %s", b->name);
    }
}
END_TEST

START_TEST(introspection)
{
    aes_gen_backend_desc d;
    const char *names[16];
    const size_t n = aes_gen_backends(names, 16);
    size_t runs = 0, i = 0;
    for (; aes_gen_backend_describe(i, &d) == AES_GEN_OK; i++) {
        ck_assert_ptr_nonnull(d.name);
        ck_assert_ptr_nonnull(d.cpu_needs);
        ck_assert(!d.runs_here || d.generated);
        if (d.runs_here) /* the usable ones, in the order aes_gen_backends lists them */
            ck_assert_str_eq(d.name, names[runs++]);
        if (strcmp(d.name, "portable") == 0 || strncmp(d.name, "ttable", 6) == 0)
            ck_assert_int_eq(d.constant_time, 0);
        if (strcmp(d.name, "aesni") == 0)
            ck_assert_str_eq(d.cpu_needs, "sse2 ssse3 aesni");
    }
    ck_assert_uint_eq(runs, n);
    ck_assert_uint_eq(i, AES_GEN_BACKEND_COUNT);
    ck_assert_int_eq(aes_gen_backend_describe(0, NULL), AES_GEN_EARG);

    uint8_t key[32] = {3};
    aes_gen_key k;
    aes_gen_mode_use use;
    ck_assert_int_eq(aes_gen_setkey(&k, key, klen), AES_GEN_OK);
    size_t m = 0;
    for (; aes_gen_mode_name(m); m++) {
        ck_assert_int_eq(aes_gen_key_mode_use(&k, aes_gen_mode_name(m), &use), AES_GEN_OK);
        ck_assert_ptr_nonnull(use.backend);
        if (aes_gen_mode_optional((enum aes_gen_mode_dir)m) && use.nwidths == 0)
            continue; /* GCM and XTS on the CTR and ECB kernels and the runtime */
        ck_assert_uint_ge(use.nwidths, 1);
        ck_assert_uint_eq(use.widths[use.nwidths - 1], 1);
        for (size_t w = 1; w < use.nwidths; w++)
            ck_assert_uint_gt(use.widths[w - 1], use.widths[w]);
        /* The registry agrees: the key's range for the mode starts at that backend. */
        ck_assert_str_eq(use.backend,
                         aes_gen_backend_table[aes_gen_registry[k.private_kernels[m][0]].backend].name);
        if (!aes_gen_modes[m].parallel && strncmp(aes_gen_key_backend(&k), "vaes", 4) == 0)
            ck_assert_msg(!strncmp(use.backend, "aesni", 5), /* a vector key's serial modes */
                          "%s: the serial mode %s on %s", aes_gen_key_backend(&k),
                          aes_gen_mode_name(m), use.backend);
    }
    ck_assert_uint_eq(m, AES_GEN_MODE_COUNT);
    ck_assert_int_eq(aes_gen_key_mode_use(&k, "no_such_mode", &use), AES_GEN_EMODE);
    ck_assert_int_eq(aes_gen_key_mode_use(NULL, "ctr_enc", &use), AES_GEN_EARG);
    aes_gen_wipe(&k);
    ck_assert_int_eq(aes_gen_key_mode_use(&k, "ctr_enc", &use), AES_GEN_EARG);
}
END_TEST

/* Key setup's stack temporaries are wiped: run it in a frame of its own, then
 * look through the stack it used (the same depth, from a sibling call) for
 * a round key.  A frame's leftovers are what the next call at that depth
 * finds in its uninitialised locals. */
static __attribute__((noinline)) void setkey_in_own_frame(aes_gen_key *k, const uint8_t *key,
                                                          const char *backend)
{
    ck_assert_int_eq(aes_gen_setkey_backend(k, key, 16, backend), AES_GEN_OK);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
static __attribute__((noinline)) size_t stack_holds(const uint8_t needle[16])
{
    volatile uint8_t area[32768]; /* uninitialised on purpose: the leftovers */
    size_t hits = 0;
    for (size_t i = 0; i + 16 <= sizeof area; i++) {
        size_t j = 0;
        while (j < 16 && area[i + j] == needle[j])
            j++;
        hits += j == 16;
    }
    return hits;
}
#pragma GCC diagnostic pop

/* Zeroes the stack below the caller: what the test's own helpers (the
 * reference's key expansion) left there must not count. */
static __attribute__((noinline)) void stack_scrub(void)
{
    volatile uint8_t area[32768];
    for (size_t i = 0; i < sizeof area; i++)
        area[i] = 0;
}

START_TEST(setkey_leaves_no_round_keys_on_the_stack)
{
    static const char *const names[] = {"portable", "vpaes", "aesni"};
    static aes_gen_key k; /* not on the stack */
    uint8_t key[16];
    ref_key ref;
    for (int i = 0; i < 16; i++)
        key[i] = (uint8_t)(0x3c ^ (17 * i));
    ref_setkey(&ref, key, 16);
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        if (!aes_gen_key_size_built(128) ||
            !aes_gen_backend_usable((size_t)aes_gen_backend_index(names[n]), 128))
            continue;
        /* Once first: the dynamic linker's lazy binding saves the vector
         * registers on the stack at each first call through the PLT (memcpy,
         * memset), which is not the library's to wipe (link with -z now to
         * avoid it). */
        setkey_in_own_frame(&k, key, names[n]);
        stack_scrub();
        setkey_in_own_frame(&k, key, names[n]);
        /* Round key 5 as the FIPS-197 schedule has it, and in the key's format. */
        uint8_t theirs[16];
        memcpy(theirs, aes_gen_round_keys(&k, 0) + 5 * 16, 16);
        ck_assert_msg(stack_holds(ref.rk[5]) == 0, "%s: the FIPS round key 5 is on the stack", names[n]);
        ck_assert_msg(stack_holds(theirs) == 0, "%s: its round key 5 is on the stack", names[n]);
        aes_gen_wipe(&k);
    }
}
END_TEST

START_TEST(round_keys_match_reference)
{
    uint64_t rng = test_seed();
    for (size_t kl = 0; kl < 3; kl++) {
        uint8_t key[32], dec[15 * 16];
        aes_gen_key k;
        ref_key ref;
        if (!aes_gen_key_size_built((unsigned)key_lens[kl] * 8))
            continue;
        /* portable's kernels take the FIPS-197 layout (vpaes* and tilegx-emu their own). */
        ck_assert_int_eq(aes_gen_setkey_backend(&k, (rng_fill(&rng, key, 32), key), key_lens[kl],
                                                "portable"),
                         AES_GEN_OK);
        ref_setkey(&ref, key, key_lens[kl]);
        ref_equivalent_inverse_keys(&ref, dec);
        const size_t n = 16 * (size_t)(ref.rounds + 1);
        ck_assert_mem_eq(aes_gen_round_keys(&k, 0), ref.rk, n);
        ck_assert_mem_eq(aes_gen_round_keys(&k, 1), dec, n);
    }
}
END_TEST

int main(void)
{
    nbackends = usable_backends(backends, AES_GEN_BACKEND_COUNT, 0);
    size_t built[3];
    if (built_key_lens(built) == 0)
        return 1;
    klen = built[0];
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, api_all_lengths, 0, (int)(nbackends * AES_GEN_MODE_COUNT * 3));
    tcase_add_loop_test(tc, api_chunked_equals_one_call, 0, (int)(nbackends * AES_GEN_MODE_COUNT));
    tcase_add_loop_test(tc, ctr_carry_and_wrap, 0, (int)(nbackends * 5));
    tcase_add_loop_test(tc, mode_errors_change_nothing, 0, (int)nbackends);
    tcase_add_test(tc, setkey_errors_change_nothing);
    tcase_add_test(tc, strerror_names_every_code);
    tcase_add_test(tc, type_sizes);
    tcase_add_test(tc, expand_key_is_the_backends_schedule);
    tcase_add_test(tc, wipe_leaves_no_key_bytes);
    tcase_add_test(tc, setkey_over_a_key_leaves_none_of_it);
    tcase_add_test(tc, backend_list_and_default);
    tcase_add_test(tc, round_keys_match_reference);
    tcase_add_test(tc, default_follows_the_cpu);
    tcase_add_test(tc, setkey_leaves_no_round_keys_on_the_stack);
    tcase_add_test(tc, introspection);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
