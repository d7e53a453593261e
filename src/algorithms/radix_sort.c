/* Radix sort: stable LSD sort, 8 bits of the key a pass (cl/radix_sort.cl).
 * One histogram of every pass's digits, then one plan on the device (digit
 * places, passes to skip, the buffers each pass reads and writes), then the
 * passes in the tuning's form, then a copy to the output when the route ends
 * elsewhere. Nothing is read back to the host, so the call never blocks. */
#include "radix_sort.h"

#include <stdint.h>
#include <string.h>

/* A one-sweep launch covers at most this many keys, so that a digit's count in
 * the look-back status (30 bits) cannot overflow. */
#define PORTION_LIMIT ((size_t)1 << 28)

static size_t key_bytes(clprim_type t)
{
    return clprim_type_info_of(t)->size;
}

/* Whether the sort's tiles are ranked by warps (cl/radix_sort.cl), where
 * there are warps, rather than by its counting passes
 * ($CLPRIM_TEST_WARP_RANKS=off turns them off). On the H200 at 2^26
 * (BENCHMARKS.md) 32-bit keys alone took 30% less time by warps than by the
 * counting passes (1.58 against 2.26 ms), 64-bit keys 27% less (4.84
 * against 6.59), pairs less again. Decided on the context's work-group size,
 * which warps keep. */
static int warp_ranks(const clprim_context *ctx)
{
    return clprim_warps(ctx, ctx->tuning.work_group_size) != NO_WARPS && !ctx->warp_ranks_off;
}

/* Bytes of a tile's word in local memory where warps rank: a tile's values
 * follow its keys through the same words. */
static size_t tile_word_bytes(const clprim_sort_spec *spec)
{
    const size_t kb = key_bytes(spec->key_type), vb = spec->value_bytes;
    return kb > vb ? kb : vb;
}

/* Whether the warps find a key's peers through masks in local memory rather
 * than by ballots (cl/radix_sort.cl, warp_rank_key): where a tile's words are
 * 4 bytes, whose tiles keep their length beside the masks. */
static int peer_masks(const clprim_context *ctx, const clprim_sort_spec *spec)
{
    return warp_ranks(ctx) && tile_word_bytes(spec) <= 4;
}

/* Local memory of the tile-ranking kernels (radix_scatter, radix_one_sweep). */
static cl_ulong local_bytes(const clprim_context *ctx, const clprim_tuning *t, const clprim_sort_spec *spec)
{
    const cl_ulong wg = t->work_group_size, tile = wg * t->items_per_thread;
    const cl_ulong padded = tile + tile / 32, hist = 8 * wg;
    const cl_ulong item = warp_ranks(ctx) ? tile_word_bytes(spec) : key_bytes(spec->key_type) + spec->value_bytes;
    const cl_ulong hist_words = peer_masks(ctx, spec) ? 2 * hist : hist + hist / 32;
    return padded * item + hist_words * 4 + wg * 8 + RADIX * (4 + 4 + 8 + 8);
}

/* The sort's shape for `items` keys a work-item, or the context's items where
 * the device's compiler is known to fail on that shape. The tile is then made
 * to fit in local memory: with keep_group, by taking one item fewer at a time
 * (the warps' ranking, whose table of counts has a row a warp, wants the
 * context's work-group); otherwise first by halving the work-group down to 128
 * work-items, then items_per_thread (on the H100, 2^28 pairs took 16.8 ms with
 * 128 x 16 and 20.4 ms with 256 x 8). The ranking holds a place in the tile
 * in 16 bits (the counting passes' counts are halves of a word, the warps keep
 * two ranks a register), so work-groups of more than one work-item take at
 * most 32768 keys a tile, and 128 items each (the kernels unroll their loops
 * over a work-item's items). */
