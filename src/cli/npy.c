/* .npy files and raw arrays (npy.h). The header is a Python dict literal,
 * {'descr': '<f4', 'fortran_order': False, 'shape': (10,), }, read here by a
 * small parser that takes what numpy writes (and any spacing, quotes and key
 * order a Python literal allows) and refuses everything else by name. */
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* numpy's own limit on the header np.load reads (max_header_size): a header of
 * one dtype and a shape is under a hundred bytes. */
#define MAX_HEADER 10000
#define MAX_DIMS 64

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* Indexed by clprim_type. kind and size spell the dtype as numpy does ("<i4"). */
static const struct {
    const char *name, *alias;
    size_t size;
    char kind;
} types[] = {
    [CLPRIM_INT32] = {"int32", NULL, 4, 'i'},  [CLPRIM_UINT32] = {"uint32", NULL, 4, 'u'},
    [CLPRIM_INT64] = {"int64", NULL, 8, 'i'},  [CLPRIM_UINT64] = {"uint64", NULL, 8, 'u'},
    [CLPRIM_FLOAT] = {"float32", "float", 4, 'f'}, [CLPRIM_DOUBLE] = {"float64", "double", 8, 'f'},
    [CLPRIM_UINT8] = {"uint8", NULL, 1, 'u'},
};
#define TYPES (sizeof types / sizeof types[0])

const char *cli_type_name(clprim_type t)
{
    return (size_t)t < TYPES ? types[t].name : "?";
}

size_t cli_type_size(clprim_type t)
{
    return (size_t)t < TYPES ? types[t].size : 0;
}

int cli_parse_type(const char *name, clprim_type *t)
{
    for (size_t i = 0; i < TYPES; i++)
        if (!strcmp(name, types[i].name) || (types[i].alias && !strcmp(name, types[i].alias))) {
            *t = (clprim_type)i;
            return 1;
        }
    return 0;
}

double cli_load_double(clprim_type t, const void *p)
{
    switch (t) {
    case CLPRIM_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case CLPRIM_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case CLPRIM_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case CLPRIM_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case CLPRIM_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case CLPRIM_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case CLPRIM_UINT8: return *(const uint8_t *)p;
    }
    return 0;
}

int cli_fits_double(clprim_type t, double v)
{
    /* The conversion is undefined when the value, its fraction dropped, is outside the range. */
    switch (t) {
    case CLPRIM_INT32: return v > -2147483649.0 && v < 2147483648.0;
    case CLPRIM_UINT32: return v > -1.0 && v < 4294967296.0;
    case CLPRIM_INT64: return v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    case CLPRIM_UINT64: return v > -1.0 && v < 18446744073709551616.0;
    case CLPRIM_FLOAT: return fabs(v) <= FLT_MAX;
    case CLPRIM_DOUBLE: return 1;
    case CLPRIM_UINT8: return v > -1.0 && v < 256.0;
    }
    return 0;
}

void cli_store_double(clprim_type t, double v, void *p)
{
    switch (t) {
    case CLPRIM_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case CLPRIM_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case CLPRIM_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    case CLPRIM_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    case CLPRIM_FLOAT: { float x = (float)v; memcpy(p, &x, 4); break; }
    case CLPRIM_DOUBLE: memcpy(p, &v, 8); break;
    case CLPRIM_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    }
}

static int fail(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return -1;
}

static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

static void swap_bytes(unsigned char *data, size_t n, size_t es)
{
    for (size_t i = 0; i < n; i++, data += es)
        for (size_t a = 0, b = es - 1; a < b; a++, b--) {
            unsigned char c = data[a];
            data[a] = data[b];
            data[b] = c;
        }
}

static const char *input_name(const char *path)
{
    return strcmp(path, "-") ? path : "standard input";
}

/* All of path, or of standard input for "-". */
static unsigned char *read_all(const char *path, size_t *length, char *why, size_t size)
{
    const char *name = input_name(path);
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fail(why, size, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    size_t cap = 65536, used = 0;
    if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size < SIZE_MAX)
        cap = (size_t)st.st_size + 1; /* one byte more: the end shows at once */
    unsigned char *data = malloc(cap);
    for (;;) {
        if (!data)
            break;
        size_t got;
        while (used < cap && (got = fread(data + used, 1, cap - used, f)) > 0)
            used += got;
        if (used < cap)
            break;
        unsigned char *more = cap <= SIZE_MAX / 2 ? realloc(data, cap * 2) : NULL;
        if (!more)
            free(data);
        data = more, cap *= 2;
    }
    int err = ferror(f) ? errno : 0;
    if (f != stdin)
        fclose(f);
    if (!data) {
        fail(why, size, "out of host memory reading %s", name);
        return NULL;
    }
    if (err) {
        free(data);
        fail(why, size, "cannot read %s: %s", name, strerror(err));
        return NULL;
    }
    *length = used;
    return data;
}

