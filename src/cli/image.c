/* Image files through stb: the file is read whole, recognised by its signature
 * (PNG, JPEG, BMP only: stb would also take a TGA, which has no signature, so
 * any file could pass as one), checked for truncation and corruption that stb
 * would quietly decode as black or grey (missing IEND or EOI, PNG chunk CRCs, a
 * BMP shorter than its pixel rows), then decoded. */
#include "image.h"
#include "commands.h"
#include "output.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifdef CLPRIM_HAVE_STB
/* The implementations are compiled into libstb: no STB_IMAGE_IMPLEMENTATION here. */
#include <stb_image.h>
#include <stb_image_write.h>
#endif

#define MAX_FILE_BYTES ((size_t)1 << 30)

static int fail(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return -1;
}

int cli_image_alloc(cli_image *img, size_t width, size_t height, int channels, unsigned char fill)
{
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->pixels = NULL;
    if (channels <= 0 || (width && height > SIZE_MAX / width / (size_t)channels))
        return -1;
    size_t bytes = width * height * (size_t)channels;
    img->pixels = malloc(bytes ? bytes : 1);
    if (!img->pixels)
        return -1;
    memset(img->pixels, fill, bytes);
    return 0;
}

void cli_image_free(cli_image *img)
{
    if (!img)
        return;
    free(img->pixels);
    img->pixels = NULL;
}

int cli_image_widen_grey(cli_image *img)
{
    cli_image rgb;
    if (cli_image_alloc(&rgb, img->width, img->height, 3, 0) != 0)
        return -1;
    for (size_t i = 0, n = img->width * img->height; i < n; i++)
        memset(rgb.pixels + 3 * i, img->pixels[i], 3);
    cli_image_free(img);
    *img = rgb;
    return 0;
}

const char *cli_image_channels_name(int channels)
{
    return channels == 1 ? "grey" : channels == 3 ? "RGB" : channels == 4 ? "RGBA" : "?";
}

const char *cli_input_name(const char *path)
{
    return strcmp(path, "-") ? path : "standard input";
}

int cli_is_png_name(const char *path)
{
    size_t len = strlen(path);
    return len >= 4 && strcasecmp(path + len - 4, ".png") == 0;
}

#ifndef CLPRIM_HAVE_STB

int cli_image_support(void)
{
    return 0;
}

int cli_image_read(const char *path, int channels, size_t max_pixels, cli_image *img, char *why, size_t size)
{
    (void)channels;
    (void)max_pixels;
    (void)img;
    return fail(why, size, "cannot read %s: built without image support (install libstb-dev and rebuild)",
                cli_input_name(path));
}

int cli_image_write_png(const char *path, const cli_image *img, char *why, size_t size)
{
    (void)img;
    return fail(why, size, "cannot write %s: built without image support (install libstb-dev and rebuild)",
                cli_output_name(path));
}

#else

int cli_image_support(void)
{
    return 1;
}

/* ---- Reading the file ---- */

/* Reads f to its end into a new buffer of at most MAX_FILE_BYTES; expect is
 * the size a regular file declared (0 for a pipe: the buffer grows). */
static unsigned char *read_stream(FILE *f, const char *name, size_t expect, size_t *length, char *why, size_t size)
{
    size_t cap = expect + 1, used = 0; /* one byte more: a file that grew shows */
    unsigned char *data = malloc(cap);
    for (;;) {
        if (!data) {
            fail(why, size, "out of memory reading %s", name);
            return NULL;
        }
        size_t got;
        while (used < cap && (got = fread(data + used, 1, cap - used, f)) > 0)
            used += got;
        if (used < cap || cap > MAX_FILE_BYTES)
            break;
        cap = cap > MAX_FILE_BYTES / 2 ? MAX_FILE_BYTES + 1 : cap * 2;
        unsigned char *more = realloc(data, cap);
        if (!more)
            free(data);
        data = more;
    }
    if (ferror(f)) {
        free(data);
        fail(why, size, "cannot read %s: %s", name, strerror(errno));
        return NULL;
    }
    if (used > MAX_FILE_BYTES) {
        free(data);
        fail(why, size, "%s is larger than the %zu MiB this tool reads", name, MAX_FILE_BYTES >> 20);
        return NULL;
    }
    *length = used;
    return data;
}