static clprim_tuning fit_sort_shape(const clprim_context *ctx, const clprim_sort_spec *spec, size_t items,
                                    int keep_group)
{
    clprim_tuning t = ctx->tuning;
    t.items_per_thread = items;
    if (!clprim_shape_compiles(ctx, &t))
        t.items_per_thread = ctx->tuning.items_per_thread;
    while (t.work_group_size > 1 && t.items_per_thread > 1 &&
           (t.items_per_thread > 128 || t.work_group_size * t.items_per_thread > 32768))
        t.items_per_thread /= 2;
    while (keep_group && t.items_per_thread > 1 && local_bytes(ctx, &t, spec) > ctx->local_mem_size)
        t.items_per_thread--;
    while (t.work_group_size > 128 && local_bytes(ctx, &t, spec) > ctx->local_mem_size)
        t.work_group_size /= 2;
    while (t.items_per_thread > 1 && local_bytes(ctx, &t, spec) > ctx->local_mem_size)
        t.items_per_thread /= 2;
    return t;
}

/* Items a work-item where warps rank, out of the counting passes' `counting`
 * (24 on NVIDIA's GPUs), in 24ths by key width and value bytes: the fastest
 * shape of a sweep on the H200 at 2^26 (BENCHMARKS.md), all at work-groups of
 * 256. 32-bit keys with 4-byte values or none, whose warps find peers by
 * masks, take 21 (uint32 keys 1.58 ms against 1.62 with 20, 1.66 with 19 and
 * 1.64 with 22; pairs 2.49 against 2.53 with 20 and 2.57 with 19; past 21
 * NVIDIA's compiler gives the kernels 80 registers and more, and 23 is the
 * most that fits). By ballots, 64-bit keys alone take 15 (4.84 ms against
 * 5.20 with 13 and 5.08 with 12). Pairs, whose values wait in global memory
 * until the keys are out: 64-bit keys with uint32 or uint64 values 14 (7.05
 * and 7.69 ms against 7.40 and 8.06 with 12), uint32 keys with uint64 values
 * 13 (3.60 ms against 3.65 with 12 and 3.86 with 14). */
static size_t warp_items(const clprim_sort_spec *spec, size_t counting)
{
    static const unsigned in_24ths[2][3] = {
        /* values: none, 4 bytes, 8 bytes */
        {21, 21, 13}, /* 32-bit keys */
        {15, 14, 14}, /* 64-bit keys */
    };
    const size_t items = counting * in_24ths[key_bytes(spec->key_type) == 8][spec->value_bytes / 4] / 24;
    return items ? items : 1;
}

/* The sort's own shape. The counting passes take more items a work-item than
 * the context's tuning (the tuning table's sort_items_times, tuning.c), since
 * ranking a tile costs about the same whatever its length, so longer tiles pay
 * (a one-sweep pass at 2^28 keys took 2.5 ms on the H100 with 256 x 16, 3.3 ms
 * with 256 x 8, while the scan is fastest with 8); where that tile has to
 * shrink to fit, twice the context's items may keep a longer one (uint64 pairs
 * on the H100: 128 x 16 where three times would halve to 128 x 12), and the
 * longer is taken. Warps hold a work-item's keys in registers from their count
 * to their ranking, so they take fewer (warp_items) at the context's
 * work-group. *fits is 0 when not even one item a work-item fits. The kernels
 * are built and launched for this shape. */
static clprim_tuning sort_tuning(const clprim_context *ctx, const clprim_sort_spec *spec, int *fits)
{
    const size_t items = ctx->tuning.items_per_thread, times = clprim_sort_items_times(ctx);
    clprim_tuning t;
    if (warp_ranks(ctx)) {
        t = fit_sort_shape(ctx, spec, warp_items(spec, items * times), 1);
    } else {
        t = fit_sort_shape(ctx, spec, items * times, 0);
        const clprim_tuning twice = fit_sort_shape(ctx, spec, items * 2, 0);
        if (twice.work_group_size * twice.items_per_thread > t.work_group_size * t.items_per_thread)
            t = twice;
    }
    *fits = local_bytes(ctx, &t, spec) <= ctx->local_mem_size;
    return t;
}

/* Everything about one sort that follows from its shape. */
typedef struct {
    clprim_tuning tuning;
    size_t key_bytes, value_bytes;
    unsigned passes;
    size_t tile, portion_keys, portions, tiles_per_portion;
    clprim_split split; /* histogram, multi-pass and the final copy: one chunk a work-group */
    /* Its parts of the scratch, in bytes. */
    size_t tmp_keys, tmp_values, hist, route, bases, counts, status, status_bytes;
} sort_plan;

