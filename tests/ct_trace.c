/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Native constant-time evidence, for every backend this CPU runs (VAES and
 * AVX-512 included, which valgrind cannot execute): a child process makes
 * each call several times with different secrets (key, data, iv; CTR's
 * counter is public and stays) at the same addresses; the parent
 * single-steps it under ptrace and records every instruction address and
 * every memory operand's address (the registers that form it, decoded by
 * tests/x86_decode.c).  A constant-time call gives the same trace for every
 * secret; a table lookup gives another address for another secret.
 *
 *   ct_trace [--part I/N] [BACKEND...]   (default: every backend that runs here)
 *
 * --part I/N takes every Nth kernel and API backend from the Ith, so that N
 * processes share the work; each runs on one core, tracer and child
 * together (a step then costs no wakeup of another core).
 *
 * Checked: every registered kernel (two groups of its width; GCM's with a
 * secret hash key and running hash), and through the API key setup and every
 * mode of every backend, every key size, and GCM: encryption, decryption, and
 * decryption of a forged tag (its failure must not depend on where the tag
 * differs).  --gcm traces only the GCM calls (with AES_GEN_CPU_MASK, the
 * GHASH without a carry-less multiplier).  A
 * backend marked constant-time must give identical traces throughout; one
 * that is not must give different ones for every kernel and mode call (or
 * the check is blind), except GCM calls it takes from a constant-time
 * backend's kernels (identical, as those are); key setup, constant-time for every key format, must
 * be identical everywhere.  The first of each call's runs fills caches and
 * lazy bindings and is not compared.  Exit status 77 (skip) where ptrace is
 * not allowed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "x86_decode.h"

enum { RUNS = 4, MAX_STEPS = 1 << 22, BLIND_STEPS = 2048 };

/* The traced region runs from the int3 in ct_begin to ct_end's first instruction. */
__attribute__((noinline, noclone)) void ct_begin(void)
{
    __asm__ __volatile__("int3");
}

__attribute__((noinline, noclone)) void ct_end(void)
{
    __asm__ __volatile__("nop");
}

/* What the child tells the parent before each traced call. */
struct header {
    int kind;            /* 0 a kernel, 1 key setup, 2 a mode call, 3 a GCM call */
    int backend;         /* the kernel's, or the key's */
    int index;           /* kernel registry index, or mode */
    int key_bits;
    int run;             /* 0 .. RUNS-1; run 0 is not compared */
};

/* --- the child: the calls ------------------------------------------------------ */

static int report_fd;

/* Run 0 fills caches and lazy bindings untraced; the others are traced. */
static void traced(const struct header *h, void (*call)(void *), void *arg)
{
    if (h->run == 0) {
        call(arg);
        return;
    }
    if (write(report_fd, h, sizeof *h) != (ssize_t)sizeof *h)
        _exit(3);
    ct_begin();
    call(arg);
    ct_end();
}

struct kernel_call {
    const struct aes_gen_kernel_info *ki;
    struct aes_gen_kernel_args args;
};

static void call_kernel(void *p)
{
    const struct kernel_call *c = p;
    aes_gen_call_kernel(c->ki, &c->args);
}

struct api_call {
    aes_gen_key *k;
    const uint8_t *key;
    size_t key_len;
    const char *backend;
    const struct mode_case *mc;
    uint8_t *iv, *buf;
    size_t len;
};

static void call_setkey(void *p)
{
    const struct api_call *c = p;
    if (aes_gen_setkey_backend(c->k, c->key, c->key_len, c->backend) != AES_GEN_OK)
        _exit(4);
}

static void call_mode(void *p)
{
    const struct api_call *c = p;
    if (mode_call(c->mc, c->k, c->iv, c->buf, c->buf, c->len) != AES_GEN_OK)
        _exit(5);
}

/* The GCM calls: 0 encrypt, 1 decrypt, 2 decrypt a forged tag. */
enum { GCM_CALLS = 3 };
static const char *gcm_call_names[GCM_CALLS] = {"gcm encrypt", "gcm decrypt", "gcm forged"};

