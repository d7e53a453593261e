/* Stream compaction in the tuning's form (cl/compact.cl): one-sweep, one
 * launch whose tiles learn the kept counts before them by look-back; or the
 * scan's three-pass skeleton over kept counts: pass 1 counts per work-group,
 * a scan appended to the plan scans the counts in scratch, pass 3 scatters in
 * input order. A partition is the multi-pass form whose pass 3 also writes the
 * rejected elements, in order, after the total kept count; or, over tiles the
 * device runs at once, one launch whose tiles learn every tile's counts. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The grid of compaction and histograms: the tuning's, with twice the groups on
 * GPUs. Both kernels wait on barriers (compaction) or local atomics (histogram)
 * and gain from more resident work-items than the scan: on an H100 at 2^28
 * int32, 1056 groups of 256 (2048 work-items per SM) took compaction from 1.54
 * to 1.20 ms and a 256-bin histogram from 0.88 to 0.52 ms against the table's
 * 528 groups; 264 were twice as slow again. CPUs keep one group per core. */
clprim_tuning clprim_compact_grid(const clprim_context *ctx)
{
    clprim_tuning grid = ctx->tuning;
    if ((ctx->device_type & CL_DEVICE_TYPE_GPU) && grid.groups <= 65536)
        grid.groups *= 2;
    return grid;
}

_Static_assert(CLPRIM_KEEP_LT == PREDICATE_LT && CLPRIM_KEEP_LE == PREDICATE_LE && CLPRIM_KEEP_GT == PREDICATE_GT &&
                   CLPRIM_KEEP_GE == PREDICATE_GE && CLPRIM_KEEP_EQ == PREDICATE_EQ && CLPRIM_KEEP_NE == PREDICATE_NE &&
                   CLPRIM_KEEP_NONZERO == PREDICATE_NONZERO && CLPRIM_KEEP_FLAGGED == PREDICATE_FLAGGED &&
                   CLPRIM_KEEP_EXPRESSION == PREDICATE_EXPRESSION,
               "clprim_keep must match cl/constants.h's PREDICATE_*");

const char *clprim_keep_name(clprim_keep keep)
{
    static const char *const names[] = {
        [CLPRIM_KEEP_LT] = "<",          [CLPRIM_KEEP_LE] = "<=",         [CLPRIM_KEEP_GT] = ">",
        [CLPRIM_KEEP_GE] = ">=",         [CLPRIM_KEEP_EQ] = "==",         [CLPRIM_KEEP_NE] = "!=",
        [CLPRIM_KEEP_NONZERO] = "nonzero", [CLPRIM_KEEP_FLAGGED] = "flagged",
        [CLPRIM_KEEP_EXPRESSION] = "expression",
    };
    return (unsigned)keep < sizeof names / sizeof names[0] ? names[keep] : "unknown";
}

/* One predicate's options: -D<define>_KIND=<kind>, and an expression parsed
 * and written out as -D<define>_EXPR=...; name is the caller's argument. */
static clprim_status predicate_options(clprim_context *ctx, clprim_program *p, clprim_type t, const char *name,
                                       const char *define, const clprim_predicate *keep)
{
    clprim_options_add(&p->options, "-D%s_KIND=%d", define, (int)keep->keep);
    if (keep->keep != CLPRIM_KEEP_EXPRESSION)
        return CLPRIM_SUCCESS;
    const clprim_expression_variable vars[] = {{"x", clprim_scalar_name(t)}, {"i", "ulong"}};
    char what[32], option[32], *expression;
    snprintf(what, sizeof what, "%s->expression", name);
    snprintf(option, sizeof option, "%s_EXPR", define);
    clprim_status s = clprim_parse_expression(ctx, what, keep->expression, vars, 2, &expression);
    if (s == CLPRIM_SUCCESS)
        clprim_expression_option(ctx, &p->options, option, expression);
    free(expression);
    return s;
}

clprim_status clprim_compact_program(clprim_context *ctx, clprim_type t, const clprim_type_info *type,
                                     const clprim_predicate *keep, const clprim_predicate *second,
                                     const clprim_tuning *shape, clprim_program *p)
{
    clprim_program_begin(ctx, p, "compaction", CLPRIM_COMPACT_FILE, shape, type, -1);
    clprim_status s = predicate_options(ctx, p, t, second ? "first" : "keep", "KEEP", keep);
    if (s == CLPRIM_SUCCESS && second)
        s = predicate_options(ctx, p, t, "second", "SECOND", second);
    return s;
}

