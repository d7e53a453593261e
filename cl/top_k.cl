/* Top-k by radix select (src/algorithms/top_k.c plans it): the k keys that
 * come first in the radix sort's order (cl/block/key.cl's ordered form;
 * `descending` for the largest), found one 8-bit digit at a time from the
 * top, without sorting the n keys. Every decision stays on the device, in
 * a record per level (LEVEL_* words below). Per level, over that level's
 * elements (the input at level 0, else the candidates the level before kept):
 *
 *   top_k_count    each work-group's digit counts of its chunk;
 *   top_k_select   one work-group: the digit b holding the element of rank
 *                  `need` (what is still to be taken), the next level's
 *                  record, and each work-group's places for the scatter;
 *   top_k_scatter  elements with a digit below b are in the answer: to the
 *                  output after those taken so far; those with digit b are
 *                  the next level's candidates; the rest are dropped. On the
 *                  last level the candidates all equal the k-th key, and the
 *                  first `need` of them go to the output.
 *
 * A level's elements are in one of three places (its record's source): the
 * input, or one of two candidate buffers that the scatters alternate
 * between. When every element of a level has digit b, the scatter would copy
 * them unchanged: it writes nothing and the next level reads the same place,
 * so keys whose top bits are all equal cost one count a level, as the radix
 * sort's skipped passes do.
 *
 * Scatters keep the input order, so equal keys reach the output in index
 * order and the lowest indices win ties; the host then sorts the k outputs
 * in place with the stable radix sort. The input is read twice (count and
 * scatter of level 0); later levels read only the candidates.
 *
 * Built with -DWG -DITEMS, -DKEY=<NAME> (a 32- or 64-bit type) and
 * -DVALUE_BYTES 0, 4 or 8 (values move with their keys; values_are_indices:
 * an element's value is its index). */
#include "block/key.cl"
#include "block/reduce_scan.cl"
#include "block/tile.cl"

#if VALUE_BYTES == 8
typedef ulong value_t;
#else
typedef uint value_t; /* VALUE_BYTES 0: the value arguments are there, unused */
#endif

/* A level's record: how many elements it reads, how many of them still to
 * take, where they go in the output, and the ordered key's bits above the
 * level's digit that every one of its elements has. */
#define LEVEL_COUNT 0
#define LEVEL_NEED 1
#define LEVEL_TAKEN 2
#define LEVEL_PREFIX 3
#define LEVEL_SOURCE 4 /* SOURCE_INPUT, or candidate buffer 1 or 2 */
#define LEVEL_WORDS 5
#define SOURCE_INPUT 0

/* The three places a level's elements can be in, each a buffer and an
 * offset in elements: the input, then the two candidate buffers. */
#define PLACES_PARAMS(V, name)                                                                                      \
    __global V *name##_in, ulong name##_in_offset, __global V *name##_1, ulong name##_1_offset, __global V *name##_2, \
        ulong name##_2_offset
