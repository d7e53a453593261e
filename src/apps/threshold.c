/* Images: the red-ratio colour threshold, grey-level and Otsu
 * thresholds, per-channel and grey histograms. Kernels in cl/threshold.cl, all
 * in one program (formats and modes are arguments, not -D options), so a
 * context builds it once. The pixels are split across work-groups as the scan
 * splits its input (clprim_split_range). */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The kernels take clprim.h's modes and channels as they are. */
_Static_assert(CLPRIM_THRESHOLD_KEEP == MODE_KEEP && CLPRIM_THRESHOLD_YELLOW == MODE_YELLOW &&
                   CLPRIM_THRESHOLD_REINSERT == MODE_REINSERT,
               "clprim_threshold_mode must match cl/constants.h's MODE_*");
_Static_assert(CLPRIM_CHANNEL_R == CHANNEL_R && CLPRIM_CHANNEL_G == CHANNEL_G && CLPRIM_CHANNEL_B == CHANNEL_B &&
                   CLPRIM_CHANNEL_A == CHANNEL_A && CLPRIM_CHANNEL_GREY == CHANNEL_GREY &&
                   CLPRIM_CHANNEL_ALL == CHANNEL_ALL,
               "clprim_channel must match cl/constants.h's CHANNEL_*");

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
    if (bins < 1 || bins > CHANNEL_LEVELS)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "bins %zu is outside [1, %d]", bins, CHANNEL_LEVELS);
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

void clprim_threshold_program(const clprim_context *ctx, int index32, clprim_program *p)
{
    clprim_program_begin(ctx, p, "threshold", "threshold.cl", &ctx->tuning, NULL, -1);
    if (index32)
        clprim_options_add(&p->options, "-DINDEX32");
}

/* A kernel that walks n pixels: its pass, and the split of the pixels at its
 * program's shape. */
typedef struct {
    clprim_pass pass;
    clprim_split split;
} pixel_plan;

