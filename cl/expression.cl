/* What callers' expressions need (src/runtime/expression.c writes them): integer
 * division and remainder that cannot trap, doubles where the device has them
 * (unsuffixed floating literals are double there, as in C), and C's rounding.
 *
 * An integer a / b or a % b traps on CPUs (SIGFPE, in the caller's process
 * where kernels run in it) when b == 0 or when a is the type's lowest value and
 * b == -1. Here a / 0 and a % 0 are 0, LOWEST / -1 is LOWEST (it wraps, as
 * -LOWEST does) and LOWEST % -1 is 0; otherwise they are C's. The divisor is
 * made 1 wherever b would trap, so no path divides by it. Unsigned types pass 0
 * as LOWEST: then 0 / MAX takes divisor 1, which gives the same 0. */
#ifndef CLPRIM_EXPRESSION_CL
#define CLPRIM_EXPRESSION_CL

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Each floating operation rounds on its own, as in a C loop over the same
 * expression: no fused multiply-add where the device has one. */
#pragma OPENCL FP_CONTRACT OFF

#define CLPRIM_INTEGER_DIVISION(T, LOWEST)                                        \
    T clprim_div_##T(const T a, const T b)                                         \
    {                                                                              \
        const T d = b == (T)0 || (a == (LOWEST) && b == (T)-1) ? (T)1 : b;         \
        return b == (T)0 ? (T)0 : a / d;                                           \
    }                                                                              \
    T clprim_rem_##T(const T a, const T b)                                         \
    {                                                                              \
        const T d = b == (T)0 || (a == (LOWEST) && b == (T)-1) ? (T)1 : b;         \
        return b == (T)0 ? (T)0 : a % d;                                           \
    }

/* After C's promotions, integer arithmetic is in one of these four. */
CLPRIM_INTEGER_DIVISION(int, INT_MIN)
CLPRIM_INTEGER_DIVISION(uint, 0u)
CLPRIM_INTEGER_DIVISION(long, LONG_MIN)
CLPRIM_INTEGER_DIVISION(ulong, 0ul)

#endif
