/* Threads: contexts created by many threads at once in a fresh process, one
 * context called from two threads (CLPRIM_CONTEXT_BUSY), and each thread's own
 * context-less message. Helper threads never assert: they record what they saw
 * and the test thread checks it. */
#define _GNU_SOURCE /* strcasestr */
#include <pthread.h>
#include <semaphore.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "reference.h"

extern char **environ;

/* ---- Creating contexts at once ---- */

/* `test_threads --create-at-once SPEC` runs create_at_once(SPEC) instead of the suite. */
#define CREATE_AT_ONCE "--create-at-once"
enum { CREATORS = 8, CREATE_ROUNDS = 5 };

typedef struct {
    pthread_barrier_t *start;
    const char *spec;
    clprim_status status;
    char message[512];
} creator;

static void *create_one(void *arg)
{
    creator *c = arg;
    pthread_barrier_wait(c->start);
    clprim_context *ctx = NULL;
    c->status = clprim_create(&ctx, c->spec);
    snprintf(c->message, sizeof c->message, "%s", clprim_last_error(NULL));
    clprim_release(ctx);
    return NULL;
}

/* Runs in a process of its own, whose first OpenCL calls are these threads'
 * (a Check child is forked from a parent that may have initialised OpenCL).
 * Exit status 0 when every thread got a context. */
static int create_at_once(const char *spec)
{
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, CREATORS);
    creator creators[CREATORS];
    pthread_t threads[CREATORS];
    for (int i = 0; i < CREATORS; i++) {
        creators[i] = (creator){.start = &start, .spec = spec};
        pthread_create(&threads[i], NULL, create_one, &creators[i]);
    }
    int failed = 0;
    for (int i = 0; i < CREATORS; i++) {
        pthread_join(threads[i], NULL);
        if (creators[i].status != CLPRIM_SUCCESS) {
            fprintf(stderr, "thread %d: clprim_create(\"%s\"): %s: %s\n", i, spec,
                    clprim_status_name(creators[i].status), creators[i].message);
            failed = 1;
        }
    }
    pthread_barrier_destroy(&start);
    return failed;
}

START_TEST(create_at_once_in_fresh_processes)
{
    /* Racing is not certain to go wrong on one try: several fresh processes. */
    for (size_t dev = 0; dev < harness_device_count(); dev++)
        for (int round = 0; round < CREATE_ROUNDS; round++) {
            char *argv[] = {"/proc/self/exe", CREATE_AT_ONCE, (char *)harness_device_spec(dev), NULL};
            pid_t pid;
            int err = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
            ck_assert_msg(err == 0, "posix_spawn of the test binary: %s", strerror(err));
            int status;
            ck_assert_int_eq(waitpid(pid, &status, 0), pid);
            ck_assert_msg(!WIFSIGNALED(status), "%s, round %d: %d threads creating contexts at once: killed by "
                          "signal %d", argv[2], round, CREATORS, WTERMSIG(status));
            ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                          "%s, round %d: a thread's clprim_create failed (its message is on stderr)", argv[2], round);
        }
}
END_TEST

/* ---- One context, two threads ---- */

enum { N = 1000 };

/* Every public call that uses a context, with arguments it would refuse: a
 * context held by another thread must be reported first. */
