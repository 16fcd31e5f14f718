/* SysV ABI check of every registered kernel (BoringSSL's idea): call it with
 * random values in the callee-saved registers and verify they, and the stack
 * pointer, survive; the output must equal a plain call's. */
#include <check.h>
#include <stdio.h>
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
};
void aes_gen_abi_call(struct abi_call *c);

static const char *const saved_names[6] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};

START_TEST(kernel_preserves_callee_saved)
{
    const struct aes_gen_kernel_info *ki = &aes_gen_registry[_i];
    uint64_t rng = test_seed() ^ (uint64_t)_i << 16;
    _Alignas(16) uint8_t rk[15 * 16];
    uint8_t iv_a[16], iv_b[16], src[16 * 48], dst_a[16 * 48], dst_b[16 * 48];

    if (!kernel_runs_here(ki))
        return;
    const size_t nblocks = 3 * ki->width;
    ck_assert_uint_le(nblocks, 48);
    rng_fill(&rng, rk, sizeof rk);
    rng_fill(&rng, src, sizeof src);
    rng_fill(&rng, iv_a, 16);
    memcpy(iv_b, iv_a, 16);
    for (int round = 0; round < 4; round++) {
        struct abi_call c = {ki->fn, rk, iv_a, dst_a, src, nblocks, {0}, {0}, 0};
        rng_fill(&rng, c.in, sizeof c.in);
        aes_gen_abi_call(&c);
        for (int r = 0; r < 6; r++)
            ck_assert_msg(c.out[r] == c.in[r], "%s clobbers %s", ki->symbol, saved_names[r]);
        ck_assert_msg(c.rsp_delta == 0, "%s moves rsp by %lld", ki->symbol,
                      (long long)c.rsp_delta);
        ki->fn(rk, iv_b, dst_b, src, nblocks);
        ck_assert_mem_eq(dst_a, dst_b, 16 * nblocks);
        ck_assert_mem_eq(iv_a, iv_b, 16);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("sysv");
    tcase_add_loop_test(tc, kernel_preserves_callee_saved, 0, (int)aes_gen_registry_count);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
