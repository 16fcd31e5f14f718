/* SPDX-License-Identifier: Apache-2.0 */
/* Key formats: the expanded-key layouts backends' kernels take.  `fips` is the
 * FIPS-197 key expansion (5.2) followed by the equivalent-inverse decryption
 * schedule (5.3.5), each (rounds + 1) x 16 bytes: the format of every
 * generated kernel so far.  A backend with its own layout (vpaes, TILE-Gx)
 * adds a format here and names it in gen/variants.py. */
#include <string.h>

#include "internal.h"
#include "tables.h"

static uint8_t xtime(uint8_t x)
{
    return (uint8_t)(x << 1 ^ ((x >> 7) * 0x1b));
}

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
    uint8_t p = 0;
    for (; b; b >>= 1, a = xtime(a))
        if (b & 1)
            p ^= a;
    return p;
}

static void inv_mix_column(uint8_t *col)
{
    uint8_t a0 = col[0], a1 = col[1], a2 = col[2], a3 = col[3];
    col[0] = gf_mul(a0, 14) ^ gf_mul(a1, 11) ^ gf_mul(a2, 13) ^ gf_mul(a3, 9);
    col[1] = gf_mul(a0, 9) ^ gf_mul(a1, 14) ^ gf_mul(a2, 11) ^ gf_mul(a3, 13);
    col[2] = gf_mul(a0, 13) ^ gf_mul(a1, 9) ^ gf_mul(a2, 14) ^ gf_mul(a3, 11);
    col[3] = gf_mul(a0, 11) ^ gf_mul(a1, 13) ^ gf_mul(a2, 9) ^ gf_mul(a3, 14);
}

/* SubWord without a secret-dependent index or branch (the key bytes must
 * not pick table entries: cache timing).  With SSSE3, the vector-permutation
 * S-box: pshufb of 4-bit indices into 16-byte registers (aes_math.VPAES);
 * otherwise every S-box entry is read and the one wanted kept by a mask. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

__attribute__((target("ssse3"))) static void sub_word_ssse3(uint8_t w[4])
{
    const __m128i *t = (const __m128i *)aes_gen_vpaes_sbox_tables;
    const __m128i m = _mm_set1_epi8(0x0f);
    uint32_t v;
    memcpy(&v, w, 4);
    __m128i x = _mm_cvtsi32_si128((int)v);
    x = _mm_xor_si128(_mm_shuffle_epi8(t[0], _mm_and_si128(x, m)),
                      _mm_shuffle_epi8(t[1], _mm_and_si128(_mm_srli_epi32(x, 4), m)));
    const __m128i hi = _mm_and_si128(_mm_srli_epi32(x, 4), m), lo = _mm_and_si128(x, m);
    const __m128i ak = _mm_shuffle_epi8(t[3], lo), j = _mm_xor_si128(hi, lo);
    const __m128i iak = _mm_xor_si128(_mm_shuffle_epi8(t[2], hi), ak);
    const __m128i jak = _mm_xor_si128(_mm_shuffle_epi8(t[2], j), ak);
    const __m128i io = _mm_xor_si128(_mm_shuffle_epi8(t[2], iak), j);
    const __m128i jo = _mm_xor_si128(_mm_shuffle_epi8(t[2], jak), hi);
    x = _mm_xor_si128(_mm_xor_si128(_mm_shuffle_epi8(t[4], io), _mm_shuffle_epi8(t[5], jo)),
                      _mm_set1_epi8(0x63));
    v = (uint32_t)_mm_cvtsi128_si32(x);
    memcpy(w, &v, 4);
}
#endif

static void sub_word(uint8_t w[4])
{
#if defined(__x86_64__) || defined(__i386__)
    if (aes_gen_cpu_features() & AES_GEN_CPU_SSSE3) {
        sub_word_ssse3(w);
        return;
    }
#endif
    for (int b = 0; b < 4; b++) {
        uint8_t s = 0;
        for (unsigned i = 0; i < 256; i++)
            s |= aes_gen_sbox[i] & (uint8_t)-(((i ^ w[b]) - 1u) >> 8 & 1);
        w[b] = s;
    }
}

static void expand_fips(const uint8_t *key, size_t key_len, uint8_t *ks)
{
    uint8_t *enc = ks, *dec = ks + 240;
    const size_t nk = key_len / 4, rounds = nk + 6, words = 4 * (rounds + 1);
    uint8_t t[4];

    memcpy(enc, key, key_len);
    for (size_t i = nk; i < words; i++) {
        memcpy(t, enc + 4 * (i - 1), 4);
        if (i % nk == 0) {
            const uint8_t t0 = t[0];
            t[0] = t[1], t[1] = t[2], t[2] = t[3], t[3] = t0;
            sub_word(t);
            t[0] ^= aes_gen_rcon[i / nk - 1];
        } else if (nk > 6 && i % nk == 4) {
            sub_word(t);
        }
        for (int j = 0; j < 4; j++)
            enc[4 * i + j] = enc[4 * (i - nk) + j] ^ t[j];
    }

    /* Reversed order; InvMixColumns on every round key but the outer two. */
    for (size_t r = 0; r <= rounds; r++)
        memcpy(dec + 16 * r, enc + 16 * (rounds - r), 16);
    for (size_t c = 4; c < 4 * rounds; c++)
        inv_mix_column(dec + 4 * c);
    aes_gen_secure_zero(t, sizeof t);
}

