#!/usr/bin/env bash
# check: alone (its busy loops would disturb the tests beside it: scripts/check-tests.sh)
# The local backend's quiet gate (run --wait-quiet, backend.wait_quiet):
# before a run starts it waits until other programs leave its cores alone,
# at most for its bound.  The truth is a busy loop this test binds to the
# core the run will get (the first core: one run at a time takes the lowest
# free one), in a session of its own, at a higher priority.  Load cannot
# flip the checks: a run never starts before a busy loop on its core has
# ended, and a gate whose loop outlives the bound starts the run after the
# bound, saying so and naming who was there.
. "$(dirname "$0")/../lib/tap.sh"

trap 'for p in $LOOPS; do kill "$p" 2> /dev/null; done; rm -rf "$T"' EXIT
cpu=$(hwloc-calc --physical-output --intersect PU core:0 2> /dev/null | cut -d, -f1)
[ -n "$cpu" ] || cpu=0
# loop SECONDS: a busy loop of its own name that ends by itself
# busyloop SECONDS READY-FILE: it creates READY-FILE once it runs, and
# READY-FILE.end with the time its loop ended
printf '#!/bin/bash\n: > "$2"\nwhile [ $SECONDS -lt $1 ]; do :; done\necho "$EPOCHREALTIME" > "$2.end"\n' > "$T/busyloop"
chmod +x "$T/busyloop"
# (long enough to be judged, 0.1 s, on a fast core too)
cat > "$T/g.cfg" <<CFG
name = "g";
app = { command = [ "$DEMO", "-n", "56", "-i", "6", "-k", "stream" ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 1 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 1;
collect = { wall = true; };
CFG

# 1. a busy loop that ends after 3 s: the run waits for it
rm -f "$T/ready"
setsid nice -n -10 taskset -c "$cpu" "$T/busyloop" 3 "$T/ready" 2> /dev/null &
loop=$!; LOOPS="$loop"
# the campaign starts once the loop runs: a loaded machine may start it late
while [ ! -e "$T/ready" ]; do sleep 0.01; done
"$PS" run "$T/g.cfg" --dir "$T/a.campaign" --wait-quiet 15 --quiet > "$T/a.out" 2>&1 &
runpid=$!
wait "$loop"
ended=$(cat "$T/ready.end")   # when the loop ended, not when this shell saw it (late on a loaded machine)
wait "$runpid"; is $? 0 "the campaign runs with --wait-quiet 15"
# when the program started (its end note), and the store's started_at: both
# after the gate's wait (the store's was taken before it, 1.97 s into a 2.02 s wait);
# the store's is taken as the program is being exec'd, at most moments before
started=$(json "$(ls "$T"/a.campaign/runs/*/local.end)" '$j->{started}')
awk -v s="$started" -v e="$ended" 'BEGIN { exit !(s >= e - 0.05) }'
ok $? "the run started after the busy loop on its core ended ($started, $ended)"
stored=$(sqlite3 "$T/a.campaign/campaign.db" 'SELECT started_at FROM runs')
awk -v s="$stored" -v p="$started" 'BEGIN { exit !(s >= p - 0.05) }'
ok $? "the store's start is the program's, not before the gate's wait ($stored, $started)"
"$PS" status "$T/a.campaign" --json > "$T/a.json"
is "$(json "$T/a.json" '$j->{resources}{quiet_wait_runs} . " " . scalar(@{$j->{resources}{quiet_waits}}) . " " . $j->{resources}{quiet_waits}[0]{run}')" \
   "1 1 1" "status --json: one run waited, run 1"
awk -v w="$(json "$T/a.json" '$j->{resources}{quiet_wait_s}')" 'BEGIN { exit !(w >= 2) }'
ok $? "status --json: for about as long as the loop had left"
like "$("$PS" status "$T/a.campaign")" "quiet gate: 1 run waited for quiet cores, " "status says so"

# 2. a busy loop that outlives the bound: the gate gives up after 2 s and says who was there
rm -f "$T/ready"
setsid nice -n -10 taskset -c "$cpu" "$T/busyloop" 60 "$T/ready" 2> /dev/null &
loop=$!; LOOPS="$loop"
while [ ! -e "$T/ready" ]; do sleep 0.01; done
t0=$(date +%s.%N)
"$PS" run "$T/g.cfg" --dir "$T/b.campaign" --wait-quiet 2 --quiet > "$T/b.out" 2>&1
is $? 0 "the campaign runs with --wait-quiet 2"
kill "$loop"
started=$(json "$(ls "$T"/b.campaign/runs/*/local.end)" '$j->{started}')
awk -v s="$started" -v t="$t0" 'BEGIN { exit !(s - t >= 2) }'
ok $? "the run started after the bound"
stored=$(sqlite3 "$T/b.campaign/campaign.db" 'SELECT started_at FROM runs')
awk -v s="$stored" -v p="$started" 'BEGIN { exit !(s >= p - 0.05) }'
ok $? "the store's start is the program's ($stored, $started)"
"$PS" status "$T/b.campaign" --json > "$T/b.json"
awk -v w="$(json "$T/b.json" '$j->{resources}{quiet_wait_max_s}')" 'BEGIN { exit !(w >= 2 && w < 10) }'
ok $? "it waited the bound, not much more"
note=$(ls "$T"/b.campaign/runs/*/local.end)
is "$(json "$note" '$j->{census}{quiet_gave_up} ? "gave up" : "quiet"')" "gave up" "the run's end note's census says the gate gave up"
like "$(json "$note" '$j->{census}{quiet_cause}')" " on core $cpu" "and who was on its core"
"$PS" validate "$T/b.campaign" --json > "$T/v.json"
is "$(json "$T/v.json" "scalar grep { \$_->{pid} == $loop && \$_->{command} eq 'busyloop' } map { @{\$_->{causes}} } @{\$j->{disturbed}{runs}}")" 1 \
   "the run beside the busy loop is disturbed and names it"

# 3. bad values
"$PS" run "$T/g.cfg" --dir "$T/c.campaign" --wait-quiet -1 > /dev/null 2> "$T/c.err"
is $? 2 "--wait-quiet -1: a usage error"
sed 's/^app = .*$/&\nbackend = { type = "local"; wait_quiet = "long"; };/' "$T/g.cfg" > "$T/bad.cfg"
"$PS" run "$T/bad.cfg" --dir "$T/d.campaign" > /dev/null 2> "$T/d.err"
like "$(cat "$T/d.err")" "bad.cfg:3: " "backend.wait_quiet of the wrong type: FILE:LINE"
done_testing
