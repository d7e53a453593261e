/* clprim_reduce_by_key, clprim_run_length_encode (of every run and of the
 * non-trivial ones), clprim_unique and clprim_unique_by_key against C loops
 * over runs: key and value types, built-in and callers' operators, runs of 1,
 * ~7, ~100 and n across work-groups, both forms, the count to the host and to
 * a buffer, nothing written past the count, n == 0, and bad arguments leaving
 * every output untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

enum { REDUCE, RLE, UNIQUE, UNIQUE_BY_KEY, NONTRIVIAL };

/* Non-trivial runs from every run's length: each run of two or more as its
 * first index and length, in place over lengths; returns how many. */
static size_t nontrivial_runs(const uint64_t *lengths, size_t runs, uint64_t *offsets, uint64_t *kept_lengths)
{
    size_t kept = 0;
    for (size_t r = 0, at = 0; r < runs; at += lengths[r], r++)
        if (lengths[r] > 1) {
            offsets[kept] = at;
            kept_lengths[kept++] = lengths[r];
        }
    return kept;
}

static void by_key_case(clprim_context *ctx, int what, clprim_type kt, clprim_type t, clprim_op op, size_t n,
                        size_t mean, int count_to_buffer, uint64_t *rng)
{
    /* Key outputs are the keys, or for non-trivial runs their first indices. */
    const int counted = what == RLE || what == NONTRIVIAL;
    const size_t ks = reference_type_size(kt), os = what == NONTRIVIAL ? 8 : ks;
    const size_t es = counted ? 8 : reference_type_size(t), len = n + 4;
    unsigned char *keys = harness_malloc(len * ks), *vals = harness_malloc(len * es);
    unsigned char *want_k = harness_malloc(len * os), *want_v = harness_malloc(len * es);
    unsigned char *got_k = harness_malloc(len * os), *got_v = harness_malloc(len * es);
    unsigned char *run_keys = harness_malloc(len * ks);
    uint64_t *lengths = harness_malloc(len * 8);
    harness_fill_key_runs(kt, keys + ks, n, mean, rng);
    harness_fill_exact_sums(t, vals, len, rng);
    memset(want_k, HARNESS_SENTINEL, len * os);
    memset(want_v, HARNESS_SENTINEL, len * es);
    size_t runs = reference_runs(kt, keys + ks, t, op, what == REDUCE ? vals + es : NULL, n,
                                 what == NONTRIVIAL ? run_keys : want_k + 2 * ks, what == REDUCE ? want_v + 2 * es : NULL,
                                 counted ? lengths : NULL, what == UNIQUE || what == UNIQUE_BY_KEY);
    if (what == RLE)
        memcpy(want_v + 2 * es, lengths, runs * 8);
    if (what == NONTRIVIAL)
        runs = nontrivial_runs(lengths, runs, (uint64_t *)want_k + 2, (uint64_t *)want_v + 2);
    if (what == UNIQUE_BY_KEY) /* each run's first value */
        for (size_t i = 0, run = 0; i < n; i++)
            if (i == 0 || memcmp(keys + i * ks, keys + (i + 1) * ks, ks) != 0)
                memcpy(want_v + (2 + run++) * es, vals + (1 + i) * es, es);
    cl_mem kbuf = harness_buffer(ctx, len * ks, keys), vbuf = harness_buffer(ctx, len * es, vals);
    cl_mem kout = harness_buffer(ctx, len * os, NULL), vout = harness_buffer(ctx, len * es, NULL);
    cl_mem count_buf = harness_buffer(ctx, 16, NULL);
    size_t got_runs = (size_t)-1;
    size_t *host = count_to_buffer ? NULL : &got_runs;
    cl_mem dev = count_to_buffer ? count_buf : NULL;
    cl_event done = NULL;
    clprim_status s;
    if (what == REDUCE)
        s = clprim_reduce_by_key(ctx, kt, t, op, NULL, kbuf, 1, vbuf, 1, n, kout, 2, vout, 2, host, dev, 1, 0, NULL,
                                 &done);
    else if (what == RLE)
        s = clprim_run_length_encode(ctx, kt, kbuf, 1, n, kout, 2, vout, 2, host, dev, 1, 0, NULL, &done);
    else if (what == NONTRIVIAL)
        s = clprim_run_length_encode_nontrivial(ctx, kt, kbuf, 1, n, kout, 2, vout, 2, host, dev, 1, 0, NULL, &done);
    else if (what == UNIQUE)
        s = clprim_unique(ctx, kt, kbuf, 1, n, kout, 2, host, dev, 1, 0, NULL, &done);
    else
        s = clprim_unique_by_key(ctx, kt, t, kbuf, 1, vbuf, 1, n, kout, 2, vout, 2, host, dev, 1, 0, NULL, &done);
    const char *const names[] = {"reduce_by_key", "run_length_encode", "unique", "unique_by_key",
                                 "run_length_encode_nontrivial"};
    const char *name = names[what];
    ck_assert_msg(s == CLPRIM_SUCCESS, "%s: %s", name, clprim_last_error(ctx));
    if (done) {
        ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
    }
    if (count_to_buffer) {
        uint64_t counted[2];
        harness_read(ctx, count_buf, 0, 16, counted);
        got_runs = (size_t)counted[1];
    }
    ck_assert_msg(got_runs == runs, "%s keys %s n=%zu runs of ~%zu (%s): %zu runs, C counts %zu", name,
                  reference_type_name(kt), n, mean, harness_tuning_text(ctx), got_runs, runs);
    harness_read(ctx, kout, 0, len * os, got_k);
    ck_assert_msg(memcmp(got_k, want_k, len * os) == 0, "%s keys %s n=%zu: keys_out differs from C (or was written "
                  "past the runs)", name, reference_type_name(kt), n);
    if (what != UNIQUE) {
        harness_read(ctx, vout, 0, len * es, got_v);
        for (size_t i = 0; i < len; i++)
            CHECK(memcmp(got_v + i * es, want_v + i * es, es) == 0,
                  "%s keys %s values %s %s n=%zu runs of ~%zu (%s): output %zu differs from C", name,
                  reference_type_name(kt), reference_type_name(t), reference_op_name(op), n, mean,
                  harness_tuning_text(ctx), i);
    }
    clReleaseMemObject(kbuf);
    clReleaseMemObject(vbuf);
    clReleaseMemObject(kout);
    clReleaseMemObject(vout);
    clReleaseMemObject(count_buf);
    free(keys);
    free(vals);
    free(want_k);
    free(want_v);
    free(got_k);
    free(got_v);
    free(run_keys);
    free(lengths);
}

