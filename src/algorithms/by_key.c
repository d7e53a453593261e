/* Reduce by key, run-length encoding, unique and unique by key: one plan that
 * appends the other primitives' steps, their data sharing its scratch: a scan
 * by key of the values (ones for run lengths; none for the unique calls), the
 * flags of the segments' last (or first) elements, then compactions of the
 * keys and of the scanned (or given) values by those flags. The compactions
 * write the outputs and the count, so a call that fails before them leaves the
 * caller's buffers untouched. */
#include "internal.h"

/* What one call asks for. combine: the values scanned by key, reduce by key
 * (values NULL: run lengths, ones summed); else the first key (and value) of
 * each run, unique (value NULL: keys only) and unique by key. */
typedef struct {
    const char *function;
    const clprim_type_info *key, *value;
    clprim_type key_type, value_type;
    const clprim_combine *combine;
    cl_mem keys, values, keys_out, values_out, runs_buffer;
    size_t keys_offset, values_offset, keys_out_offset, values_out_offset, runs_offset, n;
    size_t *runs;
} by_key_call;

/* Buffers, sizes and overlaps (the types are checked by the caller). */
static clprim_status check_buffers(clprim_context *ctx, const by_key_call *b)
{
    const char *fn = b->function;
    clprim_region k, v, ko, vo, r;
    clprim_status s = clprim_check_buffer(ctx, "keys", b->keys, b->keys_offset, b->n, b->key->size, CLPRIM_READS, &k);
    if (s == CLPRIM_SUCCESS && b->values)
        s = clprim_check_buffer(ctx, "values", b->values, b->values_offset, b->n, b->value->size, CLPRIM_READS, &v);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "keys_out", b->keys_out, b->keys_out_offset, b->n, b->key->size, CLPRIM_WRITES,
                                &ko);
    const char *vo_name = b->values ? "values_out" : "lengths";
    if (s == CLPRIM_SUCCESS && b->value)
        s = clprim_check_buffer(ctx, vo_name, b->values_out, b->values_out_offset, b->n, b->value->size,
                                CLPRIM_WRITES, &vo);
    if (s == CLPRIM_SUCCESS && b->runs_buffer)
        s = clprim_check_buffer(ctx, "runs_buffer", b->runs_buffer, b->runs_offset, 1, sizeof(cl_ulong),
                                CLPRIM_WRITES, &r);
    /* Every output apart from every other buffer. */
    const struct {
        const char *name;
        const clprim_region *region;
        int present;
    } all[] = {{"keys", &k, 1},
               {"values", &v, b->values != NULL},
               {"keys_out", &ko, 1},
               {vo_name, &vo, b->value != NULL},
               {"runs_buffer", &r, b->runs_buffer != NULL}};
    for (size_t i = 2; i < 5 && s == CLPRIM_SUCCESS; i++)
        for (size_t j = 0; j < i && s == CLPRIM_SUCCESS; j++)
            if (all[i].present && all[j].present)
                s = clprim_check_disjoint(ctx, fn, all[j].name, all[j].region, all[i].name, all[i].region, 0);
    return s;
}

