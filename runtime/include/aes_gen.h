/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aes-gen: generated, fully unrolled AES kernels behind one C API.
 *
 * Set a key with aes_gen_setkey (the fastest constant-time backend this CPU
 * runs) or aes_gen_setkey_backend (a named one), then call the mode functions.
 * Every function returns AES_GEN_OK or a negative AES_GEN_E* code and, on
 * error, writes nothing.  A key may be used from several threads at once; it is
 * only read after setkey.
 */
#ifndef AES_GEN_H
#define AES_GEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with hidden visibility; what this header declares is
 * its API, visible from libaes_gen.so and from any library that links
 * libaes_gen.a (internals stay local there too). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* This header is C99, C11 and C++11 clean; the alignment is only for speed. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define AES_GEN_ALIGN64 alignas(64)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define AES_GEN_ALIGN64 _Alignas(64)
#elif defined(__GNUC__)
#define AES_GEN_ALIGN64 __attribute__((aligned(64)))
#else
#define AES_GEN_ALIGN64
#endif

#define AES_GEN_VERSION_MAJOR 0
#define AES_GEN_VERSION_MINOR 2
#define AES_GEN_VERSION_PATCH 0
#define AES_GEN_VERSION "0.2.0"
/* The version of the library linked (AES_GEN_VERSION is the header's). */
const char *aes_gen_version(void);

enum {
    AES_GEN_OK = 0,
    AES_GEN_EKEYLEN = -1,  /* key length not 16, 24 or 32 bytes */
    AES_GEN_ELEN = -2,     /* ECB/CBC length not a multiple of 16 */
    AES_GEN_EBACKEND = -3, /* backend unknown, not built, or not runnable here */
    AES_GEN_EARG = -4,     /* NULL pointer, or a key that was never set or is wiped */
    AES_GEN_EKEYSIZE = -5, /* an AES key size this build has no kernels for (make gen KEYS=) */
    AES_GEN_ENOTCT = -6,   /* aes_gen_setkey: no constant-time backend runs here, and the
                              policy requires one (aes_gen_constant_time_required) */
    AES_GEN_EAUTH = -7,    /* GCM: the tag does not match; no plaintext is released */
    AES_GEN_ESTATE = -8,   /* a stream call out of order (GCM: AAD after data, or a stream
                              already finished) */
    AES_GEN_EKEYEQUAL = -9, /* XTS: the two key halves are equal (IEEE 1619 forbids it) */
    AES_GEN_EMODE = -10,    /* a mode or key-format name or constant this function does not take */
    AES_GEN_EPADDING = -11, /* CBC decryption: the PKCS#7 padding is wrong (one error for
                               every way it can be); the output is zeroed */
    AES_GEN_ESPACE = -12    /* dst_size is less than the output needs */
};

#define AES_GEN_BLOCK_SIZE 16

/* Complete so callers can put it on the stack; the fields are private.  The
 * sizes leave room for backends' own key formats and for modes to come. */
typedef struct aes_gen_key {
    AES_GEN_ALIGN64 uint8_t private_ks[1024]; /* expanded key, in the backend's format */
    uint16_t private_kernels[16][2];         /* per mode: registry index, count */
    uint16_t private_picks[16];              /* per mode: its short-message table */
    uint16_t private_rk_offset[2];           /* encryption, decryption round keys in ks */
    uint16_t private_backend;
    uint16_t private_rounds;
    uint32_t private_magic; /* nonzero while the key is set */
} aes_gen_key;

/* key_len 16, 24 or 32 bytes.  Picks the fastest constant-time backend; where
 * none runs, the fastest there is, unless the policy requires constant time
 * (then AES_GEN_ENOTCT).  A constant-time key runs every mode on
 * constant-time kernels. */
int aes_gen_setkey(aes_gen_key *k, const void *key, size_t key_len);
/* As aes_gen_setkey with a named backend: portable, aesni, aesni-avx, vaes256,
 * vaes512, ttable, vpaes, vpaes256, vpaes512, tilegx-emu. */
int aes_gen_setkey_backend(aes_gen_key *k, const void *key, size_t key_len,
                           const char *backend);
