/* Filling and copying, one kernel set for every agent: what the host must
 * clear, fill or copy aside is written by these kernels rather than by
 * clEnqueueFillBuffer or clEnqueueCopyBuffer, whose bytes oclgrind does not
 * see as written. Each covers the whole grid (FOR_EACH_INDEX), so any number
 * of work-groups covers any n. */
#ifndef CLPRIM_BLOCK_FILL_CL
#define CLPRIM_BLOCK_FILL_CL

#include "block/element.cl"

/* NAME(dst, dst_offset, n, value): dst[dst_offset, + n) = value. */
#define DEFINE_FILL(NAME, V)                                                   \
    __kernel __attribute__((reqd_work_group_size(WG, 1, 1)))                   \
    void NAME(__global V *dst, ulong dst_offset, ulong n, int value)           \
    {                                                                          \
        dst += dst_offset;                                                     \
        FOR_EACH_INDEX(i, n)                                                   \
            dst[i] = (V)value;                                                 \
    }

/* 32-bit words: counts, status words, look-back records (two words each). */
DEFINE_FILL(fill_words, uint)

#ifdef TYPE
DEFINE_FILL(fill_elements, T)

/* dst[dst_offset, + n) = src[src_offset, + n). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void copy_elements(__global const T *src, ulong src_offset, __global T *dst, ulong dst_offset, ulong n)
{
    src += src_offset;
    dst += dst_offset;
    FOR_EACH_INDEX(i, n)
        dst[i] = src[i];
}
#endif

#endif /* CLPRIM_BLOCK_FILL_CL */
