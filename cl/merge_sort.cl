/* Merge sort and merge by a caller's comparator (src/algorithms/merge_sort.c).
 *
 * The sort: merge_block_sort sorts each run of `run` keys (a tile of TILE on
 * work-groups of several work-items, a chunk a work-group on the CPU shape);
 * then each pass merges pairs of sorted runs, merge_partition finding where
 * every piece of the output starts in its two runs (a binary search along the
 * merge path's diagonal), merge_pieces merging each piece. clprim_merge is
 * one such pass over two arrays.
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
#ifndef VALUE_BYTES
#define VALUE_BYTES 0
#endif

/* A value's bits (a stand-in type when there are none, never read). */
#if VALUE_BYTES == 1
typedef uchar value_t;
#elif VALUE_BYTES == 8
typedef ulong value_t;
#elif VALUE_BYTES == 4 || VALUE_BYTES == 0
typedef uint value_t;
#else
#error "VALUE_BYTES must be 0, 1, 4 or 8"
#endif

/* The caller's comparator: a comes strictly before b. */
bool before(const T a, const T b)
{
    return (LESS) != 0;
}

/* How many of the first d outputs of the stable merge of A (la keys) and B
 * (lb keys) come from A, ties going to A: at least d - lb, at most d and la,
 * whatever the comparator answers. AT_A(i) and AT_B(j) read the keys. */
#define DEFINE_MERGE_PATH(NAME, INDEX, PARAMS, AT_A, AT_B)                       \
    INDEX NAME(PARAMS, const INDEX la, const INDEX lb, const INDEX d)           \
    {                                                                           \
        INDEX lo = max(d, lb) - lb, hi = min(d, la);                        \
        while (lo < hi) {                                                       \
            const INDEX mid = lo + (hi - lo) / 2;                               \
            if (before(AT_B(d - 1 - mid), AT_A(mid)))                           \
                hi = mid;                                                       \
            else                                                                \
                lo = mid + 1;                                                   \
        }                                                                       \
        return lo;                                                              \
    }

#define MERGE_COMMA ,
#define GLOBAL_A(i) a[i]
#define GLOBAL_B(j) b[j]
DEFINE_MERGE_PATH(merge_path, ulong, __global const T *a MERGE_COMMA __global const T *b, GLOBAL_A, GLOBAL_B)

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
        const ulong s = merge_path(pa, pb, p.la, p.lb, d), e = merge_path(pa, pb, p.la, p.lb, end);
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

#if WG == 1

/* ---- The CPU shape: one work-item a group, a chunk or a piece each ---- */

/* out[0, na + nb) = the stable merge of a[0, na) and b[0, nb), the values
 * with their keys. */
void merge_runs(__global const T *a, __global const value_t *av, const ulong na, __global const T *b,
                __global const value_t *bv, const ulong nb, __global T *out, __global value_t *ov)
{
    ulong i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        const T x = a[i], y = b[j];
        const bool take_b = before(y, x);
        out[k] = take_b ? y : x;
#if VALUE_BYTES
        ov[k] = take_b ? bv[j] : av[i];
#endif
        j += take_b;
        i += !take_b;
        k++;
    }
    for (; i < na; i++, k++) {
        out[k] = a[i];
#if VALUE_BYTES
        ov[k] = av[i];
#endif
    }
    for (; j < nb; j++, k++) {
        out[k] = b[j];
#if VALUE_BYTES
        ov[k] = bv[j];
#endif
    }
}

/* Runs this short are insertion sorted before the merges. */
#define SMALL_RUN 16

