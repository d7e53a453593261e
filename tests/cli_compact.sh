#!/bin/sh
# `clprim compact --keep`: texts that are not expressions (attempts to inject
# code into the kernels among them) exit 1 with a message naming the
# token and its position, before any kernel is built; a good expression, with
# an integer division by zero in it, runs and passes its CPU check.
# usage: cli_compact.sh CLPRIM
set -u
. "$(dirname "$0")/cli_expect.sh"
clprim=$1

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