struct gcm_call {
    aes_gen_gcm_key *gk;
    int which;
    uint8_t *iv, *aad, *buf, *tag;
    size_t len;
};

static void call_gcm(void *p)
{
    const struct gcm_call *c = p;
    const int want = c->which == 2 ? AES_GEN_EAUTH : AES_GEN_OK;
    const int r = c->which == 0
        ? aes_gen_gcm_encrypt(c->gk, c->iv, 12, c->aad, 20, c->buf, c->buf, c->len, c->tag, 16)
        : aes_gen_gcm_decrypt(c->gk, c->iv, 12, c->aad, 20, c->buf, c->buf, c->len, c->tag, 16);
    if (r != want)
        _exit(7);
}

/* The XTS calls: 0 encrypt, 1 decrypt (a partial last block: ciphertext stealing). */
enum { XTS_CALLS = 2 };
static const char *xts_call_names[XTS_CALLS] = {"xts encrypt", "xts decrypt"};

struct xts_call {
    aes_gen_xts_key *xk;
    int which;
    uint8_t *tweak, *buf;
    size_t len;
};

static void call_xts(void *p)
{
    const struct xts_call *c = p;
    if ((c->which ? aes_gen_xts_decrypt : aes_gen_xts_encrypt)(c->xk, c->tweak, c->buf, c->buf,
                                                               c->len) != AES_GEN_OK)
        _exit(8);
}

static int part, parts = 1, gcm_only;

static int wanted(const int *backends, int n, int b)
{
    for (int i = 0; i < n; i++)
        if (backends[i] == b)
            return 1;
    return 0;
}

