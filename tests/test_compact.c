/* clprim_compact against the CPU reference: every predicate and type, sizes at
 * every boundary of the split (work-group, tile, two and three levels of
 * partials), none/all/alternating/last-only patterns, nothing written past the
 * kept count, in place, the count on the host and on the device, offsets,
 * expressions (with their compile cache), events, and every bad argument. */
#define _GNU_SOURCE /* strcasestr */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "reference_compact_histogram.h"

#define KEPT_SLOTS 4 /* cl_ulongs in the device count buffer; the count goes to slot 1 or 2 */
#define KEPT_UNSET ((size_t)0x5A5A5A5A)

static int type_runs(clprim_context *ctx, clprim_type t)
{
    if (t != CLPRIM_DOUBLE || ctx->has_fp64)
        return 1;
    cl_mem buf = harness_buffer(ctx, 64, NULL);
    double v = 0;
    clprim_predicate p = {CLPRIM_KEEP_GT, &v, NULL, 0, NULL};
    clprim_status s = clprim_compact(ctx, t, &p, buf, 0, buf, 0, 4, NULL, NULL, 0, 0, NULL, NULL);
    harness_assert_error(ctx, s, CLPRIM_UNSUPPORTED, "fp64");
    clReleaseMemObject(buf);
    fprintf(stderr, "note: %s has no cl_khr_fp64; double checked as CLPRIM_UNSUPPORTED only\n", ctx->device_name);
    return 0;
}

/* ---- Expressions and their C twins ---- */

#define LOAD_INT(EXPR)                                                         \
    switch (t) {                                                               \
    case CLPRIM_INT32: { int32_t x; memcpy(&x, p, sizeof x); return (EXPR); }  \
    case CLPRIM_UINT32: { uint32_t x; memcpy(&x, p, sizeof x); return (EXPR); } \
    case CLPRIM_INT64: { int64_t x; memcpy(&x, p, sizeof x); return (EXPR); }  \
    case CLPRIM_UINT64: { uint64_t x; memcpy(&x, p, sizeof x); return (EXPR); } \
    case CLPRIM_UINT8: { uint8_t x; memcpy(&x, p, sizeof x); return (EXPR); }  \
    default: break;                                                            \
    }
#define LOAD_FLOAT(EXPR)                                                       \
    switch (t) {                                                               \
    case CLPRIM_FLOAT: { float x; memcpy(&x, p, sizeof x); return (EXPR); }    \
    case CLPRIM_DOUBLE: { double x; memcpy(&x, p, sizeof x); return (EXPR); }  \
    default: break;                                                            \
    }

static int e_even_above_50(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_INT(x > 50 && (x & 1) == 0);
    return -1;
}
static int e_float_mix(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_FLOAT(x * 2 > 100 || x < -500.5);
    return -1;
}
static int e_float_nan(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_FLOAT(isnan(x) || x >= 0.25f);
    return -1;
}
static int e_index(clprim_type t, const void *p, uint64_t i)
{
    (void)t;
    (void)p;
    return (i % 3) == 0 || i == 7;
}
static int e_spaced_division(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_INT(x / 2 > 10 && x != 41);
    LOAD_FLOAT(x / 2 > 10 && x != 41);
    return -1;
}
static int e_negative_divisor(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_INT(x / -2 < 5);
    LOAD_FLOAT(x / -2 < 5);
    return -1;
}

/* Integer division by zero is 0 and LOWEST / -1 is LOWEST on the device (cl/expression.cl):
 * the expression checks both, so its twin keeps what the last term keeps. */
static int e_integer_division(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_INT(x != 2);
    return -1;
}
/* Float division keeps IEEE: x / 0 is +-inf or NaN. */
static int e_float_division(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_FLOAT(x / 0.0f > 0 || x / (x - x) < 0);
    return -1;
}
static int e_bits(clprim_type t, const void *p, uint64_t i)
{
    LOAD_INT(((x ^ 0x5) >> 1) == 3 || (((x & 0xff) << 2) & 12) == 8 || (~i & 3) == 0);
    return -1;
}
static int e_integer_builtins(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    /* min/max/abs_diff/clamp with the arguments converted as the parser does */
#define MIN_(a, b) ((a) < (b) ? (a) : (b))
#define MAX_(a, b) ((a) > (b) ? (a) : (b))
    LOAD_INT((x > 3 ? x - 3 : 3 - x) < 4 && MIN_(x, 5) != MAX_(x, 012) && MIN_(MAX_(x, 1), 6) > 2);
    return -1;
}
static int e_float_builtins(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_FLOAT(sqrt(fabs(x)) > 1.5 || (floor(x) != ceil(x) && fmax(x, -1) == x) || x * 16 < -1e1f);
    return -1;
}
static int e_casts(clprim_type t, const void *p, uint64_t i)
{
    (void)i;
    LOAD_FLOAT(!isnan(x) && !isinf(x) && (int)x % 3 == 1);
    LOAD_INT((int8_t)(x * 3) < 0 || (uint16_t)x == 7);
    return -1;
}
static int e_ternary_unary(clprim_type t, const void *p, uint64_t i)
{
    LOAD_FLOAT((x > 0 ? x : -x) > 3 || (float)i * 0.5f == 4.5f);
    LOAD_INT(-(int64_t)x < -3 || !(i % 4));
    return -1;
}

typedef struct {
    const char *text;
    reference_keep_fn fn;
    int ints, floats; /* the types it is written for */
} expression;

static const expression expressions[] = {
    {"x > 50 && (x & 1) == 0", e_even_above_50, 1, 0},
    {"x * 2 > 100 || x < -500.5", e_float_mix, 0, 1},
    {"isnan(x) || x >= 0.25f", e_float_nan, 0, 1},
    {"(i % 3) == 0 || i == 7", e_index, 1, 1},
    {" x / 2\t>\n 10 &&   x != 41 ", e_spaced_division, 1, 1},
    {"x/ -2 < 5", e_negative_divisor, 1, 1},
    {"x / 0 == 0 && x % 0 == 0 && x / (x - x) == 0 && 7 % (x - x) == 0 && "
     "((int)(x & 0) + (-2147483647 - 1)) / -1 == -2147483647 - 1 && "
     "((int)(x & 0) + (-2147483647 - 1)) % -1 == 0 && "
     "((long)(x & 0) - 9223372036854775807 - 1) / -1 == -9223372036854775807 - 1 && x != 2",
     e_integer_division, 1, 0},
    {"x / 0 > 0 || x / (x - x) < 0", e_float_division, 0, 1},
    {"(x ^ 0x5) >> 1 == 3 || ((x & 0xff) << 2 & 12) == 8 || (~i & 3) == 0", e_bits, 1, 0},
    {"abs_diff(x, 3) < 4 && min(x, 5) != max(x, 012) && clamp(x, 1, 6) > 2", e_integer_builtins, 1, 0},
    {"sqrt(fabs(x)) > 1.5 || floor(x) != ceil(x) && fmax(x, -1) == x || x * 0x10 < -1e1f", e_float_builtins, 0,
     1},
    {"!isnan(x) && !isinf(x) && (int)x % 3 == 1", e_casts, 0, 1},
    {"(char)(x * 3) < 0 || (ushort)x == 7", e_casts, 1, 0},
    {"(x > 0 ? x : -x) > 3 || (float)i * .5f == 4.5f", e_ternary_unary, 0, 1},
    {"-(long)x < -3 || !(i % 4)", e_ternary_unary, 1, 0},
};
#define EXPRESSION_COUNT (sizeof expressions / sizeof expressions[0])

static int expression_fits(const expression *e, clprim_type t)
{
    return reference_type_is_float(t) ? e->floats : e->ints;
}

/* ---- Data ---- */

/* Values from a small set so that comparisons with 3 (or 1.5) go every way:
 * integers in [-8, 8) (unsigned: [0, 16)), floats in halves over [-8, 8), with
 * NaN, -0.0 and infinities now and then when specials is set. */
static void fill_small(clprim_type t, void *data, size_t n, uint64_t *rng, int specials)
{
    const size_t es = reference_type_size(t);
    unsigned char *out = data;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = harness_rand(rng);
        int k = (int)(r % 16);
        int signed_t = t == CLPRIM_INT32 || t == CLPRIM_INT64 || reference_type_is_float(t);
        int64_t v = signed_t ? k - 8 : k;
        double f = (double)((int)(r % 32) - 16) / 2;
        if (specials && (r >> 32) % 16 == 0) {
            static const double sp[] = {NAN, -0.0, INFINITY, -INFINITY};
            f = sp[(r >> 40) % 4];
        }
        switch (t) {
        case CLPRIM_INT32: { int32_t x = (int32_t)v; memcpy(out + i * es, &x, es); break; }
        case CLPRIM_UINT32: { uint32_t x = (uint32_t)v; memcpy(out + i * es, &x, es); break; }
        case CLPRIM_INT64: { int64_t x = v; memcpy(out + i * es, &x, es); break; }
        case CLPRIM_UINT64: { uint64_t x = (uint64_t)v; memcpy(out + i * es, &x, es); break; }
        case CLPRIM_UINT8: { uint8_t x = (uint8_t)v; memcpy(out + i * es, &x, es); break; }
        case CLPRIM_FLOAT: { float x = (float)f; memcpy(out + i * es, &x, es); break; }
        case CLPRIM_DOUBLE: memcpy(out + i * es, &f, es); break;
        }
    }
}

