/* Images: the red-ratio threshold (interleaved and planar, every mode), image
 * histograms, Otsu's level and the grey thresholds, against the CPU references
 * of tests/reference_image.c, on random images of awkward sizes (1x1, 1xN, Nx1,
 * odd widths, padded pitches, offsets), on the photographs of examples/data,
 * under several tunings, and every bad argument. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference_image.h"

static size_t rand_below(uint64_t *rng, size_t n)
{
    return n ? (size_t)(harness_rand(rng) % n) : 0;
}

typedef struct {
    size_t w, h;
} dims;

/* Widths that are multiples of nothing, single rows and columns. */
static const dims sizes[] = {{1, 1}, {1, 37}, {53, 1}, {7, 5}, {13, 11}, {257, 3}, {3, 257}, {97, 61}, {1001, 7}};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Tunings that make many small work-groups and short runs, next to the default. */
static const clprim_tuning tunings[] = {{0, 0, 0}, {8, 2, 5}, {1, 2, 3}, {32, 3, 7}};
#define NTUNINGS (sizeof tunings / sizeof tunings[0])

static void use_tuning(clprim_context *ctx, size_t i)
{
    if (i == 0)
        ck_assert_int_eq(harness_tune(ctx, NULL), CLPRIM_SUCCESS);
    else
        harness_set_tuning(ctx, tunings[i].work_group_size, tunings[i].items_per_thread, tunings[i].groups);
}

static const clprim_threshold_mode modes[] = {CLPRIM_THRESHOLD_KEEP, CLPRIM_THRESHOLD_YELLOW,
                                              CLPRIM_THRESHOLD_REINSERT};
static const char *const mode_names[] = {"keep", "yellow", "reinsert"};

/* Random bytes with many pixels that matter: black, pure and dark reds, near-grey. */
static void fill_pixels(uint8_t *data, size_t bytes, size_t bpp, uint64_t *rng)
{
    for (size_t i = 0; i < bytes; i++)
        data[i] = (uint8_t)harness_rand(rng);
    for (size_t i = 0; i + bpp <= bytes; i += bpp) {
        uint8_t *p = data + i;
        switch (rand_below(rng, 6)) {
        case 0: p[0] = p[1] = p[2] = 0; break;                                          /* black */
        case 1: p[0] = (uint8_t)(1 + rand_below(rng, 255)); p[1] = p[2] = 0; break;    /* pure red */
        case 2: p[1] = (uint8_t)rand_below(rng, 64); p[2] = (uint8_t)rand_below(rng, 64); break; /* reddish */
        default: break;
        }
    }
}

static void fill_pixels_bpp1(uint8_t *data, size_t bytes, uint64_t *rng)
{
    for (size_t i = 0; i < bytes; i++)
        data[i] = (uint8_t)harness_rand(rng);
}

/* An image in a buffer: a random offset, a random pitch (0 = packed, sometimes),
 * a tail after the last row. */
typedef struct {
    size_t offset, pitch, bytes; /* pitch: the real one; bytes: the whole buffer */
    size_t given_pitch;          /* what clprim_image.row_pitch says */
} placement;

static placement place(size_t w, size_t h, size_t bpp, uint64_t *rng)
{
    placement p;
    p.offset = rand_below(rng, 3) == 0 ? 0 : rand_below(rng, 17);
    size_t row = w * bpp;
    p.given_pitch = rand_below(rng, 3) == 0 ? 0 : row + rand_below(rng, 3) * rand_below(rng, 9);
    p.pitch = p.given_pitch ? p.given_pitch : row;
    p.bytes = p.offset + (h - 1) * p.pitch + row + rand_below(rng, 7);
    return p;
}

static clprim_image make_image(cl_mem data, const placement *p, size_t w, size_t h, clprim_pixel_format f)
{
    clprim_image img = {data, p->offset, w, h, p->given_pitch, f};
    return img;
}

/* The first byte where got and want differ, as a message. */
static void assert_same_bytes(const uint8_t *got, const uint8_t *want, size_t bytes, const placement *p, size_t bpp,
                              const char *what)
{
    for (size_t i = 0; i < bytes; i++) {
        if (got[i] == want[i])
            continue;
        if (i >= p->offset) {
            size_t y = (i - p->offset) / p->pitch, in_row = (i - p->offset) % p->pitch;
            ck_abort_msg("%s: byte %zu differs: got %u, want %u (row %zu, %s %zu, channel %zu)", what, i, got[i],
                         want[i], y, in_row < p->pitch ? "pixel" : "padding", in_row / bpp, in_row % bpp);
        }
        ck_abort_msg("%s: byte %zu (before the image) differs: got %u, want %u", what, i, got[i], want[i]);
    }
}

static void finish(clprim_context *ctx, cl_event done)
{
    ck_assert_ptr_nonnull(done);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    (void)ctx;
}

/* ---- Red ratio, interleaved ---- */

