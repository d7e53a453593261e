/* Workloads: one primitive on generated data, with its one-thread C loop, the
 * same loop over every core (OpenMP), and its check. `clprim demo` runs each once at one size; `clprim bench` sweeps sizes. */
#ifndef CLPRIM_CLI_WORKLOAD_H
#define CLPRIM_CLI_WORKLOAD_H

#include <stdint.h>

#include "clprim.h"

typedef struct workload workload;

/* The most host bytes a workload holds in one buffer for each element: the
 * threshold's three planes of floats, a 64-bit sort key with its 32-bit value.
 * Sizes above SIZE_MAX / this are refused. */
#define WORKLOAD_MAX_BYTES_PER_ELEMENT 12

typedef struct {
    const char *name;                           /* "scan-exclusive" */
    int (*prepare)(workload *w);                /* host and device data for w->n; 0 on failure */
    clprim_status (*run)(workload *w);          /* enqueue the primitive once */
    void (*cpu)(workload *w);                   /* the same job in a one-thread C loop */
    int (*check)(workload *w, char *why, size_t size); /* device result vs the C loop's */
    double (*bytes)(const workload *w);         /* fewest bytes the primitive must move */
    int (*supports)(clprim_type t);             /* NULL: every type */
    void (*openmp)(workload *w);                /* the C loop over every core; NULL where there is none */
    const char *primitive;                      /* the library's primitive it runs (src/algorithms/primitives.h) */
    int first_use; /* it builds a program no warm-up builds ahead (one per caller's expression, or per
                      pair of predicates), on its first call */
} workload_kind;

struct workload {
    const workload_kind *kind;
    clprim_context *ctx;
    cl_context cl;
    clprim_type type;
    size_t n, elem;
    size_t in_bytes;         /* bytes of input: what the bench's copy baseline copies */
    size_t out_bytes;        /* bytes of output read back for the check */
    void *in, *out, *expect; /* host: input, device result read back, C loop's result */
    cl_mem in_buf, out_buf;
    cl_mem aux_buf;          /* a second device output (a count, histogram bins) */
    int32_t *keys;           /* by-key kinds: int32 keys in runs of about 100 */
    cl_mem keys_buf, keys_out_buf;
    cl_mem flags_buf;        /* compaction by flags: a byte per element */
    unsigned char value[16]; /* a scalar result (reduce) */
    size_t count;            /* the C loop's count (compaction), level (Otsu) */
    size_t width, height;    /* a photograph's size (workload_prepare_photo) */
    void *scratch;           /* the kind's own host state, freed with the workload */
};

/* Known workloads, NULL-terminated. */
extern const workload_kind *const workload_kinds[];
const workload_kind *workload_find(const char *name);

/* The workloads on a photograph (packed RGB8 pixels), NULL-terminated. The first
 * is the red-ratio threshold: its result (w->out after workload_fetch) is an RGB8
 * picture of the photograph's size. */
extern const workload_kind *const workload_photo_kinds[];

/* Sets up w (kind, ctx, type, n): the input is n elements of type t unless the
 * kind's prepare replaces it; 0 on failure with a message on stderr (n must be
 * at most SIZE_MAX / WORKLOAD_MAX_BYTES_PER_ELEMENT). */
int workload_prepare(workload *w, const workload_kind *kind, clprim_context *ctx, clprim_type type, size_t n);
/* The same for a photograph kind: w->in is a copy of width * height RGB8 pixels
 * (n = width * height, type CLPRIM_UINT8). */
int workload_prepare_photo(workload *w, const workload_kind *kind, clprim_context *ctx, const unsigned char *rgb,
                           size_t width, size_t height);
void workload_release(workload *w);
/* Reads the device result back into w->out where the kind has one. */
int workload_fetch(workload *w);

/* Data differs with the seed; 0 (the default) gives the bench's data. */
void workload_set_seed(uint64_t seed);

/* The threads the OpenMP loops use; 0 when the tool was built without OpenMP. */
int workload_openmp_threads(void);

const char *workload_type_name(clprim_type t);
int workload_parse_type(const char *name, clprim_type *t);
/* The name of the i-th type a workload can take; NULL past the last. */
const char *workload_type_at(size_t i);

#endif
