#!/usr/bin/env bash
# The SLURM backend against a private cluster started by tests/slurm/cluster.sh:
# the cluster's layout, then the libslurm backend through its C API
# (build/tests/test_backend_slurm.t, shown as an indented subtest).
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init
ok 0 "cluster starts"

"$root/tests/slurm/cluster.sh" status "$cdir" >"$work/status" 2>&1
ok $? "status: every daemon up"
emu=$(sinfo -h -N -p emu -o '%N %c %z %t' | sort)
is "$emu" $'n1 36 2:18:1 idle\nn2 36 2:18:1 idle\nn3 36 2:18:1 idle\nn4 36 2:18:1 idle' \
	"partition emu: n1-n4 emulated 2x18 cores, idle"
cpus=$(nproc --all)
is "$(sinfo -h -N -p real -o '%N %c' | sort | tr '\n' ' ')" "r1 $cpus r2 $cpus " \
	"partition real: r1-r2 with this machine's $cpus CPUs"

# A fake srun that fails FAKE_FAILS times as if the controller were down.
mkdir -p "$work/fake" "$work/step1" "$work/step2"
cat >"$work/fake/srun" <<'SRUN'
#!/bin/sh
c=$(cat "$FAKE_COUNT" 2>/dev/null || echo 0); c=$((c + 1)); echo $c >"$FAKE_COUNT"
if [ $c -le $FAKE_FAILS ]; then echo "srun: error: Unable to create step for job: Unable to contact slurm controller" >&2; exit 1; fi
while [ "$1" != /bin/sh ]; do shift; done
SLURM_PROCID=0 exec "$@"
SRUN
chmod +x "$work/fake/srun"
export PERFSWEEP_TEST_FAKE_SRUN=$work/fake
out=$("$build/tests/test_backend_slurm.t" 2>&1)
rc=$?
echo "$out" | sed 's/^/    /'
[ $rc = 0 ] || echo "$out" | grep -A4 '^not ok' | diag
ok $rc "backend through libslurm ($(echo "$out" | grep -c '^ok') passed, $(echo "$out" | grep -c '^not ok') failed)"

# The job script retries srun when its step could not start (no rank ran),
# and leaves job.step-failed when it gives up; a fake srun plays the controller.
job=$(ls "$work"/perfsweep-test-*/runs/1/job.sh 2>/dev/null | head -n 1)
# (the script sets its own run directory: copies of it, as the job.sh of
# run directories step1/step2, work there)
for d in step1 step2; do
	mkdir -p "$work/$d"
	sed "s|^PERFSWEEP_RUN_DIR=.*|PERFSWEEP_RUN_DIR='$work/$d'; export PERFSWEEP_RUN_DIR|" "$job" >"$work/$d/job.sh"
done
PATH=$work/fake:$PATH PERFSWEEP_STEP_PAUSE=0 FAKE_COUNT=$work/step1/count FAKE_FAILS=2 \
	sh "$work/step1/job.sh" >/dev/null 2>&1
is "$?:$(cat "$work/step1/count"):$(ls "$work/step1" | tr '\n' ' ')" "0:3:count job.done job.rank-0.exit job.sh stderr stdout " \
	"job script: step failed twice, third srun runs the app (exit 0, 3 sruns, no marker)"
PATH=$work/fake:$PATH PERFSWEEP_STEP_PAUSE=0 FAKE_COUNT=$work/step2/count FAKE_FAILS=99 \
	sh "$work/step2/job.sh" >/dev/null 2>&1
is "$?:$(cat "$work/step2/count"):$(ls "$work/step2" | tr '\n' ' ')" "1:12:count job.done job.sh job.step-failed " \
	"job script: gives up after 12 sruns and leaves job.step-failed"

"$root/tests/slurm/cluster.sh" stop "$cdir" >/dev/null 2>&1
ok $? "cluster stops"
left=
for f in "$cdir"/run/*.pid "$cdir"/munge/munged.pid; do
	p=$(cat "$f" 2>/dev/null) || continue
	st=$(awk '/^State:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && left="$left $p"
done
is "$left" "" "no daemon left running"
done_testing
