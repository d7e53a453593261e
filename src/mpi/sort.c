/* Sample sort across ranks:
 *   1. each rank sorts its slice on its device (clprim_sort_keys/_pairs) and
 *      reads it back;
 *   2. each rank draws samples of its sorted keys at even spacing, each
 *      standing for slice length / samples elements; every rank gathers and
 *      sorts all of them and takes the size - 1 splitters at even steps of
 *      weight, so ranks get about equal shares even when slices differ;
 *   3. each rank cuts its sorted slice at the splitters and sends piece d to
 *      rank d (MPI_Alltoallv), keys and values in turn, so the device copy of
 *      one overlaps the exchange of the other;
 *   4. each rank sorts what it received, pieces in source rank order, with the
 *      stable device sort, which leaves equal keys in global input order.
 * Elements are compared as (key, rank, position in the sorted slice): distinct
 * even when keys are equal, and for equal keys that is their input order, so
 * runs of equal keys are split between ranks like any others and the sort
 * stays stable. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* Samples a rank draws from its slice (fewer when the slice is shorter). */
#define SAMPLES 256

typedef struct {
    uint64_t key, rank, position;
} element;

typedef struct {
    clprim_type key_type;
    unsigned begin, end; /* bits of the ordered form compared */
    int descending;
} key_order;

/* The key as clprim_sort_keys compares it (its ordered form, bits [begin,
 * end), reversed for descending), as an unsigned integer. */
static uint64_t ordered(const key_order *o, const unsigned char *key)
{
    uint64_t bits, sign;
    if (mpi_type_size(o->key_type) == 4) {
        uint32_t u;
        memcpy(&u, key, 4);
        bits = u;
        sign = 1ull << 31;
    } else {
        memcpy(&bits, key, 8);
        sign = 1ull << 63;
    }
    if (o->key_type == CLPRIM_INT32 || o->key_type == CLPRIM_INT64)
        bits ^= sign;
    else if (o->key_type == CLPRIM_FLOAT || o->key_type == CLPRIM_DOUBLE)
        bits = bits & sign ? ~bits & (sign | (sign - 1)) : bits | sign;
    const unsigned width = o->end - o->begin;
    const uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
    bits = (bits >> o->begin) & mask;
    return o->descending ? ~bits & mask : bits;
}

static int less(const element *a, const element *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    if (a->rank != b->rank)
        return a->rank < b->rank;
    return a->position < b->position;
}

static int compare_elements(const void *a, const void *b)
{
    return less(a, b) ? -1 : less(b, a) ? 1 : 0;
}

