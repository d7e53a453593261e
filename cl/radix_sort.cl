/* Stable LSD radix sort, 8 bits of the key a pass, in two forms that give the
 * same bits (src/algorithms/radix_sort.c chooses and enqueues them). Once per sort:
 *
 *   radix_histogram  (one-sweep) every pass's digit counts;
 *   radix_plan       (one-sweep) one work-group: where each digit's keys start
 *                    in each pass's output; which passes can be skipped
 *                    (every key has the same digit); and the route, which
 *                    buffer each pass reads and writes, so that the last pass
 *                    lands in the output;
 *   radix_bits, radix_plan_bits  (multi-pass, whose passes count for
 *                    themselves) the same skips and route from which bits vary;
 * then per pass either
 *   multi-pass       radix_count (a digit count per work-group), an exclusive
 *                    scan of those counts (the library's scan), radix_scatter
 *                    (each work-group ranks its chunk tile by tile and writes
 *                    each tile's keys of one digit at the group's running place);
 *   one-sweep        radix_one_sweep: tiles numbered in start order by an
 *                    atomic counter; each ranks its tile, publishes its digit
 *                    counts, looks back at earlier tiles for its places, writes.
 *                    Reads the keys once; a tile that finds an earlier one
 *                    silent counts that tile's keys itself (block/lookback.cl's
 *                    fallback, compiled out where every started work-group
 *                    runs to its end), so it waits on none that may not run;
 * and radix_copy_out, which copies to the output when the route ends
 * elsewhere (an odd number of passes in place, or every pass skipped);
 * radix_histogram zeroes the first one-sweep pass's status area, and each
 * pass zeroes the other area for the next; fill_words (block/fill.cl) zeroes
 * the counts where they are not settled, and radix_bits' words.
 *
 * A tile is ranked in one of two ways, which give the same order: in local
 * memory by two stable counting passes of 4 bits each (an LSD sort inside the
 * tile), with a 16-counter column per work-item; or, built with -DWARP_RANKS,
 * by warps (block/warp.cl), each ranking its run of the tile key by key with
 * a counter a digit, the lanes of one digit found together. Either way no
 * atomic decides an order, so the result is the same on every device.
 *
 * Built with -DWG -DITEMS, -DKEY=<NAME> (cl/types.h: a type of 32 or 64 bits),
 * and VALUE_BYTES 0, 4 or 8; no element type. */
#include "block/key.cl"
#ifdef WARP_RANKS
#include "block/warp.cl"
#endif
#include "block/lookback.cl" /* status words: how they are written and read; the ticket */
#include "block/private_counts.cl" /* the digit counts settled */
#include "block/reduce_scan.cl"

#if VALUE_BYTES == 4
typedef uint value_t;
#elif VALUE_BYTES == 8
typedef ulong value_t;
#elif VALUE_BYTES == 0
typedef uint value_t; /* keys alone: the value arguments are there, unused, so that one launch fits every build */
#else
#error "VALUE_BYTES is 0, 4 or 8"
#endif

/* Value i of the input: i itself where the values are the indices (no buffer). */
inline value_t value_at(__global const value_t *vsrc, const int indices, const ulong i)
{
    return indices ? (value_t)i : vsrc[i];
}

#ifndef STAGE_KEYS
#define STAGE_KEYS 0 /* keys the CPU shape's scatter stages per digit (src/algorithms/radix_sort.c) */
#endif
/* A store that bypasses the caches where the compiler offers one. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define STREAM_STORE(p, v) __builtin_nontemporal_store((v), (p))
#endif
#endif
#ifndef STREAM_STORE
#define STREAM_STORE(p, v) (*(p) = (v))
#endif
/* Keys a work-item loads together before counting them (histogram kernels). */
#define BATCH (ITEMS < 8 ? ITEMS : 8)
/* Where a tile of one-sweep status words says what it holds (the count below):
 * one 32-bit word a digit a tile, so 256 records fit where block/lookback.cl's
 * 64-bit records would take twice the words and loads. */
#define STATUS_AGGREGATE 0x40000000u /* the tile's own count of the digit */
#define STATUS_INCLUSIVE 0x80000000u /* the count of the digit in this and every earlier tile of the portion */
#define STATUS_COUNT 0x3fffffffu
/* The route word of a pass: which of the three buffers it reads and writes. */
#define FROM_INPUT 0u
#define TO_OUTPUT 1u
#define IN_TEMPORARY 2u
#define ROUTE_SRC(r) ((r)&3u)
#define ROUTE_DST(r) (((r) >> 2) & 3u)
#define ROUTE_RUNS 16u

inline uint digit_of(key_t u, uint shift, uint mask, uint descending)
{
    return (uint)(ordered(u, descending) >> shift) & mask;
}

inline __global key_t *pick_keys(uint which, __global key_t *in, __global key_t *out, __global key_t *tmp)
{
    return which == FROM_INPUT ? in : which == TO_OUTPUT ? out : tmp;
}

#if VALUE_BYTES
inline __global value_t *pick_values(uint which, __global value_t *in, __global value_t *out,
                                     __global value_t *tmp)
{
    return which == FROM_INPUT ? in : which == TO_OUTPUT ? out : tmp;
}
#endif

DEFINE_WG_EXCLUSIVE_SCAN(wg_scan_places, ulong, ADD, 0ul) /* radix_plan's places of digits */

/* ---- Once per sort ---- */

