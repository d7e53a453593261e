/* The life of a collective call: begin, local checks, agreement across ranks,
 * the work, settling its outcome, end. Messages and timings are per thread. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

#define MESSAGE_BYTES 2048

static _Thread_local char last_error[MESSAGE_BYTES];
static _Thread_local clprim_mpi_times last_times;

const char *clprim_mpi_last_error(void)
{
    return last_error;
}

clprim_mpi_times clprim_mpi_last_times(void)
{
    return last_times;
}

double mpi_now(void)
{
    return MPI_Wtime();
}

void mpi_add_device(mpi_call *call, double since)
{
    call->device += MPI_Wtime() - since;
}

void mpi_add_mpi(mpi_call *call, double since)
{
    call->mpi += MPI_Wtime() - since;
}

clprim_status mpi_begin(mpi_call *call, const char *function, clprim_context *ctx, MPI_Comm comm)
{
    *call = (mpi_call){.function = function, .ctx = ctx, .comm = comm, .start = MPI_Wtime()};
    last_error[0] = '\0';
    int inter = 0;
    if (comm == MPI_COMM_NULL)
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "comm is MPI_COMM_NULL");
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "comm is an intercommunicator");
    MPI_Comm_rank(comm, &call->rank);
    MPI_Comm_size(comm, &call->size);
    /* Taken before any collective: a rank without it fails in the agreement
     * like any other local failure. */
    call->slices = malloc((size_t)call->size * sizeof *call->slices);
    if (!call->slices)
        return mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for %d slice lengths", call->size);
    return CLPRIM_SUCCESS;
}

clprim_status mpi_fail(mpi_call *call, clprim_status s, const char *format, ...)
{
    int used = snprintf(last_error, sizeof last_error, "%s: rank %d: ", call->function, call->rank);
    va_list args;
    va_start(args, format);
    vsnprintf(last_error + used, sizeof last_error - (size_t)used, format, args);
    va_end(args);
    return s;
}

clprim_status mpi_fail_core(mpi_call *call, clprim_status s)
{
    return mpi_fail(call, s, "%s", clprim_last_error(call->ctx));
}

/* Every rank learns the lowest failed rank's status and message. */
static clprim_status share_failure(mpi_call *call, int failed_rank, clprim_status local)
{
    struct {
        int status;
        char message[MESSAGE_BYTES];
    } failure = {(int)local, ""};
    if (call->rank == failed_rank)
        memcpy(failure.message, last_error, sizeof failure.message);
    double t = mpi_now();
    MPI_Bcast(&failure, (int)sizeof failure, MPI_BYTE, failed_rank, call->comm);
    mpi_add_mpi(call, t);
    memcpy(last_error, failure.message, sizeof last_error);
    last_error[sizeof last_error - 1] = '\0';
    return (clprim_status)failure.status;
}

/* A field's value as the message shows it (a FIELD_CONTENT hash is not shown). */
static void describe(char *out, size_t size, const mpi_field *f, uint64_t value)
{
    static const char *const ops[] = {[CLPRIM_SUM] = "CLPRIM_SUM", [CLPRIM_MIN] = "CLPRIM_MIN",
                                      [CLPRIM_MAX] = "CLPRIM_MAX"};
    if (f->kind == FIELD_TYPE)
        snprintf(out, size, "%s", mpi_type_name((clprim_type)value));
    else if (f->kind == FIELD_OPERATOR && value < sizeof ops / sizeof ops[0])
        snprintf(out, size, "%s", ops[value]);
    else if (f->kind == FIELD_OPERATOR)
        snprintf(out, size, "%s", value == MPI_CUSTOM_OPERATOR ? "a custom operator" : "an unknown operator");
    else if (f->kind == FIELD_SIGNED)
        snprintf(out, size, "%lld", (long long)(int64_t)value);
    else
        snprintf(out, size, "%llu", (unsigned long long)value);
}

/* One MPI_Allreduce (MIN) of fixed size, so no rank needs memory for the
 * others' descriptors: the lowest failed rank, and each field's smallest and
 * (complemented) largest value. */