/* Group g sorts keys_in[g * run, + run) into keys_out, keys_tmp's elements
 * there its second buffer: insertion sorts of SMALL_RUN keys, then merges of
 * runs twice as long, ping-ponging so that the last lands in keys_out. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_block_sort(BLOCK_SORT_PARAMS)
{
    const ulong begin = get_group_id(0) * run, end = min(n, begin + run);
    if (begin >= n)
        return;
    uint merges = 0;
    for (ulong width = SMALL_RUN; width < end - begin; width *= 2)
        merges++;
    __global T *src = (merges & 1 ? keys_tmp + keys_tmp_offset : keys_out + keys_out_offset);
    __global T *dst = (merges & 1 ? keys_out + keys_out_offset : keys_tmp + keys_tmp_offset);
    __global value_t *vsrc = (merges & 1 ? values_tmp + values_tmp_offset : values_out + values_out_offset);
    __global value_t *vdst = (merges & 1 ? values_out + values_out_offset : values_tmp + values_tmp_offset);
    keys_in += keys_in_offset;
    values_in += values_in_offset;
    for (ulong r = begin; r < end; r += SMALL_RUN) {
        const ulong r_end = min(end, r + SMALL_RUN);
        for (ulong i = r; i < r_end; i++) {
            const T key = keys_in[i];
#if VALUE_BYTES
            const value_t value = indices ? (value_t)i : values_in[i];
#endif
            ulong j = i;
            for (; j > r && before(key, src[j - 1]); j--) {
                src[j] = src[j - 1];
#if VALUE_BYTES
                vsrc[j] = vsrc[j - 1];
#endif
            }
            src[j] = key;
#if VALUE_BYTES
            vsrc[j] = value;
#endif
        }
    }
    for (ulong width = SMALL_RUN; width < end - begin; width *= 2) {
        for (ulong lo = begin; lo < end; lo += 2 * width) {
            const ulong mid = min(end, lo + width), hi = min(end, lo + 2 * width);
            merge_runs(src + lo, vsrc + lo, mid - lo, src + mid, vsrc + mid, hi - mid, dst + lo, vdst + lo);
        }
        __global T *swap = src;
        src = dst;
        dst = swap;
        __global value_t *vswap = vsrc;
        vsrc = vdst;
        vdst = vswap;
    }
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
               end - e - (d - s), out + out_offset + at_out, ov + ov_offset + at_out);
}

#else

/* ---- Work-groups of several work-items: tiles in local memory ---- */

DEFINE_TILE_IO(load_keys, store_keys, T)
#if VALUE_BYTES
DEFINE_TILE_IO(load_values, store_values, value_t)
#endif

#define LOCAL_A(i) keys[PAD(ps + (i))]
#define LOCAL_B(j) keys[PAD(ps + la + (j))]
DEFINE_MERGE_PATH(merge_path_local, uint, __local const T *keys MERGE_COMMA const uint ps, LOCAL_A, LOCAL_B)

/* Each work-item's part of merges staged in local memory: from ps, a sorted
 * run A of la keys, then a sorted run B of lb keys; the work-item takes
 * outputs [d, end) of their merge (last: no later work-item takes part in the
 * same merge) into key[], and where each came from in keys into from[]. The
 * work-items' splits pass through splits_l; should one not fit the next, every
 * merge of the tile places its A before its B. Holds barriers: every
 * work-item calls it. */
