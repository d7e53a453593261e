/* Work-group reduce and exclusive scan, written once for any value type V,
 * operator COMB (a macro of two values, the left operand first) and identity
 * ID, so that kernels instantiate them for the element T, for counts and for
 * pairs alike; and the two steps around a scan of a staged tile, each
 * work-item's fold of its ITEMS consecutive elements and their rescan. Every
 * exchange through local memory is separated by a barrier: nothing assumes
 * lock-step warps or wavefronts. */
#ifndef CLPRIM_BLOCK_REDUCE_SCAN_CL
#define CLPRIM_BLOCK_REDUCE_SCAN_CL

#include "block/element.cl"

/* NAME(x, buf): the combination of every work-item's x, returned to all of
 * them. buf: WG slots, free again on return. */
#define DEFINE_WG_REDUCE(NAME, V, COMB, ID)                          \
    V NAME(V x, __local V *buf)                                      \
    {                                                                \
        const uint lid = get_local_id(0);                            \
        buf[lid] = x;                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                \
        for (uint width = WG / 2; width > 0; width >>= 1) {          \
            if (lid < width)                                         \
                buf[lid] = COMB(buf[lid], buf[lid + width]);         \
            barrier(CLK_LOCAL_MEM_FENCE);                            \
        }                                                            \
        const V result = buf[0];                                     \
        barrier(CLK_LOCAL_MEM_FENCE); /* buf may be reused at once */ \
        return result;                                               \
    }

/* NAME(x, buf): the combination of every work-item's x in work-item order,
 * returned to all of them, by a pairwise tree whose grouping WG alone fixes:
 * each step combines neighbouring partial results, the left one first, so
 * COMB need not commute. One barrier a step, where a scan takes one or two.
 * NAME_alone(buf), for one work-item: the same combines over buf[0, WG) in
 * the same grouping (so the same bits), left in buf[0] and returned. buf: WG
 * slots, free again on return. */
#define DEFINE_WG_REDUCE_IN_ORDER(NAME, V, COMB)                     \
    V NAME(V x, __local V *buf)                                      \
    {                                                                \
        const uint lid = get_local_id(0);                            \
        buf[lid] = x;                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                \
        for (uint stride = 1; stride < WG; stride <<= 1) {           \
            const uint i = 2 * stride * lid;                         \
            if (i + stride < WG)                                     \
                buf[i] = COMB(buf[i], buf[i + stride]);              \
            barrier(CLK_LOCAL_MEM_FENCE);                            \
        }                                                            \
        const V result = buf[0];                                     \
        barrier(CLK_LOCAL_MEM_FENCE); /* buf may be reused at once */ \
        return result;                                               \
    }                                                                \
                                                                     \
    V NAME##_alone(__local V *buf)                                   \
    {                                                                \
        for (uint stride = 1; stride < WG; stride <<= 1)             \
            for (uint i = 0; i + stride < WG; i += 2 * stride)       \
                buf[i] = COMB(buf[i], buf[i + stride]);              \
        return buf[0];                                               \
    }

/* Slots of the scan's buffer: two halves, so that each step reads one and
 * writes the other, and needs one barrier, not two. The steps start in the
 * half that makes them end in the upper one, whatever WG (log2(WG) steps: an
 * even count starts there), so that the results are read from the upper half
 * and the lower one is free at return. */
#define SCAN_SLOTS (2 * WG)
#define SCAN_STEPS_EVEN ((WG & 0x55555555u) != 0) /* WG a power of two */

/* NAME(x, buf, &total): exclusive scan of one value per work-item in work-item
 * order (Hillis-Steele); the group's total goes to *total. buf: SCAN_SLOTS
 * slots. Its first barrier also orders every local read made before the call;
 * buf[0, WG) is free at return (the grouped look-back sums in it at once,
 * block/lookback.cl), the rest after the caller's next barrier.
 * NAME_alone(buf), for one work-item: given work-item l's value in buf[l],
 * leaves in buf[l] what NAME's inclusive result at l is, the same combines in
 * the same order (so the same bits), and returns the total. Each defining
 * macro makes both. */
