/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AES-XTS through the API, for every usable backend: NIST's CAVP XTSGenAES
 * vectors (both tweak formats: a 128-bit hex string and a data unit
 * sequence number; every byte-whole data-unit length in them); against the
 * reference (tests/ref/ref_xts.c) and, for AES-128 and AES-256, OpenSSL's
 * EVP, at every length 16..600, random ones to 4096 and a few beyond, at
 * offsets, in place, with guard bytes around dst; the sector helper against
 * one call per sector; errors that change nothing.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#if defined(HAVE_OPENSSL)
#include <openssl/evp.h>
#endif

static size_t backends[AES_GEN_BACKEND_COUNT], nbackends;

static const char *bname(size_t b)
{
    return aes_gen_backend_table[b].name;
}

static void xts_key(aes_gen_xts_key *xk, size_t b, const uint8_t *key, size_t key_len)
{
    ck_assert_int_eq(aes_gen_xts_setkey_backend(xk, key, key_len, bname(b)), AES_GEN_OK);
}

/* --- CAVP ----------------------------------------------------------------------- */

static const char *vectors_dir(void)
{
    const char *env = getenv("AES_GEN_XTS_VECTORS");
    return env ? env : "/usr/lib/python3/dist-packages/cryptography_vectors/ciphers/AES/XTS";
}

struct cavp_counts {
    long run, skipped;
};

/* Every case of one file on backend b (and on the reference). */
static struct cavp_counts run_file(const char *path, size_t b)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s: cannot open (python3-cryptography-vectors)", path);
    char line[4096];
    uint8_t key[64], tw[16], pt[64], ct[64], out[64];
    size_t key_len = 0, pt_len = 0, ct_len = 0;
    long bits = 0;
    int decrypt = 0, have_tw = 0, have_pt = 0, have_ct = 0; /* PT and CT in either order */
    struct cavp_counts n = {0, 0};
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        size_t len;
        if (!strcmp(line, "[ENCRYPT]") || !strcmp(line, "[DECRYPT]"))
            decrypt = line[1] == 'D';
        else if (!strncmp(line, "DataUnitLen = ", 14))
            bits = atol(line + 14), have_tw = have_pt = have_ct = 0;
        else if ((len = cavp_field(line, "Key", key, sizeof key)) != (size_t)-1)
            key_len = len;
        else if (cavp_field(line, "i", tw, sizeof tw) == 16)
            have_tw = 1;
        else if (!strncmp(line, "DataUnitSeqNumber = ", 20)) {
            const unsigned long long seq = strtoull(line + 20, NULL, 10);
            memset(tw, 0, 16); /* the sequence number, little-endian, as the tweak */
            for (int i = 0; i < 8; i++)
                tw[i] = (uint8_t)(seq >> 8 * i);
            have_tw = 1;
        } else if ((len = cavp_field(line, "PT", pt, sizeof pt)) != (size_t)-1)
            pt_len = len, have_pt = 1;
        else if ((len = cavp_field(line, "CT", ct, sizeof ct)) != (size_t)-1)
            ct_len = len, have_ct = 1;
        if (have_pt && have_ct) {
            have_pt = have_ct = 0;
            ck_assert(have_tw && key_len && pt_len == ct_len);
            if (bits % 8) { /* a data unit of whole bits: no byte API takes it (nor OpenSSL) */
                n.skipped++;
                continue;
            }
            ck_assert_uint_eq((size_t)bits / 8, pt_len);
            aes_gen_xts_key xk;
            xts_key(&xk, b, key, key_len);
            const int r = decrypt ? aes_gen_xts_decrypt(&xk, tw, out, ct, ct_len)
                                  : aes_gen_xts_encrypt(&xk, tw, out, pt, pt_len);
            ck_assert_int_eq(r, AES_GEN_OK);
            ck_assert_msg(!memcmp(out, decrypt ? pt : ct, pt_len), "%s: %s, case %ld (%ld bits)",
                          bname(b), path, n.run + n.skipped + 1, bits);
            ref_xts(key, key_len, decrypt, tw, out, decrypt ? ct : pt, pt_len);
            ck_assert_msg(!memcmp(out, decrypt ? pt : ct, pt_len), "the reference: %s", path);
            aes_gen_xts_wipe(&xk);
            n.run++;
        }
    }
    fclose(f);
    return n;
}

