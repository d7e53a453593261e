/* A program of another project: the sum of 1..1000 through libclprim. */
#include <clprim.h>
#include <stdio.h>

int main(void)
{
    clprim_context *ctx = NULL;
    if (clprim_create(&ctx, "cpu") != CLPRIM_SUCCESS) {
        fprintf(stderr, "sum: %s\n", clprim_last_error(NULL));
        return 1;
    }
    int values[1000], total = 0;
    for (int i = 0; i < 1000; i++)
        values[i] = i + 1;
    cl_mem buf = clCreateBuffer(clprim_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof values,
                                values, NULL);
    clprim_status s = clprim_reduce(ctx, CLPRIM_INT32, CLPRIM_SUM, buf, 0, 1000, &total, 0, NULL);
    printf("sum: libclprim %s: %d (%s)\n", clprim_version_string(), total, clprim_last_error(ctx));
    clReleaseMemObject(buf);
    clprim_release(ctx);
    return s == CLPRIM_SUCCESS && total == 500500 ? 0 : 1;
}
