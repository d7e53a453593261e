/* clprim_histogram_range against a C reference (an upper-bound search over the
 * edges, exact comparisons in the element type): every type on fresh random
 * data with random sorted edges, under the default shape, a shape with many
 * groups and the global-atomic path; edges at the type's extremes and
 * infinities, values equal to edges, NaN; n == 0 in both modes, accumulation
 * (wrapping), offsets; the public call at the local-memory limit and one bin
 * beyond it; edges out of order (deterministic, nothing written out of
 * bounds); and every bad argument leaving the buffers as they were. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "reference_compact_histogram.h"

static clprim_type sort_type; /* for qsort's comparator */
static int sort_compare(const void *a, const void *b)
{
    return reference_less(sort_type, a, b) ? -1 : reference_less(sort_type, b, a);
}

/* Sorts `count` elements ascending and keeps one of each value; returns how many remain. */
static size_t sort_unique(clprim_type t, unsigned char *v, size_t count)
{
    const size_t es = reference_type_size(t);
    sort_type = t;
    qsort(v, count, es, sort_compare);
    size_t kept = count ? 1 : 0;
    for (size_t i = 1; i < count; i++)
        if (reference_less(t, v + (kept - 1) * es, v + i * es))
            memcpy(v + kept++ * es, v + i * es, es);
    return kept;
}

static int type_runs(clprim_context *ctx, clprim_type t)
{
    return t != CLPRIM_DOUBLE || ctx->has_fp64;
}

/* v as an element of type t (integers truncated). */
static void store(clprim_type t, double v, void *out)
{
    switch (t) {
    case CLPRIM_INT32: { int32_t x = (int32_t)v; memcpy(out, &x, 4); break; }
    case CLPRIM_UINT32: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); break; }
    case CLPRIM_INT64: { int64_t x = (int64_t)v; memcpy(out, &x, 8); break; }
    case CLPRIM_UINT64: { uint64_t x = (uint64_t)v; memcpy(out, &x, 8); break; }
    case CLPRIM_UINT8: { uint8_t x = (uint8_t)v; memcpy(out, &x, 1); break; }
    case CLPRIM_FLOAT: { float x = (float)v; memcpy(out, &x, 4); break; }
    case CLPRIM_DOUBLE: memcpy(out, &v, 8); break;
    }
}

/* The type's lowest and highest values (-+infinity for floats). */
static void extremes(clprim_type t, void *lowest, void *highest)
{
    const size_t es = reference_type_size(t);
    switch (t) {
    case CLPRIM_INT32: { int32_t l = INT32_MIN, h = INT32_MAX; memcpy(lowest, &l, es); memcpy(highest, &h, es); break; }
    case CLPRIM_INT64: { int64_t l = INT64_MIN, h = INT64_MAX; memcpy(lowest, &l, es); memcpy(highest, &h, es); break; }
    case CLPRIM_UINT32:
    case CLPRIM_UINT64:
    case CLPRIM_UINT8: memset(lowest, 0, es); memset(highest, 0xFF, es); break;
    case CLPRIM_FLOAT: store(t, -INFINITY, lowest); store(t, INFINITY, highest); break;
    case CLPRIM_DOUBLE: store(t, -INFINITY, lowest); store(t, INFINITY, highest); break;
    }
}

/* ---- One call against the reference ---- */

#define GUARD 3 /* counts around the call's bins, checked untouched */

typedef struct {
    size_t src_offset, edges_offset, counts_offset;
    int accumulate;
    int global; /* the global-atomic path, forced through the plan */
} range_setup;

/* Counts src[0 .. n) over edges[0 .. bins] on the device at the setup's
 * offsets; the counts start from `init` (bins + 2 * GUARD values, the call's
 * bins at GUARD), read back into got. Returns the call's status. */