/* The sort's shape and its parts of the scratch, laid out in l. */
static sort_plan plan_sort(const clprim_context *ctx, const clprim_sort_spec *spec, size_t n, clprim_layout *l)
{
    sort_plan p;
    memset(&p, 0, sizeof p);
    int fits; /* the caller checked it (clprim_check_radix_sort_shape) */
    p.tuning = sort_tuning(ctx, spec, &fits);
    p.key_bytes = key_bytes(spec->key_type);
    p.value_bytes = spec->value_bytes;
    p.passes = (spec->end_bit - spec->begin_bit + RADIX_BITS - 1) / RADIX_BITS;
    p.tile = p.tuning.work_group_size * p.tuning.items_per_thread;
    /* Portions of as near equal tiles as can be: each launch clears the next
     * one's status words, a tile's worth a work-group, so a short last portion
     * (2^28 keys in tiles of 6144: 43690 tiles and one) would leave a few
     * work-groups to clear for tens of thousands (on the H100 the sort of 2^28
     * uint32 pairs took 36 ms so, 14.2 in two equal portions). */
    const size_t limit = ctx->sort_portion_keys && ctx->sort_portion_keys < PORTION_LIMIT ? ctx->sort_portion_keys
                                                                                          : PORTION_LIMIT;
    const size_t most = limit > p.tile ? limit / p.tile * p.tile : p.tile, tiles = (n + p.tile - 1) / p.tile;
    p.portions = n ? (n + most - 1) / most : 1;
    p.tiles_per_portion = (tiles + p.portions - 1) / p.portions;
    p.portion_keys = (p.tiles_per_portion ? p.tiles_per_portion : 1) * p.tile;
    p.split = clprim_split_range(&p.tuning, n);

    /* The multi-pass form's counts (their scans lay out their own partials);
     * the one-sweep form's two status areas, each the tile counter, then the
     * words: the histogram's launch clears the first, each pass the other for
     * the next. */
    const int one_sweep = ctx->tuning.form == CLPRIM_FORM_ONE_SWEEP;
    p.status_bytes = one_sweep ? 4 + p.tiles_per_portion * RADIX * 4 : 0;
    p.tmp_keys = clprim_layout_part(l, n * p.key_bytes);
    p.tmp_values = clprim_layout_part(l, n * p.value_bytes);
    p.hist = clprim_layout_part(l, p.passes * RADIX * 4);
    p.status = clprim_layout_part(l, 2 * p.status_bytes);
    p.route = clprim_layout_part(l, (MAX_PASSES + 1) * 4);
    p.bases = clprim_layout_part(l, p.passes * p.portions * RADIX * 8);
    p.counts = clprim_layout_part(l, one_sweep ? 0 : RADIX * p.split.groups * 8);
    return p;
}

/* Keys the CPU shape's scatter stages per digit before it writes them out with
 * streaming stores (cl/radix_sort.cl): a 64-byte line of keys, when 256 such
 * lines of keys and values fit in half the local memory; else 0, no staging. */
static size_t stage_keys(const clprim_context *ctx, const clprim_sort_spec *spec, const clprim_tuning *t)
{
    const size_t line = 64 / key_bytes(spec->key_type);
    if (t->work_group_size != 1 || (cl_ulong)RADIX * line * (key_bytes(spec->key_type) + spec->value_bytes) >
                                       ctx->local_mem_size / 2)
        return 0;
    return line;
}

static void program_for(const clprim_context *ctx, const clprim_sort_spec *spec, const clprim_tuning *shape,
                        clprim_program *p)
{
    clprim_program_begin(ctx, p, "radix sort", "radix_sort.cl", shape, NULL, -1);
    clprim_options_add(&p->options, "-DKEY=%s -DVALUE_BYTES=%zu -DSTAGE_KEYS=%zu",
                       clprim_type_info_of(spec->key_type)->name, spec->value_bytes, stage_keys(ctx, spec, shape));
    if (warp_ranks(ctx))
        clprim_options_add(&p->options, peer_masks(ctx, spec) ? "-DWARP_RANKS -DPEER_MASKS" : "-DWARP_RANKS");
}

int clprim_radix_sort_program(const clprim_context *ctx, const clprim_sort_spec *spec, clprim_program *p)
{
    int fits;
    const clprim_tuning shape = sort_tuning(ctx, spec, &fits);
    program_for(ctx, spec, &shape, p);
    return fits;
}

