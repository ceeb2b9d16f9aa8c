#!/usr/bin/env bash
# Runs that refine adds launch as the campaign's runs did: a campaign bound
# by an explicit map (placement.map) gets its new attempts and its new
# points with the same map and cores per rank, and each new run's rank is
# bound to the map's core (its recorded binding says so).  The config is
# named by a relative path, and its map by one relative to it.  Before, a
# new point was stored without the map, and a relative config gave every
# run the map path "./cores.map", which perfsweep-bind could not read from
# the run's own directory: every run failed.
. "$(dirname "$0")/../lib/tap.sh"
. "$ROOT/tests/lib/noisy.sh"

ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)
if [ "$ncores" -lt 2 ]; then echo "1..0 # SKIP needs 2 cores"; exit 0; fi
last=$(( ncores - 1 ))
printf '# the one rank on the last core\n%s\n' "$last" > "$T/cores.map"

# a jump of +0.02 s from n=10 on: refine adds the point n=9 between 8 and 10
# (and no larger n: one model of two regimes mispredicts beyond them)
mkdir -p "$T/s"
cat > "$T/seg.cfg" <<CFG
name = "segmap";
app = { command = [ "$NOISY_APP", "{n}" ]; env = [ "NOISY_DIR=$T/s", "NOISY_JUMP=0.02", "NOISY_AT=10" ]; };
parameters = ( { name = "n"; values = [ 2, 4, 6, 8, 10, 12, 14, 16 ]; },
               { name = "np"; values = [ 1 ]; role = "ranks"; } );
repetitions = 3;
order_seed = 1;
placement = { policy = "explicit"; map = "cores.map"; ranks_per_node = [ 1 ]; };
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time ([0-9.]+)"; } ); };
analysis = { min_cpu_share = 0.0; };   # the program reports the time the test chose
CFG
D=$T/segmap.campaign
(cd "$T" && "$PS" run seg.cfg --quiet) > "$T/out" 2>&1; is $? 0 "the mapped campaign runs, its config named relative to the working directory"
[ $? = 0 ] || diag < "$T/out"
is "$(json "$D/runs/1/rank-0.json" '$j->{cpuset}')" "$last" "a planned run is bound to the map's core"
# the runs refine will measure again: those the validator leaves out as
# disturbed (none on a quiet machine; under load the scheduler may take a
# run's core away often enough)
"$PS" validate "$D" --json > "$T/v.json" 2> /dev/null
ndist=$(json "$T/v.json" 'scalar @{($j->{disturbed} // {})->{runs} // []}')
"$PS" refine "$D" > "$T/refine.out" 2>&1; is $? 0 "refine adds runs to the mapped campaign"
[ $? = 0 ] || diag < "$T/refine.out"
# the new points refine made, as "n|runs" (a run that other work on its
# core disturbed may also be rerun at its own point: the machine decides)
is "$(sqlite3 "$D/campaign.db" "SELECT CAST(pv.value AS INTEGER) || '|' || COUNT(*) FROM runs r
	JOIN point_values pv ON pv.point = r.point JOIN params pa ON pa.idx = pv.param AND pa.name = 'n'
	WHERE r.origin = 'refine' AND r.point NOT IN (SELECT point FROM runs WHERE origin IS NOT 'refine')
	GROUP BY pv.value")" "9|3" \
	"n=9, 3 repetitions (no extrapolation along n, on which the region is segmented)" ||
	diag < "$T/refine.out"
# at the campaign's own points, refine only measures the disturbed runs again
is "$(sqlite3 "$D/campaign.db" "SELECT COUNT(*) || '|' || COALESCE(SUM(remeasure > 0), 0) FROM runs
	WHERE origin = 'refine' AND point IN (SELECT point FROM runs WHERE origin IS NOT 'refine')")" "$ndist|$ndist" \
	"its other runs measure the $ndist disturbed runs again, nothing more" || diag < "$T/refine.out"
is "$(sqlite3 "$D/campaign.db" "SELECT COUNT(DISTINCT COALESCE(p.map, '-') || '|' || COALESCE(p.cores_per_rank, '-')) FROM points p")" "1" \
	"every point, old and new, has the campaign's map and cores per rank"
"$PS" run "$D" --quiet > "$T/run2.out" 2>&1; is $? 0 "run DIR executes them"
new=$(sqlite3 "$D/campaign.db" "SELECT id FROM runs WHERE origin = 'refine' ORDER BY id")
bound=0
for id in $new; do
	[ "$(json "$D/runs/$id/rank-0.json" '$j->{cpuset}')" = "$last" ] && bound=$((bound + 1))
done
nnew=$(echo $new | wc -w)
[ "$nnew" -ge 3 ] && [ "$bound" = "$nnew" ]
ok $? "each new run's rank is bound to the map's core ($bound of $nnew)"
# the refine points keep the campaign's launch, so the same config still grows the store
"$PS" run "$T/seg.cfg" --quiet > "$T/run3.out" 2>&1; is $? 0 "run CONFIG again: the store takes the same config"
[ $? = 0 ] || diag < "$T/run3.out"
done_testing
