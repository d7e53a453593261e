/* One small compaction or histogram, checked against the CPU reference, for
 * running under oclgrind (tests/oclgrind.sh). The tuning comes from
 * $CLPRIM_TUNING; the device from $CLPRIM_OCLGRIND_DEVICE, default "oclgrind".
 *
 *   oclgrind_compact_histogram compact TYPE KEEP N [inplace] [device] [partition] [second=KEEP] [levels=L] [census] [flags=F]
 *     KEEP: lt le gt ge eq ne nonzero flagged expr; the value is 3 (1.5 for
 *     floats); expr is "x > 2 && i % 3 != 1 && i / (i - i) == 0" (an integer
 *     division by zero: 0, and no trap). device: the count to a cl_ulong in a
 *     buffer instead of the host. partition: clprim_partition; second=KEEP:
 *     clprim_partition_three_way with a second predicate of that kind (value
 *     1, or 0.5; flags of its own; expr "x < 1 || i % 5 == 2"). levels=L
 *     asserts the split (1: one work-group; 2: pass 3 folds the counts; 3+:
 *     pass 2 scans them). census: asserts that a partition runs in one launch
 *     whose tiles learn every tile's counts (form=one-sweep). flags=F: the
 *     flags from byte F of their buffer (default 5; 0 is 16-byte aligned,
 *     which whole tiles read in words).
 *   oclgrind_compact_histogram histogram TYPE BINS N [stride=S] [plan=LOCAL/PASSES] [accumulate]
 *     bins over [-10, 30) (uint8: [0, 256)); plan forces windows of LOCAL bins
 *     (or global atomics beyond PASSES windows).
 *
 * Inputs sit at an offset of 3 elements with 2 more after them; outputs at an
 * offset of 1 with 2 more after them, all checked untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim.h"
#include "internal.h"
#include "reference.h"
#include "reference_compact_histogram.h"

static int fail(const char *what)
{
    fprintf(stderr, "oclgrind_compact_histogram: %s\n", what);
    return 1;
}

/* Levels of the compaction's split, as the driver runs it. */
static int levels_of(const clprim_tuning *t, size_t n)
{
    clprim_split s = clprim_split_range(t, n);
    if (s.groups == 1)
        return 1;
    if (s.groups <= t->work_group_size * t->items_per_thread)
        return 2;
    return 1 + levels_of(t, s.groups);
}

/* Small values (so comparisons with 3 go every way), every byte initialised. */
static void fill(clprim_type t, void *data, size_t n, uint64_t seed)
{
    unsigned char *p = data;
    size_t es = reference_type_size(t);
    memset(p, 0, n * es);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int v = (int)(seed >> 58) - 16; /* [-16, 48) */
        switch (t) {
        case CLPRIM_INT32: ((int32_t *)data)[i] = v; break;
        case CLPRIM_UINT32: ((uint32_t *)data)[i] = (uint32_t)(v + 16); break;
        case CLPRIM_INT64: ((int64_t *)data)[i] = v; break;
        case CLPRIM_UINT64: ((uint64_t *)data)[i] = (uint64_t)(v + 16); break;
        case CLPRIM_UINT8: p[i] = (unsigned char)(seed >> 40); break;
        case CLPRIM_FLOAT: ((float *)data)[i] = (float)v * 0.75f; break;
        case CLPRIM_DOUBLE: ((double *)data)[i] = (double)v * 0.625; break;
        }
    }
}


static double value_of(clprim_type t, const void *x)
{
    switch (t) {
    case CLPRIM_INT32: return *(const int32_t *)x;
    case CLPRIM_UINT32: return *(const uint32_t *)x;
    case CLPRIM_INT64: return (double)*(const int64_t *)x;
    case CLPRIM_UINT64: return (double)*(const uint64_t *)x;
    case CLPRIM_UINT8: return *(const uint8_t *)x;
    case CLPRIM_FLOAT: return *(const float *)x;
    default: return *(const double *)x;
    }
}

static int expr_twin(clprim_type t, const void *x, uint64_t i)
{
    return value_of(t, x) > 2 && i % 3 != 1;
}

static int second_expr_twin(clprim_type t, const void *x, uint64_t i)
{
    return value_of(t, x) < 1 || i % 5 == 2;
}

static const char *const keep_names[] = {"lt", "le", "gt", "ge", "eq", "ne", "nonzero", "flagged", "expr"};

