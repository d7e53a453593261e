/* Stable sorting by merges, written once for the merge sort (merge_sort.cl)
 * and the segmented sort (segmented_sort.cl): the merge path (where a piece
 * of a merge's output starts in its two inputs), and per shape
 *   WG == 1  merge_runs, the sequential merge of two runs in global memory,
 *            and sort_run, a run sorted by insertion sorts and merges;
 *   WG > 1   block_sort, a staged tile sorted in registers and local memory,
 *            and merge_slices, two sorted slices merged through local memory.
 * Values (VALUE_BYTES of them a key, 0 for none) move with their keys.
 *
 * Whatever the comparator answers, every write stays inside its output and
 * every output is some input: a merge whose independently found splits do not
 * fit together (a comparator that is no strict weak order) places its first
 * run before its second.
 *
 * The includer defines, before including this file:
 *   merge_key     the keys' type in global memory;
 *   merge_item    what is compared: a key, or more (a key and its segment);
 *   merge_order   what the comparison needs beside two items (a kernel argument);
 *   bool before(merge_item a, merge_item b, merge_order order): a strictly first;
 *   merge_item as_item(merge_key k) and merge_key item_key(merge_item x). */
#ifndef CLPRIM_BLOCK_MERGE_CL
#define CLPRIM_BLOCK_MERGE_CL

#include "block/element.cl"

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

/* How many of the first d outputs of the stable merge of A (la keys) and B
 * (lb keys) come from A, ties going to A: at least d - lb, at most d and la,
 * whatever the comparator answers. AT_A(i) and AT_B(j) read the items. */
#define DEFINE_MERGE_PATH(NAME, INDEX, PARAMS, AT_A, AT_B)                                \
    INDEX NAME(PARAMS, const merge_order order, const INDEX la, const INDEX lb, const INDEX d) \
    {                                                                                    \
        INDEX lo = max(d, lb) - lb, hi = min(d, la);                                     \
        while (lo < hi) {                                                                \
            const INDEX mid = lo + (hi - lo) / 2;                                        \
            if (before(AT_B(d - 1 - mid), AT_A(mid), order))                             \
                hi = mid;                                                                \
            else                                                                         \
                lo = mid + 1;                                                            \
        }                                                                                \
        return lo;                                                                       \
    }

#define MERGE_COMMA ,
#define GLOBAL_A(i) as_item(a[i])
#define GLOBAL_B(j) as_item(b[j])
DEFINE_MERGE_PATH(merge_path, ulong, __global const merge_key *a MERGE_COMMA __global const merge_key *b, GLOBAL_A,
                  GLOBAL_B)

/* The merge path of A = a[0, la) and B = b[0, lb) in global memory at two
 * diagonals, *s0 at d0 and *s1 at d1 (a piece's start and end), the two
 * searches in lockstep so that the loads of both are in flight together:
 * one after the other, they waited on memory twice. */
void merge_paths(__global const merge_key *a, __global const merge_key *b, const merge_order order, const ulong la,
                 const ulong lb, const ulong d0, const ulong d1, ulong *s0, ulong *s1)
{
    ulong lo0 = max(d0, lb) - lb, hi0 = min(d0, la), lo1 = max(d1, lb) - lb, hi1 = min(d1, la);
    while (lo0 < hi0 || lo1 < hi1) {
        const ulong mid0 = lo0 + (hi0 - lo0) / 2, mid1 = lo1 + (hi1 - lo1) / 2;
        const int go0 = lo0 < hi0, go1 = lo1 < hi1;
        merge_item a0, b0, a1, b1;
        if (go0) {
            b0 = as_item(b[d0 - 1 - mid0]);
            a0 = as_item(a[mid0]);
        }
        if (go1) {
            b1 = as_item(b[d1 - 1 - mid1]);
            a1 = as_item(a[mid1]);
        }
        if (go0) {
            if (before(b0, a0, order))
                hi0 = mid0;
            else
                lo0 = mid0 + 1;
        }
        if (go1) {
            if (before(b1, a1, order))
                hi1 = mid1;
            else
                lo1 = mid1 + 1;
        }
    }
    *s0 = lo0;
    *s1 = lo1;
}

#if WG == 1

/* out[0, na + nb) = the stable merge of a[0, na) and b[0, nb), the values
 * with their keys. */