static clprim_status run_range(clprim_context *ctx, clprim_type t, const unsigned char *src, size_t n,
                               const unsigned char *edges, size_t bins, const range_setup *setup,
                               const uint32_t *init, uint32_t *got)
{
    const size_t es = reference_type_size(t);
    const size_t src_len = setup->src_offset + n + 1, edges_len = setup->edges_offset + bins + 2;
    unsigned char *s = harness_malloc(src_len * es), *e = harness_malloc(edges_len * es);
    memset(s, HARNESS_SENTINEL, src_len * es);
    memset(e, HARNESS_SENTINEL, edges_len * es);
    if (n)
        memcpy(s + setup->src_offset * es, src, n * es);
    memcpy(e + setup->edges_offset * es, edges, (bins + 1) * es);
    cl_mem sbuf = harness_buffer(ctx, src_len * es, s);
    cl_mem ebuf = harness_buffer(ctx, edges_len * es, e);
    /* The counts sit at counts_offset - GUARD of their buffer (counts_offset >= GUARD). */
    const size_t before = setup->counts_offset - GUARD, clen = before + bins + 2 * GUARD;
    uint32_t *c = harness_malloc(clen * 4);
    memset(c, HARNESS_SENTINEL, before * 4);
    memcpy(c + before, init, (bins + 2 * GUARD) * 4);
    cl_mem cbuf = harness_buffer(ctx, clen * 4, c);
    const clprim_histogram_range_plan plan = {setup->global ? 1 : 0};
    cl_event done = NULL;
    clprim_status st = clprim_histogram_range_checked(ctx, t, sbuf, setup->src_offset, n, ebuf, setup->edges_offset,
                                                      bins, cbuf, setup->counts_offset, setup->accumulate, &plan, 0,
                                                      NULL, &done);
    if (st == CLPRIM_SUCCESS) {
        ck_assert_msg(done != NULL, "no event");
        ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        harness_read(ctx, cbuf, 0, clen * 4, c);
        ck_assert_msg(harness_all_sentinel(c, before * 4), "counts written before counts_offset - %d", GUARD);
        memcpy(got, c + before, (bins + 2 * GUARD) * 4);
        /* The inputs are only read. */
        unsigned char *back = harness_malloc(src_len * es > edges_len * es ? src_len * es : edges_len * es);
        harness_read(ctx, sbuf, 0, src_len * es, back);
        ck_assert_msg(memcmp(back, s, src_len * es) == 0, "src changed");
        harness_read(ctx, ebuf, 0, edges_len * es, back);
        ck_assert_msg(memcmp(back, e, edges_len * es) == 0, "edges changed");
        free(back);
    }
    harness_assert_single_ref(sbuf, "src");
    harness_assert_single_ref(ebuf, "edges");
    harness_assert_single_ref(cbuf, "counts");
    clReleaseMemObject(sbuf);
    clReleaseMemObject(ebuf);
    clReleaseMemObject(cbuf);
    free(s);
    free(e);
    free(c);
    return st;
}

/* The call against the reference, the guards untouched. */
static void check_range(clprim_context *ctx, clprim_type t, const unsigned char *src, size_t n,
                        const unsigned char *edges, size_t bins, const range_setup *setup, uint64_t *rng,
                        const char *what)
{
    const size_t total = bins + 2 * GUARD;
    uint32_t *init = harness_malloc(total * 4), *got = harness_malloc(total * 4), *want = harness_malloc(total * 4);
    for (size_t i = 0; i < total; i++) /* near 2^32 now and then: counts wrap */
        init[i] = harness_rand(rng) % 3 ? (uint32_t)harness_rand(rng) : UINT32_MAX - (uint32_t)(i % 4);
    memcpy(want, init, total * 4);
    if (!setup->accumulate)
        memset(want + GUARD, 0, bins * 4);
    reference_histogram_range(t, src, n, edges, bins, want + GUARD);
    clprim_status s = run_range(ctx, t, src, n, edges, bins, setup, init, got);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));
    for (size_t i = 0; i < total; i++)
        CHECK(got[i] == want[i],
              "%s %s n=%zu bins=%zu offsets %zu/%zu/%zu%s%s (%s): counts[%lld] is %u, the reference says %u", what,
              reference_type_name(t), n, bins, setup->src_offset, setup->edges_offset, setup->counts_offset,
              setup->accumulate ? " accumulate" : "", setup->global ? " global" : "", harness_tuning_text(ctx),
              (long long)i - GUARD, got[i], want[i]);
    free(init);
    free(got);
    free(want);
}

