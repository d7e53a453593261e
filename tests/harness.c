/* The shared test harness: see harness.h. */
#define _GNU_SOURCE /* strcasestr, nftw */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- Devices ---- */

#define MAX_DEVICES 16
static char *device_specs[MAX_DEVICES];
static size_t device_total;
static int devices_parsed;

static void parse_devices(void)
{
    if (devices_parsed)
        return;
    devices_parsed = 1;
    const char *env = getenv("CLPRIM_TEST_DEVICES");
    if (env && *env) {
        char *copy = strdup(env);
        ck_assert_msg(copy != NULL, "out of memory");
        char *save = NULL;
        for (char *tok = strtok_r(copy, ";", &save); tok && device_total < MAX_DEVICES;
             tok = strtok_r(NULL, ";", &save)) {
            while (*tok == ' ')
                tok++;
            if (*tok)
                device_specs[device_total++] = strdup(tok);
        }
        free(copy);
    }
    if (device_total == 0)
        device_specs[device_total++] = strdup("cpu");
}

size_t harness_device_count(void)
{
    parse_devices();
    return device_total;
}

const char *harness_device_spec(size_t i)
{
    parse_devices();
    ck_assert_msg(i < device_total, "device index %zu of %zu", i, device_total);
    return device_specs[i];
}

/* $CLPRIM_TEST_FORM: "one-sweep" or "multi-pass" runs a suite in that form
 * whatever the device's table says; unset, the table's. */
static clprim_form test_form(void)
{
    const char *env = getenv("CLPRIM_TEST_FORM");
    if (!env || !*env)
        return CLPRIM_FORM_DEFAULT;
    if (!strcmp(env, "one-sweep"))
        return CLPRIM_FORM_ONE_SWEEP;
    ck_assert_msg(!strcmp(env, "multi-pass"), "$CLPRIM_TEST_FORM is \"%s\": one-sweep or multi-pass", env);
    return CLPRIM_FORM_MULTI_PASS;
}

/* A CPU device's default shape is one work-item a group; the suites' small
 * GPU-like shapes (4 work-items, 64, ...) are there to run the kernels'
 * work-group logic. PoCL builds a kernel of several work-items with a loop
 * around every stretch between barriers, at 5 to 20 times the default shape's
 * cost, which was most of a cold test run; without its optimizer the same
 * kernels build 3 to 4 times faster. So on a CPU device the suites build those
 * shapes with -cl-opt-disable, through the context's own build options:
 * $POCL_EXTRA_BUILD_FLAGS cannot serve, as PoCL keeps the first non-empty
 * value it reads for the rest of the process. The default shape keeps the
 * optimizer, as users build it, and so does every shape of the shapes suite
 * (its clprim_set_tuning calls come through here not at all). Called whenever
 * the harness sets a context's shape. */
static void build_flags_for_shape(clprim_context *ctx)
{
    const int small_shape = (ctx->device_type & CL_DEVICE_TYPE_CPU) && clprim_get_tuning(ctx).work_group_size > 1;
    snprintf(ctx->extra_build_options, sizeof ctx->extra_build_options, "%s", small_shape ? "-cl-opt-disable" : "");
}

clprim_context *harness_context(size_t i)
{
    const char *spec = harness_device_spec(i);
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec);
    ck_assert_msg(s == CLPRIM_SUCCESS && ctx != NULL, "clprim_create(\"%s\"): %s: %s", spec,
                  clprim_status_name(s), clprim_last_error(NULL));
    if (test_form() != CLPRIM_FORM_DEFAULT)
        harness_default_tuning(ctx);
    build_flags_for_shape(ctx); /* the default, or $CLPRIM_TUNING's shape */
    return ctx;
}

void harness_default_tuning(clprim_context *ctx)
{
    const clprim_tuning t = {0, 0, 0, test_form()};
    clprim_status s = harness_tune(ctx, &t);
    ck_assert_msg(s == CLPRIM_SUCCESS, "clprim_set_tuning (the defaults): %s: %s", clprim_status_name(s),
                  clprim_last_error(ctx));
}

cl_context harness_cl_context(clprim_context *ctx)
{
    ck_assert_ptr_nonnull(ctx);
    return clprim_cl_context(ctx);
}

/* ---- Random data ---- */

static uint64_t seed_value;
static int seed_known;

