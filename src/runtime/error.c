/* Status names, the last-error message of a context (or of the thread), and the
 * $CLPRIM_LOG lines. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Failures with no context to hold them (clprim_create, a NULL ctx) land here. */
static _Thread_local char thread_error[4096];
static _Thread_local cl_int thread_cl_error;

const char *clprim_status_name(clprim_status s)
{
    switch (s) {
#define CLPRIM_STATUS_CASE(name, text) \
    case name:                         \
        return #name;
        CLPRIM_STATUS_MAP(CLPRIM_STATUS_CASE)
#undef CLPRIM_STATUS_CASE
    }
    return "CLPRIM_UNKNOWN_STATUS";
}

static void set_message(clprim_context *ctx, cl_int cl_error, const char *fmt, va_list ap)
{
    if (!ctx) {
        vsnprintf(thread_error, sizeof thread_error, fmt, ap);
        thread_cl_error = cl_error;
        return;
    }
    va_list again;
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (text) {
        vsnprintf(text, (size_t)len + 1, fmt, again);
        free(ctx->error);
        ctx->error = text;
    }
    /* Out of host memory: the old message stays; the status still tells. */
    va_end(again);
    ctx->cl_error = cl_error;
}

clprim_status clprim_fail(clprim_context *ctx, clprim_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_message(ctx, CL_SUCCESS, fmt, ap);
    va_end(ap);
    return s;
}

clprim_status clprim_fail_cl(clprim_context *ctx, cl_int err, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int no_memory = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ||
                    err == CL_OUT_OF_RESOURCES;
    clprim_fail(ctx, no_memory ? CLPRIM_OUT_OF_MEMORY : CLPRIM_OPENCL_ERROR, "%s: %s (%d)", what,
                clprim_cl_error_name(err), (int)err);
    if (ctx)
        ctx->cl_error = err;
    else
        thread_cl_error = err;
    return no_memory ? CLPRIM_OUT_OF_MEMORY : CLPRIM_OPENCL_ERROR;
}

void clprim_append_error(clprim_context *ctx, const char *text)
{
    if (!ctx) {
        size_t used = strlen(thread_error);
        snprintf(thread_error + used, sizeof thread_error - used, "%s", text);
        return;
    }
    size_t old = ctx->error ? strlen(ctx->error) : 0;
    char *grown = realloc(ctx->error, old + strlen(text) + 1);
    if (!grown)
        return;
    strcpy(grown + old, text);
    ctx->error = grown;
}

void clprim_clear_error(clprim_context *ctx)
{
    if (!ctx) {
        thread_error[0] = '\0';
        thread_cl_error = CL_SUCCESS;
        return;
    }
    if (ctx->error)
        ctx->error[0] = '\0';
    ctx->cl_error = CL_SUCCESS;
}

const char *clprim_last_error(const clprim_context *ctx)
{
    if (!ctx)
        return thread_error;
    return ctx->error ? ctx->error : "";
}

cl_int clprim_last_cl_error(const clprim_context *ctx)
{
    return ctx ? ctx->cl_error : thread_cl_error;
}

const char *clprim_cl_error_name(cl_int err)
{
    switch (err) {
#define NAME(code) \
    case code:     \
        return #code;
        NAME(CL_SUCCESS)
        NAME(CL_DEVICE_NOT_FOUND)
        NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE)
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES)
        NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
        NAME(CL_MEM_COPY_OVERLAP)
        NAME(CL_BUILD_PROGRAM_FAILURE)
        NAME(CL_MAP_FAILURE)
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        NAME(CL_COMPILE_PROGRAM_FAILURE)
        NAME(CL_LINKER_NOT_AVAILABLE)
        NAME(CL_LINK_PROGRAM_FAILURE)
        NAME(CL_INVALID_VALUE)
        NAME(CL_INVALID_DEVICE_TYPE)
        NAME(CL_INVALID_PLATFORM)
        NAME(CL_INVALID_DEVICE)
        NAME(CL_INVALID_CONTEXT)
        NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE)
        NAME(CL_INVALID_HOST_PTR)
        NAME(CL_INVALID_MEM_OBJECT)
        NAME(CL_INVALID_BINARY)
        NAME(CL_INVALID_BUILD_OPTIONS)
        NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL)
        NAME(CL_INVALID_ARG_INDEX)
        NAME(CL_INVALID_ARG_VALUE)
        NAME(CL_INVALID_ARG_SIZE)
        NAME(CL_INVALID_KERNEL_ARGS)
        NAME(CL_INVALID_WORK_DIMENSION)
        NAME(CL_INVALID_WORK_GROUP_SIZE)
        NAME(CL_INVALID_WORK_ITEM_SIZE)
        NAME(CL_INVALID_GLOBAL_OFFSET)
        NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_EVENT)
        NAME(CL_INVALID_OPERATION)
        NAME(CL_INVALID_BUFFER_SIZE)
        NAME(CL_INVALID_GLOBAL_WORK_SIZE)
#undef NAME
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "unknown OpenCL error";
}

/* ---- $CLPRIM_LOG ----
 * With $CLPRIM_LOG set (to anything but "" or "0"), the library tells on stderr,
 * one line each, which kernel files it reads, how each program lookup went in
 * the disk cache and how long builds take: the one place it prints. */

static int log_on(void)
{
    const char *v = getenv("CLPRIM_LOG");
    return v && *v && strcmp(v, "0") != 0;
}

void clprim_log(const char *fmt, ...)
{
    if (!log_on())
        return;
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "clprim: %s\n", line); /* one call: lines of threads do not interleave */
}
