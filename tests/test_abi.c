/* SPDX-License-Identifier: Apache-2.0 */
/* SysV ABI and hygiene check of every registered kernel and every API call
 * (BoringSSL's idea, extended).  Call it with random values in the
 * callee-saved registers, the upper halves of the vector registers clean or
 * dirty (all ones), then verify that the callee-saved registers and the
 * stack pointer survive; that the upper halves are clean after a clean call
 * and XINUSE agrees (XGETBV with ECX=1, bits 2 YMM and 6 ZMM_Hi256 clear: a
 * kernel that wrote ymm or zmm ended in vzeroupper), and cleared or the
 * caller's own after a dirty one; that XINUSE bits 5 opmask and 7 Hi16_ZMM
 * are set only if they were before or the kernel used them; that no vector
 * register (zmm0-31) or opmask holds a round key, the whitened last key
 * rkN ^ rk0, or a block of the plaintext, the output or the keystream
 * (their XOR), and no caller-saved general-purpose register a 32-bit word of
 * any of them (GCM: nor a hash-key power or the running hash); and that the
 * output equals a plain call's. */
#include <check.h>
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct abi_call {
    void (*fn)(void);
    uint64_t args[6];
    uint64_t in[6], out[6];
    int64_t rsp_delta;
    uint64_t flags, xinuse, xinuse_before;
    uint64_t scratch[9]; /* rax rcx rdx rsi rdi r8 r9 r10 r11 after the call */
    uint64_t kregs[8];
    _Alignas(64) uint8_t vregs[32][64];
};
_Static_assert(offsetof(struct abi_call, flags) == 160 && offsetof(struct abi_call, xinuse) == 168 &&
               offsetof(struct abi_call, scratch) == 184 && offsetof(struct abi_call, kregs) == 256 &&
               offsetof(struct abi_call, vregs) == 320, "layout of tests/abi_x86_64.S");
void aes_gen_abi_call(struct abi_call *c);
aes_gen_kernel_fn aes_gen_abi_leaky_gp, aes_gen_abi_leaky_xmm, aes_gen_abi_leaky_plain,
    aes_gen_abi_leaky_kreg, aes_gen_abi_no_vzeroupper;

enum { HAVE_AVX = 1, HAVE_AVX512 = 2, HAVE_XINUSE = 4, DIRTY_UPPER = 8, HAVE_AVX512BW = 16 };
enum { XINUSE_YMM = 1u << 2, XINUSE_OPMASK = 1u << 5, XINUSE_ZMM_HI256 = 1u << 6,
       XINUSE_HI16_ZMM = 1u << 7 };

static const char *const saved_names[6] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};
static const char *const scratch_names[9] = {"rax", "rcx", "rdx", "rsi", "rdi",
                                             "r8", "r9", "r10", "r11"};

static uint64_t cpu_flags(void)
{
    const uint32_t f = aes_gen_cpu_features();
    uint64_t flags = 0;
    unsigned a, b, c, d;
    if (f & AES_GEN_CPU_AVX)
        flags |= HAVE_AVX;
    if (f & AES_GEN_CPU_AVX512F)
        flags |= HAVE_AVX512;
    if (f & AES_GEN_CPU_AVX512BW)
        flags |= HAVE_AVX512BW;
    /* CPUID.(EAX=0DH, ECX=1):EAX[2]: XGETBV with ECX=1 reports XINUSE. */
    if ((f & AES_GEN_CPU_AVX) && __get_cpuid_max(0, NULL) >= 0xd) {
        __cpuid_count(0xd, 1, a, b, c, d);
        if (a & 4)
            flags |= HAVE_XINUSE;
    }
    return flags;
}

/* What must not outlive a call: 16-byte blocks to look for in vector lanes
 * (and their 8-byte halves in opmasks, 4-byte words in GP registers). */
struct secrets {
    const uint8_t *block[4096];
    const char *what[4096];
    size_t n;
    uint8_t storage[2048][16];
    size_t stored;
};

static void add(struct secrets *s, const uint8_t *block, const char *what)
{
    static const uint8_t zero[16];
    if (memcmp(block, zero, 16) == 0 || s->n == sizeof s->block / sizeof s->block[0])
        return;
    s->block[s->n] = block, s->what[s->n++] = what;
}

