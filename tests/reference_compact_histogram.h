/* CPU references for compaction and histograms, with the library's exact rules
 * (include/clprim.h): comparisons in the element type (IEEE for floats), order
 * kept; integer bins by exact integer arithmetic, float bins by the same
 * float/double operations as the kernels. Elements are of clprim_type t. */
#ifndef CLPRIM_TESTS_REFERENCE_COMPACT_HISTOGRAM_H
#define CLPRIM_TESTS_REFERENCE_COMPACT_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "clprim.h"

/* The C twin of a CLPRIM_KEEP_EXPRESSION: x points to one element, i its index. */
typedef int (*reference_keep_fn)(clprim_type t, const void *x, uint64_t i);

/* Whether element i (at x) is kept. value: one element (comparisons); flags:
 * the flag bytes from element 0 (FLAGGED); fn: EXPRESSION. */
int reference_keeps(clprim_type t, clprim_keep keep, const void *value, const unsigned char *flags,
                    reference_keep_fn fn, const void *x, uint64_t i);

/* Copies the kept elements of src[0..n) to dst in order; returns how many. */
size_t reference_compact(clprim_type t, clprim_keep keep, const void *value, const unsigned char *flags,
                         reference_keep_fn fn, const void *src, size_t n, void *dst);

/* The same, then the rejected elements after the kept ones, in order (dst
 * holds n); returns the kept count. */
size_t reference_partition(clprim_type t, clprim_keep keep, const void *value, const unsigned char *flags,
                           reference_keep_fn fn, const void *src, size_t n, void *dst);

/* One predicate as reference_keeps takes it. */
typedef struct {
    clprim_keep keep;
    const void *value;
    const unsigned char *flags;
    reference_keep_fn fn;
} reference_predicate;

/* The three-way partition: the elements that pass `first`, then those that
 * fail it and pass `second`, then the rest, each part in order (dst holds n);
 * returns the first part's size, the second's to *second_count. */
size_t reference_partition_three_way(clprim_type t, const reference_predicate *first,
                                     const reference_predicate *second, const void *src, size_t n, void *dst,
                                     size_t *second_count);

/* Adds the bins of src[0], src[stride], ... (n elements) to counts[0..bins).
 * The arguments must be valid (see clprim_histogram). */
void reference_histogram(clprim_type t, const void *src, size_t stride, size_t n, double lo, double hi,
                         size_t bins, uint32_t *counts);

/* a < b in the element type (IEEE for floats: false beside a NaN). */
int reference_less(clprim_type t, const void *a, const void *b);

/* clprim_histogram_range's counts: adds to counts[b] the elements of src[0..n)
 * with edges[b] <= x < edges[b + 1], the bin found as one below the first edge
 * above x (an upper bound, by its own search). */
void reference_histogram_range(clprim_type t, const void *src, size_t n, const void *edges, size_t bins,
                               uint32_t *counts);

/* The bin of one element, or -1 when it is not counted. */
long long reference_bin(clprim_type t, const void *x, double lo, double hi, size_t bins);

#endif
