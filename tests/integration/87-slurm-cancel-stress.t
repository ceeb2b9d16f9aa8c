#!/usr/bin/env bash
# perfsweep cancel against a live orchestrator on the private SLURM cluster,
# 10 times in a row: at three moments (as soon as the store exists, while
# jobs are being submitted, once all four run), in fresh directories and in
# a reused one (the store removed, the run directories kept).  Every time
# every run is cancelled, the orchestrator exits 0 and the queue empties.
# This failed in 3 of 6 runs before the run-state machine: a "running"
# report recorded after the cancel overwrote it.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init

cat >"$work/cs.cfg" <<CFG
name = "cs";
app = { command = [ "/bin/sleep", "60" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 3, 4 ]; } );
repetitions = 1;
backend = { type = "slurm"; partition = "emu"; max_inflight = 4; time_limit = 5; };
CFG
has_store() { [ -n "$(status_field "$1" pending)" ]; }
queued() { squeue -h 2>/dev/null | wc -l; }
running_jobs() { [ "$(squeue -h -t R 2>/dev/null | wc -l)" -ge "$1" ]; }
some_submitted() { [ "$(queued)" -ge 1 ]; }
queue_empty() { [ "$(queued)" = 0 ]; }
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '/^State:/ {print $2}' /proc/$1/status 2>/dev/null)" = Z ]; }

bad_cancel=0 bad_exit=0 bad_cancelled=0 bad_queue=0
for ((i = 1; i <= 10; i++)); do
	if ((i % 2)); then dir=$work/fresh$i; else dir=$work/reused; rm -f "$dir"/campaign.db*; fi
	"$perfsweep" run "$work/cs.cfg" --dir "$dir" --quiet >"$work/run$i.out" 2>&1 &
	bgpid=$!
	wait_until 60 has_store "$dir"
	case $((i % 3)) in
	1) wait_until 60 some_submitted ;;
	2) wait_until 60 running_jobs 4 ;;
	esac
	"$perfsweep" cancel "$dir" >"$work/cancel$i.out" 2>&1 || { bad_cancel=$((bad_cancel + 1)); diag "cancel $i: $(cat "$work/cancel$i.out")"; }
	wait_until 120 gone $bgpid
	wait $bgpid; rc=$?
	bgpid=
	[ "$rc" = 0 ] || { bad_exit=$((bad_exit + 1)); diag "run $i exited $rc: $(tail -3 "$work/run$i.out")"; }
	c=$(status_field "$dir" cancelled)
	[ "$c" = 4 ] || { bad_cancelled=$((bad_cancelled + 1)); diag "run $i: $c of 4 cancelled"; }
	wait_until 60 queue_empty || { bad_queue=$((bad_queue + 1)); scancel -u root 2>/dev/null; wait_until 60 queue_empty; }
done
is "$bad_cancel" 0 "perfsweep cancel exits 0 every time (10 cancels)"
is "$bad_exit" 0 "the running orchestrator exits 0 every time"
is "$bad_cancelled" 0 "every run is cancelled every time"
is "$bad_queue" 0 "no job is left in the queue"
done_testing
