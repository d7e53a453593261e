/* The smallest (ARG_MIN) or largest (ARG_MAX) element and the index of its
 * first occurrence: each work-group folds its chunk into one (value, index)
 * pair, then one work-group folds the pairs (src/algorithms/reduce_index.c),
 * by block/arg.cl's rule, so NaN is the answer only when every element is NaN
 * (then at index 0 of the range). */
#include "block/arg.cl" /* the rule */

/* Folds (b, ib) into (*a, *ia). */
void take(T *a, ulong *ia, const T b, const ulong ib)
{
    if (arg_wins(b, ib, *a, *ia)) {
        *a = b;
        *ia = ib;
    }
}

/* Work-group g folds elements [g * chunk, min(n, (g + 1) * chunk)) of src into
 * (values[values_offset + g], indices[indices_offset + g]). An element's index is its position counted from
 * src_offset, or, with in_indices (the second pass, over the first's pairs),
 * in_indices[i]. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_index_chunks(__global const T *src, ulong src_offset, __global const ulong *in_indices,
                         ulong in_indices_offset, int with_indices, ulong n, ulong chunk, __global T *values,
                         ulong values_offset, __global ulong *indices, ulong indices_offset)
{
    __local T vbuf[WG];
    __local ulong ibuf[WG];
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);
    src += src_offset;
    in_indices += in_indices_offset;
    /* Every work-item of a group has at least its first element: a chunk is
     * whole tiles, and the last group's chunk is not empty. Work-items past
     * the end start from the chunk's first element, which changes nothing. */
    ulong first = begin + lid < end ? begin + lid : begin;
    T best;
    ulong at;
#if WG == 1
    if (!with_indices) {
        arg_fold_run(src, begin, end, &best, &at);
    } else
#endif
    {
        best = src[first];
        at = with_indices ? in_indices[first] : first;
        for (ulong i = first + WG; i < end; i += WG)
            take(&best, &at, src[i], with_indices ? in_indices[i] : i);
    }
    vbuf[lid] = best;
    ibuf[lid] = at;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = WG / 2; width > 0; width >>= 1) {
        if (lid < width) {
            T v = vbuf[lid];
            ulong iv = ibuf[lid];
            take(&v, &iv, vbuf[lid + width], ibuf[lid + width]);
            vbuf[lid] = v;
            ibuf[lid] = iv;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        values[values_offset + get_group_id(0)] = vbuf[0];
        indices[indices_offset + get_group_id(0)] = ibuf[0];
    }
}
