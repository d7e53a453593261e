/* Element-wise kernels over contiguous chunks (clprim_split_range's over the
 * element-wise grid, src/algorithms/transform.c): within a chunk, neighbouring
 * work-items touch neighbouring elements; on a CPU's one-work-item groups,
 * each runs through its own chunk. */
#include "block/element.cl"

/* dst[i] = ELEMENT(i) for the i from `first` on in work-group g's chunk
 * [g * chunk, min(n, (g + 1) * chunk)). On the CPU shape, a plain loop the
 * compiler can vectorize; else a tile at a time, each work-item computing its
 * ITEMS elements of a whole tile before it stores any, so that their loads are
 * in flight together (a tile that first or n cuts goes element by element). */
#if WG == 1
#define STORE_ELEMENTS(dst, first, n, chunk, ELEMENT)                                   \
    do {                                                                                \
        const ulong end_ = min((ulong)(n), (get_group_id(0) + 1) * (chunk));            \
        for (ulong i_ = max((ulong)(first), get_group_id(0) * (chunk)); i_ < end_; i_++) \
            dst[i_] = ELEMENT(i_);                                                      \
    } while (0)
#else
#define STORE_ELEMENTS(dst, first, n, chunk, ELEMENT)                                   \
    do {                                                                                \
        const ulong end_ = min((ulong)(n), (get_group_id(0) + 1) * (chunk));            \
        for (ulong base_ = get_group_id(0) * (chunk); base_ < end_; base_ += TILE) {    \
            if (base_ >= (first) && base_ + TILE <= end_) {                             \
                T v_[ITEMS];                                                            \
                for (uint k_ = 0; k_ < ITEMS; k_++)                                     \
                    v_[k_] = ELEMENT(base_ + k_ * WG + get_local_id(0));                \
                for (uint k_ = 0; k_ < ITEMS; k_++)                                     \
                    dst[base_ + k_ * WG + get_local_id(0)] = v_[k_];                    \
            } else {                                                                    \
                for (uint k_ = 0; k_ < ITEMS; k_++) {                                   \
                    const ulong i_ = base_ + k_ * WG + get_local_id(0);                 \
                    if (i_ >= (first) && i_ < end_)                                     \
                        dst[i_] = ELEMENT(i_);                                          \
                }                                                                       \
            }                                                                           \
        }                                                                               \
    } while (0)
#endif

#ifdef MAP
#include "block/map.cl"

/* dst[i] = f(x, y, i): clprim_transform. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void transform(MAP_PARAMS, ulong n, ulong chunk, __global T *dst, ulong dst_offset)
{
    MAP_BEGIN();
    dst += dst_offset;
    STORE_ELEMENTS(dst, 0, n, chunk, MAP_AT);
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
    if (get_global_id(0) == 0 && n > 0)
        dst[0] = src[0];
#define DIFFERENCE_AT(i) difference(src[i], src[(i) - 1])
    STORE_ELEMENTS(dst, 1, n, chunk, DIFFERENCE_AT);
}
#endif
