/* By key: scan by key, reduce by key, run-length encoding (of every run and
 * of the non-trivial ones), unique and unique by key, over segments (runs of
 * equal consecutive keys). One agent (cl/by_key.cl) in the scan's two forms:
 *   one-sweep (exact operators, where the tuning names it): one launch, each
 *   tile looking back at the tiles before it;
 *   multi-pass: each work-group folds its chunk to a part (pass 1), one
 *   work-item scans the parts into seeds (pass 2), each work-group scans or
 *   writes its chunk from its seed (pass 3).
 * The run calls write their outputs, and the count, only in their last launch,
 * so a call that fails before it leaves the caller's buffers untouched. One
 * program per key type, value type and operator serves every call. */
#include "internal.h"

clprim_status clprim_check_key_type(clprim_context *ctx, const char *function, clprim_type key_type,
                                    const clprim_type_info **key)
{
    const clprim_type_info *info = clprim_type_info_of(key_type);
    if (!info || !info->is_segment_key)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: key_type %d: keys are int32, uint32, int64 or uint64",
                           function, (int)key_type);
    return clprim_check_type(ctx, key_type, key);
}

/* The program of a key type, value type and operator, at the one-sweep
 * form's shape whichever form runs: one build serves both forms. The shape is
 * compaction's for the widest element, whatever the types: a tile stages a
 * key and a value. */
static void by_key_program(const clprim_context *ctx, const clprim_type_info *key, const clprim_type_info *value,
                           const clprim_combine *c, clprim_tuning *shape, clprim_program *p)
{
    *shape = clprim_compact_shape(ctx, 1, sizeof(cl_ulong), 0);
    clprim_combine_program(ctx, p, "by key", "by_key.cl", shape, value, c);
    clprim_options_add(&p->options, "-DKEY=%s", key->name);
}

/* What the one-sweep form needs: the form and tile numbers in 32 bits. (Float
 * sums and callers' operators group tiles by their numbers there,
 * cl/block/lookback.cl, so no operator rules it out.) */
static size_t one_sweep_tiles(const clprim_context *ctx, const clprim_tuning *shape, size_t n)
{
    return clprim_one_sweep_available(ctx) ? clprim_one_sweep_tiles(shape, n) : 0;
}

/* A look-back record holds the part of the tiles before: the pair (value,
 * head), for the runs with the count of outputs before in the head's word,
 * as cl/by_key.cl lays out its seg and part. */
static size_t record_bytes(const clprim_type_info *value)
{
    return value->size > 4 ? 16 : 8;
}

/* The runs' records count outputs in 31 bits: the one-sweep form runs below
 * 2^31 elements, the multi-pass form (64-bit counts) from there on. */
#define RUNS_ONE_SWEEP_LIMIT ((size_t)1 << 31)

/* Passes 1 and 2 of the multi-pass form over n > 0 elements: each chunk's
 * part (values NULL: ones), then their exclusive scan, in scratch at
 * seeds->values, ->heads and ->counts (in their own units). */
typedef struct {
    clprim_split split;
    cl_ulong values, heads, counts;
} chunk_seeds;

static chunk_seeds plan_chunk_seeds(const clprim_tuning *shape, clprim_plan *plan, unsigned program,
                                    const clprim_type_info *value, cl_mem keys, cl_ulong keys_offset, cl_mem values,
                                    cl_ulong values_offset, int mode, size_t n)
{
    chunk_seeds seeds = {clprim_split_range(shape, n), 0, 0, 0};
    if (seeds.split.groups == 1)
        return seeds;
    seeds.values = clprim_layout_part(&plan->scratch, seeds.split.groups * value->size) / value->size;
    seeds.heads = clprim_layout_part(&plan->scratch, seeds.split.groups * sizeof(cl_uint)) / sizeof(cl_uint);
    seeds.counts = clprim_layout_part(&plan->scratch, seeds.split.groups * sizeof(cl_ulong)) / sizeof(cl_ulong);
    const cl_int with_values = values != NULL, run_mode = mode;
    const cl_ulong count = n, groups = seeds.split.groups;
    CLPRIM_PLAN_LAUNCH(plan, program, "runs_chunks", seeds.split.groups, CLPRIM_ARG(keys), CLPRIM_ARG(keys_offset),
                       CLPRIM_BUFFER_ARG(values), CLPRIM_ARG(values_offset), CLPRIM_ARG(with_values),
                       CLPRIM_ARG(count), CLPRIM_ARG(seeds.split.chunk), CLPRIM_ARG(run_mode), CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(seeds.values), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(seeds.heads), CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(seeds.counts));
    CLPRIM_PLAN_LAUNCH(plan, program, "runs_seeds", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(seeds.values),
                       CLPRIM_SCRATCH_ARG, CLPRIM_ARG(seeds.heads), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(seeds.counts),
                       CLPRIM_ARG(groups));
    return seeds;
}

