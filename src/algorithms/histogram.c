/* Histograms: even bins over [lo, hi), private counts per work-group in local
 * memory merged once per work-group (cl/histogram.cl). The binning rule is in
 * include/clprim.h; the host checks the bounds and prepares the kernels'
 * parameters here, in the element's own precision. */
#include "internal.h"

#include <math.h>
#include <string.h>

#define DEFAULT_MAX_PASSES 4
#define LOCAL_RESERVE 256 /* bytes of local memory left to the implementation */

/* Integer bounds arrive as doubles in [-2^63, 2^64]; they are compared and
 * subtracted exactly as sign and 64-bit magnitude, never as doubles. */
typedef struct {
    int negative;      /* the value is below 0 */
    uint64_t magnitude; /* |value|, when below 2^64 */
    int is_two64;      /* the value is exactly 2^64 */
} wide_int;

/* v: an integral double with -2^63 <= v <= 2^64 (checked by the caller). */
static wide_int to_wide(double v)
{
    wide_int w = {v < 0, 0, 0};
    double m = fabs(v);
    if (m >= 18446744073709551616.0)
        w.is_two64 = 1;
    else
        w.magnitude = (uint64_t)m;
    return w;
}

/* a - b for a > b, both wide: 0 when the difference is 2^64 or more. */
static int wide_difference(wide_int a, wide_int b, uint64_t *out)
{
    if (a.is_two64) { /* a = 2^64 */
        if (b.negative || b.magnitude == 0)
            return 0;
        *out = UINT64_MAX - b.magnitude + 1;
        return 1;
    }
    if (!a.negative && !b.negative) {
        *out = a.magnitude - b.magnitude;
        return 1;
    }
    if (a.negative && b.negative) {
        *out = b.magnitude - a.magnitude;
        return 1;
    }
    /* a >= 0 > b */
    if (a.magnitude > UINT64_MAX - b.magnitude)
        return 0;
    *out = a.magnitude + b.magnitude;
    return 1;
}

/* The value modulo 2^64, as the kernels' lo_bits. */
static uint64_t wide_bits(wide_int w)
{
    if (w.is_two64)
        return 0;
    return w.negative ? (uint64_t)0 - w.magnitude : w.magnitude;
}

/* Compares w with the type's limit given as a signed or unsigned 64-bit value. */
static int wide_cmp_signed(wide_int w, int64_t v)
{
    if (w.is_two64)
        return 1;
    if (w.negative) {
        if (v >= 0)
            return -1;
        uint64_t vm = (uint64_t)0 - (uint64_t)v; /* |v| */
        return w.magnitude > vm ? -1 : w.magnitude < vm;
    }
    if (v < 0)
        return 1;
    return w.magnitude > (uint64_t)v ? 1 : -(w.magnitude < (uint64_t)v);
}

static int wide_cmp_unsigned(wide_int w, uint64_t v)
{
    if (w.is_two64)
        return 1;
    if (w.negative)
        return -1;
    return w.magnitude > v ? 1 : -(w.magnitude < v);
}

/* Writes w (known to lie within the type) as one element of type t. */
static void store_wide(clprim_type t, wide_int w, void *out)
{
    int64_t s = w.negative ? (int64_t)((uint64_t)0 - w.magnitude) : (int64_t)w.magnitude;
    switch (t) {
    case CLPRIM_INT32: *(int32_t *)out = (int32_t)s; break;
    case CLPRIM_UINT32: *(uint32_t *)out = (uint32_t)w.magnitude; break;
    case CLPRIM_INT64: *(int64_t *)out = s; break;
    case CLPRIM_UINT64: *(uint64_t *)out = w.magnitude; break;
    case CLPRIM_UINT8: *(uint8_t *)out = (uint8_t)w.magnitude; break;
    default: break;
    }
}

static void type_limits(clprim_type t, int *is_signed, int64_t *smin, int64_t *smax, uint64_t *umax)
{
    *is_signed = t == CLPRIM_INT32 || t == CLPRIM_INT64;
    *smin = t == CLPRIM_INT32 ? INT32_MIN : INT64_MIN;
    *smax = t == CLPRIM_INT32 ? INT32_MAX : INT64_MAX;
    *umax = t == CLPRIM_UINT8 ? UINT8_MAX : t == CLPRIM_UINT32 ? UINT32_MAX : UINT64_MAX;
}

/* wide_int of a 64-bit value of the type's signedness. */
static wide_int wide_of(int is_signed, int64_t s, uint64_t u)
{
    wide_int w = {0, 0, 0};
    if (is_signed && s < 0) {
        w.negative = 1;
        w.magnitude = (uint64_t)0 - (uint64_t)s;
    } else {
        w.magnitude = is_signed ? (uint64_t)s : u;
    }
    return w;
}

