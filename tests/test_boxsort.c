/* clprim_box_sort against a CPU counting sort (count per box, exclusive scan,
 * stable placement): uniform and clustered particles, particles outside the
 * grid and NaN coordinates, one box, box counts whose ids need an odd and an
 * even number of radix passes, millions of boxes, small tunings, offsets, and
 * every bad argument (status, message, outputs untouched). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference_sort.h"

/* ck_assert_msg only on failure: every ck_assert call is a message to the parent
 * process in fork mode, too slow for one per element of a large output. */
static float uniform(uint64_t *rng, float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(harness_rand(rng) >> 11) * (1.0 / 9007199254740992.0));
}

/* ---- One box sort, checked ---- */

typedef enum { UNIFORM, CLUSTERED, OUTSIDE } configuration;

static float *make_positions(const clprim_box_grid *g, configuration c, size_t n, uint64_t *rng)
{
    float *pos = harness_malloc((n ? n : 1) * 12);
    float lo[3], hi[3], centre[4][3];
    for (int a = 0; a < 3; a++) {
        lo[a] = g->origin[a];
        hi[a] = g->origin[a] + g->box_size[a] * (float)g->dims[a];
        for (int k = 0; k < 4; k++)
            centre[k][a] = uniform(rng, lo[a], hi[a]);
    }
    for (size_t i = 0; i < n; i++) {
        int k = (int)(harness_rand(rng) % 4);
        for (int a = 0; a < 3; a++) {
            float *p = &pos[3 * i + a];
            if (c == UNIFORM)
                *p = uniform(rng, lo[a], hi[a]);
            else if (c == CLUSTERED) /* four tight clusters: a few boxes hold everything */
                *p = centre[k][a] + uniform(rng, -1.5f, 1.5f) * g->box_size[a];
            else /* a third beyond the grid on each side, exact box edges, and NaN */
                switch (harness_rand(rng) % 8) {
                case 0: *p = lo[a] - uniform(rng, 0, 100); break;
                case 1: *p = hi[a] + uniform(rng, 0, 100); break;
                case 2: *p = lo[a] + g->box_size[a] * (float)(harness_rand(rng) % (g->dims[a] + 1)); break;
                case 3: *p = harness_rand(rng) % 16 ? hi[a] : NAN; break;
                default: *p = uniform(rng, lo[a], hi[a]);
                }
        }
    }
    return pos;
}

