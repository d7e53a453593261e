/* The long suite's int32 scan, compaction and unique: more than 2^31
 * elements, where a signed 32-bit index would wrap and the by-key calls' run
 * counts pass 31 bits, in the tuning's form ($CLPRIM_TUNING, form=one-sweep
 * or form=multi-pass). Checked in chunks against a pattern the host
 * regenerates, with no host copy of the whole array.
 *   long_scan_compact [DEVICE] [N]      default N = 2^31 + 5. */
#include "clprim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int32_t pattern(uint64_t i)
{
    return (int32_t)((i * 0x9E3779B97F4A7C15ull) >> 60) - 7; /* -7..8 */
}

static int fail(clprim_context *ctx, const char *what, clprim_status s)
{
    printf("FAIL %s: %s: %s\n", what, clprim_status_name(s), clprim_last_error(ctx));
    return 1;
}

/* Keys that all differ from their neighbours: i as int32, which wraps past 2^31. */
static int32_t distinct(uint64_t i)
{
    return (int32_t)(uint32_t)i;
}

/* buf[i] = element(i) for i < n, written a chunk at a time through host. */
static void write_elements(cl_command_queue q, cl_mem buf, uint64_t n, int32_t *host, size_t chunk,
                           int32_t (*element)(uint64_t))
{
    for (uint64_t at = 0; at < n; at += chunk) {
        const size_t len = (size_t)(n - at < chunk ? n - at : chunk);
        for (size_t i = 0; i < len; i++)
            host[i] = element(at + i);
        clEnqueueWriteBuffer(q, buf, CL_TRUE, (size_t)at * 4, len * 4, host, 0, NULL, NULL);
    }
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : NULL;
    const uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : (1ull << 31) + 5;
    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, device);
    if (s != CLPRIM_SUCCESS)
        return fail(NULL, "clprim_create", s);
    const clprim_tuning tuning = clprim_get_tuning(ctx);
    const char *form = tuning.form == CLPRIM_FORM_ONE_SWEEP ? "one-sweep" : "multi-pass";
    cl_context cl = clprim_cl_context(ctx);
    cl_command_queue q = clprim_queue(ctx);
    const size_t chunk = (size_t)1 << 24;
    int32_t *host = malloc(chunk * 4);
    cl_int err, err2;
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)n * 4, NULL, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)n * 4, NULL, &err2);
    if (!host || err != CL_SUCCESS || err2 != CL_SUCCESS) {
        printf("SKIP: cannot allocate 2 x %llu int32 (%d, %d)\n", (unsigned long long)n, (int)err, (int)err2);
        return 77; /* meson's "skipped" */
    }
    int failures = 0;

    /* Exclusive sum scan in place. */
    write_elements(q, buf, n, host, chunk, pattern);
    if ((s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 1, buf, 0, buf, 0, (size_t)n, 0, NULL, NULL)) != CLPRIM_SUCCESS)
        return fail(ctx, "scan", s);
    uint32_t acc = 0;
    for (uint64_t at = 0; at < n && !failures; at += chunk) {
        const size_t len = (size_t)(n - at < chunk ? n - at : chunk);
        clEnqueueReadBuffer(q, buf, CL_TRUE, (size_t)at * 4, len * 4, host, 0, NULL, NULL);
        for (size_t i = 0; i < len; i++) {
            if ((uint32_t)host[i] != acc) {
                printf("FAIL scan (%s): element %llu is %d, expected %d\n", form, (unsigned long long)(at + i),
                       host[i], (int32_t)acc);
                failures++;
                break;
            }
            acc += (uint32_t)pattern(at + i);
        }
    }

    /* Compaction of the positive elements into another buffer. */
    write_elements(q, buf, n, host, chunk, pattern);
    const int32_t zero = 0;
    const clprim_predicate positive = {CLPRIM_KEEP_GT, &zero, NULL, 0, NULL};
    size_t kept = 0;
    if ((s = clprim_compact(ctx, CLPRIM_INT32, &positive, buf, 0, out, 0, (size_t)n, &kept, NULL, 0, 0, NULL,
                            NULL)) != CLPRIM_SUCCESS)
        return fail(ctx, "compact", s);
    uint64_t next = 0, seen = 0; /* the next input index to look at, kept elements checked */
    for (uint64_t at = 0; at < kept && !failures; at += chunk) {
        const size_t len = (size_t)(kept - at < chunk ? kept - at : chunk);
        clEnqueueReadBuffer(q, out, CL_TRUE, (size_t)at * 4, len * 4, host, 0, NULL, NULL);
        for (size_t i = 0; i < len && !failures; i++, seen++) {
            while (next < n && pattern(next) <= 0)
                next++;
            if (next == n || host[i] != pattern(next)) {
                printf("FAIL compact (%s): kept element %llu is %d, expected input %llu\n", form,
                       (unsigned long long)(at + i), host[i], (unsigned long long)next);
                failures++;
            }
            next++;
        }
    }
    while (!failures && next < n)
        if (pattern(next++) > 0) {
            printf("FAIL compact (%s): %llu kept, more positive elements in the input\n", form,
                   (unsigned long long)kept);
            failures++;
        }

    /* Unique of keys that all differ from their neighbours: n runs, more than 2^31. */
    write_elements(q, buf, n, host, chunk, distinct);
    size_t runs = 0;
    if ((s = clprim_unique(ctx, CLPRIM_INT32, buf, 0, (size_t)n, out, 0, &runs, NULL, 0, 0, NULL, NULL)) !=
        CLPRIM_SUCCESS)
        return fail(ctx, "unique", s);
    if (runs != n) {
        printf("FAIL unique (%s): %llu runs, expected %llu\n", form, (unsigned long long)runs, (unsigned long long)n);
        failures++;
    }
    for (uint64_t at = 0; at < n && !failures; at += chunk) {
        const size_t len = (size_t)(n - at < chunk ? n - at : chunk);
        clEnqueueReadBuffer(q, out, CL_TRUE, (size_t)at * 4, len * 4, host, 0, NULL, NULL);
        for (size_t i = 0; i < len; i++)
            if (host[i] != distinct(at + i)) {
                printf("FAIL unique (%s): key %llu is %d\n", form, (unsigned long long)(at + i), host[i]);
                failures++;
                break;
            }
    }
    printf("%s: exclusive scan, compaction (%llu kept) and unique of %llu int32 elements, %s\n",
           failures ? "FAIL" : "ok", (unsigned long long)seen, (unsigned long long)n, form);
    clReleaseMemObject(buf);
    clReleaseMemObject(out);
    free(host);
    clprim_release(ctx);
    return failures ? 1 : 0;
}
