/* Every work-group shape that clprim_set_tuning accepts must build and give
 * the right results in every kernel file: one small call of each primitive per
 * shape, against the CPU references. A shape a driver's compiler cannot handle
 * must be refused by clprim_set_tuning, never abort the process at a launch.
 *
 * The default run covers the shapes around every edge of the kernels' code
 * (one work-item, two, the smallest tiles, odd item counts, the device
 * default); $CLPRIM_TEST_SHAPES=all (the long suite) sweeps every power-of-two
 * work-group size with item counts 1..8 and the powers of two up to 1024. Each
 * shape is a Check loop iteration, so a crash names its shape and the others
 * still run. */
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
} shape;

static const shape edge_shapes[] = {
    {1, 1}, {1, 3}, {1, 1024}, {2, 1}, {2, 2}, {2, 5}, {4, 1}, {4, 3}, {8, 8}, {0, 0} /* the default */,
};

#define MAX_SHAPES 256
static shape sweep[MAX_SHAPES];
static size_t sweep_count;

/* The shapes under test: the edge list, or with $CLPRIM_TEST_SHAPES=all every
 * candidate up to the widest work-group the first device allows. Shapes a
 * device refuses are skipped by the test itself, after checking the refusal. */
static void build_sweep(void)
{
    const char *which = getenv("CLPRIM_TEST_SHAPES");
    if (!which || strcmp(which, "all") != 0) {
        sweep_count = sizeof edge_shapes / sizeof edge_shapes[0];
        memcpy(sweep, edge_shapes, sizeof edge_shapes);
        return;
    }
    static const size_t items[] = {1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 256, 512, 1024};
    for (size_t wg = 1; wg <= 1024; wg *= 2)
        for (size_t k = 0; k < sizeof items / sizeof items[0] && sweep_count < MAX_SHAPES; k++)
            sweep[sweep_count++] = (shape){wg, items[k]};
}

/* Sets the shape (a zero shape keeps the default); returns 0 when the device
 * refuses it, after checking that the refusal is a clean status with a message. */
static int use_shape(clprim_context *ctx, shape sh)
{
    if (!sh.wg)
        return 1;
    clprim_tuning t = {sh.wg, sh.items, 3};
    clprim_status s = clprim_set_tuning(ctx, &t);
    if (s == CLPRIM_SUCCESS)
        return 1;
    ck_assert_msg(s == CLPRIM_INVALID_ARGUMENT, "wg=%zu items=%zu: %s", sh.wg, sh.items, clprim_status_name(s));
    ck_assert_msg(*clprim_last_error(ctx), "wg=%zu items=%zu refused without a message", sh.wg, sh.items);
    return 0;
}

#define N 1000

static void check_scan_reduce_compact_histogram(clprim_context *ctx, const char *what, uint64_t *rng)
{
    int32_t *in = harness_malloc(N * sizeof *in), *out = harness_malloc(N * sizeof *out);
    int32_t *want = harness_malloc(N * sizeof *want);
    for (size_t i = 0; i < N; i++)
        in[i] = (int32_t)(harness_rand(rng) % 2001) - 1000;
    cl_mem src = harness_buffer(ctx, N * sizeof *in, in), dst = harness_buffer(ctx, N * sizeof *in, NULL);
    char msg[512];

    ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 1, src, 0, dst, 0, N, 0, NULL, NULL), CLPRIM_SUCCESS);
    harness_read(ctx, dst, 0, N * sizeof *out, out);
    CHECK(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 1, in, out, N, msg, sizeof msg) == N, "%s scan: %s", what,
          msg);

    int32_t got_max;
    ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_MAX, src, 0, N, &got_max, 0, NULL), CLPRIM_SUCCESS);
    CHECK(reference_check_reduce(CLPRIM_INT32, CLPRIM_MAX, in, N, &got_max, msg, sizeof msg), "%s reduce: %s", what,
          msg);

    int32_t limit = 250;
    clprim_predicate keep = {CLPRIM_KEEP_GT, &limit, NULL, 0, NULL};
    size_t kept = 0;
    ck_assert_int_eq(clprim_compact(ctx, CLPRIM_INT32, &keep, src, 0, dst, 0, N, &kept, NULL, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    size_t want_kept = reference_compact(CLPRIM_INT32, CLPRIM_KEEP_GT, &limit, NULL, NULL, in, N, want);
    harness_read(ctx, dst, 0, N * sizeof *out, out);
    CHECK(kept == want_kept && !memcmp(out, want, kept * sizeof *out), "%s compact: kept %zu, want %zu", what, kept,
          want_kept);

    enum { BINS = 37 };
    uint32_t counts[BINS], want_counts[BINS] = {0};
    cl_mem hist = harness_buffer(ctx, sizeof counts, NULL);
    ck_assert_int_eq(clprim_histogram(ctx, CLPRIM_INT32, src, 0, N, -900, 900, BINS, hist, 0, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    harness_read(ctx, hist, 0, sizeof counts, counts);
    reference_histogram(CLPRIM_INT32, in, 1, N, -900, 900, BINS, want_counts);
    CHECK(!memcmp(counts, want_counts, sizeof counts), "%s histogram differs", what);

    clReleaseMemObject(hist);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(in);
    free(out);
    free(want);
}

static void check_sort_and_boxes(clprim_context *ctx, const char *what, uint64_t *rng)
{
    uint32_t *keys = harness_malloc(N * sizeof *keys), *order = harness_malloc(N * sizeof *order);
    for (size_t i = 0; i < N; i++)
        keys[i] = (uint32_t)harness_rand(rng);
    cl_mem keys_in = harness_buffer(ctx, N * 4, keys), keys_out = harness_buffer(ctx, N * 4, NULL);
    cl_mem values = harness_buffer(ctx, N * 4, NULL);
    ck_assert_int_eq(
        clprim_sort_pairs(ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, keys_in, 0, keys_out, 0, NULL, 0, values, 0, N, 0, NULL, NULL),
        CLPRIM_SUCCESS);
    harness_read(ctx, values, 0, N * 4, order);
    uint32_t *want = reference_sort_perm(CLPRIM_UINT32, keys, N);
    CHECK(!memcmp(order, want, N * 4), "%s sort: permutation differs", what);
    free(want);

    clprim_box_grid grid = {{0, 0, 0}, {1, 1, 1}, {5, 4, 3}};
    float *pos = harness_malloc(N * 3 * sizeof *pos);
    for (size_t i = 0; i < 3 * N; i++)
        pos[i] = (float)(harness_rand(rng) % 6000) / 1000.0f - 0.5f;
    enum { BOXES = 5 * 4 * 3 };
    uint32_t start[BOXES + 1], want_start[BOXES + 1];
    uint32_t *want_order = harness_malloc(N * sizeof *want_order);
    cl_mem positions = harness_buffer(ctx, N * 3 * sizeof *pos, pos), starts = harness_buffer(ctx, sizeof start, NULL);
    ck_assert_int_eq(clprim_box_sort(ctx, &grid, positions, 0, N, starts, 0, values, 0, NULL, 0, 0, NULL, NULL),
                     CLPRIM_SUCCESS);
    harness_read(ctx, starts, 0, sizeof start, start);
    harness_read(ctx, values, 0, N * 4, order);
    reference_box_sort(&grid, pos, N, want_start, want_order);
    CHECK(!memcmp(start, want_start, sizeof start) && !memcmp(order, want_order, N * 4), "%s box sort differs", what);

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
        check_scan_reduce_compact_histogram(ctx, what, &rng);
        check_sort_and_boxes(ctx, what, &rng);
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
