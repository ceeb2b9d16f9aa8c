#!/usr/bin/env bash
# Run every fuzz target for SECONDS (default 60) each, JOBS (default 1) at
# once, from its corpus (tests/fuzz/corpus/<name minus fuzz_>/).  Crashes are
# written to build/fuzz/crashes/; each target's last lines are printed, and
# the exit status is 1 if any target found something.
#
#   scripts/fuzz.sh [SECONDS [JOBS]]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
jobs=${2:-1}
make fuzz > /dev/null
mkdir -p build/fuzz/crashes
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp secs
one() {
	local f=$1 name corpus work
	name=$(basename "$f"); corpus=tests/fuzz/corpus/${name#fuzz_}
	work=build/fuzz/work-${name#fuzz_}
	mkdir -p "$work" "$corpus"
	"$f" -max_total_time="$secs" -artifact_prefix=build/fuzz/crashes/ "$work" "$corpus" \
		> "build/fuzz/$name.log" 2>&1
}
export -f one
status=0
printf '%s\n' build/fuzz/fuzz_* | grep -v '\.log$' | xargs -P "$jobs" -I{} bash -c 'one {}' || status=1
for f in build/fuzz/fuzz_*.log; do
	echo "== $(basename "$f" .log) ($secs s)"
	tail -n 2 "$f"
done
exit $status
