/* Histograms over the caller's bin edges: each work-group copies the edges
 * to local memory and counts its chunk there, merged with one atomic per bin
 * per work-group; edges and counts too large for local memory fall back to
 * one global atomic per element (cl/histogram_range.cl). The edges stay on
 * the device: the host checks sizes, never values (include/clprim.h). */
#include "internal.h"

#define LOCAL_RESERVE 256 /* bytes of local memory left to the implementation */

void clprim_histogram_range_program(const clprim_context *ctx, const clprim_type_info *type, clprim_program *p)
{
    const clprim_tuning grid = clprim_compact_grid(ctx);
    clprim_program_begin(ctx, p, "histogram over edges", "histogram_range.cl", &grid, type, -1);
}

/* Whether bins + 1 edges and bins + 1 counters (a spare for the CPU shape) fit
 * in local_bytes of local memory. */
static int fits_local(cl_ulong local_bytes, const clprim_type_info *type, size_t bins)
{
    if (local_bytes <= LOCAL_RESERVE)
        return 0;
    return ((cl_ulong)bins + 1) <= (local_bytes - LOCAL_RESERVE) / (type->size + sizeof(cl_uint));
}

/* The plan of a checked call: edges and counts in local memory when both
 * fit, else the edges from global memory and one global atomic per counted
 * element; before them the clearing (overwrite mode, unless settled). */
static void plan_histogram_range(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *type,
                                 cl_mem src, size_t src_offset, size_t n, cl_mem edges, size_t edges_offset,
                                 size_t bins, cl_mem counts, size_t counts_offset, int accumulate,
                                 const clprim_histogram_range_plan *how)
{
    if (n == 0 && accumulate)
        return;
    const cl_ulong local_bytes = how && how->local_bytes ? how->local_bytes : ctx->local_mem_size;
    const int global = !fits_local(local_bytes, type, bins);
    clprim_program program;
    clprim_histogram_range_program(ctx, type, &program);
    /* With local counts, each work-group should see at least as many elements
     * as it has edges to copy and bins to merge. */
    clprim_tuning split_shape = program.shape;
    const size_t zero_groups = clprim_fill_groups(&program.shape, bins);
    const unsigned range_cl = clprim_plan_program(plan, &program);
    if (!global) {
        const size_t want = n / bins;
        if (want < split_shape.groups)
            split_shape.groups = want > 1 ? want : 1;
    }
    const clprim_split split = clprim_split_range(&split_shape, n);

    const cl_ulong a_counts_offset = counts_offset, a_src_offset = src_offset, a_n = n;
    const cl_ulong a_edges_offset = edges_offset;
    /* Local counts overwrite the counts themselves, settling them through
     * the context's tallies where they can (cl/block/private_counts.cl). */
    const cl_int settle = !accumulate && n > 0 && !global && clprim_settles(ctx, bins);
    if (!accumulate && !settle) {
        const cl_ulong count_bins = bins;
        const cl_int zero = 0;
        CLPRIM_PLAN_LAUNCH(plan, range_cl, "fill_words", zero_groups, CLPRIM_ARG(counts), CLPRIM_ARG(a_counts_offset),
                           CLPRIM_ARG(count_bins), CLPRIM_ARG(zero));
    }
    if (n == 0)
        return;
    const cl_uint a_bins = (cl_uint)bins;
    if (global)
        CLPRIM_PLAN_LAUNCH(plan, range_cl, "histogram_range_global", split.groups, CLPRIM_ARG(src),
                           CLPRIM_ARG(a_src_offset), CLPRIM_ARG(a_n), CLPRIM_ARG(split.chunk), CLPRIM_ARG(edges),
                           CLPRIM_ARG(a_edges_offset), CLPRIM_ARG(a_bins), CLPRIM_ARG(counts),
                           CLPRIM_ARG(a_counts_offset));
    else
        CLPRIM_PLAN_LAUNCH(plan, range_cl, "histogram_range_local", split.groups, CLPRIM_ARG(src),
                           CLPRIM_ARG(a_src_offset), CLPRIM_ARG(a_n), CLPRIM_ARG(split.chunk), CLPRIM_ARG(edges),
                           CLPRIM_ARG(a_edges_offset), CLPRIM_ARG(a_bins), CLPRIM_ARG(counts),
                           CLPRIM_ARG(a_counts_offset), CLPRIM_LOCAL((bins + 1) * type->size),
                           CLPRIM_LOCAL((bins + 1) * sizeof(cl_uint)), CLPRIM_TALLIES_ARG, CLPRIM_ARG(settle));
}

clprim_status clprim_histogram_range_checked(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset,
                                             size_t n, cl_mem edges, size_t edges_offset, size_t bins,
                                             cl_mem counts, size_t counts_offset, int accumulate,
                                             const clprim_histogram_range_plan *plan,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             cl_event *event)
{
    static const char function[] = "clprim_histogram_range";
    const clprim_type_info *type;
    clprim_region in, limits, out;
    CLPRIM_ENTER(s, ctx, function);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, t, &type);
    if (s == CLPRIM_SUCCESS && (bins == 0 || bins > HIST_MAX_BINS))
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: bins is %zu; it must be 1 .. 2^31", function, bins);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, src_offset, n, type->size, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS) /* bins + 1 edges: bins <= 2^31, no overflow */
        s = clprim_check_buffer(ctx, "edges", edges, edges_offset, bins + 1, type->size, CLPRIM_READS, &limits);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "counts", counts, counts_offset, bins, sizeof(cl_uint),
                                accumulate ? CLPRIM_READS_WRITES : CLPRIM_WRITES, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, function, "src", &in, "counts", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, function, "edges", &limits, "counts", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, function, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan histogram;
    clprim_plan_begin(&histogram, "histogram over edges");
    plan_histogram_range(ctx, &histogram, type, src, src_offset, n, edges, edges_offset, bins, counts, counts_offset,
                         accumulate, plan);
    return clprim_execute(ctx, &histogram, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_histogram_range(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset, size_t n,
                                     cl_mem edges, size_t edges_offset, size_t bins, cl_mem counts,
                                     size_t counts_offset, int accumulate, cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event)
{
    return clprim_histogram_range_checked(ctx, t, src, src_offset, n, edges, edges_offset, bins, counts,
                                          counts_offset, accumulate, NULL, num_events_in_wait_list, event_wait_list,
                                          event);
}

/* ---- Descriptor ---- */

static void histogram_range_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                                     const clprim_type_info *type)
{
    (void)t;
    clprim_program p;
    clprim_histogram_range_program(ctx, type, &p);
    clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
}

const clprim_primitive clprim_histogram_range_primitive = {"histogram_range", histogram_range_variants, NULL};