void merge_local(__local const T *keys, __local uint *splits_l, __local uint *bad, const uint ps, const uint la,
                 const uint lb, const uint d, const uint end, const bool last, T *key, uint *from)
{
    const uint lid = get_local_id(0);
    uint s = merge_path_local(keys, ps, la, lb, d);
    splits_l[lid] = s;
    if (lid == 0)
        *bad = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint e = last ? la : splits_l[lid + 1];
    if (s > e || d - s > end - e)
        atomic_or(bad, 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (*bad) {
        s = min(d, la);
        e = min(end, la);
    }
    uint ai = ps + s, bi = ps + la + d - s;
    const uint ae = ps + e, be = ps + la + end - e;
    for (uint k = 0; k < ITEMS; k++)
        if (k < end - d) {
            const bool take_b = bi < be && (ai >= ae || before(keys[PAD(bi)], keys[PAD(ai)]));
            const uint at = take_b ? bi++ : ai++;
            key[k] = keys[PAD(at)];
            from[k] = at;
        }
}

/* Each group sorts a tile of TILE keys (run == TILE): each work-item its
 * ITEMS consecutive keys in registers (odd-even transposition: stable), then
 * log2(WG) rounds of merges of runs in local memory. Values (or, with
 * `indices`, the keys' positions) follow the keys' tile positions at the end. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_block_sort(BLOCK_SORT_PARAMS)
{
    __local ulong words[PADDED_TILE]; /* keys, positions and values in turn */
    __local uint splits_l[WG], bad;
    __local T *keys = (__local T *)words;
    __local uint *positions = (__local uint *)words;
    const uint lid = get_local_id(0), first = lid * ITEMS;
    const ulong base = get_group_id(0) * (ulong)TILE;
    const uint count = (uint)min((ulong)TILE, n - base);
    const uint mine = min((uint)ITEMS, max(count, first) - first);
    keys_out += keys_out_offset;

    load_keys(keys_in + keys_in_offset, base, n, keys, (T)0);
    barrier(CLK_LOCAL_MEM_FENCE);
    T key[ITEMS];
    uint at[ITEMS], from[ITEMS];
    for (uint k = 0; k < ITEMS; k++) {
        key[k] = keys[PAD(first + k)];
        at[k] = first + k;
    }
    for (uint round = 0; round < ITEMS; round++)
        for (uint k = round & 1; k + 1 < ITEMS; k += 2)
            if (k + 1 < mine && before(key[k + 1], key[k])) {
                const T x = key[k];
                key[k] = key[k + 1];
                key[k + 1] = x;
                const uint i = at[k];
                at[k] = at[k + 1];
                at[k + 1] = i;
            }

    for (uint width = ITEMS; width < TILE; width *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++)
            keys[PAD(first + k)] = key[k];
        const uint ps = first / (2 * width) * (2 * width);
        const uint la = min(width, max(count, ps) - ps);
        const uint lb = min(width, max(count, ps + la) - (ps + la));
        const uint d = min(first - ps, la + lb), end = min(d + ITEMS, la + lb);
        const bool last = lid + 1 == WG || (first + ITEMS) % (2 * width) == 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        merge_local(keys, splits_l, &bad, ps, la, lb, d, end, last, key, from);
#if VALUE_BYTES
        /* Each key's tile position follows it through local memory. */
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++)
            positions[PAD(first + k)] = at[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++)
            if (k < mine)
                at[k] = positions[PAD(from[k])];
#endif
    }

    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        keys[PAD(first + k)] = key[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    store_keys(keys_out, base, n, keys);
#if VALUE_BYTES
    __local value_t *values = (__local value_t *)words;
    value_t v[ITEMS];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!indices)
        load_values(values_in + values_in_offset, base, n, values, (value_t)0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        v[k] = indices ? (value_t)(base + at[k]) : values[PAD(at[k])];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        values[PAD(first + k)] = v[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    store_values(values_out + values_out_offset, base, n, values);
#endif
}

/* Group g merges piece g (TILE outputs, piece == TILE): its slices of A and B
 * staged in local memory one after the other, each work-item merging ITEMS
 * outputs from its own split, the keys (then the values) stored coalesced. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_pieces(MERGE_PIECES_PARAMS)
{
    __local ulong words[PADDED_TILE];
    __local uint splits_l[WG], bad;
    __local T *keys = (__local T *)words;
    const uint lid = get_local_id(0), first = lid * ITEMS;
    const ulong g = get_group_id(0);
    ulong d, end, s, e;
    const merge_pair p = piece_of(g, piece, n, wa, wb, splits + splits_offset, flags[flag_offset], &d, &end, &s, &e);
    const uint la = (uint)(e - s), total = (uint)(end - d);
    const ulong at_a = p.start + s, at_b = p.start + b_skip + d - s;
    a += a_offset + at_a;
    b += b_offset + at_b;
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < total)
            keys[PAD(j)] = j < la ? a[j] : b[j - la];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    T key[ITEMS];
    uint from[ITEMS];
    merge_local(keys, splits_l, &bad, 0, la, total - la, min(first, total), min(first + ITEMS, total), lid + 1 == WG,
                key, from);
    const uint mine = min((uint)ITEMS, max(total, first) - first);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        if (k < mine)
            keys[PAD(first + k)] = key[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    store_keys(out + out_offset, g * piece, n, keys);
#if VALUE_BYTES
    __local value_t *values = (__local value_t *)words;
    av += av_offset + at_a;
    bv += bv_offset + at_b;
    value_t v[ITEMS];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < total)
            values[PAD(j)] = j < la ? av[j] : bv[j - la];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        v[k] = k < mine ? values[PAD(from[k])] : (value_t)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        values[PAD(first + k)] = v[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    store_values(ov + ov_offset, g * piece, n, values);
#endif
}

#endif
