/* Segmented reduction over an offsets array (src/algorithms/segmented_reduce.c):
 * segment s is src[offsets[s], offsets[s + 1]), each offset taken as
 * min(offsets[k], n), and dst[s] receives the combination of its elements,
 * EMPTY_RESULT when it has none.
 *
 * The ELEMENTS are split evenly, so the work does not depend on the segments'
 * lengths: each work-group takes a chunk (whole tiles, as the scan splits) and
 * walks it tile by tile. An offset that falls in a tile is a head there (block/
 * segment.cl's pairs); a segmented scan of the tile's (value, head) pairs,
 * carried from tile to tile, gives each segment's value at its last element.
 *   segmented_reduce_chunks  writes every segment that starts and ends in its
 *       chunk, and every empty one at a position in it; hands on the chunk's
 *       pair and, for the segment open at the chunk's start that ends in it,
 *       its segment number and the part of it the chunk holds;
 *   segmented_reduce_carry   one work-group: the exclusive segmented scan of
 *       the chunks' pairs gives what each such segment holds before the
 *       chunk, combined in front of the chunk's part.
 * A segment crossing many chunks costs a pair per chunk and one write. The
 * order of combination is fixed by the shape and the chunks, never by timing,
 * and keeps the elements' order (a caller's operator need not commute).
 * Offsets that decrease give unspecified values, but every read stays in
 * src[0, n) and offsets[0, segments], every write in dst[0, segments).
 *
 * Built with -DTYPE, -DOP (cl/types.h), -DWG and -DITEMS; or, for segmented
 * argmin and argmax, -DARG_MIN or -DARG_MAX instead of -DOP: the values
 * combined are then (value, index) pairs under block/arg.cl's rule, and each
 * segment's value and index go to dst and indices (as `outputs` asks). */
#if defined(ARG_MIN) || defined(ARG_MAX)
/* Four lanes, not eight: segments of tens of elements spend less on joining
 * lanes and on the elements after the last whole step (one PoCL thread, 2^24
 * floats in segments of mean 64: 18.3 ms with eight, 13.1 with four). */
#define ARG_LANES 4
#include "block/arg.cl"
#define ACC ulong2
#define ACC_BYTES 16
#define ACC_COMBINE(a, b) arg_take((a), (b))
#define ACC_IDENTITY ARG_NONE
#define ACC_EMPTY arg_pair(ARG_EMPTY, ~0ul) /* an empty segment: no index */
#define ACC_COMMUTES 1
#define LIFT(x, i) arg_pair((x), (i))
#else
#define ACC_COMMUTES OP_COMMUTES
#define LIFT(x, i) (x)
#endif
#include "block/offsets.cl"
#include "block/segment.cl"
#include "block/tile.cl"

/* Where segment k's result goes. Every build takes the same arguments, so
 * that one launch fits them all: a reduction writes dst alone; argmin and
 * argmax write the value to dst (outputs bit 0) and the index to indices
 * (bit 1). */
#define RESULT_PARAMS __global T *dst, ulong dst_offset, __global ulong *indices, ulong indices_offset, uint outputs
#define RESULT_AT (dst += dst_offset, indices += indices_offset)
#if defined(ARG_MIN) || defined(ARG_MAX)
inline void store_result(__global T *dst, __global ulong *indices, const uint outputs, const ulong k, const ulong2 a)
{
    if (outputs & 1u)
        dst[k] = arg_value(a);
    if (outputs & 2u)
        indices[k] = a.y;
}
#define STORE_RESULT(k, a) store_result(dst, indices, outputs, (k), (a))
#else
#define STORE_RESULT(k, a) (dst[k] = (a), (void)indices, (void)outputs)
#endif

/* No segment: a chunk whose open segment does not end in it. */
#define NO_SEGMENT ((ulong)-1)

#if WG == 1
/* acc combined with src[from, to), in order; a built-in operator, which
 * commutes, in eight lanes for runs long enough, so that the adds of one lane
 * need not wait for another's (the same grouping on every run). */
