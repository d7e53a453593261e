/* The libclprim_mpi test: every call of clprim_mpi.h, run under mpirun.
 *
 *   mpirun -np P test_mpi
 *
 * Every rank generates the same global array from the run's seed, takes its
 * slice (in rank order, of lengths given by a slicing: even, uneven, some or
 * all ranks empty), and makes the call under test. It also runs the core
 * library's single-device call over the whole array on a context of its own,
 * and checks its part of the output against the matching part of that result:
 * bit for bit for integers, MIN and MAX and the sort, within a bound for float
 * sums (which must then give the same bits on a second run). Bad calls
 * (bad_calls.c) must fail with the same status and message on every rank and
 * write nothing.
 *
 * Rank 0 prints a line per case, "ok NAME" or "FAIL NAME: rank R: why", once
 * every rank has its verdict; the exit status is 1 when any case failed.
 * Environment:
 *   CLPRIM_TEST_SEED       the seed (rank 0 draws one otherwise and prints it)
 *   CLPRIM_MPI_TEST_DEVICE the device spec for every rank ("rank-gpu": the GPU
 *                          clprim_mpi_create(NULL) gives each rank), else
 *   CLPRIM_TEST_DEVICES    ';'-separated device specs, each tested in turn
 *                          (as the other suites do); "cpu" by default
 *   CLPRIM_CACHE_DIR       the kernel cache, shared by the ranks
 *   CLPRIM_MPI_TEST_VERBOSE  1: print the message of every refused call */
#include "test_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Large enough to span many work-groups on every device, and not a multiple
 * of anything; small enough for a few ranks on two cores. */
#define N_BIG 300007
#define N_SORT 200003

/* Callers' operators: a product (commutative), and the composition of affine
 * maps x -> m * x + c mod 2^32 packed as (m << 32 | c), which is associative
 * but does not commute, so the ranks' totals must be folded in rank order. */
static const cl_uint one_u32 = 1;
const clprim_operator product_u32 = {"a * b", &one_u32};
static const cl_ulong affine_identity = 1ull << 32;
const clprim_operator affine_u64 = {
    "(((a >> 32) * (b >> 32)) << 32) | (((a & 0xfffffffful) * (b >> 32) + (b & 0xfffffffful)) & 0xfffffffful)",
    &affine_identity};

/* Where each rank puts its slice inside its buffers, so that offsets differ
 * between ranks and the bytes around a slice can be checked. */
#define PAD 3
#define SRC_FILL 0x5A
#define DST_FILL 0xA5

/* ---- Contexts ---- */

static int create_matches_core(const char *spec, const char *name)
{
    case_begin("create %s", name);
    clprim_context *core = NULL;
    clprim_status want = clprim_create(&core, spec);
    clprim_release(core);
    clprim_context *c = NULL;
    clprim_status s = clprim_mpi_create(&c, run.comm, spec);
    /* The core library's verdict on this rank's device; every rank has one. */
    int found = want == CLPRIM_SUCCESS, everywhere;
    MPI_Allreduce(&found, &everywhere, 1, MPI_INT, MPI_MIN, run.comm);
    if (everywhere) {
        expect_success(s, "clprim_mpi_create");
        EXPECT(c != NULL, "clprim_mpi_create succeeded with *ctx NULL");
        if (c)
            EXPECT(clprim_device(c) != NULL, "the context has no device");
    } else {
        EXPECT(s != CLPRIM_SUCCESS, "succeeded where clprim_create fails on some rank");
        EXPECT(c == NULL, "failed with *ctx not NULL");
    }
    clprim_release(c);
    return case_end();
}

/* The device argument of clprim_mpi_create for the device under test. */
static const char *device_arg(void)
{
    return strcmp(run.device, "rank-gpu") ? run.device : NULL;
}

/* Creates run.ctx on run.device. Returns 0 when it cannot be made. */
static int test_create(void)
{
    /* NULL picks $CLPRIM_DEVICE, a GPU by local rank, else clprim_create's
     * default: what clprim_create(NULL) finds when there is no GPU. */
    case_begin("create NULL (the documented pick)");
    clprim_context *c = NULL;
    clprim_status s = clprim_mpi_create(&c, run.comm, NULL);
    if (expect_success(s, "clprim_mpi_create(NULL)")) {
        EXPECT(c != NULL, "*ctx is NULL");
        cl_uint gpus = 0;
        cl_platform_id platforms[16];
        cl_uint np = 0;
        clGetPlatformIDs(16, platforms, &np);
        for (cl_uint i = 0; i < np && i < 16; i++) {
            cl_uint k = 0;
            if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 0, NULL, &k) == CL_SUCCESS)
                gpus += k;
        }
        if (c && gpus == 0 && !getenv("CLPRIM_DEVICE")) {
            clprim_context *core = NULL;
            if (clprim_create(&core, NULL) == CLPRIM_SUCCESS)
                EXPECT(clprim_device(core) == clprim_device(c), "picked another device than clprim_create(NULL)");
            clprim_release(core);
        }
    }
    clprim_release(c);
    case_end();

    create_matches_core("cpu", "\"cpu\"");

    /* One rank's device matches nothing: every rank fails, *ctx NULL. */
    int f = run.size - 1;
    case_begin("create fails on rank %d (no such device): every rank fails", f);
    static int not_a_context;
    c = (clprim_context *)&not_a_context;
    s = clprim_mpi_create(&c, run.comm, run.rank == f ? "no-such-device-anywhere" : device_arg());
    EXPECT(c == NULL, "*ctx is not NULL after a failure");
    expect_refused(s, CLPRIM_NO_DEVICE, f);
    if (s == CLPRIM_SUCCESS && c != (clprim_context *)&not_a_context)
        clprim_release(c);
    case_end();

    case_begin("create on MPI_COMM_NULL is refused");
    c = (clprim_context *)&not_a_context;
    s = clprim_mpi_create(&c, MPI_COMM_NULL, device_arg());
    EXPECT(c == NULL, "*ctx is not NULL after a failure");
    expect_refused(s, CLPRIM_INVALID_ARGUMENT, RANK_NONE);
    if (s == CLPRIM_SUCCESS && c != (clprim_context *)&not_a_context)
        clprim_release(c);
    case_end();

    /* The contexts of the run. */
    case_begin("create \"%s\" (the device under test)", run.device);
    run.ctx = NULL;
    s = clprim_mpi_create(&run.ctx, run.comm, device_arg());
    expect_success(s, "clprim_mpi_create");
    /* The single-device reference runs on the same device, on a context of its own. */
    clprim_status rs = device_arg() || !run.ctx ? clprim_create(&run.ref, device_arg())
                                                : clprim_create_with_queue(&run.ref, clprim_queue(run.ctx));
    if (rs != CLPRIM_SUCCESS)
        case_fail("clprim_create(\"%s\"): %s: %s", run.device, clprim_status_name(rs), clprim_last_error(NULL));
    int ok = case_end();
    if (!ok) {
        clprim_release(run.ctx);
        clprim_release(run.ref);
        run.ctx = run.ref = NULL;
    }
    return ok;
}

