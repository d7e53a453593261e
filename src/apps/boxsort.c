/* Box sort of particles (what a particle simulation does every step), built on the
 * library's pieces:
 *   1. box_ids: each particle's box id, into scratch;
 *   2. a stable radix sort of (box id, index) pairs over the bits the largest id
 *      needs: sorted ids into scratch, indices into `order`;
 *   3. per-box counts from the runs of equal sorted ids (box_run_ends then
 *      box_run_starts, into box_start, which the host zero-filled);
 *   4. an exclusive scan of the boxes + 1 counts in place: the box starts;
 *   5. optionally, the positions gathered in sorted order.
 * No step waits on another work-group inside a kernel, and none uses atomics, so
 * the result is the same on every device and run. */
#include "algorithms/radix_sort.h"

#include <math.h>
#include <stdint.h>

void clprim_box_sort_program(const clprim_context *ctx, clprim_program *p)
{
    clprim_program_begin(ctx, p, "box sort", "boxsort.cl", &ctx->tuning, NULL, -1);
}

static clprim_status check_grid(clprim_context *ctx, const clprim_box_grid *grid, size_t *boxes)
{
    static const char axis[3] = {'x', 'y', 'z'};
    if (!grid)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_box_sort: grid is NULL");
    uint64_t total = 1;
    for (int a = 0; a < 3; a++) {
        if (!isfinite(grid->origin[a]))
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_box_sort: grid->origin[%d] (%c) is %g, not finite",
                               a, axis[a], (double)grid->origin[a]);
        if (!isfinite(grid->box_size[a]) || !(grid->box_size[a] > 0.0f) || !isfinite(1.0f / grid->box_size[a]))
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "clprim_box_sort: grid->box_size[%d] (%c) is %g; it must be finite and > 0 with a "
                               "finite inverse",
                               a, axis[a], (double)grid->box_size[a]);
        if (grid->dims[a] == 0)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_box_sort: grid->dims[%d] (%c) is 0", a,
                               axis[a]);
        if (grid->dims[a] > UINT32_MAX || (total *= grid->dims[a]) > UINT32_MAX)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "clprim_box_sort: the grid has %zu x %zu x %zu boxes; at most 2^32 - 1 are allowed",
                               grid->dims[0], grid->dims[1], grid->dims[2]);
    }
    *boxes = (size_t)total;
    return CLPRIM_SUCCESS;
}

/* The sort of (box id, index) pairs over the bits the largest id needs. */
static clprim_sort_spec id_sort(size_t boxes)
{
    unsigned bits = 1;
    while (bits < 32 && ((uint64_t)(boxes - 1) >> bits) != 0)
        bits++;
    return (clprim_sort_spec){CLPRIM_UINT32, sizeof(cl_uint), 0, 0, bits};
}

/* The plan: the splits of the particles and of the box starts at the program's
 * shape, and scratch for the ids and the sorted ids, then the sort's and the
 * scan's own parts. */