/* Digit counts of every pass over all the keys: hist[pass * RADIX + digit],
 * settled through the context's tallies (block/private_counts.cl), or added
 * to a hist the host zeroed (settle 0). Work-group g counts keys
 * [g * chunk, ...). The launch also zeroes status[0, status_words): the first
 * one-sweep pass's status area and the second's tile counter, which no
 * work-group of it reads. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_histogram(__global const key_t *keys, ulong keys_offset, ulong n, ulong chunk, uint passes,
                     uint begin_bit, uint end_bit, uint descending, __global uint *hist, ulong hist_offset,
                     __global ulong *tallies, int settle, __global uint *status, ulong status_offset,
                     ulong status_words)
{
    __local uint counts[MAX_PASSES * RADIX];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0);
    const ulong begin = g * chunk, end = min(n, begin + chunk);
    keys += keys_offset;
    hist += hist_offset;

    for (uint e = lid; e < passes * RADIX; e += WG)
        counts[e] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#if WG == 1
    /* The CPU shape: each pass's digit place and width found once, not per key. */
    uint shift[MAX_PASSES], mask[MAX_PASSES];
    for (uint p = 0; p < passes; p++) {
        shift[p] = begin_bit + RADIX_BITS * p;
        mask[p] = (1u << min((uint)RADIX_BITS, end_bit - shift[p])) - 1u;
    }
    for (ulong i = begin; i < end; i++) {
        const key_t o = ordered(keys[i], descending);
        for (uint p = 0; p < passes; p++)
            counts[p * RADIX + ((uint)(o >> shift[p]) & mask[p])]++;
    }
#else
    /* ITEMS keys a work-item are loaded before any is counted, so that their
     * loads are in flight together (atomics would keep them apart). */
    for (ulong base = begin; base < end; base += BATCH * WG) {
        key_t o[BATCH];
        for (uint k = 0; k < BATCH; k++) {
            const ulong i = base + k * WG + lid;
            o[k] = i < end ? ordered(keys[i], descending) : 0;
        }
        for (uint k = 0; k < BATCH; k++) {
            if (base + k * WG + lid >= end)
                continue;
            for (uint p = 0; p < passes; p++) {
                const uint shift = begin_bit + RADIX_BITS * p;
                const uint width = min((uint)RADIX_BITS, end_bit - shift);
                const uint d = (uint)(o[k] >> shift) & ((1u << width) - 1u);
                atomic_inc(&counts[p * RADIX + d]);
            }
        }
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    finish_counts(counts, passes * RADIX, hist, tallies, settle);
    status += status_offset;
    FOR_EACH_INDEX(i, status_words)
        status[i] = 0;
}

/* route[p] for each pass p, and route[passes], where the keys end: the passes
 * that run alternate between the output and the temporary so that the last
 * lands in the output (in place: the first must not write it). */
void write_routes(const uint *trivial, uint passes, uint in_place, __global uint *route)
{
    uint runs = 0;
    for (uint p = 0; p < passes; p++)
        runs += !trivial[p];
    uint src = FROM_INPUT, j = 0;
    for (uint p = 0; p < passes; p++) {
        if (trivial[p]) {
            route[p] = 0;
            continue;
        }
        const uint to_output = in_place ? j % 2 == 1 : (runs - 1 - j) % 2 == 0;
        const uint dst = to_output ? TO_OUTPUT : IN_TEMPORARY;
        route[p] = ROUTE_RUNS | src | dst << 2;
        src = dst;
        j++;
    }
    route[passes] = src;
}

#define BIT_OR(a, b) ((a) | (b))
DEFINE_WG_REDUCE(wg_or_keys, key_t, BIT_OR, (key_t)0)

/* What the multi-pass form needs to know before its passes: which bits of the
 * ordered keys differ between keys. Work-group g ORs the keys [g * chunk, ...)
 * and their complements into bits[0, 1] and bits[2, 3] (low and high words;
 * zero beforehand): a bit set in both varies. A read of the keys where the
 * histogram of every pass counts each key once a pass. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_bits(__global const key_t *keys, ulong keys_offset, ulong n, ulong chunk, uint descending,
                __global uint *bits, ulong bits_offset)
{
    __local key_t buf[WG];
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);
    keys += keys_offset;
    bits += bits_offset;
    key_t ones = 0, zeros = 0;
    for (ulong i = begin + lid; i < end; i += WG) {
        const key_t o = ordered(keys[i], descending);
        ones |= o;
        zeros |= ~o;
    }
    ones = wg_or_keys(ones, buf);
    zeros = wg_or_keys(zeros, buf);
    if (lid == 0) {
        atomic_or(&bits[0], (uint)ones);
        atomic_or(&bits[2], (uint)zeros);
#if KEY_BITS == 64
        atomic_or(&bits[1], (uint)(ones >> 32));
        atomic_or(&bits[3], (uint)(zeros >> 32));
#endif
    }
}

/* One work-group. From the counts: bases[pass * portions * RADIX + d], where
 * the first portion's first key of digit d goes in the pass's output (the
 * one-sweep kernel carries them on from portion to portion); and route[pass]
 * for each pass, route[passes] saying where the keys are after the last pass.
 * A pass in which one digit holds every key moves nothing, so it is skipped.
 * in_place: some input is its output, so the first pass that runs must not
 * write the output. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_plan(__global const uint *hist, ulong hist_offset, ulong n, uint portions, uint passes,
                uint in_place, __global ulong *bases, ulong bases_offset, __global uint *route,
                ulong route_offset)
{
    __local ulong sums[SCAN_SLOTS];
    __local uint trivial[MAX_PASSES];
    const uint lid = get_local_id(0);
    /* Each work-item takes a run of consecutive digits. */
    const uint per = (RADIX + WG - 1) / WG;
    const uint first = min((uint)RADIX, lid * per), last = min((uint)RADIX, first + per);
    hist += hist_offset;
    bases += bases_offset;
    route += route_offset;

    for (uint p = 0; p < passes; p++) {
        __global const uint *h = hist + p * RADIX;
        ulong run = 0;
        for (uint d = first; d < last; d++)
            run += h[d];
        ulong total;
        ulong at = wg_scan_places(run, sums, &total);
        uint all_in_one = 0;
        for (uint d = first; d < last; d++) {
            bases[(ulong)p * portions * RADIX + d] = at;
            at += h[d];
            all_in_one |= h[d] == n;
        }
        /* At most one digit holds every key, so one work-item writes. */
        if (lid == 0)
            trivial[p] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (all_in_one)
            trivial[p] = 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (lid == 0) {
        uint skipped[MAX_PASSES];
        for (uint p = 0; p < passes; p++)
            skipped[p] = trivial[p];
        write_routes(skipped, passes, in_place, route);
    }
}

