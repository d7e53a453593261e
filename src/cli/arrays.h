/* The array commands of `clprim` (cmd_arrays.c): sort, scan, reduce and unique
 * on the user's .npy or raw files (npy.h), and the array forms of compact and
 * histogram, which those commands' own parsers hand over here. */
#ifndef CLPRIM_CLI_ARRAYS_H
#define CLPRIM_CLI_ARRAYS_H

#include <stddef.h>

#include "clprim.h"

/* Where an array command reads and writes. */
typedef struct {
    const char *in;     /* IN; "-" is standard input */
    int raw;            /* --type given: IN is raw elements of `type` */
    clprim_type type;
    const char *out;    /* -o OUT, or NULL; "-" is standard output */
    int raw_out;        /* --raw: every output raw, whatever its name */
    int time;           /* --time: print the device time of a second call */
    const char *device; /* --device, or NULL */
} cli_array_io;

/* Rows of the commands' option tables for cli_array_io (modes: cli_option's). */
#define CLI_ARRAY_TYPE_HELP                                               \
    "IN is raw binary of type T: int32, uint32, int64, uint64,\n"          \
    "float32 (or float), float64 (or double) or uint8, in the\n"          \
    "machine's byte order; without it IN is a .npy file"
#define CLI_ARRAY_OPTION_OUTPUT(modes)                                       \
    {"output", 'o', "OUT",                                                   \
     "write the result to OUT: a .npy file when OUT ends in .npy,\n"        \
     "else raw; - is standard output, as .npy when IN was one",             \
     modes}
#define CLI_ARRAY_OPTION_RAW(modes) \
    {"raw", 0, NULL, "write every output raw (no .npy header), whatever its name", modes}
#define CLI_ARRAY_OPTION_TIME(modes) \
    {"time", 0, NULL, "also print the device time (of a second call: the first\nbuilds the kernels)", modes}

/* Takes the option of cli_array_io named `name` (its long name: "output",
 * "type", "raw", "time", "device"): 1 when taken, 0 after saying on stderr what
 * is wrong with its value (exit 2), -1 when name is another option. */
int cli_array_option(cli_array_io *io, const char *cmd, const char *name, const char *value);

/* The predicate of `clprim compact IN`, as its options gave it. */
typedef struct {
    clprim_keep keep;       /* a comparison, CLPRIM_KEEP_NONZERO or CLPRIM_KEEP_EXPRESSION */
    double value;           /* a comparison's value, converted to IN's type when it fits */
    const char *option;     /* the option that gave it ("--gt") and its text, for messages */
    const char *text;
    const char *expression; /* CLPRIM_KEEP_EXPRESSION */
    const char *what;       /* for the summary: "x > 50" */
} cli_compact_keep;

/* `clprim compact IN`: the elements of IN that pass the predicate, in order.
 * Returns the exit code. */
int cli_compact_array(const cli_array_io *io, const cli_compact_keep *keep);

/* `clprim histogram IN` for an array: bins_text even bins (NULL: 10) over
 * range_text ("LO,HI"; NULL: the data's smallest and largest numbers), or the
 * bins between edges (a list "0,1,2.5" or a .npy file; NULL: even bins).
 * Returns the exit code (2 for a malformed value). */
int cli_histogram_array(const cli_array_io *io, const char *bins_text, const char *edges, const char *range_text);

/* 1 when `clprim histogram IN` gets an array: --type (io->raw), a name ending
 * in .npy, or a first byte 0x93, which starts numpy's magic and no image
 * format (for "-", peeked from standard input and put back). */
int cli_histogram_is_array(const cli_array_io *io);

#endif
