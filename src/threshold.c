/* Images: the red-ratio colour threshold, grey-level and Otsu
 * thresholds, per-channel and grey histograms. Kernels in cl/threshold.cl, all
 * in one program (formats and modes are arguments, not -D options), so a
 * context builds it once. The pixels are split across work-groups as the scan
 * splits its input (clprim_split_range). */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_FILE "threshold.cl"
#define MAX_BINS 256
#define SCRATCH_ALIGN 256

/* Mirrors of the CHANNEL_* and MODE_* numbers in cl/threshold.cl. */
enum { K_CHANNEL_R, K_CHANNEL_G, K_CHANNEL_B, K_CHANNEL_A, K_CHANNEL_GREY, K_CHANNEL_ALL };

static size_t align_up(size_t x)
{
    return (x + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

/* ---- Checks ---- */

static clprim_status check_planar(clprim_context *ctx, const char *name, const clprim_planar_image *img,
                                  clprim_access access, clprim_image_layout *out)
{
    if (!img)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is NULL", name);
    if (!img->data)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: data is NULL", name);
    if (img->width == 0 || img->height == 0)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: width %zu x height %zu: both must be positive", name,
                           img->width, img->height);
    if (img->width > SIZE_MAX / img->height || img->width * img->height > SIZE_MAX / 3 / sizeof(cl_float))
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: 3 planes of %zu x %zu floats overflow size_t", name,
                           img->width, img->height);
    size_t n = img->width * img->height;
    /* Three planes: offset + 3n floats, with the shared check's message. */
    clprim_region region;
    clprim_status s =
        clprim_check_buffer(ctx, name, img->data, img->offset, 3 * n, sizeof(cl_float), access, &region);
    if (s != CLPRIM_SUCCESS)
        return s;
    *out = (clprim_image_layout){img->data,    img->offset, 0, img->width, n, 0, img->height,
                                 img->offset * sizeof(cl_float), (img->offset + 3 * n) * sizeof(cl_float), region};
    return CLPRIM_SUCCESS;
}

static clprim_status check_same_size(clprim_context *ctx, const clprim_image_layout *src,
                                     const clprim_image_layout *dst, size_t src_h, size_t dst_h)
{
    if (src->width == dst->width && src_h == dst_h)
        return CLPRIM_SUCCESS;
    return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "src is %llu x %zu but dst is %llu x %zu",
                       (unsigned long long)src->width, src_h, (unsigned long long)dst->width, dst_h);
}

static clprim_status check_ratio(clprim_context *ctx, float ratio, clprim_threshold_mode mode)
{
    if (!(ratio > 0.0f && ratio <= 1.0f)) /* NaN fails too */
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "ratio %g is outside (0, 1]: r / sqrt(r^2 + g^2 + b^2) lies in [0, 1]", (double)ratio);
    if (mode != CLPRIM_THRESHOLD_KEEP && mode != CLPRIM_THRESHOLD_YELLOW && mode != CLPRIM_THRESHOLD_REINSERT)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "unknown clprim_threshold_mode %d", (int)mode);
    return CLPRIM_SUCCESS;
}

static clprim_status check_bins(clprim_context *ctx, size_t bins)
{
    if (bins < 1 || bins > MAX_BINS)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "bins %zu is outside [1, %d]", bins, MAX_BINS);
    return CLPRIM_SUCCESS;
}

/* Whether the kernels may index in 32 bits (-DINDEX32, see cl/threshold.cl):
 * every pixel index and every byte the images reach below 2^31, so that no
 * index or step can wrap. $CLPRIM_THRESHOLD_INDEX64 (any value) forces 64-bit
 * indexing, for the tests of that path. */
#define INDEX32_LIMIT ((size_t)1 << 31)
static int fits_index32(const clprim_image_layout *a, const clprim_image_layout *b)
{
    if (getenv("CLPRIM_THRESHOLD_INDEX64"))
        return 0;
    return a->n <= INDEX32_LIMIT && a->end <= INDEX32_LIMIT && (!b || b->end <= INDEX32_LIMIT);
}

