/* Segmented reduction over an offsets array (cl/segmented_reduce.cl): the
 * elements split into the scan's chunks, each chunk reduced tile by tile with
 * a segmented scan whose heads come from the offsets; one work-group then
 * finishes the segments that cross chunks. With no element, every segment is
 * empty: one fill. Segmented argmin and argmax are the same plan over
 * (value, index) pairs. */
#include "internal.h"

#include <stdint.h>

#define SEGMENTED_REDUCE_FILE "segmented_reduce.cl"

/* Where each segment's result goes, as the kernels take it (RESULT_PARAMS):
 * dst, and for argmin and argmax the indices; outputs: bit 0 writes dst,
 * bit 1 the indices. An output not written is filled by the other buffer. */
typedef struct {
    cl_mem dst, indices;
    cl_ulong dst_offset, indices_offset;
    cl_uint outputs;
} results;

#define RESULT_ARGS(r)                                                                                                 \
    CLPRIM_ARG((r).dst), CLPRIM_ARG((r).dst_offset), CLPRIM_ARG((r).indices), CLPRIM_ARG((r).indices_offset),          \
        CLPRIM_ARG((r).outputs)

/* The plan, of a program of segmented_reduce.cl at its shape combining
 * values of acc_bytes: nothing for no segment; the fill for no element; else
 * the chunks' pass, and with several chunks the carry over their records,
 * four scratch parts of one record a chunk. */
static void plan_segmented(clprim_plan *plan, clprim_program *program, size_t acc_bytes, cl_mem src,
                           size_t src_offset, size_t n, cl_mem offsets, size_t offsets_offset, size_t segments,
                           results r)
{
    const clprim_tuning shape = program->shape; /* the plan takes the program over */
    const unsigned reduce_cl = clprim_plan_program(plan, program);
    const cl_ulong count = n, at = src_offset, offsets_at = offsets_offset, segment_count = segments;
    if (segments == 0)
        return;
    if (n == 0) {
        CLPRIM_PLAN_LAUNCH(plan, reduce_cl, "segmented_reduce_empty", clprim_fill_groups(&shape, segments),
                           RESULT_ARGS(r), CLPRIM_ARG(segment_count));
        return;
    }
    const clprim_split split = clprim_split_range(&shape, n);
    const cl_ulong groups = split.groups;
    const cl_ulong pairs = clprim_layout_part(&plan->scratch, split.groups * acc_bytes) / acc_bytes;
    const cl_ulong heads = clprim_layout_part(&plan->scratch, split.groups * sizeof(cl_uint)) / sizeof(cl_uint);
    const cl_ulong parts = clprim_layout_part(&plan->scratch, split.groups * acc_bytes) / acc_bytes;
    const cl_ulong ids = clprim_layout_part(&plan->scratch, split.groups * sizeof(cl_ulong)) / sizeof(cl_ulong);
    CLPRIM_PLAN_LAUNCH(plan, reduce_cl, "segmented_reduce_chunks", split.groups, CLPRIM_ARG(src), CLPRIM_ARG(at),
                       CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(offsets), CLPRIM_ARG(offsets_at),
                       CLPRIM_ARG(segment_count), RESULT_ARGS(r), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(pairs),
                       CLPRIM_SCRATCH_ARG, CLPRIM_ARG(heads), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(parts),
                       CLPRIM_SCRATCH_ARG, CLPRIM_ARG(ids));
    if (split.groups > 1) /* the first chunk has no segment open at its start */
        CLPRIM_PLAN_LAUNCH(plan, reduce_cl, "segmented_reduce_carry", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(pairs),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(heads), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(parts),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(ids), CLPRIM_ARG(groups), CLPRIM_ARG(segment_count),
                           RESULT_ARGS(r));
}

