/* `clprim demo`: every primitive once on the default device over generated data,
 * each checked against a one-thread C loop, in one table. */
#include "commands.h"
#include "image.h"
#include "options.h"
#include "workload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The bundled photograph: from the source tree, else the installed copy. */
static const char *const photo_places[] = {CLPRIM_SOURCE_DATA_DIR "/coffee.png", CLPRIM_INSTALL_DATA_DIR "/coffee.png"};

static const char *find_photo(void)
{
    struct stat st;
    for (size_t i = 0; i < sizeof photo_places / sizeof photo_places[0]; i++)
        if (stat(photo_places[i], &st) == 0)
            return photo_places[i];
    return NULL;
}

/* The red-ratio threshold on a real photograph, reinserting
 * the recoloured pixels, checked against the same rule in a C loop (the header's
 * exact formulation; this file is compiled without fused multiply-add). */
static void threshold_pixels_cpu(const unsigned char *in, unsigned char *out, size_t pixels, float ratio)
{
    float limit = ratio * ratio;
    for (size_t i = 0; i < pixels; i++) {
        float r = in[3 * i], g = in[3 * i + 1], b = in[3 * i + 2];
        int selected = r > 0 && r * r > limit * ((r * r + g * g) + b * b);
        out[3 * i] = in[3 * i];
        out[3 * i + 1] = selected ? in[3 * i] : in[3 * i + 1];
        out[3 * i + 2] = in[3 * i + 2];
    }
}