uint64_t harness_seed(void)
{
    if (seed_known)
        return seed_value;
    const char *env = getenv("CLPRIM_TEST_SEED");
    if (env && *env) {
        seed_value = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed_value = ((uint64_t)ts.tv_sec * 1000000007u) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    }
    seed_known = 1;
    fprintf(stderr, "seed: %" PRIu64 " (set CLPRIM_TEST_SEED to repeat)\n", seed_value);
    return seed_value;
}

uint64_t harness_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void harness_fill_random(clprim_type t, void *data, size_t n, uint64_t *state)
{
    switch (t) {
    case CLPRIM_INT32:
    case CLPRIM_UINT32: {
        uint32_t *p = data;
        for (size_t i = 0; i < n; i++)
            p[i] = (uint32_t)(harness_rand(state) >> 32);
        break;
    }
    case CLPRIM_INT64:
    case CLPRIM_UINT64: {
        uint64_t *p = data;
        for (size_t i = 0; i < n; i++)
            p[i] = harness_rand(state);
        break;
    }
    case CLPRIM_UINT8: {
        uint8_t *p = data;
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)(harness_rand(state) >> 56);
        break;
    }
    case CLPRIM_FLOAT: {
        float *p = data;
        for (size_t i = 0; i < n; i++) /* 24 random bits: exactly representable steps */
            p[i] = (float)((double)(harness_rand(state) >> 40) * (2000.0 / 16777216.0) - 1000.0);
        break;
    }
    case CLPRIM_DOUBLE: {
        double *p = data;
        for (size_t i = 0; i < n; i++)
            p[i] = (double)(harness_rand(state) >> 11) * (2000.0 / 9007199254740992.0) - 1000.0;
        break;
    }
    default:
        ck_abort_msg("harness_fill_random: unknown type %d", (int)t);
    }
}

/* ---- Buffers ---- */

void *harness_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    ck_assert_msg(p != NULL, "out of host memory (%zu bytes)", bytes);
    return p;
}

cl_mem harness_buffer_flags(clprim_context *ctx, cl_mem_flags flags, size_t bytes, const void *init)
{
    ck_assert_ptr_nonnull(ctx);
    size_t size = bytes ? bytes : 1; /* OpenCL has no empty buffers */
    void *fill = NULL;
    if (!init) {
        fill = harness_malloc(size);
        memset(fill, HARNESS_SENTINEL, size);
    } else if (size != bytes) {
        fill = harness_malloc(size);
        memset(fill, HARNESS_SENTINEL, size);
    }
    cl_int err = CL_SUCCESS;
    cl_mem buf = clCreateBuffer(ctx->context, flags | CL_MEM_COPY_HOST_PTR, size,
                                fill ? fill : (void *)init, &err);
    free(fill);
    ck_assert_msg(err == CL_SUCCESS && buf != NULL, "clCreateBuffer(%zu bytes): %s (%d)", size,
                  clprim_cl_error_name(err), (int)err);
    return buf;
}

cl_mem harness_buffer(clprim_context *ctx, size_t bytes, const void *init)
{
    return harness_buffer_flags(ctx, CL_MEM_READ_WRITE, bytes, init);
}

void harness_read(clprim_context *ctx, cl_mem buf, size_t offset_bytes, size_t bytes, void *out)
{
    if (bytes == 0)
        return;
    cl_int err = clEnqueueReadBuffer(clprim_queue(ctx), buf, CL_TRUE, offset_bytes, bytes, out, 0, NULL, NULL);
    ck_assert_msg(err == CL_SUCCESS, "clEnqueueReadBuffer(offset %zu, %zu bytes): %s (%d)", offset_bytes, bytes,
                  clprim_cl_error_name(err), (int)err);
}

int harness_all_sentinel(const void *data, size_t bytes)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != HARNESS_SENTINEL)
            return 0;
    return 1;
}

void harness_assert_error(clprim_context *ctx, clprim_status got, clprim_status want, const char *needle)
{
    const char *msg = clprim_last_error(ctx);
    ck_assert_msg(got == want, "status %s, want %s (message: \"%s\")", clprim_status_name(got),
                  clprim_status_name(want), msg ? msg : "(null)");
    ck_assert_msg(msg != NULL, "clprim_last_error returned NULL");
    if (want != CLPRIM_SUCCESS)
        ck_assert_msg(*msg != '\0', "%s with an empty message", clprim_status_name(got));
    if (needle)
        ck_assert_msg(strcasestr(msg, needle) != NULL, "message \"%s\" does not mention \"%s\"", msg, needle);
}

