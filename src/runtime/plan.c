/* What every driver's plan and enqueue steps share: build options that grow,
 * the shape a program is built with and its kernels are launched at, scratch
 * laid out in aligned parts, and launches whose argument counts are derived. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Build options ---- */

void clprim_options_add(clprim_options *o, const char *fmt, ...)
{
    if (o->out_of_memory)
        return;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    const int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    const size_t need = o->length + (o->length ? 1 : 0) + (size_t)(len > 0 ? len : 0) + 1;
    if (len < 0 || need > o->capacity) {
        size_t capacity = o->capacity ? o->capacity : 256;
        while (capacity < need)
            capacity *= 2;
        char *text = len < 0 ? NULL : realloc(o->text, capacity);
        if (!text) {
            o->out_of_memory = 1;
            va_end(again);
            return;
        }
        o->text = text;
        o->capacity = capacity;
    }
    if (o->length)
        o->text[o->length++] = ' ';
    vsnprintf(o->text + o->length, o->capacity - o->length, fmt, again);
    va_end(again);
    o->length += (size_t)len;
}

const char *clprim_options_text(const clprim_options *o)
{
    return o->text ? o->text : "";
}

void clprim_options_free(clprim_options *o)
{
    free(o->text);
    *o = (clprim_options){0};
}

/* ---- Programs and passes ---- */

void clprim_program_begin(const clprim_context *ctx, clprim_program *p, const char *purpose, const char *file,
                          const clprim_tuning *shape, const clprim_type_info *type, int op)
{
#define OP_NAME(NAME) [CLPRIM_##NAME] = #NAME,
    static const char *const op_names[] = {CLPRIM_OPS(OP_NAME)}; /* cl/types.h */
#undef OP_NAME
    _Static_assert(sizeof op_names / sizeof op_names[0] == CLPRIM_MAX + 1,
                   "cl/types.h's CLPRIM_OPS must list every clprim_op");
    *p = (clprim_program){.purpose = purpose, .file = file, .shape = *shape};
    if (type)
        clprim_options_add(&p->options, "-DTYPE=%s", type->name);
    if (op >= 0)
        clprim_options_add(&p->options, "-DOP=%s", op_names[op]);
    clprim_options_add(&p->options, "-DWG=%zu -DITEMS=%zu", shape->work_group_size, shape->items_per_thread);
    if (ctx->device_type & CL_DEVICE_TYPE_CPU)
        clprim_options_add(&p->options, "-DDEVICE_CPU");
    if (clprim_plain_status_words(ctx))
        clprim_options_add(&p->options, "-DSTATUS_PLAIN_WORDS"); /* cl/block/lookback.cl */
    if (ctx->lookback_reversed)
        clprim_options_add(&p->options, "-DLOOKBACK_REVERSED");
    if (ctx->lookback_sparse)
        clprim_options_add(&p->options, "-DLOOKBACK_SPARSE");
    if (clprim_lookback_waits(ctx))
        clprim_options_add(&p->options, "-DLOOKBACK_WAITS"); /* cl/block/lookback.cl */
    const int warps = clprim_warps(ctx, shape->work_group_size);
    if (warps != NO_WARPS) /* cl/block/warp.cl */
        clprim_options_add(&p->options, warps == PTX_WARPS ? "-DHAS_WARPS -DWARP_PTX" : "-DHAS_WARPS");
    if (ctx->extra_build_options[0])
        clprim_options_add(&p->options, "%s", ctx->extra_build_options);
}

void clprim_program_end(clprim_program *p)
{
    clprim_options_free(&p->options);
}

clprim_status clprim_program_prepare(clprim_context *ctx, const clprim_program *p)
{
    if (p->options.out_of_memory)
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "%s: out of host memory for the build options of %s",
                           p->purpose, p->file);
    return clprim_prepare_program(ctx, p->file, clprim_options_text(&p->options));
}

clprim_status clprim_pass_of(clprim_context *ctx, const clprim_program *p, const char *kernel, clprim_pass *pass)
{
    *pass = (clprim_pass){.purpose = p->purpose, .kernel_name = kernel, .local = p->shape.work_group_size};
    if (p->options.out_of_memory)
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "%s: out of host memory for the build options of %s",
                           p->purpose, p->file);
    return clprim_get_kernel(ctx, p->file, clprim_options_text(&p->options), kernel, &pass->kernel);
}

