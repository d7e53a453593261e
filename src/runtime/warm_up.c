/* clprim_warm_up: every program the primitives build, for the context's device
 * and tuning, so that later calls (in this context through its memory cache,
 * in others through the disk cache) compile nothing. Each primitive's
 * descriptor names its variants with the functions its driver builds them
 * with, so each (file, options) pair here is one a call asks for. */
#include "internal.h"

#define CLPRIM_PRIMITIVE_ADDRESS(name) &clprim_##name##_primitive,
const clprim_primitive *const clprim_primitives[] = {CLPRIM_PRIMITIVES(CLPRIM_PRIMITIVE_ADDRESS) NULL};
#undef CLPRIM_PRIMITIVE_ADDRESS

/* One pass over every program: counting them first, then building each (or
 * loading it) and reporting progress, until one fails. */
struct clprim_variant_walk {
    clprim_context *ctx;
    int counting;
    clprim_status s;
    unsigned long done, total;
};

void clprim_walk_variant(clprim_variant_walk *w, clprim_status made, clprim_program *p)
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

/* Each primitive's variants for every element type the device runs (doubles
 * only with fp64), then those of no type. */
static void walk_every_primitive(clprim_variant_walk *w)
{
    for (size_t i = 0; clprim_primitives[i]; i++) {
        const clprim_primitive *primitive = clprim_primitives[i];
        const clprim_type_info *type;
        for (clprim_type t = 0; primitive->type_variants && (type = clprim_type_info_of(t)); t++)
            if (!type->needs_fp64 || w->ctx->has_fp64)
                primitive->type_variants(w->ctx, w, t, type);
        if (primitive->variants)
            primitive->variants(w->ctx, w);
    }
}

clprim_status clprim_warm_up(clprim_context *ctx)
{
    CLPRIM_ENTER(s, ctx, "clprim_warm_up");
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_variant_walk w = {ctx, 1, CLPRIM_SUCCESS, 0, 0};
    walk_every_primitive(&w);
    w.counting = 0;
    walk_every_primitive(&w);
    return w.s;
}

void clprim_program_counts(const clprim_context *ctx, unsigned *compiled, unsigned *loaded)
{
    if (compiled)
        *compiled = ctx ? ctx->programs_compiled : 0;
    if (loaded)
        *loaded = ctx ? ctx->programs_loaded : 0;
}
