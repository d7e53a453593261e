/* clprim_scan_by_key against a C segmented scan: every value type and
 * built-in operator, every key type, inclusive and exclusive, segments of one,
 * of about 7 and 100, and one of n, spanning tiles and work-groups under a
 * small shape, both forms, callers' operators (one not commutative), in place, offsets,
 * and every bad argument leaving dst untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

static const clprim_type key_types[] = {CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_INT64, CLPRIM_UINT64};

/* One call: n keys (runs of about mean) and values at offsets, compared with C,
 * the destination's elements around the range untouched. */
static void sbk_case(clprim_context *ctx, clprim_type kt, clprim_type t, clprim_op op, const clprim_operator *custom,
                     reference_fold fold, int exclusive, size_t n, size_t mean, int in_place, uint64_t *rng)
{
    const size_t ks = reference_type_size(kt), es = reference_type_size(t), off = 2, len = n + off + 3;
    unsigned char *keys = harness_malloc(len * ks), *vals = harness_malloc(len * es);
    unsigned char *want = harness_malloc(len * es), *got = harness_malloc(len * es);
    harness_fill_key_runs(kt, keys + off * ks, n, mean, rng);
    harness_fill_exact_sums(t, vals, len, rng);
    if (fold == reference_mul_u32) /* odd factors keep products from collapsing to 0 */
        for (size_t i = 0; i < len; i++)
            ((uint32_t *)vals)[i] |= 1u;
    cl_mem kbuf = harness_buffer(ctx, len * ks, keys), vbuf = harness_buffer(ctx, len * es, vals);
    cl_mem dbuf = in_place ? vbuf : harness_buffer(ctx, len * es, NULL);
    const size_t doff = in_place ? off : 1;
    clprim_status s = clprim_scan_by_key(ctx, kt, t, op, custom, exclusive, kbuf, off, vbuf, off, dbuf, doff, n, 0,
                                         NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "scan_by_key: %s", clprim_last_error(ctx));
    harness_read(ctx, dbuf, 0, len * es, got);
    if (in_place)
        memcpy(want, vals, len * es);
    else
        memset(want, HARNESS_SENTINEL, len * es);
    reference_scan_by_key(kt, keys + off * ks, t, op, fold, custom ? custom->identity : NULL, exclusive, vals + off * es,
                  want + doff * es, n);
    for (size_t i = 0; i < len; i++)
        CHECK(memcmp(got + i * es, want + i * es, es) == 0,
              "scan_by_key keys %s values %s %s%s %s n=%zu runs of ~%zu%s (%s): element %zu differs from C",
              reference_type_name(kt), reference_type_name(t), custom ? custom->combine : reference_op_name(op),
              custom ? " (custom)" : "", exclusive ? "exclusive" : "inclusive", n, mean, in_place ? " in place" : "",
              harness_tuning_text(ctx), i);
    if (!in_place)
        clReleaseMemObject(dbuf);
    clReleaseMemObject(kbuf);
    clReleaseMemObject(vbuf);
    free(keys);
    free(vals);
    free(want);
    free(got);
}

START_TEST(scan_by_key_builtins)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(70 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (t == CLPRIM_DOUBLE && !ctx->has_fp64)
            continue;
        for (int shape = 0; shape < 2; shape++) {
            if (shape)
                harness_set_tuning(ctx, 4, 2, 16);
            const clprim_tuning tun = clprim_get_tuning(ctx);
            const size_t most = tun.work_group_size * tun.items_per_thread * tun.groups;
            const size_t sizes[] = {1, 2, 9, most + 1, 3 * most + 5, 50001};
            const size_t means[] = {1, 7, 100, 0};
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
                    /* Both forms on both shapes. */
                    harness_set_form(ctx, (k + (size_t)op + (size_t)_i) % 2 ? CLPRIM_FORM_ONE_SWEEP
                                                                          : CLPRIM_FORM_MULTI_PASS);
                    /* A key type per operator: one program per operator and shape. */
                    const clprim_type kt = key_types[((size_t)_i + (size_t)op) % 4];
                    sbk_case(ctx, kt, t, (clprim_op)op, NULL, NULL, (int)(k + (size_t)op) % 2, sizes[k],
                             means[(k + (size_t)op) % 4], 0, &rng);
                }
        }
    }
}
END_TEST

START_TEST(scan_by_key_custom_and_in_place)
{
    uint64_t rng = harness_rng(80);
    const uint32_t one = 1;
    const uint64_t affine_identity = (uint64_t)1 << 32;
    const clprim_operator mul = {"a * b", &one};
    const clprim_operator affine = {REFERENCE_AFFINE_U64, &affine_identity};
    FOR_EACH_DEVICE(ctx)
    {
        for (int shape = 0; shape < 2; shape++) {
            if (shape)
                harness_set_tuning(ctx, 4, 2, 16);
            for (int exclusive = 0; exclusive < 2; exclusive++) {
                harness_set_form(ctx, (exclusive + shape) % 2 ? CLPRIM_FORM_ONE_SWEEP : CLPRIM_FORM_MULTI_PASS);
                sbk_case(ctx, CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_SUM, &mul, reference_mul_u32, exclusive, 20011, 50, 0, &rng);
                sbk_case(ctx, CLPRIM_UINT64, CLPRIM_UINT64, CLPRIM_SUM, &affine, reference_affine_u64, exclusive, 20011, 300, 0,
                         &rng);
                sbk_case(ctx, CLPRIM_INT64, CLPRIM_FLOAT, CLPRIM_MAX, NULL, NULL, exclusive, 7001, 20, 1, &rng);
            }
        }
    }
}
END_TEST

