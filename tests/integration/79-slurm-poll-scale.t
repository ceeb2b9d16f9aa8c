#!/usr/bin/env bash
# Polling that scales (issue 12): the controller keeps this user's finished
# jobs for MinJobAge, and every list of the user's jobs
# (slurm_load_job_user) sends them all, so such a poll costs more the
# longer the campaign has run.
#  1. With 500 finished jobs of this user in the controller, a campaign's
#     jobs tell of their own ends through notes in runs/.events, so the
#     controller is asked for the jobs only as a safety net (poll.max, then
#     poll.safety), counted by the controller itself (sdiag); every run is
#     still done.
#  2. A job that ends without a done note (cancelled from outside while it
#     runs) is found at once: SLURM's SIGTERM makes its script leave the
#     note JOB.gone, which makes the orchestrator ask the controller now,
#     long before its safety-net poll (here 60 s away: poll.max 60).
#  3. Where the job scripts cannot leave notes (runs/.events is a file),
#     the controller is polled as before.  With job arrays, a poll asks for
#     the campaign's array only (slurm_load_job of its id), never for the
#     user's list with the 500 old jobs after the start-up scan; without
#     arrays, the user's list is asked for never more often than twice a
#     second next to the 500 finished jobs (1 ms per listed job it does not
#     track).  Every run is done.
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
ok $? "500 jobs of this user submitted and cancelled"
kept=$(scontrol -o show jobs | grep -c ' JobName=old .*JobState=CANCELLED')
is "$kept" 500 "the controller keeps all 500 (MinJobAge)"

# rpcs TYPE: the controller's count of RPCs of TYPE served so far
rpcs() {
	sdiag | awk -v t="$1" '$1 == t { sub(/.*count:/, ""); print $1 + 0; f = 1 } END { if (!f) print 0 }'
}
# polls: the job lists a poll asks for, the user's (REQUEST_JOB_USER_INFO)
# and an array's (REQUEST_JOB_INFO_SINGLE), served so far
polls_so_far() { echo $(($(rpcs REQUEST_JOB_USER_INFO) + $(rpcs REQUEST_JOB_INFO_SINGLE))); }

. "$root/tests/slurm/true_campaign.sh"
# campaign_cfg NAME DIR RUNS: the config of RUNS runs of /bin/true, as DIR.cfg
campaign_cfg() {
	true_campaign_cfg "$2.cfg" "$1" "$3" 'partition = "emu"; max_inflight = 8; time_limit = 2;'
}

# measured_campaign DIR RUNS DESCRIPTION: run DIR.cfg, check that all RUNS
# are done; the job lists the controller served meanwhile in $polls, of
# them the user's lists in $user_lists, the campaign's wall time in $wall
measured_campaign() {
	local before ubefore t1   # t0: the campaign's start, read below
	before=$(polls_so_far)
	ubefore=$(rpcs REQUEST_JOB_USER_INFO)
	t0=$(date +%s.%N)
	run_campaign "$1.cfg" "$1" "$3 exits 0"
	t1=$(date +%s.%N)
	polls=$(($(polls_so_far) - before))
	user_lists=$(($(rpcs REQUEST_JOB_USER_INFO) - ubefore))
	is "$(status_field "$1" done)" "$2" "all $2 runs done"
	wall=$(echo "$t1 - $t0" | bc -l)
}

# 1. with notes: the campaign in the background, the polls counted from its
# first done run (its jobs' notes tell by then) to its end
campaign_cfg notes "$work/c" 48
"$perfsweep" run "$work/c.cfg" --dir "$work/c" --quiet >"$work/c.out" 2>&1 &
cpid=$!
some_done() { [ "$(status_field "$work/c" done)" -ge 1 ] 2>/dev/null; }
wait_until 120 some_done
ok $? "campaign of 48 runs next to 500 finished jobs: a first run done"
before=$(polls_so_far)
tm=$(date +%s.%N)
wait "$cpid"
rc=$?
t1=$(date +%s.%N)
polls=$(($(polls_so_far) - before))
is "$rc" 0 "the campaign exits 0"
[ "$rc" = 0 ] || diag <"$work/c.out"
is "$(status_field "$work/c" done)" 48 "all 48 runs done"
[ -d "$work/c/runs/.events" ] && [ -z "$(ls -A "$work/c/runs/.events")" ]
ok $? "the jobs left notes in runs/.events, and every one was read and removed"
# once notes tell, one poll per poll.max (5 s) at most, then fewer (up to
# poll.safety), and two of slack.  Before the first note the controller
# is asked as without notes (soon after each change); without notes at all
# this campaign asks 1-2 times a second (part 3)
rest=$(echo "$t1 - $tm" | bc -l)
limit=$(awk -v w="$rest" 'BEGIN { print int(w / 5) + 2 }')
[ "$polls" -le "$limit" ]
ok $? "with notes, the jobs were asked for $polls times in the $(printf '%.1f' "$rest") s after the first run was done (at most $limit)"

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
ok $? "the quick run is done (its note read) while the other one runs"
scancel "$(sleeper)"
quiet_over() { ! kill -0 "$qpid" 2>/dev/null; }
wait_until 20 quiet_over
ok $? "the other, cancelled from outside, is found well before the safety poll: the campaign ends"
kill "$qpid" 2>/dev/null
wait $qpid
is "$?" 1 "the campaign exits 1 (a run failed)"
"$perfsweep" status "$work/quiet" >"$work/quiet.status" 2>&1
grep -q "failed: .*cancelled (slurm job" "$work/quiet.status"
ok $? "the run failed as cancelled, as the controller says"
[ $? = 0 ] || diag < "$work/quiet.status"

# 3. no notes: runs/.events is a file, so no job can leave one there
mkdir -p "$work/nonotes/runs" && : >"$work/nonotes/runs/.events"
campaign_cfg nonotes "$work/nonotes" 16
measured_campaign "$work/nonotes" 16 "without notes, the campaign of 16 runs"
# with arrays, the polls ask for the array, which carries none of the 500
# old jobs (before, each carried them all); without, one poll per 0.5 s at
# most, plus the first poll, the start-up scan and two of slack (polling
# after every change, as before, asked 3-4 times a second: 35 times in 9.9
# s against a limit of 22 here)
if [ "${PERFSWEEP_SLURM_ARRAYS:-1}" != 0 ]; then
	# the start-up scan, and one of slack
	[ "$user_lists" -le 2 ] && [ "$polls" -gt "$user_lists" ]
	ok $? "without notes, polls asked for the campaign's array ($((polls - user_lists)) times), the user's list with the 500 old jobs only $user_lists times (at most 2)"
else
	limit=$(echo "$wall / 0.5 + 4" | bc)
	[ "$polls" -le "$limit" ]
	ok $? "without notes, the user's job list was asked for $polls times in $(printf '%.1f' "$wall") s (at most $limit)"
fi
done_testing
