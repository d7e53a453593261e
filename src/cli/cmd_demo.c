/* `clprim demo`: every primitive once on the default device over generated data
 * and a photograph, each checked against a one-thread C loop, in one table. */
#include "commands.h"
#include "image.h"
#include "options.h"
#include "output.h"
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

/* One row of the table: the first call (it builds or loads the kernels), the
 * median of five, the C loop, the check. 0 when the result matches. */
static int demo_row(workload *w, const char *type)
{
    const workload_kind *kind = w->kind;
    double start = cli_now();
    clprim_status s = kind->run(w);
    clFinish(clprim_queue(w->ctx));
    double first = cli_now() - start;
    double device_s = s == CLPRIM_SUCCESS ? median_time(w, 5, &s) : 0;
    if (s != CLPRIM_SUCCESS) {
        printf("%-16s failed: %s: %s\n", kind->name, clprim_status_name(s), clprim_last_error(w->ctx));
        return 1;
    }
    kind->cpu(w); /* once to touch the pages, then timed */
    start = cli_now();
    kind->cpu(w);
    double cpu_s = cli_now() - start;
    char why[256] = "";
    int ok = workload_fetch(w) && kind->check(w, why, sizeof why);
    printf("%-16s %-7s %10.2f %10.3f %9.2f %11.3f %8.1fx  %s%s\n", kind->name, type, first * 1e3, device_s * 1e3,
           kind->bytes(w) / device_s * 1e-9, cpu_s * 1e3, cpu_s / device_s, ok ? "ok" : "WRONG: ", why);
    return !ok;
}

/* The photograph's rows; the first row's result goes to out_path when given. */
static int demo_photo(clprim_context *ctx, const char *path, size_t max_pixels, const char *out_path)
{
    if (!path) {
        printf("%-16s skipped: the bundled photograph coffee.png was not found (%s, %s)\n", "photograph",
               photo_places[0], photo_places[1]);
        return 0;
    }
    cli_image img;
    char why[1024];
    if (cli_image_read(path, 3, max_pixels, &img, why, sizeof why) != 0) {
        printf("%-16s skipped: %s\n", "photograph", why);
        return !cli_image_support() ? 0 : 1;
    }
    int failures = 0;
    for (size_t k = 0; workload_photo_kinds[k]; k++) {
        workload w;
        if (!workload_prepare_photo(&w, workload_photo_kinds[k], ctx, img.pixels, img.width, img.height)) {
            failures++;
            continue;
        }
        int failed = demo_row(&w, "rgb8");
        if (k == 0 && out_path && !failed) {
            cli_image picture = {w.out, img.width, img.height, 3};
            failed = cli_image_write_png(out_path, &picture, why, sizeof why) != 0;
            if (failed)
                printf("%16s could not write the result: %s\n", "", why);
            else
                printf("%16s %zux%zu %s, red pixels recoloured (green := red), written to %s\n", "", img.width,
                       img.height, path, cli_output_name(out_path));
        }
        failures += failed;
        workload_release(&w);
    }
    cli_image_free(&img);
    return failures;
}

int cmd_demo(int argc, char **argv)
{
    const char *device = NULL, *photo = find_photo(), *out_path = NULL;
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
            if (!cli_want_png("demo", "--out", out_path, "picture"))
                return 2;
        } else {
            int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
            fprintf(help ? stdout : stderr,
                    "usage: clprim demo [--device SPEC] [--n ELEMENTS] [--image PHOTO] [--out FILE.png]\n"
                    "                   [--max-pixels N]\n"
                    "  every primitive on ELEMENTS generated values (default 2^24), then the red-ratio\n"
                    "  threshold, Otsu's threshold and k-means on a photograph (default: the bundled\n"
                    "  coffee.png), each checked against a one-thread C loop and timed;\n"
                    "  --out writes the photograph with its red pixels recoloured (- for standard\n"
                    "  output, the table then going to standard error); without it no file is written;\n"
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
        failures += demo_row(&w, workload_type_name(type));
        workload_release(&w);
    }
    failures += demo_photo(ctx, photo, max_pixels, out_path);
    printf("\n%s\n", failures ? "Some results were WRONG or not written." : "Every result matches the CPU.");
    clprim_release(ctx);
    return failures ? 1 : 0;
}
