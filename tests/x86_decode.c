/* SPDX-License-Identifier: Apache-2.0 */
/* x86-64 instruction lengths and memory operands (Intel SDM volume 2,
 * chapter 2 and appendix A: prefixes, the one-, two- and three-byte opcode
 * maps, VEX and EVEX).  What matters for the trace is which registers form
 * an address; the tracer checks every decoded length against where the
 * next instruction starts, so a wrong table entry cannot go unnoticed. */
#include "x86_decode.h"

#include <string.h>

enum { NONE = 0, MODRM = 1, I8 = 2, I16 = 4, IZ = 8, I64 = 16, REL8 = 32, RELZ = 64,
       BRANCH = 128, BAD = 256, STRING = 512, MOFFS = 1024, NOMEM = 2048, XLAT = 4096,
       GRP3 = 8192, ENTER = 16384, VSIB = 32768 };

/* The one-byte map in 64-bit mode. */
static int one_byte(int op)
{
    if (op < 0x40) {
        const int low = op & 7;
        if (low < 4)
            return MODRM;
        if (low == 4)
            return I8;
        if (low == 5)
            return IZ;
        return BAD; /* 06, 07, 0e, 16, 17, 1e, 1f, 27, 2f, 37, 3f; prefixes elsewhere */
    }
    if (op >= 0x50 && op <= 0x5f)
        return NONE;
    if (op >= 0x70 && op <= 0x7f)
        return REL8 | BRANCH;
    if (op >= 0x80 && op <= 0x8f)
        return op == 0x82 ? BAD : op == 0x81 ? MODRM | IZ : op == 0x80 || op == 0x83
                                                                ? MODRM | I8
                                                                : op == 0x8d ? MODRM | NOMEM
                                                                             : MODRM;
    if (op >= 0x90 && op <= 0x9f)
        return op == 0x9a ? BAD : NONE;
    if (op >= 0xa0 && op <= 0xa3)
        return MOFFS;
    if ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf))
        return STRING;
    if (op >= 0xb0 && op <= 0xb7)
        return I8;
    if (op >= 0xb8 && op <= 0xbf)
        return I64; /* imm32, or imm64 with REX.W */
    if (op >= 0xd8 && op <= 0xdf)
        return MODRM;
    switch (op) {
    case 0x63: return MODRM;
    case 0x68: return IZ;
    case 0x69: return MODRM | IZ;
    case 0x6a: return I8;
    case 0x6b: return MODRM | I8;
    case 0x6c: case 0x6d: case 0x6e: case 0x6f: return NONE;
    case 0xa8: return I8;
    case 0xa9: return IZ;
    case 0xc0: case 0xc1: case 0xc6: return MODRM | I8;
    case 0xc7: return MODRM | IZ;
    case 0xc2: case 0xca: return I16 | BRANCH;
    case 0xc3: case 0xcb: case 0xcf: return BRANCH;
    case 0xc8: return ENTER;
    case 0xc9: case 0xcc: case 0xf1: case 0xf4: case 0xf5: return NONE;
    case 0xcd: return I8;
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: return MODRM;
    case 0xd7: return XLAT;
    case 0xe0: case 0xe1: case 0xe2: case 0xe3: return REL8 | BRANCH;
    case 0xe4: case 0xe5: case 0xe6: case 0xe7: return I8;
    case 0xe8: case 0xe9: return RELZ | BRANCH;
    case 0xeb: return REL8 | BRANCH;
    case 0xec: case 0xed: case 0xee: case 0xef: return NONE;
    case 0xf6: case 0xf7: return MODRM | GRP3;
    case 0xf8: case 0xf9: case 0xfa: case 0xfb: case 0xfc: case 0xfd: return NONE;
    case 0xfe: case 0xff: return MODRM;
    default: return BAD;
    }
}

/* The two-byte map (0F xx), for legacy encodings. */
static int two_byte(int op)
{
    if (op >= 0x80 && op <= 0x8f)
        return RELZ | BRANCH;
    if (op >= 0xc8 && op <= 0xcf)
        return NONE;
    switch (op) {
    case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0b: case 0x0e:
    case 0x30: case 0x31: case 0x32: case 0x33: case 0x34: case 0x35: case 0x37:
    case 0x77: case 0xa0: case 0xa1: case 0xa2: case 0xa8: case 0xa9: case 0xaa:
        return NONE;
    case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4: case 0xac: case 0xba:
    case 0xc2: case 0xc4: case 0xc5: case 0xc6:
        return MODRM | I8;
    case 0x19: case 0x1a: case 0x1b: case 0x1c: case 0x1d: case 0x1e: case 0x1f:
        return MODRM | NOMEM; /* hint nops, endbr64: no access */
    default:
        return MODRM;
    }
}

/* VEX and EVEX: every opcode has a ModRM byte but vzeroupper/vzeroall; map 3
 * and a few map-1 opcodes have an imm8. */