/* One element of type t with the value v (3 for integers is typical). */
static void element_of(clprim_type t, double v, void *out)
{
    switch (t) {
    case CLPRIM_INT32: { int32_t x = (int32_t)v; memcpy(out, &x, 4); break; }
    case CLPRIM_UINT32: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); break; }
    case CLPRIM_INT64: { int64_t x = (int64_t)v; memcpy(out, &x, 8); break; }
    case CLPRIM_UINT64: { uint64_t x = (uint64_t)v; memcpy(out, &x, 8); break; }
    case CLPRIM_UINT8: { uint8_t x = (uint8_t)v; memcpy(out, &x, 1); break; }
    case CLPRIM_FLOAT: { float x = (float)v; memcpy(out, &x, 4); break; }
    case CLPRIM_DOUBLE: memcpy(out, &v, 8); break;
    }
}

/* ---- One checked compaction ---- */

/* clprim_compact and clprim_partition take the same arguments. */
typedef clprim_status (*compaction_fn)(clprim_context *, clprim_type, const clprim_predicate *, cl_mem, size_t,
                                       cl_mem, size_t, size_t, size_t *, cl_mem, size_t, cl_uint, const cl_event *,
                                       cl_event *);

typedef struct {
    clprim_keep keep;
    double value;          /* comparisons: converted to the type */
    const expression *expr; /* EXPRESSION */
} pred;

typedef enum { COUNT_HOST, COUNT_DEVICE, COUNT_BOTH, COUNT_NONE } count_mode;

typedef struct {
    size_t src_offset, dst_offset; /* elements before the range */
    size_t after;                  /* elements after it */
    int in_place;                  /* dst = src at the same offset */
    size_t flags_offset;
    count_mode count;
    int partition; /* 1: clprim_partition, the rejected elements follow, and all n are written;
                      2: clprim_partition_three_way by pr and `second` */
    pred second;   /* partition 2: its flags are others than the first's, from flags_offset + 1 */
} layout;

/* Data: `data` when not NULL, else fill_small (small != 0) or harness_fill_random.
 * flags (FLAGGED): `flags` when not NULL, else random with about half set. */
static size_t compact_case(clprim_context *ctx, clprim_type t, pred pr, size_t n, layout lay, const void *data,
                           const unsigned char *flags, int small, uint64_t *rng)
{
    const size_t es = reference_type_size(t);
    const size_t src_len = lay.src_offset + n + lay.after;
    unsigned char *src = harness_malloc(src_len * es);
    if (small)
        fill_small(t, src, src_len, rng, 1);
    else
        harness_fill_random(t, src, src_len, rng);
    if (data)
        memcpy(src + lay.src_offset * es, data, n * es);
    cl_mem sbuf = harness_buffer(ctx, src_len * es, src);
    cl_mem dbuf = sbuf;
    size_t dst_offset = lay.src_offset, dst_len = src_len;
    if (!lay.in_place) {
        dst_offset = lay.dst_offset;
        dst_len = lay.dst_offset + n + lay.after;
        dbuf = harness_buffer(ctx, dst_len * es, NULL);
    }

    unsigned char value[8];
    element_of(t, pr.value, value);
    const size_t flags_len = lay.flags_offset + n + 3;
    unsigned char *fl = harness_malloc(flags_len);
    for (size_t i = 0; i < flags_len; i++) {
        uint64_t r = harness_rand(rng);
        fl[i] = r % 2 ? (unsigned char)(1 + (r >> 8) % 255) : 0; /* any non-zero byte keeps */
    }
    if (flags)
        memcpy(fl + lay.flags_offset, flags, n);
    cl_mem fbuf = pr.keep == CLPRIM_KEEP_FLAGGED ? harness_buffer(ctx, flags_len, fl) : NULL;
    clprim_predicate p = {pr.keep, value, fbuf, lay.flags_offset, pr.expr ? pr.expr->text : NULL};
    /* A three-way partition's second predicate, flags shifted by one against the first's. */
    const int three_way = lay.partition == 2;
    unsigned char value2[8];
    element_of(t, lay.second.value, value2);
    const int flagged2 = three_way && lay.second.keep == CLPRIM_KEEP_FLAGGED;
    cl_mem fbuf2 = flagged2 ? harness_buffer(ctx, flags_len, fl) : NULL;
    clprim_predicate p2 = {lay.second.keep, value2, fbuf2, lay.flags_offset + 1,
                           lay.second.expr ? lay.second.expr->text : NULL};

    cl_mem kbuf = harness_buffer(ctx, KEPT_SLOTS * 8, NULL);
    const size_t kept_offset = 1 + n % 2;
    size_t kept = KEPT_UNSET, second_kept = KEPT_UNSET;
    int host = lay.count == COUNT_HOST || lay.count == COUNT_BOTH;
    int device = lay.count == COUNT_DEVICE || lay.count == COUNT_BOTH;
    /* Three-way with both: the second part's count alone on the host. */
    int host_first = host && !(three_way && lay.count == COUNT_BOTH), host_second = three_way && host;

    cl_event done = NULL;
    const compaction_fn call = lay.partition ? clprim_partition : clprim_compact;
    clprim_status s =
        three_way ? clprim_partition_three_way(ctx, t, &p, &p2, sbuf, lay.src_offset, dbuf, dst_offset, n,
                                               host_first ? &kept : NULL, host_second ? &second_kept : NULL,
                                               device ? kbuf : NULL, kept_offset, 0, NULL, &done)
                  : call(ctx, t, &p, sbuf, lay.src_offset, dbuf, dst_offset, n, host ? &kept : NULL,
                         device ? kbuf : NULL, kept_offset, 0, NULL, &done);
    char what[768];
    snprintf(what, sizeof what,
             "%s %s keep %s%s%s%s%s%s%s%s n=%zu (src_offset %zu, dst_offset %zu%s, count %d, %s)",
             three_way ? "partition_three_way" : lay.partition ? "partition" : "compact", reference_type_name(t),
             clprim_keep_name(pr.keep), pr.expr ? " \"" : "", pr.expr ? pr.expr->text : "", pr.expr ? "\"" : "",
             three_way ? ", second " : "", three_way ? clprim_keep_name(lay.second.keep) : "",
             lay.second.expr ? " " : "", lay.second.expr ? lay.second.expr->text : "", n, lay.src_offset, dst_offset,
             lay.in_place ? ", in place" : "", (int)lay.count, harness_tuning_text(ctx));
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s: %s", what, clprim_status_name(s), clprim_last_error(ctx));
    ck_assert_msg(done != NULL, "%s: no event", what);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);

    harness_assert_single_ref(sbuf, "src");
    if (dbuf != sbuf)
        harness_assert_single_ref(dbuf, "dst");
    if (fbuf)
        harness_assert_single_ref(fbuf, "flags");
    if (fbuf2)
        harness_assert_single_ref(fbuf2, "second flags");
    harness_assert_single_ref(kbuf, "kept_buffer");

    unsigned char *want = harness_malloc(n * es + 1);
    size_t ref, ref2 = 0;
    if (three_way) {
        const reference_predicate first = {pr.keep, value, fl + lay.flags_offset, pr.expr ? pr.expr->fn : NULL};
        const reference_predicate second = {lay.second.keep, value2, fl + lay.flags_offset + 1,
                                            lay.second.expr ? lay.second.expr->fn : NULL};
        ref = reference_partition_three_way(t, &first, &second, src + lay.src_offset * es, n, want, &ref2);
    } else {
        ref = (lay.partition ? reference_partition : reference_compact)(
            t, pr.keep, value, fl + lay.flags_offset, pr.expr ? pr.expr->fn : NULL, src + lay.src_offset * es, n,
            want);
    }
    const size_t written = lay.partition ? n : ref;
    if (host_first)
        ck_assert_msg(kept == ref, "%s: *kept = %zu, want %zu", what, kept, ref);
    else
        ck_assert_msg(kept == KEPT_UNSET, "%s: *kept written without being asked", what);
    if (host_second)
        ck_assert_msg(second_kept == ref2, "%s: *second_count = %zu, want %zu", what, second_kept, ref2);
    else
        ck_assert_msg(second_kept == KEPT_UNSET, "%s: *second_count written without being asked", what);
    cl_ulong slots[KEPT_SLOTS];
    harness_read(ctx, kbuf, 0, sizeof slots, slots);
    for (size_t k = 0; k < KEPT_SLOTS; k++) {
        if (device && k == kept_offset)
            ck_assert_msg(slots[k] == ref, "%s: kept_buffer holds %llu, want %zu", what, (unsigned long long)slots[k],
                          ref);
        else if (device && three_way && k == kept_offset + 1)
            ck_assert_msg(slots[k] == ref2, "%s: counts_buffer's second count is %llu, want %zu", what,
                          (unsigned long long)slots[k], ref2);
        else
            ck_assert_msg(harness_all_sentinel(&slots[k], 8), "%s: kept_buffer slot %zu written", what, k);
    }

    unsigned char *out = harness_malloc(dst_len * es);
    harness_read(ctx, dbuf, 0, dst_len * es, out);
    for (size_t i = 0; i < written; i++)
        if (memcmp(out + (dst_offset + i) * es, want + i * es, es) != 0) {
            char g[64], w[64];
            reference_format(t, out + (dst_offset + i) * es, g, sizeof g);
            reference_format(t, want + i * es, w, sizeof w);
            ck_abort_msg("%s: output %zu of %zu (%zu kept, %zu second) is %s, want %s", what, i, written, ref, ref2, g,
                         w);
        }
    const size_t tail = dst_offset + written;
    if (lay.in_place) {
        ck_assert_msg(memcmp(out, src, dst_offset * es) == 0, "%s: changed elements before the range", what);
        ck_assert_msg(memcmp(out + tail * es, src + tail * es, (dst_len - tail) * es) == 0,
                      "%s: changed elements past the ones written", what);
    } else {
        ck_assert_msg(harness_all_sentinel(out, dst_offset * es), "%s: wrote before dst_offset", what);
        ck_assert_msg(harness_all_sentinel(out + tail * es, (dst_len - tail) * es),
                      "%s: wrote past the %zu elements it should", what, written);
        unsigned char *again = harness_malloc(src_len * es);
        harness_read(ctx, sbuf, 0, src_len * es, again);
        ck_assert_msg(memcmp(again, src, src_len * es) == 0, "%s: changed its input", what);
        free(again);
        clReleaseMemObject(dbuf);
    }
    if (fbuf)
        clReleaseMemObject(fbuf);
    if (fbuf2)
        clReleaseMemObject(fbuf2);
    clReleaseMemObject(kbuf);
    clReleaseMemObject(sbuf);
    free(out);
    free(want);
    free(fl);
    free(src);
    return ref;
}

