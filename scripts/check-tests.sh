#!/usr/bin/env bash
# make check's test run: every TAP file through prove (--timer), in two
# lanes at once, then the tests that load the machine on purpose alone.
# Most tests wait on programs, jobs and daemons, not on a CPU, so two lanes
# halve the wall time on this 2-core machine.
#   lane 1: the tests that start a private SLURM cluster (slurm_test_init),
#           one after another: each starts and stops its own cluster;
#   lane 2: everything else, shown as it runs;
#   alone:  the tests marked '# check: alone' (they start busy loops of
#           their own, SLURM ones included), one prove after both lanes:
#           their loops would disturb and slow the other lane's runs, and
#           the other lane would blur the truth they make.
# Lane 1's report follows lane 2's, the alone group's comes last.  Exit 0
# only when all three pass.
#   scripts/check-tests.sh JOBS TEST...     (JOBS 1: one prove, in order)
set -uo pipefail
jobs=$1
shift
if [ "$jobs" -le 1 ]; then
	exec prove --timer --failures -e '' "$@"
fi
slurm=() rest=() alone=()
for t in "$@"; do
	if grep -q '^# check: alone' "$t" 2>/dev/null; then
		alone+=("$t")
	elif grep -q slurm_test_init "$t" 2>/dev/null; then
		slurm+=("$t")
	else
		rest+=("$t")
	fi
done
log=$(mktemp "${TMPDIR:-/tmp}/perfsweep-check-slurm-XXXXXX")
trap 'rm -f "$log"' EXIT
rc1=0 rc2=0 rc3=0
if [ ${#slurm[@]} -gt 0 ]; then
	prove --timer --failures -e '' "${slurm[@]}" >"$log" 2>&1 &
	pid=$!
fi
if [ ${#rest[@]} -gt 0 ]; then
	prove --timer --failures -e '' "${rest[@]}"
	rc2=$?
fi
if [ ${#slurm[@]} -gt 0 ]; then
	wait "$pid"
	rc1=$?
	echo "== the SLURM lane (${#slurm[@]} files, run beside the above)"
	cat "$log"
fi
if [ ${#alone[@]} -gt 0 ]; then
	echo "== alone (${#alone[@]} files that load the machine on purpose, after both lanes)"
	prove --timer --failures -e '' "${alone[@]}"
	rc3=$?
fi
[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ "$rc3" = 0 ]