/* ---- Scan by key ---- */

/* The program is in the plan also for n == 0, so that an operator that does
 * not compile fails there too. */
static void plan_scan_by_key(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *key,
                             const clprim_type_info *value, const clprim_combine *c, int exclusive, cl_mem keys,
                             cl_ulong keys_offset, cl_mem values, cl_ulong values_offset, cl_mem dst,
                             cl_ulong dst_offset, size_t n)
{
    clprim_tuning shape;
    clprim_program program;
    by_key_program(ctx, key, value, c, &shape, &program);
    const unsigned by_key_cl = clprim_plan_program(plan, &program);
    if (n == 0)
        return;
    const cl_ulong count = n;
    const cl_int excl = exclusive != 0;
    const int in_place = values == dst && values_offset == dst_offset;
    const size_t tiles = in_place && !clprim_one_sweep_in_place(ctx) ? 0 : one_sweep_tiles(ctx, &shape, n);
    if (tiles) {
        clprim_launch *l = CLPRIM_PLAN_LAUNCH(plan, by_key_cl, "scan_by_key_tiles", tiles, CLPRIM_ARG(keys),
                                              CLPRIM_ARG(keys_offset), CLPRIM_ARG(values), CLPRIM_ARG(values_offset),
                                              CLPRIM_ARG(dst), CLPRIM_ARG(dst_offset), CLPRIM_ARG(count),
                                              CLPRIM_RECORDS_ARG, CLPRIM_STAMP_ARG, CLPRIM_ARG(excl));
        if (l) {
            l->record_tiles = tiles;
            l->record_bytes = record_bytes(value);
        }
        return;
    }
    const chunk_seeds seeds =
        plan_chunk_seeds(&shape, plan, by_key_cl, value, keys, keys_offset, values, values_offset, RUNS_FIRST, n);
    const cl_int with_seeds = seeds.split.groups > 1;
    CLPRIM_PLAN_LAUNCH(plan, by_key_cl, "scan_by_key_chunks", seeds.split.groups, CLPRIM_ARG(keys),
                       CLPRIM_ARG(keys_offset), CLPRIM_ARG(values), CLPRIM_ARG(values_offset), CLPRIM_ARG(dst),
                       CLPRIM_ARG(dst_offset), CLPRIM_ARG(count), CLPRIM_ARG(seeds.split.chunk), CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(seeds.values), CLPRIM_ARG(with_seeds), CLPRIM_ARG(excl));
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
    if (s == CLPRIM_SUCCESS) {
        clprim_plan plan;
        clprim_plan_begin(&plan, "scan by key");
        plan_scan_by_key(ctx, &plan, key, value, &c, exclusive, keys, keys_offset, values, values_offset, dst,
                         dst_offset, n);
        s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    }
    clprim_combine_free(&c);
    return s;
}

/* ---- The runs: reduce by key, run lengths, unique, non-trivial runs ---- */

/* What one call asks for. mode (cl/constants.h): where an output goes.
 * value: the values' type (the lengths' for run lengths and non-trivial runs,
 * the keys' for unique); values NULL: ones. values_out NULL: keys only. */
typedef struct {
    const char *function;
    int mode;
    const clprim_type_info *key, *value;
    const clprim_combine *combine;
    cl_mem keys, values, keys_out, values_out, runs_buffer;
    size_t keys_offset, values_offset, keys_out_offset, values_out_offset, runs_offset, n;
    size_t *runs;
    const char *keys_out_name, *values_out_name;
} by_key_call;

/* Run lengths and non-trivial runs write lengths, as cl_ulong. */
static int writes_lengths(const by_key_call *b)
{
    return !b->values && b->mode != RUNS_FIRST;
}

/* The type lengths are summed in on the device: 32 bits where n fits them
 * (half the bytes through local memory and registers), else 64. */
static const clprim_type_info *length_type(size_t n)
{
    return clprim_type_info_of(n <= UINT32_MAX ? CLPRIM_UINT32 : CLPRIM_UINT64);
}

