/* k-means colour quantization: deterministic seeding on the host (greedy
 * k-means++ for colour, the exact optimum of the level histogram for grey),
 * then Lloyd's iterations on the device (cl/kmeans.cl). Assignment uses
 * float squared distances to the float centres computed in a fixed order
 * without fused multiply-add, and the update works on exact integer sums, so
 * host and device agree pixel for pixel; the division sum / count is done here
 * on the host, and only the final palette is rounded to 8 bits. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SEED_SAMPLES 65536
#define CHUNK_LIMIT ((size_t)1 << 24) /* pixels a work-group sums in uint: 2^24 * 255 < 2^32 */

/* The kernels' local arrays hold the most centres a call takes. */
_Static_assert(CLPRIM_KMEANS_MAX_K == KMEANS_MAX_K, "CLPRIM_KMEANS_MAX_K must match cl/constants.h's KMEANS_MAX_K");

unsigned clprim_kmeans_dims(clprim_pixel_format format)
{
    switch (format) {
    case CLPRIM_RGB8:
    case CLPRIM_RGBA8: return 3;
    case CLPRIM_GREY8: return 1;
    default: return 0;
    }
}

void clprim_kmeans_program(const clprim_context *ctx, clprim_pixel_format format, clprim_program *p)
{
    clprim_program_begin(ctx, p, "k-means", "kmeans.cl", &ctx->tuning, NULL, -1);
    clprim_options_add(&p->options, "-DPIXEL_SIZE=%zu -DDIMS=%u", clprim_pixel_size(format),
                       clprim_kmeans_dims(format));
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t dist2(const unsigned char *a, const unsigned char *b, unsigned dims)
{
    uint32_t d = 0;
    for (unsigned c = 0; c < dims; c++) {
        int e = (int)a[c] - (int)b[c];
        d += (uint32_t)(e * e);
    }
    return d;
}

/* Candidates drawn per centre after the first: 2 + floor(ln k), as scikit-learn's
 * greedy k-means++ does. */
static unsigned seed_candidates(unsigned k)
{
    return 2 + (unsigned)floor(log((double)k));
}

/* The sample drawn for r in [0, sum of d2): the first s whose running sum of
 * d2 passes r. */
static size_t draw(const uint32_t *d2, size_t S, uint64_t r)
{
    uint64_t cumulative = 0;
    for (size_t s = 0; s < S; s++) {
        cumulative += d2[s];
        if (cumulative > r)
            return s;
    }
    return S - 1; /* not reached: r < the sum */
}

/* ---- Grey images: the optimal centres of the level histogram ---- */

/* A 128-bit unsigned integer, for the exact within-cluster numerators. */
typedef struct {
    uint64_t hi, lo;
} wide;

static wide wide_mul(uint64_t a, uint64_t b)
{
    const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    const uint64_t low = a0 * b0, mid1 = a1 * b0, mid2 = a0 * b1;
    const uint64_t carry = ((low >> 32) + (mid1 & 0xFFFFFFFFu) + (mid2 & 0xFFFFFFFFu)) >> 32;
    return (wide){a1 * b1 + (mid1 >> 32) + (mid2 >> 32) + carry, a * b};
}

/* a - b as a double, for a >= b. */
static double wide_difference(wide a, wide b)
{
    const uint64_t lo = a.lo - b.lo, hi = a.hi - b.hi - (a.lo < b.lo);
    return ldexp((double)hi, 64) + (double)lo;
}

/* Optimal 1-D k-means of a 256-level histogram: the levels present, sorted, are
 * split into k consecutive runs (an optimal clustering on a line is contiguous)
 * by dynamic programming over the runs' sums of squared deviations, each
 * computed exactly as (count * sum of squares - sum^2) / count from prefix sums.
 * The lowest split wins a tie. Centres are the runs' means, ascending; with
 * fewer levels than k, each level is a centre and the rest repeat the first. */
static clprim_status optimal_grey_centres(const uint64_t histogram[256], unsigned k, float *centres)
{
    unsigned levels = 0;
    unsigned char value[256]; /* the levels present, ascending */
    uint64_t count[257] = {0}, sum[257] = {0}, squares[257] = {0}; /* prefix sums over the levels present */
    for (unsigned v = 0; v < 256; v++) {
        if (!histogram[v])
            continue;
        count[levels + 1] = count[levels] + histogram[v];
        sum[levels + 1] = sum[levels] + histogram[v] * v;
        squares[levels + 1] = squares[levels] + histogram[v] * v * v;
        value[levels++] = (unsigned char)v;
    }
    if (levels <= k) {
        for (unsigned j = 0; j < k; j++)
            centres[j] = (float)value[j < levels ? j : 0];
        return CLPRIM_SUCCESS;
    }
    /* cost[a * levels + b]: the runs of levels a..b; best[i], next[i]: the
     * least cost of the first i levels in j and j + 1 runs; split[j][i]: the
     * first level of the last run there. */
    double *cost = malloc((size_t)levels * levels * sizeof *cost);
    double *rows = malloc(2 * (levels + 1) * sizeof *rows);
    unsigned char(*split)[257] = malloc((size_t)(k + 1) * sizeof *split);
    if (!cost || !rows || !split) {
        free(cost);
        free(rows);
        free(split);
        return clprim_fail(NULL, CLPRIM_OUT_OF_MEMORY, "clprim_kmeans_seed: the level table for k = %u", k);
    }
    for (unsigned a = 0; a < levels; a++)
        for (unsigned b = a; b < levels; b++) {
            const uint64_t n = count[b + 1] - count[a], s = sum[b + 1] - sum[a], q = squares[b + 1] - squares[a];
            cost[a * levels + b] = wide_difference(wide_mul(n, q), wide_mul(s, s)) / (double)n;
        }
    double *best = rows, *next = rows + levels + 1;
    for (unsigned i = 1; i <= levels; i++)
        best[i] = cost[i - 1];
    for (unsigned j = 2; j <= k; j++) {
        for (unsigned i = j; i <= levels; i++) {
            next[i] = INFINITY;
            for (unsigned a = j - 1; a < i; a++) {
                const double c = best[a] + cost[a * levels + i - 1];
                if (c < next[i]) {
                    next[i] = c;
                    split[j][i] = (unsigned char)a;
                }
            }
        }
        double *swap = best;
        best = next;
        next = swap;
    }
    for (unsigned j = k, end = levels; j >= 1; j--) {
        const unsigned start = j > 1 ? split[j][end] : 0;
        centres[j - 1] = (float)((double)(sum[end] - sum[start]) / (double)(count[end] - count[start]));
        end = start;
    }
    free(cost);
    free(rows);
    free(split);
    return CLPRIM_SUCCESS;
}

clprim_status clprim_kmeans_seed(const unsigned char *pixels, size_t width, size_t height, size_t row_pitch,
                                 clprim_pixel_format format, unsigned k, unsigned long long seed, float *centres)
{
    const unsigned dims = clprim_kmeans_dims(format);
    const size_t bpp = clprim_pixel_size(format);
    if (!pixels || !centres)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT, "clprim_kmeans_seed: %s is NULL",
                           !pixels ? "pixels" : "centres");
    if (!dims || !bpp)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT, "clprim_kmeans_seed: unknown clprim_pixel_format %d",
                           (int)format);
    if (width == 0 || height == 0 || width > SIZE_MAX / height || width > SIZE_MAX / bpp)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT,
                           "clprim_kmeans_seed: width %zu x height %zu: both must be positive, without overflow",
                           width, height);
    if (k < 1 || k > CLPRIM_KMEANS_MAX_K)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT, "clprim_kmeans_seed: k = %u is outside [1, %d]", k,
                           CLPRIM_KMEANS_MAX_K);
    const size_t pitch = row_pitch ? row_pitch : width * bpp;
    if (pitch < width * bpp)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT,
                           "clprim_kmeans_seed: row_pitch %zu is smaller than a row of %zu pixels (%zu bytes)",
                           row_pitch, width, width * bpp);

    if (format == CLPRIM_GREY8) {
        uint64_t histogram[256] = {0};
        for (size_t y = 0; y < height; y++)
            for (size_t x = 0; x < width; x++)
                histogram[pixels[y * pitch + x]]++;
        clprim_status s = optimal_grey_centres(histogram, k, centres);
        if (s == CLPRIM_SUCCESS)
            clprim_clear_error(NULL);
        return s;
    }

    /* The sample: S pixels at evenly spaced indices, their colours packed. */
    const uint64_t n = (uint64_t)width * height;
    const size_t S = n < SEED_SAMPLES ? (size_t)n : SEED_SAMPLES;
    /* The distances to the nearest centre: chosen so far (d2), with a candidate
     * (trial), with the best candidate of the step (best). */
    unsigned char *colour = malloc(S * dims);
    uint32_t *distances = malloc(3 * S * sizeof *distances);
    if (!colour || !distances) {
        free(colour);
        free(distances);
        return clprim_fail(NULL, CLPRIM_OUT_OF_MEMORY, "clprim_kmeans_seed: %zu bytes for the sample",
                           S * (dims + 3 * sizeof *distances));
    }
    uint32_t *d2 = distances, *trial = distances + S, *best = distances + 2 * S;
    for (size_t s = 0; s < S; s++) {
        uint64_t i = (uint64_t)s * n / S;
        const unsigned char *p = pixels + (size_t)(i / width) * pitch + (size_t)(i % width) * bpp;
        memcpy(colour + s * dims, p, dims);
    }

    uint64_t state = seed;
    unsigned char chosen[CLPRIM_KMEANS_MAX_K][3];
    size_t first = (size_t)(splitmix64(&state) % S);
    memcpy(chosen[0], colour + first * dims, dims);
    for (size_t s = 0; s < S; s++)
        d2[s] = dist2(colour + s * dims, chosen[0], dims);
    const unsigned candidates = seed_candidates(k);
    for (unsigned j = 1; j < k; j++) {
        uint64_t total = 0;
        for (size_t s = 0; s < S; s++)
            total += d2[s];
        if (total == 0) { /* every sampled colour is a centre already */
            memcpy(chosen[j], chosen[0], dims);
            continue;
        }
        /* Greedy k-means++: the candidate that leaves the lowest potential (the
         * first drawn on a tie); trial holds a candidate's distances, best the
         * winner's, swapped when a candidate wins. */
        uint64_t best_potential = UINT64_MAX;
        for (unsigned t = 0; t < candidates; t++) {
            const unsigned char *candidate = colour + draw(d2, S, splitmix64(&state) % total) * dims;
            uint64_t potential = 0;
            for (size_t s = 0; s < S; s++) {
                uint32_t d = dist2(colour + s * dims, candidate, dims);
                trial[s] = d < d2[s] ? d : d2[s];
                potential += trial[s];
            }
            if (potential < best_potential) {
                best_potential = potential;
                memcpy(chosen[j], candidate, dims);
                uint32_t *swap = best;
                best = trial;
                trial = swap;
            }
        }
        uint32_t *swap = d2;
        d2 = best;
        best = swap;
    }
    for (unsigned j = 0; j < k; j++)
        for (unsigned c = 0; c < dims; c++)
            centres[j * dims + c] = (float)chosen[j][c];
    free(colour);
    free(distances);
    clprim_clear_error(NULL);
    return CLPRIM_SUCCESS;
}

