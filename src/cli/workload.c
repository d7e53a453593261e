/* The workloads of `clprim demo` and `clprim bench`: each primitive beside the
 * same job as a one-thread C loop and as the OpenMP loop a C programmer writes
 * (each thread a contiguous slice), and an exact check of one against the other. */
#include "workload.h"
#include "kmeans_cpu.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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

const char *workload_type_at(size_t i)
{
    return i < sizeof types / sizeof types[0] ? types[i].name : NULL;
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

/* What the generators start from: each its own constant, mixed with the
 * seed (workload_set_seed), never 0 (xorshift stays at 0). */
static uint64_t workload_seed;

void workload_set_seed(uint64_t seed)
{
    workload_seed = seed;
}

static uint64_t first_state(uint64_t constant)
{
    const uint64_t state = constant ^ workload_seed;
    return state ? state : constant;
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
    uint64_t state = first_state(0x9E3779B97F4A7C15ull);
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

/* Inside an OpenMP parallel region: this thread's slice [*begin, *end) of n
 * elements, and which slice it is. Without OpenMP, one thread takes them all. */
static int thread_slice(size_t n, size_t *begin, size_t *end)
{
#ifdef _OPENMP
    size_t id = (size_t)omp_get_thread_num(), count = (size_t)omp_get_num_threads();
#else
    size_t id = 0, count = 1;
#endif
    *begin = n / count * id + (id < n % count ? id : n % count);
    *end = *begin + n / count + (id < n % count);
    return (int)id;
}

int workload_openmp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 0;
#endif
}

/* One slot per thread for the slices' totals. */
static void *per_thread(size_t size)
{
    int threads = workload_openmp_threads();
    return calloc(threads > 0 ? (size_t)threads : 1, size);
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

/* Each thread sums its slice, then scans it from the sum of the slices before. */
static void scan_openmp(workload *w, int exclusive)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect, *total = per_thread(sizeof(T));
        if (!total)
            return;
        _Pragma("omp parallel") {
            size_t begin, end;
            int id = thread_slice(w->n, &begin, &end);
            T acc = 0;
            for (size_t i = begin; i < end; i++)
                acc = (T)(acc + x[i]);
            total[id] = acc;
            _Pragma("omp barrier")
            acc = 0;
            for (int t = 0; t < id; t++)
                acc = (T)(acc + total[t]);
            for (size_t i = begin; i < end; i++) {
                T v = x[i];
                y[i] = exclusive ? acc : (T)(acc + v);
                acc = (T)(acc + v);
            }
        }
        free(total);
    })
}

static void scan_inclusive_openmp(workload *w) { scan_openmp(w, 0); }
static void scan_exclusive_openmp(workload *w) { scan_openmp(w, 1); }

static clprim_status scan_inclusive_run(workload *w)
{
    return clprim_scan(w->ctx, w->type, CLPRIM_SUM, 0, w->in_buf, 0, w->out_buf, 0, w->n, 0, NULL, NULL);
}

static clprim_status scan_exclusive_run(workload *w)
{
    return clprim_scan(w->ctx, w->type, CLPRIM_SUM, 1, w->in_buf, 0, w->out_buf, 0, w->n, 0, NULL, NULL);
}

static const workload_kind scan_inclusive = {"scan-inclusive",   scan_prepare,     scan_inclusive_run,
                                             scan_inclusive_cpu, whole_output_check, in_and_out_bytes,
                                             NULL,               scan_inclusive_openmp,
    "scan", 0};
static const workload_kind scan_exclusive = {"scan-exclusive",   scan_prepare,     scan_exclusive_run,
                                             scan_exclusive_cpu, whole_output_check, in_and_out_bytes,
                                             NULL,               scan_exclusive_openmp,
    "scan", 0};

/* The inclusive sum written as a caller's operator: what a user-defined
 * operator costs beside the built-in one. */
static clprim_status scan_user_sum_run(workload *w)
{
    static const unsigned char zero[8];
    const clprim_operator add = {"a + b", zero};
    return clprim_scan_op(w->ctx, w->type, &add, 0, w->in_buf, 0, w->out_buf, 0, w->n, 0, NULL, NULL);
}

static const workload_kind scan_user_sum = {"scan-op-sum",      scan_prepare,       scan_user_sum_run,
                                            scan_inclusive_cpu, whole_output_check, in_and_out_bytes,
                                            NULL,               scan_inclusive_openmp,
    "scan", 1};

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

/* The one-thread and the OpenMP sum of ELEMENT(x[i]) in the element type, as
 * CPU_NAME and OPENMP_NAME. */
#define DEFINE_SUM_LOOPS(CPU_NAME, OPENMP_NAME, ELEMENT)                                                        \
    static void CPU_NAME(workload *w)                                                                           \
    {                                                                                                           \
        FOR_EACH_TYPE(w->type, {                                                                                \
            const T *x = w->in;                                                                                 \
            T acc = 0;                                                                                          \
            for (size_t i = 0; i < w->n; i++)                                                                   \
                acc = (T)(acc + (T)(ELEMENT(x[i])));                                                            \
            memcpy(w->expect, &acc, sizeof acc);                                                                \
        })                                                                                                      \
    }                                                                                                           \
    static void OPENMP_NAME(workload *w)                                                                        \
    {                                                                                                           \
        FOR_EACH_TYPE(w->type, {                                                                                \
            const T *x = w->in;                                                                                 \
            T acc = 0;                                                                                          \
            _Pragma("omp parallel") {                                                                           \
                size_t begin, end;                                                                              \
                thread_slice(w->n, &begin, &end);                                                               \
                T mine = 0;                                                                                     \
                for (size_t i = begin; i < end; i++)                                                            \
                    mine = (T)(mine + (T)(ELEMENT(x[i])));                                                      \
                _Pragma("omp critical") acc = (T)(acc + mine);                                                  \
            }                                                                                                   \
            memcpy(w->expect, &acc, sizeof acc);                                                                \
        })                                                                                                      \
    }

#define ITSELF(v) (v)
DEFINE_SUM_LOOPS(reduce_cpu, reduce_openmp, ITSELF)

static int reduce_check(workload *w, char *why, size_t size)
{
    if (!memcmp(w->value, w->expect, w->elem))
        return 1;
    snprintf(why, size, "the sum differs from the C loop's");
    return 0;
}

static const workload_kind reduce_sum = {"reduce",     reduce_prepare, reduce_run, reduce_cpu, reduce_check,
                                         in_bytes,     NULL,           reduce_openmp,
    "reduce", 0};

/* The same sum left on the device (clprim_reduce_to): read back for the check. */
static int reduce_to_prepare(workload *w)
{
    cl_int err;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, 16, NULL, &err);
    return err == CL_SUCCESS && reduce_prepare(w);
}

static clprim_status reduce_to_run(workload *w)
{
    return clprim_reduce_to(w->ctx, w->type, CLPRIM_SUM, NULL, w->in_buf, 0, w->n, w->aux_buf, 1, 0, NULL, NULL);
}

static int reduce_to_check(workload *w, char *why, size_t size)
{
    if (clEnqueueReadBuffer(clprim_queue(w->ctx), w->aux_buf, CL_TRUE, w->elem, w->elem, w->value, 0, NULL, NULL) !=
        CL_SUCCESS) {
        snprintf(why, size, "reading the sum back failed");
        return 0;
    }
    return reduce_check(w, why, size);
}

static const workload_kind reduce_sum_to = {"reduce-to", reduce_to_prepare, reduce_to_run, reduce_cpu,
                                            reduce_to_check, in_bytes, NULL, reduce_openmp, "reduce", 0};

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

/* The compaction's loops keep the elements above the middle or, given flags,
 * those whose flag byte is set. Each is inlined into its callers, one with
 * flags NULL and one without, so that each loop tests one of the two. */
#define COMPACT_KEEPS(flags, x, i, limit) ((flags) ? (flags)[i] != 0 : (x)[i] > (limit))

static inline __attribute__((always_inline)) void compact_loop(workload *w, const unsigned char *flags)
{
    unsigned char middle[8];
    compact_threshold(w->type, middle);
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect, limit;
        memcpy(&limit, middle, sizeof limit);
        size_t kept = 0;
        for (size_t i = 0; i < w->n; i++)
            if (COMPACT_KEEPS(flags, x, i, limit))
                y[kept++] = x[i];
        w->count = kept;
    })
}

/* Each thread counts its kept elements, then writes them after those of the
 * slices before. */
static inline __attribute__((always_inline)) void compact_openmp_loop(workload *w, const unsigned char *flags)
{
    unsigned char middle[8];
    compact_threshold(w->type, middle);
    size_t *kept = per_thread(sizeof(size_t));
    if (!kept)
        return;
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect, limit;
        memcpy(&limit, middle, sizeof limit);
        _Pragma("omp parallel") {
            size_t begin, end, at = 0;
            int id = thread_slice(w->n, &begin, &end);
            for (size_t i = begin; i < end; i++)
                at += COMPACT_KEEPS(flags, x, i, limit);
            kept[id] = at;
            _Pragma("omp barrier")
            at = 0;
            for (int t = 0; t < id; t++)
                at += kept[t];
            /* Branch-free: every element is stored and the place advances when
             * it is kept; the slice's last place bounds the stores. */
            const size_t last = at + kept[id];
            for (size_t i = begin; i < end && at < last; i++) {
                y[at] = x[i];
                at += COMPACT_KEEPS(flags, x, i, limit);
            }
            if (end == w->n)
                w->count = at;
        }
    })
    free(kept);
}

static void compact_cpu(workload *w)
{
    compact_loop(w, NULL);
}

static void compact_openmp(workload *w)
{
    compact_openmp_loop(w, NULL);
}

/* The kept count on the device against the C loop's, then the first
 * `written` elements of the output. */
static int kept_and_written(workload *w, size_t written, char *why, size_t size)
{
    cl_ulong kept = 0;
    clEnqueueReadBuffer(clprim_queue(w->ctx), w->aux_buf, CL_TRUE, 0, sizeof kept, &kept, 0, NULL, NULL);
    if (kept != w->count) {
        snprintf(why, size, "kept %llu elements, the C loop %zu", (unsigned long long)kept, w->count);
        return 0;
    }
    return same_bytes(w, written * w->elem, why, size);
}

static int compact_check(workload *w, char *why, size_t size)
{
    return kept_and_written(w, w->count, why, size);
}

static double compact_bytes(const workload *w)
{
    return (double)w->in_bytes + (double)w->count * (double)w->elem;
}

static const workload_kind compact_half = {"compact",     compact_prepare, compact_run, compact_cpu, compact_check,
                                           compact_bytes, NULL,            compact_openmp,
    "compact", 0};

/* ---- Compaction by flags: the same elements, chosen by a byte each ---- */

/* The flags (set where the element is above the middle) on the host in
 * w->scratch and on the device in w->flags_buf. */
static int compact_flagged_prepare(workload *w)
{
    unsigned char middle[8], *flags = malloc(w->n ? w->n : 1);
    w->scratch = flags;
    if (!flags || !compact_prepare(w))
        return 0;
    compact_threshold(w->type, middle);
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T limit;
        memcpy(&limit, middle, sizeof limit);
        for (size_t i = 0; i < w->n; i++)
            flags[i] = x[i] > limit;
    })
    cl_int err;
    w->flags_buf = clCreateBuffer(w->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w->n ? w->n : 1, flags, &err);
    return err == CL_SUCCESS;
}

static clprim_status compact_flagged_run(workload *w)
{
    clprim_predicate keep = {CLPRIM_KEEP_FLAGGED, NULL, w->flags_buf, 0, NULL};
    return clprim_compact(w->ctx, w->type, &keep, w->in_buf, 0, w->out_buf, 0, w->n, NULL, w->aux_buf, 0,
                          0, NULL, NULL);
}

static void compact_flagged_cpu(workload *w)
{
    compact_loop(w, w->scratch);
}

static void compact_flagged_openmp(workload *w)
{
    compact_openmp_loop(w, w->scratch);
}

static double compact_flagged_bytes(const workload *w)
{
    return compact_bytes(w) + (double)w->n;
}

