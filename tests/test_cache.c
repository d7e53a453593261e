/* The disk cache against a hostile folder (planted symlinks, FIFOs, devices,
 * folders others can write, entries whose binary lacks the kernel), its size
 * cap, clprim_warm_up, $CLPRIM_LOG, and kernel
 * sources whose includes cycle, nest too deep or reach outside their folder.
 * Every test points $CLPRIM_CACHE_DIR or $CLPRIM_KERNEL_PATH at a fresh temporary
 * folder and restores the environment. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
    clprim_status s = clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_SUM, buf, 0, REDUCE_N, &got, 0, NULL);
    clReleaseMemObject(buf);
    ck_assert_int_eq(got, s == CLPRIM_SUCCESS ? want : 12345);
    return s;
}

/* The options of reduce.cl and scan.cl for int32 and an operator, as the
 * scan builds them. */
static void int32_options(clprim_context *ctx, clprim_op op, char *options, size_t size)
{
    clprim_program p;
    clprim_program_begin(ctx, &p, "test", "reduce.cl", &ctx->tuning, clprim_type_info_of(CLPRIM_INT32), (int)op);
    snprintf(options, size, "%s", clprim_options_text(&p.options));
    clprim_program_end(&p);
}

/* The options reduce.cl and scan.cl are built with for int32 sums. */
static void int32_sum_options(clprim_context *ctx, char *options, size_t size)
{
    int32_options(ctx, CLPRIM_SUM, options, size);
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
    harness_env_set("CLPRIM_TUNING", "form=multi-pass"); /* the scan of reduce.cl and scan.cl, on every device */
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
        clprim_status s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, dst, 0, N, 0, NULL, NULL);
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
typedef enum { EXTRA_NONE, EXTRA_DEEP_CHAIN, EXTRA_FIFO, EXTRA_HUGE, EXTRA_LINK_OUT } source_extra;

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
     {"reduce.cl line 3", "../outside.cl", "relative path"}},
    {"a parent folder inside a path", "#include \"sub/../../outside.cl\"\n", NULL, NULL, EXTRA_NONE,
     CLPRIM_BUILD_FAILED, {"reduce.cl line 1", "sub/../../outside.cl", "relative path"}},
    {"an absolute path", "#include \"@OUT@/outside.cl\"\n", NULL, NULL, EXTRA_NONE, CLPRIM_BUILD_FAILED,
     {"reduce.cl line 1", "outside.cl", "relative path"}},
    {"a linked folder leading out", "#include \"out/outside.cl\"\n", NULL, NULL, EXTRA_LINK_OUT,
     CLPRIM_BUILD_FAILED, {"reduce.cl line 1", "out/outside.cl", "outside the kernel folder"}},
    {"a missing subfolder", "#include \"sub/x.cl\"\n", NULL, NULL, EXTRA_NONE, CLPRIM_KERNEL_NOT_FOUND,
     {"sub/x.cl", "included by reduce.cl", NULL}},
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
    case EXTRA_LINK_OUT: /* k/out -> the folder that holds k and outside.cl */
        snprintf(path, sizeof path, "%s/out", dir);
        ck_assert_int_eq(symlink(outside, path), 0);
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
 * an extra include level in a subfolder, builds and reduces right. */