/* The round keys (rk0..rkN and rkN ^ rk0) of a schedule. */
static void add_keys(struct secrets *s, const uint8_t *rk, int rounds)
{
    for (int r = 0; r <= rounds; r++)
        add(s, rk + 16 * r, "a round key");
    if (s->stored < sizeof s->storage / 16) {
        uint8_t *w = s->storage[s->stored++];
        for (int i = 0; i < 16; i++)
            w[i] = rk[i] ^ rk[16 * rounds + i];
        add(s, w, "rkN ^ rk0");
    }
}

/* The blocks of a message before (in) and after (out) a call, and their XOR. */
static void add_data(struct secrets *s, const uint8_t *in, const uint8_t *out, size_t len)
{
    for (size_t i = 0; i + 16 <= len; i += 16) {
        add(s, in + i, "an input block");
        add(s, out + i, "an output block");
        if (s->stored < sizeof s->storage / 16) {
            uint8_t *x = s->storage[s->stored++];
            for (int j = 0; j < 16; j++)
                x[j] = in[i + j] ^ out[i + j];
            add(s, x, "a keystream block");
        }
    }
}

/* The first register holding a secret, as text; NULL if none. */
static const char *leak(const struct abi_call *c, const struct secrets *s, char *where,
                        size_t size)
{
    const int regs = c->flags & HAVE_AVX512 ? 32 : 16;
    const int lanes = c->flags & HAVE_AVX512 ? 4 : c->flags & HAVE_AVX ? 2 : 1;
    const int kbytes = c->flags & HAVE_AVX512BW ? 8 : c->flags & HAVE_AVX512 ? 2 : 0;
    for (size_t i = 0; i < s->n; i++) {
        for (int r = 0; r < regs; r++)
            for (int lane = 0; lane < lanes; lane++)
                if (memcmp(c->vregs[r] + 16 * lane, s->block[i], 16) == 0) {
                    snprintf(where, size, "vector register %d lane %d holds %s", r, lane,
                             s->what[i]);
                    return where;
                }
        for (int k = 0; kbytes == 8 && k < 8; k++)
            for (int half = 0; half < 2; half++)
                if (c->kregs[k] && memcmp(&c->kregs[k], s->block[i] + 8 * half, 8) == 0) {
                    snprintf(where, size, "opmask k%d holds 8 bytes of %s", k, s->what[i]);
                    return where;
                }
        for (int r = 0; r < 9; r++)
            for (int half = 0; half < 2; half++)
                for (int w = 0; w < 4; w++) {
                    uint32_t v = (uint32_t)(c->scratch[r] >> (32 * half)), word;
                    memcpy(&word, s->block[i] + 4 * w, 4);
                    if (word && v == word) {
                        snprintf(where, size, "%s holds a word of %s", scratch_names[r],
                                 s->what[i]);
                        return where;
                    }
                }
    }
    return NULL;
}

/* The upper halves of vector registers 0-15 (what vzeroupper clears) a
 * callee leaves: called clean, clean, and XINUSE agrees; called dirty (all
 * ones), each one cleared or as the caller left it, so no value of the
 * callee's stays there.  A kernel that writes ymm or zmm registers 0-15 ends
 * in vzeroupper and cleans all of them; one on xmm alone (whose VEX and EVEX
 * writes zero the upper halves they reach) leaves the caller's own dirty
 * halves to the caller, as any function that never touches them does.  A
 * missing vzeroupper shows in XINUSE after a clean call (and statically, in
 * the generator's tests). */
static const char *upper_state(const struct abi_call *c, char *where, size_t size)
{
    static const uint8_t zero[48];
    uint8_t ones[48];
    const size_t n = c->flags & HAVE_AVX512 ? 48 : 16;
    memset(ones, 0xff, sizeof ones);
    if (c->flags & HAVE_AVX)
        for (int r = 0; r < 16; r++) {
            const uint8_t *upper = c->vregs[r] + 16;
            if (memcmp(upper, zero, n) && !((c->flags & DIRTY_UPPER) && !memcmp(upper, ones, n))) {
                snprintf(where, size, "the upper half of vector register %d is neither clean "
                         "nor the caller's", r);
                return where;
            }
        }
    if ((c->flags & HAVE_XINUSE) && !(c->flags & DIRTY_UPPER) &&
        (c->xinuse & (XINUSE_YMM | XINUSE_ZMM_HI256))) {
        snprintf(where, size, "XINUSE 0x%llx: upper state in use (no vzeroupper)",
                 (unsigned long long)c->xinuse);
        return where;
    }
    return NULL;
}

