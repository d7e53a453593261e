/* clprim_scan_op and clprim_reduce_op: callers' operators against sequential C
 * folds on fresh random data, the same bits as the built-in operators for the
 * same expression, several levels of partials, determinism of a
 * non-associative operator, and every bad operator leaving the outputs alone. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

static int type_runs(clprim_context *ctx, clprim_type t)
{
    return t != CLPRIM_DOUBLE || ctx->has_fp64;
}

/* A caller's operator with its C twin, for the reference fold. */
typedef struct {
    clprim_type t;
    const char *combine;
    void (*fold)(void *acc, const void *x); /* *acc = combine(*acc, *x) */
    unsigned char identity[8];
} user_op;

static void max_i64(void *acc, const void *x)
{
    int64_t a = *(int64_t *)acc, b = *(const int64_t *)x;
    *(int64_t *)acc = a > b ? a : b;
}
static void xor_u64(void *acc, const void *x)
{
    *(uint64_t *)acc ^= *(const uint64_t *)x;
}
static void add_u8(void *acc, const void *x)
{
    *(uint8_t *)acc = (uint8_t)(*(uint8_t *)acc + *(const uint8_t *)x);
}
static void fmax_f32(void *acc, const void *x)
{
    *(float *)acc = fmaxf(*(float *)acc, *(const float *)x);
}
static void min_abs_i32(void *acc, const void *x) /* the value of least magnitude, the earlier on ties */
{
    int32_t a = *(int32_t *)acc, b = *(const int32_t *)x;
    uint32_t ua = a < 0 ? 0u - (uint32_t)a : (uint32_t)a, ub = b < 0 ? 0u - (uint32_t)b : (uint32_t)b;
    *(int32_t *)acc = ub < ua ? b : a;
}

static user_op make_op(clprim_type t, const char *combine, void (*fold)(void *, const void *), const void *identity)
{
    user_op op = {t, combine, fold, {0}};
    memcpy(op.identity, identity, reference_type_size(t));
    return op;
}

/* Associative operators over every integer width, uchar and float, one of
 * them not commutative. */
static size_t user_ops(user_op *ops)
{
    const uint32_t one = 1;
    const int64_t lowest = INT64_MIN;
    const uint64_t zero64 = 0, affine_identity = (uint64_t)1 << 32;
    const uint8_t zero8 = 0;
    const float minus_inf = -INFINITY;
    const int32_t largest = INT32_MAX;
    size_t n = 0;
    ops[n++] = make_op(CLPRIM_UINT32, "a * b", reference_mul_u32, &one);
    ops[n++] = make_op(CLPRIM_INT64, "max(a, b)", max_i64, &lowest);
    ops[n++] = make_op(CLPRIM_UINT64, "a ^ b", xor_u64, &zero64);
    ops[n++] = make_op(CLPRIM_UINT8, "a + b", add_u8, &zero8);
    ops[n++] = make_op(CLPRIM_FLOAT, "fmax(a, b)", fmax_f32, &minus_inf);
    ops[n++] = make_op(CLPRIM_UINT64, REFERENCE_AFFINE_U64, reference_affine_u64, &affine_identity);
    ops[n++] = make_op(CLPRIM_INT32, "abs(b) < abs(a) ? b : a", min_abs_i32, &largest);
    return n;
}

static void fold_scan(const user_op *op, int exclusive, const unsigned char *src, unsigned char *dst, size_t n)
{
    const size_t es = reference_type_size(op->t);
    unsigned char acc[8];
    memcpy(acc, op->identity, es);
    for (size_t i = 0; i < n; i++) {
        if (exclusive)
            memcpy(dst + i * es, acc, es);
        op->fold(acc, src + i * es);
        if (!exclusive)
            memcpy(dst + i * es, acc, es);
    }
}

/* Scans (both kinds) and reduces n random elements at an offset with op, and
 * compares with the C fold bit for bit; the elements beyond stay untouched. */