/* The multi-pass form's plan, which needs no counts: a pass is skipped when no
 * key differs from another in its digit. bits: radix_bits's two ORs. One
 * work-group; route as radix_plan writes it. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_plan_bits(__global const uint *bits, ulong bits_offset, uint passes, uint begin_bit, uint end_bit,
                     uint in_place, __global uint *route, ulong route_offset)
{
    if (get_local_id(0) != 0)
        return;
    bits += bits_offset;
    key_t ones = bits[0], zeros = bits[2];
#if KEY_BITS == 64
    ones |= (key_t)bits[1] << 32;
    zeros |= (key_t)bits[3] << 32;
#endif
    const key_t varying = ones & zeros;
    uint trivial[MAX_PASSES];
    for (uint p = 0; p < passes; p++) {
        const uint shift = begin_bit + RADIX_BITS * p;
        trivial[p] = ((varying >> shift) & ((1u << min((uint)RADIX_BITS, end_bit - shift)) - 1u)) == 0;
    }
    write_routes(trivial, passes, in_place, route + route_offset);
}

/* ---- Ranking a tile ---- */

#if VALUE_BYTES
#define IF_VALUES(...) __VA_ARGS__
#else
#define IF_VALUES(...)
#endif

/* Runs the body for each k < ITEMS for which IN_TILE holds (valid, the
 * tile's keys, in scope). Where warps rank, a whole tile (valid == TILE)
 * runs a copy of the loop without the test, whose predicates NVIDIA's
 * compiler otherwise keeps a bit apiece in a register: on an H200 at 2^26
 * uint32 pairs and uint64 keys took 7% less time. The counting passes keep
 * the one loop: with both copies their keys took 5% more time than with it
 * (BENCHMARKS.md). */
#ifdef WARP_RANKS
#define EACH_ITEM(k, IN_TILE, ...)                                                 \
    if (valid == TILE) {                                                          \
        for (uint k = 0; k < ITEMS; k++) {                                        \
            __VA_ARGS__                                                           \
        }                                                                         \
    } else {                                                                      \
        for (uint k = 0; k < ITEMS; k++)                                          \
            if (IN_TILE) {                                                        \
                __VA_ARGS__                                                       \
            }                                                                     \
    }
#else
#define EACH_ITEM(k, IN_TILE, ...)                                                 \
    for (uint k = 0; k < ITEMS; k++)                                              \
        if (IN_TILE) {                                                            \
            __VA_ARGS__                                                           \
        }
#endif

/* Where the ranked tile waits in local memory. The counting passes move keys
 * and values together, so each has its own array. Warps rank the keys alone
 * and the values follow through the same words once the keys are out (see
 * scatter_ranked_tile), so a tile of pairs takes the larger of a key and a
 * value an item, not their sum: up to twice the keys a tile in the same
 * memory. */
#if defined(WARP_RANKS) && VALUE_BYTES
#if VALUE_BYTES > KEY_BITS / 8
typedef value_t tile_word_t;
#else
typedef key_t tile_word_t;
#endif
#define TILE_ARRAYS                                                                 \
    __local tile_word_t tile_l[PADDED_TILE];                                        \
    __local key_t *keys_l = (__local key_t *)tile_l;                                \
    __local value_t *vals_l = (__local value_t *)tile_l;
#else
#define TILE_ARRAYS                                                                 \
    __local key_t keys_l[PADDED_TILE];                                              \
    IF_VALUES(__local value_t vals_l[PADDED_TILE];)
#endif
/* The ranking's counts: [part pair][work-item], padded; or [warp][digit],
 * then with PEER_MASKS the warps' peer masks, [warp][digit] (warp_rank_key). */
#ifdef PEER_MASKS
#define HIST_WORDS (2 * WARPS * RADIX)
#else
#define HIST_WORDS PAD(8 * WG)
#endif
/* The local memory of a kernel that ranks tiles. */
#define TILE_LOCALS                                                                 \
    TILE_ARRAYS                                                                     \
    __local uint hist[HIST_WORDS];                                                  \
    __local uint sums[SCAN_SLOTS];                                                  \
    __local uint digit_first[RADIX]; /* where each digit's keys begin in the ranked tile */ \
    __local uint digit_end[RADIX];   /* and end; both 0 for a digit the tile lacks */     \
    __local ulong place[RADIX] /* where the tile's key at position 0 of digit d would go */
/* A work-item's keys between the tile's load and its ranking; with warps and
 * values, then each key's place in the ranked tile (16 bits apiece: a tile
 * holds at most 32768 keys), where its value will go. */
#define TILE_REGISTERS                                                              \
    key_t keys[ITEMS];                                                              \
    IF_VALUES(uint ranks[(ITEMS + 1) / 2];)

/* Where a work-item's k-th key of the tile lies: with warps, each ranks a run
 * of 32 x ITEMS keys, 32 at a time, in tile order; otherwise a work-group's
 * k-th keys are WG consecutive ones. Either way a load reads neighbours. */
inline uint tile_slot(uint k)
{
#ifdef WARP_RANKS
    return warp_index() * (WARP * ITEMS) + k * WARP + warp_lane();
#else
    return k * WG + get_local_id(0);
#endif
}

/* The scan of the tile's digit counts: by warps (reduce_scan.cl) for the
 * counting passes, but in steps where warps rank, whose sorts the scan by
 * warps made 5-7% slower on an H200 (BENCHMARKS.md). */
