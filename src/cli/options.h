/* The options of the `clprim` commands: one parser on getopt_long for all of
 * them, and the strict parsers of their values.
 *
 * Each command declares its options once, in a table of cli_option, and reads
 * them with cli_next: --name=VALUE and --name VALUE, -k VALUE and -kVALUE, flags
 * (-n), --help (and -h) on stdout with exit 0, and for anything wrong a message
 * naming the option on stderr with exit 2. The help text is made from the table.
 *
 * Each value parse below takes the command's name
 * (for "clprim CMD: ..."), the option as typed ("--bins") and its text; on a bad
 * value it prints "clprim CMD: OPTION TEXT: want ..." to stderr and returns 0
 * (the command then exits 2); on success it stores the value and returns 1. */
#ifndef CLPRIM_CLI_OPTIONS_H
#define CLPRIM_CLI_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

typedef struct {
    const char *name;  /* the long name, without "--" */
    char letter;       /* the short option, or 0 */
    const char *value; /* what the value is called in the help ("N"), or NULL for a flag */
    const char *help;  /* its help; '\n' starts an indented line */
    unsigned modes;    /* bit m: applies in mode m (cli_command.modes); 0: in every mode */
} cli_option;

typedef struct {
    const char *name;           /* "threshold" */
    const char *synopsis;       /* the positional arguments, "IN OUT.png", or "" */
    const char *about;          /* lines after the usage line, or NULL */
    const cli_option *options;  /* option_count rows, at most CLI_MAX_OPTIONS */
    int option_count;
    const char *mode_option;    /* what picks the mode ("--mode"), or NULL without modes */
    const char *const *modes;   /* the mode names, bit m of cli_option.modes */
} cli_command;

#define CLI_MAX_OPTIONS 32
#define CLI_MAX_ARGS 4
/* A macro's value as a string, for help texts. */
#define CLI_STRING(x) CLI_STRING_(x)
#define CLI_STRING_(x) #x

typedef struct {
    const cli_command *cmd;
    int argc;
    char **argv;
    const char *value;         /* the value of the option cli_next returned */
    int exit;                  /* -1 while parsing; the exit code once --help or a bad option ended it */
    uint32_t given;            /* bit i: options[i] was given */
    char *args[CLI_MAX_ARGS];  /* the positional arguments, in order */
    int nargs;
    struct option longs[CLI_MAX_OPTIONS + 2]; /* getopt_long's tables, made from cmd */
    char shorts[3 * CLI_MAX_OPTIONS + 4];
} cli_parser;

/* Starts parsing argv[1 ..] (argv[0] is the command's name). */
void cli_begin(cli_parser *p, const cli_command *cmd, int argc, char **argv);

/* The index in cmd->options of the next option given (its value in p->value),
 * or -1 at the end: then p->exit is 0 after --help (printed on stdout), 2 after
 * a bad option (said on stderr, with the usage line), and -1 when every option
 * was good; the positional arguments are then in p->args. */
int cli_next(cli_parser *p);

/* Says on stderr what is wrong with the positional arguments (printf format),
 * then the usage line; returns 2, the exit code. */
int cli_usage_error(const cli_parser *p, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* After the options: -1 to go on, when they were all good and exactly `count`
 * positional arguments were given (in p->args); else the exit code, after
 * --help (0) or, having said what is wrong ("want IN OUT.png", from the
 * synopsis, or "unexpected argument") with the usage line, 2. */
int cli_end(const cli_parser *p, int count);

/* Warns on stderr about each option given that does not apply to mode
 * ("--ratio does not apply to --mode otsu"); returns how many. */
int cli_warn_mode(const cli_parser *p, int mode);

/* The help of cmd, made from its table. */
void cli_print_help(const cli_command *cmd, FILE *to);

/* A comma-separated list whose every item is among names[0 .. count - 1];
 * 0 after printing "clprim CMD: unknown OPTION ITEM (a, b or c)". */
int cli_check_list(const char *cmd, const char *option, const char *list, const char *const *names, int count);

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
