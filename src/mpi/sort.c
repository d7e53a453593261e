/* Sample sort across ranks, the data staying on the devices but for what
 * crosses between ranks:
 *   1. each rank sorts its slice on its device (clprim_sort_keys/_pairs); on
 *      one rank that is the whole call;
 *   2. each rank reads samples of its sorted keys at even spacing (one strided
 *      read), each standing for slice length / samples elements; every rank
 *      gathers and sorts all of them and takes the size - 1 splitters at even
 *      steps of weight, so ranks get about equal shares even when slices
 *      differ;
 *   3. each rank finds where the splitters cut its sorted slice by a binary
 *      search on its device (clprim_search_sorted);
 *   4. the pieces for other ranks cross through the context's pinned host
 *      memory as MPI messages in chunks, so that device-to-host copies,
 *      messages and host-to-device copies overlap; the piece a rank keeps
 *      stays where it is. Keys cross delta packed (clprim_delta_pack): a
 *      sorted piece of 2^25 random 32-bit keys takes about 11 bits a key,
 *      not 32, and the link between ranks, not the devices, is the limit;
 *   5. each rank merges the sorted runs it now holds, in source rank order, on
 *      its device (clprim_merge_in_order, log2(size) passes).
 * Elements are compared as (key, rank, position in the sorted slice): distinct
 * even when keys are equal, and for equal keys that is their input order, so
 * runs of equal keys are split between ranks like any others and the sort
 * stays stable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* Samples a rank draws from its slice (fewer when the slice is shorter). */
#define SAMPLES 256
/* A piece travels in chunks of at most CHUNK_BYTES and at most an EIGHTH of
 * it, so that the device copies on both sides and the transfers of other
 * chunks overlap each one (between two GPUs of one host, 2^26 keys a rank
 * sorted in 55 ms with these, 63 with chunks of 64 MB and a quarter), and at
 * most MAX_CHUNKS of them, so tags stay under the 32767 every MPI allows. */
#define EIGHTH 8
#define CHUNK_BYTES ((size_t)4 << 20)
#define MAX_CHUNKS 8192

typedef struct {
    uint64_t key, rank, position; /* the order */
    uint64_t bits;                /* the key as stored, for the search on the device */
} element;

typedef struct {
    clprim_type key_type;
    unsigned begin, end; /* bits of the ordered form compared */
    int descending;
} key_order;

/* The key as clprim_sort_keys compares it (its ordered form, bits [begin,
 * end), reversed for descending), as an unsigned integer. */
