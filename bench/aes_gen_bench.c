/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aes-gen-bench: throughput of every mode, in the style of libgcrypt's
 * bench-slope, with optional peers, hardware bounds and width sweeps.
 * Every figure is measured in this run; see `aes-gen-bench --help`.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const char *const usage_text =
    "usage: aes-gen-bench [options]\n"
    "  --backend NAME  backend to time (default: the one aes_gen_setkey picks;\n"
    "                  with --sweep, default: every usable backend)\n"
    "  --width W       force the width-W kernel (serial modes stay at width 1)\n"
    "  --keys LIST     key sizes, e.g. 128,256 (default: every size this build has;\n"
    "                  sizes not generated are skipped with a note)\n"
    "  --modes LIST    e.g. cbc_dec,ctr_enc (default all; the list follows)\n"
    "  --bytes N       buffer size, a multiple of 16 (default 8192)\n"
    "  --samples N     timings per figure, 1 to 64; the median is reported (default 15)\n"
    "  --compare       also time OpenSSL EVP, libgcrypt and nettle on the buffer\n"
    "  --peer-no-aesni libgcrypt without AES-NI/VAES: its SSSE3 vector-permutation\n"
    "                  code (OpenSSL and nettle: see the README)\n"
    "  --peer-no-hw    libgcrypt without AES-NI/VAES/SSSE3 (OpenSSL and nettle:\n"
    "                  see the README, they read environment variables)\n"
    "  --bound         measure AES instruction latency/throughput and print each\n"
    "                  row's hardware bound and our time as a multiple of it\n"
    "  --sweep         every registered width of each mode, as a table\n"
    "  --setkey        key setup (both schedules) per key size: aes_gen_setkey and\n"
    "                  every usable backend, beside OpenSSL, libgcrypt, nettle and\n"
    "                  Intel ipsec-mb\n"
    "  --gcm           AES-GCM per message size (--sizes), encryption and decryption,\n"
    "                  with --compare beside OpenSSL, libgcrypt, nettle and Intel\n"
    "                  ipsec-mb, with --bound beside the carry-less-multiply bound\n"
    "  --xts           AES-XTS per data-unit size (--sizes; default\n"
    "                  64,256,1024,8192,65536), encryption and decryption, with\n"
    "                  --compare beside OpenSSL, libgcrypt and nettle, with --bound\n"
    "                  beside the AES bound\n"
    "  --short         short messages: the table beside every peer at each of\n"
    "                  --sizes (default 16,32,48,64,128,256)\n"
    "  --buffers N     the mode table and --short: go round N message buffers\n"
    "                  (default 1: every call in place on the same buffer, waiting\n"
    "                  for the last one's output; 16: independent messages)\n"
    "  --misalign N    start the message buffers N bytes (0-63) past a 64-byte\n"
    "                  boundary (default 0: aligned)\n"
    "  --sizes LIST    --gcm, --xts and --short message sizes (--gcm's default\n"
    "                  16,64,256,1024,8192,65536)\n"
    "  --tune-out FILE with --sweep: write the fastest width per (backend, mode,\n"
    "                  direction, key size) for the next build (make tune)\n"
    "  --csv, --json   machine-readable output instead of the table (one of them)\n"
    "  --version       the library's version\n"
    "Options take their value as --opt VALUE or --opt=VALUE.\n";

struct options {
    const char *backend;
    unsigned width;
    unsigned keys[3];
    int nkeys;
    int modes[AES_GEN_MODE_COUNT];
    size_t bytes;
    int samples;
    int buffers; /* message buffers the calls go round (--buffers) */
    size_t misalign; /* the buffers' offset past a 64-byte boundary (--misalign) */
    int compare, peer_no_hw, peer_no_aesni, setkey, bound, sweep, csv, json, keys_given, gcm,
        xts, sizes_given, short_msgs;
    const char *tune_out;
    size_t sizes[16];
    int nsizes;
};

static __attribute__((noreturn)) void die(const char *msg, const char *arg)
{
    fprintf(stderr, "aes-gen-bench: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

/* A whole decimal (or 0x) number from min to max, or a clear error. */
static unsigned long number(const char *opt, const char *v, unsigned long min, unsigned long max)
{
    char *end;
    errno = 0;
    const unsigned long n = v[0] >= '0' && v[0] <= '9' ? strtoul(v, &end, 0) : 0;
    if (v[0] < '0' || v[0] > '9' || *end || errno || n < min || n > max) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s takes a number from %lu to %lu", opt, min, max);
        die(msg, v);
    }
    return n;
}

/* A comma-separated list of numbers into out (at most cap). */
static int number_list(const char *opt, const char *v, unsigned long min, unsigned long max,
                       size_t *out, int cap)
{
    char buf[256];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", v);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (n == cap)
            die("too many values", v);
        out[n++] = number(opt, t, min, max);
    }
    if (!n)
        die("needs a list of numbers", opt);
    return n;
}

enum { OPT_BACKEND = 256, OPT_WIDTH, OPT_KEYS, OPT_MODES, OPT_BYTES, OPT_SAMPLES, OPT_SIZES,
       OPT_TUNE_OUT, OPT_VERSION, OPT_BUFFERS, OPT_MISALIGN };