START_TEST(good_includes_still_expand)
{
    char *dir = harness_tempdir("kernels-good");
    char from[4300], to[4300];
    harness_copy_common_kernels(dir);
    snprintf(from, sizeof from, "%s/reduce.cl", harness_kernel_source_dir());
    snprintf(to, sizeof to, "%s/sub", dir);
    ck_assert_int_eq(mkdir(to, 0700), 0);
    snprintf(to, sizeof to, "%s/sub/real_reduce.cl", dir);
    harness_copy_file(from, to);
    write_kernel_file(dir, "reduce.cl", "# include \"sub/real_reduce.cl\" // the real one\n", dir);
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

/* ---- The size cap ---- */

/* The cap clprim_cache_inspect reads from $CLPRIM_CACHE_MAX; a malformed value
 * leaves the default and a note naming it. */
static const struct {
    const char *text;
    uint64_t cap;
    int noted;
} cap_texts[] = {
    {"", 256u << 20, 0},       {"0", 0, 0},
    {"1024", 1024, 0},         {"4k", 4096, 0},
    {"3M", 3u << 20, 0},       {"2G", (uint64_t)2 << 30, 0},
    {"16777215G", (uint64_t)16777215 << 30, 0},
    {"12x", 256u << 20, 1},    {"-5", 256u << 20, 1},
    {"1.5G", 256u << 20, 1},   {"K", 256u << 20, 1},
    {"1KB", 256u << 20, 1},    {" 10", 256u << 20, 1},
    {"18446744073709551616", 256u << 20, 1},
    {"17179869184G", 256u << 20, 1},
};

START_TEST(cap_from_the_environment)
{
    const size_t i = (size_t)_i;
    harness_env_set("CLPRIM_CACHE_DIR", "/nonexistent/clprim-cache");
    harness_env_set("CLPRIM_CACHE_MAX", cap_texts[i].text);
    clprim_cache_state st;
    clprim_cache_inspect(&st);
    ck_assert_msg(st.cap == cap_texts[i].cap, "\"%s\": cap %llu", cap_texts[i].text, (unsigned long long)st.cap);
    ck_assert_int_eq(st.in_use, cap_texts[i].cap > 0);
    if (cap_texts[i].noted)
        ck_assert_msg(strstr(st.note, "$CLPRIM_CACHE_MAX") && strstr(st.note, cap_texts[i].text) &&
                          strstr(st.note, "default"),
                      "\"%s\": note \"%s\"", cap_texts[i].text, st.note);
    else
        ck_assert_str_eq(st.note, "");
    harness_env_restore();
}
END_TEST


static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void set_mtime(const char *path, time_t when)
{
    struct timespec times[2] = {{when, 0}, {when, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), 0);
}

/* Three entries of one size under a cap of two and a half: storing the third
 * removes the least recently used one, where loading an entry counts as using
 * it. What is not an entry (other names, an entry's name on a symlink or a
 * folder, a big old file) is never removed, nor counted against the cap. */
START_TEST(cap_removes_least_recently_used)
{
    char *cache = harness_tempdir("cache-cap");
    char *outside = harness_tempdir("cache-cap-victim");
    use_cache(cache);
    char victim[4200], foreign[5][4300];
    snprintf(victim, sizeof victim, "%s/victim", outside);
    harness_write_file(victim, "precious", 8);
    const char *foreign_names[5] = {"notes.txt", "0123456789ABCDEF.bin", "0123456789abcdef.bin.old",
                                    "fedcba9876543210.bin", "00000000000000aa.bin"};
    for (int f = 0; f < 5; f++)
        snprintf(foreign[f], sizeof foreign[f], "%s/%s", cache, foreign_names[f]);
    size_t big = (size_t)4 << 20;
    char *zeros = harness_malloc(big);
    memset(zeros, 0, big);
    for (int f = 0; f < 3; f++) {
        harness_write_file(foreign[f], zeros, big);
        set_mtime(foreign[f], 1000000);
    }
    free(zeros);
    ck_assert_int_eq(symlink(victim, foreign[3]), 0);
    ck_assert_int_eq(mkdir(foreign[4], 0700), 0);

    /* One program, stored under the keys of SUM, MIN and MAX: one size. */
    clprim_context *ctx = harness_context(0);
    char options[3][256], entry[3][4200];
    for (int op = 0; op < 3; op++) {
        int32_options(ctx, (clprim_op)op, options[op], sizeof options[op]);
        ck_assert_int_eq(clprim_cache_entry_path(ctx, "reduce.cl", options[op], entry[op], sizeof entry[op]),
                         CLPRIM_SUCCESS);
    }
    cl_kernel kernel;
    ck_assert_int_eq(clprim_get_kernel(ctx, "reduce.cl", options[CLPRIM_SUM], "reduce_chunks", &kernel),
                     CLPRIM_SUCCESS);
    cl_program program;
    ck_assert_int_eq(clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL), CL_SUCCESS);
    struct stat st;
    ck_assert_int_eq(stat(entry[CLPRIM_SUM], &st), 0);
    char cap[64];
    snprintf(cap, sizeof cap, "%lld", (long long)st.st_size * 5 / 2);
    harness_env_set("CLPRIM_CACHE_MAX", cap);
    ck_assert_int_eq(clprim_cache_store_program(ctx, "reduce.cl", options[CLPRIM_MIN], program), CLPRIM_SUCCESS);
    harness_release_checked(ctx);
    ck_assert(exists(entry[CLPRIM_SUM]) && exists(entry[CLPRIM_MIN]));

    /* SUM was stored first; loading it makes MIN the least recently used. */
    time_t now = time(NULL);
    set_mtime(entry[CLPRIM_SUM], now - 300);
    set_mtime(entry[CLPRIM_MIN], now - 200);
    ctx = reduce_run();
    ck_assert_uint_eq(ctx->programs_loaded, 1);
    ck_assert_int_eq(stat(entry[CLPRIM_SUM], &st), 0);
    ck_assert_msg(st.st_mtime >= now - 5, "a load left the entry's mtime %lld s old", (long long)(now - st.st_mtime));
    ck_assert_int_eq(clprim_get_kernel(ctx, "reduce.cl", options[CLPRIM_SUM], "reduce_chunks", &kernel),
                     CLPRIM_SUCCESS);
    ck_assert_int_eq(clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL), CL_SUCCESS);
    ck_assert_int_eq(clprim_cache_store_program(ctx, "reduce.cl", options[CLPRIM_MAX], program), CLPRIM_SUCCESS);
    harness_release_checked(ctx);

    ck_assert_msg(exists(entry[CLPRIM_SUM]) && exists(entry[CLPRIM_MAX]), "the recently used entries were removed");
    ck_assert_msg(!exists(entry[CLPRIM_MIN]), "the least recently used entry was kept over the cap");
    for (int f = 0; f < 5; f++)
        ck_assert_msg(exists(foreign[f]), "%s, no entry, was removed", foreign_names[f]);
    size_t bytes;
    char *text = harness_read_file(victim, &bytes);
    ck_assert(bytes == 8 && !memcmp(text, "precious", 8));
    free(text);

    /* clear removes the two entries, nothing else. */
    clprim_cache_state state;
    ck_assert_int_eq(clprim_cache_clear(&state), 2);
    ck_assert(!exists(entry[CLPRIM_SUM]) && !exists(entry[CLPRIM_MAX]));
    for (int f = 0; f < 5; f++)
        ck_assert_msg(exists(foreign[f]), "clear removed %s, no entry", foreign_names[f]);
    clprim_cache_inspect(&state);
    ck_assert_uint_eq(state.entries, 0);
    harness_env_restore();
    harness_rmtree(cache);
    harness_rmtree(outside);
    free(cache);
    free(outside);
}
END_TEST

