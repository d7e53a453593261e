/*
 * libclprim: data-parallel primitives on OpenCL.
 *
 * One header is the whole public API. Every buffer travels as a cl_mem plus an
 * element offset; offsets and lengths count elements, not bytes. Calls enqueue on
 * the context's queue and return without waiting unless they must hand a value
 * to the host.
 *
 * Events follow OpenCL's own convention. Every call that enqueues work ends with
 *     cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event
 * and nothing of the call runs before every event of the list has completed, so
 * work produced on another queue of the same cl_context, or by another library,
 * can feed a call without a clFinish. `event`, when not NULL, receives an event
 * that completes with the call's last command (release it with clReleaseEvent).
 * The blocking calls without an event of their own (clprim_reduce, clprim_kmeans)
 * end with the first two only, and every blocking call returns after the list
 * has completed. The list is checked with the other arguments: a NULL list with
 * num_events_in_wait_list > 0, a list with 0 (OpenCL's CL_INVALID_EVENT_WAIT_LIST),
 * and an event that is not valid, belongs to another cl_context than the
 * context's, or reports a command type that OpenCL does not define, are
 * CLPRIM_INVALID_ARGUMENT, with a message naming the event's index. (Some
 * drivers, PoCL among them, answer event queries for any of their objects: a
 * cl_mem cast to cl_event is caught by its command type; another object that
 * happened to answer with a valid one would be waited on as the driver sees
 * fit, which may be never.) n == 0 calls honour the list too: their event
 * completes only after it.
 *
 * A context serves one call at a time. Threads may take turns on it, but a call
 * made while another thread is inside a call on the same context fails with
 * CLPRIM_CONTEXT_BUSY, enqueues nothing and leaves the context as it was; its
 * message is in clprim_last_error(NULL), since the context's own message belongs
 * to the call in progress. For work in parallel, give each thread its own
 * context. Creating contexts is safe from any number of threads at once.
 *
 * Every failure returns a status and leaves a message in clprim_last_error();
 * nothing prints, nothing aborts, and a call that fails its argument checks
 * enqueues nothing, so the caller's buffers are left untouched. n == 0 is a valid
 * no-op. The one exception to "nothing prints": with $CLPRIM_LOG set (to
 * anything but "" or "0"), the library writes a line to stderr for each kernel
 * file it reads, each program lookup in the disk cache (a hit, or a miss and
 * why: no entry, a key mismatch, a refused file or folder, ...), each build
 * (with its time in ms) and each trim of the cache to its size cap.
 *
 * Kernels are built on first use and cached: per context in memory, and on disk
 * in $CLPRIM_CACHE_DIR (default $XDG_CACHE_HOME/clprim or ~/.cache/clprim; set
 * but empty: no disk cache). The folder must be this user's own and writable by
 * no one else, or it is not used. Its entries (files named <16 hex digits>.bin;
 * nothing else there is ever counted or removed) take at most $CLPRIM_CACHE_MAX
 * bytes (default 256M; a number of bytes or a whole number with K, M or G;
 * 0 turns the disk cache off; a malformed value is ignored): after a store
 * pushes them over, the least recently used (stored or loaded) go first.
 * On PoCL, which caches the programs it builds in its own folder
 * ($POCL_CACHE_DIR), the disk cache is not used unless $POCL_KERNEL_CACHE is 0:
 * a second cache would gain nothing, and a program's binary costs PoCL a
 * compilation of each of its kernels for any work-group size.
 *
 * Buffer arguments: every cl_mem must be a buffer (an image object is
 * CLPRIM_INVALID_ARGUMENT) of the context's cl_context; one the call writes may
 * not be CL_MEM_READ_ONLY, one it reads not CL_MEM_WRITE_ONLY. Overlaps are
 * judged on memory, not handles: a sub-buffer counts as the bytes it covers in
 * its parent, so a sub-buffer of the destination overlaps it. "In place" means
 * the same bytes with the same layout, through one handle or two (a parent and
 * its sub-buffer at the matching origin); every other sharing of bytes that a
 * call's documentation does not allow is CLPRIM_INVALID_ARGUMENT, with a message
 * naming both arguments, their byte ranges in the parent buffer and any
 * sub-buffer.
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
    XX(CLPRIM_KERNEL_NOT_FOUND, "a .cl file is missing or not a readable file") \
    XX(CLPRIM_BUILD_FAILED, "a kernel failed to build or broke #include rules") \
    XX(CLPRIM_OUT_OF_MEMORY, "host or device memory ran out")                   \
    XX(CLPRIM_OPENCL_ERROR, "an OpenCL call failed")                            \
    XX(CLPRIM_CONTEXT_BUSY, "the context is in use by another thread")

typedef enum {
#define CLPRIM_STATUS_ENUM(name, text) name,
    CLPRIM_STATUS_MAP(CLPRIM_STATUS_ENUM)
#undef CLPRIM_STATUS_ENUM
} clprim_status;

/* Element types. CLPRIM_DOUBLE needs cl_khr_fp64 (else CLPRIM_UNSUPPORTED). */
typedef enum {
    CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_INT64, CLPRIM_UINT64,
    CLPRIM_FLOAT, CLPRIM_DOUBLE, CLPRIM_UINT8
} clprim_type;

/* Operators of scan and reduce. Integer sums wrap (two's complement). Float
 * MIN and MAX combine like C's fmin/fmax: a NaN is ignored beside any number,
 * so the result is NaN only where every element combined is NaN; infinities
 * are ordinary values. Combining no element (n == 0 for clprim_reduce, element
 * 0 of an exclusive scan) gives 0 for SUM, the type's largest value for MIN and
 * its lowest for MAX: +infinity and -infinity for floats, never NaN. */
typedef enum { CLPRIM_SUM, CLPRIM_MIN, CLPRIM_MAX } clprim_op;

/* ---- Contexts ---------------------------------------------------------- */

typedef struct clprim_context clprim_context;

/* Creates a context with its own in-order, profiling-enabled queue.
 * device: NULL (then $CLPRIM_DEVICE, then the first GPU, then any device),
 * "gpu", "cpu", "P:D" (platform and device index, as `clprim devices` lists
 * them: decimal digits only, each within unsigned range; a spec of digits,
 * signs, blanks and ':' that is not exactly that, such as "1:2:3", "-1:0" or
 * "4294967296:0", matches no device: CLPRIM_NO_DEVICE), or a case-insensitive
 * substring of the device name. On failure *ctx is
 * NULL and clprim_last_error(NULL) says why. */
CLPRIM_API clprim_status clprim_create(clprim_context **ctx, const char *device);

/* Creates a context on the caller's in-order queue (retained, not owned). */
CLPRIM_API clprim_status clprim_create_with_queue(clprim_context **ctx, cl_command_queue queue);

/* Waits for nothing; releases every OpenCL object the context made. NULL is a no-op.
 * No call may be in progress on the context in another thread (that is not
 * detected). */
CLPRIM_API void clprim_release(clprim_context *ctx);

/* The context's queue, device and cl_context (for creating the buffers its calls
 * take); not retained for the caller. NULL for a NULL ctx. */
CLPRIM_API cl_command_queue clprim_queue(const clprim_context *ctx);
CLPRIM_API cl_device_id clprim_device(const clprim_context *ctx);
CLPRIM_API cl_context clprim_cl_context(const clprim_context *ctx);

/* Host memory for copies between the host and the context's device at full
 * speed: at least `bytes` (0 counts as 1), pinned where the driver pins what
 * CL_MEM_ALLOC_HOST_PTR allocates (NVIDIA's does), and kept by the context
 * between calls, so that a program copying through the host every iteration
 * allocates and pins once. It grows (never shrinks) when a call asks for more.
 * *host is valid until the next call that grows it, clprim_trim or
 * clprim_release; copies to or from it already enqueued on the context's queue
 * still complete (the old memory goes once they have), those on other queues
 * are the caller's to finish first. libclprim_mpi stages its exchanges here.
 * Errors: host NULL: CLPRIM_INVALID_ARGUMENT; the driver's refusal:
 * CLPRIM_OUT_OF_MEMORY (or CLPRIM_OPENCL_ERROR), with its error in
 * clprim_last_cl_error, *host NULL and the memory held before released. */
CLPRIM_API clprim_status clprim_pinned_host(clprim_context *ctx, size_t bytes, void **host);

/* Gives back the memory the context keeps between calls: its device scratch
 * and its pinned host memory (the next call needing either allocates it
 * again). Built kernels stay. Waits for nothing: work already enqueued keeps
 * what it uses until it is done. NULL is a no-op. */
CLPRIM_API void clprim_trim(clprim_context *ctx);

/* The library's version, such as "0.12.0": the one running, which may differ from the
 * CLPRIM_VERSION_STRING (and _MAJOR, _MINOR, _PATCH) a program was compiled with. */
CLPRIM_API const char *clprim_version_string(void);

/* Builds every kernel program the library ships for the context's device and
 * its current tuning (scan and reduce per type and operator, argmin and argmax,
 * compaction per type and predicate kind, histograms with even bins and over
 * edges, radix and box sort, thresholds, k-means), so that later calls compile
 * nothing: in this context, and through the disk cache in any context on the
 * same device and tuning. Still compiled on first use: compaction by
 * CLPRIM_KEEP_EXPRESSION, callers' operators and the comparators of
 * clprim_merge_sort and clprim_merge (once per expression), the by-key calls
 * (once per key type, value type and operator), and the three-way partition
 * (once per type and pair of predicate kinds). Programs already
 * cached are loaded, not rebuilt. Stops at the first program that fails and
 * returns its status and message (CLPRIM_KERNEL_NOT_FOUND, CLPRIM_BUILD_FAILED,
 * ...). On PoCL's CPU device it builds about 150 programs, in about 20 s on two
 * cores from a cold cache; PoCL still compiles each kernel for its work-group
 * size at its first launch. Reports each program through the progress
 * function (clprim_set_progress). */
CLPRIM_API clprim_status clprim_warm_up(clprim_context *ctx);

/* Programs this context has built from source (*compiled) and taken from the
 * disk cache (*loaded) since it was created; either pointer may be NULL. */
CLPRIM_API void clprim_program_counts(const clprim_context *ctx, unsigned *compiled, unsigned *loaded);

/* "CLPRIM_BUFFER_TOO_SMALL"; "CLPRIM_UNKNOWN_STATUS" for values outside the enum. */
CLPRIM_API const char *clprim_status_name(clprim_status s);

/* What went wrong in the context's last failed call, with the compiler's build
 * log when a kernel did not build; "" after success. With ctx == NULL: the last
 * failure of this thread that had no context (clprim_create, a NULL ctx, or
 * CLPRIM_CONTEXT_BUSY). */
CLPRIM_API const char *clprim_last_error(const clprim_context *ctx);

/* The raw OpenCL error code behind the last failure, or CL_SUCCESS. */
CLPRIM_API cl_int clprim_last_cl_error(const clprim_context *ctx);

/* ---- Tuning ------------------------------------------------------------ */

