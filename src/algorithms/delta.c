/* Delta packing (cl/delta.cl): a measure of each block, the scan of the
 * blocks' sizes into their starts, and the packing; the unpack is one
 * launch. One program per element size: elements are handled as bits. */
#include "internal.h"

#include <stdint.h>

#define DELTA_FILE "delta.cl"
#define HEADER_WORDS 6 /* cl/delta.cl's, and clprim.h's packed form */

static void delta_program(const clprim_context *ctx, size_t element_bytes, clprim_program *p)
{
    clprim_program_begin(ctx, p, "delta packing", DELTA_FILE, &ctx->tuning, NULL, -1);
    clprim_options_add(&p->options, "-DWORD_BYTES=%zu -DDELTA_BLOCK=%d", element_bytes, CLPRIM_DELTA_BLOCK);
}

static size_t blocks_of(size_t n)
{
    return n / CLPRIM_DELTA_BLOCK + (n % CLPRIM_DELTA_BLOCK != 0);
}

size_t clprim_delta_packed_room(clprim_type t, size_t n)
{
    const clprim_type_info *type = clprim_type_info_of(t);
    if (!type)
        return 0;
    const size_t bits = 8 * type->size, blocks = blocks_of(n);
    /* n * bits / 32 without overflowing: whole groups of 32 elements, then the rest. */
    const size_t whole = n / 32, rest = (n % 32 * bits + 31) / 32;
    if (whole > (SIZE_MAX - rest) / bits || blocks > (SIZE_MAX - rest - whole * bits) / (HEADER_WORDS + 1))
        return SIZE_MAX; /* no buffer holds it: the pack fails with CLPRIM_BUFFER_TOO_SMALL */
    return (HEADER_WORDS + 1) * blocks + whole * bits + rest;
}

/* A known type, as bits: doubles need no fp64. */
static clprim_status check_bits_type(clprim_context *ctx, const char *fn, clprim_type t,
                                     const clprim_type_info **type)
{
    *type = clprim_type_info_of(t);
    return *type ? CLPRIM_SUCCESS : clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: unknown clprim_type %d", fn, (int)t);
}

/* Work-groups for the blocks of n elements: a block a group, up to the
 * element-wise grid. */
static size_t block_groups(const clprim_context *ctx, size_t n)
{
    const size_t blocks = blocks_of(n), grid = clprim_fill_groups(&ctx->tuning, n);
    return blocks < grid ? (blocks ? blocks : 1) : grid;
}

clprim_status clprim_delta_pack(clprim_context *ctx, clprim_type t, cl_mem src, size_t src_offset, size_t n,
                                cl_mem packed, size_t packed_offset, cl_mem size, size_t size_offset,
                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_delta_pack";
    const clprim_type_info *type = NULL;
    clprim_region in, out, counted;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = check_bits_type(ctx, fn, t, &type);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "src", src, src_offset, n, type->size, CLPRIM_READS, &in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "packed", packed, packed_offset, clprim_delta_packed_room(t, n),
                                sizeof(cl_uint), CLPRIM_WRITES, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "src", &in, "packed", &out, 0);
    if (s == CLPRIM_SUCCESS && size)
        s = clprim_check_buffer(ctx, "size", size, size_offset, 1, sizeof(cl_ulong), CLPRIM_WRITES, &counted);
    if (s == CLPRIM_SUCCESS && size)
        s = clprim_check_disjoint(ctx, fn, "src", &in, "size", &counted, 0);
    if (s == CLPRIM_SUCCESS && size)
        s = clprim_check_disjoint(ctx, fn, "packed", &out, "size", &counted, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_plan plan;
    clprim_plan_begin(&plan, "delta packing");
    clprim_program program;
    delta_program(ctx, type->size, &program);
    const unsigned delta_cl = clprim_plan_program(&plan, &program);
    const size_t blocks = blocks_of(n), groups = block_groups(ctx, n);
    const cl_ulong src_at = src_offset, count = n, packed_at = packed_offset, size_at = size_offset;
    const cl_uint has_size = size != NULL;
    cl_mem size_buffer = size ? size : packed; /* never written without a size */
    clprim_layout *l = &plan.scratch;
    const cl_ulong sizes = clprim_layout_part(l, blocks * sizeof(cl_ulong)) / 8;
    const cl_ulong steps = clprim_layout_part(l, blocks * sizeof(cl_ulong)) / 8;
    const cl_ulong widths = clprim_layout_part(l, blocks * sizeof(cl_uint)) / 8;
    if (n > 0) {
        const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM);
        CLPRIM_PLAN_LAUNCH(&plan, delta_cl, "delta_measure", groups, CLPRIM_ARG(src), CLPRIM_ARG(src_at),
                           CLPRIM_ARG(count), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(sizes), CLPRIM_ARG(steps),
                           CLPRIM_ARG(widths));
        clprim_plan_scan(ctx, &plan, clprim_type_info_of(CLPRIM_UINT64), &sum, 1, NULL, 0, NULL, sizes, NULL, sizes,
                         blocks);
    }
    if (n > 0 || size)
        CLPRIM_PLAN_LAUNCH(&plan, delta_cl, "delta_pack", groups, CLPRIM_ARG(src), CLPRIM_ARG(src_at),
                           CLPRIM_ARG(count), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(sizes), CLPRIM_ARG(steps),
                           CLPRIM_ARG(widths), CLPRIM_ARG(packed), CLPRIM_ARG(packed_at), CLPRIM_ARG(size_buffer),
                           CLPRIM_ARG(size_at), CLPRIM_ARG(has_size));
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_delta_unpack(clprim_context *ctx, clprim_type t, cl_mem packed, size_t packed_offset,
                                  size_t packed_words, size_t n, cl_mem dst, size_t dst_offset,
                                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_delta_unpack";
    const clprim_type_info *type = NULL;
    clprim_region in, out;
    const size_t blocks = blocks_of(n);
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = check_bits_type(ctx, fn, t, &type);
    if (s == CLPRIM_SUCCESS && packed_words / HEADER_WORDS < blocks)
        s = clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                        "%s: packed_words %zu is fewer than the headers of %zu elements take (%zu blocks of %d "
                        "words)",
                        fn, packed_words, n, blocks, HEADER_WORDS);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "packed", packed, packed_offset, packed_words, sizeof(cl_uint), CLPRIM_READS,
                                &in);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "dst", dst, dst_offset, n, type->size, CLPRIM_WRITES, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "packed", &in, "dst", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_plan plan;
    clprim_plan_begin(&plan, "delta unpacking");
    clprim_program program;
    delta_program(ctx, type->size, &program);
    const unsigned delta_cl = clprim_plan_program(&plan, &program);
    const cl_ulong packed_at = packed_offset, available = packed_words, count = n, dst_at = dst_offset;
    if (n > 0)
        CLPRIM_PLAN_LAUNCH(&plan, delta_cl, "delta_unpack", block_groups(ctx, n), CLPRIM_ARG(packed),
                           CLPRIM_ARG(packed_at), CLPRIM_ARG(available), CLPRIM_ARG(count), CLPRIM_ARG(dst),
                           CLPRIM_ARG(dst_at));
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

/* ---- Descriptor ---- */

static void delta_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    static const size_t sizes[] = {1, 4, 8};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        clprim_program p;
        delta_program(ctx, sizes[i], &p);
        clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
    }
}

const clprim_primitive clprim_delta_primitive = {"delta", NULL, delta_variants};