static int keep_named(const char *name)
{
    for (int k = 0; k < 9; k++)
        if (!strcmp(name, keep_names[k]))
            return k;
    return -1;
}

/* One element of type t with the value v. */
static void element_of(clprim_type t, double v, unsigned char *value)
{
    switch (t) {
    case CLPRIM_INT32: *(int32_t *)value = (int32_t)v; break;
    case CLPRIM_UINT32: *(uint32_t *)value = (uint32_t)v; break;
    case CLPRIM_INT64: *(int64_t *)value = (int64_t)v; break;
    case CLPRIM_UINT64: *(uint64_t *)value = (uint64_t)v; break;
    case CLPRIM_UINT8: *(uint8_t *)value = (uint8_t)v; break;
    case CLPRIM_FLOAT: *(float *)value = (float)v; break;
    case CLPRIM_DOUBLE: *(double *)value = v; break;
    }
}

static int run_compact(clprim_context *ctx, clprim_type t, int argc, char **argv)
{
    if (argc < 5)
        return fail("compact TYPE KEEP N [inplace] [device] [partition] [second=KEEP] [levels=L] [census] [flags=F]");
    const int keep = keep_named(argv[3]);
    if (keep < 0)
        return fail("KEEP: lt le gt ge eq ne nonzero flagged expr");
    const size_t n = strtoull(argv[4], NULL, 10);
    int in_place = 0, device = 0, partition = 0, want_levels = 0, second = -1, want_census = 0;
    unsigned flags_at = 5;
    for (int a = 5; a < argc; a++) {
        if (!strcmp(argv[a], "inplace"))
            in_place = 1;
        else if (!strcmp(argv[a], "device"))
            device = 1;
        else if (!strcmp(argv[a], "partition"))
            partition = 1;
        else if (!strcmp(argv[a], "census"))
            want_census = 1;
        else if (!strncmp(argv[a], "second=", 7) && (second = keep_named(argv[a] + 7)) >= 0)
            partition = 2;
        else if (sscanf(argv[a], "flags=%u", &flags_at) == 1 && flags_at <= 8)
            continue;
        else if (sscanf(argv[a], "levels=%d", &want_levels) != 1)
            return fail("options: inplace, device, partition, second=KEEP, levels=L, census, flags=F (F <= 8)");
    }
    const clprim_tuning shape =
        clprim_compact_shape(ctx, clprim_one_sweep_available(ctx), clprim_type_info_of(t)->size, partition);
    const clprim_tuning tuning = clprim_compaction_grid(ctx, &shape, partition);
    const int levels = levels_of(&tuning, n);
    printf("%s %s %s%s%s n=%zu%s%s on %s, wg=%zu items=%zu groups=%zu: %d level(s)\n",
           partition == 2 ? "partition_three_way" : partition ? "partition" : "compact", argv[2], argv[3],
           partition == 2 ? ", second " : "", partition == 2 ? keep_names[second] : "", n, in_place ? " in place" : "", device ? " count to device" : "", ctx->device_name, tuning.work_group_size,
           tuning.items_per_thread, tuning.groups, levels);
    int status = 0;
    if (want_levels && levels != want_levels) {
        fprintf(stderr, "oclgrind_compact_histogram: the tuning makes %d levels, the case wants %d\n", levels,
                want_levels);
        status = 1;
    }
    if (want_census && !(partition && clprim_one_sweep_available(ctx) && clprim_census_tiles(ctx, &shape, n))) {
        fprintf(stderr, "oclgrind_compact_histogram: the case wants a partition in one launch (a census), "
                        "which this tuning and size do not run\n");
        status = 1;
    }

    const size_t es = reference_type_size(t), before = 3, after = 2, dst_before = in_place ? before : 1;
    const size_t len = before + n + after, dst_len = dst_before + n + after;
    unsigned char *src = malloc(len * es), *out = malloc(dst_len * es), *init = malloc(dst_len * es);
    unsigned char *flags = malloc(n + 8), *want = malloc(n * es + 1);
    if (!src || !out || !init || !flags || !want)
        return fail("out of memory");
    fill(t, src, len, 777 + n);
    memset(init, 0xA5, dst_len * es);
    for (size_t i = 0; i < n + 8; i++)
        flags[i] = (unsigned char)((i * 7919 + n) % 5 == 0 ? 0 : (i % 3) * 40);
    cl_int err;
    cl_mem sbuf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, len * es, src, &err);
    cl_mem dbuf = in_place ? sbuf
                           : clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, dst_len * es,
                                            init, &err);
    cl_mem fbuf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n + 8, flags, &err);
    cl_ulong kinit[4] = {7, 7, 7, 7}, kgot[4];
    cl_mem kbuf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof kinit, kinit, &err);
    if (!sbuf || !dbuf || !fbuf || !kbuf)
        return fail("clCreateBuffer failed");

    const int floating = reference_type_is_float(t);
    unsigned char value[8], value2[8];
    element_of(t, floating ? 1.5 : 3, value);
    element_of(t, floating ? 0.5 : 1, value2);
    clprim_predicate p = {(clprim_keep)keep, value, fbuf, flags_at, "x > 2 && i % 3 != 1 && i / (i - i) == 0"};
    /* The second predicate's flags start 2 bytes further than the first's. */
    clprim_predicate p2 = {(clprim_keep)(second < 0 ? 0 : second), value2, fbuf, 7, "x < 1 || i % 5 == 2"};
    size_t kept = 0, kept2 = 0;
    clprim_status s =
        partition == 2
            ? clprim_partition_three_way(ctx, t, &p, &p2, sbuf, before, dbuf, dst_before, n, device ? NULL : &kept,
                                         device ? NULL : &kept2, device ? kbuf : NULL, 1, 0, NULL, NULL)
            : (partition ? clprim_partition : clprim_compact)(ctx, t, &p, sbuf, before, dbuf, dst_before, n,
                                                              device ? NULL : &kept, device ? kbuf : NULL, 1, 0,
                                                              NULL, NULL);
    if (s == CLPRIM_SUCCESS)
        err = clEnqueueReadBuffer(clprim_queue(ctx), dbuf, CL_TRUE, 0, dst_len * es, out, 0, NULL, NULL);
    if (s == CLPRIM_SUCCESS && err == CL_SUCCESS)
        err = clEnqueueReadBuffer(clprim_queue(ctx), kbuf, CL_TRUE, 0, sizeof kgot, kgot, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS || err != CL_SUCCESS) {
        fprintf(stderr, "oclgrind_compact_histogram: %s: %s\n", clprim_status_name(s),
                clprim_last_error(ctx));
        status = 1;
    } else {
        size_t ref, ref2 = 0;
        if (partition == 2) {
            const reference_predicate first = {(clprim_keep)keep, value, flags + flags_at, expr_twin};
            const reference_predicate other = {(clprim_keep)second, value2, flags + 7, second_expr_twin};
            ref = reference_partition_three_way(t, &first, &other, src + before * es, n, want, &ref2);
        } else {
            ref = (partition ? reference_partition : reference_compact)(t, (clprim_keep)keep, value, flags + flags_at,
                                                                        expr_twin, src + before * es, n, want);
        }
        const size_t written = partition ? n : ref;
        size_t got = device ? (size_t)kgot[1] : kept, got2 = partition == 2 ? (device ? (size_t)kgot[2] : kept2) : 0;
        if (got != ref || got2 != ref2) {
            fprintf(stderr, "oclgrind_compact_histogram: counts %zu and %zu, want %zu and %zu\n", got, got2, ref,
                    ref2);
            status = 1;
        }
        const int slots = device ? (partition == 2 ? 2 : 1) : 0; /* written from kgot[1] */
        if (kgot[0] != 7 || kgot[3] != 7 || (slots < 2 && kgot[2] != 7) || (slots < 1 && kgot[1] != 7)) {
            fprintf(stderr, "oclgrind_compact_histogram: the count buffer was written outside its slot\n");
            status = 1;
        }
        if (memcmp(out + dst_before * es, want, written * es)) {
            fprintf(stderr, "oclgrind_compact_histogram: wrong output\n");
            status = 1;
        }
        const unsigned char *around = in_place ? src : init;
        if (memcmp(out, around, dst_before * es) ||
            memcmp(out + (dst_before + written) * es, around + (dst_before + written) * es,
                   (dst_len - dst_before - written) * es)) {
            fprintf(stderr, "oclgrind_compact_histogram: the call wrote outside [dst, dst + %zu)\n", written);
            status = 1;
        }
    }
    if (dbuf != sbuf)
        clReleaseMemObject(dbuf);
    clReleaseMemObject(sbuf);
    clReleaseMemObject(fbuf);
    clReleaseMemObject(kbuf);
    free(src);
    free(out);
    free(init);
    free(flags);
    free(want);
    return status;
}

