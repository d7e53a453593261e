/* Stream compaction: the scan's three-pass skeleton over kept counts (see
 * cl/compact.cl). Pass 1 counts per work-group, clprim_scan_device scans the
 * counts in scratch, pass 3 scatters in input order. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRATCH_ALIGN 256

static size_t align_up(size_t x)
{
    return (x + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

/* The grid of compaction and histograms: the tuning's, with twice the groups on
 * GPUs. Both kernels wait on barriers (compaction) or local atomics (histogram)
 * and gain from more resident work-items than the scan: on an H100 at 2^28
 * int32, 1056 groups of 256 (2048 work-items per SM) took compaction from 1.54
 * to 1.20 ms and a 256-bin histogram from 0.88 to 0.52 ms against the table's
 * 528 groups; 264 were twice as slow again. CPUs keep one group per core. */
clprim_tuning clprim_compact_grid(const clprim_context *ctx)
{
    clprim_tuning grid = ctx->tuning;
    if ((ctx->device_type & CL_DEVICE_TYPE_GPU) && grid.groups <= 65536)
        grid.groups *= 2;
    return grid;
}

static const char *const keep_defines[] = {
    [CLPRIM_KEEP_LT] = "KEEP_LT",           [CLPRIM_KEEP_LE] = "KEEP_LE",
    [CLPRIM_KEEP_GT] = "KEEP_GT",           [CLPRIM_KEEP_GE] = "KEEP_GE",
    [CLPRIM_KEEP_EQ] = "KEEP_EQ",           [CLPRIM_KEEP_NE] = "KEEP_NE",
    [CLPRIM_KEEP_NONZERO] = "KEEP_NONZERO", [CLPRIM_KEEP_FLAGGED] = "KEEP_FLAGGED",
    [CLPRIM_KEEP_EXPRESSION] = "KEEP_EXPR",
};

const char *clprim_keep_name(clprim_keep keep)
{
    static const char *const names[] = {
        [CLPRIM_KEEP_LT] = "<",          [CLPRIM_KEEP_LE] = "<=",         [CLPRIM_KEEP_GT] = ">",
        [CLPRIM_KEEP_GE] = ">=",         [CLPRIM_KEEP_EQ] = "==",         [CLPRIM_KEEP_NE] = "!=",
        [CLPRIM_KEEP_NONZERO] = "nonzero", [CLPRIM_KEEP_FLAGGED] = "flagged",
        [CLPRIM_KEEP_EXPRESSION] = "expression",
    };
    return (unsigned)keep < sizeof names / sizeof names[0] ? names[keep] : "unknown";
}

clprim_status clprim_compact_options(clprim_context *ctx, clprim_type t, const clprim_type_info *type,
                                     const clprim_predicate *keep, char **options)
{
    *options = NULL;
    char *expression = NULL;
    if (keep->keep == CLPRIM_KEEP_EXPRESSION) {
        const clprim_expression_variable vars[] = {{"x", clprim_scalar_name(t)}, {"i", "ulong"}};
        clprim_status s = clprim_parse_expression(ctx, "keep->expression", keep->expression, vars, 2, &expression);
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    size_t size = 512 + (expression ? strlen(expression) : 0);
    char *buf = malloc(size);
    if (!buf) {
        free(expression);
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    }
    buf[0] = '\0';
    clprim_kernel_options(ctx, type, -1, buf, size);
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, " -D%s%s%s", keep_defines[keep->keep], expression ? "=" : "",
             expression ? expression : "");
    free(expression);
    *options = buf;
    return CLPRIM_SUCCESS;
}

static clprim_status check_predicate(clprim_context *ctx, const clprim_predicate *keep, size_t n,
                                     clprim_region *flags)
{
    if (!keep)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "keep (the predicate) is NULL");
    if ((unsigned)keep->keep > CLPRIM_KEEP_EXPRESSION)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "unknown clprim_keep %d in keep->keep", (int)keep->keep);
    if (keep->keep <= CLPRIM_KEEP_NE && !keep->value)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "keep->value is NULL; comparison %s needs one element of the array's type",
                           clprim_keep_name(keep->keep));
    if (keep->keep == CLPRIM_KEEP_FLAGGED) {
        if (!keep->flags)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "keep->flags is NULL (CLPRIM_KEEP_FLAGGED)");
        return clprim_check_buffer(ctx, "keep->flags", keep->flags, keep->flags_offset, n, 1, CLPRIM_READS, flags);
    }
    return CLPRIM_SUCCESS;
}

