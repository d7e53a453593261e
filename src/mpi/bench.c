/* Weak scaling of libclprim_mpi: every rank holds n elements, and each call
 * is timed as the slowest rank sees it, split into device work and MPI, beside
 * a clEnqueueCopyBuffer of one rank's bytes on its device, the single-device
 * calls on one rank's slice, and the host link's speeds. Run it under
 * mpirun:
 *   mpirun -np 4 clprim_mpi_bench [--n N] [--repeat R] [--device SPEC]
 * Rank 0 prints one Markdown row a call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim_mpi.h"

typedef struct {
    clprim_context *ctx;
    cl_mem src, dst, values, counts;
    size_t n;
} bench;

/* The calls, by row; rows from LOCAL_ROWS on are the single-device calls the
 * MPI ones wrap, on each rank's slice alone, for comparison. */
static const char *const names[] = {"scan (exclusive, uint32 sum)", "reduce (uint32 sum)", "histogram (256 bins)",
                                    "compaction (half kept)", "sort keys (uint32)", "sort pairs (uint32, positions)",
                                    "local clprim_scan (exclusive, uint32 sum)", "local clprim_sort_keys (uint32)",
                                    "local clprim_sort_pairs (uint32, positions)"};
#define ROWS ((int)(sizeof names / sizeof names[0]))
#define LOCAL_ROWS 6

static clprim_status run_local(bench *b, int call)
{
    clprim_status s = CLPRIM_SUCCESS;
    switch (call) {
    case 6: s = clprim_scan(b->ctx, CLPRIM_UINT32, CLPRIM_SUM, 1, b->src, 0, b->dst, 0, b->n, 0, NULL, NULL);
        break;
    case 7: s = clprim_sort_keys(b->ctx, CLPRIM_UINT32, NULL, b->src, 0, b->dst, 0, b->n, 0, NULL, NULL);
        break;
    case 8: s = clprim_sort_pairs(b->ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, b->src, 0, b->dst, 0, NULL, 0,
                                  b->values, 0, b->n, 0, NULL, NULL);
        break;
    }
    if (s == CLPRIM_SUCCESS && clFinish(clprim_queue(b->ctx)) != CL_SUCCESS)
        s = CLPRIM_OPENCL_ERROR;
    return s;
}

static clprim_status run(bench *b, int call)
{
    const cl_uint half = 1u << 31;
    const clprim_predicate keep = {CLPRIM_KEEP_GE, &half, NULL, 0, NULL};
    clprim_mpi_kept kept;
    cl_mem keys = NULL, values = NULL;
    size_t n_out;
    clprim_status s = CLPRIM_SUCCESS;
    cl_uint total;
    switch (call) {
    case 0: s = clprim_mpi_scan(b->ctx, MPI_COMM_WORLD, CLPRIM_UINT32, CLPRIM_SUM, NULL, 1, b->src, 0, b->dst, 0,
                                b->n, 0, NULL);
        break;
    case 1: s = clprim_mpi_reduce(b->ctx, MPI_COMM_WORLD, CLPRIM_UINT32, CLPRIM_SUM, NULL, b->src, 0, b->n, &total,
                                  0, NULL);
        break;
    case 2: s = clprim_mpi_histogram(b->ctx, MPI_COMM_WORLD, CLPRIM_UINT32, b->src, 0, b->n, 0, 4294967296.0, 256,
                                     CLPRIM_MPI_ALL_RANKS, b->counts, 0, 0, NULL);
        break;
    case 3: s = clprim_mpi_compact(b->ctx, MPI_COMM_WORLD, CLPRIM_UINT32, &keep, b->src, 0, b->dst, 0, b->n, &kept,
                                   0, NULL);
        break;
    case 4: s = clprim_mpi_sort_keys(b->ctx, MPI_COMM_WORLD, CLPRIM_UINT32, NULL, b->src, 0, b->n, &keys, &n_out,
                                     0, NULL);
        break;
    case 5: s = clprim_mpi_sort_pairs(b->ctx, MPI_COMM_WORLD, CLPRIM_UINT32, CLPRIM_UINT32, NULL, b->src, 0, NULL, 0,
                                      b->n, &keys, &values, &n_out, 0, NULL);
        break;
    }
    if (keys)
        clReleaseMemObject(keys);
    if (values)
        clReleaseMemObject(values);
    return s;
}

/* The host link as the sort's exchange uses it, slowest rank's view: a
 * rank's bytes read from its device into pinned host memory, and sent to and
 * received from a partner rank (ranks in pairs) over MPI. Bytes per second. */
