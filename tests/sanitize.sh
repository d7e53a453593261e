#!/bin/sh
# Builds the project with AddressSanitizer and UndefinedBehaviorSanitizer in a
# folder of its own, and runs Check suites there in one process each (CK_FORK=no)
# so that LeakSanitizer reports at exit.
#   sanitize.sh SOURCE_ROOT BUILD_DIR LSAN_SUPPRESSIONS SUITE...
set -eu
src=$1
build=$2
supp=$3
shift 3
if [ -z "${SANITIZE_ONE:-}" ] && [ ! -f "$build/build.ninja" ]; then
    # -O1, as AddressSanitizer's own documentation advises: the suites' host
    # references ran 5-50% faster than at -O0 (k-means 19 s -> 10), and every
    # access through a pointer keeps its check.
    meson setup "$build" "$src" -Db_sanitize=address,undefined -Db_lundef=false -Ddebug=true -Doptimization=1 \
        -Dc_args=-fno-sanitize-recover=all -Dtests=enabled >"$build.setup.log" 2>&1 || {
        cat "$build.setup.log" >&2
        exit 1
    }
fi
targets=""
for suite in "$@"; do
    targets="$targets tests/test_$suite"
done
# shellcheck disable=SC2086
[ -n "${SANITIZE_ONE:-}" ] || ninja -C "$build" $targets >"$build.ninja.log" 2>&1 || {
    tail -n 50 "$build.ninja.log" >&2
    exit 1
}

# use_sigaltstack=0: PoCL's LLVM gives each thread that compiles kernels an
# alternate signal stack of its own (malloc'ed); ASan, finding it there when
# the thread exits, tries to unmap it as its own and aborts ("unable to unmap").
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:use_sigaltstack=0"
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export CK_FORK=no

# One suite, its report in $build.SUITE.log. LeakSanitizer's tracer sometimes
# crashes while it stops PoCL's worker threads at exit ("LeakSanitizer has
# encountered a fatal error", no leak report): that run proves nothing either
# way, so it is repeated once. A leak report, or any other failure, fails at once.
run_suite() {
    suite=$1
    log="$build.$suite.log"
    for attempt in 1 2; do
        if "$build/tests/test_$suite" >"$log" 2>&1; then
            return 0
        fi
        if [ "$attempt" = 1 ] && grep -q "LeakSanitizer has encountered a fatal error" "$log" &&
            ! grep -q "detected memory leaks" "$log"; then
            echo "== $suite again: LeakSanitizer's tracer failed, not the suite" >>"$log.retried"
            continue
        fi
        return 1
    done
}

# The suites run as many at a time as there are cores (xargs keeps the pool
# full): this test ends a cold test run alone, where one suite at a time left
# a core idle. Each reports after it ends.
if [ "${SANITIZE_ONE:-}" ]; then
    suite=$SANITIZE_ONE
    status=0
    run_suite "$suite" || status=$?
    echo "== $suite (ASan + UBSan + LSan)$([ "$status" = 0 ] || echo ': FAILED')"
    {
        [ ! -f "$build.$suite.log.retried" ] || cat "$build.$suite.log.retried"
        cat "$build.$suite.log"
    } >&2
    rm -f "$build.$suite.log.retried"
    exit "$status"
fi
jobs=$(nproc 2>/dev/null || echo 1)
if ! printf '%s\n' "$@" | xargs -P "$jobs" -I{} env SANITIZE_ONE={} sh "$0" "$src" "$build" "$supp"; then
    echo "sanitize.sh: a suite failed (its report above ends with FAILED)" >&2
    exit 1
fi
echo "sanitize.sh: clean"
