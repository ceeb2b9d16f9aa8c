#!/usr/bin/env bash
# Run order and the budget on the local backend with real runs: interleaved
# passes (seeded, stored, kept on resume), random and grouped orders, status
# and status --json showing the pass and the budget, and a run that stops
# starting runs once the budget would be overrun, never killing one.
. "$(dirname "$0")/../lib/tap.sh"

cfg() { # cfg FILE NAME ORDER-LINES [EXTRA]
	cat > "$1" <<CFG
name = "$2";
app = { command = [ "true", "{a}" ]; };
parameters = ( { name = "a"; values = [ 1, 2, 3, 4 ]; } );
repetitions = 3;
$3
$4
CFG
}
# seq DIR: "point.repetition" of every run in run id (= execution) order
seq_of() { sqlite3 "$1/campaign.db" "SELECT point || '.' || repetition FROM runs ORDER BY id" | tr '\n' ' '; }

cfg "$T/i.cfg" inter 'order_seed = 7;'
"$PS" run "$T/i.cfg" --quiet > /dev/null 2>&1; is $? 0 "an interleaved campaign (the default) runs"
s=$(seq_of "$T/inter.campaign")
is "$(echo $s | tr ' ' '\n' | cut -d. -f2 | tr '\n' ' ')" "1 1 1 1 2 2 2 2 3 3 3 3 " "pass 1 over all points, then pass 2, then pass 3"
is "$(echo $s | tr ' ' '\n' | sort | tr '\n' ' ')" "0.1 0.2 0.3 1.1 1.2 1.3 2.1 2.2 2.3 3.1 3.2 3.3 " "every run of every point exactly once"
p1=$(echo $s | tr ' ' '\n' | head -4 | cut -d. -f1 | tr '\n' ' ')
ok $([ "$p1" != "0 1 2 3 " ] || [ "$(echo $s | tr ' ' '\n' | sed -n 5,8p | cut -d. -f1 | tr '\n' ' ')" != "0 1 2 3 " ]; echo $?) "the points of a pass are shuffled ($s)"
is "$(sqlite3 "$T/inter.campaign/campaign.db" "SELECT value FROM meta WHERE key = 'order' OR key = 'order_seed' ORDER BY key")" "interleaved
7" "order and seed are stored"
cfg "$T/i2.cfg" inter 'order_seed = 7;'
"$PS" run "$T/i2.cfg" --dir "$T/again" --quiet > /dev/null 2>&1
is "$(seq_of "$T/again")" "$s" "the same seed gives the same order"
out=$("$PS" status "$T/inter.campaign")
like "$out" "order:     interleaved (seed 7), passes done: 3 of 3" "status names the order and the passes"

# resume keeps the stored order even when the config's seed changes
cfg "$T/i3.cfg" inter 'order_seed = 8;'
"$PS" run "$T/i3.cfg" --dir "$T/inter.campaign" --quiet > /dev/null 2>&1; is $? 0 "resuming with another seed works"
is "$(seq_of "$T/inter.campaign")" "$s" "and keeps the stored order"

cfg "$T/g.cfg" grp 'order = "grouped";'
"$PS" run "$T/g.cfg" --quiet > /dev/null 2>&1
is "$(seq_of "$T/grp.campaign")" "0.1 0.2 0.3 1.1 1.2 1.3 2.1 2.2 2.3 3.1 3.2 3.3 " "grouped: all repetitions of a point together"
cfg "$T/r.cfg" rnd 'order = "random"; order_seed = 3;'
"$PS" run "$T/r.cfg" --quiet > /dev/null 2>&1
s=$(seq_of "$T/rnd.campaign")
is "$(echo $s | tr ' ' '\n' | sort | tr '\n' ' ')" "0.1 0.2 0.3 1.1 1.2 1.3 2.1 2.2 2.3 3.1 3.2 3.3 " "random: every run once"
ok $([ "$(echo $s | tr ' ' '\n' | cut -d. -f2 | tr '\n' ' ')" != "1 1 1 1 2 2 2 2 3 3 3 3 " ]; echo $?) "random: not in passes ($s)"
cfg "$T/bad.cfg" bad 'order = "sorted";'
out=$("$PS" plan "$T/bad.cfg" 2>&1); is $? 2 "an unknown order is a config error"
like "$out" "bad.cfg:5: unknown order; write order = \"interleaved\", \"random\" or \"grouped\";" "naming the line and what to write"

