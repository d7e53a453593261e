/* Every workload of one primitive (src/algorithms/primitives.h names them)
 * under oclgrind (tests/oclgrind.sh), at the shape $CLPRIM_TUNING gives, each
 * checked against its C loop. tests/meson.build registers a case per
 * primitive from that list, so a new primitive is simulated without a line
 * here.
 *
 *   oclgrind_primitive NAME [N [TYPE]]    N elements (default 300), each workload
 *                                         in TYPE (default: by turns, as the
 *                                         shapes test picks them)
 *
 * Each workload runs in a process of its own: oclgrind 21.10 reports as
 * uninitialized what one kernel wrote and a later one reads in a buffer
 * created after another was released (tests/oclgrind_sequence.c), which a
 * second workload in one context would do. The device comes from
 * $CLPRIM_OCLGRIND_DEVICE, default "oclgrind". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static int run_one(const workload_kind *kind, size_t turn, size_t n, const char *type)
{
    const char *spec = getenv("CLPRIM_OCLGRIND_DEVICE");
    clprim_context *ctx = NULL;
    clprim_status s = clprim_create(&ctx, spec && *spec ? spec : "oclgrind");
    if (s != CLPRIM_SUCCESS) {
        fprintf(stderr, "oclgrind_primitive: clprim_create: %s: %s\n", clprim_status_name(s), clprim_last_error(NULL));
        return 1;
    }
    clprim_type t = harness_workload_type(ctx, kind, turn);
    if (type)
        workload_parse_type(type, &t);
    const clprim_tuning tuning = clprim_get_tuning(ctx);
    printf("%s (%s), %s, n=%zu on %s, wg=%zu items=%zu groups=%zu\n", kind->name, kind->primitive,
           workload_type_name(t), n, ctx->device_name, tuning.work_group_size, tuning.items_per_thread, tuning.groups);
    char why[512];
    const int ok = harness_run_workload(ctx, kind, t, n, why, sizeof why);
    if (!ok)
        fprintf(stderr, "oclgrind_primitive: %s\n", why);
    clprim_release(ctx);
    fflush(stdout); /* the child ends with _exit */
    return !ok;
}

int main(int argc, char **argv)
{
    clprim_type given = CLPRIM_INT32;
    if (argc < 2 || argc > 4 || (argc > 3 && !workload_parse_type(argv[3], &given))) {
        fprintf(stderr, "usage: oclgrind_primitive NAME [N [TYPE]]\n");
        return 2;
    }
    const size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 300;
    const char *type = argc > 3 ? argv[3] : NULL;
    const workload_kind *const *lists[] = {workload_kinds, workload_photo_kinds};
    int failures = 0, found = 0;
    size_t turn = 0;
    for (size_t l = 0; l < 2; l++)
        for (const workload_kind *const *kind = lists[l]; *kind; kind++, turn++) {
            if (strcmp((*kind)->primitive, argv[1]) || (type && (*kind)->supports && !(*kind)->supports(given)))
                continue;
            found++;
            fflush(stdout);
            const pid_t pid = fork();
            if (pid == 0)
                _exit(run_one(*kind, turn, n, type));
            int status = 1;
            if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
                failures++;
        }
    if (!found)
        fprintf(stderr, "oclgrind_primitive: no workload runs primitive %s\n", argv[1]);
    return !found || failures;
}
