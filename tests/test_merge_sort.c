/* clprim_merge_sort and clprim_merge against a C stable merge sort and merge
 * by the same comparator: every key type with values of every size (and the
 * indices), stability on many ties, descending, a comparator on part of the
 * key and one on absolute values, signed zeros, sizes around tiles and runs
 * that take several merge passes, in place, offsets, merges of arrays of
 * different lengths (empty ones too), comparators that are no order (a
 * permutation still), NaNs, several work-group shapes, and every bad argument;
 * clprim_merge_in_order against the radix sort's order (reference_sort.c) for
 * every sort key type, descending and on a bit range.
 * Programs are built per key type, value size, comparator and shape, so the
 * cases share a few of them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "reference_sort.h"

/* The comparators, as the device gets them and as C computes them. */
enum { LT, GT, HIGH, ABS, LE, WILD, LESS_COUNT };
static const char *const less_text[LESS_COUNT] = {
    "a < b", "a > b", "(a >> 8) < (b >> 8)", "fabs(a) < fabs(b)", "a <= b", "((a ^ b) & 3) == 1"};

#define INTEGER_BEFORE(T)                                                                      \
    {                                                                                          \
        const T a = ((const T *)keys)[i], b = ((const T *)keys)[j];                            \
        return less == LT ? a < b : less == GT ? a > b : less == HIGH ? (a >> 8) < (b >> 8) : a <= b; \
    }
#define FLOAT_BEFORE(T)                                                                        \
    {                                                                                          \
        const T a = ((const T *)keys)[i], b = ((const T *)keys)[j];                            \
        return less == LT ? a < b : less == GT ? a > b : less == ABS ? fabs(a) < fabs(b) : a <= b; \
    }

/* Key i comes strictly before key j (LT, GT, HIGH, ABS, LE). */
static int c_before(int less, clprim_type t, const void *keys, size_t i, size_t j)
{
    switch (t) {
    case CLPRIM_INT32: INTEGER_BEFORE(int32_t)
    case CLPRIM_UINT32: INTEGER_BEFORE(uint32_t)
    case CLPRIM_INT64: INTEGER_BEFORE(int64_t)
    case CLPRIM_UINT64: INTEGER_BEFORE(uint64_t)
    case CLPRIM_UINT8: INTEGER_BEFORE(uint8_t)
    case CLPRIM_FLOAT: FLOAT_BEFORE(float)
    case CLPRIM_DOUBLE: FLOAT_BEFORE(double)
    }
    return 0;
}

static size_t size_of(clprim_type t)
{
    return t == CLPRIM_UINT8 ? 1 : t == CLPRIM_INT32 || t == CLPRIM_UINT32 || t == CLPRIM_FLOAT ? 4 : 8;
}

/* The stable merge of order[lo, mid) and order[mid, hi) (indices of keys). */
static void c_merge(int less, clprim_type t, const void *keys, const size_t *from, size_t lo, size_t mid, size_t hi,
                    size_t *to)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        to[k++] = c_before(less, t, keys, from[j], from[i]) ? from[j++] : from[i++];
    while (i < mid)
        to[k++] = from[i++];
    while (j < hi)
        to[k++] = from[j++];
}

/* order[] = the stable sorting permutation of n keys. */
static void c_sort(int less, clprim_type t, const void *keys, size_t n, size_t *order)
{
    size_t *tmp = harness_malloc((n ? n : 1) * sizeof *tmp), *a = order, *b = tmp;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            const size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            c_merge(less, t, keys, a, lo, mid, hi, b);
        }
        size_t *s = a;
        a = b, b = s;
    }
    if (a != order)
        memcpy(order, a, n * sizeof *order);
    free(tmp);
}

/* Keys: random bits (floats: random numbers with signed zeros among them), or
 * from a tiny range (many ties). */
