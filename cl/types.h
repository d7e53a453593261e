/* The element types and the operators, written once for the host
 * (src/internal.h) and the kernels (cl/block/element.cl): plain preprocessor
 * definitions both languages read.
 *
 * CLPRIM_TYPES(X) lists them by NAME (clprim_type CLPRIM_<NAME>; a kernel is
 * built for one with -DTYPE=<NAME>, a key type with -DKEY=<NAME>). For each,
 * CLPRIM_FIELD(NAME, F) is:
 *   LABEL    the name users see: "int32"
 *   SCALAR   its OpenCL C type
 *   BITS     the OpenCL C unsigned integer type of its width
 *   C        its C type on the host
 *   BYTES    its size
 *   ORDER    how its bits order as numbers: ORDER_UNSIGNED, ORDER_SIGNED,
 *            ORDER_FLOAT (IEEE: sign and magnitude)
 *   LOWEST, HIGHEST  its least and greatest values (the infinities for floats),
 *            to be converted to the type: what MAX and MIN of nothing give */
#ifndef CLPRIM_TYPES_H
#define CLPRIM_TYPES_H

#define ORDER_UNSIGNED 0
#define ORDER_SIGNED 1
#define ORDER_FLOAT 2

#define CLPRIM_TYPES(X) X(INT32) X(UINT32) X(INT64) X(UINT64) X(FLOAT) X(DOUBLE) X(UINT8)

#define CLPRIM_FIELD(NAME, F) CLPRIM_FIELD_(NAME, F)
#define CLPRIM_FIELD_(NAME, F) CLPRIM_##NAME##_##F

#define CLPRIM_INT32_LABEL "int32"
#define CLPRIM_INT32_SCALAR int
#define CLPRIM_INT32_BITS uint
#define CLPRIM_INT32_C int32_t
#define CLPRIM_INT32_BYTES 4
#define CLPRIM_INT32_ORDER ORDER_SIGNED
#define CLPRIM_INT32_LOWEST (-0x7fffffff - 1)
#define CLPRIM_INT32_HIGHEST 0x7fffffff

#define CLPRIM_UINT32_LABEL "uint32"
#define CLPRIM_UINT32_SCALAR uint
#define CLPRIM_UINT32_BITS uint
#define CLPRIM_UINT32_C uint32_t
#define CLPRIM_UINT32_BYTES 4
#define CLPRIM_UINT32_ORDER ORDER_UNSIGNED
#define CLPRIM_UINT32_LOWEST 0u
#define CLPRIM_UINT32_HIGHEST 0xffffffffu

#define CLPRIM_INT64_LABEL "int64"
#define CLPRIM_INT64_SCALAR long
#define CLPRIM_INT64_BITS ulong
#define CLPRIM_INT64_C int64_t
#define CLPRIM_INT64_BYTES 8
#define CLPRIM_INT64_ORDER ORDER_SIGNED
#define CLPRIM_INT64_LOWEST (-0x7fffffffffffffffL - 1)
#define CLPRIM_INT64_HIGHEST 0x7fffffffffffffffL

#define CLPRIM_UINT64_LABEL "uint64"
#define CLPRIM_UINT64_SCALAR ulong
#define CLPRIM_UINT64_BITS ulong
#define CLPRIM_UINT64_C uint64_t
#define CLPRIM_UINT64_BYTES 8
#define CLPRIM_UINT64_ORDER ORDER_UNSIGNED
#define CLPRIM_UINT64_LOWEST 0ul
#define CLPRIM_UINT64_HIGHEST 0xfffffffffffffffful

#define CLPRIM_FLOAT_LABEL "float"
#define CLPRIM_FLOAT_SCALAR float
#define CLPRIM_FLOAT_BITS uint
#define CLPRIM_FLOAT_C float
#define CLPRIM_FLOAT_BYTES 4
#define CLPRIM_FLOAT_ORDER ORDER_FLOAT
#define CLPRIM_FLOAT_LOWEST (-INFINITY)
#define CLPRIM_FLOAT_HIGHEST INFINITY

