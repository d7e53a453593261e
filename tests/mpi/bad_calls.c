/* Bad calls of libclprim_mpi: one rank's arguments wrong, the ranks
 * disagreeing, or every rank's arguments wrong. Whatever the fault, every rank
 * must return the same status, clprim_mpi_last_error() must say the same
 * non-empty thing on every rank (naming the rank at fault when a rank's own
 * arguments are wrong), nothing may hang, and no output may be written on any
 * rank. Each call has a table of changes to a good call, made on the rank at
 * fault (the last one, rank 0, or every rank). */
#include "test_mpi.h"

#include <stdio.h>
#include <string.h>

#define N_BAD 1000 /* the global array, in even slices */
#define FILL 0xA5

typedef enum {
    AT_LAST,  /* the last rank's arguments differ (disagreement) or are wrong */
    AT_FIRST, /* rank 0's */
    AT_ALL    /* every rank's arguments are wrong alike */
} fault;

typedef struct {
    const char *name;
    fault at;
    int disagree;       /* a disagreement between ranks: needs 2 ranks */
    clprim_status want; /* on every rank */
} bad_row;

static int fault_here(fault at)
{
    return at == AT_ALL || (at == AT_LAST && run.rank == run.size - 1) || (at == AT_FIRST && run.rank == 0);
}

/* Starts the case, or skips it (returning 0) when it needs ranks to disagree
 * and there is only one. */
static int bad_begin(const char *call, const bad_row *row)
{
    char name[200];
    snprintf(name, sizeof name, "bad %s: %s", call, row->name);
    if (row->disagree && run.size < 2) {
        case_skip(name, "ranks cannot disagree with 1 rank");
        return 0;
    }
    case_begin("%s", name);
    return 1;
}

static size_t bad_slice_length(size_t r)
{
    size_t p = (size_t)run.size;
    return N_BAD / p + (r < N_BAD % p);
}

static cl_int bad_element(size_t r, size_t i)
{
    return (cl_int)((r * 7919 + i * 31) % 23) - 3;
}

/* After a refused call the ranks must still be in step: a good reduce of
 * every rank's slice gives the total on every rank. */
static void expect_still_in_step(void)
{
    size_t r = (size_t)run.rank, n = bad_slice_length(r), off = 3;
    cl_int *slice = xmalloc(n * sizeof *slice), want = 0, got = 0;
    for (size_t i = 0; i < n; i++)
        slice[i] = bad_element(r, i);
    for (size_t q = 0; q < (size_t)run.size; q++)
        for (size_t i = 0; i < bad_slice_length(q); i++)
            want += bad_element(q, i);
    cl_mem src = buffer_make(run.ctx, (off + n) * sizeof *slice, 0, off * sizeof *slice, slice, n * sizeof *slice);
    clprim_status s = clprim_mpi_reduce(run.ctx, run.comm, CLPRIM_INT32, CLPRIM_SUM, NULL, src, off, n, &got, 0, NULL);
    if (s != CLPRIM_SUCCESS)
        case_fail("the next good call fails: %s: %s", clprim_status_name(s), clprim_mpi_last_error());
    else
        EXPECT(got == want, "the next good call sums to %d, not %d", got, want);
    buffer_release(src);
    free(slice);
}

/* Disagreements need not name a rank (the message gives what differs and two
 * of the values); a rank's own bad arguments must name that rank. */
static void bad_end(const bad_row *row, clprim_status s)
{
    int at_fault = row->disagree ? RANK_NONE : row->at == AT_ALL ? RANK_ANY : row->at == AT_LAST ? run.size - 1 : 0;
    expect_refused(s, row->want, at_fault);
    expect_still_in_step();
    case_end();
}

/* Each rank's int32 slice of the global array, at an offset of its own. */
typedef struct {
    size_t n, off;
    cl_int *slice;
} bad_data;

static bad_data bad_data_make(void)
{
    bad_data d;
    size_t r = (size_t)run.rank;
    d.n = bad_slice_length(r);
    d.off = r + 1;
    d.slice = xmalloc(d.n * sizeof *d.slice);
    for (size_t i = 0; i < d.n; i++)
        d.slice[i] = bad_element(r, i);
    return d;
}

static cl_mem bad_src(const bad_data *d)
{
    return buffer_make(run.ctx, (d->off + d->n + 2) * sizeof(cl_int), 0, d->off * sizeof(cl_int), d->slice,
                       d->n * sizeof(cl_int));
}

