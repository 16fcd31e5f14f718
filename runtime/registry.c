/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel registry and the mode and backend tables, all from generated/:
 * nothing here lists a mode, a backend or a kernel by hand. */
#include <stdatomic.h>
#include <string.h>

#include "internal.h"

_Static_assert(AES_GEN_MODE_COUNT <= sizeof ((aes_gen_key *)0)->private_kernels /
                                          sizeof ((aes_gen_key *)0)->private_kernels[0],
               "aes_gen_key has no room for this many modes");

const struct aes_gen_backend_info aes_gen_backend_table[AES_GEN_BACKEND_COUNT] = {
#define AES_GEN_BACKEND(symbol, name, constant_time, generated, serial, key_format, aes_bytes, \
                        cpu, cpu_names) \
    [AES_GEN_BACKEND_##symbol] = {name, #symbol, constant_time, generated, serial, \
                                  AES_GEN_KF_##key_format, aes_bytes, cpu, cpu_names},
#include "backends.inc"
#undef AES_GEN_BACKEND
};

const struct aes_gen_kernel_info aes_gen_registry[] = {
#define AES_GEN_KERNEL(symbol, backend, md, key_bits, width, cpu, arch) \
    {#symbol, AES_GEN_BACKEND_##backend, AES_GEN_MD_##md, key_bits, width, \
     ((width) & ((width) - 1)) == 0 ? (width) - 1 : 0, cpu, AES_GEN_BUILT_##arch(symbol)},
#include "kernels.inc"
#undef AES_GEN_KERNEL
};
const size_t aes_gen_registry_count = sizeof aes_gen_registry / sizeof aes_gen_registry[0];

struct group {
    uint16_t first, count;
};
static const struct group groups[AES_GEN_BACKEND_COUNT][AES_GEN_MODE_COUNT][3] = {
#define AES_GEN_GROUP(backend, md, key_bits, first, count) \
    [AES_GEN_BACKEND_##backend][AES_GEN_MD_##md][(key_bits - 128) / 64] = {first, count},
#include "groups.inc"
#undef AES_GEN_GROUP
};

int aes_gen_key_index(unsigned key_bits)
{
    return key_bits == 128 ? 0 : key_bits == 192 ? 1 : key_bits == 256 ? 2 : -1;
}

int aes_gen_backend_index(const char *name)
{
    for (int i = 0; name && i < AES_GEN_BACKEND_COUNT; i++)
        if (strcmp(aes_gen_backend_table[i].name, name) == 0)
            return i;
    return -1;
}

size_t aes_gen_kernel_range(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                            unsigned key_bits, size_t *first)
{
    const int ki = aes_gen_key_index(key_bits);
    *first = 0;
    if (ki < 0 || (unsigned)backend >= AES_GEN_BACKEND_COUNT ||
        (unsigned)md >= AES_GEN_MODE_COUNT)
        return 0;
    *first = groups[backend][md][ki].first;
    return groups[backend][md][ki].count;
}

/* `make tune` writes AES_GEN_TUNE(backend, mode_dir, key_bits, width) lines,
 * the width that measured fastest per backend on the machine that ran it, and
 * AES_GEN_TUNE_BACKEND(mode_dir, key_bits, backend) lines, the backend that
 * measured fastest for a mode and key size. */
static const struct {
    int backend, md;
    unsigned key_bits, width;
} tuning[] = {
#ifdef AES_GEN_TUNING_FILE
#define AES_GEN_TUNE(backend, md, key_bits, width) \
    {AES_GEN_BACKEND_##backend, AES_GEN_MD_##md, key_bits, width},
#define AES_GEN_TUNE_BACKEND(md, key_bits, backend)
#include AES_GEN_TUNING_FILE
#undef AES_GEN_TUNE
#undef AES_GEN_TUNE_BACKEND
#endif
    {-1, 0, 0, 0},
};

static const struct {
    int md;
    unsigned key_bits;
    int backend;
} tuned_backends[] = {
#ifdef AES_GEN_TUNING_FILE
#define AES_GEN_TUNE(backend, md, key_bits, width)
#define AES_GEN_TUNE_BACKEND(md, key_bits, backend) \
    {AES_GEN_MD_##md, key_bits, AES_GEN_BACKEND_##backend},
#include AES_GEN_TUNING_FILE
#undef AES_GEN_TUNE
#undef AES_GEN_TUNE_BACKEND
#endif
    {-1, 0, -1},
};

int aes_gen_tuned_backend(enum aes_gen_mode_dir md, unsigned key_bits)
{
    for (size_t t = 0; tuned_backends[t].md >= 0; t++)
        if (tuned_backends[t].md == (int)md && tuned_backends[t].key_bits == key_bits)
            return tuned_backends[t].backend;
    return -1;
}

int aes_gen_tuning_active(void)
{
    return tuning[0].backend >= 0;
}

size_t aes_gen_kernel_range_tuned(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                                  unsigned key_bits, size_t *first)
{
    size_t n = aes_gen_kernel_range(backend, md, key_bits, first);
    for (size_t t = 0; tuning[t].backend >= 0; t++) {
        if (tuning[t].backend != (int)backend || tuning[t].md != (int)md ||
            tuning[t].key_bits != key_bits)
            continue;
        /* Start at the tuned width: skip wider kernels, keep the narrower tail. */
        while (n > 1 && aes_gen_registry[*first].width > tuning[t].width)
            (*first)++, n--;
    }
    return n;
}

static int backend_runs(enum aes_gen_backend_id backend)
{
    const uint32_t cpu = aes_gen_backend_table[backend].cpu;
    return aes_gen_backend_table[backend].generated && (cpu & aes_gen_cpu_features()) == cpu;
}

/* The group exists, ends at width 1 (the drivers finish every message there),
 * and every kernel in it is built for this host and runs on this CPU. */
static int group_runs(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md, unsigned key_bits)
{
    const uint32_t have = aes_gen_cpu_features();
    size_t first, n = aes_gen_kernel_range(backend, md, key_bits, &first);
    if (n == 0 || aes_gen_registry[first + n - 1].width != 1 || !backend_runs(backend))
        return 0;
    for (size_t i = first; i < first + n; i++)
        if (!aes_gen_registry[i].fn || (aes_gen_registry[i].cpu & have) != aes_gen_registry[i].cpu)
            return 0;
    return 1;
}

static int find_mode_source(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                            unsigned key_bits)
{
    size_t first;
    if (aes_gen_kernel_range(backend, md, key_bits, &first))
        return group_runs(backend, md, key_bits) ? (int)backend : -1;
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
        if (aes_gen_backend_table[b].key_format == aes_gen_backend_table[backend].key_format &&
            group_runs((enum aes_gen_backend_id)b, md, key_bits))
            return b;
    return -1;
}

/* A pure function of its arguments and the CPU's features, asked for every
 * mode at every key setup: computed once, kept as value + 1 (0: not yet).
 * Racing first calls store the same value (atomics: no data race). */
int aes_gen_mode_source(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                        unsigned key_bits)
{
    static _Atomic int16_t known[AES_GEN_BACKEND_COUNT][AES_GEN_MODE_COUNT][3];
    const unsigned size = key_bits / 64 - 2;
    if ((unsigned)backend >= AES_GEN_BACKEND_COUNT || (unsigned)md >= AES_GEN_MODE_COUNT)
        return -1;
    if (key_bits % 64 || size > 2)
        return find_mode_source(backend, md, key_bits);
    _Atomic int16_t *slot = &known[backend][md][size];
    int v = atomic_load_explicit(slot, memory_order_relaxed);
    if (!v) {
        v = find_mode_source(backend, md, key_bits) + 1;
        atomic_store_explicit(slot, (int16_t)v, memory_order_relaxed);
    }
    return v - 1;
}

static int complete_for(enum aes_gen_backend_id backend, unsigned key_bits)
{
    for (int md = 0; md < AES_GEN_MODE_COUNT; md++)
        if (aes_gen_mode_source(backend, (enum aes_gen_mode_dir)md, key_bits) < 0)
            return 0;
    return 1;
}

static int usable(enum aes_gen_backend_id backend, unsigned key_bits)
{
    if (!backend_runs(backend))
        return 0;
    if (key_bits)
        return complete_for(backend, key_bits);
    return complete_for(backend, 128) || complete_for(backend, 192) ||
           complete_for(backend, 256);
}

/* Computed once per (backend, key size) like aes_gen_mode_source. */
int aes_gen_backend_usable(enum aes_gen_backend_id backend, unsigned key_bits)
{
    static _Atomic int8_t known[AES_GEN_BACKEND_COUNT][4];
    if ((unsigned)backend >= AES_GEN_BACKEND_COUNT)
        return 0;
    if (key_bits != 0 && key_bits != 128 && key_bits != 192 && key_bits != 256)
        return usable(backend, key_bits);
    _Atomic int8_t *slot = &known[backend][key_bits ? key_bits / 64 - 1 : 0];
    int v = atomic_load_explicit(slot, memory_order_relaxed);
    if (!v) {
        v = usable(backend, key_bits) + 1;
        atomic_store_explicit(slot, (int8_t)v, memory_order_relaxed);
    }
    return v - 1;
}

int aes_gen_key_size_built(unsigned key_bits)
{
    size_t first;
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
        if (aes_gen_kernel_range((enum aes_gen_backend_id)b, 0, key_bits, &first))
            return 1;
    return 0;
}
