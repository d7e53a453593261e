/* The array commands: `clprim sort`, `scan`, `reduce`, `unique`, and the array
 * forms of `compact` and `histogram` (arrays.h), on .npy or raw files (npy.h).
 *
 * One path serves them all (run): read the input, open the device, upload,
 * run the primitive (twice with --time: the first call builds the kernels),
 * read the results back, write every output or none, print a one-line
 * summary. What differs per command is a row of `kinds`: the types it takes,
 * its host-side checks, its buffers, its call, its results and its summary. */
#include "arrays.h"
#include "commands.h"
#include "image.h"
#include "npy.h"
#include "options.h"
#include "output.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BIT(t) (1u << (t))
#define KEY_TYPES (BIT(CLPRIM_INT32) | BIT(CLPRIM_UINT32) | BIT(CLPRIM_INT64) | BIT(CLPRIM_UINT64))
#define SORT_TYPES (KEY_TYPES | BIT(CLPRIM_FLOAT) | BIT(CLPRIM_DOUBLE))
#define ALL_TYPES (SORT_TYPES | BIT(CLPRIM_UINT8))

typedef struct job job;

typedef struct {
    const char *name;
    unsigned types;          /* bit t: takes clprim_type t */
    const char *types_text;  /* what it takes, for the refusal */
    int (*check)(job *j);    /* host-side checks once IN is read: an exit code, or -1 to go on */
    int (*setup)(job *j);    /* device buffers and what the call needs: 0, or an exit code after saying why */
    clprim_status (*call)(job *j);
    int (*results)(job *j);  /* read back into j->outs: 0, or -1 after saying why */
    void (*summary)(job *j); /* the line (reduce: then the value; histogram: then its table without -o) */
} kind;

/* A file to write, from host memory. */
typedef struct {
    const char *path;
    clprim_type type;
    void *data;
    size_t n;
    int npy;
    cli_output file;
} output;

/* Where the count of elements below a histogram edge comes from. */
typedef struct {
    enum { BELOW_NONE, BELOW_ALL, BELOW_DEVICE } from; /* 0; every element; a device edge */
    int with_inf; /* the closed last edge +inf: add the elements that are +inf */
    size_t index; /* the device edge */
} below;

struct job {
    const kind *kind;
    cli_array_io io;
    cli_array in;
    clprim_context *ctx;
    char device[256];
    cl_mem src, dst, aux, count; /* IN; the result; a second input or output; a count */
    cl_mem bufs[6];
    int nbufs;
    output outs[2];
    int nouts;
    double device_ms;
    /* sort */
    int descending;
    const char *values, *values_out;
    int values_raw;
    clprim_type values_type;
    cli_array vals;
    cl_mem values_dst;
    /* scan, reduce */
    clprim_op op;
    int exclusive;
    unsigned char result[8];
    /* unique */
    const char *counts_out;
    /* compact */
    const cli_compact_keep *keep;
    unsigned char keep_value[8];
    /* compact, unique: elements kept, runs */
    size_t kept;
    /* histogram: bins between edges[0 .. bins], compared as numpy does */
    const char *edges_text, *range_text;
    size_t bins;
    double *edges;
    int uniform;
    double lo, hi; /* --range */
    below *below;
    size_t device_edges;
    int64_t *hist;
};

