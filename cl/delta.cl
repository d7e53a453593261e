/* Delta packing (clprim_delta_pack, clprim_delta_unpack; clprim.h describes
 * the packed form). Each work-group takes blocks of DELTA_BLOCK elements in
 * turn:
 *   delta_measure  a block's step (its smallest difference) and width, and
 *                  the words its differences take (the host scans those
 *                  into each block's start);
 *   delta_pack     a block's header and its words, each word gathered by
 *                  one work-item from the differences staged in local
 *                  memory, so words are written whole and coalesced;
 *   delta_unpack   a block's differences read back, scanned, and its
 *                  elements written coalesced from local memory.
 * The CPU shape (WG == 1) packs and unpacks a block in one loop through a
 * 64-bit bit buffer instead: on PoCL the word-gathering form took 22 ms for
 * 2^24 uint32 keys (7.8 copies).
 * Elements are handled as their bits: word_t of WORD_BYTES bytes, whose
 * arithmetic wraps as the packed form's does.
 *
 * Built with -DWORD_BYTES=1, 4 or 8, -DDELTA_BLOCK, -DWG and -DITEMS. */
#include "block/reduce_scan.cl"

#if WORD_BYTES == 1
typedef uchar word_t;
typedef char signed_word_t;
#elif WORD_BYTES == 4
typedef uint word_t;
typedef int signed_word_t;
#else
typedef ulong word_t;
typedef long signed_word_t;
#endif
#define WORD_BITS (8 * WORD_BYTES)
#define HEADER_WORDS 6
/* Elements each work-item folds in the unpack's scan. */
#define PER_ITEM ((DELTA_BLOCK + WG - 1) / WG)

#define SIGNED_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SIGNED_MAX(a, b) ((a) > (b) ? (a) : (b))
DEFINE_WG_REDUCE(wg_min_difference, signed_word_t, SIGNED_MIN, 0)
DEFINE_WG_REDUCE(wg_max_difference, signed_word_t, SIGNED_MAX, 0)
DEFINE_WG_EXCLUSIVE_SCAN(wg_exclusive_sum, word_t, ADD, (word_t)0)

/* Elements in block b of n. */
uint block_count(const ulong b, const ulong n)
{
    return (uint)min((ulong)DELTA_BLOCK, n - b * DELTA_BLOCK);
}

/* Words that `count` values of `width` bits fill. */
ulong data_words(const uint count, const uint width)
{
    return ((ulong)count * width + 31) / 32;
}

/* The fewest bits that hold x. */
uint bits_of(const word_t x)
{
    return x ? WORD_BITS - (uint)clz(x) : 0;
}

/* Each block's smallest difference (steps[b], as the type's bits) and width,
 * and the words its differences take (sizes[b]). A block of one element has
 * step 0 and width 0. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void delta_measure(__global const word_t *src, ulong src_offset, ulong n, __global ulong *scratch,
                   ulong sizes_at, ulong steps_at, ulong widths_at)
{
    __local signed_word_t buf[WG];
    const uint lid = get_local_id(0);
    const ulong blocks = (n + DELTA_BLOCK - 1) / DELTA_BLOCK;
    src += src_offset;
    __global uint *widths = (__global uint *)(scratch + widths_at);
    for (ulong b = get_group_id(0); b < blocks; b += get_num_groups(0)) {
        __global const word_t *x = src + b * DELTA_BLOCK;
        const uint count = block_count(b, n);
        /* The first difference stands in for the absent ones: it changes no extreme. */
        const signed_word_t first = count > 1 ? (signed_word_t)(word_t)(x[1] - x[0]) : 0;
        signed_word_t low = first, high = first;
        for (uint j = lid + 1; j < count; j += WG) {
            const signed_word_t d = (signed_word_t)(word_t)(x[j] - x[j - 1]);
            low = SIGNED_MIN(low, d);
            high = SIGNED_MAX(high, d);
        }
        low = wg_min_difference(low, buf);
        high = wg_max_difference(high, buf);
        if (lid == 0) {
            const uint width = bits_of((word_t)((word_t)high - (word_t)low));
            scratch[sizes_at + b] = data_words(count, width);
            scratch[steps_at + b] = (ulong)(word_t)low;
            widths[b] = width;
        }
    }
}