void clprim_threshold_options(const clprim_context *ctx, int index32, char *options, size_t size)
{
    options[0] = '\0';
    clprim_kernel_options(ctx, NULL, -1, options, size);
    if (index32) {
        size_t used = strlen(options);
        snprintf(options + used, size - used, " -DINDEX32");
    }
}

static clprim_status get_kernel(clprim_context *ctx, const char *name, int index32, cl_kernel *kernel)
{
    char options[256];
    clprim_threshold_options(ctx, index32, options, sizeof options);
    return clprim_get_kernel(ctx, KERNEL_FILE, options, name, kernel);
}

/* ---- The red ratio ---- */

clprim_status clprim_threshold_red(clprim_context *ctx, const clprim_image *src, const clprim_image *dst,
                                   float ratio, clprim_threshold_mode mode, cl_uint num_events_in_wait_list,
                                   const cl_event *event_wait_list, cl_event *event)
{
    clprim_image_layout in, out;
    CLPRIM_ENTER(s, ctx, "clprim_threshold_red");
    if (s == CLPRIM_SUCCESS)
        s = check_ratio(ctx, ratio, mode);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_image(ctx, NULL, "src", src, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_image(ctx, NULL, "dst", dst, CLPRIM_WRITES, &out);
    if (s != CLPRIM_SUCCESS)
        return s;
    if (src->format == CLPRIM_GREY8)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "the red ratio needs RGB8 or RGBA8 pixels, not GREY8");
    if (dst->format != src->format)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "src is %s but dst is %s: they must match",
                           clprim_pixel_format_name(src->format), clprim_pixel_format_name(dst->format));
    s = check_same_size(ctx, &in, &out, src->height, dst->height);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, NULL, "src", &in.region, "dst", &out.region, 1);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_threshold_red", num_events_in_wait_list, event_wait_list);
    cl_kernel kernel;
    if (s == CLPRIM_SUCCESS)
        s = get_kernel(ctx, "threshold_red_interleaved", fits_index32(&in, &out), &kernel);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_split split = clprim_split_range(&ctx->tuning, in.n);
    cl_float ratio2 = ratio * ratio;
    cl_int kmode = (cl_int)mode;
    const clprim_arg args[] = {CLPRIM_ARG(in.data),  CLPRIM_ARG(in.offset),  CLPRIM_ARG(in.pitch),
                               CLPRIM_ARG(out.data), CLPRIM_ARG(out.offset), CLPRIM_ARG(out.pitch),
                               CLPRIM_ARG(in.width), CLPRIM_ARG(in.n),       CLPRIM_ARG(split.chunk),
                               CLPRIM_ARG(in.bpp),   CLPRIM_ARG(ratio2),     CLPRIM_ARG(kmode)};
    return clprim_launch(ctx, kernel, "threshold_red_interleaved", split.groups, args, 12, event);
}

clprim_status clprim_threshold_red_planar(clprim_context *ctx, const clprim_planar_image *src,
                                          const clprim_planar_image *dst, float ratio, clprim_threshold_mode mode,
                                          cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                          cl_event *event)
{
    clprim_image_layout in, out;
    CLPRIM_ENTER(s, ctx, "clprim_threshold_red_planar");
    if (s == CLPRIM_SUCCESS)
        s = check_ratio(ctx, ratio, mode);
    if (s == CLPRIM_SUCCESS)
        s = check_planar(ctx, "src", src, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS)
        s = check_planar(ctx, "dst", dst, CLPRIM_WRITES, &out);
    if (s == CLPRIM_SUCCESS)
        s = check_same_size(ctx, &in, &out, src->height, dst->height);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, NULL, "src", &in.region, "dst", &out.region, 1);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_threshold_red_planar", num_events_in_wait_list, event_wait_list);
    cl_kernel kernel;
    if (s == CLPRIM_SUCCESS)
        s = get_kernel(ctx, "threshold_red_planar", fits_index32(&in, &out), &kernel);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_split split = clprim_split_range(&ctx->tuning, in.n);
    cl_float ratio2 = ratio * ratio;
    cl_int kmode = (cl_int)mode;
    const clprim_arg args[] = {CLPRIM_ARG(in.data),  CLPRIM_ARG(in.offset), CLPRIM_ARG(out.data),
                               CLPRIM_ARG(out.offset), CLPRIM_ARG(in.n),    CLPRIM_ARG(split.chunk),
                               CLPRIM_ARG(ratio2),   CLPRIM_ARG(kmode)};
    return clprim_launch(ctx, kernel, "threshold_red_planar", split.groups, args, 8, event);
}

