/* Stream compaction (copy_if), keeping the input order on every device, in
 * two forms (src/algorithms/compact.c chooses):
 *   multi-pass, the scan's skeleton with "count the kept elements" in pass 1
 *   and "scatter them at their scanned position" in pass 3:
 *     1. count_chunks: work-group g counts the kept elements of its chunk;
 *     2. when the G counts do not fit one tile, the host scans them
 *        (inclusive, the scan's kernels over ulong); else each group of pass 3
 *        folds the counts before it itself, as the scan does;
 *     3. scatter_chunks: work-group g compacts its chunk tile by tile,
 *        starting at the number of elements kept before its chunk;
 *   one-sweep, compact_tiles: one launch in which each work-group compacts one
 *   tile and learns how many elements the tiles before it keep by decoupled
 *   look-back (cl/block/lookback.cl).
 * A partition (clprim_partition) is the multi-pass form with `partition` set:
 * pass 3 also writes the rejected elements, in order, from the total kept
 * count on.
 * With WG == 1 (the CPU shape) the kernels are plain sequential loops.
 *
 * Options: -DTYPE=<NAME> (cl/types.h) and one predicate:
 *   KEEP_LT KEEP_LE KEEP_GT KEEP_GE KEEP_EQ KEEP_NE   x compared with `value`
 *   KEEP_NONZERO                                      x != 0
 *   KEEP_FLAGGED                                      flags[i] != 0 (src not read in pass 1)
 *   KEEP_EXPR=<expression over x and i>               the caller's expression, as
 *                                                     src/runtime/expression.c writes it
 */
#include "block/fill.cl" /* copy_elements: the input aside, for in place */
#include "block/lookback.cl"
#include "block/reduce_scan.cl"
#include "block/tile.cl"

#ifndef TYPE
#error "compact.cl needs an element type: -DTYPE=INT32, FLOAT, ... (cl/types.h)"
#endif

#if defined(KEEP_LT)
#define KEEP(x, i) ((x) < value)
#elif defined(KEEP_LE)
#define KEEP(x, i) ((x) <= value)
#elif defined(KEEP_GT)
#define KEEP(x, i) ((x) > value)
#elif defined(KEEP_GE)
#define KEEP(x, i) ((x) >= value)
#elif defined(KEEP_EQ)
#define KEEP(x, i) ((x) == value)
#elif defined(KEEP_NE)
#define KEEP(x, i) ((x) != value)
#elif defined(KEEP_NONZERO)
#define KEEP(x, i) ((x) != (T)0)
#elif defined(KEEP_FLAGGED)
#define KEEP(x, i) (flags[(i)] != 0) /* x is never evaluated */
#elif defined(KEEP_EXPR)
#include "expression.cl"
/* The caller's expression, parsed by the library (src/runtime/expression.c): it names
 * only x (the element), i (its index from src_offset), literals and built-ins. */
int keep_expression(const T x, const ulong i)
{
    return (KEEP_EXPR) != 0; /* a floating value too: OpenCL C takes no float condition in ?: */
}
#define KEEP(x, i) keep_expression((x), (i))
#else
#error "compact.cl needs a predicate: define KEEP_LT, ..., KEEP_NONZERO, KEEP_FLAGGED or KEEP_EXPR"
#endif

/* Counts of kept elements over a chunk. */
DEFINE_WG_REDUCE(wg_sum_count, ulong, ADD, 0ul)

/* Pieces shared by both forms. KEEP reads `flags` and `value` by name. */

/* The CPU shape: the kept elements of src[begin, end), counted in a loop. */
ulong count_run(__global const T *src, __global const uchar *flags, const T value, const ulong begin,
                const ulong end)
{
    ulong kept = 0;
    for (ulong i = begin; i < end; i++)
        kept += KEEP(src[i], i) ? 1 : 0;
    (void)value;
    return kept;
}

/* The CPU shape: src[begin, end)'s kept elements to dst from position out, in
 * a loop; returns the position after them. Every element is stored to the
 * staging tile and the position advances only when it is kept, so the loop
 * has no unpredictable branch; full tiles, and the rest at the end, are
 * copied out (nothing lands past the kept count). */