static const workload_kind compact_flagged = {"compact-flagged",      compact_flagged_prepare,
                                              compact_flagged_run,    compact_flagged_cpu,
                                              compact_check,          compact_flagged_bytes,
                                              NULL,                   compact_flagged_openmp,
                                              "compact",              0};

/* ---- Partition: the elements above the middle first, then the rest ---- */

static clprim_status partition_run(workload *w)
{
    unsigned char middle[8];
    compact_threshold(w->type, middle);
    clprim_predicate keep = {CLPRIM_KEEP_GT, middle, NULL, 0, NULL};
    return clprim_partition(w->ctx, w->type, &keep, w->in_buf, 0, w->out_buf, 0, w->n, NULL, w->aux_buf, 0, 0, NULL,
                            NULL);
}

/* The compaction's C loop, then the rejected elements after the kept ones. */
static void partition_cpu(workload *w)
{
    compact_cpu(w);
    unsigned char middle[8];
    compact_threshold(w->type, middle);
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = (T *)w->expect + w->count, limit;
        memcpy(&limit, middle, sizeof limit);
        for (size_t i = 0; i < w->n; i++)
            if (!(x[i] > limit))
                *y++ = x[i];
    })
}

static int partition_check(workload *w, char *why, size_t size)
{
    return kept_and_written(w, w->n, why, size); /* every element is written */
}

static double partition_bytes(const workload *w)
{
    return 2.0 * (double)w->in_bytes;
}

static const workload_kind partition_half = {"partition",     compact_prepare, partition_run, partition_cpu,
                                             partition_check, partition_bytes, NULL,          NULL,
    "compact", 0};

/* ---- Three-way partition: values 1 to 100; x < 20 first, then x > 50, then the rest ---- */

static int partition3_prepare(workload *w)
{
    uint64_t state = first_state(0x94D049BB133111EBull);
    FOR_EACH_TYPE(w->type, {
        T *x = w->in;
        for (size_t i = 0; i < w->n; i++)
            x[i] = (T)(next_random(&state) % 100 + 1);
    })
    cl_int err;
    w->scratch = calloc(1, sizeof(size_t)); /* the C loop's second count */
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, 2 * sizeof(cl_ulong), NULL, &err);
    return w->scratch && err == CL_SUCCESS && upload(w) && device_output(w, w->in_bytes);
}

/* 20 and 50 in the element type. */
static void partition3_limits(clprim_type t, void *below, void *above)
{
    FOR_EACH_TYPE(t, {
        const T low = 20, high = 50;
        memcpy(below, &low, sizeof low);
        memcpy(above, &high, sizeof high);
    })
}

static clprim_status partition3_run(workload *w)
{
    unsigned char below[8], above[8];
    partition3_limits(w->type, below, above);
    const clprim_predicate first = {CLPRIM_KEEP_LT, below, NULL, 0, NULL};
    const clprim_predicate second = {CLPRIM_KEEP_GT, above, NULL, 0, NULL};
    /* The counts stay on the device: nothing blocks. */
    return clprim_partition_three_way(w->ctx, w->type, &first, &second, w->in_buf, 0, w->out_buf, 0, w->n, NULL,
                                      NULL, w->aux_buf, 0, 0, NULL, NULL);
}

/* Two passes: the parts' sizes, then each element at its part's next place. */
static void partition3_cpu(workload *w)
{
    unsigned char below[8], above[8];
    partition3_limits(w->type, below, above);
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect, low, high;
        memcpy(&low, below, sizeof low);
        memcpy(&high, above, sizeof high);
        size_t firsts = 0, seconds = 0;
        for (size_t i = 0; i < w->n; i++) {
            firsts += x[i] < low;
            seconds += !(x[i] < low) && x[i] > high;
        }
        size_t at[3] = {0, firsts, firsts + seconds};
        for (size_t i = 0; i < w->n; i++) {
            const T v = x[i];
            y[at[v < low ? 0 : v > high ? 1 : 2]++] = v;
        }
        w->count = firsts;
        *(size_t *)w->scratch = seconds;
    })
}

static int partition3_check(workload *w, char *why, size_t size)
{
    cl_ulong counts[2] = {0, 0};
    clEnqueueReadBuffer(clprim_queue(w->ctx), w->aux_buf, CL_TRUE, 0, sizeof counts, counts, 0, NULL, NULL);
    const size_t seconds = *(const size_t *)w->scratch;
    if (counts[0] != w->count || counts[1] != seconds) {
        snprintf(why, size, "parts of %llu and %llu elements, the C loop %zu and %zu", (unsigned long long)counts[0],
                 (unsigned long long)counts[1], w->count, seconds);
        return 0;
    }
    return same_bytes(w, w->n * w->elem, why, size); /* every element is written */
}

static const workload_kind partition_three_way = {"partition-three-way", partition3_prepare, partition3_run,
                                                  partition3_cpu,        partition3_check,   partition_bytes,
                                                  NULL,                  NULL,               "compact",
                                                  1};

/* ---- By key: int32 keys in runs of about 100, the values w->in ---- */

#define MEAN_RUN 100

static int keys_prepare(workload *w)
{
    w->keys = malloc(w->n * sizeof *w->keys);
    if (!w->keys)
        return 0;
    uint64_t state = first_state(0x9E3779B97F4A7C15ull);
    int32_t key = 0;
    for (size_t i = 0; i < w->n; i++) {
        key += next_random(&state) % MEAN_RUN == 0;
        w->keys[i] = key;
    }
    cl_int err;
    w->keys_buf = clCreateBuffer(w->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w->n * sizeof *w->keys, w->keys,
                                 &err);
    return err == CL_SUCCESS;
}

static int scan_by_key_prepare(workload *w)
{
    return keys_prepare(w) && device_output(w, w->in_bytes);
}

static clprim_status scan_by_key_run(workload *w)
{
    return clprim_scan_by_key(w->ctx, CLPRIM_INT32, w->type, CLPRIM_SUM, NULL, 0, w->keys_buf, 0, w->in_buf, 0,
                              w->out_buf, 0, w->n, 0, NULL, NULL);
}

static void scan_by_key_cpu(workload *w)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect, acc = 0;
        for (size_t i = 0; i < w->n; i++) {
            acc = i > 0 && w->keys[i] == w->keys[i - 1] ? (T)(acc + x[i]) : x[i];
            y[i] = acc;
        }
    })
}

/* Keys, values in, values out. */
static double scan_by_key_bytes(const workload *w)
{
    return 2.0 * (double)w->in_bytes + (double)w->n * sizeof(int32_t);
}

static const workload_kind scan_by_key = {"scan-by-key",   scan_by_key_prepare, scan_by_key_run,
                                          scan_by_key_cpu, whole_output_check,  scan_by_key_bytes,
                                          NULL,            NULL,
    "scan_by_key", 0};

static int reduce_by_key_prepare(workload *w)
{
    cl_int err, err2;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, sizeof(cl_ulong), NULL, &err);
    w->keys_out_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, w->n * sizeof(int32_t), NULL, &err2);
    return err == CL_SUCCESS && err2 == CL_SUCCESS && keys_prepare(w) && device_output(w, w->in_bytes);
}

static clprim_status reduce_by_key_run(workload *w)
{
    /* The count stays on the device: nothing blocks, as in a pipeline. */
    return clprim_reduce_by_key(w->ctx, CLPRIM_INT32, w->type, CLPRIM_SUM, NULL, w->keys_buf, 0, w->in_buf, 0, w->n,
                                w->keys_out_buf, 0, w->out_buf, 0, NULL, w->aux_buf, 0, 0, NULL, NULL);
}

static void reduce_by_key_cpu(workload *w)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect, acc = 0;
        size_t runs = 0;
        for (size_t i = 0; i < w->n; i++) {
            acc = i > 0 && w->keys[i] == w->keys[i - 1] ? (T)(acc + x[i]) : x[i];
            if (i + 1 == w->n || w->keys[i + 1] != w->keys[i])
                y[runs++] = acc;
        }
        w->count = runs;
    })
}

/* Keys and values in, a key and a value out per run. */
static double reduce_by_key_bytes(const workload *w)
{
    return (double)w->in_bytes + (double)w->n * sizeof(int32_t) +
           (double)w->count * (double)(w->elem + sizeof(int32_t));
}

static const workload_kind reduce_by_key = {"reduce-by-key",   reduce_by_key_prepare, reduce_by_key_run,
                                            reduce_by_key_cpu, compact_check,         reduce_by_key_bytes,
                                            NULL,              NULL,
    "reduce_by_key", 0};

/* Each run's first key and value (the keys as reduce by key's). */
static clprim_status unique_by_key_run(workload *w)
{
    return clprim_unique_by_key(w->ctx, CLPRIM_INT32, w->type, w->keys_buf, 0, w->in_buf, 0, w->n, w->keys_out_buf, 0,
                                w->out_buf, 0, NULL, w->aux_buf, 0, 0, NULL, NULL);
}

static void unique_by_key_cpu(workload *w)
{
    size_t runs = 0;
    for (size_t i = 0; i < w->n; i++)
        if (i == 0 || w->keys[i] != w->keys[i - 1])
            memcpy((unsigned char *)w->expect + runs++ * w->elem, (unsigned char *)w->in + i * w->elem, w->elem);
    w->count = runs;
}

static const workload_kind unique_by_key = {"unique-by-key",   reduce_by_key_prepare, unique_by_key_run,
                                            unique_by_key_cpu, compact_check,         reduce_by_key_bytes,
                                            NULL,              NULL,
    "reduce_by_key", 0};

/* ---- Non-trivial runs: where each run of two or more keys starts, and its length ---- */

/* The keys are the input: the bench's int32 keys in runs of about 100. */
static int int32_only(clprim_type t)
{
    return t == CLPRIM_INT32;
}

/* One output buffer: the first indices from 0, the lengths from n / 2 (the
 * most non-trivial runs n keys hold), both cl_ulong. */
static int nontrivial_runs_prepare(workload *w)
{
    cl_int err;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, sizeof(cl_ulong), NULL, &err);
    return err == CL_SUCCESS && keys_prepare(w) && device_output(w, 2 * (w->n / 2 + 1) * sizeof(cl_ulong));
}

static clprim_status nontrivial_runs_run(workload *w)
{
    const size_t half = w->n / 2 + 1;
    return clprim_run_length_encode_nontrivial(w->ctx, CLPRIM_INT32, w->keys_buf, 0, w->n, w->out_buf, 0, w->out_buf,
                                               half, NULL, w->aux_buf, 0, 0, NULL, NULL);
}

static void nontrivial_runs_cpu(workload *w)
{
    const size_t half = w->n / 2 + 1;
    uint64_t *offsets = w->expect, *lengths = offsets + half;
    size_t runs = 0, start = 0;
    for (size_t i = 0; i < w->n; i++)
        if (i + 1 == w->n || w->keys[i + 1] != w->keys[i]) {
            if (i > start) {
                offsets[runs] = start;
                lengths[runs++] = i + 1 - start;
            }
            start = i + 1;
        }
    w->count = runs;
}

static int nontrivial_runs_check(workload *w, char *why, size_t size)
{
    const size_t half = w->n / 2 + 1;
    const uint64_t *got = w->out, *want = w->expect;
    for (size_t r = 0; r < w->count; r++)
        if (got[r] != want[r] || got[half + r] != want[half + r]) {
            snprintf(why, size, "run %zu: first index %llu length %llu, the C loop %llu and %llu", r,
                     (unsigned long long)got[r], (unsigned long long)got[half + r], (unsigned long long)want[r],
                     (unsigned long long)want[half + r]);
            return 0;
        }
    return kept_and_written(w, 0, why, size);
}

/* Keys in, a first index and a length out per non-trivial run. */
static double nontrivial_runs_bytes(const workload *w)
{
    return (double)w->n * sizeof(int32_t) + (double)w->count * 2 * sizeof(cl_ulong);
}

static const workload_kind nontrivial_runs = {"nontrivial-runs",   nontrivial_runs_prepare, nontrivial_runs_run,
                                              nontrivial_runs_cpu, nontrivial_runs_check,   nontrivial_runs_bytes,
                                              int32_only,          NULL,
    "reduce_by_key", 0};

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
    uint64_t state = first_state(0x2545F4914F6CDD1Dull);
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

