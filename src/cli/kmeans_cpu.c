/* k-means on the CPU: see kmeans_cpu.h. Plain loops over the pixels, row by row. */
#include "kmeans_cpu.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

unsigned char cli_kmeans_round(float c)
{
    float r = floorf(c + 0.5f);
    return r <= 0.0f ? 0 : r >= 255.0f ? 255 : (unsigned char)r;
}

/* The squared distance of a pixel to a rounded centre, in dims 3 (RGB) or 1 (grey). */
static inline int dist2(const unsigned char *p, const unsigned char *q, unsigned dims)
{
    if (dims == 1) {
        const int e = p[0] - q[0];
        return e * e;
    }
    const int e0 = p[0] - q[0], e1 = p[1] - q[1], e2 = p[2] - q[2];
    return e0 * e0 + e1 * e1 + e2 * e2;
}

/* One assignment pass: each pixel's label (the nearest rounded centre q, the
 * lowest index on a tie), and the clusters' channel sums and member counts.
 * Called with dims a constant, 3 or 1, so that each is compiled with its own
 * straight-line distance (a loop over the channels runs markedly slower). */
static inline void assign(const cli_kmeans_image *im, size_t bpp, unsigned dims, const unsigned char (*q)[3],
                          unsigned k, unsigned char *labels, uint64_t (*sums)[4])
{
    size_t i = 0;
    for (size_t y = 0; y < im->height; y++) {
        const unsigned char *p = im->data + im->offset + y * im->pitch;
        for (size_t x = 0; x < im->width; x++, i++, p += bpp) {
            unsigned best = 0;
            int best_d = INT_MAX;
            for (unsigned j = 0; j < k; j++) {
                const int d = dist2(p, q[j], dims);
                if (d < best_d) {
                    best_d = d;
                    best = j;
                }
            }
            labels[i] = (unsigned char)best;
            for (unsigned c = 0; c < dims; c++)
                sums[best][c] += p[c];
            sums[best][3]++;
        }
    }
}

void cli_kmeans_cpu(const cli_kmeans_image *im, unsigned k, unsigned max_iterations, float *centres,
                    unsigned char *labels, unsigned char *out, clprim_kmeans_info *info)
{
    const unsigned dims = clprim_kmeans_dims(im->format);
    const size_t bpp = clprim_pixel_size(im->format);
    unsigned char q[CLPRIM_KMEANS_MAX_K][3];
    uint64_t sums[CLPRIM_KMEANS_MAX_K][4];
    info->iterations = 0;
    info->converged = 0;
    for (unsigned it = 0; it < max_iterations && !info->converged; it++) {
        for (unsigned j = 0; j < k; j++)
            for (unsigned c = 0; c < dims; c++)
                q[j][c] = cli_kmeans_round(centres[j * dims + c]);
        memset(sums, 0, sizeof sums);
        if (dims == 3)
            assign(im, bpp, 3, (const unsigned char(*)[3])q, k, labels, sums);
        else
            assign(im, bpp, 1, (const unsigned char(*)[3])q, k, labels, sums);
        info->iterations = it + 1;
        info->converged = 1;
        for (unsigned j = 0; j < k; j++) {
            if (!sums[j][3])
                continue; /* an empty cluster keeps its centre */
            for (unsigned c = 0; c < dims; c++) {
                centres[j * dims + c] = (float)((double)sums[j][c] / (double)sums[j][3]);
                if (cli_kmeans_round(centres[j * dims + c]) != q[j][c])
                    info->converged = 0;
            }
        }
    }
    if (out) {
        size_t i = 0;
        for (size_t y = 0; y < im->height; y++) {
            const size_t row = im->offset + y * im->pitch;
            for (size_t x = 0; x < im->width; x++, i++) {
                const unsigned char *s = im->data + row + x * bpp;
                unsigned char *d = out + row + x * bpp;
                for (unsigned c = 0; c < dims; c++)
                    d[c] = cli_kmeans_round(centres[labels[i] * dims + c]);
                if (im->format == CLPRIM_RGBA8)
                    d[3] = s[3];
            }
        }
    }
}