static void op_case(clprim_context *ctx, const user_op *op, size_t n, uint64_t *rng)
{
    const size_t es = reference_type_size(op->t), offset = 3, len = offset + n + 5;
    const clprim_operator cop = {op->combine, op->identity};
    unsigned char *src = harness_malloc(len * es), *want = harness_malloc(len * es), *got = harness_malloc(len * es);
    harness_fill_random(op->t, src, len, rng);
    if (op->fold == reference_mul_u32) /* odd factors keep the product from collapsing to 0 */
        for (size_t i = 0; i < len; i++)
            ((uint32_t *)src)[i] |= 1u;
    cl_mem in = harness_buffer(ctx, len * es, src);
    for (int exclusive = 0; exclusive < 2; exclusive++) {
        cl_mem out = harness_buffer(ctx, len * es, NULL);
        cl_event done = NULL;
        clprim_status s = clprim_scan_op(ctx, op->t, &cop, exclusive, in, offset, out, offset, n, 0, NULL, &done);
        ck_assert_msg(s == CLPRIM_SUCCESS, "scan_op %s \"%s\" n=%zu (%s): %s", reference_type_name(op->t),
                      op->combine, n, harness_tuning_text(ctx), clprim_last_error(ctx));
        ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        harness_read(ctx, out, 0, len * es, got);
        memset(want, HARNESS_SENTINEL, len * es);
        fold_scan(op, exclusive, src + offset * es, want + offset * es, n);
        for (size_t i = 0; i < len; i++)
            CHECK(memcmp(got + i * es, want + i * es, es) == 0,
                  "scan_op %s \"%s\" %s n=%zu (%s): element %zu differs from the C fold%s", reference_type_name(op->t),
                  op->combine, exclusive ? "exclusive" : "inclusive", n, harness_tuning_text(ctx), i,
                  i < offset || i >= offset + n ? " (outside the range: must stay untouched)" : "");
        clReleaseMemObject(out);
    }
    unsigned char result[16], expect[8];
    memset(result, HARNESS_SENTINEL, sizeof result);
    clprim_status s = clprim_reduce_op(ctx, op->t, &cop, in, offset, n, result, 0, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "reduce_op: %s", clprim_last_error(ctx));
    memcpy(expect, op->identity, es);
    for (size_t i = 0; i < n; i++)
        op->fold(expect, src + (offset + i) * es);
    ck_assert_msg(memcmp(result, expect, es) == 0, "reduce_op %s \"%s\" n=%zu (%s) differs from the C fold",
                  reference_type_name(op->t), op->combine, n, harness_tuning_text(ctx));
    ck_assert(harness_all_sentinel(result + es, sizeof result - es));
    /* The device form (op ignored with an operator of the caller's): the same bits. */
    unsigned char on_device[16];
    cl_mem out = harness_buffer(ctx, 2 * es, NULL);
    cl_event done = NULL;
    s = clprim_reduce_to(ctx, op->t, CLPRIM_MAX, &cop, in, offset, n, out, 1, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "reduce_to: %s", clprim_last_error(ctx));
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    harness_read(ctx, out, es, es, on_device);
    ck_assert_msg(memcmp(on_device, expect, es) == 0, "reduce_to %s \"%s\" n=%zu (%s) differs from the C fold",
                  reference_type_name(op->t), op->combine, n, harness_tuning_text(ctx));
    clReleaseMemObject(out);
    clReleaseMemObject(in);
    free(src);
    free(want);
    free(got);
}

/* Sizes from none to three levels of partials under a small shape that makes
 * them cheap, and those beyond one fold under the device's own shape. */
START_TEST(operators_against_c)
{
    user_op ops[8];
    const size_t nops = user_ops(ops);
    uint64_t rng = harness_rng(1);
    FOR_EACH_DEVICE(ctx)
    {
        for (int shape = 0; shape < 2; shape++) {
            if (shape == 1)
                harness_set_tuning(ctx, 4, 2, 16);
            const clprim_tuning t = clprim_get_tuning(ctx);
            const size_t tile = t.work_group_size * t.items_per_thread;
            /* 5 tiles + 1: six groups, whose partials each group folds itself. */
            const size_t sizes[] = {0, 1, 2, tile - 1, tile + 1, 5 * tile + 1, tile * t.groups + 1,
                                    harness_first_size_with_levels(&t, 3, (size_t)1 << 22), 100003};
            for (size_t k = 0; k < nops; k++)
                for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                    if (shape == 1 || sizes[i] > tile * t.groups)
                        op_case(ctx, &ops[k], sizes[i], &rng);
        }
    }
}
END_TEST

/* "a + b" from 0 and min/max with the type's extremes are the built-in
 * operators written by hand: the same kernels, so the same bits (float sums
 * aside: a caller's operator is combined in order, the built-in SUM in a
 * grouping of its own). */
