/* clprim_kmeans against a CPU implementation of the same algorithm with the same
 * initialisation (clprim_kmeans_seed): the same labels, the same iteration count
 * and convergence, the same centres and quantized pixels, bit for bit. Noise and
 * clustered images, RGB8, RGBA8 (alpha copied) and GREY8, row padding and
 * offsets, k from 1 to 256, iteration limits, in place, small tunings, and an
 * image large enough that one work-group's uint sums would wrap without the
 * chunk limit. Then clprim_kmeans_seed; on photographs, the quality against the
 * simpler rules (plain k-means++ seeding, assignment to rounded centres); and
 * every bad argument. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference_image.h"
#include "reference_sort.h"

/* ---- An image in host memory, laid out like a clprim_image ---- */

typedef struct {
    unsigned char *data;
    size_t bytes, offset, width, height, pitch;
    clprim_pixel_format format;
} host_image;

static const unsigned char *pixel(const host_image *im, size_t i)
{
    return im->data + im->offset + (i / im->width) * im->pitch + (i % im->width) * clprim_pixel_size(im->format);
}

typedef enum { NOISE, BLOBS, FEW_COLOURS, CONSTANT } content;

static host_image make_image(clprim_pixel_format f, size_t w, size_t h, size_t offset, size_t pad, content c,
                             uint64_t *rng)
{
    const size_t bpp = clprim_pixel_size(f);
    host_image im = {NULL, 0, offset, w, h, w * bpp + pad, f};
    im.bytes = offset + (h - 1) * im.pitch + w * bpp + 3;
    im.data = harness_malloc(im.bytes);
    for (size_t i = 0; i < im.bytes; i++)
        im.data[i] = (unsigned char)harness_rand(rng); /* padding too: it must not matter */
    unsigned char base[6][4];
    for (int b = 0; b < 6; b++)
        for (int ch = 0; ch < 4; ch++)
            base[b][ch] = (unsigned char)(20 + 35 * b + harness_rand(rng) % 30); /* distinct per blob */
    for (size_t i = 0; i < w * h; i++) {
        unsigned char *p = (unsigned char *)pixel(&im, i);
        size_t x = i % w, y = i / w;
        for (size_t ch = 0; ch < bpp; ch++) {
            if (f == CLPRIM_RGBA8 && ch == 3)
                continue; /* alpha stays random */
            switch (c) {
            case NOISE: p[ch] = (unsigned char)harness_rand(rng); break;
            case BLOBS: { /* six regions of one colour each, with noise of +-12 */
                int b = (int)((x * 3 / w) + 3 * (y * 2 / h));
                int v = base[b][ch] + (int)(harness_rand(rng) % 25) - 12;
                p[ch] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
                break;
            }
            case FEW_COLOURS: p[ch] = base[(x + y) % 3][ch]; break;
            case CONSTANT: p[ch] = 255; break;
            }
        }
    }
    return im;
}

/* ---- One run, checked ---- */

#define IN_PLACE 1  /* dst is src */
#define NO_LABELS 2 /* labels NULL: the library keeps them in its scratch */

