/* SPDX-License-Identifier: Apache-2.0 */
/* Key formats: the expanded-key layouts backends' kernels take.  `fips` is the
 * FIPS-197 key expansion (5.2) followed by the equivalent-inverse decryption
 * schedule (5.3.5), each (rounds + 1) x 16 bytes: the format of every
 * generated kernel so far.  A backend with its own layout (vpaes, TILE-Gx)
 * adds a format here and names it in gen/variants.py. */
#include <string.h>

#include "internal.h"
#include "tables.h"

/* Nothing here indexes memory or branches on key bytes (cache and branch
 * timing).  With AES-NI the generated key setup does it all; else SubWord by
 * the vector-permutation S-box (SSSE3: pshufb of 4-bit indices into 16-byte
 * registers, aes_math.VPAES) or by reading the whole S-box and keeping the
 * entry by a mask, and InvMixColumns four bytes at a time with shifts and
 * masks. */
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

/* Each byte of w times x in GF(2^8). */
static uint32_t xtime4(uint32_t w)
{
    return ((w & 0x7f7f7f7fu) << 1) ^ (((w >> 7) & 0x01010101u) * 0x1b);
}

static uint32_t rot8(uint32_t w, int bytes)
{
    return w >> (8 * bytes) | w << (32 - 8 * bytes);
}

/* InvMixColumns of n round keys: per column (bytes a0..a3 of a little-endian
 * word), a0 ^= 4(a0 ^ a2) and so on, then MixColumns (FIPS-197's inverse
 * matrix is the forward one times 4x^2 + 5). */
static void inv_mix_columns(uint8_t *rk, size_t n)
{
    for (size_t c = 0; c < 4 * n; c++) {
        uint32_t w;
        memcpy(&w, rk + 4 * c, 4);
        w ^= xtime4(xtime4(w ^ rot8(w, 2)));
        const uint32_t r1 = rot8(w, 1);
        w = xtime4(w ^ r1) ^ r1 ^ rot8(w, 2) ^ rot8(w, 3);
        memcpy(rk + 4 * c, &w, 4);
    }
}

static uint32_t sub_word32(uint32_t v)
{
    uint8_t w[4];
    memcpy(w, &v, 4);
    sub_word(w);
    memcpy(&v, w, 4);
    return v;
}

/* FIPS-197 5.2: the encryption schedule. */
static void expand_encryption(const uint8_t *key, size_t key_len, uint8_t *enc)
{
    const size_t nk = key_len / 4, words = 4 * (nk + 7);
    uint32_t w[60]; /* little-endian words: byte 0 of a column in bits 0-7 */
    memcpy(w, key, key_len);
    /* j = i % nk and n = i / nk - 1 kept by counting: no division per word. */
    for (size_t i = nk, j = 0, n = 0; i < words; i++) {
        uint32_t t = w[i - 1];
        if (j == 0)
            t = sub_word32(t >> 8 | t << 24) ^ aes_gen_rcon[n];
        else if (nk > 6 && j == 4)
            t = sub_word32(t);
        w[i] = w[i - nk] ^ t;
        if (++j == nk)
            j = 0, n++;
    }
    memcpy(enc, w, 4 * words);
    aes_gen_secure_zero(w, sizeof w);
}

#if defined(AES_GEN_HAVE_AESNI_KEY_SETUP_K128) && defined(__x86_64__)
/* The generated key setups in preference order, each with the CPU features
 * its instructions need (kernels.h: AES_GEN_NEEDS_*, from its program). */
