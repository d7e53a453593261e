/* Segmented sort over an offsets array (src/algorithms/segmented_sort.c):
 * segment s is keys[offsets[s], offsets[s + 1]) (each offset taken as
 * min(offsets[k], n)), sorted stably in the radix sort's order (block/key.cl's
 * ordered form, descending, a bit range); elements outside every segment are
 * neither sorted nor written.
 *
 * The ELEMENTS are cut into pieces of `piece` consecutive ones (a tile on
 * work-groups of several work-items, an even share of n a group on the CPU
 * shape), whatever the segments' lengths:
 *   segsort_pieces  sorts each piece by (segment, key), reading and writing
 *       every element once: each segment inside a piece is then done. It
 *       records which segment holds each piece's first element, and the most
 *       passes any segment needs.
 *   segsort_partition, segsort_merge   pass k: a segment over R pieces holds
 *       R sorted runs (its parts in them) and needs ceil(log2(R)) passes;
 *       pass k merges pairs of its runs of 2^k pieces, counted from its first
 *       piece: the partition finds where each piece's outputs start in the
 *       pair, the merge merges them. A piece holds at
 *       most two segments that need passes (the one holding its first element,
 *       the one holding the next piece's); a launch whose pass no segment
 *       needs does nothing (on GPUs it returns at once), so the host plans
 *       for the longest segment possible.
 * Each pass moves a segment between keys_out and tmp, so segsort_pieces writes
 * a segment that needs an odd number of passes to tmp, and every segment ends
 * in keys_out. Nothing is read back to the host.
 * Offsets that decrease give unspecified results, but every read stays in
 * the inputs, the offsets and the scratch, every write in keys_out[0, n),
 * values_out[0, n) and the scratch.
 *
 * With `indices` the values are the keys' positions (values_in unread).
 * Built with -DKEY=<NAME> (cl/types.h: a sort key), -DVALUE_BYTES=0, 4 or 8,
 * -DWG and -DITEMS; no element type. */
#include "block/key.cl"
#include "block/fill.cl"
#include "block/offsets.cl"
#include "block/reduce_scan.cl"

/* The order's state (a kernel argument): the sort compares the bits
 * [shift, shift + width of mask) of each key's ordered form. */
typedef struct {
    key_t mask;
    uint shift, descending;
} merge_order;

/* block/merge.cl's terms: a key and its segment's number in the tile (0 in
 * the merge passes, which merge within one segment). No padding: every
 * byte of local memory the block sort reads is written. */
typedef key_t merge_key;
typedef struct {
    key_t key;
    uint segment;
#if KEY_BITS == 64
    uint spare;
#endif
} merge_item;

merge_item item_of(const key_t key, const uint segment)
{
    merge_item x;
    x.key = key;
    x.segment = segment;
#if KEY_BITS == 64
    x.spare = 0;
#endif
    return x;
}

#define as_item(k) item_of((k), 0u)
#define item_key(x) ((x).key)

inline key_t sort_bits(const key_t key, const merge_order o)
{
    return (ordered(key, o.descending) >> o.shift) & o.mask;
}

bool before(const merge_item a, const merge_item b, const merge_order o)
{
    return a.segment != b.segment ? a.segment < b.segment : sort_bits(a.key, o) < sort_bits(b.key, o);
}

#include "block/merge.cl"

merge_order order_of(const ulong mask, const uint shift, const uint descending)
{
    merge_order o;
    o.mask = (key_t)mask;
    o.shift = shift;
    o.descending = descending;
    return o;
}

/* ---- Segments over pieces ---- */

/* A segment [begin, end); empty (0, 0) for none. */
typedef struct {
    ulong begin, end;
} span;

/* The segment that holds position x, from k, the first offset above x (or
 * beyond `segments`): none when x lies outside every segment, or where
 * offsets that decrease give no segment around x. */
span span_holding(__global const ulong *offsets, const ulong k, const ulong segments, const ulong n, const ulong x)
{
    span s = {0, 0};
    if (k > 0 && k <= segments) {
        const ulong b = offset_at(offsets, k - 1, n), e = offset_at(offsets, k, n);
        if (b <= x && x < e) {
            s.begin = b;
            s.end = e;
        }
    }
    return s;
}

/* Passes a segment needs: ceil(log2(pieces it touches)); 0 for none. */
uint passes_of(const span s, const ulong piece)
{
    if (s.end <= s.begin)
        return 0;
    const ulong runs = (s.end - 1) / piece - s.begin / piece + 1;
    return runs > 1 ? 64 - (uint)clz(runs - 1) : 0;
}

