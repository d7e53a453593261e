/* Arrays in files for the `clprim` commands: numpy's .npy format and raw
 * binary, read whole into host memory and written through output.h.
 *
 * .npy: format versions 1.0, 2.0 and 3.0; little or big endian (converted to
 * the machine's order on reading); the dtypes of clprim_type (int32, uint32,
 * int64, uint64, float32, float64, uint8); any shape, taken as its elements in
 * C order (what numpy's ravel gives). Refused, with a message that names the
 * file and the problem: another magic, a truncated file, another version, a
 * header that is malformed or longer than numpy's own limit (10000 bytes),
 * another dtype (object arrays, structured dtypes, bool, int16, complex, ...),
 * Fortran order for more than one dimension, data shorter or longer than the
 * header declares. Files written here are version 1.0, one dimension,
 * little-endian.
 *
 * Raw: the elements back to back in the machine's byte order, no header; the
 * type comes from the command line. */
#ifndef CLPRIM_CLI_NPY_H
#define CLPRIM_CLI_NPY_H

#include <stddef.h>

#include "clprim.h"
#include "output.h"

typedef struct {
    void *data;       /* n elements in the machine's byte order (malloc'd; at least 1 byte) */
    size_t n;
    clprim_type type;
    int npy;          /* read from a .npy file, not raw */
} cli_array;

/* The numpy name of t ("float32"), "?" outside the enum; its bytes (0 outside). */
const char *cli_type_name(clprim_type t);
size_t cli_type_size(clprim_type t);

/* A type by its numpy name, or by the other commands' names "float" and
 * "double"; 0 when there is none. */
int cli_parse_type(const char *name, clprim_type *t);

/* "int32, uint32, ... or uint8", for messages. */
#define CLI_TYPE_NAMES "int32, uint32, int64, uint64, float32, float64 or uint8"

/* One element of type t at p, as a double (rounded beyond 2^53 for 64-bit integers). */
double cli_load_double(clprim_type t, const void *p);

/* Whether v converts to t (its fraction dropped, it lies in t's range); stores it. */
int cli_fits_double(clprim_type t, double v);
void cli_store_double(clprim_type t, double v, void *p);

/* Reads path ("-": all of standard input): a .npy file when raw is 0, else raw
 * elements of raw_type. 0 on success with *a set (free with cli_array_free);
 * -1 with a message naming the file in why. */
int cli_array_read(const char *path, int raw, clprim_type raw_type, cli_array *a, char *why, size_t size);

void cli_array_free(cli_array *a);

/* Whether an output goes as .npy: not with --raw; "-" as the input came
 * (input_npy); any other name when it ends in .npy (any case). */
int cli_array_out_is_npy(const char *path, int raw, int input_npy);

/* 1 when path ends in .npy (any case). */
int cli_is_npy_name(const char *path);

/* Writes n elements of type t from data (the machine's order) to o: a 1-D .npy
 * file when npy, else raw. Errors are reported by cli_output_close. */
void cli_array_write(cli_output *o, const void *data, size_t n, clprim_type t, int npy);

#endif
