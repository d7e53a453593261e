#!/bin/sh
# libclprim as a meson subproject: copies tests/consumers/ into a temporary
# project, links this source tree in as subprojects/libclprim, forces
# dependency('clprim') onto it, builds and runs the consumer. The subproject
# must build the library alone: no command-line tool, examples or tests.
#   consumer_meson.sh SOURCE_ROOT
set -eu
src=$(cd "$1" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clprim-meson-consumer-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
    echo "consumer_meson.sh: $*" >&2
    exit 1
}
cp -R "$src/tests/consumers" "$tmp/consumers"
proj=$tmp/consumers/meson
mkdir -p "$proj/subprojects"
ln -s "$src" "$proj/subprojects/libclprim"
meson setup --force-fallback-for=clprim "$tmp/build" "$proj" >"$tmp/setup.log" 2>&1 ||
    fail "meson setup failed: $(cat "$tmp/setup.log")"
ninja -C "$tmp/build" >"$tmp/ninja.log" 2>&1 || fail "the build failed: $(cat "$tmp/ninja.log")"
sub=$tmp/build/subprojects/libclprim
[ -e "$sub/src/libclprim.so" ] || fail "the subproject built no libclprim.so"
for extra in src/cli tests examples; do
    [ ! -e "$sub/$extra" ] || fail "the subproject built its $extra"
done
unset CLPRIM_KERNEL_PATH
"$tmp/build/sum" || fail "the consumer failed"
