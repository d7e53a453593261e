#!/bin/sh
# `clprim bench --launches` names the kernels under a row. `clprim bench --plot`:
# GB/s is drawn on a log axis, so that the sorts, at a small fraction of a
# reduction's GB/s, do not lie flat along zero. The chart's
# markers (7 x 7 squares in each series' colour) are found in the PNG and their
# heights compared with the GB/s of the --csv rows: a straight line in log10(GB/s),
# which a linear axis would not give, as the GB/s span more than 4x.
# usage: cli_bench.sh CLPRIM images|no-images
set -u
. "$(dirname "$0")/cli_expect.sh"
clprim=$1
support=$2

# --launches lists each kernel of a row's last run under the row.
expect 0 "reduce_" "$clprim" bench -p reduce -t int32 --min 1024 --max 1024 -r 2 --launches

if [ "$support" != images ]; then
    expect 1 "built without image support" "$clprim" bench -p reduce -t int32 --min 1024 --max 1024 --plot "$tmp/p.png"
    exit $((failures != 0))
fi

expect 0 "wrote $tmp/plot.png" "$clprim" bench -p reduce,sort-keys -t int32 --min 16384 --max 262144 -r 3 \
    --csv "$tmp/plot.csv" --plot "$tmp/plot.png"
python3 - "$(dirname "$0")" "$tmp/plot.png" "$tmp/plot.csv" <<'PY' || { echo "FAIL: bench --plot"; failures=$((failures + 1)); }
import csv, math, sys
sys.path.insert(0, sys.argv[1])
import png
w, h, ch, rows = png.read(sys.argv[2])
series = {("reduce", "int32"): bytes((31, 119, 180)), ("sort-keys", "int32"): bytes((255, 127, 14))}
gbps = {}
for row in csv.reader(open(sys.argv[3])):
    if row[0] == "sweep":
        gbps.setdefault((row[1], row[2]), []).append((int(row[3]), float(row[6])))
# Each series' markers; one under a later series' line is not whole and is left
# out, but the last series is drawn over the others, so every size has a marker.
found = {}
for key, rgb in series.items():
    pixel = lambda x, y: rows[y][x * ch:x * ch + 3] == rgb
    # Left of the legend, whose swatches are solid too (draw_plot: the plot ends
    # 330 pixels from the right, the legend starts 20 pixels after it).
    found[key] = [(x, y) for y in range(3, h - 3) for x in range(3, w - 320)
                  if pixel(x, y) and all(pixel(x + i, y + j) for i in range(-3, 4) for j in range(-3, 4))]
xs = sorted({x for centres in found.values() for x, y in centres})
sizes = sorted({n for rows_of in gbps.values() for n, g in rows_of})
if len(xs) != len(sizes):
    sys.exit("markers at %d places along n for %d sizes: %s" % (len(xs), len(sizes), found))
points = [(dict(gbps[key])[sizes[xs.index(x)]], y) for key in found for x, y in found[key]]
# The CSV gives GB/s to 3 decimals: the line is fitted through the points known
# to 1% or better, and each point may be off by what its rounding allows.
precise = [(math.log10(g), y) for g, y in points if g >= 0.05]
logs = [p[0] for p in precise]
if len(precise) < 3 or max(logs) - min(logs) < math.log10(4):
    print("too few points, or GB/s spans less than 4x: a log axis cannot be told from a linear one here")
    sys.exit(0)
# Least squares y = a + b log10(GB/s): every marker within 2 pixels of the line.
m = len(precise)
mx, my = sum(logs) / m, sum(p[1] for p in precise) / m
b = sum((p[0] - mx) * (p[1] - my) for p in precise) / sum((p[0] - mx) ** 2 for p in precise)
off = [abs(my + b * (math.log10(g) - mx) - y) - abs(b) * math.log10(1 + 0.0005 / g) for g, y in points]
worst = max(max(off), 0.0)
if b >= 0 or worst > 2:
    sys.exit("markers are not on a log10(GB/s) axis: slope %.1f px a decade, off by up to %.1f px" % (-b, worst))
print("ok: %d markers on a log axis, %.0f px a decade, within %.1f px" % (len(points), -b, worst))
PY

exit $((failures != 0))
