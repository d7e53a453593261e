/* Kernel programs: building kernel files (found and read by kernel_source.c) with
 * -D options, and caching the result per context (memory) and per device (on
 * disk, by disk_cache.c). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    char *name;
    cl_kernel kernel;
} kernel_entry;

struct clprim_program_entry {
    char *file;
    char *options;
    cl_program program;
    int from_disk_cache; /* loaded from an entry rather than built here */
    kernel_entry kernels[12]; /* more than any .cl file has (radix_sort.cl: 9) */
    size_t nkernels;
    clprim_program_entry *next;
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* ---- Building ---- */

static clprim_status build_from_source(clprim_context *ctx, const char *dir, const char *file,
                                       const char *options, const char *source, cl_program *out)
{
    cl_int err;
    cl_program program = clCreateProgramWithSource(ctx->context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "clCreateProgramWithSource for %s/%s", dir, file);
    err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
        char *log = malloc(log_size + 1);
        if (log) {
            log[0] = '\0';
            clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
            log[log_size] = '\0';
        }
        clprim_fail(ctx, CLPRIM_BUILD_FAILED, "building %s/%s with \"%s\" failed on %s (%s); build log:\n",
                    dir, file, options, ctx->device_name, clprim_cl_error_name(err));
        clprim_append_error(ctx, log && *log ? log : "(the driver gave no log)");
        ctx->cl_error = err;
        free(log);
        clReleaseProgram(program);
        return CLPRIM_BUILD_FAILED;
    }
    *out = program;
    return CLPRIM_SUCCESS;
}

/* The source of (file, options), includes expanded, and its disk-cache slot. */
typedef struct {
    char dir[4096];
    char *source;
    int cached;             /* the disk cache is in use: slot holds the entry */
    const char *uncached;   /* else why not */
    clprim_cache_slot slot;
} kernel_source;

static clprim_status open_source(clprim_context *ctx, const char *file, const char *options, kernel_source *ks)
{
    ks->source = NULL;
    ks->cached = 0;
    clprim_status s = clprim_find_kernel_dir(ctx, file, ks->dir, sizeof ks->dir);
    if (s == CLPRIM_SUCCESS)
        s = clprim_load_source(ctx, ks->dir, file, &ks->source);
    if (s == CLPRIM_SUCCESS)
        ks->cached = clprim_cache_slot_for(ctx, options, ks->source, &ks->slot, &ks->uncached);
    return s;
}

/* open_source, failing when the disk cache is not in use. */
static clprim_status open_cached_source(clprim_context *ctx, const char *file, const char *options,
                                        kernel_source *ks)
{
    clprim_status s = open_source(ctx, file, options, ks);
    if (s == CLPRIM_SUCCESS && !ks->cached)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "the disk cache is not in use: %s", ks->uncached);
    return s;
}

static void close_source(kernel_source *ks)
{
    free(ks->source);
    if (ks->cached)
        free(ks->slot.key);
}

/* The program of (file, options): from its disk-cache entry when use_entry and
 * the entry is good (*from_entry = 1), else built from source and stored. */
static clprim_status make_program(clprim_context *ctx, const char *file, const char *options, int use_entry,
                                  cl_program *out, int *from_entry)
{
    kernel_source ks;
    clprim_status s = open_source(ctx, file, options, &ks);
    if (s != CLPRIM_SUCCESS) {
        close_source(&ks);
        return s;
    }
    const char *miss = ks.cached ? "the entry lacks a kernel asked for" : ks.uncached;
    cl_program program = ks.cached && use_entry ? clprim_cache_load(ctx, &ks.slot, options, &miss) : NULL;
    *from_entry = program != NULL;
    if (program) {
        ctx->programs_loaded++;
        clprim_log("cache hit: %s [%s] from %s", file, options, ks.slot.path);
    } else {
        clprim_log("cache miss: %s [%s]: %s%s%s", file, options, miss, ks.cached ? ": " : "",
                   ks.cached ? ks.slot.path : "");
        if (ks.cached && !use_entry)
            unlink(ks.slot.path); /* distrusted: gone even if the new one cannot be written */
        double start = now_ms();
        s = build_from_source(ctx, ks.dir, file, options, ks.source, &program);
        if (s == CLPRIM_SUCCESS) {
            clprim_log("built %s [%s] in %.0f ms", file, options, now_ms() - start);
            ctx->programs_compiled++;
            if (ks.cached)
                clprim_cache_store(&ks.slot, program);
        }
    }
    close_source(&ks);
    if (s == CLPRIM_SUCCESS)
        *out = program;
    return s;
}

