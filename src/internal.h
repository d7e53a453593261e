/* What the library's files share; nothing here is public. */
#ifndef CLPRIM_INTERNAL_H
#define CLPRIM_INTERNAL_H

#include "clprim.h"
#include "constants.h" /* cl/constants.h: numbers shared with the kernels */
#include "types.h"     /* cl/types.h: the element types, shared with the kernels */

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>

/* ---- Element types (context.c, from cl/types.h) ---- */

typedef struct {
    const char *label;  /* "int32" */
    const char *name;   /* "INT32": kernels are built with -DTYPE=INT32 (or -DKEY=INT32) */
    const char *scalar; /* "int" */
    size_t size;
    int order;          /* ORDER_UNSIGNED, ORDER_SIGNED or ORDER_FLOAT */
    int is_float;
    int needs_fp64;
    int is_sort_key;    /* the radix sort orders it: 32 or 64 bits */
    int is_segment_key; /* scan by key and its family compare it: a 32- or 64-bit integer */
} clprim_type_info;

/* NULL when t is not a clprim_type. */
const clprim_type_info *clprim_type_info_of(clprim_type t);

/* ---- The context ---- */

typedef struct clprim_program_entry clprim_program_entry; /* program.c */

/* One profiled launch (clprim_profile_end). */
typedef struct {
    char kernel[40];
    size_t groups, local;
    double start, end; /* seconds from the first launch's start */
} clprim_launch_time;

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
    int has_int64_atomics; /* cl_khr_int64_base_atomics */
    int has_correct_divide; /* float division and sqrt can be built correctly rounded */
    int has_warp_ptx;       /* NVIDIA's driver, compute capability 7.0 on: cl/block/warp.cl's PTX */
    /* $CLPRIM_TEST_LOOKBACK=reversed: look-backs see their tiles in reverse
     * start order, so only their fallback finishes them (cl/block/lookback.cl);
     * =sparse: only every 100th tile publishes its inclusive record, so that
     * walks cross more than a step of aggregates;
     * =waits: look-backs wait for every record, as where the table runs one
     * sweep by default (for oclgrind, which runs work-groups in start order);
     * =none: the device is taken to have no records' words (no 64-bit atomics,
     * no plain status words), as some have, so the calls take the forms
     * that need none. */
    int lookback_reversed;
    int lookback_sparse;
    int lookback_waiting;
    int records_absent;
    /* $CLPRIM_TEST_SORT_PORTION=N: a one-sweep radix sort launch covers at
     * most N keys (at least a tile, at most 2^28, the bound without it), so
     * that small sorts run in several portions. */
    size_t sort_portion_keys;
    /* $CLPRIM_TEST_WARPS=emulated: kernels use warps of 32 work-items on any
     * device, their lanes emulated through local memory (cl/block/warp.cl);
     * =off: no warps, even where the device's serve; unset (or anything
     * else): the device's, where it has them (clprim_warps). */
    enum { WARPS_AS_DEVICE, WARPS_EMULATED, WARPS_OFF } warps_test;
    /* $CLPRIM_TEST_WARP_RANKS=off: the radix sort ranks its tiles by its
     * counting passes even where there are warps (which it otherwise uses). */
    int warp_ranks_off;

    clprim_tuning tuning;         /* what the kernels use now */
    clprim_tuning default_tuning; /* the device class's table entry */

    clprim_program_entry *programs; /* built programs, by (file, options) */
    unsigned programs_compiled;     /* built from source in this context */
    unsigned programs_loaded;       /* taken from the disk cache */
    /* Added to the options of every program of this context
     * (clprim_program_begin), so to their keys in memory and on disk too;
     * set only by the test harness. */
    char extra_build_options[64];
    char cache_note[4400];          /* why the disk cache was last not used; "" when it was */

    cl_mem scratch; /* reused between calls; grows, never shrinks */
    size_t scratch_bytes;
    cl_mem lookback; /* the one-sweep form's tile records (lookback.c); only its kernels write there */
    size_t lookback_bytes;
    cl_uint lookback_stamp; /* of the last launch that used them */
    cl_mem tallies; /* the histograms' tallies, kept at zero between launches (lookback.c) */
    cl_mem pinned;          /* clprim_pinned_host's memory, mapped at pinned_host; grows, never shrinks */
    void *pinned_host;
    size_t pinned_bytes;

    char *error; /* last failure's message, "" after success */
    cl_int cl_error;

    _Atomic(uintptr_t) owner; /* the thread inside a call (see clprim_enter), 0 when none */

    clprim_progress_fn progress; /* clprim_set_progress */
    void *progress_user;

    /* While profiling (clprim bench), launches keep their events here, with
     * their kernels' names and shapes: every launch (CLPRIM_PROFILE_EVERY), or
     * only each plan's first and last (CLPRIM_PROFILE_ENDS), as the launches
     * between carry no event outside a benchmark either. profile_end marks
     * the launch being enqueued as one of those two. Past 64, the latest
     * takes the last place, so that the time still ends with the last. */
    int profiling;
    int profile_end;
    cl_event profiled[64];
    clprim_launch_time profiled_launch[64];
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
/* A line "clprim: <message>" on stderr when $CLPRIM_LOG is set (not "" or "0"). */
void clprim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- One call at a time (context.c) ---- */

typedef struct {
    clprim_context *ctx;
    int acquired; /* this entry took the context, so its exit gives it back */
} clprim_entry;

/* Takes entry->ctx for the calling thread and clears its message. A NULL ctx
 * fails with CLPRIM_INVALID_ARGUMENT, a context another thread is inside with
 * CLPRIM_CONTEXT_BUSY; both messages go to the thread (clprim_last_error(NULL)),
 * never to the context. A thread already inside the context enters again
 * (a public call made by another) and leaves it held. */
clprim_status clprim_enter(clprim_entry *entry, const char *function);
void clprim_leave(clprim_entry *entry);

