/* Scan, in the tuning's form.
 * One-sweep (exact operators, devices that run every started work-group to
 * completion): one launch of scan_tiles, each tile looking back at earlier
 * ones (cl/lookback.cl).
 * Multi-pass, the multi-work-group algorithm (README, "How it works"):
 *   1. reduce_chunks: each of G work-groups folds its chunk into a partial;
 *   2. when G partials do not fit one tile, they are scanned (exclusive) by this
 *      same driver, recursively;
 *   3. scan_chunks: each work-group scans its chunk from its seed: the scanned
 *      partial, or, when G fits one tile, the fold of the partials before it,
 *      which it computes itself (G^2/2 reads of a few hundred values cost less
 *      than the launch of pass 2).
 * A caller's seed (clprim_scan_seeded) goes to the last launch only: each
 * work-group puts it before its carry, so the partials and their scan are
 * those of the unseeded scan.
 * Kernel launches order the passes: no work-group ever waits on another. */
#include "internal.h"

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

/* Where each work-group's seed comes from (cl/constants.h): nothing for one
 * group, its own fold of the partials while they fit one tile, else the scan
 * of the partials. */
int clprim_seed_mode(const clprim_tuning *tuning, const clprim_split *split)
{
    if (split->groups == 1)
        return SEED_NONE;
    return split->groups <= tuning->work_group_size * tuning->items_per_thread ? SEED_FOLD : SEED_SCANNED;
}

size_t clprim_scan_scratch_bytes(const clprim_tuning *tuning, size_t n, size_t elem_size)
{
    clprim_layout layout = {0, 0};
    for (;;) {
        clprim_split s = clprim_split_range(tuning, n);
        int mode = clprim_seed_mode(tuning, &s);
        if (mode == SEED_NONE)
            return layout.bytes;
        clprim_layout_part(&layout, s.groups * elem_size);
        if (mode == SEED_FOLD)
            return layout.bytes;
        n = s.groups;
    }
}

static clprim_status scan_one_sweep(clprim_context *ctx, const clprim_type_info *type, const clprim_combine *c,
                                    int exclusive, cl_mem seed, cl_ulong seed_offset, cl_int seeded, cl_mem src,
                                    cl_ulong src_offset, cl_mem dst, cl_ulong dst_offset, size_t n, cl_event *event)
{
    /* Plan: a tile a work-group, and the records they exchange. */
    const clprim_tuning shape = clprim_one_sweep_shape(ctx, &ctx->tuning);
    clprim_program scan_cl;
    clprim_combine_program(ctx, &scan_cl, "scan", "scan.cl", &shape, type, c);
    clprim_pass sweep, clear;
    clprim_status s = clprim_pass_of(ctx, &scan_cl, "scan_tiles", &sweep);
    if (s == CLPRIM_SUCCESS)
        s = clprim_pass_of(ctx, &scan_cl, "lookback_clear", &clear);
    clprim_program_end(&scan_cl);
    const size_t tiles = clprim_one_sweep_tiles(&shape, n);
    cl_mem records;
    cl_uint stamp;
    if (s == CLPRIM_SUCCESS)
        s = clprim_lookback_records(ctx, &clear, tiles, type->size, &records, &stamp);

    /* Enqueue: the one launch. */
    const cl_ulong count = n;
    const cl_int excl = exclusive != 0;
    if (s == CLPRIM_SUCCESS)
        s = CLPRIM_ENQUEUE(ctx, &sweep, tiles, event, CLPRIM_ARG(src), CLPRIM_ARG(src_offset), CLPRIM_ARG(dst),
                           CLPRIM_ARG(dst_offset), CLPRIM_ARG(count), CLPRIM_ARG(records), CLPRIM_ARG(stamp),
                           CLPRIM_ARG(excl), CLPRIM_ARG(seed), CLPRIM_ARG(seed_offset), CLPRIM_ARG(seeded));
    return s;
}