static void child(const int *backends, int nb)
{
    static uint8_t key[32], iv[16], iv0[16], src[16 * 256], dst[16 * 256], buf[16 * 5 + 7];
    static uint8_t state[32], aad[20], tag[16];
    static aes_gen_key k;
    static aes_gen_gcm_key gk;
    uint64_t rng = test_seed();
    /* Kernels. */
    for (size_t i = 0; i < aes_gen_registry_count && !gcm_only; i++) {
        const struct aes_gen_kernel_info *ki = &aes_gen_registry[i];
        if ((int)(i % (size_t)parts) != part || !wanted(backends, nb, ki->backend) || !ki->built ||
            (ki->cpu & aes_gen_cpu_features()) != ki->cpu || ki->width > 256)
            continue;
        const struct mode_case *mc = &mode_cases[ki->mode_dir];
        const int gcm = ki->shape == AES_GEN_SHAPE_gcm;
        rng_fill(&rng, iv0, 16); /* the counter: public, the same for every run */
        for (int run = 0; run < RUNS; run++) {
            rng_fill(&rng, key, sizeof key);
            rng_fill(&rng, src, sizeof src);
            if (mc->ref == REF_CTR)
                memcpy(iv, iv0, 16);
            else
                rng_fill(&rng, iv, 16);
            const char *name = aes_gen_backend_table[ki->backend].name;
            if ((gcm ? aes_gen_gcm_setkey_backend(&gk, key, ki->key_bits / 8, name)
                     : aes_gen_setkey_backend(&k, key, ki->key_bits / 8, name)) != AES_GEN_OK)
                _exit(6);
            /* GCM's state: a secret running hash, then the counter. */
            rng_fill(&rng, state, 16);
            memcpy(state + 16, iv0, 16);
            /* One group, and the loop's way back with two for width 1. */
            struct kernel_call c = {
                ki, {.rk = aes_gen_schedule(gcm ? &gk.private_aes : &k, ki->mode_dir), .iv = iv,
                     .htable = gk.private_htable[0][0], .state = state, .dst = dst, .src = src,
                     .nblocks = ki->width == 1 ? 2 : ki->width}};
            const struct header h = {0, ki->backend, (int)i, (int)ki->key_bits, run};
            traced(&h, call_kernel, &c);
        }
    }
    /* The API: key setup for every key size, the modes (through the drivers
     * and the tail code; the kernels are above) for the largest. */
    size_t lens[3];
    const size_t nk = built_key_lens(lens);
    for (int bi = part; bi < nb; bi += parts)
        for (size_t kl = 0; kl < nk; kl++) {
            const int b = backends[bi];
            if (!aes_gen_backend_usable((enum aes_gen_backend_id)b, (unsigned)lens[kl] * 8))
                continue;
            const int modes = kl == nk - 1 && !gcm_only ? AES_GEN_MODE_COUNT : 0;
            struct api_call c = {&k, key, lens[kl], aes_gen_backend_table[b].name, NULL, iv,
                                 buf, 0};
            rng_fill(&rng, iv0, 16);
            for (int md = gcm_only ? 0 : -1; md < modes; md++) {
                if (md >= 0 && !mode_api(&mode_cases[md]))
                    continue;
                for (int run = 0; run < RUNS; run++) {
                    const struct header h = {md < 0 ? 1 : 2, b, md, (int)lens[kl] * 8, run};
                    rng_fill(&rng, key, sizeof key);
                    if (md < 0) {
                        traced(&h, call_setkey, &c);
                        continue;
                    }
                    call_setkey(&c);
                    c.mc = &mode_cases[md];
                    c.len = c.mc->whole_blocks ? sizeof buf - 7 : sizeof buf;
                    rng_fill(&rng, buf, sizeof buf);
                    if (c.mc->ref == REF_CTR)
                        memcpy(iv, iv0, 16);
                    else
                        rng_fill(&rng, iv, 16);
                    traced(&h, call_mode, &c);
                }
            }
            aes_gen_wipe(&k);
            /* GCM: 5 blocks and a partial one (the kernels, the tail, the
             * hash of AAD and lengths), a secret key, data, AAD and tag. */
            for (int which = 0; which < (kl == nk - 1 ? GCM_CALLS : 0); which++)
                for (int run = 0; run < RUNS; run++) {
                    const struct header h = {3, b, which, (int)lens[kl] * 8, run};
                    struct gcm_call g = {&gk, which, iv, aad, buf, tag, sizeof buf};
                    rng_fill(&rng, key, sizeof key);
                    rng_fill(&rng, iv, 12);
                    rng_fill(&rng, aad, sizeof aad);
                    rng_fill(&rng, buf, sizeof buf);
                    if (aes_gen_gcm_setkey_backend(&gk, key, lens[kl], c.backend) != AES_GEN_OK)
                        _exit(6);
                    if (which > 0) { /* a ciphertext and its tag, then maybe one bit of it off */
                        g.which = 0;
                        call_gcm(&g);
                        g.which = which;
                        if (which == 2) {
                            const uint64_t r = rng_next(&rng);
                            tag[r % 16] ^= (uint8_t)(1u << (r / 16 % 8));
                        }
                    }
                    traced(&h, call_gcm, &g);
                }
            aes_gen_gcm_wipe(&gk);
            /* XTS: 5 blocks and a partial one, secret keys, tweak and data. */
            static aes_gen_xts_key xk;
            uint8_t xkey[64];
            for (int which = 0; which < (kl == nk - 1 && !gcm_only ? XTS_CALLS : 0); which++)
                for (int run = 0; run < RUNS; run++) {
                    const struct header h = {4, b, which, (int)lens[kl] * 8, run};
                    struct xts_call x = {&xk, which, iv, buf, sizeof buf};
                    rng_fill(&rng, xkey, sizeof xkey);
                    rng_fill(&rng, iv, 16);
                    rng_fill(&rng, buf, sizeof buf);
                    if (aes_gen_xts_setkey_backend(&xk, xkey, 2 * lens[kl], c.backend) !=
                        AES_GEN_OK)
                        _exit(6);
                    traced(&h, call_xts, &x);
                }
            aes_gen_xts_wipe(&xk);
        }
    _exit(0);
}

/* --- the parent: the tracer ---------------------------------------------------- */

/* Whether backend b's keys take md's kernels from a constant-time backend (a
 * table backend has no GCM kernels of its own and borrows those of its key
 * format): those calls' traces must then be identical like any constant-time
 * code. */