clprim_status clprim_check_radix_sort_shape(clprim_context *ctx, const clprim_sort_spec *spec)
{
    int fits;
    const clprim_tuning t = sort_tuning(ctx, spec, &fits);
    return fits ? CLPRIM_SUCCESS : clprim_fail_tile_too_large(ctx, "radix sort", &t, local_bytes(ctx, &t, spec));
}

clprim_status clprim_fail_tile_too_large(clprim_context *ctx, const char *what, const clprim_tuning *shape,
                                         cl_ulong bytes)
{
    return clprim_fail(ctx, CLPRIM_UNSUPPORTED,
                       "%s: a tile of work-groups of %zu needs %llu bytes of local memory even with one item each; "
                       "%s has %llu (lower work_group_size with clprim_set_tuning)",
                       what, shape->work_group_size, (unsigned long long)bytes, ctx->device_name,
                       (unsigned long long)ctx->local_mem_size);
}

/* A buffer (NULL: the scratch) and an offset in elements: one of the places
 * keys or values can be. */
typedef struct {
    cl_mem buf;
    cl_ulong offset;
} place;

/* The buffers every pass kernel takes: keys in, out, temporary, then values
 * likewise and whether the values are the indices. */
typedef struct {
    place keys[3], values[3];
    cl_int values_are_indices;
} route_buffers;

#define ROUTE_ARGS(r)                                                                                                  \
    CLPRIM_BUFFER_ARG((r).keys[0].buf), CLPRIM_ARG((r).keys[0].offset), CLPRIM_BUFFER_ARG((r).keys[1].buf),            \
        CLPRIM_ARG((r).keys[1].offset), CLPRIM_BUFFER_ARG((r).keys[2].buf), CLPRIM_ARG((r).keys[2].offset)
#define VALUE_ARGS(r)                                                                                                  \
    CLPRIM_BUFFER_ARG((r).values[0].buf), CLPRIM_ARG((r).values[0].offset), CLPRIM_BUFFER_ARG((r).values[1].buf),      \
        CLPRIM_ARG((r).values[1].offset), CLPRIM_BUFFER_ARG((r).values[2].buf), CLPRIM_ARG((r).values[2].offset),      \
        CLPRIM_ARG((r).values_are_indices)

/* Zeroes `words` words of the scratch from byte `offset`, with at most the
 * split's work-groups. */
static void plan_clear(clprim_plan *plan, unsigned program, const sort_plan *p, size_t offset, size_t words)
{
    const cl_ulong at = offset / 4, count = words;
    const cl_int zero = 0;
    const size_t wanted = (words + p->tuning.work_group_size - 1) / p->tuning.work_group_size;
    const size_t groups = wanted < p->split.groups ? wanted : p->split.groups;
    CLPRIM_PLAN_LAUNCH(plan, program, "fill_words", groups ? groups : 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(at),
                       CLPRIM_ARG(count), CLPRIM_ARG(zero));
}

/* Which bits a pass sorts on, and where its route word is. */
typedef struct {
    cl_ulong route_index;
    cl_uint shift, mask;
} pass_digit;

static pass_digit digit_of_pass(const sort_plan *p, const clprim_sort_spec *spec, cl_uint pass)
{
    pass_digit d;
    d.route_index = p->route / 4 + pass;
    d.shift = spec->begin_bit + RADIX_BITS * pass;
    const cl_uint width = spec->end_bit - d.shift < RADIX_BITS ? spec->end_bit - d.shift : RADIX_BITS;
    d.mask = (1u << width) - 1;
    return d;
}

