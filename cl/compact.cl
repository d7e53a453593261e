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
 * count on; or, over tiles the device runs at once, partition_tiles: one
 * launch in which each tile learns every tile's counts (a census,
 * cl/block/lookback.cl).
 * A three-way partition (clprim_partition_three_way) is a partition with a
 * second predicate compiled in (SECOND_KIND). Each element goes to one part:
 * the first when it passes the first predicate, else the second when it passes
 * the second, else the rest. Pass 1 writes two lists of G counts, one after
 * the other: each chunk's first part, then each chunk's second part. So one
 * inclusive scan of the 2G counts (or a fold of them) gives every position:
 * a chunk's first part starts at the first list's prefix, its second part at
 * the first part's total plus the second list's prefix, which is where the
 * scan of the second list starts, and the rest after both totals.
 * With WG == 1 (the CPU shape) the kernels are plain sequential loops.
 *
 * Options: -DTYPE=<NAME> (cl/types.h) and the predicate's kind,
 * -DKEEP_KIND=<n>, n one of cl/constants.h's PREDICATE_* (clprim_keep's values):
 *   LT LE GT GE EQ NE   x compared with `value`
 *   NONZERO             x != 0
 *   FLAGGED             flags[i] != 0 (src not read in pass 1)
 *   EXPRESSION          -DKEEP_EXPR=<expression over x and i>, the caller's
 *                       expression as src/runtime/expression.c writes it
 * A three-way partition adds -DSECOND_KIND=<n> (and -DSECOND_EXPR=...), judged
 * with second_value and second_flags, its kernels' last arguments.
 */
#include "block/fill.cl" /* copy_elements: the input aside, for in place */
#include "block/lookback.cl"
#include "block/reduce_scan.cl"
#include "block/tile.cl"

#ifndef TYPE
#error "compact.cl needs an element type: -DTYPE=INT32, FLOAT, ... (cl/types.h)"
#endif
#ifndef KEEP_KIND
#error "compact.cl needs a predicate: -DKEEP_KIND=<n>, n one of PREDICATE_* (cl/constants.h)"
#endif

#if defined(KEEP_EXPR) || defined(SECOND_EXPR)
#include "expression.cl"
#endif
/* A caller's expression, parsed by the library (src/runtime/expression.c): it
 * names only x (the element), i (its index from src_offset), literals and
 * built-ins. A floating value is true when non-zero: OpenCL C takes no float
 * condition in ?:. */
#define DEFINE_EXPRESSION(NAME, EXPRESSION) \
    int NAME(const T x, const ulong i)      \
    {                                       \
        return (EXPRESSION) != 0;           \
    }
#ifdef KEEP_EXPR
DEFINE_EXPRESSION(keep_expression, KEEP_EXPR)
#else
#define keep_expression(x, i) 0
#endif
#ifdef SECOND_EXPR
DEFINE_EXPRESSION(second_expression, SECOND_EXPR)
#else
#define second_expression(x, i) 0
#endif

/* Whether x, element i, passes a predicate of kind K with its value, flags and
 * expression. K is a constant, so one term remains, and only that term is
 * evaluated: FLAGGED never reads x. */
#define PASSES(K, x, i, value, flags, expression)          \
    ((K) == PREDICATE_LT        ? (x) < (value)            \
     : (K) == PREDICATE_LE      ? (x) <= (value)           \
     : (K) == PREDICATE_GT      ? (x) > (value)            \
     : (K) == PREDICATE_GE      ? (x) >= (value)           \
     : (K) == PREDICATE_EQ      ? (x) == (value)           \
     : (K) == PREDICATE_NE      ? (x) != (value)           \
     : (K) == PREDICATE_NONZERO ? (x) != (T)0              \
     : (K) == PREDICATE_FLAGGED ? (flags)[(i)] != 0        \
                                : expression((x), (i)))

