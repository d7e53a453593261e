/* Contexts: choosing a device, its queue, the facts the drivers need, scratch space. */
#include "internal.h"

#include <CL/cl_ext.h> /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRING(x) STRING_(x)
#define STRING_(x) #x
#define IS_FLOAT(NAME) (CLPRIM_FIELD(NAME, ORDER) == ORDER_FLOAT)
#define TYPE_INFO(NAME)                                                                                      \
    [CLPRIM_##NAME] = {CLPRIM_FIELD(NAME, LABEL),                                                            \
                       #NAME,                                                                                \
                       STRING(CLPRIM_FIELD(NAME, SCALAR)),                                                   \
                       CLPRIM_FIELD(NAME, BYTES),                                                            \
                       CLPRIM_FIELD(NAME, ORDER),                                                            \
                       IS_FLOAT(NAME),                                                                       \
                       IS_FLOAT(NAME) && CLPRIM_FIELD(NAME, BYTES) == 8,                                     \
                       CLPRIM_FIELD(NAME, BYTES) >= 4,                                                       \
                       !IS_FLOAT(NAME) && CLPRIM_FIELD(NAME, BYTES) >= 4},
static const clprim_type_info type_table[] = {CLPRIM_TYPES(TYPE_INFO)};
#undef TYPE_INFO

const clprim_type_info *clprim_type_info_of(clprim_type t)
{
    if ((unsigned)t >= sizeof type_table / sizeof type_table[0])
        return NULL;
    return &type_table[t];
}

/* ---- Choosing a device ---- */

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    unsigned platform_index, device_index;
    cl_device_type type;
    char name[512]; /* "platform name / device name" */
} candidate;

static size_t list_devices(candidate *out, size_t max, cl_int *err)
{
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint np = 0;
    *err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &np);
    if (*err != CL_SUCCESS)
        return 0;
    size_t count = 0;
    for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
        cl_device_id devices[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &nd) != CL_SUCCESS)
            continue;
        char pname[200] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        for (cl_uint d = 0; d < nd && d < MAX_DEVICES && count < max; d++) {
            candidate *c = &out[count++];
            char dname[300] = "";
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof c->type, &c->type, NULL);
            c->platform = platforms[p];
            c->device = devices[d];
            c->platform_index = p;
            c->device_index = d;
            snprintf(c->name, sizeof c->name, "%s / %s", pname, dname);
        }
    }
    return count;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/* A spec of digits, signs, blanks and at least one ':' is meant as "P:D": 1 when
 * it is one, two runs of digits each within unsigned range; -1 when it is
 * malformed ("1:", ":1", "1:2:3", "-1:0", "4294967296:0"), which then matches no
 * device rather than wrapping to another; 0 when it is no index at all. */
static int parse_device_index(const char *spec, unsigned *p, unsigned *d)
{
    if (!strchr(spec, ':') || spec[strspn(spec, "0123456789:+- \t")])
        return 0;
    unsigned long long part[2] = {0, 0};
    const char *at = spec;
    for (int k = 0; k < 2; k++, at++) {
        const char *start = at;
        for (; isdigit((unsigned char)*at); at++)
            if ((part[k] = part[k] * 10 + (unsigned)(*at - '0')) > (unsigned)-1) /* UINT_MAX */
                return -1;
        if (at == start || *at != (k == 0 ? ':' : '\0'))
            return -1;
    }
    *p = (unsigned)part[0];
    *d = (unsigned)part[1];
    return 1;
}

static int matches(const candidate *c, const char *spec)
{
    unsigned p, d;
    int index = parse_device_index(spec, &p, &d);
    if (index != 0)
        return index > 0 && c->platform_index == p && c->device_index == d;
    if (!strcasecmp(spec, "gpu"))
        return (c->type & CL_DEVICE_TYPE_GPU) != 0;
    if (!strcasecmp(spec, "cpu"))
        return (c->type & CL_DEVICE_TYPE_CPU) != 0;
    if (!strcasecmp(spec, "accelerator"))
        return (c->type & CL_DEVICE_TYPE_ACCELERATOR) != 0;
    return contains_nocase(c->name, spec);
}

/* The first listing in a process starts the ICD loader and the drivers, which
 * PoCL does not guard against threads listing at once (it crashes or finds no
 * device): one thread lists at a time. */
static pthread_mutex_t listing_lock = PTHREAD_MUTEX_INITIALIZER;

