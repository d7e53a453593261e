#!/bin/sh
# `clprim kmeans` on a photograph: the device and the C loop agree bit for bit
# (--check), the inertia is printed, --restarts keeps a run no worse than the
# first seed's alone, a grey image runs once, counts may be written 1e1, and bad
# counts exit 2. The palette printed is the colours of the image written and of
# the --palette strip; the first call's report says whether it built its
# kernels or loaded them from the disk cache.
# usage: cli_kmeans.sh CLPRIM DATA_DIR images|no-images
set -u
. "$(dirname "$0")/cli_expect.sh"
clprim=$1
data=$2
support=$3

if [ "$support" != images ]; then
    expect 1 "built without image support" "$clprim" kmeans "$data/chelsea.png" "$tmp/out.png" -k 4
    exit $((failures != 0))
fi

inertia() { sed -n 's/^inertia \([^ ]*\).*/\1/p' "$tmp/out"; }

expect 0 "the same" "$clprim" kmeans "$data/chelsea.png" "$tmp/one.png" -k 6 --seed 3 --check
one=$(inertia)
expect 0 "kept the run of seed" "$clprim" kmeans "$data/chelsea.png" "$tmp/three.png" -k 6 --seed 3 --restarts 3 --check
three=$(inertia)
grep -q "^run 3 of 3 (seed 5)" "$tmp/out" || { echo "FAIL: --restarts 3 from seed 3 should run seeds 3 to 5"; failures=$((failures + 1)); }
if [ -z "$one" ] || [ -z "$three" ] || ! awk -v a="$three" -v b="$one" 'BEGIN { exit !(a <= b) }'; then
    echo "FAIL: inertia with --restarts 3 ($three) should be at most that of one run ($one)"
    failures=$((failures + 1))
fi

# A grey image starts from its optimal centres: restarts would repeat one run.
python3 - "$tmp/grey.png" <<'PY' || exit 1
import struct, sys, zlib
w, h = 32, 16
rows = b"".join(b"\0" + bytes((7 * x + 13 * y) % 256 for x in range(w)) for y in range(h))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
with open(sys.argv[1], "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY
expect 0 "one run, not 3" "$clprim" kmeans "$tmp/grey.png" "$tmp/grey-out.png" -k 4 --restarts 3 --check

# The palette: k hex colours, the strip's swatches in that order, and the only
# colours of the quantized image.
expect 0 "palette: #" "$clprim" kmeans "$data/chelsea.png" "$tmp/quantized.png" -k 5 --palette "$tmp/palette.png"
grep -q "^wrote $tmp/palette.png" "$tmp/out" || { echo "FAIL: kmeans --palette did not say it wrote the strip"; failures=$((failures + 1)); }
python3 - "$(dirname "$0")" "$tmp/palette.png" "$tmp/quantized.png" $(sed -n 's/^palette: //p' "$tmp/out") <<'PY' ||
import sys
sys.path.insert(0, sys.argv[1])
import png
strip, image, printed = sys.argv[2], sys.argv[3], sys.argv[4:]
w, h, ch, rows = png.read(strip)
swatches = [png.colour(rows, x, 0, ch) for x in range(16, w, 32)]
if len(printed) != 5 or (w, h) != (5 * 32, 32) or swatches != printed:
    sys.exit("the palette printed %s, its strip is %d x %d with swatches %s" % (printed, w, h, swatches))
w, h, ch, rows = png.read(image)
used = {png.colour(rows, x, y, ch) for y in range(h) for x in range(w)}
if not used <= set(printed):
    sys.exit("the quantized image has colours outside the palette: %s" % sorted(used - set(printed)))
print("ok: the palette strip and the quantized image are the printed colours %s" % " ".join(printed))
PY
    { echo "FAIL: kmeans --palette"; failures=$((failures + 1)); }
expect 2 "--palette" "$clprim" kmeans "$data/chelsea.png" "$tmp/never.png" -k 5 --palette "$tmp/palette.txt"

# The first call builds its kernel programs, a second process loads them from
# the disk cache (PoCL's own cache off, so that the disk cache is used).
expect 0 "first call took" env CLPRIM_CACHE_DIR="$tmp/cache" POCL_KERNEL_CACHE=0 \
    "$clprim" kmeans "$data/chelsea.png" "$tmp/first.png" -k 3 --iterations 2
grep -q "first call took .* ms, building [0-9]* kernel program" "$tmp/out" || { echo "FAIL: a cold k-means did not say it built its kernels"; failures=$((failures + 1)); }
expect 0 "from the disk cache" env CLPRIM_CACHE_DIR="$tmp/cache" POCL_KERNEL_CACHE=0 \
    "$clprim" kmeans "$data/chelsea.png" "$tmp/second.png" -k 3 --iterations 2
grep -q "building" "$tmp/out" && { echo "FAIL: a warm k-means said it built kernels"; failures=$((failures + 1)); }

expect 2 "--restarts" "$clprim" kmeans "$data/chelsea.png" "$tmp/never.png" -k 6 --restarts 0
expect 2 "--restarts" "$clprim" kmeans "$data/chelsea.png" "$tmp/never.png" -k 6 --restarts 2x
# Counts are written as everywhere else in the tool: 1e2 is 100.
expect 2 "-k" "$clprim" kmeans "$data/chelsea.png" "$tmp/never.png" -k 1e3
expect 2 "-k" "$clprim" kmeans "$data/chelsea.png" "$tmp/never.png" -k -4
expect 0 "inertia" "$clprim" kmeans "$tmp/grey.png" "$tmp/grey-1e1.png" -k 1e1 --iterations 2e1
[ -e "$tmp/never.png" ] && { echo "FAIL: a refused k-means wrote its output"; failures=$((failures + 1)); }

exit $((failures != 0))