static void kmeans_case(clprim_context *ctx, const host_image *im, unsigned k, unsigned max_iterations, int flags,
                        const char *what)
{
    const int in_place = flags & IN_PLACE, keep_labels = !(flags & NO_LABELS);
    const unsigned dims = clprim_kmeans_dims(im->format);
    const size_t n = im->width * im->height;
    float init[256 * 3], got[256 * 3], want[256 * 3];
    ck_assert_int_eq(clprim_kmeans_seed(im->data + im->offset, im->width, im->height, im->pitch, im->format, k,
                                        12345, init),
                     CLPRIM_SUCCESS);
    memcpy(got, init, sizeof init);
    memcpy(want, init, sizeof init);

    /* Labels at an offset in a buffer with a guard after; dst a copy of src (or src). */
    const size_t loff = 5;
    cl_mem src = harness_buffer(ctx, im->bytes, im->data);
    cl_mem dst = in_place ? src : harness_buffer(ctx, im->bytes, im->data);
    cl_mem labels = harness_buffer(ctx, loff + n + 7, NULL);
    clprim_image s_img = {src, im->offset, im->width, im->height, im->pitch, im->format};
    clprim_image d_img = {dst, im->offset, im->width, im->height, im->pitch, im->format};
    clprim_kmeans_info info = {0, -1};
    clprim_status s =
        clprim_kmeans(ctx, &s_img, k, max_iterations, got, keep_labels ? labels : NULL, loff, &d_img, &info, 0, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: k=%u: %s: %s", what, k, clprim_status_name(s), clprim_last_error(ctx));

    host_image ref_out = *im;
    ref_out.data = harness_malloc(im->bytes);
    memcpy(ref_out.data, im->data, im->bytes);
    unsigned char *want_labels = harness_malloc(n);
    clprim_kmeans_info want_info;
    const reference_image_view view = {im->data, im->offset, im->width, im->height, im->pitch, im->format};
    reference_kmeans(&view, k, max_iterations, want, want_labels, ref_out.data, &want_info);

    ck_assert_msg(info.iterations == want_info.iterations && info.converged == want_info.converged,
                  "%s: k=%u: %u iterations (converged %d), the reference %u (converged %d)", what, k, info.iterations,
                  info.converged, want_info.iterations, want_info.converged);
    for (unsigned j = 0; j < k * dims; j++)
        ck_assert_msg(memcmp(&got[j], &want[j], sizeof got[j]) == 0, "%s: k=%u: centre value %u is %.9g, want %.9g",
                      what, k, j, (double)got[j], (double)want[j]);
    unsigned char *l = harness_malloc(loff + n + 7);
    harness_read(ctx, labels, 0, loff + n + 7, l);
    for (size_t i = 0; i < n && keep_labels; i++)
        CHECK(l[loff + i] == want_labels[i], "%s: k=%u (%s): pixel %zu has label %u, want %u", what, k,
                      harness_tuning_text(ctx), i, l[loff + i], want_labels[i]);
    ck_assert_msg(harness_all_sentinel(l, loff) && harness_all_sentinel(l + loff + n, 7) &&
                      (keep_labels || harness_all_sentinel(l, loff + n + 7)),
                  "%s: wrote outside labels (or into labels not given)", what);
    unsigned char *d = harness_malloc(im->bytes);
    harness_read(ctx, dst, 0, im->bytes, d);
    for (size_t b = 0; b < im->bytes; b++)
        CHECK(d[b] == ref_out.data[b], "%s: k=%u: dst byte %zu is %u, want %u (padding and alpha included)",
                      what, k, b, d[b], ref_out.data[b]);
    if (!in_place) {
        harness_read(ctx, src, 0, im->bytes, d);
        ck_assert_msg(memcmp(d, im->data, im->bytes) == 0, "%s: src changed", what);
        clReleaseMemObject(dst);
    }
    free(d);
    free(l);
    free(want_labels);
    free(ref_out.data);
    clReleaseMemObject(src);
    clReleaseMemObject(labels);
}

/* ---- Correctness ---- */

START_TEST(kmeans_rgb)
{
    uint64_t rng = harness_rng(1);
    FOR_EACH_DEVICE(ctx)
    {
        host_image noise = make_image(CLPRIM_RGB8, 97, 61, 0, 0, NOISE, &rng);
        const unsigned ks[] = {1, 2, 7, 33, 256};
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            kmeans_case(ctx, &noise, ks[i], 30, 0, "noise");
        kmeans_case(ctx, &noise, 16, 1, 0, "noise, one iteration");
        kmeans_case(ctx, &noise, 16, 3, IN_PLACE, "noise, three iterations, in place");
        kmeans_case(ctx, &noise, 16, 30, NO_LABELS, "noise, labels in scratch");
        free(noise.data);

        host_image blobs = make_image(CLPRIM_RGB8, 128, 100, 7, 5, BLOBS, &rng);
        kmeans_case(ctx, &blobs, 6, 100, 0, "blobs");
        kmeans_case(ctx, &blobs, 20, 100, IN_PLACE | NO_LABELS, "blobs, in place, labels in scratch");
        free(blobs.data);
    }
}
END_TEST

START_TEST(kmeans_rgba_and_grey)
{
    uint64_t rng = harness_rng(2);
    FOR_EACH_DEVICE(ctx)
    {
        host_image rgba = make_image(CLPRIM_RGBA8, 61, 47, 13, 6, BLOBS, &rng);
        kmeans_case(ctx, &rgba, 5, 50, 0, "rgba");
        kmeans_case(ctx, &rgba, 16, 50, IN_PLACE, "rgba, in place");
        free(rgba.data);
        host_image grey = make_image(CLPRIM_GREY8, 203, 31, 3, 1, NOISE, &rng);
        kmeans_case(ctx, &grey, 4, 50, 0, "grey");
        kmeans_case(ctx, &grey, 256, 50, 0, "grey, k=256");
        free(grey.data);
        host_image one = make_image(CLPRIM_GREY8, 1, 1, 0, 0, NOISE, &rng);
        kmeans_case(ctx, &one, 1, 5, 0, "one pixel");
        kmeans_case(ctx, &one, 3, 5, 0, "one pixel, k=3");
        free(one.data);
    }
}
END_TEST

/* What the progress hook hears: one call per iteration, in order. */
typedef struct {
    unsigned long calls, last_done, total;
    int wrong_name;
} heard;

static void hear(void *user, const char *what, unsigned long done, unsigned long total)
{
    heard *h = user;
    h->wrong_name |= strcmp(what, "k-means") != 0;
    h->calls++;
    h->last_done = done;
    h->total = total;
}

START_TEST(kmeans_progress)
{
    uint64_t rng = harness_rng(9);
    FOR_EACH_DEVICE(ctx)
    {
        host_image img = make_image(CLPRIM_RGB8, 67, 29, 5, 0, BLOBS, &rng);
        cl_mem buf = harness_buffer(ctx, img.bytes, img.data);
        clprim_image src = {buf, img.offset, img.width, img.height, img.pitch, img.format};
        float centres[6 * 3];
        ck_assert_int_eq(clprim_kmeans_seed(img.data + img.offset, img.width, img.height, img.pitch, img.format, 6, 5,
                                            centres),
                         CLPRIM_SUCCESS);
        heard h = {0, 0, 0, 0};
        ck_assert_int_eq(clprim_set_progress(ctx, hear, &h), CLPRIM_SUCCESS);
        clprim_kmeans_info info;
        ck_assert_int_eq(clprim_kmeans(ctx, &src, 6, 40, centres, NULL, 0, NULL, &info, 0, NULL), CLPRIM_SUCCESS);
        ck_assert_msg(h.calls == info.iterations && h.last_done == info.iterations && h.total == 40 && !h.wrong_name,
                      "%lu calls, last %lu of %lu, for %u iterations", h.calls, h.last_done, h.total, info.iterations);
        ck_assert_int_eq(clprim_set_progress(ctx, NULL, NULL), CLPRIM_SUCCESS);
        const unsigned long before = h.calls;
        ck_assert_int_eq(clprim_kmeans(ctx, &src, 6, 3, centres, NULL, 0, NULL, &info, 0, NULL), CLPRIM_SUCCESS);
        ck_assert_msg(h.calls == before, "the hook was called after it was turned off");
        clReleaseMemObject(buf);
        free(img.data);
    }
    harness_assert_error(NULL, clprim_set_progress(NULL, hear, NULL), CLPRIM_INVALID_ARGUMENT, "ctx");
}
END_TEST

/* Three colours, k = 10: the seed repeats its first centre, clusters stay empty
 * and keep their centres. */
START_TEST(kmeans_few_colours)
{
    uint64_t rng = harness_rng(3);
    FOR_EACH_DEVICE(ctx)
    {
        host_image few = make_image(CLPRIM_RGB8, 50, 40, 0, 0, FEW_COLOURS, &rng);
        kmeans_case(ctx, &few, 10, 20, 0, "three colours");
        kmeans_case(ctx, &few, 3, 20, 0, "three colours, k=3");
        free(few.data);
    }
}
END_TEST

/* wg=4, items=2: hundreds of work-groups' partials; wg=1 items=2 too. */
START_TEST(kmeans_small_tiles)
{
    uint64_t rng = harness_rng(4);
    FOR_EACH_DEVICE(ctx)
    {
        host_image blobs = make_image(CLPRIM_RGB8, 45, 33, 1, 2, BLOBS, &rng);
        harness_set_tuning(ctx, 4, 2, 200);
        kmeans_case(ctx, &blobs, 9, 40, 0, "blobs, wg=4");
        harness_set_tuning(ctx, 1, 2, 7);
        kmeans_case(ctx, &blobs, 9, 40, 0, "blobs, wg=1");
        free(blobs.data);
    }
}
END_TEST

/* 4200 x 4100 white pixels with a single work-group asked for: its uint sums
 * would pass 2^32 (17.2 million x 255) without the limit of 2^24 pixels a chunk. */
START_TEST(kmeans_chunk_limit)
{
    uint64_t rng = harness_rng(5);
    FOR_EACH_DEVICE(ctx)
    {
        host_image white = make_image(CLPRIM_GREY8, 4200, 4100, 0, 0, CONSTANT, &rng);
        clprim_tuning t = clprim_get_tuning(ctx);
        harness_set_tuning(ctx, t.work_group_size, t.items_per_thread, 1);
        kmeans_case(ctx, &white, 2, 2, 0, "white, one group asked for");
        free(white.data);
    }
}
END_TEST

START_TEST(kmeans_seed)
{
    uint64_t rng = harness_rng(6);
    host_image im = make_image(CLPRIM_RGBA8, 300, 301, 4, 4, NOISE, &rng); /* more pixels than the sample */
    float a[256 * 3], b[256 * 3];
    ck_assert_int_eq(clprim_kmeans_seed(im.data + im.offset, im.width, im.height, im.pitch, im.format, 256, 7, a),
                     CLPRIM_SUCCESS);
    ck_assert_int_eq(clprim_kmeans_seed(im.data + im.offset, im.width, im.height, im.pitch, im.format, 256, 7, b),
                     CLPRIM_SUCCESS);
    ck_assert_mem_eq(a, b, sizeof a); /* deterministic */
    /* Every centre is the colour of a pixel of the image. */
    for (unsigned j = 0; j < 256; j++) {
        int found = 0;
        for (size_t i = 0; i < im.width * im.height && !found; i++) {
            const unsigned char *p = pixel(&im, i);
            found = p[0] == a[3 * j] && p[1] == a[3 * j + 1] && p[2] == a[3 * j + 2];
        }
        ck_assert_msg(found, "centre %u is no pixel's colour", j);
    }
    ck_assert_int_eq(clprim_kmeans_seed(im.data + im.offset, im.width, im.height, im.pitch, im.format, 256, 8, b),
                     CLPRIM_SUCCESS);
    ck_assert_msg(memcmp(a, b, sizeof a) != 0, "seeds 7 and 8 gave the same centres");
    free(im.data);

    /* Fewer colours than k: the rest repeat the first centre. */
    host_image few = make_image(CLPRIM_GREY8, 20, 10, 0, 0, FEW_COLOURS, &rng);
    ck_assert_int_eq(clprim_kmeans_seed(few.data, few.width, few.height, 0, few.format, 6, 1, a), CLPRIM_SUCCESS);
    int distinct = 0;
    for (int j = 0; j < 6; j++) {
        int seen = 0;
        for (int i = 0; i < j; i++)
            seen |= a[i] == a[j];
        distinct += !seen;
        if (j >= 3)
            ck_assert(a[j] == a[0]);
    }
    ck_assert_int_eq(distinct, 3);
    free(few.data);

    /* Bad arguments: the thread's message. */
    unsigned char px[12] = {0};
    ck_assert_int_eq(clprim_kmeans_seed(NULL, 2, 2, 0, CLPRIM_RGB8, 2, 1, a), CLPRIM_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strcasestr(clprim_last_error(NULL), "pixels"));
    ck_assert_int_eq(clprim_kmeans_seed(px, 2, 2, 0, CLPRIM_RGB8, 2, 1, NULL), CLPRIM_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strcasestr(clprim_last_error(NULL), "centres"));
    ck_assert_int_eq(clprim_kmeans_seed(px, 2, 2, 0, CLPRIM_RGB8, 0, 1, a), CLPRIM_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strcasestr(clprim_last_error(NULL), "k = 0"));
    ck_assert_int_eq(clprim_kmeans_seed(px, 2, 2, 0, CLPRIM_RGB8, 257, 1, a), CLPRIM_INVALID_ARGUMENT);
    ck_assert_int_eq(clprim_kmeans_seed(px, 0, 2, 0, CLPRIM_RGB8, 2, 1, a), CLPRIM_INVALID_ARGUMENT);
    ck_assert_int_eq(clprim_kmeans_seed(px, 2, 2, 5, CLPRIM_RGB8, 2, 1, a), CLPRIM_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strcasestr(clprim_last_error(NULL), "row_pitch"));
    ck_assert_int_eq(clprim_kmeans_seed(px, 2, 2, 0, (clprim_pixel_format)9, 2, 1, a), CLPRIM_INVALID_ARGUMENT);
    ck_assert_int_eq(clprim_kmeans_seed(px, 2, 2, 0, CLPRIM_RGB8, 2, 1, a), CLPRIM_SUCCESS);
    ck_assert_str_eq(clprim_last_error(NULL), "");
    ck_assert_uint_eq(clprim_kmeans_dims(CLPRIM_RGBA8), 3);
    ck_assert_uint_eq(clprim_kmeans_dims(CLPRIM_GREY8), 1);
    ck_assert_uint_eq(clprim_kmeans_dims((clprim_pixel_format)9), 0);
}
END_TEST

/* ---- Quality on photographs, against the simpler rules ---- */

/* A photograph of examples/data, RGB8, or GREY8 as the library's grey level
 * floor((r + g + b) / 3); data NULL without image support. */
static host_image load_photo(const char *name, clprim_pixel_format f)
{
    size_t w = 0, h = 0;
    unsigned char *p = reference_load_photo(name, 3, &w, &h);
    host_image im = {p, w * h * 3, 0, w, h, w * 3, CLPRIM_RGB8};
    if (p && f == CLPRIM_GREY8) {
        for (size_t i = 0; i < w * h; i++) /* in place: pixel i is read before it is written */
            p[i] = (unsigned char)((p[3 * i] + p[3 * i + 1] + p[3 * i + 2]) / 3);
        im = (host_image){p, w * h, 0, w, h, w, CLPRIM_GREY8};
    }
    return im;
}

static reference_image_view view_of(const host_image *im)
{
    return (reference_image_view){im->data, im->offset, im->width, im->height, im->pitch, im->format};
}

/* The k-means++ potential of centres over the whole image: the sum of each
 * pixel's squared distance to the nearest centre. */
static double potential(const host_image *im, unsigned k, const float *centres)
{
    const unsigned dims = clprim_kmeans_dims(im->format);
    double total = 0;
    for (size_t i = 0; i < im->width * im->height; i++) {
        const unsigned char *p = pixel(im, i);
        double nearest = INFINITY;
        for (unsigned j = 0; j < k; j++) {
            double d = 0;
            for (unsigned c = 0; c < dims; c++)
                d += ((double)p[c] - centres[j * dims + c]) * ((double)p[c] - centres[j * dims + c]);
            nearest = fmin(nearest, d);
        }
        total += nearest;
    }
    return total;
}

/* Grey seeding on tiny images (up to 6 levels, random counts, padded rows):
 * the centres' potential equals the least sum of squared deviations over every
 * assignment of the levels to k clusters (k^levels of them, contiguous or not),
 * and the centres ascend; with fewer levels than k, the levels present come
 * first, ascending, then the first centre again. */
START_TEST(kmeans_grey_seed_optimal)
{
    uint64_t rng = harness_rng(8);
    for (unsigned trial = 0; trial < 60; trial++) {
        const unsigned levels = 1 + trial % 6, k = 1 + (trial / 6) % 7;
        unsigned char level[6];
        for (unsigned l = 0; l < levels; l++) /* ascending, distinct */
            level[l] = (unsigned char)((l ? level[l - 1] + 1 : 0) + harness_rand(&rng) % 40);
        host_image im = make_image(CLPRIM_GREY8, 7 + trial % 5, 3 + trial % 4, 0, 3, CONSTANT, &rng);
        const size_t n = im.width * im.height;
        for (size_t i = 0; i < n; i++) { /* every level at least once, then skewed counts: low levels more often */
            const uint64_t below = 1 + harness_rand(&rng) % levels;
            *(unsigned char *)pixel(&im, i) = level[i < levels ? i : harness_rand(&rng) % below];
        }
        float centres[8];
        ck_assert_int_eq(clprim_kmeans_seed(im.data, im.width, im.height, im.pitch, im.format, k, trial, centres),
                         CLPRIM_SUCCESS);
        if (levels <= k) {
            for (unsigned j = 0; j < k; j++)
                ck_assert_msg(centres[j] == level[j < levels ? j : 0], "%u levels, k = %u: centre %u is %g", levels,
                              k, j, (double)centres[j]);
            free(im.data);
            continue;
        }
        for (unsigned j = 1; j < k; j++)
            ck_assert_msg(centres[j - 1] < centres[j], "%u levels, k = %u: centres %u and %u do not ascend", levels,
                          k, j - 1, j);
        double optimum = INFINITY;
        unsigned assignment[6] = {0};
        for (;;) {
            double sum[6] = {0}, squares[6] = {0}, count[6] = {0}, cost = 0;
            for (size_t i = 0; i < n; i++) {
                const unsigned char v = *pixel(&im, i);
                unsigned l = 0;
                while (level[l] != v)
                    l++;
                sum[assignment[l]] += v;
                squares[assignment[l]] += (double)v * v;
                count[assignment[l]]++;
            }
            for (unsigned j = 0; j < k; j++)
                cost += count[j] ? squares[j] - sum[j] * sum[j] / count[j] : 0;
            optimum = fmin(optimum, cost);
            unsigned l = 0; /* the next assignment, counting in base k */
            while (l < levels && ++assignment[l] == k)
                assignment[l++] = 0;
            if (l == levels)
                break;
        }
        const double got = potential(&im, k, centres);
        ck_assert_msg(fabs(got - optimum) <= 1e-6 * (1 + optimum), "%u levels, k = %u: potential %.9g, optimum %.9g",
                      levels, k, got, optimum);
        free(im.data);
    }
}
END_TEST

/* Plain k-means++ on the whole image: one draw per centre, proportional to the
 * squared distance to the nearest centre so far. */
static void plain_seed(const host_image *im, unsigned k, uint64_t *rng, float *centres)
{
    const unsigned dims = clprim_kmeans_dims(im->format);
    const size_t n = im->width * im->height;
    double *d2 = harness_malloc(n * sizeof *d2);
    const unsigned char *first = pixel(im, harness_rand(rng) % n);
    for (size_t i = 0; i < n; i++)
        d2[i] = INFINITY;
    for (unsigned j = 0; j < k; j++) {
        const unsigned char *chosen = first;
        if (j > 0) {
            double total = 0;
            for (size_t i = 0; i < n; i++)
                total += d2[i];
            double r = (double)(harness_rand(rng) >> 11) / 9007199254740992.0 * total;
            size_t i = 0;
            while (i + 1 < n && (r -= d2[i]) >= 0)
                i++;
            chosen = pixel(im, i);
        }
        for (unsigned c = 0; c < dims; c++)
            centres[j * dims + c] = chosen[c];
        for (size_t i = 0; i < n; i++) {
            const unsigned char *p = pixel(im, i);
            double d = 0;
            for (unsigned c = 0; c < dims; c++)
                d += ((double)p[c] - chosen[c]) * ((double)p[c] - chosen[c]);
            d2[i] = fmin(d2[i], d);
        }
    }
    free(d2);
}

/* A greedy k-means++ start for a grey image: the colour path's seeding of the
 * image as RGB with three equal channels, one value a centre kept. */
static void greedy_grey_start(const host_image *im, unsigned k, unsigned long long seed, float *start)
{
    const size_t n = im->width * im->height;
    unsigned char *rgb = harness_malloc(3 * n);
    for (size_t i = 0; i < 3 * n; i++)
        rgb[i] = *pixel(im, i / 3);
    float centres[256 * 3];
    ck_assert_int_eq(clprim_kmeans_seed(rgb, im->width, im->height, 0, CLPRIM_RGB8, k, seed, centres),
                     CLPRIM_SUCCESS);
    for (unsigned j = 0; j < k; j++)
        start[j] = centres[3 * j];
    free(rgb);
}

/* A photograph of examples/data, read as `format`, clustered into k. */
typedef struct {
    const char *name;
    clprim_pixel_format format;
    unsigned k;
} photo_case;

/* Greedy k-means++ (several candidates a centre) against plain k-means++: a
 * potential no higher on average over eight seeds, on colour photographs (grey
 * ones are seeded at their optimum, kmeans_grey_seed_photos). */
START_TEST(kmeans_greedy_seeding)
{
    if (!reference_have_photos())
        return;
    const photo_case cases[] = {{"coffee.png", CLPRIM_RGB8, 16}, {"chelsea.png", CLPRIM_RGB8, 4}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        host_image im = load_photo(cases[c].name, cases[c].format);
        uint64_t rng = harness_rng(7);
        float centres[256 * 3];
        double greedy = 0, plain = 0;
        for (unsigned seed = 1; seed <= 8; seed++) {
            ck_assert_int_eq(clprim_kmeans_seed(im.data, im.width, im.height, im.pitch, im.format, cases[c].k, seed,
                                                centres),
                             CLPRIM_SUCCESS);
            greedy += potential(&im, cases[c].k, centres);
            plain_seed(&im, cases[c].k, &rng, centres);
            plain += potential(&im, cases[c].k, centres);
        }
        ck_assert_msg(greedy <= plain, "%s, k = %u: greedy seeding's potential %.6e, plain k-means++'s %.6e",
                      cases[c].name, cases[c].k, greedy, plain);
        free(im.data);
    }
}
END_TEST

/* Lloyd's iterations with assignment to the centres rounded to 8 bits, stopping
 * when no rounded centre moves: the rule float iteration replaced. */
static void rounded_lloyd(const host_image *im, unsigned k, unsigned max_iterations, float *centres,
                          unsigned char *labels)
{
    const unsigned dims = clprim_kmeans_dims(im->format);
    int moved = 1;
    for (unsigned it = 0; it < max_iterations && moved; it++) {
        unsigned char q[256][3];
        double sums[256][4] = {{0}};
        for (unsigned j = 0; j < k; j++)
            for (unsigned c = 0; c < dims; c++)
                q[j][c] = cli_kmeans_round(centres[j * dims + c]);
        for (size_t i = 0; i < im->width * im->height; i++) {
            const unsigned char *p = pixel(im, i);
            unsigned best = 0;
            int best_d = INT32_MAX;
            for (unsigned j = 0; j < k; j++) {
                int d = 0;
                for (unsigned c = 0; c < dims; c++)
                    d += (p[c] - q[j][c]) * (p[c] - q[j][c]);
                if (d < best_d) {
                    best_d = d;
                    best = j;
                }
            }
            labels[i] = (unsigned char)best;
            for (unsigned c = 0; c < dims; c++)
                sums[best][c] += p[c];
            sums[best][3]++;
        }
        moved = 0;
        for (unsigned j = 0; j < k; j++)
            for (unsigned c = 0; c < dims && sums[j][3]; c++) {
                centres[j * dims + c] = (float)(sums[j][c] / sums[j][3]);
                moved |= cli_kmeans_round(centres[j * dims + c]) != q[j][c];
            }
    }
}

/* From the same greedy k-means++ starts (grey seeding itself is already
 * optimal), clprim_kmeans (float iteration) reaches a lower inertia than the
 * rounded rule does, summed over four seeds, on grey photographs where the
 * rounded rule stops early (1 to 4% higher). */
START_TEST(kmeans_float_iteration)
{
    if (!reference_have_photos())
        return;
    const photo_case cases[] = {{"astronaut.png", CLPRIM_GREY8, 8}, {"coffee.png", CLPRIM_GREY8, 8}, {"chelsea.png", CLPRIM_GREY8, 16}};
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            host_image im = load_photo(cases[c].name, cases[c].format);
            const size_t n = im.width * im.height;
            const reference_image_view view = view_of(&im);
            unsigned char *labels = harness_malloc(n);
            cl_mem src = harness_buffer(ctx, im.bytes, im.data), lab = harness_buffer(ctx, n, NULL);
            const clprim_image s_img = {src, 0, im.width, im.height, im.pitch, im.format};
            double by_float = 0, by_rounded = 0;
            for (unsigned seed = 1; seed <= 4; seed++) {
                float start[256 * 3], centres[256 * 3];
                greedy_grey_start(&im, cases[c].k, seed, start);
                memcpy(centres, start, sizeof start);
                ck_assert_int_eq(clprim_kmeans(ctx, &s_img, cases[c].k, 100, centres, lab, 0, NULL, NULL, 0, NULL),
                                 CLPRIM_SUCCESS);
                harness_read(ctx, lab, 0, n, labels);
                by_float += cli_kmeans_inertia(&view, centres, labels);
                rounded_lloyd(&im, cases[c].k, 100, start, labels);
                by_rounded += cli_kmeans_inertia(&view, start, labels);
            }
            ck_assert_msg(by_float < by_rounded, "%s, k = %u: inertia %.6e iterating in float, %.6e rounded",
                          cases[c].name, cases[c].k, by_float, by_rounded);
            clReleaseMemObject(src);
            clReleaseMemObject(lab);
            free(labels);
            free(im.data);
        }
    }
}
END_TEST