/* How the multi-work-group kernels split the work. Defaults come from a table
 * per device class; zero fields keep the default. $CLPRIM_TUNING, as
 * "wg=64,items=4,groups=8", overrides the table when a context is created.
 *   work_group_size   work-items per work-group (a power of two)
 *   items_per_thread  consecutive elements each work-item handles per tile
 *                     (the radix sort ranks two or three times as many,
 *                     by device class, as far as its tile fits in local
 *                     memory)
 *   groups            work-groups in the first pass (partials per level)
 *   form              how the radix sort, the scan and compaction run
 *                     ("form=multi-pass" or "form=one-sweep"). One-sweep reads
 *                     the data once (a sort pass, a scan, a compaction) in one
 *                     launch: each tile, numbered in the order work-groups
 *                     start, waits for the results of the tiles started before
 *                     it, and computes from the input itself any that does not
 *                     come (decoupled fallback), so it ends on every device
 *                     (a scan in place, which cannot fall back, runs
 *                     multi-pass where started work-groups may starve).
 *                     The table names it where it is the faster form: NVIDIA
 *                     GPUs (on PoCL's CPU device it took 2 to 3 times the
 *                     multi-pass time, the sort 12 times). Elsewhere it also
 *                     needs 64-bit atomics (cl_khr_int64_base_atomics),
 *                     without which scan and compaction run multi-pass. Every
 *                     result is the same bits on every run in either form:
 *                     where the operator gives the same bits in any grouping
 *                     (integer SUM, MIN and MAX; float MIN and MAX) both forms
 *                     agree; float sums and callers' operators are grouped by
 *                     tile numbers alone in one sweep (groups of wg tiles), so
 *                     their bits are fixed by the form and shape, as the
 *                     multi-pass grouping is by the tuning. */
typedef enum {
    CLPRIM_FORM_DEFAULT = 0,    /* the device's table entry */
    CLPRIM_FORM_MULTI_PASS = 1, /* count, scan the counts, scatter: separate kernels */
    CLPRIM_FORM_ONE_SWEEP = 2   /* one kernel a pass, tiles looking back at earlier tiles */
} clprim_form;

typedef struct {
    size_t work_group_size;
    size_t items_per_thread;
    size_t groups;
    clprim_form form;
} clprim_tuning;

/* tuning == NULL restores the device's defaults. Values the device cannot run
 * return CLPRIM_INVALID_ARGUMENT and leave the tuning as it was: sizes above the
 * device's limits, tiles that do not fit its local memory, and shapes that its
 * driver is known to fail to compile (on PoCL's CPU device, work_group_size 2
 * with items_per_thread above 1, which aborts PoCL 3's kernel compiler). */
CLPRIM_API clprim_status clprim_set_tuning(clprim_context *ctx, const clprim_tuning *tuning);
CLPRIM_API clprim_tuning clprim_get_tuning(const clprim_context *ctx);

/* ---- Progress ---------------------------------------------------------- */

/* Long blocking calls report their steps to this function when one is set:
 * clprim_kmeans calls it after each iteration with what = "k-means", done = the
 * iterations run so far and total = max_iterations (the run may stop sooner);
 * clprim_warm_up after each program with what = "warm-up", done = the programs
 * built or loaded so far and total = all it will build.
 * It runs on the calling thread, inside the call, and must not call libclprim
 * with this context. fn == NULL turns reporting off (the default). */
typedef void (*clprim_progress_fn)(void *user, const char *what, unsigned long done, unsigned long total);
CLPRIM_API clprim_status clprim_set_progress(clprim_context *ctx, clprim_progress_fn fn, void *user);

/* ---- Scan and reduce --------------------------------------------------- */

/* dst[i] = src[0] op ... op src[i] (inclusive), or op over src[0..i-1] (exclusive:
 * dst[0] combines nothing, so it holds 0, the largest or the lowest value, see
 * clprim_op). For MIN, MAX and integer sums, dst[i] is exactly what clprim_reduce
 * gives over the first i + 1 elements (inclusive) or i elements (exclusive): for
 * floats, [NaN, 3, NaN, 1, 5] scans with MIN to [NaN, 3, 3, 1, 1] inclusive and
 * [+inf, NaN, 3, 3, 1] exclusive.
 * In place when src and dst are the same elements (above); other overlaps are
 * CLPRIM_INVALID_ARGUMENT. The result is the same bits on every run with the same
 * device and tuning. Float and double sums add in an order the tuning fixes
 * (README.md, "How accurate float sums are"): the error is bounded by a chain
 * of additions of a tile plus the tiles of a work-group's chunk (a few hundred
 * at 10^8 elements on a GPU shape, a few thousand on a CPU's), not by n; 10^8
 * floats uniform in [0, 1) end about 1e-6 off at worst. CLPRIM_DOUBLE gives more. */
CLPRIM_API clprim_status clprim_scan(clprim_context *ctx, clprim_type t, clprim_op op,
                                     int exclusive, cl_mem src, size_t src_offset,
                                     cl_mem dst, size_t dst_offset, size_t n,
                                     cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event);

/* Blocking (a wait list, no event): writes one element of type t to *result.
 * Float MIN/MAX give NaN only when every element is NaN; n == 0 gives 0 for
 * SUM, the type's largest value for MIN, its lowest for MAX (+-infinity for
 * floats; see clprim_op). */
CLPRIM_API clprim_status clprim_reduce(clprim_context *ctx, clprim_type t, clprim_op op,
                                       cl_mem src, size_t offset, size_t n, void *result,
                                       cl_uint num_events_in_wait_list, const cl_event *event_wait_list);

/* An operator of the caller's, for clprim_scan_op and clprim_reduce_op.
 *   combine   an OpenCL C expression over a and b, two elements of the array's
 *             type (int, uint, long, ulong, float, double, uchar), giving the
 *             combination of a (the earlier elements) with b (the later ones):
 *             "a * b", "max(a, b)", "(a & 0xff) + b". The grammar, the limits
 *             and the messages are those of clprim_predicate's expression, with
 *             a and b as the only names; the value is converted to the element
 *             type (so uchar sums wrap). Like every kernel, the compiled
 *             program is cached in memory and on disk, keyed by the expression.
 *   identity  one element of the array's type with combine(identity, x) == x
 *             (and combine(x, identity) == x): where each work-group starts,
 *             element 0 of an exclusive scan and the reduction of n == 0.
 * The operator must be associative; it need not commute (a is always the
 * earlier part of the array): the elements are combined in order, grouped in a
 * tree whose shape depends on the device and the tuning. For an operator that
 * is not associative (float addition, strictly), the result is unspecified but
 * the same bits on every run with the same device and tuning. Built-in SUM, MIN
 * and MAX run through the same kernels: "a + b" from 0 gives the bits of
 * CLPRIM_SUM for integers, "min(a, b)" and "max(a, b)" those of MIN and MAX
 * (fmin and fmax for floats); float sums may group differently. */
typedef struct {
    const char *combine;
    const void *identity;
} clprim_operator;

/* clprim_scan with the caller's operator: dst[i] = src[0] op ... op src[i]
 * (inclusive), or the identity op src[0] op ... op src[i - 1] (exclusive, so
 * dst[0] is the identity). Buffers, overlaps, in place, events as clprim_scan.
 * Errors: NULL op, NULL identity, a NULL, empty or refused combine:
 * CLPRIM_INVALID_ARGUMENT naming op->combine; an expression the compiler
 * rejects: CLPRIM_BUILD_FAILED with its log. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_scan_op(clprim_context *ctx, clprim_type t, const clprim_operator *op,
                                        int exclusive, cl_mem src, size_t src_offset, cl_mem dst,
                                        size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event);

/* A scan that starts from a seed: one element of type t at element seed_offset
 * of the buffer `seed`, read on the device when the scan runs, so it can come
 * from an earlier call (the last element of the previous piece's inclusive
 * scan) with no trip through the host. Inclusive: dst[i] = seed op src[0] op
 * ... op src[i]; exclusive: dst[0] = seed and dst[i] = seed op src[0] op ...
 * op src[i - 1].
 *   op, custom  custom == NULL: the built-in op (as clprim_scan); otherwise the
 *               caller's operator (as clprim_scan_op, op ignored)
 *   seed        NULL: exactly clprim_scan or clprim_scan_op (the same bits)
 * Scanning an array in pieces (a stream, or a slice per process), each seeded
 * with the previous piece's last inclusive result, gives what one scan of the
 * whole gives: the same bits for integers, MIN and MAX; float sums group
 * differently, but the same way on every run with the same device and tuning.
 * src and dst as clprim_scan (in place when the same elements). The seed may
 * lie among src's elements (both are only read) but not among dst's
 * [dst_offset, dst_offset + n): CLPRIM_INVALID_ARGUMENT naming both; a seed
 * buffer with no element at seed_offset: CLPRIM_BUFFER_TOO_SMALL; a seed
 * buffer that is CL_MEM_WRITE_ONLY: CLPRIM_INVALID_ARGUMENT. n == 0 writes
 * nothing. Events as clprim_scan; other errors as clprim_scan and
 * clprim_scan_op. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_scan_seeded(clprim_context *ctx, clprim_type t, clprim_op op,
                                            const clprim_operator *custom, int exclusive, cl_mem seed,
                                            size_t seed_offset, cl_mem src, size_t src_offset, cl_mem dst,
                                            size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event);

/* clprim_reduce with the caller's operator: blocking, one element of type t to
 * *result; n == 0 gives the identity. Errors as clprim_scan_op; *result is
 * written only on success. */
CLPRIM_API clprim_status clprim_reduce_op(clprim_context *ctx, clprim_type t, const clprim_operator *op,
                                          cl_mem src, size_t offset, size_t n, void *result,
                                          cl_uint num_events_in_wait_list, const cl_event *event_wait_list);

/* clprim_reduce (custom NULL: the built-in op) or clprim_reduce_op (custom:
 * the caller's operator; op is ignored) with the result left on the device:
 * one element of type t written to result[result_offset]. Enqueues only, so a
 * pipeline never waits on the host; *event, when asked for, completes with
 * the write. The same bits as the host forms; n == 0 writes what they return
 * for it. Errors: those of clprim_reduce and clprim_reduce_op, and result
 * NULL, CL_MEM_READ_ONLY or sharing a byte with src's elements:
 * CLPRIM_INVALID_ARGUMENT; result without an element at result_offset:
 * CLPRIM_BUFFER_TOO_SMALL. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_reduce_to(clprim_context *ctx, clprim_type t, clprim_op op,
                                          const clprim_operator *custom, cl_mem src, size_t offset, size_t n,
                                          cl_mem result, size_t result_offset, cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* Segmented reduce (CUB's DeviceSegmentedReduce): one reduction per segment,
 * the segments given by an offsets array. offsets[offsets_offset ..
 * offsets_offset + segments] are segments + 1 cl_ulong, counted from
 * src_offset: segment s is src[src_offset + offsets[s] .. src_offset +
 * offsets[s + 1]), and dst[dst_offset + s] receives the combination of its
 * elements, in order (op, or custom when not NULL, as clprim_reduce_to). An
 * empty segment (offsets[s] == offsets[s + 1]) gets what combining nothing
 * gives: 0 for SUM, the type's largest value for MIN and its lowest for MAX
 * (+-infinity for floats, see clprim_op), custom's identity. Elements before
 * offsets[0] or from offsets[segments] on belong to no segment and are not
 * read into any result. So CUB's begin and end iterators over one array are
 * offsets and offsets + 1; segments that leave gaps need an array of their
 * own per call, or a SUM over values zeroed in the gaps.
 * Offsets must be non-decreasing and at most n. They are on the device and
 * are not checked: each is taken as min(offsets[k], n), so a larger one ends
 * its segment at n; where they decrease, the values written are unspecified.
 * Either way the call reads nothing outside src's n elements and the
 * offsets, and writes nothing outside dst[dst_offset .. + segments).
 * The work is split by elements, not segments, so many tiny segments and a
 * few huge ones cost about the same per element. The result is the same bits
 * on every run with the same device and tuning; float sums group by the
 * tuning's tiles and chunks, as clprim_reduce_to's do (README.md, "How
 * accurate float sums are"), so a segment's error is bounded like a
 * reduction of its elements, and integer sums, MIN and MAX are exact.
 * n == 0 writes every segment's empty result; segments == 0 writes nothing.
 * Enqueues only; events as clprim_scan. Uses scratch of a few values per
 * work-group of the tuning's grid, kept by the context.
 * Errors: an unknown type or op, a bad custom (as clprim_scan_op): CLPRIM_INVALID_ARGUMENT;
 * src, offsets or dst NULL, dst CL_MEM_READ_ONLY, src or offsets
 * CL_MEM_WRITE_ONLY, dst sharing a byte with src's elements or the offsets:
 * CLPRIM_INVALID_ARGUMENT (src and offsets may overlap: both are only read);
 * src shorter than src_offset + n, offsets than offsets_offset + segments + 1
 * cl_ulong, dst than dst_offset + segments elements: CLPRIM_BUFFER_TOO_SMALL.
 * A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_segmented_reduce(clprim_context *ctx, clprim_type t, clprim_op op,
                                                 const clprim_operator *custom, cl_mem src, size_t src_offset,
                                                 size_t n, cl_mem offsets, size_t offsets_offset, size_t segments,
                                                 cl_mem dst, size_t dst_offset, cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event);

/* Segmented argmin and argmax (CUB's DeviceSegmentedReduce::ArgMin and
 * ArgMax): per segment of the offsets array (as clprim_segmented_reduce
 * reads it), the smallest (op CLPRIM_MIN) or largest (CLPRIM_MAX) element to
 * values[values_offset + s] (an element of type t) and the index of its
 * first occurrence, counted from src_offset like the offsets (CUB counts from
 * the segment's start: subtract offsets[s]), to indices[indices_offset + s]
 * (a cl_ulong). Either output may be NULL, not both. Ties and NaN as
 * clprim_reduce_index: equal values (-0.0 and +0.0 among them) go to the
 * first; a NaN loses to any number, so a segment's answer is NaN, at its
 * first element, only when all of it is NaN. An empty segment gets index
 * CL_ULONG_MAX and the value an empty MIN or MAX gives in
 * clprim_segmented_reduce (the type's largest or lowest, +-infinity for
 * floats). The answers are the same on every device and tuning. Offsets,
 * n == 0, segments == 0, the split of the work and what is read and written
 * as clprim_segmented_reduce. Enqueues only; events as clprim_scan.
 * Errors: an unknown type, op CLPRIM_SUM or unknown, values and indices both
 * NULL: CLPRIM_INVALID_ARGUMENT; double without fp64: CLPRIM_UNSUPPORTED;
 * buffers and overlaps as clprim_segmented_reduce's dst, for each output,
 * and values sharing a byte with indices: CLPRIM_INVALID_ARGUMENT. A failed
 * call enqueues nothing. */
