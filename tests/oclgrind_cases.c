/* One small scan or reduce, checked against the CPU reference, for running under
 * oclgrind (tests/oclgrind.sh). The tuning comes from $CLPRIM_TUNING; the device
 * from $CLPRIM_OCLGRIND_DEVICE, default "oclgrind", so that a run outside oclgrind
 * fails instead of passing on another device.
 *
 *   oclgrind_cases scan   TYPE OP inclusive|exclusive|inplace N [nan=K] [levels=L]
 *   oclgrind_cases scan-seeded ... (as scan: clprim_scan_seeded, the seed the
 *                         element of src's buffer at 1, outside both ranges)
 *   oclgrind_cases reduce TYPE OP N [nan=K] [levels=L]
 *
 * TYPE: int32 uint32 int64 uint64 float double uint8; OP: sum min max.
 * nan=K makes the first K inputs NaN (float and double only).
 * levels=L asserts that the tuning splits N elements into exactly L levels of
 * partials (1: one work-group; 2: partials scanned by one work-group; ...), so
 * each case documents which passes it reaches. Inputs sit at an offset of 3
 * elements with 2 more after them; dst at an offset of 1 with 2 more after it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim.h"
#include "internal.h"
#include "reference.h"

static int fail(const char *what)
{
    fprintf(stderr, "oclgrind_cases: %s\n", what);
    return 1;
}

/* Levels of partials in the scan's split (as harness_scan_levels counts them,
 * without Check: this driver runs outside a suite). */
static int levels_of(const clprim_tuning *t, size_t n)
{
    int levels = 1;
    for (clprim_split s = clprim_split_range(t, n); s.groups > 1 && levels < 64; s = clprim_split_range(t, n)) {
        n = s.groups;
        levels++;
    }
    return levels;
}

/* "sum", "min", "max"; "user-sum" ...: the same operator written as a
 * caller's expression (clprim_scan_op, clprim_reduce_op), checked against the
 * same reference; "index-min", "index-max": clprim_reduce_index (reduce only). */
enum { BUILT_IN, USER, INDEX };
static int parse_op(const char *s, clprim_op *op, int *kind)
{
    *kind = !strncmp(s, "user-", 5) ? USER : !strncmp(s, "index-", 6) ? INDEX : BUILT_IN;
    s += *kind == USER ? 5 : *kind == INDEX ? 6 : 0;
    for (int i = 0; i < REFERENCE_OP_COUNT; i++)
        if (!strcmp(s, reference_op_name((clprim_op)i)))
            return *op = (clprim_op)i, 1;
    return 0;
}

