/* Histogram across ranks: local counts on each device, summed by MPI on the
 * host (cl_uint sums wrap modulo 2^32, as on one device), written to the
 * receiving ranks' devices. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* MPI counts are ints: the sum goes in pieces. */
#define PIECE (1u << 30)

static void sum_counts(mpi_call *call, const cl_uint *local, cl_uint *global, size_t bins, int root)
{
    double since = mpi_now();
    for (size_t first = 0; first < bins; first += PIECE) {
        int count = (int)(bins - first < PIECE ? bins - first : PIECE);
        if (root == CLPRIM_MPI_ALL_RANKS)
            MPI_Allreduce(local + first, global + first, count, MPI_UINT32_T, MPI_SUM, call->comm);
        else
            MPI_Reduce(local + first, global + first, count, MPI_UINT32_T, MPI_SUM, root, call->comm);
    }
    mpi_add_mpi(call, since);
}

clprim_status clprim_mpi_histogram(clprim_context *ctx, MPI_Comm comm, clprim_type t, cl_mem src,
                                   size_t src_offset, size_t n, double lo, double hi, size_t bins, int root,
                                   cl_mem counts, size_t counts_offset, cl_uint num_events_in_wait_list,
                                   const cl_event *event_wait_list)
{
    mpi_call call;
    clprim_status s = mpi_begin(&call, "clprim_mpi_histogram", ctx, comm);
    if (call.size == 0)
        return mpi_end(&call, s);
    const int receives = root == CLPRIM_MPI_ALL_RANKS || root == call.rank;
    cl_mem local_counts = NULL;
    cl_uint *local = NULL, *global = NULL;

    /* Check: this rank's arguments; the local histogram, into a buffer of the
     * call's own, checks src, the type, the range and the bins. */
    if (s == CLPRIM_SUCCESS && !ctx)
        s = mpi_fail(&call, CLPRIM_INVALID_ARGUMENT, "ctx is NULL");
    if (s == CLPRIM_SUCCESS && (root < CLPRIM_MPI_ALL_RANKS || root >= call.size))
        s = mpi_fail(&call, CLPRIM_INVALID_ARGUMENT, "root %d is neither a rank of comm (0 .. %d) nor CLPRIM_MPI_ALL_RANKS",
                     root, call.size - 1);
    if (s == CLPRIM_SUCCESS && (bins == 0 || bins > (size_t)1 << 31))
        s = mpi_fail(&call, CLPRIM_INVALID_ARGUMENT, "bins %zu is outside [1, 2^31]", bins);
    if (s == CLPRIM_SUCCESS && receives)
        s = mpi_check_buffer(&call, "counts", counts, counts_offset, bins, sizeof(cl_uint), 1);
    if (s == CLPRIM_SUCCESS) {
        local = malloc(bins * sizeof *local);
        global = receives ? malloc(bins * sizeof *global) : NULL;
        if (!local || (receives && !global))
            s = mpi_fail(&call, CLPRIM_OUT_OF_MEMORY, "no host memory for %zu counts", bins);
    }
    if (s == CLPRIM_SUCCESS)
        s = mpi_buffer(&call, bins * sizeof(cl_uint), &local_counts);
    if (s == CLPRIM_SUCCESS) {
        s = clprim_histogram(ctx, t, src, src_offset, n, lo, hi, bins, local_counts, 0, 0, num_events_in_wait_list,
                             event_wait_list, NULL);
        if (s != CLPRIM_SUCCESS)
            s = mpi_fail_core(&call, s);
    }
    if (s == CLPRIM_SUCCESS)
        s = mpi_read(&call, local_counts, 0, bins * sizeof(cl_uint), local);
    uint64_t lo_bits, hi_bits;
    memcpy(&lo_bits, &lo, sizeof lo_bits);
    memcpy(&hi_bits, &hi, sizeof hi_bits);
    const mpi_field fields[] = {
        {"the type", (uint64_t)t, FIELD_TYPE},         {"lo (as the bits of a double)", lo_bits, FIELD_NUMBER},
        {"hi (as the bits of a double)", hi_bits, FIELD_NUMBER}, {"bins", bins, FIELD_NUMBER},
        {"root", (uint64_t)(int64_t)root, FIELD_SIGNED},
    };
    s = mpi_agree(&call, s, n, fields, (int)(sizeof fields / sizeof fields[0]));

    /* Enqueue: the sum, to the receiving ranks' devices. */
    if (s == CLPRIM_SUCCESS) {
        sum_counts(&call, local, global, bins, root);
        if (receives)
            s = mpi_write(&call, counts, counts_offset * sizeof(cl_uint), bins * sizeof(cl_uint), global);
        s = mpi_settle(&call, s);
    }
    if (local_counts)
        clReleaseMemObject(local_counts);
    free(local);
    free(global);
    return mpi_end(&call, s);
}
