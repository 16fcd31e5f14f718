/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The provider's CBC TLS record unpadding (provider/prov_tls.c, compiled
 * here with the module's flags) under valgrind memcheck with the decrypted
 * record undefined: no branch or address may depend on it, for SSL 3.0's,
 * TLS 1.0's and the explicit-IV versions' records, MACs of 20 and 64 bytes
 * (not 0: its result is the padding's, public under encrypt-then-MAC), every
 * padding byte, good and bad.  `ct_tls control` then branches on the length
 * it returns, which memcheck must report, or the check itself is broken.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/prov_ssl.h>
#include <valgrind/memcheck.h>

#include "../provider/prov.h"

int main(int argc, char **argv)
{
    static const unsigned int versions[] = {SSL3_VERSION, TLS1_VERSION, TLS1_2_VERSION};
    static const size_t macs[] = {20, 64};
    static uint8_t rec[16 + 300 + 64 + 16];
    uint8_t mac[AGP_TLS_MAC_MAX];
    const int control = argc > 1 && strcmp(argv[1], "control") == 0;
    int runs = 0;

    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++)
        for (size_t m = 0; m < sizeof macs / sizeof macs[0]; m++)
            for (size_t pad = 0; pad < 256; pad++)
                for (int bad = 0; bad < 2; bad++) {
                    const size_t len = sizeof rec - 16 * (pad % 3);
                    for (size_t i = 0; i < len; i++)
                        rec[i] = (uint8_t)(i * 13 + 1);
                    memset(rec + len - pad - 1, (int)pad, pad + 1);
                    rec[len - 1 - pad / 2] ^= (uint8_t)bad;
                    VALGRIND_MAKE_MEM_UNDEFINED(rec, len);
                    size_t n = len;
                    if (!agp_tls_unpad(NULL, versions[v], rec, &n, macs[m], mac)) {
                        fprintf(stderr, "ct_tls: a record of %zu bytes refused\n", len);
                        return 2;
                    }
                    if (control && n == 7) /* a branch on the secret length */
                        puts("");
                    VALGRIND_MAKE_MEM_DEFINED(rec, len);
                    runs++;
                }
    printf("ct_tls: %d records unpadded\n", runs);
    return 0;
}
