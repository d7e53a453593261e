/* The workloads of `clprim demo` and `clprim bench`: each primitive beside the
 * same job as a one-thread C loop, and an exact check of one against the other. */
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

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return *state = x;
}

/* Non-zero values (a broken kernel cannot pass on zeros), about half of them
 * above the middle of their range. Floats are a random walk of -2, -1, 1, 2:
 * every partial sum is an integer far below 2^24 for any size the bench runs, so
 * float results are exact whatever the order of summation, and every check can
 * compare exactly. */
static void fill(clprim_type t, void *data, size_t n)
{
    static const int step[4] = {-2, -1, 1, 2};
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)(next_random(&state) % 100) + 1;
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

static int upload(workload *w)
{
    cl_int err;
    if (w->in_buf)
        clReleaseMemObject(w->in_buf);
    w->in_buf = clCreateBuffer(w->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w->in_bytes, w->in, &err);
    return err == CL_SUCCESS;
}

static int device_output(workload *w, size_t bytes)
{
    cl_int err;
    w->out_bytes = bytes;
    w->out = malloc(bytes);
    w->expect = calloc(1, bytes);
    w->out_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    return w->out && w->expect && err == CL_SUCCESS;
}

static int same_bytes(workload *w, size_t bytes, char *why, size_t size)
{
    for (size_t i = 0; i < bytes; i++)
        if (((unsigned char *)w->out)[i] != ((unsigned char *)w->expect)[i]) {
            snprintf(why, size, "byte %zu of the result differs from the C loop's", i);
            return 0;
        }
    return 1;
}

static int whole_output_check(workload *w, char *why, size_t size)
{
    return same_bytes(w, w->out_bytes, why, size);
}

static double in_and_out_bytes(const workload *w)
{
    return 2.0 * (double)w->in_bytes;
}

static double in_bytes(const workload *w)
{
    return (double)w->in_bytes;
}

/* One loop body per element type; the body sees `T`. */
#define FOR_EACH_TYPE(t, ...)                               \
    switch (t) {                                            \
    case CLPRIM_INT32: { typedef int32_t T; __VA_ARGS__; } break;  \
    case CLPRIM_UINT32: { typedef uint32_t T; __VA_ARGS__; } break; \
    case CLPRIM_INT64: { typedef int64_t T; __VA_ARGS__; } break;  \
    case CLPRIM_UINT64: { typedef uint64_t T; __VA_ARGS__; } break; \
    case CLPRIM_FLOAT: { typedef float T; __VA_ARGS__; } break;    \
    case CLPRIM_DOUBLE: { typedef double T; __VA_ARGS__; } break;  \
    case CLPRIM_UINT8: { typedef uint8_t T; __VA_ARGS__; } break;  \
    }

/* ---- Scan ---- */

static int scan_prepare(workload *w)
{
    return device_output(w, w->in_bytes);
}

static void scan_cpu(workload *w, int exclusive)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect, acc = 0;
        for (size_t i = 0; i < w->n; i++) {
            T v = x[i];
            y[i] = exclusive ? acc : (T)(acc + v);
            acc = (T)(acc + v);
        }
    })
}

static void scan_inclusive_cpu(workload *w) { scan_cpu(w, 0); }
static void scan_exclusive_cpu(workload *w) { scan_cpu(w, 1); }

static clprim_status scan_inclusive_run(workload *w)
{
    return clprim_scan(w->ctx, w->type, CLPRIM_SUM, 0, w->in_buf, 0, w->out_buf, 0, w->n, 0, NULL, NULL);
}

static clprim_status scan_exclusive_run(workload *w)
{
    return clprim_scan(w->ctx, w->type, CLPRIM_SUM, 1, w->in_buf, 0, w->out_buf, 0, w->n, 0, NULL, NULL);
}

static const workload_kind scan_inclusive = {"scan-inclusive", scan_prepare, scan_inclusive_run,
                                             scan_inclusive_cpu, whole_output_check, in_and_out_bytes, NULL};
static const workload_kind scan_exclusive = {"scan-exclusive", scan_prepare, scan_exclusive_run,
                                             scan_exclusive_cpu, whole_output_check, in_and_out_bytes, NULL};

/* ---- Reduce ---- */

