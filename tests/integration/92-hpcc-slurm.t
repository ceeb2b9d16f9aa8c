#!/usr/bin/env bash
# A real MPI application through the real scheduler: a small version of
# configs/hpcc-slurm.cfg (Debian's hpcc, 1 and 2 ranks on one node of the
# private cluster's `real` partition, srun --mpi=pmix, compact placement by
# perfsweep-bind).  Structure only, never timings: every run is a SLURM job
# whose srun launched one MPI world of the planned size, and every rank ran
# bound where its rank-<r>.json says.  Skips only when hpcc cannot be installed.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"

if ! command -v hpcc >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	"$root/scripts/install-deps.sh" >/dev/null 2>&1
fi
if ! command -v hpcc >/dev/null 2>&1; then
	echo "1..0 # SKIP hpcc is not installed and cannot be installed here (scripts/install-deps.sh)"
	exit 0
fi
slurm_test_init

# The shipped study, shrunk: one size (1 MiB per rank), one repetition;
# its command (./hpcc-run.sh beside the config) as shipped.
cp "$root/configs/hpcc-run.sh" "$work/"
sed -e 's/^name = .*/name = "hpcc-test";/' \
    -e 's/values = \[ 3, 6, 24 \]/values = [ 1 ]/' \
    -e 's/^repetitions = .*/repetitions = 1;/' \
    "$root/configs/hpcc-slurm.cfg" >"$work/hpcc.cfg"
"$perfsweep" plan "$work/hpcc.cfg" >"$work/plan.out" 2>&1
is "$(grep -c '^ *1 *[12] *1 *2 compact' "$work/plan.out")" 2 "plan: 1 and 2 ranks on one node, compact"

run_campaign "$work/hpcc.cfg" "$work/c" "the HPCC campaign completes"
is "$(status_field "$work/c" done)" 2 "2 runs done"
is "$(status_field "$work/c" collection_errors)" 0 "no collection errors"

# Every run a SLURM job on `real`, completed, on one node.  (The job's
# NumTasks is its allocation, 2 per node here even for p = 1; the ranks
# srun started are checked below.)
jobs=$(scontrol -o show jobs | grep ' JobName=ps:hpcc-test:' |
	sed 's/.* JobState=\([A-Z]*\) .* Partition=\([a-z]*\) .* NumNodes=\([0-9]*\) .*/\1\/\2\/\3/' | sort | tr '\n' ' ')
is "$jobs" "COMPLETED/real/1 COMPLETED/real/1 " "one SLURM job per run: completed, partition real, 1 node"

# One MPI launch per run: srun --mpi=pmix in the job script, and HPCC saw
# one MPI_COMM_WORLD of the planned size (p singletons would each say 1).
bad=0 n=0
for d in "$work"/c/runs/*/; do
	n=$((n + 1))
	grep -Eq "^[[:space:]]*timeout .* srun .*--mpi='?pmix'? .*perfsweep-bind" "$d/job.sh" || { bad=1; diag "$d: no srun --mpi=pmix"; }
	ranks=$(sed -n 's/^CommWorldProcs=//p' "$d/hpccoutf.txt")
	grid=$(sed -n 's/^HPL_npcol=//p' "$d/hpccoutf.txt")
	nrec=$(ls "$d"/rank-*.json | wc -l)
	[ -n "$ranks" ] && [ "$ranks" = "$nrec" ] && [ "$grid" = "$ranks" ] || { bad=1; diag "$d: world $ranks, grid 1x$grid, $nrec rank records"; }
done
is "$n" 2 "two run directories"
is "$bad" 0 "each job's srun used --mpi=pmix and HPCC's MPI world (and HPL grid) had one rank per rank record"
is "$("$perfsweep" export "$work/c" --format csv | grep '"hpcc",ranks' | cut -d, -f3,4,10 | sort | tr '\n' ' ')" \
   "1,1,1 1,2,2 " "the ranks HPCC reports, collected from hpccoutf.txt, equal p"

# Bindings: rank-<r>.json against the cpuset each rank printed itself,
# compact: local rank k on the k-th core of r1 or r2, the same in both runs.
binds=$(bind_records "$work/c" 'rank \d, cpus ')
note "bindings (node:local rank:cpuset per run): $binds"
case "$binds" in *"RECORDS=3 BAD=0") r=0 ;; *) r=1 ;; esac
ok $r "all 3 ranks ran bound to the cpuset their records show"
ok1=$(echo "$binds" | tr ' ' '\n' | grep -c '^r[12]:0:[0-9]*$')
ok2=$(echo "$binds" | tr ' ' '\n' | grep '^r\([12]\):0:[0-9]*,r\1:1:[0-9]*$')
c0=$(echo "$binds" | tr ' ' '\n' | grep '^r[12]:0:[0-9]*$' | cut -d: -f3)
[ "$ok1" = 1 ] && [ -n "$ok2" ] && [ "$(echo "$ok2" | cut -d, -f1 | cut -d: -f3)" = "$c0" ] &&
	[ "$(echo "$ok2" | cut -d, -f2 | cut -d: -f3)" != "$c0" ]
ok $? "compact: p = 1 on one core, p = 2 on that core and another of the same node ($binds)"

done_testing
