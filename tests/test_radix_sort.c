/* clprim_sort_keys and clprim_sort_pairs against qsort: uint32, int32 and float
 * keys; random, sorted, reversed, all-equal and few-distinct inputs; sizes at
 * every boundary of the work split (work-group, tile, several tiles per group,
 * digit-count scans of two and three levels), ~10^6 + odd; stability through
 * pairs; float specials (-0.0, +0.0, infinities, NaNs of both signs, denormals);
 * offsets, in place, index values; and every bad argument (status, message,
 * outputs untouched). */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference_sort.h"
#include "radix_sort.h" /* the internal driver */

/* ck_assert_msg only on failure: every ck_assert call is a message to the parent
 * process in fork mode, too slow for one per element of a large output. */
#define RADIX 16 /* digits per pass in the library (4 bits) */

static const clprim_type key_types[] = {CLPRIM_UINT32, CLPRIM_INT32, CLPRIM_FLOAT};
static const char *key_name(clprim_type t)
{
    return t == CLPRIM_UINT32 ? "uint32" : t == CLPRIM_INT32 ? "int32" : "float";
}

/* ---- Inputs ---- */

typedef enum { RANDOM, SORTED, REVERSED, ALL_EQUAL, FEW_DISTINCT, PATTERN_COUNT } pattern;
static const char *pattern_name[] = {"random", "sorted", "reversed", "all-equal", "few-distinct"};

static uint32_t random_key(clprim_type t, uint64_t *rng)
{
    if (t != CLPRIM_FLOAT)
        return (uint32_t)harness_rand(rng);
    /* Floats: mostly [-1000, 1000), sometimes any finite bit pattern. */
    float f;
    uint32_t u;
    if (harness_rand(rng) % 4) {
        harness_fill_random(CLPRIM_FLOAT, &f, 1, rng);
        memcpy(&u, &f, 4);
    } else {
        do
            u = (uint32_t)harness_rand(rng);
        while (((u >> 23) & 0xFF) == 0xFF);
    }
    return u;
}

static void make_keys(clprim_type t, pattern p, uint32_t *keys, size_t n, uint64_t *rng)
{
    uint32_t few[5];
    for (int i = 0; i < 5; i++)
        few[i] = random_key(t, rng);
    const uint32_t same = random_key(t, rng);
    for (size_t i = 0; i < n; i++)
        keys[i] = p == ALL_EQUAL ? same : p == FEW_DISTINCT ? few[harness_rand(rng) % 5] : random_key(t, rng);
    if (p == SORTED || p == REVERSED) {
        uint32_t *perm = reference_sort_perm(t, keys, n);
        uint32_t *copy = harness_malloc(n * 4);
        for (size_t j = 0; j < n; j++)
            copy[j] = keys[perm[p == SORTED ? j : n - 1 - j]];
        memcpy(keys, copy, n * 4);
        free(copy);
        free(perm);
    }
}

/* ---- One sort, checked ---- */

typedef struct {
    size_t in_offset, out_offset, after; /* elements before and after the ranges */
    int in_place;                        /* keys (and values) sorted in their input buffers */
    int pairs;                           /* 0: clprim_sort_keys */
    int index_values;                    /* pairs with values_in NULL */
} layout;

