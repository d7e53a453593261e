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

/* threshold.cl with 32-bit indexing or not, in the plan. */
static unsigned threshold_program(const clprim_context *ctx, clprim_plan *plan, int index32)
{
    clprim_program p;
    clprim_threshold_program(ctx, index32, &p);
    return clprim_plan_program(plan, &p);
}

/* The split of n pixels at the shape of the plan's program. */
static clprim_split pixel_split(const clprim_plan *plan, unsigned program, cl_ulong n)
{
    return clprim_split_range(&plan->programs[program].shape, (size_t)n);
}

/* ---- The red ratio ---- */

/* One launch over the pixels: interleaved or planar (offsets in floats). */
static void plan_red(const clprim_context *ctx, int planar, const clprim_image_layout *in,
                     const clprim_image_layout *out, float ratio, clprim_threshold_mode mode, clprim_plan *plan)
{
    clprim_plan_begin(plan, "threshold");
    const unsigned program = threshold_program(ctx, plan, fits_index32(in, out));
    const clprim_split split = pixel_split(plan, program, in->n);
    const cl_float ratio2 = ratio * ratio;
    const cl_int kmode = (cl_int)mode;
    if (planar)
        CLPRIM_PLAN_LAUNCH(plan, program, "threshold_red_planar", split.groups, CLPRIM_ARG(in->data),
                           CLPRIM_ARG(in->offset), CLPRIM_ARG(out->data), CLPRIM_ARG(out->offset), CLPRIM_ARG(in->n),
                           CLPRIM_ARG(split.chunk), CLPRIM_ARG(ratio2), CLPRIM_ARG(kmode));
    else
        CLPRIM_PLAN_LAUNCH(plan, program, "threshold_red_interleaved", split.groups, CLPRIM_ARG(in->data),
                           CLPRIM_ARG(in->offset), CLPRIM_ARG(in->pitch), CLPRIM_ARG(out->data),
                           CLPRIM_ARG(out->offset), CLPRIM_ARG(out->pitch), CLPRIM_ARG(in->width), CLPRIM_ARG(in->n),
                           CLPRIM_ARG(split.chunk), CLPRIM_ARG(in->bpp), CLPRIM_ARG(ratio2), CLPRIM_ARG(kmode));
}

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
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    plan_red(ctx, 0, &in, &out, ratio, mode, &plan);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
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
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    plan_red(ctx, 1, &in, &out, ratio, mode, &plan);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
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

/* Appends a histogram of `slots` counts (bins of each of the channel's
 * channels) in two passes: each work-group counts its chunk into its own
 * partials, then one work-item a slot sums the groups' partials into hist from
 * element hist_offset, or, when hist is NULL, into a part of the scratch after
 * the partials. Returns where the counts go. The partials must be the plan's
 * first part of scratch: the counting kernel takes them from byte 0. */
