/* Histograms over the caller's bin edges (the rule is in include/clprim.h):
 * element x goes to the largest b with edges[b] <= x, counted when
 * edges[0] <= x < edges[bins] (NaN fails both).
 *
 * The bin is a binary search that only ever reads edges[0 .. bins], whatever
 * the edges hold: with edges not strictly ascending the counts are unspecified
 * but still the same on every run, and nothing is read or written out of
 * bounds (every counted element lands in [0, bins)).
 *
 * histogram_range_local: each work-group copies the edges to local memory and
 * counts its chunk into private counts there (local atomics; the CPU shape
 * WG == 1 a plain loop), then adds each non-zero count to the global counts
 * with one atomic_add per bin per work-group, or settles its counts there
 * (block/private_counts.cl). histogram_range_global, for
 * edges and counts that do not fit in local memory: the edges read from global
 * memory and one global atomic_inc per counted element. Counts are integers,
 * so every schedule gives the same result. */
#include "block/fill.cl" /* fill_words: the counts cleared where they do not settle, and the tallies */
#include "block/private_counts.cl"

#ifndef TYPE
#error "histogram_range.cl needs an element type: -DTYPE=UINT8, FLOAT, ... (cl/types.h)"
#endif

/* The bin of x over edges e[0 .. bins] (of type E: T, or int for pixels'
 * channels), or NOT_COUNTED. The search narrows [base, base + len) to the
 * last edge not above x without a branch on the data (a select a step, a
 * fixed ceil(log2(bins)) steps), so searches of neighbouring elements
 * overlap and none is mispredicted; it reads only e[1 .. bins - 1] and
 * ends for any edge values. */
#define IN_EDGES(e, bins, x) (((x) >= (e)[0]) & ((x) < (e)[bins])) /* NaN fails the first */
#define SEARCH_STEP(e, base, step, x) ((e)[(base) + (step)] <= (x) ? (base) + (step) : (base))
#define DEFINE_BIN_OF(name, space, E)                                              \
    uint name(const T x, space const E *e, const uint bins)                        \
    {                                                                              \
        if (!IN_EDGES(e, bins, x))                                                 \
            return NOT_COUNTED;                                                    \
        uint base = 0;                                                             \
        for (uint len = bins; len > 1; len -= len / 2)                             \
            base = SEARCH_STEP(e, base, len / 2, x);                               \
        return base;                                                               \
    }
DEFINE_BIN_OF(bin_of_local, __local, T)
DEFINE_BIN_OF(bin_of_global, __global, T)

/* Work-group g counts src[i] for i in [g * chunk, min(n, (g + 1) * chunk)).
 * le: bins + 1 edges; h: bins + 1 counters (the last one a spare for the CPU
 * shape, never merged). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_range_local(__global const T *src, ulong src_offset, ulong n, ulong chunk, __global const T *edges,
                           ulong edges_offset, uint bins, __global uint *counts, ulong counts_offset,
                           __local T *le, __local uint *h, __global ulong *tallies, int settle)
{
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    edges += edges_offset;
    for (uint j = lid; j <= bins; j += WG)
        le[j] = edges[j];
    clear_counts(h, bins + 1);
    barrier(CLK_LOCAL_MEM_FENCE);

#if WG == 1
    /* The CPU shape: one work-item owns the group's counts; an element not
     * counted goes to the spare slot h[bins]. Sixteen searches go step by
     * step together (bin_of_local's, lane by lane), so that a step is one
     * vector gather and compare: 6 times faster on PoCL than one by one. */
    ulong i = begin;
    for (; i + 16 <= end; i += 16) {
        T x[16];
        uint b[16];
        for (uint k = 0; k < 16; k++) {
            x[k] = src[i + k];
            b[k] = 0;
        }
        for (uint len = bins; len > 1; len -= len / 2)
            for (uint k = 0; k < 16; k++)
                b[k] = SEARCH_STEP(le, b[k], len / 2, x[k]);
        for (uint k = 0; k < 16; k++)
            h[IN_EDGES(le, bins, x[k]) ? b[k] : bins]++;
    }
    for (; i < end; i++)
        h[min(bin_of_local(src[i], le, bins), bins)]++;
#else
    for (ulong i = begin + lid; i < end; i += WG) {
        const uint b = bin_of_local(src[i], le, bins);
        if (b != NOT_COUNTED)
            COUNT_IN(h, b);
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    finish_counts(h, bins, counts + counts_offset, tallies, settle);
}

/* The same count with the edges in global memory and one global atomic per
 * counted element. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_range_global(__global const T *src, ulong src_offset, ulong n, ulong chunk, __global const T *edges,
                            ulong edges_offset, uint bins, __global uint *counts, ulong counts_offset)
{
    const uint lid = get_local_id(0);
    const ulong begin = get_group_id(0) * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    edges += edges_offset;
    counts += counts_offset;
    for (ulong i = begin + lid; i < end; i += WG) {
        const uint b = bin_of_global(src[i], edges, bins);
        if (b != NOT_COUNTED)
            atomic_inc(&counts[b]);
    }
}

#if CLPRIM_FIELD(TYPE, BYTES) == 1
/* Bins between edges per channel of RGBA8 pixels
 * (clprim_histogram_channels_range), all channels in one pass: channel c's
 * bins.c + 1 int edges (at most CHANNEL_LEVELS + 1) from edges_c at
 * edges_offset.c give each sample value's bin by bin_of's search, its
 * counts go to counts_c from counts_offset.c. Work-group g counts pixels
 * [g * chunk, min(n, (g + 1) * chunk)). */
DEFINE_BIN_OF(bin_of_levels, __global, int)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_range_channels(__global const uchar4 *pixels, ulong pixels_offset, ulong n, ulong chunk,
                              uint channels, __global const int *edges0, __global const int *edges1,
                              __global const int *edges2, __global const int *edges3, ulong4 edges_offset,
                              uint4 bins, __global uint *counts0, __global uint *counts1, __global uint *counts2,
                              __global uint *counts3, ulong4 counts_offset, __global ulong *tallies, int settle)
{
    __local ushort lut[4 * CHANNEL_LEVELS];
    __local uint raw[4 * CHANNEL_LEVELS], h[4 * CHANNEL_SLOTS];
    const ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);
    for (uint c = 0; c < 4; c++) {
        __global const int *edges = (c == 0 ? edges0 : c == 1 ? edges1 : c == 2 ? edges2 : edges3) +
                                    CHANNEL_OF(edges_offset, c);
        for (uint x = get_local_id(0); x < CHANNEL_LEVELS; x += WG) {
            const uint b = c < channels ? bin_of_levels((uchar)x, edges, CHANNEL_OF(bins, c)) : NOT_COUNTED;
            lut[c * CHANNEL_LEVELS + x] = lut_entry(b, CHANNEL_OF(bins, c));
        }
    }
    count_channels(pixels + pixels_offset, begin, end, channels, bins, lut, raw, h, counts0, counts1, counts2, counts3,
                   counts_offset, tallies, settle);
}
#endif
