/* Where is the loudest sample? Argmax with libclprim.
 *
 *   build/examples/argmax [N]      (N samples of a noisy tone, default 4000000)
 *
 * clprim_reduce_index gives the largest element and the index of its first
 * occurrence in one call: the value alone is what clprim_reduce(CLPRIM_MAX)
 * gives, the index is what finding it again on the host would cost a second
 * pass for. Ties go to the first index and NaN loses to any number, on every
 * device, so the answer is checked here against a plain C loop. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000000;
    if (n == 0) {
        fprintf(stderr, "usage: argmax [N]   (N >= 1 samples)\n");
        return 2;
    }
    float *x = malloc(n * sizeof *x);
    if (!x)
        return 1;
    uint32_t state = 1;
    for (size_t i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        x[i] = 0.5f * sinf((float)i * 0.001f) + (float)(state >> 8) / (float)(1u << 24) - 0.5f;
    }
    x[n / 3] = NAN; /* a dropout: ignored, as fmax ignores it */

    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    cl_int err;
    cl_mem samples =
        clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x, &err);
    float loudest = 0;
    size_t at = 0;
    s = err == CL_SUCCESS ? clprim_reduce_index(ctx, CLPRIM_FLOAT, CLPRIM_MAX, samples, 0, n, &loudest, &at, 0, NULL)
                          : CLPRIM_OPENCL_ERROR;
    if (s != CLPRIM_SUCCESS)
        fprintf(stderr, "clprim_reduce_index: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));

    /* The C loop: the first sample no later one exceeds, NaN skipped. */
    size_t want = 0;
    for (size_t i = 1; i < n; i++)
        if (x[i] > x[want] || (isnan(x[want]) && !isnan(x[i])))
            want = i;
    const int ok = s == CLPRIM_SUCCESS && at == want && (loudest == x[want] || (isnan(loudest) && isnan(x[want])));
    if (s == CLPRIM_SUCCESS)
        printf("%zu samples: the loudest is %.6f at %zu (%s the C loop)\n", n, loudest, at,
               ok ? "as" : "NOT as");
    clReleaseMemObject(samples);
    clprim_release(ctx);
    free(x);
    return ok ? 0 : 1;
}
