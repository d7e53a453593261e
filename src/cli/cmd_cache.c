/* `clprim cache`: the disk cache of built kernels. warm builds every program
 * for a device, clear removes the entries, info says where the cache is and
 * what it holds. */
#include "commands.h"
#include "internal.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char help[] =
    "usage: clprim cache warm [--device D]   build every kernel program for a device now\n"
    "       clprim cache clear               remove every cache entry (nothing else in the folder)\n"
    "       clprim cache info                the folder, whether it is used, its entries and cap\n"
    "\n"
    "The folder is $CLPRIM_CACHE_DIR, else $XDG_CACHE_HOME/clprim, else ~/.cache/clprim;\n"
    "its entries take at most $CLPRIM_CACHE_MAX bytes (default 256M; K, M, G suffixes; 0: off),\n"
    "least recently used first out. $CLPRIM_LOG=1 shows each read, cache hit or miss and build.\n";

static void print_size(const char *label, uint64_t bytes)
{
    printf("%-9s%llu bytes (%.1f MiB)\n", label, (unsigned long long)bytes, (double)bytes / (1 << 20));
}

static int cache_info(void)
{
    clprim_cache_state st;
    clprim_cache_inspect(&st);
    printf("%-9s%s\n", "folder:", st.dir[0] ? st.dir : "(none)");
    if (st.in_use)
        printf("%-9s%s%s%s\n", "status:", st.missing ? "used (not created yet)" : "used", st.note[0] ? "; " : "",
               st.note);
    else
        printf("%-9s%s\n", "status:", st.note[0] ? st.note : "not used ($CLPRIM_CACHE_MAX is 0)");
    printf("%-9s%zu\n", "entries:", st.entries);
    print_size("size:", st.bytes);
    if (st.cap)
        print_size("cap:", st.cap);
    else
        printf("%-9s0 (the disk cache is off)\n", "cap:");
    return 0;
}

static int cache_clear(void)
{
    clprim_cache_state st;
    long removed = clprim_cache_clear(&st);
    if (removed < 0) {
        fprintf(stderr, "clprim cache clear: %s\n", st.note);
        return 1;
    }
    if (!st.dir[0]) {
        printf("no cache folder: %s\n", st.note);
        return 0;
    }
    printf("removed %ld entr%s from %s\n", removed, removed == 1 ? "y" : "ies", st.dir);
    return 0;
}

static int cache_warm(const char *device)
{
    clprim_context *ctx = cli_open(device);
    if (!ctx)
        return 1;
    double start = cli_now();
    clprim_status s = clprim_warm_up(ctx);
    unsigned compiled, loaded;
    clprim_program_counts(ctx, &compiled, &loaded);
    if (s != CLPRIM_SUCCESS)
        fprintf(stderr, "clprim cache warm: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
    else
        printf("%u programs built, %u loaded from the cache, in %.1f s\n", compiled, loaded, cli_now() - start);
    const char *note = clprim_cache_note(ctx);
    if (*note)
        printf("note: %s\n", note);
    clprim_release(ctx);
    return s == CLPRIM_SUCCESS ? 0 : 1;
}

int cmd_cache(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"device", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *device = NULL;
    opterr = 0;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "d:h", long_options, NULL)) != -1;) {
        if (c == 'h') {
            fputs(help, stdout);
            return 0;
        }
        if (c == 'd') {
            device = optarg;
            continue;
        }
        if (optopt == 'd')
            fprintf(stderr, "clprim cache: --device needs a value\n");
        else
            fprintf(stderr, "clprim cache: unknown option %s\n", argv[optind - 1]);
        fputs(help, stderr);
        return 2;
    }
    const char *action = optind < argc ? argv[optind] : NULL;
    if (action && !strcmp(action, "help")) {
        fputs(help, stdout);
        return 0;
    }
    int known = action && (!strcmp(action, "warm") || !strcmp(action, "clear") || !strcmp(action, "info"));
    if (!known || optind + 1 < argc || (device && strcmp(action, "warm") != 0)) {
        if (!action)
            fprintf(stderr, "clprim cache: say warm, clear or info\n");
        else if (!known)
            fprintf(stderr, "clprim cache: unknown action \"%s\" (warm, clear or info)\n", action);
        else if (optind + 1 < argc)
            fprintf(stderr, "clprim cache %s: unexpected argument \"%s\"\n", action, argv[optind + 1]);
        else
            fprintf(stderr, "clprim cache %s: --device applies to warm only\n", action);
        fputs(help, stderr);
        return 2;
    }
    if (!strcmp(action, "warm"))
        return cache_warm(device);
    return !strcmp(action, "clear") ? cache_clear() : cache_info();
}
