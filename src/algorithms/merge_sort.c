/* Merge sort and merge by a caller's comparator (cl/merge_sort.cl).
 *
 * The sort: a block sort makes sorted runs of one piece each (a tile of
 * WG x ITEMS keys on work-groups of several work-items; on the CPU shape, a
 * chunk of n / groups keys a work-group, sorted sequentially), then each pass
 * merges pairs of runs into runs twice as long: a partition launch finds where
 * every piece of the output starts in its two runs, a merge launch merges each
 * piece (over short pairs, the merge launch finds them itself: finds_splits).
 * The passes ping-pong between the output and a copy in scratch,
 * starting where the last lands in the output. clprim_merge is one pass over
 * two arrays. */
#include "radix_sort.h"

#include <stdio.h>
#include <stdlib.h>

#define MERGE_FILE "merge_sort.cl"

/* A checked call: the key and value types (value NULL: keys alone) and the
 * order: the caller's comparator, parsed, or clprim_sort_keys's order. */
typedef struct {
    const clprim_type_info *key, *value;
    const char *text; /* the comparator as the caller wrote it; NULL: by sort order */
    char *less;       /* as parsed and written out */
    clprim_sort_spec order;
} merge_spec;

static clprim_status check_less(clprim_context *ctx, clprim_type key_type, const char *less, merge_spec *m)
{
    m->text = less;
    clprim_status s = clprim_check_type(ctx, key_type, &m->key);
    if (s != CLPRIM_SUCCESS)
        return s;
    const clprim_expression_variable vars[] = {{"a", m->key->scalar}, {"b", m->key->scalar}};
    return clprim_parse_expression(ctx, "less", less, vars, 2, &m->less);
}

static clprim_status check_value_type(clprim_context *ctx, const char *fn, clprim_type value_type, int indices,
                                      size_t n, merge_spec *m)
{
    m->value = clprim_type_info_of(value_type);
    if (!m->value)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: value_type %d is not a clprim_type", fn, (int)value_type);
    if (indices && value_type != CLPRIM_UINT32 && value_type != CLPRIM_UINT64)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s: values_in is NULL, so the values are the indices: value_type must be uint32 or "
                           "uint64, not %s",
                           fn, m->value->label);
    if (indices && value_type == CLPRIM_UINT32 && (cl_ulong)n > (cl_ulong)UINT32_MAX + 1)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s: values_in is NULL (values are the indices) but n = %zu has indices beyond uint32; "
                           "use value_type CLPRIM_UINT64",
                           fn, n);
    return CLPRIM_SUCCESS;
}

/* The merge kernels' shape: the tuning's, with twice its items a work-item
 * for keys alone on work-groups of several work-items, where that tile fits
 * in local memory. Longer runs out of the block sort save merge passes: 2^26
 * uint32 keys on an H100 5.40 -> 4.44 ms (256 x 16, two passes fewer), 2^20
 * 0.178 -> 0.172; pairs were slower so (9.20 -> 11.02 ms) and keep the
 * tuning's. */
static clprim_tuning merge_shape(const clprim_context *ctx, const merge_spec *m)
{
    clprim_tuning twice = ctx->tuning;
    twice.items_per_thread *= 2;
    if (m->value || ctx->tuning.work_group_size == 1 || clprim_local_bytes_needed(&twice) > ctx->local_mem_size)
        return ctx->tuning;
    return twice;
}

/* Begins the plan with its one program, merge_sort.cl for the spec at
 * merge_shape's shape; returns the program's index. */
static unsigned merge_plan_begin(const clprim_context *ctx, clprim_plan *plan, const char *purpose,
                                 const merge_spec *m)
{
    clprim_plan_begin(plan, purpose);
    clprim_program p;
    const clprim_tuning shape = merge_shape(ctx, m);
    if (m->text) {
        clprim_program_begin(ctx, &p, purpose, MERGE_FILE, &shape, m->key, -1);
        clprim_expression_option(ctx, &p.options, "LESS", m->less);
    } else { /* keys moved as their bits, compared in the sort's order */
        const clprim_type_info *bits = clprim_type_info_of(m->key->size == 4 ? CLPRIM_UINT32 : CLPRIM_UINT64);
        clprim_program_begin(ctx, &p, purpose, MERGE_FILE, &shape, bits, -1);
        clprim_options_add(&p.options, "-DKEY=%s -DORDER_DESCENDING=%d -DORDER_BEGIN_BIT=%uu -DORDER_END_BIT=%uu",
                           m->key->name, m->order.descending != 0, m->order.begin_bit, m->order.end_bit);
    }
    clprim_options_add(&p.options, "-DVALUE_BYTES=%zu", m->value ? m->value->size : 0);
    return clprim_plan_program(plan, &p);
}