static void link_speeds(bench *b, int rank, int size, double *to_host, double *mpi)
{
    const size_t bytes = b->n * 4;
    unsigned char *host = NULL, *other = malloc(bytes ? bytes : 1);
    double read = 1e30, exchange = 1e30;
    if (clprim_pinned_host(b->ctx, bytes, (void **)&host) == CLPRIM_SUCCESS && other) {
        for (int r = 0; r < 3; r++) {
            double t = MPI_Wtime();
            clEnqueueReadBuffer(clprim_queue(b->ctx), b->src, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
            t = MPI_Wtime() - t;
            read = t < read ? t : read;
            const int partner = rank ^ 1;
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            if (partner < size)
                MPI_Sendrecv(host, (int)bytes, MPI_BYTE, partner, 0, other, (int)bytes, MPI_BYTE, partner, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t = MPI_Wtime() - t;
            exchange = t < exchange ? t : exchange;
        }
    }
    free(other);
    double worst[2], mine[2] = {read, exchange};
    MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *to_host = (double)bytes / worst[0];
    *mpi = (double)bytes / worst[1];
}

/* Seconds of the fastest of `repeat` copies of the rank's bytes. */
static double copy_seconds(bench *b, int repeat)
{
    double best = 1e30;
    for (int r = 0; r < repeat; r++) {
        cl_event e;
        cl_ulong start, end;
        clEnqueueCopyBuffer(clprim_queue(b->ctx), b->src, b->dst, 0, 0, b->n * 4, 0, NULL, &e);
        clWaitForEvents(1, &e);
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        clReleaseEvent(e);
        if ((double)(end - start) * 1e-9 < best)
            best = (double)(end - start) * 1e-9;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t n = (size_t)1 << 24;
    int repeat = 5;
    const char *device = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--device"))
            device = argv[i + 1];
    }
    bench b = {.n = n};
    if (clprim_mpi_create(&b.ctx, MPI_COMM_WORLD, device) != CLPRIM_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "clprim_mpi_bench: %s\n", clprim_mpi_last_error());
        MPI_Finalize();
        return 1;
    }
    cl_int err;
    cl_context cl = clprim_cl_context(b.ctx);
    b.src = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    b.dst = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    b.values = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    b.counts = clCreateBuffer(cl, CL_MEM_READ_WRITE, 256 * 4, NULL, &err);
    cl_uint *data = malloc(n * 4);
    unsigned long long x = 0x9E3779B97F4A7C15ull * (unsigned long long)(rank + 1);
    for (size_t i = 0; i < n; i++) { /* splitmix64 */
        unsigned long long z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        data[i] = (cl_uint)((z ^ (z >> 31)) >> 32);
    }
    clEnqueueWriteBuffer(clprim_queue(b.ctx), b.src, CL_TRUE, 0, n * 4, data, 0, NULL, NULL);
    free(data);

    double copy = copy_seconds(&b, repeat), slowest_copy;
    MPI_Reduce(&copy, &slowest_copy, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    char device_name[256] = "";
    clGetDeviceInfo(clprim_device(b.ctx), CL_DEVICE_NAME, sizeof device_name, device_name, NULL);
    if (rank == 0) {
        printf("ranks %d, %zu elements a rank, device %s, copy of a rank's bytes %.4f ms\n", size, n, device_name,
               slowest_copy * 1e3);
        printf("| call | ranks | n a rank | total ms | device ms | MPI ms | total / copy |\n|---|---|---|---|---|---|---|\n");
    }
    int failed = 0;
    for (int call = 0; call < ROWS && !failed; call++) {
        double best[3] = {1e30, 0, 0};
        for (int r = 0; r <= repeat; r++) { /* the first run builds the kernels */
            double start = MPI_Wtime();
            clprim_status s = call < LOCAL_ROWS ? run(&b, call) : run_local(&b, call);
            if (s != CLPRIM_SUCCESS) {
                if (rank == 0)
                    fprintf(stderr, "clprim_mpi_bench: %s\n",
                            call < LOCAL_ROWS ? clprim_mpi_last_error() : clprim_last_error(b.ctx));
                failed = 1;
                break;
            }
            clprim_mpi_times t = clprim_mpi_last_times();
            if (call >= LOCAL_ROWS) /* all of it on the device */
                t = (clprim_mpi_times){.device = MPI_Wtime() - start, .total = MPI_Wtime() - start};
            double mine[3] = {t.total, t.device, t.mpi}, worst[3];
            MPI_Allreduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r > 0 && worst[0] < best[0])
                memcpy(best, worst, sizeof best);
        }
        if (rank == 0 && !failed)
            printf("| %s | %d | %zu | %.3f | %.3f | %.3f | %.2f |\n", names[call], size, n, best[0] * 1e3,
                   best[1] * 1e3, best[2] * 1e3, best[0] / slowest_copy);
    }
    double to_host, mpi;
    link_speeds(&b, rank, size, &to_host, &mpi);
    if (rank == 0 && size > 1)
        printf("host link, a rank's bytes: device to pinned host %.1f GB/s; MPI, ranks in pairs, each way %.1f "
               "GB/s\n",
               to_host * 1e-9, mpi * 1e-9);
    else if (rank == 0)
        printf("host link, a rank's bytes: device to pinned host %.1f GB/s\n", to_host * 1e-9);
    clReleaseMemObject(b.src);
    clReleaseMemObject(b.dst);
    clReleaseMemObject(b.values);
    clReleaseMemObject(b.counts);
    clprim_release(b.ctx);
    MPI_Finalize();
    return failed;
}
