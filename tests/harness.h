/* What every Check suite shares: the devices under test, seeded random data,
 * buffers filled with a sentinel, and error assertions. */
#ifndef CLPRIM_TESTS_HARNESS_H
#define CLPRIM_TESTS_HARNESS_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "clprim.h"
#include "internal.h" /* tests link the static library and may use internals */
#include "workload.h" /* src/cli: every primitive on generated data, with its C loop and check */

/* Devices under test: $CLPRIM_TEST_DEVICES, ';'-separated device specs, default "cpu". */
size_t harness_device_count(void);
const char *harness_device_spec(size_t i);
clprim_context *harness_context(size_t i); /* new context; ck_assert with the message on failure */
cl_context harness_cl_context(clprim_context *ctx);

/* Seed from $CLPRIM_TEST_SEED or the clock; printed once to stderr ("seed: N"). */
uint64_t harness_seed(void);
uint64_t harness_rand(uint64_t *state); /* splitmix64 */
/* n random elements of type t: integers over their full range, floats in [-1000, 1000). */
void harness_fill_random(clprim_type t, void *data, size_t n, uint64_t *state);
/* Keys (int32 .. uint64) in runs of about `mean` equal keys (0: one run of n).
 * Consecutive runs differ, but a key comes back two runs later, so equal keys
 * that are not consecutive are tried too; 64-bit keys differ in both halves. */
void harness_fill_key_runs(clprim_type t, void *keys, size_t n, size_t mean, uint64_t *state);
/* harness_fill_random, but floats are integers in [-100, 100], whose sums are
 * exact in any grouping. */
void harness_fill_exact_sums(clprim_type t, void *data, size_t n, uint64_t *state);

#define HARNESS_SENTINEL 0xA5 /* fill byte of untouched outputs */
/* A read-write buffer of `bytes`, filled from init, or with HARNESS_SENTINEL when init is NULL. */
cl_mem harness_buffer(clprim_context *ctx, size_t bytes, const void *init);
void harness_read(clprim_context *ctx, cl_mem buf, size_t offset_bytes, size_t bytes, void *out);
int harness_all_sentinel(const void *data, size_t bytes);
/* Asserts clprim_last_error(ctx) contains every non-NULL needle (case-insensitive). */
void harness_assert_error(clprim_context *ctx, clprim_status got, clprim_status want, const char *needle);

/* Runs a suite (CK_NORMAL), returns the process exit code. */
int harness_run(Suite *s);

/* ---- Extras (not in the first API note; nothing above depends on them) ---- */

/* Like harness_buffer with CL_MEM_READ_ONLY. */
cl_mem harness_buffer_flags(clprim_context *ctx, cl_mem_flags flags, size_t bytes, const void *init);
/* malloc that ck_asserts on failure (never NULL, even for 0 bytes). */
void *harness_malloc(size_t bytes);
/* Sets (value != NULL) or unsets an environment variable, remembering the old value;
 * harness_env_restore() puts back everything changed since the last restore. */
void harness_env_set(const char *name, const char *value);
void harness_env_restore(void);
/* A fresh empty folder under $TMPDIR (or /tmp); harness_rmtree removes a tree. */
char *harness_tempdir(const char *tag);
void harness_rmtree(const char *path);

/* The source tree's cl/ folder (where the library finds kernels uninstalled). */
const char *harness_kernel_source_dir(void);
/* Copies the block layer (block/) and the files it includes (constants.h,
 * types.h, expression.cl) from the source tree's kernels into dir: what a
 * kernel file of a test's own needs. */
void harness_copy_common_kernels(const char *dir);
/* Releases ctx and asserts that no OpenCL object it made (or that a test forgot)
 * outlived it: with one extra reference held across clprim_release, the
 * cl_context's reference count must be back to 1. Implementations where buffers,
 * programs, kernels and queues hold a reference to their context (PoCL) count
 * every such object; elsewhere the check is weaker but never wrong. Release your
 * own buffers first. */
void harness_release_checked(clprim_context *ctx);
/* Asserts a buffer has no reference beyond the caller's one. */
void harness_assert_single_ref(cl_mem buf, const char *what);

/* Whole-file helpers that ck_assert on failure. */
void harness_write_file(const char *path, const void *data, size_t bytes);
void *harness_read_file(const char *path, size_t *bytes); /* NUL-terminated; free() it */
void harness_copy_file(const char *from, const char *to);

/* Levels of the multi-work-group scan of n elements under tuning t (from
 * clprim_split_range): 1 when one work-group does everything; 2 when there are
 * partials but no more than a tile of them (pass 3 folds them itself); 3 or more
 * when pass 2 scans the partials, recursively (3: the partials' own partials fit a
 * tile, ...). Reduce: 1 is one pass, 2 or more two passes. Also
 * asserts that clprim_scan_scratch_bytes agrees (no scratch for 1 level, room for
 * every level's partials otherwise). */
int harness_scan_levels(const clprim_tuning *t, size_t n, size_t elem_size);
/* Smallest n in [1, limit] whose scan has exactly `levels` levels; 0 when none. */
size_t harness_first_size_with_levels(const clprim_tuning *t, int levels, size_t limit);
/* "wg=4,items=2,groups=64" for messages (a static buffer). */
const char *harness_tuning_text(const clprim_context *ctx);
/* clprim_set_tuning (its status), with the kernel build flags for the shape the
 * context is left with: on a CPU device, shapes of more than one work-item a
 * group build without PoCL's optimizer (harness.c says why). Suites set shapes
 * through this or the calls below; the shapes suite and the tests of
 * clprim_set_tuning itself call it directly. */
