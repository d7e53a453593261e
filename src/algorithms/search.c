/* Vectorized binary search (cl/search.cl): each needle's lower or upper bound
 * among keys sorted in the radix sort's order, one launch. */
#include "radix_sort.h"

#define SEARCH_FILE "search.cl"

static void search_program(const clprim_context *ctx, const clprim_type_info *key, clprim_program *p)
{
    clprim_program_begin(ctx, p, "search", SEARCH_FILE, &ctx->tuning, NULL, -1);
    clprim_options_add(&p->options, "-DKEY=%s", key->name);
}

clprim_status clprim_search_sorted(clprim_context *ctx, clprim_type key_type, const clprim_sort_order *order,
                                   int upper, cl_mem sorted, size_t sorted_offset, size_t n, cl_mem needles,
                                   size_t needles_offset, size_t m, cl_mem result, size_t result_offset,
                                   cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clprim_search_sorted";
    clprim_sort_spec spec;
    clprim_region keys_bytes, needle_bytes, out;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_sort_order(ctx, fn, key_type, order, &spec);
    const clprim_type_info *key = clprim_type_info_of(key_type);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "sorted", sorted, sorted_offset, n, key->size, CLPRIM_READS, &keys_bytes);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "needles", needles, needles_offset, m, key->size, CLPRIM_READS, &needle_bytes);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_buffer(ctx, "result", result, result_offset, m, sizeof(cl_ulong), CLPRIM_WRITES, &out);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "sorted", &keys_bytes, "result", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_disjoint(ctx, fn, "needles", &needle_bytes, "result", &out, 0);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s != CLPRIM_SUCCESS)
        return s;
    clprim_plan plan;
    clprim_plan_begin(&plan, "search");
    clprim_program program;
    search_program(ctx, key, &program);
    const unsigned search_cl = clprim_plan_program(&plan, &program);
    if (m > 0) {
        const cl_ulong keys_offset = sorted_offset, count = n, needles_at = needles_offset, needle_count = m,
                       result_at = result_offset;
        const cl_uint side = upper != 0, descending = spec.descending != 0, begin_bit = spec.begin_bit,
                      end_bit = spec.end_bit;
        CLPRIM_PLAN_LAUNCH(&plan, search_cl, "search_sorted", clprim_fill_groups(&ctx->tuning, m), CLPRIM_ARG(sorted),
                           CLPRIM_ARG(keys_offset), CLPRIM_ARG(count), CLPRIM_ARG(needles), CLPRIM_ARG(needles_at),
                           CLPRIM_ARG(needle_count), CLPRIM_ARG(result), CLPRIM_ARG(result_at), CLPRIM_ARG(side),
                           CLPRIM_ARG(descending), CLPRIM_ARG(begin_bit), CLPRIM_ARG(end_bit));
    }
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

/* ---- Descriptor ---- */

static void search_variants(clprim_context *ctx, clprim_variant_walk *walk, clprim_type t,
                            const clprim_type_info *type)
{
    (void)t;
    if (!type->is_sort_key)
        return;
    clprim_program p;
    search_program(ctx, type, &p);
    clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
}

const clprim_primitive clprim_search_primitive = {"search", search_variants, NULL};
