/* Sorting on the device: keys alone, keys with values, and 64-bit keys.
 *
 *   build/examples/sort [N]      (N keys, default 100000)
 *
 * clprim_sort_keys and clprim_sort_pairs are stable radix sorts. Three sorts:
 *   1. float scores alone, ascending;
 *   2. the same scores carrying each player's id, highest score first: players
 *      with equal scores keep their input order (stable in both directions);
 *   3. 64-bit timestamps with values_in NULL, so that the values become the
 *      sorting permutation: where each sorted key came from.
 * Each result is checked against a C loop. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clprim.h>

#define FIRST_ID 1000u

static int check(clprim_context *ctx, clprim_status s, const char *what)
{
    if (s != CLPRIM_SUCCESS)
        fprintf(stderr, "%s: %s: %s\n", what, clprim_status_name(s), clprim_last_error(ctx));
    return s == CLPRIM_SUCCESS;
}

static int ascending(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int read_back(clprim_context *ctx, cl_mem buf, size_t bytes, void *host)
{
    return clEnqueueReadBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL) == CL_SUCCESS;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
    if (n == 0 || n > UINT32_MAX - FIRST_ID) {
        fprintf(stderr, "usage: sort [N]   (1 <= N < 2^32 - %u keys)\n", FIRST_ID);
        return 2;
    }
    float *score = malloc(n * sizeof *score), *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    uint32_t *id = malloc(n * sizeof *id), *got_id = malloc(n * sizeof *got_id), *perm = malloc(n * sizeof *perm);
    uint64_t *stamp = malloc(n * sizeof *stamp), *got_stamp = malloc(n * sizeof *got_stamp);
    unsigned char *seen = calloc(n, 1);
    if (!score || !want || !got || !id || !got_id || !perm || !stamp || !got_stamp || !seen)
        return 1;
    uint64_t state = 5;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        score[i] = (float)(state >> 54) * 0.5f; /* 0 .. 511.5 in halves: many ties */
        id[i] = FIRST_ID + (uint32_t)i;
        stamp[i] = 1700000000000000ull + (state >> 30); /* microseconds: beyond 32 bits */
    }

    clprim_context *ctx;
    if (!check(NULL, clprim_create(&ctx, NULL), "clprim_create"))
        return 1;
    cl_context cl = clprim_cl_context(ctx);
    cl_int err;
    cl_mem scores = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *score, score, &err);
    cl_mem ids = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *id, id, &err);
    cl_mem stamps = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *stamp, stamp, &err);
    cl_mem sorted = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof *stamp, NULL, &err); /* room for 64-bit keys */
    cl_mem sorted_ids = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof *id, NULL, &err);

    /* 1. Keys alone, ascending (order NULL: ascending on every bit). */
    int ok = check(ctx, clprim_sort_keys(ctx, CLPRIM_FLOAT, NULL, scores, 0, sorted, 0, n, 0, NULL, NULL),
                   "clprim_sort_keys") &&
             read_back(ctx, sorted, n * sizeof *got, got);
    memcpy(want, score, n * sizeof *want);
    qsort(want, n, sizeof *want, ascending);
    const int keys_ok = ok && memcmp(got, want, n * sizeof *got) == 0;

    /* 2. Pairs, highest score first; the ids travel with their scores. */
    const clprim_sort_order highest_first = {1, 0, 0};
    ok = check(ctx, clprim_sort_pairs(ctx, CLPRIM_FLOAT, CLPRIM_UINT32, &highest_first, scores, 0, sorted, 0, ids, 0,
                                      sorted_ids, 0, n, 0, NULL, NULL),
               "clprim_sort_pairs") &&
         read_back(ctx, sorted, n * sizeof *got, got) && read_back(ctx, sorted_ids, n * sizeof *got_id, got_id);
    /* Each id once, with its own score, scores falling, ties in input order. */
    size_t wrong = 0;
    for (size_t j = 0; ok && j < n; j++) {
        const uint32_t i = got_id[j] - FIRST_ID, prev = j ? got_id[j - 1] - FIRST_ID : 0;
        wrong += i >= n || seen[i]++ || got[j] != score[i] ||
                 (j > 0 && prev < n && (score[prev] < score[i] || (score[prev] == score[i] && prev > i)));
    }
    const int pairs_ok = ok && wrong == 0;

    /* 3. 64-bit keys; values_in NULL: perm[j] is the index the j-th key came from. */
    ok = check(ctx, clprim_sort_pairs(ctx, CLPRIM_UINT64, CLPRIM_UINT32, NULL, stamps, 0, sorted, 0, NULL, 0,
                                      sorted_ids, 0, n, 0, NULL, NULL),
               "clprim_sort_pairs") &&
         read_back(ctx, sorted, n * sizeof *got_stamp, got_stamp) && read_back(ctx, sorted_ids, n * sizeof *perm, perm);
    memset(seen, 0, n);
    wrong = 0;
    for (size_t j = 0; ok && j < n; j++)
        wrong += perm[j] >= n || seen[perm[j]]++ || got_stamp[j] != stamp[perm[j]] ||
                 (j > 0 && (got_stamp[j - 1] > got_stamp[j] || (got_stamp[j - 1] == got_stamp[j] && perm[j - 1] > perm[j])));
    const int stamps_ok = ok && wrong == 0;

    printf("%zu keys: floats ascending %s; pairs, highest first, top score %.1f (player %u) %s; "
           "64-bit keys with their permutation %s\n",
           n, keys_ok ? "as the C loop" : "MISMATCH", got[0], got_id[0], pairs_ok ? "as the C loop" : "MISMATCH",
           stamps_ok ? "as the C loop" : "MISMATCH");

    const cl_mem all[] = {scores, ids, stamps, sorted, sorted_ids};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clReleaseMemObject(all[i]);
    clprim_release(ctx);
    free(score);
    free(want);
    free(got);
    free(id);
    free(got_id);
    free(perm);
    free(stamp);
    free(got_stamp);
    free(seen);
    return keys_ok && pairs_ok && stamps_ok ? 0 : 1;
}
