/* clprim_scan against the CPU reference: every type, operator and mode, sizes at
 * every boundary of the work split (work-group, tile, two and three levels of
 * partials), offsets, in place, large odd sizes, determinism, events, and every
 * bad argument; clprim_scan_seeded the same way, with callers' operators, and
 * an array scanned in pieces. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "reference.h"

typedef struct {
    size_t src_offset, dst_offset; /* elements before the range */
    size_t after;                  /* elements after it (must stay untouched) */
    int in_place;                  /* dst = src, dst_offset = src_offset */
} layout;

/* Where seeded_case puts the seed: in a buffer of its own; among src's
 * elements (src and dst apart); in place, in the buffer that src and dst
 * share, just before their range. */
typedef enum { SEED_APART, SEED_IN_SRC, SEED_BEFORE_IN_PLACE, SEED_PLACES } seed_place;

/* A seeded generator per test, so a failing test repeats with CLPRIM_TEST_SEED. */
/* fp64: returns 1 when the context can run doubles; else checks the refusal. */
static int type_runs(clprim_context *ctx, clprim_type t)
{
    if (t != CLPRIM_DOUBLE || ctx->has_fp64)
        return 1;
    cl_mem buf = harness_buffer(ctx, 64, NULL);
    clprim_status s = clprim_scan(ctx, t, CLPRIM_SUM, 0, buf, 0, buf, 0, 4, 0, NULL, NULL);
    harness_assert_error(ctx, s, CLPRIM_UNSUPPORTED, "fp64");
    clReleaseMemObject(buf);
    fprintf(stderr, "note: %s has no cl_khr_fp64; double checked as CLPRIM_UNSUPPORTED only\n", ctx->device_name);
    return 0;
}

/* Scans n elements (random, or `data` when not NULL) laid out as `lay` and checks
 * the result, the untouched elements around it and the input. */
static void scan_case(clprim_context *ctx, clprim_type t, clprim_op op, int exclusive, size_t n, layout lay,
                      const void *data, uint64_t *rng)
{
    const size_t es = reference_type_size(t);
    const size_t src_len = lay.src_offset + n + lay.after;
    unsigned char *src = harness_malloc(src_len * es);
    harness_fill_random(t, src, src_len, rng);
    if (data)
        memcpy(src + lay.src_offset * es, data, n * es);
    cl_mem sbuf = harness_buffer(ctx, src_len * es, src);
    cl_mem dbuf = sbuf;
    size_t dst_offset = lay.src_offset, dst_len = src_len;
    if (!lay.in_place) {
        dst_offset = lay.dst_offset;
        dst_len = lay.dst_offset + n + lay.after;
        dbuf = harness_buffer(ctx, dst_len * es, NULL);
    }

    cl_event done = NULL;
    clprim_status s = clprim_scan(ctx, t, op, exclusive, sbuf, lay.src_offset, dbuf, dst_offset, n, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "scan %s %s %s n=%zu (%s): %s: %s", reference_type_name(t),
                  reference_op_name(op), exclusive ? "exclusive" : "inclusive", n, harness_tuning_text(ctx),
                  clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_msg(done != NULL, "clprim_scan gave no event for n=%zu", n);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    cl_int exec = -1;
    clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    ck_assert_int_eq(exec, CL_COMPLETE);
    clReleaseEvent(done);

    harness_assert_single_ref(sbuf, "src");
    harness_assert_single_ref(dbuf, "dst");
    unsigned char *out = harness_malloc(dst_len * es);
    harness_read(ctx, dbuf, 0, dst_len * es, out);
    char msg[768];
    size_t bad = reference_check_scan(t, op, exclusive, src + lay.src_offset * es, out + dst_offset * es, n, msg,
                                      sizeof msg);
    ck_assert_msg(bad == n, "%s [src_offset %zu, dst_offset %zu%s, tuning %s]", msg, lay.src_offset, dst_offset,
                  lay.in_place ? ", in place" : "", harness_tuning_text(ctx));
    const size_t tail = dst_offset + n;
    if (lay.in_place) {
        ck_assert_msg(memcmp(out, src, dst_offset * es) == 0, "in-place scan n=%zu changed elements before offset %zu",
                      n, dst_offset);
        ck_assert_msg(memcmp(out + tail * es, src + tail * es, lay.after * es) == 0,
                      "in-place scan n=%zu changed elements after its range", n);
    } else {
        ck_assert_msg(harness_all_sentinel(out, dst_offset * es), "scan n=%zu wrote before dst_offset %zu", n,
                      dst_offset);
        ck_assert_msg(harness_all_sentinel(out + tail * es, lay.after * es), "scan n=%zu wrote past dst_offset + n",
                      n);
        unsigned char *again = harness_malloc(src_len * es);
        harness_read(ctx, sbuf, 0, src_len * es, again);
        ck_assert_msg(memcmp(again, src, src_len * es) == 0, "scan n=%zu changed its input", n);
        free(again);
        clReleaseMemObject(dbuf);
    }
    clReleaseMemObject(sbuf);
    free(out);
    free(src);
}

static void seeded_case(clprim_context *ctx, clprim_type t, clprim_op op, const clprim_operator *custom,
                        reference_fold fold, int exclusive, size_t n, seed_place where, uint64_t *rng);

/* Every operator and mode at each size, offsets varying with the size; with
 * `seeded`, clprim_scan_seeded with the seed's place turning instead. */
static void scan_sizes(clprim_context *ctx, clprim_type t, const size_t *sizes, size_t count, int seeded,
                       uint64_t *rng)
{
    for (size_t k = 0; k < count; k++)
        for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++)
            for (int exclusive = 0; exclusive <= 1; exclusive++) {
                layout lay = {(k + (size_t)op) % 3, (k + 1 + (size_t)exclusive) % 4, 1 + k % 3, 0};
                if (seeded)
                    seeded_case(ctx, t, (clprim_op)op, NULL, NULL, exclusive, sizes[k],
                                (seed_place)((k + (size_t)op + (size_t)exclusive) % SEED_PLACES), rng);
                else
                    scan_case(ctx, t, (clprim_op)op, exclusive, sizes[k], lay, NULL, rng);
            }
}

/* Sizes around a work-group and a tile of the current tuning, and around the
 * first size of every level count up to max_levels (asserted to exist). */
static size_t boundary_sizes(clprim_context *ctx, int max_levels, size_t limit, size_t *sizes, size_t cap)
{
    clprim_tuning t = clprim_get_tuning(ctx);
    size_t wg = t.work_group_size, tile = t.work_group_size * t.items_per_thread, count = 0;
    const size_t fixed[] = {0, 1, 2, wg - 1, wg, wg + 1, tile - 1, tile, tile + 1, 2 * tile + 3};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        sizes[count++] = fixed[i];
    for (int levels = 2; levels <= max_levels; levels++) {
        size_t first = harness_first_size_with_levels(&t, levels, limit);
        ck_assert_msg(first > 0, "no size up to %zu needs %d levels with %s", limit, levels, harness_tuning_text(ctx));
        ck_assert_int_eq(harness_scan_levels(&t, first, 4), levels);
        ck_assert_int_eq(harness_scan_levels(&t, first - 1, 4), levels - 1);
        sizes[count++] = first - 1;
        sizes[count++] = first;
        sizes[count++] = first + 1;
        ck_assert(count + 3 <= cap);
    }
    return count;
}

/* ---- Correctness ---- */

/* The device's own tuning: one level up to a tile per group, then two. Loop
 * index: the type, then again the type for clprim_scan_seeded. */
START_TEST(scan_default_tuning)
{
    clprim_type t = (clprim_type)(_i % REFERENCE_TYPE_COUNT);
    const int seeded = _i >= REFERENCE_TYPE_COUNT;
    uint64_t rng = harness_rng(100 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        size_t sizes[40];
        size_t count = boundary_sizes(ctx, 2, 1u << 22, sizes, 40);
        const clprim_tuning tuning = clprim_get_tuning(ctx);
        const size_t grid = tuning.work_group_size * tuning.items_per_thread * tuning.groups;
        /* Whole and partial chunks; runs of 8 (the one-work-item reduce's lanes). */
        const size_t more[] = {7, 8, 9, 15, 16, 17, grid - 1, grid, grid + 1, 3 * grid + 17};
        for (size_t k = 0; k < sizeof more / sizeof more[0]; k++)
            sizes[count++] = more[k];
        scan_sizes(ctx, t, sizes, count, seeded, &rng);
    }
}
END_TEST

/* wg=4, items=2: tiles of 8. groups=64 reaches three levels of partials at
 * small sizes; groups=8 makes each group walk several tiles with a carry.
 * Loop index as scan_default_tuning's. */
START_TEST(scan_small_tiles)
{
    clprim_type t = (clprim_type)(_i % REFERENCE_TYPE_COUNT);
    const int seeded = _i >= REFERENCE_TYPE_COUNT;
    uint64_t rng = harness_rng(200 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        size_t sizes[32];
        harness_set_tuning(ctx, 4, 2, 64);
        size_t count = boundary_sizes(ctx, 3, 100000, sizes, 32);
        sizes[count++] = 5000;
        scan_sizes(ctx, t, sizes, count, seeded, &rng);

        harness_set_tuning(ctx, 4, 2, 8);
        count = boundary_sizes(ctx, 2, 100000, sizes, 32);
        sizes[count++] = 8 * 8 * 5 + 3; /* five tiles per group */
        scan_sizes(ctx, t, sizes, count, seeded, &rng);
    }
}
END_TEST

