/* clprim_histogram against the CPU reference: every type with 1, 16, 256, 4096
 * and 65536 bins, bounds inside and beyond the type's range, values on bin
 * edges, out of range, NaN and infinities, accumulate and overwrite, offsets,
 * sizes at the split's boundaries, the windowed and global-atomic slow paths
 * (forced through the internal plan, and reached through the public call with
 * more bins than local memory holds), strided channels, and every bad argument. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "reference_compact_histogram.h"

#define TWO63 9223372036854775808.0
#define TWO64 18446744073709551616.0

static int type_runs(clprim_context *ctx, clprim_type t)
{
    if (t != CLPRIM_DOUBLE || ctx->has_fp64)
        return 1;
    cl_mem buf = harness_buffer(ctx, 64, NULL);
    clprim_status s = clprim_histogram(ctx, t, buf, 0, 4, 0, 1, 1, buf, 8, 0, 0, NULL, NULL);
    harness_assert_error(ctx, s, CLPRIM_UNSUPPORTED, "fp64");
    clReleaseMemObject(buf);
    return 0;
}

/* ---- Data ---- */

/* v as an element of type t: integers rounded down and clamped to the type. */
static void store(clprim_type t, double v, void *out)
{
    v = reference_type_is_float(t) || isnan(v) ? v : floor(v);
    switch (t) {
    case CLPRIM_INT32: { int32_t x = v < -2147483648.0 ? INT32_MIN : v >= 2147483647.0 ? INT32_MAX : (int32_t)v;
                         memcpy(out, &x, 4); break; }
    case CLPRIM_UINT32: { uint32_t x = v < 0 ? 0 : v >= 4294967295.0 ? UINT32_MAX : (uint32_t)v;
                          memcpy(out, &x, 4); break; }
    case CLPRIM_INT64: { int64_t x = v < -TWO63 ? INT64_MIN : v >= TWO63 ? INT64_MAX : (int64_t)v;
                         memcpy(out, &x, 8); break; }
    case CLPRIM_UINT64: { uint64_t x = v < 0 ? 0 : v >= TWO64 ? UINT64_MAX : (uint64_t)v;
                          memcpy(out, &x, 8); break; }
    case CLPRIM_UINT8: { uint8_t x = v < 0 ? 0 : v >= 255 ? 255 : (uint8_t)v; memcpy(out, &x, 1); break; }
    case CLPRIM_FLOAT: { float x = (float)v; memcpy(out, &x, 4); break; }
    case CLPRIM_DOUBLE: memcpy(out, &v, 8); break;
    }
}

/* Mostly inside [lo, hi), with bin edges (and their neighbours), the bounds,
 * values outside, full-range random values, and for floats NaN and infinities. */
static void fill_for_bins(clprim_type t, void *data, size_t n, double lo, double hi, size_t bins, uint64_t *rng)
{
    const size_t es = reference_type_size(t);
    unsigned char *out = data;
    harness_fill_random(t, out, n, rng);
    const int is_float = reference_type_is_float(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = harness_rand(rng);
        double u = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
        double v;
        switch (r % 10) {
        case 0: continue; /* full-range random */
        case 1: { /* an edge, or one step either side */
            double edge = lo + (hi - lo) * (double)((r >> 8) % (bins + 1)) / (double)bins;
            int step = (int)((r >> 40) % 3) - 1;
            if (is_float) {
                if (t == CLPRIM_FLOAT) {
                    float f = (float)edge;
                    f = step < 0 ? nextafterf(f, -INFINITY) : step > 0 ? nextafterf(f, INFINITY) : f;
                    v = f;
                } else {
                    v = step < 0 ? nextafter(edge, -INFINITY) : step > 0 ? nextafter(edge, INFINITY) : edge;
                }
            } else {
                v = floor(edge) + step;
            }
            break;
        }
        case 2: v = (r >> 20) % 2 ? lo : hi; break;
        case 3: v = (r >> 20) % 2 ? lo - (hi - lo) * u : hi + (hi - lo) * u; break;
        case 4:
            if (is_float) {
                static const double sp[] = {NAN, INFINITY, -INFINITY, -0.0};
                v = sp[(r >> 20) % 4];
                break;
            }
            /* fall through */
        default: v = lo + (hi - lo) * u; break;
        }
        store(t, v, out + i * es);
    }
}

/* ---- One checked histogram ---- */

typedef struct {
    size_t src_offset, stride, counts_offset;
    int accumulate;
    const clprim_histogram_plan *plan; /* NULL: the public call */
} hist_layout;

