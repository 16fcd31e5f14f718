/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AES-GCM through the API, for every usable backend: NIST's CAVP vectors
 * (every case of gcmEncryptExtIV and gcmDecrypt, FAIL cases included: every
 * IV, AAD and tag length in them); against the reference (tests/ref/) and
 * OpenSSL's EVP with random keys, IVs of 12 bytes and of other lengths, AAD
 * and messages of every length to 4096 and beyond, unaligned, in place;
 * streams split anywhere; tampered ciphertext, AAD and tags refused with the
 * plaintext zeroed; a counter whose low 32 bits wrap; errors that write
 * nothing.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#if defined(HAVE_OPENSSL)
#include "evp_cipher.h"
#endif

static size_t backends[AES_GEN_BACKEND_COUNT], nbackends;

static const char *bname(size_t b)
{
    return aes_gen_backend_table[b].name;
}

static void gcm_key(aes_gen_gcm_key *gk, size_t b, const uint8_t *key, size_t key_len)
{
    ck_assert_int_eq(aes_gen_gcm_setkey_backend(gk, key, key_len, bname(b)), AES_GEN_OK);
}

/* --- CAVP ----------------------------------------------------------------------- */

static const char *vectors_dir(void)
{
    const char *env = getenv("AES_GEN_GCM_VECTORS");
    return env ? env : "/usr/lib/python3/dist-packages/cryptography_vectors/ciphers/AES/GCM";
}

struct cavp_case {
    uint8_t key[32], iv[128], pt[64], aad[128], ct[64], tag[16];
    size_t key_len, iv_len, pt_len, aad_len, ct_len, tag_len;
    int fail;
};

/* Runs every case of one .rsp file on backend b (every AES_GEN_TEST_THIN-th
 * on a sanitized build); returns the number run. */
static long run_file(const char *path, size_t b, int decrypt)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s: cannot open (python3-cryptography-vectors)", path);
    char line[4096];
    struct cavp_case c;
    long count = 0, seen = 0;
    int have = 0;
    memset(&c, 0, sizeof c);
    for (;;) {
        const int more = fgets(line, sizeof line, f) != NULL;
        line[strcspn(line, "\r\n")] = 0;
        size_t n;
        if (more && (n = cavp_field(line, "Key", c.key, 32)) != (size_t)-1)
            c.key_len = n, have = 1;
        else if (more && (n = cavp_field(line, "IV", c.iv, sizeof c.iv)) != (size_t)-1)
            c.iv_len = n;
        else if (more && (n = cavp_field(line, "PT", c.pt, sizeof c.pt)) != (size_t)-1)
            c.pt_len = n;
        else if (more && (n = cavp_field(line, "AAD", c.aad, sizeof c.aad)) != (size_t)-1)
            c.aad_len = n;
        else if (more && (n = cavp_field(line, "CT", c.ct, sizeof c.ct)) != (size_t)-1)
            c.ct_len = n;
        else if (more && (n = cavp_field(line, "Tag", c.tag, 16)) != (size_t)-1)
            c.tag_len = n;
        else if (more && strcmp(line, "FAIL") == 0)
            c.fail = 1;
        else if ((!more || strncmp(line, "Count", 5) == 0) && have) {
            aes_gen_gcm_key gk;
            uint8_t out[64], tag[16];
            if (aes_gen_backend_usable(backends[b], (unsigned)c.key_len * 8) &&
                seen++ % AES_GEN_TEST_THIN == 0) {
                gcm_key(&gk, backends[b], c.key, c.key_len);
                if (decrypt) {
                    memset(out, 0x5a, sizeof out);
                    const int err = aes_gen_gcm_decrypt(&gk, c.iv, c.iv_len, c.aad, c.aad_len, out,
                                                        c.ct, c.ct_len, c.tag, c.tag_len);
                    ck_assert_msg(err == (c.fail ? AES_GEN_EAUTH : AES_GEN_OK),
                                  "%s %s: case %ld gives %d", path, bname(backends[b]), count, err);
                    if (c.fail)
                        for (size_t i = 0; i < c.ct_len; i++)
                            ck_assert_uint_eq(out[i], 0);
                    else
                        ck_assert_mem_eq(out, c.pt, c.pt_len);
                } else {
                    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, c.iv, c.iv_len, c.aad, c.aad_len,
                                                         out, c.pt, c.pt_len, tag, c.tag_len),
                                     AES_GEN_OK);
                    ck_assert_msg(memcmp(out, c.ct, c.ct_len) == 0 &&
                                      memcmp(tag, c.tag, c.tag_len) == 0,
                                  "%s %s: case %ld differs", path, bname(backends[b]), count);
                }
                aes_gen_gcm_wipe(&gk);
                count++;
            }
            memset(&c, 0, sizeof c);
            have = 0;
        }
        if (!more)
            break;
    }
    fclose(f);
    return count;
}

