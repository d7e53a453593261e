/* k-means colour quantization on the CPU, as clprim_kmeans does it (the rules
 * are in clprim.h): the check of `clprim kmeans --check`, and the reference the
 * tests compare clprim_kmeans with (tests/reference_sort.h). */
#ifndef CLPRIM_CLI_KMEANS_CPU_H
#define CLPRIM_CLI_KMEANS_CPU_H

#include <stddef.h>

#include "clprim.h"

/* An interleaved 8-bit image in host memory, laid out like a clprim_image. */
typedef struct {
    const unsigned char *data;           /* the buffer's start */
    size_t offset, width, height, pitch; /* bytes, pixels, pixels, bytes */
    clprim_pixel_format format;
} cli_kmeans_image;

/* The rounding of the final palette: floor(c + 0.5f), clamped to 0..255. */
unsigned char cli_kmeans_round(float c);

/* Lloyd's iterations as clprim_kmeans does them, from centres (k * dims, in and
 * out), bit for bit. labels: width * height. out, when not NULL, is a copy of
 * the image's buffer (the same layout) whose pixels become their rounded
 * centres (alpha kept). */
void cli_kmeans_cpu(const cli_kmeans_image *im, unsigned k, unsigned max_iterations, float *centres,
                    unsigned char *labels, unsigned char *out, clprim_kmeans_info *info);

/* The inertia: the sum over the pixels of the squared distance (in double) of
 * each to the centre its label names (centres: dims floats each). */
double cli_kmeans_inertia(const cli_kmeans_image *im, const float *centres, const unsigned char *labels);

#endif
