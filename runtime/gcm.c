/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AES-GCM (NIST SP 800-38D).  The bulk of a message goes through the key's
 * stitched GCM kernels (CTR with the 32-bit counter and GHASH in one pass)
 * where its backend has them, else through its CTR kernels and the GHASH
 * here; the AAD, the IV of a length other than 12, a partial block, the
 * lengths block and the tag are done here.
 *
 * Field elements are "reflected" (gen/aes_math.py has the derivation and
 * the model this follows): a block read as a big-endian 128-bit integer,
 * kept as two 64-bit halves.  A product a * H multiplies a by the stored key
 * H * x^-1 carry-lessly and folds the 256 bits to 128 in two steps with the
 * constant 0xc2 << 56.  The 64-bit carry-less products come from PCLMULQDQ
 * where the CPU has it, else from integer multiplication of operands whose
 * set bits are 4 apart (32 bits at a time, so no sum reaches the next bit of
 * its class): no table and no branch on the data either way, so GHASH is
 * constant-time on every CPU (as far as integer multiplication is, which it
 * is on x86-64).
 */
#include <string.h>

#include "internal.h"

#define GCM_KEY_MAGIC 0x47434d4bu    /* "GCMK" */
#define GCM_STREAM_MAGIC 0x47434d53u /* "GCMS" */
#define GCM_MAX_LEN (((uint64_t)1 << 36) - 32) /* 2^39 - 256 bits */
#define GCM_FOLD (0xc2ull << 56)
enum { GHASH_INTEGER = 0, GHASH_CLMUL = 1 };
enum { PHASE_AAD = 1, PHASE_DATA = 2 };

typedef struct {
    uint64_t lo, hi;
} gf;

/* The 8 bytes of v in the other order. */
static uint64_t rev64(uint64_t v)
{
#if defined(__GNUC__)
    return __builtin_bswap64(v);
#else
    v = (v & 0x00ff00ff00ff00ffull) << 8 | (v >> 8 & 0x00ff00ff00ff00ffull);
    v = (v & 0x0000ffff0000ffffull) << 16 | (v >> 16 & 0x0000ffff0000ffffull);
    return v << 32 | v >> 32;
#endif
}

static uint64_t load_be64(const uint8_t *p)
{
    return rev64(load_le64(p));
}

static void store_be64(uint8_t *p, uint64_t v)
{
    store_le64(p, rev64(v));
}

/* A block of the message or the AAD, and the state's form (the kernels':
 * the reflected integer little-endian, low half first). */
static gf from_block(const uint8_t b[16])
{
    return (gf){load_be64(b + 8), load_be64(b)};
}

static void to_block(uint8_t b[16], gf x)
{
    store_be64(b, x.hi);
    store_be64(b + 8, x.lo);
}

static gf from_state(const uint8_t s[16])
{
    return (gf){load_le64(s), load_le64(s + 8)};
}

static void to_state(uint8_t s[16], gf x)
{
    store_le64(s, x.lo);
    store_le64(s + 8, x.hi);
}

/* --- 64 x 64 -> 128-bit carry-less products ------------------------------------ */

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("pclmul,sse2"))) static void clmul_hw(uint64_t a, uint64_t b, uint64_t *lo,
                                                            uint64_t *hi)
{
    const __m128i p = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)a),
                                           _mm_cvtsi64_si128((long long)b), 0x00);
    *lo = (uint64_t)_mm_cvtsi128_si64(p);
    *hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(p, p));
}
#endif

/* 32 x 32 -> 64 bits, carry-less, by integer products of the four classes of
 * bits (position mod 4): a class has 8 bits, so a position's count is at
 * most 8 and its carries stay below the next bit of its class. */
