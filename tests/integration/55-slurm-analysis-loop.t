#!/usr/bin/env bash
# check: alone (its busy loops would disturb the tests beside it: scripts/check-tests.sh)
# Issue 41's loop and analysis edits on the SLURM backend (the private
# cluster's partition "real": this machine's topology), as on the local one
# (17-analysis-edit.t, 18-until-shared.t):
#   1. an edited analysis section is applied without measuring again, and
#      said; validate judges with it; run DIR takes the new config;
#   2. run --until publishable beside a busy loop on every core (the test
#      makes the machine busy itself): every run shares its core, the
#      verdict says the machine was shared, refine measures a probe of the
#      disturbed runs again, they come back disturbed, and the loop stops
#      after round 2 with "the machine is shared", nothing more submitted.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init
trap 'busy_stop; slurm_test_cleanup' EXIT
demo=$bindir/demo-app

# config FILE NAME ANALYSIS
config() {
	cat >"$1" <<CFG
name = "$2";
app = { command = [ "$demo", "-n", "{n}", "-i", "2", "-k", "stream" ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 64, 80, 96 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 2;
order_seed = 9;
backend = { type = "slurm"; partition = "real"; max_inflight = 1; time_limit = 5; };
$3
collect = { wall = false; regex = ( { region = "stream"; metric = "time"; pattern = "stream: ([0-9.eE+-]+) s"; } ); };
CFG
}
json_field() { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); print eval($ARGV[0]) // "", "\n"' "$1"; }

# 1. an analysis edit
config "$work/a.cfg" edit ""
"$perfsweep" run "$work/a.cfg" --dir "$work/edit" --quiet >"$work/a.out" 2>&1
rc=$?
is "$rc" 0 "the campaign runs on SLURM"
[ $rc = 0 ] || diag < "$work/a.out"
is "$("$perfsweep" validate "$work/edit" --json | json_field '$j->{disturbed}{min_cpu_share}')" 0.9 "judged with 0.9"
config "$work/b.cfg" edit 'analysis = { min_cpu_share = 0.0; };'
"$perfsweep" run "$work/b.cfg" --dir "$work/edit" >"$work/b.out" 2>"$work/b.err"
is "$?" 0 "the edited config: exit 0"
like "$(cat "$work/b.err")" "analysis settings changed: min_cpu_share 0.9 -> 0; no run is measured again" "said"
is "$(status_field "$work/edit" done)" 6 "nothing more submitted"
is "$("$perfsweep" validate "$work/edit" --json | json_field '$j->{disturbed}{min_cpu_share}')" 0 "validate judges with 0"
"$perfsweep" run "$work/edit" --quiet >"$work/dir.out" 2>&1
is "$?" 0 "run DIR takes the edited config"

# 2. the loop beside a busy loop on every core
busy_every_core
config "$work/s.cfg" shared ""
"$perfsweep" run "$work/s.cfg" --dir "$work/shared" --until publishable --rounds 5 --quiet >"$work/s.out" 2>"$work/s.err"
rc=$?
busy_stop
sed 's/^/# /' "$work/s.out"
is "$rc" 3 "the loop on a busy machine: exit 3"
out=$(cat "$work/s.out")
like "$out" "round 1: the machine was shared: a probe first" "round 1: a probe of the disturbed runs"
like "$out" "stopped: the machine is shared: " "stopped: the machine is shared"
like "$out" "loop: 2 rounds," "after round 2"
is "$(status_field "$work/shared" pending)" 0 "nothing left pending"
refine=$(sqlite3 "$work/shared/campaign.db" "SELECT COUNT(*) FROM runs WHERE origin = 'refine'")
[ "$refine" -ge 2 ] && [ "$refine" -le 4 ]
ok $? "only the probe was added ($refine runs)"
done_testing
