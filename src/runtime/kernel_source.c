/* Kernel files: finding them along the kernel path, and reading them with their
 * includes expanded into one source text. */
#define _GNU_SOURCE /* dladdr1, realpath */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What is read at most: one kernel file, the text it expands to with its
 * includes, the files on one include chain. */
#define MAX_KERNEL_FILE_BYTES ((size_t)16 << 20)
#define MAX_SOURCE_BYTES ((size_t)64 << 20)
#define MAX_INCLUDE_DEPTH 16

/* ---- Reading files ---- */

/* The whole of a regular file of at most max_bytes, NUL-terminated, into *data
 * (free it). O_NONBLOCK keeps a FIFO from hanging the open; exactly st_size
 * bytes are read, so a device never streams forever. follow_links 0 refuses a
 * symlink. NULL on success, else why not, for messages. */
const char *clprim_read_regular_file(const char *path, int follow_links, size_t max_bytes, char **data,
                                     size_t *length)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW));
    if (fd < 0)
        return strerror(errno);
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if ((uintmax_t)st.st_size > max_bytes)
        why = "larger than the size limit";
    size_t size = why ? 0 : (size_t)st.st_size, used = 0;
    char *buf = why ? NULL : malloc(size + 1);
    if (!why && !buf)
        why = "out of host memory";
    while (!why && used < size) {
        ssize_t got = read(fd, buf + used, size - used);
        if (got > 0)
            used += (size_t)got;
        else if (got == 0)
            why = "shorter than its size";
        else if (errno != EINTR)
            why = strerror(errno);
    }
    close(fd);
    if (why) {
        free(buf);
        return why;
    }
    buf[used] = '\0';
    *data = buf;
    *length = used;
    return NULL;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- Finding kernel files ----
 * Kernels are read at run time. An installed library finds them relative to
 * where it was loaded from, so a moved prefix (a staging folder, a container
 * layer) keeps working, and it never reads a source tree: only a library that
 * runs from inside the build tree it was built in uses that source tree's cl/. */

/* Any object of this library: its address tells the loader which file we are. */
static const char loaded_from_here;

/* The real path of the file this library was loaded from: the shared library,
 * or the executable it is statically linked into (*executable = 1). 0 when the
 * system cannot say. */
static int library_file(char *file, int *executable)
{
    Dl_info info;
    const char *name = NULL;
#ifdef __GLIBC__
    struct link_map *map = NULL;
    if (dladdr1(&loaded_from_here, &info, (void **)&map, RTLD_DL_LINKMAP) && map)
        name = map->l_name; /* "" for the main program, where dli_fname is only argv[0] */
#else
    if (dladdr(&loaded_from_here, &info))
        name = info.dli_fname;
#endif
    if (!name)
        return 0;
    *executable = name[0] == '\0';
    return realpath(*executable ? "/proc/self/exe" : name, file) != NULL;
}

/* Whether path lies inside folder (both real paths). */
static int is_inside(const char *path, const char *folder)
{
    size_t len = strlen(folder);
    return strncmp(path, folder, len) == 0 && (path[len] == '/' || (len > 0 && folder[len - 1] == '/'));
}

/* The folders searched after $CLPRIM_KERNEL_PATH, in order, into dirs; returns
 * how many. The installed kernels relative to the library's folder (or, linked
 * statically, to the program's folder as if it were installed in bindir, then
 * the configured install folder); the source tree's cl/ last, and only from
 * inside the build tree. */
static size_t builtin_kernel_dirs(char dirs[][PATH_MAX + 64], char *note, size_t note_size)
{
    char file[PATH_MAX], build_root[PATH_MAX];
    int executable = 0;
    size_t n = 0;
    note[0] = '\0';
    if (!library_file(file, &executable)) {
        snprintf(note, note_size, " (the library's own location is unknown)");
        return 0;
    }
    const char *installed = executable ? CLPRIM_KERNELS_FROM_BINDIR : CLPRIM_KERNELS_FROM_LIBDIR;
    char *slash = strrchr(file, '/');
    *slash = '\0';
    if (installed[0] == '/') /* configured outside the prefix: not relocatable */
        snprintf(dirs[n++], PATH_MAX + 64, "%s", installed);
    else
        snprintf(dirs[n++], PATH_MAX + 64, "%s/%s", file, installed);
    *slash = '/';
    if (realpath(CLPRIM_BUILD_ROOT, build_root) && is_inside(file, build_root))
        snprintf(dirs[n++], PATH_MAX + 64, "%s", CLPRIM_SOURCE_KERNEL_DIR);
    else if (executable) /* a program anywhere, linked with the installed static library */
        snprintf(dirs[n++], PATH_MAX + 64, "%s", CLPRIM_INSTALL_KERNEL_DIR);
    return n;
}

/* Finds `file` along $CLPRIM_KERNEL_PATH, then builtin_kernel_dirs. Writes the
 * folder that holds it to dir; the failure names every folder tried. */
