/* clprim_segmented_reduce against a reduction of each segment in C: every
 * element type and built-in operator, callers' operators (one that does not
 * commute), segments of every kind of length (empty ones at the start, in the
 * middle, at the end and in runs, length 1, one segment over many chunks,
 * elements outside every segment, offsets past n), n == 0, no segment,
 * floats with NaN and -0.0, the same bits run after run, several shapes
 * (the CPU's one work-item, small work-groups over many chunks), offsets
 * that are garbage, and every bad argument. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

/* A caller's operator with its C twin (REFERENCE_AFFINE_U64 does not commute). */
typedef struct {
    clprim_type t;
    clprim_operator op;
    reference_fold fold;
} custom_op;

static const uint32_t one_u32 = 1;
static const uint64_t affine_identity = (uint64_t)1 << 32;
static const custom_op customs[] = {
    {CLPRIM_UINT32, {"a * b", &one_u32}, reference_mul_u32},
    {CLPRIM_UINT64, {REFERENCE_AFFINE_U64, &affine_identity}, reference_affine_u64},
};

/* How a case's offsets are laid out. */
typedef enum {
    LAYOUT_RANDOM,      /* lengths 0..2 * mean, some empty */
    LAYOUT_EMPTY_RUNS,  /* runs of empty segments at the start, in the middle and at the end */
    LAYOUT_ONES,        /* every segment one element */
    LAYOUT_HUGE,        /* a few tiny segments around one over almost everything */
    LAYOUT_INSIDE,      /* offsets[0] > 0 and offsets[segments] < n: elements outside every segment */
    LAYOUT_PAST_N,      /* the last offsets past n: clamped to n */
    LAYOUT_COUNT
} layout;

static const char *const layout_names[] = {"random", "empty runs", "ones", "huge", "inside", "past n"};

/* Fills offsets[0 .. *segments] for n elements; returns the segment count. */
static size_t make_offsets(layout l, size_t n, size_t mean, cl_ulong *offsets, size_t room, uint64_t *rng)
{
    size_t s = 0;
    cl_ulong at = 0;
    switch (l) {
    case LAYOUT_RANDOM:
    case LAYOUT_PAST_N:
        offsets[0] = 0;
        while (at < n && s + 2 < room) {
            const cl_ulong length = harness_rand(rng) % (2 * mean + 1);
            at = at + length < n ? at + length : n;
            offsets[++s] = at;
        }
        if (l == LAYOUT_PAST_N)
            for (size_t k = 0; k < 3 && s + 1 < room; k++)
                offsets[++s] = n + 1 + harness_rand(rng) % 100;
        return s;
    case LAYOUT_EMPTY_RUNS:
        for (size_t k = 0; k < 5; k++)
            offsets[s++] = 0;
        while (at < n && s + 12 < room) {
            at = at + mean < n ? at + mean : n;
            const size_t repeat = harness_rand(rng) % 4 == 0 ? 1 + harness_rand(rng) % 6 : 1;
            for (size_t k = 0; k < repeat; k++)
                offsets[s++] = at;
        }
        for (size_t k = 0; k < 4; k++)
            offsets[s++] = n;
        return s - 1;
    case LAYOUT_ONES:
        for (; s <= n && s < room; s++)
            offsets[s] = s;
        return s - 1;
    case LAYOUT_HUGE: {
        const cl_ulong cuts[] = {0, 1, 3, 3, n > 10 ? n - 5 : n, n > 10 ? n - 4 : n, n};
        for (; s < 7; s++)
            offsets[s] = cuts[s] < n ? cuts[s] : n;
        return s - 1;
    }
    case LAYOUT_INSIDE:
        offsets[0] = n / 7;
        at = offsets[0];
        while (at < n - n / 5 && s + 2 < room) {
            at += 1 + harness_rand(rng) % (2 * mean);
            offsets[++s] = at < n - n / 5 ? at : n - n / 5;
        }
        return s;
    default:
        return 0;
    }
}

/* What segment s must hold: checked as one reduction of its elements
 * (float sums within the reduction's bound), or exactly for a caller's
 * operator. */
