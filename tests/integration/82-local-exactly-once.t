#!/usr/bin/env bash
# Local backend, exactly once: a run whose orchestrator died (kill -9 of
# `perfsweep run`) is collected when it finished meanwhile, adopted when it
# still runs, and run again only when it never started or was killed
# mid-way.  The program appends a line per start and per end to a log
# outside the campaign, which counts its executions.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/app.sh" <<'APP'
#!/bin/sh
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$$/status)
echo "start $PERFSWEEP_RUN_ID $$ $cpus" >> "$LOG"
sleep "$1"
echo "end $PERFSWEEP_RUN_ID $$" >> "$LOG"
echo "value: $((PERFSWEEP_RUN_ID * 7))"
APP
chmod +x "$T/app.sh"
export LOG="$T/exec.log"
: > "$LOG"

cfg() {  # cfg NAME SECONDS RUNS [EXTRA-APP-SETTINGS] [EXTRA-SECTIONS] [EXTRA-PARAMETERS]
	cat > "$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ "$T/app.sh", "{s}" ]; $4 };
parameters = ( { name = "s"; values = [ $2 ]; }$6 );
repetitions = $3;
max_attempts = 1;
collect = { regex = ( { region = "r"; metric = "value"; pattern = "^value: ([0-9]+)"; } ); };
$5
CFG
}
lines() { grep -c "^$1 " "$LOG"; }
wait_lines() {   # wait_lines WORD N: until the log has N lines starting with WORD (60 s at most)
	for _ in $(seq 600); do [ "$(lines "$1")" -ge "$2" ] && return 0; sleep 0.1; done
	return 1
}
# Until no process names the campaign or its program (the run and whatever
# watches over it have ended), 60 s at most.
wait_quiet() {
	for _ in $(seq 600); do pgrep -f -- "$T/" > /dev/null || return 0; sleep 0.1; done
	return 1
}
field() { "$PS" status "$T/$1.campaign" --json > "$T/st.json" && json "$T/st.json" "\$j->{$2}"; }
value_of() { sqlite3 "$T/$1.campaign/campaign.db" "SELECT printf('%g', value) FROM measurements WHERE run = $2 AND metric = 'value'"; }
start_bg() {     # start_bg NAME [JOBS]: perfsweep run in the background, pid in $bg
	"$PS" run "$T/$1.cfg" --jobs "${2:-1}" > "$T/$1.bg.out" 2>&1 &
	bg=$!
}
kill_bg() { kill -9 $bg 2> /dev/null; wait $bg 2> /dev/null; }

# 1. the run finishes while no orchestrator runs: the resume collects it
cfg done 3 1
start_bg done
wait_lines start 1; ok $? "the run started"
kill_bg
wait_lines end 1; ok $? "the program ran to its end without its orchestrator"
wait_quiet; ok $? "nothing of the run is left running"
"$PS" run "$T/done.cfg" --jobs 1 > "$T/out" 2>&1; is $? 0 "the resume completes"
like "$(cat "$T/out")" "run 1: collected: finished while no orchestrator ran" "and says it collected the finished run"
is "$(lines start)" 1 "the program executed exactly once"
is "$(field done done)" 1 "the run is done"
is "$(value_of done 1)" 7 "its value is stored"

# 2. the run still runs: the resume adopts it and collects it when it ends
: > "$LOG"
cfg live 3 1
start_bg live
wait_lines start 1; ok $? "the run started"
kill_bg
"$PS" run "$T/live.cfg" --jobs 1 > "$T/out" 2>&1; is $? 0 "the resume completes"
like "$(cat "$T/out")" "run 1: adopted: still running" "and says it adopted the running run"
is "$(lines start):$(lines end)" 1:1 "the program executed exactly once, to its end"
is "$(field live done)" 1 "the run is done"
is "$(value_of live 1)" 7 "its value is stored"

# 3. a run killed mid-way, supervisor and all: run again, and said so
: > "$LOG"
cfg mid 3 1
start_bg mid
wait_lines start 1; ok $? "the run started"
kill_bg
sid=$(ps -o sid= -p "$(awk '/^start/ { print $3; exit }' "$LOG")" | tr -d ' ')
mine=$(ps -o sid= -p $$ | tr -d ' ')
ok $([ -n "$sid" ] && [ "$sid" != "$mine" ]; echo $?) "the run has a session of its own ($sid, not $mine)"
[ -n "$sid" ] && [ "$sid" != "$mine" ] && kill -9 $(ps -eo pid=,sid= | awk -v s="$sid" '$2 == s { print $1 }') 2> /dev/null
wait_quiet; ok $? "the run, its supervisor included, is killed"
"$PS" run "$T/mid.cfg" --jobs 1 > "$T/out" 2>&1; is $? 0 "the resume completes"
like "$(cat "$T/out")" "run 1: rerun: killed mid-way" "and says it ran the killed run again"
is "$(lines start):$(lines end)" 2:1 "two starts, one end: the killed execution and its rerun"
is "$(field mid done)" 1 "the run is done"
is "$(value_of mid 1)" 7 "its value is stored"