START_TEST(by_key_against_c)
{
    static const clprim_type key_types[] = {CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_INT64, CLPRIM_UINT64};
    uint64_t rng = harness_rng(90 + (unsigned)_i);
    const clprim_type t = (clprim_type)_i;
    FOR_EACH_DEVICE(ctx)
    {
        if (t == CLPRIM_DOUBLE && !ctx->has_fp64)
            continue;
        for (int shape = 0; shape < 2; shape++) {
            if (shape)
                harness_set_tuning(ctx, 4, 2, 16);
            const size_t sizes[] = {0, 1, 2, 1001, 20011};
            const size_t means[] = {1, 7, 100, 0};
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                /* Both forms on both shapes, alternating over sizes and types. */
                harness_set_form(ctx, (k + (size_t)_i + (size_t)shape) % 2 ? CLPRIM_FORM_ONE_SWEEP
                                                                         : CLPRIM_FORM_MULTI_PASS);
                /* One key type and one operator a value type and shape (the
                 * agent treats keys and operators alike whatever the values):
                 * one program each, every operator and key type over the types. */
                const clprim_type kt = key_types[(size_t)_i % 4];
                const clprim_op op = (clprim_op)(((size_t)_i + (size_t)shape) % 3);
                by_key_case(ctx, REDUCE, kt, t, op, sizes[k], means[k % 4], (int)k % 2, &rng);
                by_key_case(ctx, UNIQUE_BY_KEY, kt, t, CLPRIM_SUM, sizes[k], means[(k + 3) % 4], (int)(k + 1) % 2,
                            &rng);
                /* The keys-only calls once, not per value type, over the key types. */
                const clprim_type own = key_types[k % 4];
                if (_i == 0) {
                    by_key_case(ctx, RLE, own, CLPRIM_UINT64, CLPRIM_SUM, sizes[k], means[(k + 1) % 4],
                                (int)(k + 1) % 2, &rng);
                    by_key_case(ctx, UNIQUE, own, own, CLPRIM_SUM, sizes[k], means[(k + 2) % 4], (int)k % 2, &rng);
                }
                if (_i == 1) /* non-trivial runs, over runs of 1 (none) to n (one) */
                    by_key_case(ctx, NONTRIVIAL, own, CLPRIM_UINT64, CLPRIM_SUM, sizes[k], means[(k + 3) % 4],
                                (int)k % 2, &rng);
            }
        }
    }
}
END_TEST