clprim_status clprim_scan_combine(clprim_context *ctx, const clprim_type_info *type, const clprim_combine *c,
                                  int exclusive, cl_mem seed, cl_ulong seed_offset, cl_mem src, cl_ulong src_offset,
                                  cl_mem dst, cl_ulong dst_offset, size_t n, cl_mem scratch, size_t scratch_offset,
                                  cl_event *event)
{
    /* Without a seed the kernels read none, but take a buffer. */
    const cl_int seeded = seed != NULL;
    if (!seeded) {
        seed = src;
        seed_offset = 0;
    }
    const clprim_tuning sweep_shape = clprim_one_sweep_shape(ctx, &ctx->tuning);
    if (clprim_one_sweep_available(ctx) && clprim_one_sweep_exact(type, c) && clprim_one_sweep_tiles(&sweep_shape, n))
        return scan_one_sweep(ctx, type, c, exclusive, seed, seed_offset, seeded, src, src_offset, dst, dst_offset, n,
                              event);

    /* Plan: the split of n under the context's tuning, and where this level's
     * partials go. */
    const clprim_tuning *shape = &ctx->tuning;
    const clprim_split split = clprim_split_range(shape, n);
    const cl_int excl = exclusive != 0, mode = clprim_seed_mode(shape, &split);
    clprim_layout layout = {scratch_offset, 0};
    const cl_ulong partials = clprim_layout_part(&layout, split.groups * type->size) / type->size; /* elements */

    clprim_program reduce_cl, scan_cl;
    clprim_combine_program(ctx, &reduce_cl, "scan", "reduce.cl", shape, type, c);
    clprim_combine_program(ctx, &scan_cl, "scan", "scan.cl", shape, type, c);
    clprim_pass reduce, scan;
    clprim_status s = clprim_pass_of(ctx, &reduce_cl, "reduce_chunks", &reduce);
    if (s == CLPRIM_SUCCESS)
        s = clprim_pass_of(ctx, &scan_cl, "scan_chunks", &scan);
    clprim_program_end(&reduce_cl);
    clprim_program_end(&scan_cl);

    /* Enqueue: the partials, their scan (a level down) when there are many,
     * then the scan of each chunk from its seed. */
    const cl_ulong count = n;
    if (s == CLPRIM_SUCCESS && mode != SEED_NONE) {
        s = CLPRIM_ENQUEUE(ctx, &reduce, split.groups, NULL, CLPRIM_ARG(src), CLPRIM_ARG(src_offset),
                           CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(scratch), CLPRIM_ARG(partials));
        if (s == CLPRIM_SUCCESS && mode == SEED_SCANNED)
            s = clprim_scan_combine(ctx, type, c, 1, NULL, 0, scratch, partials, scratch, partials, split.groups,
                                    scratch, layout.bytes, NULL);
    }
    if (s != CLPRIM_SUCCESS)
        return s;
    cl_mem seeds = mode != SEED_NONE ? scratch : src; /* unread without seeds, but must be a buffer */
    return CLPRIM_ENQUEUE(ctx, &scan, split.groups, event, CLPRIM_ARG(src), CLPRIM_ARG(src_offset), CLPRIM_ARG(dst),
                          CLPRIM_ARG(dst_offset), CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(seeds),
                          CLPRIM_ARG(partials), CLPRIM_ARG(mode), CLPRIM_ARG(excl), CLPRIM_ARG(seed),
                          CLPRIM_ARG(seed_offset), CLPRIM_ARG(seeded));
}

clprim_status clprim_scan_device(clprim_context *ctx, const clprim_type_info *type, clprim_op op, int exclusive,
                                 cl_mem src, cl_ulong src_offset, cl_mem dst, cl_ulong dst_offset, size_t n,
                                 cl_mem scratch, size_t scratch_offset, cl_event *event)
{
    const clprim_combine c = clprim_combine_builtin(op);
    return clprim_scan_combine(ctx, type, &c, exclusive, NULL, 0, src, src_offset, dst, dst_offset, n, scratch,
                               scratch_offset, event);
}

/* clprim_scan, clprim_scan_op and clprim_scan_seeded: the checks, then the
 * levels. seed: NULL, or one element that only the device reads. */
static clprim_status scan_call(clprim_context *ctx, const char *function, clprim_type t, clprim_op op,
                               int user_op, const clprim_operator *user, int exclusive, cl_mem seed,
                               size_t seed_offset, cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset,
                               size_t n, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event)
{
    const clprim_type_info *type;
    clprim_region in, out, seed_at;
    clprim_combine c = clprim_combine_builtin(op);
    CLPRIM_ENTER(s, ctx, function);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_operator(ctx, t, &type, op, user_op, user, &c);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, function, "src", &src, &src_offset, "dst", dst, dst_offset, n, type->size,
                                 &in, &out);
    /* The seed may share src's elements (both are only read), never dst's. */
    if (s == CLPRIM_SUCCESS && seed)
        s = clprim_check_buffer(ctx, "seed", seed, seed_offset, 1, type->size, CLPRIM_READS, &seed_at);
    if (s == CLPRIM_SUCCESS && seed)
        s = clprim_check_disjoint(ctx, function, "seed", &seed_at, "dst", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, function, num_events_in_wait_list, event_wait_list);

    /* An operator that does not compile fails before anything is enqueued,
     * also when n == 0. */
    if (s == CLPRIM_SUCCESS && user_op)
        s = clprim_combine_prepare(ctx, "scan", "scan.cl", type, &c);
    cl_mem scratch = NULL;
    if (s == CLPRIM_SUCCESS && n > 0)
        s = clprim_scratch(ctx, clprim_scan_scratch_bytes(&ctx->tuning, n, type->size), &scratch);
    if (s == CLPRIM_SUCCESS && n == 0)
        s = clprim_enqueue_nothing(ctx, num_events_in_wait_list, event_wait_list, event);
    else if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS && n > 0)
        s = clprim_scan_combine(ctx, type, &c, exclusive, seed, seed_offset, src, src_offset, dst, dst_offset, n,
                                scratch, 0, event);
    clprim_combine_free(&c);
    return s;
}

clprim_status clprim_scan(clprim_context *ctx, clprim_type t, clprim_op op, int exclusive, cl_mem src,
                          size_t src_offset, cl_mem dst, size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event)
{
    return scan_call(ctx, "clprim_scan", t, op, 0, NULL, exclusive, NULL, 0, src, src_offset, dst, dst_offset, n,
                     num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_scan_op(clprim_context *ctx, clprim_type t, const clprim_operator *op, int exclusive,
                             cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    return scan_call(ctx, "clprim_scan_op", t, CLPRIM_SUM, 1, op, exclusive, NULL, 0, src, src_offset, dst,
                     dst_offset, n, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_scan_seeded(clprim_context *ctx, clprim_type t, clprim_op op, const clprim_operator *custom,
                                 int exclusive, cl_mem seed, size_t seed_offset, cl_mem src, size_t src_offset,
                                 cl_mem dst, size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return scan_call(ctx, "clprim_scan_seeded", t, custom ? CLPRIM_SUM : op, custom != NULL, custom, exclusive,
                     seed, seed_offset, src, src_offset, dst, dst_offset, n, num_events_in_wait_list,
                     event_wait_list, event);
}
