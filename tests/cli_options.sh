#!/bin/sh
# The command line of the built `clprim` under hostile input, one table: sizes
# whose byte counts wrap, numbers with trailing garbage or a sign, malformed
# device specs, images whose header declares more pixels than the limit, and
# outputs on a full disk. Each row gives the exit status, a word the messages
# (stderr or stdout) must contain, and the command line; a failing row must not
# report "wrote". Then the good path: the outputs exist and read back as PNG.
# usage: cli_options.sh CLPRIM DATA_DIR images|no-images
set -u
. "$(dirname "$0")/cli_expect.sh"
clprim=$1
data=$2
support=$3

# run_table: rows "STATUS|WORD|ARGS" on stdin; ARGS is evaluated, so $tmp and
# $data expand and '' is an empty argument. Blank lines and # comments are skipped.
run_table() {
    while IFS='|' read -r want needle args; do
        case $want in '' | '#'*) continue ;; esac
        eval "set -- $args"
        expect "$want" "$needle" "$clprim" "$@" </dev/null
    done
}

# A PNG and a JPEG of a few bytes whose headers declare 26000 x 26000 pixels.
python3 - "$tmp" <<'PY' || exit 1
import struct, sys, zlib
tmp = sys.argv[1]
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
ihdr = struct.pack('>IIBBBBB', 26000, 26000, 8, 2, 0, 0, 0)
with open(tmp + '/huge.png', 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(b'\0')) + chunk(b'IEND', b''))
sof = bytes([0xFF, 0xC0, 0, 17, 8]) + struct.pack('>HH', 26000, 26000) + bytes([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
with open(tmp + '/huge.jpg', 'wb') as f:
    f.write(b'\xFF\xD8' + sof + b'\xFF\xD9')
PY
ln -s /dev/full "$tmp/full.png"

run_table <<'EOF'
# Sizes whose byte counts wrap: refused by name, exit 2.
2|--n 4611686018427387904: 4611686018427387904 x 4 bytes|compact --n 4611686018427387904
2|x 8 bytes is more than this machine can address|compact --n 2305843009213693952 --type uint64
2|more than this machine can address|compact --n 99999999999999999999999 --type uint8
2|--n 4611686018427387904: 4611686018427387904 x 12 bytes|demo --n 4611686018427387904
2|--n 1537228672809129302|demo --n 1537228672809129302
2|--min 4611686018427387904|bench --min 4611686018427387904
2|--max 1e30|bench --max 1e30
2|--max-pixels 4611686018427387904|threshold $data/coffee.png $tmp/never.png --max-pixels 4611686018427387904
2|--max-pixels 4611686018427387904|histogram $data/coffee.png --max-pixels 4611686018427387904
2|--max-pixels 4611686018427387904|kmeans $data/coffee.png $tmp/never.png -k 2 --max-pixels 4611686018427387904
2|--max-pixels 4611686018427387904|demo --max-pixels 4611686018427387904
# Valid sizes the machine cannot hold: a clean failure, exit 1.
1|out of host memory|compact --n 1e18 --type uint8
1|more than the device holds|bench --min 1e17 --max 1e17 --types int32 --primitives reduce --runs 1
# Numbers parsed whole: no garbage, no sign on a count, no empty text.
2|--flagged "abc"|compact --n 100 --flagged abc
2|--flagged "0.5x"|compact --n 100 --flagged 0.5x
2|--flagged "2"|compact --n 100 --flagged 2
2|--n "3x"|compact --n 3x
2|--n "-5"|compact --n -5
2|--n ""|compact --n ''
2|--n " 5"|compact --n ' 5'
2|--n "1.5e3"|compact --n 1.5e3
2|--n "0x10"|demo --n 0x10
2|--repeat 1001|compact --n 100 --repeat 1001
2|--gt "5x"|compact --n 100 --gt 5x
2|--gt 1e30: outside the range of int32|compact --n 100 --gt 1e30
2|--lt -1: outside the range of uint8|compact --n 100 --type uint8 --lt -1
2|--runs "3x"|bench --runs 3x
2|--runs "0"|bench --runs 0
2|--max 10 is below --min 100|bench --min 100 --max 10
2|-k "-5"|kmeans $data/coffee.png $tmp/never.png -k -5
2|--seed "4294967296"|kmeans $data/coffee.png $tmp/never.png -k 2 --seed 4294967296
2|--bins "8x"|histogram $data/coffee.png --bins 8x
2|--level "-0x"|threshold $data/coffee.png $tmp/never.png --mode grey --level -0x
2|--ratio " 0.5"|threshold $data/coffee.png $tmp/never.png --ratio ' 0.5'
# One option parser for every command: --opt=value, -k8, -n, a message naming
# whatever is wrong, names in lists checked before anything runs.
0|check: ok|compact --n=1e3 --repeat=1 --gt=10
0|check: ok|compact -n1000 -r1 -tuint8
2|unknown option --nope|compact --nope
2|unknown option --nope|demo --n 1024 --nope
2|unknown option -z|kmeans $data/coffee.png $tmp/never.png -k2 -z
2|unknown option --frobnicate|threshold $data/coffee.png $tmp/never.png --frobnicate
2|unknown option --x|histogram $data/coffee.png --x
2|unknown option --all|devices --all
2|unexpected argument "extra"|devices extra
2|--n needs a value|demo --n
2|-k needs a value|kmeans $data/coffee.png $tmp/never.png -k
2|--in-place takes no value|compact --in-place=1
2|-k "3x"|kmeans $data/coffee.png $tmp/never.png -k3x
2|--runs "3x"|bench --runs=3x
2|unknown --primitives nope (scan-inclusive, scan-exclusive, scan-op-sum, reduce|bench --primitives nope
2|unknown --primitives nope|bench --primitives reduce,nope --min 1024 --max 1024
2|unknown --types foo (int32, uint32, int64, uint64, float, double or uint8)|bench --types foo
2|unknown --types foo|bench -t int32,foo --min 1024 --max 1024
# Device specs: a malformed P:D is no device, never another one.
1|no OpenCL device matches "4294967296:0"|compact --n 100 --device 4294967296:0
1|no OpenCL device matches "1:2:3"|compact --n 100 --device 1:2:3
1|no OpenCL device matches "-1:0"|compact --n 100 --device -1:0
1|no OpenCL device matches "0:"|compact --n 100 --device 0:
1|no OpenCL device matches ":0"|compact --n 100 --device :0
# Outputs on a full disk: the error, exit 1, nothing "wrote".
1|full.png: No space left on device|threshold $data/coffee.png $tmp/full.png
1|full.png: No space left on device|histogram $data/coffee.png --plot $tmp/full.png
1|full.png: No space left on device|kmeans $data/coffee.png $tmp/full.png -k 2
1|cannot write /dev/full: No space left on device|bench --min 1024 --max 1024 --types int32 --primitives reduce --runs 1 --csv /dev/full
1|full.png: No space left on device|bench --min 1024 --max 1024 --types int32 --primitives reduce --runs 1 --plot $tmp/full.png
1|could not write the result|demo --n 1024 --out $tmp/full.png
EOF

if [ "$support" = images ]; then
    run_table <<'EOF'
# Images declaring more pixels than the limit: refused before decoding, saying why.
1|huge.png: 26000 x 26000 = 676000000 pixels is above the limit of 268435456; raise it with --max-pixels|histogram $tmp/huge.png
1|huge.jpg: 26000 x 26000 = 676000000 pixels is above the limit of 268435456|histogram $tmp/huge.jpg
1|above the limit|threshold $tmp/huge.jpg $tmp/never.png
1|above the limit|kmeans $tmp/huge.png $tmp/never.png -k 2
1|above the limit of 1000|threshold $data/coffee.png $tmp/never.png --max-pixels 1000
1|above the limit|demo --n 1024 --image $tmp/huge.jpg
# Short and --opt=value forms; an option the chosen mode does not use is warned about.
0|wrote|kmeans $data/coffee.png $tmp/k8.png -k8 -i3 --seed=2
0|--ratio does not apply to --mode otsu|threshold $data/coffee.png $tmp/otsu.png --mode otsu --ratio 0.5
0|--level does not apply to --mode keep|threshold $data/coffee.png $tmp/keep.png --level=9
0|8 bins|histogram $data/coffee.png --bins=8 --channel=all
# Past the limit, stb's own reason, not "unknown image type".
1|huge.png cannot be decoded: too large|histogram $tmp/huge.png --max-pixels 1e9
EOF
    [ -e "$tmp/never.png" ] && { echo "FAIL: a refused command wrote its output"; failures=$((failures + 1)); }
fi

# The good path: exit 0, and each output is a PNG that reads back; an output
# through a symbolic link replaces the file it names and leaves the link.
if [ "$support" = images ]; then
    ln -s out.png "$tmp/link.png"
    run_table <<'EOF'
0|wrote|threshold $data/coffee.png $tmp/out.png --max-pixels 240000
0|wrote|histogram $data/coffee.png --bins 8 --plot $tmp/chart.png
0|wrote|kmeans $data/coffee.png $tmp/kmeans.png -k 2 --iterations 3
0|wrote|threshold $data/coffee.png $tmp/link.png
0|600 x 400|histogram $tmp/out.png
0|600 x 400|histogram $tmp/kmeans.png
0|bins|histogram $tmp/chart.png
EOF
    for f in out chart kmeans; do
        [ "$(head -c 8 "$tmp/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
            { echo "FAIL: $tmp/$f.png is not a PNG"; failures=$((failures + 1)); }
    done
    [ -L "$tmp/link.png" ] || { echo "FAIL: writing through link.png replaced the link"; failures=$((failures + 1)); }
fi
run_table <<'EOF'
0|check: ok|compact --n 1e3 --repeat 1 --flagged 0.25
0|check: ok|compact --n 1000 --repeat 1 --type uint8
0|reduce|bench --min 1024 --max 1024 --types int32 --primitives reduce --runs 1 --csv $tmp/bench.csv
EOF
grep -q '^sweep,reduce,int32,1024,' "$tmp/bench.csv" || { echo "FAIL: bench.csv lacks its row"; failures=$((failures + 1)); }
# The OpenMP loops: each is checked against the device's result (a row says ok
# only when both agree) and timed; the CSV's last column is its time.
openmp_kinds=scan-inclusive,scan-exclusive,reduce,compact,histogram,threshold
if "$clprim" bench -p $openmp_kinds -t int32,float --min 5000 --max 5000 -r 1 --csv "$tmp/openmp.csv" >"$tmp/openmp.out"; then
    rows=$(grep -c '  ok$' "$tmp/openmp.out")
    timed=$(awk -F, '$1 == "sweep" && $10 > 0' "$tmp/openmp.csv" | wc -l)
    if [ "$rows" -ne 11 ] || [ "$timed" -ne 11 ] || ! grep -q 'vs OpenMP' "$tmp/openmp.out"; then
        echo "FAIL: bench's OpenMP column: $rows rows ok, $timed timed, of 11"; cat "$tmp/openmp.out"
        failures=$((failures + 1))
    fi
else
    echo "FAIL: bench -p $openmp_kinds"; cat "$tmp/openmp.out"; failures=$((failures + 1))
fi
# --help: exit 0, the usage on stdout, nothing on stderr, for every command.
for command in devices demo bench compact threshold histogram kmeans cache; do
    if "$clprim" $command --help >"$tmp/help" 2>"$tmp/help-err" && grep -q "^usage: clprim $command" "$tmp/help" &&
        grep -q -- "--help" "$tmp/help" && [ ! -s "$tmp/help-err" ]; then
        echo "ok: $command --help"
    else
        echo "FAIL: $command --help: exit 0, usage on stdout, nothing on stderr"; failures=$((failures + 1))
    fi
done
# The top-level help states the exit codes and --version, which prints the version.
"$clprim" --help >"$tmp/help" 2>&1
for code in "0 done" "1 the work failed" "2 bad usage" "clprim --version"; do
    grep -q -- "$code" "$tmp/help" || { echo "FAIL: clprim --help does not say \"$code\""; failures=$((failures + 1)); }
done
expect 0 "clprim " "$clprim" --version
grep -q '^clprim [0-9]*\.[0-9]*\.[0-9]*$' "$tmp/out" || { echo "FAIL: clprim --version: $(cat "$tmp/out")"; failures=$((failures + 1)); }
# Not a terminal: a bench row or a k-means run writes nothing on stderr.
"$clprim" bench -p reduce -t int32 --min 1024 --max 1024 -r1 >/dev/null 2>"$tmp/quiet"
[ ! -s "$tmp/quiet" ] || { echo "FAIL: bench wrote progress to a file"; failures=$((failures + 1)); }
# On a terminal (script(1) gives one, when it is installed), the progress is
# overwritten in place with '\r' on stderr; without script this case is skipped.
if command -v script >/dev/null 2>&1; then
    script -qec "$clprim bench -p reduce -t int32 --min 1024 --max 1024 -r1" /dev/null >"$tmp/tty" 2>&1 </dev/null
    if tr '\r' '\n' <"$tmp/tty" | grep -q '^bench: reduce int32 n = 1024'; then echo "ok: bench progress on a terminal"
    else echo "FAIL: bench shows no progress on a terminal"; failures=$((failures + 1)); fi
    if [ "$support" = images ]; then
        script -qec "$clprim kmeans $data/chelsea.png $tmp/tty.png -k 4" /dev/null >"$tmp/tty" 2>&1 </dev/null
        if tr '\r' '\n' <"$tmp/tty" | grep -q 'k-means iteration 1 of up to 100'; then
            echo "ok: k-means progress per iteration on a terminal"
        else echo "FAIL: k-means shows no iterations on a terminal"; failures=$((failures + 1)); fi
    fi
else
    echo "skipped: no script(1), the progress on a terminal is not tested"
fi
# No temporary is left behind, failed or not.
leftover=$(find "$tmp" -name '.*.??????' | head -n 1)
[ -z "$leftover" ] || { echo "FAIL: a temporary output was left: $leftover"; failures=$((failures + 1)); }

exit $((failures != 0))