static void check_segments(clprim_type t, clprim_op op, const custom_op *custom, const unsigned char *src, size_t n,
                           const cl_ulong *offsets, size_t segments, const unsigned char *got, const char *what)
{
    const size_t es = reference_type_size(t);
    char msg[768];
    for (size_t s = 0; s < segments; s++) {
        const size_t b = offsets[s] < n ? offsets[s] : n, e = offsets[s + 1] < n ? offsets[s + 1] : n;
        const size_t length = e > b ? e - b : 0;
        if (custom) {
            unsigned char want[8];
            memcpy(want, custom->op.identity, es);
            for (size_t i = b; i < b + length; i++)
                custom->fold(want, src + i * es);
            CHECK(memcmp(want, got + s * es, es) == 0, "%s: segment %zu of %zu ([%zu, %zu)) differs", what, s,
                  segments, b, e);
        } else {
            CHECK(reference_check_reduce(t, op, src + b * es, length, got + s * es, msg, sizeof msg),
                  "%s: segment %zu of %zu ([%zu, %zu)): %s", what, s, segments, b, e, msg);
        }
    }
}

/* One call over n random elements and a layout's offsets, each array at a
 * small offset in its buffer; dst's elements around the segments must stay
 * untouched. Floats get NaN (MIN, MAX) and -0.0 among them. Float sums run
 * twice: the same bits. */
static void run_case(clprim_context *ctx, clprim_type t, clprim_op op, const custom_op *custom, size_t n, layout l,
                     size_t mean, uint64_t *rng)
{
    const size_t es = reference_type_size(t), room = 2 * n + 64;
    const size_t src_at = harness_rand(rng) % 3, offsets_at = harness_rand(rng) % 3, dst_at = 1 + harness_rand(rng) % 3;
    unsigned char *src = harness_malloc((src_at + n + 1) * es);
    cl_ulong *offsets = harness_malloc((offsets_at + room + 1) * sizeof *offsets);
    harness_fill_random(t, src + src_at * es, n, rng);
    if (custom && custom->fold == reference_mul_u32) /* odd factors keep products from collapsing to 0 */
        for (size_t i = 0; i < n; i++)
            ((uint32_t *)(src + src_at * es))[i] |= 1;
    for (size_t i = 0; reference_type_is_float(t) && i < n; i += 1 + harness_rand(rng) % 13) {
        const int nan = op != CLPRIM_SUM && harness_rand(rng) % 2;
        if (t == CLPRIM_FLOAT)
            ((float *)(src + src_at * es))[i] = nan ? NAN : -0.0f;
        else
            ((double *)(src + src_at * es))[i] = nan ? NAN : -0.0;
    }
    const size_t segments = make_offsets(l, n, mean, offsets + offsets_at, room, rng);
    const size_t out_count = dst_at + segments + 2;
    cl_mem sb = harness_buffer(ctx, (src_at + n + 1) * es, src);
    cl_mem ob = harness_buffer(ctx, (offsets_at + segments + 1) * sizeof *offsets, offsets);
    cl_mem db = harness_buffer(ctx, out_count * es, NULL);
    unsigned char *got = harness_malloc(out_count * es), *again = harness_malloc(out_count * es);
    char what[256];
    snprintf(what, sizeof what, "%s %s n=%zu %s (%zu segments) at %s", reference_type_name(t),
             custom ? custom->op.combine : reference_op_name(op), n, layout_names[l], segments,
             harness_tuning_text(ctx));
    clprim_status s = clprim_segmented_reduce(ctx, t, op, custom ? &custom->op : NULL, sb, src_at, n, ob, offsets_at,
                                              segments, db, dst_at, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));
    harness_read(ctx, db, 0, out_count * es, got);
    ck_assert_msg(harness_all_sentinel(got, dst_at * es) && harness_all_sentinel(got + (dst_at + segments) * es, 2 * es),
                  "%s: wrote beside its segments", what);
    check_segments(t, op, custom, src + src_at * es, n, offsets + offsets_at, segments, got + dst_at * es, what);
    if (reference_type_is_float(t) && op == CLPRIM_SUM && !custom) {
        s = clprim_segmented_reduce(ctx, t, op, NULL, sb, src_at, n, ob, offsets_at, segments, db, dst_at, 0, NULL,
                                    NULL);
        ck_assert_int_eq(s, CLPRIM_SUCCESS);
        harness_read(ctx, db, 0, out_count * es, again);
        ck_assert_msg(memcmp(got, again, out_count * es) == 0, "%s: a second run gave other bits", what);
    }
    free(src);
    free(offsets);
    free(got);
    free(again);
    clReleaseMemObject(sb);
    clReleaseMemObject(ob);
    clReleaseMemObject(db);
}