START_TEST(cavp_vectors)
{
    static const char *const files[4] = {
        "tweak-128hexstr/XTSGenAES128.rsp", "tweak-128hexstr/XTSGenAES256.rsp",
        "tweak-dataunitseqno/XTSGenAES128.rsp", "tweak-dataunitseqno/XTSGenAES256.rsp"};
    char path[512];
    const size_t b = backends[_i / 4];
    const unsigned bits = _i % 2 ? 256 : 128;
    if (!aes_gen_key_size_built(bits))
        return;
    snprintf(path, sizeof path, "%s/%s", vectors_dir(), files[_i % 4]);
    const struct cavp_counts n = run_file(path, b);
    ck_assert_int_gt(n.run, 0);
    printf("cavp %s %s: %ld cases (%ld of a bit length skipped)\n", bname(b), files[_i % 4],
           n.run, n.skipped);
}
END_TEST

/* --- against the reference and OpenSSL ---------------------------------------------- */

#if defined(HAVE_OPENSSL)
static void evp_xts(const uint8_t *key, size_t key_len, int decrypt, const uint8_t tw[16],
                    uint8_t *dst, const uint8_t *src, size_t len)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0, fin = 0;
    const EVP_CIPHER *c = key_len == 32 ? EVP_aes_128_xts() : EVP_aes_256_xts();
    ck_assert(ctx && EVP_CipherInit_ex(ctx, c, NULL, key, tw, !decrypt));
    ck_assert(EVP_CipherUpdate(ctx, dst, &outl, src, (int)len));
    ck_assert(EVP_CipherFinal_ex(ctx, dst + outl, &fin));
    EVP_CIPHER_CTX_free(ctx);
}
#endif

enum { GUARD = 64 };

/* One data unit both ways on backend b against the reference (and OpenSSL
 * where it has the key size), at offset off, in place or not. */
static void compare_once(size_t b, const uint8_t *key, size_t key_len, const uint8_t tw[16],
                         const uint8_t *src, size_t len, size_t off, int in_place)
{
    aes_gen_xts_key xk;
    uint8_t *want = malloc(len), *area = malloc(len + 2 * GUARD), *back = malloc(len);
    ck_assert(want && area && back);
    ref_xts(key, key_len, 0, tw, want, src, len);
#if defined(HAVE_OPENSSL)
    if (key_len != 48) {
        evp_xts(key, key_len, 0, tw, back, src, len);
        ck_assert_msg(!memcmp(back, want, len), "the reference differs from OpenSSL (len %zu)",
                      len);
    }
#endif
    xts_key(&xk, b, key, key_len);
    for (int decrypt = 0; decrypt < 2; decrypt++) {
        const uint8_t *from = decrypt ? want : src, *expect = decrypt ? src : want;
        uint8_t *dst = area + off;
        memset(area, 0xa5, len + 2 * GUARD);
        const uint8_t *in = from;
        if (in_place) {
            memcpy(dst, from, len);
            in = dst;
        }
        const int r = decrypt ? aes_gen_xts_decrypt(&xk, tw, dst, in, len)
                              : aes_gen_xts_encrypt(&xk, tw, dst, in, len);
        ck_assert_int_eq(r, AES_GEN_OK);
        ck_assert_msg(!memcmp(dst, expect, len), "%s AES-%zu XTS %s: differs from the reference "
                      "(len %zu, off %zu%s)", bname(b), 4 * key_len, decrypt ? "dec" : "enc", len,
                      off, in_place ? ", in place" : "");
        for (size_t i = 0; i < off; i++)
            ck_assert_uint_eq(area[i], 0xa5);
        for (size_t i = off + len; i < len + 2 * GUARD; i++)
            ck_assert_msg(area[i] == 0xa5, "%s: byte %zu after dst written", bname(b),
                          i - off - len);
    }
    aes_gen_xts_wipe(&xk);
    free(want), free(area), free(back);
}

