/* The workloads of `clprim demo` and `clprim bench`. */
#include "workload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    clprim_type type;
    size_t size;
} types[] = {
    {"int32", CLPRIM_INT32, 4},   {"uint32", CLPRIM_UINT32, 4}, {"int64", CLPRIM_INT64, 8},
    {"uint64", CLPRIM_UINT64, 8}, {"float", CLPRIM_FLOAT, 4},   {"double", CLPRIM_DOUBLE, 8},
    {"uint8", CLPRIM_UINT8, 1},
};

const char *workload_type_name(clprim_type t)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].type == t)
            return types[i].name;
    return "?";
}

int workload_parse_type(const char *name, clprim_type *t)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(types[i].name, name)) {
            *t = types[i].type;
            return 1;
        }
    return 0;
}

static size_t type_size(clprim_type t)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].type == t)
            return types[i].size;
    return 0;
}

/* Non-zero values (a broken kernel cannot pass on zeros). Floats are a random
 * walk of -2, -1, 1, 2: every partial sum is an integer far below 2^24 for any
 * size the bench runs, so float results are exact whatever the order of
 * summation, and every check can compare exactly. */
static void fill(clprim_type t, void *data, size_t n)
{
    static const int step[4] = {-2, -1, 1, 2};
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        unsigned v = (unsigned)(state % 100) + 1;
        switch (t) {
        case CLPRIM_INT32: ((int32_t *)data)[i] = (int32_t)v - 50; break;
        case CLPRIM_UINT32: ((uint32_t *)data)[i] = v; break;
        case CLPRIM_INT64: ((int64_t *)data)[i] = (int64_t)v - 50; break;
        case CLPRIM_UINT64: ((uint64_t *)data)[i] = v; break;
        case CLPRIM_FLOAT: ((float *)data)[i] = (float)step[v % 4]; break;
        case CLPRIM_DOUBLE: ((double *)data)[i] = (double)step[v % 4]; break;
        case CLPRIM_UINT8: ((uint8_t *)data)[i] = (uint8_t)v; break;
        }
    }
}

static double get(clprim_type t, const void *data, size_t i)
{
    switch (t) {
    case CLPRIM_INT32: return ((const int32_t *)data)[i];
    case CLPRIM_UINT32: return ((const uint32_t *)data)[i];
    case CLPRIM_INT64: return (double)((const int64_t *)data)[i];
    case CLPRIM_UINT64: return (double)((const uint64_t *)data)[i];
    case CLPRIM_FLOAT: return ((const float *)data)[i];
    case CLPRIM_DOUBLE: return ((const double *)data)[i];
    case CLPRIM_UINT8: return ((const uint8_t *)data)[i];
    }
    return 0;
}

/* ---- Scan ---- */

/* The C loop: sums of the small values used here never overflow. */
#define SCAN_LOOP(T, exclusive)                              \
    do {                                                     \
        const T *x = w->in;                                  \
        T *y = w->expect, acc = 0;                           \
        for (size_t i = 0; i < w->n; i++) {                  \
            T v = x[i];                                      \
            if (exclusive)                                   \
                y[i] = acc, acc += v;                        \
            else                                             \
                acc += v, y[i] = acc;                        \
        }                                                    \
    } while (0)

static void scan_cpu(workload *w, int exclusive)
{
    switch (w->type) {
    case CLPRIM_INT32: SCAN_LOOP(int32_t, exclusive); break;
    case CLPRIM_UINT32: SCAN_LOOP(uint32_t, exclusive); break;
    case CLPRIM_INT64: SCAN_LOOP(int64_t, exclusive); break;
    case CLPRIM_UINT64: SCAN_LOOP(uint64_t, exclusive); break;
    case CLPRIM_FLOAT: SCAN_LOOP(float, exclusive); break;
    case CLPRIM_DOUBLE: SCAN_LOOP(double, exclusive); break;
    case CLPRIM_UINT8: SCAN_LOOP(uint8_t, exclusive); break;
    }
}

static void scan_inclusive_cpu(workload *w) { scan_cpu(w, 0); }
static void scan_exclusive_cpu(workload *w) { scan_cpu(w, 1); }

static clprim_status scan_inclusive_run(workload *w)
{
    return clprim_scan(w->ctx, w->type, CLPRIM_SUM, 0, w->in_buf, 0, w->out_buf, 0, w->n, NULL);
}

static clprim_status scan_exclusive_run(workload *w)
{
    return clprim_scan(w->ctx, w->type, CLPRIM_SUM, 1, w->in_buf, 0, w->out_buf, 0, w->n, NULL);
}

