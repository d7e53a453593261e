/* Segmented reduction over an offsets array (cl/segmented_reduce.cl): the
 * elements split into the scan's chunks, each chunk reduced tile by tile with
 * a segmented scan whose heads come from the offsets; one work-group then
 * finishes the segments that cross chunks. With no element, every segment is
 * empty: one fill. */
#include "internal.h"

#include <stdint.h>

#define SEGMENTED_REDUCE_FILE "segmented_reduce.cl"

/* The plan: nothing for no segment; the fill for no element; else the chunks'
 * pass, and with several chunks the carry over their records, four scratch
 * parts of one record a chunk. */
static void plan_segmented_reduce(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *type,
                                  const clprim_combine *c, cl_mem src, size_t src_offset, size_t n, cl_mem offsets,
                                  size_t offsets_offset, size_t segments, cl_mem dst, size_t dst_offset)
{
    const clprim_tuning *shape = &ctx->tuning;
    clprim_program program;
    clprim_combine_program(ctx, &program, "segmented reduce", SEGMENTED_REDUCE_FILE, shape, type, c);
    const unsigned reduce_cl = clprim_plan_program(plan, &program);
    const cl_ulong count = n, at = src_offset, offsets_at = offsets_offset, segment_count = segments,
                   dst_at = dst_offset;
    if (segments == 0)
        return;
    if (n == 0) {
        CLPRIM_PLAN_LAUNCH(plan, reduce_cl, "segmented_reduce_empty", clprim_fill_groups(shape, segments),
                           CLPRIM_ARG(dst), CLPRIM_ARG(dst_at), CLPRIM_ARG(segment_count));
        return;
    }
    const clprim_split split = clprim_split_range(shape, n);
    const cl_ulong groups = split.groups;
    const cl_ulong pairs = clprim_layout_part(&plan->scratch, split.groups * type->size) / type->size;
    const cl_ulong heads = clprim_layout_part(&plan->scratch, split.groups * sizeof(cl_uint)) / sizeof(cl_uint);
    const cl_ulong parts = clprim_layout_part(&plan->scratch, split.groups * type->size) / type->size;
    const cl_ulong ids = clprim_layout_part(&plan->scratch, split.groups * sizeof(cl_ulong)) / sizeof(cl_ulong);
    CLPRIM_PLAN_LAUNCH(plan, reduce_cl, "segmented_reduce_chunks", split.groups, CLPRIM_ARG(src), CLPRIM_ARG(at),
                       CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(offsets), CLPRIM_ARG(offsets_at),
                       CLPRIM_ARG(segment_count), CLPRIM_ARG(dst), CLPRIM_ARG(dst_at), CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(pairs), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(heads), CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(parts), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(ids));
    if (split.groups > 1) /* the first chunk has no segment open at its start */
        CLPRIM_PLAN_LAUNCH(plan, reduce_cl, "segmented_reduce_carry", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(pairs),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(heads), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(parts),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(ids), CLPRIM_ARG(groups), CLPRIM_ARG(segment_count),
                           CLPRIM_ARG(dst), CLPRIM_ARG(dst_at));
}

clprim_status clprim_segmented_reduce(clprim_context *ctx, clprim_type t, clprim_op op, const clprim_operator *custom,
                                      cl_mem src, size_t src_offset, size_t n, cl_mem offsets, size_t offsets_offset,
                                      size_t segments, cl_mem dst, size_t dst_offset,
                                      cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                      cl_event *event)
{
    static const char fn[] = "clprim_segmented_reduce";
    const clprim_type_info *type;
    clprim_region in, bounds, out;
    clprim_combine c = clprim_combine_builtin(op);
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_operator(ctx, t, &type, custom ? CLPRIM_SUM : op, custom != NULL, custom, &c);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, src_offset, n, type->size, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_offsets(ctx, fn, offsets, offsets_offset, segments, &bounds);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "dst", dst, dst_offset, segments, type->size, CLPRIM_WRITES, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "src", &in, "dst", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "offsets", &bounds, "dst", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS) {
        clprim_plan plan;
        clprim_plan_begin(&plan, "segmented reduce");
        plan_segmented_reduce(ctx, &plan, type, &c, src, src_offset, n, offsets, offsets_offset, segments, dst,
                              dst_offset);
        s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    }
    clprim_combine_free(&c);
    return s;
}

/* ---- Descriptor ---- */

static void segmented_reduce_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                                      const clprim_type_info *type)
{
    (void)t;
    for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
        const clprim_combine c = clprim_combine_builtin((clprim_op)op);
        clprim_program p;
        clprim_combine_program(ctx, &p, "warm-up", SEGMENTED_REDUCE_FILE, &ctx->tuning, type, &c);
        clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
    }
}

const clprim_primitive clprim_segmented_reduce_primitive = {"segmented_reduce", segmented_reduce_variants, NULL};
