/* Contexts: device choice, status names and messages, tuning (API and
 * $CLPRIM_TUNING), finding and building kernels ($CLPRIM_KERNEL_PATH, build
 * failures), the disk cache ($CLPRIM_CACHE_DIR), and contexts on a user's queue.
 * Tests that change the environment restore it and make fresh contexts. */
#define _GNU_SOURCE /* strcasestr */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "reference.h"

/* The spec of the first device under test, and a context on it. */
static clprim_context *first_context(void)
{
    return harness_context(0);
}

/* "P:D" of a device, counted the way the library counts (every device of every platform). */
static void device_index_spec(cl_device_id device, char *spec, size_t size)
{
    cl_platform_id platforms[16];
    cl_uint np = 0;
    ck_assert_int_eq(clGetPlatformIDs(16, platforms, &np), CL_SUCCESS);
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devices[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 64; d++)
            if (devices[d] == device) {
                snprintf(spec, size, "%u:%u", p, d);
                return;
            }
    }
    ck_abort_msg("device not found among the platforms");
}

static clprim_context *create_ok(const char *spec)
{
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec);
    ck_assert_msg(s == CLPRIM_SUCCESS, "clprim_create(%s%s%s): %s: %s", spec ? "\"" : "", spec ? spec : "NULL",
                  spec ? "\"" : "", clprim_status_name(s), clprim_last_error(NULL));
    ck_assert_ptr_nonnull(ctx);
    ck_assert_str_eq(clprim_last_error(NULL), "");
    return ctx;
}

/* A failed clprim_create: status, *ctx NULL, and the thread's message mentions needle. */
static void create_fails(const char *spec, clprim_status want, const char *needle)
{
    clprim_context *ctx = (clprim_context *)&ctx; /* must be overwritten with NULL */
    clprim_status s = clprim_create(&ctx, spec);
    harness_assert_error(NULL, s, want, needle);
    ck_assert_ptr_null(ctx);
}

/* Scans 1000 int32 with sum and checks; returns the status of the scan. */
static clprim_status scan_check(clprim_context *ctx)
{
    enum { N = 1000 };
    int32_t data[N], out[N];
    uint64_t rng = harness_seed();
    harness_fill_random(CLPRIM_INT32, data, N, &rng);
    cl_mem src = harness_buffer(ctx, sizeof data, data), dst = harness_buffer(ctx, sizeof data, NULL);
    clprim_status s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, dst, 0, N, 0, NULL, NULL);
    harness_read(ctx, dst, 0, sizeof out, out);
    if (s == CLPRIM_SUCCESS) {
        char msg[512];
        ck_assert_msg(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 0, data, out, N, msg, sizeof msg) == N, "%s",
                      msg);
    } else {
        ck_assert_msg(harness_all_sentinel(out, sizeof out), "a failed scan wrote dst");
    }
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    return s;
}

/* ---- Devices ---- */

START_TEST(device_specs)
{
    clprim_context *base = first_context();
    cl_device_id device = clprim_device(base);
    char spec[32];
    device_index_spec(device, spec, sizeof spec);

    clprim_context *ctx = create_ok(spec);
    ck_assert_ptr_eq(clprim_device(ctx), device);
    ck_assert_ptr_nonnull(clprim_queue(ctx));
    harness_release_checked(ctx);

    /* A case-changed piece of the device's name. */
    char name[64];
    size_t len = strlen(base->device_name);
    ck_assert_uint_gt(len, 4);
    snprintf(name, sizeof name, "%.*s", (int)(len > 12 ? 10 : len - 2), base->device_name + (len > 12 ? 2 : 1));
    for (char *p = name; *p; p++)
        *p = (char)(islower((unsigned char)*p) ? toupper((unsigned char)*p) : tolower((unsigned char)*p));
    ctx = create_ok(name);
    ck_assert_msg(strcasestr(ctx->device_name, name) != NULL, "\"%s\" chose %s", name, ctx->device_name);
    harness_release_checked(ctx);

    /* The device type of the first device under test, by its word. */
    const char *word = (base->device_type & CL_DEVICE_TYPE_GPU) ? "gpu" : (base->device_type & CL_DEVICE_TYPE_CPU) ? "cpu" : NULL;
    if (word) {
        ctx = create_ok(word);
        ck_assert(ctx->device_type & base->device_type);
        harness_release_checked(ctx);
        char upper[8];
        snprintf(upper, sizeof upper, "%s", word);
        for (char *p = upper; *p; p++)
            *p = (char)toupper((unsigned char)*p);
        ctx = create_ok(upper);
        harness_release_checked(ctx);
    }
    /* NULL chooses some device and works. */
    harness_env_set("CLPRIM_DEVICE", NULL);
    ctx = create_ok(NULL);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    harness_release_checked(ctx);
    harness_env_restore();
    harness_release_checked(base);
}
END_TEST

