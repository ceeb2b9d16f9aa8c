#!/usr/bin/env bash
# Placement campaigns on a private SLURM cluster: ranks per node varied by the
# plan's placement axis must reach the jobs (nodes, --ntasks-per-node in the
# job records), and every rank's binding by perfsweep-bind must be recorded,
# on the emulated nodes and on the partition with this machine's topology.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"

# The placement axis comes from the planner (docs/designs.md); without it
# this build cannot express these campaigns.
probe=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-probe-XXXXXX")
cat >"$probe/p.cfg" <<'CFG'
name = "probe";
app = { command = [ "/bin/true" ]; };
parameters = ( { name = "p"; values = [ 2 ]; role = "ranks"; } );
placement = { ranks_per_node = [ 1, 2 ]; };
backend = { type = "slurm"; partition = "probe"; };
CFG
"${PERFSWEEP_BIN:-$root/bin}/perfsweep" plan "$probe/p.cfg" 2>&1 | grep -q "2 points"
probe_rc=$?
rm -rf "$probe"
if [ $probe_rc -ne 0 ]; then
	echo "1..0 # SKIP this build has no placement axis in plans"
	exit 0
fi
slurm_test_init

# campaign NAME PARTITION RANKS RANKS-PER-NODE
campaign() {
	cat >"$work/$1.cfg" <<CFG
name = "$1";
app = { command = [ "/bin/sh", "-c", "grep Cpus_allowed_list: /proc/self/status; echo time: 1" ]; };
parameters = ( { name = "p"; values = [ $3 ]; role = "ranks"; } );
placement = { ranks_per_node = [ $4 ]; policy = "compact"; attach = [ "all" ]; };
repetitions = 1;
backend = { type = "slurm"; partition = "$2"; max_inflight = 4; time_limit = 5; };
CFG
	"$perfsweep" run "$work/$1.cfg" --dir "$work/$1" --quiet >"$work/$1.out" 2>&1
}

# shape NAME: "tasks/nodes/tasks-per-node" of each of the campaign's jobs, sorted
shape() {
	scontrol -o show jobs | grep "JobName=ps:$1:" |
		sed 's/.* NumNodes=\([0-9]*\) .* NumTasks=\([0-9]*\) .* NtasksPerN:B:S:C=\([0-9]*\):.*/\2\/\1\/\3/' | sort | tr '\n' ' '
}

# records DIR: per run "node:local_rank:cpuset ..." from rank-*.json, checked against each rank's own view
records() { bind_records "$1" '^Cpus_allowed_list:\t'; }

# 1. Emulated 2x18-core nodes: 2 and 4 ranks at 1 and 2 ranks per node.
campaign emu emu "2, 4" "1, 2"
rc=$?
is "$rc" 0 "placement campaign on emu completes"
[ $rc = 0 ] || diag < "$work/emu.out"
is "$(status_field "$work/emu" done)" 4 "4 runs done"
is "$(shape emu)" "2/1/2 2/2/1 4/2/2 4/4/1 " "jobs: tasks/nodes/ntasks-per-node follow the placement"
rec=$(records "$work/emu")
note "emu bindings: $rec"
case "$rec" in *"RECORDS=12 BAD=0") r=0 ;; *) r=1 ;; esac
ok $r "all 12 ranks ran bound to the cpuset their records show"
is "$(echo "$rec" | tr ' ' '\n' | grep -c '^[nr]')" 4 "records for each of the 4 runs"
# With 1 rank per node every rank is local rank 0 on its own node.
one=$(echo "$rec" | tr ' ' '\n' | grep -c '^n[1-4]:0:[0-9]*,n[1-4]:0:[0-9]*,n[1-4]:0:[0-9]*,n[1-4]:0:[0-9]*$')
is "$one" 1 "4 ranks at 1 per node: 4 nodes, local rank 0 each"

# 2. The partition with this machine's topology: 2 ranks per node on r1-r2.
campaign real real "2, 4" "2"
rc=$?
is "$rc" 0 "placement campaign on real completes"
[ $rc = 0 ] || diag < "$work/real.out"
is "$(shape real)" "2/1/2 4/2/2 " "jobs: 2 ranks per node, 1 and 2 nodes"
rec=$(records "$work/real")
note "real bindings: $rec"
case "$rec" in *"RECORDS=6 BAD=0") r=0 ;; *) r=1 ;; esac
ok $r "all 6 ranks ran bound to the cpuset their records show"
# compact on a node: local ranks 0 and 1 on different cores, the same layout on r1 and r2
layout=$(echo "$rec" | tr ' ' '\n' | grep '^r1:0:.*r2:1:' | sed 's/r[12]://g')
c0=$(echo "$layout" | cut -d, -f1 | cut -d: -f2)
c1=$(echo "$layout" | cut -d, -f2 | cut -d: -f2)
[ -n "$c0" ] && [ -n "$c1" ] && [ "$c0" != "$c1" ] && [ "$layout" = "0:$c0,1:$c1,0:$c0,1:$c1" ]
ok $? "4 ranks on r1-r2: local ranks 0 and 1 on distinct cores, same on both nodes ($layout)"
# what every rank used reaches the store (SLURM ranks go through perfsweep-bind too)
is "$(sqlite3 "$work/real/campaign.db" 'SELECT COUNT(*) FROM resources WHERE rank >= 0 AND utime >= 0 AND stime >= 0 AND abs(cpu_share - (utime + stime) / wall) <= 1e-9 * (cpu_share + 1e-12) AND maxrss_kb > 0')" 6 \
   "a resource record for each of the 6 ranks, its CPU share its CPU time over its wall time"

done_testing
