/* Callers' expressions against the same text compiled as C on the host.
 *
 * Each test writes one keep-expression as a chain of clauses
 * "i % K == k && E_k || ...": element i is judged by clause i % K alone, so a
 * single program tries every clause on every input, and the host evaluates
 * the very same text (the macros below are C's twin of the grammar) to know
 * which elements must be kept. A clause that differs names itself. Floating
 * values stand where C takes a truth value (x, x ? :, !x, x && ...), and the
 * float built-ins meet NaN, both infinities and both zeros: their NaN-ness,
 * sign and size must be C's <math.h> (through <tgmath.h>, so float arguments
 * take the float functions, as the parser's casts do on the device). */
#include "harness.h"
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

/* The clauses are evaluated as written, for every type: unsigned x < 0 and a
 * float in a truth context are the point, not mistakes. */
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wint-in-bool-context"

/* ---- The clauses, as text and as C over x (the element) and i ---- */

#define CLAUSE(e) #e

/* Valid for every element type (nothing whose C meaning is undefined:
 * no signed overflow, no float-to-integer conversion of NaN). */
#define ANY_TYPE_CLAUSES(X)                                                                                   \
    X(x), X(!x), X(x ? 1 : 0), X(x ? x : 1), X(x && i), X(x || 0), X(!(x > 3)), X((x > 0) * 2 + (x < 0)),      \
        X(i ? x > 5 : x < 5), X((float)x > 2.5f), X(x == 0 || x == 1), X(min(x, 5) == 5), X(max(x, 7) > 7),   \
        X(clamp(x, 2, 9) == 9)

/* Integer element types. */
#define INTEGER_CLAUSES(X)                                                                                    \
    X(~x > 5), X((x >> 3) & 1), X(x % 7 == 3), X((x ^ i) & 4), X(x / 3 > 10), X(popcount(x) > 3),             \
        X(clz(x) < 4), X(abs_diff(x, 100) < 1000)

/* Floating element types: truth of floats, and every float built-in of the
 * grammar through NaN-ness, sign and size (the sign only of results that are
 * not NaN and of operations on numbers: devices differ on a NaN's sign, even
 * through fabs and copysign (the H100's doubles); nor of fmin/fmax of two
 * zeros). */
#define FLOATING_CLAUSES(X)                                                                                   \
    X(x * 2.0), X(1.5 ? x > 0 : 0), X((x > 0) * 0.5), X(x ? 1.0 : 0.0), X(!fabs(x)), X(x && x < 1),             \
        X(isnan(max(x, 1))), X(isnan(min(x, 1))), X(max(x, -1) > 0), X(min(x, -1) < -2),                          \
        X(isnan(clamp(x, -1, 1))), X(clamp(x, -1, 1) > 0.5), X(isnan(fmin(x, 2))), X(isnan(fmax(x, 2))),          \
        X(!isnan(x) && signbit(fabs(x))), X(!isnan(x) && signbit(floor(x))), X(floor(x) > 0.5),                               \
        X(!isnan(x) && signbit(ceil(x))), X(ceil(x) > 0.5), X(!isnan(x) && signbit(round(x))), X(round(x) > 0.5), \
        X(!isnan(x) && signbit(trunc(x))), X(isnan(sqrt(x))), X(!isnan(sqrt(x)) && signbit(sqrt(x))),             \
        X(sqrt(x) > 0.5), X(!isnan(x) && signbit(cbrt(x))), X(cbrt(x) > 0.5), X(isnan(exp(x))), X(exp(x) > 0.5),  \
        X(exp2(x) > 1.5), X(isnan(log(x))), X(!isnan(log(x)) && signbit(log(x))), X(isinf(log(x))),              \
        X(isinf(log2(x))), X(!isnan(log10(x)) && signbit(log10(x))), X(isnan(sin(x))),                           \
        X(!isnan(sin(x)) && signbit(sin(x))), X(isnan(cos(x))), X(cos(x) > 0.5),                                  \
        X(!isnan(tan(x)) && signbit(tan(x))), X(isnan(tan(x))), X(!isnan(x) && signbit(atan(x))),                 \
        X(atan(x) > 0.5), X(isnan(pow(x, 2))), X(pow(x, 2) > 0.5), X(isnan(pow(2, x))),                          \
        X(!isnan(x) && signbit(pow(x, 3))), X(!isnan(x) && signbit(atan2(x, -1))), X(atan2(x, -1) > 0.5),         \
        X(isnan(atan2(1, x))), X(isinf(hypot(x, 1))), X(isnan(hypot(x, 1))), X(isnan(fmod(x, 2))),                \
        X(!isnan(fmod(x, 2)) && signbit(fmod(x, 2))), X(isnan(fmod(2, x))), X(!isnan(x) && signbit(copysign(1, x))),          \
        X(isnan(copysign(x, 1))), X(isnan(x)), X(isinf(x)), X(isfinite(x)), X(signbit(x))