/* KEEP reads `flags` and `value` by name; SECOND, the second predicate of a
 * three-way partition, `second_flags` and `second_value`. The helpers take
 * the second's arguments after the first's (SECOND_PARAMS), the kernels last
 * (SECOND_KERNEL_PARAMS, with the flags' offset). */
#define KEEP(x, i) PASSES(KEEP_KIND, x, i, value, flags, keep_expression)
#ifdef SECOND_KIND
#define SECOND(x, i) PASSES(SECOND_KIND, x, i, second_value, second_flags, second_expression)
#define SECOND_PARAMS , __global const uchar *second_flags, const T second_value
#define SECOND_ARGS , second_flags, second_value
#define SECOND_KERNEL_PARAMS , __global const uchar *second_flags, ulong second_flags_offset, T second_value
#else
#define SECOND(x, i) 0
#define SECOND_PARAMS
#define SECOND_ARGS
#define SECOND_KERNEL_PARAMS
#endif

/* An element's part from its two judgements, both made so that a loop of them
 * needs no branch: 1 when it passes the first predicate, 2 when it passes only
 * the second (a three-way partition), 0 otherwise (rejected: the rest). */
uint part_of(const int first, const int second)
{
    return first ? 1u : second ? 2u : 0u;
}
#define PART(x, i) part_of(KEEP(x, i), SECOND(x, i))

/* A work-item's parts in a tile, counted for the work-group's scan: its kept
 * elements, and with a second predicate (in the high 32 bits, scanned in the
 * WG eight-byte slots) those of the second part. */
#ifdef SECOND_KIND
typedef ulong tile_counts;
#define FIRSTS(c) ((uint)(c))
#define SECONDS(c) ((uint)((c) >> 32))
#define COUNT_OF(part) ((part) == 2u ? 1ul << 32 : (ulong)(part))
#define COUNTS(firsts, seconds) ((ulong)(firsts) | (ulong)(seconds) << 32)
DEFINE_WG_EXCLUSIVE_SCAN_IN_PLACE(wg_exclusive_counts, ulong, ADD, 0ul)
#else
typedef uint tile_counts;
#define FIRSTS(c) (c)
#define SECONDS(c) 0u
#define COUNT_OF(part) (part)
#define COUNTS(firsts, seconds) ((uint)(firsts))
#define wg_exclusive_counts wg_exclusive_count
#endif

/* Counts of kept elements over a chunk. */
DEFINE_WG_REDUCE(wg_sum_count, ulong, ADD, 0ul)

/* Pieces shared by both forms. */

/* The CPU shape: the kept elements of src[begin, end), counted in a loop;
 * those of a three-way partition's second part go to *seconds. */
ulong count_run(__global const T *src, __global const uchar *flags, const T value SECOND_PARAMS, const ulong begin,
                const ulong end, ulong *seconds)
{
    ulong kept = 0, second = 0;
    for (ulong i = begin; i < end; i++) {
        const uint part = PART(src[i], i);
        kept += part == 1u;
        second += part == 2u;
    }
    *seconds = second;
    (void)value;
    return kept;
}

/* The CPU shape: src[begin, end)'s kept elements to dst from position out, in
 * a loop; returns the position after them. Every element up to the last kept
 * one is stored at dst[out], and out advances only past a kept one, so the
 * loop has no branch on the data; a rejected element's store is overwritten
 * by the next kept one, and nothing lands past the kept count. (Staging the
 * kept elements in a local tile, copied out when full, took 2^24 int32 on one
 * core 32 ms where this takes 17.) */
ulong compact_run(__global const T *src, __global const uchar *flags, const T value, __global T *dst,
                  const ulong begin, const ulong end, ulong out)
{
    ulong last = end; /* after the last kept element */
    while (last > begin && !KEEP(src[last - 1], last - 1))
        last--;
    for (ulong i = begin; i < last; i++) {
        const T x = src[i];
        dst[out] = x;
        out += KEEP(x, i) ? 1 : 0;
    }
    (void)value;
    return out;
}