/* bins + 1 random edges of t, sorted and distinct (fewer bins when values repeat). */
static size_t random_edges(clprim_type t, unsigned char *edges, size_t bins, uint64_t *rng)
{
    size_t kept;
    do {
        harness_fill_random(t, edges, bins + 1, rng);
        kept = sort_unique(t, edges, bins + 1);
    } while (kept < 2);
    return kept - 1;
}

/* Random data with a quarter of it copied from the edges (values on edges),
 * and for floats NaN and infinities. */
static void random_data(clprim_type t, unsigned char *src, size_t n, const unsigned char *edges, size_t bins,
                        uint64_t *rng)
{
    const size_t es = reference_type_size(t);
    harness_fill_random(t, src, n, rng);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = harness_rand(rng);
        if (r % 4 == 0)
            memcpy(src + i * es, edges + (r / 4) % (bins + 1) * es, es);
        else if (reference_type_is_float(t) && r % 16 == 1)
            store(t, (r >> 8) % 3 == 0 ? NAN : (r >> 8) % 3 == 1 ? INFINITY : -INFINITY, src + i * es);
    }
}

/* ---- Tests ---- */

START_TEST(range_random_every_type)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(70 + (unsigned)_i);
    const size_t es = reference_type_size(t);
    const size_t bin_counts[] = {1, 3, 64, 1000};
    const size_t sizes[] = {1, 257, 20011};
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        unsigned char *edges = harness_malloc(1001 * es), *src = harness_malloc(20011 * es);
        for (int shape = 0; shape < 3; shape++) {
            if (shape == 1)
                harness_set_tuning(ctx, 4, 2, 64);
            if (shape == 2)
                harness_set_tuning(ctx, 1, 8, 16); /* the CPU shape's plain loop */
            for (size_t b = 0; b < sizeof bin_counts / sizeof *bin_counts; b++) {
                const size_t bins = random_edges(t, edges, bin_counts[b], &rng);
                for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                    random_data(t, src, sizes[k], edges, bins, &rng);
                    const range_setup plain = {0, 0, GUARD, 0, 0}, offsets = {5, 3, GUARD + 7, 0, 0};
                    const range_setup global = {1, 2, GUARD + 1, 0, 1}, added = {2, 1, GUARD + 2, 1, k == 1};
                    check_range(ctx, t, src, sizes[k], edges, bins, &plain, &rng, "random");
                    check_range(ctx, t, src, sizes[k], edges, bins, &offsets, &rng, "random, offsets");
                    check_range(ctx, t, src, sizes[k], edges, bins, &global, &rng, "random, global atomics");
                    check_range(ctx, t, src, sizes[k], edges, bins, &added, &rng, "random, accumulated");
                }
            }
        }
        free(edges);
        free(src);
    }
}
END_TEST

/* Edges at the type's extremes (infinities for floats) and beside them; the
 * data holds every edge, the extremes and, for floats, NaN, -0.0 and the
 * largest finite values. */
