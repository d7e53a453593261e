/* Histograms with even bins over [lo, hi) (the exact rule is in include/clprim.h).
 *
 * histogram_local: each work-group counts its chunk into private counts in local
 * memory (local atomics), then adds each non-zero count to the global counts with
 * one atomic_add per bin per work-group (a "shared histogram"), or, to
 * overwrite them, settles its counts there through the context's tallies
 * (block/private_counts.cl). When
 * the bins do not fit in local memory, the host runs it once per window
 * [first_bin, first_bin + local_bins) of bins; elements outside the window are
 * skipped. histogram_global is the fallback for many windows: one global
 * atomic_inc per counted element. Counts are integers, so every schedule gives
 * the same result.
 *
 * Arguments shared by both kernels, prepared by the host (src/algorithms/histogram.c):
 *   float/double: lo, hi: the bounds in the element type, counted iff lo <= x < hi;
 *                 scale = bins / (hi - lo) in the element type.
 *   integers:     lo, hi: the first and last counted values (clamped to the type),
 *                 counted iff lo <= x <= hi; lo_bits: the true lower bound modulo
 *                 2^64; range: hi - lo of the true bounds; divide: how the bin
 *                 (x - lo) * bins / range is computed, each way giving the same bin
 *                 (cl/constants.h): HIST_DIVIDE_64: in 64 bits; HIST_DIVIDE_32: in 32
 *                 bits (range * bins < 2^32); HIST_DIVIDE_SHIFT + s: as (x - lo) >> s,
 *                 when range / bins is exactly 2^s. */
#include "block/fill.cl" /* fill_words: the counts cleared where they do not settle, and the tallies */
#include "block/private_counts.cl"

#ifndef TYPE
#error "histogram.cl needs an element type: -DTYPE=UINT8, FLOAT, ... (cl/types.h)"
#endif

#pragma OPENCL FP_CONTRACT OFF

/* Elements per work-item per step, whatever the tuning's ITEMS (the histogram
 * keeps no tile): on an H100 at 2^28 int32, 256 bins, 1056 groups of 256, a step
 * of 4 took 0.52 ms where the tuning's 8 took 0.88 and 16 took 1.29. */
#ifndef HIST_UNROLL
#define HIST_UNROLL 4
#endif
#define HIST_STEP (WG * HIST_UNROLL)

uint bin_of(const T x, const T lo, const T hi, const T scale, const ulong lo_bits, const ulong range,
            const uint bins, const int divide)
{
#ifdef T_IS_FLOAT
    if (!(x >= lo && x < hi)) /* NaN fails both */
        return NOT_COUNTED;
    const T scaled = (x - lo) * scale; /* >= 0 and about bins at most: (uint) is defined */
    return min((uint)scaled, bins - 1);
#else
    if (x < lo || x > hi)
        return NOT_COUNTED;
    const ulong d = (ulong)x - lo_bits; /* x - lo exactly: 0 <= d < range < 2^64 */
    if (divide >= HIST_DIVIDE_SHIFT)
        return (uint)(d >> (divide - HIST_DIVIDE_SHIFT));
    if (divide == HIST_DIVIDE_32)
        return (uint)d * bins / (uint)range;
    return (uint)(d * bins / range);
#endif
}

/* The usual call's bin in a few instructions and no branch, for the CPU shape:
 * bin_of's bin for an element in range, else bins (the spare slot). Floats,
 * and integers whose bins are 2^s values wide (divide >= HIST_DIVIDE_SHIFT). */
#ifdef T_IS_FLOAT
#define HAS_SHORT_BIN(divide) 1
#else
#define HAS_SHORT_BIN(divide) ((divide) >= HIST_DIVIDE_SHIFT)
#endif
uint short_bin(const T x, const T lo, const T hi, const T scale, const ulong lo_bits, const ulong range,
               const uint bins, const int divide)
{
#ifdef T_IS_FLOAT
    const uint b = min((uint)((x - lo) * scale), bins - 1); /* taken only when x is in range */
    return ((x >= lo) & (x < hi)) ? b : bins;               /* NaN fails both */
#elif CLPRIM_FIELD(TYPE, BYTES) <= 4
    /* One test where two were (1.6x faster on one core). Below lo, x - lo
     * wraps to 2^64 - (lo - x): lo - x is below 2^33 for elements of 32 bits
     * or fewer, and range = bins * 2^s on this path is at most 2^64 - 2^33. */
    const ulong d = (ulong)x - lo_bits;
    return d < range ? (uint)(d >> (divide - HIST_DIVIDE_SHIFT)) : bins;
#else
    const uint b = (uint)(((ulong)x - lo_bits) >> (divide - HIST_DIVIDE_SHIFT));
    return ((x >= lo) & (x <= hi)) ? b : bins;
#endif
}