/* Each block's header and words: starts[b] is where its words begin (the
 * exclusive scan of sizes). The group with the last block writes the total
 * to size[size_offset] when has_size (and group 0 writes 0 when n is 0). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void delta_pack(__global const word_t *src, ulong src_offset, ulong n, __global const ulong *scratch,
                ulong starts_at, ulong steps_at, ulong widths_at, __global uint *packed, ulong packed_offset,
                __global ulong *size, ulong size_offset, uint has_size)
{
    __local word_t values[DELTA_BLOCK]; /* each element's difference less the step */
    const uint lid = get_local_id(0);
    const ulong blocks = (n + DELTA_BLOCK - 1) / DELTA_BLOCK;
    src += src_offset;
    packed += packed_offset;
    __global const uint *widths = (__global const uint *)(scratch + widths_at);
    __global uint *data = packed + HEADER_WORDS * blocks;
    if (has_size && blocks == 0 && get_global_id(0) == 0)
        size[size_offset] = 0;
    for (ulong b = get_group_id(0); b < blocks; b += get_num_groups(0)) {
        __global const word_t *x = src + b * DELTA_BLOCK;
        const uint count = block_count(b, n), width = widths[b];
        const word_t step = (word_t)scratch[steps_at + b];
        const ulong start = scratch[starts_at + b];
#if WG == 1
        /* Each value appended to a 64-bit buffer, written out 64 bits at a time. */
        __global uint *out = data + start;
        ulong buffer = 0;
        uint held = 0;
        for (uint j = 0; width && j < count; j++) {
            const ulong v = j ? (ulong)(word_t)(x[j] - x[j - 1] - step) : 0;
            buffer |= v << held;
            held += width;
            if (held >= 64) {
                out[0] = (uint)buffer;
                out[1] = (uint)(buffer >> 32);
                out += 2;
                held -= 64;
                buffer = held ? v >> (width - held) : 0;
            }
        }
        for (uint k = 0; k < (held + 31) / 32; k++, buffer >>= 32) /* no saturating step: oclgrind lacks it */
            out[k] = (uint)buffer;
#else
        for (uint j = lid; j < count; j += WG)
            values[j] = j ? (word_t)(x[j] - x[j - 1] - step) : 0;
#endif
        if (lid == 0) {
            const ulong first = (ulong)x[0], step_bits = (ulong)step;
            __global uint *header = packed + HEADER_WORDS * b;
            header[0] = (uint)first;
            header[1] = (uint)(first >> 32);
            header[2] = (uint)step_bits;
            header[3] = (uint)(step_bits >> 32);
            header[4] = (uint)start;
            header[5] = width << 24 | (uint)(start >> 32);
            if (has_size && b == blocks - 1)
                size[size_offset] = HEADER_WORDS * blocks + start + data_words(count, width);
        }
#if WG > 1
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Word q holds bits [32q, 32q + 32) of the block's run of values. */
        const uint words = (uint)data_words(count, width);
        for (uint q = lid; q < words; q += WG) {
            uint word = 0;
            const uint last = min(count - 1, (32 * q + 31) / width);
            for (uint j = 32 * q / width; j <= last; j++) {
                const int shift = (int)(j * width) - (int)(32 * q);
                const ulong v = (ulong)values[j];
                word |= shift >= 0 ? (uint)(v << shift) : (uint)(v >> -shift);
            }
            data[start + q] = word;
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* values is refilled for the next block */
#endif
    }
}

/* Word i of the packed form, 0 past the `available` words it has. */
uint packed_word(__global const uint *packed, const ulong i, const ulong available)
{
    return i < available ? packed[i] : 0u;
}

/* n elements from the packed form's `available` words (at least the headers). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void delta_unpack(__global const uint *packed, ulong packed_offset, ulong available, ulong n, __global word_t *dst,
                  ulong dst_offset)
{
    __local word_t elements[DELTA_BLOCK];
    __local word_t buf[SCAN_SLOTS];
    const uint lid = get_local_id(0);
    const ulong blocks = (n + DELTA_BLOCK - 1) / DELTA_BLOCK, data = HEADER_WORDS * blocks;
    packed += packed_offset;
    dst += dst_offset;
    for (ulong b = get_group_id(0); b < blocks; b += get_num_groups(0)) {
        __global const uint *header = packed + HEADER_WORDS * b;
        const uint count = block_count(b, n);
        const word_t first = (word_t)((ulong)header[0] | (ulong)header[1] << 32);
        const word_t step = (word_t)((ulong)header[2] | (ulong)header[3] << 32);
        /* A damaged width is cut to the type's: shifts stay defined. */
        const uint width = min(header[5] >> 24, (uint)WORD_BITS);
        const ulong start = data + ((ulong)header[4] | (ulong)(header[5] & 0xffffffu) << 32);
        const ulong mask = width == 64 ? ~0ul : (1ul << width) - 1;
#if WG == 1
        /* Values taken from a 64-bit buffer refilled 64 bits at a time. */
        (void)elements;
        (void)buf;
        ulong buffer = 0, at = start;
        uint held = 0;
        word_t x = first;
        for (uint j = 0; j < count; j++) {
            ulong v = 0;
            if (held >= width) {
                v = buffer & mask;
                buffer = width == 64 ? 0 : buffer >> width;
                held -= width;
            } else {
                const ulong next = (ulong)packed_word(packed, at, available) |
                                   (ulong)packed_word(packed, at + 1, available) << 32;
                at += 2;
                v = (buffer | next << held) & mask; /* held < width <= 64 */
                buffer = width - held == 64 ? 0 : next >> (width - held);
                held += 64 - width;
            }
            x = (word_t)(j ? x + step + (word_t)v : x + (word_t)v);
            dst[b * DELTA_BLOCK + j] = x;
        }
#else
        for (uint j = lid; j < count; j += WG) {
            const ulong bit = (ulong)j * width, at = start + bit / 32;
            const uint shift = (uint)(bit % 32);
            const ulong low = (ulong)packed_word(packed, at, available) |
                              (ulong)packed_word(packed, at + 1, available) << 32;
            ulong v = low >> shift;
            if (shift + width > 64)
                v |= (ulong)packed_word(packed, at + 2, available) << (64 - shift);
            elements[j] = (word_t)(v & mask);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Element j = first + j * step + the values through j. */
        const uint begin = min(lid * PER_ITEM, count), end = min(begin + PER_ITEM, count);
        word_t run = 0, total;
        for (uint j = begin; j < end; j++)
            run += elements[j];
        run = wg_exclusive_sum(run, buf, &total);
        for (uint j = begin; j < end; j++) {
            run += elements[j];
            elements[j] = (word_t)(first + (word_t)j * step + run);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = lid; j < count; j += WG)
            dst[b * DELTA_BLOCK + j] = elements[j];
        barrier(CLK_LOCAL_MEM_FENCE); /* elements is refilled for the next block */
#endif
    }
}
