/* A histogram of data spread over MPI ranks: each rank holds a part of the
 * samples, rank 0 receives the counts of all of them.
 *
 *   mpirun -np 3 build/examples/mpi_histogram
 *
 * The samples are throws of three dice (3 to 18). Rank r holds its own slice
 * of them, of its own length; the global array is the slices in rank order.
 * clprim_mpi_histogram is collective: every rank makes the call with the same
 * bins, each with its own slice, and the counts land on the root. Rank 0 then
 * counts the whole array again on the CPU (any rank can regenerate any
 * sample) and checks the result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim_mpi.h>

#define BINS 16 /* 3 .. 18 */

/* Sample i of the global array: the sum of three dice, from a hash of i. */
static cl_int sample(uint64_t i)
{
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 29;
    return (cl_int)(3 + z % 6 + (z >> 16) % 6 + (z >> 32) % 6);
}

/* Rank r's slice length: slices differ in length. */
static size_t slice_length(int r)
{
    return 100000 + 25000 * (size_t)r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* One context per rank: $CLPRIM_DEVICE, else a GPU by local rank, else the default device. */
    clprim_context *ctx;
    clprim_status s = clprim_mpi_create(&ctx, MPI_COMM_WORLD, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "rank %d: clprim_mpi_create: %s: %s\n", rank, clprim_status_name(s), clprim_mpi_last_error());
        MPI_Finalize();
        return 1; /* every rank gets the same status */
    }

    /* This rank's slice: global elements [start, start + n). */
    size_t start = 0, n = slice_length(rank), total = 0;
    for (int r = 0; r < size; r++) {
        if (r < rank)
            start += slice_length(r);
        total += slice_length(r);
    }
    cl_int *slice = malloc(n * sizeof *slice);
    if (!slice)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < n; i++)
        slice[i] = sample(start + i);
    cl_int err;
    cl_mem src = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *slice,
                                slice, &err);
    /* Only the root needs a buffer for the counts; the others may pass NULL. */
    cl_mem counts = NULL;
    if (err == CL_SUCCESS && rank == 0)
        counts = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_WRITE_ONLY, BINS * sizeof(cl_uint), NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "rank %d: clCreateBuffer: %d\n", rank, err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* Integer bins: [3, 19) in 16 bins, one per total. */
    s = clprim_mpi_histogram(ctx, MPI_COMM_WORLD, CLPRIM_INT32, src, 0, n, 3, 19, BINS, /* root */ 0, counts, 0, 0,
                             NULL);
    int ok = s == CLPRIM_SUCCESS;
    if (!ok && rank == 0)
        fprintf(stderr, "clprim_mpi_histogram: %s: %s\n", clprim_status_name(s), clprim_mpi_last_error());

    if (ok && rank == 0) {
        cl_uint got[BINS], want[BINS] = {0};
        clEnqueueReadBuffer(clprim_queue(ctx), counts, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        for (size_t i = 0; i < total; i++)
            want[sample(i) - 3]++;
        printf("%zu throws of three dice on %d rank%s\n", total, size, size > 1 ? "s" : "");
        for (int b = 0; b < BINS; b++) {
            printf("%2d %7u ", b + 3, got[b]);
            for (cl_uint bar = 0; bar < got[b] / (cl_uint)(total / 400 + 1); bar++)
                putchar('#');
            printf("%s\n", got[b] == want[b] ? "" : "   <- the CPU counts otherwise");
            ok &= got[b] == want[b];
        }
    }
    /* Every rank exits alike. */
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    if (counts)
        clReleaseMemObject(counts);
    clReleaseMemObject(src);
    free(slice);
    clprim_release(ctx);
    MPI_Finalize();
    return ok ? 0 : 1;
}
