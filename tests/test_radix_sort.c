/* clprim_sort_keys and clprim_sort_pairs against a qsort reference: the six
 * key types, both directions, bit ranges, values of 4 and 8 bytes and indices
 * of both widths; random, sorted, reversed, all-equal, few-distinct and
 * one-digit inputs; sizes at every boundary of the work split (work-group,
 * tile, several tiles per group, digit-count scans of several levels), ~10^6
 * + odd; stability through values; float and double specials; offsets, in
 * place; both forms (multi-pass and one-sweep), which must give the same bits;
 * and every bad argument (status, message, outputs untouched). */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference_sort.h"

static const clprim_type key_types[] = {CLPRIM_UINT32, CLPRIM_INT32, CLPRIM_FLOAT,
                                        CLPRIM_UINT64, CLPRIM_INT64, CLPRIM_DOUBLE};
#define KEY_TYPES (sizeof key_types / sizeof key_types[0])
static const clprim_form forms[] = {CLPRIM_FORM_MULTI_PASS, CLPRIM_FORM_ONE_SWEEP};

static const char *type_name(clprim_type t)
{
    static const char *const names[] = {"int32", "uint32", "int64", "uint64", "float", "double", "uint8"};
    return (unsigned)t < 7 ? names[t] : "?";
}

/* ---- Inputs ---- */

typedef enum { RANDOM, SORTED, REVERSED, ALL_EQUAL, FEW_DISTINCT, ONE_BYTE, PATTERN_COUNT } pattern;
static const char *pattern_name[] = {"random", "sorted", "reversed", "all-equal", "few-distinct", "one-byte"};

/* A key's bits: integers any pattern; floats mostly ordinary values, sometimes
 * any finite pattern. */
static uint64_t random_key(clprim_type t, uint64_t *rng)
{
    const uint64_t r = harness_rand(rng);
    if (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE) {
        const int single = t == CLPRIM_FLOAT;
        if (harness_rand(rng) % 4) {
            unsigned char v[8] = {0};
            harness_fill_random(t, v, 1, rng);
            uint64_t u = 0;
            memcpy(&u, v, single ? 4 : 8);
            return u;
        }
        for (uint64_t u = r;; u = harness_rand(rng)) {
            if (single && ((u >> 23) & 0xFF) != 0xFF)
                return u & 0xFFFFFFFFu;
            if (!single && ((u >> 52) & 0x7FF) != 0x7FF)
                return u;
        }
    }
    return reference_sort_key_bytes(t) == 4 ? r & 0xFFFFFFFFu : r;
}

static void put_key(void *keys, size_t kb, size_t i, uint64_t u)
{
    memcpy((char *)keys + i * kb, &u, kb);
}

/* n keys of type t in `pattern`. ONE_BYTE: keys that differ only in one byte,
 * so that every other pass is skipped. */
static void *make_keys(clprim_type t, pattern p, size_t n, uint64_t *rng)
{
    const size_t kb = reference_sort_key_bytes(t);
    void *keys = harness_malloc((n ? n : 1) * kb);
    uint64_t few[5];
    for (int i = 0; i < 5; i++)
        few[i] = random_key(t, rng);
    const uint64_t same = random_key(t, rng);
    const unsigned byte = (unsigned)(harness_rand(rng) % kb);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = p == ALL_EQUAL      ? same
                     : p == FEW_DISTINCT ? few[harness_rand(rng) % 5]
                     : p == ONE_BYTE
                         ? (same & ~((uint64_t)0xFF << (8 * byte))) | ((harness_rand(rng) & 0xFF) << (8 * byte))
                         : random_key(t, rng);
        put_key(keys, kb, i, u);
    }
    if (p == SORTED || p == REVERSED) {
        uint32_t *perm = reference_sort_perm_order(t, NULL, keys, n);
        char *copy = harness_malloc((n ? n : 1) * kb);
        for (size_t j = 0; j < n; j++)
            memcpy(copy + j * kb, (char *)keys + perm[p == SORTED ? j : n - 1 - j] * kb, kb);
        memcpy(keys, copy, n * kb);
        free(copy);
        free(perm);
    }
    return keys;
}

/* ---- One sort, checked ---- */

typedef struct {
    size_t in_offset, out_offset, after; /* elements before and after the ranges */
    int in_place;                        /* keys (and values) sorted in their input buffers */
    int pairs;                           /* 0: clprim_sort_keys */
    int index_values;                    /* pairs with values_in NULL */
} layout;

