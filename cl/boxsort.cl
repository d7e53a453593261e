/* The box sort's own steps (the sort itself is radix_sort.cl): each particle's
 * box id, per-box counts from the sorted ids, and the gather of positions.
 * Every kernel runs on the multi-work-group split: work-group g owns elements
 * [g * chunk, min(n, (g + 1) * chunk)), read with neighbouring work-items on
 * neighbouring elements. Built with no element type (no -DTYPE). */
#include "block/fill.cl" /* fill_words: the counts start at zero */

/* FP_CONTRACT OFF: the host computes the same ids with the same roundings. */
#pragma OPENCL FP_CONTRACT OFF

/* One axis: floor((p - origin) * inv) clamped to [0, dim - 1]; NaN gives 0. */
uint box_axis(float p, float origin, float inv, uint dim)
{
    const float f = (p - origin) * inv;
    if (!(f >= 0.0f))
        return 0;
    if (f >= (float)dim)
        return dim - 1;
    return min((uint)f, dim - 1);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void box_ids(__global const float *pos, ulong pos_offset, ulong n, ulong chunk, float4 origin, float4 inv,
             uint4 dims, __global uint *ids, ulong ids_offset)
{
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    pos += pos_offset * 3;
    ids += ids_offset;
    for (ulong i = begin + get_local_id(0); i < end; i += WG) {
        const uint ix = box_axis(pos[3 * i + 0], origin.x, inv.x, dims.x);
        const uint iy = box_axis(pos[3 * i + 1], origin.y, inv.y, dims.y);
        const uint iz = box_axis(pos[3 * i + 2], origin.z, inv.z, dims.z);
        ids[i] = (iz * dims.y + iy) * dims.x + ix;
    }
}

/* Counts from sorted ids, in two launches (the launch boundary orders them; each
 * box is written by at most one work-item per launch, so no atomics):
 * box_run_ends sets counts[id] = one past the last position of id's run,
 * box_run_starts subtracts the first position. Boxes without particles keep the
 * zero the host filled in. Both walk the runs of this work-group's chunk here:
 * ends 1 at the last element of each run, 0 at the first. */
void box_run_edges(__global const uint *ids, ulong n, ulong chunk, __global uint *counts, int ends)
{
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    for (ulong i = begin + get_local_id(0); i < end; i += WG) {
        const uint id = ids[i];
        if (ends) {
            if (i + 1 == n || ids[i + 1] != id)
                counts[id] = (uint)(i + 1);
        } else if (i == 0 || ids[i - 1] != id) {
            counts[id] -= (uint)i;
        }
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void box_run_ends(__global const uint *ids, ulong ids_offset, ulong n, ulong chunk,
                  __global uint *counts, ulong counts_offset)
{
    box_run_edges(ids + ids_offset, n, chunk, counts + counts_offset, 1);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void box_run_starts(__global const uint *ids, ulong ids_offset, ulong n, ulong chunk,
                    __global uint *counts, ulong counts_offset)
{
    box_run_edges(ids + ids_offset, n, chunk, counts + counts_offset, 0);
}

/* sorted[j] = pos[order[j]], three floats each. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void box_gather(__global const float *pos, ulong pos_offset, __global const uint *order, ulong order_offset,
                ulong n, ulong chunk, __global float *sorted, ulong sorted_offset)
{
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    pos += pos_offset * 3;
    order += order_offset;
    sorted += sorted_offset * 3;
    for (ulong j = begin + get_local_id(0); j < end; j += WG) {
        const ulong i = order[j];
        sorted[3 * j + 0] = pos[3 * i + 0];
        sorted[3 * j + 1] = pos[3 * i + 1];
        sorted[3 * j + 2] = pos[3 * i + 2];
    }
}