/* name: the argument ("keep"); flags gets the flag bytes' region (FLAGGED). */
static clprim_status check_predicate(clprim_context *ctx, const char *name, const clprim_predicate *keep, size_t n,
                                     clprim_region *flags)
{
    if (!keep)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s (the predicate) is NULL", name);
    if ((unsigned)keep->keep > CLPRIM_KEEP_EXPRESSION)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "unknown clprim_keep %d in %s->keep", (int)keep->keep, name);
    if (keep->keep <= CLPRIM_KEEP_NE && !keep->value)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s->value is NULL; comparison %s needs one element of the array's type", name,
                           clprim_keep_name(keep->keep));
    if (keep->keep == CLPRIM_KEEP_FLAGGED) {
        char flags_name[32];
        snprintf(flags_name, sizeof flags_name, "%s->flags", name);
        if (!keep->flags)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is NULL (CLPRIM_KEEP_FLAGGED)", flags_name);
        return clprim_check_buffer(ctx, flags_name, keep->flags, keep->flags_offset, n, 1, CLPRIM_READS, flags);
    }
    return CLPRIM_SUCCESS;
}

/* Local memory of cl/compact.cl's kernels at a shape: the scan's (a padded
 * tile and its slots; the one-sweep tile's output order, four bytes an
 * element at most, takes the tile's place) and the look-back's scratch. */
static cl_ulong compact_local_bytes(const clprim_tuning *t, size_t element_bytes)
{
    return clprim_local_bytes_for(t, element_bytes > 4 ? element_bytes : 4) + CLPRIM_LOOKBACK_LOCAL_BYTES;
}

/* A shape the kernels take: the one-sweep form keeps a bit per element of a
 * work-item in one 64-bit word, so work-groups of more than one work-item
 * take at most 64 items (the CPU shape, one work-item, runs loops). */
static int compact_shape_fits(const clprim_context *ctx, const clprim_tuning *t, size_t element_bytes)
{
    return t->work_group_size == 1 ||
           (t->items_per_thread <= 64 && compact_local_bytes(t, element_bytes) <= ctx->local_mem_size);
}

/* The one-sweep tile's items a work-item at most, where work-groups have more
 * than one: past them the tile takes more work-items instead (on an H200,
 * 2^26 int32 compacted in 0.169 ms in tiles of 256 x 32, 0.173 in 128 x 64).
 * The CPU shape's one work-item runs its tile as a loop. */
#define COMPACT_SWEEP_ITEMS 32

clprim_tuning clprim_compact_shape(const clprim_context *ctx, int one_sweep, size_t element_bytes, int partition)
{
    /* A partition's scatter holds a work-item's items in registers: it takes
     * the widest element's shape whatever its type (at int32's, 256 x 32, a
     * partition of 2^26 int32 took 3% longer on an H200 than at 128 x 32, a
     * three-way partition 5%), and where that differs, a program of its own. */
    if (partition)
        element_bytes = sizeof(cl_ulong);
    clprim_tuning grid = clprim_compact_grid(ctx);
    if (one_sweep) {
        /* The sweep's tile in more work-items where it fits (their slots take
         * local memory too), else as the sweep gives it. */
        const clprim_tuning sweep = clprim_one_sweep_shape(ctx, &grid, element_bytes);
        clprim_tuning wider = sweep;
        while (wider.work_group_size > 1 && wider.items_per_thread > COMPACT_SWEEP_ITEMS &&
               wider.work_group_size * 2 <= ctx->max_work_group_size) {
            wider.items_per_thread /= 2;
            wider.work_group_size *= 2;
        }
        if (compact_shape_fits(ctx, &wider, element_bytes) && clprim_shape_compiles(ctx, &wider))
            return wider;
        if (compact_shape_fits(ctx, &sweep, element_bytes))
            return sweep;
    }
    while (grid.items_per_thread > 1 && !compact_shape_fits(ctx, &grid, element_bytes))
        grid.items_per_thread /= 2;
    return grid;
}