/* The passes of the multi-pass form: count, scan of the counts, scatter. */
static void plan_multi_pass(const clprim_context *ctx, clprim_plan *plan, unsigned program, const sort_plan *p,
                            const clprim_sort_spec *spec, const route_buffers *r, size_t n)
{
    const cl_ulong counts_off = p->counts / 8, count_n = n;
    const size_t ncounts = RADIX * p->split.groups;
    const cl_uint descending = spec->descending != 0;
    const clprim_combine sum = clprim_combine_builtin(CLPRIM_SUM);
    for (cl_uint pass = 0; pass < p->passes; pass++) {
        const pass_digit d = digit_of_pass(p, spec, pass);
        CLPRIM_PLAN_LAUNCH(plan, program, "radix_count", p->split.groups, CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(d.route_index), ROUTE_ARGS(*r), CLPRIM_ARG(count_n), CLPRIM_ARG(p->split.chunk),
                           CLPRIM_ARG(d.shift), CLPRIM_ARG(d.mask), CLPRIM_ARG(descending), CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(counts_off));
        clprim_plan_scan(ctx, plan, clprim_type_info_of(CLPRIM_UINT64), &sum, 1, NULL, 0, NULL, counts_off, NULL,
                         counts_off, ncounts);
        CLPRIM_PLAN_LAUNCH(plan, program, "radix_scatter", p->split.groups, CLPRIM_SCRATCH_ARG,
                           CLPRIM_ARG(d.route_index), ROUTE_ARGS(*r), VALUE_ARGS(*r), CLPRIM_ARG(count_n),
                           CLPRIM_ARG(p->split.chunk), CLPRIM_ARG(d.shift), CLPRIM_ARG(d.mask),
                           CLPRIM_ARG(descending), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(counts_off));
    }
}

/* Tiles of the one-sweep launch of portion q. */
static cl_uint portion_tiles(const sort_plan *p, size_t n, size_t q)
{
    const size_t begin = q * p->portion_keys, keys = n - begin < p->portion_keys ? n - begin : p->portion_keys;
    return (cl_uint)((keys + p->tile - 1) / p->tile);
}

/* The passes of the one-sweep form: per pass and portion, one launch of a
 * work-group a tile. Launch k reads and writes status area k % 2 and clears
 * the other for launch k + 1. */
static void plan_one_sweep(clprim_plan *plan, unsigned program, const sort_plan *p, const clprim_sort_spec *spec,
                           const route_buffers *r, size_t n)
{
    const cl_ulong count_n = n;
    const cl_uint descending = spec->descending != 0;
    size_t k = 0;
    for (cl_uint pass = 0; pass < p->passes; pass++) {
        const pass_digit d = digit_of_pass(p, spec, pass);
        for (size_t q = 0; q < p->portions; q++, k++) {
            const cl_ulong begin = (cl_ulong)q * p->portion_keys;
            const cl_ulong bases_off = p->bases / 8 + ((cl_ulong)pass * p->portions + q) * RADIX;
            const cl_uint next_portion = q + 1 < p->portions;
            const cl_ulong status_off = (p->status + k % 2 * p->status_bytes) / 4;
            const cl_ulong next_status_off = (p->status + (k + 1) % 2 * p->status_bytes) / 4;
            const int last = pass + 1 == p->passes && !next_portion;
            const cl_uint next_tiles = last ? 0 : portion_tiles(p, n, next_portion ? q + 1 : 0);
            CLPRIM_PLAN_LAUNCH(plan, program, "radix_one_sweep", portion_tiles(p, n, q), CLPRIM_SCRATCH_ARG,
                               CLPRIM_ARG(d.route_index), ROUTE_ARGS(*r), VALUE_ARGS(*r), CLPRIM_ARG(count_n),
                               CLPRIM_ARG(begin), CLPRIM_ARG(d.shift), CLPRIM_ARG(d.mask), CLPRIM_ARG(descending),
                               CLPRIM_SCRATCH_ARG, CLPRIM_ARG(bases_off), CLPRIM_ARG(next_portion),
                               CLPRIM_SCRATCH_ARG, CLPRIM_ARG(status_off), CLPRIM_ARG(next_status_off),
                               CLPRIM_ARG(next_tiles));
        }
    }
}

