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

/* The plan: one pair per work-group at [0, groups) of two scratch parts
 * (values, indices), then, with several, one group folding them into slot
 * `groups`; the answer read back into value (type->size bytes) and *index. */
static void plan_reduce_index(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *type,
                              clprim_op op, cl_mem src, size_t offset, size_t n, void *value, cl_ulong *index)
{
    const clprim_tuning *shape = &ctx->tuning;
    const clprim_split split = clprim_split_range(shape, n);
    const cl_ulong count = n, src_offset = offset, groups = split.groups, answer = split.groups > 1 ? split.groups : 0;
    const size_t values_at = clprim_layout_part(&plan->scratch, (split.groups + 1) * type->size);
    const size_t indices_at = clprim_layout_part(&plan->scratch, (split.groups + 1) * sizeof(cl_ulong));
    const cl_ulong values_offset = values_at / type->size, indices_offset = indices_at / sizeof(cl_ulong);
    const cl_ulong answer_values = values_offset + answer, answer_indices = indices_offset + answer;
    clprim_program program;
    clprim_reduce_index_program(ctx, type, op, &program);
    const unsigned fold = clprim_plan_program(plan, &program);

    const cl_int positions = 0, read_indices = 1;
    CLPRIM_PLAN_LAUNCH(plan, fold, "reduce_index_chunks", split.groups, CLPRIM_ARG(src), CLPRIM_ARG(src_offset),
                       CLPRIM_SCRATCH_ARG, CLPRIM_ARG(indices_offset), CLPRIM_ARG(positions), CLPRIM_ARG(count),
                       CLPRIM_ARG(split.chunk), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(values_offset), CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(indices_offset));
    if (split.groups > 1) /* the folding group's chunk covers every pair */
        CLPRIM_PLAN_LAUNCH(plan, fold, "reduce_index_chunks", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(values_offset),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(indices_offset), CLPRIM_ARG(read_indices),
                           CLPRIM_ARG(groups), CLPRIM_ARG(groups), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(answer_values),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(answer_indices));
    clprim_plan_read(plan, NULL, answer_values * type->size, type->size, value);
    clprim_plan_read(plan, NULL, answer_indices * sizeof *index, sizeof *index, index);
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
    /* Read into the call's own storage: the caller's changes only on success. */
    unsigned char best_value[8];
    cl_ulong best_index = 0;
    clprim_plan plan;
    clprim_plan_begin(&plan, "argmin/argmax");
    plan_reduce_index(ctx, &plan, type, op, src, offset, n, best_value, &best_index);
    s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, NULL);
    if (s != CLPRIM_SUCCESS)
        return s;
    if (value)
        memcpy(value, best_value, type->size);
    if (index)
        *index = (size_t)best_index;
    return CLPRIM_SUCCESS;
}

/* ---- Descriptor ---- */

static void reduce_index_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                                  const clprim_type_info *type)
{
    (void)t;
    for (int op = CLPRIM_MIN; op <= CLPRIM_MAX; op++) {
        clprim_program p;
        clprim_reduce_index_program(ctx, type, (clprim_op)op, &p);
        clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
    }
}

const clprim_primitive clprim_reduce_index_primitive = {"reduce_index", reduce_index_variants, NULL};
