/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CBC with PKCS#7 padding, one-shot and in pieces, over the public CBC
 * functions (so the bulk goes through the key's widest kernels).
 *
 * Decryption checks the padding without a branch or an address that depends
 * on the plaintext: the check, the zeroing of the padding and, when the
 * padding is wrong, of the whole output, and the returned length and code
 * are computed with masks.  A caller learns one thing, as the code says:
 * whether the padding was right (CBC without a MAC remains open to a padding
 * oracle through that; authenticate the ciphertext, or use GCM).
 */
#include <stdint.h>
#include <string.h>

#include "internal.h"

#define CBC_STREAM_MAGIC 0x43424353u /* "CBCS" */

/* All ones where a < b, else zero (a, b below 2^32). */
static inline uint64_t ct_lt(uint64_t a, uint64_t b)
{
    return 0 - ((a - b) >> 63);
}

static inline uint64_t ct_is_zero(uint64_t x)
{
    return ct_lt(x, 1);
}

/* The padding of the last plaintext block b: its length n (1..16) and all
 * ones in *good, or 0 and 0.  Every byte of b is read whatever n is. */
static uint64_t padding_check(const uint8_t b[16], uint64_t *good)
{
    const uint64_t n = b[15];
    uint64_t bad = ct_is_zero(n) | ct_lt(16, n);
    for (uint64_t i = 0; i < 16; i++)
        bad |= ct_lt(i, n) & ~ct_is_zero((uint64_t)(b[15 - i] ^ n));
    *good = ~bad;
    return n & *good;
}

/* dst[0..16) = b with its last n bytes zeroed (n = 0 keeps all). */
static void copy_unpadded(uint8_t *dst, const uint8_t b[16], uint64_t n)
{
    for (uint64_t i = 0; i < 16; i++)
        dst[i] = b[i] & (uint8_t)ct_lt(i, 16 - n);
}

/* p[0..len) &= mask (all ones or zero), a word at a time. */
static void mask_bytes(uint8_t *p, size_t len, uint64_t mask)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8)
        store_le64(p + i, load_le64(p + i) & mask);
    for (; i < len; i++)
        p[i] &= (uint8_t)mask;
}

/* The last block of a message with r = len % 16 bytes left: those and the padding. */
static void pad_block(uint8_t block[16], const uint8_t *tail, size_t r)
{
    if (r)
        memcpy(block, tail, r);
    memset(block + r, (int)(16 - r), 16 - r);
}

static int overlap(const void *a, size_t a_len, const void *b, size_t b_len)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return a_len && b_len && x < y + b_len && y < x + a_len;
}

int aes_gen_cbc_encrypt_padded(const aes_gen_key *k, const uint8_t iv[16], void *dst_v,
                               size_t dst_size, size_t *out_len, const void *src_v, size_t len)
{
    uint8_t *dst = dst_v;
    const uint8_t *src = src_v;
    if (!aes_gen_key_is_set(k) || !iv || !dst || !out_len || (len && !src))
        return AES_GEN_EARG;
    const size_t whole = len / 16 * 16;
    if (len > SIZE_MAX - 16 || dst_size < whole + 16)
        return AES_GEN_ESPACE;
    uint8_t chain[16], block[16];
    memcpy(chain, iv, 16);
    pad_block(block, len ? src + whole : NULL, len - whole); /* before dst is written: dst may be src */
    int err = whole ? aes_gen_cbc_encrypt(k, chain, dst, src, whole) : AES_GEN_OK;
    if (err == AES_GEN_OK)
        err = aes_gen_cbc_encrypt(k, chain, dst + whole, block, 16);
    *out_len = err == AES_GEN_OK ? whole + 16 : 0;
    aes_gen_secure_zero(block, sizeof block);
    aes_gen_secure_zero(chain, sizeof chain);
    return err;
}

int aes_gen_cbc_decrypt_padded(const aes_gen_key *k, const uint8_t iv[16], void *dst_v,
                               size_t dst_size, size_t *out_len, const void *src, size_t len)
{
    uint8_t *dst = dst_v;
    if (!aes_gen_key_is_set(k) || !iv || !dst || !out_len || !src)
        return AES_GEN_EARG;
    if (len == 0 || len % 16)
        return AES_GEN_ELEN;
    if (dst_size < len)
        return AES_GEN_ESPACE;
    uint8_t chain[16], last[16];
    memcpy(chain, iv, 16);
    const int err = aes_gen_cbc_decrypt(k, chain, dst, src, len);
    aes_gen_secure_zero(chain, sizeof chain);
    if (err != AES_GEN_OK) {
        *out_len = 0;
        return err;
    }
    uint64_t good;
    memcpy(last, dst + len - 16, 16);
    const uint64_t n = padding_check(last, &good);
    copy_unpadded(dst + len - 16, last, n);
    mask_bytes(dst, len, good);
    aes_gen_secure_zero(last, sizeof last);
    *out_len = (size_t)((len - n) & good);
    return (int)(~good & (uint64_t)(int64_t)AES_GEN_EPADDING);
}

