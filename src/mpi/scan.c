/* Scan and reduce across ranks. Each rank reduces its slice (but the scan's
 * top rank, whose total no rank needs); the totals are gathered; the totals of the lower ranks that hold elements are folded on
 * the device, in rank order, by the same operator (so callers' operators,
 * which only the device can evaluate, work too, and float sums group the same
 * way on every run); a scan is then seeded with that fold. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* The local reduce: clprim_reduce or clprim_reduce_op; it also checks src,
 * the type, the operator and the wait list. */
static clprim_status local_total(mpi_call *call, clprim_type t, clprim_op op, const clprim_operator *custom,
                                 cl_mem src, size_t offset, size_t n, void *total, cl_uint num_events,
                                 const cl_event *wait_list)
{
    double since = mpi_now();
    clprim_status s = custom ? clprim_reduce_op(call->ctx, t, custom, src, offset, n, total, num_events, wait_list)
                             : clprim_reduce(call->ctx, t, op, src, offset, n, total, num_events, wait_list);
    mpi_add_device(call, since);
    return s == CLPRIM_SUCCESS ? s : mpi_fail_core(call, s);
}

/* What every rank must pass alike, and the room for every rank's total. */
static clprim_status begin_fold(mpi_call *call, clprim_status s, clprim_type t, clprim_op op,
                                const clprim_operator *custom, int exclusive, size_t n, mpi_field *fields,
                                unsigned char **totals)
{
    if (s == CLPRIM_SUCCESS) {
        *totals = malloc((size_t)call->size * 8);
        if (!*totals)
            s = mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for %d totals", call->size);
    }
    fields[0] = (mpi_field){"the type", (uint64_t)t, FIELD_TYPE};
    fields[1] = (mpi_field){"the operator (clprim_op, or a custom one)", custom ? MPI_CUSTOM_OPERATOR : (uint64_t)op,
                            FIELD_OPERATOR};
    fields[2] = (mpi_field){"the custom operator's combine and identity",
                            mpi_hash_operator(custom, mpi_type_size(t)), FIELD_CONTENT};
    fields[3] = (mpi_field){"exclusive", exclusive != 0, FIELD_NUMBER};
    return mpi_agree(call, s, n, fields, 4);
}

/* Gathers every rank's total and packs, in rank order, those of ranks below
 * `upto` that hold elements (an empty slice's total is no element's: beside a
 * slice of NaNs it would change a float MIN). Returns how many. */
static int gather_totals(mpi_call *call, const void *total, size_t size, unsigned char *totals, int upto)
{
    double since = mpi_now();
    MPI_Allgather(total, (int)size, MPI_BYTE, totals, (int)size, MPI_BYTE, call->comm);
    mpi_add_mpi(call, since);
    int k = 0;
    for (int r = 0; r < upto; r++)
        if (call->slices[r] > 0)
            memmove(totals + (size_t)k++ * size, totals + (size_t)r * size, size);
    return k;
}

/* The k totals in a new device buffer. */
static clprim_status upload(mpi_call *call, const unsigned char *totals, int k, size_t size, cl_mem *buf)
{
    clprim_status s = mpi_buffer(call, (size_t)k * size, buf);
    if (s == CLPRIM_SUCCESS)
        s = mpi_write(call, *buf, 0, (size_t)k * size, totals);
    return s;
}

