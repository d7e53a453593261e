/* CPU references for the sort work: radix sort, box sort, k-means. Each follows
 * the rule written in clprim.h, plainly, so a test compares with it exactly. */
#ifndef CLPRIM_TESTS_REFERENCE_SORT_H
#define CLPRIM_TESTS_REFERENCE_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "clprim.h"

/* Bytes of a key of type t (4 or 8). */
size_t reference_sort_key_bytes(clprim_type t);

/* What the sort compares for one key of type t (its bytes at key) under
 * `order` (NULL: ascending, every bit), as clprim.h defines it: the ordered
 * form (signed: sign bit flipped; floating: every bit flipped when negative,
 * else the sign bit), complemented when descending, bits [begin_bit, end_bit)
 * shifted down. */
uint64_t reference_sort_rank(clprim_type t, const clprim_sort_order *order, const void *key);

/* The stable sort by qsort of (rank, index): perm[j] is the index of the key at
 * sorted position j. Returns malloc'ed n entries (never NULL; free it). */
uint32_t *reference_sort_perm_order(clprim_type t, const clprim_sort_order *order, const void *keys, size_t n);
/* The same for 32-bit keys, ascending on every bit. */
uint32_t *reference_sort_perm(clprim_type t, const uint32_t *keys, size_t n);

/* The box of particle p (x, y, z), as clprim.h defines it. */
uint32_t reference_box_of(const clprim_box_grid *g, const float *p);

/* A counting sort: per-box counts, their exclusive scan into start (boxes + 1
 * entries), the particles placed in input order within a box into order (n). */
void reference_box_sort(const clprim_box_grid *g, const float *pos, size_t n, uint32_t *start, uint32_t *order);

/* k-means: the CPU k-means that `clprim kmeans --check` runs (src/cli/kmeans_cpu.h),
 * one implementation for both, under the names the tests use. */
#include "kmeans_cpu.h"

/* An interleaved 8-bit image in host memory, laid out like a clprim_image. */
typedef cli_kmeans_image reference_image_view;

/* Lloyd's iterations as clprim_kmeans does them, from centres (k * dims, in and
 * out), bit for bit. labels: width * height. out, when not NULL, is a copy of
 * the image's buffer (the same layout) whose pixels become their rounded
 * centres (alpha kept). */
static inline void reference_kmeans(const reference_image_view *im, unsigned k, unsigned max_iterations,
                                    float *centres, unsigned char *labels, unsigned char *out,
                                    clprim_kmeans_info *info)
{
    cli_kmeans_cpu(im, k, max_iterations, centres, labels, out, info);
}

#endif