static const struct {
    unsigned key_bits;
    uint32_t needs;
    void (*setup)(const uint8_t *key, uint8_t *ks);
} generated_setups[] = {
#define SETUPS(flavor, FLAVOR) \
    {128, AES_GEN_NEEDS_##FLAVOR##_KEY_SETUP_K128, aes_gen_##flavor##_key_setup_k128}, \
    {192, AES_GEN_NEEDS_##FLAVOR##_KEY_SETUP_K192, aes_gen_##flavor##_key_setup_k192}, \
    {256, AES_GEN_NEEDS_##FLAVOR##_KEY_SETUP_K256, aes_gen_##flavor##_key_setup_k256}
#if defined(AES_GEN_HAVE_AVX512_KEY_SETUP_K128)
    SETUPS(avx512, AVX512),
#endif
    SETUPS(aesni, AESNI),
#undef SETUPS
};
#endif

void (*aes_gen_generated_setup(enum aes_gen_key_format format, unsigned key_bits,
                               uint32_t have))(const uint8_t *key, uint8_t *ks)
{
#if defined(AES_GEN_HAVE_AESNI_KEY_SETUP_K128) && defined(__x86_64__)
    for (size_t i = 0; format == AES_GEN_KF_fips && i < sizeof generated_setups /
                                                          sizeof generated_setups[0]; i++)
        if (generated_setups[i].key_bits == key_bits &&
            (have & generated_setups[i].needs) == generated_setups[i].needs)
            return generated_setups[i].setup;
#endif
    (void)format, (void)key_bits, (void)have;
    return NULL;
}

/* The generated AES-NI key setup where the CPU has AES-NI (the aesni
 * backend's, gen/x86/keysetup.py), else the C below. */
static void expand_fips(const uint8_t *key, size_t key_len, uint8_t *ks)
{
    void (*setup)(const uint8_t *, uint8_t *) =
        aes_gen_generated_setup(AES_GEN_KF_fips, (unsigned)key_len * 8, aes_gen_cpu_features());
    if (setup) {
        setup(key, ks);
        return;
    }
    uint8_t *enc = ks, *dec = ks + AES_GEN_DEC_KEYS;
    const size_t rounds = aes_gen_rounds(key_len);
    expand_encryption(key, key_len, enc);
    /* FIPS-197 5.3.5: reversed order, InvMixColumns on all but the outer two. */
    for (size_t r = 0; r <= rounds; r++)
        memcpy(dec + 16 * r, enc + 16 * (rounds - r), 16);
    inv_mix_columns(dec + 16, rounds - 1);
}

/* `openssl`: the same schedules as OpenSSL's AES_KEY holds them (the TILE-Gx
 * code's format): rd_key words, each four key bytes as a big-endian number,
 * then the round count; encryption at 0, decryption at 256. */
static void expand_openssl(const uint8_t *key, size_t key_len, uint8_t *ks)
{
    uint8_t fips[AES_GEN_FORMAT_BYTES] = {0}; /* past a shorter key's schedules: zeros */
    uint32_t w[61];
    expand_fips(key, key_len, fips);
    for (int half = 0; half < 2; half++) {
        for (int i = 0; i < 60; i++) {
            const uint8_t *b = fips + AES_GEN_DEC_KEYS * half + 4 * i;
            w[i] = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        }
        w[60] = aes_gen_rounds(key_len);
        memcpy(ks + AES_GEN_DEC_KEYS * half, w, sizeof w);
    }
    aes_gen_secure_zero(fips, sizeof fips);
    aes_gen_secure_zero(w, sizeof w);
}

/* `vpaes`: each round key in the representation of the state it is added to
 * (gen/aes_math.py, VPAES.round_keys): rk0 and the middle keys as tower
 * bytes (the S-box constant 0x63 folded into encryption's middle and last
 * keys, decryption's state constant into its tower keys), the last key as
 * AES bytes, every byte at its position after r ShiftRows.  Encryption at
 * 0, decryption at 256.  The maps by pshufb: no key byte indexes memory. */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("ssse3"))) static void vpaes_keys_ssse3(const uint8_t *fips, uint8_t *ks,
                                                               size_t rounds)
{
    const __m128i *t = (const __m128i *)aes_gen_vpaes_key_tables, m = _mm_set1_epi8(0x0f);
    const __m128i s63 = _mm_set1_epi8(0x63), cdec = _mm_set1_epi8((char)aes_gen_vpaes_c_dec);
    for (int dec = 0; dec < 2; dec++)
        for (size_t r = 0; r <= rounds; r++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(fips + AES_GEN_DEC_KEYS * dec + 16 * r));
            if (r == rounds) {
                x = dec ? x : _mm_xor_si128(x, s63);
            } else {
                if (!dec && r)
                    x = _mm_xor_si128(x, s63);
                const __m128i *map = t + 2 * dec;
                x = _mm_xor_si128(_mm_shuffle_epi8(map[0], _mm_and_si128(x, m)),
                                  _mm_shuffle_epi8(map[1], _mm_and_si128(_mm_srli_epi32(x, 4), m)));
                if (dec)
                    x = _mm_xor_si128(x, cdec);
            }
            x = _mm_shuffle_epi8(x, _mm_loadu_si128((const __m128i *)aes_gen_vpaes_pi_inv[dec][r % 4]));
            _mm_storeu_si128((__m128i *)(ks + AES_GEN_DEC_KEYS * dec + 16 * r), x);
        }
}
#endif

