/* Otsu's threshold without a round trip: the grey histogram, Otsu's level and
 * the binary mask are three calls that stay on the device; the level goes from
 * one call to the next through a one-element buffer. Only the answers come
 * back: the mask, the level and, to check them, the histogram.
 *
 *   build/examples/otsu [IN.png [MASK.png]]
 *
 * (default: examples/data/astronaut.png). MASK.png is written only when given.
 * clprim_threshold_otsu does the same in one call; this shows the pieces. The
 * histogram and the mask are checked against a C loop. */
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>
#include <stb_image.h>
#include <stb_image_write.h>

#ifndef EXAMPLES_DATA
#define EXAMPLES_DATA "examples/data"
#endif

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        clprim_status s_ = (call);                                                                   \
        if (s_ != CLPRIM_SUCCESS) {                                                                  \
            fprintf(stderr, "%s: %s: %s\n", #call, clprim_status_name(s_), clprim_last_error(ctx)); \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

int main(int argc, char **argv)
{
    const char *in = argc > 1 ? argv[1] : EXAMPLES_DATA "/astronaut.png";
    const char *out = argc > 2 ? argv[2] : NULL;
    int w, h, channels;
    unsigned char *pixels = stbi_load(in, &w, &h, &channels, 4); /* RGBA8 */
    if (!pixels) {
        fprintf(stderr, "%s: %s\n", in, stbi_failure_reason());
        return 1;
    }
    clprim_context *ctx;
    if (clprim_create(&ctx, NULL) != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s\n", clprim_last_error(NULL));
        return 1;
    }
    cl_context cl = clprim_cl_context(ctx);
    const size_t n = (size_t)w * (size_t)h;
    cl_int err;
    cl_mem rgba = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, pixels, &err);
    cl_mem mask = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, n, NULL, &err);
    cl_mem hist = clCreateBuffer(cl, CL_MEM_READ_WRITE, 256 * sizeof(cl_uint), NULL, &err);
    cl_mem level = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);

    clprim_image src = {rgba, 0, (size_t)w, (size_t)h, 0, CLPRIM_RGBA8};
    clprim_image dst = {mask, 0, (size_t)w, (size_t)h, 0, CLPRIM_GREY8};
    /* 1. 256 bins of grey = (r + g + b) / 3: one bin per grey level. */
    CHECK(clprim_image_histogram(ctx, &src, CLPRIM_CHANNEL_GREY, 256, hist, 0, 0, NULL, NULL));
    /* 2. Otsu's level into the `level` buffer (result NULL: no waiting). */
    CHECK(clprim_otsu(ctx, hist, 0, 256, level, 0, NULL, 0, NULL, NULL));
    /* 3. The mask: 255 where grey > level, read from the buffer on the device. */
    CHECK(clprim_threshold_grey_buffer(ctx, &src, &dst, level, 0, 0, NULL, NULL));

    unsigned char *out_pixels = malloc(n);
    if (!out_pixels)
        return 1;
    cl_uint chosen, counts[256];
    clEnqueueReadBuffer(clprim_queue(ctx), hist, CL_FALSE, 0, sizeof counts, counts, 0, NULL, NULL);
    clEnqueueReadBuffer(clprim_queue(ctx), level, CL_FALSE, 0, sizeof chosen, &chosen, 0, NULL, NULL);
    clEnqueueReadBuffer(clprim_queue(ctx), mask, CL_TRUE, 0, n, out_pixels, 0, NULL, NULL);

    /* The C loop: the grey level of each pixel counted, and 255 where it is above the level. */
    cl_uint want[256] = {0};
    size_t front = 0, wrong = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = pixels + 4 * i;
        const unsigned grey = (p[0] + p[1] + p[2]) / 3u;
        want[grey]++;
        front += out_pixels[i] != 0;
        wrong += out_pixels[i] != (grey > chosen ? 255 : 0);
    }
    for (int v = 0; v < 256; v++)
        wrong += counts[v] != want[v];
    int ok = wrong == 0;
    printf("%s: Otsu level %u, %.1f%% of the pixels above it; histogram and mask %s the C loop\n", in, chosen,
           100.0 * (double)front / (double)n, ok ? "as" : "NOT as");
    if (out && !stbi_write_png(out, w, h, 1, out_pixels, w)) {
        fprintf(stderr, "cannot write %s\n", out);
        ok = 0;
    } else if (out) {
        printf("wrote %s\n", out);
    }

    clReleaseMemObject(rgba);
    clReleaseMemObject(mask);
    clReleaseMemObject(hist);
    clReleaseMemObject(level);
    clprim_release(ctx);
    stbi_image_free(pixels);
    free(out_pixels);
    return ok ? 0 : 1;
}