clprim_status harness_tune(clprim_context *ctx, const clprim_tuning *t);
/* clprim_set_tuning that must succeed. */
void harness_set_tuning(clprim_context *ctx, size_t wg, size_t items, size_t groups);
/* The device's default tuning, in the form $CLPRIM_TEST_FORM names, if any
 * (harness_context and harness_set_tuning apply it too). */
void harness_default_tuning(clprim_context *ctx);
/* The context's tuning in another form (suites that cover both forms). */
void harness_set_form(clprim_context *ctx, clprim_form form);


/* ---- Bad calls as rows of a table ----
 * A suite lists bad calls (and the near misses that must still succeed) in a
 * static table of harness_bad_call rows and gives one function that makes the
 * call a row describes. For each device, harness_run_bad_calls runs the rows in
 * order on one context; for each row it creates fresh buffers (below), makes the
 * call, and asserts:
 *  - the status is `want`;
 *  - a failure's message (clprim_last_error(NULL) when the row's ctx is NULL)
 *    contains `needle` and, when set, `also` (case-insensitive); a success's
 *    message is "" (after a failing row, that success clears the message);
 *  - every buffer still holds exactly the bytes it started with, except, for a
 *    success, the buffers of the arguments that `written` names.
 * The suite's function may assert more itself (a host-side result, a success's
 * values against the reference). */

#define HARNESS_BAD_BYTES 65536 /* each buffer's size; sub-buffers span half of it */

typedef enum {
    HB_NULL,       /* a NULL cl_mem */
    HB_A,          /* read-write, random bytes */
    HB_B,          /* read-write, random bytes */
    HB_READ_ONLY,  /* CL_MEM_READ_ONLY, random bytes */
    HB_WRITE_ONLY, /* CL_MEM_WRITE_ONLY, random bytes */
    HB_FOREIGN,    /* of another cl_context */
    HB_A_AT_0,     /* sub-buffer of HB_A at byte 0 */
    HB_A_AT_ALIGN, /* sub-buffer of HB_A at CL_DEVICE_MEM_BASE_ADDR_ALIGN bytes */
    HB_IMAGE,      /* a 2D image object (rows naming it are skipped without image support) */
    HB_COUNT
} harness_buf;

#define HB_ARG(i) (1u << (i)) /* for `written`: the call writes its buffer argument i */

typedef struct {
    const char *what;       /* the row, for failure messages */
    int call;               /* which of the suite's calls (the suite's own enum) */
    int null_ctx;           /* call with ctx NULL */
    harness_buf buf[4];     /* the call's cl_mem arguments, in the suite's order */
    size_t offset[4];       /* their offsets (in the call's units) */
    size_t n;               /* the call's element count, when it takes one */
    clprim_status want;     /* the status the call must return */
    const char *needle;     /* a word a failure's message must contain */
    /* Optional, zero when not given: */
    clprim_type type;       /* the element type, for calls that take one (0 is CLPRIM_INT32) */
    int op;                 /* the call's operator or mode, in the suite's terms (0 is CLPRIM_SUM) */
    const char *also;       /* a second word the message must contain */
    unsigned written;       /* a success: HB_ARG(i) for each buf[i] it writes (a sub-buffer's parent too) */
    int without_fp64;       /* call as on a device without cl_khr_fp64; nothing may be compiled */
    int variant;            /* the suite's own variant of the call: an index it maps to arguments it
                             * prepared (an image layout, a grid, a histogram's range); 0 is its usual call */
} harness_bad_call;

/* Makes the call `row` describes with buf[i] the cl_mem for row->buf[i]. */
typedef clprim_status (*harness_bad_caller)(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf);

void harness_run_bad_calls(const harness_bad_call *rows, size_t count, harness_bad_caller call);

/* ---- What every suite writes the same way ---- */

/* Runs the block once per device of $CLPRIM_TEST_DEVICES with a fresh context
 * `ctx`, released with harness_release_checked (OpenCL objects counted back). */
#define FOR_EACH_DEVICE(ctx)                                                                           \
    for (size_t dev_ = 0; dev_ < harness_device_count(); dev_++)                                       \
        for (clprim_context *ctx = harness_context(dev_), *once_ = ctx; once_; harness_release_checked(ctx), once_ = NULL)

/* ck_assert_msg only on failure: every ck_assert call is a message to the parent
 * process in fork mode, too slow for one per element of a large output. */
#define CHECK(cond, ...)                                                                               \
    do {                                                                                               \
        if (!(cond))                                                                                   \
            ck_assert_msg(cond, __VA_ARGS__);                                                          \
    } while (0)

/* The descriptor of that name (src/algorithms/primitives.h), NULL if none. */
const clprim_primitive *harness_primitive_named(const char *name);
/* A type the workload takes on this device: the turn-th of the workload types,
 * or the next one it takes, so that a walk over the workloads visits them all
 * (a photograph's kind: uint8, its pixels' bytes). */
clprim_type harness_workload_type(const clprim_context *ctx, const workload_kind *kind, size_t turn);
/* Runs one workload of `clprim bench` (a photograph kind on random pixels, 37
 * wide, about n of them) on data drawn from the run's seed, and checks it
 * against its C loop; 0 with why on failure. */
int harness_run_workload(clprim_context *ctx, const workload_kind *kind, clprim_type t, size_t n, char *why,
                         size_t size);

/* A generator state for one test: the run's seed mixed with a salt, so tests
 * draw independent data and a printed seed repeats them all. */
static inline uint64_t harness_rng(unsigned salt)
{
    return harness_seed() ^ (0x9E3779B97F4A7C15ull * (salt + 1));
}

#endif
