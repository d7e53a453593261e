/* The element-wise calls against C loops: clprim_transform (one and two
 * inputs, every type, conversions, in place), clprim_transform_reduce (exact
 * integer sums, the same bits as transform then reduce for floats, a caller's
 * operator, n == 0), clprim_adjacent_difference (every type, wrapping, NaN and
 * -0.0, a caller's difference) and clprim_find_if (every predicate kind, the
 * first of several matches, none, at tile edges), at the split's boundary
 * sizes with offsets, and every bad argument. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

/* Sizes around a tile and the split's group count, and 0. */
static size_t boundary_sizes(clprim_context *ctx, size_t *sizes)
{
    const clprim_tuning t = clprim_get_tuning(ctx);
    const size_t tile = t.work_group_size * t.items_per_thread;
    const size_t fixed[] = {0, 1, 2, 7, tile - 1, tile, tile + 1, 3 * tile + 5, tile * t.groups + 1,
                            2 * tile * t.groups + 17};
    memcpy(sizes, fixed, sizeof fixed);
    return sizeof fixed / sizeof fixed[0];
}

/* The device's own shape, then small work-groups of several work-items over
 * several groups, whose paths a CPU's default shape never takes. */
#define FOR_EACH_SHAPE(ctx, shape)                                                                              \
    for (int shape = 0; shape < 2; shape++)                                                                      \
        for (int once_ = (shape ? harness_set_tuning((ctx), 4, 2, 8) : (void)0, 1); once_; once_ = 0)

static int skip_double(const clprim_context *ctx, clprim_type t)
{
    return t == CLPRIM_DOUBLE && !ctx->has_fp64;
}

/* A buffer of offset + n + 3 random elements; *host gets them (free it). */
static cl_mem random_buffer(clprim_context *ctx, clprim_type t, size_t count, uint64_t *rng, unsigned char **host)
{
    const size_t es = reference_type_size(t);
    *host = harness_malloc(count * es);
    harness_fill_random(t, *host, count, rng);
    return harness_buffer(ctx, count * es, *host);
}

/* Reads n elements of type t at element `offset` and compares them with
 * want (floats: any NaN matches any NaN, else the bits), and that the
 * elements around them kept the sentinel. */
static void expect_output(clprim_context *ctx, cl_mem buf, clprim_type t, size_t offset, size_t n, const void *want,
                          const char *what)
{
    const size_t es = reference_type_size(t);
    unsigned char *got = harness_malloc((offset + n + 3) * es);
    harness_read(ctx, buf, 0, (offset + n + 3) * es, got);
    const unsigned char *mine = got + offset * es, *theirs = want;
    for (size_t i = 0; i < n; i++) {
        const int nans = t == CLPRIM_FLOAT    ? isnan(((const float *)mine)[i]) && isnan(((const float *)theirs)[i])
                         : t == CLPRIM_DOUBLE ? isnan(((const double *)mine)[i]) && isnan(((const double *)theirs)[i])
                                              : 0;
        CHECK(nans || memcmp(mine + i * es, theirs + i * es, es) == 0, "%s: element %zu of %zu differs", what, i, n);
    }
    ck_assert_msg(harness_all_sentinel(got, offset * es) && harness_all_sentinel(got + (offset + n) * es, 3 * es),
                  "%s: wrote outside its elements", what);
    free(got);
}

/* One element-wise call of every type at the boundary sizes, against its C
 * twin: src at an offset, dst one element further; floats get NaN,
 * infinities and signed zeros among random values. */
typedef clprim_status (*elementwise_call)(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset,
                                          cl_mem dst, size_t dst_offset, size_t n);
typedef void (*elementwise_twin)(clprim_type t, const void *src, void *dst, size_t n);

