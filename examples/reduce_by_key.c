/* Particles per box, and the mass in each box: sort, then reduce by key.
 *
 *   build/examples/reduce_by_key [N]      (N particles, default 1000000)
 *
 * Each particle has the box it is in (0 .. 4095) and a mass in milligrams.
 * clprim_sort_pairs orders the particles by box, carrying their masses;
 * clprim_reduce_by_key then gives, for each box that holds particles, the box
 * and its total mass, and clprim_run_length_encode the box and its number of
 * particles. Everything stays on the device until the answers are read back,
 * and both are checked against a C loop over the unsorted particles. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clprim.h>

#define BOXES 4096

static int ok_or_say(clprim_context *ctx, clprim_status s, const char *what)
{
    if (s != CLPRIM_SUCCESS)
        fprintf(stderr, "%s: %s: %s\n", what, clprim_status_name(s), clprim_last_error(ctx));
    return s == CLPRIM_SUCCESS;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    if (n == 0) {
        fprintf(stderr, "usage: reduce_by_key [N]   (N >= 1 particles)\n");
        return 2;
    }
    uint32_t *box = malloc(n * sizeof *box), *mass = malloc(n * sizeof *mass);
    uint32_t *out_box = malloc(n * sizeof *out_box), *out_mass = malloc(n * sizeof *out_mass);
    uint64_t *out_count = malloc(n * sizeof *out_count);
    uint64_t *want_mass = calloc(BOXES, sizeof *want_mass), *want_count = calloc(BOXES, sizeof *want_count);
    if (!box || !mass || !out_box || !out_mass || !out_count || !want_mass || !want_count)
        return 1;
    uint64_t state = 7;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        box[i] = (uint32_t)(state >> 33) % BOXES;
        mass[i] = 1 + (uint32_t)(state >> 20) % 1000;
        want_mass[box[i]] += mass[i];
        want_count[box[i]]++;
    }

    clprim_context *ctx;
    if (!ok_or_say(NULL, clprim_create(&ctx, NULL), "clprim_create"))
        return 1;
    cl_context cl = clprim_cl_context(ctx);
    cl_int err;
    const size_t bytes = n * sizeof(uint32_t);
    cl_mem boxes = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, box, &err);
    cl_mem masses = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, mass, &err);
    cl_mem sorted_boxes = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem sorted_masses = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem box_ids = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem box_masses = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem box_counts = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof(uint64_t), NULL, &err);

    size_t runs = 0, runs_again = 0;
    int ok = ok_or_say(ctx, clprim_sort_pairs(ctx, CLPRIM_UINT32, CLPRIM_UINT32, NULL, boxes, 0, sorted_boxes, 0, masses,
                                              0, sorted_masses, 0, n, 0, NULL, NULL),
                       "clprim_sort_pairs");
    ok = ok && ok_or_say(ctx, clprim_reduce_by_key(ctx, CLPRIM_UINT32, CLPRIM_UINT32, CLPRIM_SUM, NULL, sorted_boxes, 0,
                                                   sorted_masses, 0, n, box_ids, 0, box_masses, 0, &runs, NULL, 0, 0,
                                                   NULL, NULL),
                         "clprim_reduce_by_key");
    ok = ok && clEnqueueReadBuffer(clprim_queue(ctx), box_masses, CL_TRUE, 0, runs * sizeof *out_mass, out_mass, 0,
                                   NULL, NULL) == CL_SUCCESS;
    ok = ok && ok_or_say(ctx, clprim_run_length_encode(ctx, CLPRIM_UINT32, sorted_boxes, 0, n, box_ids, 0, box_counts,
                                                       0, &runs_again, NULL, 0, 0, NULL, NULL),
                         "clprim_run_length_encode");
    ok = ok && clEnqueueReadBuffer(clprim_queue(ctx), box_ids, CL_TRUE, 0, runs * sizeof *out_box, out_box, 0, NULL,
                                   NULL) == CL_SUCCESS;
    ok = ok && clEnqueueReadBuffer(clprim_queue(ctx), box_counts, CL_TRUE, 0, runs * sizeof *out_count, out_count, 0,
                                   NULL, NULL) == CL_SUCCESS;

    /* Every box that holds particles, once, in order, with its mass and count. */
    size_t occupied = 0, wrong = 0;
    for (size_t b = 0; b < BOXES; b++)
        occupied += want_count[b] > 0;
    for (size_t r = 0; ok && r < runs; r++)
        wrong += out_box[r] >= BOXES || (r > 0 && out_box[r] <= out_box[r - 1]) ||
                 out_mass[r] != (uint32_t)want_mass[out_box[r]] || out_count[r] != want_count[out_box[r]];
    ok = ok && runs == occupied && runs_again == runs && wrong == 0;
    printf("%zu particles in %zu boxes; box %u holds %llu of them, %.3f g%s\n", n, runs, runs ? out_box[0] : 0,
           runs ? (unsigned long long)out_count[0] : 0ull, runs ? out_mass[0] / 1000.0 : 0.0,
           ok ? "; every box matches the C loop" : "; MISMATCH with the C loop");

    const cl_mem all[] = {boxes, masses, sorted_boxes, sorted_masses, box_ids, box_masses, box_counts};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clReleaseMemObject(all[i]);
    clprim_release(ctx);
    free(box);
    free(mass);
    free(out_box);
    free(out_mass);
    free(out_count);
    free(want_mass);
    free(want_count);
    return ok ? 0 : 1;
}
