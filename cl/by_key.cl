/* By key: the calls over segments, runs of equal consecutive keys
 * (src/algorithms/by_key.c), one agent in the scan's two forms.
 *
 * Each element is a part: its value, whether it starts a run (its head), and
 * whether the call writes an output there (mode, cl/constants.h: a run's last
 * element for reduce by key and run lengths, its first for unique, the last
 * of a run of two or more for non-trivial runs). Parts combine by
 *   (a, ha, ca) . (b, hb, cb) = (hb ? b : a COMBINE b, ha | hb, ca + cb),
 * which is associative whenever COMBINE is, so they are scanned as the scan's
 * elements are: through element i, the value is the combination of i's run
 * so far and the count is the outputs up to i, which gives the output's place.
 *   multi-pass: runs_chunks folds each work-group's chunk to a part,
 *     runs_seeds (one work-item) scans those into each chunk's seed, then
 *     runs_scatter_chunks writes each chunk's outputs from its seed, or
 *     scan_by_key_chunks its scan;
 *   one-sweep: runs_tiles and scan_by_key_tiles, one launch in which each
 *     tile learns the part of the tiles before it by decoupled look-back
 *     (cl/block/lookback.cl).
 * Every input element is read once per pass: once in all in the one-sweep
 * form. -DKEY=<NAME> (cl/types.h): the keys' type, a 32- or 64-bit integer. */
#include "block/lookback.cl"
#include "block/segment.cl"
#include "block/tile.cl"

#ifndef COMBINE
#error "by_key.cl needs an operator: -DOP=SUM, MIN, MAX or USER (cl/types.h)"
#endif
#ifndef KEY
#error "by_key.cl needs -DKEY=<NAME> (cl/types.h)"
#endif
#define KEY_T CLPRIM_FIELD(KEY, SCALAR)

DEFINE_TILE_IO(load_key_tile, store_key_tile, KEY_T)

/* ---- Parts: a segment pair (block/segment.cl) and a count ---- */

/* A run of elements: its pair and its outputs, packed as count << 1 | head
 * in the pair's head word (8 bytes for 4-byte values), since the work-group
 * scan moves it through local memory and the one-sweep form's look-back
 * publishes it. A seg's layout, so no byte of it is undefined. */
typedef struct {
    seg packed;
} part;

part make_part(const seg s, const uint count)
{
    part p;
    p.packed = make_seg(s.value, count << 1 | s.head);
    return p;
}

seg part_seg(const part p)
{
    return make_seg(p.packed.value, p.packed.head & 1u);
}

uint part_count(const part p)
{
    return p.packed.head >> 1;
}

part part_combine(const part a, const part b)
{
    return make_part(seg_combine(part_seg(a), part_seg(b)), part_count(a) + part_count(b));
}

/* Everything before a chunk or an element of a walk: its pair and its
 * outputs, which may pass 32 bits. */
typedef struct {
    ulong count;
    seg s;
} prefix;

prefix make_prefix(const seg s, const ulong count)
{
    prefix p;
    p.s = s;
    p.count = count;
    return p;
}

prefix prefix_combine(const prefix a, const prefix b)
{
    return make_prefix(seg_combine(a.s, b.s), a.count + b.count);
}

/* A part as a prefix, and a prefix of fewer than 2^31 outputs as a part:
 * the one-sweep form's look-back record, half a prefix's size (the host runs
 * it only below 2^31 elements). */
prefix part_prefix(const part p)
{
    return make_prefix(part_seg(p), part_count(p));
}

part prefix_part(const prefix p)
{
    return make_part(p.s, (uint)p.count);
}

#define NO_SEG make_seg(IDENTITY, 0u)
#define PART_COMBINE(a, b) part_combine((a), (b))
#define PREFIX_COMBINE(a, b) prefix_combine((a), (b))
DEFINE_WG_EXCLUSIVE_SCAN_IN_PLACE(wg_part_scan, part, PART_COMBINE, make_part(NO_SEG, 0u))

/* ---- Scan by key's tile: values and heads staged in local memory ---- */

/* Element i starts a segment (keys already offset). */
uint is_head(__global const KEY_T *keys, const ulong i)
{
    return i == 0 || keys[i] != keys[i - 1];
}

/* Stages tile [base, base + TILE) of values and heads in local memory, the
 * missing end as identity pairs, and returns the pair of work-item lid's ITEMS
 * consecutive elements. A whole tile after the first compares each key with
 * the one before it with no condition around the loads, so that they are all
 * in flight together: behind is_head's conditions NVIDIA's compiler waited
 * for each in turn, and scan by key took 1.5 times as long. */