# 4. an adopted run still keeps its timeout ...
: > "$LOG"
cfg slow 30.8237 1 "timeout = 2.0;"
start_bg slow
wait_lines start 1; ok $? "the slow run started"
kill_bg
"$PS" run "$T/slow.cfg" --jobs 1 > "$T/out" 2>&1; is $? 1 "the resume ends with the run failed"
like "$(cat "$T/out")" "run 1: adopted: still running" "the run was adopted"
"$PS" status "$T/slow.campaign" --json > "$T/st.json"
like "$(json "$T/st.json" '$j->{problems}[0]{reason}')" "timed out after 2 s" "and timed out"
wait_quiet; ok $? "nothing of it is left running"

# ... and is cancelled by perfsweep cancel
: > "$LOG"
cfg cancel 30.8237 1
start_bg cancel
wait_lines start 1; ok $? "the run started"
kill_bg
start_bg cancel
for _ in $(seq 600); do grep -q "adopted" "$T/cancel.bg.out" && break; sleep 0.1; done
like "$(cat "$T/cancel.bg.out")" "run 1: adopted: still running" "the resume adopted the run"
"$PS" cancel "$T/cancel.campaign" > /dev/null 2>&1; is $? 0 "perfsweep cancel"
for _ in $(seq 600); do kill -0 $bg 2> /dev/null || break; sleep 0.1; done
wait $bg; is $? 0 "the resumed orchestrator stops"
is "$(field cancel cancelled)" 1 "the run is cancelled"
wait_quiet; ok $? "nothing of it is left running"

# 5. twenty kills of a 20-run --jobs 2 campaign, each placed on a core of
#    its own: every run executes exactly once, and adopted runs keep their
#    slots and cores (never more than 2 at once, never two on one core)
#    (runs of 2.4 and 4.2 s, about 33 s in all: with 1.2 and 2.1 s the
#    campaign once ended after fewer than twenty kills in make check)
ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)
: > "$LOG"
cfg many "2.4, 4.2" 10 "" 'placement = { ranks_per_node = [ 1 ]; policy = "compact"; };' \
	', { name = "np"; values = [ 1 ]; role = "ranks"; }'
kills=0
for i in $(seq 60); do
	[ $kills -ge 20 ] || [ "$(field many done 2> /dev/null)" = 20 ] && break
	seen=$(wc -l < "$LOG")
	start_bg many 2
	if [ $((i % 4)) = 3 ]; then   # at once, while it starts (or adopts) runs
		sleep "0.0$((i % 10))"
	else   # after the next start or end, then 0-0.45 s later
		for _ in $(seq 300); do [ "$(wc -l < "$LOG")" -gt "$seen" ] && break; kill -0 $bg 2> /dev/null || break; sleep 0.05; done
		sleep "0.$(( (i * 7) % 10 / 2 * 15 ))"
	fi
	kill -0 $bg 2> /dev/null && kills=$((kills + 1))
	kill_bg
done
is "$kills" 20 "twenty kills before the campaign was done"
"$PS" run "$T/many.cfg" --jobs 2 --quiet > "$T/out" 2>&1; is $? 0 "the campaign completes after $kills kills"
is "$(field many done)" 20 "all 20 runs are done"
q() { sqlite3 "$T/many.campaign/campaign.db" "$1"; }
is "$(q "SELECT COUNT(*) FROM measurements WHERE metric = 'value' AND value = run * 7")" 20 "each run's value is stored"
is "$(q "SELECT COUNT(*) FROM (SELECT 1 FROM measurements GROUP BY run, region, metric, rank HAVING COUNT(*) > 1)")" 0 \
	"nothing is stored twice"
is "$(lines start):$(lines end)" 20:20 "20 runs, 20 executions, each to its end"
is "$(awk '/^start/ { print $2 }' "$LOG" | sort -u | wc -l)" 20 "every run executed once"
if [ "$ncores" -ge 2 ]; then
	bad=$(perl -e '
		my (%cpus, $n, $max);
		while (<>) {
			my ($w, $id, $pid, $c) = split;
			if ($w eq "end") { delete $cpus{$pid}; next; }
			for my $o (values %cpus) { print "run $id on $c beside $o\n" if $o eq $c; }
			$cpus{$pid} = $c;
			$max = keys %cpus if keys %cpus > $max;
		}
		print "$max at once\n" if $max > 2;' "$LOG")
	is "$bad" "" "never more than 2 runs at once, never two on one core"
else
	ok 0 "# skip one core only"
fi
wait_quiet; ok $? "nothing is left running"
done_testing