static void say(const job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "clprim %s: ", j->kind->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static cl_mem buffer(job *j, size_t bytes, const void *host)
{
    cl_int err;
    cl_mem b = clCreateBuffer(clprim_cl_context(j->ctx), CL_MEM_READ_WRITE | (host && bytes ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 1, host && bytes ? (void *)host : NULL, &err);
    if (!b)
        say(j, "cannot allocate %zu bytes on the device (OpenCL error %d)", bytes, err);
    else
        j->bufs[j->nbufs++] = b;
    return b;
}

/* bytes of b, read into new host memory; NULL after saying why. */
static void *read_back(job *j, cl_mem b, size_t bytes)
{
    void *host = malloc(bytes ? bytes : 1);
    if (!host) {
        say(j, "out of host memory for %zu bytes of results", bytes);
        return NULL;
    }
    cl_int err = bytes ? clEnqueueReadBuffer(clprim_queue(j->ctx), b, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                       : CL_SUCCESS;
    if (err != CL_SUCCESS) {
        say(j, "reading the result back failed (OpenCL error %d)", err);
        free(host);
        return NULL;
    }
    return host;
}

/* Reads n elements of type t from b into the output path (nothing when path is NULL). */
static int add_output(job *j, const char *path, cl_mem b, size_t n, clprim_type t, int input_npy)
{
    if (!path)
        return 0;
    void *data = read_back(j, b, n * cli_type_size(t));
    if (!data)
        return -1;
    j->outs[j->nouts++] = (output){path, t, data, n, cli_array_out_is_npy(path, j->io.raw_out, input_npy), {0}};
    return 0;
}

static const char *in_name(const job *j)
{
    return cli_input_name(j->io.in);
}

static int status_failed(job *j, clprim_status s)
{
    say(j, "%s: %s", clprim_status_name(s), clprim_last_error(j->ctx));
    return 1;
}

/* ---- sort ---- */

static int sort_check(job *j)
{
    if (!j->values)
        return -1;
    char why[1024];
    if (cli_array_read(j->values, j->values_raw, j->values_type, &j->vals, why, sizeof why) != 0) {
        say(j, "%s", why);
        return 1;
    }
    if (cli_type_size(j->vals.type) == 1) {
        say(j, "%s holds uint8 values: values are of 4 or 8 bytes", cli_input_name(j->values));
        return j->values_raw ? 2 : 1;
    }
    if (j->vals.n != j->in.n) {
        say(j, "%s holds %zu values for the %zu keys of %s", cli_input_name(j->values), j->vals.n, j->in.n,
            in_name(j));
        return 1;
    }
    return -1;
}

static int sort_setup(job *j)
{
    const size_t n = j->in.n, vs = j->values ? cli_type_size(j->vals.type) : 0;
    j->dst = buffer(j, n * cli_type_size(j->in.type), NULL);
    if (j->dst && j->values && (j->aux = buffer(j, n * vs, j->vals.data)))
        j->values_dst = buffer(j, n * vs, NULL);
    return j->dst && (!j->values || j->values_dst) ? 0 : 1;
}

static clprim_status sort_call(job *j)
{
    const clprim_sort_order order = {j->descending, 0, 0};
    if (!j->values)
        return clprim_sort_keys(j->ctx, j->in.type, &order, j->src, 0, j->dst, 0, j->in.n, 0, NULL, NULL);
    return clprim_sort_pairs(j->ctx, j->in.type, j->vals.type, &order, j->src, 0, j->dst, 0, j->aux, 0,
                             j->values_dst, 0, j->in.n, 0, NULL, NULL);
}

static int sort_results(job *j)
{
    if (add_output(j, j->io.out, j->dst, j->in.n, j->in.type, j->in.npy) != 0)
        return -1;
    return add_output(j, j->values_out, j->values_dst, j->in.n, j->vals.type, j->vals.npy);
}

static void sort_summary(job *j)
{
    char with[64] = "";
    if (j->values)
        snprintf(with, sizeof with, " with %s values", cli_type_name(j->vals.type));
    printf("sort (%s, stable): %zu %s keys%s from %s, on %s\n", j->descending ? "descending" : "ascending", j->in.n,
           cli_type_name(j->in.type), with, in_name(j), j->device);
}

/* ---- scan ---- */

static const char *const op_names[] = {"sum", "min", "max"};

static int scan_setup(job *j)
{
    j->dst = buffer(j, j->in.n * cli_type_size(j->in.type), NULL);
    return j->dst ? 0 : 1;
}

static clprim_status scan_call(job *j)
{
    return clprim_scan(j->ctx, j->in.type, j->op, j->exclusive, j->src, 0, j->dst, 0, j->in.n, 0, NULL, NULL);
}

static int scan_results(job *j)
{
    return add_output(j, j->io.out, j->dst, j->in.n, j->in.type, j->in.npy);
}

static void scan_summary(job *j)
{
    printf("scan (%s %s): %zu %s from %s, on %s\n", j->exclusive ? "exclusive" : "inclusive", op_names[j->op],
           j->in.n, cli_type_name(j->in.type), in_name(j), j->device);
}

/* ---- reduce ---- */

static int reduce_setup(job *j)
{
    j->dst = buffer(j, cli_type_size(j->in.type), NULL);
    return j->dst ? 0 : 1;
}

static clprim_status reduce_call(job *j)
{
    return clprim_reduce_to(j->ctx, j->in.type, j->op, NULL, j->src, 0, j->in.n, j->dst, 0, 0, NULL, NULL);
}

static int reduce_results(job *j)
{
    void *r = read_back(j, j->dst, cli_type_size(j->in.type));
    if (!r)
        return -1;
    memcpy(j->result, r, cli_type_size(j->in.type));
    free(r);
    return 0;
}

/* The value as text that reads back to the same bits (floats: 9 or 17 digits). */
static void format_value(clprim_type t, const void *p, char *out, size_t size)
{
    union { int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f; double d; uint8_t u8; } v;
    memcpy(&v, p, cli_type_size(t));
    switch (t) {
    case CLPRIM_INT32: snprintf(out, size, "%" PRId32, v.i32); break;
    case CLPRIM_UINT32: snprintf(out, size, "%" PRIu32, v.u32); break;
    case CLPRIM_INT64: snprintf(out, size, "%" PRId64, v.i64); break;
    case CLPRIM_UINT64: snprintf(out, size, "%" PRIu64, v.u64); break;
    case CLPRIM_FLOAT: snprintf(out, size, "%.9g", v.f); break;
    case CLPRIM_DOUBLE: snprintf(out, size, "%.17g", v.d); break;
    case CLPRIM_UINT8: snprintf(out, size, "%u", v.u8); break;
    }
}

static void reduce_summary(job *j)
{
    char value[64];
    format_value(j->in.type, j->result, value, sizeof value);
    printf("reduce (%s): %zu %s from %s, on %s\n%s\n", op_names[j->op], j->in.n, cli_type_name(j->in.type),
           in_name(j), j->device, value);
}

/* ---- unique and compact: a count on the device, then that many elements ---- */

static int counted_setup(job *j)
{
    const size_t n = j->in.n;
    j->dst = buffer(j, n * cli_type_size(j->in.type), NULL);
    j->count = j->dst ? buffer(j, sizeof(cl_ulong), NULL) : NULL;
    if (j->count && j->counts_out)
        j->aux = buffer(j, n * sizeof(cl_ulong), NULL); /* run lengths */
    return j->count && (!j->counts_out || j->aux) ? 0 : 1;
}

static clprim_status unique_call(job *j)
{
    if (j->counts_out)
        return clprim_run_length_encode(j->ctx, j->in.type, j->src, 0, j->in.n, j->dst, 0, j->aux, 0, NULL,
                                        j->count, 0, 0, NULL, NULL);
    return clprim_unique(j->ctx, j->in.type, j->src, 0, j->in.n, j->dst, 0, NULL, j->count, 0, 0, NULL, NULL);
}

static int counted_results(job *j)
{
    cl_ulong *count = read_back(j, j->count, sizeof *count);
    if (!count)
        return -1;
    j->kept = (size_t)*count;
    free(count);
    if (add_output(j, j->io.out, j->dst, j->kept, j->in.type, j->in.npy) != 0)
        return -1;
    /* Run lengths as numpy's return_counts gives them: int64 (the same bits below 2^63). */
    return add_output(j, j->counts_out, j->aux, j->kept, CLPRIM_INT64, j->in.npy);
}

static void unique_summary(job *j)
{
    printf("unique (adjacent duplicates removed): %zu runs in %zu %s from %s, on %s\n", j->kept, j->in.n,
           cli_type_name(j->in.type), in_name(j), j->device);
}

static int compact_check(job *j)
{
    const cli_compact_keep *k = j->keep;
    if (k->keep <= CLPRIM_KEEP_NE) {
        if (!cli_fits_double(j->in.type, k->value)) {
            say(j, "%s %s: outside the range of %s", k->option, k->text, cli_type_name(j->in.type));
            return 2;
        }
        cli_store_double(j->in.type, k->value, j->keep_value);
    }
    return -1;
}

static clprim_status compact_call(job *j)
{
    const clprim_predicate keep = {j->keep->keep, j->keep_value, NULL, 0, j->keep->expression};
    return clprim_compact(j->ctx, j->in.type, &keep, j->src, 0, j->dst, 0, j->in.n, NULL, j->count, 0, 0, NULL,
                          NULL);
}

static void compact_summary(job *j)
{
    printf("compact (keep %s): kept %zu of %zu %s from %s, on %s\n", j->keep->what, j->kept, j->in.n,
           cli_type_name(j->in.type), in_name(j), j->device);
}

/* ---- histogram ----
 * numpy's np.histogram counts element x in bin b when edges[b] <= x <
 * edges[b + 1], the last bin closed (x <= edges[B]), comparing in the common
 * type of the data and the edges; its even bins are edges too (linspace, in
 * double, rounded to float32 for float32 data). The library's own even bins put
 * an element on a computed edge where its arithmetic does, so for numpy's
 * counts every form goes through clprim_histogram_range: each edge becomes the
 * first value of the data's type that the comparison does not count below it
 * (a threshold), the thresholds are the device's edges, and a bin's count is
 * the difference of the counts below its two edges. */

/* The first float32 at or above e, and the last at or below it. */
static float float_at_or_above(double e)
{
    if (e > FLT_MAX)
        return INFINITY;
    if (e < -FLT_MAX)
        return isinf(e) ? -INFINITY : -FLT_MAX;
    float f = (float)e;
    return (double)f < e ? nextafterf(f, INFINITY) : f;
}

static float float_at_or_below(double e)
{
    if (e < -FLT_MAX)
        return -INFINITY;
    if (e > FLT_MAX)
        return isinf(e) ? INFINITY : FLT_MAX;
    float f = (float)e;
    return (double)f > e ? nextafterf(f, -INFINITY) : f;
}

/* e rounded to float32 as numpy's astype does (to nearest, overflowing to inf). */
static double round_to_float(double e)
{
    const double limit = ldexp(2.0 - ldexp(1.0, -24), 127); /* FLT_MAX and half its ulp */
    return fabs(e) >= limit ? copysign(INFINITY, e) : (double)(float)e;
}

/* The type's lowest value, and its highest plus one (integers: powers of two, exact). */
static double type_lowest(clprim_type t)
{
    switch (t) {
    case CLPRIM_INT32: return -2147483648.0;
    case CLPRIM_INT64: return -9223372036854775808.0;
    case CLPRIM_FLOAT:
    case CLPRIM_DOUBLE: return -INFINITY;
    default: return 0.0;
    }
}

static double type_above(clprim_type t)
{
    switch (t) {
    case CLPRIM_INT32: return 2147483648.0;
    case CLPRIM_UINT32: return 4294967296.0;
    case CLPRIM_INT64: return 9223372036854775808.0;
    case CLPRIM_UINT64: return 18446744073709551616.0;
    case CLPRIM_UINT8: return 256.0;
    default: return INFINITY;
    }
}

/* value + 1 in integer type t; 0 when value is the type's highest. */
#define INCREMENT(T, HIGHEST)              \
    do {                                   \
        T x;                               \
        memcpy(&x, value, sizeof x);       \
        if (x == HIGHEST)                  \
            return 0;                      \
        x++;                               \
        memcpy(value, &x, sizeof x);       \
        return 1;                          \
    } while (0)
static int increment(clprim_type t, unsigned char *value)
{
    switch (t) {
    case CLPRIM_INT32: INCREMENT(int32_t, INT32_MAX);
    case CLPRIM_UINT32: INCREMENT(uint32_t, UINT32_MAX);
    case CLPRIM_INT64: INCREMENT(int64_t, INT64_MAX);
    case CLPRIM_UINT64: INCREMENT(uint64_t, UINT64_MAX);
    default: INCREMENT(uint8_t, UINT8_MAX);
    }
}
#undef INCREMENT

/* The threshold of edge e: the elements counted below it are those < value
 * (of type t); for the closed last edge, those <= e. */
static below threshold(clprim_type t, double e, int closed, unsigned char *value)
{
    below b = {BELOW_DEVICE, 0, 0};
    if (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE) {
        double v;
        if (!closed) {
            v = t == CLPRIM_FLOAT ? float_at_or_above(e) : e;
        } else {
            v = t == CLPRIM_FLOAT ? float_at_or_below(e) : e;
            if (isinf(v) && v > 0)
                b.with_inf = 1; /* nothing lies above +inf: count those below it, then add the +inf ones */
            else
                v = t == CLPRIM_FLOAT ? nextafterf((float)v, INFINITY) : nextafter(v, INFINITY);
        }
        cli_store_double(t, v, value);
        return b;
    }
    /* Integers: x < e means x < ceil(e); x <= e means x < floor(e) + 1. */
    const double whole = closed ? floor(e) : ceil(e);
    if (closed ? whole < type_lowest(t) : whole <= type_lowest(t))
        b.from = BELOW_NONE;
    else if (whole >= type_above(t))
        b.from = BELOW_ALL;
    else {
        cli_store_double(t, whole, value);
        if (closed && !increment(t, value))
            b.from = BELOW_ALL;
    }
    return b;
}

static int same_value(clprim_type t, const unsigned char *a, const unsigned char *b)
{
    if (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE)
        return cli_load_double(t, a) == cli_load_double(t, b); /* -0.0 is +0.0 */
    return !memcmp(a, b, cli_type_size(t));
}

/* Numbers separated by commas, the whole text: "0,1,2.5". 0 when it is not that. */
static int parse_numbers(const char *text, double **out, size_t *count)
{
    size_t cap = 1;
    for (const char *c = text; *c; c++)
        cap += *c == ',';
    double *v = malloc(cap * sizeof *v);
    if (!v)
        return 0;
    size_t n = 0;
    for (const char *p = text;; p++) {
        char *end;
        errno = 0;
        v[n] = strtod(p, &end);
        if (end == p || errno == ERANGE || (*end && *end != ','))
            break;
        n++;
        if (!*end) {
            *out = v, *count = n;
            return 1;
        }
        p = end;
    }
    free(v);
    return 0;
}

/* numpy's checks of bins given as edges. */
static int check_edges(job *j, const char *source)
{
    if (j->bins < 1) {
        say(j, "%s: want at least two edges (one bin)", source);
        return 0;
    }
    if (j->bins > 2147483647u) {
        say(j, "%s: more than 2^31 - 1 bins", source);
        return 0;
    }
    for (size_t k = 0; k <= j->bins; k++)
        if (isnan(j->edges[k]) || (k && j->edges[k] < j->edges[k - 1])) {
            say(j, "%s: the edges must increase monotonically%s", source,
                isnan(j->edges[k]) ? " (NaN is no edge)" : "");
            return 0;
        }
    return 1;
}

static int histogram_check(job *j)
{
    if (j->in.n > UINT32_MAX) {
        say(j, "%s: %zu elements: the device counts in 32 bits, so at most 2^32 - 1", in_name(j), j->in.n);
        return 1;
    }
    if (j->edges || !j->edges_text)
        return -1;
    /* --edges FILE: a .npy file of any dtype clprim reads, taken as numbers. */
    char why[1024];
    cli_array e;
    if (cli_array_read(j->edges_text, 0, CLPRIM_DOUBLE, &e, why, sizeof why) != 0) {
        say(j, "--edges %s", why);
        return 1;
    }
    j->edges = malloc((e.n ? e.n : 1) * sizeof *j->edges);
    if (!j->edges) {
        cli_array_free(&e);
        say(j, "out of host memory for %zu edges", e.n);
        return 1;
    }
    const size_t es = cli_type_size(e.type);
    for (size_t k = 0; k < e.n; k++)
        j->edges[k] = cli_load_double(e.type, (const unsigned char *)e.data + k * es);
    j->bins = e.n ? e.n - 1 : 0;
    cli_array_free(&e);
    return check_edges(j, cli_input_name(j->edges_text)) ? -1 : 1;
}

/* numpy's even bins: np.linspace(lo, hi, bins + 1) in double, rounded to float32 for float32 data. */
static int even_edges(job *j)
{
    const clprim_type t = j->in.type;
    double lo = j->lo, hi = j->hi;
    if (!j->range_text && !j->in.n) /* numpy's range for no data */
        lo = 0, hi = 1;
    if (!j->range_text && j->in.n) { /* the data's smallest and largest numbers */
        unsigned char min[8], max[8];
        clprim_status s = clprim_reduce(j->ctx, t, CLPRIM_MIN, j->src, 0, j->in.n, min, 0, NULL);
        if (s == CLPRIM_SUCCESS)
            s = clprim_reduce(j->ctx, t, CLPRIM_MAX, j->src, 0, j->in.n, max, 0, NULL);
        if (s != CLPRIM_SUCCESS)
            return status_failed(j, s);
        lo = cli_load_double(t, min), hi = cli_load_double(t, max);
        if (isnan(lo)) {
            say(j, "%s: every element is NaN: no range to split into bins (give --range LO,HI)", in_name(j));
            return 1;
        }
        if (isinf(lo) || isinf(hi)) {
            say(j, "%s: the data's range [%g, %g] is not finite (give --range LO,HI)", in_name(j), lo, hi);
            return 1;
        }
    }
    if (lo == hi) /* as numpy widens an empty range */
        lo -= 0.5, hi += 0.5;
    const size_t bins = j->bins;
    if (!(j->edges = malloc((bins + 1) * sizeof *j->edges))) {
        say(j, "out of host memory for %zu edges", bins + 1);
        return 1;
    }
    const double delta = hi - lo, step = delta / (double)bins;
    for (size_t k = 0; k <= bins; k++) {
        double y = step == 0 ? (double)k / (double)bins * delta + lo : (double)k * step + lo;
        if (k == bins)
            y = hi;
        j->edges[k] = t == CLPRIM_FLOAT ? round_to_float(y) : y;
    }
    return 0;
}

static int histogram_setup(job *j)
{
    const clprim_type t = j->in.type;
    const size_t es = cli_type_size(t), bins = j->bins;
    int rc = j->uniform ? even_edges(j) : 0;
    if (rc != 0)
        return rc;
    /* The device's edges: the type's lowest value (nothing lies below it),
     * then each edge's threshold, once. */
    unsigned char *values = malloc((bins + 2) * es);
    j->below = malloc((bins + 1) * sizeof *j->below);
    if (!values || !j->below) {
        free(values);
        say(j, "out of host memory for %zu edges", bins + 1);
        return 1;
    }
    cli_store_double(t, type_lowest(t), values);
    size_t m = 1;
    for (size_t k = 0; k <= bins; k++) {
        unsigned char v[8];
        below b = threshold(t, j->edges[k], k == bins, v);
        if (b.from == BELOW_DEVICE) {
            if (!same_value(t, values + (m - 1) * es, v))
                memcpy(values + m++ * es, v, es);
            b.index = m - 1;
        }
        j->below[k] = b;
    }
    j->device_edges = m;
    if (m >= 2 && (j->aux = buffer(j, m * es, values)))
        j->dst = buffer(j, (m - 1) * sizeof(cl_uint), NULL);
    free(values);
    return m < 2 || j->dst ? 0 : 1;
}

static clprim_status histogram_call(job *j)
{
    if (j->device_edges < 2) /* every edge lies beyond the type's range */
        return CLPRIM_SUCCESS;
    return clprim_histogram_range(j->ctx, j->in.type, j->src, 0, j->in.n, j->aux, 0, j->device_edges - 1, j->dst, 0,
                                  0, 0, NULL, NULL);
}

static int histogram_results(job *j)
{
    const size_t m = j->device_edges, bins = j->bins;
    cl_uint *h = m >= 2 ? read_back(j, j->dst, (m - 1) * sizeof *h) : NULL;
    uint64_t *under = malloc(m * sizeof *under); /* elements below device edge i */
    j->hist = malloc(bins * sizeof *j->hist);
    if ((m >= 2 && !h) || !under || !j->hist) {
        if (h && under)
            say(j, "out of host memory for %zu bins", bins);
        free(h), free(under);
        return -1;
    }
    under[0] = 0;
    for (size_t i = 1; i < m; i++)
        under[i] = under[i - 1] + h[i - 1];
    size_t infinite = 0;
    if (j->below[bins].with_inf)
        for (size_t i = 0; i < j->in.n; i++) {
            double x = cli_load_double(j->in.type, (const unsigned char *)j->in.data + i * cli_type_size(j->in.type));
            infinite += isinf(x) && x > 0;
        }
    uint64_t previous = 0;
    for (size_t k = 0; k <= bins; k++) {
        const below *b = &j->below[k];
        uint64_t c = b->from == BELOW_NONE ? 0 : b->from == BELOW_ALL ? j->in.n : under[b->index];
        c += b->with_inf ? infinite : 0;
        if (k)
            j->hist[k - 1] = (int64_t)(c - previous);
        previous = c;
    }
    free(h), free(under);
    if (j->io.out) { /* numpy's counts are int64 */
        j->outs[j->nouts++] = (output){j->io.out, CLPRIM_INT64, j->hist, bins,
                                       cli_array_out_is_npy(j->io.out, j->io.raw_out, j->in.npy), {0}};
        j->hist = NULL;
    }
    return 0;
}

static void histogram_summary(job *j)
{
    char bins[96];
    const char *plural = j->bins == 1 ? "" : "s";
    if (j->uniform)
        snprintf(bins, sizeof bins, "%zu bin%s over [%g, %g]", j->bins, plural, j->edges[0], j->edges[j->bins]);
    else
        snprintf(bins, sizeof bins, "%zu bin%s between the edges given", j->bins, plural);
    printf("histogram (%s): %zu %s from %s, on %s\n", bins, j->in.n, cli_type_name(j->in.type), in_name(j),
           j->device);
    if (!j->hist)
        return;
    printf("%16s %16s %12s   (a bin counts from <= x < to; the last also x == to)\n", "from", "to", "count");
    for (size_t b = 0; b < j->bins; b++)
        printf("%16.9g %16.9g %12" PRId64 "\n", j->edges[b], j->edges[b + 1], j->hist[b]);
}

/* ---- The commands ---- */

enum { SORT, SCAN, REDUCE, UNIQUE, COMPACT, HISTOGRAM };
static const kind kinds[] = {
    [SORT] = {"sort", SORT_TYPES, "int32, uint32, int64, uint64, float32 or float64 keys", sort_check, sort_setup,
              sort_call, sort_results, sort_summary},
    [SCAN] = {"scan", ALL_TYPES, NULL, NULL, scan_setup, scan_call, scan_results, scan_summary},
    [REDUCE] = {"reduce", ALL_TYPES, NULL, NULL, reduce_setup, reduce_call, reduce_results,
                reduce_summary},
    [UNIQUE] = {"unique", KEY_TYPES, "integer keys: int32, uint32, int64 or uint64", NULL, counted_setup,
                unique_call, counted_results, unique_summary},
    [COMPACT] = {"compact", ALL_TYPES, NULL, compact_check, counted_setup, compact_call,
                 counted_results, compact_summary},
    [HISTOGRAM] = {"histogram", ALL_TYPES, NULL, histogram_check, histogram_setup,
                   histogram_call, histogram_results, histogram_summary},
};

/* One standard input and one standard output at most; standard output claimed
 * for the file before anything is printed. -1 to go on, else the exit code. */
static int check_streams(job *j)
{
    const char *inputs[] = {j->io.in, j->values, j->edges ? NULL : j->edges_text};
    const char *outputs[] = {j->io.out, j->values_out, j->counts_out};
    int readers = 0, writers = 0;
    for (size_t i = 0; i < 3; i++) {
        readers += inputs[i] && !strcmp(inputs[i], "-");
        writers += outputs[i] && !strcmp(outputs[i], "-");
    }
    if (readers > 1 || writers > 1) {
        say(j, "only one %s can be standard %s (-)", readers > 1 ? "input" : "output",
            readers > 1 ? "input" : "output");
        return 2;
    }
    if (writers && cli_output_claim_stdout() != 0) {
        say(j, "-: standard output is %s; redirect it to write the array there",
            errno == ENOTTY ? "a terminal" : strerror(errno));
        return 2;
    }
    return -1;
}

/* Every output or none: each written to its temporary and closed, then all renamed. */
static int write_outputs(job *j)
{
    char why[1024];
    int ok = 1;
    for (int i = 0; ok && i < j->nouts; i++) {
        output *o = &j->outs[i];
        ok = cli_output_open(&o->file, o->path, why, sizeof why) == 0;
        if (ok) {
            cli_array_write(&o->file, o->data, o->n, o->type, o->npy);
            ok = cli_output_finish(&o->file, why, sizeof why) == 0;
        }
    }
    for (int i = 0; ok && i < j->nouts; i++)
        ok = cli_output_commit(&j->outs[i].file, why, sizeof why) == 0;
    if (ok)
        return 0;
    for (int i = 0; i < j->nouts; i++)
        cli_output_discard(&j->outs[i].file);
    say(j, "%s", why);
    return -1;
}

/* Waits for the call: a command that writes nothing still ends only when
 * its work has run. */
static int finish(job *j)
{
    cl_int err = clFinish(clprim_queue(j->ctx));
    if (err != CL_SUCCESS) {
        say(j, "the device failed running the call (OpenCL error %d)", err);
        return 1;
    }
    return 0;
}

/* The call again, between two markers: its device time, kernels built. */
static int timed_call(job *j)
{
    cl_command_queue q = clprim_queue(j->ctx);
    cl_event before = NULL, after = NULL;
    cl_int err = clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
    clprim_status s = err == CL_SUCCESS ? j->kind->call(j) : CLPRIM_SUCCESS;
    if (err == CL_SUCCESS && s == CLPRIM_SUCCESS)
        err = clEnqueueMarkerWithWaitList(q, 0, NULL, &after);
    cl_ulong start = 0, end = 0;
    if (err == CL_SUCCESS && s == CLPRIM_SUCCESS && (err = clWaitForEvents(1, &after)) == CL_SUCCESS &&
        (err = clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL)) ==
            CL_SUCCESS)
        err = clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    if (before)
        clReleaseEvent(before);
    if (after)
        clReleaseEvent(after);
    if (s != CLPRIM_SUCCESS)
        return status_failed(j, s);
    if (err != CL_SUCCESS) {
        say(j, "timing the call failed (OpenCL error %d)", err);
        return 1;
    }
    j->device_ms = (double)(end - start) * 1e-6;
    return 0;
}

static void release(job *j)
{
    for (int i = 0; i < j->nbufs; i++)
        clReleaseMemObject(j->bufs[i]);
    for (int i = 0; i < j->nouts; i++)
        free(j->outs[i].data);
    if (j->ctx)
        clprim_release(j->ctx);
    cli_array_free(&j->in);
    cli_array_free(&j->vals);
    free(j->edges), free(j->below), free(j->hist);
}

static int run(job *j)
{
    int status = check_streams(j);
    if (status >= 0)
        return status;
    char why[1024];
    if (cli_array_read(j->io.in, j->io.raw, j->io.type, &j->in, why, sizeof why) != 0) {
        say(j, "%s", why);
        release(j);
        return 1;
    }
    if (!(j->kind->types & BIT(j->in.type))) {
        say(j, "%s holds %s; %s takes %s", in_name(j), cli_type_name(j->in.type), j->kind->name,
            j->kind->types_text);
        status = j->io.raw ? 2 : 1;
    } else if (!j->kind->check || (status = j->kind->check(j)) < 0) {
        status = 1;
        if ((j->ctx = cli_open(j->io.device))) {
            clGetDeviceInfo(clprim_device(j->ctx), CL_DEVICE_NAME, sizeof j->device, j->device, NULL);
            j->src = buffer(j, j->in.n * cli_type_size(j->in.type), j->in.data);
        }
        if (j->src && (status = j->kind->setup(j)) == 0) {
            clprim_status s = j->kind->call(j);
            status = s != CLPRIM_SUCCESS ? status_failed(j, s) : j->io.time ? timed_call(j) : finish(j);
            if (status == 0 && (j->kind->results(j) != 0 || write_outputs(j) != 0))
                status = 1;
        }
    }
    if (status == 0) {
        j->kind->summary(j);
        for (int i = 0; i < j->nouts; i++)
            printf("wrote %s: %zu %s%s\n", cli_output_name(j->outs[i].path), j->outs[i].n,
                   cli_type_name(j->outs[i].type), j->outs[i].npy ? " (.npy)" : " (raw)");
        if (j->io.time)
            printf("device time %.3f ms (a second call; the first built the kernels)\n", j->device_ms);
    }
    release(j);
    return status;
}

int cli_array_option(cli_array_io *io, const char *cmd, const char *name, const char *value)
{
    if (!strcmp(name, "output"))
        io->out = value;
    else if (!strcmp(name, "raw"))
        io->raw_out = 1;
    else if (!strcmp(name, "time"))
        io->time = 1;
    else if (!strcmp(name, "device"))
        io->device = value;
    else if (strcmp(name, "type"))
        return -1;
    else if (!cli_parse_type(value, &io->type)) {
        fprintf(stderr, "clprim %s: unknown type \"%s\" (%s)\n", cmd, value, CLI_TYPE_NAMES);
        return 0;
    } else
        io->raw = 1;
    return 1;
}

int cli_compact_array(const cli_array_io *io, const cli_compact_keep *keep)
{
    job j = {.kind = &kinds[COMPACT], .io = *io, .keep = keep};
    return run(&j);
}

int cli_histogram_is_array(const cli_array_io *io)
{
    if (io->raw || cli_is_npy_name(io->in))
        return 1;
    int first = EOF;
    if (!strcmp(io->in, "-")) {
        first = getc(stdin);
        if (first != EOF)
            ungetc(first, stdin);
    } else {
        FILE *f = fopen(io->in, "rb");
        if (f) {
            first = getc(f);
            fclose(f);
        }
    }
    return first == 0x93;
}

int cli_histogram_array(const cli_array_io *io, const char *bins_text, const char *edges, const char *range_text)
{
    job j = {.kind = &kinds[HISTOGRAM], .io = *io, .edges_text = edges, .range_text = range_text};
    struct stat st;
    if (edges && (bins_text || range_text)) {
        say(&j, "--edges gives the bins: leave out %s", bins_text ? "--bins" : "--range");
        return 2;
    }
    if (edges && strcmp(edges, "-") && !cli_is_npy_name(edges) && stat(edges, &st) != 0) {
        /* Not a file: a list of edges. */
        if (!parse_numbers(edges, &j.edges, &j.bins)) {
            say(&j, "--edges \"%s\": want numbers separated by commas (0,1,2.5) or a .npy file", edges);
            return 2;
        }
        j.bins--;
        if (!check_edges(&j, "--edges")) {
            free(j.edges);
            return 2;
        }
    }
    if (!edges) {
        j.uniform = 1;
        unsigned long bins = 10;
        if (bins_text && !cli_parse_ulong("histogram", "--bins", bins_text, 1, 2147483647ul, &bins))
            return 2;
        j.bins = bins;
        double *range = NULL;
        size_t count = 0;
        if (range_text) {
            int ok = parse_numbers(range_text, &range, &count) && count == 2 && isfinite(range[0]) &&
                     isfinite(range[1]) && range[0] <= range[1];
            if (ok)
                j.lo = range[0], j.hi = range[1];
            free(range);
            if (!ok) {
                say(&j, "--range \"%s\": want LO,HI, two finite numbers with LO <= HI", range_text);
                return 2;
            }
        }
    }
    return run(&j);
}

/* ---- sort, scan, reduce, unique: their options and one parser ---- */

#define ABOUT_IN                                                                                    \
    "  IN is a .npy file (np.save), or raw binary with --type; - reads standard input. An array\n" \
    "  of more than one dimension is taken as its elements in C order (np.ravel).\n"
#define ABOUT_OUT                                                                                   \
    "  Outputs have one dimension: little-endian in .npy files, the machine's order raw. They\n"  \
    "  are all written or none. Without -o the result is computed and the summary printed.\n"
#define OPTION_TYPE {"type", 't', "T", CLI_ARRAY_TYPE_HELP, 0}
#define OPTION_DEVICE {"device", 0, "D", "the OpenCL device (clprim --help)", 0}
#define OPTION_OP {"op", 0, "OP", "sum (default), min or max", 0}

static const cli_option sort_options[] = {
    OPTION_TYPE, CLI_ARRAY_OPTION_OUTPUT(0), CLI_ARRAY_OPTION_RAW(0), CLI_ARRAY_OPTION_TIME(0), OPTION_DEVICE,
    {"descending", 0, NULL, "largest first (equal keys still keep their input order)", 0},
    {"values", 0, "FILE", "values to move with their keys: as many as the keys, of 4 or\n8 bytes each, in a .npy "
     "file (or raw, with --values-type)", 0},
    {"values-type", 0, "T", "FILE is raw binary of type T", 0},
    {"values-out", 0, "OUT", "write the values, in their keys' sorted order, to OUT (as -o)", 0},
};
static const cli_option scan_options[] = {
    OPTION_TYPE, CLI_ARRAY_OPTION_OUTPUT(0), CLI_ARRAY_OPTION_RAW(0), CLI_ARRAY_OPTION_TIME(0), OPTION_DEVICE,
    OPTION_OP,
    {"exclusive", 0, NULL, "element i combines elements 0 .. i - 1; element 0 combines none:\n0 for sum, "
     "the type's largest value for min (+inf for floats),\nits lowest for max", 0},
};
static const cli_option reduce_options[] = {OPTION_TYPE, CLI_ARRAY_OPTION_TIME(0), OPTION_DEVICE, OPTION_OP};
static const cli_option unique_options[] = {
    OPTION_TYPE, CLI_ARRAY_OPTION_OUTPUT(0), CLI_ARRAY_OPTION_RAW(0), CLI_ARRAY_OPTION_TIME(0), OPTION_DEVICE,
    {"counts-out", 0, "OUT", "write each run's length to OUT (int64, as np.unique's return_counts)", 0},
};

#define COMMAND(name, options, about) {name, "IN", about, options, sizeof options / sizeof options[0], NULL, NULL}
static const cli_command commands[] = {
    [SORT] = COMMAND("sort", sort_options,
        "  Sorts the keys in IN (int32, uint32, int64, uint64, float32 or float64). The sort is\n"
        "  stable: equal keys keep their input order, also with --descending. With --values, a\n"
        "  file of as many values moves with its keys (numpy: values[np.argsort(keys,\n"
        "  kind='stable')]). Floats sort in a total order, -NaN < -inf < ... < -0.0 < +0.0 < ...\n"
        "  < +inf < +NaN, where np.sort puts every NaN last and -0.0 and +0.0 in input order.\n"
        ABOUT_IN ABOUT_OUT),
    [SCAN] = COMMAND("scan", scan_options,
        "  The running sum, minimum or maximum of IN's elements, inclusive unless --exclusive (as\n"
        "  np.cumsum(a, dtype=a.dtype), np.fmin.accumulate, np.fmax.accumulate). Integer sums wrap\n"
        "  in IN's type. Float sums are added in the library's fixed order, the same bits on every\n"
        "  run but not numpy's order, so they may differ from np.cumsum in the last bits (by at\n"
        "  most (n - 1) x epsilon x the sum of |x|). Float min and max ignore a NaN beside a number.\n"
        ABOUT_IN ABOUT_OUT),
    [REDUCE] = COMMAND("reduce", reduce_options,
        "  The sum, minimum or maximum of IN's elements, printed on the last line as text that\n"
        "  reads back to the same bits. Sums stay in IN's type, as with scan (integers wrap, float\n"
        "  sums in the library's order); float min and max ignore NaN (np.fmin.reduce). No\n"
        "  element gives 0, the type's largest or its lowest value.\n"
        ABOUT_IN),
    [UNIQUE] = COMMAND("unique", unique_options,
        "  The first element of each run of equal adjacent elements, in order: only adjacent\n"
        "  duplicates are removed, so this is np.unique's answer only for a sorted IN\n"
        "  (clprim sort IN -o - | clprim unique -). Integer types: int32, uint32, int64, uint64.\n"
        ABOUT_IN ABOUT_OUT),
};

static int parse(job *j, const cli_command *cmd, int argc, char **argv)
{
    cli_parser p;
    cli_begin(&p, cmd, argc, argv);
    for (int opt; (opt = cli_next(&p)) >= 0;) {
        const char *name = cmd->options[opt].name, *value = p.value;
        int ok = cli_array_option(&j->io, cmd->name, name, value);
        if (ok >= 0) {
            if (!ok)
                return 2;
        } else if (!strcmp(name, "op")) {
            const int op = cli_pick(cmd->name, "--op", value, op_names, 3);
            if (op < 0)
                return 2;
            j->op = (clprim_op)op;
        } else if (!strcmp(name, "exclusive")) {
            j->exclusive = 1;
        } else if (!strcmp(name, "descending")) {
            j->descending = 1;
        } else if (!strcmp(name, "values")) {
            j->values = value;
        } else if (!strcmp(name, "values-type")) {
            if (!cli_parse_type(value, &j->values_type)) {
                fprintf(stderr, "clprim %s: unknown type \"%s\" (%s)\n", cmd->name, value, CLI_TYPE_NAMES);
                return 2;
            }
            j->values_raw = 1;
        } else if (!strcmp(name, "values-out")) {
            j->values_out = value;
        } else {
            j->counts_out = value;
        }
    }
    const int ended = cli_end(&p, 1);
    if (ended >= 0)
        return ended;
    j->io.in = p.args[0];
    if (!j->values != !j->values_out)
        return cli_usage_error(&p, "--values and --values-out go together");
    if (j->values_raw && !j->values)
        return cli_usage_error(&p, "--values-type needs --values");
    return -1;
}

static int command(int which, int argc, char **argv)
{
    job j = {.kind = &kinds[which]};
    const int parsed = parse(&j, &commands[which], argc, argv);
    return parsed >= 0 ? parsed : run(&j);
}

int cmd_sort(int argc, char **argv)
{
    return command(SORT, argc, argv);
}

int cmd_scan(int argc, char **argv)
{
    return command(SCAN, argc, argv);
}

int cmd_reduce(int argc, char **argv)
{
    return command(REDUCE, argc, argv);
}

int cmd_unique(int argc, char **argv)
{
    return command(UNIQUE, argc, argv);
}
