/* Reduce: pass 1 of the scan (one partial per work-group), then one work-group
 * folds the partials; the value is read back to the host. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* What an empty reduction returns (clprim.h, clprim_op): EMPTY_RESULT of
 * cl/types.h, which for float MIN/MAX is an infinity, not the kernels' NaN identity. */
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

/* Where a reduction's result goes: to the host (*host), or to element `offset`
 * of a device buffer. */
typedef struct {
    void *host;
    cl_mem buffer;
    cl_ulong offset;
} reduce_target;

/* What a reduction reads: src's elements from offset, or (map) a caller's
 * function of one or two arrays, computed by pass 1 and never stored. */
typedef struct {
    cl_mem src;
    size_t offset;
    const clprim_mapped *map;
} reduce_input;

/* The plan of a reduction. Where the device exchanges records between
 * work-groups, one launch: each work-group publishes its chunk's fold and the
 * last to finish folds them (block/last_group.cl). Elsewhere one partial per
 * work-group, then, with several, one group folding them. The result goes to
 * a slot of the scratch, read back to the host, or to the caller's buffer.
 * With no element a host result needs no launch (the plan builds a caller's
 * operator, which must compile, and waits for the wait list); a device result
 * is one group's fold of nothing, which writes the empty result. A function's
 * reduction is its own program (reduce.cl with -DMAP). */
static void plan_reduce(const clprim_context *ctx, const clprim_type_info *type, const clprim_combine *c,
                        int user_op, reduce_input in, size_t n, reduce_target to, clprim_plan *plan)
{
    const clprim_tuning *shape = &ctx->tuning;
    const char *purpose = in.map ? "transform-reduce" : "reduce";
    clprim_plan_begin(plan, purpose);
    plan->blocking = to.host != NULL;
    if (n == 0 && to.host && !user_op)
        return;
    clprim_program program;
    clprim_combine_program(ctx, &program, purpose, "reduce.cl", shape, type, c);
    if (in.map)
        clprim_map_options(ctx, &program, in.map);
    const unsigned reduce_cl = clprim_plan_program(plan, &program);
    if (n == 0 && to.host)
        return;
    const clprim_split split = clprim_split_range(shape, n);
    const int one_launch = clprim_records_available(ctx);
    const int folds = !one_launch && split.groups > 1; /* the folding group's chunk covers every partial */
    const cl_ulong count = n, groups = split.groups;
    /* The partials of a second launch, then a host result's slot. */
    const size_t slots = (folds ? split.groups : 0) + 1;
    const cl_ulong partials = clprim_layout_part(&plan->scratch, slots * type->size) / type->size;
    const cl_ulong answer = to.host ? partials + slots - 1 : to.offset;
    const cl_mem out = to.buffer; /* NULL: the scratch */
    const char *kernel = one_launch ? "reduce_all" : "reduce_chunks";
    const clprim_arg first_out = folds ? CLPRIM_SCRATCH_ARG : CLPRIM_BUFFER_ARG(out);
    const clprim_arg first_at = folds ? CLPRIM_ARG(partials) : CLPRIM_ARG(answer);
    /* reduce_all's last arguments: the records; reduce_chunks takes none. */
    const clprim_arg records[2] = {CLPRIM_RECORDS_ARG, CLPRIM_STAMP_ARG};
    const size_t nrecords = one_launch ? 2 : 0;
    /* The input: a function's one or two arrays, or src. */
    cl_mem x = in.src, y = NULL;
    cl_ulong x_offset = in.offset, y_offset = 0;
    if (in.map) {
        x = in.map->f->x;
        x_offset = in.map->f->x_offset;
        y = clprim_map_second(in.map, &y_offset);
    }
    clprim_arg args[10];
    size_t nargs = 0;
    args[nargs++] = CLPRIM_ARG(x);
    args[nargs++] = CLPRIM_ARG(x_offset);
    if (in.map) {
        args[nargs++] = CLPRIM_ARG(y);
        args[nargs++] = CLPRIM_ARG(y_offset);
    }
    args[nargs++] = CLPRIM_ARG(count);
    args[nargs++] = CLPRIM_ARG(split.chunk);
    args[nargs++] = first_out;
    args[nargs++] = first_at;
    for (size_t i = 0; i < nrecords; i++)
        args[nargs++] = records[i];
    clprim_launch *l = clprim_plan_launch(plan, reduce_cl, kernel, split.groups, args, nargs);
    if (l && one_launch) {
        l->record_tiles = split.groups;
        l->record_bytes = type->size;
    }
    if (folds) {
        /* A function's program reads its function, not the partials: the
         * fold is the plain program's. */
        unsigned fold_cl = reduce_cl;
        if (in.map) {
            clprim_program plain;
            clprim_combine_program(ctx, &plain, purpose, "reduce.cl", shape, type, c);
            fold_cl = clprim_plan_program(plan, &plain);
        }
        CLPRIM_PLAN_LAUNCH(plan, fold_cl, "reduce_chunks", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(partials),
                           CLPRIM_ARG(groups), CLPRIM_ARG(groups), CLPRIM_BUFFER_ARG(out), CLPRIM_ARG(answer));
    }
    if (to.host)
        clprim_plan_read(plan, NULL, answer * type->size, type->size, to.host);
}

