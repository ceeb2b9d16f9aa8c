#!/usr/bin/env bash
# Run every fuzz target for SECONDS (default 60) each, from its corpus
# (tests/fuzz/corpus/<name minus fuzz_>/).  Crashes are written to build/fuzz/crashes/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
make fuzz > /dev/null
mkdir -p build/fuzz/crashes
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
for f in build/fuzz/fuzz_*; do
	name=$(basename "$f"); corpus=tests/fuzz/corpus/${name#fuzz_}
	work=build/fuzz/work-${name#fuzz_}
	mkdir -p "$work" "$corpus"
	echo "== $name ($secs s)"
	"$f" -max_total_time="$secs" -artifact_prefix=build/fuzz/crashes/ "$work" "$corpus" 2>&1 | tail -n 2
done
