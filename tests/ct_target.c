/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The constant-time check's target (the "ctgrind" technique): under valgrind
 * memcheck, the key and the data are marked undefined, so memcheck reports
 * every branch and every memory address that depends on them.  One backend
 * per run, named on the command line: its key setup (every key size) and
 * each mode it serves, whole groups and a partial tail, and CBC's PKCS#7
 * padding check.  tests/ct_check.sh
 * runs it for every backend and requires zero reports exactly for those the
 * backend table marks constant-time.
 *
 *   ct_target --list      usable backends, "name constant_time" per line
 *   ct_target NAME        exercise NAME (under valgrind)
 */
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "common.h"

static int list(void)
{
    size_t ids[64];
    const size_t n = usable_backends(ids, 64, 0);
    for (size_t i = 0; i < n; i++)
        printf("%s %d\n", aes_gen_backend_table[ids[i]].name,
               (int)aes_gen_backend_table[ids[i]].constant_time);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ct_target --list | BACKEND\n");
        return 2;
    }
    if (!strcmp(argv[1], "--list"))
        return list();
    static uint8_t key[32], data[16 * 67], out[sizeof data];
    uint8_t iv[16];
    size_t lens[3];
    const size_t nk = built_key_lens(lens);
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + 1);
    for (size_t ki = 0; ki < nk; ki++) {
        aes_gen_key k;
        memset(key, 0x5a, sizeof key);
        VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof key);
        if (aes_gen_setkey_backend(&k, key, lens[ki], argv[1]) != AES_GEN_OK) {
            fprintf(stderr, "ct_target: %s does not run here\n", argv[1]);
            return 2;
        }
        VALGRIND_MAKE_MEM_UNDEFINED(data, sizeof data);
        for (int m = 0; m < AES_GEN_MODE_COUNT; m++) {
            const size_t len = mode_cases[m].whole_blocks ? 16 * 64 : 16 * 64 + 7;
            if (!mode_cases[m].block)
                continue;
            memset(iv, 0, sizeof iv);
            if (mode_call(&mode_cases[m], &k, iv, out, data, len) != AES_GEN_OK) {
                fprintf(stderr, "ct_target: %s %s failed\n", argv[1], mode_cases[m].name);
                return 2;
            }
        }
        /* CBC with PKCS#7 padding: the check of a right and of a wrong
         * padding, the zeroing and the length without a secret branch.  The
         * result and the length are the caller's to look at. */
        static uint8_t padded[sizeof data + 16];
        for (int right = 0; right < 2; right++) {
            size_t n = 0;
            int rc = right ? aes_gen_cbc_encrypt_padded(&k, iv, padded, sizeof padded, &n, data,
                                                        16 * 64 + 5)
                           : aes_gen_cbc_encrypt(&k, iv, padded, data, 16 * 64);
            n = right ? n : 16 * 64;
            if (rc == AES_GEN_OK)
                rc = aes_gen_cbc_decrypt_padded(&k, iv, out, sizeof out, &n, padded, n);
            VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
            VALGRIND_MAKE_MEM_DEFINED(&n, sizeof n);
            if (right ? rc != AES_GEN_OK || n != 16 * 64 + 5 : rc != AES_GEN_EPADDING) {
                fprintf(stderr, "ct_target: %s padded CBC gave %d\n", argv[1], rc);
                return 2;
            }
        }
        aes_gen_wipe(&k);
    }
    /* The output depends on the secrets: looking at it is the caller's
     * business, so mark it defined before the process exits. */
    VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
    return 0;
}
