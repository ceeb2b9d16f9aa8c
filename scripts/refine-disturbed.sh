#!/usr/bin/env bash
# The refine loop with a disturbed pass (docs/refine.md, "Measured"): run
# configs/demo.cfg --until publishable, one run at a time, and while the
# sweep runs put a busy loop on the demo's core (core 0: compact placement
# binds each run to the lowest free core) for BUSY seconds, starting DELAY
# seconds in.  The runs it shares its core with get about half of it: the
# disturbed check leaves them out and refine reruns them first.  Prints the
# loop's rounds, the disturbed runs, what refine reran and added, and the
# extra core-hours over the planned sweep; TRIES times (default 1).
set -uo pipefail
cd "$(dirname "$0")/.."
PS=bin/perfsweep
OUT=${OUT:-build/refine-disturbed}
TRIES=${TRIES:-1}
ROUNDS=${ROUNDS:-5}
DELAY=${DELAY:-8}
BUSY=${BUSY:-15}
mkdir -p "$OUT"
for t in $(seq 1 "$TRIES"); do
	D=$OUT/try-$t.campaign
	rm -rf "$D"
	echo "== try $t: load average $(uptime | sed 's/.*load average: //')"
	$PS run configs/demo.cfg --dir "$D" --jobs 1 --until publishable --rounds "$ROUNDS" --quiet > "$OUT/try-$t.log" 2>&1 &
	run=$!
	sleep "$DELAY"
	# the busy loop: a shell loop bound to core 0, killed after BUSY seconds
	timeout "$BUSY" taskset -c 0 sh -c 'while :; do :; done' &
	wait $!
	wait $run
	rc=$?
	sed -n '/^ round/,$p' "$OUT/try-$t.log" | sed -n '1,/^loop:/p'
	echo "(exit status $rc: 0 publishable, 3 still blocked)"
	echo "runs with a rank below a CPU share of 0.9 (analysis.min_cpu_share's default):"
	sqlite3 -separator ' ' "$D/campaign.db" "
		SELECT COUNT(DISTINCT run), printf('CPU share %.2f-%.2f', MIN(cpu_share), MAX(cpu_share))
		FROM resources WHERE cpu_share < 0.9"
	echo "runs done, by origin (the planned sweep; refine's reruns of a repetition; refine's new repetitions and points):"
	sqlite3 -separator ' ' "$D/campaign.db" "
		SELECT CASE WHEN origin IS NULL THEN 'sweep' WHEN remeasure > 0 THEN 'rerun' ELSE 'added' END AS kind,
		       COUNT(*) || ' runs', printf('%.5f core-hours', SUM(wall * MAX(ranks, 1) / 3600.0))
		FROM runs WHERE state = 3 GROUP BY kind"
	sqlite3 "$D/campaign.db" "
		WITH cost AS (SELECT origin, wall * MAX(ranks, 1) / 3600.0 AS ch FROM runs WHERE state = 3)
		SELECT printf('extra core-hours over the planned sweep: %.0f%%',
		              100.0 * (SELECT IFNULL(SUM(ch), 0) FROM cost WHERE origin IS NOT NULL)
		                    / (SELECT SUM(ch) FROM cost WHERE origin IS NULL))"
	$PS validate "$D" 2>/dev/null | grep -iE 'disturbed|segmented|publishable|blocked' | head -n 8
	echo
done