#define PLACE_OF(source, name)                                                                                      \
    ((source) == SOURCE_INPUT ? name##_in + name##_in_offset                                                      \
     : (source) == 1          ? name##_1 + name##_1_offset                                                        \
                              : name##_2 + name##_2_offset)

DEFINE_TILE_IO(load_keys, store_keys, key_t)
DEFINE_WG_EXCLUSIVE_SCAN(wg_exclusive_ulong, ulong, ADD, 0ul)

/* The chunk each work-group of the grid takes of a level's `count`
 * elements: whole tiles, the same in the count and the scatter. */
inline ulong chunk_of(ulong count)
{
    const ulong per_group = (count + get_num_groups(0) - 1) / get_num_groups(0);
    return (per_group + TILE - 1) / TILE * TILE;
}

/* A level's digit: `mask` of the ordered key's bits from `shift` (the lowest
 * digit of a bit range may be narrower than RADIX_BITS). */
inline uint digit_at(key_t key, uint descending, uint shift, uint mask)
{
    return (uint)(ordered(key, descending) >> shift) & mask;
}

/* Level 0's record: n elements, k to take. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void top_k_start(__global ulong *levels, ulong levels_offset, ulong n, ulong k)
{
    levels += levels_offset;
    if (get_global_id(0) == 0) {
        levels[LEVEL_COUNT] = n;
        levels[LEVEL_NEED] = k;
        levels[LEVEL_TAKEN] = 0;
        levels[LEVEL_PREFIX] = 0;
        levels[LEVEL_SOURCE] = SOURCE_INPUT;
    }
}

/* An element's value: its index from the input with values_are_indices. */
#define VALUE_OF(i) (values_are_indices ? (value_t)(i) : values[i])

/* The digit of the element of rank `need`: the smallest d whose counts
 * hist[0 .. d] reach it, or mask when they never do; *below, the counts
 * before d. Over the level's totals (the select) and over one work-group's
 * counts (the CPU shape's bound). */
#define DEFINE_DIGIT_OF_RANK(NAME, C)                                                   \
    uint NAME(__local const C *hist, const ulong need, const uint mask, ulong *below)   \
    {                                                                                   \
        ulong sum = 0;                                                                  \
        uint d = 0;                                                                     \
        while (d < mask && sum + hist[d] < need)                                        \
            sum += hist[d++];                                                           \
        *below = sum;                                                                   \
        return d;                                                                       \
    }
DEFINE_DIGIT_OF_RANK(digit_of_rank, uint)
DEFINE_DIGIT_OF_RANK(digit_of_rank_total, ulong)

/* counts[g * RADIX + d]: the elements of work-group g's chunk whose digit is
 * d.
 * The CPU shape also copies, from a level that reads the input, every
 * element of its chunk that can be in the answer to its chunk of place 2
 * (keys and values, in input order), and their number to copied[g]; that
 * level's scatter then reads those instead of the input, which it would
 * otherwise read a second time. An element can be in the answer only if its
 * digit is at most `bound`, the digit of rank `need` among the chunk's
 * elements so far (at least `need` elements of the chunk come before any
 * element above it); the bound only falls, and is taken again after each
 * TILE elements. With k = 1000 of 2^24 random keys in chunks of 2^19, about
 * 1 element in 60 is copied. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void top_k_count(PLACES_PARAMS(key_t, keys), PLACES_PARAMS(value_t, values), uint values_are_indices,
                 uint descending, uint shift, uint mask, __global const ulong *levels, ulong level_offset,
                 __global uint *counts, ulong counts_offset, __global ulong *copied, ulong copied_offset)
{
    __local uint hist[RADIX];
    const uint lid = get_local_id(0);
    const ulong source = levels[level_offset + LEVEL_SOURCE];
    const ulong count = levels[level_offset + LEVEL_COUNT], chunk = chunk_of(count);
    const ulong begin = get_group_id(0) * chunk, end = min(count, begin + chunk);
    __global const key_t *keys = PLACE_OF(source, keys);
    for (uint d = lid; d < RADIX; d += WG)
        hist[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#if WG == 1
    if (source == SOURCE_INPUT) {
        const ulong need = levels[level_offset + LEVEL_NEED];
        __global const value_t *values = PLACE_OF(SOURCE_INPUT, values);
        __global key_t *copy_keys = PLACE_OF(2, keys) + begin;
        __global value_t *copy_values = PLACE_OF(2, values) + begin;
        ulong taken = 0;
        uint bound = mask;
        for (ulong base = begin; base < end; base += TILE) {
            /* Every key is stored at copy_keys[taken], which advances past one
             * that can be in the answer only: no branch on the keys, and
             * nothing lands past the chunk. Values are read only for those. */
            for (ulong i = base; i < min(end, base + TILE); i++) {
                const key_t key = keys[i];
                const uint d = digit_at(key, descending, shift, mask);
                hist[d]++;
                copy_keys[taken] = key;
                if (VALUE_BYTES && d <= bound)
                    copy_values[taken] = VALUE_OF(i);
                taken += d <= bound;
            }
            ulong before;
            bound = digit_of_rank(hist, need, mask, &before);
        }
        copied[copied_offset + get_group_id(0)] = taken;
    } else {
        for (ulong i = begin; i < end; i++)
            hist[digit_at(keys[i], descending, shift, mask)]++;
    }
