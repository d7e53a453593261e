/* Sorting particles into boxes, as a particle simulation does at every step.
 *
 *   build/examples/boxsort [--large] [--particles N] [--density D] [--device SPEC]
 *
 * A simulation sorts its particles into a regular grid of boxes at every step,
 * so that neighbours are found by looking in a few boxes. clprim_box_sort does
 * it on the device: each particle's box, a stable radix sort of (box id, index),
 * the per-box counts and their exclusive scan (the box starts). The scan splits
 * over kernel launches (no work-group waits on another), so the box count is
 * limited by memory only.
 *
 * For each size, two configurations: uniform (about D particles a box, D = 4
 * by default) and clustered (the same particles in a few dense blobs, so most
 * boxes are empty and a few hold thousands). Each is sorted, checked against a
 * CPU counting sort (same box formula, same order within a box), and timed: the
 * time per step is the median of a few box sorts, data already on the device.
 * Default sizes run from a few thousand particles to two million; --large
 * doubles on up to what the device's memory holds; --particles N runs one size. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clprim.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng_state = 42;
static double uniform01(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

/* The box of a particle, exactly as clprim.h defines it. */
static uint32_t axis(float p, float origin, float inv, size_t dim)
{
    const float f = (p - origin) * inv;
    if (!(f >= 0.0f))
        return 0;
    if (f >= (float)dim)
        return (uint32_t)(dim - 1);
    uint32_t i = (uint32_t)f;
    return i < dim - 1 ? i : (uint32_t)(dim - 1);
}

