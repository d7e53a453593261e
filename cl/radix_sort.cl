/* Stable LSD radix sort of 32-bit keys (and uint values), one RADIX_BITS-bit digit
 * per pass, on the multi-work-group split of scan.cl. Per pass:
 *   radix_count    each work-group counts the digits of its chunk and writes
 *                  counts[digit * groups + group] (digit-major, ulong);
 *   (host)         one exclusive scan of the counts (the library's own scan):
 *                  counts[d * groups + g] becomes where group g's first key of
 *                  digit d goes;
 *   radix_scatter  each work-group walks its chunk tile by tile, ranks each tile's
 *                  keys by digit in local memory (stable) and writes them at its
 *                  running offset for that digit.
 * No work-group waits on another; kernel launches order the passes. With
 * WG == 1 (the CPU shape) radix_scatter is a plain sequential counting-sort
 * scatter of its chunk.
 *
 * Built with -DTYPE_UINT32 -DOP_SUM (the local scans count in uint), -DWG, -DITEMS,
 * one of KEY_UINT32 / KEY_INT32 / KEY_FLOAT, and WITH_VALUES=0|1. */
#include "common.cl"

#if !defined(TYPE_UINT32) || !defined(OP_SUM)
#error "radix_sort.cl needs -DTYPE_UINT32 -DOP_SUM (its local scans count in uint)"
#endif

#ifndef RADIX_BITS
#define RADIX_BITS 4
#endif
#define RADIX (1u << RADIX_BITS)

#ifndef WITH_VALUES
#define WITH_VALUES 0
#endif

/* The key's bits mapped to a uint whose unsigned order is the key's order. */
#if defined(KEY_UINT32)
#define ORDERED(u) (u)
#elif defined(KEY_INT32)
#define ORDERED(u) ((u) ^ 0x80000000u)
#elif defined(KEY_FLOAT)
/* Negative floats (sign set) have every bit flipped, the others only the sign:
 * -inf < ... < -0.0 < +0.0 < ... < +inf; NaNs land outside the infinities by sign. */
#define ORDERED(u) ((u) ^ ((uint)(-(int)((u) >> 31)) | 0x80000000u))
#else
#error "define one of KEY_UINT32, KEY_INT32, KEY_FLOAT"
#endif

#define DIGIT(u, shift) ((ORDERED(u) >> (shift)) & (RADIX - 1u))

/* Work-group g counts the digits of keys [g * chunk, min(n, (g + 1) * chunk)).
 * Each work-item counts into its own column of hist, so no atomics are needed. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_count(__global const uint *keys, ulong keys_offset, ulong n, ulong chunk, uint shift,
                 __global ulong *counts, ulong counts_offset)
{
    __local uint hist[RADIX * WG];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0), groups = get_num_groups(0);
    const ulong begin = g * chunk;
    const ulong end = min(n, begin + chunk);
    keys += keys_offset;

    for (uint d = 0; d < RADIX; d++)
        hist[d * WG + lid] = 0;
    for (ulong i = begin + lid; i < end; i += WG)
        hist[DIGIT(keys[i], shift) * WG + lid]++;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint d = lid; d < RADIX; d += WG) {
        ulong total = 0;
        for (uint w = 0; w < WG; w++)
            total += hist[d * WG + w];
        counts[counts_offset + d * groups + g] = total;
    }
}

/* Work-group g moves keys [g * chunk, min(n, (g + 1) * chunk)) of src to dst,
 * values along. bases[d * groups + g] (the scanned counts) is where the group's
 * first key of digit d goes. With values_are_indices, the values read are the
 * keys' indices (0-based from src_offset) instead of vsrc. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_scatter(__global const uint *src, ulong src_offset, __global uint *dst, ulong dst_offset,
                   __global const uint *vsrc, ulong vsrc_offset, __global uint *vdst, ulong vdst_offset,
                   int values_are_indices, ulong n, ulong chunk, uint shift,
                   __global const ulong *bases, ulong bases_offset)
{
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0), groups = get_num_groups(0);
    const ulong begin = g * chunk;
    const ulong end = min(n, begin + chunk);
    src += src_offset;
    dst += dst_offset;
#if WITH_VALUES
    vsrc += vsrc_offset;
    vdst += vdst_offset;
#endif
#if WG == 1
    /* The CPU shape: one work-item walks its chunk in order, a counting sort's
     * scatter, stable as it stands; no tile, no local ranking. */
    ulong next[RADIX];
    for (uint d = 0; d < RADIX; d++)
        next[d] = bases[bases_offset + d * groups + g];
    for (ulong i = begin; i < end; i++) {
        const uint key = src[i];
        const ulong to = next[DIGIT(key, shift)]++;
        dst[to] = key;
#if WITH_VALUES
        vdst[to] = values_are_indices ? (uint)i : vsrc[i];
#endif
    }