static void plan_box_sort(const clprim_context *ctx, const clprim_box_grid *grid, size_t boxes, cl_mem positions,
                          size_t positions_offset, size_t n, cl_mem box_start, size_t box_start_offset, cl_mem order,
                          size_t order_offset, cl_mem sorted_positions, size_t sorted_positions_offset,
                          clprim_plan *plan)
{
    clprim_plan_begin(plan, "box sort");
    clprim_program program;
    clprim_box_sort_program(ctx, &program);
    const clprim_split split = clprim_split_range(&program.shape, n);
    const clprim_split zsplit = clprim_split_range(&program.shape, boxes + 1);
    const unsigned box_cl = clprim_plan_program(plan, &program);
    const size_t ids_at = clprim_layout_part(&plan->scratch, n * 4);
    const size_t sorted_at = clprim_layout_part(&plan->scratch, n * 4);

    const cl_ulong count = n, pos_off = positions_offset, ids_off = ids_at / 4, sorted_off = sorted_at / 4;
    const cl_ulong start_off = box_start_offset, order_off = order_offset;

    /* Counts start at zero (boxes without particles stay so, and box_start[boxes]
     * is the zero that the exclusive scan turns into n). */
    const cl_ulong nstart = boxes + 1;
    const cl_int zero = 0;
    CLPRIM_PLAN_LAUNCH(plan, box_cl, "fill_words", zsplit.groups, CLPRIM_ARG(box_start), CLPRIM_ARG(start_off),
                       CLPRIM_ARG(nstart), CLPRIM_ARG(zero));
    if (n > 0) {
        const cl_float4 origin = {{grid->origin[0], grid->origin[1], grid->origin[2], 0.0f}};
        const cl_float4 inv = {{1.0f / grid->box_size[0], 1.0f / grid->box_size[1], 1.0f / grid->box_size[2], 0.0f}};
        const cl_uint4 dims = {{(cl_uint)grid->dims[0], (cl_uint)grid->dims[1], (cl_uint)grid->dims[2], 0}};
        CLPRIM_PLAN_LAUNCH(plan, box_cl, "box_ids", split.groups, CLPRIM_ARG(positions), CLPRIM_ARG(pos_off),
                           CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(origin), CLPRIM_ARG(inv),
                           CLPRIM_ARG(dims), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(ids_off));
        const clprim_sort_spec by_id = id_sort(boxes);
        clprim_plan_radix_sort(ctx, plan, &by_id, NULL, ids_off, NULL, sorted_off, NULL, 0, order, order_offset, n);
        CLPRIM_PLAN_LAUNCH(plan, box_cl, "box_run_ends", split.groups, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(sorted_off),
                           CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(box_start), CLPRIM_ARG(start_off));
        CLPRIM_PLAN_LAUNCH(plan, box_cl, "box_run_starts", split.groups, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(sorted_off),
                           CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(box_start), CLPRIM_ARG(start_off));
    }
    const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM);
    clprim_plan_scan(ctx, plan, clprim_type_info_of(CLPRIM_UINT32), &sum, 1, NULL, 0, box_start, start_off, box_start,
                     start_off, boxes + 1);
    if (sorted_positions && n > 0) {
        const cl_ulong sp_off = sorted_positions_offset;
        CLPRIM_PLAN_LAUNCH(plan, box_cl, "box_gather", split.groups, CLPRIM_ARG(positions), CLPRIM_ARG(pos_off),
                           CLPRIM_ARG(order), CLPRIM_ARG(order_off), CLPRIM_ARG(count), CLPRIM_ARG(split.chunk),
                           CLPRIM_ARG(sorted_positions), CLPRIM_ARG(sp_off));
    }
}

clprim_status clprim_box_sort(clprim_context *ctx, const clprim_box_grid *grid, cl_mem positions,
                              size_t positions_offset, size_t n, cl_mem box_start, size_t box_start_offset,
                              cl_mem order, size_t order_offset, cl_mem sorted_positions,
                              size_t sorted_positions_offset, cl_uint num_events_in_wait_list,
                              const cl_event *event_wait_list, cl_event *event)
{
    size_t boxes = 0;
    CLPRIM_ENTER(s, ctx, "clprim_box_sort");
    if (s == CLPRIM_SUCCESS)
        s = check_grid(ctx, grid, &boxes);
    if (s == CLPRIM_SUCCESS && (uint64_t)n > UINT32_MAX)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                        "clprim_box_sort: n = %zu particles; indices and box starts are cl_uint, so n must be "
                        "below 2^32",
                        n);
    /* Read, then three outputs; none meets another. */
    const char *const names[4] = {"positions", "box_start", "order", "sorted_positions"};
    clprim_region r[4] = {{0}};
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, names[0], positions, positions_offset, n, 3 * sizeof(cl_float), CLPRIM_READS,
                                &r[0]);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, names[1], box_start, box_start_offset, boxes + 1, sizeof(cl_uint),
                                CLPRIM_WRITES, &r[1]);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, names[2], order, order_offset, n, sizeof(cl_uint), CLPRIM_WRITES, &r[2]);
    if (s == CLPRIM_SUCCESS && sorted_positions)
        s = clprim_check_buffer(ctx, names[3], sorted_positions, sorted_positions_offset, n, 3 * sizeof(cl_float),
                                CLPRIM_WRITES, &r[3]);
    for (int i = 0; i < 4 && s == CLPRIM_SUCCESS; i++)
        for (int j = i + 1; j < 4 && s == CLPRIM_SUCCESS; j++)
            s = clprim_check_disjoint(ctx, "clprim_box_sort", names[i], &r[i], names[j], &r[j], 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_box_sort", num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS && n > 0) {
        const clprim_sort_spec by_id = id_sort(boxes);
        s = clprim_check_radix_sort_shape(ctx, &by_id);
    }
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_plan plan;
    plan_box_sort(ctx, grid, boxes, positions, positions_offset, n, box_start, box_start_offset, order, order_offset,
                  sorted_positions, sorted_positions_offset, &plan);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

/* ---- Descriptor ---- */

/* boxsort.cl; its sort is radix_sort's. */
static void box_sort_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    clprim_program p;
    clprim_box_sort_program(ctx, &p);
    clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
}

const clprim_primitive clprim_box_sort_primitive = {"box_sort", NULL, box_sort_variants};