START_TEST(device_from_environment)
{
    clprim_context *base = first_context();
    char spec[32];
    device_index_spec(clprim_device(base), spec, sizeof spec);

    harness_env_set("CLPRIM_DEVICE", spec);
    clprim_context *ctx = create_ok(NULL);
    ck_assert_ptr_eq(clprim_device(ctx), clprim_device(base));
    harness_release_checked(ctx);
    ctx = create_ok(""); /* "" is like NULL */
    ck_assert_ptr_eq(clprim_device(ctx), clprim_device(base));
    harness_release_checked(ctx);

    /* An explicit spec wins over the variable. */
    harness_env_set("CLPRIM_DEVICE", "no-such-device-anywhere");
    ctx = create_ok(spec);
    harness_release_checked(ctx);
    create_fails(NULL, CLPRIM_NO_DEVICE, "$CLPRIM_DEVICE");
    create_fails(NULL, CLPRIM_NO_DEVICE, "no-such-device-anywhere");
    harness_env_restore();
    harness_release_checked(base);
}
END_TEST

START_TEST(device_no_match)
{
    clprim_context *base = first_context();
    char spec[32];
    device_index_spec(clprim_device(base), spec, sizeof spec);

    create_fails("zz-no-such-device-zz", CLPRIM_NO_DEVICE, "zz-no-such-device-zz");
    /* The message lists the devices there are, by index and name. */
    const char *msg = clprim_last_error(NULL);
    ck_assert_msg(strstr(msg, spec) && strstr(msg, base->device_name), "message does not list %s %s: %s", spec,
                  base->device_name, msg);
    /* Indices past every device, and malformed ones: each names no device,
     * never wraps or reads as another ("4294967296:0" once read as 0:0). */
    static const char *const bad_indices[] = {"99:0", "0:99", "4294967296:0", "0:4294967296",
                                              "18446744073709551616:0", "1:", ":1", ":", "1:2:3", "-1:0",
                                              "0:-0", "+0:0", " 0:0", "0:0 ", "0 :0", "00:"};
    for (size_t i = 0; i < sizeof bad_indices / sizeof bad_indices[0]; i++)
        create_fails(bad_indices[i], CLPRIM_NO_DEVICE, bad_indices[i]);
    /* Leading zeros are still the index. */
    char padded[40];
    snprintf(padded, sizeof padded, "0%s", spec);
    harness_release_checked(create_ok(padded));
    /* A later success clears the thread's message. */
    harness_release_checked(create_ok(spec));
    ck_assert_str_eq(clprim_last_error(NULL), "");
    ck_assert_int_eq(clprim_last_cl_error(NULL), CL_SUCCESS);
    harness_release_checked(base);
}
END_TEST

START_TEST(create_null_output)
{
    clprim_status s = clprim_create(NULL, "cpu");
    harness_assert_error(NULL, s, CLPRIM_INVALID_ARGUMENT, "ctx");
    s = clprim_create_with_queue(NULL, NULL);
    harness_assert_error(NULL, s, CLPRIM_INVALID_ARGUMENT, "ctx");
    clprim_context *ctx = (clprim_context *)&s;
    s = clprim_create_with_queue(&ctx, NULL);
    harness_assert_error(NULL, s, CLPRIM_INVALID_ARGUMENT, "queue");
    ck_assert_ptr_null(ctx);
    /* NULL contexts everywhere else. */
    clprim_release(NULL);
    ck_assert_ptr_null(clprim_queue(NULL));
    ck_assert_ptr_null(clprim_device(NULL));
    ck_assert_ptr_null(clprim_cl_context(NULL));
    clprim_tuning none = clprim_get_tuning(NULL);
    ck_assert_uint_eq(none.work_group_size + none.items_per_thread + none.groups, 0);
    clprim_tuning t = {4, 2, 8};
    s = clprim_set_tuning(NULL, &t);
    harness_assert_error(NULL, s, CLPRIM_INVALID_ARGUMENT, "ctx");
}
END_TEST

START_TEST(status_names)
{
    static const char *names[] = {"CLPRIM_SUCCESS",         "CLPRIM_INVALID_ARGUMENT", "CLPRIM_BUFFER_TOO_SMALL",
                                  "CLPRIM_UNSUPPORTED",     "CLPRIM_NO_DEVICE",        "CLPRIM_KERNEL_NOT_FOUND",
                                  "CLPRIM_BUILD_FAILED",    "CLPRIM_OUT_OF_MEMORY",    "CLPRIM_OPENCL_ERROR",
                                  "CLPRIM_CONTEXT_BUSY"};
    for (int s = 0; s < (int)(sizeof names / sizeof names[0]); s++)
        ck_assert_str_eq(clprim_status_name((clprim_status)s), names[s]);
    ck_assert_int_eq(CLPRIM_OPENCL_ERROR, 8);
    ck_assert_int_eq(CLPRIM_CONTEXT_BUSY, 9);
    ck_assert_str_eq(clprim_status_name((clprim_status)10), "CLPRIM_UNKNOWN_STATUS");
    ck_assert_str_eq(clprim_status_name((clprim_status)-1), "CLPRIM_UNKNOWN_STATUS");
    ck_assert_str_eq(clprim_status_name((clprim_status)1000), "CLPRIM_UNKNOWN_STATUS");
}
END_TEST