static int reduce_prepare(workload *w)
{
    w->expect = calloc(1, sizeof w->value);
    return w->expect != NULL;
}

static clprim_status reduce_run(workload *w)
{
    return clprim_reduce(w->ctx, w->type, CLPRIM_SUM, w->in_buf, 0, w->n, w->value, 0, NULL);
}

static void reduce_cpu(workload *w)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T acc = 0;
        for (size_t i = 0; i < w->n; i++)
            acc = (T)(acc + x[i]);
        memcpy(w->expect, &acc, sizeof acc);
    })
}

static int reduce_check(workload *w, char *why, size_t size)
{
    if (!memcmp(w->value, w->expect, w->elem))
        return 1;
    snprintf(why, size, "the sum differs from the C loop's");
    return 0;
}

static const workload_kind reduce_sum = {"reduce", reduce_prepare, reduce_run, reduce_cpu, reduce_check, in_bytes,
                                         NULL};

/* ---- Compaction: keep the elements above the middle, about half ---- */

static void compact_threshold(clprim_type t, void *value)
{
    FOR_EACH_TYPE(t, {
        T middle = (t == CLPRIM_UINT32 || t == CLPRIM_UINT64 || t == CLPRIM_UINT8) ? (T)50 : (T)0;
        memcpy(value, &middle, sizeof middle);
    })
}

static int compact_prepare(workload *w)
{
    cl_int err;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, sizeof(cl_ulong), NULL, &err);
    return err == CL_SUCCESS && device_output(w, w->in_bytes);
}

static clprim_status compact_run(workload *w)
{
    unsigned char middle[8];
    compact_threshold(w->type, middle);
    clprim_predicate keep = {CLPRIM_KEEP_GT, middle, NULL, 0, NULL};
    /* The count stays on the device: nothing blocks, as in a pipeline. */
    return clprim_compact(w->ctx, w->type, &keep, w->in_buf, 0, w->out_buf, 0, w->n, NULL, w->aux_buf, 0,
                          0, NULL, NULL);
}

static void compact_cpu(workload *w)
{
    unsigned char middle[8];
    compact_threshold(w->type, middle);
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect, limit;
        memcpy(&limit, middle, sizeof limit);
        size_t kept = 0;
        for (size_t i = 0; i < w->n; i++)
            if (x[i] > limit)
                y[kept++] = x[i];
        w->count = kept;
    })
}

static int compact_check(workload *w, char *why, size_t size)
{
    cl_ulong kept = 0;
    clEnqueueReadBuffer(clprim_queue(w->ctx), w->aux_buf, CL_TRUE, 0, sizeof kept, &kept, 0, NULL, NULL);
    if (kept != w->count) {
        snprintf(why, size, "kept %llu elements, the C loop %zu", (unsigned long long)kept, w->count);
        return 0;
    }
    return same_bytes(w, w->count * w->elem, why, size);
}

static double compact_bytes(const workload *w)
{
    return (double)w->in_bytes + (double)w->count * (double)w->elem;
}

static const workload_kind compact_half = {"compact", compact_prepare, compact_run, compact_cpu, compact_check,
                                           compact_bytes, NULL};

/* ---- Histogram: 256 bins over uniformly spread values ---- */

#define HISTOGRAM_BINS 256

/* Integers uniform over [0, 256) with bins of one value; floats uniform over
 * [0, 1), where the bin is x * 256 exactly (a power of two). */
static int is_floating(clprim_type t)
{
    return t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE;
}

static int histogram_prepare(workload *w)
{
    uint64_t state = 0x2545F4914F6CDD1Dull;
    int floating = is_floating(w->type);
    FOR_EACH_TYPE(w->type, {
        T *x = w->in;
        for (size_t i = 0; i < w->n; i++) {
            uint64_t r = next_random(&state);
            x[i] = floating ? (T)((double)(r >> 40) / 16777216.0) : (T)(r & 255);
        }
    })
    return upload(w) && device_output(w, HISTOGRAM_BINS * sizeof(cl_uint));
}

static clprim_status histogram_run(workload *w)
{
    return clprim_histogram(w->ctx, w->type, w->in_buf, 0, w->n, 0.0, is_floating(w->type) ? 1.0 : 256.0,
                            HISTOGRAM_BINS, w->out_buf, 0, 0, 0, NULL, NULL);
}

