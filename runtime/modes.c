/* SPDX-License-Identifier: Apache-2.0 */
/* Mode drivers and the mode functions: whole blocks go through the widest
 * kernel that fits, then narrower ones (the registry lists each group widest
 * first, ending at width 1; the key's table picks them); a final partial block of a stream mode uses one
 * keystream block.  The mode table, the drivers and the public functions
 * share this file so that each public function compiles to its mode's checks
 * with the mode's properties folded in: per-call overhead is what decides
 * short messages. */
#include <limits.h>
#include <string.h>

#include "internal.h"

const struct aes_gen_mode_info aes_gen_modes[AES_GEN_MODE_COUNT] = {
#define AES_GEN_MODE(md, label, family, decrypt, parallel, dec_schedule, iv, whole_blocks, tail, \
                     counter_bits, shape) \
    [AES_GEN_MD_##md] = {#md, label, AES_GEN_FAMILY_##family, decrypt, parallel, dec_schedule, \
                         whole_blocks, AES_GEN_IV_##iv, AES_GEN_TAIL_##tail, counter_bits, \
                         AES_GEN_SHAPE_##shape},
#include "modes.inc"
};

static size_t whole_groups(const struct aes_gen_kernel_info *ki, size_t nblocks)
{
    return ki->width_mask != UINT_MAX ? nblocks & ~(size_t)ki->width_mask
                                      : nblocks - nblocks % ki->width;
}

/* nblocks (1..the range's widest width) by the short-message table: the first
 * pick's kernel took the whole message unless there are ragged blocks left. */
static __attribute__((noinline)) void run_picks(const struct aes_gen_pick *picks,
                                                const uint8_t *rk, uint8_t *iv, uint8_t *dst,
                                                const uint8_t *src, size_t nblocks)
{
    while (nblocks) {
        const struct aes_gen_pick p = picks[nblocks];
        p.fn(rk, iv, dst, src, p.blocks);
        dst += 16 * (size_t)p.blocks;
        src += 16 * (size_t)p.blocks;
        nblocks -= p.blocks;
    }
}

/* What the short path below does not take: more blocks than the widest width
 * (its whole groups, then the rest by the table), or ragged blocks left after
 * the first pick's kernel. */
static __attribute__((noinline)) int run_more(const aes_gen_key *k, enum aes_gen_mode_dir md,
                                              uint8_t *iv, uint8_t *dst, const uint8_t *src,
                                              size_t nblocks)
{
    const struct aes_gen_kernel_info *widest = &aes_gen_registry[k->private_kernels[md][0]];
    const struct aes_gen_pick *picks = aes_gen_picks + k->private_picks[md];
    const uint8_t *rk = aes_gen_schedule(k, md);
    const size_t take = nblocks > widest->width ? whole_groups(widest, nblocks) : 0;

    if (take)
        widest->fn.block(rk, iv, dst, src, take);
    if (take < nblocks)
        run_picks(picks, rk, iv, dst + 16 * take, src + 16 * take, nblocks - take);
    return AES_GEN_OK;
}

/* The table entry whose kernel takes len bytes in one call, or NULL: len at
 * most the limit (entry 0's bytes; len 0 wraps round), then the entry of
 * len / 16 blocks taking exactly len (internal.h: aes_gen_pick). */
static inline const struct aes_gen_pick *one_call(const struct aes_gen_pick *picks, size_t len)
{
    if (__builtin_expect(len - 1 < picks->bytes, 1)) {
        const struct aes_gen_pick *e = &picks[len / 16];
        if (__builtin_expect(e->bytes == (uint32_t)len, 1))
            return e;
    }
    return NULL;
}

/* nblocks > 0; returns AES_GEN_OK.  A message of up to the widest width goes
 * by the key's table (internal.h: aes_gen_pick); when one kernel takes it
 * all, that is the only call, a tail call (the kernels return AES_GEN_OK)
 * with nothing else live: no search, no division, no saved registers, no
 * frame of ours on the stack while the kernel runs.  Anything else is a tail
 * call to run_more, so that the short path needs no registers saved. */
