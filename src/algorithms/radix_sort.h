/* The radix sort's plan, for drivers built on it (box sort, top-k).
 * Private to the library, like internal.h. */
#ifndef CLPRIM_RADIX_SORT_H
#define CLPRIM_RADIX_SORT_H

#include "internal.h"

/* What to sort: checked by the caller. */
typedef struct {
    clprim_type key_type; /* one of the six the sort takes */
    size_t value_bytes;   /* 0 (keys alone), 4 or 8 */
    int descending;
    unsigned begin_bit, end_bit; /* 0 <= begin_bit < end_bit <= the key's width */
} clprim_sort_spec;

/* The key type (one the sort takes) and the order (NULL: ascending on every
 * bit), resolved into *spec; messages start with fn. */
clprim_status clprim_check_sort_order(clprim_context *ctx, const char *fn, clprim_type key_type,
                                      const clprim_sort_order *order, clprim_sort_spec *spec);

/* The values' type (4 or 8 bytes; with indices, the indices of n keys: uint32
 * or uint64) into spec->value_bytes; messages start with fn. */
clprim_status clprim_check_sort_value_type(clprim_context *ctx, const char *fn, clprim_type value_type, int indices,
                                           size_t n, clprim_sort_spec *spec);

/* The checks of a sort call after the context: the key type and order into
 * *spec; with pairs, the value type (values_in NULL: the indices) and the
 * value buffers; keys and values of n elements each, every output in place
 * over its own input or disjoint from every other input and output. In place
 * through two handles, *keys_in and *values_in (and offsets) become the
 * outputs' (clprim_check_src_dst). Fills the outputs' regions, for a caller
 * that checks more buffers against them. Messages start with fn. */
clprim_status clprim_check_sort_buffers(clprim_context *ctx, const char *fn, clprim_type key_type, int pairs,
                                       clprim_type value_type, const clprim_sort_order *order, cl_mem *keys_in,
                                       size_t *keys_in_offset, cl_mem keys_out, size_t keys_out_offset,
                                       cl_mem *values_in, size_t *values_in_offset, cl_mem values_out,
                                       size_t values_out_offset, size_t n, clprim_sort_spec *spec,
                                       clprim_region *keys_written, clprim_region *values_written);

/* Begins *p, radix_sort.cl built for the spec at the sort's own shape (release
 * with clprim_program_end); returns 0 when the sort cannot run there (a tile of
 * one item a work-item does not fit in local memory). */
int clprim_radix_sort_program(const clprim_context *ctx, const clprim_sort_spec *spec, clprim_program *p);

/* Hands the warm-up's walk, per sort key type and value size (none, 4 or 8
 * bytes), the program program_of begins for that spec (ascending, every
 * bit); one it returns 0 for (cannot run at the device's shape) is skipped. */
void clprim_walk_sort_variants(clprim_context *ctx, clprim_variant_walk *walk,
                               int (*program_of)(const clprim_context *, const clprim_sort_spec *, clprim_program *));

/* The check a caller makes before planning a sort of n > 0 keys:
 * CLPRIM_UNSUPPORTED when the sort cannot run at its shape. */
clprim_status clprim_check_radix_sort_shape(clprim_context *ctx, const clprim_sort_spec *spec);

/* CLPRIM_UNSUPPORTED for a sort (named by what) whose tile at shape needs
 * `bytes` of local memory, more than the device has even at one item a
 * work-item. */
clprim_status clprim_fail_tile_too_large(clprim_context *ctx, const char *what, const clprim_tuning *shape,
                                         cl_ulong bytes);

/* Appends the sort of n > 0 keys (its shape checked) to the plan: keys_in ->
 * keys_out, stable, its temporaries laid out in the plan's scratch. Values
 * move along when values_out is not NULL; values_in NULL then means the
 * indices 0..n-1. A NULL keys_in or keys_out stands for the scratch. Offsets
 * count elements. Inputs equal to outputs (same buffer and offset) are
 * allowed; other overlaps are the caller's to refuse. */
void clprim_plan_radix_sort(const clprim_context *ctx, clprim_plan *plan, const clprim_sort_spec *spec,
                            cl_mem keys_in, cl_ulong keys_in_offset, cl_mem keys_out, cl_ulong keys_out_offset,
                            cl_mem values_in, cl_ulong values_in_offset, cl_mem values_out,
                            cl_ulong values_out_offset, size_t n);

#endif