/* Grey photographs: the seeded centres' inertia is no higher than that of
 * Lloyd's iterations from any of four greedy k-means++ starts (the colour path
 * on the grey image as RGB), and clprim_kmeans keeps them: one update, no
 * centre moved, bit for bit. */
START_TEST(kmeans_grey_seed_photos)
{
    if (!reference_have_photos())
        return;
    const struct {
        const char *name;
        unsigned k;
    } cases[] = {{"chelsea.png", 16}, {"coffee.png", 4}, {"astronaut.png", 32}};
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            const unsigned k = cases[c].k;
            host_image im = load_photo(cases[c].name, CLPRIM_GREY8);
            const size_t n = im.width * im.height;
            const reference_image_view view = view_of(&im);
            unsigned char *labels = harness_malloc(n);
            cl_mem src = harness_buffer(ctx, im.bytes, im.data), lab = harness_buffer(ctx, n, NULL);
            const clprim_image s_img = {src, 0, im.width, im.height, im.pitch, im.format};
            float optimal[256], centres[256];
            ck_assert_int_eq(clprim_kmeans_seed(im.data, im.width, im.height, im.pitch, im.format, k, 1, optimal),
                             CLPRIM_SUCCESS);
            const double seeded = potential(&im, k, optimal);
            for (unsigned seed = 1; seed <= 4; seed++) {
                greedy_grey_start(&im, k, seed, centres);
                ck_assert_int_eq(clprim_kmeans(ctx, &s_img, k, 100, centres, lab, 0, NULL, NULL, 0, NULL),
                                 CLPRIM_SUCCESS);
                harness_read(ctx, lab, 0, n, labels);
                const double greedy = cli_kmeans_inertia(&view, centres, labels);
                ck_assert_msg(seeded <= greedy, "%s, k = %u: seeded inertia %.9e, from greedy seed %u %.9e",
                              cases[c].name, k, seeded, seed, greedy);
            }
            memcpy(centres, optimal, k * sizeof *optimal);
            clprim_kmeans_info info = {0, 0};
            ck_assert_int_eq(clprim_kmeans(ctx, &s_img, k, 100, centres, lab, 0, NULL, &info, 0, NULL),
                             CLPRIM_SUCCESS);
            ck_assert_msg(info.iterations == 1 && info.converged, "%s, k = %u: %u iterations from the optimum",
                          cases[c].name, k, info.iterations);
            ck_assert_msg(memcmp(centres, optimal, k * sizeof *optimal) == 0, "%s, k = %u: Lloyd moved a centre",
                          cases[c].name, k);
            clReleaseMemObject(src);
            clReleaseMemObject(lab);
            free(labels);
            free(im.data);
        }
    }
}
END_TEST

