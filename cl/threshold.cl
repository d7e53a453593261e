/* Image thresholds and histograms (src/apps/threshold.c drives them).
 *
 * Images are plain buffers: interleaved 8-bit pixels addressed in bytes
 * (offset + y * pitch + x * bpp), or planar float RGB (three planes of n
 * floats). Pixel formats and modes are kernel arguments, not -D options: every
 * kernel here is in one program, built once per context.
 *
 * Work split: the n = width * height pixels, in row-major order, are cut into
 * contiguous chunks as the scan cuts its input (clprim_split_range: a whole
 * number of tiles each). Inside its chunk a work-group visits the pixels
 *   on GPUs:  p = begin + lid + i * WG    (neighbouring work-items read
 *             neighbouring pixels: coalesced),
 *   on CPUs:  p = begin + lid * run + i   (each work-item streams its own run:
 *             PoCL runs the work-items of a group one after the other, so a
 *             strided walk would refetch every cache line WG times).
 * Each work-item divides p by the width once; after that it steps its (x, y)
 * by the division of the step, with one compare and no division per pixel. */
#include "block/element.cl"

/* The red-ratio test must give the same bits as a C loop: no fused multiply-add. */
#pragma OPENCL FP_CONTRACT OFF

/* MODE_*, CHANNEL_* and CHANNEL_LEVELS (the most bins) are in constants.h. */
#define MAX_SLOTS (4 * CHANNEL_LEVELS) /* ALL on RGBA8: four histograms */

/* ---- The walk over a chunk ---- */

/* Pixel indices and byte offsets: 32-bit when the host says everything fits
 * (-DINDEX32: n and every byte an image reaches below 2^31), which is most images
 * and most of the speed on GPUs (64-bit integer multiplies are emulated there);
 * 64-bit otherwise. */
#ifdef INDEX32
typedef uint idx_t;
#else
typedef ulong idx_t;
#endif

typedef struct {
    idx_t p, end, left; /* pixel index, end of the chunk, pixels left to visit */
    idx_t x, y;         /* coordinates of p */
    idx_t step, sx, sy; /* p's step and its split into columns and rows */
    idx_t width;
} pixel_walk;

pixel_walk walk_begin(ulong n, ulong chunk, ulong width)
{
    const ulong begin = get_group_id(0) * chunk;
    const ulong run = chunk / WG; /* chunk is a whole number of tiles of WG * ITEMS */
    const ulong end = min(n, begin + chunk);
#ifdef DEVICE_CPU
    const ulong first = begin + get_local_id(0) * run, step = 1;
#else
    const ulong first = begin + get_local_id(0), step = WG;
#endif
    pixel_walk w;
    w.p = (idx_t)min(first, end); /* at most n: fits idx_t */
    w.end = (idx_t)end;
    w.left = (idx_t)run;
    w.step = (idx_t)step;
    w.width = (idx_t)width;
    w.y = w.p / w.width;
    w.x = w.p - w.y * w.width;
    w.sy = w.step / w.width;
    w.sx = w.step - w.sy * w.width;
    return w;
}

int walk_more(const pixel_walk *w)
{
    return w->left > 0 && w->p < w->end;
}

void walk_next(pixel_walk *w)
{
    w->left--;
    w->p += w->step;
    w->x += w->sx;
    w->y += w->sy;
    if (w->x >= w->width) {
        w->x -= w->width;
        w->y++;
    }
}

/* ---- The red ratio ---- */

/* r / sqrt(r^2 + g^2 + b^2) > ratio, without division or square root, each
 * operation rounded to float in this order (include/clprim.h documents it). */
int red_selected(float r, float g, float b, float ratio2)
{
    const float rr = r * r;
    const float gg = g * g;
    const float bb = b * b;
    const float sum = (rr + gg) + bb;
    const float bound = ratio2 * sum;
    return r > 0.0f && rr > bound;
}

