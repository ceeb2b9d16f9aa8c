#!/usr/bin/env bash
# The SLURM backend against a private cluster started by tests/slurm/cluster.sh:
# the cluster's layout, then the libslurm backend through its C API
# (build/tests/test_backend_slurm.t, shown as an indented subtest).
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init
t 0 "cluster starts"

"$root/tests/slurm/cluster.sh" status "$cdir" >"$work/status" 2>&1
t $? "status: every daemon up"
emu=$(sinfo -h -N -p emu -o '%N %c %z %t' | sort)
is "$emu" $'n1 36 2:18:1 idle\nn2 36 2:18:1 idle\nn3 36 2:18:1 idle\nn4 36 2:18:1 idle' \
	"partition emu: n1-n4 emulated 2x18 cores, idle"
cpus=$(nproc --all)
is "$(sinfo -h -N -p real -o '%N %c' | sort | tr '\n' ' ')" "r1 $cpus r2 $cpus " \
	"partition real: r1-r2 with this machine's $cpus CPUs"

out=$("$build/tests/test_backend_slurm.t" 2>&1)
rc=$?
echo "$out" | sed 's/^/    /'
t $rc "backend through libslurm ($(echo "$out" | grep -c '^ok') passed, $(echo "$out" | grep -c '^not ok') failed)"

"$root/tests/slurm/cluster.sh" stop "$cdir" >/dev/null 2>&1
t $? "cluster stops"
left=
for f in "$cdir"/run/*.pid "$cdir"/munge/munged.pid; do
	p=$(cat "$f" 2>/dev/null) || continue
	st=$(awk '/^State:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && left="$left $p"
done
is "$left" "" "no daemon left running"
slurm_test_done
