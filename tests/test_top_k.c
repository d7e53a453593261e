/* clprim_top_k_keys and clprim_top_k_pairs against the first k of a stable
 * qsort (reference_sort_perm_order): the six key types, smallest and
 * largest, bit ranges; k of 0, 1, a few, about half, n - 1, n and beyond;
 * n from 1 to past several chunks; random, all-equal and few-distinct keys
 * (ties at the k-th key, which the lowest indices win), floats with NaN of
 * both signs, infinities, -0.0 and +0.0; values of 4 and 8 bytes and
 * indices; the device's shape and small work-groups over many chunks; the
 * outputs' neighbours untouched; and every bad argument. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "reference_sort.h"


typedef enum { RANDOM, ALL_EQUAL, FEW_DISTINCT, SPECIALS, NARROW, PATTERN_COUNT } pattern;
static const char *const pattern_names[] = {"random", "all-equal", "few-distinct", "specials", "narrow"};

/* n keys of type t; SPECIALS: floats drawn from NaN of both signs, the
 * infinities, -0.0, +0.0 and a few numbers (integers: their extremes);
 * NARROW: 4096 values whose top bits are all equal (integers below 4096,
 * floats in [1, 2)), so that whole levels sit in one digit. */
static void *make_keys(clprim_type t, pattern p, size_t n, uint64_t *rng)
{
    const size_t kb = reference_sort_key_bytes(t);
    unsigned char *keys = harness_malloc((n ? n : 1) * kb), few[5][8];
    harness_fill_random(t, few, 5, rng);
    harness_fill_random(t, keys, n, rng);
    for (size_t i = 0; i < n; i++) {
        if (p == ALL_EQUAL || p == FEW_DISTINCT)
            memcpy(keys + i * kb, few[p == ALL_EQUAL ? 0 : harness_rand(rng) % 5], kb);
        if (p == NARROW) {
            const uint64_t r = harness_rand(rng) % 4096;
            const float f = 1.0f + (float)r / 4096;
            const double d = 1.0 + (double)r / 4096;
            memcpy(keys + i * kb, t == CLPRIM_FLOAT ? (const void *)&f : t == CLPRIM_DOUBLE ? (const void *)&d : &r,
                   kb);
        }
        if (p != SPECIALS)
            continue;
        const unsigned pick = (unsigned)(harness_rand(rng) % 8);
        if (t == CLPRIM_FLOAT) {
            const float v[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 1.5f, -2.0f};
            memcpy(keys + i * kb, &v[pick], kb);
        } else if (t == CLPRIM_DOUBLE) {
            const double v[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, 1.5, -2.0};
            memcpy(keys + i * kb, &v[pick], kb);
        } else {
            const uint64_t v[] = {0, ~(uint64_t)0, (uint64_t)1 << (8 * kb - 1), ((uint64_t)1 << (8 * kb - 1)) - 1,
                                  1, 2, 7, 7};
            memcpy(keys + i * kb, &v[pick], kb);
        }
    }
    return keys;
}

/* What a call is: key type, values (value_bytes 0: keys alone; indices:
 * values_in NULL) and order. */
typedef struct {
    clprim_type t, vt;
    int pairs, indices;
    const clprim_sort_order *order;
} top_k_kind;

/* One call of top-k over n keys of pattern p, the outputs at an offset with
 * a sentinel element either side, checked against the reference. */
