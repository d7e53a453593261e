/* What every kernel file shares: the element type and operator that -D options
 * select (cl/types.h), and the tile shape with defaults, so that each file
 * compiles alone. Includes here and in every kernel file name their file from
 * the kernel folder: "block/tile.cl". */
#ifndef CLPRIM_BLOCK_ELEMENT_CL
#define CLPRIM_BLOCK_ELEMENT_CL

#include "constants.h"
#include "types.h"

#define CLPRIM_CAT(a, b) CLPRIM_CAT_(a, b)
#define CLPRIM_CAT_(a, b) a##b

#ifndef WG
#define WG 64 /* work-items per work-group: a power of two */
#endif
#ifndef ITEMS
#define ITEMS 4 /* consecutive elements per work-item per tile */
#endif
#define TILE (WG * ITEMS)

/* Every i in [0, n) once, over the whole grid of a launch of any size: on
 * GPUs neighbouring work-items take neighbouring elements; on the CPU shape
 * (one work-item a group, a group a core at a time) each work-item takes a
 * contiguous slice, so that no two cores write one cache line. */
#if WG == 1
#define FOR_EACH_INDEX(i, n)                                                                           \
    for (ulong per_ = ((n) + get_global_size(0) - 1) / get_global_size(0), i = get_global_id(0) * per_, \
               end_ = min((ulong)(n), i + per_);                                                       \
         i < end_; i++)
#else
#define FOR_EACH_INDEX(i, n) for (ulong i = get_global_id(0); i < (n); i += get_global_size(0))
#endif

/* For the CPU shape's loops: acc combined by COMB (commutative, identity ID,
 * values of V) with ELEMENT(i) for i from `i` on while eight more fit before
 * `end`, in eight lanes of every eighth element, each lane in order, so that
 * no combine waits for the one before and the compiler can use vector
 * operations; i is left at the first element not combined. The lanes' loops
 * are unrolled, which keeps the lanes in registers: PoCL 5.0 unrolls none of
 * them itself and kept the lanes in memory (2^26 int32 on 16 cores: reduce
 * 4.44 to 3.71 ms, transform-reduce 5.44 to 4.23, find-if 5.68 to 4.97). */
#define FOLD_IN_EIGHT_LANES(V, ID, COMB, ELEMENT, acc, i, end)                                 \
    do {                                                                                       \
        V lane_[8];                                                                            \
        _Pragma("unroll") for (uint k_ = 0; k_ < 8; k_++) lane_[k_] = (ID);                    \
        for (; (i) + 8 <= (end); (i) += 8)                                                     \
            _Pragma("unroll") for (uint k_ = 0; k_ < 8; k_++) lane_[k_] =                      \
                COMB(lane_[k_], ELEMENT((i) + k_));                                            \
        _Pragma("unroll") for (uint k_ = 0; k_ < 8; k_++) (acc) = COMB((acc), lane_[k_]);      \
    } while (0)

/* One spare slot every 32 elements keeps a work-item's run of ITEMS consecutive
 * local elements in distinct banks when a tile is read row by row. */
#define PAD(i) ((i) + (i) / 32)
#define PADDED_TILE (TILE + TILE / 32)

/* The element, when -DTYPE=<NAME> (cl/types.h) names one: T; U, the type its
 * sums wrap in (its bits' unsigned type; floats add as themselves); AS_T, U's
 * bits back to T; FROM_BITS, an element from its bits in an integer (the host
 * passes them); T_LOWEST and T_HIGHEST; T_IS_FLOAT, defined for a floating
 * element, and IF_FLOAT(f, i), f for one, else i. Without TYPE a file has no
 * element. */
#ifdef TYPE
#define T CLPRIM_FIELD(TYPE, SCALAR)
#define T_LOWEST ((T)CLPRIM_FIELD(TYPE, LOWEST))
#define T_HIGHEST ((T)CLPRIM_FIELD(TYPE, HIGHEST))
#define AS_T(x) CLPRIM_CAT(as_, T)((U)(x))
#define FROM_BITS(x) CLPRIM_CAT(as_, T)((CLPRIM_FIELD(TYPE, BITS))(x))
#if CLPRIM_FIELD(TYPE, ORDER) == ORDER_FLOAT
#define T_IS_FLOAT
#define IF_FLOAT(f, i) f
#define U T
#if CLPRIM_FIELD(TYPE, BYTES) == 8
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#else
#define IF_FLOAT(f, i) i
#define U CLPRIM_FIELD(TYPE, BITS)
#endif
#endif

/* The operator, when -DOP=<NAME> (cl/types.h) names one: IDENTITY, COMBINE,
 * EMPTY_RESULT, OP_COMMUTES and OP_EXACT, its fields. */
#ifdef OP
#ifdef USER_COMBINE
#include "expression.cl"
T user_combine(const T a, const T b)
{
    return (T)(USER_COMBINE);
}
#endif
#define IDENTITY CLPRIM_OP_FIELD(OP, IDENTITY)
#define COMBINE(a, b) CLPRIM_OP_FIELD(OP, COMBINE)(a, b)
#define EMPTY_RESULT CLPRIM_OP_FIELD(OP, EMPTY)
#define OP_COMMUTES CLPRIM_OP_FIELD(OP, COMMUTES)
#define OP_EXACT CLPRIM_OP_FIELD(OP, EXACT)
#endif

/* ONE_NAN(x): x, every NaN made one NaN. Where a value crosses between
 * work-groups along two code paths (a tile's own and a look-back's
 * fallback), a compiler may put either operand of an add first on each, and
 * the first NaN's payload wins: one NaN keeps their bits equal. A function,
 * so that x is evaluated once. */
#ifdef T_IS_FLOAT
T one_nan(const T x)
{
    return isnan(x) ? (T)NAN : x;
}
#define ONE_NAN(x) one_nan(x)
#else
#define ONE_NAN(x) (x)
#endif

#endif /* CLPRIM_BLOCK_ELEMENT_CL */
