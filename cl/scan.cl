/* Pass 3 of the multi-work-group scan (DESIGN.md): each work-group scans its
 * chunk tile by tile, seeded with the scanned partial of the chunks before it. */
#include "common.cl"

#ifndef COMBINE
#error "scan.cl needs an operator: define OP_SUM, OP_MIN or OP_MAX"
#endif

/* Work-group g scans elements [g * chunk, min(n, (g + 1) * chunk)). With
 * use_seeds, seeds[g] is the combination of every element before the chunk (pass
 * 2 wrote it); without, the chunk is the whole input. src == dst is safe: a tile
 * is read whole into local memory before any of it is written back. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_chunks(__global const T *src, ulong src_offset, __global T *dst, ulong dst_offset,
                 ulong n, ulong chunk, __global const T *seeds, ulong seeds_offset,
                 int use_seeds, int exclusive)
{
    __local T tile[PADDED_TILE];
    __local T sums[WG];
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    dst += dst_offset;
    T carry = use_seeds ? seeds[seeds_offset + get_group_id(0)] : IDENTITY;

    for (ulong base = begin; base < end; base += TILE) {
        /* Coalesced load: neighbouring work-items read neighbouring elements. */
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * WG + lid;
            tile[PAD(j)] = base + j < end ? src[base + j] : IDENTITY;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Each work-item folds its ITEMS consecutive elements in registers ... */
        T run = IDENTITY;
        for (uint k = 0; k < ITEMS; k++)
            run = COMBINE(run, tile[PAD(lid * ITEMS + k)]);
        /* ... one work-group scan combines the work-items' totals ... */
        T total;
        run = COMBINE(carry, wg_exclusive_scan(run, sums, &total));
        /* ... and each work-item rescans its run from its prefix. */
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = PAD(lid * ITEMS + k);
            const T inclusive = COMBINE(run, tile[j]);
            tile[j] = exclusive ? run : inclusive;
            run = inclusive;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * WG + lid;
            if (base + j < end)
                dst[base + j] = tile[PAD(j)];
        }
        carry = COMBINE(carry, total);
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile overwrites local memory */
    }
}