/* Unusual shapes, each with sizes around the first size of every level count it
 * reaches (level 2: pass 3 folds the partials itself; level >= 3: pass 2 scans
 * them, recursively), for a few types and operators:
 *   wg=2,items=1  tiles of two: five levels by 3000 elements;
 *   wg=1,items=2  the one-work-item (CPU) kernels with deep recursion;
 *   wg=4,items=3  tiles of 12, not a power of two, and 5 groups;
 *   wg=2,items=1,groups=3  odd group counts with short last chunks. */
START_TEST(scan_deep_levels)
{
    static const struct {
        clprim_type t;
        clprim_op op;
    } cases[] = {{CLPRIM_INT32, CLPRIM_SUM}, {CLPRIM_FLOAT, CLPRIM_SUM}, {CLPRIM_UINT8, CLPRIM_MAX},
                 {CLPRIM_INT64, CLPRIM_MIN}};
    static const struct {
        size_t wg, items, groups;
        int max_levels;
    } shapes[] = {{2, 1, 16, 5}, {1, 2, 16, 5}, {4, 3, 5, 2}, {2, 1, 3, 3}, {1, 3, 7, 3}};
    uint64_t rng = harness_rng(300);
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
            harness_set_tuning(ctx, shapes[sh].wg, shapes[sh].items, shapes[sh].groups);
            clprim_tuning tuning = clprim_get_tuning(ctx);
            size_t sizes[40], count = 0;
            const size_t fixed[] = {1, 2, 3, 5, 7, 8, 9, 17, 100, 1001};
            for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
                sizes[count++] = fixed[k];
            for (int levels = 2; levels <= shapes[sh].max_levels; levels++) {
                size_t first = harness_first_size_with_levels(&tuning, levels, 100000);
                ck_assert_msg(first > 0, "%s never makes %d levels", harness_tuning_text(ctx), levels);
                sizes[count++] = first - 1;
                sizes[count++] = first;
                sizes[count++] = first + 1;
            }
            ck_assert_int_eq(harness_first_size_with_levels(&tuning, shapes[sh].max_levels + 1, 100000), 0);
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
                for (int exclusive = 0; exclusive <= 1; exclusive++)
                    for (size_t k = 0; k < count; k++)
                        scan_case(ctx, cases[c].t, cases[c].op, exclusive, sizes[k], (layout){k % 3, k % 2, 1, 0},
                                  NULL, &rng);
        }
    }
}
END_TEST

/* src == dst at the same offset, one and several levels. */
START_TEST(scan_in_place)
{
    clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(400 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        clprim_tuning dflt = clprim_get_tuning(ctx);
        const size_t big = dflt.work_group_size * dflt.items_per_thread * 2 + 5;
        for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++)
            for (int exclusive = 0; exclusive <= 1; exclusive++) {
                harness_set_tuning(ctx, dflt.work_group_size, dflt.items_per_thread, dflt.groups);
                scan_case(ctx, t, (clprim_op)op, exclusive, 37, (layout){3, 0, 2, 1}, NULL, &rng);
                scan_case(ctx, t, (clprim_op)op, exclusive, big, (layout){0, 0, 0, 1}, NULL, &rng);
                harness_set_tuning(ctx, 4, 2, 64);
                scan_case(ctx, t, (clprim_op)op, exclusive, 1000, (layout){5, 0, 3, 1}, NULL, &rng);
            }
    }
}
END_TEST

/* 10^7 + 3 elements: int32 sums compare exactly; float sums of random data within
 * the bound, and of small integers (every partial sum exact in float) exactly. */
START_TEST(scan_large_odd)
{
    const size_t n = 10000003;
    uint64_t rng = harness_rng(500);
    FOR_EACH_DEVICE(ctx)
    {
        scan_case(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, n, (layout){1, 3, 2, 0}, NULL, &rng);
        scan_case(ctx, CLPRIM_INT32, CLPRIM_SUM, 1, n, (layout){0, 0, 0, 1}, NULL, &rng);
        scan_case(ctx, CLPRIM_FLOAT, CLPRIM_SUM, 0, n, (layout){0, 1, 1, 0}, NULL, &rng);

        /* Values in {-1, 0, 1}: |any partial sum| <= n < 2^24, so every order of
         * evaluation is exact and a lost or doubled element shows. */
        float *small = harness_malloc(n * sizeof *small);
        for (size_t i = 0; i < n; i++)
            small[i] = (float)((int)(harness_rand(&rng) % 3) - 1);
        scan_case(ctx, CLPRIM_FLOAT, CLPRIM_SUM, 1, n, (layout){2, 0, 1, 0}, small, &rng);
        free(small);
    }
}
END_TEST

/* For the data above, the bound says nothing beyond 2^24 terms; this checks the
 * exact case separately and shows that reference_check_scan is strict: exact
 * integer-valued float input must come back exact. */
START_TEST(scan_float_exact_small_integers)
{
    uint64_t rng = harness_rng(550);
    FOR_EACH_DEVICE(ctx)
    {
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 64);
            const size_t n = 100003;
            float *f = harness_malloc(n * sizeof *f);
            for (size_t i = 0; i < n; i++)
                f[i] = (float)((int)(harness_rand(&rng) % 201) - 100);
            const size_t es = sizeof(float);
            cl_mem src = harness_buffer(ctx, n * es, f), dst = harness_buffer(ctx, n * es, NULL);
            ck_assert_int_eq(clprim_scan(ctx, CLPRIM_FLOAT, CLPRIM_SUM, 0, src, 0, dst, 0, n, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            float *got = harness_malloc(n * es);
            harness_read(ctx, dst, 0, n * es, got);
            double acc = 0;
            for (size_t i = 0; i < n; i++) {
                acc += f[i];
                ck_assert_msg(got[i] == (float)acc, "element %zu: got %.9g, want %.9g exactly (%s)", i,
                              (double)got[i], acc, harness_tuning_text(ctx));
            }
            free(got);
            free(f);
            clReleaseMemObject(src);
            clReleaseMemObject(dst);
        }
    }
}
END_TEST

/* Integer sums wrap like unsigned arithmetic. */
START_TEST(scan_int32_wraps)
{
    uint64_t rng = harness_rng(600);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 3000;
        int32_t *data = harness_malloc(n * sizeof *data);
        for (size_t i = 0; i < n; i++)
            data[i] = INT32_MAX - (int32_t)(i % 7);
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 64);
            scan_case(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, n, (layout){0, 0, 0, 0}, data, &rng);
            scan_case(ctx, CLPRIM_INT32, CLPRIM_SUM, 1, n, (layout){0, 0, 0, 0}, data, &rng);
        }
        /* Spot values: INT32_MAX + INT32_MAX = -2 in two's complement. */
        cl_mem src = harness_buffer(ctx, n * 4, data), dst = harness_buffer(ctx, n * 4, NULL);
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, dst, 0, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        int32_t got[3];
        harness_read(ctx, dst, 0, sizeof got, got);
        ck_assert_int_eq(got[0], INT32_MAX);
        ck_assert_int_eq(got[1], -3); /* 0x7fffffff + 0x7ffffffe */
        ck_assert_int_eq(got[2], INT32_MAX - 5);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        free(data);
    }
}
END_TEST

/* fmin/fmax semantics: NaN inputs are ignored beside numbers (NaN alone stays
 * NaN), infinities are ordinary values. */
START_TEST(scan_float_nan_and_infinity)
{
    uint64_t rng = harness_rng(700);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 2500;
        for (int t = CLPRIM_FLOAT; t <= CLPRIM_DOUBLE; t++) {
            if (!type_runs(ctx, (clprim_type)t))
                continue;
            const size_t es = reference_type_size((clprim_type)t);
            unsigned char *data = harness_malloc(n * es);
            harness_fill_random((clprim_type)t, data, n, &rng);
            for (size_t i = 0; i < n; i++) {
                /* The first elements are NaN, so a prefix may hold nothing else. */
                uint64_t r = i < 10 ? 0 : harness_rand(&rng) % 16;
                if (r > 2)
                    continue;
                double v = r == 0 ? NAN : r == 1 ? INFINITY : -INFINITY;
                if (t == CLPRIM_FLOAT) {
                    float f = (float)v;
                    memcpy(data + i * es, &f, es);
                } else {
                    memcpy(data + i * es, &v, es);
                }
            }
            for (int tuned = 0; tuned <= 1; tuned++) {
                if (tuned)
                    harness_set_tuning(ctx, 4, 2, 64);
                for (int op = CLPRIM_MIN; op <= CLPRIM_MAX; op++)
                    for (int exclusive = 0; exclusive <= 1; exclusive++)
                        scan_case(ctx, (clprim_type)t, (clprim_op)op, exclusive, n, (layout){1, 1, 1, 0}, data,
                                  &rng);
            }
            harness_default_tuning(ctx);
            free(data);
        }
    }
}
END_TEST

/* Stores v as element i of a float or double array. */
static void put_float(clprim_type t, void *data, size_t i, double v)
{
    if (t == CLPRIM_FLOAT)
        ((float *)data)[i] = (float)v;
    else
        ((double *)data)[i] = v;
}

/* Tunings that put boundaries inside five elements: tiles of two and four
 * (wg=1 is the one-work-item CPU shape; with groups=8 pass 2 scans the
 * partials, with groups=2 pass 3 folds them) and the default, one work-group. */
