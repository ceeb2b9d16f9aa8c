#!/bin/sh
# examples/gromacs/run.sh [CONFIG [CAMPAIGN-DIR]]: a GROMACS example in one
# command.  CONFIG is gromacs.cfg (default: atoms and steps) or
# gromacs-ranks.cfg (the thread-MPI weak-scaling study); the campaign
# directory defaults to ./<name>.campaign (run it again to resume).  The set-up
# steps build each box's input (and, only where gmx refuses to start, the
# RDTSCP work-around: docs/applications.md); `run --until publishable`
# re-measures what the validator asks for (2 rounds at most); then the
# models of every region, the validity report and the core-hours.  Needs gmx
# (apt-get install gromacs), a C and a C++ compiler for the work-around, and
# perfsweep (on PATH, or $PERFSWEEP, or this tree's bin/).
here=$(cd "$(dirname "$0")" && pwd)
ps=${PERFSWEEP:-$(command -v perfsweep || echo "$here/../../bin/perfsweep")}
cfg=$here/${1:-gromacs.cfg}
name=$(sed -n 's/^name = "\(.*\)";.*/\1/p' "$cfg")
dir=${2:-$PWD/$name.campaign}
command -v gmx > /dev/null || { echo "run.sh: no gmx; apt-get install gromacs" >&2; exit 2; }
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
"$ps" run "$cfg" --dir "$dir" --until publishable --rounds 2
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$ps" model "$dir"
echo
"$ps" validate "$dir"
rc=$?
"$ps" status "$dir" | grep -i "core-hours"
exit $rc
