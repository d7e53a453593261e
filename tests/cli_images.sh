#!/bin/sh
# The image commands of the built `clprim` on good and bad files: a missing file,
# a truncated PNG, a PNG with a damaged chunk, a file that is no image, an empty
# file each give a clear message and exit 1 (never a crash); bad options exit 2;
# a photograph goes through threshold and histogram and comes back as a PNG;
# grey stays grey, 16-bit input is rounded to 8 bits, "-" is standard input and
# output; the first call's report tells kernels built from kernels loaded from
# the disk cache; `clprim demo` checks every primitive and writes only with --out.
# usage: cli_images.sh CLPRIM DATA_DIR images|no-images
set -u
. "$(dirname "$0")/cli_expect.sh"
clprim=$1
data=$2
support=$3

if [ "$support" != images ]; then
    expect 1 "built without image support" "$clprim" threshold "$data/coffee.png" "$tmp/out.png"
    expect 1 "built without image support" "$clprim" histogram "$data/coffee.png"
    exit $((failures != 0))
fi

head -c 100000 "$data/coffee.png" >"$tmp/truncated.png"
head -c 20 "$data/coffee.png" >"$tmp/header-only.png"
echo "this is a text file, not an image" >"$tmp/text.png"
: >"$tmp/empty.png"
cp "$data/coffee.png" "$tmp/corrupt.png"
chmod u+w "$tmp/corrupt.png"
printf 'XXXX' | dd of="$tmp/corrupt.png" bs=1 seek=5000 conv=notrunc 2>/dev/null

for cmd in threshold histogram; do
    out=
    [ $cmd = threshold ] && out="$tmp/out.png"
    expect 1 "No such file" "$clprim" $cmd "$tmp/missing.png" $out
    expect 1 "truncated" "$clprim" $cmd "$tmp/truncated.png" $out
    expect 1 "truncated" "$clprim" $cmd "$tmp/header-only.png" $out
    expect 1 "not a PNG, JPEG or BMP image" "$clprim" $cmd "$tmp/text.png" $out
    expect 1 "empty" "$clprim" $cmd "$tmp/empty.png" $out
    expect 1 "CRC" "$clprim" $cmd "$tmp/corrupt.png" $out
    expect 1 "not a regular file" "$clprim" $cmd "$tmp" $out
done
[ -e "$tmp/out.png" ] && { echo "FAIL: a failed threshold wrote its output"; failures=$((failures + 1)); }

expect 2 "usage" "$clprim" threshold "$data/coffee.png"
expect 2 "(0, 1]" "$clprim" threshold "$data/coffee.png" "$tmp/out.png" --ratio 0
expect 2 "(0, 1]" "$clprim" threshold "$data/coffee.png" "$tmp/out.png" --ratio nan
expect 2 "unknown --mode" "$clprim" threshold "$data/coffee.png" "$tmp/out.png" --mode blue
expect 2 ".png" "$clprim" threshold "$data/coffee.png" "$tmp/out.jpg"
expect 2 "[1, 256]" "$clprim" histogram "$data/coffee.png" --bins 257
expect 2 "unknown --channel" "$clprim" histogram "$data/coffee.png" --channel x
expect 1 "no alpha" "$clprim" histogram "$data/coffee.png" --channel a
expect 1 "cannot write" "$clprim" threshold "$data/coffee.png" "$tmp/no/such/dir/out.png"