static void every_size(clprim_context *ctx, clprim_type t, const char *name, elementwise_call call,
                       elementwise_twin twin, uint64_t *rng)
{
    const size_t es = reference_type_size(t);
    size_t sizes[16];
    const size_t count = boundary_sizes(ctx, sizes);
    for (size_t k = 0; k < count; k++) {
        const size_t n = sizes[k], offset = k % 3;
        unsigned char *src = harness_malloc((offset + n + 3) * es);
        harness_fill_random(t, src, offset + n + 3, rng);
        for (size_t i = offset; reference_type_is_float(t) && i < offset + n; i += 7) {
            const double special[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY};
            const double v = special[(i / 7) % 5];
            if (t == CLPRIM_FLOAT)
                ((float *)src)[i] = (float)v;
            else
                ((double *)src)[i] = v;
        }
        cl_mem sb = harness_buffer(ctx, (offset + n + 3) * es, src);
        cl_mem dst = harness_buffer(ctx, (offset + 1 + n + 3) * es, NULL);
        const clprim_status s = call(ctx, t, sb, offset, dst, offset + 1, n);
        ck_assert_msg(s == CLPRIM_SUCCESS, "%s %s n=%zu: %s", name, reference_type_name(t), n, clprim_last_error(ctx));
        unsigned char *want = harness_malloc((n + 1) * es);
        twin(t, src + offset * es, want, n);
        char what[96];
        snprintf(what, sizeof what, "%s %s n=%zu", name, reference_type_name(t), n);
        expect_output(ctx, dst, t, offset + 1, n, want, what);
        free(want);
        free(src);
        clReleaseMemObject(sb);
        clReleaseMemObject(dst);
    }
}

/* ---- clprim_transform ---- */

/* dst = x * 3 + (x > 0 ? 1 : 0) in x's own type: C's promotions, conversions
 * and (for uchar) wrapping, at every boundary size and an offset. */
static void twin_scale(clprim_type t, const void *x, void *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
/* C: the element type; A: the arithmetic's (signed overflow wraps on the
 * device, so the twin computes in the unsigned type) */
#define SCALE(C, A)                                                                                               \
    {                                                                                                             \
        const C v = ((const C *)x)[i];                                                                            \
        ((C *)out)[i] = (C)((A)v * 3 + (v > 0 ? 1 : 0));                                                          \
    }
        switch (t) {
        case CLPRIM_INT32: SCALE(int32_t, uint32_t) break;
        case CLPRIM_UINT32: SCALE(uint32_t, uint32_t) break;
        case CLPRIM_INT64: SCALE(int64_t, uint64_t) break;
        case CLPRIM_UINT64: SCALE(uint64_t, uint64_t) break;
        case CLPRIM_FLOAT: SCALE(float, float) break;
        case CLPRIM_DOUBLE: SCALE(double, double) break;
        case CLPRIM_UINT8: SCALE(uint8_t, int) break;
        }
#undef SCALE
    }
}

#define SCALE_EXPRESSION "x * 3 + (x > 0 ? 1 : 0)"

static clprim_status scale_call(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset, cl_mem dst,
                                size_t dst_offset, size_t n)
{
    const clprim_map f = {SCALE_EXPRESSION, t, src, src_offset, 0, NULL, 0};
    return clprim_transform(ctx, &f, n, t, dst, dst_offset, 0, NULL, NULL);
}

START_TEST(transform_every_type)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(100 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!skip_double(ctx, t))
            every_size(ctx, t, SCALE_EXPRESSION, scale_call, twin_scale, &rng);
    }
}
END_TEST

/* Two inputs of different types into a third, with the index: uchar x, long
 * y, float out. */
START_TEST(transform_two_inputs_and_index)
{
    uint64_t rng = harness_rng(120);
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, shape)
        {
            size_t sizes[16];
            const size_t count = boundary_sizes(ctx, sizes);
            for (size_t k = 0; k < count; k++) {
                const size_t n = sizes[k], xo = k % 2, yo = k % 5;
                unsigned char *x, *y;
                cl_mem xb = random_buffer(ctx, CLPRIM_UINT8, xo + n + 3, &rng, &x);
                cl_mem yb = random_buffer(ctx, CLPRIM_INT64, yo + n + 3, &rng, &y);
                cl_mem dst = harness_buffer(ctx, (n + 3) * sizeof(float), NULL);
                const clprim_map f = {"(float)x * 0.5f + (float)(y % 1000) - (float)i", CLPRIM_UINT8, xb, xo,
                                      CLPRIM_INT64, yb, yo};
                clprim_status s = clprim_transform(ctx, &f, n, CLPRIM_FLOAT, dst, 0, 0, NULL, NULL);
                ck_assert_msg(s == CLPRIM_SUCCESS, "two inputs n=%zu: %s", n, clprim_last_error(ctx));
                float *want = harness_malloc((n + 1) * sizeof *want);
                for (size_t i = 0; i < n; i++) {
                    int64_t yv;
                    memcpy(&yv, y + (yo + i) * 8, 8);
                    want[i] = (float)x[xo + i] * 0.5f + (float)(yv % 1000) - (float)(uint64_t)i;
                }
                expect_output(ctx, dst, CLPRIM_FLOAT, 0, n, want, "two inputs");
                free(want);
                free(x);
                free(y);
                clReleaseMemObject(xb);
                clReleaseMemObject(yb);
                clReleaseMemObject(dst);
            }
        }
    }
}
END_TEST