/* The backend a key uses; NULL for NULL or an unset key. */
const char *aes_gen_key_backend(const aes_gen_key *k);
/* 1 if every mode of the key runs on constant-time kernels, 0 if some mode
 * runs on a table backend (a key set up for one by name), -1 for an unset key. */
int aes_gen_key_constant_time(const aes_gen_key *k);
/* 1 if aes_gen_setkey picks constant-time backends only: the build's
 * AES_GEN_REQUIRE_CONSTANT_TIME (default on x86-64), or the environment
 * variable of that name set to 1 (which can only turn it on). */
int aes_gen_constant_time_required(void);
/* Usable backends, best first (the order aes_gen_setkey prefers).  Writes up to
 * cap names (names may be NULL when cap is 0) and returns how many there are. */
size_t aes_gen_backends(const char **names, size_t cap);
/* The round keys, (rounds + 1) x 16 bytes, for calling a kernel of
 * <aes_gen/kernels.h> directly, in the layout the key's backend takes (the
 * FIPS-197 bytes but for vpaes* and tilegx-emu): decrypt = 1 gives the
 * equivalent-inverse schedule that the ECB/CBC decryption kernels take.
 * NULL for an unset key. */
const uint8_t *aes_gen_round_keys(const aes_gen_key *k, int decrypt);
/* Introspection.  What a backend is, in preference order (index 0 is what
 * aes_gen_setkey tries first): every backend this version knows, built or not. */
typedef struct aes_gen_backend_desc {
    const char *name;
    int constant_time; /* 1: no secret-dependent addresses or branches in its kernels */
    int generated;     /* this build has its kernels (make gen BACKENDS=...) */
    int runs_here;     /* generated, and this CPU and OS have what it needs */
    const char *cpu_needs; /* CPU features its kernels need, "avx2 vaes"; "" for none */
} aes_gen_backend_desc;
/* Fills *out for backend `index`; AES_GEN_EARG past the last one or for NULL. */
int aes_gen_backend_describe(size_t index, aes_gen_backend_desc *out);

/* The modes by name, "ecb_enc" ... "ctr_enc" (index 0 up; NULL past the last). */
const char *aes_gen_mode_name(size_t index);
/* What a set key uses for one mode: the backend whose kernels run it (a
 * vector backend's key runs the serial modes on aesni) and the widths of
 * those kernels, widest first (a message goes through the widest that fits,
 * then narrower ones). */
typedef struct aes_gen_mode_use {
    const char *backend;
    int constant_time;  /* that backend's kernels are constant-time */
    size_t nwidths;
    unsigned widths[16];
} aes_gen_mode_use;
/* AES_GEN_EARG for NULL arguments or an unset key, AES_GEN_EMODE for an
 * unknown mode name. */
int aes_gen_key_mode_use(const aes_gen_key *k, const char *mode, aes_gen_mode_use *out);

/* Erase all key material; the key is unset afterwards.  NULL is ignored. */
void aes_gen_wipe(aes_gen_key *k);

/* The round keys a kernel of aes_gen/kernels.h takes, without a key (for
 * kernels called directly, or copied into another project): format "fips",
 * "openssl" or "vpaes" (kernels.h says which a backend takes), decrypt 0 for
 * the encryption schedule or 1 for the decryption one, 16 * (rounds + 1)
 * bytes into out.  Errors: AES_GEN_EKEYLEN, AES_GEN_ESPACE (out_size short),
 * AES_GEN_EMODE (an unknown format), AES_GEN_EBACKEND (vpaes on a CPU
 * without SSSE3), AES_GEN_EARG. */
int aes_gen_expand_key(const char *format, const void *key, size_t key_len, int decrypt,
                       uint8_t *out, size_t out_size);

/* sizeof of the public types, for callers that allocate them without this
 * header's layouts (FFI, other languages); allocate them 64-byte aligned, as
 * the types here are. */
size_t aes_gen_key_size(void);
size_t aes_gen_stream_size(void);
size_t aes_gen_gcm_key_size(void);
size_t aes_gen_gcm_stream_size(void);
size_t aes_gen_xts_key_size(void);
const char *aes_gen_strerror(int err);

