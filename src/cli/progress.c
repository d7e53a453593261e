/* Progress lines (progress.h). */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int on_terminal(void)
{
    static int tty = -1;
    if (tty < 0)
        tty = isatty(STDERR_FILENO);
    return tty;
}

void cli_progress(const char *format, ...)
{
    if (!on_terminal())
        return;
    va_list ap;
    va_start(ap, format);
    fputc('\r', stderr);
    vfprintf(stderr, format, ap);
    fputs("\033[K", stderr); /* the rest of a longer previous line */
    fflush(stderr);
    va_end(ap);
}

void cli_progress_clear(void)
{
    if (on_terminal()) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}