static const char *const any_clauses[] = {ANY_TYPE_CLAUSES(CLAUSE)};
static const char *const integer_clauses[] = {INTEGER_CLAUSES(CLAUSE)};
static const char *const floating_clauses[] = {FLOATING_CLAUSES(CLAUSE)};
#define COUNT(a) (sizeof a / sizeof a[0])

/* For each element type, the C evaluation of clause k at (x, i). */
#define EVALUATE(e) (e) ? 1 : 0

/* C's twins of the grammar's functions that C lacks, with OpenCL's meaning:
 * for integers, min, max and clamp with C's conversions; */
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define clamp(x, lo, hi) min(max((x), (lo)), (hi))
static uint32_t popcount32(uint32_t v) { return (uint32_t)__builtin_popcount(v); }
static uint64_t popcount64(uint64_t v) { return (uint64_t)__builtin_popcountll(v); }
static uint32_t clz32(uint32_t v) { return v ? (uint32_t)__builtin_clz(v) : 32u; }
static uint64_t clz64(uint64_t v) { return v ? (uint64_t)__builtin_clzll(v) : 64u; }
#define popcount(v) (sizeof(v) == 8 ? popcount64((uint64_t)(v)) : popcount32((uint32_t)(v)))
#define clz(v) (sizeof(v) == 8 ? clz64((uint64_t)(v)) : clz32((uint32_t)(v)))
/* OpenCL abs_diff: the exact difference, unsigned (reduced mod 2^64 here, where it fits). */
#define abs_diff(a, b) ((a) > (b) ? (uint64_t)(a) - (uint64_t)(b) : (uint64_t)(b) - (uint64_t)(a))

/* NAME(k, x, i): clause k of the common list and then MORE, evaluated in C
 * with the min, max and clamp defined where it is expanded. */
#define DEFINE_EVALUATE(NAME, T, MORE)                                                                      \
    static int NAME(size_t k, T x, uint64_t i)                                                               \
    {                                                                                                        \
        const int r[] = {ANY_TYPE_CLAUSES(EVALUATE), MORE(EVALUATE)};                                        \
        return r[k];                                                                                         \
    }
DEFINE_EVALUATE(evaluate_int32, int32_t, INTEGER_CLAUSES)
DEFINE_EVALUATE(evaluate_uint32, uint32_t, INTEGER_CLAUSES)
DEFINE_EVALUATE(evaluate_int64, int64_t, INTEGER_CLAUSES)
DEFINE_EVALUATE(evaluate_uint64, uint64_t, INTEGER_CLAUSES)
#undef min
#undef max
#undef clamp
/* for floats, fmin and fmax (a NaN loses), as the parser writes them. */
#define min(a, b) fmin((a), (b))
#define max(a, b) fmax((a), (b))
#define clamp(x, lo, hi) fmin(fmax((x), (lo)), (hi))
DEFINE_EVALUATE(evaluate_float, float, FLOATING_CLAUSES)
DEFINE_EVALUATE(evaluate_double, double, FLOATING_CLAUSES)
#undef min
#undef max
#undef clamp

static const char *clause_text(size_t k, int floating)
{
    if (k < COUNT(any_clauses))
        return any_clauses[k];
    return floating ? floating_clauses[k - COUNT(any_clauses)] : integer_clauses[k - COUNT(any_clauses)];
}