/* ---- Lloyd's iterations on the device ---- */

/* How the pixels are split among work-groups: the usual split, with chunks of
 * at most CHUNK_LIMIT pixels. */
static clprim_split kmeans_split(const clprim_tuning *shape, size_t n)
{
    clprim_split split = clprim_split_range(shape, n);
    if (split.chunk > CHUNK_LIMIT) {
        size_t tile = shape->work_group_size * shape->items_per_thread;
        size_t tiles = CHUNK_LIMIT / tile ? CHUNK_LIMIT / tile : 1;
        split.chunk = (cl_ulong)tiles * tile;
        split.groups = (size_t)((n + split.chunk - 1) / split.chunk);
    }
    return split;
}

/* The update from the clusters' sums (k entries of dims sums and a count):
 * each centre becomes sum / count (in double, stored as float), an empty
 * cluster keeping its own. Returns whether no centre moved by more than
 * CLPRIM_KMEANS_TOLERANCE. */
static int update_centres(const cl_ulong *sums, unsigned k, unsigned dims, float *current)
{
    double largest = 0; /* the largest squared move */
    for (unsigned j = 0; j < k; j++) {
        const cl_ulong members = sums[j * (dims + 1) + dims];
        if (members == 0)
            continue;
        double moved = 0;
        for (unsigned c = 0; c < dims; c++) {
            const float next = (float)((double)sums[j * (dims + 1) + c] / (double)members);
            const double e = (double)next - (double)current[j * dims + c];
            moved += e * e;
            current[j * dims + c] = next;
        }
        if (moved > largest)
            largest = moved;
    }
    return largest <= (double)CLPRIM_KMEANS_TOLERANCE * CLPRIM_KMEANS_TOLERANCE;
}