enum { RANDOM, TIES };
static void fill_keys(clprim_type t, void *keys, size_t n, int fill, uint64_t *rng)
{
    harness_fill_random(t, keys, n, rng);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = harness_rand(rng);
        if (fill == TIES) {
            const int v = (int)(r % 5) - 2;
            switch (t) {
            case CLPRIM_INT32: ((int32_t *)keys)[i] = v; break;
            case CLPRIM_UINT32: ((uint32_t *)keys)[i] = (uint32_t)(v + 2) << 8 | (uint32_t)(r >> 40 & 0xff); break;
            case CLPRIM_INT64: ((int64_t *)keys)[i] = v; break;
            case CLPRIM_UINT64: ((uint64_t *)keys)[i] = (uint64_t)(v + 2); break;
            case CLPRIM_UINT8: ((uint8_t *)keys)[i] = (uint8_t)(v + 2); break;
            case CLPRIM_FLOAT: ((float *)keys)[i] = (float)v; break;
            case CLPRIM_DOUBLE: ((double *)keys)[i] = (double)v; break;
            }
        } else if (r % 16 == 0 && t == CLPRIM_FLOAT) {
            ((float *)keys)[i] = r & 16 ? -0.0f : 0.0f;
        } else if (r % 16 == 0 && t == CLPRIM_DOUBLE) {
            ((double *)keys)[i] = r & 16 ? -0.0 : 0.0;
        }
    }
}

/* One sort: what to sort and how to call. value_type -1: keys alone. */
typedef struct {
    clprim_type key;
    int value;   /* a clprim_type, or -1 */
    int indices; /* values_in NULL */
    int less;
    int fill;
    int in_place;
    size_t in_offset, out_offset;
} sort_case;

#define SENTINEL 0xA5

