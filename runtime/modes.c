/* Mode drivers: whole blocks go through the widest kernel that fits, then
 * narrower ones (the registry lists each group widest first, ending at width
 * 1); a final partial block of a stream mode uses one keystream block. */
#include <string.h>

#include "internal.h"

void aes_gen_run_blocks(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv,
                        uint8_t *dst, const uint8_t *src, size_t nblocks)
{
    const size_t first = k->private_kernels[md][0], count = k->private_kernels[md][1];
    const uint8_t *rk = aes_gen_schedule(k, md);

    for (size_t i = first; i < first + count && nblocks; i++) {
        const size_t width = aes_gen_registry[i].width;
        const size_t take = nblocks - nblocks % width;
        if (take) {
            aes_gen_registry[i].fn(rk, iv, dst, src, take);
            dst += 16 * take;
            src += 16 * take;
            nblocks -= take;
        }
    }
}

/* The low `bits` of the big-endian counter block count on; the rest stay. */
static void ctr_increment(uint8_t ctr[16], unsigned bits)
{
    for (int i = 15; i >= 16 - (int)(bits / 8) && ++ctr[i] == 0; i--)
        ;
}

void aes_gen_run_tail(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t iv[16],
                      uint8_t *dst, const uint8_t *src, size_t len)
{
    uint8_t ks[16];

    const unsigned tail = aes_gen_modes[md].tail;

    /* One keystream block: the iv or counter through an ECB encryption kernel
     * of the key's backend (every mode with a tail encrypts its iv). */
    memcpy(ks, iv, 16);
    aes_gen_run_blocks(k, AES_GEN_MD_ecb_enc, NULL, ks, ks, 1);
    for (size_t i = 0; i < len; i++) {
        const uint8_t in = src[i]; /* read before writing: dst may be src */
        dst[i] = in ^ ks[i];
        /* CFB's feedback is the ciphertext byte: the output when encrypting,
         * the input when decrypting. */
        if (tail == AES_GEN_TAIL_OUTPUT)
            ks[i] = dst[i];
        else if (tail == AES_GEN_TAIL_INPUT)
            ks[i] = in;
    }
    /* CFB keeps the partial-block state, OFB the keystream block (its next
     * chaining value), CTR moves to the next counter: nettle's rule. */
    if (tail == AES_GEN_TAIL_COUNTER)
        ctr_increment(iv, aes_gen_modes[md].counter_bits);
    else
        memcpy(iv, ks, 16);
    aes_gen_secure_zero(ks, sizeof ks);
}