ACC fold_run(__global const T *src, ulong from, const ulong to, ACC acc)
{
#if defined(ARG_MIN) || defined(ARG_MAX)
    /* The run's winner as a plain value and index, then one combine with
     * what came before (on 2 PoCL cores, 10 times faster than a combine of
     * pairs an element). */
    if (from < to) {
        T best;
        ulong at;
        arg_fold_run(src, from, to, &best, &at);
        acc = ACC_COMBINE(acc, arg_pair(best, at));
    }
    return acc;
#else
#if ACC_COMMUTES
#define LIFT_AT(i) LIFT(src[i], i)
    if (from + 16 <= to)
        FOLD_IN_EIGHT_LANES(ACC, ACC_IDENTITY, ACC_COMBINE, LIFT_AT, acc, from, to);
#undef LIFT_AT
#endif
    for (; from < to; from++)
        acc = ACC_COMBINE(acc, LIFT(src[from], from));
    return acc;
#endif
}
#else
/* src[tb, te) staged as values to combine; past te, ACC_IDENTITY. */
#if defined(ARG_MIN) || defined(ARG_MAX)
void load_lifted(__global const T *src, const ulong tb, const ulong te, __local ACC *tile)
{
    for (uint k = 0; k < ITEMS; k++) {
        const ulong i = tb + k * WG + get_local_id(0);
        tile[PAD(k * WG + get_local_id(0))] = i < te ? LIFT(src[i], i) : ACC_IDENTITY;
    }
}
#else
#define load_lifted(src, tb, te, tile) load_tile((src), (tb), (te), (tile), IDENTITY)
#endif

#endif

/* Work-group g reduces its chunk [g * chunk, min(n, (g + 1) * chunk)) of src.
 * It writes dst[s] for each segment s that starts and ends in the chunk, and
 * EMPTY_RESULT for each empty one at a position in the chunk (at n: the last
 * chunk). Then (pairs, heads)[g] is the chunk's pair, and (ids, parts)[g] the
 * segment open at the chunk's start that ends in it, with the combination of
 * its elements in the chunk, or NO_SEGMENT. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segmented_reduce_chunks(__global const T *src, ulong src_offset, ulong n, ulong chunk,
                             __global const ulong *offsets, ulong offsets_offset, ulong segments, RESULT_PARAMS,
                             __global ACC *pairs, ulong pairs_offset, __global uint *heads_out, ulong heads_offset,
                             __global ACC *parts, ulong parts_offset, __global ulong *ids, ulong ids_offset)
{
    const ulong g = get_group_id(0), cb = g * chunk, ce = min(n, cb + chunk);
    src += src_offset;
    offsets += offsets_offset;
    RESULT_AT;
#if WG == 1
    /* The CPU shape: one work-item walks the chunk's offsets in order. */
    ulong k = first_offset_from(offsets, segments + 1, n, cb), at = cb, open = NO_SEGMENT;
    ACC acc = ACC_IDENTITY, part = ACC_IDENTITY;
    uint head = 0;
    for (; k <= segments && offset_at(offsets, k, n) <= ce; k++) {
        const ulong p = offset_at(offsets, k, n);
        acc = fold_run(src, at, p, acc);
        at = max(at, p);
        if (k > 0) {
            const ulong b = offset_at(offsets, k - 1, n);
            if (b == p && (p < ce || p == n))
                STORE_RESULT(k - 1, ACC_EMPTY);
            else if (b != p && p > cb && b >= cb)
                STORE_RESULT(k - 1, acc);
            else if (b != p && p > cb) {
                open = k - 1;
                part = acc;
            }
        }
        if (p < ce) {
            acc = ACC_IDENTITY;
            head = 1;
        }
    }
    acc = fold_run(src, at, ce, acc);
    const seg carried = make_seg(acc, head);
