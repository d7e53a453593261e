/* clprim_segmented_sort_keys and clprim_segmented_sort_pairs against a stable
 * sort of each segment in C (reference_sort.c's, segment by segment): key
 * types of both widths, both directions, a bit range, values of 4 and 8
 * bytes and indices; segments of every kind of length (empty ones at both
 * ends and in runs, all of length 1, lengths around a tile, one over almost
 * everything, elements outside every segment), many ties (stability, seen
 * through the values), NaN and -0.0; in place; n == 0 and no segment;
 * offsets that are garbage; the CPU shape and work-groups of several
 * work-items, whose tiles many segments cross; and every bad argument.
 * Programs are built per key type, value size and shape, so the cases share
 * a few of them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "reference_sort.h"

/* How a case's segment lengths are drawn. */
typedef enum {
    LAYOUT_RANDOM,     /* 0 .. 2 * mean */
    LAYOUT_EMPTY_RUNS, /* runs of empty segments at both ends and between */
    LAYOUT_ONES,       /* every segment one element */
    LAYOUT_TILES,      /* around multiples of the tile: mean - 1, mean, mean + 1, ... */
    LAYOUT_HUGE,       /* tiny ones around one over almost everything */
    LAYOUT_INSIDE,     /* elements before offsets[0] and after offsets[segments] */
    LAYOUT_COUNT
} layout;

static const char *const layout_names[] = {"random", "empty runs", "ones", "tiles", "huge", "inside"};

/* offsets[0 .. segments] for n elements (room for 2n + 16 offsets); returns
 * the segment count. mean: the lengths' scale (the tile, for LAYOUT_TILES). */
static size_t layout_offsets(layout l, size_t n, size_t mean, cl_ulong *offsets, uint64_t *rng)
{
    size_t s = 0;
    cl_ulong at = l == LAYOUT_INSIDE ? n / 9 : 0;
    const cl_ulong stop = l == LAYOUT_INSIDE ? n - n / 7 : n;
    offsets[0] = at;
    if (l == LAYOUT_EMPTY_RUNS)
        for (size_t k = 0; k < 4; k++)
            offsets[++s] = at;
    while (at < stop) {
        cl_ulong length;
        switch (l) {
        case LAYOUT_ONES: length = 1; break;
        case LAYOUT_TILES: length = mean * (1 + harness_rand(rng) % 3) + harness_rand(rng) % 3 - 1; break;
        case LAYOUT_HUGE: length = s == 2 ? n : 1 + harness_rand(rng) % 3; break;
        default: length = harness_rand(rng) % (2 * mean + 1); break;
        }
        at = stop - at < length ? stop : at + length;
        offsets[++s] = at;
        if (l == LAYOUT_EMPTY_RUNS && harness_rand(rng) % 5 == 0)
            for (size_t k = harness_rand(rng) % 4; k > 0; k--)
                offsets[++s] = at;
    }
    if (l == LAYOUT_EMPTY_RUNS)
        for (size_t k = 0; k < 3; k++)
            offsets[++s] = at;
    return s;
}

/* Keys: random bits of the type; with `ties`, few distinct values (stability
 * is then visible through the values); floats get NaNs of both signs, -0.0
 * and +0.0 among them. */
static void fill_keys(clprim_type t, void *keys, size_t n, int ties, uint64_t *rng)
{
    const size_t kb = reference_sort_key_bytes(t);
    harness_fill_random(t, keys, n, rng);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = harness_rand(rng);
        unsigned char *key = (unsigned char *)keys + i * kb;
        if (ties && (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE)) {
            const double v = (double)(r % 5) - 2.0;
            if (t == CLPRIM_FLOAT)
                *(float *)key = (float)v;
            else
                *(double *)key = v;
        } else if (ties) {
            const uint64_t v = r % 5;
            memcpy(key, &v, kb); /* little-endian: the low bytes */
        }
        if (t == CLPRIM_FLOAT && r % 11 == 0)
            *(float *)key = r & 64 ? (r & 32 ? -NAN : NAN) : (r & 32 ? -0.0f : 0.0f);
        if (t == CLPRIM_DOUBLE && r % 11 == 0)
            *(double *)key = r & 64 ? (r & 32 ? -NAN : NAN) : (r & 32 ? -0.0 : 0.0);
    }
}

