/* Kernel programs: finding .cl files, building them with -D options, and caching
 * the result per context (memory) and per device (disk). */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Part of every disk-cache key: bump it when the kernels' contract changes, so
 * new kernels never meet stale binaries even if the text hash were to match. */
#define KERNEL_CACHE_VERSION "clprim-" CLPRIM_VERSION_STRING "-k1"

typedef struct {
    char *name;
    cl_kernel kernel;
} kernel_entry;

struct clprim_program_entry {
    char *file;
    char *options;
    cl_program program;
    kernel_entry kernels[8];
    size_t nkernels;
    clprim_program_entry *next;
};

/* ---- Reading source ---- */

static char *read_file(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t used = 0, cap = 0;
    for (;;) {
        if (cap - used < 4096) {
            cap = cap ? cap * 2 : 16384;
            char *grown = realloc(data, cap + 1);
            if (!grown) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        size_t got = fread(data + used, 1, cap - used, f);
        used += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(data);
        return NULL;
    }
    data[used] = '\0';
    if (length)
        *length = used;
    return data;
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

/* Finds `file` along $CLPRIM_KERNEL_PATH, the source tree, the installed folder.
 * Writes the folder that holds it to dir. */
static clprim_status find_kernel_dir(clprim_context *ctx, const char *file, char *dir, size_t size)
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
    const char *builtin[] = {CLPRIM_SOURCE_KERNEL_DIR, CLPRIM_INSTALL_KERNEL_DIR};
    for (size_t i = 0; i < 2; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", builtin[i], file);
        if (is_file(path)) {
            snprintf(dir, size, "%s", builtin[i]);
            return CLPRIM_SUCCESS;
        }
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s%.1000s", used ? ", " : "", builtin[i]);
    }
    return clprim_fail(ctx, CLPRIM_KERNEL_NOT_FOUND,
                       "kernel file %s not found; searched $CLPRIM_KERNEL_PATH, then: %s", file, tried);
}

/* Loads dir/file with its `#include "x.cl"` lines replaced by the text of x.cl
 * from the same folder. One self-contained text needs no -I path (which some
 * drivers mishandle when it has spaces), and its hash covers every included file. */
static char *load_source(const char *dir, const char *file, int depth)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = read_file(path, NULL);
    if (!text || depth > 8)
        return text;
    size_t cap = strlen(text) + 256, used = 0;
    char *out = malloc(cap);
    unsigned line_no = 0;
    for (char *line = text; out && *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        line_no++;
        char name[256];
        char *piece = NULL;
        if (sscanf(line, " #include \"%255[^\"]\"", name) == 1 ||
            sscanf(line, " # include \"%255[^\"]\"", name) == 1) {
            char *inner = load_source(dir, name, depth + 1);
            if (!inner) {
                free(out);
                free(text);
                return NULL;
            }
            size_t need = strlen(inner) + strlen(name) + strlen(file) + 64;
            piece = malloc(need);
            if (piece)
                snprintf(piece, need, "#line 1 \"%s\"\n%s\n#line %u \"%s\"\n", name, inner, line_no + 1, file);
            free(inner);
        }
        size_t add = piece ? strlen(piece) : len;
        if (used + add + 1 > cap) {
            cap = (used + add + 1) * 2;
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                out = NULL;
                free(piece);
                break;
            }
            out = grown;
        }
        memcpy(out + used, piece ? piece : line, add);
        used += add;
        free(piece);
        line += len;
    }
    if (out)
        out[used] = '\0';
    free(text);
    return out;
}

/* ---- The disk cache ---- */

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t hash_strings(uint64_t seed, const char *const *parts, size_t n)
{
    uint64_t h = seed;
    for (size_t i = 0; i < n; i++)
        h = fnv1a(h, parts[i], strlen(parts[i]) + 1); /* the NUL separates parts */
    return h;
}

typedef struct {
    char dir[4096];
    char path[4200];
    uint64_t key1, key2; /* two independent hashes of the same key parts */
} cache_slot;

static const char cache_magic[8] = {'C', 'L', 'P', 'R', 'I', 'M', 'B', '1'};

