#!/usr/bin/env bash
# Whole campaigns through `perfsweep run` on a private SLURM cluster: job
# records, a failing run retried, kill -9 of the orchestrator and resume
# without duplicate jobs, a slurmctld outage mid-campaign, cancel, and
# growth refused before it writes (another backend, no slurm config).
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init

# config NAME PARTITION MAX_INFLIGHT COMMAND-LIST PARAMETERS [MAX_ATTEMPTS]
config() {
	cat >"$work/$1.cfg" <<CFG
name = "$1";
app = { command = [ $4 ]; };
parameters = ( $5 );
repetitions = 1;
max_attempts = ${6:-1};
backend = { type = "slurm"; partition = "$2"; max_inflight = $3; time_limit = 5; };
collect = { wall = true; regex = ( { region = "k"; metric = "time"; pattern = "^time: ([0-9.]+)"; } ); };
CFG
}

# duplicated PREFIX: job names with this prefix submitted more than once
# (an array task counts as its run's own job: slurm_jobs)
duplicated() { slurm_jobs | grep -o "^$1[0-9.]* " | sort | uniq -d | tr '\n' ' '; }
njobs() { slurm_jobs | grep -c "^$1[0-9.]* " || true; }

# 1. A failing run is retried; ranks become job tasks.
mkdir -p "$work/marks"
config retry emu 4 "\"/bin/sh\", \"-c\", \"if [ {n} = 2 ] && mkdir $work/marks/{run} 2>/dev/null; then exit 1; fi; echo time: {n}\"" \
	'{ name = "n"; values = [ 1, 2, 3 ]; }, { name = "p"; values = [ 1, 2 ]; role = "ranks"; }' 2
"$perfsweep" run "$work/retry.cfg" --dir "$work/retry" --quiet >"$work/retry.out" 2>&1
rc=$?
is "$rc" 0 "campaign with a failing run exits 0 after the retry"
[ $rc = 0 ] || diag < "$work/retry.out"
is "$(status_field "$work/retry" done)" 6 "all 6 runs done"
is "$(status_field "$work/retry" failed)" 0 "none failed"
slurm_jobcomp >"$work/jobcomp.log"
is "$(grep -c 'Name=ps:retry:[0-9]*\.1 JobState=FAILED' "$work/jobcomp.log")" 2 "two first attempts failed (n = 2, both rank counts)"
# job names are ps:<campaign>:<run>.<attempt>
failed=$(grep -o 'Name=ps:retry:[0-9]*\.1 JobState=FAILED' "$work/jobcomp.log" | cut -d' ' -f1 | sed 's/\.1$//' | sort)
again=$(for f in $failed; do grep -q "$f\.2 JobState=COMPLETED" "$work/jobcomp.log" && echo "$f"; done | tr '\n' ' ')
is "$again" "$(echo "$failed" | tr '\n' ' ')" "each failed run completed on its second attempt's job"
is "$(njobs ps:retry:)" 8 "8 jobs for 6 runs"
is "$(scontrol -o show jobs | grep 'JobName=ps:retry:' | grep -c 'NumTasks=2 ')" 4 "runs with p = 2 asked for 2 tasks (3 done + 1 failed)"
is "$(scontrol -o show jobs | grep 'JobName=ps:retry:' | grep -c 'OverSubscribe=NO ')" 8 "every job has its nodes exclusively"
"$perfsweep" export "$work/retry" --format csv >"$work/retry.csv" 2>&1
ok $? "measurements export"
grep -q '^.*k.*time' "$work/retry.csv"
ok $? "regex measurement collected from rank 0's stdout"

# 2. kill -9 of the orchestrator mid-campaign, then resume: no job twice.
config kill emu 2 '"/bin/sh", "-c", "sleep 1; echo time: {n}"' '{ name = "n"; values = [ 1, 2, 3, 4, 5, 6, 7, 8 ]; }'
"$perfsweep" run "$work/kill.cfg" --dir "$work/kill" --quiet >"$work/kill1.out" 2>&1 &
bgpid=$!
wait_until 60 sh -c "[ \"\$($perfsweep status $work/kill --json 2>/dev/null | sed -n 's/^  \"done\": \\([0-9]*\\).*/\\1/p')\" -ge 2 ] 2>/dev/null"
ok $? "campaign under way (2 runs done)"
kill -9 $bgpid
wait $bgpid 2>/dev/null
bgpid=
inflight=$(slurm_jobs | grep -c '^ps:kill:.* \(PENDING\|RUNNING\)$')
note "jobs in flight after kill -9: $inflight"
"$perfsweep" run "$work/kill.cfg" --dir "$work/kill" >"$work/kill2.out" 2>&1
rc=$?
is "$rc" 0 "resumed campaign completes"
[ $rc = 0 ] || diag < "$work/kill2.out"
note "$(grep 'this session' "$work/kill2.out")"
is "$(status_field "$work/kill" done)" 8 "all 8 runs done"
is "$(duplicated ps:kill:)" "" "no run was submitted twice"
is "$(njobs ps:kill:)" 8 "exactly 8 jobs"