/* One call: what it sorts and how. */
typedef struct {
    clprim_type key;
    int values;    /* 0: keys alone; 4 or 8: random values of that size; 1: the indices (uint32) */
    int ties;
    int in_place;
    clprim_sort_order order;
} sort_case;

/* Runs c over n random keys and a layout's offsets, each array at a small
 * offset in its buffer, outputs pre-filled with HARNESS_SENTINEL, and checks
 * every segment against the C sort, and that nothing outside the segments
 * (nor beside the outputs) was written. */
static void run_case(clprim_context *ctx, const sort_case *c, size_t n, layout l, size_t mean, uint64_t *rng)
{
    const size_t kb = reference_sort_key_bytes(c->key);
    const size_t vb = c->values == 1 ? 4 : (size_t)c->values;
    const size_t in_at = harness_rand(rng) % 3, out_at = c->in_place ? in_at : harness_rand(rng) % 3;
    const size_t offsets_at = harness_rand(rng) % 3, slots = out_at + n + 2;
    cl_ulong *offsets = harness_malloc((offsets_at + 2 * n + 16) * sizeof *offsets);
    const size_t segments = layout_offsets(l, n, mean, offsets + offsets_at, rng);
    const cl_ulong *bounds = offsets + offsets_at;
    unsigned char *keys = harness_malloc(n * kb + 1), *values = harness_malloc(n * vb + 1);
    fill_keys(c->key, keys, n, c->ties, rng);
    if (vb)
        harness_fill_random(vb == 8 ? CLPRIM_UINT64 : CLPRIM_UINT32, values, n, rng);
    const size_t init_bytes = (in_at + slots) * 8; /* the inputs' buffers (in_at + n + 2 elements) too */
    unsigned char *init = harness_malloc(init_bytes);
    memset(init, HARNESS_SENTINEL, init_bytes);
    memcpy(init + in_at * kb, keys, n * kb);
    cl_mem kin = harness_buffer(ctx, (in_at + n + 2) * kb, init);
    cl_mem kout = c->in_place ? kin : harness_buffer(ctx, slots * kb, NULL);
    memset(init, HARNESS_SENTINEL, init_bytes);
    memcpy(init + in_at * vb, values, n * vb);
    cl_mem vin = c->values > 1 ? harness_buffer(ctx, (in_at + n + 2) * vb, init) : NULL;
    cl_mem vout = !c->values ? NULL : c->in_place && vin ? vin : harness_buffer(ctx, slots * vb, NULL);
    cl_mem ob = harness_buffer(ctx, (offsets_at + segments + 1) * sizeof *offsets, offsets);
    char what[256];
    snprintf(what, sizeof what, "%s %s%s%s%s n=%zu %s (%zu segments) at %s", reference_type_name(c->key),
             c->values == 1 ? "indices" : c->values ? "pairs" : "keys", c->order.descending ? " descending" : "",
             c->ties ? " ties" : "", c->in_place ? " in place" : "", n, layout_names[l], segments,
             harness_tuning_text(ctx));
    const clprim_status s =
        c->values ? clprim_segmented_sort_pairs(ctx, c->key, vb == 8 ? CLPRIM_UINT64 : CLPRIM_UINT32, &c->order, kin,
                                                in_at, kout, out_at, vin, in_at, vout, out_at, n, ob, offsets_at,
                                                segments, 0, NULL, NULL)
                  : clprim_segmented_sort_keys(ctx, c->key, &c->order, kin, in_at, kout, out_at, n, ob, offsets_at,
                                               segments, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", what, clprim_last_error(ctx));

    /* What each output slot must hold: the sentinel, or in place its input,
     * where no segment covers it. */
    unsigned char *want_keys = harness_malloc(slots * kb), *want_values = harness_malloc(slots * vb + 1);
    unsigned char *got = harness_malloc(slots * 8);
    memset(want_keys, HARNESS_SENTINEL, slots * kb);
    memset(want_values, HARNESS_SENTINEL, slots * vb);
    if (c->in_place)
        memcpy(want_keys + out_at * kb, keys, n * kb);
    if (c->in_place && vin)
        memcpy(want_values + out_at * vb, values, n * vb);
    for (size_t seg = 0; seg < segments; seg++) {
        const size_t b = bounds[seg], e = bounds[seg + 1];
        uint32_t *perm = reference_sort_perm_order(c->key, &c->order, keys + b * kb, e - b);
        for (size_t j = 0; j < e - b; j++) {
            const size_t from = b + perm[j];
            memcpy(want_keys + (out_at + b + j) * kb, keys + from * kb, kb);
            const uint64_t index = from;
            memcpy(want_values + (out_at + b + j) * vb, c->values == 1 ? (const void *)&index : values + from * vb,
                   vb);
        }
        free(perm);
    }
    harness_read(ctx, kout, 0, slots * kb, got);
    for (size_t i = 0; i < slots; i++)
        CHECK(!memcmp(got + i * kb, want_keys + i * kb, kb), "%s (seed %llu): key slot %zu (element %ld) differs",
              what, (unsigned long long)harness_seed(), i, (long)i - (long)out_at);
    if (vout) {
        harness_read(ctx, vout, 0, slots * vb, got);
        for (size_t i = 0; i < slots; i++)
            CHECK(!memcmp(got + i * vb, want_values + i * vb, vb), "%s: value slot %zu (element %ld) differs", what, i,
                  (long)i - (long)out_at);
    }
    if (!c->in_place) {
        harness_read(ctx, kin, in_at * kb, n * kb, got);
        CHECK(!memcmp(got, keys, n * kb), "%s: keys_in changed", what);
    }
    free(offsets), free(keys), free(values), free(init), free(want_keys), free(want_values), free(got);
    cl_mem all[] = {kin, kout, vin, vout, ob};
    for (size_t i = 0; i < 5; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= all[j] == all[i];
        if (all[i] && !seen)
            clReleaseMemObject(all[i]);
    }
}

/* Shapes: the device's (on PoCL one work-item a group, pieces of n / groups),
 * the CPU shape with short pieces, and work-groups of 4 and of 8 with three
 * items each (tiles of 8 and 24) that many segments cross. */
static const size_t shapes[][3] = {{0, 0, 0}, {1, 4, 3}, {4, 2, 16}, {8, 3, 4}};
#define SHAPE_COUNT (sizeof shapes / sizeof shapes[0])

static size_t set_shape(clprim_context *ctx, size_t k)
{
    if (shapes[k][0])
        harness_set_tuning(ctx, shapes[k][0], shapes[k][1], shapes[k][2]);
    else
        harness_default_tuning(ctx);
    const clprim_tuning t = clprim_get_tuning(ctx);
    return t.work_group_size * t.items_per_thread;
}

/* Key types and modes at the device's shape and at work-groups of 4, on as
 * few programs (key type, value size, shape) as cover them: a cold run pays
 * seconds for each. */
static const sort_case type_cases[] = {
    {CLPRIM_INT32, 0, 0, 0, {0, 0, 0}},    {CLPRIM_FLOAT, 1, 0, 0, {1, 0, 0}},
    {CLPRIM_FLOAT, 1, 1, 0, {0, 0, 0}},    {CLPRIM_INT64, 8, 1, 0, {1, 0, 0}},
    {CLPRIM_DOUBLE, 0, 0, 0, {0, 0, 0}},   {CLPRIM_UINT32, 4, 1, 0, {0, 4, 20}},
};

START_TEST(segsort_types)
{
    const sort_case *c = &type_cases[_i];
    uint64_t rng = harness_rng(1100 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t shape_of[] = {0, 2};
        for (size_t k = 0; k < 2; k++) {
            /* At work-groups of 4: 8-byte items, with values and indices, and
             * the 16-byte items of double keys */
            if (k && c->key != CLPRIM_DOUBLE && c->key != CLPRIM_UINT32 && c->key != CLPRIM_FLOAT)
                continue;
            set_shape(ctx, shape_of[k]);
            run_case(ctx, c, 3000 + harness_rand(&rng) % 3000, LAYOUT_RANDOM, 1 + harness_rand(&rng) % 60, &rng);
            run_case(ctx, c, 1 + harness_rand(&rng) % 40, LAYOUT_RANDOM, 3, &rng);
            run_case(ctx, c, 5000, LAYOUT_HUGE, 0, &rng);
        }
    }
}
END_TEST

/* Every layout at every shape: uint32 pairs with ties (stability), and keys
 * alone in place. */
START_TEST(segsort_layouts)
{
    const layout l = (layout)_i;
    uint64_t rng = harness_rng(1120 + (unsigned)_i);
    const sort_case pairs = {CLPRIM_UINT32, 4, 1, 0, {0, 0, 0}}, in_place = {CLPRIM_UINT32, 4, 0, 1, {0, 0, 0}};
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t k = 0; k < SHAPE_COUNT; k++) {
            const size_t tile = set_shape(ctx, k) > 1024 ? 64 : set_shape(ctx, k);
            const size_t sizes[] = {1, 2, tile - 1, tile + 1, 37, 1500, 7000};
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                const size_t mean = l == LAYOUT_TILES ? tile : 1 + harness_rand(&rng) % 100;
                run_case(ctx, i % 2 ? &in_place : &pairs, sizes[i], l, mean, &rng);
            }
        }
    }
}
END_TEST

