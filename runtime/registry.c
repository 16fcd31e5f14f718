/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel registry, the backend table and the plans keys run by, all
 * from generated/: nothing here lists a mode, a backend or a kernel by hand. */
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
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
};

const struct aes_gen_kernel_info aes_gen_registry[] = {
#define AES_GEN_KERNEL(symbol, backend, md, shape, key_bits, width, cpu, arch) \
    {#symbol, AES_GEN_BACKEND_##backend, AES_GEN_MD_##md, AES_GEN_SHAPE_##shape, key_bits, \
     width, ((width) & ((width) - 1)) == 0 ? (width) - 1 : UINT_MAX, cpu, AES_GEN_BUILT_##arch(1), \
     {.shape = AES_GEN_BUILT_##arch(symbol)}},
#include "kernels.inc"
#undef AES_GEN_KERNEL
};
const size_t aes_gen_registry_count = sizeof aes_gen_registry / sizeof aes_gen_registry[0];

struct group {
    uint16_t first, count, widest;
};
static const struct group groups[AES_GEN_BACKEND_COUNT][AES_GEN_MODE_COUNT][AES_GEN_KEY_SIZES] = {
#define AES_GEN_GROUP(backend, md, key_bits, first, count, widest) \
    [AES_GEN_BACKEND_##backend][AES_GEN_MD_##md][AES_GEN_KEY_INDEX(key_bits)] = {first, count, \
                                                                              widest},
#include "groups.inc"
#undef AES_GEN_GROUP
};

/* The short-message tables (internal.h), widest + 1 entries per group. */
enum {
    PICK_ENTRIES = 1
#define AES_GEN_GROUP(backend, md, key_bits, first, count, widest) +(widest) + 1
#include "groups.inc"
#undef AES_GEN_GROUP
};
_Static_assert(PICK_ENTRIES <= UINT16_MAX, "the short-message tables need a wider index");
struct aes_gen_pick aes_gen_picks[PICK_ENTRIES];
static uint16_t group_picks[AES_GEN_BACKEND_COUNT][AES_GEN_MODE_COUNT][AES_GEN_KEY_SIZES];
static pthread_once_t picks_once = PTHREAD_ONCE_INIT;

static size_t tuned_range(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                          unsigned key_bits, size_t *first);

/* Entry 0 is no group's (a range with no kernels points there: its limit 0
 * sends every length on).  A group's entry for n = 0 holds, as its bytes,
 * 16 x the width its keys' range starts at (the tuning table's, else the
 * widest): the short path's limit, read before the entry it then takes. */
static void fill_picks(void)
{
    static const unsigned bits_of[AES_GEN_KEY_SIZES] = {128, 192, 256};
    size_t at = 1;
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
        for (int md = 0; md < AES_GEN_MODE_COUNT; md++)
            for (int ks = 0; ks < AES_GEN_KEY_SIZES; ks++) {
                const struct group *g = &groups[b][md][ks];
                if (!g->count)
                    continue;
                group_picks[b][md][ks] = (uint16_t)at;
                size_t ki = g->first + g->count - 1; /* width 1 ends every group */
                for (size_t n = 0; n <= g->widest; n++) {
                    /* the widest kernel of at most n blocks: walk up as n grows */
                    while (ki > g->first && aes_gen_registry[ki - 1].width <= n)
                        ki--;
                    const size_t w = aes_gen_registry[ki].width;
                    aes_gen_picks[at + n] = (struct aes_gen_pick){
                        aes_gen_registry[ki].fn.block, (uint16_t)ki, (uint16_t)(n - n % w),
                        n && n % w == 0 ? (uint32_t)(16 * n) : 0};
                }
                size_t first;
                tuned_range((enum aes_gen_backend_id)b, (enum aes_gen_mode_dir)md, bits_of[ks],
                            &first);
                aes_gen_picks[at].bytes = 16u * aes_gen_registry[first].width;
                at += g->widest + 1u;
            }
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

int aes_gen_key_size_built(unsigned key_bits)
{
    size_t first;
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
        if (aes_gen_kernel_range((enum aes_gen_backend_id)b, 0, key_bits, &first))
            return 1;
    return 0;
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

int aes_gen_tuning_active(void)
{
    return tuning[0].backend >= 0;
}

static int tuned_backend(enum aes_gen_mode_dir md, unsigned key_bits)
{
    for (size_t t = 0; tuned_backends[t].md >= 0; t++)
        if (tuned_backends[t].md == (int)md && tuned_backends[t].key_bits == key_bits)
            return tuned_backends[t].backend;
    return -1;
}

/* The group's range, from the width a tuning table chose (wider kernels
 * skipped, the narrower tail kept). */
static size_t tuned_range(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                          unsigned key_bits, size_t *first)
{
    size_t n = aes_gen_kernel_range(backend, md, key_bits, first);
    for (size_t t = 0; tuning[t].backend >= 0; t++) {
        if (tuning[t].backend != (int)backend || tuning[t].md != (int)md ||
            tuning[t].key_bits != key_bits)
            continue;
        while (n > 1 && aes_gen_registry[*first].width > tuning[t].width)
            (*first)++, n--;
    }
    return n;
}

static int backend_runs(enum aes_gen_backend_id backend, uint32_t have)
{
    const uint32_t cpu = aes_gen_backend_table[backend].cpu;
    return aes_gen_backend_table[backend].generated && (cpu & have) == cpu;
}

/* The group exists, ends at width 1 (the drivers finish every message there),
 * and every kernel in it is built for this host and runs on a CPU with the
 * features `have`. */
static int group_runs(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md, unsigned key_bits,
                      uint32_t have)
{
    size_t first, n = aes_gen_kernel_range(backend, md, key_bits, &first);
    if (n == 0 || aes_gen_registry[first + n - 1].width != 1 || !backend_runs(backend, have))
        return 0;
    for (size_t i = first; i < first + n; i++)
        if (!aes_gen_registry[i].built ||
            (aes_gen_registry[i].cpu & have) != aes_gen_registry[i].cpu)
            return 0;
    return 1;
}

/* The backend whose kernels a key of `backend` runs md with, or -1: its
 * own, or for a mode it has none of, the first that runs it with the same
 * key format, and constant-time if the key's backend is: a constant-time key
 * never runs a table kernel. */
static int mode_source(enum aes_gen_backend_id backend, enum aes_gen_mode_dir md,
                       unsigned key_bits, uint32_t have)
{
    const struct aes_gen_backend_info *own = &aes_gen_backend_table[backend];
    size_t first;
    if (aes_gen_kernel_range(backend, md, key_bits, &first))
        return group_runs(backend, md, key_bits, have) ? (int)backend : -1;
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++) {
        const struct aes_gen_backend_info *other = &aes_gen_backend_table[b];
        if (other->key_format == own->key_format &&
            (other->constant_time || !own->constant_time) &&
            group_runs((enum aes_gen_backend_id)b, md, key_bits, have))
            return b;
    }
    return -1;
}

static struct aes_gen_mode_plan plan_of(int source, enum aes_gen_mode_dir md, unsigned bits)
{
    struct aes_gen_mode_plan p = {(int16_t)source, 0, 0, 0};
    size_t first = 0, n = source < 0 ? 0 : tuned_range((enum aes_gen_backend_id)source, md,
                                                       bits, &first);
    p.first = (uint16_t)first;
    p.count = (uint16_t)n;
    if (n)
        p.picks = group_picks[source][md][aes_gen_key_index(bits)];
    return p;
}

#define KEY_PLAN_AT(field, key_field)                                                   \
    (offsetof(struct aes_gen_key_plan, field) ==                                           \
         offsetof(aes_gen_key, key_field) - offsetof(aes_gen_key, private_kernels) &&    \
     sizeof ((struct aes_gen_key_plan *)0)->field == sizeof ((aes_gen_key *)0)->key_field)
_Static_assert(KEY_PLAN_AT(kernels, private_kernels) && KEY_PLAN_AT(picks, private_picks) &&
                   KEY_PLAN_AT(rk_offset, private_rk_offset) &&
                   KEY_PLAN_AT(backend, private_backend) && KEY_PLAN_AT(rounds, private_rounds),
               "a key plan is what a key holds, in its order");

static void key_plan(struct aes_gen_key_plan *kp, const struct aes_gen_mode_plan *plan,
                     int backend, unsigned key_bits, uint32_t have)
{
    kp->setup = NULL;
    if (backend >= 0) {
        const enum aes_gen_key_format kf = aes_gen_backend_table[backend].key_format;
        kp->setup = aes_gen_generated_setup(kf, key_bits, have);
        kp->rk_offset[0] = 0;
        kp->rk_offset[1] = AES_GEN_DEC_KEYS;
        kp->backend = (uint16_t)backend;
    }
    kp->rounds = (uint16_t)aes_gen_rounds(key_bits / 8);
    for (int md = 0; md < AES_GEN_MODE_COUNT; md++) {
        kp->kernels[md][0] = plan[md].first;
        kp->kernels[md][1] = plan[md].count;
        kp->picks[md] = plan[md].picks;
    }
}

void aes_gen_compute_plans(struct aes_gen_plans *plans, uint32_t have, int require_ct)
{
    static const unsigned bits_of[AES_GEN_KEY_SIZES] = {128, 192, 256};
    pthread_once(&picks_once, fill_picks);
    memset(plans, 0, sizeof *plans);
    plans->require_ct = require_ct;
    for (int ks = 0; ks < AES_GEN_KEY_SIZES; ks++) {
        const unsigned bits = bits_of[ks];
        plans->built[ks] = (uint8_t)aes_gen_key_size_built(bits);
        plans->chosen[ks] = -1;
        for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++) {
            int complete = backend_runs((enum aes_gen_backend_id)b, have);
            for (int md = 0; md < AES_GEN_MODE_COUNT; md++) {
                const int src = mode_source((enum aes_gen_backend_id)b,
                                            (enum aes_gen_mode_dir)md, bits, have);
                plans->mode[b][ks][md] = plan_of(src, (enum aes_gen_mode_dir)md, bits);
                /* Usable: every mode runs (GCM and XTS also without their kernels). */
                complete &= src >= 0 || aes_gen_mode_optional((enum aes_gen_mode_dir)md);
            }
            key_plan(&plans->key_plan[b][ks], plans->mode[b][ks], b, bits, have);
            plans->usable[b][ks] = (uint8_t)complete;
            plans->usable[b][AES_GEN_KEY_SIZES] |= (uint8_t)complete;
            /* The default: the first usable backend, constant-time ones first
             * (the table's order); with the policy, a constant-time one only. */
            if (complete && plans->chosen[ks] < 0 &&
                (aes_gen_backend_table[b].constant_time || !require_ct))
                plans->chosen[ks] = (int16_t)b;
        }
        const int b = plans->chosen[ks];
        for (int md = 0; b >= 0 && md < AES_GEN_MODE_COUNT; md++) {
            /* A tuning table's backend for the mode, where it shares the key
             * format and the constant-time class and runs the mode with its
             * own kernels here. */
            const int pick = tuned_backend((enum aes_gen_mode_dir)md, bits);
            const int tuned = pick >= 0 &&
                              aes_gen_backend_table[pick].key_format ==
                                  aes_gen_backend_table[b].key_format &&
                              aes_gen_backend_table[pick].constant_time ==
                                  aes_gen_backend_table[b].constant_time &&
                              plans->mode[pick][ks][md].source == pick;
            plans->chosen_mode[ks][md] = tuned ? plans->mode[pick][ks][md]
                                               : plans->mode[b][ks][md];
        }
        key_plan(&plans->chosen_key_plan[ks], plans->chosen_mode[ks], b, bits, have);
    }
}

/* The policy: the build's AES_GEN_REQUIRE_CONSTANT_TIME, or the environment
 * variable of that name set to 1 (which can only turn it on; secure_getenv:
 * not for a set-uid program's caller to change). */
static int require_constant_time(void)
{
#if AES_GEN_REQUIRE_CONSTANT_TIME
    return 1;
#else
    const char *env = aes_gen_secure_getenv("AES_GEN_REQUIRE_CONSTANT_TIME");
    return env && strcmp(env, "1") == 0;
#endif
}

struct aes_gen_plans aes_gen_plans_data;
int aes_gen_plans_ready;
static pthread_once_t plans_once = PTHREAD_ONCE_INIT;

static void fill_plans(void)
{
    aes_gen_compute_plans(&aes_gen_plans_data, aes_gen_cpu_features(), require_constant_time());
    __atomic_store_n(&aes_gen_plans_ready, 1, __ATOMIC_RELEASE);
}

/* Filled once (the CPU's features, the policy and the build decide it all). */
void aes_gen_fill_plans_once(void)
{
    pthread_once(&plans_once, fill_plans);
}

int aes_gen_backend_usable(enum aes_gen_backend_id backend, unsigned key_bits)
{
    const int ks = key_bits ? aes_gen_key_index(key_bits) : AES_GEN_KEY_SIZES;
    if ((unsigned)backend >= AES_GEN_BACKEND_COUNT || ks < 0)
        return 0;
    return aes_gen_plans()->usable[backend][ks];
}

int aes_gen_constant_time_required(void)
{
    return aes_gen_plans()->require_ct;
}
