/* Image files for the `clprim` commands: PNG, JPEG and BMP in, PNG out, through
 * the distribution's stb (libstb-dev). Built without stb, every call fails with
 * "built without image support" and cli_image_support() is 0. The path "-" is
 * standard input when read and standard output when written. */
#ifndef CLPRIM_CLI_IMAGE_H
#define CLPRIM_CLI_IMAGE_H

#include <stddef.h>

#include "clprim.h"

typedef struct {
    unsigned char *pixels; /* packed rows of width * channels bytes */
    size_t width, height;
    int channels;          /* 1 (grey), 3 (RGB) or 4 (RGBA) */
} cli_image;

/* The most pixels an image read may declare unless --max-pixels says otherwise:
 * 2^28, 1 GiB of RGBA. */
#define CLI_IMAGE_MAX_PIXELS ((size_t)1 << 28)

/* 1 when this build reads and writes images. */
int cli_image_support(void);

/* Reads a PNG, JPEG or BMP file ("-": all of standard input). channels 0: the
 * file's own, 1 for grey, 3 for RGB, 4 for RGBA and for grey with alpha (there
 * is no grey-and-alpha pixel format: the grey goes to R, G and B, the alpha is
 * kept); 1, 3 or 4: converted to that. A missing, truncated, corrupt or
 * unsupported file, or one whose header declares more than max_pixels pixels
 * (refused before decoding), returns -1 with a message in why (which names the
 * path); never crashes. On success returns 0, *img owns its pixels, and why is
 * empty or a note for the user: a file of 16 bits a channel is rounded to 8
 * bits (v / 257 to nearest) and the note says so. */
int cli_image_read(const char *path, int channels, size_t max_pixels, cli_image *img, char *why, size_t size);

/* Writes img as a PNG file (through output.h: a temporary renamed into place,
 * every write checked); -1 with a message in why on failure. */
int cli_image_write_png(const char *path, const cli_image *img, char *why, size_t size);

/* Allocates a width x height image of `channels`, filled with `fill` bytes; -1
 * when out of memory or when its bytes would not fit in a size_t. */
int cli_image_alloc(cli_image *img, size_t width, size_t height, int channels, unsigned char fill);

void cli_image_free(cli_image *img);

/* A grey image made RGB (r = g = b = the grey); -1 when out of memory, img
 * unchanged. */
int cli_image_widen_grey(cli_image *img);

/* How messages name an input path: "standard input" for "-", else path. */
const char *cli_input_name(const char *path);

/* "RGB", "RGBA", "grey". */
const char *cli_image_channels_name(int channels);

/* 1 when path ends in .png (any case). */
int cli_is_png_name(const char *path);

/* ---- The steps the image commands share ----
 * cmd is the command's name, for messages "clprim CMD: ...". */

/* 1 when path ends in .png, or is "-" and standard output could be claimed for
 * the file (cli_output_claim_stdout: what the command prints goes to standard
 * error from now on); else prints why ("... give it a .png name", "standard
 * output is a terminal") and returns 0 (exit 2). option may be NULL (the
 * positional output). */
int cli_want_png(const char *cmd, const char *option, const char *path, const char *what);

/* Checks cli_image_support() and reads path (channels 0, see cli_image_read),
 * saying on stderr when 16 bits were rounded to 8. 0 on success; else prints
 * why and returns the exit code 1. */
int cli_load_image(const char *cmd, const char *path, size_t max_pixels, cli_image *img);

/* Opens the context (cli_open) and reads the device's name into name. On
 * failure frees img and returns NULL (cli_open has printed why). */
clprim_context *cli_open_for_image(const char *device, cli_image *img, char *name, size_t size);

/* The start of a command that reads path and writes out_png: cli_want_png
 * (when out_png is not NULL), cli_load_image, cli_open_for_image. Returns 0
 * with *img and *ctx set, else the exit code (2: the output's name, 1: the
 * image or the context) with nothing left to free. */
int cli_load_image_and_context(const char *cmd, const char *path, size_t max_pixels, const char *out_png,
                               const char *device, cli_image *img, clprim_context **ctx, char *name, size_t size);

/* Bytes of the pixels: width * height * channels. */
size_t cli_image_bytes(const cli_image *img);

/* The clprim pixel format of img's channels: RGBA8 (4), GREY8 (1), else RGB8. */
clprim_pixel_format cli_image_format(const cli_image *img);

/* A clprim_image of img's size and format in buf, packed from byte 0. */
clprim_image cli_image_view(cl_mem buf, const cli_image *img);

/* A buffer of the context of ctx. Does nothing and returns NULL when *err is
 * already an error, so that calls chain: every buffer made, or *err says why. */
cl_mem cli_buffer(clprim_context *ctx, cl_mem_flags flags, size_t bytes, void *host, cl_int *err);

/* img's pixels copied into a new read-only buffer; sets *err (it need not be set before). */
cl_mem cli_image_upload(clprim_context *ctx, const cli_image *img, cl_int *err);

/* Reads buf (out's bytes, from byte 0) into out's pixels and writes out as the
 * PNG file path. 0 on success; else prints "clprim CMD: reading the result back
 * failed (OpenCL error N)" or why the file was not written, and returns -1. */
int cli_image_save(const char *cmd, clprim_context *ctx, cl_mem buf, cli_image *out, const char *path);

#endif