static void parse(int argc, char **argv, struct options *o)
{
    static int flag_compare, flag_no_hw, flag_no_aesni, flag_bound, flag_sweep, flag_setkey,
        flag_gcm, flag_xts, flag_csv, flag_json, flag_short;
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {"compare", no_argument, &flag_compare, 1},
        {"peer-no-hw", no_argument, &flag_no_hw, 1},
        {"peer-no-aesni", no_argument, &flag_no_aesni, 1},
        {"bound", no_argument, &flag_bound, 1},
        {"sweep", no_argument, &flag_sweep, 1},
        {"setkey", no_argument, &flag_setkey, 1},
        {"gcm", no_argument, &flag_gcm, 1},
        {"xts", no_argument, &flag_xts, 1},
        {"short", no_argument, &flag_short, 1},
        {"csv", no_argument, &flag_csv, 1},
        {"json", no_argument, &flag_json, 1},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"width", required_argument, NULL, OPT_WIDTH},
        {"keys", required_argument, NULL, OPT_KEYS},
        {"modes", required_argument, NULL, OPT_MODES},
        {"bytes", required_argument, NULL, OPT_BYTES},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"buffers", required_argument, NULL, OPT_BUFFERS},
        {"misalign", required_argument, NULL, OPT_MISALIGN},
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"tune-out", required_argument, NULL, OPT_TUNE_OUT},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->bytes = 8192;
    o->samples = 15;
    o->buffers = 1;
    static const size_t gcm_sizes[] = {16, 64, 256, 1024, 8192, 65536};
    for (o->nsizes = 0; o->nsizes < 6; o->nsizes++)
        o->sizes[o->nsizes] = gcm_sizes[o->nsizes];
    o->keys[0] = 128, o->keys[1] = 192, o->keys[2] = 256, o->nkeys = 3;
    for (int m = 0; m < AES_GEN_MODE_COUNT; m++) /* XTS's whole-block kernels: --xts */
        o->modes[m] = aes_gen_mode_is_block((enum aes_gen_mode_dir)m) &&
                      aes_gen_modes[m].family != AES_GEN_FAMILY_XTS;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 0:
            break; /* a flag */
        case 'h':
            fputs(usage_text, stdout);
            printf("modes:");
            for (int m = 0; m < AES_GEN_MODE_COUNT; m++)
                printf(" %s", aes_gen_modes[m].name);
            printf("\n");
            exit(0);
        case OPT_VERSION:
            printf("aes-gen-bench %s\n", AES_GEN_VERSION);
            exit(0);
        case OPT_BACKEND: o->backend = v; break;
        case OPT_TUNE_OUT: o->tune_out = v; break;
        case OPT_WIDTH: o->width = (unsigned)number("--width", v, 1, 1024); break;
        case OPT_BYTES: o->bytes = number("--bytes", v, 16, 1ul << 30); break;
        case OPT_SAMPLES: o->samples = (int)number("--samples", v, 1, BENCH_MAX_SAMPLES); break;
        case OPT_BUFFERS: o->buffers = (int)number("--buffers", v, 1, 64); break;
        case OPT_MISALIGN: o->misalign = (size_t)number("--misalign", v, 0, 63); break;
        case OPT_SIZES:
            o->sizes_given = 1;
            o->nsizes = number_list("--sizes", v, 1, 1ul << 24, o->sizes, 16);
            break;
        case OPT_KEYS: {
            size_t bits[3];
            o->keys_given = 1;
            o->nkeys = number_list("--keys", v, 128, 256, bits, 3);
            for (int i = 0; i < o->nkeys; i++) {
                if (bits[i] != 128 && bits[i] != 192 && bits[i] != 256)
                    die("--keys takes 128, 192 and/or 256", v);
                o->keys[i] = (unsigned)bits[i];
            }
            break;
        }
        case OPT_MODES: {
            memset(o->modes, 0, sizeof o->modes);
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                int found = 0;
                for (int m = 0; m < AES_GEN_MODE_COUNT; m++)
                    if (!strcmp(t, aes_gen_modes[m].name))
                        o->modes[m] = found = 1;
                if (!found)
                    die("unknown mode (see --help)", t);
            }
            break;
        }
        case ':':
            die("option needs a value", argv[optind - 1]);
        default:
            die("unknown option (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die("unexpected argument (see --help)", argv[optind]);
    o->compare = flag_compare || flag_short, o->peer_no_hw = flag_no_hw;
    o->peer_no_aesni = flag_no_aesni, o->bound = flag_bound, o->sweep = flag_sweep;
    o->setkey = flag_setkey, o->gcm = flag_gcm, o->xts = flag_xts, o->short_msgs = flag_short;
    o->csv = flag_csv, o->json = flag_json;
    if (o->csv && o->json)
        die("--csv and --json: choose one", NULL);
    if (o->gcm + o->xts + o->setkey + o->sweep + o->short_msgs > 1)
        die("--gcm, --xts, --setkey, --sweep and --short each make their own table: choose one",
            NULL);
    if (o->short_msgs && !o->sizes_given) {
        static const size_t short_sizes[] = {16, 32, 48, 64, 128, 256};
        for (o->nsizes = 0; o->nsizes < 6; o->nsizes++)
            o->sizes[o->nsizes] = short_sizes[o->nsizes];
    }
    for (int i = 0; o->short_msgs && i < o->nsizes; i++)
        if (o->sizes[i] % 16)
            die("--short takes sizes that are multiples of 16 (the block modes' ECB/CBC)", NULL);
    if (o->xts && !o->sizes_given) { /* a data unit is 16 bytes or more */
        static const size_t xts_sizes[] = {64, 256, 1024, 8192, 65536};
        for (o->nsizes = 0; o->nsizes < 5; o->nsizes++)
            o->sizes[o->nsizes] = xts_sizes[o->nsizes];
    }
    /* Only the key sizes this build generated (make gen KEYS=...). */
    int kept = 0;
    for (int i = 0; i < o->nkeys; i++) {
        if (aes_gen_key_size_built(o->keys[i]))
            o->keys[kept++] = o->keys[i];
        else if (o->keys_given)
            fprintf(stderr, "aes-gen-bench: skipping AES-%u: not generated in this build\n",
                    o->keys[i]);
    }
    o->nkeys = kept;
    if (o->nkeys == 0)
        die("none of the key sizes asked for was generated in this build", NULL);
    if (o->bytes == 0 || o->bytes % 16)
        die("--bytes must be a positive multiple of 16", NULL);
    if (o->samples < 1)
        die("--samples must be at least 1", NULL);
    if (o->buffers > 1 && (o->gcm || o->xts || o->setkey || o->sweep))
        die("--buffers is for the mode table and --short", NULL);
    if (o->tune_out && !o->sweep)
        die("--tune-out goes with --sweep", NULL);
}

/* One timed configuration of ours: a kernel of a forced width (then width 1
 * for what is left), or the API when no width is forced. */
struct ours {
    const aes_gen_key *k;
    enum aes_gen_mode_dir md;
    const struct aes_gen_kernel_info *wide, *one;
    uint8_t iv[16];
};

/* A job per mode calling its public function (what users call, from
 * generated/modes.inc) straight from the timing loop, as the peers' jobs call
 * theirs: at 16 bytes every level of call in between shows.  A mode without
 * an iv gets the key itself as its context, as nettle's job gets its own
 * (the start of a call is what independent short messages wait for). */
#define API_NONE(md, function) \
    static void api_##md(void *k, uint8_t *buf, size_t len) \
    { \
        function(k, buf, buf, len); \
    }
#define API_CHAIN(md, function) \
    static void api_##md(void *p, uint8_t *buf, size_t len) \
    { \
        struct ours *o = p; \
        function(o->k, o->iv, buf, buf, len); \
    }
#define API_COUNTER API_CHAIN
#define AES_GEN_MODE_API(md, function, iv) API_##iv(md, function)
#include "modes.inc"
static void (*const public_api[AES_GEN_MODE_COUNT])(void *, uint8_t *, size_t) = {
#define AES_GEN_MODE_API(md, function, iv) [AES_GEN_MD_##md] = api_##md,
#include "modes.inc"
};

static void run_ours(void *p, uint8_t *buf, size_t len)
{
    struct ours *o = p;
    if (!o->wide) { /* a mode with no public function of its own */
        aes_gen_crypt(o->k, o->md, o->iv, buf, buf, len);
        return;
    }
    const uint8_t *rk = aes_gen_schedule(o->k, o->md);
    uint8_t *iv = aes_gen_mode_uses_iv(o->md) ? o->iv : NULL;
    const size_t n = len / 16, bulk = n - n % o->wide->width;
    if (bulk)
        o->wide->fn.block(rk, iv, buf, buf, bulk);
    if (n > bulk)
        o->one->fn.block(rk, iv, buf + 16 * bulk, buf + 16 * bulk, n - bulk);
}

static const struct aes_gen_kernel_info *find_kernel(const char *backend,
                                                     enum aes_gen_mode_dir md, unsigned bits,
                                                     unsigned width)
{
    const int b = aes_gen_backend_index(backend);
    size_t first, n = b < 0 ? 0 : aes_gen_kernel_range((enum aes_gen_backend_id)b, md, bits,
                                                       &first);
    for (size_t i = 0; i < n; i++)
        if (aes_gen_registry[first + i].width == width)
            return &aes_gen_registry[first + i];
    return NULL;
}