static void check_sort(clprim_context *ctx, clprim_type t, size_t n, const uint32_t *keys, layout lay,
                       uint64_t *rng, const char *what)
{
    const size_t in_len = lay.in_offset + n + lay.after;
    const size_t out_off = lay.in_place ? lay.in_offset : lay.out_offset;
    const size_t out_len = lay.in_place ? in_len : lay.out_offset + n + lay.after;
    uint32_t *kin = harness_malloc(in_len * 4), *vin = harness_malloc(in_len * 4);
    for (size_t i = 0; i < in_len; i++) {
        kin[i] = (uint32_t)harness_rand(rng);
        vin[i] = (uint32_t)harness_rand(rng);
    }
    memcpy(kin + lay.in_offset, keys, n * 4);
    cl_mem kin_buf = harness_buffer(ctx, in_len * 4, kin);
    cl_mem vin_buf = lay.pairs && !lay.index_values ? harness_buffer(ctx, in_len * 4, vin) : NULL;
    cl_mem kout_buf = lay.in_place ? kin_buf : harness_buffer(ctx, out_len * 4, NULL);
    cl_mem vout_buf = !lay.pairs ? NULL : lay.in_place && vin_buf ? vin_buf : harness_buffer(ctx, out_len * 4, NULL);

    cl_event done = NULL;
    clprim_status s;
    if (lay.pairs)
        s = clprim_sort_pairs(ctx, t, kin_buf, lay.in_offset, kout_buf, out_off, vin_buf, lay.in_offset, vout_buf,
                              out_off, n, 0, NULL, &done);
    else
        s = clprim_sort_keys(ctx, t, kin_buf, lay.in_offset, kout_buf, out_off, n, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: sort %s n=%zu (%s): %s: %s", what, key_name(t), n,
                  harness_tuning_text(ctx), clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_msg(done != NULL, "no event for n=%zu", n);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);

    uint32_t *kout = harness_malloc(out_len * 4), *vout = harness_malloc(out_len * 4);
    harness_read(ctx, kout_buf, 0, out_len * 4, kout);
    if (vout_buf)
        harness_read(ctx, vout_buf, 0, out_len * 4, vout);
    uint32_t *perm = reference_sort_perm(t, keys, n);
    for (size_t j = 0; j < n; j++) {
        const uint32_t want_key = keys[perm[j]];
        CHECK(kout[out_off + j] == want_key,
                      "%s: %s %s n=%zu: key %zu is 0x%08x, want 0x%08x (%s, offsets %zu/%zu%s)", what,
                      key_name(t), lay.pairs ? "pairs" : "keys", n, j, kout[out_off + j], want_key,
                      harness_tuning_text(ctx), lay.in_offset, out_off, lay.in_place ? ", in place" : "");
        if (lay.pairs) {
            const uint32_t want_value = lay.index_values ? perm[j] : vin[lay.in_offset + perm[j]];
            CHECK(vout[out_off + j] == want_value,
                          "%s: %s pairs n=%zu: value %zu is %u, want %u (input index %u; stability) (%s)", what,
                          key_name(t), n, j, vout[out_off + j], want_value, perm[j], harness_tuning_text(ctx));
        }
    }
    /* Nothing outside the ranges changed; out of place, the inputs did not change. */
    if (lay.in_place) {
        ck_assert_msg(memcmp(kout, kin, out_off * 4) == 0 && memcmp(kout + out_off + n, kin + out_off + n,
                                                                     lay.after * 4) == 0,
                      "%s: in-place sort n=%zu changed keys outside its range", what, n);
    } else {
        ck_assert_msg(harness_all_sentinel(kout, out_off * 4) &&
                          harness_all_sentinel(kout + out_off + n, lay.after * 4),
                      "%s: sort n=%zu wrote keys outside its range", what, n);
        uint32_t *again = harness_malloc(in_len * 4);
        harness_read(ctx, kin_buf, 0, in_len * 4, again);
        ck_assert_msg(memcmp(again, kin, in_len * 4) == 0, "%s: sort n=%zu changed keys_in", what, n);
        if (vin_buf) {
            harness_read(ctx, vin_buf, 0, in_len * 4, again);
            ck_assert_msg(memcmp(again, vin, in_len * 4) == 0, "%s: sort n=%zu changed values_in", what, n);
        }
        free(again);
    }
    if (vout_buf && vout_buf != vin_buf)
        ck_assert_msg(harness_all_sentinel(vout, out_off * 4) &&
                          harness_all_sentinel(vout + out_off + n, lay.after * 4),
                      "%s: sort n=%zu wrote values outside its range", what, n);

    free(perm);
    free(kout);
    free(vout);
    free(kin);
    free(vin);
    if (kout_buf != kin_buf)
        clReleaseMemObject(kout_buf);
    if (vout_buf && vout_buf != vin_buf)
        clReleaseMemObject(vout_buf);
    if (vin_buf)
        clReleaseMemObject(vin_buf);
    clReleaseMemObject(kin_buf);
}