static inline int run_blocks(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv,
                             uint8_t *dst, const uint8_t *src, size_t nblocks)
{
    const struct aes_gen_pick *e = one_call(aes_gen_picks + k->private_picks[md], 16 * nblocks);
    if (e)
        return e->fn(aes_gen_schedule(k, md), iv, dst, src, nblocks);
    return run_more(k, md, iv, dst, src, nblocks);
}

void aes_gen_run_blocks(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv,
                        uint8_t *dst, const uint8_t *src, size_t nblocks)
{
    run_blocks(k, md, iv, dst, src, nblocks);
}

/* The low `bits` of the big-endian counter block count on; the rest stay. */
static void ctr_increment(uint8_t ctr[16], unsigned bits)
{
    for (int i = 15; i >= 16 - (int)(bits / 8) && ++ctr[i] == 0; i--)
        ;
}

/* The final partial block (1..15 bytes) of a mode with a tail. */
static void run_tail(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t iv[16],
                     uint8_t *dst, const uint8_t *src, size_t len)
{
    uint8_t ks[16];
    const unsigned tail = aes_gen_modes[md].tail;

    /* One keystream block: the iv or counter through an ECB encryption kernel
     * of the key's backend (every mode with a tail encrypts its iv). */
    memcpy(ks, iv, 16);
    run_blocks(k, AES_GEN_MD_ecb_enc, NULL, ks, ks, 1);
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
    /* The kernels clear what they use; this C (and the C library's memcpy)
     * may have held the keystream in vector registers. */
    aes_gen_clear_registers();
}

/* One mode call: the checks (before anything is written), whole blocks
 * through the kernels, then, for a mode that takes any length, the tail. */
static __attribute__((noinline)) int crypt_checked(const aes_gen_key *k, uint8_t *iv, void *dst,
                                                   const void *src, size_t len,
                                                   enum aes_gen_mode_dir md)
{
    const struct aes_gen_mode_info *m = &aes_gen_modes[md];
    const int needs_iv = m->iv != AES_GEN_IV_NONE;
    if (!aes_gen_key_is_set(k) || (needs_iv && !iv) || (len && (!dst || !src)))
        return AES_GEN_EARG;
    if (m->whole_blocks) {
        if (len % 16)
            return AES_GEN_ELEN;
        if (!len)
            return AES_GEN_OK;
        return run_blocks(k, md, needs_iv ? iv : NULL, dst, src, len / 16);
    }
    const size_t whole = len & ~(size_t)15;
    if (whole)
        run_blocks(k, md, needs_iv ? iv : NULL, dst, src, whole / 16);
    if (len > whole)
        run_tail(k, md, iv, (uint8_t *)dst + whole, (const uint8_t *)src + whole, len - whole);
    return AES_GEN_OK;
}

/* crypt_checked from a public function without an iv, whose arguments are
 * already where these are. */
static __attribute__((noinline)) int crypt_none(const aes_gen_key *k, void *dst, const void *src,
                                                size_t len, enum aes_gen_mode_dir md)
{
    return crypt_checked(k, NULL, dst, src, len, md);
}

/* A message that one kernel call takes (whole blocks, at most the key's start
 * width, a length whose table entry takes them all: internal.h) goes straight
 * there after the argument checks: a handful of instructions, one untaken
 * branch per check, a tail call.  Anything else, errors included, goes
 * through crypt_checked.  Independent 16-byte messages are bound by how soon
 * a call's rounds can start (the round keys are k plus a constant: no load)
 * and by the instructions around them, not by the AES units. */
static inline int crypt(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv, void *dst,
                        const void *src, size_t len)
{
    const int needs_iv = aes_gen_modes[md].iv != AES_GEN_IV_NONE;
    if (__builtin_expect(k && k->private_magic == AES_GEN_KEY_MAGIC && dst && src &&
                             (!needs_iv || iv),
                         1)) {
        const struct aes_gen_pick *e = one_call(aes_gen_picks + k->private_picks[md], len);
        if (e)
            return e->fn(aes_gen_schedule(k, md), needs_iv ? iv : NULL, dst, src, len / 16);
    }
    /* Each in its caller's argument order, so that the checks above need no
     * copies of the arguments kept for it. */
    return needs_iv ? crypt_checked(k, iv, dst, src, len, md) : crypt_none(k, dst, src, len, md);
}

