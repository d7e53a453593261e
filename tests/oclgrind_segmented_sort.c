/* clprim_segmented_sort_keys and _pairs under oclgrind (tests/oclgrind.sh), at
 * the shape $CLPRIM_TUNING gives: segments of lengths 0 to 9 with runs of empty
 * ones at both ends (uint32 pairs), then one segment over almost every tile
 * between tiny ones (double keys descending with 8-byte values: the 16-byte
 * items and several merge passes), float keys in place with NaN and -0.0 over
 * lengths up to 30, and int64 keys with their indices on a bit range; each
 * checked against a stable C sort of every segment. The device comes from
 * $CLPRIM_OCLGRIND_DEVICE, default "oclgrind".
 *
 *   oclgrind_segmented_sort N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim.h"
#include "reference_sort.h"

static uint64_t state = 12345;

static uint64_t next(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 11;
}

static cl_mem buffer(clprim_context *ctx, size_t bytes, const void *data)
{
    cl_int err;
    cl_mem b = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)data,
                              &err);
    return err == CL_SUCCESS ? b : NULL;
}

/* One call over keys (kb bytes each) and values (vb bytes each; vb 0: keys
 * alone; values NULL with vb 4: the indices); 0 when a segment differs. */
static int run(clprim_context *ctx, const char *what, clprim_type t, const clprim_sort_order *order, int in_place,
               const void *keys, const void *values, size_t vb, size_t n, const cl_ulong *offsets, size_t segments)
{
    const size_t kb = reference_sort_key_bytes(t);
    unsigned char *got = malloc(n * 8 + 1), *got_values = malloc(n * 8 + 1);
    cl_mem kin = buffer(ctx, n * kb + 1, keys), kout = in_place ? kin : buffer(ctx, n * kb + 1, keys);
    cl_mem vin = values ? buffer(ctx, n * vb + 1, values) : NULL;
    cl_mem vout = !vb ? NULL : in_place && vin ? vin : buffer(ctx, n * vb + 1, values ? values : keys);
    cl_mem ob = buffer(ctx, (segments + 1) * sizeof *offsets, offsets);
    const clprim_type vt = vb == 8 ? CLPRIM_UINT64 : CLPRIM_UINT32;
    int ok = got && got_values && kin && kout && ob && (!vb || vout) &&
             (vb ? clprim_segmented_sort_pairs(ctx, t, vt, order, kin, 0, kout, 0, vin, 0, vout, 0, n, ob, 0,
                                               segments, 0, NULL, NULL)
                 : clprim_segmented_sort_keys(ctx, t, order, kin, 0, kout, 0, n, ob, 0, segments, 0, NULL, NULL)) ==
                 CLPRIM_SUCCESS &&
             clEnqueueReadBuffer(clprim_queue(ctx), kout, CL_TRUE, 0, n * kb, got, 0, NULL, NULL) == CL_SUCCESS &&
             (!vb ||
              clEnqueueReadBuffer(clprim_queue(ctx), vout, CL_TRUE, 0, n * vb, got_values, 0, NULL, NULL) ==
                  CL_SUCCESS);
    if (!ok)
        fprintf(stderr, "oclgrind_segmented_sort: %s failed: %s\n", what, clprim_last_error(ctx));
    for (size_t s = 0; ok && s < segments; s++) {
        const size_t b = offsets[s], e = offsets[s + 1];
        uint32_t *perm = reference_sort_perm_order(t, order, (const unsigned char *)keys + b * kb, e - b);
        for (size_t j = 0; ok && j < e - b; j++) {
            const uint64_t from = b + perm[j];
            ok = !memcmp(got + (b + j) * kb, (const unsigned char *)keys + from * kb, kb) &&
                 (!vb || !memcmp(got_values + (b + j) * vb,
                                 values ? (const unsigned char *)values + from * vb : (const void *)&from, vb));
        }
        if (!ok)
            fprintf(stderr, "oclgrind_segmented_sort: %s: segment %zu of %zu ([%zu, %zu)) differs\n", what, s,
                    segments, b, e);
        free(perm);
    }
    cl_mem all[] = {kin, kout, vin, vout, ob};
    for (size_t i = 0; i < 5; i++)
        if (all[i] && (i != 1 || kout != kin) && (i != 3 || vout != vin))
            clReleaseMemObject(all[i]);
    free(got);
    free(got_values);
    return ok;
}

/* offsets[0 .. return] over n: lengths 0 .. longest, with `empty` empty
 * segments at each end. */
static size_t random_offsets(cl_ulong *offsets, size_t n, size_t longest, size_t empty)
{
    size_t s = 0;
    cl_ulong at = 0;
    offsets[0] = 0;
    for (size_t k = 0; k < empty; k++)
        offsets[++s] = 0;
    while (at < n) {
        const cl_ulong length = next() % (longest + 1);
        at = at + length < n ? at + length : n;
        offsets[++s] = at;
    }
    for (size_t k = 0; k < empty; k++)
        offsets[++s] = n;
    return s;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    if (n < 8 || clprim_create(&ctx, spec && *spec ? spec : "oclgrind") != CLPRIM_SUCCESS) {
        fprintf(stderr, "oclgrind_segmented_sort: N must be at least 8; clprim_create: %s\n", clprim_last_error(NULL));
        return 1;
    }
    cl_ulong *offsets = malloc((2 * n + 16) * sizeof *offsets);
    uint32_t *u32 = malloc(n * sizeof *u32), *values32 = malloc(n * sizeof *values32);
    uint64_t *u64 = malloc(n * sizeof *u64), *values64 = malloc(n * sizeof *values64);
    double *doubles = malloc(n * sizeof *doubles);
    float *floats = malloc(n * sizeof *floats);
    for (size_t i = 0; i < n; i++) {
        u32[i] = (uint32_t)(next() % 7);
        values32[i] = (uint32_t)i;
        u64[i] = next() - (next() >> 1);
        values64[i] = next();
        doubles[i] = (double)(int64_t)(next() % 9) - 4.0;
        floats[i] = i % 7 == 3 ? (i % 2 ? NAN : -NAN) : i % 5 == 1 ? (i % 2 ? -0.0f : 0.0f) : (float)(next() % 9);
    }
    const clprim_sort_order descending = {1, 0, 0}, bits = {0, 3, 40};
    size_t segments = random_offsets(offsets, n, 9, 3);
    int ok = run(ctx, "uint32 pairs", CLPRIM_UINT32, NULL, 0, u32, values32, 4, n, offsets, segments);
    const cl_ulong huge[] = {0, 1, 3, 3, n - 4, n - 1, n};
    ok = ok && run(ctx, "double pairs descending", CLPRIM_DOUBLE, &descending, 0, doubles, values64, 8, n, huge, 6);
    segments = random_offsets(offsets, n, 30, 1);
    ok = ok && run(ctx, "float keys in place", CLPRIM_FLOAT, NULL, 1, floats, NULL, 0, n, offsets, segments);
    ok = ok && run(ctx, "int64 indices on bits [3, 40)", CLPRIM_INT64, &bits, 0, u64, NULL, 4, n, offsets, segments);
    free(offsets), free(u32), free(values32), free(u64), free(values64), free(doubles), free(floats);
    clprim_release(ctx);
    return !ok;
}
