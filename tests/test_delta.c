/* clprim_delta_pack and clprim_delta_unpack against a reference that writes
 * the packed form clprim.h describes one bit at a time: every type, data
 * ascending, descending, without order, arithmetic, constant, with wrapping
 * differences and floats' special values; sizes around the block; offsets and
 * sentinels; the size argument NULL; a form packed at one work-group shape
 * unpacked at others; damaged forms; and every bad argument. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

#define BLOCK CLPRIM_DELTA_BLOCK
#define HEADER 6

static const clprim_type types[] = {CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_INT64, CLPRIM_UINT64,
                                    CLPRIM_FLOAT, CLPRIM_DOUBLE, CLPRIM_UINT8};
#define TYPE_COUNT (sizeof types / sizeof types[0])

static size_t size_of(clprim_type t)
{
    return t == CLPRIM_UINT8 ? 1 : t == CLPRIM_INT64 || t == CLPRIM_UINT64 || t == CLPRIM_DOUBLE ? 8 : 4;
}

static uint64_t mask_of(size_t es)
{
    return es == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * es)) - 1;
}

static uint64_t get(const unsigned char *data, size_t es, size_t i)
{
    uint64_t x = 0;
    memcpy(&x, data + i * es, es);
    return x;
}

static void put(unsigned char *data, size_t es, size_t i, uint64_t x)
{
    memcpy(data + i * es, &x, es);
}

/* x as a signed number of es bytes. */
static int64_t as_signed(uint64_t x, size_t es)
{
    const unsigned shift = 64 - 8 * (unsigned)es;
    return shift ? (int64_t)(x << shift) >> shift : (int64_t)x;
}

/* ---- The reference: the packed form, one bit at a time ---- */

typedef struct {
    uint32_t *words;
    size_t bits; /* written so far, from the data's first word */
} bit_writer;

static void write_bits(bit_writer *w, uint64_t v, unsigned width)
{
    for (unsigned k = 0; k < width; k++, w->bits++)
        if (v >> k & 1)
            w->words[w->bits / 32] |= (uint32_t)1 << (w->bits % 32);
}

/* Packs n elements of es bytes into out (zeroed here); returns the words. */
static size_t reference_pack(const unsigned char *data, size_t es, size_t n, uint32_t *out, size_t room)
{
    const size_t blocks = (n + BLOCK - 1) / BLOCK;
    memset(out, 0, room * sizeof *out);
    bit_writer w = {out + HEADER * blocks, 0};
    for (size_t b = 0; b < blocks; b++) {
        const size_t first = b * BLOCK, count = n - first < BLOCK ? n - first : BLOCK;
        int64_t low = 0, high = 0;
        for (size_t j = 1; j < count; j++) {
            const int64_t d = as_signed(get(data, es, first + j) - get(data, es, first + j - 1), es);
            low = j == 1 || d < low ? d : low;
            high = j == 1 || d > high ? d : high;
        }
        const uint64_t spread = ((uint64_t)high - (uint64_t)low) & mask_of(es), step = (uint64_t)low & mask_of(es);
        unsigned width = 0;
        while (width < 64 && spread >> width)
            width++;
        w.bits = (w.bits + 31) / 32 * 32; /* each block starts on a word */
        const uint64_t start = w.bits / 32, x0 = get(data, es, first);
        uint32_t *h = out + HEADER * b;
        h[0] = (uint32_t)x0;
        h[1] = (uint32_t)(x0 >> 32);
        h[2] = (uint32_t)step;
        h[3] = (uint32_t)(step >> 32);
        h[4] = (uint32_t)start;
        h[5] = (uint32_t)width << 24 | (uint32_t)(start >> 32);
        for (size_t j = 0; j < count; j++) {
            const uint64_t v =
                j ? (get(data, es, first + j) - get(data, es, first + j - 1) - step) & mask_of(es) : 0;
            write_bits(&w, v, width);
        }
    }
    return HEADER * blocks + (w.bits + 31) / 32;
}

/* ---- Data ---- */