/* In place over x, and over the second input; floats round as C does (no
 * contraction of x * y + 1 into one fused step). */
START_TEST(transform_in_place)
{
    uint64_t rng = harness_rng(130);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 3 * clprim_get_tuning(ctx).groups * 64 + 11;
        float *x = harness_malloc(n * sizeof *x), *y = harness_malloc(n * sizeof *y);
        harness_fill_random(CLPRIM_FLOAT, x, n, &rng);
        harness_fill_random(CLPRIM_FLOAT, y, n, &rng);
        cl_mem xb = harness_buffer(ctx, n * sizeof *x, x), yb = harness_buffer(ctx, n * sizeof *y, y);
        const clprim_map f = {"x * y + 1.0f", CLPRIM_FLOAT, xb, 0, CLPRIM_FLOAT, yb, 0};
        ck_assert_int_eq(clprim_transform(ctx, &f, n, CLPRIM_FLOAT, xb, 0, 0, NULL, NULL), CLPRIM_SUCCESS);
        for (size_t i = 0; i < n; i++) {
            volatile float product = x[i] * y[i]; /* rounded on its own */
            x[i] = product + 1.0f;
        }
        float *got = harness_malloc(n * sizeof *got);
        harness_read(ctx, xb, 0, n * sizeof *got, got);
        ck_assert_msg(memcmp(got, x, n * sizeof *got) == 0, "in place over x");
        ck_assert_int_eq(clprim_transform(ctx, &f, n, CLPRIM_FLOAT, yb, 0, 0, NULL, NULL), CLPRIM_SUCCESS);
        for (size_t i = 0; i < n; i++) {
            volatile float product = x[i] * y[i];
            y[i] = product + 1.0f;
        }
        harness_read(ctx, yb, 0, n * sizeof *got, got);
        ck_assert_msg(memcmp(got, y, n * sizeof *got) == 0, "in place over y");
        free(got);
        free(x);
        free(y);
        clReleaseMemObject(xb);
        clReleaseMemObject(yb);
    }
}
END_TEST

/* ---- clprim_transform_reduce ---- */

/* result[1] of a three-element buffer, the others untouched. */
static void transform_reduce_into(clprim_context *ctx, const clprim_map *f, size_t n, clprim_type t, clprim_op op,
                                  const clprim_operator *custom, void *result)
{
    const size_t es = reference_type_size(t);
    cl_mem out = harness_buffer(ctx, 3 * es, NULL);
    cl_event done = NULL;
    const clprim_status s = clprim_transform_reduce(ctx, f, n, t, op, custom, out, 1, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "transform_reduce n=%zu: %s", n, clprim_last_error(ctx));
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    unsigned char got[48];
    harness_read(ctx, out, 0, 3 * es, got);
    ck_assert_msg(harness_all_sentinel(got, es) && harness_all_sentinel(got + 2 * es, es),
                  "transform_reduce wrote beside its result");
    memcpy(result, got + es, es);
    clReleaseMemObject(out);
}

/* Sum, min and max of (long)x * x over int32 x: exact, against the C loop. */
START_TEST(transform_reduce_exact)
{
    uint64_t rng = harness_rng(140);
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, shape)
        {
            size_t sizes[16];
            const size_t count = boundary_sizes(ctx, sizes);
            for (size_t k = 0; k < count; k++) {
                const size_t n = sizes[k], offset = k % 4;
                unsigned char *x;
                cl_mem xb = random_buffer(ctx, CLPRIM_INT32, offset + n + 3, &rng, &x);
                int64_t *squares = harness_malloc((n + 1) * sizeof *squares);
                for (size_t i = 0; i < n; i++) {
                    int32_t v;
                    memcpy(&v, x + (offset + i) * 4, 4);
                    squares[i] = (int64_t)((uint64_t)v * (uint64_t)(int64_t)v); /* wraps as the device's long does */
                }
                const clprim_map f = {"(long)x * x", CLPRIM_INT32, xb, offset, 0, NULL, 0};
                for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
                    int64_t got, want;
                    transform_reduce_into(ctx, &f, n, CLPRIM_INT64, (clprim_op)op, NULL, &got);
                    reference_reduce(CLPRIM_INT64, (clprim_op)op, squares, n, &want);
                    ck_assert_msg(got == want, "transform_reduce %s n=%zu: %lld, want %lld", reference_op_name(op), n,
                                  (long long)got, (long long)want);
                }
                free(squares);
                free(x);
                clReleaseMemObject(xb);
            }
        }
    }
}
END_TEST