#else
    __local ACC tile[PADDED_TILE];
    __local uchar heads[PADDED_TILE]; /* one byte a flag: more work-groups fit a compute unit */
    __local seg sums[WG];
    __local ulong shared[3]; /* the search's bounds, then the next tile's first offset */
    __local ulong open_at;
    __local ACC open_part;
    const uint lid = get_local_id(0);
    if (lid == 0) {
        open_at = NO_SEGMENT;
        open_part = ACC_IDENTITY;
    }
    /* k0: the first offset at or after the tile's start; offsets below it
     * belong to earlier tiles. */
    ulong k0 = first_offset_from(offsets, segments + 1, n, cb, shared);
    seg carried = make_seg(ACC_IDENTITY, 0u);
    for (ulong tb = cb; tb < ce; tb += TILE) {
        const ulong te = min(ce, tb + TILE);
        load_lifted(src, tb, te, tile);
        for (uint k = 0; k < ITEMS; k++)
            heads[PAD(k * WG + lid)] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The tile's offsets are k0, k0 + 1, ... up to the first past te:
         * WG of them a round, rounds while the last one read is within. */
        for (ulong base = k0; base <= segments && (base == k0 || offset_at(offsets, base - 1, n) <= te); base += WG) {
            const ulong k = base + lid;
            if (k <= segments) {
                const ulong p = offset_at(offsets, k, n);
                /* The first of equal offsets marks the head. */
                if (p >= tb && p < te && (k == 0 || offset_at(offsets, k - 1, n) != p))
                    heads[PAD(p - tb)] = 1;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        seg total;
        const seg before = wg_seg_scan(fold_pairs(tile, heads), sums, &total);
        rescan_pairs(seg_combine(carried, before), 0, tile, heads);
        carried = seg_combine(carried, total);
        if (lid == 0)
            shared[2] = segments + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Each segment ending in the tile reads its value at its last element. */
        for (ulong base = k0; base <= segments && (base == k0 || offset_at(offsets, base - 1, n) <= te); base += WG) {
            const ulong k = base + lid;
            if (k <= segments) {
                const ulong p = offset_at(offsets, k, n);
                if (k > 0 && p >= tb && p <= te) {
                    const ulong b = offset_at(offsets, k - 1, n);
                    if (b == p && (p < te || p == n)) {
                        STORE_RESULT(k - 1, ACC_EMPTY);
                    } else if (b != p && p > tb) {
                        const ACC value = tile[PAD(p - 1 - tb)];
                        if (b >= cb) {
                            STORE_RESULT(k - 1, value);
                        } else {
                            open_at = k - 1;
                            open_part = value;
                        }
                    }
                }
                if (p >= te && (k == 0 || offset_at(offsets, k - 1, n) < te))
                    shared[2] = k;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        k0 = shared[2];
    }
    const ulong open = open_at;
    const ACC part = open_part;
#endif
    if (get_local_id(0) == 0) {
        pairs[pairs_offset + g] = carried.value;
        heads_out[heads_offset + g] = carried.head;
        parts[parts_offset + g] = part;
        ids[ids_offset + g] = open;
    }
}

/* One work-group over the chunks' records: the exclusive segmented scan of
 * their pairs is what precedes each chunk of the segment open at its start;
 * a segment that ends in chunk g gets that combined with its part there. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segmented_reduce_carry(__global const ACC *pairs, ulong pairs_offset, __global const uint *heads,
                            ulong heads_offset, __global const ACC *parts, ulong parts_offset,
                            __global const ulong *ids, ulong ids_offset, ulong groups, ulong segments,
                            RESULT_PARAMS)
{
    __local seg sums[WG];
    const uint lid = get_local_id(0);
    pairs += pairs_offset;
    heads += heads_offset;
    parts += parts_offset;
    ids += ids_offset;
    RESULT_AT;
    seg carry = make_seg(ACC_IDENTITY, 0u);
    for (ulong base = 0; base < groups; base += WG) {
        const ulong g = base + lid;
        const seg mine = g < groups ? make_seg(pairs[g], heads[g]) : make_seg(ACC_IDENTITY, 0u);
        seg total;
        const seg before = seg_combine(carry, wg_seg_scan(mine, sums, &total));
        if (g < groups && ids[g] < segments)
            STORE_RESULT(ids[g], ACC_COMBINE(before.value, parts[g]));
        carry = seg_combine(carry, total);
    }
}

/* No element: every segment is empty. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segmented_reduce_empty(RESULT_PARAMS, ulong segments)
{
    RESULT_AT;
    FOR_EACH_INDEX(s, segments)
        STORE_RESULT(s, ACC_EMPTY);
}
