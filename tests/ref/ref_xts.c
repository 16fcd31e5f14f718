/* SPDX-License-Identifier: Apache-2.0 */
/* XTS-AES from IEEE 1619-2007 (section 5), on the textbook AES of ref_aes.c,
 * byte by byte as the standard writes it: nothing is shared with runtime/. */
#include <string.h>

#include "ref_aes.h"

/* 5.2: T = T * alpha, the block a little-endian 128-bit number: each byte
 * shifted left by one with the carry from the byte below, and 135 added to
 * byte 0 when a bit leaves byte 15. */
static void times_alpha(uint8_t t[16])
{
    int carry = 0;
    for (int j = 0; j < 16; j++) {
        const int out = t[j] >> 7;
        t[j] = (uint8_t)(t[j] << 1 | carry);
        carry = out;
    }
    if (carry)
        t[0] ^= 135;
}

/* 5.3.1 / 5.4.1: one block with tweak t. */
static void block(const ref_key *k1, int decrypt, const uint8_t t[16], const uint8_t in[16],
                  uint8_t out[16])
{
    uint8_t pp[16], cc[16];
    for (int j = 0; j < 16; j++)
        pp[j] = in[j] ^ t[j];
    if (decrypt)
        ref_decrypt_block(k1, pp, cc);
    else
        ref_encrypt_block(k1, pp, cc);
    for (int j = 0; j < 16; j++)
        out[j] = cc[j] ^ t[j];
}

void ref_xts_block(const ref_key *k1, int decrypt, uint8_t t[16], const uint8_t in[16],
                   uint8_t out[16])
{
    block(k1, decrypt, t, in, out);
    times_alpha(t);
}

void ref_xts(const uint8_t *key, size_t key_len, int decrypt, const uint8_t tweak[16],
             uint8_t *dst, const uint8_t *src, size_t len)
{
    ref_key k1, k2;
    ref_setkey(&k1, key, key_len / 2);
    ref_setkey(&k2, key + key_len / 2, key_len / 2);
    const size_t m = len / 16, b = len % 16;
    uint8_t t[16], last[16], stolen[16], in[16];
    ref_encrypt_block(&k2, tweak, t);
    for (size_t q = 0; q + (b ? 1 : 0) < m; q++) { /* all but the last whole one if b */
        block(&k1, decrypt, t, src + 16 * q, dst + 16 * q);
        times_alpha(t);
    }
    if (!b)
        return;
    /* 5.3.2 / 5.4.2: the last whole block and the b bytes after it; the
     * decryption takes T_m before T_{m-1}. */
    uint8_t t_next[16];
    memcpy(t_next, t, 16);
    times_alpha(t_next);
    memcpy(in, src + 16 * (m - 1), 16);
    block(&k1, decrypt, decrypt ? t_next : t, in, last);
    memcpy(stolen, src + 16 * m, b);
    memcpy(stolen + b, last + b, 16 - b);
    memcpy(dst + 16 * m, last, b);
    block(&k1, decrypt, decrypt ? t : t_next, stolen, dst + 16 * (m - 1));
}
