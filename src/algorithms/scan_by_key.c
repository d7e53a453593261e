/* Scan by key: the scan's three passes over (value, segment head) pairs
 * (cl/scan_by_key.cl). Pass 1 folds each work-group's chunk to a pair, pass 2
 * (one work-item, over one pair per group) turns them into each chunk's seed,
 * pass 3 scans each chunk from its seed, starting again at every head. Also
 * the segment flags and ones that reduce by key builds on (by_key.c). */
#include "internal.h"

void clprim_scan_by_key_program(const clprim_context *ctx, const clprim_type_info *key, const clprim_type_info *value,
                                const clprim_combine *c, clprim_program *p)
{
    clprim_combine_program(ctx, p, "scan by key", "scan_by_key.cl", &ctx->tuning, value, c);
    clprim_options_add(&p->options, "-DKEY=%s", key->name);
}

void clprim_plan_scan_by_key(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *key,
                             const clprim_type_info *value, const clprim_combine *c, int exclusive, cl_mem keys,
                             size_t keys_offset, cl_mem values, size_t values_offset, cl_mem dst, size_t dst_offset,
                             size_t n)
{
    /* The scan's split; scratch for one pair per group. */
    const clprim_tuning *shape = &ctx->tuning;
    const clprim_split split = clprim_split_range(shape, n);
    const int with_seeds = split.groups > 1;
    const size_t partials_at = clprim_layout_part(&plan->scratch, split.groups * value->size);
    const size_t heads_at = clprim_layout_part(&plan->scratch, split.groups * sizeof(cl_uint));
    clprim_program program;
    clprim_scan_by_key_program(ctx, key, value, c, &program);
    const unsigned scan_by_key_cl = clprim_plan_program(plan, &program);

    /* The chunks' pairs and their seeds (several groups), the scan. */
    const cl_ulong count = n, groups = split.groups, k_off = keys_offset, v_off = values_offset, d_off = dst_offset;
    const cl_ulong partials = partials_at / value->size, heads = heads_at / sizeof(cl_uint);
    const cl_int seeded = with_seeds, excl = exclusive != 0;
    if (with_seeds) {
        CLPRIM_PLAN_LAUNCH(plan, scan_by_key_cl, "segment_chunks", split.groups, CLPRIM_ARG(keys), CLPRIM_ARG(k_off),
                           CLPRIM_BUFFER_ARG(values), CLPRIM_ARG(v_off), CLPRIM_ARG(count), CLPRIM_ARG(split.chunk),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(partials), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(heads));
        CLPRIM_PLAN_LAUNCH(plan, scan_by_key_cl, "segment_seeds", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(partials),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(heads), CLPRIM_ARG(groups));
    }
    CLPRIM_PLAN_LAUNCH(plan, scan_by_key_cl, "scan_by_key_chunks", split.groups, CLPRIM_ARG(keys), CLPRIM_ARG(k_off),
                       CLPRIM_BUFFER_ARG(values), CLPRIM_ARG(v_off), CLPRIM_BUFFER_ARG(dst), CLPRIM_ARG(d_off),
                       CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(partials),
                       CLPRIM_ARG(seeded), CLPRIM_ARG(excl));
}

/* Kernels that every scan by key program holds: the flags take the program
 * of (key, key, SUM), the ones that of (key, value, SUM). */
void clprim_plan_segment_flags(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *key,
                               cl_mem keys, size_t keys_offset, size_t n, int tails, cl_mem flags, size_t flags_offset)
{
    const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM);
    clprim_program program;
    clprim_scan_by_key_program(ctx, key, key, &sum, &program);
    const cl_ulong k_off = keys_offset, count = n, f_off = flags_offset;
    const cl_int want_tails = tails != 0;
    CLPRIM_PLAN_LAUNCH(plan, clprim_plan_program(plan, &program), "segment_flags", clprim_fill_groups(&ctx->tuning, n),
                       CLPRIM_ARG(keys), CLPRIM_ARG(k_off), CLPRIM_ARG(count), CLPRIM_ARG(want_tails),
                       CLPRIM_BUFFER_ARG(flags), CLPRIM_ARG(f_off));
}

void clprim_plan_fill_ones(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *key,
                           const clprim_type_info *value, cl_mem dst, size_t dst_offset, size_t n)
{
    const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM);
    clprim_program program;
    clprim_scan_by_key_program(ctx, key, value, &sum, &program);
    const cl_ulong d_off = dst_offset, count = n;
    const cl_int one = 1;
    CLPRIM_PLAN_LAUNCH(plan, clprim_plan_program(plan, &program), "fill_elements",
                       clprim_fill_groups(&ctx->tuning, n), CLPRIM_BUFFER_ARG(dst), CLPRIM_ARG(d_off), CLPRIM_ARG(count),
                       CLPRIM_ARG(one));
}

clprim_status clprim_check_key_type(clprim_context *ctx, const char *function, clprim_type key_type,
                                    const clprim_type_info **key)
{
    const clprim_type_info *info = clprim_type_info_of(key_type);
    if (!info || !info->is_segment_key)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: key_type %d: keys are int32, uint32, int64 or uint64",
                           function, (int)key_type);
    return clprim_check_type(ctx, key_type, key);
}

clprim_status clprim_scan_by_key(clprim_context *ctx, clprim_type key_type, clprim_type value_type, clprim_op op,
                                 const clprim_operator *custom, int exclusive, cl_mem keys, size_t keys_offset,
                                 cl_mem values, size_t values_offset, cl_mem dst, size_t dst_offset, size_t n,
                                 cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_scan_by_key";
    const clprim_type_info *key = NULL, *value = NULL;
    clprim_region key_region, in, out;
    clprim_combine c = clprim_combine_builtin(op);
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_key_type(ctx, fn, key_type, &key);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_operator(ctx, value_type, &value, op, custom != NULL, custom, &c);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "keys", keys, keys_offset, n, key->size, CLPRIM_READS, &key_region);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, fn, "values", &values, &values_offset, "dst", dst, dst_offset, n, value->size,
                                 &in, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "keys", &key_region, "dst", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    /* The program is in the plan also for n == 0, so that an operator that
     * does not compile fails there too. */
    if (s == CLPRIM_SUCCESS) {
        clprim_plan plan;
        clprim_plan_begin(&plan, "scan by key");
        clprim_program program;
        clprim_scan_by_key_program(ctx, key, value, &c, &program);
        clprim_plan_program(&plan, &program);
        if (n > 0)
            clprim_plan_scan_by_key(ctx, &plan, key, value, &c, exclusive, keys, keys_offset, values, values_offset,
                                    dst, dst_offset, n);
        s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    }
    clprim_combine_free(&c);
    return s;
}

/* ---- Descriptor ---- */

/* A program per key type, value type and operator: built on first use. */
const clprim_primitive clprim_scan_by_key_primitive = {"scan_by_key", NULL, NULL};