static const layout plain = {0, 0, 0, 0, 0, COUNT_HOST};

/* Every predicate kind at one size, with the types' expressions; with full == 0
 * only GT, NONZERO and FLAGGED (each kind and expression is a build of its own,
 * and compiling is most of this suite's time on a cold kernel cache). */
static void every_predicate(clprim_context *ctx, clprim_type t, size_t n, int full, int partition, uint64_t *rng)
{
    const double v = reference_type_is_float(t) ? 1.5 : 3;
    for (int k = CLPRIM_KEEP_LT; k <= CLPRIM_KEEP_FLAGGED; k++) {
        if (!full && k != CLPRIM_KEEP_GT && k != CLPRIM_KEEP_FLAGGED)
            continue;
        layout lay = {k % 3, (k + 1) % 4, 2, 0, (size_t)k % 5, (count_mode)(k % 3), partition};
        compact_case(ctx, t, (pred){(clprim_keep)k, v, NULL}, n, lay, NULL, NULL, 1, rng);
    }
    for (size_t e = 0; full && e < EXPRESSION_COUNT; e++)
        if (expression_fits(&expressions[e], t)) {
            layout lay = {e % 2, 1, 1, 0, 0, (count_mode)(e % 3), partition};
            /* full-range data for the expressions written for it, small for the rest */
            compact_case(ctx, t, (pred){CLPRIM_KEEP_EXPRESSION, 0, &expressions[e]}, n, lay, NULL, NULL, e >= 3,
                         rng);
        }
    /* Full-range random data against 0 and against the middle of the unsigned types. */
    layout lay = plain;
    lay.partition = partition;
    compact_case(ctx, t, (pred){CLPRIM_KEEP_GT, 0, NULL}, n, lay, NULL, NULL, 0, rng);
    compact_case(ctx, t, (pred){CLPRIM_KEEP_NONZERO, 0, NULL}, n, lay, NULL, NULL, 0, rng);
}

/* ---- Correctness ---- */

static size_t boundary_sizes(clprim_context *ctx, int max_levels, size_t limit, size_t *sizes, size_t cap);

START_TEST(compact_every_predicate)
{
    clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(100 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        clprim_tuning d = clprim_get_tuning(ctx);
        /* One work-group, then several (two levels). */
        every_predicate(ctx, t, 1000, 1, 0, &rng);
        every_predicate(ctx, t, 3 * d.work_group_size * d.items_per_thread * d.groups + 17, 1, 0, &rng);
        /* Tiles of 8 and 64 groups: three levels at 1000, and the work-group
         * path on devices whose default is one work-item per group. */
        harness_set_tuning(ctx, 4, 2, 64);
        ck_assert_int_eq(harness_scan_levels(&(clprim_tuning){4, 2, 64}, 1000, 8), 3);
        every_predicate(ctx, t, 1000, t == CLPRIM_INT32, 0, &rng);
    }
}
END_TEST

/* clprim_partition: the predicate kinds on one work-group (which counts
 * first too), on several that fold the counts, and under tiles of 8 with 64
 * groups, whose counts are scanned; then sizes around every tile and level
 * edge of that shape, in place and not. Every kind and expression only for
 * int32 and float: a partition judges with the same code as a compaction,
 * which compact_every_predicate runs on every type, and each is a program
 * to compile. */
START_TEST(partition_every_predicate)
{
    clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(150 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        clprim_tuning d = clprim_get_tuning(ctx);
        every_predicate(ctx, t, 1000, t == CLPRIM_INT32 || t == CLPRIM_FLOAT, 1, &rng);
        every_predicate(ctx, t, 3 * d.work_group_size * d.items_per_thread * d.groups + 17, 0, 1, &rng);
        harness_set_tuning(ctx, 4, 2, 64);
        every_predicate(ctx, t, 1000, 0, 1, &rng);
        size_t sizes[32];
        const size_t count = boundary_sizes(ctx, 3, 100000, sizes, 32);
        for (size_t k = 0; k < count; k++) {
            layout lay = {k % 3, (k + 1) % 4, 1 + k % 3, k % 2, k % 2, (count_mode)(k % 4), 1};
            compact_case(ctx, t, (pred){k % 2 ? CLPRIM_KEEP_FLAGGED : CLPRIM_KEEP_LT, 2, NULL}, sizes[k], lay, NULL,
                         NULL, 1, &rng);
        }
    }
}
END_TEST

/* ---- The three-way partition ---- */

/* A type with two predicates of its own kinds: every kind in some pair, pairs
 * that overlap (an element passing both goes to the first part), two flag
 * arrays at once, NaN, -0.0 and infinities among the floats. Each pair is a
 * program of its own, so there are few. */
typedef struct {
    clprim_type t;
    pred first, second;
    int in_place; /* also in place (a kernel more to compile) */
} three_way_pair;

static const three_way_pair three_way_pairs[] = {
    {CLPRIM_INT32, {CLPRIM_KEEP_LT, -2, NULL}, {CLPRIM_KEEP_GT, 3, NULL}, 1},
    {CLPRIM_UINT32, {CLPRIM_KEEP_EXPRESSION, 0, &expressions[3]}, {CLPRIM_KEEP_FLAGGED, 0, NULL}},
    {CLPRIM_INT64, {CLPRIM_KEEP_GE, 0, NULL}, {CLPRIM_KEEP_LE, 3, NULL}},
    {CLPRIM_UINT64, {CLPRIM_KEEP_FLAGGED, 0, NULL}, {CLPRIM_KEEP_NE, 5, NULL}},
    {CLPRIM_FLOAT, {CLPRIM_KEEP_GT, 1.5, NULL}, {CLPRIM_KEEP_NONZERO, 0, NULL}},
    {CLPRIM_DOUBLE, {CLPRIM_KEEP_EQ, 0, NULL}, {CLPRIM_KEEP_EXPRESSION, 0, &expressions[2]}},
    {CLPRIM_UINT8, {CLPRIM_KEEP_FLAGGED, 0, NULL}, {CLPRIM_KEEP_FLAGGED, 0, NULL}, 1},
};
#define THREE_WAY_PAIRS (sizeof three_way_pairs / sizeof three_way_pairs[0])

/* Sizes around the current tuning's tiles and levels, in and out of place
 * (where the pair says), with every way of reporting the counts (the first
 * size, 0, reports them by the way `turn` picks); full-range data (ties are rare, so
 * the order shows) on every third size, small values (many ties) elsewhere. */
static void three_way_sizes(clprim_context *ctx, const three_way_pair *pair, int max_levels, size_t extra,
                            int turn, uint64_t *rng)
{
    size_t sizes[40];
    size_t count = boundary_sizes(ctx, max_levels, 1u << 22, sizes, 39);
    if (extra)
        sizes[count++] = extra;
    for (size_t k = 0; k < count; k++) {
        const layout lay = {k % 3,        (k + 1) % 4,        1 + k % 3, pair->in_place && k % 4 == 3,
                            k % 2,        (count_mode)((k + turn) % 4), 2, pair->second};
        compact_case(ctx, pair->t, pair->first, sizes[k], lay, NULL, NULL, k % 3 != 0, rng);
    }
}

/* clprim_partition_three_way: each pair at the device's tuning (on CPUs,
 * loops of one work-item) but int32's, which runs under tiles of 8
 * (work-groups of 4) with 64 groups (the counts scanned, three levels) and
 * with 8 groups (several tiles a chunk; the counts folded). One shape a type:
 * every program costs a compile. */
START_TEST(partition_three_way_pairs)
{
    const three_way_pair *pair = &three_way_pairs[_i];
    uint64_t rng = harness_rng(700 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, pair->t))
            continue;
        clprim_tuning d = clprim_get_tuning(ctx);
        if (pair->t != CLPRIM_INT32) {
            three_way_sizes(ctx, pair, 2, 3 * d.work_group_size * d.items_per_thread * d.groups + 17, _i, &rng);
            continue;
        }
        harness_set_tuning(ctx, 4, 2, 64);
        three_way_sizes(ctx, pair, 3, 5000, 1, &rng);
        harness_set_tuning(ctx, 4, 2, 8);
        three_way_sizes(ctx, pair, 2, 8 * 8 * 5 + 3, 2, &rng);
    }
}
END_TEST

/* Partitions in one launch, whose tiles learn every tile's counts (a census:
 * where the tiles fit the device at once, here up to four tiles of 16 a
 * compute unit), and past that bound, where they run multi-pass: both
 * partitions, every way of reporting the counts, in place and not; then with
 * tiles numbered in reverse of their start (CLPRIM_TEST_LOOKBACK reversed),
 * so that nearly every count comes through the census's fallback. */