static uint64_t bmul32(uint32_t x, uint32_t y)
{
    const uint64_t m0 = 0x1111111111111111ull, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
    const uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
    const uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
    const uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    const uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    const uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    const uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
    return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

/* 64 x 64 by three 32 x 32 (Karatsuba). */
static void clmul_int(uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
    const uint32_t a0 = (uint32_t)a, a1 = (uint32_t)(a >> 32);
    const uint32_t b0 = (uint32_t)b, b1 = (uint32_t)(b >> 32);
    const uint64_t l = bmul32(a0, b0), h = bmul32(a1, b1);
    const uint64_t m = bmul32(a0 ^ a1, b0 ^ b1) ^ l ^ h;
    *lo = l ^ m << 32;
    *hi = h ^ m >> 32;
}

static void clmul64(int how, uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
#if defined(__x86_64__)
    if (how == GHASH_CLMUL) {
        clmul_hw(a, b, lo, hi);
        return;
    }
#endif
    clmul_int(a, b, lo, hi);
}

/* a * K for a stored key power k = K * x^-1: the products, then the two folds. */
static gf gf_mul(int how, gf a, gf k)
{
    uint64_t q[4], t0, t1, m0, m1, n0, n1;
    clmul64(how, a.lo, k.lo, &q[0], &q[1]);
    clmul64(how, a.hi, k.hi, &q[2], &q[3]);
    clmul64(how, a.lo, k.hi, &m0, &m1);
    clmul64(how, a.hi, k.lo, &n0, &n1);
    q[1] ^= m0 ^ n0;
    q[2] ^= m1 ^ n1;
    clmul64(how, q[0], GCM_FOLD, &t0, &t1);
    q[1] ^= t0;
    q[2] ^= t1 ^ q[0];
    clmul64(how, q[1], GCM_FOLD, &t0, &t1);
    q[2] ^= t0;
    q[3] ^= t1 ^ q[1];
    return (gf){q[2], q[3]};
}

/* The stored form of a reflected H: H * x^-1, the integer shifted left by one
 * with x^-1 = 0xc2..01 added for the bit shifted out (by a mask, no branch). */
static gf stored_key(gf h)
{
    const uint64_t carry = 0 - (h.hi >> 63);
    return (gf){h.lo << 1 ^ (carry & 1), (h.hi << 1 | h.lo >> 63) ^ (carry & (0xc2ull << 56))};
}

static gf key_power(const aes_gen_gcm_key *gk, unsigned k)
{
    return from_state(gk->private_htable[0][AES_GEN_GCM_POWERS - k]);
}

/* y = GHASH over n whole blocks of p, continued. */
static gf ghash_blocks(const aes_gen_gcm_key *gk, gf y, const uint8_t *p, size_t n)
{
    const gf h = key_power(gk, 1);
    for (; n; n--, p += 16) {
        const gf x = from_block(p);
        y = gf_mul((int)gk->private_ghash, (gf){y.lo ^ x.lo, y.hi ^ x.hi}, h);
    }
    return y;
}

/* --- keys -------------------------------------------------------------------------- */

static int gcm_key_is_set(const aes_gen_gcm_key *gk)
{
    return gk && gk->private_magic == GCM_KEY_MAGIC && aes_gen_key_is_set(&gk->private_aes);
}

/* The powers the key's GCM kernels read (their widest width, and one for the
 * lengths block after a tail of that many blocks), at least H. */
static unsigned powers_needed(const aes_gen_key *k)
{
    unsigned n = 1;
    for (int md = 0; md < AES_GEN_MODE_COUNT; md++)
        if (aes_gen_modes[md].family == AES_GEN_FAMILY_GCM && k->private_kernels[md][1]) {
            const unsigned w = aes_gen_registry[k->private_kernels[md][0]].width + 1;
            n = w > n ? w : n;
        }
    return n;
}

/* For one whole message of len bytes: the widest of the key's GCM kernels,
 * but for a message of one block or less the narrowest of width > 1 (every
 * width is at least 2 blocks, so all of it runs in that kernel's tail).  Measured on AVX-512 (Zen 4), one-shot
 * calls: 16 bytes on vaes512's width 4 (xmm) take 0.8x the time of width
 * 32's masked zmm tail; from 32 bytes up the zmm tail is faster.  Chosen
 * once, at setkey (one_shot_choice), read per call (one_shot_kernel). */
static size_t one_shot_choice(const aes_gen_key *k, int decrypt, int long_message)
{
    const enum aes_gen_mode_dir md = decrypt ? AES_GEN_MD_gcm_dec : AES_GEN_MD_gcm_enc;
    const size_t first = k->private_kernels[md][0], count = k->private_kernels[md][1];
    if (!count)
        return 0;
    for (size_t i = first + count - 1; i > first && !long_message; i--) /* narrowest first */
        if (aes_gen_registry[i].width > 1)
            return i + 1;
    return first + 1;
}

static int gcm_setkey_with(aes_gen_gcm_key *gk, int err)
{
    uint8_t zero[16] = {0}, hblock[16];
    if (err)
        return err;
    aes_gen_ecb_encrypt(&gk->private_aes, hblock, zero, 16);
    gk->private_ghash = aes_gen_cpu_features() & AES_GEN_CPU_PCLMUL ? GHASH_CLMUL : GHASH_INTEGER;
    gk->private_npowers = (uint16_t)powers_needed(&gk->private_aes);
    for (int dec = 0; dec < 2; dec++)
        for (int long_message = 0; long_message < 2; long_message++)
            gk->private_one_shot[dec][long_message] =
                (uint16_t)one_shot_choice(&gk->private_aes, dec, long_message);
    memset(gk->private_htable, 0, sizeof gk->private_htable);
    const gf h1 = stored_key(from_block(hblock));
    gf p = h1;
    for (unsigned k = 1; k <= gk->private_npowers; k++) {
        uint8_t *at = gk->private_htable[0][AES_GEN_GCM_POWERS - k];
        uint8_t *sum = gk->private_htable[1][AES_GEN_GCM_POWERS - k];
        to_state(at, p);
        store_le64(sum, p.lo ^ p.hi);
        store_le64(sum + 8, p.lo ^ p.hi);
        /* H^(k+1) x^-1 = (H^k x^-1) * H: the stored power times H */
        p = gf_mul((int)gk->private_ghash, p, h1);
    }
    gk->private_magic = GCM_KEY_MAGIC;
    aes_gen_secure_zero(hblock, sizeof hblock);
    aes_gen_secure_zero(&p, sizeof p);
    aes_gen_clear_registers();
    return AES_GEN_OK;
}

int aes_gen_gcm_setkey(aes_gen_gcm_key *gk, const void *key, size_t key_len)
{
    if (!gk)
        return AES_GEN_EARG;
    return gcm_setkey_with(gk, aes_gen_setkey(&gk->private_aes, key, key_len));
}

int aes_gen_gcm_setkey_backend(aes_gen_gcm_key *gk, const void *key, size_t key_len,
                               const char *backend)
{
    if (!gk)
        return AES_GEN_EARG;
    return gcm_setkey_with(gk, aes_gen_setkey_backend(&gk->private_aes, key, key_len, backend));
}

void aes_gen_gcm_wipe(aes_gen_gcm_key *gk)
{
    if (gk)
        aes_gen_secure_zero(gk, sizeof *gk);
}

/* --- the bulk: whole blocks ------------------------------------------------------- */

/* Blocks from counter block ctr until its low 32 bits wrap to 0. */
static uint64_t until_wrap(const uint8_t ctr[16])
{
    const uint32_t c = (uint32_t)(load_be64(ctr + 8) & 0xffffffffu);
    return ((uint64_t)1 << 32) - c;
}

/* The counter's low 32 bits plus n, mod 2^32; the other 96 bits stay. */
static void ctr_add(uint8_t ctr[16], uint64_t n)
{
    const uint64_t v = load_be64(ctr + 8);
    store_be64(ctr + 8, (v & ~0xffffffffull) | ((v + n) & 0xffffffffull));
}

static inline const struct aes_gen_kernel_info *one_shot_kernel(const aes_gen_gcm_key *gk,
                                                                int decrypt, size_t len)
{
    const unsigned i = gk->private_one_shot[decrypt][len > 16];
    return i ? &aes_gen_registry[i - 1] : NULL;
}

const struct aes_gen_kernel_info *aes_gen_gcm_one_shot_kernel(const aes_gen_gcm_key *gk,
                                                              int decrypt, size_t len)
{
    return one_shot_kernel(gk, decrypt, len);
}

static aes_gen_gcm_kernel_fn *gcm_kernel_for(const aes_gen_gcm_key *gk, int decrypt, size_t len)
{
    const struct aes_gen_kernel_info *ki = one_shot_kernel(gk, decrypt, len);
    return ki ? ki->fn.gcm : NULL;
}

/* n whole blocks, none of which crosses a wrap of the counter's low 32 bits,
 * through the key's CTR kernels (the counter then advances as the 32-bit one
 * does) and GHASH of the ciphertext. */
static void bulk_segment(const aes_gen_gcm_key *gk, uint8_t state[32], int decrypt, uint8_t *dst,
                         const uint8_t *src, size_t n)
{
    const aes_gen_key *k = &gk->private_aes;
    gf y = from_state(state);
    if (decrypt)
        y = ghash_blocks(gk, y, src, n);
    aes_gen_crypt(k, AES_GEN_MD_ctr_enc, state + 16, dst, src, 16 * n);
    if (!decrypt)
        y = ghash_blocks(gk, y, dst, n);
    to_state(state, y);
}

static void bulk(const aes_gen_gcm_key *gk, uint8_t state[32], int decrypt, uint8_t *dst,
                 const uint8_t *src, size_t n)
{
    aes_gen_gcm_kernel_fn *fn = gcm_kernel_for(gk, decrypt, SIZE_MAX); /* the widest */
    if (fn) { /* its counter counts modulo 2^32 itself */
        const enum aes_gen_mode_dir md = decrypt ? AES_GEN_MD_gcm_dec : AES_GEN_MD_gcm_enc;
        fn(aes_gen_schedule(&gk->private_aes, md), gk->private_htable[0][0], state, dst, src,
           16 * (uint64_t)n);
        return;
    }
    while (n) {
        const uint64_t room = until_wrap(state + 16);
        const size_t take = room < n ? (size_t)room : n;
        uint8_t prefix[12];
        memcpy(prefix, state + 16, 12);
        bulk_segment(gk, state, decrypt, dst, src, take);
        /* A CTR kernel's carry out of the low 32 bits (at a wrap) does not count. */
        memcpy(state + 16, prefix, 12);
        dst += 16 * take, src += 16 * take, n -= take;
    }
}

/* --- streams ------------------------------------------------------------------------- */

static int stream_valid(const aes_gen_gcm_stream *s)
{
    return s && s->private_magic == GCM_STREAM_MAGIC && gcm_key_is_set(s->private_key) &&
           s->private_num < 16 && (s->private_phase == PHASE_AAD || s->private_phase == PHASE_DATA) &&
           s->private_decrypt <= 1;
}

static void hash_into_state(aes_gen_gcm_stream *s, const uint8_t *p, size_t n)
{
    to_state(s->private_state, ghash_blocks(s->private_key, from_state(s->private_state), p, n));
}

int aes_gen_gcm_init_j0(aes_gen_gcm_stream *s, const aes_gen_gcm_key *gk, int direction,
                        const uint8_t j0[16])
{
    if (!s || !gcm_key_is_set(gk) || !j0 || (direction != AES_GEN_GCM_ENCRYPT &&
                                           direction != AES_GEN_GCM_DECRYPT))
        return AES_GEN_EARG;
    memset(s, 0, sizeof *s);
    s->private_key = gk;
    aes_gen_ecb_encrypt(&gk->private_aes, s->private_ek0, j0, 16);
    memcpy(s->private_state + 16, j0, 16);
    ctr_add(s->private_state + 16, 1);
    s->private_decrypt = direction == AES_GEN_GCM_DECRYPT;
    s->private_phase = PHASE_AAD;
    s->private_magic = GCM_STREAM_MAGIC;
    return AES_GEN_OK;
}

/* y = GHASH over len bytes of p, continued, the last block zero-padded. */
static gf ghash_bytes(const aes_gen_gcm_key *gk, gf y, const uint8_t *p, size_t len)
{
    const size_t whole = len & ~(size_t)15;
    y = ghash_blocks(gk, y, p, whole / 16);
    if (len > whole) {
        uint8_t last[16] = {0};
        memcpy(last, p + whole, len - whole);
        y = ghash_blocks(gk, y, last, 1);
    }
    return y;
}

/* J0: IV || 0^31 || 1 for a 96-bit IV, else GHASH(IV || 0-pad || 0^64 || [len(IV)]_64). */
static void compute_j0(const aes_gen_gcm_key *gk, const uint8_t *iv, size_t iv_len,
                       uint8_t j0[16])
{
    if (iv_len == 12) {
        memcpy(j0, iv, 12);
        j0[12] = j0[13] = j0[14] = 0, j0[15] = 1;
        return;
    }
    uint8_t lengths[16] = {0};
    store_be64(lengths + 8, (uint64_t)iv_len * 8);
    to_block(j0, ghash_blocks(gk, ghash_bytes(gk, (gf){0, 0}, iv, iv_len), lengths, 1));
}

int aes_gen_gcm_init(aes_gen_gcm_stream *s, const aes_gen_gcm_key *gk, int direction,
                     const uint8_t *iv, size_t iv_len)
{
    if (!s || !gcm_key_is_set(gk) || !iv || (direction != AES_GEN_GCM_ENCRYPT &&
                                           direction != AES_GEN_GCM_DECRYPT))
        return AES_GEN_EARG;
    if (!iv_len || iv_len > ((uint64_t)1 << 61) - 1)
        return AES_GEN_ELEN;
    uint8_t j0[16];
    compute_j0(gk, iv, iv_len, j0);
    const int err = aes_gen_gcm_init_j0(s, gk, direction, j0);
    aes_gen_secure_zero(j0, sizeof j0);
    return err;
}

int aes_gen_gcm_aad(aes_gen_gcm_stream *s, const void *aad, size_t aad_len)
{
    if (!stream_valid(s) || (aad_len && !aad))
        return AES_GEN_EARG;
    if (s->private_phase != PHASE_AAD)
        return AES_GEN_ESTATE;
    if (aad_len > ((uint64_t)1 << 61) - 1 - s->private_aad_len)
        return AES_GEN_ELEN;
    const uint8_t *p = aad;
    s->private_aad_len += aad_len;
    while (aad_len && s->private_num) { /* the rest of a started block */
        s->private_partial[s->private_num++] = *p++, aad_len--;
        if (s->private_num == 16) {
            hash_into_state(s, s->private_partial, 1);
            s->private_num = 0;
        }
    }
    const size_t whole = aad_len & ~(size_t)15;
    if (whole)
        hash_into_state(s, p, whole / 16);
    memcpy(s->private_partial + s->private_num, p + whole, aad_len - whole);
    s->private_num += (uint32_t)(aad_len - whole);
    return AES_GEN_OK;
}

/* AAD over: its started block, zero-padded, into the hash. */
static void end_aad(aes_gen_gcm_stream *s)
{
    if (s->private_phase != PHASE_AAD)
        return;
    if (s->private_num) {
        memset(s->private_partial + s->private_num, 0, 16 - s->private_num);
        hash_into_state(s, s->private_partial, 1);
        s->private_num = 0;
    }
    s->private_phase = PHASE_DATA;
}

/* The bytes of a started data block: partial holds the keystream, and
 * becomes the ciphertext as it is used (what the hash takes). */
static void partial_bytes(aes_gen_gcm_stream *s, uint8_t **out, const uint8_t **in, size_t *len)
{
    for (; *len && s->private_num; (*len)--) {
        const uint8_t b = *(*in)++, o = b ^ s->private_partial[s->private_num];
        *(*out)++ = o;
        s->private_partial[s->private_num++] = s->private_decrypt ? b : o;
        if (s->private_num == 16) {
            hash_into_state(s, s->private_partial, 1);
            s->private_num = 0;
        }
    }
}

int aes_gen_gcm_update(aes_gen_gcm_stream *s, void *dst, const void *src, size_t len)
{
    if (!stream_valid(s) || (len && (!dst || !src)))
        return AES_GEN_EARG;
    if (len > GCM_MAX_LEN - s->private_len)
        return AES_GEN_ELEN;
    end_aad(s);
    uint8_t *out = dst;
    const uint8_t *in = src;
    s->private_len += len;
    partial_bytes(s, &out, &in, &len);
    const size_t whole = len & ~(size_t)15;
    if (whole) {
        bulk(s->private_key, s->private_state, (int)s->private_decrypt, out, in, whole / 16);
        out += whole, in += whole, len -= whole;
    }
    if (len) { /* a new partial block: its keystream, then its bytes */
        aes_gen_ecb_encrypt(&s->private_key->private_aes, s->private_partial,
                            s->private_state + 16, 16);
        ctr_add(s->private_state + 16, 1);
        for (size_t i = 0; i < len; i++) {
            const uint8_t b = in[i], o = b ^ s->private_partial[i];
            out[i] = o;
            s->private_partial[i] = s->private_decrypt ? b : o;
        }
        s->private_num = (uint32_t)len;
    }
    aes_gen_clear_registers();
    return AES_GEN_OK;
}

/* The tag of the stream so far: the last partial block and the lengths into
 * the hash, then E(J0) ^ hash. */
static void compute_tag(aes_gen_gcm_stream *s, uint8_t tag[16])
{
    uint8_t lengths[16];
    end_aad(s);
    if (s->private_num) {
        memset(s->private_partial + s->private_num, 0, 16 - s->private_num);
        hash_into_state(s, s->private_partial, 1);
    }
    store_be64(lengths, s->private_aad_len * 8);
    store_be64(lengths + 8, s->private_len * 8);
    hash_into_state(s, lengths, 1);
    to_block(tag, from_state(s->private_state));
    for (int i = 0; i < 16; i++)
        tag[i] ^= s->private_ek0[i];
}

static int tag_len_ok(size_t tag_len)
{
    return tag_len >= 4 && tag_len <= 16;
}

int aes_gen_gcm_final(aes_gen_gcm_stream *s, uint8_t *tag, size_t tag_len)
{
    uint8_t full[16];
    if (!stream_valid(s) || !tag)
        return AES_GEN_EARG;
    if (!tag_len_ok(tag_len))
        return AES_GEN_ELEN;
    compute_tag(s, full);
    memcpy(tag, full, tag_len);
    aes_gen_secure_zero(full, sizeof full);
    aes_gen_secure_zero(s, sizeof *s);
    aes_gen_clear_registers();
    return AES_GEN_OK;
}

/* Whether the first tag_len bytes of the tags differ, in constant time: every
 * byte compared (16 at once where SSE2 is), one OR, no early exit. */
static int tags_differ(const uint8_t full[16], const uint8_t *tag, size_t tag_len)
{
#if defined(__x86_64__)
    if (tag_len == 16) {
        const __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)full),
                                          _mm_loadu_si128((const __m128i *)(const void *)tag));
        return _mm_movemask_epi8(eq) != 0xffff;
    }
