/* Helpers of the libclprim_mpi test: see mpi_harness.h. */
#include "mpi_harness.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mpi_run run;

/* ---- Cases ---- */

#define MSG_MAX 1024

static char case_name[256];
static char case_context[128];
static char case_msg[MSG_MAX];
static int case_ok = 1;
static int failed_total;

void case_begin(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(case_name, sizeof case_name, fmt, ap);
    va_end(ap);
    case_ok = 1;
    case_msg[0] = '\0';
    case_context[0] = '\0';
}

void case_where(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(case_context, sizeof case_context, fmt, ap);
    va_end(ap);
}

void case_fail(const char *fmt, ...)
{
    if (!case_ok)
        return; /* the first failure says the most */
    case_ok = 0;
    size_t used = 0;
    if (case_context[0])
        used = (size_t)snprintf(case_msg, sizeof case_msg, "%s: ", case_context);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(case_msg + used, sizeof case_msg - used, fmt, ap);
    va_end(ap);
}

int case_end(void)
{
    int all_ok;
    MPI_Allreduce(&case_ok, &all_ok, 1, MPI_INT, MPI_MIN, run.comm);
    if (all_ok) {
        if (run.rank == 0)
            printf("ok %s\n", case_name);
    } else {
        /* The lowest failing rank's message, and how many ranks failed. */
        int me = case_ok ? run.size : run.rank, first;
        MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, run.comm);
        int bad = !case_ok, bad_total;
        MPI_Allreduce(&bad, &bad_total, 1, MPI_INT, MPI_SUM, run.comm);
        char msg[MSG_MAX];
        if (run.rank == first)
            memcpy(msg, case_msg, sizeof msg);
        MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, run.comm);
        if (run.rank == 0) {
            printf("FAIL %s: rank %d: %s", case_name, first, msg);
            if (bad_total > 1)
                printf(" (and %d other rank%s)", bad_total - 1, bad_total > 2 ? "s" : "");
            printf("\n");
        }
        failed_total++;
    }
    fflush(stdout);
    case_ok = 1;
    return all_ok;
}

void case_skip(const char *name, const char *why)
{
    if (run.rank == 0) {
        printf("skip %s: %s\n", name, why);
        fflush(stdout);
    }
}

int cases_failed(void)
{
    return failed_total;
}

int expect_success(clprim_status s, const char *call)
{
    const char *msg = clprim_mpi_last_error();
    if (s != CLPRIM_SUCCESS) {
        case_fail("%s: %s: %s", call, clprim_status_name(s), msg ? msg : "(NULL message)");
        return 0;
    }
    EXPECT(msg && msg[0] == '\0', "%s succeeded but clprim_mpi_last_error() is \"%s\"", call,
           msg ? msg : "(NULL)");
    /* Each part of the time within the whole (1 ms of slack for the clocks). */
    clprim_mpi_times t = clprim_mpi_last_times();
    EXPECT(t.device >= 0 && t.mpi >= 0 && t.total >= 0 && isfinite(t.total) && t.device <= t.total + 1e-3 &&
               t.mpi <= t.total + 1e-3,
           "%s: clprim_mpi_last_times() is device %g, mpi %g, total %g s", call, t.device, t.mpi, t.total);
    return 1;
}

int expect_ref_success(clprim_status s, const char *call)
{
    if (s != CLPRIM_SUCCESS) {
        case_fail("reference %s: %s: %s", call, clprim_status_name(s), clprim_last_error(run.ref));
        return 0;
    }
    return 1;
}

/* 64-bit FNV-1a. */
static uint64_t hash_text(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

int same_on_every_rank(const char *s)
{
    uint64_t h = hash_text(s), lo, hi;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, run.comm);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, run.comm);
    return lo == hi;
}

/* Whether msg says "rank R" (not followed by another digit). */
static int names_rank(const char *msg, int r)
{
    char word[32];
    int len = snprintf(word, sizeof word, "rank %d", r);
    for (const char *at = strstr(msg, word); at; at = strstr(at + 1, word))
        if (at[len] < '0' || at[len] > '9')
            return 1;
    return 0;
}

void expect_refused(clprim_status s, clprim_status want, int at_fault)
{
    const char *msg = clprim_mpi_last_error();
    if (!msg)
        msg = "";
    EXPECT(s == want, "returned %s, expected %s (message \"%s\")", clprim_status_name(s), clprim_status_name(want),
           msg);
    EXPECT(msg[0] != '\0', "clprim_mpi_last_error() is empty after %s", clprim_status_name(s));
    if (!same_on_every_rank(msg))
        case_fail("clprim_mpi_last_error() differs between ranks; here: \"%s\"", msg);
    if (at_fault == RANK_ANY)
        EXPECT(strstr(msg, "rank") != NULL, "clprim_mpi_last_error() names no rank: \"%s\"", msg);
    else if (at_fault >= 0)
        EXPECT(names_rank(msg, at_fault), "clprim_mpi_last_error() does not name rank %d: \"%s\"", at_fault, msg);
    const char *verbose = getenv("CLPRIM_MPI_TEST_VERBOSE");
    if (run.rank == 0 && verbose && *verbose && *verbose != '0')
        printf("# %s: \"%s\"\n", case_name, msg);
}