START_TEST(range_extreme_edges)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(80 + (unsigned)_i);
    const size_t es = reference_type_size(t);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        harness_set_tuning(ctx, 4, 2, 16);
        unsigned char lowest[8], highest[8], edges[8 * 8], src[8 * 600];
        extremes(t, lowest, highest);
        /* Bins: [lowest, a), [a, 0), [0, b), [b, highest); highest itself not counted. */
        size_t bins = 4;
        memcpy(edges, lowest, es);
        if (reference_type_is_float(t)) {
            store(t, t == CLPRIM_FLOAT ? -FLT_MAX : -DBL_MAX, edges + es);
            store(t, 0.0, edges + 2 * es);
            store(t, t == CLPRIM_FLOAT ? FLT_MAX : DBL_MAX, edges + 3 * es);
        } else {
            memcpy(edges + es, lowest, es);
            edges[es] += 1; /* lowest + 1: the low byte (little-endian) of 0 or of 0x80..00, no carry */
            store(t, 7, edges + 2 * es);
            memcpy(edges + 3 * es, highest, es);
            edges[3 * es] -= 1; /* highest - 1: the low byte is 0xFF */
        }
        memcpy(edges + 4 * es, highest, es);
        const size_t n = 600;
        harness_fill_random(t, src, n, &rng);
        for (size_t i = 0; i < 5; i++)
            memcpy(src + i * es, edges + i * es, es);
        memcpy(src + 5 * es, lowest, es);
        memcpy(src + 6 * es, highest, es);
        if (reference_type_is_float(t)) {
            store(t, NAN, src + 7 * es);
            store(t, -0.0, src + 8 * es);
            store(t, -INFINITY, src + 9 * es);
            store(t, INFINITY, src + 10 * es);
            for (size_t i = 11; i < n; i += 7)
                store(t, NAN, src + i * es);
        }
        for (int global = 0; global < 2; global++) {
            const range_setup setup = {1, 1, GUARD, 0, global};
            check_range(ctx, t, src, n, edges, bins, &setup, &rng, "extreme edges");
        }
        /* One bin over the whole type: everything but the highest value (and NaN) counts. */
        memcpy(edges + es, highest, es);
        const range_setup whole = {0, 0, GUARD, 0, 0};
        check_range(ctx, t, src, n, edges, 1, &whole, &rng, "one bin, lowest to highest");
        /* Values just below, on and above each edge of small integral edges. */
        for (size_t i = 0; i < 5; i++)
            store(t, (double)(10 * i + 10), edges + i * es);
        for (size_t i = 0; i < 60; i++)
            store(t, (double)i, src + i * es);
        check_range(ctx, t, src, 60, edges, 4, &whole, &rng, "values on edges");
    }
}
END_TEST

/* n == 0: overwrite zeroes the counts, accumulate leaves them; an event comes
 * back either way. Accumulating twice doubles. */
