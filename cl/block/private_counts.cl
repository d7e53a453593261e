/* A work-group's private histogram in local memory: cleared, counted into
 * with local atomics (the CPU shape, one work-item a group: plain
 * increments), then merged into the global counts with one atomic_add per
 * non-zero bin per work-group, or settled there (overwriting them) through
 * the context's tallies; never one global atomic per element. Counts are
 * integers, so every schedule gives the same result. The barriers between
 * the steps are the kernels'. */
#ifndef CLPRIM_BLOCK_PRIVATE_COUNTS_CL
#define CLPRIM_BLOCK_PRIVATE_COUNTS_CL

#include "block/element.cl"

/* h[0 .. count) = 0. */
inline void clear_counts(__local uint *h, const uint count)
{
    for (uint j = get_local_id(0); j < count; j += WG)
        h[j] = 0;
}

#if WG == 1
#define COUNT_IN(h, b) ((h)[b]++)
#define ADD_IN(h, b, c) ((h)[b] += (c))
#else
#define COUNT_IN(h, b) atomic_inc(&(h)[b])
#define ADD_IN(h, b, c) atomic_add(&(h)[b], (c))
#endif

/* counts[0 .. count) += h[0 .. count). */
inline void merge_counts(__local const uint *h, const uint count, __global uint *counts)
{
    for (uint j = get_local_id(0); j < count; j += WG) {
        const uint c = h[j];
        if (c)
            atomic_add(&counts[j], c);
    }
}

/* counts[0 .. count) = the sum of every work-group's h[0 .. count), in the
 * launch that counts, where a launch of its own would clear the counts first
 * (0.01 ms on a GPU, as much as counting 2^20 elements). Each work-group adds
 * its count and its arrival to the bin's tally, a 64-bit word at zero between
 * launches (the count in the high half, wrapping as a uint count does; the
 * arrivals in the low half); the group whose add brings the arrivals to the
 * launch's number of groups holds the total, writes it and sets the tally back
 * to zero. Atomic adds to one word are ordered on every device, so the last
 * sees every other group's count: no group waits, and no group reads what
 * another wrote anywhere else. The host settles only where the device has
 * 64-bit atomics; settle 0 merges instead. */
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define CAN_SETTLE 1
#else
#define CAN_SETTLE 0
#endif
inline void finish_counts(__local const uint *h, const uint count, __global uint *counts, __global ulong *tallies,
                          const int settle)
{
#if CAN_SETTLE
    if (settle) {
        const uint others = get_num_groups(0) - 1;
        for (uint j = get_local_id(0); j < count; j += WG) {
            const ulong before = atom_add(&tallies[j], (ulong)h[j] << 32 | 1ul);
            if ((uint)before == others) {
                counts[j] = (uint)(before >> 32) + h[j];
                atom_xchg(&tallies[j], 0ul);
            }
        }
        return;
    }
#endif
    merge_counts(h, count, counts);
    (void)tallies;
    (void)settle;
}

/* A bin index no histogram has: bins <= HIST_MAX_BINS = 2^31. */
#define NOT_COUNTED 0xFFFFFFFFu

/* Multi-channel histograms of interleaved 8-bit pixels of 4 bytes (RGBA8).
 * A sample has 256 values, so a work-group counts each channel's values
 * themselves (raw, CHANNEL_LEVELS counters a channel: one local atomic a
 * sample, no bin rule in the loop), then folds each value's count into its
 * bin through a table of every value's bin for each channel (lut, from the
 * kernel's bin rule): channel c in CHANNEL_SLOTS counters at
 * h + c * CHANNEL_SLOTS, the last one the spare where values not counted
 * land, never merged. */
#define CHANNEL_SLOTS (CHANNEL_LEVELS + 1)
#define CHANNEL_OF(v, c) ((c) == 0 ? (v).s0 : (c) == 1 ? (v).s1 : (c) == 2 ? (v).s2 : (v).s3)

/* A table entry from a bin (NOT_COUNTED, or a bin past the channel's bins,
 * for none). */
inline ushort lut_entry(const uint bin, const uint bins)
{
    return (ushort)(bin < bins ? bin : CHANNEL_LEVELS);
}

/* The samples of the first `channels` channels of pixels [begin, end) of
 * the work-group's chunk counted by value into raw: on the CPU shape in a
 * loop, else a work-item every WG. */