/* Interleaved RGB8 (bpp 3) or RGBA8 (bpp 4). Alpha is copied in every mode. In
 * place when src and dst are the same bytes: each pixel is read before it is
 * written, by the same work-item. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void threshold_red_interleaved(__global const uchar *src, ulong src_offset, ulong src_pitch,
                               __global uchar *dst, ulong dst_offset, ulong dst_pitch,
                               ulong width, ulong n, ulong chunk, uint bpp, float ratio2, int mode)
{
    const int recolour = mode != MODE_KEEP, blacken = mode != MODE_REINSERT;
    const idx_t so = (idx_t)src_offset, sp = (idx_t)src_pitch, dof = (idx_t)dst_offset, dp = (idx_t)dst_pitch;
    if (bpp == 4) { /* one 4-byte load and store a pixel (vload4 needs only byte alignment) */
        for (pixel_walk w = walk_begin(n, chunk, width); walk_more(&w); walk_next(&w)) {
            const uchar4 p = vload4(0, src + (so + w.y * sp + w.x * 4));
            const int selected = red_selected((float)p.x, (float)p.y, (float)p.z, ratio2);
            const uchar keep = selected || !blacken ? 0xFF : 0; /* the pixel stays, or turns black */
            const uchar g = selected && recolour ? p.x : p.y;
            vstore4((uchar4)(p.x & keep, g & keep, p.z & keep, p.w), 0, dst + (dof + w.y * dp + w.x * 4));
        }
        return;
    }
    for (pixel_walk w = walk_begin(n, chunk, width); walk_more(&w); walk_next(&w)) {
        __global const uchar *s = src + (so + w.y * sp + w.x * 3);
        __global uchar *d = dst + (dof + w.y * dp + w.x * 3);
        const uchar r = s[0], g = s[1], b = s[2];
        const int selected = red_selected((float)r, (float)g, (float)b, ratio2);
        const uchar keep = selected || !blacken ? 0xFF : 0;
        d[0] = r & keep;
        d[1] = (selected && recolour ? r : g) & keep;
        d[2] = b & keep;
    }
}

/* Planar float: plane c of an image starts n floats after plane c - 1. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void threshold_red_planar(__global const float *src, ulong src_offset, __global float *dst,
                          ulong dst_offset, ulong n, ulong chunk, float ratio2, int mode)
{
    src += src_offset;
    dst += dst_offset;
    /* The width plays no part: the planes are visited as one row of n pixels. */
    for (pixel_walk w = walk_begin(n, chunk, n); walk_more(&w); walk_next(&w)) {
        const idx_t p = w.p;
        const float r = src[p], g = src[n + p], b = src[2 * n + p];
        float out_r = r, out_g = g, out_b = b;
        if (red_selected(r, g, b, ratio2)) {
            if (mode != MODE_KEEP)
                out_g = r;
        } else if (mode != MODE_REINSERT) {
            out_r = out_g = out_b = 0.0f;
        }
        dst[p] = out_r;
        dst[n + p] = out_g;
        dst[2 * n + p] = out_b;
    }
}

/* ---- Grey levels ---- */

/* floor((r + g + b) / 3) of a pixel, or the byte of a GREY8 pixel. */
uint grey_level(__global const uchar *s, uint bpp)
{
    return bpp == 1 ? (uint)s[0] : ((uint)s[0] + (uint)s[1] + (uint)s[2]) / 3u;
}

/* Foreground (grey level > level) is 255 in every colour channel, the rest 0.
 * An RGBA8 dst takes its alpha from an RGBA8 src, else 255. The level comes from
 * levels[level_offset] when use_buffer (clprim_otsu wrote it there), else from
 * `level`; src is never read past its image. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void threshold_grey(__global const uchar *src, ulong src_offset, ulong src_pitch, uint src_bpp,
                    __global uchar *dst, ulong dst_offset, ulong dst_pitch, uint dst_bpp,
                    ulong width, ulong n, ulong chunk, __global const uint *levels, ulong level_offset,
                    uint level, int use_buffer)
{
    const uint cut = use_buffer ? levels[level_offset] : level;
    const idx_t so = (idx_t)src_offset, sp = (idx_t)src_pitch, dof = (idx_t)dst_offset, dp = (idx_t)dst_pitch;
    for (pixel_walk w = walk_begin(n, chunk, width); walk_more(&w); walk_next(&w)) {
        __global const uchar *s = src + (so + w.y * sp + w.x * src_bpp);
        __global uchar *d = dst + (dof + w.y * dp + w.x * dst_bpp);
        const uchar a = src_bpp == 4 ? s[3] : 255;
        const uchar v = grey_level(s, src_bpp) > cut ? 255 : 0;
        d[0] = v;
        if (dst_bpp >= 3) {
            d[1] = v;
            d[2] = v;
        }
        if (dst_bpp == 4)
            d[3] = a;
    }
}

/* ---- Histograms ---- */

/* One work-item a group (what PoCL's CPU table picks) needs no atomics: a
 * local atomic is a locked instruction on a CPU, three times slower than the
 * whole one-thread C loop. */
#if WG == 1
#define COUNT(slot) (counts[slot]++)
#else
#define COUNT(slot) atomic_inc(&counts[slot])
#endif