/* ---- Seeded data ---- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

rng rng_for(const char *name)
{
    rng r = {run.seed ^ hash_text(name)};
    splitmix(&r.s);
    return r;
}

uint64_t rng_next(rng *r)
{
    return splitmix(&r->s);
}

uint64_t rng_below(rng *r, uint64_t n)
{
    return rng_next(r) % n;
}

double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* ---- Slicings ---- */

static void slicing_init(slicing *s, const char *name, size_t n)
{
    snprintf(s->name, sizeof s->name, "%s", name);
    s->n = n;
    s->len = xmalloc(sizeof *s->len * (size_t)run.size);
    s->start = xmalloc(sizeof *s->start * (size_t)run.size);
    memset(s->len, 0, sizeof *s->len * (size_t)run.size);
}

static void slicing_starts(slicing *s)
{
    size_t at = 0;
    for (int r = 0; r < run.size; r++) {
        s->start[r] = at;
        at += s->len[r];
    }
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* n cut at size - 1 random points. */
static void slicing_random(slicing *s, rng *r)
{
    size_t p = (size_t)run.size;
    size_t *cut = xmalloc(sizeof *cut * (p + 1));
    cut[0] = 0;
    for (size_t i = 1; i < p; i++)
        cut[i] = (size_t)rng_below(r, s->n + 1);
    qsort(cut + 1, p - 1, sizeof *cut, cmp_size);
    cut[p] = s->n;
    for (size_t i = 0; i < p; i++)
        s->len[i] = cut[i + 1] - cut[i];
    free(cut);
}

int slicings_make(size_t n_big, rng *r, slicing *out)
{
    size_t p = (size_t)run.size;
    int count = 0;
    slicing *s;

    s = &out[count++];
    slicing_init(s, "even", n_big);
    for (size_t i = 0; i < p; i++)
        s->len[i] = n_big / p + (i < n_big % p);

    s = &out[count++];
    slicing_init(s, "uneven", n_big);
    slicing_random(s, r);

    s = &out[count++];
    slicing_init(s, "last", n_big);
    s->len[p - 1] = n_big;

    s = &out[count++];
    slicing_init(s, "first", n_big);
    s->len[0] = n_big;

    s = &out[count++];
    slicing_init(s, "gaps", n_big);
    size_t holders = (p + 1) / 2;
    for (size_t i = 0; i < p; i += 2)
        s->len[i] = n_big / holders + (i / 2 < n_big % holders);

    /* Rank 0 holds only the first two elements (NaN in DATA_NAN), rank 1
     * nothing, the others the rest. */
    s = &out[count++];
    slicing_init(s, "head", n_big);
    if (p == 1) {
        s->len[0] = n_big;
    } else {
        s->len[0] = 2;
        size_t first = p > 2 ? 2 : 1, holders = p - first, rest = n_big - 2;
        for (size_t i = first; i < p; i++)
            s->len[i] = rest / holders + (i - first < rest % holders);
    }

    s = &out[count++];
    slicing_init(s, "small", 1 + (size_t)rng_below(r, 2 * p + 3));
    slicing_random(s, r);

    s = &out[count++];
    slicing_init(s, "empty", 0);

    for (int i = 0; i < count; i++)
        slicing_starts(&out[i]);
    return count;
}

void slicings_free(slicing *s, int count)
{
    for (int i = 0; i < count; i++) {
        free(s[i].len);
        free(s[i].start);
    }
}

size_t slicings_max_n(const slicing *s, int count)
{
    size_t n = 0;
    for (int i = 0; i < count; i++)
        if (s[i].n > n)
            n = s[i].n;
    return n;
}

/* ---- Types and values ---- */


const char *type_name(clprim_type t)
{
    static const char *names[] = {"int32", "uint32", "int64", "uint64", "float", "double", "uint8"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

const char *elem_text(clprim_type t, const void *p, char buf[64])
{
    switch (t) {
    case CLPRIM_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        snprintf(buf, 64, "%" PRId32, v);
        break;
    }
    case CLPRIM_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        snprintf(buf, 64, "%" PRIu32, v);
        break;
    }
    case CLPRIM_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        snprintf(buf, 64, "%" PRId64, v);
        break;
    }
    case CLPRIM_UINT64: {
        uint64_t v;
        memcpy(&v, p, 8);
        snprintf(buf, 64, "%" PRIu64 " (0x%" PRIx64 ")", v, v);
        break;
    }
    case CLPRIM_FLOAT: {
        float v;
        uint32_t bits;
        memcpy(&v, p, 4);
        memcpy(&bits, p, 4);
        snprintf(buf, 64, "%.9g (0x%08" PRIx32 ")", (double)v, bits);
        break;
    }
    case CLPRIM_DOUBLE: {
        double v;
        memcpy(&v, p, 8);
        snprintf(buf, 64, "%.17g", v);
        break;
    }
    default:
        snprintf(buf, 64, "%u", *(const unsigned char *)p);
    }
    return buf;
}