seg fold_tile(__global const KEY_T *keys, __global const T *values, const ulong base, const ulong end,
              __local T *tile, __local uchar *heads)
{
    const uint lid = get_local_id(0);
    load_tile(values, base, end, tile, IDENTITY);
    if (base > 0 && base + TILE <= end) {
        for (uint k = 0; k < ITEMS; k++) {
            const ulong i = base + k * WG + lid;
            heads[PAD(k * WG + lid)] = keys[i] != keys[i - 1];
        }
    } else {
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * WG + lid;
            heads[PAD(j)] = base + j < end ? is_head(keys, base + j) : 0u;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return fold_pairs(tile, heads);
}

/* The CPU shape: src[begin, end) scanned by key after carry, the combination
 * of the values before begin in its segment. */
void scan_by_key_run(__global const KEY_T *keys, __global const T *values, __global T *dst, const ulong begin,
                     const ulong end, T carry, const int exclusive)
{
    for (ulong i = begin; i < end;) {
        /* Four elements that continue the run: one step of SCAN_FOUR. */
        if (i > 0 && i + 4 <= end) {
            const KEY_T key = keys[i - 1];
            if ((keys[i] == key) & (keys[i + 1] == key) & (keys[i + 2] == key) & (keys[i + 3] == key)) {
#define PUT_AS_IS(k, v) (dst[i + (k)] = (v))
                SCAN_FOUR(carry, values, i, exclusive, PUT_AS_IS);
#undef PUT_AS_IS
                i += 4;
                continue;
            }
        }
        const uint head = is_head(keys, i);
        const T before = head ? IDENTITY : carry;
        const T inclusive = COMBINE(before, values[i]);
        dst[i] = exclusive ? (head ? EMPTY_RESULT : carry) : inclusive;
        carry = inclusive;
        i++;
    }
}

/* ---- Runs: the parts of a stretch of elements, and the outputs ---- */

/* Whether the call writes an output at an element that starts its run or
 * not (head) and ends it or not (tail). */
uint selects(const int mode, const uint head, const uint tail)
{
    return mode == RUNS_FIRST ? head : mode == RUNS_REDUCE ? tail : tail && !head;
}

/* An output at element i: to keys_out, its key or, for non-trivial runs, the
 * run's first index (i + 1 - its length, a cl_ulong); to values_out, when
 * there is one, `value` (the run's combination, its length, or the value at
 * its first element). Lengths (the counting modes: no values, outputs at
 * ends) are summed in T, 32 bits where n allows, and written as cl_ulong.
 * Output j of the call lands at keys_out[j], values_out[j]. */
int writes_lengths(const int mode, const int with_values)
{
    return !with_values && mode != RUNS_FIRST;
}

void put_output(const int mode, const int lengths, __global KEY_T *keys_out, __global T *values_out, const ulong j,
                const ulong i, const KEY_T key, const T value)
{
    if (mode == RUNS_NONTRIVIAL)
        ((__global ulong *)keys_out)[j] = i + 1 - (ulong)value;
    else
        keys_out[j] = key;
    if (lengths)
        ((__global ulong *)values_out)[j] = (ulong)value;
    else if (values_out)
        values_out[j] = value;
}

/* The outputs from their offsets, counted in their own elements: cl_ulong
 * for first indices and lengths. */
__global KEY_T *keys_out_at(const int mode, __global KEY_T *keys_out, const ulong offset)
{
    return mode == RUNS_NONTRIVIAL ? (__global KEY_T *)((__global ulong *)keys_out + offset) : keys_out + offset;
}

__global T *values_out_at(const int mode, const int with_values, const int with_values_out, __global T *values_out,
                          const ulong offset)
{
    if (!with_values_out)
        return NULL;
    return writes_lengths(mode, with_values) ? (__global T *)((__global ulong *)values_out + offset)
                                             : values_out + offset;
}

/* ---- The CPU shape (WG == 1): runs as plain loops ----
 * Each loop takes the mode and whether there are values as constants (the
 * dispatchers below pass literals), so it compiles to a loop of its own with
 * no test of them per element. */

/* Elements the CPU walks test at once for a run boundary: where runs are
 * long, most stretches hold none, and their compares vectorize. */
#define QUIET 16

/* Whether keys[i, i + QUIET] (i + QUIET < n) are all prev: elements i to
 * i + QUIET - 1 neither start nor end a run. */
__attribute__((always_inline)) inline uint quiet_stretch(__global const KEY_T *keys, const ulong i, const KEY_T prev)
{
    uint change = 0;
    for (uint k = 0; k <= QUIET; k++)
        change |= keys[i + k] != prev;
    return !change;
}

/* Elements [begin, end) of n after carry, their outputs written; returns the
 * prefix through end. Without values every value is one (run lengths). The
 * run's value, whether it met a head and the outputs so far are plain scalars,
 * which the compiler keeps in registers; no helper takes their addresses
 * (inlining one left an intrinsic oclgrind cannot run). */
__attribute__((always_inline)) inline prefix runs_walk(const int mode, const int with_values,
                                                       __global const KEY_T *keys, __global const T *values,
                                                       const ulong begin, const ulong end, const ulong n,
                                                       const prefix carry, __global KEY_T *keys_out,
                                                       __global T *values_out)
{
    const int lengths = writes_lengths(mode, with_values);
    T acc = carry.s.value;
    uint any = carry.s.head;
    ulong count = carry.count;
    KEY_T prev = begin > 0 ? keys[begin - 1] : ~keys[0]; /* element 0 starts a run */
    for (ulong i = begin; i < end;) {
        /* A stretch inside a run only combines its values, in the same order;
         * any other is walked element by element. */
        if (i + QUIET <= end && i + QUIET < n && quiet_stretch(keys, i, prev)) {
            /* Four values among themselves first: one wait on acc per four. */
            for (uint k = 0; k < QUIET; k += 4) {
                /* Each a T again: ?: promotes uchar. */
                const T v0 = with_values ? values[i + k] : (T)1, v1 = with_values ? values[i + k + 1] : (T)1,
                        v2 = with_values ? values[i + k + 2] : (T)1, v3 = with_values ? values[i + k + 3] : (T)1;
                acc = COMBINE(acc, COMBINE_FOUR(v0, v1, v2, v3));
            }
            i += QUIET;
            continue;
        }
        for (const ulong stop = min(end, i + QUIET); i < stop; i++) {
            const KEY_T key = keys[i], next = i + 1 < n ? keys[i + 1] : ~key;
            const uint head = key != prev, tail = next != key;
            const T value = with_values ? values[i] : (T)1;
            const T combined = COMBINE(acc, value);
            acc = head ? value : combined;
            any |= head;
            if (selects(mode, head, tail)) {
                put_output(mode, lengths, keys_out, values_out, count, i, key, mode == RUNS_FIRST ? value : acc);
                count++;
            }
            prev = key;
        }
    }
    return make_prefix(make_seg(acc, any), count);
}

/* The prefix of elements [begin, end) without writing: the outputs counted
 * from the keys alone, and the value of the run open at end, combined from
 * its last start in [begin, end) (or from begin when none starts there). */
__attribute__((always_inline)) inline prefix runs_fold_walk(const int mode, const int with_values,
                                                            __global const KEY_T *keys, __global const T *values,
                                                            const ulong begin, const ulong end, const ulong n)
{
    KEY_T prev = begin > 0 ? keys[begin - 1] : ~keys[0];
    ulong count = 0, last = begin;
    uint any = 0;
    for (ulong i = begin; i < end;) {
        if (i + QUIET <= end && i + QUIET < n && quiet_stretch(keys, i, prev)) {
            i += QUIET; /* no head, no output */
            continue;
        }
        for (const ulong stop = min(end, i + QUIET); i < stop; i++) {
            const KEY_T key = keys[i];
            const uint head = key != prev, tail = i + 1 == n || keys[i + 1] != key;
            count += selects(mode, head, tail);
            last = head ? i : last;
            any |= head;
            prev = key;
        }
    }
    T value = with_values ? values[last] : (T)1;
    for (ulong i = last + 1; i < end; i++) {
        const T next = with_values ? values[i] : (T)1; /* a T again: ?: promotes uchar to int */
        value = COMBINE(value, next);
    }
    return make_prefix(make_seg(value, any), count);
}

/* The two walks for a mode and values known only at run time. */
prefix runs_run(__global const KEY_T *keys, __global const T *values, const ulong begin, const ulong end,
                const ulong n, const int mode, const prefix carry, __global KEY_T *keys_out, __global T *values_out)
{
    if (mode == RUNS_REDUCE)
        return values ? runs_walk(RUNS_REDUCE, 1, keys, values, begin, end, n, carry, keys_out, values_out)
                      : runs_walk(RUNS_REDUCE, 0, keys, values, begin, end, n, carry, keys_out, values_out);
    if (mode == RUNS_FIRST)
        return values ? runs_walk(RUNS_FIRST, 1, keys, values, begin, end, n, carry, keys_out, values_out)
                      : runs_walk(RUNS_FIRST, 0, keys, values, begin, end, n, carry, keys_out, values_out);
    return runs_walk(RUNS_NONTRIVIAL, 0, keys, values, begin, end, n, carry, keys_out, values_out);
}

prefix runs_fold(__global const KEY_T *keys, __global const T *values, const ulong begin, const ulong end,
                 const ulong n, const int mode)
{
    if (mode == RUNS_REDUCE)
        return values ? runs_fold_walk(RUNS_REDUCE, 1, keys, values, begin, end, n)
                      : runs_fold_walk(RUNS_REDUCE, 0, keys, values, begin, end, n);
    if (mode == RUNS_FIRST)
        return values ? runs_fold_walk(RUNS_FIRST, 1, keys, values, begin, end, n)
                      : runs_fold_walk(RUNS_FIRST, 0, keys, values, begin, end, n);
    return runs_fold_walk(RUNS_NONTRIVIAL, 0, keys, values, begin, end, n);
}

/* Local memory of a runs kernel: a padded tile of words that stages keys,
 * values and outputs in turn, and between them holds the work-group scan's
 * slots and the look-back's. A word is 4 bytes where keys and values both
 * fit, since local memory decides how many work-groups share a compute unit.
 * At most the scan's budget (clprim_local_bytes_needed). */
#if CLPRIM_FIELD(KEY, BYTES) == 8 || CLPRIM_FIELD(TYPE, BYTES) == 8
#define STAGE_T ulong
#else
#define STAGE_T uint
#endif
#define SLOT_WORDS ((sizeof(part) + sizeof(STAGE_T) - 1) / sizeof(STAGE_T))
#define MAX_OF(a, b) ((a) > (b) ? (a) : (b))
#define STAGE_WORDS MAX_OF(PADDED_TILE, SLOT_WORDS * 2 * WG) /* the look-back's slots: 2 * WG parts */
#define RUNS_LOCALS                                  \
    __local STAGE_T stage[STAGE_WORDS];               \
    __local part *slots = (__local part *)stage;      \
    T value[ITEMS];                                  \
    uint head_bits[FLAG_WORDS], chosen_bits[FLAG_WORDS]

/* A work-item's flags, a bit an item (registers are what limits how many
 * work-groups share a compute unit: arrays of bytes take a register each). */
#define FLAG_WORDS ((ITEMS + 31) / 32)
#define FLAG(bits, k) (((bits)[(k) / 32] >> ((k) % 32)) & 1u)

/* Tile [base, end) (end <= n; tiles start at multiples of TILE): this
 * work-item's ITEMS consecutive elements, staged through local memory into
 * registers: values (ones when values is NULL, the identity past end), and
 * flags of those that start a run (head_bits) and that the call writes an
 * output at (chosen_bits). Returns their part; the stage is free again on
 * return. */
part load_items(__global const KEY_T *keys, __global const T *values, const ulong base, const ulong end,
                const ulong n, const int mode, __local STAGE_T *stage, T *value, uint *head_bits, uint *chosen_bits)
{
    const uint first = get_local_id(0) * ITEMS;
    const ulong at = base + first, after = at + ITEMS; /* this work-item's elements, the one after them */
    __local KEY_T *tile_keys = (__local KEY_T *)stage;
    load_key_tile(keys, base, end, tile_keys, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The neighbours beyond this work-item's elements: in the tile, else the
     * input's (the previous or next tile's), else none. */
    KEY_T key = tile_keys[PAD(first)];
    KEY_T prev = first > 0 ? tile_keys[PAD(first - 1)] : at > 0 ? keys[at - 1] : ~key;
    const KEY_T right = first + ITEMS < TILE && after < end ? tile_keys[PAD(first + ITEMS)]
                        : after < n                         ? keys[after]
                                                            : key;
    uint count = 0;
    for (uint w = 0; w < FLAG_WORDS; w++)
        head_bits[w] = chosen_bits[w] = 0;
    for (uint k = 0; k < ITEMS; k++) {
        const ulong i = at + k;
        const KEY_T next = k + 1 < ITEMS ? tile_keys[PAD(first + k + 1)] : right;
        const uint valid = i < end;
        const uint starts = valid && key != prev, ends = valid && (i + 1 == n || next != key);
        const uint chosen = valid && selects(mode, starts, ends);
        head_bits[k / 32] |= starts << (k % 32);
        chosen_bits[k / 32] |= chosen << (k % 32);
        count += chosen;
        prev = key;
        key = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* every key is read: the values take the stage */
    if (values) {
        __local T *tile_values = (__local T *)stage;
        load_tile(values, base, end, tile_values, IDENTITY);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++)
            value[k] = tile_values[PAD(first + k)];
    } else {
        for (uint k = 0; k < ITEMS; k++)
            value[k] = at + k < end ? (T)1 : IDENTITY;
    }
    seg run = NO_SEG;
    for (uint k = 0; k < ITEMS; k++)
        run = seg_combine(run, make_seg(value[k], FLAG(head_bits, k)));
    barrier(CLK_LOCAL_MEM_FENCE); /* every value is read: the stage is free */
    return make_part(run, count);
}

/* After the work-group's scan of the parts: this work-item's outputs, its
 * elements rescanned from carry (the tiles before) and before (the
 * work-items before it in the tile). The tile's `total` outputs are staged
 * by place in local memory, keys then values, and written out coalesced from
 * output carry.count on; an output's key is read again from keys, where it
 * was read a moment before (so no key is held through the scan). The scan's
 * last barrier frees the stage. */
void write_items(const int mode, const int lengths, __global const KEY_T *keys, const prefix carry,
                 const part before, const uint total, const ulong base, T *value, const uint *head_bits,
                 const uint *chosen_bits, __local STAGE_T *stage, __global KEY_T *keys_out, __global T *values_out)
{
    const uint lid = get_local_id(0), first = lid * ITEMS;
    seg run = seg_combine(carry.s, part_seg(before));
    uint at = part_count(before);
    for (uint k = 0; k < ITEMS; k++) {
        run = seg_combine(run, make_seg(value[k], FLAG(head_bits, k)));
        if (mode != RUNS_FIRST)
            value[k] = run.value; /* what an output here writes */
        if (FLAG(chosen_bits, k)) {
            const ulong i = base + first + k;
            if (mode == RUNS_NONTRIVIAL) /* below n, which fits T and so the stage */
                stage[PAD(at)] = (STAGE_T)(i + 1 - (ulong)value[k]);
            else
                ((__local KEY_T *)stage)[PAD(at)] = keys[i];
            at++;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = lid; j < total; j += WG)
        if (mode == RUNS_NONTRIVIAL)
            ((__global ulong *)keys_out)[carry.count + j] = (ulong)stage[PAD(j)];
        else
            keys_out[carry.count + j] = ((__local KEY_T *)stage)[PAD(j)];
    /* The values, when there are any; the barriers stay outside any branch
     * (PoCL 3.1 lost `total` across a barrier under a condition). */
    barrier(CLK_LOCAL_MEM_FENCE);
    at = part_count(before);
    for (uint k = 0; k < ITEMS; k++)
        if (FLAG(chosen_bits, k)) {
            ((__local T *)stage)[PAD(at)] = value[k];
            at++;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = lid; values_out && j < total; j += WG)
        if (lengths)
            ((__global ulong *)values_out)[carry.count + j] = (ulong)((__local T *)stage)[PAD(j)];
        else
            values_out[carry.count + j] = ((__local T *)stage)[PAD(j)];
}

/* ---- Multi-pass: passes 1 and 2, shared by the runs and scan by key ---- */

/* Work-group g folds its chunk [g * chunk, ...) into partials[g],
 * part_heads[g] and part_counts[g] (each array at its offset). values NULL:
 * ones. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void runs_chunks(__global const KEY_T *keys, ulong keys_offset, __global const T *values, ulong values_offset,
                 int with_values, ulong n, ulong chunk, int mode, __global T *partials, ulong partials_offset,
                 __global uint *part_heads, ulong heads_offset, __global ulong *part_counts, ulong counts_offset)
{
    const ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);
    keys += keys_offset;
    values = with_values ? values + values_offset : NULL;
#if WG == 1
    const prefix acc = runs_fold(keys, values, begin, end, n, mode);
#else
    RUNS_LOCALS;
    prefix acc = make_prefix(NO_SEG, 0);
    for (ulong base = begin; base < end; base += TILE) {
        part total;
        wg_part_scan(load_items(keys, values, base, end, n, mode, stage, value, head_bits, chosen_bits), slots, &total);
        /* the scan's barriers free the stage */
        acc = prefix_combine(acc, part_prefix(total));
    }
#endif
    if (get_local_id(0) == 0) {
        partials[partials_offset + get_group_id(0)] = acc.s.value;
        part_heads[heads_offset + get_group_id(0)] = acc.s.head;
        part_counts[counts_offset + get_group_id(0)] = acc.count;
    }
}

