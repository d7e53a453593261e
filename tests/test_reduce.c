/* clprim_reduce against the CPU reference: every type and operator, sizes at the
 * boundaries of the split (work-group, tile, one and several partials, more
 * partials than one tile of the folding pass), offsets, the result for n == 0,
 * large odd sizes, determinism, and every bad argument. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

#define RESULT_BYTES 16 /* the result area: one element, then sentinel bytes that must stay */

static int type_runs(clprim_context *ctx, clprim_type t)
{
    if (t != CLPRIM_DOUBLE || ctx->has_fp64)
        return 1;
    cl_mem buf = harness_buffer(ctx, 64, NULL);
    unsigned char result[RESULT_BYTES];
    memset(result, HARNESS_SENTINEL, sizeof result);
    clprim_status s = clprim_reduce(ctx, t, CLPRIM_SUM, buf, 0, 4, result, 0, NULL);
    harness_assert_error(ctx, s, CLPRIM_UNSUPPORTED, "fp64");
    ck_assert(harness_all_sentinel(result, sizeof result));
    clReleaseMemObject(buf);
    fprintf(stderr, "note: %s has no cl_khr_fp64; double checked as CLPRIM_UNSUPPORTED only\n", ctx->device_name);
    return 0;
}

/* clprim_reduce_to of the same call writes the host form's bytes to element 1
 * of a device buffer of three, and nothing else; its event completes. */
static void check_device_form(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src, size_t offset, size_t n,
                              const unsigned char *host_result)
{
    const size_t es = reference_type_size(t);
    unsigned char init[3 * RESULT_BYTES], got[3 * RESULT_BYTES];
    memset(init, HARNESS_SENTINEL, sizeof init);
    cl_mem out = harness_buffer(ctx, 3 * es, init);
    cl_event done = NULL;
    clprim_status s = clprim_reduce_to(ctx, t, op, NULL, src, offset, n, out, 1, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "reduce_to %s %s n=%zu: %s: %s", reference_type_name(t), reference_op_name(op),
                  n, clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    harness_read(ctx, out, 0, 3 * es, got);
    ck_assert_msg(memcmp(got + es, host_result, es) == 0, "reduce_to %s %s n=%zu differs from clprim_reduce",
                  reference_type_name(t), reference_op_name(op), n);
    ck_assert_msg(harness_all_sentinel(got, es) && harness_all_sentinel(got + 2 * es, es),
                  "reduce_to wrote beside its element");
    clReleaseMemObject(out);
}

/* Reduces n elements (random, or `data`) at `offset` of a buffer with `after`
 * more elements, checks the result, that only one element was written, and that
 * the input is unchanged; the device form gives the same bits. */
static void reduce_case(clprim_context *ctx, clprim_type t, clprim_op op, size_t n, size_t offset, size_t after,
                        const void *data, uint64_t *rng)
{
    const size_t es = reference_type_size(t), len = offset + n + after;
    unsigned char *src = harness_malloc(len * es);
    harness_fill_random(t, src, len, rng);
    if (data)
        memcpy(src + offset * es, data, n * es);
    cl_mem buf = harness_buffer(ctx, len * es, src);
    unsigned char result[RESULT_BYTES];
    memset(result, HARNESS_SENTINEL, sizeof result);
    clprim_status s = clprim_reduce(ctx, t, op, buf, offset, n, result, 0, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "reduce %s %s n=%zu (%s): %s: %s", reference_type_name(t),
                  reference_op_name(op), n, harness_tuning_text(ctx), clprim_status_name(s), clprim_last_error(ctx));
    harness_assert_single_ref(buf, "src");
    char msg[768];
    ck_assert_msg(reference_check_reduce(t, op, src + offset * es, n, result, msg, sizeof msg),
                  "%s [offset %zu, tuning %s]", msg, offset, harness_tuning_text(ctx));
    ck_assert_msg(harness_all_sentinel(result + es, sizeof result - es), "reduce %s wrote more than one element",
                  reference_type_name(t));
    check_device_form(ctx, t, op, buf, offset, n, result);
    unsigned char *again = harness_malloc(len * es);
    harness_read(ctx, buf, 0, len * es, again);
    ck_assert_msg(memcmp(again, src, len * es) == 0, "reduce n=%zu changed its input", n);
    free(again);
    clReleaseMemObject(buf);
    free(src);
}

/* Sizes around a work-group and a tile, the first size with two groups, and sizes
 * whose partials span several tiles of the folding pass. */
static size_t boundary_sizes(clprim_context *ctx, size_t *sizes)
{
    clprim_tuning t = clprim_get_tuning(ctx);
    const size_t wg = t.work_group_size, tile = wg * t.items_per_thread;
    size_t count = 0;
    const size_t fixed[] = {1, 2, 7, 8, 9, 17, wg + 1, tile - 1, tile, tile + 1, 2 * tile + 3,
                            tile * t.groups - 1, tile * t.groups, tile * t.groups + 1, 3 * tile * t.groups + 17};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        sizes[count++] = fixed[i];
    if (wg > 2) {
        sizes[count++] = wg - 1;
        sizes[count++] = wg;
    }
    /* The first size that makes the most groups: then pass 2 folds `groups` partials. */
    ck_assert_int_eq(clprim_split_range(&t, tile).groups, 1);
    ck_assert_int_gt(clprim_split_range(&t, tile + 1).groups, 1);
    return count;
}

static void reduce_sizes(clprim_context *ctx, clprim_type t, const size_t *sizes, size_t count, uint64_t *rng)
{
    for (size_t k = 0; k < count; k++)
        for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++)
            reduce_case(ctx, t, (clprim_op)op, sizes[k], (k + (size_t)op) % 4, k % 3, NULL, rng);
}

