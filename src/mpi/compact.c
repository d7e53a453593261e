/* Compaction across ranks: each rank compacts its slice on its device, then
 * the ranks' kept counts are gathered, so each learns where its kept elements
 * lie in the global result. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The expression with every name i replaced by (i + before), so that i counts
 * from the start of the global array; NULL when out of memory. Only the names
 * x and i and function names are accepted by the library's parser, so a
 * lone i is always the index. */
static char *global_index(const char *expression, uint64_t before)
{
    char with[40];
    int with_len = snprintf(with, sizeof with, "(i + %" PRIu64 "ul)", before);
    size_t len = strlen(expression), names = 0;
    for (size_t j = 0; j < len; j++)
        names += expression[j] == 'i' && (j == 0 || !name_char(expression[j - 1])) && !name_char(expression[j + 1]);
    char *out = malloc(len + names * (size_t)with_len + 1), *o = out;
    for (size_t j = 0; out && j < len; j++) {
        if (expression[j] == 'i' && (j == 0 || !name_char(expression[j - 1])) && !name_char(expression[j + 1])) {
            memcpy(o, with, (size_t)with_len);
            o += with_len;
        } else {
            *o++ = expression[j];
        }
    }
    if (out)
        *o = '\0';
    return out;
}

clprim_status clprim_mpi_compact(clprim_context *ctx, MPI_Comm comm, clprim_type t, const clprim_predicate *keep,
                                 cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                 clprim_mpi_kept *counts, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list)
{
    mpi_call call;
    clprim_status s = mpi_begin(&call, "clprim_mpi_compact", ctx, comm);
    if (call.size == 0)
        return mpi_end(&call, s);
    const size_t size = mpi_type_size(t);

    /* Check: this rank's arguments. A compaction of no element checks the
     * type and the predicate (and compiles an expression); the buffers are
     * checked here, before any rank writes. */
    if (s == CLPRIM_SUCCESS && !ctx)
        s = mpi_fail(&call, CLPRIM_INVALID_ARGUMENT, "ctx is NULL");
    if (s == CLPRIM_SUCCESS) {
        double since = mpi_now();
        s = clprim_compact(ctx, t, keep, src, src_offset, dst, dst_offset, 0, NULL, NULL, 0,
                           num_events_in_wait_list, event_wait_list, NULL);
        mpi_add_device(&call, since);
        if (s != CLPRIM_SUCCESS)
            s = mpi_fail_core(&call, s);
    }
    if (s == CLPRIM_SUCCESS)
        s = mpi_check_buffer(&call, "src", src, src_offset, n, size, 0);
    if (s == CLPRIM_SUCCESS)
        s = mpi_check_buffer(&call, "dst", dst, dst_offset, n, size, 1);
    if (s == CLPRIM_SUCCESS)
        s = mpi_check_disjoint(&call, "src", src, src_offset, "dst", dst, dst_offset, n, size, 1);
    if (s == CLPRIM_SUCCESS && keep->keep == CLPRIM_KEEP_FLAGGED)
        s = mpi_check_buffer(&call, "keep->flags", keep->flags, keep->flags_offset, n, 1, 0);

    /* Then every rank's: the predicate, not its flags, must be the same. */
    const int compares = s == CLPRIM_SUCCESS && keep->keep <= CLPRIM_KEEP_NE;
    const int expression = s == CLPRIM_SUCCESS && keep->keep == CLPRIM_KEEP_EXPRESSION;
    const mpi_field fields[] = {
        {"the type", (uint64_t)t, FIELD_TYPE},
        {"keep->keep", s == CLPRIM_SUCCESS ? (uint64_t)keep->keep : 0, FIELD_NUMBER},
        {"keep->value", compares ? mpi_hash(keep->value, size, MPI_HASH_SEED) : 0, FIELD_CONTENT},
        {"keep->expression", expression ? mpi_hash(keep->expression, strlen(keep->expression), MPI_HASH_SEED) : 0,
         FIELD_CONTENT},
    };
    s = mpi_agree(&call, s, n, fields, (int)(sizeof fields / sizeof fields[0]));

    if (s != CLPRIM_SUCCESS)
        return mpi_end(&call, s);

    /* Plan: an expression's i counts from the start of the global array. */
    clprim_predicate global = *keep;
    char *rewritten = NULL;
    if (expression && call.before > 0) {
        rewritten = global_index(keep->expression, call.before);
        if (!rewritten)
            s = mpi_fail(&call, CLPRIM_OUT_OF_MEMORY, "no host memory for the expression");
        global.expression = rewritten;
    }

    /* Enqueue: the local compaction, then every rank's kept count. */
    size_t kept = 0;
    if (s == CLPRIM_SUCCESS) {
        double since = mpi_now();
        s = clprim_compact(ctx, t, &global, src, src_offset, dst, dst_offset, n, &kept, NULL, 0, 0, NULL, NULL);
        mpi_add_device(&call, since);
        if (s != CLPRIM_SUCCESS)
            s = mpi_fail_core(&call, s);
    }
    free(rewritten);
    s = mpi_settle(&call, s);
    if (s == CLPRIM_SUCCESS) {
        uint64_t mine = kept;
        double since = mpi_now();
        MPI_Allgather(&mine, 1, MPI_UINT64_T, call.slices, 1, MPI_UINT64_T, comm);
        mpi_add_mpi(&call, since);
        clprim_mpi_kept all = {kept, 0, 0};
        for (int r = 0; r < call.size; r++) {
            all.before += r < call.rank ? (size_t)call.slices[r] : 0;
            all.total += (size_t)call.slices[r];
        }
        if (counts)
            *counts = all;
    }
    return mpi_end(&call, s);
}
