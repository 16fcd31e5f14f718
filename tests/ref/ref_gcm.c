/* SPDX-License-Identifier: Apache-2.0 */
/* GCM from NIST SP 800-38D, section 6 and 7, on the textbook AES of
 * ref_aes.c: nothing here is shared with runtime/ or gen/. */
#include <string.h>

#include "ref_aes.h"

/* Algorithm 1: Z = X * Y, bit 0 the leftmost bit of the block. */
void ref_gf128_mul(const uint8_t x[16], const uint8_t y[16], uint8_t out[16])
{
    uint8_t z[16] = {0}, v[16];
    memcpy(v, y, 16);
    for (int i = 0; i < 128; i++) {
        if (x[i / 8] >> (7 - i % 8) & 1)
            for (int j = 0; j < 16; j++)
                z[j] ^= v[j];
        const int lsb = v[15] & 1;
        for (int j = 15; j > 0; j--)
            v[j] = (uint8_t)(v[j] >> 1 | v[j - 1] << 7);
        v[0] >>= 1;
        if (lsb)
            v[0] ^= 0xe1; /* R = 11100001 || 0^120 */
    }
    memcpy(out, z, 16);
}

void ref_ghash(const uint8_t h[16], uint8_t y[16], const uint8_t *p, size_t len)
{
    for (size_t off = 0; off < len; off += 16) {
        uint8_t block[16] = {0};
        memcpy(block, p + off, len - off < 16 ? len - off : 16);
        for (int j = 0; j < 16; j++)
            y[j] ^= block[j];
        ref_gf128_mul(y, h, y);
    }
}

static void hash_key(const ref_key *k, uint8_t h[16])
{
    const uint8_t zero[16] = {0};
    ref_encrypt_block(k, zero, h);
}

static void lengths(uint8_t block[16], uint64_t a_bits, uint64_t c_bits)
{
    for (int i = 0; i < 8; i++) {
        block[7 - i] = (uint8_t)(a_bits >> (8 * i));
        block[15 - i] = (uint8_t)(c_bits >> (8 * i));
    }
}

/* 7.1 step 2. */
void ref_gcm_j0(const ref_key *k, const uint8_t *iv, size_t iv_len, uint8_t j0[16])
{
    uint8_t h[16], len_block[16];
    if (iv_len == 12) {
        memcpy(j0, iv, 12);
        j0[12] = j0[13] = j0[14] = 0;
        j0[15] = 1;
        return;
    }
    hash_key(k, h);
    memset(j0, 0, 16);
    ref_ghash(h, j0, iv, iv_len);
    lengths(len_block, 0, (uint64_t)iv_len * 8);
    ref_ghash(h, j0, len_block, 16);
}

void ref_gcm(const ref_key *k, int decrypt, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
             size_t aad_len, uint8_t *dst, const uint8_t *src, size_t len, uint8_t tag[16])
{
    uint8_t h[16], j0[16], ctr[16], s[16] = {0}, len_block[16], ek0[16];
    hash_key(k, h);
    ref_gcm_j0(k, iv, iv_len, j0);
    /* GHASH over A || pad || C || pad || [len(A)]_64 || [len(C)]_64 */
    ref_ghash(h, s, aad, aad_len);
    if (decrypt)
        ref_ghash(h, s, src, len);
    memcpy(ctr, j0, 16);
    /* inc32(J0) */
    for (int i = 15; i >= 12 && ++ctr[i] == 0; i--)
        ;
    ref_crypt(k, REF_GCM, 0, 32, ctr, dst, src, len);
    if (!decrypt)
        ref_ghash(h, s, dst, len);
    lengths(len_block, (uint64_t)aad_len * 8, (uint64_t)len * 8);
    ref_ghash(h, s, len_block, 16);
    ref_encrypt_block(k, j0, ek0);
    for (int i = 0; i < 16; i++)
        tag[i] = ek0[i] ^ s[i];
}
