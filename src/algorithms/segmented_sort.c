/* Segmented sort over an offsets array (cl/segmented_sort.cl): the elements
 * cut into pieces whatever the segments' lengths; one pass sorts every piece
 * by (segment, key), so that each segment inside a piece is done in one read
 * and one write; then ceil(log2(pieces)) merge passes, each a partition
 * launch (the merge path splits of every piece) and a merge launch, which
 * merge the runs of the segments over several pieces that still need it and
 * return at once when none does. The passes a call needs depend on its
 * offsets, which stay on the device: the plan is for the longest segment
 * possible, and nothing is read back. */
#include "radix_sort.h"

#define SEGMENTED_SORT_FILE "segmented_sort.cl"

/* Local memory of the kernels on work-groups of several work-items: the tile
 * as items (a key and its segment's number: 8 bytes for 32-bit keys, 16 for
 * 64-bit) or values, padded; the heads; the scan's slots, the splits. */
static cl_ulong local_bytes(const clprim_tuning *t, const clprim_sort_spec *spec)
{
    const cl_ulong wg = t->work_group_size, tile = wg * t->items_per_thread, padded = tile + tile / 32;
    const size_t item = clprim_type_info_of(spec->key_type)->size == 8 ? 16 : 8;
    const size_t element = item > spec->value_bytes ? item : spec->value_bytes;
    return padded * element + padded + 2 * wg * 4 + wg * 4 + 32;
}

/* The context's shape, with fewer items a work-item until the tile fits in
 * local memory; *fits is 0 when not even one does. */
static clprim_tuning segmented_sort_shape(const clprim_context *ctx, const clprim_sort_spec *spec, int *fits)
{
    clprim_tuning t = ctx->tuning;
    while (t.work_group_size > 1 && t.items_per_thread > 1 && local_bytes(&t, spec) > ctx->local_mem_size)
        t.items_per_thread /= 2;
    *fits = t.work_group_size == 1 || local_bytes(&t, spec) <= ctx->local_mem_size;
    return t;
}

/* Begins *p, segmented_sort.cl for the spec at its shape; 0 when the tile
 * does not fit in local memory there. */
static int segmented_sort_program(const clprim_context *ctx, const clprim_sort_spec *spec, clprim_program *p)
{
    int fits;
    const clprim_tuning shape = segmented_sort_shape(ctx, spec, &fits);
    clprim_program_begin(ctx, p, "segmented sort", SEGMENTED_SORT_FILE, &shape, NULL, -1);
    clprim_options_add(&p->options, "-DKEY=%s -DVALUE_BYTES=%zu", clprim_type_info_of(spec->key_type)->name,
                       spec->value_bytes);
    return fits;
}

/* A buffer and an offset in elements; NULL stands for the scratch. */
typedef struct {
    cl_mem buf;
    cl_ulong offset;
} place;

