/* Merge sort and merge by a caller's comparator (src/algorithms/merge_sort.c).
 *
 * The sort: merge_block_sort sorts each run of `run` keys (a tile of TILE on
 * work-groups of several work-items, a chunk a work-group on the CPU shape);
 * then each pass merges pairs of sorted runs, merge_partition finding where
 * every piece of the output starts in its two runs (a binary search along the
 * merge path's diagonal), merge_pieces merging each piece; over pairs of
 * fewer pieces than WG, merge_pieces_finding merges each piece from splits
 * its work-group finds itself (find_piece), with no partition launch.
 * clprim_merge is one such pass over two arrays.
 *
 * Built with -DTYPE=<NAME> (cl/types.h), the key; -DLESS=<expression>, the
 * caller's comparator over a and b as the host parsed and wrote it out (true
 * when a must come before b), or, for the order of clprim_sort_keys, -DKEY=
 * <NAME> (the sort key type, TYPE being its bits) with -DORDER_DESCENDING,
 * -DORDER_BEGIN_BIT and -DORDER_END_BIT; -DVALUE_BYTES=0, 1, 4 or 8, the
 * bytes of a value moved with its key (0: keys alone; values are moved as
 * bits); -DWG and -DITEMS.
 *
 * Whatever the comparator, every write stays inside its output and every
 * output is some input: a merge whose independently found splits do not fit
 * together (a comparator that is not a strict weak order) falls back to
 * placing its first run before its second, so the result is a permutation of
 * the input, and the same on every run. */
#include "block/tile.cl"
#include "block/fill.cl"
#include "expression.cl"

#ifndef TYPE
#error "merge_sort.cl needs -DTYPE=<NAME> (cl/types.h), the key type"
#endif
#ifdef KEY
#include "block/key.cl"
#define LESS                                                                                                   \
    rank_of(a, ORDER_DESCENDING, ORDER_BEGIN_BIT, ORDER_END_BIT) <                                             \
        rank_of(b, ORDER_DESCENDING, ORDER_BEGIN_BIT, ORDER_END_BIT)
#endif
#ifndef LESS
#error "merge_sort.cl needs -DLESS=<expression over a and b>, or -DKEY and the order"
#endif

/* block/merge.cl's terms: keys are compared as they are, by the caller's
 * comparator, which needs nothing more. */
typedef T merge_key;
typedef T merge_item;
typedef uint merge_order;
#define as_item(k) (k)
#define item_key(x) (x)

/* The caller's comparator: a comes strictly before b. */
bool before(const T a, const T b, const merge_order unused)
{
    return (LESS) != 0;
}

#include "block/merge.cl"

/* Where pair `pair` of a pass starts and how long its two runs are: runs of
 * wa and wb keys alternate (wa == wb in the sort; the two arrays of a merge,
 * one pair), the last ones cut at n. */
typedef struct {
    ulong start, la, lb;
} merge_pair;

merge_pair pair_of(const ulong at, const ulong n, const ulong wa, const ulong wb)
{
    merge_pair p;
    p.start = at / (wa + wb) * (wa + wb);
    p.la = min(wa, n - p.start);
    p.lb = min(wb, n - p.start - p.la);
    return p;
}

/* The split of every piece of `piece` outputs: splits[g] = keys of A among
 * the outputs before piece g of its pair. A piece whose end split comes before
 * its start (a comparator that is no order) sets flags[0], and the pass then
 * places each pair's A before its B. A piece never spans two pairs: the
 * pair's length is a multiple of `piece`, or the pass has one pair. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_partition(__global const T *a, ulong a_offset, __global const T *b, ulong b_offset, ulong n, ulong wa,
                     ulong wb, ulong b_skip, ulong piece, ulong pieces, __global ulong *splits, ulong splits_offset,
                     __global uint *flags, ulong flag_offset)
{
    splits += splits_offset;
    FOR_EACH_INDEX(g, pieces) {
        const merge_pair p = pair_of(g * piece, n, wa, wb);
        __global const T *pa = a + a_offset + p.start, *pb = b + b_offset + p.start + b_skip;
        const ulong d = g * piece - p.start, end = min(d + piece, p.la + p.lb);
        ulong s, e;
        merge_paths(pa, pb, 0, p.la, p.lb, d, end, &s, &e);
        splits[g] = s;
        if (s > e || d - s > end - e)
            atomic_or(flags + flag_offset, 1u);
    }
}

/* Piece g's outputs [d, end) of its pair, and their first keys of A [*s, *e)
 * (of B [d - *s, end - *e)). */