/* The CPU shape of a partition: src[begin, end)'s kept elements to dst from
 * position out, the rejected ones from position rejected, and those of a
 * three-way partition's second part from *second (which advances). Returns
 * the position after the kept ones. */
ulong partition_run(__global const T *src, __global const uchar *flags, const T value SECOND_PARAMS,
                    __global T *dst, const ulong begin, const ulong end, ulong out, ulong *second, ulong rejected)
{
    ulong between = *second;
    /* Each element to its part's place, chosen without a branch (parts come
     * in no predictable order); then that place advances. */
    for (ulong i = begin; i < end; i++) {
        const T x = src[i];
        const uint part = PART(x, i);
        dst[part == 1u ? out : part == 2u ? between : rejected] = x;
        out += part == 1u;
        between += part == 2u;
        rejected += part == 0u;
    }
    *second = between;
    (void)value;
    return out;
}

/* STEP(k, j, in) for each of this work-item's ITEMS consecutive elements of
 * the tile at base (j: its place in the tile; in: whether it lies before
 * end). A whole tile's steps take no bound check: behind one, NVIDIA's
 * compiler read the elements (or flags) one at a time (one-sweep compaction
 * at 2^26 int32 on the H100: 0.224 ms with the check, 0.205 without). */
#define FOR_EACH_ITEM(base, end, STEP)                                                     \
    do {                                                                                   \
        const uint first_ = get_local_id(0) * ITEMS;                                       \
        if ((base) + TILE <= (end)) {                                                      \
            for (uint k_ = 0; k_ < ITEMS; k_++)                                            \
                STEP(k_, first_ + k_, 1);                                                  \
        } else {                                                                           \
            for (uint k_ = 0; k_ < ITEMS; k_++)                                            \
                STEP(k_, first_ + k_, (base) + first_ + k_ < (end));                       \
        }                                                                                  \
    } while (0)

/* A tile of src[base, end), staged in local memory with a coalesced load;
 * this work-item takes its run of ITEMS consecutive elements into registers
 * and judges them (part: PART's, 0 past the end). Returns how many of them go
 * to each part (tile_counts). */
tile_counts judge_items(__global const T *src, __global const uchar *flags, const T value SECOND_PARAMS,
                        const ulong base, const ulong end, __local T *tile, T *x, uchar *part)
{
    load_tile(src, base, end, tile, (T)0);
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_counts mine = 0;
    /* Past the end, the tile's fill and part 0. */
#define JUDGE_PART(k, j, in)                                       \
    {                                                              \
        x[k] = tile[PAD(j)];                                       \
        part[k] = (in) ? (uchar)PART(x[k], base + (j)) : (uchar)0; \
        mine += COUNT_OF(part[k]);                                 \
    }
    FOR_EACH_ITEM(base, end, JUDGE_PART);
#undef JUDGE_PART
    (void)value;
    return mine;
}

/* After the work-group's count scan (which no tile read outlives), this
 * work-item's kept elements to the tile's front from position FIRSTS(at),
 * then, past a barrier, the tile's FIRSTS(total) kept elements out to
 * dst[out, ...). A partition (rejected_out not ~0) stages the tile's rejected
 * elements after the kept ones and writes them to dst[rejected_out, ...) too;
 * a three-way partition stages its second part between the two and writes it
 * to dst[second_out, ...). */