size_t clprim_merge_piece(const clprim_tuning *t, size_t n)
{
    if (t->work_group_size > 1)
        return t->work_group_size * t->items_per_thread;
    const size_t share = n / t->groups + (n % t->groups != 0);
    return share > t->items_per_thread ? share : t->items_per_thread;
}

/* Keys and values at an offset each; a NULL buffer stands for the scratch. */
typedef struct {
    cl_mem keys;
    cl_ulong keys_offset;
    cl_mem values;
    cl_ulong values_offset;
} merge_place;

/* Whether a pass of n keys over pairs of wa + wb finds its splits in the
 * merge launch (cl/merge_sort.cl's find_piece), taking no partition launch:
 * where a pair has fewer pieces than a work-group has work-items, and each
 * work-group searching all of its pair's splits makes at most
 * FIND_SPLITS_SEARCHES searches in all, over at most FIND_SPLITS_GROUPS
 * work-groups (pieces), each of which waits on its searches before it
 * merges. On an H100 (uint32 keys, 256 x 16) 2^20 keys took 0.157 -> 0.134
 * ms with every pass but the last so, but 2^26 keys 4.27 -> 5.58, whose
 * passes searched up to 2^21 times; at 2^22, keys (1024 pieces) ran level
 * and pairs (256 x 8: 2048 pieces) 3.5% slower. */
#define FIND_SPLITS_SEARCHES 32768
#define FIND_SPLITS_GROUPS 1024
static int finds_splits(const clprim_tuning *shape, size_t n, cl_ulong wa, cl_ulong wb)
{
    const cl_ulong piece = clprim_merge_piece(shape, n);
    const cl_ulong per_pair = (wa + wb + piece - 1) / piece, pieces = (n + piece - 1) / piece;
    return shape->work_group_size > 1 && per_pair < shape->work_group_size && pieces <= FIND_SPLITS_GROUPS &&
           pieces * (per_pair + 1) <= FIND_SPLITS_SEARCHES;
}

/* One pass: out gets, for each pair of runs of wa keys of a and wb keys of b
 * (b's run of pair p at p * (wa + wb) + b_skip), their stable merge. */
static void plan_pass(clprim_plan *plan, unsigned program, merge_place *a, merge_place *b, merge_place *out, size_t n,
                      cl_ulong wa, cl_ulong wb, cl_ulong b_skip, size_t splits, size_t flag)
{
    const clprim_tuning *shape = &plan->programs[program].shape;
    const cl_ulong count = n, piece = clprim_merge_piece(shape, n), pieces = (n + piece - 1) / piece;
    const cl_ulong splits_at = splits / sizeof(cl_ulong), flag_at = flag / sizeof(cl_uint);
    const int find_splits = finds_splits(shape, n, wa, wb);
    if (!find_splits)
        CLPRIM_PLAN_LAUNCH(plan, program, "merge_partition", clprim_fill_groups(shape, pieces),
                           CLPRIM_BUFFER_ARG(a->keys), CLPRIM_ARG(a->keys_offset), CLPRIM_BUFFER_ARG(b->keys),
                           CLPRIM_ARG(b->keys_offset), CLPRIM_ARG(count), CLPRIM_ARG(wa), CLPRIM_ARG(wb),
                           CLPRIM_ARG(b_skip), CLPRIM_ARG(piece), CLPRIM_ARG(pieces), CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(splits_at), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(flag_at));
    CLPRIM_PLAN_LAUNCH(plan, program, find_splits ? "merge_pieces_finding" : "merge_pieces", pieces,
                       CLPRIM_BUFFER_ARG(a->keys), CLPRIM_ARG(a->keys_offset), CLPRIM_BUFFER_ARG(b->keys),
                       CLPRIM_ARG(b->keys_offset), CLPRIM_BUFFER_ARG(a->values), CLPRIM_ARG(a->values_offset),
                       CLPRIM_BUFFER_ARG(b->values), CLPRIM_ARG(b->values_offset),
                       CLPRIM_BUFFER_ARG(out->keys), CLPRIM_ARG(out->keys_offset), CLPRIM_BUFFER_ARG(out->values),
                       CLPRIM_ARG(out->values_offset), CLPRIM_ARG(count), CLPRIM_ARG(wa), CLPRIM_ARG(wb),
                       CLPRIM_ARG(b_skip), CLPRIM_ARG(piece), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(splits_at),
                       CLPRIM_SCRATCH_ARG, CLPRIM_ARG(flag_at));
}

