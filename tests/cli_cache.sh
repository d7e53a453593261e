#!/bin/sh
# `clprim cache`: info on a folder not yet made, warm, info again, clear (which
# leaves files that are no entries), a refused folder, $CLPRIM_CACHE_MAX
# values, and bad usage.
# usage: cli_cache.sh CLPRIM
set -u
. "$(dirname "$0")/cli_expect.sh"
clprim=$1
CLPRIM_CACHE_DIR="$tmp/cache"
export CLPRIM_CACHE_DIR
unset CLPRIM_CACHE_MAX

expect 0 "used (not created yet)" "$clprim" cache info
# The CPU device both times: the default device differs between machines.
# PoCL's own cache too starts empty, so every kernel is compiled: the
# compiler must have nothing to say about any of them (nothing prints).
expect 0 "programs built, 0 loaded" env POCL_CACHE_DIR="$tmp/pocl" "$clprim" cache warm --device cpu
if grep -q "warning\|error" "$tmp/err"; then
    echo "FAIL: a cold warm-up printed:"; sed 's/^/    /' "$tmp/err" | head -n 20; failures=$((failures + 1))
fi
expect 0 "0 programs built" "$clprim" cache warm --device cpu
entries=$(ls "$CLPRIM_CACHE_DIR" | grep -c '^[0-9a-f]\{16\}\.bin$')
expect 0 "entries: $entries" "$clprim" cache info
expect 0 "cap:     268435456 bytes" "$clprim" cache info
echo keep >"$CLPRIM_CACHE_DIR/notes.txt"
expect 0 "removed $entries entries from $CLPRIM_CACHE_DIR" "$clprim" cache clear
expect 0 "entries: 0" "$clprim" cache info
if [ -f "$CLPRIM_CACHE_DIR/notes.txt" ]; then echo "ok: clear left notes.txt"; else
    echo "FAIL: clear removed notes.txt"; failures=$((failures + 1)); fi

expect 0 "the disk cache is off" env CLPRIM_CACHE_MAX=0 "$clprim" cache info
expect 0 "cap:     3145728 bytes" env CLPRIM_CACHE_MAX=3M "$clprim" cache info
expect 0 '$CLPRIM_CACHE_MAX "3x" is not a size' env CLPRIM_CACHE_MAX=3x "$clprim" cache info
chmod 777 "$CLPRIM_CACHE_DIR"
expect 0 "writable by group or others" "$clprim" cache info
expect 1 "writable by group or others" "$clprim" cache clear
chmod 700 "$CLPRIM_CACHE_DIR"
expect 0 "is set but empty" env CLPRIM_CACHE_DIR= "$clprim" cache info

# On PoCL, with its own cache on, the disk cache is left alone.
if "$clprim" devices 2>/dev/null | grep -q "Portable Computing Language"; then
    expect 0 "PoCL caches the programs it builds itself" \
        env -u POCL_KERNEL_CACHE POCL_CACHE_DIR="$tmp/pocl" "$clprim" cache warm --device cpu
    left=$(ls "$CLPRIM_CACHE_DIR" | grep -c '^[0-9a-f]\{16\}\.bin$')
    if [ "$left" -eq 0 ]; then echo "ok: no entries stored beside PoCL's cache"; else
        echo "FAIL: $left entries stored beside PoCL's cache"; failures=$((failures + 1)); fi
fi

expect 0 "usage: clprim cache warm" "$clprim" cache --help
expect 2 "say warm, clear or info" "$clprim" cache
expect 2 "unknown action \"purge\"" "$clprim" cache purge
expect 2 "unknown option --all" "$clprim" cache clear --all
expect 2 "--device needs a value" "$clprim" cache warm --device
expect 2 "--device applies to warm only" "$clprim" cache info --device cpu
expect 2 "unexpected argument \"now\"" "$clprim" cache clear now
expect 1 "no_such_device" "$clprim" cache warm --device no_such_device
exit $((failures != 0))