/* Work-group g counts src[stride * i] for i in [g * chunk, min(n, (g + 1) * chunk))
 * whose bin lies in [first_bin, first_bin + local_bins), then merges or
 * settles (finish_counts) its counts. h: local_bins + 1 counters (the last
 * one a spare for the CPU shape). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_local(__global const T *src, ulong src_offset, ulong stride, ulong n, ulong chunk, T lo, T hi,
                     T scale, ulong lo_bits, ulong range, uint bins, int divide, __global uint *counts,
                     ulong counts_offset, uint first_bin, uint local_bins, __local uint *h, __global ulong *tallies,
                     int settle)
{
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    clear_counts(h, local_bins + 1);
    barrier(CLK_LOCAL_MEM_FENCE);

#if WG == 1
    /* The CPU shape: one work-item owns the group's counts, and no branch: an
     * element outside the window counts in the spare slot h[local_bins],
     * which is never merged. */
#if !defined(T_IS_FLOAT) && CLPRIM_FIELD(TYPE, BYTES) <= 4
    /* Bins one value wide from 0 (bytes, labels: lo_bits 0 and no shift make
     * lo 0, as the host launches only windows that meet the type): the value
     * is its bin, and (uint)x is bins or more outside [0, bins), a negative x
     * of 32 bits or fewer converting to 2^31 or more (bins <= 2^31). One
     * minimum an element where short_bin takes four operations: 2^24 int32 on
     * one core 7.9 to 5.2 ms. Eight a step, unrolled, so that the loop's own
     * test comes once in eight: 2^24 int32 on two cores 5.5-7.3 to 4.5-5.0 ms. */
    if (stride == 1 && first_bin == 0 && local_bins == bins && lo_bits == 0 && divide == HIST_DIVIDE_SHIFT) {
        ulong i = begin;
        for (; i + 8 <= end; i += 8)
#pragma unroll
            for (uint k = 0; k < 8; k++)
                h[min((uint)src[i + k], bins)]++;
        for (; i < end; i++)
            h[min((uint)src[i], bins)]++;
    } else
#endif
    if (stride == 1 && first_bin == 0 && local_bins == bins && HAS_SHORT_BIN(divide)) {
        /* Sixteen bins computed together, then counted: the bins' arithmetic
         * vectorizes, the counts cannot (2^24 floats on one core, 38 to 29 ms).
         * Floats in vector types, which every compiler keeps in vectors (PoCL
         * 5.0 compiled the integers' form below as a scalar loop: 2^24 floats
         * on 16 cores, 3.1-3.6 to 2.3-2.4 ms), of 32 bytes (BIN_LANES): at 64,
         * the built-ins take 512-bit arguments, and without AVX-512 the
         * compiler warns at every build that their calling convention changes. */
        ulong i = begin;
#ifdef T_IS_FLOAT
#if CLPRIM_FIELD(TYPE, BYTES) == 8
#define BIN_LANES 4
#else
#define BIN_LANES 8
#endif
#define LANES_OF(type) CLPRIM_CAT(type, BIN_LANES)
        for (; i + 16 <= end; i += 16) {
            uint at[16];
#pragma unroll
            for (uint part = 0; part < 16; part += BIN_LANES) {
                const LANES_OF(T) x = LANES_OF(vload)(0, src + i + part);
                const LANES_OF(uint) b = min(LANES_OF(convert_uint)((x - lo) * scale), (LANES_OF(uint))(bins - 1));
                const LANES_OF(uint) inside = LANES_OF(convert_uint)((x >= lo) & (x < hi)); /* NaN fails both */
                LANES_OF(vstore)(select((LANES_OF(uint))bins, b, inside), 0, at + part);
            }
            for (uint k = 0; k < 16; k++)
                h[at[k]]++;
        }
#undef LANES_OF
#undef BIN_LANES
#else
        for (; i + 16 <= end; i += 16) {
            uint b[16];
            for (uint k = 0; k < 16; k++)
                b[k] = short_bin(src[i + k], lo, hi, scale, lo_bits, range, bins, divide);
            for (uint k = 0; k < 16; k++)
                h[b[k]]++;
        }
#endif
        for (; i < end; i++)
            h[short_bin(src[i], lo, hi, scale, lo_bits, range, bins, divide)]++;
    } else {
        for (ulong i = begin; i < end; i++)
            h[min(bin_of(src[i * stride], lo, hi, scale, lo_bits, range, bins, divide) - first_bin, local_bins)]++;
    }