/* The whole file, or all of standard input for "-" (name: how messages call it). */
static unsigned char *read_whole(const char *path, const char *name, size_t *length, char *why, size_t size)
{
    if (!strcmp(path, "-"))
        return read_stream(stdin, name, 65536, length, why, size);
    struct stat st;
    if (stat(path, &st) != 0) {
        fail(why, size, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        fail(why, size, "%s is not a regular file", path);
        return NULL;
    }
    if ((unsigned long long)st.st_size > MAX_FILE_BYTES) {
        fail(why, size, "%s is %llu bytes: larger than the %zu MiB this tool reads", path,
             (unsigned long long)st.st_size, MAX_FILE_BYTES >> 20);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(why, size, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    unsigned char *data = read_stream(f, name, (size_t)st.st_size, length, why, size);
    fclose(f);
    return data;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[1] << 8 | p[0];
}

/* ---- PNG: every chunk whole, CRCs right, up to IEND ---- */

static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    static int ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

/* The checks below also return the size the header declares in *w x *h (0 x 0
 * when it says none), for the pixel limit before anything is decoded: stbi_info
 * cannot serve, it refuses a PNG of more than 2^30 bytes of pixels as "unknown
 * image type". */

static int check_png(const char *path, const unsigned char *d, size_t len, uint64_t *w, uint64_t *h, char *why,
                     size_t size)
{
    size_t at = 8;
    for (;;) {
        if (len - at < 12)
            return fail(why, size, "%s is truncated: a PNG file of %zu bytes that ends before its IEND chunk", path,
                        len);
        uint32_t n = be32(d + at);
        char type[5] = {(char)d[at + 4], (char)d[at + 5], (char)d[at + 6], (char)d[at + 7], 0};
        if (n > 0x7FFFFFFFu)
            return fail(why, size, "%s is corrupt: PNG chunk at byte %zu has length %u", path, at, n);
        if (n > len - at - 12)
            return fail(why, size,
                        "%s is truncated: PNG chunk \"%s\" at byte %zu needs %u bytes, the file ends %zu bytes later",
                        path, type, at, n + 12, len - at);
        uint32_t crc = crc32_update(0xFFFFFFFFu, d + at + 4, (size_t)n + 4) ^ 0xFFFFFFFFu;
        if (crc != be32(d + at + 8 + n))
            return fail(why, size, "%s is corrupt: PNG chunk \"%s\" at byte %zu fails its CRC check", path, type, at);
        if (at == 8 && !strcmp(type, "IHDR") && n >= 8) {
            *w = be32(d + 16);
            *h = be32(d + 20);
        }
        at += (size_t)n + 12;
        if (!strcmp(type, "IEND"))
            return 0;
    }
}

/* ---- JPEG: markers from SOI to EOI (anything after EOI is ignored) ---- */

/* Start-of-frame markers (0xC0 to 0xCF but DHT 0xC4, JPG 0xC8 and DAC 0xCC): the size. */
static int is_start_of_frame(unsigned m)
{
    return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

static int check_jpeg(const char *path, const unsigned char *d, size_t len, uint64_t *w, uint64_t *h, char *why,
                      size_t size)
{
    size_t at = 2;
    while (at < len) {
        if (d[at] != 0xFF) { /* stray bytes between segments: decoders skip them too */
            at++;
            continue;
        }
        while (at < len && d[at] == 0xFF)
            at++;
        if (at >= len)
            break;
        unsigned m = d[at++];
        if (m == 0xD9)
            return 0; /* EOI */
        if ((m >= 0xD0 && m <= 0xD7) || m == 0x01 || m == 0x00)
            continue; /* no length */
        if (len - at < 2)
            break;
        size_t seg = ((size_t)d[at] << 8) | d[at + 1];
        if (seg < 2)
            return fail(why, size, "%s is corrupt: JPEG segment 0xFF%02X at byte %zu has length %zu", path, m, at - 2,
                        seg);
        if (seg > len - at)
            break;
        if (is_start_of_frame(m) && seg >= 7 && *w == 0 && *h == 0) { /* the first frame is the one decoded */
            *h = ((uint64_t)d[at + 3] << 8) | d[at + 4];
            *w = ((uint64_t)d[at + 5] << 8) | d[at + 6];
        }
        at += seg;
        if (m == 0xDA) { /* SOS: entropy-coded data up to the next real marker */
            while (at + 1 < len && !(d[at] == 0xFF && d[at + 1] != 0x00 && !(d[at + 1] >= 0xD0 && d[at + 1] <= 0xD7)))
                at++;
            if (at + 1 >= len)
                break;
        }
    }
    return fail(why, size, "%s is truncated: a JPEG file of %zu bytes that ends before its end-of-image marker", path,
                len);
}

/* ---- BMP: the pixel rows of an uncompressed file are all there ---- */

static int check_bmp(const char *path, const unsigned char *d, size_t len, uint64_t *width, uint64_t *height,
                     char *why, size_t size)
{
    if (len < 26)
        return fail(why, size, "%s is truncated: %zu bytes, shorter than a BMP header", path, len);
    uint64_t off = le32(d + 10), hsize = le32(d + 14);
    int64_t w, h;
    uint32_t bpp, compression = 0;
    if (hsize == 12) {
        w = le16(d + 18);
        h = le16(d + 20);
        bpp = le16(d + 24);
    } else {
        if (len < 34)
            return fail(why, size, "%s is truncated: %zu bytes, shorter than a BMP header", path, len);
        w = (int32_t)le32(d + 18);
        h = (int32_t)le32(d + 22);
        bpp = le16(d + 28);
        compression = le32(d + 30);
    }
    if (h < 0)
        h = -h;
    if (w <= 0 || h <= 0 || bpp == 0 || bpp > 32)
        return fail(why, size, "%s is corrupt: a BMP of %lld x %lld pixels at %u bits", path, (long long)w,
                    (long long)h, bpp);
    *width = (uint64_t)w;
    *height = (uint64_t)h;
    if (compression == 0 || compression == 3 || compression == 6) {
        uint64_t row = ((uint64_t)w * bpp + 31) / 32 * 4;
        if (off > len || row * (uint64_t)h > len - off)
            return fail(why, size, "%s is truncated: its %lld x %lld pixels need %llu bytes from byte %llu, the file "
                        "has %zu", path, (long long)w, (long long)h, (unsigned long long)(row * (uint64_t)h),
                        (unsigned long long)off, len);
    }
    return 0;
}

int cli_image_read(const char *path, int channels, size_t max_pixels, cli_image *img, char *why, size_t size)
{
    memset(img, 0, sizeof *img);
    const char *name = cli_input_name(path);
    size_t len = 0;
    unsigned char *data = read_whole(path, name, &len, why, size);
    if (!data)
        return -1;
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    int rc;
    uint64_t w = 0, h = 0;
    if (len == 0)
        rc = fail(why, size, "%s is empty", name);
    else if (len >= 8 && !memcmp(data, png_sig, 8))
        rc = check_png(name, data, len, &w, &h, why, size);
    else if (len >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF)
        rc = check_jpeg(name, data, len, &w, &h, why, size);
    else if (len >= 2 && data[0] == 'B' && data[1] == 'M')
        rc = check_bmp(name, data, len, &w, &h, why, size);
    else if (len >= 8 && !memcmp(data, png_sig + 1, 3))
        rc = fail(why, size, "%s is corrupt: a damaged PNG signature", name);
    else
        rc = fail(why, size, "%s is not a PNG, JPEG or BMP image", name);
    if (rc == 0 && w * h > max_pixels) /* each below 2^32: no overflow */
        rc = fail(why, size,
                  "%s: %llu x %llu = %llu pixels is above the limit of %zu; raise it with --max-pixels", name,
                  (unsigned long long)w, (unsigned long long)h, (unsigned long long)(w * h), max_pixels);
    if (rc != 0 || len > (size_t)INT32_MAX) {
        if (rc == 0)
            rc = fail(why, size, "%s is too large", name);
        free(data);
        return rc;
    }

    /* Where stbi_info fails its reason is "unknown image type" whatever the header
     * said; the decoder, which fails too, then gives the format's own reason. */
    int width, height, comp = 4;
    stbi_info_from_memory(data, (int)len, &width, &height, &comp);
    int want = channels ? channels : comp == 1 ? 1 : comp == 3 ? 3 : 4;
    int wide = stbi_is_16_bit_from_memory(data, (int)len);
    if (size)
        why[0] = '\0';
    unsigned char *pixels = wide ? (unsigned char *)stbi_load_16_from_memory(data, (int)len, &width, &height, &comp,
                                                                             want)
                                 : stbi_load_from_memory(data, (int)len, &width, &height, &comp, want);
    free(data);
    if (!pixels)
        return fail(why, size, "%s cannot be decoded: %s", name, stbi_failure_reason());
    img->width = (size_t)width;
    img->height = (size_t)height;
    img->channels = want;
    if (wide) { /* to 8 bits in place, rounded to nearest: 65535 / 255 = 257 exactly */
        const size_t values = cli_image_bytes(img);
        const uint16_t *from = (const uint16_t *)(void *)pixels;
        for (size_t i = 0; i < values; i++)
            pixels[i] = (unsigned char)((from[i] + 128u) / 257u);
        snprintf(why, size, "%s has 16 bits a channel: rounded to 8 bits", name);
    }
    img->pixels = pixels; /* stbi_image_free is free() in the default build */
    return 0;
}

static void write_to_output(void *context, void *data, int bytes)
{
    cli_output_write(context, data, (size_t)bytes);
}

int cli_image_write_png(const char *path, const cli_image *img, char *why, size_t size)
{
    if (img->width > INT32_MAX / 4 || img->height > INT32_MAX || img->width * (size_t)img->channels > INT32_MAX)
        return fail(why, size, "cannot write %s: %zu x %zu is too large for PNG output", cli_output_name(path),
                    img->width, img->height);
    cli_output out;
    if (cli_output_open(&out, path, why, size) != 0)
        return -1;
    if (!stbi_write_png_to_func(write_to_output, &out, (int)img->width, (int)img->height, img->channels,
                                img->pixels, (int)(img->width * (size_t)img->channels))) {
        cli_output_discard(&out);
        return fail(why, size, "cannot write %s: out of memory encoding the PNG", cli_output_name(path));
    }
    return cli_output_close(&out, why, size);
}

#endif

/* ---- The steps the image commands share ---- */

int cli_want_png(const char *cmd, const char *option, const char *path, const char *what)
{
    if (!strcmp(path, "-")) {
        if (cli_output_claim_stdout() == 0)
            return 1;
        fprintf(stderr, "clprim %s: %s%s-: standard output is %s; redirect it to write the %s there\n", cmd,
                option ? option : "", option ? " " : "", errno == ENOTTY ? "a terminal" : strerror(errno), what);
        return 0;
    }
    if (cli_is_png_name(path))
        return 1;
    fprintf(stderr, "clprim %s: %s%s%s: the %s is written as PNG; give it a .png name\n", cmd, option ? option : "",
            option ? " " : "", path, what);
    return 0;
}

int cli_load_image(const char *cmd, const char *path, size_t max_pixels, cli_image *img)
{
    if (!cli_image_support()) {
        fprintf(stderr, "clprim %s: built without image support (libstb-dev was not found at build time)\n", cmd);
        return 1;
    }
    char why[1024];
    if (cli_image_read(path, 0, max_pixels, img, why, sizeof why) != 0) {
        fprintf(stderr, "clprim %s: %s\n", cmd, why);
        return 1;
    }
    if (why[0])
        fprintf(stderr, "clprim %s: %s\n", cmd, why);
    return 0;
}

clprim_context *cli_open_for_image(const char *device, cli_image *img, char *name, size_t size)
{
    clprim_context *ctx = cli_open(device);
    if (!ctx) {
        cli_image_free(img);
        return NULL;
    }
    if (size)
        name[0] = '\0';
    clGetDeviceInfo(clprim_device(ctx), CL_DEVICE_NAME, size, name, NULL);
    return ctx;
}

int cli_load_image_and_context(const char *cmd, const char *path, size_t max_pixels, const char *out_png,
                               const char *device, cli_image *img, clprim_context **ctx, char *name, size_t size)
{
    if (out_png && !cli_want_png(cmd, NULL, out_png, "output"))
        return 2;
    if (cli_load_image(cmd, path, max_pixels, img) != 0)
        return 1;
    *ctx = cli_open_for_image(device, img, name, size);
    return *ctx ? 0 : 1;
}

size_t cli_image_bytes(const cli_image *img)
{
    return img->width * img->height * (size_t)img->channels;
}

clprim_pixel_format cli_image_format(const cli_image *img)
{
    return img->channels == 4 ? CLPRIM_RGBA8 : img->channels == 1 ? CLPRIM_GREY8 : CLPRIM_RGB8;
}

clprim_image cli_image_view(cl_mem buf, const cli_image *img)
{
    return (clprim_image){buf, 0, img->width, img->height, 0, cli_image_format(img)};
}

cl_mem cli_buffer(clprim_context *ctx, cl_mem_flags flags, size_t bytes, void *host, cl_int *err)
{
    if (*err != CL_SUCCESS)
        return NULL;
    cl_context cl = clprim_cl_context(ctx);
    return clCreateBuffer(cl, flags, bytes, host, err);
}

cl_mem cli_image_upload(clprim_context *ctx, const cli_image *img, cl_int *err)
{
    *err = CL_SUCCESS;
    return cli_buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, cli_image_bytes(img), img->pixels, err);
}

int cli_image_save(const char *cmd, clprim_context *ctx, cl_mem buf, cli_image *out, const char *path)
{
    cl_int err = clEnqueueReadBuffer(clprim_queue(ctx), buf, CL_TRUE, 0, cli_image_bytes(out), out->pixels, 0, NULL,
                                     NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clprim %s: reading the result back failed (OpenCL error %d)\n", cmd, err);
        return -1;
    }
    char why[1024];
    if (cli_image_write_png(path, out, why, sizeof why) != 0) {
        fprintf(stderr, "clprim %s: %s\n", cmd, why);
        return -1;
    }
    return 0;
}
