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
    if (s != CLPRIM_SUCCESS)
        return s;

    /* Plan: the splits of the particles and of the box starts at the
     * program's shape, the passes, and scratch: ids, sorted ids, then the
     * sort's own part, which the scan of the box counts (at the context's
     * tuning, as clprim_scan_device runs) reuses once the sort is done. Only
     * the bits of the largest id take part in the sort. */
    clprim_program program;
    clprim_box_sort_program(ctx, &program);
    const clprim_split split = clprim_split_range(&program.shape, n);
    const clprim_split zsplit = clprim_split_range(&program.shape, boxes + 1);
    clprim_pass zero, ids, ends, starts, gather = {0};
    s = clprim_pass_of(ctx, &program, "fill_words", &zero);
    if (s == CLPRIM_SUCCESS)
        s = clprim_pass_of(ctx, &program, "box_ids", &ids);
    if (s == CLPRIM_SUCCESS)
        s = clprim_pass_of(ctx, &program, "box_run_ends", &ends);
    if (s == CLPRIM_SUCCESS)
        s = clprim_pass_of(ctx, &program, "box_run_starts", &starts);
    if (s == CLPRIM_SUCCESS && sorted_positions)
        s = clprim_pass_of(ctx, &program, "box_gather", &gather);
    clprim_program_end(&program);

    const clprim_type_info *u32 = clprim_type_info_of(CLPRIM_UINT32);
    unsigned bits = 1;
    while (bits < 32 && ((uint64_t)(boxes - 1) >> bits) != 0)
        bits++;
    const clprim_sort_spec by_id = {CLPRIM_UINT32, sizeof(cl_uint), 0, 0, bits};
    const size_t sort_bytes = n ? clprim_radix_sort_scratch_bytes(ctx, &by_id, n) : 0;
    const size_t scan_bytes = clprim_scan_scratch_bytes(&ctx->tuning, boxes + 1, 4);
    clprim_layout layout = {0, 0};
    const size_t ids_at = clprim_layout_part(&layout, n * 4);
    const size_t sorted_at = clprim_layout_part(&layout, n * 4);
    const size_t sort_at = clprim_layout_part(&layout, sort_bytes > scan_bytes ? sort_bytes : scan_bytes);
    cl_mem scratch;
    if (s == CLPRIM_SUCCESS)
        s = clprim_layout_scratch(ctx, "box sort", &layout, &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    const cl_ulong count = n, pos_off = positions_offset, ids_off = ids_at / 4, sorted_off = sorted_at / 4;
    const cl_ulong start_off = box_start_offset, order_off = order_offset;

    /* Counts start at zero (boxes without particles stay so, and box_start[boxes]
     * is the zero that the exclusive scan turns into n). */
    const cl_ulong nstart = boxes + 1;
    const cl_int zero_value = 0;
    s = CLPRIM_ENQUEUE(ctx, &zero, zsplit.groups, NULL, CLPRIM_ARG(box_start), CLPRIM_ARG(start_off),
                       CLPRIM_ARG(nstart), CLPRIM_ARG(zero_value));
    if (s != CLPRIM_SUCCESS)
        return s;
    if (n > 0) {
        cl_float4 origin = {{grid->origin[0], grid->origin[1], grid->origin[2], 0.0f}};
        cl_float4 inv = {{1.0f / grid->box_size[0], 1.0f / grid->box_size[1], 1.0f / grid->box_size[2], 0.0f}};
        cl_uint4 dims = {{(cl_uint)grid->dims[0], (cl_uint)grid->dims[1], (cl_uint)grid->dims[2], 0}};
        s = CLPRIM_ENQUEUE(ctx, &ids, split.groups, NULL, CLPRIM_ARG(positions), CLPRIM_ARG(pos_off),
                           CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(origin), CLPRIM_ARG(inv),
                           CLPRIM_ARG(dims), CLPRIM_ARG(scratch), CLPRIM_ARG(ids_off));
        if (s == CLPRIM_SUCCESS)
            s = clprim_radix_sort_device(ctx, &by_id, scratch, ids_off, scratch, sorted_off, NULL, 0, order,
                                         order_offset, n, scratch, sort_at, NULL);

        const clprim_arg run_args[] = {CLPRIM_ARG(scratch), CLPRIM_ARG(sorted_off), CLPRIM_ARG(count),
                                       CLPRIM_ARG(split.chunk), CLPRIM_ARG(box_start), CLPRIM_ARG(start_off)};
        const size_t nrun = sizeof run_args / sizeof run_args[0];
        if (s == CLPRIM_SUCCESS)
            s = clprim_enqueue_pass(ctx, &ends, split.groups, run_args, nrun, NULL);
        if (s == CLPRIM_SUCCESS)
            s = clprim_enqueue_pass(ctx, &starts, split.groups, run_args, nrun, NULL);
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    s = clprim_scan_device(ctx, u32, CLPRIM_SUM, 1, box_start, start_off, box_start, start_off, boxes + 1, scratch,
                           sort_at, sorted_positions && n ? NULL : event);
    if (s != CLPRIM_SUCCESS || !sorted_positions || n == 0)
        return s;
    const cl_ulong sp_off = sorted_positions_offset;
    return CLPRIM_ENQUEUE(ctx, &gather, split.groups, event, CLPRIM_ARG(positions), CLPRIM_ARG(pos_off),
                          CLPRIM_ARG(order), CLPRIM_ARG(order_off), CLPRIM_ARG(count), CLPRIM_ARG(split.chunk),
                          CLPRIM_ARG(sorted_positions), CLPRIM_ARG(sp_off));
}
