#!/usr/bin/env bash
# One orchestrator per campaign: two `perfsweep run` at once on one
# directory -- exactly one runs, the other exits 2 naming the holder; every
# run executes exactly once.  A holder killed with -9 leaves no lock behind.
# `import` into a directory a `run` holds is refused too.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/app.sh" <<'APP'
#!/bin/sh
echo "$PERFSWEEP_RUN_ID" >> "$LOG"
sleep 0.2
APP
chmod +x "$T/app.sh"
export LOG="$T/exec.log"
cat > "$T/c.cfg" <<CFG
name = "lock";
app = { command = [ "$T/app.sh", "{n}" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 3, 4, 5 ]; } );
repetitions = 4;
CFG

"$PS" run "$T/c.cfg" --jobs 2 --quiet > "$T/a.out" 2> "$T/a.err" &
a=$!
"$PS" run "$T/c.cfg" --jobs 2 --quiet > "$T/b.out" 2> "$T/b.err" &
b=$!
wait $a; ra=$?
wait $b; rb=$?
is "$(printf '%s\n' $ra $rb | sort | tr '\n' ' ')" "0 2 " "two runs at once: one runs (exit 0), the other is refused (exit 2)"
refused=$(cat "$T/a.err" "$T/b.err")
like "$refused" "campaign $T/lock.campaign is being run by pid " "the refusal names the directory and the holder's pid"
like "$refused" "(since " "and since when it holds the campaign"
is "$(wc -l < "$LOG")" 20 "20 runs, 20 executions"
is "$(sort -u "$LOG" | wc -l)" 20 "no run executed twice"

# kill -9 of the holder: the kernel drops the lock; a resume is not refused
cat > "$T/slow.cfg" <<CFG
name = "slow";
app = { command = [ "/bin/sleep", "{t}" ]; };
parameters = ( { name = "t"; values = [ 5 ]; } );
repetitions = 2;
CFG
"$PS" run "$T/slow.cfg" --jobs 1 --quiet > /dev/null 2>&1 &
h=$!
sleep 0.5
"$PS" import --text "$T/c.cfg" --out "$T/slow.campaign" > "$T/imp.out" 2>&1
is $? 2 "import into a campaign that a run holds is refused"
like "$(cat "$T/imp.out")" "is being run by pid $h" "naming the run's pid"
kill -9 $h; wait $h 2> /dev/null
"$PS" run "$T/slow.cfg" --quiet --dir "$T/slow.campaign" > /dev/null 2> "$T/resume.err" &
r=$!
sleep 0.5
ok $(! grep -q "is being run" "$T/resume.err"; echo $?) "a lock left by a killed run is no lock"
kill $r; wait $r 2> /dev/null

# --dir that cannot be a campaign directory
"$PS" run "$T/c.cfg" --dir "" > /dev/null 2> "$T/e1"
is $? 2 "--dir '' is refused with exit 2"
like "$(cat "$T/e1")" "empty" "saying it is empty"
"$PS" run "$T/c.cfg" --dir "$T/d
touch $T/injected
#" > /dev/null 2> "$T/e2"
is $? 2 "a --dir with a newline is refused with exit 2"
like "$(cat "$T/e2")" "control character" "naming the control character"
ok $([ ! -e "$T/injected" ]; echo $?) "nothing ran"
: > "$T/file"
"$PS" run "$T/c.cfg" --dir "$T/file/sub" > /dev/null 2> "$T/e3"
is $? 2 "a --dir below a regular file is refused"
like "$(cat "$T/e3")" "Not a directory" "as not a directory"
done_testing
