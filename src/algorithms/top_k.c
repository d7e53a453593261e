/* Top-k: the first k keys (with values) of n in the radix sort's order, by
 * radix select (cl/top_k.cl), then the stable radix sort of those k in the
 * caller's outputs. A level per 8 bits of the order's bit range, from the
 * top: its digit counts, one work-group choosing the digit that holds the
 * k-th key, and a scatter of the keys below it to the output and of those
 * at it to the next level's candidates. Nothing is read back: the call
 * never blocks. k >= n is the sort of all n. */
#include "radix_sort.h"

#include <string.h>

#define TOP_K_FILE "top_k.cl"
#define LEVEL_WORDS 5 /* cl/top_k.cl's record of a level, in cl_ulong */

static void top_k_program(const clprim_context *ctx, const clprim_sort_spec *spec, clprim_program *p)
{
    clprim_program_begin(ctx, p, "top-k", TOP_K_FILE, &ctx->tuning, NULL, -1);
    clprim_options_add(&p->options, "-DKEY=%s -DVALUE_BYTES=%zu", clprim_type_info_of(spec->key_type)->name,
                       spec->value_bytes);
}

/* A buffer (NULL: the scratch) and an offset in elements. */
typedef struct {
    cl_mem buf;
    cl_ulong offset;
} place;

#define PLACE_ARGS(p) CLPRIM_BUFFER_ARG((p).buf), CLPRIM_ARG((p).offset)
/* The three places a level's keys or values can be in (cl/top_k.cl's
 * PLACES_PARAMS): the input, then the two candidate buffers. */
#define PLACES_ARGS(p) PLACE_ARGS((p)[0]), PLACE_ARGS((p)[1]), PLACE_ARGS((p)[2])

/* The select of k < n keys of keys_in (values_in NULL with values: the
 * indices) into keys_out and values_out (NULL: keys alone), then their sort
 * there. Scratch: the levels' records, each work-group's counts, places and
 * copied count, and two candidate buffers of n keys and values each (the
 * worst case: most keys share the k-th one's top digit but not all). */
static void plan_select(const clprim_context *ctx, clprim_plan *plan, const clprim_sort_spec *spec, cl_mem keys_in,
                        cl_ulong keys_in_offset, cl_mem values_in, cl_ulong values_in_offset, size_t n, size_t k,
                        cl_mem keys_out, cl_ulong keys_out_offset, cl_mem values_out, cl_ulong values_out_offset)
{
    const size_t kb = clprim_type_info_of(spec->key_type)->size, vb = spec->value_bytes;
    const unsigned levels = (spec->end_bit - spec->begin_bit + RADIX_BITS - 1) / RADIX_BITS;
    const clprim_split split = clprim_split_range(&ctx->tuning, n);
    const cl_ulong groups = split.groups;
    clprim_layout *l = &plan->scratch;
    const cl_ulong records = clprim_layout_part(l, (levels + 1) * LEVEL_WORDS * 8) / 8;
    const cl_ulong counts = clprim_layout_part(l, split.groups * RADIX * 4) / 4;
    const cl_ulong places = clprim_layout_part(l, split.groups * 2 * 8) / 8;
    const cl_ulong copied = clprim_layout_part(l, split.groups * 8) / 8; /* the CPU shape's (cl/top_k.cl) */
    /* Without values the value places are never read: any buffer fills them. */
    place keys[3] = {{keys_in, keys_in_offset}}, values[3];
    values[0] = vb && values_in ? (place){values_in, values_in_offset} : keys[0];
    for (int i = 1; i < 3; i++) {
        keys[i] = (place){NULL, clprim_layout_part(l, n * kb) / kb};
        values[i] = vb ? (place){NULL, clprim_layout_part(l, n * vb) / vb} : keys[i];
    }

    clprim_program program;
    top_k_program(ctx, spec, &program);
    const unsigned top_k_cl = clprim_plan_program(plan, &program);
    const cl_ulong count_n = n, count_k = k;
    CLPRIM_PLAN_LAUNCH(plan, top_k_cl, "top_k_start", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(records),
                       CLPRIM_ARG(count_n), CLPRIM_ARG(count_k));

    const cl_uint descending = spec->descending != 0, values_are_indices = vb && !values_in;
    const place out_keys = {keys_out, keys_out_offset};
    const place out_values = vb ? (place){values_out, values_out_offset} : out_keys;
    for (unsigned level = 0; level < levels; level++) {
        const cl_uint top = spec->end_bit - RADIX_BITS * level;
        const cl_uint shift = top - spec->begin_bit > RADIX_BITS ? top - RADIX_BITS : spec->begin_bit;
        const cl_uint mask = (1u << (top - shift)) - 1;
        const cl_ulong record = records + level * LEVEL_WORDS;
        const cl_uint last = level + 1 == levels;
        CLPRIM_PLAN_LAUNCH(plan, top_k_cl, "top_k_count", split.groups, PLACES_ARGS(keys), PLACES_ARGS(values),
                           CLPRIM_ARG(values_are_indices), CLPRIM_ARG(descending), CLPRIM_ARG(shift),
                           CLPRIM_ARG(mask), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(record), CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(counts), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(copied));
        CLPRIM_PLAN_LAUNCH(plan, top_k_cl, "top_k_select", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(counts),
                           CLPRIM_ARG(groups), CLPRIM_ARG(shift), CLPRIM_ARG(mask), CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(record), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(places));
        CLPRIM_PLAN_LAUNCH(plan, top_k_cl, "top_k_scatter", split.groups, PLACES_ARGS(keys), PLACES_ARGS(values),
                           CLPRIM_ARG(values_are_indices), CLPRIM_ARG(descending), CLPRIM_ARG(shift),
                           CLPRIM_ARG(mask), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(record), CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(places), PLACE_ARGS(out_keys), PLACE_ARGS(out_values), CLPRIM_ARG(last),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(copied));
    }
    clprim_plan_radix_sort(ctx, plan, spec, keys_out, keys_out_offset, keys_out, keys_out_offset,
                           vb ? values_out : NULL, values_out_offset, vb ? values_out : NULL, values_out_offset, k);
}