/* One work-item: each chunk's part becomes what is carried into it, the
 * combination of the parts before it (the chunks are few: one per group). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void runs_seeds(__global T *partials, ulong partials_offset, __global const uint *part_heads, ulong heads_offset,
                __global ulong *part_counts, ulong counts_offset, ulong groups)
{
    if (get_local_id(0) != 0)
        return;
    partials += partials_offset;
    part_heads += heads_offset;
    part_counts += counts_offset;
    prefix carry = make_prefix(NO_SEG, 0);
    for (ulong g = 0; g < groups; g++) {
        const prefix mine = make_prefix(make_seg(partials[g], part_heads[g]), part_counts[g]);
        partials[g] = carry.s.value;
        part_counts[g] = carry.count;
        carry = prefix_combine(carry, mine);
    }
}

/* ---- Runs: pass 3 and the one-sweep form ----
 * Outputs: keys_out (or the non-trivial runs' first indices, cl_ulong) and
 * values_out (with_values_out; else none), from their offsets; the number of
 * outputs to count_out[count_offset] when write_count. */

/* Work-group g writes its chunk's outputs from its seed (with_seeds: seeds[g]
 * and seed_counts[g]; else nothing before it). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void runs_scatter_chunks(__global const KEY_T *keys, ulong keys_offset, __global const T *values,
                         ulong values_offset, int with_values, ulong n, ulong chunk, int mode,
                         __global const T *seeds, ulong seeds_offset, __global const ulong *seed_counts,
                         ulong seed_counts_offset, int with_seeds, __global KEY_T *keys_out, ulong keys_out_offset,
                         __global T *values_out, ulong values_out_offset, int with_values_out,
                         __global ulong *count_out, ulong count_offset, int write_count)
{
    const uint g = get_group_id(0);
    const ulong begin = g * chunk, end = min(n, begin + chunk);
    keys += keys_offset;
    values = with_values ? values + values_offset : NULL;
    keys_out = keys_out_at(mode, keys_out, keys_out_offset);
    values_out = values_out_at(mode, with_values, with_values_out, values_out, values_out_offset);
    prefix carry = make_prefix(NO_SEG, 0);
    if (with_seeds && g > 0) /* a seed's head is 0: a carry only ever stands to the left */
        carry = make_prefix(make_seg(seeds[seeds_offset + g], 0u), seed_counts[seed_counts_offset + g]);