/* Where a segment's keys lie before pass k (1: the scratch's copy). */
uint in_tmp_before(const span s, const ulong piece, const uint k)
{
    return (passes_of(s, piece) - k) & 1;
}

/* Record g (the segment holding the first element of piece g, or none) in
 * the records: slot 0 holds the most passes any segment needs, record g the
 * two words after 1 + 2g. */
#define RECORD_BEGIN(g) (1 + 2 * (g))
#define RECORD_END(g) (2 + 2 * (g))

/* Piece g's first element's segment in the records, and the passes it needs
 * in slot 0 (every segment over several pieces holds the first element of
 * one after its own first). */
void publish_record(__global ulong *records, const ulong g, const span s, const ulong piece)
{
    records[RECORD_BEGIN(g)] = s.begin;
    records[RECORD_END(g)] = s.end;
    if (s.begin < g * piece)
        atomic_max((__global uint *)records, passes_of(s, piece));
}

/* Which buffer element p of piece [tb, te) goes to after the pieces pass:
 * 1 for tmp, 0 for keys_out; first holds tb, next holds te. */
uint to_tmp(const ulong p, const span first, const span next, const ulong piece)
{
    if (p < first.end)
        return in_tmp_before(first, piece, 0);
    if (next.end > next.begin && p >= next.begin)
        return in_tmp_before(next, piece, 0);
    return 0;
}

/* Pass k's merge for the part [out_begin, out_end) of a segment in one
 * piece: the pair of runs it lies in is A = [a, mid), B = [mid, b_end) of
 * keys_out, or of tmp when from_tmp. Nothing (out_begin == out_end) when the
 * segment does not need pass k. */
typedef struct {
    ulong a, mid, b_end, out_begin, out_end;
    uint from_tmp;
} pass_merge;

pass_merge merge_in_piece(const span s, const ulong g, const ulong piece, const ulong n, const uint k)
{
    pass_merge m = {0, 0, 0, 0, 0, 0};
    if (passes_of(s, piece) > k) {
        const ulong first = s.begin / piece, pair = (g - first) >> (k + 1) << (k + 1);
        m.a = max(s.begin, (first + pair) * piece);
        m.mid = min(s.end, (first + pair + ((ulong)1 << k)) * piece);
        m.b_end = min(s.end, (first + pair + ((ulong)2 << k)) * piece);
        m.out_begin = max(s.begin, g * piece);
        m.out_end = min(s.end, min(n, (g + 1) * piece));
        m.from_tmp = in_tmp_before(s, piece, k);
    }
    return m;
}

/* Piece g's part in pass k of the segment in its slot: slot 0 holds the
 * piece's first element, slot 1 starts inside the piece and holds the next
 * piece's first element; none when no segment needs pass k. */
pass_merge slot_merge(__global const ulong *records, const ulong g, const ulong pieces, const ulong piece,
                      const ulong n, const uint k, const uint slot, const bool needed)
{
    /* Read in place: a helper returning the record as a struct left
     * llvm.experimental.noalias.scope.decl, which oclgrind cannot run. */
    span s = {0, 0};
    const ulong r = g + slot;
    if (needed && r < pieces) {
        s.begin = records[RECORD_BEGIN(r)];
        s.end = records[RECORD_END(r)];
    }
    if (slot && (s.begin <= g * piece || s.begin >= (g + 1) * piece))
        s.end = s.begin; /* none, slot 0's, or one that starts with the next piece */
    return merge_in_piece(s, g, piece, n, k);
}

/* Where piece g's outputs of merge m start and end in its A, from the merge
 * path; should they not fit together (runs left unsorted by offsets that
 * decrease), A's outputs before B's, so that every read stays in the runs. */
typedef struct {
    ulong start, end;
} piece_splits;

piece_splits splits_of(__global const key_t *src, const pass_merge m, const merge_order order)
{
    const ulong la = m.mid - m.a, lb = m.b_end - m.mid, d = m.out_begin - m.a, end = m.out_end - m.a;
    piece_splits s;
    merge_paths(src + m.a, src + m.mid, order, la, lb, d, end, &s.start, &s.end);
    if (s.start > s.end || d - s.start > end - s.end) {
        s.start = min(d, la);
        s.end = min(end, la);
    }
    return s;
}

#define KEY_PARAMS                                                                                              \
    __global key_t *keys_out, ulong keys_out_offset, __global key_t *keys_tmp, ulong keys_tmp_offset,           \
        __global value_t *values_out, ulong values_out_offset, __global value_t *values_tmp,                   \
        ulong values_tmp_offset
#define ORDER_PARAMS ulong mask, uint shift, uint descending