/* The width aes_gen_run_blocks starts with for this key. */
static unsigned api_width(const aes_gen_key *k, enum aes_gen_mode_dir md)
{
    return aes_gen_registry[k->private_kernels[md][0]].width;
}

/* The backend whose kernels the key runs md with (a vector backend takes its
 * serial modes from another). */
static const char *mode_backend(const aes_gen_key *k, enum aes_gen_mode_dir md)
{
    return aes_gen_backend_table[aes_gen_registry[k->private_kernels[md][0]].backend].name;
}

struct row {
    const char *backend;
    unsigned key_bits, width;
    enum aes_gen_mode_dir md;
    double ns, ns_min, ns_max, peer_ns[PEER_COUNT], bound_ns; /* bound_ns < 0: none */
};

/* Sets up a job timing ours through the API (width 0) or a forced kernel
 * width; 0, or -1 if the backend has no such kernel. */
static int ours_job(struct ours *run, const aes_gen_key *k, unsigned bits,
                    enum aes_gen_mode_dir md, unsigned width, struct bench_job *job,
                    unsigned *used_width)
{
    const char *backend = mode_backend(k, md);
    memset(run, 0, sizeof *run);
    run->k = k;
    run->md = md;
    if (width) {
        run->wide = find_kernel(backend, md, bits, aes_gen_mode_is_serial(md) ? 1 : width);
        run->one = find_kernel(backend, md, bits, 1);
        if (!run->wide)
            return -1;
        *used_width = run->wide->width;
    } else {
        *used_width = api_width(k, md);
    }
    job->fn = !width && public_api[md] ? public_api[md] : run_ours;
    job->ctx = job->fn != run_ours && !aes_gen_mode_uses_iv(md) ? (void *)k : (void *)run;
    return 0;
}

/* What the AES instructions alone need, as a job timed beside the row: serial
 * modes wait for each round's result (rounds x latency per 16 bytes), parallel
 * modes are limited by issue rate (rounds x reciprocal throughput per vector of
 * blocks), or, when each call waits for the last one's output (`chained`), the
 * AES instructions take that output (ECB, CBC decryption) and the message is
 * short, by one block's rounds (rounds x latency per call), whichever is more.
 * -1 for backends that do not run on AES instructions. */
static int bound_job(const struct bench_bounds *bd, const char *backend,
                     enum aes_gen_mode_dir md, unsigned bits, size_t bytes, int chained,
                     struct bench_aes_run *run, struct bench_job *job)
{
    const double rounds = aes_gen_rounds(bits / 8), blocks = (double)bytes / 16;
    const int b = aes_gen_backend_index(backend);
    const unsigned aes_bytes = b < 0 ? 0 : aes_gen_backend_table[b].aes_bytes;
    const int vlen = aes_bytes == 16 ? BENCH_XMM : aes_bytes == 32 ? BENCH_YMM
                     : aes_bytes == 64 ? BENCH_ZMM : -1;
    if (vlen < 0)
        return -1;
    if (aes_gen_mode_is_serial(md))
        return bench_aes_job(BENCH_XMM, 1, blocks * rounds, run, job);
    const double issue = blocks * rounds / (1 << vlen);
    const int family = aes_gen_modes[md].family;
    if (chained && (family == AES_GEN_FAMILY_ECB || family == AES_GEN_FAMILY_CBC) &&
        bd->have[vlen] &&
        rounds * bd->latency[vlen] > issue * bd->recip_tput[vlen])
        return bench_aes_job(vlen, 1, rounds, run, job);
    return bench_aes_job(vlen, 0, issue, run, job);
}

static void print_header(const struct options *o, const struct bench_clock *c,
                         const struct bench_bounds *b, const aes_gen_key *k)
{
    if (o->csv || o->json)
        return;
    printf("aes-gen-bench: backend %s%s, %zu-byte buffers, median of %d timings after warm-up\n",
           aes_gen_key_backend(k), o->backend ? " (asked for)"
                               : " (the default: the first in preference order that runs here, "
                                 "constant-time first)", o->bytes, o->samples);
    if (o->buffers == 1)
        printf("calls: in place on one buffer, each waiting for the last one's output "
               "(--buffers 16: independent messages)\n");
    else
        printf("calls: in place, going round %d buffers (independent messages)\n", o->buffers);
    printf("constant time: %s (AES_GEN_REQUIRE_CONSTANT_TIME %s)\n",
           aes_gen_key_constant_time(k) == 1 ? "yes, every mode runs on constant-time kernels"
                                             : "NO, table lookups indexed by key and data",
           aes_gen_constant_time_required() ? "on" : "off");
    printf("clock: core %.2f GHz (estimated: dependent-add loop), TSC %.2f GHz; "
           "cycles/B = ns/B x core GHz\n", c->core_ghz, c->tsc_ghz);
    printf("widths: %s\n", aes_gen_tuning_active()
                               ? "from the tuning table of `make tune`"
                               : "built-in order, widest kernel first (no `make tune` table)");
    if (o->bound) {
        static const char *const vl[BENCH_VLENS] = {"xmm", "ymm", "zmm"};
        printf("aesenc:");
        for (int v = 0; v < BENCH_VLENS; v++)
            if (b->have[v])
                printf(" %s latency %.2f c, %.2f c/insn;", vl[v], b->latency[v],
                       b->recip_tput[v]);
        printf("\nbound: the row's AES instructions alone, timed beside it (serial: one "
               "dependency chain,\nrounds x latency per block; parallel: rounds x c/insn per "
               "vector of blocks)\n");
    }
}

static void fmt_ns(char *buf, size_t n, double ns)
{
    if (ns < 0)
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.3f", ns);
}

static double best_peer(const struct row *r)
{
    double best = -1;
    for (int p = 0; p < PEER_COUNT; p++)
        if (r->peer_ns[p] > 0 && (best < 0 || r->peer_ns[p] < best))
            best = r->peer_ns[p];
    return best;
}

/* Rows [from, to) of rows[]; the CSV header or JSON preamble before row 0, the
 * JSON end with `last`.  Called row by row, so piped output streams. */