static const size_t tiny_shapes[][3] = {{0, 0, 0}, {1, 2, 2}, {1, 2, 8}, {2, 1, 8}, {4, 1, 2}};

static void set_shape(clprim_context *ctx, const size_t *shape)
{
    if (shape[0])
        harness_set_tuning(ctx, shape[0], shape[1], shape[2]);
    else
        harness_default_tuning(ctx);
}

/* [NaN, 3, NaN, 1, 5] as fmin/fmax fold it: NaN until a number arrives; the
 * exclusive scan starts from the empty result (+-inf), then is the inclusive
 * scan shifted by one. Written out, not taken from the reference. */
START_TEST(scan_float_nan_example)
{
    static const double in[5] = {NAN, 3, NAN, 1, 5};
    static const struct {
        clprim_op op;
        int exclusive;
        double want[5];
    } rows[] = {
        {CLPRIM_MIN, 0, {NAN, 3, 3, 1, 1}},
        {CLPRIM_MIN, 1, {INFINITY, NAN, 3, 3, 1}},
        {CLPRIM_MAX, 0, {NAN, 3, 3, 3, 5}},
        {CLPRIM_MAX, 1, {-INFINITY, NAN, 3, 3, 3}},
    };
    FOR_EACH_DEVICE(ctx)
    {
        for (int t = CLPRIM_FLOAT; t <= CLPRIM_DOUBLE; t++) {
            if (!type_runs(ctx, (clprim_type)t))
                continue;
            const size_t es = reference_type_size((clprim_type)t);
            unsigned char src[5 * 8], want[5 * 8], got[5 * 8];
            for (size_t i = 0; i < 5; i++)
                put_float((clprim_type)t, src, i, in[i]);
            cl_mem sbuf = harness_buffer(ctx, sizeof src, src), dbuf = harness_buffer(ctx, sizeof got, NULL);
            for (size_t sh = 0; sh < sizeof tiny_shapes / sizeof *tiny_shapes; sh++) {
                set_shape(ctx, tiny_shapes[sh]);
                for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
                    for (size_t i = 0; i < 5; i++)
                        put_float((clprim_type)t, want, i, rows[r].want[i]);
                    ck_assert_int_eq(clprim_scan(ctx, (clprim_type)t, rows[r].op, rows[r].exclusive, sbuf, 0, dbuf, 0,
                                                 5, 0, NULL, NULL),
                                     CLPRIM_SUCCESS);
                    harness_read(ctx, dbuf, 0, 5 * es, got);
                    for (size_t i = 0; i < 5; i++) {
                        double g = t == CLPRIM_FLOAT ? ((float *)got)[i] : ((double *)got)[i];
                        int ok = isnan(rows[r].want[i]) ? isnan(g) : !memcmp(got + i * es, want + i * es, es);
                        ck_assert_msg(ok, "%s %s %s scan of [NaN, 3, NaN, 1, 5] (%s): element %zu is %g, want %g",
                                      reference_type_name((clprim_type)t), reference_op_name(rows[r].op),
                                      rows[r].exclusive ? "exclusive" : "inclusive", harness_tuning_text(ctx), i,
                                      g, rows[r].want[i]);
                    }
                    /* The reference follows the same rule. */
                    char msg[768];
                    ck_assert_msg(reference_check_scan((clprim_type)t, rows[r].op, rows[r].exclusive, src, want, 5,
                                                       msg, sizeof msg) == 5,
                                  "reference: %s", msg);
                }
            }
            clReleaseMemObject(sbuf);
            clReleaseMemObject(dbuf);
        }
    }
}
END_TEST

/* Where NaN sits in the NaN-rule inputs below; numbers are never zero, so
 * equal values are equal bits (no -0 against +0). */
typedef enum {
    NAN_ALL,
    NAN_PREFIX,           /* the first `run` elements */
    NAN_SUFFIX,           /* the last `run` elements */
    NAN_SCATTERED,        /* every seventh, from element 3 */
    NAN_PREFIX_INFINITIES /* the first `run`, then every fifth; +-inf here and there */
} nan_layout;

static double nan_layout_value(nan_layout kind, size_t i, size_t n, size_t run)
{
    const double number = (double)((i * 37) % 101) - 50.5;
    switch (kind) {
    case NAN_ALL: return NAN;
    case NAN_PREFIX: return i < run ? NAN : number;
    case NAN_SUFFIX: return i + run >= n ? NAN : number;
    case NAN_SCATTERED: return i % 7 == 3 ? NAN : number;
    case NAN_PREFIX_INFINITIES:
        return i < run || i % 5 == 0 ? NAN : i % 11 == 1 ? INFINITY : i % 13 == 2 ? -INFINITY : number;
    }
    return number;
}

/* Float MIN/MAX scans are NaN exactly where every element so far is NaN, at
 * sizes and NaN runs that end on both sides of each boundary of the split
 * (work-group, tile, chunk, every level of partials), in every layout. */
START_TEST(scan_float_nan_runs)
{
    static const struct {
        nan_layout kind;
        int runs; /* whether the row is repeated over the run lengths below */
    } rows[] = {{NAN_ALL, 0}, {NAN_PREFIX, 1}, {NAN_SUFFIX, 1}, {NAN_SCATTERED, 0}, {NAN_PREFIX_INFINITIES, 1}};
    static const size_t shapes[][3] = {{0, 0, 0}, {4, 2, 64}, {4, 2, 8}, {1, 2, 16}, {2, 1, 3}};
    uint64_t rng = harness_rng(750);
    FOR_EACH_DEVICE(ctx)
    {
        for (int t = CLPRIM_FLOAT; t <= CLPRIM_DOUBLE; t++) {
            if (!type_runs(ctx, (clprim_type)t))
                continue;
            const size_t es = reference_type_size((clprim_type)t);
            for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++) {
                set_shape(ctx, shapes[sh]);
                const clprim_tuning tuning = clprim_get_tuning(ctx);
                const size_t wg = tuning.work_group_size, tile = wg * tuning.items_per_thread;
                size_t sizes[16] = {1, 2, wg + 1, tile + 1, 2 * tile + 3}, count = 5;
                for (int levels = 2; levels <= 3; levels++) {
                    size_t first = harness_first_size_with_levels(&tuning, levels, 100000);
                    if (first) {
                        sizes[count++] = first - 1;
                        sizes[count++] = first + 1;
                    }
                }
                for (size_t k = 0; k < count; k++) {
                    const size_t n = sizes[k];
                    const size_t runs[] = {1, tile, tile + 1, n / 2, n - 1};
                    unsigned char *data = harness_malloc(n * es);
                    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
                        for (size_t u = 0; u < (rows[r].runs ? sizeof runs / sizeof *runs : 1); u++) {
                            if (runs[u] > n)
                                continue;
                            for (size_t i = 0; i < n; i++)
                                put_float((clprim_type)t, data, i, nan_layout_value(rows[r].kind, i, n, runs[u]));
                            for (int op = CLPRIM_MIN; op <= CLPRIM_MAX; op++)
                                for (int exclusive = 0; exclusive <= 1; exclusive++) {
                                    layout lay = {(k + u) % 3, (k + r) % 2, 1, (k + u + r) % 4 == 3};
                                    scan_case(ctx, (clprim_type)t, (clprim_op)op, exclusive, n, lay, data, &rng);
                                }
                        }
                    free(data);
                }
            }
            harness_default_tuning(ctx);
        }
    }
}
END_TEST

/* The same float scan twice gives the same bits, for the default tuning and for
 * a deep split. */
START_TEST(scan_deterministic)
{
    uint64_t rng = harness_rng(800);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 1000003;
        float *data = harness_malloc(n * sizeof *data);
        harness_fill_random(CLPRIM_FLOAT, data, n, &rng);
        cl_mem src = harness_buffer(ctx, n * 4, data), dst = harness_buffer(ctx, n * 4, NULL);
        float *first = harness_malloc(n * 4), *second = harness_malloc(n * 4);
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 64);
            for (int exclusive = 0; exclusive <= 1; exclusive++) {
                ck_assert_int_eq(
                    clprim_scan(ctx, CLPRIM_FLOAT, CLPRIM_SUM, exclusive, src, 0, dst, 0, n, 0, NULL, NULL),
                    CLPRIM_SUCCESS);
                harness_read(ctx, dst, 0, n * 4, first);
                /* Disturb dst so the second result is really recomputed. */
                float zero = 0;
                clEnqueueFillBuffer(clprim_queue(ctx), dst, &zero, sizeof zero, 0, n * 4, 0, NULL, NULL);
                ck_assert_int_eq(
                    clprim_scan(ctx, CLPRIM_FLOAT, CLPRIM_SUM, exclusive, src, 0, dst, 0, n, 0, NULL, NULL),
                    CLPRIM_SUCCESS);
                harness_read(ctx, dst, 0, n * 4, second);
                ck_assert_msg(memcmp(first, second, n * 4) == 0, "two float scans differ (%s, %s)",
                              exclusive ? "exclusive" : "inclusive", harness_tuning_text(ctx));
                char msg[768];
                ck_assert_msg(reference_check_scan(CLPRIM_FLOAT, CLPRIM_SUM, exclusive, data, first, n, msg,
                                                   sizeof msg) == n,
                              "%s", msg);
            }
        }
        free(first);
        free(second);
        free(data);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
}
END_TEST

