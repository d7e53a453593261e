/* Every work-group shape that clprim_set_tuning accepts must build and give
 * the right results in every kernel file: every workload of `clprim bench`
 * (every primitive) per shape, against its C loop. A shape a driver's compiler cannot handle
 * must be refused by clprim_set_tuning, never abort the process at a launch.
 *
 * The default run covers the shapes around every edge of the kernels' code
 * (one work-item, two, the smallest tiles, odd item counts, the device
 * default) and a few wide work-groups in both forms, 512 and 1024 among them
 * (PoCL 3 miscompiles kernels of more than 256 work-items that return before
 * a barrier), and checks that a device refuses 16384 cleanly. Every workload
 * runs at one work-item of one item and at the default; at the other shapes,
 * each at every other one, neighbours taking turns (512 and 1024 among them),
 * to keep the run short;
 * $CLPRIM_TEST_SHAPES=all (the long suite) adds every power-of-two
 * work-group size up to the device's largest in both forms, with item counts
 * 1..8 and the powers of two up to 1024. The arrays span a few tiles of the
 * shape, so every shape runs several work-groups. Each shape is a Check loop
 * iteration, so a crash names its shape and the others still run. */
#include "harness.h"
#include "reference.h"
#include "reference_compact_histogram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t wg, items;
    clprim_form form;
    int every; /* every workload here; else each other one, taking turns with the next shape */
} shape;

static const shape edge_shapes[] = {
    {1, 1, 0, 1}, {1, 3},  {1, 1024}, {2, 1}, {2, 2}, {2, 5}, {4, 1}, {4, 3}, {8, 8}, {0, 0, 0, 1} /* the default */,
    {16, 2},      {64, 1, CLPRIM_FORM_ONE_SWEEP},      {512, 1},          {1024, 1, CLPRIM_FORM_ONE_SWEEP},
    {16384, 1} /* beyond every device's largest: refused */,
};

#define MAX_SHAPES 512
static shape sweep[MAX_SHAPES];
static size_t sweep_count;

/* Work-groups are swept up to this size, beyond every device's largest (PoCL
 * allows 4096): each device runs the sizes it allows and must refuse the rest
 * cleanly. (The devices cannot be asked here: a context made before Check forks
 * its tests would hang PoCL in the child.) */
#define WIDEST_SWEPT 16384

/* The shapes under test: the edge list, and with $CLPRIM_TEST_SHAPES=all every
 * power-of-two work-group in the one-sweep form and with every item count.
 * Shapes a device refuses are skipped by the test itself, after checking the
 * refusal. */
static void build_sweep(void)
{
    sweep_count = sizeof edge_shapes / sizeof edge_shapes[0];
    memcpy(sweep, edge_shapes, sizeof edge_shapes);
    const char *which = getenv("CLPRIM_TEST_SHAPES");
    if (!which || strcmp(which, "all") != 0)
        return;
    static const size_t items[] = {1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 256, 512, 1024};
    for (size_t wg = 1; wg <= WIDEST_SWEPT; wg *= 2) {
        sweep[sweep_count++] = (shape){wg, wg % 32 ? 2 : 1, CLPRIM_FORM_ONE_SWEEP, 1};
        for (size_t k = 0; k < sizeof items / sizeof items[0] && sweep_count < MAX_SHAPES; k++)
            sweep[sweep_count++] = (shape){wg, items[k], CLPRIM_FORM_DEFAULT, 1};
    }
}

/* Sets the shape (a zero shape keeps the default); returns 0 when the device
 * refuses it, after checking that the refusal is a clean status with a message. */
