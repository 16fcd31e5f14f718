/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TILE-Gx intrinsics the generated TILE-Gx code uses, for an x86-64 (or
 * any other) host: force-include this header (`-include tilegx_emu.h`) and the
 * generated C builds and runs unchanged.  Each function is the formula of
 * ../shared/docs/tilegx-isa.md (GCC's TILE-Gx builtins, binutils, QEMU's and
 * Valgrind's models), little-endian TILE-Gx, values as uint64_t.
 *
 * Define AES_GEN_TILEGX_TRAP before including it to abort on a misaligned
 * ordinary load or store, as TILE-Gx traps (GCC's STRICT_ALIGNMENT): ld4u and
 * st4 need 4-byte alignment, ld and st 8-byte; ldna never traps.
 *
 * __insn_st_add(p, v, n): the instruction stores v at p and adds n to p, but
 * GCC declares no such builtin; the TILE-Gx article's code calls it as if it
 * advanced p, so it is a macro with that effect here (p must be an lvalue).
 */
#ifndef AES_GEN_TILEGX_EMU_H
#define AES_GEN_TILEGX_EMU_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef AES_GEN_TILEGX_TRAP
#define AES_GEN_TILEGX_CHECK(p, align) \
    do { \
        if ((uintptr_t)(p) & ((align) - 1)) \
            abort(); /* TILE-Gx: unaligned access trap */ \
    } while (0)
#else
#define AES_GEN_TILEGX_CHECK(p, align) ((void)(p))
#endif

/* d with bits 2..9 replaced by byte K of s: a table address from a state byte. */
static inline uint64_t aes_gen_tilegx_tblidx(uint64_t d, uint64_t s, int k)
{
    return (d & ~0x3FCull) | (((s >> (8 * k)) & 0xFF) << 2);
}
static inline uint64_t __insn_tblidxb0(uint64_t d, uint64_t s) { return aes_gen_tilegx_tblidx(d, s, 0); }
static inline uint64_t __insn_tblidxb1(uint64_t d, uint64_t s) { return aes_gen_tilegx_tblidx(d, s, 1); }
static inline uint64_t __insn_tblidxb2(uint64_t d, uint64_t s) { return aes_gen_tilegx_tblidx(d, s, 2); }
static inline uint64_t __insn_tblidxb3(uint64_t d, uint64_t s) { return aes_gen_tilegx_tblidx(d, s, 3); }

static inline uint64_t aes_gen_tilegx_load(const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i); /* little-endian */
    return v;
}

static inline void aes_gen_tilegx_store(void *p, uint64_t v, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* Zero-extended 32-bit load. */
static inline uint64_t __insn_ld4u(const void *p)
{
    AES_GEN_TILEGX_CHECK(p, 4);
    return aes_gen_tilegx_load(p, 4);
}

static inline uint64_t __insn_ld(const void *p)
{
    AES_GEN_TILEGX_CHECK(p, 8);
    return aes_gen_tilegx_load(p, 8);
}

/* The aligned doubleword containing p: never traps. */
static inline uint64_t __insn_ldna(const void *p)
{
    return aes_gen_tilegx_load((const void *)((uintptr_t)p & ~(uintptr_t)7), 8);
}

/* The 8 bytes at p out of the aligned doublewords lo (at p & ~7) and hi. */
static inline uint64_t __insn_dblalign(uint64_t lo, uint64_t hi, const void *p)
{
    const unsigned k = (unsigned)((uintptr_t)p & 7);
    return k ? (lo >> (8 * k)) | (hi << (64 - 8 * k)) : lo;
}

static inline uint64_t __insn_revbytes(uint64_t x)
{
    uint64_t r = 0;
    for (int i = 0; i < 8; i++)
        r |= ((x >> (8 * i)) & 0xFF) << (8 * (7 - i));
    return r;
}

/* Interleave the low bytes, halfwords, words: a in the odd places, b in the even. */
static inline uint64_t __insn_v1int_l(uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    for (int i = 0; i < 4; i++)
        r |= ((b >> (8 * i)) & 0xFF) << (16 * i) | ((a >> (8 * i)) & 0xFF) << (16 * i + 8);
    return r;
}

static inline uint64_t __insn_v2int_l(uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    for (int i = 0; i < 2; i++)
        r |= ((b >> (16 * i)) & 0xFFFF) << (32 * i) | ((a >> (16 * i)) & 0xFFFF) << (32 * i + 16);
    return r;
}

static inline uint64_t __insn_v4int_l(uint64_t a, uint64_t b)
{
    return a << 32 | (uint32_t)b;
}

/* The low (packl) or high (packh) byte of each halfword: b's in bytes 0-3, a's in 4-7. */
static inline uint64_t aes_gen_tilegx_pack(uint64_t a, uint64_t b, int high)
{
    uint64_t r = 0;
    for (int i = 0; i < 4; i++) {
        r |= ((b >> (16 * i + 8 * high)) & 0xFF) << (8 * i);
        r |= ((a >> (16 * i + 8 * high)) & 0xFF) << (8 * (4 + i));
    }
    return r;
}
static inline uint64_t __insn_v2packl(uint64_t a, uint64_t b) { return aes_gen_tilegx_pack(a, b, 0); }
static inline uint64_t __insn_v2packh(uint64_t a, uint64_t b) { return aes_gen_tilegx_pack(a, b, 1); }

/* Bits start..end (wrapping past 63) of d, the others of a. */
static inline uint64_t __insn_mm(uint64_t d, uint64_t a, unsigned start, unsigned end)
{
    uint64_t m = 0;
    for (unsigned i = start;; i = (i + 1) & 63) {
        m |= 1ull << i;
        if (i == end)
            break;
    }
    return (d & m) | (a & ~m);
}

/* ((end - start) mod 64) + 1 bits of a from bit start, wrapping. */
static inline uint64_t __insn_bfextu(uint64_t a, unsigned start, unsigned end)
{
    const unsigned len = ((end - start) & 63) + 1;
    const uint64_t rot = start ? (a >> start) | (a << (64 - start)) : a;
    return len == 64 ? rot : rot & ((1ull << len) - 1);
}

static inline void __insn_st(void *p, uint64_t v)
{
    AES_GEN_TILEGX_CHECK(p, 8);
    aes_gen_tilegx_store(p, v, 8);
}

static inline void __insn_st4(void *p, uint64_t v)
{
    AES_GEN_TILEGX_CHECK(p, 4);
    aes_gen_tilegx_store(p, v, 4);
}

/* Byte i of the result: byte (b.byte[i] & 15) of the 16 bytes d (0-7), a (8-15). */
static inline uint64_t __insn_shufflebytes(uint64_t d, uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    for (int i = 0; i < 8; i++) {
        const unsigned s = (unsigned)(b >> (8 * i)) & 15;
        const uint64_t byte = s < 8 ? (d >> (8 * s)) & 0xFF : (a >> (8 * (s - 8))) & 0xFF;
        r |= byte << (8 * i);
    }
    return r;
}

/* Each byte (halfword) shifted right by n mod 8 (16). */
static inline uint64_t __insn_v1shrui(uint64_t a, unsigned n)
{
    uint64_t r = 0;
    for (int i = 0; i < 8; i++)
        r |= (((a >> (8 * i)) & 0xFF) >> (n & 7)) << (8 * i);
    return r;
}

static inline uint64_t __insn_v2shrui(uint64_t a, unsigned n)
{
    uint64_t r = 0;
    for (int i = 0; i < 4; i++)
        r |= (((a >> (16 * i)) & 0xFFFF) >> (n & 15)) << (16 * i);
    return r;
}

/* The article's st_add: store v at p, then p += n (p an lvalue of pointer type). */
#define __insn_st_add(p, v, n) \
    do { \
        __insn_st((p), (v)); \
        (p) = (void *)((uint8_t *)(p) + (n)); \
    } while (0)

#endif