static clprim_status top_k(clprim_context *ctx, const char *fn, clprim_type key_type, int pairs,
                           clprim_type value_type, const clprim_sort_order *order, size_t k, cl_mem keys_in,
                           size_t keys_in_offset, cl_mem values_in, size_t values_in_offset, size_t n,
                           cl_mem keys_out, size_t keys_out_offset, cl_mem values_out, size_t values_out_offset,
                           cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    clprim_sort_spec spec = {0};
    const size_t taken = k < n ? k : n;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_sort_order(ctx, fn, key_type, order, &spec);
    if (s == CLPRIM_SUCCESS && pairs)
        s = clprim_check_sort_value_type(ctx, fn, value_type, values_in == NULL, n, &spec);
    const size_t kb = s == CLPRIM_SUCCESS ? clprim_type_info_of(key_type)->size : 0, vb = spec.value_bytes;
    clprim_region regions[4] = {{0}}; /* keys_in, values_in, keys_out, values_out */
    static const char *const names[4] = {"keys_in", "values_in", "keys_out", "values_out"};
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "keys_in", keys_in, keys_in_offset, n, kb, CLPRIM_READS, &regions[0]);
    if (s == CLPRIM_SUCCESS && pairs && values_in)
        s = clprim_check_buffer(ctx, "values_in", values_in, values_in_offset, n, vb, CLPRIM_READS, &regions[1]);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "keys_out", keys_out, keys_out_offset, taken, kb, CLPRIM_WRITES, &regions[2]);
    if (s == CLPRIM_SUCCESS && pairs)
        s = clprim_check_buffer(ctx, "values_out", values_out, values_out_offset, taken, vb, CLPRIM_WRITES,
                                &regions[3]);
    /* The outputs are written while the inputs are read: they meet nothing. */
    for (int out = 2; out < 4 && s == CLPRIM_SUCCESS; out++)
        for (int other = 0; other < out && s == CLPRIM_SUCCESS; other++)
            s = clprim_check_disjoint(ctx, fn, names[other], &regions[other], names[out], &regions[out], 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS && taken > 0)
        s = clprim_check_radix_sort_shape(ctx, &spec);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_plan plan;
    clprim_plan_begin(&plan, "top-k");
    if (taken == n && n > 0)
        clprim_plan_radix_sort(ctx, &plan, &spec, keys_in, keys_in_offset, keys_out, keys_out_offset,
                               pairs ? values_in : NULL, values_in_offset, pairs ? values_out : NULL,
                               values_out_offset, n);
    else if (taken > 0)
        plan_select(ctx, &plan, &spec, keys_in, keys_in_offset, pairs ? values_in : NULL, values_in_offset, n, k,
                    keys_out, keys_out_offset, pairs ? values_out : NULL, values_out_offset);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_top_k_keys(clprim_context *ctx, clprim_type key_type, const clprim_sort_order *order, size_t k,
                                cl_mem keys_in, size_t keys_in_offset, size_t n, cl_mem keys_out,
                                size_t keys_out_offset, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *event)
{
    return top_k(ctx, "clprim_top_k_keys", key_type, 0, CLPRIM_UINT32, order, k, keys_in, keys_in_offset, NULL, 0, n,
                 keys_out, keys_out_offset, NULL, 0, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_top_k_pairs(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                 const clprim_sort_order *order, size_t k, cl_mem keys_in, size_t keys_in_offset,
                                 cl_mem values_in, size_t values_in_offset, size_t n, cl_mem keys_out,
                                 size_t keys_out_offset, cl_mem values_out, size_t values_out_offset,
                                 cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    return top_k(ctx, "clprim_top_k_pairs", key_type, 1, value_type, order, k, keys_in, keys_in_offset, values_in,
                 values_in_offset, n, keys_out, keys_out_offset, values_out, values_out_offset,
                 num_events_in_wait_list, event_wait_list, event);
}

/* ---- Descriptor ---- */

/* Per key type and value size (none, 4 or 8 bytes), as the radix sort's. */
static void top_k_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    const clprim_type_info *type;
    for (clprim_type t = 0; (type = clprim_type_info_of(t)); t++)
        for (size_t value_bytes = 0; value_bytes <= 8 && type->is_sort_key; value_bytes += 4) {
            const clprim_sort_spec spec = {t, value_bytes, 0, 0, 32};
            clprim_program p;
            top_k_program(ctx, &spec, &p);
            clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
        }
}

const clprim_primitive clprim_top_k_primitive = {"top_k", NULL, top_k_variants};