static clprim_status choose_device(const char *spec, candidate *chosen)
{
    candidate all[MAX_DEVICES];
    cl_int err;
    pthread_mutex_lock(&listing_lock);
    size_t n = list_devices(all, MAX_DEVICES, &err);
    pthread_mutex_unlock(&listing_lock);
    if (err != CL_SUCCESS && err != -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
        return clprim_fail_cl(NULL, err, "clGetPlatformIDs");
    if (n == 0)
        return clprim_fail(NULL, CLPRIM_NO_DEVICE,
                           "no OpenCL device found: is an ICD installed (for example pocl-opencl-icd), "
                           "and does /etc/OpenCL/vendors (or $OCL_ICD_VENDORS) list it?");
    const char *from = "the argument";
    if (!spec || !*spec) {
        spec = getenv("CLPRIM_DEVICE");
        from = "$CLPRIM_DEVICE";
    }
    if (!spec || !*spec) { /* first GPU, else the first device */
        for (size_t i = 0; i < n; i++)
            if (all[i].type & CL_DEVICE_TYPE_GPU) {
                *chosen = all[i];
                return CLPRIM_SUCCESS;
            }
        *chosen = all[0];
        return CLPRIM_SUCCESS;
    }
    for (size_t i = 0; i < n; i++)
        if (matches(&all[i], spec)) {
            *chosen = all[i];
            return CLPRIM_SUCCESS;
        }
    clprim_fail(NULL, CLPRIM_NO_DEVICE,
                "no OpenCL device matches \"%s\" (from %s); expected \"gpu\", \"cpu\", \"P:D\" or part "
                "of a name. Devices:",
                spec, from);
    for (size_t i = 0; i < n; i++) {
        char line[600];
        snprintf(line, sizeof line, "\n  %u:%u %s", all[i].platform_index, all[i].device_index, all[i].name);
        clprim_append_error(NULL, line);
    }
    return CLPRIM_NO_DEVICE;
}

/* ---- Building a context ---- */

static void read_device_facts(clprim_context *ctx)
{
    clGetPlatformInfo(ctx->platform, CL_PLATFORM_NAME, sizeof ctx->platform_name, ctx->platform_name, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_NAME, sizeof ctx->device_name, ctx->device_name, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_VENDOR, sizeof ctx->device_vendor, ctx->device_vendor, NULL);
    clGetDeviceInfo(ctx->device, CL_DRIVER_VERSION, sizeof ctx->driver_version, ctx->driver_version, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof ctx->device_type, &ctx->device_type, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof ctx->compute_units, &ctx->compute_units,
                    NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof ctx->max_work_group_size,
                    &ctx->max_work_group_size, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ctx->local_mem_size, &ctx->local_mem_size,
                    NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ctx->max_alloc_size,
                    &ctx->max_alloc_size, NULL);
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    ctx->has_fp64 = fp64 != 0;
    cl_device_fp_config fp32 = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp32, &fp32, NULL);
    ctx->has_correct_divide = (fp32 & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    size_t length = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &length);
    char *extensions = length ? calloc(length + 1, 1) : NULL;
    if (extensions && clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, length, extensions, NULL) == CL_SUCCESS)
        ctx->has_int64_atomics = strstr(extensions, "cl_khr_int64_base_atomics") != NULL;
    /* Warps' inline PTX (its .sync forms from compute capability 7.0) from NVIDIA's
     * own compiler, not from another platform's for the same card. */
    cl_uint major = 0;
    if (extensions && strstr(extensions, "cl_nv_device_attribute_query") && strstr(ctx->platform_name, "NVIDIA") &&
        clGetDeviceInfo(ctx->device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major, NULL) == CL_SUCCESS)
        ctx->has_warp_ptx = major >= 7;
    free(extensions);
    if (ctx->compute_units == 0)
        ctx->compute_units = 1;
}