/* `openssl`: the same schedules as OpenSSL's AES_KEY holds them (the TILE-Gx
 * code's format): rd_key words, each four key bytes as a big-endian number,
 * then the round count; encryption at 0, decryption at 256. */
static void expand_openssl(const uint8_t *key, size_t key_len, uint8_t *ks)
{
    uint8_t fips[480];
    uint32_t w[61];
    expand_fips(key, key_len, fips);
    for (int half = 0; half < 2; half++) {
        for (int i = 0; i < 60; i++) {
            const uint8_t *b = fips + 240 * half + 4 * i;
            w[i] = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        }
        w[60] = (uint32_t)(key_len / 4 + 6);
        memcpy(ks + 256 * half, w, sizeof w);
    }
    aes_gen_secure_zero(fips, sizeof fips);
    aes_gen_secure_zero(w, sizeof w);
}

/* A GF(2)-linear map of a byte given by the images of its bits, without a
 * secret-dependent index or branch. */
static uint8_t linear_map(const uint8_t cols[8], uint8_t x)
{
    uint8_t y = 0;
    for (int b = 0; b < 8; b++)
        y ^= cols[b] & (uint8_t)-((x >> b) & 1);
    return y;
}

/* `vpaes`: each round key in the representation of the state it is added to
 * (gen/aes_math.py, VPAES.round_keys): rk0 and the middle keys as tower
 * bytes (the S-box constant 0x63 folded into encryption's middle and last
 * keys, decryption's state constant into its tower keys), the last key as
 * AES bytes, every byte at its position after r ShiftRows.  Encryption at
 * 0, decryption at 240. */
static void expand_vpaes(const uint8_t *key, size_t key_len, uint8_t *ks)
{
    uint8_t fips[480];
    const size_t rounds = key_len / 4 + 6;
    expand_fips(key, key_len, fips);
    for (int dec = 0; dec < 2; dec++)
        for (size_t r = 0; r <= rounds; r++) {
            const uint8_t *in = fips + 240 * dec + 16 * r;
            uint8_t *out = ks + 240 * dec + 16 * r;
            const uint8_t *pi = aes_gen_vpaes_pi[dec][r % 4];
            for (int p = 0; p < 16; p++) {
                uint8_t t;
                if (r == rounds)
                    t = in[p] ^ (dec ? 0 : 0x63);
                else if (dec)
                    t = linear_map(aes_gen_vpaes_pd, in[p]) ^ aes_gen_vpaes_c_dec;
                else
                    t = linear_map(aes_gen_vpaes_p, r ? in[p] ^ 0x63 : in[p]);
                out[pi[p]] = t;
            }
        }
    aes_gen_secure_zero(fips, sizeof fips);
}

const struct aes_gen_key_format_info aes_gen_key_formats[AES_GEN_KEY_FORMAT_COUNT] = {
    [AES_GEN_KF_fips] = {expand_fips, 0, 240},
    [AES_GEN_KF_openssl] = {expand_openssl, 0, 256},
    [AES_GEN_KF_vpaes] = {expand_vpaes, 0, 240},
};