/* The multi-pass form's grid, in whole waves of resident work-groups where
 * a chunk's tail is not left to a few: the shape's (twice the tuning's
 * groups on GPUs), except for the two-way partition (partition 1), whose
 * scatter (89 registers a work-item on an H100: five groups of 128 an SM)
 * ran 1024 groups at 2^26 in 1.55 waves; at the tuning's groups (one wave)
 * 2^26 int32 took 0.326 -> 0.313 ms and 2^28 1.25 -> 1.17. The three-way
 * one (119 registers, four an SM) runs two waves at twice. */
clprim_tuning clprim_compaction_grid(const clprim_context *ctx, const clprim_tuning *shape, int partition)
{
    clprim_tuning grid = *shape;
    if (partition == 1)
        grid.groups = ctx->tuning.groups;
    return grid;
}

/* A build failure of an expression says which expression (or both). */
static void expression_failed(clprim_context *ctx, const clprim_compaction *c)
{
    const clprim_predicate *second = c->partition == 2 ? c->second : NULL;
    const int first_is = c->keep->keep == CLPRIM_KEEP_EXPRESSION;
    const int second_is = second && second->keep == CLPRIM_KEEP_EXPRESSION;
    char types[32];
    snprintf(types, sizeof types, "x: %s", c->type->label);
    if (first_is && second_is) {
        const size_t size = strlen(c->keep->expression) + strlen(second->expression) + 8;
        char *both = malloc(size);
        if (both)
            snprintf(both, size, "%s\" and \"%s", c->keep->expression, second->expression);
        clprim_expression_build_failed(ctx, "the first and second expressions", both ? both : "?", types);
        free(both);
    } else if (first_is || second_is) {
        clprim_expression_build_failed(ctx, !second ? "the keep expression" : first_is ? "the first expression"
                                                                                     : "the second expression",
                                       first_is ? c->keep->expression : second->expression, types);
    }
}

/* clprim_compact, clprim_partition and clprim_partition_three_way: every
 * check, then the plan. */
static clprim_status compaction_call(clprim_context *ctx, const char *fn, clprim_compaction c,
                                     cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                     cl_event *event)
{
    /* A three-way partition's arguments are first, second and counts_buffer (two counts). */
    const int three_way = c.partition == 2;
    const char *keep_name = three_way ? "first" : "keep", *count_name = three_way ? "counts_buffer" : "kept_buffer";
    const char *flags_name = three_way ? "first->flags" : "keep->flags";
    clprim_region flag_bytes = {0}, second_flag_bytes = {0}, src_bytes, dst_bytes, kept_bytes = {0};
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, c.t, &c.type);
    if (s == CLPRIM_SUCCESS)
        s = check_predicate(ctx, keep_name, c.keep, c.n, &flag_bytes);
    if (s == CLPRIM_SUCCESS && three_way)
        s = check_predicate(ctx, "second", c.second, c.n, &second_flag_bytes);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, fn, "src", &c.src, &c.src_offset, "dst", c.dst, c.dst_offset, c.n, c.type->size,
                                 &src_bytes, &dst_bytes);
    if (s == CLPRIM_SUCCESS && c.kept_buffer)
        s = clprim_check_buffer(ctx, count_name, c.kept_buffer, c.kept_offset, three_way ? 2 : 1, sizeof(cl_ulong),
                                CLPRIM_WRITES, &kept_bytes);
    /* Outputs meet nothing but src in place; empty regions meet nothing. */
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, flags_name, &flag_bytes, "dst", &dst_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "second->flags", &second_flag_bytes, "dst", &dst_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, count_name, &kept_bytes, "dst", &dst_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, count_name, &kept_bytes, "src", &src_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, count_name, &kept_bytes, flags_name, &flag_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, count_name, &kept_bytes, "second->flags", &second_flag_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    cl_ulong totals[2];
    clprim_plan_begin(&plan, three_way ? "three-way partition" : "compaction");
    s = clprim_plan_compaction(ctx, &plan, &c, totals);
    if (s == CLPRIM_SUCCESS)
        s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    else
        clprim_plan_end(&plan);
    /* The other programs are the library's own: a build failure is an expression's. */
    if (s == CLPRIM_BUILD_FAILED)
        expression_failed(ctx, &c);
    if (s == CLPRIM_SUCCESS && c.kept)
        *c.kept = (size_t)totals[0];
    if (s == CLPRIM_SUCCESS && c.second_kept)
        *c.second_kept = (size_t)totals[1];
    return s;
}

