/* The public API: argument checks, error codes, key setup and wiping.  Every
 * check happens before anything is written, so a failing call changes nothing. */
#include <string.h>

#include "internal.h"

#define KEY_MAGIC 0x41455347u /* "AESG" */

void aes_gen_secure_zero(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--)
        *v++ = 0;
}

static unsigned key_bits_of(size_t key_len)
{
    return key_len == 16 || key_len == 24 || key_len == 32 ? (unsigned)key_len * 8 : 0;
}

static int key_size_built(unsigned bits)
{
    for (size_t i = 0; i < aes_gen_registry_count; i++)
        if (aes_gen_registry[i].key_bits == bits)
            return 1;
    return 0;
}

static int setkey_with(aes_gen_key *k, const void *key, size_t key_len, size_t backend)
{
    aes_gen_key tmp;
    const unsigned bits = key_bits_of(key_len);

    memset(&tmp, 0, sizeof tmp);
    for (int md = 0; md < AES_GEN_MODE_DIRS; md++) {
        size_t first,
               n = aes_gen_kernel_range_tuned(backend, (enum aes_gen_mode_dir)md, bits, &first);
        tmp.private_kernels[md][0] = (uint16_t)first;
        tmp.private_kernels[md][1] = (uint16_t)n;
    }
    aes_gen_expand_key(key, key_len, tmp.private_rk[0], tmp.private_rk[1]);
    tmp.private_backend = (uint16_t)backend;
    tmp.private_rounds = (uint16_t)(key_len / 4 + 6);
    tmp.private_magic = KEY_MAGIC;
    memcpy(k, &tmp, sizeof tmp);
    aes_gen_secure_zero(&tmp, sizeof tmp);
    return AES_GEN_OK;
}

int aes_gen_setkey_backend(aes_gen_key *k, const void *key, size_t key_len, const char *backend)
{
    if (!k || !key || !backend)
        return AES_GEN_EARG;
    const unsigned bits = key_bits_of(key_len);
    if (!bits || !key_size_built(bits))
        return AES_GEN_EKEYLEN;
    const int index = aes_gen_backend_index(backend);
    if (index < 0 || !aes_gen_backend_usable((size_t)index, bits))
        return AES_GEN_EBACKEND;
    return setkey_with(k, key, key_len, (size_t)index);
}

/* Constant-time backends first, then the rest, each class fastest first. */
static size_t preference(size_t rank)
{
    size_t seen = 0;
    for (int ct = 1; ct >= 0; ct--)
        for (size_t i = 0; i < aes_gen_backend_count; i++)
            if (aes_gen_backend_table[i].constant_time == ct && seen++ == rank)
                return i;
    return aes_gen_backend_count;
}

int aes_gen_setkey(aes_gen_key *k, const void *key, size_t key_len)
{
    if (!k || !key)
        return AES_GEN_EARG;
    const unsigned bits = key_bits_of(key_len);
    if (!bits || !key_size_built(bits))
        return AES_GEN_EKEYLEN;
    for (size_t rank = 0; rank < aes_gen_backend_count; rank++)
        if (aes_gen_backend_usable(preference(rank), bits))
            return setkey_with(k, key, key_len, preference(rank));
    return AES_GEN_EBACKEND;
}

size_t aes_gen_backends(const char **names, size_t cap)
{
    size_t n = 0;
    for (size_t rank = 0; rank < aes_gen_backend_count; rank++) {
        const size_t i = preference(rank);
        if (aes_gen_backend_usable(i, 0)) {
            if (names && n < cap)
                names[n] = aes_gen_backend_table[i].name;
            n++;
        }
    }
    return n;
}

static int key_is_set(const aes_gen_key *k)
{
    return k && k->private_magic == KEY_MAGIC && k->private_backend < aes_gen_backend_count;
}

const char *aes_gen_key_backend(const aes_gen_key *k)
{
    return key_is_set(k) ? aes_gen_backend_table[k->private_backend].name : NULL;
}

const uint8_t *aes_gen_round_keys(const aes_gen_key *k, int decrypt)
{
    return key_is_set(k) ? k->private_rk[decrypt ? 1 : 0] : NULL;
}

void aes_gen_wipe(aes_gen_key *k)
{
    if (k)
        aes_gen_secure_zero(k, sizeof *k);
}