/* _i: (backend, file) */
START_TEST(cavp_vectors)
{
    static const char *const files[6] = {"gcmEncryptExtIV128.rsp", "gcmEncryptExtIV192.rsp",
                                         "gcmEncryptExtIV256.rsp", "gcmDecrypt128.rsp",
                                         "gcmDecrypt192.rsp", "gcmDecrypt256.rsp"};
    char path[512];
    const size_t b = (size_t)_i / 6;
    snprintf(path, sizeof path, "%s/%s", vectors_dir(), files[_i % 6]);
    const long n = run_file(path, b, _i % 6 >= 3);
    printf("cavp %s %s: %ld cases\n", bname(backends[b]), files[_i % 6], n);
}
END_TEST

/* --- against the reference and OpenSSL ---------------------------------------------- */

/* One message both ways on backend b, against the reference and, for
 * lengths OpenSSL takes, EVP; in place or not, at offsets. */
static void compare_once(size_t b, const uint8_t *key, size_t key_len, const uint8_t *iv,
                         size_t iv_len, const uint8_t *aad, size_t aad_len, const uint8_t *src,
                         size_t len, size_t off, int in_place, size_t tag_len)
{
    aes_gen_gcm_key gk;
    ref_key rk;
    uint8_t want_tag[16], tag[16];
    uint8_t *want = malloc(len + 1), *area = malloc(len + 64 + 16), *back = malloc(len + 64);
    ck_assert(want && area && back);
    ref_setkey(&rk, key, key_len);
    ref_gcm(&rk, 0, iv, iv_len, aad, aad_len, want, src, len, want_tag);
    gcm_key(&gk, b, key, key_len);
    uint8_t *dst = area + off;
    memset(area, 0xa5, len + 64 + 16);
    const uint8_t *in = src;
    if (in_place) {
        memcpy(dst, src, len);
        in = dst;
    }
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, iv_len, aad, aad_len, dst, in, len, tag, tag_len),
                     AES_GEN_OK);
    ck_assert_msg(memcmp(dst, want, len) == 0 && memcmp(tag, want_tag, tag_len) == 0,
                  "%s AES-%zu: encryption differs from the reference (len %zu, iv %zu, aad %zu, "
                  "off %zu%s)", bname(b), 8 * key_len, len, iv_len, aad_len, off,
                  in_place ? ", in place" : "");
    for (size_t i = 0; i < off; i++)
        ck_assert_uint_eq(area[i], 0xa5);
    for (size_t i = off + len; i < len + 64 + 16; i++)
        ck_assert_uint_eq(area[i], 0xa5);
#if defined(HAVE_OPENSSL)
    {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        int outl = 0, fin = 0;
        uint8_t evp_tag[16];
        ck_assert(ctx && EVP_EncryptInit_ex(ctx, evp_cipher(REF_GCM, key_len), NULL, NULL, NULL));
        ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL));
        ck_assert(EVP_EncryptInit_ex(ctx, NULL, NULL, key, iv));
        if (aad_len)
            ck_assert(EVP_EncryptUpdate(ctx, NULL, &outl, aad, (int)aad_len));
        ck_assert(EVP_EncryptUpdate(ctx, back, &outl, src, (int)len));
        ck_assert(EVP_EncryptFinal_ex(ctx, back + outl, &fin));
        ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, evp_tag));
        EVP_CIPHER_CTX_free(ctx);
        ck_assert_msg(memcmp(back, want, len) == 0 && memcmp(evp_tag, want_tag, 16) == 0,
                      "the reference differs from OpenSSL (len %zu, iv %zu)", len, iv_len);
    }
#endif
    /* And back, in place or not. */
    const uint8_t *cin = dst;
    uint8_t *pout = in_place ? dst : back;
    ck_assert_int_eq(aes_gen_gcm_decrypt(&gk, iv, iv_len, aad, aad_len, pout, cin, len, tag, tag_len),
                     AES_GEN_OK);
    ck_assert_mem_eq(pout, src, len);
    aes_gen_gcm_wipe(&gk);
    free(want), free(area), free(back);
}