static int run_histogram(clprim_context *ctx, clprim_type t, int argc, char **argv)
{
    if (argc < 5)
        return fail("histogram TYPE BINS N [stride=S] [plan=LOCAL/PASSES] [accumulate]");
    const size_t bins = strtoull(argv[3], NULL, 10), n = strtoull(argv[4], NULL, 10);
    size_t stride = 1;
    int accumulate = 0, planned = 0;
    clprim_histogram_plan plan = {0, 0};
    for (int a = 5; a < argc; a++) {
        if (!strcmp(argv[a], "accumulate"))
            accumulate = 1;
        else if (sscanf(argv[a], "stride=%zu", &stride) == 1)
            continue;
        else if (sscanf(argv[a], "plan=%zu/%zu", &plan.local_bins, &plan.max_passes) == 2)
            planned = 1;
        else
            return fail("options: stride=S, plan=LOCAL/PASSES, accumulate");
    }
    const double lo = t == CLPRIM_UINT8 ? 0 : -10, hi = t == CLPRIM_UINT8 ? 256 : 30;
    clprim_tuning tuning = clprim_get_tuning(ctx);
    printf("histogram %s bins=%zu n=%zu stride=%zu plan=%zu/%zu%s on %s, wg=%zu items=%zu groups=%zu\n", argv[2],
           bins, n, stride, plan.local_bins, plan.max_passes, accumulate ? " accumulate" : "", ctx->device_name,
           tuning.work_group_size, tuning.items_per_thread, tuning.groups);

    const size_t es = reference_type_size(t), before = 3, span = n ? (n - 1) * stride + 1 : 0;
    const size_t len = before + span + 2, clen = 1 + bins + 2;
    unsigned char *src = malloc(len * es);
    uint32_t *init = malloc(clen * 4), *got = malloc(clen * 4), *want = malloc(clen * 4);
    if (!src || !init || !got || !want)
        return fail("out of memory");
    fill(t, src, len, 99 + n);
    for (size_t i = 0; i < clen; i++)
        init[i] = (uint32_t)(i * 3 + 1);
    cl_int err;
    cl_mem sbuf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, len * es, src, &err);
    cl_mem cbuf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, clen * 4, init, &err);
    if (!sbuf || !cbuf)
        return fail("clCreateBuffer failed");
    int status = 0;
    clprim_status s = clprim_histogram_checked(ctx, "oclgrind", t, sbuf, before, stride, n, lo, hi, bins, cbuf, 1,
                                               accumulate, planned ? &plan : NULL, 0, NULL, NULL);
    if (s == CLPRIM_SUCCESS)
        err = clEnqueueReadBuffer(clprim_queue(ctx), cbuf, CL_TRUE, 0, clen * 4, got, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS || err != CL_SUCCESS) {
        fprintf(stderr, "oclgrind_compact_histogram: clprim_histogram: %s: %s\n", clprim_status_name(s),
                clprim_last_error(ctx));
        status = 1;
    } else {
        memcpy(want, init, clen * 4);
        if (!accumulate)
            memset(want + 1, 0, bins * 4);
        reference_histogram(t, src + before * es, stride, n, lo, hi, bins, want + 1);
        if (memcmp(got, want, clen * 4)) {
            fprintf(stderr, "oclgrind_compact_histogram: wrong counts\n");
            status = 1;
        }
    }
    clReleaseMemObject(sbuf);
    clReleaseMemObject(cbuf);
    free(src);
    free(init);
    free(got);
    free(want);
    return status;
}

int main(int argc, char **argv)
{
    clprim_type t;
    if (argc < 3 || !reference_type_from_name(argv[2], &t))
        return fail("usage: oclgrind_compact_histogram compact|histogram TYPE ...");
    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec && *spec ? spec : "oclgrind");
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "oclgrind_compact_histogram: clprim_create: %s: %s\n", clprim_status_name(s),
                clprim_last_error(NULL));
        return 1;
    }
    int status;
    if (!strcmp(argv[1], "compact"))
        status = run_compact(ctx, t, argc, argv);
    else if (!strcmp(argv[1], "histogram"))
        status = run_histogram(ctx, t, argc, argv);
    else
        status = fail("the first argument is compact or histogram");
    clprim_release(ctx);
    if (status == 0)
        printf("ok\n");
    return status;
}
