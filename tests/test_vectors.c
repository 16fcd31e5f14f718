/* SPDX-License-Identifier: Apache-2.0 */
/* Known answers through the API, for every backend usable here: FIPS-197
 * appendix C and SP 800-38A appendix F (F.1-F.5), all key sizes, both ways. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

static const char *const sp_plain =
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
static const char *const sp_keys[3] = {
    "2b7e151628aed2a6abf7158809cf4f3c",
    "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
    "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
};

/* SP 800-38A F.1 (ECB), F.2 (CBC), F.3.13-F.3.18 (CFB128), F.4 (OFB), F.5 (CTR). */
static const struct {
    const char *mode;
    int key; /* index in sp_keys */
    const char *iv;
    const char *cipher;
} sp_vectors[] = {
    {"ecb", 0, NULL, "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
                     "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4"},
    {"ecb", 1, NULL, "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eef"
                     "ef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e"},
    {"ecb", 2, NULL, "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870"
                     "b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7"},
    {"cbc", 0, "000102030405060708090a0b0c0d0e0f",
     "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
     "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"},
    {"cbc", 1, "000102030405060708090a0b0c0d0e0f",
     "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a"
     "571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd"},
    {"cbc", 2, "000102030405060708090a0b0c0d0e0f",
     "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
     "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b"},
    {"cfb", 0, "000102030405060708090a0b0c0d0e0f",
     "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
     "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6"},
    {"cfb", 1, "000102030405060708090a0b0c0d0e0f",
     "cdc80d6fddf18cab34c25909c99a417467ce7f7f81173621961a2b70171d3d7a"
     "2e1e8a1dd59b88b1c8e60fed1efac4c9c05f9f9ca9834fa042ae8fba584b09ff"},
    {"cfb", 2, "000102030405060708090a0b0c0d0e0f",
     "dc7e84bfda79164b7ecd8486985d386039ffed143b28b1c832113c6331e5407b"
     "df10132415e54b92a13ed0a8267ae2f975a385741ab9cef82031623d55b1e471"},
    {"ofb", 0, "000102030405060708090a0b0c0d0e0f",
     "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed825"
     "9740051e9c5fecf64344f7a82260edcc304c6528f659c77866a510d9c1d6ae5e"},
    {"ofb", 1, "000102030405060708090a0b0c0d0e0f",
     "cdc80d6fddf18cab34c25909c99a4174fcc28b8d4c63837c09e81700c1100401"
     "8d9a9aeac0f6596f559c6d4daf59a5f26d9f200857ca6c3e9cac524bd9acc92a"},
    {"ofb", 2, "000102030405060708090a0b0c0d0e0f",
     "dc7e84bfda79164b7ecd8486985d38604febdc6740d20b3ac88f6ad82a4fb08d"
     "71ab47a086e86eedf39d1c5bba97c4080126141d67f37be8538f5a8be740e484"},
    {"ctr", 0, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
     "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"},
    {"ctr", 1, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"
     "1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050"},
    {"ctr", 2, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
     "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"},
};
#define SP_COUNT (sizeof sp_vectors / sizeof sp_vectors[0])

/* FIPS-197 appendix C: key 000102..., plaintext 00112233... */
static const char *const fips_cipher[3] = {
    "69c4e0d86a7b0430d8cdb78070b4c55a",
    "dda97ca4864cdfe06eaf70a0ec0d7191",
    "8ea2b7ca516745bfeafc49904b496089",
};

static size_t backends[AES_GEN_BACKEND_COUNT], nbackends;

/* Set key k for backend b, or return 0 (with a printed reason) if it lacks the size. */
static int setkey_or_skip(aes_gen_key *k, size_t b, const uint8_t *key, size_t len)
{
    const char *name = aes_gen_backend_table[b].name;
    if (!aes_gen_backend_usable(b, (unsigned)len * 8)) {
        printf("SKIP %s AES-%zu: not built for this key size\n", name, len * 8);
        return 0;
    }
    ck_assert_int_eq(aes_gen_setkey_backend(k, key, len, name), AES_GEN_OK);
    ck_assert_str_eq(aes_gen_key_backend(k), name);
    return 1;
}

