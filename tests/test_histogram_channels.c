/* clprim_histogram_channels and clprim_histogram_channels_range against
 * reference_histogram over each channel (stride 4) and a linear walk of
 * each channel's int edges: 1 to 4 active channels, each its own bins (1,
 * 256, uneven widths, bounds past 0 and 256, a range holding no uint8
 * value), counts in one buffer or four, overwrite and accumulate, pixel
 * counts from 0 past several chunks, the device's shape and small
 * work-groups; the counts' neighbours and the inactive channels untouched;
 * and every bad argument. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "reference_compact_histogram.h"

#define CHANNELS 4
#define LEVELS 256

/* One channel's bins: even over [lo, hi), or between edges. */
typedef struct {
    size_t bins;
    double lo, hi;
    cl_int edges[LEVELS + 1];
} channel_bins;

/* Random bins for a channel: often all 256 values, else a few to 256 bins
 * over a range that may start below 0, end past 256 or miss [0, 256). */
static channel_bins random_bins(uint64_t *rng)
{
    channel_bins b;
    const unsigned pick = (unsigned)(harness_rand(rng) % 5);
    b.bins = pick == 0 ? LEVELS : pick == 1 ? 1 : 1 + harness_rand(rng) % LEVELS;
    b.lo = pick == 0 ? 0 : (double)(harness_rand(rng) % 300) - 40;
    b.hi = pick == 0 ? 256 : b.lo + (double)b.bins + (double)(harness_rand(rng) % 300);
    /* Ascending edges from lo, steps of 1 to 3 (some past 256). */
    cl_int at = (cl_int)b.lo;
    for (size_t k = 0; k <= b.bins; k++) {
        b.edges[k] = at;
        at += 1 + (cl_int)(harness_rand(rng) % 3);
    }
    return b;
}

/* Channel c's counts for n pixels as the library must give them. */
static void reference_channel(const unsigned char *pixels, size_t n, unsigned c, const channel_bins *b, int range,
                              uint32_t *counts)
{
    if (!range) {
        reference_histogram(CLPRIM_UINT8, pixels + c, CHANNELS, n, b->lo, b->hi, b->bins, counts);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const cl_int x = pixels[CHANNELS * i + c];
        for (size_t k = 0; k < b->bins; k++)
            if (b->edges[k] <= x && x < b->edges[k + 1])
                counts[k]++;
    }
}

/* One call over n random pixels with `channels` active, each channel's
 * counts at an offset in one shared buffer or its own, checked with the
 * bytes around them (and the inactive channels' places) untouched. */