static void check_sort(clprim_context *ctx, const sort_case *c, size_t n, uint64_t *rng, const char *what)
{
    const size_t ks = size_of(c->key), vs = c->value >= 0 ? size_of((clprim_type)c->value) : 0;
    const size_t in_off = c->in_offset, out_off = c->in_place ? c->in_offset : c->out_offset;
    unsigned char *keys = harness_malloc(n * ks + 1), *values = harness_malloc(n * vs + 1);
    fill_keys(c->key, keys, n, c->fill, rng);
    if (vs)
        harness_fill_random(vs == 1 ? CLPRIM_UINT8 : vs == 4 ? CLPRIM_UINT32 : CLPRIM_UINT64, values, n, rng);
    const size_t in_keys_bytes = (in_off + n) * ks, out_keys_bytes = (out_off + n) * ks;
    const size_t init_bytes = (in_off + out_off + n) * 8 + 16;
    unsigned char *init = harness_malloc(init_bytes), *sentinel = harness_malloc(init_bytes);
    memset(sentinel, SENTINEL, init_bytes);
    memcpy(init, sentinel, init_bytes);
    memcpy(init + in_off * ks, keys, n * ks);
    cl_mem kin = harness_buffer(ctx, in_keys_bytes + 1, init);
    cl_mem kout = c->in_place ? kin : harness_buffer(ctx, out_keys_bytes + 1, sentinel);
    cl_mem vin = NULL, vout = NULL;
    if (vs) {
        memcpy(init, sentinel, init_bytes);
        memcpy(init + in_off * vs, values, n * vs);
        vin = c->indices ? NULL : harness_buffer(ctx, (in_off + n) * vs + 1, init);
        vout = c->in_place && vin ? vin : harness_buffer(ctx, (out_off + n) * vs + 1, sentinel);
    }
    const clprim_status s =
        clprim_merge_sort(ctx, c->key, c->value >= 0 ? (clprim_type)c->value : CLPRIM_UINT32, less_text[c->less],
                          kin, in_off, kout, out_off, vin, in_off, vout, out_off, n, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s: %s", what, clprim_status_name(s), clprim_last_error(ctx));

    size_t *order = harness_malloc((n + 1) * sizeof *order);
    c_sort(c->less, c->key, keys, n, order);
    unsigned char *got = harness_malloc((out_off + n) * 8 + 1);
    harness_read(ctx, kout, 0, out_keys_bytes, got);
    for (size_t i = 0; i < out_off * ks; i++)
        CHECK(got[i] == SENTINEL, "%s: keys_out byte %zu before the offset written", what, i);
    for (size_t i = 0; i < n; i++)
        CHECK(!memcmp(got + (out_off + i) * ks, keys + order[i] * ks, ks),
              "%s (n %zu, seed %llu): key %zu is not input key %zu", what, n, (unsigned long long)harness_seed(), i,
              order[i]);
    if (vs) {
        harness_read(ctx, vout, 0, (out_off + n) * vs, got);
        for (size_t i = 0; i < n; i++) {
            uint64_t want = order[i];
            const void *expect = c->indices ? (const void *)&want : values + order[i] * vs;
            CHECK(!memcmp(got + (out_off + i) * vs, expect, vs), "%s (n %zu): value %zu is not that of input %zu",
                  what, n, i, order[i]);
        }
    }
    if (!c->in_place) { /* the input is left as it was */
        harness_read(ctx, kin, in_off * ks, n * ks, got);
        CHECK(!memcmp(got, keys, n * ks), "%s: keys_in changed", what);
    }
    free(keys), free(values), free(init), free(sentinel), free(order), free(got);
    clReleaseMemObject(kin);
    if (kout != kin)
        clReleaseMemObject(kout);
    if (vin)
        clReleaseMemObject(vin);
    if (vout && vout != vin)
        clReleaseMemObject(vout);
}

static const size_t default_sizes[] = {0, 1, 2, 33, 1024, 1025, 5000, 70001};

/* Every key type, each with values of another size (1, 4 and 8 bytes, the
 * indices, none), at the device's shape: runs of n / groups, several passes. */
START_TEST(merge_sort_every_key_type)
{
    static const sort_case cases[REFERENCE_TYPE_COUNT] = {
        {CLPRIM_INT32, -1, 0, LT, RANDOM, 0, 3, 5},         {CLPRIM_UINT32, CLPRIM_UINT32, 1, LT, TIES, 0, 0, 0},
        {CLPRIM_INT64, CLPRIM_UINT32, 0, LT, RANDOM, 0, 1, 0}, {CLPRIM_UINT64, CLPRIM_UINT64, 1, LT, TIES, 0, 0, 2},
        {CLPRIM_FLOAT, CLPRIM_UINT8, 0, LT, RANDOM, 0, 0, 0},  {CLPRIM_DOUBLE, CLPRIM_DOUBLE, 0, LT, RANDOM, 0, 0, 0},
        {CLPRIM_UINT8, CLPRIM_INT64, 0, LT, RANDOM, 0, 2, 1},
    };
    const sort_case *c = &cases[_i];
    uint64_t rng = harness_rng(500 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (c->key == CLPRIM_DOUBLE && !ctx->has_fp64)
            continue;
        for (size_t k = 0; k < sizeof default_sizes / sizeof *default_sizes; k++) {
            char what[96];
            snprintf(what, sizeof what, "%s keys", reference_type_name(c->key));
            check_sort(ctx, c, default_sizes[k], &rng, what);
        }
    }
}
END_TEST

/* Descending, on part of the key (ties keep their order: the values are the
 * indices), on absolute values with signed zeros. */
START_TEST(merge_sort_comparators)
{
    static const sort_case cases[] = {
        {CLPRIM_INT32, -1, 0, GT, RANDOM, 0, 0, 0},
        {CLPRIM_UINT32, CLPRIM_UINT32, 1, HIGH, RANDOM, 0, 0, 0},
        {CLPRIM_UINT32, CLPRIM_UINT32, 1, HIGH, TIES, 0, 0, 0},
        {CLPRIM_FLOAT, CLPRIM_UINT8, 0, ABS, RANDOM, 0, 0, 0},
    };
    uint64_t rng = harness_rng(510);
    FOR_EACH_DEVICE(ctx)
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (size_t k = 0; k < sizeof default_sizes / sizeof *default_sizes; k++)
            check_sort(ctx, &cases[i], default_sizes[k], &rng, less_text[cases[i].less]);
    }
}
END_TEST

/* Work-groups of several work-items (tiles sorted in local memory, merged a
 * tile a group) and the CPU shape with short runs: sizes around the tile and
 * up to several passes, keys alone and with their indices, in place too. */
static const size_t shapes[][3] = {{4, 2, 16}, {16, 4, 8}, {1, 4, 3}};

