/* Shared by every kernel file: the element type and operator that -D options
 * select, the tuning macros with defaults (so each file compiles alone), and the
 * work-group building blocks. Every exchange through local memory is separated by
 * a barrier: nothing assumes lock-step warps or wavefronts. */
#ifndef CLPRIM_COMMON_CL
#define CLPRIM_COMMON_CL

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

/* One spare slot every 32 elements keeps a work-item's run of ITEMS consecutive
 * local elements in distinct banks when a tile is read row by row. */
#define PAD(i) ((i) + (i) / 32)
#define PADDED_TILE (TILE + TILE / 32)

/* The element, when -DTYPE=<NAME> (cl/types.h) names one: T; U, the type its
 * sums wrap in (its bits' unsigned type; floats add as themselves); AS_T, U's
 * bits back to T; FROM_BITS, an element from its bits in an integer (the host
 * passes them); T_LOWEST and T_HIGHEST. Without TYPE a file has no element. */
#ifdef TYPE
#define T CLPRIM_FIELD(TYPE, SCALAR)
#define T_LOWEST ((T)CLPRIM_FIELD(TYPE, LOWEST))
#define T_HIGHEST ((T)CLPRIM_FIELD(TYPE, HIGHEST))
#define AS_T(x) CLPRIM_CAT(as_, T)((U)(x))
#define FROM_BITS(x) CLPRIM_CAT(as_, T)((CLPRIM_FIELD(TYPE, BITS))(x))
#if CLPRIM_FIELD(TYPE, ORDER) == ORDER_FLOAT
#define T_IS_FLOAT
#define U T
#if CLPRIM_FIELD(TYPE, BYTES) == 8
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#else
#define U CLPRIM_FIELD(TYPE, BITS)
#endif
#endif

/* The operator: its identity, how two values combine (left operand first), and
 * EMPTY_RESULT, what combining no element gives (the exclusive scan's first
 * element; clprim_reduce of n == 0 answers the same on the host). For floats,
 * MIN and MAX are fmin and fmax, whose true identity is NaN: fmin(NaN, x) = x
 * and fmin(NaN, NaN) = NaN, so a run of NaN alone stays NaN, as C folds it,
 * while the empty result stays the documented +-infinity. fmin and fmax select
 * one of their operands, so MIN and MAX are exact in any order of combination. */
#if defined(OP_SUM)
#define IDENTITY ((T)0)
#define EMPTY_RESULT IDENTITY
#define COMBINE(a, b) AS_T((U)(a) + (U)(b))
#elif defined(OP_MIN)
#define EMPTY_RESULT T_HIGHEST
#ifdef T_IS_FLOAT
#define IDENTITY ((T)NAN)
#define COMBINE(a, b) fmin((a), (b)) /* min() is undefined on NaN and infinities */
#else
#define IDENTITY T_HIGHEST
#define COMBINE(a, b) min((a), (b))
#endif
#elif defined(OP_MAX)
#define EMPTY_RESULT T_LOWEST
#ifdef T_IS_FLOAT
#define IDENTITY ((T)NAN)
#define COMBINE(a, b) fmax((a), (b))
#else
#define IDENTITY T_LOWEST
#define COMBINE(a, b) max((a), (b))
#endif
#elif defined(OP_USER)
/* The caller's operator (clprim_operator): USER_COMBINE, its expression over a
 * and b as the library parsed and wrote it out, and USER_IDENTITY, the bits of
 * its identity, which is also what combining nothing gives. */
#include "expression.cl"
T user_combine(const T a, const T b)
{
    return (T)(USER_COMBINE);
}
#define IDENTITY FROM_BITS(USER_IDENTITY)
#define EMPTY_RESULT IDENTITY
#define COMBINE(a, b) user_combine((a), (b))
#endif

/* Work-group building blocks, written once for any value type V, operator
 * COMB (a macro of two values) and identity ID, so that kernels can instantiate
 * them for the element T and for counts alike. */

/* NAME(x, buf): the combination of every work-item's x, returned to all of
 * them. buf: WG slots. */
#define DEFINE_WG_REDUCE(NAME, V, COMB, ID)                          \
    V NAME(V x, __local V *buf)                                      \
    {                                                                \
        const uint lid = get_local_id(0);                            \
        buf[lid] = x;                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                \
        for (uint width = WG / 2; width > 0; width >>= 1) {          \
            if (lid < width)                                         \
                buf[lid] = COMB(buf[lid], buf[lid + width]);         \
            barrier(CLK_LOCAL_MEM_FENCE);                            \
        }                                                            \
        const V result = buf[0];                                     \
        barrier(CLK_LOCAL_MEM_FENCE); /* buf may be reused at once */ \
        return result;                                               \
    }

/* NAME(x, buf, &total): exclusive scan of one value per work-item in work-item
 * order (Hillis-Steele); the group's total goes to *total. buf: WG slots. Its
 * first barrier also orders every local read made before the call. */
#define DEFINE_WG_EXCLUSIVE_SCAN(NAME, V, COMB, ID)                  \
    V NAME(V x, __local V *buf, V *total)                            \
    {                                                                \
        const uint lid = get_local_id(0);                            \
        buf[lid] = x;                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                \
        for (uint offset = 1; offset < WG; offset <<= 1) {           \
            const V mine = buf[lid];                                 \
            const V left = lid >= offset ? buf[lid - offset] : (ID); \
            barrier(CLK_LOCAL_MEM_FENCE);                            \
            buf[lid] = COMB(left, mine);                             \
            barrier(CLK_LOCAL_MEM_FENCE);                            \
        }                                                            \
        *total = buf[WG - 1];                                        \
        const V prefix = lid > 0 ? buf[lid - 1] : (ID);              \
        barrier(CLK_LOCAL_MEM_FENCE);                                \
        return prefix;                                               \
    }

#define ADD(a, b) ((a) + (b))

#ifdef COMBINE
DEFINE_WG_REDUCE(wg_reduce, T, COMBINE, IDENTITY)
DEFINE_WG_EXCLUSIVE_SCAN(wg_exclusive_scan, T, COMBINE, IDENTITY)
#endif

#ifdef TYPE
/* Stages src[base, base + TILE) in local memory, the part past `end` as
 * `fill`. Coalesced: neighbouring work-items read neighbouring elements;
 * whole tiles skip the bounds checks. The caller's barrier follows. */
void load_tile(__global const T *src, const ulong base, const ulong end, __local T *tile, const T fill)
{
    const uint lid = get_local_id(0);
    if (base + TILE <= end) {
        for (uint k = 0; k < ITEMS; k++)
            tile[PAD(k * WG + lid)] = src[base + k * WG + lid];
    } else {
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * WG + lid;
            tile[PAD(j)] = base + j < end ? src[base + j] : fill;
        }
    }
}

/* Writes the staged tile back to dst[base, min(end, base + TILE)), coalesced
 * as load_tile reads. The caller's barrier precedes it. */
void store_tile(__global T *dst, const ulong base, const ulong end, __local const T *tile)
{
    const uint lid = get_local_id(0);
    if (base + TILE <= end) {
        for (uint k = 0; k < ITEMS; k++)
            dst[base + k * WG + lid] = tile[PAD(k * WG + lid)];
    } else {
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * WG + lid;
            if (base + j < end)
                dst[base + j] = tile[PAD(j)];
        }
    }
}
#endif

#endif /* CLPRIM_COMMON_CL */