/* The splits of a pass's pieces and `passes` flag words (cleared here), in
 * the plan's scratch; the flags' byte offset goes to *flags. */
static size_t plan_splits(clprim_plan *plan, unsigned program, size_t n, size_t passes, size_t *flags)
{
    const clprim_tuning *shape = &plan->programs[program].shape;
    const size_t piece = clprim_merge_piece(shape, n), splits = clprim_layout_part(&plan->scratch, (n / piece + 1) * 8);
    *flags = clprim_layout_part(&plan->scratch, passes * sizeof(cl_uint));
    const cl_ulong words = passes, at = *flags / sizeof(cl_uint);
    const cl_int zero = 0;
    CLPRIM_PLAN_LAUNCH(plan, program, "fill_words", clprim_fill_groups(shape, words), CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(at), CLPRIM_ARG(words), CLPRIM_ARG(zero));
    return splits;
}

static void plan_merge_sort(clprim_plan *plan, unsigned program, const merge_spec *m, merge_place in, merge_place out,
                            int indices, size_t n)
{
    const size_t piece = clprim_merge_piece(&plan->programs[program].shape, n);
    size_t passes = 0;
    for (size_t width = piece; width < n; width *= 2)
        passes++;
    const size_t kb = m->key->size, vb = m->value ? m->value->size : kb;
    merge_place tmp = {NULL, clprim_layout_part(&plan->scratch, n * kb) / kb, NULL, 0};
    if (m->value)
        tmp.values_offset = clprim_layout_part(&plan->scratch, n * vb) / vb;
    else
        tmp.values = out.values, tmp.values_offset = out.values_offset; /* never read */
    /* The widest pairs, the last pass's, decide whether any pass partitions. */
    const cl_ulong widest = passes ? (cl_ulong)piece << (passes - 1) : 0;
    const int partitions = passes && !finds_splits(&plan->programs[program].shape, n, widest, widest);
    size_t flags = 0, splits = partitions ? plan_splits(plan, program, n, passes, &flags) : 0;

    /* The block sort writes where an even number of passes later ends in out. */
    merge_place *at = passes % 2 ? &tmp : &out, *other = passes % 2 ? &out : &tmp;
    const cl_ulong count = n, run = piece;
    const cl_uint from_indices = indices != 0;
    CLPRIM_PLAN_LAUNCH(plan, program, "merge_block_sort", (n + piece - 1) / piece, CLPRIM_BUFFER_ARG(in.keys),
                       CLPRIM_ARG(in.keys_offset), CLPRIM_BUFFER_ARG(at->keys), CLPRIM_ARG(at->keys_offset),
                       CLPRIM_BUFFER_ARG(other->keys), CLPRIM_ARG(other->keys_offset), CLPRIM_BUFFER_ARG(in.values),
                       CLPRIM_ARG(in.values_offset), CLPRIM_BUFFER_ARG(at->values), CLPRIM_ARG(at->values_offset),
                       CLPRIM_BUFFER_ARG(other->values), CLPRIM_ARG(other->values_offset), CLPRIM_ARG(from_indices),
                       CLPRIM_ARG(count), CLPRIM_ARG(run));
    cl_ulong width = piece;
    for (size_t pass = 0; pass < passes; pass++, width *= 2) {
        plan_pass(plan, program, at, at, other, n, width, width, width, splits, flags + pass * sizeof(cl_uint));
        merge_place *swap = at;
        at = other;
        other = swap;
    }
}