/* Room the outputs need: a non-trivial run takes two elements at least. */
static size_t most_outputs(const by_key_call *b)
{
    return b->mode == RUNS_NONTRIVIAL ? b->n / 2 : b->n;
}

/* Buffers, sizes and overlaps (the types are checked by the caller). */
static clprim_status check_buffers(clprim_context *ctx, const by_key_call *b)
{
    const char *fn = b->function;
    clprim_region k, v, ko, vo, r;
    const size_t out_size = b->mode == RUNS_NONTRIVIAL ? sizeof(cl_ulong) : b->key->size, room = most_outputs(b);
    const char *vo_name = b->values_out_name;
    clprim_status s = clprim_check_buffer(ctx, "keys", b->keys, b->keys_offset, b->n, b->key->size, CLPRIM_READS, &k);
    if (s == CLPRIM_SUCCESS && b->values)
        s = clprim_check_buffer(ctx, "values", b->values, b->values_offset, b->n, b->value->size, CLPRIM_READS, &v);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, b->keys_out_name, b->keys_out, b->keys_out_offset, room, out_size, CLPRIM_WRITES,
                                &ko);
    if (s == CLPRIM_SUCCESS && vo_name)
        s = clprim_check_buffer(ctx, vo_name, b->values_out, b->values_out_offset, room,
                                writes_lengths(b) ? sizeof(cl_ulong) : b->value->size, CLPRIM_WRITES, &vo);
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
               {b->keys_out_name, &ko, 1},
               {vo_name, &vo, vo_name != NULL},
               {"runs_buffer", &r, b->runs_buffer != NULL}};
    for (size_t i = 2; i < 5 && s == CLPRIM_SUCCESS; i++)
        for (size_t j = 0; j < i && s == CLPRIM_SUCCESS; j++)
            if (all[i].present && all[j].present)
                s = clprim_check_disjoint(ctx, fn, all[j].name, all[j].region, all[i].name, all[i].region, 0);
    return s;
}

/* The plan of a checked call; with b->runs it reads the count back into
 * *total. The count goes to runs_buffer, else to scratch. */
static void plan_runs(const clprim_context *ctx, const by_key_call *b, clprim_plan *plan, cl_ulong *total)
{
    clprim_tuning shape;
    clprim_program program;
    by_key_program(ctx, b->key, b->value, b->combine, &shape, &program);
    const unsigned by_key_cl = clprim_plan_program(plan, &program);
    *total = 0;
    plan->blocking |= b->runs != NULL;
    const cl_ulong count_offset =
        b->runs_buffer ? b->runs_offset : clprim_layout_part(&plan->scratch, sizeof(cl_ulong)) / sizeof(cl_ulong);
    if (b->n == 0) { /* no runs: the count's two words cleared where the caller wants it */
        if (b->runs_buffer) {
            const cl_ulong words_at = 2 * count_offset, words = 2;
            const cl_int zero = 0;
            CLPRIM_PLAN_LAUNCH(plan, by_key_cl, "fill_words", 1, CLPRIM_ARG(b->runs_buffer), CLPRIM_ARG(words_at),
                               CLPRIM_ARG(words), CLPRIM_ARG(zero));
        }
        return;
    }
    const cl_ulong n = b->n, k_off = b->keys_offset, v_off = b->values_offset, ko_off = b->keys_out_offset,
                   vo_off = b->values_out_offset;
    const cl_int mode = b->mode, with_values = b->values != NULL, with_values_out = b->values_out != NULL,
                 write_count = 1;
    const cl_mem values = b->values ? b->values : b->keys, values_out = b->values_out ? b->values_out : b->keys_out;
    const size_t tiles = b->n < RUNS_ONE_SWEEP_LIMIT ? one_sweep_tiles(ctx, &shape, b->n) : 0;
    if (tiles) {
        clprim_launch *l = CLPRIM_PLAN_LAUNCH(
            plan, by_key_cl, "runs_tiles", tiles, CLPRIM_ARG(b->keys), CLPRIM_ARG(k_off), CLPRIM_ARG(values),
            CLPRIM_ARG(v_off), CLPRIM_ARG(with_values), CLPRIM_ARG(n), CLPRIM_ARG(mode), CLPRIM_ARG(b->keys_out),
            CLPRIM_ARG(ko_off), CLPRIM_ARG(values_out), CLPRIM_ARG(vo_off), CLPRIM_ARG(with_values_out),
            CLPRIM_RECORDS_ARG, CLPRIM_STAMP_ARG, CLPRIM_BUFFER_ARG(b->runs_buffer), CLPRIM_ARG(count_offset),
            CLPRIM_ARG(write_count));
        if (l) {
            l->record_tiles = tiles;
            l->record_bytes = record_bytes(b->value);
        }
    } else {
        const chunk_seeds seeds = plan_chunk_seeds(&shape, plan, by_key_cl, b->value, b->keys, k_off, b->values,
                                                   v_off, b->mode, b->n);
        const cl_int with_seeds = seeds.split.groups > 1;
        CLPRIM_PLAN_LAUNCH(plan, by_key_cl, "runs_scatter_chunks", seeds.split.groups, CLPRIM_ARG(b->keys),
                           CLPRIM_ARG(k_off), CLPRIM_ARG(values), CLPRIM_ARG(v_off), CLPRIM_ARG(with_values),
                           CLPRIM_ARG(n), CLPRIM_ARG(seeds.split.chunk), CLPRIM_ARG(mode), CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(seeds.values), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(seeds.counts),
                           CLPRIM_ARG(with_seeds), CLPRIM_ARG(b->keys_out), CLPRIM_ARG(ko_off),
                           CLPRIM_ARG(values_out), CLPRIM_ARG(vo_off), CLPRIM_ARG(with_values_out),
                           CLPRIM_BUFFER_ARG(b->runs_buffer), CLPRIM_ARG(count_offset), CLPRIM_ARG(write_count));
    }
    if (b->runs)
        clprim_plan_read(plan, b->runs_buffer, count_offset * sizeof *total, sizeof *total, total);
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
    plan_runs(ctx, b, &plan, &total);
    s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    if (s == CLPRIM_SUCCESS && b->runs)
        *b->runs = (size_t)total;
    return s;
}