static void run_case(clprim_context *ctx, top_k_kind kind, pattern p, size_t n, size_t k, uint64_t *rng)
{
    const size_t kb = reference_sort_key_bytes(kind.t), vb = kind.pairs ? reference_sort_key_bytes(kind.vt) : 0;
    const size_t taken = k < n ? k : n, in_at = harness_rand(rng) % 3, out_at = 1 + harness_rand(rng) % 2;
    unsigned char *keys = make_keys(kind.t, p, n, rng);
    unsigned char *values = harness_malloc((n ? n : 1) * 8);
    harness_fill_random(kind.vt, values, n, rng);
    unsigned char *keys_in = harness_malloc((in_at + n + 1) * kb), *values_in = harness_malloc((in_at + n + 1) * 8);
    memcpy(keys_in + in_at * kb, keys, n * kb);
    memcpy(values_in + in_at * vb, values, n * vb);
    cl_mem kib = harness_buffer(ctx, (in_at + n + 1) * kb, keys_in);
    cl_mem vib = harness_buffer(ctx, (in_at + n + 1) * 8, values_in);
    const size_t out_count = out_at + taken + 1;
    cl_mem kob = harness_buffer(ctx, out_count * kb, NULL), vob = harness_buffer(ctx, out_count * 8, NULL);
    char what[256];
    snprintf(what, sizeof what, "%s %s%s %s n=%zu k=%zu%s at %s", reference_type_name(kind.t),
             kind.pairs ? (kind.indices ? "indices " : "pairs ") : "keys", kind.pairs ? reference_type_name(kind.vt) : "",
             pattern_names[p], n, k, kind.order && kind.order->descending ? " largest" : "", harness_tuning_text(ctx));
    const clprim_status s =
        kind.pairs ? clprim_top_k_pairs(ctx, kind.t, kind.vt, kind.order, k, kib, in_at, kind.indices ? NULL : vib,
                                        in_at, n, kob, out_at, vob, out_at, 0, NULL, NULL)
                   : clprim_top_k_keys(ctx, kind.t, kind.order, k, kib, in_at, n, kob, out_at, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));
    unsigned char *got_keys = harness_malloc(out_count * kb), *got_values = harness_malloc(out_count * 8);
    harness_read(ctx, kob, 0, out_count * kb, got_keys);
    harness_read(ctx, vob, 0, out_count * 8, got_values);
    CHECK(harness_all_sentinel(got_keys, out_at * kb) && harness_all_sentinel(got_keys + (out_at + taken) * kb, kb),
          "%s: wrote keys beside its %zu", what, taken);
    CHECK(harness_all_sentinel(got_values, out_at * vb) && (!vb || harness_all_sentinel(got_values + (out_at + taken) * vb, vb)),
          "%s: wrote values beside its %zu", what, taken);
    CHECK(vb || harness_all_sentinel(got_values, out_count * 8), "%s: keys alone wrote values", what);
    uint32_t *perm = reference_sort_perm_order(kind.t, kind.order, keys, n);
    for (size_t j = 0; j < taken; j++) {
        const size_t i = perm[j];
        CHECK(memcmp(got_keys + (out_at + j) * kb, keys + i * kb, kb) == 0, "%s: key %zu is not input key %zu", what,
              j, i);
        const uint64_t index = i;
        CHECK(!vb || memcmp(got_values + (out_at + j) * vb, kind.indices ? (const void *)&index : values + i * vb,
                            vb) == 0,
              "%s: value %zu is not that of input key %zu", what, j, i);
    }
    unsigned char *after = harness_malloc((in_at + n + 1) * kb);
    harness_read(ctx, kib, 0, (in_at + n + 1) * kb, after);
    CHECK(memcmp(after, keys_in, (in_at + n + 1) * kb) == 0, "%s: changed its input", what);
    free(perm);
    free(keys);
    free(values);
    free(keys_in);
    free(values_in);
    free(got_keys);
    free(got_values);
    free(after);
    cl_mem all[] = {kib, vib, kob, vob};
    for (size_t b = 0; b < 4; b++)
        clReleaseMemObject(all[b]);
}

/* k at every edge for n keys: none, one, a few, about half, n - 1, n, more. */
static void every_k(clprim_context *ctx, top_k_kind kind, pattern p, size_t n, uint64_t *rng)
{
    const size_t ks[] = {0, 1, 1 + harness_rand(rng) % 20, n / 2 + 1, n - 1, n, n + 3};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (i == 0 || ks[i] != ks[i - 1])
            run_case(ctx, kind, p, n, ks[i], rng);
}

static const clprim_sort_order largest = {1, 0, 0};

/* Each key type once, with keys alone, values of 4 or 8 bytes or indices
 * of either width: a program each for top-k and for the sort of the k. */
