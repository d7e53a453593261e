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

enum { KEEP, YELLOW, REINSERT, GREY, OTSU };
static const char *const names[] = {"keep", "yellow", "reinsert", "grey", "otsu"};
#define RED_MODES (1u << KEEP | 1u << YELLOW | 1u << REINSERT)

enum { OPT_RATIO, OPT_MODE, OPT_LEVEL, OPT_MAX_PIXELS, OPT_DEVICE };
static const cli_option options[] = {
    [OPT_RATIO] = {"ratio", 0, "R",
                   "red ratio r / sqrt(r^2 + g^2 + b^2) above which a pixel is selected,\nin (0, 1]; 0.7",
                   RED_MODES},
    [OPT_MODE] = {"mode", 0, "M",
                  "keep: selected pixels, the rest black (default); yellow: selected pixels\n"
                  "with green := red, the rest black; reinsert: yellow pixels put back into\n"
                  "the image; grey: white where (r + g + b) / 3 > --level, else black;\n"
                  "otsu: the same at Otsu's level, computed on the device.\n"
                  "keep, yellow and reinsert write RGB (a grey IN is widened to RGB first);\n"
                  "grey and otsu write a grey mask (RGBA with IN's alpha when IN has alpha)",
                  0},
    [OPT_LEVEL] = {"level", 0, "L", "the grey level of --mode grey, 0 to 255 (default 127)", 1u << GREY},
    [OPT_MAX_PIXELS] = {"max-pixels", 0, "N", "refuse a larger image before decoding it (default 2^28)", 0},
    [OPT_DEVICE] = {"device", 0, "SPEC", "the OpenCL device (clprim --help)", 0},
};

static const cli_command command = {
    "threshold", "IN OUT.png",
    "  IN is a PNG, JPEG or BMP image (16 bits a channel are rounded to 8); OUT is\n"
    "  written as PNG; - is standard input or output (messages then go to stderr)\n",
    options, sizeof options / sizeof options[0], "--mode", names,
};

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
    const char *in_path, *out_path, *device = NULL, *mode_name = "keep";
    double ratio = 0.7;
    long level = 127;
    size_t max_pixels = CLI_IMAGE_MAX_PIXELS;
    cli_parser p;
    cli_begin(&p, &command, argc, argv);
    for (int opt; (opt = cli_next(&p)) >= 0;) {
        int ok = 1;
        if (opt == OPT_RATIO)
            ok = cli_parse_double("threshold", "--ratio", p.value, 0, 1, 1, &ratio);
        else if (opt == OPT_LEVEL)
            ok = cli_parse_long("threshold", "--level", p.value, 0, 255, &level);
        else if (opt == OPT_MODE)
            mode_name = p.value;
        else if (opt == OPT_MAX_PIXELS)
            ok = cli_parse_count("threshold", "--max-pixels", p.value, 1, SIZE_MAX, 4, &max_pixels);
        else
            device = p.value;
        if (!ok)
            return 2;
    }
    const int ended = cli_end(&p, 2);
    if (ended >= 0)
        return ended;
    in_path = p.args[0], out_path = p.args[1];
    const int mode = cli_pick("threshold", "--mode", mode_name, names, 5);
    if (mode < 0)
        return 2;
    cli_warn_mode(&p, mode);

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

    /* Twice: the first call builds the kernels or loads them from the disk cache,
     * which the program counts tell apart. */
    double first_ms = 0, call_ms = 0, kernel_ms = 0;
    unsigned otsu = 0, compiled, loaded;
    char first_note[160];
    clprim_program_counts(ctx, &compiled, &loaded);
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
            cli_first_call_note(ctx, compiled, loaded, first_note, sizeof first_note);
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
    printf("on %s: %.3f ms a call (its last kernel %.3f ms); the first call took %.1f ms, %s\n", device_name,
           call_ms, kernel_ms, first_ms, first_note);
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