/* The checks both calls make of the input and the offsets. */
static clprim_status check_segments(clprim_context *ctx, const char *fn, const clprim_type_info *type, cl_mem src,
                                    size_t src_offset, size_t n, cl_mem offsets, size_t offsets_offset,
                                    size_t segments, clprim_region *in, clprim_region *bounds)
{
    clprim_status s = clprim_check_buffer(ctx, "src", src, src_offset, n, type->size, CLPRIM_READS, in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_offsets(ctx, fn, offsets, offsets_offset, segments, bounds);
    return s;
}

/* An output of one element_size a segment, sharing no byte with the inputs. */
static clprim_status check_output(clprim_context *ctx, const char *fn, const char *name, cl_mem buf, size_t offset,
                                  size_t segments, size_t element_size, const clprim_region *in,
                                  const clprim_region *bounds, clprim_region *out)
{
    clprim_status s = clprim_check_buffer(ctx, name, buf, offset, segments, element_size, CLPRIM_WRITES, out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "src", in, name, out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "offsets", bounds, name, out, 0);
    return s;
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
        s = check_segments(ctx, fn, type, src, src_offset, n, offsets, offsets_offset, segments, &in, &bounds);
    if (s == CLPRIM_SUCCESS)
        s = check_output(ctx, fn, "dst", dst, dst_offset, segments, type->size, &in, &bounds, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS) {
        clprim_plan plan;
        clprim_plan_begin(&plan, "segmented reduce");
        clprim_program program;
        clprim_combine_program(ctx, &program, "segmented reduce", SEGMENTED_REDUCE_FILE, &ctx->tuning, type, &c);
        plan_segmented(&plan, &program, type->size, src, src_offset, n, offsets, offsets_offset, segments,
                       (results){dst, dst, dst_offset, 0, 1});
        s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    }
    clprim_combine_free(&c);
    return s;
}

/* ---- Segmented argmin and argmax: (value, index) pairs of 16 bytes ---- */

#define ARG_PAIR_BYTES 16

/* The context's tuning with its tiles shortened until a tile of pairs, its
 * head flags and a scan slot a work-item fit in local memory. */
static clprim_tuning arg_shape(const clprim_context *ctx)
{
    clprim_tuning t = ctx->tuning;
    for (;;) {
        const cl_ulong tile = t.work_group_size * t.items_per_thread, padded = tile + tile / 32;
        const cl_ulong bytes = padded * (ARG_PAIR_BYTES + 1) + t.work_group_size * 2 * ARG_PAIR_BYTES + 64;
        if (t.work_group_size == 1 || t.items_per_thread == 1 || bytes <= ctx->local_mem_size)
            return t;
        t.items_per_thread /= 2;
    }
}

static void arg_program(const clprim_context *ctx, const clprim_type_info *type, clprim_op op, clprim_program *p)
{
    const clprim_tuning shape = arg_shape(ctx);
    clprim_program_begin(ctx, p, "segmented argmin/argmax", SEGMENTED_REDUCE_FILE, &shape, type, -1);
    clprim_options_add(&p->options, op == CLPRIM_MIN ? "-DARG_MIN" : "-DARG_MAX");
}

clprim_status clprim_segmented_reduce_index(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src,
                                            size_t src_offset, size_t n, cl_mem offsets, size_t offsets_offset,
                                            size_t segments, cl_mem values, size_t values_offset, cl_mem indices,
                                            size_t indices_offset, cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_segmented_reduce_index";
    const clprim_type_info *type;
    clprim_region in, bounds, value_out = {0}, index_out = {0};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, t, &type);
    if (s == CLPRIM_SUCCESS && op != CLPRIM_MIN && op != CLPRIM_MAX)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: op is %d; it takes CLPRIM_MIN or CLPRIM_MAX", fn, (int)op);
    if (s == CLPRIM_SUCCESS && !values && !indices)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: values and indices are both NULL; give at least one", fn);
    if (s == CLPRIM_SUCCESS)
        s = check_segments(ctx, fn, type, src, src_offset, n, offsets, offsets_offset, segments, &in, &bounds);
    if (s == CLPRIM_SUCCESS && values)
        s = check_output(ctx, fn, "values", values, values_offset, segments, type->size, &in, &bounds, &value_out);
    if (s == CLPRIM_SUCCESS && indices)
        s = check_output(ctx, fn, "indices", indices, indices_offset, segments, sizeof(cl_ulong), &in, &bounds,
                         &index_out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "values", &value_out, "indices", &index_out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    clprim_plan_begin(&plan, "segmented argmin/argmax");
    clprim_program program;
    arg_program(ctx, type, op, &program);
    const results r = {values ? values : indices, indices ? indices : values, values_offset, indices_offset,
                       (values ? 1u : 0u) | (indices ? 2u : 0u)};
    plan_segmented(&plan, &program, ARG_PAIR_BYTES, src, src_offset, n, offsets, offsets_offset, segments, r);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
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

static void segmented_reduce_index_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                                            const clprim_type_info *type)
{
    (void)t;
    for (int op = CLPRIM_MIN; op <= CLPRIM_MAX; op++) {
        clprim_program p;
        arg_program(ctx, type, (clprim_op)op, &p);
        clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
    }
}

const clprim_primitive clprim_segmented_reduce_index_primitive = {"segmented_reduce_index",
                                                                  segmented_reduce_index_variants, NULL};