/* After clprim_execute: a build failure is the comparator's. */
static clprim_status merge_execute(clprim_context *ctx, clprim_plan *plan, const merge_spec *m,
                                   cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    const clprim_status s = clprim_execute(ctx, plan, num_events_in_wait_list, event_wait_list, event);
    if (s == CLPRIM_BUILD_FAILED && m->text) {
        char types[48];
        snprintf(types, sizeof types, "a and b %s", m->key->label);
        clprim_expression_build_failed(ctx, "less", m->text, types);
    }
    return s;
}

clprim_status clprim_merge_sort(clprim_context *ctx, clprim_type key_type, clprim_type value_type, const char *less,
                                cl_mem keys_in, size_t keys_in_offset, cl_mem keys_out, size_t keys_out_offset,
                                cl_mem values_in, size_t values_in_offset, cl_mem values_out,
                                size_t values_out_offset, size_t n, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_merge_sort";
    merge_spec m = {0};
    clprim_region keys_read, keys_written, values_read = {0}, values_written = {0};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = check_less(ctx, key_type, less, &m);
    if (s == CLPRIM_SUCCESS && values_out)
        s = check_value_type(ctx, fn, value_type, values_in == NULL, n, &m);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, fn, "keys_in", &keys_in, &keys_in_offset, "keys_out", keys_out,
                                 keys_out_offset, n, m.key->size, &keys_read, &keys_written);
    if (s == CLPRIM_SUCCESS && values_out && values_in)
        s = clprim_check_src_dst(ctx, fn, "values_in", &values_in, &values_in_offset, "values_out", values_out,
                                 values_out_offset, n, m.value->size, &values_read, &values_written);
    else if (s == CLPRIM_SUCCESS && values_out)
        s = clprim_check_buffer(ctx, "values_out", values_out, values_out_offset, n, m.value->size, CLPRIM_WRITES,
                                &values_written);
    /* An output may meet nothing but its own input in place. */
    if (s == CLPRIM_SUCCESS && values_out)
        s = clprim_check_disjoint(ctx, fn, "keys_out", &keys_written, "values_out", &values_written, 0);
    if (s == CLPRIM_SUCCESS && values_out)
        s = clprim_check_disjoint(ctx, fn, "keys_out", &keys_written, "values_in", &values_read, 0);
    if (s == CLPRIM_SUCCESS && values_out)
        s = clprim_check_disjoint(ctx, fn, "values_out", &values_written, "keys_in", &keys_read, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS) {
        clprim_plan plan;
        const unsigned merge_cl = merge_plan_begin(ctx, &plan, "merge sort", &m);
        if (n > 0) {
            /* Without values the value places are never read: any buffer fills them. */
            const merge_place in = {keys_in, keys_in_offset, values_in ? values_in : values_out ? values_out : keys_in,
                                    values_in ? values_in_offset : values_out_offset},
                              out = {keys_out, keys_out_offset, values_out ? values_out : keys_out, values_out_offset};
            plan_merge_sort(&plan, merge_cl, &m, in, out, values_out && !values_in, n);
        }
        s = merge_execute(ctx, &plan, &m, num_events_in_wait_list, event_wait_list, event);
    }
    free(m.less);
    return s;
}

/* clprim_merge and clprim_merge_in_order once the order is checked (m->key
 * set; a failed check comes in as s). */
