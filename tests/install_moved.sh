# Sourced by the install tests. install_moved BUILD_DIR TMP: `meson install
# --destdir` into TMP, then moves the installed prefix to TMP/moved, so that
# nothing installed is where it was configured to be, and the build's own paths
# are of no use to it. Sets $moved (the moved prefix, a real path) and $pc (its
# clprim.pc, which is relocatable: it names its prefix relative to itself).
install_moved() {
    meson install -C "$1" --no-rebuild --destdir "$2/dest" >"$2/install.log" 2>&1 || {
        cat "$2/install.log" >&2
        echo "meson install failed" >&2
        exit 1
    }
    staged_pc=$(find "$2/dest" -name clprim.pc | head -n 1)
    [ -n "$staged_pc" ] || { echo "no clprim.pc installed" >&2; exit 1; }
    staged=$(cd "$(PKG_CONFIG_PATH="$(dirname "$staged_pc")" pkg-config --variable=prefix clprim)" && pwd -P)
    mv "$staged" "$2/moved"
    rm -rf "$2/dest"
    moved=$(cd "$2/moved" && pwd -P)
    pc=$(find "$moved" -name clprim.pc | head -n 1)
    export PKG_CONFIG_PATH="$(dirname "$pc")"
}
