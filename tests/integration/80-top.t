#!/usr/bin/env bash
# perfsweep top end to end: a real local campaign runs while the monitor is
# driven in a private tmux server (send-keys) and read back (capture-pane):
# progress advances, navigation, details, filter, sort, cancel, resize,
# NO_COLOR, and the terminal is restored on q and on Ctrl-C.
. "$(dirname "$0")/../lib/tap.sh"

if ! command -v tmux > /dev/null; then
	echo "1..0 # SKIP tmux is not installed"
	exit 0
fi

SOCK="pstop-$$"
TM="tmux -L $SOCK -f /dev/null"
RUNPID=
cleanup() {
	$TM kill-server 2> /dev/null
	if [ -n "$RUNPID" ] && kill -0 "$RUNPID" 2> /dev/null; then
		kill -INT "$RUNPID" 2> /dev/null
		wait "$RUNPID" 2> /dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT

# Short runs first (s = 1.5), then long ones (s = 600) to cancel.  They
# must outlast the test: beside two busy loops it took over 60 s, and with
# s = 60 run 6 ended and run 8 started before the state filter looked for
# the one pending run.
cat > "$T/top.cfg" <<CFG
name = "toptest";
app = { command = [ "$DEMO", "-n", "{n}", "-i", "1", "-k", "setup", "-s", "{s}" ]; timeout = 900.0; };
parameters = (
  { name = "n"; values = [ 20 ]; },
  { name = "s"; values = [ 1.5, 600.0 ]; }
);
repetitions = 4;
order = "grouped";   # short runs first, then the long ones
backend = "local";
collect = { wall = true; };
CFG
CAMP="$T/toptest.campaign"

screen() { $TM capture-pane -p -t "$1"; }
# wait_for SESSION TEXT [SECONDS]: poll the screen until TEXT shows up
wait_for() {
	local i n=$(( ${3:-10} * 5 ))
	for ((i = 0; i < n; i++)); do
		screen "$1" | grep -qF -- "$2" && return 0
		sleep 0.2
	done
	return 1
}
# wait_absent SESSION TEXT [SECONDS]: poll until TEXT is off the screen (a
# capture can fall between the message line's update and the table's)
wait_absent() {
	local i n=$(( ${3:-10} * 5 ))
	for ((i = 0; i < n; i++)); do
		screen "$1" | grep -qF -- "$2" || return 0
		sleep 0.2
	done
	return 1
}
# wait_row SESSION ID STATE [SECONDS]: poll until the row of run ID shows STATE
wait_row() {
	local i n=$(( ${4:-10} * 5 ))
	for ((i = 0; i < n; i++)); do
		screen "$1" | awk -v id="$2" -v st="$3" '$1 == id && $0 ~ st { f = 1 } END { exit !f }' && return 0
		sleep 0.2
	done
	return 1
}
done_count() { screen "$1" | sed -n 's/.* \([0-9]*\)\/8 done.*/\1/p' | head -1; }
keys() { $TM send-keys -t "$@"; sleep 0.4; }
start_top() {   # start_top SESSION [ENV...] -- ARGS
	local s=$1; shift
	$TM new-session -d -s "$s" -x 80 -y 24 \
		"cd '$T' && env $* '$PS' top '$CAMP' -d 0.5; echo \"EXITED rc=\$?\"; sleep 600"
}

"$PS" run "$T/top.cfg" --jobs 2 --quiet > "$T/run.log" 2>&1 &
RUNPID=$!
for ((i = 0; i < 50; i++)); do [ -f "$CAMP/campaign.db" ] && break; sleep 0.1; done

start_top main TERM=xterm
wait_for main "toptest (local)"; ok $? "the header names the campaign and its backend"
first=$(done_count main)
ok $([ -n "$first" ]; echo $?) "the progress line shows done/planned ($first/8)"
wait_for main "4/8 done" 15; ok $? "progress advances while the campaign runs"
last=$(done_count main)
ok $([ "$last" -gt "$first" ]; echo $?) "done went from $first to $last"
like "$(screen main)" "8/8 runs" "the status line counts the runs"
like "$(screen main | sed -n 5p)" " ID^ POINT" "the runs table has its header, with the sort marker on ID"
like "$(screen main)" "  1 n=20 s=1.5" "a run row shows id and design point"
ok $([ "$(screen main | awk '{ if (length($0) > 80) print }' | wc -l)" -eq 0 ]; echo $?) \
	"everything fits in 80 columns"

# details of a finished run: argv and stdout tail
keys main g Enter
wait_for main "run 1  n=20 s=1.5"; ok $? "Enter opens the details of the run under the cursor"
like "$(screen main)" "argv: $DEMO -n 20 -i 1 -k setup -s 1.5" "details show the argv"
like "$(screen main)" "setup: " "details show the tail of stdout"
like "$(screen main)" "history" "details show the state history"
keys main j
wait_for main "run 2  n=20 s=1.5"; ok $? "Down in details moves to the next run"
keys main Escape
wait_for main " ID^ POINT"; ok $? "Esc goes back to the table"

# filter
keys main / C-u s=600 Enter
wait_for main "4 of 8 runs match 's=600'"; ok $? "a param=value filter keeps the matching runs"
wait_absent main "s=1.5" 5; ok $? "no filtered-out run is shown"
keys main / C-u zz=1 Enter
wait_for main "unknown parameter or column 'zz'"; ok $? "a bad filter is reported on the status line"
like "$(screen main)" "5 n=20 s=600" "and the old filter stays"

# sort: '>' from ID goes to POINT, 'I' inverts
keys main '>'
wait_for main "sorted by POINT ascending"; ok $? "> sorts by the next column"
keys main I
wait_for main "sorted by POINT descending"; ok $? "I inverts the order"
keys main '<' I
wait_for main "sorted by ID ascending"; ok $? "< goes back to ID"

# cancel the first long run once it runs
keys main g
wait_row main 5 running 20; ok $? "the first long run is running" || screen main | diag
pid=$(screen main | awk '$1 == 5 && /running/ { print $(NF-3) }')
# the run's processes: its supervisor's session, the supervisor aside (it
# stays to note the end, and serves the next run)
procs=$(pgrep -s "$pid" | grep -vx "$pid")
ok $([ -n "$pid" ] && [ -n "$procs" ]; echo $?) "the run's processes ($procs) in supervisor $pid's session are alive"
# which of them still live (the supervisor goes on with the next run)
alive() { for p in $procs; do kill -0 "$p" 2> /dev/null && echo "$p"; done; }
keys main c
wait_for main "cancel 1 run? [y/N]"; ok $? "c asks for confirmation"
keys main n
wait_for main "nothing done"; ok $? "anything but y cancels nothing"
keys main c y
wait_for main "1 run cancelled"; ok $? "c y cancels the run"
wait_row main 5 cancelled 5; ok $? "the table shows it cancelled"
for ((i = 0; i < 25; i++)); do [ -n "$(alive)" ] || break; sleep 0.2; done
ok $([ -z "$(alive)" ]; echo $?) "its processes are gone"
"$PS" status "$CAMP" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{cancelled}')" 1 "the store has it cancelled"

# marking and cancelling several runs (pending ones)
# (--jobs 2: once run 5 is cancelled, runs 6 and 7 run for 600 s and run 8
# waits; until the orchestrator has started 7, two are pending, and the
# filter's message counts the matches once, when the filter is set: it
# waited for the orchestrator before, and under load it once said 2)
wait_row main 7 running 30; ok $? "the orchestrator starts run 7 in run 5's place" || screen main | diag
keys main / C-u state=pending Enter
wait_for main "1 of 8 runs match 'state=pending'" 30; ok $? "filter on state: run 8 is the one pending" || screen main | diag
npend=1 runs=run
keys main a
wait_for main "marked $npend $runs"; ok $? "a marks every shown run ($npend)"
keys main c
wait_for main "cancel $npend $runs? [y/N]"; ok $? "c asks for all marked runs"
keys main y
wait_for main "$npend $runs cancelled"; ok $? "all marked runs are cancelled"

# help, validate
keys main Escape '?'
wait_for main "keys (Esc: back)"; ok $? "? shows the key help"
keys main Escape v
wait_for main "validate: publishable" 20 || wait_for main "validate: blocked"; ok $? "v runs the validator and shows its verdict"
like "$(screen main)" "live flags: " "with the live flags"
like "$(screen main)" "validator report:" "and the validator report"
keys main Escape

# resize
$TM resize-window -t main -x 120 -y 30 2> /dev/null || $TM resize-pane -t main -x 120 -y 30
sleep 1
rows=$(screen main | wc -l)
is "$rows" 30 "after a resize the screen has 30 rows"
like "$(screen main | sed -n 30p)" "runs" "and the status line is on the last row"
ok $([ "$(screen main | head -1 | wc -c)" -gt 90 ]; echo $?) "the header uses the wider screen"
$TM resize-window -t main -x 80 -y 24 2> /dev/null || $TM resize-pane -t main -x 80 -y 24

# q restores the terminal
keys main q
wait_for main "EXITED rc=0"; ok $? "q quits with status 0" || screen main | diag
is "$($TM display -p -t main '#{alternate_on}')" 0 "the terminal left the alternate screen"

# colours, NO_COLOR, and Ctrl-C
start_top color TERM=xterm-256color
wait_for color "toptest (local)"
ok $($TM capture-pane -e -p -t color | grep -q $'\e\[3[1-6]m\|\e\[[0-9;]*3[1-6]m'; echo $?) "states are coloured"
$TM send-keys -t color C-c
wait_for color "EXITED rc=0"; ok $? "Ctrl-C quits cleanly"
is "$($TM display -p -t color '#{alternate_on}')" 0 "the terminal is restored after Ctrl-C"
start_top nocolor TERM=xterm-256color NO_COLOR=1
wait_for nocolor "toptest (local)"
ok $(! $TM capture-pane -e -p -t nocolor | grep -q $'\e\[[0-9;]*3[1-6]m'; echo $?) "NO_COLOR: no colour at all"
$TM send-keys -t nocolor q

# two campaigns, and a details pane that follows a live run's output
cat > "$T/tick.cfg" <<CFG
name = "ticker";
app = { command = [ "/bin/sh", "-c", "i=0; while [ \$i -lt 40 ]; do echo tick \$i; i=\$((i+1)); sleep 0.2; done" ]; };
parameters = ( { name = "k"; values = [ 1 ]; } );
repetitions = 1;
backend = "local";
collect = { wall = true; };
CFG
"$PS" run "$T/tick.cfg" --jobs 1 --quiet > "$T/tick.log" 2>&1 &
TICKPID=$!
for ((i = 0; i < 50; i++)); do [ -f "$T/ticker.campaign/campaign.db" ] && break; sleep 0.1; done
$TM new-session -d -s two -x 80 -y 24 \
	"cd '$T' && TERM=xterm '$PS' top '$CAMP' '$T/ticker.campaign' -d 0.3; echo \"EXITED rc=\$?\"; sleep 600"
wait_for two "toptest (local)  [1/2]"; ok $? "two campaigns: the header says which one"
keys two Tab
wait_for two "ticker (local)  [2/2]"; ok $? "Tab switches to the next campaign"
wait_row two 1 running 10; ok $? "the ticker run is running"
keys two Enter
wait_for two "tick 2" 10; ok $? "details show the live run's stdout"
wait_for two "tick 12" 10; ok $? "and follow it while the run is live"
like "$(screen two)" "stdout, following" "the pane says it follows"
keys two q q
wait "$TICKPID" 2> /dev/null

# --once: the same screen as plain text
COLUMNS=80 LINES=24 "$PS" top "$CAMP" --once > "$T/once.txt"
is $? 0 "--once exits 0"
like "$(head -1 "$T/once.txt")" "perfsweep top  toptest (local)" "--once prints the header"
like "$(cat "$T/once.txt")" " ID^ POINT" "--once prints the table"
ok $(! grep -q $'\e' "$T/once.txt"; echo $?) "--once writes no escape sequences"
ok $([ "$(wc -l < "$T/once.txt")" -le 24 ]; echo $?) "--once fits the 24 rows"

"$PS" top "$T/nothing" --once > "$T/out" 2> "$T/err"
is $? 2 "a directory without a campaign is an input error"
like "$(cat "$T/err")" "not a campaign directory" "and says why"
"$PS" top "$CAMP" -d 0 > "$T/out" 2> "$T/err"
is $? 2 "-d 0 is a usage error"
like "$(cat "$T/err")" "usage: perfsweep top" "with the usage line"

kill -INT "$RUNPID" 2> /dev/null
wait "$RUNPID" 2> /dev/null
RUNPID=
done_testing