/* ---- Scan ---- */

typedef struct {
    const char *name;
    clprim_type t;
    clprim_op op;
    const clprim_operator *custom;
    int exclusive, in_place;
    data_kind data;
} scan_case;

static int float_sum(clprim_type t, clprim_op op, const clprim_operator *custom)
{
    return (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE) && op == CLPRIM_SUM && !custom;
}

/* |got - want| within 1e-5 of the sum of the absolute values combined. */
static void expect_close_floats(const float *got, const float *want, const double *abs_prefix, size_t count,
                                size_t first_global, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        double g = got[i], w = want[i], bound = 1e-5 * abs_prefix[first_global + i] + 1e-30;
        if (!(fabs(g - w) <= bound) && !(isnan(g) && isnan(w))) {
            case_fail("%s: element %zu (global) is %.9g, expected %.9g within %.3g", what, first_global + i, g, w,
                      bound);
            return;
        }
    }
}

/* The single-device scan of data[0 .. n) into out. */
static void scan_reference(const scan_case *c, const void *data, size_t n, void *out)
{
    size_t es = reference_type_size(c->t);
    cl_mem src = buffer_make(run.ref, n * es, 0, 0, data, n * es);
    cl_mem dst = buffer_make(run.ref, n * es, 0, 0, NULL, 0);
    clprim_status s = c->custom ? clprim_scan_op(run.ref, c->t, c->custom, c->exclusive, src, 0, dst, 0, n, 0, NULL,
                                                 NULL)
                                : clprim_scan(run.ref, c->t, c->op, c->exclusive, src, 0, dst, 0, n, 0, NULL, NULL);
    if (expect_ref_success(s, "clprim_scan"))
        buffer_read(run.ref, dst, 0, n * es, out);
    buffer_release(src);
    buffer_release(dst);
}

/* This rank's part of the MPI scan into got (n elements). The source is
 * written without blocking and its event passed as the wait list. Checks the
 * bytes around the slice and, unless in place, that src is unchanged. */
static int scan_on_ranks(const scan_case *c, const void *slice, size_t n, void *got)
{
    size_t es = reference_type_size(c->t);
    size_t src_off = (size_t)run.rank + 1, dst_off = c->in_place ? src_off : 2 * (size_t)run.rank + 3;
    size_t src_len = src_off + n + PAD, dst_len = dst_off + n + PAD;
    cl_mem src = buffer_make(run.ctx, src_len * es, SRC_FILL, 0, NULL, 0);
    cl_mem dst = c->in_place ? src : buffer_make(run.ctx, dst_len * es, DST_FILL, 0, NULL, 0);
    cl_event written = NULL;
    if (n)
        clEnqueueWriteBuffer(clprim_queue(run.ctx), src, CL_FALSE, src_off * es, n * es, slice, 0, NULL, &written);
    clprim_status s = clprim_mpi_scan(run.ctx, run.comm, c->t, c->op, c->custom, c->exclusive, src, src_off, dst,
                                      dst_off, n, written ? 1 : 0, written ? &written : NULL);
    if (written)
        clReleaseEvent(written);
    int ok = expect_success(s, "clprim_mpi_scan");
    unsigned char *all = xmalloc((src_len > dst_len ? src_len : dst_len) * es);
    int fill = c->in_place ? SRC_FILL : DST_FILL;
    if (ok && buffer_read(run.ctx, dst, 0, dst_len * es, all)) {
        expect_filled(all, dst_off * es, fill, "dst before dst_offset");
        expect_filled(all + (dst_off + n) * es, PAD * es, fill, "dst past the slice");
        memcpy(got, all + dst_off * es, n * es);
    } else {
        ok = 0;
    }
    if (!c->in_place && buffer_read(run.ctx, src, 0, src_len * es, all)) {
        expect_filled(all, src_off * es, SRC_FILL, "src before src_offset");
        if (n && memcmp(all + src_off * es, slice, n * es) != 0)
            case_fail("src was changed");
    }
    free(all);
    if (!c->in_place)
        buffer_release(dst);
    buffer_release(src);
    return ok;
}

