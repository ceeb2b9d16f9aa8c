#!/usr/bin/env bash
# check: alone (its busy loops would disturb the tests beside it: scripts/check-tests.sh)
# Disturbance is time taken by other programs, not time spent waiting
# (docs/validation.md, "disturbed"), on real programs.  The truths are made
# here and load cannot flip them: a busy loop this test starts, in a
# session of its own (so it is another program, not the run's), bound to the
# run's core; a program that only sleeps (nothing of it waits for a CPU).
# Whatever else the machine runs, the checks below hold:
#
# 1. Every run with the busy loop beside it is disturbed, and names the busy
#    loop (its pid and command, the core, its share of the run); no run
#    without it names it.
# 2. A program that sleeps is not disturbed (its CPU share is near 0).  A
#    program that sleeps half its time is disturbed only when others took
#    more than a tenth of its time while it waited for its core (its
#    run-queue delay), and then names them.
# 3. A rank of two threads given two cores may use two (allowed share 2);
#    with a busy loop on one of them it is disturbed and names the loop.
. "$(dirname "$0")/../lib/tap.sh"

trap 'for f in "$T"/*/runs/*/competitor.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null; done; rm -rf "$T"' EXIT
[ -n "$KEEP" ] && trap "echo kept $T" EXIT
ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)

# the busy loop: a command of its own name, ending by itself after two minutes
# (it says it runs by creating the file named by its argument)
printf '#!/bin/bash\n: > "$1"\nwhile [ $SECONDS -lt 120 ]; do :; done\n' > "$T/busyloop"
chmod +x "$T/busyloop"
# compete.sh APP ARGS...: APP; on even repetitions with the busy loop beside it,
# in a new session, on the first CPU the rank is bound to, at a higher
# priority (nice -10: it wins over the other programs of this test's
# cgroup), gone before the next run starts
cat > "$T/compete.sh" <<SH
#!/bin/sh
loop=
if [ \$((PERFSWEEP_REPETITION % 2)) -eq 0 ]; then
	cpu=\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
	# not the rank's child (a double fork): the rank never waits for it, so
	# its CPU time is never counted as the rank's (wait4 adds a waited child's)
	( setsid nice -n -10 taskset -c "\$cpu" "$T/busyloop" "\$PERFSWEEP_RUN_DIR/loop.ready" 2> /dev/null &
	  echo \$! > "\$PERFSWEEP_RUN_DIR/competitor.pid" )
	loop=\$(cat "\$PERFSWEEP_RUN_DIR/competitor.pid")
	# the program starts once the loop runs: a loaded machine may start it late
	while [ ! -e "\$PERFSWEEP_RUN_DIR/loop.ready" ]; do sleep 0.01; done
fi
"\$@"
rc=\$?
if [ -n "\$loop" ]; then   # gone (or a zombie) before the run ends
	kill "\$loop" 2> /dev/null
	for i in \$(seq 200); do
		case "\$(cut -d' ' -f3 "/proc/\$loop/stat" 2> /dev/null)" in ""|Z) break ;; esac
		sleep 0.01
	done
fi
exit \$rc
SH
chmod +x "$T/compete.sh"

# campaign NAME APP-WORDS PLACEMENT [EXTRA]: run a campaign of 2 points x $REPS repetitions (4)
campaign() {
	cat > "$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ $2 ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 56, 64 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = $3;
repetitions = ${REPS:-4};
order_seed = 3;
collect = { wall = true; };
$4
CFG
	"$PS" run "$T/$1.cfg" --quiet > "$T/$1.out" 2>&1
	is $? 0 "$1: the campaign runs"
	"$PS" validate "$T/$1.campaign" --json > "$T/$1.json"
	"$PS" validate "$T/$1.campaign" > "$T/$1.txt"
}

