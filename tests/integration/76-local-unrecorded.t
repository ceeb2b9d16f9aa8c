#!/usr/bin/env bash
# Local backend: a program started but not yet recorded in the store when
# `perfsweep run` is killed with -9 is adopted by the next `run`, never run
# again beside itself.  The window is stretched here by holding the store's
# write lock (as any other writer may) while the run starts, then killing
# the orchestrator.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/app.sh" <<'APP'
#!/bin/sh
echo "start $PERFSWEEP_RUN_ID $$" >> "$LOG"
sleep 6
echo "end $PERFSWEEP_RUN_ID $$" >> "$LOG"
APP
chmod +x "$T/app.sh"
export LOG="$T/exec.log"
cat > "$T/c.cfg" <<CFG
name = "unrec";
app = { command = [ "$T/app.sh" ]; };
parameters = ( { name = "n"; values = [ 1 ]; } );
repetitions = 1;
CFG
DB="$T/unrec.campaign/campaign.db"

wait_for() {   # wait_for PATTERN: until the log has it (at most 20 s)
	for _ in $(seq 200); do grep -q "$1" "$LOG" 2> /dev/null && return 0; sleep 0.1; done
	return 1
}

# 1. a store with the run pending: start, then stop cleanly
"$PS" run "$T/c.cfg" --jobs 1 --quiet > /dev/null 2>&1 &
p=$!
wait_for start
kill -TERM $p; wait $p 2> /dev/null
: > "$LOG"

# 2. hold the write lock, start again: the program starts, its record waits
(echo "BEGIN IMMEDIATE;"; sleep 5; echo "COMMIT;") | sqlite3 "$DB" &
holder=$!
sleep 0.5
"$PS" run "$T/c.cfg" --jobs 1 --quiet > /dev/null 2>&1 &
p=$!
wait_for start
ok $? "the program started while its record waited for the lock"
sleep 0.3
kill -9 $p; wait $p 2> /dev/null
wait $holder

# 3. resume while the unrecorded program still runs: it is adopted
"$PS" run "$T/c.cfg" --jobs 1 > "$T/out" 2>&1
is $? 0 "the resumed campaign completes"
like "$(cat "$T/out")" "run 1: adopted: still running" "the unrecorded execution is adopted"
is "$(grep -c '^start 1 ' "$LOG"):$(grep -c '^end 1 ' "$LOG")" 1:1 "run 1 started and finished exactly once"
is "$("$PS" status "$T/unrec.campaign" --json | sed -n 's/^  "done": \([0-9]*\).*/\1/p')" 1 "and is done"
done_testing