START_TEST(partition_one_launch)
{
    const char *const modes[] = {NULL, "reversed"};
    uint64_t rng = harness_rng(820);
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        harness_env_set("CLPRIM_TEST_LOOKBACK", modes[m]);
        FOR_EACH_DEVICE(ctx)
        {
            const clprim_tuning want = {4, 2, 4, CLPRIM_FORM_ONE_SWEEP};
            ck_assert_int_eq(harness_tune(ctx, &want), CLPRIM_SUCCESS);
            const three_way_pair *pair = &three_way_pairs[0]; /* int32, in place too */
            size_t k = 0;
            for (size_t n = 1; n <= 400; n += 1 + n / 6, k++) {
                const layout two = {k % 3, (k + 1) % 4, 1 + k % 2, k % 3 == 2, k % 2, (count_mode)(k % 4), 1};
                compact_case(ctx, CLPRIM_INT32, (pred){CLPRIM_KEEP_LT, 2, NULL}, n, two, NULL, NULL, 1, &rng);
                const layout three = {k % 2, k % 3, 1, k % 4 == 1, 0, (count_mode)((k + 1) % 4), 2, pair->second};
                compact_case(ctx, pair->t, pair->first, n, three, NULL, NULL, k % 2, &rng);
                if (k % 3 == 0)
                    compact_case(ctx, CLPRIM_FLOAT, (pred){CLPRIM_KEEP_FLAGGED, 0, NULL}, n,
                                 (layout){1, 2, 1, 0, 1, (count_mode)(k % 4), 1}, NULL, NULL, 0, &rng);
            }
        }
    }
    harness_env_set("CLPRIM_TEST_LOOKBACK", NULL);
}
END_TEST

/* Sizes around a work-group and a tile of the current tuning, and around the
 * first size of every level count up to max_levels. */
static size_t boundary_sizes(clprim_context *ctx, int max_levels, size_t limit, size_t *sizes, size_t cap)
{
    clprim_tuning t = clprim_get_tuning(ctx);
    size_t wg = t.work_group_size, tile = t.work_group_size * t.items_per_thread, count = 0;
    const size_t fixed[] = {0, 1, 2, wg - 1, wg, wg + 1, tile - 1, tile, tile + 1, 2 * tile + 3};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        sizes[count++] = fixed[i];
    for (int levels = 2; levels <= max_levels; levels++) {
        size_t first = harness_first_size_with_levels(&t, levels, limit);
        ck_assert_msg(first > 0, "no size up to %zu needs %d levels with %s", limit, levels, harness_tuning_text(ctx));
        sizes[count++] = first - 1;
        sizes[count++] = first;
        sizes[count++] = first + 1;
        ck_assert(count + 3 <= cap);
    }
    return count;
}

static void sizes_for(clprim_context *ctx, clprim_type t, const size_t *sizes, size_t count, uint64_t *rng)
{
    const double v = reference_type_is_float(t) ? 1.5 : 3;
    for (size_t k = 0; k < count; k++) {
        layout lay = {k % 3, (k + 1) % 4, 1 + k % 3, 0, k % 2, (count_mode)(k % 4)};
        compact_case(ctx, t, (pred){CLPRIM_KEEP_GE, v, NULL}, sizes[k], lay, NULL, NULL, 1, rng);
        lay.in_place = 1;
        compact_case(ctx, t, (pred){CLPRIM_KEEP_FLAGGED, 0, NULL}, sizes[k], lay, NULL, NULL, 1, rng);
    }
}

START_TEST(compact_sizes)
{
    static const clprim_type types[] = {CLPRIM_INT32, CLPRIM_DOUBLE, CLPRIM_UINT8, CLPRIM_UINT64};
    clprim_type t = types[_i];
    uint64_t rng = harness_rng(200 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        size_t sizes[40];
        size_t count = boundary_sizes(ctx, 2, 1u << 22, sizes, 40);
        sizes_for(ctx, t, sizes, count, &rng);

        harness_set_tuning(ctx, 4, 2, 64);
        count = boundary_sizes(ctx, 3, 100000, sizes, 40);
        sizes[count++] = 5000;
        sizes_for(ctx, t, sizes, count, &rng);

        harness_set_tuning(ctx, 4, 2, 8); /* several tiles per group, each with its carry */
        count = boundary_sizes(ctx, 2, 100000, sizes, 40);
        sizes[count++] = 8 * 8 * 5 + 3;
        sizes_for(ctx, t, sizes, count, &rng);

        harness_set_tuning(ctx, 2, 1, 16); /* five levels of partials at 3000 */
        ck_assert_int_eq(harness_scan_levels(&(clprim_tuning){2, 1, 16}, 3000, 8), 5);
        const size_t deep[] = {3, 17, 255, 3000};
        sizes_for(ctx, t, deep, 4, &rng);
    }
}
END_TEST

/* None kept, all kept, alternating, only the last, only the first, a block at
 * the end: through flags and through comparisons, in and out of place. */
START_TEST(compact_patterns)
{
    static const clprim_type types[] = {CLPRIM_INT32, CLPRIM_FLOAT, CLPRIM_UINT8, CLPRIM_INT64};
    clprim_type t = types[_i];
    uint64_t rng = harness_rng(300 + (unsigned)_i);
    enum { NONE, ALL, ALTERNATE, LAST, FIRST, TAIL_BLOCK, PATTERNS };
    FOR_EACH_DEVICE(ctx)
    {
        const size_t es = reference_type_size(t);
        clprim_tuning d = clprim_get_tuning(ctx);
        for (int tuned = 0; tuned <= 1; tuned++) {
            if (tuned)
                harness_set_tuning(ctx, 4, 2, 64);
            else
                harness_set_tuning(ctx, d.work_group_size, d.items_per_thread, d.groups);
            clprim_tuning now = clprim_get_tuning(ctx);
            const size_t sizes[] = {1, 7, now.work_group_size * now.items_per_thread + 1,
                                    3 * now.work_group_size * now.items_per_thread * now.groups + 5};
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                const size_t n = sizes[s];
                unsigned char *flags = harness_malloc(n), *data = harness_malloc(n * es);
                for (int pat = NONE; pat < PATTERNS; pat++) {
                    for (size_t i = 0; i < n; i++) {
                        int on = pat == ALL || (pat == ALTERNATE && i % 2 == 1) || (pat == LAST && i == n - 1) ||
                                 (pat == FIRST && i == 0) || (pat == TAIL_BLOCK && i >= n - n / 3);
                        flags[i] = on ? (unsigned char)(1 + i % 200) : 0;
                        element_of(t, on ? 9 : 2, data + i * es); /* GT 5 keeps the "on" ones */
                    }
                    for (int in_place = 0; in_place <= 1; in_place++) {
                        layout lay = {2, 1, 3, in_place, 1, (count_mode)((pat + in_place) % 3)};
                        size_t want = pat == NONE ? 0 : pat == ALL ? n : pat == ALTERNATE ? n / 2
                                                     : pat == TAIL_BLOCK ? n / 3 : 1;
                        size_t got = compact_case(ctx, t, (pred){CLPRIM_KEEP_FLAGGED, 0, NULL}, n, lay, NULL, flags, 1,
                                                  &rng);
                        ck_assert_msg(got == want, "pattern %d n=%zu: reference keeps %zu, expected %zu", pat, n, got,
                                      want);
                        compact_case(ctx, t, (pred){CLPRIM_KEEP_GT, 5, NULL}, n, lay, data, NULL, 1, &rng);
                    }
                }
                free(flags);
                free(data);
            }
        }
    }
}
END_TEST

/* In place with many work-groups, where later groups write over input of earlier
 * ones unless the input was set aside: few kept early, all kept late. */
START_TEST(compact_in_place)
{
    clprim_type t = (clprim_type)_i;
    uint64_t rng = harness_rng(400 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        if (!type_runs(ctx, t))
            continue;
        const size_t es = reference_type_size(t);
        for (int tuned = 0; tuned <= 2; tuned++) {
            if (tuned == 1)
                harness_set_tuning(ctx, 4, 2, 64);
            if (tuned == 2 && t != CLPRIM_INT32)
                break;
            if (tuned == 2)
                harness_set_tuning(ctx, 64, 1, 512);
            clprim_tuning now = clprim_get_tuning(ctx);
            const size_t n = 4 * now.work_group_size * now.items_per_thread * now.groups + 3;
            unsigned char *data = harness_malloc(n * es);
            for (size_t i = 0; i < n; i++)
                element_of(t, i < n / 2 ? (i % 97 == 0 ? 9 : 1) : 9, data + i * es);
            for (size_t off = 0; off <= 3; off += 3) {
                layout lay = {off, 0, 2, 1, 0, (count_mode)(off % 4)};
                compact_case(ctx, t, (pred){CLPRIM_KEEP_GT, 5, NULL}, n, lay, data, NULL, 1, &rng);
                compact_case(ctx, t, (pred){CLPRIM_KEEP_LE, 5, NULL}, n, lay, data, NULL, 1, &rng);
                compact_case(ctx, t, (pred){CLPRIM_KEEP_NE, 1.5, NULL}, n, lay, NULL, NULL, 1, &rng);
                compact_case(ctx, t, (pred){CLPRIM_KEEP_EXPRESSION, 0, &expressions[3]}, n, lay, NULL, NULL, 1, &rng);
            }
            free(data);
        }
    }
}
END_TEST

/* 10^6 + 3 elements with the device's tuning. */
START_TEST(compact_large_odd)
{
    const size_t n = 1000003;
    uint64_t rng = harness_rng(500);
    FOR_EACH_DEVICE(ctx)
    {
        compact_case(ctx, CLPRIM_INT32, (pred){CLPRIM_KEEP_GT, 0, NULL}, n, (layout){1, 3, 2, 0, 0, COUNT_BOTH},
                     NULL, NULL, 0, &rng);
        compact_case(ctx, CLPRIM_INT32, (pred){CLPRIM_KEEP_EXPRESSION, 0, &expressions[0]}, n,
                     (layout){0, 0, 0, 1, 0, COUNT_HOST}, NULL, NULL, 0, &rng);
        compact_case(ctx, CLPRIM_FLOAT, (pred){CLPRIM_KEEP_FLAGGED, 0, NULL}, n, (layout){0, 1, 1, 0, 5, COUNT_DEVICE},
                     NULL, NULL, 0, &rng);
        compact_case(ctx, CLPRIM_UINT8, (pred){CLPRIM_KEEP_LT, 3, NULL}, n, (layout){2, 0, 1, 1, 0, COUNT_HOST}, NULL,
                     NULL, 1, &rng);
        if (ctx->has_fp64)
            compact_case(ctx, CLPRIM_DOUBLE, (pred){CLPRIM_KEEP_NE, 1.5, NULL}, n, (layout){0, 0, 0, 0, 0, COUNT_BOTH},
                         NULL, NULL, 1, &rng);
    }
}
END_TEST