static void run_scan_case(const scan_case *c)
{
    char name[128];
    snprintf(name, sizeof name, "scan %s", c->name);
    rng r = rng_for(name);
    slicing sl[SLICINGS_MAX];
    int count = slicings_make(N_BIG, &r, sl);
    size_t es = reference_type_size(c->t), nmax = slicings_max_n(sl, count);
    unsigned char *data = xmalloc(nmax * es), *want = xmalloc(nmax * es);
    generate(c->t, c->data, &r, data, nmax);
    int sum = float_sum(c->t, c->op, c->custom);
    double *abs_prefix = NULL;
    if (sum) {
        abs_prefix = xmalloc(nmax * sizeof *abs_prefix);
        double acc = 0;
        for (size_t i = 0; i < nmax; i++)
            abs_prefix[i] = acc += fabs(((const float *)data)[i]);
    }
    size_t want_n = (size_t)-1;
    for (int k = 0; k < count; k++) {
        const slicing *s = &sl[k];
        size_t n = s->len[run.rank], start = s->start[run.rank];
        /* Keys cross packed, unpacked, or packed from odd ranks only, in turns. */
        static const char *const packing[] = {"packed", "unpacked", "packed from odd ranks"};
        static unsigned turn;
        const unsigned mode = turn++ % 3;
        setenv("CLPRIM_MPI_PACK", mode == 0 || (mode == 2 && run.rank % 2) ? "1" : "0", 1);
        case_begin("%s / %s / keys %s", name, s->name, packing[mode]);
        if (s->n != want_n) {
            scan_reference(c, data, s->n, want);
            want_n = s->n;
        }
        unsigned char *got = xmalloc(n * es), *again = xmalloc(n * es);
        if (scan_on_ranks(c, data + start * es, n, got)) {
            if (sum) {
                expect_close_floats((const float *)got, (const float *)(want + start * es), abs_prefix, n, start,
                                    "dst");
                /* Not the reference's bits, but the same bits on every run. */
                if (scan_on_ranks(c, data + start * es, n, again) && memcmp(got, again, n * es) != 0)
                    case_fail("a second run gave other bits");
            } else {
                expect_equal_elems(c->t, got, want + start * es, n, start, "dst");
            }
        } else if (sum) {
            scan_on_ranks(c, data + start * es, n, again); /* the second run is collective too */
        }
        free(got);
        free(again);
        case_end();
    }
    free(abs_prefix);
    free(data);
    free(want);
    slicings_free(sl, count);
}