/* What is sorted: key and value types, and the order (NULL: the default). */
typedef struct {
    clprim_type t, vt;
    const clprim_sort_order *order;
} sort_kind;

static void check_sort(clprim_context *ctx, sort_kind kind, size_t n, const void *keys, layout lay, uint64_t *rng,
                       const char *what)
{
    const clprim_type t = kind.t;
    const size_t kb = reference_sort_key_bytes(t), vb = reference_sort_key_bytes(kind.vt);
    const size_t in_len = lay.in_offset + n + lay.after;
    const size_t out_off = lay.in_place ? lay.in_offset : lay.out_offset;
    const size_t out_len = lay.in_place ? in_len : lay.out_offset + n + lay.after;
    unsigned char *kin = harness_malloc(in_len * kb), *vin = harness_malloc(in_len * vb);
    for (size_t i = 0; i < in_len; i++) {
        put_key(kin, kb, i, harness_rand(rng));
        put_key(vin, vb, i, harness_rand(rng));
    }
    memcpy(kin + lay.in_offset * kb, keys, n * kb);
    cl_mem kin_buf = harness_buffer(ctx, in_len * kb, kin);
    cl_mem vin_buf = lay.pairs && !lay.index_values ? harness_buffer(ctx, in_len * vb, vin) : NULL;
    cl_mem kout_buf = lay.in_place ? kin_buf : harness_buffer(ctx, out_len * kb, NULL);
    cl_mem vout_buf = !lay.pairs ? NULL : lay.in_place && vin_buf ? vin_buf : harness_buffer(ctx, out_len * vb, NULL);
    const clprim_sort_order *o = kind.order;
    char order_text[64] = "default order";
    if (o)
        snprintf(order_text, sizeof order_text, "%s, bits [%u, %u)", o->descending ? "descending" : "ascending",
                 o->begin_bit, o->end_bit);

    cl_event done = NULL;
    clprim_status s;
    if (lay.pairs)
        s = clprim_sort_pairs(ctx, t, kind.vt, o, kin_buf, lay.in_offset, kout_buf, out_off, vin_buf, lay.in_offset,
                              vout_buf, out_off, n, 0, NULL, &done);
    else
        s = clprim_sort_keys(ctx, t, o, kin_buf, lay.in_offset, kout_buf, out_off, n, 0, NULL, &done);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: sort %s n=%zu (%s; %s): %s: %s", what, type_name(t), n, order_text,
                  harness_tuning_text(ctx), clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_msg(done != NULL, "no event for n=%zu", n);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);

    unsigned char *kout = harness_malloc(out_len * kb), *vout = harness_malloc(out_len * vb);
    harness_read(ctx, kout_buf, 0, out_len * kb, kout);
    if (vout_buf)
        harness_read(ctx, vout_buf, 0, out_len * vb, vout);
    uint32_t *perm = reference_sort_perm_order(t, o, keys, n);
    for (size_t j = 0; j < n; j++) {
        const unsigned char *want_key = (const unsigned char *)keys + perm[j] * kb;
        CHECK(!memcmp(kout + (out_off + j) * kb, want_key, kb),
              "%s: %s %s n=%zu: key %zu differs from the reference's (input index %u) (%s; %s, offsets %zu/%zu%s)",
              what, type_name(t), lay.pairs ? "pairs" : "keys", n, j, perm[j], order_text, harness_tuning_text(ctx),
              lay.in_offset, out_off, lay.in_place ? ", in place" : "");
        if (lay.pairs) {
            uint64_t want = 0, got = 0;
            if (lay.index_values)
                want = perm[j];
            else
                memcpy(&want, vin + (lay.in_offset + perm[j]) * vb, vb);
            memcpy(&got, vout + (out_off + j) * vb, vb);
            CHECK(got == want, "%s: %s pairs n=%zu: value %zu is %llu, want %llu (input index %u; stability) (%s; %s)",
                  what, type_name(t), n, j, (unsigned long long)got, (unsigned long long)want, perm[j], order_text,
                  harness_tuning_text(ctx));
        }
    }
    /* Nothing outside the ranges changed; out of place, the inputs did not change. */
    if (lay.in_place) {
        ck_assert_msg(memcmp(kout, kin, out_off * kb) == 0 &&
                          memcmp(kout + (out_off + n) * kb, kin + (out_off + n) * kb, lay.after * kb) == 0,
                      "%s: in-place sort n=%zu changed keys outside its range", what, n);
    } else {
        ck_assert_msg(harness_all_sentinel(kout, out_off * kb) &&
                          harness_all_sentinel(kout + (out_off + n) * kb, lay.after * kb),
                      "%s: sort n=%zu wrote keys outside its range", what, n);
        unsigned char *again = harness_malloc(in_len * (kb > vb ? kb : vb));
        harness_read(ctx, kin_buf, 0, in_len * kb, again);
        ck_assert_msg(memcmp(again, kin, in_len * kb) == 0, "%s: sort n=%zu changed keys_in", what, n);
        if (vin_buf) {
            harness_read(ctx, vin_buf, 0, in_len * vb, again);
            ck_assert_msg(memcmp(again, vin, in_len * vb) == 0, "%s: sort n=%zu changed values_in", what, n);
        }
        free(again);
    }
    if (vout_buf && vout_buf != vin_buf)
        ck_assert_msg(harness_all_sentinel(vout, out_off * vb) &&
                          harness_all_sentinel(vout + (out_off + n) * vb, lay.after * vb),
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

static void sort_case(clprim_context *ctx, sort_kind kind, pattern p, size_t n, layout lay, uint64_t *rng)
{
    void *keys = make_keys(kind.t, p, n, rng);
    check_sort(ctx, kind, n, keys, lay, rng, pattern_name[p]);
    free(keys);
}

/* Sizes around a work-group and a tile of the current tuning (the sort's tile
 * holds up to two or three times the tuning's items a work-item, by device
 * class). */
static size_t boundary_sizes(clprim_context *ctx, size_t *sizes)
{
    clprim_tuning t = clprim_get_tuning(ctx);
    const size_t wg = t.work_group_size, tile = wg * t.items_per_thread;
    const size_t fixed[] = {0, 1, 2, wg + 1, tile - 1, tile + 1, 2 * tile - 1, 2 * tile, 2 * tile + 1,
                           3 * tile - 1, 3 * tile + 1, 7 * tile + 5};
    memcpy(sizes, fixed, sizeof fixed);
    return sizeof fixed / sizeof fixed[0];
}

/* Every key type and pattern, keys and pairs (32-bit values, given or the
 * indices), ascending, at the boundary sizes, in both forms. */
static void sweep(clprim_context *ctx, uint64_t *rng, const size_t *extra, size_t nextra)
{
    size_t sizes[16];
    size_t count = boundary_sizes(ctx, sizes);
    for (size_t i = 0; i < nextra; i++)
        sizes[count++] = extra[i];
    for (size_t f = 0; f < 2; f++) {
        harness_set_form(ctx, forms[f]);
        for (size_t ti = 0; ti < KEY_TYPES; ti++)
            for (size_t k = 0; k < count; k++) {
                const pattern p = (pattern)((k + ti + f) % PATTERN_COUNT);
                const int pairs = (int)((k + ti) % 2);
                layout lay = {(k + (size_t)p) % 3, (k + ti) % 2, 1 + k % 2, 0, pairs, pairs && k % 4 == 1};
                sort_case(ctx, (sort_kind){key_types[ti], CLPRIM_UINT32, NULL}, p, sizes[k], lay, rng);
            }
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

/* wg=4, items=2: groups=8 makes each group walk many tiles with a running carry
 * per digit; groups=64 makes 256 x 64 digit counts, whose scan takes several
 * levels. */
START_TEST(sort_small_tiles)
{
    uint64_t rng = harness_rng(2);
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 8);
        const size_t extra[] = {16 * 8 * 5 + 3};
        sweep(ctx, &rng, extra, 1);

        harness_set_tuning(ctx, 4, 2, 64);
        clprim_tuning t = clprim_get_tuning(ctx);
        const size_t n = 8 * 64 * 2 - 3; /* at least one tile for each of the 64 groups */
        clprim_split split = clprim_split_range(&t, n);
        ck_assert_uint_eq(split.groups, 64);
        ck_assert_int_ge(harness_scan_levels(&t, 256 * split.groups, 8), 2);
        for (size_t f = 0; f < 2; f++) {
            harness_set_form(ctx, forms[f]);
            for (size_t ti = 0; ti < KEY_TYPES; ti++)
                for (int p = 0; p < PATTERN_COUNT; p += 2)
                    sort_case(ctx, (sort_kind){key_types[ti], CLPRIM_UINT32, NULL}, (pattern)(p + (int)f), n,
                              (layout){1, 2, 1, 0, 1, 0}, &rng);
        }
    }
}
END_TEST

/* Work-groups of one and two work-items and odd shapes (two work-items take one
 * item each: PoCL refuses more, see clprim_set_tuning). */
START_TEST(sort_tiny_groups)
{
    uint64_t rng = harness_rng(3);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t shapes[][3] = {{1, 2, 5}, {2, 1, 7}, {4, 3, 7}, {32, 1, 3}};
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
            harness_set_tuning(ctx, shapes[sh][0], shapes[sh][1], shapes[sh][2]);
            harness_set_form(ctx, forms[sh % 2]);
            /* One 32-bit and one 64-bit key type: each shape builds its own programs. */
            const size_t sizes[] = {1, 2, 3, 17, 100, 1001};
            for (size_t ti = 0; ti < KEY_TYPES; ti += 4)
                for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                    sort_case(ctx, (sort_kind){key_types[ti], CLPRIM_UINT32, NULL}, (pattern)(k % PATTERN_COUNT),
                              sizes[k], (layout){k % 2, 0, 1, 0, 1, 0}, &rng);
        }
    }
}
END_TEST

