#!/usr/bin/env bash
# Submitting N runs of one shape (default 1,000) on a private cluster:
# `perfsweep run` with job arrays (backend.arrays, the default) against a
# loop of N `sbatch` processes (held, so that they only queue).  Prints the
# seconds from start until every run is submitted (the store holds a job
# for each), and the controller's submit requests (sdiag, reset before
# each).  Targets: arrays >= 20x faster than the sbatch loop, <= 10 submit
# requests for 1,000 runs.  Timings only, never a test.
#   tests/bench/bench_slurm_arrays.sh [N]
root=${PERFSWEEP_ROOT:-$(pwd)}
bindir=${PERFSWEEP_BIN:-$root/bin}
n=${1:-1000}
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v sbatch >/dev/null; then
	echo "bench_slurm_arrays.sh: skipped (needs root and SLURM)"
	exit 0
fi
work=$(mktemp -d /tmp/perfsweep-bench-arrays-XXXXXX)
cluster=$work/cluster
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; "$root/tests/slurm/cluster.sh" stop "$cluster" >/dev/null 2>&1; rm -rf "$work"' EXIT
"$root/tests/slurm/cluster.sh" start "$cluster" >"$work/start.log" 2>&1 || { cat "$work/start.log"; exit 1; }
export SLURM_CONF=$cluster/slurm.conf
unset PERFSWEEP_SLURM_ARRAYS

submits() { sdiag | sed -n 's/^[[:space:]]*REQUEST_SUBMIT_BATCH_JOB[[:space:]]*([[:space:]]*[0-9]*)[[:space:]]*count:\([0-9]*\).*/\1/p' | grep . || echo 0; }
now() { date +%s.%N; }

# perfsweep with arrays: from `run` until the store has a job for every run
cat >"$work/arr.cfg" <<CFG
name = "arr";
app = { command = [ "/bin/true", "{i}" ]; };
parameters = ( { name = "i"; values = [ 1 ]; } );
repetitions = $n;
max_attempts = 1;
backend = { type = "slurm"; partition = "emu"; time_limit = 5; };
collect = { wall = false; };
CFG
sdiag -r >/dev/null
t0=$(now)
"$bindir/perfsweep" run "$work/arr.cfg" --dir "$work/arr" --quiet >"$work/arr.out" 2>&1 &
pid=$!
until [ "$(sqlite3 "$work/arr/campaign.db" 'SELECT count(*) FROM runs WHERE backend_id IS NOT NULL' 2>/dev/null)" = "$n" ]; do
	kill -0 "$pid" 2>/dev/null || { echo "perfsweep run ended early:"; cat "$work/arr.out"; exit 1; }
	sleep 0.05
done
t1=$(now)
arr_rpc=$(submits)
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
scancel --user=root >/dev/null 2>&1

# the sbatch loop: N held jobs
sdiag -r >/dev/null
t2=$(now)
for ((i = 1; i <= n; i++)); do
	sbatch -H -p emu -t 5 -o /dev/null -J "loop:$i" --wrap=true >/dev/null || exit 1
done
t3=$(now)
loop_rpc=$(submits)
scancel --user=root >/dev/null 2>&1

arr=$(echo "$t1 - $t0" | bc)
loop=$(echo "$t3 - $t2" | bc)
printf 'submitting %d runs: perfsweep with job arrays %.2f s (%s submit requests), sbatch loop %.2f s (%s submit requests): %.0fx faster\n' \
	"$n" "$arr" "$arr_rpc" "$loop" "$loop_rpc" "$(echo "$loop / $arr" | bc -l)"
