#!/usr/bin/env bash
# The SLURM backend against a private cluster started by tests/slurm/cluster.sh:
# the cluster's layout, then the libslurm backend through its C API
# (build/tests/test_backend_slurm.t, shown as an indented subtest).
root=${PERFSWEEP_ROOT:-$(pwd)}
build=${PERFSWEEP_BUILD:-$root/build}
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	echo "1..0 # SKIP needs root, slurmctld, slurmd and munged"
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-slurm-XXXXXX")
trap '"$root/tests/slurm/cluster.sh" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT
n=0
t() {   # t OK|NOTOK description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

"$root/tests/slurm/cluster.sh" start "$dir" >"$dir/start.log" 2>&1
rc=$?
t $rc "cluster starts"
if [ $rc -ne 0 ]; then
	sed 's/^/# /' "$dir/start.log"
	echo "1..$n"
	exit 1
fi
export SLURM_CONF=$dir/slurm.conf PERFSWEEP_TEST_CLUSTER=$dir
"$root/tests/slurm/cluster.sh" status "$dir" >"$dir/status" 2>&1
t $? "status: every daemon up"
emu=$(sinfo -h -N -p emu -o '%N %c %z %t' | sort)
want=$'n1 36 2:18:1 idle\nn2 36 2:18:1 idle\nn3 36 2:18:1 idle\nn4 36 2:18:1 idle'
[ "$emu" = "$want" ]; t $? "partition emu: n1-n4 emulated 2x18 cores, idle"
[ "$emu" = "$want" ] || printf '#   got: %s\n#   expected: %s\n' "$emu" "$want"
real=$(sinfo -h -N -p real -o '%N %c' | sort | tr '\n' ' ')
cpus=$(nproc --all)
[ "$real" = "r1 $cpus r2 $cpus " ]; t $? "partition real: r1-r2 with this machine's $cpus CPUs ($real)"

out=$("$build/tests/test_backend_slurm.t" 2>&1)
rc=$?
echo "$out" | sed 's/^/    /'
t $rc "backend through libslurm ($(echo "$out" | grep -c '^ok') passed, $(echo "$out" | grep -c '^not ok') failed)"

"$root/tests/slurm/cluster.sh" stop "$dir" >/dev/null 2>&1
t $? "cluster stops"
left=
for f in "$dir"/run/*.pid "$dir"/munge/munged.pid; do
	p=$(cat "$f" 2>/dev/null) || continue
	st=$(awk '/^State:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && left="$left $p"
done
[ -z "$left" ]; t $? "no daemon left running${left:+ (still up:$left)}"
echo "1..$n"
