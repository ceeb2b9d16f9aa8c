#!/bin/bash
# perfsweep-bind on this machine: real bindings per local rank, checked
# against the affinity the child itself sees, the rank-<r>.json records,
# exit status forwarding, signals, and the error cases.
. "$(dirname "$0")/../lib/tap.sh"
BIND=$BIN/perfsweep-bind
# a field of a rank record
field() { json "$1" "\$j->{$2}"; }
# the PU list the child saw
allowed() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$1"; }
clean_env() {
	unset PERFSWEEP_LOCAL_RANK PERFSWEEP_RANK PERFSWEEP_RANKS_PER_NODE PERFSWEEP_RUN_DIR PERFSWEEP_MAP \
	      OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_LOCAL_SIZE MPI_LOCALRANKID \
	      MPI_LOCALNRANKS PMI_RANK SLURM_LOCALID SLURM_PROCID SLURM_NTASKS_PER_NODE \
	      SLURM_TASKS_PER_NODE SLURM_NODEID SLURMD_NODENAME HWLOC_XMLFILE HWLOC_SYNTHETIC HWLOC_THISSYSTEM
}
clean_env
CORES=$("$PS" topo | sed -n 's/^cores: *//p')
if [ ! -x "$BIND" ] || [ -z "$CORES" ] || [ "$CORES" -lt 2 ]; then
	echo "1..0 # SKIP needs bin/perfsweep-bind and a machine with 2 cores (found '${CORES}')"
	exit 0
fi

# --- two local ranks as the local backend starts them, concurrently
mkdir "$T/run"
for r in 0 1; do
	PERFSWEEP_LOCAL_RANK=$r PERFSWEEP_RANK=$r PERFSWEEP_RANKS_PER_NODE=2 PERFSWEEP_RUN_DIR=$T/run \
		"$BIND" --policy compact --ranks-per-node 2 -- grep Cpus_allowed_list /proc/self/status \
		>"$T/run/rank-$r.stdout" 2>"$T/run/rank-$r.stderr" &
	eval "pid$r=\$!"
done
wait "$pid0"; ok $? "rank 0 exits 0"
wait "$pid1"; ok $? "rank 1 exits 0"
for r in 0 1; do
	test -s "$T/run/rank-$r.json"; ok $? "rank-$r.json written in PERFSWEEP_RUN_DIR"
	is "$(field "$T/run/rank-$r.json" cpuset)" "$(allowed "$T/run/rank-$r.stdout")" \
		"rank $r: recorded cpuset is what the child saw"
	is "$(field "$T/run/rank-$r.json" local_rank)" "$r" "rank $r: local_rank recorded"
	is "$(field "$T/run/rank-$r.json" policy)" "compact" "rank $r: policy recorded"
	is "$(field "$T/run/rank-$r.json" exit_status)" "0" "rank $r: exit_status recorded"
	is "$(field "$T/run/rank-$r.json" node)" "$(hostname)" "rank $r: node is the host name"
	field "$T/run/rank-$r.json" wall | grep -Eq '^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
	ok $? "rank $r: wall is a number"
	is "$(cat "$T/run/rank-$r.stderr")" "" "rank $r: nothing on stderr"
done
c0=$(field "$T/run/rank-0.json" cpuset) c1=$(field "$T/run/rank-1.json" cpuset)
test -n "$c0" && test -n "$c1" && test "$c0" != "$c1"
ok $? "the two ranks are bound to different PUs ('$c0' and '$c1')"
is "$(field "$T/run/rank-0.json" cores)" "0" "compact: rank 0 on core 0"
is "$(field "$T/run/rank-1.json" cores)" "1" "compact: rank 1 on core 1"

# --- as srun --cpu-bind=none starts it: SLURM variables, ranks per node from SLURM_TASKS_PER_NODE
mkdir "$T/slurm"
(cd "$T/slurm" && SLURM_LOCALID=1 SLURM_PROCID=3 SLURM_NODEID=1 SLURM_TASKS_PER_NODE='2(x2)' \
	SLURMD_NODENAME=n2 "$BIND" --policy spread -- grep Cpus_allowed_list /proc/self/status >out)
ok $? "under SLURM variables: exits 0"
test -s "$T/slurm/rank-3.json"; ok $? "rank-3.json from SLURM_PROCID, in the working directory"
is "$(field "$T/slurm/rank-3.json" node)" "n2" "node from SLURMD_NODENAME"
is "$(field "$T/slurm/rank-3.json" ranks_per_node)" "2" "ranks per node from SLURM_TASKS_PER_NODE"
is "$(field "$T/slurm/rank-3.json" cpuset)" "$(allowed "$T/slurm/out")" "spread rank 1: cpuset as seen by the child"
test "$(field "$T/slurm/rank-3.json" cpuset)" = "$c1"; ok $? "spread rank 1 on one core of 2 is core 1's PUs"

