/* SPDX-License-Identifier: Apache-2.0 */
/* SysV ABI and hygiene check of every registered kernel (BoringSSL's idea,
 * extended): call it with random values in the callee-saved registers and
 * verify they, and the stack pointer, survive; that it leaves no dirty upper
 * ymm/zmm state (XINUSE, XGETBV with ECX=1; an AVX kernel also when called
 * with dirty upper halves, so it must end in vzeroupper) and no round key, nor the
 * whitened last key rkN ^ rk0, in any vector register, nor a round-key word
 * in a caller-saved general-purpose register; the output must
 * equal a plain call's. */
#include <check.h>
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct abi_call {
    aes_gen_kernel_fn *fn;
    const uint8_t *rk;
    uint8_t *iv;
    uint8_t *dst;
    const uint8_t *src;
    size_t nblocks;
    uint64_t in[6], out[6];
    int64_t rsp_delta;
    uint64_t flags, xinuse;
    uint64_t scratch[9]; /* rax rcx rdx rsi rdi r8 r9 r10 r11 after the call */
    uint64_t pad[2];
    _Alignas(64) uint8_t vregs[32][64];
};
_Static_assert(offsetof(struct abi_call, flags) == 152 && offsetof(struct abi_call, xinuse) == 160 &&
               offsetof(struct abi_call, scratch) == 168 && offsetof(struct abi_call, vregs) == 256,
               "layout of tests/abi_x86_64.S");
void aes_gen_abi_call(struct abi_call *c);
aes_gen_kernel_fn aes_gen_abi_leaky_gp, aes_gen_abi_leaky_xmm;

enum { HAVE_AVX = 1, HAVE_AVX512 = 2, HAVE_XINUSE = 4, DIRTY_UPPER = 8 };
enum { XINUSE_YMM = 1u << 2, XINUSE_ZMM_HI256 = 1u << 6 };

static const char *const saved_names[6] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};
static const char *const scratch_names[9] = {"rax", "rcx", "rdx", "rsi", "rdi",
                                             "r8", "r9", "r10", "r11"};

/* A caller-saved GP register left holding a 32-bit round-key word (the
 * T-table kernels load keys through GP registers): its name, or NULL. */
static const char *key_word_in_gp(const struct abi_call *c, const uint8_t *rk, int rounds)
{
    for (int r = 0; r < 9; r++)
        for (int half = 0; half < 2; half++) {
            const uint32_t v = (uint32_t)(c->scratch[r] >> (32 * half));
            for (int w = 0; w < 4 * (rounds + 1); w++) {
                uint32_t key;
                memcpy(&key, rk + 4 * w, 4);
                if (v == key)
                    return scratch_names[r];
            }
        }
    return NULL;
}

static uint64_t cpu_flags(void)
{
    const uint32_t f = aes_gen_cpu_features();
    uint64_t flags = 0;
    unsigned a, b, c, d;
    if (f & AES_GEN_CPU_AVX)
        flags |= HAVE_AVX;
    if (f & AES_GEN_CPU_AVX512F)
        flags |= HAVE_AVX512;
    /* CPUID.(EAX=0DH, ECX=1):EAX[2]: XGETBV with ECX=1 reports XINUSE. */
    if ((f & AES_GEN_CPU_AVX) && __get_cpuid_max(0, NULL) >= 0xd) {
        __cpuid_count(0xd, 1, a, b, c, d);
        if (a & 4)
            flags |= HAVE_XINUSE;
    }
    return flags;
}

/* Register r's lanes that hold a round key (or rkN ^ rk0): a printed list, 0 if none. */
static int key_in_registers(const struct abi_call *c, const uint8_t *rk, int rounds, char *where,
                            size_t size)
{
    const int regs = c->flags & HAVE_AVX512 ? 32 : 16;
    const int lanes = c->flags & HAVE_AVX512 ? 4 : c->flags & HAVE_AVX ? 2 : 1;
    uint8_t whitened[16];
    int found = 0;
    for (int i = 0; i < 16; i++)
        whitened[i] = rk[i] ^ rk[16 * rounds + i];
    for (int r = 0; r < regs; r++)
        for (int lane = 0; lane < lanes; lane++) {
            const uint8_t *v = c->vregs[r] + 16 * lane;
            for (int k = 0; k <= rounds + 1; k++) {
                const uint8_t *key = k <= rounds ? rk + 16 * k : whitened;
                if (memcmp(v, key, 16) == 0 && !found++)
                    snprintf(where, size, "vector register %d lane %d holds %s%d", r, lane,
                             k <= rounds ? "rk" : "rk0 ^ rk", k <= rounds ? k : rounds);
            }
        }
    return found;
}

