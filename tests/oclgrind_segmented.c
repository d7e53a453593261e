/* clprim_segmented_reduce under oclgrind (tests/oclgrind.sh), at the shape
 * $CLPRIM_TUNING gives: segments of lengths 0 to 9 with runs of empty ones at
 * the start, in the middle and at the end, then one segment over almost every
 * chunk between tiny ones; int32 sums, float maxima and a caller's operator
 * that does not commute, each checked against a C loop; and argmin and
 * argmax (clprim_segmented_reduce_index) over floats with NaN and over ties. The device comes
 * from $CLPRIM_OCLGRIND_DEVICE, default "oclgrind".
 *
 *   oclgrind_segmented N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim.h"
#include "reference.h"

static cl_mem buffer(clprim_context *ctx, size_t bytes, const void *data)
{
    cl_int err;
    cl_mem b = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)data,
                              &err);
    return err == CL_SUCCESS ? b : NULL;
}

/* One call; 0 when a segment differs from the C loop's fold (fold NULL: the
 * built-in op's reference). */
static int run(clprim_context *ctx, clprim_type t, clprim_op op, const clprim_operator *custom, reference_fold fold,
               const void *src, size_t n, const cl_ulong *offsets, size_t segments)
{
    const size_t es = reference_type_size(t);
    unsigned char *got = malloc(segments * es + 1), *fill = calloc(segments + 1, es);
    cl_mem sb = buffer(ctx, n * es + 1, src), ob = buffer(ctx, (segments + 1) * sizeof *offsets, offsets);
    cl_mem db = buffer(ctx, segments * es + 1, fill);
    int ok = got && fill && sb && ob && db &&
             clprim_segmented_reduce(ctx, t, op, custom, sb, 0, n, ob, 0, segments, db, 0, 0, NULL, NULL) ==
                 CLPRIM_SUCCESS &&
             clEnqueueReadBuffer(clprim_queue(ctx), db, CL_TRUE, 0, segments * es, got, 0, NULL, NULL) == CL_SUCCESS;
    for (size_t s = 0; ok && s < segments; s++) {
        const unsigned char *x = (const unsigned char *)src + offsets[s] * es;
        const size_t length = offsets[s + 1] - offsets[s];
        unsigned char want[8];
        if (fold) {
            memcpy(want, custom->identity, es);
            for (size_t i = 0; i < length; i++)
                fold(want, x + i * es);
            ok = !memcmp(want, got + s * es, es);
        } else {
            ok = reference_check_reduce(t, op, x, length, got + s * es, NULL, 0);
        }
        if (!ok)
            fprintf(stderr, "oclgrind_segmented: %s segment %zu of %zu differs\n", reference_type_name(t), s,
                    segments);
    }
    if (!ok && !got)
        fprintf(stderr, "oclgrind_segmented: %s failed: %s\n", reference_type_name(t), clprim_last_error(ctx));
    cl_mem all[] = {sb, ob, db};
    for (size_t i = 0; i < 3; i++)
        if (all[i])
            clReleaseMemObject(all[i]);
    free(got);
    free(fill);
    return ok;
}

/* clprim_segmented_reduce_index, both outputs; 0 when a segment's index or
 * value differs from reference_best_index's (an empty one: CL_ULONG_MAX and
 * the empty MIN or MAX). */
