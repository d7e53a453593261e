/* Argument checks shared by every public call; each failure names what was wrong. */
#include "internal.h"

#include <stdio.h>

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

/* The buffer that owns buf's memory and where buf starts in it. OpenCL has no
 * sub-buffers of sub-buffers, but the loop costs nothing if a driver allows them. */
static cl_int find_root(cl_mem buf, cl_mem *root, size_t *origin)
{
    *root = buf;
    *origin = 0;
    for (;;) {
        cl_mem parent = NULL;
        size_t offset = 0;
        cl_int err = clGetMemObjectInfo(*root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
        if (err == CL_SUCCESS && parent)
            err = clGetMemObjectInfo(*root, CL_MEM_OFFSET, sizeof offset, &offset, NULL);
        if (err != CL_SUCCESS || !parent)
            return err;
        *origin += offset;
        *root = parent;
    }
}

clprim_status clprim_check_buffer(clprim_context *ctx, const char *name, cl_mem buf, size_t offset, size_t n,
                                  size_t elem_size, clprim_access access, clprim_region *region)
{
    if (!buf)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is NULL", name);
    size_t bytes = 0;
    cl_context owner = NULL;
    cl_mem_flags flags = 0;
    cl_mem_object_type type = 0;
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    if (err != CL_SUCCESS)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is not a valid buffer (%s)", name,
                           clprim_cl_error_name(err));
    if (type != CL_MEM_OBJECT_BUFFER)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is an image object (CL_MEM_TYPE 0x%x), not a buffer",
                           name, (unsigned)type);
    if (owner != ctx->context)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s belongs to another OpenCL context", name);
    if ((access & CLPRIM_WRITES) && (flags & CL_MEM_READ_ONLY))
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is CL_MEM_READ_ONLY but is written", name);
    if ((access & CLPRIM_READS) && (flags & CL_MEM_WRITE_ONLY))
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is CL_MEM_WRITE_ONLY but is read", name);
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
    if (!region)
        return CLPRIM_SUCCESS;
    cl_mem root;
    size_t origin;
    err = find_root(buf, &root, &origin);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "%s: finding the buffer it is a sub-buffer of", name);
    *region = (clprim_region){root, origin, origin + offset * elem_size, origin + (offset + n) * elem_size,
                              root != buf, 0, elem_size};
    return CLPRIM_SUCCESS;
}

int clprim_same_region(const clprim_region *a, const clprim_region *b)
{
    return a->root == b->root && a->first == b->first && a->end == b->end && a->pitch == b->pitch &&
           a->unit == b->unit;
}

/* " (through a sub-buffer at byte 400)" or "". */
static const char *through(const clprim_region *r, char *buf, size_t size)
{
    if (!r->sub)
        return "";
    snprintf(buf, size, " (through a sub-buffer at byte %zu)", r->origin);
    return buf;
}

clprim_status clprim_check_disjoint(clprim_context *ctx, const char *function, const char *a_name,
                                    const clprim_region *a, const char *b_name, const clprim_region *b,
                                    int allow_same)
{
    if (a->root != b->root || a->first >= a->end || b->first >= b->end || a->end <= b->first ||
        b->end <= a->first)
        return CLPRIM_SUCCESS;
    if (allow_same && clprim_same_region(a, b))
        return CLPRIM_SUCCESS;
    char a_sub[64], b_sub[64];
    return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                       "%s%s%s bytes [%zu, %zu)%s and %s bytes [%zu, %zu)%s overlap in one buffer%s", function,
                       function ? ": " : "", a_name, a->first, a->end, through(a, a_sub, sizeof a_sub), b_name,
                       b->first, b->end, through(b, b_sub, sizeof b_sub),
                       allow_same ? "; in place, both must start at the same byte with the same layout" : "");
}

clprim_status clprim_check_src_dst(clprim_context *ctx, const char *function, const char *src_name, cl_mem *src,
                                   size_t *src_offset, const char *dst_name, cl_mem dst, size_t dst_offset, size_t n,
                                   size_t elem_size, clprim_region *in, clprim_region *out)
{
    clprim_status s = clprim_check_buffer(ctx, src_name, *src, *src_offset, n, elem_size, CLPRIM_READS, in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, dst_name, dst, dst_offset, n, elem_size, CLPRIM_WRITES, out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, function, src_name, in, dst_name, out, 1);
    if (s == CLPRIM_SUCCESS && n > 0 && clprim_same_region(in, out)) {
        *src = dst;
        *src_offset = dst_offset;
    }
    return s;
}

clprim_status clprim_check_offsets(clprim_context *ctx, const char *function, cl_mem offsets, size_t offsets_offset,
                                   size_t segments, clprim_region *region)
{
    if (segments == SIZE_MAX)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: segments %zu leaves no room for its %s offsets",
                           function, segments, "segments + 1");
    return clprim_check_buffer(ctx, "offsets", offsets, offsets_offset, segments + 1, sizeof(cl_ulong), CLPRIM_READS,
                               region);
}
