/* The disk cache against a hostile folder (planted symlinks, FIFOs, devices,
 * folders others can write, entries whose binary lacks the kernel) and kernel
 * sources whose includes cycle, nest too deep or reach outside their folder.
 * Every test points $CLPRIM_CACHE_DIR or $CLPRIM_KERNEL_PATH at a fresh temporary
 * folder and restores the environment. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "reference.h"

/* A planted file that would block the load or stream forever fails the test
 * through SIGALRM instead of hanging it. */
#define HANG_LIMIT_S 60

enum { REDUCE_N = 1000 };

/* clprim_reduce of a known array (one program: reduce.cl). On success the sum
 * is checked; on failure the result must be untouched. */
static clprim_status reduce_check(clprim_context *ctx)
{
    int32_t data[REDUCE_N], want = 0, got = 12345;
    for (int i = 0; i < REDUCE_N; i++) {
        data[i] = i % 7 - 3;
        want += data[i];
    }
    cl_mem buf = harness_buffer(ctx, sizeof data, data);
    clprim_status s = clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_SUM, buf, 0, REDUCE_N, &got);
    clReleaseMemObject(buf);
    ck_assert_int_eq(got, s == CLPRIM_SUCCESS ? want : 12345);
    return s;
}

/* The options reduce.cl and scan.cl are built with for int32 sums. */
static void int32_sum_options(clprim_context *ctx, char *options, size_t size)
{
    options[0] = '\0';
    clprim_kernel_options(ctx, clprim_type_info_of(CLPRIM_INT32), CLPRIM_SUM, options, size);
}

static void entry_path(clprim_context *ctx, const char *file, char *path, size_t size)
{
    char options[256];
    int32_sum_options(ctx, options, sizeof options);
    clprim_status s = clprim_cache_entry_path(ctx, file, options, path, size);
    ck_assert_msg(s == CLPRIM_SUCCESS, "clprim_cache_entry_path(%s): %s", file, clprim_last_error(ctx));
}

/* Files in dir (not . and ..); symlinks among them counted in *links. */
static size_t count_files(const char *dir, size_t *links)
{
    size_t count = 0;
    *links = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[8192];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ck_assert_int_eq(lstat(path, &st), 0);
        count++;
        *links += S_ISLNK(st.st_mode) != 0;
    }
    closedir(d);
    return count;
}

static void assert_regular(const char *path)
{
    struct stat st;
    ck_assert_msg(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "%s is not a regular file", path);
}

/* A fresh context on the first device that reduces; returns it. */
static clprim_context *reduce_run(void)
{
    clprim_context *ctx = harness_context(0);
    clprim_status s = reduce_check(ctx);
    ck_assert_msg(s == CLPRIM_SUCCESS, "reduce: %s: %s", clprim_status_name(s), clprim_last_error(ctx));
    return ctx;
}

static void use_cache(const char *dir)
{
    harness_env_set("CLPRIM_CACHE_DIR", dir);
    harness_env_set("CLPRIM_KERNEL_PATH", NULL);
    harness_env_set("CLPRIM_TUNING", NULL);
}

/* ---- The temporary file of a new entry ---- */

/* A symlink planted where the temporary of an entry used to be named
 * (<entry>.<pid>.tmp) is not written through, and what lands in the folder is a
 * regular file, never a symlink. */
START_TEST(temporary_never_follows_a_symlink)
{
    char *cache = harness_tempdir("cache-tmp");
    char *outside = harness_tempdir("victim");
    use_cache(cache);
    char victim[4200];
    snprintf(victim, sizeof victim, "%s/victim", outside);
    harness_write_file(victim, "precious", 8);

    clprim_context *ctx = harness_context(0);
    char entry[4200], planted[4300];
    entry_path(ctx, "reduce.cl", entry, sizeof entry);
    snprintf(planted, sizeof planted, "%s.%ld.tmp", entry, (long)getpid());
    ck_assert_int_eq(symlink(victim, planted), 0);
    ck_assert_int_eq(reduce_check(ctx), CLPRIM_SUCCESS);
    ck_assert_uint_eq(ctx->programs_compiled, 1);
    harness_release_checked(ctx);

    size_t bytes;
    char *text = harness_read_file(victim, &bytes);
    ck_assert_msg(bytes == 8 && !memcmp(text, "precious", 8), "the file behind a planted symlink was overwritten");
    free(text);
    assert_regular(entry);
    size_t links;
    ck_assert_uint_eq(count_files(cache, &links), 2); /* the entry and the planted link, no temporary */
    ck_assert_uint_eq(links, 1);

    ctx = reduce_run(); /* the entry written beside the link is good */
    ck_assert_uint_eq(ctx->programs_loaded, 1);
    ck_assert_uint_eq(ctx->programs_compiled, 0);
    harness_release_checked(ctx);
    harness_env_restore();
    harness_rmtree(cache);
    harness_rmtree(outside);
    free(cache);
    free(outside);
}
END_TEST