static void print_rows(const struct options *o, const struct bench_clock *c,
                       const struct bench_bounds *b, struct row *rows, int from, int to,
                       int last)
{
    if (from > 0 || to == 0) {
        /* no preamble */
    } else if (o->csv) {
        printf("backend,key_bits,mode,width,ns_per_byte,ns_per_byte_min,ns_per_byte_max,"
               "mib_per_s,cycles_per_byte");
        for (int p = 0; o->compare && p < PEER_COUNT; p++)
            printf(",%s_ns_per_byte", peer_names[p]);
        printf("%s%s\n", o->compare ? ",ours_over_best_peer" : "",
               o->bound ? ",bound_cycles_per_byte,ours_over_bound" : "");
    } else if (o->json) {
        static const char *const vl[BENCH_VLENS] = {"xmm", "ymm", "zmm"};
        printf("{\n  \"bytes\": %zu,\n  \"samples\": %d,\n  \"core_ghz_estimate\": %.4f,\n"
               "  \"core_ghz_range\": [%.4f, %.4f],\n  \"tsc_ghz\": %.4f,\n"
               "  \"tuning_table\": %s,\n  \"bounds\": {", o->bytes, o->samples, c->core_ghz,
               c->core_min, c->core_max, c->tsc_ghz, aes_gen_tuning_active() ? "true" : "false");
        int first = 1;
        for (int v = 0; o->bound && v < BENCH_VLENS; v++)
            if (b->have[v]) {
                printf("%s\"%s\": {\"aesenc_latency_cycles\": %.3f, \"aesenc_cycles_per_insn\": "
                       "%.3f}", first ? "" : ", ", vl[v], b->latency[v], b->recip_tput[v]);
                first = 0;
            }
        printf("},\n  \"rows\": [");
    }
    for (int i = from; i < to; i++) {
        const struct row *r = &rows[i];
        const double mib = 1e9 / r->ns / 1048576.0, cpb = r->ns * c->core_ghz;
        const double best = best_peer(r);
        const double bound_cpb = r->bound_ns * c->core_ghz, vs_bound = r->ns / r->bound_ns;
        if (!o->csv && !o->json && (i == 0 || r->key_bits != rows[i - 1].key_bits)) {
            printf("\nAES-%-4u backend   W      ns/B  spread     MiB/s   cycles/B", r->key_bits);
            if (o->compare)
            {
                printf(" |");
                for (int p = 0; p < PEER_COUNT; p++)
                    printf(" %9s", peer_names[p]);
                printf("  ours/best");
            }
            if (o->bound)
                printf(" | bound c/B  ours/bound");
            printf("\n");
        }
        if (o->csv) {
            printf("%s,%u,%s,%u,%.4f,%.4f,%.4f,%.1f,%.3f", r->backend, r->key_bits,
                   aes_gen_modes[r->md].name, r->width, r->ns, r->ns_min, r->ns_max, mib, cpb);
            for (int p = 0; o->compare && p < PEER_COUNT; p++)
                r->peer_ns[p] < 0 ? printf(",") : printf(",%.4f", r->peer_ns[p]);
            if (o->compare)
                best < 0 ? printf(",") : printf(",%.3f", r->ns / best);
            if (o->bound)
                r->bound_ns < 0 ? printf(",,") : printf(",%.3f,%.3f", bound_cpb, vs_bound);
            printf("\n");
        } else if (o->json) {
            printf("%s\n    {\"backend\": \"%s\", \"constant_time\": %s, \"key_bits\": %u, "
                   "\"mode\": \"%s\", \"width\": %u, \"ns_per_byte\": %.4f, "
                   "\"ns_per_byte_min\": %.4f, \"ns_per_byte_max\": %.4f, \"mib_per_s\": %.1f, "
                   "\"cycles_per_byte\": %.3f", i ? "," : "", r->backend,
                   aes_gen_backend_table[aes_gen_backend_index(r->backend)].constant_time
                       ? "true" : "false",
                   r->key_bits, aes_gen_modes[r->md].name, r->width, r->ns, r->ns_min,
                   r->ns_max, mib, cpb);
            if (o->compare) {
                printf(", \"peers_ns_per_byte\": {");
                for (int p = 0; p < PEER_COUNT; p++)
                    r->peer_ns[p] < 0 ? printf("%s\"%s\": null", p ? ", " : "", peer_names[p])
                                      : printf("%s\"%s\": %.4f", p ? ", " : "", peer_names[p],
                                               r->peer_ns[p]);
                best < 0 ? printf("}, \"ours_over_best_peer\": null")
                         : printf("}, \"ours_over_best_peer\": %.3f", r->ns / best);
            }
            if (o->bound)
                r->bound_ns < 0
                    ? printf(", \"bound_cycles_per_byte\": null, \"ours_over_bound\": null")
                    : printf(", \"bound_cycles_per_byte\": %.3f, \"ours_over_bound\": %.3f",
                             bound_cpb, vs_bound);
            printf("}");
        } else {
            /* spread: (max - min) / median of the samples */
            printf("  %-8s %-8s %2u %9.3f %6.1f%% %9.1f %10.3f", aes_gen_modes[r->md].label,
                   r->backend, r->width, r->ns, 100 * (r->ns_max - r->ns_min) / r->ns, mib, cpb);
            if (o->compare) {
                char s[PEER_COUNT][32], ratio[32];
                for (int p = 0; p < PEER_COUNT; p++)
                    fmt_ns(s[p], sizeof s[p], r->peer_ns[p]);
                best < 0 ? snprintf(ratio, sizeof ratio, "n/a")
                         : snprintf(ratio, sizeof ratio, "%.2f", r->ns / best);
                printf(" |");
                for (int p = 0; p < PEER_COUNT; p++)
                    printf(" %9s", s[p]);
                printf(" %10s", ratio);
            }
            if (o->bound) {
                if (r->bound_ns < 0)
                    printf(" | %9s %11s", "-", "-");
                else
                    printf(" | %9.3f %11.2f", bound_cpb, vs_bound);
            }
            printf("\n");
        }
    }
    if (o->json && last)
        printf("\n  ]\n}\n");
    fflush(stdout);
}

static int setkey(aes_gen_key *k, const char *backend, unsigned bits)
{
    static const uint8_t key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const int err = backend ? aes_gen_setkey_backend(k, key, bits / 8, backend)
                            : aes_gen_setkey(k, key, bits / 8);
    if (err)
        fprintf(stderr, "aes-gen-bench: AES-%u with backend %s: %s\n", bits,
                backend ? backend : "(default)", aes_gen_strerror(err));
    return err;
}

struct setkey_job {
    int backend; /* -1: aes_gen_setkey, the default */
    size_t key_len;
    aes_gen_key k;
};

static void run_setkey(void *ctx, uint8_t *buf, size_t len)
{
    struct setkey_job *s = ctx;
    (void)len;
    if (s->backend < 0)
        aes_gen_setkey(&s->k, buf, s->key_len);
    else
        aes_gen_setkey_backend(&s->k, buf, s->key_len, aes_gen_backend_table[s->backend].name);
}

/* ns per key setup per key size: aes_gen_setkey (the default), every usable
 * backend by name (the name lookup included), and the peers, timed together. */