/* The running library's version is the header's, and the numbers spell it. */
START_TEST(version)
{
    char spelled[64];
    snprintf(spelled, sizeof spelled, "%d.%d.%d", CLPRIM_VERSION_MAJOR, CLPRIM_VERSION_MINOR, CLPRIM_VERSION_PATCH);
    ck_assert_str_eq(clprim_version_string(), CLPRIM_VERSION_STRING);
    ck_assert_str_eq(clprim_version_string(), spelled);
}
END_TEST

/* ---- Tuning ---- */

START_TEST(tuning_api)
{
    clprim_context *ctx = first_context();
    const clprim_tuning dflt = clprim_get_tuning(ctx);
    ck_assert_msg(dflt.work_group_size && !(dflt.work_group_size & (dflt.work_group_size - 1)),
                  "default work-group size %zu", dflt.work_group_size);
    ck_assert_uint_gt(dflt.items_per_thread, 0);
    ck_assert_uint_gt(dflt.groups, 0);

    harness_set_tuning(ctx, 4, 2, 64);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    /* Zero fields take the device's default, not the current value. */
    clprim_tuning partial = {0, 4, 0, CLPRIM_FORM_DEFAULT};
    ck_assert_int_eq(clprim_set_tuning(ctx, &partial), CLPRIM_SUCCESS);
    clprim_tuning got = clprim_get_tuning(ctx);
    ck_assert_uint_eq(got.work_group_size, dflt.work_group_size);
    ck_assert_uint_eq(got.items_per_thread, 4);
    ck_assert_uint_eq(got.groups, dflt.groups);

    /* Refusals leave the tuning as it was. */
    harness_set_tuning(ctx, 8, 2, 16);
    struct {
        clprim_tuning t;
        const char *needle;
    } bad[] = {
        {{3, 2, 8}, "power of two"},
        {{12, 1, 8}, "power of two"},
        {{ctx->max_work_group_size * 2, 1, 8}, "work_group_size"},
        {{1, 1, 8}, "tile"},
        {{4, 1025, 8}, "items_per_thread"},
        {{4, 2, 65537}, "groups"},
        {{4, 2, 8, (clprim_form)3}, "form 3"},
        {{4, 2, 8, (clprim_form)-1}, "form -1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clprim_status s = clprim_set_tuning(ctx, &bad[i].t);
        harness_assert_error(ctx, s, CLPRIM_INVALID_ARGUMENT, bad[i].needle);
        got = clprim_get_tuning(ctx);
        ck_assert_msg(got.work_group_size == 8 && got.items_per_thread == 2 && got.groups == 16,
                      "a refused tuning changed it to %s", harness_tuning_text(ctx));
    }
    /* Too much local memory: the largest valid work-group with the most items. */
    size_t wg = 1;
    while (wg * 2 <= ctx->max_work_group_size)
        wg *= 2;
    clprim_tuning huge = {wg, 1024, 8, CLPRIM_FORM_DEFAULT};
    if ((wg * 1024 + wg * 1024 / 32 + wg) * 8 > ctx->local_mem_size) {
        clprim_status s = clprim_set_tuning(ctx, &huge);
        harness_assert_error(ctx, s, CLPRIM_INVALID_ARGUMENT, "local memory");
        got = clprim_get_tuning(ctx);
        ck_assert_uint_eq(got.work_group_size, 8);
    } else {
        fprintf(stderr, "note: %s has %llu bytes of local memory; no tuning exceeds it\n", ctx->device_name,
                (unsigned long long)ctx->local_mem_size);
    }

    /* The form: a value is kept, 0 is the device's. */
    clprim_tuning with_form = {8, 2, 16, dflt.form == CLPRIM_FORM_ONE_SWEEP ? CLPRIM_FORM_MULTI_PASS
                                                                            : CLPRIM_FORM_ONE_SWEEP};
    ck_assert_int_eq(clprim_set_tuning(ctx, &with_form), CLPRIM_SUCCESS);
    ck_assert_int_eq(clprim_get_tuning(ctx).form, with_form.form);
    with_form.form = CLPRIM_FORM_DEFAULT;
    ck_assert_int_eq(clprim_set_tuning(ctx, &with_form), CLPRIM_SUCCESS);
    ck_assert_int_eq(clprim_get_tuning(ctx).form, dflt.form);
    ck_assert_int_ne(dflt.form, CLPRIM_FORM_DEFAULT);

    /* NULL restores the defaults. */
    ck_assert_int_eq(clprim_set_tuning(ctx, NULL), CLPRIM_SUCCESS);
    got = clprim_get_tuning(ctx);
    ck_assert(memcmp(&got, &dflt, sizeof got) == 0);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    harness_release_checked(ctx);
}
END_TEST

START_TEST(tuning_environment)
{
    const char *spec = harness_device_spec(0);
    harness_env_set("CLPRIM_TUNING", "wg=4,items=2,groups=64");
    clprim_context *ctx = create_ok(spec);
    clprim_tuning got = clprim_get_tuning(ctx);
    ck_assert_uint_eq(got.work_group_size, 4);
    ck_assert_uint_eq(got.items_per_thread, 2);
    ck_assert_uint_eq(got.groups, 64);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    /* NULL goes back to the device's table, not to the variable. */
    clprim_tuning before = got;
    ck_assert_int_eq(clprim_set_tuning(ctx, NULL), CLPRIM_SUCCESS);
    got = clprim_get_tuning(ctx);
    ck_assert(got.work_group_size != before.work_group_size || got.items_per_thread != before.items_per_thread ||
              got.groups != before.groups);
    harness_release_checked(ctx);

    harness_env_set("CLPRIM_TUNING", "items=8");
    ctx = create_ok(spec);
    ck_assert_uint_eq(clprim_get_tuning(ctx).items_per_thread, 8);
    harness_release_checked(ctx);

    /* The sort's form, by name, beside the numbers. */
    static const struct {
        const char *text;
        clprim_form form;
    } forms[] = {{"form=one-sweep", CLPRIM_FORM_ONE_SWEEP},
                 {"form=multi-pass,wg=4", CLPRIM_FORM_MULTI_PASS},
                 {"wg=4,form=one-sweep,items=2", CLPRIM_FORM_ONE_SWEEP}};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        harness_env_set("CLPRIM_TUNING", forms[i].text);
        ctx = create_ok(spec);
        ck_assert_msg(clprim_get_tuning(ctx).form == forms[i].form, "\"%s\" gave %s", forms[i].text,
                      harness_tuning_text(ctx));
        harness_release_checked(ctx);
    }

    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"wg=4,items", "items"},   {"wg=abc", "wg=abc"},        {"foo=3", "foo"},
        {"wg=0", "wg=0"},          {"wg=3", "power of two"},    {"wg=4;items=2", ";items=2"},
        {"wg=-4", NULL},        {"groups=70000", "groups"},  {",", ","},
        {"form=fast", "fast"},     {"form=", "form="},          {"form=one-sweep;wg=4", ";wg=4"},
        /* Signs are no part of a number: "-18446744073709551608" would wrap to 8. */
        {"wg=-18446744073709551608", "wg=-18446744073709551608"}, {"wg=+8", "wg=+8"}, {"items= 2", "items= 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        harness_env_set("CLPRIM_TUNING", bad[i].text);
        create_fails(spec, CLPRIM_INVALID_ARGUMENT, "CLPRIM_TUNING");
        harness_assert_error(NULL, CLPRIM_INVALID_ARGUMENT, CLPRIM_INVALID_ARGUMENT, bad[i].needle);
    }
    harness_env_set("CLPRIM_TUNING", ""); /* empty: the defaults */
    ctx = create_ok(spec);
    harness_release_checked(ctx);
    harness_env_restore();
}
END_TEST

