/* k-means colour quantization from C: the few colours that best stand for an image.
 *
 *   build/examples/kmeans
 *
 * The image is made here (no file is read or written): three patches of
 * colour with noise, RGB8. clprim_kmeans_seed picks k starting centres on the
 * host (k-means++, the same for the same seed); clprim_kmeans runs Lloyd's
 * iterations on the device and leaves each pixel's cluster in a label buffer.
 * Each final centre is the mean of the pixels labelled with it (the last
 * update), which a C loop checks exactly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>

#define W 160
#define H 120
#define K 3

int main(void)
{
    static unsigned char rgb[H][W][3], label[H][W];
    static const unsigned char patch[K][3] = {{200, 40, 30}, {30, 150, 60}, {40, 60, 200}};
    uint32_t state = 9;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 3; c++) {
                state = state * 1664525u + 1013904223u;
                rgb[y][x][c] = (unsigned char)(patch[x * K / W][c] + (state >> 28)); /* + 0..15 of noise */
            }

    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    cl_int err;
    cl_mem pixels = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof rgb, rgb,
                                   &err);
    cl_mem labels = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE, sizeof label, NULL, &err);
    const clprim_image image = {pixels, 0, W, H, 0, CLPRIM_RGB8};

    float centres[K * 3];
    clprim_kmeans_info info = {0, 0};
    /* Seed 1, at most 50 iterations; dst NULL: no quantized image, the labels only. */
    s = clprim_kmeans_seed(&rgb[0][0][0], W, H, 0, CLPRIM_RGB8, K, 1, centres);
    if (s != CLPRIM_SUCCESS)
        fprintf(stderr, "clprim_kmeans_seed: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
    else if ((s = clprim_kmeans(ctx, &image, K, 50, centres, labels, 0, NULL, &info, 0, NULL)) != CLPRIM_SUCCESS)
        fprintf(stderr, "clprim_kmeans: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
    else
        clEnqueueReadBuffer(clprim_queue(ctx), labels, CL_TRUE, 0, sizeof label, label, 0, NULL, NULL);

    /* The C loop: per cluster, the sums of its pixels' values and its count; the
     * centre is sum / count in double, stored as float. */
    uint64_t sum[K][3] = {{0}}, count[K] = {0};
    int ok = s == CLPRIM_SUCCESS;
    for (int y = 0; ok && y < H; y++)
        for (int x = 0; x < W; x++) {
            const unsigned j = label[y][x];
            if (j >= K) {
                ok = 0;
                break;
            }
            for (int c = 0; c < 3; c++)
                sum[j][c] += rgb[y][x][c];
            count[j]++;
        }
    printf("%d x %d pixels, k = %d, %u iteration(s)%s:", W, H, K, info.iterations,
           info.converged ? ", converged" : "");
    for (int j = 0; ok && j < K; j++) {
        for (int c = 0; c < 3; c++)
            ok &= count[j] == 0 || centres[j * 3 + c] == (float)((double)sum[j][c] / (double)count[j]);
        printf(" #%02x%02x%02x (%llu pixels)", (unsigned)(centres[j * 3] + 0.5f), (unsigned)(centres[j * 3 + 1] + 0.5f),
               (unsigned)(centres[j * 3 + 2] + 0.5f), (unsigned long long)count[j]);
    }
    printf("; centres %s the C loop's means\n", ok ? "are" : "are NOT");

    clReleaseMemObject(pixels);
    clReleaseMemObject(labels);
    clprim_release(ctx);
    return ok ? 0 : 1;
}