/* Reduce by key (RUNS_REDUCE: op, or custom when not NULL) and unique by key
 * (RUNS_FIRST: the values only copied): keys and values in, a key and a value
 * out per run. */
static clprim_status pairs_call(clprim_context *ctx, const char *fn, int mode, clprim_type key_type,
                                clprim_type value_type, clprim_op op, const clprim_operator *custom, cl_mem keys,
                                size_t keys_offset, cl_mem values, size_t values_offset, size_t n, cl_mem keys_out,
                                size_t keys_out_offset, cl_mem values_out, size_t values_out_offset, size_t *runs,
                                cl_mem runs_buffer, size_t runs_offset, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *event)
{
    const clprim_type_info *key = NULL, *value = NULL;
    clprim_combine c = clprim_combine_builtin(op);
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_key_type(ctx, fn, key_type, &key);
    if (s == CLPRIM_SUCCESS)
        s = mode == RUNS_REDUCE ? clprim_check_operator(ctx, value_type, &value, op, custom != NULL, custom, &c)
                                : clprim_check_type(ctx, value_type, &value);
    if (s == CLPRIM_SUCCESS && !values)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: values is NULL", fn);
    const by_key_call b = {.function = fn, .mode = mode, .key = key, .value = value, .combine = &c,
                           .keys = keys, .values = values, .keys_out = keys_out, .values_out = values_out,
                           .runs_buffer = runs_buffer, .keys_offset = keys_offset, .values_offset = values_offset,
                           .keys_out_offset = keys_out_offset, .values_out_offset = values_out_offset,
                           .runs_offset = runs_offset, .n = n, .runs = runs, .keys_out_name = "keys_out",
                           .values_out_name = "values_out"};
    if (s == CLPRIM_SUCCESS)
        s = by_key(ctx, &b, num_events_in_wait_list, event_wait_list, event);
    clprim_combine_free(&c);
    return s;
}

clprim_status clprim_reduce_by_key(clprim_context *ctx, clprim_type key_type, clprim_type value_type, clprim_op op,
                                   const clprim_operator *custom, cl_mem keys, size_t keys_offset, cl_mem values,
                                   size_t values_offset, size_t n, cl_mem keys_out, size_t keys_out_offset,
                                   cl_mem values_out, size_t values_out_offset, size_t *runs, cl_mem runs_buffer,
                                   size_t runs_offset, cl_uint num_events_in_wait_list,
                                   const cl_event *event_wait_list, cl_event *event)
{
    return pairs_call(ctx, "clprim_reduce_by_key", RUNS_REDUCE, key_type, value_type, op, custom, keys, keys_offset,
                      values, values_offset, n, keys_out, keys_out_offset, values_out, values_out_offset, runs,
                      runs_buffer, runs_offset, num_events_in_wait_list, event_wait_list, event);
}

