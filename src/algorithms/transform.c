/* Element-wise calls (cl/transform.cl): a caller's function of one or two
 * arrays into an array, and the adjacent difference. Each is one launch over
 * the split of n that reduce uses; the function's program is also pass 1 of
 * clprim_transform_reduce (reduce.c). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRANSFORM_FILE "transform.cl"

/* The split of n for a kernel that keeps nothing across tiles: on GPUs, as
 * many groups as a tile each up to 64 times the tuning's grid. On an H100 at
 * 2^26 int32, a transform took 1.22 copies over the tuning's 528 groups and
 * 1.10 over 33792 (one tile each); 2112 and 8448 fell between. CPUs keep
 * their grid: a core runs through a chunk. */
static clprim_split elementwise_split(const clprim_context *ctx, size_t n)
{
    clprim_tuning grid = ctx->tuning;
    if ((ctx->device_type & CL_DEVICE_TYPE_GPU) && grid.groups <= SIZE_MAX / 64)
        grid.groups *= 64;
    return clprim_split_range(&grid, n);
}

clprim_status clprim_check_map(clprim_context *ctx, const char *function, const clprim_map *f, size_t n,
                               clprim_mapped *m)
{
    *m = (clprim_mapped){.f = f};
    if (!f)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: f (the function) is NULL", function);
    clprim_status s = clprim_check_type(ctx, f->x_type, &m->x);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "f->x", f->x, f->x_offset, n, m->x->size, CLPRIM_READS, &m->x_bytes);
    if (s == CLPRIM_SUCCESS && f->y)
        s = clprim_check_type(ctx, f->y_type, &m->y);
    if (s == CLPRIM_SUCCESS && f->y)
        s = clprim_check_buffer(ctx, "f->y", f->y, f->y_offset, n, m->y->size, CLPRIM_READS, &m->y_bytes);
    if (s != CLPRIM_SUCCESS)
        return s;
    const clprim_expression_variable vars[] = {
        {"x", m->x->scalar}, {"i", "ulong"}, {"y", f->y ? m->y->scalar : NULL}};
    return clprim_parse_expression(ctx, "f->expression", f->expression, vars, f->y ? 3 : 2, &m->expression);
}

void clprim_mapped_free(clprim_mapped *m)
{
    free(m->expression);
    m->expression = NULL;
}

void clprim_map_options(const clprim_context *ctx, clprim_program *p, const clprim_mapped *m)
{
    clprim_options_add(&p->options, "-DX_TYPE=%s", m->x->name);
    if (m->y)
        clprim_options_add(&p->options, "-DY_TYPE=%s", m->y->name);
    clprim_expression_option(ctx, &p->options, "MAP", m->expression);
}

cl_mem clprim_map_second(const clprim_mapped *m, cl_ulong *offset)
{
    /* Without a second input the kernels never read it; x stands in. */
    *offset = m->f->y ? m->f->y_offset : m->f->x_offset;
    return m->f->y ? m->f->y : m->f->x;
}

/* A build failure names the caller's expression and the type it goes to. */
static void expression_failed(clprim_context *ctx, const char *what, const char *expression,
                              const clprim_type_info *type)
{
    char types[32];
    snprintf(types, sizeof types, "to %s", type->label);
    clprim_expression_build_failed(ctx, what, expression, types);
}

clprim_status clprim_map_execute(clprim_context *ctx, clprim_plan *plan, const clprim_mapped *m,
                                 const clprim_type_info *to, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    const clprim_status s = clprim_execute(ctx, plan, num_events_in_wait_list, event_wait_list, event);
    if (s == CLPRIM_BUILD_FAILED) /* the library's own kernels build: the expression failed */
        expression_failed(ctx, "f->expression", m->f->expression, to);
    return s;
}