/* ---- The cache folder ---- */

/* Missing folders are created private to the user. */
START_TEST(folder_created_private)
{
    char *root = harness_tempdir("cache-new");
    char dir[4200], sub[4300];
    snprintf(dir, sizeof dir, "%s/a/b", root);
    use_cache(dir);
    clprim_context *ctx = reduce_run();
    ck_assert_str_eq(clprim_cache_note(ctx), "");
    harness_release_checked(ctx);
    for (int level = 0; level < 2; level++) {
        snprintf(sub, sizeof sub, "%s/%s", root, level ? "a/b" : "a");
        struct stat st;
        ck_assert_int_eq(stat(sub, &st), 0);
        ck_assert_msg((st.st_mode & 0777) == 0700, "%s has mode %03o", sub, (unsigned)(st.st_mode & 0777));
    }
    harness_env_restore();
    harness_rmtree(root);
    free(root);
}
END_TEST

typedef enum { FOLDER_MODE, FOLDER_OTHER_OWNER, FOLDER_SYMLINK, FOLDER_FILE } folder_trap;

static const struct {
    const char *what;
    folder_trap trap;
    mode_t mode;        /* FOLDER_MODE */
    const char *needle; /* in the note */
} refused_folders[] = {
    {"writable by others", FOLDER_MODE, 0777, "writable by group or others"},
    {"writable by group", FOLDER_MODE, 0770, "writable by group or others"},
    {"owned by another user", FOLDER_OTHER_OWNER, 0700, "not to this user"},
    {"a symlink to a good folder", FOLDER_SYMLINK, 0700, "symlink"},
    {"a regular file", FOLDER_FILE, 0, "not a folder"},
};

/* A folder someone else could fill is not used, and calls still succeed: each
 * context compiles, nothing is written there, and the note says why. */
START_TEST(folder_refused)
{
    const size_t i = (size_t)_i;
    char *root = harness_tempdir("cache-refused");
    char dir[4200], target[4300];
    snprintf(dir, sizeof dir, "%s/cache", root);
    snprintf(target, sizeof target, "%s/target", root);
    switch (refused_folders[i].trap) {
    case FOLDER_MODE:
        ck_assert_int_eq(mkdir(dir, 0700), 0);
        ck_assert_int_eq(chmod(dir, refused_folders[i].mode), 0);
        break;
    case FOLDER_OTHER_OWNER:
        if (geteuid() != 0) {
            fprintf(stderr, "folder_refused: \"%s\" needs root to chown; skipped\n", refused_folders[i].what);
            harness_rmtree(root);
            free(root);
            return;
        }
        ck_assert_int_eq(mkdir(dir, 0700), 0);
        ck_assert_int_eq(chown(dir, 12345, 12345), 0);
        break;
    case FOLDER_SYMLINK:
        ck_assert_int_eq(mkdir(target, 0700), 0);
        ck_assert_int_eq(symlink(target, dir), 0);
        break;
    case FOLDER_FILE:
        harness_write_file(dir, "x", 1);
        break;
    }
    use_cache(dir);
    for (int round = 0; round < 2; round++) {
        clprim_context *ctx = reduce_run();
        ck_assert_msg(ctx->programs_compiled == 1 && ctx->programs_loaded == 0,
                      "%s: round %d compiled %u, loaded %u", refused_folders[i].what, round, ctx->programs_compiled,
                      ctx->programs_loaded);
        const char *note = clprim_cache_note(ctx);
        ck_assert_msg(strstr(note, dir) && strstr(note, refused_folders[i].needle), "%s: note \"%s\"",
                      refused_folders[i].what, note);
        ck_assert_str_eq(clprim_last_error(ctx), "");
        harness_release_checked(ctx);
    }
    size_t links;
    const char *written = refused_folders[i].trap == FOLDER_SYMLINK ? target : dir;
    if (refused_folders[i].trap != FOLDER_FILE)
        ck_assert_msg(count_files(written, &links) == 0, "%s: entries written to %s", refused_folders[i].what,
                      written);
    harness_env_restore();
    harness_rmtree(root);
    free(root);
}
END_TEST

