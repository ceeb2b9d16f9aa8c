#!/usr/bin/env bash
# One bound on how often a run starts (campaign/run_state.h,
# run_may_start_again): a program that removes its run directory, replaces
# it with a file, or kills its supervisor never makes perfsweep start it
# without end, and the reason given is true.  Each execution appends a line
# to a log outside the campaign; a watchdog ends a run that would loop.
. "$(dirname "$0")/../lib/tap.sh"

ended() {   # ended PID SECONDS: 0 when PID ended within SECONDS (killed otherwise)
	local n=$(($2 * 10))
	while kill -0 "$1" 2>/dev/null && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	if kill -0 "$1" 2>/dev/null; then kill -9 "$1" 2>/dev/null; wait "$1" 2>/dev/null; return 1; fi
	return 0
}
cfg() {  # cfg NAME SHELL-CODE
	cat > "$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ "/bin/sh", "-c", "echo run >> '$T/$1.log'; echo 't: 1'; $2" ]; };
parameters = ( { name = "n"; values = [ 1 ]; } );
repetitions = 1;
max_attempts = 2;
collect = { regex = ( { region = "r"; metric = "t"; pattern = "^t: ([0-9]+)"; } ); };
CFG
	: > "$T/$1.log"
}
run_bg() {   # run_bg NAME: perfsweep run with a 120 s watchdog; its exit status in $rc
	"$PS" run "$T/$1.cfg" > "$T/$1.out" 2>&1 &
	local pid=$!
	ended $pid 120; ok $? "$1: run ends (watchdog 120 s)"
	wait $pid; rc=$?
}
reason() { "$PS" status "$T/$1.campaign" --json | json /dev/stdin '$j->{problems}[0]{reason}'; }

# 1. the program removes its run directory: its supervisor makes it again
#    for the end note, so the run executed once and ended as it did
cfg gone 'rm -rf {run_dir}'
run_bg gone
is "$(wc -l < "$T/gone.log")" 1 "gone: the program executed once"
is "$("$PS" status "$T/gone.campaign" --json | json /dev/stdin '$j->{done}')" 1 "gone: the run is done"
ok $(! grep -q "never started" "$T/gone.out"; echo $?) "gone: nothing says it never started"

# 2. the program replaces its run directory with a file: no end note can be
#    written; that is the run's failure, tried max_attempts = 2 times
cfg file 'rm -rf {run_dir}; touch {run_dir}'
run_bg file
is "$rc" 1 "file: exit 1, the run failed"
is "$(wc -l < "$T/file.log")" 2 "file: executed max_attempts = 2 times"
like "$(reason file)" "it ended, but its end note could not be written in '$T/file.campaign/runs/1'" \
	"file: the reason says what happened"

# 3. the program kills its supervisor: killed mid-way each time, started
#    again within max_attempts + 8 attempts, then failed saying so
cfg kill 'kill -9 $PPID; sleep 1'
run_bg kill
is "$rc" 1 "kill: exit 1, the run failed"
is "$(wc -l < "$T/kill.log")" 10 "kill: executed max_attempts + 8 = 10 times"
like "$(reason kill)" "gave up after 10 attempts: killed mid-way: its supervisor was killed by signal 9" \
	"kill: the reason says why it stopped"
like "$(cat "$T/kill.out")" "0 re-run after a restart, 0 adopted, 9 started again (an attempt ended without a result)" \
	"kill: the session's reruns are not counted as after a restart"
is "$(sqlite3 "$T/kill.campaign/campaign.db" "SELECT attempts FROM runs WHERE id = 1")" 10 "kill: the store counts 10 attempts"

done_testing