/* Shapes: the device's (one work-item a group on the CPU), and small
 * work-groups whose tiles and chunks many segments cross. */
static const size_t shapes[][3] = {{0, 0, 0}, {4, 2, 16}, {16, 4, 5}};
#define SHAPE_COUNT (sizeof shapes / sizeof shapes[0])

static int set_shape(clprim_context *ctx, size_t k)
{
    if (shapes[k][0])
        harness_set_tuning(ctx, shapes[k][0], shapes[k][1], shapes[k][2]);
    else
        harness_default_tuning(ctx);
    return 1;
}

/* The block once at each of the first `count` shapes, set on ctx. */
#define FOR_EACH_SHAPE(ctx, k, count) for (size_t k = 0; k < (count) && set_shape((ctx), k); k++)

/* Every type and built-in operator at two shapes, on random lengths. */
START_TEST(segmented_every_type_and_op)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(900 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (t == CLPRIM_DOUBLE && !ctx->has_fp64)
            continue;
        FOR_EACH_SHAPE(ctx, k, 2) { /* the third shape's programs cost a cold run more than they add */
            for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
                run_case(ctx, t, (clprim_op)op, NULL, 1000 + harness_rand(&rng) % 3000, LAYOUT_RANDOM,
                         1 + harness_rand(&rng) % 40, &rng);
                run_case(ctx, t, (clprim_op)op, NULL, 1 + harness_rand(&rng) % 9, LAYOUT_RANDOM, 2, &rng);
            }
        }
    }
}
END_TEST

/* Every layout at every shape, int32 and float sums. */
START_TEST(segmented_layouts)
{
    const layout l = (layout)_i;
    uint64_t rng = harness_rng(920 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, k, SHAPE_COUNT) {
            const size_t sizes[] = {1, 2, 37, 1500, 20000};
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                run_case(ctx, CLPRIM_INT32, CLPRIM_SUM, NULL, sizes[i], l, 1 + harness_rand(&rng) % 100, &rng);
                run_case(ctx, CLPRIM_FLOAT, i % 2 ? CLPRIM_MAX : CLPRIM_SUM, NULL, sizes[i], l, 7, &rng);
            }
        }
    }
}
END_TEST

/* Callers' operators, the affine one combining in order. */
START_TEST(segmented_custom)
{
    uint64_t rng = harness_rng(940);
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, k, SHAPE_COUNT) {
            for (size_t c = 0; c < sizeof customs / sizeof customs[0]; c++) {
                run_case(ctx, customs[c].t, CLPRIM_SUM, &customs[c], 3000, LAYOUT_RANDOM, 30, &rng);
                run_case(ctx, customs[c].t, CLPRIM_SUM, &customs[c], 5000, LAYOUT_HUGE, 1, &rng);
                run_case(ctx, customs[c].t, CLPRIM_SUM, &customs[c], 400, LAYOUT_EMPTY_RUNS, 9, &rng);
            }
        }
    }
}
END_TEST

/* No element: every segment gets the empty result (offsets ignored, even
 * garbage); no segment: nothing is written. */
