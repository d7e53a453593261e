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
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$src" -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug \
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
ninja -C "$build" $targets >"$build.ninja.log" 2>&1 || {
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
failed=""
# LeakSanitizer's tracer sometimes crashes while it stops PoCL's worker threads
# at exit ("LeakSanitizer has encountered a fatal error", no leak report): that
# run proves nothing either way, so it is repeated once. A leak report, or any
# other failure, fails at once.
log="$build.suite.log"
for suite in "$@"; do
    echo "== $suite (ASan + UBSan + LSan)"
    for attempt in 1 2; do
        if "$build/tests/test_$suite" 2>"$log"; then
            cat "$log" >&2
            break
        fi
        cat "$log" >&2
        if [ "$attempt" = 1 ] && grep -q "LeakSanitizer has encountered a fatal error" "$log" &&
            ! grep -q "detected memory leaks" "$log"; then
            echo "== $suite again: LeakSanitizer's tracer failed, not the suite"
            continue
        fi
        failed="$failed $suite"
        break
    done
done
if [ -n "$failed" ]; then
    echo "sanitize.sh: failed:$failed" >&2
    exit 1
fi
echo "sanitize.sh: clean"