enum { ASCENDING, DESCENDING, UNORDERED, ARITHMETIC, CONSTANT, EXTREMES, FLOAT_SPECIALS, PATTERNS };
static const char *const pattern_names[] = {"ascending",  "descending", "unordered", "arithmetic",
                                            "constant",   "extremes",   "float specials"};

static void fill(clprim_type t, int pattern, unsigned char *data, size_t n, uint64_t *rng)
{
    const size_t es = size_of(t);
    const uint64_t mask = mask_of(es), gap = n ? mask / n / 2 + 1 : 1;
    uint64_t x = harness_rand(rng) & mask, step = harness_rand(rng) & mask;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        switch (pattern) {
        case ASCENDING: v = x += harness_rand(rng) % gap; break;
        case DESCENDING: v = x -= harness_rand(rng) % gap; break;
        case UNORDERED: v = harness_rand(rng); break;
        case ARITHMETIC: v = x + i * step; break;
        case CONSTANT: v = x; break;
        case EXTREMES: { /* neighbours at the ends of the range: differences that wrap */
            static const uint64_t ends[] = {0, 1, UINT64_MAX, 0x7fffffffffffffffull, 0x8000000000000000ull};
            v = harness_rand(rng) % 3 ? ends[harness_rand(rng) % 5] : harness_rand(rng);
            if (es == 4 && v >> 62 == 1)
                v = 0x7fffffff;
            if (es == 4 && v >> 63)
                v = v == UINT64_MAX ? 0xffffffff : 0x80000000;
            break;
        }
        default: { /* NaNs of both signs, infinities, signed zeros, among ascending floats */
            const unsigned pick = (unsigned)(harness_rand(rng) % 8);
            if (t == CLPRIM_FLOAT) {
                const float f[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.5f, (float)i};
                uint32_t u;
                memcpy(&u, &f[pick], 4);
                v = u;
            } else if (t == CLPRIM_DOUBLE) {
                const double f[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.5, (double)i};
                memcpy(&v, &f[pick], 8);
            } else {
                v = x += harness_rand(rng) % 3;
            }
        }
        }
        put(data, es, i, v & mask);
    }
}

/* ---- One pack and unpack against the reference ---- */

typedef struct {
    size_t src_at, packed_at, size_at, dst_at;
    int no_size;
} placing;

