/* Scan a buffer: the running total of an array, on whatever OpenCL device is there.
 *
 *   build/examples/scan
 *
 * Everything libclprim does takes cl_mem buffers; this is the smallest whole
 * program: make a context, put data in a buffer, call, read the result back. */
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>

int main(void)
{
    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL); /* $CLPRIM_DEVICE, else a GPU, else any device */
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }

    cl_int values[10] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
    const size_t n = sizeof values / sizeof values[0];
    cl_context cl = clprim_cl_context(ctx);
    cl_int err;
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof values, values, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer: %d\n", err);
        clprim_release(ctx);
        return 1;
    }

    /* Inclusive sum, in place (src == dst): buf[i] = values[0] + ... + values[i].
     * The call only enqueues; the blocking read below waits for it. */
    s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, /* exclusive */ 0, buf, 0, buf, 0, n, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_scan: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
        return 1;
    }
    cl_int sums[10];
    clEnqueueReadBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, sizeof sums, sums, 0, NULL, NULL);

    int ok = 1;
    cl_int total = 0;
    for (size_t i = 0; i < n; i++) {
        total += values[i];
        ok &= sums[i] == total;
        printf("%2d -> %3d\n", values[i], sums[i]);
    }
    clReleaseMemObject(buf);
    clprim_release(ctx);
    return ok ? 0 : 1;
}