void write_kept(__local T *tile, const T *x, const uchar *part, const tile_counts at, __global T *dst,
                const ulong out, const tile_counts total, const ulong second_out, const ulong rejected_out,
                const ulong valid)
{
    const int partition = rejected_out != ~0ul;
    const uint lid = get_local_id(0), kept = FIRSTS(total) + SECONDS(total); /* staged before the rejected */
    uint first_at = FIRSTS(at);
    uint rejected_at = kept + lid * ITEMS - FIRSTS(at) - SECONDS(at); /* rejected before mine, after the kept */
#ifdef SECOND_KIND
    uint second_at = FIRSTS(total) + SECONDS(at);
#endif
    for (uint k = 0; k < ITEMS; k++)
        if (part[k] == 1) {
            tile[PAD(first_at)] = x[k];
            first_at++;
#ifdef SECOND_KIND
        } else if (part[k] == 2) {
            tile[PAD(second_at)] = x[k];
            second_at++;
#endif
        } else if (partition && lid * ITEMS + k < valid) {
            tile[PAD(rejected_at)] = x[k];
            rejected_at++;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = lid; j < FIRSTS(total); j += WG)
        dst[out + j] = tile[PAD(j)];
#ifdef SECOND_KIND
    for (uint j = FIRSTS(total) + lid; j < kept; j += WG)
        dst[second_out + (j - FIRSTS(total))] = tile[PAD(j)];
#endif
    if (partition)
        for (uint j = kept + lid; j < valid; j += WG)
            dst[rejected_out + (j - kept)] = tile[PAD(j)];
    (void)second_out;
}

/* Pass 1: counts[counts_offset + g] = kept elements of [g * chunk, min(n, (g + 1) * chunk)),
 * and for a three-way partition counts[counts_offset + G + g] = the elements
 * of that chunk's second part. Loads are strided by WG so neighbouring
 * work-items read neighbouring elements. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void count_chunks(__global const T *src, ulong src_offset, __global const uchar *flags, ulong flags_offset,
                  T value, ulong n, ulong chunk, __global ulong *counts, ulong counts_offset SECOND_KERNEL_PARAMS)
{
    __local ulong buf[WG];
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    flags += flags_offset;
#ifdef SECOND_KIND
    second_flags += second_flags_offset;
#endif
    ulong kept = 0, second = 0;
#if WG == 1
    kept = count_run(src, flags, value SECOND_ARGS, begin, end, &second);
#else
    /* A whole tile's elements are judged with no bound check, so that their
     * loads are in flight together (as judge_items' are). */
#define COUNT_PART(at)                         \
    {                                          \
        const ulong i_ = (at);                 \
        const uint part = PART(src[i_], i_);   \
        kept += part == 1u;                    \
        second += part == 2u;                  \
    }
    for (ulong base = begin; base < end; base += TILE) {
        if (base + TILE <= end) {
            for (uint k = 0; k < ITEMS; k++)
                COUNT_PART(base + k * WG + lid)
        } else {
            for (uint k = 0; k < ITEMS; k++)
                if (base + k * WG + lid < end)
                    COUNT_PART(base + k * WG + lid)
        }
    }
#undef COUNT_PART
#endif
    const ulong total = wg_sum_count(kept, buf);
    if (lid == 0)
        counts[counts_offset + get_group_id(0)] = total;
#ifdef SECOND_KIND
    const ulong seconds = wg_sum_count(second, buf);
    if (lid == 0)
        counts[counts_offset + get_num_groups(0) + get_group_id(0)] = seconds;
#endif
    (void)value;
}

/* SEED_FOLD: acc plus this work-item's share of counts[from, to), for a
 * work-group sum (wg_sum_count) of counts[0, to) when the shares of
 * counts[0, from) are in acc. */
ulong add_counts(__global const ulong *counts, const ulong from, const ulong to, ulong acc)
{
    for (ulong i = from + get_local_id(0); i < to; i += WG)
        acc += counts[i];
    return acc;
}

/* seed_mode (constants.h): SEED_NONE, one chunk, position 0; SEED_FOLD, the
 * sum of counts[0, g) of pass 1, folded here; SEED_SCANNED, counts[g - 1]
 * already holds the inclusive scan of the counts (pass 2), over both lists
 * for a three-way partition. */

