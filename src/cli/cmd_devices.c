/* `clprim devices`: every platform and device the ICD loader sees, and the one
 * libclprim picks by default. */
#include "commands.h"
#include "options.h"

#include <stdio.h>

static void print_device(cl_device_id d, unsigned p, unsigned i, int picked)
{
    char name[256] = "", version[256] = "", driver[256] = "";
    cl_device_type type = 0;
    cl_uint units = 0;
    cl_ulong global = 0, local = 0;
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof version, version, NULL);
    clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    const char *kind = (type & CL_DEVICE_TYPE_GPU)   ? "GPU"
                       : (type & CL_DEVICE_TYPE_CPU) ? "CPU"
                                                     : "other";
    printf("  %c %u:%u  %-5s %s\n", picked ? '*' : ' ', p, i, kind, name);
    printf("          %s, driver %s; %u compute units, %.1f GiB global, %llu KiB local, fp64 %s\n", version,
           driver, units, (double)global / (1u << 30), (unsigned long long)(local / 1024), fp64 ? "yes" : "no");
}

static const cli_command command = {
    "devices", "", "  every OpenCL platform and device, and the one libclprim picks by default\n", NULL, 0, NULL, NULL,
};

int cmd_devices(int argc, char **argv)
{
    cli_parser p;
    cli_begin(&p, &command, argc, argv);
    while (cli_next(&p) >= 0)
        ;
    const int ended = cli_end(&p, 0);
    if (ended >= 0)
        return ended;
    cl_platform_id platforms[16];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(16, platforms, &np);
    if (err != CL_SUCCESS || np == 0) {
        printf("No OpenCL platform found. Install an ICD (for example: apt-get install pocl-opencl-icd).\n");
        return 1;
    }
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, NULL);
    cl_device_id picked = s == CLPRIM_SUCCESS ? clprim_device(ctx) : NULL;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        char pname[256] = "", pversion[256] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof pversion, pversion, NULL);
        printf("platform %u: %s (%s)\n", p, pname, pversion);
        cl_device_id devices[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd) != CL_SUCCESS)
            nd = 0;
        for (cl_uint i = 0; i < nd && i < 64; i++)
            print_device(devices[i], p, i, devices[i] == picked);
    }
    if (ctx) {
        clprim_tuning t = clprim_get_tuning(ctx);
        printf("\n* libclprim's default device; tuning there: work-group %zu, %zu items per work-item, "
               "%zu groups; radix sort form %s.\n",
               t.work_group_size, t.items_per_thread, t.groups, cli_form_name(t.form));
    } else {
        printf("\nlibclprim picks no device: %s\n", clprim_last_error(NULL));
    }
    clprim_release(ctx);
    return ctx ? 0 : 1;
}
