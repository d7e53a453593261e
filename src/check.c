/* Argument checks shared by every public call; each failure names what was wrong. */
#include "internal.h"

clprim_status clprim_check_type(clprim_context *ctx, clprim_type t, const clprim_type_info **info)
{
    const clprim_type_info *found = clprim_type_info_of(t);
    if (!found)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "unknown clprim_type %d", (int)t);
    if (found->needs_fp64 && !ctx->has_fp64)
        return clprim_fail(ctx, CLPRIM_UNSUPPORTED, "%s needs cl_khr_fp64, which %s does not support",
                           found->label, ctx->device_name);
    *info = found;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_check_op(clprim_context *ctx, clprim_op op)
{
    if (op != CLPRIM_SUM && op != CLPRIM_MIN && op != CLPRIM_MAX)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "unknown clprim_op %d", (int)op);
    return CLPRIM_SUCCESS;
}

clprim_status clprim_check_buffer(clprim_context *ctx, const char *name, cl_mem buf, size_t offset,
                                  size_t n, size_t elem_size, int written)
{
    if (!buf)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is NULL", name);
    size_t bytes = 0;
    cl_context owner = NULL;
    cl_mem_flags flags = 0;
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    if (err != CL_SUCCESS)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is not a valid buffer (%s)", name,
                           clprim_cl_error_name(err));
    if (owner != ctx->context)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s belongs to another OpenCL context", name);
    if (written && (flags & CL_MEM_READ_ONLY))
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is CL_MEM_READ_ONLY but is written", name);
    size_t capacity = bytes / elem_size;
    if (offset > capacity || n > capacity - offset) {
        if (offset > SIZE_MAX - n)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: offset %zu + n %zu overflows size_t",
                               name, offset, n);
        return clprim_fail(ctx, CLPRIM_BUFFER_TOO_SMALL,
                           "%s holds %zu elements of %zu bytes (%zu bytes); offset %zu + n %zu = %zu is "
                           "past its end",
                           name, capacity, elem_size, bytes, offset, n, offset + n);
    }
    return CLPRIM_SUCCESS;
}

clprim_status clprim_check_no_overlap(clprim_context *ctx, cl_mem src, size_t src_offset, cl_mem dst,
                                      size_t dst_offset, size_t n)
{
    if (src != dst || src_offset == dst_offset || n == 0)
        return CLPRIM_SUCCESS;
    int disjoint = src_offset + n <= dst_offset || dst_offset + n <= src_offset;
    if (disjoint)
        return CLPRIM_SUCCESS;
    return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                       "src and dst are the same buffer with overlapping ranges [%zu, %zu) and [%zu, %zu); "
                       "use equal offsets to work in place",
                       src_offset, src_offset + n, dst_offset, dst_offset + n);
}

clprim_status clprim_check_src_dst(clprim_context *ctx, const char *src_name, cl_mem src, size_t src_offset,
                                   const char *dst_name, cl_mem dst, size_t dst_offset, size_t n,
                                   size_t elem_size)
{
    clprim_status s = clprim_check_buffer(ctx, src_name, src, src_offset, n, elem_size, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, dst_name, dst, dst_offset, n, elem_size, 1);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_no_overlap(ctx, src, src_offset, dst, dst_offset, n);
    return s;
}
