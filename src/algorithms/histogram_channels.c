/* Multi-channel histograms of RGBA8 pixels (CUB's MultiHistogramEven and
 * MultiHistogramRange): the first `channels` bytes of each 4-byte pixel,
 * each channel into its own bins and counts, all in one pass over the
 * pixels. The kernels are the channel forms of cl/histogram.cl and
 * cl/histogram_range.cl, in their uint8 programs, over block/
 * private_counts.cl's private counts (every channel's bins fit in local
 * memory: at most CHANNEL_LEVELS each). */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define PIXEL_BYTES 4
#define MAX_CHANNELS 4

/* The outputs of a checked call, as the kernels take them. Channels past
 * `channels` repeat channel 0's buffer and are never written. */
typedef struct {
    cl_uint channels;
    cl_mem counts[MAX_CHANNELS];
    cl_ulong4 counts_offset;
    cl_uint4 bins;
} channel_counts;

/* pixels: n RGBA8 pixels from pixel pixels_offset; for each active channel
 * c, bins[c] in 1 .. CHANNEL_LEVELS and counts[c][counts_offset[c] ..
 * + bins[c]) (its bytes to regions[c]), meeting neither the pixels nor
 * another channel's counts. */
static clprim_status check_channels(clprim_context *ctx, const char *fn, cl_mem pixels, size_t pixels_offset,
                                    size_t n, unsigned channels, const size_t bins[], const cl_mem counts[],
                                    const size_t counts_offset[], int accumulate, clprim_region *in,
                                    clprim_region regions[MAX_CHANNELS], channel_counts *out)
{
    memset(out, 0, sizeof *out);
    if (channels < 1 || channels > MAX_CHANNELS)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: channels is %u; it takes 1 to 4 of RGBA", fn,
                           channels);
    if (!bins || !counts || !counts_offset)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                           !bins ? "bins" : !counts ? "counts" : "counts_offset");
    clprim_status s = clprim_check_buffer(ctx, "pixels", pixels, pixels_offset, n, PIXEL_BYTES, CLPRIM_READS, in);
    out->channels = channels;
    for (unsigned c = 0; c < MAX_CHANNELS && s == CLPRIM_SUCCESS; c++) {
        const unsigned from = c < channels ? c : 0;
        out->counts[c] = counts[from];
        out->counts_offset.s[c] = counts_offset[from];
        out->bins.s[c] = (cl_uint)bins[from];
        if (c >= channels)
            continue;
        char name[16];
        snprintf(name, sizeof name, "counts[%u]", c);
        if (bins[c] < 1 || bins[c] > CHANNEL_LEVELS)
            s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: bins[%u] is %zu; it must be 1 .. %d", fn, c, bins[c],
                            CHANNEL_LEVELS);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_buffer(ctx, name, counts[c], counts_offset[c], bins[c], sizeof(cl_uint),
                                    accumulate ? CLPRIM_READS_WRITES : CLPRIM_WRITES, &regions[c]);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, fn, "pixels", in, name, &regions[c], 0);
        for (unsigned other = 0; other < c && s == CLPRIM_SUCCESS; other++) {
            char other_name[16];
            snprintf(other_name, sizeof other_name, "counts[%u]", other);
            s = clprim_check_disjoint(ctx, fn, other_name, &regions[other], name, &regions[c], 0);
        }
    }
    return s;
}

#define COUNTS_ARGS(o)                                                                                                 \
    CLPRIM_ARG((o).counts[0]), CLPRIM_ARG((o).counts[1]), CLPRIM_ARG((o).counts[2]), CLPRIM_ARG((o).counts[3]),        \
        CLPRIM_ARG((o).counts_offset)

/* Before counting: every channel's counts zeroed in one launch, when
 * overwriting them where they cannot settle (settles). */