inline void count_pixels(__global const uchar4 *pixels, const ulong begin, const ulong end, const uint channels,
                         __local uint *raw)
{
    for (ulong i = begin + get_local_id(0); i < end; i += WG) {
        const uchar4 p = pixels[i];
        COUNT_IN(raw, p.s0);
        if (channels > 1)
            COUNT_IN(raw, CHANNEL_LEVELS + p.s1);
        if (channels > 2)
            COUNT_IN(raw, 2 * CHANNEL_LEVELS + p.s2);
        if (channels > 3)
            COUNT_IN(raw, 3 * CHANNEL_LEVELS + p.s3);
    }
}

/* The raw counts of the first `channels` channels added to their bins'
 * counts in h (values that share a bin meet there). */
inline void fold_values(__local const uint *raw, __local const ushort *lut, const uint channels, __local uint *h)
{
    for (uint j = get_local_id(0); j < channels * CHANNEL_LEVELS; j += WG) {
        const uint c = raw[j];
        if (c)
            ADD_IN(h, j / CHANNEL_LEVELS * CHANNEL_SLOTS + lut[j], c);
    }
}

/* Each of the first `channels` channels' counts added to its buffer, or
 * settled there (finish_counts; channel c's tallies from c * CHANNEL_LEVELS):
 * counts_c[counts_offset.c + b] (+)= h[c * CHANNEL_SLOTS + b] for its bins. */
inline void finish_channels(__local const uint *h, const uint channels, const uint4 bins, __global uint *counts0,
                            __global uint *counts1, __global uint *counts2, __global uint *counts3,
                            const ulong4 counts_offset, __global ulong *tallies, const int settle)
{
    for (uint c = 0; c < channels; c++) {
        __global uint *counts = c == 0 ? counts0 : c == 1 ? counts1 : c == 2 ? counts2 : counts3;
        finish_counts(h + c * CHANNEL_SLOTS, CHANNEL_OF(bins, c), counts + CHANNEL_OF(counts_offset, c),
                      tallies + c * CHANNEL_LEVELS, settle);
    }
}

/* Before a channel kernel that merges overwrites its counts: the first
 * `channels` channels' counts zeroed in one launch (a launch a channel cost
 * 0.01 ms each on the H100, half of a 2^20-pixel count):
 * counts_c[counts_offset.c, + bins.c) = 0. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clear_channels(const uint channels, const uint4 bins, __global uint *counts0, __global uint *counts1,
                    __global uint *counts2, __global uint *counts3, const ulong4 counts_offset)
{
    for (uint c = 0; c < channels; c++) {
        __global uint *counts =
            (c == 0 ? counts0 : c == 1 ? counts1 : c == 2 ? counts2 : counts3) + CHANNEL_OF(counts_offset, c);
        FOR_EACH_INDEX(i, CHANNEL_OF(bins, c))
            counts[i] = 0;
    }
}

/* A channel kernel's count, once the work-group has written lut: pixels
 * [begin, end) counted by value into raw (4 * CHANNEL_LEVELS), folded into
 * their bins in h (4 * CHANNEL_SLOTS), the active channels merged or
 * settled. */
void count_channels(__global const uchar4 *pixels, const ulong begin, const ulong end, const uint channels,
                    const uint4 bins, __local const ushort *lut, __local uint *raw, __local uint *h,
                    __global uint *counts0, __global uint *counts1, __global uint *counts2, __global uint *counts3,
                    const ulong4 counts_offset, __global ulong *tallies, const int settle)
{
    clear_counts(raw, 4 * CHANNEL_LEVELS);
    clear_counts(h, 4 * CHANNEL_SLOTS);
    barrier(CLK_LOCAL_MEM_FENCE); /* the table and the cleared counts are ready */
    count_pixels(pixels, begin, end, channels, raw);
    barrier(CLK_LOCAL_MEM_FENCE);
    fold_values(raw, lut, channels, h);
    barrier(CLK_LOCAL_MEM_FENCE);
    finish_channels(h, channels, bins, counts0, counts1, counts2, counts3, counts_offset, tallies, settle);
}

#endif /* CLPRIM_BLOCK_PRIVATE_COUNTS_CL */
