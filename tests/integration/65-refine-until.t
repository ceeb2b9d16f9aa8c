#!/usr/bin/env bash
# perfsweep run CONFIG --until publishable [--rounds N] on real runs of a
# program whose noise the test controls (tests/lib/noisy-app.sh): the loop
# runs, validates, refines and repeats; it stops when publishable, when the
# rounds are done, when nothing actionable is left, or when the budget is
# spent, and prints the verdict after each round.
. "$(dirname "$0")/../lib/tap.sh"
. "$ROOT/tests/lib/noisy.sh"

# transient noise at n=6 (its first 5 executions): one refine round fixes it
noisy_cfg "$T/a.cfg" a "$T/sa" "2, 4, 6, 8" 5
printf '6 2 0.2\n6 3 0.4\n6 4 0.6\n6 5 0.8\n' > "$T/sa/noise"
out=$("$PS" run "$T/a.cfg" --until publishable --quiet 2>/dev/null); is $? 0 "--until publishable: exit 0 once publishable"
like "$out" "round 1: blocked" "round 1 is blocked"
like "$out" "round 1: refine added 5 runs" "round 1 adds 5 runs"
like "$out" "round 2: publishable" "round 2 is publishable"
like "$out" "publishable after 2 rounds" "and the loop stops there"
like "$out" "loop: 2 rounds, 25 runs done" "it says what the loop spent"
is "$(executions "$T/sa")" "2:5 4:5 6:10 8:5 " "only the noisy point ran again"

# persistent noise at n=6 (+0, 20, 40, 60, 80% in turn): more repetitions do not fix it
noisy_cfg "$T/b.cfg" b "$T/sb" "2, 4, 6, 8" 5
for k in $(seq 1 30); do echo "6 $k 0.$(( k % 5 * 2 ))"; done > "$T/sb/noise"
out=$("$PS" run "$T/b.cfg" --until publishable --rounds 1 --quiet 2>/dev/null); is $? 3 "--rounds 1: exit 3, still blocked"
like "$out" "stopped: rounds done: 1 round (--rounds)" "stops after its one round, and says why"
is "$(executions "$T/sb")" "2:5 4:5 6:5 8:5 " "without refining"
out=$("$PS" run "$T/b.cfg" --until publishable --rounds 5 --quiet 2>/dev/null); is $? 3 "--rounds 5: exit 3"
like "$out" "round 2: blocked" "round 2 still blocked at 10 repetitions"
like "$out" "stopped: findings no run can fix: 1 noise" "then no run can fix the finding (10 repetitions is the cap), and it says which"
like "$out" "     1         1         1            5" "the per-round table: round 1, 1 blocking flag, 1 finding, 5 runs added"
is "$(executions "$T/sb")" "2:5 4:5 6:10 8:5 " "n=6 got 5 more, once"

# persistent noise (+40, 80, 0% in turn) from 3 repetitions: round 1 adds 3, round 2 adds 4 (10 is
# the cap), and round 3, as blocked as round 1, has nothing left to run: the
# loop names the finding no run can fix rather than a lack of progress
noisy_cfg "$T/b3.cfg" b3 "$T/sb3" "2, 4, 6, 8" 3
for k in $(seq 1 30); do echo "6 $k 0.$(( k % 3 * 4 ))"; done > "$T/sb3/noise"
out=$("$PS" run "$T/b3.cfg" --until publishable --rounds 5 --quiet 2>/dev/null); is $? 3 "3 repetitions, --rounds 5: exit 3"
like "$out" "round 3: blocked" "round 3 still blocked at 10 repetitions"
like "$out" "stopped: findings no run can fix: 1 noise" "stops because no run can fix it, not for no progress"
is "$(executions "$T/sb3")" "2:3 4:3 6:10 8:3 " "n=6 got 3, then 4 more"

# the budget: the campaign has spent it all but 2%; the refinement does not fit
noisy_cfg "$T/c.cfg" c "$T/sc" "2, 4, 6, 8" 5
printf '6 2 0.2\n6 3 0.4\n6 4 0.6\n6 5 0.8\n' > "$T/sc/noise"
"$PS" run "$T/c.cfg" --quiet > /dev/null 2>&1
"$PS" status "$T/c.campaign" --json > "$T/c.json"
spent=$(json "$T/c.json" 'sprintf "%.9f", $j->{core_hours_spent} * 1.02')
printf 'budget = { core_hours = %s; };\ncost_model = "0.03";\n' "$spent" >> "$T/c.cfg"
out=$("$PS" run "$T/c.cfg" --until publishable --quiet 2>/dev/null); is $? 3 "a spent budget: exit 3"
like "$out" "round 1: blocked" "the verdict is printed"
like "$out" "stopped: budget spent: 1 proposal over the" "it stops: the proposal is over the budget"
is "$(executions "$T/sc")" "2:5 4:5 6:5 8:5 " "and runs nothing more"

out=$("$PS" run "$T/c.cfg" --until done 2>&1); is $? 2 "--until takes only publishable"
like "$out" "--until takes 'publishable', not 'done'" "naming the value"
out=$("$PS" run "$T/c.cfg" --until publishable --rounds 0 2>&1); is $? 2 "--rounds 0 is a usage error"
done_testing