/* XINUSE bits 5 (opmasks) and 7 (zmm16-31) may come on only for a kernel
 * that uses those registers. */
static const char *xinuse_unexplained(const struct abi_call *c, int uses_k, int uses_hi16,
                                      char *where, size_t size)
{
    const uint64_t new_bits = c->xinuse & ~c->xinuse_before;
    if (!(c->flags & HAVE_XINUSE))
        return NULL;
    if (((new_bits & XINUSE_OPMASK) && !uses_k) || ((new_bits & XINUSE_HI16_ZMM) && !uses_hi16)) {
        snprintf(where, size, "XINUSE 0x%llx (0x%llx before): state the kernel has no use for",
                 (unsigned long long)c->xinuse, (unsigned long long)c->xinuse_before);
        return where;
    }
    return NULL;
}

/* A GCM key's hash-key table: every power in both of its forms. */
static void add_htable(struct secrets *s, const uint8_t *htable)
{
    for (int i = 0; i < 2 * AES_GEN_GCM_POWERS; i++)
        add(s, htable + 16 * i, "a hash-key power");
}

static const struct secrets *kernel_secrets(struct secrets *s, const uint8_t *rk, int rounds,
                                            const uint8_t *src, const uint8_t *dst, size_t len)
{
    s->n = s->stored = 0;
    add_keys(s, rk, rounds);
    add_data(s, src, dst, len);
    return s;
}

static void call_checked(struct abi_call *c, const char *who, const struct secrets *s,
                         int dirty, int avx, int uses_k, int uses_hi16, uint64_t *rng)
{
    char where[128];
    const char *bad;
    c->flags = cpu_flags();
    if (dirty && (c->flags & HAVE_AVX))
        c->flags |= DIRTY_UPPER;
    rng_fill(rng, c->in, sizeof c->in);
    aes_gen_abi_call(c);
    for (int r = 0; r < 6; r++)
        ck_assert_msg(c->out[r] == c->in[r], "%s clobbers %s", who, saved_names[r]);
    ck_assert_msg(c->rsp_delta == 0, "%s moves rsp by %lld", who, (long long)c->rsp_delta);
    if (avx && (bad = upper_state(c, where, sizeof where)))
        ck_abort_msg("%s: %s%s", who, bad, dirty ? ", called dirty" : "");
    if ((bad = xinuse_unexplained(c, uses_k, uses_hi16, where, sizeof where)))
        ck_abort_msg("%s: %s", who, bad);
    if (s && (bad = leak(c, s, where, sizeof where)))
        ck_abort_msg("%s returns with a secret: %s", who, bad);
}

