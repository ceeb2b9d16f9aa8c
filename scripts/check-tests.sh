#!/usr/bin/env bash
# make check's test run: every TAP file through prove (--timer), in two
# lanes at once.  Most tests wait on programs, jobs and daemons, not on a
# CPU, so two lanes halve the wall time on this 2-core machine.
#   lane 1: the tests that start a private SLURM cluster (slurm_test_init),
#           one after another: each starts and stops its own cluster;
#   lane 2: everything else, shown as it runs.
# Lane 1's report follows lane 2's.  Exit 0 only when both pass.
#   scripts/check-tests.sh JOBS TEST...     (JOBS 1: one prove, in order)
set -uo pipefail
jobs=$1
shift
if [ "$jobs" -le 1 ]; then
	exec prove --timer --failures -e '' "$@"
fi
slurm=() rest=()
for t in "$@"; do
	if grep -q slurm_test_init "$t" 2>/dev/null; then
		slurm+=("$t")
	else
		rest+=("$t")
	fi
done
log=$(mktemp "${TMPDIR:-/tmp}/perfsweep-check-slurm-XXXXXX")
trap 'rm -f "$log"' EXIT
rc1=0
if [ ${#slurm[@]} -gt 0 ]; then
	prove --timer --failures -e '' "${slurm[@]}" >"$log" 2>&1 &
	pid=$!
fi
prove --timer --failures -e '' "${rest[@]}"
rc2=$?
if [ ${#slurm[@]} -gt 0 ]; then
	wait "$pid"
	rc1=$?
	echo "== the SLURM lane (${#slurm[@]} files, run beside the above)"
	cat "$log"
fi
[ "$rc1" = 0 ] && [ "$rc2" = 0 ]
