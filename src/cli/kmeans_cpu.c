/* k-means on the CPU: see kmeans_cpu.h. Plain loops over the pixels, row by row.
 * Built with -ffp-contract=off: the distances must round as the kernel's do. */
#include "kmeans_cpu.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

unsigned char cli_kmeans_round(float c)
{
    float r = floorf(c + 0.5f);
    return r <= 0.0f ? 0 : r >= 255.0f ? 255 : (unsigned char)r;
}

/* The squared distance of a pixel to a centre in float, in dims 3 (RGB) or 1
 * (grey), in the order of clprim.h. */
static inline float dist2(const unsigned char *p, const float *q, unsigned dims)
{
    const float e0 = (float)p[0] - q[0];
    float d = e0 * e0;
    if (dims == 3) {
        const float e1 = (float)p[1] - q[1], e2 = (float)p[2] - q[2];
        d = d + e1 * e1;
        d = d + e2 * e2;
    }
    return d;
}

/* One assignment pass: each pixel's label (the nearest centre, the lowest index
 * on a tie), and the clusters' channel sums and member counts. Called with dims
 * a constant, 3 or 1, so that each is compiled with its own straight-line
 * distance (a loop over the channels runs markedly slower). */
static inline void assign(const cli_kmeans_image *im, size_t bpp, unsigned dims, const float *centres, unsigned k,
                          unsigned char *labels, uint64_t (*sums)[4])
{
    size_t i = 0;
    for (size_t y = 0; y < im->height; y++) {
        const unsigned char *p = im->data + im->offset + y * im->pitch;
        for (size_t x = 0; x < im->width; x++, i++, p += bpp) {
            unsigned best = 0;
            float best_d = INFINITY;
            for (unsigned j = 0; j < k; j++) {
                const float d = dist2(p, centres + j * dims, dims);
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
    uint64_t sums[CLPRIM_KMEANS_MAX_K][4];
    info->iterations = 0;
    info->converged = 0;
    for (unsigned it = 0; it < max_iterations && !info->converged; it++) {
        memset(sums, 0, sizeof sums);
        if (dims == 3)
            assign(im, bpp, 3, centres, k, labels, sums);
        else
            assign(im, bpp, 1, centres, k, labels, sums);
        info->iterations = it + 1;
        double largest = 0; /* the largest squared move of a centre */
        for (unsigned j = 0; j < k; j++) {
            if (!sums[j][3])
                continue; /* an empty cluster keeps its centre */
            double moved = 0;
            for (unsigned c = 0; c < dims; c++) {
                const float next = (float)((double)sums[j][c] / (double)sums[j][3]);
                const double e = (double)next - (double)centres[j * dims + c];
                moved += e * e;
                centres[j * dims + c] = next;
            }
            largest = fmax(largest, moved);
        }
        info->converged = largest <= (double)CLPRIM_KMEANS_TOLERANCE * CLPRIM_KMEANS_TOLERANCE;
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

double cli_kmeans_inertia(const cli_kmeans_image *im, const float *centres, const unsigned char *labels)
{
    const unsigned dims = clprim_kmeans_dims(im->format);
    const size_t bpp = clprim_pixel_size(im->format);
    double total = 0;
    size_t i = 0;
    for (size_t y = 0; y < im->height; y++) {
        const unsigned char *p = im->data + im->offset + y * im->pitch;
        for (size_t x = 0; x < im->width; x++, i++, p += bpp)
            for (unsigned c = 0; c < dims; c++) {
                const double e = (double)p[c] - (double)centres[labels[i] * dims + c];
                total += e * e;
            }
    }
    return total;
}