/* Float sums group as clprim_reduce_to groups an array of the values: the same
 * bits as transforming into an array and reducing it; also with a caller's
 * operator and two inputs. */
START_TEST(transform_reduce_float_bits)
{
    uint64_t rng = harness_rng(150);
    FOR_EACH_DEVICE(ctx)
    {
        size_t sizes[16];
        const size_t count = boundary_sizes(ctx, sizes);
        const float one = 1.0f;
        const clprim_operator product = {"a * b", &one};
        for (size_t k = 0; k < count; k++) {
            const size_t n = sizes[k];
            unsigned char *x, *y;
            cl_mem xb = random_buffer(ctx, CLPRIM_FLOAT, n + 3, &rng, &x);
            cl_mem yb = random_buffer(ctx, CLPRIM_FLOAT, n + 3, &rng, &y);
            cl_mem values = harness_buffer(ctx, (n + 1) * sizeof(float), NULL);
            cl_mem out = harness_buffer(ctx, sizeof(float), NULL);
            const clprim_map f = {"x * y / 1000.0f", CLPRIM_FLOAT, xb, 0, CLPRIM_FLOAT, yb, 0};
            ck_assert_int_eq(clprim_transform(ctx, &f, n, CLPRIM_FLOAT, values, 0, 0, NULL, NULL), CLPRIM_SUCCESS);
            for (int custom = 0; custom < 2; custom++) {
                float got, want;
                transform_reduce_into(ctx, &f, n, CLPRIM_FLOAT, CLPRIM_SUM, custom ? &product : NULL, &got);
                ck_assert_int_eq(clprim_reduce_to(ctx, CLPRIM_FLOAT, CLPRIM_SUM, custom ? &product : NULL, values, 0,
                                                  n, out, 0, 0, NULL, NULL),
                                 CLPRIM_SUCCESS);
                harness_read(ctx, out, 0, sizeof want, &want);
                ck_assert_msg(memcmp(&got, &want, sizeof got) == 0, "n=%zu %s: %a, transform then reduce %a", n,
                              custom ? "a * b" : "sum", got, want);
            }
            free(x);
            free(y);
            clReleaseMemObject(xb);
            clReleaseMemObject(yb);
            clReleaseMemObject(values);
            clReleaseMemObject(out);
        }
    }
}
END_TEST

/* ---- clprim_adjacent_difference ---- */

static void twin_difference(clprim_type t, const void *src, void *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
#define DIFF(C)                                                                                                   \
    {                                                                                                             \
        const C *s = src;                                                                                         \
        ((C *)dst)[i] = i ? (C)(s[i] - s[i - 1]) : s[0];                                                          \
    }
        switch (t) {
        case CLPRIM_INT32: /* wraps: in unsigned arithmetic, as the device's */
            ((uint32_t *)dst)[i] = i ? ((const uint32_t *)src)[i] - ((const uint32_t *)src)[i - 1]
                                     : ((const uint32_t *)src)[0];
            break;
        case CLPRIM_INT64:
            ((uint64_t *)dst)[i] = i ? ((const uint64_t *)src)[i] - ((const uint64_t *)src)[i - 1]
                                     : ((const uint64_t *)src)[0];
            break;
        case CLPRIM_UINT32: DIFF(uint32_t) break;
        case CLPRIM_UINT64: DIFF(uint64_t) break;
        case CLPRIM_FLOAT: DIFF(float) break;
        case CLPRIM_DOUBLE: DIFF(double) break;
        case CLPRIM_UINT8: DIFF(uint8_t) break;
        }
#undef DIFF
    }
}