#endif
    uint8_t diff = 0;
    for (size_t i = 0; i < tag_len; i++)
        diff |= full[i] ^ tag[i];
    return diff != 0;
}

int aes_gen_gcm_verify(aes_gen_gcm_stream *s, const uint8_t *tag, size_t tag_len)
{
    uint8_t full[16];
    if (!stream_valid(s) || !tag)
        return AES_GEN_EARG;
    if (!tag_len_ok(tag_len))
        return AES_GEN_ELEN;
    compute_tag(s, full);
    const int diff = tags_differ(full, tag, tag_len);
    aes_gen_secure_zero(full, sizeof full);
    aes_gen_secure_zero(s, sizeof *s);
    aes_gen_clear_registers();
    return diff ? AES_GEN_EAUTH : AES_GEN_OK;
}

/* --- one shot ----------------------------------------------------------------------- */

/* The checks of both directions, before anything is written. */
static int one_shot_checks(const aes_gen_gcm_key *gk, const uint8_t *iv, size_t iv_len,
                           const void *aad, size_t aad_len, void *dst, const void *src, size_t len,
                           const void *tag, size_t tag_len)
{
    if (!gcm_key_is_set(gk) || !iv || !tag || (aad_len && !aad) || (len && (!dst || !src)))
        return AES_GEN_EARG;
    if (!iv_len || !tag_len_ok(tag_len) || len > GCM_MAX_LEN ||
        aad_len > ((uint64_t)1 << 61) - 1)
        return AES_GEN_ELEN;
    return AES_GEN_OK;
}

