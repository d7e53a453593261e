/* Option values of the `clprim` commands (options.h). */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_long(const char *cmd, const char *option, const char *text, long min, long max, long *out)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (*end || end == text || v < min || v > max) {
        fprintf(stderr, "clprim %s: %s %s: want a whole number in [%ld, %ld]\n", cmd, option, text, min, max);
        return 0;
    }
    *out = v;
    return 1;
}

int cli_parse_ulong(const char *cmd, const char *option, const char *text, unsigned long min, unsigned long max,
                    unsigned long *out)
{
    char *end = NULL;
    unsigned long v = strtoul(text, &end, 10);
    if (!*text || *end || text[0] == '-' || v < min || v > max) {
        fprintf(stderr, "clprim %s: %s %s: want a whole number in [%lu, %lu]\n", cmd, option, text, min, max);
        return 0;
    }
    *out = v;
    return 1;
}

int cli_parse_double(const char *cmd, const char *option, const char *text, double min, double max, int open_min,
                     double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (*end || end == text || !((open_min ? v > min : v >= min) && v <= max)) {
        fprintf(stderr, "clprim %s: %s %s: want a number in %c%g, %g]\n", cmd, option, text, open_min ? '(' : '[',
                min, max);
        return 0;
    }
    *out = v;
    return 1;
}

int cli_pick(const char *cmd, const char *option, const char *text, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(text, names[i]))
            return i;
    fprintf(stderr, "clprim %s: unknown %s %s (", cmd, option, text);
    for (int i = 0; i < count; i++)
        fprintf(stderr, "%s%s", i == 0 ? "" : i == count - 1 ? " or " : ", ", names[i]);
    fprintf(stderr, ")\n");
    return -1;
}
