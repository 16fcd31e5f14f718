/* SPDX-License-Identifier: Apache-2.0 */
/* The generator's tables (generated/tables.c, from gen/aes_math.py) against
 * values recomputed here from the reference S-box and GF(2^8) doubling. */
#include <check.h>

#include "common.h"
#include "tables.h"

static uint8_t dbl(uint8_t x)
{
    return (uint8_t)(x << 1 ^ ((x & 0x80) ? 0x1b : 0));
}

static uint8_t times(uint8_t x, unsigned c)
{
    uint8_t r = 0;
    for (; c; c >>= 1, x = dbl(x))
        if (c & 1)
            r ^= x;
    return r;
}

static uint32_t column(uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3)
{
    return (uint32_t)b0 | (uint32_t)b1 << 8 | (uint32_t)b2 << 16 | (uint32_t)b3 << 24;
}

static uint32_t rotl(uint32_t v, unsigned n)
{
    return n ? v << n | v >> (32 - n) : v;
}

START_TEST(tables_match_reference)
{
    for (unsigned x = 0; x < 256; x++) {
        const uint8_t s = ref_sbox((uint8_t)x), si = ref_inv_sbox((uint8_t)x);
        ck_assert_uint_eq(aes_gen_sbox[x], s);
        ck_assert_uint_eq(aes_gen_inv_sbox[x], si);
        const uint32_t te = column(times(s, 2), s, s, times(s, 3));
        const uint32_t td = column(times(si, 14), times(si, 9), times(si, 13), times(si, 11));
        for (unsigned k = 0; k < 4; k++) {
            ck_assert_uint_eq(aes_gen_te[k][x], rotl(te, 8 * k));
            ck_assert_uint_eq(aes_gen_td[k][x], rotl(td, 8 * k));
            /* The T-table kernels' copies, then the last round's S-box bytes in row k. */
            ck_assert_uint_eq(aes_gen_ttable_enc[k][x], rotl(te, 8 * k));
            ck_assert_uint_eq(aes_gen_ttable_dec[k][x], rotl(td, 8 * k));
            ck_assert_uint_eq(aes_gen_ttable_enc[4 + k][x], (uint32_t)s << 8 * k);
            ck_assert_uint_eq(aes_gen_ttable_dec[4 + k][x], (uint32_t)si << 8 * k);
        }
    }
    uint8_t r = 1;
    for (unsigned i = 0; i < sizeof aes_gen_rcon; i++, r = dbl(r))
        ck_assert_uint_eq(aes_gen_rcon[i], r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tables");
    TCase *tc = tcase_create("tables");
    tcase_add_test(tc, tables_match_reference);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
