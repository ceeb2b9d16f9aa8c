#!/bin/sh
# gmx-shim.sh [TPR]: a set-up step of the GROMACS examples, run in the set-up
# directory once grompp has written TPR (default topol.tpr): does `gmx
# mdrun` start on this machine?
#
# Debian's gmx is built to read the clock with RDTSCP and refuses to start
# where CPUID does not list the instruction, which some virtual machines
# hide although it works.  Only then this step builds rdtscp-shim.so here
# (rdtscp-shim.cpp: it adds the flag to GROMACS's CPU detection, nothing
# else) and checks that mdrun starts with it; gmx-run.sh preloads it for the
# measured runs.  Where gmx starts, nothing is built and nothing is preloaded.
# docs/applications.md says more.
here=$(cd "$(dirname "$0")" && pwd)
GMX_MAXBACKUP=-1        # the probes overwrite their files, no #backups#
export GMX_MAXBACKUP
tpr=${1:-topol.tpr}
probe() {  # no step of mdrun on TPR, its files apart from the runs'
	gmx mdrun -s "$tpr" -nsteps 0 -deffnm rdtscp-probe -ntmpi 1 -ntomp 1 -pin off -noconfout 2>&1
}
rm -f rdtscp-shim.so
if out=$(probe); then
	rm -f rdtscp-probe.*
	exit 0
fi
case $out in
*"compiled to use the rdtscp CPU instruction"*) ;;
*) printf '%s\n' "$out" >&2; echo "gmx-shim.sh: gmx mdrun fails here, and not for RDTSCP" >&2; exit 1 ;;
esac
# the instruction must work: a CPU without it would fault in mdrun's timers
cat > rdtscp-test.c <<'C'
#include <x86intrin.h>
int main(void) { unsigned aux; return __rdtscp(&aux) == 0; }
C
if ! ${CC:-cc} -O2 -o rdtscp-test rdtscp-test.c || ! ./rdtscp-test; then
	echo "gmx-shim.sh: gmx refuses RDTSCP and this CPU does not run it either; rebuild GROMACS with -DGMX_USE_RDTSCP=OFF" >&2
	exit 1
fi
${CXX:-c++} -O2 -shared -fPIC -o rdtscp-shim.so "$here/rdtscp-shim.cpp" -ldl || exit 1
if ! out=$(LD_PRELOAD="$PWD/rdtscp-shim.so" probe); then
	printf '%s\n' "$out" >&2
	echo "gmx-shim.sh: gmx mdrun refuses to start even with rdtscp-shim.so" >&2
	rm -f rdtscp-shim.so
	exit 1
fi
rm -f rdtscp-probe.* rdtscp-test rdtscp-test.c
echo "gmx-shim.sh: gmx refuses RDTSCP, which CPUID hides here but the CPU runs: built $PWD/rdtscp-shim.so for gmx-run.sh"