/*
 * dst == src works; other overlaps are undefined; any alignment works.
 * ECB/CBC: len a multiple of 16.  CFB/OFB/CTR: any len; a final partial block
 * uses the first bytes of its keystream block, after which CTR and OFB stand at
 * the next whole block and CFB's stream is over.  iv/ctr are updated so that
 * calls whose lengths are multiples of 16 chain into one stream.  CTR is a
 * 128-bit big-endian counter that carries through all 16 bytes.
 */
int aes_gen_ecb_encrypt(const aes_gen_key *k, void *dst, const void *src, size_t len);
int aes_gen_ecb_decrypt(const aes_gen_key *k, void *dst, const void *src, size_t len);
int aes_gen_cbc_encrypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                        size_t len);
int aes_gen_cbc_decrypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                        size_t len);
int aes_gen_cfb_encrypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                        size_t len);
int aes_gen_cfb_decrypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                        size_t len);
int aes_gen_ofb_crypt(const aes_gen_key *k, uint8_t iv[16], void *dst, const void *src,
                      size_t len);
int aes_gen_ctr_crypt(const aes_gen_key *k, uint8_t ctr[16], void *dst, const void *src,
                      size_t len);

/*
 * CBC with PKCS#7 padding (OpenSSL EVP's default for CBC).  Encryption appends
 * n = 16 - len % 16 bytes of value n (1 to 16) and writes
 * AES_GEN_CBC_PADDED_LEN(len) bytes; decryption takes a positive multiple of
 * 16 bytes, needs dst_size >= len, checks the padding in constant time and
 * writes len - n bytes.  Any wrong padding is AES_GEN_EPADDING, with dst's len
 * bytes zeroed: one error and one timing, whatever is wrong.  *out_len gets
 * the bytes written (0 on an error); iv is read, not updated (a padded message
 * is complete); dst == src works.
 */
#define AES_GEN_CBC_PADDED_LEN(len) (((len) / 16 + 1) * 16)
int aes_gen_cbc_encrypt_padded(const aes_gen_key *k, const uint8_t iv[16], void *dst,
                               size_t dst_size, size_t *out_len, const void *src, size_t len);
int aes_gen_cbc_decrypt_padded(const aes_gen_key *k, const uint8_t iv[16], void *dst,
                               size_t dst_size, size_t *out_len, const void *src, size_t len);
/* The same in pieces of any size.  update writes the whole blocks the bytes so
 * far complete (decryption holds the last block back for final): at most
 * len + 15 bytes; final writes encryption's padded last block (16 bytes) or
 * decryption's last 0 to 15 bytes after the padding check, and erases the
 * stream.  dst and src must not overlap (in place: the one-shot functions). */
typedef struct aes_gen_cbc_stream {
    const aes_gen_key *private_key;
    uint8_t private_iv[16];  /* the chaining value */
    uint8_t private_buf[16]; /* bytes not yet processed */
    uint32_t private_num;    /* bytes in buf: 0..15 (encryption), 0..16 (decryption) */
    uint32_t private_decrypt;
    uint32_t private_magic;
} aes_gen_cbc_stream;
int aes_gen_cbc_stream_init(aes_gen_cbc_stream *s, const aes_gen_key *k, int decrypt,
                            const uint8_t iv[16]);
int aes_gen_cbc_stream_update(aes_gen_cbc_stream *s, void *dst, size_t dst_size,
                              size_t *out_len, const void *src, size_t len);
int aes_gen_cbc_stream_final(aes_gen_cbc_stream *s, void *dst, size_t dst_size,
                             size_t *out_len);

/*
 * Streaming: CTR, CFB-128 and OFB with any split of a message.  The one-shot
 * functions above end a stream at a partial block (CTR and OFB then stand at
 * the next whole block, CFB cannot go on); a stream instead keeps the
 * keystream block and how much of it is used (OpenSSL's `num`), so that
 * update(a) then update(b) gives the same bytes as update(a || b) for any
 * split, with the whole blocks still going through the widest kernels.  Use a
 * stream when a message arrives in pieces that are not multiples of 16.
 * The key must stay set while the stream is used; iv is copied.
 */
typedef struct aes_gen_stream {
    const aes_gen_key *private_key;
    uint8_t private_iv[16];  /* CTR: the next counter; CFB/OFB: the feedback block */
    uint8_t private_ks[16];  /* CTR: the keystream block in use */
    uint32_t private_mode;
    uint32_t private_num;    /* bytes of the current block used, 0..15 */
    uint32_t private_magic;
} aes_gen_stream;