/* _i: (backend, key size) */
START_TEST(random_data_units)
{
    static const size_t key_lens[3] = {32, 48, 64};
    const size_t b = backends[_i / 3], key_len = key_lens[_i % 3];
    if (!aes_gen_key_size_built((unsigned)key_len * 4))
        return;
    uint64_t rng = test_seed() ^ (uint64_t)_i << 20;
    enum { MAX = 4096 + 16 * 64 + 15 };
    uint8_t *src = malloc(MAX + 15), key[64], tw[16]; /* MAX bytes from src + 0..15 */
    ck_assert(src);
    rng_fill(&rng, src, MAX + 15);
    for (size_t len = 16; len <= MAX;
         len = len < 600 ? len + AES_GEN_TEST_THIN : len + 1 + rng_next(&rng) % 997) {
        rng_fill(&rng, key, sizeof key);
        rng_fill(&rng, tw, sizeof tw);
        const uint64_t r = rng_next(&rng);
        compare_once(b, key, key_len, tw, src + r % 16, len, r / 16 % GUARD, (int)(r >> 40 & 1));
    }
    free(src);
}
END_TEST

/* Many blocks: every tweak position of a wide kernel and many reductions. */
START_TEST(long_data_units)
{
    const size_t b = backends[_i];
    uint64_t rng = test_seed() ^ 0x7757;
    const size_t len = 65536 + 16 * 3 + 5;
    uint8_t *src = malloc(len), key[64], tw[16];
    ck_assert(src);
    rng_fill(&rng, src, len);
    size_t lens[3];
    const size_t nk = built_key_lens(lens);
    for (size_t k = 0; k < nk; k++) {
        rng_fill(&rng, key, sizeof key);
        memset(tw, 0xff, sizeof tw); /* any value: the tweak key encrypts it */
        compare_once(b, key, 2 * lens[k], tw, src, len, 3, 0);
        compare_once(b, key, 2 * lens[k], tw, src, len - 5, 0, 1);
    }
    free(src);
}
END_TEST

static int sectors(int decrypt, const aes_gen_xts_key *xk, uint64_t first, size_t size,
                   void *dst, const void *src, size_t len)
{
    return decrypt ? aes_gen_xts_decrypt_sectors(xk, first, size, dst, src, len)
                   : aes_gen_xts_encrypt_sectors(xk, first, size, dst, src, len);
}

START_TEST(sectors_are_consecutive_units)
{
    const size_t b = backends[_i];
    size_t lens[3];
    built_key_lens(lens);
    uint64_t rng = test_seed() ^ 0x5ec7;
    static uint8_t src[4 * 520], got[4 * 520], want[4 * 520];
    uint8_t key[64];
    rng_fill(&rng, key, sizeof key);
    rng_fill(&rng, src, sizeof src);
    aes_gen_xts_key xk;
    xts_key(&xk, b, key, 2 * lens[0]);
    static const size_t sizes[] = {512, 520, 16, 4 * 520};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t size = sizes[s], n = sizeof src / size;
        const uint64_t first = s == 2 ? UINT64_MAX - (n - 1) : 0x1122334455667788ull + s;
        for (int decrypt = 0; decrypt < 2; decrypt++) {
            for (size_t i = 0; i < n; i++) {
                uint8_t tw[16] = {0};
                const uint64_t sector = first + i;
                for (int j = 0; j < 8; j++)
                    tw[j] = (uint8_t)(sector >> 8 * j);
                ck_assert_int_eq(decrypt ? aes_gen_xts_decrypt(&xk, tw, want + i * size,
                                                               src + i * size, size)
                                         : aes_gen_xts_encrypt(&xk, tw, want + i * size,
                                                               src + i * size, size),
                                 AES_GEN_OK);
            }
            ck_assert_int_eq(sectors(decrypt, &xk, first, size, got, src, n * size), AES_GEN_OK);
            ck_assert_mem_eq(got, want, n * size);
            memcpy(got, src, n * size); /* in place */
            ck_assert_int_eq(sectors(decrypt, &xk, first, size, got, got, n * size), AES_GEN_OK);
            ck_assert_mem_eq(got, want, n * size);
        }
    }
    /* The last sector number would wrap; a length not of whole sectors. */
    memset(got, 0x5a, sizeof got);
    ck_assert_int_eq(aes_gen_xts_encrypt_sectors(&xk, UINT64_MAX, 512, got, src, 1024),
                     AES_GEN_ELEN);
    ck_assert_int_eq(aes_gen_xts_encrypt_sectors(&xk, 0, 512, got, src, 1000), AES_GEN_ELEN);
    ck_assert_int_eq(aes_gen_xts_encrypt_sectors(&xk, 0, 15, got, src, 30), AES_GEN_ELEN);
    for (size_t i = 0; i < sizeof got; i++)
        ck_assert_uint_eq(got[i], 0x5a);
    aes_gen_xts_wipe(&xk);
}
END_TEST

