/* SPDX-License-Identifier: Apache-2.0 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Each public mode function behind one signature: the mode's iv decides its own. */
#define API_NONE(md, function) \
    static int api_##md(const aes_gen_key *k, uint8_t *iv, void *dst, const void *src, size_t len) \
    { \
        (void)iv; \
        return function(k, dst, src, len); \
    }
#define API_CHAIN(md, function) \
    static int api_##md(const aes_gen_key *k, uint8_t *iv, void *dst, const void *src, size_t len) \
    { \
        return function(k, iv, dst, src, len); \
    }
#define API_COUNTER API_CHAIN
#define AES_GEN_MODE_API(md, function, iv) API_##iv(md, function)
#include "modes.inc"

static api_fn *const public_api[AES_GEN_MODE_COUNT] = {
#define AES_GEN_MODE_API(md, function, iv) [AES_GEN_MD_##md] = api_##md,
#include "modes.inc"
};

const struct mode_case mode_cases[AES_GEN_MODE_COUNT] = {
#define AES_GEN_MODE(md, label, family, decrypt, parallel, dec_schedule, iv, whole_blocks, tail, \
                     counter_bits, shape) \
    [AES_GEN_MD_##md] = {AES_GEN_MD_##md, #md, REF_##family, decrypt, whole_blocks, \
                         counter_bits, AES_GEN_SHAPE_##shape == AES_GEN_SHAPE_block},
#include "modes.inc"
};

api_fn *mode_api(const struct mode_case *mc)
{
    return public_api[mc->md];
}

int mode_call(const struct mode_case *mc, const aes_gen_key *k, uint8_t *iv, void *dst,
              const void *src, size_t len)
{
    api_fn *api = public_api[mc->md];
    return api ? api(k, iv, dst, src, len) : aes_gen_crypt(k, mc->md, iv, dst, src, len);
}

uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rng_fill(uint64_t *state, void *buf, size_t n)
{
    uint8_t *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rng_next(state) >> 56);
}

uint64_t test_seed(void)
{
    const char *env = getenv("AES_GEN_TEST_SEED");
    return env ? strtoull(env, NULL, 0) : 0x5eed2026ull;
}

uint64_t test_seed_random(void)
{
    static uint64_t seed;
    if (seed)
        return seed;
    const char *env = getenv("AES_GEN_TEST_SEED");
    if (env)
        return seed = strtoull(env, NULL, 0);
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&seed, sizeof seed, 1, f) != 1)
        seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
    if (f)
        fclose(f);
    return seed |= 1;
}

size_t hex_to_bytes(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    unsigned byte;
    while (n < cap && sscanf(hex + 2 * n, "%2x", &byte) == 1)
        out[n++] = (uint8_t)byte;
    return n;
}

size_t cavp_field(const char *line, const char *name, uint8_t *out, size_t cap)
{
    const size_t n = strlen(name);
    if (strncmp(line, name, n) || strncmp(line + n, " = ", 3))
        return (size_t)-1;
    return hex_to_bytes(line + n + 3, out, cap);
}

void hexdump_diff(const char *what, const uint8_t *want, const uint8_t *got, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (want[i] != got[i]) {
            fprintf(stderr, "%s: first difference at byte %zu of %zu: want %02x got %02x\n",
                    what, i, n, want[i], got[i]);
            return;
        }
    }
}

size_t built_key_lens(size_t out[3])
{
    size_t n = 0;
    for (size_t len = 16; len <= 32; len += 8)
        if (aes_gen_key_size_built((unsigned)len * 8))
            out[n++] = len;
    return n;
}

size_t usable_backends(size_t *out, size_t cap, unsigned key_bits)
{
    size_t n = 0;
    for (int i = 0; i < AES_GEN_BACKEND_COUNT; i++)
        if (aes_gen_backend_usable((enum aes_gen_backend_id)i, key_bits)) {
            if (n == cap) { /* never test fewer backends than there are */
                fprintf(stderr, "usable_backends: more than %zu backends\n", cap);
                abort();
            }
            out[n++] = (size_t)i;
        }
    return n;
}