/* First line of every public call that uses a context: declares `status`, the
 * result of clprim_enter, and gives the context back on every return. */
#define CLPRIM_ENTER(status, ctx, function)                                                  \
    __attribute__((cleanup(clprim_leave))) clprim_entry clprim_entry_ = {(ctx), 0};          \
    clprim_status status = clprim_enter(&clprim_entry_, (function))

/* ---- Argument checks (check.c): each records its own message ---- */

/* Known enum value and, for doubles, fp64 on the device. */
clprim_status clprim_check_type(clprim_context *ctx, clprim_type t, const clprim_type_info **info);
clprim_status clprim_check_op(clprim_context *ctx, clprim_op op);
/* How a call uses a buffer: a source must not be CL_MEM_WRITE_ONLY, an output
 * not CL_MEM_READ_ONLY. */
typedef enum { CLPRIM_READS = 1, CLPRIM_WRITES = 2, CLPRIM_READS_WRITES = 3 } clprim_access;

/* The bytes an argument spans, in the buffer that owns them: sub-buffers are
 * resolved to their root, so two handles to one memory compare equal. */
typedef struct {
    cl_mem root;       /* the buffer itself, or the one it is a sub-buffer of */
    size_t origin;     /* where the argument's handle starts in root */
    size_t first, end; /* bytes [first, end) of root */
    int sub;           /* the handle is a sub-buffer */
    size_t pitch;      /* the layout, for in place: bytes a row (images) or 0 */
    size_t unit;       /* bytes an element or a pixel */
} clprim_region;

/* Non-NULL, a buffer (not an image object) of this context, offset + n elements
 * within CL_MEM_SIZE without overflow, not CL_MEM_READ_ONLY when written nor
 * CL_MEM_WRITE_ONLY when read. Fills *region (when not NULL) with the elements'
 * bytes in their root buffer. */
clprim_status clprim_check_buffer(clprim_context *ctx, const char *name, cl_mem buf, size_t offset, size_t n,
                                  size_t elem_size, clprim_access access, clprim_region *region);
/* The same root bytes with the same layout: in place. */
int clprim_same_region(const clprim_region *a, const clprim_region *b);
/* a and b share no byte of one root buffer or, with allow_same, are exactly the
 * same region (in place). The message names both, their root byte ranges and
 * any sub-buffer; it starts "<function>: " when function is not NULL. */
clprim_status clprim_check_disjoint(clprim_context *ctx, const char *function, const char *a_name,
                                    const clprim_region *a, const char *b_name, const clprim_region *b,
                                    int allow_same);
/* The usual pair: src read, dst written, the two in place or disjoint; fills
 * *in and *out. In place through two handles (a sub-buffer and its parent),
 * *src and *src_offset become dst and dst_offset, so that the kernels see one
 * handle and take the in-place path. */
clprim_status clprim_check_src_dst(clprim_context *ctx, const char *function, const char *src_name, cl_mem *src,
                                   size_t *src_offset, const char *dst_name, cl_mem dst, size_t dst_offset, size_t n,
                                   size_t elem_size, clprim_region *in, clprim_region *out);
/* The offsets of `segments` segments: segments + 1 cl_ulong read from
 * offsets_offset on (segments SIZE_MAX has no room for them); fills *region. */
clprim_status clprim_check_offsets(clprim_context *ctx, const char *function, cl_mem offsets, size_t offsets_offset,
                                   size_t segments, clprim_region *region);

/* ---- Images (image.c): the argument checks shared by threshold.c and kmeans.c ---- */

/* A checked image as the kernels take it. Interleaved: offset and pitch in
 * bytes, bpp bytes a pixel. Planar (threshold.c): offset in floats, pitch and
 * bpp 0. */
typedef struct {
    cl_mem data;
    cl_ulong offset, pitch, width, n; /* see above; width and n in pixels */
    cl_uint bpp;
    size_t height;
    size_t first, end; /* the bytes it spans in data: [first, end) */
    clprim_region region; /* the same bytes in data's root buffer */
} clprim_image_layout;

/* "RGB8", "RGBA8", "GREY8"; "unknown" outside the enum. */
const char *clprim_pixel_format_name(clprim_pixel_format format);
/* img non-NULL, a known format, data non-NULL, positive sizes, row_pitch at
 * least a row, no size_t overflow, inside a valid buffer of this context
 * (not CL_MEM_READ_ONLY when written, not CL_MEM_WRITE_ONLY when read); fills
 * *out. Overlaps are checked with clprim_check_disjoint on out->region. Messages start "<function>: " when
 * function is not NULL, then name the image ("src", "dst"). */
clprim_status clprim_check_image(clprim_context *ctx, const char *function, const char *name,
                                 const clprim_image *img, clprim_access access, clprim_image_layout *out);

/* ---- Tuning (tuning.c) ---- */

/* The table entry for the context's device class, adjusted to its limits. */
clprim_tuning clprim_default_tuning(const clprim_context *ctx);
/* Fills zero fields from base and validates against the device; records a message. */
clprim_status clprim_resolve_tuning(clprim_context *ctx, const clprim_tuning *want,
                                    const clprim_tuning *base, clprim_tuning *out);
/* 1 when the table has the radix sort's one-sweep status words published by
 * volatile loads and stores instead of atomics on this device (NVIDIA GPUs). */
int clprim_plain_status_words(const clprim_context *ctx);
/* The radix sort's items a work-item, as a multiple of items_per_thread, for
 * the device class (src/algorithms/radix_sort.c). */
size_t clprim_sort_items_times(const clprim_context *ctx);
/* Warps of 32 work-items for kernels at work-groups of wg (cl/block/warp.cl):
 * NO_WARPS, PTX_WARPS (NVIDIA's, compute capability 7.0 on) or
 * EMULATED_WARPS (through local memory: $CLPRIM_TEST_WARPS). */