# A 2 x 2 BMP (red, green / blue, white), made here, and the same cut short.
printf 'BM\106\000\000\000\000\000\000\000\066\000\000\000\050\000\000\000\002\000\000\000\002\000\000\000' >"$tmp/tiny.bmp"
printf '\001\000\030\000\000\000\000\000\020\000\000\000\023\013\000\000\023\013\000\000' >>"$tmp/tiny.bmp"
printf '\000\000\000\000\000\000\000\000' >>"$tmp/tiny.bmp"
printf '\377\000\000\377\377\377\000\000\000\000\377\000\377\000\000\000' >>"$tmp/tiny.bmp"
head -c 62 "$tmp/tiny.bmp" >"$tmp/tiny-truncated.bmp"
expect 0 "" "$clprim" threshold "$tmp/tiny.bmp" "$tmp/tiny.png" --mode yellow
grep -q "1 pixels selected" "$tmp/out" || { echo "FAIL: tiny.bmp: want the red pixel alone selected:"; cat "$tmp/out"; failures=$((failures + 1)); }
expect 1 "truncated" "$clprim" threshold "$tmp/tiny-truncated.bmp" "$tmp/tiny2.png"

# The good path: every mode writes a PNG that reads back.
for mode in keep yellow reinsert grey otsu; do
    expect 0 "" "$clprim" threshold "$data/coffee.png" "$tmp/$mode.png" --mode $mode
    expect 0 "" "$clprim" histogram "$tmp/$mode.png" --bins 8
done
expect 0 "" "$clprim" histogram "$data/chelsea.png" --channel all --bins 64 --plot "$tmp/chart.png"
expect 0 "" "$clprim" histogram "$tmp/chart.png" --channel r

# The first call's report: kernels built in a cold process, loaded from the disk
# cache in the next one (PoCL's own cache off, so that the disk cache is used).
expect 0 "the first call took" env CLPRIM_CACHE_DIR="$tmp/cache" POCL_KERNEL_CACHE=0 \
    "$clprim" threshold "$data/coffee.png" "$tmp/cold.png"
grep -q "first call took .* ms, building [0-9]* kernel programs\\{0,1\\}$" "$tmp/out" ||
    { echo "FAIL: a cold threshold did not say it built its kernel"; failures=$((failures + 1)); }
expect 0 "the first call took" env CLPRIM_CACHE_DIR="$tmp/cache" POCL_KERNEL_CACHE=0 \
    "$clprim" threshold "$data/coffee.png" "$tmp/warm.png"
grep -q "first call took .* ms, loading [0-9]* kernel programs\\{0,1\\} from the disk cache$" "$tmp/out" ||
    { echo "FAIL: a warm threshold did not say it loaded its kernel from the disk cache"; failures=$((failures + 1)); }

# Channels and standard streams. Made here: a 16 x 8 grey PNG, the same with
# alpha, and a 16-bit grey one whose every pixel is 0x00FF (rounded to 8 bits
# that is 1; cut to its high byte it would be 0).
python3 - "$tmp" <<'PY' || exit 1
import struct, sys, zlib
def png(path, colour, depth, rows):
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
    ihdr = struct.pack('>IIBBBBB', 16, len(rows), depth, colour, 0, 0, 0)
    idat = zlib.compress(b''.join(b'\0' + row for row in rows))
    with open(sys.argv[1] + '/' + path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', idat) + chunk(b'IEND', b''))
png('grey.png', 0, 8, [bytes((16 * x + 3 * y) % 256 for x in range(16)) for y in range(8)])
png('grey-alpha.png', 4, 8, [bytes(v for x in range(16) for v in ((16 * x) % 256, 255 - y)) for y in range(8)])
png('grey16.png', 0, 16, [struct.pack('>16H', *[0x00FF] * 16) for y in range(8)])
PY

# png_is PATH COLOUR: PATH is a whole PNG (signature first, IEND last: nothing
# else was printed into it) of 8 bits a channel and IHDR colour type COLOUR
# (byte 25: 0 grey, 2 RGB, 6 RGBA).
png_is() {
    got="$(od -An -tu1 -j24 -N2 "$1" 2>/dev/null | tr -s ' ')"
    if [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' ')" != 89504e470d0a1a0a ] ||
        [ "$(tail -c 12 "$1" | head -c 8 | od -An -tx1 | tr -d ' ')" != 0000000049454e44 ] ||
        [ "$got" != " 8 $2" ]; then
        echo "FAIL: $1 should be a whole 8-bit PNG of colour type $2 (depth, type:$got)"
        failures=$((failures + 1))
    fi
}

# RC|message|command (run by sh: < and > work)|the PNG it writes|its colour type
while IFS='|' read -r want needle command png colour; do
    case $want in '' | '#'*) continue ;; esac
    [ -n "$png" ] && rm -f "$png"
    expect "$want" "$needle" sh -c "$command"
    [ -n "$png" ] && png_is "$png" "$colour"
