/*
 * libclprim_mpi: libclprim's primitives over an array spread across the ranks
 * of an MPI communicator. Link it with `pkg-config --libs clprim_mpi` (it
 * brings libclprim and MPI along).
 *
 * The model: each rank has a libclprim context on a device of its own
 * (clprim_mpi_create) and holds a contiguous slice of one global array, in
 * rank order: rank 0 the first elements, rank 1 the next ones, and so on.
 * Slices may differ in length, and may be empty (n == 0).
 *
 * Every call is collective: every rank of comm makes it, with the same type,
 * operator, predicate and options, each with its own slice. The results are
 * those of the single-device call on the concatenated array: bit for bit for
 * integers and for MIN and MAX; for float and double sums, and for callers'
 * operators that are not exactly associative, the grouping depends on the
 * slices (each rank folds its own, then the ranks' totals are folded in rank
 * order), so the result is the same on every run with the same slices.
 *
 * Every call blocks until its results are in place, on the device and in the
 * host outputs; like libclprim's blocking calls it takes a wait list, and
 * nothing of the call starts before the list has completed. Data between ranks
 * goes through host memory: OpenCL buffers cannot be handed to MPI.
 *
 * Errors are collective too: every rank returns the same status. A rank whose
 * local arguments fail libclprim's checks, or whose device fails, makes every
 * rank fail with that status; ranks that disagree on the type, operator,
 * predicate or options all get CLPRIM_INVALID_ARGUMENT, not a hang.
 * clprim_mpi_last_error() gives the same message on every rank: the failed rank
 * and its reason, or what the ranks disagree on and two of the values passed. A
 * call that fails its checks writes no output on any rank.
 * Communicators with an intercommunicator or MPI_COMM_NULL are refused.
 */
#ifndef CLPRIM_MPI_H
#define CLPRIM_MPI_H

#include <mpi.h>

#include "clprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A context for this rank, collectively over comm. device: NULL picks, in
 * order, $CLPRIM_DEVICE when it is set, else one of this host's GPUs by local
 * rank (the rank among those of comm on the same host: local rank r takes GPU
 * r mod the number of GPUs, counted across platforms in `clprim devices`
 * order), else the default device of clprim_create. Any other value goes to
 * clprim_create as it is ("cpu", "0:1", a name). When any rank fails, every
 * rank returns that status with *ctx NULL. Release with clprim_release. */
CLPRIM_API clprim_status clprim_mpi_create(clprim_context **ctx, MPI_Comm comm, const char *device);

/* This thread's last failed clprim_mpi call: which rank and why; "" after a
 * success. */
CLPRIM_API const char *clprim_mpi_last_error(void);

/* Where the last clprim_mpi call of this thread spent its time, in seconds:
 * waiting for its device work (kernels and the copies between host and
 * device), inside MPI (which includes waiting for slower ranks), and in all. */
typedef struct {
    double device;
    double mpi;
    double total;
} clprim_mpi_times;
CLPRIM_API clprim_mpi_times clprim_mpi_last_times(void);

/* Scan of the global array: each rank's dst[i] is the scan (clprim_scan, or
 * clprim_scan_op when custom is not NULL; op is then ignored) of every element
 * of the lower ranks and of its own src[0 .. i]. Inclusive or exclusive, in
 * place when src and dst are the same elements; as clprim_scan otherwise.
 * Work: a local reduce (on every rank but the last, whose total no rank
 * needs), an MPI_Allgather of the ranks' totals, the fold of the lower ranks'
 * totals on the device, a local scan seeded with it; on one rank, the local
 * scan alone. */
CLPRIM_API clprim_status clprim_mpi_scan(clprim_context *ctx, MPI_Comm comm, clprim_type t, clprim_op op,
                                         const clprim_operator *custom, int exclusive, cl_mem src,
                                         size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                         cl_uint num_events_in_wait_list, const cl_event *event_wait_list);

/* Reduce of the global array (clprim_reduce, or clprim_reduce_op when custom
 * is not NULL): one element of type t to *result on every rank. */
CLPRIM_API clprim_status clprim_mpi_reduce(clprim_context *ctx, MPI_Comm comm, clprim_type t, clprim_op op,
                                           const clprim_operator *custom, cl_mem src, size_t offset, size_t n,
                                           void *result, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list);

/* root for a result on every rank. */
#define CLPRIM_MPI_ALL_RANKS (-1)

