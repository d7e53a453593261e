/* Option values of the `clprim` commands. Each parse takes the command's name
 * (for "clprim CMD: ..."), the option as typed ("--bins") and its text; on a bad
 * value it prints "clprim CMD: OPTION TEXT: want ..." to stderr and returns 0
 * (the command then exits 2); on success it stores the value and returns 1. */
#ifndef CLPRIM_CLI_OPTIONS_H
#define CLPRIM_CLI_OPTIONS_H

/* A whole number in [min, max] (strtol, base 10: a sign is allowed). */
int cli_parse_long(const char *cmd, const char *option, const char *text, long min, long max, long *out);

/* A count in [min, max] (strtoul, base 10), without a sign. */
int cli_parse_ulong(const char *cmd, const char *option, const char *text, unsigned long min, unsigned long max,
                    unsigned long *out);

/* A number in [min, max], or (min, max] when open_min; NaN never passes. */
int cli_parse_double(const char *cmd, const char *option, const char *text, double min, double max, int open_min,
                     double *out);

/* The index of text among names[0 .. count - 1]; -1 after printing
 * "clprim CMD: unknown OPTION TEXT (a, b or c)". */
int cli_pick(const char *cmd, const char *option, const char *text, const char *const *names, int count);

#endif