static clprim_status difference_call(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset, cl_mem dst,
                                     size_t dst_offset, size_t n)
{
    return clprim_adjacent_difference(ctx, t, NULL, src, src_offset, dst, dst_offset, n, 0, NULL, NULL);
}

/* Every type's a - b at the boundary sizes. */
START_TEST(adjacent_difference_every_type)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(160 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!skip_double(ctx, t))
            every_size(ctx, t, "adjacent difference", difference_call, twin_difference, &rng);
    }
}
END_TEST

/* A caller's difference: the distance |a - b| of uint64 without wrapping. */
START_TEST(adjacent_difference_custom)
{
    uint64_t rng = harness_rng(170);
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, shape)
        {
            const size_t n = clprim_get_tuning(ctx).groups * 300 + 7;
            unsigned char *src;
            cl_mem sb = random_buffer(ctx, CLPRIM_UINT64, n, &rng, &src);
            cl_mem dst = harness_buffer(ctx, (n + 3) * 8, NULL);
            const clprim_status s =
                clprim_adjacent_difference(ctx, CLPRIM_UINT64, "a > b ? a - b : b - a", sb, 0, dst, 0, n, 0, NULL, NULL);
            ck_assert_msg(s == CLPRIM_SUCCESS, "%s", clprim_last_error(ctx));
            uint64_t *want = harness_malloc(n * sizeof *want), *x = (uint64_t *)src;
            for (size_t i = 0; i < n; i++)
                want[i] = i == 0 ? x[0] : x[i] > x[i - 1] ? x[i] - x[i - 1] : x[i - 1] - x[i];
            expect_output(ctx, dst, CLPRIM_UINT64, 0, n, want, "|a - b|");
            free(want);
            free(src);
            clReleaseMemObject(sb);
            clReleaseMemObject(dst);
        }
    }
}
END_TEST

/* ---- clprim_find_if ---- */

static uint64_t find_on_device(clprim_context *ctx, clprim_type t, const clprim_predicate *keep, cl_mem src,
                               size_t offset, size_t n)
{
    cl_mem index = harness_buffer(ctx, 3 * sizeof(cl_ulong), NULL);
    const clprim_status s = clprim_find_if(ctx, t, keep, src, offset, n, index, 1, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "find_if %s n=%zu: %s", reference_type_name(t), n, clprim_last_error(ctx));
    cl_ulong got[3];
    harness_read(ctx, index, 0, sizeof got, got);
    ck_assert_msg(harness_all_sentinel(&got[0], 8) && harness_all_sentinel(&got[2], 8), "find_if wrote beside");
    clReleaseMemObject(index);
    return got[1];
}

/* int32 elements in [0, 1000); x == 1000 + k planted at chosen places: the
 * first, the last, either side of a tile's edge, one in each of two groups'
 * chunks, and nowhere. Found with an expression and with EQ. */
START_TEST(find_if_places)
{
    uint64_t rng = harness_rng(180);
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, shape)
        {
            const clprim_tuning tuning = clprim_get_tuning(ctx);
            const size_t tile = tuning.work_group_size * tuning.items_per_thread;
            size_t sizes[16];
            const size_t count = boundary_sizes(ctx, sizes);
            const int32_t target = 1777;
            const clprim_predicate eq = {CLPRIM_KEEP_EQ, &target};
            const clprim_predicate expr = {.keep = CLPRIM_KEEP_EXPRESSION, .expression = "x > 1500 && (x & 1)"};
            for (size_t k = 0; k < count; k++) {
                const size_t n = sizes[k], offset = k % 3;
                int32_t *x = harness_malloc((offset + n + 1) * sizeof *x);
                for (size_t i = 0; i < offset + n + 1; i++)
                    x[i] = (int32_t)(harness_rand(&rng) % 1000);
                x[offset + n] = target; /* just past the range: never found */
                /* 0 to 7: each lane of the CPU shape's first; n: none */
                const size_t places[] = {0, 1, 2, 3, 4, 5, 6, 7, n - 1, tile - 1, tile, n / 2, n};
                for (size_t p = 0; p < sizeof places / sizeof places[0]; p++) {
                    const size_t at = places[p];
                    if (n == 0 && at != n)
                        continue;
                    if (at < n) {
                        x[offset + at] = target;
                        if (at + tile < n)
                            x[offset + at + tile] = target; /* a later match in another tile */
                    }
                    cl_mem sb = harness_buffer(ctx, (offset + n + 1) * sizeof *x, x);
                    const size_t want = at < n ? at : n;
                    ck_assert_msg(find_on_device(ctx, CLPRIM_INT32, &eq, sb, offset, n) == want,
                                  "find EQ n=%zu: match at %zu not found first", n, at);
                    ck_assert_msg(find_on_device(ctx, CLPRIM_INT32, &expr, sb, offset, n) == want,
                                  "find expression n=%zu: match at %zu not found first", n, at);
                    clReleaseMemObject(sb);
                    if (at < n) {
                        x[offset + at] = 0;
                        if (at + tile < n)
                            x[offset + at + tile] = 0;
                    }
                }
                free(x);
            }
        }
    }
}
END_TEST

