/* What the collective calls share: one record per call (its communicator,
 * timings and every rank's slice length), the agreement that makes errors
 * collective, and the checks made before any rank writes anything. */
#ifndef CLPRIM_MPI_INTERNAL_H
#define CLPRIM_MPI_INTERNAL_H

#include <stdint.h>

#include "clprim_mpi.h"
#include "types.h" /* cl/types.h: the element types, as the core library knows them */

typedef struct {
    const char *function;
    clprim_context *ctx;
    MPI_Comm comm;
    int rank, size;
    double start, device, mpi; /* MPI_Wtime at the start; seconds spent so far */
    uint64_t *slices;          /* every rank's n, once mpi_agree has run */
    uint64_t before, total;    /* elements on lower ranks; on every rank */
} mpi_call;

/* What every rank must pass alike: compared across ranks by mpi_agree. */
typedef enum {
    FIELD_NUMBER,   /* shown as an unsigned number */
    FIELD_SIGNED,   /* the bits of an int64_t, shown signed */
    FIELD_TYPE,     /* a clprim_type, shown by name */
    FIELD_OPERATOR, /* a clprim_op, or MPI_CUSTOM_OPERATOR, shown by name */
    FIELD_CONTENT   /* a hash of bytes, not shown */
} mpi_field_kind;
#define MPI_CUSTOM_OPERATOR UINT64_MAX
typedef struct {
    const char *name;
    uint64_t value; /* FIELD_CONTENT: a hash of the bytes */
    mpi_field_kind kind;
} mpi_field;
#define MPI_MAX_FIELDS 8

/* Starts a call. The communicator must be a usable intracommunicator; when it
 * is not, call->size stays 0 and the call returns at once on this rank alone,
 * as it cannot reach the others. Any other failure here still takes part in
 * the agreement. */
clprim_status mpi_begin(mpi_call *call, const char *function, clprim_context *ctx, MPI_Comm comm);

/* Records a failure found on this rank; the status is returned. */
clprim_status mpi_fail(mpi_call *call, clprim_status s, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for a libclprim call that failed: its message, from the context. */
clprim_status mpi_fail_core(mpi_call *call, clprim_status s);

/* The collective check: every rank's local status and fields meet. Returns
 * the status every rank returns: the lowest failed rank's own (its message
 * broadcast to all), else CLPRIM_INVALID_ARGUMENT when ranks disagree on a
 * field, else success, with every rank's slice length n gathered into
 * call->slices and call->before and ->total set. */
clprim_status mpi_agree(mpi_call *call, clprim_status local, size_t n, const mpi_field *fields, int count);

/* After the exchange: a failure on any rank (a device or memory error) becomes
 * every rank's, with the lowest failed rank's message. */
clprim_status mpi_settle(mpi_call *call, clprim_status local);

/* Ends a call: records its times and, on success, clears the message. */
clprim_status mpi_end(mpi_call *call, clprim_status s);

/* Time spent between `since` (MPI_Wtime) and now goes to the device or to MPI. */
double mpi_now(void);
void mpi_add_device(mpi_call *call, double since);
void mpi_add_mpi(mpi_call *call, double since);

/* Bytes of an element of t, 0 for a value outside the enum; its name. */
size_t mpi_type_size(clprim_type t);
const char *mpi_type_name(clprim_type t);
uint64_t mpi_hash(const void *bytes, size_t size, uint64_t h);
#define MPI_HASH_SEED 1469598103934665603ull
/* A custom operator's combine text and identity bytes (0 for none). */
uint64_t mpi_hash_operator(const clprim_operator *op, size_t elem_size);

/* Checks made before any rank writes, so that a bad argument on one rank
 * fails every rank with nothing written: a buffer of the context's cl_context
 * holding offset + n elements (`writes`: not CL_MEM_READ_ONLY), and an input
 * and output that are the same elements or do not meet. */
clprim_status mpi_check_buffer(mpi_call *call, const char *name, cl_mem buf, size_t offset, size_t n,
                               size_t elem_size, int writes);
clprim_status mpi_check_disjoint(mpi_call *call, const char *a_name, cl_mem a, size_t a_offset,
                                 const char *b_name, cl_mem b, size_t b_offset, size_t n, size_t elem_size,
                                 int allow_same);

/* A device buffer of `bytes` (at least 1) in the context's cl_context. */
clprim_status mpi_buffer(mpi_call *call, size_t bytes, cl_mem *buf);
/* Blocking copies between the host and a buffer, timed as device work. */
clprim_status mpi_read(mpi_call *call, cl_mem buf, size_t offset_bytes, size_t bytes, void *host);
clprim_status mpi_write(mpi_call *call, cl_mem buf, size_t offset_bytes, size_t bytes, const void *host);
/* Waits for the context's queue, timed as device work. */
clprim_status mpi_finish(mpi_call *call);

#endif
