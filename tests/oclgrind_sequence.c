/* Calls one after another on one context, for running under oclgrind
 * (tests/oclgrind.sh): in every order of four calls whose scratch needs differ,
 * so the context's scratch grows (and the old buffer is released) between
 * calls while the earlier calls' kernels may still be queued. Nothing waits
 * between calls, each input is released as soon as its call is enqueued, and
 * every output is checked against the CPU reference only once the whole order
 * has run: a pass that read a released buffer, or scratch that another pass
 * wrote to the old buffer, shows as a report or as a wrong result.
 *
 *   oclgrind_sequence [ORDER...]   orders as letters of ABCD (default: all 24)
 *
 * A: inclusive uint64 SUM scan of 1025 elements, src offset 11, dst offset 1
 * B: exclusive int32 SUM scan of 4100 elements (more partials)
 * C: int32 reduce by key of 3000 elements (its own scratch and a compaction's)
 * D: uint32 pairs sort of 2500 keys, the values their indices (the largest scratch)
 * The device comes from $CLPRIM_OCLGRIND_DEVICE, default "oclgrind".
 *
 * Results are read on the host, never by another call: oclgrind 21.10 itself
 * reports what one kernel wrote and a later kernel reads as uninitialized when
 * the buffer was created after another buffer had been released (a program of
 * two kernels and no libclprim shows it), so a caller's chain of calls over
 * freshly created buffers draws such reports with right results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clprim.h"
#include "reference.h"
#include "reference_sort.h"

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint32_t next32(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(state >> 32);
}

static cl_mem buffer(clprim_context *ctx, size_t bytes, const void *init)
{
    cl_int err;
    unsigned char *fill = init ? NULL : malloc(bytes);
    if (fill)
        memset(fill, 0xA5, bytes);
    cl_mem b = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                              init ? (void *)init : fill, &err);
    free(fill);
    return err == CL_SUCCESS ? b : NULL;
}

/* One call: its input (host), its output buffers and what the reference wants. */
typedef struct {
    char name;
    size_t out_offset; /* bytes before the result in out */
    cl_mem out, out2;
    void *want, *want2;
    size_t want_bytes, want2_bytes;
    size_t runs, want_runs;
} call;

static int fail(const char *order, char name, const char *what, clprim_context *ctx)
{
    fprintf(stderr, "oclgrind_sequence: order %s, call %c: %s%s%s\n", order, name, what, ctx ? ": " : "",
            ctx ? clprim_last_error(ctx) : "");
    return 1;
}

static int enqueue(clprim_context *ctx, const char *order, call *c)
{
    clprim_status s = CLPRIM_SUCCESS;
    switch (c->name) {
    case 'A':
    case 'B': {
        const int a = c->name == 'A';
        const clprim_type t = a ? CLPRIM_UINT64 : CLPRIM_INT32;
        const size_t n = a ? 1025 : 4100, es = a ? 8 : 4, src_off = a ? 11 : 0, dst_off = a ? 1 : 0;
        unsigned char *in = malloc((n + src_off) * es);
        c->want = malloc(n * es);
        for (size_t i = 0; i < (n + src_off) * es; i++)
            in[i] = (unsigned char)next32();
        reference_scan(t, CLPRIM_SUM, !a, in + src_off * es, c->want, n);
        c->want_bytes = n * es;
        cl_mem src = buffer(ctx, (n + src_off) * es, in);
        c->out = buffer(ctx, (n + dst_off + 2) * es, NULL);
        c->out_offset = dst_off * es;
        s = clprim_scan(ctx, t, CLPRIM_SUM, !a, src, src_off, c->out, dst_off, n, 0, NULL, NULL);
        clReleaseMemObject(src);
        free(in);
        break;
    }
    case 'C': {
        const size_t n = 3000;
        int32_t *keys = malloc(n * 4), *values = malloc(n * 4), *want_keys = malloc(n * 4), *want = malloc(n * 4);
        int32_t key = 0;
        size_t runs = 0;
        for (size_t i = 0; i < n; i++) {
            if (next32() % 5 == 0)
                key += 1 + (int32_t)(next32() % 3);
            keys[i] = key;
            values[i] = (int32_t)(next32() % 1000) - 500;
            if (i == 0 || keys[i] != keys[i - 1]) {
                want_keys[runs] = keys[i];
                want[runs++] = 0;
            }
            want[runs - 1] += values[i];
        }
        cl_mem kb = buffer(ctx, n * 4, keys), vb = buffer(ctx, n * 4, values);
        c->out = buffer(ctx, n * 4, NULL);
        c->out2 = buffer(ctx, n * 4, NULL);
        s = clprim_reduce_by_key(ctx, CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, NULL, kb, 0, vb, 0, n, c->out, 0,
                                 c->out2, 0, &c->runs, NULL, 0, 0, NULL, NULL);
        clReleaseMemObject(kb);
        clReleaseMemObject(vb);
        c->want = want_keys;
        c->want_bytes = runs * 4;
        c->want2 = want;
        c->want2_bytes = runs * 4;
        c->want_runs = runs;
        free(keys);
        free(values);
        break;
    }
    default: { /* 'D' */
        const size_t n = 2500;
        uint32_t *keys = malloc(n * 4);
        for (size_t i = 0; i < n; i++)
            keys[i] = next32() % 4000;
        cl_mem kb = buffer(ctx, n * 4, keys);
        c->out = buffer(ctx, n * 4, NULL);
        c->out2 = buffer(ctx, n * 4, NULL);
        s = clprim_sort_pairs(ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, kb, 0, c->out, 0, NULL, 0, c->out2, 0, n, 0,
                              NULL, NULL);
        clReleaseMemObject(kb);
        uint32_t *perm = reference_sort_perm(CLPRIM_UINT32, keys, n), *sorted = malloc(n * 4);
        for (size_t i = 0; i < n; i++)
            sorted[i] = keys[perm[i]];
        c->want = sorted;
        c->want_bytes = n * 4;
        c->want2 = perm;
        c->want2_bytes = n * 4;
        free(keys);
        break;
    }
    }
    if (s != CLPRIM_SUCCESS)
        return fail(order, c->name, clprim_status_name(s), ctx);
    return 0;
}

