#!/usr/bin/env bash
# An outlying repetition is measured again as a new attempt, the old value
# kept; and kill -9 during refine, and during the run of its runs, loses and
# duplicates nothing (tests/lib/noisy-app.sh, a program whose noise the test
# controls).
. "$(dirname "$0")/../lib/tap.sh"
. "$ROOT/tests/lib/noisy.sh"

# n=4: its 3rd execution takes 3x (an outlier); n=6 noisy in its first 5
noisy_cfg "$T/k.cfg" k "$T/s" "2, 4, 6, 8" 5
printf '4 3 2\n6 2 0.2\n6 3 0.4\n6 4 0.6\n6 5 0.8\n' > "$T/s/noise"
D=$T/k.campaign
"$PS" run "$T/k.cfg" --quiet > /dev/null 2>&1; is $? 0 "the campaign runs"
out=$("$PS" validate "$D" 2>&1)
like "$out" "1 outlier at n=4" "validate notes the outlier at n=4"
"$PS" refine "$D" --dry-run --json > "$T/p.json"
is "$(json "$T/p.json" 'join " ", map { "$_->{finding}:n=$_->{params}{n}x$_->{repetitions}" } @{$j->{proposals}}')" \
   "noise:n=6x5 outlier:n=4x1" "proposals: 5 more at n=6, the outlier at n=4 once"
rep=$(sqlite3 "$D/campaign.db" "SELECT r.repetition FROM runs r JOIN measurements m ON m.run = r.id
	JOIN point_values v ON v.point = r.point WHERE v.value = 4 AND m.value > 0.04")

# kill -9 refine at different moments of copies of the campaign: all of its runs or none
n=0 bad=0 seen=
for delay in 0 0.01 0.02 0.03 0.05 0.08 0.12 0.2; do
	n=$((n + 1))
	cp -a "$D" "$T/c$n"
	"$PS" refine "$T/c$n" > /dev/null 2>&1 & pid=$!
	sleep "$delay"
	kill -9 "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	c=$(sqlite3 "$T/c$n/campaign.db" 'SELECT COUNT(*) FROM runs')
	seen="$seen $c"
	case $c in 20|26) ;; *) bad=$((bad + 1)); echo "# copy $n (kill after $delay s): $c runs" ;; esac
	"$PS" refine "$T/c$n" > /dev/null 2>&1
	c=$(sqlite3 "$T/c$n/campaign.db" "SELECT COUNT(*) || ',' || COUNT(DISTINCT point || '.' || repetition || '.' || remeasure) FROM runs")
	[ "$c" = "26,26" ] || { bad=$((bad + 1)); echo "# copy $n after refining again: $c"; }
done
echo "# runs right after each kill: $seen"
is "$bad" 0 "after kill -9 at 8 moments: 20 or 26 runs, and 26 distinct runs after refining again"

# kill -9 during the run of the refine runs, then run again
"$PS" refine "$D" > /dev/null 2>&1
"$PS" run "$D" --quiet > /dev/null 2>&1 & pid=$!
sleep 0.4
kill -9 "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
"$PS" run "$D" --quiet > /dev/null 2>&1; is $? 0 "run DIR after a kill -9 completes"
is "$(sqlite3 "$D/campaign.db" "SELECT state, COUNT(*) FROM runs GROUP BY state")" "3|26" "26 runs, all done"
is "$(sqlite3 "$D/campaign.db" "SELECT COUNT(*) FROM measurements")" "26" "one measurement each: nothing lost, nothing twice"
is "$(sqlite3 "$D/campaign.db" "SELECT COUNT(DISTINCT r.repetition) FROM runs r JOIN point_values v ON v.point = r.point WHERE v.value = 6")" \
   "10" "n=6 has repetitions 1..10"

# the outlier's repetition measured again: the old run and value kept, the new one counts
is "$(sqlite3 "$D/campaign.db" "SELECT r.repetition || ':' || r.remeasure || ':' || IFNULL(r.origin, 'plan') FROM runs r
	JOIN point_values v ON v.point = r.point WHERE v.value = 4 AND r.repetition = $rep ORDER BY r.remeasure" | tr '\n' ' ')" \
   "$rep:0:plan $rep:1:refine " "repetition $rep at n=4: the old run and a new attempt"
is "$(sqlite3 "$D/campaign.db" "SELECT COUNT(*) FROM measurements m JOIN runs r ON r.id = m.run
	JOIN point_values v ON v.point = r.point WHERE v.value = 4 AND m.value > 0.04")" "1" "the outlying value is kept in the store"
out=$("$PS" validate "$D" 2>&1); is $? 0 "validate: publishable"
ok $(case "$out" in *"outlier at n=4"*) echo 1 ;; *) echo 0 ;; esac) "and the outlier is gone from the analysis"
done_testing