unsigned backend_max_width(size_t backend)
{
    unsigned w = 1;
    for (size_t i = 0; i < aes_gen_registry_count; i++)
        if (aes_gen_registry[i].backend == (enum aes_gen_backend_id)backend &&
            aes_gen_registry[i].width > w)
            w = aes_gen_registry[i].width;
    return w;
}

int kernel_runs_here(const struct aes_gen_kernel_info *ki)
{
    if (!ki->built) {
        printf("SKIP %s: not built on this host's architecture\n", ki->symbol);
        return 0;
    }
    const uint32_t missing = ki->cpu & ~aes_gen_cpu_features();
    if (missing) {
        char names[128];
        printf("SKIP %s: this CPU lacks %s\n", ki->symbol,
               aes_gen_cpu_feature_names(missing, names, sizeof names));
        return 0;
    }
    return 1;
}

void ref_run(const struct mode_case *mc, const uint8_t *key, size_t key_len, uint8_t iv[16],
             uint8_t *dst, const uint8_t *src, size_t len)
{
    ref_key rk;
    ref_setkey(&rk, key, key_len);
    ref_crypt(&rk, mc->ref, mc->decrypt, mc->counter_bits, iv, dst, src, len);
}

#define GCM_FAIL(...) \
    do { \
        snprintf(why, size, __VA_ARGS__); \
        goto out; \
    } while (0)

