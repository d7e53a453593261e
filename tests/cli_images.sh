#!/bin/sh
# The image commands of the built `clprim` on good and bad files: a missing file,
# a truncated PNG, a PNG with a damaged chunk, a file that is no image, an empty
# file each give a clear message and exit 1 (never a crash); bad options exit 2;
# a photograph goes through threshold and histogram and comes back as a PNG.
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

exit $((failures != 0))