clprim_status clprim_find_kernel_dir(clprim_context *ctx, const char *file, char *dir, size_t size)
{
    char tried[4096] = "";
    const char *env = getenv("CLPRIM_KERNEL_PATH");
    if (env && *env) {
        const char *p = env;
        while (*p) {
            size_t len = strcspn(p, ":");
            if (len > 0) {
                snprintf(dir, size, "%.*s", (int)len, p);
                if (!is_dir(dir))
                    return clprim_fail(ctx, CLPRIM_KERNEL_NOT_FOUND,
                                       "$CLPRIM_KERNEL_PATH names \"%s\", which is not a folder", dir);
                char path[8192];
                snprintf(path, sizeof path, "%s/%s", dir, file);
                if (is_file(path))
                    return CLPRIM_SUCCESS;
                size_t used = strlen(tried);
                snprintf(tried + used, sizeof tried - used, "%s%.1000s", used ? ", " : "", dir);
            }
            p += len;
            if (*p == ':')
                p++;
        }
    }
    char builtin[2][PATH_MAX + 64], note[64];
    size_t count = builtin_kernel_dirs(builtin, note, sizeof note);
    for (size_t i = 0; i < count; i++) {
        char path[8192];
        int fits = (size_t)snprintf(path, sizeof path, "%s/%s", builtin[i], file) < sizeof path &&
                   (size_t)snprintf(dir, size, "%s", builtin[i]) < size;
        if (fits && is_file(path))
            return CLPRIM_SUCCESS;
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s%.1000s", used ? ", " : "", builtin[i]);
    }
    return clprim_fail(ctx, CLPRIM_KERNEL_NOT_FOUND, "kernel file %s not found; searched: %s%s", file,
                       tried[0] ? tried : "nothing", note);
}

/* ---- Expanding includes ----
 * A kernel file's `#include "x.cl"` lines are replaced by the text of x.cl, a
 * path from the kernel folder ("block/scan.cl" from any file). One
 * self-contained text needs no -I path (which some drivers mishandle when it
 * has spaces), its hash covers every included file, and what is read stays in
 * the kernel folder: an include names a relative path without "." or ".."
 * parts whose folder, links resolved, lies inside the kernel folder, and never
 * a file already on the include chain. */

typedef struct {
    const char *dir;
    const char *files[MAX_INCLUDE_DEPTH + 1]; /* the include chain, outermost first */
    size_t depth;
    char *text; /* the expansion so far */
    size_t used, cap;
} source_loader;

/* The chain "scan.cl -> block/lookback.cl -> next" into buf (next may be NULL). */
static const char *include_chain(const source_loader *l, const char *next, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i <= l->depth; i++) {
        const char *name = i < l->depth ? l->files[i] : next;
        if (!name)
            break;
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", i ? " -> " : "", name);
    }
    return buf;
}

static clprim_status emit(clprim_context *ctx, source_loader *l, const char *data, size_t len)
{
    if (len > MAX_SOURCE_BYTES - l->used) {
        char chain[2048];
        return clprim_fail(ctx, CLPRIM_BUILD_FAILED, "%s/%s expands to more than %zu bytes with its includes (%s)",
                           l->dir, l->files[0], MAX_SOURCE_BYTES, include_chain(l, NULL, chain, sizeof chain));
    }
    if (l->used + len + 1 > l->cap) {
        size_t cap = (l->used + len + 1) * 2;
        char *grown = realloc(l->text, cap);
        if (!grown)
            return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "out of host memory reading %s/%s", l->dir, l->files[0]);
        l->text = grown;
        l->cap = cap;
    }
    memcpy(l->text + l->used, data, len);
    l->used += len;
    l->text[l->used] = '\0';
    return CLPRIM_SUCCESS;
}

/* 0 when the line is no include directive; 1 for `#include "name"` (the name in
 * name); -1 for any other include (<...>, a macro, #include_next, #import, an
 * unterminated or overlong name), which the library does not resolve. */
static int parse_include(const char *line, size_t len, char *name, size_t size)
{
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p++ != '#')
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *word = p;
    while (p < end && (*p == '_' || (*p >= 'a' && *p <= 'z')))
        p++;
    size_t word_len = (size_t)(p - word);
    if (!(word_len == 7 && !strncmp(word, "include", 7)))
        return (word_len == 12 && !strncmp(word, "include_next", 12)) ||
                       (word_len == 6 && !strncmp(word, "import", 6))
                   ? -1
                   : 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p++ != '"')
        return -1;
    const char *close = memchr(p, '"', (size_t)(end - p));
    if (!close || (size_t)(close - p) >= size)
        return -1;
    memcpy(name, p, (size_t)(close - p));
    name[close - p] = '\0';
    return 1;
}

static clprim_status load_file(clprim_context *ctx, source_loader *l, const char *file);

/* Whether name is a relative path whose parts are neither empty, "." nor "..". */
static int is_plain_path(const char *name)
{
    if (*name == '/')
        return 0;
    for (const char *part = name;; part++) {
        const size_t len = strcspn(part, "/");
        if (len == 0 || (part[0] == '.' && (len == 1 || (len == 2 && part[1] == '.'))))
            return 0;
        part += len;
        if (!*part)
            return 1;
    }
}

