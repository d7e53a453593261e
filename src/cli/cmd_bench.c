/* `clprim bench`: every primitive over a sweep of sizes, timed with OpenCL
 * profiling events (median of repeated runs after a warm-up), beside a
 * clEnqueueCopyBuffer of the same input bytes timed in the same run, a
 * one-thread C loop and the same loop over every core with OpenMP. Every timed
 * result is checked once against the C loop, and the OpenMP loop's against it. */
#include "chart.h"
#include "commands.h"
#include "internal.h"
#include "options.h"
#include "output.h"
#include "progress.h"
#include "workload.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *device;
    const char *primitives; /* comma-separated workload names, NULL for all */
    const char *types;      /* comma-separated */
    size_t min_n, max_n;
    long runs;
    const char *csv;
    const char *plot;
    int launches; /* print each launch of a row's last run */
} bench_options;

/* One measured point, for --plot. */
typedef struct {
    const char *kind;
    clprim_type type;
    size_t n;
    double gbps;
} bench_point;

#define MAX_POINTS 1024

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof t[0], compare_doubles);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return 1;
    return 0;
}

/* Median device time of the copy of `bytes` between two buffers. */
static int time_copy(clprim_context *ctx, cl_context cl, size_t bytes, int runs, double *seconds)
{
    cl_int err;
    cl_mem a = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem b = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
    double t[256];
    int ok = err == CL_SUCCESS;
    for (int i = -1; ok && i < runs; i++) { /* i == -1: warm-up */
        cl_event e;
        cl_ulong start, end;
        ok = clEnqueueCopyBuffer(clprim_queue(ctx), a, b, 0, 0, bytes, 0, NULL, &e) == CL_SUCCESS;
        if (!ok)
            break;
        clWaitForEvents(1, &e);
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        clReleaseEvent(e);
        if (i >= 0)
            t[i] = (double)(end - start) * 1e-9;
    }
    if (a)
        clReleaseMemObject(a);
    if (b)
        clReleaseMemObject(b);
    if (ok)
        *seconds = median(t, runs);
    return ok;
}

/* A row's medians: the device time of the workload's call (its first kernel to
 * its last) and, when asked, the wall time of its OpenMP loop and the ratio
 * loop / device. On a CPU device the loop runs right after each call, so that
 * on a shared, noisy machine both see the same moments, and the ratio is the
 * median of the runs' ratios. On other devices the calls run back to back, as
 * in an application's pipeline (a GPU left idle for the loop's milliseconds
 * starts the next call some 20 us late), then the loops; the ratio is that of
 * the medians. */
typedef struct {
    double device, openmp, versus;
    clprim_launch_time launch[64]; /* the last run's launches */
    size_t launches;
} row_times;

#define OPENMP_SETTLE_NS 30000000L /* libgomp spins 300000 times, about 15 ms on a Xeon */

static double time_openmp(workload *w)
{
    double start = cli_now();
    w->kind->openmp(w);
    const double loop = cli_now() - start;
    /* The OpenMP runtime's threads spin for some milliseconds after a loop
     * before they sleep; on a CPU device they would take the cores from the
     * next call. */
    nanosleep(&(struct timespec){0, OPENMP_SETTLE_NS}, NULL);
    return loop;
}

