/* Numbers the host and the kernels must agree on: included by the library's C
 * files (src/internal.h) and by cl/block/element.cl, so each is written once. Plain
 * preprocessor definitions only: both languages read them. */
#ifndef CLPRIM_CONSTANTS_H
#define CLPRIM_CONSTANTS_H

/* Where a scan or compaction work-group's seed comes from (scan.c, compact.c):
 * one chunk needs none; few partials are folded by each group itself; many are
 * scanned by a pass of their own first. */
#define SEED_NONE 0
#define SEED_FOLD 1
#define SEED_SCANNED 2

/* What the by-key calls write for each run (cl/by_key.cl): at its last
 * element, its key and the combination of its values (reduce by key, run
 * lengths); at its first, its key and the value there (unique, unique by
 * key); at the last element of a run of two or more, its first index and its
 * length (non-trivial runs). */
#define RUNS_REDUCE 0
#define RUNS_FIRST 1
#define RUNS_NONTRIVIAL 2
/* Compaction's predicate kinds, clprim_keep's values (clprim.h): -DKEEP_KIND=n,
 * and -DSECOND_KIND=n for the three-way partition's second predicate. */
#define PREDICATE_LT 0
#define PREDICATE_LE 1
#define PREDICATE_GT 2
#define PREDICATE_GE 3
#define PREDICATE_EQ 4
#define PREDICATE_NE 5
#define PREDICATE_NONZERO 6
#define PREDICATE_FLAGGED 7
#define PREDICATE_EXPRESSION 8

/* Radix sort: bits a pass, digits, and the most passes (64-bit keys). */
#define RADIX_BITS 8
#define RADIX 256
#define MAX_PASSES 8

/* Threshold: which channel a histogram counts, and what happens to rejected
 * pixels (clprim.h's modes, in the kernels' numbering). */
#define CHANNEL_R 0
#define CHANNEL_G 1
#define CHANNEL_B 2
#define CHANNEL_A 3
#define CHANNEL_GREY 4
#define CHANNEL_ALL 5
#define MODE_KEEP 0
#define MODE_YELLOW 1
#define MODE_REINSERT 2

/* Levels of an 8-bit channel (its histogram's bins), and the most colours of k-means. */
#define CHANNEL_LEVELS 256
#define KMEANS_MAX_K 256

/* Histograms: the most bins (a bin index never reaches 0xFFFFFFFF, the
 * kernels' "not counted"), and how the kernels find an integer's bin: dividing
 * in 64 or in 32 bits, or HIST_DIVIDE_SHIFT + s, shifting by s. */
#define HIST_MAX_BINS 0x80000000u
#define HIST_DIVIDE_64 0
#define HIST_DIVIDE_32 1
#define HIST_DIVIDE_SHIFT 2

#endif