/* Pass 3: work-group g writes the kept elements of its chunk to dst, in order,
 * from its seed. Per tile: a coalesced load into local memory; each work-item
 * takes ITEMS consecutive elements into registers and judges them; one
 * work-group scan of the work-items' counts gives each kept element its place;
 * they are compacted into local memory and written out coalesced. Only
 * dst[seed .. seed + kept) is written, and with `partition` (never SEED_NONE
 * unless n == 0) also the chunk's rejected elements, from the total kept count
 * plus the elements rejected before the chunk; a three-way partition writes
 * its second part between the two, from the first part's total plus the
 * second part's elements before the chunk. The last work-group writes the
 * total count to count_out[count_offset] when write_count is set (a three-way
 * partition: the second part's to count_out[count_offset + 1]). src and dst
 * must not overlap (for in place, the host copies the input aside first). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scatter_chunks(__global const T *src, ulong src_offset, __global const uchar *flags, ulong flags_offset,
                    T value, __global T *dst, ulong dst_offset, ulong n, ulong chunk,
                    __global const ulong *counts, ulong counts_offset, int seed_mode,
                    __global ulong *count_out, ulong count_offset, int write_count, int partition SECOND_KERNEL_PARAMS)
{
    /* Local memory within what the tuning checks allow the scan (a padded tile
     * and WG eight-byte slots): the slots serve the fold, then the count scan
     * (SCAN_SLOTS four-byte slots, or WG eight-byte ones for two counts). */
#if WG > 1
    __local T tile[PADDED_TILE];
#endif
    __local ulong slots[WG];
    __local tile_counts *sums = (__local tile_counts *)slots;
    const uint lid = get_local_id(0);
    const ulong group = get_group_id(0), groups = get_num_groups(0);
    const ulong begin = group * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    dst += dst_offset;
    flags += flags_offset;
    counts += counts_offset;
#ifdef SECOND_KIND
    second_flags += second_flags_offset;
#endif

    /* out: where the chunk's kept elements go; kept_everywhere: the total
     * kept (a partition: of both first parts, a three-way one); second_out:
     * where its second part goes, after firsts, the first part's total. */
    ulong out = 0, kept_everywhere = 0, second_out = 0, firsts = 0;
    if (seed_mode == SEED_FOLD) {
        /* wg_sum_count ends with a barrier: slots free again */
        ulong acc = add_counts(counts, 0, group, 0);
        out = wg_sum_count(acc, slots);
#ifdef SECOND_KIND
        acc = add_counts(counts, group, groups, acc);
        firsts = wg_sum_count(acc, slots);
        acc = add_counts(counts, groups, groups + group, acc);
        second_out = wg_sum_count(acc, slots);
        acc = add_counts(counts, groups + group, 2 * groups, acc);
        kept_everywhere = wg_sum_count(acc, slots);
#else
        if (partition)
            kept_everywhere = wg_sum_count(add_counts(counts, group, groups, acc), slots);
#endif
    } else if (seed_mode == SEED_SCANNED) {
        out = group > 0 ? counts[group - 1] : 0;
#ifdef SECOND_KIND
        firsts = counts[groups - 1];
        second_out = counts[groups + group - 1];
        kept_everywhere = counts[2 * groups - 1];
#else
        kept_everywhere = partition ? counts[groups - 1] : 0;
#endif
    }

    /* A partition's rejected elements before position `at` of src: those
     * before it less the kept ones and the second part's. */
#define REJECTED_OUT(at) (kept_everywhere + ((at) - out) - (second_out - firsts))
#if WG == 1
    /* The CPU shape: one work-item per group runs its chunk as a loop. */
    if (partition)
        out = partition_run(src, flags, value SECOND_ARGS, dst, begin, end, out, &second_out, REJECTED_OUT(begin));
    else
        out = compact_run(src, flags, value, dst, begin, end, out);
#else
    for (ulong base = begin; base < end; base += TILE) {
        T x[ITEMS];
        uchar part[ITEMS];
        tile_counts total;
        const tile_counts at =
            wg_exclusive_counts(judge_items(src, flags, value SECOND_ARGS, base, end, tile, x, part), sums, &total);
        write_kept(tile, x, part, at, dst, out, total, second_out, partition ? REJECTED_OUT(base) : ~0ul,
                   min((ulong)TILE, end - base));
        out += FIRSTS(total);
        second_out += SECONDS(total);
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile overwrites local memory */
    }
