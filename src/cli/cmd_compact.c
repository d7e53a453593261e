/* `clprim compact`: stream compaction over generated data, checked against the
 * CPU, timed against a one-thread C loop; or, given a file, over the user's
 * array (cmd_arrays.c).
 *
 *   clprim compact [--device D] [--n N] [--type T] [--repeat R] [--in-place]
 *                  [--lt V | --le V | --gt V | --ge V | --eq V | --ne V | --nonzero
 *                   | --flagged P | --keep "EXPR"]
 *   clprim compact IN [-o OUT] [--type T] [--raw] [--time] [--device D]
 *                  --lt V | ... | --nonzero | --keep "EXPR"
 *
 * Data: integers uniform over [0, 1000) (uint8: [0, 256)), floats the quarters of
 * [0, 1000); --flagged P keeps each element with probability P through a flag
 * buffer. --keep compiles an OpenCL C expression over x (the element) and i (its
 * index); the CPU check evaluates the same expression with a small interpreter
 * (C operators, isnan/isinf/fabs/abs/min/max; integer types in 64-bit integers,
 * float types in double), and the C loop it is timed against selects by the
 * interpreter's precomputed flags (a lower bound for a compiled loop). */
#include "arrays.h"
#include "commands.h"
#include "npy.h"
#include "options.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_float(clprim_type t)
{
    return t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE;
}

/* ---- A small interpreter for --keep: C expressions over x and i ---- */

typedef struct {
    int is_float;
    double f;
    int64_t i;
} value;

typedef struct {
    const char *p;
    int failed;
    char why[160];
    clprim_type t;
    const void *x;
    uint64_t index;
} parser;

static value vint(int64_t i)
{
    return (value){0, (double)i, i};
}

static value vflt(double f)
{
    return (value){1, f, (int64_t)f};
}

static double as_f(value v)
{
    return v.is_float ? v.f : (double)v.i;
}

static int truth(value v)
{
    return v.is_float ? v.f != 0 : v.i != 0;
}

static void skip(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static int eat(parser *ps, const char *op)
{
    skip(ps);
    size_t n = strlen(op);
    if (strncmp(ps->p, op, n))
        return 0;
    /* "<" must not take the first character of "<=" or "<<", and so on. */
    if (n == 1 && (op[0] == '<' || op[0] == '>') && (ps->p[1] == '=' || ps->p[1] == op[0]))
        return 0;
    if (n == 1 && (op[0] == '&' || op[0] == '|') && ps->p[1] == op[0])
        return 0;
    if (n == 1 && (op[0] == '!' || op[0] == '=') && ps->p[1] == '=')
        return 0;
    ps->p += n;
    return 1;
}

static void fail_at(parser *ps, const char *what)
{
    if (!ps->failed)
        snprintf(ps->why, sizeof ps->why, "%s at \"%.20s\"", what, ps->p);
    ps->failed = 1;
}

static value conditional(parser *ps);

static value primary(parser *ps)
{
    skip(ps);
    if (eat(ps, "(")) {
        value v = conditional(ps);
        if (!eat(ps, ")"))
            fail_at(ps, "expected )");
        return v;
    }
    if (isdigit((unsigned char)*ps->p) || (*ps->p == '.' && isdigit((unsigned char)ps->p[1]))) {
        char *end;
        const char *start = ps->p;
        strtod(start, &end);
        int floating = 0;
        for (const char *q = start; q < end; q++)
            if (*q == '.' || *q == 'e' || *q == 'E')
                floating = 1;
        if (start[0] == '0' && (start[1] == 'x' || start[1] == 'X'))
            floating = 0;
        value v;
        if (floating) {
            double d = strtod(start, &end);
            if (*end == 'f' || *end == 'F') {
                d = (float)d;
                end++;
            }
            v = vflt(d);
        } else {
            v = vint((int64_t)strtoull(start, &end, 0));
            while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
                end++;
        }
        ps->p = end;
        return v;
    }
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
        char name[32];
        size_t n = 0;
        while ((isalnum((unsigned char)*ps->p) || *ps->p == '_') && n < sizeof name - 1)
            name[n++] = *ps->p++;
        name[n] = '\0';
        if (!strcmp(name, "x")) {
            if (is_float(ps->t))
                return vflt(cli_load_double(ps->t, ps->x));
            if (ps->t == CLPRIM_UINT64)
                return vint((int64_t) * (const uint64_t *)ps->x);
            if (ps->t == CLPRIM_INT64)
                return vint(*(const int64_t *)ps->x);
            return vint((int64_t)cli_load_double(ps->t, ps->x));
        }
        if (!strcmp(name, "i"))
            return vint((int64_t)ps->index);
        static const char *const functions[] = {"isnan", "isinf", "fabs", "abs", "min", "max"};
        for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++)
            if (!strcmp(name, functions[k])) {
                if (!eat(ps, "("))
                    fail_at(ps, "expected (");
                value a = conditional(ps), b = a;
                if (k >= 4) {
                    if (!eat(ps, ","))
                        fail_at(ps, "expected ,");
                    b = conditional(ps);
                }
                if (!eat(ps, ")"))
                    fail_at(ps, "expected )");
                switch (k) {
                case 0: return vint(isnan(as_f(a)) != 0);
                case 1: return vint(isinf(as_f(a)) != 0);
                case 2: return vflt(fabs(as_f(a)));
                case 3: return a.is_float ? vflt(fabs(a.f)) : vint(a.i < 0 ? -a.i : a.i);
                default: {
                    int floating = a.is_float || b.is_float;
                    int less = floating ? as_f(a) < as_f(b) : a.i < b.i;
                    value lo = less ? a : b, hi = less ? b : a;
                    value r = k == 4 ? lo : hi;
                    return floating ? vflt(as_f(r)) : r;
                }
                }
            }
        fail_at(ps, "unknown name");
        return vint(0);
    }
    fail_at(ps, "unexpected text");
    return vint(0);
}