/* _i: (backend, key size) */
START_TEST(random_messages)
{
    static const size_t key_lens[3] = {16, 24, 32};
    const size_t b = backends[_i / 3], key_len = key_lens[_i % 3];
    uint64_t rng = test_seed() ^ (uint64_t)_i << 20;
    uint8_t key[32], iv[64], aad[300];
    static uint8_t src[70000];
    if (!aes_gen_backend_usable(b, (unsigned)key_len * 8))
        return;
    rng_fill(&rng, src, sizeof src);
    static const size_t iv_lens[] = {12, 12, 12, 1, 8, 16, 17, 60, 64};
    for (size_t len = 0; len <= 4096 + 48; len += (len < 300 ? 1 : 37) * AES_GEN_TEST_THIN) {
        rng_fill(&rng, key, sizeof key);
        rng_fill(&rng, iv, sizeof iv);
        rng_fill(&rng, aad, sizeof aad);
        const size_t iv_len = iv_lens[rng_next(&rng) % (sizeof iv_lens / sizeof iv_lens[0])];
        const size_t aad_len = rng_next(&rng) % 4 ? rng_next(&rng) % 64 : rng_next(&rng) % 300;
        compare_once(b, key, key_len, iv, iv_len, aad, aad_len, src, len, rng_next(&rng) % 16,
                     (int)(len % 3 == 0), 4 + rng_next(&rng) % 13);
    }
    for (size_t len = 65536 - 17; len <= 65536 + 17; len += 17)
        compare_once(b, key, key_len, iv, 12, aad, 20, src, len, 3, 0, 16);
}
END_TEST

/* A stream split at random points (AAD and data) equals the one-shot call. */
START_TEST(streams_split_anywhere)
{
    const size_t b = backends[_i];
    uint64_t rng = test_seed() ^ (uint64_t)_i << 28;
    uint8_t key[32], iv[16], aad[200], tag_one[16], tag_split[16];
    static uint8_t src[3000], one[3000], split[3000];
    size_t lens[3];
    const size_t nk = built_key_lens(lens);
    aes_gen_gcm_key gk;
    for (int trial = 0; trial < 60; trial++) {
        rng_fill(&rng, key, sizeof key);
        rng_fill(&rng, iv, sizeof iv);
        rng_fill(&rng, aad, sizeof aad);
        rng_fill(&rng, src, sizeof src);
        const size_t len = rng_next(&rng) % sizeof src, aad_len = rng_next(&rng) % sizeof aad;
        const size_t iv_len = trial % 4 ? 12 : 1 + rng_next(&rng) % 16;
        const int dir = trial & 1;
        if (!aes_gen_backend_usable(b, (unsigned)lens[trial % nk] * 8))
            continue;
        gcm_key(&gk, b, key, lens[trial % nk]);
        /* one: the one-shot ciphertext and tag; decryption streams it back */
        ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, iv_len, aad, aad_len, one, src, len,
                                             tag_one, 16), AES_GEN_OK);
        aes_gen_gcm_stream s;
        ck_assert_int_eq(aes_gen_gcm_init(&s, &gk, dir, iv, iv_len), AES_GEN_OK);
        for (size_t done = 0; done < aad_len;) {
            const size_t n = 1 + rng_next(&rng) % (aad_len - done);
            ck_assert_int_eq(aes_gen_gcm_aad(&s, aad + done, n), AES_GEN_OK);
            done += n;
        }
        const uint8_t *in = dir == AES_GEN_GCM_ENCRYPT ? src : one;
        for (size_t done = 0; done < len;) {
            const size_t n = rng_next(&rng) % 3 ? 1 + rng_next(&rng) % 40
                                                : 1 + rng_next(&rng) % (len - done);
            const size_t take = n < len - done ? n : len - done;
            ck_assert_int_eq(aes_gen_gcm_update(&s, split + done, in + done, take), AES_GEN_OK);
            done += take;
        }
        if (dir == AES_GEN_GCM_ENCRYPT) {
            ck_assert_int_eq(aes_gen_gcm_final(&s, tag_split, 16), AES_GEN_OK);
            ck_assert_mem_eq(split, one, len);
            ck_assert_mem_eq(tag_split, tag_one, 16);
        } else {
            ck_assert_mem_eq(split, src, len);
            ck_assert_int_eq(aes_gen_gcm_verify(&s, tag_one, 16), AES_GEN_OK);
        }
        aes_gen_gcm_wipe(&gk);
    }
}
END_TEST

