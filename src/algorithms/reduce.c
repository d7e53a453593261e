/* Reduce: pass 1 of the scan (one partial per work-group), then one work-group
 * folds the partials; the value is read back to the host. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* What an empty reduction returns (clprim.h, clprim_op): EMPTY_RESULT of
 * cl/common.cl, which for float MIN/MAX is an infinity, not the kernels' NaN identity. */
static void write_empty_result(clprim_type t, clprim_op op, void *out)
{
    const clprim_type_info *type = clprim_type_info_of(t);
    memset(out, 0, type->size);
    if (op == CLPRIM_SUM)
        return;
    const int lowest = op == CLPRIM_MAX;
#define EMPTY_RESULT(NAME)                                                                                   \
    case CLPRIM_##NAME: {                                                                                    \
        const CLPRIM_FIELD(NAME, C) v = (CLPRIM_FIELD(NAME, C))(lowest ? CLPRIM_FIELD(NAME, LOWEST)           \
                                                                       : CLPRIM_FIELD(NAME, HIGHEST));        \
        memcpy(out, &v, sizeof v);                                                                           \
        break;                                                                                               \
    }
    switch (t) { CLPRIM_TYPES(EMPTY_RESULT) }
#undef EMPTY_RESULT
}

/* The passes of a reduction of n > 0 elements, its value read back to *result. */
static clprim_status reduce_device(clprim_context *ctx, const clprim_type_info *type, const clprim_combine *c,
                                   cl_mem src, size_t offset, size_t n, void *result, cl_uint num_events_in_wait_list,
                                   const cl_event *event_wait_list)
{
    /* Plan: one partial per work-group, then, with several, one group folding
     * them into the slot after them. */
    const clprim_tuning *shape = &ctx->tuning;
    const clprim_split split = clprim_split_range(shape, n);
    const cl_ulong count = n, src_offset = offset, partials = 0, groups = split.groups;
    const cl_ulong answer = split.groups > 1 ? split.groups : 0;
    clprim_layout layout = {0, 0};
    clprim_layout_part(&layout, (split.groups + 1) * type->size);

    clprim_program program;
    clprim_combine_program(ctx, &program, "reduce", "reduce.cl", shape, type, c);
    clprim_pass reduce;
    clprim_status s = clprim_pass_of(ctx, &program, "reduce_chunks", &reduce);
    clprim_program_end(&program);
    cl_mem scratch;
    if (s == CLPRIM_SUCCESS)
        s = clprim_layout_scratch(ctx, "reduce", &layout, &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);

    if (s == CLPRIM_SUCCESS)
        s = CLPRIM_ENQUEUE(ctx, &reduce, split.groups, NULL, CLPRIM_ARG(src), CLPRIM_ARG(src_offset),
                           CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(scratch), CLPRIM_ARG(partials));
    if (s == CLPRIM_SUCCESS && split.groups > 1) /* the folding group's chunk covers every partial */
        s = CLPRIM_ENQUEUE(ctx, &reduce, 1, NULL, CLPRIM_ARG(scratch), CLPRIM_ARG(partials), CLPRIM_ARG(groups),
                           CLPRIM_ARG(groups), CLPRIM_ARG(scratch), CLPRIM_ARG(answer));
    if (s != CLPRIM_SUCCESS)
        return s;
    cl_int err = clEnqueueReadBuffer(ctx->queue, scratch, CL_TRUE, answer * type->size, type->size, result, 0,
                                     NULL, NULL);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "reading the reduction back");
    return CLPRIM_SUCCESS;
}

/* clprim_reduce and clprim_reduce_op: the checks, then the passes. */
static clprim_status reduce_call(clprim_context *ctx, const char *function, clprim_type t, clprim_op op,
                                 int user_op, const clprim_operator *user, cl_mem src, size_t offset, size_t n,
                                 void *result, cl_uint num_events_in_wait_list, const cl_event *event_wait_list)
{
    const clprim_type_info *type;
    clprim_combine c = clprim_combine_builtin(op);
    CLPRIM_ENTER(s, ctx, function);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_operator(ctx, t, &type, op, user_op, user, &c);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, offset, n, type->size, CLPRIM_READS, NULL);
    if (s == CLPRIM_SUCCESS && !result)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "result is NULL");
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, function, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS && n > 0) {
        s = reduce_device(ctx, type, &c, src, offset, n, result, num_events_in_wait_list, event_wait_list);
    } else if (s == CLPRIM_SUCCESS) {
        /* Nothing to combine; a caller's operator must still compile. */
        if (user_op)
            s = clprim_combine_prepare(ctx, "reduce", "reduce.cl", type, &c);
        if (s == CLPRIM_SUCCESS)
            s = clprim_wait_events(ctx, num_events_in_wait_list, event_wait_list);
        if (s == CLPRIM_SUCCESS && user_op)
            memcpy(result, user->identity, type->size);
        else if (s == CLPRIM_SUCCESS)
            write_empty_result(t, op, result);
    }
    clprim_combine_free(&c);
    return s;
}

clprim_status clprim_reduce(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src, size_t offset,
                            size_t n, void *result, cl_uint num_events_in_wait_list, const cl_event *event_wait_list)
{
    return reduce_call(ctx, "clprim_reduce", t, op, 0, NULL, src, offset, n, result, num_events_in_wait_list,
                       event_wait_list);
}

clprim_status clprim_reduce_op(clprim_context *ctx, clprim_type t, const clprim_operator *op, cl_mem src,
                               size_t offset, size_t n, void *result, cl_uint num_events_in_wait_list,
                               const cl_event *event_wait_list)
{
    return reduce_call(ctx, "clprim_reduce_op", t, CLPRIM_SUM, 1, op, src, offset, n, result,
                       num_events_in_wait_list, event_wait_list);
}