clprim_status clprim_mpi_scan(clprim_context *ctx, MPI_Comm comm, clprim_type t, clprim_op op,
                              const clprim_operator *custom, int exclusive, cl_mem src, size_t src_offset,
                              cl_mem dst, size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                              const cl_event *event_wait_list)
{
    mpi_call call;
    clprim_status s = mpi_begin(&call, "clprim_mpi_scan", ctx, comm);
    if (call.size == 0)
        return mpi_end(&call, s);
    const size_t size = mpi_type_size(t);
    unsigned char total[8], *totals = NULL;

    /* Check: this rank's arguments (the local reduce checks the type and the
     * operator; src and dst are checked here, before any rank writes), then
     * every rank's. No rank needs the top rank's total, so it reduces nothing:
     * on one rank the call is the local scan alone. */
    if (s == CLPRIM_SUCCESS && !ctx)
        s = mpi_fail(&call, CLPRIM_INVALID_ARGUMENT, "ctx is NULL");
    if (s == CLPRIM_SUCCESS)
        s = local_total(&call, t, op, custom, src, src_offset, call.rank == call.size - 1 ? 0 : n, total,
                        num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS)
        s = mpi_check_buffer(&call, "src", src, src_offset, n, size, 0);
    if (s == CLPRIM_SUCCESS)
        s = mpi_check_buffer(&call, "dst", dst, dst_offset, n, size, 1);
    if (s == CLPRIM_SUCCESS)
        s = mpi_check_disjoint(&call, "src", src, src_offset, "dst", dst, dst_offset, n, size, 1);
    mpi_field fields[4];
    s = begin_fold(&call, s, t, op, custom, exclusive, n, fields, &totals);

    /* Plan: the seed, the fold of the lower ranks' totals (none below: the
     * scan starts as a single-device scan does). */
    cl_mem seed = NULL;
    int k = 0;
    if (s == CLPRIM_SUCCESS) {
        k = gather_totals(&call, total, size, totals, call.rank);
        if (k > 0)
            s = upload(&call, totals, k, size, &seed);
        if (s == CLPRIM_SUCCESS && k > 1) {
            s = custom ? clprim_scan_op(ctx, t, custom, 0, seed, 0, seed, 0, (size_t)k, 0, NULL, NULL)
                       : clprim_scan(ctx, t, op, 0, seed, 0, seed, 0, (size_t)k, 0, NULL, NULL);
            if (s != CLPRIM_SUCCESS)
                s = mpi_fail_core(&call, s);
        }

        /* Enqueue: the local scan from the seed. */
        if (s == CLPRIM_SUCCESS) {
            s = clprim_scan_seeded(ctx, t, op, custom, exclusive, seed, k > 0 ? (size_t)k - 1 : 0, src,
                                   src_offset, dst, dst_offset, n, num_events_in_wait_list, event_wait_list, NULL);
            if (s != CLPRIM_SUCCESS)
                s = mpi_fail_core(&call, s);
        }
        if (s == CLPRIM_SUCCESS)
            s = mpi_finish(&call);
        s = mpi_settle(&call, s);
    }
    if (seed)
        clReleaseMemObject(seed);
    free(totals);
    return mpi_end(&call, s);
}

clprim_status clprim_mpi_reduce(clprim_context *ctx, MPI_Comm comm, clprim_type t, clprim_op op,
                                const clprim_operator *custom, cl_mem src, size_t offset, size_t n, void *result,
                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list)
{
    mpi_call call;
    clprim_status s = mpi_begin(&call, "clprim_mpi_reduce", ctx, comm);
    if (call.size == 0)
        return mpi_end(&call, s);
    const size_t size = mpi_type_size(t);
    unsigned char total[8], *totals = NULL, folded[8];

    /* Check: this rank's arguments, then every rank's. */
    if (s == CLPRIM_SUCCESS && !ctx)
        s = mpi_fail(&call, CLPRIM_INVALID_ARGUMENT, "ctx is NULL");
    if (s == CLPRIM_SUCCESS && !result)
        s = mpi_fail(&call, CLPRIM_INVALID_ARGUMENT, "result is NULL");
    if (s == CLPRIM_SUCCESS)
        s = local_total(&call, t, op, custom, src, offset, n, total, num_events_in_wait_list, event_wait_list);
    mpi_field fields[4];
    s = begin_fold(&call, s, t, op, custom, 0, n, fields, &totals);

    /* Enqueue: the fold of every rank's total (with no element anywhere, the
     * local reduce already gave what n == 0 gives). */
    cl_mem all = NULL;
    if (s == CLPRIM_SUCCESS) {
        int k = gather_totals(&call, total, size, totals, call.size);
        memcpy(folded, total, size);
        if (k > 0)
            s = upload(&call, totals, k, size, &all);
        if (s == CLPRIM_SUCCESS && k > 0)
            s = local_total(&call, t, op, custom, all, 0, (size_t)k, folded, 0, NULL);
        s = mpi_settle(&call, s);
    }
    if (s == CLPRIM_SUCCESS)
        memcpy(result, folded, size);
    if (all)
        clReleaseMemObject(all);
    free(totals);
    return mpi_end(&call, s);
}