/* The centres, 4 floats a centre (the 4th unused), written to cbuf (blocking:
 * `padded` changes before the next write); what names the write in a
 * failure's message. */
static clprim_status write_centres(clprim_context *ctx, cl_mem cbuf, const float *current, unsigned k,
                                   unsigned dims, float *padded, const char *what)
{
    for (unsigned j = 0; j < k; j++)
        for (unsigned c = 0; c < dims; c++)
            padded[4 * j + c] = current[j * dims + c];
    cl_int err = clEnqueueWriteBuffer(ctx->queue, cbuf, CL_TRUE, 0, (size_t)k * 4 * sizeof(float), padded, 0, NULL,
                                      NULL);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "clprim_kmeans: writing the %s", what);
    return CLPRIM_SUCCESS;
}

/* The plan of one step of a call: an iteration (assignment, then the
 * clusters' sums folded and read back to *sums) or, when sums is NULL, dst
 * drawn from the labels. The split has chunks of at most CHUNK_LIMIT pixels.
 * Scratch holds the labels (when the caller keeps none), the work-groups'
 * partials and the folded sums, all written by kernels only; every step lays
 * it out alike, so the labels there last from step to step. The centres, which
 * the host writes before each step, are in cbuf: host writes into the shared
 * scratch make oclgrind's uninitialised-memory check misreport the
 * kernel-written data beside them. */