void merge_runs(__global const merge_key *a, __global const value_t *av, const ulong na, __global const merge_key *b,
                __global const value_t *bv, const ulong nb, __global merge_key *out, __global value_t *ov,
                const merge_order order)
{
    ulong i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        const merge_key x = a[i], y = b[j];
        const bool take_b = before(as_item(y), as_item(x), order);
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

/* keys_in[begin, end) stably sorted into dst[begin, end), other[begin, end)
 * its second buffer: insertion sorts of SMALL_RUN keys, then merges of runs
 * twice as long, ping-ponging so that the last lands in dst. Values come from
 * values_in, or with `indices` are the keys' positions. keys_in may be dst or
 * other (values_in likewise): every key is read before its place is written. */
void sort_run(__global const merge_key *keys_in, __global const value_t *values_in, const uint indices,
              const ulong begin, const ulong end, __global merge_key *dst, __global value_t *vdst,
              __global merge_key *other, __global value_t *vother, const merge_order order)
{
    uint merges = 0;
    for (ulong width = SMALL_RUN; width < end - begin; width *= 2)
        merges++;
    __global merge_key *src = merges & 1 ? other : dst, *to = merges & 1 ? dst : other;
    __global value_t *vsrc = merges & 1 ? vother : vdst, *vto = merges & 1 ? vdst : vother;
    for (ulong r = begin; r < end; r += SMALL_RUN) {
        const ulong r_end = min(end, r + SMALL_RUN);
        for (ulong i = r; i < r_end; i++) {
            const merge_key key = keys_in[i];
#if VALUE_BYTES
            const value_t value = indices ? (value_t)i : values_in[i];
#endif
            ulong j = i;
            for (; j > r && before(as_item(key), as_item(src[j - 1]), order); j--) {
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
            merge_runs(src + lo, vsrc + lo, mid - lo, src + mid, vsrc + mid, hi - mid, to + lo, vto + lo, order);
        }
        __global merge_key *swap = src;
        src = to;
        to = swap;
        __global value_t *vswap = vsrc;
        vsrc = vto;
        vto = vswap;
    }
}

#else

/* Local memory for a staged tile: its items, their positions or their values
 * in turn, in words of eight bytes. */
#define MERGE_ELEMENT_BYTES (sizeof(merge_item) > sizeof(value_t) ? sizeof(merge_item) : sizeof(value_t))
#define MERGE_WORDS (PADDED_TILE * ((MERGE_ELEMENT_BYTES + 7) / 8))

#define LOCAL_A(i) items[PAD(ps + (i))]
#define LOCAL_B(j) items[PAD(ps + la + (j))]
DEFINE_MERGE_PATH(merge_path_local, uint, __local const merge_item *items MERGE_COMMA const uint ps, LOCAL_A,
                  LOCAL_B)

/* Each work-item's part of merges staged in local memory: from ps, a sorted
 * run A of la items, then a sorted run B of lb items; the work-item takes
 * outputs [d, end) of their merge (last: no later work-item takes part in the
 * same merge) into key[], and where each came from in items into from[]. The
 * work-items' splits pass through splits_l; should one not fit the next, every
 * merge of the tile places its A before its B. Holds barriers: every
 * work-item calls it. */
void merge_local(__local const merge_item *items, __local uint *splits_l, __local uint *bad, const uint ps,
                 const uint la, const uint lb, const uint d, const uint end, const bool last, const merge_order order,
                 merge_item *key, uint *from)
{
    const uint lid = get_local_id(0);
    uint s = merge_path_local(items, ps, order, la, lb, d);
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
            const bool take_b = bi < be && (ai >= ae || before(items[PAD(bi)], items[PAD(ai)], order));
            const uint at = take_b ? bi++ : ai++;
            key[k] = items[PAD(at)];
            from[k] = at;
        }
}

/* The first `count` items of the tile staged in words (the caller's barrier
 * after): each work-item sorts its ITEMS consecutive ones in registers
 * (odd-even transposition: stable), then log2(WG) rounds merge runs through
 * local memory. On return work-item lid holds sorted items lid * ITEMS + k in
 * key[k], and with values their tile positions in at[k]; words is free again
 * after the caller's next barrier. Holds barriers: every work-item calls it. */
void block_sort(__local ulong *words, __local uint *splits_l, __local uint *bad, const uint count,
                const merge_order order, merge_item *key, uint *at)
{
    __local merge_item *items = (__local merge_item *)words;
    __local uint *positions = (__local uint *)words;
    const uint lid = get_local_id(0), first = lid * ITEMS;
    const uint mine = min((uint)ITEMS, max(count, first) - first);
    uint from[ITEMS];
    for (uint k = 0; k < ITEMS; k++) {
        key[k] = items[PAD(first + k)];
        at[k] = first + k;
    }
    for (uint round = 0; round < ITEMS; round++)
        for (uint k = round & 1; k + 1 < ITEMS; k += 2)
            if (k + 1 < mine && before(key[k + 1], key[k], order)) {
                const merge_item x = key[k];
                key[k] = key[k + 1];
                key[k + 1] = x;
                const uint i = at[k];
                at[k] = at[k + 1];
                at[k + 1] = i;
            }

    for (uint width = ITEMS; width < TILE; width *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++)
            items[PAD(first + k)] = key[k];
        const uint ps = first / (2 * width) * (2 * width);
        const uint la = min(width, max(count, ps) - ps);
        const uint lb = min(width, max(count, ps + la) - (ps + la));
        const uint d = min(first - ps, la + lb), end = min(d + ITEMS, la + lb);
        const bool last = lid + 1 == WG || (first + ITEMS) % (2 * width) == 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        merge_local(items, splits_l, bad, ps, la, lb, d, end, last, order, key, from);
#if VALUE_BYTES
        /* Each item's tile position follows it through local memory. */
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++)
            positions[PAD(first + k)] = at[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++)
            if (k < mine)
                at[k] = positions[PAD(from[k])];
#endif
    }
}