/* Work-group g counts its chunk in local memory and writes its `slots` counts to
 * partials[g * slots ..]; histogram_merge adds the partials up. No global
 * atomics, and integer sums: the same counts on every device and run.
 * channel: CHANNEL_*; nch histograms of `bins` bins each (slots = nch * bins). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_image(__global const uchar *src, ulong src_offset, ulong src_pitch, uint bpp,
                     ulong width, ulong n, ulong chunk, int channel, uint bins,
                     __global uint *partials)
{
    __local uint counts[MAX_SLOTS];
    const uint lid = get_local_id(0);
    const uint nch = channel == CHANNEL_ALL ? bpp : 1;
    const uint slots = nch * bins;
    for (uint i = lid; i < slots; i += WG)
        counts[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    const idx_t so = (idx_t)src_offset, sp = (idx_t)src_pitch;
    for (pixel_walk w = walk_begin(n, chunk, width); walk_more(&w); walk_next(&w)) {
        __global const uchar *s = src + (so + w.y * sp + w.x * bpp);
        if (channel == CHANNEL_ALL) {
            for (uint c = 0; c < nch; c++)
                COUNT(c * bins + (uint)s[c] * bins / CHANNEL_LEVELS);
        } else {
            const uint v = channel == CHANNEL_GREY ? grey_level(s, bpp) : (uint)s[channel];
            COUNT(v * bins / CHANNEL_LEVELS);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    __global uint *mine = partials + get_group_id(0) * (ulong)slots;
    for (uint i = lid; i < slots; i += WG)
        mine[i] = counts[i];
}

/* hist[hist_offset + i] = the sum over the groups of partials[g * slots + i],
 * one work-item per slot. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_merge(__global const uint *partials, uint groups, uint slots, __global uint *hist,
                     ulong hist_offset)
{
    const uint i = get_global_id(0);
    if (i >= slots)
        return;
    uint sum = 0;
    for (uint g = 0; g < groups; g++)
        sum += partials[(ulong)g * slots + i];
    hist[hist_offset + i] = sum;
}

/* ---- Otsu's level ---- */

/* One work-group. Work-items fill the class weights and sums of every split
 * (exact, in 64-bit integers), then turn them into the between-class variance
 * num[t] / den[t] in float; work-item 0 picks the largest by cross-multiplying,
 * t ascending, keeping the first on ties: the same comparisons in the same order
 * as the C reference (tests/reference_image.c), hence the same level.
 *
 * With W = count and S = sum of levels of bins 0..t, T and M the same over all
 * bins, and every count scaled by 2^-k (k = bits of T; exact) so nothing
 * overflows a float:
 *   w0 = W, w1 = T - W, s0 = S, s1 = M - S      (each rounded to float, scaled)
 *   d = s0 * w1 - s1 * w0                         (= w0 w1 (mu0 - mu1))
 *   num = d * d, den = w0 * w1                    (num / den ~ the variance)
 * Bin centres need not be levels: the bin index serves, the variance being
 * invariant to an affine map of the values. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void otsu_level(__global const uint *hist, ulong hist_offset, uint bins, __global uint *level,
                ulong level_offset)
{
    __local uint h[CHANNEL_LEVELS];
    __local float num[CHANNEL_LEVELS];
    __local float den[CHANNEL_LEVELS];
    __local int valid[CHANNEL_LEVELS];
    const uint lid = get_local_id(0);
    for (uint i = lid; i < bins; i += WG)
        h[i] = hist[hist_offset + i];
    barrier(CLK_LOCAL_MEM_FENCE);

    ulong total = 0, moment = 0;
    for (uint i = 0; i < bins; i++) {
        total += h[i];
        moment += (ulong)i * h[i];
    }
    const uint k = total ? 64u - (uint)clz(total) : 0u;
    const float scale = as_float((uint)(127 - (int)k) << 23); /* 2^-k */

    for (uint t = lid; t < bins; t += WG) {
        ulong W = 0, S = 0;
        for (uint i = 0; i <= t; i++) {
            W += h[i];
            S += (ulong)i * h[i];
        }
        valid[t] = W != 0 && W != total;
        const float w0 = (float)W * scale;
        const float w1 = (float)(total - W) * scale;
        const float s0 = (float)S * scale;
        const float s1 = (float)(moment - S) * scale;
        const float a = s0 * w1;
        const float b = s1 * w0;
        const float d = a - b;
        num[t] = d * d;
        den[t] = w0 * w1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0) {
        int best = -1;
        for (uint t = 0; t < bins; t++) {
            if (!valid[t])
                continue;
            if (best < 0) {
                best = (int)t;
                continue;
            }
            const float mine = num[t] * den[best];
            const float theirs = num[best] * den[t];
            if (mine > theirs)
                best = (int)t;
        }
        if (best < 0) { /* no split: the highest non-empty bin, or the last */
            best = (int)bins - 1;
            while (best > 0 && h[best] == 0)
                best--;
            if (total == 0)
                best = (int)bins - 1;
        }
        level[level_offset] = ((uint)(best + 1) * CHANNEL_LEVELS - 1u) / bins;
    }
}
