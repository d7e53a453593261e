/* Every work-group shape that clprim_set_tuning accepts must build and give
 * the right results in every kernel file: one small call of each primitive per
 * shape, against the CPU references. A shape a driver's compiler cannot handle
 * must be refused by clprim_set_tuning, never abort the process at a launch.
 *
 * The default run covers the shapes around every edge of the kernels' code
 * (one work-item, two, the smallest tiles, odd item counts, the device
 * default) and a few wide work-groups in both forms, 512 and 1024 among them
 * (PoCL 3 miscompiles kernels of more than 256 work-items that return before
 * a barrier), and checks that a device refuses 16384 cleanly;
 * $CLPRIM_TEST_SHAPES=all (the long suite) adds every power-of-two
 * work-group size up to the device's largest in both forms, with item counts
 * 1..8 and the powers of two up to 1024. The arrays span a few tiles of the
 * shape, so every shape runs several work-groups. Each shape is a Check loop
 * iteration, so a crash names its shape and the others still run. */
#include "harness.h"
#include "reference.h"
#include "reference_compact_histogram.h"
#include "reference_image.h"
#include "reference_sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t wg, items;
    clprim_form form;
} shape;

static const shape edge_shapes[] = {
    {1, 1},   {1, 3},   {1, 1024}, {2, 1}, {2, 2},   {2, 5},  {4, 1}, {4, 3}, {8, 8}, {0, 0} /* the default */,
    {16, 2},  {64, 1, CLPRIM_FORM_ONE_SWEEP}, {512, 1}, {1024, 1, CLPRIM_FORM_ONE_SWEEP},
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
        sweep[sweep_count++] = (shape){wg, wg % 32 ? 2 : 1, CLPRIM_FORM_ONE_SWEEP};
        for (size_t k = 0; k < sizeof items / sizeof items[0] && sweep_count < MAX_SHAPES; k++)
            sweep[sweep_count++] = (shape){wg, items[k], CLPRIM_FORM_DEFAULT};
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

static void check_scan_reduce_compact_histogram(clprim_context *ctx, const char *what, uint64_t *rng, size_t n)
{
    int32_t *in = harness_malloc(n * sizeof *in), *out = harness_malloc(n * sizeof *out);
    int32_t *want = harness_malloc(n * sizeof *want);
    for (size_t i = 0; i < n; i++)
        in[i] = (int32_t)(harness_rand(rng) % 2001) - 1000;
    cl_mem src = harness_buffer(ctx, n * sizeof *in, in), dst = harness_buffer(ctx, n * sizeof *in, NULL);
    char msg[512];

    ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 1, src, 0, dst, 0, n, 0, NULL, NULL), CLPRIM_SUCCESS);
    harness_read(ctx, dst, 0, n * sizeof *out, out);
    CHECK(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 1, in, out, n, msg, sizeof msg) == n, "%s scan: %s", what,
          msg);

    int32_t got_max;
    ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_MAX, src, 0, n, &got_max, 0, NULL), CLPRIM_SUCCESS);
    CHECK(reference_check_reduce(CLPRIM_INT32, CLPRIM_MAX, in, n, &got_max, msg, sizeof msg), "%s reduce: %s", what,
          msg);

    int32_t limit = 250;
    clprim_predicate keep = {CLPRIM_KEEP_GT, &limit, NULL, 0, NULL};
    size_t kept = 0;
    ck_assert_int_eq(clprim_compact(ctx, CLPRIM_INT32, &keep, src, 0, dst, 0, n, &kept, NULL, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    size_t want_kept = reference_compact(CLPRIM_INT32, CLPRIM_KEEP_GT, &limit, NULL, NULL, in, n, want);
    harness_read(ctx, dst, 0, n * sizeof *out, out);
    CHECK(kept == want_kept && !memcmp(out, want, kept * sizeof *out), "%s compact: kept %zu, want %zu", what, kept,
          want_kept);

    enum { BINS = 37 };
    uint32_t counts[BINS], want_counts[BINS] = {0};
    cl_mem hist = harness_buffer(ctx, sizeof counts, NULL);
    ck_assert_int_eq(clprim_histogram(ctx, CLPRIM_INT32, src, 0, n, -900, 900, BINS, hist, 0, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    harness_read(ctx, hist, 0, sizeof counts, counts);
    reference_histogram(CLPRIM_INT32, in, 1, n, -900, 900, BINS, want_counts);
    CHECK(!memcmp(counts, want_counts, sizeof counts), "%s histogram differs", what);

    clReleaseMemObject(hist);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(in);
    free(out);
    free(want);
}

static void check_sort_and_boxes(clprim_context *ctx, const char *what, uint64_t *rng, size_t n)
{
    uint32_t *keys = harness_malloc(n * sizeof *keys), *order = harness_malloc(n * sizeof *order);
    for (size_t i = 0; i < n; i++)
        keys[i] = (uint32_t)harness_rand(rng);
    cl_mem keys_in = harness_buffer(ctx, n * 4, keys), keys_out = harness_buffer(ctx, n * 4, NULL);
    cl_mem values = harness_buffer(ctx, n * 4, NULL);
    ck_assert_int_eq(
        clprim_sort_pairs(ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, keys_in, 0, keys_out, 0, NULL, 0, values, 0, n, 0, NULL, NULL),
        CLPRIM_SUCCESS);
    harness_read(ctx, values, 0, n * 4, order);
    uint32_t *want = reference_sort_perm(CLPRIM_UINT32, keys, n);
    CHECK(!memcmp(order, want, n * 4), "%s sort: permutation differs", what);
    free(want);

    clprim_box_grid grid = {{0, 0, 0}, {1, 1, 1}, {5, 4, 3}};
    float *pos = harness_malloc(n * 3 * sizeof *pos);
    for (size_t i = 0; i < 3 * n; i++)
        pos[i] = (float)(harness_rand(rng) % 6000) / 1000.0f - 0.5f;
    enum { BOXES = 5 * 4 * 3 };
    uint32_t start[BOXES + 1], want_start[BOXES + 1];
    uint32_t *want_order = harness_malloc(n * sizeof *want_order);
    cl_mem positions = harness_buffer(ctx, n * 3 * sizeof *pos, pos), starts = harness_buffer(ctx, sizeof start, NULL);
    ck_assert_int_eq(clprim_box_sort(ctx, &grid, positions, 0, n, starts, 0, values, 0, NULL, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    harness_read(ctx, starts, 0, sizeof start, start);
    harness_read(ctx, values, 0, n * 4, order);
    reference_box_sort(&grid, pos, n, want_start, want_order);
    CHECK(!memcmp(start, want_start, sizeof start) && !memcmp(order, want_order, n * 4), "%s box sort differs", what);

    clReleaseMemObject(positions);
    clReleaseMemObject(starts);
    clReleaseMemObject(keys_in);
    clReleaseMemObject(keys_out);
    clReleaseMemObject(values);
    free(keys);
    free(order);
    free(pos);
    free(want_order);
}

/* x > 0 and i even: the C twin of the expression below. */
static int positive_at_even(clprim_type t, const void *x, uint64_t i)
{
    (void)t;
    return *(const int32_t *)x > 0 && (i & 1) == 0;
}

/* The calls with keys, edges, an index, a caller's operator and an expression. */
static void check_keyed_and_custom(clprim_context *ctx, const char *what, uint64_t *rng, size_t n)
{
    int32_t *keys = harness_malloc(n * sizeof *keys), *values = harness_malloc(n * sizeof *values);
    int32_t *out = harness_malloc(n * sizeof *out), *want = harness_malloc(n * sizeof *want);
    int32_t *keys_got = harness_malloc(n * sizeof *keys_got);
    harness_fill_key_runs(CLPRIM_INT32, keys, n, 7, rng);
    for (size_t i = 0; i < n; i++)
        values[i] = (int32_t)(harness_rand(rng) % 2001) - 1000;
    cl_mem keys_buf = harness_buffer(ctx, n * 4, keys), values_buf = harness_buffer(ctx, n * 4, values);
    cl_mem dst = harness_buffer(ctx, n * 4, NULL), keys_out = harness_buffer(ctx, n * 4, NULL);
    char msg[512];

    ck_assert_int_eq(clprim_scan_by_key(ctx, CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, NULL, 0, keys_buf, 0, values_buf,
                                        0, dst, 0, n, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    harness_read(ctx, dst, 0, n * 4, out);
    reference_scan_by_key(CLPRIM_INT32, keys, CLPRIM_INT32, CLPRIM_SUM, NULL, NULL, 0, values, want, n);
    CHECK(!memcmp(out, want, n * 4), "%s scan by key differs", what);

    size_t runs = 0;
    ck_assert_int_eq(clprim_reduce_by_key(ctx, CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, NULL, keys_buf, 0, values_buf,
                                          0, n, keys_out, 0, dst, 0, &runs, NULL, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    const size_t want_runs =
        reference_runs(CLPRIM_INT32, keys, CLPRIM_INT32, CLPRIM_SUM, values, n, keys_got, want, NULL, 1);
    CHECK(runs == want_runs, "%s reduce by key: %zu runs, want %zu", what, runs, want_runs);
    harness_read(ctx, dst, 0, runs * 4, out);
    CHECK(!memcmp(out, want, runs * 4), "%s reduce by key: sums differ", what);
    harness_read(ctx, keys_out, 0, runs * 4, out);
    CHECK(!memcmp(out, keys_got, runs * 4), "%s reduce by key: keys differ", what);

    int32_t best;
    size_t at = 0, want_at = 0;
    ck_assert_int_eq(clprim_reduce_index(ctx, CLPRIM_INT32, CLPRIM_MAX, values_buf, 0, n, &best, &at, 0, NULL),
                     CLPRIM_SUCCESS);
    for (size_t i = 1; i < n; i++)
        want_at = values[i] > values[want_at] ? i : want_at;
    CHECK(at == want_at && best == values[want_at], "%s reduce index: %zu, want %zu", what, at, want_at);

    const int32_t zero = 0;
    const clprim_operator add = {"a + b", &zero};
    ck_assert_int_eq(clprim_scan_op(ctx, CLPRIM_INT32, &add, 1, values_buf, 0, dst, 0, n, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    harness_read(ctx, dst, 0, n * 4, out);
    CHECK(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 1, values, out, n, msg, sizeof msg) == n,
          "%s scan with an operator: %s", what, msg);

    clprim_predicate keep = {CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, "x > 0 && (i & 1) == 0"};
    size_t kept = 0;
    ck_assert_int_eq(clprim_compact(ctx, CLPRIM_INT32, &keep, values_buf, 0, dst, 0, n, &kept, NULL, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    size_t want_kept = reference_compact(CLPRIM_INT32, CLPRIM_KEEP_EXPRESSION, NULL, NULL, positive_at_even, values, n,
                                         want);
    harness_read(ctx, dst, 0, kept * 4, out);
    CHECK(kept == want_kept && !memcmp(out, want, kept * 4), "%s expression compaction: kept %zu, want %zu", what, kept,
          want_kept);

    enum { BINS = 5 };
    const int32_t edges[BINS + 1] = {-1000, -400, -3, 0, 250, 999};
    uint32_t counts[BINS], want_counts[BINS] = {0};
    cl_mem edges_buf = harness_buffer(ctx, sizeof edges, edges), counts_buf = harness_buffer(ctx, sizeof counts, NULL);
    ck_assert_int_eq(clprim_histogram_range(ctx, CLPRIM_INT32, values_buf, 0, n, edges_buf, 0, BINS, counts_buf, 0, 0,
                                            0, NULL, NULL),
                     CLPRIM_SUCCESS);
    reference_histogram_range(CLPRIM_INT32, values, n, edges, BINS, want_counts);
    harness_read(ctx, counts_buf, 0, sizeof counts, counts);
    CHECK(!memcmp(counts, want_counts, sizeof counts), "%s histogram over edges differs", what);

    clReleaseMemObject(edges_buf);
    clReleaseMemObject(counts_buf);
    clReleaseMemObject(keys_buf);
    clReleaseMemObject(values_buf);
    clReleaseMemObject(dst);
    clReleaseMemObject(keys_out);
    free(keys);
    free(values);
    free(out);
    free(want);
    free(keys_got);
}

static void check_images(clprim_context *ctx, const char *what, uint64_t *rng)
{
    enum { W = 37, H = 11, BPP = 3, BYTES = W * H * BPP };
    uint8_t pixels[BYTES], got[BYTES], want[BYTES];
    for (size_t i = 0; i < BYTES; i++)
        pixels[i] = (uint8_t)harness_rand(rng);
    cl_mem src_buf = harness_buffer(ctx, BYTES, pixels), dst_buf = harness_buffer(ctx, BYTES, NULL);
    clprim_image src = {src_buf, 0, W, H, 0, CLPRIM_RGB8}, dst = {dst_buf, 0, W, H, 0, CLPRIM_RGB8};

    ck_assert_int_eq(clprim_threshold_red(ctx, &src, &dst, 0.7f, CLPRIM_THRESHOLD_YELLOW, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    harness_read(ctx, dst_buf, 0, BYTES, got);
    reference_threshold_red(pixels, W * BPP, want, W * BPP, W, H, BPP, 0.7f, CLPRIM_THRESHOLD_YELLOW);
    CHECK(!memcmp(got, want, BYTES), "%s red threshold differs", what);

    unsigned level = 0;
    ck_assert_int_eq(clprim_threshold_otsu(ctx, &src, &dst, &level, 0, NULL, NULL), CLPRIM_SUCCESS);
    uint32_t hist[256];
    reference_image_histogram(pixels, W * BPP, W, H, BPP, CLPRIM_CHANNEL_GREY, 256, hist);
    CHECK(level == reference_otsu(hist, 256), "%s Otsu level %u, want %u", what, level, reference_otsu(hist, 256));
    harness_read(ctx, dst_buf, 0, BYTES, got);
    reference_threshold_grey(pixels, W * BPP, BPP, want, W * BPP, BPP, W, H, level);
    CHECK(!memcmp(got, want, BYTES), "%s Otsu threshold differs", what);

    enum { K = 4 };
    float centres[K * 3], want_centres[K * 3];
    ck_assert_int_eq(clprim_kmeans_seed(pixels, W, H, 0, CLPRIM_RGB8, K, 7, centres), CLPRIM_SUCCESS);
    memcpy(want_centres, centres, sizeof centres);
    unsigned char labels[W * H];
    clprim_kmeans_info info, want_info;
    ck_assert_int_eq(clprim_kmeans(ctx, &src, K, 20, centres, NULL, 0, &dst, &info, 0, NULL), CLPRIM_SUCCESS);
    reference_image_view view = {pixels, 0, W, H, W * BPP, CLPRIM_RGB8};
    memcpy(want, pixels, BYTES);
    reference_kmeans(&view, K, 20, want_centres, labels, want, &want_info);
    harness_read(ctx, dst_buf, 0, BYTES, got);
    CHECK(!memcmp(centres, want_centres, sizeof centres) && !memcmp(got, want, BYTES), "%s k-means differs", what);

    clReleaseMemObject(src_buf);
    clReleaseMemObject(dst_buf);
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
        /* A few tiles of the sort's (twice the tuning's items), at least 1000 elements. */
        const size_t tile = ctx->tuning.work_group_size * ctx->tuning.items_per_thread * 2;
        const size_t n = 3 * tile + 7 > 1000 ? 3 * tile + 7 : 1000;
        check_scan_reduce_compact_histogram(ctx, what, &rng, n);
        check_sort_and_boxes(ctx, what, &rng, n);
        check_keyed_and_custom(ctx, what, &rng, n);
        check_images(ctx, what, &rng);
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
