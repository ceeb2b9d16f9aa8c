#!/usr/bin/env bash
# perfsweep refine on real runs of a program whose noise the test controls
# (tests/lib/noisy-app.sh): a campaign blocked by noise becomes publishable
# with only the noisy point measured again; a regime change gets the point
# between its two values and is then located to one step; the JSON contract,
# --dry-run, --budget dropping the least valuable, and `run DIR`.
. "$(dirname "$0")/../lib/tap.sh"
. "$ROOT/tests/lib/noisy.sh"

# n=6 spreads its first 5 executions by 0..80%: noisy (CoV 0.23); every other point is clean
noisy_cfg "$T/noisy.cfg" noisy "$T/s1" "2, 4, 6, 8, 10" 5
printf '6 2 0.2\n6 3 0.4\n6 4 0.6\n6 5 0.8\n' > "$T/s1/noise"
D=$T/noisy.campaign
"$PS" run "$T/noisy.cfg" --quiet > /dev/null 2>&1; is $? 0 "the noisy campaign runs"
"$PS" validate "$D" > "$T/v1" 2>&1; is $? 3 "validate: blocked"
like "$(cat "$T/v1")" "re-measure n=6" "by noise at n=6"

"$PS" refine "$D" --dry-run --json > "$T/dry.json"; is $? 0 "refine --dry-run --json"
is "$(json "$T/dry.json" 'join ",", sort keys %$j')" "budget,dropped,pending,proposals,runs,verdict" "the JSON's keys"
is "$(json "$T/dry.json" 'join ",", sort keys %{$j->{proposals}[0]}')" \
   "core_hours,finding,params,placement,reason,repetitions" "a proposal's keys"
is "$(json "$T/dry.json" 'join ",", sort keys %{$j->{budget}}')" "remaining,used_by_proposals" "the budget's keys"
is "$(json "$T/dry.json" 'join " ", map { "$_->{finding}:n=$_->{params}{n}x$_->{repetitions}" } @{$j->{proposals}}')" \
   "noise:n=6x5" "one proposal: 5 more repetitions at n=6"
is "$(json "$T/dry.json" '$j->{budget}{remaining} // "null"')" "null" "no budget: remaining is null"
is "$(json "$T/dry.json" '$j->{runs}')" "0" "a dry run writes nothing"
is "$(sqlite3 "$D/campaign.db" 'SELECT COUNT(*) FROM runs')" "25" "the store still holds 25 runs"

out=$("$PS" refine "$D" --budget 0 2>&1); is $? 0 "refine --budget 0"
like "$out" "dropped (over the remaining budget, least valuable first):" "says what it dropped"
like "$out" "nothing to refine within the budget" "and that nothing fits"
is "$(sqlite3 "$D/campaign.db" 'SELECT COUNT(*) FROM runs')" "25" "--budget 0 writes nothing"

out=$("$PS" refine "$D" 2>&1); is $? 0 "refine writes the runs"
like "$out" "main: noisy at n=6 (CoV 0.23 over 5 repetitions); 5 more repetitions" "with the reason"
like "$out" "wrote 5 runs: execute them with perfsweep run $D" "and how to run them"
out=$("$PS" refine "$D" 2>&1)
like "$out" "5 runs not yet executed: run them first" "refining again before running proposes nothing"
is "$(sqlite3 "$D/campaign.db" "SELECT COUNT(*) FROM runs WHERE origin = 'refine'")" "5" "and writes nothing more"

"$PS" run "$D" --quiet > /dev/null 2>&1; is $? 0 "run DIR executes them"
is "$(executions "$T/s1")" "2:5 4:5 6:10 8:5 10:5 " "only the noisy point was measured again"
"$PS" validate "$D" > "$T/v2" 2>&1; is $? 0 "validate: publishable now"
out=$("$PS" status "$D")
like "$out" "30 planned, 30 done" "status counts the refine runs"

echo '# changed' >> "$T/noisy.cfg"
out=$("$PS" run "$D" 2>&1); is $? 2 "run DIR refuses a config changed since"
like "$out" "noisy.cfg', which is changed now; run CONFIG --dir $D" "and says what to do"
out=$("$PS" refine "$T/nowhere" 2>&1); is $? 2 "refine of a missing directory"
out=$("$PS" refine "$D" --budget -1 2>&1); is $? 2 "a negative --budget is a usage error"
like "$out" "--budget wants core-hours (a number >= 0), not '-1'" "naming the value"