/* Tampering: every byte of a short message, and a bit of the AAD and of the tag. */
START_TEST(tampering_is_refused)
{
    const size_t b = backends[_i];
    uint8_t key[16] = {1, 2, 3}, iv[12] = {4}, aad[20] = {5}, src[70], ct[70], out[70], tag[16];
    size_t lens[3];
    built_key_lens(lens);
    aes_gen_gcm_key gk;
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 7);
    gcm_key(&gk, b, key, lens[0]);
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 12, aad, 20, ct, src, 70, tag, 16), AES_GEN_OK);
    for (size_t i = 0; i < 70 + 20 + 16 + 12; i++) {
        uint8_t *what = i < 70 ? ct + i : i < 90 ? aad + i - 70 : i < 106 ? tag + i - 90
                                                                          : iv + i - 106;
        *what ^= (uint8_t)(1u << (i % 8));
        memset(out, 0x77, sizeof out);
        ck_assert_int_eq(aes_gen_gcm_decrypt(&gk, iv, 12, aad, 20, out, ct, 70, tag, 16),
                         AES_GEN_EAUTH);
        for (size_t j = 0; j < sizeof out; j++)
            ck_assert_uint_eq(out[j], 0); /* never unauthenticated plaintext */
        *what ^= (uint8_t)(1u << (i % 8));
    }
    ck_assert_int_eq(aes_gen_gcm_decrypt(&gk, iv, 12, aad, 20, out, ct, 70, tag, 16), AES_GEN_OK);
    ck_assert_mem_eq(out, src, 70);
    /* A shorter tag is a prefix: it verifies as such, and only its bytes count. */
    ck_assert_int_eq(aes_gen_gcm_decrypt(&gk, iv, 12, aad, 20, out, ct, 70, tag, 12), AES_GEN_OK);
    aes_gen_gcm_wipe(&gk);
}
END_TEST

/* The 32-bit counter wraps mod 2^32 (SP 800-38D inc32): from a J0 near the
 * wrap, through the internal entry that takes J0, against the reference. */
START_TEST(counter_wraps_in_32_bits)
{
    const size_t b = backends[_i];
    uint8_t key[16] = {9}, j0[16], iv[16];
    static uint8_t src[16 * 200 + 5], got[sizeof src], want[sizeof src];
    size_t lens[3];
    built_key_lens(lens);
    uint64_t rng = test_seed() ^ 0xc0ffee;
    rng_fill(&rng, src, sizeof src);
    aes_gen_gcm_key gk;
    gcm_key(&gk, b, key, lens[0]);
    ref_key rk;
    ref_setkey(&rk, key, lens[0]);
    for (int start = 0; start < 70; start += 7) {
        rng_fill(&rng, j0, 12);
        const uint32_t c = 0xffffffffu - (uint32_t)start;
        j0[12] = (uint8_t)(c >> 24), j0[13] = (uint8_t)(c >> 16), j0[14] = (uint8_t)(c >> 8);
        j0[15] = (uint8_t)c;
        aes_gen_gcm_stream s;
        ck_assert_int_eq(aes_gen_gcm_init_j0(&s, &gk, AES_GEN_GCM_ENCRYPT, j0), AES_GEN_OK);
        ck_assert_int_eq(aes_gen_gcm_update(&s, got, src, sizeof src), AES_GEN_OK);
        /* the reference's GCTR from inc32(J0), 32-bit counting */
        memcpy(iv, j0, 16);
        for (int i = 15; i >= 12 && ++iv[i] == 0; i--)
            ;
        ref_crypt(&rk, REF_GCM, 0, 32, iv, want, src, sizeof src);
        ck_assert_msg(memcmp(got, want, sizeof src) == 0, "%s: counter from 0x%08x", bname(b), c);
        uint8_t tag[16];
        ck_assert_int_eq(aes_gen_gcm_final(&s, tag, 16), AES_GEN_OK);
    }
    aes_gen_gcm_wipe(&gk);
}
END_TEST