#define DEFINE_WG_EXCLUSIVE_SCAN(NAME, V, COMB, ID)                                  \
    V NAME(V x, __local V *buf, V *total)                                            \
    {                                                                                \
        const uint lid = get_local_id(0);                                            \
        __local V *from = SCAN_STEPS_EVEN ? buf + WG : buf;                          \
        __local V *to = SCAN_STEPS_EVEN ? buf : buf + WG;                            \
        from[lid] = x;                                                               \
        barrier(CLK_LOCAL_MEM_FENCE);                                                \
        for (uint offset = 1; offset < WG; offset <<= 1) {                           \
            to[lid] = lid >= offset ? COMB(from[lid - offset], from[lid]) : from[lid]; \
            barrier(CLK_LOCAL_MEM_FENCE);                                            \
            __local V *swap = from;                                                  \
            from = to;                                                               \
            to = swap;                                                               \
        }                                                                            \
        *total = from[WG - 1];                                                       \
        return lid > 0 ? from[lid - 1] : (ID);                                       \
    }                                                                                \
                                                                                     \
    V NAME##_alone(__local V *buf)                                                   \
    {                                                                                \
        for (uint offset = 1; offset < WG; offset <<= 1)                             \
            for (uint p = WG - 1; p >= offset; p--) /* from the top: as two halves */ \
                buf[p] = COMB(buf[p - offset], buf[p]);                              \
        return buf[WG - 1];                                                          \
    }

/* The same in WG slots, two barriers a step: for pairs (scan by key's value
 * and head), where on an H100 the double-buffered form made scan by key over
 * floats 1.39 times slower at 2^26 keys (8 bytes a slot, beside the rescan). */
#define DEFINE_WG_EXCLUSIVE_SCAN_IN_PLACE(NAME, V, COMB, ID)                        \
    V NAME(V x, __local V *buf, V *total)                                            \
    {                                                                                \
        const uint lid = get_local_id(0);                                            \
        buf[lid] = x;                                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                \
        for (uint offset = 1; offset < WG; offset <<= 1) {                           \
            const V mine = buf[lid];                                                 \
            const V left = lid >= offset ? buf[lid - offset] : (ID);                 \
            barrier(CLK_LOCAL_MEM_FENCE);                                            \
            buf[lid] = COMB(left, mine);                                             \
            barrier(CLK_LOCAL_MEM_FENCE);                                            \
        }                                                                            \
        *total = buf[WG - 1];                                                        \
        const V prefix = lid > 0 ? buf[lid - 1] : (ID);                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                \
        return prefix;                                                               \
    }                                                                                \
                                                                                     \
    V NAME##_alone(__local V *buf)                                                   \
    {                                                                                \
        for (uint offset = 1; offset < WG; offset <<= 1)                             \
            for (uint p = WG; p-- > 0;)                                              \
                buf[p] = COMB(p >= offset ? buf[p - offset] : (ID), buf[p]);         \
        return buf[WG - 1];                                                          \
    }

#define ADD(a, b) ((a) + (b))

/* Counts: where each work-item's kept elements or keys go. wg_exclusive_count
 * is NAME(x, buf, &total) as above. Where the device has warps (HAS_WARPS),
 * each warp scans its counts by shuffles and one barrier shares the warps'
 * totals, where the steps take log2(WG) barriers: on an H200 at 2^26,
 * compaction took 2% less time, the two-way partition 3%, the radix sort of
 * 32-bit keys (three count scans a tile) 4% (BENCHMARKS.md). A count sums
 * exactly in any grouping, so both give the same counts. */
DEFINE_WG_EXCLUSIVE_SCAN(wg_exclusive_count_in_steps, uint, ADD, 0u)
#ifdef HAS_WARPS
#include "block/warp.cl"

uint wg_exclusive_count(const uint x, __local uint *buf, uint *total)
{
    const uint lane = warp_lane(), warp = warp_index();
    uint inclusive = x;
    for (uint distance = 1; distance < WARP; distance <<= 1) {
        const uint below = warp_shuffle_up(inclusive, distance, buf + WG); /* the emulation's scratch */
        inclusive += lane >= distance ? below : 0u;
    }
    if (lane == WARP - 1)
        buf[warp] = inclusive;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint before = 0, all = 0;
    for (uint w = 0; w < WARPS; w++) {
        before = w == warp ? all : before;
        all += buf[w];
    }
    *total = all;
    return before + inclusive - x;
}
#else
#define wg_exclusive_count wg_exclusive_count_in_steps
#endif