START_TEST(merge_sort_shapes)
{
    uint64_t rng = harness_rng(520 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, shapes[_i][0], shapes[_i][1], shapes[_i][2]);
        const size_t tile = shapes[_i][0] * shapes[_i][1];
        const size_t sizes[] = {1, tile - 1, tile, tile + 1, 3 * tile + 5, 8 * tile, 40 * tile + 3, 1000};
        const sort_case cases[] = {
            {CLPRIM_UINT32, CLPRIM_UINT32, 1, LT, TIES, 0, 1, 2},
            {CLPRIM_UINT32, CLPRIM_UINT32, 0, LT, RANDOM, 1, 3, 3},
            {CLPRIM_UINT32, -1, 0, LT, RANDOM, 0, 0, 0},
            {CLPRIM_UINT32, -1, 0, LT, TIES, 1, 0, 0},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                char what[96];
                snprintf(what, sizeof what, "%s, case %zu", harness_tuning_text(ctx), i);
                check_sort(ctx, &cases[i], sizes[k], &rng, what);
            }
    }
}
END_TEST

/* In place at the device's shape, keys and values. */
START_TEST(merge_sort_in_place)
{
    uint64_t rng = harness_rng(530);
    FOR_EACH_DEVICE(ctx)
    {
        const sort_case keys = {CLPRIM_INT32, -1, 0, LT, RANDOM, 1, 7, 7},
                        pairs = {CLPRIM_UINT32, CLPRIM_UINT32, 0, LT, TIES, 1, 2, 2};
        for (size_t k = 0; k < sizeof default_sizes / sizeof *default_sizes; k++) {
            check_sort(ctx, &keys, default_sizes[k], &rng, "in place");
            check_sort(ctx, &pairs, default_sizes[k], &rng, "pairs in place");
        }
    }
}
END_TEST

/* A comparator that is no strict weak order, and NaNs under "a < b": the
 * result is a permutation of the input, each value beside its key. */
static void check_permutation(clprim_context *ctx, clprim_type t, int less, size_t n, uint64_t *rng, const char *what)
{
    const size_t ks = size_of(t);
    unsigned char *keys = harness_malloc(n * ks + 1), *got = harness_malloc(n * ks + 1);
    fill_keys(t, keys, n, RANDOM, rng);
    if (t == CLPRIM_FLOAT)
        for (size_t i = 0; i < n; i += 7)
            ((float *)keys)[i] = NAN;
    cl_mem kin = harness_buffer(ctx, n * ks + 1, keys), kout = harness_buffer(ctx, n * ks + 1, NULL);
    cl_mem vout = harness_buffer(ctx, n * 4 + 1, NULL);
    ck_assert_int_eq(clprim_merge_sort(ctx, t, CLPRIM_UINT32, less_text[less], kin, 0, kout, 0, NULL, 0, vout, 0, n,
                                       0, NULL, NULL),
                     CLPRIM_SUCCESS);
    cl_uint *from = harness_malloc(n * 4 + 1);
    char *seen = calloc(n + 1, 1);
    harness_read(ctx, kout, 0, n * ks, got);
    harness_read(ctx, vout, 0, n * 4, from);
    for (size_t i = 0; i < n; i++) {
        CHECK(from[i] < n && !seen[from[i]], "%s (n %zu): index %u at %zu repeated or out of range", what, n,
              from[i], i);
        seen[from[i]] = 1;
        CHECK(!memcmp(got + i * ks, keys + from[i] * ks, ks), "%s: key %zu is not input key %u", what, i, from[i]);
    }
    free(keys), free(got), free(from), free(seen);
    clReleaseMemObject(kin);
    clReleaseMemObject(kout);
    clReleaseMemObject(vout);
}

START_TEST(merge_sort_no_order)
{
    uint64_t rng = harness_rng(540);
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t k = 0; k < sizeof default_sizes / sizeof *default_sizes; k++) {
            check_permutation(ctx, CLPRIM_UINT32, WILD, default_sizes[k], &rng, less_text[WILD]);
            check_permutation(ctx, CLPRIM_UINT32, LE, default_sizes[k], &rng, less_text[LE]);
            check_permutation(ctx, CLPRIM_FLOAT, LT, default_sizes[k], &rng, "floats with NaN");
        }
        harness_set_tuning(ctx, 4, 2, 16);
        for (size_t n = 1; n < 300; n += 37)
            check_permutation(ctx, CLPRIM_UINT32, WILD, n, &rng, "wg=4, items=2");
    }
}
END_TEST

/* ---- clprim_merge ---- */

