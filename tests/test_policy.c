/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constant time as a guarantee.  For every subset of this CPU's features
 * (what AES_GEN_CPU_MASK or a virtual machine can take away), with the
 * policy on and off: a key whose backend is constant-time takes every mode
 * from constant-time kernels, the default is constant-time wherever a
 * constant-time backend runs, and with the policy it is never anything else;
 * every plan's short-message table picks the widest kernel that fits.
 * Then the same through the API in this process (ctest runs it under
 * several masks).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static int ct(int backend)
{
    return backend >= 0 && aes_gen_backend_table[backend].constant_time;
}

/* The short-message table of one plan (internal.h: aes_gen_pick): for every
 * n up to the range's widest width, the widest kernel of the range with at
 * most n blocks, taking its whole groups of them. */
static void check_picks(const struct aes_gen_mode_plan *plan, uint32_t have)
{
    const struct aes_gen_pick *picks = aes_gen_picks + plan->picks;
    const unsigned widest = aes_gen_registry[plan->first].width;
    for (unsigned n = 1; n <= widest; n++) {
        const struct aes_gen_pick e = picks[n];
        ck_assert_msg(e.kernel >= plan->first && e.kernel < plan->first + plan->count,
                      "features 0x%x: %s: %u blocks start outside the range", have,
                      aes_gen_registry[plan->first].symbol, n);
        const unsigned w = aes_gen_registry[e.kernel].width;
        ck_assert_msg(w <= n && e.blocks == n - n % w, "features 0x%x: %s: %u blocks: %s takes %u",
                      have, aes_gen_registry[plan->first].symbol, n,
                      aes_gen_registry[e.kernel].symbol, e.blocks);
        for (unsigned i = plan->first; i < e.kernel; i++)
            ck_assert_msg(aes_gen_registry[i].width > n, "features 0x%x: %u blocks: %s before %s",
                          have, n, aes_gen_registry[i].symbol, aes_gen_registry[e.kernel].symbol);
        /* the public functions' one-call test: the length, only where one call takes it all */
        ck_assert_msg(e.bytes == (e.blocks == n ? 16 * n : 0), "features 0x%x: %s: %u blocks: "
                      "bytes %u", have, aes_gen_registry[plan->first].symbol, n, e.bytes);
    }
    ck_assert_msg(picks[0].bytes == 16 * widest, "features 0x%x: %s: the limit is %u bytes", have,
                  aes_gen_registry[plan->first].symbol, picks[0].bytes);
}

static void check_plans(const struct aes_gen_plans *p, uint32_t have)
{
    for (int ks = 0; ks < AES_GEN_KEY_SIZES; ks++) {
        int any_ct = 0;
        for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++) {
            if (!p->usable[b][ks])
                continue;
            any_ct |= ct(b);
            for (int md = 0; md < AES_GEN_MODE_COUNT; md++) {
                const int src = p->mode[b][ks][md].source;
                /* A mode must run; GCM and XTS may go without kernels of their own. */
                ck_assert_msg(src >= 0 || aes_gen_mode_optional((enum aes_gen_mode_dir)md),
                              "features 0x%x: usable %s has no source for %s", have,
                              aes_gen_backend_table[b].name, aes_gen_modes[md].name);
                if (src < 0)
                    continue;
                check_picks(&p->mode[b][ks][md], have);
                ck_assert_msg(!ct(b) || ct(src),
                              "features 0x%x: a %s key (constant-time) runs %s on %s", have,
                              aes_gen_backend_table[b].name, aes_gen_modes[md].name,
                              aes_gen_backend_table[src].name);
            }
        }
        const int chosen = p->chosen[ks];
        if (any_ct)
            ck_assert_msg(ct(chosen), "features 0x%x: default %s while a constant-time "
                          "backend runs", have, chosen < 0 ? "none" : aes_gen_backend_table[chosen].name);
        else if (p->require_ct)
            ck_assert_msg(chosen < 0, "features 0x%x: the policy, and default %s", have,
                          aes_gen_backend_table[chosen].name);
        for (int md = 0; chosen >= 0 && md < AES_GEN_MODE_COUNT; md++)
            ck_assert(!ct(chosen) || p->chosen_mode[ks][md].source < 0 ||
                      ct(p->chosen_mode[ks][md].source));
    }
}

START_TEST(every_feature_subset)
{
    static struct aes_gen_plans p;
    const uint32_t have = aes_gen_cpu_features();
    long subsets = 0;
    for (uint32_t s = have;; s = (s - 1) & have) {
        for (int require = 0; require < 2; require++) {
            aes_gen_compute_plans(&p, s, require);
            check_plans(&p, s);
        }
        subsets++;
        if (!s)
            break;
    }
    printf("every_feature_subset: %ld subsets of this CPU's features, policy on and off\n",
           subsets);
}
END_TEST