START_TEST(kernel_preserves_abi_and_leaves_nothing)
{
    const struct aes_gen_kernel_info *ki = &aes_gen_registry[_i];
    uint64_t rng = test_seed() ^ (uint64_t)_i << 16;
    const int rounds = (int)aes_gen_rounds(ki->key_bits / 8);
    uint8_t rk[15 * 16], iv_a[16], iv_b[16];

    if (!kernel_runs_here(ki))
        return;
    const size_t nblocks = 3 * ki->width, len = 16 * nblocks;
    uint8_t *src = malloc(len), *dst_a = malloc(len), *dst_b = malloc(len);
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    ck_assert(src && dst_a && dst_b && c);
    rng_fill(&rng, rk, sizeof rk);
    rng_fill(&rng, src, len);
    rng_fill(&rng, iv_a, 16);
    memcpy(iv_b, iv_a, 16);
    for (int round = 0; round < 4; round++) {
        memset(c, 0, sizeof *c);
        c->fn = ki->fn.block, c->rk = rk, c->iv = iv_a, c->dst = dst_a, c->src = src;
        c->nblocks = nblocks;
        c->flags = cpu_flags();
        /* Rounds 2 and 3 of an AVX kernel start with dirty upper halves. */
        const int avx_kernel = (ki->cpu & (AES_GEN_CPU_AVX | AES_GEN_CPU_AVX2 |
                                           AES_GEN_CPU_AVX512F)) != 0;
        if (avx_kernel && round >= 2 && (c->flags & HAVE_XINUSE))
            c->flags |= DIRTY_UPPER;
        rng_fill(&rng, c->in, sizeof c->in);
        aes_gen_abi_call(c);
        for (int r = 0; r < 6; r++)
            ck_assert_msg(c->out[r] == c->in[r], "%s clobbers %s", ki->symbol, saved_names[r]);
        ck_assert_msg(c->rsp_delta == 0, "%s moves rsp by %lld", ki->symbol,
                      (long long)c->rsp_delta);
        if (c->flags & HAVE_XINUSE)
            ck_assert_msg(!(c->xinuse & (XINUSE_YMM | XINUSE_ZMM_HI256)),
                          "%s leaves upper ymm/zmm state dirty (XINUSE 0x%llx%s): no vzeroupper",
                          ki->symbol, (unsigned long long)c->xinuse,
                          c->flags & DIRTY_UPPER ? ", called dirty" : "");
        char where[96];
        ck_assert_msg(!key_in_registers(c, rk, rounds, where, sizeof where),
                      "%s returns with key material: %s", ki->symbol, where);
        const char *gp = key_word_in_gp(c, rk, rounds);
        ck_assert_msg(gp == NULL, "%s returns with a round-key word in %s", ki->symbol, gp);
        ki->fn.block(rk, iv_b, dst_b, src, nblocks);
        ck_assert_mem_eq(dst_a, dst_b, len);
        ck_assert_mem_eq(iv_a, iv_b, 16);
    }
    free(src), free(dst_a), free(dst_b), free(c);
}
END_TEST

/* The API: key setup and every mode leave no round key (in the key's format
 * or the FIPS-197 one) in a vector register or a caller-saved GP register,
 * for every backend. */