/* Bad input: a clear code, and nothing written. */
START_TEST(errors_change_nothing)
{
    uint8_t key[32] = {1}, iv[12] = {2}, buf[32], tag[16];
    size_t lens[3];
    built_key_lens(lens);
    aes_gen_gcm_key gk;
    ck_assert_int_eq(aes_gen_gcm_setkey(&gk, key, 17), AES_GEN_EKEYLEN);
    ck_assert_int_eq(aes_gen_gcm_setkey(NULL, key, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 12, NULL, 0, buf, buf, 16, tag, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_gcm_setkey_backend(&gk, key, lens[0], bname(backends[0])), AES_GEN_OK);
    static const size_t bad_tags[] = {0, 1, 3, 17, 32};
    for (size_t i = 0; i < sizeof bad_tags / sizeof bad_tags[0]; i++) {
        memset(buf, 0x11, sizeof buf), memset(tag, 0x22, sizeof tag);
        ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 12, NULL, 0, buf, buf, 16, tag, bad_tags[i]),
                         AES_GEN_ELEN);
        ck_assert_int_eq(aes_gen_gcm_decrypt(&gk, iv, 12, NULL, 0, buf, buf, 16, tag, bad_tags[i]),
                         AES_GEN_ELEN);
        for (size_t j = 0; j < 16; j++)
            ck_assert(buf[j] == 0x11 && tag[j] == 0x22);
    }
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 0, NULL, 0, buf, buf, 16, tag, 16), AES_GEN_ELEN);
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, NULL, 12, NULL, 0, buf, buf, 16, tag, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 12, NULL, 5, buf, buf, 16, tag, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 12, NULL, 0, NULL, buf, 16, tag, 16), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 12, NULL, 0, buf, buf, 16, NULL, 16), AES_GEN_EARG);
    /* Longer than 2^39 - 256 bits: refused before a byte is read. */
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 12, NULL, 0, buf, buf, ((size_t)1 << 36) - 31,
                                         tag, 16), AES_GEN_ELEN);
    for (size_t j = 0; j < 16; j++)
        ck_assert(buf[j] == 0x11 && tag[j] == 0x22);
    /* Streams: AAD after data, calls after the end, corrupted contexts. */
    aes_gen_gcm_stream s;
    ck_assert_int_eq(aes_gen_gcm_init(&s, &gk, 2, iv, 12), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_gcm_init(&s, &gk, AES_GEN_GCM_ENCRYPT, iv, 0), AES_GEN_ELEN);
    ck_assert_int_eq(aes_gen_gcm_init(&s, &gk, AES_GEN_GCM_ENCRYPT, iv, 12), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_gcm_aad(&s, key, 5), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_gcm_update(&s, buf, buf, 7), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_gcm_aad(&s, key, 5), AES_GEN_ESTATE);
    ck_assert_int_eq(aes_gen_gcm_final(&s, tag, 2), AES_GEN_ELEN);
    ck_assert_int_eq(aes_gen_gcm_final(&s, tag, 16), AES_GEN_OK);
    ck_assert_int_eq(aes_gen_gcm_update(&s, buf, buf, 7), AES_GEN_EARG);
    ck_assert_int_eq(aes_gen_gcm_init(&s, &gk, AES_GEN_GCM_ENCRYPT, iv, 12), AES_GEN_OK);
    s.private_num = 16;
    ck_assert_int_eq(aes_gen_gcm_update(&s, buf, buf, 7), AES_GEN_EARG);
    s.private_num = 0, s.private_phase = 7;
    ck_assert_int_eq(aes_gen_gcm_update(&s, buf, buf, 7), AES_GEN_EARG);
    aes_gen_gcm_wipe(&gk);
    ck_assert_int_eq(aes_gen_gcm_encrypt(&gk, iv, 12, NULL, 0, buf, buf, 16, tag, 16), AES_GEN_EARG);
    for (size_t i = 0; i < sizeof gk; i++)
        ck_assert_uint_eq(((const uint8_t *)&gk)[i], 0);
}
END_TEST

/* Without a carry-less multiplier every backend's GCM is its CTR kernels and
 * the one integer GHASH of runtime/gcm.c: the CTR kernels have their own
 * suites, so the first backend of each key format takes the vectors. */
static size_t one_per_key_format(size_t *b, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < kept; j++)
            seen |= aes_gen_backend_table[b[j]].key_format == aes_gen_backend_table[b[i]].key_format;
        if (!seen)
            b[kept++] = b[i];
    }
    return kept;
}

int main(void)
{
    nbackends = usable_backends(backends, AES_GEN_BACKEND_COUNT, 0);
    if (!(aes_gen_cpu_features() & AES_GEN_CPU_PCLMUL)) {
        nbackends = one_per_key_format(backends, nbackends);
        printf("no PCLMULQDQ: the integer GHASH, on the first backend of each key format\n");
    }
    printf("seed 0x%llx, %zu backends, vectors in %s\n", (unsigned long long)test_seed(),
           nbackends, vectors_dir());
    Suite *s = suite_create("gcm");
    TCase *tc = tcase_create("gcm");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, cavp_vectors, 0, (int)(nbackends * 6));
    tcase_add_loop_test(tc, random_messages, 0, (int)(nbackends * 3));
    tcase_add_loop_test(tc, streams_split_anywhere, 0, (int)nbackends);
    tcase_add_loop_test(tc, tampering_is_refused, 0, (int)nbackends);
    tcase_add_loop_test(tc, counter_wraps_in_32_bits, 0, (int)nbackends);
    tcase_add_test(tc, errors_change_nothing);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