START_TEST(kernel_preserves_abi_and_leaves_nothing)
{
    const struct aes_gen_kernel_info *ki = &aes_gen_registry[_i];
    uint64_t rng = test_seed() ^ (uint64_t)_i << 16;
    const int rounds = (int)aes_gen_rounds(ki->key_bits / 8);
    /* iv: the block shape's chaining value or counter; GCM's state (the
     * running hash, the counter, J0, the lengths block) and hash-key table. */
    uint8_t rk[15 * 16], iv_a[64], iv_b[64];
    static _Alignas(64) uint8_t htable[2 * AES_GEN_GCM_POWERS * 16 + 48]; /* and the padding */
    static struct secrets s;

    if (!kernel_runs_here(ki))
        return;
    const int gcm = ki->shape == AES_GEN_SHAPE_gcm;
    ck_assert_msg(gcm || ki->shape == AES_GEN_SHAPE_block, "%s: a kernel shape this test "
                  "does not know", ki->symbol);
    const size_t nblocks = 3 * ki->width, len = 16 * nblocks;
    uint8_t *src = malloc(len), *dst_a = malloc(len), *dst_b = malloc(len);
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    ck_assert(src && dst_a && dst_b && c);
    rng_fill(&rng, rk, sizeof rk);
    rng_fill(&rng, htable, sizeof htable);
    rng_fill(&rng, src, len);
    rng_fill(&rng, iv_a, sizeof iv_a);
    memcpy(iv_b, iv_a, sizeof iv_b);
    const int avx = (ki->cpu & (AES_GEN_CPU_AVX | AES_GEN_CPU_AVX2 | AES_GEN_CPU_AVX512F)) != 0;
    for (int round = 0; round < 4; round++) {
        uint8_t hash_before[16];
        memcpy(hash_before, iv_a, 16);
        memset(c, 0, sizeof *c);
        c->fn = gcm ? (void (*)(void))ki->fn.gcm : (void (*)(void))ki->fn.block;
        const uint64_t block_args[6] = {(uintptr_t)rk, (uintptr_t)iv_a, (uintptr_t)dst_a,
                                        (uintptr_t)src, nblocks, 0};
        /* GCM: the groups, then a partial last block and the lengths block. */
        const uint64_t gcm_len = round < 2 ? len : (len - 5) | (round == 3 ? AES_GEN_GCM_LAST : 0);
        const uint64_t gcm_args[6] = {(uintptr_t)rk, (uintptr_t)htable, (uintptr_t)iv_a,
                                      (uintptr_t)dst_a, (uintptr_t)src, gcm_len};
        memcpy(c->args, gcm ? gcm_args : block_args, sizeof c->args);
        /* Only the GCM kernels' AVX-512 tails use an opmask; only the AVX-512
         * kernels reach zmm16-31. */
        call_checked(c, ki->symbol, NULL, round >= 2, avx,
                     gcm && (ki->cpu & AES_GEN_CPU_AVX512BW) != 0,
                     (ki->cpu & AES_GEN_CPU_AVX512F) != 0, &rng);
        char where[128];
        kernel_secrets(&s, rk, rounds, src, dst_a, len);
        if (gcm) {
            add_htable(&s, htable);
            add(&s, hash_before, "the running hash");
            add(&s, iv_a, "the running hash");
        }
        const char *bad = leak(c, &s, where, sizeof where);
        ck_assert_msg(bad == NULL, "%s returns with a secret: %s", ki->symbol, bad);
        const struct aes_gen_kernel_args args = {.rk = rk, .iv = iv_b, .htable = htable,
                                                 .state = iv_b, .dst = dst_b, .src = src,
                                                 .nblocks = nblocks, .len = gcm_len};
        aes_gen_call_kernel(ki, &args);
        ck_assert_mem_eq(dst_a, dst_b, len);
        ck_assert_mem_eq(iv_a, iv_b, sizeof iv_a);
    }
    free(src), free(dst_a), free(dst_b), free(c);
}
END_TEST

/* The API: key setup and every mode leave no round key (in the key's format
 * or the FIPS-197 one) and no block of the message, its output or its
 * keystream in any register, for every backend. */
