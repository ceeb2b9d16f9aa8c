#!/usr/bin/env bash
# check: alone (its busy loops would disturb the tests beside it: scripts/check-tests.sh)
# perfsweep probe CONFIG: the campaign's cheapest point a few times now, and
# "go" or "the machine is busy".  The truths are made here: a busy loop this
# test binds to the probe's core (the first: one run at a time takes the
# lowest free one), in a session of its own, at a higher priority, makes it
# busy and is named; a program that sleeps cannot be disturbed (nothing of
# it waits for a CPU), whatever else the machine runs, so its probe says go.
. "$(dirname "$0")/../lib/tap.sh"

trap '[ -n "$loop" ] && kill "$loop" 2> /dev/null; rm -rf "$T"' EXIT
cpu=$(hwloc-calc --physical-output --intersect PU core:0 2> /dev/null | cut -d, -f1)
[ -n "$cpu" ] || cpu=0
# (it creates the file named by its argument once it runs)
printf '#!/bin/bash\n: > "$1"\nwhile [ $SECONDS -lt 120 ]; do :; done\n' > "$T/busyloop"
chmod +x "$T/busyloop"
mkdir "$T/tmp"
export TMPDIR=$T/tmp

# cfg NAME APP-WORDS: two sizes, the cheapest first to be found
cfg() {
	cat > "$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ $2 ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 64, 56 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 4;
collect = { wall = true; };
CFG
}

# 1. busy: a busy loop on the probe's core
# (long enough to be judged, 0.1 s, on a fast core too: section 4)
cfg work "\"$DEMO\", \"-n\", \"{n}\", \"-i\", \"6\", \"-k\", \"stream\""
setsid nice -n -10 taskset -c "$cpu" "$T/busyloop" "$T/ready" 2> /dev/null &
loop=$!
# the probe starts once the loop runs: a loaded machine may start it late
while [ ! -e "$T/ready" ]; do sleep 0.01; done
"$PS" probe "$T/work.cfg" --runs 3 --json > "$T/busy.json" 2> "$T/busy.err"
is $? 3 "busy: exit 3"
is "$(json "$T/busy.json" '$j->{verdict}')" busy "busy: the verdict"
is "$(json "$T/busy.json" '$j->{point} . ", " . $j->{runs} . " runs, " . $j->{done} . " done"')" \
   "n=56, np=1, 3 runs, 3 done" "the cheapest point, three times"
is "$(json "$T/busy.json" "scalar grep { \$_->{pid} == $loop && \$_->{command} eq 'busyloop' && \$_->{core} == $cpu && \$_->{share} > 0 } @{\$j->{causes}}")" \
   1 "busy: the busy loop is named, with its core and share"
is "$(json "$T/busy.json" '$j->{repetitions} . " " . join(",", sort keys %{$j->{detectable_growth}})')" "4 n" \
   "what the campaign's 4 repetitions can detect, along n"
"$PS" probe "$T/work.cfg" --runs 2 > "$T/busy.txt" 2>&1
is $? 3 "busy (text): exit 3"
like "$(tail -1 "$T/busy.txt")" "the machine is busy: " "the last line says busy"
like "$(tail -1 "$T/busy.txt")" "; wait or use an exclusive node" "and what to do"
like "$(cat "$T/busy.txt")" "signals: " "the text says which signals this machine offers"
kill "$loop"; wait "$loop" 2> /dev/null; loop=

# 2. go: a program that sleeps
cfg sleeps '"sleep", "1"'
"$PS" probe "$T/sleeps.cfg" --runs 2 > "$T/go.txt" 2>&1
is $? 0 "go: exit 0"
is "$(tail -1 "$T/go.txt")" go "the last line says go"
like "$(cat "$T/go.txt")" "disturbed: none of 2 runs" "no run disturbed"
like "$(cat "$T/go.txt")" "detectable at 4 repetitions (alpha 0.01, power 80%): a difference of " \
     "what the campaign's repetitions can detect at today's noise"

# 3. the scratch campaign goes; --dir keeps it
is "$(ls "$T/tmp")" "" "the probe's scratch campaign is removed"
"$PS" probe "$T/sleeps.cfg" --runs 2 --dir "$T/kept" --json > /dev/null 2>&1
"$PS" status "$T/kept" --json > "$T/kept.json"
is "$(json "$T/kept.json" '$j->{done}')" 2 "--dir keeps it, with its two runs done"
"$PS" probe "$T/sleeps.cfg" --dir "$T/kept" > /dev/null 2> "$T/again.err"
is $? 1 "--dir refuses a directory that exists"

# 4. runs too short to judge (under 0.1 s) say nothing of the machine: the
#    next dearer point is probed; when every point is that short, no "go"
naps() {
	cat > "$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ "sleep", "{s}" ]; timeout = 60.0; };
parameters = ( { name = "s"; values = [ $2 ]; } );
repetitions = 2;
collect = { wall = true; };
CFG
}
naps short "0.01, 0.3"
"$PS" probe "$T/short.cfg" --runs 2 --json > "$T/short.json" 2> "$T/short.err"
is $? 0 "a point too short to judge, and a longer one: exit 0"
is "$(json "$T/short.json" '$j->{point} . " after " . join(",", @{$j->{too_short}}) . ": " . $j->{verdict} . ", " . $j->{judged} . " judged"')" \
   "s=0.3 after s=0.01: go, 2 judged" "the longer point is probed, and says which it skipped"
"$PS" probe "$T/short.cfg" --runs 2 > "$T/short.txt" 2>&1
like "$(head -1 "$T/short.txt")" "point s=0.3 (s=0.01: every run under 0.1 s, too short to judge)" "the text says so"
naps shorter "0.01, 0.02"
"$PS" probe "$T/shorter.cfg" --runs 2 > "$T/shorter.txt" 2>&1
is $? 3 "every point too short: exit 3, not go"
is "$(tail -1 "$T/shorter.txt")" "not judged: every run lasted under 0.1 s, too short to tell; probe a larger input" \
   "the last line says why"
like "$(cat "$T/shorter.txt")" "disturbed: not judged (every run under 0.1 s)" "and the disturbed line"
done_testing
