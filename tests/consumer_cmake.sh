#!/bin/sh
# A CMake project against the installed libclprim: installs the build, moves
# the prefix (tests/install_moved.sh), and builds tests/consumers/cmake with
# find_package(clprim CONFIG REQUIRED) and CMAKE_PREFIX_PATH = the moved prefix.
# Skipped (77) where cmake is not installed.
#   consumer_cmake.sh BUILD_DIR SOURCE_ROOT
set -eu
command -v cmake >/dev/null 2>&1 || {
    echo "consumer_cmake.sh: cmake is not installed; skipping the CMake consumer (scripts/bootstrap test installs it)"
    exit 77
}
src=$(cd "$2" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clprim-cmake-consumer-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
    echo "consumer_cmake.sh: $*" >&2
    exit 1
}
. "$(dirname "$0")/install_moved.sh"
install_moved "$1" "$tmp"
cp -R "$src/tests/consumers" "$tmp/consumers"
cmake -S "$tmp/consumers/cmake" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$moved" >"$tmp/cmake.log" 2>&1 ||
    fail "cmake configure failed: $(cat "$tmp/cmake.log")"
cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 || fail "cmake build failed: $(cat "$tmp/build.log")"
unset CLPRIM_KERNEL_PATH
"$tmp/build/sum" || fail "the consumer failed"