/* `done` is an event to wait on, for n == 0 too; NULL done is fine. */
START_TEST(scan_events)
{
    FOR_EACH_DEVICE(ctx)
    {
        cl_mem src = harness_buffer(ctx, 4096, NULL), dst = harness_buffer(ctx, 4096, NULL);
        for (size_t n = 0; n <= 1000; n += 1000) {
            cl_event done = NULL;
            ck_assert_int_eq(clprim_scan(ctx, CLPRIM_UINT32, CLPRIM_MAX, 0, src, 0, dst, 0, n, 0, NULL, &done),
                             CLPRIM_SUCCESS);
            ck_assert_msg(done != NULL, "no event for n=%zu", n);
            ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
            cl_int exec = -1;
            ck_assert_int_eq(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL),
                             CL_SUCCESS);
            ck_assert_int_eq(exec, CL_COMPLETE);
            cl_command_queue q = NULL;
            clGetEventInfo(done, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL);
            ck_assert_ptr_eq(q, clprim_queue(ctx));
            ck_assert_int_eq(clReleaseEvent(done), CL_SUCCESS);
        }
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_UINT32, CLPRIM_MAX, 0, src, 0, dst, 0, 10, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        ck_assert_int_eq(clFinish(clprim_queue(ctx)), CL_SUCCESS);
        /* n == 0 writes nothing, with or without an event. */
        cl_mem empty = harness_buffer(ctx, 256, NULL);
        uint32_t ones[64];
        for (int i = 0; i < 64; i++)
            ones[i] = 1;
        cl_mem in = harness_buffer(ctx, sizeof ones, ones);
        cl_event done = NULL;
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_UINT32, CLPRIM_SUM, 0, in, 0, empty, 0, 0, 0, NULL, &done),
                         CLPRIM_SUCCESS);
        ck_assert_ptr_nonnull(done);
        ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_UINT32, CLPRIM_SUM, 1, in, 0, empty, 0, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        unsigned char out[256];
        harness_read(ctx, empty, 0, sizeof out, out);
        ck_assert(harness_all_sentinel(out, sizeof out));
        clReleaseMemObject(empty);
        clReleaseMemObject(in);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
}
END_TEST

/* A loop of calls allocates nothing after the first: the scratch (multi-pass)
 * or the look-back's records (one-sweep) stay. */
START_TEST(scan_reuses_scratch)
{
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 64);
        const size_t n = 5000;
        cl_mem src = harness_buffer(ctx, n * 8, NULL), dst = harness_buffer(ctx, n * 8, NULL);
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT64, CLPRIM_SUM, 0, src, 0, dst, 0, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        cl_mem scratch = ctx->scratch, records = ctx->lookback;
        size_t bytes = ctx->scratch_bytes;
        ck_assert(scratch != NULL || records != NULL);
        for (int i = 0; i < 5; i++) {
            ck_assert_int_eq(
                clprim_scan(ctx, CLPRIM_INT64, CLPRIM_SUM, i & 1, src, 0, dst, 0, n - (size_t)i, 0, NULL, NULL),
                CLPRIM_SUCCESS);
            ck_assert_ptr_eq(ctx->scratch, scratch);
            ck_assert_uint_eq(ctx->scratch_bytes, bytes);
            ck_assert_ptr_eq(ctx->lookback, records);
        }
        clFinish(clprim_queue(ctx));
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
}
END_TEST

/* Sub-buffers: their origin is respected, alone and with an element offset. */
START_TEST(scan_sub_buffers)
{
    uint64_t rng = harness_rng(900);
    FOR_EACH_DEVICE(ctx)
    {
        cl_uint align_bits = 0;
        clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
        const size_t origin = align_bits / 8 ? align_bits / 8 : 128, n = 3001;
        int32_t *data = harness_malloc((origin / 4 + n + 8) * 4);
        harness_fill_random(CLPRIM_INT32, data, origin / 4 + n + 8, &rng);
        cl_mem parent_src = harness_buffer(ctx, (origin / 4 + n + 8) * 4, data);
        cl_mem parent_dst = harness_buffer(ctx, (origin / 4 + n + 8) * 4, NULL);
        cl_buffer_region region = {origin, (n + 8) * 4};
        cl_int err;
        cl_mem sub_src = clCreateSubBuffer(parent_src, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_mem sub_dst = clCreateSubBuffer(parent_dst, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, sub_src, 3, sub_dst, 5, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        /* Past the sub-buffer's end even though the parent is larger. */
        clprim_status s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, sub_src, 0, sub_dst, 9, n, 0, NULL, NULL);
        harness_assert_error(ctx, s, CLPRIM_BUFFER_TOO_SMALL, "dst");
        size_t total = origin / 4 + n + 8;
        int32_t *out = harness_malloc(total * 4);
        harness_read(ctx, parent_dst, 0, total * 4, out);
        char msg[768];
        const size_t first = origin / 4 + 5;
        ck_assert_msg(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 0, data + origin / 4 + 3, out + first, n, msg,
                                           sizeof msg) == n,
                      "sub-buffer: %s", msg);
        ck_assert(harness_all_sentinel(out, first * 4));
        ck_assert(harness_all_sentinel(out + first + n, (total - first - n) * 4));
        free(out);
        free(data);
        clReleaseMemObject(sub_src);
        clReleaseMemObject(sub_dst);
        clReleaseMemObject(parent_src);
        clReleaseMemObject(parent_dst);
    }
}
END_TEST

/* Sub-buffers of one parent: disjoint ones are separate arrays; one at origin 0
 * spanning the same elements as the parent is the parent, so in place. */
START_TEST(scan_sub_buffers_of_one_parent)
{
    uint64_t rng = harness_rng(901);
    FOR_EACH_DEVICE(ctx)
    {
        cl_uint align_bits = 0;
        clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
        const size_t half = 4096 * 4 > align_bits / 8 ? 4096 * 4 : align_bits / 8, n = half / 4;
        int32_t *data = harness_malloc(2 * half), *out = harness_malloc(2 * half);
        harness_fill_random(CLPRIM_INT32, data, 2 * n, &rng);
        cl_mem parent = harness_buffer(ctx, 2 * half, data);
        const cl_buffer_region low = {0, half}, high = {half, half};
        cl_int err;
        cl_mem first = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &low, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_mem second = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &high, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        char msg[768];

        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, first, 0, second, 0, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, parent, 0, 2 * half, out);
        ck_assert_msg(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 0, data, out + n, n, msg, sizeof msg) == n,
                      "disjoint sub-buffers: %s", msg);
        ck_assert_msg(memcmp(out, data, half) == 0, "the source changed");

        /* In place: the parent as src, its sub-buffer at 0 as dst. */
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 1, parent, 0, first, 0, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        int32_t *in_place = harness_malloc(half);
        harness_read(ctx, parent, 0, half, in_place);
        ck_assert_msg(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 1, data, in_place, n, msg, sizeof msg) == n,
                      "in place through a sub-buffer: %s", msg);
        free(in_place);
        free(out);
        free(data);
        clReleaseMemObject(first);
        clReleaseMemObject(second);
        clReleaseMemObject(parent);
    }
}
END_TEST

/* ---- Event wait lists: nothing of the call runs before its list ---- */

static cl_int execution_status(cl_event e)
{
    cl_int status = -1;
    ck_assert_int_eq(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL), CL_SUCCESS);
    return status;
}

/* The call's event stays incomplete while `gate` is pending: polled for half a
 * second after a flush, far longer than the work takes when nothing holds it.
 * Nothing blocks on the queue meanwhile (a blocking read would wait for the
 * gate too, and never return). */
static void assert_held_back(clprim_context *ctx, cl_event event, const char *what)
{
    ck_assert_int_eq(clFlush(clprim_queue(ctx)), CL_SUCCESS);
    for (int i = 0; i < 50; i++) {
        ck_assert_msg(execution_status(event) != CL_COMPLETE, "%s completed before its wait list", what);
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
}

static cl_event user_event(clprim_context *ctx)
{
    cl_int err;
    cl_event e = clCreateUserEvent(clprim_cl_context(ctx), &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return e;
}

/* Scans n int32 of src (holding `data` once `gate` and `before` allow) and
 * checks dst after the gate opens. */
static void scan_after(clprim_context *ctx, cl_event gate, cl_event before, cl_mem src, const int32_t *data, size_t n,
                       const char *what)
{
    cl_mem dst = harness_buffer(ctx, n * 4, NULL);
    cl_event scanned = NULL;
    ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, dst, 0, n, 1, &before, &scanned),
                     CLPRIM_SUCCESS);
    assert_held_back(ctx, scanned, what);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &scanned), CL_SUCCESS);
    clReleaseEvent(scanned);
    int32_t *out = harness_malloc(n * 4);
    harness_read(ctx, dst, 0, n * 4, out);
    char msg[768];
    ck_assert_msg(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 0, data, out, n, msg, sizeof msg) == n, "%s: %s",
                  what, msg);
    free(out);
    clReleaseMemObject(dst);
}

START_TEST(scan_waits_for_user_event)
{
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 5000;
        int32_t *data = harness_malloc(n * 4);
        uint64_t rng = harness_rng(41);
        harness_fill_random(CLPRIM_INT32, data, n, &rng);
        cl_mem src = harness_buffer(ctx, n * 4, data);
        cl_event gate = user_event(ctx);
        scan_after(ctx, gate, gate, src, data, n, "a scan waiting for a user event");
        clReleaseEvent(gate);
        clReleaseMemObject(src);
        free(data);
    }
}
END_TEST

