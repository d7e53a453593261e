/* An MPI program of another project: the sum of 1..1000 over the ranks through
 * libclprim_mpi, each rank holding a slice of its own length. */
#include <clprim_mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const int first = 1000 * rank / ranks, end = 1000 * (rank + 1) / ranks;
    int values[1000], total = 0;
    for (int i = first; i < end; i++)
        values[i - first] = i + 1;

    clprim_context *ctx = NULL;
    clprim_status s = clprim_mpi_create(&ctx, MPI_COMM_WORLD, "cpu");
    if (s == CLPRIM_SUCCESS) {
        cl_mem slice = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      sizeof values, values, NULL);
        s = clprim_mpi_reduce(ctx, MPI_COMM_WORLD, CLPRIM_INT32, CLPRIM_SUM, NULL, slice, 0, (size_t)(end - first),
                              &total, 0, NULL);
        clReleaseMemObject(slice);
    }
    if (rank == 0)
        printf("mpi_sum: libclprim %s on %d ranks: %d (%s)\n", clprim_version_string(), ranks, total,
               clprim_mpi_last_error());
    clprim_release(ctx);
    MPI_Finalize();
    return s == CLPRIM_SUCCESS && total == 500500 ? 0 : 1;
}