/* ---- Kernels ---- */

START_TEST(kernel_path_missing_folder)
{
    const char *spec = harness_device_spec(0);
    char *tmp = harness_tempdir("kpath");
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/does-not-exist", tmp);
    harness_env_set("CLPRIM_KERNEL_PATH", missing);
    harness_env_set("CLPRIM_CACHE_DIR", "");
    clprim_context *ctx = create_ok(spec);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_KERNEL_NOT_FOUND);
    harness_assert_error(ctx, CLPRIM_KERNEL_NOT_FOUND, CLPRIM_KERNEL_NOT_FOUND, missing);
    int32_t result = 7;
    cl_mem buf = harness_buffer(ctx, 64, NULL);
    clprim_status s = clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_SUM, buf, 0, 16, &result, 0, NULL);
    harness_assert_error(ctx, s, CLPRIM_KERNEL_NOT_FOUND, missing);
    ck_assert_int_eq(result, 7);
    clReleaseMemObject(buf);
    harness_release_checked(ctx);

    /* A folder that exists but lacks the file: the search goes on to the source tree. */
    harness_env_set("CLPRIM_KERNEL_PATH", tmp);
    ctx = create_ok(spec);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    harness_release_checked(ctx);
    harness_env_restore();
    harness_rmtree(tmp);
    free(tmp);
}
END_TEST

