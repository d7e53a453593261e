/* The radix sort without argument checks, for drivers built on it (box sort).
 * Private to the library, like internal.h. */
#ifndef CLPRIM_RADIX_SORT_H
#define CLPRIM_RADIX_SORT_H

#include "internal.h"

#define CLPRIM_RADIX_BITS 4 /* bits per pass; cl/radix_sort.cl's RADIX_BITS */

/* Bytes of scratch that clprim_radix_sort_device needs for n keys, with or without values. */
size_t clprim_radix_sort_scratch_bytes(const clprim_context *ctx, size_t n, int with_values);

/* The build options of radix_sort.cl for keys of type t, with or without
 * values, under the context's tuning; 0 when the sort cannot run there (its
 * local memory does not fit even one item a work-item). */
int clprim_radix_sort_options(clprim_context *ctx, clprim_type t, int with_values, char *options, size_t size);

/* Sorts the low `bits` bits (1 to 32) of n keys of type t (CLPRIM_UINT32, CLPRIM_INT32
 * or CLPRIM_FLOAT; for the last two, bits is 32): keys_in -> keys_out, stable. Values
 * move along when values_out is not NULL; values_in NULL then means the indices
 * 0..n-1. Inputs equal to outputs (same buffer and offset) are allowed; other
 * overlaps are the caller's to refuse. Uses scratch from byte scratch_offset (a
 * multiple of 256), which the caller has reserved. n > 0. */
clprim_status clprim_radix_sort_device(clprim_context *ctx, clprim_type t, unsigned bits, cl_mem keys_in,
                                       cl_ulong keys_in_offset, cl_mem keys_out, cl_ulong keys_out_offset,
                                       cl_mem values_in, cl_ulong values_in_offset, cl_mem values_out,
                                       cl_ulong values_out_offset, size_t n, cl_mem scratch,
                                       size_t scratch_offset, cl_event *event);

#endif
