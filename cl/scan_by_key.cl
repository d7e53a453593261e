/* Scan by key: a scan that starts again at every segment, a run of equal
 * consecutive keys (src/algorithms/scan_by_key.c). The scan's three passes over
 * the pairs (value, head) of block/segment.cl:
 *   segment_chunks   each work-group's chunk to one pair;
 *   segment_seeds    one work-item: the exclusive scan of those pairs;
 *   scan_by_key_chunks  each chunk scanned from its seed.
 * Reduce by key, run-length encoding and unique (src/algorithms/by_key.c) also take
 * segment_flags (which elements end or start a segment) and fill_elements
 * (block/fill.cl: ones, the values whose sums by key are run lengths).
 * -DKEY=<NAME> (cl/types.h): the keys' type, a 32- or 64-bit integer. */
#include "block/fill.cl"
#include "block/segment.cl"
#include "block/tile.cl"

#ifndef COMBINE
#error "scan_by_key.cl needs an operator: -DOP=SUM, MIN, MAX or USER (cl/types.h)"
#endif
#ifndef KEY
#error "scan_by_key.cl needs -DKEY=<NAME> (cl/types.h)"
#endif
#define KEY_T CLPRIM_FIELD(KEY, SCALAR)

/* Element i starts a segment (keys already offset). */
uint is_head(__global const KEY_T *keys, const ulong i)
{
    return i == 0 || keys[i] != keys[i - 1];
}

/* Stages tile [base, base + TILE) of values and heads in local memory, the
 * missing end as identity pairs, and returns the pair of work-item lid's ITEMS
 * consecutive elements. */
seg fold_tile(__global const KEY_T *keys, __global const T *values, const ulong base, const ulong end,
              __local T *tile, __local uint *heads)
{
    const uint lid = get_local_id(0);
    load_tile(values, base, end, tile, IDENTITY);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        heads[PAD(j)] = base + j < end ? is_head(keys, base + j) : 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return fold_pairs(tile, heads);
}

/* Work-group g folds its chunk [g * chunk, ...) into the pair
 * (partials[partials_offset + g], part_heads[heads_offset + g]). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segment_chunks(__global const KEY_T *keys, ulong keys_offset, __global const T *values, ulong values_offset,
                    ulong n, ulong chunk, __global T *partials, ulong partials_offset, __global uint *part_heads,
                    ulong heads_offset)
{
    const ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);
    keys += keys_offset;
    values += values_offset;
    seg acc = make_seg(IDENTITY, 0u);
#if WG == 1
    for (ulong i = begin; i < end; i++)
        acc = seg_combine(acc, make_seg(values[i], is_head(keys, i)));
#else
    __local T tile[PADDED_TILE];
    __local uint heads[PADDED_TILE];
    __local seg sums[WG];
    for (ulong base = begin; base < end; base += TILE) {
        seg total;
        wg_seg_scan(fold_tile(keys, values, base, end, tile, heads), sums, &total);
        acc = seg_combine(acc, total); /* the scan's barriers also free the tile */
    }
#endif
    if (get_local_id(0) == 0) {
        partials[partials_offset + get_group_id(0)] = acc.value;
        part_heads[heads_offset + get_group_id(0)] = acc.head;
    }
}

/* One work-item: partials[g] becomes the value carried into chunk g, the
 * combination of the pairs before it (the chunks are few: one per group). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segment_seeds(__global T *partials, ulong partials_offset, __global const uint *part_heads, ulong heads_offset,
                   ulong groups)
{
    if (get_local_id(0) != 0)
        return;
    partials += partials_offset;
    part_heads += heads_offset;
    seg carry = make_seg(IDENTITY, 0u);
    for (ulong g = 0; g < groups; g++) {
        const seg mine = make_seg(partials[g], part_heads[g]);
        partials[g] = carry.value;
        carry = seg_combine(carry, mine);
    }
}

/* Work-group g scans its chunk from seeds[g] (with_seeds; else from nothing).
 * An exclusive scan writes EMPTY_RESULT at each segment's first element.
 * values == dst is safe: a tile is read whole before any of it is written. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_by_key_chunks(__global const KEY_T *keys, ulong keys_offset, __global const T *values,
                        ulong values_offset, __global T *dst, ulong dst_offset, ulong n, ulong chunk,
                        __global const T *seeds, ulong seeds_offset, int with_seeds, int exclusive)
{
    const uint g = get_group_id(0);
    const ulong begin = g * chunk, end = min(n, begin + chunk);
    keys += keys_offset;
    values += values_offset;
    dst += dst_offset;
    /* The first element of every chunk but the first may continue a segment. */
    T carry = with_seeds && g > 0 ? seeds[seeds_offset + g] : IDENTITY;
#if WG == 1
    for (ulong i = begin; i < end; i++) {
        const uint head = is_head(keys, i);
        const T before = head ? IDENTITY : carry;
        const T inclusive = COMBINE(before, values[i]);
        dst[i] = exclusive ? (head ? EMPTY_RESULT : carry) : inclusive;
        carry = inclusive;
    }
#else
    __local T tile[PADDED_TILE];
    __local uint heads[PADDED_TILE];
    __local seg sums[WG];
    seg carried = make_seg(carry, 0u);
    for (ulong base = begin; base < end; base += TILE) {
        seg total;
        const seg before = wg_seg_scan(fold_tile(keys, values, base, end, tile, heads), sums, &total);
        rescan_pairs(seg_combine(carried, before), exclusive, tile, heads);
        barrier(CLK_LOCAL_MEM_FENCE);
        store_tile(dst, base, end, tile);
        carried = seg_combine(carried, total);
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile overwrites local memory */
    }
#endif
}

/* flags[i] = 1 where element i is the last of its segment (tails), or the
 * first (heads); else 0. Reduce by key and unique keep those elements. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segment_flags(__global const KEY_T *keys, ulong keys_offset, ulong n, int tails, __global uchar *flags,
                   ulong flags_offset)
{
    keys += keys_offset;
    flags += flags_offset;
    FOR_EACH_INDEX(i, n)
        flags[i] = tails ? i + 1 == n || keys[i + 1] != keys[i] : is_head(keys, i);
}
