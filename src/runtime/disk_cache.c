/* The disk cache of built programs: one file per (platform, device, driver,
 * source text, options), "<hash>.bin", holding a magic, two hashes of the key,
 * the sizes, a checksum, the key itself (compared exactly, so two keys never
 * share an entry) and the binary. The folder must be this user's own and
 * writable by no one else, since whoever can write it chooses the code the
 * library runs; otherwise the disk cache is not used. */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Part of every disk-cache key: bump it when the kernels' contract changes, so
 * new kernels never meet stale binaries even if the text hash were to match. */
#define KERNEL_CACHE_VERSION "clprim-" CLPRIM_VERSION_STRING "-k1"

/* What is read at most of one disk-cache entry. */
#define MAX_CACHE_ENTRY_BYTES ((size_t)256 << 20)

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static const char cache_magic[8] = {'C', 'L', 'P', 'R', 'I', 'M', 'B', '2'};

/* What an entry starts with, after the magic. */
typedef struct {
    uint64_t key1, key2, key_size, binary_size, checksum; /* checksum: of the key, then the binary */
} cache_header;

/* The folder, without trailing slashes ("dir/" would name what a symlink there
 * points to); 0 with *why when there is none. */
static int cache_folder(char *dir, size_t size, const char **why)
{
    const char *env = getenv("CLPRIM_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (env && !*env)
        return *why = "the disk cache is off ($CLPRIM_CACHE_DIR is set but empty)", 0;
    if (env)
        snprintf(dir, size, "%s", env);
    else if (xdg && *xdg)
        snprintf(dir, size, "%s/clprim", xdg);
    else if (home && *home)
        snprintf(dir, size, "%s/.cache/clprim", home);
    else
        return *why = "no disk cache: neither $CLPRIM_CACHE_DIR, $XDG_CACHE_HOME nor $HOME is set", 0;
    size_t end = strlen(dir);
    while (end > 1 && dir[end - 1] == '/')
        dir[--end] = '\0';
    return 1;
}

/* Creates the missing folders of path, private to this user. */
static int make_dirs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST)
                return 0;
            *p = '/';
        }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

static int noted(char *note, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int noted(char *note, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, size, fmt, ap);
    va_end(ap);
    return 0;
}

/* 1 when dir may be used: a folder itself (not a symlink), owned by this user,
 * not writable by group or others; created first when missing and create is
 * set. Otherwise 0 with the reason in note. */
