/* CPU references for compaction and histograms (see the header). Integer bins
 * use 128-bit integers, an independent route from the library's 64-bit
 * sign-and-magnitude arithmetic; float bins repeat the kernels' operations one by
 * one in the element type (built with -ffp-contract=off; there is no a*b+c to
 * fuse anyway). */
#include "reference_compact_histogram.h"
#include "reference.h"

#include <math.h>
#include <string.h>

typedef __int128 wide;

/* -1, 0, 1 for x <, ==, > v in the element type; 2 when unordered (NaN). */
static int compare(clprim_type t, const void *x, const void *v)
{
#define CMP(T)                                   \
    do {                                         \
        T a, b;                                  \
        memcpy(&a, x, sizeof a);                 \
        memcpy(&b, v, sizeof b);                 \
        if (a < b)                               \
            return -1;                           \
        if (a > b)                               \
            return 1;                            \
        if (a == b)                              \
            return 0;                            \
        return 2;                                \
    } while (0)
    switch (t) {
    case CLPRIM_INT32: CMP(int32_t);
    case CLPRIM_UINT32: CMP(uint32_t);
    case CLPRIM_INT64: CMP(int64_t);
    case CLPRIM_UINT64: CMP(uint64_t);
    case CLPRIM_FLOAT: CMP(float);
    case CLPRIM_DOUBLE: CMP(double);
    case CLPRIM_UINT8: CMP(uint8_t);
    }
#undef CMP
    return 2;
}

static size_t size_of(clprim_type t)
{
    switch (t) {
    case CLPRIM_INT32: case CLPRIM_UINT32: case CLPRIM_FLOAT: return 4;
    case CLPRIM_INT64: case CLPRIM_UINT64: case CLPRIM_DOUBLE: return 8;
    case CLPRIM_UINT8: return 1;
    }
    return 0;
}

int reference_keeps(clprim_type t, clprim_keep keep, const void *value, const unsigned char *flags,
                    reference_keep_fn fn, const void *x, uint64_t i)
{
    static const unsigned char zero[8] = {0};
    int c;
    switch (keep) {
    case CLPRIM_KEEP_LT: return compare(t, x, value) == -1;
    case CLPRIM_KEEP_LE: c = compare(t, x, value); return c == -1 || c == 0;
    case CLPRIM_KEEP_GT: return compare(t, x, value) == 1;
    case CLPRIM_KEEP_GE: c = compare(t, x, value); return c == 1 || c == 0;
    case CLPRIM_KEEP_EQ: return compare(t, x, value) == 0;
    case CLPRIM_KEEP_NE: return compare(t, x, value) != 0; /* NaN != anything */
    case CLPRIM_KEEP_NONZERO: return compare(t, x, zero) != 0; /* -0.0 == 0 */
    case CLPRIM_KEEP_FLAGGED: return flags[i] != 0;
    case CLPRIM_KEEP_EXPRESSION: return fn(t, x, i) != 0;
    }
    return 0;
}

size_t reference_compact(clprim_type t, clprim_keep keep, const void *value, const unsigned char *flags,
                         reference_keep_fn fn, const void *src, size_t n, void *dst)
{
    const size_t es = size_of(t);
    const unsigned char *in = src;
    unsigned char *out = dst;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (reference_keeps(t, keep, value, flags, fn, in + i * es, i))
            memcpy(out + kept++ * es, in + i * es, es);
    return kept;
}

size_t reference_partition(clprim_type t, clprim_keep keep, const void *value, const unsigned char *flags,
                           reference_keep_fn fn, const void *src, size_t n, void *dst)
{
    const size_t es = size_of(t), kept = reference_compact(t, keep, value, flags, fn, src, n, dst);
    const unsigned char *in = src;
    unsigned char *out = (unsigned char *)dst + kept * es;
    for (size_t i = 0; i < n; i++)
        if (!reference_keeps(t, keep, value, flags, fn, in + i * es, i))
            memcpy(out, in + i * es, es), out += es;
    return kept;
}

size_t reference_partition_three_way(clprim_type t, const reference_predicate *first,
                                     const reference_predicate *second, const void *src, size_t n, void *dst,
                                     size_t *second_count)
{
    const size_t es = size_of(t);
    const unsigned char *in = src;
    unsigned char *out = dst;
    size_t counts[3] = {0, 0, 0};
    for (int part = 0; part < 3; part++)
        for (size_t i = 0; i < n; i++) {
            const void *x = in + i * es;
            const int a = reference_keeps(t, first->keep, first->value, first->flags, first->fn, x, i);
            const int b = reference_keeps(t, second->keep, second->value, second->flags, second->fn, x, i);
            if ((a ? 0 : b ? 1 : 2) == part)
                memcpy(out, x, es), out += es, counts[part]++;
        }
    *second_count = counts[1];
    return counts[0];
}

