#!/usr/bin/env bash
# SLURM job arrays (backend.arrays, on by default) on a private cluster:
#  1. runs of one shape go out as one array (one submit request, counted
#     by the controller: sdiag), throttled by max_inflight, each value
#     under its own point, each run's job.sh and job.out in its directory;
#  2. two shapes (rank counts): two arrays; a failed task is retried alone;
#  3. a timed-out task fails alone, the others are done;
#  4. `perfsweep cancel --run N` cancels that task only; cancel of all;
#  5. kill -9 of the orchestrator while tasks run and wait, then resume:
#     every task adopted, none submitted again, values under the right points;
#  6. kill -9 between submission and recording (the store is put back to
#     "never submitted"): resume finds the array through its comment and
#     map, submits nothing again;
#  6b. the node of one task fails: that run alone is retried;
#  7. MaxArraySize 3: batches split into arrays of at most 3 tasks;
#  8. MaxArraySize 1 (arrays refused): one job per run, said once;
#  9. backend.arrays = false: one job per run, no note.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init
unset PERFSWEEP_SLURM_ARRAYS   # this test is about arrays whatever the lane

# config NAME VALUES MAX_INFLIGHT [MORE-PARAMETERS] [BACKEND-EXTRA] [MAX_ATTEMPTS] [APP-EXTRA]:
# each execution waits while $work/hold-NAME exists, then prints its point's n.
config() {
	cat >"$work/$1.cfg" <<CFG
name = "$1";
app = { command = [ "/bin/sh", "-c", "while [ -e $work/hold-$1 ]; do sleep 0.2; done; $work/app.sh {n}" ]; $7 };
parameters = ( { name = "n"; values = [ $2 ]; } $4 );
repetitions = 1;
max_attempts = ${6:-1};
backend = { type = "slurm"; partition = "emu"; max_inflight = $3; time_limit = 5; $5 };
collect = { regex = ( { region = "k"; metric = "n"; pattern = "^n: ([0-9]+)"; } ); };
CFG
}
# the application: n = 2 fails on its first attempt when $work/fail2 exists;
# n = 7 sleeps when $work/slow7 exists; else prints n
cat >"$work/app.sh" <<'APP'
#!/bin/sh
d=$(dirname "$0")
if [ "$1" = 2 ] && [ -e "$d/fail2" ] && mkdir "$d/failed2-$PERFSWEEP_CAMPAIGN" 2>/dev/null; then exit 1; fi
if [ "$1" = 7 ] && [ -e "$d/slow7" ]; then sleep 60; fi
echo "n: $1"
APP
chmod +x "$work/app.sh"

db() { sqlite3 "$1/campaign.db" "$2"; }
submits() { sdiag | sed -n 's/^[[:space:]]*REQUEST_SUBMIT_BATCH_JOB[[:space:]]*([[:space:]]*[0-9]*)[[:space:]]*count:\([0-9]*\).*/\1/p' | grep . || echo 0; }
reset_rpc() { sdiag -r >/dev/null; }
# runs done whose measured n is their own point's n
right_values() {
	db "$1" "SELECT count(*) FROM runs r WHERE r.state = 3
		AND (SELECT value FROM measurements WHERE run = r.id AND metric = 'n') =
		    (SELECT value FROM point_values pv JOIN params p ON p.idx = pv.param
		     WHERE pv.point = r.point AND p.name = 'n')"
}
# backend ids the store recorded that are array tasks (JOB_TASK)
task_ids() { db "$1" "SELECT count(*) FROM runs WHERE backend_id GLOB '[0-9]*_[0-9]*'"; }
session() { grep '^this session:' "$1"; }

# 1. One shape, one array.
config one "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12" 3
reset_rpc
run_campaign "$work/one.cfg" "$work/one" "12 runs of one shape"
is "$(submits)" 1 "one submit request for 12 runs"
is "$(status_field "$work/one" done)" 12 "all 12 runs done"
is "$(right_values "$work/one")" 12 "each run's value under its own point"
is "$(task_ids "$work/one")" 12 "each run's job is an array task (JOB_TASK)"
is "$(scontrol -o show jobs | grep 'JobName=ps:one:array ' | grep -c 'ArrayTaskThrottle=3 ')" 12 \
	"the array runs at most max_inflight = 3 tasks at once"