START_TEST(scan_by_key_bad_inputs)
{
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 500;
        cl_mem keys = harness_buffer(ctx, n * 8, NULL), vals = harness_buffer(ctx, n * 8, NULL);
        cl_mem dst = harness_buffer(ctx, n * 8, NULL);
        const int32_t zero = 0;
        const clprim_operator refused = {"a = b", &zero}, no_identity = {"a + b", NULL};
        struct {
            clprim_type kt, vt;
            clprim_op op;
            const clprim_operator *custom;
            cl_mem k, v, d;
            size_t koff, doff, n;
            clprim_status want;
            const char *needle;
        } rows[] = {
            {CLPRIM_FLOAT, CLPRIM_INT32, CLPRIM_SUM, NULL, keys, vals, dst, 0, 0, n, CLPRIM_INVALID_ARGUMENT, "key_type"},
            {CLPRIM_UINT8, CLPRIM_INT32, CLPRIM_SUM, NULL, keys, vals, dst, 0, 0, n, CLPRIM_INVALID_ARGUMENT, "key_type"},
            {CLPRIM_INT32, (clprim_type)77, CLPRIM_SUM, NULL, keys, vals, dst, 0, 0, n, CLPRIM_INVALID_ARGUMENT,
             "clprim_type"},
            {CLPRIM_INT32, CLPRIM_INT32, (clprim_op)9, NULL, keys, vals, dst, 0, 0, n, CLPRIM_INVALID_ARGUMENT, "op"},
            {CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, &refused, keys, vals, dst, 0, 0, n, CLPRIM_INVALID_ARGUMENT,
             "op->combine"},
            {CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, &no_identity, keys, vals, dst, 0, 0, n, CLPRIM_INVALID_ARGUMENT,
             "op->identity"},
            {CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, NULL, NULL, vals, dst, 0, 0, n, CLPRIM_INVALID_ARGUMENT, "keys"},
            {CLPRIM_INT64, CLPRIM_INT32, CLPRIM_SUM, NULL, keys, vals, dst, 1, 0, n, CLPRIM_BUFFER_TOO_SMALL, "keys"},
            {CLPRIM_INT32, CLPRIM_INT64, CLPRIM_SUM, NULL, keys, vals, dst, 0, 1, n, CLPRIM_BUFFER_TOO_SMALL, "dst"},
            {CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, NULL, dst, vals, dst, 0, 0, n, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, NULL, keys, vals, vals, 0, 1, n - 1, CLPRIM_INVALID_ARGUMENT,
             "overlap"},
            {CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, &refused, keys, vals, dst, 0, 0, 0, CLPRIM_INVALID_ARGUMENT,
             "op->combine"},
        };
        unsigned char *got = harness_malloc(n * 8);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            cl_event event = NULL;
            clprim_status s = clprim_scan_by_key(ctx, rows[r].kt, rows[r].vt, rows[r].op, rows[r].custom, 0,
                                                 rows[r].k, rows[r].koff, rows[r].v, 0, rows[r].d, rows[r].doff,
                                                 rows[r].n, 0, NULL, &event);
            harness_assert_error(ctx, s, rows[r].want, rows[r].needle);
            ck_assert_msg(event == NULL, "row %zu: a failed call returned an event", r);
            const cl_mem outs[] = {dst, vals, keys};
            for (size_t b = 0; b < 3; b++) {
                harness_read(ctx, outs[b], 0, n * 8, got);
                ck_assert_msg(harness_all_sentinel(got, n * 8), "row %zu: a failed call wrote a buffer", r);
            }
        }
        /* n == 0 succeeds and writes nothing. */
        ck_assert_int_eq(clprim_scan_by_key(ctx, CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, NULL, 0, keys, 0, vals, 0,
                                            dst, 0, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, dst, 0, n * 8, got);
        ck_assert(harness_all_sentinel(got, n * 8));
        free(got);
        clReleaseMemObject(keys);
        clReleaseMemObject(vals);
        clReleaseMemObject(dst);
    }
}
END_TEST

static Suite *scan_by_key_suite(void)
{
    Suite *s = suite_create("scan_by_key");
    TCase *tc = tcase_create("scan_by_key");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, scan_by_key_builtins, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, scan_by_key_custom_and_in_place);
    tcase_add_test(tc, scan_by_key_bad_inputs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(scan_by_key_suite());
}