static value unary(parser *ps)
{
    if (eat(ps, "-")) {
        value v = unary(ps);
        return v.is_float ? vflt(-v.f) : vint((int64_t)(0 - (uint64_t)v.i));
    }
    if (eat(ps, "+"))
        return unary(ps);
    if (eat(ps, "!"))
        return vint(!truth(unary(ps)));
    if (eat(ps, "~")) {
        value v = unary(ps);
        if (v.is_float)
            fail_at(ps, "~ of a float");
        return vint(~v.i);
    }
    return primary(ps);
}

/* Binary operators by precedence, lowest first. */
static const char *const levels[][4] = {{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="},
                                        {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
#define LEVELS (sizeof levels / sizeof levels[0])

static value apply(parser *ps, const char *op, value a, value b)
{
    int floating = a.is_float || b.is_float;
    double x = as_f(a), y = as_f(b);
    int64_t p = a.i, q = b.i;
    if (!strcmp(op, "||")) return vint(truth(a) || truth(b));
    if (!strcmp(op, "&&")) return vint(truth(a) && truth(b));
    if (!strcmp(op, "==")) return vint(floating ? x == y : p == q);
    if (!strcmp(op, "!=")) return vint(floating ? x != y : p != q);
    if (!strcmp(op, "<")) return vint(floating ? x < y : p < q);
    if (!strcmp(op, "<=")) return vint(floating ? x <= y : p <= q);
    if (!strcmp(op, ">")) return vint(floating ? x > y : p > q);
    if (!strcmp(op, ">=")) return vint(floating ? x >= y : p >= q);
    if (!strcmp(op, "+")) return floating ? vflt(x + y) : vint((int64_t)((uint64_t)p + (uint64_t)q));
    if (!strcmp(op, "-")) return floating ? vflt(x - y) : vint((int64_t)((uint64_t)p - (uint64_t)q));
    if (!strcmp(op, "*")) return floating ? vflt(x * y) : vint((int64_t)((uint64_t)p * (uint64_t)q));
    /* As on the device: x / 0 and x % 0 are 0, and lowest / -1 wraps instead of trapping. */
    if (!strcmp(op, "/"))
        return floating ? vflt(x / y) : vint(q == 0 ? 0 : q == -1 ? (int64_t)(0 - (uint64_t)p) : p / q);
    if (floating) {
        fail_at(ps, "an integer operator on a float");
        return vint(0);
    }
    if (!strcmp(op, "%")) return vint(q == 0 || q == -1 ? 0 : p % q);
    if (!strcmp(op, "&")) return vint(p & q);
    if (!strcmp(op, "|")) return vint(p | q);
    if (!strcmp(op, "^")) return vint(p ^ q);
    if (!strcmp(op, "<<")) return vint((int64_t)((uint64_t)p << (q & 63)));
    return vint(p >> (q & 63));
}

static value binary(parser *ps, size_t level)
{
    if (level == LEVELS)
        return unary(ps);
    value v = binary(ps, level + 1);
    for (;;) {
        const char *op = NULL;
        for (size_t k = 0; k < 4 && levels[level][k]; k++)
            if (eat(ps, levels[level][k])) {
                op = levels[level][k];
                break;
            }
        if (!op)
            return v;
        value w = binary(ps, level + 1);
        v = apply(ps, op, v, w);
    }
}

static value conditional(parser *ps)
{
    value c = binary(ps, 0);
    if (!eat(ps, "?"))
        return c;
    value a = conditional(ps);
    if (!eat(ps, ":"))
        fail_at(ps, "expected :");
    value b = conditional(ps);
    return truth(c) ? a : b;
}

/* 1 kept, 0 not, -1 when the interpreter cannot read the expression. */
static int interpret(const char *expr, clprim_type t, const void *x, uint64_t index, char *why, size_t size)
{
    parser ps = {expr, 0, "", t, x, index};
    value v = conditional(&ps);
    skip(&ps);
    if (!ps.failed && *ps.p)
        fail_at(&ps, "unexpected text");
    if (ps.failed) {
        snprintf(why, size, "%s", ps.why);
        return -1;
    }
    return truth(v);
}

/* ---- The command ---- */

/* --lt .. --ne in clprim_keep's order: the predicate is the option's offset from OPT_LT. */
enum { OPT_LT, OPT_LE, OPT_GT, OPT_GE, OPT_EQ, OPT_NE, OPT_NONZERO, OPT_FLAGGED, OPT_KEEP,
       OPT_DEVICE, OPT_N, OPT_TYPE, OPT_REPEAT, OPT_IN_PLACE, OPT_OUTPUT, OPT_RAW, OPT_TIME };
/* What the options apply to: generated data, or a file the user gives. */
enum { GENERATED, FILE_IN };
static const char *const modes[] = {"generated data", "a file"};
static const cli_option options[] = {
    [OPT_LT] = {"lt", 0, "V", "keep x < V", 0},
    [OPT_LE] = {"le", 0, "V", "keep x <= V", 0},
    [OPT_GT] = {"gt", 0, "V", "keep x > V (the default, 500)", 0},
    [OPT_GE] = {"ge", 0, "V", "keep x >= V", 0},
    [OPT_EQ] = {"eq", 0, "V", "keep x == V", 0},
    [OPT_NE] = {"ne", 0, "V", "keep x != V", 0},
    [OPT_NONZERO] = {"nonzero", 0, NULL, "keep x != 0", 0},
    [OPT_FLAGGED] = {"flagged", 0, "P", "keep each element with probability P, through a flag buffer",
                     1u << GENERATED},
    [OPT_KEEP] = {"keep", 0, "EXPR",
                  "keep where the C expression EXPR over x (the element) and i (its index)\n"
                  "is true: numbers, operators, ?:, casts to scalar types and the OpenCL\n"
                  "built-ins listed in clprim.h, e.g. --keep \"x > 50 && (x & 1) == 0\";\n"
                  "integer x / 0 is 0",
                  0},
    [OPT_DEVICE] = {"device", 0, "D", "the OpenCL device (clprim --help)", 0},
    [OPT_N] = {"n", 'n', "N", "elements (default 10000000)", 1u << GENERATED},
    [OPT_TYPE] = {"type", 't', "T",
                  "the type of generated data: int32 (default), uint32, int64, uint64,\n"
                  "float32 (float), float64 (double) or uint8; with IN: IN is raw binary\n"
                  "of type T in the machine's byte order (without it, a .npy file)",
                  0},
    [OPT_REPEAT] = {"repeat", 'r', "R", "timed calls, 1 to 1000 (default 5)", 1u << GENERATED},
    [OPT_IN_PLACE] = {"in-place", 0, NULL, "compact the input buffer into itself", 1u << GENERATED},
    [OPT_OUTPUT] = CLI_ARRAY_OPTION_OUTPUT(1u << FILE_IN),
    [OPT_RAW] = CLI_ARRAY_OPTION_RAW(1u << FILE_IN),
    [OPT_TIME] = CLI_ARRAY_OPTION_TIME(1u << FILE_IN),
};

static const cli_command command = {
    "compact", "[IN]",
    "  copy_if: the elements that pass the predicate, in their order. The last of --lt .. --keep\n"
    "  given picks it.\n"
    "  Without IN, over generated data, checked against the CPU and timed against a C loop: integers\n"
    "  uniform over [0, 1000) (uint8: [0, 256)), floats the quarters of [0, 1000); --gt 500 unless\n"
    "  a predicate is given.\n"
    "  With IN, over your array: a .npy file (np.save), or raw binary with --type; - reads standard\n"
    "  input. An array of more than one dimension is taken as its elements in C order (np.ravel).\n"
    "  The kept elements go to -o OUT (numpy: a[predicate(a)]); the line printed says how many.\n",
    options, sizeof options / sizeof options[0], "compacting", modes,
};

/* The predicate in words, for the printed summary. */
static void describe(clprim_keep keep, double v, double probability, const char *expr, char *what, size_t size)
{
    static const char *const compare_ops[] = {"<", "<=", ">", ">=", "==", "!="};
    if (keep <= CLPRIM_KEEP_NE)
        snprintf(what, size, "x %s %g", compare_ops[keep], v);
    else if (keep == CLPRIM_KEEP_NONZERO)
        snprintf(what, size, "x != 0");
    else if (keep == CLPRIM_KEEP_FLAGGED)
        snprintf(what, size, "flagged with probability %g", probability);
    else
        snprintf(what, size, "%s", expr);
}

static int compare_sort(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int cmd_compact(int argc, char **argv)
{
    const char *expr = NULL;
    const char *n_text = "10000000", *value_option = NULL, *value_text = NULL;
    size_t n, repeat = 5;
    clprim_type t = CLPRIM_INT32;
    clprim_keep keep = CLPRIM_KEEP_GT;
    double v = 500, probability = 0.5;
    int in_place = 0, predicate = 0;
    cli_array_io io = {0};
    static const char *const compare_flags[] = {"--lt", "--le", "--gt", "--ge", "--eq", "--ne"};
    cli_parser p;
    cli_begin(&p, &command, argc, argv);
    for (int opt; (opt = cli_next(&p)) >= 0;) {
        int ok = 1;
        predicate |= opt <= OPT_KEEP;
        if (opt <= OPT_NE) {
            ok = cli_parse_double("compact", compare_flags[opt], p.value, -DBL_MAX, DBL_MAX, 0, &v);
            value_option = compare_flags[opt], value_text = p.value;
            keep = (clprim_keep)(opt - OPT_LT);
        } else if (opt == OPT_NONZERO) {
            keep = CLPRIM_KEEP_NONZERO;
        } else if (opt == OPT_FLAGGED) {
            keep = CLPRIM_KEEP_FLAGGED;
            ok = cli_parse_double("compact", "--flagged", p.value, 0, 1, 0, &probability);
        } else if (opt == OPT_KEEP) {
            keep = CLPRIM_KEEP_EXPRESSION, expr = p.value;
        } else if (opt == OPT_N) {
            n_text = p.value; /* checked below, against the element size of --type */
        } else if (opt == OPT_REPEAT) {
            ok = cli_parse_count("compact", "--repeat", p.value, 1, 1000, 1, &repeat);
        } else if (opt == OPT_IN_PLACE) {
            in_place = 1;
        } else {
            ok = cli_array_option(&io, "compact", options[opt].name, p.value);
            t = io.type;
        }
        if (!ok)
            return 2;
    }
    const int ended = cli_end(&p, p.nargs > 0);
    if (ended >= 0)
        return ended;
    char what[300];
    if (p.nargs) {
        if (cli_warn_mode(&p, FILE_IN))
            return 2;
        if (!predicate)
            return cli_usage_error(&p, "compact IN needs a predicate: --keep EXPR, --gt V, ... or --nonzero");
        io.in = p.args[0];
        describe(keep, v, probability, expr, what, sizeof what);
        const cli_compact_keep k = {keep, v, value_option, value_text, expr, what};
        return cli_compact_array(&io, &k);
    }
    if (cli_warn_mode(&p, GENERATED))
        return 2;
    const size_t es = cli_type_size(t);
    const char *type_name = cli_type_name(t);
    if (!cli_parse_count("compact", "--n", n_text, 1, SIZE_MAX, es, &n))
        return 2;
    if (keep <= CLPRIM_KEEP_NE && !cli_fits_double(t, v)) {
        if (value_option) {
            fprintf(stderr, "clprim compact: %s %s: outside the range of %s\n", value_option, value_text,
                    type_name);
            return 2;
        }
        v = 128; /* the default 500 is above every uint8: keep the upper half instead */
    }

    /* Data, flags and the comparison value. */
    unsigned char *data = malloc(n * es), *out = malloc(n * es), *expect = malloc(n * es);
    unsigned char *flags = keep == CLPRIM_KEEP_FLAGGED || keep == CLPRIM_KEEP_EXPRESSION ? malloc(n) : NULL;
    if (!data || !out || !expect || ((keep == CLPRIM_KEEP_FLAGGED || keep == CLPRIM_KEEP_EXPRESSION) && !flags)) {
        fprintf(stderr, "clprim compact: out of host memory for %zu elements\n", n);
        free(data), free(out), free(expect), free(flags);
        return 1;
    }
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
        uint64_t r = state * 0x2545F4914F6CDD1Dull;
        double x = is_float(t) ? (double)(r % 4000) / 4 : t == CLPRIM_UINT8 ? (double)(r % 256) : (double)(r % 1000);
        cli_store_double(t, x, data + i * es);
        if (keep == CLPRIM_KEEP_FLAGGED)
            flags[i] = (double)(r >> 40) / 16777216.0 < probability;
    }
    unsigned char value_bytes[8] = {0};
    cli_store_double(t, v, value_bytes);

    /* The CPU's answer, and for expressions the interpreter's flags. */
    char why[256] = "";
    int interpreted = 1;
    if (keep == CLPRIM_KEEP_EXPRESSION)
        for (size_t i = 0; i < n; i++) {
            int k = interpret(expr, t, data + i * es, i, why, sizeof why);
            if (k < 0) {
                interpreted = 0;
                break;
            }
            flags[i] = (unsigned char)k;
        }

    clprim_context *ctx = cli_open(io.device);
    if (!ctx) {
        free(data), free(out), free(expect), free(flags);
        return 1;
    }
    cl_context cl = clprim_cl_context(ctx);
    cl_int err;
    cl_mem src = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * es, data, &err);
    cl_mem dst = in_place ? src : clCreateBuffer(cl, CL_MEM_READ_WRITE, n * es, NULL, &err);
    cl_mem fbuf = keep == CLPRIM_KEEP_FLAGGED
                      ? clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n, flags, &err)
                      : NULL;
    int status = 1;
    if (!src || !dst || (keep == CLPRIM_KEEP_FLAGGED && !fbuf)) {
        fprintf(stderr, "clprim compact: cannot allocate %zu bytes on the device\n", n * es);
        goto done;
    }
    clprim_predicate pred = {keep, value_bytes, fbuf, 0, expr};

    describe(keep, v, probability, expr, what, sizeof what);
    printf("compact %s, n = %zu, keep %s%s\n", type_name, n, what, in_place ? ", in place" : "");
    char dev_name[256] = "";
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_NAME, sizeof dev_name, dev_name, NULL);
    printf("device: %s\n", dev_name);

    /* First call: builds (or loads) the kernels. In place rewrites the input,
     * so every timed run starts from a fresh upload. */
    size_t kept = 0;
    double times[1000];
    clprim_status s = CLPRIM_SUCCESS;
    double first = 0;
    for (size_t r = 0; r <= repeat && s == CLPRIM_SUCCESS; r++) {
        if (in_place && r > 0)
            clEnqueueWriteBuffer(clprim_queue(ctx), src, CL_TRUE, 0, n * es, data, 0, NULL, NULL);
        clFinish(clprim_queue(ctx));
        double start = cli_now();
        s = clprim_compact(ctx, t, &pred, src, 0, dst, 0, n, &kept, NULL, 0, 0, NULL, NULL);
        double took = cli_now() - start;
        if (r == 0)
            first = took;
        else
            times[r - 1] = took;
    }
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim compact: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
        goto done;
    }
    qsort(times, repeat, sizeof times[0], compare_sort);
    double device_s = times[repeat / 2];
    clEnqueueReadBuffer(clprim_queue(ctx), dst, CL_TRUE, 0, kept * es, out, 0, NULL, NULL);

    /* The one-thread C loop (run twice: the first touches the pages). */
    size_t want = 0;
    double cpu_s = 0;
    if (keep != CLPRIM_KEEP_EXPRESSION || interpreted) {
        for (int pass = 0; pass < 2; pass++) {
            double start = cli_now();
            want = 0;
            if (keep == CLPRIM_KEEP_FLAGGED || keep == CLPRIM_KEEP_EXPRESSION) {
                for (size_t i = 0; i < n; i++)
                    if (flags[i])
                        memcpy(expect + want++ * es, data + i * es, es);
            } else {
#define SELECT(T)                                                                 \
    do {                                                                          \
        const T *x = (const T *)data;                                             \
        T *y = (T *)expect, c;                                                    \
        memcpy(&c, value_bytes, sizeof c);                                        \
        switch (keep) {                                                           \
        case CLPRIM_KEEP_LT: for (size_t i = 0; i < n; i++) if (x[i] < c) y[want++] = x[i]; break;  \
        case CLPRIM_KEEP_LE: for (size_t i = 0; i < n; i++) if (x[i] <= c) y[want++] = x[i]; break; \
        case CLPRIM_KEEP_GT: for (size_t i = 0; i < n; i++) if (x[i] > c) y[want++] = x[i]; break;  \
        case CLPRIM_KEEP_GE: for (size_t i = 0; i < n; i++) if (x[i] >= c) y[want++] = x[i]; break; \
        case CLPRIM_KEEP_EQ: for (size_t i = 0; i < n; i++) if (x[i] == c) y[want++] = x[i]; break; \
        case CLPRIM_KEEP_NE: for (size_t i = 0; i < n; i++) if (x[i] != c) y[want++] = x[i]; break; \
        default: for (size_t i = 0; i < n; i++) if (x[i] != 0) y[want++] = x[i]; break;             \
        }                                                                         \
    } while (0)
                switch (t) {
                case CLPRIM_INT32: SELECT(int32_t); break;
                case CLPRIM_UINT32: SELECT(uint32_t); break;
                case CLPRIM_INT64: SELECT(int64_t); break;
                case CLPRIM_UINT64: SELECT(uint64_t); break;
                case CLPRIM_FLOAT: SELECT(float); break;
                case CLPRIM_DOUBLE: SELECT(double); break;
                case CLPRIM_UINT8: SELECT(uint8_t); break;
                }
#undef SELECT
            }
            cpu_s = cli_now() - start;
        }
    }

    printf("kept %zu of %zu (%.2f%%)\n", kept, n, 100.0 * (double)kept / (double)n);
    printf("first call %.1f ms (includes building or loading the kernels)\n", first * 1e3);
    if (keep != CLPRIM_KEEP_EXPRESSION || interpreted)
        printf("device %.3f ms (median of %zu, count read back), one-thread C loop %.3f ms%s: %.2fx\n",
               device_s * 1e3, repeat, cpu_s * 1e3,
               keep == CLPRIM_KEEP_EXPRESSION ? " (selecting by precomputed flags)" : "", cpu_s / device_s);
    else
        printf("device %.3f ms (median of %zu); no C loop: the CPU interpreter cannot read the expression (%s)\n",
               device_s * 1e3, repeat, why);

    /* The check. */
    if (keep != CLPRIM_KEEP_EXPRESSION || interpreted) {
        if (kept != want) {
            printf("check: FAILED, the device kept %zu, the CPU %zu%s\n", kept, want,
                   keep == CLPRIM_KEEP_EXPRESSION ? " (the CPU evaluates in 64-bit integers or double)" : "");
            goto done;
        }
        for (size_t i = 0; i < kept; i++)
            if (memcmp(out + i * es, expect + i * es, es)) {
                printf("check: FAILED at output %zu: device %g, CPU %g\n", i, cli_load_double(t, out + i * es),
                       cli_load_double(t, expect + i * es));
                goto done;
            }
        printf("check: ok, the same %zu elements in the same order as the CPU\n", kept);
    } else {
        /* Without the predicate: the output must be an ordered subsequence of the input. */
        size_t j = 0;
        for (size_t i = 0; i < n && j < kept; i++)
            if (!memcmp(data + i * es, out + j * es, es))
                j++;
        if (j != kept) {
            printf("check: FAILED, output %zu is not in input order\n", j);
            goto done;
        }
        printf("check: partial, the output is an ordered subsequence of the input\n");
    }
    status = 0;
done:
    if (dst && dst != src)
        clReleaseMemObject(dst);
    if (src)
        clReleaseMemObject(src);
    if (fbuf)
        clReleaseMemObject(fbuf);
    clprim_release(ctx);
    free(data), free(out), free(expect), free(flags);
    return status;
}
