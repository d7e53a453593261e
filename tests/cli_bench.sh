#!/bin/sh
# `clprim bench --plot`: GB/s is drawn on a log axis, so that the sorts, at a
# small fraction of a reduction's GB/s, do not lie flat along zero. The chart's
# markers (7 x 7 squares in each series' colour) are found in the PNG and their
# heights compared with the GB/s of the --csv rows: a straight line in log10(GB/s).
# usage: cli_bench.sh CLPRIM images|no-images
set -u
. "$(dirname "$0")/cli_expect.sh"
clprim=$1
support=$2

if [ "$support" != images ]; then
    expect 1 "built without image support" "$clprim" bench -p reduce -t int32 --min 1024 --max 1024 --plot "$tmp/p.png"
    exit $((failures != 0))
fi

expect 0 "wrote $tmp/plot.png" "$clprim" bench -p reduce,sort-keys -t int32 --min 1024 --max 16384 -r 3 \
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
points = []
for key, rgb in series.items():
    pixel = lambda x, y: rows[y][x * ch:x * ch + 3] == rgb
    # Left of the legend, whose swatches are solid too (draw_plot: the plot ends
    # 330 pixels from the right, the legend starts 20 pixels after it).
    centres = sorted((x, y) for y in range(3, h - 3) for x in range(3, w - 320)
                     if pixel(x, y) and all(pixel(x + i, y + j) for i in range(-3, 4) for j in range(-3, 4)))
    values = [g for n, g in sorted(gbps[key])]
    if len(centres) == len(values):  # a marker hidden under another series' is left out
        points += [(math.log10(g), y) for (x, y), g in zip(centres, values)]
logs = [p[0] for p in points]
if len(points) < 4:
    sys.exit("too few markers found: %s" % points)
if max(logs) - min(logs) < math.log10(4):
    print("GB/s spans less than 4x here: a log axis cannot be told from a linear one")
    sys.exit(0)
# Least squares y = a + b log10(GB/s): every marker within 2 pixels of the line.
m = len(points)
mx, my = sum(logs) / m, sum(p[1] for p in points) / m
b = sum((p[0] - mx) * (p[1] - my) for p in points) / sum((p[0] - mx) ** 2 for p in points)
worst = max(abs(my + b * (p[0] - mx) - p[1]) for p in points)
if b >= 0 or worst > 2:
    sys.exit("markers are not on a log10(GB/s) axis: slope %.1f px a decade, off by up to %.1f px" % (-b, worst))
print("ok: %d markers on a log axis, %.0f px a decade, within %.1f px" % (m, -b, worst))
PY

exit $((failures != 0))