static const hist_layout plain = {0, 1, 0, 0, NULL};

/* Counts n elements (data, or fill_for_bins when NULL) and compares with the
 * reference, the counts around the range staying untouched. */
static void hist_case(clprim_context *ctx, clprim_type t, size_t n, double lo, double hi, size_t bins,
                      hist_layout lay, const void *data, uint64_t *rng)
{
    const size_t es = reference_type_size(t);
    const size_t span = n ? (n - 1) * lay.stride + 1 : 0;
    const size_t src_len = lay.src_offset + span + 2;
    unsigned char *src = harness_malloc(src_len * es);
    fill_for_bins(t, src, src_len, lo, hi, bins, rng);
    if (data)
        memcpy(src + lay.src_offset * es, data, span * es);
    cl_mem sbuf = harness_buffer(ctx, src_len * es, src);

    const size_t counts_len = lay.counts_offset + bins + 3;
    uint32_t *before = harness_malloc(counts_len * 4);
    for (size_t i = 0; i < counts_len; i++)
        before[i] = i >= lay.counts_offset && i < lay.counts_offset + bins && lay.accumulate
                        ? (uint32_t)(harness_rand(rng) % 1000)
                        : 0xA5A5A5A5u;
    cl_mem cbuf = harness_buffer(ctx, counts_len * 4, before);

    cl_event done = NULL;
    clprim_status s;
    if (lay.plan || lay.stride != 1)
        s = clprim_histogram_checked(ctx, "test", t, sbuf, lay.src_offset, lay.stride, n, lo, hi, bins, cbuf,
                                     lay.counts_offset, lay.accumulate, lay.plan, 0, NULL, &done);
    else
        s = clprim_histogram(ctx, t, sbuf, lay.src_offset, n, lo, hi, bins, cbuf, lay.counts_offset, lay.accumulate,
                             0, NULL, &done);
    char what[400];
    snprintf(what, sizeof what,
             "histogram %s n=%zu [%.17g, %.17g) bins=%zu (src_offset %zu, stride %zu, counts_offset %zu, %s, plan "
             "%zu/%zu, %s)",
             reference_type_name(t), n, lo, hi, bins, lay.src_offset, lay.stride, lay.counts_offset,
             lay.accumulate ? "accumulate" : "overwrite", lay.plan ? lay.plan->local_bins : 0,
             lay.plan ? lay.plan->max_passes : 0, harness_tuning_text(ctx));
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s: %s", what, clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_msg(done != NULL, "%s: no event", what);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);

    harness_assert_single_ref(sbuf, "src");
    harness_assert_single_ref(cbuf, "counts");

    uint32_t *want = harness_malloc(counts_len * 4), *got = harness_malloc(counts_len * 4);
    memcpy(want, before, counts_len * 4);
    if (!lay.accumulate)
        memset(want + lay.counts_offset, 0, bins * 4);
    reference_histogram(t, src + lay.src_offset * es, lay.stride, n, lo, hi, bins, want + lay.counts_offset);
    harness_read(ctx, cbuf, 0, counts_len * 4, got);
    for (size_t i = 0; i < counts_len; i++) {
        if (got[i] == want[i])
            continue;
        if (i < lay.counts_offset || i >= lay.counts_offset + bins)
            ck_abort_msg("%s: counts[%zu] outside the bins changed to %u", what, i, got[i]);
        /* Name an element of the wrong bin, to show the rule that differs. */
        size_t b = i - lay.counts_offset;
        char example[128] = "";
        for (size_t k = 0; k < n; k++) {
            const unsigned char *x = src + (lay.src_offset + k * lay.stride) * es;
            if (reference_bin(t, x, lo, hi, bins) == (long long)b) {
                reference_format(t, x, example, sizeof example);
                break;
            }
        }
        ck_abort_msg("%s: bin %zu counts %u, want %u (e.g. element %s is in it)", what, b, got[i], want[i],
                     example);
    }
    unsigned char *again = harness_malloc(src_len * es);
    harness_read(ctx, sbuf, 0, src_len * es, again);
    ck_assert_msg(memcmp(again, src, src_len * es) == 0, "%s: changed its input", what);
    free(again);
    free(want);
    free(got);
    free(before);
    free(src);
    clReleaseMemObject(sbuf);
    clReleaseMemObject(cbuf);
}

/* ---- Bounds per type ---- */

typedef struct {
    double lo, hi;
} bounds;