/* How many of the rank's n sorted keys come before `splitter`. */
static size_t lower_bound(const key_order *o, const unsigned char *keys, size_t n, int rank, const element *splitter)
{
    const size_t size = mpi_type_size(o->key_type);
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        element e = {ordered(o, keys + mid * size), (uint64_t)rank, mid};
        if (less(&e, splitter))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t samples_of(uint64_t n)
{
    return n < SAMPLES ? (size_t)n : SAMPLES;
}

/* Step 2: where this rank's sorted slice is cut, cut[0 .. size]. */
static clprim_status find_cuts(mpi_call *call, const key_order *o, const unsigned char *keys, size_t n,
                               size_t *cut)
{
    const size_t key_size = mpi_type_size(o->key_type);
    int *counts = malloc((size_t)call->size * sizeof *counts), *displs = malloc((size_t)call->size * sizeof *displs);
    size_t everyone = 0;
    for (int r = 0; r < call->size; r++)
        everyone += samples_of(call->slices[r]);
    element *all = malloc((everyone ? everyone : 1) * sizeof *all), mine[SAMPLES];
    clprim_status s = counts && displs && all
                          ? CLPRIM_SUCCESS
                          : mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for %zu samples", everyone);
    s = mpi_settle(call, s);
    if (s != CLPRIM_SUCCESS) {
        free(counts);
        free(displs);
        free(all);
        return s;
    }
    const size_t taken = samples_of(n);
    for (size_t j = 0; j < taken; j++) {
        size_t at = (size_t)(((double)j + 0.5) * (double)n / (double)taken);
        mine[j] = (element){ordered(o, keys + at * key_size), (uint64_t)call->rank, at};
    }
    int displ = 0;
    for (int r = 0; r < call->size; r++) {
        counts[r] = (int)(samples_of(call->slices[r]) * sizeof(element));
        displs[r] = displ;
        displ += counts[r];
    }
    double since = mpi_now();
    MPI_Allgatherv(mine, (int)(taken * sizeof(element)), MPI_BYTE, all, counts, displs, MPI_BYTE, call->comm);
    mpi_add_mpi(call, since);
    qsort(all, everyone, sizeof *all, compare_elements);

    /* Splitter d is the first sample with at least d / size of the weight
     * before it; elements from it on go to rank d or above. */
    cut[0] = 0;
    double weight = 0;
    size_t j = 0;
    for (int d = 1; d < call->size; d++) {
        const double target = (double)call->total * d / call->size;
        while (j < everyone && weight < target) {
            const uint64_t slice = call->slices[all[j].rank];
            weight += (double)slice / (double)samples_of(slice);
            j++;
        }
        cut[d] = j < everyone ? lower_bound(o, keys, n, call->rank, &all[j]) : n;
        if (cut[d] < cut[d - 1])
            cut[d] = cut[d - 1];
    }
    cut[call->size] = n;
    free(counts);
    free(displs);
    free(all);
    return CLPRIM_SUCCESS;
}

/* Step 3 for one array of elements of `size` bytes. */
static void exchange(mpi_call *call, const void *out, const int *send, const int *send_at, void *in,
                     const int *recv, const int *recv_at, size_t size)
{
    MPI_Datatype element_type;
    MPI_Type_contiguous((int)size, MPI_BYTE, &element_type);
    MPI_Type_commit(&element_type);
    double since = mpi_now();
    MPI_Alltoallv(out, send, send_at, element_type, in, recv, recv_at, element_type, call->comm);
    mpi_add_mpi(call, since);
    MPI_Type_free(&element_type);
}

typedef struct {
    clprim_type key_type, value_type;
    int pairs, indices; /* values moved; values are the global positions */
    const clprim_sort_order *order;
    cl_mem keys_in, values_in;
    size_t keys_in_offset, values_in_offset, n;
} sort_args;

/* Step 1's device sort, and step 4's in place. */
static clprim_status device_sort(mpi_call *call, const sort_args *a, cl_mem keys_in, size_t keys_offset,
                                 cl_mem values_in, size_t values_offset, cl_mem keys, cl_mem values, size_t n,
                                 cl_uint num_events, const cl_event *wait_list)
{
    clprim_status s = a->pairs ? clprim_sort_pairs(call->ctx, a->key_type, a->value_type, a->order, keys_in,
                                                   keys_offset, keys, 0, values_in, values_offset, values, 0, n,
                                                   num_events, wait_list, NULL)
                               : clprim_sort_keys(call->ctx, a->key_type, a->order, keys_in, keys_offset, keys, 0,
                                                  n, num_events, wait_list, NULL);
    return s == CLPRIM_SUCCESS ? s : mpi_fail_core(call, s);
}

static clprim_status check_types(mpi_call *call, const sort_args *a, key_order *o)
{
    const clprim_type keys[] = {CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_FLOAT, CLPRIM_INT64, CLPRIM_UINT64,
                                CLPRIM_DOUBLE};
    int known = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        known |= a->key_type == keys[k];
    if (!known)
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "key_type %d is not a key type of clprim_sort_keys",
                        (int)a->key_type);
    const size_t value_size = mpi_type_size(a->value_type);
    if (a->pairs && value_size != 4 && value_size != 8)
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "value_type %d is not a type of 4 or 8 bytes",
                        (int)a->value_type);
    if (a->indices && a->value_type != CLPRIM_UINT32 && a->value_type != CLPRIM_UINT64)
        return mpi_fail(call, CLPRIM_INVALID_ARGUMENT,
                        "values_in is NULL, so the values are positions: value_type must be CLPRIM_UINT32 or "
                        "CLPRIM_UINT64, not %s",
                        mpi_type_name(a->value_type));
    const unsigned width = 8 * (unsigned)mpi_type_size(a->key_type);
    *o = (key_order){a->key_type, a->order ? a->order->begin_bit : 0,
                     a->order && a->order->end_bit ? a->order->end_bit : width, a->order && a->order->descending};
    /* The device sort checks the range with its own message; this guards the
     * host's use of it. */
    if (o->begin >= o->end || o->end > width)
        *o = (key_order){a->key_type, 0, width, o->descending};
    return CLPRIM_SUCCESS;
}