static clprim_status time_row(workload *w, int runs, int with_openmp, int every_launch, row_times *r)
{
    double t[256], loop[256], versus[256];
    cl_device_type type = 0;
    clGetDeviceInfo(clprim_device(w->ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    const int interleave = with_openmp && (type & CL_DEVICE_TYPE_CPU);
    for (int i = 0; i < runs; i++) {
        clprim_profile_begin(w->ctx, every_launch ? CLPRIM_PROFILE_EVERY : CLPRIM_PROFILE_ENDS);
        clprim_status s = w->kind->run(w);
        clprim_status p = clprim_profile_end(w->ctx, &t[i], r->launch, &r->launches);
        if (s != CLPRIM_SUCCESS)
            return s;
        if (p != CLPRIM_SUCCESS)
            return p;
        if (interleave) {
            loop[i] = time_openmp(w);
            versus[i] = t[i] > 0 ? loop[i] / t[i] : 0.0;
        }
    }
    for (int i = 0; with_openmp && !interleave && i < runs; i++)
        loop[i] = time_openmp(w);
    r->device = median(t, runs);
    r->openmp = r->versus = 0.0;
    if (with_openmp)
        r->openmp = median(loop, runs);
    if (interleave)
        r->versus = median(versus, runs);
    else if (with_openmp && r->device > 0)
        r->versus = r->openmp / r->device;
    return CLPRIM_SUCCESS;
}

/* First call on a fresh context (kernels from the disk cache, or built) against a
 * warm call, both as the caller sees them (wall time, waited for). */
static void startup_table(const bench_options *o, clprim_type type, FILE *csv)
{
    printf("\nstart-up, %s, 2^16 elements: first call on a new context vs a warm call (wall time)\n",
           workload_type_name(type));
    printf("%-16s %12s %12s\n", "primitive", "first ms", "warm ms");
    for (size_t k = 0; workload_kinds[k]; k++) {
        const workload_kind *kind = workload_kinds[k];
        if (!listed(o->primitives, kind->name) || (kind->supports && !kind->supports(type)))
            continue;
        clprim_context *ctx = cli_open(o->device);
        workload w;
        if (!ctx || !workload_prepare(&w, kind, ctx, type, (size_t)1 << 16)) {
            clprim_release(ctx);
            continue;
        }
        double times[2];
        for (int i = 0; i < 2; i++) {
            double start = cli_now();
            kind->run(&w);
            clFinish(clprim_queue(ctx));
            times[i] = cli_now() - start;
        }
        printf("%-16s %12.2f %12.3f\n", kind->name, times[0] * 1e3, times[1] * 1e3);
        if (csv)
            fprintf(csv, "startup,%s,%s,%d,%.9f,%.9f,,,\n", kind->name, workload_type_name(type), 1 << 16,
                    times[0], times[1]);
        workload_release(&w);
        clprim_release(ctx);
    }
}

/* GB/s against log2 n, one line per primitive and type, legend on the right.
 * GB/s is on a log scale in whole decades: the sorts move a small fraction of
 * a copy's GB/s, and on a linear axis they would lie flat along zero. */
static int draw_plot(const char *path, const char *device, const bench_point *p, size_t count)
{
    static const unsigned char palette[][3] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                                               {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                               {188, 189, 34}, {23, 190, 207}, {0, 0, 0}, {120, 120, 255}};
    const unsigned char ink[3] = {40, 40, 40}, grid[3] = {215, 215, 215}, faint[3] = {240, 240, 240};
    const long left = 80, right = 330, top = 56, bottom = 60, width = 1200, height = 640;
    const long plot_w = width - left - right, plot_h = height - top - bottom;
    double least = INFINITY, peak = 0;
    int lo = 64, hi = 0;
    for (size_t i = 0; i < count; i++) {
        int k = (int)log2((double)p[i].n);
        lo = k < lo ? k : lo, hi = k > hi ? k : hi;
        least = p[i].gbps > 0 && p[i].gbps < least ? p[i].gbps : least;
        peak = p[i].gbps > peak ? p[i].gbps : peak;
    }
    if (hi <= lo)
        hi = lo + 1;
    const int bottom_decade = least < INFINITY ? (int)floor(log10(least)) : 0;
    int top_decade = peak > 0 ? (int)ceil(log10(peak)) : 1;
    if (top_decade <= bottom_decade)
        top_decade = bottom_decade + 1;
    chart_canvas c;
    char why[512], label[96];
    if (chart_open(&c, (size_t)width, (size_t)height) != 0) {
        fprintf(stderr, "clprim bench: out of memory drawing %s\n", path);
        return 0;
    }
#define X(k) (left + (long)(((k) - lo) * plot_w / (hi - lo)))
#define Y(v) (top + plot_h - (long)((log10(v) - bottom_decade) / (top_decade - bottom_decade) * (double)plot_h))
    snprintf(label, sizeof label, "libclprim bench on %.60s: GB/s against n", device);
    chart_text(&c, left, 14, label, 2, ink);
    for (int d = bottom_decade; d <= top_decade; d++) {
        const double v = pow(10, d);
        chart_rect(&c, left, Y(v), left + plot_w, Y(v) + 1, grid);
        for (int m = 2; m <= 5 && d < top_decade; m += 3) /* fainter lines at 2 and 5 */
            chart_rect(&c, left, Y(m * v), left + plot_w, Y(m * v) + 1, faint);
        snprintf(label, sizeof label, "%g", v);
        chart_text(&c, left - 10 - chart_text_width(label, 2), Y(v) - 6, label, 2, ink);
    }
    for (int k = lo; k <= hi; k++) {
        chart_rect(&c, X(k), top + plot_h, X(k) + 1, top + plot_h + 6, ink);
        snprintf(label, sizeof label, "2^%d", k);
        chart_text(&c, X(k) - chart_text_width(label, 2) / 2, top + plot_h + 12, label, 2, ink);
    }
    chart_rect(&c, left, top, left + 1, top + plot_h + 1, ink);
    chart_rect(&c, left, top + plot_h, left + plot_w, top + plot_h + 1, ink);
    chart_text(&c, left + plot_w / 2 - 90, height - 24, "n (elements, log scale)", 2, ink);
    chart_text(&c, 8, top - 20, "GB/s (log scale)", 2, ink);
    size_t series = 0;
    for (size_t i = 0; i < count; i++) {
        int first = 1; /* the first point of its series */
        for (size_t j = 0; j < i; j++)
            if (p[j].kind == p[i].kind && p[j].type == p[i].type)
                first = 0;
        if (!first)
            continue;
        const unsigned char *colour = palette[series % (sizeof palette / sizeof palette[0])];
        long px = -1, py = -1;
        for (size_t j = i; j < count; j++) {
            if (p[j].kind != p[i].kind || p[j].type != p[i].type || p[j].gbps <= 0) /* not on a log axis */
                continue;
            long x = X(log2((double)p[j].n)), y = Y(p[j].gbps);
            if (px >= 0)
                chart_line(&c, px, py, x, y, 2, colour);
            chart_rect(&c, x - 3, y - 3, x + 4, y + 4, colour);
            px = x, py = y;
        }
        long ly = top + 10 + (long)series * 24;
        chart_rect(&c, left + plot_w + 20, ly, left + plot_w + 40, ly + 12, colour);
        snprintf(label, sizeof label, "%s %s", p[i].kind, workload_type_name(p[i].type));
        chart_text(&c, left + plot_w + 48, ly, label, 2, ink);
        series++;
    }
#undef X
#undef Y
    int ok = cli_image_write_png(path, &c.img, why, sizeof why) == 0;
    if (!ok)
        fprintf(stderr, "clprim bench: %s\n", why);
    cli_image_free(&c.img);
    return ok;
}

enum { OPT_DEVICE, OPT_PRIMITIVES, OPT_TYPES, OPT_MIN, OPT_MAX, OPT_RUNS, OPT_CSV, OPT_PLOT, OPT_LAUNCHES, OPT_LIST };
static const cli_option options[] = {
    [OPT_DEVICE] = {"device", 0, "D", "the OpenCL device (clprim --help)", 0},
    [OPT_PRIMITIVES] = {"primitives", 'p', "a,b", "the primitives to time (default: all)", 0},
    [OPT_TYPES] = {"types", 't', "int32,float", "the element types (default int32,float)", 0},
    [OPT_MIN] = {"min", 0, "N", "the smallest size (default 2^10)", 0},
    [OPT_MAX] = {"max", 0, "N", "the largest size (default 2^28)", 0},
    [OPT_RUNS] = {"runs", 'r', "R", "timed runs after a warm-up, 1 to 256 (default 20)", 0},
    [OPT_CSV] = {"csv", 0, "FILE", "also write every row as CSV", 0},
    [OPT_PLOT] = {"plot", 0, "FILE.png", "draw GB/s against n for each primitive and type as a PNG chart", 0},
    [OPT_LAUNCHES] = {"launches", 0, NULL, "under each row, the kernels of its last run: work-groups, start, end\n    (ms); every launch then carries an event, which adds host time", 0},
    [OPT_LIST] = {"list", 'l', NULL, "print the primitives it can time, one a line, and exit", 0},
};

static const cli_command command = {
    "bench", "",
    "  sizes go from --min to --max by factors of 4, capped by what the device holds;\n"
    "  the median of R runs, beside a copy of the same bytes, a one-thread C loop and\n"
    "  the same loop over every core with OpenMP (vs: the loop's time over libclprim's)\n",
    options, sizeof options / sizeof options[0], NULL, NULL,
};

/* -1 when the options are good, else the exit code (the reason is out). */
static int parse_options(int argc, char **argv, bench_options *o)
{
    *o = (bench_options){NULL, NULL, "int32,float", (size_t)1 << 10, (size_t)1 << 28, 20, NULL, NULL, 0};
    cli_parser p;
    cli_begin(&p, &command, argc, argv);
    for (int opt; (opt = cli_next(&p)) >= 0;) {
        int ok = 1;
        if (opt == OPT_DEVICE)
            o->device = p.value;
        else if (opt == OPT_PRIMITIVES)
            o->primitives = p.value;
        else if (opt == OPT_TYPES)
            o->types = p.value;
        else if (opt == OPT_MIN || opt == OPT_MAX)
            ok = cli_parse_count("bench", opt == OPT_MIN ? "--min" : "--max", p.value, 1, SIZE_MAX,
                                 WORKLOAD_MAX_BYTES_PER_ELEMENT, opt == OPT_MIN ? &o->min_n : &o->max_n);
        else if (opt == OPT_RUNS)
            ok = cli_parse_long("bench", "--runs", p.value, 1, 256, &o->runs);
        else if (opt == OPT_CSV)
            o->csv = p.value;
        else if (opt == OPT_PLOT)
            o->plot = p.value;
        if (!ok)
            return 2;
    }
    const int ended = cli_end(&p, 0);
    if (ended >= 0)
        return ended;
    o->launches = (p.given & (1u << OPT_LAUNCHES)) != 0;
    if (p.given & (1u << OPT_LIST)) {
        for (size_t k = 0; workload_kinds[k]; k++)
            printf("%s\n", workload_kinds[k]->name);
        return 0;
    }
    /* Every name checked now, before anything runs. */
    const char *names[64];
    int count = 0;
    while (count < 64 && (names[count] = workload_type_at((size_t)count)))
        count++;
    if (!cli_check_list("bench", "--types", o->types, names, count))
        return 2;
    for (count = 0; count < 64 && workload_kinds[count]; count++)
        names[count] = workload_kinds[count]->name;
    if (o->primitives && !cli_check_list("bench", "--primitives", o->primitives, names, count))
        return 2;
    if (o->max_n < o->min_n) {
        fprintf(stderr, "clprim bench: --max %zu is below --min %zu\n", o->max_n, o->min_n);
        return 2;
    }
    return -1;
}

int cmd_bench(int argc, char **argv)
{
    bench_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.plot && !cli_want_png("bench", "--plot", o.plot, "chart"))
        return 2;
    if (o.plot && !cli_image_support()) {
        fprintf(stderr, "clprim bench: --plot: built without image support (libstb-dev was not found at build time)\n");
        return 1;
    }
    static bench_point points[MAX_POINTS];
    size_t npoints = 0;
    clprim_context *ctx = cli_open(o.device);
    if (!ctx)
        return 1;
    cli_output csv_file;
    FILE *csv = NULL;
    char why[512];
    if (o.csv) {
        if (cli_output_open(&csv_file, o.csv, why, sizeof why) != 0) {
            fprintf(stderr, "clprim bench: --csv: %s\n", why);
            clprim_release(ctx);
            return 1;
        }
        csv = csv_file.f;
    }
    cl_context cl = clprim_cl_context(ctx);
    cl_ulong max_alloc = 0, global = 0;
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    char device[256] = "", driver[256] = "";
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
    clGetDeviceInfo(clprim_device(ctx), CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clprim_tuning tuning = clprim_get_tuning(ctx);
    printf("libclprim %s bench on %s (driver %s); tuning wg=%zu items=%zu groups=%zu form=%s; "
           "median of %ld runs\n",
           CLPRIM_VERSION_STRING, device, driver, tuning.work_group_size, tuning.items_per_thread, tuning.groups,
           cli_form_name(tuning.form), o.runs);
    int threads = workload_openmp_threads();
    printf("ratio = time / clEnqueueCopyBuffer of the same input bytes; GB/s over the fewest bytes moved\n");
    if (threads > 0)
        printf("vs C loop, vs OpenMP: the loop's time over libclprim's (one thread; %d OpenMP threads; on a CPU "
               "device each run right after a call, the median of the runs' ratios)\n\n",
               threads);
    else
        printf("vs C loop: the loop's time over libclprim's (OpenMP: not built)\n\n");
    printf("%-16s %-7s %11s %11s %9s %8s %11s %11s %11s  %s\n", "primitive", "type", "n", "median ms", "GB/s",
           "ratio", "vs C loop", "OpenMP ms", "vs OpenMP", "check");
    if (csv)
        fprintf(csv, "table,primitive,type,n,median_s,copy_s,gbps,ratio,c_loop_s,openmp_s\n");

    int failures = 0;
    for (const char *t = o.types; *t;) {
        char name[16];
        size_t len = strcspn(t, ",");
        snprintf(name, sizeof name, "%.*s", (int)len, t);
        t += len + (t[len] == ',');
        clprim_type type;
        workload_parse_type(name, &type); /* a known name: parse_options checked the list */
        for (size_t k = 0; workload_kinds[k]; k++) {
            const workload_kind *kind = workload_kinds[k];
            if (!listed(o.primitives, kind->name) || (kind->supports && !kind->supports(type)))
                continue;
            /* n *= 4 stops before it passes --max: it never wraps. */
            for (size_t n = o.min_n; n <= o.max_n; n = n > o.max_n / 4 ? o.max_n + 1 : n * 4) {
                /* Input and output, plus scratch: stay well inside the device
                 * (threshold's three planes of floats are 12 bytes a pixel). */
                size_t bytes = n * WORKLOAD_MAX_BYTES_PER_ELEMENT;
                if (bytes > max_alloc || bytes > global / 3) {
                    if (n == o.min_n) { /* nothing measured: say so, and fail */
                        printf("%-16s %-7s %11zu failed: more than the device holds\n", kind->name, name, n);
                        failures++;
                    }
                    break;
                }
                cli_progress("bench: %s %s n = %zu ...", kind->name, name, n);
                workload w;
                if (!workload_prepare(&w, kind, ctx, type, n)) {
                    cli_progress_clear();
                    failures++;
                    break;
                }
                double copy = 0, loop;
                row_times times = {0};
                clprim_status s = kind->run(&w); /* warm-up, and the result we check */
                char why[256] = "";
                kind->cpu(&w);
                int ok = s == CLPRIM_SUCCESS && workload_fetch(&w) && kind->check(&w, why, sizeof why);
                /* The OpenMP loop's warm-up (its threads start): its result must
                 * pass the same check. */
                int with_openmp = ok && kind->openmp && threads > 0;
                if (with_openmp) {
                    kind->openmp(&w);
                    if (!kind->check(&w, why, sizeof why)) {
                        ok = with_openmp = 0;
                        snprintf(why + strlen(why), sizeof why - strlen(why), " (the OpenMP loop's result)");
                    }
                }
                if (s == CLPRIM_SUCCESS)
                    s = time_row(&w, (int)o.runs, with_openmp, o.launches, &times);
                if (s != CLPRIM_SUCCESS) {
                    cli_progress_clear();
                    printf("%-16s %-7s %11zu failed: %s: %s\n", kind->name, name, n, clprim_status_name(s),
                           clprim_last_error(ctx));
                    failures++;
                    workload_release(&w);
                    break;
                }
                double start = cli_now();
                kind->cpu(&w);
                loop = cli_now() - start;
                const double dev = times.device;
                time_copy(ctx, cl, w.in_bytes, (int)o.runs, &copy);
                cli_progress_clear();
                failures += !ok;
                double gbps = kind->bytes(&w) / dev * 1e-9;
                char openmp_ms[16] = "-", versus[16] = "-";
                if (with_openmp) {
                    snprintf(openmp_ms, sizeof openmp_ms, "%.4f", times.openmp * 1e3);
                    snprintf(versus, sizeof versus, "%.2fx", times.versus);
                }
                printf("%-16s %-7s %11zu %11.4f %9.2f %8.2f %10.1fx %11s %11s  %s%s\n", kind->name, name, n,
                       dev * 1e3, gbps, copy > 0 ? dev / copy : 0.0, loop / dev, openmp_ms, versus,
                       ok ? "ok" : "WRONG: ", why);
                for (size_t i = 0; o.launches && i < times.launches; i++) {
                    const clprim_launch_time *l = &times.launch[i];
                    printf("    %-28s %7zu x %-4zu %9.4f %9.4f ms\n", l->kernel, l->groups, l->local, l->start * 1e3,
                           l->end * 1e3);
                }
                if (npoints < MAX_POINTS)
                    points[npoints++] = (bench_point){kind->name, type, n, gbps};
                if (csv)
                    fprintf(csv, "sweep,%s,%s,%zu,%.9f,%.9f,%.3f,%.4f,%.9f,%.9f\n", kind->name, name, n, dev,
                            copy, gbps, copy > 0 ? dev / copy : 0.0, loop, times.openmp);
                fflush(stdout);
                workload_release(&w);
            }
        }
        startup_table(&o, type, csv);
    }
    if (csv && cli_output_close(&csv_file, why, sizeof why) != 0) {
        fprintf(stderr, "clprim bench: --csv: %s\n", why);
        failures++;
    }
    if (o.plot && draw_plot(o.plot, device, points, npoints))
        printf("\nwrote %s\n", o.plot);
    else if (o.plot)
        failures++;
    clprim_release(ctx);
    if (failures)
        printf("\n%d result(s) WRONG or failed.\n", failures);
    return failures ? 1 : 0;
}