#if WG == 1
    carry = runs_run(keys, values, begin, end, n, mode, carry, keys_out, values_out);
#else
    RUNS_LOCALS;
    for (ulong base = begin; base < end; base += TILE) {
        part total;
        const part before = wg_part_scan(
            load_items(keys, values, base, end, n, mode, stage, value, head_bits, chosen_bits), slots, &total);
        write_items(mode, writes_lengths(mode, with_values), keys, carry, before, part_count(total), base, value,
                    head_bits, chosen_bits, stage, keys_out, values_out);
        carry = prefix_combine(carry, part_prefix(total));
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile overwrites local memory */
    }
#endif
    if (write_count && get_local_id(0) == 0 && g == get_num_groups(0) - 1)
        count_out[count_offset] = carry.count;
}

/* ---- Scan by key: pass 3 and the one-sweep form ---- */

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
    scan_by_key_run(keys, values, dst, begin, end, carry, exclusive);
#else
    __local T tile[PADDED_TILE];
    __local uchar heads[PADDED_TILE]; /* a byte a flag: more work-groups fit a compute unit */
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

#ifdef STATUS_STORE64
/* Tile u's part in a loop: the CPU shape's own, and the look-back's fallback. */
part runs_tile_total(__global const KEY_T *keys, __global const T *values, const ulong n, const int mode,
                     const uint u)
{
    const ulong base = (ulong)u * TILE;
    return prefix_part(runs_fold(keys, values, base, min(n, base + TILE), n, mode));
}

