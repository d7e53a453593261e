/* An offsets array of segments (segment s is [offsets[s], offsets[s + 1])
 * of n elements), read as the segmented calls read it: each offset clamped to
 * n, and the search for where a position falls among them, by one work-item
 * or by a whole work-group. Offsets that decrease give some index, never a
 * read outside offsets[0, count). */
#ifndef CLPRIM_BLOCK_OFFSETS_CL
#define CLPRIM_BLOCK_OFFSETS_CL

#include "block/element.cl"

/* Offset k (k <= segments), clamped to the elements. */
inline ulong offset_at(__global const ulong *offsets, const ulong k, const ulong n)
{
    return min(offsets[k], n);
}

#if WG == 1
/* The first k in [0, count) whose offset is at least x, else count. */
ulong first_offset_from(__global const ulong *offsets, const ulong count, const ulong n, const ulong x)
{
    ulong lo = 0, hi = count;
    while (lo < hi) {
        const ulong mid = lo + (hi - lo) / 2;
        if (offset_at(offsets, mid, n) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
#else
/* The same for the whole work-group, WG probes a round: the range shrinks
 * WG-fold each round (three rounds for 2^20 segments at 256 work-items),
 * not halves. bounds: two slots, free again on return. */
ulong first_offset_from(__global const ulong *offsets, const ulong count, const ulong n, const ulong x,
                        __local ulong *bounds)
{
    const uint lid = get_local_id(0);
    ulong lo = 0, hi = count;
    while (lo < hi) {
        if (lid == 0) {
            bounds[0] = hi; /* no probe at least x: the answer is hi */
            bounds[1] = hi;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Bucket lid is [first, last]; the first bucket whose last offset is
         * at least x holds the answer, which is its last when none before is. */
        const ulong step = (hi - lo + WG - 1) / WG, first = lo + lid * step;
        if (first < hi) {
            const ulong last = min(hi, first + step) - 1;
            if (offset_at(offsets, last, n) >= x && (lid == 0 || offset_at(offsets, first - 1, n) < x)) {
                bounds[0] = first;
                bounds[1] = last;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        lo = bounds[0];
        hi = bounds[1];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return lo;
}
#endif

#endif /* CLPRIM_BLOCK_OFFSETS_CL */