clprim_status clprim_transform(clprim_context *ctx, const clprim_map *f, size_t n, clprim_type dst_type, cl_mem dst,
                               size_t dst_offset, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event)
{
    static const char *const function = "clprim_transform";
    const clprim_type_info *to;
    clprim_mapped m = {0};
    clprim_region out;
    CLPRIM_ENTER(s, ctx, function);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, dst_type, &to);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_map(ctx, function, f, n, &m);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "dst", dst, dst_offset, n, to->size, CLPRIM_WRITES, &out);
    /* In place: each work-item reads its elements before it writes them. */
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, function, "f->x", &m.x_bytes, "dst", &out, 1);
    if (s == CLPRIM_SUCCESS && f->y)
        s = clprim_check_disjoint(ctx, function, "f->y", &m.y_bytes, "dst", &out, 1);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, function, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS) {
        clprim_plan plan;
        clprim_plan_begin(&plan, "transform");
        clprim_program program;
        clprim_program_begin(ctx, &program, "transform", TRANSFORM_FILE, &ctx->tuning, to, -1);
        clprim_map_options(ctx, &program, &m);
        const unsigned transform_cl = clprim_plan_program(&plan, &program);
        if (n > 0) {
            const clprim_split split = elementwise_split(ctx, n);
            const cl_ulong count = n, x_offset = f->x_offset, out_offset = dst_offset;
            cl_ulong y_offset;
            const cl_mem y = clprim_map_second(&m, &y_offset);
            CLPRIM_PLAN_LAUNCH(&plan, transform_cl, "transform", split.groups, CLPRIM_ARG(f->x),
                               CLPRIM_ARG(x_offset), CLPRIM_ARG(y), CLPRIM_ARG(y_offset), CLPRIM_ARG(count),
                               CLPRIM_ARG(split.chunk), CLPRIM_ARG(dst), CLPRIM_ARG(out_offset));
        }
        s = clprim_map_execute(ctx, &plan, &m, to, num_events_in_wait_list, event_wait_list, event);
    }
    clprim_mapped_free(&m);
    return s;
}

/* The adjacent difference's program: "a - b" unless the caller gives one. */
static clprim_status difference_program(clprim_context *ctx, const clprim_type_info *type, const char *difference,
                                        clprim_program *p)
{
    clprim_program_begin(ctx, p, "adjacent difference", TRANSFORM_FILE, &ctx->tuning, type, -1);
    if (!difference) {
        clprim_options_add(&p->options, "-DDIFFERENCE=(a-b)");
        return CLPRIM_SUCCESS;
    }
    const clprim_expression_variable vars[] = {{"a", type->scalar}, {"b", type->scalar}};
    char *expression;
    const clprim_status s = clprim_parse_expression(ctx, "difference", difference, vars, 2, &expression);
    if (s == CLPRIM_SUCCESS)
        clprim_expression_option(ctx, &p->options, "DIFFERENCE", expression);
    free(expression);
    return s;
}

clprim_status clprim_adjacent_difference(clprim_context *ctx, clprim_type t, const char *difference, cl_mem src,
                                         size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                         cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                         cl_event *event)
{
    static const char *const function = "clprim_adjacent_difference";
    const clprim_type_info *type;
    clprim_region in, out;
    clprim_program program = {0};
    CLPRIM_ENTER(s, ctx, function);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_type(ctx, t, &type);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, src_offset, n, type->size, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "dst", dst, dst_offset, n, type->size, CLPRIM_WRITES, &out);
    /* Not in place: element i - 1 is read by another work-item than writes it. */
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, function, "src", &in, "dst", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, function, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS)
        s = difference_program(ctx, type, difference, &program);
    if (s != CLPRIM_SUCCESS) {
        clprim_program_end(&program);
        return s;
    }
    clprim_plan plan;
    clprim_plan_begin(&plan, "adjacent difference");
    const unsigned transform_cl = clprim_plan_program(&plan, &program);
    if (n > 0) {
        const clprim_split split = elementwise_split(ctx, n);
        const cl_ulong count = n, in_offset = src_offset, out_offset = dst_offset;
        CLPRIM_PLAN_LAUNCH(&plan, transform_cl, "adjacent_difference", split.groups, CLPRIM_ARG(src),
                           CLPRIM_ARG(in_offset), CLPRIM_ARG(count), CLPRIM_ARG(split.chunk), CLPRIM_ARG(dst),
                           CLPRIM_ARG(out_offset));
    }
    s = clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
    if (s == CLPRIM_BUILD_FAILED && difference)
        expression_failed(ctx, "difference", difference, type);
    return s;
}

/* ---- Descriptor ---- */

/* The default difference per type; callers' functions compile per expression. */
static void transform_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                               const clprim_type_info *type)
{
    (void)t;
    clprim_program p;
    clprim_walk_variant(walk, difference_program(ctx, type, NULL, &p), &p);
}

const clprim_primitive clprim_transform_primitive = {"transform", transform_variants, NULL};
