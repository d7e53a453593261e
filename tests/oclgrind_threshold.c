/* One small image call, checked against the CPU reference, for running under
 * oclgrind (tests/oclgrind.sh): every kernel of cl/threshold.cl. The tuning comes
 * from $CLPRIM_TUNING; the device from $CLPRIM_OCLGRIND_DEVICE, default
 * "oclgrind", so a run outside oclgrind fails instead of passing elsewhere.
 *
 *   oclgrind_threshold red       rgb8|rgba8 keep|yellow|reinsert W H
 *   oclgrind_threshold planar    keep|yellow|reinsert W H
 *   oclgrind_threshold histogram rgb8|rgba8|grey8 r|g|b|a|grey|all BINS W H
 *   oclgrind_threshold otsu      BINS
 *   oclgrind_threshold grey      rgb8|rgba8|grey8 rgb8|rgba8|grey8 level|buffer|otsu W H
 *
 * A last argument "index64" forces the kernels' 64-bit indexing
 * ($CLPRIM_THRESHOLD_INDEX64), which only images beyond 2^31 bytes get otherwise.
 * Interleaved images sit at a byte offset of 3 with 2 bytes of row padding;
 * destinations are pre-filled, and the bytes around their pixels must stay. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim.h"
#include "reference_image.h"

static int fail(const char *what)
{
    fprintf(stderr, "oclgrind_threshold: %s\n", what);
    return 1;
}

static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

static const char *const formats[] = {"rgb8", "rgba8", "grey8"};
static const char *const modes[] = {"keep", "yellow", "reinsert"};
static const char *const channels[] = {"r", "g", "b", "a", "grey", "all"};

static uint64_t seed = 0x2545F4914F6CDD1Dull;
static unsigned char next_byte(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned char)(seed >> 56);
}

/* Pixels with black and pure reds among them; every byte initialised. */
static void fill(unsigned char *p, size_t bytes, size_t bpp)
{
    for (size_t i = 0; i < bytes; i++)
        p[i] = next_byte();
    for (size_t i = 0; bpp >= 3 && i + bpp <= bytes; i += bpp)
        if (next_byte() % 4 == 0)
            p[i + 1] = p[i + 2] = 0;
}

typedef struct {
    size_t offset, pitch, bytes;
} layout;

static layout layout_of(size_t w, size_t h, size_t bpp)
{
    layout l = {3, w * bpp + 2, 0};
    l.bytes = l.offset + h * l.pitch;
    return l;
}

static cl_mem buffer(clprim_context *ctx, size_t bytes, const void *init)
{
    cl_context cl = clprim_cl_context(ctx);
    cl_int err;
    cl_mem b = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)init, &err);
    return err == CL_SUCCESS ? b : NULL;
}

static int read_and_compare(clprim_context *ctx, cl_mem buf, const void *want, size_t bytes, const char *what)
{
    unsigned char *got = malloc(bytes);
    if (!got || clEnqueueReadBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, bytes, got, 0, NULL, NULL) != CL_SUCCESS)
        return fail("reading the result failed");
    int same = memcmp(got, want, bytes) == 0;
    for (size_t i = 0; !same && i < bytes; i++)
        if (got[i] != ((const unsigned char *)want)[i]) {
            fprintf(stderr, "oclgrind_threshold: %s: byte %zu is %u, want %u\n", what, i, got[i],
                    ((const unsigned char *)want)[i]);
            break;
        }
    free(got);
    return same ? 0 : 1;
}

