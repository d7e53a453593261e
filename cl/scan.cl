/* Pass 3 of the multi-work-group scan: each work-group scans its
 * chunk tile by tile, seeded with the combination of every element before it. */
#include "common.cl"

#ifndef COMBINE
#error "scan.cl needs an operator: define OP_SUM, OP_MIN, OP_MAX or OP_USER"
#endif

/* seed_mode (constants.h): SEED_NONE, one chunk, the whole input; SEED_FOLD,
 * fold partials[0, g) of pass 1 here; SEED_SCANNED, partials[g] already holds
 * the exclusive scan of the partials (pass 2). */

/* Work-group g scans elements [g * chunk, min(n, (g + 1) * chunk)). src == dst is
 * safe: a tile is read whole into local memory before any of it is written back. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_chunks(__global const T *src, ulong src_offset, __global T *dst, ulong dst_offset,
                 ulong n, ulong chunk, __global const T *partials, ulong partials_offset,
                 int seed_mode, int exclusive)
{
    __local T tile[PADDED_TILE];
    __local T sums[WG];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const ulong begin = g * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    dst += dst_offset;
    partials += partials_offset;

    T carry = IDENTITY;
    if (seed_mode == SEED_FOLD) {
        T acc = IDENTITY;
#ifdef OP_USER
        /* A caller's operator need not commute: each work-item folds a
         * contiguous run of the partials, and an order-keeping scan joins them. */
        const uint per = (g + WG - 1) / WG;
        for (uint i = lid * per; i < min(g, (lid + 1) * per); i++)
            acc = COMBINE(acc, partials[i]);
        wg_exclusive_scan(acc, sums, &carry);
#else
        for (uint i = lid; i < g; i += WG)
            acc = COMBINE(acc, partials[i]);
        carry = wg_reduce(acc, sums);
#endif
    } else if (seed_mode == SEED_SCANNED && g > 0) {
        carry = partials[g]; /* partials[0] holds EMPTY_RESULT, not the identity */
    }

#if WG == 1
    /* The CPU shape: one work-item per group runs its chunk as a plain loop,
     * with no local memory and no barriers between it and the data. */
    for (ulong i = begin; i < end; i++) {
        const T inclusive = COMBINE(carry, src[i]);
        dst[i] = exclusive ? carry : inclusive;
        carry = inclusive;
    }
#else
    for (ulong base = begin; base < end; base += TILE) {
        load_tile(src, base, end, tile);
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

        if (base + TILE <= end) {
            for (uint k = 0; k < ITEMS; k++)
                dst[base + k * WG + lid] = tile[PAD(k * WG + lid)];
        } else {
            for (uint k = 0; k < ITEMS; k++) {
                const uint j = k * WG + lid;
                if (base + j < end)
                    dst[base + j] = tile[PAD(j)];
            }
        }
        carry = COMBINE(carry, total);
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile overwrites local memory */
    }
#endif
    /* Element 0 of an exclusive scan combines nothing. The identity written above
     * differs from EMPTY_RESULT only for float MIN/MAX (NaN there); the same
     * work-item wrote dst[0], so this store lands after it. */
    if (exclusive && g == 0 && lid == 0)
        dst[0] = EMPTY_RESULT;
}