#else
    for (ulong i = begin + lid; i < end; i += WG)
        atomic_inc(&hist[digit_at(keys[i], descending, shift, mask)]);
    (void)values_are_indices;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    counts += counts_offset + get_group_id(0) * RADIX;
    for (uint d = lid; d < RADIX; d += WG)
        counts[d] = hist[d];
}

/* One work-group over the `groups` counts of a level: b, the digit of the
 * element of rank `need`; the next level's record (its source: this level's
 * when every element has digit b, else the candidate buffer this level does
 * not read); and for each work-group g, places[2g] and places[2g + 1], the
 * elements below b and at b in the chunks before g. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void top_k_select(__global const uint *counts, ulong counts_offset, ulong groups, uint shift, uint mask,
                  __global ulong *levels,
                  ulong level_offset, __global ulong *places, ulong places_offset)
{
    __local ulong totals[RADIX];
    __local ulong scan[SCAN_SLOTS];
    __local uint chosen;
    const uint lid = get_local_id(0);
    counts += counts_offset;
    places += places_offset;
    __global ulong *level = levels + level_offset, *next = level + LEVEL_WORDS;
    for (uint d = lid; d < RADIX; d += WG) {
        ulong total = 0;
        for (ulong g = 0; g < groups; g++)
            total += counts[g * RADIX + d];
        totals[d] = total;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong need = level[LEVEL_NEED];
    if (lid == 0) {
        ulong below;
        const uint d = digit_of_rank_total(totals, need, mask, &below); /* need <= the level's count */
        chosen = d;
        next[LEVEL_COUNT] = totals[d];
        next[LEVEL_NEED] = need - below;
        next[LEVEL_TAKEN] = level[LEVEL_TAKEN] + below;
        next[LEVEL_PREFIX] = level[LEVEL_PREFIX] | (ulong)d << shift;
        const ulong source = level[LEVEL_SOURCE];
        next[LEVEL_SOURCE] = totals[d] == level[LEVEL_COUNT] ? source : source == 1 ? 2 : 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint b = chosen;
    /* Rounds of WG work-groups, each scanned on top of the rounds before. */
    ulong below_before = 0, at_before = 0;
    for (ulong first = 0; first < groups; first += WG) {
        const ulong g = first + lid;
        ulong below = 0, at = 0;
        if (g < groups) {
            for (uint d = 0; d < b; d++)
                below += counts[g * RADIX + d];
            at = counts[g * RADIX + b];
        }
        ulong below_round, at_round;
        const ulong below_place = below_before + wg_exclusive_ulong(below, scan, &below_round);
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong at_place = at_before + wg_exclusive_ulong(at, scan, &at_round);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (g < groups) {
            places[2 * g] = below_place;
            places[2 * g + 1] = at_place;
        }
        below_before += below_round;
        at_before += at_round;
    }
}

/* An element's destination: below b it is in the answer, at b a candidate
 * (on the last level, a tie taken while need lasts), above b dropped. */
#define PART_BELOW 1u
#define PART_AT 2u

/* Writes one element kept by the scatter: below b to out[below_at], at b to
 * next[at_at], or on the last level to out[ties_at + at_at] while at_at <
 * need. */
#define WRITE_KEPT(key, value, part, below_at, at_at)                               \
    do {                                                                            \
        if ((part) == PART_BELOW) {                                                 \
            out_keys[below_at] = (key);                                             \
            if (VALUE_BYTES)                                                        \
                out_values[below_at] = (value);                                     \
        } else if ((part) == PART_AT && !last) {                                    \
            next_keys[at_at] = (key);                                               \
            if (VALUE_BYTES)                                                        \
                next_values[at_at] = (value);                                       \
        } else if ((part) == PART_AT && (at_at) < need) {                           \
            out_keys[ties_at + (at_at)] = (key);                                    \
            if (VALUE_BYTES)                                                        \
                out_values[ties_at + (at_at)] = (value);                            \
        }                                                                           \
    } while (0)

