/* clprim_warm_up: every program the primitives build, for the context's device
 * and tuning, so that later calls (in this context through its memory cache,
 * in others through the disk cache) compile nothing. The options come from the
 * functions the drivers themselves build them with, so each (file, options)
 * pair here is one a call asks for. */
#include "internal.h"
#include "algorithms/radix_sort.h"

/* One pass over every program: counting them first, then building each (or
 * loading it) and reporting progress, until one fails. */
typedef struct {
    clprim_context *ctx;
    int counting;
    clprim_status s;
    unsigned long done, total;
} warm_run;

/* One warm-up step: p, made with status `made`, is built unless a step failed;
 * ends p. */
static void warm(warm_run *w, clprim_status made, clprim_program *p)
{
    if (w->counting) {
        w->total++;
    } else if (w->s == CLPRIM_SUCCESS) {
        w->s = made == CLPRIM_SUCCESS ? clprim_program_prepare(w->ctx, p) : made;
        w->done++;
        if (w->s == CLPRIM_SUCCESS && w->ctx->progress)
            w->ctx->progress(w->ctx->progress_user, "warm-up", w->done, w->total);
    }
    clprim_program_end(p);
}

/* Scan and reduce (reduce.cl, scan.cl) per built-in operator, argmin and
 * argmax; compaction per predicate kind but expressions (compiled per
 * expression, like callers' operators); histograms. */
static void warm_type(warm_run *w, clprim_type t, const clprim_type_info *type)
{
    clprim_context *ctx = w->ctx;
    clprim_program p;
    const int one_sweep = clprim_one_sweep_available(ctx);
    const clprim_tuning sweep_shape = clprim_one_sweep_shape(ctx, &ctx->tuning);
    for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
        const clprim_combine c = clprim_combine_builtin((clprim_op)op);
        clprim_combine_program(ctx, &p, "warm-up", "reduce.cl", &ctx->tuning, type, &c);
        warm(w, CLPRIM_SUCCESS, &p);
        clprim_combine_program(ctx, &p, "warm-up", "scan.cl", &ctx->tuning, type, &c);
        warm(w, CLPRIM_SUCCESS, &p);
        if (one_sweep && clprim_one_sweep_exact(type, &c)) {
            clprim_combine_program(ctx, &p, "warm-up", "scan.cl", &sweep_shape, type, &c);
            warm(w, CLPRIM_SUCCESS, &p);
        }
        if (op != CLPRIM_SUM) {
            clprim_reduce_index_program(ctx, type, (clprim_op)op, &p);
            warm(w, CLPRIM_SUCCESS, &p);
        }
    }
    for (int keep = CLPRIM_KEEP_LT; keep < CLPRIM_KEEP_EXPRESSION; keep++) {
        const clprim_predicate predicate = {.keep = (clprim_keep)keep};
        const clprim_tuning shape = clprim_compact_shape(ctx, one_sweep);
        warm(w, clprim_compact_program(ctx, t, type, &predicate, &shape, &p), &p);
    }
    clprim_histogram_program(ctx, type, &p);
    warm(w, CLPRIM_SUCCESS, &p);
    clprim_histogram_range_program(ctx, type, &p);
    warm(w, CLPRIM_SUCCESS, &p);
}

/* Radix sort (and box sort's), box sort, thresholds and image histograms,
 * k-means per pixel format. */
static void warm_images_and_sorts(warm_run *w)
{
    clprim_context *ctx = w->ctx;
    clprim_program p;
    const clprim_type keys[] = {CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_FLOAT, CLPRIM_INT64, CLPRIM_UINT64, CLPRIM_DOUBLE};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        for (size_t value_bytes = 0; value_bytes <= 8; value_bytes += 4) {
            const clprim_sort_spec spec = {keys[k], value_bytes, 0, 0, 32};
            if (clprim_radix_sort_program(ctx, &spec, &p))
                warm(w, CLPRIM_SUCCESS, &p);
            else
                clprim_program_end(&p);
        }
    clprim_box_sort_program(ctx, &p);
    warm(w, CLPRIM_SUCCESS, &p);
    for (int index32 = 0; index32 < 2; index32++) {
        clprim_threshold_program(ctx, index32, &p);
        warm(w, CLPRIM_SUCCESS, &p);
    }
    const clprim_pixel_format formats[] = {CLPRIM_RGB8, CLPRIM_RGBA8, CLPRIM_GREY8};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        clprim_kmeans_program(ctx, formats[f], &p);
        warm(w, CLPRIM_SUCCESS, &p);
    }
}

static void warm_everything(warm_run *w)
{
    for (clprim_type t = 0; clprim_type_info_of(t); t++) {
        const clprim_type_info *type = clprim_type_info_of(t);
        if (!type->needs_fp64 || w->ctx->has_fp64)
            warm_type(w, t, type);
    }
    warm_images_and_sorts(w);
}

clprim_status clprim_warm_up(clprim_context *ctx)
{
    CLPRIM_ENTER(s, ctx, "clprim_warm_up");
    if (s != CLPRIM_SUCCESS)
        return s;
    warm_run w = {ctx, 1, CLPRIM_SUCCESS, 0, 0};
    warm_everything(&w);
    w.counting = 0;
    warm_everything(&w);
    return w.s;
}

void clprim_program_counts(const clprim_context *ctx, unsigned *compiled, unsigned *loaded)
{
    if (compiled)
        *compiled = ctx ? ctx->programs_compiled : 0;
    if (loaded)
        *loaded = ctx ? ctx->programs_loaded : 0;
}
