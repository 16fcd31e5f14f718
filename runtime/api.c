/* SPDX-License-Identifier: Apache-2.0 */
/* The public API: argument checks, error codes, key setup.  Every check
 * happens before anything is written, so a failing call changes nothing. */
#include <stddef.h>
#include <string.h>

#include "internal.h"

static unsigned key_bits_of(size_t key_len)
{
    return key_len == 16 || key_len == 24 || key_len == 32 ? (unsigned)key_len * 8 : 0;
}

/* EKEYLEN for a length that is not an AES key size, EKEYSIZE for one not built. */
static int check_key_size(const struct aes_gen_plans *plans, unsigned bits)
{
    if (!bits)
        return AES_GEN_EKEYLEN;
    return plans->built[aes_gen_key_index(bits)] ? AES_GEN_OK : AES_GEN_EKEYSIZE;
}

/* plan: what each mode runs, from aes_gen_plans().  Every check is done, so
 * the key is written in place: the plan, then the schedules.  Every format
 * writes the same AES_GEN_FORMAT_BYTES (zeros where a key size leaves room),
 * so no word of an earlier key of any size or format stays; nothing of k is
 * read (it may be uninitialized).  The generated setup comes last with
 * nothing live across it (no registers to save: a re-key is a few stores and
 * the setup). */
static int setkey_with(aes_gen_key *k, const void *key, size_t key_len,
                       enum aes_gen_backend_id backend, const struct aes_gen_key_plan *plan)
{
    const struct aes_gen_key_format_info *format =
        &aes_gen_key_formats[aes_gen_backend_table[backend].key_format];
    /* The plan's fields are the key's from private_kernels to private_rounds. */
    memcpy((uint8_t *)k + offsetof(aes_gen_key, private_kernels), plan,
           offsetof(struct aes_gen_key_plan, setup));
    k->private_magic = AES_GEN_KEY_MAGIC;
    if (plan->setup) { /* generated: it writes its zeros and clears its registers */
        memset(k->private_ks + AES_GEN_SETUP_BYTES, 0,
               AES_GEN_FORMAT_BYTES - AES_GEN_SETUP_BYTES);
        plan->setup(key, k->private_ks);
        return AES_GEN_OK;
    }
    memset(k->private_ks, 0, AES_GEN_FORMAT_BYTES);
    format->expand(key, key_len, k->private_ks);
    aes_gen_clear_registers(); /* C may have held key words in vector registers */
    return AES_GEN_OK;
}

int aes_gen_setkey_backend(aes_gen_key *k, const void *key, size_t key_len, const char *backend)
{
    if (!k || !key || !backend)
        return AES_GEN_EARG;
    const unsigned bits = key_bits_of(key_len);
    const int err = check_key_size(aes_gen_plans(), bits);
    if (err)
        return err;
    const int index = aes_gen_backend_index(backend);
    if (index < 0 || !aes_gen_backend_usable((enum aes_gen_backend_id)index, bits))
        return AES_GEN_EBACKEND;
    return setkey_with(k, key, key_len, (enum aes_gen_backend_id)index,
                       &aes_gen_plans()->key_plan[index][aes_gen_key_index(bits)]);
}

/* How many backends run keys of key-size index ks here. */
static int usable_count(int ks)
{
    int n = 0;
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
        n += aes_gen_plans()->usable[b][ks];
    return n;
}

/* The backend table is in preference order: the first usable one (the first
 * constant-time one, with the policy) wins; a `make tune` table may give
 * single modes to another with its key format and constant-time class. */
int aes_gen_setkey(aes_gen_key *k, const void *key, size_t key_len)
{
    if (!k || !key)
        return AES_GEN_EARG;
    const struct aes_gen_plans *plans = aes_gen_plans();
    const unsigned bits = key_bits_of(key_len);
    const int err = check_key_size(plans, bits);
    if (err)
        return err;
    const int ks = aes_gen_key_index(bits), b = plans->chosen[ks];
    if (b < 0)
        return plans->require_ct && usable_count(ks) ? AES_GEN_ENOTCT
                                                                       : AES_GEN_EBACKEND;
    return setkey_with(k, key, key_len, (enum aes_gen_backend_id)b, &plans->chosen_key_plan[ks]);
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

/* The backend whose kernels run mode md of key k. */
static const struct aes_gen_backend_info *mode_backend(const aes_gen_key *k, int md)
{
    return &aes_gen_backend_table[aes_gen_registry[k->private_kernels[md][0]].backend];
}

int aes_gen_key_constant_time(const aes_gen_key *k)
{
    if (!aes_gen_key_is_set(k))
        return -1;
    for (int md = 0; md < AES_GEN_MODE_COUNT; md++)
        if (k->private_kernels[md][1] && !mode_backend(k, md)->constant_time)
            return 0;
    return 1;
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
        /* A mode without kernels of its own here (GCM, XTS) runs on those of
         * another (CTR, ECB) and the runtime's GHASH or tweaks. */
        const int via = n ? md : (int)aes_gen_mode_via((enum aes_gen_mode_dir)md);
        out->backend = mode_backend(k, via)->name;
        out->constant_time = mode_backend(k, via)->constant_time;
        out->nwidths = 0;
        for (size_t i = 0; i < n && out->nwidths < sizeof out->widths / sizeof out->widths[0]; i++)
            out->widths[out->nwidths++] = ki[i].width;
        return AES_GEN_OK;
    }
    return AES_GEN_EMODE;
}

size_t aes_gen_key_size(void)
{
    return sizeof(aes_gen_key);
}

size_t aes_gen_stream_size(void)
{
    return sizeof(aes_gen_stream);
}

size_t aes_gen_gcm_key_size(void)
{
    return sizeof(aes_gen_gcm_key);
}

size_t aes_gen_gcm_stream_size(void)
{
    return sizeof(aes_gen_gcm_stream);
}

size_t aes_gen_xts_key_size(void)
{
    return sizeof(aes_gen_xts_key);
}

const char *aes_gen_version(void)
{
    return AES_GEN_VERSION;
}

const char *aes_gen_strerror(int err)
{
    switch (err) {
    case AES_GEN_OK: return "success";
    case AES_GEN_EKEYLEN: return "key length must be 16, 24 or 32 bytes (XTS: 32, 48 or 64)";
    case AES_GEN_EKEYSIZE: return "this AES key size was not generated in this build (make gen KEYS=...)";
    case AES_GEN_ELEN: return "a length the mode does not take (ECB/CBC: a multiple of 16 bytes; "
                              "GCM: an IV of 1 byte or more, a tag of 4-16 bytes, a message up "
                              "to 2^36 - 32 bytes; XTS: a data unit of 16 bytes or more)";
    case AES_GEN_EBACKEND: return "backend unknown, not built, or not supported by this CPU";
    case AES_GEN_EARG: return "NULL argument, or key not set";
    case AES_GEN_ENOTCT: return "no constant-time backend runs on this CPU, and the policy "
                                "requires one (AES_GEN_REQUIRE_CONSTANT_TIME)";
    case AES_GEN_EAUTH: return "authentication failed: the tag does not match (no plaintext "
                               "released)";
    case AES_GEN_ESTATE: return "a stream call out of order (AAD after data, or a finished stream)";
    case AES_GEN_EKEYEQUAL: return "XTS key halves are equal (IEEE 1619 requires distinct keys)";
    case AES_GEN_EMODE: return "unknown mode or key format, or one this function does not take";
    case AES_GEN_EPADDING: return "bad padding";
    case AES_GEN_ESPACE: return "output buffer too small";
    default: return "unknown aes_gen error code";
    }
}