/* A folder with the block layer (and its includes) and a scan.cl that does not compile. */
START_TEST(kernel_build_failure)
{
    const char *spec = harness_device_spec(0);
    char *tmp = harness_tempdir("broken");
    char from[4096], to[4096];
    harness_copy_common_kernels(tmp);
    snprintf(from, sizeof from, "%s/scan.cl", harness_kernel_source_dir());
    size_t bytes;
    char *text = harness_read_file(from, &bytes);
    const char *broken_line = "\nthis_is_not_opencl clprim_broken_marker(;\n";
    size_t total = bytes + strlen(broken_line) + 1;
    char *broken = harness_malloc(total);
    snprintf(broken, total, "%s%s", text, broken_line);
    snprintf(to, sizeof to, "%s/scan.cl", tmp);
    harness_write_file(to, broken, strlen(broken));
    free(text);
    free(broken);

    harness_env_set("CLPRIM_KERNEL_PATH", tmp);
    harness_env_set("CLPRIM_CACHE_DIR", "");
    clprim_context *ctx = create_ok(spec);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_BUILD_FAILED);
    const char *msg = clprim_last_error(ctx);
    harness_assert_error(ctx, CLPRIM_BUILD_FAILED, CLPRIM_BUILD_FAILED, "scan.cl");
    harness_assert_error(ctx, CLPRIM_BUILD_FAILED, CLPRIM_BUILD_FAILED, tmp);
    /* The compiler's log is there: it names the bad token. */
    ck_assert_msg(strstr(msg, "clprim_broken_marker") || strstr(msg, "this_is_not_opencl"),
                  "no compiler log in the message: %s", msg);
    ck_assert_int_ne(clprim_last_cl_error(ctx), CL_SUCCESS);
    /* Reduce does not need scan.cl: it still works from the source tree. */
    int32_t ones[16], sum = 0;
    for (int i = 0; i < 16; i++)
        ones[i] = 1;
    cl_mem buf = harness_buffer(ctx, sizeof ones, ones);
    ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_SUM, buf, 0, 16, &sum, 0, NULL), CLPRIM_SUCCESS);
    ck_assert_int_eq(sum, 16);
    ck_assert_int_eq(clprim_last_cl_error(ctx), CL_SUCCESS);
    clReleaseMemObject(buf);
    /* The failure repeats (nothing half-built was kept). */
    ck_assert_int_eq(scan_check(ctx), CLPRIM_BUILD_FAILED);
    harness_release_checked(ctx);
    harness_env_restore();
    harness_rmtree(tmp);
    free(tmp);
}
END_TEST

/* A valid scan.cl in the first folder of the path is the one used: this one
 * writes 42 everywhere. An empty folder before it is skipped. */
START_TEST(kernel_path_override)
{
    const char *spec = harness_device_spec(0);
    char *empty = harness_tempdir("empty");
    char *tmp = harness_tempdir("override");
    char to[4096];
    harness_copy_common_kernels(tmp);
    const char *fake =
        "#include \"block/element.cl\"\n"
        "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
        "void scan_chunks(__global const T *src, ulong src_offset, __global T *dst, ulong dst_offset,\n"
        "                 ulong n, ulong chunk, __global const T *seeds, ulong seeds_offset,\n"
        "                 int use_seeds, int exclusive, __global const T *seed, ulong seed_offset,\n"
        "                 int seeded)\n"
        "{\n"
        "    const ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);\n"
        "    for (ulong i = begin + get_local_id(0); i < end; i += WG)\n"
        "        dst[dst_offset + i] = (T)42;\n"
        "}\n";
    snprintf(to, sizeof to, "%s/scan.cl", tmp);
    harness_write_file(to, fake, strlen(fake));
    char path[8192];
    snprintf(path, sizeof path, "%s:%s", empty, tmp);
    harness_env_set("CLPRIM_KERNEL_PATH", path);
    harness_env_set("CLPRIM_TUNING", "form=multi-pass"); /* the scan the fake replaces, on every device */
    char *cache = harness_tempdir("cache-override");
    harness_env_set("CLPRIM_CACHE_DIR", cache);
    clprim_context *ctx = create_ok(spec);
    enum { N = 3000 };
    int32_t out[N];
    cl_mem src = harness_buffer(ctx, sizeof out, NULL), dst = harness_buffer(ctx, sizeof out, NULL);
    ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, dst, 0, N, 0, NULL, NULL), CLPRIM_SUCCESS);
    harness_read(ctx, dst, 0, sizeof out, out);
    for (int i = 0; i < N; i++)
        ck_assert_msg(out[i] == 42, "element %d is %d: the override in %s was not used", i, out[i], tmp);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    harness_release_checked(ctx);
    /* Without the variable the real kernels come back (not the cached fake). */
    harness_env_set("CLPRIM_KERNEL_PATH", NULL);
    ctx = create_ok(spec);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    harness_release_checked(ctx);
    harness_env_restore();
    harness_rmtree(tmp);
    harness_rmtree(empty);
    harness_rmtree(cache);
    free(tmp);
    free(empty);
    free(cache);
}
END_TEST

