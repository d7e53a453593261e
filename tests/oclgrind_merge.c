/* clprim_merge and clprim_merge_sort under oclgrind (tests/oclgrind.sh), at
 * the shape $CLPRIM_TUNING gives: merges of two sorted arrays of different
 * lengths with ties between them (uint32 keys, uint32 values), by a
 * comparator and in the sort's order (clprim_merge_in_order); a descending
 * sort of int64 keys with uint8 values, in place; a sort by a comparator that
 * is no order (the merges' fallback), whose result must be a permutation.
 * Each is checked against a C loop. The device comes from
 * $CLPRIM_OCLGRIND_DEVICE, default "oclgrind".
 *
 *   oclgrind_merge N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clprim.h"

static cl_mem buffer(clprim_context *ctx, size_t bytes, const void *data)
{
    cl_int err;
    cl_mem b = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)data,
                              &err);
    return err == CL_SUCCESS ? b : NULL;
}

static int read_back(clprim_context *ctx, cl_mem b, size_t bytes, void *out)
{
    return clEnqueueReadBuffer(clprim_queue(ctx), b, CL_TRUE, 0, bytes, out, 0, NULL, NULL) == CL_SUCCESS;
}

static int failed(clprim_context *ctx, const char *what, clprim_status s)
{
    fprintf(stderr, "oclgrind_merge: %s: %s: %s\n", what, clprim_status_name(s), clprim_last_error(ctx));
    return 1;
}

/* a: keys 0, 0, 1, 1, ... (na of them); b: 0, 0, 0, 1, ... (nb): ties across.
 * By the comparator "a < b", or in the sort's (ascending) order. */
static int merge_case(clprim_context *ctx, size_t na, size_t nb, int in_order)
{
    const size_t n = na + nb;
    cl_uint *keys = malloc((n + 1) * 4), *values = malloc((n + 1) * 4), *got = malloc((n + 1) * 8);
    for (size_t i = 0; i < n; i++) {
        keys[i] = (cl_uint)(i < na ? i / 2 : (i - na) / 3);
        values[i] = (cl_uint)i;
    }
    cl_mem ka = buffer(ctx, na * 4 + 4, keys), kb = buffer(ctx, nb * 4 + 4, keys + na);
    cl_mem va = buffer(ctx, na * 4 + 4, values), vb = buffer(ctx, nb * 4 + 4, values + na);
    cl_mem ko = buffer(ctx, n * 4 + 4, got), vo = buffer(ctx, n * 4 + 4, got);
    const clprim_status s =
        in_order ? clprim_merge_in_order(ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, ka, 0, va, 0, na, kb, 0, vb, 0, nb,
                                         ko, 0, vo, 0, 0, NULL, NULL)
                 : clprim_merge(ctx, CLPRIM_UINT32, CLPRIM_UINT32, "a < b", ka, 0, va, 0, na, kb, 0, vb, 0, nb, ko, 0,
                                vo, 0, 0, NULL, NULL);
    int bad = s != CLPRIM_SUCCESS ? failed(ctx, "merge", s) : 0;
    if (!bad && read_back(ctx, ko, n * 4, got) && read_back(ctx, vo, n * 4, got + n)) {
        size_t i = 0, j = na;
        for (size_t k = 0; k < n && !bad; k++) {
            const size_t from = j < n && (i >= na || keys[j] < keys[i]) ? j++ : i++;
            if (got[k] != keys[from] || got[n + k] != values[from]) {
                fprintf(stderr, "oclgrind_merge: merge %zu + %zu: output %zu is not input %zu\n", na, nb, k, from);
                bad = 1;
            }
        }
    }
    cl_mem all[] = {ka, kb, va, vb, ko, vo};
    for (size_t i = 0; i < 6; i++)
        clReleaseMemObject(all[i]);
    free(keys), free(values), free(got);
    return bad;
}

/* int64 keys in a small range, uint8 values, "a > b" in place: a stable
 * insertion sort beside it. */