/* Everything after the queue exists: facts, tuning from the table and $CLPRIM_TUNING. */
static clprim_status finish_context(clprim_context *ctx)
{
    read_device_facts(ctx);
    ctx->default_tuning = clprim_default_tuning(ctx);
    ctx->tuning = ctx->default_tuning;
    const char *lookback = getenv("CLPRIM_TEST_LOOKBACK");
    ctx->lookback_reversed = lookback && !strcmp(lookback, "reversed");
    ctx->lookback_sparse = lookback && !strcmp(lookback, "sparse");
    ctx->lookback_waiting = lookback && !strcmp(lookback, "waits");
    ctx->records_absent = lookback && !strcmp(lookback, "none");
    const char *portion = getenv("CLPRIM_TEST_SORT_PORTION");
    ctx->sort_portion_keys = portion ? (size_t)strtoull(portion, NULL, 10) : 0;
    const char *warps = getenv("CLPRIM_TEST_WARPS");
    ctx->warps_test = !warps                        ? WARPS_AS_DEVICE
                      : !strcmp(warps, "emulated") ? WARPS_EMULATED
                      : !strcmp(warps, "off")      ? WARPS_OFF
                                                   : WARPS_AS_DEVICE;
    const char *ranks = getenv("CLPRIM_TEST_WARP_RANKS");
    ctx->warp_ranks_off = ranks && !strcmp(ranks, "off");
    const char *env = getenv("CLPRIM_TUNING");
    if (env && *env) {
        clprim_status s = clprim_parse_tuning(ctx, env, &ctx->default_tuning, &ctx->tuning);
        if (s != CLPRIM_SUCCESS) {
            clprim_fail(NULL, s, "$CLPRIM_TUNING: %s", clprim_last_error(ctx));
            return s;
        }
    }
    ctx->error = calloc(1, 1);
    if (!ctx->error)
        return clprim_fail(NULL, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    return CLPRIM_SUCCESS;
}

clprim_status clprim_create(clprim_context **out, const char *device)
{
    clprim_clear_error(NULL);
    if (!out)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT, "clprim_create: ctx (the output pointer) is NULL");
    *out = NULL;
    candidate chosen;
    clprim_status s = choose_device(device, &chosen);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clprim_fail(NULL, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    ctx->platform = chosen.platform;
    ctx->device = chosen.device;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)chosen.platform, 0};
    cl_int err;
    ctx->context = clCreateContext(props, 1, &chosen.device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        s = clprim_fail_cl(NULL, err, "clCreateContext on %s", chosen.name);
        clprim_release(ctx);
        return s;
    }
    ctx->queue = clCreateCommandQueue(ctx->context, chosen.device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        s = clprim_fail_cl(NULL, err, "clCreateCommandQueue on %s", chosen.name);
        clprim_release(ctx);
        return s;
    }
    s = finish_context(ctx);
    if (s != CLPRIM_SUCCESS) {
        clprim_release(ctx);
        return s;
    }
    *out = ctx;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_create_with_queue(clprim_context **out, cl_command_queue queue)
{
    clprim_clear_error(NULL);
    if (!out)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT,
                           "clprim_create_with_queue: ctx (the output pointer) is NULL");
    *out = NULL;
    if (!queue)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT, "clprim_create_with_queue: queue is NULL");
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err != CL_SUCCESS)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT,
                           "clprim_create_with_queue: queue is not a command queue (%s)",
                           clprim_cl_error_name(err));
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clprim_fail(NULL, CLPRIM_UNSUPPORTED,
                           "clprim_create_with_queue: the queue is out-of-order; libclprim orders its "
                           "passes by an in-order queue");
    clprim_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clprim_fail(NULL, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx->context, &ctx->context, NULL);
    clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof ctx->platform, &ctx->platform, NULL);
    clRetainContext(ctx->context);
    clRetainCommandQueue(queue);
    ctx->queue = queue;
    clprim_status s = finish_context(ctx);
    if (s != CLPRIM_SUCCESS) {
        clprim_release(ctx);
        return s;
    }
    *out = ctx;
    return CLPRIM_SUCCESS;
}

/* The pinned host memory. Nothing waits: the unmap, enqueued behind earlier
 * commands on the in-order queue, frees it only once they are done. */
static void release_pinned(clprim_context *ctx)
{
    if (ctx->pinned) {
        clEnqueueUnmapMemObject(ctx->queue, ctx->pinned, ctx->pinned_host, 0, NULL, NULL);
        clReleaseMemObject(ctx->pinned);
    }
    ctx->pinned = NULL;
    ctx->pinned_host = NULL;
    ctx->pinned_bytes = 0;
}

/* The scratch and the pinned host memory; commands enqueued before keep the
 * scratch alive as long as they use it. */
static void release_kept_memory(clprim_context *ctx)
{
    if (ctx->scratch)
        clReleaseMemObject(ctx->scratch);
    ctx->scratch = NULL;
    ctx->scratch_bytes = 0;
    release_pinned(ctx);
}

void clprim_trim(clprim_context *ctx)
{
    if (ctx)
        release_kept_memory(ctx);
}

clprim_status clprim_pinned_host(clprim_context *ctx, size_t bytes, void **host)
{
    CLPRIM_ENTER(s, ctx, "clprim_pinned_host");
    if (s == CLPRIM_SUCCESS && !host)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "clprim_pinned_host: host is NULL");
    if (s != CLPRIM_SUCCESS)
        return s;
    *host = NULL;
    if (bytes == 0)
        bytes = 1;
    if (ctx->pinned && ctx->pinned_bytes >= bytes) {
        *host = ctx->pinned_host;
        return CLPRIM_SUCCESS;
    }
    release_pinned(ctx);
    cl_int err;
    cl_mem pinned = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    void *mapped = NULL;
    if (err == CL_SUCCESS) {
        mapped = clEnqueueMapBuffer(ctx->queue, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                                    NULL, &err);
        if (err != CL_SUCCESS)
            clReleaseMemObject(pinned);
    }
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "clprim_pinned_host: allocating and mapping %zu bytes of host memory", bytes);
    ctx->pinned = pinned;
    ctx->pinned_host = *host = mapped;
    ctx->pinned_bytes = bytes;
    return CLPRIM_SUCCESS;
}

