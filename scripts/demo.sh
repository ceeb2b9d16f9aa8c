#!/usr/bin/env bash
# make demo: plan and run the demo campaign on the local backend, then show
# what was measured (and, where this build has them, models and the
# validity report).
set -euo pipefail
cd "$(dirname "$0")/.."
PS=bin/perfsweep
DIR=build/demo.campaign
rm -rf "$DIR"

echo "== plan (configs/demo.cfg)"
$PS plan configs/demo.cfg | tail -n 3
echo
echo "== run: one run at a time, so that runs do not disturb each other's timings"
$PS run configs/demo.cfg --dir "$DIR" --jobs 1
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