/* The default key in this process, under its AES_GEN_CPU_MASK and policy. */
START_TEST(default_obeys_the_policy)
{
    uint8_t key[32] = {7};
    size_t lens[3];
    const size_t nk = built_key_lens(lens);
    for (size_t i = 0; i < nk; i++) {
        const unsigned bits = (unsigned)lens[i] * 8;
        int any_ct = 0;
        for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
            any_ct |= aes_gen_backend_usable((enum aes_gen_backend_id)b, bits) && ct(b);
        aes_gen_key k;
        memset(&k, 0x5a, sizeof k);
        const int err = aes_gen_setkey(&k, key, lens[i]);
        if (!any_ct && aes_gen_constant_time_required()) {
            ck_assert_int_eq(err, AES_GEN_ENOTCT);
            for (size_t j = 0; j < sizeof k; j++)
                ck_assert_uint_eq(((const uint8_t *)&k)[j], 0x5a); /* nothing written */
            continue;
        }
        ck_assert_int_eq(err, AES_GEN_OK);
        ck_assert_int_eq(aes_gen_key_constant_time(&k), any_ct);
        for (size_t m = 0; aes_gen_mode_name(m); m++) {
            aes_gen_mode_use use;
            ck_assert_int_eq(aes_gen_key_mode_use(&k, aes_gen_mode_name(m), &use), AES_GEN_OK);
            ck_assert_int_eq(use.constant_time, ct(aes_gen_backend_index(use.backend)));
            if (any_ct)
                ck_assert_msg(use.constant_time, "%s: AES-%u %s runs on %s", aes_gen_key_backend(&k),
                              bits, aes_gen_mode_name(m), use.backend);
        }
        /* A table backend by name stays possible, and says what it is. */
        if (aes_gen_setkey_backend(&k, key, lens[i], "ttable") == AES_GEN_OK)
            ck_assert_int_eq(aes_gen_key_constant_time(&k), 0);
        aes_gen_wipe(&k);
        ck_assert_int_eq(aes_gen_key_constant_time(&k), -1);
    }
    printf("default_obeys_the_policy: policy %s, AES_GEN_CPU_MASK=%s\n",
           aes_gen_constant_time_required() ? "on" : "off",
           getenv("AES_GEN_CPU_MASK") ? getenv("AES_GEN_CPU_MASK") : "");
}
END_TEST

/* aes_gen_expand_key follows the CPU as the backends do: the vpaes format,
 * computed with SSSE3, is refused without it (policy_no_ct masks it). */
START_TEST(expand_key_follows_the_cpu)
{
    const uint8_t key[16] = {1};
    uint8_t out[176];
    const int ssse3 = (aes_gen_cpu_features() & AES_GEN_CPU_SSSE3) != 0;
    ck_assert_int_eq(aes_gen_expand_key("fips", key, 16, 0, out, sizeof out), AES_GEN_OK);
#if defined(__x86_64__)
    ck_assert_int_eq(aes_gen_expand_key("vpaes", key, 16, 0, out, sizeof out),
                     ssse3 ? AES_GEN_OK : AES_GEN_EBACKEND);
#endif
    printf("expand_key_follows_the_cpu: ssse3 %d\n", ssse3);
}
END_TEST

/* The generated key setups run only where the CPU has every feature their
 * instructions need (kernels.h: AES_GEN_NEEDS_*): the SSE flavor's pshufb
 * is SSSE3, which AES-NI alone does not promise. */
START_TEST(key_setup_needs_every_feature)
{
#if defined(AES_GEN_HAVE_AESNI_KEY_SETUP_K128) && defined(__x86_64__)
    const uint32_t aesni = AES_GEN_CPU_AESNI | AES_GEN_CPU_SSE2;
    for (unsigned bits = 128; bits <= 256; bits += 64) {
        ck_assert_ptr_null(aes_gen_generated_setup(AES_GEN_KF_fips, bits, aesni));
        ck_assert_ptr_nonnull(aes_gen_generated_setup(AES_GEN_KF_fips, bits,
                                                      aesni | AES_GEN_CPU_SSSE3));
    }
    ck_assert_ptr_eq(aes_gen_generated_setup(AES_GEN_KF_fips, 128, aesni | AES_GEN_CPU_SSSE3),
                     aes_gen_aesni_key_setup_k128);
#endif
}
END_TEST

int main(void)
{
    /* Detect the features (and report an unknown mask name) once, before
     * Check forks a process per test. */
    char names[256];
    printf("features: %s\n", aes_gen_cpu_feature_names(aes_gen_cpu_features(), names,
                                                       sizeof names));
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("policy");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_feature_subset);
    tcase_add_test(tc, default_obeys_the_policy);
    tcase_add_test(tc, expand_key_follows_the_cpu);
    tcase_add_test(tc, key_setup_needs_every_feature);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