/* The plan of a checked call; with b->runs it reads the count back into *total. */
static clprim_status plan_by_key(clprim_context *ctx, const by_key_call *b, clprim_plan *plan, cl_ulong *total)
{
    const int scanned = b->combine != NULL; /* else the runs' first elements */
    if (scanned) { /* an operator that does not compile fails, also at n == 0 */
        clprim_program program;
        clprim_scan_by_key_program(ctx, b->key, b->value, b->combine, &program);
        clprim_plan_program(plan, &program);
    }
    /* n == 0: a compaction of nothing reports the count 0 where the caller
     * asked for it, as the other cases' last one does. Its predicate reads no
     * flags; any buffer serves. */
    const clprim_predicate of_nothing = {.keep = CLPRIM_KEEP_FLAGGED, .flags = b->keys};
    const clprim_compaction nothing = {.t = b->key_type, .type = b->key, .keep = &of_nothing, .src = b->keys,
                                       .src_offset = b->keys_offset, .dst = b->keys_out,
                                       .dst_offset = b->keys_out_offset, .kept = b->runs,
                                       .kept_buffer = b->runs_buffer, .kept_offset = b->runs_offset};
    if (b->n == 0)
        return clprim_plan_compaction(ctx, plan, &nothing, total);

    /* In scratch: the ones (run lengths), the scanned values, and a flag a
     * key; then the parts the steps lay out for themselves. Values (or ones)
     * scanned by key, the flags, the compactions. */
    const size_t es = b->value ? b->value->size : 1;
    const size_t ones_at = b->values || !scanned ? 0 : clprim_layout_part(&plan->scratch, b->n * es);
    const size_t scanned_at = scanned ? clprim_layout_part(&plan->scratch, b->n * es) : 0;
    const size_t flags_at = clprim_layout_part(&plan->scratch, b->n);
    const size_t values_offset = b->values ? b->values_offset : ones_at / es;
    if (!b->values && scanned)
        clprim_plan_fill_ones(ctx, plan, b->key, b->value, NULL, ones_at / es, b->n);
    if (scanned)
        clprim_plan_scan_by_key(ctx, plan, b->key, b->value, b->combine, 0, b->keys, b->keys_offset, b->values,
                                values_offset, NULL, scanned_at / es, b->n);
    clprim_plan_segment_flags(ctx, plan, b->key, b->keys, b->keys_offset, b->n, scanned, NULL, flags_at);
    const clprim_predicate flagged = {.keep = CLPRIM_KEEP_FLAGGED, .flags = NULL, .flags_offset = flags_at};
    const int keys_only = b->value == NULL;
    const clprim_compaction keys_kept = {.t = b->key_type, .type = b->key, .keep = &flagged, .src = b->keys,
                                         .src_offset = b->keys_offset, .dst = b->keys_out,
                                         .dst_offset = b->keys_out_offset, .n = b->n,
                                         .kept = keys_only ? b->runs : NULL,
                                         .kept_buffer = keys_only ? b->runs_buffer : NULL,
                                         .kept_offset = b->runs_offset};
    const clprim_compaction values_kept = {.t = b->value_type, .type = b->value, .keep = &flagged,
                                           .src = scanned ? NULL : b->values,
                                           .src_offset = scanned ? scanned_at / es : b->values_offset,
                                           .dst = b->values_out, .dst_offset = b->values_out_offset, .n = b->n,
                                           .kept = b->runs, .kept_buffer = b->runs_buffer,
                                           .kept_offset = b->runs_offset};
    clprim_status s = clprim_plan_compaction(ctx, plan, &keys_kept, total);
    if (s == CLPRIM_SUCCESS && !keys_only)
        s = clprim_plan_compaction(ctx, plan, &values_kept, total);
    return s;
}

static clprim_status by_key(clprim_context *ctx, const by_key_call *b, cl_uint num_events_in_wait_list,
                            const cl_event *event_wait_list, cl_event *event)
{
    clprim_status s = check_buffers(ctx, b);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, b->function, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    cl_ulong total;
    clprim_plan_begin(&plan, b->function);
    s = plan_by_key(ctx, b, &plan, &total);
    if (s == CLPRIM_SUCCESS)
        s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    else
        clprim_plan_end(&plan);
    if (s == CLPRIM_SUCCESS && b->runs)
        *b->runs = (size_t)total;
    return s;
}