/* The keep-expression: clause k for the elements i with i % clauses == k. */
static char *chain(size_t clauses, int floating)
{
    size_t size = 64;
    for (size_t k = 0; k < clauses; k++)
        size += 32 + strlen(clause_text(k, floating));
    char *text = harness_malloc(size), *at = text;
    for (size_t k = 0; k < clauses; k++) {
        at += snprintf(at, size - (size_t)(at - text), "%si %% %zu == %zu && (%s)", k ? " || " : "", clauses, k,
                       clause_text(k, floating));
    }
    return text;
}

/* Inputs: the edges of each type's range, small numbers either side of the
 * clauses' constants, and for floats NaN, both infinities and both zeros. */
static void input(clprim_type t, size_t j, uint64_t *rng, void *out)
{
    static const double floating[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0,
                                      9.5, 1e30, -1e-30, 0.75};
    static const int64_t small[] = {0, 1, 2, 3, 5, 7, 8, 9, 10, 11, 100, 1000, -1, -3, -7, -100};
    const size_t specials = 16;
    if (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE) {
        double v = j < specials ? floating[j] : (double)(int64_t)(harness_rand(rng) % 2001 - 1000) / 64.0;
        if (t == CLPRIM_FLOAT) {
            float f = (float)v;
            memcpy(out, &f, 4);
        } else {
            memcpy(out, &v, 8);
        }
        return;
    }
    uint64_t bits = harness_rand(rng);
    if (j < specials)
        bits = (uint64_t)small[j];
    else if (j < specials + 4) /* the type's lowest and highest, signed and unsigned */
        bits = j % 2 ? ~(uint64_t)0 >> 1 : (uint64_t)1 << 63;
    if (reference_type_size(t) == 4) {
        uint32_t v = (uint32_t)bits;
        if (j >= specials && j < specials + 4)
            v = j % 2 ? 0x7fffffffu : 0x80000000u;
        memcpy(out, &v, 4);
    } else {
        memcpy(out, &bits, 8);
    }
}

static int evaluate(clprim_type t, size_t k, const void *x, uint64_t i)
{
    switch (t) {
    case CLPRIM_INT32: return evaluate_int32(k, *(const int32_t *)x, i);
    case CLPRIM_UINT32: return evaluate_uint32(k, *(const uint32_t *)x, i);
    case CLPRIM_INT64: return evaluate_int64(k, *(const int64_t *)x, i);
    case CLPRIM_UINT64: return evaluate_uint64(k, *(const uint64_t *)x, i);
    case CLPRIM_FLOAT: return evaluate_float(k, *(const float *)x, i);
    default: return evaluate_double(k, *(const double *)x, i);
    }
}

static const clprim_type types[] = {CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_INT64, CLPRIM_UINT64, CLPRIM_FLOAT,
                                    CLPRIM_DOUBLE};

/* Every clause of the type's chain on every input, as the host evaluates it. */
START_TEST(expression_matches_c)
{
    const clprim_type t = types[_i];
    const int floating = t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE;
    const size_t clauses = COUNT(any_clauses) + (floating ? COUNT(floating_clauses) : COUNT(integer_clauses));
    const size_t inputs = 40, n = clauses * inputs, size = reference_type_size(t);
    uint64_t rng = harness_rng((unsigned)_i);
    unsigned char *src = harness_malloc(n * size), *got = harness_malloc(n * size), *want = harness_malloc(n * size);
    /* Element i takes clause i % clauses and, row by row, every input in
     * turn: input (i / clauses + i % clauses) % inputs, so neighbours differ. */
    for (size_t i = 0; i < n; i++)
        input(t, (i / clauses + i % clauses) % inputs, &rng, src + i * size);
    size_t want_kept = 0, *want_index = harness_malloc(n * sizeof *want_index);
    for (size_t i = 0; i < n; i++)
        if (evaluate(t, i % clauses, src + i * size, i)) {
            want_index[want_kept] = i;
            memcpy(want + want_kept++ * size, src + i * size, size);
        }
    char *text = chain(clauses, floating);
    FOR_EACH_DEVICE(ctx)
    {
        if (t == CLPRIM_DOUBLE && !ctx->has_fp64)
            continue;
        cl_mem in = harness_buffer(ctx, n * size, src), out = harness_buffer(ctx, n * size, NULL);
        clprim_predicate keep = {CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, text};
        size_t kept = 0;
        clprim_status s = clprim_compact(ctx, t, &keep, in, 0, out, 0, n, &kept, NULL, 0, 0, NULL, NULL);
        ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s: %s", reference_type_name(t), clprim_status_name(s),
                      clprim_last_error(ctx));
        harness_read(ctx, out, 0, kept * size, got);
        /* The first kept element that differs, named by its clause and input:
         * an element the device keeps and C drops (its value is the device's
         * next one, somewhere after C's previous kept element), or else C's
         * next kept element, which the device dropped. Neighbours hold
         * different inputs, so the value names the element. */
        size_t p = 0;
        while (p < kept && p < want_kept && !memcmp(got + p * size, want + p * size, size))
            p++;
        if (p < kept || p < want_kept) {
            size_t i = p < want_kept ? want_index[p] : n;
            const char *verdict = "C keeps it, the device drops it";
            for (size_t j = p ? want_index[p - 1] + 1 : 0; p < kept && j < i; j++)
                if (!memcmp(src + j * size, got + p * size, size)) {
                    i = j;
                    verdict = "the device keeps it, C drops it";
                    break;
                }
            if (i < n) {
                char value[64];
                reference_format(t, src + i * size, value, sizeof value);
                ck_abort_msg("%s: \"%s\" at x = %s, i = %zu: %s (kept %zu, want %zu)", reference_type_name(t),
                             clause_text(i % clauses, floating), value, i, verdict, kept, want_kept);
            }
        }
        CHECK(kept == want_kept, "%s: the device keeps %zu, C %zu (extra elements at the end)",
              reference_type_name(t), kept, want_kept);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
    }
    free(text);
    free(want_index);
    free(src);
    free(got);
    free(want);
}
END_TEST