# --- explicit map: rank 0 on core 1, rank 1 on core 0
printf '# swapped\n1\n0\n' >"$T/swap.map"
mkdir "$T/map"
PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T/map "$BIND" --map "$T/swap.map" -- grep Cpus_allowed_list /proc/self/status >"$T/map/out"
ok $? "explicit map: exits 0"
is "$(field "$T/map/rank-0.json" cpuset)" "$c1" "explicit: rank 0 gets core 1's PUs"
is "$(allowed "$T/map/out")" "$c1" "explicit: the child runs there"
is "$(field "$T/map/rank-0.json" policy)" "explicit" "explicit policy recorded"

# --- exit status and signals are forwarded
PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T/run "$BIND" -r 1 -- sh -c 'exit 7'
is "$?" "7" "exit status 7 forwarded"
is "$(field "$T/run/rank-0.json" exit_status)" "7" "exit status 7 recorded"
PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T/run "$BIND" -r 1 -- sh -c 'kill -TERM $$'
is "$?" "143" "child killed by SIGTERM: 128+15"
is "$(field "$T/run/rank-0.json" signal)" "15" "signal recorded"
# SIGTERM sent to the launcher reaches the application
rm -f "$T/started"
PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T/run "$BIND" -r 1 -- \
	sh -c 'trap "exit 42" TERM; touch "$0"; while :; do sleep 0.05; done' "$T/started" &
lp=$!
for i in $(seq 200); do [ -e "$T/started" ] && break; sleep 0.05; done
kill -TERM "$lp"
wait "$lp"
is "$?" "42" "SIGTERM to perfsweep-bind is forwarded; the app's exit status comes back"
is "$(field "$T/run/rank-0.json" exit_status)" "42" "and is recorded"

# a signal to perfsweep-bind's process group (how the local backend stops a
# run) reaches the application, whose exit status comes back (exactly-once
# delivery is by design but not observable: pending signals coalesce)
rm -f "$T/started" "$T/terms"
PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T/run setsid "$BIND" -r 1 -- \
	sh -c 'trap "echo t >>\"\$1\"" TERM; touch "$0"; while [ ! -s "$1" ]; do sleep 0.05; done; sleep 0.5; exit $(wc -l <"$1")' \
	"$T/started" "$T/terms" &
lp=$!
for i in $(seq 200); do [ -e "$T/started" ] && break; sleep 0.05; done
kill -TERM -- "-$lp"
wait "$lp"
is "$?" "1" "SIGTERM to the launcher's process group reaches the app; its status comes back"
# inside a SLURM step, signals from the parent (slurmstepd, which signals
# every process of the step itself) are not forwarded, others are.  The app
# dies of SIGUSR1 if it gets it, else waits for "go" and exits 0.
usr1_case() { # description expected-status SLURM_STEP_ID-or-empty sender(parent|other)
	rm -f "$T/started" "$T/go"
	env ${3:+SLURM_STEP_ID=$3} PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T/run "$BIND" -r 1 -- \
		sh -c 'touch "$0"; while [ ! -e "$1" ]; do sleep 0.05; done' "$T/started" "$T/go" &
	local lp=$!
	for i in $(seq 200); do [ -e "$T/started" ] && break; sleep 0.05; done
	if [ "$4" = parent ]; then kill -USR1 "$lp"; else sh -c "kill -USR1 $lp"; fi
	sleep 1   # time for a forwarded signal to arrive before the app is told to finish
	touch "$T/go"
	{ wait "$lp"; } 2>/dev/null
	is "$?" "$2" "$1"
	is "$(field "$T/run/rank-0.json" exit_status)" "$2" "$1: recorded"
}
usr1_case "SLURM step: slurmstepd's (the parent's) signal is not forwarded; perfsweep-bind survives" 0 0 parent
usr1_case "SLURM step: another process's signal is forwarded" 138 0 other
usr1_case "outside SLURM: the parent's signal is forwarded" 138 "" parent

