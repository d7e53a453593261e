/* `clprim kmeans IN OUT -k K`: k-means colour quantization of a photograph
 * (every pixel replaced by the centre of its colour cluster),
 * with clprim_kmeans_seed and clprim_kmeans; the result is written as PNG.
 * --check runs the same algorithm in C from the same centres and compares. */
#include "commands.h"
#include "image.h"
#include "kmeans_cpu.h"
#include "options.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr,
            "usage: clprim kmeans IN OUT.png -k K [--iterations N] [--seed S] [--check] [--max-pixels N]\n"
            "                     [--device SPEC]\n"
            "  IN            a PNG, JPEG or BMP image; OUT is written as PNG (alpha kept)\n"
            "  -k K          colour clusters, 1 to %d\n"
            "  --iterations  at most N Lloyd iterations (default 100); it stops earlier when no\n"
            "                rounded centre moves\n"
            "  --seed        seed of the k-means++ initialisation (default 1)\n"
            "  --check       also run the algorithm in C from the same centres: same labels?\n"
            "  --max-pixels  refuse a larger image before decoding it (default 2^28)\n",
            CLPRIM_KMEANS_MAX_K);
    return 2;
}

int cmd_kmeans(int argc, char **argv)
{
    const char *in_path = NULL, *out_path = NULL, *device = NULL;
    unsigned long k = 0, iterations = 100, seed = 1;
    int check = 0;
    size_t max_pixels = CLI_IMAGE_MAX_PIXELS;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "-k") || !strcmp(argv[i], "--k")) && i + 1 < argc) {
            if (!cli_parse_ulong("kmeans", "-k", argv[++i], 1, CLPRIM_KMEANS_MAX_K, &k))
                return 2;
        } else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
            if (!cli_parse_ulong("kmeans", "--iterations", argv[++i], 1, 1000000, &iterations))
                return 2;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (!cli_parse_ulong("kmeans", "--seed", argv[++i], 0, 0xFFFFFFFFul, &seed))
                return 2;
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else if (!strcmp(argv[i], "--max-pixels") && i + 1 < argc) {
            if (!cli_parse_count("kmeans", "--max-pixels", argv[++i], 1, SIZE_MAX, 4, &max_pixels))
                return 2;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "clprim kmeans: unknown or incomplete option %s\n", argv[i]);
            return usage();
        } else if (!in_path) {
            in_path = argv[i];
        } else if (!out_path) {
            out_path = argv[i];
        } else {
            return usage();
        }
    }
    if (!in_path || !out_path || !k)
        return usage();

    cli_image img;
    clprim_context *ctx;
    char device_name[256];
    int rc = cli_load_image_and_context("kmeans", in_path, max_pixels, out_path, device, &img, &ctx, device_name,
                                        sizeof device_name);
    if (rc != 0)
        return rc;

    int status = 1;
    const size_t n = img.width * img.height, bytes = cli_image_bytes(&img);
    const clprim_pixel_format format = cli_image_format(&img);
    unsigned char *labels = malloc(n), *cpu_labels = check ? malloc(n) : NULL;
    cl_int err;
    cl_mem src = cli_image_upload(ctx, &img, &err);
    cl_mem dst = cli_buffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    cl_mem lab = cli_buffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    cli_image out = {NULL, 0, 0, 0};
    if (err != CL_SUCCESS || !labels || (check && !cpu_labels) ||
        cli_image_alloc(&out, img.width, img.height, img.channels, 0) != 0) {
        fprintf(stderr, "clprim kmeans: cannot allocate %zu bytes for the image (OpenCL error %d)\n", bytes, err);
        goto done;
    }
    clprim_image si = cli_image_view(src, &img), di = cli_image_view(dst, &img);

    float seeded[CLPRIM_KMEANS_MAX_K * 3], centres[CLPRIM_KMEANS_MAX_K * 3];
    clprim_status s = clprim_kmeans_seed(img.pixels, img.width, img.height, 0, format, (unsigned)k, seed, seeded);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim kmeans: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        goto done;
    }
    /* One iteration first, to build the kernels (or load them from the disk cache)
     * outside the timing. */
    memcpy(centres, seeded, sizeof centres);
    clprim_kmeans_info info;
    double start = cli_now();
    s = clprim_kmeans(ctx, &si, (unsigned)k, 1, centres, lab, 0, NULL, &info, 0, NULL);
    const double first_ms = (cli_now() - start) * 1e3;
    memcpy(centres, seeded, sizeof centres);
    start = cli_now();
    if (s == CLPRIM_SUCCESS)
        s = clprim_kmeans(ctx, &si, (unsigned)k, (unsigned)iterations, centres, lab, 0, &di, &info, 0, NULL);
    const double device_ms = (cli_now() - start) * 1e3;
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim kmeans: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
        goto done;
    }
    err = clEnqueueReadBuffer(clprim_queue(ctx), lab, CL_TRUE, 0, n, labels, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clprim kmeans: reading the result back failed (OpenCL error %d)\n", err);
        goto done;
    }
    if (cli_image_save("kmeans", ctx, dst, &out, out_path) != 0)
        goto done;

    size_t used = 0;
    size_t members[CLPRIM_KMEANS_MAX_K] = {0};
    for (size_t i = 0; i < n; i++)
        members[labels[i]]++;
    for (unsigned j = 0; j < k; j++)
        used += members[j] != 0;
    printf("%s: %zu x %zu %s, k = %lu (%zu clusters hold pixels)\n", in_path, img.width, img.height,
           cli_image_channels_name(img.channels), k, used);
    printf("%u iteration(s), %s\n", info.iterations,
           info.converged ? "converged (no rounded centre moved)" : "stopped at the iteration limit");
    printf("on %s: %.3f ms an iteration (%.1f ms in all, the final image included); the first call took %.1f ms "
           "with the kernel build\n",
           device_name, device_ms / info.iterations, device_ms, first_ms);

    if (check) {
        float cpu_centres[CLPRIM_KMEANS_MAX_K * 3];
        memcpy(cpu_centres, seeded, sizeof cpu_centres);
        clprim_kmeans_info cpu_info;
        start = cli_now();
        const cli_kmeans_image view = {img.pixels, 0, img.width, img.height, img.width * (size_t)img.channels,
                                       format};
        cli_kmeans_cpu(&view, (unsigned)k, (unsigned)iterations, cpu_centres, cpu_labels, NULL, &cpu_info);
        const double cpu_ms = (cli_now() - start) * 1e3;
        size_t differ = 0;
        for (size_t i = 0; i < n; i++)
            differ += labels[i] != cpu_labels[i];
        float worst = 0;
        for (unsigned j = 0; j < 3 * k; j++)
            worst = fmaxf(worst, fabsf(centres[j] - cpu_centres[j]));
        int same = differ == 0 && worst <= 1e-4f && cpu_info.iterations == info.iterations &&
                   cpu_info.converged == info.converged;
        printf("C loop: %.3f ms an iteration (%.1fx the device), %u iteration(s); labels differing: %zu, largest "
               "centre difference %.3g: %s\n",
               cpu_ms / cpu_info.iterations, cpu_ms / cpu_info.iterations / (device_ms / info.iterations),
               cpu_info.iterations, differ, (double)worst, same ? "the same" : "DIFFERENT");
        if (!same)
            goto done;
    }
    printf("wrote %s\n", out_path);
    status = 0;

done:
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    if (lab)
        clReleaseMemObject(lab);
    free(labels);
    free(cpu_labels);
    cli_image_free(&out);
    cli_image_free(&img);
    clprim_release(ctx);
    return status;
}