/* The CPU counting sort: count per box, exclusive scan, stable placement. */
static void counting_sort(const clprim_box_grid *g, const float *pos, size_t n, uint32_t *start, uint32_t *order,
                          uint32_t *id)
{
    const size_t boxes = g->dims[0] * g->dims[1] * g->dims[2];
    const float inv[3] = {1.0f / g->box_size[0], 1.0f / g->box_size[1], 1.0f / g->box_size[2]};
    memset(start, 0, (boxes + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++) {
        const float *p = pos + 3 * i;
        uint32_t ix = axis(p[0], g->origin[0], inv[0], g->dims[0]);
        uint32_t iy = axis(p[1], g->origin[1], inv[1], g->dims[1]);
        uint32_t iz = axis(p[2], g->origin[2], inv[2], g->dims[2]);
        id[i] = (uint32_t)((iz * g->dims[1] + iy) * g->dims[0] + ix);
        start[id[i]]++;
    }
    uint32_t sum = 0;
    for (size_t b = 0; b <= boxes; b++) {
        uint32_t c = start[b];
        start[b] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) /* start[b] runs to the next box's start ... */
        order[start[id[i]]++] = (uint32_t)i;
    for (size_t b = boxes; b > 0; b--) /* ... and is moved back */
        start[b] = start[b - 1];
    start[0] = 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One configuration: generate, sort on the device (timed), check. 0 when right. */
static int run(clprim_context *ctx, cl_context cl, size_t n, double density, int clustered)
{
    /* A cube of boxes of edge 1 holding about `density` particles each. */
    size_t side = (size_t)ceil(cbrt((double)n / density));
    if (side < 1)
        side = 1;
    const clprim_box_grid grid = {{0, 0, 0}, {1, 1, 1}, {side, side, side}};
    const size_t boxes = side * side * side;
    const float extent = (float)side;

    float *pos = malloc(n * 12);
    uint32_t *want_start = malloc((boxes + 1) * 4), *want_order = malloc(n * 4), *ids = malloc(n * 4);
    uint32_t *got_start = malloc((boxes + 1) * 4), *got_order = malloc(n * 4);
    if (!pos || !want_start || !want_order || !ids || !got_start || !got_order) {
        fprintf(stderr, "out of host memory for %zu particles\n", n);
        return 1;
    }
    float blob[8][3];
    for (int b = 0; b < 8; b++)
        for (int a = 0; a < 3; a++)
            blob[b][a] = (float)(uniform01() * extent);
    for (size_t i = 0; i < n; i++) {
        int b = (int)(uniform01() * 8);
        for (int a = 0; a < 3; a++) {
            float v;
            if (!clustered) {
                v = (float)(uniform01() * extent);
            } else { /* a blob of radius about a tenth of the grid */
                double r = (uniform01() + uniform01() + uniform01() - 1.5) * 0.1 * extent;
                v = blob[b][a] + (float)r;
            }
            pos[3 * i + a] = v;
        }
    }

    cl_int err;
    cl_mem p = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 12, pos, &err);
    cl_mem start = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, (boxes + 1) * 4, NULL, &err) : NULL;
    cl_mem order = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err) : NULL;
    cl_mem sorted = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 12, NULL, &err) : NULL;
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer failed (%d) for %zu particles\n", err, n);
        return 1;
    }

    /* A first sort builds the kernels and sizes the scratch; then the timed steps. */
    double times[7];
    const int reps = n > 4000000 ? 3 : 7;
    clprim_status s = CLPRIM_SUCCESS;
    for (int r = -1; r < reps && s == CLPRIM_SUCCESS; r++) {
        double t0 = now();
        s = clprim_box_sort(ctx, &grid, p, 0, n, start, 0, order, 0, sorted, 0, 0, NULL, NULL);
        if (s == CLPRIM_SUCCESS)
            clFinish(clprim_queue(ctx));
        if (r >= 0)
            times[r] = now() - t0;
    }
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_box_sort: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
        return 1;
    }
    qsort(times, (size_t)reps, sizeof times[0], cmp_double);

    double c0 = now();
    counting_sort(&grid, pos, n, want_start, want_order, ids);
    double cpu = now() - c0;

    clEnqueueReadBuffer(clprim_queue(ctx), start, CL_TRUE, 0, (boxes + 1) * 4, got_start, 0, NULL, NULL);
    clEnqueueReadBuffer(clprim_queue(ctx), order, CL_TRUE, 0, n * 4, got_order, 0, NULL, NULL);
    int ok = !memcmp(got_start, want_start, (boxes + 1) * 4) && !memcmp(got_order, want_order, n * 4);
    size_t empty = 0, fullest = 0;
    for (size_t b = 0; b < boxes; b++) {
        size_t c = want_start[b + 1] - want_start[b];
        empty += c == 0;
        fullest = c > fullest ? c : fullest;
    }
    printf("%10zu %10zu  %-9s %8.1f%% %8zu %12.3f %12.3f %9.1f  %s\n", n, boxes,
           clustered ? "clustered" : "uniform", 100.0 * (double)empty / (double)boxes, fullest, times[reps / 2] * 1e3,
           cpu * 1e3, (double)n / times[reps / 2] * 1e-6, ok ? "ok" : "WRONG");

    clReleaseMemObject(p);
    clReleaseMemObject(start);
    clReleaseMemObject(order);
    clReleaseMemObject(sorted);
    free(pos);
    free(want_start);
    free(want_order);
    free(ids);
    free(got_start);
    free(got_order);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int large = 0, bad = 0;
    size_t only = 0;
    double density = 4;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--large")) {
            large = 1;
        } else if (!strcmp(argv[i], "--particles") && i + 1 < argc) {
            only = strtoull(argv[++i], NULL, 10);
            bad |= only == 0;
        } else if (!strcmp(argv[i], "--density") && i + 1 < argc) {
            density = strtod(argv[++i], NULL);
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: boxsort [--large] [--particles N] [--density D] [--device SPEC]\n");
            return 2;
        }
    }
    if (bad || !(density > 0)) {
        fprintf(stderr, "boxsort: --particles wants N > 0, --density D > 0\n");
        return 2;
    }

    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, device);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    cl_device_id dev = clprim_device(ctx);
    char name[256] = "";
    cl_ulong global_mem = 0, max_alloc = 0;
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global_mem, &global_mem, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    cl_context cl = clprim_cl_context(ctx);

    /* Device bytes a particle: positions and sorted positions 24, order 4, the
     * sort's scratch 16 (one allocation: it must fit in max_alloc), box starts
     * about 4 / density. The largest size keeps a fifth of the memory spare. */
    const double per_particle = 44 + 4 / density;
    size_t limit = (size_t)((double)global_mem * 0.8 / per_particle);
    if (limit > max_alloc / 17)
        limit = (size_t)(max_alloc / 17);
    cl_device_type type = 0;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (type & CL_DEVICE_TYPE_CPU) /* the host's copies for the check share the same memory */
        limit /= 2;
    if (limit > 0xFFFFFFFFu)
        limit = 0xFFFFFFFFu;

    printf("box sort on %s (%.0f MiB, largest allocation %.0f MiB: up to %zu particles)\n", name,
           (double)global_mem / 1048576.0, (double)max_alloc / 1048576.0, limit);
    printf("%10s %10s  %-9s %9s %8s %12s %12s %9s\n", "particles", "boxes", "layout", "empty", "fullest",
           "ms / step", "CPU sort ms", "M/s");
    int failures = 0;
    size_t sizes[64], count = 0;
    if (only) {
        sizes[count++] = only;
    } else {
        const size_t top = large ? limit : (size_t)2 << 20;
        for (size_t n = 4099; n <= top && count < 63; n = n * 4 > top && n < top ? top : n * 4)
            sizes[count++] = n;
    }
    for (size_t i = 0; i < count; i++) {
        if (sizes[i] > limit)
            fprintf(stderr, "note: %zu particles may not fit in the device's memory\n", sizes[i]);
        failures += run(ctx, cl, sizes[i], density, 0);
        failures += run(ctx, cl, sizes[i], density, 1);
    }
    printf("\nms / step: median wall time of clprim_box_sort (positions already on the device, box\n"
           "starts, order and sorted positions written); CPU sort: one counting sort in C, the check.\n");
    clprim_release(ctx);
    return failures ? 1 : 0;
}
