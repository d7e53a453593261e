#!/bin/sh
# `clprim compact --keep`: texts that are not expressions (attempts to inject
# code into the kernels among them) exit 1 with a message naming the
# token and its position, before any kernel is built; a good expression, with
# an integer division by zero in it, runs and passes its CPU check.
# usage: cli_compact.sh CLPRIM
set -u
clprim=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clprim-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect RC NEEDLE COMMAND...: the exit status is RC and the output mentions NEEDLE.
expect() {
    want=$1 needle=$2
    shift 2
    "$@" >"$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ] || ! grep -q -F -- "$needle" "$tmp/out"; then
        echo "FAIL: $* exited $got (want $want); output should mention \"$needle\":"
        sed 's/^/    /' "$tmp/out"
        failures=$((failures + 1))
    else
        echo "ok: $* -> $got: $(grep -F -- "$needle" "$tmp/out" | head -n 1)"
    fi
}

small="--n 1000 --repeat 1"
expect 1 "unexpected ')' at 5" "$clprim" compact $small --keep \
    'x > 3) ? 1 : 0; } __kernel void evil(__global int *p) { p[0] = 42; } int dummy(const int x) { return (x'
expect 1 "pointers are not allowed: '*' at 1" "$clprim" compact $small --keep '(*(__global int *)0 = 1, 1)'
expect 1 "unexpected '{' at 1" "$clprim" compact $small --keep '({ for (;;) {} 1; })'
expect 1 "assignment is not allowed: '=' at 2" "$clprim" compact $small --keep 'x = 3'
expect 1 "unknown name 'y' at 0" "$clprim" compact $small --keep 'y > 3'
expect 0 "check: ok" "$clprim" compact $small --keep 'x / (x - x) == 0 && x % 7 < 3'
# The lowest int64 over -1 wraps on the device and in the CPU check alike, with no trap.
expect 0 "check: ok" "$clprim" compact $small --type int64 --keep '(x | (-9223372036854775807 - 1)) / -1 < 0 || x % -1 != 0'
exit $((failures != 0))
