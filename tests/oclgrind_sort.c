/* One small sort, box sort or k-means, checked against the CPU reference, for
 * running under oclgrind (tests/oclgrind.sh): every kernel of cl/radix_sort.cl,
 * cl/boxsort.cl and cl/kmeans.cl. The tuning comes from $CLPRIM_TUNING; the
 * device from $CLPRIM_OCLGRIND_DEVICE, default "oclgrind", so a run outside
 * oclgrind fails instead of passing elsewhere.
 *
 *   oclgrind_sort sort    uint32|int32|float|uint64|int64|double keys|pairs|indices|inplace|refused N
 *                         [desc|BEGIN:END] [top=K]
 * (refused: a keys sort the device's local memory cannot hold, which must fail
 * with CLPRIM_UNSUPPORTED and write nothing; top=K: the first K alone, by
 * clprim_top_k_keys or clprim_top_k_pairs, every kernel of cl/top_k.cl)
 *   oclgrind_sort boxsort NX NY NZ N [sorted]
 *   oclgrind_sort kmeans  rgb8|rgba8|grey8 K ITERATIONS W H
 *
 * Sort inputs sit at an offset of 3 elements with 2 more after them; outputs
 * are pre-filled and must keep what lies outside their range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim.h"
#include "reference_sort.h"

static int fail(const char *what)
{
    fprintf(stderr, "oclgrind_sort: %s\n", what);
    return 1;
}

static uint64_t state = 0x2545F4914F6CDD1Dull;
static uint32_t next32(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(state >> 32);
}

static cl_mem buffer(clprim_context *ctx, size_t bytes, const void *init)
{
    cl_context cl = clprim_cl_context(ctx);
    cl_int err;
    unsigned char *fill = NULL;
    if (!init) { /* outputs start as 0xA5 bytes, as in the Check suites */
        fill = malloc(bytes ? bytes : 1);
        if (!fill)
            return NULL;
        memset(fill, 0xA5, bytes ? bytes : 1);
    }
    cl_mem b = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes ? bytes : 1,
                              init ? (void *)init : fill, &err);
    free(fill);
    return err == CL_SUCCESS ? b : NULL;
}

static int read_back(clprim_context *ctx, cl_mem b, size_t bytes, void *out)
{
    return clEnqueueReadBuffer(clprim_queue(ctx), b, CL_TRUE, 0, bytes, out, 0, NULL, NULL) == CL_SUCCESS;
}

static int report(clprim_context *ctx, clprim_status s, const char *call)
{
    fprintf(stderr, "oclgrind_sort: %s: %s: %s\n", call, clprim_status_name(s), clprim_last_error(ctx));
    return 1;
}