static cl_ulong plan_histogram(const clprim_context *ctx, clprim_plan *plan, const clprim_image_layout *img,
                               cl_int channel, cl_uint bins, cl_uint slots, cl_mem hist, cl_ulong hist_offset)
{
    const unsigned program = threshold_program(ctx, plan, fits_index32(img, NULL));
    const clprim_split split = pixel_split(plan, program, img->n);
    const size_t wg = plan->programs[program].shape.work_group_size;
    clprim_layout_part(&plan->scratch, split.groups * slots * sizeof(cl_uint));
    if (!hist)
        hist_offset = clprim_layout_part(&plan->scratch, slots * sizeof(cl_uint)) / sizeof(cl_uint);
    CLPRIM_PLAN_LAUNCH(plan, program, "histogram_image", split.groups, CLPRIM_ARG(img->data), CLPRIM_ARG(img->offset),
                       CLPRIM_ARG(img->pitch), CLPRIM_ARG(img->bpp), CLPRIM_ARG(img->width), CLPRIM_ARG(img->n),
                       CLPRIM_ARG(split.chunk), CLPRIM_ARG(channel), CLPRIM_ARG(bins), CLPRIM_SCRATCH_ARG);
    const cl_uint groups = (cl_uint)split.groups;
    CLPRIM_PLAN_LAUNCH(plan, program, "histogram_merge", (slots + wg - 1) / wg, CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(groups), CLPRIM_ARG(slots), CLPRIM_BUFFER_ARG(hist), CLPRIM_ARG(hist_offset));
    return hist_offset;
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
    clprim_plan plan;
    clprim_plan_begin(&plan, "image histogram");
    plan_histogram(ctx, &plan, &in, (cl_int)channel, (cl_uint)bins, nch * (cl_uint)bins, hist, hist_offset);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

/* ---- Otsu ---- */

/* One work-group: the level of `bins` counts of hist into level (NULL: the
 * scratch for either). */
static void plan_otsu(const clprim_context *ctx, clprim_plan *plan, cl_mem hist, cl_ulong hist_offset, cl_uint bins,
                      cl_mem level, cl_ulong level_offset)
{
    /* Any index width serves Otsu: take the program the image kernels use. */
    const unsigned program = threshold_program(ctx, plan, !getenv("CLPRIM_THRESHOLD_INDEX64"));
    CLPRIM_PLAN_LAUNCH(plan, program, "otsu_level", 1, CLPRIM_BUFFER_ARG(hist), CLPRIM_ARG(hist_offset),
                       CLPRIM_ARG(bins), CLPRIM_BUFFER_ARG(level), CLPRIM_ARG(level_offset));
}

_Static_assert(sizeof(unsigned) == sizeof(cl_uint), "the Otsu level is read back into an unsigned");

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
    clprim_plan plan;
    clprim_plan_begin(&plan, "Otsu level");
    if (!level) /* the level only goes to *result: a cl_uint of scratch holds it */
        level_offset = clprim_layout_part(&plan.scratch, sizeof(cl_uint)) / sizeof(cl_uint);
    plan_otsu(ctx, &plan, hist, hist_offset, (cl_uint)bins, level, level_offset);
    if (result)
        clprim_plan_read(&plan, level, level_offset * sizeof(cl_uint), sizeof(cl_uint), result);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
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

/* One launch over the pixels; the level is levels[level_offset] (levels NULL:
 * the scratch) when use_buffer, else `level`. */
static void plan_grey(const clprim_context *ctx, clprim_plan *plan, const clprim_image_layout *in,
                      const clprim_image_layout *out, cl_int use_buffer, cl_mem levels, cl_ulong level_offset,
                      cl_uint level)
{
    const unsigned program = threshold_program(ctx, plan, fits_index32(in, out));
    const clprim_split split = pixel_split(plan, program, in->n);
    if (!use_buffer)
        levels = in->data; /* never read, but must be a buffer */
    CLPRIM_PLAN_LAUNCH(plan, program, "threshold_grey", split.groups, CLPRIM_ARG(in->data), CLPRIM_ARG(in->offset),
                       CLPRIM_ARG(in->pitch), CLPRIM_ARG(in->bpp), CLPRIM_ARG(out->data), CLPRIM_ARG(out->offset),
                       CLPRIM_ARG(out->pitch), CLPRIM_ARG(out->bpp), CLPRIM_ARG(in->width), CLPRIM_ARG(in->n),
                       CLPRIM_ARG(split.chunk), CLPRIM_BUFFER_ARG(levels), CLPRIM_ARG(level_offset),
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
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    clprim_plan_begin(&plan, "threshold");
    plan_grey(ctx, &plan, &in, &out, 0, NULL, 0, level);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
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
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    clprim_plan_begin(&plan, "threshold");
    plan_grey(ctx, &plan, &in, &out, 1, level, level_offset, 0);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
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

    /* The grey histogram of every level, its Otsu level, the threshold at it;
     * scratch holds the partials, then the histogram, then the level. */
    const cl_uint bins = CHANNEL_LEVELS;
    clprim_plan plan;
    clprim_plan_begin(&plan, "Otsu threshold");
    const cl_ulong hist_offset = plan_histogram(ctx, &plan, &in, CHANNEL_GREY, bins, bins, NULL, 0);
    const cl_ulong level_offset = clprim_layout_part(&plan.scratch, sizeof(cl_uint)) / sizeof(cl_uint);
    plan_otsu(ctx, &plan, NULL, hist_offset, bins, NULL, level_offset);
    plan_grey(ctx, &plan, &in, &out, 1, NULL, level_offset, 0);
    if (level)
        clprim_plan_read(&plan, NULL, level_offset * sizeof(cl_uint), sizeof(cl_uint), level);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
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

const clprim_primitive clprim_threshold_primitive = {"threshold", NULL, threshold_variants};