START_TEST(reduce_default_tuning)
{
    clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(100 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        size_t sizes[32];
        size_t count = boundary_sizes(ctx, sizes);
        reduce_sizes(ctx, t, sizes, count, &rng);
    }
}
END_TEST

/* Tiles of 8: with 64 groups the folding pass walks 8 tiles of partials; with 8
 * groups each group walks several tiles of input; with 3 groups the last chunk
 * is short; wg=1 runs the one-work-item kernels with tiles of 3. */
START_TEST(reduce_small_tiles)
{
    clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(200 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        /* wg=1: the one-work-item kernels with 8 lanes, short chunks of 3. */
        const size_t shapes[][3] = {{4, 2, 64}, {4, 2, 8}, {4, 2, 3}, {1, 3, 64}};
        for (size_t g = 0; g < 4; g++) {
            harness_set_tuning(ctx, shapes[g][0], shapes[g][1], shapes[g][2]);
            size_t sizes[32];
            size_t count = boundary_sizes(ctx, sizes);
            clprim_tuning tuning = clprim_get_tuning(ctx);
            if (shapes[g][2] == 64 && shapes[g][0] == 4)
                ck_assert_int_gt(clprim_split_range(&tuning, 1000).groups, 8); /* > one tile of partials */
            sizes[count++] = 1000;
            reduce_sizes(ctx, t, sizes, count, &rng);
        }
    }
}
END_TEST

/* n == 0: the empty result in the element type, per clprim.h (for floats the
 * infinities, not the NaN that MIN and MAX give over NaN alone). */
START_TEST(reduce_empty_result)
{
    FOR_EACH_DEVICE(ctx)
    {
        cl_mem buf = harness_buffer(ctx, 64, NULL);
        for (int t = 0; t < REFERENCE_TYPE_COUNT; t++) {
            if (!type_runs(ctx, (clprim_type)t))
                continue;
            for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
                union {
                    int32_t i32;
                    uint32_t u32;
                    int64_t i64;
                    uint64_t u64;
                    float f;
                    double d;
                    uint8_t u8;
                    unsigned char bytes[RESULT_BYTES];
                } got, want;
                memset(&got, HARNESS_SENTINEL, sizeof got);
                memset(&want, 0, sizeof want);
                const int lo = op == CLPRIM_MAX;
                if (op != CLPRIM_SUM)
                    switch ((clprim_type)t) {
                    case CLPRIM_INT32: want.i32 = lo ? INT32_MIN : INT32_MAX; break;
                    case CLPRIM_UINT32: want.u32 = lo ? 0 : UINT32_MAX; break;
                    case CLPRIM_INT64: want.i64 = lo ? INT64_MIN : INT64_MAX; break;
                    case CLPRIM_UINT64: want.u64 = lo ? 0 : UINT64_MAX; break;
                    case CLPRIM_FLOAT: want.f = lo ? -INFINITY : INFINITY; break;
                    case CLPRIM_DOUBLE: want.d = lo ? -INFINITY : INFINITY; break;
                    case CLPRIM_UINT8: want.u8 = lo ? 0 : UINT8_MAX; break;
                    }
                const size_t es = reference_type_size((clprim_type)t);
                ck_assert_int_eq(clprim_reduce(ctx, (clprim_type)t, (clprim_op)op, buf, 0, 0, &got, 0, NULL),
                                 CLPRIM_SUCCESS);
                ck_assert_msg(memcmp(&got, &want, es) == 0, "%s %s of nothing is not the empty result",
                              reference_type_name((clprim_type)t), reference_op_name((clprim_op)op));
                ck_assert(harness_all_sentinel(got.bytes + es, RESULT_BYTES - es));
                /* The shared reference agrees. */
                unsigned char ref[RESULT_BYTES];
                reference_empty_result((clprim_type)t, (clprim_op)op, ref);
                ck_assert(memcmp(ref, &want, es) == 0);
                check_device_form(ctx, (clprim_type)t, (clprim_op)op, buf, 0, 0, got.bytes);
                /* n == 0 at the very end of a buffer is fine too. */
                ck_assert_int_eq(clprim_reduce(ctx, (clprim_type)t, (clprim_op)op, buf, 64 / es, 0, &got, 0, NULL),
                                 CLPRIM_SUCCESS);
            }
        }
        clReleaseMemObject(buf);
    }
}
END_TEST

