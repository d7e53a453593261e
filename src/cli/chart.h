/* Drawing charts into an RGB image for the commands that write PNG charts
 * (histogram --plot, bench --plot). Text comes from stb_easy_font; only built
 * where stb is (CLPRIM_HAVE_STB), like every image file. */
#ifndef CLPRIM_CLI_CHART_H
#define CLPRIM_CLI_CHART_H

#include "image.h"

/* A white RGB canvas; 0 on success. Free it with cli_image_free(&c->img). */
typedef struct {
    cli_image img;
} chart_canvas;

int chart_open(chart_canvas *c, size_t width, size_t height);
/* Fills [x0, x1) x [y0, y1), clipped to the canvas. */
void chart_rect(chart_canvas *c, long x0, long y0, long x1, long y1, const unsigned char rgb[3]);
/* A line of `thickness` pixels from (x0, y0) to (x1, y1). */
void chart_line(chart_canvas *c, long x0, long y0, long x1, long y1, int thickness, const unsigned char rgb[3]);
/* Text with its top-left corner at (x, y); each font pixel is scale x scale. */
void chart_text(chart_canvas *c, long x, long y, const char *text, int scale, const unsigned char rgb[3]);
long chart_text_width(const char *text, int scale);

#endif