static clprim_status sort_call(mpi_call *call, const sort_args *a, cl_mem *keys_out, cl_mem *values_out,
                               size_t *n_out, cl_uint num_events, const cl_event *wait_list)
{
    const size_t key_size = mpi_type_size(a->key_type), value_size = a->pairs ? mpi_type_size(a->value_type) : 0;
    const size_t n = a->n;
    key_order o;
    cl_mem sorted_keys = NULL, sorted_values = NULL, out_keys = NULL, out_values = NULL;
    /* Host copies, pinned: the sorted slice, and what arrives from every rank. */
    mpi_staging sent_keys = {0}, sent_values = {0}, got_keys = {0}, got_values = {0};
    size_t *cut = NULL;
    int *plan = NULL;
    cl_event values_read = NULL;

    /* Check: this rank's arguments; the local sort checks the rest. */
    clprim_status s = CLPRIM_SUCCESS;
    if (!call->ctx)
        s = mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "ctx is NULL");
    else if (!keys_out || !n_out || (a->pairs && !values_out))
        s = mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "%s is NULL",
                     !keys_out ? "keys_out" : !n_out ? "n_out" : "values_out");
    if (s == CLPRIM_SUCCESS)
        s = check_types(call, a, &o);
    if (s == CLPRIM_SUCCESS) {
        cut = malloc(((size_t)call->size + 1) * sizeof *cut);
        plan = malloc(4 * (size_t)call->size * sizeof *plan);
        if (!cut || !plan)
            s = mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for %d ranks' counts", call->size);
    }
    if (s == CLPRIM_SUCCESS)
        s = mpi_stage(call, n * key_size, &sent_keys);
    if (s == CLPRIM_SUCCESS && a->pairs)
        s = mpi_stage(call, n * value_size, &sent_values);
    if (s == CLPRIM_SUCCESS)
        s = mpi_buffer(call, n * key_size, &sorted_keys);
    if (s == CLPRIM_SUCCESS && a->pairs)
        s = mpi_buffer(call, n * value_size, &sorted_values);
    if (s == CLPRIM_SUCCESS)
        s = device_sort(call, a, a->keys_in, a->keys_in_offset, a->values_in, a->values_in_offset, sorted_keys,
                        sorted_values, n, num_events, wait_list);
    const mpi_field fields[] = {
        {"key_type", (uint64_t)a->key_type, FIELD_TYPE},
        {"value_type", a->pairs ? (uint64_t)a->value_type : 0, FIELD_TYPE},
        {"values_in being NULL", (uint64_t)a->indices, FIELD_NUMBER},
        {"order->descending", s == CLPRIM_SUCCESS ? (uint64_t)o.descending : 0, FIELD_NUMBER},
        {"order->begin_bit", s == CLPRIM_SUCCESS ? o.begin : 0, FIELD_NUMBER},
        {"order->end_bit", s == CLPRIM_SUCCESS ? o.end : 0, FIELD_NUMBER},
    };
    s = mpi_agree(call, s, n, fields, (int)(sizeof fields / sizeof fields[0]));
    if (s == CLPRIM_SUCCESS && a->indices && a->value_type == CLPRIM_UINT32 && call->total > (uint64_t)1 << 32)
        s = mpi_fail(call, CLPRIM_INVALID_ARGUMENT,
                     "the ranks hold %llu keys: more positions than CLPRIM_UINT32 values can give",
                     (unsigned long long)call->total);
    if (s != CLPRIM_SUCCESS)
        goto done;

    /* Step 1's read-back: the keys now, the values behind them while the
     * splitters are found. */
    unsigned char *keys = sent_keys.host, *values = sent_values.host;
    s = mpi_read(call, sorted_keys, 0, n * key_size, keys);
    if (s == CLPRIM_SUCCESS && a->pairs && n > 0) {
        cl_int err = clEnqueueReadBuffer(clprim_queue(call->ctx), sorted_values, CL_FALSE, 0, n * value_size,
                                         values, 0, NULL, &values_read);
        if (err != CL_SUCCESS)
            s = mpi_fail(call, CLPRIM_OPENCL_ERROR, "reading the sorted values failed (OpenCL error %d)", err);
    }
    s = mpi_settle(call, s);
    if (s == CLPRIM_SUCCESS)
        s = find_cuts(call, &o, keys, n, cut);
    if (s != CLPRIM_SUCCESS)
        goto done;

    /* Plan: what goes where; MPI counts elements in ints. */
    int *send = plan, *send_at = plan + call->size, *recv = plan + 2 * call->size, *recv_at = plan + 3 * call->size;
    for (int d = 0; d < call->size; d++) {
        send[d] = (int)(cut[d + 1] - cut[d]);
        send_at[d] = (int)cut[d];
    }
    double since = mpi_now();
    MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, call->comm);
    mpi_add_mpi(call, since);
    size_t received = 0;
    for (int r = 0; r < call->size; r++) {
        recv_at[r] = (int)received;
        received += (size_t)recv[r];
    }
    if (n > INT_MAX || received > INT_MAX)
        s = mpi_fail(call, CLPRIM_UNSUPPORTED, "a rank can send or receive at most %d elements a call, not %zu",
                     INT_MAX, n > received ? n : received);
    if (s == CLPRIM_SUCCESS) {
        s = mpi_stage(call, received * key_size, &got_keys);
        if (s == CLPRIM_SUCCESS && a->pairs)
            s = mpi_stage(call, received * value_size, &got_values);
    }
    if (s == CLPRIM_SUCCESS)
        s = mpi_buffer(call, received * key_size, &out_keys);
    if (s == CLPRIM_SUCCESS && a->pairs)
        s = mpi_buffer(call, received * value_size, &out_values);
    s = mpi_settle(call, s);
    if (s != CLPRIM_SUCCESS)
        goto done;

    /* Enqueue: the keys' exchange, then the values' while the received keys
     * go to the device. */
    exchange(call, keys, send, send_at, got_keys.host, recv, recv_at, key_size);
    if (a->pairs) {
        cl_int err = received ? clEnqueueWriteBuffer(clprim_queue(call->ctx), out_keys, CL_FALSE, 0,
                                                     received * key_size, got_keys.host, 0, NULL, NULL)
                              : CL_SUCCESS;
        since = mpi_now();
        if (values_read && err == CL_SUCCESS)
            err = clWaitForEvents(1, &values_read);
        mpi_add_device(call, since);
        if (a->indices) /* local sorting positions to global ones */
            for (size_t i = 0; i < n; i++) {
                if (value_size == 4) {
                    uint32_t v;
                    memcpy(&v, values + 4 * i, 4);
                    v += (uint32_t)call->before;
                    memcpy(values + 4 * i, &v, 4);
                } else {
                    uint64_t v;
                    memcpy(&v, values + 8 * i, 8);
                    v += call->before;
                    memcpy(values + 8 * i, &v, 8);
                }
            }
        exchange(call, values, send, send_at, got_values.host, recv, recv_at, value_size);
        if (err != CL_SUCCESS)
            s = mpi_fail(call, CLPRIM_OPENCL_ERROR, "moving keys and values failed (OpenCL error %d)", err);
        if (s == CLPRIM_SUCCESS)
            s = mpi_write(call, out_values, 0, received * value_size, got_values.host);
    } else {
        s = mpi_write(call, out_keys, 0, received * key_size, got_keys.host);
    }
    if (s == CLPRIM_SUCCESS)
        s = device_sort(call, a, out_keys, 0, out_values, 0, out_keys, out_values, received, 0, NULL);
    if (s == CLPRIM_SUCCESS)
        s = mpi_finish(call);
    s = mpi_settle(call, s);
    if (s == CLPRIM_SUCCESS) {
        *keys_out = out_keys;
        if (a->pairs)
            *values_out = out_values;
        *n_out = received;
        out_keys = out_values = NULL;
    }