CLPRIM_API clprim_status clprim_segmented_reduce_index(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src,
                                                       size_t src_offset, size_t n, cl_mem offsets,
                                                       size_t offsets_offset, size_t segments, cl_mem values,
                                                       size_t values_offset, cl_mem indices, size_t indices_offset,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event);

/* Scan by key (segmented scan): the scan of clprim_scan or clprim_scan_op,
 * started again at every segment, a run of equal consecutive keys: dst[i]
 * combines values[j .. i] (inclusive) or values[j .. i - 1] (exclusive), where
 * j is the first index of i's segment; an exclusive scan writes at each
 * segment's first element what combining nothing gives (0, the largest or the
 * lowest value for the built-ins, the identity for custom). Equal keys that
 * are not consecutive start separate segments.
 *   key_type    CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_INT64 or CLPRIM_UINT64
 *   value_type  any clprim_type
 *   op, custom  custom == NULL: the built-in op; otherwise the caller's
 *               operator (clprim_operator, op ignored)
 * values and dst may be the same elements (in place); keys must not overlap
 * dst. Events as clprim_scan. The result is the same bits on every run with the
 * same device and tuning (exact for integers, MIN and MAX).
 * Errors: another key type, an unknown value type or op, a bad custom operator
 * (as clprim_scan_op): CLPRIM_INVALID_ARGUMENT; buffers shorter than offset + n:
 * CLPRIM_BUFFER_TOO_SMALL; overlaps: CLPRIM_INVALID_ARGUMENT. A failed call
 * enqueues nothing. */
CLPRIM_API clprim_status clprim_scan_by_key(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                            clprim_op op, const clprim_operator *custom, int exclusive, cl_mem keys,
                                            size_t keys_offset, cl_mem values, size_t values_offset, cl_mem dst,
                                            size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event);

/* Reduce by key: for each segment (run of equal consecutive keys, as in
 * clprim_scan_by_key), its key to keys_out and the combination of its values
 * (op, or custom when not NULL) to values_out, in order; the number of
 * segments, `runs`, goes to *runs (blocking) and/or, as one cl_ulong, to
 * runs_buffer[runs_offset] (both may be NULL), as clprim_compact reports its
 * count. keys_out and values_out need room for n elements (checked); nothing
 * is written past runs. Outputs must not overlap any other buffer of the call.
 * Deterministic as clprim_scan_by_key. Reads the input in one pass where
 * clprim_scan_by_key does and n < 2^31, else two; scratch: a few values per
 * work-group.
 * n == 0 reports 0 runs.
 * Errors as clprim_scan_by_key, with NULL values; a failed call writes no
 * output and leaves *runs alone. */
CLPRIM_API clprim_status clprim_reduce_by_key(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                              clprim_op op, const clprim_operator *custom, cl_mem keys,
                                              size_t keys_offset, cl_mem values, size_t values_offset, size_t n,
                                              cl_mem keys_out, size_t keys_out_offset, cl_mem values_out,
                                              size_t values_out_offset, size_t *runs, cl_mem runs_buffer,
                                              size_t runs_offset, cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event);

/* Run-length encoding: each run of equal consecutive keys as its key (to
 * keys_out) and its length (a cl_ulong, to lengths), in order; the number of
 * runs as clprim_reduce_by_key reports it. Key types, rooms, overlaps and
 * errors as there. */
CLPRIM_API clprim_status clprim_run_length_encode(clprim_context *ctx, clprim_type key_type, cl_mem keys,
                                                  size_t keys_offset, size_t n, cl_mem keys_out,
                                                  size_t keys_out_offset, cl_mem lengths, size_t lengths_offset,
                                                  size_t *runs, cl_mem runs_buffer, size_t runs_offset,
                                                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                  cl_event *event);

/* Non-trivial runs: each run of two or more equal consecutive keys as the
 * index of its first key (counted from keys_offset) and its length, both
 * cl_ulong, to offsets and lengths, in order; their number as
 * clprim_reduce_by_key reports its runs. offsets and lengths need room for
 * n / 2 elements (checked), the most such runs n keys hold. Key types,
 * overlaps and errors as clprim_run_length_encode. */
CLPRIM_API clprim_status clprim_run_length_encode_nontrivial(clprim_context *ctx, clprim_type key_type, cl_mem keys,
                                                             size_t keys_offset, size_t n, cl_mem offsets,
                                                             size_t offsets_offset, cl_mem lengths,
                                                             size_t lengths_offset, size_t *runs, cl_mem runs_buffer,
                                                             size_t runs_offset, cl_uint num_events_in_wait_list,
                                                             const cl_event *event_wait_list, cl_event *event);

/* Unique: the first key of each run of equal consecutive keys, in order (so a
 * sorted array's distinct keys), to keys_out; their number to *count and/or
 * count_buffer[count_offset] (a cl_ulong). As clprim_run_length_encode
 * otherwise. */
CLPRIM_API clprim_status clprim_unique(clprim_context *ctx, clprim_type key_type, cl_mem keys, size_t keys_offset,
                                       size_t n, cl_mem keys_out, size_t keys_out_offset, size_t *count,
                                       cl_mem count_buffer, size_t count_offset, cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event);

/* Unique by key: the first key of each run of equal consecutive keys, as
 * clprim_unique, and the value beside it (values[values_offset + j] for the
 * run's first index j), to keys_out and values_out, in order; their number as
 * clprim_unique reports it. value_type: any clprim_type. Rooms, overlaps and
 * errors as clprim_reduce_by_key (values NULL: CLPRIM_INVALID_ARGUMENT). */
CLPRIM_API clprim_status clprim_unique_by_key(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                              cl_mem keys, size_t keys_offset, cl_mem values, size_t values_offset,
                                              size_t n, cl_mem keys_out, size_t keys_out_offset, cl_mem values_out,
                                              size_t values_out_offset, size_t *count, cl_mem count_buffer,
                                              size_t count_offset, cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event);

/* Argmin and argmax: the smallest (op CLPRIM_MIN) or largest (CLPRIM_MAX) of
 * src[offset .. offset + n) to *value (one element of type t) and the index of
 * its first occurrence, counted from offset, to *index. Either may be NULL, not
 * both. Blocking (a wait list, no event). Equal values, -0.0 and +0.0 among
 * them, go to the first; for floats a NaN loses to any number (as fmin and
 * fmax ignore it), so the answer is NaN at index 0 only when every element is
 * NaN. The answer is the same on every device and tuning.
 * Errors: op CLPRIM_SUM or unknown, n == 0 (an empty range has no answer),
 * value and index both NULL: CLPRIM_INVALID_ARGUMENT; src shorter than
 * offset + n: CLPRIM_BUFFER_TOO_SMALL. A failed call writes neither output. */
CLPRIM_API clprim_status clprim_reduce_index(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src,
                                             size_t offset, size_t n, void *value, size_t *index,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list);

/* clprim_reduce_index with its answer left on the device: the element to
 * value[value_offset] (one element of type t) and its index, as a cl_ulong,
 * to index[index_offset]; either buffer may be NULL, not both. Enqueues only
 * (an event). Errors: those of clprim_reduce_index, and an output that is
 * CL_MEM_READ_ONLY or shares a byte with src's elements or with the other
 * output: CLPRIM_INVALID_ARGUMENT; an output without an element at its
 * offset: CLPRIM_BUFFER_TOO_SMALL. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_reduce_index_to(clprim_context *ctx, clprim_type t, clprim_op op, cl_mem src,
                                                size_t offset, size_t n, cl_mem value, size_t value_offset,
                                                cl_mem index, size_t index_offset, cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event);

/* ---- Stream compaction ------------------------------------------------- */

/* Which elements a compaction keeps. */
typedef enum {
    CLPRIM_KEEP_LT,        /* x <  value */
    CLPRIM_KEEP_LE,        /* x <= value */
    CLPRIM_KEEP_GT,        /* x >  value */
    CLPRIM_KEEP_GE,        /* x >= value */
    CLPRIM_KEEP_EQ,        /* x == value */
    CLPRIM_KEEP_NE,        /* x != value */
    CLPRIM_KEEP_NONZERO,   /* x != 0 */
    CLPRIM_KEEP_FLAGGED,   /* flags[flags_offset + i] != 0 (select flagged) */
    CLPRIM_KEEP_EXPRESSION /* an OpenCL C boolean expression over x (and i) */
} clprim_keep;