START_TEST(segmented_empty)
{
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, k, SHAPE_COUNT) {
            cl_ulong offsets[6] = {0, 5, 3, 99, 0, 7};
            cl_mem sb = harness_buffer(ctx, 64, NULL), ob = harness_buffer(ctx, sizeof offsets, offsets);
            cl_mem db = harness_buffer(ctx, 8 * 8, NULL);
            const clprim_type types[] = {CLPRIM_INT32, CLPRIM_FLOAT, CLPRIM_UINT8};
            for (size_t i = 0; i < 3; i++)
                for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
                    const size_t es = reference_type_size(types[i]);
                    unsigned char fresh[64], got[64], want[8];
                    memset(fresh, HARNESS_SENTINEL, sizeof fresh);
                    clEnqueueWriteBuffer(clprim_queue(ctx), db, CL_TRUE, 0, sizeof fresh, fresh, 0, NULL, NULL);
                    ck_assert_int_eq(clprim_segmented_reduce(ctx, types[i], (clprim_op)op, NULL, sb, 0, 0, ob, 0, 5,
                                                             db, 1, 0, NULL, NULL),
                                     CLPRIM_SUCCESS);
                    harness_read(ctx, db, 0, sizeof got, got);
                    reference_empty_result(types[i], (clprim_op)op, want);
                    ck_assert(harness_all_sentinel(got, es) && harness_all_sentinel(got + 6 * es, sizeof got - 6 * es));
                    for (size_t s = 0; s < 5; s++)
                        ck_assert_msg(memcmp(got + (1 + s) * es, want, es) == 0, "%s %s: segment %zu of nothing",
                                      reference_type_name(types[i]), reference_op_name((clprim_op)op), s);
                    ck_assert_int_eq(clprim_segmented_reduce(ctx, types[i], (clprim_op)op, NULL, sb, 0, 16, ob, 0, 0,
                                                             db, 0, 0, NULL, NULL),
                                     CLPRIM_SUCCESS);
                    harness_read(ctx, db, 0, sizeof fresh, fresh);
                    ck_assert(memcmp(fresh, got, sizeof got) == 0);
                }
            clReleaseMemObject(sb);
            clReleaseMemObject(ob);
            clReleaseMemObject(db);
        }
    }
}
END_TEST

/* Offsets that decrease or lie far past n: values unspecified, but nothing
 * outside dst's segments is written, and a good call after it is right. */
START_TEST(segmented_garbage_offsets)
{
    uint64_t rng = harness_rng(960);
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, k, SHAPE_COUNT) {
            const size_t n = 3000, segments = 500;
            cl_ulong *offsets = harness_malloc((segments + 1) * sizeof *offsets);
            for (size_t s = 0; s <= segments; s++)
                offsets[s] = harness_rand(&rng) % 4 ? harness_rand(&rng) % (n + 50) : harness_rand(&rng);
            int32_t *src = harness_malloc(n * sizeof *src);
            harness_fill_random(CLPRIM_INT32, src, n, &rng);
            cl_mem sb = harness_buffer(ctx, n * sizeof *src, src);
            cl_mem ob = harness_buffer(ctx, (segments + 1) * sizeof *offsets, offsets);
            cl_mem db = harness_buffer(ctx, (segments + 8) * sizeof *src, NULL);
            ck_assert_int_eq(clprim_segmented_reduce(ctx, CLPRIM_INT32, CLPRIM_SUM, NULL, sb, 0, n, ob, 0, segments,
                                                     db, 4, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            int32_t *got = harness_malloc((segments + 8) * sizeof *got);
            harness_read(ctx, db, 0, (segments + 8) * sizeof *got, got);
            ck_assert(harness_all_sentinel(got, 4 * sizeof *got));
            ck_assert(harness_all_sentinel(got + 4 + segments, 4 * sizeof *got));
            free(offsets);
            free(src);
            free(got);
            clReleaseMemObject(sb);
            clReleaseMemObject(ob);
            clReleaseMemObject(db);
            run_case(ctx, CLPRIM_INT32, CLPRIM_SUM, NULL, 2000, LAYOUT_RANDOM, 20, &rng);
        }
    }
}
END_TEST

/* ---- Segmented argmin and argmax ---- */

/* Which outputs a call of clprim_segmented_reduce_index asks for. */
enum { BOTH_OUTPUTS, VALUES_ONLY, INDICES_ONLY };

/* One clprim_segmented_reduce_index over n random elements (floats with NaN,
 * -0.0 and +0.0, which tie, and runs of them) and a layout's offsets; each segment checked
 * against reference_best_index, an empty one against its sentinel, and
 * nothing written beside the segments. */