#ifdef WARP_RANKS
#define digit_count_scan wg_exclusive_count_in_steps
#else
#define digit_count_scan wg_exclusive_count
#endif

/* Counts a key's digit in counts; for the counting passes, also puts it in
 * the tile's local copy at slot j. */
inline void count_key(const key_t key, const uint j, __local uint *counts, __local key_t *keys_l, const uint shift,
                      const uint mask, const uint descending)
{
#ifndef WARP_RANKS
    keys_l[PAD(j)] = key;
#endif
#if WG == 1
    counts[digit_of(key, shift, mask, descending)]++;
#else
    atomic_inc(&counts[digit_of(key, shift, mask, descending)]);
#endif
}

/* Asks for the cache line that holds *p to be brought into L2, with no wait
 * (PTX, in the same builds as block/warp.cl's; nothing elsewhere). Where warps
 * rank the keys alone, the tile's values are read only after the look-back:
 * asked for at the tile's load, they come from memory while the keys are
 * ranked. On an H200, uint32 pairs took 3-4% less time (2^28: 9.22 ms
 * against 9.56); OpenCL's prefetch() did nothing, NVIDIA's compiler drops it. */
inline void prefetch_to_l2(__global const void *p)
{
#ifdef WARP_PTX
    asm volatile("prefetch.global.L2 [%0];" ::"l"((ulong)p));
#endif
}

/* Reads tile [base, base + valid) of src: into keys for the warps to rank
 * (the values come later, see scatter_ranked_tile; here they are only asked
 * into L2), else into keys_l, values (or their indices) along into vals_l; and
 * counts its digits: digit_first[d] is where the tile's keys of digit d will
 * begin once ranked, digit_end[d] where they end, and for the warps
 * hist[w * RADIX + d] where warp w's keys of digit d will begin. Ends with a
 * barrier. */