START_TEST(api_calls_leave_no_key_material)
{
    size_t ids[AES_GEN_BACKEND_COUNT], lens[3];
    const size_t nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, 0), nk = built_key_lens(lens);
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    static aes_gen_key k;
    static uint8_t buf[16 * 40 + 7], plain[sizeof buf], iv[16];
    static struct secrets s;
    uint8_t key[32];
    ck_assert_ptr_nonnull(c);
    uint64_t rng = test_seed();
    for (size_t b = 0; b < nb; b++)
        for (size_t ki = 0; ki < nk; ki++) {
            const char *name = aes_gen_backend_table[ids[b]].name;
            const int rounds = (int)aes_gen_rounds(lens[ki]);
            if (!aes_gen_backend_usable(ids[b], (unsigned)(8 * lens[ki])))
                continue;
            rng_fill(&rng, key, sizeof key);
            ref_key ref;
            ref_setkey(&ref, key, lens[ki]);
            for (int call = -1; call < AES_GEN_MODE_COUNT; call++) {
                char who[96];
                memset(c, 0, sizeof *c);
                size_t len = 0;
                if (call < 0) { /* aes_gen_setkey_backend(k, key, key_len, name) */
                    c->fn = (void (*)(void))aes_gen_setkey_backend;
                    c->args[0] = (uintptr_t)&k, c->args[1] = (uintptr_t)key;
                    c->args[2] = lens[ki], c->args[3] = (uintptr_t)name;
                    snprintf(who, sizeof who, "%s setkey AES-%zu", name, 8 * lens[ki]);
                } else { /* the mode's function(k, iv, dst, src, len) */
                    const struct mode_case *mc = &mode_cases[call];
                    if (!mode_api(mc))
                        continue;
                    len = mc->whole_blocks ? 16 * 40 : sizeof buf;
                    rng_fill(&rng, plain, sizeof plain);
                    memcpy(buf, plain, sizeof buf);
                    c->fn = (void (*)(void))mode_api(mc);
                    c->args[0] = (uintptr_t)&k, c->args[1] = (uintptr_t)iv;
                    c->args[2] = (uintptr_t)buf, c->args[3] = (uintptr_t)buf, c->args[4] = len;
                    snprintf(who, sizeof who, "%s %s AES-%zu", name, mc->name, 8 * lens[ki]);
                }
                /* Called clean, it must return clean (a call that runs SSE kernels
                 * only would keep a dirty caller's upper halves, as it should);
                 * the C library's memcpy and memset may use the opmasks and
                 * zmm16-31. */
                call_checked(c, who, NULL, 0, 1, 1, 1, &rng);
                s.n = s.stored = 0;
                for (int schedule = 0; schedule < 3; schedule++)
                    add_keys(&s, schedule == 2 ? &ref.rk[0][0] : aes_gen_round_keys(&k, schedule),
                             rounds);
                add_data(&s, plain, buf, len);
                char where[128];
                const char *bad = leak(c, &s, where, sizeof where);
                ck_assert_msg(bad == NULL, "%s returns with a secret: %s", who, bad);
            }
            aes_gen_wipe(&k);
        }
    free(c);
}
END_TEST

/* GCM's one-shot calls take 10 arguments: called through this, whose own
 * frame holds only the pointers it passes on. */
struct gcm_args {
    const aes_gen_gcm_key *gk;
    const uint8_t *iv;
    uint8_t *aad, *buf, *tag;
    size_t len;
};

static int gcm_encrypt_call(const struct gcm_args *a)
{
    return aes_gen_gcm_encrypt(a->gk, a->iv, 12, a->aad, 20, a->buf, a->buf, a->len, a->tag, 16);
}

static int gcm_decrypt_call(const struct gcm_args *a)
{
    return aes_gen_gcm_decrypt(a->gk, a->iv, 12, a->aad, 20, a->buf, a->buf, a->len, a->tag, 16);
}

/* GCM through the API: key setup, encryption and decryption (with a right
 * and a forged tag) leave no round key, hash-key power, or block of the
 * message, its output or its keystream. */
