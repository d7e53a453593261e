/* Chart drawing: rectangles, lines and stb_easy_font text on an RGB canvas. */
#include "chart.h"

#include <stdlib.h>
#include <string.h>

#ifdef CLPRIM_HAVE_STB
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop
#endif

int chart_open(chart_canvas *c, size_t width, size_t height)
{
    return cli_image_alloc(&c->img, width, height, 3, 255);
}

void chart_rect(chart_canvas *c, long x0, long y0, long x1, long y1, const unsigned char rgb[3])
{
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > (long)c->img.width ? (long)c->img.width : x1;
    y1 = y1 > (long)c->img.height ? (long)c->img.height : y1;
    for (long y = y0; y < y1; y++)
        for (long x = x0; x < x1; x++)
            memcpy(c->img.pixels + ((size_t)y * c->img.width + (size_t)x) * 3, rgb, 3);
}

void chart_line(chart_canvas *c, long x0, long y0, long x1, long y1, int thickness, const unsigned char rgb[3])
{
    long dx = labs(x1 - x0), dy = labs(y1 - y0), steps = dx > dy ? dx : dy;
    for (long i = 0; i <= steps; i++) {
        long x = steps ? x0 + (x1 - x0) * i / steps : x0, y = steps ? y0 + (y1 - y0) * i / steps : y0;
        chart_rect(c, x - thickness / 2, y - thickness / 2, x - thickness / 2 + thickness,
                   y - thickness / 2 + thickness, rgb);
    }
}

void chart_text(chart_canvas *c, long x, long y, const char *text, int scale, const unsigned char rgb[3])
{
#ifdef CLPRIM_HAVE_STB
    /* stb_easy_font emits quads of 4 vertices, 16 bytes each: x, y, z, colour. */
    static char buffer[64 * 1024];
    int quads = stb_easy_font_print(0, 0, (char *)text, NULL, buffer, sizeof buffer);
    for (int q = 0; q < quads; q++) {
        const float *v = (const float *)(buffer + (size_t)q * 64);
        float x0 = v[0], y0 = v[1], x1 = v[0], y1 = v[1];
        for (int k = 1; k < 4; k++) {
            const float *p = v + 4 * k;
            x0 = p[0] < x0 ? p[0] : x0, x1 = p[0] > x1 ? p[0] : x1;
            y0 = p[1] < y0 ? p[1] : y0, y1 = p[1] > y1 ? p[1] : y1;
        }
        chart_rect(c, x + (long)(x0 * scale), y + (long)(y0 * scale), x + (long)(x1 * scale), y + (long)(y1 * scale),
                   rgb);
    }
#else
    (void)c, (void)x, (void)y, (void)text, (void)scale, (void)rgb;
#endif
}

long chart_text_width(const char *text, int scale)
{
#ifdef CLPRIM_HAVE_STB
    return (long)stb_easy_font_width((char *)text) * scale;
#else
    (void)text;
    return 0;
#endif
}