merge_pair piece_of(const ulong g, const ulong piece, const ulong n, const ulong wa, const ulong wb,
                    __global const ulong *splits, const uint fallback, ulong *d, ulong *end, ulong *s, ulong *e)
{
    const merge_pair p = pair_of(g * piece, n, wa, wb);
    *d = g * piece - p.start;
    *end = min(*d + piece, p.la + p.lb);
    *s = fallback ? min(*d, p.la) : splits[g];
    *e = fallback || *end == p.la + p.lb ? min(*end, p.la) : splits[g + 1];
    return p;
}

/* The kernels of the two shapes take the same arguments. merge_block_sort:
 * keys_in sorted in runs of `run` into keys_out, keys_tmp there a second
 * buffer; with `indices`, the values are the keys' positions (values_in is not
 * read). merge_pieces: piece g of a pass's pairs of runs (a's run of pair p at
 * p * (wa + wb), b's at p * (wa + wb) + b_skip) from the splits into out. */
#define BLOCK_SORT_PARAMS                                                                                        \
    __global const T *keys_in, ulong keys_in_offset, __global T *keys_out, ulong keys_out_offset,                \
        __global T *keys_tmp, ulong keys_tmp_offset, __global const value_t *values_in, ulong values_in_offset,  \
        __global value_t *values_out, ulong values_out_offset, __global value_t *values_tmp,                     \
        ulong values_tmp_offset, uint indices, ulong n, ulong run
#define MERGE_PIECES_PARAMS                                                                                      \
    __global const T *a, ulong a_offset, __global const T *b, ulong b_offset, __global const value_t *av,       \
        ulong av_offset, __global const value_t *bv, ulong bv_offset, __global T *out, ulong out_offset,         \
        __global value_t *ov, ulong ov_offset, ulong n, ulong wa, ulong wb, ulong b_skip, ulong piece,           \
        __global const ulong *splits, ulong splits_offset, __global const uint *flags, ulong flag_offset
#define MERGE_PIECES_ARGS                                                                                        \
    a, a_offset, b, b_offset, av, av_offset, bv, bv_offset, out, out_offset, ov, ov_offset, n, wa, wb, b_skip,  \
        piece, splits, splits_offset, flags, flag_offset

#if WG == 1

/* ---- The CPU shape: one work-item a group, a chunk or a piece each ---- */

/* Group g sorts keys_in[g * run, + run) into keys_out (block/merge.cl's
 * sort_run), keys_tmp's elements there its second buffer. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_block_sort(BLOCK_SORT_PARAMS)
{
    const ulong begin = get_group_id(0) * run, end = min(n, begin + run);
    if (begin >= n)
        return;
    sort_run(keys_in + keys_in_offset, values_in + values_in_offset, indices, begin, end, keys_out + keys_out_offset,
             values_out + values_out_offset, keys_tmp + keys_tmp_offset, values_tmp + values_tmp_offset, 0);
}

/* Group g merges piece g of the pass sequentially, from the splits. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_pieces(MERGE_PIECES_PARAMS)
{
    const ulong g = get_group_id(0);
    ulong d, end, s, e;
    const merge_pair p = piece_of(g, piece, n, wa, wb, splits + splits_offset, flags[flag_offset], &d, &end, &s, &e);
    const ulong at_a = p.start + s, at_b = p.start + b_skip + d - s, at_out = g * piece;
    merge_runs(a + a_offset + at_a, av + av_offset + at_a, e - s, b + b_offset + at_b, bv + bv_offset + at_b,
               end - e - (d - s), out + out_offset + at_out, ov + ov_offset + at_out, 0);
}

#else

/* ---- Work-groups of several work-items: tiles in local memory ---- */

DEFINE_TILE_IO(load_keys, store_keys, T)
#if VALUE_BYTES
DEFINE_TILE_IO(load_values, store_values, value_t)
#endif