/* A counting loop: elements [begin, end) of w counted into counts. */
typedef void counting_loop(const workload *w, size_t begin, size_t end, cl_uint *counts);

/* The most counts a histogram workload keeps: four channels of 256 bins. */
#define MAX_COUNTS (4 * HISTOGRAM_BINS)

/* The one-thread C loop: w->out_bytes of counts from zero over every element. */
static void count_every_element(workload *w, counting_loop *loop)
{
    memset(w->expect, 0, w->out_bytes);
    loop(w, 0, w->n, w->expect);
}

/* The OpenMP loop: private counts per thread, added up at the end. */
static void count_every_element_openmp(workload *w, counting_loop *loop)
{
    cl_uint *counts = w->expect;
    const size_t bins = w->out_bytes / sizeof *counts;
    memset(counts, 0, w->out_bytes);
    _Pragma("omp parallel") {
        cl_uint mine[MAX_COUNTS] = {0};
        size_t begin, end;
        thread_slice(w->n, &begin, &end);
        loop(w, begin, end, mine);
        _Pragma("omp critical") for (size_t b = 0; b < bins; b++) counts[b] += mine[b];
    }
}

static void histogram_loop(const workload *w, size_t begin, size_t end, cl_uint *counts)
{
    int floating = is_floating(w->type);
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        for (size_t i = begin; i < end; i++)
            counts[floating ? (size_t)((double)x[i] * HISTOGRAM_BINS) : (size_t)x[i]]++;
    })
}

static void histogram_cpu(workload *w) { count_every_element(w, histogram_loop); }
static void histogram_openmp(workload *w) { count_every_element_openmp(w, histogram_loop); }

static const workload_kind histogram_256 = {"histogram",        histogram_prepare, histogram_run,   histogram_cpu,
                                            whole_output_check, in_bytes,          NULL,            histogram_openmp,
    "histogram", 0};

/* ---- Histograms of RGBA8 pixels: n random pixels; each of the four
 * channels into 256 bins of one value, or R, G and B into 64 bins of four
 * values between edges; each in one call (bench --types uint8) ---- */

#define RGBA_CHANNELS 4
#define RGB_RANGE_BINS 64 /* of 4 values: a sample's bin is sample >> 2 */

static int rgba_only(clprim_type t)
{
    return t == CLPRIM_UINT8;
}

/* The pixels; the counts of `channels` channels of `bins` bins each, one
 * after the other in out_buf. */
static int rgba_prepare(workload *w, size_t channels, size_t bins)
{
    unsigned char *pixels = malloc(w->n ? RGBA_CHANNELS * w->n : 1);
    if (!pixels)
        return 0;
    free(w->in);
    w->in = pixels;
    w->in_bytes = RGBA_CHANNELS * w->n;
    uint64_t state = first_state(0x9FB21C651E98DF25ull);
    for (size_t i = 0; i < w->in_bytes; i++)
        pixels[i] = (unsigned char)(next_random(&state) >> 56);
    return upload(w) && device_output(w, channels * bins * sizeof(cl_uint));
}

static int histogram_rgba_prepare(workload *w)
{
    return rgba_prepare(w, RGBA_CHANNELS, HISTOGRAM_BINS);
}

/* The edges 0, 4, ..., 256 in aux_buf, shared by the three channels. */
static int histogram_rgb_range_prepare(workload *w)
{
    cl_int edges[RGB_RANGE_BINS + 1], err;
    for (size_t b = 0; b <= RGB_RANGE_BINS; b++)
        edges[b] = (cl_int)(4 * b);
    if (!rgba_prepare(w, 3, RGB_RANGE_BINS))
        return 0;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof edges, edges, &err);
    return err == CL_SUCCESS;
}

static clprim_status histogram_rgba_run(workload *w)
{
    const double lo[RGBA_CHANNELS] = {0, 0, 0, 0}, hi[RGBA_CHANNELS] = {256, 256, 256, 256};
    const size_t bins[RGBA_CHANNELS] = {HISTOGRAM_BINS, HISTOGRAM_BINS, HISTOGRAM_BINS, HISTOGRAM_BINS};
    const cl_mem counts[RGBA_CHANNELS] = {w->out_buf, w->out_buf, w->out_buf, w->out_buf};
    const size_t at[RGBA_CHANNELS] = {0, HISTOGRAM_BINS, 2 * HISTOGRAM_BINS, 3 * HISTOGRAM_BINS};
    return clprim_histogram_channels(w->ctx, w->in_buf, 0, w->n, RGBA_CHANNELS, lo, hi, bins, counts, at, 0, 0, NULL,
                                     NULL);
}

static clprim_status histogram_rgb_range_run(workload *w)
{
    const cl_mem edges[3] = {w->aux_buf, w->aux_buf, w->aux_buf}, counts[3] = {w->out_buf, w->out_buf, w->out_buf};
    const size_t edges_at[3] = {0, 0, 0}, bins[3] = {RGB_RANGE_BINS, RGB_RANGE_BINS, RGB_RANGE_BINS};
    const size_t at[3] = {0, RGB_RANGE_BINS, 2 * RGB_RANGE_BINS};
    return clprim_histogram_channels_range(w->ctx, w->in_buf, 0, w->n, 3, edges, edges_at, bins, counts, at, 0, 0,
                                           NULL, NULL);
}

/* Channel c's sample x of pixel i, for the first `channels` channels,
 * counted at counts[c * (256 >> shift) + (x >> shift)]. */
static void rgba_loop(const workload *w, size_t channels, unsigned shift, size_t begin, size_t end, cl_uint *counts)
{
    const unsigned char *p = w->in;
    for (size_t i = begin; i < end; i++)
        for (size_t c = 0; c < channels; c++)
            counts[c * (HISTOGRAM_BINS >> shift) + (p[RGBA_CHANNELS * i + c] >> shift)]++;
}

static void rgba_all_loop(const workload *w, size_t begin, size_t end, cl_uint *counts)
{
    rgba_loop(w, RGBA_CHANNELS, 0, begin, end, counts);
}

static void rgb_range_loop(const workload *w, size_t begin, size_t end, cl_uint *counts)
{
    rgba_loop(w, 3, 2, begin, end, counts);
}

static void histogram_rgba_cpu(workload *w) { count_every_element(w, rgba_all_loop); }
static void histogram_rgba_openmp(workload *w) { count_every_element_openmp(w, rgba_all_loop); }
static void histogram_rgb_range_cpu(workload *w) { count_every_element(w, rgb_range_loop); }
static void histogram_rgb_range_openmp(workload *w) { count_every_element_openmp(w, rgb_range_loop); }

static const workload_kind histogram_rgba = {"histogram-rgba",   histogram_rgba_prepare, histogram_rgba_run,
                                             histogram_rgba_cpu, whole_output_check,     in_bytes,
                                             rgba_only,          histogram_rgba_openmp,  "histogram_channels", 0};
static const workload_kind histogram_rgb_range = {
    "histogram-rgb-range", histogram_rgb_range_prepare, histogram_rgb_range_run, histogram_rgb_range_cpu,
    whole_output_check,    in_bytes,                    rgba_only,               histogram_rgb_range_openmp,
    "histogram_channels",  0};

/* ---- Histogram over edges: the histogram's data in 64 bins of four values
 * (floats: of 1/64) between edges the device reads; the loops search the
 * same edges (w->scratch), as a loop must for edges it does not know ---- */

#define RANGE_BINS 64

static int histogram_range_prepare(workload *w)
{
    if (!histogram_prepare(w))
        return 0;
    unsigned char *edges = calloc(RANGE_BINS + 1, 8);
    if (!edges)
        return 0;
    w->scratch = edges;
    int floating = is_floating(w->type);
    FOR_EACH_TYPE(w->type, {
        T *e = (T *)edges;
        for (size_t b = 0; b <= RANGE_BINS; b++)
            e[b] = floating ? (T)((double)b / RANGE_BINS) : (T)(b * (256 / RANGE_BINS));
    })
    cl_int err;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (RANGE_BINS + 1) * w->elem, edges,
                                &err);
    return err == CL_SUCCESS;
}

static clprim_status histogram_range_run(workload *w)
{
    return clprim_histogram_range(w->ctx, w->type, w->in_buf, 0, w->n, w->aux_buf, 0, RANGE_BINS, w->out_buf, 0, 0, 0,
                                  NULL, NULL);
}

/* The last edge not above x, by bisection, for x within [e[0],
 * e[RANGE_BINS]). */
static void histogram_range_loop(const workload *w, size_t begin, size_t end, cl_uint *counts)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in, *e = w->scratch;
        for (size_t i = begin; i < end; i++) {
            if (!(x[i] >= e[0] && x[i] < e[RANGE_BINS]))
                continue;
            size_t low = 0, high = RANGE_BINS;
            while (high - low > 1) {
                const size_t mid = (low + high) / 2;
                if (e[mid] <= x[i])
                    low = mid;
                else
                    high = mid;
            }
            counts[low]++;
        }
    })
}

static void histogram_range_cpu(workload *w) { count_every_element(w, histogram_range_loop); }
static void histogram_range_openmp(workload *w) { count_every_element_openmp(w, histogram_range_loop); }

static int histogram_range_check(workload *w, char *why, size_t size)
{
    return same_bytes(w, RANGE_BINS * sizeof(cl_uint), why, size);
}

/* Edges up to 256 do not fit a byte. */
static int wider_than_a_byte(clprim_type t)
{
    return t != CLPRIM_UINT8;
}

static const workload_kind histogram_range = {"histogram-range", histogram_range_prepare, histogram_range_run,
                                              histogram_range_cpu, histogram_range_check, in_bytes,
                                              wider_than_a_byte, histogram_range_openmp,
                                              "histogram_range", 0};

/* ---- Argmax: the largest element and its first index ---- */

static clprim_status argmax_run(workload *w)
{
    return clprim_reduce_index(w->ctx, w->type, CLPRIM_MAX, w->in_buf, 0, w->n, w->value, &w->count, 0, NULL);
}

static void argmax_cpu(workload *w)
{
    size_t best = 0;
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        for (size_t i = 1; i < w->n; i++)
            if (x[i] > x[best])
                best = i;
        memcpy(w->expect, &x[best], sizeof(T));
    })
    memcpy((unsigned char *)w->expect + 8, &best, sizeof best);
}

static int argmax_check(workload *w, char *why, size_t size)
{
    size_t best;
    memcpy(&best, (unsigned char *)w->expect + 8, sizeof best);
    if (!memcmp(w->value, w->expect, w->elem) && w->count == best)
        return 1;
    snprintf(why, size, "the largest element or its index (%zu) differs from the C loop's (%zu)", w->count, best);
    return 0;
}

static int argmax_prepare(workload *w)
{
    w->expect = calloc(1, 8 + sizeof(size_t));
    return w->expect != NULL;
}

static const workload_kind argmax = {"argmax", argmax_prepare, argmax_run, argmax_cpu, argmax_check, in_bytes, NULL,
                                     NULL, "reduce_index", 0};

/* The same left on the device (clprim_reduce_index_to): the element at 0 of
 * aux_buf, its index at 8 bytes. */
static int argmax_to_prepare(workload *w)
{
    cl_int err;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, 16, NULL, &err);
    return err == CL_SUCCESS && argmax_prepare(w);
}

static clprim_status argmax_to_run(workload *w)
{
    return clprim_reduce_index_to(w->ctx, w->type, CLPRIM_MAX, w->in_buf, 0, w->n, w->aux_buf, 0, w->aux_buf, 1, 0,
                                  NULL, NULL);
}

static int argmax_to_check(workload *w, char *why, size_t size)
{
    unsigned char answer[16];
    if (clEnqueueReadBuffer(clprim_queue(w->ctx), w->aux_buf, CL_TRUE, 0, sizeof answer, answer, 0, NULL, NULL) !=
        CL_SUCCESS) {
        snprintf(why, size, "reading the answer back failed");
        return 0;
    }
    cl_ulong index;
    memcpy(w->value, answer, w->elem);
    memcpy(&index, answer + 8, sizeof index);
    w->count = (size_t)index;
    return argmax_check(w, why, size);
}