static void run_case(clprim_context *ctx, clprim_type t, int pattern, size_t n, const placing *p, uint64_t *rng)
{
    const size_t es = size_of(t), room = clprim_delta_packed_room(t, n), pad = 3;
    char what[200];
    snprintf(what, sizeof what, "%s %s n=%zu at %s (src %zu, packed %zu, size %zu%s, dst %zu)",
             reference_type_name(t), pattern_names[pattern], n, harness_tuning_text(ctx), p->src_at, p->packed_at,
             p->size_at, p->no_size ? " NULL" : "", p->dst_at);
    unsigned char *data = harness_malloc((p->src_at + n + pad) * es);
    memset(data, HARNESS_SENTINEL, (p->src_at + n + pad) * es);
    fill(t, pattern, data + p->src_at * es, n, rng);
    uint32_t *want = harness_malloc((room + 1) * sizeof *want);
    const size_t want_words = reference_pack(data + p->src_at * es, es, n, want, room + 1);
    CHECK(want_words <= room, "%s: the reference took %zu words, the room is %zu", what, want_words, room);

    cl_mem src = harness_buffer(ctx, (p->src_at + n + pad) * es, data);
    const size_t packed_words = p->packed_at + room + pad;
    cl_mem packed = harness_buffer(ctx, packed_words * 4, NULL);
    cl_mem size = harness_buffer(ctx, (p->size_at + 2) * 8, NULL);
    clprim_status s = clprim_delta_pack(ctx, t, src, p->src_at, n, packed, p->packed_at, p->no_size ? NULL : size,
                                        p->size_at, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: pack: %s", what, clprim_last_error(ctx));
    uint32_t *got = harness_malloc(packed_words * 4);
    cl_ulong sizes[64];
    harness_read(ctx, packed, 0, packed_words * 4, got);
    harness_read(ctx, size, 0, (p->size_at + 2) * 8, sizes);
    CHECK(harness_all_sentinel(got, p->packed_at * 4), "%s: wrote before packed_offset", what);
    CHECK(memcmp(got + p->packed_at, want, want_words * 4) == 0, "%s: the packed words differ from the reference",
          what);
    CHECK(harness_all_sentinel(got + p->packed_at + want_words, (room - want_words + pad) * 4),
          "%s: wrote past the %zu words it packed", what, want_words);
    if (p->no_size) {
        CHECK(harness_all_sentinel(sizes, (p->size_at + 2) * 8), "%s: wrote a size it was not given", what);
    } else {
        CHECK(sizes[p->size_at] == want_words, "%s: size %llu, the reference %zu", what,
              (unsigned long long)sizes[p->size_at], want_words);
        CHECK(harness_all_sentinel(sizes, p->size_at * 8) && harness_all_sentinel(&sizes[p->size_at + 1], 8),
              "%s: wrote beside the size", what);
    }

    /* Unpacked from exactly the words it packed. */
    cl_mem dst = harness_buffer(ctx, (p->dst_at + n + pad) * es, NULL);
    s = clprim_delta_unpack(ctx, t, packed, p->packed_at, want_words, n, dst, p->dst_at, 0, NULL, NULL);
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: unpack: %s", what, clprim_last_error(ctx));
    unsigned char *back = harness_malloc((p->dst_at + n + pad) * es);
    harness_read(ctx, dst, 0, (p->dst_at + n + pad) * es, back);
    CHECK(harness_all_sentinel(back, p->dst_at * es) && harness_all_sentinel(back + (p->dst_at + n) * es, pad * es),
          "%s: unpack wrote beside dst's elements", what);
    for (size_t i = 0; i < n; i++)
        CHECK(get(back + p->dst_at * es, es, i) == get(data + p->src_at * es, es, i),
              "%s: element %zu unpacked as %llx, was %llx", what, i,
              (unsigned long long)get(back + p->dst_at * es, es, i),
              (unsigned long long)get(data + p->src_at * es, es, i));
    cl_mem all[] = {src, packed, size, dst};
    for (size_t i = 0; i < 4; i++)
        clReleaseMemObject(all[i]);
    free(data);
    free(want);
    free(got);
    free(back);
}

static const size_t sizes[] = {0, 1, 2, 255, 256, 257, 511, 3000};

/* Every type (a test each), every pattern and size, offsets drawn. */
START_TEST(delta_every_type)
{
    const clprim_type t = types[_i];
    uint64_t rng = harness_rng(1200 + (unsigned)_i);
    FOR_EACH_DEVICE(ctx)
    {
        for (int pattern = 0; pattern < PATTERNS; pattern++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                const placing p = {harness_rand(&rng) % 5, harness_rand(&rng) % 7, harness_rand(&rng) % 3,
                                   harness_rand(&rng) % 5, (pattern + (int)k) % 5 == 0};
                run_case(ctx, t, pattern, sizes[k], &p, &rng);
            }
        const placing none = {0, 0, 0, 0, 0};
        run_case(ctx, t, ASCENDING, 100000 + harness_rand(&rng) % 5000, &none, &rng);
    }
}
END_TEST

/* The work-group shapes, small ones whose groups each take many blocks:
 * the same words at every shape. */
START_TEST(delta_shapes)
{
    static const size_t shapes[][3] = {{1, 4, 3}, {4, 2, 2}, {8, 1, 5}, {64, 2, 3}, {256, 1, 2}};
    uint64_t rng = harness_rng(1250);
    FOR_EACH_DEVICE(ctx)
    {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            if (harness_tune(ctx, &(clprim_tuning){shapes[s][0], shapes[s][1], shapes[s][2], 0}) !=
                CLPRIM_SUCCESS)
                continue; /* a shape the device cannot run */
            const placing p = {1, 2, 1, 3, 0};
            run_case(ctx, types[s % TYPE_COUNT], (int)(s % PATTERNS), 2000 + s * 300, &p, &rng);
            run_case(ctx, CLPRIM_UINT32, ASCENDING, 5000, &p, &rng);
        }
        harness_default_tuning(ctx);
    }
}
END_TEST