/* Gets both kernels; a build failure of an expression says which expression. */
static clprim_status get_kernels(clprim_context *ctx, clprim_type t, const clprim_type_info *type,
                                 const clprim_predicate *keep, cl_kernel *count, cl_kernel *scatter, cl_kernel *copy)
{
    char *options;
    clprim_status s = clprim_compact_options(ctx, t, type, keep, &options);
    if (s != CLPRIM_SUCCESS)
        return s;
    s = clprim_get_kernel(ctx, "compact.cl", options, "count_chunks", count);
    if (s == CLPRIM_SUCCESS)
        s = clprim_get_kernel(ctx, "compact.cl", options, "scatter_chunks", scatter);
    if (s == CLPRIM_SUCCESS && copy)
        s = clprim_get_kernel(ctx, "compact.cl", options, "copy_elements", copy);
    free(options);
    if (s == CLPRIM_BUILD_FAILED && keep->keep == CLPRIM_KEEP_EXPRESSION) {
        char *log = strdup(clprim_last_error(ctx));
        cl_int err = clprim_last_cl_error(ctx);
        clprim_fail(ctx, s, "the keep expression \"%s\" (x: %s) did not compile: ", keep->expression,
                    type->label);
        clprim_append_error(ctx, log ? log : "(out of host memory for the build log)");
        ctx->cl_error = err;
        free(log);
    }
    return s;
}