static const workload_kind argmax_to = {"argmax-to", argmax_to_prepare, argmax_to_run, argmax_cpu, argmax_to_check,
                                        in_bytes, NULL, NULL, "reduce_index", 0};

/* ---- Element-wise: a function of each element, its reduction, the
 * adjacent difference, the first match ---- */

#define TRANSFORM_EXPRESSION "x * 3 + 1"

static clprim_status transform_run(workload *w)
{
    const clprim_map f = {TRANSFORM_EXPRESSION, w->type, w->in_buf, 0, 0, NULL, 0};
    return clprim_transform(w->ctx, &f, w->n, w->type, w->out_buf, 0, 0, NULL, NULL);
}

static void transform_cpu(workload *w)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect;
        for (size_t i = 0; i < w->n; i++)
            y[i] = (T)(x[i] * 3 + 1);
    })
}

static void transform_openmp(workload *w)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect;
        _Pragma("omp parallel for") for (size_t i = 0; i < w->n; i++) y[i] = (T)(x[i] * 3 + 1);
    })
}

static const workload_kind transform = {"transform",      scan_prepare,     transform_run, transform_cpu,
                                        whole_output_check, in_and_out_bytes, NULL,          transform_openmp,
                                        "transform",      1};

/* 2x^2 - 5 summed without storing it: on the float data (+-1, +-2) it is -3
 * or 3, so every partial sum is a small integer and exact in any grouping. */
#define TRANSFORM_REDUCE_EXPRESSION "2 * x * x - 5"

static clprim_status transform_reduce_run(workload *w)
{
    const clprim_map f = {TRANSFORM_REDUCE_EXPRESSION, w->type, w->in_buf, 0, 0, NULL, 0};
    return clprim_transform_reduce(w->ctx, &f, w->n, w->type, CLPRIM_SUM, NULL, w->aux_buf, 1, 0, NULL, NULL);
}

#define TRANSFORM_REDUCE_ELEMENT(v) (2 * (v) * (v) - 5)
DEFINE_SUM_LOOPS(transform_reduce_cpu, transform_reduce_openmp, TRANSFORM_REDUCE_ELEMENT)

static const workload_kind transform_reduce = {"transform-reduce", reduce_to_prepare, transform_reduce_run,
                                               transform_reduce_cpu, reduce_to_check, in_bytes, NULL,
                                               transform_reduce_openmp, "transform", 1};

static clprim_status adjacent_difference_run(workload *w)
{
    return clprim_adjacent_difference(w->ctx, w->type, NULL, w->in_buf, 0, w->out_buf, 0, w->n, 0, NULL, NULL);
}

static void adjacent_difference_loop(workload *w, size_t begin, size_t end)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect;
        for (size_t i = begin; i < end; i++)
            y[i] = i ? (T)(x[i] - x[i - 1]) : x[0];
    })
}

static void adjacent_difference_cpu(workload *w)
{
    adjacent_difference_loop(w, 0, w->n);
}

static void adjacent_difference_openmp(workload *w)
{
    _Pragma("omp parallel") {
        size_t begin, end;
        thread_slice(w->n, &begin, &end);
        adjacent_difference_loop(w, begin, end);
    }
}

static const workload_kind adjacent_difference = {"adjacent-difference", scan_prepare, adjacent_difference_run,
                                                  adjacent_difference_cpu, whole_output_check, in_and_out_bytes,
                                                  NULL, adjacent_difference_openmp, "transform", 0};

/* The first element above 200, planted at the last place: a whole pass. */
#define FIND_ABOVE 200

static int find_prepare(workload *w)
{
    if (w->n > 0) {
        FOR_EACH_TYPE(w->type, { ((T *)w->in)[w->n - 1] = (T)(FIND_ABOVE + 1); })
    }
    return upload(w) && reduce_to_prepare(w);
}

static clprim_status find_run(workload *w)
{
    unsigned char above[8];
    FOR_EACH_TYPE(w->type, {
        const T limit = FIND_ABOVE;
        memcpy(above, &limit, sizeof limit);
    })
    const clprim_predicate keep = {CLPRIM_KEEP_GT, above, NULL, 0, NULL};
    return clprim_find_if(w->ctx, w->type, &keep, w->in_buf, 0, w->n, w->aux_buf, 1, 0, NULL, NULL);
}

static void find_loop(workload *w, size_t begin, size_t end, size_t *first)
{
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        for (size_t i = begin; i < end; i++)
            if (x[i] > (T)FIND_ABOVE) {
                *first = i;
                return;
            }
    })
}

static void find_cpu(workload *w)
{
    w->count = w->n;
    find_loop(w, 0, w->n, &w->count);
}

/* Each thread finds the first match of its slice; the lowest wins. */
static void find_openmp(workload *w)
{
    size_t first = w->n;
    _Pragma("omp parallel") {
        size_t begin, end, mine = w->n;
        thread_slice(w->n, &begin, &end);
        find_loop(w, begin, end, &mine);
        _Pragma("omp critical") first = mine < first ? mine : first;
    }
    w->count = first;
}

static int find_check(workload *w, char *why, size_t size)
{
    cl_ulong index = 0;
    if (clEnqueueReadBuffer(clprim_queue(w->ctx), w->aux_buf, CL_TRUE, sizeof index, sizeof index, &index, 0, NULL,
                            NULL) != CL_SUCCESS) {
        snprintf(why, size, "reading the index back failed");
        return 0;
    }
    if (index == w->count)
        return 1;
    snprintf(why, size, "found index %llu, the C loop %zu", (unsigned long long)index, w->count);
    return 0;
}

static const workload_kind find_if = {"find-if", find_prepare, find_run, find_cpu, find_check, in_bytes, NULL,
                                      find_openmp, "compact", 0};

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
    uint64_t state = first_state(0x853C49E6748FEA9Bull);
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
static void threshold_pixels(workload *w, size_t begin, size_t end)
{
    const float *r = w->in, *g = r + w->n, *b = g + w->n;
    float *out = w->expect, limit = THRESHOLD_RATIO * THRESHOLD_RATIO;
    for (size_t i = begin; i < end; i++) {
        int selected = r[i] > 0 && r[i] * r[i] > limit * ((r[i] * r[i] + g[i] * g[i]) + b[i] * b[i]);
        out[i] = selected ? r[i] : 0.0f;
        out[i + w->n] = selected ? g[i] : 0.0f;
        out[i + 2 * w->n] = selected ? b[i] : 0.0f;
    }
}

static void threshold_cpu(workload *w)
{
    threshold_pixels(w, 0, w->n);
}

static void threshold_openmp(workload *w)
{
#pragma omp parallel
    {
        size_t begin, end;
        thread_slice(w->n, &begin, &end);
        threshold_pixels(w, begin, end);
    }
}

static const workload_kind threshold_planar = {"threshold",        threshold_prepare, threshold_run, threshold_cpu,
                                               whole_output_check, in_and_out_bytes,  float_only,    threshold_openmp,
    "threshold", 0};

/* ---- Radix sort: keys alone, and (key, uint32 value) pairs ----
 * The input buffer holds the keys, then for pairs the values: the bench's copy
 * baseline copies exactly the keys (and values) once, and the fewest bytes
 * moved are those read once and written once. */

/* Every key type the sort takes: the 32- and 64-bit ones. */
static int sortable(clprim_type t)
{
    return type_size(t) == 4 || type_size(t) == 8;
}

