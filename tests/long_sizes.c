/* The long suite: scan and reduce over more than 2^32 elements, where 32-bit
 * indices would wrap. Plain C with no Check, so it also runs on machines that
 * only have the library (the GPU runs in BENCHMARKS.md).
 *   long_sizes [DEVICE] [N]      default N = 2^32 + 3, uint8 elements, in place. */
#include "clprim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A pattern the host can regenerate in any chunk: no host copy of the input. */
static uint8_t pattern(uint64_t i)
{
    return (uint8_t)((i * 0x9E3779B97F4A7C15ull) >> 59) + 1; /* 1..32 */
}

static int fail(clprim_context *ctx, const char *what, clprim_status s)
{
    printf("FAIL %s: %s: %s\n", what, clprim_status_name(s), clprim_last_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : NULL;
    uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : (1ull << 32) + 3;
    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, device);
    if (s != CLPRIM_SUCCESS)
        return fail(NULL, "clprim_create", s);
    cl_context cl = clprim_cl_context(ctx);
    cl_command_queue q = clprim_queue(ctx);
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    if (max_alloc < n) {
        /* Exit code 77: meson's "skipped", not a pass. */
        printf("SKIP: the device allocates at most %llu bytes, %llu needed\n", (unsigned long long)max_alloc,
               (unsigned long long)n);
        clprim_release(ctx);
        return 77;
    }

    size_t chunk = (size_t)1 << 26;
    uint8_t *host = malloc(chunk);
    cl_int err;
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)n, NULL, &err);
    if (!host || err != CL_SUCCESS) {
        printf("SKIP: cannot allocate %llu bytes (%d)\n", (unsigned long long)n, (int)err);
        return 77;
    }
    for (uint64_t at = 0; at < n; at += chunk) {
        size_t len = (size_t)(n - at < chunk ? n - at : chunk);
        for (size_t i = 0; i < len; i++)
            host[i] = pattern(at + i);
        if (at + len == n)
            host[len - 1] = 255; /* the maximum sits past 2^32 */
        clEnqueueWriteBuffer(q, buf, CL_TRUE, (size_t)at, len, host, 0, NULL, NULL);
    }

    int failures = 0;
    uint8_t max = 0, sum = 0, expect_sum = 0;
    if ((s = clprim_reduce(ctx, CLPRIM_UINT8, CLPRIM_MAX, buf, 0, (size_t)n, &max, 0, NULL)) != CLPRIM_SUCCESS)
        return fail(ctx, "reduce max", s);
    if ((s = clprim_reduce(ctx, CLPRIM_UINT8, CLPRIM_SUM, buf, 0, (size_t)n, &sum, 0, NULL)) != CLPRIM_SUCCESS)
        return fail(ctx, "reduce sum", s);
    for (uint64_t i = 0; i + 1 < n; i++)
        expect_sum = (uint8_t)(expect_sum + pattern(i));
    expect_sum = (uint8_t)(expect_sum + 255);
    if (max != 255 || sum != expect_sum) {
        printf("FAIL reduce over %llu elements: max %u (expected 255), sum %u (expected %u)\n",
               (unsigned long long)n, max, sum, expect_sum);
        failures++;
    }

    /* Inclusive sum scan in place, checked chunk by chunk against the pattern. */
    if ((s = clprim_scan(ctx, CLPRIM_UINT8, CLPRIM_SUM, 0, buf, 0, buf, 0, (size_t)n, 0, NULL, NULL)) != CLPRIM_SUCCESS)
        return fail(ctx, "scan", s);
    uint8_t acc = 0;
    for (uint64_t at = 0; at < n && !failures; at += chunk) {
        size_t len = (size_t)(n - at < chunk ? n - at : chunk);
        clEnqueueReadBuffer(q, buf, CL_TRUE, (size_t)at, len, host, 0, NULL, NULL);
        for (size_t i = 0; i < len; i++) {
            acc = (uint8_t)(acc + (at + i + 1 == n ? 255 : pattern(at + i)));
            if (host[i] != acc) {
                printf("FAIL scan: element %llu is %u, expected %u\n", (unsigned long long)(at + i), host[i],
                       acc);
                failures++;
                break;
            }
        }
    }
    printf("%s: scan and reduce of %llu uint8 elements\n", failures ? "FAIL" : "ok", (unsigned long long)n);
    clReleaseMemObject(buf);
    free(host);
    clprim_release(ctx);
    return failures ? 1 : 0;
}
