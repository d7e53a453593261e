/* `clprim threshold IN OUT`: the red-ratio threshold on a
 * photograph (keep, yellow, reinsert), or a grey-level / Otsu binary threshold,
 * on the device; the result is written as PNG. */
#include "commands.h"
#include "image.h"
#include "options.h"
#include "output.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int usage_to(FILE *to, int status)
{
    fprintf(to,
            "usage: clprim threshold IN OUT.png [--ratio R] [--mode keep|yellow|reinsert|grey|otsu] [--level L]\n"
            "                        [--max-pixels N] [--device SPEC]\n"
            "  IN        a PNG, JPEG or BMP image (16 bits a channel are rounded to 8); OUT is\n"
            "            written as PNG; - is standard input or output (the report then goes to stderr)\n"
            "  --ratio   red ratio r / sqrt(r^2 + g^2 + b^2) above which a pixel is selected, in (0, 1]; 0.7\n"
            "  --mode    keep: selected pixels, the rest black (default); yellow: selected pixels with\n"
            "            green := red, the rest black; reinsert: yellow pixels put back into the image;\n"
            "            grey: white where (r + g + b) / 3 > --level (default 127), else black;\n"
            "            otsu: the same at Otsu's level, computed on the device\n"
            "            keep, yellow and reinsert write RGB (a grey IN is widened to RGB first);\n"
            "            grey and otsu write a grey mask (RGBA with IN's alpha when IN has alpha)\n"
            "  --max-pixels  refuse a larger image before decoding it (default 2^28)\n");
    return status;
}

static int usage(void)
{
    return usage_to(stderr, 2);
}

static double event_ms(cl_event e)
{
    cl_ulong start = 0, end = 0;
    if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS)
        return -1;
    return (double)(end - start) * 1e-6;
}

int cmd_threshold(int argc, char **argv)
{
    const char *in_path = NULL, *out_path = NULL, *device = NULL, *mode_name = "keep";
    double ratio = 0.7;
    long level = 127;
    size_t max_pixels = CLI_IMAGE_MAX_PIXELS;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ratio") && i + 1 < argc) {
            if (!cli_parse_double("threshold", "--ratio", argv[++i], 0, 1, 1, &ratio))
                return 2;
        } else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
            if (!cli_parse_long("threshold", "--level", argv[++i], 0, 255, &level))
                return 2;
        } else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            mode_name = argv[++i];
        } else if (!strcmp(argv[i], "--max-pixels") && i + 1 < argc) {
            if (!cli_parse_count("threshold", "--max-pixels", argv[++i], 1, SIZE_MAX, 4, &max_pixels))
                return 2;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            return usage_to(stdout, 0);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "clprim threshold: unknown or incomplete option %s\n", argv[i]);
            return usage();
        } else if (!in_path) {
            in_path = argv[i];
        } else if (!out_path) {
            out_path = argv[i];
        } else {
            return usage();
        }
    }
    if (!in_path || !out_path)
        return usage();
    static const char *const names[] = {"keep", "yellow", "reinsert", "grey", "otsu"};
    const int mode = cli_pick("threshold", "--mode", mode_name, names, 5);
    if (mode < 0)
        return 2;

    cli_image img;
    clprim_context *ctx;
    char device_name[256];
    int rc = cli_load_image_and_context("threshold", in_path, max_pixels, out_path, device, &img, &ctx, device_name,
                                        sizeof device_name);
    if (rc != 0)
        return rc;

    int status = 1;
    cl_int err = CL_SUCCESS;
    cl_mem src = NULL, dst = NULL;
    cli_image out = {NULL, 0, 0, 0};
    /* The red ratio needs colour; a binary mask needs one channel, and alpha where IN has it. */
    const char *in_kind = cli_image_channels_name(img.channels);
    const int is_red = mode <= 2, out_channels = img.channels == 4 ? 4 : is_red ? 3 : 1;
    if ((is_red && img.channels == 1 && cli_image_widen_grey(&img) != 0) ||
        cli_image_alloc(&out, img.width, img.height, out_channels, 0) != 0) {
        fprintf(stderr, "clprim threshold: out of memory for a %zu x %zu image\n", img.width, img.height);
        goto done;
    }
    src = cli_image_upload(ctx, &img, &err);
    dst = cli_buffer(ctx, CL_MEM_WRITE_ONLY, cli_image_bytes(&out), NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clprim threshold: cannot allocate device buffers for the image (OpenCL error %d)\n", err);
        goto done;
    }
    clprim_image si = cli_image_view(src, &img), di = cli_image_view(dst, &out);

    /* Twice: the first call builds (or loads from the disk cache) the kernels. */
    double first_ms = 0, call_ms = 0, kernel_ms = 0;
    unsigned otsu = 0;
    for (int run = 0; run < 2; run++) {
        cl_event ev = NULL;
        double start = cli_now();
        clprim_status s;
        if (mode <= 2)
            s = clprim_threshold_red(ctx, &si, &di, (float)ratio, (clprim_threshold_mode)mode, 0, NULL, &ev);
        else if (mode == 3)
            s = clprim_threshold_grey(ctx, &si, &di, (unsigned)level, 0, NULL, &ev);
        else
            s = clprim_threshold_otsu(ctx, &si, &di, &otsu, 0, NULL, &ev);
        if (s != CLPRIM_SUCCESS) {
            fprintf(stderr, "clprim threshold: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
            goto done;
        }
        clWaitForEvents(1, &ev);
        if (run == 0) {
            first_ms = (cli_now() - start) * 1e3;
        } else {
            call_ms = (cli_now() - start) * 1e3;
            kernel_ms = event_ms(ev);
        }
        clReleaseEvent(ev);
    }
    if (cli_image_save("threshold", ctx, dst, &out, out_path) != 0)
        goto done;

    /* What happened, counted from the output. */
    size_t n = img.width * img.height, count = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *a = img.pixels + i * img.channels, *b = out.pixels + i * out.channels;
        if (mode <= 1)
            count += (b[0] | b[1] | b[2]) != 0; /* selected pixels have r > 0 */
        else if (mode == 2)
            count += memcmp(a, b, 3) != 0;
        else
            count += b[0] != 0;
    }
    const char *counted = mode <= 1 ? "selected" : mode == 2 ? "recoloured" : "in the foreground";
    printf("%s: %zu x %zu %s\n", cli_input_name(in_path), img.width, img.height, in_kind);
    if (mode <= 2)
        printf("mode %s, red ratio > %g: %zu pixels %s (%.1f%%)\n", names[mode], ratio, count, counted,
               100.0 * (double)count / (double)n);
    else
        printf("mode %s, grey level > %u: %zu pixels %s (%.1f%%)\n", names[mode], mode == 3 ? (unsigned)level : otsu,
               count, counted, 100.0 * (double)count / (double)n);
    printf("on %s: %.3f ms a call (its last kernel %.3f ms); the first call took %.1f ms with the kernel build\n",
           device_name, call_ms, kernel_ms, first_ms);
    printf("wrote %s (%s)\n", cli_output_name(out_path), cli_image_channels_name(out.channels));
    status = 0;

done:
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    cli_image_free(&out);
    cli_image_free(&img);
    clprim_release(ctx);
    return status;
}