static int use_shape(clprim_context *ctx, shape sh)
{
    if (!sh.wg)
        return 1;
    clprim_tuning t = {sh.wg, sh.items, 3, sh.form};
    clprim_status s = clprim_set_tuning(ctx, &t);
    if (s == CLPRIM_SUCCESS)
        return 1;
    ck_assert_msg(s == CLPRIM_INVALID_ARGUMENT, "wg=%zu items=%zu: %s", sh.wg, sh.items, clprim_status_name(s));
    ck_assert_msg(*clprim_last_error(ctx), "wg=%zu items=%zu refused without a message", sh.wg, sh.items);
    return 0;
}

/* Every workload of `clprim bench` (so every primitive: test_cache checks
 * that each has one), against its C loop, in one type a shape (where the
 * workload takes it): the type changes from shape to shape, and each shape
 * compiles one program a kernel file and type. */
static void check_every_workload(clprim_context *ctx, const char *what, size_t shape_index, size_t n)
{
    const workload_kind *const *lists[] = {workload_kinds, workload_photo_kinds};
    const size_t turn = shape_index;
    size_t k = 0;
    for (size_t l = 0; l < 2; l++)
        for (const workload_kind *const *kind = lists[l]; *kind; kind++, k++) {
            if (!sweep[shape_index].every && (k + shape_index) % 2)
                continue;
            char why[512];
            const clprim_type t = harness_workload_type(ctx, *kind, turn);
            CHECK(harness_run_workload(ctx, *kind, t, n, why, sizeof why), "%s: %s", what, why);
        }
}

/* x > 0 and i even: the C twin of the expression below. */
static int positive_at_even(clprim_type t, const void *x, uint64_t i)
{
    (void)t;
    return *(const int32_t *)x > 0 && (i & 1) == 0;
}

/* What no workload runs: a compaction by an expression. */
static void check_expression(clprim_context *ctx, const char *what, uint64_t *rng, size_t n)
{
    int32_t *values = harness_malloc(n * sizeof *values);
    int32_t *out = harness_malloc(n * sizeof *out), *want = harness_malloc(n * sizeof *want);
    for (size_t i = 0; i < n; i++)
        values[i] = (int32_t)(harness_rand(rng) % 2001) - 1000;
    cl_mem values_buf = harness_buffer(ctx, n * 4, values), dst = harness_buffer(ctx, n * 4, NULL);
    clprim_predicate keep = {CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, "x > 0 && (i & 1) == 0"};
    size_t kept = 0;
    ck_assert_int_eq(clprim_compact(ctx, CLPRIM_INT32, &keep, values_buf, 0, dst, 0, n, &kept, NULL, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    size_t want_kept = reference_compact(CLPRIM_INT32, CLPRIM_KEEP_EXPRESSION, NULL, NULL, positive_at_even, values, n,
                                         want);
    harness_read(ctx, dst, 0, kept * 4, out);
    CHECK(kept == want_kept && !memcmp(out, want, kept * 4), "%s expression compaction: kept %zu, want %zu", what, kept,
          want_kept);
    clReleaseMemObject(values_buf);
    clReleaseMemObject(dst);
    free(values);
    free(out);
    free(want);
}

START_TEST(every_primitive_at_shape)
{
    const shape sh = sweep[_i];
    uint64_t rng = harness_rng((unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!use_shape(ctx, sh))
            continue;
        char what[96];
        snprintf(what, sizeof what, "%s at %s", harness_device_spec(dev_), harness_tuning_text(ctx));
        /* A few tiles of the sort's (up to three times the tuning's items), at least 1000 elements. */
        const size_t tile = ctx->tuning.work_group_size * ctx->tuning.items_per_thread * 3;
        const size_t n = 3 * tile + 7 > 1000 ? 3 * tile + 7 : 1000;
        check_every_workload(ctx, what, (size_t)_i, n);
        check_expression(ctx, what, &rng, n);
    }
}
END_TEST

static Suite *shapes_suite(void)
{
    build_sweep();
    Suite *s = suite_create("shapes");
    TCase *tc = tcase_create("every_primitive");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, every_primitive_at_shape, 0, (int)sweep_count);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(shapes_suite());
}