static size_t bounds_for(clprim_type t, bounds *out)
{
    size_t k = 0;
    switch (t) {
    case CLPRIM_INT32:
        out[k++] = (bounds){-1000, 1000};
        out[k++] = (bounds){-2147483648.0, 2147483648.0}; /* the whole type */
        out[k++] = (bounds){-7, 13};
        break;
    case CLPRIM_UINT32:
        out[k++] = (bounds){0, 4294967296.0};
        out[k++] = (bounds){100, 5000};
        break;
    case CLPRIM_INT64:
        out[k++] = (bounds){-1099511627776.0, 1099511627776.0}; /* +-2^40 */
        out[k++] = (bounds){-5, 1000003};
        break;
    case CLPRIM_UINT64:
        out[k++] = (bounds){TWO63, TWO63 + 1099511627776.0};
        out[k++] = (bounds){0, 12345};
        break;
    case CLPRIM_UINT8:
        out[k++] = (bounds){0, 256};
        out[k++] = (bounds){10, 200};
        out[k++] = (bounds){-10, 300};
        break;
    case CLPRIM_FLOAT:
    case CLPRIM_DOUBLE:
        out[k++] = (bounds){-1000, 1000};
        out[k++] = (bounds){-0.1, 0.3};
        out[k++] = (bounds){0, 1e-3};
        out[k++] = (bounds){-1e30, 1e30};
        break;
    }
    return k;
}

static const size_t bin_counts[] = {1, 16, 256, 4096, 65536};

/* ---- Correctness ---- */

START_TEST(histogram_bins)
{
    clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(100 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        bounds b[8];
        size_t nb = bounds_for(t, b);
        for (size_t k = 0; k < nb; k++)
            for (size_t j = 0; j < sizeof bin_counts / sizeof bin_counts[0]; j++) {
                hist_layout lay = {k % 3, 1, j % 4, (int)((j + k) % 2), NULL};
                hist_case(ctx, t, 100003, b[k].lo, b[k].hi, bin_counts[j], lay, NULL, &rng);
            }
    }
}
END_TEST

/* Every integer around the bounds and the edges, once each. */
START_TEST(histogram_integer_edges)
{
    static const clprim_type types[] = {CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_INT64, CLPRIM_UINT64, CLPRIM_UINT8};
    clprim_type t = types[_i];
    uint64_t rng = harness_rng(200 + (unsigned)_i);
    const size_t es = reference_type_size(t);
    const int is_signed = t == CLPRIM_INT32 || t == CLPRIM_INT64;
    FOR_EACH_DEVICE(ctx)
    {
        const bounds cases[] = {{0, 10}, {3, 250}, {1, 2}, {0, 256}, {-4, 9}, {-300, 40}};
        const size_t bins[] = {1, 3, 7, 10, 16, 256, 1000};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            for (size_t j = 0; j < sizeof bins / sizeof bins[0]; j++) {
                double lo = cases[c].lo, hi = cases[c].hi;
                if (!is_signed && lo < 0 && t != CLPRIM_UINT8)
                    continue;
                size_t n = (size_t)(hi - lo) + 8;
                unsigned char *data = harness_malloc(n * es);
                for (size_t i = 0; i < n; i++)
                    store(t, lo - 4 + (double)i, data + i * es);
                hist_case(ctx, t, n, lo, hi, bins[j], plain, data, &rng);
                free(data);
            }
    }
}
END_TEST

/* Integer bounds beyond the type's range, at its ends, and wide ranges. */
START_TEST(histogram_integer_bounds)
{
    uint64_t rng = harness_rng(250);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 20011;
        hist_case(ctx, CLPRIM_UINT8, n, -10, 300, 31, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_UINT8, n, -256, 0, 4, plain, NULL, &rng);   /* nothing can count */
        hist_case(ctx, CLPRIM_UINT8, n, 255, 4096, 8, plain, NULL, &rng); /* only 255 */
        hist_case(ctx, CLPRIM_UINT8, n, 256, 512, 8, plain, NULL, &rng);  /* nothing */
        hist_case(ctx, CLPRIM_INT32, n, -1099511627776.0, 1099511627776.0, 1000, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_INT32, n, 2147483648.0, 2147483650.0, 2, plain, NULL, &rng); /* nothing */
        hist_case(ctx, CLPRIM_INT32, n, -2147483650.0, -2147483647.0, 3, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_UINT32, n, -100, 100, 7, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_UINT64, n, -TWO63, 1000, 1, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_UINT64, n, -TWO63 / 2, 1000, 3, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_UINT64, n, 1, TWO64, 1, plain, NULL, &rng);                /* range 2^64 - 1 */
        hist_case(ctx, CLPRIM_UINT64, n, TWO64 - 4096, TWO64, 4096, plain, NULL, &rng); /* the top values */
        hist_case(ctx, CLPRIM_INT64, n, -TWO63, TWO63 - 4096, 1, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_INT64, n, -TWO63, -TWO63 + 65536, 65536, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_INT64, n, -TWO63 / 4, TWO63 / 4, 3, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_INT64, n, TWO63 - 1024, TWO64, 1, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_INT64, n, TWO63 - 1024, TWO63 + 4096, 5, plain, NULL, &rng);
        /* (hi - lo) * bins just below 2^64: the 64-bit path, not the 32-bit one. */
        hist_case(ctx, CLPRIM_UINT32, n, 0, 4294967296.0, 65535, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_INT64, n, -2147483648.0, 2147483648.0, 5, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_UINT8, n, 0, 256, 65536, plain, NULL, &rng); /* more bins than values */
    }
}
END_TEST

