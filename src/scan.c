/* Scan: the multi-work-group algorithm (README, "How it works").
 *   1. reduce_chunks: each of G work-groups folds its chunk into a partial;
 *   2. when G partials do not fit one tile, they are scanned (exclusive) by this
 *      same driver, recursively;
 *   3. scan_chunks: each work-group scans its chunk from its seed: the scanned
 *      partial, or, when G fits one tile, the fold of the partials before it,
 *      which it computes itself (G^2/2 reads of a few hundred values cost less
 *      than the launch of pass 2).
 * Kernel launches order the passes: no work-group ever waits on another. */
#include "internal.h"

/* Each level's partials start on their own 256-byte boundary. */
#define SCRATCH_ALIGN 256

static size_t align_up(size_t x)
{
    return (x + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

clprim_split clprim_split_range(const clprim_tuning *tuning, size_t n)
{
    size_t tile = tuning->work_group_size * tuning->items_per_thread;
    size_t tiles = n / tile + (n % tile != 0);
    size_t groups = tuning->groups < tiles ? tuning->groups : tiles;
    if (groups == 0)
        groups = 1;
    size_t tiles_per_group = tiles / groups + (tiles % groups != 0);
    if (tiles_per_group == 0)
        tiles_per_group = 1;
    clprim_split split = {tiles / tiles_per_group + (tiles % tiles_per_group != 0),
                          (cl_ulong)tiles_per_group * tile};
    if (split.groups == 0)
        split.groups = 1;
    return split;
}

/* Seed modes of scan_chunks (cl/scan.cl). */
enum { SEED_NONE, SEED_FOLD, SEED_SCANNED };

static int seed_mode(const clprim_tuning *tuning, const clprim_split *split)
{
    if (split->groups == 1)
        return SEED_NONE;
    return split->groups <= tuning->work_group_size * tuning->items_per_thread ? SEED_FOLD : SEED_SCANNED;
}

size_t clprim_scan_scratch_bytes(const clprim_tuning *tuning, size_t n, size_t elem_size)
{
    size_t bytes = 0;
    for (;;) {
        clprim_split s = clprim_split_range(tuning, n);
        int mode = seed_mode(tuning, &s);
        if (mode == SEED_NONE)
            return bytes;
        bytes += align_up(s.groups * elem_size);
        if (mode == SEED_FOLD)
            return bytes;
        n = s.groups;
    }
}

clprim_status clprim_scan_device(clprim_context *ctx, const clprim_type_info *type, clprim_op op,
                                 int exclusive, cl_mem src, cl_ulong src_offset, cl_mem dst,
                                 cl_ulong dst_offset, size_t n, cl_mem scratch, size_t scratch_offset,
                                 cl_event *event)
{
    char options[256] = "";
    clprim_kernel_options(ctx, type, (int)op, options, sizeof options);
    cl_kernel reduce, scan;
    clprim_status s = clprim_get_kernel(ctx, "reduce.cl", options, "reduce_chunks", &reduce);
    if (s == CLPRIM_SUCCESS)
        s = clprim_get_kernel(ctx, "scan.cl", options, "scan_chunks", &scan);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_split split = clprim_split_range(&ctx->tuning, n);
    cl_ulong count = n;
    cl_int excl = exclusive != 0, mode = seed_mode(&ctx->tuning, &split);
    cl_ulong partials = scratch_offset / type->size; /* in elements */
    if (mode != SEED_NONE) {
        const clprim_arg pass1[] = {CLPRIM_ARG(src), CLPRIM_ARG(src_offset), CLPRIM_ARG(count),
                                    CLPRIM_ARG(split.chunk), CLPRIM_ARG(scratch), CLPRIM_ARG(partials)};
        s = clprim_launch(ctx, reduce, "scan pass 1 (reduce_chunks)", split.groups, pass1, 6, NULL);
        if (s == CLPRIM_SUCCESS && mode == SEED_SCANNED)
            s = clprim_scan_device(ctx, type, op, 1, scratch, partials, scratch, partials, split.groups,
                                   scratch, scratch_offset + align_up(split.groups * type->size), NULL);
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    cl_mem seeds = mode != SEED_NONE ? scratch : src; /* unread without seeds, but must be a buffer */
    const clprim_arg pass3[] = {CLPRIM_ARG(src),         CLPRIM_ARG(src_offset), CLPRIM_ARG(dst),
                                CLPRIM_ARG(dst_offset),  CLPRIM_ARG(count),      CLPRIM_ARG(split.chunk),
                                CLPRIM_ARG(seeds),       CLPRIM_ARG(partials),   CLPRIM_ARG(mode),
                                CLPRIM_ARG(excl)};
    return clprim_launch(ctx, scan, "scan pass 3 (scan_chunks)", split.groups, pass3, 10, event);
}

clprim_status clprim_scan(clprim_context *ctx, clprim_type t, clprim_op op, int exclusive, cl_mem src,
                          size_t src_offset, cl_mem dst, size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event)
{
    const clprim_type_info *type;
    clprim_region in, out;
    CLPRIM_ENTER(s, ctx, "clprim_scan");
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, t, &type);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_op(ctx, op);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, "clprim_scan", "src", &src, &src_offset, "dst", dst, dst_offset, n,
                                 type->size, &in, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_scan", num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    if (n == 0)
        return clprim_enqueue_nothing(ctx, num_events_in_wait_list, event_wait_list, event);

    cl_mem scratch;
    s = clprim_scratch(ctx, clprim_scan_scratch_bytes(&ctx->tuning, n, type->size), &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    return clprim_scan_device(ctx, type, op, exclusive, src, src_offset, dst, dst_offset, n, scratch, 0, event);
}