done:
    if (values_read) {
        clWaitForEvents(1, &values_read); /* before `values` goes */
        clReleaseEvent(values_read);
    }
    cl_mem made[] = {sorted_keys, sorted_values, out_keys, out_values};
    for (size_t k = 0; k < sizeof made / sizeof made[0]; k++)
        if (made[k])
            clReleaseMemObject(made[k]);
    mpi_staging *staged[] = {&sent_keys, &sent_values, &got_keys, &got_values};
    for (size_t k = 0; k < sizeof staged / sizeof staged[0]; k++)
        mpi_unstage(call, staged[k]);
    free(cut);
    free(plan);
    return s;
}

clprim_status clprim_mpi_sort_keys(clprim_context *ctx, MPI_Comm comm, clprim_type key_type,
                                   const clprim_sort_order *order, cl_mem keys_in, size_t keys_in_offset, size_t n,
                                   cl_mem *keys_out, size_t *n_out, cl_uint num_events_in_wait_list,
                                   const cl_event *event_wait_list)
{
    mpi_call call;
    clprim_status s = mpi_begin(&call, "clprim_mpi_sort_keys", ctx, comm);
    if (call.size == 0)
        return mpi_end(&call, s);
    const sort_args a = {key_type, CLPRIM_UINT32, 0, 0, order, keys_in, NULL, keys_in_offset, 0, n};
    if (s == CLPRIM_SUCCESS)
        s = sort_call(&call, &a, keys_out, NULL, n_out, num_events_in_wait_list, event_wait_list);
    else
        s = mpi_agree(&call, s, n, NULL, 0);
    return mpi_end(&call, s);
}

clprim_status clprim_mpi_sort_pairs(clprim_context *ctx, MPI_Comm comm, clprim_type key_type,
                                    clprim_type value_type, const clprim_sort_order *order, cl_mem keys_in,
                                    size_t keys_in_offset, cl_mem values_in, size_t values_in_offset, size_t n,
                                    cl_mem *keys_out, cl_mem *values_out, size_t *n_out,
                                    cl_uint num_events_in_wait_list, const cl_event *event_wait_list)
{
    mpi_call call;
    clprim_status s = mpi_begin(&call, "clprim_mpi_sort_pairs", ctx, comm);
    if (call.size == 0)
        return mpi_end(&call, s);
    const sort_args a = {key_type, value_type, 1, values_in == NULL, order, keys_in, values_in, keys_in_offset,
                         values_in_offset, n};
    if (s == CLPRIM_SUCCESS)
        s = sort_call(&call, &a, keys_out, values_out, n_out, num_events_in_wait_list, event_wait_list);
    else
        s = mpi_agree(&call, s, n, NULL, 0);
    return mpi_end(&call, s);
}