/* $CLPRIM_CACHE_MAX=0: no disk cache, nothing written, every context compiles. */
START_TEST(cap_zero_turns_the_disk_cache_off)
{
    char *cache = harness_tempdir("cache-off");
    use_cache(cache);
    harness_env_set("CLPRIM_CACHE_MAX", "0");
    for (int round = 0; round < 2; round++) {
        clprim_context *ctx = reduce_run();
        ck_assert_uint_eq(ctx->programs_compiled, 1);
        harness_release_checked(ctx);
    }
    size_t links;
    ck_assert_uint_eq(count_files(cache, &links), 0);
    harness_env_restore();
    harness_rmtree(cache);
    free(cache);
}
END_TEST

/* ---- Warm-up ---- */

/* Every workload of `clprim bench` whose primitive the warm-up covers (but
 * those that build a program on first use), one type each in
 * turn, on small data, each checked against its C loop. Fails
 * when a call builds or loads a program while `frozen`. */
static void run_every_primitive(clprim_context *ctx, int frozen)
{
    const workload_kind *const *lists[] = {workload_kinds, workload_photo_kinds};
    size_t turn = 0;
    for (size_t l = 0; l < 2; l++)
        for (const workload_kind *const *kind = lists[l]; *kind; kind++, turn++) {
            const clprim_primitive *primitive = harness_primitive_named((*kind)->primitive);
            ck_assert_msg(primitive, "%s: no primitive named %s", (*kind)->name, (*kind)->primitive);
            if ((!primitive->type_variants && !primitive->variants) || (*kind)->first_use)
                continue;
            const unsigned compiled = ctx->programs_compiled, loaded = ctx->programs_loaded;
            char why[512];
            const clprim_type t = harness_workload_type(ctx, *kind, turn);
            ck_assert_msg(harness_run_workload(ctx, *kind, t, 3000, why, sizeof why), "%s", why);
            ck_assert_msg(!frozen || (ctx->programs_compiled == compiled && ctx->programs_loaded == loaded),
                          "after warm-up %s (%s) built %u and loaded %u programs", (*kind)->name,
                          workload_type_name(t), ctx->programs_compiled - compiled, ctx->programs_loaded - loaded);
        }
}

/* Every primitive has a workload, so the walks over the workloads (here, in
 * the shapes test, under oclgrind) visit every primitive. */
START_TEST(every_primitive_has_a_workload)
{
    for (size_t i = 0; clprim_primitives[i]; i++) {
        int found = 0;
        for (size_t k = 0; workload_kinds[k]; k++)
            found |= !strcmp(workload_kinds[k]->primitive, clprim_primitives[i]->name);
        for (size_t k = 0; workload_photo_kinds[k]; k++)
            found |= !strcmp(workload_photo_kinds[k]->primitive, clprim_primitives[i]->name);
        ck_assert_msg(found, "primitive %s has no workload in src/cli/workload.c", clprim_primitives[i]->name);
    }
}
END_TEST