inline void load_and_count_digits(__global const key_t *src,
                                  IF_VALUES(__global const value_t *vsrc, int indices, ) ulong base, uint valid,
                                  uint shift, uint mask, uint descending, key_t *keys, __local key_t *keys_l,
                                  IF_VALUES(__local value_t *vals_l, ) __local uint *hist, __local uint *sums,
                                  __local uint *digit_first, __local uint *digit_end)
{
    const uint lid = get_local_id(0);
    /* The counts: a row of RADIX a warp (8 x WG words are WARPS x RADIX), or
     * the tile's one row in digit_end. */
#ifdef WARP_RANKS
    __local uint *counts = hist, *my_counts = hist + warp_index() * RADIX;
    const uint rows = WARPS;
#else
    __local uint *counts = digit_end, *my_counts = digit_end;
    const uint rows = 1;
#endif
    for (uint e = lid; e < rows * RADIX; e += WG)
        counts[e] = 0;
#ifdef PEER_MASKS
    for (uint e = lid; e < WARPS * RADIX; e += WG)
        hist[WARPS * RADIX + e] = 0;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Every load first, so that they are in flight together; then the counts
     * (local atomics: a count is the same in any order). */
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = tile_slot(k);
        if (j < valid) {
            keys[k] = src[base + j];
#ifndef WARP_RANKS
            IF_VALUES(vals_l[PAD(j)] = value_at(vsrc, indices, base + j);)
#else
            IF_VALUES(if (!indices) prefetch_to_l2(vsrc + base + j);)
#endif
        }
    }
    EACH_ITEM(k, tile_slot(k) < valid, count_key(keys[k], tile_slot(k), my_counts, keys_l, shift, mask, descending);)
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The counts' exclusive scan, digit-major, each work-item a run of digits. */
    const uint per = (RADIX + WG - 1) / WG;
    const uint first = min((uint)RADIX, lid * per), last = min((uint)RADIX, first + per);
    uint run = 0;
    for (uint d = first; d < last; d++)
        for (uint w = 0; w < rows; w++)
            run += counts[w * RADIX + d];
    uint total;
    uint at = digit_count_scan(run, sums, &total);
    for (uint d = first; d < last; d++) {
        digit_first[d] = at;
        for (uint w = 0; w < rows; w++) {
            const uint c = counts[w * RADIX + d];
#ifdef WARP_RANKS
            counts[w * RADIX + d] = at;
#endif
            at += c;
        }
        digit_end[d] = at;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

#ifdef WARP_RANKS
/* Puts a key of the warp's (has_key: this lane has one; whole: every lane
 * has) at its place in keys_l, which it returns: see rank_tile. Its peers,
 * the lanes whose keys have its digit, are found one of two ways:
 *   PEER_MASKS  each lane sets its bit in its warp's mask of the digit in
 *               local memory (cleared again by the last peer): 8 KiB more
 *               for a work-group of 256, so where the tile's words are 4
 *               bytes; there the tiles grow longer than by ballots (on an
 *               H200 at 2^26, uint32 keys took 1.63 ms at 20 items against
 *               2.03 by ballots at 15, 1.83 by masks at 15; uint32 pairs
 *               2.55 at 18 against 2.64 by ballots at 16);
 *   otherwise   one ballot a digit bit (warp_peers), and one more in short
 *               tiles for the lanes without a key; uint64 keys took 4.77 ms
 *               so at 15 items, 5.32 by masks at the 11 that fit. */
inline uint warp_rank_key(const key_t key, const uint has_key, const uint whole, uint shift, uint mask,
                          uint descending, __local key_t *keys_l, __local uint *hist, __local uint *sums)
{
    __local uint *my_counts = hist + warp_index() * RADIX;
    const uint here = whole || has_key, lane = warp_lane();
    const uint d = here ? digit_of(key, shift, mask, descending) : 0u;
#ifdef PEER_MASKS
    __local uint *my_mask = hist + (WARPS + warp_index()) * RADIX + d;
    if (here)
        atomic_or(my_mask, 1u << lane);
    warp_sync();
    const uint peers = here ? *my_mask : 0u;
    uint at = here ? my_counts[d] : 0u;
    warp_sync(); /* every peer has read the mask and the count */
    if (here && lane == WARP - 1 - clz(peers)) {
        my_counts[d] = at + popcount(peers);
        *my_mask = 0;
    }
    warp_sync(); /* the mask is clear before the next key's bits */
#else
    uint peers = warp_peers(d, RADIX_BITS, sums);
    if (!whole)
        peers &= warp_peers(here, 1, sums); /* lanes without a key are no key's peers */
    const uint leader = WARP - 1 - clz(peers);
    uint at = 0;
    if (here && lane == leader) {
        at = my_counts[d];
        my_counts[d] = at + popcount(peers);
    }
    warp_sync();
    at = warp_broadcast(at, leader, sums);
#endif
    at += popcount(peers & lanes_through_me()) - 1; /* the peers below this lane come first */
    if (here)
        keys_l[PAD(at)] = key;
    return at;
}
#endif

/* Sorts the tile's `valid` keys stably by digit into keys_l. With warps: each
 * takes its keys in tile order, 32 at a time; the lanes that hold one digit
 * find each other, the last of them takes as many places from the warp's
 * counter of the digit, and each key takes its place among them in lane
 * order, which goes in ranks for its value. Otherwise the keys are in keys_l
 * already, values along in vals_l, and two counting passes of 4 bits sort
 * them there: every work-item takes ITEMS consecutive keys into registers,
 * counts their 4-bit parts and writes the counts in its own column of hist;
 * one scan of hist read part-major gives each key's new place (smaller parts
 * first, then earlier work-items, then earlier keys). With one work-item
 * nothing moves: scatter_ranked_tile walks the tile in order. Ends with a
 * barrier. */
inline void rank_tile(uint valid, uint shift, uint mask, uint descending, const key_t *keys,
                      IF_VALUES(uint *ranks, ) __local key_t *keys_l, IF_VALUES(__local value_t *vals_l, )
                      __local uint *hist, __local uint *sums)
{
#ifdef WARP_RANKS
    /* Whole tiles take a copy of the loop in which every lane has a key, one
     * ballot and test fewer a key: on an H200 at 2^26, uint64 keys took 2%
     * less time, uint32 keys 1% less, pairs the same. */
    if (valid == TILE) {
        for (uint k = 0; k < ITEMS; k++) {
            const uint at = warp_rank_key(keys[k], 1, 1, shift, mask, descending, keys_l, hist, sums);
            IF_VALUES(ranks[k / 2] = k % 2 ? ranks[k / 2] | at << 16 : at;)
        }
    } else {
        for (uint k = 0; k < ITEMS; k++) {
            const uint at =
                warp_rank_key(keys[k], tile_slot(k) < valid, 0, shift, mask, descending, keys_l, hist, sums);
            IF_VALUES(ranks[k / 2] = k % 2 ? ranks[k / 2] | at << 16 : at;)
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#elif WG > 1
    const uint lid = get_local_id(0);
    key_t my_keys[ITEMS];
    IF_VALUES(value_t my_vals[ITEMS];)
    const uint parts = mask > 15u ? 2 : 1;
    for (uint part = 0; part < parts; part++) {
        const uint part_shift = 4 * part;
        EACH_ITEM(k, lid * ITEMS + k < valid,
                  my_keys[k] = keys_l[PAD(lid * ITEMS + k)];
                  IF_VALUES(my_vals[k] = vals_l[PAD(lid * ITEMS + k)];))
        /* This work-item's count of each 4-bit part, in its own column of
         * hist, two counts a word so that the scan moves half as many: row q
         * holds part q in its low 16 bits and part q + 8 in its high ones (a
         * tile holds at most 32768 keys, so no half overflows). Counting in
         * local memory takes fewer instructions than 8-bit fields of 64-bit
         * registers: on an H200 the sort of 2^26 uint32 keys took 6% less time. */
        for (uint q = 0; q < 8; q++)
            hist[PAD(q * WG + lid)] = 0;
        EACH_ITEM(k, lid * ITEMS + k < valid,
                  const uint p = (digit_of(my_keys[k], shift, mask, descending) >> part_shift) & 15u;
                  hist[PAD((p & 7u) * WG + lid)] += 1u << (16 * (p >> 3));)
        barrier(CLK_LOCAL_MEM_FENCE);

        uint run = 0;
        for (uint r = 0; r < 8; r++)
            run += hist[PAD(lid * 8 + r)];
        uint total;
        uint at = wg_exclusive_count(run, sums, &total);
        for (uint r = 0; r < 8; r++) {
            const uint e = PAD(lid * 8 + r);
            const uint c = hist[e];
            hist[e] = at;
            at += c;
        }
        const uint below_eight = total & 0xffffu; /* keys whose part is below 8 */
        barrier(CLK_LOCAL_MEM_FENCE);

        /* A key's place: where its part begins for this work-item, which the
         * key then moves on by one for the work-item's next key of the part. */
        EACH_ITEM(k, lid * ITEMS + k < valid,
                  const uint p = (digit_of(my_keys[k], shift, mask, descending) >> part_shift) & 15u;
                  __local uint *column = &hist[PAD((p & 7u) * WG + lid)];
                  const uint word = *column;
                  *column = word + (1u << (16 * (p >> 3)));
                  const uint to = p < 8 ? word & 0xffffu : (word >> 16) + below_eight;
                  keys_l[PAD(to)] = my_keys[k];
                  IF_VALUES(vals_l[PAD(to)] = my_vals[k];))
        barrier(CLK_LOCAL_MEM_FENCE);
    }

#endif
}

/* Writes the ranked tile: key j of digit d goes to place[d] + j, its value
 * likewise. Where warps ranked the keys alone, the values follow through the
 * same local memory: read from vsrc (or their indices) while the keys go out,
 * each work-item keeping the digits of the keys it wrote, then put at their
 * keys' places (ranks) and written out by those digits. The caller's next
 * write to the tile's memory needs a barrier first. */
inline void scatter_ranked_tile(__global key_t *dst, IF_VALUES(__global value_t *vdst, ) uint valid, uint shift,
                                uint mask, uint descending, __local const key_t *keys_l,
                                IF_VALUES(__local value_t *vals_l, __global const value_t *vsrc, int indices,
                                          ulong base, const uint *ranks, ) __local const uint *digit_first,
                                __local const ulong *place)
{
#if WG == 1
    /* The tile as it came (see rank_tile): a counting sort's stable scatter. */
    uint next[RADIX];
    for (uint d = 0; d < RADIX; d++)
        next[d] = 0;
    for (uint j = 0; j < valid; j++) {
        const key_t key = keys_l[PAD(j)];
        const uint d = digit_of(key, shift, mask, descending);
        const ulong to = place[d] + digit_first[d] + next[d]++;
        dst[to] = key;
        IF_VALUES(vdst[to] = vals_l[PAD(j)];)
    }
#elif defined(WARP_RANKS) && VALUE_BYTES
    const uint lid = get_local_id(0);
    value_t vals[ITEMS];
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = tile_slot(k);
        if (j < valid)
            vals[k] = value_at(vsrc, indices, base + j);
    }
    uint digits[(ITEMS + 3) / 4]; /* 8 bits apiece */
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < valid) {
            const key_t key = keys_l[PAD(j)];
            const uint d = digit_of(key, shift, mask, descending);
            dst[place[d] + j] = key;
            digits[k / 4] = k % 4 ? digits[k / 4] | d << (8 * (k % 4)) : d;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        if (tile_slot(k) < valid)
            vals_l[PAD((ranks[k / 2] >> (16 * (k % 2))) & 0xffffu)] = vals[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < valid)
            vdst[place[(digits[k / 4] >> (8 * (k % 4))) & 255u] + j] = vals_l[PAD(j)];
    }
#else
    const uint lid = get_local_id(0);
    EACH_ITEM(k, k * WG + lid < valid,
              const uint j = k * WG + lid;
              const key_t key = keys_l[PAD(j)];
              const ulong to = place[digit_of(key, shift, mask, descending)] + j;
              dst[to] = key;
              IF_VALUES(vdst[to] = vals_l[PAD(j)];))
#endif
}

/* The kernels of a pass take the three places keys (and values) can be, each a
 * buffer and an offset, and the route word says which one the pass reads and
 * writes: routes[route_index], as radix_plan wrote it. values_are_indices: the
 * input values are the indices (no buffer). */
#define KEY_BUFFERS                                                                                        \
    __global key_t *keys_in, ulong keys_in_offset, __global key_t *keys_out, ulong keys_out_offset,          \
        __global key_t *keys_tmp, ulong keys_tmp_offset
#define VALUE_BUFFERS                                                                                      \
    __global value_t *values_in, ulong values_in_offset, __global value_t *values_out,                      \
        ulong values_out_offset, __global value_t *values_tmp, ulong values_tmp_offset, int values_are_indices

#define PICK_KEYS(which) \
    pick_keys((which), keys_in + keys_in_offset, keys_out + keys_out_offset, keys_tmp + keys_tmp_offset)
#define PICK_VALUES(which)                                                                       \
    pick_values((which), values_in + values_in_offset, values_out + values_out_offset,           \
                values_tmp + values_tmp_offset)

/* ---- Multi-pass ---- */

/* Work-group g counts the digits of keys [g * chunk, min(n, (g + 1) * chunk))
 * into counts[d * groups + g] (digit-major, so that one exclusive scan of the
 * counts gives every group's place for every digit). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_count(__global const uint *routes, ulong route_index, KEY_BUFFERS, ulong n, ulong chunk, uint shift,
                 uint mask, uint descending, __global ulong *counts, ulong counts_offset)
{
    const uint r = routes[route_index];
    __local uint hist[RADIX];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0), groups = get_num_groups(0);
    /* A skipped pass counts nothing but still hands its scan defined (zero)
     * counts. No early return: PoCL 3.1 miscompiles a kernel of more than 256
     * work-items that returns before its barriers, even uniformly. */
    const ulong begin = g * chunk, end = (r & ROUTE_RUNS) ? min(n, begin + chunk) : begin;
    __global const key_t *src = PICK_KEYS(ROUTE_SRC(r));

    for (uint d = lid; d < RADIX; d += WG)
        hist[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#if WG == 1
    /* The CPU shape: a plain counting loop; batching the loads only helps atomics. */
    for (ulong i = begin; i < end; i++)
        hist[digit_of(src[i], shift, mask, descending)]++;
#else
    for (ulong base = begin; base < end; base += BATCH * WG) {
        key_t keys[BATCH]; /* loaded together before any is counted */
        for (uint k = 0; k < BATCH; k++) {
            const ulong i = base + k * WG + lid;
            keys[k] = i < end ? src[i] : 0;
        }
        for (uint k = 0; k < BATCH; k++) {
            if (base + k * WG + lid < end)
                atomic_inc(&hist[digit_of(keys[k], shift, mask, descending)]);
        }
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < RADIX; d += WG)
        counts[counts_offset + d * groups + g] = hist[d];
}

/* Work-group g moves keys [g * chunk, min(n, (g + 1) * chunk)), values along;
 * places[d * groups + g] (the scanned counts) is where its first key of digit d
 * goes. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_scatter(__global const uint *routes, ulong route_index, KEY_BUFFERS, VALUE_BUFFERS, ulong n, ulong chunk,
                   uint shift, uint mask, uint descending, __global const ulong *places, ulong places_offset)
{
    const uint r = routes[route_index];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0), groups = get_num_groups(0);
    /* A skipped pass moves nothing (no early return: see radix_count). */
    const ulong begin = g * chunk, end = (r & ROUTE_RUNS) ? min(n, begin + chunk) : begin;
    __global const key_t *src = PICK_KEYS(ROUTE_SRC(r));
    __global key_t *dst = PICK_KEYS(ROUTE_DST(r));
    IF_VALUES(__global const value_t *vsrc = PICK_VALUES(ROUTE_SRC(r));
              __global value_t *vdst = PICK_VALUES(ROUTE_DST(r));
              const int indices = values_are_indices && ROUTE_SRC(r) == FROM_INPUT;)
#if WG == 1
    /* The CPU shape: one work-item walks its chunk in order, a counting sort's
     * scatter, stable as it stands; no tile, no ranking. */
    ulong next[RADIX];
    for (uint d = 0; d < RADIX; d++)
        next[d] = places[places_offset + d * groups + g];
#if STAGE_KEYS
    /* Each digit's keys gather in local memory until they complete a 64-byte
     * line of the output, which then goes out with streaming stores: 256
     * scattered streams otherwise make every line a read for ownership, and a
     * miss that stalls the stores behind it (16-core Xeon, 2^24 keys: 7.5 ms a
     * pass before, 4.9 ms after). A digit's first line may be short, to align
     * the rest; what is left at the end goes out with plain stores. */
    __local key_t stage[RADIX * STAGE_KEYS];
    IF_VALUES(__local value_t vstage[RADIX * STAGE_KEYS];)
    uint staged[RADIX], line_end[RADIX];
    for (uint d = 0; d < RADIX; d++) {
        staged[d] = 0;
        line_end[d] = STAGE_KEYS - (uint)(((ulong)(dst + next[d]) / sizeof(key_t)) % STAGE_KEYS);
    }
    for (ulong i = begin; i < end; i++) {
        const key_t key = src[i];
        const uint d = digit_of(key, shift, mask, descending);
        const uint at = d * STAGE_KEYS + staged[d];
        stage[at] = key;
        IF_VALUES(vstage[at] = value_at(vsrc, indices, i);)
        if (++staged[d] == line_end[d]) {
            for (uint j = 0; j < staged[d]; j++)
                STREAM_STORE(dst + next[d] + j, stage[d * STAGE_KEYS + j]);
            IF_VALUES(for (uint j = 0; j < staged[d]; j++)
                          STREAM_STORE(vdst + next[d] + j, vstage[d * STAGE_KEYS + j]);)
            next[d] += staged[d];
            staged[d] = 0;
            line_end[d] = STAGE_KEYS;
        }
    }
    for (uint d = 0; d < RADIX; d++) {
        for (uint j = 0; j < staged[d]; j++)
            dst[next[d] + j] = stage[d * STAGE_KEYS + j];
        IF_VALUES(for (uint j = 0; j < staged[d]; j++) vdst[next[d] + j] = vstage[d * STAGE_KEYS + j];)
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE); /* streaming stores are weakly ordered */
#else
    for (ulong i = begin; i < end; i++) {
        const key_t key = src[i];
        const ulong to = next[digit_of(key, shift, mask, descending)]++;
        dst[to] = key;
        IF_VALUES(vdst[to] = value_at(vsrc, indices, i);)
    }
#endif
#else
    TILE_LOCALS;
    __local ulong carry[RADIX]; /* where the group's next key of each digit goes */
    for (uint d = lid; d < RADIX; d += WG)
        carry[d] = places[places_offset + d * groups + g];
    for (ulong base = begin; base < end; base += TILE) {
        const uint valid = (uint)min((ulong)TILE, end - base);
        TILE_REGISTERS;
        load_and_count_digits(src, IF_VALUES(vsrc, indices, ) base, valid, shift, mask, descending, keys, keys_l,
                              IF_VALUES(vals_l, ) hist, sums, digit_first, digit_end);
        rank_tile(valid, shift, mask, descending, keys, IF_VALUES(ranks, ) keys_l, IF_VALUES(vals_l, ) hist, sums);
        for (uint d = lid; d < RADIX; d += WG)
            place[d] = carry[d] - digit_first[d];
        barrier(CLK_LOCAL_MEM_FENCE);
        scatter_ranked_tile(dst, IF_VALUES(vdst, ) valid, shift, mask, descending, keys_l,
                            IF_VALUES(vals_l, vsrc, indices, base, ranks, ) digit_first, place);
        for (uint d = lid; d < RADIX; d += WG)
            carry[d] += digit_end[d] - digit_first[d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}

/* ---- One sweep ---- */

/* The keys of digit d among the tile of keys [base, min(n, base + TILE)): the
 * look-back's fallback, by one work-item. */
uint tile_digit_count(__global const key_t *src, const ulong base, const ulong n, const uint d, const uint shift,
                      const uint mask, const uint descending)
{
    uint count = 0;
    for (ulong i = base; i < min(n, base + TILE); i++)
        count += digit_of(src[i], shift, mask, descending) == d;
    return count;
}

/* One launch per portion of the keys: tile t of the portion (numbered in the
 * order the work-groups start, by lookback_ticket on status[0]) is keys
 * [portion_begin + t * TILE, ...). Each tile publishes, per digit, its own
 * count, then looks back over earlier tiles until one has published the
 * count of all tiles up to it, and publishes its own such count. status
 * (counter first, then tiles x RADIX words) starts at zero; the words of the
 * next launch's next_tiles tiles, at next_status_offset, are zeroed here
 * (its counter is zero: the last ticket taker of its launch reset it). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_one_sweep(__global const uint *routes, ulong route_index, KEY_BUFFERS, VALUE_BUFFERS, ulong n,
                     ulong portion_begin, uint shift, uint mask, uint descending, __global ulong *bases,
                     ulong bases_offset, uint next_portion, __global uint *status, ulong status_offset,
                     ulong next_status_offset, uint next_tiles)
{
    const uint r = routes[route_index];
    /* A skipped pass goes through the same barriers over no keys, publishing and
     * writing nothing (no early return: see radix_count). */
    const uint runs = r & ROUTE_RUNS;
    TILE_LOCALS;
    __local uint tile_number;
    const uint lid = get_local_id(0);
    __global const key_t *src = PICK_KEYS(ROUTE_SRC(r));
    __global key_t *dst = PICK_KEYS(ROUTE_DST(r));
    IF_VALUES(__global const value_t *vsrc = PICK_VALUES(ROUTE_SRC(r));
              __global value_t *vdst = PICK_VALUES(ROUTE_DST(r));
              const int indices = values_are_indices && ROUTE_SRC(r) == FROM_INPUT;)
    status += status_offset;
    bases += bases_offset;

    const uint t = lookback_ticket(status, &tile_number);
    __global uint *tiles = status + 1;
    const ulong base = portion_begin + (ulong)t * TILE;
    const uint valid = runs ? (uint)min((ulong)TILE, n - base) : 0u;
    TILE_REGISTERS;
    load_and_count_digits(src, IF_VALUES(vsrc, indices, ) base, valid, shift, mask, descending, keys, keys_l,
                          IF_VALUES(vals_l, ) hist, sums, digit_first, digit_end);

    /* The tile's digit counts are known before it is ranked: publish them at
     * once, rank, and only then look back, by when the earlier tiles have
     * mostly published their inclusive counts (on the H100 at 2^28 keys this
     * order takes 3.1 ms a pass where looking back before ranking took 3.3). */
    for (uint d = lid; runs && d < RADIX; d += WG)
        STATUS_STORE(tiles + (ulong)t * RADIX + d,
                     (t == 0 ? STATUS_INCLUSIVE : STATUS_AGGREGATE) | (digit_end[d] - digit_first[d]));
    rank_tile(valid, shift, mask, descending, keys, IF_VALUES(ranks, ) keys_l, IF_VALUES(vals_l, ) hist, sums);
    for (uint d = lid; runs && d < RADIX; d += WG) {
        __global uint *mine = tiles + (ulong)t * RADIX + d;
        uint before = 0;
        if (t > 0) {
            /* Tiles u - 1, u - 2, ... are still to add. LOOKBACK of them are
             * read at once, so that their loads are in flight together; the
             * walk stops at the first that holds an inclusive count (tile 0
             * always does) and waits at one that holds nothing yet, for
             * LOOKBACK_PATIENCE reads, then counts that tile's keys of the
             * digit itself (block/lookback.cl's fallback; a pass never writes
             * the buffer it reads, so those keys are still there). */
            uint u = t, stalls = 0;
            for (;;) {
                uint seen[LOOKBACK];
                for (uint w = 0; w < LOOKBACK; w++)
                    seen[w] = w < u ? STATUS_LOAD(&tiles[(ulong)(u - 1 - w) * RADIX + d]) : 0;
                uint w = 0, found = 0;
                for (; w < LOOKBACK && w < u && !found; w++) {
                    if (!(seen[w] & (STATUS_AGGREGATE | STATUS_INCLUSIVE)))
                        break;
                    before += seen[w] & STATUS_COUNT;
                    found = seen[w] & STATUS_INCLUSIVE;
                }
                if (found)
                    break;
                u -= w;
                stalls = w ? 0 : stalls + 1;
                if (LOOKBACK_FALLBACK && stalls > LOOKBACK_PATIENCE) {
                    u--;
                    before += tile_digit_count(src, portion_begin + (ulong)u * TILE, n, d, shift, mask, descending);
                    stalls = 0;
                    if (u == 0)
                        break;
                }
            }
            STATUS_STORE(mine, STATUS_INCLUSIVE | (before + digit_end[d] - digit_first[d]));
        }
        place[d] = bases[d] + before - digit_first[d];
        /* The portion's last tile knows where the next portion's keys of
         * each digit begin (this pass's input is not the histogram's order,
         * so nothing earlier could). */
        if (next_portion && t + 1 == get_num_groups(0))
            bases[RADIX + d] = bases[d] + before + digit_end[d] - digit_first[d];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    scatter_ranked_tile(dst, IF_VALUES(vdst, ) valid, shift, mask, descending, keys_l,
                        IF_VALUES(vals_l, vsrc, indices, base, ranks, ) digit_first, place);
    /* Off the look-back's path, after the tile's own work: the next launch's
     * status, which the launch before this one used. */
    __global uint *next_words = status - status_offset + next_status_offset + 1;
    for (ulong u = get_group_id(0); u < next_tiles; u += get_num_groups(0))
        for (uint d = lid; d < RADIX; d += WG)
            next_words[u * RADIX + d] = 0;
}

/* ---- The end ---- */

/* When the route ends outside the output (an odd number of passes in place, or
 * none ran), copies what is not already there: keys [g * chunk, ...). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_copy_out(__global const uint *routes, ulong route_index, KEY_BUFFERS, VALUE_BUFFERS, ulong n, ulong chunk,
                    int keys_in_place, int values_in_place)
{
    const uint at = routes[route_index];
    const ulong g = get_group_id(0);
    const ulong begin = g * chunk + get_local_id(0), end = min(n, g * chunk + chunk);
    if (at != TO_OUTPUT && !(at == FROM_INPUT && keys_in_place)) {
        __global const key_t *src = PICK_KEYS(at);
        __global key_t *dst = keys_out + keys_out_offset;
        for (ulong i = begin; i < end; i += WG)
            dst[i] = src[i];
    }
#if VALUE_BYTES
    if (at != TO_OUTPUT && !(at == FROM_INPUT && values_in_place)) {
        __global const value_t *src = PICK_VALUES(at);
        __global value_t *dst = values_out + values_out_offset;
        const int indices = values_are_indices && at == FROM_INPUT;
        for (ulong i = begin; i < end; i += WG)
            dst[i] = value_at(src, indices, i);
    }
#endif
}