/* n <= 8 bytes, little-endian, read a byte at a time: a caller that has
 * just written the IV byte by byte (a TLS record's nonce, the IV XOR the
 * sequence number) would stall a wider load until those stores retire,
 * which is after the previous message's kernel; byte loads are forwarded
 * from them, and from wider stores too.  (volatile: not merged.) */
static inline uint64_t load_iv_bytes(const uint8_t *p, int n)
{
    const volatile uint8_t *b = p;
    uint64_t t[8] = {0};
    for (int i = 0; i < n; i++) /* independent shifts, an OR tree: short latency */
        t[i] = (uint64_t)b[i] << 8 * i;
    return ((t[0] | t[1]) | (t[2] | t[3])) | ((t[4] | t[5]) | (t[6] | t[7]));
}

/* A whole message through one call of the key's GCM kernel: J0, the AAD's
 * hash and the lengths block here, the rest (and E(J0), the tag) in the
 * kernel, which leaves the tag at st + 48 and zeroes E(J0) and the hash.
 * Encryption writes tag_len bytes of it to tag_out; decryption compares them
 * with tag_in in constant time and returns whether they differ. */
static inline __attribute__((always_inline)) int one_call(const aes_gen_gcm_key *gk,
                                                          aes_gen_gcm_kernel_fn *fn, int decrypt,
                     const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                     uint8_t *dst, const uint8_t *src, size_t len, uint8_t *tag_out,
                     const uint8_t *tag_in, size_t tag_len)
{
    /* the hash (reflected), the counter, J0, the lengths block -> the tag */
    AES_GEN_ALIGN64 uint8_t st[64];
    uint8_t j0[16];
    uint64_t lo, hi, ctr_hi;
    if (iv_len == 12) { /* J0 = IV || 00 00 00 01, the counter block IV || 00 00 00 02 */
        lo = load_iv_bytes(iv, 8);
        hi = load_iv_bytes(iv + 8, 4) | (uint64_t)1 << 56;
        ctr_hi = hi + ((uint64_t)1 << 56);
    } else {
        compute_j0(gk, iv, iv_len, j0);
        lo = load_le64(j0), hi = load_le64(j0 + 8);
        ctr_add(j0, 1);
        ctr_hi = load_le64(j0 + 8);
    }
    const gf y = aad_len ? ghash_bytes(gk, (gf){0, 0}, aad, aad_len) : (gf){0, 0};
    store_le128(st, y.lo, y.hi);
    store_le128(st + 16, lo, ctr_hi);
    store_le128(st + 32, lo, hi);
    store_le128(st + 48, rev64((uint64_t)aad_len * 8), rev64((uint64_t)len * 8)); /* big-endian */
    const enum aes_gen_mode_dir md = decrypt ? AES_GEN_MD_gcm_dec : AES_GEN_MD_gcm_enc;
    fn(aes_gen_schedule(&gk->private_aes, md), gk->private_htable[0][0], st, dst, src,
       len | AES_GEN_GCM_LAST);
    int diff = 0;
    if (decrypt)
        diff = tags_differ(st + 48, tag_in, tag_len);
    else if (tag_len == 16) /* one 16-byte copy, not a call */
        memcpy(tag_out, st + 48, 16);
    else
        memcpy(tag_out, st + 48, tag_len);
    aes_gen_secure_zero(st + 48, 16); /* the right tag for a forgery, when decrypting */
    if (aad_len || iv_len != 12)
        aes_gen_clear_registers(); /* the C GHASH's key powers */
    return diff;
}

