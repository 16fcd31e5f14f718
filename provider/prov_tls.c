/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TLS's CBC records after decryption (SSL 3.0, TLS 1.0-1.2, DTLS): the
 * padding checked and removed and the MAC taken out, in constant time, with
 * the default provider's results.  The record's length is public; its
 * padding length, whether the padding is good, and so where the MAC sits,
 * are not: no branch or address below depends on them (but the result
 * without a MAC, under encrypt-then-MAC, where the MAC was checked first).  A bad padding
 * leaves the whole record as data and a random MAC, so that libssl's MAC
 * check fails the same way for either (the Lucky Thirteen and padding-oracle
 * lessons, RFC 5246 6.2.3.2).
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/prov_ssl.h>
#include <openssl/rand.h>

#include "prov.h"

#define W (sizeof(size_t) * 8)

/* x, opaque to the compiler: without it, gcc -O3 folds a mask's arithmetic
 * into the loops' addresses (rec + n - 1 - i as (rec + n - pad) + (pad - i),
 * mac + k through k + offset), which memcheck reports (tests/ct_tls.c). */
static size_t opaque(size_t x)
{
    __asm__("" : "+r"(x));
    return x;
}

/* All ones when a < b, else 0: the borrow out of a - b. */
static size_t ct_lt(size_t a, size_t b)
{
    a = opaque(a);
    return (size_t)0 - (((~a & b) | (~(a ^ b) & (a - b))) >> (W - 1));
}

static size_t ct_ge(size_t a, size_t b)
{
    return ~ct_lt(a, b);
}

static size_t ct_eq(size_t a, size_t b)
{
    const size_t z = opaque(a) ^ b;
    return (size_t)0 - ((~z & (z - 1)) >> (W - 1));
}

int agp_tls_version_known(unsigned int v)
{
    switch (v) {
    case SSL3_VERSION:
    case TLS1_VERSION:
    case TLS1_1_VERSION:
    case TLS1_2_VERSION:
    case DTLS1_VERSION:
    case DTLS1_2_VERSION:
    case DTLS1_BAD_VER:
        return 1;
    default:
        return 0;
    }
}

/* The MAC that ends at rec[end] (secret), of a record of len bytes, into mac:
 * every byte that can hold it is read.  Bytes are gathered into rot at a
 * public index that cycles modulo mac_size, the MAC's first one at a secret
 * offset, then rotated into place by reading every rot byte for each. */
static void copy_mac(const uint8_t *rec, size_t len, size_t end, size_t mac_size,
                     uint8_t mac[AGP_TLS_MAC_MAX])
{
    uint8_t rot[AGP_TLS_MAC_MAX] = {0};
    const size_t start = end - mac_size;
    /* the padding is at most 256 bytes: the MAC starts no earlier than this */
    const size_t scan = len > mac_size + 256 ? len - mac_size - 256 : 0;
    size_t in_mac = 0, offset = 0;

    for (size_t i = scan, j = 0; i < len; i++) {
        const size_t started = ct_eq(i, start);
        in_mac = (in_mac | started) & ct_lt(i, end);
        offset |= j & started;
        rot[j] |= rec[i] & (uint8_t)in_mac;
        j++;
        j &= ct_lt(j, mac_size);
    }
    for (size_t k = 0; k < mac_size; k++) {
        size_t at = opaque(k) + offset;
        at -= mac_size & ct_ge(at, mac_size);
        uint8_t b = 0;
        for (size_t t = 0; t < mac_size; t++)
            b |= rot[t] & (uint8_t)ct_eq(t, at);
        mac[k] = b;
    }
    OPENSSL_cleanse(rot, sizeof rot);
}

int agp_tls_unpad(OSSL_LIB_CTX *libctx, unsigned int version, uint8_t *rec, size_t *len,
                  size_t mac_size, uint8_t mac[AGP_TLS_MAC_MAX])
{
    const size_t bs = 16;
    size_t n = *len;

    if (version != SSL3_VERSION && version != TLS1_VERSION) { /* an explicit IV first */
        if (n < bs)
            return 0;
        rec += bs;
        n -= bs;
    }
    /* public: room for the padding's length byte and the MAC */
    if (n < 1 + mac_size || mac_size > AGP_TLS_MAC_MAX)
        return 0;

    const size_t pad = rec[n - 1];
    size_t good = ct_ge(n, 1 + mac_size + pad);
    if (version == SSL3_VERSION) {
        good &= ct_ge(bs, pad + 1); /* SSL 3.0: any bytes, at most a block */
    } else {
        /* every byte that could be padding is checked, the mask keeping
         * those that are */
        const size_t check = n < 256 ? n : 256;
        uint8_t bad = 0;
        for (size_t i = 0; i < check; i++)
            bad |= (uint8_t)ct_ge(pad, i) & (uint8_t)(pad ^ rec[n - 1 - i]);
        good &= ct_eq(bad, 0);
    }
    const size_t end = n - (good & (pad + 1));

    if (mac_size == 0) { /* encrypt-then-MAC: the MAC was checked before */
        *len = end;
        return good != 0;
    }
    uint8_t random[AGP_TLS_MAC_MAX];
    if (RAND_bytes_ex(libctx, random, mac_size, 0) <= 0)
        return 0;
    copy_mac(rec, n, end, mac_size, mac);
    for (size_t k = 0; k < mac_size; k++)
        mac[k] = (uint8_t)((mac[k] & (uint8_t)good) | (random[k] & (uint8_t)~good));
    OPENSSL_cleanse(random, sizeof random);
    *len = end - mac_size;
    return 1;
}