static clprim_status merge_call(clprim_context *ctx, const char *fn, clprim_status s, merge_spec *m,
                                clprim_type value_type, cl_mem a_keys, size_t a_keys_offset, cl_mem a_values,
                                size_t a_values_offset, size_t na, cl_mem b_keys, size_t b_keys_offset,
                                cl_mem b_values, size_t b_values_offset, size_t nb, cl_mem keys_out,
                                size_t keys_out_offset, cl_mem values_out, size_t values_out_offset,
                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    clprim_region read[4] = {{0}}, keys_written, values_written;
    static const char *const read_names[4] = {"a_keys", "b_keys", "a_values", "b_values"};
    const size_t n = na + nb;
    if (s == CLPRIM_SUCCESS && n < na)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: na + nb (%zu + %zu) overflows size_t", fn, na, nb);
    if (s == CLPRIM_SUCCESS && values_out)
        s = check_value_type(ctx, fn, value_type, 0, n, m);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "a_keys", a_keys, a_keys_offset, na, m->key->size, CLPRIM_READS, &read[0]);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "b_keys", b_keys, b_keys_offset, nb, m->key->size, CLPRIM_READS, &read[1]);
    if (s == CLPRIM_SUCCESS && values_out)
        s = clprim_check_buffer(ctx, "a_values", a_values, a_values_offset, na, m->value->size, CLPRIM_READS,
                                &read[2]);
    if (s == CLPRIM_SUCCESS && values_out)
        s = clprim_check_buffer(ctx, "b_values", b_values, b_values_offset, nb, m->value->size, CLPRIM_READS,
                                &read[3]);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "keys_out", keys_out, keys_out_offset, n, m->key->size, CLPRIM_WRITES,
                                &keys_written);
    if (s == CLPRIM_SUCCESS && values_out)
        s = clprim_check_buffer(ctx, "values_out", values_out, values_out_offset, n, m->value->size, CLPRIM_WRITES,
                                &values_written);
    /* The outputs meet no input and not each other. */
    for (int i = 0; i < (values_out ? 4 : 2); i++) {
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, fn, read_names[i], &read[i], "keys_out", &keys_written, 0);
        if (s == CLPRIM_SUCCESS && values_out)
            s = clprim_check_disjoint(ctx, fn, read_names[i], &read[i], "values_out", &values_written, 0);
    }
    if (s == CLPRIM_SUCCESS && values_out)
        s = clprim_check_disjoint(ctx, fn, "keys_out", &keys_written, "values_out", &values_written, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS) {
        clprim_plan plan;
        const unsigned merge_cl = merge_plan_begin(ctx, &plan, "merge", m);
        if (n > 0) {
            /* Without values the value places are never read: the keys fill them. */
            merge_place a = {a_keys, a_keys_offset, values_out ? a_values : a_keys, a_values_offset},
                        b = {b_keys, b_keys_offset, values_out ? b_values : b_keys, b_values_offset},
                        out = {keys_out, keys_out_offset, values_out ? values_out : keys_out, values_out_offset};
            size_t flag = 0, splits = 0; /* none where the merge launch finds its splits */
            if (!finds_splits(&plan.programs[merge_cl].shape, n, na, nb))
                splits = plan_splits(&plan, merge_cl, n, 1, &flag);
            plan_pass(&plan, merge_cl, &a, &b, &out, n, na, nb, 0, splits, flag);
        }
        s = merge_execute(ctx, &plan, m, num_events_in_wait_list, event_wait_list, event);
    }
    free(m->less);
    return s;
}

clprim_status clprim_merge(clprim_context *ctx, clprim_type key_type, clprim_type value_type, const char *less,
                           cl_mem a_keys, size_t a_keys_offset, cl_mem a_values, size_t a_values_offset, size_t na,
                           cl_mem b_keys, size_t b_keys_offset, cl_mem b_values, size_t b_values_offset, size_t nb,
                           cl_mem keys_out, size_t keys_out_offset, cl_mem values_out, size_t values_out_offset,
                           cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_merge";
    merge_spec m = {0};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = check_less(ctx, key_type, less, &m);
    return merge_call(ctx, fn, s, &m, value_type, a_keys, a_keys_offset, a_values, a_values_offset, na, b_keys,
                      b_keys_offset, b_values, b_values_offset, nb, keys_out, keys_out_offset, values_out,
                      values_out_offset, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_merge_in_order(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                    const clprim_sort_order *order, cl_mem a_keys, size_t a_keys_offset,
                                    cl_mem a_values, size_t a_values_offset, size_t na, cl_mem b_keys,
                                    size_t b_keys_offset, cl_mem b_values, size_t b_values_offset, size_t nb,
                                    cl_mem keys_out, size_t keys_out_offset, cl_mem values_out,
                                    size_t values_out_offset, cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_merge_in_order";
    merge_spec m = {0};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_sort_order(ctx, fn, key_type, order, &m.order);
    m.key = clprim_type_info_of(key_type);
    return merge_call(ctx, fn, s, &m, value_type, a_keys, a_keys_offset, a_values, a_values_offset, na, b_keys,
                      b_keys_offset, b_values, b_values_offset, nb, keys_out, keys_out_offset, values_out,
                      values_out_offset, num_events_in_wait_list, event_wait_list, event);
}

/* ---- Descriptor ---- */

/* Programs are per comparator expression, as a caller's operator's are:
 * none is built ahead. */
const clprim_primitive clprim_merge_sort_primitive = {"merge_sort", NULL, NULL};