/* A caller's "max(a, b)" and "min(a, b)" over floats give the bits of the
 * built-in MAX and MIN (fmax, fmin) through NaN, infinities and zeros, in
 * scans and reductions. */
START_TEST(float_min_max_operators_match_builtins)
{
    static const float values[] = {1.0f, INFINITY, NAN, 2.0f, -0.0f, 0.0f, -INFINITY, NAN, -3.0f, NAN};
    const size_t n = sizeof values / sizeof values[0];
    FOR_EACH_DEVICE(ctx)
    {
        cl_mem src = harness_buffer(ctx, sizeof values, values);
        cl_mem dst = harness_buffer(ctx, sizeof values, NULL), want = harness_buffer(ctx, sizeof values, NULL);
        for (int use_max = 0; use_max < 2; use_max++) {
            const float identity = NAN; /* fmin and fmax ignore it */
            const clprim_operator op = {use_max ? "max(a, b)" : "min(a, b)", &identity};
            const clprim_op builtin = use_max ? CLPRIM_MAX : CLPRIM_MIN;
            float got[10], expect[10], r_got, r_want;
            ck_assert_int_eq(clprim_scan_op(ctx, CLPRIM_FLOAT, &op, 0, src, 0, dst, 0, n, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            ck_assert_int_eq(clprim_scan(ctx, CLPRIM_FLOAT, builtin, 0, src, 0, want, 0, n, 0, NULL, NULL),
                             CLPRIM_SUCCESS);
            harness_read(ctx, dst, 0, sizeof got, got);
            harness_read(ctx, want, 0, sizeof expect, expect);
            CHECK(!memcmp(got, expect, sizeof got), "\"%s\" scan differs from the built-in", op.combine);
            ck_assert_int_eq(clprim_reduce_op(ctx, CLPRIM_FLOAT, &op, src, 0, n, &r_got, 0, NULL), CLPRIM_SUCCESS);
            ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_FLOAT, builtin, src, 0, n, &r_want, 0, NULL), CLPRIM_SUCCESS);
            CHECK(!memcmp(&r_got, &r_want, 4), "\"%s\" reduces to %g, the built-in to %g", op.combine, r_got, r_want);
            CHECK(r_want == (use_max ? INFINITY : -INFINITY), "built-in gives %g", r_want);
        }
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(want);
    }
}
END_TEST

static Suite *expression_suite(void)
{
    Suite *s = suite_create("expression");
    TCase *tc = tcase_create("grammar");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, expression_matches_c, 0, (int)COUNT(types));
    tcase_add_test(tc, float_min_max_operators_match_builtins);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(expression_suite());
}