#if VALUE_BYTES
/* Values staged in local memory by position, to output order: each
 * work-item's ITEMS outputs take the values at positions from[k] (k < mine;
 * with `indices`, index_base + from[k] itself), written back at the
 * work-item's outputs for a coalesced store after the caller's barrier. Its
 * first barrier follows the gather. Holds barriers: every work-item calls it. */
void values_to_outputs(__local value_t *values, const uint *from, const uint mine, const uint indices,
                       const ulong index_base)
{
    const uint first = get_local_id(0) * ITEMS;
    value_t v[ITEMS];
    for (uint k = 0; k < ITEMS; k++)
        v[k] = k >= mine ? (value_t)0 : indices ? (value_t)(index_base + from[k]) : values[PAD(from[k])];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        values[PAD(first + k)] = v[k];
}
#endif

/* out[0, la + lb) = the stable merge of a[0, la) and b[0, lb) (la + lb at
 * most TILE), the values (av, bv into ov) with their keys: both slices staged
 * in words one after the other, each work-item merging ITEMS outputs from its
 * own split, keys and values stored coalesced. Holds barriers: every
 * work-item calls it. */
void merge_slices(__global const merge_key *a, __global const value_t *av, const uint la, __global const merge_key *b,
                  __global const value_t *bv, const uint lb, __global merge_key *out, __global value_t *ov,
                  __local ulong *words, __local uint *splits_l, __local uint *bad, const merge_order order)
{
    __local merge_item *items = (__local merge_item *)words;
    const uint lid = get_local_id(0), first = lid * ITEMS, total = la + lb;
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < total)
            items[PAD(j)] = as_item(j < la ? a[j] : b[j - la]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    merge_item key[ITEMS];
    uint from[ITEMS];
    merge_local(items, splits_l, bad, 0, la, lb, min(first, total), min(first + ITEMS, total), lid + 1 == WG, order,
                key, from);
    const uint mine = min((uint)ITEMS, max(total, first) - first);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        if (k < mine)
            items[PAD(first + k)] = key[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < total)
            out[j] = item_key(items[PAD(j)]);
    }
#if VALUE_BYTES
    __local value_t *values = (__local value_t *)words;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < total)
            values[PAD(j)] = j < la ? av[j] : bv[j - la];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    values_to_outputs(values, from, mine, 0, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < total)
            ov[j] = values[PAD(j)];
    }
#endif
}

#endif

#endif /* CLPRIM_BLOCK_MERGE_CL */
