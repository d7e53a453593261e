/* Option values of the `clprim` commands (options.h). strtol and friends alone
 * are too lenient: they skip leading blanks, take a sign on an unsigned number
 * ("-5" becomes a huge count), saturate silently, and stop at the first bad
 * character; every text here is checked whole. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdarg.h>
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

/* ---- The option parser ---- */

/* getopt_long's value for options[i]; the help is the one after the table. */
#define LONG_VALUE(i) (256 + (i))

void cli_begin(cli_parser *p, const cli_command *cmd, int argc, char **argv)
{
    *p = (cli_parser){.cmd = cmd, .argc = argc, .argv = argv, .exit = -1};
    /* '-': positional arguments come back in order, whatever $POSIXLY_CORRECT
     * says, so options may follow them; ':': a missing value is told apart. */
    char *s = p->shorts;
    *s++ = '-', *s++ = ':', *s++ = 'h';
    for (int i = 0; i < cmd->option_count; i++) {
        const cli_option *o = &cmd->options[i];
        p->longs[i] = (struct option){o->name, o->value ? required_argument : no_argument, NULL, LONG_VALUE(i)};
        if (o->letter) {
            *s++ = o->letter;
            if (o->value)
                *s++ = ':';
        }
    }
    p->longs[cmd->option_count] = (struct option){"help", no_argument, NULL, 'h'};
    optind = 0; /* glibc: start afresh */
    opterr = 0;
}

static void usage_line(const cli_command *cmd, FILE *to)
{
    fprintf(to, "usage: clprim %s%s%s [options]\n", cmd->name, *cmd->synopsis ? " " : "", cmd->synopsis);
}

/* Ends the parse after a bad option: the message is out, the usage follows. */
static int refuse(cli_parser *p)
{
    usage_line(p->cmd, stderr);
    fprintf(stderr, "(clprim %s --help lists the options)\n", p->cmd->name);
    p->exit = 2;
    return -1;
}

int cli_next(cli_parser *p)
{
    const cli_command *cmd = p->cmd;
    for (;;) {
        int c = getopt_long(p->argc, p->argv, p->shorts, p->longs, NULL);
        if (c == -1) { /* after "--", the rest are positional */
            while (optind < p->argc && p->nargs < CLI_MAX_ARGS)
                p->args[p->nargs++] = p->argv[optind++];
            if (optind < p->argc) {
                fprintf(stderr, "clprim %s: unexpected argument \"%s\"\n", cmd->name, p->argv[optind]);
                return refuse(p);
            }
            return -1;
        }
        if (c == 1) {
            if (p->nargs == CLI_MAX_ARGS) {
                fprintf(stderr, "clprim %s: unexpected argument \"%s\"\n", cmd->name, optarg);
                return refuse(p);
            }
            p->args[p->nargs++] = optarg;
            continue;
        }
        if (c == 'h') {
            cli_print_help(cmd, stdout);
            p->exit = 0;
            return -1;
        }
        if (c == ':' || c == '?') {
            /* optopt: the letter, or LONG_VALUE(i) for options[i] typed long,
             * or 0 for a long name that matches nothing (or more than one). */
            const char *typed = p->argv[optind - 1];
            if (optopt >= 256)
                fprintf(stderr, "clprim %s: --%s %s\n", cmd->name, cmd->options[optopt - 256].name,
                        c == ':' ? "needs a value" : "takes no value");
            else if (c == ':')
                fprintf(stderr, "clprim %s: -%c needs a value\n", cmd->name, optopt);
            else if (optopt)
                fprintf(stderr, "clprim %s: unknown option -%c\n", cmd->name, optopt);
            else
                fprintf(stderr, "clprim %s: unknown option %s\n", cmd->name, typed);
            return refuse(p);
        }
        int i = c - 256;
        if (c < 256) /* a letter */
            for (i = 0; cmd->options[i].letter != c; i++)
                ;
        p->given |= (uint32_t)1 << i;
        p->value = optarg;
        return i;
    }
}

int cli_usage_error(const cli_parser *p, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fprintf(stderr, "clprim %s: ", p->cmd->name);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fputc('\n', stderr);
    usage_line(p->cmd, stderr);
    fprintf(stderr, "(clprim %s --help says more)\n", p->cmd->name);
    return 2;
}

int cli_end(const cli_parser *p, int count)
{
    if (p->exit >= 0)
        return p->exit;
    if (p->nargs < count)
        return cli_usage_error(p, "want %s", p->cmd->synopsis);
    if (p->nargs > count)
        return cli_usage_error(p, "unexpected argument \"%s\"", p->args[count]);
    return -1;
}

int cli_warn_mode(const cli_parser *p, int mode)
{
    const cli_command *cmd = p->cmd;
    int warned = 0;
    for (int i = 0; i < cmd->option_count; i++)
        if ((p->given >> i & 1) && cmd->options[i].modes && !(cmd->options[i].modes >> mode & 1)) {
            fprintf(stderr, "clprim %s: --%s does not apply to %s %s\n", cmd->name, cmd->options[i].name,
                    cmd->mode_option, cmd->modes[mode]);
            warned++;
        }
    return warned;
}

/* "  -k, --k K" or "  --ratio R", then the help from column 26, its lines indented there. */
static void print_option(const cli_command *cmd, const char *name, char letter, const char *value,
                         const char *help, unsigned modes, FILE *to)
{
    int len = letter ? fprintf(to, "  -%c, ", letter) : fprintf(to, "  ");
    len += fprintf(to, "--%s%s%s", name, value ? " " : "", value ? value : "");
    fprintf(to, "%*s", len < 25 ? 26 - len : 1, "");
    for (const char *h = help; *h; h++) {
        fputc(*h, to);
        if (*h == '\n')
            fprintf(to, "%26s", "");
    }
    if (modes) {
        fprintf(to, "\n%26s(%s", "", cmd->mode_option);
        for (int m = 0; modes >> m; m++)
            if (modes >> m & 1)
                fprintf(to, " %s%s", cmd->modes[m], modes >> (m + 1) ? "," : " only)");
    }
    fputc('\n', to);
}

void cli_print_help(const cli_command *cmd, FILE *to)
{
    usage_line(cmd, to);
    if (cmd->about)
        fputs(cmd->about, to);
    fprintf(to, "options:\n");
    for (int i = 0; i < cmd->option_count; i++) {
        const cli_option *o = &cmd->options[i];
        print_option(cmd, o->name, o->letter, o->value, o->help, o->modes, to);
    }
    print_option(cmd, "help", 'h', NULL, "this help", 0, to);
}

int cli_check_list(const char *cmd, const char *option, const char *list, const char *const *names, int count)
{
    for (const char *item = list;;) {
        size_t len = strcspn(item, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, item);
        if (cli_pick(cmd, option, name, names, count) < 0)
            return 0;
        if (!item[len])
            return 1;
        item += len + 1;
    }
}