static const top_k_kind kinds[] = {
    {CLPRIM_UINT32, CLPRIM_UINT32, 0, 0, NULL}, {CLPRIM_INT32, CLPRIM_FLOAT, 1, 0, NULL},
    {CLPRIM_FLOAT, CLPRIM_UINT32, 1, 1, NULL},  {CLPRIM_UINT64, CLPRIM_UINT32, 0, 0, NULL},
    {CLPRIM_INT64, CLPRIM_DOUBLE, 1, 0, NULL},  {CLPRIM_DOUBLE, CLPRIM_UINT64, 1, 1, NULL},
};
#define KINDS (sizeof kinds / sizeof kinds[0])

/* Every kind, both ends, every pattern, at the device's shape. */
START_TEST(top_k_every_type)
{
    uint64_t rng = harness_rng(1100 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t sizes[] = {1, 2, 37, 1000 + harness_rand(&rng) % 3000, 70001};
        for (int end = 0; end < 2; end++) {
            top_k_kind kind = kinds[_i];
            kind.order = end ? &largest : NULL;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (pattern p = 0; p < PATTERN_COUNT; p++)
                    if (s < 3 || p == RANDOM || end == (int)p % 2) /* the large ones: each pattern at one end */
                        every_k(ctx, kind, p, sizes[s], &rng);
        }
    }
}
END_TEST

/* Bit ranges, on which keys equal there tie: the smallest on bits [5, 27),
 * the largest on [3, 13). */
START_TEST(top_k_bit_ranges)
{
    uint64_t rng = harness_rng(1120);
    static const clprim_sort_order bits[] = {{0, 5, 27}, {1, 3, 13}};
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t i = 0; i < KINDS; i += 2)
            for (size_t b = 0; b < 2; b++) {
                top_k_kind kind = kinds[i];
                kind.order = &bits[b];
                every_k(ctx, kind, RANDOM, 5000 + harness_rand(&rng) % 100, &rng);
                every_k(ctx, kind, FEW_DISTINCT, 3001, &rng);
            }
    }
}
END_TEST

/* Small work-groups over many chunks: each level's counts, places and
 * scatters cross work-groups and tiles. */
START_TEST(top_k_small_groups)
{
    uint64_t rng = harness_rng(1140);
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 16);
        for (size_t i = 1; i < KINDS; i += 4) /* int32 pairs, int64 pairs: 4 and 8 bytes */
            for (pattern p = 0; p < PATTERN_COUNT; p++) {
                top_k_kind kind = kinds[i];
                kind.order = p % 2 ? &largest : NULL;
                every_k(ctx, kind, p, 3 + harness_rand(&rng) % 60, &rng);
                every_k(ctx, kind, p, 2000 + harness_rand(&rng) % 2000, &rng);
            }
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { TOP_KEYS, TOP_PAIRS };
enum { V_K_100 = 1, V_UINT8_VALUES, V_INT32_INDICES, V_BIT_RANGE, V_K_0 };

/* buf: keys_in, keys_out, values_in, values_out; k = n / 2 unless the variant
 * says. A success writes keys_out (and values_out). */
static clprim_status top_k_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    static const clprim_sort_order empty_range = {0, 8, 8};
    const size_t k = row->variant == V_K_100 ? 100 : row->variant == V_K_0 ? 0 : row->n / 2;
    const clprim_type vt = row->variant == V_UINT8_VALUES    ? CLPRIM_UINT8
                           : row->variant == V_INT32_INDICES ? CLPRIM_INT32
                                                             : CLPRIM_UINT32;
    const clprim_sort_order *order = row->variant == V_BIT_RANGE ? &empty_range : NULL;
    if (row->call == TOP_KEYS)
        return clprim_top_k_keys(ctx, row->type, order, k, buf[0], row->offset[0], row->n, buf[1], row->offset[1], 0,
                                 NULL, NULL);
    return clprim_top_k_pairs(ctx, row->type, vt, order, k, buf[0], row->offset[0], buf[2], row->offset[2], row->n,
                              buf[1], row->offset[1], buf[3], row->offset[3], 0, NULL, NULL);
}