static int borrows_constant_time(int b, enum aes_gen_mode_dir md)
{
    static const uint8_t key[32] = {1};
    size_t lens[3];
    aes_gen_key k;
    if (!built_key_lens(lens) ||
        aes_gen_setkey_backend(&k, key, lens[0], aes_gen_backend_table[b].name))
        return 0;
    const uint16_t *use = k.private_kernels[md];
    const int ct = use[1] && aes_gen_backend_table[aes_gen_registry[use[0]].backend].constant_time;
    aes_gen_wipe(&k);
    return ct;
}

/* Whether a call of kind on backend b runs constant-time kernels only (an
 * XTS call encrypts its tweak with the backend's own ECB kernels). */
static int call_constant_time(int b, int kind)
{
    return aes_gen_backend_table[b].constant_time ||
           (kind == 3 && borrows_constant_time(b, AES_GEN_MD_gcm_enc));
}

struct step {
    uint64_t rip, addr;
};

static struct step *reference, *current;

/* What the instruction at regs->rip addresses, from the registers that form
 * the address (its displacement is the same at every run of that rip). */
static int address_of(const struct user_regs_struct *r, const struct x86_insn *in, uint64_t *addr)
{
    const uint64_t gp[16] = {r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
                             r->r8,  r->r9,  r->r10, r->r11, r->r12, r->r13, r->r14, r->r15};
    *addr = 0;
    if (in->string_op) {
        *addr = r->rsi * 31 + r->rdi * 7 + r->rcx;
        return 0;
    }
    if (in->xlat) {
        *addr = r->rbx + (r->rax & 0xff);
        return 0;
    }
    if (!in->memory)
        return 0;
    if (in->index == -2)
        return -1; /* a vector index: not traced (no code here gathers) */
    uint64_t a = in->base >= 0 ? gp[in->base] : 0;
    if (in->index >= 0)
        a += gp[in->index] << in->scale;
    *addr = (in->addr32 ? (uint32_t)a : a) | 1; /* 1: "an access", even at address 0 */
    return 0;
}

static const char *where(uint64_t rip, char *buf, size_t size)
{
    Dl_info info;
    if (dladdr((void *)(uintptr_t)rip, &info) && info.dli_sname)
        snprintf(buf, size, "%s+0x%lx", info.dli_sname, (unsigned long)(rip - (uint64_t)(uintptr_t)info.dli_saddr));
    else
        snprintf(buf, size, "0x%llx", (unsigned long long)rip);
    return buf;
}

/* Single-steps the child from the begin marker to ct_end and records the
 * steps in out.  With a reference (ref_len >= 0) only until the first step
 * that differs from it, whose index goes to *differs (-1 if none); with
 * cap > 0, at most cap steps (a capped reference is compared that far).
 * What is left of the call runs untraced to the next marker.  Returns the
 * steps, or -1 after printing why. */
static long trace(pid_t pid, struct step *out, long ref_len, long cap, long *differs)
{
    const uint64_t end = (uint64_t)(uintptr_t)ct_end;
    struct x86_insn prev = {0};
    uint64_t prev_rip = 0;
    long n = 0;
    *differs = -1;
    for (;; n++) {
        struct user_regs_struct r;
        if (ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0)
            return -1;
        /* The decoder's length against where execution went on: a table
         * error cannot pass unseen (a rep string op stays on its rip). */
        if (n && !prev.branch && r.rip != prev_rip + (uint64_t)prev.len &&
            !(prev.string_op && r.rip == prev_rip)) {
            char b[96];
            fprintf(stderr, "ct_trace: decoded %d bytes at %s, but the next instruction is at "
                    "%+lld\n", prev.len, where(prev_rip, b, sizeof b), (long long)(r.rip - prev_rip));
            return -1;
        }
        if (r.rip == end) {
            if (ref_len >= 0 && n != ref_len)
                *differs = n;
            return n;
        }
        if ((cap && n == cap) || (ref_len >= 0 && n == ref_len && cap))
            return n;
        struct x86_insn in;
        if (x86_decode((const uint8_t *)(uintptr_t)r.rip, &in) < 0) {
            char b[96];
            fprintf(stderr, "ct_trace: cannot decode the instruction at %s\n",
                    where(r.rip, b, sizeof b));
            return -1;
        }
        uint64_t addr;
        if (address_of(&r, &in, &addr) < 0) {
            char b[96];
            fprintf(stderr, "ct_trace: a vector-indexed address at %s\n", where(r.rip, b, sizeof b));
            return -1;
        }
        if (n == MAX_STEPS) {
            fprintf(stderr, "ct_trace: more than %d steps\n", MAX_STEPS);
            return -1;
        }
        out[n].rip = r.rip, out[n].addr = addr;
        if (ref_len >= 0 && (n >= ref_len || reference[n].rip != r.rip ||
                             reference[n].addr != addr)) {
            *differs = n;
            return n + 1;
        }
        int status;
        if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0 || waitpid(pid, &status, 0) < 0 ||
            !WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
            fprintf(stderr, "ct_trace: the child did not stop after a step\n");
            return -1;
        }
        prev = in, prev_rip = r.rip;
    }
}