/* NE finds the first NaN, NONZERO skips -0.0, FLAGGED reads only the flags. */
START_TEST(find_if_kinds)
{
    uint64_t rng = harness_rng(190);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = clprim_get_tuning(ctx).groups * 700 + 3;
        float *x = harness_malloc(n * sizeof *x);
        unsigned char *flags = harness_malloc(n);
        for (size_t i = 0; i < n; i++) {
            x[i] = i % 2 ? -0.0f : 0.0f;
            flags[i] = 0;
        }
        const size_t nan_at = (size_t)(harness_rand(&rng) % n), flag_at = (size_t)(harness_rand(&rng) % n);
        x[nan_at] = NAN;
        flags[flag_at] = 9;
        cl_mem sb = harness_buffer(ctx, n * sizeof *x, x), fb = harness_buffer(ctx, n, flags);
        const float self = NAN;
        const clprim_predicate ne = {CLPRIM_KEEP_NE, &self}, nonzero = {CLPRIM_KEEP_NONZERO},
                               flagged = {CLPRIM_KEEP_FLAGGED, .flags = fb};
        ck_assert_uint_eq(find_on_device(ctx, CLPRIM_FLOAT, &ne, sb, 0, n), 0); /* everything != NaN */
        ck_assert_uint_eq(find_on_device(ctx, CLPRIM_FLOAT, &nonzero, sb, 0, n), nan_at);
        ck_assert_uint_eq(find_on_device(ctx, CLPRIM_FLOAT, &flagged, sb, 0, n), flag_at);
        free(x);
        free(flags);
        clReleaseMemObject(sb);
        clReleaseMemObject(fb);
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { TRANSFORM, TRANSFORM_TWO, TRANSFORM_REDUCE, TRANSFORM_REDUCE_CUSTOM, DIFFERENCE, FIND };

/* variant: the expression (and difference) a row uses; for FIND, 1: no
 * value, 2: no predicate, 3: a refused expression. */
static const char *const expressions[] = {"x + 1", "", "x +", "y + x", "x + y", "z", "sin(x) > 0 ? x : 0",
                                          "1 + clprim_undefined"};

/* buf: the inputs, then the output (dst, result or index). Successes are
 * checked against the C loop for their element. */
static clprim_status transform_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const char *expression = expressions[row->variant];
    switch (row->call) {
    case TRANSFORM: {
        const clprim_map f = {expression, row->type, buf[0], row->offset[0], 0, NULL, 0};
        return clprim_transform(ctx, row->op < 0 ? NULL : &f, row->n, row->type, buf[1], row->offset[1], 0, NULL,
                                NULL);
    }
    case TRANSFORM_TWO: {
        const clprim_map f = {expression, row->type, buf[0], row->offset[0], (clprim_type)row->op, buf[1],
                              row->offset[1]};
        return clprim_transform(ctx, &f, row->n, row->type, buf[2], row->offset[2], 0, NULL, NULL);
    }
    case TRANSFORM_REDUCE: {
        const clprim_map f = {expression, CLPRIM_INT32, buf[0], row->offset[0], 0, NULL, 0};
        return clprim_transform_reduce(ctx, &f, row->n, row->type, (clprim_op)row->op, NULL, buf[1], row->offset[1],
                                       0, NULL, NULL);
    }
    case TRANSFORM_REDUCE_CUSTOM: { /* a caller's operator the library refuses */
        const int32_t zero = 0;
        const clprim_operator refused = {"a +", &zero};
        const clprim_map f = {expression, CLPRIM_INT32, buf[0], row->offset[0], 0, NULL, 0};
        return clprim_transform_reduce(ctx, &f, row->n, CLPRIM_INT32, CLPRIM_SUM, &refused, buf[1], row->offset[1], 0,
                                       NULL, NULL);
    }
    case DIFFERENCE:
        return clprim_adjacent_difference(ctx, row->type, row->variant ? expression : NULL, buf[0], row->offset[0],
                                          buf[1], row->offset[1], row->n, 0, NULL, NULL);
    default: {
        const int32_t limit = 0;
        const clprim_predicate keep = {(clprim_keep)row->op, row->variant == 1 ? NULL : &limit, NULL, 0,
                                       row->variant == 3 ? "x >" : NULL};
        return clprim_find_if(ctx, row->type, row->variant == 2 ? NULL : &keep, buf[0], row->offset[0], row->n,
                              buf[1], row->offset[1], 0, NULL, NULL);
    }
    }
}

