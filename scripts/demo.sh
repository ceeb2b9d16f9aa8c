#!/usr/bin/env bash
# make demo: plan the demo campaign and run it on the local backend with the
# refine loop (run --until publishable: its per-round table), then show what
# was measured (status --points), the models and the validity report the
# loop ended with, and its verdict.
#
# A busy machine is a finding, not a failure: whatever the machine did (runs
# disturbed by other programs, every one of them left out of the models, the
# loop stopped because the machine is shared, the budget spent), the script
# prints the validity report and its verdict, a one-line hint when the
# machine was busy, and exits 0.  A real failure still fails it: a
# perfsweep command killed by a signal, an input error, a run that failed.
#
# DEMO_CONFIG (configs/demo.cfg), DEMO_DIR (build/demo.campaign) and
# DEMO_HTML (build/demo-report.html) run another campaign the same way
# (tests/integration/19-demo-busy.t); PERFSWEEP_BIN the programs' folder (bin).
set -uo pipefail
cd "$(dirname "$0")/.."
PS=${PERFSWEEP_BIN:-bin}/perfsweep
CFG=${DEMO_CONFIG:-configs/demo.cfg}
DIR=${DEMO_DIR:-build/demo.campaign}
HTML=${DEMO_HTML:-build/demo-report.html}
LOG=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-demo-XXXXXX")
trap 'rm -rf "$LOG"' EXIT
failed=""       # the real failures, said at the end

# fail WHAT: a real failure; the demo goes on to show what it can, then exits 1
fail() { failed="$failed${failed:+; }$1"; }

# crashed STATUS: 1 when a command died of a signal (128 + its number)
crashed() { [ "$1" -gt 128 ]; }

rm -rf "$DIR"
echo "== plan ($CFG)"
"$PS" plan "$CFG" > "$LOG/plan" 2>&1
rc=$?
tail -n 3 "$LOG/plan"
if [ $rc != 0 ]; then
	cat "$LOG/plan" >&2
	echo "demo: perfsweep plan failed (exit $rc)" >&2
	exit 1
fi
echo
echo "== run until publishable: run, validate, refine what can change the verdict, run that, ..."
echo "   (one run at a time, so that runs do not disturb each other's timings; docs/refine.md)"
"$PS" run "$CFG" --dir "$DIR" --jobs 1 --quiet --until publishable --rounds 3 2> "$LOG/run.err" | tee "$LOG/run.out"
loop=${PIPESTATUS[0]}
cat "$LOG/run.err" >&2
echo "(run --until publishable exit status $loop: 0 publishable, 3 still blocked)"
case $loop in
0|3) ;;
1)      # runs that failed for good, a collector that matched nothing, or a budget a busy machine spent
	grep -q "the budget would be overrun" "$LOG/run.err" ||
		fail "runs failed or a collector matched nothing (run --until exit 1, above)" ;;
*)	crashed "$loop" && fail "perfsweep run was killed by signal $((loop - 128))" ||
		fail "perfsweep run failed (exit $loop)" ;;
esac
if [ ! -f "$DIR/campaign.db" ]; then
	echo "demo: no campaign in $DIR: $failed" >&2
	exit 1
fi
echo
echo "== status"
"$PS" status "$DIR" || fail "perfsweep status failed"
echo
echo "== measurements: mean time per region (seconds) at each design point"
"$PS" status "$DIR" --points || fail "perfsweep status --points failed"
echo
echo "== models (Extra-P's PMNF, constrained by the campaign's dependency file)"
"$PS" model "$DIR" 2> "$LOG/model.err"
rc=$?
cat "$LOG/model.err" >&2
if [ $rc != 0 ]; then
	# every run disturbed by other programs leaves nothing to model: the report below says why
	if [ $rc = 2 ] && grep -q "runs were disturbed" "$LOG/model.err"; then
		echo "(no models: every run was disturbed by other programs; the validity report below says which)"
	elif crashed "$rc"; then
		fail "perfsweep model was killed by signal $((rc - 128))"
	else
		fail "perfsweep model failed (exit $rc)"
	fi
fi
echo
echo "== validity report"
"$PS" validate "$DIR" --html "$HTML" | tee "$LOG/validate"
rc=${PIPESTATUS[0]}
echo "(HTML report: $HTML; validate exit status $rc: 0 publishable, 3 blocked)"
case $rc in
0|3) ;;         # the report's own last line is its verdict
*) crashed "$rc" && fail "perfsweep validate was killed by signal $((rc - 128))" ||
	fail "perfsweep validate failed (exit $rc)" ;;
esac
# the machine was busy: the loop stopped for it, or the report left runs out as disturbed
if grep -q "^stopped: the machine is shared" "$LOG/run.out" || grep -q "disturbed: [0-9]* of [0-9]* runs" "$LOG/validate"; then
	if "$PS" help probe > /dev/null 2>&1; then
		echo "hint: other programs shared the demo's cores; 'perfsweep probe $CFG' names them and says when the machine is quiet enough"
	else
		echo "hint: other programs shared the demo's cores; run 'make demo' again when 'uptime' shows a load below 1"
	fi
fi
if [ -n "$failed" ]; then
	echo "demo: $failed" >&2
	exit 1
fi
exit 0