#else
    for (ulong base = begin; base < end; base += HIST_STEP) {
        for (uint k = 0; k < HIST_UNROLL; k++) {
            const ulong i = base + k * WG + lid;
            if (i < end) {
                const uint b = bin_of(src[i * stride], lo, hi, scale, lo_bits, range, bins, divide) - first_bin;
                if (b < local_bins) /* NOT_COUNTED - first_bin is >= 2^31 >= local_bins */
                    COUNT_IN(h, b);
            }
        }
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    finish_counts(h, local_bins, counts + counts_offset + first_bin, tallies, settle);
}

/* The same count with one global atomic per counted element. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_global(__global const T *src, ulong src_offset, ulong stride, ulong n, ulong chunk, T lo, T hi,
                      T scale, ulong lo_bits, ulong range, uint bins, int divide, __global uint *counts,
                      ulong counts_offset)
{
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    counts += counts_offset;
    for (ulong base = begin; base < end; base += HIST_STEP) {
        for (uint k = 0; k < HIST_UNROLL; k++) {
            const ulong i = base + k * WG + lid;
            if (i < end) {
                const uint b = bin_of(src[i * stride], lo, hi, scale, lo_bits, range, bins, divide);
                if (b != NOT_COUNTED)
                    atomic_inc(&counts[b]);
            }
        }
    }
}

#if CLPRIM_FIELD(TYPE, BYTES) == 1
/* Even bins per channel of RGBA8 pixels (clprim_histogram_channels), all
 * channels in one pass: channel c's bins are bin_of's over its own lo.c,
 * hi.c, lo_bits.c, range.c, bins.c and divide.c (at most CHANNEL_LEVELS
 * bins), its counts go to counts_c from counts_offset.c. Work-group g
 * counts pixels [g * chunk, min(n, (g + 1) * chunk)). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_channels(__global const uchar4 *pixels, ulong pixels_offset, ulong n, ulong chunk, uint channels,
                        uchar4 lo, uchar4 hi, ulong4 lo_bits, ulong4 range, uint4 bins, int4 divide,
                        __global uint *counts0, __global uint *counts1, __global uint *counts2,
                        __global uint *counts3, ulong4 counts_offset, __global ulong *tallies, int settle)
{
    __local ushort lut[4 * CHANNEL_LEVELS];
    __local uint raw[4 * CHANNEL_LEVELS], h[4 * CHANNEL_SLOTS];
    const ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);
    for (uint c = 0; c < 4; c++)
        for (uint x = get_local_id(0); x < CHANNEL_LEVELS; x += WG) {
            const uint b = c < channels ? bin_of((uchar)x, CHANNEL_OF(lo, c), CHANNEL_OF(hi, c), 0,
                                                 CHANNEL_OF(lo_bits, c), CHANNEL_OF(range, c), CHANNEL_OF(bins, c),
                                                 CHANNEL_OF(divide, c))
                                        : NOT_COUNTED;
            lut[c * CHANNEL_LEVELS + x] = lut_entry(b, CHANNEL_OF(bins, c));
        }
    count_channels(pixels + pixels_offset, begin, end, channels, bins, lut, raw, h, counts0, counts1, counts2, counts3,
                   counts_offset, tallies, settle);
}
#endif