/* Tile u's segmented total (scan by key) in a loop: the CPU shape's own, and
 * the look-back's fallback. */
seg scan_by_key_tile_total(__global const KEY_T *keys, __global const T *values, const ulong n, const uint u)
{
    const ulong base = (ulong)u * TILE, end = min(n, base + TILE);
    seg total = NO_SEG;
    for (ulong i = base; i < end; i++)
        total = seg_combine(total, make_seg(values[i], is_head(keys, i)));
    return total;
}

/* Each value that crosses tiles with one NaN (ONE_NAN). */
seg seg_one_nan(const seg s)
{
    return make_seg(ONE_NAN(s.value), s.head);
}

part part_one_nan(const part p)
{
    return make_part(seg_one_nan(part_seg(p)), part_count(p));
}

#define SEG_FOLD(a, b) seg_one_nan(seg_combine((a), (b)))
#define PART_FOLD(a, b) part_one_nan(part_combine((a), (b)))
#if WG == 1
#define RUNS_TILE_TOTAL(u, tmp) part_one_nan(runs_tile_total(keys, values, n, mode, u))
#define SCAN_BY_KEY_TILE_TOTAL(u, tmp) seg_one_nan(scan_by_key_tile_total(keys, values, n, u))
#else
/* Tile u's totals as its own work-group finds them, by one work-item from the
 * input: each work-item's pairs (parts) folded into tmp[l] as fold_tile
 * (load_items) folds them, then the work-group scan's combines, so the same
 * bits. */
