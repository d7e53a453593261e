/* CPU references: see reference.h. */
#include "reference.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
    uint8_t u8;
} elem;

size_t reference_type_size(clprim_type t)
{
    switch (t) {
    case CLPRIM_INT32:
    case CLPRIM_UINT32:
    case CLPRIM_FLOAT:
        return 4;
    case CLPRIM_INT64:
    case CLPRIM_UINT64:
    case CLPRIM_DOUBLE:
        return 8;
    case CLPRIM_UINT8:
        return 1;
    }
    return 0;
}

const char *reference_type_name(clprim_type t)
{
    static const char *names[] = {"int32", "uint32", "int64", "uint64", "float", "double", "uint8"};
    return (unsigned)t < REFERENCE_TYPE_COUNT ? names[t] : "unknown-type";
}

int reference_type_from_name(const char *name, clprim_type *t)
{
    for (int i = 0; i < REFERENCE_TYPE_COUNT; i++)
        if (!strcmp(name, reference_type_name((clprim_type)i)))
            return *t = (clprim_type)i, 1;
    return 0;
}

const char *reference_op_name(clprim_op op)
{
    static const char *names[] = {"sum", "min", "max"};
    return (unsigned)op < REFERENCE_OP_COUNT ? names[op] : "unknown-op";
}

int reference_type_is_float(clprim_type t)
{
    return t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE;
}

static elem load(clprim_type t, const void *p, size_t i)
{
    elem e = {0}; /* a type narrower than the union fills only its first bytes */
    memcpy(&e, (const char *)p + i * reference_type_size(t), reference_type_size(t));
    return e;
}

static void store(clprim_type t, void *p, size_t i, elem e)
{
    memcpy((char *)p + i * reference_type_size(t), &e, reference_type_size(t));
}

/* What combining no element gives: 0 for SUM, the type's highest value for MIN,
 * its lowest for MAX (+-infinity for floats). */
static elem empty_result(clprim_type t, clprim_op op)
{
    elem e;
    memset(&e, 0, sizeof e);
    if (op == CLPRIM_SUM)
        return e;
    int lo = op == CLPRIM_MAX;
    switch (t) {
    case CLPRIM_INT32: e.i32 = lo ? INT32_MIN : INT32_MAX; break;
    case CLPRIM_UINT32: e.u32 = lo ? 0 : UINT32_MAX; break;
    case CLPRIM_INT64: e.i64 = lo ? INT64_MIN : INT64_MAX; break;
    case CLPRIM_UINT64: e.u64 = lo ? 0 : UINT64_MAX; break;
    case CLPRIM_FLOAT: e.f = lo ? -INFINITY : INFINITY; break;
    case CLPRIM_DOUBLE: e.d = lo ? -INFINITY : INFINITY; break;
    case CLPRIM_UINT8: e.u8 = lo ? 0 : UINT8_MAX; break;
    }
    return e;
}

#define PICK(a, b) (op == CLPRIM_SUM ? 0 : op == CLPRIM_MIN ? ((b) < (a)) : ((b) > (a)))

static elem combine(clprim_type t, clprim_op op, elem a, elem b)
{
    elem r = a;
    switch (t) {
    case CLPRIM_INT32:
        if (op == CLPRIM_SUM)
            r.u32 = a.u32 + b.u32; /* wraps; the bits are those of the int32 sum */
        else if (PICK(a.i32, b.i32))
            r = b;
        break;
    case CLPRIM_UINT32:
        if (op == CLPRIM_SUM)
            r.u32 = a.u32 + b.u32;
        else if (PICK(a.u32, b.u32))
            r = b;
        break;
    case CLPRIM_INT64:
        if (op == CLPRIM_SUM)
            r.u64 = a.u64 + b.u64;
        else if (PICK(a.i64, b.i64))
            r = b;
        break;
    case CLPRIM_UINT64:
        if (op == CLPRIM_SUM)
            r.u64 = a.u64 + b.u64;
        else if (PICK(a.u64, b.u64))
            r = b;
        break;
    case CLPRIM_UINT8:
        if (op == CLPRIM_SUM)
            r.u8 = (uint8_t)(a.u8 + b.u8);
        else if (PICK(a.u8, b.u8))
            r = b;
        break;
    case CLPRIM_FLOAT:
        r.f = op == CLPRIM_SUM ? a.f + b.f : op == CLPRIM_MIN ? fminf(a.f, b.f) : fmaxf(a.f, b.f);
        break;
    case CLPRIM_DOUBLE:
        r.d = op == CLPRIM_SUM ? a.d + b.d : op == CLPRIM_MIN ? fmin(a.d, b.d) : fmax(a.d, b.d);
        break;
    }
    return r;
}

