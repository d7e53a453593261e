/* Argmin and argmax: pass 1 folds each work-group's chunk into a (value,
 * index) pair, pass 2 (one work-group) folds the pairs; both are read back.
 * The fold's order of pairs is fixed by values and indices alone
 * (cl/reduce_index.cl), so every device and shape gives the same answer. */
#include "internal.h"

#include <string.h>

void clprim_reduce_index_program(const clprim_context *ctx, const clprim_type_info *type, clprim_op op,
                                 clprim_program *p)
{
    clprim_program_begin(ctx, p, "argmin/argmax", "reduce_index.cl", &ctx->tuning, type, -1);
    clprim_options_add(&p->options, op == CLPRIM_MIN ? "-DARG_MIN" : "-DARG_MAX");
}

clprim_status clprim_reduce_index(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src, size_t offset,
                                  size_t n, void *value, size_t *index, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list)
{
    const clprim_type_info *type;
    CLPRIM_ENTER(s, ctx, "clprim_reduce_index");
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, t, &type);
    if (s == CLPRIM_SUCCESS && op != CLPRIM_MIN && op != CLPRIM_MAX)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_reduce_index: op is %d; it takes CLPRIM_MIN or CLPRIM_MAX",
                        (int)op);
    if (s == CLPRIM_SUCCESS && n == 0)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                        "clprim_reduce_index: n is 0, and an empty range has no smallest or largest element");
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, offset, n, type->size, CLPRIM_READS, NULL);
    if (s == CLPRIM_SUCCESS && !value && !index)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_reduce_index: value and index are both NULL");
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_reduce_index", num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    /* Plan: one pair per work-group, then, with several, one group folding
     * them into the slot after them; values and indices in two scratch parts. */
    const clprim_tuning *shape = &ctx->tuning;
    const clprim_split split = clprim_split_range(shape, n);
    const cl_ulong count = n, src_offset = offset, groups = split.groups, answer = split.groups > 1 ? split.groups : 0;
    clprim_layout layout = {0, 0};
    const size_t values_at = clprim_layout_part(&layout, (split.groups + 1) * type->size);
    const size_t indices_at = clprim_layout_part(&layout, (split.groups + 1) * sizeof(cl_ulong));
    const cl_ulong values_offset = values_at / type->size, indices_offset = indices_at / sizeof(cl_ulong);
    const cl_ulong answer_values = values_offset + answer, answer_indices = indices_offset + answer;

    clprim_program program;
    clprim_reduce_index_program(ctx, type, op, &program);
    clprim_pass fold;
    s = clprim_pass_of(ctx, &program, "reduce_index_chunks", &fold);
    clprim_program_end(&program);
    cl_mem scratch;
    if (s == CLPRIM_SUCCESS)
        s = clprim_layout_scratch(ctx, "argmin/argmax", &layout, &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);

    /* Enqueue: the chunks' pairs at [0, groups) of each part, then, with
     * several, their fold into slot `groups`; then the answer read back. */
    const cl_int positions = 0, read_indices = 1;
    if (s == CLPRIM_SUCCESS)
        s = CLPRIM_ENQUEUE(ctx, &fold, split.groups, NULL, CLPRIM_ARG(src), CLPRIM_ARG(src_offset), CLPRIM_ARG(scratch),
                           CLPRIM_ARG(indices_offset), CLPRIM_ARG(positions), CLPRIM_ARG(count),
                           CLPRIM_ARG(split.chunk), CLPRIM_ARG(scratch), CLPRIM_ARG(values_offset), CLPRIM_ARG(scratch),
                           CLPRIM_ARG(indices_offset));
    if (s == CLPRIM_SUCCESS && split.groups > 1) /* the folding group's chunk covers every pair */
        s = CLPRIM_ENQUEUE(ctx, &fold, 1, NULL, CLPRIM_ARG(scratch), CLPRIM_ARG(values_offset), CLPRIM_ARG(scratch),
                           CLPRIM_ARG(indices_offset), CLPRIM_ARG(read_indices), CLPRIM_ARG(groups),
                           CLPRIM_ARG(groups), CLPRIM_ARG(scratch), CLPRIM_ARG(answer_values), CLPRIM_ARG(scratch),
                           CLPRIM_ARG(answer_indices));
    cl_ulong best_index = 0;
    unsigned char best_value[8];
    cl_int err = CL_SUCCESS;
    if (s == CLPRIM_SUCCESS)
        err = clEnqueueReadBuffer(ctx->queue, scratch, CL_FALSE, answer_values * type->size, type->size, best_value,
                                  0, NULL, NULL);
    if (s == CLPRIM_SUCCESS && err == CL_SUCCESS)
        err = clEnqueueReadBuffer(ctx->queue, scratch, CL_TRUE, answer_indices * sizeof best_index, sizeof best_index,
                                  &best_index, 0, NULL, NULL);
    if (s == CLPRIM_SUCCESS && err != CL_SUCCESS)
        s = clprim_fail_cl(ctx, err, "clprim_reduce_index: reading the answer back");
    if (s != CLPRIM_SUCCESS)
        return s;
    if (value)
        memcpy(value, best_value, type->size);
    if (index)
        *index = (size_t)best_index;
    return CLPRIM_SUCCESS;
}

/* ---- Descriptor ---- */

static void reduce_index_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    clprim_type t;
    const clprim_type_info *type;
    for (size_t i = 0; (type = clprim_device_type_at(ctx, i, &t)); i++)
        for (int op = CLPRIM_MIN; op <= CLPRIM_MAX; op++) {
            clprim_program p;
            clprim_reduce_index_program(ctx, type, (clprim_op)op, &p);
            clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
        }
}

const clprim_primitive clprim_reduce_index_primitive = {"reduce_index", reduce_index_variants};
