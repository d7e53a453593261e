/* Runs one C fragment of README.md's tour. tests/readme_test.py writes the
 * fragment to readme_fragment.h and builds this file against the installed
 * library with -DFRAGMENT_<NAME>; the names the fragment uses are declared
 * here as app.c (the README's whole program) has them, with data the check
 * below can recompute. A fragment's own #include lines add nothing: the
 * headers are already in. Exits 1 when a call failed or a result differs
 * from the C loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FRAGMENT_MPI
#include <clprim_mpi.h>
#else
#include <clprim.h>
#endif

#ifdef FRAGMENT_MPI
int main(int argc, char **argv)
{
    /* Every rank's slice holds the same n values (the fragment calls MPI_Init,
     * so nothing here may depend on the rank before it). */
    const size_t n = 1000;
    float part[1000];
    for (size_t i = 0; i < n; i++)
        part[i] = (float)((i * 2654435761u) % 1000u) / 1000.0f;

#include "readme_fragment.h"

    /* The histogram on the root, and the sorted keys: ascending on each rank,
     * n keys a rank in all. */
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    cl_uint counts_got[64], want[64] = {0};
    float *keys = malloc((mine ? mine : 1) * sizeof *keys);
    int ok = *clprim_mpi_last_error() == '\0' && keys &&
             clEnqueueReadBuffer(clprim_queue(ctx), sorted, CL_TRUE, 0, mine * sizeof *keys, keys, 0, NULL, NULL) ==
                 CL_SUCCESS &&
             clEnqueueReadBuffer(clprim_queue(ctx), counts, CL_TRUE, 0, sizeof counts_got, counts_got, 0, NULL,
                                 NULL) == CL_SUCCESS;
    for (size_t i = 1; ok && i < mine; i++)
        ok = keys[i - 1] <= keys[i];
    unsigned long long held = mine, all = 0;
    MPI_Allreduce(&held, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    ok = ok && all == n * (size_t)ranks;
    if (rank == 0) {
        for (size_t i = 0; i < n; i++)
            want[(unsigned)(part[i] * 64.0f)] += (cl_uint)ranks;
        ok = ok && memcmp(counts_got, want, sizeof want) == 0;
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%llu keys on %d ranks, histogram and sort %s\n", all, ranks,
               all_ok ? "as the C loop" : "WRONG");
    free(keys);
    clReleaseMemObject(slice);
    clReleaseMemObject(counts);
    clReleaseMemObject(sorted);
    clprim_release(ctx);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}

#else
static int failed(const char *what)
{
    fprintf(stderr, "readme fragment: %s\n", what);
    return 1;
}

int main(void)
{
    clprim_context *ctx;
    if (clprim_create(&ctx, NULL) != CLPRIM_SUCCESS)
        return failed(clprim_last_error(NULL));
    cl_context cl = clprim_cl_context(ctx);
    enum { n = 1000 };

#if defined(FRAGMENT_SORT)
    /* Keys of few values, for ties; the permutation as uint32. */
    double values[n];
    for (int i = 0; i < n; i++)
        values[i] = (double)((i * 37) % 101) - 50.5;
    cl_mem keys = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof values, values, NULL);
    cl_mem sorted_keys = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof values, NULL, NULL);
    cl_mem permutation = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof(cl_uint), NULL, NULL);
#else
#ifdef FRAGMENT_SEEDED
    typedef cl_long element;
    const size_t m = 400;
#else
    typedef cl_int element;
#endif
    element host[n];
    for (int i = 0; i < n; i++)
        host[i] = i % 100 - 20;
    const size_t bytes = sizeof host;
#ifdef FRAGMENT_EVENTS
    cl_command_queue upload_queue = clCreateCommandQueue(cl, clprim_device(ctx), 0, NULL);
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY, bytes, NULL, NULL);
#else
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host, NULL);
#endif
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, NULL);
#endif

#include "readme_fragment.h"

    if (*clprim_last_error(ctx))
        return failed(clprim_last_error(ctx));
    size_t wrong = 0;
#if defined(FRAGMENT_SORT)
    /* Descending; equal keys keep their input order. */
    double got[n];
    cl_uint from[n];
    clEnqueueReadBuffer(clprim_queue(ctx), sorted_keys, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
    clEnqueueReadBuffer(clprim_queue(ctx), permutation, CL_TRUE, 0, sizeof from, from, 0, NULL, NULL);
    for (int j = 0; j < n; j++)
        wrong += from[j] >= n || got[j] != values[from[j]] ||
                 (j > 0 && (got[j - 1] < got[j] || (got[j - 1] == got[j] && from[j - 1] > from[j])));
    clReleaseMemObject(keys);
    clReleaseMemObject(sorted_keys);
    clReleaseMemObject(permutation);
#else
#ifdef FRAGMENT_EVENTS
    clWaitForEvents(1, &scanned);
    clReleaseEvent(scanned);
    clReleaseCommandQueue(upload_queue);
#endif
    element got[n];
    clEnqueueReadBuffer(clprim_queue(ctx), out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
#ifdef FRAGMENT_COMPACT
    size_t count = 0; /* the elements above the limit, in order */
    for (int i = 0; i < n; i++)
        if (host[i] > limit)
            wrong += count >= kept || got[count++] != host[i];
    wrong += count != kept;
#else /* an inclusive scan of the whole array */
    element sum = 0;
    for (int i = 0; i < n; i++)
        wrong += got[i] != (sum += host[i]);
#endif
    clReleaseMemObject(in);
    clReleaseMemObject(out);
#endif
    clprim_release(ctx);
    printf("%zu wrong element(s)\n", wrong);
    return wrong != 0;
}
#endif