static void sort_case(clprim_context *ctx, clprim_type t, pattern p, size_t n, layout lay, uint64_t *rng)
{
    uint32_t *keys = harness_malloc((n ? n : 1) * 4);
    make_keys(t, p, keys, n, rng);
    char what[64];
    snprintf(what, sizeof what, "%s", pattern_name[p]);
    check_sort(ctx, t, n, keys, lay, rng, what);
    free(keys);
}

/* Sizes around a work-group, a tile and a group's chunk of the current tuning. */
static size_t boundary_sizes(clprim_context *ctx, size_t *sizes)
{
    clprim_tuning t = clprim_get_tuning(ctx);
    const size_t wg = t.work_group_size, tile = wg * t.items_per_thread;
    const size_t fixed[] = {0, 1, 2, wg - 1, wg, wg + 1, tile - 1, tile, tile + 1, 3 * tile + 5};
    memcpy(sizes, fixed, sizeof fixed);
    return sizeof fixed / sizeof fixed[0];
}

/* Every key type and pattern, keys and pairs, at the boundary sizes. */
static void sweep(clprim_context *ctx, uint64_t *rng, const size_t *extra, size_t nextra)
{
    size_t sizes[16];
    size_t count = boundary_sizes(ctx, sizes);
    for (size_t i = 0; i < nextra; i++)
        sizes[count++] = extra[i];
    for (size_t ti = 0; ti < 3; ti++)
        for (int p = 0; p < PATTERN_COUNT; p++)
            for (size_t k = 0; k < count; k++) {
                layout lay = {(k + (size_t)p) % 3, (k + ti) % 2, 1 + k % 2, 0, (int)((k + (size_t)p) % 2), 0};
                sort_case(ctx, key_types[ti], (pattern)p, sizes[k], lay, rng);
            }
}

/* ---- Correctness ---- */

START_TEST(sort_default_tuning)
{
    uint64_t rng = harness_rng(1);
    FOR_EACH_DEVICE(ctx)
    {
        clprim_tuning t = clprim_get_tuning(ctx);
        const size_t extra[] = {t.work_group_size * t.items_per_thread * t.groups * 2 + 7};
        sweep(ctx, &rng, extra, 1);
    }
}
END_TEST

/* wg=4, items=2 (tiles of 8): groups=8 makes each group walk many tiles with a
 * running carry per digit; groups=64 makes 16 x 64 digit counts, whose scan
 * takes three levels. */
START_TEST(sort_small_tiles)
{
    uint64_t rng = harness_rng(2);
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 8);
        const size_t extra[] = {8 * 8 * 5 + 3};
        sweep(ctx, &rng, extra, 1);

        harness_set_tuning(ctx, 4, 2, 64);
        clprim_tuning t = clprim_get_tuning(ctx);
        const size_t n = 8 * 64 * 2 - 3; /* 128 tiles: two per group, all 64 groups */
        clprim_split split = clprim_split_range(&t, n);
        ck_assert_uint_eq(split.groups, 64);
        ck_assert_int_ge(harness_scan_levels(&t, RADIX * split.groups, 8), 3);
        for (size_t ti = 0; ti < 3; ti++)
            for (int p = 0; p < PATTERN_COUNT; p++) {
                sort_case(ctx, key_types[ti], (pattern)p, n, (layout){1, 2, 1, 0, 1, 0}, &rng);
                sort_case(ctx, key_types[ti], (pattern)p, 8 * 64 + 9, (layout){0, 0, 0, 0, 0, 0}, &rng);
            }
    }
}
END_TEST

/* Work-groups of one and two work-items: the local scans degenerate (two
 * work-items take one item each: PoCL refuses more, see clprim_set_tuning). */
START_TEST(sort_tiny_groups)
{
    uint64_t rng = harness_rng(3);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t shapes[][3] = {{1, 2, 5}, {2, 1, 7}, {4, 3, 7}, {32, 1, 3}};
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
            harness_set_tuning(ctx, shapes[sh][0], shapes[sh][1], shapes[sh][2]);
            const size_t sizes[] = {1, 2, 3, 17, 100, 1001};
            for (size_t ti = 0; ti < 3; ti++)
                for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                    sort_case(ctx, key_types[ti], (pattern)(k % PATTERN_COUNT), sizes[k],
                              (layout){k % 2, 0, 1, 0, 1, 0}, &rng);
        }
    }
}
END_TEST