static int cache_folder_usable(const char *dir, int create, char *note, size_t size)
{
    struct stat st;
    if (create && !make_dirs(dir))
        return noted(note, size, "disk cache not used: cannot create %s (%s)", dir, strerror(errno));
    if (lstat(dir, &st) != 0)
        return noted(note, size, "disk cache not used: %s: %s", dir, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return noted(note, size, "disk cache not used: %s is a symlink", dir);
    if (!S_ISDIR(st.st_mode))
        return noted(note, size, "disk cache not used: %s is not a folder", dir);
    if (st.st_uid != geteuid())
        return noted(note, size, "disk cache not used: %s belongs to uid %u, not to this user (uid %u)", dir,
                     (unsigned)st.st_uid, (unsigned)geteuid());
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return noted(note, size, "disk cache not used: %s is writable by group or others (mode %03o)", dir,
                     (unsigned)(st.st_mode & 0777));
    note[0] = '\0';
    return 1;
}

#define DEFAULT_CACHE_MAX ((uint64_t)256 << 20)

/* $CLPRIM_CACHE_MAX: bytes, or a whole number followed by K, M or G (powers of
 * 1024, either case); 0 turns the disk cache off. Unset or empty: the default.
 * A malformed value is ignored, with a remark in note (left alone otherwise). */
static uint64_t cache_cap(char *note, size_t size)
{
    const char *env = getenv("CLPRIM_CACHE_MAX");
    if (!env || !*env)
        return DEFAULT_CACHE_MAX;
    uint64_t value = 0;
    const char *p = env;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (value > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            break;
        value = value * 10 + (uint64_t)(*p - '0');
    }
    const char *units = "KMG", *unit = *p ? strchr(units, *p & ~0x20) : NULL;
    unsigned shift = unit ? 10u * (unsigned)(unit - units + 1) : 0;
    int good = p != env && (!*p || (unit && !p[1])) && value <= UINT64_MAX >> shift;
    if (!good) {
        noted(note, size, "$CLPRIM_CACHE_MAX \"%.100s\" is not a size (bytes, or a whole number with K, M or G); "
                          "the default, %llu MiB, applies",
              env, (unsigned long long)(DEFAULT_CACHE_MAX >> 20));
        return DEFAULT_CACHE_MAX;
    }
    return value << shift;
}

/* ---- Entries in the folder ----
 * Only regular files with an entry's name (16 lowercase hex digits, ".bin") are
 * entries: nothing else in the folder is ever counted or removed. */

static int is_entry_name(const char *name)
{
    for (int i = 0; i < 16; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    return !strcmp(name + 16, ".bin");
}

typedef struct {
    char name[24];
    uint64_t bytes;
    struct timespec used; /* mtime: a load touches it, so the oldest is the least recently used */
} cache_file;

/* The entries of dir into *files (free it) and their bytes into *total; -1 when
 * dir cannot be read. */
static long list_entries(const char *dir, cache_file **files, uint64_t *total)
{
    *files = NULL;
    *total = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    long n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        struct stat st;
        if (!is_entry_name(e->d_name) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            cache_file *grown = realloc(*files, (size_t)cap * sizeof **files);
            if (!grown)
                break;
            *files = grown;
        }
        cache_file *f = &(*files)[n++];
        memcpy(f->name, e->d_name, 21); /* is_entry_name: 20 characters */
        f->bytes = (uint64_t)st.st_size;
        f->used = st.st_mtim;
        *total += f->bytes;
    }
    closedir(d);
    return n;
}

static int least_recent_first(const void *a, const void *b)
{
    const cache_file *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Removes the least recently used entries of dir until the rest take at most
 * cap bytes (an entry larger than the cap is not kept). Returns how many went. */
static size_t cache_trim(const char *dir, uint64_t cap)
{
    cache_file *files;
    uint64_t total;
    long n = list_entries(dir, &files, &total);
    size_t removed = 0;
    if (n > 0 && total > cap) {
        qsort(files, (size_t)n, sizeof *files, least_recent_first);
        for (long i = 0; i < n && total > cap; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
            if (unlink(path) == 0) {
                total -= files[i].bytes;
                removed++;
            }
        }
        clprim_log("removed %zu least recently used entr%s from %s to keep it within $CLPRIM_CACHE_MAX (%llu bytes)",
                   removed, removed == 1 ? "y" : "ies", dir, (unsigned long long)cap);
    }
    free(files);
    return removed;
}

void clprim_cache_inspect(clprim_cache_state *state)
{
    memset(state, 0, sizeof *state);
    const char *why;
    if (!cache_folder(state->dir, sizeof state->dir, &why)) {
        state->dir[0] = '\0';
        snprintf(state->note, sizeof state->note, "%s", why);
        return;
    }
    state->cap = cache_cap(state->note, sizeof state->note);
    char remark[sizeof state->note];
    snprintf(remark, sizeof remark, "%s", state->note);
    struct stat st;
    if (lstat(state->dir, &st) != 0 && errno == ENOENT) {
        state->in_use = state->cap > 0;
        state->missing = 1;
        return;
    }
    state->usable = cache_folder_usable(state->dir, 0, state->note, sizeof state->note);
    state->in_use = state->usable && state->cap > 0;
    if (state->usable) {
        snprintf(state->note, sizeof state->note, "%s", remark);
        cache_file *files;
        long n = list_entries(state->dir, &files, &state->bytes);
        state->entries = n > 0 ? (size_t)n : 0;
        free(files);
    }
}

long clprim_cache_clear(clprim_cache_state *state)
{
    clprim_cache_inspect(state);
    if (state->missing)
        return 0;
    if (!state->usable)
        return -1;
    return (long)cache_trim(state->dir, 0);
}

/* 1 with the slot of (options, source) when the disk cache is in use (free
 * slot->key after), else 0 with *why saying why not. */
/* PoCL caches every program it builds in its own folder ($POCL_CACHE_DIR)
 * unless $POCL_KERNEL_CACHE is 0. There a second cache gains nothing and costs
 * much: asked for a program's binary, PoCL first compiles every kernel of it
 * for any work-group size (on 2 cores a first 2^16-key sort took 2.9 s with
 * the store, 1.3 s without). */
static int driver_caches_programs(const clprim_context *ctx)
{
    const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
    return strstr(ctx->platform_name, "Portable Computing Language") && !(pocl_cache && !strcmp(pocl_cache, "0"));
}

int clprim_cache_slot_for(clprim_context *ctx, const char *options, const char *source, clprim_cache_slot *slot,
                          const char **why)
{
    if (driver_caches_programs(ctx)) {
        snprintf(ctx->cache_note, sizeof ctx->cache_note,
                 "PoCL caches the programs it builds itself ($POCL_CACHE_DIR), so the disk cache is not used on "
                 "this device ($POCL_KERNEL_CACHE=0 turns PoCL's off and the disk cache on)");
        return *why = ctx->cache_note, 0;
    }
    if (!cache_folder(slot->dir, sizeof slot->dir, why))
        return ctx->cache_note[0] = '\0', 0;
    *why = ctx->cache_note;
    if (!cache_folder_usable(slot->dir, 1, ctx->cache_note, sizeof ctx->cache_note))
        return 0;
    slot->cap = cache_cap(ctx->cache_note, sizeof ctx->cache_note);
    if (!slot->cap)
        return *why = "the disk cache is off ($CLPRIM_CACHE_MAX is 0)", 0;
    const char *parts[] = {KERNEL_CACHE_VERSION, ctx->platform_name, ctx->device_name, ctx->driver_version,
                           options, source};
    size_t n = sizeof parts / sizeof parts[0];
    slot->key_size = 0;
    for (size_t i = 0; i < n; i++)
        slot->key_size += strlen(parts[i]) + 1;
    slot->key = malloc(slot->key_size);
    if (!slot->key)
        return *why = "out of host memory for the key", 0;
    for (size_t i = 0, used = 0; i < n; i++) {
        size_t len = strlen(parts[i]) + 1;
        memcpy(slot->key + used, parts[i], len);
        used += len;
    }
    slot->key1 = fnv1a(0xcbf29ce484222325ull, slot->key, slot->key_size);
    slot->key2 = fnv1a(0x84222325cbf29ce4ull, slot->key, slot->key_size);
    snprintf(slot->path, sizeof slot->path, "%s/%016llx.bin", slot->dir, (unsigned long long)slot->key1);
    return 1;
}

/* A program from a cache entry, or NULL with *why (for the log) when the entry
 * is missing, not a regular file, too large, truncated, for another key, or
 * rejected by the driver: then the caller builds from source. A load marks the
 * entry as just used (its mtime), for the size cap. */
cl_program clprim_cache_load(clprim_context *ctx, const clprim_cache_slot *slot, const char *options, const char **why)
{
    struct stat st;
    if (lstat(slot->path, &st) != 0 && errno == ENOENT)
        return *why = "no entry", NULL;
    char *data;
    size_t length;
    const char *unread = clprim_read_regular_file(slot->path, 0, MAX_CACHE_ENTRY_BYTES, &data, &length);
    if (unread)
        return *why = unread, NULL;
    cl_program program = NULL;
    cache_header head;
    const size_t start = sizeof cache_magic + sizeof head;
    *why = "entry damaged (its header, sizes or checksum are wrong)";
    if (length >= start && !memcmp(data, cache_magic, sizeof cache_magic)) {
        memcpy(&head, data + sizeof cache_magic, sizeof head);
        size_t rest = length - start;
        const unsigned char *key = (const unsigned char *)data + start;
        const unsigned char *binary = key + (slot->key_size <= rest ? slot->key_size : 0);
        size_t size = rest - (size_t)(binary - key);
        if (head.key1 != slot->key1 || head.key2 != slot->key2 || head.key_size != slot->key_size ||
            slot->key_size > rest || memcmp(key, slot->key, slot->key_size))
            *why = "key mismatch (the entry holds another program)";
        else if (head.binary_size == size && size > 0 &&
                 head.checksum == fnv1a(fnv1a(0xcbf29ce484222325ull, key, slot->key_size), binary, size)) {
            cl_int err, status;
            program = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, &binary, &status, &err);
            if (err != CL_SUCCESS || status != CL_SUCCESS ||
                clBuildProgram(program, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
                if (program)
                    clReleaseProgram(program);
                program = NULL;
                *why = "the driver rejected the entry's binary";
            }
        }
    }
    free(data);
    if (program)
        utimensat(AT_FDCWD, slot->path, NULL, AT_SYMLINK_NOFOLLOW);
    return program;
}

static int write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t put = write(fd, p, size);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return 0;
        p += put;
        size -= (size_t)put;
    }
    return 1;
}

