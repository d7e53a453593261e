/* CPU references for the image calls. Every float operation that the device
 * must match goes through a volatile float, so it is rounded to float on its
 * own: no fused multiply-add (whatever -ffp-contract says) and no excess
 * precision (x87). */
#include "reference_image.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLPRIM_TEST_IMAGES
#include <stb_image.h>
#endif

float reference_ratio2(float ratio)
{
    volatile float r2 = ratio * ratio;
    return r2;
}

int reference_red_selected(float r, float g, float b, float ratio2)
{
    volatile float rr = r * r;
    volatile float gg = g * g;
    volatile float bb = b * b;
    volatile float sum = rr + gg;
    sum = sum + bb;
    volatile float bound = ratio2 * sum;
    return r > 0.0f && rr > bound;
}

void reference_threshold_red(const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch, size_t width,
                             size_t height, size_t bpp, float ratio, clprim_threshold_mode mode)
{
    const float ratio2 = reference_ratio2(ratio);
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++) {
            const uint8_t *s = src + y * src_pitch + x * bpp;
            uint8_t *d = dst + y * dst_pitch + x * bpp;
            uint8_t out[4] = {s[0], s[1], s[2], bpp == 4 ? s[3] : 0};
            if (reference_red_selected(s[0], s[1], s[2], ratio2)) {
                if (mode != CLPRIM_THRESHOLD_KEEP)
                    out[1] = s[0];
            } else if (mode != CLPRIM_THRESHOLD_REINSERT) {
                out[0] = out[1] = out[2] = 0;
            }
            memcpy(d, out, bpp);
        }
}

void reference_threshold_red_planar(const float *src, float *dst, size_t n, float ratio,
                                    clprim_threshold_mode mode)
{
    const float ratio2 = reference_ratio2(ratio);
    for (size_t p = 0; p < n; p++) {
        float out[3] = {src[p], src[n + p], src[2 * n + p]};
        if (reference_red_selected(out[0], out[1], out[2], ratio2)) {
            if (mode != CLPRIM_THRESHOLD_KEEP)
                out[1] = out[0];
        } else if (mode != CLPRIM_THRESHOLD_REINSERT) {
            out[0] = out[1] = out[2] = 0.0f;
        }
        for (int c = 0; c < 3; c++)
            memcpy(&dst[c * n + p], &out[c], sizeof(float)); /* bits, NaN payloads included */
    }
}

unsigned reference_grey_level(const uint8_t *pixel, size_t bpp)
{
    return bpp == 1 ? pixel[0] : ((unsigned)pixel[0] + pixel[1] + pixel[2]) / 3u;
}

void reference_image_histogram(const uint8_t *src, size_t pitch, size_t width, size_t height, size_t bpp,
                               clprim_channel channel, size_t bins, uint32_t *hist)
{
    size_t nch = channel == CLPRIM_CHANNEL_ALL ? bpp : 1;
    memset(hist, 0, nch * bins * sizeof *hist);
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++) {
            const uint8_t *s = src + y * pitch + x * bpp;
            if (channel == CLPRIM_CHANNEL_ALL) {
                for (size_t c = 0; c < nch; c++)
                    hist[c * bins + s[c] * bins / 256]++;
            } else {
                unsigned v = channel == CLPRIM_CHANNEL_GREY ? reference_grey_level(s, bpp) : s[channel];
                hist[v * bins / 256]++;
            }
        }
}