clprim_status clprim_compact(clprim_context *ctx, clprim_type t, const clprim_predicate *keep, cl_mem src,
                             size_t src_offset, cl_mem dst, size_t dst_offset, size_t n, size_t *kept,
                             cl_mem kept_buffer, size_t kept_offset, cl_uint num_events_in_wait_list,
                             const cl_event *event_wait_list, cl_event *event)
{
    static const char *const fn = "clprim_compact";
    const clprim_type_info *type;
    clprim_region flag_bytes = {0}, src_bytes, dst_bytes, kept_bytes = {0};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, t, &type);
    if (s == CLPRIM_SUCCESS)
        s = check_predicate(ctx, keep, n, &flag_bytes);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, fn, "src", &src, &src_offset, "dst", dst, dst_offset, n, type->size, &src_bytes,
                                 &dst_bytes);
    if (s == CLPRIM_SUCCESS && kept_buffer)
        s = clprim_check_buffer(ctx, "kept_buffer", kept_buffer, kept_offset, 1, sizeof(cl_ulong), CLPRIM_WRITES,
                                &kept_bytes);
    /* Outputs meet nothing but src in place; empty regions meet nothing. */
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "keep->flags", &flag_bytes, "dst", &dst_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "kept_buffer", &kept_bytes, "dst", &dst_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "kept_buffer", &kept_bytes, "src", &src_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "kept_buffer", &kept_bytes, "keep->flags", &flag_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    const size_t es = type->size;

    /* Build (or fetch) the kernels before anything is enqueued: a predicate that
     * does not compile leaves every buffer untouched. */
    const int in_place = src == dst && src_offset == dst_offset && n > 0;
    cl_kernel count_k, scatter_k, copy_k = NULL;
    s = get_kernels(ctx, t, type, keep, &count_k, &scatter_k, in_place ? &copy_k : NULL);
    if (s != CLPRIM_SUCCESS)
        return s;

    cl_int err;
    if (n == 0) {
        /* A count for the host blocks, here until the wait list completes. */
        if (!kept_buffer) {
            s = clprim_enqueue_nothing(ctx, num_events_in_wait_list, event_wait_list, event);
            if (s == CLPRIM_SUCCESS && kept)
                s = clprim_wait_events(ctx, num_events_in_wait_list, event_wait_list);
            if (s == CLPRIM_SUCCESS && kept)
                *kept = 0;
            return s;
        }
        /* One work-group over nothing writes the count 0 (a kernel rather than
         * clEnqueueFillBuffer, whose bytes oclgrind does not see as initialised). */
        cl_ulong zero = 0, at = kept_offset, src_at0 = src_offset;
        cl_int none = 0, write = 1;
        const clprim_arg args[] = {CLPRIM_ARG(src),    CLPRIM_ARG(src_at0),     CLPRIM_ARG(src),
                                   CLPRIM_ARG(zero),   {type->size, &zero},     CLPRIM_ARG(dst),
                                   CLPRIM_ARG(zero),   CLPRIM_ARG(zero),        CLPRIM_ARG(zero),
                                   CLPRIM_ARG(kept_buffer), CLPRIM_ARG(zero),   CLPRIM_ARG(none),
                                   CLPRIM_ARG(kept_buffer), CLPRIM_ARG(at),     CLPRIM_ARG(write)};
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
        if (s == CLPRIM_SUCCESS)
            s = clprim_launch(ctx, scatter_k, "compaction (count 0)", 1, args, 15, event);
        if (s == CLPRIM_SUCCESS && kept)
            s = clprim_wait_events(ctx, num_events_in_wait_list, event_wait_list);
        if (s == CLPRIM_SUCCESS && kept)
            *kept = 0;
        return s;
    }

    /* Scratch: counts | the counts' scan | the total | the input copy (in place). */
    const clprim_type_info *counts_type = clprim_type_info_of(CLPRIM_UINT64);
    clprim_tuning grid = clprim_compact_grid(ctx);
    clprim_split split = clprim_split_range(&grid, n);
    size_t counts_at = 0, scan_at = align_up(split.groups * sizeof(cl_ulong));
    size_t total_at = scan_at + align_up(clprim_scan_scratch_bytes(&ctx->tuning, split.groups, sizeof(cl_ulong)));
    size_t copy_at = total_at + SCRATCH_ALIGN;
    size_t bytes = copy_at;
    if (in_place) {
        if (n > (SIZE_MAX - copy_at) / es)
            return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "in-place compaction of %zu elements needs too much scratch",
                               n);
        bytes += n * es;
    }
    cl_mem scratch;
    s = clprim_scratch(ctx, bytes, &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    cl_mem in = src;
    cl_ulong in_offset = src_offset;
    if (in_place) {
        in = scratch;
        in_offset = copy_at / es;
        cl_ulong from = src_offset, count_all = n;
        size_t groups = (n + ctx->tuning.work_group_size - 1) / ctx->tuning.work_group_size;
        if (groups > ctx->tuning.groups * 4)
            groups = ctx->tuning.groups * 4;
        const clprim_arg args[] = {CLPRIM_ARG(src), CLPRIM_ARG(from), CLPRIM_ARG(scratch), CLPRIM_ARG(in_offset),
                                   CLPRIM_ARG(count_all)};
        s = clprim_launch(ctx, copy_k, "in-place compaction (copy_elements)", groups, args, 5, NULL);
        if (s != CLPRIM_SUCCESS)
            return s;
    }

    cl_mem flags = keep->keep == CLPRIM_KEEP_FLAGGED ? keep->flags : in; /* unread unless FLAGGED */
    cl_ulong flags_offset = keep->keep == CLPRIM_KEEP_FLAGGED ? keep->flags_offset : 0;
    cl_ulong value = 0; /* the widest element; the kernels take es bytes of it */
    if (keep->keep <= CLPRIM_KEEP_NE)
        memcpy(&value, keep->value, es);
    cl_ulong count = n, counts_offset = counts_at / sizeof(cl_ulong);
    /* Seed modes of scatter_chunks, as in the scan: none for one group; each
     * group folds the counts before it while they fit a tile; else pass 2. */
    cl_int seed_mode = split.groups == 1                                                               ? 0
                       : split.groups <= ctx->tuning.work_group_size * ctx->tuning.items_per_thread ? 1
                                                                                                      : 2;
    if (seed_mode != 0) {
        const clprim_arg pass1[] = {CLPRIM_ARG(in),          CLPRIM_ARG(in_offset), CLPRIM_ARG(flags),
                                    CLPRIM_ARG(flags_offset), {es, &value},          CLPRIM_ARG(count),
                                    CLPRIM_ARG(split.chunk), CLPRIM_ARG(scratch),   CLPRIM_ARG(counts_offset)};
        s = clprim_launch(ctx, count_k, "compaction pass 1 (count_chunks)", split.groups, pass1, 9, NULL);
        if (s == CLPRIM_SUCCESS && seed_mode == 2)
            s = clprim_scan_device(ctx, counts_type, CLPRIM_SUM, 0, scratch, counts_offset, scratch, counts_offset,
                                   split.groups, scratch, scan_at, NULL);
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    cl_int write_count = kept || kept_buffer;
    cl_mem count_out = kept_buffer ? kept_buffer : scratch;
    cl_ulong count_offset = kept_buffer ? kept_offset : total_at / sizeof(cl_ulong);
    cl_ulong out_offset = dst_offset;
    const clprim_arg pass3[] = {CLPRIM_ARG(in),          CLPRIM_ARG(in_offset),     CLPRIM_ARG(flags),
                                CLPRIM_ARG(flags_offset), {es, &value},             CLPRIM_ARG(dst),
                                CLPRIM_ARG(out_offset), CLPRIM_ARG(count), CLPRIM_ARG(split.chunk),
                                CLPRIM_ARG(scratch),     CLPRIM_ARG(counts_offset), CLPRIM_ARG(seed_mode),
                                CLPRIM_ARG(count_out),   CLPRIM_ARG(count_offset),  CLPRIM_ARG(write_count)};
    s = clprim_launch(ctx, scatter_k, "compaction pass 3 (scatter_chunks)", split.groups, pass3, 15,
                      kept ? NULL : event);
    if (s != CLPRIM_SUCCESS || !kept)
        return s;
    cl_ulong total = 0;
    err = clEnqueueReadBuffer(ctx->queue, count_out, CL_TRUE, count_offset * sizeof total, sizeof total, &total, 0,
                              NULL, event);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "reading the kept count back");
    *kept = (size_t)total;
    return CLPRIM_SUCCESS;
}