static int cache_folder(char *dir, size_t size)
{
    const char *env = getenv("CLPRIM_CACHE_DIR");
    if (env)
        return *env ? (snprintf(dir, size, "%s", env), 1) : 0; /* set but empty: no disk cache */
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && *xdg)
        return snprintf(dir, size, "%s/clprim", xdg), 1;
    const char *home = getenv("HOME");
    if (home && *home)
        return snprintf(dir, size, "%s/.cache/clprim", home), 1;
    return 0;
}

static int make_dirs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                return 0;
            *p = '/';
        }
    return mkdir(path, 0755) == 0 || errno == EEXIST;
}

static int cache_slot_for(const clprim_context *ctx, const char *options, const char *source, cache_slot *slot)
{
    if (!cache_folder(slot->dir, sizeof slot->dir))
        return 0;
    const char *parts[] = {KERNEL_CACHE_VERSION, ctx->platform_name, ctx->device_name, ctx->driver_version,
                           options, source};
    size_t n = sizeof parts / sizeof parts[0];
    slot->key1 = hash_strings(0xcbf29ce484222325ull, parts, n);
    slot->key2 = hash_strings(0x84222325cbf29ce4ull, parts, n);
    snprintf(slot->path, sizeof slot->path, "%s/%016llx.bin", slot->dir, (unsigned long long)slot->key1);
    return 1;
}

/* A program from a cache entry, or NULL when the entry is missing, truncated,
 * for another key, or rejected by the driver: then the caller builds from source. */
static cl_program cache_load(clprim_context *ctx, const cache_slot *slot, const char *options)
{
    size_t length;
    unsigned char *data = (unsigned char *)read_file(slot->path, &length);
    if (!data)
        return NULL;
    cl_program program = NULL;
    uint64_t head[4]; /* key1, key2, binary size, binary checksum */
    if (length >= sizeof cache_magic + sizeof head && !memcmp(data, cache_magic, sizeof cache_magic)) {
        memcpy(head, data + sizeof cache_magic, sizeof head);
        const unsigned char *binary = data + sizeof cache_magic + sizeof head;
        size_t size = length - sizeof cache_magic - sizeof head;
        if (head[0] == slot->key1 && head[1] == slot->key2 && head[2] == size &&
            head[3] == fnv1a(0xcbf29ce484222325ull, binary, size)) {
            cl_int err, status;
            program = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, &binary, &status, &err);
            if (err != CL_SUCCESS || status != CL_SUCCESS ||
                clBuildProgram(program, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
                if (program)
                    clReleaseProgram(program);
                program = NULL;
            }
        }
    }
    free(data);
    return program;
}

/* Best effort: a cache that cannot be written only costs a rebuild next time. */
static void cache_store(clprim_context *ctx, const cache_slot *slot, cl_program program)
{
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size)
        return;
    unsigned char *binary = malloc(size);
    if (!binary)
        return;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) == CL_SUCCESS &&
        make_dirs(slot->dir)) {
        uint64_t head[4] = {slot->key1, slot->key2, size, fnv1a(0xcbf29ce484222325ull, binary, size)};
        char tmp[4300];
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", slot->path, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        if (f) {
            int ok = fwrite(cache_magic, sizeof cache_magic, 1, f) == 1 && fwrite(head, sizeof head, 1, f) == 1 &&
                     fwrite(binary, size, 1, f) == 1;
            ok = (fclose(f) == 0) && ok;
            if (!ok || rename(tmp, slot->path) != 0)
                remove(tmp);
        }
    }
    (void)ctx;
    free(binary);
}

/* ---- Building ---- */

static clprim_status build_from_source(clprim_context *ctx, const char *dir, const char *file,
                                       const char *options, const char *source, cl_program *out)
{
    cl_int err;
    cl_program program = clCreateProgramWithSource(ctx->context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "clCreateProgramWithSource for %s/%s", dir, file);
    err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
        char *log = malloc(log_size + 1);
        if (log) {
            log[0] = '\0';
            clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
            log[log_size] = '\0';
        }
        clprim_fail(ctx, CLPRIM_BUILD_FAILED, "building %s/%s with \"%s\" failed on %s (%s); build log:\n",
                    dir, file, options, ctx->device_name, clprim_cl_error_name(err));
        clprim_append_error(ctx, log && *log ? log : "(the driver gave no log)");
        ctx->cl_error = err;
        free(log);
        clReleaseProgram(program);
        return CLPRIM_BUILD_FAILED;
    }
    *out = program;
    return CLPRIM_SUCCESS;
}