/* The predicate of clprim_compact. Fields a kind does not use are ignored, so
 * {CLPRIM_KEEP_GT, &limit} is a whole predicate.
 *   value       comparisons: points to one element of the array's type
 *   flags       CLPRIM_KEEP_FLAGGED: one byte (cl_uchar) per element, non-zero keeps;
 *   flags_offset  element i of src is judged by byte flags_offset + i (GPUs read the
 *               flags fastest where the offset is a multiple of 16)
 *   expression  CLPRIM_KEEP_EXPRESSION: an OpenCL C expression such as
 *               "x > 50 && (x & 1) == 0", where x is the element (of the array's
 *               OpenCL type: int, uint, long, ulong, float, double, uchar) and i its
 *               index counted from src_offset (ulong). Non-zero keeps. The library
 *               parses it and accepts only (at most 4096 characters; whitespace
 *               between tokens is ignored):
 *                 operands   x, i; numbers: decimal, hex (0x), octal (0) integers
 *                            with u, l, ul or lu; floating (1.5, .5, 2., 1e-3) with
 *                            an optional f
 *                 operators  unary + - ! ~; binary * / % + - << >> < <= > >= == !=
 *                            & ^ | && ||; c ? a : b; ( ); casts (char), (uchar),
 *                            (short), (ushort), (int), (uint), (long), (ulong),
 *                            (float), (double: only where the device has fp64)
 *                 functions  abs abs_diff popcount clz (integers); min max clamp;
 *                            fabs floor ceil round trunc sqrt cbrt exp exp2 log log2
 *                            log10 sin cos tan atan pow atan2 hypot fmod fmin fmax
 *                            copysign isnan isinf isfinite signbit (these take
 *                            float, or double when an argument is double)
 *               with C's precedence, promotions and conversions (a function's
 *               arguments are converted to their common type); an unsuffixed
 *               floating literal is double where the device has fp64, else float.
 *               As in C, a floating value where a truth value is taken (the whole
 *               expression, the condition of ?:, an operand of ! && ||) is true
 *               when non-zero, NaN included. min, max and clamp of floats are
 *               fmin, fmax and fmin(fmax(x, lo), hi): a NaN loses to a number.
 *               Each floating operation is rounded on its own, as C rounds it
 *               (no fused multiply-add; float division and sqrt correctly
 *               rounded wherever the device can build them so), so a C loop
 *               over the same arithmetic gives the same bits (functions such
 *               as sin keep OpenCL's accuracy, which may differ from a C
 *               library's in the last bit).
 *               ~ << >> & ^ | % take integers only (floats: fmod). Integer a / 0
 *               and a % 0 are 0, and the type's lowest value / -1 is that value
 *               (% -1 is 0), so no division traps; float division follows IEEE.
 *               Anything else (assignment, ++, --, the comma, ';', braces,
 *               brackets, pointers, '.', '->', sizeof, other names, quotes,
 *               comments, '#', parentheses, calls, ?:, unary operators and casts
 *               nested deeper than 64) is CLPRIM_INVALID_ARGUMENT
 *               with a message naming the token and its 0-based position, e.g.
 *               keep->expression: unexpected ';' at 5 in "x > 3;". What is compiled
 *               is the parsed expression, written out again, and it is cached like
 *               every kernel (memory and disk, keyed by that text), so the first
 *               call with a new expression pays a compile. Should the compiler
 *               still reject one, that is CLPRIM_BUILD_FAILED with its log.
 * Float comparisons follow IEEE: NaN fails every comparison except NE, and NONZERO
 * keeps NaN but not -0.0. */
typedef struct {
    clprim_keep keep;
    const void *value;
    cl_mem flags;
    size_t flags_offset;
    const char *expression;
} clprim_predicate;

/* Order-preserving copy_if: the elements of src[src_offset .. +n) that pass `keep`
 * go to dst[dst_offset ..], in their input order, on every device and schedule.
 * dst needs room for n elements (checked), but nothing is written past the kept
 * count: dst[dst_offset + kept ..] keeps its old contents.
 *
 * The count of kept elements goes to the host through *kept (the call then
 * blocks until it is known) and/or to the device, without blocking, as one
 * cl_ulong at element kept_offset of kept_buffer. Both may be NULL (nothing
 * reports the count). When both are given, *kept is read from kept_buffer.
 *
 * In place when src and dst are the same elements: that costs a copy of the n
 * input elements into the context's scratch first (work-groups would otherwise
 * overwrite input that earlier work-groups have not read yet), so scratch grows
 * to n elements (CLPRIM_OUT_OF_MEMORY when the device cannot hold that). Other
 * overlaps of src and dst are CLPRIM_INVALID_ARGUMENT, and so are flags
 * overlapping dst, and kept_buffer's cl_ulong overlapping src, dst or flags
 * (sub-buffers included, above).
 *
 * n == 0 writes nothing to dst; the count is 0 (kept_buffer still gets it); the
 * kernels are still built, so a bad expression fails at n == 0 too.
 * Errors: NULL keep, an unknown kind, NULL value (comparisons), NULL flags
 * (FLAGGED), a NULL, empty or refused expression: CLPRIM_INVALID_ARGUMENT; flags
 * or buffers shorter than offset + n (or kept_offset + 1): CLPRIM_BUFFER_TOO_SMALL;
 * an expression the compiler rejects: CLPRIM_BUILD_FAILED with its log. A failed
 * call enqueues nothing and leaves *kept unwritten.
 * Work: pass 1 counts the kept elements of each work-group's chunk (reading only
 * the flags, for FLAGGED); the counts are scanned (or, when few, folded by each
 * work-group of pass 3 itself); pass 3 writes each chunk's kept elements from its
 * offset. No atomics: the order is the input order on every device. */
CLPRIM_API clprim_status clprim_compact(clprim_context *ctx, clprim_type t, const clprim_predicate *keep,
                                        cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset,
                                        size_t n, size_t *kept, cl_mem kept_buffer, size_t kept_offset,
                                        cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event);

/* Stable two-way partition: the elements of src[src_offset .. +n) that pass
 * `keep` go to the front of dst[dst_offset .. +n) in their input order, and
 * the others after them, also in their input order, so all n are written. The
 * kept count is reported as clprim_compact reports it (*kept, kept_buffer, both
 * optional). Every predicate kind of clprim_compact; in place as there (a copy
 * of the input into scratch first); the same checks, errors and untouched
 * buffers on failure. n == 0 writes nothing and reports 0.
 * Work: the multi-pass form of clprim_compact on every device (pass 1 counts,
 * pass 3 writes each chunk's kept elements from their offset and its rejected
 * ones from the total kept count plus theirs). */
CLPRIM_API clprim_status clprim_partition(clprim_context *ctx, clprim_type t, const clprim_predicate *keep,
                                          cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset,
                                          size_t n, size_t *kept, cl_mem kept_buffer, size_t kept_offset,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* Stable three-way partition: the n elements of src[src_offset .. +n) go to
 * dst[dst_offset .. +n) in three parts, each in its input order: those that
 * pass `first`; then those that fail `first` and pass `second` (an element
 * that passes both belongs to the first part); then the rest. The parts'
 * sizes, first_count and second_count (the rest: n less both), go to the host
 * through *first_count and *second_count (either may be NULL; the call blocks
 * when one is given) and/or to the device, without blocking, as two cl_ulong
 * at elements counts_offset (first_count) and counts_offset + 1
 * (second_count) of counts_buffer (may be NULL). When both are given, the
 * host's are read from counts_buffer.
 * The predicates are clprim_compact's, of any kind each (say a comparison and
 * a flag array, or two expressions); NaN fails every comparison but NE. In
 * place when src and dst are the same elements, as clprim_compact (a copy of
 * the input into scratch first); other overlaps of src and dst, flags of
 * either predicate overlapping dst, and counts_buffer's two cl_ulong
 * overlapping src, dst or flags are CLPRIM_INVALID_ARGUMENT. n == 0 writes
 * nothing and reports 0 and 0 (counts_buffer still gets them); the kernels are
 * still built, so a bad expression fails at n == 0 too.
 * Errors: NULL first or second, an unknown kind, NULL value (comparisons), NULL
 * flags (FLAGGED), a NULL, empty or refused expression: CLPRIM_INVALID_ARGUMENT,
 * the message naming first or second (e.g. "second->value is NULL"); flags or
 * buffers shorter than offset + n, counts_buffer without two cl_ulong from
 * counts_offset: CLPRIM_BUFFER_TOO_SMALL; an expression the compiler rejects:
 * CLPRIM_BUILD_FAILED with its log. A failed call enqueues nothing and leaves
 * dst, counts_buffer, *first_count and *second_count unwritten.
 * Work: the multi-pass form of clprim_partition on every device with two
 * counts a work-group (pass 1 counts both parts of each chunk, one scan or fold
 * of the counts gives each chunk its three positions, pass 3 writes each part
 * from its position). Its program is built per pair of predicate kinds on
 * first use (clprim_warm_up builds none of them). */
CLPRIM_API clprim_status clprim_partition_three_way(clprim_context *ctx, clprim_type t,
                                                    const clprim_predicate *first, const clprim_predicate *second,
                                                    cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset,
                                                    size_t n, size_t *first_count, size_t *second_count,
                                                    cl_mem counts_buffer, size_t counts_offset,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list, cl_event *event);

/* The first element of src[src_offset .. +n) that passes `keep` (every
 * predicate kind of clprim_compact): its index, counted from src_offset, to
 * index[index_offset] as a cl_ulong; n when none does (also when n == 0).
 * Enqueues only. Work-groups stop once an earlier part of the array holds a
 * match, so a match near the front costs little of a full pass; the answer is
 * the same on every run. Errors: those of clprim_compact's predicate and src; index NULL,
 * CL_MEM_READ_ONLY or sharing a byte with src or keep->flags:
 * CLPRIM_INVALID_ARGUMENT; index without an element at index_offset:
 * CLPRIM_BUFFER_TOO_SMALL. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_find_if(clprim_context *ctx, clprim_type t, const clprim_predicate *keep,
                                        cl_mem src, size_t src_offset, size_t n, cl_mem index,
                                        size_t index_offset, cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event);

/* ---- Element-wise: transform, transform-reduce, adjacent difference ----- */

/* An element-wise function of one or two arrays: element i is
 * f(x[x_offset + i], y[y_offset + i], i).
 *   expression  an OpenCL C expression over x (an element of x_type, as its
 *               OpenCL type: int, uint, long, ulong, float, double, uchar), y
 *               (an element of y_type, when y is not NULL) and i (its index
 *               counted from the offsets, ulong): "x * x", "2.5f * x + y",
 *               "x < 0 ? -x : x", "(double)x * (double)y". The grammar, the
 *               limits and the messages are those of clprim_predicate's
 *               expression, with x, y and i as the names. The value is
 *               converted to the destination type as C converts it (a float
 *               out of an integer type's range has no defined conversion: clamp
 *               it in the expression). Compiled and cached per expression and
 *               types, as every kernel.
 *   x_type, x, x_offset  the first input
 *   y_type, y, y_offset  the second input, or y == NULL (y_type ignored) */
typedef struct {
    const char *expression;
    clprim_type x_type;
    cl_mem x;
    size_t x_offset;
    clprim_type y_type;
    cl_mem y;
    size_t y_offset;
} clprim_map;

/* dst[dst_offset + i] = f(i) for i < n, converted to dst_type. In place when
 * dst is exactly x's (or y's) elements, of the same size; other overlaps with
 * an input are CLPRIM_INVALID_ARGUMENT. Enqueues only; the same bits on every
 * run. Errors: NULL f, an unknown type, a NULL, empty or refused expression, or
 * one that names y without a second input: CLPRIM_INVALID_ARGUMENT naming
 * f->expression; an input or dst shorter than its offset + n:
 * CLPRIM_BUFFER_TOO_SMALL; an expression the compiler rejects:
 * CLPRIM_BUILD_FAILED with its log. n == 0 writes nothing (the expression is
 * still compiled, so a bad one fails). A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_transform(clprim_context *ctx, const clprim_map *f, size_t n, clprim_type dst_type,
                                          cl_mem dst, size_t dst_offset, cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* The reduction (as clprim_reduce_to: op, or custom when not NULL) of f(i)
 * over i < n, each converted to t, without storing them: one element of type
 * t to result[result_offset]. Enqueues only. The elements are combined in the
 * grouping clprim_reduce_to uses for an array of them, so the result is the
 * same bits as transforming into an array of t and reducing that (for float
 * division and sqrt, where the device builds them correctly rounded: see
 * clprim_predicate's expression). n == 0
 * writes what clprim_reduce_to writes for it. Errors: those of
 * clprim_transform (for f) and of clprim_reduce_to (for t, op, custom and
 * result, which must not share a byte with an input). */
CLPRIM_API clprim_status clprim_transform_reduce(clprim_context *ctx, const clprim_map *f, size_t n, clprim_type t,
                                                 clprim_op op, const clprim_operator *custom, cl_mem result,
                                                 size_t result_offset, cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event);

