#!/usr/bin/env bash
# perfsweep cancel against a live orchestrator on the local backend, 20
# times: at three moments (as soon as the store exists, while runs are
# being started, once two run), in fresh directories and in a reused one
# (the store removed, the run directories kept).  Every time every run is
# cancelled, the orchestrator exits 0 and no process of a run is left.
# The run-state machine (campaign/run_state.h) is what makes this hold: a
# start or a result the orchestrator records after the cancel is refused.
. "$(dirname "$0")/../lib/tap.sh"

cat >"$T/c.cfg" <<CFG
name = "cs";
app = { command = [ "/bin/sleep", "63.{n}" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 3, 4, 5, 6 ]; } );
repetitions = 1;
CFG
field() { "$PS" status "$1" --json 2>/dev/null | sed -n "s/^  \"$2\": \([0-9]*\).*/\1/p"; }
# wait_for SECONDS CMD...: poll CMD every 20 ms
wait_for() {
	local n=$(($1 * 50)); shift
	for ((k = 0; k < n; k++)); do "$@" && return 0; sleep 0.02; done
	return 1
}
has_store() { [ -n "$(field "$1" pending)" ]; }
running_at_least() { [ "$(field "$1" running)" -ge "$2" ] 2>/dev/null; }
gone() { ! kill -0 "$1" 2>/dev/null; }

bad_exit=0 bad_cancelled=0 bad_left=0 bad_cancel=0
for ((i = 1; i <= 20; i++)); do
	if ((i % 2)); then dir=$T/fresh$i; else dir=$T/reused; rm -f "$dir"/campaign.db*; fi
	"$PS" run "$T/c.cfg" --dir "$dir" --jobs 2 --quiet >"$T/run$i.out" 2>&1 &
	bg=$!
	wait_for 30 has_store "$dir"
	case $((i % 3)) in
	1) wait_for 30 running_at_least "$dir" 1 ;;
	2) wait_for 30 running_at_least "$dir" 2 ;;
	esac
	"$PS" cancel "$dir" >"$T/cancel$i.out" 2>&1 || { bad_cancel=$((bad_cancel + 1)); diag "cancel $i: $(cat "$T/cancel$i.out")"; }
	wait_for 60 gone $bg
	wait $bg; rc=$?
	[ "$rc" = 0 ] || { bad_exit=$((bad_exit + 1)); diag "run $i exited $rc: $(tail -3 "$T/run$i.out")"; }
	c=$(field "$dir" cancelled)
	[ "$c" = 6 ] || { bad_cancelled=$((bad_cancelled + 1)); diag "run $i: $c of 6 cancelled: $("$PS" status "$dir" 2>&1 | head -3)"; }
	left=$(ps -eo stat=,args= | awk '$1 !~ /Z/ && /sleep 63[.][1-6]$/' | wc -l)
	[ "$left" = 0 ] || { bad_left=$((bad_left + 1)); pkill -f 'sleep 63[.][1-6]$'; }
done
is "$bad_cancel" 0 "perfsweep cancel exits 0 every time (20 cancels)"
is "$bad_exit" 0 "the running orchestrator exits 0 every time"
is "$bad_cancelled" 0 "every run is cancelled every time"
is "$bad_left" 0 "no run's process is left behind"
done_testing
