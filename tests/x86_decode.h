/* SPDX-License-Identifier: Apache-2.0 */
/* A decoder of x86-64 instructions for the constant-time trace
 * (tests/ct_trace.c): the length and the memory operand of one instruction,
 * legacy, VEX and EVEX encoded, as far as the address it touches goes.  Not
 * a disassembler: it finds which registers form the address, which is what
 * can make it depend on a secret. */
#ifndef AES_GEN_X86_DECODE_H
#define AES_GEN_X86_DECODE_H

#include <stdint.h>

struct x86_insn {
    int len;        /* bytes */
    int memory;     /* 1: reads or writes memory through a ModRM operand */
    int base;       /* GP register number 0-15, or -1 (none, or rip) */
    int index;      /* GP register number 0-15, or -1; -2: a vector index (VSIB) */
    int scale;      /* log2 */
    int addr32;     /* the 0x67 prefix: 32-bit address */
    int string_op;  /* movs, cmps, stos, lods, scas: rsi/rdi addresses */
    int xlat;       /* [rbx + al] */
    int branch;     /* may not fall through (jumps, calls, returns) */
};

/* Decodes the instruction at p (at most 15 bytes are read); returns its
 * length, or -1 for bytes it does not know. */
int x86_decode(const uint8_t *p, struct x86_insn *out);

#endif
