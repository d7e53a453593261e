/* Plain C references with the library's semantics: integer sums wrap (unsigned
 * arithmetic); float MIN/MAX fold like C's fmin/fmax from the first element, so
 * NaN is ignored beside any number and NaN alone gives NaN; combining nothing (a
 * reduce of 0 elements, an exclusive scan's first element) gives 0 for SUM, the
 * type's highest value for MIN, its lowest for MAX (+-INFINITY for floats).
 * Element pointers are untyped: elements are of clprim_type t. */
#ifndef CLPRIM_TESTS_REFERENCE_H
#define CLPRIM_TESTS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "clprim.h"

#define REFERENCE_TYPE_COUNT 7 /* CLPRIM_INT32 .. CLPRIM_UINT8 */
#define REFERENCE_OP_COUNT 3   /* CLPRIM_SUM .. CLPRIM_MAX */

size_t reference_type_size(clprim_type t);     /* 0 for unknown types */
const char *reference_type_name(clprim_type t); /* "int32" ... */
/* The type named by reference_type_name; 0 when none is. */
int reference_type_from_name(const char *name, clprim_type *t);
const char *reference_op_name(clprim_op op);    /* "sum", "min", "max" */
int reference_type_is_float(clprim_type t);

/* What combining no element gives, one element written to *out. */
void reference_empty_result(clprim_type t, clprim_op op, void *out);
/* *acc = *acc op *x, one element each. */
void reference_combine(clprim_type t, clprim_op op, void *acc, const void *x);

/* Argmin (max 0) or argmax of src[0, n), n > 0: the index of the first
 * element no later one beats, a NaN losing to any number, as
 * clprim_reduce_index answers. */
size_t reference_best_index(clprim_type t, int max, const void *src, size_t n);

/* dst[i] = src[0] op ... op src[i] (inclusive) or over src[0..i-1] (exclusive,
 * the empty result at i = 0).
 * Sequential left to right in the element type (floats too: use the bound below
 * to compare float sums). src == dst is allowed. */
void reference_scan(clprim_type t, clprim_op op, int exclusive, const void *src, void *dst, size_t n);
void reference_reduce(clprim_type t, clprim_op op, const void *src, size_t n, void *result);

/* The one-sweep scan's float or double sum as the device groups it
 * (cl/scan.cl's scan_tiles over DEFINE_LOOKBACK_GROUPED, cl/block/lookback.cl):
 * the sweep's tiles of wg work-items of items elements (clprim_one_sweep_shape,
 * src/runtime/tuning.c), each work-item's items folded from 0, the work-group's
 * Hillis-Steele tree, the totals before a tile in its group of wg tiles
 * combined by an order-keeping pairwise tree, and the groups' prefixes one
 * after another; wg == 1 is the CPU shape's loop. Every
 * element is a grouping fixed by the tiles' numbers alone, so the device must
 * give exactly these bits, whatever order its work-groups run in (src without
 * NaN: the device makes every NaN one). */
void reference_scan_one_sweep_sum(clprim_type t, int exclusive, size_t wg, size_t items, const void *src, void *dst,
                                  size_t n);

/* *acc = *acc op *x for a caller's operator (clprim_operator's C twin). */
typedef void (*reference_fold)(void *acc, const void *x);

/* Two callers' operators with their C twins, shared by the operator suites:
 * uint32 products (identity 1) and uint64 affine maps x -> m x + c (mod 2^32),
 * m in the high half and c in the low one, composed earlier-first: associative
 * but not commutative (identity 1 << 32). */
#define REFERENCE_AFFINE_U64                                                                                  \
    "(((a >> 32) * (b >> 32)) << 32) | (((a & 0xfffffffful) * (b >> 32) + (b & 0xfffffffful)) & 0xfffffffful)"
void reference_mul_u32(void *acc, const void *x);
void reference_affine_u64(void *acc, const void *x);

/* Scan by key: the scan above started again at each run of equal consecutive
 * keys (of key_type, an integer type), with the built-in op, or with fold from
 * identity when fold is not NULL. */
void reference_scan_by_key(clprim_type key_type, const void *keys, clprim_type t, clprim_op op, reference_fold fold,
                           const void *identity, int exclusive, const void *src, void *dst, size_t n);

/* Runs of equal consecutive keys (reduce by key, run-length encoding, unique):
 * each run's first key (first_key) or last one to keys_out; with vals, the
 * scan by key's value at the run's end (the run's reduction) to vals_out; with
 * lengths, each run's length. Returns the number of runs. */
size_t reference_runs(clprim_type key_type, const void *keys, clprim_type t, clprim_op op, const void *vals, size_t n,
                      void *keys_out, void *vals_out, uint64_t *lengths, int first_key);

/* The seeded scan (clprim_scan_seeded): the inclusive scan of [*seed, src[0],
 * ..., src[n - 1]], its elements 1..n (inclusive) or 0..n-1 (exclusive, so
 * dst[0] = *seed); the built-in op, or fold when not NULL. */
void reference_scan_seeded(clprim_type t, clprim_op op, reference_fold fold, int exclusive, const void *seed,
                           const void *src, void *dst, size_t n);
/* reference_check_scan for a seeded scan with a built-in op (float sums within
 * the bound, the seed counted as a term). A mismatch's message counts
 * elements of [seed, src...], so element k there is got[k - 1] inclusive. */
size_t reference_check_scan_seeded(clprim_type t, clprim_op op, int exclusive, const void *seed, const void *src,
                                   const void *got, size_t n, char *msg, size_t msg_size);

/* Float sums: the exact-ish prefix sums in long double, and the prefix sums of
 * |x|, inclusive or exclusive like the scan. Either output may be NULL. */
void reference_float_prefix(clprim_type t, int exclusive, const void *src, size_t n, long double *sum,
                            long double *abs_sum);

/* The bound on |computed - exact| for a float sum of k terms whose magnitudes add
 * up to abs_sum, valid for ANY order of evaluation (sequential, tree, blocked):
 * gamma_{k} * abs_sum with gamma_k = k*u / (1 - k*u), u the unit roundoff
 * (Higham, Accuracy and Stability of Numerical Algorithms, (4.4)). k counts the
 * additions on the longest path plus one for the final rounding; k = terms is safe.
 * Returns INFINITY when k*u >= 1. */
long double reference_sum_bound(clprim_type t, size_t terms, long double abs_sum);

/* Compares n elements. Exact (bit-for-bit for integers; for floats equal values or
 * both NaN) unless t is float/double and op is SUM, when `got` must be within
 * reference_sum_bound of the long-double prefix sums of src (scan) -- see
 * reference_check_scan. Returns the index of the first mismatch, or n when all match;
 * describes it in msg (may be NULL). */
size_t reference_check_scan(clprim_type t, clprim_op op, int exclusive, const void *src, const void *got,
                            size_t n, char *msg, size_t msg_size);
/* Same for one reduce result: returns 1 when it matches. */
int reference_check_reduce(clprim_type t, clprim_op op, const void *src, size_t n, const void *got, char *msg,
                           size_t msg_size);

/* One element as text ("-12", "3.5e+02", "0xff"), for messages. */
void reference_format(clprim_type t, const void *x, char *buf, size_t size);

#endif