/* ---- Entries ---- */

typedef enum { PLANT_FIFO, PLANT_DEV_ZERO, PLANT_FOLDER } entry_trap;

static const struct {
    const char *what;
    entry_trap trap;
} planted_entries[] = {
    {"a FIFO", PLANT_FIFO},
    {"a symlink to /dev/zero", PLANT_DEV_ZERO},
    {"a folder", PLANT_FOLDER},
};

/* What stands at an entry's name but is no regular file is ignored at once
 * (never opened for a blocking read, never read without end), and the program
 * is built. */
START_TEST(entry_not_a_regular_file)
{
    const size_t i = (size_t)_i;
    char *cache = harness_tempdir("cache-plant");
    use_cache(cache);
    clprim_context *ctx = harness_context(0);
    char entry[4200];
    entry_path(ctx, "reduce.cl", entry, sizeof entry);
    switch (planted_entries[i].trap) {
    case PLANT_FIFO:
        ck_assert_int_eq(mkfifo(entry, 0600), 0);
        break;
    case PLANT_DEV_ZERO:
        ck_assert_int_eq(symlink("/dev/zero", entry), 0);
        break;
    case PLANT_FOLDER:
        ck_assert_int_eq(mkdir(entry, 0700), 0);
        break;
    }
    alarm(HANG_LIMIT_S);
    ck_assert_int_eq(reduce_check(ctx), CLPRIM_SUCCESS);
    alarm(0);
    ck_assert_msg(ctx->programs_compiled == 1, "%s: compiled %u", planted_entries[i].what, ctx->programs_compiled);
    harness_release_checked(ctx);
    if (planted_entries[i].trap != PLANT_FOLDER) { /* replaced by a good entry */
        assert_regular(entry);
        ctx = reduce_run();
        ck_assert_uint_eq(ctx->programs_loaded, 1);
        harness_release_checked(ctx);
    }
    harness_env_restore();
    harness_rmtree(cache);
    free(cache);
}
END_TEST

/* An entry that passes every check but whose binary lacks the kernel asked for
 * (here: scan.cl's entry holding reduce.cl's binary) is rebuilt from source
 * once and replaced; the scan is right. */
START_TEST(entry_lacking_the_kernel)
{
    char *cache = harness_tempdir("cache-forged");
    use_cache(cache);
    clprim_context *ctx = harness_context(0);
    char options[256];
    int32_sum_options(ctx, options, sizeof options);
    cl_kernel reduce;
    ck_assert_int_eq(clprim_get_kernel(ctx, "reduce.cl", options, "reduce_chunks", &reduce), CLPRIM_SUCCESS);
    cl_program reduce_program;
    ck_assert_int_eq(clGetKernelInfo(reduce, CL_KERNEL_PROGRAM, sizeof reduce_program, &reduce_program, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clprim_cache_store_program(ctx, "scan.cl", options, reduce_program), CLPRIM_SUCCESS);
    harness_release_checked(ctx);

    enum { N = 1000 };
    int32_t data[N], out[N];
    uint64_t rng = harness_rng(1);
    harness_fill_random(CLPRIM_INT32, data, N, &rng);
    for (int round = 0; round < 2; round++) {
        ctx = harness_context(0);
        cl_mem src = harness_buffer(ctx, sizeof data, data), dst = harness_buffer(ctx, sizeof out, NULL);
        clprim_status s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, dst, 0, N, NULL);
        ck_assert_msg(s == CLPRIM_SUCCESS, "round %d: %s: %s", round, clprim_status_name(s), clprim_last_error(ctx));
        harness_read(ctx, dst, 0, sizeof out, out);
        char msg[512];
        ck_assert_msg(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 0, data, out, N, msg, sizeof msg) == N, "%s",
                      msg);
        /* Round 0 loads both entries and rebuilds scan.cl; round 1 loads the replacement. */
        ck_assert_uint_eq(ctx->programs_compiled, round == 0 ? 1 : 0);
        ck_assert_uint_eq(ctx->programs_loaded, 2);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        harness_release_checked(ctx);
    }
    harness_env_restore();
    harness_rmtree(cache);
    free(cache);
}
END_TEST

