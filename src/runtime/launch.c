/* Event wait lists, empty calls and profiling on the context's queue. */
#include "internal.h"

/* Whether an event's command type is one OpenCL defines: the core's
 * (CL_COMMAND_NDRANGE_KERNEL 0x11F0 up to the SVM commands of 2.0, 0x120E),
 * the command buffers of cl_khr_command_buffer (0x12A8), and the ranges of the
 * Khronos (0x2000) and vendor (0x4000) extensions. Some drivers answer
 * clGetEventInfo for any of their objects, so a buffer passed as an event gets
 * this far; its "command type" then falls outside these ranges. */
static int is_command_type(cl_command_type type)
{
    return (type >= 0x11F0 && type <= 0x120E) || type == 0x12A8 || (type >= 0x2000 && type < 0x5000);
}

clprim_status clprim_check_wait_list(clprim_context *ctx, const char *function, cl_uint num_events,
                                     const cl_event *wait_list)
{
    if (num_events > 0 && !wait_list)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s: event_wait_list is NULL but num_events_in_wait_list is %u", function, num_events);
    if (num_events == 0 && wait_list)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s: num_events_in_wait_list is 0 but event_wait_list is not NULL", function);
    for (cl_uint i = 0; i < num_events; i++) {
        cl_context owner = NULL;
        cl_int err = wait_list[i] ? clGetEventInfo(wait_list[i], CL_EVENT_CONTEXT, sizeof owner, &owner, NULL)
                                  : CL_INVALID_EVENT;
        if (err != CL_SUCCESS)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: event_wait_list[%u] is not a valid event (%s)",
                               function, i, clprim_cl_error_name(err));
        if (owner != ctx->context)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "%s: event_wait_list[%u] belongs to another cl_context than the context's",
                               function, i);
        cl_command_type type = 0;
        err = clGetEventInfo(wait_list[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL);
        if (err != CL_SUCCESS || !is_command_type(type))
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "%s: event_wait_list[%u] is not an event (its command type 0x%x is none that OpenCL "
                               "defines; a cl_mem or other object cast to cl_event?)",
                               function, i, (unsigned)type);
    }
    return CLPRIM_SUCCESS;
}

clprim_status clprim_enqueue_wait(clprim_context *ctx, cl_uint num_events, const cl_event *wait_list)
{
    if (num_events == 0)
        return CLPRIM_SUCCESS;
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, num_events, wait_list, NULL);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "enqueueing the wait for %u events", num_events);
    return CLPRIM_SUCCESS;
}

clprim_status clprim_wait_events(clprim_context *ctx, cl_uint num_events, const cl_event *wait_list)
{
    cl_int err = num_events ? clWaitForEvents(num_events, wait_list) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "waiting for the %u events of the wait list", num_events);
    return CLPRIM_SUCCESS;
}

clprim_status clprim_enqueue_nothing(clprim_context *ctx, cl_uint num_events, const cl_event *wait_list,
                                     cl_event *event)
{
    if (!event && num_events == 0)
        return CLPRIM_SUCCESS;
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, num_events, wait_list, event);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "enqueueing the marker of an empty call");
    return CLPRIM_SUCCESS;
}

void clprim_profile_begin(clprim_context *ctx, int which)
{
    ctx->profiling = which;
    ctx->nprofiled = 0;
}

clprim_status clprim_profile_end(clprim_context *ctx, double *seconds, clprim_launch_time *launches, size_t *count)
{
    ctx->profiling = 0;
    const size_t n = ctx->nprofiled;
    cl_ulong start[64], end[64], first = 0, last = 0;
    cl_int err = n ? clWaitForEvents((cl_uint)n, ctx->profiled) : CL_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        start[i] = end[i] = 0;
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(ctx->profiled[i], CL_PROFILING_COMMAND_START, sizeof start[i], &start[i],
                                          NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(ctx->profiled[i], CL_PROFILING_COMMAND_END, sizeof end[i], &end[i], NULL);
        if (i == 0 || start[i] < first)
            first = start[i];
        if (end[i] > last)
            last = end[i];
        clReleaseEvent(ctx->profiled[i]);
    }
    ctx->nprofiled = 0;
    *seconds = last > first ? (double)(last - first) * 1e-9 : 0.0;
    for (size_t i = 0; launches && i < n; i++) {
        launches[i] = ctx->profiled_launch[i];
        launches[i].start = start[i] > first ? (double)(start[i] - first) * 1e-9 : 0.0;
        launches[i].end = end[i] > first ? (double)(end[i] - first) * 1e-9 : 0.0;
    }
    if (count)
        *count = launches ? n : 0;
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "reading profiling events");
    return CLPRIM_SUCCESS;
}