/* The modes a stream runs.  CTR and OFB decrypt as they encrypt. */
typedef enum aes_gen_stream_mode {
    AES_GEN_STREAM_CTR = 1,         /* "ctr_enc" (or "ctr_dec") */
    AES_GEN_STREAM_CFB_ENCRYPT = 2, /* "cfb_enc" */
    AES_GEN_STREAM_CFB_DECRYPT = 3, /* "cfb_dec" */
    AES_GEN_STREAM_OFB = 4          /* "ofb_enc" (or "ofb_dec") */
} aes_gen_stream_mode;
/* An unset key or a NULL argument: AES_GEN_EARG; another mode: AES_GEN_EMODE. */
int aes_gen_stream_init_mode(aes_gen_stream *s, const aes_gen_key *k, aes_gen_stream_mode mode,
                             const uint8_t iv[16]);
/* The same by name: "ctr_enc", "cfb_enc", "cfb_dec" or "ofb_enc" (aes_gen_mode_name),
 * and "ctr_dec" and "ofb_dec" for the directions that are the same. */
int aes_gen_stream_init(aes_gen_stream *s, const aes_gen_key *k, const char *mode,
                        const uint8_t iv[16]);
/* The next len bytes; dst == src works. */
int aes_gen_stream_update(aes_gen_stream *s, void *dst, const void *src, size_t len);
/* A stream that goes on from a position (aes_gen_stream_position's, or
 * OpenSSL's EVP state): iv as for aes_gen_stream_init_mode (CTR: the counter
 * after the block in use), num (0..15) the bytes used of the block in use,
 * which for CFB and OFB is iv and for CTR is ks, the keystream block (ks may
 * be NULL when num is 0; other modes ignore it).  num above 15, or CTR with a
 * num but no ks: AES_GEN_EARG; otherwise as aes_gen_stream_init_mode. */
int aes_gen_stream_resume(aes_gen_stream *s, const aes_gen_key *k, aes_gen_stream_mode mode,
                          const uint8_t iv[16], const uint8_t ks[16], unsigned num);
/* Where a stream stands, as aes_gen_stream_resume takes it: iv, num and CTR's
 * keystream block in use (ks may be NULL).  The stream goes on unchanged. */
int aes_gen_stream_position(const aes_gen_stream *s, uint8_t iv[16], uint8_t ks[16],
                            unsigned *num);
/* The counter or feedback block a next stream would start from (the same as
 * the one-shot function's iv after the same bytes, when they end on a block
 * boundary); iv may be NULL.  Erases the stream. */
int aes_gen_stream_final(aes_gen_stream *s, uint8_t iv[16]);

/*
 * AES-GCM (NIST SP 800-38D): authenticated encryption.  A GCM key is an AES
 * key and its hash-key powers; setup and wiping as for aes_gen_key.  IVs
 * of any length from 1 byte (12 bytes is the fast, recommended one; never
 * reuse an IV under a key), AAD of any length, messages up to 2^36 - 32
 * bytes, tags of 4 to 16 bytes (16 unless a protocol says otherwise).
 * Decryption compares the tag in constant time and on a mismatch returns
 * AES_GEN_EAUTH with dst zeroed.  dst == src works; any alignment works.
 */
#define AES_GEN_GCM_POWERS 64 /* hash-key powers a key holds: the widest GCM kernel */
typedef struct aes_gen_gcm_key {
    aes_gen_key private_aes;
    AES_GEN_ALIGN64 uint8_t private_htable[2][AES_GEN_GCM_POWERS][16]; /* see kernels.h */
    uint8_t private_htable_pad[48]; /* read by a kernel's last vector, its products zero */
    uint16_t private_npowers;
    uint16_t private_ghash;   /* how the runtime multiplies: carry-less, or integer */
    uint16_t private_one_shot[2][2]; /* [decrypt][len > 16]: registry index + 1, 0 none */
    uint32_t private_magic;
} aes_gen_gcm_key;

int aes_gen_gcm_setkey(aes_gen_gcm_key *gk, const void *key, size_t key_len);
int aes_gen_gcm_setkey_backend(aes_gen_gcm_key *gk, const void *key, size_t key_len,
                               const char *backend);
