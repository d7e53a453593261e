/* `clprim cache`: the disk cache of built kernels. warm builds every program
 * for a device, clear removes the entries, info says where the cache is and
 * what it holds. */
#include "commands.h"
#include "internal.h"
#include "options.h"
#include "progress.h"

#include <stdio.h>
#include <string.h>

enum { WARM, CLEAR, INFO };
static const char *const actions[] = {"warm", "clear", "info"};

enum { OPT_DEVICE };
static const cli_option options[] = {
    [OPT_DEVICE] = {"device", 'd', "D", "the device to build for", 1u << WARM},
};

static const cli_command command = {
    "cache", "warm|clear|info",
    "  warm   build every kernel program for a device now\n"
    "  clear  remove every cache entry (nothing else in the folder)\n"
    "  info   the folder, whether it is used, its entries and cap\n"
    "The folder is $CLPRIM_CACHE_DIR, else $XDG_CACHE_HOME/clprim, else ~/.cache/clprim;\n"
    "its entries take at most $CLPRIM_CACHE_MAX bytes (default 256M; K, M, G suffixes; 0: off),\n"
    "least recently used first out. $CLPRIM_LOG=1 shows each read, cache hit or miss and build.\n",
    options, 1, "cache", actions,
};

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

static void show_program(void *user, const char *what, unsigned long done, unsigned long total)
{
    (void)user;
    cli_progress("%s: program %lu of %lu", what, done, total);
}

static int cache_warm(const char *device)
{
    clprim_context *ctx = cli_open(device);
    if (!ctx)
        return 1;
    double start = cli_now();
    clprim_set_progress(ctx, show_program, NULL);
    clprim_status s = clprim_warm_up(ctx);
    cli_progress_clear();
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
    const char *device = NULL;
    cli_parser p;
    cli_begin(&p, &command, argc, argv);
    for (int opt; (opt = cli_next(&p)) >= 0;)
        if (opt == OPT_DEVICE)
            device = p.value;
    if (p.exit >= 0)
        return p.exit;
    if (p.nargs == 1 && !strcmp(p.args[0], "help")) {
        cli_print_help(&command, stdout);
        return 0;
    }
    if (p.nargs == 0)
        return cli_usage_error(&p, "say warm, clear or info");
    if (p.nargs > 1)
        return cli_usage_error(&p, "unexpected argument \"%s\"", p.args[1]);
    int action = 0;
    while (action < 3 && strcmp(p.args[0], actions[action]))
        action++;
    if (action == 3)
        return cli_usage_error(&p, "unknown action \"%s\" (warm, clear or info)", p.args[0]);
    if (device && action != WARM) /* a mistake here, not a mere warning: nothing would say it was ignored */
        return cli_usage_error(&p, "%s: --device applies to warm only", actions[action]);
    return action == WARM ? cache_warm(device) : action == CLEAR ? cache_clear() : cache_info();
}
