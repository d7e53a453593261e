/* The one-sweep form of scan and compaction (cl/block/lookback.cl): where it serves
 * a call, and the context's records of the tiles of one launch; and the
 * context's tallies, where a histogram's work-groups settle their counts. */
#include "internal.h"

int clprim_records_available(const clprim_context *ctx)
{
    return !ctx->records_absent && (clprim_plain_status_words(ctx) || ctx->has_int64_atomics);
}

int clprim_one_sweep_available(const clprim_context *ctx)
{
    return ctx->tuning.form == CLPRIM_FORM_ONE_SWEEP && clprim_records_available(ctx) &&
           clprim_local_bytes_needed(&ctx->tuning) + CLPRIM_LOOKBACK_LOCAL_BYTES <= ctx->local_mem_size;
}

int clprim_lookback_waits(const clprim_context *ctx)
{
    /* The table names one sweep the default only for devices that run every
     * started work-group to completion (NVIDIA GPUs); the waiting test runs
     * that code where work-groups run one at a time in start order (oclgrind),
     * so no wait ever spins. The reversed test order waits on tiles not
     * started yet, and the sparse one on records that never come, which only
     * the fallback ends. */
    return (ctx->default_tuning.form == CLPRIM_FORM_ONE_SWEEP || ctx->lookback_waiting) && !ctx->lookback_reversed &&
           !ctx->lookback_sparse;
}

int clprim_one_sweep_in_place(const clprim_context *ctx)
{
    /* Devices that run every started work-group to completion: those the
     * table names one-sweep for, and CPUs, which run a work-group as a loop
     * on one thread. */
    return clprim_one_sweep_available(ctx) &&
           (ctx->default_tuning.form == CLPRIM_FORM_ONE_SWEEP || (ctx->device_type & CL_DEVICE_TYPE_CPU));
}

size_t clprim_one_sweep_tiles(const clprim_tuning *shape, size_t n)
{
    const size_t tile = shape->work_group_size * shape->items_per_thread;
    const size_t tiles = n / tile + (n % tile != 0);
    return tiles <= UINT32_MAX ? tiles : 0; /* tile numbers are 32 bits */
}

/* A census's tiles wait for tiles that started after them: where those are
 * held back, it ends through the fallback, slowly. Four work-groups a compute
 * unit are resident on any GPU the library meets (on an H100, work-groups of
 * 128 with up to 128 registers a work-item). */
#define CENSUS_GROUPS_PER_CU 4

size_t clprim_census_tiles(const clprim_context *ctx, const clprim_tuning *shape, size_t n)
{
    const size_t tiles = clprim_one_sweep_tiles(shape, n);
    const int suits = shape->work_group_size > 1 && (uint64_t)n < ((uint64_t)1 << 32) &&
                      tiles <= (size_t)CENSUS_GROUPS_PER_CU * ctx->compute_units;
    return suits ? tiles : 0;
}

clprim_status clprim_lookback_records(clprim_context *ctx, const clprim_pass *clear, size_t tiles,
                                      size_t value_bytes, cl_mem *records, cl_uint *stamp)
{
    /* The tile counter, the finished groups' counter, then a record a tile: a
     * word a 32 bits of its value. */
    const size_t words = 2 + tiles * ((value_bytes + 3) / 4);
    const cl_mem before = ctx->lookback;
    clprim_status s = clprim_grow(ctx, &ctx->lookback, &ctx->lookback_bytes, words * sizeof(cl_ulong), records);
    if (s != CLPRIM_SUCCESS)
        return s;
    /* A stamp is 30 bits and 0 is what a cleared word holds: a new buffer, and
     * one whose stamps ran out, are cleared and start again at 1. */
    if (*records != before || ctx->lookback_stamp + 1 >= (1u << 30)) {
        const cl_ulong start = 0, all = ctx->lookback_bytes / sizeof(cl_uint);
        const cl_int zero = 0;
        s = CLPRIM_ENQUEUE(ctx, clear, clprim_fill_groups(&ctx->tuning, all), NULL, CLPRIM_ARG(*records),
                           CLPRIM_ARG(start), CLPRIM_ARG(all), CLPRIM_ARG(zero));
        if (s != CLPRIM_SUCCESS) {
            /* Its words are unknown now: the next call starts from a new one. */
            clReleaseMemObject(ctx->lookback);
            ctx->lookback = NULL;
            ctx->lookback_bytes = 0;
            return s;
        }
        ctx->lookback_stamp = 0;
    }
    *stamp = ++ctx->lookback_stamp;
    return CLPRIM_SUCCESS;
}

#define TALLY_WORDS 4096 /* the most bins a launch settles: 32 KiB a context */

int clprim_settles(const clprim_context *ctx, size_t bins)
{
    return ctx->has_int64_atomics && !ctx->records_absent && bins <= TALLY_WORDS;
}

clprim_status clprim_tallies(clprim_context *ctx, const clprim_pass *clear, cl_mem *tallies)
{
    if (!ctx->tallies) {
        const cl_ulong start = 0, all = 2 * TALLY_WORDS; /* in 32-bit words */
        const cl_int zero = 0;
        cl_int err;
        ctx->tallies = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, TALLY_WORDS * sizeof(cl_ulong), NULL,
                                      &err);
        if (err != CL_SUCCESS) {
            ctx->tallies = NULL;
            return clprim_fail_cl(ctx, err, "allocating the histograms' tallies");
        }
        const clprim_status s = CLPRIM_ENQUEUE(ctx, clear, clprim_fill_groups(&ctx->tuning, all), NULL,
                                               CLPRIM_ARG(ctx->tallies), CLPRIM_ARG(start), CLPRIM_ARG(all),
                                               CLPRIM_ARG(zero));
        if (s != CLPRIM_SUCCESS) {
            clReleaseMemObject(ctx->tallies);
            ctx->tallies = NULL;
            return s;
        }
    }
    *tallies = ctx->tallies;
    return CLPRIM_SUCCESS;
}