static void box_case(clprim_context *ctx, const clprim_box_grid *g, const float *pos, size_t n, size_t offset,
                     int with_sorted, const char *what)
{
    const size_t boxes = g->dims[0] * g->dims[1] * g->dims[2];
    const size_t before = offset, after = 2;
    float *padded = harness_malloc((before + n + after) * 12);
    for (size_t i = 0; i < (before + n + after) * 3; i++)
        padded[i] = (float)i;
    memcpy(padded + before * 3, pos, n * 12);
    cl_mem pbuf = harness_buffer(ctx, (before + n + after) * 12, padded);
    cl_mem sbuf = harness_buffer(ctx, (before + boxes + 1 + after) * 4, NULL);
    cl_mem obuf = harness_buffer(ctx, (before + n + after) * 4, NULL);
    cl_mem spbuf = with_sorted ? harness_buffer(ctx, (before + n + after) * 12, NULL) : NULL;

    cl_event done = NULL;
    clprim_status s =
        clprim_box_sort(ctx, g, pbuf, before, n, sbuf, before, obuf, before, spbuf, before, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: box sort of %zu particles in %zu boxes (%s): %s: %s", what, n, boxes,
                  harness_tuning_text(ctx), clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_ptr_nonnull(done);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);

    uint32_t *want_start = harness_malloc((boxes + 1) * 4), *want_order = harness_malloc((n ? n : 1) * 4);
    reference_box_sort(g, pos, n, want_start, want_order);
    uint32_t *start = harness_malloc((before + boxes + 1 + after) * 4);
    uint32_t *order = harness_malloc((before + n + after) * 4);
    harness_read(ctx, sbuf, 0, (before + boxes + 1 + after) * 4, start);
    harness_read(ctx, obuf, 0, (before + n + after) * 4, order);
    for (size_t b = 0; b <= boxes; b++)
        CHECK(start[before + b] == want_start[b], "%s: box_start[%zu] = %u, want %u (n=%zu, %zu boxes, %s)",
                      what, b, start[before + b], want_start[b], n, boxes, harness_tuning_text(ctx));
    for (size_t j = 0; j < n; j++)
        CHECK(order[before + j] == want_order[j], "%s: order[%zu] = %u, want %u (n=%zu, %zu boxes, %s)",
                      what, j, order[before + j], want_order[j], n, boxes, harness_tuning_text(ctx));
    ck_assert_msg(harness_all_sentinel(start, before * 4) &&
                      harness_all_sentinel(start + before + boxes + 1, after * 4) &&
                      harness_all_sentinel(order, before * 4) && harness_all_sentinel(order + before + n, after * 4),
                  "%s: wrote outside box_start or order", what);
    if (spbuf) {
        float *sorted = harness_malloc((before + n + after) * 12);
        harness_read(ctx, spbuf, 0, (before + n + after) * 12, sorted);
        for (size_t j = 0; j < n; j++)
            CHECK(memcmp(sorted + 3 * (before + j), pos + 3 * (size_t)want_order[j], 12) == 0,
                          "%s: sorted_positions[%zu] is not particle %u", what, j, want_order[j]);
        ck_assert_msg(harness_all_sentinel(sorted, before * 12) &&
                          harness_all_sentinel(sorted + 3 * (before + n), after * 12),
                      "%s: wrote outside sorted_positions", what);
        free(sorted);
        clReleaseMemObject(spbuf);
    }
    float *again = harness_malloc((before + n + after) * 12);
    harness_read(ctx, pbuf, 0, (before + n + after) * 12, again);
    ck_assert_msg(memcmp(again, padded, (before + n + after) * 12) == 0, "%s: positions changed", what);
    free(again);
    free(start);
    free(order);
    free(want_start);
    free(want_order);
    free(padded);
    clReleaseMemObject(pbuf);
    clReleaseMemObject(sbuf);
    clReleaseMemObject(obuf);
}

static void generated_case(clprim_context *ctx, const clprim_box_grid *g, configuration c, size_t n,
                           size_t offset, int with_sorted, uint64_t *rng)
{
    static const char *names[] = {"uniform", "clustered", "outside"};
    float *pos = make_positions(g, c, n, rng);
    box_case(ctx, g, pos, n, offset, with_sorted, names[c]);
    free(pos);
}

/* ---- Correctness ---- */

/* Grids whose largest id needs 1, 5 (two passes), 12 (three) and 17 bits (five). */
static const clprim_box_grid grids[] = {
    {{0, 0, 0}, {1, 1, 1}, {2, 1, 1}},
    {{-1.5f, 2, 0.25f}, {0.5f, 0.75f, 1}, {3, 2, 3}},
    {{0, 0, 0}, {1, 1, 1}, {16, 16, 16}},
    {{10, -10, 3}, {0.1f, 0.2f, 0.3f}, {50, 40, 33}},
};

START_TEST(boxsort_grids)
{
    uint64_t rng = harness_rng(1);
    FOR_EACH_DEVICE(ctx)
    {
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 16);
            clprim_tuning t = clprim_get_tuning(ctx);
            const size_t tile = t.work_group_size * t.items_per_thread;
            /* The largest size (several tiles per group) with the device's tuning only. */
            const size_t sizes[] = {0, 1, 2, t.work_group_size + 1, tile - 1, tile + 1, 3001, 30011};
            const size_t nsizes = sizeof sizes / sizeof sizes[0] - (size_t)tuned;
            for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++)
                for (size_t k = 0; k < nsizes; k++)
                    for (int c = UNIFORM; c <= OUTSIDE; c++)
                        generated_case(ctx, &grids[gi], (configuration)c, sizes[k], (k + gi) % 3, (int)(k % 2), &rng);
        }
    }
}
END_TEST