static void expand_vpaes(const uint8_t *key, size_t key_len, uint8_t *ks)
{
    uint8_t fips[AES_GEN_FORMAT_BYTES];
    expand_fips(key, key_len, fips);
#if defined(__x86_64__) || defined(__i386__)
    vpaes_keys_ssse3(fips, ks, aes_gen_rounds(key_len)); /* every vpaes backend needs SSSE3 */
#else
    memset(ks, 0, AES_GEN_FORMAT_BYTES); /* no vpaes backend is built for this architecture */
#endif
    aes_gen_secure_zero(fips, sizeof fips);
}

_Static_assert(AES_GEN_KEY_FORMAT_COUNT == 3,
               "a key format added to gen/variants.py needs its expansion here");
const struct aes_gen_key_format_info aes_gen_key_formats[AES_GEN_KEY_FORMAT_COUNT] = {
    [AES_GEN_KF_fips] = {"fips", expand_fips},
    [AES_GEN_KF_openssl] = {"openssl", expand_openssl},
    [AES_GEN_KF_vpaes] = {"vpaes", expand_vpaes},
};

int aes_gen_expand_key(const char *format, const void *key, size_t key_len, int decrypt,
                       uint8_t *out, size_t out_size)
{
    if (!format || !key || !out)
        return AES_GEN_EARG;
    if (key_len != 16 && key_len != 24 && key_len != 32)
        return AES_GEN_EKEYLEN;
    const size_t bytes = 16 * (aes_gen_rounds(key_len) + 1);
    if (out_size < bytes)
        return AES_GEN_ESPACE;
    for (int f = 0; f < AES_GEN_KEY_FORMAT_COUNT; f++) {
        if (strcmp(aes_gen_key_formats[f].name, format) != 0)
            continue;
        /* The vpaes representation is computed with SSSE3 (as its backends run). */
#if defined(__x86_64__) || defined(__i386__)
        if (f == AES_GEN_KF_vpaes && !(aes_gen_cpu_features() & AES_GEN_CPU_SSSE3))
            return AES_GEN_EBACKEND;
#else
        if (f == AES_GEN_KF_vpaes)
            return AES_GEN_EBACKEND;
#endif
        const struct aes_gen_key_format_info *info = &aes_gen_key_formats[f];
        uint8_t ks[AES_GEN_FORMAT_BYTES];
        memset(ks, 0, sizeof ks);
        info->expand(key, key_len, ks);
        memcpy(out, ks + (decrypt ? AES_GEN_DEC_KEYS : 0), bytes);
        aes_gen_secure_zero(ks, sizeof ks);
        aes_gen_clear_registers(); /* C may have held key words in vector registers */
        return AES_GEN_OK;
    }
    return AES_GEN_EMODE;
}