/* After clprim_warm_up on an empty cache folder, every primitive runs without
 * a compile: in the same context nothing more is built or loaded, and a new
 * context loads everything from disk. So warm-up asks for exactly the (file,
 * options) pairs the calls do. With PoCL's own cache on (as here: storing
 * every program's binary would cost PoCL minutes) the folder stays empty and
 * the new context is PoCL's business; the disk cache's loads are tested above. */
START_TEST(warm_up_builds_what_the_calls_use)
{
    char *cache = harness_tempdir("cache-warm");
    use_cache(cache);
    harness_env_set("POCL_KERNEL_CACHE", NULL);
    clprim_context *ctx = harness_context(0);
    if (!ctx->has_fp64) {
        fprintf(stderr, "warm_up_builds_what_the_calls_use: needs a device with fp64; skipped\n");
        harness_release_checked(ctx);
        harness_env_restore();
        harness_rmtree(cache);
        free(cache);
        return;
    }
    clprim_status s = clprim_warm_up(ctx);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", clprim_status_name(s), clprim_last_error(ctx));
    unsigned compiled, loaded;
    clprim_program_counts(ctx, &compiled, &loaded);
    ck_assert_msg(compiled > 100 && loaded == 0, "warm-up compiled %u, loaded %u", compiled, loaded);
    run_every_primitive(ctx, 1);
    const int disk = !*clprim_cache_note(ctx);
    harness_release_checked(ctx);
    size_t links;
    ck_assert_uint_eq(count_files(cache, &links), disk ? compiled : 0);
    if (!disk) {
        harness_env_restore();
        harness_rmtree(cache);
        free(cache);
        return;
    }

    ctx = harness_context(0);
    run_every_primitive(ctx, 0);
    ck_assert_msg(ctx->programs_compiled == 0, "a new context compiled %u programs after warm-up",
                  ctx->programs_compiled);
    ck_assert_uint_gt(ctx->programs_loaded, 10);
    /* A second warm-up loads what is there. */
    ck_assert_int_eq(clprim_warm_up(ctx), CLPRIM_SUCCESS);
    ck_assert_uint_eq(ctx->programs_compiled, 0);
    ck_assert_uint_eq(ctx->programs_loaded, compiled);
    harness_release_checked(ctx);
    harness_env_restore();
    harness_rmtree(cache);
    free(cache);
}
END_TEST

/* A failure stops the warm-up with the failing program's status and message:
 * here the first program, reduce.cl, does not compile. */
