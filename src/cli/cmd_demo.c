/* `clprim demo`: every primitive once on the default device over generated data
 * and a photograph, each checked against a one-thread C loop, in one table. */
#include "commands.h"
#include "image.h"
#include "options.h"
#include "output.h"
#include "workload.h"

#include <pthread.h>
#include <stdatomic.h>
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

/* Builds the kernels of the rows after the first on a second context of the
 * same device, by running each row's workload once on a little data, while
 * the first context runs the rows: on a device that compiles on the host (a
 * CPU) a cold start's compiles overlap the rows, and each row's first call
 * finds its programs in the driver's cache. Best effort: a failure here is
 * the row's own to report. */
typedef struct {
    clprim_context *ctx;
    atomic_int stop; /* the rows are done: nothing more is worth building */
} ahead;

static void *build_ahead(void *arg)
{
    ahead *a = arg;
    static unsigned char pixels[16 * 16 * 3];
    for (size_t k = 1; workload_kinds[k] && !atomic_load(&a->stop); k++) {
        const workload_kind *kind = workload_kinds[k];
        workload w;
        const clprim_type type = !kind->supports || kind->supports(CLPRIM_INT32) ? CLPRIM_INT32 : CLPRIM_FLOAT;
        if (workload_prepare(&w, kind, a->ctx, type, 4096) && kind->run(&w) == CLPRIM_SUCCESS)
            clFinish(clprim_queue(a->ctx));
        workload_release(&w);
    }
    for (size_t k = 0; workload_photo_kinds[k] && !atomic_load(&a->stop); k++) {
        workload w;
        if (workload_prepare_photo(&w, workload_photo_kinds[k], a->ctx, pixels, 16, 16) &&
            workload_photo_kinds[k]->run(&w) == CLPRIM_SUCCESS)
            clFinish(clprim_queue(a->ctx));
        workload_release(&w);
    }
    return NULL;
}

/* A second context on ctx's device, with a queue of its own; NULL if none. */
static clprim_context *second_context(clprim_context *ctx)
{
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(clprim_cl_context(ctx), clprim_device(ctx), 0, &err);
    if (err != CL_SUCCESS)
        return NULL;
    clprim_context *other = NULL;
    if (clprim_create_with_queue(&other, queue) != CLPRIM_SUCCESS)
        other = NULL;
    clReleaseCommandQueue(queue);
    return other;
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

enum { OPT_DEVICE, OPT_N, OPT_IMAGE, OPT_OUT, OPT_MAX_PIXELS };
static const cli_option options[] = {
    [OPT_DEVICE] = {"device", 0, "SPEC", "the OpenCL device (clprim --help)", 0},
    [OPT_N] = {"n", 'n', "ELEMENTS", "generated values for each primitive (default 2^24)", 0},
    [OPT_IMAGE] = {"image", 0, "PHOTO", "the photograph (default: the bundled coffee.png)", 0},
    [OPT_OUT] = {"out", 'o', "FILE.png",
                 "write the photograph with its red pixels recoloured (- for standard\n"
                 "output, the table then going to standard error); without it no file is written",
                 0},
    [OPT_MAX_PIXELS] = {"max-pixels", 0, "N", "refuse a larger photograph before decoding it (default 2^28)", 0},
};

static const cli_command command = {
    "demo", "",
    "  every primitive on generated values, then the red-ratio threshold, Otsu's threshold\n"
    "  and k-means on a photograph, each checked against a one-thread C loop and timed\n",
    options, sizeof options / sizeof options[0], NULL, NULL,
};

int cmd_demo(int argc, char **argv)
{
    const char *device = NULL, *photo = find_photo(), *out_path = NULL;
    size_t n = (size_t)1 << 24, max_pixels = CLI_IMAGE_MAX_PIXELS;
    cli_parser p;
    cli_begin(&p, &command, argc, argv);
    for (int opt; (opt = cli_next(&p)) >= 0;) {
        int ok = 1;
        if (opt == OPT_DEVICE)
            device = p.value;
        else if (opt == OPT_N)
            ok = cli_parse_count("demo", "--n", p.value, 1, SIZE_MAX, WORKLOAD_MAX_BYTES_PER_ELEMENT, &n);
        else if (opt == OPT_MAX_PIXELS)
            ok = cli_parse_count("demo", "--max-pixels", p.value, 1, SIZE_MAX, 4, &max_pixels);
        else if (opt == OPT_IMAGE)
            photo = p.value;
        else
            ok = cli_want_png("demo", "--out", out_path = p.value, "picture");
        if (!ok)
            return 2;
    }
    const int ended = cli_end(&p, 0);
    if (ended >= 0)
        return ended;
    clprim_context *ctx = cli_open(device);
    if (!ctx)
        return 1;
    char name[256] = "";
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("libclprim %s demo on %s, %zu elements\n", CLPRIM_VERSION_STRING, name, n);
    printf("first ms: the first call, which builds the row's kernels unless a second context, building\n"
           "them ahead on a thread of its own while earlier rows ran, left them in the driver's cache\n\n");
    printf("%-16s %-7s %10s %10s %9s %11s %9s  %s\n", "primitive", "type", "first ms", "device ms", "GB/s",
           "C loop ms", "speed-up", "check");

    ahead a = {second_context(ctx), 0};
    pthread_t builder;
    const int building = a.ctx && pthread_create(&builder, NULL, build_ahead, &a) == 0;

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
    atomic_store(&a.stop, 1);
    if (building)
        pthread_join(builder, NULL);
    clprim_release(a.ctx);
    printf("\n%s\n", failures ? "Some results were WRONG or not written." : "Every result matches the CPU.");
    clprim_release(ctx);
    return failures ? 1 : 0;
}