/* Histogram of the global array, bins as clprim_histogram: the global counts
 * (cl_uint, wrapping modulo 2^32) replace counts[counts_offset ..
 * counts_offset + bins) on rank `root`, or on every rank with
 * CLPRIM_MPI_ALL_RANKS. Other ranks' counts are not written and may be NULL
 * (they need no buffer). Work: local counts, read back, MPI_Allreduce or
 * MPI_Reduce to the root, written to the device. */
CLPRIM_API clprim_status clprim_mpi_histogram(clprim_context *ctx, MPI_Comm comm, clprim_type t, cl_mem src,
                                              size_t src_offset, size_t n, double lo, double hi, size_t bins,
                                              int root, cl_mem counts, size_t counts_offset,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list);

/* The counts of a compaction across ranks. */
typedef struct {
    size_t kept;   /* this rank's kept elements, now at dst[dst_offset ..] */
    size_t before; /* kept elements on lower ranks: this rank's first kept element's global position */
    size_t total;  /* kept elements on every rank */
} clprim_mpi_kept;

/* Compaction of the global array: each rank keeps, in order, the elements of
 * its slice that pass `keep` (clprim_compact, whose rules for dst, overlaps
 * and in place apply), and learns where they lie in the global result.
 * CLPRIM_KEEP_FLAGGED reads each rank's own flags; in CLPRIM_KEEP_EXPRESSION,
 * i counts from the start of the global array. counts may be NULL. */
CLPRIM_API clprim_status clprim_mpi_compact(clprim_context *ctx, MPI_Comm comm, clprim_type t,
                                            const clprim_predicate *keep, cl_mem src, size_t src_offset, cl_mem dst,
                                            size_t dst_offset, size_t n, clprim_mpi_kept *counts,
                                            cl_uint num_events_in_wait_list, const cl_event *event_wait_list);

/* Stable sort of the global array (order and key types as clprim_sort_keys):
 * the sorted sequence ends up spread over the ranks in rank order, each rank
 * holding about an equal share. The call creates *keys_out, a buffer of the
 * context's cl_context holding this rank's *n_out sorted keys (one unused
 * element when *n_out is 0: OpenCL has no empty buffers); the caller releases
 * it. Work: a sample sort. Each rank sorts its slice (clprim_sort_keys);
 * splitters are taken from samples of every rank's sorted keys (weighted by
 * slice length) and found in each sorted slice by a search on the device; the
 * pieces for other ranks cross through the context's pinned host memory
 * (clprim_pinned_host, kept between calls: clprim_trim gives it back) as MPI
 * messages in chunks, so that the device copies and MPI overlap, the keys
 * delta packed on the device (clprim_delta_pack) where the sending rank's
 * device is not a CPU, or where $CLPRIM_MPI_PACK is set and not "0" ("0":
 * never); each rank
 * merges the sorted runs it holds on its device (clprim_merge_in_order). One
 * rank's call is its local sort alone. Equal keys keep their global input order:
 * splitters compare the key, then the rank, then the position. keys_in is
 * left as it was. Device memory: the sorted slice, what arrives, the output
 * (and, from three ranks on, a second output's room for the merge passes;
 * where keys are packed, their packed form each way, at most the keys' bytes
 * and 2.8%). */
CLPRIM_API clprim_status clprim_mpi_sort_keys(clprim_context *ctx, MPI_Comm comm, clprim_type key_type,
                                              const clprim_sort_order *order, cl_mem keys_in, size_t keys_in_offset,
                                              size_t n, cl_mem *keys_out, size_t *n_out,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list);

/* The same with a value per key (any type of 4 or 8 bytes, moved as bits),
 * *values_out created like *keys_out. values_in NULL: the values are the
 * keys' global positions (in the concatenated array), value_type
 * CLPRIM_UINT32 (global length at most 2^32) or CLPRIM_UINT64, so values_out
 * receives the global sorting permutation. */
CLPRIM_API clprim_status clprim_mpi_sort_pairs(clprim_context *ctx, MPI_Comm comm, clprim_type key_type,
                                               clprim_type value_type, const clprim_sort_order *order,
                                               cl_mem keys_in, size_t keys_in_offset, cl_mem values_in,
                                               size_t values_in_offset, size_t n, cl_mem *keys_out,
                                               cl_mem *values_out, size_t *n_out, cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list);

#ifdef __cplusplus
}
#endif
#endif /* CLPRIM_MPI_H */
