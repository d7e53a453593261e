/* Reduction of contiguous chunks: pass 1 of the scan and of a reduction (a
 * partial per work-group), the fold of the partials by one work-group, and,
 * where the device has the records' words (block/lookback.cl), the whole
 * reduction in one launch (the last work-group to finish folds the partials).
 * With -DMAP (block/map.cl) the elements are a caller's function of one or two
 * inputs, never stored: clprim_transform_reduce. */
#include "block/last_group.cl"
#include "block/reduce_scan.cl"

#ifdef MAP
#include "block/map.cl"
#define INPUT_PARAMS MAP_PARAMS
#define INPUT_ARGS MAP_ARGS
#define INPUT_BEGIN() MAP_BEGIN()
#define INPUT(i) MAP_AT(i)
#else
#define INPUT_PARAMS __global const T *src, ulong src_offset
#define INPUT_ARGS src, src_offset
#define INPUT_BEGIN() (src += src_offset)
#define INPUT(i) src[i]
#endif

#ifndef COMBINE
#error "reduce.cl needs an operator: -DOP=SUM, MIN, MAX or USER (cl/types.h)"
#endif

#if !OP_COMMUTES && WG > 1
/* Stages input elements [base, base + TILE) in local memory, IDENTITY past
 * end. The caller's barrier follows. */
void load_input_tile(INPUT_PARAMS, const ulong base, const ulong end, __local T *tile)
{
    const uint lid = get_local_id(0);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        tile[PAD(j)] = base + j < end ? INPUT(base + j) : IDENTITY;
    }
}
#endif

/* The staging tile of fold_chunk: only a caller's operator on WG > 1 uses it. */
#if !OP_COMMUTES && WG > 1
#define FOLD_TILE PADDED_TILE
#else
#define FOLD_TILE 1
#endif

/* Work-group g's fold of elements [g * chunk, min(n, (g + 1) * chunk)),
 * returned to every work-item (to work-item 0 for a caller's operator on
 * WG > 1, whose scan leaves it in all). For the built-in operators, which
 * commute, loads are strided by WG so neighbouring work-items read
 * neighbouring elements; a caller's operator is combined in the elements'
 * order. Either way the order of combination is fixed, so float results are
 * the same on every run. buf: the kernel's; tile: PADDED_TILE elements, read
 * only for a caller's operator on WG > 1. */
T fold_chunk(INPUT_PARAMS, const ulong n, const ulong chunk, __local T *buf, __local T *tile)
{
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    INPUT_BEGIN();
    T acc = IDENTITY;
    ulong base = begin;
#if !OP_COMMUTES && WG == 1
    /* A caller's operator need not commute: elements are combined in order.
     * A float total would wait for each combine before the next, so four are
     * combined among themselves first (the operator is associative): one wait
     * per four. Integer loops are left as they are, which the compiler
     * vectorizes (the four made an int32 sum 7% slower). */
#ifdef T_IS_FLOAT
    for (; base + 4 <= end; base += 4)
        acc = COMBINE(acc, COMBINE_FOUR(INPUT(base), INPUT(base + 1), INPUT(base + 2), INPUT(base + 3)));
#endif
    for (; base < end; base++)
        acc = COMBINE(acc, INPUT(base));
#elif !OP_COMMUTES
    /* In order too: each tile is staged, each work-item folds ITEMS
     * consecutive elements, and an order-keeping scan of the work-items' runs
     * gives the tile's total, the same in every work-item. */
    for (; base < end; base += TILE) {
        /* Bounds-checked loads throughout: a branch for whole tiles made
         * this pass 6% slower on an H100 (2^28 int32, same run). */
        load_input_tile(INPUT_ARGS, base, end, tile);
        barrier(CLK_LOCAL_MEM_FENCE);
        T tile_total;
        wg_exclusive_scan(fold_items(tile), buf, &tile_total); /* its first barrier also frees the tile */
        acc = COMBINE(acc, tile_total);
    }
#elif WG == 1
    /* The CPU shape: eight independent lanes let the compiler use vector adds
     * without reassociating any one lane (floats stay deterministic). */
    FOLD_IN_EIGHT_LANES(T, IDENTITY, COMBINE, INPUT, acc, base, end);
    for (; base < end; base++)
        acc = COMBINE(acc, INPUT(base));
#else
    /* Whole tiles need no bounds checks, so their loads can all be in flight. */
    for (; base + TILE <= end; base += TILE)
        for (uint k = 0; k < ITEMS; k++)
            acc = COMBINE(acc, INPUT(base + k * WG + lid));
    for (uint k = 0; k < ITEMS; k++) {
        const ulong i = base + k * WG + lid;
        if (i < end)
            acc = COMBINE(acc, INPUT(i));
    }
#endif
#if !OP_COMMUTES
    return acc;
#else
    return wg_reduce(acc, buf);
#endif
}

/* Work-group g folds its chunk into partials[g]. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_chunks(INPUT_PARAMS, ulong n, ulong chunk, __global T *partials, ulong partials_offset)
{
    __local T buf[OP_COMMUTES ? WG : SCAN_SLOTS];
    __local T tile[FOLD_TILE];
    const T total = fold_chunk(INPUT_ARGS, n, chunk, buf, tile);
    /* n == 0: the empty result, as a whole reduction of nothing gives. */
    if (get_local_id(0) == 0)
        partials[partials_offset + get_group_id(0)] = n ? total : EMPTY_RESULT;
}

#ifdef STATUS_STORE64
DEFINE_RECORDS(partial, T)

/* The fold of the partials of count work-groups, published as records, in
 * their order, returned to every work-item: each work-item folds a run of
 * them, then the runs are combined in order. The grouping depends on count
 * and WG only. */
T fold_partials(__global ulong *lookback, const uint count, const uint stamp, __local T *buf)
{
    const uint lid = get_local_id(0), per = (count + WG - 1) / WG;
    const uint first = min(count, lid * per), last = min(count, first + per);
    T acc = IDENTITY;
    for (uint g = first; g < last; g++) {
        T partial;
        while (!partial_read(lookback, g, stamp, &partial))
            ; /* sent before its group counted itself finished: it comes */
        acc = COMBINE(acc, partial);
    }
#if OP_COMMUTES
    return wg_reduce(acc, buf);
#else
    T total;
    wg_exclusive_scan(acc, buf, &total);
    return total;
#endif
}

/* The whole reduction in one launch: each work-group publishes its chunk's
 * fold as a record, and the last to finish folds them into
 * result[result_offset] (the empty result when n == 0). lookback, stamp: the
 * context's records (block/last_group.cl). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_all(INPUT_PARAMS, ulong n, ulong chunk, __global T *result, ulong result_offset, __global ulong *lookback,
                uint stamp)
{
    __local T buf[OP_COMMUTES ? WG : SCAN_SLOTS];
    __local T tile[FOLD_TILE];
    __local uint last;
    const T total = fold_chunk(INPUT_ARGS, n, chunk, buf, tile);
    if (get_local_id(0) == 0)
        partial_publish(lookback, get_group_id(0), FLAG_AGGREGATE, total, stamp);
    if (last_group_done(lookback, &last)) {
        const T all = fold_partials(lookback, get_num_groups(0), stamp, buf);
        if (get_local_id(0) == 0)
            result[result_offset] = n ? all : EMPTY_RESULT;
    }
}
#endif