/* 10^6 + 3 keys with the device's tuning, keys and pairs. */
START_TEST(sort_large_odd)
{
    uint64_t rng = harness_rng(4);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 1000003;
        sort_case(ctx, CLPRIM_UINT32, RANDOM, n, (layout){0, 1, 1, 0, 1, 0}, &rng);
        sort_case(ctx, CLPRIM_FLOAT, RANDOM, n, (layout){1, 0, 0, 0, 0, 0}, &rng);
        sort_case(ctx, CLPRIM_INT32, FEW_DISTINCT, n, (layout){0, 0, 0, 0, 1, 1}, &rng);
    }
}
END_TEST

/* Stability: many equal keys, values the input positions (given, and NULL). */
START_TEST(sort_stable)
{
    uint64_t rng = harness_rng(5);
    FOR_EACH_DEVICE(ctx)
    {
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 16);
            for (size_t ti = 0; ti < 3; ti++) {
                sort_case(ctx, key_types[ti], FEW_DISTINCT, 20011, (layout){0, 0, 0, 0, 1, 1}, &rng);
                sort_case(ctx, key_types[ti], ALL_EQUAL, 5003, (layout){2, 1, 1, 0, 1, 0}, &rng);
                /* Keys equal in the upper bits only differ in the last pass. */
                const size_t n = 7777;
                uint32_t *keys = harness_malloc(n * 4);
                for (size_t i = 0; i < n; i++)
                    keys[i] = (uint32_t)(harness_rand(&rng) % 3) << 28;
                check_sort(ctx, CLPRIM_UINT32, n, keys, (layout){0, 0, 0, 0, 1, 1}, &rng, "top-digit");
                free(keys);
            }
        }
    }
}
END_TEST

START_TEST(sort_in_place)
{
    uint64_t rng = harness_rng(6);
    FOR_EACH_DEVICE(ctx)
    {
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 64);
            for (size_t ti = 0; ti < 3; ti++) {
                sort_case(ctx, key_types[ti], RANDOM, 3001, (layout){3, 0, 2, 1, 0, 0}, &rng);
                sort_case(ctx, key_types[ti], FEW_DISTINCT, 3001, (layout){2, 0, 1, 1, 1, 0}, &rng);
                /* Keys in place, values from their indices into a separate buffer. */
                sort_case(ctx, key_types[ti], REVERSED, 999, (layout){1, 0, 1, 1, 1, 1}, &rng);
            }
        }
    }
}
END_TEST

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Float specials, and the order promised in clprim.h: -NaN < -inf < negatives <
 * -0.0 < +0.0 < positives < +inf < +NaN. */
START_TEST(sort_float_specials)
{
    uint64_t rng = harness_rng(7);
    const uint32_t specials[] = {
        fbits(-0.0f),         fbits(0.0f),       fbits(INFINITY),   fbits(-INFINITY), 0x7FC00000u /* +NaN */,
        0xFFC00000u /* -NaN */, 0x7F800001u /* +sNaN */, 0xFFFFFFFFu /* -NaN, all payload */,
        fbits(FLT_MAX),       fbits(-FLT_MAX),   fbits(FLT_MIN),    fbits(-FLT_MIN),  0x00000001u /* denormal */,
        0x80000001u,          fbits(1.0f),       fbits(-1.0f),      fbits(-1000.0f),  fbits(1e-30f)};
    const size_t nspecial = sizeof specials / sizeof specials[0];
    FOR_EACH_DEVICE(ctx)
    {
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 8);
            /* Specials alone, then many of them among random floats. */
            check_sort(ctx, CLPRIM_FLOAT, nspecial, specials, (layout){0, 0, 0, 0, 1, 1}, &rng, "specials");
            const size_t n = 4099;
            uint32_t *keys = harness_malloc(n * 4);
            for (size_t i = 0; i < n; i++)
                keys[i] = harness_rand(&rng) % 3 ? specials[harness_rand(&rng) % nspecial] : random_key(CLPRIM_FLOAT, &rng);
            check_sort(ctx, CLPRIM_FLOAT, n, keys, (layout){1, 2, 1, 0, 1, 1}, &rng, "specials among random");
            free(keys);

            /* The order, spelled out. */
            cl_mem in = harness_buffer(ctx, nspecial * 4, specials), out = harness_buffer(ctx, nspecial * 4, NULL);
            ck_assert_int_eq(clprim_sort_keys(ctx, CLPRIM_FLOAT, in, 0, out, 0, nspecial, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            uint32_t got[32];
            harness_read(ctx, out, 0, nspecial * 4, got);
            ck_assert_uint_eq(got[0], 0xFFFFFFFFu); /* -NaN with the largest payload first */
            ck_assert_uint_eq(got[1], 0xFFC00000u);
            ck_assert_uint_eq(got[2], fbits(-INFINITY));
            ck_assert_uint_eq(got[3], fbits(-FLT_MAX));
            size_t neg0 = 0, pos0 = 0;
            for (size_t i = 0; i < nspecial; i++) {
                if (got[i] == fbits(-0.0f))
                    neg0 = i;
                if (got[i] == fbits(0.0f))
                    pos0 = i;
            }
            ck_assert_uint_eq(pos0, neg0 + 1); /* -0.0 right before +0.0 */
            ck_assert_uint_eq(got[nspecial - 4], fbits(FLT_MAX));
            ck_assert_uint_eq(got[nspecial - 3], fbits(INFINITY));
            ck_assert_uint_eq(got[nspecial - 2], 0x7F800001u);
            ck_assert_uint_eq(got[nspecial - 1], 0x7FC00000u); /* the usual NaN last */
            clReleaseMemObject(in);
            clReleaseMemObject(out);
        }
    }
}
END_TEST