/* Whether the folder holding dir/name, links resolved, lies inside dir (a
 * linked subfolder may lead out). A folder that does not resolve passes: the
 * read then fails as not found. */
static int folder_stays_inside(const char *dir, const char *name)
{
    const char *slash = strrchr(name, '/');
    char sub[8192], real_dir[PATH_MAX], real_sub[PATH_MAX];
    if (!slash)
        return 1;
    snprintf(sub, sizeof sub, "%s/%.*s", dir, (int)(slash - name), name);
    if (!realpath(sub, real_sub))
        return 1;
    return realpath(dir, real_dir) && (!strcmp(real_sub, real_dir) || is_inside(real_sub, real_dir));
}

/* The include of `name` at line line_no of path (kind from parse_include). */
static clprim_status include_file(clprim_context *ctx, source_loader *l, const char *path, unsigned line_no,
                                  int kind, const char *name)
{
    char chain[2048], directive[512];
    if (kind < 0)
        return clprim_fail(ctx, CLPRIM_BUILD_FAILED,
                           "%s line %u: only #include \"file\" is allowed, naming a file of the kernel folder",
                           path, line_no);
    if (!is_plain_path(name))
        return clprim_fail(ctx, CLPRIM_BUILD_FAILED,
                           "%s line %u: #include \"%s\" refused: a kernel file includes files of the kernel folder "
                           "by their relative path in it, without \".\" or \"..\" parts",
                           path, line_no, name);
    if (!folder_stays_inside(l->dir, name))
        return clprim_fail(ctx, CLPRIM_BUILD_FAILED,
                           "%s line %u: #include \"%s\" refused: its folder lies outside the kernel folder %s", path,
                           line_no, name, l->dir);
    for (size_t i = 0; i < l->depth; i++)
        if (!strcmp(l->files[i], name))
            return clprim_fail(ctx, CLPRIM_BUILD_FAILED, "%s line %u: #include \"%s\" is a cycle: %s", path, line_no,
                               name, include_chain(l, name, chain, sizeof chain));
    if (l->depth > MAX_INCLUDE_DEPTH)
        return clprim_fail(ctx, CLPRIM_BUILD_FAILED, "%s line %u: includes nest deeper than %d files: %s", path,
                           line_no, MAX_INCLUDE_DEPTH, include_chain(l, name, chain, sizeof chain));
    snprintf(directive, sizeof directive, "#line 1 \"%s\"\n", name);
    clprim_status s = emit(ctx, l, directive, strlen(directive));
    if (s == CLPRIM_SUCCESS)
        s = load_file(ctx, l, name);
    snprintf(directive, sizeof directive, "\n#line %u \"%s\"\n", line_no + 1, l->files[l->depth - 1]);
    return s == CLPRIM_SUCCESS ? emit(ctx, l, directive, strlen(directive)) : s;
}

static clprim_status load_file(clprim_context *ctx, source_loader *l, const char *file)
{
    char path[8192], chain[2048];
    snprintf(path, sizeof path, "%s/%s", l->dir, file);
    char *data;
    size_t length;
    const char *why = clprim_read_regular_file(path, 1, MAX_KERNEL_FILE_BYTES, &data, &length);
    if (why && !l->depth)
        return clprim_fail(ctx, CLPRIM_KERNEL_NOT_FOUND, "cannot read kernel file %s: %s", path, why);
    if (why)
        return clprim_fail(ctx, CLPRIM_KERNEL_NOT_FOUND, "cannot read kernel file %s: %s (included by %s)", path,
                           why, include_chain(l, NULL, chain, sizeof chain));
    clprim_log("read kernel file %s", path);
    l->files[l->depth++] = file;
    clprim_status s = CLPRIM_SUCCESS;
    unsigned line_no = 0;
    for (const char *line = data, *end = data + length; s == CLPRIM_SUCCESS && line < end;) {
        const char *newline = memchr(line, '\n', (size_t)(end - line));
        size_t len = newline ? (size_t)(newline - line) + 1 : (size_t)(end - line);
        char name[256];
        int kind = parse_include(line, len, name, sizeof name);
        line_no++;
        s = kind ? include_file(ctx, l, path, line_no, kind, name) : emit(ctx, l, line, len);
        line += len;
    }
    l->depth--;
    free(data);
    return s;
}

/* dir/file with its includes expanded, into *source (free it). */
clprim_status clprim_load_source(clprim_context *ctx, const char *dir, const char *file, char **source)
{
    source_loader l = {.dir = dir, .files = {file}};
    clprim_status s = load_file(ctx, &l, file);
    if (s == CLPRIM_SUCCESS && !l.text)
        s = emit(ctx, &l, "", 0);
    if (s != CLPRIM_SUCCESS) {
        free(l.text);
        return s;
    }
    *source = l.text;
    return CLPRIM_SUCCESS;
}