static int matches(clprim_context *ctx, cl_mem b, size_t offset, const void *want, size_t bytes)
{
    unsigned char *got = malloc(bytes ? bytes : 1);
    int same = clEnqueueReadBuffer(clprim_queue(ctx), b, CL_TRUE, offset, bytes, got, 0, NULL, NULL) == CL_SUCCESS &&
               !memcmp(got, want, bytes);
    free(got);
    return same;
}

static int run_order(const char *order)
{
    clprim_context *ctx;
    const char *device = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_status s = clprim_create(&ctx, device && *device ? device : "oclgrind");
    if (s != CLPRIM_SUCCESS)
        return fail(order, '-', clprim_last_error(NULL), NULL);
    call calls[4];
    memset(calls, 0, sizeof calls);
    const size_t count = strlen(order);
    int failed = 0;
    for (size_t k = 0; k < count && !failed; k++) {
        calls[k].name = order[k];
        failed = enqueue(ctx, order, &calls[k]);
    }
    for (size_t k = 0; k < count && !failed; k++) {
        call *c = &calls[k];
        if (c->name == 'C' && c->runs != c->want_runs)
            failed = fail(order, c->name, "wrong number of runs", NULL);
        else if (!matches(ctx, c->out, c->out_offset, c->want, c->want_bytes))
            failed = fail(order, c->name, "wrong result", NULL);
        else if (c->out2 && !matches(ctx, c->out2, 0, c->want2, c->want2_bytes))
            failed = fail(order, c->name, "wrong second output", NULL);
    }
    for (size_t k = 0; k < count; k++) {
        if (calls[k].out)
            clReleaseMemObject(calls[k].out);
        if (calls[k].out2)
            clReleaseMemObject(calls[k].out2);
        free(calls[k].want);
        free(calls[k].want2);
    }
    clprim_release(ctx);
    return failed;
}

/* The next permutation of s in lexicographic order; 0 after the last. */
static int next_order(char *s, size_t n)
{
    size_t i = n - 1;
    while (i > 0 && s[i - 1] >= s[i])
        i--;
    if (i == 0)
        return 0;
    size_t j = n - 1;
    while (s[j] <= s[i - 1])
        j--;
    char t = s[i - 1];
    s[i - 1] = s[j];
    s[j] = t;
    for (size_t a = i, b = n - 1; a < b; a++, b--) {
        t = s[a];
        s[a] = s[b];
        s[b] = t;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int failed = 0;
    if (argc > 1) {
        for (int k = 1; k < argc; k++) {
            if (strspn(argv[k], "ABCD") != strlen(argv[k]) || strlen(argv[k]) > 4)
                return fail(argv[k], '-', "an order is up to four of the letters A, B, C, D", NULL);
            failed |= run_order(argv[k]);
        }
    } else {
        char order[] = "ABCD";
        do
            failed |= run_order(order);
        while (next_order(order, 4));
    }
    if (!failed)
        printf("ok\n");
    return failed;
}
