/* The one executor: every call's plan runs here (clprim_plan, internal.h).
 * Nothing is enqueued before every kernel the plan names is built, so a
 * program that fails to build leaves the caller's buffers as they were; the
 * wait list is waited for before the first launch, and the call's event is its
 * last command's. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Enqueues launch l of the plan through pass, its roles resolved. */
static clprim_status enqueue_launch(clprim_context *ctx, const clprim_plan *plan, const clprim_launch *l,
                                    const clprim_pass *pass, cl_mem scratch, cl_event *event)
{
    cl_mem records = NULL;
    cl_uint stamp = 0;
    clprim_status s = CLPRIM_SUCCESS;
    if (l->record_tiles) {
        clprim_pass clear;
        s = clprim_pass_of(ctx, &plan->programs[l->program], "fill_words", &clear);
        if (s == CLPRIM_SUCCESS)
            s = clprim_lookback_records(ctx, &clear, l->record_tiles, l->record_bytes, &records, &stamp);
        if (s != CLPRIM_SUCCESS)
            return s;
    }
    cl_mem tallies = NULL;
    for (unsigned i = 0; i < l->nargs && s == CLPRIM_SUCCESS; i++)
        if (l->args[i].role == CLPRIM_ROLE_TALLIES && !tallies) {
            clprim_pass clear;
            s = clprim_pass_of(ctx, &plan->programs[l->program], "fill_words", &clear);
            if (s == CLPRIM_SUCCESS)
                s = clprim_tallies(ctx, &clear, &tallies);
        }
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_arg args[CLPRIM_LAUNCH_ARGS];
    for (unsigned i = 0; i < l->nargs; i++) {
        const clprim_launch_arg *a = &l->args[i];
        args[i] = (clprim_arg){a->size, a->local ? NULL : a->value, 0};
        if (a->role == CLPRIM_ROLE_SCRATCH)
            args[i].value = &scratch;
        else if (a->role == CLPRIM_ROLE_RECORDS)
            args[i].value = &records;
        else if (a->role == CLPRIM_ROLE_STAMP)
            args[i].value = &stamp;
        else if (a->role == CLPRIM_ROLE_TALLIES)
            args[i].value = &tallies;
    }
    return clprim_enqueue_pass(ctx, pass, l->groups, args, l->nargs, event);
}

static clprim_status run(clprim_context *ctx, const clprim_plan *plan, cl_uint num_events_in_wait_list,
                         const cl_event *event_wait_list, cl_event *event)
{
    if (plan->failed)
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "%s: out of host memory while planning", plan->purpose);
    /* Build first: every program, then every launch's kernel. */
    clprim_status s = CLPRIM_SUCCESS;
    for (unsigned i = 0; i < plan->nprograms && s == CLPRIM_SUCCESS; i++)
        s = clprim_program_prepare(ctx, &plan->programs[i]);
    clprim_pass *passes = plan->nlaunches ? malloc(plan->nlaunches * sizeof *passes) : NULL;
    if (s == CLPRIM_SUCCESS && plan->nlaunches && !passes)
        s = clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "%s: out of host memory", plan->purpose);
    for (size_t i = 0; i < plan->nlaunches && s == CLPRIM_SUCCESS; i++) {
        const clprim_launch *l = &plan->launches[i];
        size_t same = 0; /* a kernel launched again (a sort's passes) is looked up once */
        while (same < i &&
               (plan->launches[same].program != l->program || strcmp(plan->launches[same].kernel, l->kernel)))
            same++;
        if (same < i)
            passes[i] = passes[same];
        else
            s = clprim_pass_of(ctx, &plan->programs[l->program], l->kernel, &passes[i]);
    }
    cl_mem scratch = NULL;
    if (s == CLPRIM_SUCCESS && plan->scratch.bytes)
        s = clprim_layout_scratch(ctx, plan->purpose, &plan->scratch, &scratch);

    /* Nothing to launch: a marker hands back the event (a blocking call's only
     * when asked for), and a blocking call returns once the list completes. */
    if (s == CLPRIM_SUCCESS && plan->nlaunches == 0 && (event || !plan->blocking))
        s = clprim_enqueue_nothing(ctx, num_events_in_wait_list, event_wait_list, event);
    if (s == CLPRIM_SUCCESS && plan->nlaunches == 0 && plan->blocking)
        s = clprim_wait_events(ctx, num_events_in_wait_list, event_wait_list);
    else if (s == CLPRIM_SUCCESS && plan->nlaunches)
        s = clprim_enqueue_wait(ctx, num_events_in_wait_list, event_wait_list);
    for (size_t i = 0; i < plan->nlaunches && s == CLPRIM_SUCCESS; i++) {
        ctx->profile_end = i == 0 || i + 1 == plan->nlaunches;
        s = enqueue_launch(ctx, plan, &plan->launches[i], &passes[i], scratch,
                           i + 1 == plan->nlaunches ? event : NULL);
    }
    free(passes);

    /* The queue is in order: the last read blocks for them all. */
    for (unsigned i = 0; i < plan->nreads && s == CLPRIM_SUCCESS; i++) {
        cl_mem from = plan->reads[i].buffer ? plan->reads[i].buffer : scratch;
        const cl_bool last = i + 1 == plan->nreads;
        cl_int err = clEnqueueReadBuffer(ctx->queue, from, last, plan->reads[i].offset, plan->reads[i].bytes,
                                         plan->reads[i].host, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            s = clprim_fail_cl(ctx, err, "%s: reading the result back", plan->purpose);
            clFinish(ctx->queue); /* an earlier read must not land in host memory after the return */
        }
    }
    if (s == CLPRIM_SUCCESS && plan->blocking && plan->nlaunches && !plan->nreads) {
        cl_int err = clFinish(ctx->queue);
        if (err != CL_SUCCESS)
            s = clprim_fail_cl(ctx, err, "%s: waiting for its work", plan->purpose);
    }
    return s;
}

clprim_status clprim_execute(clprim_context *ctx, clprim_plan *plan, cl_uint num_events_in_wait_list,
                             const cl_event *event_wait_list, cl_event *event)
{
    const clprim_status s = run(ctx, plan, num_events_in_wait_list, event_wait_list, event);
    clprim_plan_end(plan);
    return s;
}