/* Group g sorts piece [tb, te) by (segment, key) into keys_out or tmp. On the
 * CPU shape it sorts each segment's part in turn (block/merge.cl's
 * sort_run); on work-groups of several work-items the piece is a tile:
 * heads where offsets fall inside it, each element's segment number in the
 * tile from a scan of the heads, block_sort, then keys and values stored
 * coalesced. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segsort_pieces(__global const key_t *keys_in, ulong keys_in_offset, __global const value_t *values_in,
                    ulong values_in_offset, uint indices, KEY_PARAMS, ulong n, ulong piece,
                    __global const ulong *offsets, ulong offsets_offset, ulong segments, ORDER_PARAMS,
                    __global ulong *records, ulong records_offset)
{
#if WG > 1
    __local ulong words[MERGE_WORDS]; /* keys, items, positions and values in turn */
    __local uchar heads[PADDED_TILE];
    __local uint counts[SCAN_SLOTS], splits_l[WG], bad;
    __local ulong bounds[2];
    __local key_t *keys = (__local key_t *)words;
    __local merge_item *items = (__local merge_item *)words;
    const uint lid = get_local_id(0), first = lid * ITEMS;
#endif
    const merge_order order = order_of(mask, shift, descending);
    const ulong g = get_group_id(0), tb = g * piece, te = min(n, tb + piece);
    keys_in += keys_in_offset;
    values_in += values_in_offset;
    keys_out += keys_out_offset;
    keys_tmp += keys_tmp_offset;
    values_out += values_out_offset;
    values_tmp += values_tmp_offset;
    offsets += offsets_offset;
    records += records_offset;
#if WG == 1
    ulong k = first_offset_from(offsets, segments + 1, n, tb + 1);
    publish_record(records, g, span_holding(offsets, k, segments, n, tb), piece);
    for (ulong at = tb; at < te;) {
        while (k <= segments && offset_at(offsets, k, n) <= at)
            k++; /* offsets that decrease: on to one past `at` */
        const ulong e = k <= segments ? offset_at(offsets, k, n) : n, part_end = min(e, te);
        const span s = span_holding(offsets, k, segments, n, at);
        if (s.end > s.begin) {
            const uint tmp = in_tmp_before(s, piece, 0);
            sort_run(keys_in, values_in, indices, at, part_end, tmp ? keys_tmp : keys_out,
                     tmp ? values_tmp : values_out, tmp ? keys_out : keys_tmp, tmp ? values_out : values_tmp, order);
        }
        at = part_end;
    }
#else
    const uint count = (uint)(te - tb);
    const ulong k_first = first_offset_from(offsets, segments + 1, n, tb + 1, bounds);
    const ulong k_next = first_offset_from(offsets, segments + 1, n, te + 1, bounds);
    const span holding_first = span_holding(offsets, k_first, segments, n, tb);
    const span holding_next = span_holding(offsets, k_next, segments, n, te);
    if (lid == 0)
        publish_record(records, g, holding_first, piece);
    const ulong lo = offset_at(offsets, 0, n), hi = offset_at(offsets, segments, n);

    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        heads[PAD(j)] = 0;
        keys[PAD(j)] = j < count ? keys_in[tb + j] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Offsets inside the tile (tb excluded: it starts the tile's first
     * segment anyway), WG a round while the last one read is inside; the
     * first of equal offsets marks the head. */
    for (ulong base = k_first; base <= segments && (base == k_first || offset_at(offsets, base - 1, n) < te);
         base += WG) {
        const ulong k = base + lid;
        if (k <= segments) {
            const ulong p = offset_at(offsets, k, n);
            if (p > tb && p < te && (k == 0 || offset_at(offsets, k - 1, n) != p))
                heads[PAD(p - tb)] = 1;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    key_t raw[ITEMS];
    uint in_run = 0;
    for (uint k = 0; k < ITEMS; k++) {
        raw[k] = keys[PAD(first + k)];
        in_run += heads[PAD(first + k)];
    }
    uint heads_total;
    uint segment = wg_exclusive_count(in_run, counts, &heads_total); /* its first barrier ends the reads above */
    for (uint k = 0; k < ITEMS; k++) {
        segment += heads[PAD(first + k)];
        items[PAD(first + k)] = item_of(raw[k], segment);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    merge_item key[ITEMS];
    uint at[ITEMS];
    block_sort(words, splits_l, &bad, count, order, key, at);

    /* Sorting by segment keeps each segment on its own positions, so an
     * output's segment is its position's. */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++)
        keys[PAD(first + k)] = key[k].key;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        const ulong p = tb + j;
        if (j < count && p >= lo && p < hi)
            (to_tmp(p, holding_first, holding_next, piece) ? keys_tmp : keys_out)[p] = keys[PAD(j)];
    }
#if VALUE_BYTES
    __local value_t *values = (__local value_t *)words;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        if (j < count && !indices)
            values[PAD(j)] = values_in[tb + j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    values_to_outputs(values, at, min((uint)ITEMS, max(count, first) - first), indices, tb);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        const ulong p = tb + j;
        if (j < count && p >= lo && p < hi)
            (to_tmp(p, holding_first, holding_next, piece) ? values_tmp : values_out)[p] = values[PAD(j)];
    }
#endif
#endif
}

