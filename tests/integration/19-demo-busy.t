#!/usr/bin/env bash
# check: alone (its busy loops would disturb the tests beside it: scripts/check-tests.sh)
# make demo on a busy machine (scripts/demo.sh): the machine's business is a
# finding, not a make error.  The test makes the machine busy itself, a busy
# loop bound to every core, and runs the demo script on a small campaign of
# the demo program (DEMO_CONFIG): every run shares its core, every run is
# disturbed and left out, `perfsweep model` has nothing to model (exit 2),
# and still the script prints the validity report, its verdict and a hint,
# and exits 0.  A real failure still fails it: a program that crashes.
. "$(dirname "$0")/../lib/tap.sh"

trap 'busy_stop; rm -rf "$T"' EXIT

cat > "$T/small.cfg" <<CFG
name = "small";
app = { command = [ "$DEMO", "-n", "{n}", "-i", "2", "-k", "stream" ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 64, 80, 96 ]; },
               { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 2;
order_seed = 5;
collect = { wall = false; regex = ( { region = "stream"; metric = "time"; pattern = "stream: ([0-9.eE+-]+) s"; } ); };
CFG
busy_every_core
DEMO_CONFIG=$T/small.cfg DEMO_DIR=$T/small.campaign DEMO_HTML=$T/small.html "$ROOT/scripts/demo.sh" > "$T/out" 2> "$T/err"; rc=$?
busy_stop
is "$rc" 0 "beside a busy loop on every core: exit 0"
[ "$rc" = 0 ] || diag < "$T/err"
out=$(cat "$T/out")
like "$out" "== validity report" "the validity report is printed"
like "$out" "disturbed: 6 of 6 runs" "it says every run was disturbed"
like "$out" "verdict: blocked" "and its verdict"
like "$out" "hint: other programs shared the demo's cores; " "and a one-line hint"
like "$out" "(no models: every run was disturbed by other programs" "no models, said instead of failing"
like "$(cat "$T/err")" "no measurements to model in" "model's own message stays on stderr"

# a real failure still fails: a program that crashes in every run
sed "s|command = \[ \"$DEMO\"|command = [ \"/bin/sh\", \"-c\", \"kill -SEGV \$\$\", \"$DEMO\"|" "$T/small.cfg" > "$T/crash.cfg"
grep -q 'kill -SEGV' "$T/crash.cfg"; ok $? "(a config whose program crashes)"
DEMO_CONFIG=$T/crash.cfg DEMO_DIR=$T/crash.campaign DEMO_HTML=$T/crash.html "$ROOT/scripts/demo.sh" > "$T/out2" 2> "$T/err2"; rc=$?
is "$rc" 1 "runs that crash: exit 1"
like "$(cat "$T/err2")" "demo: runs failed" "saying why"
done_testing