/* Each group sorts a tile of TILE keys (run == TILE) by block/merge.cl's
 * block_sort. Values (or, with `indices`, the keys' positions) follow the
 * keys' tile positions at the end. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_block_sort(BLOCK_SORT_PARAMS)
{
    __local ulong words[MERGE_WORDS]; /* keys, positions and values in turn */
    __local uint splits_l[WG], bad;
    __local T *keys = (__local T *)words;
    const uint lid = get_local_id(0), first = lid * ITEMS;
    const ulong base = get_group_id(0) * (ulong)TILE;
    const uint count = (uint)min((ulong)TILE, n - base);
    keys_out += keys_out_offset;

    load_keys(keys_in + keys_in_offset, base, n, keys, (T)0);
    barrier(CLK_LOCAL_MEM_FENCE);
    T key[ITEMS];
    uint at[ITEMS];
    block_sort(words, splits_l, &bad, count, 0, key, at);

    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        keys[PAD(first + k)] = key[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    store_keys(keys_out, base, n, keys);
#if VALUE_BYTES
    __local value_t *values = (__local value_t *)words;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!indices)
        load_values(values_in + values_in_offset, base, n, values, (value_t)0);
    barrier(CLK_LOCAL_MEM_FENCE);
    values_to_outputs(values, at, ITEMS, indices, base);
    barrier(CLK_LOCAL_MEM_FENCE);
    store_values(values_out + values_out_offset, base, n, values);
#endif
}

/* Where piece g's outputs [*d, *end) of its pair p start and end in A, [*s,
 * *e), found by the work-group itself: a pair's boundaries a work-item (a
 * pair of fewer than WG pieces), into at (WG + 1 local words), checked
 * together, so that should two not fit every piece of the pair places its A
 * before its B, as merge_partition's flag makes a whole pass do. In a pass of
 * such pairs this takes the place of merge_partition's launch. Holds
 * barriers; at is free again on return. */
merge_pair find_piece(const ulong g, const ulong piece, const ulong n, const ulong wa, const ulong wb,
                      __global const T *a, __global const T *b, const ulong b_skip, __local ulong *at,
                      __local uint *bad, ulong *d, ulong *end, ulong *s, ulong *e)
{
    const uint lid = get_local_id(0);
    const merge_pair p = pair_of(g * piece, n, wa, wb);
    const ulong total = p.la + p.lb, pieces = (total + piece - 1) / piece, k = g - p.start / piece;
    if (lid == 0)
        *bad = 0;
    if (lid <= pieces)
        at[lid] = merge_path(a + p.start, b + p.start + b_skip, 0, p.la, p.lb, min(lid * piece, total));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < pieces) {
        const ulong from = lid * piece, to = min(from + piece, total);
        if (at[lid] > at[lid + 1] || from - at[lid] > to - at[lid + 1])
            atomic_or(bad, 1u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *d = k * piece;
    *end = min(*d + piece, total);
    *s = *bad ? min(*d, p.la) : at[k];
    *e = *bad ? min(*end, p.la) : at[k + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return p;
}

/* Group g merges piece g (TILE outputs, piece == TILE) from its slices of A
 * and B (block/merge.cl's merge_slices), its splits merge_partition's or, with
 * find (a constant), its own (find_piece). */
void merge_piece(MERGE_PIECES_PARAMS, const int find, __local ulong *words, __local uint *splits_l, __local uint *bad)
{
    const ulong g = get_group_id(0);
    ulong d, end, s, e;
    const merge_pair p =
        find ? find_piece(g, piece, n, wa, wb, a + a_offset, b + b_offset, b_skip, words, bad, &d, &end, &s, &e)
             : piece_of(g, piece, n, wa, wb, splits + splits_offset, flags[flag_offset], &d, &end, &s, &e);
    const ulong at_a = p.start + s, at_b = p.start + b_skip + d - s, at_out = g * piece;
    merge_slices(a + a_offset + at_a, av + av_offset + at_a, (uint)(e - s), b + b_offset + at_b,
                 bv + bv_offset + at_b, (uint)(end - e - (d - s)), out + out_offset + at_out,
                 ov + ov_offset + at_out, words, splits_l, bad, 0);
}

/* Two kernels, so that the search's code holds no registers in the passes
 * that partition first (a flag in one kernel cost those 4% at 2^26 keys). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_pieces(MERGE_PIECES_PARAMS)
{
    __local ulong words[MERGE_WORDS];
    __local uint splits_l[WG], bad;
    merge_piece(MERGE_PIECES_ARGS, 0, words, splits_l, &bad);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_pieces_finding(MERGE_PIECES_PARAMS)
{
    __local ulong words[MERGE_WORDS];
    __local uint splits_l[WG], bad;
    merge_piece(MERGE_PIECES_ARGS, 1, words, splits_l, &bad);
}

#endif
