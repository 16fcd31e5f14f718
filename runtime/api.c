/* SPDX-License-Identifier: Apache-2.0 */
/* The public API: argument checks, error codes, key setup.  Every check
 * happens before anything is written, so a failing call changes nothing. */
#include <stdatomic.h>
#include <string.h>

#include "internal.h"

static unsigned key_bits_of(size_t key_len)
{
    return key_len == 16 || key_len == 24 || key_len == 32 ? (unsigned)key_len * 8 : 0;
}

/* The backend whose kernels run md: the key's backend or its source for the
 * mode; with `tuned`, the backend a `make tune` table chose, if it runs the
 * mode here with the same key format. */
static int mode_backend(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md, unsigned bits,
                        int tuned)
{
    const int pick = tuned ? aes_gen_tuned_backend(md, bits) : -1;
    if (pick >= 0 && aes_gen_backend_table[pick].key_format ==
                         aes_gen_backend_table[backend].key_format &&
        aes_gen_mode_source((enum aes_gen_backend_id)pick, md, bits) == pick)
        return pick;
    /* Usable, so every mode has a source: the backend or one sharing its key format. */
    return aes_gen_mode_source(backend, md, bits);
}

/* The registry range (first << 16 | count) a key of `backend` runs md from.
 * A pure function of its arguments and the CPU, asked for every mode at every
 * key setup: computed once, kept with bit 31 set (0: not yet); racing first
 * calls store the same value. */
static uint32_t kernels_for(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                            unsigned bits, int tuned)
{
    static _Atomic uint32_t known[AES_GEN_BACKEND_COUNT][3][2][AES_GEN_MODE_COUNT];
    _Atomic uint32_t *slot = &known[backend][bits / 64 - 2][tuned != 0][md];
    uint32_t v = atomic_load_explicit(slot, memory_order_relaxed);
    if (!v) {
        const int source = mode_backend(backend, md, bits, tuned);
        size_t first, n = aes_gen_kernel_range_tuned((enum aes_gen_backend_id)source, md, bits,
                                                     &first);
        v = 1u << 31 | (uint32_t)first << 16 | (uint32_t)n;
        atomic_store_explicit(slot, v, memory_order_relaxed);
    }
    return v;
}

/* EKEYLEN for a length that is not an AES key size, EKEYSIZE for one not built. */
static int check_key_size(unsigned bits)
{
    if (!bits)
        return AES_GEN_EKEYLEN;
    return aes_gen_key_size_built(bits) ? AES_GEN_OK : AES_GEN_EKEYSIZE;
}

static int setkey_with(aes_gen_key *k, const void *key, size_t key_len,
                       enum aes_gen_backend_id backend, int tuned)
{
    aes_gen_key tmp;
    const unsigned bits = key_bits_of(key_len);

    memset(&tmp, 0, sizeof tmp);
    for (int md = 0; md < AES_GEN_MODE_COUNT; md++) {
        const uint32_t range = kernels_for(backend, (enum aes_gen_mode_dir)md, bits, tuned);
        tmp.private_kernels[md][0] = (uint16_t)(range >> 16 & 0x7fff);
        tmp.private_kernels[md][1] = (uint16_t)range;
    }
    const struct aes_gen_key_format_info *format =
        &aes_gen_key_formats[aes_gen_backend_table[backend].key_format];
    format->expand(key, key_len, tmp.private_ks);
    tmp.private_rk_offset[0] = (uint16_t)format->enc_offset;
    tmp.private_rk_offset[1] = (uint16_t)format->dec_offset;
    tmp.private_backend = (uint16_t)backend;
    tmp.private_rounds = (uint16_t)(key_len / 4 + 6);
    tmp.private_magic = AES_GEN_KEY_MAGIC;
    memcpy(k, &tmp, sizeof tmp);
    aes_gen_secure_zero(&tmp, sizeof tmp);
    aes_gen_clear_vector_registers();
    return AES_GEN_OK;
}

