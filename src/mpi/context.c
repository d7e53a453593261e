/* One context per rank, on a device chosen by the rank's place on its host. */
#include <stdio.h>
#include <stdlib.h>

#include "mpi_internal.h"

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

/* "P:D" of GPU number `which` (mod their count) in `clprim devices` order, or
 * 0 when the host has no GPU. */
static int gpu_spec(int which, char *spec, size_t size)
{
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint np = 0;
    unsigned gpus = 0, pick[MAX_PLATFORMS * MAX_DEVICES][2];
    if (clGetPlatformIDs(MAX_PLATFORMS, platforms, &np) != CL_SUCCESS)
        return 0;
    for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
        cl_device_id devices[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < MAX_DEVICES; d++) {
            cl_device_type type = 0;
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            if (type & CL_DEVICE_TYPE_GPU) {
                pick[gpus][0] = p;
                pick[gpus][1] = d;
                gpus++;
            }
        }
    }
    if (gpus == 0)
        return 0;
    unsigned g = (unsigned)which % gpus;
    snprintf(spec, size, "%u:%u", pick[g][0], pick[g][1]);
    return 1;
}

clprim_status clprim_mpi_create(clprim_context **ctx, MPI_Comm comm, const char *device)
{
    mpi_call call;
    clprim_status s = mpi_begin(&call, "clprim_mpi_create", NULL, comm);
    if (call.size == 0)
        return mpi_end(&call, s);
    if (s == CLPRIM_SUCCESS && !ctx)
        s = mpi_fail(&call, CLPRIM_INVALID_ARGUMENT, "ctx is NULL");
    if (ctx)
        *ctx = NULL;

    /* Plan: the device. The local rank comes from the ranks sharing this
     * host's memory (a collective: every rank takes part, whatever its
     * device argument). */
    MPI_Comm local;
    int local_rank = 0;
    double t = mpi_now();
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, call.rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_free(&local);
    mpi_add_mpi(&call, t);
    char spec[32];
    const char *env = getenv("CLPRIM_DEVICE");
    if (!device && !(env && *env) && gpu_spec(local_rank, spec, sizeof spec))
        device = spec;

    if (s == CLPRIM_SUCCESS) {
        t = mpi_now();
        s = clprim_create(ctx, device);
        mpi_add_device(&call, t);
        if (s != CLPRIM_SUCCESS)
            s = mpi_fail(&call, s, "%s", clprim_last_error(NULL));
    }
    s = mpi_settle(&call, s);
    if (s != CLPRIM_SUCCESS && ctx) {
        clprim_release(*ctx);
        *ctx = NULL;
    }
    return mpi_end(&call, s);
}