/* ---- Bad arguments: status, message, nothing written (centres and info included) ---- */

/* What a row changes in the usual call (32 x 32 RGBA8 images, k = 4, 10 iterations). */
enum {
    KM_USUAL,
    KM_SRC_NULL,
    KM_K_0,
    KM_K_257,
    KM_NO_ITERATIONS,
    KM_CENTRES_NULL,
    KM_CENTRE_7_NAN,
    KM_SRC_PITCH_BELOW_A_ROW,
    KM_SRC_FORMAT_9,
    KM_DST_NARROWER,
    KM_DST_GREY,
};

#define KM_SIDE 32

/* buf: src, labels, dst (a NULL dst buffer passes no dst); offsets alike. A
 * refusal leaves centres and info as they were; a success runs at least once. */
static clprim_status kmeans_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    clprim_image src = {buf[0], row->offset[0], KM_SIDE, KM_SIDE, 0, CLPRIM_RGBA8};
    clprim_image dst = {buf[2], row->offset[2], KM_SIDE, KM_SIDE, 0, CLPRIM_RGBA8};
    float centres[4 * 3] = {0, 0, 0, 50, 50, 50, 100, 100, 100, 200, 200, 200}, keep[4 * 3];
    unsigned k = 4, iterations = 10;
    switch (row->variant) {
    case KM_K_0: k = 0; break;
    case KM_K_257: k = 257; break;
    case KM_NO_ITERATIONS: iterations = 0; break;
    case KM_CENTRE_7_NAN: centres[7] = NAN; break;
    case KM_SRC_PITCH_BELOW_A_ROW: src.row_pitch = KM_SIDE * 4 - 1; break;
    case KM_SRC_FORMAT_9: src.format = (clprim_pixel_format)9; break;
    case KM_DST_NARROWER: dst.width = KM_SIDE / 2; break;
    case KM_DST_GREY: dst.format = CLPRIM_GREY8; break;
    }
    memcpy(keep, centres, sizeof keep);
    clprim_kmeans_info info = {77, 77};
    clprim_status s = clprim_kmeans(ctx, row->variant == KM_SRC_NULL ? NULL : &src, k, iterations,
                                    row->variant == KM_CENTRES_NULL ? NULL : centres, buf[1], row->offset[1],
                                    buf[2] ? &dst : NULL, &info, 0, NULL);
    if (s == CLPRIM_SUCCESS) {
        ck_assert_msg(info.iterations >= 1, "%s: ran %u iterations", row->what, info.iterations);
        return s;
    }
    ck_assert_msg(memcmp(centres, keep, sizeof keep) == 0, "%s: a refused k-means changed its centres", row->what);
    ck_assert_msg(info.iterations == 77 && info.converged == 77, "%s: a refused k-means wrote its info", row->what);
    return s;
}