/* dst[dst_offset] = src[src_offset] and, for 0 < i < n, dst[dst_offset + i] =
 * difference(src[src_offset + i], src[src_offset + i - 1]), where difference
 * is an OpenCL C expression over a (the element) and b (the one before it),
 * in clprim_operator's grammar, converted to t; NULL means "a - b" (integers
 * wrap as their type does). src and dst must not overlap
 * (CLPRIM_INVALID_ARGUMENT). Enqueues only; the same bits on every run.
 * Errors: an unknown type, an empty or refused difference:
 * CLPRIM_INVALID_ARGUMENT; buffers shorter than offset + n:
 * CLPRIM_BUFFER_TOO_SMALL; an expression the compiler rejects:
 * CLPRIM_BUILD_FAILED. n == 0 writes nothing. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_adjacent_difference(clprim_context *ctx, clprim_type t, const char *difference,
                                                    cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset,
                                                    size_t n, cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list, cl_event *event);

/* ---- Delta packing ----------------------------------------------------- */

/* Packs elements whose neighbours are close (sorted keys, timestamps,
 * indices) into fewer bytes, to move them over a narrow link (MPI between
 * hosts, PCIe, a file), and unpacks them bit for bit on any device.
 * Elements go in blocks of CLPRIM_DELTA_BLOCK. Within a block, the
 * difference of each element from the one before is taken modulo 2^bits of
 * the type as a signed number; the block keeps its first element, its
 * smallest difference ("step"), and each element's difference less the step
 * (element 0: 0) in the fewest bits that hold the largest of them. So
 * ascending and descending runs pack alike, an arithmetic sequence (0, 1, 2,
 * ...) takes no bits beyond its headers, sorted uniform random 32-bit keys
 * take about log2(2^32 / n) + 3 bits each, and elements with no order their
 * full width plus the headers (24 bytes a block). Every type packs as its
 * bits (floats too; doubles need no fp64).
 *
 * The packed form, in cl_uint words (as the device stores them; every
 * OpenCL device of note is little-endian), the same on every device: for
 * each of the ceil(n / CLPRIM_DELTA_BLOCK) blocks a header of 6 words (the
 * first element's bits, low word then high word, the high word 0 for types
 * of 4 bytes or fewer; the step, likewise, as an unsigned number of the
 * type's bits; where the block's differences start, in words after the last
 * header: its low 32 bits, then its width in bits << 24 | bits 32-55 of the
 * start), then each block's differences less the step from its start,
 * element j's at bits [j * width, (j + 1) * width) counted from bit 0 of
 * the block's first word, a word's bit 0 first. Element j of a block is
 * first + j * step + the sum of the stored values up to j, modulo 2^bits. */
#define CLPRIM_DELTA_BLOCK 256

/* The most cl_uint words clprim_delta_pack writes for n elements of t: 7 a
 * block (its header and a partly filled last word) and n times t's bits
 * over 32, rounded up. 0 for an unknown type; SIZE_MAX when that many words
 * would overflow a size_t. */
CLPRIM_API size_t clprim_delta_packed_room(clprim_type t, size_t n);

/* Packs src[src_offset .. + n) (elements of t) into packed from word
 * packed_offset, and writes the number of words it took (a cl_ulong, at
 * most clprim_delta_packed_room(t, n)) to size[size_offset] unless size is
 * NULL. packed must have room for clprim_delta_packed_room(t, n) words
 * (CLPRIM_BUFFER_TOO_SMALL); src, packed and size may not meet
 * (CLPRIM_INVALID_ARGUMENT). Enqueues only; the same words on every run and
 * device. n == 0 writes nothing but a size of 0.
 * Work: the input read twice (each block's width, then the packing) and a
 * scan of the blocks' sizes in the context's scratch (12 bytes a block).
 * Errors: an unknown type: CLPRIM_INVALID_ARGUMENT; buffers shorter than
 * offset + n (src, in elements; packed, in words, as above; size, one
 * cl_ulong): CLPRIM_BUFFER_TOO_SMALL. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_delta_pack(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset,
                                           size_t n, cl_mem packed, size_t packed_offset, cl_mem size,
                                           size_t size_offset, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event);

/* Unpacks n elements of t that clprim_delta_pack packed (from any device)
 * from packed[packed_offset ..) into dst[dst_offset .. + n). packed_words:
 * the words packed holds from packed_offset, as the pack's size gave them;
 * the unpack never reads past them, so a damaged packed form gives wrong
 * elements, never a read out of bounds. Enqueues only; dst may not meet
 * packed (CLPRIM_INVALID_ARGUMENT). n == 0 writes nothing.
 * Work: one pass, the packed words read once and dst written once.
 * Errors: an unknown type: CLPRIM_INVALID_ARGUMENT; packed_words below the
 * headers n elements need (6 words a block): CLPRIM_INVALID_ARGUMENT;
 * buffers shorter than offset + n elements (dst) or offset + packed_words
 * words (packed): CLPRIM_BUFFER_TOO_SMALL. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_delta_unpack(clprim_context *ctx, clprim_type t, cl_mem packed,
                                             size_t packed_offset, size_t packed_words, size_t n, cl_mem dst,
                                             size_t dst_offset, cl_uint num_events_in_wait_list,
                                             const cl_event *event_wait_list, cl_event *event);

/* ---- Histograms -------------------------------------------------------- */

/* counts[counts_offset + b] (cl_uint) += the number of elements of
 * src[src_offset .. +n) that fall in bin b of `bins` even bins over [lo, hi).
 * With accumulate == 0 the counts are set (zeroed first, also when n == 0);
 * otherwise added to what is there. Counts wrap modulo 2^32. Values outside
 * [lo, hi) and NaN are not counted. The result is the same on every run and
 * device: the bin of each element is exactly defined below, and counts are
 * integer sums.
 *
 * Which bin (so a CPU reproduces it exactly):
 *   integer types: lo and hi must be integers with -2^63 <= lo < hi <= 2^64 and
 *     (hi - lo) * bins < 2^64; they may lie outside the type's range. An element
 *     x with lo <= x < hi goes to bin (x - lo) * bins / (hi - lo), computed
 *     exactly in 64-bit unsigned integers (the division truncates).
 *   float and double: lo and hi are first rounded to the element type (lo_t,
 *     hi_t), then scale = bins / (hi_t - lo_t) is computed once in the element
 *     type (bins converted to it first; each operation rounded to nearest). An
 *     element x with lo_t <= x < hi_t goes to bin (uint)((x - lo_t) * scale),
 *     each operation in the element type, no fused multiply-add, clamped to
 *     bins - 1. lo_t < hi_t and a finite hi_t - lo_t and scale are required.
 * So bins whose edges are not representable sit where that arithmetic puts them:
 * with floats, an element on a computed edge may land one bin either side of
 * where exact arithmetic would put it, but always in the same bin.
 *
 * bins: 1 .. 2^31. Each work-group keeps private counts in local memory and
 * adds each non-zero one to counts[] with one atomic per bin per work-group.
 * When the bins do not fit in local memory, the input is read once per range
 * of bins that fits (up to 4 passes), beyond that every element does one global
 * atomic_inc (slower, same result). Errors: lo >= hi, NaN or infinite bounds,
 * non-integer bounds or (hi - lo) * bins >= 2^64 for integer types, bins out of
 * range: CLPRIM_INVALID_ARGUMENT; counts shorter than counts_offset + bins:
 * CLPRIM_BUFFER_TOO_SMALL; counts overlapping src: CLPRIM_INVALID_ARGUMENT. */