/* ---- Kernel sources ---- */

/* Files of a kernel folder for one case: reduce.cl and what it includes. "@OUT@"
 * in a text becomes the folder just outside the kernel folder, which holds
 * outside.cl with a marker that must never reach a message. */
typedef enum { EXTRA_NONE, EXTRA_DEEP_CHAIN, EXTRA_FIFO, EXTRA_HUGE } source_extra;

static const struct {
    const char *what;
    const char *reduce_cl;
    const char *other_name, *other_text; /* a second file, or NULL */
    source_extra extra;
    clprim_status want;
    const char *needles[3]; /* in the message, besides the kernel folder */
} bad_sources[] = {
    {"includes itself", "#include \"reduce.cl\"\n", NULL, NULL, EXTRA_NONE, CLPRIM_BUILD_FAILED,
     {"reduce.cl line 1", "cycle", "reduce.cl -> reduce.cl"}},
    {"mutual includes", "// two\n#include \"a.cl\"\n", "a.cl", "#include \"reduce.cl\"\n", EXTRA_NONE,
     CLPRIM_BUILD_FAILED, {"a.cl line 1", "cycle", "reduce.cl -> a.cl -> reduce.cl"}},
    {"a parent folder", "\n\n#include \"../outside.cl\"\n", NULL, NULL, EXTRA_NONE, CLPRIM_BUILD_FAILED,
     {"reduce.cl line 3", "../outside.cl", "bare name"}},
    {"an absolute path", "#include \"@OUT@/outside.cl\"\n", NULL, NULL, EXTRA_NONE, CLPRIM_BUILD_FAILED,
     {"reduce.cl line 1", "outside.cl", "bare name"}},
    {"a subfolder", "#include \"sub/x.cl\"\n", NULL, NULL, EXTRA_NONE, CLPRIM_BUILD_FAILED,
     {"reduce.cl line 1", "sub/x.cl", "bare name"}},
    {"an angle include", "  #  include </etc/passwd>\n", NULL, NULL, EXTRA_NONE, CLPRIM_BUILD_FAILED,
     {"reduce.cl line 1", "only #include \"file\"", NULL}},
    {"a chain too deep", "#include \"d0.cl\"\n", NULL, NULL, EXTRA_DEEP_CHAIN, CLPRIM_BUILD_FAILED,
     {"deeper than", "reduce.cl -> d0.cl -> d1.cl", NULL}},
    {"a missing include", "#include \"missing.cl\"\n", NULL, NULL, EXTRA_NONE, CLPRIM_KERNEL_NOT_FOUND,
     {"missing.cl", "included by reduce.cl", NULL}},
    {"a FIFO include", "#include \"pipe.cl\"\n", NULL, NULL, EXTRA_FIFO, CLPRIM_KERNEL_NOT_FOUND,
     {"pipe.cl", "not a regular file", NULL}},
    {"a huge include", "#include \"huge.cl\"\n", NULL, NULL, EXTRA_HUGE, CLPRIM_KERNEL_NOT_FOUND,
     {"huge.cl", "size limit", NULL}},
};

static void write_kernel_file(const char *dir, const char *name, const char *text, const char *outside)
{
    char path[4300], expanded[8192];
    const char *mark = strstr(text, "@OUT@");
    if (mark)
        snprintf(expanded, sizeof expanded, "%.*s%s%s", (int)(mark - text), text, outside, mark + 5);
    else
        snprintf(expanded, sizeof expanded, "%s", text);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    harness_write_file(path, expanded, strlen(expanded));
}