static int run_setkey_table(const struct options *o, uint8_t *buf)
{
    static struct setkey_job ctx[AES_GEN_BACKEND_COUNT + 1];
    struct bench_job jobs[AES_GEN_BACKEND_COUNT + 1 + SETKEY_PEER_COUNT];
    printf("aes-gen-bench --setkey: ns per key setup (encryption and decryption schedules), "
           "median of %d\n", o->samples);
    for (int ki = 0; ki < o->nkeys; ki++) {
        const unsigned bits = o->keys[ki];
        int n = 0, peer_job[SETKEY_PEER_COUNT];
        ctx[n] = (struct setkey_job){.backend = -1, .key_len = bits / 8};
        jobs[n] = (struct bench_job){.fn = run_setkey, .ctx = &ctx[n]};
        n++;
        for (int b = 0; b < AES_GEN_BACKEND_COUNT; b++)
            if (aes_gen_backend_usable((enum aes_gen_backend_id)b, bits)) {
                ctx[n] = (struct setkey_job){.backend = b, .key_len = bits / 8};
                jobs[n] = (struct bench_job){.fn = run_setkey, .ctx = &ctx[n]};
                n++;
            }
        int njobs = n;
        for (int p = 0; p < SETKEY_PEER_COUNT; p++)
            peer_job[p] = peer_open_setkey(p, bits, &jobs[njobs]) == 0 ? njobs++ : -1;
        bench_jobs(jobs, njobs, buf, 1, o->samples);
        /* Every peer has its column, n/a where it is not built or lacks the key size. */
        double best = -1;
        const int ipsecmb = peer_job[SETKEY_PEER_IPSECMB];
        printf("\nAES-%u setkey %-16s %8s |", bits, "", "ns");
        for (int p = 0; p < SETKEY_PEER_COUNT; p++) {
            printf(" %8s", setkey_peer_names[p]);
            if (peer_job[p] >= 0) {
                const double t = jobs[peer_job[p]].ns_per_byte;
                best = best < 0 || t < best ? t : best;
            }
        }
        printf(" | ours/best /ipsec-mb\n");
        for (int j = 0; j < n; j++) {
            char name[64];
            aes_gen_setkey(&ctx[0].k, buf, bits / 8);
            snprintf(name, sizeof name, ctx[j].backend < 0 ? "aes_gen_setkey (%s)" : "%s",
                     ctx[j].backend < 0 ? aes_gen_key_backend(&ctx[0].k)
                                        : aes_gen_backend_table[ctx[j].backend].name);
            printf("  %-28s %8.1f |", name, jobs[j].ns_per_byte);
            for (int p = 0; p < SETKEY_PEER_COUNT; p++)
                peer_job[p] >= 0 ? printf(" %8.1f", jobs[peer_job[p]].ns_per_byte)
                                 : printf(" %8s", "n/a");
            best > 0 ? printf(" | %9.2f", jobs[j].ns_per_byte / best) : printf(" | %9s", "n/a");
            ipsecmb >= 0 ? printf(" %9.2f\n", jobs[j].ns_per_byte / jobs[ipsecmb].ns_per_byte)
                         : printf(" %9s\n", "n/a");
        }
        for (int j = 0; j < n; j++)
            aes_gen_wipe(&ctx[j].k);
    }
    return 0;
}

static int run_table(const struct options *o, const struct bench_clock *c,
                     const struct bench_bounds *b, uint8_t *buf)
{
    struct row rows[3 * AES_GEN_MODE_COUNT];
    int n = 0;
    aes_gen_key k;
    for (int ki = 0; ki < o->nkeys; ki++) {
        if (setkey(&k, o->backend, o->keys[ki]))
            return 1;
        if (ki == 0)
            print_header(o, c, b, &k);
        for (int m = 0; m < AES_GEN_MODE_COUNT; m++) {
            if (!o->modes[m])
                continue;
            if (isatty(STDERR_FILENO))
                fprintf(stderr, "\r  measuring AES-%u %-8s ...", o->keys[ki],
                        aes_gen_modes[m].label);
            struct row *r = &rows[n++];
            struct ours run;
            struct bench_job jobs[2 + PEER_COUNT];
            struct bench_aes_run aes_run;
            int peer_job[PEER_COUNT], njobs = 1, bjob = -1;
            r->key_bits = o->keys[ki];
            r->md = (enum aes_gen_mode_dir)m;
            r->backend = mode_backend(&k, r->md);
            if (ours_job(&run, &k, r->key_bits, r->md, o->width, &jobs[0], &r->width)) {
                fprintf(stderr, "aes-gen-bench: backend %s has no width-%u kernel for %s\n",
                        r->backend, o->width, aes_gen_modes[m].name);
                return 1;
            }
            for (int p = 0; p < PEER_COUNT; p++) {
                peer_job[p] = -1;
                if (o->compare && peer_built(p) && !peer_open(p, r->md, r->key_bits, &jobs[njobs]))
                    peer_job[p] = njobs++;
            }
            if (o->bound &&
                !bound_job(b, r->backend, r->md, r->key_bits, o->bytes, o->buffers == 1, &aes_run,
                           &jobs[njobs]))
                bjob = njobs++;
            bench_jobs_spread(jobs, njobs, buf, o->bytes, o->samples, o->buffers);
            r->ns = jobs[0].ns_per_byte;
            r->ns_min = jobs[0].min_ns;
            r->ns_max = jobs[0].max_ns;
            r->bound_ns = bjob < 0 ? -1 : jobs[bjob].ns_per_byte * aes_run.scale;
            for (int p = 0; p < PEER_COUNT; p++) {
                r->peer_ns[p] = peer_job[p] < 0 ? -1 : jobs[peer_job[p]].ns_per_byte;
                if (peer_job[p] >= 0)
                    peer_close(p, &jobs[peer_job[p]]);
            }
            if (isatty(STDERR_FILENO))
                fprintf(stderr, "\r\033[K");
            print_rows(o, c, b, rows, n - 1, n, 0);
        }
        aes_gen_wipe(&k);
    }
    print_rows(o, c, b, rows, n, n, 1);
    return 0;
}

/* --short: the table (ours beside every peer) at each message size. */
static int run_short_tables(const struct options *o, const struct bench_clock *c,
                            const struct bench_bounds *b, uint8_t *buf)
{
    for (int i = 0; i < o->nsizes; i++) {
        struct options at = *o;
        at.bytes = o->sizes[i];
        if (i)
            printf("\n");
        if (run_table(&at, c, b, buf))
            return 1;
    }
    return 0;
}

/* Every width of every mode for the chosen backends, all (backend, width)
 * pairs of one mode and key size timed round-robin together so that they
 * compare; then the built-in choice against the best, and optionally the
 * tuning file (make tune): the fastest width per backend and the fastest
 * backend per mode and key size. */
enum { SWEEP_BACKENDS = 16, SWEEP_WIDTHS = 32 };
struct sweep_cell {
    double ns; /* < 0: no such kernel */
    int used;  /* the width a bulk message of the mode starts at (the key's first kernel) */
};

static int backend_widths(int b, unsigned *widths)
{
    int nw = 0;
    for (size_t i = 0; i < aes_gen_registry_count; i++) {
        const struct aes_gen_kernel_info *r = &aes_gen_registry[i];
        int seen = 0;
        for (int j = 0; j < nw; j++)
            seen |= widths[j] == r->width;
        if (!seen && (int)r->backend == b && nw < SWEEP_WIDTHS)
            widths[nw++] = r->width;
    }
    for (int i = 1; i < nw; i++) /* ascending */
        for (int j = i; j > 0 && widths[j - 1] > widths[j]; j--) {
            const unsigned t = widths[j];
            widths[j] = widths[j - 1], widths[j - 1] = t;
        }
    return nw;
}

