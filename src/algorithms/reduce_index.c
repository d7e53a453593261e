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

/* Where the answer goes: device buffers (value: one element, index: a
 * cl_ulong; NULL: the scratch), or, when host_value is not NULL, the host. */
typedef struct {
    cl_mem value, index;
    cl_ulong value_offset, index_offset;
    void *host_value;
    cl_ulong *host_index;
} answer_target;

/* The plan: one pair per work-group at [0, groups) of two scratch parts
 * (values, indices), then, with several, one group folding them; the last
 * launch writes the answer to slot `groups` of those parts (read back to the
 * host) or to the caller's buffers. */
static void plan_reduce_index(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *type,
                              clprim_op op, cl_mem src, size_t offset, size_t n, answer_target to)
{
    const clprim_tuning *shape = &ctx->tuning;
    const clprim_split split = clprim_split_range(shape, n);
    const cl_ulong count = n, src_offset = offset, groups = split.groups, answer = split.groups > 1 ? split.groups : 0;
    const size_t values_at = clprim_layout_part(&plan->scratch, (split.groups + 1) * type->size);
    const size_t indices_at = clprim_layout_part(&plan->scratch, (split.groups + 1) * sizeof(cl_ulong));
    const cl_ulong values_offset = values_at / type->size, indices_offset = indices_at / sizeof(cl_ulong);
    const int host = to.host_value != NULL;
    const cl_ulong answer_values = host || !to.value ? values_offset + answer : to.value_offset;
    const cl_ulong answer_indices = host || !to.index ? indices_offset + answer : to.index_offset;
    const cl_mem value_out = host ? NULL : to.value, index_out = host ? NULL : to.index;
    clprim_program program;
    clprim_reduce_index_program(ctx, type, op, &program);
    const unsigned fold = clprim_plan_program(plan, &program);

    /* One group writes the answer itself; several write pairs that one more
     * group folds, its chunk covering every pair. */
    const cl_int positions = 0, read_indices = 1;
    const int folds = split.groups > 1;
    CLPRIM_PLAN_LAUNCH(plan, fold, "reduce_index_chunks", split.groups, CLPRIM_ARG(src), CLPRIM_ARG(src_offset),
                       CLPRIM_SCRATCH_ARG, CLPRIM_ARG(indices_offset), CLPRIM_ARG(positions), CLPRIM_ARG(count),
                       CLPRIM_ARG(split.chunk), folds ? CLPRIM_SCRATCH_ARG : CLPRIM_BUFFER_ARG(value_out),
                       folds ? CLPRIM_ARG(values_offset) : CLPRIM_ARG(answer_values),
                       folds ? CLPRIM_SCRATCH_ARG : CLPRIM_BUFFER_ARG(index_out),
                       folds ? CLPRIM_ARG(indices_offset) : CLPRIM_ARG(answer_indices));
    if (folds)
        CLPRIM_PLAN_LAUNCH(plan, fold, "reduce_index_chunks", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(values_offset),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(indices_offset), CLPRIM_ARG(read_indices),
                           CLPRIM_ARG(groups), CLPRIM_ARG(groups), CLPRIM_BUFFER_ARG(value_out),
                           CLPRIM_ARG(answer_values), CLPRIM_BUFFER_ARG(index_out), CLPRIM_ARG(answer_indices));
    if (host) {
        clprim_plan_read(plan, NULL, answer_values * type->size, type->size, to.host_value);
        clprim_plan_read(plan, NULL, answer_indices * sizeof(cl_ulong), sizeof(cl_ulong), to.host_index);
    }
}

/* The checks both forms share; value and index are checked by the caller. */
static clprim_status check_call(clprim_context *ctx, const char *fn, clprim_type t, clprim_op op, cl_mem src,
                                size_t offset, size_t n, const clprim_type_info **type, clprim_region *in)
{
    clprim_status s = clprim_check_type(ctx, t, type);
    if (s == CLPRIM_SUCCESS && op != CLPRIM_MIN && op != CLPRIM_MAX)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: op is %d; it takes CLPRIM_MIN or CLPRIM_MAX", fn, (int)op);
    if (s == CLPRIM_SUCCESS && n == 0)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                        "%s: n is 0, and an empty range has no smallest or largest element", fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, offset, n, (*type)->size, CLPRIM_READS, in);
    return s;
}

clprim_status clprim_reduce_index(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src, size_t offset,
                                  size_t n, void *value, size_t *index, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list)
{
    static const char fn[] = "clprim_reduce_index";
    const clprim_type_info *type;
    clprim_region in;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = check_call(ctx, fn, t, op, src, offset, n, &type, &in);
    if (s == CLPRIM_SUCCESS && !value && !index)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: value and index are both NULL", fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    /* Read into the call's own storage: the caller's changes only on success. */
    unsigned char best_value[8];
    cl_ulong best_index = 0;
    const answer_target to = {NULL, NULL, 0, 0, best_value, &best_index};
    clprim_plan plan;
    clprim_plan_begin(&plan, "argmin/argmax");
    plan_reduce_index(ctx, &plan, type, op, src, offset, n, to);
    s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, NULL);
    if (s != CLPRIM_SUCCESS)
        return s;
    if (value)
        memcpy(value, best_value, type->size);
    if (index)
        *index = (size_t)best_index;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_reduce_index_to(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src, size_t offset,
                                     size_t n, cl_mem value, size_t value_offset, cl_mem index, size_t index_offset,
                                     cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                     cl_event *event)
{
    static const char fn[] = "clprim_reduce_index_to";
    const clprim_type_info *type;
    clprim_region in, value_at = {0}, index_at = {0};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = check_call(ctx, fn, t, op, src, offset, n, &type, &in);
    if (s == CLPRIM_SUCCESS && !value && !index)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: value and index are both NULL", fn);
    if (s == CLPRIM_SUCCESS && value)
        s = clprim_check_buffer(ctx, "value", value, value_offset, 1, type->size, CLPRIM_WRITES, &value_at);
    if (s == CLPRIM_SUCCESS && index)
        s = clprim_check_buffer(ctx, "index", index, index_offset, 1, sizeof(cl_ulong), CLPRIM_WRITES, &index_at);
    /* Empty regions (an output not asked for) meet nothing. */
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "value", &value_at, "src", &in, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "index", &index_at, "src", &in, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "value", &value_at, "index", &index_at, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    const answer_target to = {value, index, value_offset, index_offset, NULL, NULL};
    clprim_plan plan;
    clprim_plan_begin(&plan, "argmin/argmax");
    plan_reduce_index(ctx, &plan, type, op, src, offset, n, to);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
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
