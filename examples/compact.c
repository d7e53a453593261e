/* Keep the elements that pass a test of your own: compaction by an expression.
 *
 *   build/examples/compact [N]      (N readings, default 200000)
 *
 * A temperature log with NaN where a reading failed. clprim_compact keeps, in
 * their input order, the elements for which an OpenCL C expression over the
 * element x and its index i is true: here the valid readings outside the
 * 15..25 degree band, after the first 1000 (the sensor's warm-up). The library
 * parses the expression (a bad one is refused with the token and its
 * position) and compiles it once. The kept readings are checked against the
 * same test written as a C loop. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clprim.h>

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
    if (n == 0) {
        fprintf(stderr, "usage: compact [N]   (N >= 1 readings)\n");
        return 2;
    }
    float *reading = malloc(n * sizeof *reading), *kept = malloc(n * sizeof *kept), *want = malloc(n * sizeof *want);
    if (!reading || !kept || !want)
        return 1;
    uint32_t state = 3;
    for (size_t i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        reading[i] = state % 97 == 0 ? NAN : 20.0f + 8.0f * sinf((float)i * 1e-3f) + (float)(state >> 24) / 64.0f - 2.0f;
    }

    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    cl_int err;
    cl_context cl = clprim_cl_context(ctx);
    cl_mem src = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *reading, reading, &err);
    cl_mem dst = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof *kept, NULL, &err);

    clprim_predicate keep = {CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0,
                             "isfinite(x) && fabs(x - 20.0f) > 5.0f && i >= 1000"};
    size_t count = 0; /* &count: the call blocks until the kept count is known */
    s = clprim_compact(ctx, CLPRIM_FLOAT, &keep, src, 0, dst, 0, n, &count, NULL, 0, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS)
        fprintf(stderr, "clprim_compact: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
    else
        clEnqueueReadBuffer(clprim_queue(ctx), dst, CL_TRUE, 0, count * sizeof *kept, kept, 0, NULL, NULL);

    size_t expected = 0; /* the same test in C, in the same order */
    for (size_t i = 0; i < n; i++)
        if (isfinite(reading[i]) && fabsf(reading[i] - 20.0f) > 5.0f && i >= 1000)
            want[expected++] = reading[i];
    const int ok = s == CLPRIM_SUCCESS && count == expected && memcmp(kept, want, count * sizeof *kept) == 0;
    printf("%zu readings, %zu outside 15..25 degrees kept in order (%s the C loop)\n", n, count, ok ? "as" : "NOT as");

    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clprim_release(ctx);
    free(reading);
    free(kept);
    free(want);
    return ok ? 0 : 1;
}
