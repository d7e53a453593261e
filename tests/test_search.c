/* clprim_search_sorted against counting: in a sorted array, a needle's lower
 * bound is the number of keys before it in the order, its upper bound the
 * number not after it. Every key type, floats with NaN and signed zeros,
 * duplicates, needles outside the keys, descending and bit ranges, offsets,
 * n == 0 and m == 0, arrays sorted by clprim_sort_keys, several work-group
 * shapes, and every bad argument. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"


typedef struct {
    clprim_type t;
    unsigned width, begin_bit, end_bit;
    int descending;
} order_spec;

static uint64_t key_bits(const void *keys, unsigned width, size_t i)
{
    return width == 32 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

static void key_put(void *keys, unsigned width, size_t i, uint64_t k)
{
    if (width == 32)
        ((uint32_t *)keys)[i] = (uint32_t)k;
    else
        ((uint64_t *)keys)[i] = k;
}

/* The rank clprim.h's order gives a key: its ordered form's bits of the range. */
static uint64_t rank(const order_spec *o, uint64_t k)
{
    const uint64_t sign = (uint64_t)1 << (o->width - 1), all = sign | (sign - 1);
    uint64_t r = k;
    if (o->t == CLPRIM_FLOAT || o->t == CLPRIM_DOUBLE)
        r = (k & sign) ? ~k & all : k ^ sign;
    else if (o->t == CLPRIM_INT32 || o->t == CLPRIM_INT64)
        r = k ^ sign;
    if (o->descending)
        r = ~r & all;
    const unsigned bits = o->end_bit - o->begin_bit;
    return (r >> o->begin_bit) & (bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1);
}

static const order_spec *sorting; /* qsort's comparison has no context */
static int by_rank(const void *a, const void *b)
{
    const uint64_t x = rank(sorting, key_bits(a, sorting->width, 0)), y = rank(sorting, key_bits(b, sorting->width, 0));
    return x < y ? -1 : x > y;
}

/* Random keys from a small pool (duplicates), with NaNs, infinities and signed
 * zeros among floats; needles from the same pool and outside it. */
static void fill_keys(const order_spec *o, void *keys, size_t n, const uint64_t *pool, size_t pool_size,
                      uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        key_put(keys, o->width, i, pool[harness_rand(rng) % pool_size]);
}

static void make_pool(const order_spec *o, uint64_t *pool, size_t size, uint64_t *rng)
{
    for (size_t i = 0; i < size; i++)
        pool[i] = o->width == 32 ? harness_rand(rng) >> 32 : harness_rand(rng);
    if (o->t == CLPRIM_FLOAT) {
        const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f};
        for (size_t i = 0; i < 8 && i < size; i++)
            memcpy(&pool[i], &special[i], 4), pool[i] &= 0xffffffffu;
    } else if (o->t == CLPRIM_DOUBLE) {
        const double special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0};
        for (size_t i = 0; i < 8 && i < size; i++)
            memcpy(&pool[i], &special[i], 8);
    }
}

/* Searches m needles among n keys sorted in o's order (placed at offsets in
 * their buffers) and compares with counting. */
