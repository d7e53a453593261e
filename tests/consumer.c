/* A program outside the project: built against the installed clprim.pc by
 * tests/install_test.sh. Creates a context, scans and reduces, checks. With an
 * argument (the installed libclprim.so), checks it is the one loaded. */
#define _DEFAULT_SOURCE /* realpath */
#include <clprim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(CLPRIM_VERSION_MAJOR) || !defined(CLPRIM_VERSION_STRING)
#error "clprim.h does not bring the version macros"
#endif

#define N 100003

static int fail(clprim_context *ctx, const char *what, clprim_status s)
{
    fprintf(stderr, "consumer: %s: %s: %s\n", what, clprim_status_name(s), clprim_last_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
#ifdef __linux__
    /* argv[1]: the installed library; the loader must have taken that one. */
    if (argc > 1) {
        char want[4096], line[4608];
        if (!realpath(argv[1], want))
            snprintf(want, sizeof want, "%s", argv[1]);
        FILE *maps = fopen("/proc/self/maps", "r");
        int found = 0, other = 0;
        while (maps && fgets(line, sizeof line, maps)) {
            char *path = strchr(line, '/');
            if (!path || !strstr(path, "libclprim.so"))
                continue;
            path[strcspn(path, "\n")] = '\0';
            if (!strcmp(path, want))
                found = 1;
            else
                other = 1;
        }
        if (maps)
            fclose(maps);
        if (!found || other) {
            fprintf(stderr, "consumer: libclprim was not loaded from %s only\n", want);
            return 1;
        }
    }
#else
    (void)argc;
    (void)argv;
#endif
    if (strcmp(clprim_version_string(), CLPRIM_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: the library is %s, its header %s\n", clprim_version_string(), CLPRIM_VERSION_STRING);
        return 1;
    }
    const char *device = getenv("CLPRIM_TEST_DEVICES");
    char spec[256] = "";
    if (device && *device) /* the first device under test */
        sscanf(device, "%255[^;]", spec);
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec[0] ? spec : "cpu");
    if (s != CLPRIM_SUCCESS)
        return fail(NULL, "clprim_create", s);

    cl_int err;
    cl_context cl = clprim_cl_context(ctx);
    int *data = malloc(N * sizeof *data), *out = malloc(N * sizeof *out);
    if (!data || !out)
        return 1;
    for (int i = 0; i < N; i++)
        data[i] = i % 7 - 3;
    cl_mem src = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *data, data, &err);
    cl_mem dst = clCreateBuffer(cl, CL_MEM_READ_WRITE, N * sizeof *out, NULL, &err);
    if (!src || !dst)
        return 1;
    cl_event done;
    s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 1, src, 0, dst, 0, N, 0, NULL, &done);
    if (s != CLPRIM_SUCCESS)
        return fail(ctx, "clprim_scan", s);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    clEnqueueReadBuffer(clprim_queue(ctx), dst, CL_TRUE, 0, N * sizeof *out, out, 0, NULL, NULL);
    int acc = 0;
    for (int i = 0; i < N; i++) {
        if (out[i] != acc) {
            fprintf(stderr, "consumer: scan element %d is %d, want %d\n", i, out[i], acc);
            return 1;
        }
        acc += data[i];
    }
    int total = 0;
    s = clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_SUM, src, 0, N, &total, 0, NULL);
    if (s != CLPRIM_SUCCESS)
        return fail(ctx, "clprim_reduce", s);
    if (total != acc) {
        fprintf(stderr, "consumer: reduce gave %d, want %d\n", total, acc);
        return 1;
    }
    /* A failure names its argument through the installed library too. */
    s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, NULL, 0, 1, 0, NULL, NULL);
    if (s != CLPRIM_INVALID_ARGUMENT || !strstr(clprim_last_error(ctx), "dst"))
        return fail(ctx, "NULL dst was not refused", s);
    printf("consumer: libclprim %s on the installed kernels: scan and reduce of %d int32 correct\n",
           CLPRIM_VERSION_STRING, N);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clprim_release(ctx);
    free(data);
    free(out);
    return 0;
}
