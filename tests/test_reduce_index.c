/* clprim_reduce_index (argmin, argmax) against a C scan for the first best
 * element: every type on fresh random data at the split's boundary sizes and
 * under shapes with many groups, ties, NaN at the front, inside and
 * everywhere, -0.0 beside +0.0, and every bad argument leaving the outputs
 * untouched. */
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

/* clprim_reduce_index_to of the same call writes the host form's value to
 * element 1 of a buffer of three and its index to element 2 of another, and
 * nothing else; its event completes. */
static void check_device_form(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src, size_t offset, size_t n,
                              const unsigned char *value, size_t index)
{
    const size_t es = reference_type_size(t);
    unsigned char init[24], got_value[24];
    cl_ulong got_index[3];
    memset(init, HARNESS_SENTINEL, sizeof init);
    cl_mem values = harness_buffer(ctx, 3 * es, init), indices = harness_buffer(ctx, sizeof got_index, init);
    cl_event done = NULL;
    clprim_status s = clprim_reduce_index_to(ctx, t, op, src, offset, n, values, 1, indices, 2, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "reduce_index_to: %s", clprim_last_error(ctx));
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    harness_read(ctx, values, 0, 3 * es, got_value);
    harness_read(ctx, indices, 0, sizeof got_index, got_index);
    ck_assert_msg(memcmp(got_value + es, value, es) == 0 && got_index[2] == index,
                  "reduce_index_to %s n=%zu: index %llu, the host form says %zu", reference_type_name(t), n,
                  (unsigned long long)got_index[2], index);
    ck_assert_msg(harness_all_sentinel(got_value, es) && harness_all_sentinel(got_value + 2 * es, es) &&
                      harness_all_sentinel(got_index, 2 * sizeof(cl_ulong)),
                  "reduce_index_to wrote beside its outputs");
    clReleaseMemObject(values);
    clReleaseMemObject(indices);
}

/* Both operators over src[offset .. offset + n) of a device copy of `all`. */
static void index_case(clprim_context *ctx, clprim_type t, const unsigned char *all, size_t offset, size_t n,
                       const char *what)
{
    const size_t es = reference_type_size(t);
    cl_mem buf = harness_buffer(ctx, (offset + n + 2) * es, NULL);
    ck_assert_int_eq(clEnqueueWriteBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, (offset + n) * es, all, 0, NULL, NULL),
                     CL_SUCCESS);
    for (int max = 0; max < 2; max++) {
        unsigned char value[16];
        memset(value, HARNESS_SENTINEL, sizeof value);
        size_t index = (size_t)-1;
        clprim_status s =
            clprim_reduce_index(ctx, t, max ? CLPRIM_MAX : CLPRIM_MIN, buf, offset, n, value, &index, 0, NULL);
        ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));
        const size_t want = reference_best_index(t, max, all + offset * es, n);
        ck_assert_msg(index == want, "arg%s %s %s n=%zu (%s): index %zu, the C loop says %zu", max ? "max" : "min",
                      reference_type_name(t), what, n, harness_tuning_text(ctx), index, want);
        ck_assert_msg(memcmp(value, all + (offset + want) * es, es) == 0, "arg%s %s %s: the value is not element %zu",
                      max ? "max" : "min", reference_type_name(t), what, want);
        ck_assert(harness_all_sentinel(value + es, sizeof value - es));
        check_device_form(ctx, t, max ? CLPRIM_MAX : CLPRIM_MIN, buf, offset, n, value, index);
    }
    clReleaseMemObject(buf);
}

START_TEST(index_random_every_type)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(40 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        for (int shape = 0; shape < 2; shape++) {
            if (shape)
                harness_set_tuning(ctx, 4, 2, 64);
            const clprim_tuning tun = clprim_get_tuning(ctx);
            const size_t tile = tun.work_group_size * tun.items_per_thread, most = tile * tun.groups;
            const size_t sizes[] = {1, 2, 3, tile - 1, tile, tile + 1, most - 1, most + 1, 3 * most + 7, 100003};
            const size_t es = reference_type_size(t), cap = 100003 + 8;
            unsigned char *data = harness_malloc(cap * es);
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                if (sizes[k] == 0 || sizes[k] + 5 > cap)
                    continue;
                harness_fill_random(t, data, sizes[k] + 5, &rng);
                index_case(ctx, t, data, 5, sizes[k], "random");
            }
            free(data);
        }
    }
}
END_TEST

/* Ties everywhere: a constant array (index 0), uint8 data with few values,
 * and the best value planted twice (the first wins). */
