/* How the multi-work-group kernels split their work, per device class.
 *
 * One table, ordered from the most specific class to the default. Each entry
 * carries the measurement that chose it (see BENCHMARKS.md for the runs).
 * groups_per_cu multiplies the device's compute units to give the grid size. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *vendor;       /* substring of CL_DEVICE_VENDOR, NULL for any */
    cl_device_type type;      /* CL_DEVICE_TYPE_ALL for any */
    size_t work_group_size;
    size_t items_per_thread;
    size_t groups_per_cu;
    clprim_form form;         /* the radix sort's form */
    int plain_status_words;   /* one-sweep status words by volatile loads and stores (cl/block/lookback.cl) */
    size_t sort_items_times;  /* the radix sort's items a work-item, in items_per_thread (radix_sort.c) */
} tuning_entry;

static const tuning_entry table[] = {
    /* H100 (BENCHMARKS.md, v2): 256 x 8 x 4 per SM gave scan 1.57 and reduce
     * 0.50 of a copy at 2^28 int32; of eight other shapes swept, none was better
     * by more than the noise (wg 128-512, items 4-16, 2-8 groups per SM); 16
     * items took scan to 1.71 and compaction to 1.76. The radix sort ranks
     * three times the items (radix_sort.c): 24 there; at 2^26 keys 16 took
     * 2.83 ms (uint32), 4.21 (pairs), 7.68 (uint64), 24 took 2.62, 3.58 and 6.86
     * (where warps rank pairs and 64-bit keys they take fewer, radix_sort.c).
     * Its one-sweep pass took 0.5 ms less at 2^28 keys with volatile status
     * words than with atomics. */
    {"NVIDIA", CL_DEVICE_TYPE_GPU, 256, 8, 4, CLPRIM_FORM_ONE_SWEEP, 1, 3},
    /* AMD wavefronts are 64 wide; 256-wide groups are four wavefronts. Not yet
     * measured on AMD hardware: the NVIDIA shape is the starting point. */
    {"Advanced Micro Devices", CL_DEVICE_TYPE_GPU, 256, 8, 4, CLPRIM_FORM_MULTI_PASS, 0, 2},
    {"AMD", CL_DEVICE_TYPE_GPU, 256, 8, 4, CLPRIM_FORM_MULTI_PASS, 0, 2},
    /* CPUs (PoCL): a work-group runs as a loop on one core. One work-item per
     * group selects the kernels' sequential CPU path (WG == 1); items sets only
     * the granularity of the chunks. 16 groups per core: PoCL's threads take
     * groups in chunks (1 + remaining / threads at a time in older releases),
     * so with one group per core a thread can get two while another gets none;
     * with 16 the last chunks even out. On 16 Xeon cores at 2^26 int32, 16
     * groups -> 256: reduce 5.5 -> 4.4 ms, scan 14.2 -> 11.7 ms. */
    {NULL, CL_DEVICE_TYPE_CPU, 1, 1024, 16, CLPRIM_FORM_MULTI_PASS, 0, 2},
    /* Anything else: a conservative GPU shape. */
    {NULL, CL_DEVICE_TYPE_ALL, 128, 4, 4, CLPRIM_FORM_MULTI_PASS, 0, 2},
};

/* Shapes that a driver's kernel compiler is known to abort on (killing the
 * calling process at the first launch): refused like any shape the device
 * cannot run. tests/test_shapes.c runs every kernel at every shape accepted. */
typedef struct {
    const char *platform; /* substring of CL_PLATFORM_NAME */
    cl_device_type type;
    size_t work_group_size;
    size_t min_items;     /* from this items_per_thread up */
    const char *why;
} shape_defect;

static const shape_defect shape_defects[] = {
    /* PoCL 3.1: an assertion in its parallel-region pass ("exit != NULL") when
     * compaction's scatter kernel is built for two work-items of two or more
     * elements each. */
    {"Portable Computing Language", CL_DEVICE_TYPE_CPU, 2, 2, "PoCL's kernel compiler aborts on this shape"},
};

static const shape_defect *find_shape_defect(const clprim_context *ctx, const clprim_tuning *t)
{
    for (size_t i = 0; i < sizeof shape_defects / sizeof shape_defects[0]; i++) {
        const shape_defect *d = &shape_defects[i];
        if (strstr(ctx->platform_name, d->platform) && (ctx->device_type & d->type) && t->work_group_size == d->work_group_size &&
            t->items_per_thread >= d->min_items)
            return d;
    }
    return NULL;
}