static clprim_status call_set_tuning(clprim_context *c) { return clprim_set_tuning(c, NULL); }
static clprim_status call_set_progress(clprim_context *c) { return clprim_set_progress(c, NULL, NULL); }
static clprim_status call_warm_up(clprim_context *c) { return clprim_warm_up(c); }
static clprim_status call_scan(clprim_context *c)
{
    return clprim_scan(c, CLPRIM_INT32, CLPRIM_SUM, 0, NULL, 0, NULL, 0, 1, 0, NULL, NULL);
}
static clprim_status call_reduce(clprim_context *c)
{
    return clprim_reduce(c, CLPRIM_INT32, CLPRIM_SUM, NULL, 0, 1, NULL, 0, NULL);
}
static clprim_status call_compact(clprim_context *c)
{
    return clprim_compact(c, CLPRIM_INT32, NULL, NULL, 0, NULL, 0, 1, NULL, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_histogram(clprim_context *c)
{
    return clprim_histogram(c, CLPRIM_INT32, NULL, 0, 1, 0, 1, 1, NULL, 0, 0, 0, NULL, NULL);
}
static clprim_status call_scan_op(clprim_context *c)
{
    return clprim_scan_op(c, CLPRIM_INT32, NULL, 0, NULL, 0, NULL, 0, 1, 0, NULL, NULL);
}
static clprim_status call_reduce_op(clprim_context *c)
{
    return clprim_reduce_op(c, CLPRIM_INT32, NULL, NULL, 0, 1, NULL, 0, NULL);
}
static clprim_status call_reduce_index(clprim_context *c)
{
    return clprim_reduce_index(c, CLPRIM_INT32, CLPRIM_MAX, NULL, 0, 1, NULL, NULL, 0, NULL);
}
static clprim_status call_scan_by_key(clprim_context *c)
{
    return clprim_scan_by_key(c, CLPRIM_INT32, CLPRIM_INT32, CLPRIM_SUM, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 1, 0, NULL,
                              NULL);
}
static clprim_status call_histogram_range(clprim_context *c)
{
    return clprim_histogram_range(c, CLPRIM_INT32, NULL, 0, 1, NULL, 0, 1, NULL, 0, 0, 0, NULL, NULL);
}
static clprim_status call_threshold_red(clprim_context *c)
{
    return clprim_threshold_red(c, NULL, NULL, 1.0f, CLPRIM_THRESHOLD_KEEP, 0, NULL, NULL);
}
static clprim_status call_threshold_red_planar(clprim_context *c)
{
    return clprim_threshold_red_planar(c, NULL, NULL, 1.0f, CLPRIM_THRESHOLD_KEEP, 0, NULL, NULL);
}
static clprim_status call_image_histogram(clprim_context *c)
{
    return clprim_image_histogram(c, NULL, CLPRIM_CHANNEL_GREY, 256, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_otsu(clprim_context *c) { return clprim_otsu(c, NULL, 0, 256, NULL, 0, NULL, 0, NULL, NULL); }
static clprim_status call_threshold_grey(clprim_context *c)
{
    return clprim_threshold_grey(c, NULL, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_threshold_grey_buffer(clprim_context *c)
{
    return clprim_threshold_grey_buffer(c, NULL, NULL, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_threshold_otsu(clprim_context *c)
{
    return clprim_threshold_otsu(c, NULL, NULL, NULL, 0, NULL, NULL);
}
static clprim_status call_sort_keys(clprim_context *c)
{
    return clprim_sort_keys(c, CLPRIM_UINT32, NULL, NULL, 0, NULL, 0, 1, 0, NULL, NULL);
}
static clprim_status call_sort_pairs(clprim_context *c)
{
    return clprim_sort_pairs(c, CLPRIM_UINT32, CLPRIM_UINT32, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 1, 0, NULL, NULL);
}
static clprim_status call_box_sort(clprim_context *c)
{
    return clprim_box_sort(c, NULL, NULL, 0, 1, NULL, 0, NULL, 0, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_kmeans(clprim_context *c)
{
    return clprim_kmeans(c, NULL, 1, 1, NULL, NULL, 0, NULL, NULL, 0, NULL);
}
static clprim_status call_segmented_sort_keys(clprim_context *c)
{
    return clprim_segmented_sort_keys(c, CLPRIM_UINT32, NULL, NULL, 0, NULL, 0, 1, NULL, 0, 1, 0, NULL, NULL);
}
static clprim_status call_top_k_keys(clprim_context *c)
{
    return clprim_top_k_keys(c, CLPRIM_UINT32, NULL, 1, NULL, 0, 1, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_merge_in_order(clprim_context *c)
{
    return clprim_merge_in_order(c, CLPRIM_UINT32, CLPRIM_UINT32, NULL, NULL, 0, NULL, 0, 1, NULL, 0, NULL, 0, 1, NULL, 0,
                                 NULL, 0, 0, NULL, NULL);
}
static clprim_status call_segmented_reduce_index(clprim_context *c)
{
    return clprim_segmented_reduce_index(c, CLPRIM_INT32, CLPRIM_MIN, NULL, 0, 1, NULL, 0, 1, NULL, 0, NULL, 0, 0, NULL,
                                         NULL);
}
static clprim_status call_histogram_channels(clprim_context *c)
{
    return clprim_histogram_channels(c, NULL, 0, 1, 1, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_delta_pack(clprim_context *c)
{
    return clprim_delta_pack(c, CLPRIM_UINT32, NULL, 0, 1, NULL, 0, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_delta_unpack(clprim_context *c)
{
    return clprim_delta_unpack(c, CLPRIM_UINT32, NULL, 0, 6, 1, NULL, 0, 0, NULL, NULL);
}
static clprim_status call_pinned_host(clprim_context *c)
{
    void *host;
    return clprim_pinned_host(c, 1, &host);
}

static const struct {
    const char *name;
    clprim_status (*call)(clprim_context *ctx);
} entry_points[] = {
    {"clprim_set_tuning", call_set_tuning},
    {"clprim_set_progress", call_set_progress},
    {"clprim_warm_up", call_warm_up},
    {"clprim_scan", call_scan},
    {"clprim_reduce", call_reduce},
    {"clprim_compact", call_compact},
    {"clprim_histogram", call_histogram},
    {"clprim_histogram_range", call_histogram_range},
    {"clprim_scan_op", call_scan_op},
    {"clprim_reduce_op", call_reduce_op},
    {"clprim_reduce_index", call_reduce_index},
    {"clprim_scan_by_key", call_scan_by_key},
    {"clprim_threshold_red", call_threshold_red},
    {"clprim_threshold_red_planar", call_threshold_red_planar},
    {"clprim_image_histogram", call_image_histogram},
    {"clprim_otsu", call_otsu},
    {"clprim_threshold_grey", call_threshold_grey},
    {"clprim_threshold_grey_buffer", call_threshold_grey_buffer},
    {"clprim_threshold_otsu", call_threshold_otsu},
    {"clprim_sort_keys", call_sort_keys},
    {"clprim_sort_pairs", call_sort_pairs},
    {"clprim_box_sort", call_box_sort},
    {"clprim_kmeans", call_kmeans},
    {"clprim_segmented_sort_keys", call_segmented_sort_keys},
    {"clprim_top_k_keys", call_top_k_keys},
    {"clprim_merge_in_order", call_merge_in_order},
    {"clprim_segmented_reduce_index", call_segmented_reduce_index},
    {"clprim_histogram_channels", call_histogram_channels},
    {"clprim_pinned_host", call_pinned_host},
    {"clprim_delta_pack", call_delta_pack},
    {"clprim_delta_unpack", call_delta_unpack},
};

/* A thread that holds the context the way a long public call does, and makes
 * public calls from inside (as the library's own calls may), in steps the test
 * thread paces with `go` and `done`. */
typedef struct {
    clprim_context *ctx;
    cl_mem src, dst;
    sem_t go, done;
    clprim_status entered, nested_bad, nested_good;
    char nested_bad_message[512];
} holder;

static void *hold(void *arg)
{
    holder *h = arg;
    clprim_entry entry = {h->ctx, 0};
    h->entered = clprim_enter(&entry, "holder");
    h->nested_bad = clprim_scan(h->ctx, CLPRIM_INT32, CLPRIM_SUM, 0, NULL, 0, h->dst, 0, N, 0, NULL, NULL);
    snprintf(h->nested_bad_message, sizeof h->nested_bad_message, "%s", clprim_last_error(h->ctx));
    sem_post(&h->done);
    sem_wait(&h->go);
    h->nested_good = clprim_scan(h->ctx, CLPRIM_INT32, CLPRIM_SUM, 0, h->src, 0, h->dst, 0, N, 0, NULL, NULL);
    sem_post(&h->done);
    sem_wait(&h->go);
    clprim_leave(&entry);
    sem_post(&h->done);
    return NULL;
}

/* A scan into dst that must fail with CLPRIM_CONTEXT_BUSY, leave dst as it was,
 * put its message on this thread and leave the holder's message alone. */
static void assert_scan_busy(clprim_context *ctx, cl_mem src, cl_mem dst, const char *holder_message)
{
    clprim_status s = clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, dst, 0, N, 0, NULL, NULL);
    harness_assert_error(NULL, s, CLPRIM_CONTEXT_BUSY, "clprim_scan: the context is in use by another thread");
    ck_assert_str_eq(clprim_last_error(ctx), holder_message);
    int32_t out[N];
    harness_read(ctx, dst, 0, sizeof out, out);
    ck_assert_msg(harness_all_sentinel(out, sizeof out), "a scan refused as busy wrote dst");
}

static void assert_scanned(clprim_context *ctx, const int32_t *data, cl_mem dst)
{
    int32_t out[N];
    char msg[512];
    harness_read(ctx, dst, 0, sizeof out, out);
    ck_assert_msg(reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 0, data, out, N, msg, sizeof msg) == N, "%s", msg);
}

START_TEST(busy_context_is_refused)
{
    FOR_EACH_DEVICE(ctx)
    {
        int32_t data[N];
        uint64_t rng = harness_rng(1);
        harness_fill_random(CLPRIM_INT32, data, N, &rng);
        cl_mem src = harness_buffer(ctx, sizeof data, data), dst = harness_buffer(ctx, sizeof data, NULL);
        holder h = {.ctx = ctx, .src = src, .dst = harness_buffer(ctx, sizeof data, NULL)};
        sem_init(&h.go, 0, 0);
        sem_init(&h.done, 0, 0);
        pthread_t thread;
        ck_assert_int_eq(pthread_create(&thread, NULL, hold, &h), 0);

        /* The holder is inside, its nested call failed with a message of its own. */
        sem_wait(&h.done);
        ck_assert_int_eq(h.entered, CLPRIM_SUCCESS);
        ck_assert_msg(h.nested_bad == CLPRIM_INVALID_ARGUMENT && strstr(h.nested_bad_message, "src"),
                      "nested scan with a NULL src: %s: %s", clprim_status_name(h.nested_bad), h.nested_bad_message);
        ck_assert_str_eq(clprim_last_error(ctx), h.nested_bad_message);
        for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
            clprim_status s = entry_points[i].call(ctx);
            ck_assert_msg(s == CLPRIM_CONTEXT_BUSY, "%s on a held context: %s (%s)", entry_points[i].name,
                          clprim_status_name(s), clprim_last_error(NULL));
            harness_assert_error(NULL, s, CLPRIM_CONTEXT_BUSY, entry_points[i].name);
            ck_assert_str_eq(clprim_last_error(ctx), h.nested_bad_message);
        }
        assert_scan_busy(ctx, src, dst, h.nested_bad_message);

        /* A nested call that succeeds leaves the context held. */
        sem_post(&h.go);
        sem_wait(&h.done);
        ck_assert_int_eq(h.nested_good, CLPRIM_SUCCESS);
        assert_scanned(ctx, data, h.dst);
        assert_scan_busy(ctx, src, dst, "");

        /* Given back, the context serves this thread. */
        sem_post(&h.go);
        sem_wait(&h.done);
        pthread_join(thread, NULL);
        ck_assert_int_eq(clprim_scan(ctx, CLPRIM_INT32, CLPRIM_SUM, 0, src, 0, dst, 0, N, 0, NULL, NULL),
                         CLPRIM_SUCCESS);
        ck_assert_str_eq(clprim_last_error(ctx), "");
        assert_scanned(ctx, data, dst);

        sem_destroy(&h.go);
        sem_destroy(&h.done);
        clReleaseMemObject(h.dst);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
}
END_TEST

/* Two threads taking turns on one context: each tries until it has done
 * RACE_CALLS scans; every try either runs, with a right result, or is refused
 * as busy and leaves dst alone. A short random pause before each try keeps the
 * threads from falling into step (each waits on the shared queue otherwise). */
enum { RACERS = 2, RACE_CALLS = 40, RACE_N = 20000, RACE_MAX_TRIES = 100000 };

typedef struct {
    clprim_context *ctx;
    pthread_barrier_t *start;
    uint64_t rng;
    int32_t *data, *out;
    cl_mem src, dst;
    int done, busy;
    char failure[600]; /* the first thing that went wrong, "" when none */
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    const cl_uchar sentinel = HARNESS_SENTINEL;
    const size_t bytes = RACE_N * sizeof(int32_t);
    cl_command_queue queue = clprim_queue(r->ctx);
    pthread_barrier_wait(r->start);
    for (int try = 0; r->done < RACE_CALLS && !r->failure[0]; try++) {
        if (try == RACE_MAX_TRIES) {
            snprintf(r->failure, sizeof r->failure, "%d scans done, then busy %d times", r->done, r->busy);
            break;
        }
        cl_int err = clEnqueueFillBuffer(queue, r->dst, &sentinel, 1, 0, bytes, 0, NULL, NULL);
        usleep((useconds_t)(harness_rand(&r->rng) % 300));
        clprim_status s = clprim_scan(r->ctx, CLPRIM_INT32, CLPRIM_SUM, 0, r->src, 0, r->dst, 0, RACE_N, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(queue, r->dst, CL_TRUE, 0, bytes, r->out, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            snprintf(r->failure, sizeof r->failure, "try %d: filling or reading dst: %s", try,
                     clprim_cl_error_name(err));
        } else if (s == CLPRIM_SUCCESS) {
            char msg[512];
            if (reference_check_scan(CLPRIM_INT32, CLPRIM_SUM, 0, r->data, r->out, RACE_N, msg, sizeof msg) != RACE_N)
                snprintf(r->failure, sizeof r->failure, "try %d: %s", try, msg);
            r->done++;
        } else if (s == CLPRIM_CONTEXT_BUSY) {
            if (!strstr(clprim_last_error(NULL), "in use by another thread"))
                snprintf(r->failure, sizeof r->failure, "try %d: busy with the message \"%s\"", try,
                         clprim_last_error(NULL));
            else if (!harness_all_sentinel(r->out, bytes))
                snprintf(r->failure, sizeof r->failure, "try %d: a scan refused as busy wrote dst", try);
            r->busy++;
        } else {
            snprintf(r->failure, sizeof r->failure, "try %d: %s: %s", try, clprim_status_name(s),
                     clprim_last_error(NULL));
        }
    }
    return NULL;
}

START_TEST(racing_threads_get_right_results_or_busy)
{
    FOR_EACH_DEVICE(ctx)
    {
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, RACERS);
        racer racers[RACERS];
        pthread_t threads[RACERS];
        uint64_t rng = harness_rng(2);
        for (int i = 0; i < RACERS; i++) {
            racer *r = &racers[i];
            *r = (racer){.ctx = ctx, .start = &start, .rng = harness_rng(3 + i)};
            r->data = harness_malloc(RACE_N * sizeof(int32_t));
            r->out = harness_malloc(RACE_N * sizeof(int32_t));
            harness_fill_random(CLPRIM_INT32, r->data, RACE_N, &rng);
            r->src = harness_buffer(ctx, RACE_N * sizeof(int32_t), r->data);
            r->dst = harness_buffer(ctx, RACE_N * sizeof(int32_t), NULL);
        }
        for (int i = 0; i < RACERS; i++)
            ck_assert_int_eq(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
        for (int i = 0; i < RACERS; i++)
            pthread_join(threads[i], NULL);
        pthread_barrier_destroy(&start);
        for (int i = 0; i < RACERS; i++) {
            racer *r = &racers[i];
            ck_assert_msg(!r->failure[0], "thread %d: %s", i, r->failure);
            fprintf(stderr, "thread %d: %d scans done, %d refused as busy\n", i, r->done, r->busy);
            free(r->data);
            free(r->out);
            clReleaseMemObject(r->src);
            clReleaseMemObject(r->dst);
        }
        ck_assert_msg(clprim_set_tuning(ctx, NULL) == CLPRIM_SUCCESS, "the context was not given back: %s",
                      clprim_last_error(NULL));
    }
}
END_TEST

/* ---- Each thread's own message ---- */

enum { MESSENGERS = 4 };

typedef struct {
    pthread_barrier_t *failed;
    int which;
    char message[512];
} messenger;

/* Fails one call with no context, waits until every thread has failed its own,
 * then reads its message. */
static void *fail_without_context(void *arg)
{
    messenger *m = arg;
    entry_points[m->which].call(NULL);
    pthread_barrier_wait(m->failed);
    snprintf(m->message, sizeof m->message, "%s", clprim_last_error(NULL));
    return NULL;
}

START_TEST(messages_without_context_are_per_thread)
{
    clprim_status s = call_set_tuning(NULL);
    harness_assert_error(NULL, s, CLPRIM_INVALID_ARGUMENT, "clprim_set_tuning: ctx is NULL");
    pthread_barrier_t failed;
    pthread_barrier_init(&failed, NULL, MESSENGERS);
    messenger messengers[MESSENGERS];
    pthread_t threads[MESSENGERS];
    for (int i = 0; i < MESSENGERS; i++) {
        messengers[i] = (messenger){.failed = &failed, .which = 2 + i};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, fail_without_context, &messengers[i]), 0);
    }
    for (int i = 0; i < MESSENGERS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&failed);
    for (int i = 0; i < MESSENGERS; i++) {
        char want[128];
        snprintf(want, sizeof want, "%s: ctx is NULL", entry_points[messengers[i].which].name);
        ck_assert_str_eq(messengers[i].message, want);
    }
    ck_assert_str_eq(clprim_last_error(NULL), "clprim_set_tuning: ctx is NULL");
}
END_TEST

/* Every entry point refuses a NULL context with its own name, on this
 * thread's message. */
START_TEST(every_entry_point_refuses_no_context)
{
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "%s: ctx is NULL", entry_points[i].name);
        const clprim_status s = entry_points[i].call(NULL);
        ck_assert_msg(s == CLPRIM_INVALID_ARGUMENT, "%s without a context: %s", entry_points[i].name,
                      clprim_status_name(s));
        ck_assert_str_eq(clprim_last_error(NULL), want);
    }
}
END_TEST

static Suite *threads_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_add_test(tc, create_at_once_in_fresh_processes);
    tcase_add_test(tc, busy_context_is_refused);
    tcase_add_test(tc, every_entry_point_refuses_no_context);
    tcase_add_test(tc, racing_threads_get_right_results_or_busy);
    tcase_add_test(tc, messages_without_context_are_per_thread);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], CREATE_AT_ONCE))
        return create_at_once(argv[2]);
    return harness_run(threads_suite());
}