/* Data written on another queue of the same cl_context feeds the scan through
 * the write's event, with no clFinish: the write itself waits for a gate, so a
 * scan that did not wait for it would read the old contents. */
START_TEST(scan_waits_for_another_queue)
{
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 5000;
        int32_t *data = harness_malloc(n * 4);
        uint64_t rng = harness_rng(42);
        harness_fill_random(CLPRIM_INT32, data, n, &rng);
        cl_mem src = harness_buffer(ctx, n * 4, NULL);
        cl_int err;
        cl_command_queue other = clCreateCommandQueue(clprim_cl_context(ctx), clprim_device(ctx), 0, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_event gate = user_event(ctx), written = NULL;
        ck_assert_int_eq(clEnqueueWriteBuffer(other, src, CL_FALSE, 0, n * 4, data, 1, &gate, &written), CL_SUCCESS);
        ck_assert_int_eq(clFlush(other), CL_SUCCESS);
        scan_after(ctx, gate, written, src, data, n, "a scan of data written on another queue");
        clReleaseEvent(written);
        clReleaseEvent(gate);
        clReleaseCommandQueue(other);
        clReleaseMemObject(src);
        free(data);
    }
}
END_TEST

/* n == 0 enqueues no work, yet its event completes only after the wait list. */
START_TEST(scan_empty_waits_for_its_list)
{
    FOR_EACH_DEVICE(ctx)
    {
        cl_mem buf = harness_buffer(ctx, 64, NULL);
        cl_event gate = user_event(ctx), done = NULL;
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, buf, 0, buf, 0, 0, 1, &gate, &done),
                         CLPRIM_SUCCESS);
        ck_assert_ptr_nonnull(done);
        assert_held_back(ctx, done, "an empty scan");
        ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        ck_assert_int_eq(execution_status(done), CL_COMPLETE);
        clReleaseEvent(done);
        clReleaseEvent(gate);
        clReleaseMemObject(buf);
    }
}
END_TEST

/* ---- Bad arguments: status, message, nothing written ---- */

/* Calls: clprim_scan, or clprim_scan_seeded with buf[2] as the seed at
 * offset[2] (HB_NULL: none); SCAN_SEEDED_NO_COMBINE passes an operator whose
 * combine is NULL. */
enum { SCAN_INCLUSIVE, SCAN_EXCLUSIVE, SCAN_SEEDED, SCAN_SEEDED_EXCLUSIVE, SCAN_SEEDED_NO_COMBINE };

/* Variants: the event wait list a row passes. */
enum {
    WAIT_NONE,          /* 0, NULL */
    WAIT_NULL_LIST,     /* 1, NULL */
    WAIT_LIST_NO_COUNT, /* 0, a list holding a complete event */
    WAIT_FOREIGN,       /* 1, an event of buf[2]'s cl_context */
    WAIT_COMPLETE,      /* 2, two complete events of the context's cl_context */
    WAIT_BUFFER,        /* 1, buf[0] cast to cl_event (some drivers answer clGetEventInfo for it) */
};

/* A complete user event of buf's cl_context. */
static cl_event complete_event_of(cl_mem buf)
{
    cl_context owner = NULL;
    ck_assert_int_eq(clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL), CL_SUCCESS);
    cl_int err;
    cl_event e = clCreateUserEvent(owner, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(e, CL_COMPLETE), CL_SUCCESS);
    return e;
}

/* buf: src, dst, and for WAIT_FOREIGN a buffer of the other cl_context. A
 * success is also checked against the reference. */
static clprim_status scan_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const int exclusive = row->call == SCAN_EXCLUSIVE || row->call == SCAN_SEEDED_EXCLUSIVE;
    const int seeded = row->call >= SCAN_SEEDED;
    cl_event events[2] = {NULL, NULL};
    cl_uint nevents = 0;
    const cl_event *wait_list = NULL;
    switch (row->variant) {
    case WAIT_NULL_LIST: nevents = 1; break;
    case WAIT_LIST_NO_COUNT: events[0] = complete_event_of(buf[0]); wait_list = events; break;
    case WAIT_FOREIGN: events[0] = complete_event_of(buf[2]); nevents = 1; wait_list = events; break;
    case WAIT_COMPLETE:
        events[0] = complete_event_of(buf[0]);
        events[1] = complete_event_of(buf[0]);
        nevents = 2;
        wait_list = events;
        break;
    }
    cl_event not_an_event[1] = {(cl_event)buf[0]};
    if (row->variant == WAIT_BUFFER) {
        nevents = 1;
        wait_list = not_an_event;
    }
    /* A success's input, for the reference (nothing to read for a failure or n == 0). */
    const size_t es = reference_type_size(row->type), bytes = row->want == CLPRIM_SUCCESS ? row->n * es : 0;
    unsigned char *src = harness_malloc(bytes + 1), *dst = harness_malloc(bytes + 1);
    unsigned char seed[8];
    const int with_seed = seeded && buf[2] && bytes > 0;
    if (bytes > 0)
        harness_read(ctx, buf[0], row->offset[0] * es, bytes, src);
    if (with_seed)
        harness_read(ctx, buf[2], row->offset[2] * es, es, seed);
    clprim_status s;
    if (seeded) {
        const uint32_t zero = 0;
        const clprim_operator no_combine = {NULL, &zero};
        s = clprim_scan_seeded(ctx, row->type, (clprim_op)row->op,
                               row->call == SCAN_SEEDED_NO_COMBINE ? &no_combine : NULL, exclusive, buf[2],
                               row->offset[2], buf[0], row->offset[0], buf[1], row->offset[1], row->n, nevents,
                               wait_list, NULL);
    } else {
        s = clprim_scan(ctx, row->type, (clprim_op)row->op, exclusive, buf[0], row->offset[0], buf[1],
                        row->offset[1], row->n, nevents, wait_list, NULL);
    }
    for (int i = 0; i < 2; i++)
        if (events[i])
            clReleaseEvent(events[i]);
    if (s == CLPRIM_SUCCESS && bytes > 0) {
        harness_read(ctx, buf[1], row->offset[1] * es, bytes, dst);
        char msg[768];
        const clprim_op op = (clprim_op)row->op;
        const size_t good = with_seed
                                ? reference_check_scan_seeded(row->type, op, exclusive, seed, src, dst, row->n, msg,
                                                              sizeof msg)
                                : reference_check_scan(row->type, op, exclusive, src, dst, row->n, msg, sizeof msg);
        ck_assert_msg(good == row->n, "%s: %s", row->what, msg);
    }
    free(src);
    free(dst);
    return s;
}

/* 1024 int32 span 4 KiB: past any CL_DEVICE_MEM_BASE_ADDR_ALIGN, so a sub-buffer
 * at that alignment overlaps the same elements of its parent. Each buffer holds
 * HARNESS_BAD_BYTES / 4 = 16384 int32. */