clprim_status mpi_agree(mpi_call *call, clprim_status local, size_t n, const mpi_field *fields, int count)
{
    uint64_t mine[1 + 2 * MPI_MAX_FIELDS], all[1 + 2 * MPI_MAX_FIELDS];
    mine[0] = local == CLPRIM_SUCCESS ? (uint64_t)call->size : (uint64_t)call->rank;
    for (int k = 0; k < count; k++) {
        mine[1 + 2 * k] = fields[k].value;
        mine[2 + 2 * k] = ~fields[k].value;
    }
    double t = mpi_now();
    MPI_Allreduce(mine, all, 1 + 2 * count, MPI_UINT64_T, MPI_MIN, call->comm);
    mpi_add_mpi(call, t);
    if (all[0] != (uint64_t)call->size)
        return share_failure(call, (int)all[0], local);
    for (int k = 0; k < count; k++)
        if (all[1 + 2 * k] != ~all[2 + 2 * k]) {
            /* Name two ranks: the lowest passing the smallest value, and the
             * lowest passing another (one more collective, on failure only). */
            const uint64_t low = all[1 + 2 * k];
            int at[2] = {fields[k].value == low ? call->rank : call->size,
                         fields[k].value != low ? call->rank : call->size};
            int lowest[2];
            t = mpi_now();
            MPI_Allreduce(at, lowest, 2, MPI_INT, MPI_MIN, call->comm);
            mpi_add_mpi(call, t);
            char low_text[64], high_text[64];
            describe(low_text, sizeof low_text, &fields[k], low);
            describe(high_text, sizeof high_text, &fields[k], ~all[2 + 2 * k]);
            if (fields[k].kind == FIELD_CONTENT)
                snprintf(last_error, sizeof last_error, "%s: the ranks disagree on %s: rank %d passes one, rank %d another",
                         call->function, fields[k].name, lowest[0], lowest[1]);
            else
                snprintf(last_error, sizeof last_error,
                         "%s: the ranks disagree on %s: rank %d passes %s, rank %d another value (the largest "
                         "passed: %s)",
                         call->function, fields[k].name, lowest[0], low_text, lowest[1], high_text);
            return CLPRIM_INVALID_ARGUMENT;
        }

    /* Every rank's slice length, for offsets and sample counts. */
    uint64_t n64 = n;
    t = mpi_now();
    MPI_Allgather(&n64, 1, MPI_UINT64_T, call->slices, 1, MPI_UINT64_T, call->comm);
    mpi_add_mpi(call, t);
    call->total = 0;
    for (int r = 0; r < call->size; r++) {
        if (r == call->rank)
            call->before = call->total;
        call->total += call->slices[r];
    }
    return CLPRIM_SUCCESS;
}

clprim_status mpi_settle(mpi_call *call, clprim_status local)
{
    int mine = local == CLPRIM_SUCCESS ? call->size : call->rank, lowest;
    double t = mpi_now();
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, call->comm);
    mpi_add_mpi(call, t);
    return lowest == call->size ? CLPRIM_SUCCESS : share_failure(call, lowest, local);
}

clprim_status mpi_end(mpi_call *call, clprim_status s)
{
    free(call->slices);
    call->slices = NULL;
    last_times = (clprim_mpi_times){call->device, call->mpi, MPI_Wtime() - call->start};
    if (s == CLPRIM_SUCCESS)
        last_error[0] = '\0';
    return s;
}

size_t mpi_type_size(clprim_type t)
{
#define TYPE_SIZE(NAME)                                                                                      \
    case CLPRIM_##NAME:                                                                                      \
        return CLPRIM_FIELD(NAME, BYTES);
    switch (t) { CLPRIM_TYPES(TYPE_SIZE) }
#undef TYPE_SIZE
    return 0;
}