static void test_scan(void)
{
    static const clprim_type types[] = {CLPRIM_INT32, CLPRIM_UINT64, CLPRIM_FLOAT};
    static const clprim_op ops[] = {CLPRIM_SUM, CLPRIM_MIN, CLPRIM_MAX};
    static const char *op_names[] = {"sum", "min", "max"};
    for (size_t t = 0; t < 3; t++)
        for (size_t o = 0; o < 3; o++)
            for (int ex = 0; ex < 2; ex++) {
                char name[64];
                snprintf(name, sizeof name, "%s %s %s", type_name(types[t]), op_names[o],
                         ex ? "exclusive" : "inclusive");
                /* Float MIN and MAX see NaNs, first of all at the start. */
                data_kind data = types[t] == CLPRIM_FLOAT && ops[o] != CLPRIM_SUM ? DATA_NAN : DATA_RANDOM;
                scan_case c = {name, types[t], ops[o], NULL, ex, 0, data};
                run_scan_case(&c);
            }
    const scan_case more[] = {
        {"uint32 \"a * b\" inclusive", CLPRIM_UINT32, CLPRIM_SUM, &product_u32, 0, 0, DATA_ODD},
        {"uint32 \"a * b\" exclusive", CLPRIM_UINT32, CLPRIM_SUM, &product_u32, 1, 0, DATA_ODD},
        {"uint64 affine maps (not commutative) inclusive", CLPRIM_UINT64, CLPRIM_SUM, &affine_u64, 0, 0, DATA_RANDOM},
        {"uint64 affine maps (not commutative) exclusive", CLPRIM_UINT64, CLPRIM_SUM, &affine_u64, 1, 0, DATA_RANDOM},
        {"int32 sum inclusive in place", CLPRIM_INT32, CLPRIM_SUM, NULL, 0, 1, DATA_RANDOM},
        {"float max exclusive in place", CLPRIM_FLOAT, CLPRIM_MAX, NULL, 1, 1, DATA_NAN},
        {"uint64 affine maps exclusive in place", CLPRIM_UINT64, CLPRIM_SUM, &affine_u64, 1, 1, DATA_RANDOM},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        run_scan_case(&more[i]);
}

/* ---- Reduce ---- */

typedef struct {
    const char *name;
    clprim_type t;
    clprim_op op;
    const clprim_operator *custom;
    data_kind data;
} reduce_case;

/* The MPI reduce of this rank's slice into result (16 bytes: what lies past
 * the element must stay as it was). */
static int reduce_on_ranks(const reduce_case *c, const void *slice, size_t n, unsigned char result[16])
{
    size_t es = reference_type_size(c->t), off = (size_t)run.rank + 2;
    cl_mem src = buffer_make(run.ctx, (off + n + PAD) * es, SRC_FILL, off * es, slice, n * es);
    memset(result, DST_FILL, 16);
    clprim_status s = clprim_mpi_reduce(run.ctx, run.comm, c->t, c->op, c->custom, src, off, n, result, 0, NULL);
    buffer_release(src);
    int ok = expect_success(s, "clprim_mpi_reduce");
    if (ok)
        expect_filled(result + es, 16 - es, DST_FILL, "result past its element");
    return ok;
}

static void run_reduce_case(const reduce_case *c)
{
    char name[128];
    snprintf(name, sizeof name, "reduce %s", c->name);
    rng r = rng_for(name);
    slicing sl[SLICINGS_MAX];
    int count = slicings_make(N_BIG, &r, sl);
    size_t es = reference_type_size(c->t), nmax = slicings_max_n(sl, count);
    unsigned char *data = xmalloc(nmax * es);
    generate(c->t, c->data, &r, data, nmax);
    int sum = float_sum(c->t, c->op, c->custom);
    cl_mem whole = buffer_make(run.ref, nmax * es, 0, 0, data, nmax * es);
    for (int k = 0; k < count; k++) {
        const slicing *s = &sl[k];
        size_t n = s->len[run.rank], start = s->start[run.rank];
        /* Keys cross packed, unpacked, or packed from odd ranks only, in turns. */
        static const char *const packing[] = {"packed", "unpacked", "packed from odd ranks"};
        static unsigned turn;
        const unsigned mode = turn++ % 3;
        setenv("CLPRIM_MPI_PACK", mode == 0 || (mode == 2 && run.rank % 2) ? "1" : "0", 1);
        case_begin("%s / %s / keys %s", name, s->name, packing[mode]);
        unsigned char want[16], got[16], again[16];
        clprim_status rs = c->custom ? clprim_reduce_op(run.ref, c->t, c->custom, whole, 0, s->n, want, 0, NULL)
                                     : clprim_reduce(run.ref, c->t, c->op, whole, 0, s->n, want, 0, NULL);
        expect_ref_success(rs, "clprim_reduce");
        int ok = reduce_on_ranks(c, data + start * es, n, got);
        if (ok && !sum)
            expect_equal_elems(c->t, got, want, 1, 0, "result");
        if (ok && sum) {
            double abs_sum = 0;
            for (size_t i = 0; i < s->n; i++)
                abs_sum += fabs(((const float *)data)[i]);
            float g, w;
            memcpy(&g, got, 4);
            memcpy(&w, want, 4);
            EXPECT(fabs((double)g - w) <= 1e-5 * abs_sum, "result %.9g, expected %.9g within %.3g", g, w,
                   1e-5 * abs_sum);
        }
        if (sum && reduce_on_ranks(c, data + start * es, n, again) && ok)
            EXPECT(memcmp(got, again, es) == 0, "a second run gave other bits");
        /* One result, the same bits on every rank. */
        char text[64];
        elem_text(c->t, got, text);
        if (!same_on_every_rank(ok ? text : "failed"))
            case_fail("the ranks have different results; here %s", text);
        case_end();
    }
    buffer_release(whole);
    free(data);
    slicings_free(sl, count);
}

static void test_reduce(void)
{
    const reduce_case cases[] = {
        {"int32 sum", CLPRIM_INT32, CLPRIM_SUM, NULL, DATA_RANDOM},
        {"uint64 min", CLPRIM_UINT64, CLPRIM_MIN, NULL, DATA_RANDOM},
        {"float max (with NaN)", CLPRIM_FLOAT, CLPRIM_MAX, NULL, DATA_NAN},
        {"float sum", CLPRIM_FLOAT, CLPRIM_SUM, NULL, DATA_RANDOM},
        {"uint32 \"a * b\"", CLPRIM_UINT32, CLPRIM_SUM, &product_u32, DATA_ODD},
        {"uint64 affine maps (not commutative)", CLPRIM_UINT64, CLPRIM_SUM, &affine_u64, DATA_RANDOM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_reduce_case(&cases[i]);
}

/* ---- Histogram ---- */

typedef struct {
    const char *name;
    clprim_type t;
    double lo, hi;
    size_t bins;
    int root;         /* a rank, CLPRIM_MPI_ALL_RANKS, or ROOT_LAST */
    int null_elsewhere; /* ranks without the result pass NULL counts */
} histogram_case;
#define ROOT_LAST (-100)

/* Values around [lo, hi): some below, some above, NaN among floats. */
static void histogram_data(const histogram_case *c, rng *r, void *out, size_t n)
{
    double width = c->hi - c->lo;
    for (size_t i = 0; i < n; i++) {
        double x = c->lo - width / 4 + rng_unit(r) * width * 1.5;
        switch (c->t) {
        case CLPRIM_FLOAT:
            ((float *)out)[i] = rng_below(r, 100) == 0 ? NAN : (float)x;
            break;
        case CLPRIM_UINT64:
            ((uint64_t *)out)[i] = x < 0 ? 0 : (uint64_t)x;
            break;
        default:
            ((int32_t *)out)[i] = (int32_t)floor(x);
        }
    }
}

static void run_histogram_case(const histogram_case *c)
{
    char name[160];
    snprintf(name, sizeof name, "histogram %s", c->name);
    rng r = rng_for(name);
    slicing sl[SLICINGS_MAX];
    int count = slicings_make(N_BIG, &r, sl);
    size_t es = reference_type_size(c->t), nmax = slicings_max_n(sl, count);
    unsigned char *data = xmalloc(nmax * es);
    histogram_data(c, &r, data, nmax);
    int root = c->root == ROOT_LAST ? run.size - 1 : c->root;
    int mine = root == CLPRIM_MPI_ALL_RANKS || root == run.rank;
    cl_mem whole = buffer_make(run.ref, nmax * es, 0, 0, data, nmax * es);
    cl_uint *want = xmalloc(c->bins * sizeof *want);
    size_t coff = (size_t)run.rank + 4, clen = coff + c->bins + PAD;
    cl_uint *got = xmalloc(clen * sizeof *got);
    for (int k = 0; k < count; k++) {
        const slicing *s = &sl[k];
        size_t n = s->len[run.rank], start = s->start[run.rank];
        /* Keys cross packed, unpacked, or packed from odd ranks only, in turns. */
        static const char *const packing[] = {"packed", "unpacked", "packed from odd ranks"};
        static unsigned turn;
        const unsigned mode = turn++ % 3;
        setenv("CLPRIM_MPI_PACK", mode == 0 || (mode == 2 && run.rank % 2) ? "1" : "0", 1);
        case_begin("%s / %s / keys %s", name, s->name, packing[mode]);
        cl_mem ref_counts = buffer_make(run.ref, c->bins * sizeof(cl_uint), 0, 0, NULL, 0);
        if (expect_ref_success(clprim_histogram(run.ref, c->t, whole, 0, s->n, c->lo, c->hi, c->bins, ref_counts, 0,
                                                0, 0, NULL, NULL),
                               "clprim_histogram"))
            buffer_read(run.ref, ref_counts, 0, c->bins * sizeof(cl_uint), want);
        buffer_release(ref_counts);

        size_t off = 2 * (size_t)run.rank + 1;
        cl_mem src = buffer_make(run.ctx, (off + n + PAD) * es, SRC_FILL, off * es, data + start * es, n * es);
        /* Sentinels everywhere: the root's counts must be replaced, the others' left alone. */
        cl_mem counts = mine || !c->null_elsewhere ? buffer_make(run.ctx, clen * sizeof(cl_uint), DST_FILL, 0, NULL, 0)
                                                   : NULL;
        clprim_status st = clprim_mpi_histogram(run.ctx, run.comm, c->t, src, off, n, c->lo, c->hi, c->bins, root,
                                                counts, coff, 0, NULL);
        if (expect_success(st, "clprim_mpi_histogram") && counts &&
            buffer_read(run.ctx, counts, 0, clen * sizeof(cl_uint), got)) {
            if (mine) {
                expect_filled(got, coff * sizeof(cl_uint), DST_FILL, "counts before counts_offset");
                expect_equal_elems(CLPRIM_UINT32, got + coff, want, c->bins, 0, "counts (bin)");
                expect_filled(got + coff + c->bins, PAD * sizeof(cl_uint), DST_FILL, "counts past the bins");
            } else {
                expect_filled(got, clen * sizeof(cl_uint), DST_FILL, "counts of a rank that is not the root");
            }
        }
        buffer_release(src);
        buffer_release(counts);
        case_end();
    }
    buffer_release(whole);
    free(got);
    free(want);
    free(data);
    slicings_free(sl, count);
}

static void test_histogram(void)
{
    const histogram_case cases[] = {
        {"int32 37 bins, every rank", CLPRIM_INT32, -50, 250, 37, CLPRIM_MPI_ALL_RANKS, 0},
        {"int32 37 bins, root the last rank", CLPRIM_INT32, -50, 250, 37, ROOT_LAST, 0},
        {"float 50 bins, every rank", CLPRIM_FLOAT, -1.5, 2.25, 50, CLPRIM_MPI_ALL_RANKS, 0},
        {"float 50 bins, root the last rank, NULL counts elsewhere", CLPRIM_FLOAT, -1.5, 2.25, 50, ROOT_LAST, 1},
        {"uint64 1000 bins, root 0", CLPRIM_UINT64, 0, 1099511627776.0, 1000, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_histogram_case(&cases[i]);
}

/* ---- Compaction ---- */

typedef struct {
    const char *name;
    clprim_type t;
    clprim_predicate keep; /* flags are filled in per rank */
    data_kind data;
    int (*host)(const void *data, const uint8_t *flags, size_t i); /* the predicate on the CPU */
    int in_place;
    int counts_null_on_odd_ranks;
} compact_case;

static const cl_int five_i32 = 5;
static const float half_f = 0.5f;
static int gt5_i32(const void *d, const uint8_t *f, size_t i)
{
    (void)f;
    return ((const int32_t *)d)[i] > 5;
}
static int ge_half_f(const void *d, const uint8_t *f, size_t i)
{
    (void)f;
    return ((const float *)d)[i] >= 0.5f;
}
static int nonzero_u64(const void *d, const uint8_t *f, size_t i)
{
    (void)f;
    return ((const uint64_t *)d)[i] != 0;
}
static int nonzero_f(const void *d, const uint8_t *f, size_t i)
{
    (void)f;
    return ((const float *)d)[i] != 0.0f; /* NaN kept, -0.0 not */
}
static int flagged(const void *d, const uint8_t *f, size_t i)
{
    (void)d;
    return f[i] != 0;
}
static int every_third_gt5(const void *d, const uint8_t *f, size_t i)
{
    (void)f;
    return i % 3 == 0 && ((const int32_t *)d)[i] > 5; /* i from the start of the global array */
}

static void run_compact_case(const compact_case *c)
{
    char name[160];
    snprintf(name, sizeof name, "compact %s", c->name);
    rng r = rng_for(name);
    slicing sl[SLICINGS_MAX];
    int count = slicings_make(N_BIG, &r, sl);
    size_t es = reference_type_size(c->t), nmax = slicings_max_n(sl, count);
    unsigned char *data = xmalloc(nmax * es), *want = xmalloc(nmax * es);
    uint8_t *flags = xmalloc(nmax);
    generate(c->t, c->data, &r, data, nmax);
    for (size_t i = 0; i < nmax; i++)
        flags[i] = rng_below(&r, 3) == 0 ? (uint8_t)(1 + rng_below(&r, 255)) : 0;
    cl_mem whole = buffer_make(run.ref, nmax * es, 0, 0, data, nmax * es);
    cl_mem whole_flags = buffer_make(run.ref, nmax, 0, 0, flags, nmax);
    for (int k = 0; k < count; k++) {
        const slicing *s = &sl[k];
        size_t n = s->len[run.rank], start = s->start[run.rank];
        /* Keys cross packed, unpacked, or packed from odd ranks only, in turns. */
        static const char *const packing[] = {"packed", "unpacked", "packed from odd ranks"};
        static unsigned turn;
        const unsigned mode = turn++ % 3;
        setenv("CLPRIM_MPI_PACK", mode == 0 || (mode == 2 && run.rank % 2) ? "1" : "0", 1);
        case_begin("%s / %s / keys %s", name, s->name, packing[mode]);

        /* The single-device compaction, and the CPU's count before and in this slice. */
        size_t want_total = 0;
        clprim_predicate keep = c->keep;
        keep.flags = whole_flags;
        keep.flags_offset = 0;
        cl_mem ref_dst = buffer_make(run.ref, s->n * es, 0, 0, NULL, 0);
        if (expect_ref_success(clprim_compact(run.ref, c->t, &keep, whole, 0, ref_dst, 0, s->n, &want_total, NULL,
                                              0, 0, NULL, NULL),
                               "clprim_compact"))
            buffer_read(run.ref, ref_dst, 0, want_total * es, want);
        buffer_release(ref_dst);
        size_t want_before = 0, want_kept = 0, host_total = 0;
        for (size_t i = 0; i < s->n; i++) {
            int kept = c->host(data, flags, i);
            want_before += kept && i < start;
            want_kept += kept && i >= start && i < start + n;
            host_total += kept;
        }
        EXPECT(host_total == want_total, "the reference keeps %zu, the CPU %zu", want_total, host_total);

        size_t src_off = (size_t)run.rank + 1, dst_off = c->in_place ? src_off : 3 * (size_t)run.rank + 2;
        size_t flags_off = (size_t)run.rank + 2, dst_len = dst_off + n + PAD;
        cl_mem src = buffer_make(run.ctx, (src_off + n + PAD) * es, SRC_FILL, src_off * es, data + start * es, n * es);
        cl_mem dst = c->in_place ? src : buffer_make(run.ctx, dst_len * es, DST_FILL, 0, NULL, 0);
        cl_mem my_flags = buffer_make(run.ctx, flags_off + n + PAD, 0x01, flags_off, flags + start, n);
        keep.flags = my_flags;
        keep.flags_offset = flags_off;
        clprim_mpi_kept counts;
        memset(&counts, DST_FILL, sizeof counts);
        int no_counts = c->counts_null_on_odd_ranks && run.rank % 2 == 1;
        clprim_status st = clprim_mpi_compact(run.ctx, run.comm, c->t, &keep, src, src_off, dst, dst_off, n,
                                              no_counts ? NULL : &counts, 0, NULL);
        unsigned char *got = xmalloc(dst_len * es);
        if (expect_success(st, "clprim_mpi_compact") && buffer_read(run.ctx, dst, 0, dst_len * es, got)) {
            if (!no_counts) {
                EXPECT(counts.kept == want_kept, "kept %zu, expected %zu", counts.kept, want_kept);
                EXPECT(counts.before == want_before, "before %zu, expected %zu", counts.before, want_before);
                EXPECT(counts.total == want_total, "total %zu, expected %zu", counts.total, want_total);
            }
            int fill = c->in_place ? SRC_FILL : DST_FILL;
            expect_filled(got, dst_off * es, fill, "dst before dst_offset");
            if (want_before + want_kept <= want_total)
                expect_equal_elems(c->t, got + dst_off * es, want + want_before * es, want_kept, want_before,
                                   "kept element (global result position)");
            /* Past the kept elements dst keeps its old contents. */
            if (c->in_place) {
                if (n > want_kept && memcmp(got + (dst_off + want_kept) * es, data + (start + want_kept) * es,
                                            (n - want_kept) * es) != 0)
                    case_fail("dst past the kept elements was written");
            } else {
                expect_filled(got + (dst_off + want_kept) * es, (n - want_kept + PAD) * es, DST_FILL,
                              "dst past the kept elements");
            }
        }
        free(got);
        buffer_release(src);
        if (!c->in_place)
            buffer_release(dst);
        buffer_release(my_flags);
        case_end();
    }
    buffer_release(whole);
    buffer_release(whole_flags);
    free(flags);
    free(data);
    free(want);
    slicings_free(sl, count);
}

static void test_compact(void)
{
    const compact_case cases[] = {
        {"int32 x > 5", CLPRIM_INT32, {CLPRIM_KEEP_GT, &five_i32, NULL, 0, NULL}, DATA_SMALL, gt5_i32, 0, 0},
        {"int32 x > 5 in place", CLPRIM_INT32, {CLPRIM_KEEP_GT, &five_i32, NULL, 0, NULL}, DATA_SMALL, gt5_i32, 1, 0},
        {"float x >= 0.5 (with NaN)", CLPRIM_FLOAT, {CLPRIM_KEEP_GE, &half_f, NULL, 0, NULL}, DATA_NAN, ge_half_f, 0,
         0},
        {"uint64 nonzero, counts NULL on odd ranks", CLPRIM_UINT64, {CLPRIM_KEEP_NONZERO, NULL, NULL, 0, NULL},
         DATA_HALF_ZERO, nonzero_u64, 0, 1},
        {"float nonzero (+-0, NaN, inf)", CLPRIM_FLOAT, {CLPRIM_KEEP_NONZERO, NULL, NULL, 0, NULL}, DATA_SPECIAL,
         nonzero_f, 0, 0},
        {"int32 flagged (each rank's flags)", CLPRIM_INT32, {CLPRIM_KEEP_FLAGGED, NULL, NULL, 0, NULL}, DATA_RANDOM,
         flagged, 0, 0},
        {"int32 \"(i % 3) == 0 && x > 5\" (global i)", CLPRIM_INT32,
         {CLPRIM_KEEP_EXPRESSION, NULL, NULL, 0, "(i % 3) == 0 && x > 5"}, DATA_SMALL, every_third_gt5, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_compact_case(&cases[i]);
}

/* ---- Sort ---- */

typedef struct {
    const char *name;
    clprim_type key_t;
    data_kind data;
    int pairs;            /* sort_pairs */
    clprim_type value_t;  /* with pairs */
    int positions;        /* values_in NULL: the global permutation */
    clprim_sort_order order;
} sort_case;

/* The single-device sort of keys[0 .. n) (and values) into want_keys/want_values. */
static void sort_reference(const sort_case *c, const void *keys, const void *values, size_t n, void *want_keys,
                           void *want_values)
{
    size_t ks = reference_type_size(c->key_t), vs = reference_type_size(c->value_t);
    cl_mem kin = buffer_make(run.ref, n * ks, 0, 0, keys, n * ks), kout = buffer_make(run.ref, n * ks, 0, 0, NULL, 0);
    cl_mem vin = c->pairs && !c->positions ? buffer_make(run.ref, n * vs, 0, 0, values, n * vs) : NULL;
    cl_mem vout = c->pairs ? buffer_make(run.ref, n * vs, 0, 0, NULL, 0) : NULL;
    clprim_status s = c->pairs ? clprim_sort_pairs(run.ref, c->key_t, c->value_t, &c->order, kin, 0, kout, 0, vin, 0,
                                                   vout, 0, n, 0, NULL, NULL)
                               : clprim_sort_keys(run.ref, c->key_t, &c->order, kin, 0, kout, 0, n, 0, NULL, NULL);
    if (expect_ref_success(s, "clprim_sort")) {
        buffer_read(run.ref, kout, 0, n * ks, want_keys);
        if (c->pairs)
            buffer_read(run.ref, vout, 0, n * vs, want_values);
    }
    buffer_release(kin);
    buffer_release(kout);
    buffer_release(vin);
    buffer_release(vout);
}

/* Checks an output buffer of the sort: on ctx's cl_context, room for n elements. */
static void expect_sort_output(cl_mem b, size_t n, size_t es, const char *what)
{
    if (!b) {
        case_fail("%s is NULL", what);
        return;
    }
    cl_context owner = NULL;
    clGetMemObjectInfo(b, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    EXPECT(owner == clprim_cl_context(run.ctx), "%s is not on the context's cl_context", what);
    EXPECT(buffer_size(b) >= (n ? n : 1) * es, "%s has %zu bytes for %zu elements", what, buffer_size(b), n);
}

static void run_sort_case(const sort_case *c)
{
    char name[160];
    snprintf(name, sizeof name, "sort %s", c->name);
    rng r = rng_for(name);
    slicing sl[SLICINGS_MAX];
    int count = slicings_make(N_SORT, &r, sl);
    size_t ks = reference_type_size(c->key_t), vs = reference_type_size(c->value_t), nmax = slicings_max_n(sl, count);
    unsigned char *keys = xmalloc(nmax * ks), *values = xmalloc(nmax * vs);
    unsigned char *want_keys = xmalloc(nmax * ks), *want_values = xmalloc(nmax * vs);
    generate(c->key_t, c->data, &r, keys, nmax);
    generate(c->value_t, DATA_RANDOM, &r, values, nmax);
    size_t want_n = (size_t)-1;
    for (int k = 0; k < count; k++) {
        const slicing *s = &sl[k];
        size_t n = s->len[run.rank], start = s->start[run.rank];
        /* Keys cross packed, unpacked, or packed from odd ranks only, in turns. */
        static const char *const packing[] = {"packed", "unpacked", "packed from odd ranks"};
        static unsigned turn;
        const unsigned mode = turn++ % 3;
        setenv("CLPRIM_MPI_PACK", mode == 0 || (mode == 2 && run.rank % 2) ? "1" : "0", 1);
        case_begin("%s / %s / keys %s", name, s->name, packing[mode]);
        if (s->n != want_n) {
            sort_reference(c, keys, values, s->n, want_keys, want_values);
            want_n = s->n;
        }
        size_t koff = (size_t)run.rank + 1, voff = 2 * (size_t)run.rank + 1;
        size_t klen = koff + n + PAD, vlen = voff + n + PAD;
        cl_mem kin = buffer_make(run.ctx, klen * ks, SRC_FILL, koff * ks, keys + start * ks, n * ks);
        cl_mem vin = c->pairs && !c->positions
                         ? buffer_make(run.ctx, vlen * vs, SRC_FILL, voff * vs, values + start * vs, n * vs)
                         : NULL;
        cl_mem kout = NULL, vout = NULL;
        size_t n_out = 0;
        clprim_status st =
            c->pairs ? clprim_mpi_sort_pairs(run.ctx, run.comm, c->key_t, c->value_t, &c->order, kin, koff, vin, voff,
                                             n, &kout, &vout, &n_out, 0, NULL)
                     : clprim_mpi_sort_keys(run.ctx, run.comm, c->key_t, &c->order, kin, koff, n, &kout, &n_out, 0,
                                            NULL);
        int ok = expect_success(st, c->pairs ? "clprim_mpi_sort_pairs" : "clprim_mpi_sort_keys");
        if (!ok)
            n_out = 0;

        /* Where this rank's share starts in the sorted sequence. */
        unsigned long long mine = n_out, at = 0, total = 0;
        MPI_Exscan(&mine, &at, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, run.comm);
        if (run.rank == 0)
            at = 0;
        MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, run.comm);
        if (ok) {
            EXPECT(total == s->n, "the ranks hold %llu keys in all, not %zu", total, s->n);
            EXPECT(n_out <= s->n, "*n_out is %zu, more than the %zu keys", n_out, s->n);
            expect_sort_output(kout, n_out, ks, "*keys_out");
            if (c->pairs)
                expect_sort_output(vout, n_out, vs, "*values_out");
        }
        if (ok && total == s->n && at + n_out <= s->n) {
            unsigned char *got = xmalloc(n_out * (ks > vs ? ks : vs));
            if (kout && buffer_read(run.ctx, kout, 0, n_out * ks, got))
                expect_equal_elems(c->key_t, got, want_keys + at * ks, n_out, at, "*keys_out");
            /* Positions and values bit for bit: equal keys in their global input order. */
            if (c->pairs && vout && buffer_read(run.ctx, vout, 0, n_out * vs, got))
                expect_equal_elems(c->value_t, got, want_values + at * vs, n_out, at,
                                   c->positions ? "*values_out (global positions)" : "*values_out");
            free(got);
        }
        /* The inputs are left as they were. */
        unsigned char *in = xmalloc(klen * ks > vlen * vs ? klen * ks : vlen * vs);
        if (buffer_read(run.ctx, kin, 0, klen * ks, in)) {
            expect_filled(in, koff * ks, SRC_FILL, "keys_in before the offset");
            EXPECT(n == 0 || memcmp(in + koff * ks, keys + start * ks, n * ks) == 0, "keys_in was changed");
            expect_filled(in + (koff + n) * ks, PAD * ks, SRC_FILL, "keys_in past the slice");
        }
        if (vin && buffer_read(run.ctx, vin, 0, vlen * vs, in))
            EXPECT(n == 0 || memcmp(in + voff * vs, values + start * vs, n * vs) == 0, "values_in was changed");
        free(in);
        buffer_release(kin);
        buffer_release(vin);
        buffer_release(kout);
        buffer_release(vout);
        case_end();
    }
    unsetenv("CLPRIM_MPI_PACK");
    free(keys);
    free(values);
    free(want_keys);
    free(want_values);
    slicings_free(sl, count);
}

static void test_sort(void)
{
    const sort_case cases[] = {
        {"keys int32", CLPRIM_INT32, DATA_RANDOM, 0, CLPRIM_UINT32, 0, {0, 0, 0}},
        {"keys uint32 descending", CLPRIM_UINT32, DATA_RANDOM, 0, CLPRIM_UINT32, 0, {1, 0, 0}},
        {"keys uint32 on bits 4..20", CLPRIM_UINT32, DATA_RANDOM, 0, CLPRIM_UINT32, 0, {0, 4, 20}},
        {"keys float (-0.0, NaN, inf, denormals)", CLPRIM_FLOAT, DATA_SPECIAL, 0, CLPRIM_UINT32, 0, {0, 0, 0}},
        {"keys uint64", CLPRIM_UINT64, DATA_RANDOM, 0, CLPRIM_UINT32, 0, {0, 0, 0}},
        {"pairs uint32 keys, uint32 values", CLPRIM_UINT32, DATA_RANDOM, 1, CLPRIM_UINT32, 0, {0, 0, 0}},
        {"pairs uint64 keys in 0..20, uint64 values", CLPRIM_UINT64, DATA_SMALL, 1, CLPRIM_UINT64, 0, {0, 0, 0}},
        {"pairs float keys of 8 values, int32 values, descending", CLPRIM_FLOAT, DATA_DUP8, 1, CLPRIM_INT32, 0,
         {1, 0, 0}},
        /* values_in NULL: the permutation, equal to the single device's stable one. */
        {"permutation uint32 keys in 0..7 (UINT32)", CLPRIM_UINT32, DATA_DUP8, 1, CLPRIM_UINT32, 1, {0, 0, 0}},
        {"permutation int32 keys in 0..7 descending (UINT64)", CLPRIM_INT32, DATA_DUP8, 1, CLPRIM_UINT64, 1,
         {1, 0, 0}},
        {"permutation float keys (-0.0, NaN, inf) (UINT32)", CLPRIM_FLOAT, DATA_SPECIAL, 1, CLPRIM_UINT32, 1,
         {0, 0, 0}},
        {"permutation uint64 keys on bits 8..40 (UINT64)", CLPRIM_UINT64, DATA_RANDOM, 1, CLPRIM_UINT64, 1,
         {0, 8, 40}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_sort_case(&cases[i]);
}

/* ---- The run ---- */

static uint64_t draw_seed(void)
{
    const char *env = getenv("CLPRIM_TEST_SEED");
    if (env && *env)
        return strtoull(env, NULL, 0);
    uint64_t seed = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&seed, sizeof seed, 1, f) != 1)
        seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    if (f)
        fclose(f);
    return seed;
}

/* The devices under test: $CLPRIM_MPI_TEST_DEVICE, else each of
 * $CLPRIM_TEST_DEVICES (';'-separated, as the other suites read it), else "cpu". */
static int device_specs(char ***out)
{
    const char *one = getenv("CLPRIM_MPI_TEST_DEVICE");
    const char *list = getenv("CLPRIM_TEST_DEVICES");
    char **specs = xmalloc(16 * sizeof *specs);
    int count = 0;
    if (one && *one) {
        specs[count++] = strdup(one);
    } else if (list && *list) {
        char *copy = strdup(list), *save = NULL;
        for (char *tok = strtok_r(copy, ";", &save); tok && count < 16; tok = strtok_r(NULL, ";", &save)) {
            while (*tok == ' ')
                tok++;
            if (*tok)
                specs[count++] = strdup(tok);
        }
        free(copy);
    }
    if (count == 0)
        specs[count++] = strdup("cpu");
    *out = specs;
    return count;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(run.comm, &run.rank);
    MPI_Comm_size(run.comm, &run.size);
    uint64_t seed = run.rank == 0 ? draw_seed() : 0;
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, run.comm);
    run.seed = seed;

    char **specs;
    int devices = device_specs(&specs);
    double t0 = MPI_Wtime();
    for (int d = 0; d < devices; d++) {
        run.device = specs[d];
        if (run.rank == 0) {
            printf("# libclprim_mpi on %d rank%s, device \"%s\", seed %llu\n", run.size, run.size > 1 ? "s" : "",
                   run.device, (unsigned long long)run.seed);
            fflush(stdout);
        }
        if (!test_create())
            continue;
        test_scan();
        test_reduce();
        test_histogram();
        test_compact();
        test_sort();
        test_bad_calls();
        clprim_release(run.ctx);
        clprim_release(run.ref);
        run.ctx = run.ref = NULL;
    }
    int failed = cases_failed();
    if (run.rank == 0) {
        if (failed)
            printf("# %d case%s failed; CLPRIM_TEST_SEED=%llu replays this run\n", failed, failed > 1 ? "s" : "",
                   (unsigned long long)run.seed);
        else
            printf("# every case passed (%.1f s)\n", MPI_Wtime() - t0);
    }
    for (int d = 0; d < devices; d++)
        free(specs[d]);
    free(specs);
    MPI_Finalize();
    return failed ? 1 : 0;
}