# 3. slurmctld down for several seconds mid-campaign.
config outage emu 2 '"/bin/sh", "-c", "sleep 1; echo time: {n}"' '{ name = "n"; values = [ 1, 2, 3, 4, 5, 6 ]; }'
"$perfsweep" run "$work/outage.cfg" --dir "$work/outage" --quiet >"$work/outage.out" 2>&1 &
bgpid=$!
wait_until 60 sh -c "[ \"\$($perfsweep status $work/outage --json 2>/dev/null | sed -n 's/^  \"done\": \\([0-9]*\\).*/\\1/p')\" -ge 1 ] 2>/dev/null"
ok $? "campaign under way (1 run done)"
"$root/tests/slurm/cluster.sh" ctld-stop "$cdir"
ok $? "slurmctld stopped"
sleep 6
kill -0 $bgpid 2>/dev/null
ok $? "orchestrator still waiting while slurmctld is down"
"$root/tests/slurm/cluster.sh" ctld-start "$cdir"
ok $? "slurmctld restarted"
wait_until 120 sh -c "! kill -0 $bgpid 2>/dev/null || [ \"\$(awk '/^State:/ {print \$2}' /proc/$bgpid/status 2>/dev/null)\" = Z ]"
wait $bgpid
rc=$?
bgpid=
is "$rc" 0 "campaign completes after the outage"
[ $rc = 0 ] || diag < "$work/outage.out"
is "$(status_field "$work/outage" done)" 6 "all 6 runs done"
is "$(status_field "$work/outage" failed)" 0 "no run failed because of the outage"
is "$(duplicated ps:outage:)" "" "no run was submitted twice"

# 3b. A campaign started while slurmctld is down waits for it.
config down emu 2 '"/bin/sh", "-c", "echo time: {n}"' '{ name = "n"; values = [ 1, 2 ]; }'
"$root/tests/slurm/cluster.sh" ctld-stop "$cdir"
"$perfsweep" run "$work/down.cfg" --dir "$work/down" --quiet >"$work/down.out" 2>&1 &
bgpid=$!
sleep 3
kill -0 $bgpid 2>/dev/null
ok $? "orchestrator started without a controller waits"
is "$(status_field "$work/down" failed)" 0 "and fails nothing"
"$root/tests/slurm/cluster.sh" ctld-start "$cdir"
wait_until 120 sh -c "! kill -0 $bgpid 2>/dev/null || [ \"\$(awk '/^State:/ {print \$2}' /proc/$bgpid/status 2>/dev/null)\" = Z ]"
wait $bgpid
rc=$?
bgpid=
is "$rc" 0 "campaign completes once the controller is up"
[ $rc = 0 ] || diag < "$work/down.out"
is "$(status_field "$work/down" done)" 2 "both runs done"

# 4. perfsweep cancel.
config cancel emu 4 '"/bin/sleep", "60"' '{ name = "n"; values = [ 1, 2, 3, 4 ]; }'
"$perfsweep" run "$work/cancel.cfg" --dir "$work/cancel" --quiet >"$work/cancel.out" 2>&1 &
bgpid=$!
cancel_jobs() { slurm_jobs | grep "^ps:cancel:[1-4]\.1 $1\$" | wc -l; }
wait_until 60 sh -c "[ \"\$(squeue -h -t R | wc -l)\" = 4 ]"
ok $? "4 jobs running"
out=$("$perfsweep" cancel "$work/cancel" 2>&1)
ok $? "perfsweep cancel exits 0"
is "$out" "cancelled 4 runs (4 slurm jobs killed)" "cancel reports what it did"
wait_until 30 sh -c "[ -z \"\$(squeue -h)\" ]"
ok $? "no job left in the queue"
is "$(cancel_jobs CANCELLED)" 4 "the 4 jobs are cancelled in SLURM"
wait_until 30 sh -c "! kill -0 $bgpid 2>/dev/null"
wait $bgpid
is "$?" 0 "the running orchestrator stops without failures"
bgpid=
is "$(status_field "$work/cancel" cancelled)" 4 "4 runs cancelled in the store"
is "$(njobs ps:cancel:)" 4 "cancelled runs were not retried"
"$perfsweep" cancel "$work/cancel" --run 99 >/dev/null 2>&1
is "$?" 2 "cancel --run of an unknown run is a usage error"
"$perfsweep" cancel "$work/cancel" --run x >/dev/null 2>&1
is "$?" 2 "cancel --run x is a usage error"

