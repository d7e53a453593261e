/* `clprim histogram IN`: a channel histogram (or the grey
 * histogram) of a photograph computed on the device, drawn as a bar chart
 * in the terminal and, with --plot, as a PNG (src/cli/chart.c: stb_image_write
 * and stb_easy_font, no other plotting dependency). An IN that is an array (a
 * .npy file, or raw with --type) gets numpy's histogram instead (cmd_arrays.c). */
#include "arrays.h"
#include "chart.h"
#include "commands.h"
#include "image.h"
#include "options.h"
#include "output.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two forms, picked by IN (cli_histogram_is_array). */
enum { IMAGE, ARRAY };
static const char *const forms[] = {"image", "array"};

enum { OPT_BINS, OPT_CHANNEL, OPT_PLOT, OPT_MAX_PIXELS, OPT_DEVICE, OPT_RANGE, OPT_EDGES, OPT_TYPE, OPT_OUTPUT,
       OPT_RAW, OPT_TIME };
static const cli_option options[] = {
    [OPT_BINS] = {"bins", 0, "N",
                  "image: 1 .. 256 even bins over the levels 0..255 (default 16);\n"
                  "array: 1 .. 2^31 - 1 even bins over --range (default 10)",
                  0},
    [OPT_CHANNEL] = {"channel", 0, "C", "r, g, b, a, grey = floor((r + g + b) / 3) (default), or all of them",
                     1u << IMAGE},
    [OPT_PLOT] = {"plot", 0, "FILE.png",
                  "also draw the chart as a PNG bar chart; - writes it to standard output\n"
                  "(the text chart then goes to standard error)",
                  1u << IMAGE},
    [OPT_MAX_PIXELS] = {"max-pixels", 0, "N", "refuse a larger image before decoding it (default 2^28)",
                        1u << IMAGE},
    [OPT_DEVICE] = {"device", 0, "SPEC", "the OpenCL device (clprim --help)", 0},
    [OPT_RANGE] = {"range", 0, "LO,HI", "the bins' range (default: the data's smallest and largest numbers)",
                   1u << ARRAY},
    [OPT_EDGES] = {"edges", 0, "E",
                   "bins between edges of your own, ascending: a list (0,1,2.5,10) or a .npy\n"
                   "file; instead of --bins and --range",
                   1u << ARRAY},
    [OPT_TYPE] = {"type", 't', "T", CLI_ARRAY_TYPE_HELP, 1u << ARRAY},
    [OPT_OUTPUT] = CLI_ARRAY_OPTION_OUTPUT(1u << ARRAY),
    [OPT_RAW] = CLI_ARRAY_OPTION_RAW(1u << ARRAY),
    [OPT_TIME] = CLI_ARRAY_OPTION_TIME(1u << ARRAY),
};

static const cli_command command = {
    "histogram", "IN",
    "  An image: IN is a PNG, JPEG or BMP image (16 bits a channel are rounded to 8); the\n"
    "  histogram of a channel is drawn in the terminal.\n"
    "  An array: IN is a .npy file (its name ends in .npy, or it starts with numpy's magic,\n"
    "  which no image does), or raw binary with --type. The counts are np.histogram's:\n"
    "  element x is in bin b when edge b <= x < edge b + 1, the last bin closed (x <= its upper\n"
    "  edge), compared as numpy compares them (even bins: np.linspace's edges, rounded to\n"
    "  float32 for float32 data); NaN and values outside the edges are not counted. Without\n"
    "  -o a table of the bins is printed; -o OUT writes the counts (int64, as numpy's).\n"
    "  - reads standard input, in either form.\n",
    options, sizeof options / sizeof options[0], "an", forms,
};

/* The levels of bin b of `bins`: v goes to bin v * bins / 256. */
static void bin_levels(size_t b, size_t bins, unsigned *lo, unsigned *hi)
{
    *lo = (unsigned)((b * 256 + bins - 1) / bins);
    *hi = (unsigned)(((b + 1) * 256 + bins - 1) / bins - 1);
}

static void print_chart(const char *title, const uint32_t *h, size_t bins)
{
    uint32_t top = 1;
    uint64_t total = 0;
    for (size_t b = 0; b < bins; b++) {
        if (h[b] > top)
            top = h[b];
        total += h[b];
    }
    printf("\n%s\n%9s %10s %6s\n", title, "levels", "count", "%");
    for (size_t b = 0; b < bins; b++) {
        unsigned lo, hi;
        bin_levels(b, bins, &lo, &hi);
        char range[16];
        if (lo == hi)
            snprintf(range, sizeof range, "%u", lo);
        else
            snprintf(range, sizeof range, "%u-%u", lo, hi);
        int bar = (int)((uint64_t)h[b] * 50 / top);
        if (bar == 0 && h[b] > 0)
            bar = 1; /* non-empty bins always show */
        printf("%9s %10u %5.1f%% |%.*s\n", range, h[b], total ? 100.0 * h[b] / (double)total : 0.0, bar,
               "##################################################");
    }
}