/* Work-group g's chunk of the level's elements (keys, with values; from the
 * input with values_are_indices, an element's value is its index) to the
 * output and the next candidates, in input order, from the places the
 * select gave it; nothing when the next level reads this one's place.
 * last: the level of the lowest digit. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void top_k_scatter(PLACES_PARAMS(key_t, keys), PLACES_PARAMS(value_t, values), uint values_are_indices,
                   uint descending, uint shift, uint mask, __global const ulong *levels, ulong level_offset,
                   __global const ulong *places, ulong places_offset, __global key_t *out_keys,
                   ulong out_keys_offset, __global value_t *out_values, ulong out_values_offset, uint last,
                   __global const ulong *copied, ulong copied_offset)
{
    __global const ulong *level = levels + level_offset, *next = level + LEVEL_WORDS;
    const ulong source = level[LEVEL_SOURCE], next_source = next[LEVEL_SOURCE];
    const ulong count = !last && next_source == source ? 0 : level[LEVEL_COUNT], chunk = chunk_of(count);
    const ulong begin = get_group_id(0) * chunk;
    ulong end = min(count, begin + chunk);
    const uint b = (uint)(next[LEVEL_PREFIX] >> shift) & mask;
    const ulong need = next[LEVEL_NEED], ties_at = next[LEVEL_TAKEN];
    places += places_offset + 2 * get_group_id(0);
    ulong below_at = level[LEVEL_TAKEN] + places[0], at_at = places[1];
    __global const key_t *keys = PLACE_OF(source, keys);
    __global const value_t *values = PLACE_OF(source, values);
    __global key_t *next_keys = PLACE_OF(next_source, keys);
    __global value_t *next_values = PLACE_OF(next_source, values);
    values_are_indices = values_are_indices && source == SOURCE_INPUT;
    out_keys += out_keys_offset;
    out_values += out_values_offset;
#if WG == 1
    /* From the input, the chunk's elements that top_k_count copied (all that
     * can be in the answer, in input order): what the scatter writes is the
     * same. A scatter that writes nothing (count 0) reads nothing. */
    if (source == SOURCE_INPUT && begin < end) {
        keys = PLACE_OF(2, keys);
        values = PLACE_OF(2, values);
        values_are_indices = 0;
        end = begin + copied[copied_offset + get_group_id(0)];
    }
    /* Where k is small beside the level's count, most elements lie above b:
     * the loop drops them first, and only the rest take the stores' selects
     * (k = 1000 of 2^24 int32 keys on one core, level 0: 40 ms to 29). */
    for (ulong i = begin; i < end; i++) {
        const key_t key = keys[i];
        const uint d = digit_at(key, descending, shift, mask);
        if (d > b)
            continue;
        const uint part = d < b ? PART_BELOW : PART_AT;
        WRITE_KEPT(key, VALUE_OF(i), part, below_at, at_at);
        below_at += part == PART_BELOW;
        at_at += part == PART_AT;
    }
#else
    /* A tile at a time: a coalesced load, each work-item's ITEMS consecutive
     * keys judged, one scan of the parts' counts (below in the low 32 bits,
     * at b in the high ones) for their places. */
    __local key_t tile[PADDED_TILE];
    __local ulong scan[SCAN_SLOTS];
    const uint lid = get_local_id(0);
    for (ulong base = begin; base < end; base += TILE) {
        load_keys(keys, base, end, tile, 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        key_t key[ITEMS];
        uint part[ITEMS];
        ulong mine = 0;
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = lid * ITEMS + k;
            key[k] = tile[PAD(j)];
            const uint d = digit_at(key[k], descending, shift, mask);
            part[k] = base + j >= end ? 0u : d < b ? PART_BELOW : d == b ? PART_AT : 0u;
            mine += part[k] == PART_BELOW ? 1ul : part[k] == PART_AT ? 1ul << 32 : 0ul;
        }
        ulong total;
        const ulong at = wg_exclusive_ulong(mine, scan, &total);
        ulong below_mine = below_at + (uint)at, at_mine = at_at + (at >> 32);
        for (uint k = 0; k < ITEMS; k++) {
            const ulong i = base + lid * ITEMS + k;
            if (part[k])
                WRITE_KEPT(key[k], VALUE_OF(i), part[k], below_mine, at_mine);
            below_mine += part[k] == PART_BELOW;
            at_mine += part[k] == PART_AT;
        }
        below_at += (uint)total;
        at_at += total >> 32;
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile overwrites the tile and the scan */
    }
#endif
}