/* ---- The disk cache ---- */

/* The cache entries of a folder, sorted. Returns the count. */
static size_t cache_entries(const char *dir, char names[][512], size_t max)
{
    size_t count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        ck_assert_msg(count < max, "too many files in %s", dir);
        snprintf(names[count++], 512, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, count, 512, (int (*)(const void *, const void *))strcmp);
    return count;
}

/* A fresh context that scans (int32 sum, two programs) and reduces; returns it. */
static clprim_context *cached_run(const char *spec)
{
    clprim_context *ctx = create_ok(spec);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    return ctx;
}

START_TEST(disk_cache)
{
    const char *spec = harness_device_spec(0);
    char *cache = harness_tempdir("cache");
    harness_env_set("CLPRIM_CACHE_DIR", cache);
    harness_env_set("CLPRIM_KERNEL_PATH", NULL);
    /* The multi-pass scan, on every device: its two programs (reduce.cl and
     * scan.cl) give the entries this test swaps; one-sweep builds one. */
    harness_env_set("CLPRIM_TUNING", "form=multi-pass");

    /* First context: compiles and writes entries. */
    clprim_context *ctx = cached_run(spec);
    ck_assert_uint_gt(ctx->programs_compiled, 0);
    ck_assert_uint_eq(ctx->programs_loaded, 0);
    const unsigned programs = ctx->programs_compiled;
    harness_release_checked(ctx);
    char names[16][512];
    size_t count = cache_entries(cache, names, 16);
    ck_assert_uint_eq(count, programs);

    /* Second context on the same device: loads everything, compiles nothing. */
    ctx = cached_run(spec);
    ck_assert_uint_eq(ctx->programs_compiled, 0);
    ck_assert_uint_eq(ctx->programs_loaded, programs);
    harness_release_checked(ctx);

    /* Truncated entries are rebuilt, not trusted. */
    for (size_t i = 0; i < count; i++) {
        size_t bytes;
        void *data = harness_read_file(names[i], &bytes);
        harness_write_file(names[i], data, bytes / 2);
        free(data);
    }
    ctx = cached_run(spec);
    ck_assert_uint_eq(ctx->programs_compiled, programs);
    ck_assert_uint_eq(ctx->programs_loaded, 0);
    harness_release_checked(ctx);
    ctx = cached_run(spec); /* ... and rewritten */
    ck_assert_uint_eq(ctx->programs_compiled, 0);
    harness_release_checked(ctx);

    /* One flipped byte in the binary. */
    {
        size_t bytes;
        unsigned char *data = harness_read_file(names[0], &bytes);
        data[bytes - bytes / 3] ^= 0x40;
        harness_write_file(names[0], data, bytes);
        free(data);
        ctx = cached_run(spec);
        ck_assert_uint_eq(ctx->programs_compiled, 1);
        harness_release_checked(ctx);
    }

    /* An entry written for another key: another entry's file copied over it. */
    ck_assert_uint_ge(count, 2);
    harness_copy_file(names[1], names[0]);
    ctx = cached_run(spec);
    ck_assert_uint_eq(ctx->programs_compiled, 1);
    ck_assert_uint_eq(ctx->programs_loaded, programs - 1);
    harness_release_checked(ctx);

    /* Garbage and an empty file. */
    harness_write_file(names[0], "not a cache entry", 17);
    harness_write_file(names[1], "", 0);
    ctx = cached_run(spec);
    ck_assert_uint_eq(ctx->programs_compiled, 2);
    harness_release_checked(ctx);

    /* A cache folder that cannot be created costs only the rebuild. */
    char bad[4096];
    snprintf(bad, sizeof bad, "%s/file", cache);
    harness_write_file(bad, "x", 1);
    char below[4200];
    snprintf(below, sizeof below, "%s/sub", bad);
    harness_env_set("CLPRIM_CACHE_DIR", below);
    ctx = cached_run(spec);
    ck_assert_uint_eq(ctx->programs_compiled, programs);
    harness_release_checked(ctx);

    harness_env_restore();
    harness_rmtree(cache);
    free(cache);
}
END_TEST