/* clprim_reduce, clprim_reduce_op, clprim_reduce_to and
 * clprim_transform_reduce (f: the function, for src): the checks, then the
 * plan (result: the host's, or NULL for result_buffer's). */
static clprim_status reduce_call(clprim_context *ctx, const char *function, clprim_type t, clprim_op op,
                                 int user_op, const clprim_operator *user, const clprim_map *f, cl_mem src,
                                 size_t offset, size_t n, void *result, cl_mem result_buffer, size_t result_offset,
                                 cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    const clprim_type_info *type;
    clprim_region in, out;
    clprim_mapped map = {0};
    clprim_combine c = clprim_combine_builtin(op);
    CLPRIM_ENTER(s, ctx, function);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_operator(ctx, t, &type, op, user_op, user, &c);
    if (s == CLPRIM_SUCCESS && f)
        s = clprim_check_map(ctx, function, f, n, &map);
    else if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, offset, n, type->size, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS && !result && !result_buffer)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: result is NULL", function);
    if (s == CLPRIM_SUCCESS && !result) {
        s = clprim_check_buffer(ctx, "result", result_buffer, result_offset, 1, type->size, CLPRIM_WRITES, &out);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, function, f ? "f->x" : "src", f ? &map.x_bytes : &in, "result", &out, 0);
        if (s == CLPRIM_SUCCESS && f && f->y)
            s = clprim_check_disjoint(ctx, function, "f->y", &map.y_bytes, "result", &out, 0);
    }
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, function, num_events_in_wait_list, event_wait_list);
    /* A caller's operator is built first, so that a build failure of the
     * plan's is the function's. */
    if (s == CLPRIM_SUCCESS && f && user_op)
        s = clprim_combine_prepare(ctx, "reduce", "reduce.cl", type, &c);
    if (s == CLPRIM_SUCCESS) {
        const reduce_target to = {result, result_buffer, result_offset};
        const reduce_input input = {src, offset, f ? &map : NULL};
        clprim_plan plan;
        plan_reduce(ctx, type, &c, user_op, input, n, to, &plan);
        s = f ? clprim_map_execute(ctx, &plan, &map, type, num_events_in_wait_list, event_wait_list, event)
              : clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    }
    if (s == CLPRIM_SUCCESS && result && n == 0 && user_op) /* nothing combined */
        memcpy(result, user->identity, type->size);
    else if (s == CLPRIM_SUCCESS && result && n == 0)
        write_empty_result(t, op, result);
    clprim_mapped_free(&map);
    clprim_combine_free(&c);
    return s;
}

clprim_status clprim_reduce(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src, size_t offset,
                            size_t n, void *result, cl_uint num_events_in_wait_list, const cl_event *event_wait_list)
{
    return reduce_call(ctx, "clprim_reduce", t, op, 0, NULL, NULL, src, offset, n, result, NULL, 0, num_events_in_wait_list,
                       event_wait_list, NULL);
}

clprim_status clprim_reduce_op(clprim_context *ctx, clprim_type t, const clprim_operator *op, cl_mem src,
                               size_t offset, size_t n, void *result, cl_uint num_events_in_wait_list,
                               const cl_event *event_wait_list)
{
    return reduce_call(ctx, "clprim_reduce_op", t, CLPRIM_SUM, 1, op, NULL, src, offset, n, result, NULL, 0,
                       num_events_in_wait_list, event_wait_list, NULL);
}

clprim_status clprim_reduce_to(clprim_context *ctx, clprim_type t, clprim_op op, const clprim_operator *custom,
                               cl_mem src, size_t offset, size_t n, cl_mem result, size_t result_offset,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    return reduce_call(ctx, "clprim_reduce_to", t, custom ? CLPRIM_SUM : op, custom != NULL, custom, NULL, src, offset, n,
                       NULL, result, result_offset, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_transform_reduce(clprim_context *ctx, const clprim_map *f, size_t n, clprim_type t,
                                      clprim_op op, const clprim_operator *custom, cl_mem result,
                                      size_t result_offset, cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list, cl_event *event)
{
    return reduce_call(ctx, "clprim_transform_reduce", t, custom ? CLPRIM_SUM : op, custom != NULL, custom, f, NULL,
                       0, n, NULL, result, result_offset, num_events_in_wait_list, event_wait_list, event);
}

/* ---- Descriptor ---- */

static void reduce_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                            const clprim_type_info *type)
{
    (void)t;
    for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
        const clprim_combine c = clprim_combine_builtin((clprim_op)op);
        clprim_program p;
        clprim_combine_program(ctx, &p, "warm-up", "reduce.cl", &ctx->tuning, type, &c);
        clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
    }
}

const clprim_primitive clprim_reduce_primitive = {"reduce", reduce_variants, NULL};
