#!/usr/bin/env bash
# The demo program and its campaign (issue 14: the demo tells the truth):
# the kernels' clock option, one clear line for a bad one, and the demo's
# design, which gives the regime kernel's segmented check 4 sizes on each
# side of its switch at n = 128 and spans n by a factor of 3, and binds
# every run to one core.  Whether the models come out right is timing, so it
# is `make demo`'s business, not a test's; the modeller on this design is
# tested with generated data
# (tests/unit/test_joint.c).
. "$(dirname "$0")/../lib/tap.sh"

out=$("$DEMO" -n 6 -i 2 -c cpu 2>&1)
ok $? "demo-app -c cpu runs"
is "$(echo "$out" | grep -cE '^(setup|dense|stream|sort|regime|total): [0-9.]+ s$')" 6 "every kernel and the total report a time"
out=$("$DEMO" -n 6 -k sort,regime -c wall 2>&1)
is "$(echo "$out" | cut -d: -f1 | tr '\n' ' ')" "sort regime total " "-c wall with -k runs only those kernels"

"$DEMO" -n 6 -c bogus > "$T/out" 2> "$T/err"
is $? 2 "a bad clock is a usage error (exit 2)"
is "$(cat "$T/err")" "demo-app: bad clock 'bogus'; write -c cpu or -c wall" "one line naming the clock and what to write"
[ ! -s "$T/out" ]; ok $? "nothing is measured"

out=$("$DEMO" -n 6 -i 2 -c cpu -w 0.5 2>&1)
is "$(echo "$out" | grep -cE '^(setup|dense|stream|sort|regime|total): [0-9.]+ s$')" 6 "-w 0.5 (half of every kernel's work) runs every kernel"
for w in 0 -1 x; do
	"$DEMO" -n 6 -w $w > "$T/out" 2> "$T/err"
	is $? 2 "-w $w: a usage error (exit 2)"
	is "$(cat "$T/err")" "demo-app: bad value '$w' for -w" "-w $w: one line naming it"
done

# the options that make "a new version" for perfsweep compare (tests/integration/88-compare-real.t)
out=$("$DEMO" -n 8 -k setup,regime -c cpu --more setup:1.3 --log regime 2>&1)
is "$(echo "$out" | cut -d: -f1 | tr '\n' ' ')" "setup regime total " "--more KERNEL:FACTOR and --log KERNEL run"
for bad in "--more stream" "--more stream:0" "--more dense:2" "--log bogus"; do
	"$DEMO" -n 8 -c cpu $bad > "$T/out" 2> "$T/err"
	is $? 2 "$bad: a usage error (exit 2)"
	is "$(wc -l < "$T/err")" 1 "$bad: one line"
	like "$(cat "$T/err")" "demo-app: bad ${bad% *} '${bad#* }'" "$bad: naming the option and its value"
done

"$PS" plan "$ROOT/configs/demo.cfg" --json > "$T/plan.json"
ok $? "the demo campaign plans"
is "$(json "$T/plan.json" '$j->{totals}{runs}')" 42 "42 runs (14 points x 3)"
is "$(json "$T/plan.json" 'join " ", sort { $a <=> $b } map { $_->{params}{n} } grep { $_->{params}{i} == 1 } @{$j->{points}}')" \
	"72 84 98 114 134 156 182 212" "the n line at i = 1: 8 sizes"
is "$(json "$T/plan.json" 'scalar grep { $_->{params}{i} == 1 && $_->{params}{n} < 128 } @{$j->{points}}')" 4 \
	"4 sizes below the regime switch at 128 (the segmented check needs 3 per side)"
is "$(json "$T/plan.json" 'my @n = map { $_->{params}{n} } @{$j->{points}}; my ($lo, $hi) = (sort { $a <=> $b } @n)[0, -1]; $hi / $lo >= 2.9 ? 1 : 0')" 1 \
	"n spans a factor of about 3"
grep -q '"-c", "cpu"' "$ROOT/configs/demo.cfg"; ok $? "the demo measures the kernels' CPU time"
is "$(json "$T/plan.json" 'scalar grep { ($_->{placement}{policy} // "") eq "compact" && $_->{placement}{ranks_per_node} == 1 && $_->{params}{np} == 1 } @{$j->{points}}')" 14 \
	"every point runs one rank, bound by a compact placement (the same core for every run)"
done_testing