static void plan_segmented_sort(const clprim_context *ctx, clprim_plan *plan, const clprim_sort_spec *spec,
                                place keys_in, place keys_out, place values_in, place values_out, size_t n,
                                cl_mem offsets, size_t offsets_offset, size_t segments)
{
    clprim_program program;
    segmented_sort_program(ctx, spec, &program); /* it fits: checked by the caller */
    const clprim_tuning shape = program.shape;
    const cl_ulong count = n, piece = clprim_merge_piece(&shape, n), pieces = (n + piece - 1) / piece;
    const unsigned sort_cl = clprim_plan_program(plan, &program);
    if (n == 0 || segments == 0)
        return;
    const size_t kb = clprim_type_info_of(spec->key_type)->size, vb = spec->value_bytes;
    cl_uint passes = 0;
    while (((cl_ulong)1 << passes) < pieces)
        passes++;
    /* Without values the value places are never read: any buffer fills them. */
    const place keys_tmp = {NULL, clprim_layout_part(&plan->scratch, n * kb) / kb};
    const place values_tmp = {vb ? NULL : keys_out.buf, vb ? clprim_layout_part(&plan->scratch, n * vb) / vb : 0};
    if (!vb)
        values_in = values_out = (place){keys_out.buf, 0};
    /* Slot 0: the most passes a segment needs (cleared here); then a record a piece. */
    const cl_ulong records = clprim_layout_part(&plan->scratch, (1 + 2 * pieces) * 8) / 8, records_word = records * 2,
                   one_word = 1, segment_count = segments, offsets_at = offsets_offset;
    /* Each pass's merge path splits: two a slot, two slots a piece. */
    const cl_ulong splits = passes ? clprim_layout_part(&plan->scratch, 4 * pieces * 8) / 8 : 0;
    const cl_uint indices = vb && !values_in.buf, descending = spec->descending != 0, shift = spec->begin_bit;
    const unsigned width = spec->end_bit - spec->begin_bit;
    const cl_ulong mask = width == 64 ? ~(cl_ulong)0 : ((cl_ulong)1 << width) - 1;
    const cl_int zero = 0;
    if (indices)
        values_in = values_out; /* never read */
    CLPRIM_PLAN_LAUNCH(plan, sort_cl, "fill_words", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(records_word),
                       CLPRIM_ARG(one_word), CLPRIM_ARG(zero));
    CLPRIM_PLAN_LAUNCH(plan, sort_cl, "segsort_pieces", pieces, CLPRIM_BUFFER_ARG(keys_in.buf),
                       CLPRIM_ARG(keys_in.offset), CLPRIM_BUFFER_ARG(values_in.buf), CLPRIM_ARG(values_in.offset),
                       CLPRIM_ARG(indices), CLPRIM_BUFFER_ARG(keys_out.buf), CLPRIM_ARG(keys_out.offset),
                       CLPRIM_SCRATCH_ARG, CLPRIM_ARG(keys_tmp.offset), CLPRIM_BUFFER_ARG(values_out.buf),
                       CLPRIM_ARG(values_out.offset), CLPRIM_BUFFER_ARG(values_tmp.buf),
                       CLPRIM_ARG(values_tmp.offset), CLPRIM_ARG(count), CLPRIM_ARG(piece), CLPRIM_ARG(offsets),
                       CLPRIM_ARG(offsets_at), CLPRIM_ARG(segment_count), CLPRIM_ARG(mask), CLPRIM_ARG(shift),
                       CLPRIM_ARG(descending), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(records));
    for (cl_uint pass = 0; pass < passes; pass++) {
        CLPRIM_PLAN_LAUNCH(plan, sort_cl, "segsort_partition", clprim_fill_groups(&shape, 2 * pieces),
                           CLPRIM_BUFFER_ARG(keys_out.buf), CLPRIM_ARG(keys_out.offset), CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(keys_tmp.offset), CLPRIM_ARG(count), CLPRIM_ARG(piece), CLPRIM_ARG(pieces),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(records), CLPRIM_ARG(pass), CLPRIM_ARG(mask),
                           CLPRIM_ARG(shift), CLPRIM_ARG(descending), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(splits));
        CLPRIM_PLAN_LAUNCH(plan, sort_cl, "segsort_merge", pieces, CLPRIM_BUFFER_ARG(keys_out.buf),
                           CLPRIM_ARG(keys_out.offset), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(keys_tmp.offset),
                           CLPRIM_BUFFER_ARG(values_out.buf), CLPRIM_ARG(values_out.offset),
                           CLPRIM_BUFFER_ARG(values_tmp.buf), CLPRIM_ARG(values_tmp.offset), CLPRIM_ARG(count),
                           CLPRIM_ARG(piece), CLPRIM_ARG(pieces), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(records),
                           CLPRIM_ARG(pass), CLPRIM_ARG(mask), CLPRIM_ARG(shift), CLPRIM_ARG(descending),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(splits));
    }
}