START_TEST(range_empty_and_accumulate)
{
    uint64_t rng = harness_rng(90);
    FOR_EACH_DEVICE(ctx)
    {
        const clprim_type t = CLPRIM_FLOAT;
        unsigned char edges[4 * 17], src[4 * 1000];
        const size_t bins = random_edges(t, edges, 16, &rng);
        random_data(t, src, 1000, edges, bins, &rng);
        for (int accumulate = 0; accumulate < 2; accumulate++) {
            const range_setup setup = {0, 0, GUARD, accumulate, 0};
            check_range(ctx, t, src, 0, edges, bins, &setup, &rng, "n = 0");
        }
        /* Twice on the same counts. */
        cl_mem sbuf = harness_buffer(ctx, sizeof src, src), ebuf = harness_buffer(ctx, sizeof edges, edges);
        uint32_t zero[17] = {0}, got[17], want[17] = {0};
        cl_mem cbuf = harness_buffer(ctx, sizeof zero, zero);
        for (int round = 0; round < 2; round++)
            ck_assert_int_eq(clprim_histogram_range(ctx, t, sbuf, 0, 1000, ebuf, 0, bins, cbuf, 0, 1, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
        harness_read(ctx, cbuf, 0, sizeof got, got);
        reference_histogram_range(t, src, 1000, edges, bins, want);
        reference_histogram_range(t, src, 1000, edges, bins, want);
        ck_assert_msg(memcmp(got, want, bins * 4) == 0 && got[bins] == 0, "accumulating twice");
        /* Overwrite after that starts again from zero. */
        ck_assert_int_eq(clprim_histogram_range(ctx, t, sbuf, 0, 1000, ebuf, 0, bins, cbuf, 0, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, cbuf, 0, sizeof got, got);
        memset(want, 0, sizeof want);
        reference_histogram_range(t, src, 1000, edges, bins, want);
        ck_assert_msg(memcmp(got, want, sizeof got) == 0, "overwriting after accumulating");
        /* src and edges may be the same buffer. */
        ck_assert_int_eq(clprim_histogram_range(ctx, t, sbuf, 0, 1000, sbuf, 0, 3, cbuf, 0, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        clReleaseMemObject(sbuf);
        clReleaseMemObject(ebuf);
        clReleaseMemObject(cbuf);
    }
}
END_TEST

/* The public call at the most bins whose edges and counts fit in the device's
 * local memory (the local path at its limit) and one bin more (the global
 * path, chosen by the call itself). */
START_TEST(range_local_memory_limit)
{
    const clprim_type t = _i ? CLPRIM_DOUBLE : CLPRIM_INT32;
    uint64_t rng = harness_rng(110 + (unsigned)_i);
    const size_t es = reference_type_size(t), n = 60000;
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t) || ctx->local_mem_size <= 4096)
            continue;
        const size_t fit = (size_t)((ctx->local_mem_size - 256) / (es + sizeof(cl_uint))) - 1;
        ck_assert_msg(fit < 4000000, "local memory of %llu bytes: too many bins to test",
                      (unsigned long long)ctx->local_mem_size);
        unsigned char *edges = harness_malloc((fit + 2) * es), *src = harness_malloc(n * es);
        for (size_t b = 0; b < fit + 2; b++)
            store(t, 3.0 * (double)b - 1e6, edges + b * es);
        for (size_t i = 0; i < n; i++)
            store(t, (double)(harness_rand(&rng) % (3 * fit + 1000)) - 1e6 - 500, src + i * es);
        for (size_t more = 0; more < 2; more++) {
            const range_setup setup = {0, 0, GUARD, 0, 0};
            check_range(ctx, t, src, n, edges, fit + more, &setup, &rng, more ? "one bin beyond local memory"
                                                                               : "local memory full");
        }
        free(edges);
        free(src);
    }
}
END_TEST

/* Edges out of order, repeated, or NaN: unspecified counts, but the same under
 * every shape and path, no more than n, and nothing outside the bins written. */
START_TEST(range_unsorted_edges)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(100 + (unsigned)_i);
    const size_t es = reference_type_size(t), n = 5000;
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        const clprim_tuning usual = clprim_get_tuning(ctx);
        for (int kind = 0; kind < 3; kind++) {
            const size_t bins = kind == 0 ? 37 : kind == 1 ? 5 : 200;
            unsigned char *edges = harness_malloc((bins + 1) * es), *src = harness_malloc(n * es);
            harness_fill_random(t, edges, bins + 1, &rng); /* kind 0: random order */
            if (kind == 1) /* all equal */
                for (size_t i = 1; i <= bins; i++)
                    memcpy(edges + i * es, edges, es);
            if (kind == 2) { /* sorted descending, with NaN for floats */
                sort_type = t;
                qsort(edges, bins + 1, es, sort_compare);
                for (size_t i = 0; i < (bins + 1) / 2; i++) {
                    unsigned char tmp[8];
                    memcpy(tmp, edges + i * es, es);
                    memcpy(edges + i * es, edges + (bins - i) * es, es);
                    memcpy(edges + (bins - i) * es, tmp, es);
                }
                if (reference_type_is_float(t))
                    for (size_t i = 3; i <= bins; i += 11)
                        store(t, NAN, edges + i * es);
            }
            random_data(t, src, n, edges, bins, &rng);
            const size_t total = bins + 2 * GUARD;
            uint32_t *init = harness_malloc(total * 4), *first = harness_malloc(total * 4),
                     *got = harness_malloc(total * 4);
            for (size_t i = 0; i < total; i++)
                init[i] = (uint32_t)harness_rand(&rng);
            for (int shape = 0; shape < 4; shape++) {
                if (shape == 1)
                    harness_set_tuning(ctx, 4, 2, 64);
                if (shape == 3)
                    harness_set_tuning(ctx, 1, 8, 16);
                const range_setup setup = {2, 1, GUARD, 0, shape == 2};
                ck_assert_int_eq(run_range(ctx, t, src, n, edges, bins, &setup, init, shape ? got : first),
                                 CLPRIM_SUCCESS);
                uint32_t *now = shape ? got : first;
                ck_assert_msg(!memcmp(now, init, GUARD * 4) && !memcmp(now + GUARD + bins, init + GUARD + bins, GUARD * 4),
                              "%s kind %d: counts written outside the bins", reference_type_name(t), kind);
                uint64_t sum = 0;
                for (size_t b = 0; b < bins; b++)
                    sum += now[GUARD + b];
                ck_assert_msg(sum <= n, "%s kind %d: %llu counted of %zu", reference_type_name(t), kind,
                              (unsigned long long)sum, n);
                if (shape)
                    ck_assert_msg(memcmp(got, first, total * 4) == 0, "%s kind %d shape %d: counts differ",
                                  reference_type_name(t), kind, shape);
            }
            ck_assert_int_eq(harness_tune(ctx, &usual), CLPRIM_SUCCESS);
            free(edges);
            free(src);
            free(init);
            free(first);
            free(got);
        }
    }
}
END_TEST

