/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Textbook AES from FIPS-197 and the SP 800-38A modes, written for clarity,
 * as the independent reference the generated kernels are tested against.
 * It shares no code or tables with gen/ or runtime/: its S-box is computed
 * here from the field inverse and the affine map of FIPS-197 5.1.1, and it
 * uses the plain inverse cipher (5.3), not the equivalent one.
 */
#ifndef REF_AES_H
#define REF_AES_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t rk[15][16];
    int rounds;
} ref_key;

enum ref_mode { REF_ECB, REF_CBC, REF_CFB, REF_OFB, REF_CTR, REF_GCM, REF_XTS };

uint8_t ref_sbox(uint8_t x);
uint8_t ref_inv_sbox(uint8_t x);
void ref_setkey(ref_key *k, const uint8_t *key, size_t key_len);
void ref_encrypt_block(const ref_key *k, const uint8_t in[16], uint8_t out[16]);
void ref_decrypt_block(const ref_key *k, const uint8_t in[16], uint8_t out[16]);
/* FIPS-197 5.3.5 schedule as rounds + 1 consecutive 16-byte keys. */
void ref_equivalent_inverse_keys(const ref_key *k, uint8_t out[15 * 16]);
/*
 * One call of a mode with the aes_gen API's semantics: iv is updated so that
 * calls chain; a partial final block of CFB/OFB/CTR uses the first bytes of its
 * keystream block, then CTR counts one on, OFB keeps the keystream block and
 * CFB the partial state (ciphertext bytes, then keystream bytes).  CTR counts
 * in the last counter_bits bits of the block (0: all 128), big-endian.
 */
void ref_crypt(const ref_key *k, enum ref_mode mode, int decrypt, unsigned counter_bits,
               uint8_t iv[16], uint8_t *dst, const uint8_t *src, size_t len);

/*
 * GCM (SP 800-38D), written from the standard: GHASH by its algorithm 1 (a
 * bit at a time), J0, GCTR, the tag.  Blocks are byte strings throughout.
 */
void ref_gf128_mul(const uint8_t x[16], const uint8_t y[16], uint8_t out[16]);
/* y = GHASH_H continued over len bytes (zero-padded to whole blocks). */
void ref_ghash(const uint8_t h[16], uint8_t y[16], const uint8_t *p, size_t len);
void ref_gcm_j0(const ref_key *k, const uint8_t *iv, size_t iv_len, uint8_t j0[16]);
/* GCM-AE (decrypt: GCM-AD's output and the tag it expects) of len bytes. */
void ref_gcm(const ref_key *k, int decrypt, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
             size_t aad_len, uint8_t *dst, const uint8_t *src, size_t len, uint8_t tag[16]);

/*
 * XTS-AES (IEEE 1619): key is key_len / 2 bytes of data key, then as many of
 * tweak key; len >= 16, a partial last block by ciphertext stealing.
 */
void ref_xts(const uint8_t *key, size_t key_len, int decrypt, const uint8_t tweak[16],
             uint8_t *dst, const uint8_t *src, size_t len);
/* One block under tweak t (already the tweak key's), then t = t * alpha: the
 * XTS kernels' block modes, whose iv is the tweak. */
void ref_xts_block(const ref_key *k1, int decrypt, uint8_t t[16], const uint8_t in[16],
                   uint8_t out[16]);

#endif