START_TEST(operators_match_builtins)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(2 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        const size_t es = reference_type_size(t), n = 70001;
        unsigned char *src = harness_malloc(n * es), *a = harness_malloc(n * es), *b = harness_malloc(n * es);
        harness_fill_random(t, src, n, &rng);
        cl_mem in = harness_buffer(ctx, n * es, src), out = harness_buffer(ctx, n * es, NULL);
        const clprim_op builtin[] = {CLPRIM_SUM, CLPRIM_MIN, CLPRIM_MAX};
        const char *integer_combine[] = {"a + b", "min(a, b)", "max(a, b)"};
        const char *float_combine[] = {"a + b", "fmin(a, b)", "fmax(a, b)"};
        for (size_t k = reference_type_is_float(t) ? 1 : 0; k < 3; k++) {
            unsigned char identity[8];
            reference_empty_result(t, builtin[k], identity);
            const clprim_operator op = {reference_type_is_float(t) ? float_combine[k] : integer_combine[k], identity};
            for (int exclusive = 0; exclusive < 2; exclusive++) {
                ck_assert_int_eq(clprim_scan(ctx, t, builtin[k], exclusive, in, 0, out, 0, n, 0, NULL, NULL),
                                 CLPRIM_SUCCESS);
                harness_read(ctx, out, 0, n * es, a);
                clprim_status s = clprim_scan_op(ctx, t, &op, exclusive, in, 0, out, 0, n, 0, NULL, NULL);
                ck_assert_msg(s == CLPRIM_SUCCESS, "%s", clprim_last_error(ctx));
                harness_read(ctx, out, 0, n * es, b);
                ck_assert_msg(memcmp(a, b, n * es) == 0, "%s \"%s\" %s: not the bits of the built-in %s",
                              reference_type_name(t), op.combine, exclusive ? "exclusive" : "inclusive",
                              reference_op_name(builtin[k]));
            }
            unsigned char ra[8], rb[8];
            ck_assert_int_eq(clprim_reduce(ctx, t, builtin[k], in, 0, n, ra, 0, NULL), CLPRIM_SUCCESS);
            ck_assert_int_eq(clprim_reduce_op(ctx, t, &op, in, 0, n, rb, 0, NULL), CLPRIM_SUCCESS);
            ck_assert_msg(memcmp(ra, rb, es) == 0, "reduce_op %s \"%s\" differs from the built-in",
                          reference_type_name(t), op.combine);
        }
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        free(src);
        free(a);
        free(b);
    }
}
END_TEST