int aes_gen_gcm_encrypt(const aes_gen_gcm_key *gk, const uint8_t *iv, size_t iv_len,
                        const void *aad, size_t aad_len, void *dst, const void *src, size_t len,
                        uint8_t *tag, size_t tag_len)
{
    aes_gen_gcm_stream s;
    int err = one_shot_checks(gk, iv, iv_len, aad, aad_len, dst, src, len, tag, tag_len);
    aes_gen_gcm_kernel_fn *fn = err ? NULL : gcm_kernel_for(gk, 0, len);
    if (fn) {
        one_call(gk, fn, 0, iv, iv_len, aad, aad_len, dst, src, len, tag, NULL, tag_len);
        return AES_GEN_OK;
    }
    if (!err)
        err = aes_gen_gcm_init(&s, gk, AES_GEN_GCM_ENCRYPT, iv, iv_len);
    if (!err)
        err = aes_gen_gcm_aad(&s, aad, aad_len);
    if (!err)
        err = aes_gen_gcm_update(&s, dst, src, len);
    if (!err)
        err = aes_gen_gcm_final(&s, tag, tag_len);
    aes_gen_secure_zero(&s, sizeof s);
    return err;
}

int aes_gen_gcm_decrypt(const aes_gen_gcm_key *gk, const uint8_t *iv, size_t iv_len,
                        const void *aad, size_t aad_len, void *dst, const void *src, size_t len,
                        const uint8_t *tag, size_t tag_len)
{
    aes_gen_gcm_stream s;
    int err = one_shot_checks(gk, iv, iv_len, aad, aad_len, dst, src, len, tag, tag_len);
    aes_gen_gcm_kernel_fn *fn = err ? NULL : gcm_kernel_for(gk, 1, len);
    if (fn) {
        if (one_call(gk, fn, 1, iv, iv_len, aad, aad_len, dst, src, len, NULL, tag, tag_len)) {
            aes_gen_secure_zero(dst, len); /* no unauthenticated plaintext */
            return AES_GEN_EAUTH;
        }
        return AES_GEN_OK;
    }
    if (!err)
        err = aes_gen_gcm_init(&s, gk, AES_GEN_GCM_DECRYPT, iv, iv_len);
    if (!err)
        err = aes_gen_gcm_aad(&s, aad, aad_len);
    if (!err)
        err = aes_gen_gcm_update(&s, dst, src, len);
    if (!err) {
        err = aes_gen_gcm_verify(&s, tag, tag_len);
        if (err == AES_GEN_EAUTH)
            aes_gen_secure_zero(dst, len); /* no unauthenticated plaintext */
    }
    aes_gen_secure_zero(&s, sizeof s);
    return err;
}