const char *gcm_check(const struct gcm_case *c, char *why, size_t size)
{
    const char *failed = why;
    const size_t pad = 32, area_len = c->len + 2 * pad + 16;
    uint8_t *area = malloc(area_len), *want = malloc(c->len + 1), *copy = malloc(c->len + 1);
    uint8_t want_tag[16], tag[16], tag2[16];
    static aes_gen_gcm_key gk;
    aes_gen_gcm_stream st;
    if (!area || !want || !copy)
        GCM_FAIL("out of memory");
    memset(&gk, 0x5c, sizeof gk);
    int r = aes_gen_gcm_setkey_backend(&gk, c->key, c->key_len, c->backend);
    if (c->key_len != 16 && c->key_len != 24 && c->key_len != 32) {
        if (r != AES_GEN_EKEYLEN)
            GCM_FAIL("gcm setkey: key length %zu gave %d", c->key_len, r);
        for (size_t i = 0; i < sizeof gk; i++)
            if (((uint8_t *)&gk)[i] != 0x5c)
                GCM_FAIL("a failed gcm setkey changed the key");
        failed = NULL;
        goto out;
    }
    if (r == AES_GEN_EKEYSIZE || r == AES_GEN_EBACKEND) { /* not in this build */
        failed = NULL;
        goto out;
    }
    if (r != AES_GEN_OK)
        GCM_FAIL("%s gcm setkey: %d", c->backend, r);
    uint8_t *dst = area + pad + c->dst_off;
    memset(area, 0xee, area_len);
    const uint8_t *in = c->src;
    if (c->in_place)
        in = memcpy(dst, c->src, c->len);
    memset(tag, 0xee, sizeof tag);
    r = aes_gen_gcm_encrypt(&gk, c->iv, c->iv_len, c->aad, c->aad_len, dst, in, c->len, tag,
                            c->tag_len);
    if (c->iv_len == 0 || c->tag_len < 4 || c->tag_len > 16) {
        if (r != AES_GEN_ELEN)
            GCM_FAIL("%s gcm: iv length %zu, tag length %zu gave %d", c->backend, c->iv_len,
                     c->tag_len, r);
        for (size_t i = 0; i < area_len; i++)
            if (area[i] != 0xee && !(c->in_place && area + i >= dst && area + i < dst + c->len))
                GCM_FAIL("a refused gcm call wrote dst");
        for (size_t i = 0; i < 16; i++)
            if (tag[i] != 0xee)
                GCM_FAIL("a refused gcm call wrote the tag");
        failed = NULL;
        goto out;
    }
    if (r != AES_GEN_OK)
        GCM_FAIL("%s gcm encrypt: %d", c->backend, r);
    ref_key rk;
    ref_setkey(&rk, c->key, c->key_len);
    ref_gcm(&rk, 0, c->iv, c->iv_len, c->aad, c->aad_len, want, c->src, c->len, want_tag);
    if (memcmp(dst, want, c->len) || memcmp(tag, want_tag, c->tag_len))
        GCM_FAIL("%s gcm AES-%zu len %zu iv %zu aad %zu: %s differs from the reference",
                 c->backend, 8 * c->key_len, c->len, c->iv_len, c->aad_len,
                 memcmp(dst, want, c->len) ? "the ciphertext" : "the tag");
    for (size_t i = 0; i < area_len; i++)
        if ((area + i < dst || area + i >= dst + c->len) && area[i] != 0xee)
            GCM_FAIL("%s gcm: wrote byte %td outside dst", c->backend, area + i - dst);
    /* The stream in pieces, both ways. */
    const size_t aad_cut = c->aad_cut > c->aad_len ? c->aad_len : c->aad_cut;
    const size_t cut = c->data_cut > c->len ? c->len : c->data_cut;
    for (int dir = 0; dir < 2; dir++) {
        const uint8_t *from = dir ? want : c->src, *expect = dir ? c->src : want;
        if (aes_gen_gcm_init(&st, &gk, dir, c->iv, c->iv_len) != AES_GEN_OK ||
            aes_gen_gcm_aad(&st, c->aad, aad_cut) != AES_GEN_OK ||
            aes_gen_gcm_aad(&st, c->aad + aad_cut, c->aad_len - aad_cut) != AES_GEN_OK ||
            aes_gen_gcm_update(&st, copy, from, cut) != AES_GEN_OK ||
            aes_gen_gcm_update(&st, copy + cut, from + cut, c->len - cut) != AES_GEN_OK)
            GCM_FAIL("%s gcm stream calls failed", c->backend);
        if (memcmp(copy, expect, c->len))
            GCM_FAIL("%s gcm stream (%s, cut %zu/%zu) differs", c->backend,
                     dir ? "decrypt" : "encrypt", aad_cut, cut);
        if (dir ? aes_gen_gcm_verify(&st, want_tag, c->tag_len) != AES_GEN_OK
                : aes_gen_gcm_final(&st, tag2, c->tag_len) != AES_GEN_OK ||
                      memcmp(tag2, want_tag, c->tag_len))
            GCM_FAIL("%s gcm stream: the tag differs", c->backend);
    }
    /* Decryption, then a forged tag: EAUTH and dst zeroed. */
    memcpy(copy, want, c->len);
    if (aes_gen_gcm_decrypt(&gk, c->iv, c->iv_len, c->aad, c->aad_len, dst, copy, c->len,
                            want_tag, c->tag_len) != AES_GEN_OK || memcmp(dst, c->src, c->len))
        GCM_FAIL("%s gcm decrypt: the plaintext differs", c->backend);
    memcpy(tag2, want_tag, 16);
    tag2[c->forge % c->tag_len] ^= (uint8_t)(1u << (c->forge / 16 % 8));
    r = aes_gen_gcm_decrypt(&gk, c->iv, c->iv_len, c->aad, c->aad_len, dst, copy, c->len, tag2,
                            c->tag_len);
    if (r != AES_GEN_EAUTH)
        GCM_FAIL("%s gcm decrypt: a forged tag gave %d", c->backend, r);
    for (size_t i = 0; i < c->len; i++)
        if (dst[i])
            GCM_FAIL("%s gcm decrypt: a forged tag left plaintext in dst", c->backend);
    failed = NULL;
out:
    aes_gen_gcm_wipe(&gk);
    free(area), free(want), free(copy);
    return failed;
}

int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
