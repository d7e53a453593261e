/* Scan, in the tuning's form.
 * One-sweep (where the tuning names it): one launch of scan_tiles, each tile
 * looking back at earlier ones (cl/block/lookback.cl); float sums and a
 * caller's operator group the tiles by their numbers alone there, so that
 * the grouping never depends on timing.
 * Multi-pass, the multi-work-group algorithm (README, "How it works"):
 *   1. reduce_chunks: each of G work-groups folds its chunk into a partial;
 *   2. when G partials do not fit one tile, they are scanned (exclusive) the
 *      same way, a level down (plan_levels lays the levels out once);
 *   3. scan_chunks: each work-group scans its chunk from its seed: the scanned
 *      partial, or, when G fits one tile, the fold of the partials before it,
 *      which it computes itself (G^2/2 reads of a few hundred values cost less
 *      than the launch of pass 2).
 * A caller's seed (clprim_scan_seeded) goes to the last launch only: each
 * work-group puts it before its carry, so the partials and their scan are
 * those of the unseeded scan.
 * Kernel launches order the passes: no work-group ever waits on another. */
#include "internal.h"

clprim_split clprim_split_range(const clprim_tuning *tuning, size_t n)
{
    size_t tile = tuning->work_group_size * tuning->items_per_thread;
    size_t tiles = n / tile + (n % tile != 0);
    size_t groups = tuning->groups < tiles ? tuning->groups : tiles;
    if (groups == 0)
        groups = 1;
    size_t tiles_per_group = tiles / groups + (tiles % groups != 0);
    if (tiles_per_group == 0)
        tiles_per_group = 1;
    clprim_split split = {tiles / tiles_per_group + (tiles % tiles_per_group != 0),
                          (cl_ulong)tiles_per_group * tile};
    if (split.groups == 0)
        split.groups = 1;
    return split;
}

/* Where each work-group's seed comes from (cl/constants.h): nothing for one
 * group, its own fold of the partials while they fit one tile, else the scan
 * of the partials. */
int clprim_seed_mode(const clprim_tuning *tuning, const clprim_split *split)
{
    if (split->groups == 1)
        return SEED_NONE;
    return split->groups <= tuning->work_group_size * tuning->items_per_thread ? SEED_FOLD : SEED_SCANNED;
}

/* The multi-pass scan's levels: level 0 splits the input, each next one the
 * partials of the level before, until one work-group's fold serves. */
enum { MAX_LEVELS = 64 }; /* each level divides its count by a tile (at least 2) */
typedef struct {
    size_t levels;
    struct {
        clprim_split split;
        cl_int seed_mode;
        cl_ulong count;    /* elements this level scans */
        cl_ulong partials; /* where its partials go in scratch, in elements; when seed_mode != SEED_NONE */
    } level[MAX_LEVELS];
    size_t scratch_end; /* the byte after the last partials */
} scan_levels;

static scan_levels plan_levels(const clprim_tuning *tuning, size_t n, size_t elem_size, clprim_layout *layout)
{
    scan_levels plan = {0};
    for (;;) {
        const clprim_split split = clprim_split_range(tuning, n);
        const cl_int mode = clprim_seed_mode(tuning, &split);
        const size_t at = mode == SEED_NONE ? 0 : clprim_layout_part(layout, split.groups * elem_size);
        plan.level[plan.levels].split = split;
        plan.level[plan.levels].seed_mode = mode;
        plan.level[plan.levels].count = n;
        plan.level[plan.levels].partials = at / elem_size;
        plan.levels++;
        if (mode != SEED_SCANNED || plan.levels == MAX_LEVELS) /* tiles of 2 or more: never the limit */
            break;
        n = split.groups;
    }
    return plan;
}

size_t clprim_scan_scratch_bytes(const clprim_tuning *tuning, size_t n, size_t elem_size)
{
    clprim_layout layout = {0, 0};
    plan_levels(tuning, n, elem_size, &layout);
    return layout.bytes;
}

