/* The radix sort without argument checks, for drivers built on it (box sort).
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

/* Bytes of scratch that clprim_radix_sort_device needs for n keys. */
size_t clprim_radix_sort_scratch_bytes(const clprim_context *ctx, const clprim_sort_spec *spec, size_t n);

/* Begins *p, radix_sort.cl built for the spec at the sort's own shape (release
 * with clprim_program_end); returns 0 when the sort cannot run there (a tile of
 * one item a work-item does not fit in local memory). */
int clprim_radix_sort_program(const clprim_context *ctx, const clprim_sort_spec *spec, clprim_program *p);

/* Sorts n > 0 keys: keys_in -> keys_out, stable. Values move along when
 * values_out is not NULL; values_in NULL then means the indices 0..n-1. Offsets
 * count elements. Inputs equal to outputs (same buffer and offset) are allowed;
 * other overlaps are the caller's to refuse. Uses scratch from byte
 * scratch_offset (a multiple of 256), which the caller has reserved. */
clprim_status clprim_radix_sort_device(clprim_context *ctx, const clprim_sort_spec *spec, cl_mem keys_in,
                                       cl_ulong keys_in_offset, cl_mem keys_out, cl_ulong keys_out_offset,
                                       cl_mem values_in, cl_ulong values_in_offset, cl_mem values_out,
                                       cl_ulong values_out_offset, size_t n, cl_mem scratch,
                                       size_t scratch_offset, cl_event *event);

#endif
