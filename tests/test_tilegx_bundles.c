/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An interpreter for the generated TILE-Gx assembly (the .S files in generated/tilegx):
 * it runs each function bundle by bundle with the emulated instruction
 * semantics of runtime/tilegx/tilegx_emu.h (built in its trapping mode, so a
 * misaligned load or store aborts), on random keys and blocks, against the
 * reference AES.  It checks the schedule as well as the results:
 *   - every bundle fits X mode (X0, X1) or Y mode (Y0, Y1, Y2) by this file's
 *     own pipe table, written from the fact sheet, not from the generator's;
 *   - all reads of a bundle see the values from before it, and no register
 *     is written twice in one bundle;
 *   - no operation reads a register before its producer's latency has passed
 *     (load 2 cycles, others 1): the function runs in exactly as many cycles
 *     as it has bundles, the generator's estimate;
 *   - the callee-saved registers and sp come back intact, lr is the return;
 *   - no byte around the output changes.
 * The files are the arguments; every function the generator promises must be
 * there.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aes_tilegx_core.h"
#include "common.h"

enum { X0 = 1, X1 = 2, Y0 = 4, Y1 = 8, Y2 = 16, ALU = X0 | X1 | Y0 | Y1, LDST = X1 | Y2 };

static const struct opinfo {
    const char *name;
    unsigned pipes;
    int latency;
} opinfo[] = {
    {"tblidxb0", X0 | Y0, 1}, {"tblidxb1", X0 | Y0, 1}, {"tblidxb2", X0 | Y0, 1},
    {"tblidxb3", X0 | Y0, 1}, {"ld4u", LDST, 2}, {"ld", LDST, 2}, {"ld1u", LDST, 2},
    {"ldna", X1, 2}, {"ld_add", X1, 2}, {"ld4u_add", X1, 2}, {"ld1u_add", X1, 2},
    {"st", LDST, 1}, {"st1", LDST, 1}, {"st_add", X1, 1}, {"st1_add", X1, 1},
    {"v1int_l", X0 | X1, 1}, {"v2int_l", X0 | X1, 1}, {"v4int_l", X0 | X1, 1},
    {"v2packh", X0 | X1, 1}, {"dblalign", X0, 1}, {"mm", X0, 1}, {"bfextu", X0, 1},
    {"revbytes", X0 | Y0, 1}, {"xor", ALU, 1}, {"and", ALU, 1}, {"or", ALU, 1},
    {"addi", ALU, 1}, {"andi", ALU, 1}, {"shrui", ALU, 1}, {"shli", ALU, 1},
    {"rotli", ALU, 1}, {"shl2add", ALU, 1}, {"move", ALU, 1}, {"addli", X0 | X1, 1},
    {"moveli", X0 | X1, 1}, {"jrp", X1 | Y1, 1}, {"fnop", ALU, 1},
};
#define NOPS (sizeof opinfo / sizeof opinfo[0])

struct insn {
    int op, nreg, reg[3];
    long imm[2];
    int nimm;
};
struct bundle {
    struct insn ins[3];
    int n;
};
struct func {
    char name[64];
    struct bundle *b;
    int n;
};

static struct func funcs[64];
static int nfuncs;
static uint64_t rng;

/* A malformed file is an error before any test runs. */
static void require(int ok, const char *where, const char *what, const char *text)
{
    if (!ok) {
        fprintf(stderr, "%s: %s: %s\n", where, what, text);
        exit(1);
    }
}

/* Immediates in the ranges TILE-Gx encodes (imm8, imm16, shift counts, mm/bfextu bits). */
static int imm_ok(const char *op, int n, long v)
{
    if (!strcmp(op, "addli") || !strcmp(op, "moveli"))
        return v >= -32768 && v <= 32767;
    if (!strcmp(op, "shrui") || !strcmp(op, "shli") || !strcmp(op, "rotli") ||
        !strcmp(op, "mm") || !strcmp(op, "bfextu"))
        return v >= 0 && v <= 63;
    return n == 0 && v >= -128 && v <= 127; /* addi, andi, the _add steps */
}