static void plan_kmeans_step(const clprim_context *ctx, clprim_pixel_format format, unsigned k,
                             const clprim_image_layout *in, const clprim_image_layout *out, cl_mem labels,
                             size_t labels_offset, cl_mem cbuf, cl_ulong *sums, clprim_plan *plan)
{
    clprim_plan_begin(plan, "k-means");
    clprim_program program;
    clprim_kmeans_program(ctx, format, &program);
    const size_t n = (size_t)in->n, wg = program.shape.work_group_size;
    const clprim_split split = kmeans_split(&program.shape, n);
    const unsigned kmeans_cl = clprim_plan_program(plan, &program);
    const cl_uint stride = clprim_kmeans_dims(format) + 1, width = k * stride;
    const size_t labels_at = labels ? 0 : clprim_layout_part(&plan->scratch, n);
    const size_t partials_at = clprim_layout_part(&plan->scratch, split.groups * width * sizeof(cl_uint));
    const size_t sums_at = clprim_layout_part(&plan->scratch, width * sizeof(cl_ulong));

    const cl_ulong label_off = labels ? labels_offset : labels_at;
    const cl_ulong src_off = in->offset, src_pitch = in->pitch, centres_off = 0;
    const cl_ulong partials_off = partials_at / sizeof(cl_uint), sums_off = sums_at / sizeof(cl_ulong);
    const cl_uint w = (cl_uint)in->width, count = (cl_uint)n, k_arg = k, groups = (cl_uint)split.groups;
    if (!sums) {
        const cl_ulong dst_off = out->offset, dst_pitch = out->pitch;
        CLPRIM_PLAN_LAUNCH(plan, kmeans_cl, "kmeans_apply", split.groups, CLPRIM_ARG(in->data), CLPRIM_ARG(src_off),
                           CLPRIM_ARG(src_pitch), CLPRIM_BUFFER_ARG(labels), CLPRIM_ARG(label_off), CLPRIM_ARG(w),
                           CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(cbuf), CLPRIM_ARG(centres_off),
                           CLPRIM_ARG(out->data), CLPRIM_ARG(dst_off), CLPRIM_ARG(dst_pitch));
        plan->blocking = 1;
        return;
    }
    CLPRIM_PLAN_LAUNCH(plan, kmeans_cl, "kmeans_assign", split.groups, CLPRIM_ARG(in->data), CLPRIM_ARG(src_off),
                       CLPRIM_ARG(src_pitch), CLPRIM_ARG(w), CLPRIM_ARG(count), CLPRIM_ARG(split.chunk),
                       CLPRIM_ARG(cbuf), CLPRIM_ARG(centres_off), CLPRIM_ARG(k_arg), CLPRIM_BUFFER_ARG(labels),
                       CLPRIM_ARG(label_off), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(partials_off));
    CLPRIM_PLAN_LAUNCH(plan, kmeans_cl, "kmeans_fold", (width + wg - 1) / wg, CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(partials_off), CLPRIM_ARG(groups), CLPRIM_ARG(width), CLPRIM_SCRATCH_ARG,
                       CLPRIM_ARG(sums_off));
    clprim_plan_read(plan, NULL, sums_at, width * sizeof(cl_ulong), sums);
}

