/* One small clprim_histogram_range, checked against a C loop, for running
 * under oclgrind (tests/oclgrind.sh). The tuning comes from $CLPRIM_TUNING; the
 * device from $CLPRIM_OCLGRIND_DEVICE, default "oclgrind".
 *
 *   oclgrind_histogram_range TYPE BINS N [accumulate] [global] [unsorted]
 *     edges -12 + b * 56 / BINS + b (b = 0 .. BINS), scaled like the data
 *     (small values; floats have a NaN at element 0). global: the global-atomic
 *     path, forced through the plan. unsorted: the inner edges reversed, so the
 *     counts are unspecified: only no more than N may be counted, and nothing
 *     outside the bins written (oclgrind reports any access out of bounds).
 *
 * The input sits at an offset of 3 elements, the edges at 2, the counts at 1,
 * each with 2 more after them, all checked untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim.h"
#include "internal.h"
#include "reference.h"

static int fail(const char *what)
{
    fprintf(stderr, "oclgrind_histogram_range: %s\n", what);
    return 1;
}

/* v (a small integer) as an element of t, scaled as the data is. */
static void store(clprim_type t, int v, void *out)
{
    switch (t) {
    case CLPRIM_INT32: { int32_t x = v; memcpy(out, &x, 4); break; }
    case CLPRIM_UINT32: { uint32_t x = (uint32_t)(v + 16); memcpy(out, &x, 4); break; }
    case CLPRIM_INT64: { int64_t x = v; memcpy(out, &x, 8); break; }
    case CLPRIM_UINT64: { uint64_t x = (uint64_t)(v + 16); memcpy(out, &x, 8); break; }
    case CLPRIM_UINT8: { uint8_t x = (uint8_t)((v + 16) * 2); memcpy(out, &x, 1); break; }
    case CLPRIM_FLOAT: { float x = (float)v * 0.75f; memcpy(out, &x, 4); break; }
    case CLPRIM_DOUBLE: { double x = (double)v * 0.625; memcpy(out, &x, 8); break; }
    }
}

/* An element as a double: exact for the small values here. */
static double value_of(clprim_type t, const unsigned char *p)
{
    switch (t) {
    case CLPRIM_INT32: { int32_t x; memcpy(&x, p, 4); return x; }
    case CLPRIM_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case CLPRIM_INT64: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    case CLPRIM_UINT64: { uint64_t x; memcpy(&x, p, 8); return (double)x; }
    case CLPRIM_UINT8: return *p;
    case CLPRIM_FLOAT: { float x; memcpy(&x, p, 4); return x; }
    case CLPRIM_DOUBLE: { double x; memcpy(&x, p, 8); return x; }
    }
    return NAN;
}