/* One row of the table for the photograph; writes the result to out_path. */
static int demo_photo(clprim_context *ctx, const char *path, size_t max_pixels, const char *out_path)
{
    cli_image img, result = {0}, expect = {0};
    char why[512];
    if (!path) {
        printf("%-16s skipped: the bundled photograph coffee.png was not found (%s, %s)\n", "threshold-photo",
               photo_places[0], photo_places[1]);
        return 0;
    }
    if (cli_image_read(path, 3, max_pixels, &img, why, sizeof why) != 0) {
        printf("%-16s skipped: %s\n", "threshold-photo", why);
        return !cli_image_support() ? 0 : 1;
    }
    size_t bytes = img.width * img.height * 3;
    cl_context cl;
    clGetCommandQueueInfo(clprim_queue(ctx), CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, img.pixels, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    clprim_image src = {in, 0, img.width, img.height, 0, CLPRIM_RGB8};
    clprim_image dst = {out, 0, img.width, img.height, 0, CLPRIM_RGB8};
    int failed = 1;
    if (cli_image_alloc(&result, img.width, img.height, 3, 0) == 0 &&
        cli_image_alloc(&expect, img.width, img.height, 3, 0) == 0) {
        double first = cli_now();
        clprim_status s = clprim_threshold_red(ctx, &src, &dst, 0.7f, CLPRIM_THRESHOLD_REINSERT, 0, NULL, NULL);
        clFinish(clprim_queue(ctx));
        first = cli_now() - first;
        double start = cli_now();
        if (s == CLPRIM_SUCCESS)
            s = clprim_threshold_red(ctx, &src, &dst, 0.7f, CLPRIM_THRESHOLD_REINSERT, 0, NULL, NULL);
        clFinish(clprim_queue(ctx));
        double device_s = cli_now() - start;
        if (s != CLPRIM_SUCCESS) {
            printf("%-16s failed: %s: %s\n", "threshold-photo", clprim_status_name(s), clprim_last_error(ctx));
        } else {
            clEnqueueReadBuffer(clprim_queue(ctx), out, CL_TRUE, 0, bytes, result.pixels, 0, NULL, NULL);
            threshold_pixels_cpu(img.pixels, expect.pixels, img.width * img.height, 0.7f); /* touch the pages */
            start = cli_now();
            threshold_pixels_cpu(img.pixels, expect.pixels, img.width * img.height, 0.7f);
            double cpu_s = cli_now() - start;
            failed = memcmp(result.pixels, expect.pixels, bytes) != 0;
            int written = cli_image_write_png(out_path, &result, why, sizeof why) == 0;
            printf("%-16s %-7s %10.2f %10.3f %9.2f %11.3f %8.1fx  %s\n", "threshold-photo", "rgb8", first * 1e3,
                   device_s * 1e3, 2.0 * (double)bytes / device_s * 1e-9, cpu_s * 1e3, cpu_s / device_s,
                   failed ? "WRONG: pixels differ from the C loop's" : "ok");
            if (written)
                printf("%16s %zux%zu %s, red pixels recoloured (green := red), written to %s\n", "", img.width,
                       img.height, path, out_path);
            else
                printf("%16s could not write the result: %s\n", "", why);
            failed |= !written;
        }
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    cli_image_free(&img);
    cli_image_free(&result);
    cli_image_free(&expect);
    return failed;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median wall time of `runs` calls, each waited for: what a caller sees. */
static double median_time(workload *w, int runs, clprim_status *status)
{
    double t[16];
    for (int i = 0; i < runs; i++) {
        double start = cli_now();
        *status = w->kind->run(w);
        clFinish(clprim_queue(w->ctx));
        t[i] = cli_now() - start;
        if (*status != CLPRIM_SUCCESS)
            return 0;
    }
    qsort(t, (size_t)runs, sizeof t[0], compare_doubles);
    return t[runs / 2];
}

int cmd_demo(int argc, char **argv)
{
    const char *device = NULL, *photo = find_photo(), *out_path = "clprim-demo-threshold.png";
    size_t n = (size_t)1 << 24, max_pixels = CLI_IMAGE_MAX_PIXELS;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            if (!cli_parse_count("demo", "--n", argv[++i], 1, SIZE_MAX, WORKLOAD_MAX_BYTES_PER_ELEMENT, &n))
                return 2;
        } else if (!strcmp(argv[i], "--max-pixels") && i + 1 < argc) {
            if (!cli_parse_count("demo", "--max-pixels", argv[++i], 1, SIZE_MAX, 4, &max_pixels))
                return 2;
        } else if (!strcmp(argv[i], "--image") && i + 1 < argc) {
            photo = argv[++i];
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_path = argv[++i];
        } else {
            int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
            fprintf(help ? stdout : stderr,
                    "usage: clprim demo [--device SPEC] [--n ELEMENTS] [--image PHOTO] [--out FILE.png]\n"
                    "                   [--max-pixels N]\n"
                    "  the photograph defaults to the bundled coffee.png; its thresholded copy goes\n"
                    "  to clprim-demo-threshold.png in the current folder unless --out says otherwise;\n"
                    "  a photograph of more than --max-pixels (default 2^28) is refused before decoding\n");
            return help ? 0 : 2;
        }
    }
    clprim_context *ctx = cli_open(device);
    if (!ctx)
        return 1;
    char name[256] = "";
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("libclprim %s demo on %s, %zu elements\n\n", CLPRIM_VERSION_STRING, name, n);
    printf("%-16s %-7s %10s %10s %9s %11s %9s  %s\n", "primitive", "type", "first ms", "device ms", "GB/s",
           "C loop ms", "speed-up", "check");

    int failures = 0;
    for (size_t k = 0; workload_kinds[k]; k++) {
        const workload_kind *kind = workload_kinds[k];
        workload w;
        clprim_type type = !kind->supports || kind->supports(CLPRIM_INT32) ? CLPRIM_INT32 : CLPRIM_FLOAT;
        if (!workload_prepare(&w, kind, ctx, type, n)) {
            failures++;
            continue;
        }
        /* The first call builds (or loads from the disk cache) its kernels. */
        double start = cli_now();
        clprim_status s = kind->run(&w);
        clFinish(clprim_queue(ctx));
        double first = cli_now() - start;
        double device_s = s == CLPRIM_SUCCESS ? median_time(&w, 5, &s) : 0;
        if (s != CLPRIM_SUCCESS) {
            printf("%-16s failed: %s: %s\n", kind->name, clprim_status_name(s), clprim_last_error(ctx));
            failures++;
            workload_release(&w);
            continue;
        }
        kind->cpu(&w); /* once to touch the pages, then timed */
        start = cli_now();
        kind->cpu(&w);
        double cpu_s = cli_now() - start;
        char why[256] = "";
        int ok = workload_fetch(&w) && kind->check(&w, why, sizeof why);
        failures += !ok;
        printf("%-16s %-7s %10.2f %10.3f %9.2f %11.3f %8.1fx  %s%s\n", kind->name, workload_type_name(w.type),
               first * 1e3, device_s * 1e3, kind->bytes(&w) / device_s * 1e-9, cpu_s * 1e3, cpu_s / device_s,
               ok ? "ok" : "WRONG: ", why);
        workload_release(&w);
    }
    failures += demo_photo(ctx, photo, max_pixels, out_path);
    printf("\n%s\n", failures ? "Some results were WRONG or not written." : "Every result matches the CPU.");
    clprim_release(ctx);
    return failures ? 1 : 0;
}