/* Records a failure when the buffer's bytes are not all FILL. */
static void expect_untouched(cl_mem b, const char *what)
{
    if (!b)
        return;
    size_t size = buffer_size(b);
    unsigned char *bytes = xmalloc(size);
    if (buffer_read(run.ctx, b, 0, size, bytes))
        expect_filled(bytes, size, FILL, what);
    free(bytes);
}

/* ---- Scan ---- */

typedef struct {
    clprim_context *ctx;
    MPI_Comm comm;
    clprim_type t;
    clprim_op op;
    const clprim_operator *custom;
    int exclusive;
    cl_mem src, dst;
    size_t src_off, dst_off, n;
    cl_uint events;
    const cl_event *wait;
    cl_mem small_dst; /* dst_offset + n one element past its end */
} scan_args;

static const cl_int zero_i32 = 0, one_i32 = 1;
static const clprim_operator sum_i32 = {"a + b", &zero_i32};
static const clprim_operator max_i32 = {"max(a, b)", &zero_i32};
static const clprim_operator sum_i32_identity_1 = {"a + b", &one_i32};

static void scan_type_float(scan_args *a) { a->t = CLPRIM_FLOAT; }
static void scan_op_min(scan_args *a) { a->op = CLPRIM_MIN; }
static void scan_exclusive(scan_args *a) { a->exclusive = 1; }
static void scan_dst_small(scan_args *a) { a->dst = a->small_dst; }
static void scan_custom(scan_args *a) { a->custom = &sum_i32; }
static void scan_combine_max(scan_args *a) { a->custom = &max_i32; }
static void scan_identity_1(scan_args *a) { a->custom = &sum_i32_identity_1; }
static void scan_null_ctx(scan_args *a) { a->ctx = NULL; }
static void scan_null_src(scan_args *a) { a->src = NULL; }
static void scan_events_no_list(scan_args *a) { a->events = 1; a->wait = NULL; }
static void scan_comm_null(scan_args *a) { a->comm = MPI_COMM_NULL; }
static void scan_overlap(scan_args *a) { a->dst = a->src; a->dst_off = a->src_off + 1; }

