#!/usr/bin/env bash
# make demo: plan the demo campaign and run it on the local backend with the
# refine loop (run --until publishable: its per-round table), then show what
# was measured (status --points) and, where this build has them, models and
# the validity report the loop ended with.
set -euo pipefail
cd "$(dirname "$0")/.."
PS=bin/perfsweep
DIR=build/demo.campaign
rm -rf "$DIR"

echo "== plan (configs/demo.cfg)"
$PS plan configs/demo.cfg | tail -n 3
echo
echo "== run until publishable: run, validate, refine what can change the verdict, run that, ..."
echo "   (one run at a time, so that runs do not disturb each other's timings; docs/refine.md)"
set +e
$PS run configs/demo.cfg --dir "$DIR" --jobs 1 --quiet --until publishable --rounds 3
loop=$?
set -e
echo "(run --until publishable exit status $loop: 0 publishable, 3 still blocked)"
echo
echo "== status"
$PS status "$DIR"
echo
echo "== measurements: mean time per region (seconds) at each design point"
$PS status "$DIR" --points
if $PS help model > /dev/null 2>&1; then
	echo
	echo "== models (Extra-P's PMNF, constrained by configs/demo.deps)"
	$PS model "$DIR" --deps configs/demo.deps
fi
if $PS help validate > /dev/null 2>&1; then
	echo
	echo "== validity report"
	set +e
	$PS validate "$DIR" --deps configs/demo.deps --html build/demo-report.html
	rc=$?
	set -e
	echo "(HTML report: build/demo-report.html; validate exit status $rc: 0 publishable, 3 blocked)"
fi