static uint64_t sort_key_at(const void *keys, size_t size, size_t i)
{
    return size == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

static void sort_key_put(void *keys, size_t size, size_t i, uint64_t k)
{
    if (size == 4)
        ((uint32_t *)keys)[i] = (uint32_t)k;
    else
        ((uint64_t *)keys)[i] = k;
}

static uint32_t *sort_values(void *data, const workload *w)
{
    return (uint32_t *)((unsigned char *)data + w->n * w->elem);
}

/* Random keys of every bit pattern (for floats and doubles NaNs and infinities
 * too, which the sort puts in its documented total order); random values. */
static int sort_fill(workload *w, int pairs)
{
    size_t bytes = w->n * (w->elem + (pairs ? sizeof(uint32_t) : 0));
    unsigned char *data = malloc(bytes ? bytes : 1);
    if (!data)
        return 0;
    free(w->in);
    w->in = data;
    w->in_bytes = bytes;
    uint64_t state = first_state(0xD1B54A32D192ED03ull);
    for (size_t i = 0; i < w->n; i++) {
        uint64_t r = next_random(&state);
        sort_key_put(data, w->elem, i, w->elem == 4 ? r >> 32 : r);
    }
    for (size_t i = 0; pairs && i < w->n; i++)
        sort_values(data, w)[i] = (uint32_t)(next_random(&state) >> 32);
    return upload(w);
}

static int sort_prepare(workload *w, int pairs)
{
    /* The C loop's keys as 64-bit words and its values, twice (LSD ping-pong). */
    w->scratch = calloc(w->n ? w->n : 1, 2 * sizeof(uint64_t) + 2 * sizeof(uint32_t));
    return w->scratch && sort_fill(w, pairs) && device_output(w, w->in_bytes);
}

static int sort_keys_prepare(workload *w) { return sort_prepare(w, 0); }
static int sort_pairs_prepare(workload *w) { return sort_prepare(w, 1); }

static clprim_status sort_keys_run(workload *w)
{
    return clprim_sort_keys(w->ctx, w->type, NULL, w->in_buf, 0, w->out_buf, 0, w->n, 0, NULL, NULL);
}

/* Keys then values in each buffer; value offsets count uint32 values. */
static clprim_status sort_pairs_run(workload *w)
{
    size_t values_at = w->n * w->elem / sizeof(uint32_t);
    return clprim_sort_pairs(w->ctx, w->type, CLPRIM_UINT32, NULL, w->in_buf, 0, w->out_buf, 0, w->in_buf,
                             values_at, w->out_buf, values_at, w->n, 0, NULL, NULL);
}

/* The key's ordered form of `width` bits, as clprim.h defines it. */
static uint64_t sort_ordered(clprim_type t, uint64_t k, unsigned width)
{
    uint64_t sign = (uint64_t)1 << (width - 1), all = sign | (sign - 1);
    if (t == CLPRIM_UINT32 || t == CLPRIM_UINT64)
        return k;
    if (is_floating(t) && (k & sign))
        return ~k & all;
    return k ^ sign;
}

/* The bits whose ordered form (sort_ordered) is o. */
static uint64_t sort_unordered(clprim_type t, uint64_t o, unsigned width)
{
    uint64_t sign = (uint64_t)1 << (width - 1), all = sign | (sign - 1);
    if (t == CLPRIM_UINT32 || t == CLPRIM_UINT64)
        return o;
    if (is_floating(t) && !(o & sign))
        return ~o & all;
    return o ^ sign;
}

/* The C sorts' keys as 64-bit words (their ordered form, or as they are)
 * and values, in w->scratch, each followed by room for a copy. */
typedef struct {
    uint64_t *keys, *tmp_keys;
    uint32_t *values, *tmp_values;
} sort_arrays;

static sort_arrays sort_cpu_begin(workload *w, int pairs, int ordered)
{
    const size_t n = w->n;
    sort_arrays a = {w->scratch, (uint64_t *)w->scratch + n, NULL, NULL};
    a.values = (uint32_t *)(a.tmp_keys + n), a.tmp_values = a.values + n;
    for (size_t i = 0; i < n; i++) {
        const uint64_t k = sort_key_at(w->in, w->elem, i);
        a.keys[i] = ordered ? sort_ordered(w->type, k, 8 * (unsigned)w->elem) : k;
    }
    if (pairs)
        memcpy(a.values, sort_values(w->in, w), n * sizeof *a.values);
    return a;
}

/* The sorted copies become the arrays (after a pass of the C sorts). */
static void sort_cpu_swap(sort_arrays *a)
{
    uint64_t *keys = a->keys;
    a->keys = a->tmp_keys, a->tmp_keys = keys;
    uint32_t *values = a->values;
    a->values = a->tmp_values, a->tmp_values = values;
}

/* The sorted keys (from their ordered form) and values to expect, laid out as
 * the device writes them. */
static void sort_cpu_end(workload *w, int pairs, int ordered, const sort_arrays *a)
{
    for (size_t i = 0; i < w->n; i++)
        sort_key_put(w->expect, w->elem, i,
                     ordered ? sort_unordered(w->type, a->keys[i], 8 * (unsigned)w->elem) : a->keys[i]);
    if (pairs)
        memcpy(sort_values(w->expect, w), a->values, w->n * sizeof *a->values);
}

/* LSD radix sort, 8 bits a pass over the key's width (4 passes for 32-bit keys,
 * 8 for 64-bit): stable counting sorts of the keys, and of the values with
 * them; the result goes to expect laid out as the device writes it. */
static void sort_cpu(workload *w, int pairs)
{
    const size_t n = w->n;
    const unsigned width = 8 * (unsigned)w->elem;
    sort_arrays a = sort_cpu_begin(w, pairs, 0);
    for (unsigned shift = 0; shift < width; shift += 8) {
        size_t start[257] = {0};
        for (size_t i = 0; i < n; i++)
            start[((sort_ordered(w->type, a.keys[i], width) >> shift) & 255) + 1]++;
        for (size_t d = 0; d < 256; d++)
            start[d + 1] += start[d];
        for (size_t i = 0; i < n; i++) {
            size_t to = start[(sort_ordered(w->type, a.keys[i], width) >> shift) & 255]++;
            a.tmp_keys[to] = a.keys[i];
            if (pairs)
                a.tmp_values[to] = a.values[i];
        }
        sort_cpu_swap(&a);
    }
    sort_cpu_end(w, pairs, 0, &a);
}

static void sort_keys_cpu(workload *w) { sort_cpu(w, 0); }
static void sort_pairs_cpu(workload *w) { sort_cpu(w, 1); }

static const workload_kind sort_keys = {"sort-keys", sort_keys_prepare, sort_keys_run, sort_keys_cpu,
                                        whole_output_check, in_and_out_bytes, sortable, NULL,
    "radix_sort", 0};
static const workload_kind sort_pairs = {"sort-pairs", sort_pairs_prepare, sort_pairs_run, sort_pairs_cpu,
                                         whole_output_check, in_and_out_bytes, sortable, NULL,
    "radix_sort", 0};

/* ---- Top-k: the 1000 smallest of the sort's keys, beside `sort-keys` at
 * the same sizes (bench --primitives top-k,sort-keys) ---- */

#define TOP_K 1000

/* A key of the C loop: its ordered form, then its index (ties: the lower
 * index first, as the stable sort's first k). */
typedef struct {
    uint64_t ordered, index;
} top_k_entry;

/* The sort's random keys; in w->scratch a heap of k entries for each OpenMP
 * thread and one for their merge. */
static int top_k_prepare(workload *w)
{
    const size_t threads = workload_openmp_threads() > 1 ? (size_t)workload_openmp_threads() : 1;
    w->count = w->n < TOP_K ? w->n : TOP_K;
    w->scratch = calloc((threads + 1) * (w->count ? w->count : 1), sizeof(top_k_entry));
    return w->scratch && sort_fill(w, 0) && device_output(w, w->count ? w->count * w->elem : 1);
}

static clprim_status top_k_run(workload *w)
{
    return clprim_top_k_keys(w->ctx, w->type, NULL, w->count, w->in_buf, 0, w->n, w->out_buf, 0, 0, NULL, NULL);
}

static int top_k_before(top_k_entry a, top_k_entry b)
{
    return a.ordered < b.ordered || (a.ordered == b.ordered && a.index < b.index);
}

/* heap[0 .. size) a max-heap by top_k_before: heap[at] sifted down. */
static void top_k_sift(top_k_entry *heap, size_t size, size_t at)
{
    for (size_t child; (child = 2 * at + 1) < size; at = child) {
        if (child + 1 < size && top_k_before(heap[child], heap[child + 1]))
            child++;
        if (!top_k_before(heap[at], heap[child]))
            return;
        const top_k_entry swap = heap[at];
        heap[at] = heap[child], heap[child] = swap;
    }
}

/* The first k of entries (from `from`, or of keys [begin, end) of the input
 * when from is NULL) into the max-heap heap; returns its size. One compare
 * per entry that does not enter. */
static size_t top_k_select_into(workload *w, const top_k_entry *from, size_t begin, size_t end, top_k_entry *heap)
{
    const unsigned width = 8 * (unsigned)w->elem;
    size_t size = 0;
    for (size_t i = begin; i < end; i++) {
        const top_k_entry e =
            from ? from[i] : (top_k_entry){sort_ordered(w->type, sort_key_at(w->in, w->elem, i), width), i};
        if (size < w->count) {
            heap[size++] = e;
            if (size == w->count)
                for (size_t at = size / 2; at-- > 0;)
                    top_k_sift(heap, size, at);
        } else if (top_k_before(e, heap[0])) {
            heap[0] = e;
            top_k_sift(heap, size, 0);
        }
    }
    if (size < w->count) /* fewer than k: a heap of them all */
        for (size_t at = size / 2; at-- > 0;)
            top_k_sift(heap, size, at);
    return size;
}

/* The heap's entries, smallest first, as keys into expect. */
static void top_k_write(workload *w, top_k_entry *heap, size_t size)
{
    while (size > 0) {
        const top_k_entry largest = heap[0];
        heap[0] = heap[--size];
        top_k_sift(heap, size, 0);
        sort_key_put(w->expect, w->elem, size, sort_key_at(w->in, w->elem, largest.index));
    }
}

static void top_k_cpu(workload *w)
{
    top_k_entry *heap = w->scratch;
    top_k_write(w, heap, top_k_select_into(w, NULL, 0, w->n, heap));
}

/* Each thread a heap of its slice's first k, then those heaps' first k. */
static void top_k_openmp(workload *w)
{
    top_k_entry *heaps = w->scratch;
    size_t threads = 1;
    _Pragma("omp parallel") {
        size_t begin, end;
        const size_t id = (size_t)thread_slice(w->n, &begin, &end);
        const size_t size = top_k_select_into(w, NULL, begin, end, heaps + id * w->count);
        for (size_t i = size; i < w->count; i++) /* a short slice: its heap padded past every key */
            heaps[id * w->count + i] = (top_k_entry){UINT64_MAX, UINT64_MAX};
#ifdef _OPENMP
        if (id == 0)
            threads = (size_t)omp_get_num_threads();
#endif
    }
    top_k_entry *last = heaps + threads * w->count;
    top_k_write(w, last, top_k_select_into(w, heaps, 0, threads * w->count, last));
}

/* The keys read once, k written. */
static double top_k_bytes(const workload *w)
{
    return (double)w->in_bytes + (double)w->count * (double)w->elem;
}

static const workload_kind top_k = {"top-k", top_k_prepare, top_k_run, top_k_cpu, whole_output_check,
                                    top_k_bytes, sortable, top_k_openmp, "top_k", 0};

/* ---- Merge sort by the comparator "a < b": keys alone and (key, uint32
 * value) pairs, on the radix sort's data (full-entropy integer keys) ---- */

static int merge_sortable(clprim_type t)
{
    return sortable(t) && !is_floating(t); /* random float bits hold NaNs, which "a < b" does not order */
}

static clprim_status merge_sort_keys_run(workload *w)
{
    return clprim_merge_sort(w->ctx, w->type, CLPRIM_UINT32, "a < b", w->in_buf, 0, w->out_buf, 0, NULL, 0, NULL, 0,
                             w->n, 0, NULL, NULL);
}

static clprim_status merge_sort_pairs_run(workload *w)
{
    size_t values_at = w->n * w->elem / sizeof(uint32_t);
    return clprim_merge_sort(w->ctx, w->type, CLPRIM_UINT32, "a < b", w->in_buf, 0, w->out_buf, 0, w->in_buf,
                             values_at, w->out_buf, values_at, w->n, 0, NULL, NULL);
}

/* A bottom-up stable merge sort of a->keys[lo, hi) (their ordered forms: for
 * integers, the order of "a < b"), the values moved with them; the tmp
 * arrays' same elements are its second buffer. */
static void sort_range(sort_arrays *a, size_t lo, size_t hi, int pairs)
{
    uint64_t *keys = a->keys, *tmp_keys = a->tmp_keys;
    uint32_t *values = a->values, *tmp_values = a->tmp_values;
    for (size_t run = 1; run < hi - lo; run *= 2) {
        for (size_t left = lo; left < hi; left += 2 * run) {
            const size_t mid = hi - left > run ? left + run : hi, right = hi - left > 2 * run ? left + 2 * run : hi;
            size_t i = left, j = mid, k = left;
            while (i < mid && j < right) {
                const size_t from = keys[j] < keys[i] ? j++ : i++;
                tmp_keys[k] = keys[from];
                if (pairs)
                    tmp_values[k] = values[from];
                k++;
            }
            memcpy(tmp_keys + k, keys + i, (mid - i) * sizeof *keys);
            memcpy(tmp_keys + k + (mid - i), keys + j, (right - j) * sizeof *keys);
            if (pairs) {
                memcpy(tmp_values + k, values + i, (mid - i) * sizeof *values);
                memcpy(tmp_values + k + (mid - i), values + j, (right - j) * sizeof *values);
            }
        }
        uint64_t *swap_keys = keys;
        keys = tmp_keys, tmp_keys = swap_keys;
        uint32_t *swap_values = values;
        values = tmp_values, tmp_values = swap_values;
    }
    if (keys != a->keys) {
        memcpy(a->keys + lo, keys + lo, (hi - lo) * sizeof *keys);
        if (pairs)
            memcpy(a->values + lo, values + lo, (hi - lo) * sizeof *values);
    }
}

static void merge_sort_cpu(workload *w, int pairs)
{
    sort_arrays a = sort_cpu_begin(w, pairs, 1);
    sort_range(&a, 0, w->n, pairs);
    sort_cpu_end(w, pairs, 1, &a);
}

static void merge_sort_keys_cpu(workload *w) { merge_sort_cpu(w, 0); }
static void merge_sort_pairs_cpu(workload *w) { merge_sort_cpu(w, 1); }

static const workload_kind merge_sort_keys = {"merge-sort", sort_keys_prepare, merge_sort_keys_run,
                                              merge_sort_keys_cpu, whole_output_check, in_and_out_bytes,
                                              merge_sortable, NULL, "merge_sort", 1};
static const workload_kind merge_sort_pairs = {"merge-sort-pairs", sort_pairs_prepare, merge_sort_pairs_run,
                                               merge_sort_pairs_cpu, whole_output_check, in_and_out_bytes,
                                               merge_sortable, NULL, "merge_sort", 1};

/* ---- Segmented reduce: CUB's shape, segment lengths uniform in 1..127 ---- */

/* Offsets of segments whose lengths are uniform in 1..127 (mean 64), the
 * last cut at n: *segments + 1 of them, malloc'ed, and a copy on the device
 * in aux_buf; NULL on failure. */
static cl_ulong *segment_offsets(workload *w, size_t *segments)
{
    const size_t most = w->n + 2;
    cl_ulong *offsets = malloc(most * sizeof *offsets);
    if (!offsets)
        return NULL;
    uint64_t state = first_state(0xD6E8FEB86659FD93ull);
    size_t count = 0;
    offsets[0] = 0;
    while (offsets[count] < w->n) {
        const size_t length = 1 + (size_t)(next_random(&state) % 127);
        offsets[count + 1] = w->n - offsets[count] < length ? w->n : offsets[count] + length;
        count++;
    }
    *segments = count;
    cl_int err;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (count + 1) * sizeof *offsets,
                                offsets, &err);
    if (err != CL_SUCCESS) {
        free(offsets);
        return NULL;
    }
    return offsets;
}

/* The offsets in w->scratch; an output of out_bytes a segment. */
static int segmented_prepare_out(workload *w, size_t out_bytes)
{
    w->scratch = segment_offsets(w, &w->count);
    return w->scratch && device_output(w, (w->count ? w->count : 1) * out_bytes);
}