static const harness_bad_call scan_bad_calls[] = {
    {"ctx NULL", SCAN_INCLUSIVE, 1, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"ctx NULL, buffers overlapping", SCAN_INCLUSIVE, 1, {HB_A, HB_A_AT_ALIGN}, {0, 0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"src NULL", SCAN_INCLUSIVE, 0, {HB_NULL, HB_B}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT, "src is NULL"},
    {"dst NULL", SCAN_INCLUSIVE, 0, {HB_A, HB_NULL}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT, "dst is NULL"},
    {"dst NULL, n 0", SCAN_INCLUSIVE, 0, {HB_A, HB_NULL}, {0, 0}, 0, CLPRIM_INVALID_ARGUMENT, "dst is NULL"},
    {"n 0 in place clears the message", SCAN_INCLUSIVE, 0, {HB_A, HB_A}, {0, 0}, 0, CLPRIM_SUCCESS, NULL},
    {"type 99", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "type",
     .type = (clprim_type)99, .also = "99"},
    {"type -1", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "type", .type = (clprim_type)-1},
    {"op 3", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "op", .op = 3},
    {"op -7", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "op", .op = -7},
    {"src one element short", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {1, 0}, 16384, CLPRIM_BUFFER_TOO_SMALL, "src",
     .also = "holds 16384 elements"},
    {"dst one element short", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 1}, 16384, CLPRIM_BUFFER_TOO_SMALL, "dst"},
    /* Elements, not bytes: 16384 int32 fit, 8193 int64 do not. */
    {"int64 counted in elements", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 8193, CLPRIM_BUFFER_TOO_SMALL, "src",
     .type = CLPRIM_INT64},
    {"src offset past the end, n 0", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {16385, 0}, 0, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"n SIZE_MAX", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, SIZE_MAX, CLPRIM_BUFFER_TOO_SMALL, "src"},
    /* offset + n overflows size_t, or the byte count would wrap to something small. */
    {"src offset + n overflows", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {SIZE_MAX - 2, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "src", .also = "overflows"},
    {"dst offset * 4 overflows", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, SIZE_MAX / 4 + 1}, 8, CLPRIM_BUFFER_TOO_SMALL,
     "dst"},
    {"offset SIZE_MAX, n SIZE_MAX", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, SIZE_MAX}, SIZE_MAX,
     CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"dst a sub-buffer inside src", SCAN_INCLUSIVE, 0, {HB_A, HB_A_AT_ALIGN}, {0, 0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"src a sub-buffer inside dst", SCAN_INCLUSIVE, 0, {HB_A_AT_ALIGN, HB_A}, {0, 0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"dst a sub-buffer at 0, shifted by one", SCAN_INCLUSIVE, 0, {HB_A, HB_A_AT_0}, {0, 1}, 1024,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"src a sub-buffer at 0, shifted by one", SCAN_INCLUSIVE, 0, {HB_A_AT_0, HB_A}, {1, 0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"one buffer, overlapping offsets", SCAN_INCLUSIVE, 0, {HB_A, HB_A}, {0, 2}, 10, CLPRIM_INVALID_ARGUMENT,
     "overlap"},
    {"one buffer, src after dst", SCAN_INCLUSIVE, 0, {HB_A, HB_A}, {9, 0}, 10, CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"one buffer, src after dst, exclusive", SCAN_EXCLUSIVE, 0, {HB_A, HB_A}, {9, 0}, 10, CLPRIM_INVALID_ARGUMENT,
     "overlap"},
    {"adjacent ranges of one buffer do not overlap", SCAN_INCLUSIVE, 0, {HB_A, HB_A}, {0, 10}, 10, CLPRIM_SUCCESS,
     NULL, .written = HB_ARG(1)},
    {"src an image object", SCAN_INCLUSIVE, 0, {HB_IMAGE, HB_B}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    {"dst an image object", SCAN_INCLUSIVE, 0, {HB_A, HB_IMAGE}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    {"src CL_MEM_WRITE_ONLY", SCAN_INCLUSIVE, 0, {HB_WRITE_ONLY, HB_B}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"dst CL_MEM_READ_ONLY", SCAN_INCLUSIVE, 0, {HB_A, HB_READ_ONLY}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY", .also = "dst"},
    {"a read-only src is fine, n 0", SCAN_INCLUSIVE, 0, {HB_READ_ONLY, HB_A}, {0, 0}, 0, CLPRIM_SUCCESS, NULL},
    {"a read-only src is fine", SCAN_INCLUSIVE, 0, {HB_READ_ONLY, HB_B}, {0, 0}, 64, CLPRIM_SUCCESS, NULL,
     .op = CLPRIM_MAX, .written = HB_ARG(1)},
    {"src of another context", SCAN_INCLUSIVE, 0, {HB_FOREIGN, HB_B}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "another OpenCL context", .also = "src"},
    {"dst of another context", SCAN_INCLUSIVE, 0, {HB_A, HB_FOREIGN}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "another OpenCL context", .also = "dst"},
    /* Event wait lists, OpenCL's rules; checked with the other arguments. */
    {"wait list NULL with a count", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "event_wait_list is NULL", .also = "clprim_scan", .variant = WAIT_NULL_LIST},
    {"wait list NULL with a count, n 0", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 0, CLPRIM_INVALID_ARGUMENT,
     "event_wait_list is NULL", .variant = WAIT_NULL_LIST},
    {"wait list with count 0", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "num_events_in_wait_list is 0", .variant = WAIT_LIST_NO_COUNT},
    {"wait list event of another context", SCAN_INCLUSIVE, 0, {HB_A, HB_B, HB_FOREIGN}, {0, 0}, 16,
     CLPRIM_INVALID_ARGUMENT, "event_wait_list[0]", .also = "another cl_context", .variant = WAIT_FOREIGN},
    {"wait list event of another context, n 0", SCAN_INCLUSIVE, 0, {HB_A, HB_B, HB_FOREIGN}, {0, 0}, 0,
     CLPRIM_INVALID_ARGUMENT, "event_wait_list[0]", .variant = WAIT_FOREIGN},
    {"a buffer in the wait list", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "event_wait_list[0]", .also = "event", .variant = WAIT_BUFFER},
    {"a buffer in the wait list, n 0", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 0, CLPRIM_INVALID_ARGUMENT,
     "event_wait_list[0]", .variant = WAIT_BUFFER},
    {"wait list of complete events", SCAN_EXCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 1000, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1), .variant = WAIT_COMPLETE},
    {"wait list of complete events, n 0", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 0, CLPRIM_SUCCESS, NULL,
     .variant = WAIT_COMPLETE},
    /* The seed of clprim_scan_seeded: buf[2] at offset[2]. */
    {"seeded: seed NULL is the plain scan", SCAN_SEEDED, 0, {HB_A, HB_B, HB_NULL}, {0, 0, 0}, 100, CLPRIM_SUCCESS,
     NULL, .op = CLPRIM_MIN, .written = HB_ARG(1)},
    {"seeded: seed in a buffer of its own", SCAN_SEEDED_EXCLUSIVE, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 16383},
     1000, CLPRIM_SUCCESS, NULL, .written = HB_ARG(1)},
    {"seeded: seed among src's elements", SCAN_SEEDED, 0, {HB_A, HB_B, HB_A}, {0, 0, 40}, 100, CLPRIM_SUCCESS, NULL,
     .type = CLPRIM_UINT64, .written = HB_ARG(1)},
    {"seeded: in place, seed just past dst", SCAN_SEEDED, 0, {HB_A, HB_A, HB_A}, {10, 10, 110}, 100,
     CLPRIM_SUCCESS, NULL, .op = CLPRIM_MAX, .written = HB_ARG(1)},
    {"seeded: in place, seed just before dst", SCAN_SEEDED_EXCLUSIVE, 0, {HB_A, HB_A, HB_A}, {10, 10, 9}, 100,
     CLPRIM_SUCCESS, NULL, .written = HB_ARG(1)},
    {"seeded: seed one element short", SCAN_SEEDED, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 16384}, 16,
     CLPRIM_BUFFER_TOO_SMALL, "seed", .also = "holds 16384 elements"},
    {"seeded: seed one element short, n 0", SCAN_SEEDED, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 16384}, 0,
     CLPRIM_BUFFER_TOO_SMALL, "seed"},
    {"seeded: int64 seed counted in elements", SCAN_SEEDED, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 8192}, 16,
     CLPRIM_BUFFER_TOO_SMALL, "seed", .type = CLPRIM_INT64},
    {"seeded: seed offset overflows", SCAN_SEEDED, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, SIZE_MAX}, 16,
     CLPRIM_INVALID_ARGUMENT, "seed", .also = "overflows"},
    {"seeded: seed the last element of dst", SCAN_SEEDED, 0, {HB_A, HB_B, HB_B}, {0, 0, 15}, 16,
     CLPRIM_INVALID_ARGUMENT, "seed bytes [60, 64)", .also = "dst bytes [0, 64)"},
    {"seeded: seed inside dst, in place", SCAN_SEEDED_EXCLUSIVE, 0, {HB_A, HB_A, HB_A}, {0, 0, 3}, 16,
     CLPRIM_INVALID_ARGUMENT, "overlap", .also = "clprim_scan_seeded: seed"},
    {"seeded: seed in a sub-buffer inside dst", SCAN_SEEDED, 0, {HB_B, HB_A, HB_A_AT_ALIGN}, {0, 0, 0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer", .also = "seed"},
    {"seeded: seed CL_MEM_WRITE_ONLY", SCAN_SEEDED, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0, 0, 0}, 16,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY", .also = "seed"},
    {"seeded: seed an image object", SCAN_SEEDED, 0, {HB_A, HB_B, HB_IMAGE}, {0, 0, 0}, 16, CLPRIM_INVALID_ARGUMENT,
     "image object", .also = "seed"},
    {"seeded: seed of another context", SCAN_SEEDED, 0, {HB_A, HB_B, HB_FOREIGN}, {0, 0, 0}, 16,
     CLPRIM_INVALID_ARGUMENT, "another OpenCL context", .also = "seed"},
    {"seeded: custom combine NULL", SCAN_SEEDED_NO_COMBINE, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 0}, 16,
     CLPRIM_INVALID_ARGUMENT, "combine", .type = CLPRIM_UINT32},
    {"seeded: custom combine NULL, n 0", SCAN_SEEDED_NO_COMBINE, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 0}, 0,
     CLPRIM_INVALID_ARGUMENT, "combine", .type = CLPRIM_UINT32},
    {"seeded: op 3", SCAN_SEEDED, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "op",
     .op = 3},
    {"seeded: src overlapping dst", SCAN_SEEDED, 0, {HB_A, HB_A, HB_B}, {0, 2, 0}, 10, CLPRIM_INVALID_ARGUMENT,
     "overlap", .also = "clprim_scan_seeded"},
    {"seeded: ctx NULL", SCAN_SEEDED, 1, {HB_A, HB_B, HB_B}, {0, 0, 0}, 16, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"seeded: wait list NULL with a count", SCAN_SEEDED, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 0}, 16,
     CLPRIM_INVALID_ARGUMENT, "event_wait_list is NULL", .also = "clprim_scan_seeded", .variant = WAIT_NULL_LIST},
    {"seeded: wait list of complete events, n 0", SCAN_SEEDED, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 0}, 0,
     CLPRIM_SUCCESS, NULL, .variant = WAIT_COMPLETE},
    /* Refused before anything is compiled. */
    {"double without cl_khr_fp64", SCAN_INCLUSIVE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_UNSUPPORTED, "fp64",
     .type = CLPRIM_DOUBLE, .also = "double", .without_fp64 = 1},
};

START_TEST(scan_bad_table)
{
    harness_run_bad_calls(scan_bad_calls, sizeof scan_bad_calls / sizeof *scan_bad_calls, scan_bad_call);
}
END_TEST

/* The one-sweep and multi-pass forms give the same bits for every type,
 * operator and direction but float sums (scan_one_sweep_grouping), at the
 * device's tiles and at small ones, with NaN among the floats. */