/* 10^6 + 3 keys with the device's tuning, keys and pairs, both forms. */
START_TEST(sort_large_odd)
{
    uint64_t rng = harness_rng(4);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 1000003;
        for (size_t f = 0; f < 2; f++) {
            harness_set_form(ctx, forms[f]);
            sort_case(ctx, (sort_kind){CLPRIM_UINT32, CLPRIM_UINT32, NULL}, RANDOM, n, (layout){0, 1, 1, 0, 1, 0},
                      &rng);
            sort_case(ctx, (sort_kind){f ? CLPRIM_DOUBLE : CLPRIM_FLOAT, CLPRIM_UINT32, NULL}, RANDOM, n,
                      (layout){1, 0, 0, 0, 0, 0}, &rng);
        }
    }
}
END_TEST

/* Stability: many equal keys, values the input positions (given, and NULL) of
 * both widths, in both directions. */
START_TEST(sort_stable)
{
    uint64_t rng = harness_rng(5);
    static const clprim_sort_order down = {1, 0, 0};
    FOR_EACH_DEVICE(ctx)
    {
        /* The device's tuning in one form, small tiles in the other. */
        for (size_t f = 0; f < 2; f++) {
            if (f)
                harness_set_tuning(ctx, 4, 2, 16);
            harness_set_form(ctx, forms[f]);
            for (size_t ti = 0; ti < KEY_TYPES; ti++) {
                const clprim_type vt = ti % 2 ? CLPRIM_UINT64 : CLPRIM_UINT32;
                const clprim_sort_order *o = (ti + f) % 2 ? &down : NULL;
                sort_case(ctx, (sort_kind){key_types[ti], vt, o}, FEW_DISTINCT, 20011, (layout){0, 0, 0, 0, 1, 1},
                          &rng);
                sort_case(ctx, (sort_kind){key_types[ti], vt, o}, ALL_EQUAL, 5003, (layout){2, 1, 1, 0, 1, 0}, &rng);
                sort_case(ctx, (sort_kind){key_types[ti], vt, o}, ONE_BYTE, 3001, (layout){0, 0, 0, 0, 1, 1}, &rng);
            }
        }
    }
}
END_TEST