static int descending_case(clprim_context *ctx, size_t n)
{
    cl_long *keys = malloc((n + 1) * 8), *want = malloc((n + 1) * 8);
    cl_uchar *values = malloc(n + 1), *want_values = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        keys[i] = (cl_long)((i * 7919) % 23) - 11;
        values[i] = (cl_uchar)i;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        for (; j > 0 && keys[i] > want[j - 1]; j--)
            want[j] = want[j - 1], want_values[j] = want_values[j - 1];
        want[j] = keys[i], want_values[j] = values[i];
    }
    cl_mem k = buffer(ctx, n * 8 + 8, keys), v = buffer(ctx, n + 1, values);
    const clprim_status s = clprim_merge_sort(ctx, CLPRIM_INT64, CLPRIM_UINT8, "a > b", k, 0, k, 0, v, 0, v, 0, n, 0,
                                              NULL, NULL);
    int bad = s != CLPRIM_SUCCESS ? failed(ctx, "descending sort", s) : 0;
    if (!bad && read_back(ctx, k, n * 8, keys) && read_back(ctx, v, n, values))
        for (size_t i = 0; i < n && !bad; i++)
            if (keys[i] != want[i] || values[i] != want_values[i]) {
                fprintf(stderr, "oclgrind_merge: descending sort: element %zu differs\n", i);
                bad = 1;
            }
    clReleaseMemObject(k);
    clReleaseMemObject(v);
    free(keys), free(want), free(values), free(want_values);
    return bad;
}

/* A comparator that is no order; the values are the indices. */
static int no_order_case(clprim_context *ctx, size_t n)
{
    cl_uint *keys = malloc((n + 1) * 4), *got = malloc((n + 1) * 4), *from = malloc((n + 1) * 4);
    char *seen = calloc(n + 1, 1);
    for (size_t i = 0; i < n; i++)
        keys[i] = (cl_uint)(i * 2654435761u);
    cl_mem k = buffer(ctx, n * 4 + 4, keys), ko = buffer(ctx, n * 4 + 4, keys), vo = buffer(ctx, n * 4 + 4, keys);
    const clprim_status s = clprim_merge_sort(ctx, CLPRIM_UINT32, CLPRIM_UINT32, "((a ^ b) & 3) == 1", k, 0, ko, 0,
                                              NULL, 0, vo, 0, n, 0, NULL, NULL);
    int bad = s != CLPRIM_SUCCESS ? failed(ctx, "sort by no order", s) : 0;
    if (!bad && read_back(ctx, ko, n * 4, got) && read_back(ctx, vo, n * 4, from))
        for (size_t i = 0; i < n && !bad; i++) {
            bad = from[i] >= n || seen[from[i]] || got[i] != keys[from[i]];
            if (bad)
                fprintf(stderr, "oclgrind_merge: sort by no order: output %zu is no new input\n", i);
            else
                seen[from[i]] = 1;
        }
    clReleaseMemObject(k);
    clReleaseMemObject(ko);
    clReleaseMemObject(vo);
    free(keys), free(got), free(from), free(seen);
    return bad;
}

/* Case c of the five on a context of its own. */
static int run_case(int c, size_t n)
{
    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec && *spec ? spec : "oclgrind");
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "oclgrind_merge: clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    const int bad = c == 0   ? merge_case(ctx, n * 2 / 3, n - n * 2 / 3, 0)
                    : c == 1 ? merge_case(ctx, 0, n / 3, 0)
                    : c == 2 ? merge_case(ctx, 5, n, 1)
                    : c == 3 ? descending_case(ctx, n)
                             : no_order_case(ctx, n);
    clprim_release(ctx);
    fflush(stderr);
    return bad;
}

/* Each case runs in a process of its own: oclgrind 21.10 reports as
 * uninitialized what one kernel wrote and a later one reads in a buffer
 * created after another was released (tests/oclgrind_sequence.c), which the
 * scratch growing from one call to the next would do. */
int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
    int failures = 0;
    for (int c = 0; c < 5; c++) {
        fflush(stdout);
        const pid_t pid = fork();
        if (pid == 0)
            _exit(run_case(c, n));
        int status = 1;
        failures += pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    printf("oclgrind_merge: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