int aes_gen_setkey_backend(aes_gen_key *k, const void *key, size_t key_len, const char *backend)
{
    if (!k || !key || !backend)
        return AES_GEN_EARG;
    const unsigned bits = key_bits_of(key_len);
    const int err = check_key_size(bits);
    if (err)
        return err;
    const int index = aes_gen_backend_index(backend);
    if (index < 0 || !aes_gen_backend_usable((enum aes_gen_backend_id)index, bits))
        return AES_GEN_EBACKEND;
    return setkey_with(k, key, key_len, (enum aes_gen_backend_id)index, 0);
}

/* The backend table is in preference order: the first usable one wins; a
 * `make tune` table may give single modes to another with its key format. */
int aes_gen_setkey(aes_gen_key *k, const void *key, size_t key_len)
{
    if (!k || !key)
        return AES_GEN_EARG;
    const unsigned bits = key_bits_of(key_len);
    const int err = check_key_size(bits);
    if (err)
        return err;
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
        if (aes_gen_backend_usable((enum aes_gen_backend_id)b, bits))
            return setkey_with(k, key, key_len, (enum aes_gen_backend_id)b, 1);
    return AES_GEN_EBACKEND;
}

size_t aes_gen_backends(const char **names, size_t cap)
{
    size_t n = 0;
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++) {
        if (aes_gen_backend_usable((enum aes_gen_backend_id)b, 0)) {
            if (names && n < cap)
                names[n] = aes_gen_backend_table[b].name;
            n++;
        }
    }
    return n;
}

const char *aes_gen_key_backend(const aes_gen_key *k)
{
    return aes_gen_key_is_set(k) ? aes_gen_backend_table[k->private_backend].name : NULL;
}

const uint8_t *aes_gen_round_keys(const aes_gen_key *k, int decrypt)
{
    return aes_gen_key_is_set(k) ? aes_gen_schedule(k, decrypt ? AES_GEN_MD_ecb_dec : AES_GEN_MD_ecb_enc)
                         : NULL;
}

int aes_gen_backend_describe(size_t index, aes_gen_backend_desc *out)
{
    if (!out || index >= AES_GEN_BACKEND_COUNT)
        return AES_GEN_EARG;
    const struct aes_gen_backend_info *b = &aes_gen_backend_table[index];
    out->name = b->name;
    out->constant_time = b->constant_time;
    out->generated = b->generated;
    out->runs_here = aes_gen_backend_usable((enum aes_gen_backend_id)index, 0);
    out->cpu_needs = b->cpu_names;
    return AES_GEN_OK;
}

const char *aes_gen_mode_name(size_t index)
{
    return index < AES_GEN_MODE_COUNT ? aes_gen_modes[index].name : NULL;
}

int aes_gen_key_mode_use(const aes_gen_key *k, const char *mode, aes_gen_mode_use *out)
{
    if (!aes_gen_key_is_set(k) || !mode || !out)
        return AES_GEN_EARG;
    for (int md = 0; md < AES_GEN_MODE_COUNT; md++) {
        if (strcmp(aes_gen_modes[md].name, mode) != 0)
            continue;
        const struct aes_gen_kernel_info *ki = &aes_gen_registry[k->private_kernels[md][0]];
        const size_t n = k->private_kernels[md][1];
        out->backend = aes_gen_backend_table[ki->backend].name;
        out->nwidths = 0;
        for (size_t i = 0; i < n && out->nwidths < sizeof out->widths / sizeof out->widths[0]; i++)
            out->widths[out->nwidths++] = ki[i].width;
        return AES_GEN_OK;
    }
    return AES_GEN_EARG;
}

const char *aes_gen_version(void)
{
    return AES_GEN_VERSION;
}

const char *aes_gen_strerror(int err)
{
    switch (err) {
    case AES_GEN_OK: return "success";
    case AES_GEN_EKEYLEN: return "key length must be 16, 24 or 32 bytes";
    case AES_GEN_EKEYSIZE: return "this AES key size was not generated in this build (make gen KEYS=...)";
    case AES_GEN_ELEN: return "length must be a multiple of the 16-byte block size";
    case AES_GEN_EBACKEND: return "backend unknown, not built, or not supported by this CPU";
    case AES_GEN_EARG: return "NULL argument, or key not set";
    default: return "unknown aes_gen error code";
    }
}
