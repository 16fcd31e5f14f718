/* SPDX-License-Identifier: Apache-2.0 */
/* The TILE-Gx intrinsic emulation (runtime/tilegx/tilegx_emu.h) against
 * concrete values worked out from each instruction's definition in the ISA
 * fact sheet, independent of AES: a wrong emulation and a wrong kernel must
 * not be able to cancel out.  The trapping mode is checked in a child. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h" /* run_suite only */

#define AES_GEN_TILEGX_TRAP
#include "tilegx/tilegx_emu.h"

static const uint64_t A = 0xA7A6A5A4A3A2A1A0ull, B = 0xB7B6B5B4B3B2B1B0ull;

START_TEST(tblidx)
{
    const uint64_t d = 0x1122334455667788ull, s = 0xDEADBEEFull;
    ck_assert_uint_eq(__insn_tblidxb0(d, s), 0x11223344556677BCull);
    ck_assert_uint_eq(__insn_tblidxb1(d, s), 0x11223344556676F8ull);
    ck_assert_uint_eq(__insn_tblidxb2(d, s), 0x11223344556676B4ull);
    ck_assert_uint_eq(__insn_tblidxb3(d, s), 0x1122334455667778ull);
    /* Bits 0-1 and 10-63 of d stay; a zero byte clears the index bits. */
    ck_assert_uint_eq(__insn_tblidxb0(0xFFFFFFFFFFFFFFFFull, 0), 0xFFFFFFFFFFFFFC03ull);
}
END_TEST

START_TEST(loads_and_alignment)
{
    _Alignas(8) uint8_t m[32];
    for (int i = 0; i < 32; i++)
        m[i] = (uint8_t)(0x10 + i);
    ck_assert_uint_eq(__insn_ld4u(m), 0x13121110ull);
    ck_assert_uint_eq(__insn_ld(m), 0x1716151413121110ull);
    ck_assert_uint_eq(__insn_ldna(m + 3), 0x1716151413121110ull);
    ck_assert_uint_eq(__insn_ldna(m + 8), 0x1F1E1D1C1B1A1918ull);
    /* dblalign: the 8 bytes at p from the two aligned doublewords around it. */
    const uint64_t lo = 0x0706050403020100ull, hi = 0x0F0E0D0C0B0A0908ull;
    ck_assert_uint_eq(__insn_dblalign(lo, hi, (void *)(uintptr_t)3), 0x0A09080706050403ull);
    ck_assert_uint_eq(__insn_dblalign(lo, hi, (void *)(uintptr_t)8), lo);
    ck_assert_uint_eq(__insn_dblalign(__insn_ldna(m + 5), __insn_ldna(m + 13), m + 5),
                      0x1C1B1A1918171615ull);
    ck_assert_uint_eq(__insn_revbytes(0x0123456789ABCDEFull), 0xEFCDAB8967452301ull);
}
END_TEST

START_TEST(interleave_and_pack)
{
    ck_assert_uint_eq(__insn_v1int_l(A, B), 0xA3B3A2B2A1B1A0B0ull);
    ck_assert_uint_eq(__insn_v2int_l(A, B), 0xA3A2B3B2A1A0B1B0ull);
    ck_assert_uint_eq(__insn_v4int_l(A, B), 0xA3A2A1A0B3B2B1B0ull);
    ck_assert_uint_eq(__insn_v2packl(A, B), 0xA6A4A2A0B6B4B2B0ull);
    ck_assert_uint_eq(__insn_v2packh(A, B), 0xA7A5A3A1B7B5B3B1ull);
}
END_TEST