/* A staged tile (block/tile.cl) is scanned in three steps: each work-item
 * folds its ITEMS consecutive elements in registers (NAME(locals), defined by
 * DEFINE_FOLD_ITEMS), one work-group scan combines the work-items' folds, and
 * each work-item rescans its run from its prefix (NAME(run, exclusive,
 * locals), by DEFINE_RESCAN_ITEMS). ITEM(j) is element j of the staged tile
 * as a V, read from the locals, the functions' last parameters; STORE(j,
 * before, inclusive) writes element j back, given the combination of the
 * elements before it and through it (`exclusive` is in scope). */
#define DEFINE_FOLD_ITEMS(NAME, V, COMB, ID, ITEM, ...)    \
    V NAME(__VA_ARGS__)                                   \
    {                                                     \
        const uint lid = get_local_id(0);                 \
        V run = (ID);                                     \
        for (uint k = 0; k < ITEMS; k++)                  \
            run = COMB(run, ITEM(PAD(lid * ITEMS + k)));  \
        return run;                                       \
    }

#define DEFINE_RESCAN_ITEMS(NAME, V, COMB, ITEM, STORE, ...)      \
    void NAME(V run, const int exclusive, __VA_ARGS__)           \
    {                                                            \
        const uint lid = get_local_id(0);                        \
        for (uint k = 0; k < ITEMS; k++) {                       \
            const uint j = PAD(lid * ITEMS + k);                 \
            const V inclusive = COMB(run, ITEM(j));              \
            STORE(j, run, inclusive);                            \
            run = inclusive;                                     \
        }                                                        \
    }

#ifdef COMBINE
/* Four values combined among themselves, (a b)(c d): the CPU shape's loops
 * fold four at a time into their running value, so that it waits for one
 * combine per four (the operator is associative). */
#define COMBINE_FOUR(a, b, c, d) COMBINE(COMBINE(a, b), COMBINE(c, d))

/* A step of the CPU shape's sequential scans: PUT(k, v) for each of src[i],
 * ..., src[i + 3], v being run combined with the elements before it
 * (exclusive) or through it, and run advanced past the four. The four are
 * combined among themselves first (the operator is associative), so that run
 * waits for one combine per four, not four: a float add's latency set the
 * pace of these loops. */
#define SCAN_FOUR(run, src, i, exclusive, PUT)                                                                 \
    do {                                                                                                       \
        const T x0_ = (src)[i], x1_ = (src)[(i) + 1], x2_ = (src)[(i) + 2], x3_ = (src)[(i) + 3];              \
        const T x01_ = COMBINE(x0_, x1_);                                                                     \
        const T r0_ = COMBINE(run, x0_), r1_ = COMBINE(run, x01_), r2_ = COMBINE(run, COMBINE(x01_, x2_)),    \
                r3_ = COMBINE(run, COMBINE(x01_, COMBINE(x2_, x3_)));                                          \
        /* Each a T again: ?: promotes uchar to int. */                                                        \
        const T u0_ = (exclusive) ? (run) : r0_, u1_ = (exclusive) ? r0_ : r1_, u2_ = (exclusive) ? r1_ : r2_, \
                u3_ = (exclusive) ? r2_ : r3_;                                                                 \
        PUT(0, u0_);                                                                                           \
        PUT(1, u1_);                                                                                           \
        PUT(2, u2_);                                                                                           \
        PUT(3, u3_);                                                                                           \
        run = r3_;                                                                                             \
    } while (0)

DEFINE_WG_REDUCE(wg_reduce, T, COMBINE, IDENTITY)
DEFINE_WG_EXCLUSIVE_SCAN(wg_exclusive_scan, T, COMBINE, IDENTITY)

/* The element's tile: fold_items(tile) and rescan_items(run, exclusive, tile). */
#define TILE_ITEM(j) tile[j]
#define TILE_STORE(j, before, inclusive) (tile[j] = exclusive ? (before) : (inclusive))
DEFINE_FOLD_ITEMS(fold_items, T, COMBINE, IDENTITY, TILE_ITEM, __local const T *tile)
DEFINE_RESCAN_ITEMS(rescan_items, T, COMBINE, TILE_ITEM, TILE_STORE, __local T *tile)
#endif

#endif /* CLPRIM_BLOCK_REDUCE_SCAN_CL */