/* ---- The PNG chart ---- */

/* One panel per histogram, stacked. */
static int plot_png(const char *path, const uint32_t *hist, size_t bins, size_t nhist, const char *const *names,
                    const unsigned char (*colours)[3], char *why, size_t size)
{
    const long left = 90, right = 24, top = 16, bottom = 40, plot_h = 200, panel_h = top + plot_h + bottom;
    const long plot_w = bins * 3 > 768 ? (long)bins * 3 : 768;
    chart_canvas c;
    if (chart_open(&c, (size_t)(left + plot_w + right), (size_t)(panel_h * (long)nhist)) != 0) {
        snprintf(why, size, "out of memory drawing %s", path);
        return -1;
    }
    const unsigned char axis[3] = {40, 40, 40}, grid[3] = {225, 225, 225}, label[3] = {60, 60, 60};
    for (size_t k = 0; k < nhist; k++) {
        const uint32_t *h = hist + k * bins;
        const long y0 = (long)k * panel_h + top, base = y0 + plot_h;
        uint32_t peak = 1;
        for (size_t b = 0; b < bins; b++)
            if (h[b] > peak)
                peak = h[b];
        for (int q = 1; q <= 4; q++) /* grid lines at quarters of the peak */
            chart_rect(&c, left, base - plot_h * q / 4, left + plot_w, base - plot_h * q / 4 + 1, grid);
        for (size_t b = 0; b < bins; b++) {
            long x0 = left + (long)b * plot_w / (long)bins, x1 = left + (long)(b + 1) * plot_w / (long)bins;
            long gap = x1 - x0 > 4 ? 1 : 0;
            long bar = (long)((uint64_t)h[b] * (uint64_t)plot_h / peak);
            if (bar == 0 && h[b] > 0)
                bar = 1;
            chart_rect(&c, x0 + gap, base - bar, x1 - gap, base, colours[k]);
        }
        chart_rect(&c, left - 1, y0, left, base + 1, axis);                 /* y axis */
        chart_rect(&c, left - 1, base, left + plot_w, base + 1, axis);      /* x axis */
        char num[32];
        snprintf(num, sizeof num, "%u", peak);
        chart_text(&c, left - 8 - chart_text_width(num, 2), y0 - 2, num, 2, label);   /* the peak count */
        chart_rect(&c, left - 5, y0, left - 1, y0 + 1, axis);
        chart_text(&c, left - 8 - chart_text_width("0", 2), base - 12, "0", 2, label);
        static const unsigned ticks[] = {0, 64, 128, 192, 255};
        for (int t = 0; t < 5; t++) { /* levels under the x axis */
            long x = left + (long)ticks[t] * plot_w / 256 + (ticks[t] == 255 ? plot_w / 256 : 0);
            chart_rect(&c, x, base, x + 1, base + 5, axis);
            snprintf(num, sizeof num, "%u", ticks[t]);
            long w = chart_text_width(num, 2);
            chart_text(&c, t == 0 ? x : t == 4 ? x - w : x - w / 2, base + 9, num, 2, label);
        }
        chart_text(&c, left + plot_w - chart_text_width(names[k], 3) - 6, y0 + 4, names[k], 3, colours[k]);
    }
    int rc = cli_image_write_png(path, &c.img, why, size);
    cli_image_free(&c.img);
    return rc;
}