static int run_index(clprim_context *ctx, clprim_type t, clprim_op op, const void *src, size_t n,
                     const cl_ulong *offsets, size_t segments)
{
    const size_t es = reference_type_size(t);
    unsigned char *values = malloc(segments * es + 1), *fill = calloc(segments + 1, 8);
    cl_ulong *indices = malloc(segments * sizeof *indices + 1);
    cl_mem sb = buffer(ctx, n * es + 1, src), ob = buffer(ctx, (segments + 1) * sizeof *offsets, offsets);
    cl_mem vb = buffer(ctx, segments * es + 1, fill), ib = buffer(ctx, segments * 8 + 1, fill);
    int ok = values && indices && fill && sb && ob && vb && ib &&
             clprim_segmented_reduce_index(ctx, t, op, sb, 0, n, ob, 0, segments, vb, 0, ib, 0, 0, NULL, NULL) ==
                 CLPRIM_SUCCESS &&
             clEnqueueReadBuffer(clprim_queue(ctx), vb, CL_TRUE, 0, segments * es, values, 0, NULL, NULL) ==
                 CL_SUCCESS &&
             clEnqueueReadBuffer(clprim_queue(ctx), ib, CL_TRUE, 0, segments * 8, indices, 0, NULL, NULL) ==
                 CL_SUCCESS;
    if (!ok)
        fprintf(stderr, "oclgrind_segmented: arg %s failed: %s\n", reference_type_name(t), clprim_last_error(ctx));
    for (size_t s = 0; ok && s < segments; s++) {
        const size_t length = offsets[s + 1] - offsets[s];
        unsigned char empty[8];
        reference_empty_result(t, op, empty);
        const cl_ulong want =
            length ? offsets[s] + reference_best_index(t, op == CLPRIM_MAX, (const char *)src + offsets[s] * es, length)
                   : CL_ULONG_MAX;
        ok = indices[s] == want && !memcmp(values + s * es, length ? (const char *)src + want * es : (char *)empty, es);
        if (!ok)
            fprintf(stderr, "oclgrind_segmented: arg %s segment %zu of %zu differs\n", reference_type_name(t), s,
                    segments);
    }
    cl_mem all[] = {sb, ob, vb, ib};
    for (size_t i = 0; i < 4; i++)
        if (all[i])
            clReleaseMemObject(all[i]);
    free(values);
    free(indices);
    free(fill);
    return ok;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    if (clprim_create(&ctx, spec && *spec ? spec : "oclgrind") != CLPRIM_SUCCESS) {
        fprintf(stderr, "oclgrind_segmented: clprim_create: %s\n", clprim_last_error(NULL));
        return 1;
    }
    cl_ulong *offsets = malloc((2 * n + 16) * sizeof *offsets);
    int32_t *ints = malloc(n * sizeof *ints + 1), *ties = malloc(n * sizeof *ties + 1);
    float *floats = malloc(n * sizeof *floats + 1);
    uint64_t *maps = malloc(n * sizeof *maps + 1);
    uint64_t state = 12345;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        ints[i] = (int32_t)(state >> 40) - (1 << 23);
        floats[i] = i % 11 == 3 ? NAN : (float)(int32_t)(state >> 44) / 64.0f;
        maps[i] = state | (uint64_t)1 << 32;
    }
    /* Lengths 0..9, empty runs at both ends. */
    size_t segments = 0;
    cl_ulong at = 0;
    offsets[0] = 0;
    for (size_t k = 0; k < 3; k++)
        offsets[++segments] = 0;
    while (at < n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const cl_ulong length = (state >> 33) % 10;
        at = at + length < n ? at + length : n;
        offsets[++segments] = at;
    }
    for (size_t k = 0; k < 3; k++)
        offsets[++segments] = n;
    const uint64_t identity = (uint64_t)1 << 32;
    const clprim_operator affine = {REFERENCE_AFFINE_U64, &identity};
    int ok = run(ctx, CLPRIM_INT32, CLPRIM_SUM, NULL, NULL, ints, n, offsets, segments) &&
             run(ctx, CLPRIM_FLOAT, CLPRIM_MAX, NULL, NULL, floats, n, offsets, segments) &&
             run(ctx, CLPRIM_UINT64, CLPRIM_SUM, &affine, reference_affine_u64, maps, n, offsets, segments);
    /* Argmin over floats with NaN, argmax over few distinct integers (ties). */
    for (size_t i = 0; i < n; i++)
        ties[i] = ints[i] % 4;
    ok = ok && run_index(ctx, CLPRIM_FLOAT, CLPRIM_MIN, floats, n, offsets, segments) &&
         run_index(ctx, CLPRIM_INT32, CLPRIM_MAX, ties, n, offsets, segments);
    /* One segment over almost everything. */
    const cl_ulong huge[] = {0, 1, 2, 2, n - 2, n - 1, n};
    ok = ok && n >= 4 && run(ctx, CLPRIM_INT32, CLPRIM_SUM, NULL, NULL, ints, n, huge, 6) &&
         run(ctx, CLPRIM_UINT64, CLPRIM_SUM, &affine, reference_affine_u64, maps, n, huge, 6) &&
         run_index(ctx, CLPRIM_FLOAT, CLPRIM_MAX, floats, n, huge, 6);
    free(offsets);
    free(ints);
    free(ties);
    free(floats);
    free(maps);
    clprim_release(ctx);
    return !ok;
}
