/* `clprim kmeans IN OUT -k K`: k-means colour quantization of a photograph
 * (every pixel replaced by the centre of its colour cluster),
 * with clprim_kmeans_seed and clprim_kmeans; the result is written as PNG.
 * --restarts N runs from N seeds and keeps the lowest inertia.
 * --check runs the same algorithm in C from the same centres and compares.
 * The palette found is printed as hex colours; --palette writes it as a PNG strip. */
#include "commands.h"
#include "image.h"
#include "kmeans_cpu.h"
#include "options.h"
#include "progress.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_K, OPT_ITERATIONS, OPT_SEED, OPT_RESTARTS, OPT_CHECK, OPT_PALETTE, OPT_MAX_PIXELS, OPT_DEVICE };
static const cli_option options[] = {
    [OPT_K] = {"k", 'k', "K", "colour clusters, 1 to " CLI_STRING(CLPRIM_KMEANS_MAX_K) " (required)", 0},
    [OPT_ITERATIONS] = {"iterations", 'i', "N",
                        "at most N Lloyd iterations a run (default 100); a run stops earlier\n"
                        "when no centre moves by more than 0.01",
                        0},
    [OPT_SEED] = {"seed", 's', "S",
                  "seed of the greedy k-means++ initialisation of colour images (default 1);\n"
                  "grey images start from their optimal centres, whatever the seed",
                  0},
    [OPT_RESTARTS] = {"restarts", 'r', "N",
                      "runs from N seeds, S to S + N - 1 (default 1); the one of lowest\n"
                      "inertia (sum of squared distances to the centres) is kept; grey\n"
                      "images need one run",
                      0},
    [OPT_CHECK] = {"check", 'c', NULL,
                   "also run the algorithm in C from the kept run's start: same labels\n"
                   "and centres, bit for bit?",
                   0},
    [OPT_PALETTE] = {"palette", 'p', "FILE.png",
                     "also write the palette as a PNG strip: one 32 x 32 swatch a cluster,\n"
                     "in cluster order (the colours printed as hex)",
                     0},
    [OPT_MAX_PIXELS] = {"max-pixels", 0, "N", "refuse a larger image before decoding it (default 2^28)", 0},
    [OPT_DEVICE] = {"device", 0, "SPEC", "the OpenCL device (clprim --help)", 0},
};

static const cli_command command = {
    "kmeans", "IN OUT.png",
    "  IN is a PNG, JPEG or BMP image; OUT is written as PNG (alpha kept)\n",
    options, sizeof options / sizeof options[0], NULL, NULL,
};

/* Which run the iterations reported by the library belong to. */
typedef struct {
    unsigned long run, runs, seed;
} run_progress;

static void show_iteration(void *user, const char *what, unsigned long done, unsigned long total)
{
    const run_progress *r = user;
    cli_progress("kmeans: run %lu of %lu (seed %lu), %s iteration %lu of up to %lu ...", r->run, r->runs, r->seed,
                 what, done, total);
}

#define SWATCH 32 /* pixels a side of a palette swatch */

/* The palette as k swatches side by side, written as PNG; 0 on success. */
static int write_palette(const char *path, const unsigned char (*colour)[3], unsigned long k)
{
    cli_image strip;
    char why[1024];
    if (cli_image_alloc(&strip, k * SWATCH, SWATCH, 3, 0) != 0) {
        fprintf(stderr, "clprim kmeans: out of memory for the palette\n");
        return -1;
    }
    for (size_t y = 0; y < SWATCH; y++)
        for (size_t x = 0; x < strip.width; x++)
            memcpy(strip.pixels + (y * strip.width + x) * 3, colour[x / SWATCH], 3);
    int rc = cli_image_write_png(path, &strip, why, sizeof why);
    if (rc != 0)
        fprintf(stderr, "clprim kmeans: %s\n", why);
    cli_image_free(&strip);
    return rc;
}

/* A count option: a whole number, also written as 1e2. */
static int parse_count(const char *option, const char *text, size_t min, size_t max, unsigned long *out)
{
    size_t v;
    if (!cli_parse_count("kmeans", option, text, min, max, 1, &v))
        return 0;
    *out = (unsigned long)v;
    return 1;
}

