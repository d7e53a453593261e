/* The scan's kernels in both forms:
 *   multi-pass: pass 3 of the multi-work-group scan (src/algorithms/scan.c), where each
 *     work-group scans its chunk tile by tile, seeded with the combination of
 *     every element before it;
 *   one-sweep: one launch in which each work-group scans one tile and learns
 *     the combination of the tiles before it by decoupled look-back
 *     (cl/block/lookback.cl).
 * Both take the caller's seed (clprim_scan_seeded): when `seeded`, seed[0]
 * comes before src[0], and each work-group puts it before its carry
 * (seed_carry); the partials and the look-back's records never hold it. */
#include "block/lookback.cl"
#include "block/reduce_scan.cl"
#include "block/tile.cl"

#ifndef COMBINE
#error "scan.cl needs an operator: -DOP=SUM, MIN, MAX or USER (cl/types.h)"
#endif

/* seed_mode (constants.h): SEED_NONE, one chunk, the whole input; SEED_FOLD,
 * fold partials[0, g) of pass 1 here; SEED_SCANNED, partials[g] already holds
 * the exclusive scan of the partials (pass 2). */

/* The CPU shape: src[begin, end) scanned after carry, in place when src ==
 * dst (each element is read before it is written). Each tile's elements are
 * combined from the tile's first one and then put after the carry, so a
 * float sum's rounding chain is a tile plus the tiles before it in the chunk,
 * not every element before: 10^8 floats uniform in [0, 1) on 2 cores, in
 * chunks of 3 million, ended 3.1% low when every element was added to the
 * running total. */
void scan_run(__global const T *src, __global T *dst, const ulong begin, const ulong end, T carry,
              const int exclusive)
{
    for (ulong base = begin; base < end; base += TILE) {
        const ulong stop = min(end, base + TILE);
        T run = src[base]; /* the tile's elements so far */
        dst[base] = exclusive ? carry : COMBINE(carry, run);
        ulong i = base + 1;
#define PUT_AFTER_CARRY(k, v) (dst[i + (k)] = COMBINE(carry, v))
        for (; i + 4 <= stop; i += 4)
            SCAN_FOUR(run, src, i, exclusive, PUT_AFTER_CARRY);
#undef PUT_AFTER_CARRY
        for (; i < stop; i++) {
            const T inclusive = COMBINE(run, src[i]);
            const T upto = exclusive ? run : inclusive; /* a T again: ?: promotes uchar to int */
            dst[i] = COMBINE(carry, upto);
            run = inclusive;
        }
        carry = COMBINE(carry, run);
    }
}

/* Where a work-group's scan starts: the carry of the elements before its
 * chunk or tile (first: it has none), put after the caller's seed when
 * `seeded`. The first takes the seed itself, not COMBINE(seed, IDENTITY),
 * which would turn a float seed of -0.0 into +0.0. */
T seed_carry(__global const T *seed, const int seeded, const int first, const T carry)
{
    if (!seeded)
        return carry;
    return first ? seed[0] : COMBINE(seed[0], carry);
}

/* Work-group g scans elements [g * chunk, min(n, (g + 1) * chunk)). src == dst is
 * safe: a tile is read whole into local memory before any of it is written back. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_chunks(__global const T *src, ulong src_offset, __global T *dst, ulong dst_offset,
                 ulong n, ulong chunk, __global const T *partials, ulong partials_offset,
                 int seed_mode, int exclusive, __global const T *seed, ulong seed_offset, int seeded)
{
    __local T tile[PADDED_TILE];
    __local T sums[SCAN_SLOTS];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const ulong begin = g * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    dst += dst_offset;
    partials += partials_offset;
    seed += seed_offset;

    T carry = IDENTITY;
    if (seed_mode == SEED_FOLD) {
        T acc = IDENTITY;
#if !OP_COMMUTES
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
    carry = seed_carry(seed, seeded, g == 0, carry);

#if WG == 1
    /* The CPU shape: one work-item per group runs its chunk as a plain loop,
     * with no local memory and no barriers between it and the data. */
    scan_run(src, dst, begin, end, carry, exclusive);
#else
    for (ulong base = begin; base < end; base += TILE) {
        load_tile(src, base, end, tile, IDENTITY);
        barrier(CLK_LOCAL_MEM_FENCE);
        T total;
        const T before = wg_exclusive_scan(fold_items(tile), sums, &total);
        rescan_items(COMBINE(carry, before), exclusive, tile);
        barrier(CLK_LOCAL_MEM_FENCE);
        store_tile(dst, base, end, tile);
        carry = COMBINE(carry, total);
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile overwrites local memory */
    }
