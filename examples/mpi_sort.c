/* Sort keys with values across MPI ranks.
 *
 *   mpirun -np 3 build/examples/mpi_sort
 *
 * Each rank holds random keys, each with a value that says where it came
 * from. clprim_mpi_sort_pairs sorts the global array (the ranks' slices in
 * rank order) and leaves it spread over the ranks in rank order, each rank
 * with about an equal share, in new buffers the call creates. Each rank then
 * checks that its share is sorted, that every value still belongs to its key,
 * and that its first key is not below the last key of the ranks before it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim_mpi.h>

/* The key of element i of rank r, and the value that names them. */
static cl_uint key_of(cl_uint r, cl_uint i)
{
    uint64_t z = ((uint64_t)r << 32 | i) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
    return (cl_uint)(z >> 32);
}
static cl_uint value_of(cl_uint r, cl_uint i)
{
    return r << 24 | i; /* up to 256 ranks of 2^24 keys */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    clprim_context *ctx;
    clprim_status s = clprim_mpi_create(&ctx, MPI_COMM_WORLD, NULL);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "rank %d: clprim_mpi_create: %s: %s\n", rank, clprim_status_name(s), clprim_mpi_last_error());
        MPI_Finalize();
        return 1;
    }

    /* Slices of different lengths. */
    size_t n = 60000 + 15000 * (size_t)(rank % 3);
    cl_uint *keys = malloc(n * sizeof *keys), *values = malloc(n * sizeof *values);
    if (!keys || !values)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < n; i++) {
        keys[i] = key_of((cl_uint)rank, (cl_uint)i);
        values[i] = value_of((cl_uint)rank, (cl_uint)i);
    }
    cl_context cl = clprim_cl_context(ctx);
    cl_int err, err2;
    cl_mem keys_in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *keys, keys, &err);
    cl_mem values_in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *values, values, &err2);
    if (err != CL_SUCCESS || err2 != CL_SUCCESS) {
        fprintf(stderr, "rank %d: clCreateBuffer: %d %d\n", rank, err, err2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* Collective: every rank passes its slice and receives its share. */
    cl_mem keys_out = NULL, values_out = NULL;
    size_t n_out = 0;
    s = clprim_mpi_sort_pairs(ctx, MPI_COMM_WORLD, CLPRIM_UINT32, CLPRIM_UINT32, /* ascending */ NULL, keys_in, 0,
                              values_in, 0, n, &keys_out, &values_out, &n_out, 0, NULL);
    if (s != CLPRIM_SUCCESS) {
        if (rank == 0) /* the same status and message on every rank */
            fprintf(stderr, "clprim_mpi_sort_pairs: %s: %s\n", clprim_status_name(s), clprim_mpi_last_error());
        MPI_Finalize();
        return 1;
    }

    cl_uint *sorted = malloc((n_out ? n_out : 1) * sizeof *sorted), *moved = malloc((n_out ? n_out : 1) * sizeof *moved);
    if (!sorted || !moved)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (n_out) {
        clEnqueueReadBuffer(clprim_queue(ctx), keys_out, CL_TRUE, 0, n_out * sizeof *sorted, sorted, 0, NULL, NULL);
        clEnqueueReadBuffer(clprim_queue(ctx), values_out, CL_TRUE, 0, n_out * sizeof *moved, moved, 0, NULL, NULL);
    }
    int ok = 1;
    for (size_t i = 0; i < n_out; i++) {
        ok &= i == 0 || sorted[i - 1] <= sorted[i];
        ok &= sorted[i] == key_of(moved[i] >> 24, moved[i] & 0xFFFFFF); /* the value came with its key */
    }
    /* The boundary: the largest key of the lower ranks is their last one
     * (ranks with an empty share give 0, which changes no maximum). */
    cl_uint last = n_out ? sorted[n_out - 1] : 0, before = 0;
    MPI_Exscan(&last, &before, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    if (rank > 0 && n_out)
        ok &= before <= sorted[0];
    if (!ok)
        fprintf(stderr, "rank %d: its share is not in order\n", rank);

    /* The shares, and the total, on rank 0. */
    unsigned long long mine = n_out, in = n, total_in = 0;
    unsigned long long *shares = rank == 0 ? malloc((size_t)size * sizeof *shares) : NULL;
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, shares, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Reduce(&in, &total_in, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned long long total_out = 0;
        printf("%llu keys sorted over %d rank%s; each rank's share:", total_in, size, size > 1 ? "s" : "");
        for (int r = 0; r < size; r++) {
            printf(" %llu", shares[r]);
            total_out += shares[r];
        }
        printf("\n%s\n", all_ok && total_out == total_in ? "in order" : "NOT in order");
        all_ok &= total_out == total_in;
        free(shares);
    }
    MPI_Bcast(&all_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    clReleaseMemObject(keys_out);
    clReleaseMemObject(values_out);
    clReleaseMemObject(keys_in);
    clReleaseMemObject(values_in);
    free(keys);
    free(values);
    free(sorted);
    free(moved);
    clprim_release(ctx);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