/* One box: everything in box 0, order the identity. */
START_TEST(boxsort_one_box)
{
    uint64_t rng = harness_rng(2);
    const clprim_box_grid one = {{0, 0, 0}, {1, 1, 1}, {1, 1, 1}};
    FOR_EACH_DEVICE(ctx)
    {
        generated_case(ctx, &one, OUTSIDE, 1001, 0, 1, &rng);
        generated_case(ctx, &one, UNIFORM, 1, 1, 0, &rng);
    }
}
END_TEST

/* Millions of boxes (the box count the report's scan failed on): 129 x 127 x
 * 128 (just over 2^21, so 22-bit ids), a million particles uniform, and
 * clustered (most boxes empty). */
START_TEST(boxsort_many_boxes)
{
    uint64_t rng = harness_rng(3);
    const clprim_box_grid big = {{0, 0, 0}, {1, 1, 1}, {129, 127, 128}};
    FOR_EACH_DEVICE(ctx)
    {
        generated_case(ctx, &big, UNIFORM, 1000003, 1, 1, &rng);
        generated_case(ctx, &big, CLUSTERED, 300001, 0, 0, &rng);
    }
}
END_TEST

/* Exact box edges: a coordinate on the edge between boxes i and i + 1 goes to
 * i + 1; the grid's far face clamps into the last box. */
START_TEST(boxsort_edges)
{
    const clprim_box_grid g = {{0, 0, 0}, {0.5f, 0.5f, 0.5f}, {4, 3, 2}};
    const float pos[] = {0.5f, 0, 0, 0.49999997f, 0, 0, 2.0f, 1.5f, 1.0f, -0.0f, 0, 0, -1e-30f, 0, 0,
                         INFINITY, -INFINITY, NAN, 1.0f, 1.0f, 0.5f};
    const size_t n = sizeof pos / 12;
    FOR_EACH_DEVICE(ctx)
    {
        box_case(ctx, &g, pos, n, 0, 1, "edges");
        const uint32_t want_ids[] = {1, 0, 23, 0, 0, 3, 22};
        for (size_t i = 0; i < n; i++)
            ck_assert_uint_eq(reference_box_of(&g, pos + 3 * i), want_ids[i]);
    }
}
END_TEST

/* ---- Bad arguments ---- */

/* The grid a row passes: the usual 4 x 4 x 4 unit boxes, or one field of it
 * made bad; BOX_NO_GRID passes NULL. */
enum {
    BOX_NO_GRID = -1,
    BOX_USUAL,
    BOX_DIMS_1_ZERO,
    BOX_SIZE_2_ZERO,
    BOX_SIZE_2_NEGATIVE,
    BOX_SIZE_2_NAN,
    BOX_ORIGIN_0_INFINITE,
    BOX_2_32_BOXES,
};
static const clprim_box_grid bad_call_grids[] = {
    [BOX_USUAL] = {{0, 0, 0}, {1, 1, 1}, {4, 4, 4}},
    [BOX_DIMS_1_ZERO] = {{0, 0, 0}, {1, 1, 1}, {4, 0, 4}},
    [BOX_SIZE_2_ZERO] = {{0, 0, 0}, {1, 1, 0}, {4, 4, 4}},
    [BOX_SIZE_2_NEGATIVE] = {{0, 0, 0}, {1, 1, -1}, {4, 4, 4}},
    [BOX_SIZE_2_NAN] = {{0, 0, 0}, {1, 1, NAN}, {4, 4, 4}},
    [BOX_ORIGIN_0_INFINITE] = {{INFINITY, 0, 0}, {1, 1, 1}, {4, 4, 4}},
    [BOX_2_32_BOXES] = {{0, 0, 0}, {1, 1, 1}, {1u << 16, 1u << 16, 4}},
};

