/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target over the whole API (make fuzz SECONDS=N): the input picks
 * a backend, a mode, a key length (valid or not), argument faults and stream
 * splits, then the key, the iv and the data.  Every result is checked:
 *   - a good call matches the reference (tests/ref) and OpenSSL's EVP;
 *   - a bad one (wrong key length, ragged ECB/CBC length, NULL pointers)
 *     returns its error code and changes nothing it was given;
 *   - the stream API fed the data in pieces matches one call;
 *   - GCM (tests/common.c gcm_check): IV, AAD and tag lengths from the
 *     input, valid or not, the stream split anywhere, a forged tag refused.
 * Any mismatch aborts, which libFuzzer reports with the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#ifdef HAVE_OPENSSL
#include "evp_cipher.h"
#endif

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "fuzz_api: " __VA_ARGS__); \
            fputc('\n', stderr); \
            abort(); \
        } \
    } while (0)

enum { MAX_DATA = 4096 };

#ifdef HAVE_OPENSSL
static void evp_run(const struct mode_case *mc, const uint8_t *key, size_t key_len,
                    const uint8_t iv[16], uint8_t *dst, const uint8_t *src, size_t len)
{
    if ((mc->ref == REF_CTR && mc->counter_bits != 128) || mc->ref == REF_XTS)
        return; /* EVP's CTR counts in all 128 bits; its XTS encrypts the tweak first */
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int out = 0, fin = 0;
    CHECK(ctx && EVP_CipherInit_ex(ctx, evp_cipher(mc->ref, key_len), NULL, key,
                                   mc->ref == REF_ECB ? NULL : iv, !mc->decrypt) == 1, "EVP init");
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    CHECK(EVP_CipherUpdate(ctx, dst, &out, src, (int)len) == 1 &&
          EVP_CipherFinal_ex(ctx, dst + out, &fin) == 1, "EVP update");
    EVP_CIPHER_CTX_free(ctx);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static size_t ids[AES_GEN_BACKEND_COUNT], nb;
    static uint8_t got[MAX_DATA + 64], want[MAX_DATA], src[MAX_DATA + 64];
    if (!nb)
        nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, 0);
    if (size < 4 + 32 + 16)
        return 0;
    const struct mode_case *mc = &mode_cases[data[1] % AES_GEN_MODE_COUNT];
    static const size_t key_lens[8] = {16, 24, 32, 16, 24, 32, 0, 17};
    const size_t key_len = key_lens[data[2] & 7];
    const unsigned flags = data[3];
    const uint8_t *key = data + 4, *iv0 = data + 36;
    size_t len = size - 52 > MAX_DATA ? MAX_DATA : size - 52;
    const size_t off = flags >> 4 & 7; /* unaligned buffers */
    memcpy(src + off, data + 52, len);
    const char *backend = aes_gen_backend_table[ids[data[0] % nb]].name;
    if (!mc->block) { /* GCM: the IV and AAD are the data's first bytes */
        const size_t iv_len = data[36] % 4 ? 12 : data[37] % 65; /* 0: refused */
        const size_t aad_len = data[38] % 97, tag_len = data[39] % 4 ? 16 : data[39] / 4 % 18;
        if (len < iv_len + aad_len)
            return 0;
        const struct gcm_case c = {backend, key, data + 52, data + 52 + iv_len,
                                   data + 52 + iv_len + aad_len, key_len, iv_len, aad_len,
                                   len - iv_len - aad_len, tag_len, off, data[40], data[41] * 17u,
                                   data[42], flags & 2};
        char why[256];
        CHECK(gcm_check(&c, why, sizeof why) == NULL, "%s", why);
        return 0;
    }

    aes_gen_key k;
    memset(&k, 0x5c, sizeof k);
    const int set = aes_gen_setkey_backend(&k, key, key_len, backend);
    if (key_len != 16 && key_len != 24 && key_len != 32) {
        CHECK(set == AES_GEN_EKEYLEN, "%s: key length %zu gave %d", backend, key_len, set);
        for (size_t i = 0; i < sizeof k; i++)
            CHECK(((uint8_t *)&k)[i] == 0x5c, "a failed setkey changed the key");
        return 0;
    }
    if (set == AES_GEN_EKEYSIZE || set == AES_GEN_EBACKEND)
        return 0; /* a key size this build lacks, or a backend that lacks it */
    CHECK(set == AES_GEN_OK, "%s setkey: %d", backend, set);

    uint8_t iv[16], iv_want[16];
    memcpy(iv, iv0, 16);
    memset(got, 0xee, sizeof got);
    if (flags & 1) { /* NULL arguments: an error and nothing written */
        const int r = mode_call(mc, &k, NULL, NULL, src + off, len);
        if (len) {
            CHECK(r == AES_GEN_EARG, "%s %s: NULL dst gave %d", backend, mc->name, r);
            CHECK(!memcmp(iv, iv0, 16), "a failed call changed the iv");
        }
        aes_gen_wipe(&k);
        return 0;
    }
    if (mc->whole_blocks && len % 16) { /* ragged ECB/CBC */
        const int r = mode_call(mc, &k, iv, got + off, src + off, len);
        CHECK(r == AES_GEN_ELEN, "%s %s: ragged length %zu gave %d", backend, mc->name, len, r);
        for (size_t i = 0; i < sizeof got; i++)
            CHECK(got[i] == 0xee, "a failed call wrote dst");
        CHECK(!memcmp(iv, iv0, 16), "a failed call changed the iv");
        aes_gen_wipe(&k);
        return 0;
    }
    const int in_place = flags & 2;
    uint8_t *dst = got + off;
    if (in_place)
        memcpy(dst, src + off, len);
    const int r = mode_call(mc, &k, iv, dst, in_place ? dst : src + off, len);
    CHECK(r == AES_GEN_OK, "%s %s: %d", backend, mc->name, r);
    memcpy(iv_want, iv0, 16);
    ref_run(mc, key, key_len, iv_want, want, src + off, len);
    CHECK(!memcmp(dst, want, len), "%s %s AES-%zu len %zu: differs from the reference", backend,
          mc->name, 8 * key_len, len);
    CHECK(mc->ref == REF_ECB || !memcmp(iv, iv_want, 16), "%s %s: iv differs", backend, mc->name);
    for (size_t i = 0; i < off; i++)
        CHECK(got[i] == 0xee, "wrote before dst");
    for (size_t i = off + len; i < sizeof got; i++)
        CHECK(got[i] == 0xee, "wrote after dst");