static void check_merge(clprim_context *ctx, int with_values, size_t na, size_t nb, uint64_t *rng, const char *what)
{
    const size_t n = na + nb;
    uint32_t *keys = harness_malloc((n + 1) * 4), *got = harness_malloc((n + 1) * 4), *values = harness_malloc((n + 1) * 4);
    size_t *order = harness_malloc((n + 1) * sizeof *order), *merged = harness_malloc((n + 1) * sizeof *merged);
    fill_keys(CLPRIM_UINT32, keys, n, TIES, rng);
    /* Each array sorted on its own, a's keys then b's. */
    for (size_t part = 0; part < 2; part++) {
        const size_t first = part ? na : 0, count = part ? nb : na;
        c_sort(HIGH, CLPRIM_UINT32, keys + first, count, order);
        for (size_t i = 0; i < count; i++)
            values[first + i] = keys[first + order[i]];
        memcpy(keys + first, values + first, count * 4);
    }
    for (size_t i = 0; i < n; i++)
        values[i] = (uint32_t)(i * 2654435761u);
    cl_mem a = harness_buffer(ctx, na * 4 + 4, keys), b = harness_buffer(ctx, nb * 4 + 8, NULL);
    clEnqueueWriteBuffer(clprim_queue(ctx), b, CL_TRUE, 4, nb * 4, keys + na, 0, NULL, NULL);
    cl_mem av = harness_buffer(ctx, na * 4 + 4, values), bv = harness_buffer(ctx, nb * 4 + 4, values + na);
    cl_mem out = harness_buffer(ctx, n * 4 + 12, NULL), vout = with_values ? harness_buffer(ctx, n * 4 + 4, NULL) : NULL;
    const clprim_status s = clprim_merge(ctx, CLPRIM_UINT32, CLPRIM_UINT32, less_text[HIGH], a, 0, av, 0, na, b, 1,
                                         bv, 0, nb, out, 3, vout, 0, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    c_merge(HIGH, CLPRIM_UINT32, keys, order, 0, na, n, merged);
    harness_read(ctx, out, 12, n * 4, got);
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == keys[merged[i]], "%s (%zu + %zu): key %zu is %u, not %u (input %zu)", what, na, nb, i, got[i],
              keys[merged[i]], merged[i]);
    if (with_values) {
        harness_read(ctx, vout, 0, n * 4, got);
        for (size_t i = 0; i < n; i++)
            CHECK(got[i] == values[merged[i]], "%s (%zu + %zu): value %zu is not input %zu's", what, na, nb, i,
                  merged[i]);
    }
    free(keys), free(got), free(values), free(order), free(merged);
    cl_mem bufs[] = {a, b, av, bv, out, vout};
    for (size_t i = 0; i < 6; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
}

START_TEST(merge_two_arrays)
{
    static const size_t lengths[][2] = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {100, 3}, {3, 100}, {1000, 777}, {40000, 1234}};
    uint64_t rng = harness_rng(550);
    FOR_EACH_DEVICE(ctx)
    for (size_t shape = 0; shape < 2; shape++) {
        if (shape)
            harness_set_tuning(ctx, 4, 2, 16);
        for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
            check_merge(ctx, 1, lengths[i][0], lengths[i][1], &rng, "merge of pairs");
            check_merge(ctx, 0, lengths[i][1], lengths[i][0], &rng, "merge of keys");
        }
    }
}
END_TEST

/* ---- clprim_merge_in_order ---- */

/* a and b (na and nb keys of t, with NaNs, signed zeros and ties), each
 * sorted in `order`, merged with their indices as values. */
