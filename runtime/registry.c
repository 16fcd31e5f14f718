/* The kernel registry, built from generated/kernels.inc, and the backends. */
#include <string.h>

#include "internal.h"

const char *const aes_gen_mode_dir_names[AES_GEN_MODE_DIRS] = {
    "ecb_enc", "ecb_dec", "cbc_enc", "cbc_dec", "cfb_enc", "cfb_dec", "ofb_enc", "ctr_enc",
};

const struct aes_gen_kernel_info aes_gen_registry[] = {
#define AES_GEN_KERNEL(symbol, backend, mode, dir, key_bits, width, cpu) \
    {#symbol, #backend, AES_GEN_MD_##mode##_##dir, key_bits, width, cpu, symbol},
#include "kernels.inc"
#undef AES_GEN_KERNEL
};
const size_t aes_gen_registry_count = sizeof aes_gen_registry / sizeof aes_gen_registry[0];

/* Fastest first within each class; aes_gen_setkey takes the first usable
 * constant-time one.  Names without generated kernels are known (so the error
 * is EBACKEND, not a crash) but never usable. */
const struct aes_gen_backend_info aes_gen_backend_table[] = {
    {"vaes512", 1}, {"vaes256", 1}, {"aesni", 1}, {"vpaes512", 1}, {"vpaes256", 1},
    {"vpaes", 1}, {"ttable", 0}, {"portable", 0}, {"tilegx-emu", 0},
};
const size_t aes_gen_backend_count = sizeof aes_gen_backend_table / sizeof aes_gen_backend_table[0];

int aes_gen_backend_index(const char *name)
{
    for (size_t i = 0; name && i < aes_gen_backend_count; i++)
        if (strcmp(aes_gen_backend_table[i].name, name) == 0)
            return (int)i;
    return -1;
}

size_t aes_gen_kernel_range(size_t backend, enum aes_gen_mode_dir md, unsigned key_bits,
                            size_t *first)
{
    const char *name = aes_gen_backend_table[backend].name;
    size_t i = 0, n = 0;
    while (i < aes_gen_registry_count &&
           !(aes_gen_registry[i].mode_dir == md && aes_gen_registry[i].key_bits == key_bits &&
             strcmp(aes_gen_registry[i].backend, name) == 0))
        i++;
    *first = i;
    while (i + n < aes_gen_registry_count && aes_gen_registry[i + n].mode_dir == md &&
           aes_gen_registry[i + n].key_bits == key_bits &&
           strcmp(aes_gen_registry[i + n].backend, name) == 0)
        n++;
    return n;
}

/* `make tune` writes AES_GEN_TUNE(backend, mode_dir, key_bits, width) lines:
 * the width that measured fastest on the machine that ran it. */
static const struct {
    const char *backend;
    enum aes_gen_mode_dir md;
    unsigned key_bits, width;
} tuning[] = {
#ifdef AES_GEN_TUNING_FILE
#define AES_GEN_TUNE(backend, md, key_bits, width) {#backend, AES_GEN_MD_##md, key_bits, width},
#include AES_GEN_TUNING_FILE
#undef AES_GEN_TUNE
#endif
    {NULL, AES_GEN_MD_ecb_enc, 0, 0},
};

int aes_gen_tuning_active(void)
{
    return tuning[0].backend != NULL;
}

size_t aes_gen_kernel_range_tuned(size_t backend, enum aes_gen_mode_dir md, unsigned key_bits,
                                  size_t *first)
{
    size_t n = aes_gen_kernel_range(backend, md, key_bits, first);
    for (size_t t = 0; tuning[t].backend; t++) {
        if (tuning[t].md != md || tuning[t].key_bits != key_bits ||
            strcmp(tuning[t].backend, aes_gen_backend_table[backend].name) != 0)
            continue;
        /* Start at the tuned width: skip wider kernels, keep the narrower tail. */
        while (n > 1 && aes_gen_registry[*first].width > tuning[t].width)
            (*first)++, n--;
    }
    return n;
}

static int complete_for(size_t backend, unsigned key_bits)
{
    uint32_t have = aes_gen_cpu_features();
    for (int md = 0; md < AES_GEN_MODE_DIRS; md++) {
        size_t first, n = aes_gen_kernel_range(backend, (enum aes_gen_mode_dir)md, key_bits, &first);
        /* The drivers finish every message with width 1, the last of the range. */
        if (n == 0 || aes_gen_registry[first + n - 1].width != 1)
            return 0;
        for (size_t i = first; i < first + n; i++)
            if ((aes_gen_registry[i].cpu & have) != aes_gen_registry[i].cpu)
                return 0;
    }
    return 1;
}

int aes_gen_backend_usable(size_t backend, unsigned key_bits)
{
    if (backend >= aes_gen_backend_count)
        return 0;
    if (key_bits)
        return complete_for(backend, key_bits);
    return complete_for(backend, 128) || complete_for(backend, 192) ||
           complete_for(backend, 256);
}
