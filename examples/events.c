/* A primitive fed by your own queue: events instead of clFinish.
 *
 *   build/examples/events [N]      (N elements, default 1000000)
 *
 * Your program has its own queue on libclprim's cl_context (or libclprim has
 * yours: clprim_create_with_queue). Here that queue uploads the data without
 * blocking; clprim_scan takes the upload's event in its wait list, so the scan
 * starts only once the data is there, and hands back an event of its own,
 * which the same queue waits on to read the result. Nothing in between blocks
 * the host. The result is checked against a C loop. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    if (n == 0) {
        fprintf(stderr, "usage: events [N]   (N >= 1 elements)\n");
        return 2;
    }
    cl_uint *host = malloc(n * sizeof *host), *sums = malloc(n * sizeof *sums);
    if (!host || !sums)
        return 1;
    for (size_t i = 0; i < n; i++)
        host[i] = (cl_uint)(i % 10);

    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    cl_int err;
    cl_context cl = clprim_cl_context(ctx);
    cl_command_queue mine = clCreateCommandQueue(cl, clprim_device(ctx), 0, &err); /* your queue */
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY, n * sizeof *host, NULL, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof *sums, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "OpenCL error %d\n", err);
        return 1;
    }

    /* The upload, not blocking; flushed, since another queue is to wait on it. */
    cl_event uploaded, scanned;
    clEnqueueWriteBuffer(mine, in, CL_FALSE, 0, n * sizeof *host, host, 0, NULL, &uploaded);
    clFlush(mine);
    /* The inclusive scan waits for the upload (a wait list of one event). */
    s = clprim_scan(ctx, CLPRIM_UINT32, CLPRIM_SUM, 0, in, 0, out, 0, n, 1, &uploaded, &scanned);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_scan: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
        return 1;
    }
    /* Your queue reads the result once the scan's event completes; libclprim's
     * queue is flushed first for the same reason as yours. */
    clFlush(clprim_queue(ctx));
    err = clEnqueueReadBuffer(mine, out, CL_TRUE, 0, n * sizeof *sums, sums, 1, &scanned, NULL);

    cl_uint total = 0;
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        total += host[i];
        wrong += sums[i] != total;
    }
    const int ok = err == CL_SUCCESS && wrong == 0;
    printf("%zu elements uploaded on your queue, scanned after its event: the total is %u (%s the C loop)\n", n,
           sums[n - 1], ok ? "as" : "NOT as");

    clReleaseEvent(uploaded);
    clReleaseEvent(scanned);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseCommandQueue(mine);
    clprim_release(ctx);
    free(host);
    free(sums);
    return ok ? 0 : 1;
}