/* A non-associative operator: unspecified, but the same bits run after run. */
START_TEST(operator_not_associative_is_deterministic)
{
    uint64_t rng = harness_rng(20);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 200003;
        float *src = harness_malloc(n * sizeof *src), *first = harness_malloc(n * sizeof *src),
              *again = harness_malloc(n * sizeof *src);
        harness_fill_random(CLPRIM_FLOAT, src, n, &rng);
        const float zero = 0.0f;
        const clprim_operator op = {"a * 0.5f + b", &zero};
        cl_mem in = harness_buffer(ctx, n * sizeof *src, src), out = harness_buffer(ctx, n * sizeof *src, NULL);
        for (int run = 0; run < 3; run++) {
            ck_assert_int_eq(clprim_scan_op(ctx, CLPRIM_FLOAT, &op, 0, in, 0, out, 0, n, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            harness_read(ctx, out, 0, n * sizeof *src, run ? again : first);
            ck_assert_msg(run == 0 || memcmp(first, again, n * sizeof *src) == 0, "run %d differs from run 0", run);
        }
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        free(src);
        free(first);
        free(again);
    }
}
END_TEST

/* Every bad operator, through both calls, at n > 0 and n == 0: the status,
 * a message naming what is wrong, and dst and *result untouched. */
START_TEST(operator_bad_inputs)
{
    static const int32_t zero = 0;
    static const struct {
        clprim_type t;
        int null_op;
        const char *combine;
        const void *identity;
        clprim_status want;
        const char *needle;
    } rows[] = {
        {CLPRIM_INT32, 1, NULL, NULL, CLPRIM_INVALID_ARGUMENT, "op is NULL"},
        {CLPRIM_INT32, 0, NULL, &zero, CLPRIM_INVALID_ARGUMENT, "op->combine is NULL"},
        {CLPRIM_INT32, 0, "  ", &zero, CLPRIM_INVALID_ARGUMENT, "op->combine is empty"},
        {CLPRIM_INT32, 0, "a = b", &zero, CLPRIM_INVALID_ARGUMENT, "'='"},
        {CLPRIM_INT32, 0, "a + b;", &zero, CLPRIM_INVALID_ARGUMENT, "';'"},
        {CLPRIM_INT32, 0, "x + b", &zero, CLPRIM_INVALID_ARGUMENT, "'x'"},
        {CLPRIM_INT32, 0, "a + b", NULL, CLPRIM_INVALID_ARGUMENT, "op->identity is NULL"},
        {CLPRIM_FLOAT, 0, "a & b", &zero, CLPRIM_INVALID_ARGUMENT, "op->combine"},
        {CLPRIM_FLOAT, 0, "a % b", &zero, CLPRIM_INVALID_ARGUMENT, "op->combine"},
        {(clprim_type)99, 0, "a + b", &zero, CLPRIM_INVALID_ARGUMENT, "clprim_type"},
    };
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 1000;
        cl_mem in = harness_buffer(ctx, n * 4, NULL), out = harness_buffer(ctx, n * 4, NULL);
        unsigned char *got = harness_malloc(n * 4);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
            for (size_t count = 0; count <= n; count += n) {
                const clprim_operator op = {rows[r].combine, rows[r].identity};
                const clprim_operator *pop = rows[r].null_op ? NULL : &op;
                cl_event event = NULL;
                clprim_status s = clprim_scan_op(ctx, rows[r].t, pop, 0, in, 0, out, 0, count, 0, NULL, &event);
                harness_assert_error(ctx, s, rows[r].want, rows[r].needle);
                ck_assert_msg(event == NULL, "a failed call returned an event");
                harness_read(ctx, out, 0, n * 4, got);
                ck_assert_msg(harness_all_sentinel(got, n * 4), "row %zu: the failed scan_op wrote dst", r);
                unsigned char result[8];
                memset(result, HARNESS_SENTINEL, sizeof result);
                s = clprim_reduce_op(ctx, rows[r].t, pop, in, 0, count, result, 0, NULL);
                harness_assert_error(ctx, s, rows[r].want, rows[r].needle);
                ck_assert_msg(harness_all_sentinel(result, sizeof result), "row %zu: reduce_op wrote *result", r);
            }
        /* The usual argument checks come with the operator's. */
        const clprim_operator sum = {"a + b", &zero};
        harness_assert_error(ctx, clprim_scan_op(ctx, CLPRIM_INT32, &sum, 0, in, 0, out, 1, n, 0, NULL, NULL),
                             CLPRIM_BUFFER_TOO_SMALL, "dst");
        harness_assert_error(ctx, clprim_scan_op(ctx, CLPRIM_INT32, &sum, 0, in, 1, in, 0, n - 1, 0, NULL, NULL),
                             CLPRIM_INVALID_ARGUMENT, "overlap");
        harness_assert_error(ctx, clprim_reduce_op(ctx, CLPRIM_INT32, &sum, in, 0, n, NULL, 0, NULL),
                             CLPRIM_INVALID_ARGUMENT, "result is NULL");
        harness_read(ctx, out, 0, n * 4, got);
        ck_assert(harness_all_sentinel(got, n * 4));
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        free(got);
    }
}
END_TEST

/* In place, as clprim_scan: src and dst the same elements. */
START_TEST(operator_in_place)
{
    uint64_t rng = harness_rng(30);
    user_op ops[8];
    user_ops(ops);
    const user_op *op = &ops[0]; /* uint32 "a * b" */
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 16);
        const size_t n = 5001;
        uint32_t *src = harness_malloc(n * 4), *want = harness_malloc(n * 4), *got = harness_malloc(n * 4);
        harness_fill_random(CLPRIM_UINT32, src, n, &rng);
        cl_mem buf = harness_buffer(ctx, n * 4, src);
        const clprim_operator cop = {op->combine, op->identity};
        ck_assert_int_eq(clprim_scan_op(ctx, CLPRIM_UINT32, &cop, 1, buf, 0, buf, 0, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, buf, 0, n * 4, got);
        fold_scan(op, 1, (const unsigned char *)src, (unsigned char *)want, n);
        ck_assert_msg(memcmp(got, want, n * 4) == 0, "in-place exclusive scan_op differs from the C fold");
        clReleaseMemObject(buf);
        free(src);
        free(want);
        free(got);
    }
}
END_TEST

static Suite *operator_suite(void)
{
    Suite *s = suite_create("operator");
    TCase *tc = tcase_create("operator");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, operators_against_c);
    tcase_add_loop_test(tc, operators_match_builtins, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, operator_not_associative_is_deterministic);
    tcase_add_test(tc, operator_bad_inputs);
    tcase_add_test(tc, operator_in_place);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(operator_suite());
}