START_TEST(reduce_large_odd)
{
    const size_t n = 10000003;
    uint64_t rng = harness_rng(300);
    FOR_EACH_DEVICE(ctx)
    {
        reduce_case(ctx, CLPRIM_INT32, CLPRIM_SUM, n, 1, 2, NULL, &rng);
        reduce_case(ctx, CLPRIM_FLOAT, CLPRIM_SUM, n, 0, 1, NULL, &rng);
        reduce_case(ctx, CLPRIM_FLOAT, CLPRIM_MAX, n, 3, 0, NULL, &rng);
        /* Small integers: every partial sum is exact in float. */
        float *small = harness_malloc(n * sizeof *small);
        for (size_t i = 0; i < n; i++)
            small[i] = (float)((int)(harness_rand(&rng) % 3) - 1);
        cl_mem buf = harness_buffer(ctx, n * sizeof *small, small);
        float got;
        ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_SUM, buf, 0, n, &got, 0, NULL), CLPRIM_SUCCESS);
        double want = 0;
        for (size_t i = 0; i < n; i++)
            want += small[i];
        ck_assert_msg(got == (float)want, "sum of %zu small integers: got %.9g, want %.9g exactly", n, (double)got,
                      want);
        clReleaseMemObject(buf);
        free(small);
    }
}
END_TEST

/* Integer sums wrap; int32 and uint8 overflow many times over. */
START_TEST(reduce_wraps)
{
    uint64_t rng = harness_rng(400);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 5000;
        int32_t *big = harness_malloc(n * sizeof *big);
        for (size_t i = 0; i < n; i++)
            big[i] = INT32_MAX;
        reduce_case(ctx, CLPRIM_INT32, CLPRIM_SUM, n, 0, 0, big, &rng);
        int32_t got;
        cl_mem buf = harness_buffer(ctx, n * 4, big);
        ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_SUM, buf, 0, 3, &got, 0, NULL), CLPRIM_SUCCESS);
        ck_assert_int_eq(got, INT32_MAX - 2); /* 3 * (2^31 - 1) mod 2^32 */
        clReleaseMemObject(buf);
        uint8_t *bytes = harness_malloc(n);
        memset(bytes, 255, n);
        reduce_case(ctx, CLPRIM_UINT8, CLPRIM_SUM, n, 0, 0, bytes, &rng);
        free(bytes);
        free(big);
    }
}
END_TEST