/* ---- The header ---- */

typedef struct {
    const char *start, *p, *end;
    const char *name; /* the file, for messages */
    char *why;
    size_t size;
} header;

static int malformed(header *h, const char *what)
{
    return fail(h->why, h->size, "%s: malformed .npy header: %s at byte %zu of the header", h->name, what,
                (size_t)(h->p - h->start));
}

static void skip_space(header *h)
{
    while (h->p < h->end && strchr(" \t\r\n", *h->p))
        h->p++;
}

static int take(header *h, char c)
{
    skip_space(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return 1;
    }
    return 0;
}

/* A word such as True, not followed by more of a name. */
static int take_word(header *h, const char *word)
{
    skip_space(h);
    size_t n = strlen(word);
    if ((size_t)(h->end - h->p) < n || memcmp(h->p, word, n) ||
        (h->p + n < h->end && (isalnum((unsigned char)h->p[n]) || h->p[n] == '_')))
        return 0;
    h->p += n;
    return 1;
}

/* A quoted string without escapes (no dtype or key needs one). */
static int string(header *h, char *out, size_t cap)
{
    skip_space(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
        return malformed(h, "expected a quoted string");
    const char quote = *h->p++;
    size_t n = 0;
    while (h->p < h->end && *h->p != quote) {
        if (*h->p == '\\' || *h->p == '\n' || n + 1 >= cap)
            return malformed(h, n + 1 >= cap ? "string too long" : "unexpected character in a string");
        out[n++] = *h->p++;
    }
    if (h->p >= h->end)
        return malformed(h, "unterminated string");
    h->p++;
    out[n] = '\0';
    return 0;
}

/* A whole number (Python 2's files may end it with L). */
static int integer(header *h, uint64_t *v)
{
    skip_space(h);
    if (h->p >= h->end || !isdigit((unsigned char)*h->p))
        return malformed(h, "expected a whole number in the shape");
    *v = 0;
    for (; h->p < h->end && isdigit((unsigned char)*h->p); h->p++) {
        unsigned digit = (unsigned)(*h->p - '0');
        if (*v > (UINT64_MAX - digit) / 10)
            return malformed(h, "a dimension too large");
        *v = *v * 10 + digit;
    }
    if (h->p < h->end && *h->p == 'L')
        h->p++;
    return 0;
}

/* (), (n,), (a, b), (a, b,) ...: a Python tuple; (n) is a number, not a shape. */
static int shape(header *h, uint64_t *dims, size_t *ndim)
{
    if (!take(h, '('))
        return malformed(h, "expected the shape as a tuple");
    *ndim = 0;
    if (take(h, ')'))
        return 0;
    for (;;) {
        if (*ndim == MAX_DIMS)
            return malformed(h, "more than 64 dimensions");
        if (integer(h, &dims[(*ndim)++]) != 0)
            return -1;
        int comma = take(h, ',');
        if (take(h, ')'))
            return *ndim == 1 && !comma ? malformed(h, "a shape of one dimension needs a comma, (n,)") : 0;
        if (!comma)
            return malformed(h, "expected ',' or ')' in the shape");
    }
}

/* numpy's name of a dtype the tool does not take, for the refusal. */
static void dtype_words(char kind, unsigned long bytes, char *out, size_t cap)
{
    switch (kind) {
    case 'b': snprintf(out, cap, "bool"); break;
    case 'i': snprintf(out, cap, "int%lu", bytes * 8); break;
    case 'u': snprintf(out, cap, "uint%lu", bytes * 8); break;
    case 'f': snprintf(out, cap, "float%lu", bytes * 8); break;
    case 'c': snprintf(out, cap, "complex%lu", bytes * 8); break;
    case 'U': snprintf(out, cap, "unicode strings"); break;
    case 'S': snprintf(out, cap, "byte strings"); break;
    case 'V': snprintf(out, cap, "raw records"); break;
    case 'M': snprintf(out, cap, "datetime64"); break;
    case 'm': snprintf(out, cap, "timedelta64"); break;
    default: snprintf(out, cap, "not a number type"); break;
    }
}

/* '<f4', '>i8', '|u1': the type and whether its bytes must be swapped. */
static int dtype(header *h, const char *descr, clprim_type *t, int *swap)
{
    const char *d = descr;
    char order = strchr("<>|=", *d) && *d ? *d++ : '|';
    if (*d == 'O')
        return fail(h->why, h->size,
                    "%s: an object array (dtype '%s') holds Python objects, not numbers: clprim cannot read it",
                    h->name, descr);
    char kind = *d ? *d++ : '\0';
    char *end;
    errno = 0;
    unsigned long bytes = isdigit((unsigned char)*d) ? strtoul(d, &end, 10) : 0;
    if (bytes && !*end && errno == 0)
        for (size_t i = 0; i < TYPES; i++)
            if (types[i].kind == kind && types[i].size == bytes) {
                *t = (clprim_type)i;
                *swap = bytes > 1 && ((order == '>' && little_endian()) || (order == '<' && !little_endian()));
                return 0;
            }
    char words[32];
    dtype_words(kind, bytes, words, sizeof words);
    return fail(h->why, h->size, "%s: unsupported dtype '%s' (%s); clprim takes " CLI_TYPE_NAMES, h->name, descr,
                words);
}

/* The dict: descr, fortran_order and shape, once each, in any order. */
static int parse_header(header *h, clprim_type *t, int *swap, uint64_t *dims, size_t *ndim, int *fortran)
{
    int seen[3] = {0, 0, 0};
    char key[32], descr[64];
    if (!take(h, '{'))
        return malformed(h, "expected '{'");
    while (!take(h, '}')) {
        if (string(h, key, sizeof key) != 0)
            return -1;
        static const char *const keys[] = {"descr", "fortran_order", "shape"};
        int k = 0;
        while (k < 3 && strcmp(key, keys[k]))
            k++;
        if (k == 3)
            return fail(h->why, h->size,
                        "%s: malformed .npy header: unexpected key '%s' (want 'descr', 'fortran_order' and 'shape')",
                        h->name, key);
        if (seen[k]++)
            return malformed(h, "a key given twice");
        if (!take(h, ':'))
            return malformed(h, "expected ':' after a key");
        if (k == 0) {
            skip_space(h);
            if (h->p < h->end && *h->p == '[')
                return fail(h->why, h->size,
                            "%s: a structured dtype (records of fields) is not an array of numbers: clprim "
                            "takes one of " CLI_TYPE_NAMES,
                            h->name);
            if (string(h, descr, sizeof descr) != 0)
                return -1;
        } else if (k == 1) {
            if (take_word(h, "True"))
                *fortran = 1;
            else if (take_word(h, "False"))
                *fortran = 0;
            else
                return malformed(h, "expected True or False for 'fortran_order'");
        } else if (shape(h, dims, ndim) != 0) {
            return -1;
        }
        if (!take(h, ',')) {
            if (take(h, '}'))
                break;
            return malformed(h, "expected ',' or '}'");
        }
    }
    skip_space(h);
    if (h->p != h->end)
        return malformed(h, "text after the closing '}'");
    if (!seen[0] || !seen[1] || !seen[2])
        return fail(h->why, h->size, "%s: malformed .npy header: no '%s' key", h->name,
                    !seen[0] ? "descr" : !seen[1] ? "fortran_order" : "shape");
    return dtype(h, descr, t, swap);
}

/* ---- Reading ---- */

static int read_npy(const char *path, unsigned char *file, size_t length, cli_array *a, char *why, size_t size)
{
    const char *name = input_name(path);
    if (length < sizeof magic && memcmp(file, magic, length) == 0)
        return fail(why, size, "%s: truncated: %zu bytes, less than the .npy magic", name, length);
    if (memcmp(file, magic, sizeof magic))
        return fail(why, size,
                    "%s: not a .npy file (it does not start with numpy's magic \\x93NUMPY); raw binary needs "
                    "--type",
                    name);
    if (length < 8)
        return fail(why, size, "%s: truncated: it ends inside the .npy magic and version", name);
    const unsigned major = file[6], minor = file[7];
    if (major < 1 || major > 3 || minor != 0)
        return fail(why, size, "%s: .npy format version %u.%u: clprim reads 1.0, 2.0 and 3.0", name, major, minor);
    const size_t prefix = major == 1 ? 10 : 12;
    if (length < prefix)
        return fail(why, size, "%s: truncated: it ends inside the .npy header's length", name);
    const size_t header_len = major == 1 ? (size_t)file[8] | (size_t)file[9] << 8
                                         : (size_t)file[8] | (size_t)file[9] << 8 | (size_t)file[10] << 16 |
                                               (size_t)file[11] << 24;
    if (header_len > MAX_HEADER)
        return fail(why, size, "%s: header too long: %zu bytes, more than the %d that numpy itself reads", name,
                    header_len, MAX_HEADER);
    if (length - prefix < header_len)
        return fail(why, size, "%s: truncated: it ends inside its header (%zu of %zu bytes)", name, length - prefix,
                    header_len);

    header h = {(const char *)file + prefix, (const char *)file + prefix, (const char *)file + prefix + header_len,
                name, why, size};
    uint64_t dims[MAX_DIMS];
    size_t ndim = 0;
    int swap = 0, fortran = 0;
    clprim_type t = CLPRIM_INT32;
    if (parse_header(&h, &t, &swap, dims, &ndim, &fortran) != 0)
        return -1;
    if (fortran && ndim > 1)
        return fail(why, size,
                    "%s: the array is in Fortran order (column-major); clprim reads C order: save "
                    "np.ascontiguousarray(a)",
                    name);
    const size_t es = types[t].size;
    uint64_t n = 1;
    for (size_t d = 0; d < ndim; d++) {
        if (dims[d] && n > SIZE_MAX / es / dims[d])
            return fail(why, size, "%s: its shape declares more elements than this machine can address", name);
        n *= dims[d];
    }
    const size_t want = (size_t)n * es, have = length - prefix - header_len;
    if (have < want)
        return fail(why, size,
                    "%s: truncated: its header declares %zu %s elements (%zu bytes) but only %zu bytes of data "
                    "follow",
                    name, (size_t)n, types[t].name, want, have);
    if (have > want)
        return fail(why, size, "%s: %zu bytes follow the %zu %s elements its header declares", name, have - want,
                    (size_t)n, types[t].name);
    memmove(file, file + prefix + header_len, want);
    if (swap)
        swap_bytes(file, (size_t)n, es);
    *a = (cli_array){file, (size_t)n, t, 1};
    return 0;
}

int cli_array_read(const char *path, int raw, clprim_type raw_type, cli_array *a, char *why, size_t size)
{
    size_t length;
    unsigned char *file = read_all(path, &length, why, size);
    if (!file)
        return -1;
    int rc;
    if (!raw) {
        rc = read_npy(path, file, length, a, why, size);
    } else if (length >= sizeof magic && !memcmp(file, magic, sizeof magic)) {
        rc = fail(why, size, "%s is a .npy file: leave out --type to read it as one", input_name(path));
    } else if (length % types[raw_type].size) {
        rc = fail(why, size, "%s: %zu bytes are not a whole number of %zu-byte %s elements", input_name(path),
                  length, types[raw_type].size, types[raw_type].name);
    } else {
        *a = (cli_array){file, length / types[raw_type].size, raw_type, 0};
        rc = 0;
    }
    if (rc != 0)
        free(file);
    return rc;
}

void cli_array_free(cli_array *a)
{
    free(a->data);
    a->data = NULL;
}

int cli_is_npy_name(const char *path)
{
    size_t len = strlen(path);
    return len >= 4 && strcasecmp(path + len - 4, ".npy") == 0;
}

int cli_array_out_is_npy(const char *path, int raw, int input_npy)
{
    if (raw)
        return 0;
    return strcmp(path, "-") ? cli_is_npy_name(path) : input_npy;
}

/* ---- Writing ---- */

void cli_array_write(cli_output *o, const void *data, size_t n, clprim_type t, int npy)
{
    const size_t es = types[t].size;
    if (npy) {
        /* As numpy writes it: the dict padded with spaces to a newline that
         * ends the header on a multiple of 64 bytes. */
        char dict[160];
        int len = snprintf(dict, sizeof dict, "{'descr': '%c%c%zu', 'fortran_order': False, 'shape': (%zu,), }",
                           es == 1 ? '|' : '<', types[t].kind, es, n);
        size_t total = 10 + (size_t)len + 1, pad = (64 - total % 64) % 64, header_len = (size_t)len + pad + 1;
        unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(header_len & 0xff),
                                    (unsigned char)(header_len >> 8)};
        cli_output_write(o, prefix, sizeof prefix);
        cli_output_write(o, dict, (size_t)len);
        for (size_t i = 0; i < pad; i++)
            cli_output_write(o, " ", 1);
        cli_output_write(o, "\n", 1);
    }
    if (!npy || little_endian() || es == 1) {
        cli_output_write(o, data, n * es);
        return;
    }
    unsigned char chunk[4096];
    const size_t per = sizeof chunk / es;
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        memcpy(chunk, (const unsigned char *)data + i * es, m * es);
        swap_bytes(chunk, m, es);
        cli_output_write(o, chunk, m * es);
    }
}
