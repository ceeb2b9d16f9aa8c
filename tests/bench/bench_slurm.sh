#!/usr/bin/env bash
# SLURM submission throughput: the backend through libslurm against a loop
# of sbatch processes on the same private cluster (tests/slurm/cluster.sh),
# and the orchestrator's CPU time per run.  Timings only, never a test.
#   tests/bench/bench_slurm.sh [RUNS] [SBATCH_RUNS]    (default 200, 50)
root=${PERFSWEEP_ROOT:-$(pwd)}
bindir=${PERFSWEEP_BIN:-$root/bin}
if [ -n "${PERFSWEEP_BUILD:-}" ]; then
	build=$PERFSWEEP_BUILD
elif [ "$(basename "$bindir")" = bin ] && [ "$(cd "$bindir/.." 2>/dev/null && pwd)" != "$(cd "$root" && pwd)" ]; then
	build=$(cd "$bindir/.." && pwd)
else
	build=$root/build
fi
n=${1:-200}
m=${2:-50}
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v sbatch >/dev/null; then
	echo "bench_slurm.sh: skipped (needs root and SLURM)"
	exit 0
fi
[ -x "$build/bench/bench_slurm" ] || { echo "bench_slurm.sh: build $build/bench/bench_slurm first (make bench)" >&2; exit 1; }
work=$(mktemp -d /tmp/perfsweep-bench-XXXXXX)
trap '"$root/tests/slurm/cluster.sh" stop "$work/cluster" >/dev/null 2>&1; rm -rf "$work"' EXIT
"$root/tests/slurm/cluster.sh" start "$work/cluster" || exit 1
export SLURM_CONF=$work/cluster/slurm.conf PERFSWEEP_TEST_CLUSTER=$work/cluster

drain() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ -z "$(squeue -h -o %i)" ] && return 0
		sleep 0.2
	done
	echo "bench_slurm.sh: queue does not drain" >&2
	return 1
}

t0=$(date +%s.%N)
for ((i = 0; i < m; i++)); do
	sbatch -Q -p emu -o /dev/null -J "sbatch-$i" --wrap true || exit 1
done
t1=$(date +%s.%N)
sb_ms=$(echo "($t1 - $t0) * 1000 / $m" | bc -l)
printf 'sbatch:   %d submissions in %.3f s = %.2f ms per job\n' "$m" "$(echo "$t1 - $t0" | bc -l)" "$sb_ms"
drain || exit 1

out=$("$build/bench/bench_slurm" "$n") || { echo "$out"; exit 1; }
echo "$out" | grep -v '^[a-z_]*='
lib_ms=$(echo "$out" | sed -n 's/^submit_ms_per_job=//p')
printf 'speed-up: %.1fx per submission (libslurm backend vs sbatch; goal >= 20x)\n' "$(echo "$sb_ms / $lib_ms" | bc -l)"