static int report(clprim_context *ctx, clprim_status s, const char *call)
{
    if (s == CLPRIM_SUCCESS)
        return 0;
    fprintf(stderr, "oclgrind_threshold: %s: %s: %s\n", call, clprim_status_name(s), clprim_last_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 3 && !strcmp(argv[argc - 1], "index64")) {
        setenv("CLPRIM_THRESHOLD_INDEX64", "1", 1);
        argc--;
    }
    if (argc < 3)
        return fail("usage: see the comment at the top of tests/oclgrind_threshold.c");
    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec && *spec ? spec : "oclgrind");
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "oclgrind_threshold: clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    clprim_tuning t = clprim_get_tuning(ctx);
    printf("%s wg=%zu items=%zu groups=%zu:", argv[1], t.work_group_size, t.items_per_thread, t.groups);
    for (int i = 2; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");

    int status = 1;
    const char *what = argv[1];
    if (!strcmp(what, "red") && argc == 6) {
        int f = lookup(argv[2], formats, 2), m = lookup(argv[3], modes, 3);
        size_t w = strtoull(argv[4], NULL, 10), h = strtoull(argv[5], NULL, 10), bpp = f == 1 ? 4 : 3;
        if (f < 0 || m < 0 || !w || !h)
            return fail("red: bad arguments");
        layout l = layout_of(w, h, bpp);
        unsigned char *src = malloc(l.bytes), *want = malloc(l.bytes);
        fill(src, l.bytes, bpp);
        memset(want, 0xA5, l.bytes);
        reference_threshold_red(src + l.offset, l.pitch, want + l.offset, l.pitch, w, h, bpp, 0.7f,
                                (clprim_threshold_mode)m);
        cl_mem sb = buffer(ctx, l.bytes, src), db = buffer(ctx, l.bytes, memset(malloc(l.bytes), 0xA5, l.bytes));
        clprim_image si = {sb, l.offset, w, h, l.pitch, f ? CLPRIM_RGBA8 : CLPRIM_RGB8};
        clprim_image di = {db, l.offset, w, h, l.pitch, f ? CLPRIM_RGBA8 : CLPRIM_RGB8};
        status = report(ctx, clprim_threshold_red(ctx, &si, &di, 0.7f, (clprim_threshold_mode)m, 0, NULL, NULL),
                        "clprim_threshold_red");
        if (!status)
            status = read_and_compare(ctx, db, want, l.bytes, "red");
    } else if (!strcmp(what, "planar") && argc == 5) {
        int m = lookup(argv[2], modes, 3);
        size_t w = strtoull(argv[3], NULL, 10), h = strtoull(argv[4], NULL, 10), n = w * h;
        if (m < 0 || !n)
            return fail("planar: bad arguments");
        size_t len = 2 + 3 * n + 1; /* 2 floats before, 1 after */
        float *src = malloc(len * sizeof(float)), *want = malloc(len * sizeof(float));
        for (size_t i = 0; i < len; i++)
            src[i] = (float)(next_byte() % 64) * ((next_byte() & 1) ? 1.0f : -0.5f);
        memset(want, 0xA5, len * sizeof(float));
        cl_mem sb = buffer(ctx, len * sizeof(float), src), db = buffer(ctx, len * sizeof(float), want);
        reference_threshold_red_planar(src + 2, want + 2, n, 0.7f, (clprim_threshold_mode)m);
        clprim_planar_image si = {sb, 2, w, h}, di = {db, 2, w, h};
        status = report(ctx, clprim_threshold_red_planar(ctx, &si, &di, 0.7f, (clprim_threshold_mode)m, 0, NULL, NULL),
                        "clprim_threshold_red_planar");
        if (!status)
            status = read_and_compare(ctx, db, want, len * sizeof(float), "planar");
    } else if (!strcmp(what, "histogram") && argc == 7) {
        int f = lookup(argv[2], formats, 3), c = lookup(argv[3], channels, 6);
        size_t bins = strtoull(argv[4], NULL, 10), w = strtoull(argv[5], NULL, 10), h = strtoull(argv[6], NULL, 10);
        if (f < 0 || c < 0 || !w || !h || !bins || bins > 256)
            return fail("histogram: bad arguments");
        size_t bpp = clprim_pixel_size((clprim_pixel_format)f), nch = c == CLPRIM_CHANNEL_ALL ? bpp : 1;
        layout l = layout_of(w, h, bpp);
        unsigned char *src = malloc(l.bytes);
        fill(src, l.bytes, bpp);
        size_t len = 1 + nch * bins + 1;
        uint32_t *want = malloc(len * 4);
        memset(want, 0xA5, len * 4);
        reference_image_histogram(src + l.offset, l.pitch, w, h, bpp, (clprim_channel)c, bins, want + 1);
        cl_mem sb = buffer(ctx, l.bytes, src), hb = buffer(ctx, len * 4, memset(malloc(len * 4), 0xA5, len * 4));
        clprim_image si = {sb, l.offset, w, h, l.pitch, (clprim_pixel_format)f};
        status = report(ctx, clprim_image_histogram(ctx, &si, (clprim_channel)c, bins, hb, 1, 0, NULL, NULL),
                        "clprim_image_histogram");
        if (!status)
            status = read_and_compare(ctx, hb, want, len * 4, "histogram");
    } else if (!strcmp(what, "otsu") && argc == 3) {
        size_t bins = strtoull(argv[2], NULL, 10);
        if (!bins || bins > 256)
            return fail("otsu: bad arguments");
        uint32_t hist[256];
        for (size_t i = 0; i < bins; i++)
            hist[i] = next_byte() % 3 ? (uint32_t)next_byte() * 37u : 0;
        unsigned want = reference_otsu(hist, bins), got = 999;
        cl_mem hb = buffer(ctx, bins * 4, hist);
        uint32_t init[2] = {7, 7};
        cl_mem lb = buffer(ctx, sizeof init, init);
        status = report(ctx, clprim_otsu(ctx, hb, 0, bins, lb, 1, &got, 0, NULL, NULL), "clprim_otsu");
        uint32_t after[2] = {7, want};
        if (!status && got != want) {
            fprintf(stderr, "oclgrind_threshold: Otsu level %u, want %u\n", got, want);
            status = 1;
        }
        if (!status)
            status = read_and_compare(ctx, lb, after, sizeof after, "otsu level buffer");
    } else if (!strcmp(what, "grey") && argc == 7) {
        int sf = lookup(argv[2], formats, 3), df = lookup(argv[3], formats, 3);
        static const char *const hows[] = {"level", "buffer", "otsu"};
        int how = lookup(argv[4], hows, 3);
        size_t w = strtoull(argv[5], NULL, 10), h = strtoull(argv[6], NULL, 10);
        if (sf < 0 || df < 0 || how < 0 || !w || !h)
            return fail("grey: bad arguments");
        size_t sbpp = clprim_pixel_size((clprim_pixel_format)sf), dbpp = clprim_pixel_size((clprim_pixel_format)df);
        layout sl = layout_of(w, h, sbpp), dl = layout_of(w, h, dbpp);
        unsigned char *src = malloc(sl.bytes), *want = malloc(dl.bytes);
        fill(src, sl.bytes, sbpp);
        unsigned level = 100;
        if (how == 2) {
            uint32_t hist[256];
            reference_image_histogram(src + sl.offset, sl.pitch, w, h, sbpp, CLPRIM_CHANNEL_GREY, 256, hist);
            level = reference_otsu(hist, 256);
        }
        memset(want, 0xA5, dl.bytes);
        reference_threshold_grey(src + sl.offset, sl.pitch, sbpp, want + dl.offset, dl.pitch, dbpp, w, h, level);
        cl_mem sb = buffer(ctx, sl.bytes, src), db = buffer(ctx, dl.bytes, memset(malloc(dl.bytes), 0xA5, dl.bytes));
        clprim_image si = {sb, sl.offset, w, h, sl.pitch, (clprim_pixel_format)sf};
        clprim_image di = {db, dl.offset, w, h, dl.pitch, (clprim_pixel_format)df};
        if (how == 0) {
            status = report(ctx, clprim_threshold_grey(ctx, &si, &di, level, 0, NULL, NULL), "clprim_threshold_grey");
        } else if (how == 1) {
            uint32_t lv[2] = {0, level};
            cl_mem lb = buffer(ctx, sizeof lv, lv);
            status = report(ctx, clprim_threshold_grey_buffer(ctx, &si, &di, lb, 1, 0, NULL, NULL),
                            "clprim_threshold_grey_buffer");
        } else {
            unsigned got = 999;
            status = report(ctx, clprim_threshold_otsu(ctx, &si, &di, &got, 0, NULL, NULL), "clprim_threshold_otsu");
            if (!status && got != level) {
                fprintf(stderr, "oclgrind_threshold: Otsu level %u, want %u\n", got, level);
                status = 1;
            }
        }
        if (!status)
            status = read_and_compare(ctx, db, want, dl.bytes, "grey");
    } else {
        status = fail("unknown case or wrong number of arguments");
    }
    clFinish(clprim_queue(ctx));
    clprim_release(ctx); /* the process exits next: host buffers are left to it */
    if (status == 0)
        printf("ok\n");
    return status;
}
