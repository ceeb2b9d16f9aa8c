#!/usr/bin/env bash
# A local MPI world's shared memory (Open MPI's vader segments, 4 MB a
# rank, in /dev/shm) and session files do not outlive the world: not on
# perfsweep cancel (mpirun is killed by SIGKILL), not when the world's
# supervisor is killed by SIGKILL (the orchestrator sweeps what it left),
# not when the orchestrator dies with it (the next one sweeps).  The
# segments are named from the running ranks' memory maps, so only this
# world's are looked at (other worlds may run on this machine).
. "$(dirname "$0")/../lib/tap.sh"

MS=$BIN/mpi-stream
if ! command -v mpirun > /dev/null || [ ! -x "$MS" ] || [ ! -d /dev/shm ]; then
	echo "1..0 # SKIP needs Open MPI (mpirun), bin/mpi-stream and /dev/shm"
	exit 0
fi
ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)
if [ "$ncores" -lt 2 ]; then echo "1..0 # SKIP needs at least 2 cores"; exit 0; fi
MARK=$((525252 + $$ % 1000))

cat > "$T/w.cfg" <<CFG
name = "w";
app = { command = [ "/bin/sh", "-c", "exec '$MS' -a $MARK -s \$(cat '$T/secs')" ]; timeout = 300.0; };
parameters = ( { name = "np"; values = [ 2 ]; role = "ranks"; } );
placement = { ranks_per_node = [ 2 ]; policy = "compact"; };
repetitions = 1;
max_attempts = 1;
backend = { type = "local"; mpi = "openmpi"; };
CFG
echo 120 > "$T/secs"
ranks() { pgrep -f -- "$MS -a $MARK"; }
# the shared memory segments the world's ranks have mapped, once both map them (60 s at most)
segments() {
	local s=""
	for _ in $(seq 600); do
		s=$(for p in $(ranks); do awk '$6 ~ /vader_segment|\/dev\/shm\// { print $6 }' "/proc/$p/maps" 2> /dev/null; done | sort -u)
		[ "$(printf '%s\n' "$s" | grep -c vader_segment)" -ge 2 ] && break
		sleep 0.1
	done
	printf '%s\n' "$s" | grep vader_segment
}
gone() {   # gone FILE...: 0 once none of them exists (30 s at most)
	for _ in $(seq 300); do
		local left=0
		for f in "$@"; do [ -e "$f" ] && left=1; done
		[ $left = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
quiet() { for _ in $(seq 300); do [ -z "$(ranks)" ] && return 0; sleep 0.1; done; return 1; }
supervisor() { json "$T/$1/runs/1/local.start" '$j->{supervisor}' | cut -d: -f1; }

# 1. perfsweep cancel
"$PS" run "$T/w.cfg" --dir "$T/c" > "$T/out" 2>&1 &
bg=$!
seg=$(segments)
is "$(printf '%s\n' "$seg" | grep -c .)" 2 "cancel: the world's two ranks map their segments"
"$PS" cancel "$T/c" > /dev/null 2>&1; is $? 0 "cancel: perfsweep cancel"
wait $bg
quiet; ok $? "cancel: the world has ended"
# shellcheck disable=SC2086
gone $seg; ok $? "cancel: its segments are gone"

# 2. the supervisor killed by SIGKILL while the orchestrator runs
"$PS" run "$T/w.cfg" --dir "$T/k" > "$T/out" 2>&1 &
bg=$!
seg=$(segments)
is "$(printf '%s\n' "$seg" | grep -c .)" 2 "kill: the world's two ranks map their segments"
echo 0 > "$T/secs"   # the run's next attempt ends at once
kill -9 "$(supervisor k)"
wait $bg; is $? 0 "kill: the run ends, done at its next attempt"
like "$(cat "$T/out")" "run 1: rerun: killed mid-way: its supervisor was killed by signal 9" "kill: after the killed one"
quiet; ok $? "kill: the world has ended with its supervisor"
# shellcheck disable=SC2086
gone $seg; ok $? "kill: its segments are gone"

# 3. the orchestrator and the supervisor killed: the next run sweeps
echo 120 > "$T/secs"
"$PS" run "$T/w.cfg" --dir "$T/o" > "$T/out" 2>&1 &
bg=$!
seg=$(segments)
is "$(printf '%s\n' "$seg" | grep -c .)" 2 "both: the world's two ranks map their segments"
sv=$(supervisor o)
kill -9 $bg "$sv"; wait $bg 2> /dev/null
quiet; ok $? "both: the world has ended"
echo 0 > "$T/secs"
"$PS" run "$T/w.cfg" --dir "$T/o" > "$T/out" 2>&1; is $? 0 "both: the next run completes the campaign"
# shellcheck disable=SC2086
gone $seg; ok $? "both: the killed world's segments are gone"
ok $(ls -d /dev/shm/perfsweep-world."$sv".* > /dev/null 2>&1; [ $? != 0 ]; echo $?) "both: and its directory"

done_testing