/* CLPRIM_CACHE_DIR="" disables the disk cache; unset, it follows $XDG_CACHE_HOME. */
START_TEST(disk_cache_disabled_and_default)
{
    const char *spec = harness_device_spec(0);
    char *xdg = harness_tempdir("xdg");
    harness_env_set("XDG_CACHE_HOME", xdg);
    harness_env_set("CLPRIM_CACHE_DIR", "");
    harness_env_set("CLPRIM_KERNEL_PATH", NULL);
    harness_env_set("CLPRIM_TUNING", NULL);
    for (int round = 0; round < 2; round++) {
        clprim_context *ctx = cached_run(spec);
        ck_assert_uint_gt(ctx->programs_compiled, 0);
        ck_assert_uint_eq(ctx->programs_loaded, 0);
        harness_release_checked(ctx);
    }
    char names[16][512], sub[4200];
    snprintf(sub, sizeof sub, "%s/clprim", xdg);
    struct stat st;
    ck_assert_msg(stat(sub, &st) != 0, "%s exists with CLPRIM_CACHE_DIR=\"\"", sub);

    harness_env_set("CLPRIM_CACHE_DIR", NULL);
    clprim_context *ctx = cached_run(spec);
    harness_release_checked(ctx);
    ck_assert_uint_gt(cache_entries(sub, names, 16), 0);
    ctx = cached_run(spec);
    ck_assert_uint_eq(ctx->programs_compiled, 0);
    harness_release_checked(ctx);
    harness_env_restore();
    harness_rmtree(xdg);
    free(xdg);
}
END_TEST

/* ---- Contexts on the user's queue ---- */