static clprim_status prepare_integer(clprim_context *ctx, clprim_type t, const clprim_type_info *type, double lo,
                                     double hi, size_t bins, clprim_histogram_params *p)
{
    if (lo != floor(lo) || hi != floor(hi))
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "histogram of %s: lo (%.17g) and hi (%.17g) must be integers", type->label, lo, hi);
    if (lo < -9223372036854775808.0 || hi > 18446744073709551616.0)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "histogram of %s: lo (%.17g) and hi (%.17g) must lie in [-2^63, 2^64]", type->label,
                           lo, hi);
    wide_int wlo = to_wide(lo), whi = to_wide(hi);
    uint64_t range;
    if (!wide_difference(whi, wlo, &range) || range > UINT64_MAX / bins)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "histogram of %s: (hi - lo) * bins = (%.17g - %.17g) * %zu is 2^64 or more; the bin "
                           "(x - lo) * bins / (hi - lo) is computed in 64-bit unsigned integers",
                           type->label, hi, lo, bins);
    p->lo_bits = wide_bits(wlo);
    p->range = range;
    /* How the kernels divide (cl/histogram.cl): all three give the same bin. */
    p->divide = range <= UINT32_MAX / bins ? HIST_DIVIDE_32 : HIST_DIVIDE_64;
    if (range % bins == 0) {
        uint64_t width = range / bins;
        if (!(width & (width - 1))) {
            int shift = 0;
            while (((uint64_t)1 << shift) < width)
                shift++;
            p->divide = HIST_DIVIDE_SHIFT + shift;
        }
    }

    /* The first and last counted values, clamped to the type: lo and hi - 1. */
    int is_signed;
    int64_t smin, smax;
    uint64_t umax;
    type_limits(t, &is_signed, &smin, &smax, &umax);
    wide_int tmin = wide_of(is_signed, smin, 0), tmax = wide_of(is_signed, smax, umax);
    int lo_above_max = is_signed ? wide_cmp_signed(wlo, smax) > 0 : wide_cmp_unsigned(wlo, umax) > 0;
    int hi_at_or_below_min = is_signed ? wide_cmp_signed(whi, smin) <= 0 : wide_cmp_unsigned(whi, 0) <= 0;
    if (lo_above_max || hi_at_or_below_min) {
        p->empty = 1; /* no value of the type lies in [lo, hi) */
        return CLPRIM_SUCCESS;
    }
    int lo_below_min = is_signed ? wide_cmp_signed(wlo, smin) < 0 : wide_cmp_unsigned(wlo, 0) < 0;
    store_wide(t, lo_below_min ? tmin : wlo, p->lo);
    int hi_above_max = is_signed ? wide_cmp_signed(whi, smax) > 0 : wide_cmp_unsigned(whi, umax) > 0;
    if (hi_above_max) {
        store_wide(t, tmax, p->hi);
    } else {
        /* hi - 1: hi lies in (min, max + 1], so hi - 1 is within the type. */
        wide_int last = whi;
        if (whi.negative)
            last.magnitude++;
        else if (whi.magnitude == 0) {
            last.negative = 1;
            last.magnitude = 1;
        } else
            last.magnitude--;
        store_wide(t, last, p->hi);
    }
    return CLPRIM_SUCCESS;
}