const char *aes_gen_strerror(int err)
{
    switch (err) {
    case AES_GEN_OK: return "success";
    case AES_GEN_EKEYLEN: return "key length must be 16, 24 or 32 bytes (of the key sizes built)";
    case AES_GEN_ELEN: return "length must be a multiple of the 16-byte block size";
    case AES_GEN_EBACKEND: return "backend unknown, not built, or not supported by this CPU";
    case AES_GEN_EARG: return "NULL argument, or key not set";
    default: return "unknown aes_gen error code";
    }
}

/* Checks shared by every mode function; iv is required unless ECB. */
static int check(const aes_gen_key *k, const void *iv, int needs_iv, void *dst, const void *src,
                 size_t len, int whole_blocks)
{
    if (!key_is_set(k) || (needs_iv && !iv) || (len && (!dst || !src)))
        return AES_GEN_EARG;
    if (whole_blocks && len % 16)
        return AES_GEN_ELEN;
    return AES_GEN_OK;
}

/* ECB and CBC: whole blocks only. */
static int block_mode(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv, void *dst,
                      const void *src, size_t len)
{
    const int err = check(k, iv, aes_gen_mode_uses_iv(md), dst, src, len, 1);
    if (err == AES_GEN_OK && len)
        aes_gen_run_blocks(k, md, aes_gen_mode_uses_iv(md) ? iv : NULL, dst, src, len / 16);
    return err;
}

/* CFB, OFB, CTR: any length, a partial block last. */
static int stream_mode(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv, void *dst,
                       const void *src, size_t len)
{
    const int err = check(k, iv, 1, dst, src, len, 0);
    if (err != AES_GEN_OK || !len)
        return err;
    const size_t whole = len & ~(size_t)15;
    if (whole)
        aes_gen_run_blocks(k, md, iv, dst, src, whole / 16);
    if (len > whole)
        aes_gen_run_tail(k, md, iv, (uint8_t *)dst + whole, (const uint8_t *)src + whole,
                         len - whole);
    return AES_GEN_OK;
}

int aes_gen_crypt(const aes_gen_key *k, enum aes_gen_mode_dir md, uint8_t *iv, void *dst,
                  const void *src, size_t len)
{
    switch (md) {
    case AES_GEN_MD_ecb_enc: case AES_GEN_MD_ecb_dec: case AES_GEN_MD_cbc_enc:
    case AES_GEN_MD_cbc_dec:
        return block_mode(k, md, iv, dst, src, len);
    case AES_GEN_MD_cfb_enc: case AES_GEN_MD_cfb_dec: case AES_GEN_MD_ofb_enc:
    case AES_GEN_MD_ctr_enc:
        return stream_mode(k, md, iv, dst, src, len);
    }
    return AES_GEN_EARG;
}

int aes_gen_ecb_encrypt(const aes_gen_key *k, void *dst, const void *src, size_t len)
{
    return aes_gen_crypt(k, AES_GEN_MD_ecb_enc, NULL, dst, src, len);
}

int aes_gen_ecb_decrypt(const aes_gen_key *k, void *dst, const void *src, size_t len)
{
    return aes_gen_crypt(k, AES_GEN_MD_ecb_dec, NULL, dst, src, len);
}

int aes_gen_cbc_encrypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                        size_t len)
{
    return aes_gen_crypt(k, AES_GEN_MD_cbc_enc, iv, dst, src, len);
}

int aes_gen_cbc_decrypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                        size_t len)
{
    return aes_gen_crypt(k, AES_GEN_MD_cbc_dec, iv, dst, src, len);
}

int aes_gen_cfb_encrypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                        size_t len)
{
    return aes_gen_crypt(k, AES_GEN_MD_cfb_enc, iv, dst, src, len);
}

int aes_gen_cfb_decrypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                        size_t len)
{
    return aes_gen_crypt(k, AES_GEN_MD_cfb_dec, iv, dst, src, len);
}

int aes_gen_ofb_crypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src, size_t len)
{
    return aes_gen_crypt(k, AES_GEN_MD_ofb_enc, iv, dst, src, len);
}

int aes_gen_ctr_crypt(const aes_gen_key *k, uint8_t ctr[16], void *dst, const void *src,
                      size_t len)
{
    return aes_gen_crypt(k, AES_GEN_MD_ctr_enc, ctr, dst, src, len);
}
