#!/bin/sh
# Installs the build into a temporary folder (meson install --destdir), builds
# tests/consumer.c against the installed clprim.pc, and runs it against the
# installed library and kernels.
#   install_test.sh BUILD_DIR SOURCE_ROOT CONSUMER_C
set -eu
build=$1
src=$2
consumer=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clprim-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
dest=$tmp/dest

meson install -C "$build" --no-rebuild --destdir "$dest" >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log" >&2
    echo "install_test.sh: meson install failed" >&2
    exit 1
}

pc=$(find "$dest" -name clprim.pc | head -n 1)
[ -n "$pc" ] || { echo "install_test.sh: no clprim.pc installed" >&2; exit 1; }
kernels=$(dirname "$(find "$dest" -path '*/clprim/cl/scan.cl' | head -n 1)")
[ -f "$kernels/scan.cl" ] || { echo "install_test.sh: no kernels installed under $dest" >&2; exit 1; }
missing=0
for f in "$src"/cl/*.cl; do
    if [ ! -f "$kernels/$(basename "$f")" ]; then
        echo "install_test.sh: cl/$(basename "$f") is not installed (add it to cl/meson.build)" >&2
        missing=1
    fi
done
[ "$missing" -eq 0 ] || exit 1
[ -f "$(dirname "$pc")/../../include/clprim.h" ] || [ -n "$(find "$dest" -name clprim.h)" ] || {
    echo "install_test.sh: clprim.h not installed" >&2
    exit 1
}

# The .pc file names the configured prefix; the sysroot maps it into $dest.
export PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_SYSROOT_DIR="$dest"
cflags=$(pkg-config --cflags clprim)
libs=$(pkg-config --libs clprim)
libdir=$(pkg-config --variable=libdir clprim)
case "$libdir" in
"$dest"/*) ;; # pkgconf applies the sysroot to variables too
*) libdir=$dest$libdir ;;
esac
case "$cflags $libs" in
*"$dest"*) ;;
*) echo "install_test.sh: pkg-config flags do not point into the install: $cflags $libs" >&2; exit 1 ;;
esac
[ -e "$libdir/libclprim.so" ] || { echo "install_test.sh: no libclprim.so in $libdir" >&2; exit 1; }

cc=${CC:-cc}
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Wextra -Werror -o "$tmp/consumer" "$consumer" $cflags $libs
# The public header alone, as C++ when there is a compiler for it.
if command -v c++ >/dev/null 2>&1; then
    printf '#include <clprim.h>\nint main() { return clprim_status_name(CLPRIM_SUCCESS)[0] == 0; }\n' >"$tmp/cxx.cpp"
    # shellcheck disable=SC2086
    c++ -Wall -Werror -o "$tmp/cxx" "$tmp/cxx.cpp" $cflags $libs
fi

# Installed library and kernels only: the loader finds libclprim in $libdir, the
# kernels are searched in the installed folder first (and every file is there).
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    CLPRIM_KERNEL_PATH="$kernels" CLPRIM_CACHE_DIR="" \
    "$tmp/consumer" "$libdir/libclprim.so"
