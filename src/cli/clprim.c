/* `clprim`: the command-line tool. Each subcommand lives in its own cmd_<name>.c. */
#include "commands.h"
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} command;

static const command commands[] = {
    {"devices", cmd_devices, "devices                 every OpenCL platform and device, and the one picked"},
    {"demo", cmd_demo, "demo [--device D]       every primitive on generated data, checked against the CPU"},
    {"bench", cmd_bench, "bench [--device D] ...  time every primitive over a sweep of sizes (--help)"},
    {"compact", cmd_compact, "compact [IN [-o OUT]] [--gt V|--keep EXPR|...]  copy_if over IN, or over generated data"},
    {"sort", cmd_sort, "sort IN [-o OUT] [--descending] [--values FILE --values-out OUT]  stable radix sort"},
    {"scan", cmd_scan, "scan IN [-o OUT] [--op sum|min|max] [--exclusive]  running sums, minima or maxima"},
    {"reduce", cmd_reduce, "reduce IN [--op sum|min|max]  the sum, minimum or maximum, printed"},
    {"unique", cmd_unique, "unique IN [-o OUT] [--counts-out OUT]  the first of each run of equal adjacent elements"},
    {"threshold", cmd_threshold, "threshold IN OUT.png [--ratio R] [--mode keep|yellow|reinsert|grey|otsu] [--device D]"},
    {"histogram", cmd_histogram, "histogram IN [--bins N] [--channel r|g|b|a|grey|all] [--plot FILE.png]  of an image\n"
                                 "  histogram IN [--bins N [--range LO,HI] | --edges E] [-o OUT]  of an array (np.histogram)"},
    {"kmeans", cmd_kmeans, "kmeans IN OUT.png -k K [--iterations N] [--seed S] [--restarts N] [--check] [--palette FILE.png]"},
    {"cache", cmd_cache, "cache warm|clear|info [--device D]  the disk cache of built kernels (--help)"},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: clprim COMMAND [ARGS]\n       clprim --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %s\n", commands[i].usage);
    fprintf(to, "\n`clprim COMMAND --help` lists a command's options; `clprim --version` prints the version.\n"
                "The device is --device SPEC, else $CLPRIM_DEVICE, else the first GPU, else any device.\n"
                "SPEC is gpu, cpu, P:D (as `clprim devices` lists them) or part of a device name.\n"
                "An array IN (sort, scan, reduce, unique, compact, histogram) is a .npy file, or raw\n"
                "binary with --type T; - reads standard input, -o - writes standard output.\n"
                "\nexit status: 0 done (and checks passed); 1 the work failed (a device, file or library\n"
                "error, or a --check mismatch); 2 bad usage (unknown command or option, bad value).\n");
}

clprim_context *cli_open(const char *device)
{
    clprim_context *ctx;
    clprim_status s = clprim_create(&ctx, device);
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "clprim: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return NULL;
    }
    return ctx;
}

const char *cli_form_name(clprim_form form)
{
    return form == CLPRIM_FORM_ONE_SWEEP ? "one-sweep" : form == CLPRIM_FORM_MULTI_PASS ? "multi-pass" : "default";
}

void cli_first_call_note(const clprim_context *ctx, unsigned compiled_before, unsigned loaded_before, char *note,
                         size_t size)
{
    unsigned compiled, loaded;
    clprim_program_counts(ctx, &compiled, &loaded);
    compiled -= compiled_before, loaded -= loaded_before;
    if (!compiled && !loaded)
        snprintf(note, size, "its kernel programs already built");
    else if (!compiled)
        snprintf(note, size, "loading %u kernel program%s from the disk cache", loaded, loaded == 1 ? "" : "s");
    else /* without the disk cache (PoCL keeps its own), a build may still be quick */
        snprintf(note, size, "building %u kernel program%s%s%s", compiled, compiled == 1 ? "" : "s",
                 loaded ? " and loading the others from the disk cache" : "",
                 *clprim_cache_note(ctx) ? " (the disk cache is not used here: `clprim cache info` says why)" : "");
}

double cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("clprim %s\n", CLPRIM_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "clprim: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return 2;
}