clprim_status clprim_histogram_prepare(clprim_context *ctx, clprim_type t, double lo, double hi, size_t bins,
                                       clprim_histogram_params *p)
{
    memset(p, 0, sizeof *p);
    clprim_status s = clprim_check_type(ctx, t, &p->type);
    if (s != CLPRIM_SUCCESS)
        return s;
    const clprim_type_info *type = p->type;
    p->t = t;
    p->bins = bins;
    if (bins == 0 || bins > HIST_MAX_BINS)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "histogram: bins is %zu; it must be 1 .. 2^31", bins);
    if (isnan(lo) || isnan(hi))
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "histogram: lo (%g) or hi (%g) is NaN", lo, hi);
    if (isinf(lo) || isinf(hi))
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "histogram: lo (%g) and hi (%g) must be finite", lo, hi);
    if (!(lo < hi))
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "histogram: lo (%.17g) must be below hi (%.17g)", lo, hi);
    if (!type->is_float)
        return prepare_integer(ctx, t, type, lo, hi, bins, p);

    if (t == CLPRIM_FLOAT) {
        /* volatile: each value rounded to float, whatever the host's evaluation method */
        volatile float flo = (float)lo, fhi = (float)hi;
        volatile float width = fhi - flo;
        volatile float scale = (float)bins / width;
        if (isinf(flo) || isinf(fhi))
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "histogram of float: lo (%g) or hi (%g) is beyond the float range", lo, hi);
        if (!(flo < fhi))
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "histogram of float: lo (%.17g) and hi (%.17g) round to the same float", lo, hi);
        if (isinf(width) || !(scale > 0) || isinf(scale))
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "histogram of float: hi - lo (%g) or bins / (hi - lo) (%g) is not a finite positive "
                               "float",
                               (double)width, (double)scale);
        float v[3] = {flo, fhi, scale};
        memcpy(p->lo, &v[0], sizeof(float));
        memcpy(p->hi, &v[1], sizeof(float));
        memcpy(p->scale, &v[2], sizeof(float));
    } else {
        volatile double width = hi - lo;
        volatile double scale = (double)bins / width;
        if (isinf(width) || !(scale > 0) || isinf(scale))
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "histogram of double: hi - lo (%g) or bins / (hi - lo) (%g) is not a finite positive "
                               "double",
                               (double)width, (double)scale);
        double v[3] = {lo, hi, scale};
        memcpy(p->lo, &v[0], sizeof(double));
        memcpy(p->hi, &v[1], sizeof(double));
        memcpy(p->scale, &v[2], sizeof(double));
    }
    return CLPRIM_SUCCESS;
}

size_t clprim_histogram_local_bins(const clprim_context *ctx)
{
    if (ctx->local_mem_size <= LOCAL_RESERVE + 2 * sizeof(cl_uint))
        return 0;
    cl_ulong fit = (ctx->local_mem_size - LOCAL_RESERVE) / sizeof(cl_uint) - 1; /* and a spare (cl/histogram.cl) */
    return fit > HIST_MAX_BINS ? HIST_MAX_BINS : (size_t)fit;
}

void clprim_histogram_program(const clprim_context *ctx, const clprim_type_info *type, clprim_program *p)
{
    const clprim_tuning grid = clprim_compact_grid(ctx);
    clprim_program_begin(ctx, p, "histogram", CLPRIM_HISTOGRAM_FILE, &grid, type, -1);
}

void clprim_plan_histogram(const clprim_context *ctx, clprim_plan *plan, const clprim_histogram_params *p, cl_mem src,
                           size_t src_offset, size_t stride, size_t n, cl_mem counts, size_t counts_offset,
                           int accumulate, const clprim_histogram_plan *how)
{
    const size_t bins = p->bins;
    const int count = n > 0 && !p->empty;
    if (!count && accumulate)
        return;

    /* Private counts in local memory, a window of local_bins a pass, or one
     * global atomic per element when that takes more than max_passes. */
    size_t local_bins = how && how->local_bins ? how->local_bins : clprim_histogram_local_bins(ctx);
    if (local_bins > bins)
        local_bins = bins;
    const size_t max_passes = how && how->max_passes ? how->max_passes : DEFAULT_MAX_PASSES;
    const size_t passes = local_bins ? bins / local_bins + (bins % local_bins != 0) : 0;
    const int global = passes == 0 || passes > max_passes;

    clprim_program program;
    clprim_histogram_program(ctx, p->type, &program);
    /* The program's grid, but with private counts each work-group should see
     * at least as many elements as it has bins to clear and merge. Clearing
     * keeps the context's grid. */
    clprim_tuning split_shape = program.shape;
    const unsigned histogram_cl = clprim_plan_program(plan, &program);
    if (!global) {
        const size_t want = n / (local_bins > 1 ? local_bins : 1);
        if (want < split_shape.groups)
            split_shape.groups = want > 1 ? want : 1;
    }
    const clprim_split split = clprim_split_range(&split_shape, n);

    /* The clearing (overwrite mode), then the counting passes; one pass of
     * local counts overwrites them itself, settling them through the
     * context's tallies where it can (cl/block/private_counts.cl). */
    const cl_int settle = !accumulate && count && passes == 1 && !global && clprim_settles(ctx, bins);
    const cl_ulong a_counts_offset = counts_offset;
    if (!accumulate && !settle) {
        const cl_ulong count_bins = bins;
        const cl_int zero = 0;
        CLPRIM_PLAN_LAUNCH(plan, histogram_cl, "fill_words", clprim_fill_groups(&ctx->tuning, bins),
                           CLPRIM_ARG(counts), CLPRIM_ARG(a_counts_offset), CLPRIM_ARG(count_bins), CLPRIM_ARG(zero));
    }
    if (!count)
        return;
    const cl_ulong a_src_offset = src_offset, a_stride = stride, a_n = n;
    const cl_ulong lo_bits = p->lo_bits, range = p->range;
    const cl_uint a_bins = (cl_uint)bins;
    const cl_int divide = p->divide;
    const size_t es = p->type->size;
    if (global) {
        CLPRIM_PLAN_LAUNCH(plan, histogram_cl, "histogram_global", split.groups, CLPRIM_ARG(src),
                           CLPRIM_ARG(a_src_offset), CLPRIM_ARG(a_stride), CLPRIM_ARG(a_n), CLPRIM_ARG(split.chunk),
                           CLPRIM_BYTES(es, p->lo), CLPRIM_BYTES(es, p->hi), CLPRIM_BYTES(es, p->scale),
                           CLPRIM_ARG(lo_bits), CLPRIM_ARG(range), CLPRIM_ARG(a_bins), CLPRIM_ARG(divide),
                           CLPRIM_ARG(counts), CLPRIM_ARG(a_counts_offset));
        return;
    }
    for (size_t pass = 0; pass < passes; pass++) {
        const cl_uint first = (cl_uint)(pass * local_bins);
        const cl_uint window = (cl_uint)(bins - first < local_bins ? bins - first : local_bins);
        CLPRIM_PLAN_LAUNCH(plan, histogram_cl, "histogram_local", split.groups, CLPRIM_ARG(src),
                           CLPRIM_ARG(a_src_offset), CLPRIM_ARG(a_stride), CLPRIM_ARG(a_n), CLPRIM_ARG(split.chunk),
                           CLPRIM_BYTES(es, p->lo), CLPRIM_BYTES(es, p->hi), CLPRIM_BYTES(es, p->scale),
                           CLPRIM_ARG(lo_bits), CLPRIM_ARG(range), CLPRIM_ARG(a_bins), CLPRIM_ARG(divide),
                           CLPRIM_ARG(counts), CLPRIM_ARG(a_counts_offset), CLPRIM_ARG(first), CLPRIM_ARG(window),
                           CLPRIM_LOCAL((window + 1) * sizeof(cl_uint)), CLPRIM_TALLIES_ARG, CLPRIM_ARG(settle));
    }
}

