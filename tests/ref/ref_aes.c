/* SPDX-License-Identifier: Apache-2.0 */
/* See ref_aes.h.  Section numbers refer to FIPS-197 and SP 800-38A. */
#include "ref_aes.h"

#include <string.h>

/* 4.2: multiplication in GF(2^8) by shift-and-add, reducing by x^8+x^4+x^3+x+1. */
static uint8_t mul(uint8_t a, uint8_t b)
{
    unsigned r = 0, x = a;
    for (int i = 0; i < 8; i++) {
        if (b & (1u << i))
            r ^= x;
        x <<= 1;
        if (x & 0x100)
            x ^= 0x11b;
    }
    return (uint8_t)r;
}

/* 5.1.1: b = inverse(x), then b_i ^= b_{i+4} ^ b_{i+5} ^ b_{i+6} ^ b_{i+7} ^ c_i. */
static uint8_t sub_byte(uint8_t x)
{
    uint8_t inv = 0;
    for (unsigned y = 1; y < 256 && x; y++)
        if (mul(x, (uint8_t)y) == 1)
            inv = (uint8_t)y;
    uint8_t out = 0;
    for (int i = 0; i < 8; i++) {
        int bit = (inv >> i & 1) ^ (inv >> ((i + 4) % 8) & 1) ^ (inv >> ((i + 5) % 8) & 1) ^
                  (inv >> ((i + 6) % 8) & 1) ^ (inv >> ((i + 7) % 8) & 1) ^ (0x63 >> i & 1);
        out |= (uint8_t)(bit << i);
    }
    return out;
}

static uint8_t sbox[256], inv_sbox[256];

static void init_sbox(void)
{
    if (sbox[0])
        return;
    for (int x = 0; x < 256; x++) {
        uint8_t s = sub_byte((uint8_t)x);
        inv_sbox[s] = (uint8_t)x;
        sbox[x] = s;
    }
}

uint8_t ref_sbox(uint8_t x)
{
    init_sbox();
    return sbox[x];
}

uint8_t ref_inv_sbox(uint8_t x)
{
    init_sbox();
    return inv_sbox[x];
}

/* 5.2 */
void ref_setkey(ref_key *k, const uint8_t *key, size_t key_len)
{
    const int nk = (int)key_len / 4;
    uint8_t w[60][4], rcon = 1;
    init_sbox();
    k->rounds = nk + 6;
    memcpy(w, key, key_len);
    for (int i = nk; i < 4 * (k->rounds + 1); i++) {
        uint8_t t[4];
        memcpy(t, w[i - 1], 4);
        if (i % nk == 0) {
            uint8_t t0 = t[0];
            t[0] = sbox[t[1]] ^ rcon;
            t[1] = sbox[t[2]];
            t[2] = sbox[t[3]];
            t[3] = sbox[t0];
            rcon = mul(rcon, 2);
        } else if (nk > 6 && i % nk == 4) {
            for (int j = 0; j < 4; j++)
                t[j] = sbox[t[j]];
        }
        for (int j = 0; j < 4; j++)
            w[i][j] = w[i - nk][j] ^ t[j];
    }
    memcpy(k->rk, w, 16 * (size_t)(k->rounds + 1));
}

/* The state s[r][c] is in[r + 4c] (3.4). */
static void add_round_key(uint8_t s[4][4], const uint8_t *rk)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            s[r][c] ^= rk[4 * c + r];
}

static void sub_bytes(uint8_t s[4][4], const uint8_t *box)
{
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            s[r][c] = box[s[r][c]];
}

/* 5.1.2 / 5.3.1: row r rotates left by r (right for the inverse). */
static void shift_rows(uint8_t s[4][4], int inverse)
{
    for (int r = 1; r < 4; r++) {
        uint8_t row[4];
        for (int c = 0; c < 4; c++)
            row[c] = s[r][inverse ? (c + 4 - r) % 4 : (c + r) % 4];
        memcpy(s[r], row, 4);
    }
}

/* 5.1.3 / 5.3.3: each column times a fixed polynomial matrix. */
static void mix_columns(uint8_t s[4][4], const uint8_t m[4])
{
    for (int c = 0; c < 4; c++) {
        uint8_t col[4];
        for (int r = 0; r < 4; r++)
            col[r] = s[r][c];
        for (int r = 0; r < 4; r++)
            s[r][c] = mul(m[(4 - r) % 4], col[0]) ^ mul(m[(5 - r) % 4], col[1]) ^
                      mul(m[(6 - r) % 4], col[2]) ^ mul(m[(7 - r) % 4], col[3]);
    }
}