START_TEST(scan_forms_same_bits)
{
    const clprim_type t = (clprim_type)_i;
    const size_t es = reference_type_size(t);
    uint64_t rng = harness_rng(900 + _i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        const size_t n = 20000 + harness_rand(&rng) % 1000;
        unsigned char *data = harness_malloc(n * es), *got[2] = {harness_malloc(n * es), harness_malloc(n * es)};
        harness_fill_random(t, data, n, &rng);
        for (size_t k = 0; k < 8 && (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE); k++) {
            const size_t at = harness_rand(&rng) % n;
            if (t == CLPRIM_FLOAT)
                ((float *)data)[at] = NAN;
            else
                ((double *)data)[at] = NAN;
        }
        cl_mem src = harness_buffer(ctx, n * es, data), dst = harness_buffer(ctx, n * es, NULL);
        for (int small = 0; small <= 1; small++)
            for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++)
                for (int exclusive = 0; exclusive <= 1 && (op != CLPRIM_SUM || !reference_type_is_float(t));
                     exclusive++) {
                    for (int f = 0; f < 2; f++) {
                        clprim_tuning tuning = {small ? 4 : 0, small ? 2 : 0, small ? 64 : 0,
                                                f ? CLPRIM_FORM_ONE_SWEEP : CLPRIM_FORM_MULTI_PASS};
                        ck_assert_int_eq(harness_tune(ctx, &tuning), CLPRIM_SUCCESS);
                        ck_assert_int_eq(clprim_scan(ctx, t, (clprim_op)op, exclusive, src, 0, dst, 0, n, 0, NULL,
                                                     NULL),
                                         CLPRIM_SUCCESS);
                        harness_read(ctx, dst, 0, n * es, got[f]);
                    }
                    size_t i = 0;
                    while (i < n && !memcmp(got[0] + i * es, got[1] + i * es, es))
                        i++;
                    ck_assert_msg(i == n, "%s %s %s scan of %zu: the forms differ first at element %zu (%s)",
                                  reference_type_name(t), reference_op_name((clprim_op)op),
                                  exclusive ? "exclusive" : "inclusive", n, i, harness_tuning_text(ctx));
                    char msg[768];
                    ck_assert_msg(reference_check_scan(t, (clprim_op)op, exclusive, data, got[1], n, msg,
                                                       sizeof msg) == n,
                                  "%s", msg);
                }
        harness_default_tuning(ctx);
        free(data);
        free(got[0]);
        free(got[1]);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
}
END_TEST

/* Float and double sums in one sweep give exactly the bits of the grouping
 * the tiles' numbers fix (reference_scan_one_sweep_sum), whatever order the
 * work-groups run in: at the device's tiles, at small ones (many groups of
 * tiles) and at a GPU's (128 x 16, past the first group); then with NaN among
 * the elements, where each NaN lands where the model's does; and where the
 * look-back's fallback computes what does not come (CLPRIM_TEST_LOOKBACK
 * reversed: every tile's predecessors; sparse: every group's prefix). */
START_TEST(scan_one_sweep_grouping)
{
    const clprim_type t = _i ? CLPRIM_DOUBLE : CLPRIM_FLOAT;
    const size_t es = reference_type_size(t);
    uint64_t rng = harness_rng(950 + _i);
    const size_t shapes[][3] = {{0, 0, 0}, {4, 2, 64}, {128, 16, 0}};
    const char *const modes[] = {NULL, "reversed", "sparse"};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        harness_env_set("CLPRIM_TEST_LOOKBACK", modes[m]);
        FOR_EACH_DEVICE(ctx)
        {
            if (!type_runs(ctx, t))
                continue;
            /* A fallback computes every tile before its own: quadratic, so
             * few tiles there. */
            for (size_t k = 0; k < (modes[m] ? 2 : sizeof shapes / sizeof *shapes); k++) {
                const clprim_tuning want = {shapes[k][0], shapes[k][1], shapes[k][2], CLPRIM_FORM_ONE_SWEEP};
                ck_assert_int_eq(harness_tune(ctx, &want), CLPRIM_SUCCESS);
                const clprim_tuning tuning = clprim_get_tuning(ctx);
                const clprim_tuning shape = clprim_one_sweep_shape(ctx, &tuning, es);
                const size_t n = (modes[m] ? 2000 : k == 2 ? 600000 : 20000) + harness_rand(&rng) % 1000;
                unsigned char *data = harness_malloc(n * es), *got = harness_malloc(n * es),
                              *want_bits = harness_malloc(n * es);
                harness_fill_random(t, data, n, &rng);
                cl_mem dst = harness_buffer(ctx, n * es, NULL);
                for (int with_nan = 0; with_nan <= 1; with_nan++) {
                    for (size_t j = 0; j < 8 && with_nan; j++) {
                        const size_t at = harness_rand(&rng) % n;
                        if (t == CLPRIM_FLOAT)
                            ((float *)data)[at] = NAN;
                        else
                            ((double *)data)[at] = NAN;
                    }
                    cl_mem src = harness_buffer(ctx, n * es, data);
                    for (int exclusive = 0; exclusive <= 1; exclusive++) {
                        ck_assert_int_eq(
                            clprim_scan(ctx, t, CLPRIM_SUM, exclusive, src, 0, dst, 0, n, 0, NULL, NULL),
                            CLPRIM_SUCCESS);
                        harness_read(ctx, dst, 0, n * es, got);
                        reference_scan_one_sweep_sum(t, exclusive, shape.work_group_size, shape.items_per_thread,
                                                     data, want_bits, n);
                        size_t i = 0;
                        for (; i < n; i++) {
                            const int nan_got =
                                t == CLPRIM_FLOAT ? isnan(((float *)got)[i]) : isnan(((double *)got)[i]);
                            const int nan_want = t == CLPRIM_FLOAT ? isnan(((float *)want_bits)[i])
                                                                   : isnan(((double *)want_bits)[i]);
                            if (nan_got != nan_want || (!nan_got && memcmp(got + i * es, want_bits + i * es, es)))
                                break;
                        }
                        ck_assert_msg(i == n,
                                      "%s %s sum of %zu%s, look-back %s: element %zu is not the fixed grouping's "
                                      "(%s)",
                                      reference_type_name(t), exclusive ? "exclusive" : "inclusive", n,
                                      with_nan ? " with NaN" : "", modes[m] ? modes[m] : "as usual", i,
                                      harness_tuning_text(ctx));
                    }
                    clReleaseMemObject(src);
                }
                free(data);
                free(got);
                free(want_bits);
                clReleaseMemObject(dst);
            }
        }
        harness_env_restore();
    }
}
END_TEST

/* ---- The seeded scan ---- */

/* One clprim_scan_seeded of n random elements (from 2 elements into buffers
 * of 3 more), with the built-in op, or with *custom when not NULL (fold its C
 * twin). Checks the result against the reference, the elements around dst's
 * range, the input, and the event. */