/* A sum per segment out. */
static int segmented_prepare(workload *w)
{
    return segmented_prepare_out(w, w->elem);
}

static clprim_status segmented_run(workload *w)
{
    return clprim_segmented_reduce(w->ctx, w->type, CLPRIM_SUM, NULL, w->in_buf, 0, w->n, w->aux_buf, 0, w->count,
                                   w->out_buf, 0, 0, NULL, NULL);
}

static void segmented_loop(workload *w, size_t begin, size_t end)
{
    const cl_ulong *offsets = w->scratch;
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        T *y = w->expect;
        for (size_t s = begin; s < end; s++) {
            T acc = 0;
            for (size_t i = offsets[s]; i < offsets[s + 1]; i++)
                acc = (T)(acc + x[i]);
            y[s] = acc;
        }
    })
}

static void segmented_cpu(workload *w)
{
    segmented_loop(w, 0, w->count);
}

static void segmented_openmp(workload *w)
{
    _Pragma("omp parallel") {
        size_t begin, end;
        thread_slice(w->count, &begin, &end);
        segmented_loop(w, begin, end);
    }
}

static int segmented_check(workload *w, char *why, size_t size)
{
    return same_bytes(w, w->count * w->elem, why, size);
}

/* The values and offsets read, a sum a segment written. */
static double segmented_bytes(const workload *w)
{
    return (double)w->in_bytes + (double)(w->count + 1) * sizeof(cl_ulong) + (double)w->count * (double)w->elem;
}

static const workload_kind segmented_reduce = {"segmented-reduce", segmented_prepare, segmented_run,
                                               segmented_cpu,      segmented_check,   segmented_bytes,
                                               NULL,               segmented_openmp,  "segmented_reduce", 0};

/* ---- Segmented argmin: the index of each segment's smallest element, on
 * the segmented reduce's segments (the values' many ties go to the first) ---- */

static int segmented_argmin_prepare(workload *w)
{
    return segmented_prepare_out(w, sizeof(cl_ulong));
}

static clprim_status segmented_argmin_run(workload *w)
{
    return clprim_segmented_reduce_index(w->ctx, w->type, CLPRIM_MIN, w->in_buf, 0, w->n, w->aux_buf, 0, w->count,
                                         NULL, 0, w->out_buf, 0, 0, NULL, NULL);
}

/* clprim_reduce_index's rule: a smaller value wins, a NaN loses to any
 * number, ties keep the first. */
static void segmented_argmin_loop(workload *w, size_t begin, size_t end)
{
    const cl_ulong *offsets = w->scratch;
    cl_ulong *at = w->expect;
    FOR_EACH_TYPE(w->type, {
        const T *x = w->in;
        for (size_t s = begin; s < end; s++) {
            cl_ulong best = offsets[s] < offsets[s + 1] ? offsets[s] : CL_ULONG_MAX;
            for (size_t i = offsets[s] + 1; i < offsets[s + 1]; i++)
                if (x[i] < x[best] || (x[best] != x[best] && x[i] == x[i]))
                    best = i;
            at[s] = best;
        }
    })
}

static void segmented_argmin_cpu(workload *w)
{
    segmented_argmin_loop(w, 0, w->count);
}

static void segmented_argmin_openmp(workload *w)
{
    _Pragma("omp parallel") {
        size_t begin, end;
        thread_slice(w->count, &begin, &end);
        segmented_argmin_loop(w, begin, end);
    }
}

static int segmented_argmin_check(workload *w, char *why, size_t size)
{
    return same_bytes(w, w->count * sizeof(cl_ulong), why, size);
}

/* The values and offsets read, an index a segment written. */
static double segmented_argmin_bytes(const workload *w)
{
    return (double)w->in_bytes + (double)(w->count + 1) * sizeof(cl_ulong) + (double)w->count * sizeof(cl_ulong);
}

static const workload_kind segmented_argmin = {"segmented-argmin",      segmented_argmin_prepare,
                                               segmented_argmin_run,    segmented_argmin_cpu,
                                               segmented_argmin_check,  segmented_argmin_bytes,
                                               NULL,                    segmented_argmin_openmp,
                                               "segmented_reduce_index", 0};

/* ---- Segmented sort: the radix sort's keys (and uint32 values) in the
 * segments of segmented-reduce (lengths 1..127) ---- */

/* The C loop's arrays (sort_prepare's), then the offsets. */
static const cl_ulong *segsort_offsets(const workload *w)
{
    return (const cl_ulong *)((const unsigned char *)w->scratch +
                              (w->n ? w->n : 1) * (2 * sizeof(uint64_t) + 2 * sizeof(uint32_t)));
}

static int segmented_sort_prepare(workload *w, int pairs)
{
    if (!sort_prepare(w, pairs))
        return 0;
    cl_ulong *offsets = segment_offsets(w, &w->count);
    const size_t arrays = (w->n ? w->n : 1) * (2 * sizeof(uint64_t) + 2 * sizeof(uint32_t));
    void *scratch = offsets ? realloc(w->scratch, arrays + (w->count + 1) * sizeof *offsets) : NULL;
    if (scratch) {
        w->scratch = scratch;
        memcpy((unsigned char *)scratch + arrays, offsets, (w->count + 1) * sizeof *offsets);
    }
    free(offsets);
    return scratch != NULL;
}

static int segmented_sort_keys_prepare(workload *w) { return segmented_sort_prepare(w, 0); }
static int segmented_sort_pairs_prepare(workload *w) { return segmented_sort_prepare(w, 1); }

static clprim_status segmented_sort_keys_run(workload *w)
{
    return clprim_segmented_sort_keys(w->ctx, w->type, NULL, w->in_buf, 0, w->out_buf, 0, w->n, w->aux_buf, 0,
                                      w->count, 0, NULL, NULL);
}

static clprim_status segmented_sort_pairs_run(workload *w)
{
    size_t values_at = w->n * w->elem / sizeof(uint32_t);
    return clprim_segmented_sort_pairs(w->ctx, w->type, CLPRIM_UINT32, NULL, w->in_buf, 0, w->out_buf, 0, w->in_buf,
                                       values_at, w->out_buf, values_at, w->n, w->aux_buf, 0, w->count, 0, NULL,
                                       NULL);
}

/* Segments [begin, end) sorted one by one, each by a stable merge sort of
 * its keys' ordered forms. */
static void segmented_sort_loop(workload *w, int pairs, size_t begin, size_t end, sort_arrays *a)
{
    const cl_ulong *offsets = segsort_offsets(w);
    for (size_t s = begin; s < end; s++)
        sort_range(a, offsets[s], offsets[s + 1], pairs);
}

static void segmented_sort_cpu(workload *w, int pairs)
{
    sort_arrays a = sort_cpu_begin(w, pairs, 1);
    segmented_sort_loop(w, pairs, 0, w->count, &a);
    sort_cpu_end(w, pairs, 1, &a);
}

static void segmented_sort_openmp(workload *w, int pairs)
{
    sort_arrays a = sort_cpu_begin(w, pairs, 1);
    _Pragma("omp parallel") {
        size_t begin, end;
        thread_slice(w->count, &begin, &end);
        segmented_sort_loop(w, pairs, begin, end, &a);
    }
    sort_cpu_end(w, pairs, 1, &a);
}

static void segmented_sort_keys_cpu(workload *w) { segmented_sort_cpu(w, 0); }
static void segmented_sort_pairs_cpu(workload *w) { segmented_sort_cpu(w, 1); }
static void segmented_sort_keys_openmp(workload *w) { segmented_sort_openmp(w, 0); }
static void segmented_sort_pairs_openmp(workload *w) { segmented_sort_openmp(w, 1); }

/* Keys (and values) read and written, the offsets read. */
static double segmented_sort_bytes(const workload *w)
{
    return 2.0 * (double)w->in_bytes + (double)(w->count + 1) * sizeof(cl_ulong);
}

static const workload_kind segmented_sort_keys = {
    "segmented-sort",     segmented_sort_keys_prepare, segmented_sort_keys_run,    segmented_sort_keys_cpu,
    whole_output_check,   segmented_sort_bytes,        sortable,                   segmented_sort_keys_openmp,
    "segmented_sort",     0};
static const workload_kind segmented_sort_pairs = {
    "segmented-sort-pairs", segmented_sort_pairs_prepare, segmented_sort_pairs_run, segmented_sort_pairs_cpu,
    whole_output_check,     segmented_sort_bytes,         sortable,                 segmented_sort_pairs_openmp,
    "segmented_sort",       0};

/* ---- Search: the lower bound of n random needles among n sorted keys ----
 * Made in the keys' ordered form, so no sort is needed: key i is the ordered
 * value (i / 2) * 2 * step (pairs of equal keys), each needle a random ordered
 * value; both written back as bits. The input buffer holds the sorted keys,
 * then the needles. */

static int search_prepare(workload *w)
{
    const unsigned width = 8 * (unsigned)w->elem;
    const uint64_t top = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
    const uint64_t step = w->n ? top / w->n : 0;
    unsigned char *data = malloc(2 * w->n * w->elem + 1);
    if (!data)
        return 0;
    free(w->in);
    w->in = data;
    w->in_bytes = 2 * w->n * w->elem;
    uint64_t state = first_state(0x94D049BB133111EBull);
    for (size_t i = 0; i < w->n; i++) {
        sort_key_put(data, w->elem, i, sort_unordered(w->type, (uint64_t)(i / 2) * 2 * step, width));
        sort_key_put(data, w->elem, w->n + i, sort_unordered(w->type, next_random(&state) & top, width));
    }
    return upload(w) && device_output(w, w->n * sizeof(cl_ulong));
}

static clprim_status search_run(workload *w)
{
    return clprim_search_sorted(w->ctx, w->type, NULL, 0, w->in_buf, 0, w->n, w->in_buf, w->n, w->n, w->out_buf, 0,
                                0, NULL, NULL);
}

static void search_loop(workload *w, size_t begin, size_t end)
{
    const unsigned width = 8 * (unsigned)w->elem;
    cl_ulong *at = w->expect;
    for (size_t i = begin; i < end; i++) {
        const uint64_t needle = sort_ordered(w->type, sort_key_at(w->in, w->elem, w->n + i), width);
        size_t lo = 0, hi = w->n;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (sort_ordered(w->type, sort_key_at(w->in, w->elem, mid), width) < needle)
                lo = mid + 1;
            else
                hi = mid;
        }
        at[i] = lo;
    }
}

static void search_cpu(workload *w)
{
    search_loop(w, 0, w->n);
}

static void search_openmp(workload *w)
{
    _Pragma("omp parallel") {
        size_t begin, end;
        thread_slice(w->n, &begin, &end);
        search_loop(w, begin, end);
    }
}

/* The needles read and their answers written. */
static double search_bytes(const workload *w)
{
    return (double)w->n * (double)(w->elem + sizeof(cl_ulong));
}

static const workload_kind search = {"search", search_prepare, search_run, search_cpu, whole_output_check,
                                     search_bytes, sortable, search_openmp, "search", 0};

/* ---- Delta packing: keys sorted as a sorted slice would be (each the one
 * before plus a random gap, mean 2^bits / n), packed (`delta-pack`) and
 * unpacked (`delta-unpack`). The C loops write clprim.h's packed form a
 * block at a time through a 64-bit bit buffer. ---- */

#define DELTA_HEADER 6 /* words a block's header takes */

/* The packed form's place: its size (a cl_ulong) in words 0 and 1, then the words. */
#define DELTA_AT 2

static uint64_t delta_mask(size_t elem)
{
    return elem == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * elem)) - 1;
}

static uint64_t delta_element(const workload *w, size_t i)
{
    switch (w->elem) { /* one branch the loops predict, not a memcpy call per element */
    case 1: return ((const uint8_t *)w->in)[i];
    case 4: return ((const uint32_t *)w->in)[i];
    default: return ((const uint64_t *)w->in)[i];
    }
}

