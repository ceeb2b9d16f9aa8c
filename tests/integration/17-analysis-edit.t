#!/usr/bin/env bash
# check: alone (its busy loops would disturb the tests beside it: scripts/check-tests.sh)
# Analysis settings change without measuring again (docs/validation.md,
# "Other analysis settings").  A campaign of the demo's stream kernel, one
# rank bound to a core, whose even repetitions run beside a busy loop on
# that core (started by the run's command outside the program's process
# tree, in a session of its own, as in 89-disturbed.t): those runs get at
# most about half the core, whatever else the machine runs, so they are
# disturbed under analysis.min_cpu_share 0.9 and not under 0.
#   1. `run NEW.cfg --dir DIR` with analysis.min_cpu_share = 0: said
#      ("analysis settings changed: min_cpu_share 0.9 -> 0; no run is
#      measured again"), nothing runs, and validate judges with 0 from then
#      on (before, it kept judging with 0.9); `run DIR` takes the new config.
#   2. validate, model and compare with --min-cpu-share X and
#      --include-disturbed: a look at the data, said in text and JSON; the
#      campaign keeps its own setting.
. "$(dirname "$0")/../lib/tap.sh"

trap 'for f in "$T"/*/runs/*/competitor.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null; done; rm -rf "$T"' EXIT

# the busy loop beside even repetitions: tests/lib/compete.sh

# config FILE ANALYSIS: the campaign, with the analysis section given
config() {
	cat > "$1" <<CFG
name = "edit";
app = { command = [ "$ROOT/tests/lib/compete.sh", "$DEMO", "-n", "{n}", "-i", "4", "-k", "stream" ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 64, 96 ]; },
               { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 4;
order_seed = 3;
$2
collect = { wall = false; regex = ( { region = "stream"; metric = "time"; pattern = "stream: ([0-9.eE+-]+) s"; } ); };
CFG
}
D=$T/d
config "$T/a.cfg" ""
"$PS" run "$T/a.cfg" --dir "$D" --quiet > "$T/run.out" 2>&1; is $? 0 "the campaign runs"
"$PS" validate "$D" --json > "$T/v0.json"
is "$(json "$T/v0.json" '$j->{disturbed}{min_cpu_share}')" 0.9 "judged with the default min_cpu_share 0.9"
# runs disturbed by the test analysis.min_cpu_share sets (not by context switches alone)
by_share() { json "$1" 'scalar grep { grep { $_ ne "context_switches" } @{$_->{by}} } @{$j->{disturbed}{runs}}'; }
n0=$(by_share "$T/v0.json")
ok $([ "$n0" -ge 4 ]; echo $?) "the 4 runs beside a busy loop are disturbed ($n0 runs)"

# 1. the edit is applied and said; nothing is measured again
config "$T/b.cfg" 'analysis = { min_cpu_share = 0.0; };'
"$PS" run "$T/b.cfg" --dir "$D" > "$T/b.out" 2> "$T/b.err"; is $? 0 "run with the edited analysis section: exit 0"
like "$(cat "$T/b.err")" "analysis settings changed: min_cpu_share 0.9 -> 0; no run is measured again" "it says what changed"
like "$(cat "$T/b.out")" "this session: 0 started" "and runs nothing"
"$PS" validate "$D" --json > "$T/v1.json"
is "$(json "$T/v1.json" '$j->{disturbed}{min_cpu_share}')" 0 "validate judges with min_cpu_share 0 from then on"
is "$(by_share "$T/v1.json")" 0 "no run is disturbed by that test any more"
like "$("$PS" validate "$D")" "not judged: analysis.min_cpu_share = 0" "the text says so"
"$PS" run "$D" --quiet > "$T/dir.out" 2>&1; is $? 0 "run DIR takes the edited config as the campaign's"
[ $? = 0 ] || diag < "$T/dir.out"
config "$T/c.cfg" 'analysis = { min_cpu_share = 0.0; aggregate = "median"; };'
"$PS" run "$T/c.cfg" --dir "$D" --quiet 2> "$T/c.err" > /dev/null
like "$(cat "$T/c.err")" 'analysis settings changed: aggregate "mean" -> "median"; no run is measured again' \
     "another key: only what changed is said, a key left out as its default"
is "$(json <("$PS" validate "$D" --json) '$j->{aggregate}')" median "and applied"
"$PS" run "$T/c.cfg" --dir "$D" --quiet 2> "$T/same.err" > /dev/null
is "$(grep -c 'analysis settings changed' "$T/same.err")" 0 "the same config again: nothing said"

# 2. a look at the data under other settings; the campaign keeps its own
"$PS" validate "$D" --min-cpu-share 0.9 --json > "$T/v2.json"
is "$(json "$T/v2.json" '$j->{disturbed}{min_cpu_share}')" 0.9 "validate --min-cpu-share 0.9 judges with 0.9"
is "$(by_share "$T/v2.json")" "$n0" "the same runs disturbed as under 0.9 before"
is "$(json "$T/v2.json" 'my $a = $j->{analysis_view}; join " ", map { $a->{$_} // "null" } qw(min_cpu_share campaign_min_cpu_share disturbed_included)')" \
   "0.9 0 null" "the JSON says which setting it used and the campaign's"
like "$("$PS" validate "$D" --min-cpu-share 0.9)" \
     "analysis view: --min-cpu-share 0.9 (the campaign's analysis.min_cpu_share is 0); a look at the data, nothing is stored" \
     "the text says so first"
is "$(json <("$PS" validate "$D" --json) '$j->{disturbed}{min_cpu_share}')" 0 "the campaign keeps its own"
"$PS" validate "$D" --min-cpu-share 0.9 --include-disturbed --json > "$T/v3.json"
is "$(json "$T/v3.json" '$j->{analysis_view}{disturbed_included}')" "$n0" "--include-disturbed: the disturbed runs are in"
is "$(json "$T/v3.json" 'defined $j->{disturbed} ? "checked" : "off"')" off "and the disturbed check is off"
out=$("$PS" model "$D" --min-cpu-share 0.9 --include-disturbed 2> "$T/m.err")
like "$out" "analysis view: --min-cpu-share 0.9 (the campaign's analysis.min_cpu_share is 0), --include-disturbed ($n0 of 8 runs judged disturbed are in the models" \
     "model says which settings it used"
is "$(grep -c 'left out of the models' "$T/m.err")" 0 "and leaves nothing out"
# (--include-disturbed: on a loaded machine every run may be disturbed, and there would be nothing to model)
"$PS" model "$D" --min-cpu-share 0.9 --include-disturbed --json > "$T/m.json"
is "$(json "$T/m.json" 'join " ", map { my $a = $_->{analysis_view}; "$a->{min_cpu_share}:$a->{disturbed_included}" } @$j')" \
   "0.9:$n0" "model --json: each model carries its analysis view"
like "$("$PS" model "$D" --min-cpu-share 0.9 2>&1 >/dev/null)" "$n0 of 8 runs disturbed, left out of the models" \
     "model --min-cpu-share 0.9 leaves the disturbed runs out"
"$PS" compare "$D" "$D" --min-cpu-share 0.9 > /dev/null 2> "$T/cmp.err"
is "$(grep -c '^analysis view: --min-cpu-share 0.9 (the campaign' "$T/cmp.err")" 2 "compare says so for each campaign"
out=$("$PS" validate "$D" --min-cpu-share 1.5 2>&1); is $? 2 "--min-cpu-share above 1: a usage error"
like "$out" "--min-cpu-share wants a number from 0 to 1" "naming the range"
done_testing