static void plan_clear(const clprim_context *ctx, clprim_plan *plan, unsigned program, const channel_counts *out)
{
    size_t most = 0;
    for (unsigned c = 0; c < out->channels; c++)
        most = out->bins.s[c] > most ? out->bins.s[c] : most;
    CLPRIM_PLAN_LAUNCH(plan, program, "clear_channels", clprim_fill_groups(&ctx->tuning, most),
                       CLPRIM_ARG(out->channels), CLPRIM_ARG(out->bins), COUNTS_ARGS(*out));
}

/* The split of n pixels at the program's grid, each work-group seeing at
 * least as many pixels as it has bins to clear and merge. */
static clprim_split pixel_split(const clprim_tuning *grid, size_t n)
{
    clprim_tuning shape = *grid;
    const size_t want = n / (MAX_CHANNELS * CHANNEL_LEVELS);
    if (want < shape.groups)
        shape.groups = want > 1 ? want : 1;
    return clprim_split_range(&shape, n);
}

/* Whether the counting launch overwrites the counts itself, settling them
 * through the context's tallies (cl/block/private_counts.cl), channel c's
 * from c * CHANNEL_LEVELS. */
static cl_int settles(const clprim_context *ctx, size_t n, int accumulate)
{
    return !accumulate && n > 0 && clprim_settles(ctx, MAX_CHANNELS * CHANNEL_LEVELS);
}