static int parse_reg(const char *s)
{
    if (!strcmp(s, "sp"))
        return 54;
    if (!strcmp(s, "lr"))
        return 55;
    if (!strcmp(s, "zero"))
        return 63;
    char *end;
    if (s[0] != 'r')
        return -1;
    long r = strtol(s + 1, &end, 10);
    return *end || r < 0 || r > 63 ? -1 : (int)r;
}

static void parse_insn(const char *text, struct insn *in, const char *where)
{
    char buf[128], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    char *tok = strtok_r(buf, " \t,", &save);
    require(tok != NULL, where, "empty operation", text);
    in->op = -1;
    for (size_t i = 0; i < NOPS; i++)
        if (!strcmp(tok, opinfo[i].name))
            in->op = (int)i;
    require(in->op >= 0, where, "unknown mnemonic", tok);
    in->nreg = in->nimm = 0;
    while ((tok = strtok_r(NULL, " \t,", &save))) {
        int r = parse_reg(tok);
        if (r >= 0) {
            require(in->nreg < 3 && !in->nimm, where, "register operand", tok);
            in->reg[in->nreg++] = r;
        } else {
            char *end;
            long v = strtol(tok, &end, 0);
            require(!*end && in->nimm < 2 && imm_ok(opinfo[in->op].name, in->nimm, v), where,
                    "immediate", tok);
            in->imm[in->nimm++] = v;
        }
    }
}

static void load_file(const char *path)
{
    FILE *f = fopen(path, "r");
    require(f != NULL, path, "cannot open", "");
    char line[512];
    int lineno = 0;
    struct func *cur = NULL;
    int in_comment = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line + strspn(line, " \t");
        s[strcspn(s, "\n")] = 0;
        if (in_comment || !strncmp(s, "/*", 2)) { /* comments are whole lines here */
            in_comment = !strstr(s, "*/");
            continue;
        }
        if (!*s || *s == '.')
            continue;
        char where[600];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        size_t len = strlen(s);
        if (s[len - 1] == ':') {
            require(nfuncs < 64, where, "too many functions", s);
            cur = &funcs[nfuncs++];
            snprintf(cur->name, sizeof cur->name, "%.*s", (int)(len - 1), s);
            cur->b = NULL;
            cur->n = 0;
            continue;
        }
        require(cur && s[0] == '{' && s[len - 1] == '}', where, "not a bundle", s);
        s[len - 1] = 0;
        cur->b = realloc(cur->b, (size_t)(cur->n + 1) * sizeof *cur->b);
        struct bundle *b = &cur->b[cur->n++];
        b->n = 0;
        char *save = NULL;
        for (char *part = strtok_r(s + 1, ";", &save); part; part = strtok_r(NULL, ";", &save)) {
            require(b->n < 3, where, "more than three operations", part);
            parse_insn(part, &b->ins[b->n++], where);
        }
    }
    fclose(f);
}

/* X mode: at most two ops on X0, X1; Y mode: at most three on Y0, Y1, Y2. */
static int assign(const struct bundle *b, int i, unsigned freep)
{
    if (i >= b->n || i >= 3)
        return 1;
    unsigned p = opinfo[b->ins[i].op].pipes & freep;
    for (unsigned bit = 1; bit <= Y2; bit <<= 1)
        if ((p & bit) && assign(b, i + 1, freep & ~bit))
            return 1;
    return 0;
}

static int fits(const struct bundle *b)
{
    return (b->n <= 2 && assign(b, 0, X0 | X1)) || assign(b, 0, Y0 | Y1 | Y2);
}

#define MAGIC_LR 0x5eed0000c0de0000ull

struct machine {
    uint64_t r[64];
    long ready[64]; /* cycle at which the register's value may be read */
    long cycle, stalls;
};

static uint64_t rd(struct machine *m, int r, long *need)
{
    if (m->ready[r] > *need)
        *need = m->ready[r];
    return r == 63 ? 0 : m->r[r];
}

