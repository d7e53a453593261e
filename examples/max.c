/* The maximum of a float array, with libclprim.
 *
 *   build/examples/max [N]        (N floats, default 4194304)
 *
 * A common first GPU version reduces each block to its maximum on the GPU and
 * finishes the block maxima on the host with a loop like sequential_max below.
 * clprim_reduce(CLPRIM_MAX) does every level on the device (one partial per
 * work-group, then one work-group over the partials) and hands back one float.
 * It is timed here beside that sequential loop over the whole array.
 *
 * NaN: CLPRIM_MAX ignores NaN the way fmax does (a NaN loses to any number), so
 * the device result is the maximum of the numbers; an array of NaNs only gives
 * NaN, and an empty one -infinity. The sequential loop,
 * `if (vmax < vals[i]) vmax = vals[i]`, also skips a NaN inside the array (the
 * comparison is false) but returns NaN when vals[0] is NaN, since then every
 * comparison is false. A loop of fmaxf from the first element matches the
 * device exactly, and is what the result is checked against; negative-only
 * inputs work because nothing starts from 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clprim.h>

/* The usual sequential loop (for nbr >= 1). */
static float sequential_max(const float *vals, size_t nbr)
{
    float vmax = vals[0];
    for (size_t i = 1; i < nbr; i++)
        if (vmax < vals[i])
            vmax = vals[i];
    return vmax;
}

/* What CLPRIM_MAX computes: fmax over the array, -infinity when empty. */
static float fmax_loop(const float *vals, size_t n)
{
    float m = n ? vals[0] : -INFINITY;
    for (size_t i = 1; i < n; i++)
        m = fmaxf(m, vals[i]);
    return m;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int same(float a, float b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 22;
    if (n < 2) {
        fprintf(stderr, "usage: max [N]   (N >= 2 floats)\n");
        return 2;
    }
    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    char device[256] = "";
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
    cl_context cl = clprim_cl_context(ctx);

    float *data = malloc(n * sizeof *data);
    if (!data)
        return 1;
    cl_int err;
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_ONLY, n * sizeof *data, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer of %zu floats: %d\n", n, err);
        return 1;
    }
    printf("max of %zu floats on %s\n\n", n, device);
    printf("%-22s %14s %14s %14s %12s %12s %12s\n", "input", "clprim_reduce", "sequential_max", "fmaxf loop",
           "copy in ms", "device ms", "CPU ms");

    static const char *const cases[] = {"uniform [-1000, 1000)", "negative only", "NaN here and there",
                                        "NaN first", "all NaN", "one +inf"};
    int failures = 0;
    unsigned seed = 12345;
    for (int c = 0; c < 6; c++) {
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            float u = (float)(seed >> 8) / 16777216.0f; /* [0, 1) */
            data[i] = c == 1 ? -1.0f - 1000.0f * u : -1000.0f + 2000.0f * u;
        }
        if (c == 2)
            for (size_t i = 1; i < n; i += 997)
                data[i] = NAN;
        if (c == 3)
            data[0] = NAN;
        if (c == 4)
            for (size_t i = 0; i < n; i++)
                data[i] = NAN;
        if (c == 5)
            data[n / 3] = INFINITY;

        double t0 = now();
        err = clEnqueueWriteBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, n * sizeof *data, data, 0, NULL, NULL);
        double t1 = now();
        float device_max = 0;
        if (err == CL_SUCCESS && c == 0) /* the first call builds the kernel: keep it out of the timing */
            s = clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_MAX, buf, 0, n, &device_max, 0, NULL);
        double best = 1e30;
        for (int r = 0; r < 5 && err == CL_SUCCESS && s == CLPRIM_SUCCESS; r++) {
            double a = now();
            s = clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_MAX, buf, 0, n, &device_max, 0, NULL);
            double b = now() - a;
            best = b < best ? b : best;
        }
        if (err != CL_SUCCESS || s != CLPRIM_SUCCESS) {
            fprintf(stderr, "%s: %s\n", err != CL_SUCCESS ? "clEnqueueWriteBuffer" : clprim_status_name(s),
                    err != CL_SUCCESS ? "failed" : clprim_last_error(ctx));
            return 1;
        }
        double c0 = now();
        float sequential = sequential_max(data, n);
        double cpu = now() - c0;
        float want = fmax_loop(data, n);
        int ok = same(device_max, want);
        failures += !ok;
        printf("%-22s %14g %14g %14g %12.3f %12.3f %12.3f%s\n", cases[c], device_max, sequential, want,
               (t1 - t0) * 1e3, best * 1e3, cpu * 1e3, ok ? "" : "   MISMATCH");
    }

    /* The empty array: -infinity, without touching the device. */
    float empty = 0;
    s = clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_MAX, buf, 0, 0, &empty, 0, NULL);
    printf("%-22s %14g %14s %14g\n", "empty (n = 0)", empty, "-", fmax_loop(data, 0));
    failures += s != CLPRIM_SUCCESS || empty != -INFINITY;

    printf("\ndevice ms: clprim_reduce with the data already on the device, best of 5, the\n"
           "value back on the host; copy in ms: the host-to-device copy any GPU version pays.\n"
           "NaN is ignored like fmax: the sequential loop agrees unless vals[0] is NaN and a number follows.\n");
    clReleaseMemObject(buf);
    clprim_release(ctx);
    free(data);
    if (failures)
        fprintf(stderr, "%d case(s) differ from the fmaxf loop\n", failures);
    return failures ? 1 : 0;
}