void clprim_plan_scan(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *type,
                      const clprim_combine *c, int exclusive, cl_mem seed, cl_ulong seed_offset, cl_mem src,
                      cl_ulong src_offset, cl_mem dst, cl_ulong dst_offset, size_t n)
{
    /* Without a seed the kernels read none, but take a buffer. */
    const cl_int seeded = seed != NULL;
    if (!seeded) {
        seed = src;
        seed_offset = 0;
    }
    const cl_ulong count = n;
    const cl_int excl = exclusive != 0;
    const clprim_tuning sweep_shape = clprim_one_sweep_shape(ctx, &ctx->tuning, type->size);
    const size_t tiles = clprim_one_sweep_tiles(&sweep_shape, n);
    clprim_program program;
    const int in_place = src == dst && src_offset == dst_offset;
    if (clprim_one_sweep_available(ctx) && tiles && (!in_place || clprim_one_sweep_in_place(ctx))) {
        /* One sweep: a tile a work-group, and the records they exchange. */
        clprim_combine_program(ctx, &program, plan->purpose, "scan.cl", &sweep_shape, type, c);
        clprim_launch *l = CLPRIM_PLAN_LAUNCH(plan, clprim_plan_program(plan, &program), "scan_tiles", tiles,
                                              CLPRIM_BUFFER_ARG(src), CLPRIM_ARG(src_offset), CLPRIM_BUFFER_ARG(dst),
                                              CLPRIM_ARG(dst_offset), CLPRIM_ARG(count), CLPRIM_RECORDS_ARG,
                                              CLPRIM_STAMP_ARG, CLPRIM_ARG(excl), CLPRIM_BUFFER_ARG(seed),
                                              CLPRIM_ARG(seed_offset), CLPRIM_ARG(seeded));
        if (l) {
            l->record_tiles = tiles;
            l->record_bytes = type->size;
        }
        return;
    }

    /* Multi-pass: the levels under the context's tuning, and their partials. */
    const clprim_tuning *shape = &ctx->tuning;
    const scan_levels levels = plan_levels(shape, n, type->size, &plan->scratch);
    clprim_combine_program(ctx, &program, plan->purpose, "reduce.cl", shape, type, c);
    const unsigned reduce_cl = clprim_plan_program(plan, &program);
    clprim_combine_program(ctx, &program, plan->purpose, "scan.cl", shape, type, c);
    const unsigned scan_cl = clprim_plan_program(plan, &program);

    /* Each level's partials, from the input down; then each level's scan from
     * its seeds, from the deepest up. Level l > 0 scans the partials of level
     * l - 1 in place, exclusive and unseeded; level 0 is the call's. */
    for (size_t l = 0; l < levels.levels && levels.level[l].seed_mode != SEED_NONE; l++) {
        const cl_mem in = l ? NULL : src;
        const cl_ulong in_offset = l ? levels.level[l - 1].partials : src_offset;
        CLPRIM_PLAN_LAUNCH(plan, reduce_cl, "reduce_chunks", levels.level[l].split.groups, CLPRIM_BUFFER_ARG(in),
                           CLPRIM_ARG(in_offset), CLPRIM_ARG(levels.level[l].count),
                           CLPRIM_ARG(levels.level[l].split.chunk), CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(levels.level[l].partials));
    }
    for (size_t l = levels.levels; l-- > 0;) {
        const cl_mem in = l ? NULL : src, out = l ? NULL : dst;
        const cl_ulong in_offset = l ? levels.level[l - 1].partials : src_offset;
        const cl_ulong out_offset = l ? in_offset : dst_offset;
        const cl_int level_excl = l ? 1 : excl, level_seeded = l ? 0 : seeded;
        const cl_mem seeds = levels.level[l].seed_mode != SEED_NONE ? NULL : src; /* unread without seeds */
        CLPRIM_PLAN_LAUNCH(plan, scan_cl, "scan_chunks", levels.level[l].split.groups, CLPRIM_BUFFER_ARG(in),
                           CLPRIM_ARG(in_offset), CLPRIM_BUFFER_ARG(out), CLPRIM_ARG(out_offset),
                           CLPRIM_ARG(levels.level[l].count), CLPRIM_ARG(levels.level[l].split.chunk),
                           CLPRIM_BUFFER_ARG(seeds), CLPRIM_ARG(levels.level[l].partials),
                           CLPRIM_ARG(levels.level[l].seed_mode), CLPRIM_ARG(level_excl), CLPRIM_BUFFER_ARG(seed),
                           CLPRIM_ARG(seed_offset), CLPRIM_ARG(level_seeded));
    }
}