seg scan_by_key_tile_alone(__global const KEY_T *keys, __global const T *values, const ulong n, const uint u,
                           __local seg *tmp)
{
    for (uint l = 0; l < WG; l++) {
        const ulong at = (ulong)u * TILE + l * ITEMS;
        seg run = NO_SEG;
        for (uint k = 0; k < ITEMS; k++)
            run = seg_combine(run, at + k < n ? make_seg(values[at + k], is_head(keys, at + k)) : NO_SEG);
        tmp[l] = run;
    }
    return seg_one_nan(wg_seg_scan_alone(tmp));
}

part runs_tile_alone(__global const KEY_T *keys, __global const T *values, const ulong n, const int mode,
                     const uint u, __local part *tmp)
{
    const ulong base = (ulong)u * TILE, end = min(n, base + TILE);
    for (uint l = 0; l < WG; l++) {
        const ulong at = base + l * ITEMS;
        seg run = NO_SEG;
        uint count = 0;
        for (uint k = 0; k < ITEMS; k++) {
            const ulong i = at + k;
            uint starts = 0, ends = 0;
            T value = IDENTITY;
            if (i < end) {
                const KEY_T key = keys[i];
                starts = i == 0 || keys[i - 1] != key;
                ends = i + 1 == n || keys[i + 1] != key;
                value = values ? values[i] : (T)1;
            }
            count += i < end && selects(mode, starts, ends);
            run = seg_combine(run, make_seg(value, starts));
        }
        tmp[l] = make_part(run, count);
    }
    return part_one_nan(wg_part_scan_alone(tmp));
}
#define RUNS_TILE_TOTAL(u, tmp) runs_tile_alone(keys, values, n, mode, u, (__local part *)(tmp))
#define SCAN_BY_KEY_TILE_TOTAL(u, tmp) scan_by_key_tile_alone(keys, values, n, u, tmp)
#endif