static int vex_map(int map, int op)
{
    if (map == 1 && op == 0x77)
        return NONE;
    if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || op == 0xc4 ||
                                  op == 0xc5 || op == 0xc6)))
        return MODRM | I8;
    if (map == 2 && ((op >= 0x90 && op <= 0x93) || (op >= 0xa0 && op <= 0xa3) || op == 0xc6 ||
                     op == 0xc7))
        return MODRM | VSIB; /* gathers, scatters: a vector index */
    return MODRM;
}

int x86_decode(const uint8_t *p, struct x86_insn *out)
{
    const uint8_t *start = p;
    int opsize16 = 0, addr32 = 0, rex = 0, rex_x = 0, rex_b = 0, rex_w = 0, map = 0, op, kind;
    memset(out, 0, sizeof *out);
    out->base = out->index = -1;
    for (;; p++) {
        const int b = *p;
        if (b == 0x66)
            opsize16 = 1;
        else if (b == 0x67)
            addr32 = 1;
        else if (b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 || b == 0x3e ||
                 b == 0x26 || b == 0x64 || b == 0x65)
            ;
        else
            break;
        if (p - start > 14)
            return -1;
    }
    if ((*p & 0xf0) == 0x40) {
        rex = *p++;
        rex_w = rex >> 3 & 1, rex_x = rex >> 1 & 1, rex_b = rex & 1;
    }
    if (*p == 0xc5) { /* VEX, two bytes: map 1 */
        map = 1;
        rex_x = 0, rex_b = 0;
        p += 2;
        op = *p++;
        kind = vex_map(map, op);
    } else if (*p == 0xc4) { /* VEX, three bytes */
        rex_x = !(p[1] >> 6 & 1), rex_b = !(p[1] >> 5 & 1), map = p[1] & 0x1f;
        rex_w = p[2] >> 7;
        p += 3;
        op = *p++;
        kind = vex_map(map, op);
    } else if (*p == 0x62) { /* EVEX */
        rex_x = !(p[1] >> 6 & 1), rex_b = !(p[1] >> 5 & 1), map = p[1] & 7;
        p += 4;
        op = *p++;
        kind = vex_map(map, op);
    } else if (*p == 0x0f) {
        if (p[1] == 0x38) {
            map = 2, op = p[2], p += 3, kind = MODRM;
        } else if (p[1] == 0x3a) {
            map = 3, op = p[2], p += 3, kind = MODRM | I8;
        } else {
            map = 1, op = p[1], p += 2, kind = two_byte(op);
        }
    } else {
        op = *p++;
        kind = one_byte(op);
    }
    if (kind & BAD)
        return -1;
    if (map == 1 && op == 0x0f)
        return -1; /* 3DNow! */
    out->branch = (kind & BRANCH) != 0;
    out->string_op = (kind & STRING) != 0;
    out->xlat = (kind & XLAT) != 0;
    out->addr32 = addr32;
    if (kind & MODRM) {
        const int modrm = *p++, mod = modrm >> 6, rm = modrm & 7, reg = modrm >> 3 & 7;
        if (map == 0 && op == 0xff && (reg >= 2 && reg <= 5))
            out->branch = 1; /* indirect call or jump */
        if ((kind & GRP3) && reg < 2)
            kind |= op == 0xf6 ? I8 : IZ; /* test r/m, imm */
        if (map == 0 && op == 0xc7 && modrm == 0xf8)
            out->branch = 1; /* xbegin */
        if (mod != 3) {
            out->memory = !(kind & NOMEM);
            if (rm == 4) {
                const int sib = *p++, index = (sib >> 3 & 7) | rex_x << 3, base = sib & 7;
                out->scale = sib >> 6;
                out->index = (kind & VSIB) ? -2 : index == 4 ? -1 : index;
                if (base == 5 && mod == 0)
                    p += 4;
                else
                    out->base = base | rex_b << 3;
            } else if (rm == 5 && mod == 0) {
                p += 4; /* rip-relative */
            } else {
                out->base = rm | rex_b << 3;
            }
            if (mod == 1)
                p += 1;
            else if (mod == 2)
                p += 4;
        }
    }
    if (kind & I8)
        p += 1;
    if (kind & I16)
        p += 2;
    if (kind & IZ)
        p += opsize16 ? 2 : 4;
    if (kind & I64)
        p += rex_w ? 8 : opsize16 ? 2 : 4;
    if (kind & REL8)
        p += 1;
    if (kind & RELZ)
        p += 4;
    if (kind & MOFFS) {
        p += addr32 ? 4 : 8;
        out->memory = 1;
    }
    if (kind & ENTER)
        p += 3;
    (void)rex;
    out->len = (int)(p - start);
    return out->len <= 15 ? out->len : -1;
}