START_TEST(gcm_calls_leave_no_key_material)
{
    size_t ids[AES_GEN_BACKEND_COUNT], lens[3];
    const size_t nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, 0), nk = built_key_lens(lens);
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    static aes_gen_gcm_key gk;
    static uint8_t buf[16 * 40 + 7], plain[sizeof buf], cipher[sizeof buf], iv[12], aad[20],
        tag[16];
    static struct secrets s;
    uint8_t key[32];
    ck_assert_ptr_nonnull(c);
    uint64_t rng = test_seed();
    for (size_t b = 0; b < nb; b++)
        for (size_t ki = 0; ki < nk; ki++) {
            const char *name = aes_gen_backend_table[ids[b]].name;
            const int rounds = (int)aes_gen_rounds(lens[ki]);
            if (!aes_gen_backend_usable(ids[b], (unsigned)(8 * lens[ki])))
                continue;
            rng_fill(&rng, key, sizeof key);
            rng_fill(&rng, iv, sizeof iv);
            rng_fill(&rng, aad, sizeof aad);
            rng_fill(&rng, plain, sizeof plain);
            ref_key ref;
            ref_setkey(&ref, key, lens[ki]);
            const struct gcm_args a = {&gk, iv, aad, buf, tag, sizeof buf};
            static const char *const calls[4] = {"gcm setkey", "gcm encrypt", "gcm decrypt",
                                                 "gcm forged"};
            for (int call = 0; call < 4; call++) {
                char who[96];
                memset(c, 0, sizeof *c);
                if (call == 0) {
                    c->fn = (void (*)(void))aes_gen_gcm_setkey_backend;
                    c->args[0] = (uintptr_t)&gk, c->args[1] = (uintptr_t)key;
                    c->args[2] = lens[ki], c->args[3] = (uintptr_t)name;
                } else {
                    memcpy(buf, call == 1 ? plain : cipher, sizeof buf);
                    if (call == 3)
                        tag[rng_next(&rng) % 16] ^= 1;
                    c->fn = call == 1 ? (void (*)(void))gcm_encrypt_call
                                      : (void (*)(void))gcm_decrypt_call;
                    c->args[0] = (uintptr_t)&a;
                }
                snprintf(who, sizeof who, "%s %s AES-%zu", name, calls[call], 8 * lens[ki]);
                call_checked(c, who, NULL, 0, 1, 1, 1, &rng);
                const int want = call == 3 ? AES_GEN_EAUTH : AES_GEN_OK;
                ck_assert_msg((int)c->scratch[0] == want, "%s returns %d", who,
                              (int)c->scratch[0]);
                if (call % 2)
                    memcpy(cipher, buf, sizeof buf);
                s.n = s.stored = 0;
                for (int schedule = 0; schedule < 3; schedule++)
                    add_keys(&s, schedule == 2 ? &ref.rk[0][0]
                                               : aes_gen_round_keys(&gk.private_aes, schedule),
                             rounds);
                add_htable(&s, gk.private_htable[0][0]);
                if (call > 0)
                    add_data(&s, plain, cipher, sizeof buf);
                char where[128];
                const char *bad = leak(c, &s, where, sizeof where);
                ck_assert_msg(bad == NULL, "%s returns with a secret: %s", who, bad);
            }
            aes_gen_gcm_wipe(&gk);
        }
    free(c);
}
END_TEST

struct xts_args {
    const aes_gen_xts_key *xk;
    const uint8_t *tweak;
    uint8_t *buf;
    size_t len;
};

static int xts_encrypt_call(const struct xts_args *a)
{
    return aes_gen_xts_encrypt(a->xk, a->tweak, a->buf, a->buf, a->len);
}

static int xts_decrypt_call(const struct xts_args *a)
{
    return aes_gen_xts_decrypt(a->xk, a->tweak, a->buf, a->buf, a->len);
}

/* XTS through the API: key setup, encryption and decryption (with a partial
 * last block, and of whole blocks only, where no C code runs after the
 * kernels) leave no round key of either key, no tweak T_j, and no block of
 * the data unit or its output. */