/* The combination of elements [0, i] from that of [0, i): the first element
 * itself, then combine. Starting from the first element rather than from an
 * identity is C's own fold: fmin over NaN alone is NaN. */
static elem accumulate(clprim_type t, clprim_op op, elem acc, size_t i, elem x)
{
    return i == 0 ? x : combine(t, op, acc, x);
}

void reference_empty_result(clprim_type t, clprim_op op, void *out)
{
    store(t, out, 0, empty_result(t, op));
}

void reference_combine(clprim_type t, clprim_op op, void *acc, const void *x)
{
    store(t, acc, 0, combine(t, op, load(t, acc, 0), load(t, x, 0)));
}

/* b is strictly better than a, with NaN losing to any number. */
static int better(clprim_type t, int max, const void *b, const void *a)
{
#define BETTER_AS(C)                                                                                          \
    do {                                                                                                      \
        const C x = *(const C *)b, y = *(const C *)a;                                                         \
        return max ? x > y : x < y;                                                                           \
    } while (0)
    switch (t) {
    case CLPRIM_INT32: BETTER_AS(int32_t);
    case CLPRIM_UINT32: BETTER_AS(uint32_t);
    case CLPRIM_INT64: BETTER_AS(int64_t);
    case CLPRIM_UINT64: BETTER_AS(uint64_t);
    case CLPRIM_UINT8: BETTER_AS(uint8_t);
    case CLPRIM_FLOAT: {
        const float x = *(const float *)b, y = *(const float *)a;
        return (max ? x > y : x < y) || (isnan(y) && !isnan(x));
    }
    case CLPRIM_DOUBLE: {
        const double x = *(const double *)b, y = *(const double *)a;
        return (max ? x > y : x < y) || (isnan(y) && !isnan(x));
    }
    }
#undef BETTER_AS
    return 0;
}

size_t reference_best_index(clprim_type t, int max, const void *src, size_t n)
{
    const size_t es = reference_type_size(t);
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (better(t, max, (const char *)src + i * es, (const char *)src + best * es))
            best = i;
    return best;
}

void reference_scan(clprim_type t, clprim_op op, int exclusive, const void *src, void *dst, size_t n)
{
    elem acc = empty_result(t, op);
    for (size_t i = 0; i < n; i++) {
        elem x = load(t, src, i); /* before the store: src may be dst */
        if (exclusive)
            store(t, dst, i, acc);
        acc = accumulate(t, op, acc, i, x);
        if (!exclusive)
            store(t, dst, i, acc);
    }
}

void reference_reduce(clprim_type t, clprim_op op, const void *src, size_t n, void *result)
{
    elem acc = empty_result(t, op);
    for (size_t i = 0; i < n; i++)
        acc = accumulate(t, op, acc, i, load(t, src, i));
    store(t, result, 0, acc);
}

static long double as_long_double(clprim_type t, elem e)
{
    return t == CLPRIM_FLOAT ? (long double)e.f : (long double)e.d;
}

void reference_float_prefix(clprim_type t, int exclusive, const void *src, size_t n, long double *sum,
                            long double *abs_sum)
{
    long double s = 0, a = 0;
    for (size_t i = 0; i < n; i++) {
        long double x = as_long_double(t, load(t, src, i));
        if (exclusive) {
            if (sum)
                sum[i] = s;
            if (abs_sum)
                abs_sum[i] = a;
        }
        s += x;
        a += fabsl(x);
        if (!exclusive) {
            if (sum)
                sum[i] = s;
            if (abs_sum)
                abs_sum[i] = a;
        }
    }
}

/* gamma_k = k u / (1 - k u) with u the unit roundoff of the device's type, plus the
 * same for the long double accumulation of the reference (tiny, but honest), plus
 * one smallest normal for any flush of subnormal intermediate results to zero. */