static void run_case(clprim_context *ctx, int range, unsigned channels, size_t n, int accumulate, int shared,
                     uint64_t *rng)
{
    const size_t pixels_at = harness_rand(rng) % 3, gap = 2;
    unsigned char *pixels = harness_malloc((pixels_at + n + 1) * CHANNELS);
    for (size_t i = 0; i < (pixels_at + n + 1) * CHANNELS; i++)
        pixels[i] = (unsigned char)harness_rand(rng);
    if (harness_rand(rng) % 2) /* a few values only: heavy bins */
        for (size_t i = 0; i < (pixels_at + n) * CHANNELS; i++)
            pixels[i] = (unsigned char)(128 + pixels[i] % 5);
    channel_bins bins[CHANNELS];
    double lo[CHANNELS], hi[CHANNELS];
    size_t nbins[CHANNELS], counts_at[CHANNELS], edges_at[CHANNELS], room = 0;
    for (unsigned c = 0; c < CHANNELS; c++) {
        bins[c] = random_bins(rng);
        lo[c] = bins[c].lo, hi[c] = bins[c].hi, nbins[c] = bins[c].bins;
        counts_at[c] = shared ? room + gap : gap;
        room = counts_at[c] + nbins[c];
    }
    const size_t words = (shared ? room : LEVELS + gap) + gap;
    uint32_t *before = harness_malloc(CHANNELS * words * sizeof *before);
    for (size_t i = 0; i < CHANNELS * words; i++)
        before[i] = accumulate ? (uint32_t)harness_rand(rng) : 0xA5A5A5A5u;
    cl_mem pb = harness_buffer(ctx, (pixels_at + n + 1) * CHANNELS, pixels);
    cl_mem counts[CHANNELS], edges[CHANNELS];
    for (unsigned c = 0; c < CHANNELS; c++) {
        counts[c] = shared && c > 0 ? counts[0] : harness_buffer(ctx, words * sizeof *before, before + c * words);
        edges_at[c] = harness_rand(rng) % 3;
        cl_int e[LEVELS + 4];
        memcpy(e + edges_at[c], bins[c].edges, (nbins[c] + 1) * sizeof *e);
        edges[c] = harness_buffer(ctx, (edges_at[c] + nbins[c] + 1) * sizeof *e, e);
    }
    char what[160];
    snprintf(what, sizeof what, "%s, %u channels, n=%zu%s%s at %s", range ? "edges" : "even", channels, n,
             accumulate ? ", accumulate" : "", shared ? ", one counts buffer" : "", harness_tuning_text(ctx));
    const clprim_status s =
        range ? clprim_histogram_channels_range(ctx, pb, pixels_at, n, channels, edges, edges_at, nbins, counts,
                                                counts_at, accumulate, 0, NULL, NULL)
              : clprim_histogram_channels(ctx, pb, pixels_at, n, channels, lo, hi, nbins, counts, counts_at,
                                          accumulate, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));
    uint32_t *want = harness_malloc(CHANNELS * words * sizeof *want), *got = harness_malloc(words * sizeof *got);
    memcpy(want, before, CHANNELS * words * sizeof *want);
    for (unsigned c = 0; c < channels; c++) {
        uint32_t *mine = want + (shared ? 0 : c * words) + counts_at[c];
        if (!accumulate)
            memset(mine, 0, nbins[c] * sizeof *mine);
        reference_channel(pixels + pixels_at * CHANNELS, n, c, &bins[c], range, mine);
    }
    for (unsigned c = 0; c < (shared ? 1 : CHANNELS); c++) {
        harness_read(ctx, counts[c], 0, words * sizeof *got, got);
        for (size_t k = 0; k < words; k++)
            CHECK(got[k] == want[c * words + k], "%s: buffer %u word %zu: %u, want %u (channel bins %zu)", what, c, k,
                  got[k], want[c * words + k], nbins[shared ? 0 : c]);
    }
    free(pixels);
    free(before);
    free(want);
    free(got);
    clReleaseMemObject(pb);
    for (unsigned c = 0; c < CHANNELS; c++) {
        if (!shared || c == 0)
            clReleaseMemObject(counts[c]);
        clReleaseMemObject(edges[c]);
    }
}

/* Every number of channels, both rules, both modes, one buffer or four, at
 * sizes from none to past several chunks; at the device's shape and at small
 * work-groups. */