/* Each buffer holds 16384 keys of 4 bytes. */
static const harness_bad_call top_k_bad_calls[] = {
    {"ctx NULL", TOP_KEYS, 1, {HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"type 99", TOP_KEYS, 0, {HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "99", .type = (clprim_type)99},
    {"uint8 keys", TOP_KEYS, 0, {HB_A, HB_B}, {0}, 50, CLPRIM_INVALID_ARGUMENT, "uint8", .type = CLPRIM_UINT8},
    {"empty bit range", TOP_KEYS, 0, {HB_A, HB_B}, {0}, 50, CLPRIM_INVALID_ARGUMENT, "[8, 8)",
     .variant = V_BIT_RANGE},
    {"uint8 values", TOP_PAIRS, 0, {HB_A, HB_B, HB_READ_ONLY, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "4 or 8 bytes", .variant = V_UINT8_VALUES},
    {"int32 indices", TOP_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "uint32 or uint64", .variant = V_INT32_INDICES},
    {"keys_in NULL", TOP_KEYS, 0, {HB_NULL, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"keys_out NULL", TOP_KEYS, 0, {HB_A, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_out"},
    {"values_out NULL", TOP_PAIRS, 0, {HB_A, HB_B, HB_READ_ONLY, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "values_out"},
    {"keys_in one key short", TOP_KEYS, 0, {HB_A, HB_B}, {1, 0}, 16384, CLPRIM_BUFFER_TOO_SMALL, "keys_in"},
    {"keys_out one key short of k", TOP_KEYS, 0, {HB_A, HB_B}, {0, 16384 - 99}, 1000, CLPRIM_BUFFER_TOO_SMALL,
     "keys_out", .variant = V_K_100},
    {"values_in one value short", TOP_PAIRS, 0, {HB_A, HB_B, HB_READ_ONLY, HB_WRITE_ONLY}, {0, 0, 1, 0}, 16384,
     CLPRIM_BUFFER_TOO_SMALL, "values_in"},
    {"values_out one value short of k", TOP_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0, 0, 0, 16384 - 99},
     1000, CLPRIM_BUFFER_TOO_SMALL, "values_out", .variant = V_K_100},
    {"keys_out CL_MEM_READ_ONLY", TOP_KEYS, 0, {HB_A, HB_READ_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY"},
    {"keys_in CL_MEM_WRITE_ONLY", TOP_KEYS, 0, {HB_WRITE_ONLY, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"keys_in of another context", TOP_KEYS, 0, {HB_FOREIGN, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "another"},
    {"keys_out over keys_in", TOP_KEYS, 0, {HB_A, HB_A}, {0, 60}, 100, CLPRIM_INVALID_ARGUMENT, "keys_in",
     .also = "keys_out"},
    {"keys_out in place (k = n)", TOP_KEYS, 0, {HB_A, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "overlap",
     .variant = V_K_100},
    {"keys_out a sub-buffer over keys_in", TOP_KEYS, 0, {HB_A, HB_A_AT_0}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"values_out over keys_out", TOP_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_B}, {0, 0, 0, 20}, 100,
     CLPRIM_INVALID_ARGUMENT, "values_out", .also = "keys_out"},
    {"values_out over values_in", TOP_PAIRS, 0, {HB_READ_ONLY, HB_B, HB_A, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "values_in", .also = "values_out"},
    /* Near misses: k beyond n fills min(k, n); k == 0 and n == 0 write nothing. */
    {"k beyond n", TOP_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 50, CLPRIM_SUCCESS, NULL,
     .variant = V_K_100, .written = HB_ARG(1) | HB_ARG(3)},
    {"k 0", TOP_KEYS, 0, {HB_A, HB_B}, {0}, 100, CLPRIM_SUCCESS, NULL, .variant = V_K_0},
    {"n 0", TOP_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 0, CLPRIM_SUCCESS, NULL, .variant = V_K_100},
    {"k < n, random keys", TOP_KEYS, 0, {HB_A, HB_B}, {0}, 5000, CLPRIM_SUCCESS, NULL, .type = CLPRIM_UINT32,
     .written = HB_ARG(1)},
};

START_TEST(top_k_bad_table)
{
    harness_run_bad_calls(top_k_bad_calls, sizeof top_k_bad_calls / sizeof *top_k_bad_calls, top_k_bad_call);
}
END_TEST

static Suite *top_k_suite(void)
{
    Suite *s = suite_create("top_k");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, top_k_every_type, 0, KINDS);
    tcase_add_test(tc, top_k_bit_ranges);
    tcase_add_test(tc, top_k_small_groups);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_add_test(bad, top_k_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(top_k_suite());
}
