/* What the library's files share; nothing here is public. */
#ifndef CLPRIM_INTERNAL_H
#define CLPRIM_INTERNAL_H

#include "clprim.h"

#include <stdarg.h>
#include <stdint.h>

/* ---- Element types (context.c) ---- */

typedef struct {
    const char *label;  /* "int32": for messages and tables */
    const char *define; /* "TYPE_INT32": the -D that selects it in cl/common.cl */
    size_t size;
    int is_float;
    int needs_fp64;
} clprim_type_info;

/* NULL when t is not a clprim_type. */
const clprim_type_info *clprim_type_info_of(clprim_type t);

/* ---- The context ---- */

typedef struct clprim_program_entry clprim_program_entry; /* program.c */

struct clprim_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;

    /* Device facts read once at creation. */
    char platform_name[256];
    char device_name[256];
    char device_vendor[256];
    char driver_version[256];
    cl_device_type device_type;
    cl_uint compute_units;
    size_t max_work_group_size;
    cl_ulong local_mem_size;
    cl_ulong max_alloc_size;
    int has_fp64;

    clprim_tuning tuning;         /* what the kernels use now */
    clprim_tuning default_tuning; /* the device class's table entry */

    clprim_program_entry *programs; /* built programs, by (file, options) */
    unsigned programs_compiled;     /* built from source in this context */
    unsigned programs_loaded;       /* taken from the disk cache */

    cl_mem scratch; /* reused between calls; grows, never shrinks */
    size_t scratch_bytes;

    char *error; /* last failure's message, "" after success */
    cl_int cl_error;

    /* While profiling (clprim bench), every launch keeps its event here. */
    int profiling;
    cl_event profiled[64];
    size_t nprofiled;
};

/* ---- Errors (error.c) ---- */

/* Records a printf-formatted message (on the thread when ctx is NULL) and returns s. */
clprim_status clprim_fail(clprim_context *ctx, clprim_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* For a failed OpenCL call: CLPRIM_OUT_OF_MEMORY for allocation failures, else
 * CLPRIM_OPENCL_ERROR; the message ends with the error's name and code. */
clprim_status clprim_fail_cl(clprim_context *ctx, cl_int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends text (a build log) to the last message. */
void clprim_append_error(clprim_context *ctx, const char *text);
void clprim_clear_error(clprim_context *ctx);
const char *clprim_cl_error_name(cl_int err);

/* ---- Argument checks (check.c): each records its own message ---- */

clprim_status clprim_check_context(const clprim_context *ctx, const char *function);
/* Known enum value and, for doubles, fp64 on the device. */
clprim_status clprim_check_type(clprim_context *ctx, clprim_type t, const clprim_type_info **info);
clprim_status clprim_check_op(clprim_context *ctx, clprim_op op);
/* Non-NULL, of this context, offset + n elements within CL_MEM_SIZE without
 * overflow, and writable when the call writes to it. */
clprim_status clprim_check_buffer(clprim_context *ctx, const char *name, cl_mem buf, size_t offset,
                                  size_t n, size_t elem_size, int written);
/* Same buffer and same offset (in place) or disjoint ranges. */
clprim_status clprim_check_no_overlap(clprim_context *ctx, cl_mem src, size_t src_offset, cl_mem dst,
                                      size_t dst_offset, size_t n);

/* ---- Tuning (tuning.c) ---- */

/* The table entry for the context's device class, adjusted to its limits. */
clprim_tuning clprim_default_tuning(const clprim_context *ctx);
/* Fills zero fields from base and validates against the device; records a message. */
clprim_status clprim_resolve_tuning(clprim_context *ctx, const clprim_tuning *want,
                                    const clprim_tuning *base, clprim_tuning *out);
/* Parses "wg=64,items=4,groups=8" over base. */
clprim_status clprim_parse_tuning(clprim_context *ctx, const char *text, const clprim_tuning *base,
                                  clprim_tuning *out);

/* ---- Programs (program.c) ---- */

/* The kernel `name` from `file` (searched along the kernel path) built with
 * `options`. Programs are cached per context and on disk; kernels are owned by the
 * cache, so callers never release them. */
clprim_status clprim_get_kernel(clprim_context *ctx, const char *file, const char *options,
                                const char *name, cl_kernel *kernel);
void clprim_release_programs(clprim_context *ctx);

/* Appends the -D options that select a type, an operator (or none with op < 0)
 * and the current tuning to buf. */
void clprim_kernel_options(const clprim_context *ctx, const clprim_type_info *type, int op, char *buf,
                           size_t size);

/* ---- Launching (launch.c) ---- */

typedef struct {
    size_t size;
    const void *value;
} clprim_arg;
#define CLPRIM_ARG(x) ((clprim_arg){sizeof(x), &(x)})
#define CLPRIM_LOCAL(bytes) ((clprim_arg){(bytes), NULL})

/* Sets the arguments and enqueues `groups` work-groups of the tuned size. The
 * event of the launch goes to *event when event is not NULL. */
clprim_status clprim_launch(clprim_context *ctx, cl_kernel kernel, const char *what, size_t groups,
                            const clprim_arg *args, size_t nargs, cl_event *event);

/* Device time of the calls made between begin and end, from the first kernel's
 * start to the last one's end (waits for them). For benchmarks. */
void clprim_profile_begin(clprim_context *ctx);
clprim_status clprim_profile_end(clprim_context *ctx, double *seconds);

/* For calls with nothing to do: *done, when asked for, still gets an event
 * (a marker), so callers can wait on it as on any other. */
clprim_status clprim_enqueue_nothing(clprim_context *ctx, cl_event *done);

/* Scratch space of at least `bytes`, owned by the context. Growing it replaces the
 * buffer, so a driver asks once for all it needs before enqueueing. */
clprim_status clprim_scratch(clprim_context *ctx, size_t bytes, cl_mem *buf);

/* ---- The multi-work-group split (scan.c): shared by scan, reduce, compaction ---- */

/* Each of `groups` work-groups owns `chunk` consecutive elements (a whole number of
 * tiles), the last one what remains. */
typedef struct {
    size_t groups;
    cl_ulong chunk;
} clprim_split;

clprim_split clprim_split_range(const clprim_tuning *tuning, size_t n);

/* Bytes of scratch that clprim_scan_device needs for n elements of `elem_size`. */
size_t clprim_scan_scratch_bytes(const clprim_tuning *tuning, size_t n, size_t elem_size);

/* The scan without argument checks, for drivers that scan their own counts. Uses
 * scratch from byte `scratch_offset`, which the caller has reserved. */
clprim_status clprim_scan_device(clprim_context *ctx, const clprim_type_info *type, clprim_op op,
                                 int exclusive, cl_mem src, cl_ulong src_offset, cl_mem dst,
                                 cl_ulong dst_offset, size_t n, cl_mem scratch, size_t scratch_offset,
                                 cl_event *done);

#endif