enum { NO_WARPS, PTX_WARPS, EMULATED_WARPS };
int clprim_warps(const clprim_context *ctx, size_t wg);
/* Local memory the scan's kernels need at a shape: a padded tile of elements
 * of element_bytes, and two eight-byte slots a work-item; _needed, for the
 * widest element. */
cl_ulong clprim_local_bytes_for(const clprim_tuning *t, size_t element_bytes);
cl_ulong clprim_local_bytes_needed(const clprim_tuning *t);
/* 0 when the device's kernel compiler is known to abort on this shape (the
 * table of driver defects in tuning.c), for drivers that derive a shape of
 * their own. */
int clprim_shape_compiles(const clprim_context *ctx, const clprim_tuning *t);
/* Parses "wg=64,items=4,groups=8" over base. */
clprim_status clprim_parse_tuning(clprim_context *ctx, const char *text, const clprim_tuning *base,
                                  clprim_tuning *out);

/* ---- Kernel files (kernel_source.c) ---- */

/* The whole of a regular file of at most max_bytes, NUL-terminated, into *data
 * (free it); follow_links 0 refuses a symlink. NULL on success, else why not. */
const char *clprim_read_regular_file(const char *path, int follow_links, size_t max_bytes, char **data,
                                     size_t *length);
/* The folder that holds `file`, along $CLPRIM_KERNEL_PATH then the installed (or
 * build tree's) kernels, into dir; the failure names every folder tried. */
clprim_status clprim_find_kernel_dir(clprim_context *ctx, const char *file, char *dir, size_t size);
/* dir/file with its `#include "x.cl"` lines expanded, into *source (free it). */
clprim_status clprim_load_source(clprim_context *ctx, const char *dir, const char *file, char **source);

/* ---- The disk cache (disk_cache.c) ---- */

/* Where the program of one (context, options, source text) lives on disk. */
typedef struct {
    char dir[4096];
    char path[4200];
    char *key; /* the key's parts, each ending in a NUL */
    size_t key_size;
    uint64_t key1, key2; /* two independent hashes of the key */
    uint64_t cap;        /* bytes the folder's entries may take */
} clprim_cache_slot;

/* 1 with the slot of (options, source) when the disk cache is in use (free
 * slot->key after), else 0 with *why saying why not. */
int clprim_cache_slot_for(clprim_context *ctx, const char *options, const char *source, clprim_cache_slot *slot,
                          const char **why);
/* The program stored in the slot's entry, or NULL with *why (for the log): then
 * the caller builds from source. */
cl_program clprim_cache_load(clprim_context *ctx, const clprim_cache_slot *slot, const char *options, const char **why);
/* Best effort: stores the program's binary in the slot's entry, then trims the
 * folder to its cap. */
void clprim_cache_store(const clprim_cache_slot *slot, cl_program program);

/* Why the disk cache was not used the last time this context looked for an
 * entry (its folder missing and not creatable, a symlink, another user's, or
 * writable by group or others), or, when it was used, a remark on its settings
 * (a malformed $CLPRIM_CACHE_MAX, ignored); "" when there is nothing to say or
 * the cache is off. Calls succeed without the disk cache, so this is the only
 * trace of a refused folder. */
const char *clprim_cache_note(const clprim_context *ctx);

/* The disk cache as it stands, for `clprim cache`: the folder is found and
 * judged as the library does (never created here). */
typedef struct {
    char dir[4096];  /* "" when there is none (see note) */
    int missing;     /* dir does not exist yet (the first store creates it) */
    int usable;      /* dir exists and passes the checks above */
    int in_use;      /* programs are stored there: usable (or missing) and cap > 0 */
    char note[4400]; /* why not, or a remark on the settings; "" when none */
    uint64_t cap;    /* bytes its entries may take ($CLPRIM_CACHE_MAX); 0: the disk cache is off */
    size_t entries;  /* entries in dir (nothing else there is counted) */
    uint64_t bytes;  /* and their bytes */
} clprim_cache_state;
void clprim_cache_inspect(clprim_cache_state *state);
/* Removes every entry from the folder, and nothing else; the count removed, or
 * -1 when the folder is refused (state->note says why). Fills *state as
 * clprim_cache_inspect did before. */
long clprim_cache_clear(clprim_cache_state *state);

/* ---- Programs (program.c) ---- */

/* The kernel `name` from `file` (searched along the kernel path) built with
 * `options`. Programs are cached per context and on disk; kernels belong to the
 * cache, so callers never release them. */
clprim_status clprim_get_kernel(clprim_context *ctx, const char *file, const char *options,
                                const char *name, cl_kernel *kernel);
void clprim_release_programs(clprim_context *ctx);

/* Builds (or loads) the program of (file, options) into the context's cache,
 * as clprim_get_kernel would, without making a kernel. */
clprim_status clprim_prepare_program(clprim_context *ctx, const char *file, const char *options);

/* The disk-cache entry's path for (file, options) in this context, and a way to
 * write an entry holding any program's binary under that key (for tests that
 * forge entries). Both fail when the disk cache is not in use. */
clprim_status clprim_cache_entry_path(clprim_context *ctx, const char *file, const char *options, char *path,
                                      size_t size);
clprim_status clprim_cache_store_program(clprim_context *ctx, const char *file, const char *options,
                                         cl_program program);

/* ---- The plan layer (plan.c) ----
 * Every driver reads: check the arguments, compute one plan (shape, split,
 * scratch layout, passes), enqueue the plan's passes. */

/* Build options that grow as they are added to; running out of host memory is
 * remembered and reported when a kernel is asked for. */
