/* Element-wise kernels over contiguous chunks (clprim_split_range's, as
 * reduce.cl's): within a chunk, neighbouring work-items touch neighbouring
 * elements; on a CPU's one-work-item groups, each runs through its own chunk. */
#include "block/element.cl"

/* dst[i] = ELEMENT(i) over work-group g's chunk [g * chunk, min(n, (g + 1) *
 * chunk)), a tile at a time: each work-item computes its ITEMS elements of the
 * tile before it stores any, so that their loads are in flight together. */
#define STORE_ELEMENTS(dst, n, chunk, ELEMENT)                                           \
    do {                                                                               \
        const ulong end_ = min((ulong)(n), (get_group_id(0) + 1) * (chunk));          \
        for (ulong base_ = get_group_id(0) * (chunk); base_ < end_; base_ += TILE) {   \
            T v_[ITEMS];                                                               \
            for (uint k_ = 0; k_ < ITEMS; k_++) {                                      \
                const ulong i_ = base_ + k_ * WG + get_local_id(0);                    \
                if (i_ < end_)                                                         \
                    v_[k_] = ELEMENT(i_);                                              \
            }                                                                          \
            for (uint k_ = 0; k_ < ITEMS; k_++) {                                      \
                const ulong i_ = base_ + k_ * WG + get_local_id(0);                    \
                if (i_ < end_)                                                         \
                    dst[i_] = v_[k_];                                                  \
            }                                                                          \
        }                                                                              \
    } while (0)

#ifdef MAP
#include "block/map.cl"

/* dst[i] = f(x, y, i): clprim_transform. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void transform(MAP_PARAMS, ulong n, ulong chunk, __global T *dst, ulong dst_offset)
{
    MAP_BEGIN();
    dst += dst_offset;
    STORE_ELEMENTS(dst, n, chunk, MAP_AT);
}
#endif

#ifdef DIFFERENCE
#include "expression.cl"

/* The caller's f(a, b) of an element a and the one before it, b. */
T difference(const T a, const T b)
{
    return (T)(DIFFERENCE);
}

/* dst[0] = src[0], dst[i] = f(src[i], src[i - 1]): clprim_adjacent_difference
 * (src and dst never overlap, so every read sees the input). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void adjacent_difference(__global const T *src, ulong src_offset, ulong n, ulong chunk, __global T *dst,
                         ulong dst_offset)
{
    src += src_offset;
    dst += dst_offset;
#define DIFFERENCE_AT(i) ((i) ? difference(src[i], src[(i) - 1]) : src[0])
    STORE_ELEMENTS(dst, n, chunk, DIFFERENCE_AT);
}
#endif