/* The difference of element i from the one before, signed in the type's bits. */
static int64_t delta_difference(const workload *w, size_t i)
{
    const unsigned bits = 8 * (unsigned)w->elem;
    const uint64_t d = (delta_element(w, i) - delta_element(w, i - 1)) & delta_mask(w->elem);
    return bits == 64 ? (int64_t)d : (int64_t)(d << (64 - bits)) >> (64 - bits);
}

typedef struct {
    uint64_t step; /* the block's smallest difference, in the type's bits */
    unsigned width;
    size_t words;  /* its differences' words */
} delta_block;

static delta_block delta_measure(const workload *w, size_t b)
{
    const size_t first = b * CLPRIM_DELTA_BLOCK, end = w->n - first < CLPRIM_DELTA_BLOCK ? w->n : first + CLPRIM_DELTA_BLOCK;
    int64_t low = end - first > 1 ? delta_difference(w, first + 1) : 0, high = low;
    for (size_t i = first + 2; i < end; i++) {
        const int64_t d = delta_difference(w, i);
        low = d < low ? d : low;
        high = d > high ? d : high;
    }
    const uint64_t spread = ((uint64_t)high - (uint64_t)low) & delta_mask(w->elem);
    unsigned width = 0;
    while (width < 64 && spread >> width)
        width++;
    return (delta_block){(uint64_t)low & delta_mask(w->elem), width, ((end - first) * width + 31) / 32};
}

/* Block b's header and words into packed (its headers from word 0), its words from `start`. */
static void delta_write(const workload *w, size_t b, const delta_block *k, size_t start, uint32_t *packed)
{
    const size_t blocks = (w->n + CLPRIM_DELTA_BLOCK - 1) / CLPRIM_DELTA_BLOCK, first = b * CLPRIM_DELTA_BLOCK;
    const size_t end = w->n - first < CLPRIM_DELTA_BLOCK ? w->n : first + CLPRIM_DELTA_BLOCK;
    const uint64_t x0 = delta_element(w, first), mask = delta_mask(w->elem);
    uint32_t *header = packed + DELTA_HEADER * b, *out = packed + DELTA_HEADER * blocks + start;
    header[0] = (uint32_t)x0, header[1] = (uint32_t)(x0 >> 32);
    header[2] = (uint32_t)k->step, header[3] = (uint32_t)(k->step >> 32);
    header[4] = (uint32_t)start, header[5] = (uint32_t)k->width << 24 | (uint32_t)(start >> 32);
    uint64_t buffer = 0; /* bits not yet written, the oldest lowest */
    unsigned held = 0;
    for (size_t i = first; i < end; i++) {
        const uint64_t v = i == first ? 0 : (delta_element(w, i) - delta_element(w, i - 1) - k->step) & mask;
        if (k->width == 0)
            continue;
        buffer |= v << held;
        if (held + k->width >= 64) { /* flush 64 bits: what did not fit follows */
            *out++ = (uint32_t)buffer, *out++ = (uint32_t)(buffer >> 32);
            buffer = held ? v >> (64 - held) : 0;
            held = held + k->width - 64;
        } else {
            held += k->width;
        }
    }
    for (; held > 0; held = held > 32 ? held - 32 : 0, buffer >>= 32)
        *out++ = (uint32_t)buffer;
}

static size_t delta_blocks(const workload *w)
{
    return (w->n + CLPRIM_DELTA_BLOCK - 1) / CLPRIM_DELTA_BLOCK;
}

/* The whole packed form into packed (DELTA_AT words after its size); returns its words. */
static size_t delta_pack_loop(const workload *w, uint32_t *packed)
{
    size_t start = 0;
    for (size_t b = 0; b < delta_blocks(w); b++) {
        const delta_block k = delta_measure(w, b);
        delta_write(w, b, &k, start, packed + DELTA_AT);
        start += k.words;
    }
    const uint64_t words = DELTA_HEADER * delta_blocks(w) + start;
    memcpy(packed, &words, sizeof words);
    return (size_t)words;
}

static int delta_prepare_keys(workload *w)
{
    const uint64_t top = delta_mask(w->elem), gap = w->n ? top / w->n : 0;
    uint64_t state = first_state(0xD1B54A32D192ED03ull), key = 0;
    for (size_t i = 0; i < w->n; i++) {
        memcpy((unsigned char *)w->in + i * w->elem, &key, w->elem);
        key += gap ? next_random(&state) % (2 * gap) : 0; /* mean gap: top / n; never past top */
    }
    return upload(w);
}

static int delta_pack_prepare(workload *w)
{
    return delta_prepare_keys(w) &&
           device_output(w, (DELTA_AT + clprim_delta_packed_room(w->type, w->n)) * sizeof(cl_uint));
}

static clprim_status delta_pack_run(workload *w)
{
    return clprim_delta_pack(w->ctx, w->type, w->in_buf, 0, w->n, w->out_buf, DELTA_AT, w->out_buf, 0, 0, NULL,
                             NULL);
}

static void delta_pack_cpu(workload *w)
{
    w->count = delta_pack_loop(w, w->expect);
}

/* The blocks measured, then written, each over the threads; the starts in between. */
static void delta_pack_openmp(workload *w)
{
    const size_t blocks = delta_blocks(w);
    delta_block *k = malloc((blocks ? blocks : 1) * sizeof *k);
    size_t *start = malloc((blocks + 1) * sizeof *start);
    if (!k || !start) {
        free(k), free(start);
        return;
    }
    _Pragma("omp parallel for schedule(static)") for (size_t b = 0; b < blocks; b++) k[b] = delta_measure(w, b);
    start[0] = 0;
    for (size_t b = 0; b < blocks; b++)
        start[b + 1] = start[b] + k[b].words;
    _Pragma("omp parallel for schedule(static)") for (size_t b = 0; b < blocks; b++)
        delta_write(w, b, &k[b], start[b], (uint32_t *)w->expect + DELTA_AT);
    const uint64_t words = DELTA_HEADER * blocks + start[blocks];
    memcpy(w->expect, &words, sizeof words);
    w->count = (size_t)words;
    free(k);
    free(start);
}

/* The size, then the packed words it counts. */
static int delta_pack_check(workload *w, char *why, size_t size)
{
    uint64_t got = 0, want = 0;
    memcpy(&got, w->out, sizeof got);
    memcpy(&want, w->expect, sizeof want);
    if (got != want) {
        snprintf(why, size, "the packed size is %llu words, the C loop's %llu", (unsigned long long)got,
                 (unsigned long long)want);
        return 0;
    }
    return same_bytes(w, (DELTA_AT + (size_t)want) * sizeof(cl_uint), why, size);
}

/* The keys read, their packed words written (the C loop's count, or the room before it ran). */
static double delta_bytes(const workload *w)
{
    const size_t words = w->count ? w->count : clprim_delta_packed_room(w->type, w->n);
    return (double)w->in_bytes + (double)words * sizeof(cl_uint);
}

static int delta_unpack_prepare(workload *w)
{
    if (!delta_prepare_keys(w) || !device_output(w, w->in_bytes))
        return 0;
    uint32_t *packed = malloc((DELTA_AT + clprim_delta_packed_room(w->type, w->n)) * sizeof *packed);
    if (!packed)
        return 0;
    w->count = delta_pack_loop(w, packed);
    cl_int err;
    w->aux_buf = clCreateBuffer(w->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                (DELTA_AT + w->count) * sizeof *packed, packed, &err);
    w->scratch = packed;
    return err == CL_SUCCESS;
}

static clprim_status delta_unpack_run(workload *w)
{
    return clprim_delta_unpack(w->ctx, w->type, w->aux_buf, DELTA_AT, w->count, w->n, w->out_buf, 0, 0, NULL, NULL);
}

/* The elements of blocks [from, to) from the host's packed form. */
static void delta_unpack_loop(workload *w, size_t from, size_t to)
{
    const uint32_t *packed = (const uint32_t *)w->scratch + DELTA_AT;
    const size_t data = DELTA_HEADER * delta_blocks(w);
    const uint64_t mask = delta_mask(w->elem);
    for (size_t b = from; b < to; b++) {
        const uint32_t *header = packed + DELTA_HEADER * b;
        const uint64_t step = header[2] | (uint64_t)header[3] << 32;
        const unsigned width = header[5] >> 24;
        const uint64_t value_mask = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
        const uint32_t *in = packed + data + (header[4] | (uint64_t)(header[5] & 0xffffff) << 32);
        const size_t first = b * CLPRIM_DELTA_BLOCK;
        const size_t count = w->n - first < CLPRIM_DELTA_BLOCK ? w->n - first : CLPRIM_DELTA_BLOCK;
        const size_t words = (count * width + 31) / 32;
        uint64_t x = header[0] | (uint64_t)header[1] << 32;
        for (size_t j = 0; j < count; j++) {
            const size_t bit = j * width, q = bit / 32;
            const unsigned shift = (unsigned)(bit % 32);
            uint64_t v = (q < words ? in[q] : 0) | (q + 1 < words ? (uint64_t)in[q + 1] << 32 : 0);
            v >>= shift;
            if (shift + width > 64)
                v |= (uint64_t)in[q + 2] << (64 - shift);
            x += j ? step + (v & value_mask) : (v & value_mask);
            const uint64_t bits = x & mask;
            memcpy((unsigned char *)w->expect + (first + j) * w->elem, &bits, w->elem);
        }
    }
}

static void delta_unpack_cpu(workload *w)
{
    delta_unpack_loop(w, 0, delta_blocks(w));
}

static void delta_unpack_openmp(workload *w)
{
    _Pragma("omp parallel") {
        size_t begin, end;
        thread_slice(delta_blocks(w), &begin, &end);
        delta_unpack_loop(w, begin, end);
    }
}

static const workload_kind delta_pack = {"delta-pack",       delta_pack_prepare, delta_pack_run, delta_pack_cpu,
                                         delta_pack_check,   delta_bytes,        NULL,           delta_pack_openmp,
                                         "delta",            0};
static const workload_kind delta_unpack = {"delta-unpack",     delta_unpack_prepare, delta_unpack_run, delta_unpack_cpu,
                                           whole_output_check, delta_bytes,          NULL,             delta_unpack_openmp,
                                           "delta",            0};

/* ---- Box sort: particles uniform in a grid of 32 x 32 x 32 unit boxes ---- */

#define BOX_DIM 32
#define BOX_COUNT ((size_t)BOX_DIM * BOX_DIM * BOX_DIM)

static const clprim_box_grid box_grid = {{0, 0, 0}, {1, 1, 1}, {BOX_DIM, BOX_DIM, BOX_DIM}};

static int box_prepare(workload *w)
{
    float *positions = malloc(3 * w->n * sizeof *positions);
    if (!positions)
        return 0;
    uint64_t state = first_state(0x9E6C63D0676A9A99ull);
    for (size_t i = 0; i < 3 * w->n; i++) /* 24 random bits: exact floats below BOX_DIM */
        positions[i] = (float)(next_random(&state) >> 40) * (BOX_DIM / 16777216.0f);
    free(w->in);
    w->in = positions;
    w->in_bytes = 3 * w->n * sizeof *positions;
    w->scratch = malloc((w->n + BOX_COUNT) * sizeof(uint32_t));
    return w->scratch && upload(w) && device_output(w, (BOX_COUNT + 1 + w->n) * sizeof(cl_uint));
}

/* box_start (BOX_COUNT + 1), then order (n), in one buffer. */
static clprim_status box_run(workload *w)
{
    return clprim_box_sort(w->ctx, &box_grid, w->in_buf, 0, w->n, w->out_buf, 0, w->out_buf, BOX_COUNT + 1, NULL, 0,
                           0, NULL, NULL);
}

/* The box along one axis, as clprim.h defines it: clamped, NaN below. */
static size_t box_coordinate(float p, int axis)
{
    float f = floorf((p - box_grid.origin[axis]) * (1.0f / box_grid.box_size[axis]));
    return !(f >= 0.0f) ? 0 : f >= (float)box_grid.dims[axis] ? box_grid.dims[axis] - 1 : (size_t)f;
}

