/* SPDX-License-Identifier: Apache-2.0 */
/* Zeroing the compiler may not drop: key material, stack temporaries. */
#include "internal.h"

#include <string.h>

void aes_gen_secure_zero(void *p, size_t n)
{
#if defined(__GNUC__)
    /* memset, then a barrier that claims to read the memory: the stores
     * cannot be dropped as dead, and memset keeps its speed. */
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile uint8_t *v = p;
    while (n--)
        *v++ = 0;
#endif
}

void aes_gen_wipe(aes_gen_key *k)
{
    if (k)
        aes_gen_secure_zero(k, sizeof *k);
}
