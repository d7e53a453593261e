#!/bin/sh
# `clprim cache`: info on a folder not yet made, a cold warm-up (beside PoCL's own
# cache: no entry stored), entries a compaction stores and loads, info, clear (which
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
# The CPU device: the default device differs between machines. PoCL's own
# cache starts empty too, so every kernel is compiled: the compiler must have
# nothing to say about any of them (nothing prints). With PoCL's cache on (its
# default), the disk cache is left alone: no entry is stored.
pocl=0
"$clprim" devices 2>/dev/null | grep -q "Portable Computing Language" && pocl=1
if [ "$pocl" = 1 ]; then
    expect 0 "PoCL caches the programs it builds itself" \
        env -u POCL_KERNEL_CACHE POCL_CACHE_DIR="$tmp/pocl" "$clprim" cache warm --device cpu
else
    expect 0 "programs built, 0 loaded" env POCL_CACHE_DIR="$tmp/pocl" "$clprim" cache warm --device cpu
fi
if grep -q "warning\|error" "$tmp/err"; then
    echo "FAIL: a cold warm-up printed:"; sed 's/^/    /' "$tmp/err" | head -n 20; failures=$((failures + 1))
fi
left=$(ls "$CLPRIM_CACHE_DIR" 2>/dev/null | grep -c '^[0-9a-f]\{16\}\.bin$')
if [ "$pocl" = 1 ] && [ "$left" -ne 0 ]; then
    echo "FAIL: $left entries stored beside PoCL's cache"; failures=$((failures + 1))
fi
# The disk cache itself ($POCL_KERNEL_CACHE=0 here, from the test's
# environment): a compaction stores its programs, and a second run loads them.
expect 0 "" "$clprim" compact --device cpu -n 1000
entries=$(ls "$CLPRIM_CACHE_DIR" | grep -c '^[0-9a-f]\{16\}\.bin$')
if [ "$entries" -gt 0 ]; then echo "ok: $entries entries stored"; else
    echo "FAIL: a compaction stored no entry"; failures=$((failures + 1)); fi
expect 0 "cache hit" env CLPRIM_LOG=1 "$clprim" compact --device cpu -n 1000
expect 0 "entries: $entries" "$clprim" cache info
expect 0 "cap:     268435456 bytes" "$clprim" cache info
echo keep >"$CLPRIM_CACHE_DIR/notes.txt"
expect 0 "removed $entries entr" "$clprim" cache clear
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

expect 0 "usage: clprim cache warm" "$clprim" cache --help
expect 2 "say warm, clear or info" "$clprim" cache
expect 2 "unknown action \"purge\"" "$clprim" cache purge
expect 2 "unknown option --all" "$clprim" cache clear --all
expect 2 "--device needs a value" "$clprim" cache warm --device
expect 2 "--device applies to warm only" "$clprim" cache info --device cpu
expect 2 "unexpected argument \"now\"" "$clprim" cache clear now
expect 1 "no_such_device" "$clprim" cache warm --device no_such_device
exit $((failures != 0))