/* One bundle: every read, then every write.  Returns 1 on the return jump. */
static int step(struct machine *m, const struct bundle *b, const char *fname, int index)
{
    struct write {
        int reg, lat;
        uint64_t v;
    } w[6];
    int nw = 0, ret = 0;
    long need = m->cycle;
    struct {
        void *p;
        uint64_t v;
        int bytes;
    } st = {0};
    ck_assert_msg(fits(b), "%s bundle %d: does not fit X or Y mode", fname, index);
    for (int i = 0; i < b->n; i++) {
        const struct insn *in = &b->ins[i];
        const char *op = opinfo[in->op].name;
        const int lat = opinfo[in->op].latency;
        const int *R = in->reg;
        const long *I = in->imm;
        uint64_t a = in->nreg > 1 ? rd(m, R[1], &need) : 0, c = in->nreg > 2 ? rd(m, R[2], &need) : 0;
        uint64_t d = in->nreg > 0 ? rd(m, R[0], &need) : 0, v = 0;
        int dst = in->nreg ? R[0] : -1;
        if (!strncmp(op, "tblidxb", 7)) {
            const int k = op[7] - '0';
            v = k == 0 ? __insn_tblidxb0(d, a) : k == 1 ? __insn_tblidxb1(d, a)
                : k == 2 ? __insn_tblidxb2(d, a) : __insn_tblidxb3(d, a);
        } else if (!strcmp(op, "ld4u") || !strcmp(op, "ld4u_add"))
            v = __insn_ld4u((const void *)(uintptr_t)a);
        else if (!strcmp(op, "ld") || !strcmp(op, "ld_add"))
            v = __insn_ld((const void *)(uintptr_t)a);
        else if (!strcmp(op, "ld1u") || !strcmp(op, "ld1u_add"))
            v = aes_gen_tilegx_load((const void *)(uintptr_t)a, 1);
        else if (!strcmp(op, "ldna"))
            v = __insn_ldna((const void *)(uintptr_t)a);
        else if (!strncmp(op, "st", 2)) {
            st.p = (void *)(uintptr_t)d;
            st.v = a;
            st.bytes = op[2] == '1' ? 1 : 8;
            dst = -1;
            if (!strcmp(op, "st_add") || !strcmp(op, "st1_add")) {
                dst = R[0];
                v = d + (uint64_t)I[0];
            }
        } else if (!strcmp(op, "dblalign"))
            v = __insn_dblalign(d, a, (const void *)(uintptr_t)c);
        else if (!strcmp(op, "revbytes"))
            v = __insn_revbytes(a);
        else if (!strcmp(op, "v1int_l"))
            v = __insn_v1int_l(a, c);
        else if (!strcmp(op, "v2int_l"))
            v = __insn_v2int_l(a, c);
        else if (!strcmp(op, "v4int_l"))
            v = __insn_v4int_l(a, c);
        else if (!strcmp(op, "v2packh"))
            v = __insn_v2packh(a, c);
        else if (!strcmp(op, "mm"))
            v = __insn_mm(d, a, (unsigned)I[0], (unsigned)I[1]);
        else if (!strcmp(op, "bfextu"))
            v = __insn_bfextu(a, (unsigned)I[0], (unsigned)I[1]);
        else if (!strcmp(op, "xor"))
            v = a ^ c;
        else if (!strcmp(op, "and"))
            v = a & c;
        else if (!strcmp(op, "or"))
            v = a | c;
        else if (!strcmp(op, "addi") || !strcmp(op, "addli"))
            v = a + (uint64_t)I[0];
        else if (!strcmp(op, "andi"))
            v = a & (uint64_t)I[0];
        else if (!strcmp(op, "shrui"))
            v = a >> (I[0] & 63);
        else if (!strcmp(op, "shli"))
            v = a << (I[0] & 63);
        else if (!strcmp(op, "rotli"))
            v = (a << (I[0] & 63)) | (a >> ((64 - I[0]) & 63));
        else if (!strcmp(op, "shl2add"))
            v = (a << 2) + c;
        else if (!strcmp(op, "move"))
            v = a;
        else if (!strcmp(op, "moveli"))
            v = (uint64_t)(int64_t)(int16_t)I[0];
        else if (!strcmp(op, "jrp")) {
            ck_assert_msg(d == MAGIC_LR, "%s: jrp to %#llx", fname, (unsigned long long)d);
            ret = 1;
            dst = -1;
        } else if (!strcmp(op, "fnop"))
            dst = -1;
        else
            ck_abort_msg("%s: no semantics for %s", fname, op);
        if (dst >= 0)
            w[nw++] = (struct write){dst, lat, v};
        if (!strcmp(op, "ld_add") || !strcmp(op, "ld4u_add") || !strcmp(op, "ld1u_add"))
            w[nw++] = (struct write){R[1], 1, a + (uint64_t)I[0]};
    }
    for (int i = 0; i < nw; i++)
        for (int j = 0; j < i; j++)
            ck_assert_msg(w[i].reg != w[j].reg, "%s bundle %d: r%d written twice", fname, index,
                          w[i].reg);
    m->stalls += need - m->cycle;
    m->cycle = need;
    if (st.bytes == 8)
        __insn_st(st.p, st.v);
    else if (st.bytes == 1)
        aes_gen_tilegx_store(st.p, st.v, 1);
    for (int i = 0; i < nw; i++) {
        m->r[w[i].reg] = w[i].v;
        m->ready[w[i].reg] = m->cycle + w[i].lat;
    }
    m->cycle++;
    return ret;
}

