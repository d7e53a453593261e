/* The last work-group of a launch to finish: it alone sees every other
 * group's results, and folds them in the same launch, where a second launch of
 * one group would cost a launch's latency (some 10 us on a GPU). Each group
 * publishes its result as a record (block/lookback.cl), then counts itself
 * finished, and whichever counts last reads the records.
 *
 * Only records carry results here: OpenCL 1.2 orders no write of one
 * work-group before another's view of the count, and on an H100 a last group
 * that read counts other groups had added with atomics (a histogram, the
 * radix sort's digit counts) sometimes missed some. A record's stamp says it
 * has arrived; the last group waits for each one, which its writer, finished
 * already, has sent, so nothing waits on a work-group that may not run.
 *
 * The counter is word 1 of the context's records buffer, zero when a launch
 * starts: the last group sets it back to zero. */
#ifndef CLPRIM_BLOCK_LAST_GROUP_CL
#define CLPRIM_BLOCK_LAST_GROUP_CL

#include "block/lookback.cl"

/* Called by every work-item of the group once its record is published;
 * returns non-zero in every work-item of the last group. */
int last_group_done(__global ulong *records, __local uint *flag)
{
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* the group's work, before it counts itself finished */
    if (get_local_id(0) == 0) {
        volatile __global uint *finished = (volatile __global uint *)(records + 1);
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        const uint before = atomic_inc(finished);
        const int last = before == get_num_groups(0) - 1;
        if (last)
            atomic_xchg(finished, 0u);
        *flag = last;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int last = *flag;
    if (last)
        mem_fence(CLK_GLOBAL_MEM_FENCE); /* the others' results, read after the count */
    return last;
}

#endif /* CLPRIM_BLOCK_LAST_GROUP_CL */