static void check_merge_in_order(clprim_context *ctx, clprim_type t, const clprim_sort_order *order, size_t na,
                                 size_t nb, uint64_t *rng, const char *what)
{
    const size_t n = na + nb, ks = size_of(t);
    /* An element of room past the end: the device buffers hold one more. */
    unsigned char *keys = harness_malloc((n + 1) * ks), *sorted = harness_malloc((n + 1) * ks),
                  *got = harness_malloc((n + 1) * ks);
    uint32_t *values = harness_malloc((n + 1) * 4), *got_values = harness_malloc((n + 1) * 4);
    fill_keys(t, keys, n, harness_rand(rng) % 2 ? TIES : RANDOM, rng);
    for (size_t i = 0; i < n && (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE); i += 29) {
        if (t == CLPRIM_FLOAT)
            ((float *)keys)[i] = i % 2 ? NAN : -NAN;
        else
            ((double *)keys)[i] = i % 2 ? NAN : -NAN;
    }
    /* Each array sorted on its own; its values are the sorted positions in the whole. */
    for (size_t part = 0; part < 2; part++) {
        const size_t first = part ? na : 0, count = part ? nb : na;
        uint32_t *perm = reference_sort_perm_order(t, order, keys + first * ks, count);
        for (size_t i = 0; i < count; i++)
            memcpy(sorted + (first + i) * ks, keys + (first + perm[i]) * ks, ks);
        free(perm);
    }
    for (size_t i = 0; i < n; i++)
        values[i] = (uint32_t)i;
    cl_mem a = harness_buffer(ctx, na * ks + ks, sorted), b = harness_buffer(ctx, nb * ks + ks, sorted + na * ks);
    cl_mem av = harness_buffer(ctx, na * 4 + 4, values), bv = harness_buffer(ctx, nb * 4 + 4, values + na);
    cl_mem out = harness_buffer(ctx, n * ks + 2 * ks, NULL), vout = harness_buffer(ctx, n * 4 + 4, NULL);
    const clprim_status s = clprim_merge_in_order(ctx, t, CLPRIM_UINT32, order, a, 0, av, 0, na, b, 0, bv, 0, nb,
                                                  out, 2, vout, 1, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));
    harness_read(ctx, out, 2 * ks, n * ks, got);
    harness_read(ctx, vout, 4, n * 4, got_values);
    /* The stable merge: of equal ranks, a's first. */
    size_t i = 0, j = na;
    for (size_t k = 0; k < n; k++) {
        const int take_b = i == na || (j < n && reference_sort_rank(t, order, sorted + j * ks) <
                                                    reference_sort_rank(t, order, sorted + i * ks));
        const size_t from = take_b ? j++ : i++;
        CHECK(got_values[k] == from && memcmp(got + k * ks, sorted + from * ks, ks) == 0,
              "%s (%zu + %zu): output %zu holds input %u, not %zu", what, na, nb, k, got_values[k], from);
    }
    free(keys), free(sorted), free(got), free(values), free(got_values);
    cl_mem bufs[] = {a, b, av, bv, out, vout};
    for (size_t k = 0; k < 6; k++)
        clReleaseMemObject(bufs[k]);
}

START_TEST(merge_in_sort_order)
{
    /* One order a key type, so each type builds one program. */
    static const clprim_type types[] = {CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_FLOAT,
                                        CLPRIM_INT64, CLPRIM_UINT64, CLPRIM_DOUBLE};
    static const clprim_sort_order orders[] = {{0, 0, 0}, {1, 0, 0}, {0, 3, 19}};
    static const size_t lengths[][2] = {{0, 0}, {0, 7}, {9, 0}, {1, 1}, {300, 5}, {2000, 3001}};
    uint64_t rng = harness_rng(551);
    FOR_EACH_DEVICE(ctx)
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        char what[96];
        const clprim_sort_order *order = &orders[k % 3];
        snprintf(what, sizeof what, "%s, descending %d, bits [%u, %u)", reference_type_name(types[k]),
                 order->descending, order->begin_bit, order->end_bit);
        for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
            check_merge_in_order(ctx, types[k], order, lengths[i][0], lengths[i][1], &rng, what);
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { SORT, MERGE, MERGE_IN_ORDER };

/* SORT: buf keys_in, keys_out, values_in, values_out; variant: the comparator
 * (below); op 1: values_in NULL (indices); op 2: value type 42; op 3: the
 * indices as int32. MERGE: buf a_keys, b_keys,
 * keys_out, values_out, the values of a and b in a's and b's buffers. */
static const char *const bad_less[] = {"a < b", NULL, "", "a < c", "a <", "x < b"};

static clprim_status merge_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const clprim_type value_type = row->op == 2 ? (clprim_type)42 : row->op == 3 ? CLPRIM_INT32 : CLPRIM_UINT32;
    if (row->call == SORT)
        return clprim_merge_sort(ctx, row->type, value_type, bad_less[row->variant], buf[0], row->offset[0], buf[1],
                                 row->offset[1], row->op & 1 ? NULL : buf[2], row->offset[2], buf[3], row->offset[3],
                                 row->n, 0, NULL, NULL);
    if (row->call == MERGE_IN_ORDER) {
        const clprim_sort_order bits = {0, 8, 40}; /* past a 32-bit key */
        return clprim_merge_in_order(ctx, row->type, value_type, row->variant ? &bits : NULL, buf[0], row->offset[0],
                                     buf[0], row->offset[0], row->n, buf[1], row->offset[1], buf[1], row->offset[1],
                                     row->n / 2, buf[2], row->offset[2], buf[3], row->offset[3], 0, NULL, NULL);
    }
    return clprim_merge(ctx, row->type, value_type, bad_less[row->variant], buf[0], row->offset[0], buf[0],
                        row->offset[0], row->n, buf[1], row->offset[1], buf[1], row->offset[1], row->n / 2, buf[2],
                        row->offset[2], buf[3], row->offset[3], 0, NULL, NULL);
}

