/* Reduce by key, run-length encoding and unique, composed of the other
 * primitives' device entries: a scan by key of the values (ones for run
 * lengths) into the outer scratch, the flags of the segments' last (or first)
 * elements, then compactions of the keys and of the scanned values by those
 * flags. The
 * compactions write the outputs and the count, so a call that fails before
 * them leaves the caller's buffers untouched. */
#include "internal.h"

/* What one call asks for. values NULL: run lengths (ones summed); value NULL
 * too: unique (keys only, the flags of the first elements). */
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

static clprim_status by_key(clprim_context *ctx, const by_key_call *b, cl_uint num_events_in_wait_list,
                            const cl_event *event_wait_list, cl_event *event)
{
    clprim_status s = check_buffers(ctx, b);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, b->function, num_events_in_wait_list, event_wait_list);
    const int unique = b->value == NULL;
    if (s == CLPRIM_SUCCESS && !unique) /* an operator that does not compile fails here */
        s = clprim_scan_by_key_prepare(ctx, b->key, b->value, b->combine);
    if (s != CLPRIM_SUCCESS)
        return s;
    /* n == 0: a compaction of nothing reports the count 0 where the caller
     * asked for it, after the wait list, as the other cases' last one does.
     * Its predicate reads no flags; any buffer serves. */
    const clprim_predicate of_nothing = {.keep = CLPRIM_KEEP_FLAGGED, .flags = b->keys};
    const clprim_compaction nothing = {.t = b->key_type, .type = b->key, .keep = &of_nothing, .src = b->keys,
                                       .src_offset = b->keys_offset, .dst = b->keys_out,
                                       .dst_offset = b->keys_out_offset, .kept = b->runs,
                                       .kept_buffer = b->runs_buffer, .kept_offset = b->runs_offset};
    if (b->n == 0)
        return clprim_compaction_enqueue(ctx, &nothing, num_events_in_wait_list, event_wait_list, event);

    /* Plan: in the outer scratch, the ones (run lengths), the scanned values,
     * and a flag a key. */
    const size_t es = unique ? 1 : b->value->size;
    clprim_layout layout = {0, 0};
    const size_t ones_at = b->values || unique ? 0 : clprim_layout_part(&layout, b->n * es);
    const size_t scanned_at = unique ? 0 : clprim_layout_part(&layout, b->n * es);
    const size_t flags_at = clprim_layout_part(&layout, b->n);
    cl_mem outer;
    if (layout.overflow)
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "%s: the scratch for %zu elements overflows size_t", b->function,
                           b->n);
    s = clprim_outer_scratch(ctx, layout.bytes, &outer);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);

    /* Enqueue: values (or ones) scanned by key, the flags, the compactions. */
    cl_mem values = b->values ? b->values : outer;
    const size_t values_offset = b->values ? b->values_offset : ones_at / es;
    if (s == CLPRIM_SUCCESS && !b->values && !unique)
        s = clprim_fill_ones(ctx, b->key, b->value, outer, ones_at / es, b->n);
    if (s == CLPRIM_SUCCESS && !unique)
        s = clprim_scan_by_key_device(ctx, b->key, b->value, b->combine, 0, b->keys, b->keys_offset, values,
                                      values_offset, outer, scanned_at / es, b->n, NULL);
    if (s == CLPRIM_SUCCESS)
        s = clprim_segment_flags(ctx, b->key, b->keys, b->keys_offset, b->n, !unique, outer, flags_at);
    const clprim_predicate flagged = {.keep = CLPRIM_KEEP_FLAGGED, .flags = outer, .flags_offset = flags_at};
    const clprim_compaction keys_kept = {.t = b->key_type, .type = b->key, .keep = &flagged, .src = b->keys,
                                         .src_offset = b->keys_offset, .dst = b->keys_out,
                                         .dst_offset = b->keys_out_offset, .n = b->n,
                                         .kept = unique ? b->runs : NULL,
                                         .kept_buffer = unique ? b->runs_buffer : NULL,
                                         .kept_offset = b->runs_offset};
    const clprim_compaction values_kept = {.t = b->value_type, .type = b->value, .keep = &flagged, .src = outer,
                                           .src_offset = scanned_at / es, .dst = b->values_out,
                                           .dst_offset = b->values_out_offset, .n = b->n, .kept = b->runs,
                                           .kept_buffer = b->runs_buffer, .kept_offset = b->runs_offset};
    if (s == CLPRIM_SUCCESS)
        s = clprim_compaction_enqueue(ctx, &keys_kept, 0, NULL, unique ? event : NULL);
    if (s == CLPRIM_SUCCESS && !unique)
        s = clprim_compaction_enqueue(ctx, &values_kept, 0, NULL, event);
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

/* ---- Descriptor ---- */

/* Scan by key's programs, per key type, value type and operator, and
 * compaction's: built on first use. */
const clprim_primitive clprim_reduce_by_key_primitive = {"reduce_by_key", NULL};