static int run_sweep(const struct options *o, const struct bench_clock *c, uint8_t *buf)
{
    const char *names[SWEEP_BACKENDS];
    const size_t nb = o->backend ? 1 : aes_gen_backends(names, SWEEP_BACKENDS);
    static struct sweep_cell cell[3][AES_GEN_MODE_COUNT][SWEEP_BACKENDS][SWEEP_WIDTHS];
    unsigned widths[SWEEP_BACKENDS][SWEEP_WIDTHS];
    int nw[SWEEP_BACKENDS], id[SWEEP_BACKENDS];
    FILE *tune = NULL;

    if (o->backend)
        names[0] = o->backend;
    for (size_t bi = 0; bi < nb; bi++) {
        id[bi] = aes_gen_backend_index(names[bi]);
        if (id[bi] < 0) {
            fprintf(stderr, "aes-gen-bench: unknown backend %s\n", names[bi]);
            return 1;
        }
        nw[bi] = backend_widths(id[bi], widths[bi]);
    }
    if (o->tune_out && !(tune = fopen(o->tune_out, "w"))) {
        perror(o->tune_out);
        return 1;
    }
    /* Measure. */
    for (int ki = 0; ki < o->nkeys; ki++) {
        aes_gen_key keys[SWEEP_BACKENDS];
        for (size_t bi = 0; bi < nb; bi++)
            if (setkey(&keys[bi], names[bi], o->keys[ki]))
                return 1;
        for (int m = 0; m < AES_GEN_MODE_COUNT; m++) {
            const enum aes_gen_mode_dir md = (enum aes_gen_mode_dir)m;
            static struct ours runs[SWEEP_BACKENDS * SWEEP_WIDTHS];
            static struct bench_job jobs[SWEEP_BACKENDS * SWEEP_WIDTHS];
            int where[SWEEP_BACKENDS][SWEEP_WIDTHS], nj = 0;
            for (size_t bi = 0; bi < nb; bi++)
                for (int j = 0; j < nw[bi]; j++) {
                    unsigned used;
                    where[bi][j] = -1;
                    cell[ki][m][bi][j].ns = -1;
                    /* A backend's own kernels only: a vector backend has no serial ones. */
                    if (o->modes[m] && find_kernel(names[bi], md, o->keys[ki], widths[bi][j]) &&
                        !ours_job(&runs[nj], &keys[bi], o->keys[ki], md, widths[bi][j],
                                  &jobs[nj], &used))
                        where[bi][j] = nj++;
                }
            if (isatty(STDERR_FILENO))
                fprintf(stderr, "\r  measuring AES-%u %-8s (%d kernels) ...", o->keys[ki],
                        aes_gen_modes[m].label, nj);
            bench_jobs(jobs, nj, buf, o->bytes, o->samples);
            for (size_t bi = 0; bi < nb; bi++)
                for (int j = 0; j < nw[bi]; j++)
                    if (where[bi][j] >= 0) {
                        const struct aes_gen_kernel_info *first =
                            &aes_gen_registry[keys[bi].private_kernels[m][0]];
                        cell[ki][m][bi][j].ns = jobs[where[bi][j]].ns_per_byte;
                        cell[ki][m][bi][j].used = keys[bi].private_kernels[m][1] &&
                                                  (int)first->backend == id[bi] &&
                                                  first->width == widths[bi][j];
                    }
        }
        for (size_t bi = 0; bi < nb; bi++)
            aes_gen_wipe(&keys[bi]);
    }
    /* Report. */
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\r\033[K");
    if (o->csv)
        printf("backend,key_bits,mode,width,ns_per_byte,mib_per_s,cycles_per_byte,used\n");
    else if (o->json)
        printf("{\n  \"bytes\": %zu,\n  \"core_ghz_estimate\": %.4f,\n  \"sweep\": [", o->bytes,
               c->core_ghz);
    else
        printf("aes-gen-bench --sweep: MiB/s per kernel width, %zu-byte buffers, median of %d; "
               "the widths of one mode are timed together\n", o->bytes, o->samples);
    int first = 1;
    for (size_t bi = 0; bi < nb; bi++)
        for (int ki = 0; ki < o->nkeys; ki++) {
            if (nw[bi] == 0)
                continue; /* an alias (ttable): its kernels are listed under their own name */
            if (!o->csv && !o->json) {
                printf("\n%s AES-%u   ", names[bi], o->keys[ki]);
                for (int j = 0; j < nw[bi]; j++)
                    printf(" %8s%-2u", "W=", widths[bi][j]);
                printf("\n");
            }
            for (int m = 0; m < AES_GEN_MODE_COUNT; m++) {
                if (!o->modes[m])
                    continue;
                if (!o->csv && !o->json)
                    printf("  %-14s", aes_gen_modes[m].label);
                for (int j = 0; j < nw[bi]; j++) {
                    const double ns = cell[ki][m][bi][j].ns;
                    if (ns < 0) {
                        if (!o->csv && !o->json)
                            printf(" %10s", "-");
                        continue;
                    }
                    if (o->csv)
                        printf("%s,%u,%s,%u,%.4f,%.1f,%.3f,%d\n", names[bi], o->keys[ki],
                               aes_gen_modes[m].name, widths[bi][j], ns, 1e9 / ns / 1048576.0,
                               ns * c->core_ghz, cell[ki][m][bi][j].used);
                    else if (o->json)
                        printf("%s\n    {\"backend\": \"%s\", \"key_bits\": %u, \"mode\": "
                               "\"%s\", \"width\": %u, \"ns_per_byte\": %.4f, "
                               "\"mib_per_s\": %.1f}", first ? "" : ",", names[bi],
                               o->keys[ki], aes_gen_modes[m].name, widths[bi][j], ns,
                               1e9 / ns / 1048576.0);
                    else
                        printf(" %10.1f", 1e9 / ns / 1048576.0);
                    first = 0;
                }
                if (!o->csv && !o->json)
                    printf("\n");
            }
        }
    if (o->json)
        printf("\n  ]\n}\n");
    if (tune)
        fprintf(tune, "/* Written by aes-gen-bench --sweep (make tune) on the machine that ran "
                      "it: the fastest\n * width per backend, mode and key size, and the "
                      "fastest backend per mode and key size. */\n");
    if (!o->csv && !o->json)
        printf("\nbuilt-in choice (aes_gen_setkey, widest kernel first) against the best "
               "measured, per mode and key size:\n");
    for (int ki = 0; ki < o->nkeys; ki++)
        for (int m = 0; m < AES_GEN_MODE_COUNT; m++) {
            if (!o->modes[m])
                continue;
            size_t best_b = 0;
            int best_j = -1;
            for (size_t bi = 0; bi < nb; bi++) {
                int bj = -1;
                for (int j = 0; j < nw[bi]; j++) {
                    const double ns = cell[ki][m][bi][j].ns;
                    if (ns >= 0 && (bj < 0 || ns < cell[ki][m][bi][bj].ns))
                        bj = j;
                    if (ns >= 0 && (best_j < 0 || ns < cell[ki][m][best_b][best_j].ns))
                        best_b = bi, best_j = j;
                }
                if (tune && bj >= 0)
                    fprintf(tune, "AES_GEN_TUNE(%s, %s, %u, %u)\n", aes_gen_backend_table[id[bi]].symbol,
                            aes_gen_modes[m].name, o->keys[ki], widths[bi][bj]);
            }
            if (best_j < 0)
                continue;
            if (tune)
                fprintf(tune, "AES_GEN_TUNE_BACKEND(%s, %u, %s)\n", aes_gen_modes[m].name,
                        o->keys[ki], aes_gen_backend_table[id[best_b]].symbol);
            /* The built-in choice: the default key's first kernel for this mode. */
            aes_gen_key k;
            if (o->csv || o->json || setkey(&k, NULL, o->keys[ki]))
                continue;
            const struct aes_gen_kernel_info *ki0 = &aes_gen_registry[k.private_kernels[m][0]];
            aes_gen_wipe(&k);
            double builtin = -1;
            for (size_t bi = 0; bi < nb; bi++)
                for (int j = 0; j < nw[bi]; j++)
                    if (id[bi] == (int)ki0->backend && widths[bi][j] == ki0->width)
                        builtin = cell[ki][m][bi][j].ns;
            printf("  AES-%u %-8s built-in %-8s W=%-3u ", o->keys[ki], aes_gen_modes[m].label,
                   aes_gen_backend_table[ki0->backend].name, ki0->width);
            if (builtin < 0)
                printf("(not in this sweep)");
            else
                printf("%.3fx the best, %s W=%u", builtin / cell[ki][m][best_b][best_j].ns,
                       names[best_b], widths[best_b][best_j]);
            printf("\n");
        }
    if (tune && fclose(tune)) {
        perror(o->tune_out);
        return 1;
    }
    if (tune && !o->csv && !o->json)
        printf("\ntuning table written to %s\n", o->tune_out);
    return 0;
}

/* --gcm: every (key size, direction, message size), ours and the peers timed
 * together, and the bound: the kernel's AES instructions and its products
 * per vector of blocks. */
static int gcm_mode(int decrypt)
{
    for (int m = 0; m < AES_GEN_MODE_COUNT; m++)
        if (aes_gen_modes[m].family == AES_GEN_FAMILY_GCM && aes_gen_modes[m].decrypt == decrypt)
            return m;
    return -1;
}

static int run_gcm_table(const struct options *o, const struct bench_clock *c, uint8_t *buf)
{
    static struct bench_gcm_set set;
    const double tsc = c->tsc_ghz > 0 ? c->tsc_ghz : c->core_ghz;
    int header = 0;
    if (o->csv) {
        printf("backend,key_bits,direction,bytes,width,ticks_per_byte,ticks_per_byte_min,"
               "ticks_per_byte_max");
        for (int p = 0; o->compare && p < GCM_PEER_COUNT; p++)
            printf(",%s_ticks_per_byte", gcm_peer_names[p]);
        printf("%s%s\n", o->compare ? ",ours_over_ipsecmb,ours_over_best_other" : "",
               o->bound ? ",bound_ticks_per_byte,ours_over_bound" : "");
    }
    for (int ki = 0; ki < o->nkeys; ki++) {
        const unsigned bits = o->keys[ki];
        for (int dec = 0; dec < 2; dec++)
            for (int si = 0; si < o->nsizes; si++) {
                const size_t len = o->sizes[si];
                if (bench_gcm_jobs(bits, dec, len, o->backend, o->compare, &set))
                    return 1;
                const aes_gen_key *k = &bench_gcm_key(&set)->private_aes;
                const int md = gcm_mode(dec);
                const struct aes_gen_kernel_info *ki0 =
                    md >= 0 ? aes_gen_gcm_one_shot_kernel(bench_gcm_key(&set), dec, len) : NULL;
                const unsigned aes_bytes =
                    ki0 ? aes_gen_backend_table[ki0->backend].aes_bytes : 0;
                const int vlen = aes_bytes == 16 ? BENCH_XMM : aes_bytes == 32 ? BENCH_YMM
                                 : aes_bytes == 64 ? BENCH_ZMM : -1;
                struct bench_aes_run run;
                int bjob = -1;
                if (o->bound && vlen >= 0 &&
                    !bench_gcm_bound_job(vlen, aes_gen_rounds(bits / 8), GCM_PRODUCTS,
                                         (double)len / aes_bytes, &run, &set.jobs[set.n]))
                    bjob = set.n;
                bench_jobs(set.jobs, set.n + (bjob >= 0), buf, len, o->samples);
                const struct bench_job *ours = &set.jobs[0];
                double peer[GCM_PEER_COUNT], best_other = -1;
                for (int p = 0; p < GCM_PEER_COUNT; p++) {
                    peer[p] = set.peer_job[p] < 0 ? -1 : set.jobs[set.peer_job[p]].ns_per_byte;
                    if (p != GCM_PEER_IPSECMB && peer[p] > 0 &&
                        (best_other < 0 || peer[p] < best_other))
                        best_other = peer[p];
                }
                const double bound = bjob < 0 ? -1 : set.jobs[bjob].ns_per_byte * run.scale;
                const char *backend = aes_gen_key_backend(k);
                char width[8] = "-";
                if (ki0)
                    snprintf(width, sizeof width, "%u", ki0->width);
                if (o->csv) {
                    printf("%s,%u,%s,%zu,%u,%.4f,%.4f,%.4f", backend, bits, dec ? "dec" : "enc",
                           len, ki0 ? ki0->width : 0, ours->ns_per_byte * tsc,
                           ours->min_ns * tsc, ours->max_ns * tsc);
                    for (int p = 0; o->compare && p < GCM_PEER_COUNT; p++)
                        peer[p] < 0 ? printf(",") : printf(",%.4f", peer[p] * tsc);
                    if (o->compare) {
                        const double ip = peer[GCM_PEER_IPSECMB];
                        ip < 0 ? printf(",") : printf(",%.3f", ours->ns_per_byte / ip);
                        best_other < 0 ? printf(",")
                                       : printf(",%.3f", ours->ns_per_byte / best_other);
                    }
                    if (o->bound)
                        bound < 0 ? printf(",,")
                                  : printf(",%.4f,%.3f", bound * tsc, ours->ns_per_byte / bound);
                    printf("\n");
                } else {
                    if (!header++) {
                        printf("aes-gen-bench --gcm: one message per call (96-bit IV, new for "
                               "every encryption; no AAD; 16-byte tag;\ndecryption verifies the "
                               "tag), median of %d timings; TSC ticks per byte (time x the TSC "
                               "rate, %.2f GHz)\n", o->samples, tsc);
                        if (o->compare)
                            printf("ipsec-mb: its %s code (init_mb_mgr_auto)\n",
                                   bench_ipsecmb_arch());
                        if (o->bound)
                            printf("bound: per vector of blocks the rounds' AES instructions and "
                                   "the kernels' %d carry-less products (Karatsuba), "
                                   "independent, timed beside the row\n", GCM_PRODUCTS);
                    }
                    if (dec == 0 && si == 0) {
                        printf("\nAES-%-4u dir backend   W   bytes  ticks/B spread", bits);
                        if (o->compare)
                            printf(" | %8s %8s %8s %8s | /ipsec-mb /best-other", "openssl",
                                   "gcrypt", "nettle", "ipsec-mb");
                        if (o->bound)
                            printf(" | bound t/B /bound");
                        printf("\n");
                    }
                    printf("  GCM %s %-8s %3s %7zu %8.3f %5.1f%%", dec ? "dec" : "enc", backend,
                           width, len, ours->ns_per_byte * tsc,
                           100 * (ours->max_ns - ours->min_ns) / ours->ns_per_byte);
                    if (o->compare) {
                        for (int p = 0; p < GCM_PEER_COUNT; p++)
                            peer[p] < 0 ? printf(" %8s", "n/a") : printf(" %8.3f", peer[p] * tsc);
                        const double ip = peer[GCM_PEER_IPSECMB];
                        ip < 0 ? printf(" | %9s", "n/a")
                               : printf(" | %9.2f", ours->ns_per_byte / ip);
                        best_other < 0 ? printf(" %11s", "n/a")
                                       : printf(" %11.2f", ours->ns_per_byte / best_other);
                    }
                    if (o->bound)
                        bound < 0 ? printf(" | %9s %6s", "-", "-")
                                  : printf(" | %9.3f %6.2f", bound * tsc,
                                           ours->ns_per_byte / bound);
                    printf("\n");
                    fflush(stdout);
                }
                bench_gcm_close(&set);
            }
    }
    return 0;
}

/* --xts: every (key size, direction, data-unit size), ours and the peers
 * timed together, and the bound: the row's AES instructions alone. */
static int run_xts_table(const struct options *o, const struct bench_clock *c, uint8_t *buf)
{
    static struct bench_xts_set set;
    const double tsc = c->tsc_ghz > 0 ? c->tsc_ghz : c->core_ghz;
    int header = 0;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] < 16)
            die("--xts takes data units of 16 bytes or more", NULL);
    if (o->csv) {
        printf("backend,key_bits,direction,bytes,ticks_per_byte,ticks_per_byte_min,"
               "ticks_per_byte_max");
        for (int p = 0; o->compare && p < XTS_PEER_COUNT; p++)
            printf(",%s_ticks_per_byte", xts_peer_names[p]);
        printf("%s%s\n", o->compare ? ",ours_over_best" : "",
               o->bound ? ",bound_ticks_per_byte,ours_over_bound" : "");
    }
    for (int ki = 0; ki < o->nkeys; ki++) {
        const unsigned bits = o->keys[ki];
        for (int dec = 0; dec < 2; dec++)
            for (int si = 0; si < o->nsizes; si++) {
                const size_t len = o->sizes[si];
                if (bench_xts_jobs(bits, dec, len, o->backend, o->compare, &set))
                    return 1;
                const aes_gen_key *k = &bench_xts_key(&set)->private_data;
                const enum aes_gen_mode_dir md = dec ? AES_GEN_MD_xts_dec : AES_GEN_MD_xts_enc;
                const char *backend = k->private_kernels[md][1]
                    ? aes_gen_backend_table[aes_gen_registry[k->private_kernels[md][0]].backend].name
                    : aes_gen_key_backend(k);
                struct bench_aes_run run;
                int bjob = -1;
                if (o->bound &&
                    !bound_job(NULL, backend, md, bits, len, 0, &run, &set.jobs[set.n]))
                    bjob = set.n;
                bench_jobs(set.jobs, set.n + (bjob >= 0), buf, len, o->samples);
                const struct bench_job *ours = &set.jobs[0];
                double peer[XTS_PEER_COUNT], best = -1;
                for (int p = 0; p < XTS_PEER_COUNT; p++) {
                    peer[p] = set.peer_job[p] < 0 ? -1 : set.jobs[set.peer_job[p]].ns_per_byte;
                    if (peer[p] > 0 && (best < 0 || peer[p] < best))
                        best = peer[p];
                }
                const double bound = bjob < 0 ? -1 : set.jobs[bjob].ns_per_byte * run.scale;
                if (o->csv) {
                    printf("%s,%u,%s,%zu,%.4f,%.4f,%.4f", backend, bits, dec ? "dec" : "enc", len,
                           ours->ns_per_byte * tsc, ours->min_ns * tsc, ours->max_ns * tsc);
                    for (int p = 0; o->compare && p < XTS_PEER_COUNT; p++)
                        peer[p] < 0 ? printf(",") : printf(",%.4f", peer[p] * tsc);
                    if (o->compare)
                        best < 0 ? printf(",") : printf(",%.3f", ours->ns_per_byte / best);
                    if (o->bound)
                        bound < 0 ? printf(",,")
                                  : printf(",%.4f,%.3f", bound * tsc, ours->ns_per_byte / bound);
                    printf("\n");
                } else {
                    if (!header++) {
                        printf("aes-gen-bench --xts: one data unit per call, in place, its tweak "
                               "the next sector number;\nmedian of %d timings; TSC ticks per "
                               "byte (time x the TSC rate, %.2f GHz)\n", o->samples, tsc);
                        if (o->bound)
                            printf("bound: the row's AES instructions alone (rounds per vector "
                                   "of blocks), timed beside it\n");
                    }
                    if (dec == 0 && si == 0) {
                        printf("\nAES-%-4u dir backend     bytes  ticks/B spread", bits);
                        if (o->compare)
                            printf(" | %8s %8s %8s |  ours/best", "openssl", "gcrypt", "nettle");
                        if (o->bound)
                            printf(" | bound t/B /bound");
                        printf("\n");
                    }
                    printf("  XTS %s %-8s %7zu %8.3f %5.1f%%", dec ? "dec" : "enc", backend, len,
                           ours->ns_per_byte * tsc,
                           100 * (ours->max_ns - ours->min_ns) / ours->ns_per_byte);
                    if (o->compare) {
                        for (int p = 0; p < XTS_PEER_COUNT; p++)
                            peer[p] < 0 ? printf(" %8s", "n/a") : printf(" %8.3f", peer[p] * tsc);
                        best < 0 ? printf(" | %10s", "n/a")
                                 : printf(" | %10.2f", ours->ns_per_byte / best);
                    }
                    if (o->bound)
                        bound < 0 ? printf(" | %9s %6s", "-", "-")
                                  : printf(" | %9.3f %6.2f", bound * tsc,
                                           ours->ns_per_byte / bound);
                    printf("\n");
                    fflush(stdout);
                }
                bench_xts_close(&set);
            }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    struct bench_clock clock;
    struct bench_bounds bounds;

    parse(argc, argv, &o);
    if (o.peer_no_hw || o.peer_no_aesni)
        peer_gcrypt_disable_hw(!o.peer_no_hw);
    size_t buf_len = o.bytes;
    for (int i = 0; (o.gcm || o.xts || o.short_msgs) && i < o.nsizes; i++)
        buf_len = o.sizes[i] > buf_len ? o.sizes[i] : buf_len;
    /* 64-byte aligned, as the slots are, unless --misalign: a zmm kernel's
     * loads and stores split across cache lines on a buffer that is not
     * (malloc guarantees 16 bytes). */
    bench_misalign = o.misalign;
    uint8_t *buf_base;
    uint8_t *const buf = bench_message_alloc((size_t)o.buffers * BENCH_SLOT(buf_len), &buf_base);
    if (!buf)
        return 1;
    bench_measure_clock(&clock);
    memset(&bounds, 0, sizeof bounds);
    if (o.bound)
        bench_measure_bounds(&bounds, clock.core_ghz);
    const int rc = o.gcm ? run_gcm_table(&o, &clock, buf)
                   : o.xts ? run_xts_table(&o, &clock, buf)
                   : o.setkey ? run_setkey_table(&o, buf)
                   : o.short_msgs ? run_short_tables(&o, &clock, &bounds, buf)
                   : o.sweep ? run_sweep(&o, &clock, buf) : run_table(&o, &clock, &bounds, buf);
    struct bench_clock after;
    bench_measure_clock(&after);
    bench_check_clock(&clock, &after);
    free(buf_base);
    return rc;
}