clprim_status clprim_histogram_channels(clprim_context *ctx, cl_mem pixels, size_t pixels_offset, size_t n,
                                        unsigned channels, const double lo[], const double hi[], const size_t bins[],
                                        const cl_mem counts[], const size_t counts_offset[], int accumulate,
                                        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                        cl_event *event)
{
    static const char fn[] = "clprim_histogram_channels";
    clprim_region in, written[MAX_CHANNELS];
    channel_counts out;
    cl_uchar4 lows = {{0}}, highs = {{0}};
    cl_ulong4 lo_bits = {{0}}, ranges = {{0}};
    cl_int4 divide = {{0}};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = check_channels(ctx, fn, pixels, pixels_offset, n, channels, bins, counts, counts_offset, accumulate, &in,
                           written, &out);
    if (s == CLPRIM_SUCCESS && (!lo || !hi))
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: %s is NULL", fn, !lo ? "lo" : "hi");
    /* Each channel's bins as clprim_histogram finds them for uint8. */
    for (unsigned c = 0; c < channels && s == CLPRIM_SUCCESS; c++) {
        clprim_histogram_params p;
        s = clprim_histogram_prepare(ctx, CLPRIM_UINT8, lo[c], hi[c], bins[c], &p);
        if (s != CLPRIM_SUCCESS) {
            char why[512];
            snprintf(why, sizeof why, "%s", clprim_last_error(ctx));
            s = clprim_fail(ctx, s, "%s: channel %u: %s", fn, c, why);
        }
        lows.s[c] = p.empty ? 255 : p.lo[0]; /* no uint8 value in [lo, hi): lo > hi counts none */
        highs.s[c] = p.empty ? 0 : p.hi[0];
        lo_bits.s[c] = p.lo_bits;
        ranges.s[c] = p.range;
        divide.s[c] = p.divide;
    }
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_plan plan;
    clprim_plan_begin(&plan, "histogram of channels");
    clprim_program program;
    clprim_histogram_program(ctx, clprim_type_info_of(CLPRIM_UINT8), &program);
    const clprim_split split = pixel_split(&program.shape, n);
    const unsigned histogram_cl = clprim_plan_program(&plan, &program);
    const cl_int settle = settles(ctx, n, accumulate);
    if (!accumulate && !settle)
        plan_clear(ctx, &plan, histogram_cl, &out);
    const cl_ulong at = pixels_offset, count = n;
    if (n > 0)
        CLPRIM_PLAN_LAUNCH(&plan, histogram_cl, "histogram_channels", split.groups, CLPRIM_ARG(pixels), CLPRIM_ARG(at),
                           CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(out.channels), CLPRIM_ARG(lows),
                           CLPRIM_ARG(highs), CLPRIM_ARG(lo_bits), CLPRIM_ARG(ranges), CLPRIM_ARG(out.bins),
                           CLPRIM_ARG(divide), COUNTS_ARGS(out), CLPRIM_TALLIES_ARG, CLPRIM_ARG(settle));
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_histogram_channels_range(clprim_context *ctx, cl_mem pixels, size_t pixels_offset, size_t n,
                                              unsigned channels, const cl_mem edges[], const size_t edges_offset[],
                                              const size_t bins[], const cl_mem counts[],
                                              const size_t counts_offset[], int accumulate,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                              cl_event *event)
{
    static const char fn[] = "clprim_histogram_channels_range";
    clprim_region in, limits, written[MAX_CHANNELS];
    channel_counts out;
    cl_mem edge_buffers[MAX_CHANNELS] = {0};
    cl_ulong4 edge_offsets = {{0}};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = check_channels(ctx, fn, pixels, pixels_offset, n, channels, bins, counts, counts_offset, accumulate, &in,
                           written, &out);
    if (s == CLPRIM_SUCCESS && (!edges || !edges_offset))
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: %s is NULL", fn, !edges ? "edges" : "edges_offset");
    /* bins[c] + 1 int edges a channel, which no channel's counts may meet. */
    for (unsigned c = 0; c < MAX_CHANNELS && s == CLPRIM_SUCCESS; c++) {
        const unsigned from = c < channels ? c : 0;
        edge_buffers[c] = edges[from];
        edge_offsets.s[c] = edges_offset[from];
        char name[16];
        snprintf(name, sizeof name, "edges[%u]", c);
        if (c < channels)
            s = clprim_check_buffer(ctx, name, edges[c], edges_offset[c], bins[c] + 1, sizeof(cl_int), CLPRIM_READS,
                                    &limits);
        for (unsigned k = 0; k < channels && c < channels && s == CLPRIM_SUCCESS; k++) {
            char counts_name[16];
            snprintf(counts_name, sizeof counts_name, "counts[%u]", k);
            s = clprim_check_disjoint(ctx, fn, name, &limits, counts_name, &written[k], 0);
        }
    }
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_plan plan;
    clprim_plan_begin(&plan, "histogram of channels over edges");
    clprim_program program;
    clprim_histogram_range_program(ctx, clprim_type_info_of(CLPRIM_UINT8), &program);
    const clprim_split split = pixel_split(&program.shape, n);
    const unsigned range_cl = clprim_plan_program(&plan, &program);
    const cl_int settle = settles(ctx, n, accumulate);
    if (!accumulate && !settle)
        plan_clear(ctx, &plan, range_cl, &out);
    const cl_ulong at = pixels_offset, count = n;
    if (n > 0)
        CLPRIM_PLAN_LAUNCH(&plan, range_cl, "histogram_range_channels", split.groups, CLPRIM_ARG(pixels),
                           CLPRIM_ARG(at), CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(out.channels),
                           CLPRIM_ARG(edge_buffers[0]), CLPRIM_ARG(edge_buffers[1]), CLPRIM_ARG(edge_buffers[2]),
                           CLPRIM_ARG(edge_buffers[3]), CLPRIM_ARG(edge_offsets), CLPRIM_ARG(out.bins),
                           COUNTS_ARGS(out), CLPRIM_TALLIES_ARG, CLPRIM_ARG(settle));
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

/* ---- Descriptor ---- */

/* The uint8 programs of histogram.cl and histogram_range.cl, which hold the
 * channel kernels. */
static void histogram_channels_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    clprim_program p;
    clprim_histogram_program(ctx, clprim_type_info_of(CLPRIM_UINT8), &p);
    clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
    clprim_histogram_range_program(ctx, clprim_type_info_of(CLPRIM_UINT8), &p);
    clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
}

const clprim_primitive clprim_histogram_channels_primitive = {"histogram_channels", NULL,
                                                              histogram_channels_variants};