/* Float edges: computed edges and their neighbours, the bounds, NaN, infinities,
 * -0.0 at lo = 0, values that scale to exactly bins. */
START_TEST(histogram_float_edges)
{
    uint64_t rng = harness_rng(300);
    FOR_EACH_DEVICE(ctx)
    {
        for (int t = CLPRIM_FLOAT; t <= CLPRIM_DOUBLE; t++) {
            if (!type_runs(ctx, (clprim_type)t))
                continue;
            const bounds cases[] = {{0, 1}, {-1, 1}, {0.1, 0.7}, {-3.3, 1e-7}, {0, 255.5}, {1e-30, 1e-29}};
            const size_t bins[] = {1, 3, 10, 256, 1000, 65536};
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
                for (size_t j = 0; j < sizeof bins / sizeof bins[0]; j++)
                    hist_case(ctx, (clprim_type)t, 30011, cases[c].lo, cases[c].hi, bins[j],
                              (hist_layout){1, 1, 2, (int)(j % 2), NULL}, NULL, &rng);
            /* The last float below hi scales to bins (rounded): clamped into the last bin. */
            const size_t es = reference_type_size((clprim_type)t);
            unsigned char data[8 * 6];
            double below = t == CLPRIM_FLOAT ? (double)nextafterf(1.0f, 0.0f) : nextafter(1.0, 0.0);
            const double vals[] = {below, 0.0, -0.0, 1.0, NAN, 0.5};
            for (size_t i = 0; i < 6; i++)
                store((clprim_type)t, vals[i], data + i * es);
            hist_case(ctx, (clprim_type)t, 6, 0, 1, 3, plain, data, &rng);
            hist_case(ctx, (clprim_type)t, 6, 0, 1, 16777216, plain, data, &rng);
        }
    }
}
END_TEST

/* Twice with accumulate doubles the counts; overwrite replaces them; n == 0
 * with overwrite zeroes them and with accumulate leaves them. */