static clprim_status get_program(clprim_context *ctx, const char *file, const char *options,
                                 clprim_program_entry **out)
{
    for (clprim_program_entry *e = ctx->programs; e; e = e->next)
        if (!strcmp(e->file, file) && !strcmp(e->options, options)) {
            *out = e;
            return CLPRIM_SUCCESS;
        }
    char dir[4096];
    clprim_status s = find_kernel_dir(ctx, file, dir, sizeof dir);
    if (s != CLPRIM_SUCCESS)
        return s;
    char *source = load_source(dir, file, 0);
    if (!source)
        return clprim_fail(ctx, CLPRIM_KERNEL_NOT_FOUND,
                           "cannot read %s/%s or a file it includes from the same folder", dir, file);

    cache_slot slot;
    int cached = cache_slot_for(ctx, options, source, &slot);
    cl_program program = cached ? cache_load(ctx, &slot, options) : NULL;
    if (program) {
        ctx->programs_loaded++;
    } else {
        s = build_from_source(ctx, dir, file, options, source, &program);
        if (s != CLPRIM_SUCCESS) {
            free(source);
            return s;
        }
        ctx->programs_compiled++;
        if (cached)
            cache_store(ctx, &slot, program);
    }
    free(source);

    clprim_program_entry *e = calloc(1, sizeof *e);
    if (e) {
        e->file = strdup(file);
        e->options = strdup(options);
    }
    if (!e || !e->file || !e->options) {
        if (e) {
            free(e->file);
            free(e->options);
        }
        free(e);
        clReleaseProgram(program);
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    }
    e->program = program;
    e->next = ctx->programs;
    ctx->programs = e;
    *out = e;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_get_kernel(clprim_context *ctx, const char *file, const char *options, const char *name,
                                cl_kernel *kernel)
{
    clprim_program_entry *e;
    clprim_status s = get_program(ctx, file, options, &e);
    if (s != CLPRIM_SUCCESS)
        return s;
    for (size_t i = 0; i < e->nkernels; i++)
        if (!strcmp(e->kernels[i].name, name)) {
            *kernel = e->kernels[i].kernel;
            return CLPRIM_SUCCESS;
        }
    if (e->nkernels == sizeof e->kernels / sizeof e->kernels[0])
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "more than %zu kernels asked of %s",
                           sizeof e->kernels / sizeof e->kernels[0], file);
    cl_int err;
    cl_kernel k = clCreateKernel(e->program, name, &err);
    if (err != CL_SUCCESS)
        return clprim_fail_cl(ctx, err, "clCreateKernel(%s) from %s", name, file);
    char *copy = strdup(name);
    if (!copy) {
        clReleaseKernel(k);
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    }
    e->kernels[e->nkernels].name = copy;
    e->kernels[e->nkernels].kernel = k;
    e->nkernels++;
    *kernel = k;
    return CLPRIM_SUCCESS;
}

void clprim_release_programs(clprim_context *ctx)
{
    while (ctx->programs) {
        clprim_program_entry *e = ctx->programs;
        ctx->programs = e->next;
        for (size_t i = 0; i < e->nkernels; i++) {
            clReleaseKernel(e->kernels[i].kernel);
            free(e->kernels[i].name);
        }
        clReleaseProgram(e->program);
        free(e->file);
        free(e->options);
        free(e);
    }
}

void clprim_kernel_options(const clprim_context *ctx, const clprim_type_info *type, int op, char *buf,
                           size_t size)
{
    static const char *const op_defines[] = {[CLPRIM_SUM] = "OP_SUM", [CLPRIM_MIN] = "OP_MIN",
                                             [CLPRIM_MAX] = "OP_MAX"};
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s-D%s%s%s -DWG=%zu -DITEMS=%zu%s", used ? " " : "",
             type ? type->define : "TYPE_NONE", op >= 0 ? " -D" : "", op >= 0 ? op_defines[op] : "",
             ctx->tuning.work_group_size, ctx->tuning.items_per_thread,
             (ctx->device_type & CL_DEVICE_TYPE_CPU) ? " -DDEVICE_CPU" : "");
}