clprim_status clprim_reduce_by_key(clprim_context *ctx, clprim_type key_type, clprim_type value_type, clprim_op op,
                                   const clprim_operator *custom, cl_mem keys, size_t keys_offset, cl_mem values,
                                   size_t values_offset, size_t n, cl_mem keys_out, size_t keys_out_offset,
                                   cl_mem values_out, size_t values_out_offset, size_t *runs, cl_mem runs_buffer,
                                   size_t runs_offset, cl_uint num_events_in_wait_list,
                                   const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_reduce_by_key";
    const clprim_type_info *key = NULL, *value = NULL;
    clprim_combine c = clprim_combine_builtin(op);
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_key_type(ctx, fn, key_type, &key);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_operator(ctx, value_type, &value, op, custom != NULL, custom, &c);
    if (s == CLPRIM_SUCCESS && !values)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: values is NULL", fn);
    const by_key_call b = {fn,        key,         value,       key_type,         value_type,        &c,
                           keys,      values,      keys_out,    values_out,       runs_buffer,       keys_offset,
                           values_offset, keys_out_offset, values_out_offset, runs_offset, n, runs};
    if (s == CLPRIM_SUCCESS)
        s = by_key(ctx, &b, num_events_in_wait_list, event_wait_list, event);
    clprim_combine_free(&c);
    return s;
}

clprim_status clprim_run_length_encode(clprim_context *ctx, clprim_type key_type, cl_mem keys, size_t keys_offset,
                                       size_t n, cl_mem keys_out, size_t keys_out_offset, cl_mem lengths,
                                       size_t lengths_offset, size_t *runs, cl_mem runs_buffer, size_t runs_offset,
                                       cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                       cl_event *event)
{
    static const char fn[] = "clprim_run_length_encode";
    const clprim_type_info *key = NULL;
    const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM);
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_key_type(ctx, fn, key_type, &key);
    const by_key_call b = {fn,          key,         clprim_type_info_of(CLPRIM_UINT64), key_type, CLPRIM_UINT64, &sum,
                           keys,        NULL,        keys_out,    lengths,    runs_buffer, keys_offset,
                           0,           keys_out_offset, lengths_offset, runs_offset, n, runs};
    if (s == CLPRIM_SUCCESS)
        s = by_key(ctx, &b, num_events_in_wait_list, event_wait_list, event);
    return s;
}

clprim_status clprim_unique(clprim_context *ctx, clprim_type key_type, cl_mem keys, size_t keys_offset, size_t n,
                            cl_mem keys_out, size_t keys_out_offset, size_t *count, cl_mem count_buffer,
                            size_t count_offset, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                            cl_event *event)
{
    static const char fn[] = "clprim_unique";
    const clprim_type_info *key = NULL;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_key_type(ctx, fn, key_type, &key);
    const by_key_call b = {fn,   key,  NULL,         key_type, key_type, NULL, keys, NULL, keys_out,
                           NULL, count_buffer, keys_offset, 0, keys_out_offset, 0, count_offset, n, count};
    if (s == CLPRIM_SUCCESS)
        s = by_key(ctx, &b, num_events_in_wait_list, event_wait_list, event);
    return s;
}

clprim_status clprim_unique_by_key(clprim_context *ctx, clprim_type key_type, clprim_type value_type, cl_mem keys,
                                   size_t keys_offset, cl_mem values, size_t values_offset, size_t n,
                                   cl_mem keys_out, size_t keys_out_offset, cl_mem values_out,
                                   size_t values_out_offset, size_t *count, cl_mem count_buffer, size_t count_offset,
                                   cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_unique_by_key";
    const clprim_type_info *key = NULL, *value = NULL;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_key_type(ctx, fn, key_type, &key);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, value_type, &value);
    if (s == CLPRIM_SUCCESS && !values)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: values is NULL", fn);
    const by_key_call b = {fn,       key,         value,       key_type,          value_type,   NULL,
                           keys,     values,      keys_out,    values_out,        count_buffer, keys_offset,
                           values_offset, keys_out_offset, values_out_offset, count_offset, n, count};
    if (s == CLPRIM_SUCCESS)
        s = by_key(ctx, &b, num_events_in_wait_list, event_wait_list, event);
    return s;
}

/* ---- Descriptor ---- */

/* Scan by key's programs, per key type, value type and operator, and
 * compaction's: built on first use. */
const clprim_primitive clprim_reduce_by_key_primitive = {"reduce_by_key", NULL, NULL};