int cmd_histogram(int argc, char **argv)
{
    const char *in_path, *channel_name = "grey", *plot = NULL, *bins_text = NULL, *range = NULL, *edges = NULL;
    long bins = 16;
    size_t max_pixels = CLI_IMAGE_MAX_PIXELS;
    cli_array_io io = {0};
    cli_parser p;
    cli_begin(&p, &command, argc, argv);
    for (int opt; (opt = cli_next(&p)) >= 0;) {
        int ok = 1;
        if (opt == OPT_BINS)
            bins_text = p.value; /* its range depends on the form */
        else if (opt == OPT_CHANNEL)
            channel_name = p.value;
        else if (opt == OPT_PLOT)
            plot = p.value;
        else if (opt == OPT_MAX_PIXELS)
            ok = cli_parse_count("histogram", "--max-pixels", p.value, 1, SIZE_MAX, 4, &max_pixels);
        else if (opt == OPT_RANGE)
            range = p.value;
        else if (opt == OPT_EDGES)
            edges = p.value;
        else
            ok = cli_array_option(&io, "histogram", options[opt].name, p.value);
        if (!ok)
            return 2;
    }
    const int ended = cli_end(&p, 1);
    if (ended >= 0)
        return ended;
    in_path = io.in = p.args[0];
    const int form = cli_histogram_is_array(&io) ? ARRAY : IMAGE;
    if (cli_warn_mode(&p, form)) {
        fprintf(stderr, "(an array is a .npy file, or raw binary with --type; anything else is an image)\n");
        return 2;
    }
    if (form == ARRAY)
        return cli_histogram_array(&io, bins_text, edges, range);
    if (bins_text && !cli_parse_long("histogram", "--bins", bins_text, 1, 256, &bins))
        return 2;
    const char *device = io.device;
    static const char *const channel_names[] = {"r", "g", "b", "a", "grey", "all"};
    const int channel = cli_pick("histogram", "--channel", channel_name, channel_names, 6);
    if (channel < 0)
        return 2;
    if (plot && !cli_want_png("histogram", "--plot", plot, "chart"))
        return 2;

    cli_image img;
    if (cli_load_image("histogram", in_path, max_pixels, &img) != 0)
        return 1;
    if ((channel == CLPRIM_CHANNEL_A && img.channels != 4) || (channel < CLPRIM_CHANNEL_A && img.channels == 1)) {
        static const char *const channel_words[] = {"red", "green", "blue", "alpha"};
        fprintf(stderr, "clprim histogram: %s is %s: it has no %s channel\n", cli_input_name(in_path),
                cli_image_channels_name(img.channels), channel_words[channel]);
        cli_image_free(&img);
        return 1;
    }
    char device_name[256];
    clprim_context *ctx = cli_open_for_image(device, &img, device_name, sizeof device_name);
    if (!ctx)
        return 1;

    int status = 1;
    char why[1024];
    const size_t nhist = channel == CLPRIM_CHANNEL_ALL ? (size_t)img.channels : 1, slots = nhist * (size_t)bins;
    uint32_t *hist = calloc(slots, sizeof *hist);
    cl_int err;
    cl_mem src = cli_image_upload(ctx, &img, &err);
    cl_mem hbuf = cli_buffer(ctx, CL_MEM_READ_WRITE, slots * sizeof *hist, NULL, &err);
    if (err != CL_SUCCESS || !hist) {
        fprintf(stderr, "clprim histogram: cannot allocate buffers for the image (OpenCL error %d)\n", err);
        goto done;
    }
    clprim_image si = cli_image_view(src, &img);
    double call_ms = 0;
    for (int run = 0; run < 2; run++) { /* the first call builds the kernels */
        double start = cli_now();
        clprim_status s =
            clprim_image_histogram(ctx, &si, (clprim_channel)channel, (size_t)bins, hbuf, 0, 0, NULL, NULL);
        if (s != CLPRIM_SUCCESS) {
            fprintf(stderr, "clprim histogram: %s: %s\n", clprim_status_name(s), clprim_last_error(ctx));
            goto done;
        }
        clFinish(clprim_queue(ctx));
        call_ms = (cli_now() - start) * 1e3;
    }
    err = clEnqueueReadBuffer(clprim_queue(ctx), hbuf, CL_TRUE, 0, slots * sizeof *hist, hist, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clprim histogram: reading the histogram back failed (OpenCL error %d)\n", err);
        goto done;
    }

    printf("%s: %zu x %zu %s, %ld bins, on %s (%.3f ms a call)\n", cli_input_name(in_path), img.width, img.height,
           cli_image_channels_name(img.channels), bins, device_name, call_ms);
    static const char *const titles[] = {"red", "green", "blue", "alpha", "grey = floor((r + g + b) / 3)"};
    static const char *const labels[] = {"R", "G", "B", "A", "GREY"};
    static const unsigned char colours[5][3] = {{214, 48, 49}, {46, 160, 67}, {45, 95, 210}, {130, 130, 130},
                                                {85, 85, 85}};
    const char *names[4];
    unsigned char panel_colours[4][3];
    for (size_t k = 0; k < nhist; k++) {
        int c = channel == CLPRIM_CHANNEL_ALL ? (int)k : channel;
        print_chart(titles[c], hist + k * (size_t)bins, (size_t)bins);
        names[k] = labels[c];
        memcpy(panel_colours[k], colours[c], 3);
    }
    if (plot) {
        if (plot_png(plot, hist, (size_t)bins, nhist, names, (const unsigned char(*)[3])panel_colours, why,
                     sizeof why) != 0) {
            fprintf(stderr, "clprim histogram: %s\n", why);
            goto done;
        }
        printf("\nwrote %s\n", cli_output_name(plot));
    }
    status = 0;

done:
    if (src)
        clReleaseMemObject(src);
    if (hbuf)
        clReleaseMemObject(hbuf);
    free(hist);
    cli_image_free(&img);
    clprim_release(ctx);
    return status;
}