/* A caller's operator through reduce by key: products of odd factors. */
START_TEST(reduce_by_key_custom)
{
    uint64_t rng = harness_rng(99);
    FOR_EACH_DEVICE(ctx)
    {
        harness_set_tuning(ctx, 4, 2, 16);
        const size_t n = 9001;
        int32_t *keys = harness_malloc(n * 4);
        uint32_t *vals = harness_malloc(n * 4), *got = harness_malloc(n * 4);
        harness_fill_key_runs(CLPRIM_INT32, keys, n, 20, &rng);
        for (size_t i = 0; i < n; i++)
            vals[i] = (uint32_t)harness_rand(&rng) | 1u;
        const uint32_t one = 1;
        const clprim_operator mul = {"a * b", &one};
        cl_mem kbuf = harness_buffer(ctx, n * 4, keys), vbuf = harness_buffer(ctx, n * 4, vals);
        cl_mem kout = harness_buffer(ctx, n * 4, NULL), vout = harness_buffer(ctx, n * 4, NULL);
        size_t runs = 0;
        ck_assert_int_eq(clprim_reduce_by_key(ctx, CLPRIM_INT32, CLPRIM_UINT32, CLPRIM_SUM, &mul, kbuf, 0, vbuf, 0, n,
                                              kout, 0, vout, 0, &runs, NULL, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        harness_read(ctx, vout, 0, n * 4, got);
        size_t r = 0;
        uint32_t product = 1;
        for (size_t i = 0; i < n; i++) {
            product *= vals[i];
            if (i + 1 == n || keys[i + 1] != keys[i]) {
                CHECK(r < runs && got[r] == product, "run %zu: product %u, C says %u", r, r < runs ? got[r] : 0,
                      product);
                r++;
                product = 1;
            }
        }
        ck_assert_uint_eq(r, runs);
        clReleaseMemObject(kbuf);
        clReleaseMemObject(vbuf);
        clReleaseMemObject(kout);
        clReleaseMemObject(vout);
        free(keys);
        free(vals);
        free(got);
    }
}
END_TEST

START_TEST(by_key_bad_inputs)
{
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 300;
        cl_mem k = harness_buffer(ctx, n * 8, NULL), v = harness_buffer(ctx, n * 8, NULL);
        cl_mem ko = harness_buffer(ctx, n * 8, NULL), vo = harness_buffer(ctx, n * 8, NULL);
        cl_mem small = harness_buffer(ctx, 8, NULL);
        cl_mem almost = harness_buffer(ctx, (n / 2 - 1) * 8, NULL); /* one short of the most non-trivial runs */
        const int32_t zero = 0;
        const clprim_operator refused = {"a +", &zero};
        size_t runs = 777;
        struct {
            int what;
            clprim_type kt, vt;
            const clprim_operator *custom;
            cl_mem keys, values, keys_out, values_out, runs_buffer;
            size_t runs_offset;
            clprim_status want;
            const char *needle;
        } rows[] = {
            {REDUCE, CLPRIM_FLOAT, CLPRIM_INT32, NULL, k, v, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "key_type"},
            {REDUCE, CLPRIM_INT32, CLPRIM_INT32, &refused, k, v, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "op->combine"},
            {REDUCE, CLPRIM_INT32, CLPRIM_INT32, NULL, k, NULL, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "values"},
            {REDUCE, CLPRIM_INT32, CLPRIM_INT32, NULL, k, v, small, vo, NULL, 0, CLPRIM_BUFFER_TOO_SMALL, "keys_out"},
            {REDUCE, CLPRIM_INT32, CLPRIM_INT32, NULL, k, v, ko, ko, NULL, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {REDUCE, CLPRIM_INT32, CLPRIM_INT32, NULL, k, v, v, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {REDUCE, CLPRIM_INT32, CLPRIM_INT32, NULL, k, v, ko, vo, ko, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {REDUCE, CLPRIM_INT32, CLPRIM_INT32, NULL, k, v, ko, vo, small, 1, CLPRIM_BUFFER_TOO_SMALL, "runs_buffer"},
            {RLE, CLPRIM_UINT8, CLPRIM_UINT64, NULL, k, NULL, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "key_type"},
            {RLE, CLPRIM_INT64, CLPRIM_UINT64, NULL, k, NULL, ko, small, NULL, 0, CLPRIM_BUFFER_TOO_SMALL, "lengths"},
            {RLE, CLPRIM_INT32, CLPRIM_UINT64, NULL, k, NULL, k, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {UNIQUE, CLPRIM_DOUBLE, CLPRIM_INT32, NULL, k, NULL, ko, NULL, NULL, 0, CLPRIM_INVALID_ARGUMENT, "key_type"},
            {UNIQUE, CLPRIM_INT32, CLPRIM_INT32, NULL, NULL, NULL, ko, NULL, NULL, 0, CLPRIM_INVALID_ARGUMENT, "keys"},
            {UNIQUE, CLPRIM_INT32, CLPRIM_INT32, NULL, k, NULL, k, NULL, NULL, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {UNIQUE_BY_KEY, CLPRIM_FLOAT, CLPRIM_INT32, NULL, k, v, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT,
             "key_type"},
            {UNIQUE_BY_KEY, CLPRIM_INT32, (clprim_type)42, NULL, k, v, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "42"},
            {UNIQUE_BY_KEY, CLPRIM_INT32, CLPRIM_INT32, NULL, k, NULL, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT,
             "values"},
            {UNIQUE_BY_KEY, CLPRIM_INT32, CLPRIM_DOUBLE, NULL, k, v, ko, small, NULL, 0, CLPRIM_BUFFER_TOO_SMALL,
             "values_out"},
            {UNIQUE_BY_KEY, CLPRIM_INT32, CLPRIM_INT32, NULL, k, v, ko, v, NULL, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {UNIQUE_BY_KEY, CLPRIM_INT32, CLPRIM_INT32, NULL, k, v, ko, vo, vo, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {NONTRIVIAL, CLPRIM_FLOAT, CLPRIM_UINT64, NULL, k, NULL, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT,
             "key_type"},
            {NONTRIVIAL, CLPRIM_INT32, CLPRIM_UINT64, NULL, NULL, NULL, ko, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "keys"},
            {NONTRIVIAL, CLPRIM_INT32, CLPRIM_UINT64, NULL, k, NULL, NULL, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT,
             "offsets"},
            {NONTRIVIAL, CLPRIM_INT32, CLPRIM_UINT64, NULL, k, NULL, almost, vo, NULL, 0, CLPRIM_BUFFER_TOO_SMALL,
             "offsets"},
            {NONTRIVIAL, CLPRIM_INT64, CLPRIM_UINT64, NULL, k, NULL, ko, almost, NULL, 0, CLPRIM_BUFFER_TOO_SMALL,
             "lengths"},
            {NONTRIVIAL, CLPRIM_INT32, CLPRIM_UINT64, NULL, k, NULL, k, vo, NULL, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {NONTRIVIAL, CLPRIM_INT32, CLPRIM_UINT64, NULL, k, NULL, ko, ko, NULL, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {NONTRIVIAL, CLPRIM_INT32, CLPRIM_UINT64, NULL, k, NULL, ko, vo, vo, 0, CLPRIM_INVALID_ARGUMENT, "overlap"},
            {NONTRIVIAL, CLPRIM_INT32, CLPRIM_UINT64, NULL, k, NULL, ko, vo, small, 1, CLPRIM_BUFFER_TOO_SMALL,
             "runs_buffer"},
        };
        unsigned char *got = harness_malloc(n * 8);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            clprim_status s;
            if (rows[r].what == REDUCE)
                s = clprim_reduce_by_key(ctx, rows[r].kt, rows[r].vt, CLPRIM_SUM, rows[r].custom, rows[r].keys, 0,
                                         rows[r].values, 0, n, rows[r].keys_out, 0, rows[r].values_out, 0, &runs,
                                         rows[r].runs_buffer, rows[r].runs_offset, 0, NULL, NULL);
            else if (rows[r].what == RLE)
                s = clprim_run_length_encode(ctx, rows[r].kt, rows[r].keys, 0, n, rows[r].keys_out, 0,
                                             rows[r].values_out, 0, &runs, rows[r].runs_buffer, rows[r].runs_offset, 0,
                                             NULL, NULL);
            else if (rows[r].what == NONTRIVIAL)
                s = clprim_run_length_encode_nontrivial(ctx, rows[r].kt, rows[r].keys, 0, n, rows[r].keys_out, 0,
                                                        rows[r].values_out, 0, &runs, rows[r].runs_buffer,
                                                        rows[r].runs_offset, 0, NULL, NULL);
            else if (rows[r].what == UNIQUE)
                s = clprim_unique(ctx, rows[r].kt, rows[r].keys, 0, n, rows[r].keys_out, 0, &runs,
                                  rows[r].runs_buffer, rows[r].runs_offset, 0, NULL, NULL);
            else
                s = clprim_unique_by_key(ctx, rows[r].kt, rows[r].vt, rows[r].keys, 0, rows[r].values, 0, n,
                                         rows[r].keys_out, 0, rows[r].values_out, 0, &runs, rows[r].runs_buffer,
                                         rows[r].runs_offset, 0, NULL, NULL);
            harness_assert_error(ctx, s, rows[r].want, rows[r].needle);
            ck_assert_msg(runs == 777, "row %zu: a failed call wrote the count", r);
            const cl_mem all[] = {k, v, ko, vo};
            for (size_t b = 0; b < 4; b++) {
                harness_read(ctx, all[b], 0, n * 8, got);
                ck_assert_msg(harness_all_sentinel(got, n * 8), "row %zu: a failed call wrote a buffer", r);
            }
            harness_read(ctx, small, 0, 8, got);
            ck_assert_msg(harness_all_sentinel(got, 8), "row %zu: a failed call wrote a buffer", r);
            harness_read(ctx, almost, 0, (n / 2 - 1) * 8, got);
            ck_assert_msg(harness_all_sentinel(got, (n / 2 - 1) * 8), "row %zu: a failed call wrote a buffer", r);
        }
        free(got);
        clReleaseMemObject(k);
        clReleaseMemObject(v);
        clReleaseMemObject(ko);
        clReleaseMemObject(vo);
        clReleaseMemObject(small);
        clReleaseMemObject(almost);
    }
}
END_TEST

/* Non-trivial runs need room for n / 2 only: pairs of equal keys fill it
 * exactly (an odd n's last key alone adds none). */
/* Float and double sums by key in one sweep (scan by key, reduce by key)
 * give the same bits whether every look-back record comes or the fallback
 * computes what does not (CLPRIM_TEST_LOOKBACK reversed: every earlier
 * tile's; sparse: every group of tiles' prefix), at small tiles and the
 * device's, over values whose sums round. */
START_TEST(by_key_one_sweep_fixed_grouping)
{
    const clprim_type t = _i ? CLPRIM_DOUBLE : CLPRIM_FLOAT;
    const size_t es = reference_type_size(t), n = 3000;
    const char *const modes[] = {NULL, "reversed", "sparse"};
    enum { SHAPES = 2, OUTPUTS = 3 }; /* inclusive scan, exclusive scan, reduced values */
    unsigned char *first[8][SHAPES][OUTPUTS] = {{{NULL}}};
    uint64_t rng = harness_rng(960 + _i);
    unsigned char *keys = harness_malloc(n * 4), *vals = harness_malloc(n * es), *got = harness_malloc(n * es);
    harness_fill_key_runs(CLPRIM_INT32, keys, n, 40, &rng);
    harness_fill_random(t, vals, n, &rng);
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        harness_env_set("CLPRIM_TEST_LOOKBACK", modes[m]);
        size_t d = 0;
        FOR_EACH_DEVICE(ctx)
        {
            ck_assert_uint_lt(d, 8);
            if (t == CLPRIM_DOUBLE && !ctx->has_fp64) {
                d++;
                continue;
            }
            cl_mem kbuf = harness_buffer(ctx, n * 4, keys), vbuf = harness_buffer(ctx, n * es, vals);
            cl_mem dst = harness_buffer(ctx, n * es, NULL), kout = harness_buffer(ctx, n * 4, NULL);
            for (int shape = 0; shape < SHAPES; shape++) {
                if (shape)
                    harness_set_tuning(ctx, 4, 2, 16);
                harness_set_form(ctx, CLPRIM_FORM_ONE_SWEEP);
                for (int out = 0; out < OUTPUTS; out++) {
                    size_t runs = n;
                    memset(got, 0, n * es);
                    clprim_status s =
                        out < 2 ? clprim_scan_by_key(ctx, CLPRIM_INT32, t, CLPRIM_SUM, NULL, out, kbuf, 0, vbuf, 0, dst,
                                                     0, n, 0, NULL, NULL)
                                : clprim_reduce_by_key(ctx, CLPRIM_INT32, t, CLPRIM_SUM, NULL, kbuf, 0, vbuf, 0, n,
                                                       kout, 0, dst, 0, &runs, NULL, 0, 0, NULL, NULL);
                    ck_assert_msg(s == CLPRIM_SUCCESS, "%s", clprim_last_error(ctx));
                    harness_read(ctx, dst, 0, runs * es, got);
                    if (!m) {
                        first[d][shape][out] = harness_malloc(n * es);
                        memcpy(first[d][shape][out], got, n * es);
                        continue;
                    }
                    size_t i = 0;
                    while (i < runs && !memcmp(got + i * es, first[d][shape][out] + i * es, es))
                        i++;
                    ck_assert_msg(i == runs, "%s %s by key, look-back %s: element %zu differs from the usual (%s)",
                                  reference_type_name(t), out == 2 ? "reduce" : out ? "exclusive scan" : "scan",
                                  modes[m], i, harness_tuning_text(ctx));
                }
            }
            clReleaseMemObject(kbuf);
            clReleaseMemObject(vbuf);
            clReleaseMemObject(dst);
            clReleaseMemObject(kout);
            d++;
        }
        harness_env_restore();
    }
    for (size_t d = 0; d < 8; d++)
        for (int shape = 0; shape < SHAPES; shape++)
            for (int out = 0; out < OUTPUTS; out++)
                free(first[d][shape][out]);
    free(keys);
    free(vals);
    free(got);
}
END_TEST

START_TEST(nontrivial_runs_room)
{
    FOR_EACH_DEVICE(ctx)
    {
        const size_t n = 301, room = n / 2;
        int32_t keys[301];
        for (size_t i = 0; i < n; i++)
            keys[i] = (int32_t)(i / 2);
        cl_mem k = harness_buffer(ctx, sizeof keys, keys);
        cl_mem offsets = harness_buffer(ctx, room * 8, NULL), lengths = harness_buffer(ctx, room * 8, NULL);
        size_t runs = 0;
        ck_assert_int_eq(clprim_run_length_encode_nontrivial(ctx, CLPRIM_INT32, k, 0, n, offsets, 0, lengths, 0,
                                                             &runs, NULL, 0, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        ck_assert_uint_eq(runs, room);
        uint64_t got_offsets[150], got_lengths[150];
        harness_read(ctx, offsets, 0, sizeof got_offsets, got_offsets);
        harness_read(ctx, lengths, 0, sizeof got_lengths, got_lengths);
        for (size_t r = 0; r < room; r++)
            CHECK(got_offsets[r] == 2 * r && got_lengths[r] == 2, "run %zu: offset %llu length %llu", r,
                  (unsigned long long)got_offsets[r], (unsigned long long)got_lengths[r]);
        clReleaseMemObject(k);
        clReleaseMemObject(offsets);
        clReleaseMemObject(lengths);
    }
}
END_TEST

static Suite *by_key_suite(void)
{
    Suite *s = suite_create("by_key");
    TCase *tc = tcase_create("by_key");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, by_key_against_c, 0, REFERENCE_TYPE_COUNT);
    tcase_add_test(tc, reduce_by_key_custom);
    tcase_add_test(tc, by_key_bad_inputs);
    tcase_add_test(tc, nontrivial_runs_room);
    tcase_add_loop_test(tc, by_key_one_sweep_fixed_grouping, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(by_key_suite());
}