const char *mpi_type_name(clprim_type t)
{
    static const char *const names[] = {"CLPRIM_INT32", "CLPRIM_UINT32", "CLPRIM_INT64", "CLPRIM_UINT64",
                                        "CLPRIM_FLOAT", "CLPRIM_DOUBLE", "CLPRIM_UINT8"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "an unknown clprim_type";
}

/* FNV-1a: enough to tell two ranks' operators or predicates apart. */
uint64_t mpi_hash(const void *bytes, size_t size, uint64_t h)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

uint64_t mpi_hash_operator(const clprim_operator *op, size_t elem_size)
{
    if (!op)
        return 0;
    uint64_t h = MPI_HASH_SEED;
    if (op->combine)
        h = mpi_hash(op->combine, strlen(op->combine) + 1, h);
    if (op->identity)
        h = mpi_hash(op->identity, elem_size, h);
    return h;
}

/* The buffer that owns buf's memory and where buf starts in it. */
static void find_root(cl_mem buf, cl_mem *root, size_t *origin)
{
    cl_mem parent = NULL;
    *root = buf;
    *origin = 0;
    if (clGetMemObjectInfo(buf, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == CL_SUCCESS &&
        parent) {
        clGetMemObjectInfo(buf, CL_MEM_OFFSET, sizeof *origin, origin, NULL);
        *root = parent;
    }
}

clprim_status mpi_check_buffer(mpi_call *call, const char *name, cl_mem buf, size_t offset, size_t n,
                               size_t elem_size, int writes)
{
    if (!buf)
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "%s is NULL", name);
    size_t bytes = 0;
    cl_context owner = NULL;
    cl_mem_flags flags = 0;
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    if (err != CL_SUCCESS)
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "%s is not a valid buffer (OpenCL error %d)", name, err);
    if (owner != clprim_cl_context(call->ctx))
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "%s belongs to another OpenCL context", name);
    if (writes && (flags & CL_MEM_READ_ONLY))
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "%s is CL_MEM_READ_ONLY but is written", name);
    size_t capacity = bytes / elem_size;
    if (offset > capacity || n > capacity - offset)
        return mpi_fail(call, CLPRIM_BUFFER_TOO_SMALL,
                        "%s holds %zu elements of %zu bytes; offset %zu + n %zu is past its end", name, capacity,
                        elem_size, offset, n);
    return CLPRIM_SUCCESS;
}

clprim_status mpi_check_disjoint(mpi_call *call, const char *a_name, cl_mem a, size_t a_offset,
                                 const char *b_name, cl_mem b, size_t b_offset, size_t n, size_t elem_size,
                                 int allow_same)
{
    cl_mem a_root, b_root;
    size_t a_origin, b_origin;
    find_root(a, &a_root, &a_origin);
    find_root(b, &b_root, &b_origin);
    size_t a_first = a_origin + a_offset * elem_size, b_first = b_origin + b_offset * elem_size;
    size_t bytes = n * elem_size;
    if (n == 0 || a_root != b_root || a_first + bytes <= b_first || b_first + bytes <= a_first)
        return CLPRIM_SUCCESS;
    if (allow_same && a_first == b_first)
        return CLPRIM_SUCCESS;
    return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "%s bytes [%zu, %zu) and %s bytes [%zu, %zu) overlap%s", a_name,
                    a_first, a_first + bytes, b_name, b_first, b_first + bytes,
                    allow_same ? "; in place, both must start at the same byte" : "");
}

clprim_status mpi_buffer(mpi_call *call, size_t bytes, cl_mem *buf)
{
    cl_int err;
    *buf = clCreateBuffer(clprim_cl_context(call->ctx), CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    if (err != CL_SUCCESS)
        return mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "creating a buffer of %zu bytes failed (OpenCL error %d)",
                        bytes, err);
    return CLPRIM_SUCCESS;
}

clprim_status mpi_read(mpi_call *call, cl_mem buf, size_t offset_bytes, size_t bytes, void *host)
{
    double t = mpi_now();
    cl_int err = bytes ? clEnqueueReadBuffer(clprim_queue(call->ctx), buf, CL_TRUE, offset_bytes, bytes, host, 0,
                                             NULL, NULL)
                       : CL_SUCCESS;
    mpi_add_device(call, t);
    if (err != CL_SUCCESS)
        return mpi_fail(call, CLPRIM_OPENCL_ERROR, "reading %zu bytes from the device failed (OpenCL error %d)",
                        bytes, err);
    return CLPRIM_SUCCESS;
}

clprim_status mpi_write(mpi_call *call, cl_mem buf, size_t offset_bytes, size_t bytes, const void *host)
{
    double t = mpi_now();
    cl_int err = bytes ? clEnqueueWriteBuffer(clprim_queue(call->ctx), buf, CL_TRUE, offset_bytes, bytes, host,
                                              0, NULL, NULL)
                       : CL_SUCCESS;
    mpi_add_device(call, t);
    if (err != CL_SUCCESS)
        return mpi_fail(call, CLPRIM_OPENCL_ERROR, "writing %zu bytes to the device failed (OpenCL error %d)",
                        bytes, err);
    return CLPRIM_SUCCESS;
}

clprim_status mpi_finish(mpi_call *call)
{
    double t = mpi_now();
    cl_int err = clFinish(clprim_queue(call->ctx));
    mpi_add_device(call, t);
    if (err != CL_SUCCESS)
        return mpi_fail(call, CLPRIM_OPENCL_ERROR, "waiting for the device failed (OpenCL error %d)", err);
    return CLPRIM_SUCCESS;
}