/* Best effort: a cache that cannot be written only costs a rebuild next time.
 * The entry is written to a fresh temporary of a random name (mkstemp: created
 * exclusively, never through a symlink, mode 0600), then renamed into place, so
 * readers see a whole entry or none; then the folder is trimmed to its cap. */
void clprim_cache_store(const clprim_cache_slot *slot, cl_program program)
{
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size)
        return;
    unsigned char *binary = malloc(size);
    if (!binary)
        return;
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", slot->path);
    int fd = clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) == CL_SUCCESS
                 ? mkstemp(tmp)
                 : -1;
    int stored = 0;
    if (fd >= 0) {
        cache_header head = {slot->key1, slot->key2, slot->key_size, size,
                             fnv1a(fnv1a(0xcbf29ce484222325ull, slot->key, slot->key_size), binary, size)};
        int ok = write_all(fd, cache_magic, sizeof cache_magic) && write_all(fd, &head, sizeof head) &&
                 write_all(fd, slot->key, slot->key_size) && write_all(fd, binary, size);
        ok = (close(fd) == 0) && ok;
        stored = ok && rename(tmp, slot->path) == 0;
        if (!stored)
            unlink(tmp);
    }
    free(binary);
    if (stored)
        cache_trim(slot->dir, slot->cap);
}

const char *clprim_cache_note(const clprim_context *ctx)
{
    return ctx->cache_note;
}