CLPRIM_API clprim_status clprim_histogram(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset,
                                          size_t n, double lo, double hi, size_t bins, cl_mem counts,
                                          size_t counts_offset, int accumulate, cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* Histogram over bins of the caller's choosing: `edges` holds bins + 1 values
 * of type t, ascending (each strictly greater than the last; NaN not allowed),
 * at edges_offset of a buffer; element x goes to bin b when
 * edges[b] <= x < edges[b + 1]; values below edges[0], at or above
 * edges[bins], and NaN are not counted. counts[counts_offset + b] (cl_uint) +=
 * the number of elements of src[src_offset .. +n) in bin b. With accumulate == 0
 * the counts are set (zeroed first, also when n == 0); otherwise added to what
 * is there. Counts wrap modulo 2^32. Comparisons are exact, in the element
 * type (floats as IEEE: -0.0 equals +0.0; infinite edges are allowed:
 * -INFINITY as edges[0] puts every number below edges[1] in bin 0, while
 * +INFINITY as edges[bins] still leaves +INFINITY out), and the bin of each
 * element is a binary search over the edges (the largest b with
 * edges[b] <= x), so the result is the same on every run and device. (A
 * device that flushes float denormals may compare values below FLT_MIN in
 * magnitude as zero.)
 *
 * The edges stay on the device and are not checked: the call would have to
 * block to read them. Edges not strictly ascending (or NaN among them) give
 * unspecified counts, still the same on every run; whatever the edges hold,
 * the kernels read and write nothing outside edges[0 .. bins] and the bins'
 * counts.
 *
 * bins: 1 .. 2^31. Each work-group copies the edges to local memory and keeps
 * private counts there, adding each non-zero one to counts[] with one atomic
 * per bin per work-group; when bins + 1 edges and counts do not fit in local
 * memory, every counted element does one global atomic_inc, searching the
 * edges in global memory (slower, same result). src and edges may overlap
 * (both are only read). Errors: an unknown type, bins out of range:
 * CLPRIM_INVALID_ARGUMENT; double on a device without cl_khr_fp64:
 * CLPRIM_UNSUPPORTED; src shorter than src_offset + n, edges shorter than
 * edges_offset + bins + 1 elements, counts shorter than counts_offset + bins:
 * CLPRIM_BUFFER_TOO_SMALL; counts overlapping src or edges:
 * CLPRIM_INVALID_ARGUMENT. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_histogram_range(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset,
                                                size_t n, cl_mem edges, size_t edges_offset, size_t bins,
                                                cl_mem counts, size_t counts_offset, int accumulate,
                                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                cl_event *event);

/* Histograms of the channels of RGBA8 pixels (CUB's MultiHistogramEven):
 * `pixels` holds n pixels of 4 bytes (R, G, B, A) from pixel pixels_offset;
 * the first `channels` (1 to 4) bytes of each are counted, channel c with
 * clprim_histogram's even bins and rule for uint8 elements over
 * [lo[c], hi[c]) in bins[c] bins (1 .. 256), into
 * counts[c][counts_offset[c] + b] (cl_uint), overwritten (accumulate == 0:
 * zeroed first, also when n == 0) or added to. One pass over the pixels
 * counts every channel, each work-group in private local counts (at most
 * 4 x 256 counters). The arrays hold at least `channels` entries; channels
 * past them are neither read nor written (CUB's active channels: RGB of
 * RGBA with channels 3). Counts wrap modulo 2^32; the same on every run and
 * device.
 * Errors: channels not 1 .. 4, a NULL array, bins[c] not 1 .. 256, bounds
 * as clprim_histogram refuses them (the message names the channel):
 * CLPRIM_INVALID_ARGUMENT; pixels shorter than pixels_offset + n pixels, a
 * channel's counts shorter than counts_offset[c] + bins[c]:
 * CLPRIM_BUFFER_TOO_SMALL; counts meeting the pixels or another channel's
 * counts: CLPRIM_INVALID_ARGUMENT. A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_histogram_channels(clprim_context *ctx, cl_mem pixels, size_t pixels_offset, size_t n,
                                                   unsigned channels, const double lo[], const double hi[],
                                                   const size_t bins[], const cl_mem counts[],
                                                   const size_t counts_offset[], int accumulate,
                                                   cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                   cl_event *event);

/* The same over bins between edges of the caller's (CUB's
 * MultiHistogramRange): channel c's bins[c] + 1 edges are cl_int (so that
 * 256 can close the last bin), ascending, at edges[c][edges_offset[c]], and
 * a sample x goes to bin b when edges[b] <= x < edges[b + 1], as
 * clprim_histogram_range counts (edges not ascending: unspecified counts,
 * nothing read or written outside the edges and counts). Edges may be
 * shared between channels and meet the pixels; no counts may meet any
 * channel's edges. Errors as clprim_histogram_channels, with edges shorter
 * than edges_offset[c] + bins[c] + 1 ints: CLPRIM_BUFFER_TOO_SMALL. */
CLPRIM_API clprim_status clprim_histogram_channels_range(clprim_context *ctx, cl_mem pixels, size_t pixels_offset,
                                                         size_t n, unsigned channels, const cl_mem edges[],
                                                         const size_t edges_offset[], const size_t bins[],
                                                         const cl_mem counts[], const size_t counts_offset[],
                                                         int accumulate, cl_uint num_events_in_wait_list,
                                                         const cl_event *event_wait_list, cl_event *event);

/* ---- Images and thresholding ------------------------------------------- */

/* Images are buffers, not cl_image objects, so every device that runs the rest
 * of the library runs these too. Two shapes:
 *
 *   clprim_image         interleaved 8-bit pixels, rows of any length, rows may
 *                        be padded. Unlike the rest of the API, offset and
 *                        row_pitch count BYTES: an RGB8 row is rarely a whole
 *                        number of larger elements. Pixel (x, y) starts at byte
 *                        offset + y * row_pitch + x * clprim_pixel_size(format),
 *                        and the buffer must hold offset + (height - 1) * row_pitch
 *                        + width * pixel size bytes (the last row needs no padding).
 *   clprim_planar_image  float RGB as three planes of width * height floats, R then
 *                        G then B, contiguous and row-major, the R plane starting
 *                        at element `offset` (in floats, as elsewhere).
 *
 * Every image call checks before it enqueues anything, and fails with
 * CLPRIM_INVALID_ARGUMENT and a message naming the field for: a NULL image or
 * data, width or height 0, an unknown format, a row_pitch below one row, sizes
 * whose byte count overflows size_t; CLPRIM_BUFFER_TOO_SMALL when the buffer is
 * shorter than the last byte the image reaches. A destination may be the source
 * itself (the same bytes, row pitch and pixel size: the call works in place);
 * any other overlap of source and destination bytes is CLPRIM_INVALID_ARGUMENT,
 * as is a histogram or level buffer that meets the image or histogram it is
 * computed from (sub-buffers included, above). */

typedef enum {
    CLPRIM_RGB8,  /* 3 bytes a pixel: R, G, B */
    CLPRIM_RGBA8, /* 4 bytes a pixel: R, G, B, A (straight, not premultiplied) */
    CLPRIM_GREY8  /* 1 byte a pixel: a grey level */
} clprim_pixel_format;

typedef struct {
    cl_mem data;
    size_t offset;        /* bytes from the buffer's start to pixel (0, 0) */
    size_t width, height; /* pixels; both > 0 */
    size_t row_pitch;     /* bytes from one row to the next; 0 means width * pixel size */
    clprim_pixel_format format;
} clprim_image;

typedef struct {
    cl_mem data;
    size_t offset;        /* floats from the buffer's start to R of pixel (0, 0) */
    size_t width, height; /* pixels; both > 0; each plane holds width * height floats */
} clprim_planar_image;

/* Bytes a pixel: 3, 4, 1; 0 for a value outside the enum. */
CLPRIM_API size_t clprim_pixel_size(clprim_pixel_format format);

/* What the red-ratio threshold writes (three ways to show the selection). */
typedef enum {
    CLPRIM_THRESHOLD_KEEP,    /* selected pixels unchanged, every other pixel black */
    CLPRIM_THRESHOLD_YELLOW,  /* selected pixels with green := red, every other pixel black */
    CLPRIM_THRESHOLD_REINSERT /* selected pixels with green := red, every other pixel unchanged */
} clprim_threshold_mode;

/* The colour threshold: a pixel is selected when its normalised red
 * r / sqrt(r^2 + g^2 + b^2) exceeds `ratio` (0.7 picks out red
 * objects well in photographs). It is
 * evaluated without division or square root, in float, as
 *     r > 0  &&  r*r > (ratio*ratio) * ((r*r + g*g) + b*b)
 * with each product and sum rounded to float and nothing fused (the kernel has
 * FP_CONTRACT OFF), so a C loop that writes the same expression with
 * -ffp-contract=off gets the same pixels bit for bit. Hence: black pixels
 * (0, 0, 0) are never selected, nor pixels with r <= 0, NaN or infinite
 * components; ratio 1 selects nothing. (A device that flushes denormals may
 * differ on pixels whose squared components fall below FLT_MIN, about 1e-19
 * in magnitude; 8-bit pixels never do.)
 *
 * Interleaved: src and dst are RGB8 or RGBA8, the same format and size (their
 * offsets and pitches may differ). Alpha is copied through unchanged in every
 * mode, also where the colour is blacked out. Components are the 8-bit values
 * 0..255 (the ratio is scale-free).
 * Errors: ratio NaN or outside (0, 1], unknown mode, GREY8 images, formats or
 * sizes that differ, and the image checks above. */
CLPRIM_API clprim_status clprim_threshold_red(clprim_context *ctx, const clprim_image *src,
                                              const clprim_image *dst, float ratio,
                                              clprim_threshold_mode mode, cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event);

/* The same on planar float RGB; any float values (e.g. 0..255).
 * Black written by KEEP and YELLOW is +0.0f; other values are copied bit for bit. */
CLPRIM_API clprim_status clprim_threshold_red_planar(clprim_context *ctx, const clprim_planar_image *src,
                                                     const clprim_planar_image *dst, float ratio,
                                                     clprim_threshold_mode mode, cl_uint num_events_in_wait_list,
                                                     const cl_event *event_wait_list, cl_event *event);

/* Which values a histogram counts. GREY is the mean
 * (r + g + b) / 3, in integers: the grey level floor((r + g + b) / 3),
 * 0..255 (a GREY8 pixel is its own level). ALL makes one histogram per channel
 * of the format (3 for RGB8: R, G, B; 4 for RGBA8; 1 for GREY8), one after the
 * other. */
typedef enum {
    CLPRIM_CHANNEL_R,
    CLPRIM_CHANNEL_G,
    CLPRIM_CHANNEL_B,
    CLPRIM_CHANNEL_A, /* RGBA8 only */
    CLPRIM_CHANNEL_GREY,
    CLPRIM_CHANNEL_ALL
} clprim_channel;

/* Histogram of an interleaved image: value v (0..255) falls in bin
 * v * bins / 256 (integer division), so bins equal-width bins cover 0..255;
 * bins = 256 counts each level, bins = 16 gives 16 levels a bin.
 * Writes `bins` cl_uint counts (bins times the channel count for ALL) to hist
 * from element hist_offset, replacing what was there. The counts are exact and
 * the same on every device and run (one private histogram per work-group in
 * local memory, merged without atomics on global memory).
 * Errors: bins outside [1, 256], R/G/B on GREY8, A on anything but RGBA8, an
 * unknown channel, an image of more than 2^32 - 1 pixels (CLPRIM_UNSUPPORTED:
 * counts are 32-bit), hist too small, and the image checks above. */
CLPRIM_API clprim_status clprim_image_histogram(clprim_context *ctx, const clprim_image *image,
                                                clprim_channel channel, size_t bins, cl_mem hist,
                                                size_t hist_offset, cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event);

/* Otsu's threshold of a grey histogram, computed by one work-group on the
 * device: `bins` cl_uint counts at hist_offset covering levels 0..255 as
 * clprim_image_histogram makes them. Splitting after bin t puts bins 0..t in
 * the background and the rest in the foreground; the t kept maximises the
 * between-class variance w0 * w1 * (mu0 - mu1)^2 (the smallest t on a tie).
 * The result is a grey LEVEL, ready for clprim_threshold_grey: the highest
 * level of bin t, ((t + 1) * 256 - 1) / bins, so that "level > result" is
 * "bin > t" (with 256 bins the level is t). A histogram with fewer than two
 * non-empty bins has no split: the result is the highest level of its one
 * non-empty bin (nothing lies above it), or 255 when it is empty.
 * The variance is evaluated in float in a fixed order without fused operations
 * (see the comments in cl/threshold.cl), so a C loop doing the same gets the
 * same level; the candidates are compared by cross-multiplication, without
 * division.
 * Where the level goes: to the cl_uint at level_offset in `level` (for
 * clprim_threshold_grey_buffer, with no round trip) when level is not NULL,
 * and to *result when result is not NULL (then the call blocks until it is
 * there). At least one of them must be given.
 * Errors: bins outside [1, 256], hist or level too small, both NULL. */
CLPRIM_API clprim_status clprim_otsu(clprim_context *ctx, cl_mem hist, size_t hist_offset, size_t bins,
                                     cl_mem level, size_t level_offset, unsigned *result,
                                     cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                     cl_event *event);

/* Grey-level binary threshold: a pixel is foreground when its grey level (as
 * CLPRIM_CHANNEL_GREY: floor((r + g + b) / 3), or the GREY8 value) is above
 * `level` (0..255; 255 selects nothing). dst gets 255 in every colour channel
 * for foreground pixels and 0 for the rest: GREY8 a mask, RGB8 white on black,
 * RGBA8 the same with the source's alpha when src is RGBA8, else 255. src and
 * dst may have different formats but the same size.
 * Errors: level above 255, sizes that differ, and the image checks above. */
CLPRIM_API clprim_status clprim_threshold_grey(clprim_context *ctx, const clprim_image *src,
                                               const clprim_image *dst, unsigned level,
                                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                               cl_event *event);

/* The same with the level read on the device from the cl_uint at level_offset
 * of `level` (what clprim_otsu left there): no round trip. A level above 255
 * there selects nothing. */
CLPRIM_API clprim_status clprim_threshold_grey_buffer(clprim_context *ctx, const clprim_image *src,
                                                      const clprim_image *dst, cl_mem level,
                                                      size_t level_offset, cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list, cl_event *event);

/* Otsu's binary threshold in one call, all on the device: the 256-bin grey
 * histogram of src, clprim_otsu, then clprim_threshold_grey_buffer into dst,
 * in the context's scratch space. When `level` is not NULL the call blocks and
 * writes the level used there; otherwise it returns at once.
 * Errors: those of clprim_threshold_grey. */
CLPRIM_API clprim_status clprim_threshold_otsu(clprim_context *ctx, const clprim_image *src,
                                               const clprim_image *dst, unsigned *level,
                                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                               cl_event *event);

/* ---- Sorting ----------------------------------------------------------- */

/* The order clprim_sort_keys and clprim_sort_pairs produce. NULL means
 * ascending on every bit of the key. */
typedef struct {
    int descending;     /* nonzero: largest key first */
    unsigned begin_bit; /* sort on bits [begin_bit, end_bit) of the key's ordered */
    unsigned end_bit;   /* form (below); end_bit 0 means the key's width, 32 or 64 */
} clprim_sort_order;

/* Stable LSD radix sort of n keys of type key_type: CLPRIM_INT32, CLPRIM_UINT32,
 * CLPRIM_FLOAT, CLPRIM_INT64, CLPRIM_UINT64 or CLPRIM_DOUBLE (doubles are sorted
 * by their bits, so no fp64 support is needed). Keys are read from keys_in and
 * the sorted keys written to keys_out; keys_in is left as it was unless it is
 * keys_out. In place when keys_in and keys_out are the same elements; other
 * overlaps are CLPRIM_INVALID_ARGUMENT.
 *
 * The order is that of each key's ordered form, an unsigned integer of the
 * key's width: unsigned keys as they are; signed keys with the sign bit
 * flipped; floats and doubles with every bit flipped when the sign bit is set,
 * else the sign bit flipped. For floats that is a total order:
 *   -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN
 * so -0.0 comes before +0.0 and NaNs sort to the ends by their sign bit (the
 * usual quiet NaN, sign clear, goes last; among NaNs of one sign, by payload).
 * With a bit range, keys are compared on bits [begin_bit, end_bit) of their
 * ordered form only (begin_bit < end_bit <= width): keys equal there keep their
 * input order. Descending reverses the comparison, not the stability: equal
 * keys still keep their input order. The result is the same bits on every run
 * and device.
 *
 * 8 bits of the range a pass, so at most 4 passes for 32-bit keys and 8 for
 * 64-bit ones; a pass whose digit is the same in every key is skipped. n is
 * bounded only by the device's memory. The context's scratch holds a copy of
 * the keys (and values), the digit counts and, in the one-sweep form
 * (clprim_tuning.form), a status word per digit per tile of up to 2^28 keys.
 * The call enqueues its work and returns; nothing is read back to the host.
 * Errors: an unknown key type, one that is not listed above, or a bit range
 * outside the key: CLPRIM_INVALID_ARGUMENT; keys_in or keys_out shorter than
 * offset + n: CLPRIM_BUFFER_TOO_SMALL; overlaps as above: CLPRIM_INVALID_ARGUMENT;
 * a device whose local memory cannot hold the sort's tile even at one key a
 * work-item (a few KB per work-item of the tuning's work_group_size):
 * CLPRIM_UNSUPPORTED, naming the bytes needed (lower work_group_size with
 * clprim_set_tuning). A failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_sort_keys(clprim_context *ctx, clprim_type key_type, const clprim_sort_order *order,
                                          cl_mem keys_in, size_t keys_in_offset, cl_mem keys_out,
                                          size_t keys_out_offset, size_t n, cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* The same with a value per key, moved with its key: stable, so equal keys
 * keep their values in input order. value_type is any type of 4 or 8 bytes (the
 * values are moved as bits, never read as numbers). values_in may be NULL: the
 * values are then the indices 0..n-1 and values_out receives the sorting
 * permutation; value_type must then be CLPRIM_UINT32 (n at most 2^32) or
 * CLPRIM_UINT64. values_in and values_out the same elements sort the values in
 * place. An output may meet no other input or output (keys_out and values_out
 * are disjoint). Offsets count elements of their own type. */
CLPRIM_API clprim_status clprim_sort_pairs(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                           const clprim_sort_order *order, cl_mem keys_in, size_t keys_in_offset,
                                           cl_mem keys_out, size_t keys_out_offset, cl_mem values_in,
                                           size_t values_in_offset, cl_mem values_out, size_t values_out_offset,
                                           size_t n, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event);

/* Top-k: the first k of n keys in the order `order`
 * names, as clprim_sort_keys sorts them (NULL: ascending, so the k smallest;
 * descending: the k largest; a bit range: compared on those bits), written
 * to keys_out[keys_out_offset .. + min(k, n)) in that order. Exactly the
 * first min(k, n) keys of the stable sort of all n: of keys equal to the k-th
 * (on the order's bits), those of the lowest indices are kept, and equal keys
 * come out in index order. Floats in the sort's total order: -0.0 before
 * +0.0, NaNs at the ends by their sign (the usual NaN is the largest key).
 * k >= n is the sort of all n; k == 0 or n == 0 writes nothing.
 * key_type as clprim_sort_keys. keys_out may meet no input (the outputs are
 * written while the inputs are read; CLPRIM_INVALID_ARGUMENT). Enqueues only,
 * the same bits on every run and device.
 * Work: a radix select, the top 8 bits of the order's range first: the input
 * is read twice (a digit count, then a scatter of the keys below the k-th
 * key's digit to keys_out and of those at it to the context's scratch), the
 * next 8 bits only among those, and so on (8 bits that every remaining key
 * shares cost a count and no copy); then the stable radix sort of the k keys
 * in keys_out. Nothing is read back, so the call does not block. The scratch
 * holds digit counts per work-group and, in the worst case (most keys share
 * the k-th key's top digits), two copies of the keys (and values).
 * Errors: those of clprim_sort_keys for the key type and order; keys_in
 * shorter than offset + n, keys_out than offset + min(k, n):
 * CLPRIM_BUFFER_TOO_SMALL; overlaps as above: CLPRIM_INVALID_ARGUMENT. A
 * failed call enqueues nothing. */
CLPRIM_API clprim_status clprim_top_k_keys(clprim_context *ctx, clprim_type key_type, const clprim_sort_order *order,
                                           size_t k, cl_mem keys_in, size_t keys_in_offset, size_t n,
                                           cl_mem keys_out, size_t keys_out_offset, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event);

/* The same with a value per key, moved with its key to values_out. Values as
 * clprim_sort_pairs's: value_type of 4 or 8 bytes; values_in NULL means the
 * indices 0..n-1 (value_type CLPRIM_UINT32, n at most 2^32, or
 * CLPRIM_UINT64), so values_out receives the indices of the top k keys.
 * keys_out and values_out need min(k, n) elements and may meet no other
 * buffer of the call. */
CLPRIM_API clprim_status clprim_top_k_pairs(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                            const clprim_sort_order *order, size_t k, cl_mem keys_in,
                                            size_t keys_in_offset, cl_mem values_in, size_t values_in_offset,
                                            size_t n, cl_mem keys_out, size_t keys_out_offset, cl_mem values_out,
                                            size_t values_out_offset, cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event);

/* The lower or upper bound of each of m needles among n keys sorted in the
 * order `order` names, as clprim_sort_keys sorts them (NULL: ascending on
 * every bit; descending; a bit range): result[result_offset + i], a cl_ulong,
 * is the first index j (counted from sorted_offset) whose key does not come
 * before needle i in that order (upper == 0: std::lower_bound, numpy's
 * searchsorted side="left"), or comes after it (upper != 0: std::upper_bound,
 * side="right"); n when no key does. Floats compare in the sort's total order
 * (-0.0 before +0.0, NaNs at the ends by their sign), so an array sorted by
 * clprim_sort_keys is searched in its own order. Keys that are not sorted give
 * some index in [0, n], the same on every run. Enqueues only.
 * key_type and order as clprim_sort_keys (doubles compared by their bits, no
 * fp64 needed). Needles may lie among the sorted keys; result may meet
 * neither (CLPRIM_INVALID_ARGUMENT). m == 0 writes nothing; n == 0 gives 0
 * for every needle.
 * Errors: those of clprim_sort_keys for the key type and the order; buffers
 * shorter than offset + n, + m: CLPRIM_BUFFER_TOO_SMALL. A failed call
 * enqueues nothing.
 * Work: a binary search a needle, about log2(n) + 1 reads of the sorted keys. */
CLPRIM_API clprim_status clprim_search_sorted(clprim_context *ctx, clprim_type key_type,
                                              const clprim_sort_order *order, int upper, cl_mem sorted,
                                              size_t sorted_offset, size_t n, cl_mem needles, size_t needles_offset,
                                              size_t m, cl_mem result, size_t result_offset,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                              cl_event *event);

/* Stable merge sort of n keys of any type by the caller's comparator, with
 * a value per key when values_out is not NULL.
 *   less  an OpenCL C expression over a and b, two keys (of key_type's OpenCL
 *         type: int, uint, long, ulong, float, double, uchar), true (non-zero)
 *         when a must come before b: "a < b", "a > b" (descending),
 *         "fabs(a) < fabs(b)", "(a >> 8) < (b >> 8)" (on part of the key). The
 *         grammar, the limits and the messages are those of clprim_predicate's
 *         expression, with a and b as the only names; like every kernel, the
 *         compiled program is cached in memory and on disk, keyed by the
 *         expression, the key type and the value size, so the first call with
 *         a new one pays a compile.
 * Keys that compare neither way keep their input order (stable), with their
 * values. less must be a strict weak order (as for std::stable_sort): never
 * less(x, x), and "neither before the other" transitive. Under "a < b" a
 * float NaN compares false both ways, which breaks that: with NaNs the order
 * is unspecified (order them in the comparator, for instance
 * "isnan(b) && !isnan(a) || a < b" puts them last). With any comparator that is
 * no such order, the call still reads and writes nothing outside its buffers,
 * ends, and gives the same result on every run: keys_out is then some
 * permutation of the keys (each value still beside its own key), in an
 * unspecified order.
 * Keys are read from keys_in and written to keys_out; in place when the two
 * are the same elements; other overlaps are CLPRIM_INVALID_ARGUMENT. Values:
 * value_type is any type (moved as bits, so doubles need no fp64); values_in
 * NULL means the indices 0..n-1 (values_out receives the sorting permutation;
 * value_type must then be CLPRIM_UINT32, n at most 2^32, or CLPRIM_UINT64);
 * values_in and values_out the same elements sort the values in place. An
 * output may meet no other input or output. values_out NULL sorts the keys
 * alone (value_type, values_in and their offsets are ignored). Offsets count
 * elements of their own type. n == 0 writes nothing (the comparator is still
 * compiled, so a bad one fails). Enqueues only; the same bits on every run.
 * Errors: an unknown key type, a double key without fp64
 * (CLPRIM_UNSUPPORTED), a NULL, empty or refused less: CLPRIM_INVALID_ARGUMENT
 * naming less; an unknown value type, or indices of the wrong type:
 * CLPRIM_INVALID_ARGUMENT; buffers shorter than offset + n:
 * CLPRIM_BUFFER_TOO_SMALL; overlaps as above: CLPRIM_INVALID_ARGUMENT; a
 * comparator the compiler rejects: CLPRIM_BUILD_FAILED with its log, naming
 * less. A failed call enqueues nothing.
 * Work: sorted runs of a tile each (on a CPU, of n / groups keys, one core
 * each), then log2(n / run) passes, each merging pairs of runs; the context's
 * scratch holds a copy of the keys (and values). */
CLPRIM_API clprim_status clprim_merge_sort(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                           const char *less, cl_mem keys_in, size_t keys_in_offset, cl_mem keys_out,
                                           size_t keys_out_offset, cl_mem values_in, size_t values_in_offset,
                                           cl_mem values_out, size_t values_out_offset, size_t n,
                                           cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                           cl_event *event);

/* The stable merge of two arrays sorted by the same comparator (less, as
 * clprim_merge_sort's) into keys_out[keys_out_offset .. + na + nb): of keys
 * that compare neither way, a's come first, each array's in its order. With
 * values_out not NULL, a_values and b_values (na and nb elements of
 * value_type, any type, moved as bits) follow their keys into values_out;
 * with values_out NULL they are ignored. Arrays that are not sorted, or a
 * comparator that is no strict weak order, give some permutation of the
 * inputs, the same on every run. na or nb may be 0 (its buffer is still
 * checked); the inputs may overlap each other; an output may meet no input
 * and not the other output (CLPRIM_INVALID_ARGUMENT). Enqueues only.
 * Errors: those of clprim_merge_sort for the types and less; na + nb beyond
 * size_t: CLPRIM_INVALID_ARGUMENT; buffers shorter than offset + their count:
 * CLPRIM_BUFFER_TOO_SMALL. A failed call enqueues nothing.
 * Work: one pass of clprim_merge_sort: a binary search a tile of output, then
 * each tile merged from its two slices. */
CLPRIM_API clprim_status clprim_merge(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                      const char *less, cl_mem a_keys, size_t a_keys_offset, cl_mem a_values,
                                      size_t a_values_offset, size_t na, cl_mem b_keys, size_t b_keys_offset,
                                      cl_mem b_values, size_t b_values_offset, size_t nb, cl_mem keys_out,
                                      size_t keys_out_offset, cl_mem values_out, size_t values_out_offset,
                                      cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                      cl_event *event);

/* clprim_merge in clprim_sort_keys's order instead of a comparator: a and b,
 * each sorted by clprim_sort_keys or clprim_sort_pairs under `order` (NULL:
 * ascending on every bit; descending; a bit range), merge stably into
 * keys_out sorted the same way (of keys equal in that order, a's first).
 * key_type is one of the sort's key types; keys are moved as bits, so doubles
 * need no fp64. Values, counts, overlaps and events as clprim_merge. Errors:
 * those of clprim_sort_keys for the key type and the order, and those of
 * clprim_merge for the rest. A failed call enqueues nothing.
 * Work: one pass of clprim_merge; a program per key type and order. */
CLPRIM_API clprim_status clprim_merge_in_order(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                               const clprim_sort_order *order, cl_mem a_keys, size_t a_keys_offset,
                                               cl_mem a_values, size_t a_values_offset, size_t na, cl_mem b_keys,
                                               size_t b_keys_offset, cl_mem b_values, size_t b_values_offset,
                                               size_t nb, cl_mem keys_out, size_t keys_out_offset,
                                               cl_mem values_out, size_t values_out_offset,
                                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                               cl_event *event);

/* Segmented sort: each segment of n keys sorted on its own, in
 * clprim_sort_keys's order (key_type and order as there: every sort key
 * type, doubles by their bits with no fp64 needed, descending, a bit range;
 * -0.0 before +0.0, NaNs at the ends by their sign), stable: keys equal in
 * that order keep their input order. Segment s is keys[offsets[s],
 * offsets[s + 1]), offsets as clprim_segmented_reduce's: `segments` + 1
 * cl_ulong on the device, non-decreasing and at most n, not checked; each is
 * taken as min(offsets[k], n). So CUB's DeviceSegmentedSort with begin
 * offsets = offsets and end offsets = offsets + 1. Elements before
 * offsets[0] or from offsets[segments] on belong to no segment: they are not
 * sorted, and keys_out there is left as it was. Offsets that decrease give
 * unspecified keys, but nothing is read or written outside the buffers'
 * elements, the offsets and the scratch.
 * Keys are read from keys_in and written to keys_out; in place when the two
 * are the same elements; other overlaps, and outputs over the offsets, are
 * CLPRIM_INVALID_ARGUMENT. n == 0 or segments == 0 writes nothing.
 * Enqueues only; nothing is read back; the same bits on every run.
 * Errors: those of clprim_sort_keys for the key type, the order and the
 * buffers; offsets NULL, CL_MEM_WRITE_ONLY, or sharing a byte with an output:
 * CLPRIM_INVALID_ARGUMENT; offsets shorter than offsets_offset + segments + 1
 * cl_ulong: CLPRIM_BUFFER_TOO_SMALL; segments SIZE_MAX:
 * CLPRIM_INVALID_ARGUMENT; a device whose local memory cannot hold a tile of
 * one key a work-item: CLPRIM_UNSUPPORTED. A failed call enqueues nothing.
 * Work: the elements cut into tiles whatever the segments' lengths (on a
 * CPU, n / groups a core); one pass sorts every tile by (segment, key), which
 * finishes each segment inside a tile; a segment over R tiles then takes
 * ceil(log2(R)) merge passes of its own elements. The passes are planned
 * for the longest possible segment (log2(n / tile) of them, two launches
 * each), and those that no segment needs end at once. The context's scratch
 * holds a copy of the keys (and values) and 48 bytes a tile. */
CLPRIM_API clprim_status clprim_segmented_sort_keys(clprim_context *ctx, clprim_type key_type,
                                                    const clprim_sort_order *order, cl_mem keys_in,
                                                    size_t keys_in_offset, cl_mem keys_out, size_t keys_out_offset,
                                                    size_t n, cl_mem offsets, size_t offsets_offset, size_t segments,
                                                    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                    cl_event *event);

/* The same with a value per key, moved with its key, as clprim_sort_pairs
 * moves it: value_type of 4 or 8 bytes, moved as bits; values_in NULL means
 * the indices 0..n-1 (value_type CLPRIM_UINT32, n at most 2^32, or
 * CLPRIM_UINT64), so values_out receives each key's position in keys_in;
 * values_in and values_out the same elements sort the values in place. An
 * output may meet no other input or output. Values outside every segment are
 * left as they were in values_out. */
CLPRIM_API clprim_status clprim_segmented_sort_pairs(clprim_context *ctx, clprim_type key_type,
                                                     clprim_type value_type, const clprim_sort_order *order,
                                                     cl_mem keys_in, size_t keys_in_offset, cl_mem keys_out,
                                                     size_t keys_out_offset, cl_mem values_in,
                                                     size_t values_in_offset, cl_mem values_out,
                                                     size_t values_out_offset, size_t n, cl_mem offsets,
                                                     size_t offsets_offset, size_t segments,
                                                     cl_uint num_events_in_wait_list,
                                                     const cl_event *event_wait_list, cl_event *event);

/* A regular grid of boxes for clprim_box_sort. Particle (x, y, z) is in box
 *     id = (iz * dims[1] + iy) * dims[0] + ix,
 * with ix = floor((x - origin[0]) * inv) and inv = 1.0f / box_size[0] (float
 * arithmetic, as written, on host and device alike), likewise iy and iz.
 * Coordinates outside the grid are clamped into its edge boxes (a NaN
 * coordinate counts as below the grid). */
typedef struct {
    float origin[3];   /* the lowest corner of box (0, 0, 0) */
    float box_size[3]; /* edge lengths along x, y, z: finite and > 0 */
    size_t dims[3];    /* boxes along x, y, z: each > 0, product below 2^32 */
} clprim_box_grid;

/* Sorts n particles into the grid's boxes, as a particle simulation does to
 * find neighbours. positions: n particles of three floats x, y, z, from particle
 * positions_offset (offsets here count particles, i.e. 3 floats).
 *   box_start   boxes + 1 cl_uint from box_start_offset: box b's particles are
 *               sorted positions box_start[b] .. box_start[b + 1] - 1 (the
 *               exclusive scan of the per-box counts; box_start[boxes] = n);
 *   order       n cl_uint: order[j] is the index of the particle at sorted
 *               position j; within a box, indices ascend (stable);
 *   sorted_positions  may be NULL; else n particles, the positions in that order.
 * Steps, all on the device: box ids; a stable radix sort of (box id, index)
 * pairs over the bits the largest id needs; per-box counts from the sorted ids
 * (no atomics); their exclusive scan. Scratch: 16 bytes a particle plus what
 * the scan needs. n below 2^32; n == 0 still writes box_start (all zeros).
 * Outputs must not overlap positions or each other. */
CLPRIM_API clprim_status clprim_box_sort(clprim_context *ctx, const clprim_box_grid *grid, cl_mem positions,
                                         size_t positions_offset, size_t n, cl_mem box_start,
                                         size_t box_start_offset, cl_mem order, size_t order_offset,
                                         cl_mem sorted_positions, size_t sorted_positions_offset,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event);

/* ---- k-means colour quantization ---------------------------------------- */

#define CLPRIM_KMEANS_MAX_K 256

/* Values per centre: 3 (R, G, B) for RGB8 and RGBA8 (alpha is not clustered),
 * 1 for GREY8, 0 for a value outside the enum. */
CLPRIM_API unsigned clprim_kmeans_dims(clprim_pixel_format format);

/* Deterministic seeding on the host: k centres (k * dims floats).
 * GREY8: the optimal k-means centres of the image's level histogram (all
 * pixels counted): the levels present are split into k runs of consecutive
 * levels with the least sum of squared distances to the runs' means (exact
 * dynamic programming, the lowest split on a tie), and each centre is its run's
 * mean (sum / count in double, stored as float), ascending. Lloyd's iterations
 * from them stop after one update. With fewer distinct levels than k, the
 * levels present are the first centres and the rest repeat the first centre.
 * `seed` is not used.
 * RGB8, RGBA8: greedy k-means++, each centre a pixel's colour, drawn from at
 * most 65536 pixels taken at evenly spaced indices, with splitmix64 from
 * `seed`. The first is drawn
 * uniformly; for each next one, 2 + floor(ln k) candidates are drawn, each with
 * probability proportional to its integer squared distance to the nearest
 * centre already chosen, and the candidate that leaves the lowest sum of those
 * distances over the sample (the potential) is kept, the first drawn on a tie.
 * When fewer distinct colours than k remain, the rest repeat the first centre.
 * pixels: height rows of row_pitch bytes (0: packed).
 * Errors (clprim_last_error(NULL)): NULL pointers, width or height 0, k outside
 * [1, CLPRIM_KMEANS_MAX_K], unknown format, row_pitch below a row. */
CLPRIM_API clprim_status clprim_kmeans_seed(const unsigned char *pixels, size_t width, size_t height,
                                            size_t row_pitch, clprim_pixel_format format, unsigned k,
                                            unsigned long long seed, float *centres);

/* clprim_kmeans stops once an update moves no centre by more than this distance
 * (Euclidean, in 8-bit levels). */
#define CLPRIM_KMEANS_TOLERANCE 0.01f

typedef struct {
    unsigned iterations; /* Lloyd iterations run (an assignment and an update each) */
    int converged;       /* 1: the last update moved no centre by more than CLPRIM_KMEANS_TOLERANCE */
} clprim_kmeans_info;

/* Lloyd's k-means of the colours of src (an image as in the threshold section),
 * on the device; blocking (a wait list, no event). centres: k * dims floats,
 * the initial centres on entry (e.g. from clprim_kmeans_seed; values in
 * [0, 255]), the final ones on return. Each iteration:
 *   assignment  every pixel takes the centre nearest to it, by squared distance
 *               to the float centres computed in float as ((e0 * e0) + e1 * e1)
 *               + e2 * e2, e = (float)value - centre, each operation rounded
 *               (no fused multiply-add), the lowest index on a tie;
 *   update      per cluster, the sums of its pixels' values and its count, as
 *               exact integers (per-work-group partial sums in local memory,
 *               folded on the device); the centre becomes sum / count (in
 *               double, stored as float); an empty cluster keeps its centre.
 * It stops when an update moves no centre by more than CLPRIM_KMEANS_TOLERANCE
 * (an update that moves none at all means the assignment can no longer change)
 * or after max_iterations (>= 1). The centres are rounded to 8 bits
 * (floor(c + 0.5f), clamped to 0..255) only for dst.
 * Every step is either exact integer work or a correctly rounded float or
 * double operation in a fixed order, so the result is the same on every device
 * and run, and a C loop doing the same gets the same labels and centres, bit
 * for bit.
 * Outputs, each optional: labels (width * height cl_uchar, row-major, from
 * labels_offset: each pixel's cluster from the last assignment, made with the
 * centres before the last update); dst (the format and size of src; it may be
 * src itself, other overlaps are refused): each pixel replaced by the rounded
 * final centre of its cluster, alpha copied from src; info. labels must not
 * overlap src or dst.
 * Scratch: the work-groups' partial sums (and labels when not given); the
 * centres, written by the host every iteration, go to a 4 KiB buffer made for
 * the call.
 * Errors: k outside [1, CLPRIM_KMEANS_MAX_K], max_iterations 0, NULL centres,
 * a centre not finite, more than 2^32 - 1 pixels, and the image checks of the
 * threshold section. */
CLPRIM_API clprim_status clprim_kmeans(clprim_context *ctx, const clprim_image *src, unsigned k,
                                       unsigned max_iterations, float *centres, cl_mem labels,
                                       size_t labels_offset, const clprim_image *dst, clprim_kmeans_info *info,
                                       cl_uint num_events_in_wait_list, const cl_event *event_wait_list);

#ifdef __cplusplus
}
#endif
#endif /* CLPRIM_H */