/* Pass `pass`, before its merges: the merge path splits of each piece's two
 * slots, a work-item each, into splits[4g + 2 slot] and the word after. (A
 * group that searched for its own piece would wait on a chain of dependent
 * reads, log2 of the runs' length long, in every group of every pass.) */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segsort_partition(__global const key_t *keys_out, ulong keys_out_offset, __global const key_t *keys_tmp,
                       ulong keys_tmp_offset, ulong n, ulong piece, ulong pieces, __global const ulong *records,
                       ulong records_offset, uint pass, ORDER_PARAMS, __global ulong *splits, ulong splits_offset)
{
    records += records_offset;
    splits += splits_offset;
    keys_out += keys_out_offset;
    keys_tmp += keys_tmp_offset;
    const merge_order order = order_of(mask, shift, descending);
    const ulong slots = pass < *(__global const uint *)records ? 2 * pieces : 0;
    FOR_EACH_INDEX(i, slots) {
        const pass_merge m = slot_merge(records, i / 2, pieces, piece, n, pass, (uint)(i % 2), true);
        const piece_splits s = splits_of(m.from_tmp ? keys_tmp : keys_out, m, order);
        splits[2 * i] = s.start;
        splits[2 * i + 1] = s.end;
    }
}

/* Pass `pass` over piece g: each slot's part merged from its splits,
 * sequentially on the CPU shape (block/merge.cl's merge_runs), else through
 * local memory (merge_slices). A launch no segment needs returns at once
 * (most of the planned ones: an empty launch of 2^15 groups would cost each
 * a round of barriers), except on CPUs, where its groups merge nothing and
 * meet every barrier: PoCL 3.1 ran a group that returned ahead of the
 * barriers wrongly at two work-items. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segsort_merge(KEY_PARAMS, ulong n, ulong piece, ulong pieces, __global const ulong *records,
                   ulong records_offset, uint pass, ORDER_PARAMS, __global const ulong *splits, ulong splits_offset)
{
#if WG > 1
    __local ulong words[MERGE_WORDS];
    __local uint splits_l[WG], bad;
#endif
    records += records_offset;
    const bool needed = pass < *(__global const uint *)records;
#ifndef DEVICE_CPU
    if (!needed)
        return; /* the whole group alike */
#endif
    const merge_order order = order_of(mask, shift, descending);
    const ulong g = get_group_id(0);
    splits += splits_offset + 4 * g;
    keys_out += keys_out_offset;
    keys_tmp += keys_tmp_offset;
    values_out += values_out_offset;
    values_tmp += values_tmp_offset;
    for (uint slot = 0; slot < 2; slot++) {
        const pass_merge m = slot_merge(records, g, pieces, piece, n, pass, slot, needed);
        __global key_t *src = m.from_tmp ? keys_tmp : keys_out, *dst = m.from_tmp ? keys_out : keys_tmp;
        __global value_t *vsrc = m.from_tmp ? values_tmp : values_out;
        __global value_t *vdst = (m.from_tmp ? values_out : values_tmp) + m.out_begin;
        /* An empty part has no splits written this pass. */
        const bool merges = m.out_end > m.out_begin;
        const ulong start = merges ? splits[2 * slot] : 0, stop = merges ? splits[2 * slot + 1] : 0;
        const ulong d = m.out_begin - m.a, end = m.out_end - m.a, a = m.a + start, b = m.mid + d - start;
        const ulong la = stop - start, lb = end - stop - (d - start);
        dst += m.out_begin;
#if WG == 1
        merge_runs(src + a, vsrc + a, la, src + b, vsrc + b, lb, dst, vdst, order);
#else
        merge_slices(src + a, vsrc + a, (uint)la, src + b, vsrc + b, (uint)lb, dst, vdst, words, splits_l, &bad,
                     order);
        barrier(CLK_LOCAL_MEM_FENCE); /* words is the next slot's */
#endif
    }
}
