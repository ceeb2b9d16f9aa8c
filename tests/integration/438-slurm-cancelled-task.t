#!/usr/bin/env bash
# A pending task of a job array cancelled in SLURM (scancel, not perfsweep
# cancel) is removed by the controller without a record of its own: the
# run says it was cancelled while pending, as a cancelled job of its own
# says "cancelled", and is not started again as if the controller had lost
# it ("disappeared from the controller", retried without using an attempt).
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init
unset PERFSWEEP_SLURM_ARRAYS   # this test is about arrays whatever the lane

cat >"$work/c.cfg" <<CFG
name = "c";
app = { command = [ "/bin/sh", "-c", "while [ -e $work/hold ]; do sleep 0.2; done; echo n: {n}" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ]; } );
repetitions = 1;
max_attempts = 1;
backend = { type = "slurm"; partition = "emu"; max_inflight = 12; time_limit = 5; };
collect = { regex = ( { region = "k"; metric = "n"; pattern = "^n: ([0-9]+)"; } ); };
CFG
touch "$work/hold"
"$perfsweep" run "$work/c.cfg" --dir "$work/c" >"$work/c.out" 2>&1 &
bg=$!
# the last run's task, while it is pending in its array's record
task=""
for _ in $(seq 600); do
	task=$(sqlite3 "$work/c/campaign.db" "SELECT backend_id FROM runs WHERE id = 12" 2> /dev/null)
	[ -n "$task" ] && squeue -h -t PENDING -o '%i' | grep -q "^${task%_*}_\[" && break
	sleep 0.1
done
ok $([ -n "$task" ] && [ "$(squeue -h -o %T -j "$task" 2> /dev/null)" = PENDING ]; echo $?) "run 12's task $task is pending"
scancel "$task"
sleep 2
rm -f "$work/hold"
wait $bg
is "$(grep '^run 12:' "$work/c.out" | grep -v started)" "run 12: failed: cancelled (slurm job $task, while it was pending)" \
	"the run says its task was cancelled while pending"
ok $(! grep -q "disappeared from the controller" "$work/c.out"; echo $?) "not that the controller lost it"
is "$(sqlite3 "$work/c/campaign.db" "SELECT state || ' ' || attempts FROM runs WHERE id = 12")" "4 1" \
	"it is failed after its one attempt (max_attempts = 1), not started again"
is "$(status_field "$work/c" done)" 11 "the other 11 runs are done"
done_testing