START_TEST(reduce_float_nan_and_infinity)
{
    uint64_t rng = harness_rng(500);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 3000;
        for (int t = CLPRIM_FLOAT; t <= CLPRIM_DOUBLE; t++) {
            if (!type_runs(ctx, (clprim_type)t))
                continue;
            const size_t es = reference_type_size((clprim_type)t);
            unsigned char *data = harness_malloc(n * es);
            for (int variant = 0; variant < 3; variant++) {
                harness_fill_random((clprim_type)t, data, n, &rng);
                for (size_t i = 0; i < n; i++) {
                    /* 0: NaN sprinkled; 1: all NaN but one value; 2: infinities too */
                    uint64_t r = harness_rand(&rng) % 8;
                    int nan = variant == 1 ? i != n / 2 : r == 0;
                    double v = nan ? NAN : (variant == 2 && r == 1) ? INFINITY : (variant == 2 && r == 2) ? -INFINITY : 0;
                    if (!nan && v == 0)
                        continue;
                    if (t == CLPRIM_FLOAT) {
                        float f = (float)v;
                        memcpy(data + i * es, &f, es);
                    } else {
                        memcpy(data + i * es, &v, es);
                    }
                }
                for (int op = CLPRIM_MIN; op <= CLPRIM_MAX; op++) {
                    reduce_case(ctx, (clprim_type)t, (clprim_op)op, n, 0, 0, data, &rng);
                    harness_set_tuning(ctx, 4, 2, 64);
                    reduce_case(ctx, (clprim_type)t, (clprim_op)op, n, 0, 0, data, &rng);
                    ck_assert_int_eq(harness_tune(ctx, NULL), CLPRIM_SUCCESS);
                }
            }
            free(data);
        }
    }
}
END_TEST

/* Where the numbers sit among NaN in the rows below. */
typedef enum {
    ONLY_NAN,
    VALUE_FIRST,  /* the row's value at element 0, NaN after */
    VALUE_MIDDLE, /* at element n / 2 */
    VALUE_LAST,   /* at element n - 1 */
    NAN_ENDS,     /* NaN at both ends, -2.5 and 4.5 between */
    INFINITIES    /* +inf last, -inf at n / 3, NaN elsewhere */
} nan_place;

static double nan_place_value(nan_place place, double value, size_t i, size_t n)
{
    switch (place) {
    case ONLY_NAN: return NAN;
    case VALUE_FIRST: return i == 0 ? value : NAN;
    case VALUE_MIDDLE: return i == n / 2 ? value : NAN;
    case VALUE_LAST: return i == n - 1 ? value : NAN;
    case NAN_ENDS: return i == 0 || i == n - 1 ? NAN : i % 2 ? -2.5 : 4.5;
    case INFINITIES: return i == n - 1 ? INFINITY : i == n / 3 ? -INFINITY : NAN;
    }
    return NAN;
}

/* Float MIN/MAX reduce like C's fmin/fmax folds: NaN only when every element
 * is NaN, otherwise the extreme of the numbers however few, at every size
 * around the split's boundaries (one and several partials, more partials than
 * a tile, the one-work-item lanes). Compared bit for bit, any NaN as NaN. */
START_TEST(reduce_float_nan_rows)
{
    static const struct {
        const char *what;
        nan_place place;
        double value;
        size_t min_n;
        double want_min, want_max;
    } rows[] = {
        {"all NaN", ONLY_NAN, 0, 1, NAN, NAN},
        {"one number first", VALUE_FIRST, 7.25, 1, 7.25, 7.25},
        {"one number in the middle", VALUE_MIDDLE, -7.25, 1, -7.25, -7.25},
        {"one number last", VALUE_LAST, 7.25, 1, 7.25, 7.25},
        {"+inf alone", VALUE_MIDDLE, INFINITY, 1, INFINITY, INFINITY},
        {"-inf alone, last", VALUE_LAST, -INFINITY, 1, -INFINITY, -INFINITY},
        {"NaN at both ends", NAN_ENDS, 0, 4, -2.5, 4.5},
        {"both infinities", INFINITIES, 0, 3, -INFINITY, INFINITY},
    };
    static const size_t shapes[][3] = {{0, 0, 0}, {4, 2, 64}, {4, 2, 3}, {1, 3, 64}};
    FOR_EACH_DEVICE(ctx)
    {
        for (int t = CLPRIM_FLOAT; t <= CLPRIM_DOUBLE; t++) {
            if (!type_runs(ctx, (clprim_type)t))
                continue;
            const size_t es = reference_type_size((clprim_type)t);
            for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++) {
                if (shapes[sh][0])
                    harness_set_tuning(ctx, shapes[sh][0], shapes[sh][1], shapes[sh][2]);
                else
                    ck_assert_int_eq(harness_tune(ctx, NULL), CLPRIM_SUCCESS);
                size_t sizes[32];
                size_t count = boundary_sizes(ctx, sizes);
                sizes[count++] = 1000;
                for (size_t k = 0; k < count; k++) {
                    const size_t n = sizes[k];
                    unsigned char *data = harness_malloc(n * es);
                    cl_mem buf = harness_buffer(ctx, n * es, NULL);
                    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
                        if (n < rows[r].min_n)
                            continue;
                        for (size_t i = 0; i < n; i++) {
                            double v = nan_place_value(rows[r].place, rows[r].value, i, n);
                            if (t == CLPRIM_FLOAT)
                                ((float *)data)[i] = (float)v;
                            else
                                ((double *)data)[i] = v;
                        }
                        ck_assert_int_eq(clEnqueueWriteBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, n * es, data, 0,
                                                              NULL, NULL),
                                         CL_SUCCESS);
                        for (int op = CLPRIM_MIN; op <= CLPRIM_MAX; op++) {
                            const double want = op == CLPRIM_MIN ? rows[r].want_min : rows[r].want_max;
                            union {
                                float f;
                                double d;
                            } got, wanted;
                            if (t == CLPRIM_FLOAT)
                                wanted.f = (float)want;
                            else
                                wanted.d = want;
                            ck_assert_int_eq(
                                clprim_reduce(ctx, (clprim_type)t, (clprim_op)op, buf, 0, n, &got, 0, NULL),
                                CLPRIM_SUCCESS);
                            const double g = t == CLPRIM_FLOAT ? got.f : got.d;
                            const int ok = isnan(want) ? isnan(g) : !memcmp(&got, &wanted, es);
                            ck_assert_msg(ok, "%s %s of %zu elements, %s (%s): got %g, want %g",
                                          reference_type_name((clprim_type)t), reference_op_name((clprim_op)op), n,
                                          rows[r].what, harness_tuning_text(ctx), g, want);
                            char msg[768];
                            ck_assert_msg(reference_check_reduce((clprim_type)t, (clprim_op)op, data, n, &got, msg,
                                                                 sizeof msg),
                                          "reference: %s", msg);
                        }
                    }
                    clReleaseMemObject(buf);
                    free(data);
                }
            }
        }
    }
}
END_TEST