clprim_status clprim_compact(clprim_context *ctx, clprim_type t, const clprim_predicate *keep, cl_mem src,
                             size_t src_offset, cl_mem dst, size_t dst_offset, size_t n, size_t *kept,
                             cl_mem kept_buffer, size_t kept_offset, cl_uint num_events_in_wait_list,
                             const cl_event *event_wait_list, cl_event *event)
{
    const clprim_compaction c = {t, NULL, keep, src, src_offset, dst, dst_offset, n, kept, kept_buffer, kept_offset, 0,
                                 NULL, NULL};
    return compaction_call(ctx, "clprim_compact", c, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_partition(clprim_context *ctx, clprim_type t, const clprim_predicate *keep, cl_mem src,
                               size_t src_offset, cl_mem dst, size_t dst_offset, size_t n, size_t *kept,
                               cl_mem kept_buffer, size_t kept_offset, cl_uint num_events_in_wait_list,
                               const cl_event *event_wait_list, cl_event *event)
{
    const clprim_compaction c = {t, NULL, keep, src, src_offset, dst, dst_offset, n, kept, kept_buffer, kept_offset, 1,
                                 NULL, NULL};
    return compaction_call(ctx, "clprim_partition", c, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_partition_three_way(clprim_context *ctx, clprim_type t, const clprim_predicate *first,
                                         const clprim_predicate *second, cl_mem src, size_t src_offset, cl_mem dst,
                                         size_t dst_offset, size_t n, size_t *first_count, size_t *second_count,
                                         cl_mem counts_buffer, size_t counts_offset, cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event)
{
    const clprim_compaction c = {t,          NULL,          first,       src,           src_offset,    dst,
                                 dst_offset, n,             first_count, counts_buffer, counts_offset, 2,
                                 second,     second_count};
    return compaction_call(ctx, "clprim_partition_three_way", c, num_events_in_wait_list, event_wait_list, event);
}

/* A predicate's kernel arguments: its flags (src, never read, unless FLAGGED;
 * NULL stands for the scratch), their offset and its value (the widest
 * element; the kernels take es bytes of it). */
typedef struct {
    cl_mem flags;
    cl_ulong flags_offset, value;
} predicate_args;

static predicate_args predicate_args_of(const clprim_predicate *keep, cl_mem src, size_t es)
{
    predicate_args a = {src, 0, 0};
    if (keep->keep == CLPRIM_KEEP_FLAGGED) {
        a.flags = keep->flags;
        a.flags_offset = keep->flags_offset;
    }
    if (keep->keep <= CLPRIM_KEEP_NE)
        memcpy(&a.value, keep->value, es);
    return a;
}

clprim_status clprim_plan_compaction(clprim_context *ctx, clprim_plan *plan, const clprim_compaction *c,
                                     cl_ulong *total)
{
    const clprim_predicate *keep = c->keep, *second = c->partition == 2 ? c->second : NULL;
    const size_t es = c->type->size, n = c->n, lists = second ? 2 : 1; /* counts a chunk, results */
    total[0] = 0;
    if (second)
        total[1] = 0;
    plan->blocking |= c->kept || (second && c->second_kept);

    /* The program is the one-sweep form's wherever that form is available,
     * even for the calls that run its multi-pass kernels (a partition, n == 0,
     * more tiles than 32 bits count): one program per predicate and use on
     * every device. It is built also when there is nothing to compact, so that
     * an expression that does not compile fails at n == 0 too. */
    const int available = clprim_one_sweep_available(ctx);
    const clprim_tuning shape = clprim_compact_shape(ctx, available, es, c->partition);
    clprim_program program;
    const clprim_status s = clprim_compact_program(ctx, c->t, c->type, keep, second, &shape, &program);
    if (s != CLPRIM_SUCCESS) {
        clprim_program_end(&program);
        return s;
    }
    const unsigned compact_cl = clprim_plan_program(plan, &program);
    if (n == 0 && !c->kept_buffer) /* no count to write */
        return CLPRIM_SUCCESS;

    /* One-sweep, a tile a work-group and the records they exchange; or the
     * split of n over the grid, where each group's first output position
     * comes from (as in the scan: none for one group; each group folds the
     * counts before it while they fit a tile; else their scan, appended to the
     * plan). A partition places the rejected elements after the total kept
     * count, which a one-sweep tile does not know: over tiles the device runs
     * at once, each tile learns every tile's counts (a census); else it runs
     * the multi-pass form, whose one group counts first too, when there is
     * anything to place. A three-way partition counts two lists, each chunk's
     * first part then each chunk's second, scanned as one. Scratch: counts
     * (multi-pass) | the totals | the input copy (in place) | the counts'
     * scan. */
    const size_t tiles = available && !c->partition ? clprim_one_sweep_tiles(&shape, n) : 0;
    const size_t census = available && c->partition ? clprim_census_tiles(ctx, &shape, n) : 0;
    const int one_launch = tiles > 0 || census > 0;
    const int in_place = c->src == c->dst && c->src_offset == c->dst_offset && n > 0;
    const clprim_tuning grid = clprim_compaction_grid(ctx, &shape, c->partition);
    const clprim_split split = clprim_split_range(&grid, n);
    const int groups_mode = clprim_seed_mode(&shape, &split);
    const cl_int seed_mode = c->partition && n > 0 && groups_mode == SEED_NONE ? SEED_FOLD : groups_mode;
    const cl_int partition = c->partition != 0;
    const cl_ulong counts_offset =
        clprim_layout_part(&plan->scratch, one_launch ? 0 : lists * split.groups * sizeof(cl_ulong)) / sizeof(cl_ulong);
    const size_t total_at = clprim_layout_part(&plan->scratch, lists * sizeof(cl_ulong));
    const size_t copy_at = in_place ? clprim_layout_part(&plan->scratch, n * es) : 0;

    /* The input copy (in place, at the context's tuning's grid); the one
     * sweep, or the counts and their scan (many groups) then the scatter; and
     * the kept count read back when asked for. */
    const cl_mem in = in_place ? NULL : c->src;
    const cl_ulong in_offset = in_place ? copy_at / es : c->src_offset;
    const cl_ulong count = n;
    if (in_place) {
        const cl_ulong from = c->src_offset;
        CLPRIM_PLAN_LAUNCH(plan, compact_cl, "copy_elements", clprim_fill_groups(&ctx->tuning, n), CLPRIM_ARG(c->src),
                           CLPRIM_ARG(from), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(in_offset), CLPRIM_ARG(count));
    }
    predicate_args first = predicate_args_of(keep, in, es), other = predicate_args_of(second ? second : keep, in, es);
    const cl_int write_count = c->kept || (second && c->second_kept) || c->kept_buffer;
    const cl_ulong count_offset = c->kept_buffer ? c->kept_offset : total_at / sizeof(cl_ulong);
    const cl_ulong out_offset = c->dst_offset;
    /* The second predicate's arguments close its kernels' lists (three-way only). */
    const size_t seconds = second ? 3 : 0;
    if (tiles) {
        clprim_launch *l = CLPRIM_PLAN_LAUNCH(
            plan, compact_cl, "compact_tiles", tiles, CLPRIM_BUFFER_ARG(in), CLPRIM_ARG(in_offset),
            CLPRIM_BUFFER_ARG(first.flags), CLPRIM_ARG(first.flags_offset), CLPRIM_BYTES(es, &first.value),
            CLPRIM_ARG(c->dst), CLPRIM_ARG(out_offset), CLPRIM_ARG(count), CLPRIM_RECORDS_ARG, CLPRIM_STAMP_ARG,
            CLPRIM_BUFFER_ARG(c->kept_buffer), CLPRIM_ARG(count_offset), CLPRIM_ARG(write_count));
        if (l) {
            l->record_tiles = tiles;
            l->record_bytes = sizeof(cl_ulong);
        }
    } else if (census) {
        const clprim_arg args[] = {CLPRIM_BUFFER_ARG(in),          CLPRIM_ARG(in_offset),
                                   CLPRIM_BUFFER_ARG(first.flags), CLPRIM_ARG(first.flags_offset),
                                   CLPRIM_BYTES(es, &first.value), CLPRIM_ARG(c->dst),
                                   CLPRIM_ARG(out_offset),         CLPRIM_ARG(count),
                                   CLPRIM_RECORDS_ARG,             CLPRIM_STAMP_ARG,
                                   CLPRIM_BUFFER_ARG(c->kept_buffer), CLPRIM_ARG(count_offset),
                                   CLPRIM_ARG(write_count),        CLPRIM_BUFFER_ARG(other.flags),
                                   CLPRIM_ARG(other.flags_offset), CLPRIM_BYTES(es, &other.value)};
        clprim_launch *l = clprim_plan_launch(plan, compact_cl, "partition_tiles", census, args,
                                              sizeof args / sizeof *args - 3 + seconds);
        if (l) {
            l->record_tiles = census;
            l->record_bytes = lists * sizeof(cl_uint); /* the tile's counts */
        }
    } else {
        if (seed_mode != SEED_NONE) {
            const clprim_arg args[] = {CLPRIM_BUFFER_ARG(in),          CLPRIM_ARG(in_offset),
                                       CLPRIM_BUFFER_ARG(first.flags), CLPRIM_ARG(first.flags_offset),
                                       CLPRIM_BYTES(es, &first.value), CLPRIM_ARG(count),
                                       CLPRIM_ARG(split.chunk),        CLPRIM_SCRATCH_ARG,
                                       CLPRIM_ARG(counts_offset),      CLPRIM_BUFFER_ARG(other.flags),
                                       CLPRIM_ARG(other.flags_offset), CLPRIM_BYTES(es, &other.value)};
            clprim_plan_launch(plan, compact_cl, "count_chunks", split.groups, args,
                               sizeof args / sizeof *args - 3 + seconds);
        }
        if (seed_mode == SEED_SCANNED) {
            const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM);
            clprim_plan_scan(ctx, plan, clprim_type_info_of(CLPRIM_UINT64), &sum, 0, NULL, 0, NULL, counts_offset,
                             NULL, counts_offset, lists * split.groups);
        }
        const clprim_arg args[] = {CLPRIM_BUFFER_ARG(in),          CLPRIM_ARG(in_offset),
                                   CLPRIM_BUFFER_ARG(first.flags), CLPRIM_ARG(first.flags_offset),
                                   CLPRIM_BYTES(es, &first.value), CLPRIM_ARG(c->dst),
                                   CLPRIM_ARG(out_offset),         CLPRIM_ARG(count),
                                   CLPRIM_ARG(split.chunk),        CLPRIM_SCRATCH_ARG,
                                   CLPRIM_ARG(counts_offset),      CLPRIM_ARG(seed_mode),
                                   CLPRIM_BUFFER_ARG(c->kept_buffer), CLPRIM_ARG(count_offset),
                                   CLPRIM_ARG(write_count),        CLPRIM_ARG(partition),
                                   CLPRIM_BUFFER_ARG(other.flags), CLPRIM_ARG(other.flags_offset),
                                   CLPRIM_BYTES(es, &other.value)};
        clprim_plan_launch(plan, compact_cl, "scatter_chunks", split.groups, args,
                           sizeof args / sizeof *args - 3 + seconds);
    }
    if (c->kept || (second && c->second_kept))
        clprim_plan_read(plan, c->kept_buffer, count_offset * sizeof *total, lists * sizeof *total, total);
    return CLPRIM_SUCCESS;
}

/* clprim_find_if: each group's first match (scratch), folded with MIN into
 * the caller's index; one group writes it directly. The program is
 * compaction's for the predicate, so one build serves both. */
static void plan_find(clprim_context *ctx, clprim_plan *plan, clprim_program *program, const clprim_type_info *type,
                      const clprim_predicate *keep, cl_mem src, size_t src_offset, size_t n, cl_mem index,
                      size_t index_offset)
{
    const clprim_split split = clprim_split_range(&program->shape, n);
    const unsigned compact_cl = clprim_plan_program(plan, program); /* takes the program over */
    const int folds = split.groups > 1;
    const cl_ulong found_span = clprim_layout_part(&plan->scratch, sizeof(cl_uint)) / sizeof(cl_uint);
    const cl_ulong firsts = clprim_layout_part(&plan->scratch, split.groups * sizeof(cl_ulong)) / sizeof(cl_ulong);
    const cl_ulong one = 1, count = n, in_offset = src_offset, answer = index_offset, groups = split.groups;
    const cl_int none = -1;
    predicate_args judged = predicate_args_of(keep, src, type->size);
    CLPRIM_PLAN_LAUNCH(plan, compact_cl, "fill_words", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(found_span), CLPRIM_ARG(one),
                       CLPRIM_ARG(none));
    CLPRIM_PLAN_LAUNCH(plan, compact_cl, "find_first_chunks", split.groups, CLPRIM_ARG(src), CLPRIM_ARG(in_offset),
                       CLPRIM_ARG(judged.flags), CLPRIM_ARG(judged.flags_offset),
                       CLPRIM_BYTES(type->size, &judged.value),
                       CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), folds ? CLPRIM_SCRATCH_ARG : CLPRIM_ARG(index),
                       folds ? CLPRIM_ARG(firsts) : CLPRIM_ARG(answer), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(found_span));
    if (folds) {
        const clprim_combine min = clprim_combine_builtin(CLPRIM_MIN);
        clprim_program fold;
        clprim_combine_program(ctx, &fold, "find", "reduce.cl", &ctx->tuning, clprim_type_info_of(CLPRIM_UINT64),
                               &min);
        const unsigned reduce_cl = clprim_plan_program(plan, &fold);
        CLPRIM_PLAN_LAUNCH(plan, reduce_cl, "reduce_chunks", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(firsts),
                           CLPRIM_ARG(groups), CLPRIM_ARG(groups), CLPRIM_ARG(index), CLPRIM_ARG(answer));
    }
}

clprim_status clprim_find_if(clprim_context *ctx, clprim_type t, const clprim_predicate *keep, cl_mem src,
                             size_t src_offset, size_t n, cl_mem index, size_t index_offset,
                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    static const char *const fn = "clprim_find_if";
    const clprim_type_info *type;
    clprim_region flag_bytes = {0}, src_bytes, index_bytes;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, t, &type);
    if (s == CLPRIM_SUCCESS)
        s = check_predicate(ctx, "keep", keep, n, &flag_bytes);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, src_offset, n, type->size, CLPRIM_READS, &src_bytes);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "index", index, index_offset, 1, sizeof(cl_ulong), CLPRIM_WRITES, &index_bytes);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "src", &src_bytes, "index", &index_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "keep->flags", &flag_bytes, "index", &index_bytes, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    const clprim_tuning shape = clprim_compact_shape(ctx, clprim_one_sweep_available(ctx), type->size, 0);
    clprim_program program;
    s = clprim_compact_program(ctx, t, type, keep, NULL, &shape, &program);
    if (s != CLPRIM_SUCCESS) {
        clprim_program_end(&program);
        return s;
    }
    clprim_plan plan;
    clprim_plan_begin(&plan, "find");
    plan_find(ctx, &plan, &program, type, keep, src, src_offset, n, index, index_offset);
    s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    if (s == CLPRIM_BUILD_FAILED) {
        const clprim_compaction c = {.t = t, .type = type, .keep = keep};
        expression_failed(ctx, &c);
    }
    return s;
}

/* ---- Descriptor ---- */

/* Per type and predicate kind, but expressions (compiled per expression, like
 * callers' operators): compaction's program, and the two-way partition's
 * where its shape differs. */
static void compact_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                             const clprim_type_info *type)
{
    const int one_sweep = clprim_one_sweep_available(ctx);
    const clprim_tuning shapes[2] = {clprim_compact_shape(ctx, one_sweep, type->size, 0),
                                     clprim_compact_shape(ctx, one_sweep, type->size, 1)};
    const int partition_own = shapes[1].work_group_size != shapes[0].work_group_size ||
                              shapes[1].items_per_thread != shapes[0].items_per_thread;
    for (int keep = CLPRIM_KEEP_LT; keep < CLPRIM_KEEP_EXPRESSION; keep++)
        for (int s = 0; s <= partition_own; s++) {
            const clprim_predicate predicate = {.keep = (clprim_keep)keep};
            clprim_program p;
            clprim_walk_variant(walk, clprim_compact_program(ctx, t, type, &predicate, NULL, &shapes[s], &p), &p);
        }
}

const clprim_primitive clprim_compact_primitive = {"compact", compact_variants, NULL};
