/* The long suite's sort: more than 2^28 keys, so that the one-sweep form runs
 * in several portions and carries digit places from one to the next. Both
 * forms; the output is checked in chunks (sorted, and the same keys: equal
 * counts of every top 16 bits), with no host copy of the whole input.
 *   long_sort [DEVICE] [N]      default N = 2^28 + 2^20 + 5, uint32 keys. */
#include "clprim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys the host can regenerate in any chunk. */
static uint32_t key_at(uint64_t i)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    return (uint32_t)(x * 0xBF58476D1CE4E5B9ull >> 32);
}

static int fail(clprim_context *ctx, const char *what, clprim_status s)
{
    printf("FAIL %s: %s: %s\n", what, clprim_status_name(s), clprim_last_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : NULL;
    const uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : (1ull << 28) + (1ull << 20) + 5;
    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, device);
    if (s != CLPRIM_SUCCESS)
        return fail(NULL, "clprim_create", s);
    cl_context cl = clprim_cl_context(ctx);
    cl_command_queue q = clprim_queue(ctx);
    const size_t chunk = (size_t)1 << 24;
    uint32_t *host = malloc(chunk * 4);
    uint64_t *want = calloc(65536, 8), *got = calloc(65536, 8);
    cl_int err, err2;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)n * 4, NULL, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)n * 4, NULL, &err2);
    if (!host || !want || !got || err != CL_SUCCESS || err2 != CL_SUCCESS) {
        printf("SKIP: cannot allocate two buffers of %llu bytes\n", (unsigned long long)n * 4);
        return 77;
    }
    for (uint64_t at = 0; at < n; at += chunk) {
        const size_t len = (size_t)(n - at < chunk ? n - at : chunk);
        for (size_t i = 0; i < len; i++) {
            host[i] = key_at(at + i);
            want[host[i] >> 16]++;
        }
        clEnqueueWriteBuffer(q, in, CL_TRUE, (size_t)at * 4, len * 4, host, 0, NULL, NULL);
    }

    int failures = 0;
    const clprim_form forms[] = {CLPRIM_FORM_MULTI_PASS, CLPRIM_FORM_ONE_SWEEP};
    for (int f = 0; f < 2; f++) {
        clprim_tuning t = clprim_get_tuning(ctx);
        t.form = forms[f];
        const char *name = f ? "one-sweep" : "multi-pass";
        s = clprim_set_tuning(ctx, &t);
        if (s == CLPRIM_SUCCESS)
            s = clprim_sort_keys(ctx, CLPRIM_UINT32, NULL, in, 0, out, 0, (size_t)n, 0, NULL, NULL);
        if (s != CLPRIM_SUCCESS) {
            failures += fail(ctx, name, s);
            continue;
        }
        memset(got, 0, 65536 * 8);
        uint32_t last = 0;
        uint64_t unsorted = 0;
        for (uint64_t at = 0; at < n; at += chunk) {
            const size_t len = (size_t)(n - at < chunk ? n - at : chunk);
            clEnqueueReadBuffer(q, out, CL_TRUE, (size_t)at * 4, len * 4, host, 0, NULL, NULL);
            for (size_t i = 0; i < len; i++) {
                unsorted += host[i] < last;
                last = host[i];
                got[host[i] >> 16]++;
            }
        }
        const int same = memcmp(got, want, 65536 * 8) == 0;
        printf("%s: %llu keys, %llu out of order, %s\n", name, (unsigned long long)n, (unsigned long long)unsorted,
               same ? "the same keys" : "NOT the same keys");
        failures += unsorted != 0 || !same;
    }
    free(host);
    free(want);
    free(got);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clprim_release(ctx);
    printf("%s\n", failures ? "FAIL" : "ok");
    return failures != 0;
}