int main(int argc, char **argv)
{
    clprim_type t;
    if (argc < 4 || !reference_type_from_name(argv[1], &t))
        return fail("usage: oclgrind_histogram_range TYPE BINS N [accumulate] [global] [unsorted]");
    const size_t bins = strtoull(argv[2], NULL, 10), n = strtoull(argv[3], NULL, 10);
    int accumulate = 0, global = 0, unsorted = 0;
    for (int a = 4; a < argc; a++) {
        if (!strcmp(argv[a], "accumulate"))
            accumulate = 1;
        else if (!strcmp(argv[a], "global"))
            global = 1;
        else if (!strcmp(argv[a], "unsorted"))
            unsorted = 1;
        else
            return fail("options: accumulate, global, unsorted");
    }
    if (bins == 0 || bins > 60)
        return fail("BINS: 1 .. 60");
    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec && *spec ? spec : "oclgrind");
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "oclgrind_histogram_range: clprim_create: %s: %s\n", clprim_status_name(s),
                clprim_last_error(NULL));
        return 1;
    }
    clprim_tuning tuning = clprim_get_tuning(ctx);
    printf("histogram_range %s bins=%zu n=%zu%s%s%s on %s, wg=%zu items=%zu groups=%zu\n", argv[1], bins, n,
           accumulate ? " accumulate" : "", global ? " global" : "", unsorted ? " unsorted" : "", ctx->device_name,
           tuning.work_group_size, tuning.items_per_thread, tuning.groups);

    const size_t es = reference_type_size(t), len = 3 + n + 2, elen = 2 + bins + 1 + 2, clen = 1 + bins + 2;
    unsigned char *src = calloc(len, es), *edges = calloc(elen, es);
    uint32_t *init = malloc(clen * 4), *got = malloc(clen * 4), *want = malloc(clen * 4);
    if (!src || !edges || !init || !got || !want)
        return fail("out of memory");
    uint64_t seed = 4242 + n;
    for (size_t i = 0; i < len; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        store(t, (int)(seed >> 58) - 16, src + i * es); /* [-16, 48) */
    }
    if (reference_type_is_float(t) && n > 0) {
        if (t == CLPRIM_FLOAT) {
            const float x = NAN;
            memcpy(src + 3 * es, &x, es);
        } else {
            const double x = NAN;
            memcpy(src + 3 * es, &x, es);
        }
    }
    for (size_t b = 0; b < elen; b++)
        store(t, -12 + (int)(b * 56 / bins) + (int)b, edges + b * es);
    if (unsorted) /* the inner edges (1 .. BINS - 1 of the call's) reversed, the outer two kept */
        for (size_t i = 1; i < bins - i; i++) {
            unsigned char tmp[8];
            memcpy(tmp, edges + (2 + i) * es, es);
            memcpy(edges + (2 + i) * es, edges + (2 + bins - i) * es, es);
            memcpy(edges + (2 + bins - i) * es, tmp, es);
        }
    for (size_t i = 0; i < clen; i++)
        init[i] = (uint32_t)(i * 3 + 1);

    cl_int err;
    cl_mem sbuf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, len * es, src, &err);
    cl_mem ebuf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, elen * es, edges, &err);
    cl_mem cbuf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, clen * 4, init, &err);
    if (!sbuf || !ebuf || !cbuf)
        return fail("clCreateBuffer failed");
    const clprim_histogram_range_plan plan = {global ? 1 : 0};
    int status = 0;
    s = clprim_histogram_range_checked(ctx, t, sbuf, 3, n, ebuf, 2, bins, cbuf, 1, accumulate, &plan, 0, NULL,
                                       NULL);
    if (s == CLPRIM_SUCCESS)
        err = clEnqueueReadBuffer(clprim_queue(ctx), cbuf, CL_TRUE, 0, clen * 4, got, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS || err != CL_SUCCESS) {
        fprintf(stderr, "oclgrind_histogram_range: clprim_histogram_range: %s: %s\n", clprim_status_name(s),
                clprim_last_error(ctx));
        status = 1;
    } else if (unsorted) {
        uint64_t counted = 0;
        for (size_t b = 0; b < bins; b++)
            counted += got[1 + b] - (accumulate ? init[1 + b] : 0);
        if (got[0] != init[0] || got[clen - 2] != init[clen - 2] || got[clen - 1] != init[clen - 1]) {
            fprintf(stderr, "oclgrind_histogram_range: counts written outside the bins\n");
            status = 1;
        }
        if (counted > n) {
            fprintf(stderr, "oclgrind_histogram_range: %llu counted of %zu\n", (unsigned long long)counted, n);
            status = 1;
        }
    } else {
        memcpy(want, init, clen * 4);
        if (!accumulate)
            memset(want + 1, 0, bins * 4);
        const unsigned char *e = edges + 2 * es;
        for (size_t i = 0; i < n; i++) {
            const double x = value_of(t, src + (3 + i) * es);
            if (!(x >= value_of(t, e)) || !(x < value_of(t, e + bins * es)))
                continue;
            size_t b = 0;
            while (b + 1 < bins && value_of(t, e + (b + 1) * es) <= x)
                b++;
            want[1 + b]++;
        }
        if (memcmp(got, want, clen * 4)) {
            fprintf(stderr, "oclgrind_histogram_range: wrong counts\n");
            status = 1;
        }
    }
    clReleaseMemObject(sbuf);
    clReleaseMemObject(ebuf);
    clReleaseMemObject(cbuf);
    clprim_release(ctx);
    free(src);
    free(edges);
    free(init);
    free(got);
    free(want);
    if (status == 0)
        printf("ok\n");
    return status;
}