void clprim_release(clprim_context *ctx)
{
    if (!ctx)
        return;
    clprim_release_programs(ctx);
    release_kept_memory(ctx);
    if (ctx->lookback)
        clReleaseMemObject(ctx->lookback);
    if (ctx->tallies)
        clReleaseMemObject(ctx->tallies);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->context)
        clReleaseContext(ctx->context);
    free(ctx->error);
    free(ctx);
}

cl_command_queue clprim_queue(const clprim_context *ctx)
{
    return ctx ? ctx->queue : NULL;
}

cl_device_id clprim_device(const clprim_context *ctx)
{
    return ctx ? ctx->device : NULL;
}

cl_context clprim_cl_context(const clprim_context *ctx)
{
    return ctx ? ctx->context : NULL;
}

const char *clprim_version_string(void)
{
    return CLPRIM_VERSION_STRING;
}

/* ---- One call at a time ---- */

/* Its address names the calling thread while the thread lives. */
static _Thread_local char this_thread;

clprim_status clprim_enter(clprim_entry *entry, const char *function)
{
    clprim_context *ctx = entry->ctx;
    if (!ctx)
        return clprim_fail(NULL, CLPRIM_INVALID_ARGUMENT, "%s: ctx is NULL", function);
    const uintptr_t me = (uintptr_t)&this_thread;
    uintptr_t owner = 0;
    if (atomic_compare_exchange_strong_explicit(&ctx->owner, &owner, me, memory_order_acquire,
                                                memory_order_relaxed))
        entry->acquired = 1;
    else if (owner != me)
        return clprim_fail(NULL, CLPRIM_CONTEXT_BUSY,
                           "%s: the context is in use by another thread (a context serves one call at a "
                           "time: give each thread its own)",
                           function);
    clprim_clear_error(ctx);
    return CLPRIM_SUCCESS;
}

void clprim_leave(clprim_entry *entry)
{
    if (entry->acquired)
        atomic_store_explicit(&entry->ctx->owner, 0, memory_order_release);
}

/* ---- Tuning ---- */

clprim_status clprim_set_tuning(clprim_context *ctx, const clprim_tuning *tuning)
{
    CLPRIM_ENTER(s, ctx, "clprim_set_tuning");
    if (s != CLPRIM_SUCCESS)
        return s;
    if (!tuning) {
        ctx->tuning = ctx->default_tuning;
        return CLPRIM_SUCCESS;
    }
    clprim_tuning resolved;
    s = clprim_resolve_tuning(ctx, tuning, &ctx->default_tuning, &resolved);
    if (s == CLPRIM_SUCCESS)
        ctx->tuning = resolved;
    return s;
}

clprim_status clprim_set_progress(clprim_context *ctx, clprim_progress_fn fn, void *user)
{
    CLPRIM_ENTER(s, ctx, "clprim_set_progress");
    if (s != CLPRIM_SUCCESS)
        return s;
    ctx->progress = fn;
    ctx->progress_user = user;
    return CLPRIM_SUCCESS;
}

clprim_tuning clprim_get_tuning(const clprim_context *ctx)
{
    clprim_tuning none = {0, 0, 0, CLPRIM_FORM_DEFAULT};
    return ctx ? ctx->tuning : none;
}

/* ---- Scratch ---- */

clprim_status clprim_grow(clprim_context *ctx, cl_mem *space, size_t *space_bytes, size_t bytes, cl_mem *buf)
{
    if (bytes == 0)
        bytes = 1;
    if (*space && *space_bytes >= bytes) {
        *buf = *space;
        return CLPRIM_SUCCESS;
    }
    /* Grow by half again so a slowly growing loop reallocates rarely. Commands
     * already enqueued keep the old buffer alive until they finish. */
    size_t want = bytes + bytes / 2;
    if (want > ctx->max_alloc_size && bytes <= ctx->max_alloc_size)
        want = bytes;
    cl_int err;
    cl_mem grown = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, want, NULL, &err);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "allocating %zu bytes of scratch", want);
    if (*space)
        clReleaseMemObject(*space);
    *space = grown;
    *space_bytes = want;
    *buf = grown;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_scratch(clprim_context *ctx, size_t bytes, cl_mem *buf)
{
    return clprim_grow(ctx, &ctx->scratch, &ctx->scratch_bytes, bytes, buf);
}