START_TEST(bad_kernel_source)
{
    const size_t i = (size_t)_i;
    char *outside = harness_tempdir("kernels");
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/k", outside);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    write_kernel_file(outside, "outside.cl", "clprim_outside_secret_marker\n", outside);
    write_kernel_file(dir, "reduce.cl", bad_sources[i].reduce_cl, outside);
    if (bad_sources[i].other_name)
        write_kernel_file(dir, bad_sources[i].other_name, bad_sources[i].other_text, outside);
    char path[4300];
    switch (bad_sources[i].extra) {
    case EXTRA_NONE:
        break;
    case EXTRA_DEEP_CHAIN: /* d0.cl includes d1.cl ... includes d39.cl */
        for (int d = 0; d < 40; d++) {
            char name[32], text[64];
            snprintf(name, sizeof name, "d%d.cl", d);
            snprintf(text, sizeof text, d < 39 ? "#include \"d%d.cl\"\n" : "// the end\n", d + 1);
            write_kernel_file(dir, name, text, outside);
        }
        break;
    case EXTRA_FIFO:
        snprintf(path, sizeof path, "%s/pipe.cl", dir);
        ck_assert_int_eq(mkfifo(path, 0600), 0);
        break;
    case EXTRA_HUGE: {
        size_t bytes = (size_t)17 << 20;
        char *spaces = harness_malloc(bytes);
        memset(spaces, ' ', bytes);
        snprintf(path, sizeof path, "%s/huge.cl", dir);
        harness_write_file(path, spaces, bytes);
        free(spaces);
        break;
    }
    }
    harness_env_set("CLPRIM_KERNEL_PATH", dir);
    harness_env_set("CLPRIM_CACHE_DIR", "");
    FOR_EACH_DEVICE(ctx)
    {
        alarm(HANG_LIMIT_S);
        clprim_status s = reduce_check(ctx);
        alarm(0);
        harness_assert_error(ctx, s, bad_sources[i].want, dir);
        for (int n = 0; n < 3 && bad_sources[i].needles[n]; n++)
            harness_assert_error(ctx, s, bad_sources[i].want, bad_sources[i].needles[n]);
        ck_assert_msg(!strstr(clprim_last_error(ctx), "clprim_outside_secret_marker"),
                      "%s: a file outside the kernel folder was read: %s", bad_sources[i].what,
                      clprim_last_error(ctx));
    }
    harness_env_restore();
    harness_rmtree(outside);
    free(outside);
}
END_TEST

/* Good includes still work: reduce.cl from a copy of the kernel folder, through
 * an extra include level, builds and reduces right. */
START_TEST(good_includes_still_expand)
{
    char *dir = harness_tempdir("kernels-good");
    char from[4300], to[4300];
    const char *files[] = {"common.cl", "reduce.cl"};
    for (size_t f = 0; f < 2; f++) {
        snprintf(from, sizeof from, "%s/%s", harness_kernel_source_dir(), files[f]);
        snprintf(to, sizeof to, "%s/%s%s", dir, f ? "real_" : "", files[f]);
        harness_copy_file(from, to);
    }
    write_kernel_file(dir, "reduce.cl", "# include \"real_reduce.cl\" // the real one\n", dir);
    harness_env_set("CLPRIM_KERNEL_PATH", dir);
    harness_env_set("CLPRIM_CACHE_DIR", "");
    FOR_EACH_DEVICE(ctx)
    {
        clprim_status s = reduce_check(ctx);
        ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", clprim_status_name(s), clprim_last_error(ctx));
    }
    harness_env_restore();
    harness_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *disk = tcase_create("disk");
    tcase_set_timeout(disk, 600);
    tcase_add_test(disk, temporary_never_follows_a_symlink);
    tcase_add_test(disk, folder_created_private);
    tcase_add_loop_test(disk, folder_refused, 0, (int)(sizeof refused_folders / sizeof refused_folders[0]));
    tcase_add_loop_test(disk, entry_not_a_regular_file, 0, (int)(sizeof planted_entries / sizeof planted_entries[0]));
    tcase_add_test(disk, entry_lacking_the_kernel);
    suite_add_tcase(s, disk);
    TCase *source = tcase_create("sources");
    tcase_set_timeout(source, 600);
    tcase_add_loop_test(source, bad_kernel_source, 0, (int)(sizeof bad_sources / sizeof bad_sources[0]));
    tcase_add_test(source, good_includes_still_expand);
    suite_add_tcase(s, source);
    return s;
}

int main(void)
{
    return harness_run(cache_suite());
}