#endif
    /* Element 0 of an exclusive scan combines nothing but the seed. The identity
     * written above differs from EMPTY_RESULT only for float MIN/MAX (NaN
     * there); the same work-item wrote dst[0], so this store lands after it. */
    if (exclusive && g == 0 && lid == 0)
        dst[0] = seeded ? seed[0] : EMPTY_RESULT;
}

#ifdef STATUS_STORE64
/* Tile u's total in a loop: the CPU shape's own, and the look-back's fallback. */
T tile_total(__global const T *src, const ulong n, const uint u)
{
    const ulong base = (ulong)u * TILE, end = min(n, base + TILE);
    T total = IDENTITY;
    for (ulong i = base; i < end; i++)
        total = COMBINE(total, src[i]);
    return total;
}

/* Tiles grouped by their numbers alone, every value that crosses tiles with
 * one NaN for every NaN: the grouping float sums and callers' operators need
 * for the same bits on every run, and for the exact operators too, as it
 * reads up to WG records at once where the exact walk reads 32 a step (int32
 * exclusive scan on an H100: 2% faster at 2^26, BENCHMARKS.md). */
#define SCAN_FOLD(a, b) ONE_NAN(COMBINE(a, b))
#if WG == 1
#define SCAN_TILE_TOTAL(u, tmp) ONE_NAN(tile_total(src, n, u))
#else
/* Tile u's total as its own work-group finds it (scan_tiles), by one
 * work-item from the input: each work-item's items folded into tmp[l], then
 * the work-group scan's combines, so the same bits. */
T tile_total_alone(__global const T *src, const ulong n, const uint u, __local T *tmp)
{
    for (uint l = 0; l < WG; l++) {
        const ulong at = (ulong)u * TILE + l * ITEMS;
        T run = IDENTITY;
        for (uint k = 0; k < ITEMS; k++) {
            const T x = at + k < n ? src[at + k] : IDENTITY; /* a T again: ?: promotes uchar to int */
            run = COMBINE(run, x);
        }
        tmp[l] = run;
    }
    return ONE_NAN(wg_exclusive_scan_alone(tmp));
}
#define SCAN_TILE_TOTAL(u, tmp) tile_total_alone(src, n, u, tmp)
#endif
DEFINE_LOOKBACK_GROUPED(scan_lookback, T, SCAN_FOLD, IDENTITY, !in_place, SCAN_TILE_TOTAL,
                        __global const T *src, const ulong n, const int in_place)
#define SCAN_PREFIX(t, total) \
    scan_lookback_prefix(lookback, t, ONE_NAN(total), stamp, &walk, sums, src, n, src == dst)

/* The one-sweep form: tile t (in start order) is src[t * TILE, ...). The
 * tile's own total is published before its look-back, so later tiles rarely
 * wait. Each element is read once and written once; src == dst is safe, as
 * in scan_chunks. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_tiles(__global const T *src, ulong src_offset, __global T *dst, ulong dst_offset, ulong n,
                __global ulong *lookback, uint stamp, int exclusive, __global const T *seed, ulong seed_offset,
                int seeded)
{
    __local uint ticket;
    __local scan_lookback_scratch walk;
    const uint lid = get_local_id(0);
    ulong base, end;
    const uint t = lookback_tile(lookback, n, &ticket, &base, &end);
    src += src_offset;
    dst += dst_offset;
    seed += seed_offset;

#if WG == 1
    /* The CPU shape: the tile's total, then its scan from the tiles' prefix
     * (the second read comes from the cache). */
    __local T sums[SCAN_SLOTS];
    const T prefix = SCAN_PREFIX(t, tile_total(src, n, t));
    scan_run(src, dst, base, end, seed_carry(seed, seeded, t == 0, prefix), exclusive);
#else
    __local T tile[PADDED_TILE];
    __local T sums[SCAN_SLOTS];
    load_tile(src, base, end, tile, IDENTITY);
    barrier(CLK_LOCAL_MEM_FENCE);
    T total;
    const T before = wg_exclusive_scan(fold_items(tile), sums, &total);
    const T carry = seed_carry(seed, seeded, t == 0, SCAN_PREFIX(t, total));
    rescan_items(COMBINE(carry, before), exclusive, tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    store_tile(dst, base, end, tile);
#endif
    /* As in scan_chunks: the work-item that wrote dst[0] writes it again. */
    if (exclusive && t == 0 && lid == 0)
        dst[0] = seeded ? seed[0] : EMPTY_RESULT;
}
#endif
