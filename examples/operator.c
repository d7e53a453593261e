/* Scan and reduce with an operator of your own, with libclprim.
 *
 *   build/examples/operator [N]      (N days of prices, default 1000000)
 *
 * The highest price so far, day by day: a running maximum. clprim_scan_op
 * takes the operator as an OpenCL C expression over a (what came before) and
 * b (the next element), here "max(a, b)", with its identity, the value that
 * changes nothing: the lowest int. Then clprim_reduce_op combines one bit per
 * weekday with "a | b" to say on which weekdays a new high was reached. Both
 * results are checked against a C loop. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>

static int check(clprim_context *ctx, clprim_status s, const char *what)
{
    if (s != CLPRIM_SUCCESS)
        fprintf(stderr, "%s: %s: %s\n", what, clprim_status_name(s), clprim_last_error(ctx));
    return s == CLPRIM_SUCCESS;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    if (n == 0) {
        fprintf(stderr, "usage: operator [N]   (N >= 1 days)\n");
        return 2;
    }
    /* A random walk of prices in cents. */
    int32_t *price = malloc(n * sizeof *price), *high = malloc(n * sizeof *high);
    uint32_t *flags = malloc(n * sizeof *flags);
    if (!price || !high || !flags)
        return 1;
    uint64_t state = 42;
    int32_t p = 10000;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        p += (int32_t)(state >> 61) - 3; /* -3 .. +4 */
        price[i] = p;
    }

    clprim_context *ctx;
    if (!check(NULL, clprim_create(&ctx, NULL), "clprim_create"))
        return 1;
    cl_int err;
    cl_mem prices = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   n * sizeof *price, price, &err);
    cl_mem highs = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE, n * sizeof *high, NULL, &err);

    /* The running maximum: high[i] = max(price[0], ..., price[i]). */
    const int32_t lowest = INT32_MIN;
    const clprim_operator running_max = {"max(a, b)", &lowest};
    int ok = check(ctx, clprim_scan_op(ctx, CLPRIM_INT32, &running_max, 0, prices, 0, highs, 0, n, 0, NULL, NULL),
                   "clprim_scan_op");
    ok = ok && clEnqueueReadBuffer(clprim_queue(ctx), highs, CL_TRUE, 0, n * sizeof *high, high, 0, NULL, NULL) ==
                   CL_SUCCESS;

    /* Which weekdays (day i is weekday i % 7) closed at a new high: one bit a
     * weekday, combined with a bitwise OR. */
    for (size_t i = 0; i < n; i++)
        flags[i] = (ok && price[i] == high[i]) ? 1u << (i % 7) : 0u;
    cl_mem flag_buf = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                     n * sizeof *flags, flags, &err);
    const uint32_t none = 0;
    const clprim_operator bitwise_or = {"a | b", &none};
    uint32_t weekdays = 0;
    ok = ok && check(ctx, clprim_reduce_op(ctx, CLPRIM_UINT32, &bitwise_or, flag_buf, 0, n, &weekdays, 0, NULL),
                     "clprim_reduce_op");

    /* The same in C. */
    int32_t run = INT32_MIN;
    uint32_t want_weekdays = 0;
    size_t wrong = 0;
    for (size_t i = 0; ok && i < n; i++) {
        run = price[i] > run ? price[i] : run;
        wrong += high[i] != run;
        want_weekdays |= flags[i];
    }
    if (ok)
        printf("%zu days: highest price %.2f, new highs on weekdays 0x%02x; %zu running maxima differ from C, "
               "weekdays %s\n",
               n, high[n - 1] / 100.0, weekdays, wrong, weekdays == want_weekdays ? "match" : "DIFFER");
    ok = ok && wrong == 0 && weekdays == want_weekdays;

    clReleaseMemObject(flag_buf);
    clReleaseMemObject(highs);
    clReleaseMemObject(prices);
    clprim_release(ctx);
    free(price);
    free(high);
    free(flags);
    return ok ? 0 : 1;
}