static clprim_status get_program(clprim_context *ctx, const char *file, const char *options,
                                 clprim_program_entry **out)
{
    for (clprim_program_entry *e = ctx->programs; e; e = e->next)
        if (!strcmp(e->file, file) && !strcmp(e->options, options)) {
            *out = e;
            return CLPRIM_SUCCESS;
        }
    cl_program program;
    int from_entry;
    clprim_status s = make_program(ctx, file, options, 1, &program, &from_entry);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_program_entry *e = calloc(1, sizeof *e);
    if (e) {
        e->file = strdup(file);
        e->options = strdup(options);
    }
    if (!e || !e->file || !e->options) {
        if (e) {
            free(e->file);
            free(e->options);
        }
        free(e);
        clReleaseProgram(program);
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    }
    e->program = program;
    e->from_disk_cache = from_entry;
    e->next = ctx->programs;
    ctx->programs = e;
    *out = e;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_prepare_program(clprim_context *ctx, const char *file, const char *options)
{
    clprim_program_entry *e;
    return get_program(ctx, file, options, &e);
}

clprim_status clprim_get_kernel(clprim_context *ctx, const char *file, const char *options, const char *name,
                                cl_kernel *kernel)
{
    clprim_program_entry *e = NULL;
    clprim_status s = get_program(ctx, file, options, &e);
    if (s != CLPRIM_SUCCESS)
        return s;
    for (size_t i = 0; i < e->nkernels; i++)
        if (!strcmp(e->kernels[i].name, name)) {
            *kernel = e->kernels[i].kernel;
            return CLPRIM_SUCCESS;
        }
    if (e->nkernels == sizeof e->kernels / sizeof e->kernels[0])
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "more than %zu kernels asked of %s",
                           sizeof e->kernels / sizeof e->kernels[0], file);
    cl_int err;
    cl_kernel k = clCreateKernel(e->program, name, &err);
    if (err == CL_INVALID_KERNEL_NAME && e->from_disk_cache) {
        /* An entry whose binary lacks the kernel is not to be trusted: build from
         * source once, replacing the entry. Kernels already made from the old
         * program hold their own reference to it, so callers' handles stay valid. */
        cl_program fresh;
        int from_entry;
        s = make_program(ctx, file, options, 0, &fresh, &from_entry);
        if (s != CLPRIM_SUCCESS)
            return s;
        clReleaseProgram(e->program);
        e->program = fresh;
        e->from_disk_cache = 0;
        k = clCreateKernel(e->program, name, &err);
    }
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "clCreateKernel(%s) from %s", name, file);
    char *copy = strdup(name);
    if (!copy) {
        clReleaseKernel(k);
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    }
    e->kernels[e->nkernels].name = copy;
    e->kernels[e->nkernels].kernel = k;
    e->nkernels++;
    *kernel = k;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_cache_entry_path(clprim_context *ctx, const char *file, const char *options, char *path,
                                      size_t size)
{
    kernel_source ks;
    clprim_status s = open_cached_source(ctx, file, options, &ks);
    if (s == CLPRIM_SUCCESS)
        snprintf(path, size, "%s", ks.slot.path);
    close_source(&ks);
    return s;
}

clprim_status clprim_cache_store_program(clprim_context *ctx, const char *file, const char *options,
                                         cl_program program)
{
    kernel_source ks;
    clprim_status s = open_cached_source(ctx, file, options, &ks);
    if (s == CLPRIM_SUCCESS)
        clprim_cache_store(&ks.slot, program);
    close_source(&ks);
    return s;
}

void clprim_release_programs(clprim_context *ctx)
{
    while (ctx->programs) {
        clprim_program_entry *e = ctx->programs;
        ctx->programs = e->next;
        for (size_t i = 0; i < e->nkernels; i++) {
            clReleaseKernel(e->kernels[i].kernel);
            free(e->kernels[i].name);
        }
        clReleaseProgram(e->program);
        free(e->file);
        free(e->options);
        free(e);
    }
}
