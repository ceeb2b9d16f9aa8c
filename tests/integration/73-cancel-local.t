#!/usr/bin/env bash
# perfsweep cancel on the local backend: in-flight runs' process groups are
# killed, pending runs are cancelled before they start, the running
# orchestrator stops, and done runs are kept.
. "$(dirname "$0")/../lib/tap.sh"

cat >"$T/c.cfg" <<CFG
name = "lc";
app = { command = [ "/bin/sh", "-c", "if [ {n} = 1 ]; then echo time: 1; else sleep 61.4321; fi" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 3, 4, 5 ]; } );
repetitions = 1;
order = "grouped";   # run 1 finishes first
collect = { regex = ( { region = "k"; metric = "time"; pattern = "^time: ([0-9.]+)"; } ); };
CFG
"$PS" run "$T/c.cfg" --dir "$T/lc" --jobs 2 --quiet >"$T/run.out" 2>&1 &
bg=$!
field() { "$PS" status "$T/lc" --json 2>/dev/null | sed -n "s/^  \"$1\": \([0-9]*\).*/\1/p"; }
running() { [ "$(field running)" = 2 ] && [ "$(field done)" = 1 ]; }
for ((i = 0; i < 100; i++)); do running && break; sleep 0.1; done
running; ok $? "run 1 done, two runs in flight"
pgids=$(ps -eo pgid=,args= | awk '/sleep 61[.]4321/ && !/awk/ { print $1 }' | sort -u | tr '\n' ' ')
is "$(echo $pgids | wc -w)" 2 "two process groups sleeping"
out=$("$PS" cancel "$T/lc" 2>&1); rc=$?
is "$rc" 0 "cancel exits 0"
is "$out" "cancelled 4 runs (2 process groups killed)" "cancel reports what it did"
for ((i = 0; i < 100; i++)); do kill -0 $bg 2>/dev/null || break; sleep 0.1; done
wait $bg; is "$?" 0 "the running orchestrator stops"
left=$(ps -eo pgid=,stat=,args= | awk '/sleep 61[.]4321/ && !/awk/ && $2 !~ /Z/' | wc -l)
is "$left" 0 "no run's process is left ($pgids)"
is "$("$PS" status "$T/lc" --json | sed -n 's/^  "cancelled": \([0-9]*\).*/\1/p')" 4 "4 runs cancelled"
is "$("$PS" status "$T/lc" --json | sed -n 's/^  "done": \([0-9]*\).*/\1/p')" 1 "the done run is kept"
out=$("$PS" cancel "$T/lc" --run 1 2>&1); rc=$?
is "$rc:$out" "0:run 1 is done: nothing to cancel
cancelled 0 runs (0 process groups killed)" "cancelling a done run changes nothing"
"$PS" cancel "$T/lc" --bogus >/dev/null 2>&1; is "$?" 2 "unknown option is a usage error"
"$PS" cancel >/dev/null 2>&1; is "$?" 2 "missing DIR is a usage error"
"$PS" cancel "$T/nothing-here" >/dev/null 2>&1; is "$?" 2 "a directory without a campaign is an input error"
done_testing