clprim_status clprim_histogram_checked(clprim_context *ctx, const char *function, clprim_type t, cl_mem src,
                                       size_t src_offset, size_t stride, size_t n, double lo, double hi,
                                       size_t bins, cl_mem counts, size_t counts_offset, int accumulate,
                                       const clprim_histogram_plan *plan, cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event)
{
    CLPRIM_ENTER(s, ctx, function);
    if (s != CLPRIM_SUCCESS)
        return s;
    const clprim_type_info *type = clprim_type_info_of(t);
    if (!type)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "unknown clprim_type %d", (int)t);
    if (stride == 0)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: stride is 0", function);
    /* src holds elements src_offset, src_offset + stride, ... (n of them). */
    size_t span = 0;
    if (n > 0) {
        if (n - 1 > (SIZE_MAX - 1) / stride)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: n %zu x stride %zu overflows size_t", function,
                               n, stride);
        span = (n - 1) * stride + 1;
    }
    clprim_histogram_params p;
    clprim_region in, out;
    s = clprim_histogram_prepare(ctx, t, lo, hi, bins, &p);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, src_offset, span, type->size, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "counts", counts, counts_offset, bins, sizeof(cl_uint),
                                accumulate ? CLPRIM_READS_WRITES : CLPRIM_WRITES, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, function, "src", &in, "counts", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, function, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan histogram;
    clprim_plan_begin(&histogram, "histogram");
    clprim_plan_histogram(ctx, &histogram, &p, src, src_offset, stride, n, counts, counts_offset, accumulate, plan);
    return clprim_execute(ctx, &histogram, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_histogram(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset, size_t n,
                               double lo, double hi, size_t bins, cl_mem counts, size_t counts_offset,
                               int accumulate, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event)
{
    return clprim_histogram_checked(ctx, "clprim_histogram", t, src, src_offset, 1, n, lo, hi, bins, counts,
                                    counts_offset, accumulate, NULL, num_events_in_wait_list, event_wait_list,
                                    event);
}

/* ---- Descriptor ---- */

static void histogram_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                               const clprim_type_info *type)
{
    (void)t;
    clprim_program p;
    clprim_histogram_program(ctx, type, &p);
    clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
}

const clprim_primitive clprim_histogram_primitive = {"histogram", histogram_variants, NULL};