/* The runs: tiles grouped by their numbers alone (DEFINE_LOOKBACK_GROUPED),
 * which float sums and callers' operators need for the same bits on every
 * run, and which serves exact operators too: it reads 128 records at once
 * where the exact walk reads 16, and took int32 reduce by key and unique by
 * key 5-8% faster on an H100 (BENCHMARKS.md). A record is a part (8 bytes
 * for 32-bit values), not a prefix with its 64-bit count: records of half
 * the size took reduce by key 9% faster on an H200. */
DEFINE_LOOKBACK_GROUPED(runs_lookback, part, PART_FOLD, make_part(NO_SEG, 0u), 1, RUNS_TILE_TOTAL,
                        __global const KEY_T *keys, __global const T *values, const ulong n, const int mode)
#define RUNS_PREFIX(t, total, buf) \
    part_prefix(runs_lookback_prefix(lookback, t, part_one_nan(total), stamp, &walk, buf, keys, values, n, mode))

/* Scan by key: the exact walk where the operator allows it, 16 records (of
 * the pair alone, 8 or 16 bytes) a step, 1% faster there than the grouped
 * form; else grouped. */
#if OP_EXACT
#define SCAN_BY_KEY_LOOP_TOTAL(u) scan_by_key_tile_total(keys, values, n, u)
DEFINE_LOOKBACK(scan_by_key_lookback, seg, SEG_COMBINE, NO_SEG, 16, !in_place, SCAN_BY_KEY_LOOP_TOTAL,
                __global const KEY_T *keys, __global const T *values, const ulong n, const int in_place)