#ifdef HAVE_OPENSSL
    if (len) {
        static uint8_t evp[MAX_DATA];
        evp_run(mc, key, key_len, iv0, evp, src + off, len);
        CHECK((mc->ref == REF_CTR && mc->counter_bits != 128) || mc->ref == REF_XTS
                  ? 1 : !memcmp(evp, want, len),
              "OpenSSL and the reference disagree");
    }
#endif
    /* The stream API in two pieces, split where the input says. */
    aes_gen_stream s;
    const size_t cut = len ? (size_t)(data[0] ^ data[3]) % (len + 1) : 0;
    if (aes_gen_stream_init(&s, &k, mc->name, iv0) == AES_GEN_OK) {
        static uint8_t streamed[MAX_DATA];
        uint8_t iv_s[16];
        CHECK(aes_gen_stream_update(&s, streamed, src + off, cut) == AES_GEN_OK &&
              aes_gen_stream_update(&s, streamed + cut, src + off + cut, len - cut) == AES_GEN_OK &&
              aes_gen_stream_final(&s, iv_s) == AES_GEN_OK, "stream calls");
        CHECK(!memcmp(streamed, want, len), "%s %s: the stream in two pieces differs", backend,
              mc->name);
    }
    aes_gen_wipe(&k);
    return 0;
}