int clprim_shape_compiles(const clprim_context *ctx, const clprim_tuning *t)
{
    return find_shape_defect(ctx, t) == NULL;
}

static int is_power_of_two(size_t x)
{
    return x && !(x & (x - 1));
}

/* Local memory the scan kernel needs: a padded tile (PADDED_TILE in
 * cl/block/element.cl) and the block scan's two values per work-item
 * (SCAN_SLOTS in cl/block/reduce_scan.cl), at the widest element size. */
cl_ulong clprim_local_bytes_for(const clprim_tuning *t, size_t element_bytes)
{
    const cl_ulong tile = (cl_ulong)t->work_group_size * t->items_per_thread;
    return (tile + tile / 32) * element_bytes + 2 * t->work_group_size * 8u;
}

cl_ulong clprim_local_bytes_needed(const clprim_tuning *t)
{
    return clprim_local_bytes_for(t, 8);
}

/* The table entry of the context's device class. */
static const tuning_entry *entry_for(const clprim_context *ctx)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const tuning_entry *c = &table[i];
        if (c->vendor && !strstr(ctx->device_vendor, c->vendor))
            continue;
        if (c->type != CL_DEVICE_TYPE_ALL && !(ctx->device_type & c->type))
            continue;
        return c;
    }
    return &table[sizeof table / sizeof table[0] - 1];
}

int clprim_plain_status_words(const clprim_context *ctx)
{
    return entry_for(ctx)->plain_status_words;
}

size_t clprim_sort_items_times(const clprim_context *ctx)
{
    return entry_for(ctx)->sort_items_times;
}

int clprim_warps(const clprim_context *ctx, size_t wg)
{
    if (wg % 32 != 0 || ctx->warps_test == WARPS_OFF)
        return NO_WARPS;
    if (ctx->warps_test == WARPS_EMULATED)
        return EMULATED_WARPS;
    return ctx->has_warp_ptx ? PTX_WARPS : NO_WARPS;
}

clprim_tuning clprim_default_tuning(const clprim_context *ctx)
{
    const tuning_entry *e = entry_for(ctx);
    clprim_tuning t = {e->work_group_size, e->items_per_thread, e->groups_per_cu * ctx->compute_units, e->form};
    /* Shrink to what the device allows, keeping powers of two. */
    while (t.work_group_size > 1 && t.work_group_size > ctx->max_work_group_size)
        t.work_group_size /= 2;
    while (t.items_per_thread > 1 && clprim_local_bytes_needed(&t) > ctx->local_mem_size)
        t.items_per_thread /= 2;
    while (t.work_group_size > 1 && clprim_local_bytes_needed(&t) > ctx->local_mem_size)
        t.work_group_size /= 2;
    return t;
}