int aes_gen_crypt(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv, void *dst,
                  const void *src, size_t len)
{
    if ((unsigned)md >= AES_GEN_MODE_COUNT || !aes_gen_mode_is_block(md))
        return AES_GEN_EARG;
    /* XTS on a backend without its kernels: the ECB kernels and the runtime's
     * tweaks (here, off the public functions' path: they have kernels). */
    if (aes_gen_key_is_set(k) && !k->private_kernels[md][1] && aes_gen_mode_optional(md)) {
        if (!iv || (len && (!dst || !src)))
            return AES_GEN_EARG;
        if (len % 16)
            return AES_GEN_ELEN;
        if (len)
            aes_gen_xts_blocks_ecb(k, aes_gen_modes[md].decrypt, iv, dst, src, len / 16);
        return AES_GEN_OK;
    }
    return crypt(k, md, iv, dst, src, len);
}

/* The public mode functions (aes_gen.h), one per mode that declares one in
 * gen/variants.py; their signature follows the mode's iv. */
#define API_NONE(md, function) \
    int function(const aes_gen_key *k, void *dst, const void *src, size_t len) \
    { \
        return crypt(k, AES_GEN_MD_##md, NULL, dst, src, len); \
    }
#define API_CHAIN(md, function) \
    int function(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src, size_t len) \
    { \
        return crypt(k, AES_GEN_MD_##md, iv, dst, src, len); \
    }
#define API_COUNTER API_CHAIN
#define AES_GEN_MODE_API(md, function, iv) API_##iv(md, function)
#include "modes.inc"

/* Streams (aes_gen.h): the bulk through crypt() (the widest kernels), the
 * bytes of a partial block through one keystream block, OpenSSL's `num`. */
#define STREAM_MAGIC 0x53545245u /* "STRE" */

static int stream_start(aes_gen_stream *s, const aes_gen_key *k, enum aes_gen_mode_dir md,
                        const uint8_t iv[16])
{
    memset(s, 0, sizeof *s);
    s->private_key = k;
    s->private_mode = (uint32_t)md;
    memcpy(s->private_iv, iv, 16);
    s->private_magic = STREAM_MAGIC;
    return AES_GEN_OK;
}

int aes_gen_stream_init(aes_gen_stream *s, const aes_gen_key *k, const char *mode,
                        const uint8_t iv[16])
{
    if (!s || !aes_gen_key_is_set(k) || !mode || !iv)
        return AES_GEN_EARG;
    /* CTR and OFB decrypt as they encrypt: their _dec names are the _enc modes. */
    if (strcmp(mode, "ctr_dec") == 0 || strcmp(mode, "ofb_dec") == 0)
        mode = mode[0] == 'c' ? "ctr_enc" : "ofb_enc";
    for (int md = 0; md < AES_GEN_MODE_COUNT; md++)
        if (strcmp(aes_gen_modes[md].name, mode) == 0 && !aes_gen_modes[md].whole_blocks &&
            aes_gen_mode_is_block((enum aes_gen_mode_dir)md))
            return stream_start(s, k, (enum aes_gen_mode_dir)md, iv);
    return AES_GEN_EMODE;
}

/* By enum, no search: EVP reinitialises a stream for every message. */
int aes_gen_stream_init_mode(aes_gen_stream *s, const aes_gen_key *k, aes_gen_stream_mode mode,
                             const uint8_t iv[16])
{
    if (!s || !aes_gen_key_is_set(k) || !iv)
        return AES_GEN_EARG;
    switch (mode) {
    case AES_GEN_STREAM_CTR: return stream_start(s, k, AES_GEN_MD_ctr_enc, iv);
    case AES_GEN_STREAM_CFB_ENCRYPT: return stream_start(s, k, AES_GEN_MD_cfb_enc, iv);
    case AES_GEN_STREAM_CFB_DECRYPT: return stream_start(s, k, AES_GEN_MD_cfb_dec, iv);
    case AES_GEN_STREAM_OFB: return stream_start(s, k, AES_GEN_MD_ofb_enc, iv);
    }
    return AES_GEN_EMODE;
}

int aes_gen_stream_resume(aes_gen_stream *s, const aes_gen_key *k, aes_gen_stream_mode mode,
                          const uint8_t iv[16], const uint8_t ks[16], unsigned num)
{
    if (num > 15 || (mode == AES_GEN_STREAM_CTR && num && !ks))
        return AES_GEN_EARG;
    const int err = aes_gen_stream_init_mode(s, k, mode, iv);
    if (err != AES_GEN_OK)
        return err;
    /* CFB and OFB use iv itself; CTR keeps its block even at num 0, as a
     * position read back then gives it unchanged. */
    if (mode == AES_GEN_STREAM_CTR && ks)
        memcpy(s->private_ks, ks, 16);
    s->private_num = num;
    return AES_GEN_OK;
}

/* A stream whose every field indexes what it should: a corrupted context is
 * refused, not followed. */
static int stream_valid(const aes_gen_stream *s)
{
    return s && s->private_magic == STREAM_MAGIC && s->private_mode < AES_GEN_MODE_COUNT &&
           !aes_gen_modes[s->private_mode].whole_blocks &&
           aes_gen_mode_is_block((enum aes_gen_mode_dir)s->private_mode) && s->private_num < 16 &&
           aes_gen_key_is_set(s->private_key);
}

int aes_gen_stream_update(aes_gen_stream *s, void *dst, const void *src, size_t len)
{
    if (!stream_valid(s) || (len && (!dst || !src)))
        return AES_GEN_EARG;
    const enum aes_gen_mode_dir md = (enum aes_gen_mode_dir)s->private_mode;
    const unsigned tail = aes_gen_modes[md].tail;
    uint8_t *out = dst, *iv = s->private_iv;
    const uint8_t *in = src;
    /* CTR uses its own keystream block; CFB and OFB work in the feedback block. */
    uint8_t *ks = tail == AES_GEN_TAIL_COUNTER ? s->private_ks : iv;
    for (;;) {
        /* The rest of a started block, byte by byte. */
        for (; s->private_num && len; len--) {
            const uint8_t b = *in++, o = b ^ ks[s->private_num];
            *out++ = o;
            if (tail == AES_GEN_TAIL_OUTPUT)
                ks[s->private_num] = o;
            else if (tail == AES_GEN_TAIL_INPUT)
                ks[s->private_num] = b;
            s->private_num = (s->private_num + 1) & 15;
        }
        if (!len)
            return AES_GEN_OK;
        /* Whole blocks: the one-shot path (iv or counter updated by the kernels). */
        const size_t whole = len & ~(size_t)15;
        if (whole) {
            crypt(s->private_key, md, iv, out, in, whole);
            out += whole, in += whole, len -= whole;
        }
        if (!len)
            return AES_GEN_OK;
        /* A new partial block: its keystream, then the bytes above. */
        run_blocks(s->private_key, AES_GEN_MD_ecb_enc, NULL, ks, iv, 1);
        if (tail == AES_GEN_TAIL_COUNTER)
            ctr_increment(iv, aes_gen_modes[md].counter_bits);
        s->private_num = 0;
        const uint8_t b = *in++, o = b ^ ks[0];
        *out++ = o;
        if (tail == AES_GEN_TAIL_OUTPUT)
            ks[0] = o;
        else if (tail == AES_GEN_TAIL_INPUT)
            ks[0] = b;
        s->private_num = 1;
        len--;
    }
}

int aes_gen_stream_position(const aes_gen_stream *s, uint8_t iv[16], uint8_t ks[16],
                            unsigned *num)
{
    if (!stream_valid(s) || !iv || !num)
        return AES_GEN_EARG;
    memcpy(iv, s->private_iv, 16);
    if (ks)
        memcpy(ks, s->private_ks, 16);
    *num = s->private_num;
    return AES_GEN_OK;
}

int aes_gen_stream_final(aes_gen_stream *s, uint8_t iv[16])
{
    if (!s || s->private_magic != STREAM_MAGIC)
        return AES_GEN_EARG; /* final reads only iv, and erases the stream */
    if (iv)
        memcpy(iv, s->private_iv, 16);
    aes_gen_secure_zero(s, sizeof *s);
    return AES_GEN_OK;
}