START_TEST(channels_every_case)
{
    uint64_t rng = harness_rng(1200 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (_i)
            harness_set_tuning(ctx, 4, 2, 16);
        const size_t sizes[] = {0, 1, 37, 1000 + harness_rand(&rng) % 3000, 100003};
        for (int range = 0; range < 2; range++)
            for (unsigned channels = 1; channels <= CHANNELS; channels++)
                for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                    run_case(ctx, range, channels, sizes[k], (int)(k + channels) % 2, (int)(k + range) % 2, &rng);
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { EVEN, RANGE };
enum { V_CHANNELS_0 = 1, V_CHANNELS_5, V_BINS_0, V_BINS_257, V_LO_NAN, V_LO_HI, V_NULL_ARRAY, V_NULL_EDGES };

/* buf: pixels, counts[0], counts[1], edges (every channel's); n pixels, 2
 * channels of 16 bins, counts at offset[1] and offset[2], the edges at
 * offset[3]. */
static clprim_status channels_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const unsigned channels = row->variant == V_CHANNELS_0 ? 0 : row->variant == V_CHANNELS_5 ? 5 : 2;
    const size_t b = row->variant == V_BINS_0 ? 0 : row->variant == V_BINS_257 ? 257 : 16;
    const size_t bins[5] = {16, b, 16, 16, 16};
    const double lo[5] = {row->variant == V_LO_NAN ? NAN : 0, row->variant == V_LO_HI ? 9 : 0, 0, 0, 0};
    const double hi[5] = {256, 9, 256, 256, 256};
    const cl_mem counts[5] = {buf[1], buf[2], buf[1], buf[1], buf[1]};
    const size_t counts_offset[5] = {row->offset[1], row->offset[2], 0, 0, 0};
    const cl_mem edges[5] = {buf[3], buf[3], buf[3], buf[3], buf[3]};
    const size_t edges_offset[5] = {row->offset[3], row->offset[3], 0, 0, 0};
    const int null_array = row->variant == V_NULL_ARRAY, null_edges = row->variant == V_NULL_EDGES;
    if (row->call == EVEN)
        return clprim_histogram_channels(ctx, buf[0], row->offset[0], row->n, channels, lo, hi, null_array ? NULL : bins,
                                         counts, counts_offset, 0, 0, NULL, NULL);
    return clprim_histogram_channels_range(ctx, buf[0], row->offset[0], row->n, channels, null_edges ? NULL : edges,
                                           edges_offset, bins, null_array ? NULL : counts, counts_offset, 0, 0, NULL,
                                           NULL);
}

/* Each buffer holds 16384 pixels, counts or edges. */
static const harness_bad_call channels_bad_calls[] = {
    {"ctx NULL", EVEN, 1, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"channels 0", EVEN, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "channels",
     .variant = V_CHANNELS_0},
    {"channels 5", RANGE, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "channels",
     .variant = V_CHANNELS_5},
    {"bins[1] 0", EVEN, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "bins[1]",
     .variant = V_BINS_0},
    {"bins[1] 257", RANGE, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 1000, 0}, 50, CLPRIM_INVALID_ARGUMENT, "bins[1]",
     .variant = V_BINS_257},
    {"lo[0] NaN", EVEN, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "channel 0",
     .also = "NaN", .variant = V_LO_NAN},
    {"lo[1] == hi[1]", EVEN, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "channel 1",
     .variant = V_LO_HI},
    {"bins NULL", EVEN, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "bins is NULL",
     .variant = V_NULL_ARRAY},
    {"counts NULL", RANGE, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "counts is NULL",
     .variant = V_NULL_ARRAY},
    {"edges NULL", RANGE, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "edges is NULL",
     .variant = V_NULL_EDGES},
    {"pixels NULL", EVEN, 0, {HB_NULL, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT, "pixels"},
    {"counts[1] NULL", EVEN, 0, {HB_A, HB_B, HB_NULL, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT,
     "counts[1]"},
    {"pixels one short", EVEN, 0, {HB_A, HB_B, HB_B, HB_A}, {1, 0, 100, 0}, 16384, CLPRIM_BUFFER_TOO_SMALL,
     "pixels"},
    {"counts[1] one short", RANGE, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 16384 - 15, 0}, 50, CLPRIM_BUFFER_TOO_SMALL,
     "counts[1]"},
    {"edges one short", RANGE, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 16384 - 16}, 50, CLPRIM_BUFFER_TOO_SMALL,
     "edges[0]"},
    {"counts[0] read-only", EVEN, 0, {HB_A, HB_READ_ONLY, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY"},
    {"pixels write-only", EVEN, 0, {HB_WRITE_ONLY, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 50, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"counts[1] over pixels", EVEN, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 10, 0}, 50, CLPRIM_INVALID_ARGUMENT, "pixels",
     .also = "counts[1]"},
    {"counts[1] over counts[0]", EVEN, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 8, 0}, 50, CLPRIM_INVALID_ARGUMENT,
     "counts[0]", .also = "counts[1]"},
    {"counts[0] over the edges", RANGE, 0, {HB_A, HB_B, HB_B, HB_B}, {0, 0, 100, 4}, 50, CLPRIM_INVALID_ARGUMENT,
     "edges[0]", .also = "counts[0]"},
    {"counts[0] of another context", EVEN, 0, {HB_A, HB_FOREIGN, HB_B, HB_A}, {0, 0, 100, 0}, 50,
     CLPRIM_INVALID_ARGUMENT, "another"},
    /* Near misses: edges and pixels may meet; n == 0 zeroes the counts. */
    {"edges in the pixels' buffer", RANGE, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 8}, 50, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1) | HB_ARG(2)},
    {"n 0 zeroes the counts", EVEN, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 100, 0}, 0, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1) | HB_ARG(2)},
};

START_TEST(channels_bad_table)
{
    harness_run_bad_calls(channels_bad_calls, sizeof channels_bad_calls / sizeof *channels_bad_calls,
                          channels_bad_call);
}
END_TEST

static Suite *channels_suite(void)
{
    Suite *s = suite_create("histogram_channels");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, channels_every_case, 0, 2);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_add_test(bad, channels_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(channels_suite());
}