long double reference_sum_bound(clprim_type t, size_t terms, long double abs_sum)
{
    long double u = t == CLPRIM_FLOAT ? (long double)FLT_EPSILON / 2 : (long double)DBL_EPSILON / 2;
    long double tiny = t == CLPRIM_FLOAT ? (long double)FLT_MIN : (long double)DBL_MIN;
    long double ku = (long double)terms * u;
    if (ku >= 1)
        return INFINITY;
    long double kr = (long double)terms * (LDBL_EPSILON / 2);
    return ku / (1 - ku) * abs_sum + kr / (1 - kr) * abs_sum + (long double)terms * tiny;
}

void reference_format(clprim_type t, const void *x, char *buf, size_t size)
{
    elem e = load(t, x, 0);
    switch (t) {
    case CLPRIM_INT32: snprintf(buf, size, "%" PRId32, e.i32); break;
    case CLPRIM_UINT32: snprintf(buf, size, "%" PRIu32, e.u32); break;
    case CLPRIM_INT64: snprintf(buf, size, "%" PRId64, e.i64); break;
    case CLPRIM_UINT64: snprintf(buf, size, "%" PRIu64, e.u64); break;
    case CLPRIM_UINT8: snprintf(buf, size, "%u", (unsigned)e.u8); break;
    case CLPRIM_FLOAT: snprintf(buf, size, "%.9g", (double)e.f); break;
    case CLPRIM_DOUBLE: snprintf(buf, size, "%.17g", e.d); break;
    default: snprintf(buf, size, "?"); break;
    }
}

/* Exact match: same bits for integers; for floats equal (0 == -0) or both NaN. */
static int same(clprim_type t, elem a, elem b)
{
    switch (t) {
    case CLPRIM_FLOAT: return a.f == b.f || (isnan(a.f) && isnan(b.f));
    case CLPRIM_DOUBLE: return a.d == b.d || (isnan(a.d) && isnan(b.d));
    default: return memcmp(&a, &b, reference_type_size(t)) == 0;
    }
}

static void describe(char *msg, size_t msg_size, clprim_type t, clprim_op op, int exclusive, size_t i, size_t n,
                     elem got, elem want, const char *extra)
{
    if (!msg || !msg_size)
        return;
    char g[64], w[64];
    reference_format(t, &got, g, sizeof g);
    reference_format(t, &want, w, sizeof w);
    if (exclusive < 0)
        snprintf(msg, msg_size, "%s %s reduce of %zu elements: got %s, want %s%s", reference_type_name(t),
                 reference_op_name(op), n, g, w, extra ? extra : "");
    else
        snprintf(msg, msg_size, "%s %s %s scan: element %zu of %zu: got %s, want %s%s", reference_type_name(t),
                 reference_op_name(op), exclusive ? "exclusive" : "inclusive", i, n, g, w, extra ? extra : "");
}

/* Checks one float sum against the long double exact value within the bound. */
static int sum_ok(clprim_type t, elem got, long double exact, long double abs_sum, size_t terms, char *extra,
                  size_t extra_size)
{
    long double g = as_long_double(t, got);
    long double bound = reference_sum_bound(t, terms, abs_sum);
    long double err = fabsl(g - exact);
    if (!isnan(g) && err <= bound)
        return 1;
    snprintf(extra, extra_size, " (exact %.21Lg, error %.3Lg > bound %.3Lg for %zu terms, sum|x| = %.6Lg)", exact,
             err, bound, terms, abs_sum);
    return 0;
}

/* In place, the inclusive Hillis-Steele scan of v[0, wg), as the work-group's
 * (cl/block/reduce_scan.cl): place l takes v[l - offset] + v[l] each step. */
#define DEFINE_TREE_SCAN(NAME, R)                                                                 \
    static void NAME(R *v, R *spare, size_t wg)                                                   \
    {                                                                                             \
        for (size_t offset = 1; offset < wg; offset <<= 1) {                                      \
            for (size_t l = 0; l < wg; l++)                                                       \
                spare[l] = l >= offset ? v[l - offset] + v[l] : v[l];                             \
            memcpy(v, spare, wg * sizeof *v);                                                     \
        }                                                                                         \
    }

