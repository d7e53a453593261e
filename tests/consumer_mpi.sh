#!/bin/sh
# libclprim_mpi from the installed, moved prefix (tests/install_moved.sh): an
# MPI program (tests/consumers/mpi_sum.c) built with the plain C compiler
# through clprim_mpi.pc, and through CMake's find_package(clprim_mpi CONFIG)
# with CMAKE_PREFIX_PATH = the moved prefix; each runs on 2 ranks, loading
# libclprim_mpi and libclprim from the moved prefix. Skipped (77) where
# libclprim_mpi was not built (no MPI) or mpirun is missing; the CMake half
# is skipped where cmake is.
#   consumer_mpi.sh BUILD_DIR SOURCE_ROOT MPIRUN ("" without MPI)
set -eu
[ -n "$3" ] || {
    echo "consumer_mpi.sh: libclprim_mpi is not built (MPI was not found); skipping"
    exit 77
}
mpirun=$3
src=$(cd "$2" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clprim-mpi-consumer-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
    echo "consumer_mpi.sh: $*" >&2
    exit 1
}
. "$(dirname "$0")/install_moved.sh"
install_moved "$1" "$tmp"
unset CLPRIM_KERNEL_PATH
libdir=$(pkg-config --variable=libdir clprim_mpi)
[ -n "$(find "$moved" -path '*/cmake/clprim_mpi/clprim_mpiConfigVersion.cmake')" ] ||
    fail "no CMake package for clprim_mpi installed"

# The moved libdir first on the loader's path: both libraries come from there.
run() {
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$mpirun" -np 2 --oversubscribe "$1" >"$tmp/run.log" 2>&1 ||
        fail "$1 failed on 2 ranks: $(cat "$tmp/run.log")"
    cat "$tmp/run.log"
}

cc=${CC:-cc}
# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Werror -o "$tmp/mpi_sum" "$src/tests/consumers/mpi_sum.c" $(pkg-config --cflags --libs clprim_mpi) ||
    fail "building against clprim_mpi.pc failed"
run "$tmp/mpi_sum"

if command -v cmake >/dev/null 2>&1; then
    cp -R "$src/tests/consumers" "$tmp/consumers"
    cmake -S "$tmp/consumers/cmake_mpi" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$moved" >"$tmp/cmake.log" 2>&1 ||
        fail "cmake configure failed: $(cat "$tmp/cmake.log")"
    cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 || fail "cmake build failed: $(cat "$tmp/build.log")"
    run "$tmp/build/mpi_sum"
else
    echo "consumer_mpi.sh: cmake is not installed; the CMake package is not tried"
fi