/* ---- Histograms ---- */

static clprim_status check_channel(clprim_context *ctx, clprim_channel channel, clprim_pixel_format format,
                                   cl_uint *nch)
{
    switch (channel) {
    case CLPRIM_CHANNEL_R:
    case CLPRIM_CHANNEL_G:
    case CLPRIM_CHANNEL_B:
        if (format == CLPRIM_GREY8)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "channel %c of a GREY8 image: it has only grey (CLPRIM_CHANNEL_GREY)",
                               "RGB"[channel]);
        *nch = 1;
        return CLPRIM_SUCCESS;
    case CLPRIM_CHANNEL_A:
        if (format != CLPRIM_RGBA8)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "channel A of a %s image: only RGBA8 has alpha",
                               clprim_pixel_format_name(format));
        *nch = 1;
        return CLPRIM_SUCCESS;
    case CLPRIM_CHANNEL_GREY:
        *nch = 1;
        return CLPRIM_SUCCESS;
    case CLPRIM_CHANNEL_ALL:
        *nch = (cl_uint)clprim_pixel_size(format);
        return CLPRIM_SUCCESS;
    }
    return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "unknown clprim_channel %d", (int)channel);
}

static clprim_status check_pixel_count(clprim_context *ctx, const clprim_image_layout *img)
{
    if (img->n > UINT32_MAX)
        return clprim_fail(ctx, CLPRIM_UNSUPPORTED, "%llu pixels: histogram counts are 32-bit (at most %u pixels)",
                           (unsigned long long)img->n, UINT32_MAX);
    return CLPRIM_SUCCESS;
}

/* Bytes of scratch the partials of a histogram need (slots counts per work-group). */
static size_t histogram_scratch_bytes(const clprim_context *ctx, const clprim_image_layout *img, cl_uint slots)
{
    return clprim_split_range(&ctx->tuning, img->n).groups * slots * sizeof(cl_uint);
}

/* The histogram without argument checks: the partials in scratch from byte 0
 * (the caller reserved histogram_scratch_bytes), the counts to hist from element
 * hist_offset (which may lie in scratch past the partials). */
static clprim_status histogram_device(clprim_context *ctx, const clprim_image_layout *img, int channel, cl_uint bins,
                                      cl_uint slots, cl_mem hist, cl_ulong hist_offset, cl_mem scratch,
                                      cl_event *event)
{
    cl_kernel count, merge;
    const int index32 = fits_index32(img, NULL);
    clprim_status s = get_kernel(ctx, "histogram_image", index32, &count);
    if (s == CLPRIM_SUCCESS)
        s = get_kernel(ctx, "histogram_merge", index32, &merge);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_split split = clprim_split_range(&ctx->tuning, img->n);
    cl_int kchannel = channel;
    cl_mem partials = scratch;
    const clprim_arg pass1[] = {CLPRIM_ARG(img->data),  CLPRIM_ARG(img->offset), CLPRIM_ARG(img->pitch),
                                CLPRIM_ARG(img->bpp),   CLPRIM_ARG(img->width),  CLPRIM_ARG(img->n),
                                CLPRIM_ARG(split.chunk), CLPRIM_ARG(kchannel),   CLPRIM_ARG(bins),
                                CLPRIM_ARG(partials)};
    s = clprim_launch(ctx, count, "histogram_image", split.groups, pass1, 10, NULL);
    if (s != CLPRIM_SUCCESS)
        return s;
    cl_uint groups = (cl_uint)split.groups;
    const clprim_arg pass2[] = {CLPRIM_ARG(partials), CLPRIM_ARG(groups), CLPRIM_ARG(slots), CLPRIM_ARG(hist),
                                CLPRIM_ARG(hist_offset)};
    size_t wg = ctx->tuning.work_group_size;
    return clprim_launch(ctx, merge, "histogram_merge", (slots + wg - 1) / wg, pass2, 5, event);
}