# --- errors: exit 2, one line, the application never runs
err_case() { # name expected-message-part args...
	local name=$1 want=$2; shift 2
	rm -f "$T/ran"
	"$@" >"$T/err.out" 2>"$T/err.txt"
	is "$?" "2" "$name: exit 2"
	grep -qF -- "$want" "$T/err.txt"; ok $? "$name: says '$want'"
	test ! -e "$T/ran"; ok $? "$name: the application did not run"
}
APP=(touch "$T/ran")
mkdir "$T/err"
export PERFSWEEP_RUN_DIR=$T/err
err_case "more ranks than cores" "$((CORES + 1)) ranks need $((CORES + 1)) cores, but the topology has $CORES usable cores" \
	env PERFSWEEP_LOCAL_RANK=0 "$BIND" --policy compact --ranks-per-node $((CORES + 1)) -- "${APP[@]}"
is "$(wc -l <"$T/err.txt")" "1" "more ranks than cores: a one-line message"
is "$(field "$T/err/rank-0.json" exit_status)" "2" "the failed rank still leaves a record with exit_status 2"
grep -q '"error": "[0-9]* ranks need' "$T/err/rank-0.json"; ok $? "and the reason in 'error'"
err_case "local rank beyond ranks per node" "local rank 2 (PERFSWEEP_LOCAL_RANK) is not below the 2 ranks per node" \
	env PERFSWEEP_LOCAL_RANK=2 "$BIND" --ranks-per-node 2 -- "${APP[@]}"
err_case "no local rank" "no local rank: set PERFSWEEP_LOCAL_RANK" "$BIND" -r 1 -- "${APP[@]}"
printf '0-1\n1\n' >"$T/overlap.map"
err_case "overlapping map" "the core sets of ranks 0 and 1 overlap at core 1" \
	env PERFSWEEP_LOCAL_RANK=0 "$BIND" --map "$T/overlap.map" -- "${APP[@]}"
printf '0\n%d\n' "$CORES" >"$T/missing.map"
err_case "map naming a missing core" "names core $CORES, which does not exist" \
	env PERFSWEEP_LOCAL_RANK=0 "$BIND" --map "$T/missing.map" -- "${APP[@]}"
printf '0\nzero\n' >"$T/bad.map"
err_case "unparsable map" "$T/bad.map:2: invalid core set 'zero'" \
	env PERFSWEEP_LOCAL_RANK=0 "$BIND" --map "$T/bad.map" -- "${APP[@]}"
err_case "cores per rank with a map" "--cores-per-rank does not apply to an explicit map" \
	env PERFSWEEP_LOCAL_RANK=0 "$BIND" --map "$T/swap.map" --cores-per-rank 2 -- "${APP[@]}"
err_case "unknown policy" "unknown placement policy 'packed'" \
	env PERFSWEEP_LOCAL_RANK=0 "$BIND" --policy packed -r 1 -- "${APP[@]}"
err_case "unwritable run dir" "cannot write to run directory '$T/none'" \
	env PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T/none "$BIND" -r 1 -- "${APP[@]}"
err_case "synthetic topology in the environment" "hwloc's topology is not this machine's" \
	env PERFSWEEP_LOCAL_RANK=0 HWLOC_SYNTHETIC="pack:1 core:2 pu:1" "$BIND" -r 1 -- "${APP[@]}"
# a binding the kernel cannot apply: hwloc told (via an XML claiming to be this
# system) that there are 36 PUs; binding to PUs this machine lacks must fail
if command -v lstopo-no-graphics >/dev/null; then
	lstopo-no-graphics --input "pack:2 numa:1 core:18 pu:1" --of xml >"$T/big.xml" 2>/dev/null
	err_case "binding to PUs that do not exist" "cannot bind to PUs 20" \
		env PERFSWEEP_LOCAL_RANK=20 HWLOC_XMLFILE="$T/big.xml" HWLOC_THISSYSTEM=1 "$BIND" -r 36 -- "${APP[@]}"
	err_case "binding that only partly takes" "binding to PUs 0-2 did not take: the process is bound to PUs" \
		env PERFSWEEP_LOCAL_RANK=0 HWLOC_XMLFILE="$T/big.xml" HWLOC_THISSYSTEM=1 "$BIND" -r 12 --cores-per-rank 3 -- "${APP[@]}"
fi
unset PERFSWEEP_RUN_DIR
PERFSWEEP_LOCAL_RANK=0 PERFSWEEP_RUN_DIR=$T/run "$BIND" -r 1 -- "$T/no-such-app" 2>"$T/err.txt"
is "$?" "127" "missing application: 127"
grep -qF "cannot run '$T/no-such-app': No such file or directory" "$T/err.txt"; ok $? "missing application: message"
is "$(field "$T/run/rank-0.json" exit_status)" "127" "missing application: recorded 127"

done_testing
