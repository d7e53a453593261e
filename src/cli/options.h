/* Option values of the `clprim` commands. Each parse takes the command's name
 * (for "clprim CMD: ..."), the option as typed ("--bins") and its text; on a bad
 * value it prints "clprim CMD: OPTION TEXT: want ..." to stderr and returns 0
 * (the command then exits 2); on success it stores the value and returns 1. */
#ifndef CLPRIM_CLI_OPTIONS_H
#define CLPRIM_CLI_OPTIONS_H

#include <stddef.h>

/* A whole number in [min, max]: an optional '-', then digits, nothing else. */
int cli_parse_long(const char *cmd, const char *option, const char *text, long min, long max, long *out);

/* A whole number in [min, max]: digits only (no sign, no blanks). */
int cli_parse_ulong(const char *cmd, const char *option, const char *text, unsigned long min, unsigned long max,
                    unsigned long *out);

/* A count of things of unit_bytes bytes each (elements, pixels) in [min, max]:
 * digits, or digits e digits ("1e6"). Refused, saying so, when count x
 * unit_bytes would not fit in a size_t. */
int cli_parse_count(const char *cmd, const char *option, const char *text, size_t min, size_t max,
                    size_t unit_bytes, size_t *out);

/* A number (strtod syntax, the whole text) in [min, max], or (min, max] when
 * open_min; NaN never passes. */
int cli_parse_double(const char *cmd, const char *option, const char *text, double min, double max, int open_min,
                     double *out);

/* The index of text among names[0 .. count - 1]; -1 after printing
 * "clprim CMD: unknown OPTION TEXT (a, b or c)". */
int cli_pick(const char *cmd, const char *option, const char *text, const char *const *names, int count);

#endif