is "$(slurm_jobs | grep -c '^ps:one:[0-9]*\.1 COMPLETED$')" 12 "every task is its run's first attempt"
n=0
for d in "$work"/one/runs/[0-9]*; do
	[ -s "$d/job.sh" ] && grep -q "^# perfsweep job: store .* run $(basename "$d") attempt 1\$" "$d/job.sh" &&
		[ -e "$d/job.out" ] && [ -e "$d/job.done" ] && n=$((n + 1))
done
is "$n" 12 "each run keeps its job.sh, job.out and job.done in its own directory"

# 2. Two shapes; a failed task retried by itself.
touch "$work/fail2"
config two "1, 2, 3" 4 ', { name = "p"; values = [ 1, 2 ]; role = "ranks"; }' "" 2
reset_rpc
run_campaign "$work/two.cfg" "$work/two" "two rank counts, one failing attempt"
rm -f "$work/fail2"
is "$(status_field "$work/two" done)" 6 "all 6 runs done"
is "$(right_values "$work/two")" 6 "each value under its own point"
is "$(submits)" 3 "two arrays (one per rank count) and one job for the retry"
slurm_jobcomp >"$work/jobcomp.log"
is "$(grep -c 'Name=ps:two:[0-9]*\.1 JobState=FAILED' "$work/jobcomp.log")" 1 "one first attempt failed"
retried=$(db "$work/two" "SELECT id FROM runs WHERE attempts = 2")
is "$(grep -c "Name=ps:two:$retried\\.2 JobState=COMPLETED" "$work/jobcomp.log")" 1 \
	"the failed run completed as its own job on its second attempt"

# 3. A task past its timeout fails alone.
touch "$work/slow7"
config slow "5, 6, 7, 8" 4 "" "" 1 'timeout = 3;'
"$perfsweep" run "$work/slow.cfg" --dir "$work/slow" --quiet >"$work/slow.out" 2>&1
is "$?" 1 "a campaign with a timed-out run exits 1"
rm -f "$work/slow7"
is "$(status_field "$work/slow" done)" 3 "the other 3 runs done"
is "$(status_field "$work/slow" failed)" 1 "the slow run failed"
is "$(db "$work/slow" "SELECT count(*) FROM runs r JOIN point_values pv ON pv.point = r.point
	WHERE r.state = 4 AND pv.value = 7 AND r.reason LIKE 'timed out after 3 s%'")" 1 \
	"n = 7 failed: timed out after 3 s"

# 4. Cancel one task, then the rest.
touch "$work/hold-cancel"
config cancel "1, 2, 3, 4" 4
"$perfsweep" run "$work/cancel.cfg" --dir "$work/cancel" --quiet >"$work/cancel.out" 2>&1 &
bgpid=$!
wait_until 60 sh -c "[ \"\$(squeue -h -t R | wc -l)\" = 4 ]"
ok $? "4 tasks running"
is "$("$perfsweep" cancel "$work/cancel" --run 2 2>&1)" "cancelled 1 run (1 slurm job killed)" "cancel --run 2"
wait_until 30 sh -c "[ \"\$(squeue -h | wc -l)\" = 3 ]"
ok $? "the other 3 tasks keep running"
is "$(slurm_jobs | grep '^ps:cancel:2\.1 ' | cut -d' ' -f2)" CANCELLED "run 2's task is cancelled in SLURM"
is "$("$perfsweep" cancel "$work/cancel" 2>&1)" "cancelled 3 runs (3 slurm jobs killed)" "cancel of all"
wait_until 30 sh -c "[ -z \"\$(squeue -h)\" ]"
ok $? "no task left in the queue"
wait_until 30 sh -c "! kill -0 $bgpid 2>/dev/null"
wait $bgpid
is "$?" 0 "the running orchestrator stops without failures"
bgpid=
rm -f "$work/hold-cancel"
is "$(status_field "$work/cancel" cancelled)" 4 "4 runs cancelled in the store"

