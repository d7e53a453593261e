/* k-means colour quantization (Lloyd's iterations), on interleaved 8-bit images
 * of PIXEL_SIZE bytes a pixel (1, 3 or 4) clustered on DIMS values (1 or 3).
 * Pixel i (0 .. width * height - 1, row-major) starts at byte
 * offset + (i / width) * pitch + (i % width) * PIXEL_SIZE.
 *
 *   kmeans_assign  nearest centre per pixel, by squared distance to the float
 *                  centres in float, summed channel by channel in order without
 *                  fused multiply-add (the lowest index on a tie), and each
 *                  work-group's per-cluster sums and counts in local memory
 *                  (integer local atomics: exact, so the order does not matter);
 *   kmeans_fold    sums the work-groups' partials per (cluster, value), in ulong;
 *   kmeans_apply   every pixel replaced by its cluster's centre rounded to 8 bits.
 * Work-groups own contiguous chunks (the split of scan.cl); a chunk holds at
 * most 2^24 pixels so that its uint sums of 8-bit values cannot wrap.
 * Built with -DPIXEL_SIZE=p -DDIMS=d and no element type. */
#include "block/element.cl"

/* FP_CONTRACT OFF: the host's C reference computes the same distances with the
 * same roundings, so both pick the same centre for every pixel. */
#pragma OPENCL FP_CONTRACT OFF

#ifndef PIXEL_SIZE
#error "kmeans.cl needs -DPIXEL_SIZE (1, 3 or 4)"
#endif
#ifndef DIMS
#error "kmeans.cl needs -DDIMS (1 or 3)"
#endif

#define STRIDE (DIMS + 1) /* per cluster: the sums of its DIMS values, then its count */

/* Adds to a work-group's local sums: integer atomics (exact in any order), or a
 * plain add when the group is one work-item (the CPU shape). */
#if WG == 1
#define ACC_ADD(p, v) (*(p) += (v))
#else
#define ACC_ADD(p, v) atomic_add((p), (v))
#endif

/* centres: k entries of 4 floats (the centres, padded to 4). partials:
 * groups x k x STRIDE uint, group-major. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void kmeans_assign(__global const uchar *src, ulong src_offset, ulong pitch, uint width, uint n, ulong chunk,
                   __global const float *centres, ulong centres_offset, uint k, __global uchar *labels,
                   ulong labels_offset, __global uint *partials, ulong partials_offset)
{
    __local float cent[KMEANS_MAX_K * 4];
    __local uint acc[KMEANS_MAX_K * STRIDE];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0);
    const ulong begin = g * chunk;
    const ulong end = min((ulong)n, begin + chunk);

    for (uint j = lid; j < k * 4; j += WG)
        cent[j] = centres[centres_offset + j];
    for (uint j = lid; j < k * STRIDE; j += WG)
        acc[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    src += src_offset;
    labels += labels_offset;
    partials += partials_offset;
    for (ulong ii = begin + lid; ii < end; ii += WG) {
        const uint i = (uint)ii, y = i / width, x = i - y * width;
        __global const uchar *p = src + y * pitch + (ulong)x * PIXEL_SIZE;
        const uint c0 = p[0];
#if DIMS == 3
        const uint c1 = p[1], c2 = p[2];
#endif
        uint best = 0;
        float best_d = INFINITY;
        for (uint j = 0; j < k; j++) {
            const float e0 = (float)c0 - cent[4 * j];
            float d = e0 * e0;
#if DIMS == 3
            const float e1 = (float)c1 - cent[4 * j + 1], e2 = (float)c2 - cent[4 * j + 2];
            d = d + e1 * e1;
            d = d + e2 * e2;
#endif
            if (d < best_d) {
                best_d = d;
                best = j;
            }
        }
        labels[i] = (uchar)best;
        __local uint *a = acc + best * STRIDE;
        ACC_ADD(&a[0], c0);
#if DIMS == 3
        ACC_ADD(&a[1], c1);
        ACC_ADD(&a[2], c2);
#endif
        ACC_ADD(&a[DIMS], 1u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = lid; j < k * STRIDE; j += WG)
        partials[g * k * STRIDE + j] = acc[j];
}

/* sums[j] = the sum over the groups of partials[g * width + j]; one work-item
 * per entry, the groups in order. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void kmeans_fold(__global const uint *partials, ulong partials_offset, uint groups, uint width,
                 __global ulong *sums, ulong sums_offset)
{
    const uint j = get_global_id(0);
    if (j >= width)
        return;
    ulong total = 0;
    for (uint g = 0; g < groups; g++)
        total += partials[partials_offset + (ulong)g * width + j];
    sums[sums_offset + j] = total;
}

/* The rounding of the final palette: floor(c + 0.5f), clamped to 0..255. */
uchar round_level(float c)
{
    return convert_uchar_sat(floor(c + 0.5f));
}

/* dst pixel i := centres[labels[i]] rounded (grey: the one value); RGBA keeps
 * src's alpha. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void kmeans_apply(__global const uchar *src, ulong src_offset, ulong src_pitch, __global const uchar *labels,
                  ulong labels_offset, uint width, uint n, ulong chunk, __global const float *centres,
                  ulong centres_offset, __global uchar *dst, ulong dst_offset, ulong dst_pitch)
{
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min((ulong)n, begin + chunk);
    src += src_offset;
    dst += dst_offset;
    labels += labels_offset;
    centres += centres_offset;
    for (ulong ii = begin + get_local_id(0); ii < end; ii += WG) {
        const uint i = (uint)ii, y = i / width, x = i - y * width;
        __global const float *c = centres + 4 * (uint)labels[i];
        __global uchar *d = dst + y * dst_pitch + (ulong)x * PIXEL_SIZE;
#if PIXEL_SIZE == 4
        const uchar alpha = src[y * src_pitch + (ulong)x * 4 + 3];
#endif
        d[0] = round_level(c[0]);
#if DIMS == 3
        d[1] = round_level(c[1]);
        d[2] = round_level(c[2]);
#endif
#if PIXEL_SIZE == 4
        d[3] = alpha;
#endif
    }
}