void clprim_plan_radix_sort(const clprim_context *ctx, clprim_plan *plan, const clprim_sort_spec *spec,
                            cl_mem keys_in, cl_ulong keys_in_offset, cl_mem keys_out, cl_ulong keys_out_offset,
                            cl_mem values_in, cl_ulong values_in_offset, cl_mem values_out,
                            cl_ulong values_out_offset, size_t n)
{
    const sort_plan p = plan_sort(ctx, spec, n, &plan->scratch);
    const int one_sweep_form = ctx->tuning.form == CLPRIM_FORM_ONE_SWEEP;
    clprim_program program;
    program_for(ctx, spec, &p.tuning, &program);
    const unsigned radix_cl = clprim_plan_program(plan, &program);

    const int with_values = values_out != NULL;
    const cl_int keys_in_place = keys_in == keys_out && keys_in_offset == keys_out_offset;
    const cl_int values_in_place = with_values && values_in == values_out && values_in_offset == values_out_offset;
    /* Without values the value places are never read: any buffer fills them. */
    route_buffers r = {
        .keys = {{keys_in, keys_in_offset}, {keys_out, keys_out_offset}, {NULL, p.tmp_keys / p.key_bytes}},
        .values = {{NULL, 0}, {NULL, 0}, {NULL, 0}},
        .values_are_indices = with_values && !values_in,
    };
    if (with_values) {
        r.values[0] = (place){values_in ? values_in : values_out, values_in ? values_in_offset : 0};
        r.values[1] = (place){values_out, values_out_offset};
        r.values[2] = (place){NULL, p.tmp_values / p.value_bytes};
    }

    /* The plan on the device: which passes run and where each reads and
     * writes. The one-sweep form also needs every pass's digit counts, to
     * place each portion's first keys; the multi-pass form counts in its
     * passes and needs only which bits vary: one cheap read of the keys, where
     * the histogram would count every key once for each pass. */
    const cl_ulong count_n = n, hist_off = p.hist / 4, bases_off = p.bases / 8, route_off = p.route / 4;
    const cl_uint passes = p.passes;
    const cl_uint begin_bit = spec->begin_bit, end_bit = spec->end_bit, descending = spec->descending != 0;
    const cl_uint portions = (cl_uint)p.portions, in_place = keys_in_place || values_in_place;
    if (one_sweep_form) {
        /* The digit counts settle in the histogram's launch where they can
         * (a launch fewer); else they are zeroed before it. */
        const cl_int settle = clprim_settles(ctx, p.passes * RADIX);
        const cl_ulong status_off = p.status / 4, status_words = p.status_bytes / 4 + 1; /* and the next's counter */
        if (!settle)
            plan_clear(plan, radix_cl, &p, p.hist, p.passes * RADIX);
        CLPRIM_PLAN_LAUNCH(plan, radix_cl, "radix_histogram", p.split.groups, CLPRIM_BUFFER_ARG(keys_in),
                           CLPRIM_ARG(keys_in_offset), CLPRIM_ARG(count_n), CLPRIM_ARG(p.split.chunk),
                           CLPRIM_ARG(passes), CLPRIM_ARG(begin_bit), CLPRIM_ARG(end_bit), CLPRIM_ARG(descending),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(hist_off), CLPRIM_TALLIES_ARG, CLPRIM_ARG(settle),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(status_off), CLPRIM_ARG(status_words));
        CLPRIM_PLAN_LAUNCH(plan, radix_cl, "radix_plan", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(hist_off),
                           CLPRIM_ARG(count_n), CLPRIM_ARG(portions), CLPRIM_ARG(passes), CLPRIM_ARG(in_place),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(bases_off), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(route_off));
        plan_one_sweep(plan, radix_cl, &p, spec, &r, n);
    } else {
        plan_clear(plan, radix_cl, &p, p.hist, 4);
        CLPRIM_PLAN_LAUNCH(plan, radix_cl, "radix_bits", p.split.groups, CLPRIM_BUFFER_ARG(keys_in),
                           CLPRIM_ARG(keys_in_offset), CLPRIM_ARG(count_n), CLPRIM_ARG(p.split.chunk),
                           CLPRIM_ARG(descending), CLPRIM_SCRATCH_ARG, CLPRIM_ARG(hist_off));
        CLPRIM_PLAN_LAUNCH(plan, radix_cl, "radix_plan_bits", 1, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(hist_off),
                           CLPRIM_ARG(passes), CLPRIM_ARG(begin_bit), CLPRIM_ARG(end_bit), CLPRIM_ARG(in_place),
                           CLPRIM_SCRATCH_ARG, CLPRIM_ARG(route_off));
        plan_multi_pass(ctx, plan, radix_cl, &p, spec, &r, n);
    }

    const cl_ulong final_route = route_off + p.passes;
    CLPRIM_PLAN_LAUNCH(plan, radix_cl, "radix_copy_out", p.split.groups, CLPRIM_SCRATCH_ARG, CLPRIM_ARG(final_route),
                       ROUTE_ARGS(r), VALUE_ARGS(r), CLPRIM_ARG(count_n), CLPRIM_ARG(p.split.chunk),
                       CLPRIM_ARG(keys_in_place), CLPRIM_ARG(values_in_place));
}