ulong compact_run(__global const T *src, __global const uchar *flags, const T value, __global T *dst,
                  const ulong begin, const ulong end, ulong out, __local T *tile)
{
    uint staged = 0;
    for (ulong i = begin; i < end; i++) {
        const T x = src[i];
        tile[staged] = x;
        staged += KEEP(x, i) ? 1 : 0;
        if (staged == TILE) {
            for (uint j = 0; j < TILE; j++)
                dst[out + j] = tile[j];
            out += TILE;
            staged = 0;
        }
    }
    for (uint j = 0; j < staged; j++)
        dst[out + j] = tile[j];
    (void)value;
    return out + staged;
}

/* The CPU shape of a partition: src[begin, end)'s kept elements to dst from
 * position out, the rejected ones from position rejected. */
ulong partition_run(__global const T *src, __global const uchar *flags, const T value,
                    __global T *dst, const ulong begin, const ulong end, ulong out, ulong rejected)
{
    for (ulong i = begin; i < end; i++) {
        const T x = src[i];
        if (KEEP(x, i))
            dst[out++] = x;
        else
            dst[rejected++] = x;
    }
    (void)value;
    return out;
}

/* A tile of src[base, end), staged in local memory with a coalesced load;
 * this work-item takes its run of ITEMS consecutive elements into registers
 * and judges them. Returns how many of them it keeps. */
uint judge_items(__global const T *src, __global const uchar *flags, const T value, const ulong base,
                 const ulong end, __local T *tile, T *x, uchar *keep)
{
    load_tile(src, base, end, tile, (T)0);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint lid = get_local_id(0);
    uint mine = 0;
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = lid * ITEMS + k;
        const ulong i = base + j;
        keep[k] = 0;
        if (i < end) {
            x[k] = tile[PAD(j)];
            keep[k] = KEEP(x[k], i) ? 1 : 0;
        }
        mine += keep[k];
    }
    (void)value;
    return mine;
}

/* After the work-group's count scan (which no tile read outlives), this
 * work-item's kept elements to the tile's front from position at, then,
 * past a barrier, the tile's `total` kept elements out to dst[out, ...).
 * A partition (rejected_out not ~0) stages the tile's rejected elements after
 * the kept ones and writes them to dst[rejected_out, ...) too. */
void write_kept(__local T *tile, const T *x, const uchar *keep, uint at, __global T *dst, const ulong out,
                const uint total, const ulong rejected_out, const ulong valid)
{
    const int partition = rejected_out != ~0ul;
    uint rejected_at = total + get_local_id(0) * ITEMS - at; /* rejected before mine, after the kept */
    for (uint k = 0; k < ITEMS; k++)
        if (keep[k]) {
            tile[PAD(at)] = x[k];
            at++;
        } else if (partition && get_local_id(0) * ITEMS + k < valid) {
            tile[PAD(rejected_at)] = x[k];
            rejected_at++;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = get_local_id(0); j < total; j += WG)
        dst[out + j] = tile[PAD(j)];
    if (partition)
        for (uint j = total + get_local_id(0); j < valid; j += WG)
            dst[rejected_out + (j - total)] = tile[PAD(j)];
}

/* Pass 1: counts[counts_offset + g] = kept elements of [g * chunk, min(n, (g + 1) * chunk)).
 * Loads are strided by WG so neighbouring work-items read neighbouring elements. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void count_chunks(__global const T *src, ulong src_offset, __global const uchar *flags, ulong flags_offset,
                  T value, ulong n, ulong chunk, __global ulong *counts, ulong counts_offset)
{
    __local ulong buf[WG];
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    flags += flags_offset;
    ulong kept = 0;
#if WG == 1
    kept = count_run(src, flags, value, begin, end);
#else
    for (ulong base = begin; base < end; base += TILE) {
        for (uint k = 0; k < ITEMS; k++) {
            const ulong i = base + k * WG + lid;
            if (i < end && KEEP(src[i], i))
                kept++;
        }
    }
#endif
    const ulong total = wg_sum_count(kept, buf);
    if (lid == 0)
        counts[counts_offset + get_group_id(0)] = total;
    (void)value;
}

/* seed_mode (constants.h): SEED_NONE, one chunk, position 0; SEED_FOLD, the
 * sum of counts[0, g) of pass 1, folded here; SEED_SCANNED, counts[g - 1]
 * already holds the inclusive scan of the counts (pass 2). */

