#!/usr/bin/env bash
# The "From blocked to publishable" walkthrough (docs/refine.md): run the
# demo campaign (configs/demo.cfg) with `run --until publishable`, then
# report what the loop spent against rerunning the whole sweep with more
# repetitions.  Run it on a quiet machine: `make all && scripts/refine-demo.sh`.
set -uo pipefail
cd "$(dirname "$0")/.."
PS=bin/perfsweep
DIR=${1:-build/refine-demo.campaign}
ROUNDS=${ROUNDS:-5}
rm -rf "$DIR"

echo "== run configs/demo.cfg --until publishable --rounds $ROUNDS (one run at a time)"
$PS run configs/demo.cfg --dir "$DIR" --jobs 1 --until publishable --rounds "$ROUNDS" --quiet
rc=$?
echo "(exit status $rc: 0 publishable, 3 still blocked)"
echo
echo "== the runs refine added"
sqlite3 -separator ' ' "$DIR/campaign.db" "
	SELECT 'n=' || (SELECT value FROM point_values v JOIN params p ON p.idx = v.param
	                WHERE v.point = r.point AND p.name = 'n'),
	       'i=' || (SELECT value FROM point_values v JOIN params p ON p.idx = v.param
	                WHERE v.point = r.point AND p.name = 'i'),
	       COUNT(*) || ' runs', IFNULL(r.origin, 'plan')
	FROM runs r WHERE r.origin IS NOT NULL GROUP BY r.point, r.origin ORDER BY r.id"
echo
echo "== what the loop spent, against the whole sweep with more repetitions"
sqlite3 "$DIR/campaign.db" "
	WITH cost AS (SELECT r.point, r.origin, r.wall * MAX(r.ranks, 1) / 3600.0 AS ch FROM runs r WHERE r.state = 3),
	     plan AS (SELECT COUNT(*) AS runs, SUM(ch) AS ch FROM cost WHERE origin IS NULL),
	     loop AS (SELECT COUNT(*) AS runs, IFNULL(SUM(ch), 0) AS ch FROM cost WHERE origin IS NOT NULL),
	     reps AS (SELECT MAX(c) AS most FROM (SELECT point, COUNT(*) AS c FROM cost GROUP BY point)),
	     planreps AS (SELECT MAX(c) AS r FROM (SELECT point, COUNT(*) AS c FROM cost WHERE origin IS NULL GROUP BY point))
	SELECT printf('planned sweep: %d runs, %.5f core-hours', plan.runs, plan.ch) FROM plan
	UNION ALL SELECT printf('the loop added: %d runs, %.5f core-hours (%.0f%% of the sweep)', loop.runs, loop.ch,
	                 100.0 * loop.ch / plan.ch) FROM loop, plan
	UNION ALL SELECT printf('the whole sweep at %d repetitions (the most any point got) would add %d runs, %.5f core-hours',
	                 reps.most, plan.runs * reps.most / planreps.r - plan.runs,
	                 plan.ch * reps.most / planreps.r - plan.ch) FROM reps, plan, planreps"
echo
echo "== validity report now"
$PS validate "$DIR" | tail -n 12