#define SCAN_BY_KEY_PREFIX(t, total, buf) \
    scan_by_key_lookback_prefix(lookback, t, total, stamp, &walk, keys, values, n, values == dst)
#define SEG_SLOTS WG /* scan by key's work-group scan */
#else
DEFINE_LOOKBACK_GROUPED(scan_by_key_lookback, seg, SEG_FOLD, NO_SEG, !in_place, SCAN_BY_KEY_TILE_TOTAL,
                        __global const KEY_T *keys, __global const T *values, const ulong n, const int in_place)
#define SCAN_BY_KEY_PREFIX(t, total, buf) \
    scan_by_key_lookback_prefix(lookback, t, seg_one_nan(total), stamp, &walk, buf, keys, values, n, values == dst)
#define SEG_SLOTS (2 * WG) /* scan by key's work-group scan, then the grouped look-back's */
#endif

/* The one-sweep form of the runs: tile t (in start order) writes its outputs
 * after those of the tiles before it, its runs continued from theirs. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void runs_tiles(__global const KEY_T *keys, ulong keys_offset, __global const T *values, ulong values_offset,
                int with_values, ulong n, int mode, __global KEY_T *keys_out, ulong keys_out_offset,
                __global T *values_out, ulong values_out_offset, int with_values_out, __global ulong *lookback,
                uint stamp, __global ulong *count_out, ulong count_offset, int write_count)
{
    __local uint ticket;
    __local runs_lookback_scratch walk;
    ulong base, end;
    const uint t = lookback_tile(lookback, n, &ticket, &base, &end);
    keys += keys_offset;
    values = with_values ? values + values_offset : NULL;
    keys_out = keys_out_at(mode, keys_out, keys_out_offset);
    values_out = values_out_at(mode, with_values, with_values_out, values_out, values_out_offset);
#if WG == 1
    /* The CPU shape: the tile's part, then its outputs (the second read comes
     * from the cache). */
    __local part group_slots[2 * WG]; /* the look-back's */
    const prefix total = runs_fold(keys, values, base, end, n, mode);
    const prefix carry = RUNS_PREFIX(t, prefix_part(total), group_slots);
    runs_run(keys, values, base, end, n, mode, carry, keys_out, values_out);
    const ulong outputs = carry.count + total.count;
#else
    RUNS_LOCALS;
    part total;
    const part before =
        wg_part_scan(load_items(keys, values, base, end, n, mode, stage, value, head_bits, chosen_bits), slots, &total);
    /* The stage is free through the look-back. */
    const prefix carry = RUNS_PREFIX(t, total, slots);
    write_items(mode, writes_lengths(mode, with_values), keys, carry, before, part_count(total), base, value,
                head_bits, chosen_bits, stage, keys_out, values_out);
    const ulong outputs = carry.count + part_count(total);
#endif
    if (write_count && get_local_id(0) == 0 && t == get_num_groups(0) - 1)
        count_out[count_offset] = outputs;
}

/* The one-sweep form of scan by key: tile t (in start order) scanned from the
 * pair of the tiles before it. values == dst is safe, as in
 * scan_by_key_chunks. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_by_key_tiles(__global const KEY_T *keys, ulong keys_offset, __global const T *values, ulong values_offset,
                       __global T *dst, ulong dst_offset, ulong n, __global ulong *lookback, uint stamp,
                       int exclusive)
{
    __local uint ticket;
    __local scan_by_key_lookback_scratch walk;
    ulong base, end;
    const uint t = lookback_tile(lookback, n, &ticket, &base, &end);
    keys += keys_offset;
    values += values_offset;
    dst += dst_offset;
    __local seg sums[SEG_SLOTS];
#if WG == 1
    const seg carry = SCAN_BY_KEY_PREFIX(t, scan_by_key_tile_total(keys, values, n, t), sums);
    scan_by_key_run(keys, values, dst, base, end, carry.value, exclusive);
#else
    __local T tile[PADDED_TILE];
    __local uchar heads[PADDED_TILE];
    seg total;
    const seg before = wg_seg_scan(fold_tile(keys, values, base, end, tile, heads), sums, &total);
    const seg carried = SCAN_BY_KEY_PREFIX(t, total, sums);
    rescan_pairs(seg_combine(make_seg(carried.value, 0u), before), exclusive, tile, heads);
    barrier(CLK_LOCAL_MEM_FENCE);
    store_tile(dst, base, end, tile);
#endif
}
#endif