struct tally {
    long same, differ, steps;
    char first[320]; /* the first difference, as text */
};

enum { KINDS = 5 };
static const char *kind_names[KINDS] = {"kernels", "key setup", "mode calls", "GCM calls",
                                        "XTS calls"};

int main(int argc, char **argv)
{
    int backends[AES_GEN_BACKEND_COUNT], nb = 0, first_arg = 1;
    if (argc > first_arg + 1 && strcmp(argv[first_arg], "--part") == 0) {
        if (sscanf(argv[first_arg + 1], "%d/%d", &part, &parts) != 2 || parts < 1 || part < 0 ||
            part >= parts) {
            fprintf(stderr, "ct_trace: --part I/N with 0 <= I < N\n");
            return 2;
        }
        first_arg += 2;
    }
    if (argc > first_arg && strcmp(argv[first_arg], "--gcm") == 0)
        gcm_only = 1, first_arg++;
    /* Tracer and child on one core: a step then wakes no other core. */
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
        int cpu = -1;
        for (int c = 0, seen = 0; c < CPU_SETSIZE && cpu < 0; c++)
            if (CPU_ISSET(c, &allowed) && seen++ == part % CPU_COUNT(&allowed))
                cpu = c;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
    }
    if (argc > first_arg) {
        for (int i = first_arg; i < argc; i++) {
            const int b = aes_gen_backend_index(argv[i]);
            if (b < 0) {
                fprintf(stderr, "ct_trace: unknown backend %s\n", argv[i]);
                return 2;
            }
            backends[nb++] = b;
        }
    } else {
        for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
            if (aes_gen_backend_usable((enum aes_gen_backend_id)b, 0))
                backends[nb++] = b;
    }
    reference = malloc(sizeof *reference * MAX_STEPS);
    current = malloc(sizeof *current * MAX_STEPS);
    int fds[2];
    if (!reference || !current || pipe(fds) < 0)
        return 2;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        report_fd = fds[1];
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
            _exit(77);
        raise(SIGSTOP);
        child(backends, nb);
    }
    close(fds[1]);
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status)) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
            printf("ct_trace: SKIP: ptrace is not allowed here (%s)\n", strerror(EPERM));
            return 77;
        }
        return 2;
    }
    static struct tally tally[AES_GEN_BACKEND_COUNT][KINDS];
    struct header h, ref_h = {-1, -1, -1, -1, -1};
    long total_steps = 0, reference_len = 0;
    int failed = 0, call_differs = 0;
    ptrace(PTRACE_SETOPTIONS, pid, NULL, PTRACE_O_EXITKILL);
    for (;;) {
        if (ptrace(PTRACE_CONT, pid, NULL, NULL) < 0 || waitpid(pid, &status, 0) < 0)
            return 2;
        if (WIFEXITED(status)) {
            if (WEXITSTATUS(status)) {
                fprintf(stderr, "ct_trace: the child failed (%d)\n", WEXITSTATUS(status));
                return 1;
            }
            break;
        }
        if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
            fprintf(stderr, "ct_trace: the child stopped with signal %d\n", WSTOPSIG(status));
            return 1;
        }
        if (read(fds[0], &h, sizeof h) != (ssize_t)sizeof h)
            return 2;
        /* A table backend's traces differ within the first round: its
         * reference is kept short (BLIND_STEPS), and compared that far. */
        const long cap = h.kind == 1 || call_constant_time(h.backend, h.kind) ? 0 : BLIND_STEPS;
        long differs;
        const long n = trace(pid, h.run == 1 ? reference : current, h.run >= 2 ? reference_len : -1,
                             cap, &differs);
        if (n < 0)
            return 1;
        total_steps += n;
        tally[h.backend][h.kind].steps += n;
        if (h.run < 2) {
            if (h.run == 1)
                reference_len = n, ref_h = h, call_differs = 0;
            continue;
        }
        if (ref_h.kind != h.kind || ref_h.index != h.index || ref_h.backend != h.backend ||
            ref_h.key_bits != h.key_bits)
            return 2;
        struct tally *t = &tally[h.backend][h.kind];
        if (differs >= 0 && !call_differs && !t->first[0]) {
            char b[96], what[64];
            const struct step *s = differs < n ? &current[differs] : &reference[differs];
            if (h.kind == 0)
                snprintf(what, sizeof what, "%s", aes_gen_registry[h.index].symbol);
            else
                snprintf(what, sizeof what, "AES-%d %s", h.key_bits,
                         h.kind == 1 ? "setkey" : h.kind == 3 ? gcm_call_names[h.index]
                         : h.kind == 4 ? xts_call_names[h.index]
                                                              : aes_gen_modes[h.index].name);
            snprintf(t->first, sizeof t->first, "%s: step %ld of %ld, at %s %s", what, differs,
                     reference_len, where(s->rip, b, sizeof b),
                     differs < n && differs < reference_len &&
                             current[differs].rip == reference[differs].rip
                         ? "(another address)" : "(another instruction)");
        }
        call_differs |= differs >= 0;
        if (h.run == RUNS - 1) /* one verdict per call */
            call_differs ? t->differ++ : t->same++;
    }
    printf("ct_trace: %ld steps single-stepped (runs 2-%d of each call against run 1)\n",
           total_steps, RUNS);
    printf("%-13s %-3s | %-20s | %-20s | %-20s | %-20s | %-20s | steps\n", "backend", "ct",
           "kernels same/differ", "setkey same/differ", "modes same/differ", "GCM same/differ",
           "XTS same/differ");
    for (int i = 0; i < nb; i++) {
        const int b = backends[i];
        const int ct = aes_gen_backend_table[b].constant_time;
        const struct tally *t = tally[b];
        printf("%-13s %-3s", aes_gen_backend_table[b].name, ct ? "yes" : "no");
        long steps = 0;
        for (int kind = 0; kind < KINDS; kind++) {
            printf(" | %9ld/%-10ld", t[kind].same, t[kind].differ);
            steps += t[kind].steps;
        }
        printf(" | %ld\n", steps);
        for (int kind = 0; kind < KINDS; kind++) {
            const int want_same = kind == 1 || (kind >= 3 ? call_constant_time(b, kind) : ct);
            const long bad = want_same ? t[kind].differ : t[kind].same;
            if (bad) {
                failed = 1;
                printf("  FAIL %s %s: %s\n", aes_gen_backend_table[b].name, kind_names[kind],
                       want_same ? t[kind].first : "identical traces: the check is blind here");
            } else if (!want_same && t[kind].differ) {
                printf("  %s: %s\n", kind_names[kind], t[kind].first);
            }
        }
    }
    for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
        if (aes_gen_backend_table[b].generated && aes_gen_backend_table[b].constant_time &&
            !wanted(backends, nb, b) && argc == first_arg) {
            char names[128];
            const uint32_t missing = aes_gen_backend_table[b].cpu & ~aes_gen_cpu_features();
            printf("not run: %s (this CPU lacks %s)\n", aes_gen_backend_table[b].name,
                   aes_gen_cpu_feature_names(missing, names, sizeof names));
        }
    return failed;
}