/* int32 extremes sort as signed; the same bits as uint32 sort as unsigned. */
START_TEST(sort_int32_extremes)
{
    uint64_t rng = harness_rng(8);
    const uint32_t ext[] = {0x80000000u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0, 1, 0x80000001u, 0x7FFFFFFEu};
    FOR_EACH_DEVICE(ctx)
    {
        check_sort(ctx, CLPRIM_INT32, 7, ext, (layout){0, 0, 0, 0, 1, 1}, &rng, "int32 extremes");
        check_sort(ctx, CLPRIM_UINT32, 7, ext, (layout){0, 0, 0, 0, 1, 1}, &rng, "uint32 extremes");
        cl_mem in = harness_buffer(ctx, sizeof ext, ext), out = harness_buffer(ctx, sizeof ext, NULL);
        ck_assert_int_eq(clprim_sort_keys(ctx, CLPRIM_INT32, in, 0, out, 0, 7, 0, NULL, NULL), CLPRIM_SUCCESS);
        int32_t got[7];
        harness_read(ctx, out, 0, sizeof got, got);
        const int32_t want[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1, INT32_MAX};
        ck_assert_mem_eq(got, want, sizeof want);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
    }
}
END_TEST

/* A loop of sorts allocates no scratch after the first. */
START_TEST(sort_reuses_scratch)
{
    uint64_t rng = harness_rng(9);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 50000;
        uint32_t *keys = harness_malloc(n * 4);
        make_keys(CLPRIM_UINT32, RANDOM, keys, n, &rng);
        cl_mem in = harness_buffer(ctx, n * 4, keys), out = harness_buffer(ctx, n * 4, NULL),
               vals = harness_buffer(ctx, n * 4, NULL);
        ck_assert_int_eq(clprim_sort_pairs(ctx, CLPRIM_UINT32, in, 0, out, 0, NULL, 0, vals, 0, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        cl_mem scratch = ctx->scratch;
        for (int i = 0; i < 3; i++) {
            ck_assert_int_eq(clprim_sort_pairs(ctx, CLPRIM_UINT32, in, 0, out, 0, NULL, 0, vals, 0, n, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            ck_assert_int_eq(clprim_sort_keys(ctx, CLPRIM_UINT32, in, 0, out, 0, n, 0, NULL, NULL), CLPRIM_SUCCESS);
        }
        ck_assert_ptr_eq(ctx->scratch, scratch);
        free(keys);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        clReleaseMemObject(vals);
    }
}
END_TEST

/* The internal driver on fewer bits (what the box sort uses): 3 and 5 passes, so
 * the first pass writes the output directly, or, in place, the passes end in the
 * temporary and a copy follows. */
START_TEST(sort_partial_bits)
{
    uint64_t rng = harness_rng(10);
    FOR_EACH_DEVICE(ctx)
    {
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 16);
            const unsigned bit_counts[] = {1, 12, 17, 20, 32};
            for (size_t b = 0; b < sizeof bit_counts / sizeof bit_counts[0]; b++)
                for (int in_place = 0; in_place <= 1; in_place++) {
                    const unsigned bits = bit_counts[b];
                    const size_t n = 3001 + b;
                    uint32_t *keys = harness_malloc(n * 4), *got = harness_malloc(n * 4), *vals = harness_malloc(n * 4);
                    for (size_t i = 0; i < n; i++)
                        keys[i] = (uint32_t)(harness_rand(&rng) & (bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1));
                    cl_mem kin = harness_buffer(ctx, n * 4, keys);
                    cl_mem kout = in_place ? kin : harness_buffer(ctx, n * 4, NULL), vout = harness_buffer(ctx, n * 4, NULL);
                    cl_mem scratch;
                    ck_assert_int_eq(clprim_scratch(ctx, clprim_radix_sort_scratch_bytes(ctx, n, 1), &scratch),
                                     CLPRIM_SUCCESS);
                    ck_assert_int_eq(clprim_radix_sort_device(ctx, CLPRIM_UINT32, bits, kin, 0, kout, 0, NULL, 0, vout,
                                                              0, n, scratch, 0, NULL),
                                     CLPRIM_SUCCESS);
                    harness_read(ctx, kout, 0, n * 4, got);
                    harness_read(ctx, vout, 0, n * 4, vals);
                    uint32_t *perm = reference_sort_perm(CLPRIM_UINT32, keys, n);
                    for (size_t j = 0; j < n; j++)
                        CHECK(got[j] == keys[perm[j]] && vals[j] == perm[j],
                              "%u bits%s: position %zu holds key %u index %u, want %u index %u (%s)", bits,
                              in_place ? " in place" : "", j, got[j], vals[j], keys[perm[j]], perm[j],
                              harness_tuning_text(ctx));
                    free(perm);
                    free(keys);
                    free(got);
                    free(vals);
                    if (!in_place)
                        clReleaseMemObject(kout);
                    clReleaseMemObject(kin);
                    clReleaseMemObject(vout);
                }
        }
    }
}
END_TEST

/* ---- Bad arguments: status, message, nothing written ---- */

enum { SORT_KEYS, SORT_PAIRS };

/* buf: keys_in, keys_out, values_in, values_out. A success hands back its event;
 * a refusal enqueues nothing, so none. */
static clprim_status sort_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    cl_event done = NULL;
    clprim_status s =
        row->call == SORT_KEYS
            ? clprim_sort_keys(ctx, row->type, buf[0], row->offset[0], buf[1], row->offset[1], row->n, 0, NULL, &done)
            : clprim_sort_pairs(ctx, row->type, buf[0], row->offset[0], buf[1], row->offset[1], buf[2], row->offset[2],
                                buf[3], row->offset[3], row->n, 0, NULL, &done);
    if (s != CLPRIM_SUCCESS) {
        ck_assert_msg(!done, "%s: a refused sort returned an event", row->what);
        return s;
    }
    ck_assert_msg(done, "%s: no event", row->what);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    return s;
}