static int run_sort(clprim_context *ctx, int argc, char **argv)
{
    static const char *const types[] = {"uint32", "int32", "float", "uint64", "int64", "double"};
    static const clprim_type tvals[] = {CLPRIM_UINT32, CLPRIM_INT32, CLPRIM_FLOAT,
                                        CLPRIM_UINT64, CLPRIM_INT64, CLPRIM_DOUBLE};
    static const char *const modes[] = {"keys", "pairs", "indices", "inplace", "refused"};
    if (argc < 5 || argc > 7)
        return fail("sort TYPE MODE N [desc|BEGIN:END] [top=K]");
    int ti = -1, mode = -1;
    for (int i = 0; i < 6; i++)
        ti = strcmp(argv[2], types[i]) ? ti : i;
    for (int i = 0; i < 5; i++)
        mode = strcmp(argv[3], modes[i]) ? mode : i;
    if (ti < 0 || mode < 0)
        return fail("TYPE: uint32 int32 float uint64 int64 double; MODE: keys pairs indices inplace refused");
    clprim_sort_order order = {0, 0, 0};
    size_t top = 0; /* 0: the whole sort */
    for (int a = 5; a < argc; a++)
        if (!strcmp(argv[a], "desc"))
            order.descending = 1;
        else if (sscanf(argv[a], "top=%zu", &top) != 1 &&
                 sscanf(argv[a], "%u:%u", &order.begin_bit, &order.end_bit) != 2)
            return fail("ORDER: desc or BEGIN:END; top=K");
    const clprim_type t = tvals[ti];
    /* Values as wide as the keys; indices are uint32. */
    const size_t kb = reference_sort_key_bytes(t), vb = mode == 2 ? 4 : kb;
    const clprim_type vt = mode == 2 || kb == 4 ? CLPRIM_UINT32 : CLPRIM_UINT64;
    const size_t n = strtoull(argv[4], NULL, 10), before = 3, after = 2, len = before + n + after;
    unsigned char *keys = malloc(len * kb), *vals = malloc(len * vb), *kout = malloc(len * kb),
                  *vout = malloc(len * vb), *fill = malloc(len * (kb > vb ? kb : vb));
    if (!keys || !vals || !kout || !vout || !fill)
        return fail("out of memory");
    memset(fill, 0xA5, len * (kb > vb ? kb : vb));
    for (size_t i = 0; i < len; i++) {
        /* Repeats, spread over every digit. */
        uint64_t k = (uint64_t)(next32() % 50u) * 0x0500000105000001ull;
        if ((t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE) && i % 7 == 0)
            k = (uint64_t)(i % 2 ? 0x80000000u : 0x7FC00000u) << (kb == 8 ? 32 : 0); /* -0.0 and a NaN */
        const uint64_t v = (uint64_t)next32() << 32 | next32();
        memcpy(keys + i * kb, &k, kb);
        memcpy(vals + i * vb, &v, vb);
    }
    cl_mem kin = buffer(ctx, len * kb, keys), vin = buffer(ctx, len * vb, vals);
    cl_mem ko = mode == 3 ? kin : buffer(ctx, len * kb, fill), vo = mode == 3 ? vin : buffer(ctx, len * vb, fill);
    if (!kin || !vin || !ko || !vo)
        return fail("clCreateBuffer failed");
    clprim_status s;
    if (mode == 4) {
        s = clprim_sort_keys(ctx, t, &order, kin, before, ko, before, n, 0, NULL, NULL);
        if (s != CLPRIM_UNSUPPORTED)
            return report(ctx, s, "sort (want CLPRIM_UNSUPPORTED)");
        if (!strstr(clprim_last_error(ctx), "local memory"))
            return report(ctx, s, "sort (the message should name the local memory)");
        if (!read_back(ctx, ko, len * kb, kout) || memcmp(kout, fill, len * kb))
            return fail("a refused sort wrote its output");
        printf("refused: %s\n", clprim_last_error(ctx));
        return 0;
    }
    if (top && mode == 0)
        s = clprim_top_k_keys(ctx, t, &order, top, kin, before, n, ko, before, 0, NULL, NULL);
    else if (top)
        s = clprim_top_k_pairs(ctx, t, vt, &order, top, kin, before, mode == 2 ? NULL : vin, before, n, ko, before,
                               vo, before, 0, NULL, NULL);
    else if (mode == 0)
        s = clprim_sort_keys(ctx, t, &order, kin, before, ko, before, n, 0, NULL, NULL);
    else
        s = clprim_sort_pairs(ctx, t, vt, &order, kin, before, ko, before, mode == 2 ? NULL : vin, before, vo, before,
                              n, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS)
        return report(ctx, s, "sort");
    if (!read_back(ctx, ko, len * kb, kout) || !read_back(ctx, vo, len * vb, vout))
        return fail("reading back failed");
    uint32_t *perm = reference_sort_perm_order(t, &order, keys + before * kb, n);
    int status = 0;
    const size_t written = top && top < n ? top : n;
    for (size_t j = 0; j < written && !status; j++) {
        const uint32_t index = perm[j];
        const int key_ok = !memcmp(kout + (before + j) * kb, keys + (before + index) * kb, kb);
        const int value_ok = mode == 0 || (mode == 2 ? !memcmp(vout + (before + j) * 4, &index, 4)
                                                     : !memcmp(vout + (before + j) * vb, vals + (before + index) * vb, vb));
        if (!key_ok || !value_ok) {
            fprintf(stderr, "oclgrind_sort: sorted element %zu is wrong\n", j);
            status = 1;
        }
    }
    const unsigned char *around = mode == 3 ? keys : fill;
    if (memcmp(kout, around, before * kb) ||
        memcmp(kout + (before + written) * kb, around + (before + written) * kb, (n - written + after) * kb))
        status = fail("the sort wrote outside its range");
    free(perm);
    free(keys);
    free(vals);
    free(kout);
    free(vout);
    free(fill);
    return status;
}

static int run_boxsort(clprim_context *ctx, int argc, char **argv)
{
    if (argc != 6 && argc != 7)
        return fail("boxsort NX NY NZ N [sorted]");
    clprim_box_grid g = {{-1, 0, 2}, {0.5f, 1, 0.25f},
                         {strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10)}};
    const size_t n = strtoull(argv[5], NULL, 10), boxes = g.dims[0] * g.dims[1] * g.dims[2];
    const int with_sorted = argc == 7;
    float *pos = malloc((n + 1) * 12), *sorted = malloc((n + 1) * 12);
    uint32_t *start = malloc((boxes + 1) * 4), *order = malloc((n + 1) * 4);
    uint32_t *want_start = malloc((boxes + 1) * 4), *want_order = malloc((n + 1) * 4);
    if (!pos || !sorted || !start || !order || !want_start || !want_order)
        return fail("out of memory");
    for (size_t i = 0; i < 3 * n; i++) /* a little beyond the grid on every side */
        pos[i] = g.origin[i % 3] + g.box_size[i % 3] * ((float)(next32() % 1000) / 1000.0f * (float)(g.dims[i % 3] + 2) - 1);
    cl_mem p = buffer(ctx, n * 12, pos), sb = buffer(ctx, (boxes + 1) * 4, NULL), ob = buffer(ctx, n * 4, NULL);
    cl_mem spb = with_sorted ? buffer(ctx, n * 12, NULL) : NULL;
    if (!p || !sb || !ob || (with_sorted && !spb))
        return fail("clCreateBuffer failed");
    clprim_status s = clprim_box_sort(ctx, &g, p, 0, n, sb, 0, ob, 0, spb, 0, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS)
        return report(ctx, s, "box sort");
    if (!read_back(ctx, sb, (boxes + 1) * 4, start) || !read_back(ctx, ob, n * 4, order) ||
        (spb && !read_back(ctx, spb, n * 12, sorted)))
        return fail("reading back failed");
    reference_box_sort(&g, pos, n, want_start, want_order);
    int status = 0;
    if (memcmp(start, want_start, (boxes + 1) * 4) || memcmp(order, want_order, n * 4))
        status = fail("box starts or order differ from the counting sort");
    for (size_t j = 0; spb && j < n && !status; j++)
        if (memcmp(sorted + 3 * j, pos + 3 * (size_t)want_order[j], 12))
            status = fail("sorted positions are wrong");
    free(pos);
    free(sorted);
    free(start);
    free(order);
    free(want_start);
    free(want_order);
    return status;
}