START_TEST(reduce_deterministic)
{
    uint64_t rng = harness_rng(600);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 1000003;
        double *data = harness_malloc(n * sizeof *data);
        harness_fill_random(CLPRIM_DOUBLE, data, n, &rng);
        float *fdata = harness_malloc(n * sizeof *fdata);
        harness_fill_random(CLPRIM_FLOAT, fdata, n, &rng);
        cl_mem fbuf = harness_buffer(ctx, n * sizeof *fdata, fdata);
        cl_mem dbuf = harness_buffer(ctx, n * sizeof *data, data);
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 64);
            float f1, f2;
            ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_SUM, fbuf, 0, n, &f1, 0, NULL), CLPRIM_SUCCESS);
            ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_SUM, fbuf, 0, n, &f2, 0, NULL), CLPRIM_SUCCESS);
            ck_assert_msg(memcmp(&f1, &f2, sizeof f1) == 0, "float sums differ: %.9g, %.9g", (double)f1, (double)f2);
            if (ctx->has_fp64) {
                double d1, d2;
                ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_DOUBLE, CLPRIM_SUM, dbuf, 0, n, &d1, 0, NULL),
                                 CLPRIM_SUCCESS);
                ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_DOUBLE, CLPRIM_SUM, dbuf, 0, n, &d2, 0, NULL),
                                 CLPRIM_SUCCESS);
                ck_assert_msg(memcmp(&d1, &d2, sizeof d1) == 0, "double sums differ: %.17g, %.17g", d1, d2);
                char msg[768];
                ck_assert_msg(reference_check_reduce(CLPRIM_DOUBLE, CLPRIM_SUM, data, n, &d1, msg, sizeof msg), "%s",
                              msg);
            }
        }
        clReleaseMemObject(fbuf);
        clReleaseMemObject(dbuf);
        free(fdata);
        free(data);
    }
}
END_TEST

/* A scan left in flight, then a reduce that needs more device memory than
 * the context holds (so the context replaces its buffer: the records, where
 * the reduce is one launch, else the scratch): both results are right. */
