/* Threshold a photograph on the device: pixels whose normalised red
 * r / sqrt(r^2 + g^2 + b^2) is above 0.7 turn yellow (green := red), the rest
 * of the photo stays as it is.
 *
 *   build/examples/threshold [IN.png [OUT.png [RATIO]]]
 *
 * (default: examples/data/coffee.png). OUT.png is written only when given.
 * Images are plain buffers: a clprim_image says where the pixels are (byte
 * offset, row pitch) and how they are laid out (RGB8 here). stb reads and
 * writes the files. The recoloured pixels are checked against the same test
 * in a C loop, which rounds like the kernel when built without fused
 * multiply-add (-ffp-contract=off, as examples/meson.build builds it). */
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>
#include <stb_image.h>
#include <stb_image_write.h>

#ifndef EXAMPLES_DATA
#define EXAMPLES_DATA "examples/data"
#endif

int main(int argc, char **argv)
{
    const char *in = argc > 1 ? argv[1] : EXAMPLES_DATA "/coffee.png";
    const char *out = argc > 2 ? argv[2] : NULL;
    const float ratio = argc > 3 ? strtof(argv[3], NULL) : 0.7f;

    int w, h, channels;
    unsigned char *pixels = stbi_load(in, &w, &h, &channels, 3); /* always RGB8 */
    if (!pixels) {
        fprintf(stderr, "%s: %s\n", in, stbi_failure_reason());
        return 1;
    }
    const size_t bytes = (size_t)w * (size_t)h * 3;

    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    cl_context cl = clprim_cl_context(ctx);
    cl_int err;
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, pixels, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer: %d\n", err);
        return 1;
    }

    /* In place: the same image as source and destination. Row pitch 0 means
     * tightly packed rows (w * 3 bytes). */
    clprim_image image = {buf, 0, (size_t)w, (size_t)h, 0, CLPRIM_RGB8};
    s = clprim_threshold_red(ctx, &image, &image, ratio, CLPRIM_THRESHOLD_REINSERT, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_threshold_red: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
        return 1;
    }
    unsigned char *result = malloc(bytes);
    if (!result)
        return 1;
    clEnqueueReadBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, bytes, result, 0, NULL, NULL);

    /* The C loop: selected pixels get green := red, the others stay. */
    size_t selected = 0, wrong = 0;
    for (size_t i = 0; i < bytes; i += 3) {
        const float r = pixels[i], g = pixels[i + 1], b = pixels[i + 2];
        const int pick = r > 0 && r * r > (ratio * ratio) * ((r * r + g * g) + b * b);
        selected += pick;
        wrong += result[i] != pixels[i] || result[i + 1] != (pick ? pixels[i] : pixels[i + 1]) ||
                 result[i + 2] != pixels[i + 2];
    }
    int ok = wrong == 0;
    printf("%s (%d x %d): %zu reddish pixels (ratio > %g) turned yellow, %s the C loop\n", in, w, h, selected, ratio,
           ok ? "as" : "NOT as");
    if (out && !stbi_write_png(out, w, h, 3, result, w * 3)) {
        fprintf(stderr, "cannot write %s\n", out);
        ok = 0;
    } else if (out) {
        printf("wrote %s\n", out);
    }
    free(result);
    clReleaseMemObject(buf);
    clprim_release(ctx);
    stbi_image_free(pixels);
    return ok ? 0 : 1;
}