clprim_status clprim_resolve_tuning(clprim_context *ctx, const clprim_tuning *want,
                                    const clprim_tuning *base, clprim_tuning *out)
{
    clprim_tuning t = *base;
    if (want->work_group_size)
        t.work_group_size = want->work_group_size;
    if (want->items_per_thread)
        t.items_per_thread = want->items_per_thread;
    if (want->groups)
        t.groups = want->groups;
    if (want->form)
        t.form = want->form;
    if (t.form != CLPRIM_FORM_MULTI_PASS && t.form != CLPRIM_FORM_ONE_SWEEP)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "form %d is not a clprim_form", (int)t.form);
    if (!is_power_of_two(t.work_group_size) || t.work_group_size > ctx->max_work_group_size)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "work_group_size %zu must be a power of two no larger than %zu on %s",
                           t.work_group_size, ctx->max_work_group_size, ctx->device_name);
    /* A tile of one element would give the partials as many groups as elements,
     * and the recursion over partials would never end. */
    if (t.work_group_size * t.items_per_thread < 2)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "work_group_size %zu x items_per_thread %zu: a tile must hold at least 2 elements",
                           t.work_group_size, t.items_per_thread);
    if (t.items_per_thread > 1024)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "items_per_thread %zu is above 1024",
                           t.items_per_thread);
    if (t.groups > 65536)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "groups %zu is above 65536", t.groups);
    if (clprim_local_bytes_needed(&t) > ctx->local_mem_size)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "work_group_size %zu x items_per_thread %zu needs %llu bytes of local memory; "
                           "%s has %llu",
                           t.work_group_size, t.items_per_thread,
                           (unsigned long long)clprim_local_bytes_needed(&t), ctx->device_name,
                           (unsigned long long)ctx->local_mem_size);
    const shape_defect *defect = find_shape_defect(ctx, &t);
    if (defect)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "work_group_size %zu x items_per_thread %zu: %s (%s); use items_per_thread 1 or "
                           "another work_group_size",
                           t.work_group_size, t.items_per_thread, defect->why, ctx->platform_name);
    *out = t;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_parse_tuning(clprim_context *ctx, const char *text, const clprim_tuning *base,
                                  clprim_tuning *out)
{
    clprim_tuning want = {0, 0, 0, CLPRIM_FORM_DEFAULT};
    const char *p = text;
    while (*p) {
        char key[16], word[16];
        unsigned long long value;
        int used = 0;
        if (sscanf(p, "form=%15[a-z-]%n", word, &used) == 1) {
            if (!strcmp(word, "multi-pass"))
                want.form = CLPRIM_FORM_MULTI_PASS;
            else if (!strcmp(word, "one-sweep"))
                want.form = CLPRIM_FORM_ONE_SWEEP;
            else
                return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                                   "unknown form \"%s\" in tuning \"%s\" (known: multi-pass, one-sweep)", word,
                                   text);
        } else if (sscanf(p, "%15[a-z_]=%n", key, &used) != 1 || used == 0 || p[used] < '0' || p[used] > '9' ||
                   sscanf(p, "%15[a-z_]=%llu%n", key, &value, &used) != 2 || value == 0) {
            /* (A digit must follow '=': %llu alone takes a sign, and wraps "-8".) */
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "cannot read tuning \"%s\" at \"%s\": expected wg=N,items=N,groups=N with N > 0 "
                               "and form=multi-pass|one-sweep",
                               text, p);
        } else if (!strcmp(key, "wg")) {
            want.work_group_size = (size_t)value;
        } else if (!strcmp(key, "items")) {
            want.items_per_thread = (size_t)value;
        } else if (!strcmp(key, "groups")) {
            want.groups = (size_t)value;
        } else {
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                               "unknown tuning key \"%s\" in \"%s\" (known: wg, items, groups, form)", key, text);
        }
        p += used;
        if (*p == ',')
            p++;
        else if (*p)
            return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "unexpected \"%s\" in tuning \"%s\"", p, text);
    }
    return clprim_resolve_tuning(ctx, &want, base, out);
}

clprim_tuning clprim_one_sweep_shape(const clprim_context *ctx, const clprim_tuning *tuning, size_t element_bytes)
{
    /* A tile's look-back stalls its whole work-group for about the same time
     * whatever the tile's size. Larger tiles mean fewer look-backs, and
     * narrower groups leave more of them running through each stall: on an
     * H100 at 2^28 int32 the scan took 1.72 ms in tiles of 256 x 8, 1.09 in
     * 256 x 16, 0.93 in 128 x 32 (the multi-pass form 1.15; BENCHMARKS.md).
     * So: twice the tuning's tile, in half the work-items from 256 up; and
     * twice again for elements of 4 bytes or fewer, whose tile holds as many
     * bytes then (on an H200 at 2^28 int32, 128 x 64 took the exclusive scan
     * 0.710 ms against 0.745 in 128 x 32). The largest of these that fits the
     * local memory, else the tuning's. */
    clprim_tuning sweep = *tuning;
    if (tuning->work_group_size >= 256) {
        sweep.work_group_size /= 2;
        sweep.items_per_thread *= 4;
    } else if (tuning->work_group_size > 1) {
        sweep.items_per_thread *= 2;
    }
    if (tuning->work_group_size > 1 && element_bytes <= 4)
        sweep.items_per_thread *= 2;
    for (; sweep.work_group_size * sweep.items_per_thread > tuning->work_group_size * tuning->items_per_thread;
         sweep.items_per_thread /= 2)
        if (sweep.items_per_thread <= 1024 &&
            clprim_local_bytes_for(&sweep, element_bytes) + CLPRIM_LOOKBACK_LOCAL_BYTES <= ctx->local_mem_size &&
            !find_shape_defect(ctx, &sweep))
            return sweep;
    return *tuning;
}