/* Run lengths and non-trivial runs: keys (or first indices, `firsts`) and
 * lengths, summed as ones. */
static clprim_status run_lengths(clprim_context *ctx, const char *fn, int mode, const char *firsts_name,
                                 clprim_type key_type, cl_mem keys, size_t keys_offset, size_t n, cl_mem firsts,
                                 size_t firsts_offset, cl_mem lengths, size_t lengths_offset, size_t *runs,
                                 cl_mem runs_buffer, size_t runs_offset, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    const clprim_type_info *key = NULL;
    const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM);
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_key_type(ctx, fn, key_type, &key);
    const by_key_call b = {.function = fn, .mode = mode, .key = key, .value = length_type(n), .combine = &sum,
                           .keys = keys, .keys_out = firsts, .values_out = lengths, .runs_buffer = runs_buffer,
                           .keys_offset = keys_offset, .keys_out_offset = firsts_offset,
                           .values_out_offset = lengths_offset, .runs_offset = runs_offset, .n = n, .runs = runs,
                           .keys_out_name = firsts_name, .values_out_name = "lengths"};
    if (s == CLPRIM_SUCCESS)
        s = by_key(ctx, &b, num_events_in_wait_list, event_wait_list, event);
    return s;
}

clprim_status clprim_run_length_encode(clprim_context *ctx, clprim_type key_type, cl_mem keys, size_t keys_offset,
                                       size_t n, cl_mem keys_out, size_t keys_out_offset, cl_mem lengths,
                                       size_t lengths_offset, size_t *runs, cl_mem runs_buffer, size_t runs_offset,
                                       cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                       cl_event *event)
{
    return run_lengths(ctx, "clprim_run_length_encode", RUNS_REDUCE, "keys_out", key_type, keys, keys_offset, n,
                       keys_out, keys_out_offset, lengths, lengths_offset, runs, runs_buffer, runs_offset,
                       num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_run_length_encode_nontrivial(clprim_context *ctx, clprim_type key_type, cl_mem keys,
                                                  size_t keys_offset, size_t n, cl_mem offsets, size_t offsets_offset,
                                                  cl_mem lengths, size_t lengths_offset, size_t *runs,
                                                  cl_mem runs_buffer, size_t runs_offset,
                                                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                  cl_event *event)
{
    return run_lengths(ctx, "clprim_run_length_encode_nontrivial", RUNS_NONTRIVIAL, "offsets", key_type, keys,
                       keys_offset, n, offsets, offsets_offset, lengths, lengths_offset, runs, runs_buffer,
                       runs_offset, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_unique(clprim_context *ctx, clprim_type key_type, cl_mem keys, size_t keys_offset, size_t n,
                            cl_mem keys_out, size_t keys_out_offset, size_t *count, cl_mem count_buffer,
                            size_t count_offset, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                            cl_event *event)
{
    static const char fn[] = "clprim_unique";
    const clprim_type_info *key = NULL;
    const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM); /* values are only copied */
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_key_type(ctx, fn, key_type, &key);
    const by_key_call b = {.function = fn, .mode = RUNS_FIRST, .key = key, .value = key, .combine = &sum,
                           .keys = keys, .keys_out = keys_out, .runs_buffer = count_buffer,
                           .keys_offset = keys_offset, .keys_out_offset = keys_out_offset,
                           .runs_offset = count_offset, .n = n, .runs = count, .keys_out_name = "keys_out"};
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
    return pairs_call(ctx, "clprim_unique_by_key", RUNS_FIRST, key_type, value_type, CLPRIM_SUM, NULL, keys,
                      keys_offset, values, values_offset, n, keys_out, keys_out_offset, values_out,
                      values_out_offset, count, count_buffer, count_offset, num_events_in_wait_list,
                      event_wait_list, event);
}

/* ---- Descriptors ---- */

/* A program per key type, value type and operator, shared by the whole
 * family: built on first use. */
const clprim_primitive clprim_scan_by_key_primitive = {"scan_by_key", NULL, NULL};
const clprim_primitive clprim_reduce_by_key_primitive = {"reduce_by_key", NULL, NULL};