/* Every byte a deterministic pseudo-random value, so no input is uninitialised. */
static void fill(clprim_type t, void *data, size_t n, uint64_t seed)
{
    unsigned char *p = data;
    size_t es = reference_type_size(t);
    for (size_t i = 0; i < n * es; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (unsigned char)(seed >> 56);
    }
    if (t == CLPRIM_FLOAT)
        for (size_t i = 0; i < n; i++)
            ((float *)data)[i] = (float)((int)(((unsigned char *)data)[i * 4] % 200) - 100) * 0.25f;
    if (t == CLPRIM_DOUBLE)
        for (size_t i = 0; i < n; i++)
            ((double *)data)[i] = (double)((int)(((unsigned char *)data)[i * 8] % 200) - 100) * 0.125;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return fail("usage: oclgrind_cases scan|scan-by-key TYPE OP inclusive|exclusive|inplace N [nan=K] [runs=R] [levels=L]\n"
                    "       oclgrind_cases reduce|reduce-by-key TYPE OP N [nan=K] [runs=R] [levels=L]\n"
                    "runs=R: by-key runs of 1 to R keys (default 8)\n"
                    "OP: sum, min, max; user-sum ... (an expression); index-min, index-max (reduce only)");
    const int by_key = !strcmp(argv[1], "scan-by-key"); /* int32 keys in runs of 1 to 8 (runs=R) */
    const int runs_of = !strcmp(argv[1], "reduce-by-key"); /* and run-length encoding, unique */
    const int seeded = !strcmp(argv[1], "scan-seeded");
    const int is_scan = by_key || seeded || !strcmp(argv[1], "scan");
    if (!is_scan && !runs_of && strcmp(argv[1], "reduce"))
        return fail("the first argument is scan, scan-seeded, scan-by-key, reduce or reduce-by-key");
    clprim_type t;
    clprim_op op;
    int kind;
    if (!reference_type_from_name(argv[2], &t) || !parse_op(argv[3], &op, &kind))
        return fail("unknown type or operator");
    int arg = 4, exclusive = 0, in_place = 0;
    if (is_scan) {
        exclusive = !strcmp(argv[arg], "exclusive");
        in_place = !strcmp(argv[arg], "inplace");
        if (!exclusive && !in_place && strcmp(argv[arg], "inclusive"))
            return fail("mode: inclusive, exclusive or inplace");
        arg++;
    }
    if (arg >= argc)
        return fail("missing N");
    const size_t n = strtoull(argv[arg++], NULL, 10);
    size_t leading_nan = 0;
    if (arg < argc && !strncmp(argv[arg], "nan=", 4)) {
        leading_nan = strtoull(argv[arg++] + 4, NULL, 10);
        if (leading_nan > n || (t != CLPRIM_FLOAT && t != CLPRIM_DOUBLE))
            return fail("nan=K needs a float or double type and K <= N");
    }
    size_t longest_run = 8;
    if (arg < argc && !strncmp(argv[arg], "runs=", 5)) {
        longest_run = strtoull(argv[arg++] + 5, NULL, 10);
        if (longest_run < 8)
            return fail("runs=R needs R >= 8");
    }
    int want_levels = 0;
    if (arg < argc && sscanf(argv[arg], "levels=%d", &want_levels) != 1)
        return fail("the last argument is levels=L");

    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec && *spec ? spec : "oclgrind");
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "oclgrind_cases: clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    clprim_tuning tuning = clprim_get_tuning(ctx);
    const int levels = levels_of(&tuning, n);
    printf("%s %s %s %s n=%zu on %s, wg=%zu items=%zu groups=%zu: %d level(s)\n", argv[1], argv[2], argv[3],
           is_scan ? argv[4] : "", n, ctx->device_name, tuning.work_group_size, tuning.items_per_thread,
           tuning.groups, levels);
    int status = 0;
    if (want_levels && levels != want_levels) {
        fprintf(stderr, "oclgrind_cases: the tuning makes %d levels, the case wants %d\n", levels, want_levels);
        status = 1;
    }

    const size_t es = reference_type_size(t), before = 3, after = 2, dst_before = in_place ? before : 1;
    const size_t len = before + n + after, dst_len = dst_before + n + after;
    unsigned char *src = malloc(len * es), *out = malloc(dst_len * es), *init = malloc(dst_len * es);
    if (!src || !out || !init)
        return fail("out of memory");
    fill(t, src, len, 12345 + n);
    for (size_t i = before; i < before + leading_nan; i++) {
        if (t == CLPRIM_FLOAT)
            ((float *)src)[i] = NAN;
        else
            ((double *)src)[i] = NAN;
    }
    memset(init, 0xA5, dst_len * es);
    cl_int err;
    cl_mem sbuf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, len * es, src, &err);
    cl_mem dbuf = in_place ? sbuf
                           : clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, dst_len * es,
                                            init, &err);
    if (!sbuf || !dbuf)
        return fail("clCreateBuffer failed");

    int32_t *keys = malloc((before + n) * sizeof *keys);
    if (!keys)
        return fail("out of memory");
    for (size_t i = 0, run = 0; i < before + n; i++) {
        run += i % longest_run == 0 || (i * 2654435761u) % (5 * longest_run / 8) == 0;
        keys[i] = (int32_t)(run % 3);
    }
    cl_mem kbuf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (before + n) * sizeof *keys,
                                 keys, &err);
    char msg[1024] = "";
    unsigned char identity[8];
    reference_empty_result(t, op, identity);
    const int is_float = reference_type_is_float(t);
    const char *const combine[] = {"a + b", is_float ? "fmin(a, b)" : "min(a, b)", is_float ? "fmax(a, b)" : "max(a, b)"};
    const clprim_operator user_op = {combine[op], identity};
    if (is_scan) {
        if (by_key)
            s = clprim_scan_by_key(ctx, CLPRIM_INT32, t, op, kind == USER ? &user_op : NULL, exclusive, kbuf, before,
                                   sbuf, before, dbuf, dst_before, n, 0, NULL, NULL);
        else if (seeded)
            s = clprim_scan_seeded(ctx, t, op, kind == USER ? &user_op : NULL, exclusive, sbuf, 1, sbuf, before, dbuf,
                                   dst_before, n, 0, NULL, NULL);
        else
            s = kind == USER
                    ? clprim_scan_op(ctx, t, &user_op, exclusive, sbuf, before, dbuf, dst_before, n, 0, NULL, NULL)
                    : clprim_scan(ctx, t, op, exclusive, sbuf, before, dbuf, dst_before, n, 0, NULL, NULL);
        if (s == CLPRIM_SUCCESS)
            err = clEnqueueReadBuffer(clprim_queue(ctx), dbuf, CL_TRUE, 0, dst_len * es, out, 0, NULL, NULL);
        if (s != CLPRIM_SUCCESS || err != CL_SUCCESS) {
            fprintf(stderr, "oclgrind_cases: clprim_scan: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
            status = 1;
        } else {
            unsigned char *want = by_key ? malloc(n * es + 1) : NULL;
            if (by_key)
                reference_scan_by_key(CLPRIM_INT32, keys + before, t, op, NULL, NULL, exclusive, src + before * es,
                                      want, n);
            if (by_key && memcmp(want, out + dst_before * es, n * es) != 0) {
                fprintf(stderr, "oclgrind_cases: wrong result: scan by key differs from the C reference\n");
                status = 1;
            } else if (!by_key && (seeded ? reference_check_scan_seeded(t, op, exclusive, src + es, src + before * es,
                                                                        out + dst_before * es, n, msg, sizeof msg)
                                          : reference_check_scan(t, op, exclusive, src + before * es,
                                                                 out + dst_before * es, n, msg, sizeof msg)) != n) {
                fprintf(stderr, "oclgrind_cases: wrong result: %s\n", msg);
                status = 1;
            }
            const unsigned char *around = in_place ? src : init;
            if (memcmp(out, around, dst_before * es) || memcmp(out + (dst_before + n) * es,
                                                               around + (dst_before + n) * es, after * es)) {
                fprintf(stderr, "oclgrind_cases: the scan wrote outside its range\n");
                status = 1;
            }
            free(want);
        }
    } else if (runs_of) {
        /* The C answer: each run's last key and the last of its scan; its length. */
        unsigned char *scanned = malloc(n * es + 1), *want_v = malloc(n * es + 1), *got_v = malloc(n * es + 1);
        int32_t *want_k = malloc(n * 4 + 4), *got_k = malloc(n * 4 + 4);
        cl_ulong *want_len = malloc(n * 8 + 8), *got_len = malloc(n * 8 + 8);
        if (!scanned || !want_v || !got_v || !want_k || !got_k || !want_len || !got_len)
            return fail("out of memory");
        reference_scan_by_key(CLPRIM_INT32, keys + before, t, op, NULL, NULL, 0, src + before * es, scanned, n);
        size_t runs = 0, start = 0;
        for (size_t i = 0; i < n; i++)
            if (i + 1 == n || keys[before + i + 1] != keys[before + i]) {
                want_k[runs] = keys[before + i];
                memcpy(want_v + runs * es, scanned + i * es, es);
                want_len[runs++] = i + 1 - start;
                start = i + 1;
            }
        cl_mem kout = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, n * 4 + 4, NULL, &err);
        cl_mem lout = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, n * 8 + 8, NULL, &err);
        /* Run lengths first: they need the most scratch, so the later calls
         * reuse it. (Oclgrind reported the next call's reads of a regrown
         * scratch as uninitialised, though the data read back was right.) */
        size_t got_runs = 0, rle_runs = 0, unique_runs = 0;
        s = clprim_run_length_encode(ctx, CLPRIM_INT32, kbuf, before, n, kout, 0, lout, 0, &rle_runs, NULL, 0, 0, NULL,
                                     NULL);
        if (s == CLPRIM_SUCCESS)
            err = clEnqueueReadBuffer(clprim_queue(ctx), lout, CL_TRUE, 0, runs * 8, got_len, 0, NULL, NULL);
        if (s == CLPRIM_SUCCESS && err == CL_SUCCESS)
            s = clprim_reduce_by_key(ctx, CLPRIM_INT32, t, op, kind == USER ? &user_op : NULL, kbuf, before, sbuf,
                                     before, n, kout, 0, dbuf, 0, &got_runs, NULL, 0, 0, NULL, NULL);
        if (s == CLPRIM_SUCCESS && err == CL_SUCCESS)
            err = clEnqueueReadBuffer(clprim_queue(ctx), dbuf, CL_TRUE, 0, runs * es, got_v, 0, NULL, NULL);
        if (s == CLPRIM_SUCCESS && err == CL_SUCCESS)
            s = clprim_unique(ctx, CLPRIM_INT32, kbuf, before, n, kout, 0, &unique_runs, NULL, 0, 0, NULL, NULL);
        if (s == CLPRIM_SUCCESS && err == CL_SUCCESS)
            err = clEnqueueReadBuffer(clprim_queue(ctx), kout, CL_TRUE, 0, runs * 4, got_k, 0, NULL, NULL);
        if (s != CLPRIM_SUCCESS || err != CL_SUCCESS) {
            fprintf(stderr, "oclgrind_cases: by key: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
            status = 1;
        } else if (got_runs != runs || rle_runs != runs || unique_runs != runs || memcmp(got_v, want_v, runs * es) ||
                   memcmp(got_len, want_len, runs * 8) || memcmp(got_k, want_k, runs * 4)) {
            fprintf(stderr, "oclgrind_cases: wrong result: %zu runs (C: %zu), or their keys, values or lengths\n",
                    got_runs, runs);
            status = 1;
        }
        clReleaseMemObject(kout);
        clReleaseMemObject(lout);
        free(scanned);
        free(want_v);
        free(got_v);
        free(want_k);
        free(got_k);
        free(want_len);
        free(got_len);
    } else {
        unsigned char result[16];
        size_t index = 0;
        s = kind == USER    ? clprim_reduce_op(ctx, t, &user_op, sbuf, before, n, result, 0, NULL)
            : kind == INDEX ? clprim_reduce_index(ctx, t, op, sbuf, before, n, result, &index, 0, NULL)
                            : clprim_reduce(ctx, t, op, sbuf, before, n, result, 0, NULL);
        /* The index is the first element with the reduction's bits (the data has no -0.0). */
        size_t first = 0;
        while (kind == INDEX && first + 1 < n && memcmp(src + (before + first) * es, result, es) != 0)
            first++;
        if (s == CLPRIM_SUCCESS && kind == INDEX && index != first) {
            fprintf(stderr, "oclgrind_cases: index %zu, the first element with the value is %zu\n", index, first);
            status = 1;
        }
        if (s != CLPRIM_SUCCESS) {
            fprintf(stderr, "oclgrind_cases: clprim_reduce: %s: %s\n", clprim_status_name(s),
                    clprim_last_error(ctx));
            status = 1;
        } else if (!reference_check_reduce(t, op, src + before * es, n, result, msg, sizeof msg)) {
            fprintf(stderr, "oclgrind_cases: wrong result: %s\n", msg);
            status = 1;
        }
    }
    clReleaseMemObject(kbuf);
    free(keys);
    if (dbuf != sbuf)
        clReleaseMemObject(dbuf);
    clReleaseMemObject(sbuf);
    clprim_release(ctx);
    free(src);
    free(out);
    free(init);
    if (status == 0)
        printf("ok\n");
    return status;
}