static wide integer_value(clprim_type t, const void *x)
{
    switch (t) {
    case CLPRIM_INT32: { int32_t v; memcpy(&v, x, 4); return v; }
    case CLPRIM_UINT32: { uint32_t v; memcpy(&v, x, 4); return v; }
    case CLPRIM_INT64: { int64_t v; memcpy(&v, x, 8); return v; }
    case CLPRIM_UINT64: { uint64_t v; memcpy(&v, x, 8); return v; }
    case CLPRIM_UINT8: return *(const uint8_t *)x;
    default: return 0;
    }
}

/* An integral double in [-2^63, 2^64] as a 128-bit integer, exactly. */
static wide wide_of_double(double d)
{
    if (d < 0)
        return -(wide)(unsigned __int128)(-d);
    return (wide)(unsigned __int128)d;
}

long long reference_bin(clprim_type t, const void *x, double lo, double hi, size_t bins)
{
    if (t == CLPRIM_FLOAT) {
        float v;
        memcpy(&v, x, 4);
        const float flo = (float)lo, fhi = (float)hi;
        const float width = fhi - flo;
        const float scale = (float)bins / width;
        if (!(v >= flo && v < fhi))
            return -1;
        const float d = v - flo;
        const float scaled = d * scale;
        unsigned b = (unsigned)scaled;
        return b > bins - 1 ? (long long)bins - 1 : (long long)b;
    }
    if (t == CLPRIM_DOUBLE) {
        double v;
        memcpy(&v, x, 8);
        const double width = hi - lo;
        const double scale = (double)bins / width;
        if (!(v >= lo && v < hi))
            return -1;
        const double d = v - lo;
        const double scaled = d * scale;
        unsigned b = (unsigned)scaled;
        return b > bins - 1 ? (long long)bins - 1 : (long long)b;
    }
    const wide v = integer_value(t, x), wlo = wide_of_double(lo), whi = wide_of_double(hi);
    if (v < wlo || v >= whi)
        return -1;
    return (long long)((v - wlo) * (wide)bins / (whi - wlo));
}

void reference_histogram(clprim_type t, const void *src, size_t stride, size_t n, double lo, double hi,
                         size_t bins, uint32_t *counts)
{
    const size_t es = size_of(t);
    const unsigned char *in = src;
    for (size_t i = 0; i < n; i++) {
        long long b = reference_bin(t, in + i * stride * es, lo, hi, bins);
        if (b >= 0)
            counts[b]++;
    }
}

/* ---- Histograms over edges ---- */

#define COMPARE_AS(C, op)                                                                                    \
    do {                                                                                                     \
        C x, y;                                                                                              \
        memcpy(&x, a, sizeof x);                                                                             \
        memcpy(&y, b, sizeof y);                                                                             \
        return x op y;                                                                                       \
    } while (0)
#define COMPARE(name, op)                                                                                    \
    int name(clprim_type t, const void *a, const void *b)                                                    \
    {                                                                                                        \
        switch (t) {                                                                                         \
        case CLPRIM_INT32: COMPARE_AS(int32_t, op);                                                          \
        case CLPRIM_UINT32: COMPARE_AS(uint32_t, op);                                                        \
        case CLPRIM_INT64: COMPARE_AS(int64_t, op);                                                          \
        case CLPRIM_UINT64: COMPARE_AS(uint64_t, op);                                                        \
        case CLPRIM_FLOAT: COMPARE_AS(float, op);                                                            \
        case CLPRIM_DOUBLE: COMPARE_AS(double, op);                                                          \
        case CLPRIM_UINT8: COMPARE_AS(uint8_t, op);                                                          \
        }                                                                                                    \
        return 0;                                                                                            \
    }
COMPARE(reference_less, <)
static COMPARE(less_equal, <=)

static long long range_bin(clprim_type t, const unsigned char *x, const unsigned char *edges, size_t bins)
{
    const size_t es = reference_type_size(t);
    if (!less_equal(t, edges, x) || !reference_less(t, x, edges + bins * es))
        return -1;
    size_t first = 0, count = bins + 1; /* the first edge above x lies in [first, first + count) */
    while (count > 0) {
        const size_t half = count / 2;
        if (!reference_less(t, x, edges + (first + half) * es)) {
            first += half + 1;
            count -= half + 1;
        } else {
            count = half;
        }
    }
    return (long long)first - 1;
}

void reference_histogram_range(clprim_type t, const void *src, size_t n, const void *edges, size_t bins,
                               uint32_t *counts)
{
    const size_t es = reference_type_size(t);
    for (size_t i = 0; i < n; i++) {
        const long long b = range_bin(t, (const unsigned char *)src + i * es, edges, bins);
        if (b >= 0)
            counts[b]++;
    }
}
