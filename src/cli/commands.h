/* The subcommands of `clprim`: one file each, cmd_<name>.c; the array commands
 * (sort, scan, reduce, unique) share cmd_arrays.c. */
#ifndef CLPRIM_CLI_COMMANDS_H
#define CLPRIM_CLI_COMMANDS_H

#include "clprim.h"

/* Each returns the process exit code: 0 on success, 1 on failure, 2 on bad usage. */
int cmd_devices(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_compact(int argc, char **argv);
int cmd_sort(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_unique(int argc, char **argv);
int cmd_threshold(int argc, char **argv); /* needs images (stb) */
int cmd_histogram(int argc, char **argv); /* needs images (stb) */
int cmd_kmeans(int argc, char **argv);    /* needs images (stb) */
int cmd_cache(int argc, char **argv);

/* Opens the context for a command: --device SPEC if given, else the default.
 * Prints the failure and returns NULL. */
clprim_context *cli_open(const char *device);

/* The radix sort's form as $CLPRIM_TUNING spells it: "multi-pass", "one-sweep". */
const char *cli_form_name(clprim_form form);

/* What a command's first call did about kernel programs, for its report:
 * "building 2 kernel programs", "loading 2 kernel programs from the disk
 * cache", ... compiled_before and loaded_before are clprim_program_counts
 * taken before the call. */
void cli_first_call_note(const clprim_context *ctx, unsigned compiled_before, unsigned loaded_before, char *note,
                         size_t size);

/* Seconds on a monotonic clock. */
double cli_now(void);

#endif
