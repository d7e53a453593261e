# Sourced by the tests/cli_*.sh scripts: a temporary folder, removed on exit, a
# failure count, and expect().
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clprim-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect RC NEEDLE COMMAND...: COMMAND exits RC, its messages (stderr, then
# stdout) mention NEEDLE (any text when NEEDLE is empty), and when RC is not 0
# nothing claims to have been written.
expect() {
    want=$1 needle=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ] || { [ -n "$needle" ] && ! cat "$tmp/err" "$tmp/out" | grep -q -F -- "$needle"; } ||
        { [ "$want" -ne 0 ] && grep -q "wrote" "$tmp/out"; }; then
        echo "FAIL: $* exited $got (want $want); its messages should mention \"$needle\":"
        sed 's/^/    /' "$tmp/err" "$tmp/out" | tail -n 20
        failures=$((failures + 1))
    else
        echo "ok: $* -> $got: $(cat "$tmp/err" "$tmp/out" | grep -m 1 -F -- "$needle")"
    fi
}
