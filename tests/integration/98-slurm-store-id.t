#!/usr/bin/env bash
# A campaign store made afresh where another one was (its directory removed,
# or only campaign.db) on a private SLURM cluster: the jobs of the old store
# are never adopted, recovered or cancelled by the new one, and every value
# the new store holds comes from its own jobs, under the right point:
#  1. the old campaign completed, its directory removed, run again;
#  2. the same with only campaign.db* removed, runs/ kept;
#  3. kill -9 of the orchestrator while its jobs run and wait in the queue,
#     campaign.db* removed, run again while they still do: none adopted,
#     none cancelled, told once as another store's, and they leave the new
#     runs' directories alone;
#  4. jobs cancelled with `perfsweep cancel`, the directory removed, run
#     again: none adopted;
#  5. a campaign directory with a backslash (slurmd drops it from the job
#     output paths) is refused before anything is made.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init

# config NAME VALUES MAX_INFLIGHT: each execution prints its own job id (an
# array task: its array's job id and its task id; a job of its own: task
# -1) and its point's n; while $work/hold exists it waits first.
config() {
	cat >"$work/$1.cfg" <<CFG
name = "$1";
app = { command = [ "/bin/sh", "-c", "while [ -e $work/hold ]; do sleep 0.2; done; j=\$SLURM_JOB_ID; [ -z \$SLURM_ARRAY_JOB_ID ] || j=\$SLURM_ARRAY_JOB_ID; echo job: \$j; t=-1; [ -z \$SLURM_ARRAY_TASK_ID ] || t=\$SLURM_ARRAY_TASK_ID; echo task: \$t; echo n: {n}" ]; };
parameters = ( { name = "n"; values = [ $2 ]; } );
repetitions = 1;
max_attempts = 1;
backend = { type = "slurm"; partition = "emu"; max_inflight = $3; time_limit = 5; };
collect = { regex = ( { region = "k"; metric = "job"; pattern = "^job: ([0-9]+)"; },
                      { region = "k"; metric = "task"; pattern = "^task: (-?[0-9]+)"; },
                      { region = "k"; metric = "n"; pattern = "^n: ([0-9]+)"; } ); };
CFG
}

db() { sqlite3 "$1/campaign.db" "$2"; }
# job ids the store recorded, sorted
store_jobs() { db "$1" "SELECT backend_id FROM runs ORDER BY CAST(backend_id AS INTEGER)" | tr '\n' ' '; }
# runs that are done with the values of their own job (the one the store
# recorded) under their own point, and whose job.done is that job's
own_values() {
	local dir=$1 n=0 id bid
	while IFS='|' read -r id bid; do
		grep -q "^job=$bid .* store=$(db "$dir" "SELECT value FROM meta WHERE key = 'store_id'")\$" \
			"$dir/runs/$id/job.done" 2>/dev/null && n=$((n + 1))
	done < <(db "$dir" "SELECT r.id, r.backend_id FROM runs r WHERE r.state = 3
		AND CAST(CAST((SELECT value FROM measurements WHERE run = r.id AND metric = 'job') AS INTEGER) AS TEXT) ||
		    COALESCE('_' || CAST(CAST(NULLIF((SELECT value FROM measurements WHERE run = r.id AND metric = 'task'), -1)
					   AS INTEGER) AS TEXT), '') = r.backend_id
		AND (SELECT value FROM measurements WHERE run = r.id AND metric = 'n') =
		    (SELECT value FROM point_values WHERE point = r.point)")
	echo $n
}
# common WORDS1 WORDS2: the words in both
common() { comm -12 <(tr ' ' '\n' <<<"$1" | sort) <(tr ' ' '\n' <<<"$2" | sort) | grep . | tr '\n' ' '; }
session() { grep '^this session:' "$1"; }
# live CAMPAIGN STATE: its jobs and array tasks in that state (R, PD)
live() { squeue -h -r -t "$2" -o %j | grep -c "^ps:$1:" || true; }
# was_cancelled ID: the job log says job (or array task JOB_TASK) ID was cancelled
was_cancelled() {
	case $1 in
	*_*) grep -q "JobState=CANCELLED .* ArrayJobId=${1%_*} ArrayTaskId=${1#*_} " "$cdir/log/jobcomp.log" ;;
	*) grep -q "JobId=$1 .*JobState=CANCELLED" "$cdir/log/jobcomp.log" ;;
	esac
}

fresh() {   # NAME DIR OLD_JOBS RUNS: the checks after running a recreated campaign
	local out=$2.out
	is "$(session "$out")" "this session: $4 started, 0 retried, 0 re-run after a restart, 0 adopted" \
		"$1: every run started afresh, none adopted"
	is "$(status_field "$2" done)" "$4" "$1: all $4 runs done"
	is "$(own_values "$2")" "$4" "$1: each run's values are its own new job's, under its own point"
	is "$(common "$3" "$(store_jobs "$2")")" "" "$1: no job of the old store is recorded"
}

