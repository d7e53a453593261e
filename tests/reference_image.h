/* CPU references for the image calls (src/apps/threshold.c), written as plain loops
 * with the library's documented arithmetic, and the photographs the tests use. */
#ifndef CLPRIM_TESTS_REFERENCE_IMAGE_H
#define CLPRIM_TESTS_REFERENCE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "clprim.h"

/* The red-ratio test of include/clprim.h: r > 0 && r*r > ratio2 * ((r*r + g*g) + b*b),
 * each operation rounded to float, nothing fused. ratio2 = reference_ratio2(ratio). */
int reference_red_selected(float r, float g, float b, float ratio2);
float reference_ratio2(float ratio);

/* Interleaved RGB8/RGBA8 (bpp 3 or 4); pitches in bytes; writes only the pixels. */
void reference_threshold_red(const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch, size_t width,
                             size_t height, size_t bpp, float ratio, clprim_threshold_mode mode);
/* Three planes of n floats each. */
void reference_threshold_red_planar(const float *src, float *dst, size_t n, float ratio,
                                    clprim_threshold_mode mode);

/* floor((r + g + b) / 3), or the byte of a GREY8 pixel. */
unsigned reference_grey_level(const uint8_t *pixel, size_t bpp);

/* Sets hist (bins, or bins x channels for ALL). */
void reference_image_histogram(const uint8_t *src, size_t pitch, size_t width, size_t height, size_t bpp,
                               clprim_channel channel, size_t bins, uint32_t *hist);

/* Otsu's level (a grey level, 0..255) the way the device computes it: the same
 * float operations in the same order (cl/threshold.cl, otsu_level). */
unsigned reference_otsu(const uint32_t *hist, size_t bins);
/* The textbook between-class variance in double, of the split after bin t
 * (0 when a class is empty); and the largest over every split. */
double reference_otsu_variance(const uint32_t *hist, size_t bins, size_t t);
double reference_otsu_best_variance(const uint32_t *hist, size_t bins);
/* The bin t whose highest level is `level` (the inverse of the level mapping). */
size_t reference_otsu_bin(unsigned level, size_t bins);

/* dst pixels: 255 in every colour channel where grey > level, else 0; RGBA8 dst
 * alpha from an RGBA8 src, else 255. */
void reference_threshold_grey(const uint8_t *src, size_t src_pitch, size_t src_bpp, uint8_t *dst, size_t dst_pitch,
                              size_t dst_bpp, size_t width, size_t height, unsigned level);

/* A photograph of examples/data (CLPRIM_TEST_DATA) as packed pixels of `channels`
 * (1, 3 or 4) bytes, malloc'd; NULL when the tests were built without stb
 * (reference_have_photos() says which). ck_asserts when the file does not load. */
int reference_have_photos(void);
uint8_t *reference_load_photo(const char *name, int channels, size_t *width, size_t *height);

#endif
