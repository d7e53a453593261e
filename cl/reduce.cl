/* Reduction of contiguous chunks: pass 1 of the scan, of reduce, and the
 * one-work-group pass that folds the partials. With -DMAP (block/map.cl) the
 * elements are a caller's function of one or two inputs, never stored: pass 1
 * of clprim_transform_reduce. */
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

/* Work-group g folds elements [g * chunk, min(n, (g + 1) * chunk)) of src into
 * partials[g]. For the built-in operators, which commute, loads are strided
 * by WG so neighbouring work-items read neighbouring elements; a caller's
 * operator is combined in the elements' order. Either way the order of
 * combination is fixed, so float results are the same on every run. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_chunks(INPUT_PARAMS, ulong n, ulong chunk, __global T *partials, ulong partials_offset)
{
    __local T buf[OP_COMMUTES ? WG : SCAN_SLOTS];
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
    __local T tile[PADDED_TILE];
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
    T lane[8];
    for (uint k = 0; k < 8; k++)
        lane[k] = IDENTITY;
    for (; base + 8 <= end; base += 8)
        for (uint k = 0; k < 8; k++)
            lane[k] = COMBINE(lane[k], INPUT(base + k));
    for (uint k = 0; k < 8; k++)
        acc = COMBINE(acc, lane[k]);
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
    const T total = acc;
#else
    const T total = wg_reduce(acc, buf);
#endif
    /* n == 0: a device result of nothing (clprim_reduce_to) is the empty result. */
    if (lid == 0)
        partials[partials_offset + get_group_id(0)] = n ? total : EMPTY_RESULT;
}
