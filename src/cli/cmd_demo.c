/* `clprim demo`: every primitive once on the default device over generated data,
 * each checked against a one-thread C loop, in one table. */
#include "commands.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const char *device = NULL;
    size_t n = (size_t)1 << 24;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: clprim demo [--device SPEC] [--n ELEMENTS]\n");
            return 2;
        }
    }
    if (n == 0) {
        fprintf(stderr, "clprim demo: --n must be a positive number\n");
        return 2;
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
        if (!workload_prepare(&w, kind, ctx, CLPRIM_INT32, n)) {
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
    printf("\n%s\n", failures ? "Some results were WRONG." : "Every result matches the CPU.");
    clprim_release(ctx);
    return failures ? 1 : 0;
}