/* Both forms on the same data at the device's tiles and at small ones: each
 * must give the reference's elements and count, so they give the same bits. */
START_TEST(compact_forms_same_bits)
{
    const size_t n = 30011;
    FOR_EACH_DEVICE(ctx)
    {
        for (int small = 0; small <= 1; small++)
            for (int f = 0; f < 2; f++) {
                uint64_t rng = harness_rng(510); /* the same data in both forms */
                clprim_tuning tuning = {small ? 4 : 0, small ? 2 : 0, small ? 64 : 0,
                                        f ? CLPRIM_FORM_ONE_SWEEP : CLPRIM_FORM_MULTI_PASS};
                ck_assert_int_eq(harness_tune(ctx, &tuning), CLPRIM_SUCCESS);
                compact_case(ctx, CLPRIM_INT32, (pred){CLPRIM_KEEP_GT, 0, NULL}, n,
                             (layout){1, 3, 2, 0, 0, COUNT_BOTH}, NULL, NULL, 0, &rng);
                compact_case(ctx, CLPRIM_UINT64, (pred){CLPRIM_KEEP_EXPRESSION, 0, &expressions[3]}, n,
                             (layout){0, 0, 0, 1, 0, COUNT_HOST}, NULL, NULL, 0, &rng);
                compact_case(ctx, CLPRIM_FLOAT, (pred){CLPRIM_KEEP_FLAGGED, 0, NULL}, n,
                             (layout){0, 1, 1, 0, 5, COUNT_DEVICE}, NULL, NULL, 0, &rng);
                compact_case(ctx, CLPRIM_UINT8, (pred){CLPRIM_KEEP_LT, 3, NULL}, n,
                             (layout){2, 0, 1, 1, 0, COUNT_HOST}, NULL, NULL, 1, &rng);
            }
        harness_default_tuning(ctx);
    }
}
END_TEST

/* The shapes compaction's programs take (clprim_compact_shape): one work-item
 * a group stays the tuning's loop for every use; wider groups give elements of
 * 4 bytes a tile at least as long as 8-byte ones in at most 32 items a
 * work-item, and a partition, whatever its type, the 8-byte shape. */
START_TEST(compact_shapes)
{
    const clprim_tuning tunings[] = {{0, 0, 0, CLPRIM_FORM_DEFAULT}, {1, 1024, 0, CLPRIM_FORM_ONE_SWEEP},
                                     {256, 8, 0, CLPRIM_FORM_ONE_SWEEP}, {4, 2, 4, CLPRIM_FORM_ONE_SWEEP}};
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t k = 0; k < sizeof tunings / sizeof *tunings; k++) {
            if (tunings[k].work_group_size > ctx->max_work_group_size)
                continue;
            ck_assert_int_eq(harness_tune(ctx, &tunings[k]), CLPRIM_SUCCESS);
            const clprim_tuning tuning = clprim_get_tuning(ctx);
            const int one_sweep = clprim_one_sweep_available(ctx);
            const clprim_tuning narrow = clprim_compact_shape(ctx, one_sweep, 4, 0),
                                wide = clprim_compact_shape(ctx, one_sweep, 8, 0),
                                partition = clprim_compact_shape(ctx, one_sweep, 4, 1);
            const char *at = harness_tuning_text(ctx);
            if (tuning.work_group_size == 1) {
                ck_assert_msg(narrow.work_group_size == 1 && wide.work_group_size == 1 &&
                                  partition.work_group_size == 1 && narrow.items_per_thread == tuning.items_per_thread,
                              "one work-item a group (%s): shapes %zu x %zu, %zu x %zu, %zu x %zu", at,
                              narrow.work_group_size, narrow.items_per_thread, wide.work_group_size,
                              wide.items_per_thread, partition.work_group_size, partition.items_per_thread);
                continue;
            }
            ck_assert_msg(narrow.items_per_thread <= 32 &&
                              narrow.work_group_size * narrow.items_per_thread >=
                                  wide.work_group_size * wide.items_per_thread,
                          "%s: 4-byte shape %zu x %zu, 8-byte %zu x %zu", at, narrow.work_group_size,
                          narrow.items_per_thread, wide.work_group_size, wide.items_per_thread);
            ck_assert_msg(partition.work_group_size == wide.work_group_size &&
                              partition.items_per_thread == wide.items_per_thread,
                          "%s: a partition of 4-byte elements at %zu x %zu, not the 8-byte shape %zu x %zu", at,
                          partition.work_group_size, partition.items_per_thread, wide.work_group_size,
                          wide.items_per_thread);
        }
        harness_default_tuning(ctx);
    }
}
END_TEST

/* NaN as the value: EQ keeps nothing, NE keeps everything; NaN elements fail
 * every comparison but NE; NONZERO keeps NaN and drops -0.0. */
START_TEST(compact_float_specials)
{
    uint64_t rng = harness_rng(550);
    FOR_EACH_DEVICE(ctx)
    {
        for (int t = CLPRIM_FLOAT; t <= CLPRIM_DOUBLE; t++) {
            if (!type_runs(ctx, (clprim_type)t))
                continue;
            const size_t n = 3001;
            ck_assert_uint_eq(compact_case(ctx, (clprim_type)t, (pred){CLPRIM_KEEP_EQ, NAN, NULL}, n, plain, NULL,
                                           NULL, 1, &rng),
                              0);
            ck_assert_uint_eq(compact_case(ctx, (clprim_type)t, (pred){CLPRIM_KEEP_NE, NAN, NULL}, n, plain, NULL,
                                           NULL, 1, &rng),
                              n);
            for (int k = CLPRIM_KEEP_LT; k <= CLPRIM_KEEP_NONZERO; k++) {
                compact_case(ctx, (clprim_type)t, (pred){(clprim_keep)k, 0.0, NULL}, n, plain, NULL, NULL, 1, &rng);
                compact_case(ctx, (clprim_type)t, (pred){(clprim_keep)k, -INFINITY, NULL}, n, plain, NULL, NULL, 1,
                             &rng);
            }
        }
    }
}
END_TEST

/* The count: on the host (blocking), in a device buffer (slot checked, neighbours
 * untouched), both, neither; n == 0 still writes 0 to the device. */
