#!/bin/sh
# Runs one program under oclgrind with data-race and uninitialised-value checks.
#   oclgrind.sh OCLGRIND LOGFILE PROGRAM [ARGS...]
# Fails when the program fails or when oclgrind logged anything at all (every
# message oclgrind writes to its log is an error or warning report).
set -u
oclgrind=$1
log=$2
shift 2
rm -f "$log"
mkdir -p "$(dirname "$log")"
"$oclgrind" --data-races --uninitialized --log "$log" "$@"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "oclgrind.sh: the program exited with status $rc" >&2
fi
if [ -s "$log" ]; then
    echo "oclgrind.sh: oclgrind reported problems ($log):" >&2
    head -c 20000 "$log" >&2
    rc=1
fi
exit "$rc"
