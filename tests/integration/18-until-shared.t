#!/usr/bin/env bash
# check: alone (its busy loops would disturb the tests beside it: scripts/check-tests.sh)
# run --until publishable stops paying for a busy machine (docs/refine.md,
# "A shared machine").  The test makes the machine busy itself: a busy loop
# bound to every core for the whole campaign, so every run shares its core
# with one (at most about half of it, whatever else runs here).  The sweep
# is disturbed, the verdict says the machine was shared, and refine's runs
# are cut to a probe of the cheapest disturbed runs; they come back
# disturbed too, and the loop stops after round 2 with "the machine is
# shared", naming the load, with nothing more written or run.
. "$(dirname "$0")/../lib/tap.sh"

trap 'busy_stop; rm -rf "$T"' EXIT
busy_every_core

cat > "$T/s.cfg" <<CFG
name = "shared";
app = { command = [ "$DEMO", "-n", "{n}", "-i", "2", "-k", "stream" ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 64, 80, 96 ]; },
               { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 3;
order_seed = 11;
collect = { wall = false; regex = ( { region = "stream"; metric = "time"; pattern = "stream: ([0-9.eE+-]+) s"; } ); };
CFG
D=$T/shared.campaign
out=$("$PS" run "$T/s.cfg" --until publishable --rounds 5 --quiet 2> "$T/err"); rc=$?
echo "$out" | sed 's/^/# /'
is "$rc" 3 "exit 3: not publishable"
like "$out" "round 1: the machine was shared: a probe first" "round 1: a shared machine, refine's runs cut to a probe"
like "$out" "stopped: the machine is shared: " "the loop stops: the machine is shared"
like "$out" "loop: 2 rounds," "after round 2"
like "$(echo "$out" | grep '^stopped:')" "reruns of disturbed runs were disturbed again" "saying how many reruns"
# the load, named as far as the disturbed check names it: the processes that took the reruns'
# time ("pid 4242 (sh) ran on core 0 for 51% of the run"; what else runs here may outrank the
# test's own busy loops), or, without the census, each rerun's rank and share
echo "$out" | grep '^stopped:' | grep -Eq 'ran on core [0-9]+ for [0-9]+% of the run|rank 0 CPU share'
ok $? "and names the load"
like "$(echo "$out" | grep '^stopped:')" "nothing more is measured" "and that nothing more is measured"

# nothing more written or run: the sweep and the probe, all done
"$PS" status "$D" --json > "$T/st.json"
is "$(json "$T/st.json" '"$j->{pending} $j->{running} $j->{submitted} $j->{failed}"')" "0 0 0 0" "no run left pending"
refine=$(sqlite3 "$D/campaign.db" "SELECT COUNT(*) FROM runs WHERE origin = 'refine'")
probe=$(echo "$out" | sed -n 's/^round 1: refine added \([0-9]*\) runs.*/\1/p')
is "$refine" "$probe" "the store has the probe's runs and no others ($probe)"
ok $([ "$refine" -ge 2 ] && [ "$refine" -le 4 ]; echo $?) "a probe of 2 to 4 of the 9 runs"
is "$(sqlite3 "$D/campaign.db" "SELECT COUNT(*) FROM runs WHERE origin = 'refine' AND remeasure > 0")" "$refine" \
   "every one a new attempt of a disturbed repetition"
# what the loop spent over the sweep: the probe's measured wall time against the sweep's
extra=$(sqlite3 "$D/campaign.db" "SELECT printf('%.0f', 100.0 * SUM(CASE WHEN origin = 'refine' THEN wall END) /
	SUM(CASE WHEN origin IS NULL THEN wall END)) FROM runs")
echo "# the probe cost $extra% of the sweep's wall time"
ok $([ "$extra" -le 30 ]; echo $?) "at most 30% over the sweep ($extra%)"
done_testing