static void seeded_case(clprim_context *ctx, clprim_type t, clprim_op op, const clprim_operator *custom,
                        reference_fold fold, int exclusive, size_t n, seed_place where, uint64_t *rng)
{
    const size_t es = reference_type_size(t), offset = 2, len = offset + n + 3;
    unsigned char *data = harness_malloc(len * es), *out = harness_malloc(len * es), *want = harness_malloc(n * es);
    unsigned char own[4 * 8], seed[8];
    harness_fill_random(t, data, len, rng);
    harness_fill_random(t, own, 4, rng);
    if (fold == reference_mul_u32) /* odd factors keep the product from collapsing to 0 */
        for (size_t i = 0; i < len; i++)
            ((uint32_t *)data)[i] |= 1u;
    cl_mem src = harness_buffer(ctx, len * es, data), dst = src, seed_buf = src;
    size_t seed_offset = offset - 1;
    if (where != SEED_BEFORE_IN_PLACE)
        dst = harness_buffer(ctx, len * es, NULL);
    if (where == SEED_APART) {
        seed_buf = harness_buffer(ctx, sizeof own, own);
        seed_offset = 3;
        memcpy(seed, own + 3 * es, es);
    } else {
        if (where == SEED_IN_SRC)
            seed_offset = offset + n / 2;
        memcpy(seed, data + seed_offset * es, es);
    }

    cl_event done = NULL;
    clprim_status s = clprim_scan_seeded(ctx, t, op, custom, exclusive, seed_buf, seed_offset, src, offset, dst,
                                         offset, n, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "seeded scan %s %s %s n=%zu (%s): %s: %s", reference_type_name(t),
                  custom ? custom->combine : reference_op_name(op), exclusive ? "exclusive" : "inclusive", n,
                  harness_tuning_text(ctx), clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_ptr_nonnull(done);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    harness_read(ctx, dst, 0, len * es, out);

    char msg[768] = "";
    size_t bad = n;
    if (fold) {
        reference_scan_seeded(t, op, fold, exclusive, seed, data + offset * es, want, n);
        for (bad = 0; bad < n && !memcmp(out + (offset + bad) * es, want + bad * es, es); bad++)
            ;
        snprintf(msg, sizeof msg, "element %zu of %zu differs from the C fold", bad, n);
    } else {
        bad = reference_check_scan_seeded(t, op, exclusive, seed, data + offset * es, out + offset * es, n, msg,
                                          sizeof msg);
    }
    ck_assert_msg(bad == n, "seeded scan %s %s %s, seed placed %d: %s [tuning %s]", reference_type_name(t),
                  custom ? custom->combine : reference_op_name(op), exclusive ? "exclusive" : "inclusive",
                  (int)where, msg, harness_tuning_text(ctx));
    const size_t tail = offset + n;
    if (where == SEED_BEFORE_IN_PLACE) {
        ck_assert_msg(!memcmp(out, data, offset * es) && !memcmp(out + tail * es, data + tail * es, 3 * es),
                      "in-place seeded scan n=%zu changed elements outside its range", n);
    } else {
        ck_assert_msg(harness_all_sentinel(out, offset * es) && harness_all_sentinel(out + tail * es, 3 * es),
                      "seeded scan n=%zu wrote outside dst's range", n);
        harness_read(ctx, src, 0, len * es, out);
        ck_assert_msg(!memcmp(out, data, len * es), "seeded scan n=%zu changed its input", n);
        clReleaseMemObject(dst);
    }
    if (where == SEED_APART)
        clReleaseMemObject(seed_buf);
    clReleaseMemObject(src);
    free(data);
    free(out);
    free(want);
}

/* Callers' operators, one of them not commutative (affine maps: the seed must
 * come first), against their C folds; and a NULL seed gives the bits of
 * clprim_scan and clprim_scan_op. */
START_TEST(scan_seeded_operators)
{
    const uint32_t one = 1;
    const uint64_t affine_identity = (uint64_t)1 << 32;
    const clprim_operator mul = {"a * b", &one}, affine = {REFERENCE_AFFINE_U64, &affine_identity};
    uint64_t rng = harness_rng(1100);
    FOR_EACH_DEVICE(ctx)
    {
        for (int small = 0; small <= 1; small++) {
            if (small)
                harness_set_tuning(ctx, 4, 2, 16);
            const clprim_tuning tuning = clprim_get_tuning(ctx);
            const size_t tile = tuning.work_group_size * tuning.items_per_thread;
            const size_t sizes[] = {1, 7, tile + 1, 3 * tile * tuning.groups + 5, 1000};
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
                for (int exclusive = 0; exclusive <= 1; exclusive++) {
                    const seed_place where = (seed_place)((k + (size_t)exclusive) % SEED_PLACES);
                    seeded_case(ctx, CLPRIM_UINT64, CLPRIM_MAX, &affine, reference_affine_u64, exclusive, sizes[k],
                                where, &rng);
                    seeded_case(ctx, CLPRIM_UINT32, CLPRIM_MIN, &mul, reference_mul_u32, exclusive, sizes[k], where,
                                &rng);
                }
        }

        /* No seed: the same bits as the unseeded calls. */
        const size_t n = 5003;
        uint64_t *data = harness_malloc(n * 8), *got = harness_malloc(n * 8), *want = harness_malloc(n * 8);
        harness_fill_random(CLPRIM_UINT64, data, n, &rng);
        cl_mem src = harness_buffer(ctx, n * 8, data), dst = harness_buffer(ctx, n * 8, NULL);
        for (int exclusive = 0; exclusive <= 1; exclusive++)
            for (int custom = 0; custom <= 1; custom++) {
                const clprim_type t = custom ? CLPRIM_UINT64 : CLPRIM_DOUBLE;
                if (!custom && !ctx->has_fp64)
                    continue;
                ck_assert_int_eq(custom ? clprim_scan_op(ctx, t, &affine, exclusive, src, 0, dst, 0, n, 0, NULL, NULL)
                                        : clprim_scan(ctx, t, CLPRIM_SUM, exclusive, src, 0, dst, 0, n, 0, NULL, NULL),
                                 CLPRIM_SUCCESS);
                harness_read(ctx, dst, 0, n * 8, want);
                ck_assert_int_eq(clprim_scan_seeded(ctx, t, CLPRIM_SUM, custom ? &affine : NULL, exclusive, NULL, 0,
                                                    src, 0, dst, 0, n, 0, NULL, NULL),
                                 CLPRIM_SUCCESS);
                harness_read(ctx, dst, 0, n * 8, got);
                ck_assert_msg(!memcmp(got, want, n * 8), "a NULL seed changed the %s %s scan",
                              custom ? "affine" : "double sum", exclusive ? "exclusive" : "inclusive");
            }
        harness_default_tuning(ctx);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        free(data);
        free(got);
        free(want);
    }
}
END_TEST

/* An array scanned in three pieces, each seeded on the device with the last
 * element of the previous piece's inclusive scan, is one scan of the whole,
 * bit for bit (integers, MIN and MAX): inclusive pieces seeded from their own
 * output, exclusive ones from the whole's inclusive scan. */
START_TEST(scan_seeded_pieces)
{
    const clprim_type t = (clprim_type)_i;
    const size_t es = reference_type_size(t);
    uint64_t rng = harness_rng(1200 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        const size_t n = 20000 + harness_rand(&rng) % 1000;
        const size_t cut[4] = {0, n / 3 - 1, 2 * n / 3 + 5, n};
        unsigned char *data = harness_malloc(n * es), *whole = harness_malloc(n * es), *pieces = harness_malloc(n * es);
        harness_fill_random(t, data, n, &rng);
        cl_mem src = harness_buffer(ctx, n * es, data), one = harness_buffer(ctx, n * es, NULL),
               inclusive = harness_buffer(ctx, n * es, NULL), out = harness_buffer(ctx, n * es, NULL);
        for (int small = 0; small <= 1; small++) {
            if (small)
                harness_set_tuning(ctx, 4, 2, 64);
            for (int op = reference_type_is_float(t) ? CLPRIM_MIN : CLPRIM_SUM; op <= CLPRIM_MAX; op++)
                for (int exclusive = 0; exclusive <= 1; exclusive++) {
                    ck_assert_int_eq(clprim_scan(ctx, t, (clprim_op)op, 0, src, 0, inclusive, 0, n, 0, NULL, NULL),
                                     CLPRIM_SUCCESS);
                    ck_assert_int_eq(
                        clprim_scan(ctx, t, (clprim_op)op, exclusive, src, 0, one, 0, n, 0, NULL, NULL),
                        CLPRIM_SUCCESS);
                    cl_mem seeds = exclusive ? inclusive : out;
                    for (int p = 0; p < 3; p++)
                        ck_assert_int_eq(clprim_scan_seeded(ctx, t, (clprim_op)op, NULL, exclusive,
                                                            p ? seeds : NULL, p ? cut[p] - 1 : 0, src, cut[p], out,
                                                            cut[p], cut[p + 1] - cut[p], 0, NULL, NULL),
                                         CLPRIM_SUCCESS);
                    harness_read(ctx, one, 0, n * es, whole);
                    harness_read(ctx, out, 0, n * es, pieces);
                    size_t i = 0;
                    while (i < n && !memcmp(whole + i * es, pieces + i * es, es))
                        i++;
                    ck_assert_msg(i == n, "%s %s %s scan of %zu in pieces at %zu and %zu: differs first at %zu (%s)",
                                  reference_type_name(t), reference_op_name((clprim_op)op),
                                  exclusive ? "exclusive" : "inclusive", n, cut[1], cut[2], i,
                                  harness_tuning_text(ctx));
                }
        }
        harness_default_tuning(ctx);
        clReleaseMemObject(src);
        clReleaseMemObject(one);
        clReleaseMemObject(inclusive);
        clReleaseMemObject(out);
        free(data);
        free(whole);
        free(pieces);
    }
}
END_TEST

static Suite *scan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, scan_default_tuning, 0, 2 * REFERENCE_TYPE_COUNT);
    tcase_add_loop_test(tc, scan_small_tiles, 0, 2 * REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, scan_deep_levels);
    tcase_add_loop_test(tc, scan_in_place, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, scan_large_odd);
    tcase_add_test(tc, scan_float_exact_small_integers);
    tcase_add_test(tc, scan_int32_wraps);
    tcase_add_test(tc, scan_float_nan_and_infinity);
    tcase_add_test(tc, scan_deterministic);
    tcase_add_loop_test(tc, scan_forms_same_bits, 0, REFERENCE_TYPE_COUNT);
    tcase_add_loop_test(tc, scan_one_sweep_grouping, 0, 2);
    tcase_add_test(tc, scan_events);
    tcase_add_test(tc, scan_reuses_scratch);
    tcase_add_test(tc, scan_sub_buffers);
    tcase_add_test(tc, scan_sub_buffers_of_one_parent);
    suite_add_tcase(s, tc);

    TCase *seeded = tcase_create("seeded");
    tcase_set_timeout(seeded, 600);
    tcase_add_test(seeded, scan_seeded_operators);
    tcase_add_loop_test(seeded, scan_seeded_pieces, 0, REFERENCE_TYPE_COUNT);
    suite_add_tcase(s, seeded);

    TCase *events = tcase_create("wait_lists");
    tcase_set_timeout(events, 300);
    tcase_add_test(events, scan_waits_for_user_event);
    tcase_add_test(events, scan_waits_for_another_queue);
    tcase_add_test(events, scan_empty_waits_for_its_list);
    suite_add_tcase(s, events);

    TCase *nan = tcase_create("nan");
    tcase_set_timeout(nan, 600);
    tcase_add_test(nan, scan_float_nan_example);
    tcase_add_test(nan, scan_float_nan_runs);
    suite_add_tcase(s, nan);

    TCase *bad = tcase_create("bad_arguments");
    tcase_set_timeout(bad, 300);
    tcase_add_test(bad, scan_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(scan_suite());
}
