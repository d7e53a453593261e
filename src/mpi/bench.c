/* Weak scaling of libclprim_mpi: every rank holds n elements, and each call
 * is timed as the slowest rank sees it, split into device work and MPI, beside
 * a clEnqueueCopyBuffer of one rank's bytes on its device. Run it under
 * mpirun:
 *   mpirun -np 4 clprim_mpi_bench [--n N] [--repeat R] [--device SPEC]
 * Rank 0 prints one Markdown row a call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim_mpi.h"

typedef struct {
    clprim_context *ctx;
    cl_mem src, dst, counts;
    size_t n;
} bench;

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
    bench b = {NULL, NULL, NULL, NULL, n};
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

    const char *names[] = {"scan (exclusive, uint32 sum)", "reduce (uint32 sum)", "histogram (256 bins)",
                           "compaction (half kept)", "sort keys (uint32)", "sort pairs (uint32, positions)"};
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
    for (int call = 0; call < 6 && !failed; call++) {
        double best[3] = {1e30, 0, 0};
        for (int r = 0; r <= repeat; r++) { /* the first run builds the kernels */
            if (run(&b, call) != CLPRIM_SUCCESS) {
                if (rank == 0)
                    fprintf(stderr, "clprim_mpi_bench: %s\n", clprim_mpi_last_error());
                failed = 1;
                break;
            }
            clprim_mpi_times t = clprim_mpi_last_times();
            double mine[3] = {t.total, t.device, t.mpi}, worst[3];
            MPI_Allreduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r > 0 && worst[0] < best[0])
                memcpy(best, worst, sizeof best);
        }
        if (rank == 0 && !failed)
            printf("| %s | %d | %zu | %.3f | %.3f | %.3f | %.2f |\n", names[call], size, n, best[0] * 1e3,
                   best[1] * 1e3, best[2] * 1e3, best[0] / slowest_copy);
    }
    clReleaseMemObject(b.src);
    clReleaseMemObject(b.dst);
    clReleaseMemObject(b.counts);
    clprim_release(b.ctx);
    MPI_Finalize();
    return failed;
}