int aes_gen_gcm_encrypt(const aes_gen_gcm_key *gk, const uint8_t *iv, size_t iv_len,
                        const void *aad, size_t aad_len, void *dst, const void *src, size_t len,
                        uint8_t *tag, size_t tag_len);
int aes_gen_gcm_decrypt(const aes_gen_gcm_key *gk, const uint8_t *iv, size_t iv_len,
                        const void *aad, size_t aad_len, void *dst, const void *src, size_t len,
                        const uint8_t *tag, size_t tag_len);
void aes_gen_gcm_wipe(aes_gen_gcm_key *gk);

/* GCM in pieces: init, any number of aad calls, any number of update calls
 * (any split, in place allowed), then final (encryption: writes the tag) or
 * verify (decryption: AES_GEN_EAUTH on a mismatch).  Decryption's update
 * releases plaintext before verify: use it only once verify succeeds.
 * final and verify erase the stream; the key must stay set meanwhile. */
enum { AES_GEN_GCM_ENCRYPT = 0, AES_GEN_GCM_DECRYPT = 1 };
typedef struct aes_gen_gcm_stream {
    const aes_gen_gcm_key *private_key;
    uint8_t private_state[32];  /* the running hash and the counter, as the kernels take them */
    uint8_t private_ek0[16];    /* E(J0), for the tag */
    uint8_t private_partial[16];/* a started block: its keystream, or the AAD's bytes */
    uint64_t private_aad_len, private_len;
    uint32_t private_num;       /* bytes of the started block */
    uint32_t private_phase;     /* 1 AAD, 2 data */
    uint32_t private_decrypt;
    uint32_t private_magic;
} aes_gen_gcm_stream;
int aes_gen_gcm_init(aes_gen_gcm_stream *s, const aes_gen_gcm_key *gk, int direction,
                     const uint8_t *iv, size_t iv_len);
int aes_gen_gcm_aad(aes_gen_gcm_stream *s, const void *aad, size_t aad_len);
int aes_gen_gcm_update(aes_gen_gcm_stream *s, void *dst, const void *src, size_t len);
int aes_gen_gcm_final(aes_gen_gcm_stream *s, uint8_t *tag, size_t tag_len);
int aes_gen_gcm_verify(aes_gen_gcm_stream *s, const uint8_t *tag, size_t tag_len);

/*
 * AES-XTS (IEEE 1619, NIST SP 800-38E) for storage: a key of 32, 48 or 64
 * bytes is a data key and a tweak key (its second half) of one AES size;
 * equal halves are refused (AES_GEN_EKEYEQUAL).  A data unit of len >= 16
 * bytes (shorter: AES_GEN_ELEN) under tweak, the 16-byte value the tweak key
 * encrypts (OpenSSL's XTS IV; for disks a little-endian sector number); a
 * partial last block by ciphertext stealing.  dst == src works; any
 * alignment works.  Constant-time where the key's backend is.
 */
typedef struct aes_gen_xts_key {
    aes_gen_key private_data;  /* K1: both schedules */
    aes_gen_key private_tweak; /* K2 */
    uint32_t private_magic;
} aes_gen_xts_key;

int aes_gen_xts_setkey(aes_gen_xts_key *xk, const void *key, size_t key_len);
int aes_gen_xts_setkey_backend(aes_gen_xts_key *xk, const void *key, size_t key_len,
                               const char *backend);
int aes_gen_xts_encrypt(const aes_gen_xts_key *xk, const uint8_t tweak[16], void *dst,
                        const void *src, size_t len);
int aes_gen_xts_decrypt(const aes_gen_xts_key *xk, const uint8_t tweak[16], void *dst,
                        const void *src, size_t len);
/* len / sector_size consecutive data units (len a multiple of sector_size >=
 * 16), the first under tweak first_sector as a 16-byte little-endian number. */
int aes_gen_xts_encrypt_sectors(const aes_gen_xts_key *xk, uint64_t first_sector,
                                size_t sector_size, void *dst, const void *src, size_t len);
int aes_gen_xts_decrypt_sectors(const aes_gen_xts_key *xk, uint64_t first_sector,
                                size_t sector_size, void *dst, const void *src, size_t len);
void aes_gen_xts_wipe(aes_gen_xts_key *xk);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
