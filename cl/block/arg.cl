/* Argmin and argmax (-DARG_MIN or -DARG_MAX over the element T): which of two
 * (value, index) pairs wins, so that folding pairs is associative and
 * commutative, hence the same on every device and shape: the better value
 * wins; equal values (-0.0 and +0.0 included) and two NaNs go to the smaller
 * index; a NaN loses to any number, as with fmin and fmax, so NaN wins only
 * when every value is NaN. Pairs travel as ulong2 (the value's bits, the
 * index): no padding, so a pair written by one work-group and read by
 * another has every byte defined. */
#ifndef CLPRIM_BLOCK_ARG_CL
#define CLPRIM_BLOCK_ARG_CL

#include "block/element.cl"

#if defined(ARG_MAX)
#define BEATS(b, a) ((b) > (a))
#define ARG_EMPTY T_LOWEST /* what MAX of nothing gives */
#elif defined(ARG_MIN)
#define BEATS(b, a) ((b) < (a))
#define ARG_EMPTY T_HIGHEST
#else
#error "block/arg.cl needs ARG_MIN or ARG_MAX"
#endif

/* b is strictly better than a. */
int better(const T b, const T a)
{
#ifdef T_IS_FLOAT
    return BEATS(b, a) || (a != a && b == b); /* isnan, without a library call per element on PoCL */
#else
    return BEATS(b, a);
#endif
}

inline ulong2 arg_pair(const T value, const ulong index)
{
    return (ulong2)((ulong)CLPRIM_CAT(as_, CLPRIM_FIELD(TYPE, BITS))(value), index);
}

inline T arg_value(const ulong2 p)
{
    return FROM_BITS(p.x);
}

/* (vb, ib) wins over (va, ia). Loops fold with it on plain values: through
 * the ulong2 form, the CPU shape's argmax of 2^24 int32 took 5 times as long. */
inline int arg_wins(const T vb, const ulong ib, const T va, const ulong ia)
{
    return better(vb, va) || (!better(va, vb) && ib < ia);
}

/* Lanes of arg_fold_run: eight where runs are long (one PoCL thread, argmax of
 * 2^24 floats: 4.7 ms, 9.0 with four); a kernel of short runs defines fewer
 * before it includes this file (segmented_reduce.cl). */
#ifndef ARG_LANES
#define ARG_LANES 8
#endif

/* The winner of src[from, to) (from < to) as a plain value and index, for
 * the CPU shape's loops: in ARG_LANES lanes of every ARG_LANES-th element, so
 * that one lane's compares need not wait for another's and the loop
 * vectorizes (a single running winner chains every compare to the one
 * before); the lanes' winners then combine by the same rule, which groups any
 * way. */
inline void arg_fold_run(__global const T *src, ulong from, const ulong to, T *best, ulong *at)
{
    T b = src[from];
    ulong a = from++;
    if (from + 2 * ARG_LANES <= to) {
        T lane[ARG_LANES];
        ulong lane_at[ARG_LANES];
        for (uint k = 0; k < ARG_LANES; k++) {
            lane[k] = src[from + k];
            lane_at[k] = from + k;
        }
        for (from += ARG_LANES; from + ARG_LANES <= to; from += ARG_LANES)
#pragma unroll
            for (uint k = 0; k < ARG_LANES; k++) {
                const T x = src[from + k];
                const int wins = better(x, lane[k]);
                lane_at[k] = wins ? from + k : lane_at[k];
                lane[k] = wins ? x : lane[k];
            }
        for (uint k = 0; k < ARG_LANES; k++)
            if (arg_wins(lane[k], lane_at[k], b, a)) {
                b = lane[k];
                a = lane_at[k];
            }
    }
    /* Later than every lane's: they win only when strictly better. */
    for (; from < to; from++) {
        const T x = src[from];
        a = better(x, b) ? from : a;
        b = better(x, b) ? x : b;
    }
    *best = b;
    *at = a;
}

/* The winner of a and b. */
inline ulong2 arg_take(const ulong2 a, const ulong2 b)
{
    return arg_wins(arg_value(b), b.y, arg_value(a), a.y) ? b : a;
}

/* What loses to every pair: the worst value (NaN for floats) at the largest index. */
#define ARG_NONE arg_pair(IF_FLOAT((T)NAN, ARG_EMPTY), ~0ul)

#endif /* CLPRIM_BLOCK_ARG_CL */
