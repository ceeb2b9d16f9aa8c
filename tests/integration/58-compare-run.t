#!/usr/bin/env bash
# perfsweep compare --run BASE.cfg NEW.cfg --dir DIR (issue 42): both arms in
# one time window, on the local backend, one run at a time, pass by pass in
# the base arm's run order, base and new in turn (ABBA: base then new for a
# pair, new then base for the next); a kill -9 and the same command again
# loses and duplicates nothing; then compare pairs each new run with the
# base run beside it.  NEW runs the demo app's regime kernel with 3
# iterations instead of 1 (three times the work at every size), timed in
# CPU seconds (-c cpu) on a bound core, so that a loaded machine does not
# hide the change; only verdict names, counts and the order are checked,
# never a time.
. "$(dirname "$0")/../lib/tap.sh"

cfg() {  # cfg NAME ITERATIONS [SLEEP [ANALYSIS]]
	local an='analysis = { min_cpu_share = 0.0; };'
	[ $# -ge 4 ] && an=$4
	cat > "$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ "$DEMO", "-n", "{n}", "-i", "$2", "-k", "regime", "-c", "cpu", "-s", "${3:-0}" ]; };
parameters = ( { name = "n"; values = [ 20, 30 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 3;
collect = { regex = ( { region = "regime"; pattern = "regime: ([0-9.eE+-]+) s"; } ); };
$an
CFG
}
cfg i1 1
cfg i3 3
# the same program for the A/A check, judged for disturbance (the default
# analysis): runs that other programs slowed are left out, so a loaded
# machine makes the comparison inconclusive, never a regression
cfg a1 1 0 ""

# The arms' runs in the order they started: "b" for base, "n" for new, one letter a run.
order() {
	for arm in base new; do
		sqlite3 "$1/$arm.campaign/campaign.db" "SELECT started_at, '$arm' FROM runs WHERE state = 3"
	done | sort -n | cut -d'|' -f2 | cut -c1 | tr -d '\n'
}

"$PS" compare --run "$T/i1.cfg" "$T/i3.cfg" --dir "$T/ab" --json > "$T/ab.json" 2> "$T/ab.err"; rc=$?
is $rc 3 "three times the work, run in turn: exit 3" || diag < "$T/ab.err"
is "$(order "$T/ab")" "bnnbbnnbbnnb" "the runs alternate pair by pair, base first then new first (ABBA)"
is "$(sqlite3 "$T/ab/base.campaign/campaign.db" "SELECT group_concat(repetition, '') FROM (SELECT repetition FROM runs ORDER BY started_at)")" \
	"112233" "pass by pass: every point's first repetition before any second"
is "$(json "$T/ab.json" '$j->{pairs}{pairs} . " " . $j->{pairs}{lost}')" "6 0" "six pairs, none lost"
is "$(json "$T/ab.json" 'my ($m) = grep { $_->{callpath} eq "regime" } @{$j->{models}}; "$m->{region}{status} " . ($m->{region}{paired} ? "paired" : "unpaired")')" \
	"regression paired" "regime regressed, from the pairs' ratios"
like "$(cat "$T/ab.err")" "one at a time, base and new in turn" "the run says how it runs"

# run again: nothing left to run, the same verdict
"$PS" compare --run "$T/i1.cfg" "$T/i3.cfg" --dir "$T/ab" > "$T/again.out" 2> "$T/again.err"; is $? 3 "the same command again: exit 3"
like "$(cat "$T/again.err")" "this session: 0 runs started" "and nothing runs again"
# the two arm directories, given as BASE and NEW later, are paired too
"$PS" compare "$T/ab/base.campaign" "$T/ab/new.campaign" > "$T/later.out"; is $? 3 "the arms compared later: exit 3"
like "$(cat "$T/later.out")" "pairs: 6 (each new run beside its base run in time)" "and paired"
# one arm against another campaign is not a pair
"$PS" compare "$T/ab/base.campaign" "$T/ab/base.campaign" --json > "$T/self.json"; is $? 0 "an arm against itself: exit 0"
is "$(json "$T/self.json" '$j->{pairs} // "null"')" null "not paired as arms"

# the same config in both arms: no regression
"$PS" compare --run "$T/a1.cfg" "$T/a1.cfg" --dir "$T/aa" --json > "$T/aa.json" 2> "$T/aa.err"; rc=$?
ok $([ $rc = 0 ] || [ $rc = 4 ]; echo $?) "the same config twice: no regression (exit $rc, $(json "$T/aa.json" '$j->{verdict}'))"

# kill -9 in the middle, then the same command: every run done exactly once
cfg slow1 1 0.3
cfg slow3 3 0.3
# (a kill that came after the last run, the window missed, is tried again)
for try in 1 2 3; do
	rm -rf "$T/kill"
	"$PS" compare --run "$T/slow1.cfg" "$T/slow3.cfg" --dir "$T/kill" > /dev/null 2>&1 &
	pid=$!
	for i in $(seq 1 200); do
		n=$(sqlite3 "$T/kill/base.campaign/campaign.db" "SELECT count(*) FROM runs WHERE state = 3" 2> /dev/null)
		[ "${n:-0}" -ge 2 ] && break
		sleep 0.1
	done
	kill -9 $pid 2> /dev/null
	wait $pid 2> /dev/null
	done_before=$(( $(sqlite3 "$T/kill/base.campaign/campaign.db" "SELECT count(*) FROM runs WHERE state = 3") + \
		$(sqlite3 "$T/kill/new.campaign/campaign.db" "SELECT count(*) FROM runs WHERE state = 3") ))
	[ "$done_before" -lt 12 ] && break
	diag "try $try: the kill came after the last run (looked $i times); again"
done
ok $([ "$done_before" -ge 3 ] && [ "$done_before" -lt 12 ]; echo $?) "killed mid-way ($done_before of 12 runs done)"
"$PS" compare --run "$T/slow1.cfg" "$T/slow3.cfg" --dir "$T/kill" --json > "$T/kill.json" 2> "$T/kill.err"; rc=$?
is $rc 3 "the same command resumes and compares: exit 3" || diag < "$T/kill.err"
for arm in base new; do
	db="$T/kill/$arm.campaign/campaign.db"
	is "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE state = 3")" 6 "$arm: every run done"
	is "$(sqlite3 "$db" "SELECT count(*) FROM (SELECT point, repetition FROM runs GROUP BY point, repetition HAVING count(*) > 1)")" \
		0 "$arm: no point and repetition twice"
	is "$(sqlite3 "$db" "SELECT count(*) FROM (SELECT run FROM measurements GROUP BY run, rank, region, metric HAVING count(*) > 1)")" \
		0 "$arm: no run measured twice"
	"$PS" status "$T/kill/$arm.campaign" --json > "$T/st.json"
	"$PS" status "$T/ab/$arm.campaign" --json > "$T/st0.json"
	is "$(json "$T/st.json" '$j->{measurements}')" "$(json "$T/st0.json" '$j->{measurements}')" \
		"$arm: as many measurements as the arm that ran without a kill"
done
is "$(json "$T/kill.json" '$j->{pairs}{pairs}')" 6 "six pairs after the resume"
ok $(! pgrep -f "$DEMO -n [0-9]* -i [13] -k regime -c cpu -s 0.3" > /dev/null; echo $?) "no run process left behind"

# the budget covers both arms: BASE's 3 s, half for each arm's watch, and a
# pair starts only when both of its runs fit.  Runs take at least 0.6 s where
# the cost model says 0.2 s, so how many start depends on how long they took:
# checked against the walls the stores recorded, as 33-order-budget.t does.
for arm in b1 b2; do
	cat > "$T/$arm.cfg" <<CFG
name = "$arm";
app = { command = [ "sleep", "0.6" ]; };
parameters = ( { name = "a"; values = [ 1, 2 ]; } );
repetitions = 3;
order_seed = 1;
cost_model = "0.2";
budget = { core_hours = 0.000833333; min_repetitions = 3; };
CFG
done
"$PS" compare --run "$T/b1.cfg" "$T/b2.cfg" --dir "$T/bud" > /dev/null 2> "$T/bud.err"
like "$(cat "$T/bud.err")" "stopped starting pairs: the budget would be overrun" "the budget stops the pairs"
nb=$(sqlite3 "$T/bud/base.campaign/campaign.db" "SELECT count(*) FROM runs WHERE state = 3")
nn=$(sqlite3 "$T/bud/new.campaign/campaign.db" "SELECT count(*) FROM runs WHERE state = 3")
ok $([ "$nb" = "$nn" ] && [ "$nb" -ge 1 ] && [ "$nb" -lt 6 ]; echo $?) "between two pairs: $nb runs done in each arm"
for arm in base new; do
	walls=$(sqlite3 "$T/bud/$arm.campaign/campaign.db" "SELECT wall FROM runs WHERE state = 3 ORDER BY ended_at" | tr '\n' ' ')
	ok $(perl -e '@w = split " ", $ARGV[0]; $s = 0; $s += $_ for @w; $l = 1.1 * 0.000833333 / 2 * 3600;
		exit !(@w >= 1 && $s - $w[-1] + 0.2 <= $l)' "$walls"; echo $?) \
		"$arm: its last run started within half the budget (walls $walls)"
done

# what a two-arm run refuses, before anything is written
sed 's/^name = "i1";/name = "i1"; backend = { type = "slurm"; };/' "$T/i1.cfg" > "$T/slurm.cfg"
"$PS" compare --run "$T/slurm.cfg" "$T/i3.cfg" --dir "$T/s" 2> "$T/err"; is $? 2 "a SLURM arm: exit 2"
like "$(cat "$T/err")" "compare --run runs both arms on the local backend" "with the reason"
ok $([ ! -e "$T/s" ]; echo $?) "and nothing made"
sed 's/values = \[ 20, 30 \]/values = [ 20, 40 ]/' "$T/i3.cfg" > "$T/other.cfg"
"$PS" compare --run "$T/i1.cfg" "$T/other.cfg" --dir "$T/o" 2> "$T/err"; is $? 2 "arms of different points: exit 2"
like "$(cat "$T/err")" "plan different points, placements or repetitions from point" "named"
sed 's/repetitions = 3;/repetitions = { min = 2; max = 4; target = 0.05; };/' "$T/i3.cfg" > "$T/adapt.cfg"
"$PS" compare --run "$T/i1.cfg" "$T/adapt.cfg" --dir "$T/o" 2> "$T/err"; is $? 2 "adaptive repetitions: exit 2"
like "$(cat "$T/err")" "needs fixed repetitions" "named"
"$PS" run "$T/i1.cfg" --dir "$T/plain/base.campaign" --quiet > /dev/null 2>&1
"$PS" compare --run "$T/i1.cfg" "$T/i3.cfg" --dir "$T/plain" 2> "$T/err"; is $? 2 "a plain campaign where an arm goes: exit 2"
like "$(cat "$T/err")" "is not the base arm of a two-arm run" "named"
done_testing
