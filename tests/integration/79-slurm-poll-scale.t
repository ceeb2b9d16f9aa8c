#!/usr/bin/env bash
# Polling that scales (issue 12): the controller keeps this user's finished
# jobs for MinJobAge, and every poll (slurm_load_job_user) sends them all,
# so a poll costs more the longer the campaign has run.  With 500 finished
# jobs of this user in the controller, a campaign asks for the user's job
# list at most twice a second (1 ms per listed job it does not track),
# counted by the controller itself (sdiag), and still finishes every run.
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

cat >"$work/c.cfg" <<CFG
name = "pollscale";
app = { command = [ "/bin/true", "{i}" ]; };
parameters = ( { name = "i"; values = [ 1 ]; } );
repetitions = 16;
max_attempts = 1;
backend = { type = "slurm"; partition = "emu"; max_inflight = 8; time_limit = 2; };
collect = { wall = false; };
CFG
before=$(user_lists)
t0=$(date +%s.%N)
run_campaign "$work/c.cfg" "$work/c" "campaign of 16 runs next to 500 finished jobs exits 0"
t1=$(date +%s.%N)
after=$(user_lists)
is "$(status_field "$work/c" done)" 16 "all 16 runs done"
polls=$((after - before))
wall=$(echo "$t1 - $t0" | bc -l)
# one poll per 0.5 s at most, plus the first poll, the start-up scan and
# two of slack (polling after every change, as before, asked 3-4 times a
# second: 35 times in 9.9 s against a limit of 22 here)
limit=$(echo "$wall / 0.5 + 4" | bc)
[ "$polls" -le "$limit" ]
t $? "the user's job list was asked for $polls times in $(printf '%.1f' "$wall") s (at most $limit)"

slurm_test_done