START_TEST(warm_up_reports_the_first_failure)
{
    char *dir = harness_tempdir("kernels-broken");
    write_kernel_file(dir, "reduce.cl", "__kernel void reduce_chunks(void) { clprim_no_such_name; }\n", dir);
    harness_env_set("CLPRIM_KERNEL_PATH", dir);
    harness_env_set("CLPRIM_CACHE_DIR", "");
    FOR_EACH_DEVICE(ctx)
    {
        clprim_status s = clprim_warm_up(ctx);
        harness_assert_error(ctx, s, CLPRIM_BUILD_FAILED, "reduce.cl");
        harness_assert_error(ctx, s, CLPRIM_BUILD_FAILED, "clprim_no_such_name");
        ck_assert_uint_eq(ctx->programs_compiled, 0);
    }
    ck_assert_int_eq(clprim_warm_up(NULL), CLPRIM_INVALID_ARGUMENT);
    harness_env_restore();
    harness_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- $CLPRIM_LOG ---- */

/* What the library writes to stderr while fn runs, NUL-terminated (free it). */
static char *stderr_of(void (*fn)(void *), void *arg)
{
    char path[] = "/tmp/clprim-log-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    fflush(stderr);
    int saved = dup(2);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(dup2(fd, 2), 0);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    size_t bytes;
    char *text = harness_read_file(path, &bytes);
    unlink(path);
    return text;
}

static void reduce_in_new_context(void *compiled)
{
    clprim_context *ctx = reduce_run();
    *(unsigned *)compiled = ctx->programs_compiled;
    harness_release_checked(ctx);
}

/* Each step of a program lookup names itself on stderr with $CLPRIM_LOG set,
 * and nothing is written without it. */
START_TEST(log_says_what_happens)
{
    char *cache = harness_tempdir("cache-log");
    use_cache(cache);
    harness_env_set("CLPRIM_LOG", NULL); /* whatever the caller's environment says */
    unsigned compiled;
    char *quiet = stderr_of(reduce_in_new_context, &compiled);
    ck_assert_msg(!strstr(quiet, "clprim:"), "without $CLPRIM_LOG: \"%s\"", quiet);
    free(quiet);
    harness_rmtree(cache);
    ck_assert_int_eq(mkdir(cache, 0700), 0);

    harness_env_set("CLPRIM_LOG", "1");
    char kernel_file[4300], entry[4200], other[4200];
    snprintf(kernel_file, sizeof kernel_file, "read kernel file %s/reduce.cl", harness_kernel_source_dir());
    clprim_context *ctx = harness_context(0);
    char options[256];
    int32_options(ctx, CLPRIM_MIN, options, sizeof options);
    ck_assert_int_eq(clprim_cache_entry_path(ctx, "reduce.cl", options, other, sizeof other), CLPRIM_SUCCESS);
    entry_path(ctx, "reduce.cl", entry, sizeof entry);
    harness_release_checked(ctx);
    const struct {
        const char *what;
        const char *needles[3];
        unsigned compiled;
    } rounds[] = {
        {"an empty folder", {kernel_file, "cache miss: reduce.cl [", "no entry"}, 1},
        {"a stored entry", {"cache hit: reduce.cl [", entry, NULL}, 0},
        {"another key's entry", {"cache miss", "key mismatch", NULL}, 1},
        {"a folder writable by others", {"cache miss", "writable by group or others", NULL}, 1},
    };
    for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
        if (r == 2) { /* MIN's entry, renamed to SUM's name */
            ctx = harness_context(0);
            cl_kernel k;
            ck_assert_int_eq(clprim_get_kernel(ctx, "reduce.cl", options, "reduce_chunks", &k), CLPRIM_SUCCESS);
            harness_release_checked(ctx);
            ck_assert_int_eq(rename(other, entry), 0);
        }
        if (r == 3)
            ck_assert_int_eq(chmod(cache, 0777), 0);
        char *log = stderr_of(reduce_in_new_context, &compiled);
        ck_assert_msg(compiled == rounds[r].compiled, "%s: compiled %u", rounds[r].what, compiled);
        for (int i = 0; i < 3 && rounds[r].needles[i]; i++)
            ck_assert_msg(strstr(log, rounds[r].needles[i]), "%s: no \"%s\" in the log:\n%s", rounds[r].what,
                          rounds[r].needles[i], log);
        ck_assert_msg(!rounds[r].compiled || strstr(log, "built reduce.cl ["), "%s: no build line:\n%s",
                      rounds[r].what, log);
        ck_assert_msg(!rounds[r].compiled || strstr(log, " ms\n"), "%s: no build time:\n%s", rounds[r].what, log);
        for (char *line = log; *line; line = strchr(line, '\n') + 1) /* whole lines, each its own */
            ck_assert_msg(!strncmp(line, "clprim: ", 8) && strchr(line, '\n'), "%s: stray output:\n%s",
                          rounds[r].what, log);
        free(log);
    }
    chmod(cache, 0700);
    harness_env_restore();
    harness_rmtree(cache);
    free(cache);
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    /* The warm-up first: it wants PoCL's own cache on, and PoCL reads
     * $POCL_KERNEL_CACHE once a process, at the first OpenCL call. With
     * CK_FORK=no (tests/sanitize.sh) every test shares one process, and
     * after a disk test PoCL would compile the warm-up's 100-odd programs
     * from scratch (70 s under ASan, 9 s from PoCL's cache). */
    TCase *warm = tcase_create("warm-up");
    tcase_set_timeout(warm, 900);
    tcase_add_test(warm, every_primitive_has_a_workload);
    tcase_add_test(warm, warm_up_builds_what_the_calls_use);
    tcase_add_test(warm, warm_up_reports_the_first_failure);
    suite_add_tcase(s, warm);
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
    TCase *cap = tcase_create("cap");
    tcase_set_timeout(cap, 600);
    tcase_add_loop_test(cap, cap_from_the_environment, 0, (int)(sizeof cap_texts / sizeof cap_texts[0]));
    tcase_add_test(cap, cap_removes_least_recently_used);
    tcase_add_test(cap, cap_zero_turns_the_disk_cache_off);
    suite_add_tcase(s, cap);
    TCase *log = tcase_create("log");
    tcase_set_timeout(log, 600);
    tcase_add_test(log, log_says_what_happens);
    suite_add_tcase(s, log);
    return s;
}

int main(void)
{
    /* This suite tests libclprim's disk cache, which the library leaves to
     * PoCL's own while that is on (before any OpenCL call reads it). */
    setenv("POCL_KERNEL_CACHE", "0", 1);
    return harness_run(cache_suite());
}