static const uint8_t mix[4] = {2, 3, 1, 1}, inv_mix[4] = {14, 11, 13, 9};

static void load(uint8_t s[4][4], const uint8_t in[16])
{
    for (int i = 0; i < 16; i++)
        s[i % 4][i / 4] = in[i];
}

static void store(uint8_t out[16], uint8_t s[4][4])
{
    for (int i = 0; i < 16; i++)
        out[i] = s[i % 4][i / 4];
}

/* 5.1 */
void ref_encrypt_block(const ref_key *k, const uint8_t in[16], uint8_t out[16])
{
    uint8_t s[4][4];
    load(s, in);
    add_round_key(s, k->rk[0]);
    for (int round = 1; round <= k->rounds; round++) {
        sub_bytes(s, sbox);
        shift_rows(s, 0);
        if (round != k->rounds)
            mix_columns(s, mix);
        add_round_key(s, k->rk[round]);
    }
    store(out, s);
}

/* 5.3 */
void ref_decrypt_block(const ref_key *k, const uint8_t in[16], uint8_t out[16])
{
    uint8_t s[4][4];
    load(s, in);
    add_round_key(s, k->rk[k->rounds]);
    for (int round = k->rounds - 1; round >= 0; round--) {
        shift_rows(s, 1);
        sub_bytes(s, inv_sbox);
        add_round_key(s, k->rk[round]);
        if (round != 0)
            mix_columns(s, inv_mix);
    }
    store(out, s);
}

void ref_equivalent_inverse_keys(const ref_key *k, uint8_t out[15 * 16])
{
    for (int round = 0; round <= k->rounds; round++) {
        uint8_t s[4][4];
        load(s, k->rk[k->rounds - round]);
        if (round != 0 && round != k->rounds)
            mix_columns(s, inv_mix);
        store(out + 16 * round, s);
    }
}

/* The last `bits` bits of the block count, big-endian; the rest stay. */
static void increment(uint8_t ctr[16], unsigned bits)
{
    const int top = 16 - (int)(bits / 8);
    int i = 15;
    do
        ctr[i]++;
    while (ctr[i] == 0 && i-- > top);
}

/* SP 800-38A 6.1-6.5, a block at a time. */
void ref_crypt(const ref_key *k, enum ref_mode mode, int decrypt, unsigned counter_bits,
               uint8_t iv[16], uint8_t *dst, const uint8_t *src, size_t len)
{
    for (size_t off = 0; off < len; off += 16) {
        const size_t n = len - off < 16 ? len - off : 16;
        uint8_t in[16] = {0}, out[16], ks[16];
        memcpy(in, src + off, n);
        switch (mode) {
        case REF_ECB:
            if (decrypt)
                ref_decrypt_block(k, in, out);
            else
                ref_encrypt_block(k, in, out);
            break;
        case REF_CBC:
            if (decrypt) {
                ref_decrypt_block(k, in, out);
                for (int i = 0; i < 16; i++)
                    out[i] ^= iv[i];
                memcpy(iv, in, 16);
            } else {
                for (int i = 0; i < 16; i++)
                    in[i] ^= iv[i];
                ref_encrypt_block(k, in, out);
                memcpy(iv, out, 16);
            }
            break;
        case REF_CFB:
            ref_encrypt_block(k, iv, ks);
            for (size_t i = 0; i < 16; i++) {
                out[i] = in[i] ^ ks[i];
                /* the feedback is the ciphertext; past a partial end, keystream */
                iv[i] = i < n ? (decrypt ? in[i] : out[i]) : ks[i];
            }
            break;
        case REF_OFB:
            ref_encrypt_block(k, iv, ks);
            for (int i = 0; i < 16; i++)
                out[i] = in[i] ^ ks[i];
            memcpy(iv, ks, 16);
            break;
        case REF_CTR:
        case REF_GCM: /* GCM's GCTR: CTR on the low 32 bits (counter_bits) */
            ref_encrypt_block(k, iv, ks);
            for (int i = 0; i < 16; i++)
                out[i] = in[i] ^ ks[i];
            increment(iv, counter_bits ? counter_bits : 128);
            break;
        case REF_XTS: /* whole blocks, iv the block's tweak (ref_xts.c) */
            ref_xts_block(k, decrypt, iv, in, out);
            break;
        }
        memcpy(dst + off, out, n);
    }
}