START_TEST(histogram_accumulate)
{
    uint64_t rng = harness_rng(400);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 50001, bins = 100;
        int32_t *data = harness_malloc(n * 4);
        fill_for_bins(CLPRIM_INT32, data, n, -50, 50, bins, &rng);
        cl_mem src = harness_buffer(ctx, n * 4, data);
        uint32_t init[bins + 2], got[bins + 2], want[bins];
        for (size_t i = 0; i < bins + 2; i++)
            init[i] = 7;
        cl_mem counts = harness_buffer(ctx, sizeof init, init);
        memset(want, 0, sizeof want);
        reference_histogram(CLPRIM_INT32, data, 1, n, -50, 50, bins, want);
        for (int round = 0; round < 3; round++) {
            ck_assert_int_eq(clprim_histogram(ctx, CLPRIM_INT32, src, 0, n, -50, 50, bins, counts, 1, 1, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            harness_read(ctx, counts, 0, sizeof got, got);
            ck_assert_uint_eq(got[0], 7);
            ck_assert_uint_eq(got[bins + 1], 7);
            for (size_t b = 0; b < bins; b++)
                ck_assert_uint_eq(got[b + 1], 7 + (round + 1) * want[b]);
        }
        ck_assert_int_eq(clprim_histogram(ctx, CLPRIM_INT32, src, 0, n, -50, 50, bins, counts, 1, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, counts, 0, sizeof got, got);
        for (size_t b = 0; b < bins; b++)
            ck_assert_uint_eq(got[b + 1], want[b]);
        ck_assert_int_eq(clprim_histogram(ctx, CLPRIM_INT32, src, 0, 0, -50, 50, bins, counts, 1, 1, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, counts, 0, sizeof got, got);
        for (size_t b = 0; b < bins; b++)
            ck_assert_uint_eq(got[b + 1], want[b]);
        cl_event done = NULL;
        ck_assert_int_eq(clprim_histogram(ctx, CLPRIM_INT32, src, 0, 0, -50, 50, bins, counts, 1, 0, 0, NULL, &done),
                         CLPRIM_SUCCESS);
        ck_assert_ptr_nonnull(done);
        ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        harness_read(ctx, counts, 0, sizeof got, got);
        ck_assert_uint_eq(got[0], 7);
        ck_assert_uint_eq(got[bins + 1], 7);
        for (size_t b = 0; b < bins; b++)
            ck_assert_uint_eq(got[b + 1], 0);
        /* An empty range of the type (int32 above its max) with overwrite: zeroes too. */
        ck_assert_int_eq(clprim_histogram(ctx, CLPRIM_INT32, src, 0, n, 3e9, 4e9, bins, counts, 1, 1, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        clReleaseMemObject(src);
        clReleaseMemObject(counts);
        free(data);
    }
}
END_TEST

/* Sizes at the split's boundaries with small tiles: one group, several, a group
 * walking several tiles. */
START_TEST(histogram_sizes)
{
    static const clprim_type types[] = {CLPRIM_INT32, CLPRIM_FLOAT, CLPRIM_UINT8, CLPRIM_UINT64};
    clprim_type t = types[_i];
    uint64_t rng = harness_rng(500 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        const double lo = t == CLPRIM_FLOAT ? -10.5 : 3, hi = t == CLPRIM_FLOAT ? 20.25 : 200;
        for (int tuning = 0; tuning < 3; tuning++) {
            if (tuning == 1)
                harness_set_tuning(ctx, 4, 2, 64);
            if (tuning == 2)
                harness_set_tuning(ctx, 4, 2, 8);
            clprim_tuning now = clprim_get_tuning(ctx);
            size_t wg = now.work_group_size, tile = wg * now.items_per_thread;
            const size_t sizes[] = {0, 1, 2, wg - 1, wg, wg + 1, tile - 1, tile, tile + 1,
                                    tile * now.groups - 1, tile * now.groups + 1, 5 * tile * now.groups + 3};
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                hist_case(ctx, t, sizes[k], lo, hi, 16, (hist_layout){k % 3, 1, k % 2, (int)(k % 2), NULL}, NULL,
                          &rng);
                hist_case(ctx, t, sizes[k], lo, hi, 300, (hist_layout){0, 1, 1, 0, NULL}, NULL, &rng);
            }
        }
    }
}
END_TEST

/* The slow paths: windows of bins through the plan, one global atomic per
 * element, and the public call with more bins than local memory holds. */
START_TEST(histogram_slow_paths)
{
    uint64_t rng = harness_rng(600);
    FOR_EACH_DEVICE(ctx)
    {
        const clprim_histogram_plan windows = {100, 1000}; /* 4096 bins: 41 passes */
        const clprim_histogram_plan few = {7, 10};          /* 65 bins: 10 passes, the limit */
        const clprim_histogram_plan global = {16, 1};       /* more than one window: global atomics */
        const clprim_histogram_plan one = {1, 100};         /* one bin per pass */
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 64);
            for (int t = CLPRIM_INT32; t <= CLPRIM_UINT8; t++) {
                if (!type_runs(ctx, (clprim_type)t))
                    continue;
                double lo = reference_type_is_float((clprim_type)t) ? -1.5 : 0;
                double hi = t == CLPRIM_UINT8 ? 256 : 1000;
                hist_case(ctx, (clprim_type)t, 30011, lo, hi, 4096, (hist_layout){1, 1, 3, 0, &windows}, NULL, &rng);
                hist_case(ctx, (clprim_type)t, 30011, lo, hi, 65, (hist_layout){0, 1, 0, 1, &few}, NULL, &rng);
                hist_case(ctx, (clprim_type)t, 30011, lo, hi, 17, (hist_layout){0, 1, 2, 1, &global}, NULL, &rng);
                hist_case(ctx, (clprim_type)t, 30011, lo, hi, 65536, (hist_layout){2, 1, 0, 0, &global}, NULL, &rng);
                hist_case(ctx, (clprim_type)t, 1001, lo, hi, 5, (hist_layout){0, 1, 0, 0, &one}, NULL, &rng);
            }
        }
        ck_assert_int_eq(harness_tune(ctx, NULL), CLPRIM_SUCCESS);
        /* Public calls: bins beyond local memory, a few windows, then beyond the window limit. */
        size_t fit = clprim_histogram_local_bins(ctx);
        size_t two = fit + fit / 2, many = 5 * fit + 1;
        fprintf(stderr, "note: %s holds %zu bins in local memory; testing %zu (2 windows) and %zu (global)\n",
                ctx->device_name, fit, two, many);
        hist_case(ctx, CLPRIM_UINT32, 200003, 0, (double)two * 3, two, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_FLOAT, 200003, -1000, 1000, many, plain, NULL, &rng);
        hist_case(ctx, CLPRIM_INT32, 100003, -2147483648.0, 2147483648.0, 1u << 20, plain, NULL, &rng);
    }
}
END_TEST

/* One channel of packed pixels: stride 3 and 4 at each channel offset. */
START_TEST(histogram_strided)
{
    uint64_t rng = harness_rng(700);
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t stride = 3; stride <= 4; stride++)
            for (size_t channel = 0; channel < stride; channel++) {
                hist_case(ctx, CLPRIM_UINT8, 70001, 0, 256, 256, (hist_layout){channel, stride, 0, 0, NULL}, NULL,
                          &rng);
                hist_case(ctx, CLPRIM_UINT8, 70001, 0, 256, 16, (hist_layout){channel, stride, 1, 1, NULL}, NULL,
                          &rng);
                hist_case(ctx, CLPRIM_FLOAT, 5001, 0, 1, 100, (hist_layout){channel, stride, 0, 0, NULL}, NULL, &rng);
            }
        hist_case(ctx, CLPRIM_UINT8, 1, 0, 256, 256, (hist_layout){2, 4, 0, 0, NULL}, NULL, &rng);
        hist_case(ctx, CLPRIM_UINT8, 0, 0, 256, 256, (hist_layout){2, 4, 0, 0, NULL}, NULL, &rng);
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { HISTOGRAM, HISTOGRAM_ACCUMULATE, HISTOGRAM_STRIDED };

/* The range and bin count a row passes. */
enum {
    H_USUAL,
    H_TEN,
    H_BINS_0,
    H_BINS_2_31_PLUS_1,
    H_BINS_16385,
    H_LO_IS_HI,
    H_LO_ABOVE_HI,
    H_LO_NAN,
    H_HI_NAN,
    H_LO_MINUS_INFINITE,
    H_LO_HALF,
    H_HI_255_5,
    H_LO_MINUS_2_64,
    H_HI_2_65,
    H_HI_2_64,
    H_WIDTH_2_63,
    H_WIDTH_2_41_BINS_2_31,
    H_LO_MINUS_1E300,
    H_WIDTH_BELOW_A_FLOAT,
    H_WIDTH_ABOVE_FLOAT_MAX,
    H_WIDTH_DENORMAL,
    H_WIDTH_ABOVE_DOUBLE_MAX,
};
static const struct {
    double lo, hi;
    size_t bins;
} bad_call_ranges[] = {
    [H_USUAL] = {0, 256, 256},
    [H_TEN] = {0, 10, 10},
    [H_BINS_0] = {0, 10, 0},
    [H_BINS_2_31_PLUS_1] = {0, 10, ((size_t)1 << 31) + 1},
    [H_BINS_16385] = {0, 10, 16385},
    [H_LO_IS_HI] = {10, 10, 10},
    [H_LO_ABOVE_HI] = {11, 10, 10},
    [H_LO_NAN] = {NAN, 10, 10},
    [H_HI_NAN] = {0, NAN, 10},
    [H_LO_MINUS_INFINITE] = {-INFINITY, 10, 10},
    [H_LO_HALF] = {0.5, 10, 10},
    [H_HI_255_5] = {0, 255.5, 10},
    [H_LO_MINUS_2_64] = {-TWO63 * 2, 0, 1},
    [H_HI_2_65] = {0, TWO64 * 2, 1},
    [H_HI_2_64] = {0, TWO64, 1},
    [H_WIDTH_2_63] = {-TWO63 / 2, TWO63 / 2, 2},
    [H_WIDTH_2_41_BINS_2_31] = {-1099511627776.0, 1099511627776.0, (size_t)1 << 31},
    [H_LO_MINUS_1E300] = {-1e300, 0, 10},
    [H_WIDTH_BELOW_A_FLOAT] = {1.0, 1.0 + 1e-12, 10},
    [H_WIDTH_ABOVE_FLOAT_MAX] = {-3e38, 3e38, 10},
    [H_WIDTH_DENORMAL] = {0, 1e-320, 10},
    [H_WIDTH_ABOVE_DOUBLE_MAX] = {-1.7e308, 1.7e308, 10},
};

/* buf: src, counts. HISTOGRAM_STRIDED is the internal strided entry point, on
 * uint8 with stride op; a success of it is checked against the host. */
static clprim_status histogram_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const double lo = bad_call_ranges[row->variant].lo, hi = bad_call_ranges[row->variant].hi;
    const size_t bins = bad_call_ranges[row->variant].bins;
    if (row->call != HISTOGRAM_STRIDED)
        return clprim_histogram(ctx, row->type, buf[0], row->offset[0], row->n, lo, hi, bins, buf[1], row->offset[1],
                                row->call == HISTOGRAM_ACCUMULATE, 0, NULL, NULL);
    const size_t stride = (size_t)row->op;
    clprim_status s = clprim_histogram_checked(ctx, "strided", CLPRIM_UINT8, buf[0], row->offset[0], stride, row->n, lo,
                                               hi, bins, buf[1], row->offset[1], 0, NULL, 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS)
        return s;
    unsigned char *src = harness_malloc(HARNESS_BAD_BYTES);
    uint32_t want[256] = {0}, got[256];
    harness_read(ctx, buf[0], 0, HARNESS_BAD_BYTES, src);
    harness_read(ctx, buf[1], row->offset[1] * 4, sizeof got, got);
    for (size_t i = 0; i < row->n; i++)
        want[src[row->offset[0] + i * stride]]++;
    ck_assert_msg(memcmp(got, want, sizeof got) == 0, "%s: counts differ from the host's", row->what);
    free(src);
    return s;
}

/* A buffer holds 64 KiB: 16384 int32 values or counts. */
static const harness_bad_call histogram_bad_calls[] = {
    {"ctx NULL", HISTOGRAM, 1, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "ctx is NULL", .variant = H_TEN},
    {"type 99", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "unknown clprim_type",
     .type = (clprim_type)99, .variant = H_TEN},
    {"src NULL", HISTOGRAM, 0, {HB_NULL, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "src is NULL", .variant = H_TEN},
    {"counts NULL", HISTOGRAM, 0, {HB_A, HB_NULL}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "counts is NULL",
     .variant = H_TEN},
    {"bins 0", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "bins is 0", .variant = H_BINS_0},
    {"bins 2^31 + 1", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "2^31", .type = CLPRIM_UINT8,
     .variant = H_BINS_2_31_PLUS_1},
    {"lo = hi", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "below hi", .variant = H_LO_IS_HI},
    {"lo above hi", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "below hi", .type = CLPRIM_FLOAT,
     .variant = H_LO_ABOVE_HI},
    {"lo NaN", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "NaN", .type = CLPRIM_FLOAT,
     .variant = H_LO_NAN},
    {"hi NaN", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "NaN", .type = CLPRIM_DOUBLE,
     .variant = H_HI_NAN},
    {"lo -infinity", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "finite", .type = CLPRIM_FLOAT,
     .variant = H_LO_MINUS_INFINITE},
    {"int32 lo 0.5", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "integers",
     .variant = H_LO_HALF},
    {"uint8 hi 255.5", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "integers",
     .type = CLPRIM_UINT8, .variant = H_HI_255_5},
    {"int64 lo -2^64", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "[-2^63, 2^64]",
     .type = CLPRIM_INT64, .variant = H_LO_MINUS_2_64},
    {"uint64 hi 2^65", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "[-2^63, 2^64]",
     .type = CLPRIM_UINT64, .variant = H_HI_2_65},
    {"uint64 hi 2^64", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "2^64 or more",
     .type = CLPRIM_UINT64, .variant = H_HI_2_64},
    {"int64 width 2^63 in 2 bins", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "2^64 or more",
     .type = CLPRIM_INT64, .variant = H_WIDTH_2_63},
    {"int64 width 2^41 in 2^31 bins", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT,
     "2^64 or more", .type = CLPRIM_INT64, .variant = H_WIDTH_2_41_BINS_2_31},
    {"float lo -1e300", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "float range",
     .type = CLPRIM_FLOAT, .variant = H_LO_MINUS_1E300},
    {"float lo and hi the same float", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "same float",
     .type = CLPRIM_FLOAT, .variant = H_WIDTH_BELOW_A_FLOAT},
    {"float width above FLT_MAX", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "finite positive",
     .type = CLPRIM_FLOAT, .variant = H_WIDTH_ABOVE_FLOAT_MAX},
    {"double bin width denormal", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "finite positive",
     .type = CLPRIM_DOUBLE, .variant = H_WIDTH_DENORMAL},
    {"double width above DBL_MAX", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT,
     "finite positive", .type = CLPRIM_DOUBLE, .variant = H_WIDTH_ABOVE_DOUBLE_MAX},
    {"counts a bin short", HISTOGRAM, 0, {HB_A, HB_B}, {0, 16375}, 1000, CLPRIM_BUFFER_TOO_SMALL, "counts",
     .variant = H_TEN},
    {"counts short of 16385 bins", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_BUFFER_TOO_SMALL, "counts",
     .variant = H_BINS_16385},
    {"counts CL_MEM_READ_ONLY", HISTOGRAM, 0, {HB_A, HB_READ_ONLY}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "READ_ONLY",
     .variant = H_TEN},
    {"src a value short", HISTOGRAM, 0, {HB_A, HB_B}, {0}, 16385, CLPRIM_BUFFER_TOO_SMALL, "src", .variant = H_TEN},
    {"src offset SIZE_MAX", HISTOGRAM, 0, {HB_A, HB_B}, {SIZE_MAX}, 2, CLPRIM_INVALID_ARGUMENT, "overflows",
     .variant = H_TEN},
    {"counts inside src", HISTOGRAM, 0, {HB_A, HB_A}, {0, 500}, 1000, CLPRIM_INVALID_ARGUMENT, "overlap",
     .variant = H_TEN},
    {"counts a sub-buffer inside src", HISTOGRAM, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"src a sub-buffer at 0 meeting counts", HISTOGRAM, 0, {HB_A_AT_0, HB_A}, {0, 4}, 1024,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"src an image object", HISTOGRAM, 0, {HB_IMAGE, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"counts an image object", HISTOGRAM, 0, {HB_A, HB_IMAGE}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"src CL_MEM_WRITE_ONLY", HISTOGRAM, 0, {HB_WRITE_ONLY, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"counts CL_MEM_WRITE_ONLY, accumulated", HISTOGRAM_ACCUMULATE, 0, {HB_A, HB_WRITE_ONLY}, {0}, 16,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY"},
    /* The strided entry point, channel 3 of 4-byte pixels. */
    {"strided: stride 0", HISTOGRAM_STRIDED, 0, {HB_A, HB_B}, {0}, 1000, CLPRIM_INVALID_ARGUMENT, "stride is 0"},
    {"strided: src a pixel short", HISTOGRAM_STRIDED, 0, {HB_A, HB_B}, {3}, 16385, CLPRIM_BUFFER_TOO_SMALL, "src",
     .op = 4},
    {"strided: counts a bin short", HISTOGRAM_STRIDED, 0, {HB_A, HB_B}, {3, 16129}, 16384, CLPRIM_BUFFER_TOO_SMALL,
     "counts", .op = 4},
    /* The last channel element is the buffer's last byte. */
    {"strided: src to its last byte", HISTOGRAM_STRIDED, 0, {HB_A, HB_B}, {3}, 16384, CLPRIM_SUCCESS, NULL, .op = 4,
     .written = HB_ARG(1)},
};

START_TEST(histogram_bad_table)
{
    harness_run_bad_calls(histogram_bad_calls, sizeof histogram_bad_calls / sizeof *histogram_bad_calls, histogram_bad_call);
}
END_TEST

static Suite *histogram_suite(void)
{
    Suite *s = suite_create("histogram");
    TCase *tc = tcase_create("correctness");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, histogram_bins, CLPRIM_INT32, CLPRIM_UINT8 + 1);
    tcase_add_loop_test(tc, histogram_integer_edges, 0, 5);
    tcase_add_test(tc, histogram_integer_bounds);
    tcase_add_test(tc, histogram_float_edges);
    tcase_add_test(tc, histogram_accumulate);
    tcase_add_loop_test(tc, histogram_sizes, 0, 4);
    tcase_add_test(tc, histogram_slow_paths);
    tcase_add_test(tc, histogram_strided);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad arguments");
    tcase_add_test(bad, histogram_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(histogram_suite());
}
