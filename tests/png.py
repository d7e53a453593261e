"""Reads the PNG files the clprim tool writes (8 bits a channel, not
interlaced), for the tests/cli_*.sh checks that look at pixels: no imaging
package needed, only zlib."""
import struct
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # PNG colour type -> channels


def read(path):
    """(width, height, channels, rows): rows[y] is a bytes object of width * channels."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(path + ": not a PNG file")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or colour not in CHANNELS:
                raise ValueError(path + ": only 8-bit, non-interlaced PNG is read here")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    channels = CHANNELS[colour]
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytes(width * channels)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        rows.append(unfilter(line[0], bytearray(line[1:]), prev, channels))
        prev = rows[-1]
    return width, height, channels, rows


def unfilter(kind, cur, prev, bpp):
    for i in range(len(cur)):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if kind == 1:
            cur[i] = (cur[i] + a) & 255
        elif kind == 2:
            cur[i] = (cur[i] + b) & 255
        elif kind == 3:
            cur[i] = (cur[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return bytes(cur)


def colour(rows, x, y, channels):
    """The pixel at (x, y) as '#rrggbb' (grey repeated; alpha left out)."""
    p = rows[y][x * channels:(x + 1) * channels]
    return "#" + (p[:1] * 3 if channels < 3 else p[:3]).hex()
