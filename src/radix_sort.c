/* Radix sort: stable LSD sort of 32-bit keys, CLPRIM_RADIX_BITS bits per pass.
 * Each pass is radix_count (digit counts per work-group, digit-major), an
 * exclusive scan of the counts by clprim_scan_device, and radix_scatter (a stable
 * scatter ranked in local memory); see cl/radix_sort.cl. The passes ping-pong
 * between the output and a temporary from the context's scratch, arranged so
 * that the last pass writes the output. */
#include "radix_sort.h"

#include <stdint.h>
#include <stdio.h>

#define RADIX (1u << CLPRIM_RADIX_BITS)
#define SCRATCH_ALIGN 256

static size_t align_up(size_t x)
{
    return (x + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

/* Where each piece lives in the scratch, in bytes from the start of the sort's part. */
typedef struct {
    clprim_split split;
    size_t tmp_keys, tmp_values, counts, scan, total;
} sort_layout;

/* Local memory of radix_scatter, the larger of the two kernels. */
static cl_ulong local_bytes(const clprim_tuning *t, int with_values)
{
    cl_ulong tile = (cl_ulong)t->work_group_size * t->items_per_thread;
    cl_ulong padded = tile + tile / 32;
    return padded * 4u * (with_values ? 2u : 1u) + (cl_ulong)RADIX * t->work_group_size * 4u +
           t->work_group_size * 4u + (RADIX + 1) * 4u + RADIX * 8u;
}

/* The context's tuning with items_per_thread halved until radix_scatter fits in
 * local memory (its tile is twice the scan's with values, and it keeps a digit
 * histogram per work-item). *fits is 0 when not even one item does. */
static clprim_tuning sort_tuning(const clprim_context *ctx, int with_values, int *fits)
{
    clprim_tuning t = ctx->tuning;
    while (t.items_per_thread > 1 && local_bytes(&t, with_values) > ctx->local_mem_size)
        t.items_per_thread /= 2;
    if (fits)
        *fits = local_bytes(&t, with_values) <= ctx->local_mem_size;
    return t;
}

static sort_layout plan(const clprim_context *ctx, size_t n, int with_values)
{
    sort_layout l;
    const clprim_tuning t = sort_tuning(ctx, with_values, NULL);
    l.split = clprim_split_range(&t, n);
    size_t ncounts = RADIX * l.split.groups;
    l.tmp_keys = 0;
    l.tmp_values = align_up(n * sizeof(cl_uint));
    l.counts = l.tmp_values + (with_values ? align_up(n * sizeof(cl_uint)) : 0);
    l.scan = l.counts + align_up(ncounts * sizeof(cl_ulong));
    l.total = l.scan + clprim_scan_scratch_bytes(&ctx->tuning, ncounts, sizeof(cl_ulong));
    return l;
}

size_t clprim_radix_sort_scratch_bytes(const clprim_context *ctx, size_t n, int with_values)
{
    return plan(ctx, n, with_values).total;
}

static const char *key_define(clprim_type t)
{
    switch (t) {
    case CLPRIM_INT32: return "KEY_INT32";
    case CLPRIM_FLOAT: return "KEY_FLOAT";
    default: return "KEY_UINT32";
    }
}

int clprim_radix_sort_options(clprim_context *ctx, clprim_type t, int with_values, char *options, size_t size)
{
    /* The kernels are built for the sort's own items per thread (the same
     * -D format as every kernel: clprim_kernel_options, under that tuning). */
    int fits;
    const clprim_tuning tuning = sort_tuning(ctx, with_values, &fits);
    snprintf(options, size, "-D%s -DWITH_VALUES=%d -DRADIX_BITS=%u", key_define(t), with_values,
             CLPRIM_RADIX_BITS);
    const clprim_tuning saved = ctx->tuning;
    ctx->tuning = tuning;
    clprim_kernel_options(ctx, clprim_type_info_of(CLPRIM_UINT32), CLPRIM_SUM, options, size);
    ctx->tuning = saved;
    return fits;
}

clprim_status clprim_radix_sort_device(clprim_context *ctx, clprim_type t, unsigned bits, cl_mem keys_in,
                                       cl_ulong keys_in_offset, cl_mem keys_out, cl_ulong keys_out_offset,
                                       cl_mem values_in, cl_ulong values_in_offset, cl_mem values_out,
                                       cl_ulong values_out_offset, size_t n, cl_mem scratch,
                                       size_t scratch_offset, cl_event *event)
{
    const int with_values = values_out != NULL;
    int fits;
    const clprim_tuning tuning = sort_tuning(ctx, with_values, &fits);
    if (!fits)
        return clprim_fail(ctx, CLPRIM_UNSUPPORTED,
                           "radix sort: work-groups of %zu need %llu bytes of local memory even with one item "
                           "each (a digit histogram per work-item); %s has %llu (lower work_group_size with "
                           "clprim_set_tuning)",
                           tuning.work_group_size, (unsigned long long)local_bytes(&tuning, with_values),
                           ctx->device_name, (unsigned long long)ctx->local_mem_size);

    char options[256];
    clprim_radix_sort_options(ctx, t, with_values, options, sizeof options);
    cl_kernel count, scatter;
    clprim_status s = clprim_get_kernel(ctx, "radix_sort.cl", options, "radix_count", &count);
    if (s == CLPRIM_SUCCESS)
        s = clprim_get_kernel(ctx, "radix_sort.cl", options, "radix_scatter", &scatter);
    if (s != CLPRIM_SUCCESS)
        return s;

    const sort_layout l = plan(ctx, n, with_values);
    const size_t ncounts = RADIX * l.split.groups;
    const cl_ulong counts_offset = (scratch_offset + l.counts) / sizeof(cl_ulong);
    const cl_ulong tmp_keys = (scratch_offset + l.tmp_keys) / sizeof(cl_uint);
    const cl_ulong tmp_values = (scratch_offset + l.tmp_values) / sizeof(cl_uint);
    const clprim_type_info *u64 = clprim_type_info_of(CLPRIM_UINT64);

    /* Pass i writes the output when i + parity is odd, so that the last pass lands
     * in the output. With an odd number of passes that makes the first pass write
     * the output while it reads the input: fine when they differ; when they are the
     * same (in place), the passes start in the temporary, end there, and a copy follows. */
    const unsigned passes = (bits + CLPRIM_RADIX_BITS - 1) / CLPRIM_RADIX_BITS;
    const int in_place = (keys_in == keys_out && keys_in_offset == keys_out_offset) ||
                         (with_values && values_in == values_out && values_in_offset == values_out_offset);
    const unsigned parity = (passes % 2 == 1 && !in_place) ? 1 : 0;
    const int copy_back = passes % 2 == 1 && in_place;

    cl_mem ksrc = keys_in, vsrc = values_in ? values_in : keys_in; /* vsrc unread for indices */
    cl_ulong ksrc_off = keys_in_offset, vsrc_off = values_in ? values_in_offset : 0;
    cl_int indices = with_values && !values_in;
    const cl_ulong count_n = n;
    for (unsigned i = 0; i < passes; i++) {
        const int to_out = (i + parity) % 2 == 1;
        cl_mem kdst = to_out ? keys_out : scratch;
        cl_ulong kdst_off = to_out ? keys_out_offset : tmp_keys;
        cl_mem vdst = with_values ? (to_out ? values_out : scratch) : kdst;
        cl_ulong vdst_off = with_values ? (to_out ? values_out_offset : tmp_values) : kdst_off;
        cl_uint shift = i * CLPRIM_RADIX_BITS;
        const int last = i + 1 == passes && !copy_back;

        const clprim_arg count_args[] = {CLPRIM_ARG(ksrc),         CLPRIM_ARG(ksrc_off),
                                         CLPRIM_ARG(count_n),      CLPRIM_ARG(l.split.chunk),
                                         CLPRIM_ARG(shift),        CLPRIM_ARG(scratch),
                                         CLPRIM_ARG(counts_offset)};
        s = clprim_launch(ctx, count, "radix sort (radix_count)", l.split.groups, count_args, 7, NULL);
        if (s == CLPRIM_SUCCESS)
            s = clprim_scan_device(ctx, u64, CLPRIM_SUM, 1, scratch, counts_offset, scratch, counts_offset,
                                   ncounts, scratch, scratch_offset + l.scan, NULL);
        if (s != CLPRIM_SUCCESS)
            return s;
        const clprim_arg scatter_args[] = {
            CLPRIM_ARG(ksrc),    CLPRIM_ARG(ksrc_off), CLPRIM_ARG(kdst),      CLPRIM_ARG(kdst_off),
            CLPRIM_ARG(vsrc),    CLPRIM_ARG(vsrc_off), CLPRIM_ARG(vdst),      CLPRIM_ARG(vdst_off),
            CLPRIM_ARG(indices), CLPRIM_ARG(count_n),  CLPRIM_ARG(l.split.chunk), CLPRIM_ARG(shift),
            CLPRIM_ARG(scratch), CLPRIM_ARG(counts_offset)};
        s = clprim_launch(ctx, scatter, "radix sort (radix_scatter)", l.split.groups, scatter_args, 14,
                          last ? event : NULL);
        if (s != CLPRIM_SUCCESS)
            return s;
        ksrc = kdst;
        ksrc_off = kdst_off;
        vsrc = vdst;
        vsrc_off = vdst_off;
        indices = 0;
    }
    if (copy_back) {
        cl_int err = clEnqueueCopyBuffer(ctx->queue, scratch, keys_out, tmp_keys * sizeof(cl_uint),
                                         keys_out_offset * sizeof(cl_uint), n * sizeof(cl_uint), 0, NULL,
                                         with_values ? NULL : event);
        if (err == CL_SUCCESS && with_values)
            err = clEnqueueCopyBuffer(ctx->queue, scratch, values_out, tmp_values * sizeof(cl_uint),
                                      values_out_offset * sizeof(cl_uint), n * sizeof(cl_uint), 0, NULL, event);
        if (err != CL_SUCCESS)
            return clprim_fail_cl(ctx, err, "radix sort: copying the last pass to the output");
    }
    return CLPRIM_SUCCESS;
}

/* ---- The public calls ---- */

static clprim_status sort(clprim_context *ctx, const char *fn, clprim_type t, cl_mem keys_in,
                          size_t keys_in_offset, cl_mem keys_out, size_t keys_out_offset, int pairs,
                          cl_mem values_in, size_t values_in_offset, cl_mem values_out,
                          size_t values_out_offset, size_t n, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event)
{
    const clprim_type_info *type;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, t, &type);
    if (s == CLPRIM_SUCCESS && t != CLPRIM_UINT32 && t != CLPRIM_INT32 && t != CLPRIM_FLOAT)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s sorts uint32, int32 and float keys, not %s", fn,
                        type->label);
    clprim_region keys_read, keys_written, values_read = {0}, values_written = {0};
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, fn, "keys_in", &keys_in, &keys_in_offset, "keys_out", keys_out,
                                 keys_out_offset, n, 4, &keys_read, &keys_written);
    if (pairs) {
        if (s == CLPRIM_SUCCESS && values_in)
            s = clprim_check_src_dst(ctx, fn, "values_in", &values_in, &values_in_offset, "values_out", values_out,
                                     values_out_offset, n, 4, &values_read, &values_written);
        else if (s == CLPRIM_SUCCESS)
            s = clprim_check_buffer(ctx, "values_out", values_out, values_out_offset, n, 4, CLPRIM_WRITES,
                                    &values_written);
        /* An output may meet nothing but its own input in place. */
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, fn, "keys_out", &keys_written, "values_out", &values_written, 0);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, fn, "keys_out", &keys_written, "values_in", &values_read, 0);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, fn, "values_out", &values_written, "keys_in", &keys_read, 0);
        if (s == CLPRIM_SUCCESS && !values_in && (cl_ulong)n > (cl_ulong)UINT32_MAX + 1)
            s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                            "%s: values_in is NULL (values are the indices) but n = %zu has indices beyond "
                            "uint32",
                            fn, n);
    }
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    if (n == 0)
        return clprim_enqueue_nothing(ctx, num_events_in_wait_list, event_wait_list, event);

    cl_mem scratch;
    s = clprim_scratch(ctx, clprim_radix_sort_scratch_bytes(ctx, n, pairs), &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    return clprim_radix_sort_device(ctx, t, 32, keys_in, keys_in_offset, keys_out, keys_out_offset,
                                    pairs ? values_in : NULL, values_in_offset, pairs ? values_out : NULL,
                                    values_out_offset, n, scratch, 0, event);
}

clprim_status clprim_sort_keys(clprim_context *ctx, clprim_type t, cl_mem keys_in, size_t keys_in_offset,
                               cl_mem keys_out, size_t keys_out_offset, size_t n, cl_uint num_events_in_wait_list,
                               const cl_event *event_wait_list, cl_event *event)
{
    return sort(ctx, "clprim_sort_keys", t, keys_in, keys_in_offset, keys_out, keys_out_offset, 0, NULL, 0,
                NULL, 0, n, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_sort_pairs(clprim_context *ctx, clprim_type t, cl_mem keys_in, size_t keys_in_offset,
                                cl_mem keys_out, size_t keys_out_offset, cl_mem values_in,
                                size_t values_in_offset, cl_mem values_out, size_t values_out_offset, size_t n,
                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    return sort(ctx, "clprim_sort_pairs", t, keys_in, keys_in_offset, keys_out, keys_out_offset, 1, values_in,
                values_in_offset, values_out, values_out_offset, n, num_events_in_wait_list, event_wait_list,
                event);
}