int cmd_kmeans(int argc, char **argv)
{
    const char *in_path, *out_path, *device = NULL, *palette_path = NULL;
    unsigned long k = 0, iterations = 100, seed = 1, restarts = 1;
    int check = 0;
    size_t max_pixels = CLI_IMAGE_MAX_PIXELS;
    cli_parser p;
    cli_begin(&p, &command, argc, argv);
    for (int opt; (opt = cli_next(&p)) >= 0;) {
        int ok = 1;
        if (opt == OPT_K)
            ok = parse_count("-k", p.value, 1, CLPRIM_KMEANS_MAX_K, &k);
        else if (opt == OPT_ITERATIONS)
            ok = parse_count("--iterations", p.value, 1, 1000000, &iterations);
        else if (opt == OPT_SEED)
            ok = cli_parse_ulong("kmeans", "--seed", p.value, 0, 0xFFFFFFFFul, &seed);
        else if (opt == OPT_RESTARTS)
            ok = parse_count("--restarts", p.value, 1, 10000, &restarts);
        else if (opt == OPT_CHECK)
            check = 1;
        else if (opt == OPT_PALETTE)
            palette_path = p.value;
        else if (opt == OPT_MAX_PIXELS)
            ok = cli_parse_count("kmeans", "--max-pixels", p.value, 1, SIZE_MAX, 4, &max_pixels);
        else
            device = p.value;
        if (!ok)
            return 2;
    }
    const int ended = cli_end(&p, 2);
    if (ended >= 0)
        return ended;
    if (!k)
        return cli_usage_error(&p, "-k K is required");
    in_path = p.args[0], out_path = p.args[1];
    if (palette_path && !cli_want_png("kmeans", "--palette", palette_path, "palette"))
        return 2;

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
    const cli_kmeans_image view = {img.pixels, 0, img.width, img.height, img.width * (size_t)img.channels, format};
    /* The labels of the run being made and of the best so far; the same for
     * the quantized images on the device (swapped when a run wins). */
    unsigned char *labels = malloc(n), *best_labels = malloc(n), *cpu_labels = check ? malloc(n) : NULL;
    cl_int err;
    cl_mem src = cli_image_upload(ctx, &img, &err);
    cl_mem dst = cli_buffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    cl_mem best_dst = cli_buffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    cl_mem lab = cli_buffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    cli_image out = {NULL, 0, 0, 0};
    if (err != CL_SUCCESS || !labels || !best_labels || (check && !cpu_labels) ||
        cli_image_alloc(&out, img.width, img.height, img.channels, 0) != 0) {
        fprintf(stderr, "clprim kmeans: cannot allocate %zu bytes for the image (OpenCL error %d)\n", bytes, err);
        goto done;
    }
    const clprim_image si = cli_image_view(src, &img);
    if (format == CLPRIM_GREY8 && restarts > 1) {
        fprintf(stderr, "clprim kmeans: a grey image starts from its optimal centres; one run, not %lu\n", restarts);
        restarts = 1;
    }

    /* One iteration first, to build the kernels (or load them from the disk cache)
     * outside the timing. */
    float seeded[CLPRIM_KMEANS_MAX_K * 3], centres[CLPRIM_KMEANS_MAX_K * 3];
    float best_seeded[CLPRIM_KMEANS_MAX_K * 3], best_centres[CLPRIM_KMEANS_MAX_K * 3];
    clprim_status s = clprim_kmeans_seed(img.pixels, img.width, img.height, 0, format, (unsigned)k, seed, seeded);
    clprim_kmeans_info info, best_info = {0, 0};
    unsigned compiled, loaded;
    char first_note[160];
    clprim_program_counts(ctx, &compiled, &loaded);
    double start = cli_now();
    if (s == CLPRIM_SUCCESS)
        s = clprim_kmeans(ctx, &si, (unsigned)k, 1, seeded, lab, 0, NULL, &info, 0, NULL);
    const double first_ms = (cli_now() - start) * 1e3;
    cli_first_call_note(ctx, compiled, loaded, first_note, sizeof first_note);

    double device_ms = 0, best_inertia = INFINITY;
    unsigned long best_seed = seed, total_iterations = 0;
    for (unsigned long r = 0; r < restarts && s == CLPRIM_SUCCESS; r++) {
        s = clprim_kmeans_seed(img.pixels, img.width, img.height, 0, format, (unsigned)k, seed + r, seeded);
        if (s != CLPRIM_SUCCESS)
            break;
        memcpy(centres, seeded, sizeof centres);
        const clprim_image di = cli_image_view(dst, &img);
        run_progress shown = {r + 1, restarts, seed + r};
        clprim_set_progress(ctx, show_iteration, &shown);
        start = cli_now();
        s = clprim_kmeans(ctx, &si, (unsigned)k, (unsigned)iterations, centres, lab, 0, &di, &info, 0, NULL);
        device_ms += (cli_now() - start) * 1e3;
        clprim_set_progress(ctx, NULL, NULL); /* `shown` ends with this run */
        cli_progress_clear();
        total_iterations += s == CLPRIM_SUCCESS ? info.iterations : 0;
        err = s == CLPRIM_SUCCESS ? clEnqueueReadBuffer(clprim_queue(ctx), lab, CL_TRUE, 0, n, labels, 0, NULL, NULL)
                                  : CL_SUCCESS;
        if (s != CLPRIM_SUCCESS || err != CL_SUCCESS)
            break;
        const double inertia = cli_kmeans_inertia(&view, centres, labels);
        if (restarts > 1)
            printf("run %lu of %lu (seed %lu): %u iteration(s), inertia %.6e\n", r + 1, restarts, seed + r,
                   info.iterations, inertia);
        if (inertia < best_inertia) {
            best_inertia = inertia;
            best_seed = seed + r;
            best_info = info;
            memcpy(best_seeded, seeded, sizeof seeded);
            memcpy(best_centres, centres, sizeof centres);
            unsigned char *swap_labels = best_labels;
            best_labels = labels;
            labels = swap_labels;
            cl_mem swap_dst = best_dst;
            best_dst = dst;
            dst = swap_dst;
        }
    }
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim kmeans: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
        goto done;
    }
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clprim kmeans: reading the result back failed (OpenCL error %d)\n", err);
        goto done;
    }
    if (cli_image_save("kmeans", ctx, best_dst, &out, out_path) != 0)
        goto done;

    size_t used = 0;
    size_t members[CLPRIM_KMEANS_MAX_K] = {0};
    for (size_t i = 0; i < n; i++)
        members[best_labels[i]]++;
    for (unsigned j = 0; j < k; j++)
        used += members[j] != 0;
    printf("%s: %zu x %zu %s, k = %lu (%zu clusters hold pixels)\n", in_path, img.width, img.height,
           cli_image_channels_name(img.channels), k, used);
    if (restarts > 1)
        printf("kept the run of seed %lu\n", best_seed);
    printf("%u iteration(s), %s\n", best_info.iterations,
           best_info.converged ? "converged (no centre moved by more than the tolerance)"
                               : "stopped at the iteration limit");
    printf("inertia %.6e (%.4g a pixel)\n", best_inertia, best_inertia / (double)n);
    /* The colours of the quantized image: each centre rounded as clprim_kmeans rounds it. */
    const unsigned dims = clprim_kmeans_dims(format);
    unsigned char palette[CLPRIM_KMEANS_MAX_K][3];
    printf("palette:");
    for (unsigned j = 0; j < k; j++) {
        for (unsigned c = 0; c < 3; c++) {
            const float v = floorf(best_centres[j * dims + (dims == 3 ? c : 0)] + 0.5f);
            palette[j][c] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        printf(" #%02x%02x%02x", palette[j][0], palette[j][1], palette[j][2]);
    }
    printf("\n");
    printf("on %s: %.3f ms an iteration (%.1f ms in all, the final images included); the first call took %.1f ms, "
           "%s\n",
           device_name, device_ms / (double)total_iterations, device_ms, first_ms, first_note);

    if (check) {
        float cpu_centres[CLPRIM_KMEANS_MAX_K * 3];
        memcpy(cpu_centres, best_seeded, sizeof cpu_centres);
        clprim_kmeans_info cpu_info;
        start = cli_now();
        cli_kmeans_cpu(&view, (unsigned)k, (unsigned)iterations, cpu_centres, cpu_labels, NULL, &cpu_info);
        const double cpu_ms = (cli_now() - start) * 1e3;
        size_t differ = 0;
        for (size_t i = 0; i < n; i++)
            differ += best_labels[i] != cpu_labels[i];
        const size_t centre_bytes = (size_t)k * clprim_kmeans_dims(format) * sizeof(float);
        const int same = differ == 0 && memcmp(best_centres, cpu_centres, centre_bytes) == 0 &&
                         cpu_info.iterations == best_info.iterations && cpu_info.converged == best_info.converged;
        printf("C loop: %.3f ms an iteration (%.1fx the device), %u iteration(s); labels differing: %zu, centres "
               "%s: %s\n",
               cpu_ms / cpu_info.iterations,
               cpu_ms / cpu_info.iterations / (device_ms / (double)total_iterations), cpu_info.iterations, differ,
               memcmp(best_centres, cpu_centres, centre_bytes) ? "differ" : "equal",
               same ? "the same" : "DIFFERENT");
        if (!same)
            goto done;
    }
    if (palette_path && write_palette(palette_path, (const unsigned char(*)[3])palette, k) != 0)
        goto done;
    printf("wrote %s\n", out_path);
    if (palette_path)
        printf("wrote %s (the palette)\n", palette_path);
    status = 0;

done:
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    if (best_dst)
        clReleaseMemObject(best_dst);
    if (lab)
        clReleaseMemObject(lab);
    free(labels);
    free(best_labels);
    free(cpu_labels);
    cli_image_free(&out);
    cli_image_free(&img);
    clprim_release(ctx);
    return status;
}