/* An image is 4 KiB of a 64 KiB buffer: an offset of 61441 leaves it a byte short,
 * as 64513 does the 1 KiB of labels. */
static const harness_bad_call kmeans_bad_calls[] = {
    {"ctx NULL", 0, 1, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"src NULL", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "src",
     .variant = KM_SRC_NULL},
    {"k 0", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "k = 0", .variant = KM_K_0},
    {"k 257", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "k = 257", .variant = KM_K_257},
    {"max_iterations 0", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "max_iterations",
     .variant = KM_NO_ITERATIONS},
    {"centres NULL", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "centres",
     .variant = KM_CENTRES_NULL},
    {"a centre NaN", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "centres[7]",
     .variant = KM_CENTRE_7_NAN},
    {"src a byte short", 0, 0, {HB_A, HB_NULL, HB_NULL}, {61441}, 0, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"src row_pitch below a row", 0, 0, {HB_A, HB_NULL, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "row_pitch",
     .variant = KM_SRC_PITCH_BELOW_A_ROW},
    {"src format 9", 0, 0, {HB_A, HB_NULL, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "format",
     .variant = KM_SRC_FORMAT_9},
    {"dst narrower than src", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "size",
     .variant = KM_DST_NARROWER},
    {"dst of another format", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "format",
     .variant = KM_DST_GREY},
    {"dst in src's buffer, shifted by 3 bytes", 0, 0, {HB_A, HB_NULL, HB_A}, {0, 0, 3}, 0, CLPRIM_INVALID_ARGUMENT,
     "in place"},
    {"labels a byte short", 0, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0, 64513}, 0, CLPRIM_BUFFER_TOO_SMALL, "labels"},
    {"labels in dst's buffer", 0, 0, {HB_A, HB_B, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "labels"},
    {"labels in src's buffer", 0, 0, {HB_A, HB_A, HB_NULL}, {0, 10}, 0, CLPRIM_INVALID_ARGUMENT, "labels"},
    {"dst a sub-buffer inside src", 0, 0, {HB_A, HB_NULL, HB_A_AT_ALIGN}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"dst a sub-buffer at 0, shifted by a pixel", 0, 0, {HB_A, HB_NULL, HB_A_AT_0}, {0, 0, 4}, 0,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"labels a sub-buffer inside src", 0, 0, {HB_A, HB_A_AT_ALIGN, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "labels"},
    {"labels a sub-buffer inside dst", 0, 0, {HB_B, HB_A_AT_0, HB_A}, {0, 8, 0}, 0, CLPRIM_INVALID_ARGUMENT,
     "labels"},
    {"src an image object", 0, 0, {HB_IMAGE, HB_NULL, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"dst an image object", 0, 0, {HB_A, HB_NULL, HB_IMAGE}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"src CL_MEM_WRITE_ONLY", 0, 0, {HB_WRITE_ONLY, HB_NULL, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"labels CL_MEM_WRITE_ONLY, read for dst", 0, 0, {HB_A, HB_WRITE_ONLY, HB_B}, {0}, 0, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    /* Without outputs it still runs: centres and info only. */
    {"no labels, no dst", 0, 0, {HB_A, HB_NULL, HB_NULL}, {0}, 0, CLPRIM_SUCCESS, NULL},
};

START_TEST(kmeans_bad_table)
{
    harness_run_bad_calls(kmeans_bad_calls, sizeof kmeans_bad_calls / sizeof *kmeans_bad_calls, kmeans_bad_call);
}
END_TEST

static Suite *kmeans_suite(void)
{
    Suite *s = suite_create("kmeans");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, kmeans_rgb);
    tcase_add_test(tc, kmeans_rgba_and_grey);
    tcase_add_test(tc, kmeans_few_colours);
    tcase_add_test(tc, kmeans_small_tiles);
    tcase_add_test(tc, kmeans_chunk_limit);
    tcase_add_test(tc, kmeans_seed);
    tcase_add_test(tc, kmeans_progress);
    suite_add_tcase(s, tc);
    TCase *quality = tcase_create("quality");
    tcase_set_timeout(quality, 600);
    tcase_add_test(quality, kmeans_greedy_seeding);
    tcase_add_test(quality, kmeans_grey_seed_optimal);
    tcase_add_test(quality, kmeans_grey_seed_photos);
    tcase_add_test(quality, kmeans_float_iteration);
    suite_add_tcase(s, quality);
    TCase *bad = tcase_create("bad_arguments");
    tcase_add_test(bad, kmeans_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(kmeans_suite());
}