START_TEST(create_with_user_queue)
{
    clprim_context *base = first_context();
    cl_device_id device = clprim_device(base);
    cl_int err;
    cl_context cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_command_queue queue = clCreateCommandQueue(cl, device, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);

    cl_mem mine = clCreateBuffer(cl, CL_MEM_READ_WRITE, 64 * 4, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    /* Reference counts include the implementation's own (PoCL keeps one for the
     * queue's last command), so they are compared before and after, both idle. */
    int32_t zero = 0, result = -1;
    ck_assert_int_eq(clEnqueueFillBuffer(queue, mine, &zero, sizeof zero, 0, 64 * 4, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    cl_uint refs = 0, context_refs = 0, queue_refs = 0;
    ck_assert_int_eq(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof queue_refs, &queue_refs, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clGetContextInfo(cl, CL_CONTEXT_REFERENCE_COUNT, sizeof context_refs, &context_refs, NULL),
                     CL_SUCCESS);

    clprim_context *ctx = NULL;
    clprim_status s = clprim_create_with_queue(&ctx, queue);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", clprim_status_name(s), clprim_last_error(NULL));
    ck_assert_ptr_eq(clprim_queue(ctx), queue);
    ck_assert_ptr_eq(clprim_device(ctx), device);
    ck_assert_ptr_eq(clprim_cl_context(ctx), cl);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    /* A buffer the user made in their context is accepted. */
    clEnqueueFillBuffer(queue, mine, &zero, sizeof zero, 0, 64 * 4, 0, NULL, NULL);
    ck_assert_int_eq(clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_MAX, mine, 0, 64, &result, 0, NULL), CLPRIM_SUCCESS);
    ck_assert_int_eq(result, 0);
    clprim_release(ctx);

    /* The queue and context survive, usable, with no reference of libclprim left. */
    ck_assert_int_eq(clEnqueueFillBuffer(queue, mine, &zero, sizeof zero, 0, 64 * 4, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    ck_assert_int_eq(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
    ck_assert_uint_le(refs, queue_refs);
    ck_assert_int_eq(clGetContextInfo(cl, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
    ck_assert_uint_le(refs, context_refs);
    clReleaseMemObject(mine);

    /* Out of order: refused. */
    cl_command_queue_properties supported = 0;
    clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL);
    cl_command_queue ooo = clCreateCommandQueue(cl, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err == CL_SUCCESS) {
        ctx = (clprim_context *)&err;
        s = clprim_create_with_queue(&ctx, ooo);
        harness_assert_error(NULL, s, CLPRIM_UNSUPPORTED, "out-of-order");
        ck_assert_ptr_null(ctx);
        ck_assert_int_eq(clGetCommandQueueInfo(ooo, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL),
                         CL_SUCCESS);
        ck_assert_uint_eq(refs, 1); /* never used, so only the user's reference */
        clReleaseCommandQueue(ooo);
    } else {
        fprintf(stderr, "note: %s cannot make out-of-order queues (%d); that refusal is untested\n",
                base->device_name, (int)err);
    }

    /* $CLPRIM_TUNING applies to these contexts too, and a bad one fails cleanly. */
    harness_env_set("CLPRIM_TUNING", "wg=4,items=2,groups=64");
    s = clprim_create_with_queue(&ctx, queue);
    ck_assert_int_eq(s, CLPRIM_SUCCESS);
    ck_assert_uint_eq(clprim_get_tuning(ctx).groups, 64);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS);
    clprim_release(ctx);
    harness_env_set("CLPRIM_TUNING", "wg=3");
    s = clprim_create_with_queue(&ctx, queue);
    harness_assert_error(NULL, s, CLPRIM_INVALID_ARGUMENT, "CLPRIM_TUNING");
    ck_assert_ptr_null(ctx);
    harness_env_restore();
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    ck_assert_int_eq(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
    ck_assert_uint_le(refs, queue_refs);

    clReleaseCommandQueue(queue);
    clReleaseContext(cl);
    harness_release_checked(base);
}
END_TEST

/* Separate contexts are independent: errors and tuning of one do not touch the other. */
START_TEST(contexts_independent)
{
    clprim_context *a = first_context(), *b = first_context();
    harness_set_tuning(a, 4, 2, 64);
    clprim_status s = clprim_scan(a, (clprim_type)77, CLPRIM_SUM, 0, NULL, 0, NULL, 0, 0, 0, NULL, NULL);
    harness_assert_error(a, s, CLPRIM_INVALID_ARGUMENT, "77");
    ck_assert_str_eq(clprim_last_error(b), "");
    ck_assert_uint_ne(clprim_get_tuning(b).groups, 64);
    ck_assert_int_eq(scan_check(b), CLPRIM_SUCCESS);
    ck_assert_int_eq(scan_check(a), CLPRIM_SUCCESS);
    ck_assert_str_eq(clprim_last_error(a), "");
    harness_release_checked(a);
    harness_release_checked(b);
}
END_TEST

/* Pinned host memory: it carries data both ways, is kept while big enough,
 * grows, survives a trim only as a new allocation, and the scratch goes with
 * the trim too (a scan after it still works). */
START_TEST(pinned_host_and_trim)
{
    clprim_context *ctx = first_context();
    void *host = (void *)1, *again = NULL;
    harness_assert_error(ctx, clprim_pinned_host(ctx, 64, NULL), CLPRIM_INVALID_ARGUMENT, "host is NULL");
    harness_assert_error(NULL, clprim_pinned_host(NULL, 64, &host), CLPRIM_INVALID_ARGUMENT, "ctx is NULL");
    const size_t n = 100000;
    ck_assert_int_eq(clprim_pinned_host(ctx, n * 4, &host), CLPRIM_SUCCESS);
    uint32_t *words = host;
    for (size_t i = 0; i < n; i++)
        words[i] = (uint32_t)(i * 2654435761u);
    cl_mem buf = harness_buffer(ctx, n * 4, host);
    ck_assert_int_eq(clprim_pinned_host(ctx, 16, &again), CLPRIM_SUCCESS);
    ck_assert_ptr_eq(again, host); /* big enough: the same memory */
    memset(host, 0, n * 4);
    ck_assert_int_eq(clEnqueueReadBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, n * 4, host, 0, NULL, NULL), CL_SUCCESS);
    for (size_t i = 0; i < n; i++)
        CHECK(words[i] == (uint32_t)(i * 2654435761u), "pinned word %zu came back as %u", i, words[i]);
    ck_assert_int_eq(clprim_pinned_host(ctx, 2 * n * 4, &again), CLPRIM_SUCCESS); /* grows */
    memset(again, 0xA5, 2 * n * 4);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS); /* the scratch in use */
    clprim_trim(ctx);
    clprim_trim(ctx);
    clprim_trim(NULL);
    ck_assert_int_eq(scan_check(ctx), CLPRIM_SUCCESS); /* the scratch again */
    ck_assert_int_eq(clprim_pinned_host(ctx, 0, &host), CLPRIM_SUCCESS);
    ck_assert_ptr_nonnull(host);
    ck_assert_str_eq(clprim_last_error(ctx), "");
    clReleaseMemObject(buf);
    harness_release_checked(ctx);
}
END_TEST

static Suite *context_suite(void)
{
    Suite *s = suite_create("context");
    TCase *dev = tcase_create("devices");
    tcase_set_timeout(dev, 300);
    tcase_add_test(dev, device_specs);
    tcase_add_test(dev, device_from_environment);
    tcase_add_test(dev, device_no_match);
    tcase_add_test(dev, create_null_output);
    tcase_add_test(dev, status_names);
    tcase_add_test(dev, version);
    tcase_add_test(dev, create_with_user_queue);
    tcase_add_test(dev, contexts_independent);
    tcase_add_test(dev, pinned_host_and_trim);
    suite_add_tcase(s, dev);
    TCase *tune = tcase_create("tuning");
    tcase_set_timeout(tune, 300);
    tcase_add_test(tune, tuning_api);
    tcase_add_test(tune, tuning_environment);
    suite_add_tcase(s, tune);
    TCase *kern = tcase_create("kernels");
    tcase_set_timeout(kern, 600);
    tcase_add_test(kern, kernel_path_missing_folder);
    tcase_add_test(kern, kernel_build_failure);
    tcase_add_test(kern, kernel_path_override);
    tcase_add_test(kern, disk_cache);
    tcase_add_test(kern, disk_cache_disabled_and_default);
    suite_add_tcase(s, kern);
    return s;
}

int main(void)
{
    /* This suite tests libclprim's disk cache, which the library leaves to
     * PoCL's own while that is on (before any OpenCL call reads it). */
    setenv("POCL_KERNEL_CACHE", "0", 1);
    return harness_run(context_suite());
}