static float float_of_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static float gen_float(data_kind kind, rng *r, size_t i)
{
    static const float dup8[8] = {-2.5f, -1.0f, -0.0f, 0.0f, 0.5f, 1.0f, 3.0f, 7.25f};
    float random = (float)(rng_unit(r) * 200.0 - 100.0);
    switch (kind) {
    case DATA_SMALL:
        return (float)rng_below(r, 41) * 0.5f - 5.0f;
    case DATA_NAN:
        return i < 2 || rng_below(r, 100) == 0 ? NAN : random;
    case DATA_DUP8:
        return dup8[rng_below(r, 8)];
    case DATA_HALF_ZERO:
        return rng_below(r, 2) ? 0.0f : random;
    case DATA_SPECIAL:
        if (rng_below(r, 4) == 0) {
            const float special[] = {-0.0f,        0.0f,      NAN,     float_of_bits(0xFFC00000u),
                                     float_of_bits(0x7FC00001u), INFINITY, -INFINITY, 1e-40f,
                                     -1e-40f,     FLT_MAX,   -FLT_MAX, FLT_MIN};
            return special[rng_below(r, sizeof special / sizeof special[0])];
        }
        return random;
    default:
        return random;
    }
}

static uint64_t gen_int(clprim_type t, data_kind kind, rng *r)
{
    int is_signed = t == CLPRIM_INT32 || t == CLPRIM_INT64;
    uint64_t bits = rng_next(r);
    switch (kind) {
    case DATA_SMALL:
        return is_signed ? (uint64_t)((int64_t)rng_below(r, 21) - 5) : rng_below(r, 21);
    case DATA_ODD:
        return bits | 1;
    case DATA_DUP8:
        return rng_below(r, 8);
    case DATA_HALF_ZERO:
        return rng_below(r, 2) ? 0 : bits | 1;
    default:
        return bits;
    }
}

void generate(clprim_type t, data_kind kind, rng *r, void *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (t) {
        case CLPRIM_FLOAT:
            ((float *)out)[i] = gen_float(kind, r, i);
            break;
        case CLPRIM_DOUBLE:
            ((double *)out)[i] = gen_float(kind, r, i);
            break;
        case CLPRIM_INT64:
        case CLPRIM_UINT64:
            ((uint64_t *)out)[i] = gen_int(t, kind, r);
            break;
        case CLPRIM_UINT8:
            ((uint8_t *)out)[i] = (uint8_t)gen_int(t, kind, r);
            break;
        default:
            ((uint32_t *)out)[i] = (uint32_t)gen_int(t, kind, r);
        }
    }
}

/* ---- Buffers ---- */

cl_mem buffer_make(clprim_context *ctx, size_t bytes, int fill, size_t at, const void *init, size_t init_bytes)
{
    size_t size = bytes ? bytes : 1;
    unsigned char *host = xmalloc(size);
    memset(host, fill, size);
    if (init && init_bytes)
        memcpy(host + at, init, init_bytes);
    cl_int err;
    cl_mem b = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size, host, &err);
    free(host);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "rank %d: clCreateBuffer of %zu bytes: %d\n", run.rank, size, (int)err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return b;
}

int buffer_read(clprim_context *ctx, cl_mem b, size_t at, size_t bytes, void *out)
{
    if (bytes == 0)
        return 1;
    cl_int err = clEnqueueReadBuffer(clprim_queue(ctx), b, CL_TRUE, at, bytes, out, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        case_fail("clEnqueueReadBuffer of %zu bytes at %zu: %d", bytes, at, (int)err);
        return 0;
    }
    return 1;
}

size_t buffer_size(cl_mem b)
{
    size_t size = 0;
    clGetMemObjectInfo(b, CL_MEM_SIZE, sizeof size, &size, NULL);
    return size;
}

void buffer_release(cl_mem b)
{
    if (b)
        clReleaseMemObject(b);
}

int expect_equal_elems(clprim_type t, const void *got, const void *want, size_t count, size_t first_global,
                       const char *what)
{
    size_t es = reference_type_size(t);
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < count; i++) {
        if (memcmp(g + i * es, w + i * es, es) != 0) {
            char a[64], b[64];
            case_fail("%s: element %zu (global) is %s, expected %s", what, first_global + i,
                      elem_text(t, g + i * es, a), elem_text(t, w + i * es, b));
            return 0;
        }
    }
    return 1;
}

int expect_filled(const void *p, size_t bytes, int fill, const char *what)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < bytes; i++) {
        if (c[i] != (unsigned char)fill) {
            case_fail("%s: byte %zu was written (0x%02x, was 0x%02x)", what, i, c[i], (unsigned char)fill);
            return 0;
        }
    }
    return 1;
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "rank %d: out of host memory (%zu bytes)\n", run.rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}