#define CLPRIM_DOUBLE_LABEL "double"
#define CLPRIM_DOUBLE_SCALAR double
#define CLPRIM_DOUBLE_BITS ulong
#define CLPRIM_DOUBLE_C double
#define CLPRIM_DOUBLE_BYTES 8
#define CLPRIM_DOUBLE_ORDER ORDER_FLOAT
#define CLPRIM_DOUBLE_LOWEST (-INFINITY)
#define CLPRIM_DOUBLE_HIGHEST INFINITY

#define CLPRIM_UINT8_LABEL "uint8"
#define CLPRIM_UINT8_SCALAR uchar
#define CLPRIM_UINT8_BITS uchar
#define CLPRIM_UINT8_C uint8_t
#define CLPRIM_UINT8_BYTES 1
#define CLPRIM_UINT8_ORDER ORDER_UNSIGNED
#define CLPRIM_UINT8_LOWEST 0
#define CLPRIM_UINT8_HIGHEST 0xff

/* CLPRIM_OPS(X) lists the built-in operators by NAME (clprim_op CLPRIM_<NAME>,
 * in its order); USER is the caller's (clprim_operator). A kernel is built for
 * one with -DOP=<NAME>. For each, CLPRIM_OP_FIELD(NAME, F) is, in OpenCL C
 * over the element T (cl/block/element.cl):
 *   IDENTITY  what combines with x to give x
 *   COMBINE   a function of two values, the left operand first
 *   EMPTY     what combining no element gives: the exclusive scan's first
 *             element, and clprim_reduce's answer for n == 0
 *   COMMUTES  1 when the order of the operands does not matter
 *   EXACT     1 when any grouping gives the same bits (integer sums, and
 *             every min and max), so that a one-sweep look-back may group by
 *             timing (scan by key does); otherwise tiles are grouped in a
 *             fixed way (DEFINE_LOOKBACK_GROUPED, cl/block/lookback.cl)
 * For floats, MIN and MAX are fmin and fmax, whose true identity is NaN:
 * fmin(NaN, x) = x and fmin(NaN, NaN) = NaN, so a run of NaN alone stays NaN,
 * as C folds it, while EMPTY stays the documented +-infinity. fmin and fmax
 * select one of their operands, so MIN and MAX are exact in any order of
 * combination; min() and max() are undefined on NaN and infinities. */
#define CLPRIM_OPS(X) X(SUM) X(MIN) X(MAX)

#define CLPRIM_OP_FIELD(NAME, F) CLPRIM_OP_FIELD_(NAME, F)
#define CLPRIM_OP_FIELD_(NAME, F) CLPRIM_OP_##NAME##_##F

#define CLPRIM_OP_SUM_IDENTITY ((T)0)
#define CLPRIM_OP_SUM_COMBINE(a, b) AS_T((U)(a) + (U)(b))
#define CLPRIM_OP_SUM_EMPTY ((T)0)
#define CLPRIM_OP_SUM_COMMUTES 1
#define CLPRIM_OP_SUM_EXACT IF_FLOAT(0, 1)

#define CLPRIM_OP_MIN_IDENTITY IF_FLOAT((T)NAN, T_HIGHEST)
#define CLPRIM_OP_MIN_COMBINE(a, b) IF_FLOAT(fmin, min)((a), (b))
#define CLPRIM_OP_MIN_EMPTY T_HIGHEST
#define CLPRIM_OP_MIN_COMMUTES 1
#define CLPRIM_OP_MIN_EXACT 1

#define CLPRIM_OP_MAX_IDENTITY IF_FLOAT((T)NAN, T_LOWEST)
#define CLPRIM_OP_MAX_COMBINE(a, b) IF_FLOAT(fmax, max)((a), (b))
#define CLPRIM_OP_MAX_EMPTY T_LOWEST
#define CLPRIM_OP_MAX_COMMUTES 1
#define CLPRIM_OP_MAX_EXACT 1

/* The caller's operator: USER_COMBINE, its expression over a and b as the
 * library parsed and wrote it out, and USER_IDENTITY, the bits of its
 * identity, which is also what combining nothing gives. */
#define CLPRIM_OP_USER_IDENTITY FROM_BITS(USER_IDENTITY)
#define CLPRIM_OP_USER_COMBINE(a, b) user_combine((a), (b))
#define CLPRIM_OP_USER_EMPTY FROM_BITS(USER_IDENTITY)
#define CLPRIM_OP_USER_COMMUTES 0
#define CLPRIM_OP_USER_EXACT 0

#endif