START_TEST(reduce_after_scan_in_flight)
{
    uint64_t rng = harness_rng(700);
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 64);
        const size_t n = 1000;
        int32_t *a = harness_malloc(n * 4);
        harness_fill_random(CLPRIM_INT32, a, n, &rng);
        cl_mem abuf = harness_buffer(ctx, n * 4, a), out = harness_buffer(ctx, n * 4, NULL);
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, abuf, 0, out, 0, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        const int records = clprim_records_available(ctx);
        size_t before = records ? ctx->lookback_bytes : ctx->scratch_bytes;
        harness_set_tuning(ctx, 4, 2, 4096);
        const size_t m = 40000;
        uint64_t *b = harness_malloc(m * 8);
        harness_fill_random(CLPRIM_UINT64, b, m, &rng);
        cl_mem bbuf = harness_buffer(ctx, m * 8, b);
        uint64_t got;
        ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_UINT64, CLPRIM_SUM, bbuf, 0, m, &got, 0, NULL), CLPRIM_SUCCESS);
        ck_assert_uint_gt(records ? ctx->lookback_bytes : ctx->scratch_bytes, before);
        char msg[768];
        ck_assert_msg(reference_check_reduce(CLPRIM_UINT64, CLPRIM_SUM, b, m, &got, msg, sizeof msg), "%s", msg);
        int32_t *scanned = harness_malloc(n * 4);
        harness_read(ctx, out, 0, n * 4, scanned);
        ck_assert_msg(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 0, a, scanned, n, msg, sizeof msg) == n, "%s",
                      msg);
        free(scanned);
        free(a);
        free(b);
        clReleaseMemObject(abuf);
        clReleaseMemObject(bbuf);
        clReleaseMemObject(out);
    }
}
END_TEST

/* ---- Bad arguments: status, message, result and input untouched ---- */

enum { REDUCE, REDUCE_INTO_NULL, REDUCE_TO };

/* buf: src, and for REDUCE_TO the result buffer. A failure leaves the host
 * result untouched; a success writes one element, the reference's. */
static clprim_status reduce_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    if (row->call == REDUCE_TO)
        return clprim_reduce_to(ctx, row->type, (clprim_op)row->op, NULL, buf[0], row->offset[0], row->n, buf[1],
                                row->offset[1], 0, NULL, NULL);
    unsigned char result[RESULT_BYTES];
    memset(result, HARNESS_SENTINEL, sizeof result);
    clprim_status s = clprim_reduce(ctx, row->type, (clprim_op)row->op, buf[0], row->offset[0], row->n,
                                    row->call == REDUCE_INTO_NULL ? NULL : result, 0, NULL);
    if (s != CLPRIM_SUCCESS) {
        ck_assert_msg(harness_all_sentinel(result, sizeof result), "%s: a failed reduce wrote its result", row->what);
        return s;
    }
    const size_t es = reference_type_size(row->type);
    unsigned char *src = harness_malloc(row->n * es);
    if (row->n > 0)
        harness_read(ctx, buf[0], row->offset[0] * es, row->n * es, src);
    char msg[768];
    ck_assert_msg(reference_check_reduce(row->type, (clprim_op)row->op, src, row->n, result, msg, sizeof msg),
                  "%s: %s", row->what, msg);
    ck_assert_msg(harness_all_sentinel(result + es, sizeof result - es), "%s: wrote more than one element",
                  row->what);
    free(src);
    return s;
}