# check_named NAME: every competing run is disturbed and names its busy loop; no other run names one
check_named() {
	local d=$T/$1.campaign bad="" named="" id pid
	for f in "$d"/runs/*/competitor.pid; do
		id=$(basename "$(dirname "$f")"); pid=$(cat "$f")
		got=$(json "$T/$1.json" "join ' ', map { \$_->{command} . ':' . \$_->{core} . ':' . (\$_->{share} > 0 && \$_->{share} <= 1 ? 'share' : 'bad share') }
			grep { \$_->{pid} == $pid } map { @{\$_->{causes}} } grep { \$_->{run} == $id && grep { \$_ eq 'foreign' } @{\$_->{by}} }
			@{\$j->{disturbed}{runs}}")
		case "$got" in busyloop:*:share*) named="$named $id" ;; *) bad="$bad $id($got)" ;; esac
	done
	is "$bad" "" "$1: every run beside the busy loop is disturbed and names it with its share"
	is "$(echo $named | wc -w)" "$2" "$1: $2 runs had the busy loop"
	# this test's loops by pid: another developer's copy of this test runs a busyloop too
	local competing=" $(echo $named) " stray="" own
	own=$(cat "$T"/*/runs/*/competitor.pid | paste -sd,)
	for id in $(json "$T/$1.json" "my %own = map { \$_ => 1 } ($own); join ' ', map { \$_->{run} } grep { grep { \$own{\$_->{pid}} } @{\$_->{causes}} } @{\$j->{disturbed}{runs}}"); do
		case "$competing" in *" $id "*) ;; *) stray="$stray $id" ;; esac
	done
	is "$stray" "" "$1: no run without the busy loop names it"
}

# 1. a computing rank with a busy loop on its core on even repetitions (long
#    enough, ~0.5 s alone on a fast core, that the census samples it a few
#    times: one of 0.2 s was seen at its first sample only, and its
#    run-queue delay is then unknown)
campaign busy "\"$T/compete.sh\", \"$DEMO\", \"-n\", \"{n}\", \"-i\", \"12\", \"-k\", \"stream\"" \
	'{ policy = "compact"; ranks_per_node = [ 1 ]; }'
check_named busy 4
like "$(grep '^note     disturbed:' "$T/busy.txt")" " ran on core " "the text names who took the runs' time"
grep -Eq 'pid [0-9]+ \([^)]*\) ran on core [0-9]+ for [0-9]+% of the run' "$T/busy.txt"
ok $? "as: pid, command, core, share of the run"
"$PS" validate "$T/busy.campaign" --html "$T/busy.html" > /dev/null 2>&1
missing=""
for f in "$T"/busy.campaign/runs/*/competitor.pid; do
	grep -q "pid $(cat "$f") (busyloop) ran on core" "$T/busy.html" || missing="$missing $(cat "$f")"
done
is "$missing" "" "the HTML report names every busy loop"
is "$(sqlite3 "$T/busy.campaign/campaign.db" "SELECT COUNT(DISTINCT run) FROM causes WHERE comm = 'busyloop' AND pid IN ($(cat "$T"/busy.campaign/runs/*/competitor.pid | paste -sd,))")" 4 \
   "the store keeps the causes"
# a delay is known where the census saw the program run most of its CPU time
# (docs/validation.md): the runs beside the loop last long enough for that;
# a quiet one of ~0.2 s may have been seen at its first sample only
competing_ids=$(for f in "$T"/busy.campaign/runs/*/competitor.pid; do basename "$(dirname "$f")"; done | paste -sd,)
is "$(sqlite3 "$T/busy.campaign/campaign.db" "SELECT COUNT(*) FROM resources WHERE rank = 0 AND foreign_cpu >= 0"):$(sqlite3 "$T/busy.campaign/campaign.db" "SELECT COUNT(*) FROM resources WHERE rank = 0 AND run_delay >= 0 AND run IN ($competing_ids)")" 8:4 \
   "and each rank's foreign time, and the run-queue delay of each run beside the loop"

# 2. a program that sleeps: nothing of it waits for a CPU, whatever runs beside it (starting it
#    takes a few milliseconds of CPU, and under heavy load as many again of waiting: 2 s makes
#    that a few percent of its time, where the rule's tenth is far)
REPS=2 campaign sleeps '"sleep", "2"' '{ policy = "compact"; ranks_per_node = [ 1 ]; }'
is "$(json "$T/sleeps.json" '$j->{disturbed}{judged} . " judged, " . scalar(@{$j->{disturbed}{runs}}) . " disturbed"')" \
   "4 judged, 0 disturbed" "a program that sleeps is not disturbed"
like "$(cat "$T/sleeps.txt")" "info     disturbed: none of 4 runs (other programs took at most 0.1 of any rank's cores)" \
     "the text says none"
awk -F, 'NR > 1 && $16 != "" { if ($16 > 0.2) bad++ } END { exit bad > 0 }' <("$PS" export "$T/sleeps.campaign" --format csv)
ok $? "its CPU share is near 0"
# a program that sleeps half its time: disturbed only for time others took while it waited
campaign half "\"$DEMO\", \"-s\", \"0.3\", \"-n\", \"{n}\", \"-i\", \"2\", \"-k\", \"stream\"" \
	'{ policy = "compact"; ranks_per_node = [ 1 ]; }'
bad=$(sqlite3 "$T/half.campaign/campaign.db" 'SELECT run, run_delay / wall, foreign_cpu / wall FROM resources WHERE rank = 0' |
	while IFS='|' read -r id delay foreign; do
		d=$(json "$T/half.json" "scalar grep { \$_->{run} == $id } @{\$j->{disturbed}{runs}}")
		n=$(json "$T/half.json" "scalar map { @{\$_->{causes}} } grep { \$_->{run} == $id } @{\$j->{disturbed}{runs}}")
		awk -v d="$d" -v n="$n" -v w="$delay" -v f="$foreign" -v id="$id" \
			'BEGIN { t = w < f ? w : f; if (d ? (t <= 0.1 || n < 1) : t > 0.1) printf " %s(%s,%s,%s)", id, d, w, f }'
	done)
is "$bad" "" "a program that sleeps half its time: disturbed exactly when others took over a tenth while it waited"
is "$(json "$T/half.json" 'scalar grep { $_ ne "foreign" && $_ ne "steal" } map { @{$_->{by}} } @{$j->{disturbed}{runs}}')" 0 \
   "never for its CPU share or its switches (the census judged every run)"
diag < <(sqlite3 "$T/half.campaign/campaign.db" 'SELECT "# run " || run || ": share " || round(cpu_share, 2) || ", waited " || round(run_delay, 3) || " s, others " || round(foreign_cpu, 3) || " s" FROM resources WHERE rank = 0')

# 3. one rank of two threads on two cores
if [ "$ncores" -lt 2 ]; then
	skip "needs 2 cores" "a two-thread rank on two cores"
	done_testing
	exit
fi
# ~1 s of work per thread: in runs of 0.2 s under load the census saw neither
# the loop nor the workers' run-queue delay
cat > "$T/threads.pl" <<'PL'
use threads;
my @t = map { threads->create(sub { my $s = 0; $s += $_ for 1 .. 2e7; }) } 1 .. 2;
$_->join for @t;
print "time: 1\n";
PL
campaign threads "\"$T/compete.sh\", \"perl\", \"$T/threads.pl\", \"{n}\"" \
	'{ policy = "compact"; ranks_per_node = [ 1 ]; cores_per_rank = 2; }'
is "$(sqlite3 "$T/threads.campaign/campaign.db" 'SELECT DISTINCT allowed_share FROM resources WHERE rank = 0')" 2.0 \
   "a rank given two cores may use two"
check_named threads 4
stray=$(json "$T/threads.json" 'join " ", map { $_->{run} } grep { !@{$_->{causes}} } @{$j->{disturbed}{runs}}')
is "$stray" "" "a disturbed run always names who took its time"
done_testing