START_TEST(compact_count_modes)
{
    uint64_t rng = harness_rng(600);
    FOR_EACH_DEVICE(ctx)
    {
        for (int mode = COUNT_HOST; mode <= COUNT_NONE; mode++)
            for (size_t n = 0; n <= 5000; n += 2500) {
                layout lay = {1, 2, 1, 0, 0, (count_mode)mode};
                compact_case(ctx, CLPRIM_INT32, (pred){CLPRIM_KEEP_LT, 3, NULL}, n, lay, NULL, NULL, 1, &rng);
                lay.in_place = 1;
                compact_case(ctx, CLPRIM_UINT32, (pred){CLPRIM_KEEP_EQ, 3, NULL}, n, lay, NULL, NULL, 1, &rng);
            }
        /* Non-blocking: the device count can feed a later command on the queue. */
        const size_t n = 100000;
        int32_t *data = harness_malloc(n * 4);
        for (size_t i = 0; i < n; i++)
            data[i] = (int32_t)(i % 10);
        cl_mem src = harness_buffer(ctx, n * 4, data), dst = harness_buffer(ctx, n * 4, NULL);
        cl_mem kbuf = harness_buffer(ctx, 8, NULL);
        int32_t seven = 7;
        clprim_predicate p = {CLPRIM_KEEP_GE, &seven, NULL, 0, NULL};
        ck_assert_int_eq(clprim_compact(ctx, CLPRIM_INT32, &p, src, 0, dst, 0, n, NULL, kbuf, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        cl_ulong total = 0;
        harness_read(ctx, kbuf, 0, 8, &total);
        ck_assert_uint_eq(total, 3 * n / 10);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(kbuf);
        free(data);
    }
}
END_TEST

/* src and dst as disjoint ranges of one buffer; flags in the same buffer as src. */
START_TEST(compact_shared_buffers)
{
    uint64_t rng = harness_rng(650);
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 5003;
        int32_t *data = harness_malloc(2 * n * 4);
        harness_fill_random(CLPRIM_INT32, data, 2 * n, &rng);
        for (int order = 0; order <= 1; order++) {
            cl_mem buf = harness_buffer(ctx, 2 * n * 4, data);
            size_t so = order ? n : 0, dof = order ? 0 : n;
            int32_t zero = 0;
            clprim_predicate p = {CLPRIM_KEEP_GT, &zero, NULL, 0, NULL};
            size_t kept = 0;
            ck_assert_int_eq(clprim_compact(ctx, CLPRIM_INT32, &p, buf, so, buf, dof, n, &kept, NULL, 0, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            int32_t *want = harness_malloc(n * 4), *got = harness_malloc(2 * n * 4);
            size_t ref = reference_compact(CLPRIM_INT32, CLPRIM_KEEP_GT, &zero, NULL, NULL, data + so, n, want);
            ck_assert_uint_eq(kept, ref);
            harness_read(ctx, buf, 0, 2 * n * 4, got);
            ck_assert(memcmp(got + dof, want, ref * 4) == 0);
            ck_assert(memcmp(got + dof + ref, data + dof + ref, (n - ref) * 4) == 0);
            ck_assert(memcmp(got + so, data + so, n * 4) == 0);
            free(want);
            free(got);
            clReleaseMemObject(buf);
        }
        /* Flags as bytes of the source buffer itself (both only read). */
        unsigned char *bytes = harness_malloc(4 * n);
        for (size_t i = 0; i < 4 * n; i++)
            bytes[i] = (unsigned char)(harness_rand(&rng) % 3);
        cl_mem src = harness_buffer(ctx, 4 * n, bytes), dst = harness_buffer(ctx, 4 * n, NULL);
        clprim_predicate p = {CLPRIM_KEEP_FLAGGED, NULL, src, 2, NULL};
        size_t kept = 0;
        ck_assert_int_eq(
            clprim_compact(ctx, CLPRIM_UINT8, &p, src, 0, dst, 0, 4 * n - 2, &kept, NULL, 0, 0, NULL, NULL),
            CLPRIM_SUCCESS);
        unsigned char *want = harness_malloc(4 * n), *got = harness_malloc(4 * n);
        size_t ref = reference_compact(CLPRIM_UINT8, CLPRIM_KEEP_FLAGGED, NULL, bytes + 2, NULL, bytes, 4 * n - 2, want);
        ck_assert_uint_eq(kept, ref);
        harness_read(ctx, dst, 0, 4 * n, got);
        ck_assert(memcmp(got, want, ref) == 0);
        ck_assert(harness_all_sentinel(got + ref, 4 * n - ref));
        free(want);
        free(got);
        free(bytes);
        free(data);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
}
END_TEST

/* A second call with the same expression compiles nothing; an expression that
 * fails leaves nothing cached and fails again the same way. */
START_TEST(compact_expression_cache)
{
    FOR_EACH_DEVICE(ctx)
    {
        cl_mem src = harness_buffer(ctx, 4096, NULL), dst = harness_buffer(ctx, 4096, NULL);
        clprim_predicate p = {CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, "x % 7 == 3 || x < -9"};
        size_t kept;
        ck_assert_int_eq(clprim_compact(ctx, CLPRIM_INT32, &p, src, 0, dst, 0, 1000, &kept, NULL, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        unsigned built = ctx->programs_compiled + ctx->programs_loaded;
        for (int k = 0; k < 3; k++)
            ck_assert_int_eq(
                clprim_compact(ctx, CLPRIM_INT32, &p, src, 0, dst, 0, 1000 + (size_t)k, &kept, NULL, 0, 0, NULL, NULL),
                CLPRIM_SUCCESS);
        ck_assert_uint_eq(ctx->programs_compiled + ctx->programs_loaded, built);
        /* Another type is another program. */
        ck_assert_int_eq(clprim_compact(ctx, CLPRIM_INT64, &p, src, 0, dst, 0, 100, &kept, NULL, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        ck_assert_uint_eq(ctx->programs_compiled + ctx->programs_loaded, built + 1);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
}
END_TEST

/* `done` is an event for every path: n == 0 with and without a device count,
 * host count, device count. */
START_TEST(compact_events)
{
    FOR_EACH_DEVICE(ctx)
    {
        cl_mem src = harness_buffer(ctx, 4096, NULL), dst = harness_buffer(ctx, 4096, NULL);
        cl_mem kbuf = harness_buffer(ctx, 8, NULL);
        clprim_predicate p = {CLPRIM_KEEP_NONZERO, NULL, NULL, 0, NULL};
        for (int c = 0; c < 4; c++) {
            size_t n = c < 2 ? 0 : 1000, kept = KEPT_UNSET;
            cl_event done = NULL;
            ck_assert_int_eq(clprim_compact(ctx, CLPRIM_UINT32, &p, src, 0, dst, 0, n, c % 2 ? &kept : NULL,
                                            c % 2 ? NULL : kbuf, 0, 0, NULL, &done),
                             CLPRIM_SUCCESS);
            ck_assert_ptr_nonnull(done);
            ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
            clReleaseEvent(done);
            if (c % 2)
                ck_assert_uint_eq(kept, n); /* every sentinel word is non-zero */
            ck_assert_int_eq(clprim_compact(ctx, CLPRIM_UINT32, &p, src, 0, dst, 0, n, NULL, NULL, 0, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
        }
        ck_assert_int_eq(clFinish(clprim_queue(ctx)), CL_SUCCESS);
        cl_ulong total;
        harness_read(ctx, kbuf, 0, 8, &total);
        ck_assert_uint_eq(total, 1000);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(kbuf);
    }
}
END_TEST

/* ---- Bad arguments: status, message, nothing written ---- */

typedef struct {
    clprim_context *ctx;
    cl_mem src, dst, small, readonly, flags, kbuf, other;
    unsigned char *dst_before;
    size_t n;
} bad_fixture;

static void expect_untouched(bad_fixture *f, size_t kept, const char *what)
{
    unsigned char got[4096];
    harness_read(f->ctx, f->dst, 0, sizeof got, got);
    ck_assert_msg(harness_all_sentinel(got, sizeof got), "%s: dst was written", what);
    harness_read(f->ctx, f->kbuf, 0, 64, got);
    ck_assert_msg(harness_all_sentinel(got, 64), "%s: kept_buffer was written", what);
    harness_read(f->ctx, f->src, 0, 4096, got);
    ck_assert_msg(memcmp(got, f->dst_before, 4096) == 0, "%s: src was written", what);
    ck_assert_msg(kept == KEPT_UNSET, "%s: *kept was written", what);
}

/* Expressions the parser refuses, with the token and 0-based position the
 * message names (at < 0: a text the message contains instead). */
typedef struct {
    const char *text, *token;
    int at;
} refused_expression;

static const refused_expression refused[] = {
    /* What was injected through the -D before expressions were parsed. */
    {"x > 3) ? 1 : 0; } __kernel void evil(__global int *p) { p[0] = 42; } int dummy(const int x) { return (x", ")",
     5},
    {"(*(__global int *)0x7f0000001000ul = 42, x > 3)", "*", 1},
    {"({ for (;;) {} 1; })", "{", 1},
    {"(*(__global int *)0 = 1, 1)", "*", 1},
    {"x > 3) ? 1 : 0; } int min(int a, int b) { return 0; } int f(int x) { return min(x, 0", ")", 5},
    {"x ? 1 : 0\n#define min max", "#", 10},
    /* Statements, assignment, side effects */
    {"x = 3", "=", 2},
    {"x += 1", "+=", 2},
    {"x <<= 1", "<<=", 2},
    {"x++ > 3", "++", 1},
    {"--x", "--", 0},
    {"x, 3", ",", 1},
    {"x > 3;", ";", 5},
    {"{ x }", "{", 0},
    {"(x > 3) { }", "{", 8},
    /* Pointers, address spaces, members, sizeof */
    {"*(&x) > 3", "*", 0},
    {"&x", "&", 0},
    {"x > *(__global int *)0", "*", 4},
    {"__global int *p", "__global", 0},
    {"x.lo > 3", ".", 1},
    {"x->s", "->", 1},
    {"x[0]", "[", 1},
    {"sizeof(x) > 3", "sizeof", 0},
    /* Names: only x, i, the listed functions and scalar casts */
    {"y > 3", "y", 0},
    {"printf(x)", "printf", 0},
    {"T > 3", "T", 0},
    {"value > 3", "value", 0},
    {"keep_expression(x, i)", "keep_expression", 0},
    {"clprim_div_int(x, 0)", "clprim_div_int", 0},
    {"as_int(x) > 3", "as_int", 0},
    {"(bool)x", "bool", 1},
    {"int > 3", "int", 0},
    {"sin > 3", "expected '(' but found '>' at 4", -1},
    /* Preprocessor, quotes, comments, stray characters */
    {"#define y 3", "#", 0},
    {"x > '3'", "'", 4},
    {"x > \"3\"", "\"", 4},
    {"x > \\\n 3", "\\", 4},
    {"x > 3 // comment", "//", 6},
    {"x > 3 /* c */", "/*", 6},
    {"x >\x01 3", "\\x01", 3},
    {"x > 3 @", "@", 6},
    /* Grammar */
    {"((x > 3)", "the end at 8", -1},
    {"x > 3)", ")", 5},
    {"x > 3 3", "3", 6},
    {"x > > 3", ">", 4},
    {"x ? 1", "expected ':' but found the end at 5", -1},
    {"(x)(3)", "(", 3},
    {"x %", "the end at 3", -1},
    /* Types, literals, functions */
    {"x % 2.5 == 1", "%", 2},
    {"1.5 << 2", "<<", 4},
    {"~1.5f", "~", 0},
    {"abs(1.5) > 1", "abs", 0},
    {"min(x) > 1", "expected ',' but found ')' at 5", -1},
    {"clamp(x, 1, 2, 3)", ",", 13},
    {"sqrt() > 1", ")", 5},
    {"1ll + x", "1ll", 0},
    {"08 > x", "08", 0},
    {"0x > x", "0x", 0},
    {"1.5e > x", "1.5e", 0},
    {"1.5fl > x", "1.5fl", 0},
    {"0x1p3 > x", "0x1p3", 0},
    {"x > 99999999999999999999", "99999999999999999999", 4},
    {"x > 9223372036854775808", "9223372036854775808", 4},
    /* Empty */
    {NULL, "is NULL", -1},
    {"", "is empty", -1},
    {"   \t ", "is empty", -1},
};
#define REFUSED_COUNT (sizeof refused / sizeof refused[0])

#define BAD(call, want, needle)                                                  \
    do {                                                                         \
        size_t kept = KEPT_UNSET;                                                \
        clprim_status got_ = (call);                                             \
        harness_assert_error(f.ctx, got_, want, needle);                         \
        expect_untouched(&f, kept, #call);                                       \
    } while (0)

START_TEST(compact_bad_arguments)
{
    const compaction_fn call = _i ? clprim_partition : clprim_compact;
    FOR_EACH_DEVICE(ctx)
    {
        bad_fixture f = {ctx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 512};
        f.dst_before = harness_malloc(4096);
        for (size_t i = 0; i < 4096; i++)
            f.dst_before[i] = (unsigned char)(i * 7 + 1);
        f.src = harness_buffer(ctx, 4096, f.dst_before);
        f.dst = harness_buffer(ctx, 4096, NULL);
        f.small = harness_buffer(ctx, 100, NULL);
        f.readonly = harness_buffer_flags(ctx, CL_MEM_READ_ONLY, 4096, NULL);
        f.flags = harness_buffer(ctx, 4096, NULL);
        f.kbuf = harness_buffer(ctx, 64, NULL);
        int32_t three = 3;
        const size_t n = f.n;
        clprim_predicate gt = {CLPRIM_KEEP_GT, &three, NULL, 0, NULL};

        /* ctx NULL: the thread's message. */
        ck_assert_int_eq(call(NULL, CLPRIM_INT32, &gt, f.src, 0, f.dst, 0, n, NULL, NULL, 0, 0, NULL, NULL),
                         CLPRIM_INVALID_ARGUMENT);
        ck_assert_ptr_nonnull(strcasestr(clprim_last_error(NULL), "ctx is NULL"));

        BAD(call(ctx, (clprim_type)99, &gt, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "unknown clprim_type");
        BAD(call(ctx, CLPRIM_INT32, NULL, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "keep (the predicate) is NULL");
        clprim_predicate p = {(clprim_keep)99, &three, NULL, 0, NULL};
        BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "unknown clprim_keep 99");
        p = (clprim_predicate){(clprim_keep)-1, &three, NULL, 0, NULL};
        BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "unknown clprim_keep");
        for (int k = CLPRIM_KEEP_LT; k <= CLPRIM_KEEP_NE; k++) {
            p = (clprim_predicate){(clprim_keep)k, NULL, NULL, 0, NULL};
            BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
                CLPRIM_INVALID_ARGUMENT, "keep->value is NULL");
        }
        p = (clprim_predicate){CLPRIM_KEEP_FLAGGED, NULL, NULL, 0, NULL};
        BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "keep->flags is NULL");
        p = (clprim_predicate){CLPRIM_KEEP_FLAGGED, NULL, f.small, 0, NULL};
        BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_BUFFER_TOO_SMALL, "keep->flags");
        p = (clprim_predicate){CLPRIM_KEEP_FLAGGED, NULL, f.flags, 4096 - n + 1, NULL};
        BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_BUFFER_TOO_SMALL, "keep->flags");
        /* flags inside the dst range of the same buffer */
        p = (clprim_predicate){CLPRIM_KEEP_FLAGGED, NULL, f.dst, 100, NULL};
        BAD(call(ctx, CLPRIM_UINT8, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "overlap");

        /* Expressions: every refusal names its token and position. */
        for (size_t k = 0; k < REFUSED_COUNT; k++) {
            const refused_expression *r = &refused[k];
            char needle[96];
            if (r->at >= 0)
                snprintf(needle, sizeof needle, "'%s' at %d", r->token, r->at);
            else
                snprintf(needle, sizeof needle, "%s", r->token);
            p = (clprim_predicate){CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, r->text};
            BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
                CLPRIM_INVALID_ARGUMENT, needle);
            ck_assert_msg(strstr(clprim_last_error(ctx), "keep->expression") != NULL, "%s", clprim_last_error(ctx));
            /* n == 0 parses too: the same refusal, nothing written. */
            BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, 0, &kept, f.kbuf, 0, 0, NULL, NULL),
                CLPRIM_INVALID_ARGUMENT, needle);
        }
        /* Generated: too long, nested too deeply (parentheses, unary operators,
         * and integer divisions, each written as a call). */
        char *text = harness_malloc(5000);
        const struct {
            const char *head, *unit, *tail;
            size_t units;
            const char *needle;
        } generated[] = {
            {"", "x", "", 4097, "4097 characters; the limit is 4096"},
            {"", "(", "x", 70, "nested more than 64 deep at '(' at 64"},
            {"", "!", "x", 100, "nested more than 64 deep at '!' at 63"},
            {"x", "/2", "", 200, "nests too deeply at '/' at 321"},
        };
        for (size_t k = 0; k < sizeof generated / sizeof generated[0]; k++) {
            strcpy(text, generated[k].head);
            for (size_t u = 0; u < generated[k].units; u++)
                strcat(text, generated[k].unit);
            strcat(text, generated[k].tail);
            p = (clprim_predicate){CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, text};
            BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
                CLPRIM_INVALID_ARGUMENT, generated[k].needle);
        }
        free(text);

        /* Buffers */
        BAD(call(ctx, CLPRIM_INT32, &gt, NULL, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "src is NULL");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.src, 0, NULL, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "dst is NULL");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.src, 0, f.small, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_BUFFER_TOO_SMALL, "dst");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.src, 1000, f.dst, 0, 100, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_BUFFER_TOO_SMALL, "src");
        BAD(call(ctx, CLPRIM_INT64, &gt, f.src, 0, f.dst, 1, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_BUFFER_TOO_SMALL, "dst");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.src, 0, f.readonly, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "READ_ONLY");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.src, SIZE_MAX, f.dst, 0, 2, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "overflows");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.dst, 0, f.dst, 10, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "overlap");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.src, 0, f.dst, 0, n, &kept, f.kbuf, 8, 0, NULL, NULL),
            CLPRIM_BUFFER_TOO_SMALL, "kept_buffer");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.src, 0, f.dst, 0, n, &kept, f.readonly, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "kept_buffer");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.src, 0, f.dst, 0, n, &kept, f.dst, 3, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "and dst bytes");
        BAD(call(ctx, CLPRIM_INT32, &gt, f.dst, 0, f.kbuf, 0, 2, &kept, f.dst, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "and src bytes");
        p = (clprim_predicate){CLPRIM_KEEP_FLAGGED, NULL, f.dst, 8, NULL};
        BAD(call(ctx, CLPRIM_INT32, &p, f.src, 0, f.kbuf, 0, 4, &kept, f.dst, 1, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "and keep->flags bytes");

        /* A buffer of another OpenCL context. */
        cl_int err;
        cl_device_id dev = clprim_device(ctx);
        cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 4096, NULL, &err);
        BAD(call(ctx, CLPRIM_INT32, &gt, foreign, 0, f.dst, 0, n, &kept, f.kbuf, 0, 0, NULL, NULL),
            CLPRIM_INVALID_ARGUMENT, "another OpenCL context");
        clReleaseMemObject(foreign);
        clReleaseContext(other);

        /* After failures, a good call works and clears the message. */
        size_t kept = 0;
        ck_assert_int_eq(call(ctx, CLPRIM_INT32, &gt, f.src, 0, f.dst, 0, n, &kept, NULL, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        ck_assert_str_eq(clprim_last_error(ctx), "");

        clReleaseMemObject(f.src);
        clReleaseMemObject(f.dst);
        clReleaseMemObject(f.small);
        clReleaseMemObject(f.readonly);
        clReleaseMemObject(f.flags);
        clReleaseMemObject(f.kbuf);
        free(f.dst_before);
    }
}
END_TEST

enum { COMPACT_GT, COMPACT_FLAGGED };

/* The call the table runs: clprim_compact, then clprim_partition. */
static compaction_fn bad_table_call;

/* buf: src, dst, kept_buffer, keep->flags; offsets alike. */
static clprim_status compact_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const int32_t zero = 0;
    clprim_predicate keep = {CLPRIM_KEEP_GT, &zero, NULL, 0, NULL};
    if (row->call == COMPACT_FLAGGED)
        keep = (clprim_predicate){CLPRIM_KEEP_FLAGGED, NULL, buf[3], row->offset[3], NULL};
    size_t kept;
    return bad_table_call(ctx, CLPRIM_INT32, &keep, buf[0], row->offset[0], buf[1], row->offset[1], row->n, &kept,
                          buf[2], row->offset[2], 0, NULL, NULL);
}
static const harness_bad_call compact_bad_calls[] = {
    {"dst a sub-buffer inside src", COMPACT_GT, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"src a sub-buffer inside dst", COMPACT_GT, 0, {HB_A_AT_ALIGN, HB_A}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"dst a sub-buffer at 0, shifted by one", COMPACT_GT, 0, {HB_A, HB_A_AT_0}, {0, 1}, 1024,
     CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"flags a sub-buffer inside dst", COMPACT_FLAGGED, 0, {HB_B, HB_A, HB_NULL, HB_A_AT_ALIGN}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "keep->flags"},
    {"kept_buffer a sub-buffer inside dst", COMPACT_GT, 0, {HB_B, HB_A, HB_A_AT_ALIGN}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "kept_buffer"},
    {"kept_buffer a sub-buffer inside src", COMPACT_GT, 0, {HB_A, HB_B, HB_A_AT_0}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "kept_buffer"},
    {"kept_buffer a sub-buffer inside flags", COMPACT_FLAGGED, 0, {HB_B, HB_B, HB_A_AT_0, HB_A}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "kept_buffer"},
    {"src an image object", COMPACT_GT, 0, {HB_IMAGE, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"dst an image object", COMPACT_GT, 0, {HB_A, HB_IMAGE}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"kept_buffer an image object", COMPACT_GT, 0, {HB_A, HB_B, HB_IMAGE}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "image object"},
    {"src CL_MEM_WRITE_ONLY", COMPACT_GT, 0, {HB_WRITE_ONLY, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_WRITE_ONLY"},
    {"flags CL_MEM_WRITE_ONLY", COMPACT_FLAGGED, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 16,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY"},
};

START_TEST(compact_bad_table)
{
    bad_table_call = _i ? clprim_partition : clprim_compact;
    harness_run_bad_calls(compact_bad_calls, sizeof compact_bad_calls / sizeof *compact_bad_calls, compact_bad_call);
}
END_TEST

/* clprim_partition_three_way's bad calls. buf: src, dst, counts_buffer and
 * the flags of whichever predicate is FLAGGED (THREE_FIRST_FLAGGED,
 * THREE_SECOND_FLAGGED); offsets alike. Else first is x > 0 and second x < 0,
 * unless the call names what is wrong with one. */
enum {
    THREE_GT,
    THREE_FIRST_FLAGGED,
    THREE_SECOND_FLAGGED,
    THREE_NULL_FIRST,
    THREE_NULL_SECOND,
    THREE_SECOND_UNKNOWN,
    THREE_SECOND_NO_VALUE,
    THREE_SECOND_NO_FLAGS,
    THREE_FIRST_REFUSED,
    THREE_SECOND_REFUSED,
};

static clprim_status three_way_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    const int32_t zero = 0;
    clprim_predicate first = {CLPRIM_KEEP_GT, &zero, NULL, 0, NULL}, second = {CLPRIM_KEEP_LT, &zero, NULL, 0, NULL};
    const clprim_predicate flagged = {CLPRIM_KEEP_FLAGGED, NULL, buf[3], row->offset[3], NULL};
    switch (row->call) {
    case THREE_FIRST_FLAGGED: first = flagged; break;
    case THREE_SECOND_FLAGGED: second = flagged; break;
    case THREE_SECOND_UNKNOWN: second.keep = (clprim_keep)99; break;
    case THREE_SECOND_NO_VALUE: second.value = NULL; break;
    case THREE_SECOND_NO_FLAGS: second = (clprim_predicate){CLPRIM_KEEP_FLAGGED, NULL, NULL, 0, NULL}; break;
    case THREE_FIRST_REFUSED: first = (clprim_predicate){CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, "x > 3;"}; break;
    case THREE_SECOND_REFUSED: second = (clprim_predicate){CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, "y < 2"}; break;
    default: break;
    }
    size_t first_count = KEPT_UNSET, second_count = KEPT_UNSET;
    const clprim_status s = clprim_partition_three_way(
        row->null_ctx ? NULL : ctx, row->type, row->call == THREE_NULL_FIRST ? NULL : &first,
        row->call == THREE_NULL_SECOND ? NULL : &second, buf[0], row->offset[0], buf[1], row->offset[1], row->n,
        &first_count, &second_count, buf[2], row->offset[2], 0, NULL, NULL);
    if (s != CLPRIM_SUCCESS)
        ck_assert_msg(first_count == KEPT_UNSET && second_count == KEPT_UNSET, "%s: a count was written", row->what);
    return s;
}

#define COUNTS_ROOM (HARNESS_BAD_BYTES / sizeof(cl_ulong)) /* cl_ulongs in a whole buffer */
static const harness_bad_call three_way_bad_calls[] = {
    {"ctx NULL", THREE_GT, 1, {HB_A, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"unknown type", THREE_GT, 0, {HB_A, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT, "unknown clprim_type",
     .type = (clprim_type)99},
    {"first NULL", THREE_NULL_FIRST, 0, {HB_A, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "first (the predicate) is NULL"},
    {"second NULL", THREE_NULL_SECOND, 0, {HB_A, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "second (the predicate) is NULL"},
    {"second of an unknown kind", THREE_SECOND_UNKNOWN, 0, {HB_A, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "unknown clprim_keep 99 in second->keep"},
    {"second a comparison without a value", THREE_SECOND_NO_VALUE, 0, {HB_A, HB_B}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "second->value is NULL"},
    {"second FLAGGED without flags", THREE_SECOND_NO_FLAGS, 0, {HB_A, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "second->flags is NULL"},
    {"second's flags too short", THREE_SECOND_FLAGGED, 0, {HB_A, HB_B, HB_NULL, HB_B}, {0, 0, 0, 65000}, 1024,
     CLPRIM_BUFFER_TOO_SMALL, "second->flags"},
    {"second's flags CL_MEM_WRITE_ONLY", THREE_SECOND_FLAGGED, 0, {HB_A, HB_B, HB_NULL, HB_WRITE_ONLY}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY", .also = "second->flags"},
    {"second's flags a sub-buffer inside dst", THREE_SECOND_FLAGGED, 0, {HB_B, HB_A, HB_NULL, HB_A_AT_ALIGN}, {0},
     1024, CLPRIM_INVALID_ARGUMENT, "second->flags"},
    {"first's flags a sub-buffer inside dst", THREE_FIRST_FLAGGED, 0, {HB_B, HB_A, HB_NULL, HB_A_AT_ALIGN}, {0},
     1024, CLPRIM_INVALID_ARGUMENT, "first->flags"},
    {"first's expression refused", THREE_FIRST_REFUSED, 0, {HB_A, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "first->expression", .also = "';' at 5"},
    {"second's expression refused", THREE_SECOND_REFUSED, 0, {HB_A, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "second->expression", .also = "'y' at 0"},
    {"second's expression refused at n == 0", THREE_SECOND_REFUSED, 0, {HB_A, HB_B, HB_B}, {0}, 0,
     CLPRIM_INVALID_ARGUMENT, "second->expression"},
    {"src NULL", THREE_GT, 0, {HB_NULL, HB_B}, {0}, 1024, CLPRIM_INVALID_ARGUMENT, "src is NULL"},
    {"dst NULL", THREE_GT, 0, {HB_A, HB_NULL}, {0}, 1024, CLPRIM_INVALID_ARGUMENT, "dst is NULL"},
    {"dst too short", THREE_GT, 0, {HB_A, HB_B}, {0, 16000}, 1024, CLPRIM_BUFFER_TOO_SMALL, "dst"},
    {"src an image object", THREE_GT, 0, {HB_IMAGE, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT, "image object"},
    {"src of another OpenCL context", THREE_GT, 0, {HB_FOREIGN, HB_B}, {0}, 16, CLPRIM_INVALID_ARGUMENT,
     "another OpenCL context"},
    {"src and dst overlapping", THREE_GT, 0, {HB_A, HB_A}, {0, 10}, 1024, CLPRIM_INVALID_ARGUMENT, "overlap"},
    {"dst a sub-buffer inside src", THREE_GT, 0, {HB_A, HB_A_AT_ALIGN}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "sub-buffer"},
    {"counts_buffer with room for one count", THREE_GT, 0, {HB_A, HB_B, HB_B}, {0, 0, COUNTS_ROOM - 1}, 16,
     CLPRIM_BUFFER_TOO_SMALL, "counts_buffer"},
    {"counts_buffer CL_MEM_READ_ONLY", THREE_GT, 0, {HB_A, HB_B, HB_READ_ONLY}, {0}, 1024, CLPRIM_INVALID_ARGUMENT,
     "counts_buffer"},
    {"counts_buffer a sub-buffer inside dst", THREE_GT, 0, {HB_B, HB_A, HB_A_AT_ALIGN}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "counts_buffer"},
    {"counts_buffer a sub-buffer inside src", THREE_GT, 0, {HB_A, HB_B, HB_A_AT_0}, {0}, 1024,
     CLPRIM_INVALID_ARGUMENT, "counts_buffer"},
    {"counts_buffer a sub-buffer inside second's flags", THREE_SECOND_FLAGGED, 0, {HB_B, HB_B, HB_A_AT_0, HB_A},
     {0}, 1024, CLPRIM_INVALID_ARGUMENT, "counts_buffer", .also = "second->flags"},
};

START_TEST(partition_three_way_bad_table)
{
    harness_run_bad_calls(three_way_bad_calls, sizeof three_way_bad_calls / sizeof *three_way_bad_calls,
                          three_way_bad_call);
}
END_TEST

static Suite *compact_suite(void)
{
    Suite *s = suite_create("compact");
    TCase *tc = tcase_create("correctness");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, compact_every_predicate, CLPRIM_INT32, CLPRIM_UINT8 + 1);
    tcase_add_loop_test(tc, partition_every_predicate, CLPRIM_INT32, CLPRIM_UINT8 + 1);
    tcase_add_loop_test(tc, compact_sizes, 0, 4);
    tcase_add_loop_test(tc, compact_patterns, 0, 4);
    tcase_add_loop_test(tc, compact_in_place, CLPRIM_INT32, CLPRIM_UINT8 + 1);
    tcase_add_test(tc, compact_large_odd);
    tcase_add_test(tc, compact_forms_same_bits);
    tcase_add_test(tc, compact_shapes);
    tcase_add_test(tc, compact_float_specials);
    tcase_add_test(tc, compact_count_modes);
    tcase_add_test(tc, compact_shared_buffers);
    tcase_add_test(tc, compact_expression_cache);
    tcase_add_test(tc, compact_events);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad arguments");
    tcase_add_loop_test(bad, compact_bad_arguments, 0, 2);
    tcase_add_loop_test(bad, compact_bad_table, 0, 2);
    suite_add_tcase(s, bad);
    TCase *three = tcase_create("three-way");
    tcase_set_timeout(three, 900);
    tcase_add_loop_test(three, partition_three_way_pairs, 0, THREE_WAY_PAIRS);
    tcase_add_test(three, partition_one_launch);
    tcase_add_test(three, partition_three_way_bad_table);
    suite_add_tcase(s, three);
    return s;
}

int main(void)
{
    return harness_run(compact_suite());
}
