#!/usr/bin/env bash
# Polling that scales (issue 12): the controller keeps this user's finished
# jobs for MinJobAge, and every poll (slurm_load_job_user) sends them all,
# so a poll costs more the longer the campaign has run.
#  1. With 500 finished jobs of this user in the controller, a campaign's
#     jobs tell of their own ends through notes in runs/.events, so the
#     controller is asked for the user's job list only as a safety net
#     (poll.max, then poll.safety), counted by the controller itself (sdiag);
#     every run is still done.
#  2. A job that ends without a done note (cancelled from outside while it
#     runs) is found at once: SLURM's SIGTERM makes its script leave the
#     note JOB.gone, which makes the orchestrator ask the controller now,
#     long before its safety-net poll (here 60 s away: poll.max 60).
#  3. Where the job scripts cannot leave notes (runs/.events is a file),
#     the controller is polled as before, never more often than twice a
#     second next to the 500 finished jobs (1 ms per listed job it does not
#     track), and every run is done.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init

# 500 finished jobs of this user, as a long campaign leaves them: held and
# cancelled, so that none has to launch (an array's tasks would share one
# record until they run).
seq 500 | xargs -P 4 -I{} sbatch -Q -H -p emu -o /dev/null -e /dev/null -D "$work" -J old --wrap true \
	>/dev/null
scancel -n old
gone() { [ "$(squeue -h | wc -l)" = 0 ]; }
wait_until 60 gone
t $? "500 jobs of this user submitted and cancelled"
kept=$(scontrol -o show jobs | grep -c ' JobName=old .*JobState=CANCELLED')
is "$kept" 500 "the controller keeps all 500 (MinJobAge)"

# user_lists: REQUEST_JOB_USER_INFO RPCs the controller has served
user_lists() {
	sdiag | awk '/REQUEST_JOB_USER_INFO/ { sub(/.*count:/, ""); print $1 + 0; f = 1 } END { if (!f) print 0 }'
}

# campaign_cfg NAME DIR RUNS: the config of RUNS runs of /bin/true, as DIR.cfg
campaign_cfg() {
	cat >"$2.cfg" <<CFG
name = "$1";
app = { command = [ "/bin/true", "{i}" ]; };
parameters = ( { name = "i"; values = [ 1 ]; } );
repetitions = $3;
max_attempts = 1;
backend = { type = "slurm"; partition = "emu"; max_inflight = 8; time_limit = 2; };
collect = { wall = false; };
CFG
}

# measured_campaign DIR RUNS DESCRIPTION: run DIR.cfg, check that all RUNS
# are done; the user's job lists the controller served meanwhile in $polls,
# the campaign's wall time in $wall
measured_campaign() {
	local before after t1   # t0: the campaign's start, read below
	before=$(user_lists)
	t0=$(date +%s.%N)
	run_campaign "$1.cfg" "$1" "$3 exits 0"
	t1=$(date +%s.%N)
	after=$(user_lists)
	is "$(status_field "$1" done)" "$2" "all $2 runs done"
	polls=$((after - before))
	wall=$(echo "$t1 - $t0" | bc -l)
}

# 1. with notes
campaign_cfg notes "$work/c" 48
measured_campaign "$work/c" 48 "campaign of 48 runs next to 500 finished jobs"
[ -d "$work/c/runs/.events" ] && [ -z "$(ls -A "$work/c/runs/.events")" ]
t $? "the jobs left notes in runs/.events, and every one was read and removed"
# the start-up scan; until the first note (the first job's start, T s
# after the campaign began: an array's tasks may wait for the scheduler)
# the back-off from poll.min 0.1 s by 1.5, at most log(1 + 5T) / log(1.5)
# polls; then one per poll.max (5 s) at most; and two of slack.  Without
# notes this campaign asks 1-2 times a second (part 3).
first=$(sqlite3 "$work/c/campaign.db" "SELECT MIN(started_at) FROM runs" 2>/dev/null)
limit=$(awk -v t0="$t0" -v first="${first:-$t0}" -v wall="$wall" 'BEGIN {
	T = first - t0; if (T < 0) T = 0
	print int(log(1 + 5 * T) / log(1.5)) + 1 + int((wall - T) / 5) + 3 }')
[ "$polls" -le "$limit" ]
t $? "with notes, the user's job list was asked for $polls times in $(printf '%.1f' "$wall") s (at most $limit)"

# 2. a job that ends without a note: the run of i = 1 sleeps until it is
# cancelled (run ids follow the interleaved order, not i)
cat >"$work/quiet.cfg" <<CFG
name = "quiet";
app = { command = [ "/bin/sh", "-c", "[ {i} = 2 ] || sleep 300" ]; };
parameters = ( { name = "i"; values = [ 1, 2 ]; } );
repetitions = 1;
max_attempts = 1;
backend = { type = "slurm"; partition = "emu"; time_limit = 10; poll = { max = 60.0; }; };
collect = { wall = false; };
CFG
"$perfsweep" run "$work/quiet.cfg" --dir "$work/quiet" --quiet >"$work/quiet.out" 2>&1 &
qpid=$!
# the running job (or array task, JOB_TASK) of the quiet campaign
sleeper() { squeue -h -t R -o '%i %j' | awk '$2 ~ /^ps:quiet:/ { print $1 }'; }
quiet_ready() { [ "$(status_field "$work/quiet" done)" = 1 ] && [ "$(sleeper | wc -l)" = 1 ]; }
wait_until 60 quiet_ready
t $? "the quick run is done (its note read) while the other one runs"
scancel "$(sleeper)"
quiet_over() { ! kill -0 "$qpid" 2>/dev/null; }
wait_until 20 quiet_over
t $? "the other, cancelled from outside, is found well before the safety poll: the campaign ends"
kill "$qpid" 2>/dev/null
wait $qpid
is "$?" 1 "the campaign exits 1 (a run failed)"
"$perfsweep" status "$work/quiet" >"$work/quiet.status" 2>&1
grep -q "failed: .*cancelled (slurm job" "$work/quiet.status"
t $? "the run failed as cancelled, as the controller says"
[ $? = 0 ] || diag < "$work/quiet.status"

# 3. no notes: runs/.events is a file, so no job can leave one there
mkdir -p "$work/nonotes/runs" && : >"$work/nonotes/runs/.events"
campaign_cfg nonotes "$work/nonotes" 16
measured_campaign "$work/nonotes" 16 "without notes, the campaign of 16 runs"
# one poll per 0.5 s at most, plus the first poll, the start-up scan and
# two of slack (polling after every change, as before, asked 3-4 times a
# second: 35 times in 9.9 s against a limit of 22 here)
limit=$(echo "$wall / 0.5 + 4" | bc)
[ "$polls" -le "$limit" ]
t $? "without notes, the user's job list was asked for $polls times in $(printf '%.1f' "$wall") s (at most $limit)"
slurm_test_done