/* ---- The public calls ---- */

clprim_status clprim_check_sort_order(clprim_context *ctx, const char *fn, clprim_type key_type,
                                      const clprim_sort_order *order, clprim_sort_spec *spec)
{
    const clprim_type_info *info = clprim_type_info_of(key_type);
    if (!info)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: key_type %d is not a clprim_type", fn, (int)key_type);
    if (!info->is_sort_key)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s takes int32, uint32, float, int64, uint64 and double keys, not %s", fn, info->label);
    const unsigned width = (unsigned)info->size * 8;
    spec->key_type = key_type;
    spec->descending = order && order->descending;
    spec->begin_bit = order ? order->begin_bit : 0;
    spec->end_bit = order && order->end_bit ? order->end_bit : width;
    if (spec->end_bit > width || spec->begin_bit >= spec->end_bit)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s: the bit range [%u, %u) of order is not a non-empty part of the %u bits of %s keys "
                           "(end_bit 0 means %u)",
                           fn, order->begin_bit, order->end_bit, width, info->label, width);
    return CLPRIM_SUCCESS;
}

clprim_status clprim_check_sort_value_type(clprim_context *ctx, const char *fn, clprim_type value_type, int indices,
                                           size_t n, clprim_sort_spec *spec)
{
    const clprim_type_info *info = clprim_type_info_of(value_type);
    if (!info)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: value_type %d is not a clprim_type", fn, (int)value_type);
    if (info->size != 4 && info->size != 8)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s: values are of 4 or 8 bytes; %s has %zu", fn, info->label,
                           info->size);
    if (indices && value_type != CLPRIM_UINT32 && value_type != CLPRIM_UINT64)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s: values_in is NULL, so the values are the indices: value_type must be uint32 or "
                           "uint64, not %s",
                           fn, info->label);
    if (indices && value_type == CLPRIM_UINT32 && (cl_ulong)n > (cl_ulong)UINT32_MAX + 1)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT,
                           "%s: values_in is NULL (values are the indices) but n = %zu has indices beyond uint32; "
                           "use value_type CLPRIM_UINT64",
                           fn, n);
    spec->value_bytes = info->size;
    return CLPRIM_SUCCESS;
}

clprim_status clprim_check_sort_buffers(clprim_context *ctx, const char *fn, clprim_type key_type, int pairs,
                                       clprim_type value_type, const clprim_sort_order *order, cl_mem *keys_in,
                                       size_t *keys_in_offset, cl_mem keys_out, size_t keys_out_offset,
                                       cl_mem *values_in, size_t *values_in_offset, cl_mem values_out,
                                       size_t values_out_offset, size_t n, clprim_sort_spec *spec,
                                       clprim_region *keys_written, clprim_region *values_written)
{
    clprim_status s = clprim_check_sort_order(ctx, fn, key_type, order, spec);
    if (s == CLPRIM_SUCCESS && pairs)
        s = clprim_check_sort_value_type(ctx, fn, value_type, *values_in == NULL, n, spec);
    const size_t kb = s == CLPRIM_SUCCESS ? key_bytes(key_type) : 0, vb = spec->value_bytes;
    clprim_region keys_read, values_read = {0};
    *values_written = (clprim_region){0};
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_src_dst(ctx, fn, "keys_in", keys_in, keys_in_offset, "keys_out", keys_out, keys_out_offset, n,
                                 kb, &keys_read, keys_written);
    if (pairs) {
        if (s == CLPRIM_SUCCESS && *values_in)
            s = clprim_check_src_dst(ctx, fn, "values_in", values_in, values_in_offset, "values_out", values_out,
                                     values_out_offset, n, vb, &values_read, values_written);
        else if (s == CLPRIM_SUCCESS)
            s = clprim_check_buffer(ctx, "values_out", values_out, values_out_offset, n, vb, CLPRIM_WRITES,
                                    values_written);
        /* An output may meet nothing but its own input in place. */
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, fn, "keys_out", keys_written, "values_out", values_written, 0);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, fn, "keys_out", keys_written, "values_in", &values_read, 0);
        if (s == CLPRIM_SUCCESS)
            s = clprim_check_disjoint(ctx, fn, "values_out", values_written, "keys_in", &keys_read, 0);
    }
    return s;
}