START_TEST(xts_calls_leave_no_key_material)
{
    size_t ids[AES_GEN_BACKEND_COUNT], lens[3];
    const size_t nb = usable_backends(ids, AES_GEN_BACKEND_COUNT, 0), nk = built_key_lens(lens);
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    static aes_gen_xts_key xk;
    static uint8_t buf[16 * 40 + 7], plain[sizeof buf], cipher[sizeof buf], tweak[16],
        tweaks[sizeof buf + 16];
    static struct secrets s;
    uint8_t key[64];
    ck_assert_ptr_nonnull(c);
    uint64_t rng = test_seed() ^ 0x7575;
    for (size_t b = 0; b < nb; b++)
        for (size_t ki = 0; ki < nk; ki++) {
            const char *name = aes_gen_backend_table[ids[b]].name;
            const int rounds = (int)aes_gen_rounds(lens[ki]);
            if (!aes_gen_backend_usable(ids[b], (unsigned)(8 * lens[ki])))
                continue;
            rng_fill(&rng, key, sizeof key);
            rng_fill(&rng, tweak, sizeof tweak);
            rng_fill(&rng, plain, sizeof plain);
            ref_key k1, k2;
            ref_setkey(&k1, key, lens[ki]);
            ref_setkey(&k2, key + lens[ki], lens[ki]);
            /* The tweaks T_j: T_0 = E_K2(tweak), then times alpha (the
             * reference's block step advances t). */
            uint8_t t[16];
            ref_encrypt_block(&k2, tweak, t);
            for (size_t j = 0; j < sizeof tweaks / 16; j++) {
                uint8_t ignored[16], zero[16] = {0};
                memcpy(tweaks + 16 * j, t, 16);
                ref_xts_block(&k1, 0, t, zero, ignored);
            }
            const struct xts_args a[2] = {{&xk, tweak, buf, sizeof buf},
                                          {&xk, tweak, buf, sizeof buf / 16 * 16}};
            static const char *const calls[5] = {"xts setkey", "xts encrypt", "xts decrypt",
                                                 "xts encrypt (whole blocks)",
                                                 "xts decrypt (whole blocks)"};
            for (int call = 0; call < 5; call++) {
                char who[96];
                memset(c, 0, sizeof *c);
                if (call == 0) {
                    c->fn = (void (*)(void))aes_gen_xts_setkey_backend;
                    c->args[0] = (uintptr_t)&xk, c->args[1] = (uintptr_t)key;
                    c->args[2] = 2 * lens[ki], c->args[3] = (uintptr_t)name;
                } else {
                    memcpy(buf, call % 2 ? plain : cipher, sizeof buf);
                    c->fn = call % 2 ? (void (*)(void))xts_encrypt_call
                                     : (void (*)(void))xts_decrypt_call;
                    c->args[0] = (uintptr_t)&a[call > 2];
                }
                snprintf(who, sizeof who, "%s %s AES-%zu", name, calls[call], 8 * lens[ki]);
                call_checked(c, who, NULL, 0, 1, 1, 1, &rng);
                ck_assert_msg((int)c->scratch[0] == AES_GEN_OK, "%s returns %d", who,
                              (int)c->scratch[0]);
                if (call % 2)
                    memcpy(cipher, buf, sizeof buf);
                s.n = s.stored = 0;
                for (int schedule = 0; schedule < 2; schedule++) {
                    add_keys(&s, aes_gen_round_keys(&xk.private_data, schedule), rounds);
                    add_keys(&s, aes_gen_round_keys(&xk.private_tweak, schedule), rounds);
                }
                add_keys(&s, &k1.rk[0][0], rounds);
                add_keys(&s, &k2.rk[0][0], rounds);
                for (size_t j = 0; j < sizeof tweaks / 16; j++)
                    add(&s, tweaks + 16 * j, "a tweak");
                if (call > 0)
                    add_data(&s, plain, cipher, sizeof buf);
                char where[128];
                const char *bad = leak(c, &s, where, sizeof where);
                ck_assert_msg(bad == NULL, "%s returns with a secret: %s", who, bad);
            }
            aes_gen_xts_wipe(&xk);
        }
    free(c);
}
END_TEST

/* The checks themselves: kernels that leak on purpose are caught. */
START_TEST(leaks_are_caught)
{
    uint64_t rng = test_seed();
    uint8_t rk[15 * 16], buf[16], iv[16], src[16];
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    static struct secrets s;
    char where[128];
    ck_assert_ptr_nonnull(c);
    rng_fill(&rng, rk, sizeof rk);
    rng_fill(&rng, src, sizeof src);
    const uint64_t flags = cpu_flags();
    aes_gen_kernel_fn *leaky[] = {aes_gen_abi_leaky_gp, aes_gen_abi_leaky_xmm,
                                  aes_gen_abi_leaky_plain, aes_gen_abi_leaky_kreg};
    for (size_t i = 0; i < sizeof leaky / sizeof leaky[0]; i++) {
        if (leaky[i] == aes_gen_abi_leaky_kreg && !(flags & HAVE_AVX512BW))
            continue;
        memset(c, 0, sizeof *c);
        c->fn = (void (*)(void))leaky[i];
        c->args[0] = (uintptr_t)rk, c->args[1] = (uintptr_t)iv, c->args[2] = (uintptr_t)buf;
        c->args[3] = (uintptr_t)src;
        c->flags = flags;
        aes_gen_abi_call(c);
        memset(buf, 0, sizeof buf);
        ck_assert_msg(leak(c, kernel_secrets(&s, rk, 10, src, buf, 16), where, sizeof where),
                      "leaky kernel %zu is not noticed", i);
        printf("leaks_are_caught: %s\n", where);
    }
    if (flags & HAVE_AVX) {
        for (int dirty = 0; dirty < 2; dirty++) {
            memset(c, 0, sizeof *c);
            c->fn = (void (*)(void))aes_gen_abi_no_vzeroupper;
            c->args[3] = (uintptr_t)src;
            c->flags = flags | (dirty ? DIRTY_UPPER : 0);
            aes_gen_abi_call(c);
            const char *bad = upper_state(c, where, sizeof where);
            if (!dirty && (flags & HAVE_XINUSE))
                ck_assert_msg(bad != NULL, "a missing vzeroupper is not noticed");
            if (bad)
                printf("leaks_are_caught: %s%s\n", bad, dirty ? ", called dirty" : "");
        }
    }
    free(c);
}
END_TEST

