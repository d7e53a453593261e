/*
 * libclprim: data-parallel primitives on OpenCL.
 *
 * One header is the whole public API. Every buffer travels as a cl_mem plus an
 * element offset; offsets and lengths count elements, not bytes. Calls enqueue on
 * the context's queue and return without waiting unless they must hand a value
 * to the host; `done`, when not NULL, receives an event for the last command
 * (release it with clReleaseEvent). A context is used by one thread at a time.
 *
 * Every failure returns a status and leaves a message in clprim_last_error();
 * nothing prints, nothing aborts, and a call that fails its argument checks
 * enqueues nothing, so the caller's buffers are left untouched. n == 0 is a valid
 * no-op.
 */
#ifndef CLPRIM_H
#define CLPRIM_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>

#include "clprim_version.h"

#if defined(_WIN32) && defined(CLPRIM_BUILDING)
#define CLPRIM_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CLPRIM_API __attribute__((visibility("default")))
#else
#define CLPRIM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes ------------------------------------------------------ */

/* One table makes both the enum and clprim_status_name(), so they never drift. */
#define CLPRIM_STATUS_MAP(XX)                                                   \
    XX(CLPRIM_SUCCESS, "success")                                               \
    XX(CLPRIM_INVALID_ARGUMENT, "an argument is NULL, unknown or out of range") \
    XX(CLPRIM_BUFFER_TOO_SMALL, "offset + n runs past the end of a buffer")     \
    XX(CLPRIM_UNSUPPORTED, "the device cannot do this (e.g. no fp64)")          \
    XX(CLPRIM_NO_DEVICE, "no OpenCL device matches")                            \
    XX(CLPRIM_KERNEL_NOT_FOUND, "a .cl file was not found in any folder")       \
    XX(CLPRIM_BUILD_FAILED, "the OpenCL compiler rejected a kernel")            \
    XX(CLPRIM_OUT_OF_MEMORY, "host or device memory ran out")                   \
    XX(CLPRIM_OPENCL_ERROR, "an OpenCL call failed")

typedef enum {
#define CLPRIM_STATUS_ENUM(name, text) name,
    CLPRIM_STATUS_MAP(CLPRIM_STATUS_ENUM)
#undef CLPRIM_STATUS_ENUM
} clprim_status;

/* Element types. CLPRIM_DOUBLE needs cl_khr_fp64 (else CLPRIM_UNSUPPORTED).
 * CLPRIM_UINT8 was added after the first six and serves every primitive too. */
typedef enum {
    CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_INT64, CLPRIM_UINT64,
    CLPRIM_FLOAT, CLPRIM_DOUBLE, CLPRIM_UINT8
} clprim_type;

/* Operators of scan and reduce. Integer sums wrap (two's complement); float
 * MIN and MAX ignore NaN the way fmin/fmax do. */
typedef enum { CLPRIM_SUM, CLPRIM_MIN, CLPRIM_MAX } clprim_op;

/* ---- Contexts ---------------------------------------------------------- */

typedef struct clprim_context clprim_context;

/* Creates a context with its own in-order, profiling-enabled queue.
 * device: NULL (then $CLPRIM_DEVICE, then the first GPU, then any device),
 * "gpu", "cpu", "P:D" (platform and device index, as `clprim devices` lists
 * them), or a case-insensitive substring of the device name. On failure *ctx is
 * NULL and clprim_last_error(NULL) says why. */
CLPRIM_API clprim_status clprim_create(clprim_context **ctx, const char *device);

/* Creates a context on the caller's in-order queue (retained, not owned). */
CLPRIM_API clprim_status clprim_create_with_queue(clprim_context **ctx, cl_command_queue queue);

/* Waits for nothing; releases every OpenCL object the context made. NULL is a no-op. */
CLPRIM_API void clprim_release(clprim_context *ctx);

CLPRIM_API cl_command_queue clprim_queue(const clprim_context *ctx);
CLPRIM_API cl_device_id clprim_device(const clprim_context *ctx);

/* "CLPRIM_BUFFER_TOO_SMALL"; "CLPRIM_UNKNOWN_STATUS" for values outside the enum. */
CLPRIM_API const char *clprim_status_name(clprim_status s);

/* What went wrong in the context's last failed call, with the compiler's build
 * log when a kernel did not build; "" after success. With ctx == NULL: the last
 * failure of this thread that had no context (clprim_create, or a NULL ctx). */
CLPRIM_API const char *clprim_last_error(const clprim_context *ctx);

/* The raw OpenCL error code behind the last failure, or CL_SUCCESS. */
CLPRIM_API cl_int clprim_last_cl_error(const clprim_context *ctx);

/* ---- Tuning ------------------------------------------------------------ */

/* How the multi-work-group kernels split the work. Defaults come from a table
 * per device class; zero fields keep the default. $CLPRIM_TUNING, as
 * "wg=64,items=4,groups=8", overrides the table when a context is created.
 *   work_group_size   work-items per work-group (a power of two)
 *   items_per_thread  consecutive elements each work-item handles per tile
 *   groups            work-groups in the first pass (partials per level) */
typedef struct {
    size_t work_group_size;
    size_t items_per_thread;
    size_t groups;
} clprim_tuning;

/* tuning == NULL restores the device's defaults. Values the device cannot run
 * return CLPRIM_INVALID_ARGUMENT and leave the tuning as it was. */
CLPRIM_API clprim_status clprim_set_tuning(clprim_context *ctx, const clprim_tuning *tuning);
CLPRIM_API clprim_tuning clprim_get_tuning(const clprim_context *ctx);

/* ---- Scan and reduce --------------------------------------------------- */

/* dst[i] = src[0] op ... op src[i] (inclusive), or op over src[0..i-1] with the
 * operator's identity at i = 0 (exclusive). In place when src == dst with the same
 * offset; other overlaps are CLPRIM_INVALID_ARGUMENT. The result is the same
 * bits on every run with the same device and tuning. */
CLPRIM_API clprim_status clprim_scan(clprim_context *ctx, clprim_type t, clprim_op op,
                                     int exclusive, cl_mem src, size_t src_offset,
                                     cl_mem dst, size_t dst_offset, size_t n,
                                     cl_event *done);

/* Blocking: writes one element of type t to *result (the identity when n == 0:
 * 0 for SUM, the type's largest value for MIN, its lowest for MAX). */
CLPRIM_API clprim_status clprim_reduce(clprim_context *ctx, clprim_type t, clprim_op op,
                                       cl_mem src, size_t offset, size_t n, void *result);

/* ---- Stream compaction ------------------------------------------------- */
/* CLPRIM-SECTION compaction: owned by the compaction work */

/* ---- Histograms -------------------------------------------------------- */
/* CLPRIM-SECTION histogram: owned by the histogram work */

/* ---- Images and thresholding ------------------------------------------- */
/* CLPRIM-SECTION threshold: owned by the threshold work */

#ifdef __cplusplus
}
#endif
#endif /* CLPRIM_H */