static void red_case(clprim_context *ctx, size_t w, size_t h, clprim_pixel_format f, clprim_threshold_mode mode,
                     float ratio, int in_place, uint64_t *rng)
{
    const size_t bpp = clprim_pixel_size(f);
    placement sp = place(w, h, bpp, rng), dp = in_place ? sp : place(w, h, bpp, rng);
    uint8_t *src = harness_malloc(sp.bytes), *want = harness_malloc(dp.bytes), *got = harness_malloc(dp.bytes);
    fill_pixels(src, sp.bytes, bpp, rng);
    cl_mem sbuf = harness_buffer(ctx, sp.bytes, src), dbuf = sbuf;
    if (in_place) {
        memcpy(want, src, sp.bytes);
    } else {
        memset(want, HARNESS_SENTINEL, dp.bytes);
        dbuf = harness_buffer(ctx, dp.bytes, NULL);
    }
    reference_threshold_red(src + sp.offset, sp.pitch, want + dp.offset, dp.pitch, w, h, bpp, ratio, mode);

    clprim_image si = make_image(sbuf, &sp, w, h, f), di = make_image(dbuf, &dp, w, h, f);
    cl_event done = NULL;
    clprim_status s = clprim_threshold_red(ctx, &si, &di, ratio, mode, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%zux%zu: %s: %s", w, h, clprim_status_name(s), clprim_last_error(ctx));
    finish(ctx, done);
    harness_assert_single_ref(sbuf, "src");
    harness_assert_single_ref(dbuf, "dst");
    harness_read(ctx, dbuf, 0, dp.bytes, got);
    char what[160];
    snprintf(what, sizeof what, "threshold_red %zux%zu %s %s ratio %.9g%s (src offset %zu pitch %zu, dst offset %zu "
             "pitch %zu, tuning %s)", w, h, bpp == 3 ? "RGB8" : "RGBA8", mode_names[mode], (double)ratio,
             in_place ? " in place" : "", sp.offset, sp.pitch, dp.offset, dp.pitch, harness_tuning_text(ctx));
    assert_same_bytes(got, want, dp.bytes, &dp, bpp, what);
    if (!in_place) { /* the source is left alone */
        uint8_t *after = harness_malloc(sp.bytes);
        harness_read(ctx, sbuf, 0, sp.bytes, after);
        ck_assert_msg(memcmp(after, src, sp.bytes) == 0, "%s: src changed", what);
        free(after);
        clReleaseMemObject(dbuf);
    }
    clReleaseMemObject(sbuf);
    free(src);
    free(want);
    free(got);
}

START_TEST(red_interleaved_every_size_mode_format)
{
    uint64_t rng = harness_rng(1);
    const float ratios[] = {0.7f, 0.5f, 0.95f, 1.0f, 1e-3f};
    FOR_EACH_DEVICE(ctx)
    for (size_t t = 0; t < NTUNINGS; t++) {
        use_tuning(ctx, t);
        for (size_t i = 0; i < NSIZES; i++)
            for (int f = 0; f < 2; f++)
                for (size_t m = 0; m < 3; m++) {
                    float ratio = ratios[(i + m + t) % 5];
                    red_case(ctx, sizes[i].w, sizes[i].h, f ? CLPRIM_RGBA8 : CLPRIM_RGB8, modes[m], ratio,
                             (i + m) % 4 == 0, &rng);
                }
    }
}
END_TEST

START_TEST(red_random_ratios_and_shapes)
{
    uint64_t rng = harness_rng(2);
    FOR_EACH_DEVICE(ctx)
    for (int k = 0; k < 60; k++) {
        size_t w = 1 + rand_below(&rng, 300), h = 1 + rand_below(&rng, 40);
        float ratio = (float)(1 + rand_below(&rng, 1000)) / 1000.0f;
        red_case(ctx, w, h, rand_below(&rng, 2) ? CLPRIM_RGBA8 : CLPRIM_RGB8, modes[rand_below(&rng, 3)], ratio,
                 rand_below(&rng, 4) == 0, &rng);
    }
}
END_TEST

/* Every 8-bit (r, g, b) with g = b, and every (r, g) with b = 0 at 0.7: the
 * whole range of the test, in one image, against the reference. */
START_TEST(red_exhaustive_pairs)
{
    FOR_EACH_DEVICE(ctx)
    for (int k = 0; k < 2; k++) {
        const size_t w = 256, h = 256;
        uint8_t *src = harness_malloc(w * h * 3), *want = harness_malloc(w * h * 3), *got = harness_malloc(w * h * 3);
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++) {
                uint8_t *p = src + (y * w + x) * 3;
                p[0] = (uint8_t)x;
                p[1] = (uint8_t)y;
                p[2] = k ? (uint8_t)y : 0;
            }
        const float ratio = 0.7f;
        reference_threshold_red(src, w * 3, want, w * 3, w, h, 3, ratio, CLPRIM_THRESHOLD_YELLOW);
        cl_mem sbuf = harness_buffer(ctx, w * h * 3, src), dbuf = harness_buffer(ctx, w * h * 3, NULL);
        clprim_image si = {sbuf, 0, w, h, 0, CLPRIM_RGB8}, di = {dbuf, 0, w, h, 0, CLPRIM_RGB8};
        ck_assert_int_eq(clprim_threshold_red(ctx, &si, &di, ratio, CLPRIM_THRESHOLD_YELLOW, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, dbuf, 0, w * h * 3, got);
        placement p = {0, w * 3, w * h * 3, 0};
        assert_same_bytes(got, want, w * h * 3, &p, 3, k ? "every (r, g, g)" : "every (r, g, 0)");
        /* Black is never selected, and (r, 0, 0) always is. */
        ck_assert_int_eq(got[0] | got[1] | got[2], 0);
        ck_assert_int_eq(got[3 * 200], 200);
        ck_assert_int_eq(got[3 * 200 + 1], 200);
        clReleaseMemObject(sbuf);
        clReleaseMemObject(dbuf);
        free(src);
        free(want);
        free(got);
    }
}
END_TEST

/* ---- Red ratio, planar float ---- */

/* Floats in [-1000, 1000), black pixels, and pixels within a few ulps of the
 * boundary r^2 = ratio^2 (r^2 + g^2 + b^2), where a fused multiply-add on
 * either side would change the answer. */
static void fill_planar(float *planes, size_t n, float ratio, uint64_t *rng)
{
    harness_fill_random(CLPRIM_FLOAT, planes, 3 * n, rng);
    for (size_t p = 0; p < n; p++) {
        float *r = &planes[p], *g = &planes[n + p], *b = &planes[2 * n + p];
        switch (rand_below(rng, 5)) {
        case 0: *r = *g = *b = 0.0f; break;
        case 1:
        case 2: {
            *g = fabsf(*g) / 4;
            *b = fabsf(*b) / 4;
            double q = (double)ratio * ratio;
            float edge = q < 1 ? (float)sqrt(q * ((double)*g * *g + (double)*b * *b) / (1 - q)) : 1.0f;
            int ulps = (int)rand_below(rng, 9) - 4;
            for (; ulps > 0; ulps--)
                edge = nextafterf(edge, INFINITY);
            for (; ulps < 0; ulps++)
                edge = nextafterf(edge, 0);
            *r = edge;
            break;
        }
        default: break;
        }
    }
}

static void planar_case(clprim_context *ctx, size_t w, size_t h, clprim_threshold_mode mode, float ratio,
                        int in_place, uint64_t *rng)
{
    const size_t n = w * h;
    size_t soff = rand_below(rng, 9), doff = in_place ? soff : rand_below(rng, 9), tail = rand_below(rng, 5);
    size_t slen = soff + 3 * n + tail, dlen = in_place ? slen : doff + 3 * n + tail;
    float *src = harness_malloc(slen * sizeof(float)), *want = harness_malloc(dlen * sizeof(float)),
          *got = harness_malloc(dlen * sizeof(float));
    harness_fill_random(CLPRIM_FLOAT, src, slen, rng);
    fill_planar(src + soff, n, ratio, rng);
    cl_mem sbuf = harness_buffer(ctx, slen * sizeof(float), src), dbuf = sbuf;
    if (in_place) {
        memcpy(want, src, slen * sizeof(float));
    } else {
        memset(want, HARNESS_SENTINEL, dlen * sizeof(float));
        dbuf = harness_buffer(ctx, dlen * sizeof(float), NULL);
    }
    reference_threshold_red_planar(src + soff, want + doff, n, ratio, mode);
    clprim_planar_image si = {sbuf, soff, w, h}, di = {dbuf, doff, w, h};
    clprim_status s = clprim_threshold_red_planar(ctx, &si, &di, ratio, mode, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", clprim_status_name(s), clprim_last_error(ctx));
    harness_read(ctx, dbuf, 0, dlen * sizeof(float), got);
    for (size_t i = 0; i < dlen; i++) {
        if (memcmp(&got[i], &want[i], sizeof(float)) == 0)
            continue;
        size_t p = (i - doff) % n;
        ck_abort_msg("planar %zux%zu %s ratio %.9g%s, tuning %s: float %zu (plane %zu, pixel %zu) is %a, want %a; "
                     "pixel (%a, %a, %a)", w, h, mode_names[mode], (double)ratio, in_place ? " in place" : "",
                     harness_tuning_text(ctx), i, (i - doff) / n, p, (double)got[i], (double)want[i],
                     (double)src[soff + p], (double)src[soff + n + p], (double)src[soff + 2 * n + p]);
    }
    if (dbuf != sbuf)
        clReleaseMemObject(dbuf);
    clReleaseMemObject(sbuf);
    free(src);
    free(want);
    free(got);
}

START_TEST(red_planar_exact)
{
    uint64_t rng = harness_rng(3);
    const float ratios[] = {0.7f, 0.3f, 0.99f, 1.0f};
    FOR_EACH_DEVICE(ctx)
    for (size_t t = 0; t < NTUNINGS; t++) {
        use_tuning(ctx, t);
        for (size_t i = 0; i < NSIZES; i++)
            for (size_t m = 0; m < 3; m++)
                planar_case(ctx, sizes[i].w, sizes[i].h, modes[m], ratios[(i + m) % 4], (i + m + t) % 3 == 0, &rng);
        for (int k = 0; k < 8; k++)
            planar_case(ctx, 1 + rand_below(&rng, 700), 1 + rand_below(&rng, 300), modes[k % 3],
                        (float)(1 + rand_below(&rng, 999)) / 1000.0f, k % 4 == 0, &rng);
    }
}
END_TEST

/* ---- Histograms ---- */

static void histogram_case(clprim_context *ctx, size_t w, size_t h, clprim_pixel_format f, clprim_channel channel,
                           size_t bins, const uint8_t *pixels, uint64_t *rng)
{
    const size_t bpp = clprim_pixel_size(f);
    placement sp = place(w, h, bpp, rng);
    uint8_t *src = harness_malloc(sp.bytes);
    if (f == CLPRIM_GREY8)
        fill_pixels_bpp1(src, sp.bytes, rng);
    else
        fill_pixels(src, sp.bytes, bpp, rng);
    if (pixels)
        for (size_t y = 0; y < h; y++)
            memcpy(src + sp.offset + y * sp.pitch, pixels + y * w * bpp, w * bpp);
    const size_t nch = channel == CLPRIM_CHANNEL_ALL ? bpp : 1, slots = nch * bins;
    const size_t before = rand_below(rng, 5), after = rand_below(rng, 4), len = before + slots + after;
    uint32_t *want = harness_malloc(len * 4), *got = harness_malloc(len * 4);
    memset(want, HARNESS_SENTINEL, len * 4);
    reference_image_histogram(src + sp.offset, sp.pitch, w, h, bpp, channel, bins, want + before);
    cl_mem sbuf = harness_buffer(ctx, sp.bytes, src), hbuf = harness_buffer(ctx, len * 4, NULL);
    clprim_image img = make_image(sbuf, &sp, w, h, f);
    cl_event done = NULL;
    clprim_status s = clprim_image_histogram(ctx, &img, channel, bins, hbuf, before, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", clprim_status_name(s), clprim_last_error(ctx));
    finish(ctx, done);
    harness_assert_single_ref(hbuf, "hist");
    harness_read(ctx, hbuf, 0, len * 4, got);
    for (size_t i = 0; i < len; i++)
        CHECK(got[i] == want[i],
              "histogram %zux%zu format %d channel %d bins %zu (tuning %s): element %zu (slot %ld) is %u, "
              "want %u", w, h, (int)f, (int)channel, bins, harness_tuning_text(ctx), i,
              (long)i - (long)before, got[i], want[i]);
    clReleaseMemObject(sbuf);
    clReleaseMemObject(hbuf);
    free(src);
    free(want);
    free(got);
}

START_TEST(histograms_every_channel_and_bins)
{
    uint64_t rng = harness_rng(4);
    const size_t bins[] = {1, 2, 3, 16, 100, 255, 256};
    const clprim_channel rgb_channels[] = {CLPRIM_CHANNEL_R, CLPRIM_CHANNEL_G, CLPRIM_CHANNEL_B,
                                           CLPRIM_CHANNEL_GREY, CLPRIM_CHANNEL_ALL, CLPRIM_CHANNEL_A};
    FOR_EACH_DEVICE(ctx)
    for (size_t t = 0; t < NTUNINGS; t++) {
        use_tuning(ctx, t);
        for (size_t i = 0; i < NSIZES; i++) {
            size_t b = bins[(i + t) % 7];
            for (size_t c = 0; c < 5; c++)
                histogram_case(ctx, sizes[i].w, sizes[i].h, CLPRIM_RGB8, rgb_channels[c], b, NULL, &rng);
            for (size_t c = 0; c < 6; c++)
                histogram_case(ctx, sizes[i].w, sizes[i].h, CLPRIM_RGBA8, rgb_channels[c], bins[(i + c) % 7], NULL,
                               &rng);
            histogram_case(ctx, sizes[i].w, sizes[i].h, CLPRIM_GREY8, CLPRIM_CHANNEL_GREY, b, NULL, &rng);
            histogram_case(ctx, sizes[i].w, sizes[i].h, CLPRIM_GREY8, CLPRIM_CHANNEL_ALL, bins[(i + 3) % 7], NULL,
                           &rng);
        }
    }
}
END_TEST

/* The lecture's 16-bin grey histogram on a one-colour image: every pixel in one bin. */
START_TEST(histogram_lecture_grey_16)
{
    uint64_t rng = harness_rng(5);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t w = 333, h = 77;
        uint8_t *px = harness_malloc(w * h * 4);
        for (size_t i = 0; i < w * h; i++) {
            px[4 * i] = 250;
            px[4 * i + 1] = 100;
            px[4 * i + 2] = 31; /* grey (250 + 100 + 31) / 3 = 127: bin 7 of 16 */
            px[4 * i + 3] = (uint8_t)i;
        }
        cl_mem sbuf = harness_buffer(ctx, w * h * 4, px), hbuf = harness_buffer(ctx, 16 * 4, NULL);
        clprim_image img = {sbuf, 0, w, h, 0, CLPRIM_RGBA8};
        ck_assert_int_eq(clprim_image_histogram(ctx, &img, CLPRIM_CHANNEL_GREY, 16, hbuf, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        uint32_t got[16];
        harness_read(ctx, hbuf, 0, sizeof got, got);
        for (int b = 0; b < 16; b++)
            ck_assert_uint_eq(got[b], b == 7 ? w * h : 0);
        histogram_case(ctx, w, h, CLPRIM_RGBA8, CLPRIM_CHANNEL_ALL, 16, px, &rng);
        clReleaseMemObject(sbuf);
        clReleaseMemObject(hbuf);
        free(px);
    }
}
END_TEST

/* ---- Otsu ---- */

static void otsu_case(clprim_context *ctx, const uint32_t *hist, size_t bins, const char *what)
{
    const unsigned want = reference_otsu(hist, bins);
    const size_t before = 3;
    uint32_t *padded = harness_malloc((before + bins) * 4);
    memset(padded, HARNESS_SENTINEL, before * 4);
    memcpy(padded + before, hist, bins * 4);
    cl_mem hbuf = harness_buffer(ctx, (before + bins) * 4, padded), lbuf = harness_buffer(ctx, 4 * 4, NULL);

    /* 1. to the host only; 2. to the device only; 3. both. */
    unsigned got = 1000;
    clprim_status s = clprim_otsu(ctx, hbuf, before, bins, NULL, 0, &got, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_msg(got == want, "%s (%zu bins): Otsu level %u, reference %u", what, bins, got, want);
    cl_event done = NULL;
    ck_assert_int_eq(clprim_otsu(ctx, hbuf, before, bins, lbuf, 2, NULL, 0, NULL, &done), CLPRIM_SUCCESS);
    finish(ctx, done);
    uint32_t levels[4];
    harness_read(ctx, lbuf, 0, sizeof levels, levels);
    ck_assert_msg(levels[2] == want, "%s: level in the buffer %u, want %u", what, levels[2], want);
    ck_assert(harness_all_sentinel(levels, 8) && harness_all_sentinel(&levels[3], 4));
    got = 1000;
    ck_assert_int_eq(clprim_otsu(ctx, hbuf, before, bins, lbuf, 0, &got, 0, NULL, NULL), CLPRIM_SUCCESS);
    harness_read(ctx, lbuf, 0, 4, levels);
    ck_assert_uint_eq(got, want);
    ck_assert_uint_eq(levels[0], want);

    /* The float arithmetic found a split whose textbook variance (double) is the
     * largest, up to float rounding. */
    double best = reference_otsu_best_variance(hist, bins);
    double mine = reference_otsu_variance(hist, bins, reference_otsu_bin(want, bins));
    ck_assert_msg(mine >= best * (1 - 1e-4), "%s: level %u has variance %.9g, the best split %.9g", what, want, mine,
                  best);
    clReleaseMemObject(hbuf);
    clReleaseMemObject(lbuf);
    free(padded);
}

START_TEST(otsu_matches_reference)
{
    uint64_t rng = harness_rng(6);
    uint32_t hist[256];
    FOR_EACH_DEVICE(ctx)
    for (size_t t = 0; t < NTUNINGS; t++) {
        use_tuning(ctx, t);
        const size_t bin_counts[] = {1, 2, 3, 16, 17, 100, 255, 256};
        for (size_t k = 0; k < 8; k++) {
            size_t bins = bin_counts[k];
            /* empty, one bin, two bins */
            memset(hist, 0, sizeof hist);
            otsu_case(ctx, hist, bins, "empty");
            hist[rand_below(&rng, bins)] = 1 + (uint32_t)rand_below(&rng, 1000);
            otsu_case(ctx, hist, bins, "one bin");
            hist[rand_below(&rng, bins)] += 1 + (uint32_t)rand_below(&rng, 1000);
            otsu_case(ctx, hist, bins, "two bins");
            /* uniform random, sparse, bimodal, huge counts */
            for (int r = 0; r < 4; r++) {
                for (size_t i = 0; i < bins; i++)
                    hist[i] = (uint32_t)rand_below(&rng, 5000);
                otsu_case(ctx, hist, bins, "uniform");
                for (size_t i = 0; i < bins; i++)
                    hist[i] = rand_below(&rng, 6) == 0 ? (uint32_t)rand_below(&rng, 100000) : 0;
                otsu_case(ctx, hist, bins, "sparse");
                double m1 = (double)rand_below(&rng, bins), m2 = (double)rand_below(&rng, bins);
                double s1 = 1 + (double)rand_below(&rng, bins / 4 + 1), s2 = 1 + (double)rand_below(&rng, bins / 4 + 1);
                for (size_t i = 0; i < bins; i++)
                    hist[i] = (uint32_t)(30000 * exp(-0.5 * pow((i - m1) / s1, 2)) +
                                         10000 * exp(-0.5 * pow((i - m2) / s2, 2)) + rand_below(&rng, 50));
                otsu_case(ctx, hist, bins, "bimodal");
                for (size_t i = 0; i < bins; i++)
                    hist[i] = UINT32_MAX - (uint32_t)rand_below(&rng, 1u << 30);
                otsu_case(ctx, hist, bins, "huge counts");
            }
        }
    }
}
END_TEST

/* ---- Grey thresholds ---- */

static void grey_case(clprim_context *ctx, size_t w, size_t h, clprim_pixel_format sf, clprim_pixel_format df,
                      unsigned level, int how, uint64_t *rng)
{
    const size_t sbpp = clprim_pixel_size(sf), dbpp = clprim_pixel_size(df);
    const int in_place = sf == df && how == 0 && rand_below(rng, 3) == 0;
    placement sp = place(w, h, sbpp, rng), dp = in_place ? sp : place(w, h, dbpp, rng);
    uint8_t *src = harness_malloc(sp.bytes), *want = harness_malloc(dp.bytes), *got = harness_malloc(dp.bytes);
    fill_pixels_bpp1(src, sp.bytes, rng);
    cl_mem sbuf = harness_buffer(ctx, sp.bytes, src), dbuf = sbuf;
    if (in_place) {
        memcpy(want, src, sp.bytes);
    } else {
        memset(want, HARNESS_SENTINEL, dp.bytes);
        dbuf = harness_buffer(ctx, dp.bytes, NULL);
    }
    clprim_image si = make_image(sbuf, &sp, w, h, sf), di = make_image(dbuf, &dp, w, h, df);
    clprim_status s;
    unsigned used = level;
    if (how == 0) {
        s = clprim_threshold_grey(ctx, &si, &di, level, 0, NULL, NULL);
    } else if (how == 1) { /* the level from a device buffer */
        uint32_t lv[3] = {7, level, 9};
        cl_mem lbuf = harness_buffer(ctx, sizeof lv, lv);
        s = clprim_threshold_grey_buffer(ctx, &si, &di, lbuf, 1, 0, NULL, NULL);
        clFinish(clprim_queue(ctx));
        clReleaseMemObject(lbuf);
    } else { /* Otsu, all on the device */
        uint32_t hist[256];
        reference_image_histogram(src + sp.offset, sp.pitch, w, h, sbpp, CLPRIM_CHANNEL_GREY, 256, hist);
        used = reference_otsu(hist, 256);
        unsigned got_level = 1000;
        s = clprim_threshold_otsu(ctx, &si, &di, &got_level, 0, NULL, NULL);
        if (s == CLPRIM_SUCCESS)
            ck_assert_msg(got_level == used, "Otsu level %u, reference %u", got_level, used);
    }
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", clprim_status_name(s), clprim_last_error(ctx));
    reference_threshold_grey(src + sp.offset, sp.pitch, sbpp, want + dp.offset, dp.pitch, dbpp, w, h, used);
    harness_read(ctx, dbuf, 0, dp.bytes, got);
    char what[160];
    snprintf(what, sizeof what, "grey threshold %zux%zu format %d -> %d level %u (%s)%s, tuning %s", w, h, (int)sf,
             (int)df, used, how == 0 ? "host level" : how == 1 ? "buffer level" : "otsu", in_place ? " in place" : "",
             harness_tuning_text(ctx));
    assert_same_bytes(got, want, dp.bytes, &dp, dbpp, what);
    if (dbuf != sbuf)
        clReleaseMemObject(dbuf);
    clReleaseMemObject(sbuf);
    free(src);
    free(want);
    free(got);
}

START_TEST(grey_threshold_every_format_pair)
{
    uint64_t rng = harness_rng(7);
    const unsigned levels[] = {0, 1, 127, 200, 254, 255};
    const clprim_pixel_format formats[] = {CLPRIM_RGB8, CLPRIM_RGBA8, CLPRIM_GREY8};
    FOR_EACH_DEVICE(ctx)
    for (size_t t = 0; t < NTUNINGS; t++) {
        use_tuning(ctx, t);
        for (size_t i = 0; i < NSIZES; i++)
            for (size_t a = 0; a < 3; a++)
                for (size_t b = 0; b < 3; b++)
                    grey_case(ctx, sizes[i].w, sizes[i].h, formats[a], formats[b], levels[(i + a + b) % 6],
                              (int)((i + a + 2 * b + t) % 3), &rng);
    }
}
END_TEST

/* The 64-bit indexing of big images (beyond 2^31 bytes), forced on small ones. */
START_TEST(index64_path)
{
    uint64_t rng = harness_rng(10);
    harness_env_set("CLPRIM_THRESHOLD_INDEX64", "1");
    FOR_EACH_DEVICE(ctx)
    for (size_t t = 0; t < 2; t++) {
        use_tuning(ctx, t);
        for (size_t i = 0; i < NSIZES; i++) {
            red_case(ctx, sizes[i].w, sizes[i].h, i % 2 ? CLPRIM_RGBA8 : CLPRIM_RGB8, modes[i % 3], 0.7f, i % 4 == 1,
                     &rng);
            planar_case(ctx, sizes[i].w, sizes[i].h, modes[(i + 1) % 3], 0.7f, 0, &rng);
            histogram_case(ctx, sizes[i].w, sizes[i].h, CLPRIM_RGBA8, CLPRIM_CHANNEL_ALL, 256, NULL, &rng);
            histogram_case(ctx, sizes[i].w, sizes[i].h, CLPRIM_RGB8, CLPRIM_CHANNEL_GREY, 16, NULL, &rng);
            grey_case(ctx, sizes[i].w, sizes[i].h, CLPRIM_RGBA8, CLPRIM_GREY8, 100, (int)(i % 3), &rng);
        }
    }
    harness_env_restore();
}
END_TEST

/* ---- Photographs ---- */

static const char *const photos[] = {"coffee.png", "chelsea.png", "astronaut.png"};

START_TEST(photos_red_threshold)
{
    if (!reference_have_photos()) {
        fprintf(stderr, "note: built without stb: photographs skipped\n");
        return;
    }
    uint64_t rng = harness_rng(8);
    FOR_EACH_DEVICE(ctx)
    for (size_t k = 0; k < 3; k++)
        for (int rgba = 0; rgba < 2; rgba++) {
            size_t w, h, bpp = rgba ? 4 : 3;
            uint8_t *px = reference_load_photo(photos[k], (int)bpp, &w, &h);
            if (rgba) /* an alpha that varies, to see it passed through */
                for (size_t i = 0; i < w * h; i++)
                    px[4 * i + 3] = (uint8_t)(i * 7);
            const size_t bytes = w * h * bpp;
            uint8_t *want = harness_malloc(bytes), *got = harness_malloc(bytes);
            cl_mem sbuf = harness_buffer(ctx, bytes, px), dbuf = harness_buffer(ctx, bytes, NULL);
            clprim_pixel_format f = rgba ? CLPRIM_RGBA8 : CLPRIM_RGB8;
            for (size_t m = 0; m < 3; m++) {
                /* The whole photograph ... */
                clprim_image si = {sbuf, 0, w, h, 0, f}, di = {dbuf, 0, w, h, 0, f};
                ck_assert_int_eq(clprim_threshold_red(ctx, &si, &di, 0.7f, modes[m], 0, NULL, NULL), CLPRIM_SUCCESS);
                reference_threshold_red(px, w * bpp, want, w * bpp, w, h, bpp, 0.7f, modes[m]);
                harness_read(ctx, dbuf, 0, bytes, got);
                placement p = {0, w * bpp, bytes, 0};
                char what[96];
                snprintf(what, sizeof what, "%s %s %s", photos[k], rgba ? "RGBA8" : "RGB8", mode_names[m]);
                assert_same_bytes(got, want, bytes, &p, bpp, what);
                if (m == 0) { /* the report's formula, in double, picks the same pixels (but for exact ties) */
                    size_t selected = 0, differ = 0;
                    for (size_t i = 0; i < w * h; i++) {
                        const uint8_t *q = px + i * bpp;
                        double r = q[0], g = q[1], b = q[2];
                        int report = r / sqrt(r * r + g * g + b * b) > 0.7; /* NaN for black: not selected */
                        int mine = (got[i * bpp] | got[i * bpp + 1] | got[i * bpp + 2]) != 0;
                        selected += mine;
                        differ += report != mine;
                    }
                    ck_assert_msg(differ <= w * h / 10000, "%s: %zu pixels differ from r / sqrt(r^2 + g^2 + b^2) > 0.7",
                                  photos[k], differ);
                    if (!rgba)
                        fprintf(stderr, "%s: %.1f%% of the pixels have a red ratio above 0.7 (%zu differ from the "
                                "double formula)\n", photos[k], 100.0 * (double)selected / (double)(w * h), differ);
                }
                /* ... and a window of it: an odd rectangle at an offset, the photo's pitch. */
                size_t x0 = 1 + rand_below(&rng, w / 3), y0 = rand_below(&rng, h / 3);
                size_t ww = 1 + rand_below(&rng, w - x0), hh = 1 + rand_below(&rng, h - y0);
                clprim_image sw = {sbuf, (y0 * w + x0) * bpp, ww, hh, w * bpp, f};
                size_t dpitch = ww * bpp + 5;
                cl_mem wbuf = harness_buffer(ctx, hh * dpitch, NULL);
                clprim_image dw = {wbuf, 0, ww, hh, dpitch, f};
                ck_assert_int_eq(clprim_threshold_red(ctx, &sw, &dw, 0.6f, modes[m], 0, NULL, NULL), CLPRIM_SUCCESS);
                uint8_t *wwant = harness_malloc(hh * dpitch), *wgot = harness_malloc(hh * dpitch);
                memset(wwant, HARNESS_SENTINEL, hh * dpitch);
                reference_threshold_red(px + (y0 * w + x0) * bpp, w * bpp, wwant, dpitch, ww, hh, bpp, 0.6f, modes[m]);
                harness_read(ctx, wbuf, 0, hh * dpitch, wgot);
                placement wp = {0, dpitch, hh * dpitch, dpitch};
                assert_same_bytes(wgot, wwant, hh * dpitch, &wp, bpp, "photo window");
                clReleaseMemObject(wbuf);
                free(wwant);
                free(wgot);
            }
            /* Planar float from the same photo, 0..255. */
            size_t n = w * h;
            float *planes = harness_malloc(3 * n * sizeof(float)), *pw = harness_malloc(3 * n * sizeof(float)),
                  *pg = harness_malloc(3 * n * sizeof(float));
            for (size_t i = 0; i < n; i++)
                for (int c = 0; c < 3; c++)
                    planes[c * n + i] = px[i * bpp + c];
            cl_mem fbuf = harness_buffer(ctx, 3 * n * sizeof(float), planes),
                   gbuf = harness_buffer(ctx, 3 * n * sizeof(float), NULL);
            clprim_planar_image fs = {fbuf, 0, w, h}, fd = {gbuf, 0, w, h};
            ck_assert_int_eq(clprim_threshold_red_planar(ctx, &fs, &fd, 0.7f, CLPRIM_THRESHOLD_REINSERT, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            reference_threshold_red_planar(planes, pw, n, 0.7f, CLPRIM_THRESHOLD_REINSERT);
            harness_read(ctx, gbuf, 0, 3 * n * sizeof(float), pg);
            ck_assert_msg(memcmp(pw, pg, 3 * n * sizeof(float)) == 0, "%s planar: differs from the reference",
                          photos[k]);
            /* The planar and interleaved tests pick the same pixels. */
            ck_assert_int_eq(clprim_threshold_red(ctx, &(clprim_image){sbuf, 0, w, h, 0, f},
                                                  &(clprim_image){dbuf, 0, w, h, 0, f}, 0.7f, CLPRIM_THRESHOLD_REINSERT,
                                                  0, NULL, NULL),
                             CLPRIM_SUCCESS);
            harness_read(ctx, dbuf, 0, bytes, got);
            for (size_t i = 0; i < n; i++)
                for (int c = 0; c < 3; c++)
                    CHECK(pg[c * n + i] == (float)got[i * bpp + c], "%s: planar and interleaved differ at %zu",
                          photos[k], i);
            clReleaseMemObject(fbuf);
            clReleaseMemObject(gbuf);
            free(planes);
            free(pw);
            free(pg);
            clReleaseMemObject(sbuf);
            clReleaseMemObject(dbuf);
            free(px);
            free(want);
            free(got);
        }
}
END_TEST

START_TEST(photos_histograms_and_otsu)
{
    if (!reference_have_photos())
        return;
    uint64_t rng = harness_rng(9);
    FOR_EACH_DEVICE(ctx)
    for (size_t k = 0; k < 3; k++) {
        size_t w, h;
        uint8_t *px = reference_load_photo(photos[k], 3, &w, &h);
        histogram_case(ctx, w, h, CLPRIM_RGB8, CLPRIM_CHANNEL_ALL, 256, px, &rng);
        histogram_case(ctx, w, h, CLPRIM_RGB8, CLPRIM_CHANNEL_GREY, 16, px, &rng);
        histogram_case(ctx, w, h, CLPRIM_RGB8, CLPRIM_CHANNEL_R, 64, px, &rng);
        uint32_t hist[256];
        reference_image_histogram(px, w * 3, w, h, 3, CLPRIM_CHANNEL_GREY, 256, hist);
        otsu_case(ctx, hist, 256, photos[k]);
        reference_image_histogram(px, w * 3, w, h, 3, CLPRIM_CHANNEL_GREY, 16, hist);
        otsu_case(ctx, hist, 16, photos[k]);

        /* The one-call Otsu threshold on the photo, to a GREY8 mask. */
        cl_mem sbuf = harness_buffer(ctx, w * h * 3, px), mbuf = harness_buffer(ctx, w * h, NULL);
        clprim_image si = {sbuf, 0, w, h, 0, CLPRIM_RGB8}, mi = {mbuf, 0, w, h, 0, CLPRIM_GREY8};
        unsigned level = 1000;
        cl_event done = NULL;
        ck_assert_int_eq(clprim_threshold_otsu(ctx, &si, &mi, &level, 0, NULL, &done), CLPRIM_SUCCESS);
        finish(ctx, done);
        reference_image_histogram(px, w * 3, w, h, 3, CLPRIM_CHANNEL_GREY, 256, hist);
        ck_assert_uint_eq(level, reference_otsu(hist, 256));
        uint8_t *want = harness_malloc(w * h), *got = harness_malloc(w * h);
        reference_threshold_grey(px, w * 3, 3, want, w, 1, w, h, level);
        harness_read(ctx, mbuf, 0, w * h, got);
        placement p = {0, w, w * h, 0};
        assert_same_bytes(got, want, w * h, &p, 1, photos[k]);
        size_t fg = 0;
        for (size_t i = 0; i < w * h; i++)
            fg += got[i] != 0;
        ck_assert_msg(fg > 0 && fg < w * h, "%s: Otsu level %u puts %zu of %zu pixels in front", photos[k], level, fg,
                      w * h);
        fprintf(stderr, "%s: Otsu level %u, %.1f%% foreground\n", photos[k], level, 100.0 * (double)fg / (double)(w * h));
        clReleaseMemObject(sbuf);
        clReleaseMemObject(mbuf);
        free(want);
        free(got);
        free(px);
    }
}
END_TEST

/* ---- Two valid edges ---- */

/* Ratio 1 is valid and selects nothing, not even pure red; 0.999 selects it. */
START_TEST(red_ratio_one_selects_nothing)
{
    FOR_EACH_DEVICE(ctx)
    {
        const size_t w = 5, h = 3, bytes = w * h * 4;
        uint8_t red[5 * 3 * 4], got[5 * 3 * 4];
        for (size_t i = 0; i < w * h; i++)
            red[4 * i] = 255, red[4 * i + 1] = red[4 * i + 2] = 0, red[4 * i + 3] = 9;
        cl_mem rb = harness_buffer(ctx, bytes, red), out = harness_buffer(ctx, bytes, NULL);
        const clprim_image rs = {rb, 0, w, h, 0, CLPRIM_RGBA8}, od = {out, 0, w, h, 0, CLPRIM_RGBA8};
        ck_assert_int_eq(clprim_threshold_red(ctx, &rs, &od, 1.0f, CLPRIM_THRESHOLD_KEEP, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, out, 0, bytes, got);
        for (size_t i = 0; i < w * h; i++)
            ck_assert(got[4 * i] == 0 && got[4 * i + 1] == 0 && got[4 * i + 2] == 0 && got[4 * i + 3] == 9);
        ck_assert_int_eq(clprim_threshold_red(ctx, &rs, &od, 0.999f, CLPRIM_THRESHOLD_KEEP, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, out, 0, bytes, got);
        ck_assert_int_eq(got[0], 255);
        clReleaseMemObject(out);
        clReleaseMemObject(rb);
    }
}
END_TEST

START_TEST(pixel_sizes)
{
    ck_assert_uint_eq(clprim_pixel_size(CLPRIM_RGB8), 3);
    ck_assert_uint_eq(clprim_pixel_size(CLPRIM_RGBA8), 4);
    ck_assert_uint_eq(clprim_pixel_size(CLPRIM_GREY8), 1);
    ck_assert_uint_eq(clprim_pixel_size((clprim_pixel_format)3), 0);
}
END_TEST

/* ---- Bad arguments: a status, a message, nothing written ---- */

enum { RED, RED_PLANAR, IMAGE_HISTOGRAM, OTSU, GREY, GREY_BUFFER, THRESHOLD_OTSU };

/* What a row changes in its call's usual arguments. */
enum {
    TH_USUAL,
    TH_SRC_NULL,
    TH_DST_NULL,
    TH_SRC_HEIGHT_0,
    TH_DST_WIDTH_0,
    TH_SRC_PITCH_BELOW_A_ROW,
    TH_SRC_PITCH_A_BYTE_LONG,
    TH_SRC_WIDTH_HUGE,
    TH_SRC_PITCH_HUGE,
    TH_SRC_FORMAT_7,
    TH_DST_RGB8,
    TH_DST_NARROWER,
    TH_DST_OTHER_SHAPE, /* as many pixels, another width and height */
    TH_GREY8,
    TH_RGB8,
    TH_LAST_ROW_UNPADDED, /* 31 pixels wide, rows of 32 */
    TH_RATIO_NAN,
    TH_RATIO_0,
    TH_RATIO_NEGATIVE,
    TH_RATIO_ABOVE_1,
    TH_RATIO_INFINITE,
    TH_RATIO_MINUS_INFINITE,
    TH_BINS_0,
    TH_BINS_257,
    TH_LEVEL_256,
    TH_NO_RESULT,
};

/* buf: src (or image, or hist), dst (or hist, or level), then level; offsets
 * alike; op: the red threshold's mode or the histogram's channel. Images:
 * 32 x 32 RGBA8, 64 x 64 GREY8 (4 KiB each), 16 x 16 planar; 256 bins, ratio
 * 0.5, level 128. A refusal hands back no Otsu level. */
static clprim_status threshold_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const int grey_call = row->call == GREY || row->call == GREY_BUFFER || row->call == THRESHOLD_OTSU;
    const size_t side = grey_call ? 64 : 32;
    const clprim_pixel_format format = grey_call ? CLPRIM_GREY8 : CLPRIM_RGBA8;
    clprim_image img[2] = {{buf[0], row->offset[0], side, side, 0, format},
                           {buf[1], row->offset[1], side, side, 0, format}};
    clprim_planar_image planar[2] = {{buf[0], row->offset[0], 16, 16}, {buf[1], row->offset[1], 16, 16}};
    float ratio = 0.5f;
    unsigned bins = 256, grey_level = 128, level = 77;
    switch (row->variant) {
    case TH_SRC_HEIGHT_0: img[0].height = planar[0].height = 0; break;
    case TH_DST_WIDTH_0: img[1].width = 0; break;
    case TH_SRC_PITCH_BELOW_A_ROW: img[0].row_pitch = side * 4 - 1; break;
    case TH_SRC_PITCH_A_BYTE_LONG: img[0].row_pitch = side * 4 + 1; break;
    case TH_SRC_WIDTH_HUGE: img[0].width = SIZE_MAX / 2; break;
    case TH_SRC_PITCH_HUGE: img[0].row_pitch = SIZE_MAX / 2; break;
    case TH_SRC_FORMAT_7: img[0].format = (clprim_pixel_format)7; break;
    case TH_DST_RGB8: img[1].format = CLPRIM_RGB8; break;
    case TH_DST_NARROWER: img[1].width = side - 1; break;
    case TH_DST_OTHER_SHAPE:
        img[1].width = 2 * side, img[1].height = side / 2;
        planar[1].width = 8, planar[1].height = 32;
        break;
    case TH_GREY8: img[0].format = img[1].format = CLPRIM_GREY8; break;
    case TH_RGB8: img[0].format = CLPRIM_RGB8; break;
    case TH_LAST_ROW_UNPADDED:
        img[0].width = img[1].width = side - 1;
        img[0].row_pitch = img[1].row_pitch = side * 4;
        break;
    case TH_RATIO_NAN: ratio = NAN; break;
    case TH_RATIO_0: ratio = 0.0f; break;
    case TH_RATIO_NEGATIVE: ratio = -0.5f; break;
    case TH_RATIO_ABOVE_1: ratio = 1.0000001f; break;
    case TH_RATIO_INFINITE: ratio = INFINITY; break;
    case TH_RATIO_MINUS_INFINITE: ratio = -INFINITY; break;
    case TH_BINS_0: bins = 0; break;
    case TH_BINS_257: bins = 257; break;
    case TH_LEVEL_256: grey_level = 256; break;
    }
    const clprim_image *src = row->variant == TH_SRC_NULL ? NULL : &img[0];
    const clprim_image *dst = row->variant == TH_DST_NULL ? NULL : &img[1];
    clprim_status s;
    switch (row->call) {
    case RED:
        return clprim_threshold_red(ctx, src, dst, ratio, (clprim_threshold_mode)row->op, 0, NULL, NULL);
    case RED_PLANAR:
        return clprim_threshold_red_planar(ctx, row->variant == TH_SRC_NULL ? NULL : &planar[0], &planar[1], ratio,
                                           (clprim_threshold_mode)row->op, 0, NULL, NULL);
    case IMAGE_HISTOGRAM:
        return clprim_image_histogram(ctx, src, (clprim_channel)row->op, bins, buf[1], row->offset[1], 0, NULL, NULL);
    case OTSU:
        s = clprim_otsu(ctx, buf[0], row->offset[0], bins, buf[1], row->offset[1],
                        row->variant == TH_NO_RESULT ? NULL : &level, 0, NULL, NULL);
        break;
    case GREY:
        return clprim_threshold_grey(ctx, src, dst, grey_level, 0, NULL, NULL);
    case GREY_BUFFER:
        return clprim_threshold_grey_buffer(ctx, src, dst, buf[2], row->offset[2], 0, NULL, NULL);
    default:
        s = clprim_threshold_otsu(ctx, src, dst, &level, 0, NULL, NULL);
        break;
    }
    if (s != CLPRIM_SUCCESS)
        ck_assert_msg(level == 77, "%s: a refused call handed back level %u", row->what, level);
    return s;
}

/* A buffer holds 64 KiB: an image of 4 KiB at 61441 is a byte short, as are
 * 768 planar floats at 15617 and 1024 cl_uint at 15361. */
static const harness_bad_call threshold_bad_calls[] = {
    /* Contexts and images */
    {"red: ctx NULL", RED, 1, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"red: src NULL", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "src is NULL", .variant = TH_SRC_NULL},
    {"red: dst NULL", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "dst is NULL", .variant = TH_DST_NULL},
    {"red: src data NULL", RED, 0, {HB_NULL, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "data is NULL"},
    {"red: dst width 0", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "width 0", .variant = TH_DST_WIDTH_0},
    {"red: src height 0", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "height 0",
     .variant = TH_SRC_HEIGHT_0},
    {"red: src row_pitch below a row", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "row_pitch",
     .variant = TH_SRC_PITCH_BELOW_A_ROW},
    {"red: src rows a byte long reach past the end", RED, 0, {HB_A, HB_B}, {61440}, 0, CLPRIM_BUFFER_TOO_SMALL,
     "holds 65536 bytes", .variant = TH_SRC_PITCH_A_BYTE_LONG},
    {"red: src a byte short", RED, 0, {HB_A, HB_B}, {61441}, 0, CLPRIM_BUFFER_TOO_SMALL, "reaches byte 65537"},
    {"red: dst a byte short", RED, 0, {HB_A, HB_B}, {0, 61441}, 0, CLPRIM_BUFFER_TOO_SMALL, "dst"},
    {"red: src width overflows", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "overflow",
     .variant = TH_SRC_WIDTH_HUGE},
    {"red: src row_pitch overflows", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "overflow",
     .variant = TH_SRC_PITCH_HUGE},
    {"red: src format 7", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "clprim_pixel_format 7",
     .variant = TH_SRC_FORMAT_7},
    {"red: dst CL_MEM_READ_ONLY", RED, 0, {HB_A, HB_READ_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "READ_ONLY"},
    /* Red-ratio specifics */
    {"red: ratio NaN", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ratio", .variant = TH_RATIO_NAN},
    {"red: ratio 0", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ratio", .variant = TH_RATIO_0},
    {"red: ratio -0.5", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ratio",
     .variant = TH_RATIO_NEGATIVE},
    {"red: ratio above 1", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ratio",
     .variant = TH_RATIO_ABOVE_1},
    {"red: ratio infinite", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ratio",
     .variant = TH_RATIO_INFINITE},
    {"red: ratio -infinite", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ratio",
     .variant = TH_RATIO_MINUS_INFINITE},
    {"red: mode 3", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "clprim_threshold_mode 3", .op = 3},
    {"red: dst of another format", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "must match",
     .variant = TH_DST_RGB8},
    {"red: dst narrower", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "32 x 32",
     .variant = TH_DST_NARROWER},
    {"red: GREY8 images", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "GREY8", .variant = TH_GREY8},
    {"red: one buffer, not in place", RED, 0, {HB_A, HB_A}, {0, 4}, 0, CLPRIM_INVALID_ARGUMENT, "in place"},
    {"red: disjoint halves of one buffer", RED, 0, {HB_A, HB_A}, {0, 4096}, 0, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1)},
    /* The last row needs no padding: (h - 1) * pitch + row bytes are enough. */
    {"red: dst ends with an unpadded row", RED, 0, {HB_A, HB_B}, {0, 65536 - 31 * 128 - 31 * 4}, 0, CLPRIM_SUCCESS,
     NULL, .written = HB_ARG(1), .variant = TH_LAST_ROW_UNPADDED},
    {"red: dst a sub-buffer inside src", RED, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"red: dst a sub-buffer at 0, shifted by a pixel", RED, 0, {HB_A, HB_A_AT_0}, {0, 4}, 0,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"red: src an image object", RED, 0, {HB_IMAGE, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"red: dst an image object", RED, 0, {HB_A, HB_IMAGE}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"red: src CL_MEM_WRITE_ONLY", RED, 0, {HB_WRITE_ONLY, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    /* Planar */
    {"planar: ctx NULL", RED_PLANAR, 1, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"planar: src NULL", RED_PLANAR, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "src is NULL",
     .variant = TH_SRC_NULL},
    {"planar: dst a float short", RED_PLANAR, 0, {HB_A, HB_B}, {0, 15617}, 0, CLPRIM_BUFFER_TOO_SMALL, "dst"},
    {"planar: src height 0", RED_PLANAR, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "height 0",
     .variant = TH_SRC_HEIGHT_0},
    {"planar: dst of another shape", RED_PLANAR, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "16 x 16",
     .variant = TH_DST_OTHER_SHAPE},
    {"planar: ratio NaN", RED_PLANAR, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ratio",
     .variant = TH_RATIO_NAN},
    {"planar: mode -1", RED_PLANAR, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "mode", .op = -1},
    /* Too small is found before the overlap. */
    {"planar: dst a float short, overlapping src", RED_PLANAR, 0, {HB_A, HB_A}, {15616, 15617}, 0,
     CLPRIM_BUFFER_TOO_SMALL, "dst"},
    {"planar: one buffer, not in place", RED_PLANAR, 0, {HB_A, HB_A}, {0, 5}, 0, CLPRIM_INVALID_ARGUMENT,
     "in place"},
    {"planar: dst a sub-buffer inside src", RED_PLANAR, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"planar: src an image object", RED_PLANAR, 0, {HB_IMAGE, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    {"planar: src CL_MEM_WRITE_ONLY", RED_PLANAR, 0, {HB_WRITE_ONLY, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    /* Histograms */
    {"image_histogram: ctx NULL", IMAGE_HISTOGRAM, 1, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"image_histogram: image NULL", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "image is NULL", .variant = TH_SRC_NULL},
    {"image_histogram: bins 0", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "bins 0",
     .variant = TH_BINS_0},
    {"image_histogram: bins 257", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "bins 257",
     .variant = TH_BINS_257},
    {"image_histogram: channel 9", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "clprim_channel 9", .op = 9},
    {"image_histogram: alpha of RGB8", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "alpha",
     .op = CLPRIM_CHANNEL_A, .variant = TH_RGB8},
    {"image_histogram: green of GREY8", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "GREY8",
     .op = CLPRIM_CHANNEL_G, .variant = TH_GREY8},
    {"image_histogram: hist an element short", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0, 15361}, 0,
     CLPRIM_BUFFER_TOO_SMALL, "hist", .op = CLPRIM_CHANNEL_ALL},
    {"image_histogram: hist NULL", IMAGE_HISTOGRAM, 0, {HB_A, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "hist is NULL"},
    {"image_histogram: row_pitch below a row", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "row_pitch", .variant = TH_SRC_PITCH_BELOW_A_ROW},
    {"image_histogram: every channel fits", IMAGE_HISTOGRAM, 0, {HB_A, HB_B}, {0, 15360}, 0, CLPRIM_SUCCESS, NULL,
     .op = CLPRIM_CHANNEL_ALL, .written = HB_ARG(1)},
    {"image_histogram: hist a sub-buffer inside the image", IMAGE_HISTOGRAM, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 0,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"image_histogram: hist in the image's buffer", IMAGE_HISTOGRAM, 0, {HB_A, HB_A}, {0, 16}, 0,
     CLPRIM_INVALID_ARGUMENT, "hist"},
    {"image_histogram: image an image object", IMAGE_HISTOGRAM, 0, {HB_IMAGE, HB_B}, {0}, 0,
     CLPRIM_INVALID_ARGUMENT, "image object"},
    {"image_histogram: image CL_MEM_WRITE_ONLY", IMAGE_HISTOGRAM, 0, {HB_WRITE_ONLY, HB_B}, {0}, 0,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY"},
    /* Otsu */
    {"otsu: ctx NULL", OTSU, 1, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"otsu: bins 0", OTSU, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "bins 0", .variant = TH_BINS_0},
    {"otsu: bins 257", OTSU, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "bins 257", .variant = TH_BINS_257},
    {"otsu: level and result both NULL", OTSU, 0, {HB_A, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "both NULL",
     .variant = TH_NO_RESULT},
    {"otsu: hist an element short", OTSU, 0, {HB_A, HB_B}, {16129}, 0, CLPRIM_BUFFER_TOO_SMALL, "hist"},
    {"otsu: level past the end", OTSU, 0, {HB_A, HB_B}, {0, 16384}, 0, CLPRIM_BUFFER_TOO_SMALL, "level"},
    {"otsu: hist NULL", OTSU, 0, {HB_NULL, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "hist is NULL"},
    {"otsu: level a sub-buffer inside hist", OTSU, 0, {HB_A, HB_A_AT_0}, {0, 5}, 0, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"otsu: hist an image object", OTSU, 0, {HB_IMAGE, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"otsu: hist CL_MEM_WRITE_ONLY", OTSU, 0, {HB_WRITE_ONLY, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    /* Grey thresholds */
    {"grey: level 256", GREY, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "level 256",
     .variant = TH_LEVEL_256},
    {"grey: ctx NULL", GREY, 1, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"grey: dst of another shape", GREY, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "128 x 32",
     .variant = TH_DST_OTHER_SHAPE},
    {"grey: dst a sub-buffer inside src", GREY, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"grey: src CL_MEM_WRITE_ONLY", GREY, 0, {HB_WRITE_ONLY, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"grey_buffer: level NULL", GREY_BUFFER, 0, {HB_A, HB_B, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "level is NULL"},
    {"grey_buffer: level past the end", GREY_BUFFER, 0, {HB_A, HB_B, HB_READ_ONLY}, {0, 0, 16384}, 0,
     CLPRIM_BUFFER_TOO_SMALL, "level"},
    {"grey_buffer: level inside dst", GREY_BUFFER, 0, {HB_A, HB_B, HB_B}, {0, 0, 1}, 0, CLPRIM_INVALID_ARGUMENT,
     "and dst bytes"},
    {"grey_buffer: level a sub-buffer inside dst", GREY_BUFFER, 0, {HB_B, HB_A, HB_A_AT_ALIGN}, {0}, 0,
     CLPRIM_INVALID_ARGUMENT, "level"},
    {"grey_buffer: level CL_MEM_WRITE_ONLY", GREY_BUFFER, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY"},
    {"grey_buffer: level an image object", GREY_BUFFER, 0, {HB_A, HB_B, HB_IMAGE}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    {"otsu threshold: dst NULL", THRESHOLD_OTSU, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "dst is NULL",
     .variant = TH_DST_NULL},
    {"otsu threshold: dst a byte short", THRESHOLD_OTSU, 0, {HB_A, HB_B}, {0, 61441}, 0, CLPRIM_BUFFER_TOO_SMALL,
     "dst"},
    {"otsu threshold: dst a sub-buffer inside src", THRESHOLD_OTSU, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 0,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"otsu threshold: src an image object", THRESHOLD_OTSU, 0, {HB_IMAGE, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    /* After a success the message is empty again. */
    {"red: the usual call", RED, 0, {HB_A, HB_B}, {0}, 0, CLPRIM_SUCCESS, NULL, .written = HB_ARG(1)},
};

START_TEST(threshold_bad_table)
{
    harness_run_bad_calls(threshold_bad_calls, sizeof threshold_bad_calls / sizeof *threshold_bad_calls, threshold_bad_call);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threshold");
    TCase *tc = tcase_create("threshold");
    tcase_add_test(tc, red_ratio_one_selects_nothing);
    tcase_add_test(tc, pixel_sizes);
    tcase_add_test(tc, red_interleaved_every_size_mode_format);
    tcase_add_test(tc, red_random_ratios_and_shapes);
    tcase_add_test(tc, red_exhaustive_pairs);
    tcase_add_test(tc, red_planar_exact);
    tcase_add_test(tc, histograms_every_channel_and_bins);
    tcase_add_test(tc, histogram_lecture_grey_16);
    tcase_add_test(tc, otsu_matches_reference);
    tcase_add_test(tc, grey_threshold_every_format_pair);
    tcase_add_test(tc, index64_path);
    tcase_add_test(tc, photos_red_threshold);
    tcase_add_test(tc, photos_histograms_and_otsu);
    tcase_add_test(tc, threshold_bad_table);
    suite_add_tcase(s, tc);
    return harness_run(s);
}