static const struct func *find(const char *name)
{
    for (int i = 0; i < nfuncs; i++)
        if (!strcmp(funcs[i].name, name))
            return &funcs[i];
    return NULL;
}

/* Runs f on args r0..; returns the cycles it took. */
static long run(const struct func *f, const uint64_t *args, int nargs)
{
    static uint64_t stack[512];
    struct machine m = {.cycle = 0};
    for (int i = 0; i < 64; i++)
        m.r[i] = rng_next(&rng);
    for (int i = 0; i < 512; i++)
        stack[i] = 0x57ac57ac57ac0000ull + (uint64_t)i;
    for (int i = 0; i < nargs; i++)
        m.r[i] = args[i];
    m.r[54] = (uintptr_t)&stack[256];
    m.r[55] = MAGIC_LR;
    uint64_t saved[64];
    memcpy(saved, m.r, sizeof saved);
    int i = 0;
    while (!step(&m, &f->b[i], f->name, i)) {
        i++;
        ck_assert_msg(i < f->n, "%s: runs off its end", f->name);
    }
    ck_assert_msg(i == f->n - 1, "%s: returns before its last bundle", f->name);
    for (int r = 30; r <= 55; r++)
        ck_assert_msg(m.r[r] == saved[r] || r == 53, "%s: r%d not preserved", f->name, r);
    for (int s = 256; s < 512; s++)
        ck_assert_msg(stack[s] == 0x57ac57ac57ac0000ull + (uint64_t)s,
                      "%s: wrote the caller's stack", f->name);
    ck_assert_msg(m.stalls == 0, "%s: %ld stall cycles: a value read before its latency",
                  f->name, m.stalls);
    return m.cycle;
}

/* OpenSSL's AES_KEY words (big-endian columns) from the reference schedules. */
static void round_key_words(const ref_key *k, int decrypt, uint32_t *w)
{
    uint8_t inv[15 * 16];
    const uint8_t *src = &k->rk[0][0];
    if (decrypt) {
        ref_equivalent_inverse_keys(k, inv);
        src = inv;
    }
    for (int i = 0; i < 4 * (k->rounds + 1); i++)
        w[i] = (uint32_t)src[4 * i] << 24 | (uint32_t)src[4 * i + 1] << 16 |
               (uint32_t)src[4 * i + 2] << 8 | src[4 * i + 3];
}