# 5. kill -9 while tasks run and wait; resume adopts them all.
touch "$work/hold-kill"
config kill "1, 2, 3, 4, 5, 6, 7, 8" 2
reset_rpc
"$perfsweep" run "$work/kill.cfg" --dir "$work/kill" --quiet >"$work/kill1.out" 2>&1 &
bgpid=$!
wait_until 60 sh -c "[ \"\$(squeue -h -t R | wc -l)\" = 2 ] && [ \"\$(sqlite3 $work/kill/campaign.db 'SELECT count(*) FROM runs WHERE backend_id IS NOT NULL' 2>/dev/null)\" = 8 ]"
ok $? "2 tasks running, 8 recorded"
kill -9 $bgpid
wait $bgpid 2>/dev/null
bgpid=
rm -f "$work/hold-kill"
run_campaign "$work/kill.cfg" "$work/kill" "resume after kill -9"
is "$(session "$work/kill.out" 2>/dev/null || grep '^this session:' "$work/kill.out")" \
	"this session: 0 started, 0 retried, 0 re-run after a restart, 8 adopted" "all 8 adopted, none started again"
is "$(submits)" 1 "one submit request in all"
is "$(right_values "$work/kill")" 8 "each value under its own point"

# 6. kill -9 between submission and recording.
touch "$work/hold-lost"
config lost "1, 2, 3, 4, 5" 2
reset_rpc
"$perfsweep" run "$work/lost.cfg" --dir "$work/lost" --quiet >"$work/lost1.out" 2>&1 &
bgpid=$!
wait_until 60 sh -c "[ \"\$(sqlite3 $work/lost/campaign.db 'SELECT count(*) FROM runs WHERE backend_id IS NOT NULL' 2>/dev/null)\" = 5 ]"
ok $? "5 tasks recorded"
kill -9 $bgpid
wait $bgpid 2>/dev/null
bgpid=
# as if it had died right after the submission: nothing recorded
db "$work/lost" "UPDATE runs SET state = 0, backend_id = NULL, attempts = 0, submitted_at = NULL"
rm -f "$work/hold-lost"
run_campaign "$work/lost.cfg" "$work/lost" "resume after kill -9 before recording"
is "$(submits)" 1 "nothing submitted again"
is "$(status_field "$work/lost" done)" 5 "all 5 runs done"
is "$(right_values "$work/lost")" 5 "each value under its own point"
is "$(task_ids "$work/lost")" 5 "each run recorded with its array task"

# 6b. The node of one task fails: that run alone is retried, as a job of its own.
touch "$work/hold-nodefail"
config nodefail "1, 2, 3, 4" 4 "" 'extra = [ "--no-requeue" ];'
"$perfsweep" run "$work/nodefail.cfg" --dir "$work/nodefail" --quiet >"$work/nodefail.out" 2>&1 &
bgpid=$!
wait_until 60 sh -c "[ \"\$(squeue -h -r -t R | wc -l)\" = 4 ] && [ \"\$(sqlite3 $work/nodefail/campaign.db 'SELECT count(*) FROM runs WHERE backend_id IS NOT NULL' 2>/dev/null)\" = 4 ]"
ok $? "4 tasks running, 4 recorded"
bid=$(db "$work/nodefail" "SELECT backend_id FROM runs WHERE id = 2")
node=$(squeue -h -r -j "$bid" -o %N)
scontrol update nodename="$node" state=down reason=perfsweep-test
ok $? "the node of run 2's task ($bid on $node) set down"
wait_until 60 sh -c "[ \"\$(sqlite3 $work/nodefail/campaign.db 'SELECT attempts FROM runs WHERE id = 2' 2>/dev/null)\" = 2 ]"
r=$?
# (test_backend_slurm.c 8c: a run on a node set down was sometimes reported done)
todo $r "sometimes reported done when its node goes down" "run 2 is retried"
rm -f "$work/hold-nodefail"
scontrol update nodename="$node" state=resume >/dev/null 2>&1
wait_until 60 sh -c "! kill -0 $bgpid 2>/dev/null"
wait $bgpid
rc=$?
bgpid=
is "$(db "$work/nodefail" "SELECT count(*) FROM runs WHERE id != 2 AND attempts != 1")" 0 "the other runs ran once"
is "$(db "$work/nodefail" "SELECT count(*) FROM runs WHERE id != 2 AND state = 3")" 3 "and are done"
if [ $r = 0 ]; then
	is "$rc" 0 "the campaign completes"
	is "$(right_values "$work/nodefail")" 4 "each value under its own point"
	db "$work/nodefail" "SELECT detail FROM run_events WHERE run = 2" | grep -q "node failure"
	ok $? "run 2's first attempt failed with its node"