#endif
#undef REJECTED_OUT
    if (write_count && lid == 0 && group == groups - 1) {
        count_out[count_offset] = out;
#ifdef SECOND_KIND
        count_out[count_offset + 1] = second_out - firsts;
#endif
    }
    (void)value;
}

#ifndef SECOND_KIND /* clprim_find_if takes one predicate */
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
         * on the CPU shape its minimum vectorizes in lanes. */
        uint mine = FIND_SPAN;
        if (!stop) {
#if WG == 1
#define FOUND_AT(j) (KEEP(src[base + (j)], base + (j)) ? (j) : (uint)FIND_SPAN)
            const uint count = (uint)min((ulong)FIND_SPAN, end - base);
            uint j = 0;
            FOLD_IN_EIGHT_LANES(uint, FIND_SPAN, min, FOUND_AT, mine, j, count);
            for (; j < count; j++)
                mine = min(mine, FOUND_AT(j));
#undef FOUND_AT
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

#endif

#if defined(STATUS_STORE64) && !defined(SECOND_KIND) /* a three-way partition runs multi-pass */
/* The one-sweep form keeps a bit per element, not the element: the tile's
 * output order (order[place] = an element's index in the tile) is built
 * before the look-back, which it does not need, in the staged tile's local
 * memory, and the kept elements are read again from src to be written (2^26
 * int32 on an H200: as fast as keeping the tile; flagged compaction, which
 * then stages nothing, 6% faster). Holding the elements in registers
 * (judge_items) took this kernel to 96 registers on the H100 and 11% more
 * time at 2^26 int32. Partitions keep them: placing their parts by judging
 * each element again took scatter_chunks from 124 to 163 registers and a
 * partition 1.6 times as long. */
#if ITEMS <= 32
typedef uint item_bits;
#else
typedef ulong item_bits; /* the host keeps ITEMS <= 64 (clprim_compact_shape) */
#endif
#if TILE <= 65536
typedef ushort tile_index;
#else
typedef uint tile_index;
#endif
/* The one-sweep tile's local array: the staged tile, then its output order. */
#define KEPT_STAGE_BYTES                                                                             \
    (PADDED_TILE * sizeof(T) > TILE * sizeof(tile_index) ? PADDED_TILE * sizeof(T) : TILE * sizeof(tile_index))
/* Kept elements a work-item reads before it writes them: a load then its
 * store, one at a time, made 2^26 int32 8% slower on an H200, flagged 33%. */
#define GATHER 8

#if KEEP_KIND == PREDICATE_FLAGGED && ITEMS % 16 == 0
/* A work-item's ITEMS flags from flags[i] (16-byte aligned) as bits, read 16
 * at a time: a byte load each, at a stride of ITEMS bytes between work-items,
 * made flagged compaction 16% slower than compaction by value (2^26 int32 on
 * the H100). */
item_bits flag_bits(__global const uchar *flags, const ulong i)
{
    item_bits bits = 0;
    for (uint c = 0; c < ITEMS / 16; c++) {
        union {
            uint4 words;
            uchar byte[16]; /* in memory order */
        } chunk;
        chunk.words = *(__global const uint4 *)(flags + i + 16 * c);
        for (uint b = 0; b < 16; b++)
            bits |= (item_bits)(chunk.byte[b] != 0) << (16 * c + b);
    }
    return bits;
}
#define FLAGS_IN_WORDS 1
#else
#define FLAGS_IN_WORDS 0
#endif

/* Bit k of *kept is set when this work-item's element k (of its ITEMS
 * consecutive ones) of src[base, end) is kept; a predicate on the elements
 * judges them from the tile, staged in local memory with a coalesced load
 * (flags alone read no element). Returns how many are kept. */
uint judge_kept(__global const T *src, __global const uchar *flags, const T value, const ulong base, const ulong end,
                __local T *tile, item_bits *kept)
{
    if (KEEP_KIND != PREDICATE_FLAGGED) {
        load_tile(src, base, end, tile, (T)0);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    item_bits bits = 0;
    uint count = 0;
#if FLAGS_IN_WORDS
    if (base + TILE <= end && ((ulong)flags & 15) == 0) {
        bits = flag_bits(flags, base + get_local_id(0) * ITEMS);
        *kept = bits;
        return popcount(bits);
    }
#endif
#define JUDGE_KEPT(k, j, in)                                           \
    {                                                                  \
        const uint keep = (in) && KEEP(tile[PAD(j)], base + (j));      \
        bits |= (item_bits)keep << (k);                                \
        count += keep;                                                 \
    }
    FOR_EACH_ITEM(base, end, JUDGE_KEPT);
#undef JUDGE_KEPT
    *kept = bits;
    (void)value;
    return count;
}

/* This work-item's kept elements into the tile's output order, from place at
 * (its count scan's). */
void order_kept(__local tile_index *order, const item_bits kept, uint at)
{
    const uint lid = get_local_id(0);
    for (uint k = 0; k < ITEMS; k++)
        if ((kept >> k) & 1) {
            order[at] = (tile_index)(lid * ITEMS + k);
            at++;
        }
}

/* Kept elements first + g * WG + lid of the tile's output order (g < GATHER),
 * loaded together before any is stored. */
void gather_kept(__global const T *src, const ulong base, __local const tile_index *order, const uint first,
                 const uint total, T *x)
{
    for (uint g = 0; g < GATHER; g++) {
        const uint j = first + g * WG + get_local_id(0);
        if (j < total)
            x[g] = src[base + order[j]];
    }
}

/* Tile u's kept elements in a loop: the look-back's fallback. */
ulong kept_in_tile(__global const T *src, __global const uchar *flags, const T value, const ulong n, const uint u)
{
    const ulong base = (ulong)u * TILE;
    ulong none;
    return count_run(src, flags, value, base, min(n, base + TILE), &none);
}

/* 16 records a step: on the H100 at 2^28 int32, 32 took 6% longer. */
#define KEPT_TILE_TOTAL(u) kept_in_tile(src, flags, value, n, u)
DEFINE_LOOKBACK(kept_lookback, ulong, ADD, 0ul, 16, 1, KEPT_TILE_TOTAL, __global const T *src,
                __global const uchar *flags, const T value, const ulong n)

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
    const uint lid = get_local_id(0);
    ulong base, end;
    const uint t = lookback_tile(lookback, n, &ticket, &base, &end);
    src += src_offset;
    dst += dst_offset;
    flags += flags_offset;

#if WG == 1
    const ulong total = kept_in_tile(src, flags, value, n, t);
    const ulong out = kept_lookback_prefix(lookback, t, total, stamp, &walk, src, flags, value, n);
    compact_run(src, flags, value, dst, base, end, out);
#else
    /* One local array holds the staged tile, then the tile's output order:
     * the count scan's barrier follows every read of the tile. The kept
     * elements are read again from src (in the cache) to be written. */
    __local ulong stage[(KEPT_STAGE_BYTES + 7) / 8];
    __local uint sums[SCAN_SLOTS];
    __local tile_index *order = (__local tile_index *)stage;
    item_bits kept;
    uint total;
    const uint at =
        wg_exclusive_count(judge_kept(src, flags, value, base, end, (__local T *)stage, &kept), sums, &total);
    order_kept(order, kept, at);
    barrier(CLK_LOCAL_MEM_FENCE); /* the order is complete */
    /* The first batch is read while the look-back waits, since its places
     * in src need only the tile's own order: 4-6% off 2^26 and 2^28 int32
     * on an H200, double 6%. */
    T x[GATHER];
    gather_kept(src, base, order, 0, total, x);
    const ulong out = kept_lookback_prefix(lookback, t, total, stamp, &walk, src, flags, value, n);
    for (uint first = 0;;) {
        for (uint g = 0; g < GATHER; g++) {
            const uint j = first + g * WG + lid;
            if (j < total)
                dst[out + j] = x[g];
        }
        first += GATHER * WG;
        if (first >= total)
            break;
        gather_kept(src, base, order, first, total, x);
    }
#endif
    if (write_count && lid == 0 && t == get_num_groups(0) - 1)
        count_out[count_offset] = out + total;
}
#endif

#if defined(STATUS_STORE64) && WG > 1
/* Tile u's parts, counted in a loop: the census's fallback. */
tile_counts parts_in_tile(__global const T *src, __global const uchar *flags, const T value SECOND_PARAMS,
                          const ulong n, const uint u)
{
    const ulong base = (ulong)u * TILE;
    ulong seconds;
    const ulong firsts = count_run(src, flags, value SECOND_ARGS, base, min(n, base + TILE), &seconds);
    return COUNTS(firsts, seconds);
}

#define PARTS_TILE_TOTAL(u) parts_in_tile(src, flags, value SECOND_ARGS, n, u)
DEFINE_CENSUS(parts, tile_counts, PARTS_TILE_TOTAL, __global const T *src, __global const uchar *flags,
              const T value SECOND_PARAMS, const ulong n)

/* A partition in one launch over few tiles (the host's census bound, fewer
 * than 2^32 elements): tile t (in start order) judges its elements and counts
 * its parts, learns every tile's counts from the census
 * (cl/block/lookback.cl) and places its parts as scatter_chunks' tiles do:
 * its first part after the first parts of the tiles before it, its second
 * part after every first part and the earlier second parts, its rejected
 * elements after both parts of every tile and the earlier rejected ones. Tile
 * 0 writes the counts to count_out[count_offset] (and the second part's after
 * it) when write_count is set. src and dst must not overlap, as for
 * scatter_chunks. Work-groups of one work-item (the CPU shape) run the
 * multi-pass form: a device that runs a few such groups at a time would count
 * most tiles twice. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void partition_tiles(__global const T *src, ulong src_offset, __global const uchar *flags, ulong flags_offset,
                     T value, __global T *dst, ulong dst_offset, ulong n, __global ulong *lookback, uint stamp,
                     __global ulong *count_out, ulong count_offset, int write_count SECOND_KERNEL_PARAMS)
{
    __local uint ticket;
    __local tile_counts census[WG];
    __local T tile[PADDED_TILE];
    __local ulong slots[WG]; /* the count scan's, as in scatter_chunks */
    ulong base, end;
    const uint t = lookback_tile(lookback, n, &ticket, &base, &end);
    src += src_offset;
    dst += dst_offset;
    flags += flags_offset;
#ifdef SECOND_KIND
    second_flags += second_flags_offset;
#endif
    __local tile_counts *sums = (__local tile_counts *)slots;
    tile_counts total, all;
    T x[ITEMS];
    uchar part[ITEMS];
    const tile_counts at =
        wg_exclusive_counts(judge_items(src, flags, value SECOND_ARGS, base, end, tile, x, part), sums, &total);
    const tile_counts before = parts_census(lookback, t, total, stamp, &all, census, src, flags, value SECOND_ARGS, n);
    write_kept(tile, x, part, at, dst, FIRSTS(before), total, FIRSTS(all) + SECONDS(before),
               FIRSTS(all) + SECONDS(all) + (base - FIRSTS(before) - SECONDS(before)), end - base);
    if (write_count && get_local_id(0) == 0 && t == 0) {
        count_out[count_offset] = FIRSTS(all);
#ifdef SECOND_KIND
        count_out[count_offset + 1] = SECONDS(all);
#endif
    }
    (void)value;
}
#endif
