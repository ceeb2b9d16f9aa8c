#!/usr/bin/env bash
# The shipped SLURM configs load and plan as they are (no cluster needed):
# configs/demo-slurm.cfg, contention-slurm.cfg and hpcc-slurm.cfg, with the
# dependency files they name or are validated with.
. "$(dirname "$0")/../lib/tap.sh"
cfg=$ROOT/configs

plan() {  # plan CONFIG POINTS RUNS
	out=$("$PS" plan "$cfg/$1" 2>&1); rc=$?
	is "$rc" 0 "$1 plans"
	like "$out" "total:          $2 points, $3 runs" "$1: $2 points, $3 runs"
}
plan demo-slurm.cfg 25 75
plan contention-slurm.cfg 6 30
plan hpcc-slurm.cfg 6 30

# Their backend settings: slurm, and for HPCC the MPI plugin and partition.
for f in demo-slurm contention-slurm hpcc-slurm; do
	like "$(tr -d ' \n' < "$cfg/$f.cfg")" 'backend={type="slurm";' "$f.cfg uses the slurm backend"
done
hp=$(tr -d ' \n' < "$cfg/hpcc-slurm.cfg")
like "$hp" 'partition="real";mpi="pmix";' "hpcc-slurm.cfg: real partition, srun --mpi=pmix"
ok $([ -x "$cfg/hpcc-run.sh" ]; echo $?) "hpcc-run.sh is executable"

# The dependency files parse; HPCC's kernels do not depend on p.
out=$("$PS" deps "$cfg/hpcc.deps" 2>&1); is $? 0 "hpcc.deps parses"
like "$out" "2 parameters, 3 functions" "hpcc.deps: mib and p, three kernels"
out=$("$PS" deps "$cfg/hpcc.deps" --params mib,p --all 2>&1)
like "$(echo "$out" | grep -A3 '^p ')" "1      1" "only HPL depends on p"

# hpcc-run.sh writes a complete hpccinf.txt whose N keeps MIB per rank.
mkdir "$T/r" && cd "$T/r" || exit 1
HPCC=/bin/true "$cfg/hpcc-run.sh" 6 2 > out.txt; is $? 0 "hpcc-run.sh runs a stand-in hpcc"
is "$(sed -n '6p;11p;12p' hpccinf.txt | awk '{ printf "%s ", $1 }')" "1254 1 2 " \
   "N = floor(sqrt(6 MiB * 2 ranks / 8)), grid 1 x 2"
is "$(wc -l < hpccinf.txt)" 36 "all 36 lines of HPCC's input"
like "$(cat out.txt)" "grid 1x2, rank 0, cpus " "it reports the grid and the rank's cpus"
done_testing