/* Each buffer holds 16384 int32. */
static const harness_bad_call transform_bad_calls[] = {
    {"ctx NULL", TRANSFORM, 1, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"f NULL", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "f", .op = -1},
    {"x NULL", TRANSFORM, 0, {HB_NULL, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "f->x"},
    {"dst NULL", TRANSFORM, 0, {HB_A, HB_NULL}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "dst"},
    {"type 42", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "type", .type = (clprim_type)42},
    {"empty expression", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "f->expression",
     .also = "empty", .variant = 1},
    {"unfinished expression", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "f->expression",
     .variant = 2},
    {"y without a second input", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "'y'",
     .variant = 3},
    {"an unknown name, n 0", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 0, CLPRIM_INVALID_ARGUMENT, "'z'", .variant = 5},
    {"x one element short", TRANSFORM, 0, {HB_A, HB_B}, {1, 0}, 16384, CLPRIM_BUFFER_TOO_SMALL, "f->x"},
    {"dst one element short", TRANSFORM, 0, {HB_A, HB_B}, {0, 1}, 16384, CLPRIM_BUFFER_TOO_SMALL, "dst"},
    {"dst overlapping x, shifted", TRANSFORM, 0, {HB_A, HB_A}, {0, 1}, 8, CLPRIM_INVALID_ARGUMENT, "f->x",
     .also = "dst"},
    {"dst read-only", TRANSFORM, 0, {HB_A, HB_READ_ONLY}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "CL_MEM_READ_ONLY"},
    {"x write-only", TRANSFORM, 0, {HB_WRITE_ONLY, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY"},
    {"x of another context", TRANSFORM, 0, {HB_FOREIGN, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "another OpenCL context"},
    {"double without cl_khr_fp64", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_UNSUPPORTED, "fp64",
     .type = CLPRIM_DOUBLE, .without_fp64 = 1},
    {"a name of no variable", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "clprim_undefined", .variant = 7},
    {"in place", TRANSFORM, 0, {HB_A, HB_A}, {3, 3}, 100, CLPRIM_SUCCESS, NULL, .written = HB_ARG(0) | HB_ARG(1)},
    {"n 0 writes nothing", TRANSFORM, 0, {HB_A, HB_B}, {0, 0}, 0, CLPRIM_SUCCESS, NULL},
    {"two: y NULL is one input", TRANSFORM_TWO, 0, {HB_A, HB_NULL, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "'y'", .variant = 4},
    {"two: y type 42", TRANSFORM_TWO, 0, {HB_A, HB_A, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "type",
     .op = 42, .variant = 4},
    {"two: y short", TRANSFORM_TWO, 0, {HB_A, HB_B, HB_B}, {0, 16380, 0}, 8, CLPRIM_BUFFER_TOO_SMALL, "f->y",
     .variant = 4},
    {"two: dst over y, shifted", TRANSFORM_TWO, 0, {HB_A, HB_B, HB_B}, {0, 0, 2}, 8, CLPRIM_INVALID_ARGUMENT,
     "f->y", .variant = 4},
    {"two: y in place", TRANSFORM_TWO, 0, {HB_A, HB_B, HB_B}, {0, 5, 5}, 8, CLPRIM_SUCCESS, NULL, .variant = 4,
     .written = HB_ARG(1) | HB_ARG(2)},
    {"reduce: result NULL", TRANSFORM_REDUCE, 0, {HB_A, HB_NULL}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "result"},
    {"reduce: op 3", TRANSFORM_REDUCE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "op", .op = 3},
    {"reduce: result inside x", TRANSFORM_REDUCE, 0, {HB_A, HB_A}, {0, 4}, 8, CLPRIM_INVALID_ARGUMENT, "f->x",
     .also = "result"},
    {"reduce: result past its end", TRANSFORM_REDUCE, 0, {HB_A, HB_B}, {0, 16384}, 8, CLPRIM_BUFFER_TOO_SMALL,
     "result"},
    {"reduce: bad expression", TRANSFORM_REDUCE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "f->expression", .variant = 2},
    {"reduce: n 0 writes the empty result", TRANSFORM_REDUCE, 0, {HB_A, HB_B}, {0, 9}, 0, CLPRIM_SUCCESS, NULL,
     .op = CLPRIM_MAX, .written = HB_ARG(1)},
    {"reduce: a refused operator", TRANSFORM_REDUCE_CUSTOM, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "op->combine"},
    {"difference: empty", DIFFERENCE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "difference",
     .also = "empty", .variant = 1},
    {"difference: src NULL", DIFFERENCE, 0, {HB_NULL, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "src"},
    {"difference: in place", DIFFERENCE, 0, {HB_A, HB_A}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "src",
     .also = "dst"},
    {"difference: dst short", DIFFERENCE, 0, {HB_A, HB_B}, {0, 16380}, 8, CLPRIM_BUFFER_TOO_SMALL, "dst"},
    {"difference: a name of the wrong call", DIFFERENCE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "difference", .also = "'y'", .variant = 3},
    {"difference: type 42", DIFFERENCE, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "type",
     .type = (clprim_type)42},
    {"difference: beside src in one buffer", DIFFERENCE, 0, {HB_A, HB_A}, {0, 100}, 100, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(0) | HB_ARG(1)},
    {"find: keep NULL", FIND, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "keep", .variant = 2},
    {"find: value NULL", FIND, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "keep->value", .variant = 1},
    {"find: kind 99", FIND, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "clprim_keep", .op = 99},
    {"find: expression NULL", FIND, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "keep->expression",
     .op = CLPRIM_KEEP_EXPRESSION},
    {"find: a refused expression", FIND, 0, {HB_A, HB_B}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "keep->expression",
     .op = CLPRIM_KEEP_EXPRESSION, .variant = 3},
    {"find: index NULL", FIND, 0, {HB_A, HB_NULL}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "index"},
    {"find: index inside src", FIND, 0, {HB_A, HB_A}, {0, 2}, 8, CLPRIM_INVALID_ARGUMENT, "src", .also = "index"},
    {"find: index past its end", FIND, 0, {HB_A, HB_B}, {0, 8192}, 8, CLPRIM_BUFFER_TOO_SMALL, "index"},
    {"find: src short", FIND, 0, {HB_A, HB_B}, {10, 0}, 16380, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"find: index read-only", FIND, 0, {HB_A, HB_READ_ONLY}, {0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY"},
    {"find: n 0 gives 0", FIND, 0, {HB_A, HB_B}, {0, 3}, 0, CLPRIM_SUCCESS, NULL, .written = HB_ARG(1)},
    {"find: a match", FIND, 0, {HB_A, HB_B}, {0, 3}, 5000, CLPRIM_SUCCESS, NULL, .written = HB_ARG(1)},
};

START_TEST(transform_bad_table)
{
    harness_run_bad_calls(transform_bad_calls, sizeof transform_bad_calls / sizeof *transform_bad_calls,
                          transform_bad_call);
}
END_TEST

static Suite *transform_suite(void)
{
    Suite *s = suite_create("transform");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, transform_every_type, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, transform_two_inputs_and_index);
    tcase_add_test(tc, transform_in_place);
    tcase_add_test(tc, transform_reduce_exact);
    tcase_add_test(tc, transform_reduce_float_bits);
    tcase_add_loop_test(tc, adjacent_difference_every_type, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, adjacent_difference_custom);
    tcase_add_test(tc, find_if_places);
    tcase_add_test(tc, find_if_kinds);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_set_timeout(bad, 300);
    tcase_add_test(bad, transform_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(transform_suite());
}