static int run_kmeans(clprim_context *ctx, int argc, char **argv)
{
    static const char *const names[] = {"rgb8", "rgba8", "grey8"};
    static const clprim_pixel_format formats[] = {CLPRIM_RGB8, CLPRIM_RGBA8, CLPRIM_GREY8};
    if (argc != 7)
        return fail("kmeans FORMAT K ITERATIONS W H");
    int fi = -1;
    for (int i = 0; i < 3; i++)
        fi = strcmp(argv[2], names[i]) ? fi : i;
    if (fi < 0)
        return fail("FORMAT: rgb8 rgba8 grey8");
    const clprim_pixel_format f = formats[fi];
    const unsigned k = (unsigned)atoi(argv[3]), iterations = (unsigned)atoi(argv[4]);
    const size_t w = strtoull(argv[5], NULL, 10), h = strtoull(argv[6], NULL, 10), bpp = clprim_pixel_size(f);
    const size_t pitch = w * bpp + 2, offset = 3, bytes = offset + h * pitch, n = w * h;
    unsigned char *img = malloc(bytes), *out = malloc(bytes), *want = malloc(bytes);
    unsigned char *labels = malloc(n), *want_labels = malloc(n);
    if (!img || !out || !want || !labels || !want_labels)
        return fail("out of memory");
    for (size_t i = 0; i < bytes; i++)
        img[i] = (unsigned char)(next32() % 6 * 40 + next32() % 9); /* a few colour levels, some noise */
    float centres[256 * 3], want_centres[256 * 3];
    clprim_status s = clprim_kmeans_seed(img + offset, w, h, pitch, f, k, 5, centres);
    if (s != CLPRIM_SUCCESS)
        return report(NULL, s, "kmeans seed");
    memcpy(want_centres, centres, sizeof centres);
    cl_mem src = buffer(ctx, bytes, img), dst = buffer(ctx, bytes, img), lab = buffer(ctx, n, NULL);
    if (!src || !dst || !lab)
        return fail("clCreateBuffer failed");
    clprim_image si = {src, offset, w, h, pitch, f}, di = {dst, offset, w, h, pitch, f};
    clprim_kmeans_info info;
    s = clprim_kmeans(ctx, &si, k, iterations, centres, lab, 0, &di, &info, 0, NULL);
    if (s != CLPRIM_SUCCESS)
        return report(ctx, s, "kmeans");
    if (!read_back(ctx, dst, bytes, out) || !read_back(ctx, lab, n, labels))
        return fail("reading back failed");
    memcpy(want, img, bytes);
    clprim_kmeans_info want_info;
    const reference_image_view view = {img, offset, w, h, pitch, f};
    reference_kmeans(&view, k, iterations, want_centres, want_labels, want, &want_info);
    printf("kmeans: %u iteration(s), converged %d\n", info.iterations, info.converged);
    if (memcmp(labels, want_labels, n) || memcmp(out, want, bytes) || info.iterations != want_info.iterations ||
        memcmp(centres, want_centres, (size_t)k * clprim_kmeans_dims(f) * sizeof(float)))
        return fail("labels, pixels, centres or iterations differ from the reference");
    free(img);
    free(out);
    free(want);
    free(labels);
    free(want_labels);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fail("usage: oclgrind_sort sort|boxsort|kmeans ...");
    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec && *spec ? spec : "oclgrind");
    if (s != CLPRIM_SUCCESS)
        return report(NULL, s, "clprim_create");
    clprim_tuning t = clprim_get_tuning(ctx);
    printf("%s on wg=%zu items=%zu groups=%zu\n", argv[1], t.work_group_size, t.items_per_thread, t.groups);
    int status;
    if (!strcmp(argv[1], "sort"))
        status = run_sort(ctx, argc, argv);
    else if (!strcmp(argv[1], "boxsort"))
        status = run_boxsort(ctx, argc, argv);
    else if (!strcmp(argv[1], "kmeans"))
        status = run_kmeans(ctx, argc, argv);
    else
        status = fail("the first argument is sort, boxsort or kmeans");
    clprim_release(ctx);
    if (status == 0)
        printf("ok\n");
    return status;
}
