/* Reduce a buffer to one value: the sum, the smallest and the largest of a
 * million floats.
 *
 *   build/examples/reduce
 *
 * clprim_reduce blocks and hands the value to the host; the same buffer serves
 * every operator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>

int main(void)
{
    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }

    const size_t n = 1000000;
    float *data = malloc(n * sizeof *data);
    if (!data)
        return 1;
    for (size_t i = 0; i < n; i++)
        data[i] = sinf((float)i * 0.001f); /* sums to about 1.4 */

    cl_context cl = clprim_cl_context(ctx);
    cl_int err;
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *data, data, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer: %d\n", err);
        return 1;
    }

    float sum, lo, hi;
    if ((s = clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_SUM, buf, 0, n, &sum, 0, NULL)) != CLPRIM_SUCCESS ||
        (s = clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_MIN, buf, 0, n, &lo, 0, NULL)) != CLPRIM_SUCCESS ||
        (s = clprim_reduce(ctx, CLPRIM_FLOAT, CLPRIM_MAX, buf, 0, n, &hi, 0, NULL)) != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_reduce: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
        return 1;
    }

    double check = 0; /* a plain loop, in double, to compare with */
    for (size_t i = 0; i < n; i++)
        check += data[i];
    printf("sum %.6f (a C loop in double: %.6f), min %.6f, max %.6f\n", sum, check, lo, hi);

    clReleaseMemObject(buf);
    clprim_release(ctx);
    free(data);
    return fabs(sum - check) < 1e-2 && lo >= -1 && hi <= 1 ? 0 : 1;
}
