/* Helpers of the libclprim_mpi test (test_mpi.c): the run's ranks and
 * contexts, seeded data that every rank generates alike, slicings of a global
 * array, buffers, and cases whose verdict is agreed over every rank.
 *
 * Plain C with no Check (Check forks, which MPI does not survive). Every
 * helper marked "collective" must be called by every rank in the same order;
 * the checks themselves (EXPECT, expect_*) only record, so a failed check on
 * one rank never changes which MPI calls the ranks make. */
#ifndef CLPRIM_MPI_HARNESS_H
#define CLPRIM_MPI_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "clprim_mpi.h"
#include "reference.h" /* reference_type_size */

/* The run: this rank, the communicator, and two contexts on the test device,
 * one made by clprim_mpi_create for the calls under test and one of the core
 * library's own for the single-device reference over the whole array. */
typedef struct {
    int rank, size;
    MPI_Comm comm;
    const char *device;  /* the device spec under test */
    uint64_t seed;       /* the run's seed, the same on every rank */
    clprim_context *ctx; /* clprim_mpi_create's */
    clprim_context *ref; /* clprim_create's, for the references */
} mpi_run;
extern mpi_run run;

/* ---- Cases ---- */

/* Starts a case (printf-style name). Collective only in that every rank must
 * start and end the same cases. */
void case_begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Records a failure of the current case on this rank; the first one is kept. */
void case_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Collective: agrees the verdict over every rank (a failure on any rank fails
 * the case), and rank 0 prints "ok NAME" or "FAIL NAME: rank R: why". Returns
 * 1 when the case passed everywhere. */
int case_end(void);
/* Rank 0 prints "skip NAME: why" (no verdict; every rank calls it). */
void case_skip(const char *name, const char *why);
/* The number of failed cases so far (the same on every rank). */
int cases_failed(void);
/* Adds context to this rank's failure messages, such as the slicing ("" for none). */
void case_where(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define EXPECT(cond, ...)                                                                                    \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            case_fail(__VA_ARGS__);                                                                          \
    } while (0)

/* Expects CLPRIM_SUCCESS from a clprim_mpi call; a failure names the status and
 * clprim_mpi_last_error(). Returns 1 on success. Also checks that the message
 * is "" after a success. */
int expect_success(clprim_status s, const char *call);
/* Expects the core library's call on ctx to have succeeded. */
int expect_ref_success(clprim_status s, const char *call);

/* Collective. What a refused call must show on every rank: status `want`, a
 * message that is not empty and is the same on every rank, and that names the
 * rank at fault ("rank R", R = at_fault), any rank (RANK_ANY: every rank's
 * arguments are wrong), or none needed (RANK_NONE: a disagreement, which the
 * message describes by the values passed). */
#define RANK_ANY (-1)
#define RANK_NONE (-2)
void expect_refused(clprim_status s, clprim_status want, int at_fault);

/* Collective: 1 on every rank when the string is the same on every rank. */
int same_on_every_rank(const char *s);

/* ---- Seeded data ---- */

typedef struct {
    uint64_t s;
} rng;
/* A generator for one case: the run's seed mixed with the case's name, so a
 * case draws the same numbers whichever other cases run. */
rng rng_for(const char *name);
uint64_t rng_next(rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t rng_below(rng *r, uint64_t n);
double rng_unit(rng *r); /* [0, 1) */

/* ---- Slicings ---- */

/* How the global array of n elements lies over the ranks: rank r holds
 * [start[r], start[r] + len[r]). */
typedef struct {
    char name[32];
    size_t n;
    size_t *len, *start;
} slicing;

/* The slicings every call is tested on, for a large global size n_big:
 *   even      n_big in nearly equal parts
 *   uneven    n_big cut at random points
 *   last      all of n_big on the last rank, the others empty
 *   first     all of n_big on rank 0
 *   gaps      n_big over the even ranks, the odd ones empty
 *   head      two elements on rank 0, none on rank 1, the rest on the others
 *   small     a handful of elements at random points (many ranks empty)
 *   empty     a global array of 0 elements
 * Every rank draws the same slicings from r. Returns the count (at most
 * SLICINGS_MAX); free with slicings_free. */
#define SLICINGS_MAX 8
int slicings_make(size_t n_big, rng *r, slicing *out);
void slicings_free(slicing *s, int count);
/* The largest global size among the slicings (the one to generate data for). */
size_t slicings_max_n(const slicing *s, int count);

/* ---- Types and values ---- */

const char *type_name(clprim_type t);
/* One element written out for a message (integers in decimal, floats with %a). */
const char *elem_text(clprim_type t, const void *p, char buf[64]);

/* Kinds of data generate() makes. */
typedef enum {
    DATA_RANDOM,   /* integers: every bit random; floats: uniform in [-100, 100) */
    DATA_SMALL,    /* integers in [-5, 15] (unsigned: [0, 20]); floats: halves in [-5, 15] */
    DATA_NAN,      /* floats in [-100, 100), the first two and ~1% of the rest NaN */
    DATA_ODD,      /* odd integers (products stay odd, never 0) */
    DATA_DUP8,     /* integers in [0, 7]; floats of 8 values (duplicates by the thousand) */
    DATA_SPECIAL,  /* floats mixing -0.0, +0.0, +-NaN, +-inf, denormals and random values */
    DATA_HALF_ZERO /* half the elements 0, the others random */
} data_kind;
/* n elements of type t into out, from r (the same on every rank). */
void generate(clprim_type t, data_kind kind, rng *r, void *out, size_t n);

/* ---- Buffers ---- */

/* A buffer of `bytes` on ctx's cl_context (at least 1 byte), every byte
 * `fill`, then `init` (when not NULL) written at byte `at`. Blocking. */
cl_mem buffer_make(clprim_context *ctx, size_t bytes, int fill, size_t at, const void *init, size_t init_bytes);
/* Reads `bytes` from byte `at` (blocking). Returns 0 on an OpenCL error (recorded as a failure). */
int buffer_read(clprim_context *ctx, cl_mem b, size_t at, size_t bytes, void *out);
/* The buffer's size in bytes. */
size_t buffer_size(cl_mem b);
void buffer_release(cl_mem b);

/* Records a failure when got differs from want at some element (bitwise),
 * naming the first one by its global position first_global + i. */
int expect_equal_elems(clprim_type t, const void *got, const void *want, size_t count, size_t first_global,
                       const char *what);
/* Records a failure when any of `bytes` bytes of p is not `fill`. */
int expect_filled(const void *p, size_t bytes, int fill, const char *what);

/* A host allocation that aborts the run (every rank) when it fails. */
void *xmalloc(size_t bytes);

#endif /* CLPRIM_MPI_HARNESS_H */