static void search_case(clprim_context *ctx, const order_spec *o, size_t n, size_t m, uint64_t *rng)
{
    const size_t es = o->width / 8, pool_size = 1 + n / 3 + (size_t)(harness_rand(rng) % 7);
    const size_t keys_at = (size_t)(harness_rand(rng) % 3), needles_at = (size_t)(harness_rand(rng) % 3);
    uint64_t *pool = harness_malloc((pool_size + 1) * sizeof *pool);
    make_pool(o, pool, pool_size, rng);
    unsigned char *keys = harness_malloc((keys_at + n + 1) * es), *needles = harness_malloc((needles_at + m + 1) * es);
    fill_keys(o, keys + keys_at * es, n, pool, pool_size, rng);
    sorting = o;
    qsort(keys + keys_at * es, n, es, by_rank);
    /* Needles: half from the pool, half anything. */
    for (size_t i = 0; i < m; i++)
        key_put(needles + needles_at * es, o->width, i,
                i % 2 ? pool[harness_rand(rng) % pool_size]
                      : (o->width == 32 ? harness_rand(rng) >> 32 : harness_rand(rng)));
    const clprim_sort_order order = {o->descending, o->begin_bit, o->end_bit};
    cl_mem kb = harness_buffer(ctx, (keys_at + n + 1) * es, keys);
    cl_mem nb = harness_buffer(ctx, (needles_at + m + 1) * es, needles);
    cl_mem out = harness_buffer(ctx, (m + 2) * sizeof(cl_ulong), NULL);
    cl_ulong *got = harness_malloc((m + 2) * sizeof *got);
    for (int upper = 0; upper < 2; upper++) {
        const clprim_status s = clprim_search_sorted(ctx, o->t, &order, upper, kb, keys_at, n, nb, needles_at, m,
                                                     out, 1, 0, NULL, NULL);
        ck_assert_msg(s == CLPRIM_SUCCESS, "search %s n=%zu m=%zu: %s", reference_type_name(o->t), n, m,
                      clprim_last_error(ctx));
        harness_read(ctx, out, 0, (m + 2) * sizeof *got, got);
        ck_assert_msg(harness_all_sentinel(&got[0], 8) && harness_all_sentinel(&got[m + 1], 8),
                      "search wrote beside its results");
        for (size_t i = 0; i < m; i++) {
            const uint64_t needle = rank(o, key_bits(needles + needles_at * es, o->width, i));
            size_t want = 0;
            for (size_t j = 0; j < n; j++) {
                const uint64_t here = rank(o, key_bits(keys + keys_at * es, o->width, j));
                want += upper ? here <= needle : here < needle;
            }
            CHECK(got[i + 1] == want, "%s %s%s bits [%u, %u) n=%zu: needle %zu at %llu, want %zu",
                  reference_type_name(o->t), upper ? "upper" : "lower", o->descending ? " descending" : "",
                  o->begin_bit, o->end_bit, n, i, (unsigned long long)got[i + 1], want);
        }
    }
    free(got);
    free(pool);
    free(keys);
    free(needles);
    clReleaseMemObject(kb);
    clReleaseMemObject(nb);
    clReleaseMemObject(out);
}

START_TEST(search_every_key_type)
{
    const clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(300 + (unsigned)_i);
    const unsigned width = (unsigned)reference_type_size(t) * 8;
    if (width < 32) /* not a sort key: the bad calls refuse it */
        return;
    FOR_EACH_DEVICE(ctx)
    {
        for (int shape = 0; shape < 2; shape++) {
            if (shape)
                harness_set_tuning(ctx, 4, 2, 8);
            const size_t sizes[] = {0, 1, 2, 3, 17, 300, 1500};
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                const order_spec ascending = {t, width, 0, width, 0};
                search_case(ctx, &ascending, sizes[k], 1 + sizes[k] % 400, &rng);
            }
            const order_spec descending = {t, width, 0, width, 1};
            search_case(ctx, &descending, 1000, 333, &rng);
            const order_spec range = {t, width, width / 4, width - 3, 0};
            search_case(ctx, &range, 800, 200, &rng);
            const order_spec low_bits = {t, width, 0, 5, 1};
            search_case(ctx, &low_bits, 500, 100, &rng);
        }
    }
}
END_TEST