static int array_check(workload *w, char *why, size_t size)
{
    for (size_t i = 0; i < w->n; i++) {
        double got = get(w->type, w->out, i), want = get(w->type, w->expect, i);
        if (got != want) {
            snprintf(why, size, "element %zu is %.17g, expected %.17g", i, got, want);
            return 0;
        }
    }
    return 1;
}

static double in_and_out_bytes(const workload *w)
{
    return 2.0 * (double)w->n * (double)w->elem;
}

static int with_output(workload *w)
{
    w->out = malloc(w->n * w->elem);
    w->expect = malloc(w->n * w->elem);
    cl_int err;
    w->out_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, w->n * w->elem, NULL, &err);
    return w->out && w->expect && err == CL_SUCCESS;
}

static const workload_kind scan_inclusive = {"scan-inclusive", with_output, scan_inclusive_run,
                                             scan_inclusive_cpu, array_check, in_and_out_bytes};
static const workload_kind scan_exclusive = {"scan-exclusive", with_output, scan_exclusive_run,
                                             scan_exclusive_cpu, array_check, in_and_out_bytes};

/* ---- Reduce ---- */

static int reduce_prepare(workload *w)
{
    w->expect = malloc(16);
    return w->expect != NULL;
}

static clprim_status reduce_run(workload *w)
{
    return clprim_reduce(w->ctx, w->type, CLPRIM_SUM, w->in_buf, 0, w->n, w->value);
}

#define REDUCE_LOOP(T)                         \
    do {                                       \
        const T *x = w->in;                    \
        T acc = 0;                             \
        for (size_t i = 0; i < w->n; i++)      \
            acc += x[i];                       \
        memcpy(w->expect, &acc, sizeof acc);   \
    } while (0)

static void reduce_cpu(workload *w)
{
    switch (w->type) {
    case CLPRIM_INT32: REDUCE_LOOP(int32_t); break;
    case CLPRIM_UINT32: REDUCE_LOOP(uint32_t); break;
    case CLPRIM_INT64: REDUCE_LOOP(int64_t); break;
    case CLPRIM_UINT64: REDUCE_LOOP(uint64_t); break;
    case CLPRIM_FLOAT: REDUCE_LOOP(float); break;
    case CLPRIM_DOUBLE: REDUCE_LOOP(double); break;
    case CLPRIM_UINT8: REDUCE_LOOP(uint8_t); break;
    }
}

static int reduce_check(workload *w, char *why, size_t size)
{
    double got = get(w->type, w->value, 0), want = get(w->type, w->expect, 0);
    if (got == want)
        return 1;
    snprintf(why, size, "sum is %.17g, expected %.17g", got, want);
    return 0;
}

static double in_bytes(const workload *w)
{
    return (double)w->n * (double)w->elem;
}

static const workload_kind reduce_sum = {"reduce", reduce_prepare, reduce_run, reduce_cpu, reduce_check, in_bytes};

/* ---- The table ---- */

const workload_kind *const workload_kinds[] = {&scan_inclusive, &scan_exclusive, &reduce_sum, NULL};

const workload_kind *workload_find(const char *name)
{
    for (size_t i = 0; workload_kinds[i]; i++)
        if (!strcmp(workload_kinds[i]->name, name))
            return workload_kinds[i];
    return NULL;
}

int workload_prepare(workload *w, const workload_kind *kind, clprim_context *ctx, clprim_type type, size_t n)
{
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->ctx = ctx;
    w->type = type;
    w->n = n;
    w->elem = type_size(type);
    clGetCommandQueueInfo(clprim_queue(ctx), CL_QUEUE_CONTEXT, sizeof w->cl, &w->cl, NULL);
    w->in = malloc(n * w->elem);
    if (!w->in) {
        fprintf(stderr, "clprim: out of host memory for %zu elements\n", n);
        return 0;
    }
    fill(type, w->in, n);
    cl_int err;
    w->in_buf = clCreateBuffer(w->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * w->elem, w->in, &err);
    if (err != CL_SUCCESS || !kind->prepare(w)) {
        fprintf(stderr, "clprim: cannot allocate %s of %zu %s elements on the device\n", kind->name, n,
                workload_type_name(type));
        workload_release(w);
        return 0;
    }
    return 1;
}

int workload_fetch(workload *w)
{
    if (!w->out_buf || !w->out)
        return 1;
    return clEnqueueReadBuffer(clprim_queue(w->ctx), w->out_buf, CL_TRUE, 0, w->n * w->elem, w->out, 0, NULL,
                               NULL) == CL_SUCCESS;
}

void workload_release(workload *w)
{
    if (w->in_buf)
        clReleaseMemObject(w->in_buf);
    if (w->out_buf)
        clReleaseMemObject(w->out_buf);
    free(w->in);
    free(w->out);
    free(w->expect);
    memset(w, 0, sizeof *w);
}