static void histogram_cpu(workload *w)
{
    cl_uint *counts = w->expect;
    int floating = is_floating(w->type);
    memset(counts, 0, HISTOGRAM_BINS * sizeof *counts);
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        for (size_t i = 0; i < w->n; i++)
            counts[floating ? (size_t)((double)x[i] * HISTOGRAM_BINS) : (size_t)x[i]]++;
    })
}

static const workload_kind histogram_256 = {"histogram", histogram_prepare, histogram_run, histogram_cpu,
                                            whole_output_check, in_bytes, NULL};

/* ---- Threshold: the red-ratio threshold on planar float RGB, n pixels ---- */

#define THRESHOLD_RATIO 0.7f

/* Rows of 1024 pixels, or one row when n is not a multiple of that. */
static size_t threshold_width(size_t n)
{
    return n % 1024 ? n : 1024;
}

static int float_only(clprim_type t)
{
    return t == CLPRIM_FLOAT;
}

/* Random colours, 0..255, in three planes. */
static int threshold_prepare(workload *w)
{
    float *planes = malloc(3 * w->n * sizeof *planes);
    if (!planes)
        return 0;
    uint64_t state = 0x853C49E6748FEA9Bull;
    for (size_t i = 0; i < 3 * w->n; i++)
        planes[i] = (float)(next_random(&state) % 256);
    free(w->in);
    w->in = planes;
    w->in_bytes = 3 * w->n * sizeof *planes;
    return upload(w) && device_output(w, w->in_bytes);
}

static clprim_status threshold_run(workload *w)
{
    size_t width = threshold_width(w->n);
    clprim_planar_image src = {w->in_buf, 0, width, w->n / width};
    clprim_planar_image dst = {w->out_buf, 0, width, w->n / width};
    return clprim_threshold_red_planar(w->ctx, &src, &dst, THRESHOLD_RATIO, CLPRIM_THRESHOLD_KEEP, 0, NULL, NULL);
}

/* The plain C loop, in the header's exact formulation (compiled with
 * -ffp-contract=off, as the kernel is). */
static void threshold_cpu(workload *w)
{
    const float *r = w->in, *g = r + w->n, *b = g + w->n;
    float *out = w->expect, limit = THRESHOLD_RATIO * THRESHOLD_RATIO;
    for (size_t i = 0; i < w->n; i++) {
        int selected = r[i] > 0 && r[i] * r[i] > limit * ((r[i] * r[i] + g[i] * g[i]) + b[i] * b[i]);
        out[i] = selected ? r[i] : 0.0f;
        out[i + w->n] = selected ? g[i] : 0.0f;
        out[i + 2 * w->n] = selected ? b[i] : 0.0f;
    }
}

static const workload_kind threshold_planar = {"threshold", threshold_prepare, threshold_run, threshold_cpu,
                                               whole_output_check, in_and_out_bytes, float_only};

/* ---- The table ---- */

const workload_kind *const workload_kinds[] = {&scan_inclusive, &scan_exclusive, &reduce_sum, &compact_half,
                                               &histogram_256, &threshold_planar, NULL};

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
    w->in_bytes = n * w->elem;
    clGetCommandQueueInfo(clprim_queue(ctx), CL_QUEUE_CONTEXT, sizeof w->cl, &w->cl, NULL);
    w->in = malloc(w->in_bytes);
    if (!w->in) {
        fprintf(stderr, "clprim: out of host memory for %zu elements\n", n);
        return 0;
    }
    fill(type, w->in, n);
    if (!upload(w) || !kind->prepare(w)) {
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
    return clEnqueueReadBuffer(clprim_queue(w->ctx), w->out_buf, CL_TRUE, 0, w->out_bytes, w->out, 0, NULL,
                               NULL) == CL_SUCCESS;
}

void workload_release(workload *w)
{
    cl_mem buffers[] = {w->in_buf, w->out_buf, w->aux_buf};
    for (size_t i = 0; i < 3; i++)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
    free(w->in);
    free(w->out);
    free(w->expect);
    memset(w, 0, sizeof *w);
}