static void run_index_case(clprim_context *ctx, clprim_type t, clprim_op op, int outputs, size_t n, layout l,
                           size_t mean, uint64_t *rng)
{
    const size_t es = reference_type_size(t), room = 2 * n + 64, src_at = harness_rand(rng) % 3;
    const size_t out_at = 1 + harness_rand(rng) % 2;
    unsigned char *src = harness_malloc((src_at + n + 1) * es);
    cl_ulong *offsets = harness_malloc((room + 1) * sizeof *offsets);
    harness_fill_random(t, src + src_at * es, n, rng);
    if (harness_rand(rng) % 2) /* ties: few distinct values, drawn from the first four (or n) elements */
        for (size_t i = 0; i < n; i++)
            memcpy(src + (src_at + i) * es, src + (src_at + harness_rand(rng) % (n < 4 ? n : 4)) * es, es);
    for (size_t i = 0; reference_type_is_float(t) && i < n; i += 1 + harness_rand(rng) % 7) {
        const size_t run = harness_rand(rng) % 3 ? 1 : 1 + harness_rand(rng) % 9;
        for (size_t j = i; j < i + run && j < n; j++) {
            const unsigned pick = (unsigned)(harness_rand(rng) % 4); /* NaN, NaN, -0.0, +0.0 */
            if (t == CLPRIM_FLOAT)
                ((float *)(src + src_at * es))[j] = pick < 2 ? NAN : pick == 2 ? -0.0f : 0.0f;
            else
                ((double *)(src + src_at * es))[j] = pick < 2 ? NAN : pick == 2 ? -0.0 : 0.0;
        }
    }
    const size_t segments = make_offsets(l, n, mean, offsets, room, rng), count = out_at + segments + 1;
    cl_mem sb = harness_buffer(ctx, (src_at + n + 1) * es, src);
    cl_mem ob = harness_buffer(ctx, (segments + 1) * sizeof *offsets, offsets);
    cl_mem vb = harness_buffer(ctx, count * es, NULL), ib = harness_buffer(ctx, count * sizeof(cl_ulong), NULL);
    char what[256];
    snprintf(what, sizeof what, "arg%s %s n=%zu %s (%zu segments), outputs %d, at %s",
             op == CLPRIM_MAX ? "max" : "min", reference_type_name(t), n, layout_names[l], segments, outputs,
             harness_tuning_text(ctx));
    const clprim_status s = clprim_segmented_reduce_index(
        ctx, t, op, sb, src_at, n, ob, 0, segments, outputs == INDICES_ONLY ? NULL : vb, out_at,
        outputs == VALUES_ONLY ? NULL : ib, out_at, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));
    unsigned char *values = harness_malloc(count * es);
    cl_ulong *indices = harness_malloc(count * sizeof *indices);
    harness_read(ctx, vb, 0, count * es, values);
    harness_read(ctx, ib, 0, count * sizeof *indices, indices);
    CHECK(harness_all_sentinel(values, out_at * es) && harness_all_sentinel(values + (out_at + segments) * es, es),
          "%s: wrote values beside its segments", what);
    CHECK(harness_all_sentinel(indices, out_at * 8) && harness_all_sentinel(indices + out_at + segments, 8),
          "%s: wrote indices beside its segments", what);
    CHECK(outputs != INDICES_ONLY || harness_all_sentinel(values, count * es), "%s: wrote values", what);
    CHECK(outputs != VALUES_ONLY || harness_all_sentinel(indices, count * 8), "%s: wrote indices", what);
    const unsigned char *x = src + src_at * es;
    for (size_t k = 0; k < segments; k++) {
        const size_t b = offsets[k] < n ? offsets[k] : n, e = offsets[k + 1] < n ? offsets[k + 1] : n;
        unsigned char empty[8];
        reference_empty_result(t, op, empty);
        const cl_ulong want = e > b ? b + reference_best_index(t, op == CLPRIM_MAX, x + b * es, e - b) : CL_ULONG_MAX;
        CHECK(outputs == VALUES_ONLY || indices[out_at + k] == want, "%s: segment %zu ([%zu, %zu)): index %llu, want %llu",
              what, k, b, e, (unsigned long long)indices[out_at + k], (unsigned long long)want);
        CHECK(outputs == INDICES_ONLY || memcmp(values + (out_at + k) * es, e > b ? x + want * es : empty, es) == 0,
              "%s: segment %zu ([%zu, %zu)): the value is not element %llu's", what, k, b, e,
              (unsigned long long)want);
    }
    free(src);
    free(offsets);
    free(values);
    free(indices);
    cl_mem all[] = {sb, ob, vb, ib};
    for (size_t i = 0; i < 4; i++)
        clReleaseMemObject(all[i]);
}

