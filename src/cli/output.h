/* Output files of the `clprim` commands (PNG images and charts, CSV tables),
 * written so that a failed write never passes for a written file and never
 * leaves a half-written one under the name asked for.
 *
 * A regular file (or a name not there yet) is written to a temporary file in
 * the same folder (mkstemp) and renamed over the name at close; a symbolic link
 * is followed, so the file it points to is replaced and the link stays. A name
 * that exists and is not a regular file (/dev/stdout, /dev/full, a FIFO) cannot
 * be renamed over: it is written directly. "-" is standard output, also
 * written directly. Either way every write, the flush and the close are checked. */
#ifndef CLPRIM_CLI_OUTPUT_H
#define CLPRIM_CLI_OUTPUT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *f;              /* write here (fwrite, fprintf): errors are caught at close */
    const char *path;     /* the name asked for */
    char target[PATH_MAX];
    char temporary[PATH_MAX]; /* "" when writing directly */
    int error;            /* the first errno seen by cli_output_write */
} cli_output;

/* Opens path for writing ("-": standard output, claimed as below if it is not
 * yet). 0 on success; else -1 with "cannot write PATH: why". */
int cli_output_open(cli_output *o, const char *path, char *why, size_t size);

/* Keeps standard output for a file written to "-": the file gets the
 * descriptor, and descriptor 1 (stdout, printf) goes to standard error from
 * now on, so that nothing the command prints, before or after the file, mixes
 * with its bytes. Refused (-1, errno ENOTTY) when standard output is a
 * terminal, which is no place for binary data; 0 when claimed (or already). */
int cli_output_claim_stdout(void);

/* How messages name path: "standard output" for "-", else path. */
const char *cli_output_name(const char *path);

/* Appends bytes; a failure is remembered and reported by cli_output_close. */
void cli_output_write(cli_output *o, const void *data, size_t bytes);

/* Flushes, closes and (through a temporary) renames into place. 0 on success;
 * else -1 with "cannot write PATH: why", and the temporary removed. */
int cli_output_close(cli_output *o, char *why, size_t size);

/* cli_output_close in its two steps, for a command that writes several files
 * and must write all of them or none: finish each (flush, sync, close: the
 * errors of writing show here), then commit each (the rename). A failed
 * finish removes its temporary; discard the others. */
int cli_output_finish(cli_output *o, char *why, size_t size);
int cli_output_commit(cli_output *o, char *why, size_t size);

/* Gives up: closes and removes the temporary (also after cli_output_finish);
 * a direct target is left as written. */
void cli_output_discard(cli_output *o);

#endif