/* Pass 3: work-group g writes the kept elements of its chunk to dst, in order,
 * from its seed. Per tile: a coalesced load into local memory; each work-item
 * takes ITEMS consecutive elements into registers and judges them; one
 * work-group scan of the work-items' counts gives each kept element its place;
 * they are compacted into local memory and written out coalesced. Only
 * dst[seed .. seed + kept) is written, and with `partition` (never SEED_NONE)
 * also the chunk's rejected elements, from the total kept count plus the
 * elements rejected before the chunk. The last work-group writes the total
 * count to count_out[count_offset] when write_count is set. src and dst must not
 * overlap (for in place, the host copies the input aside first). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scatter_chunks(__global const T *src, ulong src_offset, __global const uchar *flags, ulong flags_offset,
                    T value, __global T *dst, ulong dst_offset, ulong n, ulong chunk,
                    __global const ulong *counts, ulong counts_offset, int seed_mode,
                    __global ulong *count_out, ulong count_offset, int write_count, int partition)
{
    /* Local memory within what the tuning checks allow the scan (a padded tile
     * and WG eight-byte slots): the slots serve the fold, then the count scan
     * (SCAN_SLOTS four-byte slots). */
    __local T tile[PADDED_TILE];
    __local ulong slots[WG];
    __local uint *sums = (__local uint *)slots;
    const uint lid = get_local_id(0);
    const ulong group = get_group_id(0);
    const ulong begin = group * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    dst += dst_offset;
    flags += flags_offset;
    counts += counts_offset;

    ulong out = 0, kept_everywhere = 0;
    if (seed_mode == SEED_FOLD) {
        const ulong groups = get_num_groups(0);
        ulong acc = 0;
        for (ulong i = lid; i < group; i += WG)
            acc += counts[i];
        out = wg_sum_count(acc, slots); /* ends with a barrier: slots free again */
        if (partition) {
            for (ulong i = group + lid; i < groups; i += WG)
                acc += counts[i];
            kept_everywhere = wg_sum_count(acc, slots);
        }
    } else if (seed_mode == SEED_SCANNED) {
        out = group > 0 ? counts[group - 1] : 0;
        kept_everywhere = partition ? counts[get_num_groups(0) - 1] : 0;
    }

#if WG == 1
    /* The CPU shape: one work-item per group runs its chunk as a loop. */
    if (partition)
        out = partition_run(src, flags, value, dst, begin, end, out, kept_everywhere + (begin - out));
    else
        out = compact_run(src, flags, value, dst, begin, end, out, tile);
#else
    for (ulong base = begin; base < end; base += TILE) {
        T x[ITEMS];
        uchar keep[ITEMS];
        uint total;
        const uint at = wg_exclusive_count(judge_items(src, flags, value, base, end, tile, x, keep), sums, &total);
        write_kept(tile, x, keep, at, dst, out, total, partition ? kept_everywhere + (base - out) : ~0ul,
                   min((ulong)TILE, end - base));
        out += total;
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile overwrites local memory */
    }
#endif
    if (write_count && lid == 0 && group == get_num_groups(0) - 1)
        count_out[count_offset] = out;
    (void)value;
}

/* clprim_find_if: firsts[firsts_offset + g] = the index of the first kept
 * element of [g * chunk, min(n, (g + 1) * chunk)), or n when none, for a fold
 * with MIN. Each group visits its chunk a span of FIND_TILES tiles at a time,
 * in order, and stops at its first match, publishing that span's number to
 * *found_span (atomic_min, from ~0); before each span it reads *found_span and
 * stops when a match lies in an earlier span, since its chunk cannot then
 * hold the first one. The early stops change how much is read, never the
 * answer. A span's number is its first element / FIND_SPAN: a group that
 * reads a smaller number than its own span's knows a match in another group's
 * chunk, which lies wholly before its own. Numbers past 32 bits are taken as
 * ~0 - 1, which only stops fewer groups. */