/* Every type, argmin and argmax alternating by type (a program each), at
 * the device's shape: every layout, tiny and empty inputs. */
START_TEST(segmented_index_every_type)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(980 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (t == CLPRIM_DOUBLE && !ctx->has_fp64)
            continue;
        const clprim_op op = _i % 2 ? CLPRIM_MAX : CLPRIM_MIN;
        for (layout l = 0; l < LAYOUT_COUNT; l++)
            run_index_case(ctx, t, op, (int)l % 3, 500 + harness_rand(&rng) % 4000, l, 1 + harness_rand(&rng) % 60,
                           &rng);
        run_index_case(ctx, t, op, BOTH_OUTPUTS, 1 + harness_rand(&rng) % 9, LAYOUT_RANDOM, 2, &rng);
        run_index_case(ctx, t, op, BOTH_OUTPUTS, 0, LAYOUT_EMPTY_RUNS, 3, &rng);
    }
}
END_TEST

/* The small shapes, whose tiles and chunks many segments cross: float
 * argmin (NaN runs across tiles) at both, int64 argmax at the first. */
START_TEST(segmented_index_shapes)
{
    uint64_t rng = harness_rng(1000);
    FOR_EACH_DEVICE(ctx)
    {
        FOR_EACH_SHAPE(ctx, k, SHAPE_COUNT) {
            if (k == 0)
                continue; /* the device's shape: segmented_index_every_type */
            for (layout l = 0; l < LAYOUT_COUNT; l++) {
                run_index_case(ctx, CLPRIM_FLOAT, CLPRIM_MIN, BOTH_OUTPUTS, 3000, l, 1 + harness_rand(&rng) % 50,
                               &rng);
                if (k == 1)
                    run_index_case(ctx, CLPRIM_INT64, CLPRIM_MAX, BOTH_OUTPUTS, 37 + 500 * (l % 2), l, 3, &rng);
            }
        }
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { SEGMENTED, SEGMENTED_CUSTOM, SEGMENTED_INDEX };

/* buf: src, offsets, dst (argmin and argmax: src, offsets, values, indices);
 * n elements and n / 4 segments. variant 1: a custom
 * operator that does not parse, 2: one whose identity is NULL, 3: an empty
 * one; 9: segments SIZE_MAX. A success's values are unspecified (the offsets are
 * random bytes), but it writes only dst's segments. */
static clprim_status segmented_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    static const int32_t zero = 0;
    const clprim_operator customs_bad[] = {
        {"a + b", &zero}, {"a +* b", &zero}, {"a + b", NULL}, {"", &zero}};
    const clprim_operator *custom = row->call == SEGMENTED_CUSTOM ? &customs_bad[row->variant] : NULL;
    const size_t segments = row->variant == 9 ? SIZE_MAX : row->n / 4;
    if (row->call == SEGMENTED_INDEX) /* buf[2]: values, buf[3]: indices */
        return clprim_segmented_reduce_index(ctx, row->type, (clprim_op)row->op, buf[0], row->offset[0], row->n,
                                             buf[1], row->offset[1], segments, buf[2], row->offset[2], buf[3],
                                             row->offset[3], 0, NULL, NULL);
    return clprim_segmented_reduce(ctx, row->type, (clprim_op)row->op, custom, buf[0], row->offset[0], row->n,
                                   buf[1], row->offset[1], segments, buf[2], row->offset[2], 0, NULL, NULL);
}

/* Each buffer holds 16384 int32, 8192 cl_ulong. */
static const harness_bad_call segmented_bad_calls[] = {
    {"ctx NULL", SEGMENTED, 1, {HB_A, HB_B, HB_A}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"type 42", SEGMENTED, 0, {HB_A, HB_B, HB_A}, {0, 0, 100}, 8, CLPRIM_INVALID_ARGUMENT, "42",
     .type = (clprim_type)42},
    {"op 3", SEGMENTED, 0, {HB_A, HB_B, HB_A}, {0, 0, 100}, 8, CLPRIM_INVALID_ARGUMENT, "op", .op = 3},
    {"custom that does not parse", SEGMENTED_CUSTOM, 0, {HB_A, HB_B, HB_A}, {0, 0, 100}, 8, CLPRIM_INVALID_ARGUMENT,
     "op->combine", .variant = 1},
    {"custom without identity", SEGMENTED_CUSTOM, 0, {HB_A, HB_B, HB_A}, {0, 0, 100}, 8, CLPRIM_INVALID_ARGUMENT,
     "identity", .variant = 2},
    {"custom empty", SEGMENTED_CUSTOM, 0, {HB_A, HB_B, HB_B}, {0, 0, 100}, 8, CLPRIM_INVALID_ARGUMENT,
     "op->combine", .variant = 3},
    {"double without cl_khr_fp64", SEGMENTED, 0, {HB_A, HB_B, HB_A}, {0, 0, 100}, 8, CLPRIM_UNSUPPORTED, "fp64",
     .type = CLPRIM_DOUBLE, .without_fp64 = 1},
    {"src NULL", SEGMENTED, 0, {HB_NULL, HB_B, HB_A}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "src is NULL"},
    {"offsets NULL", SEGMENTED, 0, {HB_A, HB_NULL, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "offsets is NULL"},
    {"dst NULL", SEGMENTED, 0, {HB_A, HB_B, HB_NULL}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "dst is NULL"},
    {"src short", SEGMENTED, 0, {HB_A, HB_B, HB_B}, {16380, 0, 4000}, 8, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"offsets short by one", SEGMENTED, 0, {HB_A, HB_B, HB_A}, {0, 8192 - 2, 8000}, 8, CLPRIM_BUFFER_TOO_SMALL,
     "offsets"},
    {"dst short", SEGMENTED, 0, {HB_A, HB_B, HB_B}, {0, 0, 16383}, 8, CLPRIM_BUFFER_TOO_SMALL, "dst"},
    {"segments + 1 overflows", SEGMENTED, 0, {HB_A, HB_B, HB_A}, {0, 0, 100}, 8, CLPRIM_INVALID_ARGUMENT,
     "segments", .variant = 9},
    {"dst read-only", SEGMENTED, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY"},
    {"offsets write-only", SEGMENTED, 0, {HB_A, HB_WRITE_ONLY, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"src of another context", SEGMENTED, 0, {HB_FOREIGN, HB_B, HB_A}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "another OpenCL context"},
    {"dst over src", SEGMENTED, 0, {HB_A, HB_B, HB_A}, {0, 0, 7}, 8, CLPRIM_INVALID_ARGUMENT, "src", .also = "dst"},
    {"dst over the offsets", SEGMENTED, 0, {HB_A, HB_B, HB_B}, {0, 0, 3}, 8, CLPRIM_INVALID_ARGUMENT, "offsets",
     .also = "dst"},
    {"dst in a sub-buffer over src", SEGMENTED, 0, {HB_A_AT_0, HB_B, HB_A}, {0, 0, 2}, 8, CLPRIM_INVALID_ARGUMENT,
     "src", .also = "dst"},
    /* Random offsets: unspecified values, in dst's segments only. */
    {"src and offsets share bytes", SEGMENTED, 0, {HB_A, HB_A, HB_B}, {0, 0, 0}, 4000, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(2)},
    {"garbage offsets, uint8", SEGMENTED, 0, {HB_A, HB_B, HB_A}, {0, 0, 9000}, 4000, CLPRIM_SUCCESS, NULL,
     .type = CLPRIM_UINT8, .op = CLPRIM_MAX, .written = HB_ARG(2)},
    {"a custom operator, n 0", SEGMENTED_CUSTOM, 0, {HB_A, HB_B, HB_A}, {0, 0, 9000}, 0, CLPRIM_SUCCESS, NULL},
    /* clprim_segmented_reduce_index: buf src, offsets, values, indices. */
    {"argmin: ctx NULL", SEGMENTED_INDEX, 1, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 100, 4000}, 8, CLPRIM_INVALID_ARGUMENT,
     "ctx is NULL", .op = CLPRIM_MIN},
    {"argmin: op SUM", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 100, 4000}, 8, CLPRIM_INVALID_ARGUMENT,
     "CLPRIM_MIN or CLPRIM_MAX", .op = CLPRIM_SUM},
    {"argmin: type 42", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 100, 4000}, 8, CLPRIM_INVALID_ARGUMENT,
     "42", .type = (clprim_type)42, .op = CLPRIM_MIN},
    {"argmin: double without cl_khr_fp64", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 100, 4000}, 8,
     CLPRIM_UNSUPPORTED, "fp64", .type = CLPRIM_DOUBLE, .op = CLPRIM_MIN, .without_fp64 = 1},
    {"argmax: both outputs NULL", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 8,
     CLPRIM_INVALID_ARGUMENT, "both NULL", .op = CLPRIM_MAX},
    {"argmax: src NULL", SEGMENTED_INDEX, 0, {HB_NULL, HB_B, HB_A, HB_B}, {0, 0, 0, 4000}, 8,
     CLPRIM_INVALID_ARGUMENT, "src is NULL", .op = CLPRIM_MAX},
    {"argmax: indices short", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_NULL, HB_A}, {0, 0, 0, 8190}, 40,
     CLPRIM_BUFFER_TOO_SMALL, "indices", .op = CLPRIM_MAX},
    {"argmax: values short", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_B, HB_NULL}, {0, 0, 16380, 0}, 40,
     CLPRIM_BUFFER_TOO_SMALL, "values", .op = CLPRIM_MAX},
    {"argmax: indices read-only", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_NULL, HB_READ_ONLY}, {0}, 8,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_READ_ONLY", .op = CLPRIM_MAX},
    {"argmax: indices over src", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_NULL, HB_A}, {0, 0, 0, 1}, 8,
     CLPRIM_INVALID_ARGUMENT, "src", .also = "indices", .op = CLPRIM_MAX},
    {"argmin: values over the offsets", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_B, HB_NULL}, {0, 0, 2, 0}, 8,
     CLPRIM_INVALID_ARGUMENT, "offsets", .also = "values", .op = CLPRIM_MIN},
    {"argmin: values read-only", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_READ_ONLY, HB_B}, {0, 0, 0, 4000}, 8,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_READ_ONLY", .also = "values", .op = CLPRIM_MIN},
    {"argmin: values and indices share bytes", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_A, HB_A}, {0, 0, 5000, 2502}, 40,
     CLPRIM_INVALID_ARGUMENT, "values", .also = "indices", .op = CLPRIM_MIN},
    {"argmin: garbage offsets", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 9000, 5000}, 4000,
     CLPRIM_SUCCESS, NULL, .op = CLPRIM_MIN, .written = HB_ARG(2) | HB_ARG(3)},
    {"argmax: indices alone, n 0", SEGMENTED_INDEX, 0, {HB_A, HB_B, HB_NULL, HB_A}, {0, 0, 0, 9}, 0, CLPRIM_SUCCESS,
     NULL, .op = CLPRIM_MAX},
};

START_TEST(segmented_bad_table)
{
    harness_run_bad_calls(segmented_bad_calls, sizeof segmented_bad_calls / sizeof *segmented_bad_calls,
                          segmented_bad_call);
}
END_TEST

static Suite *segmented_suite(void)
{
    Suite *s = suite_create("segmented_reduce");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, segmented_every_type_and_op, 0, REFERENCE_TYPE_COUNT);
    tcase_add_loop_test(tc, segmented_layouts, 0, LAYOUT_COUNT);
    tcase_add_test(tc, segmented_custom);
    tcase_add_test(tc, segmented_empty);
    tcase_add_test(tc, segmented_garbage_offsets);
    suite_add_tcase(s, tc);
    TCase *arg = tcase_create("argmin_argmax");
    tcase_set_timeout(arg, 600);
    tcase_add_loop_test(arg, segmented_index_every_type, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(arg, segmented_index_shapes);
    suite_add_tcase(s, arg);
    TCase *bad = tcase_create("bad_arguments");
    tcase_set_timeout(bad, 300);
    tcase_add_test(bad, segmented_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(segmented_suite());
}