# the budget: runs take at least 0.6 s where the cost model says 0.2 s.  How
# many start depends on how long they really took (a loaded machine stretches
# them), so the test checks the rule against the walls the store recorded:
# with --jobs 1, run k+1 starts while spent(k) + 0.2 s <= 1.1 x 1.5 s.
cat > "$T/b.cfg" <<CFG
name = "bud";
app = { command = [ "sleep", "0.6" ]; };
parameters = ( { name = "a"; values = [ 1, 2 ]; } );
repetitions = 3;
order_seed = 1;
cost_model = "0.2";
budget = { core_hours = 0.000416667; min_repetitions = 3; };
CFG
"$PS" run "$T/b.cfg" --jobs 1 > "$T/b.out" 2>&1; is $? 1 "a campaign over its budget stops with exit 1"
like "$(cat "$T/b.out")" "budget reached:" "saying the budget was reached"
like "$(cat "$T/b.out")" "stopped starting runs" "and that it stopped starting runs"
st=$("$PS" status "$T/bud.campaign" --json)
k=$(echo "$st" | json /dev/stdin '$j->{done}')
is "$(echo "$st" | json /dev/stdin '($j->{done} + $j->{pending}) . " runs, " . $j->{failed} . " failed, " . $j->{running} . " running"')" "6 runs, 0 failed, 0 running" "none was killed: the rest wait ($k done)"
walls=$(sqlite3 "$T/bud.campaign/campaign.db" "SELECT wall FROM runs WHERE state = 3 ORDER BY ended_at" | tr '\n' ' ')
ok $(perl -e '@w = split " ", $ARGV[0]; $s = 0; $s += $_ for @w; $l = 1.1 * 0.000416667 * 3600;
	exit !(@w >= 1 && @w < 6 && $s + 0.2 > $l && $s - $w[-1] + 0.2 <= $l)' "$walls"; echo $?) \
	"the last run started within the budget, the next would pass it (walls $walls)"
is "$(echo "$st" | json /dev/stdin 'sprintf "%.9f", $j->{budget}{core_hours}')" "0.000416667" "status --json: budget.core_hours"
is "$(echo "$st" | json /dev/stdin 'sprintf "%.6f", $j->{budget}{planned} * 3600')" "1.200000" "budget.planned: 6 runs x 0.2 s"
ok $(perl -e '@w = split " ", $ARGV[0]; $s = 0; $s += $_ for @w; exit !(abs($s - $ARGV[1] * 3600) < 1e-3 && $s >= 0.6 * @w)' \
	"$walls" "$(echo "$st" | json /dev/stdin '$j->{budget}{spent}')"; echo $?) "budget.spent: the done runs' walls"
pass=$((k / 2 + 1))
is "$(echo "$st" | json /dev/stdin '$j->{order}{kind} . " " . $j->{order}{pass} . "/" . $j->{order}{passes}')" "interleaved $pass/3" "status --json: the pass the campaign is in"
like "$("$PS" status "$T/bud.campaign")" "order:     interleaved (seed 1), pass $pass of 3" "status: pass $pass of 3"
sed -i 's/core_hours = 0.000416667;/core_hours = 0.01;/' "$T/b.cfg"
"$PS" run "$T/b.cfg" --quiet > /dev/null 2>&1; is $? 0 "with a larger budget, run goes on"
is "$("$PS" status "$T/bud.campaign" --json | json /dev/stdin '$j->{done} . " " . $j->{budget}{core_hours}')" "6 0.01" "all runs done, the stored budget follows the config"
done_testing