START_TEST(api_calls_leave_no_key_material)
{
    size_t ids[AES_GEN_BACKEND_COUNT], lens[3];
    const size_t nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, 0), nk = built_key_lens(lens);
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    static aes_gen_key k;
    static uint8_t buf[16 * 40 + 7], iv[16];
    uint8_t key[32];
    ck_assert_ptr_nonnull(c);
    uint64_t rng = test_seed();
    for (size_t b = 0; b < nb; b++)
        for (size_t ki = 0; ki < nk; ki++) {
            const char *name = aes_gen_backend_table[ids[b]].name;
            const int rounds = (int)aes_gen_rounds(lens[ki]);
            if (!aes_gen_backend_usable(ids[b], (unsigned)(8 * lens[ki])))
                continue;
            rng_fill(&rng, key, sizeof key);
            ref_key ref;
            ref_setkey(&ref, key, lens[ki]);
            for (int call = -1; call < AES_GEN_MODE_COUNT; call++) {
                memset(c, 0, sizeof *c);
                c->flags = cpu_flags();
                if (call < 0) { /* aes_gen_setkey_backend(k, key, key_len, name) */
                    c->fn = (aes_gen_kernel_fn *)(void (*)(void))aes_gen_setkey_backend;
                    c->rk = (const uint8_t *)&k, c->iv = key, c->dst = (uint8_t *)(uintptr_t)lens[ki];
                    c->src = (const uint8_t *)name;
                } else { /* the mode's function(k, iv, dst, src, len) */
                    const struct mode_case *mc = &mode_cases[call];
                    if (!mc->api)
                        continue;
                    c->fn = (aes_gen_kernel_fn *)(void (*)(void))mc->api;
                    c->rk = (const uint8_t *)&k, c->iv = iv, c->dst = buf, c->src = buf;
                    c->nblocks = mc->whole_blocks ? 16 * 40 : sizeof buf;
                }
                aes_gen_abi_call(c);
                char where[96];
                const char *what = call < 0 ? "setkey" : mode_cases[call].name;
                for (int schedule = 0; schedule < 3; schedule++) {
                    const uint8_t *rk = schedule == 2 ? &ref.rk[0][0] : aes_gen_round_keys(&k, schedule);
                    ck_assert_msg(!key_in_registers(c, rk, rounds, where, sizeof where),
                                  "%s %s AES-%zu returns with key material: %s", name, what,
                                  8 * lens[ki], where);
                    const char *gp = key_word_in_gp(c, rk, rounds);
                    ck_assert_msg(gp == NULL, "%s %s returns with a round-key word in %s", name,
                                  what, gp);
                }
            }
            aes_gen_wipe(&k);
        }
    free(c);
}
END_TEST

/* The checks themselves: kernels that leak on purpose are caught. */
START_TEST(leaks_are_caught)
{
    uint64_t rng = test_seed();
    uint8_t rk[15 * 16], buf[16], iv[16];
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    char where[96];
    ck_assert_ptr_nonnull(c);
    rng_fill(&rng, rk, sizeof rk);
    for (int leak = 0; leak < 2; leak++) {
        memset(c, 0, sizeof *c);
        c->fn = leak ? aes_gen_abi_leaky_xmm : aes_gen_abi_leaky_gp;
        c->rk = rk, c->iv = iv, c->dst = buf, c->src = buf, c->nblocks = 0;
        c->flags = cpu_flags() & ~(uint64_t)DIRTY_UPPER;
        aes_gen_abi_call(c);
        if (leak)
            ck_assert_msg(key_in_registers(c, rk, 10, where, sizeof where),
                          "a round key left in xmm5 is not noticed");
        else
            ck_assert_msg(key_word_in_gp(c, rk, 10) != NULL,
                          "a round-key word left in eax is not noticed");
    }
    free(c);
}
END_TEST

int main(void)
{
    const uint64_t flags = cpu_flags();
    printf("abi: vector registers dumped as %s; XINUSE %s\n",
           flags & HAVE_AVX512 ? "zmm0-31" : flags & HAVE_AVX ? "ymm0-15" : "xmm0-15",
           flags & HAVE_XINUSE ? "checked" : "not reported by this CPU (not checked)");
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("sysv");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, leaks_are_caught);
    tcase_add_test(tc, api_calls_leave_no_key_material);
    tcase_add_loop_test(tc, kernel_preserves_abi_and_leaves_nothing, 0,
                        (int)aes_gen_registry_count);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