clprim_status clprim_enqueue_pass(clprim_context *ctx, const clprim_pass *pass, size_t groups,
                                  const clprim_arg *args, size_t nargs, cl_event *event)
{
    for (size_t i = 0; i < nargs; i++) {
        cl_int err = clSetKernelArg(pass->kernel, (cl_uint)i, args[i].size, args[i].value);
        if (err != CL_SUCCESS)
            return clprim_fail_cl(ctx, err, "%s (%s): setting argument %zu", pass->purpose, pass->kernel_name, i);
    }
    size_t local = pass->local, global = groups * local;
    cl_event kept = NULL;
    const int keep = ctx->profiling == CLPRIM_PROFILE_EVERY || (ctx->profiling && ctx->profile_end);
    const size_t room = sizeof ctx->profiled / sizeof ctx->profiled[0];
    if (keep && ctx->nprofiled == room) /* the latest launch takes the last place: the time still ends with it */
        clReleaseEvent(ctx->profiled[--ctx->nprofiled]);
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, pass->kernel, 1, NULL, &global, &local, 0, NULL,
                                        event || keep ? &kept : NULL);
    if (err == CL_SUCCESS && keep) {
        clRetainEvent(kept);
        clprim_launch_time *t = &ctx->profiled_launch[ctx->nprofiled];
        snprintf(t->kernel, sizeof t->kernel, "%s", pass->kernel_name);
        t->groups = groups;
        t->local = local;
        ctx->profiled[ctx->nprofiled++] = kept;
    }
    if (err == CL_SUCCESS && event)
        *event = kept;
    else if (kept)
        clReleaseEvent(kept);
    if (err == CL_INVALID_WORK_GROUP_SIZE)
        return clprim_fail_cl(ctx, err,
                              "%s (%s): the device refused work-groups of %zu (see clprim_set_tuning or "
                              "$CLPRIM_TUNING)",
                              pass->purpose, pass->kernel_name, local);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "%s (%s): enqueueing %zu work-groups of %zu", pass->purpose,
                              pass->kernel_name, groups, local);
    return CLPRIM_SUCCESS;
}

size_t clprim_fill_groups(const clprim_tuning *shape, size_t n)
{
    const size_t wg = shape->work_group_size, wanted = n / wg + (n % wg != 0), most = shape->groups * 4;
    const size_t groups = wanted < most ? wanted : most;
    return groups ? groups : 1;
}

/* ---- Scratch ---- */

size_t clprim_layout_part(clprim_layout *l, size_t bytes)
{
    const size_t at = l->bytes;
    const size_t rounded = bytes + (CLPRIM_SCRATCH_ALIGN - 1);
    if (rounded < bytes || at > SIZE_MAX - rounded / CLPRIM_SCRATCH_ALIGN * CLPRIM_SCRATCH_ALIGN)
        l->overflow = 1;
    else
        l->bytes = at + rounded / CLPRIM_SCRATCH_ALIGN * CLPRIM_SCRATCH_ALIGN;
    return at;
}

clprim_status clprim_layout_scratch(clprim_context *ctx, const char *purpose, const clprim_layout *l, cl_mem *buf)
{
    if (l->overflow)
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "%s: the scratch it needs overflows size_t", purpose);
    return clprim_scratch(ctx, l->bytes, buf);
}

/* ---- Plans ---- */

void clprim_plan_begin(clprim_plan *plan, const char *purpose)
{
    *plan = (clprim_plan){.purpose = purpose};
}

unsigned clprim_plan_program(clprim_plan *plan, clprim_program *p)
{
    for (unsigned i = 0; i < plan->nprograms; i++)
        if (plan->programs[i].file == p->file &&
            !strcmp(clprim_options_text(&plan->programs[i].options), clprim_options_text(&p->options))) {
            clprim_program_end(p);
            return i;
        }
    if (plan->nprograms == CLPRIM_PLAN_PROGRAMS) { /* a planning error: more programs than a plan holds */
        plan->failed = 1;
        clprim_program_end(p);
        return 0;
    }
    plan->programs[plan->nprograms] = *p;
    *p = (clprim_program){0};
    return plan->nprograms++;
}

clprim_launch *clprim_plan_launch(clprim_plan *plan, unsigned program, const char *kernel, size_t groups,
                                  const clprim_arg *args, size_t nargs)
{
    if (plan->failed || program >= plan->nprograms || nargs > CLPRIM_LAUNCH_ARGS) {
        plan->failed = 1;
        return NULL;
    }
    if (plan->nlaunches == plan->capacity) {
        const size_t capacity = plan->capacity ? 2 * plan->capacity : 8;
        clprim_launch *grown = realloc(plan->launches, capacity * sizeof *grown);
        if (!grown) {
            plan->failed = 1;
            return NULL;
        }
        plan->launches = grown;
        plan->capacity = capacity;
    }
    clprim_launch *l = &plan->launches[plan->nlaunches++];
    *l = (clprim_launch){.program = program, .kernel = kernel, .groups = groups, .nargs = (unsigned)nargs};
    for (size_t i = 0; i < nargs; i++) {
        clprim_launch_arg *a = &l->args[i];
        a->role = args[i].role;
        a->size = args[i].size;
        a->local = !args[i].value && !args[i].role;
        if (args[i].value && args[i].size <= sizeof a->value)
            memcpy(a->value, args[i].value, args[i].size);
        else if (args[i].value)
            plan->failed = 1;
    }
    return l;
}

void clprim_plan_read(clprim_plan *plan, cl_mem buffer, size_t offset, size_t bytes, void *host)
{
    if (plan->nreads == CLPRIM_PLAN_READS) {
        plan->failed = 1;
        return;
    }
    plan->reads[plan->nreads].buffer = buffer;
    plan->reads[plan->nreads].offset = offset;
    plan->reads[plan->nreads].bytes = bytes;
    plan->reads[plan->nreads].host = host;
    plan->nreads++;
    plan->blocking = 1;
}

void clprim_plan_end(clprim_plan *plan)
{
    for (unsigned i = 0; i < plan->nprograms; i++)
        clprim_program_end(&plan->programs[i]);
    free(plan->launches);
    *plan = (clprim_plan){0};
}