/* ---- Bad arguments: buf = src, edges, counts ---- */

enum { RANGE, RANGE_ACCUMULATE };
enum { V_TEN, V_BINS_0, V_BINS_2_31, V_BINS_2_31_PLUS_1, V_BINS_2000, V_BINS_16384, V_WAIT_NULL, V_WAIT_EMPTY };
static const size_t bad_bins[] = {
    [V_TEN] = 10, [V_BINS_0] = 0, [V_BINS_2_31] = (size_t)1 << 31, [V_BINS_2_31_PLUS_1] = ((size_t)1 << 31) + 1,
    [V_BINS_2000] = 2000, [V_BINS_16384] = 16384, [V_WAIT_NULL] = 10, [V_WAIT_EMPTY] = 10,
};

static clprim_status range_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    cl_event dummy = NULL;
    const cl_uint waits = row->variant == V_WAIT_NULL ? 1 : 0;
    const cl_event *list = row->variant == V_WAIT_EMPTY ? &dummy : NULL;
    return clprim_histogram_range(ctx, row->type, buf[0], row->offset[0], row->n, buf[1], row->offset[1],
                                  bad_bins[row->variant], buf[2], row->offset[2], row->call == RANGE_ACCUMULATE,
                                  waits, list, NULL);
}

/* A buffer holds 64 KiB: 16384 int32 values or counts. */
static const harness_bad_call range_bad_calls[] = {
    {"ctx NULL", RANGE, 1, {HB_A, HB_B, HB_A_AT_ALIGN}, {0, 2000}, 100, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"type 99", RANGE, 0, {HB_A, HB_A, HB_B}, {0, 2000}, 100, CLPRIM_INVALID_ARGUMENT, "unknown clprim_type",
     .type = (clprim_type)99},
    {"double without fp64", RANGE, 0, {HB_A, HB_A, HB_B}, {0, 2000}, 100, CLPRIM_UNSUPPORTED, "fp64",
     .type = CLPRIM_DOUBLE, .without_fp64 = 1},
    {"bins 0", RANGE, 0, {HB_A, HB_A, HB_B}, {0, 2000}, 100, CLPRIM_INVALID_ARGUMENT, "bins is 0",
     .variant = V_BINS_0},
    {"bins 2^31 + 1", RANGE, 0, {HB_A, HB_A, HB_B}, {0, 2000}, 100, CLPRIM_INVALID_ARGUMENT, "2^31",
     .type = CLPRIM_UINT8, .variant = V_BINS_2_31_PLUS_1},
    {"src NULL", RANGE, 0, {HB_NULL, HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "src"},
    {"edges NULL", RANGE, 0, {HB_A, HB_NULL, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "edges"},
    {"counts NULL", RANGE, 0, {HB_A, HB_A, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "counts"},
    {"src a value short", RANGE, 0, {HB_A, HB_A, HB_B}, {1}, 16384, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"src offset SIZE_MAX", RANGE, 0, {HB_A, HB_A, HB_B}, {SIZE_MAX}, 2, CLPRIM_INVALID_ARGUMENT, "overflows"},
    {"edges an edge short", RANGE, 0, {HB_A, HB_A, HB_B}, {0, 16374}, 100, CLPRIM_BUFFER_TOO_SMALL, "edges"},
    {"edges short of 2^31 + 1", RANGE, 0, {HB_A, HB_A, HB_B}, {0}, 100, CLPRIM_BUFFER_TOO_SMALL, "edges",
     .type = CLPRIM_UINT8, .variant = V_BINS_2_31},
    {"int64 edges short of 16385", RANGE, 0, {HB_A, HB_A, HB_B}, {0}, 100, CLPRIM_BUFFER_TOO_SMALL, "edges",
     .type = CLPRIM_INT64, .variant = V_BINS_16384},
    {"edges an image object", RANGE, 0, {HB_A, HB_IMAGE, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"edges CL_MEM_WRITE_ONLY", RANGE, 0, {HB_A, HB_WRITE_ONLY, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"edges of another context", RANGE, 0, {HB_A, HB_FOREIGN, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "edges"},
    {"counts a bin short", RANGE, 0, {HB_A, HB_A, HB_B}, {0, 0, 16375}, 100, CLPRIM_BUFFER_TOO_SMALL, "counts"},
    {"counts short of 16384 bins at 1", RANGE, 0, {HB_A, HB_B, HB_A}, {0, 0, 1}, 0, CLPRIM_BUFFER_TOO_SMALL, "counts",
     .type = CLPRIM_UINT8, .variant = V_BINS_16384},
    {"counts CL_MEM_READ_ONLY", RANGE, 0, {HB_A, HB_A, HB_READ_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "READ_ONLY"},
    {"counts CL_MEM_WRITE_ONLY, accumulated", RANGE_ACCUMULATE, 0, {HB_A, HB_A, HB_WRITE_ONLY}, {0}, 16,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY"},
    {"counts inside src", RANGE, 0, {HB_A, HB_B, HB_A}, {0, 0, 50}, 100, CLPRIM_INVALID_ARGUMENT, "overlap",
     .also = "src"},
    {"counts inside edges", RANGE, 0, {HB_A, HB_B, HB_B}, {0, 0, 5}, 100, CLPRIM_INVALID_ARGUMENT, "overlap",
     .also = "edges"},
    {"counts a sub-buffer inside edges", RANGE, 0, {HB_B, HB_A, HB_A_AT_ALIGN}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer", .also = "edges", .variant = V_BINS_2000},
    {"src a sub-buffer at 0 meeting counts", RANGE, 0, {HB_A_AT_0, HB_B, HB_A}, {0, 0, 4}, 1024,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"wait list NULL with 1 event", RANGE, 0, {HB_A, HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "wait",
     .variant = V_WAIT_NULL},
    {"wait list with 0 events", RANGE, 0, {HB_A, HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "wait",
     .variant = V_WAIT_EMPTY},
    /* Near misses that succeed: counts right after the edges in one buffer, src
     * and edges the same bytes, random edges (any order) on the buffer's last counts. */
    {"counts just after the edges", RANGE, 0, {HB_B, HB_A, HB_A}, {0, 0, 11}, 100, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(2)},
    {"src and edges the same bytes, counts to the last byte", RANGE_ACCUMULATE, 0, {HB_A, HB_A, HB_B},
     {0, 0, 16374}, 11, CLPRIM_SUCCESS, NULL, .written = HB_ARG(2)},
    {"n 0, accumulated", RANGE_ACCUMULATE, 0, {HB_A, HB_A, HB_B}, {0}, 0, CLPRIM_SUCCESS, NULL},
};

START_TEST(range_bad_table)
{
    harness_run_bad_calls(range_bad_calls, sizeof range_bad_calls / sizeof *range_bad_calls, range_bad_call);
}
END_TEST

static Suite *histogram_range_suite(void)
{
    Suite *s = suite_create("histogram_range");
    TCase *tc = tcase_create("correctness");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, range_random_every_type, 0, REFERENCE_TYPE_COUNT);
    tcase_add_loop_test(tc, range_extreme_edges, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, range_empty_and_accumulate);
    tcase_add_loop_test(tc, range_unsorted_edges, 0, REFERENCE_TYPE_COUNT);
    tcase_add_loop_test(tc, range_local_memory_limit, 0, 2);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad arguments");
    tcase_add_test(bad, range_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(histogram_range_suite());
}