/* m == 0 writes nothing; n == 0 answers 0. */
START_TEST(search_empty)
{
    FOR_EACH_DEVICE(ctx)
    {
        cl_mem keys = harness_buffer(ctx, 64, NULL), out = harness_buffer(ctx, 64, NULL);
        ck_assert_int_eq(clprim_search_sorted(ctx, CLPRIM_INT32, NULL, 0, keys, 0, 8, keys, 0, 0, out, 0, 0, NULL,
                                              NULL),
                         CLPRIM_SUCCESS);
        cl_ulong got[8];
        harness_read(ctx, out, 0, sizeof got, got);
        ck_assert(harness_all_sentinel(got, sizeof got));
        ck_assert_int_eq(clprim_search_sorted(ctx, CLPRIM_INT32, NULL, 1, keys, 0, 0, keys, 0, 5, out, 2, 0, NULL,
                                              NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, out, 0, sizeof got, got);
        for (size_t i = 0; i < 8; i++)
            ck_assert(i >= 2 && i < 7 ? got[i] == 0 : harness_all_sentinel(&got[i], 8));
        clReleaseMemObject(keys);
        clReleaseMemObject(out);
    }
}
END_TEST

/* Keys sorted by clprim_sort_keys, searched for themselves: each lower bound
 * holds a key of the same bits, and the key before it comes earlier. */
START_TEST(search_after_sort)
{
    uint64_t rng = harness_rng(320);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 5000;
        float *x = harness_malloc(n * sizeof *x), *sorted = harness_malloc(n * sizeof *sorted);
        harness_fill_random(CLPRIM_FLOAT, x, n, &rng);
        for (size_t i = 0; i < n; i += 97)
            x[i] = i % 2 ? -0.0f : NAN;
        cl_mem in = harness_buffer(ctx, n * sizeof *x, x), keys = harness_buffer(ctx, n * sizeof *x, NULL);
        cl_mem out = harness_buffer(ctx, n * sizeof(cl_ulong), NULL);
        const clprim_sort_order down = {1, 0, 0};
        ck_assert_int_eq(clprim_sort_keys(ctx, CLPRIM_FLOAT, &down, in, 0, keys, 0, n, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        ck_assert_int_eq(clprim_search_sorted(ctx, CLPRIM_FLOAT, &down, 0, keys, 0, n, in, 0, n, out, 0, 0, NULL,
                                              NULL),
                         CLPRIM_SUCCESS);
        cl_ulong *at = harness_malloc(n * sizeof *at);
        harness_read(ctx, keys, 0, n * sizeof *sorted, sorted);
        harness_read(ctx, out, 0, n * sizeof *at, at);
        for (size_t i = 0; i < n; i++) {
            CHECK(at[i] < n && memcmp(&sorted[at[i]], &x[i], sizeof *x) == 0, "key %zu (%g) not found at %llu", i,
                  x[i], (unsigned long long)at[i]);
            CHECK(at[i] == 0 || memcmp(&sorted[at[i] - 1], &x[i], sizeof *x) != 0, "key %zu: an equal key before %llu",
                  i, (unsigned long long)at[i]);
        }
        free(x);
        free(sorted);
        free(at);
        clReleaseMemObject(in);
        clReleaseMemObject(keys);
        clReleaseMemObject(out);
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { SEARCH };

/* buf: sorted, needles, result; op: the order's variant (0 NULL, 1 an empty
 * bit range, 2 bits past the width). */
static clprim_status search_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const clprim_sort_order orders[] = {{0, 0, 0}, {0, 7, 7}, {0, 0, 33}};
    return clprim_search_sorted(ctx, row->type, row->op ? &orders[row->op] : NULL, row->variant, buf[0],
                                row->offset[0], row->n, buf[1], row->offset[1], row->n, buf[2], row->offset[2], 0,
                                NULL, NULL);
}

/* Each buffer holds 16384 int32, 8192 cl_ulong. */
static const harness_bad_call search_bad_calls[] = {
    {"ctx NULL", SEARCH, 1, {HB_A, HB_A, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"uint8 keys", SEARCH, 0, {HB_A, HB_A, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "uint8",
     .type = CLPRIM_UINT8},
    {"key type 42", SEARCH, 0, {HB_A, HB_A, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "42",
     .type = (clprim_type)42},
    {"an empty bit range", SEARCH, 0, {HB_A, HB_A, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "bit range",
     .op = 1},
    {"bits past the width", SEARCH, 0, {HB_A, HB_A, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "bit range",
     .op = 2},
    {"sorted NULL", SEARCH, 0, {HB_NULL, HB_A, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "sorted"},
    {"needles NULL", SEARCH, 0, {HB_A, HB_NULL, HB_B}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "needles"},
    {"result NULL", SEARCH, 0, {HB_A, HB_A, HB_NULL}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "result"},
    {"sorted short", SEARCH, 0, {HB_A, HB_A, HB_B}, {16380, 0, 0}, 8, CLPRIM_BUFFER_TOO_SMALL, "sorted"},
    {"result short", SEARCH, 0, {HB_A, HB_A, HB_B}, {0, 0, 8190}, 8, CLPRIM_BUFFER_TOO_SMALL, "result"},
    {"result over the needles", SEARCH, 0, {HB_A, HB_B, HB_B}, {0, 0, 2}, 8, CLPRIM_INVALID_ARGUMENT, "needles",
     .also = "result"},
    {"result over the keys", SEARCH, 0, {HB_A, HB_B, HB_A}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "sorted",
     .also = "result"},
    {"result read-only", SEARCH, 0, {HB_A, HB_A, HB_READ_ONLY}, {0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY"},
    {"needles among the keys", SEARCH, 0, {HB_A, HB_A, HB_B}, {0, 5, 0}, 100, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(2)},
    {"upper bounds of doubles", SEARCH, 0, {HB_A, HB_A, HB_B}, {0, 0, 0}, 100, CLPRIM_SUCCESS, NULL,
     .type = CLPRIM_DOUBLE, .variant = 1, .written = HB_ARG(2)},
};

START_TEST(search_bad_table)
{
    harness_run_bad_calls(search_bad_calls, sizeof search_bad_calls / sizeof *search_bad_calls, search_bad_call);
}
END_TEST

static Suite *search_suite(void)
{
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, search_every_key_type, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, search_empty);
    tcase_add_test(tc, search_after_sort);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_set_timeout(bad, 300);
    tcase_add_test(bad, search_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(search_suite());
}