/* clprim_scan, clprim_scan_op and clprim_scan_seeded: the checks, then the
 * levels. seed: NULL, or one element that only the device reads. */
static clprim_status scan_call(clprim_context *ctx, const char *function, clprim_type t, clprim_op op,
                               int user_op, const clprim_operator *user, int exclusive, cl_mem seed,
                               size_t seed_offset, cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset,
                               size_t n, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event)
{
    const clprim_type_info *type;
    clprim_region in, out, seed_at;
    clprim_combine c = clprim_combine_builtin(op);
    CLPRIM_ENTER(s, ctx, function);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_operator(ctx, t, &type, op, user_op, user, &c);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, function, "src", &src, &src_offset, "dst", dst, dst_offset, n, type->size,
                                 &in, &out);
    /* The seed may share src's elements (both are only read), never dst's. */
    if (s == CLPRIM_SUCCESS && seed)
        s = clprim_check_buffer(ctx, "seed", seed, seed_offset, 1, type->size, CLPRIM_READS, &seed_at);
    if (s == CLPRIM_SUCCESS && seed)
        s = clprim_check_disjoint(ctx, function, "seed", &seed_at, "dst", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, function, num_events_in_wait_list, event_wait_list);

    /* With no element the plan only builds the program: an operator that does
     * not compile fails before anything is enqueued, also when n == 0. */
    if (s == CLPRIM_SUCCESS) {
        clprim_plan plan;
        clprim_plan_begin(&plan, "scan");
        if (n > 0) {
            clprim_plan_scan(ctx, &plan, type, &c, exclusive, seed, seed_offset, src, src_offset, dst, dst_offset, n);
        } else if (user_op) {
            clprim_program program;
            clprim_combine_program(ctx, &program, "scan", "scan.cl", &ctx->tuning, type, &c);
            clprim_plan_program(&plan, &program);
        }
        s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    }
    clprim_combine_free(&c);
    return s;
}

clprim_status clprim_scan(clprim_context *ctx, clprim_type t, clprim_op op, int exclusive, cl_mem src,
                          size_t src_offset, cl_mem dst, size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event)
{
    return scan_call(ctx, "clprim_scan", t, op, 0, NULL, exclusive, NULL, 0, src, src_offset, dst, dst_offset, n,
                     num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_scan_op(clprim_context *ctx, clprim_type t, const clprim_operator *op, int exclusive,
                             cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    return scan_call(ctx, "clprim_scan_op", t, CLPRIM_SUM, 1, op, exclusive, NULL, 0, src, src_offset, dst,
                     dst_offset, n, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_scan_seeded(clprim_context *ctx, clprim_type t, clprim_op op, const clprim_operator *custom,
                                 int exclusive, cl_mem seed, size_t seed_offset, cl_mem src, size_t src_offset,
                                 cl_mem dst, size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return scan_call(ctx, "clprim_scan_seeded", t, custom ? CLPRIM_SUM : op, custom != NULL, custom, exclusive,
                     seed, seed_offset, src, src_offset, dst, dst_offset, n, num_events_in_wait_list,
                     event_wait_list, event);
}

/* ---- Descriptor ---- */

/* Per type and built-in operator: the multi-pass kernels (reduce.cl's are
 * reduce's variants) and, where it serves, the one-sweep shape. */
static void scan_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                          const clprim_type_info *type)
{
    (void)t;
    const clprim_tuning sweep_shape = clprim_one_sweep_shape(ctx, &ctx->tuning, type->size);
    for (int op = CLPRIM_SUM; op <= CLPRIM_MAX; op++) {
        const clprim_combine c = clprim_combine_builtin((clprim_op)op);
        clprim_program p;
        clprim_combine_program(ctx, &p, "warm-up", "scan.cl", &ctx->tuning, type, &c);
        clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
        if (clprim_one_sweep_available(ctx)) {
            clprim_combine_program(ctx, &p, "warm-up", "scan.cl", &sweep_shape, type, &c);
            clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
        }
    }
}

const clprim_primitive clprim_scan_primitive = {"scan", scan_variants, NULL};