clprim_status clprim_image_histogram(clprim_context *ctx, const clprim_image *image, clprim_channel channel,
                                     size_t bins, cl_mem hist, size_t hist_offset, cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event)
{
    clprim_image_layout in;
    clprim_region counts;
    cl_uint nch = 0;
    CLPRIM_ENTER(s, ctx, "clprim_image_histogram");
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_image(ctx, NULL, "image", image, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS)
        s = check_channel(ctx, channel, image->format, &nch);
    if (s == CLPRIM_SUCCESS)
        s = check_bins(ctx, bins);
    if (s == CLPRIM_SUCCESS)
        s = check_pixel_count(ctx, &in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "hist", hist, hist_offset, nch * bins, sizeof(cl_uint), CLPRIM_WRITES, &counts);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, NULL, "image", &in.region, "hist", &counts, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_image_histogram", num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    cl_uint slots = nch * (cl_uint)bins;
    cl_mem scratch;
    s = clprim_scratch(ctx, histogram_scratch_bytes(ctx, &in, slots), &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    return histogram_device(ctx, &in, (int)channel, (cl_uint)bins, slots, hist, hist_offset, scratch, event);
}

/* ---- Otsu ---- */

static clprim_status otsu_device(clprim_context *ctx, cl_mem hist, cl_ulong hist_offset, cl_uint bins,
                                 cl_mem level, cl_ulong level_offset, cl_event *event)
{
    cl_kernel kernel;
    /* Any index width serves Otsu: take the program the image kernels use. */
    clprim_status s = get_kernel(ctx, "otsu_level", !getenv("CLPRIM_THRESHOLD_INDEX64"), &kernel);
    if (s != CLPRIM_SUCCESS)
        return s;
    const clprim_arg args[] = {CLPRIM_ARG(hist), CLPRIM_ARG(hist_offset), CLPRIM_ARG(bins), CLPRIM_ARG(level),
                               CLPRIM_ARG(level_offset)};
    return clprim_launch(ctx, kernel, "otsu_level", 1, args, 5, event);
}

static clprim_status read_level(clprim_context *ctx, cl_mem level, size_t level_offset, unsigned *result)
{
    cl_uint value;
    cl_int err = clEnqueueReadBuffer(ctx->queue, level, CL_TRUE, level_offset * sizeof(cl_uint), sizeof value,
                                     &value, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "reading the Otsu level back");
    *result = value;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_otsu(clprim_context *ctx, cl_mem hist, size_t hist_offset, size_t bins, cl_mem level,
                          size_t level_offset, unsigned *result, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event)
{
    clprim_region counts, out = {0};
    CLPRIM_ENTER(s, ctx, "clprim_otsu");
    if (s == CLPRIM_SUCCESS)
        s = check_bins(ctx, bins);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "hist", hist, hist_offset, bins, sizeof(cl_uint), CLPRIM_READS, &counts);
    if (s == CLPRIM_SUCCESS && level)
        s = clprim_check_buffer(ctx, "level", level, level_offset, 1, sizeof(cl_uint), CLPRIM_WRITES, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, NULL, "hist", &counts, "level", &out, 0);
    if (s == CLPRIM_SUCCESS && !level && !result)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "level and result are both NULL: nowhere to put the level");
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_otsu", num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    if (!level) {
        s = clprim_scratch(ctx, sizeof(cl_uint), &level);
        level_offset = 0;
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS)
        s = otsu_device(ctx, hist, hist_offset, (cl_uint)bins, level, level_offset, event);
    if (s == CLPRIM_SUCCESS && result)
        s = read_level(ctx, level, level_offset, result);
    return s;
}

/* ---- Grey thresholds ---- */

static clprim_status check_grey_images(clprim_context *ctx, const clprim_image *src, const clprim_image *dst,
                                       clprim_image_layout *in, clprim_image_layout *out)
{
    clprim_status s = clprim_check_image(ctx, NULL, "src", src, CLPRIM_READS, in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_image(ctx, NULL, "dst", dst, CLPRIM_WRITES, out);
    if (s == CLPRIM_SUCCESS)
        s = check_same_size(ctx, in, out, src->height, dst->height);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, NULL, "src", &in->region, "dst", &out->region, 1);
    return s;
}