START_TEST(fips197_appendix_c)
{
    const size_t b = backends[_i / 3];
    const size_t key_len = 16 + 8 * (size_t)(_i % 3);
    uint8_t key[32], plain[16], want[16], got[16];
    aes_gen_key k;

    for (size_t i = 0; i < key_len; i++)
        key[i] = (uint8_t)i;
    hex_to_bytes("00112233445566778899aabbccddeeff", plain, 16);
    hex_to_bytes(fips_cipher[_i % 3], want, 16);
    if (!setkey_or_skip(&k, b, key, key_len))
        return;
    ck_assert_int_eq(aes_gen_ecb_encrypt(&k, got, plain, 16), AES_GEN_OK);
    ck_assert_mem_eq(got, want, 16);
    ck_assert_int_eq(aes_gen_ecb_decrypt(&k, got, want, 16), AES_GEN_OK);
    ck_assert_mem_eq(got, plain, 16);
}
END_TEST

/* The first mode of the vector's SP 800-38A family in that direction (OFB and
 * CTR are one mode for both). */
static const struct mode_case *mode_for(const char *mode, int decrypt)
{
    for (int i = 0; i < AES_GEN_MODE_COUNT; i++)
        if (strncmp(mode_cases[i].name, mode, 3) == 0 &&
            (mode_cases[i].decrypt == decrypt || mode_cases[i].ref == REF_OFB ||
             mode_cases[i].ref == REF_CTR))
            return &mode_cases[i];
    return NULL;
}

START_TEST(sp800_38a)
{
    const size_t b = backends[_i / SP_COUNT];
    const size_t v = (size_t)_i % SP_COUNT;
    uint8_t key[32], iv0[16] = {0}, iv[16], plain[64], cipher[64], got[64];
    const size_t key_len = hex_to_bytes(sp_keys[sp_vectors[v].key], key, 32);
    aes_gen_key k;

    hex_to_bytes(sp_plain, plain, 64);
    hex_to_bytes(sp_vectors[v].cipher, cipher, 64);
    if (sp_vectors[v].iv)
        hex_to_bytes(sp_vectors[v].iv, iv0, 16);
    if (!setkey_or_skip(&k, b, key, key_len))
        return;
    for (int decrypt = 0; decrypt < 2; decrypt++) {
        const struct mode_case *mc = mode_for(sp_vectors[v].mode, decrypt);
        ck_assert_msg(mc != NULL, "no generated mode for SP 800-38A %s", sp_vectors[v].mode);
        memcpy(iv, iv0, 16);
        ck_assert_int_eq(mode_call(mc, &k, iv, got, decrypt ? cipher : plain, 64), AES_GEN_OK);
        ck_assert_msg(memcmp(got, decrypt ? plain : cipher, 64) == 0, "%s %s AES-%zu %s",
                      aes_gen_backend_table[b].name, sp_vectors[v].mode, key_len * 8,
                      decrypt ? "decrypt" : "encrypt");
    }
}
END_TEST

int main(void)
{
    nbackends = usable_backends(backends, AES_GEN_BACKEND_COUNT, 0);
    for (size_t i = 0; i < AES_GEN_BACKEND_COUNT; i++)
        if (!aes_gen_backend_usable(i, 0))
            printf("SKIP backend %s: not built or this CPU lacks its features\n",
                   aes_gen_backend_table[i].name);
    Suite *s = suite_create("vectors");
    TCase *tc = tcase_create("known answers");
    tcase_add_loop_test(tc, fips197_appendix_c, 0, (int)(3 * nbackends));
    tcase_add_loop_test(tc, sp800_38a, 0, (int)(SP_COUNT * nbackends));
    suite_add_tcase(s, tc);
    return run_suite(s);
}
