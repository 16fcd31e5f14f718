/* SPDX-License-Identifier: Apache-2.0 */
/* Zeroing the compiler may not drop: key material, stack temporaries. */
#include "internal.h"

void aes_gen_secure_zero(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--)
        *v++ = 0;
}

void aes_gen_wipe(aes_gen_key *k)
{
    if (k)
        aes_gen_secure_zero(k, sizeof *k);
}