clprim_status clprim_kmeans(clprim_context *ctx, const clprim_image *src, unsigned k, unsigned max_iterations,
                            float *centres, cl_mem labels, size_t labels_offset, const clprim_image *dst,
                            clprim_kmeans_info *info, cl_uint num_events_in_wait_list,
                            const cl_event *event_wait_list)
{
    clprim_image_layout in, out = {0};
    clprim_region labelled = {0};
    CLPRIM_ENTER(s, ctx, "clprim_kmeans");
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_image(ctx, "clprim_kmeans", "src", src, CLPRIM_READS, &in);
    if (s != CLPRIM_SUCCESS)
        return s;
    const unsigned dims = clprim_kmeans_dims(src->format);
    const size_t n = (size_t)in.n;
    if (k < 1 || k > CLPRIM_KMEANS_MAX_K)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_kmeans: k = %u is outside [1, %d]", k,
                           CLPRIM_KMEANS_MAX_K);
    if (max_iterations == 0)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_kmeans: max_iterations is 0");
    if (!centres)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_kmeans: centres is NULL");
    for (size_t i = 0; i < (size_t)k * dims; i++)
        if (!isfinite(centres[i]))
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_kmeans: centres[%zu] is %g, not finite", i,
                               (double)centres[i]);
    if ((uint64_t)n > UINT32_MAX)
        return clprim_fail(ctx, CLPRIM_UNSUPPORTED,
                           "clprim_kmeans: %zu x %zu = %zu pixels; at most 2^32 - 1 are supported", src->width,
                           src->height, n);
    if (dst) {
        s = clprim_check_image(ctx, "clprim_kmeans", "dst", dst, CLPRIM_WRITES, &out);
        if (s != CLPRIM_SUCCESS)
            return s;
        if (dst->format != src->format || out.width != in.width || out.height != in.height)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "clprim_kmeans: dst (%zu x %zu, format %d) must have the size and format of src "
                               "(%zu x %zu, format %d)",
                               dst->width, dst->height, (int)dst->format, src->width, src->height, (int)src->format);
        s = clprim_check_disjoint(ctx, "clprim_kmeans", "src", &in.region, "dst", &out.region, 1);
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    if (labels) {
        /* Written, then read back when dst is drawn from them. */
        s = clprim_check_buffer(ctx, "labels", labels, labels_offset, n, 1,
                                dst ? CLPRIM_READS_WRITES : CLPRIM_WRITES, &labelled);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, "clprim_kmeans", "labels", &labelled, "src", &in.region, 0);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, "clprim_kmeans", "labels", &labelled, "dst", &out.region, 0);
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    s = clprim_check_wait_list(ctx, "clprim_kmeans", num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    cl_int err;
    const size_t cbuf_bytes = CLPRIM_KMEANS_MAX_K * 4 * sizeof(float);
    cl_mem cbuf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, cbuf_bytes, NULL, &err);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "clprim_kmeans: allocating %zu bytes for the centres", cbuf_bytes);

    /* One plan an iteration: the host updates the centres between them. Only
     * the first waits for the wait list. */
    float current[CLPRIM_KMEANS_MAX_K * 3];
    memcpy(current, centres, (size_t)k * dims * sizeof(float));
    float padded[CLPRIM_KMEANS_MAX_K * 4] = {0};
    cl_ulong sums[CLPRIM_KMEANS_MAX_K * 4];
    clprim_kmeans_info result = {0, 0};
    clprim_plan plan;
    for (unsigned it = 0; it < max_iterations && !result.converged; it++) {
        s = write_centres(ctx, cbuf, current, k, dims, padded, "centres");
        if (s != CLPRIM_SUCCESS)
            goto out;
        plan_kmeans_step(ctx, src->format, k, &in, &out, labels, labels_offset, cbuf, sums, &plan);
        s = it ? clprim_execute(ctx, &plan, 0, NULL, NULL)
               : clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, NULL);
        if (s != CLPRIM_SUCCESS)
            goto out;

        result.iterations = it + 1;
        result.converged = update_centres(sums, k, dims, current);
        if (ctx->progress)
            ctx->progress(ctx->progress_user, "k-means", result.iterations, max_iterations);
    }

    if (dst) {
        s = write_centres(ctx, cbuf, current, k, dims, padded, "final centres");
        if (s != CLPRIM_SUCCESS)
            goto out;
        plan_kmeans_step(ctx, src->format, k, &in, &out, labels, labels_offset, cbuf, NULL, &plan);
        s = clprim_execute(ctx, &plan, 0, NULL, NULL);
        if (s != CLPRIM_SUCCESS)
            goto out;
    }
    memcpy(centres, current, (size_t)k * dims * sizeof(float));
    if (info)
        *info = result;
out:
    clReleaseMemObject(cbuf);
    return s;
}

/* ---- Descriptor ---- */

static void kmeans_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    const clprim_pixel_format formats[] = {CLPRIM_RGB8, CLPRIM_RGBA8, CLPRIM_GREY8};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        clprim_program p;
        clprim_kmeans_program(ctx, formats[f], &p);
        clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
    }
}

const clprim_primitive clprim_kmeans_primitive = {"kmeans", NULL, kmeans_variants};