/* A form packed at one shape and unpacked at another, as between devices. */
START_TEST(delta_across_shapes)
{
    uint64_t rng = harness_rng(1260);
    const size_t n = 4000;
    FOR_EACH_DEVICE(ctx)
    {
        unsigned char *data = harness_malloc(n * 8), *back = harness_malloc(n * 8);
        fill(CLPRIM_INT64, DESCENDING, data, n, &rng);
        const size_t room = clprim_delta_packed_room(CLPRIM_INT64, n);
        cl_mem src = harness_buffer(ctx, n * 8, data), packed = harness_buffer(ctx, room * 4, NULL);
        cl_mem size = harness_buffer(ctx, 8, NULL), dst = harness_buffer(ctx, n * 8, NULL);
        harness_set_tuning(ctx, 4, 2, 3);
        ck_assert_int_eq(clprim_delta_pack(ctx, CLPRIM_INT64, src, 0, n, packed, 0, size, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        cl_ulong words = 0;
        harness_read(ctx, size, 0, 8, &words);
        harness_default_tuning(ctx);
        ck_assert_int_eq(clprim_delta_unpack(ctx, CLPRIM_INT64, packed, 0, words, n, dst, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, dst, 0, n * 8, back);
        ck_assert_msg(memcmp(back, data, n * 8) == 0, "packed at wg=4, unpacked at %s: the elements differ",
                      harness_tuning_text(ctx));
        cl_mem all[] = {src, packed, size, dst};
        for (size_t i = 0; i < 4; i++)
            clReleaseMemObject(all[i]);
        free(data);
        free(back);
    }
}
END_TEST

/* The room: the header's formula, 0 for an unknown type, and never below what
 * the worst data (no order, every width full) takes. */
START_TEST(delta_room)
{
    for (size_t k = 0; k < TYPE_COUNT; k++) {
        const size_t es = size_of(types[k]);
        for (size_t n = 0; n < 1100; n += 7) {
            const size_t blocks = (n + BLOCK - 1) / BLOCK;
            ck_assert_uint_eq(clprim_delta_packed_room(types[k], n), 7 * blocks + (n * 8 * es + 31) / 32);
        }
    }
    ck_assert_uint_eq(clprim_delta_packed_room((clprim_type)42, 100), 0);
    ck_assert_uint_eq(clprim_delta_packed_room(CLPRIM_UINT64, SIZE_MAX), SIZE_MAX);
    uint64_t rng = harness_rng(1270);
    for (size_t k = 0; k < TYPE_COUNT; k++) {
        const size_t es = size_of(types[k]), n = 1000 + harness_rand(&rng) % 600;
        unsigned char *data = harness_malloc(n * es);
        fill(types[k], EXTREMES, data, n, &rng);
        const size_t room = clprim_delta_packed_room(types[k], n);
        uint32_t *out = harness_malloc((room + 64) * 4);
        ck_assert_uint_le(reference_pack(data, es, n, out, room + 64), room);
        free(data);
        free(out);
    }
}
END_TEST

/* Damaged forms: any words, widths past the type's, starts past the end.
 * The unpack must run (writing some elements) and read nothing past
 * packed_words: the words after them hold a sentinel that must not show. */
START_TEST(delta_damaged)
{
    uint64_t rng = harness_rng(1280);
    FOR_EACH_DEVICE(ctx)
    {
        for (int round = 0; round < 12; round++) {
            const clprim_type t = types[round % TYPE_COUNT];
            const size_t es = size_of(t), n = 1 + harness_rand(&rng) % 1500;
            const size_t blocks = (n + BLOCK - 1) / BLOCK;
            const size_t words = HEADER * blocks + (round % 4 == 1 ? 0 : harness_rand(&rng) % 200);
            uint32_t *form = harness_malloc((words + 16) * 4);
            for (size_t i = 0; i < words; i++)
                form[i] = (uint32_t)harness_rand(&rng);
            for (size_t i = words; i < words + 16; i++)
                form[i] = 0xffffffffu; /* a read past packed_words would show as set bits */
            for (size_t b = 0; b < blocks; b++) { /* zero bases and steps: what is read shows */
                form[HEADER * b] = form[HEADER * b + 1] = form[HEADER * b + 2] = form[HEADER * b + 3] = 0;
                if (round % 3 == 0)
                    form[HEADER * b + 5] = (uint32_t)(harness_rand(&rng) % 256) << 24; /* any width, start 0 */
            }
            cl_mem packed = harness_buffer(ctx, (words + 16) * 4, form), dst = harness_buffer(ctx, n * es, NULL);
            const clprim_status s = clprim_delta_unpack(ctx, t, packed, 0, words, n, dst, 0, 0, NULL, NULL);
            ck_assert_msg(s == CLPRIM_SUCCESS, "damaged form %d: %s", round, clprim_last_error(ctx));
            unsigned char *back = harness_malloc(n * es);
            harness_read(ctx, dst, 0, n * es, back);
            /* Every block's base and step are 0: element j is the sum of the values
             * read, so it can only have set bits that the words before packed_words had. */
            if (words == HEADER * blocks) /* no data words at all: every element 0 */
                for (size_t i = 0; i < n; i++)
                    CHECK(get(back, es, i) == 0, "damaged form %d without data words: element %zu is %llx", round,
                          i, (unsigned long long)get(back, es, i));
            clReleaseMemObject(packed);
            clReleaseMemObject(dst);
            free(form);
            free(back);
        }
    }
}
END_TEST

/* ---- Bad arguments ---- */

enum { PACK, PACK_NO_SIZE, UNPACK };

/* buf: src, packed, size (pack); packed, dst (unpack). op: unpack's packed_words. */
static clprim_status delta_bad_call(clprim_context *ctx, const harness_bad_call *row, cl_mem const *buf)
{
    if (row->call == UNPACK)
        return clprim_delta_unpack(ctx, row->type, buf[0], row->offset[0], (size_t)row->op, row->n, buf[1],
                                   row->offset[1], 0, NULL, NULL);
    return clprim_delta_pack(ctx, row->type, buf[0], row->offset[0], row->n, buf[1], row->offset[1],
                             row->call == PACK_NO_SIZE ? NULL : buf[2], row->offset[2], 0, NULL, NULL);
}

/* Each buffer holds 16384 words, 8192 cl_ulong; 100 int32 need 106 words of room. */
static const harness_bad_call delta_bad_calls[] = {
    {"pack: ctx NULL", PACK, 1, {HB_A, HB_B, HB_A}, {0, 0, 8000}, 100, CLPRIM_INVALID_ARGUMENT, "ctx is NULL"},
    {"pack: type 42", PACK, 0, {HB_A, HB_B, HB_A}, {0, 0, 8000}, 100, CLPRIM_INVALID_ARGUMENT, "42",
     .type = (clprim_type)42},
    {"pack: src NULL", PACK, 0, {HB_NULL, HB_B, HB_A}, {0, 0, 8000}, 100, CLPRIM_INVALID_ARGUMENT, "src"},
    {"pack: packed NULL", PACK, 0, {HB_A, HB_NULL, HB_A}, {0, 0, 8000}, 100, CLPRIM_INVALID_ARGUMENT, "packed"},
    {"pack: src short", PACK, 0, {HB_A, HB_B, HB_A}, {16300, 0, 8000}, 100, CLPRIM_BUFFER_TOO_SMALL, "src"},
    {"pack: packed short of the room", PACK, 0, {HB_A, HB_B, HB_A}, {0, 16300, 8000}, 100,
     CLPRIM_BUFFER_TOO_SMALL, "packed"},
    {"pack: size past the end", PACK, 0, {HB_A, HB_B, HB_A}, {0, 0, 8192}, 100, CLPRIM_BUFFER_TOO_SMALL, "size"},
    {"pack: packed over src", PACK, 0, {HB_A, HB_A, HB_B}, {0, 50, 0}, 100, CLPRIM_INVALID_ARGUMENT, "src",
     .also = "packed"},
    {"pack: size inside packed", PACK, 0, {HB_A, HB_B, HB_B}, {0, 0, 10}, 100, CLPRIM_INVALID_ARGUMENT, "packed",
     .also = "size"},
    {"pack: size inside src", PACK, 0, {HB_A, HB_B, HB_A}, {0, 0, 10}, 100, CLPRIM_INVALID_ARGUMENT, "src",
     .also = "size"},
    {"pack: packed read-only", PACK, 0, {HB_A, HB_READ_ONLY, HB_B}, {0, 0, 0}, 100, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY"},
    {"pack: src of another context", PACK, 0, {HB_FOREIGN, HB_B, HB_A}, {0, 0, 8000}, 100,
     CLPRIM_INVALID_ARGUMENT, "src"},
    {"pack: doubles as bits, no size", PACK_NO_SIZE, 0, {HB_A, HB_B}, {0, 0}, 100, CLPRIM_SUCCESS, NULL,
     .type = CLPRIM_DOUBLE, .written = HB_ARG(1)},
    {"pack: into a sub-buffer", PACK, 0, {HB_A_AT_ALIGN, HB_B, HB_A}, {0, 0, 8000}, 100, CLPRIM_SUCCESS, NULL,
     .written = HB_ARG(1) | HB_ARG(2)},
    {"unpack: ctx NULL", UNPACK, 1, {HB_A, HB_B}, {0, 0}, 100, CLPRIM_INVALID_ARGUMENT, "ctx is NULL", .op = 106},
    {"unpack: type 42", UNPACK, 0, {HB_A, HB_B}, {0, 0}, 100, CLPRIM_INVALID_ARGUMENT, "42", .op = 106,
     .type = (clprim_type)42},
    {"unpack: fewer words than the headers", UNPACK, 0, {HB_A, HB_B}, {0, 0}, 300, CLPRIM_INVALID_ARGUMENT,
     "packed_words", .op = 11},
    {"unpack: packed NULL", UNPACK, 0, {HB_NULL, HB_B}, {0, 0}, 100, CLPRIM_INVALID_ARGUMENT, "packed", .op = 106},
    {"unpack: dst NULL", UNPACK, 0, {HB_A, HB_NULL}, {0, 0}, 100, CLPRIM_INVALID_ARGUMENT, "dst", .op = 106},
    {"unpack: packed_words past the buffer", UNPACK, 0, {HB_A, HB_B}, {16000, 0}, 100, CLPRIM_BUFFER_TOO_SMALL,
     "packed", .op = 400},
    {"unpack: dst short", UNPACK, 0, {HB_A, HB_B}, {0, 16300}, 100, CLPRIM_BUFFER_TOO_SMALL, "dst", .op = 106},
    {"unpack: dst over packed", UNPACK, 0, {HB_A, HB_A}, {0, 20}, 100, CLPRIM_INVALID_ARGUMENT, "packed",
     .also = "dst", .op = 106},
    {"unpack: dst read-only", UNPACK, 0, {HB_A, HB_READ_ONLY}, {0, 0}, 100, CLPRIM_INVALID_ARGUMENT,
     "CL_MEM_READ_ONLY", .op = 106},
    {"unpack: random words", UNPACK, 0, {HB_A, HB_B}, {0, 0}, 100, CLPRIM_SUCCESS, NULL, .op = 106,
     .written = HB_ARG(1)},
    {"unpack: nothing", UNPACK, 0, {HB_A, HB_B}, {0, 0}, 0, CLPRIM_SUCCESS, NULL, .op = 0},
};

START_TEST(delta_bad_table)
{
    harness_run_bad_calls(delta_bad_calls, sizeof delta_bad_calls / sizeof *delta_bad_calls, delta_bad_call);
}
END_TEST

static Suite *delta_suite(void)
{
    Suite *s = suite_create("delta");
    TCase *tc = tcase_create("correct");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, delta_every_type, 0, (int)TYPE_COUNT);
    tcase_add_test(tc, delta_shapes);
    tcase_add_test(tc, delta_across_shapes);
    tcase_add_test(tc, delta_room);
    tcase_add_test(tc, delta_damaged);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_arguments");
    tcase_set_timeout(bad, 300);
    tcase_add_test(bad, delta_bad_table);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return harness_run(delta_suite());
}