static void bad_scan(void)
{
    static const struct {
        bad_row row;
        const clprim_operator *base; /* every rank's operator before the change */
        void (*change)(scan_args *);
    } rows[] = {
        {{"the last rank's type is float, the others' int32", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, NULL,
         scan_type_float},
        {{"rank 0's op is MIN, the others' SUM", AT_FIRST, 1, CLPRIM_INVALID_ARGUMENT}, NULL, scan_op_min},
        {{"the last rank's scan is exclusive, the others' inclusive", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, NULL,
         scan_exclusive},
        {{"only the last rank has a custom operator", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, NULL, scan_custom},
        {{"the last rank's combine differs", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, &sum_i32, scan_combine_max},
        {{"the last rank's identity differs", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, &sum_i32, scan_identity_1},
        {{"the last rank's dst is too small", AT_LAST, 0, CLPRIM_BUFFER_TOO_SMALL}, NULL, scan_dst_small},
        {{"rank 0's dst is too small", AT_FIRST, 0, CLPRIM_BUFFER_TOO_SMALL}, NULL, scan_dst_small},
        {{"the last rank's ctx is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, NULL, scan_null_ctx},
        {{"the last rank's src is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, NULL, scan_null_src},
        {{"the last rank's src and dst overlap", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, NULL, scan_overlap},
        {{"rank 0 gives a wait list count with no list", AT_FIRST, 0, CLPRIM_INVALID_ARGUMENT}, NULL,
         scan_events_no_list},
        {{"MPI_COMM_NULL on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, NULL, scan_comm_null},
    };
    bad_data d = bad_data_make();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const bad_row *row = &rows[i].row;
        if (!bad_begin("scan", row))
            continue;
        scan_args a = {run.ctx, run.comm, CLPRIM_INT32, CLPRIM_SUM, rows[i].base, 0, bad_src(&d), NULL,
                       d.off, 2, d.n, 0, NULL, NULL};
        a.dst = buffer_make(run.ctx, (a.dst_off + d.n + 2) * sizeof(cl_int), FILL, 0, NULL, 0);
        a.small_dst = buffer_make(run.ctx, (a.dst_off + d.n - 1) * sizeof(cl_int), FILL, 0, NULL, 0);
        cl_mem dst = a.dst, src = a.src;
        if (fault_here(row->at))
            rows[i].change(&a);
        clprim_status s = clprim_mpi_scan(a.ctx, a.comm, a.t, a.op, a.custom, a.exclusive, a.src, a.src_off, a.dst,
                                          a.dst_off, a.n, a.events, a.wait);
        expect_untouched(dst, "dst");
        expect_untouched(a.small_dst, "the small dst");
        if (a.dst == src) { /* the overlap: src must still hold the slice */
            cl_int *back = xmalloc(d.n * sizeof *back);
            if (buffer_read(run.ctx, src, d.off * sizeof(cl_int), d.n * sizeof(cl_int), back))
                EXPECT(memcmp(back, d.slice, d.n * sizeof *back) == 0, "src was written");
            free(back);
        }
        bad_end(row, s);
        buffer_release(src);
        buffer_release(dst);
        buffer_release(a.small_dst);
    }
    free(d.slice);
}

/* A disagreement on the operator names the operators, not their numbers. */
static void disagreeing_operators_named(void)
{
    const char *name = "bad scan: the disagreement names CLPRIM_SUM and a custom operator";
    if (run.size < 2) {
        case_skip(name, "ranks cannot disagree with 1 rank");
        return;
    }
    case_begin("%s", name);
    bad_data d = bad_data_make();
    cl_mem src = bad_src(&d);
    cl_mem dst = buffer_make(run.ctx, (d.n + 2) * sizeof(cl_int), FILL, 0, NULL, 0);
    const clprim_operator *custom = run.rank == run.size - 1 ? &sum_i32 : NULL;
    clprim_status s = clprim_mpi_scan(run.ctx, run.comm, CLPRIM_INT32, CLPRIM_SUM, custom, 0, src, d.off, dst, 0, d.n, 0,
                                      NULL);
    EXPECT(s == CLPRIM_INVALID_ARGUMENT, "status %s", clprim_status_name(s));
    EXPECT(strstr(clprim_mpi_last_error(), "CLPRIM_SUM") && strstr(clprim_mpi_last_error(), "a custom operator"),
           "the message names no operator: %s", clprim_mpi_last_error());
    expect_untouched(dst, "dst");
    buffer_release(src);
    buffer_release(dst);
    free(d.slice);
    expect_still_in_step();
    case_end();
}

/* ---- Reduce ---- */

typedef struct {
    clprim_context *ctx;
    MPI_Comm comm;
    clprim_type t;
    clprim_op op;
    const clprim_operator *custom;
    cl_mem src;
    size_t off, n;
    void *result;
} reduce_args;

static void reduce_type_uint32(reduce_args *a) { a->t = CLPRIM_UINT32; }
static void reduce_op_max(reduce_args *a) { a->op = CLPRIM_MAX; }
static void reduce_combine_max(reduce_args *a) { a->custom = &max_i32; }
static void reduce_null_result(reduce_args *a) { a->result = NULL; }
static void reduce_null_ctx(reduce_args *a) { a->ctx = NULL; }
static void reduce_past_end(reduce_args *a) { a->n += 3; }
static void reduce_comm_null(reduce_args *a) { a->comm = MPI_COMM_NULL; }

static void bad_reduce(void)
{
    static const struct {
        bad_row row;
        const clprim_operator *base;
        void (*change)(reduce_args *);
    } rows[] = {
        {{"the last rank's type is uint32, the others' int32", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, NULL,
         reduce_type_uint32},
        {{"the last rank's op is MAX", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, NULL, reduce_op_max},
        {{"the last rank's combine differs", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, &sum_i32, reduce_combine_max},
        {{"the last rank's result is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, NULL, reduce_null_result},
        {{"the last rank's ctx is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, NULL, reduce_null_ctx},
        {{"rank 0's offset + n runs past src", AT_FIRST, 0, CLPRIM_BUFFER_TOO_SMALL}, NULL, reduce_past_end},
        {{"MPI_COMM_NULL on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, NULL, reduce_comm_null},
    };
    bad_data d = bad_data_make();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const bad_row *row = &rows[i].row;
        if (!bad_begin("reduce", row))
            continue;
        unsigned char result[16];
        memset(result, FILL, sizeof result);
        reduce_args a = {run.ctx, run.comm, CLPRIM_INT32, CLPRIM_SUM, rows[i].base, bad_src(&d), d.off, d.n, result};
        cl_mem src = a.src;
        if (fault_here(row->at))
            rows[i].change(&a);
        clprim_status s = clprim_mpi_reduce(a.ctx, a.comm, a.t, a.op, a.custom, a.src, a.off, a.n, a.result, 0, NULL);
        expect_filled(result, sizeof result, FILL, "*result");
        bad_end(row, s);
        buffer_release(src);
    }
    free(d.slice);
}

/* ---- Histogram ---- */

typedef struct {
    clprim_context *ctx;
    clprim_type t;
    cl_mem src;
    size_t off, n;
    double lo, hi;
    size_t bins;
    int root;
    cl_mem counts;
    size_t counts_off;
    cl_mem small_counts;
} histogram_args;

static void hist_bins_0(histogram_args *a) { a->bins = 0; }
static void hist_root_size(histogram_args *a) { a->root = run.size; }
static void hist_root_minus_2(histogram_args *a) { a->root = -2; }
static void hist_root_0(histogram_args *a) { a->root = 0; }
static void hist_bins_17(histogram_args *a) { a->bins = 17; }
static void hist_lo(histogram_args *a) { a->lo = -4; }
static void hist_float(histogram_args *a) { a->t = CLPRIM_FLOAT; }
static void hist_counts_small(histogram_args *a) { a->counts = a->small_counts; }
static void hist_counts_null(histogram_args *a) { a->counts = NULL; }
static void hist_null_ctx(histogram_args *a) { a->ctx = NULL; }
static void hist_lo_ge_hi(histogram_args *a) { a->lo = a->hi; }

static void bad_histogram(void)
{
    static const struct {
        bad_row row;
        int root; /* before the change; ROOT_LAST_RANK for the last rank */
        void (*change)(histogram_args *);
    } rows[] = {
#define ROOT_LAST_RANK (-100)
        {{"bins 0 on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, CLPRIM_MPI_ALL_RANKS, hist_bins_0},
        {{"root = the number of ranks, on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, 0, hist_root_size},
        {{"root = -2 on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, 0, hist_root_minus_2},
        {{"lo >= hi on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, CLPRIM_MPI_ALL_RANKS, hist_lo_ge_hi},
        {{"the last rank's root is 0, the others' the last rank", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT},
         ROOT_LAST_RANK, hist_root_0},
        {{"the last rank's bins differ", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, CLPRIM_MPI_ALL_RANKS, hist_bins_17},
        {{"the last rank's lo differs", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, CLPRIM_MPI_ALL_RANKS, hist_lo},
        {{"the last rank's type is float", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, CLPRIM_MPI_ALL_RANKS, hist_float},
        {{"the root's counts are too small", AT_LAST, 0, CLPRIM_BUFFER_TOO_SMALL}, ROOT_LAST_RANK, hist_counts_small},
        {{"the root's counts are NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, ROOT_LAST_RANK, hist_counts_null},
        {{"rank 0's counts are NULL (every rank gets the result)", AT_FIRST, 0, CLPRIM_INVALID_ARGUMENT},
         CLPRIM_MPI_ALL_RANKS, hist_counts_null},
        {{"the last rank's ctx is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, CLPRIM_MPI_ALL_RANKS, hist_null_ctx},
    };
    bad_data d = bad_data_make();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const bad_row *row = &rows[i].row;
        if (!bad_begin("histogram", row))
            continue;
        histogram_args a = {run.ctx, CLPRIM_INT32, bad_src(&d), d.off, d.n, -3, 20, 23,
                            rows[i].root == ROOT_LAST_RANK ? run.size - 1 : rows[i].root, NULL, 2, NULL};
        a.counts = buffer_make(run.ctx, (a.counts_off + a.bins + 2) * sizeof(cl_uint), FILL, 0, NULL, 0);
        a.small_counts = buffer_make(run.ctx, (a.counts_off + a.bins - 1) * sizeof(cl_uint), FILL, 0, NULL, 0);
        cl_mem src = a.src, counts = a.counts;
        if (fault_here(row->at))
            rows[i].change(&a);
        clprim_status s = clprim_mpi_histogram(a.ctx, run.comm, a.t, a.src, a.off, a.n, a.lo, a.hi, a.bins, a.root,
                                               a.counts, a.counts_off, 0, NULL);
        expect_untouched(counts, "counts");
        expect_untouched(a.small_counts, "the small counts");
        bad_end(row, s);
        buffer_release(src);
        buffer_release(counts);
        buffer_release(a.small_counts);
    }
    free(d.slice);
}

/* ---- Compaction ---- */

typedef struct {
    clprim_context *ctx;
    clprim_predicate keep;
    cl_mem src, dst;
    size_t src_off, dst_off, n;
    cl_mem small_dst;
} compact_args;

static const cl_int five = 5, six = 6;
static void compact_value_6(compact_args *a) { a->keep.value = &six; }
static void compact_kind_ge(compact_args *a) { a->keep.keep = CLPRIM_KEEP_GE; }
static void compact_expression(compact_args *a)
{
    a->keep.keep = CLPRIM_KEEP_EXPRESSION;
    a->keep.expression = run.rank == run.size - 1 ? "x > 6" : "x > 5";
}
static void compact_refused_expression(compact_args *a)
{
    a->keep.keep = CLPRIM_KEEP_EXPRESSION;
    a->keep.expression = "x > 3;";
}
static void compact_null_flags(compact_args *a) { a->keep.keep = CLPRIM_KEEP_FLAGGED; a->keep.flags = NULL; }
static void compact_dst_small(compact_args *a) { a->dst = a->small_dst; }
static void compact_null_ctx(compact_args *a) { a->ctx = NULL; }
static void compact_null_keep_value(compact_args *a) { a->keep.value = NULL; }

static void bad_compact(void)
{
    static const struct {
        bad_row row;
        void (*change)(compact_args *);
    } rows[] = {
        {{"x > 5 on the other ranks, x > 6 on the last", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, compact_value_6},
        {{"GT on the other ranks, GE on the last", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, compact_kind_ge},
        {{"the last rank's expression differs", AT_ALL, 1, CLPRIM_INVALID_ARGUMENT}, compact_expression},
        {{"a refused expression on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, compact_refused_expression},
        {{"FLAGGED with NULL flags on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, compact_null_flags},
        {{"the last rank's value is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, compact_null_keep_value},
        {{"the last rank's dst is too small", AT_LAST, 0, CLPRIM_BUFFER_TOO_SMALL}, compact_dst_small},
        {{"the last rank's ctx is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, compact_null_ctx},
    };
    bad_data d = bad_data_make();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const bad_row *row = &rows[i].row;
        if (!bad_begin("compact", row))
            continue;
        compact_args a = {run.ctx, {CLPRIM_KEEP_GT, &five, NULL, 0, NULL}, bad_src(&d), NULL, d.off, 1, d.n, NULL};
        a.dst = buffer_make(run.ctx, (a.dst_off + d.n + 2) * sizeof(cl_int), FILL, 0, NULL, 0);
        a.small_dst = buffer_make(run.ctx, (a.dst_off + d.n - 1) * sizeof(cl_int), FILL, 0, NULL, 0);
        cl_mem src = a.src, dst = a.dst;
        if (fault_here(row->at))
            rows[i].change(&a);
        clprim_mpi_kept counts;
        memset(&counts, FILL, sizeof counts);
        clprim_status s = clprim_mpi_compact(a.ctx, run.comm, CLPRIM_INT32, &a.keep, a.src, a.src_off, a.dst,
                                             a.dst_off, a.n, &counts, 0, NULL);
        expect_untouched(dst, "dst");
        expect_untouched(a.small_dst, "the small dst");
        expect_filled(&counts, sizeof counts, FILL, "*counts");
        bad_end(row, s);
        buffer_release(src);
        buffer_release(dst);
        buffer_release(a.small_dst);
    }
    free(d.slice);
}

/* ---- Sort ---- */

typedef struct {
    clprim_context *ctx;
    clprim_type key_t, value_t;
    clprim_sort_order order;
    cl_mem keys, values;
    size_t off, n;
    int pairs;
    int no_keys_out, no_values_out, no_n_out; /* pass NULL for that output */
} sort_args;

static void sort_positions_float(sort_args *a) { a->pairs = 1; a->values = NULL; a->value_t = CLPRIM_FLOAT; }
static void sort_key_float(sort_args *a) { a->key_t = CLPRIM_FLOAT; }
static void sort_descending(sort_args *a) { a->order.descending = 1; }
static void sort_bits(sort_args *a) { a->order.begin_bit = 4; }
static void sort_value_uint64(sort_args *a) { a->value_t = CLPRIM_UINT64; }
static void sort_past_end(sort_args *a) { a->n += 3; }
static void sort_null_ctx(sort_args *a) { a->ctx = NULL; }
static void sort_bad_bits(sort_args *a) { a->order.begin_bit = 20; a->order.end_bit = 10; }
static void sort_no_keys_out(sort_args *a) { a->no_keys_out = 1; }
static void sort_no_values_out(sort_args *a) { a->no_values_out = 1; }
static void sort_no_n_out(sort_args *a) { a->no_n_out = 1; }

static void bad_sort(void)
{
    static const struct {
        bad_row row;
        int pairs;
        void (*change)(sort_args *);
    } rows[] = {
        {{"pairs with values_in NULL and value_type FLOAT on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, 1,
         sort_positions_float},
        {{"the last rank's key type is float", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, 0, sort_key_float},
        {{"the last rank sorts descending", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, 0, sort_descending},
        {{"the last rank's bit range differs", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, 0, sort_bits},
        {{"the last rank's value type is uint64", AT_LAST, 1, CLPRIM_INVALID_ARGUMENT}, 1, sort_value_uint64},
        {{"begin_bit > end_bit on every rank", AT_ALL, 0, CLPRIM_INVALID_ARGUMENT}, 0, sort_bad_bits},
        {{"rank 0's offset + n runs past keys_in", AT_FIRST, 0, CLPRIM_BUFFER_TOO_SMALL}, 0, sort_past_end},
        {{"the last rank's ctx is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, 1, sort_null_ctx},
        {{"the last rank's keys_out is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, 0, sort_no_keys_out},
        {{"the last rank's values_out is NULL", AT_LAST, 0, CLPRIM_INVALID_ARGUMENT}, 1, sort_no_values_out},
        {{"rank 0's n_out is NULL", AT_FIRST, 0, CLPRIM_INVALID_ARGUMENT}, 1, sort_no_n_out},
    };
    bad_data d = bad_data_make();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const bad_row *row = &rows[i].row;
        if (!bad_begin(rows[i].pairs ? "sort_pairs" : "sort_keys", row))
            continue;
        /* Values with room for 8 bytes each, so that a rank's other value type is only a disagreement. */
        sort_args a = {run.ctx, CLPRIM_UINT32, CLPRIM_UINT32, {0, 0, 0}, bad_src(&d), NULL, d.off, d.n, rows[i].pairs,
                       0, 0, 0};
        a.values = buffer_make(run.ctx, (d.off + d.n + 2) * 8, 0, 0, NULL, 0);
        cl_mem keys = a.keys, values = a.values;
        if (fault_here(row->at))
            rows[i].change(&a);
        cl_mem kout = NULL, vout = NULL;
        size_t n_out;
        memset(&n_out, FILL, sizeof n_out);
        cl_mem *keys_out = a.no_keys_out ? NULL : &kout, *values_out = a.no_values_out ? NULL : &vout;
        size_t *n_out_p = a.no_n_out ? NULL : &n_out;
        clprim_status s = a.pairs ? clprim_mpi_sort_pairs(a.ctx, run.comm, a.key_t, a.value_t, &a.order, a.keys,
                                                          a.off, a.values, a.off, a.n, keys_out, values_out, n_out_p,
                                                          0, NULL)
                                  : clprim_mpi_sort_keys(a.ctx, run.comm, a.key_t, &a.order, a.keys, a.off, a.n,
                                                         keys_out, n_out_p, 0, NULL);
        EXPECT(kout == NULL && vout == NULL, "a failed call created output buffers");
        expect_filled(&n_out, sizeof n_out, FILL, "*n_out");
        bad_end(row, s);
        if (s == CLPRIM_SUCCESS) {
            buffer_release(kout);
            buffer_release(vout);
        }
        buffer_release(keys);
        buffer_release(values);
    }
    free(d.slice);
}

void test_bad_calls(void)
{
    if (run.rank == 0 && run.size < 2) {
        printf("# 1 rank: the cases where ranks disagree are skipped\n");
        fflush(stdout);
    }
    bad_scan();
    disagreeing_operators_named();
    bad_reduce();
    bad_histogram();
    bad_compact();
    bad_sort();
}