/* Each buffer holds HARNESS_BAD_BYTES / 4 = 16384 keys. */
static const harness_bad_call sort_bad_calls[] = {
    {"ctx NULL", SORT_KEYS, 1, {HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"type 99", SORT_KEYS, 0, {HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "99", .type = (clprim_type)99},
    {"int64 keys", SORT_KEYS, 0, {HB_A, HB_B}, {0}, 50, CLPRIM_INVALID_ARGUMENT, "int64", .type = CLPRIM_INT64},
    {"uint8 pairs", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "uint8", .type = CLPRIM_UINT8},
    {"keys_in NULL", SORT_KEYS, 0, {HB_NULL, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"keys_out NULL", SORT_KEYS, 0, {HB_A, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_out"},
    {"keys_out one key short", SORT_KEYS, 0, {HB_A, HB_B}, {0, 1}, 16384, CLPRIM_BUFFER_TOO_SMALL, "keys_out"},
    {"keys_in one key short", SORT_KEYS, 0, {HB_A, HB_B}, {1, 0}, 16384, CLPRIM_BUFFER_TOO_SMALL, "keys_in"},
    {"keys_out offset SIZE_MAX", SORT_KEYS, 0, {HB_A, HB_B}, {0, SIZE_MAX}, 100, CLPRIM_INVALID_ARGUMENT,
     "keys_out", .also = "overflows"},
    {"keys_out CL_MEM_READ_ONLY", SORT_KEYS, 0, {HB_A, HB_READ_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY", .also = "keys_out"},
    {"one buffer, overlapping offsets", SORT_KEYS, 0, {HB_A, HB_A}, {0, 10}, 50, CLPRIM_INVALID_ARGUMENT,
     "overlap"},
    {"keys_out of another context", SORT_KEYS, 0, {HB_A, HB_FOREIGN}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "another", .also = "keys_out"},
    {"keys_out a sub-buffer inside keys_in", SORT_KEYS, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"keys_out a sub-buffer at 0, shifted by one", SORT_KEYS, 0, {HB_A, HB_A_AT_0}, {0, 1}, 1024,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"keys_in an image object", SORT_KEYS, 0, {HB_IMAGE, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"keys_out an image object", SORT_KEYS, 0, {HB_A, HB_IMAGE}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"keys_in CL_MEM_WRITE_ONLY", SORT_KEYS, 0, {HB_WRITE_ONLY, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"values_out NULL", SORT_PAIRS, 0, {HB_A, HB_B, HB_A, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "values_out"},
    {"values_out one value short", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0, 0, 0, 1}, 16384,
     CLPRIM_BUFFER_TOO_SMALL, "values_out"},
    {"values_out is keys_out", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_B}, {0}, 10, CLPRIM_INVALID_ARGUMENT,
     "values_out"},
    {"values_in is keys_out", SORT_PAIRS, 0, {HB_READ_ONLY, HB_B, HB_B, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "values_in"},
    {"values_out is keys_in", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "keys_in"},
    {"values of one buffer, overlapping offsets", SORT_PAIRS, 0, {HB_READ_ONLY, HB_B, HB_A, HB_A}, {0, 0, 0, 5},
     95, CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"values_out a sub-buffer inside keys_out", SORT_PAIRS, 0, {HB_B, HB_A, HB_NULL, HB_A_AT_ALIGN}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"values_out a sub-buffer at 0 inside keys_in", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_A_AT_0}, {0, 0, 0, 1},
     1024, CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"values_in a sub-buffer inside keys_out", SORT_PAIRS, 0, {HB_A, HB_A, HB_A_AT_ALIGN, HB_B}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "values_in"},
    {"values_out a sub-buffer inside values_in", SORT_PAIRS, 0, {HB_B, HB_B, HB_A, HB_A_AT_ALIGN}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"values_in CL_MEM_WRITE_ONLY", SORT_PAIRS, 0, {HB_A, HB_A, HB_WRITE_ONLY, HB_B}, {0}, 16,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY"},
    {"values_out an image object", SORT_PAIRS, 0, {HB_A, HB_A, HB_NULL, HB_IMAGE}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    /* A no-op that still hands back an event, and clears the last failure's message. */
    {"n 0, values_in NULL", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 0, CLPRIM_SUCCESS, NULL,
     .type = CLPRIM_FLOAT},
};

START_TEST(sort_bad_table)
{
    harness_run_bad_calls(sort_bad_calls, sizeof sort_bad_calls / sizeof *sort_bad_calls, sort_bad_call);
}
END_TEST

static Suite *sort_suite(void)
{
    Suite *s = suite_create("radix_sort");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, sort_default_tuning);
    tcase_add_test(tc, sort_small_tiles);
    tcase_add_test(tc, sort_tiny_groups);
    tcase_add_test(tc, sort_large_odd);
    tcase_add_test(tc, sort_stable);
    tcase_add_test(tc, sort_in_place);
    tcase_add_test(tc, sort_float_specials);
    tcase_add_test(tc, sort_int32_extremes);
    tcase_add_test(tc, sort_reuses_scratch);
    tcase_add_test(tc, sort_partial_bits);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_add_test(bad, sort_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(sort_suite());
}