# 5. A clear error without a SLURM config.
out=$(SLURM_CONF=$work/none.conf "$perfsweep" run "$work/cancel.cfg" --dir "$work/noconf" 2>&1)
is "$?" 2 "run without the slurm config exits 2"
case "$out" in *"slurm config '$work/none.conf' (from SLURM_CONF) does not exist"*) r=0 ;; *) r=1 ;; esac
ok $r "and says which config is missing"
[ $r = 0 ] || diag "$out"

printf 'ClusterName=x\nNoSuchKey=1\n' >"$work/bad.conf"
out=$(SLURM_CONF=$work/bad.conf "$perfsweep" run "$work/cancel.cfg" --dir "$work/badconf" 2>&1)
is "$?" 2 "run with an unparsable slurm config exits 2"
case "$out" in *"cannot read slurm config '$work/bad.conf': _parse_next_key: Parsing error at unrecognized key: NoSuchKey"*) r=0 ;; *) r=1 ;; esac
ok $r "and quotes libslurm's complaint"
[ $r = 0 ] || diag "$out"

# 6. Growth never changes what stored runs mean, and refuses before it writes:
# a local campaign switched to slurm (the cluster's slurm.conf reachable),
# and a slurm campaign grown while no slurm.conf can be read.
cat >"$work/move.cfg" <<CFG
name = "move";
app = { command = [ "/bin/sh", "-c", "echo time: {n}" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; } );
repetitions = 1;
collect = { wall = true; regex = ( { region = "k"; metric = "time"; pattern = "^time: ([0-9.]+)"; } ); };
CFG
"$perfsweep" run "$work/move.cfg" --dir "$work/move" --quiet >/dev/null 2>&1
is "$?" 0 "a local campaign runs"
sqlite3 "$work/move/campaign.db" .dump >"$work/move.before"
sed 's/^repetitions = 1;/repetitions = 1;\nbackend = { type = "slurm"; partition = "emu"; time_limit = 5; };/' \
	"$work/move.cfg" >"$work/move-slurm.cfg"
out=$("$perfsweep" run "$work/move-slurm.cfg" --dir "$work/move" 2>&1)
is "$?" 2 "switching it to slurm exits 2, with slurm.conf reachable"
case "$out" in *"backend differs from the campaign in '$work/move' (\"local\" there, \"slurm\" here"*) r=0 ;; *) r=1 ;; esac
ok $r "naming the key, its old and new values"
[ $r = 0 ] || diag "$out"
sqlite3 "$work/move/campaign.db" .dump >"$work/move.after"
cmp -s "$work/move.before" "$work/move.after"
ok $? "the store is unchanged"
is "$(njobs ps:move:)" 0 "and no job was submitted"

config grow emu 4 '"/bin/sh", "-c", "echo time: {n}"' '{ name = "n"; values = [ 1 ]; }'
"$perfsweep" run "$work/grow.cfg" --dir "$work/grow" --quiet >/dev/null 2>&1
is "$?" 0 "a slurm campaign runs"
sqlite3 "$work/grow/campaign.db" .dump >"$work/grow.before"
sed 's/values = \[ 1 \]/values = [ 1, 2 ]/' "$work/grow.cfg" >"$work/grow2.cfg"
out=$(SLURM_CONF=$work/none.conf "$perfsweep" run "$work/grow2.cfg" --dir "$work/grow" 2>&1)
is "$?" 2 "growing it without a slurm config exits 2"
sqlite3 "$work/grow/campaign.db" .dump >"$work/grow.after"
cmp -s "$work/grow.before" "$work/grow.after"
ok $? "before the campaign grew"

done_testing