static clprim_status grey_device(clprim_context *ctx, const clprim_image_layout *in, const clprim_image_layout *out,
                                 cl_mem levels, cl_ulong level_offset, cl_uint level, cl_event *event)
{
    cl_kernel kernel;
    clprim_status s = get_kernel(ctx, "threshold_grey", fits_index32(in, out), &kernel);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_split split = clprim_split_range(&ctx->tuning, in->n);
    cl_int use_buffer = levels != NULL;
    if (!levels)
        levels = in->data; /* never read, but must be a buffer */
    const clprim_arg args[] = {CLPRIM_ARG(in->data),   CLPRIM_ARG(in->offset),  CLPRIM_ARG(in->pitch),
                               CLPRIM_ARG(in->bpp),    CLPRIM_ARG(out->data),   CLPRIM_ARG(out->offset),
                               CLPRIM_ARG(out->pitch), CLPRIM_ARG(out->bpp),    CLPRIM_ARG(in->width),
                               CLPRIM_ARG(in->n),      CLPRIM_ARG(split.chunk), CLPRIM_ARG(levels),
                               CLPRIM_ARG(level_offset), CLPRIM_ARG(level),     CLPRIM_ARG(use_buffer)};
    return clprim_launch(ctx, kernel, "threshold_grey", split.groups, args, 15, event);
}

clprim_status clprim_threshold_grey(clprim_context *ctx, const clprim_image *src, const clprim_image *dst,
                                    unsigned level, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                    cl_event *event)
{
    clprim_image_layout in, out;
    CLPRIM_ENTER(s, ctx, "clprim_threshold_grey");
    if (s == CLPRIM_SUCCESS)
        s = check_grey_images(ctx, src, dst, &in, &out);
    if (s == CLPRIM_SUCCESS && level > 255)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "level %u is above 255", level);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_threshold_grey", num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    return grey_device(ctx, &in, &out, NULL, 0, level, event);
}

clprim_status clprim_threshold_grey_buffer(clprim_context *ctx, const clprim_image *src, const clprim_image *dst,
                                           cl_mem level, size_t level_offset, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event)
{
    clprim_image_layout in, out;
    clprim_region read;
    CLPRIM_ENTER(s, ctx, "clprim_threshold_grey_buffer");
    if (s == CLPRIM_SUCCESS)
        s = check_grey_images(ctx, src, dst, &in, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "level", level, level_offset, 1, sizeof(cl_uint), CLPRIM_READS, &read);
    /* Every work-item reads the level while others write dst: they must not share bytes. */
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, NULL, "level", &read, "dst", &out.region, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_threshold_grey_buffer", num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    return grey_device(ctx, &in, &out, level, level_offset, 0, event);
}

clprim_status clprim_threshold_otsu(clprim_context *ctx, const clprim_image *src, const clprim_image *dst,
                                    unsigned *level, cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    clprim_image_layout in, out;
    CLPRIM_ENTER(s, ctx, "clprim_threshold_otsu");
    if (s == CLPRIM_SUCCESS)
        s = check_grey_images(ctx, src, dst, &in, &out);
    if (s == CLPRIM_SUCCESS)
        s = check_pixel_count(ctx, &in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_threshold_otsu", num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    /* Scratch: the partials, then the histogram, then the level. */
    const cl_uint bins = MAX_BINS;
    size_t hist_at = align_up(histogram_scratch_bytes(ctx, &in, bins));
    size_t level_at = hist_at + align_up(bins * sizeof(cl_uint));
    cl_mem scratch;
    s = clprim_scratch(ctx, level_at + sizeof(cl_uint), &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    cl_ulong hist_offset = hist_at / sizeof(cl_uint), level_offset = level_at / sizeof(cl_uint);
    s = histogram_device(ctx, &in, K_CHANNEL_GREY, bins, bins, scratch, hist_offset, scratch, NULL);
    if (s == CLPRIM_SUCCESS)
        s = otsu_device(ctx, scratch, hist_offset, bins, scratch, level_offset, NULL);
    if (s == CLPRIM_SUCCESS)
        s = grey_device(ctx, &in, &out, scratch, level_offset, 0, event);
    if (s == CLPRIM_SUCCESS && level)
        s = read_level(ctx, scratch, level_offset, level);
    return s;
}