# 1. completed, directory removed, run again
config c1 '1, 2, 3, 4' 4
run_campaign "$work/c1.cfg" "$work/c1" "c1: the first campaign completes"
old=$(store_jobs "$work/c1")
rm -rf "$work/c1"
run_campaign "$work/c1.cfg" "$work/c1" "c1: the campaign made afresh in the same directory completes"
fresh c1 "$work/c1" "$old" 4
is "$(grep -c '^warning:' "$work/c1.out")" 0 "c1: the old store's finished jobs are not worth a warning"

# 2. completed, only campaign.db* removed: runs/ and its job.done records kept
config c2 '1, 2, 3, 4' 4
run_campaign "$work/c2.cfg" "$work/c2" "c2: the first campaign completes"
old=$(store_jobs "$work/c2")
rm -f "$work/c2"/campaign.db*
run_campaign "$work/c2.cfg" "$work/c2" "c2: the campaign made afresh over the old runs/ completes"
fresh c2 "$work/c2" "$old" 4

# 3. the old store's jobs still running (4 nodes) and queued (2) when the
#    store is made afresh
config c3 '1, 2, 3, 4, 5, 6' 6
touch "$work/hold"
"$perfsweep" run "$work/c3.cfg" --dir "$work/c3" --quiet >"$work/c3-first.out" 2>&1 &
bgpid=$!
c3_first() { [ "$(live c3 R)" = 4 ] && [ "$(live c3 PD)" = 2 ]; }
wait_until 120 c3_first
ok $? "c3: the first orchestrator's jobs: 4 running, 2 queued"
kill -9 $bgpid
wait $bgpid 2>/dev/null
bgpid=
old=$(squeue -h -r -o '%i %j' | awk '$2 ~ /^ps:c3:/ { print $1 }' | sort -n | tr '\n' ' ')
rm -f "$work/c3"/campaign.db*
"$perfsweep" run "$work/c3.cfg" --dir "$work/c3" --quiet >"$work/c3.out" 2>&1 &
bgpid=$!
# the new store submits its own 6 jobs; they queue behind the old ones
c3_queued() { [ "$(live c3 PD)" = 8 ]; }
wait_until 120 c3_queued
ok $? "c3: the new store queued its own 6 jobs behind the old store's 6"
# (that none of the old store's jobs is cancelled is read from the job log
# below: a count of running jobs at this moment also moved with the load)
rm -f "$work/hold"
wait_until 180 sh -c "! kill -0 $bgpid 2>/dev/null || [ \"\$(awk '/^State:/ {print \$2}' /proc/$bgpid/status 2>/dev/null)\" = Z ]"
wait $bgpid
rc=$?
bgpid=
is "$rc" 0 "c3: the campaign made afresh completes"
[ $rc = 0 ] || diag < "$work/c3.out"
fresh c3 "$work/c3" "$old" 6
warn=$(grep '^warning:' "$work/c3.out")
is "$(grep -c '^warning:' "$work/c3.out")" 1 "c3: the old store's live jobs are told of once"
# an array is named once, by its job id
oldj=$(for j in $old; do echo "${j%_*}"; done | sort -un | tr '\n' ' ')
told=$(for j in $oldj; do case "$warn" in *" $j (ps:c3:"*) echo "$j" ;; esac; done | tr '\n' ' ')
is "$told" "$oldj" "c3: the warning names each of them"
note "$warn"
cancelled=$(for j in $old; do was_cancelled "$j" && echo "$j"; done | tr '\n' ' ')
is "$cancelled" "" "c3: none of the old store's jobs was cancelled"

# 4. jobs cancelled earlier
config c4 '1, 2, 3, 4' 4
touch "$work/hold"
"$perfsweep" run "$work/c4.cfg" --dir "$work/c4" --quiet >"$work/c4-first.out" 2>&1 &
bgpid=$!
c4_running() { [ "$(live c4 R)" = 4 ]; }
wait_until 120 c4_running
ok $? "c4: 4 jobs running"
is "$("$perfsweep" cancel "$work/c4" 2>&1)" "cancelled 4 runs (4 slurm jobs killed)" "c4: the campaign is cancelled"
wait_until 60 sh -c "! kill -0 $bgpid 2>/dev/null || [ \"\$(awk '/^State:/ {print \$2}' /proc/$bgpid/status 2>/dev/null)\" = Z ]"
wait $bgpid
bgpid=
old=$(store_jobs "$work/c4")
rm -f "$work/hold"
rm -rf "$work/c4"
run_campaign "$work/c4.cfg" "$work/c4" "c4: the campaign made afresh completes"
fresh c4 "$work/c4" "$old" 4

# 5. a backslash in the campaign directory
config c5 '1' 1
out=$("$perfsweep" run "$work/c5.cfg" --dir "$work/back\\slash" 2>&1)
is "$?" 2 "c5: a campaign directory with a backslash is refused"
is "$out" "error: '$work/back\\slash' contains a backslash, which slurm removes from the output paths of jobs: use a campaign directory without one" \
	"c5: in one line that says why"
[ -e "$work/back\\slash" ]
is "$?" 1 "c5: and nothing is made"

done_testing
