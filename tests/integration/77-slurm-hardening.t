#!/usr/bin/env bash
# Issue 12 on a private SLURM cluster:
#  1. hostile campaign name, directory and arguments: nothing executes on
#     the node, the arguments arrive byte-exact;
#  2. job.sh resubmitted by hand with sbatch, from elsewhere and without
#     perfsweep's environment, still writes into its run directory;
#  3. kill -9 of the orchestrator, the jobs finish meanwhile, resume: the
#     adopted jobs are collected (never "pending" with runs left running);
#  4. the same, and the controller forgets the jobs (state wiped): the
#     results come from the job.done records, nothing is submitted again.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init

cat >"$work/dump.sh" <<'APP'
#!/bin/sh
: >"$PERFSWEEP_RUN_DIR/args"
for a in "$@"; do printf '%s\0' "$a" >>"$PERFSWEEP_RUN_DIR/args"; done
echo "time: 1"
APP
chmod +x "$work/dump.sh"

# 1. hostile values
name='h$(touch MARK1)`touch MARK2`x'"'"'"; #-y'
dir="$work/d \$(touch MARK3) \`touch MARK4\` ' \" ; # %j"
cat >"$work/hostile.cfg" <<CFG
name = "h\$(touch MARK1)\`touch MARK2\`x'\\"; #-y";
app = { command = [ "$work/dump.sh", "a\\nb", "\$(touch MARK5)", "\`touch MARK6\`", "it's", "say \\"hi\\"", "x;touch MARK7", "#z", "-q", "back\\\\slash", "{n}" ]; };
parameters = ( { name = "n"; values = [ 1 ]; } );
repetitions = 1;
max_attempts = 1;
backend = { type = "slurm"; partition = "emu"; time_limit = 5; };
CFG
(cd "$work" && "$perfsweep" run "$work/hostile.cfg" --dir "$dir" --quiet >"$work/hostile.out" 2>&1)
rc=$?
is "$rc" 0 "a campaign with a hostile name, directory and arguments runs"
[ $rc = 0 ] || diag < "$work/hostile.out"
marks=$(find / -xdev -name 'MARK[0-9]' 2>/dev/null | head -3 | tr '\n' ' ')
is "$marks" "" "nothing executed through them (no MARK file anywhere)"
printf '%s\0' "a
b" '$(touch MARK5)' '`touch MARK6`' "it's" 'say "hi"' 'x;touch MARK7' '#z' -q 'back\slash' 1 >"$work/want.args"
cmp -s "$work/want.args" "$dir/runs/1/args"
ok $? "the arguments arrive byte-exact"
jobname=$(scontrol -o show jobs | grep -o "JobName=ps:h.*:1\.1 " | head -1)
is "$jobname" "JobName=ps:$name:1.1 " "the job carries the campaign name as it is"

# 2. resubmitting job.sh by hand
rm -f "$dir/runs/1/args" "$dir/runs/1/job.done"
(cd / && env -i PATH="$PATH" SLURM_CONF="$SLURM_CONF" sbatch "$dir/runs/1/job.sh" >"$work/sbatch.out" 2>&1)
ok $? "sbatch accepts runs/1/job.sh"
wait_until 60 test -s "$dir/runs/1/job.done"
ok $? "the resubmitted job finishes and leaves its completion record"
cmp -s "$work/want.args" "$dir/runs/1/args"
ok $? "its output lands in the run directory, arguments byte-exact"
grep -q 'exit=0 ' "$dir/runs/1/job.done"
ok $? "job.done says exit 0"

# 3. adopted jobs that finished while no orchestrator ran
cat >"$work/adopt.cfg" <<CFG
name = "adopt";
app = { command = [ "/bin/sh", "-c", "sleep 2; echo time: {n}" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; } );
repetitions = 1;
backend = { type = "slurm"; partition = "emu"; time_limit = 5; };
CFG
# no_live_jobs NAME: none of runs 1 and 2's jobs (or array tasks) is queued or running
no_live_jobs() { ! slurm_jobs | grep -q "^ps:$1:[12]\.1 \(PENDING\|RUNNING\|COMPLETING\|CONFIGURING\)\$"; }
# start_and_kill CFG DIR NAME: start, wait until both runs are recorded in
# flight ("running" counts submitted ones too), kill -9, let the jobs finish
start_and_kill() {
	"$perfsweep" run "$1" --dir "$2" --quiet >/dev/null 2>&1 &
	bgpid=$!
	wait_until 60 sh -c "[ \"\$($perfsweep status $2 --json 2>/dev/null | sed -n 's/^  \"running\": \\([0-9]*\\).*/\\1/p')\" -ge 2 ] 2>/dev/null"
	ok $? "$3: both runs recorded in flight"
	kill -9 $bgpid
	wait $bgpid 2>/dev/null
	bgpid=
	wait_until 60 no_live_jobs "$3"
	ok $? "$3: their jobs finished with no orchestrator"
}
start_and_kill "$work/adopt.cfg" "$work/adopt" adopt
"$perfsweep" run "$work/adopt.cfg" --dir "$work/adopt" >"$work/adopt.out" 2>&1
is "$?" 0 "resume exits 0"
is "$(status_field "$work/adopt" done)" 2 "the adopted jobs' results are collected"
is "$(( $(status_field "$work/adopt" running) + $(status_field "$work/adopt" submitted) ))" 0 "nothing is left running"
is "$(jobs_named ps:adopt:1.1)$(jobs_named ps:adopt:2.1)" 11 "no job submitted twice"
grep -q 'this session: 0 started, 0 retried, 0 re-run after a restart, 2 adopted' "$work/adopt.out"
ok $? "both adopted, none started again"

# 4. the controller forgets the finished jobs
sed 's/"adopt"/"purge"/' "$work/adopt.cfg" >"$work/purge.cfg"
start_and_kill "$work/purge.cfg" "$work/purge" purge
"$root/tests/slurm/cluster.sh" ctld-stop "$cdir" >/dev/null 2>&1
rm -rf "$cdir/state"/*
"$root/tests/slurm/cluster.sh" ctld-start "$cdir" >/dev/null 2>&1
ok $? "controller restarted without its job state"
is "$(jobs_named ps:purge:1.1)" 0 "it no longer knows the jobs"
"$perfsweep" run "$work/purge.cfg" --dir "$work/purge" >"$work/purge.out" 2>&1
is "$?" 0 "resume exits 0"
is "$(status_field "$work/purge" done)" 2 "the results come from job.done"
grep -q 'this session: 0 started, 0 retried, 0 re-run after a restart, 2 adopted' "$work/purge.out"
ok $? "nothing was submitted again: both adopted from their records"
[ $? = 0 ] || diag < "$work/purge.out"
is "$(grep -c 'Name=ps:purge:' "$cdir/log/jobcomp.log")" 2 "the controller ran two purge jobs in all"
done_testing