static clprim_status sort(clprim_context *ctx, const char *fn, clprim_type key_type, int pairs, clprim_type value_type,
                          const clprim_sort_order *order, cl_mem keys_in, size_t keys_in_offset, cl_mem keys_out,
                          size_t keys_out_offset, cl_mem values_in, size_t values_in_offset, cl_mem values_out,
                          size_t values_out_offset, size_t n, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event)
{
    clprim_sort_spec spec = {0};
    clprim_region keys_written, values_written;
    CLPRIM_ENTER(s, ctx, fn);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_sort_buffers(ctx, fn, key_type, pairs, value_type, order, &keys_in, &keys_in_offset, keys_out,
                                      keys_out_offset, &values_in, &values_in_offset, values_out, values_out_offset,
                                      n, &spec, &keys_written, &values_written);
    if (s == CLPRIM_SUCCESS)
        s = clprim_check_wait_list(ctx, fn, num_events_in_wait_list, event_wait_list);
    if (s == CLPRIM_SUCCESS && n > 0)
        s = clprim_check_radix_sort_shape(ctx, &spec);
    if (s != CLPRIM_SUCCESS)
        return s;

    clprim_plan plan;
    clprim_plan_begin(&plan, "radix sort");
    if (n > 0)
        clprim_plan_radix_sort(ctx, &plan, &spec, keys_in, keys_in_offset, keys_out, keys_out_offset,
                               pairs ? values_in : NULL, values_in_offset, pairs ? values_out : NULL,
                               values_out_offset, n);
    return clprim_execute(ctx, &plan, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_sort_keys(clprim_context *ctx, clprim_type key_type, const clprim_sort_order *order,
                               cl_mem keys_in, size_t keys_in_offset, cl_mem keys_out, size_t keys_out_offset, size_t n,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    return sort(ctx, "clprim_sort_keys", key_type, 0, CLPRIM_UINT32, order, keys_in, keys_in_offset, keys_out,
                keys_out_offset, NULL, 0, NULL, 0, n, num_events_in_wait_list, event_wait_list, event);
}

clprim_status clprim_sort_pairs(clprim_context *ctx, clprim_type key_type, clprim_type value_type,
                                const clprim_sort_order *order, cl_mem keys_in, size_t keys_in_offset, cl_mem keys_out,
                                size_t keys_out_offset, cl_mem values_in, size_t values_in_offset, cl_mem values_out,
                                size_t values_out_offset, size_t n, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *event)
{
    return sort(ctx, "clprim_sort_pairs", key_type, 1, value_type, order, keys_in, keys_in_offset, keys_out,
                keys_out_offset, values_in, values_in_offset, values_out, values_out_offset, n, num_events_in_wait_list,
                event_wait_list, event);
}

/* ---- Descriptor ---- */

void clprim_walk_sort_variants(clprim_context *ctx, clprim_variant_walk *walk,
                               int (*program_of)(const clprim_context *, const clprim_sort_spec *, clprim_program *))
{
    const clprim_type_info *type;
    for (clprim_type t = 0; (type = clprim_type_info_of(t)); t++)
        for (size_t value_bytes = 0; value_bytes <= 8 && type->is_sort_key; value_bytes += 4) {
            const clprim_sort_spec spec = {t, value_bytes, 0, 0, 32};
            clprim_program p;
            if (program_of(ctx, &spec, &p))
                clprim_walk_variant(walk, CLPRIM_SUCCESS, &p);
            else
                clprim_program_end(&p);
        }
}

/* Keys are sorted as bits, so doubles need no fp64. */
static void radix_sort_variants(clprim_context *ctx, clprim_variant_walk *walk)
{
    clprim_walk_sort_variants(ctx, walk, clprim_radix_sort_program);
}

const clprim_primitive clprim_radix_sort_primitive = {"radix_sort", NULL, radix_sort_variants};
