#!/usr/bin/env bash
# Campaigns that grow: a value added to a parameter adds only its runs (the
# app counts its own executions), a value removed retires its runs without
# deleting them and analysis leaves them out, a value added back un-retires
# them, and `plan --dir` shows the difference with the added core-hours.
. "$(dirname "$0")/../lib/tap.sh"

# the application: one line per execution in $T/count, a time it reports
cat > "$T/app.sh" <<'APP'
#!/bin/sh
echo "n=$1 rep=$2" >> "$COUNT"
echo "work: 0.0$1 s"
APP
chmod +x "$T/app.sh"
export COUNT=$T/count
cfg() {  # cfg FILE VALUES
	cat > "$1" <<CFG
name = "grow";
app = { command = [ "$T/app.sh", "{n}", "{rep}" ]; };
parameters = ( { name = "n"; values = [ $2 ]; } );
repetitions = 2;
cost_model = "36";
collect = { regex = ( { region = "work"; pattern = "work: ([0-9.]+) s"; } ); };
# the points model and validate count must not depend on a quiet machine:
# no run is left out as disturbed
analysis = { min_cpu_share = 0.0; };
CFG
}
count() { wc -l < "$COUNT" | tr -d ' '; }
C=$T/grow.campaign
cfg "$T/c3.cfg" "1, 2, 3"
cfg "$T/c4.cfg" "1, 2, 3, 4"
cfg "$T/c2.cfg" "1, 2"

"$PS" run "$T/c3.cfg" --quiet > "$T/out" 2>&1; is $? 0 "the first campaign runs"
is "$(count)" 6 "3 values x 2 repetitions: 6 executions"

# the difference before running it
"$PS" plan "$T/c4.cfg" --dir "$C" > "$T/plan.txt"; is $? 0 "plan --dir compares the plan with the campaign"
like "$(cat "$T/plan.txt")" "added:   2 runs (1 new point), 0.02 core-hours" "2 runs added at 1 new point, their core-hours (2 x 36 s)"
like "$(cat "$T/plan.txt")" "kept:    6 runs (6 done, 0 back from retired)" "6 runs kept, all done"
like "$(cat "$T/plan.txt")" "retired: 0 runs" "nothing retired"
"$PS" plan "$T/c4.cfg" --dir "$C" --json > "$T/plan.json"; is $? 0 "plan --dir --json"
is "$(json "$T/plan.json" 'join ",", map { $j->{diff}{$_} } qw(added added_points kept kept_done retired)')" "2,1,6,6,0" \
	"--json: diff {added, added_points, kept, kept_done, retired}"
is "$(json "$T/plan.json" 'sprintf "%.4f", $j->{diff}{added_core_hours}')" "0.0200" "--json: diff.added_core_hours"
"$PS" plan "$T/c4.cfg" --json > "$T/plain.json"
is "$(json "$T/plain.json" 'exists $j->{diff} ? "diff" : "none"')" "none" "without --dir the contract is unchanged"
is "$(count)" 6 "plan runs nothing"

# grow: only the new value's runs execute
"$PS" run "$T/c4.cfg" --quiet > "$T/out" 2> "$T/err"; is $? 0 "the grown campaign runs"
like "$(cat "$T/err")" "grew: 2 runs added, 6 kept (6 done" "run says how it grew"
is "$(count)" 8 "only 2 more executions: every earlier run stayed done"
is "$(grep -c 'n=4' "$COUNT")" 2 "and they are the new value's"
"$PS" status "$C" --json > "$T/st.json"
is "$(json "$T/st.json" 'join ",", map { $j->{$_} } qw(planned done retired)')" "8,8,0" "status: 8 planned, 8 done"
"$PS" run "$T/c4.cfg" --quiet > /dev/null 2>&1; is "$(count)" 8 "running the grown config again executes nothing"

# shrink: values 3 and 4 leave the plan
"$PS" plan "$T/c2.cfg" --dir "$C" > "$T/plan2.txt"
like "$(cat "$T/plan2.txt")" "retired: 4 runs (2 points out of the plan" "plan --dir: 4 runs would retire"
"$PS" run "$T/c2.cfg" --quiet > "$T/out" 2>&1; is $? 0 "a campaign with values removed runs"
is "$(count)" 8 "nothing executes"
"$PS" status "$C" --json > "$T/st.json"
is "$(json "$T/st.json" 'join ",", map { $j->{$_} } qw(planned done retired measurements)')" "4,4,4,16" \
	"status: 4 planned and done, 4 retired, every measurement kept"
like "$("$PS" status "$C")" "4 retired" "status text shows the retired runs"
is "$(sqlite3 "$C/campaign.db" 'SELECT COUNT(*) FROM runs')" 8 "no run was deleted"
"$PS" model "$C" > "$T/model.txt"; is $? 0 "model reads the campaign"
like "$(grep -A2 '^work' "$T/model.txt")" "(2 points)" "model leaves the retired points out"
"$PS" model "$C" --include-retired > "$T/model.txt"
like "$(grep -A2 '^work' "$T/model.txt")" "(4 points)" "model --include-retired takes them in"
"$PS" validate "$C" --json > "$T/v.json"
is "$(json "$T/v.json" 'join ",", map { $_->{points} } grep { $_->{callpath} eq "work" } @{$j->{regions}}')" 2 \
	"validate leaves the retired points out"
"$PS" validate "$C" --json --include-retired > "$T/v.json"
is "$(json "$T/v.json" 'join ",", map { $_->{points} } grep { $_->{callpath} eq "work" } @{$j->{regions}}')" 4 \
	"validate --include-retired takes them in"
is "$("$PS" export "$C" --format csv | grep -c ',"work",')" 4 "export leaves retired runs out"
is "$("$PS" export "$C" --format csv --include-retired | grep -c ',"work",')" 8 "export --include-retired keeps them"
"$PS" export "$C" --format extrap-text > "$T/x.txt"; is $? 0 "export to Extra-P text"
is "$(grep -c '^POINTS' "$T/x.txt")" 2 "with the two planned points only"

# a value added back: its runs return, done, and nothing executes
"$PS" run "$T/c3.cfg" --quiet > "$T/out" 2> "$T/err"; is $? 0 "a value added back"
like "$(cat "$T/err")" "2 back from retired" "its runs come back from retired"
is "$(count)" 8 "nothing executes: they were done"
"$PS" status "$C" --json > "$T/st.json"
is "$(json "$T/st.json" 'join ",", map { $j->{$_} } qw(planned done retired)')" "6,6,2" "6 planned and done, value 4 still retired"
done_testing
