#!/usr/bin/env bash
# Submitting N runs of one shape (default 1,000) on a private cluster:
# `perfsweep run` with job arrays (backend.arrays, the default), and with
# arrays = false (one libslurm submission per run), against a loop of N
# `sbatch` processes (held, so that they only queue); max_inflight = N, so
# that nothing waits for a run to end.  Prints the
# seconds from start until every run is submitted (the store holds a job
# for each), and the controller's submit requests (sdiag, reset before
# each).  Targets: arrays >= 20x faster than the sbatch loop, <= 10 submit
# requests for 1,000 runs.  Timings only, never a test.
#   tests/bench/bench_slurm_arrays.sh [N]
root=${PERFSWEEP_ROOT:-$(pwd)}
bindir=${PERFSWEEP_BIN:-$root/bin}
. "$root/tests/slurm/true_campaign.sh"
n=${1:-1000}
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v sbatch >/dev/null; then
	echo "bench_slurm_arrays.sh: skipped (needs root and SLURM)"
	exit 0
fi
work=$(mktemp -d /tmp/perfsweep-bench-arrays-XXXXXX)
# the campaigns on tmpfs when there is one: making 1,000 run directories on
# a busy ext4 /tmp was seen to take 85% of the time in the kernel's inode
# allocator (perf: recently_deleted), which is not what is measured here
camps=$work
[ -d /dev/shm ] && [ -w /dev/shm ] && camps=$(mktemp -d /dev/shm/perfsweep-bench-arrays-XXXXXX)
cluster=$work/cluster
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; "$root/tests/slurm/cluster.sh" stop "$cluster" >/dev/null 2>&1; rm -rf "$work" "$camps"' EXIT
"$root/tests/slurm/cluster.sh" start "$cluster" >"$work/start.log" 2>&1 || { cat "$work/start.log"; exit 1; }
export SLURM_CONF=$cluster/slurm.conf
unset PERFSWEEP_SLURM_ARRAYS

submits() { sdiag | sed -n 's/^[[:space:]]*REQUEST_SUBMIT_BATCH_JOB[[:space:]]*([[:space:]]*[0-9]*)[[:space:]]*count:\([0-9]*\).*/\1/p' | grep . || echo 0; }
now() { date +%s.%N; }

# perfsweep_submit NAME ARRAYS: seconds from `perfsweep run` until the store
# has a job for every one of n runs, then the controller's submit requests
perfsweep_submit() {
	true_campaign_cfg "$work/$1.cfg" "$1" "$n" "partition = \"emu\"; time_limit = 5; max_inflight = $n; arrays = $2;"
	sdiag -r >/dev/null
	local t0 t1
	t0=$(now)
	"$bindir/perfsweep" run "$work/$1.cfg" --dir "$camps/$1" --quiet >"$work/$1.out" 2>&1 &
	pid=$!
	until [ "$(sqlite3 "$camps/$1/campaign.db" 'SELECT count(*) FROM runs WHERE backend_id IS NOT NULL' 2>/dev/null)" = "$n" ]; do
		kill -0 "$pid" 2>/dev/null || { echo "perfsweep run ended early:" >&2; cat "$work/$1.out" >&2; exit 1; }
		sleep 0.05
	done
	t1=$(now)
	echo "$(echo "$t1 - $t0" | bc) $(submits)"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
	scancel --user=root >/dev/null 2>&1
}
read -r arr arr_rpc <<<"$(perfsweep_submit arr true)"
read -r single single_rpc <<<"$(perfsweep_submit single false)"

# the sbatch loop: N held jobs
sdiag -r >/dev/null
t2=$(now)
for ((i = 1; i <= n; i++)); do
	sbatch -H -p emu -t 5 -o /dev/null -J "loop:$i" --wrap=true >/dev/null || exit 1
done
t3=$(now)
loop_rpc=$(submits)
scancel --user=root >/dev/null 2>&1

loop=$(echo "$t3 - $t2" | bc)
printf 'submitting %d runs (perfsweep: making their run directories and scripts in %s too):\n' "$n" "$camps"
printf '  perfsweep, job arrays:      %6.2f s, %5s submit requests\n' "$arr" "$arr_rpc"
printf '  perfsweep, arrays = false:  %6.2f s, %5s submit requests\n' "$single" "$single_rpc"
printf '  sbatch loop (held jobs):    %6.2f s, %5s submit requests\n' "$loop" "$loop_rpc"
printf '  arrays: %.1fx faster than the sbatch loop, %.1fx faster than one job per run\n' \
	"$(echo "$loop / $arr" | bc -l)" "$(echo "$single / $arr" | bc -l)"