/* In place, the order-keeping pairwise tree over v[0, wg), as the work-group's
 * (DEFINE_WG_REDUCE_IN_ORDER): returns the combination, left in v[0]. */
#define DEFINE_TREE_REDUCE(NAME, R)                                                               \
    static R NAME(R *v, size_t wg)                                                                \
    {                                                                                             \
        for (size_t stride = 1; stride < wg; stride <<= 1)                                        \
            for (size_t i = 0; i + stride < wg; i += 2 * stride)                                  \
                v[i] = v[i] + v[i + stride];                                                      \
        return v[0];                                                                              \
    }

#define DEFINE_ONE_SWEEP_SUM(NAME, R, TREE, GROUP_TREE)                                           \
    DEFINE_TREE_SCAN(TREE, R)                                                                     \
    DEFINE_TREE_REDUCE(GROUP_TREE, R)                                                             \
    static void NAME(int exclusive, size_t wg, size_t items, const R *src, R *dst, size_t n)      \
    {                                                                                             \
        const size_t tile = wg * items;                                                           \
        R *runs = calloc(wg, sizeof *runs), *totals = calloc(wg, sizeof *totals),                 \
          *tree = calloc(wg, sizeof *tree), *spare = calloc(wg, sizeof *spare);                   \
        if (!runs || !totals || !tree || !spare)                                                  \
            abort();                                                                              \
        R group = 0; /* P(g): the groups before this tile's */                                   \
        for (size_t u = 0, base = 0; base < n; u++, base += tile) {                               \
            const size_t end = base + tile < n ? base + tile : n, r = u % wg;                     \
            R total = 0;                                                                          \
            if (wg == 1) {                                                                        \
                for (size_t i = base; i < end; i++)                                               \
                    total += src[i];                                                              \
            } else {                                                                              \
                for (size_t l = 0; l < wg; l++) {                                                 \
                    R run = 0;                                                                    \
                    for (size_t k = 0; k < items; k++)                                            \
                        run += base + l * items + k < n ? src[base + l * items + k] : 0;          \
                    runs[l] = run;                                                                \
                }                                                                                 \
                TREE(runs, spare, wg);                                                            \
                total = runs[wg - 1];                                                             \
            }                                                                                     \
            /* The group's tree: the totals before this tile, then 0. */                          \
            totals[r] = total;                                                                    \
            for (size_t l = 0; l < wg; l++)                                                       \
                tree[l] = l < r ? totals[l] : 0;                                                  \
            const R carry = group + GROUP_TREE(tree, wg);                                         \
            if (r == wg - 1)                                                                      \
                group = carry + total;                                                            \
            if (wg == 1) { /* scan_run: four elements a step, each put after the carry */         \
                R run = src[base];                                                                \
                dst[base] = exclusive ? carry : carry + run;                                      \
                size_t i = base + 1;                                                              \
                for (; i + 4 <= end; i += 4) {                                                    \
                    const R x01 = src[i] + src[i + 1];                                            \
                    const R r0 = run + src[i], r1 = run + x01, r2 = run + (x01 + src[i + 2]),     \
                            r3 = run + (x01 + (src[i + 2] + src[i + 3]));                         \
                    dst[i] = carry + (exclusive ? run : r0);                                      \
                    dst[i + 1] = carry + (exclusive ? r0 : r1);                                   \
                    dst[i + 2] = carry + (exclusive ? r1 : r2);                                   \
                    dst[i + 3] = carry + (exclusive ? r2 : r3);                                   \
                    run = r3;                                                                     \
                }                                                                                 \
                for (; i < end; i++) {                                                            \
                    const R inclusive = run + src[i];                                             \
                    dst[i] = carry + (exclusive ? run : inclusive);                               \
                    run = inclusive;                                                              \
                }                                                                                 \
            } else { /* rescan_items from the carry and the work-items before */                  \
                for (size_t l = 0; l < wg; l++) {                                                 \
                    R run = carry + (l > 0 ? runs[l - 1] : 0);                                    \
                    for (size_t k = 0, i = base + l * items; k < items && i < end; k++, i++) {    \
                        const R inclusive = run + src[i];                                         \
                        dst[i] = exclusive ? run : inclusive;                                     \
                        run = inclusive;                                                          \
                    }                                                                             \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
        if (exclusive && n > 0)                                                                   \
            dst[0] = 0;                                                                           \
        free(runs);                                                                               \
        free(totals);                                                                             \
        free(tree);                                                                               \
        free(spare);                                                                              \
    }

DEFINE_ONE_SWEEP_SUM(one_sweep_sum_float, float, tree_scan_float, tree_reduce_float)
DEFINE_ONE_SWEEP_SUM(one_sweep_sum_double, double, tree_scan_double, tree_reduce_double)

void reference_scan_one_sweep_sum(clprim_type t, int exclusive, size_t wg, size_t items, const void *src, void *dst,
                                  size_t n)
{
    if (t == CLPRIM_FLOAT)
        one_sweep_sum_float(exclusive, wg, items, src, dst, n);
    else
        one_sweep_sum_double(exclusive, wg, items, src, dst, n);
}

size_t reference_check_scan(clprim_type t, clprim_op op, int exclusive, const void *src, const void *got, size_t n,
                            char *msg, size_t msg_size)
{
    char extra[256] = "";
    if (msg && msg_size)
        msg[0] = '\0';
    if (reference_type_is_float(t) && op == CLPRIM_SUM) {
        long double s = 0, a = 0;
        for (size_t i = 0; i < n; i++) {
            long double x = as_long_double(t, load(t, src, i));
            if (!exclusive) {
                s += x;
                a += fabsl(x);
            }
            elem g = load(t, got, i);
            size_t terms = exclusive ? i : i + 1;
            if (!sum_ok(t, g, s, a, terms, extra, sizeof extra)) {
                elem w;
                if (t == CLPRIM_FLOAT)
                    w.f = (float)s;
                else
                    w.d = (double)s;
                describe(msg, msg_size, t, op, exclusive, i, n, g, w, extra);
                return i;
            }
            if (exclusive) {
                s += x;
                a += fabsl(x);
            }
        }
        return n;
    }
    elem acc = empty_result(t, op);
    for (size_t i = 0; i < n; i++) {
        elem x = load(t, src, i);
        if (!exclusive)
            acc = accumulate(t, op, acc, i, x);
        elem g = load(t, got, i);
        if (!same(t, g, acc)) {
            describe(msg, msg_size, t, op, exclusive, i, n, g, acc, NULL);
            return i;
        }
        if (exclusive)
            acc = accumulate(t, op, acc, i, x);
    }
    return n;
}

int reference_check_reduce(clprim_type t, clprim_op op, const void *src, size_t n, const void *got, char *msg,
                           size_t msg_size)
{
    char extra[256] = "";
    if (msg && msg_size)
        msg[0] = '\0';
    elem g = load(t, got, 0);
    if (reference_type_is_float(t) && op == CLPRIM_SUM) {
        long double s = 0, a = 0;
        for (size_t i = 0; i < n; i++) {
            long double x = as_long_double(t, load(t, src, i));
            s += x;
            a += fabsl(x);
        }
        if (sum_ok(t, g, s, a, n, extra, sizeof extra))
            return 1;
        elem w;
        if (t == CLPRIM_FLOAT)
            w.f = (float)s;
        else
            w.d = (double)s;
        describe(msg, msg_size, t, op, -1, 0, n, g, w, extra);
        return 0;
    }
    elem want;
    reference_reduce(t, op, src, n, &want);
    if (same(t, g, want))
        return 1;
    describe(msg, msg_size, t, op, -1, 0, n, g, want, NULL);
    return 0;
}

static int same_key(clprim_type kt, const void *keys, size_t i, size_t j)
{
    if (kt == CLPRIM_INT64 || kt == CLPRIM_UINT64)
        return ((const uint64_t *)keys)[i] == ((const uint64_t *)keys)[j];
    return ((const uint32_t *)keys)[i] == ((const uint32_t *)keys)[j];
}

void reference_scan_by_key(clprim_type key_type, const void *keys, clprim_type t, clprim_op op, reference_fold fold,
                           const void *identity, int exclusive, const void *src_v, void *dst_v, size_t n)
{
    const unsigned char *src = src_v;
    unsigned char *dst = dst_v;
    const size_t es = reference_type_size(t);
    unsigned char acc[8] = {0}, empty[8];
    if (fold)
        memcpy(empty, identity, es);
    else
        reference_empty_result(t, op, empty);
    for (size_t i = 0; i < n; i++) {
        const int head = i == 0 || !same_key(key_type, keys, i, i - 1);
        if (exclusive)
            memcpy(dst + i * es, head ? empty : acc, es);
        if (head)
            memcpy(acc, src + i * es, es);
        else if (fold)
            fold(acc, src + i * es);
        else
            reference_combine(t, op, acc, src + i * es);
        if (!exclusive)
            memcpy(dst + i * es, acc, es);
    }
}

/* [seed, src[0], ..., src[n - 1]] in a new block (abort()s when out of memory). */
static unsigned char *seeded_input(clprim_type t, const void *seed, const void *src, size_t n)
{
    const size_t es = reference_type_size(t);
    unsigned char *all = malloc((n + 1) * es);
    if (!all)
        abort();
    memcpy(all, seed, es);
    memcpy(all + es, src, n * es);
    return all;
}

void reference_scan_seeded(clprim_type t, clprim_op op, reference_fold fold, int exclusive, const void *seed,
                           const void *src, void *dst, size_t n)
{
    const size_t es = reference_type_size(t);
    unsigned char *all = seeded_input(t, seed, src, n);
    if (fold) {
        /* One segment: scan by key with equal keys is the operator's scan. */
        uint32_t *keys = calloc(n + 1, sizeof *keys);
        if (!keys)
            abort();
        reference_scan_by_key(CLPRIM_UINT32, keys, t, op, fold, seed, 0, all, all, n + 1);
        free(keys);
    } else {
        reference_scan(t, op, 0, all, all, n + 1);
    }
    memcpy(dst, all + (exclusive ? 0 : es), n * es);
    free(all);
}

size_t reference_check_scan_seeded(clprim_type t, clprim_op op, int exclusive, const void *seed, const void *src,
                                   const void *got, size_t n, char *msg, size_t msg_size)
{
    unsigned char *all = seeded_input(t, seed, src, n);
    size_t bad;
    if (exclusive) {
        /* got[i] is element i of the inclusive scan of all. */
        bad = reference_check_scan(t, op, 0, all, got, n, msg, msg_size);
    } else {
        unsigned char *with_seed = seeded_input(t, seed, got, n);
        bad = reference_check_scan(t, op, 0, all, with_seed, n + 1, msg, msg_size);
        bad = bad == n + 1 ? n : bad - 1;
        free(with_seed);
    }
    free(all);
    return bad;
}

void reference_mul_u32(void *acc, const void *x)
{
    *(uint32_t *)acc *= *(const uint32_t *)x;
}

void reference_affine_u64(void *acc, const void *x)
{
    const uint64_t a = *(uint64_t *)acc, b = *(const uint64_t *)x;
    const uint32_t m = (uint32_t)(a >> 32) * (uint32_t)(b >> 32);
    const uint32_t c = (uint32_t)a * (uint32_t)(b >> 32) + (uint32_t)b;
    *(uint64_t *)acc = (uint64_t)m << 32 | c;
}

size_t reference_runs(clprim_type key_type, const void *keys_v, clprim_type t, clprim_op op, const void *vals,
                      size_t n, void *keys_out_v, void *vals_out_v, uint64_t *lengths, int first_key)
{
    const unsigned char *keys = keys_v;
    unsigned char *keys_out = keys_out_v, *vals_out = vals_out_v;
    const size_t ks = reference_type_size(key_type), es = reference_type_size(t);
    unsigned char *scanned = malloc(n * es + 1);
    if (!scanned)
        abort();
    if (vals)
        reference_scan_by_key(key_type, keys, t, op, NULL, NULL, 0, vals, scanned, n);
    size_t runs = 0, start = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && !memcmp(keys + i * ks, keys + (i + 1) * ks, ks))
            continue;
        memcpy(keys_out + runs * ks, keys + (first_key ? start : i) * ks, ks);
        if (vals)
            memcpy(vals_out + runs * es, scanned + i * es, es);
        if (lengths)
            lengths[runs] = i + 1 - start;
        runs++;
        start = i + 1;
    }
    free(scanned);
    return runs;
}