typedef struct {
    char *text;
    size_t length, capacity;
    int out_of_memory;
} clprim_options;
/* Appends one printf-formatted option, space-separated. */
void clprim_options_add(clprim_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *clprim_options_text(const clprim_options *o);
void clprim_options_free(clprim_options *o);

/* One kernel file built for one shape: -DWG and -DITEMS come from `shape`, and
 * so does the local size every pass of it is launched with. `purpose` names
 * the call in messages ("scan", "radix sort"). */
typedef struct {
    const char *purpose;
    const char *file;
    clprim_tuning shape;
    clprim_options options;
} clprim_program;

/* Starts p's options with the type (-DTYPE=..., none when NULL), the operator (none
 * when op < 0), the shape and DEVICE_CPU on CPUs; a driver adds its own with
 * clprim_options_add(&p->options, ...). Release with clprim_program_end. */
void clprim_program_begin(const clprim_context *ctx, clprim_program *p, const char *purpose, const char *file,
                          const clprim_tuning *shape, const clprim_type_info *type, int op);
void clprim_program_end(clprim_program *p);
/* Builds (or loads) the program without making a kernel (clprim_prepare_program). */
clprim_status clprim_program_prepare(clprim_context *ctx, const clprim_program *p);

/* A kernel of a program, ready to enqueue at the program's shape. */
typedef struct {
    cl_kernel kernel;
    const char *purpose, *kernel_name; /* for messages: "scan (reduce_chunks)" */
    size_t local;
} clprim_pass;
clprim_status clprim_pass_of(clprim_context *ctx, const clprim_program *p, const char *kernel, clprim_pass *pass);

typedef struct {
    size_t size;
    const void *value; /* NULL: local memory of `size` bytes, or a role */
    int role;          /* 0, or CLPRIM_ROLE_* (plans only) */
} clprim_arg;
#define CLPRIM_ARG(x) ((clprim_arg){sizeof(x), &(x), 0})
#define CLPRIM_LOCAL(bytes) ((clprim_arg){(bytes), NULL, 0})
#define CLPRIM_BYTES(size, pointer) ((clprim_arg){(size), (pointer), 0}) /* an element of a run-time type */

/* Sets the arguments and enqueues `groups` work-groups of pass->local. The
 * launch's event goes to *event when event is not NULL. */
clprim_status clprim_enqueue_pass(clprim_context *ctx, const clprim_pass *pass, size_t groups,
                                  const clprim_arg *args, size_t nargs, cl_event *event);
/* The same with the arguments listed in place and counted by the compiler:
 * CLPRIM_ENQUEUE(ctx, &pass, groups, event, CLPRIM_ARG(buf), CLPRIM_ARG(n)). */
#define CLPRIM_ENQUEUE(ctx, pass, groups, event, ...)                                          \
    clprim_enqueue_pass((ctx), (pass), (groups), (const clprim_arg[]){__VA_ARGS__},            \
                        sizeof((const clprim_arg[]){__VA_ARGS__}) / sizeof(clprim_arg), (event))

/* Work-groups for an element-wise pass over n elements (clearing, copying):
 * one work-item an element, at most four times the shape's grid. */
size_t clprim_fill_groups(const clprim_tuning *shape, size_t n);

/* Scratch as consecutive parts, each starting on a CLPRIM_SCRATCH_ALIGN
 * boundary (a sub-buffer's origin and every element type stay aligned). */
#define CLPRIM_SCRATCH_ALIGN 256
typedef struct {
    size_t bytes;
    int overflow;
} clprim_layout;
/* Reserves `bytes` and returns where they start. */
size_t clprim_layout_part(clprim_layout *l, size_t bytes);
/* The context's scratch, of at least l->bytes (CLPRIM_OUT_OF_MEMORY on overflow). */
clprim_status clprim_layout_scratch(clprim_context *ctx, const char *purpose, const clprim_layout *l, cl_mem *buf);

/* ---- Plans as values (plan.c) and the one executor (execute.c) ----
 * A driver checks its arguments, then fills a clprim_plan: the programs it
 * needs, its scratch as a layout, its launches in order with their arguments
 * copied in, and what a blocking call reads back. A primitive built on others
 * appends their launches to its own plan, sharing its scratch layout.
 * clprim_execute builds every program first, grows the scratch once, waits for
 * the wait list, enqueues the launches and hands back the last one's event;
 * a plan with no launch is the call with nothing to do. */

/* Roles of a launch argument beyond a value: resolved when the plan runs. */
#define CLPRIM_ROLE_SCRATCH 1 /* the context's scratch buffer */
#define CLPRIM_ROLE_RECORDS 2 /* the look-back's records (cl/block/lookback.cl) for this launch */
#define CLPRIM_ROLE_STAMP 3   /* the stamp this launch writes them with */
#define CLPRIM_ROLE_TALLIES 4 /* the context's tallies (cl/block/private_counts.cl) */
#define CLPRIM_SCRATCH_ARG ((clprim_arg){sizeof(cl_mem), NULL, CLPRIM_ROLE_SCRATCH})
#define CLPRIM_RECORDS_ARG ((clprim_arg){sizeof(cl_mem), NULL, CLPRIM_ROLE_RECORDS})
#define CLPRIM_STAMP_ARG ((clprim_arg){sizeof(cl_uint), NULL, CLPRIM_ROLE_STAMP})
#define CLPRIM_TALLIES_ARG ((clprim_arg){sizeof(cl_mem), NULL, CLPRIM_ROLE_TALLIES})
/* A buffer argument where NULL stands for the scratch (steps that work on data
 * another step of the plan left there); mem must be an lvalue. */
#define CLPRIM_BUFFER_ARG(mem) ((mem) ? CLPRIM_ARG(mem) : CLPRIM_SCRATCH_ARG)

/* CLPRIM_LAUNCH_ARGS: the most a kernel takes (radix_one_sweep). */
enum { CLPRIM_PLAN_PROGRAMS = 6, CLPRIM_LAUNCH_ARGS = 27, CLPRIM_PLAN_READS = 2 };

typedef struct {
    int role;  /* 0: a value (or local memory when it has no bytes), else CLPRIM_ROLE_* */
    size_t size;
    int local; /* local memory of `size` bytes */
    unsigned char value[32]; /* the largest: a ulong4 (the channel histograms) */
} clprim_launch_arg;

typedef struct {
    unsigned program; /* in the plan's programs */
    const char *kernel;
    size_t groups;
    size_t record_tiles, record_bytes; /* look-back records it needs: tiles, bytes a value */
    unsigned nargs;
    clprim_launch_arg args[CLPRIM_LAUNCH_ARGS];
} clprim_launch;

typedef struct {
    const char *purpose;   /* the call, in messages */
    clprim_program programs[CLPRIM_PLAN_PROGRAMS];
    unsigned nprograms;
    clprim_layout scratch; /* parts laid out by clprim_layout_part */
    clprim_launch *launches;
    size_t nlaunches, capacity;
    int blocking;          /* the call returns after its work (and its reads) complete */
    struct {
        cl_mem buffer; /* NULL: the scratch */
        size_t offset, bytes;
        void *host;
    } reads[CLPRIM_PLAN_READS]; /* blocking reads after the last launch */
    unsigned nreads;
    int failed; /* out of host memory or room while planning: clprim_execute reports it */
} clprim_plan;

void clprim_plan_begin(clprim_plan *plan, const char *purpose);
/* Adds a program to the plan (taking over its options) and returns its index;
 * a program with the same file and options already there is not added again. */
unsigned clprim_plan_program(clprim_plan *plan, clprim_program *p);
/* Appends a launch of `kernel` from program `program` over `groups`
 * work-groups of its shape, copying the arguments' values. Returns the launch,
 * NULL when out of memory (recorded in the plan). */
clprim_launch *clprim_plan_launch(clprim_plan *plan, unsigned program, const char *kernel, size_t groups,
                                  const clprim_arg *args, size_t nargs);
#define CLPRIM_PLAN_LAUNCH(plan, program, kernel, groups, ...)                                           \
    clprim_plan_launch((plan), (program), (kernel), (groups), (const clprim_arg[]){__VA_ARGS__},         \
                       sizeof((const clprim_arg[]){__VA_ARGS__}) / sizeof(clprim_arg))
/* A read of `bytes` from `buffer` (NULL: the scratch) at byte `offset` into
 * host, after the last launch; the call returns once every read is done. */
void clprim_plan_read(clprim_plan *plan, cl_mem buffer, size_t offset, size_t bytes, void *host);
void clprim_plan_end(clprim_plan *plan);

/* Runs the plan after the (checked) wait list; *event, when event is not NULL,
 * completes with the call (a blocking plan with no launch too). Ends the plan. */
clprim_status clprim_execute(clprim_context *ctx, clprim_plan *plan, cl_uint num_events_in_wait_list,
                             const cl_event *event_wait_list, cl_event *event);

/* ---- Primitives (algorithms/primitives.h): one descriptor each ---- */

/* The warm-up's walk over program variants (warm_up.c). */
typedef struct clprim_variant_walk clprim_variant_walk;
/* Hands one program a call may build to the walk, which ends p; made is the
 * status of making p (a predicate's program can fail to be made). */
void clprim_walk_variant(clprim_variant_walk *walk, clprim_status made, clprim_program *p);

/* The programs a primitive's calls may build at the context's device and
 * tuning: those for elements of one type (called for every type the device
 * runs) and those of no element type. Both NULL when they are too many to
 * build ahead (one per key type, value type and operator): they compile on
 * first use. */
typedef struct {
    const char *name; /* as in algorithms/primitives.h */
    void (*type_variants)(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                          const clprim_type_info *type);
    void (*variants)(clprim_context *ctx, clprim_variant_walk *walk);
} clprim_primitive;

#include "algorithms/primitives.h"
#define CLPRIM_DECLARE_PRIMITIVE(name) extern const clprim_primitive clprim_##name##_primitive;
CLPRIM_PRIMITIVES(CLPRIM_DECLARE_PRIMITIVE)
#undef CLPRIM_DECLARE_PRIMITIVE
/* Every descriptor, in the order of algorithms/primitives.h, NULL-terminated. */
extern const clprim_primitive *const clprim_primitives[];

/* ---- Events and profiling (launch.c) ---- */

/* Device time of the calls made between begin and end, from the first kernel's
 * start to the last one's end (waits for them). For benchmarks. launches, when
 * not NULL, receives each profiled launch (at most 64, *count of them), its
 * start and end in seconds from the first start. */
enum { CLPRIM_PROFILE_ENDS = 1, CLPRIM_PROFILE_EVERY = 2 };
void clprim_profile_begin(clprim_context *ctx, int which);
clprim_status clprim_profile_end(clprim_context *ctx, double *seconds, clprim_launch_time *launches, size_t *count);

/* Event wait lists (clprim.h). The check is one of a call's argument checks:
 * a NULL list with num_events > 0 or a list with num_events == 0, an event that
 * is not valid or is not of the context's cl_context: CLPRIM_INVALID_ARGUMENT,
 * naming the function and the event's index. */
clprim_status clprim_check_wait_list(clprim_context *ctx, const char *function, cl_uint num_events,
                                     const cl_event *wait_list);
/* Enqueued after the checks and before the call's first command: a marker that
 * waits for the list, so that on the in-order queue nothing of the call starts
 * before the list completes (nothing when the list is empty). A marker changes
 * no memory, so a failure after it (a kernel that does not build) still leaves
 * the caller's buffers untouched. */
clprim_status clprim_enqueue_wait(clprim_context *ctx, cl_uint num_events, const cl_event *wait_list);
/* For blocking calls with nothing to enqueue: returns once the list completes. */
clprim_status clprim_wait_events(clprim_context *ctx, cl_uint num_events, const cl_event *wait_list);

/* For calls with nothing to do: a marker that waits for the list, so *event,
 * when asked for, completes only after it, as any other call's event would. */
clprim_status clprim_enqueue_nothing(clprim_context *ctx, cl_uint num_events, const cl_event *wait_list,
                                     cl_event *event);

/* Scratch space of at least `bytes`, kept by the context. Growing it replaces the
 * buffer, so a driver asks once for all it needs before enqueueing. */
clprim_status clprim_scratch(clprim_context *ctx, size_t bytes, cl_mem *buf);
/* *space, of *space_bytes, grown to at least `bytes` (by half again): what
 * scratch and the look-back records use. */
clprim_status clprim_grow(clprim_context *ctx, cl_mem *space, size_t *space_bytes, size_t bytes, cl_mem *buf);

/* ---- The multi-work-group split (scan.c): shared by scan, reduce, compaction ---- */

/* Each of `groups` work-groups owns `chunk` consecutive elements (a whole number of
 * tiles), the last one what remains. */
typedef struct {
    size_t groups;
    cl_ulong chunk;
} clprim_split;

clprim_split clprim_split_range(const clprim_tuning *tuning, size_t n);

/* The elements a work-group of the merge sorts (merge_sort.c, segmented_sort.c)
 * sorts into one run and merges a pass: a tile on work-groups of several
 * work-items; on the CPU shape an even share of n a group (at least
 * items_per_thread), so that a core sorts or merges a long run sequentially. */
size_t clprim_merge_piece(const clprim_tuning *t, size_t n);

/* SEED_NONE, SEED_FOLD or SEED_SCANNED (cl/constants.h): where each of the
 * split's work-groups finds the combination of the chunks before it. */
int clprim_seed_mode(const clprim_tuning *tuning, const clprim_split *split);

/* ---- Operators (operator.c) ---- */

/* An operator as the kernels take it: built-in (builtin >= 0, a clprim_op) or
 * the caller's (builtin -1): its expression parsed and written out for -D, and
 * the identity's bytes. */
typedef struct {
    int builtin;
    char *expression;
    uint64_t identity;
} clprim_combine;
clprim_combine clprim_combine_builtin(clprim_op op);
/* Checks and parses a caller's operator for elements of t (a checked type);
 * the messages name op->combine and op->identity. Free with clprim_combine_free. */
clprim_status clprim_combine_user(clprim_context *ctx, clprim_type t, const clprim_operator *op,
                                  clprim_combine *c);
/* The element type, then the built-in op or (user_op) the caller's *user, into *c. */
clprim_status clprim_check_operator(clprim_context *ctx, clprim_type t, const clprim_type_info **type, clprim_op op,
                                    int user_op, const clprim_operator *user, clprim_combine *c);
void clprim_combine_free(clprim_combine *c);
/* clprim_program_begin with the operator's options. */
void clprim_combine_program(const clprim_context *ctx, clprim_program *p, const char *purpose, const char *file,
                            const clprim_tuning *shape, const clprim_type_info *type, const clprim_combine *c);
/* Builds (or loads) that program at the context's shape: a caller's operator
 * that does not compile fails before anything is enqueued, also at n == 0. */
clprim_status clprim_combine_prepare(clprim_context *ctx, const char *purpose, const char *file,
                                     const clprim_type_info *type, const clprim_combine *c);

/* The program of argmin (op CLPRIM_MIN) or argmax for a type (reduce_index.c). */
void clprim_reduce_index_program(const clprim_context *ctx, const clprim_type_info *type, clprim_op op,
                                 clprim_program *p);

/* Keys: int32, uint32, int64, uint64; the message names the function (by_key.c). */
clprim_status clprim_check_key_type(clprim_context *ctx, const char *function, clprim_type key_type,
                                    const clprim_type_info **key);

/* ---- The one-sweep form of scan and compaction (lookback.c) ---- */

/* Local memory a one-sweep kernel needs beyond the scan's tile: its ticket
 * and the look-back's window (cl/block/lookback.cl, at most 32 records). */
#define CLPRIM_LOOKBACK_LOCAL_BYTES 1024
/* The tuning asks for the one-sweep form, the device can publish its 64-bit
 * status words, and the tile leaves room for the look-back's window. */
int clprim_one_sweep_available(const clprim_context *ctx);
/* Whether the device can exchange records between work-groups
 * (cl/block/lookback.cl: plain status words, or 64-bit atomics), as the
 * one-sweep forms and the kernels whose last work-group folds the others'
 * results (cl/block/last_group.cl) do. */
int clprim_records_available(const clprim_context *ctx);
/* Whether a one-sweep launch that writes its input in place may run: its
 * look-back cannot fall back (an earlier tile may be overwriting the input
 * it would read), so it must wait, which ends only on devices that run every
 * started work-group to completion. */
int clprim_one_sweep_in_place(const clprim_context *ctx);
/* Whether look-backs wait for every earlier record rather than falling back
 * (-DLOOKBACK_WAITS): where every started work-group runs to completion. */
int clprim_lookback_waits(const clprim_context *ctx);
/* The context's tallies: 64-bit words at zero before every launch that
 * settles counts in them (cl/block/private_counts.cl) and after it, created
 * and cleared through clear (a fill_words pass) on first use.
 * clprim_settles: whether a launch may settle `bins` counts there (the
 * device has 64-bit atomics, and there are words enough). */
int clprim_settles(const clprim_context *ctx, size_t bins);
clprim_status clprim_tallies(clprim_context *ctx, const clprim_pass *clear, cl_mem *tallies);
/* Tiles (work-groups) of a one-sweep launch over n elements; 0 when there
 * are more than 32-bit tile numbers count. */
size_t clprim_one_sweep_tiles(const clprim_tuning *shape, size_t n);
/* Tiles of a census launch over n elements (cl/block/lookback.cl: each tile
 * waits for every other's count), or 0 where one does not suit: work-groups
 * of one work-item, 2^32 elements or more, or more tiles than the device
 * surely runs at once. */
size_t clprim_census_tiles(const clprim_context *ctx, const clprim_tuning *shape, size_t n);
/* The shape of the one-sweep kernels over elements of element_bytes
 * (tuning.c): on work-groups of more than one work-item, twice the tuning's
 * tile, in half the work-items from 256 up, and twice again for elements of 4
 * bytes or fewer, the largest of these the device runs; else the tuning's. */
clprim_tuning clprim_one_sweep_shape(const clprim_context *ctx, const clprim_tuning *tuning, size_t element_bytes);
/* The context's records for `tiles` tiles of values of value_bytes, and the
 * stamp this launch writes them with. clear: the fill_words kernel of the
 * caller's program, enqueued when the records are new or out of stamps. */
clprim_status clprim_lookback_records(clprim_context *ctx, const clprim_pass *clear, size_t tiles,
                                      size_t value_bytes, cl_mem *records, cl_uint *stamp);

/* Bytes of scratch a scan of n elements of `elem_size` lays out (for the tests
 * that check its levels). */
size_t clprim_scan_scratch_bytes(const clprim_tuning *tuning, size_t n, size_t elem_size);

/* Appends a scan of n > 0 elements to the plan, its partials laid out in the
 * plan's scratch; a NULL src, dst or seed stands for the scratch. seed: NULL,
 * or the buffer whose element seed_offset comes before src (clprim_scan_seeded). */
void clprim_plan_scan(const clprim_context *ctx, clprim_plan *plan, const clprim_type_info *type,
                      const clprim_combine *c, int exclusive, cl_mem seed, cl_ulong seed_offset, cl_mem src,
                      cl_ulong src_offset, cl_mem dst, cl_ulong dst_offset, size_t n);

/* ---- Image and box sort programs (threshold.c, kmeans.c, boxsort.c) ----
 * Each at the context's tuning, as the drivers and clprim_warm_up build them
 * (release with clprim_program_end). */

/* threshold.cl, with 32-bit indexing or not. */
void clprim_threshold_program(const clprim_context *ctx, int index32, clprim_program *p);
/* kmeans.cl for a pixel format. */
void clprim_kmeans_program(const clprim_context *ctx, clprim_pixel_format format, clprim_program *p);
/* boxsort.cl (the box sort's sort is radix_sort.cl's). */
void clprim_box_sort_program(const clprim_context *ctx, clprim_program *p);

/* ---- Expressions (expression.c): callers' OpenCL C expressions ---- */

/* A name an expression may use, and its OpenCL C scalar type ("int", "ulong", ...). */
typedef struct {
    const char *name;
    const char *type;
} clprim_expression_variable;

/* Parses `text` as the expression grammar of clprim.h over `vars` and writes it
 * out again from its tokens as one -D value: no whitespace, parenthesised,
 * integer / and % as calls of cl/expression.cl (which the kernel file must
 * include). *out is malloc'ed (free it). A refusal is CLPRIM_INVALID_ARGUMENT
 * with a message "<what>: <reason> '<token>' at <position> in "<text>"". */
clprim_status clprim_parse_expression(clprim_context *ctx, const char *what, const char *text,
                                      const clprim_expression_variable *vars, size_t nvars, char **out);
/* Adds -D<name>=<expression> (as clprim_parse_expression writes it) to a
 * program's options, with correctly rounded float division and square root
 * where the device offers them (once in a program of two expressions): OpenCL's default division may differ from
 * C's by a few units in the last place, and from one site of a kernel to
 * another. */
void clprim_expression_option(const clprim_context *ctx, clprim_options *o, const char *name,
                              const char *expression);
/* After CLPRIM_BUILD_FAILED of a program whose only caller-supplied part is
 * an expression: the message becomes "<what> "<expression>" (<types>) did not
 * compile: " and the build log it had, keeping the OpenCL error. */
void clprim_expression_build_failed(clprim_context *ctx, const char *what, const char *expression,
                                    const char *types);
/* The OpenCL C scalar of an element type: "int", ..., "uchar"; "unknown" outside the enum. */
const char *clprim_scalar_name(clprim_type t);

/* ---- Callers' element-wise functions (transform.c, cl/block/map.cl) ---- */

/* A checked clprim_map: its inputs' types and bytes, its expression parsed. */
typedef struct {
    const clprim_map *f;
    const clprim_type_info *x, *y; /* y NULL: one input */
    clprim_region x_bytes, y_bytes;
    char *expression;
} clprim_mapped;
/* Checks f for n elements (types, inputs, the expression over x, i and y);
 * messages name f->x, f->y and f->expression. Free m with clprim_mapped_free
 * whatever the result. */
clprim_status clprim_check_map(clprim_context *ctx, const char *function, const clprim_map *f, size_t n,
                               clprim_mapped *m);
void clprim_mapped_free(clprim_mapped *m);
/* Adds -DX_TYPE, -DY_TYPE and -DMAP to a program of a file that includes
 * block/map.cl. */
void clprim_map_options(const clprim_context *ctx, clprim_program *p, const clprim_mapped *m);
/* The buffer and offset a launch passes as the second input (MAP_PARAMS). */
cl_mem clprim_map_second(const clprim_mapped *m, cl_ulong *offset);
/* clprim_execute, where a build failure is the function's expression's (its
 * value converted to `to`): the message says so. */
clprim_status clprim_map_execute(clprim_context *ctx, clprim_plan *plan, const clprim_mapped *m,
                                 const clprim_type_info *to, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event);

/* ---- Compaction and histograms (compact.c, histogram.c) ----
 * For the demo, the benchmarks and the image code. Kernel files and names, for profiling hooks and messages: */
#define CLPRIM_COMPACT_FILE "compact.cl"     /* kernels: count_chunks, scatter_chunks, copy_elements */
#define CLPRIM_HISTOGRAM_FILE "histogram.cl" /* kernels: histogram_local, histogram_global, fill_words */

/* One compaction or partition, its arguments checked as clprim_compact checks
 * them (type: t's info); a three-way partition's first predicate is keep, its
 * counts go to *kept and *second_kept or kept_buffer[kept_offset] and the
 * cl_ulong after it. */
typedef struct {
    clprim_type t;
    const clprim_type_info *type;
    const clprim_predicate *keep;
    cl_mem src;
    size_t src_offset;
    cl_mem dst;
    size_t dst_offset, n;
    size_t *kept;
    cl_mem kept_buffer;
    size_t kept_offset;
    int partition; /* 0: a compaction; 1: the rejected elements follow the kept ones in dst, in
                      order; 2: three-way, those that fail keep and pass second between them */
    const clprim_predicate *second; /* partition 2 */
    size_t *second_kept;            /* partition 2: the second part's count, as kept */
} clprim_compaction;
/* Appends it to the plan: what clprim_compact, clprim_partition and
 * clprim_partition_three_way run after their checks, and what the calls built
 * on compaction append. A NULL src or keep->flags stands for the scratch.
 * With c->kept (or c->second_kept) the plan reads the kept count back into
 * *total (a three-way partition: both counts into total[0] and total[1]; 0
 * when nothing is compacted), which the caller hands on after clprim_execute. Fails only when an expression does not
 * parse (the message recorded), the plan then still to be ended. */
clprim_status clprim_plan_compaction(clprim_context *ctx, clprim_plan *plan, const clprim_compaction *c,
                                     cl_ulong *total);

/* The tuning with the grid compaction and histograms use (more groups on GPUs). */
clprim_tuning clprim_compact_grid(const clprim_context *ctx);
/* "<", "<=", ..., "nonzero", "flagged", "expression"; "unknown" outside the enum. */
const char *clprim_keep_name(clprim_keep keep);
/* The program of compact.cl for a type and a (checked) predicate, and a
 * three-way partition's second one (else NULL), at a shape
 * (clprim_compact_shape), expressions parsed and written out for -D.
 * Release p with clprim_program_end whatever the result. */
clprim_status clprim_compact_program(clprim_context *ctx, clprim_type t, const clprim_type_info *type,
                                     const clprim_predicate *keep, const clprim_predicate *second,
                                     const clprim_tuning *shape, clprim_program *p);
/* The shape compaction's kernels run at over elements of element_bytes, in one
 * form or the other; a partition's (partition non-zero) may differ. */
clprim_tuning clprim_compact_shape(const clprim_context *ctx, int one_sweep, size_t element_bytes, int partition);
/* The grid the multi-pass form splits n over, at that shape: partition is
 * clprim_compaction's (0 compaction, 1 two-way, 2 three-way). */
clprim_tuning clprim_compaction_grid(const clprim_context *ctx, const clprim_tuning *shape, int partition);

/* A histogram's bins as the kernels take them (the rule is in clprim.h). */
typedef struct {
    clprim_type t;
    const clprim_type_info *type;
    size_t bins;
    unsigned char lo[8], hi[8], scale[8]; /* elements of type t: see cl/histogram.cl */
    uint64_t lo_bits, range;              /* integer types: lo modulo 2^64, hi - lo */
    int divide;                           /* integer types: HIST_DIVIDE_* (cl/constants.h) */
    int empty;                            /* integer types: no value of the type is in [lo, hi) */
} clprim_histogram_params;

/* Checks lo, hi, bins and the type (fp64 included) and fills *p; records a message. */
clprim_status clprim_histogram_prepare(clprim_context *ctx, clprim_type t, double lo, double hi, size_t bins,
                                       clprim_histogram_params *p);

/* How to count: 0 fields take the defaults. */
typedef struct {
    size_t local_bins; /* bins per work-group in local memory (default: what fits) */
    size_t max_passes; /* windows of local_bins before falling back to one global atomic per
                          element (default 4); tests force every path with these two */
} clprim_histogram_plan;

/* The program of histogram.cl for a type, at the compaction grid. */
void clprim_histogram_program(const clprim_context *ctx, const clprim_type_info *type, clprim_program *p);

/* Bins that fit in the device's local memory (cl_uint each). */
size_t clprim_histogram_local_bins(const clprim_context *ctx);

/* clprim_histogram over every stride-th element: elements src_offset,
 * src_offset + stride, ... (n of them, in elements of t). With t = CLPRIM_UINT8,
 * stride 3 or 4 and src_offset = channel, it counts one channel of packed
 * RGB8/RGBA8 pixels (n = pixels): what the image code needs. Checks every
 * argument like the public call (function names the caller in messages); plan
 * may be NULL. */
clprim_status clprim_histogram_checked(clprim_context *ctx, const char *function, clprim_type t, cl_mem src,
                                       size_t src_offset, size_t stride, size_t n, double lo, double hi,
                                       size_t bins, cl_mem counts, size_t counts_offset, int accumulate,
                                       const clprim_histogram_plan *plan, cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event);
/* Appends that histogram to a plan, after clprim_histogram_prepare; how may
 * be NULL. */
void clprim_plan_histogram(const clprim_context *ctx, clprim_plan *plan, const clprim_histogram_params *p, cl_mem src,
                           size_t src_offset, size_t stride, size_t n, cl_mem counts, size_t counts_offset,
                           int accumulate, const clprim_histogram_plan *how);

/* ---- Histograms over the caller's edges (histogram_range.c) ---- */

/* The program of histogram_range.cl for a type, at the compaction grid. */
void clprim_histogram_range_program(const clprim_context *ctx, const clprim_type_info *type, clprim_program *p);

/* How to count: 0 fields take the defaults. */
typedef struct {
    cl_ulong local_bytes; /* local memory to plan with (default: the device's); tests force the
                             global-atomic path with a small value */
} clprim_histogram_range_plan;

/* clprim_histogram_range with a plan (NULL: the defaults); checks every argument. */
clprim_status clprim_histogram_range_checked(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset,
                                             size_t n, cl_mem edges, size_t edges_offset, size_t bins,
                                             cl_mem counts, size_t counts_offset, int accumulate,
                                             const clprim_histogram_range_plan *plan,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             cl_event *event);


#endif