unsigned reference_otsu(const uint32_t *hist, size_t bins)
{
    uint64_t total = 0, moment = 0;
    for (size_t i = 0; i < bins; i++) {
        total += hist[i];
        moment += (uint64_t)i * hist[i];
    }
    int k = 0;
    while (k < 64 && (total >> k) != 0)
        k++;
    const float scale = ldexpf(1.0f, -k); /* exact: a power of two */
    float num[256], den[256];
    int valid[256];
    uint64_t W = 0, S = 0;
    for (size_t t = 0; t < bins; t++) {
        W += hist[t];
        S += (uint64_t)t * hist[t];
        valid[t] = W != 0 && W != total;
        volatile float w0 = (float)W * scale;
        volatile float w1 = (float)(total - W) * scale;
        volatile float s0 = (float)S * scale;
        volatile float s1 = (float)(moment - S) * scale;
        volatile float a = s0 * w1;
        volatile float b = s1 * w0;
        volatile float d = a - b;
        volatile float nn = d * d;
        volatile float dd = w0 * w1;
        num[t] = nn;
        den[t] = dd;
    }
    int best = -1;
    for (size_t t = 0; t < bins; t++) {
        if (!valid[t])
            continue;
        if (best < 0) {
            best = (int)t;
            continue;
        }
        volatile float mine = num[t] * den[best];
        volatile float theirs = num[best] * den[t];
        if (mine > theirs)
            best = (int)t;
    }
    if (best < 0) {
        best = (int)bins - 1;
        while (best > 0 && hist[best] == 0)
            best--;
        if (total == 0)
            best = (int)bins - 1;
    }
    return (unsigned)(((size_t)best + 1) * 256 - 1) / (unsigned)bins;
}

double reference_otsu_variance(const uint32_t *hist, size_t bins, size_t t)
{
    double total = 0, w0 = 0, m = 0, m0 = 0;
    for (size_t i = 0; i < bins; i++) {
        total += hist[i];
        m += (double)i * hist[i];
        if (i <= t) {
            w0 += hist[i];
            m0 += (double)i * hist[i];
        }
    }
    double w1 = total - w0;
    if (w0 == 0 || w1 == 0)
        return 0;
    double mu0 = m0 / w0, mu1 = (m - m0) / w1;
    return (w0 / total) * (w1 / total) * (mu0 - mu1) * (mu0 - mu1);
}

double reference_otsu_best_variance(const uint32_t *hist, size_t bins)
{
    double best = 0;
    for (size_t t = 0; t + 1 < bins; t++) {
        double v = reference_otsu_variance(hist, bins, t);
        if (v > best)
            best = v;
    }
    return best;
}

size_t reference_otsu_bin(unsigned level, size_t bins)
{
    return (size_t)level * bins / 256;
}

void reference_threshold_grey(const uint8_t *src, size_t src_pitch, size_t src_bpp, uint8_t *dst, size_t dst_pitch,
                              size_t dst_bpp, size_t width, size_t height, unsigned level)
{
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++) {
            const uint8_t *s = src + y * src_pitch + x * src_bpp;
            uint8_t *d = dst + y * dst_pitch + x * dst_bpp;
            uint8_t v = reference_grey_level(s, src_bpp) > level ? 255 : 0;
            for (size_t c = 0; c < dst_bpp && c < 3; c++)
                d[c] = v;
            if (dst_bpp == 4)
                d[3] = src_bpp == 4 ? s[3] : 255;
        }
}

int reference_have_photos(void)
{
#ifdef CLPRIM_TEST_IMAGES
    return 1;
#else
    return 0;
#endif
}

uint8_t *reference_load_photo(const char *name, int channels, size_t *width, size_t *height)
{
#ifdef CLPRIM_TEST_IMAGES
    const char *dir = getenv("CLPRIM_TEST_DATA");
    if (!dir || !*dir)
        dir = CLPRIM_TEST_DATA;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int w, h, n;
    uint8_t *pixels = stbi_load(path, &w, &h, &n, channels);
    ck_assert_msg(pixels != NULL, "cannot load %s: %s", path, stbi_failure_reason());
    *width = (size_t)w;
    *height = (size_t)h;
    /* Copied to malloc'd memory: the caller frees with free(). */
    size_t bytes = (size_t)w * (size_t)h * (size_t)channels;
    uint8_t *copy = malloc(bytes);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, pixels, bytes);
    stbi_image_free(pixels);
    return copy;
#else
    (void)name;
    (void)channels;
    *width = *height = 0;
    return NULL;
#endif
}