START_TEST(index_ties_go_to_the_first)
{
    uint64_t rng = harness_rng(50);
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 16);
        const size_t n = 4099;
        int32_t *same = harness_malloc(n * sizeof *same);
        for (size_t i = 0; i < n; i++)
            same[i] = 7;
        index_case(ctx, CLPRIM_INT32, (unsigned char *)same, 0, n, "constant");
        for (size_t i = 0; i < n; i++)
            same[i] = (int32_t)(harness_rand(&rng) % 1000);
        same[3000] = -5;
        same[1234] = -5;
        same[4000] = 5000;
        same[2001] = 5000;
        index_case(ctx, CLPRIM_INT32, (unsigned char *)same, 0, n, "planted twice");
        uint8_t *bytes = harness_malloc(n);
        for (size_t i = 0; i < n; i++)
            bytes[i] = (uint8_t)(harness_rand(&rng) % 4);
        index_case(ctx, CLPRIM_UINT8, bytes, 0, n, "four values");
        free(same);
        free(bytes);
    }
}
END_TEST

/* NaN at the front, inside, everywhere; -0.0 and +0.0 as equals. */
START_TEST(index_nan_and_signed_zero)
{
    uint64_t rng = harness_rng(60);
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 16);
        const size_t n = 3001;
        float *x = harness_malloc(n * sizeof *x);
        harness_fill_random(CLPRIM_FLOAT, x, n, &rng);
        for (size_t i = 0; i < 700; i++)
            x[i] = NAN;
        index_case(ctx, CLPRIM_FLOAT, (unsigned char *)x, 0, n, "leading NaN");
        x[2500] = NAN;
        x[1500] = -INFINITY;
        x[1700] = INFINITY;
        index_case(ctx, CLPRIM_FLOAT, (unsigned char *)x, 0, n, "NaN inside, infinities");
        for (size_t i = 0; i < n; i++)
            x[i] = NAN;
        index_case(ctx, CLPRIM_FLOAT, (unsigned char *)x, 0, n, "all NaN");
        for (size_t i = 0; i < n; i++)
            x[i] = (i % 3) ? 1.0f : (i % 2 ? -0.0f : 0.0f);
        index_case(ctx, CLPRIM_FLOAT, (unsigned char *)x, 0, n, "signed zeros");
        free(x);
    }
}
END_TEST

START_TEST(index_bad_arguments)
{
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 100;
        cl_mem buf = harness_buffer(ctx, n * 4, NULL);
        unsigned char value[8];
        size_t index = 12345;
        memset(value, HARNESS_SENTINEL, sizeof value);
        struct {
            clprim_type t;
            clprim_op op;
            size_t offset, n;
            int null_value, null_index, null_src;
            clprim_status want;
            const char *needle;
        } rows[] = {
            {CLPRIM_INT32, CLPRIM_SUM, 0, n, 0, 0, 0, CLPRIM_INVALID_ARGUMENT, "CLPRIM_MIN or CLPRIM_MAX"},
            {CLPRIM_INT32, (clprim_op)7, 0, n, 0, 0, 0, CLPRIM_INVALID_ARGUMENT, "op is 7"},
            {CLPRIM_INT32, CLPRIM_MIN, 0, 0, 0, 0, 0, CLPRIM_INVALID_ARGUMENT, "n is 0"},
            {CLPRIM_INT32, CLPRIM_MAX, 0, n, 1, 1, 0, CLPRIM_INVALID_ARGUMENT, "both NULL"},
            {CLPRIM_INT32, CLPRIM_MAX, 1, n, 0, 0, 0, CLPRIM_BUFFER_TOO_SMALL, "src"},
            {CLPRIM_INT64, CLPRIM_MAX, 0, n, 0, 0, 0, CLPRIM_BUFFER_TOO_SMALL, "src"},
            {CLPRIM_INT32, CLPRIM_MAX, 0, n, 0, 0, 1, CLPRIM_INVALID_ARGUMENT, "src"},
            {(clprim_type)42, CLPRIM_MAX, 0, n, 0, 0, 0, CLPRIM_INVALID_ARGUMENT, "clprim_type"},
        };
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            clprim_status s = clprim_reduce_index(ctx, rows[r].t, rows[r].op, rows[r].null_src ? NULL : buf,
                                                  rows[r].offset, rows[r].n, rows[r].null_value ? NULL : value,
                                                  rows[r].null_index ? NULL : &index, 0, NULL);
            harness_assert_error(ctx, s, rows[r].want, rows[r].needle);
            ck_assert_msg(harness_all_sentinel(value, sizeof value) && index == 12345,
                          "row %zu: a failed call wrote an output", r);
        }
        /* One output alone is fine. */
        ck_assert_int_eq(clprim_reduce_index(ctx, CLPRIM_INT32, CLPRIM_MAX, buf, 0, n, NULL, &index, 0, NULL),
                         CLPRIM_SUCCESS);
        ck_assert_int_eq(clprim_reduce_index(ctx, CLPRIM_INT32, CLPRIM_MAX, buf, 0, n, value, NULL, 0, NULL),
                         CLPRIM_SUCCESS);
        clReleaseMemObject(buf);
    }
}
END_TEST

