/* SPDX-License-Identifier: Apache-2.0 */
/* Wiping keys, and the registers key setup leaves. */
#include "internal.h"

#include <string.h>

void aes_gen_wipe(aes_gen_key *k)
{
    if (k)
        aes_gen_secure_zero(k, sizeof *k);
}

/* Key setup runs SIMD code (the key schedule's intrinsics, and the C
 * library's memcpy and memset, which use ymm or zmm registers), and C code
 * that holds key words in general-purpose registers: clear every vector
 * register and the caller-saved general-purpose ones (the callee-saved ones
 * get the caller's values back on return) so that no round key or hash-key
 * power outlives the call there. */
#if defined(__x86_64__)
__attribute__((target("avx512f"))) static void clear_zmm(void)
{
    __asm__ __volatile__("vzeroall\n\t"
                         "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
                         "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
                         "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
                         "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
                         "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"
                         "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"
                         "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"
                         "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31\n\t"
                         "vzeroupper" ::: "memory");
}

__attribute__((target("avx"))) static void clear_ymm(void)
{
    __asm__ __volatile__("vzeroall" ::: "memory");
}

static void clear_xmm(void)
{
    __asm__ __volatile__("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
                         "pxor %%xmm3, %%xmm3\n\tpxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
                         "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\tpxor %%xmm8, %%xmm8\n\t"
                         "pxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
                         "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\t"
                         "pxor %%xmm15, %%xmm15" ::: "memory");
}
#endif

void aes_gen_clear_registers(void)
{
#if defined(__x86_64__)
    const uint32_t f = aes_gen_cpu_features();
    if (f & AES_GEN_CPU_AVX512F)
        clear_zmm();
    else if (f & AES_GEN_CPU_AVX)
        clear_ymm();
    else
        clear_xmm();
    __asm__ __volatile__("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"
                         "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"
                         "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\txor %%r11d, %%r11d"
                         ::: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
                         "cc", "memory");
#endif
}