/* n == 0 and no segment: nothing written, success, an event. */
START_TEST(segsort_empty)
{
    FOR_EACH_DEVICE(ctx)
    {
        const cl_ulong offsets[4] = {0, 5, 3, 99};
        cl_mem kb = harness_buffer(ctx, 64, NULL), ob = harness_buffer(ctx, sizeof offsets, offsets);
        unsigned char got[64];
        cl_event done = NULL;
        ck_assert_int_eq(clprim_segmented_sort_keys(ctx, CLPRIM_INT32, NULL, kb, 0, kb, 0, 0, ob, 0, 3, 0, NULL,
                                                    &done),
                         CLPRIM_SUCCESS);
        ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        ck_assert_int_eq(clprim_segmented_sort_keys(ctx, CLPRIM_INT32, NULL, kb, 0, kb, 0, 16, ob, 0, 0, 0, NULL,
                                                    NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, kb, 0, sizeof got, got);
        ck_assert(harness_all_sentinel(got, sizeof got));
        clReleaseMemObject(kb);
        clReleaseMemObject(ob);
    }
}
END_TEST

/* Offsets that decrease or lie far past n: keys unspecified, but nothing
 * beside the outputs is written, and a good call after it is right. */
START_TEST(segsort_garbage_offsets)
{
    uint64_t rng = harness_rng(1140);
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t k = 0; k < SHAPE_COUNT; k += 2) {
            set_shape(ctx, k);
            const size_t n = 3000, segments = 500, pad = 4;
            cl_ulong *offsets = harness_malloc((segments + 1) * sizeof *offsets);
            for (size_t s = 0; s <= segments; s++)
                offsets[s] = harness_rand(&rng) % 4 ? harness_rand(&rng) % (n + 50) : harness_rand(&rng);
            uint32_t *keys = harness_malloc(n * sizeof *keys), *got = harness_malloc((n + 2 * pad) * sizeof *got);
            harness_fill_random(CLPRIM_UINT32, keys, n, &rng);
            cl_mem kin = harness_buffer(ctx, n * sizeof *keys, keys);
            cl_mem ob = harness_buffer(ctx, (segments + 1) * sizeof *offsets, offsets);
            cl_mem kout = harness_buffer(ctx, (n + 2 * pad) * sizeof *keys, NULL);
            cl_mem vout = harness_buffer(ctx, (n + 2 * pad) * sizeof *keys, NULL);
            ck_assert_int_eq(clprim_segmented_sort_pairs(ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, kin, 0, kout, pad,
                                                         NULL, 0, vout, pad, n, ob, 0, segments, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            cl_mem outputs[] = {kout, vout};
            for (size_t o = 0; o < 2; o++) {
                harness_read(ctx, outputs[o], 0, (n + 2 * pad) * sizeof *got, got);
                ck_assert(harness_all_sentinel(got, pad * sizeof *got));
                ck_assert(harness_all_sentinel(got + pad + n, pad * sizeof *got));
            }
            free(offsets), free(keys), free(got);
            clReleaseMemObject(kin), clReleaseMemObject(ob), clReleaseMemObject(kout), clReleaseMemObject(vout);
            const sort_case c = {CLPRIM_UINT32, 1, 0, 0, {0, 0, 0}};
            run_case(ctx, &c, 2000, LAYOUT_RANDOM, 20, &rng);
        }
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { SEGSORT_KEYS, SEGSORT_PAIRS };
enum { V_PLAIN, V_UINT8_KEYS, V_INT32_INDICES, V_BIT_RANGE, V_SEGMENTS_MAX };

/* Keys: buf keys_in, keys_out, offsets. Pairs: buf keys_in, keys_out,
 * values_in, values_out, with offsets of their own (every segment 7 long).
 * Random offsets (the keys call's) give unspecified keys, in keys_out only.
 * n / 8 segments. */
static clprim_status segsort_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    static const clprim_sort_order bits = {0, 9, 3};
    const clprim_sort_order *order = row->variant == V_BIT_RANGE ? &bits : NULL;
    const clprim_type key = row->variant == V_UINT8_KEYS ? CLPRIM_UINT8 : row->type;
    const size_t segments = row->variant == V_SEGMENTS_MAX ? SIZE_MAX : row->n / 8;
    if (row->call == SEGSORT_KEYS)
        return clprim_segmented_sort_keys(ctx, key, order, buf[0], row->offset[0], buf[1], row->offset[1], row->n,
                                          buf[2], row->offset[2], segments, 0, NULL, NULL);
    const size_t count = row->n / 8 + 1;
    cl_ulong *offsets = harness_malloc(count * sizeof *offsets);
    for (size_t s = 0; s < count; s++)
        offsets[s] = 7 * s;
    cl_mem ob = harness_buffer(ctx, count * sizeof *offsets, offsets);
    const clprim_status s = clprim_segmented_sort_pairs(
        ctx, key, row->variant == V_INT32_INDICES ? CLPRIM_INT32 : CLPRIM_UINT32, order, buf[0], row->offset[0],
        buf[1], row->offset[1], buf[2], row->offset[2], buf[3], row->offset[3], row->n, ob, 0, row->n / 8, 0, NULL,
        NULL);
    clReleaseMemObject(ob);
    free(offsets);
    return s;
}

/* Each buffer holds 16384 32-bit keys, 8192 offsets. */
static const harness_bad_call segsort_bad_calls[] = {
    {"ctx NULL", SEGSORT_KEYS, 1, {HB_A, HB_B, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "ctx"},
    {"uint8 keys", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "uint8",
     .variant = V_UINT8_KEYS},
    {"bit range [9, 3)", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "bit range",
     .variant = V_BIT_RANGE},
    {"keys_in NULL", SEGSORT_KEYS, 0, {HB_NULL, HB_B, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_in"},
    {"keys_out NULL", SEGSORT_KEYS, 0, {HB_A, HB_NULL, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "keys_out"},
    {"offsets NULL", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "offsets"},
    {"keys_out one key short", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_A}, {0, 1}, 16384, CLPRIM_BUFFER_TOO_SMALL,
     "keys_out"},
    {"int64 keys_in one key short", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_A}, {0}, 8193, CLPRIM_BUFFER_TOO_SMALL,
     "keys_in", .type = CLPRIM_INT64},
    {"offsets short by one", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_A}, {0, 0, 8192 - 100}, 800, CLPRIM_BUFFER_TOO_SMALL,
     "offsets"},
    {"segments + 1 overflows", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT, "segments",
     .variant = V_SEGMENTS_MAX},
    {"offsets CL_MEM_WRITE_ONLY", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"keys_out CL_MEM_READ_ONLY", SEGSORT_KEYS, 0, {HB_A, HB_READ_ONLY, HB_B}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY"},
    {"keys_out over keys_in, shifted", SEGSORT_KEYS, 0, {HB_A, HB_A, HB_B}, {0, 10}, 50, CLPRIM_INVALID_ARGUMENT,
     "overlap"},
    {"keys_out over the offsets", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_B}, {0, 0, 10}, 100, CLPRIM_INVALID_ARGUMENT,
     "offsets", .also = "keys_out"},
    {"offsets of another context", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_FOREIGN}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "another"},
    {"keys_out a sub-buffer inside keys_in", SEGSORT_KEYS, 0, {HB_A, HB_A_AT_ALIGN, HB_B}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "sub-buffer"},
    {"values_out NULL", SEGSORT_PAIRS, 0, {HB_A, HB_B, HB_A, HB_NULL}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "values_out"},
    {"int32 indices", SEGSORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "int32", .variant = V_INT32_INDICES},
    {"values_out one value short", SEGSORT_PAIRS, 0, {HB_A, HB_B, HB_READ_ONLY, HB_WRITE_ONLY}, {0, 0, 0, 1}, 16384,
     CLPRIM_BUFFER_TOO_SMALL, "values_out"},
    {"values_out is keys_out", SEGSORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_B}, {0}, 10, CLPRIM_INVALID_ARGUMENT,
     "values_out"},
    {"values_out is keys_in", SEGSORT_PAIRS, 0, {HB_A, HB_B, HB_READ_ONLY, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "keys_in"},
    {"values_in is keys_out", SEGSORT_PAIRS, 0, {HB_READ_ONLY, HB_B, HB_B, HB_A}, {0}, 100, CLPRIM_INVALID_ARGUMENT,
     "values_in"},
    /* Successes: garbage offsets write keys_out only; n 0 writes nothing. */
    {"garbage offsets", SEGSORT_KEYS, 0, {HB_A, HB_B, HB_A}, {0, 0, 0}, 4000, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1)},
    {"pairs in place, 7 a segment", SEGSORT_PAIRS, 0, {HB_A, HB_A, HB_B, HB_B}, {0, 0, 0, 0}, 4000, CLPRIM_SUCCESS,
     NULL, .type = CLPRIM_UINT32, .written = HB_ARG(0) | HB_ARG(2)},
    {"n 0", SEGSORT_PAIRS, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 0, CLPRIM_SUCCESS, NULL},
};

START_TEST(segsort_bad_table)
{
    harness_run_bad_calls(segsort_bad_calls, sizeof segsort_bad_calls / sizeof *segsort_bad_calls, segsort_bad_call);
}
END_TEST

static Suite *segsort_suite(void)
{
    Suite *s = suite_create("segmented_sort");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, segsort_types, 0, sizeof type_cases / sizeof *type_cases);
    tcase_add_loop_test(tc, segsort_layouts, 0, LAYOUT_COUNT);
    tcase_add_test(tc, segsort_empty);
    tcase_add_test(tc, segsort_garbage_offsets);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_set_timeout(bad, 300);
    tcase_add_test(bad, segsort_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(segsort_suite());
}
