/* `clprim bench`: every primitive over a sweep of sizes, timed with OpenCL
 * profiling events (median of repeated runs after a warm-up), beside a
 * clEnqueueCopyBuffer of the same input bytes timed in the same run, and a
 * one-thread C loop. Every timed result is checked once against the C loop. */
#include "commands.h"
#include "internal.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *device;
    const char *primitives; /* comma-separated workload names, NULL for all */
    const char *types;      /* comma-separated */
    size_t min_n, max_n;
    int runs;
    const char *csv;
} bench_options;

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

/* Median device time of the workload's call, from its first kernel to its last. */
static clprim_status time_workload(workload *w, int runs, double *seconds)
{
    double t[256];
    for (int i = 0; i < runs; i++) {
        clprim_profile_begin(w->ctx);
        clprim_status s = w->kind->run(w);
        clprim_status p = clprim_profile_end(w->ctx, &t[i]);
        if (s != CLPRIM_SUCCESS)
            return s;
        if (p != CLPRIM_SUCCESS)
            return p;
    }
    *seconds = median(t, runs);
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

static int parse_options(int argc, char **argv, bench_options *o)
{
    *o = (bench_options){NULL, NULL, "int32,float", (size_t)1 << 10, (size_t)1 << 28, 20, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return 0;
        i++;
        if (!strcmp(a, "--device"))
            o->device = v;
        else if (!strcmp(a, "--primitives"))
            o->primitives = v;
        else if (!strcmp(a, "--types"))
            o->types = v;
        else if (!strcmp(a, "--min"))
            o->min_n = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--max"))
            o->max_n = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--runs"))
            o->runs = atoi(v);
        else if (!strcmp(a, "--csv"))
            o->csv = v;
        else
            return 0;
    }
    return o->min_n > 0 && o->max_n >= o->min_n && o->runs > 0 && o->runs <= 256;
}

int cmd_bench(int argc, char **argv)
{
    bench_options o;
    if (!parse_options(argc, argv, &o)) {
        fprintf(stderr, "usage: clprim bench [--device D] [--primitives a,b] [--types int32,float]\n"
                        "                    [--min N] [--max N] [--runs R] [--csv FILE]\n"
                        "sizes go from --min to --max (default 2^10..2^28) by factors of 4, capped\n"
                        "by what the device holds; R runs (default 20, at most 256) after a warm-up.\n");
        return 2;
    }
    clprim_context *ctx = cli_open(o.device);
    if (!ctx)
        return 1;
    FILE *csv = NULL;
    if (o.csv && !(csv = fopen(o.csv, "w"))) {
        perror(o.csv);
        clprim_release(ctx);
        return 1;
    }
    cl_context cl;
    clGetCommandQueueInfo(clprim_queue(ctx), CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    cl_ulong max_alloc = 0, global = 0;
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    char device[256] = "", driver[256] = "";
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
    clGetDeviceInfo(clprim_device(ctx), CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clprim_tuning tuning = clprim_get_tuning(ctx);
    printf("libclprim %s bench on %s (driver %s); tuning wg=%zu items=%zu groups=%zu; median of %d runs\n",
           CLPRIM_VERSION_STRING, device, driver, tuning.work_group_size, tuning.items_per_thread, tuning.groups,
           o.runs);
    printf("ratio = time / clEnqueueCopyBuffer of the same input bytes; GB/s over the fewest bytes moved\n\n");
    printf("%-16s %-7s %11s %11s %9s %8s %11s  %s\n", "primitive", "type", "n", "median ms", "GB/s",
           "ratio", "vs C loop", "check");
    if (csv)
        fprintf(csv, "table,primitive,type,n,median_s,copy_s,gbps,ratio,c_loop_s\n");

    int failures = 0;
    for (const char *t = o.types; *t;) {
        char name[16];
        size_t len = strcspn(t, ",");
        snprintf(name, sizeof name, "%.*s", (int)len, t);
        t += len + (t[len] == ',');
        clprim_type type;
        if (!workload_parse_type(name, &type)) {
            fprintf(stderr, "clprim bench: unknown type \"%s\"\n", name);
            failures++;
            continue;
        }
        for (size_t k = 0; workload_kinds[k]; k++) {
            const workload_kind *kind = workload_kinds[k];
            if (!listed(o.primitives, kind->name) || (kind->supports && !kind->supports(type)))
                continue;
            for (size_t n = o.min_n; n <= o.max_n; n *= 4) {
                /* Input and output, plus scratch: stay well inside the device
                 * (threshold's three planes of floats are 12 bytes a pixel). */
                size_t bytes = n * 12;
                if (bytes > max_alloc || 3 * bytes > global)
                    break;
                workload w;
                if (!workload_prepare(&w, kind, ctx, type, n)) {
                    failures++;
                    break;
                }
                double dev = 0, copy = 0, loop;
                clprim_status s = kind->run(&w); /* warm-up, and the result we check */
                char why[256] = "";
                kind->cpu(&w);
                int ok = s == CLPRIM_SUCCESS && workload_fetch(&w) && kind->check(&w, why, sizeof why);
                if (s == CLPRIM_SUCCESS)
                    s = time_workload(&w, o.runs, &dev);
                if (s != CLPRIM_SUCCESS) {
                    printf("%-16s %-7s %11zu failed: %s: %s\n", kind->name, name, n, clprim_status_name(s),
                           clprim_last_error(ctx));
                    failures++;
                    workload_release(&w);
                    break;
                }
                double start = cli_now();
                kind->cpu(&w);
                loop = cli_now() - start;
                time_copy(ctx, cl, w.in_bytes, o.runs, &copy);
                failures += !ok;
                double gbps = kind->bytes(&w) / dev * 1e-9;
                printf("%-16s %-7s %11zu %11.4f %9.2f %8.2f %10.1fx  %s%s\n", kind->name, name, n, dev * 1e3, gbps,
                       copy > 0 ? dev / copy : 0.0, loop / dev, ok ? "ok" : "WRONG: ", why);
                if (csv)
                    fprintf(csv, "sweep,%s,%s,%zu,%.9f,%.9f,%.3f,%.4f,%.9f\n", kind->name, name, n, dev, copy,
                            gbps, copy > 0 ? dev / copy : 0.0, loop);
                fflush(stdout);
                workload_release(&w);
            }
        }
        startup_table(&o, type, csv);
    }
    if (csv)
        fclose(csv);
    clprim_release(ctx);
    if (failures)
        printf("\n%d result(s) WRONG or failed.\n", failures);
    return failures ? 1 : 0;
}