/* CLPRIM_UNSUPPORTED where not even a tile of one key a work-item fits in
 * local memory. */
static clprim_status check_shape(clprim_context *ctx, const char *fn, const clprim_sort_spec *spec)
{
    int fits;
    const clprim_tuning shape = segmented_sort_shape(ctx, spec, &fits);
    return fits ? CLPRIM_SUCCESS : clprim_fail_tile_too_large(ctx, fn, &shape, local_bytes(&shape, spec));
}

static clprim_status segmented_sort(clprim_context *ctx, const char *fn, clprim_type key_type, int pairs,
                                    clprim_type value_type, const clprim_sort_order *order, cl_mem keys_in,
                                    size_t keys_in_offset, cl_mem keys_out, size_t keys_out_offset, cl_mem values_in,
                                    size_t values_in_offset, cl_mem values_out, size_t values_out_offset, size_t n,
                                    cl_mem offsets, size_t offsets_offset, size_t segments,
                                    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                    cl_event *event)
{
    clprim_sort_spec spec = {0};
    clprim_region keys_written, values_written, bounds;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_sort_buffers(ctx, fn, key_type, pairs, value_type, order, &keys_in, &keys_in_offset, keys_out,
                                      keys_out_offset, &values_in, &values_in_offset, values_out, values_out_offset,
                                      n, &spec, &keys_written, &values_written);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_offsets(ctx, fn, offsets, offsets_offset, segments, &bounds);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "offsets", &bounds, "keys_out", &keys_written, 0);
    if (s == CLPRIM_SUCCESS && pairs)
        s = clprim_check_disjoint(ctx, fn, "offsets", &bounds, "values_out", &values_written, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS)
        s = check_shape(ctx, fn, &spec);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    clprim_plan_begin(&plan, "segmented sort");
    plan_segmented_sort(ctx, &plan, &spec, (place){keys_in, keys_in_offset}, (place){keys_out, keys_out_offset},
                        (place){pairs ? values_in : NULL, values_in_offset},
                        (place){pairs ? values_out : NULL, values_out_offset}, n, offsets, offsets_offset, segments);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_segmented_sort_keys(clprim_context *ctx, clprim_type key_type, const clprim_sort_order *order,
                                         cl_mem keys_in, size_t keys_in_offset, cl_mem keys_out,
                                         size_t keys_out_offset, size_t n, cl_mem offsets, size_t offsets_offset,
                                         size_t segments, cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event)
{
    return segmented_sort(ctx, "clprim_segmented_sort_keys", key_type, 0, CLPRIM_UINT32, order, keys_in,
                          keys_in_offset, keys_out, keys_out_offset, NULL, 0, NULL, 0, n, offsets, offsets_offset,
                          segments, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_segmented_sort_pairs(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                          const clprim_sort_order *order, cl_mem keys_in, size_t keys_in_offset,
                                          cl_mem keys_out, size_t keys_out_offset, cl_mem values_in,
                                          size_t values_in_offset, cl_mem values_out, size_t values_out_offset,
                                          size_t n, cl_mem offsets, size_t offsets_offset, size_t segments,
                                          cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                          cl_event *event)
{
    return segmented_sort(ctx, "clprim_segmented_sort_pairs", key_type, 1, value_type, order, keys_in,
                          keys_in_offset, keys_out, keys_out_offset, values_in, values_in_offset, values_out,
                          values_out_offset, n, offsets, offsets_offset, segments, num_events_in_wait_list,
                          event_wait_list, event);
}

/* ---- Descriptor ---- */

/* Per key type and value size; descending and bit ranges are kernel
 * arguments. Keys are sorted as bits: no fp64 needed. */
static void segmented_sort_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    clprim_walk_sort_variants(ctx, walk, segmented_sort_program);
}

const clprim_primitive clprim_segmented_sort_primitive = {"segmented_sort", NULL, segmented_sort_variants};