int aes_gen_cbc_stream_init(aes_gen_cbc_stream *s, const aes_gen_key *k, int decrypt,
                            const uint8_t iv[16])
{
    if (!s || !aes_gen_key_is_set(k) || !iv)
        return AES_GEN_EARG;
    memset(s, 0, sizeof *s);
    s->private_key = k;
    memcpy(s->private_iv, iv, 16);
    s->private_decrypt = decrypt != 0;
    s->private_magic = CBC_STREAM_MAGIC;
    return AES_GEN_OK;
}

static int stream_valid(const aes_gen_cbc_stream *s)
{
    return s && s->private_magic == CBC_STREAM_MAGIC && s->private_decrypt <= 1 &&
           s->private_num <= 16 - (s->private_decrypt ? 0 : 1) &&
           aes_gen_key_is_set(s->private_key);
}

static int stream_blocks(aes_gen_cbc_stream *s, uint8_t *dst, const uint8_t *src, size_t len)
{
    return (s->private_decrypt ? aes_gen_cbc_decrypt : aes_gen_cbc_encrypt)(
        s->private_key, s->private_iv, dst, src, len);
}

int aes_gen_cbc_stream_update(aes_gen_cbc_stream *s, void *dst_v, size_t dst_size,
                              size_t *out_len, const void *src_v, size_t len)
{
    uint8_t *dst = dst_v;
    const uint8_t *src = src_v;
    if (!stream_valid(s) || !out_len || (len && (!dst || !src)))
        return AES_GEN_EARG;
    const size_t num = s->private_num;
    if (len > SIZE_MAX - 16)
        return AES_GEN_ESPACE;
    /* Decryption keeps the last block (it carries the padding) for final. */
    const size_t total = num + len;
    const size_t out = s->private_decrypt ? (total ? (total - 1) / 16 * 16 : 0) : total / 16 * 16;
    if (dst_size < out)
        return AES_GEN_ESPACE;
    if (overlap(dst, out, src, len))
        return AES_GEN_EARG;
    size_t done = 0, used = 0;
    int err = AES_GEN_OK;
    if (num && out) { /* the buffered bytes first, completed from src */
        used = 16 - num;
        memcpy(s->private_buf + num, src, used);
        err = stream_blocks(s, dst, s->private_buf, 16);
        done = 16;
    }
    if (err == AES_GEN_OK && out > done)
        err = stream_blocks(s, dst + done, src + used, out - done);
    if (err != AES_GEN_OK) {
        *out_len = 0;
        return err;
    }
    /* What is left (fewer than 16 bytes, or decryption's last block) waits:
     * after an output (which took the buffered bytes), the end of src. */
    const size_t keep = total - out;
    if (out)
        memcpy(s->private_buf, src + (len - keep), keep);
    else if (len)
        memcpy(s->private_buf + num, src, len);
    s->private_num = (uint32_t)keep;
    *out_len = out;
    return AES_GEN_OK;
}

int aes_gen_cbc_stream_final(aes_gen_cbc_stream *s, void *dst_v, size_t dst_size,
                             size_t *out_len)
{
    uint8_t *dst = dst_v;
    if (!stream_valid(s) || !dst || !out_len)
        return AES_GEN_EARG;
    if (dst_size < 16)
        return AES_GEN_ESPACE;
    uint8_t block[16];
    int err;
    if (!s->private_decrypt) {
        pad_block(block, s->private_buf, s->private_num);
        err = stream_blocks(s, dst, block, 16);
        *out_len = err == AES_GEN_OK ? 16 : 0;
    } else if (s->private_num != 16) {
        err = AES_GEN_ELEN; /* no block held: the ciphertext was not a positive multiple of 16 */
        *out_len = 0;
    } else {
        err = stream_blocks(s, block, s->private_buf, 16);
        uint64_t good = 0, n = 0;
        if (err == AES_GEN_OK)
            n = padding_check(block, &good);
        copy_unpadded(dst, block, n);
        mask_bytes(dst, 16, good);
        *out_len = (size_t)((16 - n) & good);
        if (err == AES_GEN_OK)
            err = (int)(~good & (uint64_t)(int64_t)AES_GEN_EPADDING);
    }
    aes_gen_secure_zero(block, sizeof block);
    aes_gen_secure_zero(s, sizeof *s);
    return err;
}