/* Descending order and bit ranges: one bit, inside one 8-bit digit, across
 * digits, from a begin above 0, to an end below the width; every key type,
 * values of 8 bytes too. */
START_TEST(sort_order_and_bits)
{
    uint64_t rng = harness_rng(11);
    static const clprim_sort_order orders[] = {
        {1, 0, 0},  {0, 0, 1},  {1, 31, 32}, {0, 3, 7},   {1, 5, 19},  {0, 8, 16},
        {1, 12, 0}, {0, 0, 24}, {0, 20, 45}, {1, 40, 64}, {0, 63, 64}, {1, 1, 63},
    };
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t f = 0; f < 2; f++) {
            if (f)
                harness_set_tuning(ctx, 4, 2, 8);
            harness_set_form(ctx, forms[1 - f]);
            for (size_t ti = 0; ti < KEY_TYPES; ti++)
                for (size_t oi = 0; oi < sizeof orders / sizeof orders[0]; oi++) {
                    const clprim_sort_order *o = &orders[oi];
                    const unsigned width = (unsigned)reference_sort_key_bytes(key_types[ti]) * 8;
                    if (o->end_bit > width || (o->end_bit == 0 && o->begin_bit >= width))
                        continue;
                    const clprim_type vt = oi % 2 ? CLPRIM_DOUBLE : CLPRIM_FLOAT;
                    const int in_place = (int)((oi + ti) % 3 == 0);
                    sort_case(ctx, (sort_kind){key_types[ti], vt, o}, (pattern)((oi + f) % PATTERN_COUNT), 1500 + oi,
                              (layout){oi % 2, 1, 1, in_place, 1, 0}, &rng);
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
        for (size_t f = 0; f < 2; f++) {
            if (f)
                harness_set_tuning(ctx, 4, 2, 64);
            harness_set_form(ctx, forms[f]);
            for (size_t ti = 0; ti < KEY_TYPES; ti++) {
                const sort_kind kind = {key_types[ti], ti % 2 ? CLPRIM_INT64 : CLPRIM_INT32, NULL};
                sort_case(ctx, kind, RANDOM, 3001, (layout){3, 0, 2, 1, 0, 0}, &rng);
                sort_case(ctx, kind, FEW_DISTINCT, 3001, (layout){2, 0, 1, 1, 1, 0}, &rng);
                /* All digits but one the same: an odd number of passes runs, so
                 * in place the last pass ends in the temporary and is copied back. */
                sort_case(ctx, kind, ONE_BYTE, 2001, (layout){1, 0, 1, 1, 1, 0}, &rng);
                /* Keys in place, values from their indices into a separate buffer. */
                sort_case(ctx, (sort_kind){key_types[ti], CLPRIM_UINT32, NULL}, REVERSED, 999,
                          (layout){1, 0, 1, 1, 1, 1}, &rng);
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

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* Float and double specials, and the order promised in clprim.h: -NaN < -inf <
 * negatives < -0.0 < +0.0 < positives < +inf < +NaN. */
START_TEST(sort_float_specials)
{
    uint64_t rng = harness_rng(7);
    const uint32_t specials[] = {fbits(-0.0f),
                                 fbits(0.0f),
                                 fbits(INFINITY),
                                 fbits(-INFINITY),
                                 0x7FC00000u /* +NaN */,
                                 0xFFC00000u /* -NaN */,
                                 0x7F800001u /* +sNaN */,
                                 0xFFFFFFFFu /* -NaN, all payload */,
                                 fbits(FLT_MAX),
                                 fbits(-FLT_MAX),
                                 fbits(FLT_MIN),
                                 fbits(-FLT_MIN),
                                 0x00000001u /* denormal */,
                                 0x80000001u,
                                 fbits(1.0f),
                                 fbits(-1.0f),
                                 fbits(-1000.0f),
                                 fbits(1e-30f)};
    const uint64_t dspecials[] = {dbits(-0.0),         dbits(0.0),          dbits(INFINITY),     dbits(-INFINITY),
                                  0x7FF8000000000000u, 0xFFF8000000000000u, 0x7FF0000000000001u, ~(uint64_t)0,
                                  dbits(DBL_MAX),      dbits(-DBL_MAX),     dbits(DBL_MIN),      1u,
                                  dbits(-1.0),         dbits(1.0)};
    const size_t nspecial = sizeof specials / sizeof specials[0], ndspecial = sizeof dspecials / sizeof dspecials[0];
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t f = 0; f < 2; f++) {
            if (f)
                harness_set_tuning(ctx, 4, 2, 8);
            harness_set_form(ctx, forms[f]);
            /* Specials alone, then many of them among random values. */
            check_sort(ctx, (sort_kind){CLPRIM_FLOAT, CLPRIM_UINT32, NULL}, nspecial, specials,
                       (layout){0, 0, 0, 0, 1, 1}, &rng, "specials");
            check_sort(ctx, (sort_kind){CLPRIM_DOUBLE, CLPRIM_UINT64, NULL}, ndspecial, dspecials,
                       (layout){0, 0, 0, 0, 1, 1}, &rng, "double specials");
            const size_t n = 4099;
            uint32_t *keys = harness_malloc(n * 4);
            uint64_t *dkeys = harness_malloc(n * 8);
            for (size_t i = 0; i < n; i++) {
                keys[i] = harness_rand(&rng) % 3 ? specials[harness_rand(&rng) % nspecial]
                                                 : (uint32_t)random_key(CLPRIM_FLOAT, &rng);
                dkeys[i] = harness_rand(&rng) % 3 ? dspecials[harness_rand(&rng) % ndspecial]
                                                  : random_key(CLPRIM_DOUBLE, &rng);
            }
            check_sort(ctx, (sort_kind){CLPRIM_FLOAT, CLPRIM_UINT32, NULL}, n, keys, (layout){1, 2, 1, 0, 1, 1}, &rng,
                       "specials among random");
            static const clprim_sort_order down = {1, 0, 0};
            check_sort(ctx, (sort_kind){CLPRIM_DOUBLE, CLPRIM_UINT32, &down}, n, dkeys, (layout){1, 2, 1, 0, 1, 1},
                       &rng, "double specials among random, descending");
            free(keys);
            free(dkeys);

            /* The order, spelled out. */
            cl_mem in = harness_buffer(ctx, nspecial * 4, specials), out = harness_buffer(ctx, nspecial * 4, NULL);
            ck_assert_int_eq(clprim_sort_keys(ctx, CLPRIM_FLOAT, NULL, in, 0, out, 0, nspecial, 0, NULL, NULL),
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

/* Integer extremes sort as signed; the same bits as unsigned sort as unsigned,
 * and descending reverses both. */
START_TEST(sort_integer_extremes)
{
    uint64_t rng = harness_rng(8);
    const uint32_t ext[] = {0x80000000u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0, 1, 0x80000001u, 0x7FFFFFFEu};
    const uint64_t ext64[] = {(uint64_t)1 << 63, ~((uint64_t)1 << 63), ~(uint64_t)0, 0, 1, ((uint64_t)1 << 63) + 1};
    static const clprim_sort_order down = {1, 0, 0};
    FOR_EACH_DEVICE(ctx)
    {
        for (int d = 0; d <= 1; d++) {
            const clprim_sort_order *o = d ? &down : NULL;
            check_sort(ctx, (sort_kind){CLPRIM_INT32, CLPRIM_UINT32, o}, 7, ext, (layout){0, 0, 0, 0, 1, 1}, &rng,
                       "int32 extremes");
            check_sort(ctx, (sort_kind){CLPRIM_UINT32, CLPRIM_UINT32, o}, 7, ext, (layout){0, 0, 0, 0, 1, 1}, &rng,
                       "uint32 extremes");
            check_sort(ctx, (sort_kind){CLPRIM_INT64, CLPRIM_UINT64, o}, 6, ext64, (layout){0, 0, 0, 0, 1, 1}, &rng,
                       "int64 extremes");
            check_sort(ctx, (sort_kind){CLPRIM_UINT64, CLPRIM_UINT32, o}, 6, ext64, (layout){0, 0, 0, 0, 1, 1}, &rng,
                       "uint64 extremes");
        }
        cl_mem in = harness_buffer(ctx, sizeof ext, ext), out = harness_buffer(ctx, sizeof ext, NULL);
        ck_assert_int_eq(clprim_sort_keys(ctx, CLPRIM_INT32, NULL, in, 0, out, 0, 7, 0, NULL, NULL), CLPRIM_SUCCESS);
        int32_t got[7];
        harness_read(ctx, out, 0, sizeof got, got);
        const int32_t want[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1, INT32_MAX};
        ck_assert_mem_eq(got, want, sizeof want);
        ck_assert_int_eq(clprim_sort_keys(ctx, CLPRIM_INT32, &down, in, 0, out, 0, 7, 0, NULL, NULL), CLPRIM_SUCCESS);
        harness_read(ctx, out, 0, sizeof got, got);
        for (size_t i = 0; i < 7; i++)
            ck_assert_int_eq(got[i], want[6 - i]);
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
        void *keys = make_keys(CLPRIM_UINT32, RANDOM, n, &rng);
        cl_mem in = harness_buffer(ctx, n * 4, keys), out = harness_buffer(ctx, n * 4, NULL),
               vals = harness_buffer(ctx, n * 4, NULL);
        ck_assert_int_eq(clprim_sort_pairs(ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, in, 0, out, 0, NULL, 0, vals, 0, n,
                                           0, NULL, NULL),
                         CLPRIM_SUCCESS);
        cl_mem scratch = ctx->scratch;
        for (int i = 0; i < 3; i++) {
            ck_assert_int_eq(clprim_sort_pairs(ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, in, 0, out, 0, NULL, 0, vals, 0,
                                               n, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            ck_assert_int_eq(clprim_sort_keys(ctx, CLPRIM_UINT32, NULL, in, 0, out, 0, n, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
        }
        ck_assert_ptr_eq(ctx->scratch, scratch);
        free(keys);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        clReleaseMemObject(vals);
    }
}
END_TEST

/* ---- Bad arguments: status, message, nothing written ---- */

enum { SORT_KEYS, SORT_PAIRS };

/* A row's variant: the value type and the order it passes (0: uint32 values,
 * the default order). */
typedef struct {
    clprim_type value_type;
    clprim_sort_order order;
    int with_order;
} sort_variant;

static const sort_variant sort_variants[] = {
    {CLPRIM_UINT32, {0, 0, 0}, 0},   {CLPRIM_UINT8, {0, 0, 0}, 0},   {CLPRIM_INT32, {0, 0, 0}, 0},
    {(clprim_type)77, {0, 0, 0}, 0}, {CLPRIM_UINT32, {0, 8, 8}, 1},  {CLPRIM_UINT32, {0, 9, 3}, 1},
    {CLPRIM_UINT32, {0, 0, 33}, 1},  {CLPRIM_UINT32, {1, 32, 0}, 1}, {CLPRIM_UINT64, {1, 0, 64}, 1},
    {CLPRIM_FLOAT, {0, 0, 0}, 0},    {CLPRIM_UINT64, {0, 0, 0}, 0},
};
enum {
    V_UINT8 = 1,
    V_INT32,
    V_TYPE77,
    V_EMPTY_RANGE,
    V_BACKWARD_RANGE,
    V_END_33,
    V_BEGIN_32,
    V_FULL_64,
    V_FLOAT,
    V_UINT64
};

/* buf: keys_in, keys_out, values_in, values_out. A success hands back its event;
 * a refusal enqueues nothing, so none. */
static clprim_status sort_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const sort_variant *v = &sort_variants[row->variant];
    const clprim_sort_order *order = v->with_order ? &v->order : NULL;
    cl_event done = NULL;
    clprim_status s =
        row->call == SORT_KEYS
            ? clprim_sort_keys(ctx, row->type, order, buf[0], row->offset[0], buf[1], row->offset[1], row->n, 0, NULL,
                               &done)
            : clprim_sort_pairs(ctx, row->type, v->value_type, order, buf[0], row->offset[0], buf[1], row->offset[1],
                                buf[2], row->offset[2], buf[3], row->offset[3], row->n, 0, NULL, &done);
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
    {"uint8 keys", SORT_KEYS, 0, {HB_A, HB_B}, {0}, 50, CLPRIM_INVALID_ARGUMENT, "uint8", .type = CLPRIM_UINT8},
    {"uint8 values", SORT_PAIRS, 0, {HB_A, HB_B, HB_READ_ONLY, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "4 or 8 bytes", .variant = V_UINT8},
    {"value type 77", SORT_PAIRS, 0, {HB_A, HB_B, HB_READ_ONLY, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "77",
     .variant = V_TYPE77},
    {"int32 indices", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "uint32 or uint64", .variant = V_INT32},
    {"float indices", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "values_in is NULL", .variant = V_FLOAT},
    {"uint32 indices beyond 2^32", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, (size_t)UINT32_MAX + 2,
     CLPRIM_INVALID_ARGUMENT, "uint64"},
    {"bit range [8, 8)", SORT_KEYS, 0, {HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "[8, 8)",
     .variant = V_EMPTY_RANGE},
    {"bit range [9, 3)", SORT_KEYS, 0, {HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "bit range",
     .variant = V_BACKWARD_RANGE},
    {"end_bit 33 of int32 keys", SORT_PAIRS, 0, {HB_A, HB_B, HB_READ_ONLY, HB_WRITE_ONLY}, {0}, 100,
     CLPRIM_INVALID_ARGUMENT, "32 bits", .variant = V_END_33},
    {"begin_bit 32 of float keys, end 0", SORT_KEYS, 0, {HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "bit range",
     .type = CLPRIM_FLOAT, .variant = V_BEGIN_32},
    {"end_bit 64 of uint32 keys", SORT_KEYS, 0, {HB_A, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "uint32",
     .type = CLPRIM_UINT32, .variant = V_FULL_64},
    {"int64 keys one key short", SORT_KEYS, 0, {HB_A, HB_B}, {0}, 8193, CLPRIM_BUFFER_TOO_SMALL, "keys_in",
     .type = CLPRIM_INT64},
    {"uint64 values one value short", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 8193,
     CLPRIM_BUFFER_TOO_SMALL, "values_out", .variant = V_UINT64},
    {"uint8 pairs", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "uint8",
     .type = CLPRIM_UINT8},
    {"keys_in NULL", SORT_KEYS, 0, {HB_NULL, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"keys_out NULL", SORT_KEYS, 0, {HB_A, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_out"},
    {"keys_out one key short", SORT_KEYS, 0, {HB_A, HB_B}, {0, 1}, 16384, CLPRIM_BUFFER_TOO_SMALL, "keys_out"},
    {"keys_in one key short", SORT_KEYS, 0, {HB_A, HB_B}, {1, 0}, 16384, CLPRIM_BUFFER_TOO_SMALL, "keys_in"},
    {"keys_out offset SIZE_MAX", SORT_KEYS, 0, {HB_A, HB_B}, {0, SIZE_MAX}, 100, CLPRIM_INVALID_ARGUMENT, "keys_out",
     .also = "overflows"},
    {"keys_out CL_MEM_READ_ONLY", SORT_KEYS, 0, {HB_A, HB_READ_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY", .also = "keys_out"},
    {"one buffer, overlapping offsets", SORT_KEYS, 0, {HB_A, HB_A}, {0, 10}, 50, CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"keys_out of another context", SORT_KEYS, 0, {HB_A, HB_FOREIGN}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "another",
     .also = "keys_out"},
    {"keys_out a sub-buffer inside keys_in", SORT_KEYS, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"keys_out a sub-buffer at 0, shifted by one", SORT_KEYS, 0, {HB_A, HB_A_AT_0}, {0, 1}, 1024,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"keys_in an image object", SORT_KEYS, 0, {HB_IMAGE, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"keys_out an image object", SORT_KEYS, 0, {HB_A, HB_IMAGE}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"keys_in CL_MEM_WRITE_ONLY", SORT_KEYS, 0, {HB_WRITE_ONLY, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"values_out NULL", SORT_PAIRS, 0, {HB_A, HB_B, HB_A, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "values_out"},
    {"values_out one value short", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0, 0, 0, 1}, 16384,
     CLPRIM_BUFFER_TOO_SMALL, "values_out"},
    {"values_out is keys_out", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_B}, {0}, 10, CLPRIM_INVALID_ARGUMENT,
     "values_out"},
    {"values_in is keys_out", SORT_PAIRS, 0, {HB_READ_ONLY, HB_B, HB_B, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "values_in"},
    {"values_out is keys_in", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"values of one buffer, overlapping offsets", SORT_PAIRS, 0, {HB_READ_ONLY, HB_B, HB_A, HB_A}, {0, 0, 0, 5}, 95,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"values_out a sub-buffer inside keys_out", SORT_PAIRS, 0, {HB_B, HB_A, HB_NULL, HB_A_AT_ALIGN}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"values_out a sub-buffer at 0 inside keys_in", SORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_A_AT_0}, {0, 0, 0, 1}, 1024,
     CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"values_in a sub-buffer inside keys_out", SORT_PAIRS, 0, {HB_A, HB_A, HB_A_AT_ALIGN, HB_B}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "values_in"},
    {"values_out a sub-buffer inside values_in", SORT_PAIRS, 0, {HB_B, HB_B, HB_A, HB_A_AT_ALIGN}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"values_in CL_MEM_WRITE_ONLY", SORT_PAIRS, 0, {HB_A, HB_A, HB_WRITE_ONLY, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
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
    tcase_add_test(tc, sort_order_and_bits);
    tcase_add_test(tc, sort_in_place);
    tcase_add_test(tc, sort_float_specials);
    tcase_add_test(tc, sort_integer_extremes);
    tcase_add_test(tc, sort_reuses_scratch);
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