else   # the known mis-report: say what run 2 became
	diag "run 2: $(db "$work/nodefail" "SELECT state, attempts, reason, collect_error FROM runs WHERE id = 2")"
fi

# 7. MaxArraySize 3: arrays of 3 tasks at most.
echo "MaxArraySize=3" >>"$cdir/slurm.conf"
scontrol reconfigure
wait_until 30 sh -c "scontrol show config | grep -q 'MaxArraySize *= 3\$'"
ok $? "MaxArraySize is 3"
config split "1, 2, 3, 4, 5, 6, 7" 7
reset_rpc
run_campaign "$work/split.cfg" "$work/split" "7 runs with MaxArraySize 3"
is "$(submits)" 3 "three submit requests: 3 + 3 tasks and one job"
is "$(scontrol -o show jobs | grep 'JobName=ps:split:array ' | grep -c 'ArrayTaskId=[3-9]')" 0 "no task id above 2"
is "$(status_field "$work/split" done)" 7 "all 7 runs done"
is "$(right_values "$work/split")" 7 "each value under its own point"

# 8. MaxArraySize 1: no arrays, said once.
sed -i 's/^MaxArraySize=3$/MaxArraySize=1/' "$cdir/slurm.conf"
scontrol reconfigure
wait_until 30 sh -c "scontrol show config | grep -q 'MaxArraySize *= 1\$'"
ok $? "MaxArraySize is 1"
config single "1, 2, 3, 4" 4
reset_rpc
"$perfsweep" run "$work/single.cfg" --dir "$work/single" >"$work/single.out" 2>&1
is "$?" 0 "campaign runs without arrays"
is "$(grep -c 'slurm does not take job arrays here (MaxArraySize is 0 or 1): one job per run' "$work/single.out")" 1 \
	"the fallback is said once"
is "$(submits)" 4 "one submit request per run"
is "$(task_ids "$work/single")" 0 "no run is an array task"
is "$(right_values "$work/single")" 4 "each value under its own point"
sed -i '/^MaxArraySize=1$/d' "$cdir/slurm.conf"
scontrol reconfigure

# 9. backend.arrays = false.
wait_until 30 sh -c "scontrol show config | grep -q 'MaxArraySize *= 1001\$'"
ok $? "MaxArraySize back to its default"
config off "1, 2, 3" 3 "" "arrays = false;"
reset_rpc
"$perfsweep" run "$work/off.cfg" --dir "$work/off" >"$work/off.out" 2>&1
is "$?" 0 "campaign with arrays = false"
is "$(submits)" 3 "one submit request per run"
is "$(grep -c 'job arrays' "$work/off.out")" 0 "and no note"
# the runs are done from their notes; the controller may still be
# completing the jobs (COMPLETING) for a moment
off_completed() { [ "$(slurm_jobs | grep -c '^ps:off:[1-3]\.1 COMPLETED$')" = 3 ]; }
wait_until 30 off_completed
ok $? "jobs named per run"

done_testing
