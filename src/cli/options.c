/* Option values of the `clprim` commands (options.h). strtol and friends alone
 * are too lenient: they skip leading blanks, take a sign on an unsigned number
 * ("-5" becomes a huge count), saturate silently, and stop at the first bad
 * character; every text here is checked whole. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits, one or more, from text up to *end. */
static int digits(const char *text, const char **end)
{
    const char *p = text;
    while (isdigit((unsigned char)*p))
        p++;
    *end = p;
    return p > text;
}

/* The whole number the digits text[0 .. end) spell, at most limit; 0 past it. */
static int whole(const char *text, const char *end, uint64_t limit, uint64_t *out)
{
    uint64_t v = 0;
    for (const char *p = text; p < end; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (v > limit / 10 || digit > limit - v * 10)
            return 0;
        v = v * 10 + digit;
    }
    *out = v;
    return 1;
}

int cli_parse_long(const char *cmd, const char *option, const char *text, long min, long max, long *out)
{
    const char *start = text + (text[0] == '-'), *end;
    uint64_t magnitude;
    int ok = digits(start, &end) && !*end && whole(start, end, (uint64_t)LONG_MAX + 1, &magnitude);
    long v = 0;
    if (ok && text[0] == '-')
        v = magnitude > (uint64_t)LONG_MAX ? LONG_MIN : -(long)magnitude;
    else if (ok)
        ok = magnitude <= (uint64_t)LONG_MAX, v = (long)magnitude;
    if (!ok || v < min || v > max) {
        fprintf(stderr, "clprim %s: %s \"%s\": want a whole number in [%ld, %ld]\n", cmd, option, text, min, max);
        return 0;
    }
    *out = v;
    return 1;
}

int cli_parse_ulong(const char *cmd, const char *option, const char *text, unsigned long min, unsigned long max,
                    unsigned long *out)
{
    const char *end;
    uint64_t v;
    if (!digits(text, &end) || *end || !whole(text, end, max, &v) || v < min) {
        fprintf(stderr, "clprim %s: %s \"%s\": want a whole number in [%lu, %lu]\n", cmd, option, text, min, max);
        return 0;
    }
    *out = (unsigned long)v;
    return 1;
}

int cli_parse_count(const char *cmd, const char *option, const char *text, size_t min, size_t max,
                    size_t unit_bytes, size_t *out)
{
    /* Digits, or digits e digits (1e6): a whole number either way. */
    const char *mantissa_end, *end = NULL;
    if (!digits(text, &mantissa_end) ||
        (*mantissa_end ? !strchr("eE", *mantissa_end) || !digits(mantissa_end + 1, &end) || *end : 0)) {
        fprintf(stderr, "clprim %s: %s \"%s\": want a whole number such as 1000000 or 1e6\n", cmd, option, text);
        return 0;
    }
    uint64_t v = 0, exponent = 0;
    int fits = whole(text, mantissa_end, UINT64_MAX, &v);
    if (fits && *mantissa_end)
        fits = whole(mantissa_end + 1, end, 64, &exponent);
    for (uint64_t i = 0; fits && i < exponent && v; i++)
        fits = v <= UINT64_MAX / 10, v *= 10;
    if (!fits || v > SIZE_MAX / unit_bytes) {
        fprintf(stderr, "clprim %s: %s %s: %s x %zu bytes is more than this machine can address (at most %zu)\n",
                cmd, option, text, text, unit_bytes, SIZE_MAX / unit_bytes);
        return 0;
    }
    if (v < min || v > max) {
        fprintf(stderr, "clprim %s: %s %s: want a whole number in [%zu, %zu]\n", cmd, option, text, min, max);
        return 0;
    }
    *out = (size_t)v;
    return 1;
}

int cli_parse_double(const char *cmd, const char *option, const char *text, double min, double max, int open_min,
                     double *out)
{
    char *end = NULL;
    errno = 0;
    double v = isspace((unsigned char)text[0]) ? 0 : strtod(text, &end);
    if (!end || end == text || *end || errno == ERANGE || !((open_min ? v > min : v >= min) && v <= max)) {
        if (min == -DBL_MAX && max == DBL_MAX)
            fprintf(stderr, "clprim %s: %s \"%s\": want a finite number\n", cmd, option, text);
        else
            fprintf(stderr, "clprim %s: %s \"%s\": want a number in %c%g, %g]\n", cmd, option, text,
                    open_min ? '(' : '[', min, max);
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