START_TEST(bit_fields)
{
    const uint64_t d = 0x1111111111111111ull, a = 0x2222222222222222ull;
    ck_assert_uint_eq(__insn_mm(d, a, 8, 15), 0x2222222222221122ull);
    ck_assert_uint_eq(__insn_mm(d, a, 60, 3), 0x1222222222222221ull);
    ck_assert_uint_eq(__insn_mm(d, a, 0, 63), d);
    ck_assert_uint_eq(__insn_mm(d, a, 32, 63), 0x1111111122222222ull);
    ck_assert_uint_eq(__insn_bfextu(0x0123456789ABCDEFull, 8, 15), 0xCDull);
    ck_assert_uint_eq(__insn_bfextu(0x0123456789ABCDEFull, 60, 3), 0xF0ull);
    ck_assert_uint_eq(__insn_bfextu(0x0123456789ABCDEFull, 0, 63), 0x0123456789ABCDEFull);
    ck_assert_uint_eq(__insn_bfextu(0x0123456789ABCDEFull, 0, 3), 0xFull);
}
END_TEST

START_TEST(shuffle_and_shifts)
{
    const uint64_t d = 0xD7D6D5D4D3D2D1D0ull;
    ck_assert_uint_eq(__insn_shufflebytes(d, A, 0x0F00080107020903ull), 0xA7D0A0D1D7D2A1D3ull);
    /* Only the low nibble of a selector byte counts. */
    ck_assert_uint_eq(__insn_shufflebytes(d, A, 0xF0F0F0F0F0F0F0F0ull), 0xD0D0D0D0D0D0D0D0ull);
    ck_assert_uint_eq(__insn_v1shrui(0x80FF7F0102030405ull, 1), 0x407F3F0001010202ull);
    ck_assert_uint_eq(__insn_v1shrui(0x80FF7F0102030405ull, 9), 0x407F3F0001010202ull);
    ck_assert_uint_eq(__insn_v2shrui(0x8000FFFF00010100ull, 8), 0x008000FF00000001ull);
}
END_TEST

START_TEST(stores)
{
    _Alignas(8) uint8_t m[24] = {0};
    __insn_st4(m, 0xAABBCCDD11223344ull);
    ck_assert_uint_eq(m[0], 0x44);
    ck_assert_uint_eq(m[3], 0x11);
    ck_assert_uint_eq(m[4], 0);
    __insn_st(m + 8, 0x0807060504030201ull);
    ck_assert_uint_eq(m[8], 1);
    ck_assert_uint_eq(m[15], 8);
    void *p = m + 16;
    __insn_st_add(p, 0x1122334455667788ull, 8);
    ck_assert_ptr_eq(p, m + 24);
    ck_assert_uint_eq(m[16], 0x88);
}
END_TEST

/* In a child, f must end in SIGABRT (the emulated trap). */
static int traps(void (*f)(uint8_t *), uint8_t *m)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        f(m);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void ld4u_at_1(uint8_t *m) { (void)__insn_ld4u(m + 1); }
static void ld_at_4(uint8_t *m) { (void)__insn_ld(m + 4); }
static void st4_at_2(uint8_t *m) { __insn_st4(m + 2, 0); }
static void st_at_4(uint8_t *m) { __insn_st(m + 4, 0); }
static void aligned_ok(uint8_t *m)
{
    (void)__insn_ld(m);
    (void)__insn_ld4u(m + 4);
    (void)__insn_ldna(m + 3); /* ldna never traps */
    __insn_st(m + 8, 0);
    __insn_st4(m + 12, 0);
}

START_TEST(trapping_mode)
{
    static _Alignas(8) uint8_t m[32];
    ck_assert_msg(traps(ld4u_at_1, m), "ld4u at p+1 must trap");
    ck_assert_msg(traps(ld_at_4, m), "ld at p+4 must trap");
    ck_assert_msg(traps(st4_at_2, m), "st4 at p+2 must trap");
    ck_assert_msg(traps(st_at_4, m), "st at p+4 must trap");
    ck_assert_msg(!traps(aligned_ok, m), "aligned accesses and ldna must not trap");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tilegx_emu");
    TCase *tc = tcase_create("intrinsics");
    tcase_add_test(tc, tblidx);
    tcase_add_test(tc, loads_and_alignment);
    tcase_add_test(tc, interleave_and_pack);
    tcase_add_test(tc, bit_fields);
    tcase_add_test(tc, shuffle_and_shifts);
    tcase_add_test(tc, stores);
    tcase_add_test(tc, trapping_mode);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