#define FIND_TILES 8 /* a span: one atomic read and three barriers amortized over 8 tiles */
#define FIND_SPAN (FIND_TILES * TILE)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void find_first_chunks(__global const T *src, ulong src_offset, __global const uchar *flags, ulong flags_offset,
                       T value, ulong n, ulong chunk, __global ulong *firsts, ulong firsts_offset,
                       __global uint *found_span, ulong found_span_offset)
{
    __local uint best, stop;
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    flags += flags_offset;
    found_span += found_span_offset;
    ulong first = n;
    /* One exit, in the loop's condition: every work-item leaves together
     * (PoCL mishandles a break out of a loop with barriers). */
    int done = 0;
    for (ulong base = begin; base < end && !done; base += FIND_SPAN) {
        const uint span = (uint)min(base / FIND_SPAN, (ulong)UINT_MAX - 1);
        if (lid == 0) {
            best = FIND_SPAN;
            stop = atomic_or(found_span, 0u) < span; /* an atomic read */
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* No early exit within the span: its loads are in flight at once, and
         * on the CPU shape the loop vectorizes as a min-reduction. */
        uint mine = FIND_SPAN;
        if (!stop) {
#if WG == 1
            const uint count = (uint)min((ulong)FIND_SPAN, end - base);
            for (uint j = 0; j < count; j++)
                mine = min(mine, KEEP(src[base + j], base + j) ? j : (uint)FIND_SPAN);
#else
            for (uint t = 0; t < FIND_TILES; t++) {
                if (base + (t + 1) * TILE <= end) { /* a whole tile: its ITEMS loads issue together */
                    for (uint k = 0; k < ITEMS; k++) {
                        const uint j = t * TILE + k * WG + lid;
                        mine = min(mine, KEEP(src[base + j], base + j) ? j : (uint)FIND_SPAN);
                    }
                } else {
                    for (uint k = 0; k < ITEMS; k++) {
                        const uint j = t * TILE + k * WG + lid;
                        mine = min(mine, base + j < end && KEEP(src[base + j], base + j) ? j : (uint)FIND_SPAN);
                    }
                }
            }
#endif
        }
        if (mine < FIND_SPAN)
            atomic_min(&best, mine);
        barrier(CLK_LOCAL_MEM_FENCE);
        done = stop || best < FIND_SPAN;
        if (best < FIND_SPAN) {
            first = base + best;
            if (lid == 0)
                atomic_min(found_span, span);
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read best and stop */
    }
    if (lid == 0)
        firsts[firsts_offset + get_group_id(0)] = first;
    (void)value;
}

#ifdef STATUS_STORE64
/* 16 records a step: on the H100 at 2^28 int32, 32 took 6% longer. */
DEFINE_LOOKBACK(kept_lookback, ulong, ADD, 0ul, 16)

/* The one-sweep form: tile t (in start order) is src[t * TILE, ...); its
 * kept elements land after those of the tiles before it, whose count the
 * look-back gives. The last tile writes the total count to
 * count_out[count_offset] when write_count is set. src and dst must not
 * overlap, as for scatter_chunks. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void compact_tiles(__global const T *src, ulong src_offset, __global const uchar *flags, ulong flags_offset,
                   T value, __global T *dst, ulong dst_offset, ulong n, __global ulong *lookback, uint stamp,
                   __global ulong *count_out, ulong count_offset, int write_count)
{
    __local uint ticket;
    __local kept_lookback_scratch walk;
    __local T tile[PADDED_TILE];
    const uint lid = get_local_id(0);
    ulong base, end;
    const uint t = lookback_tile(lookback, n, &ticket, &base, &end);
    src += src_offset;
    dst += dst_offset;
    flags += flags_offset;

#if WG == 1
    const ulong total = count_run(src, flags, value, base, end);
    const ulong out = kept_lookback_prefix(lookback, t, total, stamp, &walk);
    compact_run(src, flags, value, dst, base, end, out, tile);
#else
    __local uint sums[SCAN_SLOTS];
    T x[ITEMS];
    uchar keep[ITEMS];
    uint total;
    const uint at = wg_exclusive_count(judge_items(src, flags, value, base, end, tile, x, keep), sums, &total);
    const ulong out = kept_lookback_prefix(lookback, t, total, stamp, &walk);
    write_kept(tile, x, keep, at, dst, out, total, ~0ul, 0);
#endif
    if (write_count && lid == 0 && t == get_num_groups(0) - 1)
        count_out[count_offset] = out + total;
}
#endif
