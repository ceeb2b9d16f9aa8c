#!/bin/bash
# What perfsweep-bind costs per rank: N launches of `perfsweep-bind -- true`
# (topology discovery, placement, binding, fork/exec, rank record) against N
# plain launches of `true`.  Prints milliseconds per launch.
ROOT=${PERFSWEEP_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${PERFSWEEP_BIN:-$ROOT/bin}
N=${BIND_BENCH_N:-200}
T=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-bench-XXXXXX")
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
t0=$(now)
for ((i = 0; i < N; i++)); do /bin/true; done
t1=$(now)
for ((i = 0; i < N; i++)); do
	PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T "$BIN/perfsweep-bind" --ranks-per-node 1 -- /bin/true || exit 1
done
t2=$(now)
awk -v n="$N" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
	plain = (b - a) * 1000 / n; bind = (c - b) * 1000 / n
	printf "perfsweep-bind launch: %.2f ms per rank (plain exec %.2f ms, overhead %.2f ms), %d launches\n",
	       bind, plain, bind - plain, n }'
