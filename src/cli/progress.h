/* Progress of long work, on stderr, overwritten in place with '\r'; only when
 * stderr is a terminal, so pipes, files and tests see nothing. */
#ifndef CLPRIM_CLI_PROGRESS_H
#define CLPRIM_CLI_PROGRESS_H

/* Replaces the progress line with this one (printf format). */
void cli_progress(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Clears the progress line, before a result is printed. */
void cli_progress_clear(void);

#endif