#else
    /* The tiled path: each tile ranked by digit in local memory. */
    __local uint keys_l[PADDED_TILE];
#if WITH_VALUES
    __local uint vals_l[PADDED_TILE];
#endif
    __local uint hist[RADIX * WG]; /* [digit][work-item]: keys of the tile per work-item */
    __local uint sums[WG];
    __local uint start[RADIX + 1]; /* where each digit's keys begin in the ranked tile */
    __local ulong carry[RADIX];    /* where the group's next key of each digit goes */
    for (uint d = lid; d < RADIX; d += WG)
        carry[d] = bases[bases_offset + d * groups + g];

    for (ulong base = begin; base < end; base += TILE) {
        const uint valid = (uint)min((ulong)TILE, end - base);

        /* Coalesced load of the tile. */
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * WG + lid;
            if (j < valid) {
                keys_l[PAD(j)] = src[base + j];
#if WITH_VALUES
                vals_l[PAD(j)] = values_are_indices ? (uint)(base + j) : vsrc[base + j];
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Each work-item takes ITEMS consecutive keys into registers and counts
         * their digits in its own column. */
        uint my_keys[ITEMS];
#if WITH_VALUES
        uint my_vals[ITEMS];
#endif
        for (uint d = 0; d < RADIX; d++)
            hist[d * WG + lid] = 0;
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = lid * ITEMS + k;
            if (j < valid) {
                my_keys[k] = keys_l[PAD(j)];
#if WITH_VALUES
                my_vals[k] = vals_l[PAD(j)];
#endif
                hist[DIGIT(my_keys[k], shift) * WG + lid]++;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Exclusive scan of hist read digit-major: entry (d, w) becomes the number
         * of the tile's keys with a smaller digit, or the same digit and an earlier
         * work-item. Work-item lid scans the RADIX consecutive entries from lid * RADIX. */
        uint run = 0;
        for (uint r = 0; r < RADIX; r++)
            run += hist[lid * RADIX + r];
        uint total;
        uint prefix = wg_exclusive_scan(run, sums, &total);
        for (uint r = 0; r < RADIX; r++) {
            const uint e = lid * RADIX + r;
            const uint c = hist[e];
            hist[e] = prefix;
            if (e % WG == 0)
                start[e / WG] = prefix; /* entry (d, 0): where digit d begins */
            prefix += c;
        }
        if (lid == 0)
            start[RADIX] = total;
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Rank: each key's place in the tile ordered by digit, keeping the input
         * order among equal digits. */
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = lid * ITEMS + k;
            if (j < valid) {
                const uint r = hist[DIGIT(my_keys[k], shift) * WG + lid]++;
                keys_l[PAD(r)] = my_keys[k];
#if WITH_VALUES
                vals_l[PAD(r)] = my_vals[k];
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Write out: the keys of one digit are consecutive in the ranked tile and
         * go to consecutive places from the digit's carry. */
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * WG + lid;
            if (j < valid) {
                const uint key = keys_l[PAD(j)];
                const uint d = DIGIT(key, shift);
                const ulong to = carry[d] + (j - start[d]);
                dst[to] = key;
#if WITH_VALUES
                vdst[to] = vals_l[PAD(j)];
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = lid; d < RADIX; d += WG)
            carry[d] += start[d + 1] - start[d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}