START_TEST(errors_change_nothing)
{
    aes_gen_xts_key xk, copy;
    uint8_t key[64], tw[16] = {1}, buf[64], before[64];
    for (int i = 0; i < 64; i++)
        key[i] = (uint8_t)(i * 7 + 1);
    memset(buf, 0x3c, sizeof buf);
    memcpy(before, buf, sizeof buf);
    size_t lens[3];
    const size_t nk = built_key_lens(lens);
    /* Equal halves, for every size; wrong lengths; NULLs.  The key is untouched. */
    memset(&xk, 0x77, sizeof xk);
    memcpy(&copy, &xk, sizeof xk);
    for (size_t k = 0; k < nk; k++) {
        uint8_t same[64];
        memcpy(same, key, lens[k]);
        memcpy(same + lens[k], key, lens[k]);
        ck_assert_int_eq(aes_gen_xts_setkey(&xk, same, 2 * lens[k]), AES_GEN_EKEYEQUAL);
    }
    ck_assert_int_eq(aes_gen_xts_setkey(&xk, key, 16), AES_GEN_EKEYLEN);
    ck_assert_int_eq(aes_gen_xts_setkey(&xk, key, 33), AES_GEN_EKEYLEN);
    ck_assert_int_eq(aes_gen_xts_setkey(&xk, NULL, 32), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_xts_setkey(NULL, key, 32), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_xts_setkey_backend(&xk, key, 2 * lens[0], "nosuch"),
                     AES_GEN_EBACKEND);
    ck_assert_mem_eq(&xk, &copy, sizeof xk);
    ck_assert_str_ne(aes_gen_strerror(AES_GEN_EKEYEQUAL), aes_gen_strerror(12345));
    /* A set key: a data unit under 16 bytes, NULLs; then a wiped key. */
    ck_assert_int_eq(aes_gen_xts_setkey(&xk, key, 2 * lens[0]), AES_GEN_OK);
    for (size_t len = 0; len < 16; len++) {
        ck_assert_int_eq(aes_gen_xts_encrypt(&xk, tw, buf, buf, len), AES_GEN_ELEN);
        ck_assert_int_eq(aes_gen_xts_decrypt(&xk, tw, buf, buf, len), AES_GEN_ELEN);
    }
    ck_assert_int_eq(aes_gen_xts_encrypt(&xk, NULL, buf, buf, 32), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_xts_encrypt(&xk, tw, NULL, buf, 32), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_xts_decrypt(&xk, tw, buf, NULL, 32), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_xts_encrypt(NULL, tw, buf, buf, 32), AES_GEN_EARG);
    ck_assert_mem_eq(buf, before, sizeof buf);
    aes_gen_xts_wipe(&xk);
    for (size_t i = 0; i < sizeof xk; i++)
        ck_assert_uint_eq(((const uint8_t *)&xk)[i], 0);
    ck_assert_int_eq(aes_gen_xts_encrypt(&xk, tw, buf, buf, 32), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_xts_encrypt_sectors(&xk, 0, 16, buf, buf, 32), AES_GEN_EARG);
    ck_assert_mem_eq(buf, before, sizeof buf);
    aes_gen_xts_wipe(NULL);
}
END_TEST

int main(void)
{
    nbackends = usable_backends(backends, AES_GEN_BACKEND_COUNT, 0);
    printf("seed 0x%llx, %zu backends, vectors in %s\n", (unsigned long long)test_seed(),
           nbackends, vectors_dir());
    Suite *s = suite_create("xts");
    TCase *tc = tcase_create("xts");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, cavp_vectors, 0, (int)(nbackends * 4));
    tcase_add_loop_test(tc, random_data_units, 0, (int)(nbackends * 3));
    tcase_add_loop_test(tc, long_data_units, 0, (int)nbackends);
    tcase_add_loop_test(tc, sectors_are_consecutive_units, 0, (int)nbackends);
    tcase_add_test(tc, errors_change_nothing);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