/* The key setups beside the kernels (kernels.h: the generated AES-NI ones,
 * each flavor the CPU runs) called directly: the ABI kept and no key word
 * left in a register, whatever C code the API would run after it. */
START_TEST(key_setup_leaves_nothing)
{
#if defined(AES_GEN_HAVE_AESNI_KEY_SETUP_K128)
    static const struct {
        const char *name;
        uint32_t needs;
        void (*setup[3])(const uint8_t *, uint8_t *);
    } flavors[] = {
        {"aesni", AES_GEN_CPU_AESNI,
         {aes_gen_aesni_key_setup_k128, aes_gen_aesni_key_setup_k192,
          aes_gen_aesni_key_setup_k256}},
#if defined(AES_GEN_HAVE_AVX512_KEY_SETUP_K128)
        {"avx512", AES_GEN_CPU_AESNI | AES_GEN_CPU_AVX512F | AES_GEN_CPU_AVX512VL,
         {aes_gen_avx512_key_setup_k128, aes_gen_avx512_key_setup_k192,
          aes_gen_avx512_key_setup_k256}},
#endif
    };
    struct abi_call *c = aligned_alloc(64, sizeof *c);
    static _Alignas(16) uint8_t ks[512]; /* the setup writes 512 bytes (zeros past its keys) */
    static struct secrets s;
    uint8_t key[32];
    uint64_t rng = test_seed();
    ck_assert_ptr_nonnull(c);
    for (size_t f = 0; f < sizeof flavors / sizeof flavors[0]; f++) {
        if ((aes_gen_cpu_features() & flavors[f].needs) != flavors[f].needs)
            continue;
        for (int i = 0; i < 3; i++) {
            char who[64];
            const int rounds = 10 + 2 * i;
            rng_fill(&rng, key, sizeof key);
            memset(c, 0, sizeof *c);
            c->fn = (void (*)(void))flavors[f].setup[i];
            c->args[0] = (uintptr_t)key, c->args[1] = (uintptr_t)ks;
            snprintf(who, sizeof who, "aes_gen_%s_key_setup_k%d", flavors[f].name, 128 + 64 * i);
            call_checked(c, who, NULL, 0, 0, 0, 0, &rng);
            s.n = s.stored = 0;
            add_keys(&s, ks, rounds);
            add_keys(&s, ks + 256, rounds);
            add(&s, key, "the key's first 16 bytes");
            add(&s, key + 8 * i, "the key's last 16 bytes");
            char where[128];
            const char *bad = leak(c, &s, where, sizeof where);
            ck_assert_msg(bad == NULL, "%s returns with a secret: %s", who, bad);
        }
    }
    free(c);
#endif
}
END_TEST

int main(void)
{
    const uint64_t flags = cpu_flags();
    printf("abi: vector registers dumped as %s, opmasks %s; XINUSE %s\n",
           flags & HAVE_AVX512 ? "zmm0-31" : flags & HAVE_AVX ? "ymm0-15" : "xmm0-15",
           flags & HAVE_AVX512BW ? "k0-7 (64 bits)" : flags & HAVE_AVX512 ? "k0-7 (16 bits)"
                                                                         : "none",
           flags & HAVE_XINUSE ? "checked" : "not reported by this CPU (not checked)");
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("sysv");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, leaks_are_caught);
    tcase_add_test(tc, api_calls_leave_no_key_material);
    tcase_add_test(tc, gcm_calls_leave_no_key_material);
    tcase_add_test(tc, xts_calls_leave_no_key_material);
    tcase_add_test(tc, key_setup_leaves_nothing);
    tcase_add_loop_test(tc, kernel_preserves_abi_and_leaves_nothing, 0,
                        (int)aes_gen_registry_count);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