/* Each buffer holds HARNESS_BAD_BYTES / 4 = 16384 int32. */
static const harness_bad_call reduce_bad_calls[] = {
    {"ctx NULL", REDUCE, 1, {HB_A}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"src NULL", REDUCE, 0, {HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "src is NULL"},
    {"src NULL, n 0", REDUCE, 0, {HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "src is NULL"},
    {"type 42", REDUCE, 0, {HB_A}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "type", .type = (clprim_type)42, .also = "42"},
    {"type -1", REDUCE, 0, {HB_A}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "type", .type = (clprim_type)-1},
    {"op 3", REDUCE, 0, {HB_A}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "op", .op = 3},
    {"src one element short", REDUCE, 0, {HB_A}, {1}, 16384, CLPRIM_BUFFER_TOO_SMALL, "src",
     .also = "holds 16384 elements"},
    /* Elements, not bytes: 16384 int32 fit, 8193 int64 do not. */
    {"int64 counted in elements", REDUCE, 0, {HB_A}, {0}, 8193, CLPRIM_BUFFER_TOO_SMALL, "src",
     .type = CLPRIM_INT64, .op = CLPRIM_MAX},
    {"uint8 offset past the end, n 0", REDUCE, 0, {HB_A}, {HARNESS_BAD_BYTES + 1}, 0, CLPRIM_BUFFER_TOO_SMALL, "src",
     .type = CLPRIM_UINT8, .op = CLPRIM_MAX},
    /* offset + n overflows size_t, or the byte count would wrap: refused, never a small count. */
    {"offset + n overflows", REDUCE, 0, {HB_A}, {SIZE_MAX - 2}, 8, CLPRIM_INVALID_ARGUMENT, "src",
     .also = "overflows"},
    {"offset * 4 overflows", REDUCE, 0, {HB_A}, {SIZE_MAX / 4 + 1}, 4, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"n SIZE_MAX", REDUCE, 0, {HB_A}, {0}, SIZE_MAX, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"result NULL", REDUCE_INTO_NULL, 0, {HB_A}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "result"},
    {"result NULL, n 0", REDUCE_INTO_NULL, 0, {HB_A}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "result"},
    {"src an image object", REDUCE, 0, {HB_IMAGE}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"src CL_MEM_WRITE_ONLY", REDUCE, 0, {HB_WRITE_ONLY}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY"},
    {"src of another context", REDUCE, 0, {HB_FOREIGN}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "another OpenCL context",
     .also = "src"},
    /* Refused before anything is compiled. */
    {"double without cl_khr_fp64", REDUCE, 0, {HB_A}, {0}, 8, CLPRIM_UNSUPPORTED, "fp64", .type = CLPRIM_DOUBLE,
     .op = CLPRIM_MIN, .without_fp64 = 1},
    {"a read-only src is fine", REDUCE, 0, {HB_READ_ONLY}, {0}, 64, CLPRIM_SUCCESS, NULL, .op = CLPRIM_MAX},
    /* The device form: its result buffer is checked like any output. */
    {"to: result NULL", REDUCE_TO, 0, {HB_A, HB_NULL}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "result"},
    {"to: result past its end", REDUCE_TO, 0, {HB_A, HB_B}, {0, 16384}, 8, CLPRIM_BUFFER_TOO_SMALL, "result"},
    {"to: result read-only", REDUCE_TO, 0, {HB_A, HB_READ_ONLY}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY", .also = "result"},
    {"to: result inside src", REDUCE_TO, 0, {HB_A, HB_A}, {0, 5}, 8, CLPRIM_INVALID_ARGUMENT, "src",
     .also = "result"},
    {"to: result in a sub-buffer over src", REDUCE_TO, 0, {HB_A, HB_A_AT_0}, {0, 3}, 8, CLPRIM_INVALID_ARGUMENT,
     "src", .also = "sub-buffer"},
    {"to: result of another context", REDUCE_TO, 0, {HB_A, HB_FOREIGN}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "another OpenCL context", .also = "result"},
    {"to: op 3", REDUCE_TO, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "op", .op = 3},
    {"to: src one element short", REDUCE_TO, 0, {HB_A, HB_B}, {1, 0}, 16384, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"to: beside src in its buffer", REDUCE_TO, 0, {HB_A, HB_A}, {0, 8}, 8, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1)},
    {"to: n 0 writes the empty result", REDUCE_TO, 0, {HB_A, HB_B}, {0, 7}, 0, CLPRIM_SUCCESS, NULL, .op = CLPRIM_MIN,
     .written = HB_ARG(1)},
    {"a read-write src", REDUCE, 0, {HB_A}, {0}, 64, CLPRIM_SUCCESS, NULL},
};

START_TEST(reduce_bad_table)
{
    harness_run_bad_calls(reduce_bad_calls, sizeof reduce_bad_calls / sizeof *reduce_bad_calls, reduce_bad_call);
}
END_TEST

static Suite *reduce_suite(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, reduce_default_tuning, 0, REFERENCE_TYPE_COUNT);
    tcase_add_loop_test(tc, reduce_small_tiles, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, reduce_empty_result);
    tcase_add_test(tc, reduce_large_odd);
    tcase_add_test(tc, reduce_wraps);
    tcase_add_test(tc, reduce_float_nan_and_infinity);
    tcase_add_test(tc, reduce_deterministic);
    tcase_add_test(tc, reduce_after_scan_in_flight);
    suite_add_tcase(s, tc);
    TCase *nan = tcase_create("nan");
    tcase_set_timeout(nan, 600);
    tcase_add_test(nan, reduce_float_nan_rows);
    suite_add_tcase(s, nan);
    TCase *bad = tcase_create("bad_arguments");
    tcase_set_timeout(bad, 300);
    tcase_add_test(bad, reduce_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(reduce_suite());
}
