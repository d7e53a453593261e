/* The checks of clprim_image arguments that every image call shares
 * (threshold.c, kmeans.c), and the pixel formats' sizes and names. */
#include "internal.h"

#include <stdint.h>

size_t clprim_pixel_size(clprim_pixel_format format)
{
    switch (format) {
    case CLPRIM_RGB8: return 3;
    case CLPRIM_RGBA8: return 4;
    case CLPRIM_GREY8: return 1;
    }
    return 0;
}

const char *clprim_pixel_format_name(clprim_pixel_format format)
{
    switch (format) {
    case CLPRIM_RGB8: return "RGB8";
    case CLPRIM_RGBA8: return "RGBA8";
    case CLPRIM_GREY8: return "GREY8";
    }
    return "unknown";
}

/* The "<function>: " that starts a message, as two %s arguments. */
#define WHO(function) (function) ? (function) : "", (function) ? ": " : ""

clprim_status clprim_check_image(clprim_context *ctx, const char *function, const char *name,
                                 const clprim_image *img, clprim_access access, clprim_image_layout *out)
{
    if (!img)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s%s%s is NULL", WHO(function), name);
    size_t bpp = clprim_pixel_size(img->format);
    if (!bpp)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s%s%s: unknown clprim_pixel_format %d", WHO(function),
                           name, (int)img->format);
    if (!img->data)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s%s%s: data is NULL", WHO(function), name);
    if (img->width == 0 || img->height == 0)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s%s%s: width %zu x height %zu: both must be positive",
                           WHO(function), name, img->width, img->height);
    const char *format = clprim_pixel_format_name(img->format);
    if (img->width > SIZE_MAX / bpp || img->width > SIZE_MAX / img->height)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s%s%s: %zu x %zu %s pixels overflow size_t",
                           WHO(function), name, img->width, img->height, format);
    size_t row = img->width * bpp;
    size_t pitch = img->row_pitch ? img->row_pitch : row;
    if (pitch < row)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s%s%s: row_pitch %zu is smaller than a row of %zu %s pixels (%zu bytes)", WHO(function),
                           name, img->row_pitch, img->width, format, row);
    if (img->height - 1 > (SIZE_MAX - row) / pitch || (img->height - 1) * pitch + row > SIZE_MAX - img->offset)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s%s%s: offset %zu + (height %zu - 1) x row_pitch %zu + %zu overflows size_t",
                           WHO(function), name, img->offset, img->height, pitch, row);
    size_t end = img->offset + (img->height - 1) * pitch + row;
    /* A buffer of this context that allows the access: the shared check with n = 0. */
    clprim_region region;
    clprim_status s = clprim_check_buffer(ctx, name, img->data, 0, 0, 1, access, &region);
    if (s != CLPRIM_SUCCESS)
        return s;
    size_t bytes;
    cl_int err = clGetMemObjectInfo(img->data, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "%s%s%s: reading its size", WHO(function), name);
    if (end > bytes)
        return clprim_fail(ctx, CLPRIM_BUFFER_TOO_SMALL,
                           "%s%s%s: a %zu x %zu %s image at byte offset %zu with row_pitch %zu reaches byte %zu "
                           "((height - 1) x row_pitch + width x %zu), but the buffer holds %zu bytes",
                           WHO(function), name, img->width, img->height, format, img->offset, pitch, end, bpp,
                           bytes);
    region.first = region.origin + img->offset;
    region.end = region.origin + end;
    region.pitch = pitch;
    region.unit = bpp;
    *out = (clprim_image_layout){img->data, img->offset, pitch,      img->width, (cl_ulong)img->width * img->height,
                                 (cl_uint)bpp, img->height, img->offset, end, region};
    return CLPRIM_SUCCESS;
}