static clprim_status plan_pixels(clprim_context *ctx, int index32, const char *kernel, size_t n, pixel_plan *plan)
{
    clprim_program p;
    clprim_threshold_program(ctx, index32, &p);
    plan->split = clprim_split_range(&p.shape, n);
    clprim_status s = clprim_pass_of(ctx, &p, kernel, &plan->pass);
    clprim_program_end(&p);
    return s;
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
    pixel_plan red;
    if (s == CLPRIM_SUCCESS)
        s = plan_pixels(ctx, fits_index32(&in, &out), "threshold_red_interleaved", in.n, &red);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    const cl_float ratio2 = ratio * ratio;
    const cl_int kmode = (cl_int)mode;
    return CLPRIM_ENQUEUE(ctx, &red.pass, red.split.groups, event, CLPRIM_ARG(in.data), CLPRIM_ARG(in.offset),
                          CLPRIM_ARG(in.pitch), CLPRIM_ARG(out.data), CLPRIM_ARG(out.offset), CLPRIM_ARG(out.pitch),
                          CLPRIM_ARG(in.width), CLPRIM_ARG(in.n), CLPRIM_ARG(red.split.chunk), CLPRIM_ARG(in.bpp),
                          CLPRIM_ARG(ratio2), CLPRIM_ARG(kmode));
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
    pixel_plan red;
    if (s == CLPRIM_SUCCESS)
        s = plan_pixels(ctx, fits_index32(&in, &out), "threshold_red_planar", in.n, &red);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    const cl_float ratio2 = ratio * ratio;
    const cl_int kmode = (cl_int)mode;
    return CLPRIM_ENQUEUE(ctx, &red.pass, red.split.groups, event, CLPRIM_ARG(in.data), CLPRIM_ARG(in.offset),
                          CLPRIM_ARG(out.data), CLPRIM_ARG(out.offset), CLPRIM_ARG(in.n), CLPRIM_ARG(red.split.chunk),
                          CLPRIM_ARG(ratio2), CLPRIM_ARG(kmode));
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

/* A histogram of `slots` counts in two passes: each work-group counts its chunk
 * into its own partials (partials_bytes of scratch from byte 0), then one
 * work-item a slot sums the groups' partials. */
typedef struct {
    clprim_pass count, merge;
    clprim_split split;
    cl_uint slots;
    size_t merge_groups;
    size_t partials_bytes;
} histogram_plan;

static clprim_status plan_histogram(clprim_context *ctx, const clprim_image_layout *img, cl_uint slots,
                                    histogram_plan *plan)
{
    clprim_program p;
    clprim_threshold_program(ctx, fits_index32(img, NULL), &p);
    const size_t wg = p.shape.work_group_size;
    plan->split = clprim_split_range(&p.shape, img->n);
    plan->slots = slots;
    plan->merge_groups = (slots + wg - 1) / wg;
    plan->partials_bytes = plan->split.groups * slots * sizeof(cl_uint);
    clprim_status s = clprim_pass_of(ctx, &p, "histogram_image", &plan->count);
    if (s == CLPRIM_SUCCESS)
        s = clprim_pass_of(ctx, &p, "histogram_merge", &plan->merge);
    clprim_program_end(&p);
    return s;
}

/* The counts go to hist from element hist_offset (which may lie in scratch
 * past the partials). */
static clprim_status enqueue_histogram(clprim_context *ctx, const histogram_plan *plan,
                                       const clprim_image_layout *img, cl_int channel, cl_uint bins, cl_mem scratch,
                                       cl_mem hist, cl_ulong hist_offset, cl_event *event)
{
    clprim_status s = CLPRIM_ENQUEUE(ctx, &plan->count, plan->split.groups, NULL, CLPRIM_ARG(img->data),
                                     CLPRIM_ARG(img->offset), CLPRIM_ARG(img->pitch), CLPRIM_ARG(img->bpp),
                                     CLPRIM_ARG(img->width), CLPRIM_ARG(img->n), CLPRIM_ARG(plan->split.chunk),
                                     CLPRIM_ARG(channel), CLPRIM_ARG(bins), CLPRIM_ARG(scratch));
    if (s != CLPRIM_SUCCESS)
        return s;
    const cl_uint groups = (cl_uint)plan->split.groups;
    return CLPRIM_ENQUEUE(ctx, &plan->merge, plan->merge_groups, event, CLPRIM_ARG(scratch), CLPRIM_ARG(groups),
                          CLPRIM_ARG(plan->slots), CLPRIM_ARG(hist), CLPRIM_ARG(hist_offset));
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
    histogram_plan plan;
    if (s == CLPRIM_SUCCESS)
        s = plan_histogram(ctx, &in, nch * (cl_uint)bins, &plan);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_layout layout = {0, 0};
    clprim_layout_part(&layout, plan.partials_bytes);
    cl_mem scratch;
    s = clprim_layout_scratch(ctx, "image histogram", &layout, &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    return enqueue_histogram(ctx, &plan, &in, (cl_int)channel, (cl_uint)bins, scratch, hist, hist_offset, event);
}

/* ---- Otsu ---- */

static clprim_status plan_otsu(clprim_context *ctx, clprim_pass *pass)
{
    clprim_program p;
    /* Any index width serves Otsu: take the program the image kernels use. */
    clprim_threshold_program(ctx, !getenv("CLPRIM_THRESHOLD_INDEX64"), &p);
    clprim_status s = clprim_pass_of(ctx, &p, "otsu_level", pass);
    clprim_program_end(&p);
    return s;
}

/* One work-group. */
static clprim_status enqueue_otsu(clprim_context *ctx, const clprim_pass *otsu, cl_mem hist, cl_ulong hist_offset,
                                  cl_uint bins, cl_mem level, cl_ulong level_offset, cl_event *event)
{
    return CLPRIM_ENQUEUE(ctx, otsu, 1, event, CLPRIM_ARG(hist), CLPRIM_ARG(hist_offset), CLPRIM_ARG(bins),
                          CLPRIM_ARG(level), CLPRIM_ARG(level_offset));
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
    clprim_pass otsu;
    if (s == CLPRIM_SUCCESS)
        s = plan_otsu(ctx, &otsu);
    if (s != CLPRIM_SUCCESS)
        return s;
    if (!level) { /* the level only goes to *result: a cl_uint of scratch holds it */
        clprim_layout layout = {0, 0};
        level_offset = clprim_layout_part(&layout, sizeof(cl_uint));
        s = clprim_layout_scratch(ctx, "Otsu level", &layout, &level);
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS)
        s = enqueue_otsu(ctx, &otsu, hist, hist_offset, (cl_uint)bins, level, level_offset, event);
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

static clprim_status plan_grey(clprim_context *ctx, const clprim_image_layout *in, const clprim_image_layout *out,
                               pixel_plan *plan)
{
    return plan_pixels(ctx, fits_index32(in, out), "threshold_grey", in->n, plan);
}

/* The level is levels[level_offset] when levels is not NULL, else `level`. */
static clprim_status enqueue_grey(clprim_context *ctx, const pixel_plan *grey, const clprim_image_layout *in,
                                  const clprim_image_layout *out, cl_mem levels, cl_ulong level_offset, cl_uint level,
                                  cl_event *event)
{
    const cl_int use_buffer = levels != NULL;
    if (!levels)
        levels = in->data; /* never read, but must be a buffer */
    return CLPRIM_ENQUEUE(ctx, &grey->pass, grey->split.groups, event, CLPRIM_ARG(in->data), CLPRIM_ARG(in->offset),
                          CLPRIM_ARG(in->pitch), CLPRIM_ARG(in->bpp), CLPRIM_ARG(out->data), CLPRIM_ARG(out->offset),
                          CLPRIM_ARG(out->pitch), CLPRIM_ARG(out->bpp), CLPRIM_ARG(in->width), CLPRIM_ARG(in->n),
                          CLPRIM_ARG(grey->split.chunk), CLPRIM_ARG(levels), CLPRIM_ARG(level_offset),
                          CLPRIM_ARG(level), CLPRIM_ARG(use_buffer));
}

clprim_status clprim_threshold_grey(clprim_context *ctx, const clprim_image *src, const clprim_image *dst,
                                    unsigned level, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                    cl_event *event)
{
    clprim_image_layout in, out;
    CLPRIM_ENTER(s, ctx, "clprim_threshold_grey");
    if (s == CLPRIM_SUCCESS)
        s = check_grey_images(ctx, src, dst, &in, &out);
    if (s == CLPRIM_SUCCESS && level > CHANNEL_LEVELS - 1)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "level %u is above %d", level, CHANNEL_LEVELS - 1);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, "clprim_threshold_grey", num_events_in_wait_list, event_wait_list);
    pixel_plan grey;
    if (s == CLPRIM_SUCCESS)
        s = plan_grey(ctx, &in, &out, &grey);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    return enqueue_grey(ctx, &grey, &in, &out, NULL, 0, level, event);
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
    pixel_plan grey;
    if (s == CLPRIM_SUCCESS)
        s = plan_grey(ctx, &in, &out, &grey);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    return enqueue_grey(ctx, &grey, &in, &out, level, level_offset, 0, event);
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

    /* Plan: the grey histogram of every level, its Otsu level, the threshold at
     * it; scratch holds the partials, then the histogram, then the level. */
    const cl_uint bins = CHANNEL_LEVELS;
    histogram_plan hist;
    clprim_pass otsu;
    pixel_plan grey;
    if (s == CLPRIM_SUCCESS)
        s = plan_histogram(ctx, &in, bins, &hist);
    if (s == CLPRIM_SUCCESS)
        s = plan_otsu(ctx, &otsu);
    if (s == CLPRIM_SUCCESS)
        s = plan_grey(ctx, &in, &out, &grey);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_layout layout = {0, 0};
    clprim_layout_part(&layout, hist.partials_bytes);
    const size_t hist_at = clprim_layout_part(&layout, bins * sizeof(cl_uint));
    const size_t level_at = clprim_layout_part(&layout, sizeof(cl_uint));
    const cl_ulong hist_offset = hist_at / sizeof(cl_uint), level_offset = level_at / sizeof(cl_uint);
    cl_mem scratch;
    s = clprim_layout_scratch(ctx, "Otsu threshold", &layout, &scratch);
    if (s == CLPRIM_SUCCESS)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);

    if (s == CLPRIM_SUCCESS)
        s = enqueue_histogram(ctx, &hist, &in, CHANNEL_GREY, bins, scratch, scratch, hist_offset, NULL);
    if (s == CLPRIM_SUCCESS)
        s = enqueue_otsu(ctx, &otsu, scratch, hist_offset, bins, scratch, level_offset, NULL);
    if (s == CLPRIM_SUCCESS)
        s = enqueue_grey(ctx, &grey, &in, &out, scratch, level_offset, 0, event);
    if (s == CLPRIM_SUCCESS && level)
        s = read_level(ctx, scratch, level_offset, level);
    return s;
}

/* ---- Descriptor ---- */

/* threshold.cl with 32-bit indexing and without: the thresholds, Otsu's level
 * and the image histograms. */
static void threshold_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    for (int index32 = 0; index32 < 2; index32++) {
        clprim_program p;
        clprim_threshold_program(ctx, index32, &p);
        clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
    }
}

const clprim_primitive clprim_threshold_primitive = {"threshold", threshold_variants};