/* The device form: each output is checked like any output, and a failed call
 * writes neither; one output alone is fine. */
START_TEST(index_to_bad_arguments)
{
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 100;
        unsigned char init[n * 8];
        memset(init, HARNESS_SENTINEL, sizeof init);
        cl_mem src = harness_buffer(ctx, n * 8, NULL), out = harness_buffer(ctx, n * 8, init);
        cl_mem read_only = harness_buffer_flags(ctx, CL_MEM_READ_ONLY, 64, init);
        struct {
            cl_mem value;
            size_t value_offset;
            cl_mem index;
            size_t index_offset;
            clprim_op op;
            size_t n;
            clprim_status want;
            const char *needle;
        } rows[] = {
            {NULL, 0, NULL, 0, CLPRIM_MAX, n, CLPRIM_INVALID_ARGUMENT, "both NULL"},
            {out, 0, out, 0, CLPRIM_SUM, n, CLPRIM_INVALID_ARGUMENT, "CLPRIM_MIN or CLPRIM_MAX"},
            {out, 0, NULL, 0, CLPRIM_MIN, 0, CLPRIM_INVALID_ARGUMENT, "n is 0"},
            {out, n * 2, NULL, 0, CLPRIM_MAX, n, CLPRIM_BUFFER_TOO_SMALL, "value"},
            {NULL, 0, out, n, CLPRIM_MAX, n, CLPRIM_BUFFER_TOO_SMALL, "index"},
            {read_only, 0, NULL, 0, CLPRIM_MAX, n, CLPRIM_INVALID_ARGUMENT, "CL_MEM_READ_ONLY"},
            {NULL, 0, read_only, 0, CLPRIM_MIN, n, CLPRIM_INVALID_ARGUMENT, "CL_MEM_READ_ONLY"},
            {src, 3, NULL, 0, CLPRIM_MAX, n, CLPRIM_INVALID_ARGUMENT, "src"},
            {NULL, 0, src, 1, CLPRIM_MAX, n, CLPRIM_INVALID_ARGUMENT, "src"},
            {out, 2, out, 1, CLPRIM_MAX, n, CLPRIM_INVALID_ARGUMENT, "index"}, /* value's bytes 8-11 in index 1 */
        };
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            clprim_status s = clprim_reduce_index_to(ctx, CLPRIM_INT32, rows[r].op, src, 0, rows[r].n, rows[r].value,
                                                     rows[r].value_offset, rows[r].index, rows[r].index_offset, 0,
                                                     NULL, NULL);
            harness_assert_error(ctx, s, rows[r].want, rows[r].needle);
            unsigned char got[n * 8];
            harness_read(ctx, out, 0, sizeof got, got);
            ck_assert_msg(harness_all_sentinel(got, sizeof got), "row %zu: a failed call wrote an output", r);
        }
        /* One output alone, or both side by side in one buffer. */
        ck_assert_int_eq(clprim_reduce_index_to(ctx, CLPRIM_INT32, CLPRIM_MAX, src, 0, n, NULL, 0, out, 1, 0, NULL,
                                                NULL),
                         CLPRIM_SUCCESS);
        ck_assert_int_eq(clprim_reduce_index_to(ctx, CLPRIM_INT32, CLPRIM_MAX, src, 0, n, out, 0, NULL, 0, 0, NULL,
                                                NULL),
                         CLPRIM_SUCCESS);
        ck_assert_int_eq(clprim_reduce_index_to(ctx, CLPRIM_INT32, CLPRIM_MIN, src, 0, n, out, 0, out, 1, 0, NULL,
                                                NULL),
                         CLPRIM_SUCCESS);
        clFinish(clprim_queue(ctx));
        clReleaseMemObject(src);
        clReleaseMemObject(out);
        clReleaseMemObject(read_only);
    }
}
END_TEST

static Suite *reduce_index_suite(void)
{
    Suite *s = suite_create("reduce_index");
    TCase *tc = tcase_create("reduce_index");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, index_random_every_type, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, index_ties_go_to_the_first);
    tcase_add_test(tc, index_nan_and_signed_zero);
    tcase_add_test(tc, index_bad_arguments);
    tcase_add_test(tc, index_to_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(reduce_index_suite());
}
