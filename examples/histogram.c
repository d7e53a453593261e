/* Histograms on the device: even bins, and bins between edges of your own.
 *
 *   build/examples/histogram [N]      (N heights, default 500000)
 *
 * Heights in centimetres. clprim_histogram counts them in 12 even bins of
 * 5 cm over [140, 200); clprim_histogram_range in bins between edges you give
 * in a buffer (here uneven ones: 0, 150, 160, 175, 190, 250). Values outside
 * the bins are not counted. Counts are exact and the same on every device;
 * both histograms are checked against a C loop that bins the same way
 * (clprim.h spells out the arithmetic). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>

#define BINS 12
#define RANGES 5

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 500000;
    if (n == 0) {
        fprintf(stderr, "usage: histogram [N]   (N >= 1 heights)\n");
        return 2;
    }
    float *height = malloc(n * sizeof *height);
    if (!height)
        return 1;
    uint32_t state = 11;
    for (size_t i = 0; i < n; i++) { /* roughly normal around 170 cm: a sum of four uniform draws */
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            state = state * 1664525u + 1013904223u;
            sum += (float)(state >> 8) / 16777216.0f;
        }
        height[i] = 130.0f + 20.0f * sum;
    }
    const float lo = 140.0f, hi = 200.0f;
    const float edges[RANGES + 1] = {0.0f, 150.0f, 160.0f, 175.0f, 190.0f, 250.0f};

    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    cl_int err;
    cl_context cl = clprim_cl_context(ctx);
    cl_mem heights = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *height, height, &err);
    cl_mem edge_buf = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof edges, (void *)edges, &err);
    cl_mem counts = clCreateBuffer(cl, CL_MEM_READ_WRITE, (BINS + RANGES) * sizeof(cl_uint), NULL, &err);

    /* Even bins to counts[0, 12), the edges' bins to counts[12, 17); accumulate 0: set, not added. */
    s = clprim_histogram(ctx, CLPRIM_FLOAT, heights, 0, n, lo, hi, BINS, counts, 0, 0, 0, NULL, NULL);
    if (s == CLPRIM_SUCCESS)
        s = clprim_histogram_range(ctx, CLPRIM_FLOAT, heights, 0, n, edge_buf, 0, RANGES, counts, BINS, 0, 0, NULL,
                                   NULL);
    cl_uint got[BINS + RANGES] = {0};
    if (s != CLPRIM_SUCCESS)
        fprintf(stderr, "%s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
    else
        clEnqueueReadBuffer(clprim_queue(ctx), counts, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);

    /* The C loop: bin (x - lo) * scale in float, scale = bins / (hi - lo), clamped to
     * the last bin; and the last edge at or below x. */
    cl_uint want[BINS + RANGES] = {0};
    const float scale = (float)BINS / (hi - lo);
    for (size_t i = 0; i < n; i++) {
        const float x = height[i];
        if (x >= lo && x < hi) {
            unsigned b = (unsigned)((x - lo) * scale);
            want[b < BINS ? b : BINS - 1]++;
        }
        for (int r = 0; r < RANGES; r++)
            want[BINS + r] += x >= edges[r] && x < edges[r + 1];
    }
    int ok = s == CLPRIM_SUCCESS;
    for (int b = 0; b < BINS + RANGES; b++)
        ok &= got[b] == want[b];

    for (int b = 0; b < BINS; b++)
        printf("%5.0f-%-5.0f %7u\n", lo + 5.0f * (float)b, lo + 5.0f * (float)(b + 1), got[b]);
    for (int r = 0; r < RANGES; r++)
        printf("%5.0f-%-5.0f %7u\n", edges[r], edges[r + 1], got[BINS + r]);
    printf("%zu heights: both histograms %s the C loop\n", n, ok ? "as" : "NOT as");

    clReleaseMemObject(heights);
    clReleaseMemObject(edge_buf);
    clReleaseMemObject(counts);
    clprim_release(ctx);
    free(height);
    return ok ? 0 : 1;
}