/* ---- Bad calls as rows of a table ---- */

typedef struct {
    cl_context other;     /* HB_FOREIGN's context and queue */
    cl_command_queue other_queue;
    size_t align;         /* bytes, for HB_A_AT_ALIGN */
    int images;           /* CL_DEVICE_IMAGE_SUPPORT */
    cl_mem buf[HB_COUNT]; /* HB_NULL stays NULL */
    unsigned char *init[HB_COUNT];
} bad_call_buffers;

static const char *const bad_buffer_names[HB_COUNT] = {"NULL",       "A",         "B",
                                                       "READ_ONLY",  "WRITE_ONLY", "FOREIGN",
                                                       "A_AT_0",     "A_AT_ALIGN", "IMAGE"};

#define BAD_IMAGE_SIDE 16 /* RGBA8 pixels a side */

static void bad_buffers_open(clprim_context *ctx, bad_call_buffers *b)
{
    memset(b, 0, sizeof *b);
    cl_uint align_bits = 0;
    cl_bool images = CL_FALSE;
    cl_int err = clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(ctx->device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
    ck_assert_msg(err == CL_SUCCESS, "clGetDeviceInfo: %s", clprim_cl_error_name(err));
    b->align = align_bits / 8;
    ck_assert_msg(b->align > 0 && b->align < HARNESS_BAD_BYTES / 2, "CL_DEVICE_MEM_BASE_ADDR_ALIGN %u bits",
                  align_bits);
    b->images = images == CL_TRUE;
    b->other = clCreateContext(NULL, 1, &ctx->device, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        b->other_queue = clCreateCommandQueue(b->other, ctx->device, 0, &err);
    ck_assert_msg(err == CL_SUCCESS, "a second cl_context: %s", clprim_cl_error_name(err));
}

static void bad_buffers_close(bad_call_buffers *b)
{
    clReleaseCommandQueue(b->other_queue);
    clReleaseContext(b->other);
}

/* Fresh buffers of random bytes for one row. */
static void bad_buffers_create(clprim_context *ctx, bad_call_buffers *b, uint64_t *rng)
{
    static const cl_mem_flags flags[HB_COUNT] = {
        [HB_A] = CL_MEM_READ_WRITE,      [HB_B] = CL_MEM_READ_WRITE,       [HB_READ_ONLY] = CL_MEM_READ_ONLY,
        [HB_WRITE_ONLY] = CL_MEM_WRITE_ONLY, [HB_FOREIGN] = CL_MEM_READ_WRITE, [HB_IMAGE] = CL_MEM_READ_WRITE};
    const size_t image_bytes = BAD_IMAGE_SIDE * BAD_IMAGE_SIDE * 4;
    for (int i = HB_A; i < HB_COUNT; i++) {
        if (i == HB_A_AT_0 || i == HB_A_AT_ALIGN || (i == HB_IMAGE && !b->images))
            continue;
        size_t bytes = i == HB_IMAGE ? image_bytes : HARNESS_BAD_BYTES;
        b->init[i] = harness_malloc(bytes);
        harness_fill_random(CLPRIM_UINT8, b->init[i], bytes, rng);
        cl_int err;
        if (i == HB_IMAGE) {
            const cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
            cl_image_desc desc = {0};
            desc.image_type = CL_MEM_OBJECT_IMAGE2D;
            desc.image_width = desc.image_height = BAD_IMAGE_SIDE;
            b->buf[i] = clCreateImage(ctx->context, flags[i] | CL_MEM_COPY_HOST_PTR, &format, &desc, b->init[i],
                                      &err);
        } else {
            b->buf[i] = clCreateBuffer(i == HB_FOREIGN ? b->other : ctx->context, flags[i] | CL_MEM_COPY_HOST_PTR,
                                       bytes, b->init[i], &err);
        }
        ck_assert_msg(err == CL_SUCCESS, "creating buffer %s: %s", bad_buffer_names[i], clprim_cl_error_name(err));
    }
    const cl_buffer_region at[2] = {{0, HARNESS_BAD_BYTES / 2}, {b->align, HARNESS_BAD_BYTES / 2}};
    for (int i = 0; i < 2; i++) {
        cl_int err;
        b->buf[HB_A_AT_0 + i] =
            clCreateSubBuffer(b->buf[HB_A], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &at[i], &err);
        ck_assert_msg(err == CL_SUCCESS, "a sub-buffer at byte %zu: %s", at[i].origin, clprim_cl_error_name(err));
    }
}

/* Asserts every buffer holds its first bytes, but for those in `may_change` (a
 * bit per harness_buf), then releases them all. */
static void bad_buffers_check_release(clprim_context *ctx, bad_call_buffers *b, const harness_bad_call *row,
                                      unsigned may_change)
{
    unsigned char *now = harness_malloc(HARNESS_BAD_BYTES);
    for (int i = HB_A; i < HB_COUNT; i++) {
        if (!b->init[i] || (may_change & (1u << i)))
            continue;
        cl_int err;
        size_t bytes = HARNESS_BAD_BYTES;
        if (i == HB_IMAGE) {
            const size_t origin[3] = {0, 0, 0}, region[3] = {BAD_IMAGE_SIDE, BAD_IMAGE_SIDE, 1};
            bytes = BAD_IMAGE_SIDE * BAD_IMAGE_SIDE * 4;
            err = clEnqueueReadImage(clprim_queue(ctx), b->buf[i], CL_TRUE, origin, region, 0, 0, now, 0, NULL,
                                     NULL);
        } else {
            err = clEnqueueReadBuffer(i == HB_FOREIGN ? b->other_queue : clprim_queue(ctx), b->buf[i], CL_TRUE, 0,
                                      bytes, now, 0, NULL, NULL);
        }
        ck_assert_msg(err == CL_SUCCESS, "%s: reading buffer %s back: %s", row->what, bad_buffer_names[i],
                      clprim_cl_error_name(err));
        ck_assert_msg(memcmp(now, b->init[i], bytes) == 0, "%s: buffer %s changed", row->what,
                      bad_buffer_names[i]);
    }
    free(now);
    /* Sub-buffers first: they hold a reference to A. */
    for (int i = HB_COUNT - 1; i > HB_NULL; i--) {
        if (b->buf[i])
            clReleaseMemObject(b->buf[i]);
        free(b->init[i]);
        b->buf[i] = NULL;
        b->init[i] = NULL;
    }
}

static int uses_image(const harness_bad_call *row)
{
    for (int i = 0; i < 4; i++)
        if (row->buf[i] == HB_IMAGE)
            return 1;
    return 0;
}

/* The buffers (a bit per harness_buf) a successful row may change: those it
 * writes, and HB_A through its sub-buffers. */
static unsigned written_buffers(const harness_bad_call *row)
{
    unsigned bufs = 0;
    for (int i = 0; i < 4; i++) {
        if (row->want != CLPRIM_SUCCESS || !(row->written & HB_ARG(i)))
            continue;
        bufs |= 1u << row->buf[i];
        if (row->buf[i] == HB_A_AT_0 || row->buf[i] == HB_A_AT_ALIGN)
            bufs |= 1u << HB_A;
    }
    return bufs;
}

static void check_message(const harness_bad_call *row, const char *msg, const char *word)
{
    if (word)
        ck_assert_msg(msg && strcasestr(msg, word), "%s: message \"%s\" does not mention \"%s\"", row->what,
                      msg ? msg : "(null)", word);
}

void harness_run_bad_calls(const harness_bad_call *rows, size_t count, harness_bad_caller call)
{
    uint64_t rng = harness_rng(0xBAD);
    FOR_EACH_DEVICE(ctx) {
        bad_call_buffers b;
        bad_buffers_open(ctx, &b);
        for (size_t r = 0; r < count; r++) {
            const harness_bad_call *row = &rows[r];
            if (uses_image(row) && !b.images)
                continue;
            bad_buffers_create(ctx, &b, &rng);
            cl_mem args[4];
            for (int i = 0; i < 4; i++)
                args[i] = b.buf[row->buf[i]];
            clprim_context *use = row->null_ctx ? NULL : ctx;
            const int had_fp64 = ctx->has_fp64;
            const unsigned compiled = ctx->programs_compiled;
            if (row->without_fp64)
                ctx->has_fp64 = 0;
            clprim_status got = call(use, row, args);
            ctx->has_fp64 = had_fp64;
            const char *msg = clprim_last_error(use);
            ck_assert_msg(got == row->want, "%s: status %s, want %s (message: \"%s\")", row->what,
                          clprim_status_name(got), clprim_status_name(row->want), msg ? msg : "(null)");
            if (row->want == CLPRIM_SUCCESS) {
                ck_assert_msg(msg && !*msg, "%s: succeeded but left the message \"%s\"", row->what,
                              msg ? msg : "(null)");
            } else {
                ck_assert_msg(row->needle, "%s: a failing row names a word of its message", row->what);
                check_message(row, msg, row->needle);
                check_message(row, msg, row->also);
            }
            if (row->without_fp64)
                ck_assert_msg(ctx->programs_compiled == compiled, "%s: compiled %u programs without fp64",
                              row->what, ctx->programs_compiled - compiled);
            bad_buffers_check_release(ctx, &b, row, written_buffers(row));
        }
        bad_buffers_close(&b);
    }
}

/* ---- Environment ---- */

#define MAX_ENV 32
static struct {
    char *name;
    char *old; /* NULL: was unset */
} saved_env[MAX_ENV];
static size_t saved_count;

void harness_env_set(const char *name, const char *value)
{
    size_t i;
    for (i = 0; i < saved_count; i++)
        if (strcmp(saved_env[i].name, name) == 0)
            break;
    if (i == saved_count) {
        ck_assert_msg(saved_count < MAX_ENV, "too many environment changes");
        const char *old = getenv(name);
        saved_env[i].name = strdup(name);
        saved_env[i].old = old ? strdup(old) : NULL;
        saved_count++;
    }
    if (value)
        ck_assert_int_eq(setenv(name, value, 1), 0);
    else
        ck_assert_int_eq(unsetenv(name), 0);
}

void harness_env_restore(void)
{
    while (saved_count > 0) {
        saved_count--;
        if (saved_env[saved_count].old)
            setenv(saved_env[saved_count].name, saved_env[saved_count].old, 1);
        else
            unsetenv(saved_env[saved_count].name);
        free(saved_env[saved_count].name);
        free(saved_env[saved_count].old);
    }
}

/* ---- Temporary folders ---- */

char *harness_tempdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    size_t len = strlen(base) + strlen(tag) + 32;
    char *path = harness_malloc(len);
    snprintf(path, len, "%s/clprim-%s-XXXXXX", base, tag);
    ck_assert_msg(mkdtemp(path) != NULL, "mkdtemp(%s): %s", path, strerror(errno));
    return path;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void harness_rmtree(const char *path)
{
    if (path)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- OpenCL object leaks ---- */

void harness_release_checked(clprim_context *ctx)
{
    if (!ctx)
        return;
    cl_context cl = ctx->context;
    ck_assert_int_eq(clFinish(ctx->queue), CL_SUCCESS);
    ck_assert_int_eq(clRetainContext(cl), CL_SUCCESS);
    clprim_release(ctx);
    /* PoCL drops the references of finished commands from its own threads, a little
     * after clFinish returns: wait up to 2 s for the count to settle. A leak never does. */
    cl_uint refs = 0;
    for (int waited_ms = 0;; waited_ms++) {
        ck_assert_int_eq(clGetContextInfo(cl, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
        if (refs <= 1 || waited_ms >= 2000)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    ck_assert_msg(refs == 1,
                  "after clprim_release the OpenCL context still has %u references beyond the test's own: "
                  "buffers, programs, kernels or queues leaked",
                  refs - 1);
    clReleaseContext(cl);
}

void harness_assert_single_ref(cl_mem buf, const char *what)
{
    cl_uint refs = 0;
    for (int waited_ms = 0;; waited_ms++) { /* as above: finished commands let go late */
        ck_assert_int_eq(clGetMemObjectInfo(buf, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
        if (refs <= 1 || waited_ms >= 2000)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    ck_assert_msg(refs == 1, "%s has %u references after the call; the library kept %u", what, refs, refs - 1);
}

/* ---- Files ---- */

const char *harness_kernel_source_dir(void)
{
#ifdef HARNESS_KERNEL_SOURCE_DIR
    return HARNESS_KERNEL_SOURCE_DIR;
#else
    return CLPRIM_SOURCE_KERNEL_DIR;
#endif
}

void harness_write_file(const char *path, const void *data, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
    ck_assert_msg(fwrite(data, 1, bytes, f) == bytes, "writing %s failed", path);
    ck_assert_msg(fclose(f) == 0, "closing %s failed", path);
}

void *harness_read_file(const char *path, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s: %s", path, strerror(errno));
    size_t cap = 4096, used = 0;
    char *data = harness_malloc(cap + 1);
    for (;;) {
        if (used == cap) {
            cap *= 2;
            data = realloc(data, cap + 1);
            ck_assert_ptr_nonnull(data);
        }
        size_t got = fread(data + used, 1, cap - used, f);
        used += got;
        if (got == 0)
            break;
    }
    ck_assert_msg(!ferror(f), "reading %s failed", path);
    fclose(f);
    data[used] = '\0';
    if (bytes)
        *bytes = used;
    return data;
}

void harness_copy_file(const char *from, const char *to)
{
    size_t bytes;
    void *data = harness_read_file(from, &bytes);
    harness_write_file(to, data, bytes);
    free(data);
}

/* ---- Tuning and levels ---- */

int harness_scan_levels(const clprim_tuning *t, size_t n, size_t elem_size)
{
    int levels = 1;
    size_t partial_bytes = 0, count = n;
    for (clprim_split s = clprim_split_range(t, count); s.groups > 1; s = clprim_split_range(t, count)) {
        CHECK(s.groups < count, "clprim_split_range(wg=%zu, items=%zu, groups=%zu, n=%zu) makes %zu groups: "
              "no progress", t->work_group_size, t->items_per_thread, t->groups, count, s.groups);
        partial_bytes += s.groups * elem_size;
        count = s.groups;
        levels++;
    }
    size_t scratch = clprim_scan_scratch_bytes(t, n, elem_size);
    CHECK((levels == 1) == (scratch == 0) && scratch >= partial_bytes,
          "n=%zu: %d levels with %zu bytes of partials, but clprim_scan_scratch_bytes says %zu", n, levels,
          partial_bytes, scratch);
    return levels;
}

size_t harness_first_size_with_levels(const clprim_tuning *t, int levels, size_t limit)
{
    for (size_t n = 1; n <= limit; n++)
        if (harness_scan_levels(t, n, 4) == levels)
            return n;
    return 0;
}

const char *harness_tuning_text(const clprim_context *ctx)
{
    static char text[96];
    clprim_tuning t = clprim_get_tuning(ctx);
    snprintf(text, sizeof text, "wg=%zu,items=%zu,groups=%zu,form=%s", t.work_group_size, t.items_per_thread,
             t.groups, t.form == CLPRIM_FORM_ONE_SWEEP ? "one-sweep" : "multi-pass");
    return text;
}

clprim_status harness_tune(clprim_context *ctx, const clprim_tuning *t)
{
    const clprim_status s = clprim_set_tuning(ctx, t);
    build_flags_for_shape(ctx);
    return s;
}

void harness_set_tuning(clprim_context *ctx, size_t wg, size_t items, size_t groups)
{
    clprim_tuning t = {wg, items, groups, test_form()};
    clprim_status s = harness_tune(ctx, &t);
    ck_assert_msg(s == CLPRIM_SUCCESS, "clprim_set_tuning(wg=%zu, items=%zu, groups=%zu): %s: %s", wg, items,
                  groups, clprim_status_name(s), clprim_last_error(ctx));
    clprim_tuning got = clprim_get_tuning(ctx);
    ck_assert_msg(got.work_group_size == wg && got.items_per_thread == items && got.groups == groups,
                  "clprim_get_tuning after clprim_set_tuning(%zu, %zu, %zu) gives %s", wg, items, groups,
                  harness_tuning_text(ctx));
}

void harness_set_form(clprim_context *ctx, clprim_form form)
{
    clprim_tuning t = clprim_get_tuning(ctx);
    t.form = form;
    const clprim_status s = harness_tune(ctx, &t);
    ck_assert_msg(s == CLPRIM_SUCCESS, "clprim_set_tuning(form %d): %s", (int)form, clprim_last_error(ctx));
}

/* ---- Running ---- */

int harness_run(Suite *s)
{
    harness_seed(); /* once, in the parent, before tests fork */
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void harness_copy_common_kernels(const char *dir)
{
    const char *files[] = {"constants.h", "types.h", "expression.cl"};
    char from[4300], to[4300];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(from, sizeof from, "%s/%s", harness_kernel_source_dir(), files[i]);
        snprintf(to, sizeof to, "%s/%s", dir, files[i]);
        harness_copy_file(from, to);
    }
    /* The whole block layer, whatever it holds. */
    snprintf(to, sizeof to, "%s/block", dir);
    ck_assert_int_eq(mkdir(to, 0700), 0);
    snprintf(from, sizeof from, "%s/block", harness_kernel_source_dir());
    DIR *block = opendir(from);
    ck_assert_msg(block != NULL, "cannot list %s", from);
    for (struct dirent *e; (e = readdir(block));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(from, sizeof from, "%s/block/%s", harness_kernel_source_dir(), e->d_name);
        snprintf(to, sizeof to, "%s/block/%s", dir, e->d_name);
        harness_copy_file(from, to);
    }
    closedir(block);
}

void harness_fill_key_runs(clprim_type t, void *keys, size_t n, size_t mean, uint64_t *state)
{
    uint64_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && mean > 0 && harness_rand(state) % mean == 0)
            run++;
        if (t == CLPRIM_INT64 || t == CLPRIM_UINT64)
            ((uint64_t *)keys)[i] = (run % 3) << 40 | run % 5;
        else
            ((uint32_t *)keys)[i] = (uint32_t)(run % 3);
    }
}

void harness_fill_exact_sums(clprim_type t, void *data, size_t n, uint64_t *state)
{
    harness_fill_random(t, data, n, state);
    for (size_t i = 0; i < n; i++) {
        const int v = (int)(harness_rand(state) % 201) - 100;
        if (t == CLPRIM_FLOAT)
            ((float *)data)[i] = (float)v;
        else if (t == CLPRIM_DOUBLE)
            ((double *)data)[i] = (double)v;
    }
}

/* ---- Every primitive, through the workloads of `clprim bench` ---- */

const clprim_primitive *harness_primitive_named(const char *name)
{
    for (size_t i = 0; clprim_primitives[i]; i++)
        if (!strcmp(clprim_primitives[i]->name, name))
            return clprim_primitives[i];
    return NULL;
}

static int is_photo_kind(const workload_kind *kind)
{
    for (size_t k = 0; workload_photo_kinds[k]; k++)
        if (workload_photo_kinds[k] == kind)
            return 1;
    return 0;
}

clprim_type harness_workload_type(const clprim_context *ctx, const workload_kind *kind, size_t turn)
{
    if (is_photo_kind(kind))
        return CLPRIM_UINT8; /* packed RGB8 pixels */
    size_t types = 0;
    while (workload_type_at(types))
        types++;
    for (size_t k = 0; k < types; k++) {
        clprim_type t;
        workload_parse_type(workload_type_at((turn + k) % types), &t);
        if ((!kind->supports || kind->supports(t)) && (t != CLPRIM_DOUBLE || ctx->has_fp64))
            return t;
    }
    return CLPRIM_INT32;
}

/* A photograph of random pixels in slow gradients (k-means and Otsu see
 * structure, not only noise). */
static unsigned char *random_photo(size_t width, size_t height)
{
    unsigned char *rgb = malloc(width * height * 3);
    uint64_t rng = harness_rng(991);
    for (size_t i = 0; rgb && i < width * height * 3; i++)
        rgb[i] = (unsigned char)((i / 3 % width) * 255 / width / (1 + i % 3) + (harness_rand(&rng) >> 60));
    return rgb;
}

int harness_run_workload(clprim_context *ctx, const workload_kind *kind, clprim_type t, size_t n, char *why,
                         size_t size)
{
    workload w;
    memset(&w, 0, sizeof w);
    workload_set_seed(harness_seed());
    int ok;
    if (is_photo_kind(kind)) {
        const size_t width = 37, height = n / 37 ? n / 37 : 1;
        unsigned char *rgb = random_photo(width, height);
        ok = rgb && workload_prepare_photo(&w, kind, ctx, rgb, width, height);
        free(rgb);
    } else {
        ok = workload_prepare(&w, kind, ctx, t, n);
    }
    if (!ok) {
        snprintf(why, size, "%s: preparing %zu elements failed", kind->name, n);
        workload_release(&w);
        return 0;
    }
    const clprim_status s = kind->run(&w);
    if (s != CLPRIM_SUCCESS) {
        snprintf(why, size, "%s: %s: %s", kind->name, clprim_status_name(s), clprim_last_error(ctx));
        workload_release(&w);
        return 0;
    }
    clFinish(clprim_queue(ctx));
    kind->cpu(&w);
    char reason[256] = "";
    ok = workload_fetch(&w) && kind->check(&w, reason, sizeof reason);
    if (!ok)
        snprintf(why, size, "%s, %s, n = %zu: %s", kind->name, workload_type_name(t), n, reason);
    workload_release(&w);
    return ok;
}
