#!/bin/sh
# examples/lammps/run.sh [CAMPAIGN-DIR]: the LAMMPS example in one command.
# Runs lammps.cfg (default directory ./lammps-lj.campaign; run it again to
# resume), lets `run --until publishable` re-measure what the validator
# asks for (2 rounds at most), then prints the models of every region and
# the validity report.  Needs lmp (apt-get install lammps) and perfsweep
# (on PATH, or $PERFSWEEP, or this tree's bin/).
here=$(cd "$(dirname "$0")" && pwd)
ps=${PERFSWEEP:-$(command -v perfsweep || echo "$here/../../bin/perfsweep")}
dir=${1:-$PWD/lammps-lj.campaign}
command -v lmp > /dev/null || { echo "run.sh: no lmp; apt-get install lammps" >&2; exit 2; }
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
"$ps" run "$here/lammps.cfg" --dir "$dir" --until publishable --rounds 2
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$ps" model "$dir"
echo
"$ps" validate "$dir"
