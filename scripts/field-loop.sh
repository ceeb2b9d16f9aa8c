#!/usr/bin/env bash
# Issue 41's field figures for the refine loop and `make demo` on a shared
# machine: run them beside BUSY busy loops (default 2: one per core of this
# 2-core machine, `taskset -c K`), in a quiet window otherwise (other
# developers' work is a load of its own: the load average is printed).
#
#   make all && scripts/field-loop.sh              # both parts, 3 tries of the loop
#   TRIES=5 PART=loop scripts/field-loop.sh        # only the loop
#   BUSY=0 PART=loop scripts/field-loop.sh         # the control: no busy loop
#
# Part "loop": TRIES times `perfsweep run configs/demo.cfg --until
# publishable --rounds ROUNDS` (one run at a time, as make demo) beside the
# busy loops.  Per try: the load average before and after, wall time, exit
# status, rounds, the stop reason, the sweep's core-hours (the planned
# runs: wall x ranks), the loop's extra core-hours (refine's runs) and their
# share of the sweep, and whether the stop line names a busy loop's pid.
# The target (issue 41): "shared" within 2 rounds, at most 30% over the sweep.
#
# Part "demo": scripts/demo.sh (what `make demo` runs after building)
# beside the busy loops: its exit status (the target: 0), whether the
# validity report and the verdict were printed, the hint, and which busy
# loops' pids the report names.
set -u
cd "$(dirname "$0")/.."
PS=${PERFSWEEP_BIN:-bin}/perfsweep
TRIES=${TRIES:-3}
ROUNDS=${ROUNDS:-5}
BUSY=${BUSY:-2}
PART=${PART:-both}
CONFIG=${CONFIG:-configs/demo.cfg}     # the loop's campaign (the demo's by default)
OUT=${OUT:-build/field-loop}
mkdir -p "$OUT"
[ -x "$PS" ] || { echo "field-loop: build first (make all)" >&2; exit 2; }
command -v sqlite3 > /dev/null || { echo "field-loop: needs sqlite3" >&2; exit 2; }

busy_pids=""
start_busy() {
	busy_pids=""
	local ncpu
	ncpu=$(nproc)
	for k in $(seq 0 $((BUSY - 1))); do
		taskset -c $((k % ncpu)) sh -c 'while :; do :; done' &
		busy_pids="$busy_pids $!"
	done
	sleep 1
}
stop_busy() {
	for p in $busy_pids; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	busy_pids=""
}
trap stop_busy EXIT
load() { cut -d' ' -f1 /proc/loadavg; }

# named FILE: the busy loops' pids FILE names ("-" for none)
named() {
	local n=""
	for p in $busy_pids; do grep -qw "pid $p" "$1" && n="$n $p"; done
	echo "${n:- -}"
}

# core-hours of the campaign's done runs, by origin: "sweep refine"
core_hours() {
	sqlite3 "$1/campaign.db" "SELECT printf('%.5f %.5f',
		COALESCE(SUM(CASE WHEN origin IS NULL THEN wall * MAX(ranks, 1) END), 0) / 3600,
		COALESCE(SUM(CASE WHEN origin = 'refine' THEN wall * MAX(ranks, 1) END), 0) / 3600) FROM runs WHERE wall > 0"
}

loop_part() {
	echo "== run $CONFIG --until publishable --rounds $ROUNDS beside $BUSY busy loop(s), $TRIES tries"
	printf '%-4s %-11s %6s %5s %7s %-28s %10s %10s %7s %s\n' try load wall exit rounds stop "sweep ch" "extra ch" extra% "busy pids named"
	for t in $(seq 1 "$TRIES"); do
		local dir=$OUT/loop-$t.campaign l0 l1 t0 t1 rc
		rm -rf "$dir"
		start_busy
		l0=$(load)
		t0=$(date +%s.%N)
		"$PS" run "$CONFIG" --dir "$dir" --jobs 1 --quiet --until publishable --rounds "$ROUNDS" \
			> "$OUT/loop-$t.out" 2> "$OUT/loop-$t.err"
		rc=$?
		t1=$(date +%s.%N)
		l1=$(load)
		local pids
		pids=$(named "$OUT/loop-$t.out")
		stop_busy
		local rounds stop ch
		rounds=$(sed -n 's/^loop: \([0-9]*\) rounds\{0,1\},.*/\1/p' "$OUT/loop-$t.out")
		stop=$(sed -n 's/^stopped: \([^:]*\).*/\1/p; s/^\(publishable\) after.*/\1/p' "$OUT/loop-$t.out" | head -1)
		ch=$(core_hours "$dir")
		printf '%-4s %-11s %6.0f %5s %7s %-28s %10s %10s %6.0f%% %s\n' "$t" "$l0/$l1" \
			"$(echo "$t1 - $t0" | bc)" "$rc" "${rounds:-?}" "${stop:-?}" ${ch:-? ?} \
			"$(echo "$ch" | awk '{ print ($1 > 0 ? 100 * $2 / $1 : 0) }')" "$pids"
	done
	echo "(outputs: $OUT/loop-*.out; target: 'the machine is shared' within 2 rounds, extra <= 30%)"
}

demo_part() {
	echo
	echo "== scripts/demo.sh (make demo) beside $BUSY busy loop(s)"
	local dir=$OUT/demo.campaign l0 l1 t0 t1 rc
	start_busy
	l0=$(load)
	t0=$(date +%s.%N)
	DEMO_DIR=$dir DEMO_HTML=$OUT/demo-report.html scripts/demo.sh > "$OUT/demo.out" 2> "$OUT/demo.err"
	rc=$?
	t1=$(date +%s.%N)
	l1=$(load)
	local pids
	pids=$(named "$OUT/demo.out")
	local mine=$busy_pids
	stop_busy
	printf 'load %s/%s, wall %.0f s, exit %s (target 0)\n' "$l0" "$l1" "$(echo "$t1 - $t0" | bc)" "$rc"
	printf 'validity report printed: %s\n' "$(grep -q '^== validity report' "$OUT/demo.out" && echo yes || echo no)"
	printf 'verdict: %s\n' "$(sed -n 's/^verdict: //p' "$OUT/demo.out" | head -1)"
	printf 'hint: %s\n' "$(sed -n 's/^hint: //p' "$OUT/demo.out" | head -1)"
	printf 'busy loops: %s; named in the output: %s\n' "${mine# }" "$pids"
	grep -E "^stopped:|disturbed:" "$OUT/demo.out" | cut -c1-220
	echo "(output: $OUT/demo.out, $OUT/demo.err)"
}

echo "field-loop: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
case $PART in
loop) loop_part ;;
demo) demo_part ;;
*) loop_part; demo_part ;;
esac