static uint64_t ordered(const key_order *o, uint64_t bits)
{
    const uint64_t sign = mpi_type_size(o->key_type) == 4 ? 1ull << 31 : 1ull << 63;
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

static size_t samples_of(uint64_t n)
{
    return n < SAMPLES ? (size_t)n : SAMPLES;
}

typedef struct {
    clprim_type key_type, value_type;
    int pairs, indices; /* values moved; values are the global positions */
    const clprim_sort_order *order;
    cl_mem keys_in, values_in;
    size_t keys_in_offset, values_in_offset, n;
} sort_args;

/* Keys, and values for pairs, of one array of elements on the device. */
typedef struct {
    cl_mem keys, values;
    size_t at, n; /* elements */
} run;

/* Step 2: this rank's samples, every rank's, sorted. *all has *count. A
 * collective: s, this rank's status so far, is settled before the gather. */
static clprim_status gather_samples(mpi_call *call, clprim_status s, const key_order *o, const run *sorted,
                                    element **all, size_t *count)
{
    const size_t key_size = mpi_type_size(o->key_type), taken = samples_of(sorted->n);
    const size_t stride = taken ? sorted->n / taken : 1, first = stride / 2;
    int *counts = malloc((size_t)call->size * sizeof *counts), *displs = malloc((size_t)call->size * sizeof *displs);
    *count = 0;
    for (int r = 0; r < call->size; r++)
        *count += samples_of(call->slices[r]);
    element mine[SAMPLES];
    unsigned char bits[SAMPLES * 8];
    *all = malloc((*count ? *count : 1) * sizeof **all);
    if (s == CLPRIM_SUCCESS && !(counts && displs && *all))
        s = mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for %zu samples", *count);
    if (s == CLPRIM_SUCCESS && taken) {
        const size_t origin[3] = {first * key_size, 0, 0}, host_origin[3] = {0, 0, 0}, region[3] = {key_size, taken, 1};
        const double since = mpi_now();
        const cl_int err = clEnqueueReadBufferRect(clprim_queue(call->ctx), sorted->keys, CL_TRUE, origin,
                                                   host_origin, region, stride * key_size, 0, key_size, 0, bits, 0,
                                                   NULL, NULL);
        mpi_add_device(call, since);
        if (err != CL_SUCCESS)
            s = mpi_fail(call, CLPRIM_OPENCL_ERROR, "reading the samples failed (OpenCL error %d)", err);
    }
    s = mpi_settle(call, s);
    if (s == CLPRIM_SUCCESS) {
        for (size_t j = 0; j < taken; j++) {
            uint64_t b = 0;
            memcpy(&b, bits + j * key_size, key_size); /* little-endian hosts and devices */
            mine[j] = (element){ordered(o, b), (uint64_t)call->rank, first + j * stride, b};
        }
        int displ = 0;
        for (int r = 0; r < call->size; r++) {
            counts[r] = (int)(samples_of(call->slices[r]) * sizeof(element));
            displs[r] = displ;
            displ += counts[r];
        }
        const double since = mpi_now();
        MPI_Allgatherv(mine, (int)(taken * sizeof(element)), MPI_BYTE, *all, counts, displs, MPI_BYTE, call->comm);
        mpi_add_mpi(call, since);
        qsort(*all, *count, sizeof **all, compare_elements);
    }
    free(counts);
    free(displs);
    return s;
}

/* Step 3: where the splitters cut this rank's sorted slice, cut[0 .. size].
 * Splitter d is the first sample with at least d / size of the weight before
 * it; the elements from it on go to rank d or above. Of keys equal to a
 * splitter's, a lower rank's all come before it, a higher rank's after. */
static clprim_status find_cuts(mpi_call *call, clprim_status s, const sort_args *a, const key_order *o,
                               const run *sorted, size_t *cut)
{
    element *all = NULL;
    size_t everyone = 0;
    s = gather_samples(call, s, o, sorted, &all, &everyone);
    const size_t key_size = mpi_type_size(a->key_type), splitters = (size_t)call->size - 1;
    const element **splitter = calloc(splitters, sizeof *splitter);
    unsigned char *needles = calloc(splitters, key_size);
    cl_ulong *bounds = malloc(2 * splitters * sizeof *bounds); /* lower bounds, then upper */
    if (s == CLPRIM_SUCCESS && (!splitter || !needles || !bounds))
        s = mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for %zu splitters", splitters);
    if (s == CLPRIM_SUCCESS) {
        double weight = 0;
        size_t j = 0;
        for (size_t d = 1; d <= splitters; d++) {
            const double target = (double)call->total * (double)d / call->size;
            while (j < everyone && weight < target) {
                const uint64_t slice = call->slices[all[j].rank];
                weight += (double)slice / (double)samples_of(slice);
                j++;
            }
            splitter[d - 1] = j < everyone ? &all[j] : NULL;
            if (splitter[d - 1])
                memcpy(needles + (d - 1) * key_size, &splitter[d - 1]->bits, key_size);
        }
    }
    cl_mem found = NULL, sought = NULL;
    if (s == CLPRIM_SUCCESS)
        s = mpi_buffer(call, splitters * key_size, &sought);
    if (s == CLPRIM_SUCCESS)
        s = mpi_buffer(call, 2 * splitters * sizeof(cl_ulong), &found);
    if (s == CLPRIM_SUCCESS)
        s = mpi_write(call, sought, 0, splitters * key_size, needles);
    for (int upper = 0; upper < 2 && s == CLPRIM_SUCCESS; upper++) {
        const clprim_status searched =
            clprim_search_sorted(call->ctx, a->key_type, a->order, upper, sorted->keys, sorted->at, sorted->n,
                                 sought, 0, splitters, found, (size_t)upper * splitters, 0, NULL, NULL);
        if (searched != CLPRIM_SUCCESS)
            s = mpi_fail_core(call, searched);
    }
    if (s == CLPRIM_SUCCESS)
        s = mpi_read(call, found, 0, 2 * splitters * sizeof(cl_ulong), bounds);
    if (s == CLPRIM_SUCCESS) {
        cut[0] = 0;
        for (size_t d = 1; d <= splitters; d++) {
            const element *e = splitter[d - 1];
            const uint64_t me = (uint64_t)call->rank;
            cut[d] = !e              ? sorted->n
                     : e->rank == me ? (size_t)e->position
                     : e->rank > me  ? (size_t)bounds[splitters + d - 1]
                                     : (size_t)bounds[d - 1];
            if (cut[d] < cut[d - 1])
                cut[d] = cut[d - 1];
        }
        cut[call->size] = sorted->n;
    }
    if (found)
        clReleaseMemObject(found);
    if (sought)
        clReleaseMemObject(sought);
    free(all);
    free(splitter);
    free(needles);
    free(bounds);
    return s;
}

/* One chunk of a piece between this rank and `peer`. */
typedef struct {
    int peer, tag;
    cl_mem buffer; /* on this device */
    size_t offset, bytes;
    unsigned char *host; /* in the pinned staging memory */
    cl_event copied;     /* sends: the device-to-host copy */
} chunk;

/* Appends the chunks of `count` elements of `size` bytes, at `at` elements of
 * buffer and at *host on the host. Both ends cut a piece alike. */
static void cut_chunks(chunk *list, size_t *listed, int peer, int array, cl_mem buffer, size_t at, size_t count,
                       size_t size, unsigned char **host)
{
    size_t per = (count + EIGHTH - 1) / EIGHTH;
    if (per > CHUNK_BYTES / size)
        per = CHUNK_BYTES / size;
    if (per < (count + MAX_CHUNKS - 1) / MAX_CHUNKS)
        per = (count + MAX_CHUNKS - 1) / MAX_CHUNKS;
    for (size_t first = 0, k = 0; first < count; first += per, k++) {
        const size_t elements = count - first < per ? count - first : per;
        list[(*listed)++] = (chunk){peer, array * MAX_CHUNKS + (int)k, buffer, (at + first) * size, elements * size,
                                    *host, NULL};
        *host += elements * size;
    }
}

/* One array the exchange moves, in units of `size` bytes: for each rank r,
 * out_count[r] units go out from out[r] at out_at[r], and in_count[r] come
 * in to in[r] at in_at[r] (this rank's own entries are not used). */
typedef struct {
    size_t size;
    const cl_mem *out, *in;
    const size_t *out_at, *out_count, *in_at, *in_count;
} stream;

static int copy_done(cl_event e)
{
    cl_int status = CL_COMPLETE;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    return status <= CL_COMPLETE; /* complete, or failed */
}

/* The exchange's chunks: sends read from the sorted slice into the out area
 * of the pinned host memory, receives written from its in area into `got`.
 * Both areas hold, for each other rank in rank order, its keys then its
 * values. */
typedef struct {
    chunk *sends, *recvs;
    size_t n_sends, n_recvs;
    unsigned char *host; /* the out area, then the in area */
    size_t out_bytes;
    MPI_Request *requests; /* the receives', then the sends' */
    int *done;             /* receives found complete */
} exchange_plan;

/* Each chunk is sent once its copy to the host is done, and copied to the
 * device once it has arrived. */
static cl_int send_and_receive(mpi_call *call, const exchange_plan *x)
{
    cl_command_queue queue = clprim_queue(call->ctx);
    MPI_Request *requests = x->requests, *send_requests = requests + x->n_recvs;
    int *done = x->done;
    for (size_t i = 0; i < x->n_recvs; i++)
        MPI_Irecv(x->recvs[i].host, (int)x->recvs[i].bytes, MPI_BYTE, x->recvs[i].peer, x->recvs[i].tag, call->comm,
                  &requests[i]);
    cl_int err = CL_SUCCESS;
    size_t sent = 0, arrived = 0;
    while (sent < x->n_sends || arrived < x->n_recvs) {
        while (sent < x->n_sends && (!x->sends[sent].copied || copy_done(x->sends[sent].copied))) {
            MPI_Isend(x->sends[sent].host, (int)x->sends[sent].bytes, MPI_BYTE, x->sends[sent].peer,
                      x->sends[sent].tag, call->comm, &send_requests[sent]);
            sent++;
        }
        int ready = 0;
        if (arrived < x->n_recvs)
            MPI_Testsome((int)x->n_recvs, requests, &ready, done, MPI_STATUSES_IGNORE);
        else
            MPI_Testall((int)sent, send_requests, &ready, MPI_STATUSES_IGNORE); /* progress only */
        for (int i = 0; arrived < x->n_recvs && i < ready && ready != MPI_UNDEFINED; i++, arrived++) {
            const chunk *c = &x->recvs[done[i]];
            const cl_int e =
                clEnqueueWriteBuffer(queue, c->buffer, CL_FALSE, c->offset, c->bytes, c->host, 0, NULL, NULL);
            err = e != CL_SUCCESS ? e : err;
            clFlush(queue);
        }
    }
    MPI_Waitall((int)x->n_sends, send_requests, MPI_STATUSES_IGNORE);
    return err;
}

static void free_plan(exchange_plan *x)
{
    free(x->sends);
    free(x->recvs);
    free(x->requests);
    free(x->done);
}

/* Step 4's transfers: the streams' pieces between this rank and every
 * other. Whatever fails on this rank, it takes part to the end, so no rank
 * waits forever; a failure is returned for mpi_settle. */
static clprim_status exchange(mpi_call *call, const stream *streams, int arrays)
{
    size_t in_bytes = 0, most_out = 0, most_in = 0;
    exchange_plan x = {0};
    for (int r = 0; r < call->size; r++)
        for (int k = 0; k < arrays && r != call->rank; k++) {
            const size_t out = streams[k].out_count[r], in = streams[k].in_count[r];
            x.out_bytes += out * streams[k].size;
            in_bytes += in * streams[k].size;
            most_out += out < MAX_CHUNKS ? out : MAX_CHUNKS; /* never more chunks than elements */
            most_in += in < MAX_CHUNKS ? in : MAX_CHUNKS;
        }
    x.sends = calloc(most_out + 1, sizeof *x.sends);
    x.recvs = calloc(most_in + 1, sizeof *x.recvs);
    x.requests = malloc((most_out + most_in + 1) * sizeof *x.requests);
    x.done = malloc((most_in + 1) * sizeof *x.done);
    clprim_status s = x.sends && x.recvs && x.requests && x.done
                          ? CLPRIM_SUCCESS
                          : mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for the exchange's chunks");
    const clprim_status pinned = clprim_pinned_host(call->ctx, x.out_bytes + in_bytes, (void **)&x.host);
    if (s == CLPRIM_SUCCESS && pinned != CLPRIM_SUCCESS)
        s = mpi_fail_core(call, pinned);
    s = mpi_settle(call, s);
    if (s != CLPRIM_SUCCESS) {
        free_plan(&x);
        return s;
    }

    /* The chunks, and every outgoing one's copy to the host, in order. */
    unsigned char *at = x.host;
    for (int r = 0; r < call->size; r++)
        for (int k = 0; k < arrays && r != call->rank; k++)
            cut_chunks(x.sends, &x.n_sends, r, k, streams[k].out[r], streams[k].out_at[r], streams[k].out_count[r],
                       streams[k].size, &at);
    for (int r = 0; r < call->size; r++)
        for (int k = 0; k < arrays && r != call->rank; k++)
            cut_chunks(x.recvs, &x.n_recvs, r, k, streams[k].in[r], streams[k].in_at[r], streams[k].in_count[r],
                       streams[k].size, &at);
    const double since = mpi_now();
    cl_command_queue queue = clprim_queue(call->ctx);
    cl_int err = CL_SUCCESS;
    for (size_t i = 0; i < x.n_sends; i++) {
        const cl_int e = clEnqueueReadBuffer(queue, x.sends[i].buffer, CL_FALSE, x.sends[i].offset, x.sends[i].bytes,
                                             x.sends[i].host, 0, NULL, &x.sends[i].copied);
        if (e != CL_SUCCESS)
            err = e, x.sends[i].copied = NULL;
    }
    clFlush(queue);
    const cl_int moved = send_and_receive(call, &x);
    err = moved != CL_SUCCESS ? moved : err;
    mpi_add_mpi(call, since);
    for (size_t i = 0; i < x.n_sends; i++)
        if (x.sends[i].copied) {
            cl_int status = CL_COMPLETE;
            clGetEventInfo(x.sends[i].copied, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
            err = status < 0 ? status : err;
            clReleaseEvent(x.sends[i].copied);
        }
    if (err != CL_SUCCESS)
        s = mpi_fail(call, CLPRIM_OPENCL_ERROR,
                     "copying the exchange between host and device failed (OpenCL error %d)", err);
    free_plan(&x);
    return s;
}

/* Step 4: this rank's pieces for the others (piece r: to[r] elements from
 * cut[r] of the sorted slice) and theirs for it (from[r] elements each, into
 * got at got_at[r]). Keys cross as 32-bit words, delta packed where the
 * sender's device is not a CPU (or $CLPRIM_MPI_PACK says so: 0 never, any
 * other value always): each piece packed on the device, the words each
 * piece takes exchanged with whether it is packed, the words moved, then
 * unpacked into got. On a CPU device the keys are already in host memory,
 * and packing them cost more than it saved (2 ranks on 2 cores: 2^22 keys a
 * rank sorted in 57-59 ms packed, 47-50 not). Values cross as they are.
 * Every rank reaches every collective, whatever fails on it. */
static clprim_status move_pieces(mpi_call *call, const sort_args *a, const run *sorted, const size_t *cut,
                                 const size_t *to, const size_t *from, const size_t *got_at, const run *got)
{
    /* Per rank: where keys go out and come in (words) and how many, where values go out. */
    enum { KEYS_OUT_AT, KEYS_OUT, KEYS_IN_AT, KEYS_IN, VALUES_OUT_AT, LISTS };
    /* Per rank: the buffers keys and values go out from and come in to. */
    enum { KEYS_FROM, KEYS_TO, VALUES_FROM, VALUES_TO, BUFFER_LISTS };
    typedef struct {
        size_t words, packed;
    } piece_words;
    const size_t ranks = (size_t)call->size, me = (size_t)call->rank, key_words = mpi_type_size(a->key_type) / 4;
    size_t *list = calloc(LISTS * ranks, sizeof *list);
    piece_words *told = calloc(2 * ranks, sizeof *told), *heard = told ? told + ranks : NULL;
    cl_ulong *written = calloc(ranks, sizeof *written);
    cl_mem *buffer = calloc(BUFFER_LISTS * ranks, sizeof *buffer), packed_out = NULL, packed_in = NULL,
           sizes = NULL;
    clprim_status s = list && told && written && buffer
                          ? CLPRIM_SUCCESS
                          : mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for %zu ranks' pieces", ranks);
    cl_device_type type = CL_DEVICE_TYPE_CPU;
    if (s == CLPRIM_SUCCESS)
        clGetDeviceInfo(clprim_device(call->ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    const char *setting = getenv("CLPRIM_MPI_PACK");
    const int pack = setting && *setting ? strcmp(setting, "0") != 0 : !(type & CL_DEVICE_TYPE_CPU);
    size_t room = 0, arriving = 0;
    for (size_t r = 0; s == CLPRIM_SUCCESS && r < ranks; r++) {
        list[KEYS_OUT_AT * ranks + r] = pack ? room : (sorted->at + cut[r]) * key_words;
        room += r == me || !pack ? 0 : clprim_delta_packed_room(a->key_type, to[r]);
        list[VALUES_OUT_AT * ranks + r] = sorted->at + cut[r];
    }
    if (s == CLPRIM_SUCCESS && pack)
        s = mpi_buffer(call, room * sizeof(cl_uint), &packed_out);
    if (s == CLPRIM_SUCCESS && pack)
        s = mpi_buffer(call, ranks * sizeof(cl_ulong), &sizes);
    for (size_t r = 0; s == CLPRIM_SUCCESS && pack && r < ranks; r++)
        if (r != me) {
            const clprim_status packed =
                clprim_delta_pack(call->ctx, a->key_type, sorted->keys, sorted->at + cut[r], to[r], packed_out,
                                  list[KEYS_OUT_AT * ranks + r], sizes, r, 0, NULL, NULL);
            s = packed == CLPRIM_SUCCESS ? s : mpi_fail_core(call, packed);
        }
    if (s == CLPRIM_SUCCESS && pack)
        s = mpi_read(call, sizes, 0, ranks * sizeof(cl_ulong), written);
    for (size_t r = 0; s == CLPRIM_SUCCESS && r < ranks; r++) {
        told[r] = (piece_words){r == me ? 0 : pack ? (size_t)written[r] : to[r] * key_words, (size_t)pack};
        list[KEYS_OUT * ranks + r] = told[r].words;
        buffer[KEYS_FROM * ranks + r] = pack ? packed_out : sorted->keys;
        buffer[VALUES_FROM * ranks + r] = sorted->values;
        buffer[VALUES_TO * ranks + r] = got->values;
    }
    s = mpi_settle(call, s);
    if (s == CLPRIM_SUCCESS) {
        const double since = mpi_now();
        MPI_Alltoall(told, sizeof *told, MPI_BYTE, heard, sizeof *heard, MPI_BYTE, call->comm);
        mpi_add_mpi(call, since);
        for (size_t r = 0; r < ranks; r++) {
            list[KEYS_IN * ranks + r] = heard[r].words;
            list[KEYS_IN_AT * ranks + r] = heard[r].packed ? arriving : got_at[r] * key_words;
            arriving += r != me && heard[r].packed ? heard[r].words : 0;
        }
        s = mpi_settle(call, arriving ? mpi_buffer(call, arriving * sizeof(cl_uint), &packed_in) : CLPRIM_SUCCESS);
    }
    if (s == CLPRIM_SUCCESS) {
        for (size_t r = 0; r < ranks; r++)
            buffer[KEYS_TO * ranks + r] = heard[r].packed ? packed_in : got->keys;
        const stream streams[2] = {
            {sizeof(cl_uint), buffer + KEYS_FROM * ranks, buffer + KEYS_TO * ranks, list + KEYS_OUT_AT * ranks,
             list + KEYS_OUT * ranks, list + KEYS_IN_AT * ranks, list + KEYS_IN * ranks},
            {a->pairs ? mpi_type_size(a->value_type) : 0, buffer + VALUES_FROM * ranks, buffer + VALUES_TO * ranks,
             list + VALUES_OUT_AT * ranks, to, got_at, from},
        };
        s = mpi_settle(call, exchange(call, streams, a->pairs ? 2 : 1));
    }
    for (size_t r = 0; s == CLPRIM_SUCCESS && r < ranks; r++)
        if (r != me && heard[r].packed && from[r] > 0) {
            const clprim_status unpacked =
                clprim_delta_unpack(call->ctx, a->key_type, packed_in, list[KEYS_IN_AT * ranks + r], heard[r].words,
                                    from[r], got->keys, got_at[r], 0, NULL, NULL);
            s = unpacked == CLPRIM_SUCCESS ? s : mpi_fail_core(call, unpacked);
        }
    cl_mem made[] = {packed_out, packed_in, sizes}; /* released once the work enqueued on them is done */
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        if (made[i])
            clReleaseMemObject(made[i]);
    free(list);
    free(told);
    free(written);
    free(buffer);
    return s;
}

/* src's elements [0, r->n) to dst at `at` elements: a run with no partner. */
static cl_int copy_run(mpi_call *call, const run *r, const run *dst, size_t at, size_t key_size, size_t value_size)
{
    cl_command_queue queue = clprim_queue(call->ctx);
    cl_int err = clEnqueueCopyBuffer(queue, r->keys, dst->keys, r->at * key_size, at * key_size, r->n * key_size, 0,
                                     NULL, NULL);
    if (err == CL_SUCCESS && value_size)
        err = clEnqueueCopyBuffer(queue, r->values, dst->values, r->at * value_size, at * value_size,
                                  r->n * value_size, 0, NULL, NULL);
    return err;
}

/* Step 5: the k non-empty runs, sorted each and in source rank order, merged
 * pairwise pass after pass into out (through spare when k > 2). */
static clprim_status merge_runs(mpi_call *call, const sort_args *a, run *runs, int k, const run *out,
                                const run *spare)
{
    const size_t key_size = mpi_type_size(a->key_type), value_size = a->pairs ? mpi_type_size(a->value_type) : 0;
    int passes = 0;
    for (int width = 1; width < k; width *= 2)
        passes++;
    if (k == 1 && copy_run(call, &runs[0], out, 0, key_size, value_size) != CL_SUCCESS)
        return mpi_fail(call, CLPRIM_OPENCL_ERROR, "copying the sorted run failed");
    for (int pass = 1; pass <= passes; pass++) {
        const run *dst = (passes - pass) % 2 == 0 ? out : spare; /* the last pass lands in out */
        size_t at = 0;
        int merged = 0;
        for (int i = 0; i < k; i += 2) {
            const run *x = &runs[i], *y = i + 1 < k ? &runs[i + 1] : NULL;
            if (y) {
                const clprim_status m = clprim_merge_in_order(
                    call->ctx, a->key_type, a->value_type, a->order, x->keys, x->at, x->values, x->at, x->n, y->keys,
                    y->at, y->values, y->at, y->n, dst->keys, at, a->pairs ? dst->values : NULL, at, 0, NULL, NULL);
                if (m != CLPRIM_SUCCESS)
                    return mpi_fail_core(call, m);
            } else if (copy_run(call, x, dst, at, key_size, value_size) != CL_SUCCESS) {
                return mpi_fail(call, CLPRIM_OPENCL_ERROR, "copying a sorted run failed");
            }
            const size_t n = x->n + (y ? y->n : 0);
            runs[merged++] = (run){dst->keys, dst->values, at, n};
            at += n;
        }
        k = merged;
    }
    return CLPRIM_SUCCESS;
}

/* Step 1's device sort. */
static clprim_status device_sort(mpi_call *call, const sort_args *a, const run *out, cl_uint num_events,
                                 const cl_event *wait_list)
{
    clprim_status s =
        a->pairs ? clprim_sort_pairs(call->ctx, a->key_type, a->value_type, a->order, a->keys_in, a->keys_in_offset,
                                     out->keys, out->at, a->values_in, a->values_in_offset, out->values, out->at,
                                     a->n, num_events, wait_list, NULL)
                 : clprim_sort_keys(call->ctx, a->key_type, a->order, a->keys_in, a->keys_in_offset, out->keys,
                                    out->at, a->n, num_events, wait_list, NULL);
    return s == CLPRIM_SUCCESS ? s : mpi_fail_core(call, s);
}

/* Local sorting positions to global ones: the ranks below hold call->before. */
static clprim_status add_before(mpi_call *call, const sort_args *a, const run *sorted)
{
    if (call->before == 0 || sorted->n == 0)
        return CLPRIM_SUCCESS;
    char expression[48];
    snprintf(expression, sizeof expression, "x + %llu%s", (unsigned long long)call->before,
             a->value_type == CLPRIM_UINT32 ? "u" : "ul");
    const clprim_map shift = {expression, a->value_type, sorted->values, sorted->at, a->value_type, NULL, 0};
    const clprim_status s = clprim_transform(call->ctx, &shift, sorted->n, a->value_type, sorted->values, sorted->at,
                                             0, NULL, NULL);
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

/* Device buffers of keys (and values) for n elements, one when n is 0 (OpenCL
 * has no empty buffers); released by release_run. */
static clprim_status make_run(mpi_call *call, const sort_args *a, size_t n, run *r)
{
    *r = (run){NULL, NULL, 0, n};
    const size_t room = n ? n : 1;
    clprim_status s = mpi_buffer(call, room * mpi_type_size(a->key_type), &r->keys);
    if (s == CLPRIM_SUCCESS && a->pairs)
        s = mpi_buffer(call, room * mpi_type_size(a->value_type), &r->values);
    return s;
}

static void release_run(run *r)
{
    if (r->keys)
        clReleaseMemObject(r->keys);
    if (r->values)
        clReleaseMemObject(r->values);
    r->keys = r->values = NULL;
}

/* Steps 2 to 5 on two ranks or more: the sorted slice in, this rank's share
 * of the global order out (out->n elements). */
static clprim_status share_out(mpi_call *call, const sort_args *a, const key_order *o, const run *sorted, run *out)
{
    const size_t ranks = (size_t)call->size;
    size_t *cut = malloc((ranks + 1) * sizeof *cut), *to = malloc(3 * ranks * sizeof *to);
    run *runs = malloc(ranks * sizeof *runs), got = {0}, spare = {0};
    clprim_status s = cut && to && runs ? CLPRIM_SUCCESS
                                        : mpi_fail(call, CLPRIM_OUT_OF_MEMORY, "no host memory for %zu ranks' counts",
                                                   ranks);

    /* Plan: positions made global, the cuts, what comes from where. Each
     * collective is reached by every rank, with the failures so far settled. */
    if (s == CLPRIM_SUCCESS && a->indices)
        s = add_before(call, a, sorted);
    s = mpi_settle(call, find_cuts(call, s, a, o, sorted, cut));
    size_t received = 0, arriving = 0;
    int k = 0;
    if (s == CLPRIM_SUCCESS) {
        size_t *from = to + ranks, *got_at = to + 2 * ranks;
        for (size_t d = 0; d < ranks; d++)
            to[d] = cut[d + 1] - cut[d];
        const double since = mpi_now();
        MPI_Alltoall(to, sizeof *to, MPI_BYTE, from, sizeof *from, MPI_BYTE, call->comm);
        mpi_add_mpi(call, since);
        /* The runs, in source rank order: this rank's piece where it lies,
         * the others' where they arrive. */
        for (int r = 0; r < call->size; r++) {
            received += from[r];
            got_at[r] = r == call->rank ? 0 : arriving;
            arriving += r == call->rank ? 0 : from[r];
        }
        s = make_run(call, a, arriving, &got);
        if (s == CLPRIM_SUCCESS)
            s = make_run(call, a, received, out);
        for (int r = 0; r < call->size; r++)
            if (from[r] > 0)
                runs[k++] = r == call->rank ? (run){sorted->keys, sorted->values, sorted->at + cut[r], from[r]}
                                            : (run){got.keys, got.values, got_at[r], from[r]};
        if (s == CLPRIM_SUCCESS && k > 2)
            s = make_run(call, a, received, &spare);
        s = mpi_settle(call, s);
        if (s == CLPRIM_SUCCESS)
            s = mpi_settle(call, move_pieces(call, a, sorted, cut, to, from, got_at, &got));
    }

    /* Enqueue: the merge of the runs. */
    if (s == CLPRIM_SUCCESS)
        s = merge_runs(call, a, runs, k, out, &spare);
    out->n = received;
    release_run(&got);
    release_run(&spare);
    free(cut);
    free(to);
    free(runs);
    return s;
}

static clprim_status sort_call(mpi_call *call, const sort_args *a, cl_mem *keys_out, cl_mem *values_out,
                               size_t *n_out, cl_uint num_events, const cl_event *wait_list)
{
    key_order o;
    run sorted = {0}, out = {0};

    /* Check: this rank's arguments; the local sort checks the rest. */
    clprim_status s = CLPRIM_SUCCESS;
    if (!call->ctx)
        s = mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "ctx is NULL");
    else if (!keys_out || !n_out || (a->pairs && !values_out))
        s = mpi_fail(call, CLPRIM_INVALID_ARGUMENT, "%s is NULL",
                     !keys_out ? "keys_out" : !n_out ? "n_out" : "values_out");
    if (s == CLPRIM_SUCCESS)
        s = check_types(call, a, &o);
    if (s == CLPRIM_SUCCESS)
        s = make_run(call, a, a->n, &sorted);
    if (s == CLPRIM_SUCCESS)
        s = device_sort(call, a, &sorted, num_events, wait_list);
    const mpi_field fields[] = {
        {"key_type", (uint64_t)a->key_type, FIELD_TYPE},
        {"value_type", a->pairs ? (uint64_t)a->value_type : 0, FIELD_TYPE},
        {"values_in being NULL", (uint64_t)a->indices, FIELD_NUMBER},
        {"order->descending", s == CLPRIM_SUCCESS ? (uint64_t)o.descending : 0, FIELD_NUMBER},
        {"order->begin_bit", s == CLPRIM_SUCCESS ? o.begin : 0, FIELD_NUMBER},
        {"order->end_bit", s == CLPRIM_SUCCESS ? o.end : 0, FIELD_NUMBER},
    };
    s = mpi_agree(call, s, a->n, fields, (int)(sizeof fields / sizeof fields[0]));
    if (s == CLPRIM_SUCCESS && a->indices && a->value_type == CLPRIM_UINT32 && call->total > (uint64_t)1 << 32)
        s = mpi_fail(call, CLPRIM_INVALID_ARGUMENT,
                     "the ranks hold %llu keys: more positions than CLPRIM_UINT32 values can give",
                     (unsigned long long)call->total);

    /* Agreed: every rank takes part from here. On one rank the sorted slice
     * is the output. */
    if (s == CLPRIM_SUCCESS) {
        if (call->size == 1) {
            out = sorted;
            sorted = (run){0};
        } else {
            s = share_out(call, a, &o, &sorted, &out);
        }
        if (s == CLPRIM_SUCCESS)
            s = mpi_finish(call);
        s = mpi_settle(call, s);
    }
    if (s == CLPRIM_SUCCESS) {
        *keys_out = out.keys;
        if (a->pairs)
            *values_out = out.values;
        *n_out = out.n;
        out = (run){0};
    }
    release_run(&sorted);
    release_run(&out);
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