/* Each buffer holds 16384 32-bit elements. */
static const harness_bad_call merge_bad_calls[] = {
    {"ctx NULL", SORT, 1, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 0, 0}, 8, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"key type 42", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "42",
     .type = (clprim_type)42},
    {"less NULL", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "less is NULL",
     .variant = 1},
    {"less empty", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "less is empty",
     .variant = 2},
    {"less names c", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "less",
     .also = "'c'", .variant = 3},
    {"less cut short", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "less",
     .variant = 4},
    {"less names x, n == 0", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 0, CLPRIM_INVALID_ARGUMENT, "'x'",
     .variant = 5},
    {"value type 42", SORT, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 4096, 4096}, 8, CLPRIM_INVALID_ARGUMENT, "42",
     .op = 2},
    {"indices as int32", SORT, 0, {HB_A, HB_B, HB_NULL, HB_B}, {0, 0, 0, 4096}, 8, CLPRIM_INVALID_ARGUMENT,
     "indices", .op = 3},
    {"keys_in NULL", SORT, 0, {HB_NULL, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"keys_out NULL", SORT, 0, {HB_A, HB_NULL, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "keys_out"},
    {"keys_in short", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {16380, 0}, 8, CLPRIM_BUFFER_TOO_SMALL, "keys_in"},
    {"keys_out short", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0, 16377}, 8, CLPRIM_BUFFER_TOO_SMALL, "keys_out"},
    {"values_out short", SORT, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 4096, 16380}, 8, CLPRIM_BUFFER_TOO_SMALL,
     "values_out"},
    {"keys overlapping", SORT, 0, {HB_A, HB_A, HB_NULL, HB_NULL}, {0, 2}, 8, CLPRIM_INVALID_ARGUMENT, "keys_in",
     .also = "keys_out"},
    {"values_out over keys_out", SORT, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 4096, 4}, 8, CLPRIM_INVALID_ARGUMENT,
     "keys_out", .also = "values_out"},
    {"values_out over keys_in", SORT, 0, {HB_A, HB_B, HB_B, HB_A}, {0, 0, 4096, 4}, 8, CLPRIM_INVALID_ARGUMENT,
     "keys_in", .also = "values_out"},
    {"keys_out read-only", SORT, 0, {HB_A, HB_READ_ONLY, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY"},
    {"keys_in an image", SORT, 0, {HB_IMAGE, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    {"keys_in foreign", SORT, 0, {HB_FOREIGN, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"double keys without fp64", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 8, CLPRIM_UNSUPPORTED, "fp64",
     .type = CLPRIM_DOUBLE, .without_fp64 = 1},
    {"keys in place", SORT, 0, {HB_A, HB_A, HB_NULL, HB_NULL}, {4, 4}, 100, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1)},
    {"pairs in place", SORT, 0, {HB_A, HB_B, HB_A, HB_A}, {0, 0, 4096, 4096}, 100, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1) | HB_ARG(3)},
    {"n == 0", SORT, 0, {HB_A, HB_B, HB_NULL, HB_NULL}, {0}, 0, CLPRIM_SUCCESS, NULL},

    {"merge: less refused", MERGE, 0, {HB_A, HB_A, HB_B, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "less",
     .variant = 3},
    {"merge: a_keys NULL", MERGE, 0, {HB_NULL, HB_A, HB_B, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT, "a_keys"},
    {"merge: b_keys short", MERGE, 0, {HB_A, HB_A, HB_B, HB_NULL}, {0, 16382}, 8, CLPRIM_BUFFER_TOO_SMALL, "b_keys"},
    {"merge: keys_out short", MERGE, 0, {HB_A, HB_A, HB_B, HB_NULL}, {0, 0, 16380}, 8, CLPRIM_BUFFER_TOO_SMALL,
     "keys_out"},
    {"merge: keys_out over a_keys", MERGE, 0, {HB_A, HB_B, HB_A, HB_NULL}, {0, 0, 4}, 8, CLPRIM_INVALID_ARGUMENT,
     "a_keys", .also = "keys_out"},
    {"merge: values_out over b_values", MERGE, 0, {HB_A, HB_B, HB_A, HB_B}, {0, 0, 8000, 2}, 8,
     CLPRIM_INVALID_ARGUMENT, "b_", .also = "values_out"},
    {"merge: values_out short", MERGE, 0, {HB_A, HB_A, HB_B, HB_B}, {0, 0, 0, 16380}, 8, CLPRIM_BUFFER_TOO_SMALL,
     "values_out"},
    {"merge: values_out over keys_out", MERGE, 0, {HB_A, HB_A, HB_B, HB_B}, {0, 0, 0, 4}, 8, CLPRIM_INVALID_ARGUMENT,
     "keys_out", .also = "values_out"},
    {"merge: value type 42", MERGE, 0, {HB_A, HB_A, HB_B, HB_B}, {0, 0, 0, 4096}, 8, CLPRIM_INVALID_ARGUMENT, "42",
     .op = 2},
    {"merge: inputs overlapping", MERGE, 0, {HB_A, HB_A, HB_B, HB_NULL}, {0, 3}, 100, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(2)},
    {"merge: pairs", MERGE, 0, {HB_A, HB_A, HB_B, HB_B}, {0, 3, 0, 4096}, 100, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(2) | HB_ARG(3)},

    {"merge in order: ctx NULL", MERGE_IN_ORDER, 1, {HB_A, HB_A, HB_B, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT,
     "ctx is NULL"},
    {"merge in order: uint8 keys", MERGE_IN_ORDER, 0, {HB_A, HB_A, HB_B, HB_NULL}, {0}, 8, CLPRIM_INVALID_ARGUMENT,
     "not uint8", .type = CLPRIM_UINT8},
    {"merge in order: bits past the key", MERGE_IN_ORDER, 0, {HB_A, HB_A, HB_B, HB_NULL}, {0}, 8,
     CLPRIM_INVALID_ARGUMENT, "end_bit", .variant = 1},
    {"merge in order: keys_out over b_keys", MERGE_IN_ORDER, 0, {HB_A, HB_B, HB_B, HB_NULL}, {0, 0, 2}, 8,
     CLPRIM_INVALID_ARGUMENT, "b_keys", .also = "keys_out"},
    {"merge in order: value type 42", MERGE_IN_ORDER, 0, {HB_A, HB_A, HB_B, HB_B}, {0, 0, 0, 4096}, 8,
     CLPRIM_INVALID_ARGUMENT, "42", .op = 2},
    {"merge in order: pairs", MERGE_IN_ORDER, 0, {HB_A, HB_A, HB_B, HB_B}, {0, 3, 0, 4096}, 100, CLPRIM_SUCCESS,
     NULL, .written = HB_ARG(2) | HB_ARG(3)},
};

START_TEST(merge_bad_table)
{
    harness_run_bad_calls(merge_bad_calls, sizeof merge_bad_calls / sizeof *merge_bad_calls, merge_bad_call);
}
END_TEST

static Suite *merge_sort_suite(void)
{
    Suite *s = suite_create("merge_sort");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, merge_sort_every_key_type, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, merge_sort_comparators);
    tcase_add_loop_test(tc, merge_sort_shapes, 0, (int)(sizeof shapes / sizeof *shapes));
    tcase_add_test(tc, merge_sort_in_place);
    tcase_add_test(tc, merge_sort_no_order);
    tcase_add_test(tc, merge_two_arrays);
    tcase_add_test(tc, merge_in_sort_order);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_set_timeout(bad, 300);
    tcase_add_test(bad, merge_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(merge_sort_suite());
}