# a jump of +0.02 s from n=10 on: the change lies between 8 and 10
noisy_cfg "$T/seg.cfg" seg "$T/s2" "2, 4, 6, 8, 10, 12, 14, 16" 3 ', "NOISY_JUMP=0.02", "NOISY_AT=10"'
D=$T/seg.campaign
"$PS" run "$T/seg.cfg" --quiet > /dev/null 2>&1; is $? 0 "the segmented campaign runs"
out=$("$PS" validate "$D" 2>&1); is $? 3 "validate: blocked"
like "$out" "segmented: change between n=8 and 10" "segmented between 8 and 10"
"$PS" refine "$D" --json > "$T/seg.json"; is $? 0 "refine"
is "$(json "$T/seg.json" 'join " ", map { "n=$_->{params}{n}x$_->{repetitions}" } grep { $_->{finding} eq "segmented" } @{$j->{proposals}}')" \
   "n=9x3" "the point between: n=9, 3 repetitions"
"$PS" run "$D" --quiet > /dev/null 2>&1; is $? 0 "run DIR"
out=$("$PS" validate "$D" 2>&1); is $? 0 "a change located to one step does not block"
like "$out" "segmented (located): change between n=9 and 10" "the change is located to one step"
is "$(executions "$T/s2")" "2:3 4:3 6:3 8:3 9:3 10:3 12:3 14:3 16:3 " \
   "each point ran 3 times: the 8 planned and n=9 (no extrapolation along n, on which main is segmented)"
"$PS" refine "$D" --json --dry-run > "$T/seg2.json"
is "$(json "$T/seg2.json" 'scalar grep { $_->{finding} eq "segmented" } @{$j->{proposals}}')" "0" \
   "located to one step: nothing more between"
# refine's runs execute in the campaign's run order (docs/config.md): run
# back to back, a new point's repetitions would share one moment of the
# host, and the drift between moments would look like a property of the
# point.  A jump from n=8 on, measured at 2 3 4 | 12 ...: refine adds 5, 7
# and 9 (3 repetitions each), run in passes (every point's first
# repetition, then the second, ...); a campaign that asks for order =
# "grouped" gets them point by point.
for order in interleaved grouped; do
	noisy_cfg "$T/ord-$order.cfg" "ord-$order" "$T/o-$order" "2, 3, 4, 12, 14, 16, 18, 20" 3 \
		', "NOISY_JUMP=0.02", "NOISY_AT=8"' "order = \"$order\";"
	"$PS" run "$T/ord-$order.cfg" --quiet > /dev/null 2>&1; is $? 0 "$order: the campaign runs"
	"$PS" refine "$T/ord-$order.campaign" --json > "$T/ord-$order.json"; is $? 0 "$order: refine"
	is "$(json "$T/ord-$order.json" 'join " ", sort map { "n=$_->{params}{n}x$_->{repetitions}" } grep { $_->{finding} eq "segmented" } @{$j->{proposals}}')" \
	   "n=5x3 n=7x3 n=9x3" "$order: 3 points between 4 and 12, 3 repetitions each"
	: > "$T/o-$order/log"
	"$PS" run "$T/ord-$order.campaign" --jobs 1 --quiet > /dev/null 2>&1; is $? 0 "$order: run DIR executes them, one at a time"
	# the executions in the order they ran, cut into three passes of three
	passes=$(tr '\n' ' ' < "$T/o-$order/log" | awk '{ for (p = 0; p < 3; p++) { split("", seen); d = 0;
		for (k = 1; k <= 3; k++) if (!seen[$(3 * p + k)]++) d++; printf "%d", d } }')
	if [ "$order" = interleaved ]; then
		is "$passes" "333" "interleaved: each third of the 9 runs holds 3 different points (ran: $(tr '\n' ' ' < "$T/o-$order/log"))"
	else
		is "$passes" "111" "grouped: each third holds one point's 3 repetitions (ran: $(tr '\n' ' ' < "$T/o-$order/log"))"
	fi
done
done_testing