/* Box ids, a counting sort by id (stable), the counts' exclusive scan. */
static void box_cpu(workload *w)
{
    const float *p = w->in;
    uint32_t *ids = w->scratch, *cursor = ids + w->n, *start = w->expect, *order = start + BOX_COUNT + 1;
    memset(start, 0, (BOX_COUNT + 1) * sizeof *start);
    for (size_t i = 0; i < w->n; i++) {
        size_t x = box_coordinate(p[3 * i], 0), y = box_coordinate(p[3 * i + 1], 1), z = box_coordinate(p[3 * i + 2], 2);
        ids[i] = (uint32_t)((z * BOX_DIM + y) * BOX_DIM + x);
        start[ids[i] + 1]++;
    }
    for (size_t b = 0; b < BOX_COUNT; b++) {
        start[b + 1] += start[b];
        cursor[b] = start[b];
    }
    for (size_t i = 0; i < w->n; i++)
        order[cursor[ids[i]]++] = (uint32_t)i;
}

static double box_bytes(const workload *w)
{
    return (double)w->in_bytes + 4.0 * (double)w->n; /* positions in, order out */
}

static const workload_kind box_sort = {"box-sort", box_prepare, box_run, box_cpu, whole_output_check, box_bytes,
                                       float_only, NULL,
    "box_sort", 0};

/* ---- On a photograph: the red-ratio threshold, Otsu, k-means ---- */

static clprim_image photo_image(const workload *w, cl_mem buf, size_t offset, clprim_pixel_format format)
{
    return (clprim_image){buf, offset, w->width, w->height, 0, format};
}

static int photo_threshold_prepare(workload *w)
{
    return device_output(w, w->in_bytes);
}

/* The recoloured pixels put back: what the demo's picture shows. */
static clprim_status photo_threshold_run(workload *w)
{
    clprim_image src = photo_image(w, w->in_buf, 0, CLPRIM_RGB8), dst = photo_image(w, w->out_buf, 0, CLPRIM_RGB8);
    return clprim_threshold_red(w->ctx, &src, &dst, THRESHOLD_RATIO, CLPRIM_THRESHOLD_REINSERT, 0, NULL, NULL);
}

static void photo_threshold_cpu(workload *w)
{
    const unsigned char *in = w->in;
    unsigned char *out = w->expect;
    float limit = THRESHOLD_RATIO * THRESHOLD_RATIO;
    for (size_t i = 0; i < w->n; i++) {
        float r = in[3 * i], g = in[3 * i + 1], b = in[3 * i + 2];
        int selected = r > 0 && r * r > limit * ((r * r + g * g) + b * b);
        out[3 * i] = in[3 * i];
        out[3 * i + 1] = selected ? in[3 * i] : in[3 * i + 1];
        out[3 * i + 2] = in[3 * i + 2];
    }
}

static const workload_kind photo_threshold = {"threshold-photo", photo_threshold_prepare, photo_threshold_run,
                                              photo_threshold_cpu, whole_output_check, in_and_out_bytes, NULL, NULL,
    "threshold", 0};

/* Otsu: the grey histogram, the level, the mask (GREY8), all on the device. */
static int photo_otsu_prepare(workload *w)
{
    return device_output(w, w->n);
}

static clprim_status photo_otsu_run(workload *w)
{
    clprim_image src = photo_image(w, w->in_buf, 0, CLPRIM_RGB8), dst = photo_image(w, w->out_buf, 0, CLPRIM_GREY8);
    unsigned level = 0;
    clprim_status s = clprim_threshold_otsu(w->ctx, &src, &dst, &level, 0, NULL, NULL);
    memcpy(w->value, &level, sizeof level);
    return s;
}

/* Otsu's level of 256 bins as clprim.h specifies it: the between-class variance
 * in float, in the kernel's order (this file has no fused multiply-add), the
 * candidates compared by cross-multiplication, the smallest on a tie. */
static unsigned otsu_level(const uint32_t *hist)
{
    uint64_t total = 0, moment = 0;
    for (size_t i = 0; i < 256; i++) {
        total += hist[i];
        moment += (uint64_t)i * hist[i];
    }
    int k = 0;
    while (k < 64 && (total >> k) != 0)
        k++;
    const float scale = ldexpf(1.0f, -k); /* a power of two: exact */
    float best_num = 0, best_den = 0;
    int best = -1;
    uint64_t below = 0, below_moment = 0;
    for (size_t t = 0; t < 256; t++) {
        below += hist[t];
        below_moment += (uint64_t)t * hist[t];
        if (below == 0 || below == total)
            continue;
        float w0 = (float)below * scale, w1 = (float)(total - below) * scale;
        float s0 = (float)below_moment * scale, s1 = (float)(moment - below_moment) * scale;
        float d = s0 * w1 - s1 * w0, num = d * d, den = w0 * w1;
        if (best < 0 || num * best_den > best_num * den) {
            best = (int)t;
            best_num = num;
            best_den = den;
        }
    }
    if (best < 0) { /* fewer than two non-empty bins: the highest level of the one there is */
        best = 255;
        while (best > 0 && hist[best] == 0)
            best--;
        if (total == 0)
            best = 255;
    }
    return (unsigned)best;
}

static void photo_otsu_cpu(workload *w)
{
    const unsigned char *in = w->in;
    unsigned char *mask = w->expect;
    uint32_t hist[256] = {0};
    for (size_t i = 0; i < w->n; i++)
        hist[(in[3 * i] + in[3 * i + 1] + in[3 * i + 2]) / 3]++;
    unsigned level = otsu_level(hist);
    for (size_t i = 0; i < w->n; i++)
        mask[i] = (unsigned)(in[3 * i] + in[3 * i + 1] + in[3 * i + 2]) / 3 > level ? 255 : 0;
    w->count = level;
}

static int photo_otsu_check(workload *w, char *why, size_t size)
{
    unsigned level;
    memcpy(&level, w->value, sizeof level);
    if (level != w->count) {
        snprintf(why, size, "Otsu's level is %u, the C loop's %zu", level, w->count);
        return 0;
    }
    return whole_output_check(w, why, size);
}

static double photo_otsu_bytes(const workload *w)
{
    return 2.0 * (double)w->in_bytes + (double)w->n; /* the photograph twice, the mask */
}

static const workload_kind photo_otsu = {"otsu-photo", photo_otsu_prepare, photo_otsu_run, photo_otsu_cpu,
                                         photo_otsu_check, photo_otsu_bytes, NULL, NULL,
    "threshold", 0};

/* k-means: 8 colours, 5 iterations from k-means++ centres; labels (n bytes)
 * then the quantized photograph (RGB8) in one buffer. */
#define KMEANS_K 8
#define KMEANS_ITERATIONS 5

typedef struct {
    float seeded[KMEANS_K * 3], device[KMEANS_K * 3], cpu[KMEANS_K * 3];
    clprim_kmeans_info device_info, cpu_info;
} kmeans_state;

static int photo_kmeans_prepare(workload *w)
{
    kmeans_state *k = calloc(1, sizeof *k);
    w->scratch = k;
    return k &&
           clprim_kmeans_seed(w->in, w->width, w->height, 0, CLPRIM_RGB8, KMEANS_K, 1, k->seeded) == CLPRIM_SUCCESS &&
           device_output(w, w->n + w->in_bytes);
}

static clprim_status photo_kmeans_run(workload *w)
{
    kmeans_state *k = w->scratch;
    clprim_image src = photo_image(w, w->in_buf, 0, CLPRIM_RGB8), dst = photo_image(w, w->out_buf, w->n, CLPRIM_RGB8);
    memcpy(k->device, k->seeded, sizeof k->device);
    return clprim_kmeans(w->ctx, &src, KMEANS_K, KMEANS_ITERATIONS, k->device, w->out_buf, 0, &dst, &k->device_info, 0, NULL);
}

static void photo_kmeans_cpu(workload *w)
{
    kmeans_state *k = w->scratch;
    unsigned char *labels = w->expect;
    const cli_kmeans_image view = {w->in, 0, w->width, w->height, 3 * w->width, CLPRIM_RGB8};
    memcpy(k->cpu, k->seeded, sizeof k->cpu);
    cli_kmeans_cpu(&view, KMEANS_K, KMEANS_ITERATIONS, k->cpu, labels, labels + w->n, &k->cpu_info);
}

static int photo_kmeans_check(workload *w, char *why, size_t size)
{
    const kmeans_state *k = w->scratch;
    if (k->device_info.iterations != k->cpu_info.iterations) {
        snprintf(why, size, "%u iterations, the C loop %u", k->device_info.iterations, k->cpu_info.iterations);
        return 0;
    }
    return whole_output_check(w, why, size);
}

static double photo_kmeans_bytes(const workload *w)
{
    const kmeans_state *k = w->scratch;
    return (double)k->device_info.iterations * (double)w->in_bytes + (double)w->out_bytes;
}

static const workload_kind photo_kmeans = {"kmeans-photo", photo_kmeans_prepare, photo_kmeans_run, photo_kmeans_cpu,
                                           photo_kmeans_check, photo_kmeans_bytes, NULL, NULL,
    "kmeans", 0};

/* ---- The tables ---- */

const workload_kind *const workload_kinds[] = {
    &scan_inclusive, &scan_exclusive, &scan_user_sum, &reduce_sum,    &reduce_sum_to,   &argmax,
    &argmax_to,      &compact_half,   &compact_flagged, &partition_half, &partition_three_way, &find_if, &transform,
    &transform_reduce, &adjacent_difference, &scan_by_key, &reduce_by_key, &unique_by_key, &nontrivial_runs,
    &histogram_256, &histogram_range, &threshold_planar, &sort_keys, &sort_pairs, &merge_sort_keys,
    &merge_sort_pairs, &search, &segmented_reduce, &box_sort,
    &top_k, &segmented_argmin, &histogram_rgba, &histogram_rgb_range, &segmented_sort_keys,
    &segmented_sort_pairs, &delta_pack, &delta_unpack, NULL};

const workload_kind *const workload_photo_kinds[] = {&photo_threshold, &photo_otsu, &photo_kmeans, NULL};

const workload_kind *workload_find(const char *name)
{
    for (size_t i = 0; workload_kinds[i]; i++)
        if (!strcmp(workload_kinds[i]->name, name))
            return workload_kinds[i];
    return NULL;
}

/* The fields every workload has, and room for its input (n elements of elem bytes). */
static int workload_begin(workload *w, const workload_kind *kind, clprim_context *ctx, clprim_type type, size_t n,
                          size_t elem)
{
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->ctx = ctx;
    w->type = type;
    w->n = n;
    w->elem = elem;
    w->in_bytes = n * elem;
    w->cl = clprim_cl_context(ctx);
    w->in = malloc(w->in_bytes ? w->in_bytes : 1);
    if (!w->in)
        fprintf(stderr, "clprim: out of host memory for %zu elements\n", n);
    return w->in != NULL;
}

/* The input on the device, then the kind's own set-up. */
static int workload_finish(workload *w)
{
    if (upload(w) && w->kind->prepare(w))
        return 1;
    fprintf(stderr, "clprim: cannot allocate %s of %zu %s elements on the device\n", w->kind->name, w->n,
            workload_type_name(w->type));
    workload_release(w);
    return 0;
}

int workload_prepare(workload *w, const workload_kind *kind, clprim_context *ctx, clprim_type type, size_t n)
{
    if (!workload_begin(w, kind, ctx, type, n, type_size(type)))
        return 0;
    fill(type, w->in, n);
    return workload_finish(w);
}

int workload_prepare_photo(workload *w, const workload_kind *kind, clprim_context *ctx, const unsigned char *rgb,
                           size_t width, size_t height)
{
    if (!workload_begin(w, kind, ctx, CLPRIM_UINT8, width * height, 3))
        return 0;
    memcpy(w->in, rgb, w->in_bytes);
    w->width = width;
    w->height = height;
    return workload_finish(w);
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
    cl_mem buffers[] = {w->in_buf, w->out_buf, w->aux_buf, w->keys_buf, w->keys_out_buf, w->flags_buf};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
    free(w->keys);
    free(w->in);
    free(w->out);
    free(w->expect);
    free(w->scratch);
    memset(w, 0, sizeof *w);
}