static void check_function(const char *name, int bits, int decrypt, int width, int aligned)
{
    const struct func *f = find(name);
    ck_assert_msg(f, "%s: missing from the generated assembly", name);
    for (int trial = 0; trial < 24; trial++) {
        uint8_t key[32], buf[2][64], want[2][16];
        _Alignas(8) uint32_t rk[60];
        ref_key ref;
        rng_fill(&rng, key, sizeof key);
        ref_setkey(&ref, key, (size_t)bits / 8);
        round_key_words(&ref, decrypt, rk);
        const int in_place = trial % 3 == 0;
        uint64_t args[7] = {(uintptr_t)rk,
                            (uintptr_t)(decrypt ? aes_gen_tilegx_td[0] : aes_gen_tilegx_te[0]),
                            (uintptr_t)aes_gen_tilegx_td4};
        uint8_t *in[2], *out[2];
        _Alignas(8) uint8_t src[2][48];
        for (int i = 0; i < width; i++) {
            const int off = aligned ? 8 * (trial % 2) + 8 : 8 + trial % 16;
            rng_fill(&rng, buf[i], sizeof buf[i]);
            rng_fill(&rng, src[i], sizeof src[i]);
            out[i] = buf[i] + off;
            in[i] = in_place ? out[i] : src[i] + (trial * 7 + i) % 24;
            (decrypt ? ref_decrypt_block : ref_encrypt_block)(&ref, in[i], want[i]);
            args[3 + i] = (uintptr_t)in[i];
            args[3 + width + i] = (uintptr_t)out[i];
        }
        uint8_t before[2][64];
        memcpy(before, buf, sizeof buf);
        const long cycles = run(f, args, 3 + 2 * width);
        ck_assert_int_eq(cycles, f->n);
        for (int i = 0; i < width; i++) {
            ck_assert_msg(!memcmp(out[i], want[i], 16), "%s: block %d wrong (trial %d)", name, i,
                          trial);
            const size_t off = (size_t)(out[i] - buf[i]);
            ck_assert_msg(!memcmp(buf[i], before[i], off) &&
                              !memcmp(buf[i] + off + 16, before[i] + off + 16, 64 - off - 16),
                          "%s: wrote outside its output", name);
        }
    }
}

START_TEST(ours)
{
    static const struct {
        int width, aligned;
        const char *suffix;
    } shapes[] = {{1, 1, "_aligned"}, {1, 0, ""}, {2, 1, "_aligned"}, {1, 1, "_aligned_wordkeys"}};
    for (int bits = 128; bits <= 256; bits += 64)
        for (int decrypt = 0; decrypt < 2; decrypt++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                char name[64];
                snprintf(name, sizeof name, "aes_gen_tilegx_asm_%s%d_k%d%s",
                         decrypt ? "decrypt" : "encrypt", shapes[s].width, bits, shapes[s].suffix);
                check_function(name, bits, decrypt, shapes[s].width, shapes[s].aligned);
            }
}
END_TEST

START_TEST(baseline)
{
    for (int bits = 128; bits <= 256; bits += 64)
        for (int decrypt = 0; decrypt < 2; decrypt++) {
            char name[64];
            snprintf(name, sizeof name, "aes_core_c_%s_k%d", decrypt ? "decrypt" : "encrypt", bits);
            check_function(name, bits, decrypt, 1, 0);
        }
}
END_TEST

/* The interpreter's own checks fire: a bundle that reads a load's result one
 * cycle early stalls, one that overfills a mode is refused. */
START_TEST(interpreter_checks)
{
    static uint64_t word = 0x1122334455667788ull;
    struct bundle b[3] = {0};
    parse_insn("ld r5, r6", &b[0].ins[0], "test");
    parse_insn("xor r7, r5, r5", &b[1].ins[0], "test");
    parse_insn("jrp lr", &b[2].ins[0], "test");
    b[0].n = b[1].n = b[2].n = 1;
    struct machine m = {.cycle = 0};
    m.r[6] = (uintptr_t)&word;
    m.r[55] = MAGIC_LR;
    step(&m, &b[0], "test", 0);
    step(&m, &b[1], "test", 1);
    ck_assert_int_eq(m.stalls, 1);
    ck_assert(m.r[7] == 0);
    struct bundle y = {.n = 3};
    parse_insn("ld r1, r2", &y.ins[0], "test");
    parse_insn("st r3, r4", &y.ins[1], "test");
    parse_insn("xor r5, r6, r7", &y.ins[2], "test");
    ck_assert(!fits(&y)); /* two memory operations */
    parse_insn("tblidxb0 r3, r4", &y.ins[1], "test");
    ck_assert(fits(&y));
    parse_insn("mm r3, r4, 32, 63", &y.ins[1], "test");
    ck_assert(!fits(&y)); /* mm is X0 only, and X mode holds two */
}
END_TEST

int main(int argc, char **argv)
{
    rng = test_seed();
    for (int i = 1; i < argc; i++)
        load_file(argv[i]);
    Suite *s = suite_create("tilegx_bundles");
    TCase *tc = tcase_create("interpret");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, ours);
    tcase_add_test(tc, baseline);
    tcase_add_test(tc, interpreter_checks);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