/* buf: positions, box_start, order, sorted_positions. */
static clprim_status boxsort_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const clprim_box_grid *grid = row->variant == BOX_NO_GRID ? NULL : &bad_call_grids[row->variant];
    return clprim_box_sort(ctx, grid, buf[0], row->offset[0], row->n, buf[1], row->offset[1], buf[2], row->offset[2],
                           buf[3], row->offset[3], 0, NULL, NULL);
}

/* A buffer holds 5461 particles, or 16384 cl_uint; the usual grid's box_start
 * takes 65 of them. */
static const harness_bad_call boxsort_bad_calls[] = {
    {"ctx NULL", 0, 1, {HB_READ_ONLY, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"grid NULL", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "grid",
     .variant = BOX_NO_GRID},
    {"dims[1] 0", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "dims[1]",
     .variant = BOX_DIMS_1_ZERO},
    {"box_size[2] 0", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "box_size[2]",
     .variant = BOX_SIZE_2_ZERO},
    {"box_size[2] -1", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "box_size[2]",
     .variant = BOX_SIZE_2_NEGATIVE},
    {"box_size[2] NaN", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "box_size[2]",
     .variant = BOX_SIZE_2_NAN},
    {"origin[0] infinite", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "origin[0]",
     .variant = BOX_ORIGIN_0_INFINITE},
    {"2^32 boxes", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "2^32",
     .variant = BOX_2_32_BOXES},
    {"positions NULL", 0, 0, {HB_NULL, HB_A, HB_B}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "positions"},
    {"positions a particle short", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {1}, 5461, CLPRIM_BUFFER_TOO_SMALL,
     "positions"},
    {"box_start an element short", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0, 16320}, 64, CLPRIM_BUFFER_TOO_SMALL,
     "box_start"},
    {"order an element short", 0, 0, {HB_READ_ONLY, HB_A, HB_B}, {0, 0, 16321}, 64, CLPRIM_BUFFER_TOO_SMALL,
     "order"},
    {"order NULL", 0, 0, {HB_READ_ONLY, HB_A, HB_NULL}, {0}, 64, CLPRIM_INVALID_ARGUMENT, "order"},
    {"sorted_positions a particle short", 0, 0, {HB_READ_ONLY, HB_A, HB_B, HB_WRITE_ONLY}, {0, 0, 0, 5398}, 64,
     CLPRIM_BUFFER_TOO_SMALL, "sorted_positions"},
    {"box_start and order one buffer", 0, 0, {HB_READ_ONLY, HB_A, HB_A}, {0}, 32, CLPRIM_INVALID_ARGUMENT,
     "overlap"},
    {"sorted_positions overlapping positions", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY, HB_A}, {0, 0, 0, 16}, 32,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"order a sub-buffer inside positions", 0, 0, {HB_A, HB_B, HB_A_AT_ALIGN, HB_NULL}, {0, 0, 0}, 256,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"sorted_positions the positions through a sub-buffer", 0, 0, {HB_A_AT_0, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 256,
     CLPRIM_INVALID_ARGUMENT, "sorted_positions"},
    {"box_start a sub-buffer inside order", 0, 0, {HB_B, HB_A_AT_ALIGN, HB_A, HB_NULL}, {0}, 256,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"positions an image object", 0, 0, {HB_IMAGE, HB_A, HB_B, HB_NULL}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    {"order an image object", 0, 0, {HB_A, HB_B, HB_IMAGE, HB_NULL}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    {"positions CL_MEM_WRITE_ONLY", 0, 0, {HB_WRITE_ONLY, HB_A, HB_B, HB_NULL}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
};

START_TEST(boxsort_bad_table)
{
    harness_run_bad_calls(boxsort_bad_calls, sizeof boxsort_bad_calls / sizeof *boxsort_bad_calls, boxsort_bad_call);
}
END_TEST

static Suite *boxsort_suite(void)
{
    Suite *s = suite_create("boxsort");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, boxsort_grids);
    tcase_add_test(tc, boxsort_one_box);
    tcase_add_test(tc, boxsort_many_boxes);
    tcase_add_test(tc, boxsort_edges);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_add_test(bad, boxsort_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(boxsort_suite());
}