done <<TABLE
# A grey file stays grey: its masks are 1-channel PNGs; the red modes write RGB.
0|16 x 8 grey|"$clprim" threshold "$tmp/grey.png" "$tmp/c1.png" --mode otsu|$tmp/c1.png|0
0|(grey)|"$clprim" threshold "$tmp/grey.png" "$tmp/c2.png" --mode grey|$tmp/c2.png|0
0|(RGB)|"$clprim" threshold "$tmp/grey.png" "$tmp/c3.png" --mode yellow|$tmp/c3.png|2
0|16 x 8 grey|"$clprim" histogram "$tmp/c1.png" --bins 2||
1|is grey: it has no red channel|"$clprim" histogram "$tmp/grey.png" --channel r||
# A mask of a colour photograph is grey too; grey with alpha keeps its alpha.
0|(grey)|"$clprim" threshold "$data/coffee.png" "$tmp/c4.png" --mode otsu|$tmp/c4.png|0
0|16 x 8 RGBA|"$clprim" threshold "$tmp/grey-alpha.png" "$tmp/c5.png" --mode otsu|$tmp/c5.png|6
# 16 bits a channel: rounded to 8 (0x00FF is 1, above level 0), said on stderr.
0|16 bits a channel: rounded to 8 bits|"$clprim" threshold "$tmp/grey16.png" "$tmp/c6.png" --mode grey --level 0|$tmp/c6.png|0
0|128 pixels in the foreground (100.0%)|"$clprim" threshold "$tmp/grey16.png" "$tmp/c7.png" --mode grey --level 0|$tmp/c7.png|0
# "-": standard input and output; the report goes to stderr, the PNG alone to stdout.
0|wrote standard output (grey)|"$clprim" threshold - - --mode otsu < "$tmp/grey.png" > "$tmp/c8.png"|$tmp/c8.png|0
0|standard input: 16 x 8 grey|"$clprim" threshold - - --mode keep < "$tmp/grey.png" > "$tmp/c9.png"|$tmp/c9.png|2
0|wrote standard output|"$clprim" histogram - --plot - < "$data/coffee.png" > "$tmp/c10.png"|$tmp/c10.png|2
1|standard input is empty|"$clprim" threshold - "$tmp/c11.png" < /dev/null||
TABLE
[ -e "$tmp/c11.png" ] && { echo "FAIL: a failed threshold wrote its output"; failures=$((failures + 1)); }

# `clprim demo`: every primitive's row says ok, and without --out it writes no
# file where it runs; with --out it writes the picture there.
mkdir "$tmp/demo"
case $clprim in /*) ;; *) clprim=$PWD/$clprim ;; esac
expect 0 "Every result matches the CPU." sh -c "cd '$tmp/demo' && exec '$clprim' demo --n 5000"
for row in $("$clprim" bench --list) threshold-photo otsu-photo kmeans-photo; do
    grep -q "^$row .* ok\$" "$tmp/out" || { echo "FAIL: demo: no ok row for $row"; failures=$((failures + 1)); }
done
[ -z "$(ls -A "$tmp/demo")" ] || { echo "FAIL: demo without --out wrote: $(ls -A "$tmp/demo")"; failures=$((failures + 1)); }
expect 0 "written to $tmp/demo/picture.png" "$clprim" demo --n 5000 --out "$tmp/demo/picture.png"
png_is "$tmp/demo/picture.png" 2
expect 2 "give it a .png name" "$clprim" demo --n 5000 --out "$tmp/demo/picture.jpg"

exit $((failures != 0))
