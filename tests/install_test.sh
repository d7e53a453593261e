#!/bin/sh
# The installed library, on its own: installs the build into a temporary folder,
# moves the installed prefix elsewhere (tests/install_moved.sh), builds
# tests/consumer.c through the moved clprim.pc, and runs it with
# $CLPRIM_KERNEL_PATH unset, linked with the shared library and then
# statically. Then the moved kernels are altered and removed: the library must
# read those very files (a build failure naming them, then
# CLPRIM_KERNEL_NOT_FOUND naming the folder), never this source tree's.
#   install_test.sh BUILD_DIR SOURCE_ROOT CONSUMER_C
set -eu
build=$1
src=$(cd "$2" && pwd -P)
consumer=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clprim-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
    echo "install_test.sh: $*" >&2
    exit 1
}
. "$(dirname "$0")/install_moved.sh"
install_moved "$build" "$tmp"
unset CLPRIM_KERNEL_PATH

# What is installed.
kernels=$(dirname "$(find "$moved" -path '*/clprim/cl/scan.cl' | head -n 1)")
[ -f "$kernels/scan.cl" ] || fail "no kernels installed under $moved"
for f in "$src"/cl/*.cl "$src"/cl/*.h "$src"/cl/block/*.cl; do
    name=${f#"$src"/cl/}
    [ -f "$kernels/$name" ] || fail "cl/$name is not installed (add it to cl/meson.build)"
done
[ -n "$(find "$moved" -name clprim.h)" ] || fail "clprim.h not installed"
[ -f "$moved/share/doc/libclprim/LICENSE" ] || fail "LICENSE not installed in share/doc/libclprim"
for f in clprimConfig.cmake clprimConfigVersion.cmake; do
    [ -n "$(find "$moved" -path "*/cmake/clprim/$f")" ] || fail "$f not installed"
done

cflags=$(pkg-config --cflags clprim)
libs=$(pkg-config --libs clprim)
static_libs=$(pkg-config --static --libs clprim)
libdir=$(cd "$(pkg-config --variable=libdir clprim)" && pwd -P)
case "$cflags $libs" in
*"$moved"*) ;;
*) fail "pkg-config flags do not point into the moved install: $cflags $libs" ;;
esac
[ -e "$libdir/libclprim.so" ] || fail "no libclprim.so in $libdir"
[ -e "$libdir/libclprim.a" ] || fail "no libclprim.a in $libdir"
# A static link needs what the library itself links with.
for need in -lOpenCL -lm -pthread; do
    case " $static_libs " in
    *" $need "*) ;;
    *) fail "pkg-config --static --libs clprim lacks $need: $static_libs" ;;
    esac
done

cc=${CC:-cc}
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Wextra -Werror -o "$tmp/consumer" "$consumer" $cflags $libs
# The static library by name, and what --static adds for it.
mkdir -p "$moved/bin"
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Wextra -Werror -o "$moved/bin/consumer-static" "$consumer" $cflags \
    $(echo "$static_libs" | sed 's/-lclprim\b/-l:libclprim.a/')
# The public header alone, as C++ when there is a compiler for it.
if command -v c++ >/dev/null 2>&1; then
    printf '#include <clprim.h>\nint main() { return clprim_status_name(CLPRIM_SUCCESS)[0] == 0; }\n' >"$tmp/cxx.cpp"
    # shellcheck disable=SC2086
    c++ -Wall -Werror -o "$tmp/cxx" "$tmp/cxx.cpp" $cflags $libs
fi

run_shared() {
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/consumer" "$libdir/libclprim.so"
}
# The loader takes libclprim from $libdir (the consumer checks); the library
# takes its kernels from beside itself; the static program from beside its bin/.
run_shared || fail "the consumer failed on the moved install"
"$moved/bin/consumer-static" || fail "the statically linked consumer failed on the moved install"

# The installed scan.cl, made not to compile: the library must report exactly that.
printf '#error "the installed scan.cl was read"\n' >>"$kernels/scan.cl"
if run_shared 2>"$tmp/altered.log"; then
    fail "an installed scan.cl that cannot compile was not read: kernels came from elsewhere"
fi
grep -q "CLPRIM_BUILD_FAILED" "$tmp/altered.log" && grep -q "the installed scan.cl was read" "$tmp/altered.log" ||
    fail "the altered installed scan.cl was not what failed: $(cat "$tmp/altered.log")"

# No scan.cl installed: not found, naming the installed folder and no source tree.
rm "$kernels/scan.cl"
if run_shared 2>"$tmp/missing.log"; then
    fail "without an installed scan.cl the scan still ran: kernels came from elsewhere"
fi
grep -q "CLPRIM_KERNEL_NOT_FOUND" "$tmp/missing.log" && grep -q "$moved/.*share/clprim/cl" "$tmp/missing.log" ||
    fail "the missing kernel's message does not name the installed folder: $(cat "$tmp/missing.log")"
if grep -q "$src/cl" "$tmp/missing.log"; then
    fail "the installed library searched the source tree: $(cat "$tmp/missing.log")"
fi
echo "install_test.sh: the moved install runs on its own kernels, shared and static"
