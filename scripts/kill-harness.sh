#!/usr/bin/env bash
# The kill harness of issue 43: KILLS (default 300) kill -9's of the
# orchestrator (perfsweep run), a run's supervisor and a run's program, at
# random moments, over local --jobs 2 campaigns of 20 runs, each run
# resumed after every kill; then every campaign finished and checked.
#
#   scripts/kill-harness.sh [KILLS] [MODE]
#     MODE plain    the kills only (default)
#     MODE remove   also, after some kills, campaign.db removed and the
#                   directory reused by a campaign of other points (a store
#                   made afresh at the same path): none of the old store's
#                   records may be taken by the new one
#
# Each run's program logs "start RUN-DIR PID N" and "end RUN-DIR PID N"
# outside the campaign and prints value: 1000 * n + repetition, its truth.
# Printed: the kills by target, the runs, their executions (started, ran to
# their end) and the values stored: misattributed (not the truth of the
# run's own point and repetition), stored twice, and of an old store.
# Needs bin/perfsweep (make), sqlite3.  Seeds: RANDOM=${SEED:-43}.
set -uo pipefail
cd "$(dirname "$0")/.."
PS=${PERFSWEEP_BIN:-$PWD/bin}/perfsweep
kills=${1:-300}
mode=${2:-plain}
RANDOM=${SEED:-43}
W=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-kill-XXXXXX")
trap 'rm -rf "$W"' EXIT
LOG=$W/exec.log
: > "$LOG"

cat > "$W/app.sh" <<'APP'
#!/bin/sh
# app.sh N LOG: one execution of a run, logged; value 1000 * n + repetition
echo "start $PERFSWEEP_RUN_DIR $$ $1" >> "$2"
sleep "$(( $$ % 2 )).$(( $$ % 9 + 1 ))"
echo "end $PERFSWEEP_RUN_DIR $$ $1" >> "$2"
echo "value: $(( $1 * 1000 + PERFSWEEP_REPETITION ))"
APP
chmod +x "$W/app.sh"

# cfg FILE FIRST-N: 10 values of n from FIRST-N, 2 repetitions: 20 runs
cfg() {
	local vals="" i
	for i in $(seq "$2" $(($2 + 9))); do vals="$vals${vals:+, }$i"; done
	cat > "$1" <<CFG
name = "k";
app = { command = [ "$W/app.sh", "{n}", "$LOG" ]; };
parameters = ( { name = "n"; values = [ $vals ]; } );
repetitions = 2;
max_attempts = 30;
collect = { wall = false; regex = ( { region = "r"; metric = "v"; pattern = "^value: ([0-9]+)"; } ); };
CFG
}

q() { sqlite3 "$1/campaign.db" "$2" 2> /dev/null; }
# pids of live supervisors of campaign dir $1 (from their start notes)
supervisors() {
	local p c
	# one note a file, without a final newline: grep -o, not cat | sed
	grep -ho '"supervisor":"[0-9]*' "$1"/runs/*/local.start 2> /dev/null | sed 's/.*"//' | while read -r p; do
		{ read -r c < "/proc/$p/comm"; } 2> /dev/null && [ "$c" = perfsweep-sv ] && echo "$p"
	done
}
# pids of live programs of this harness (the latest starts)
programs() {
	local p c
	tail -n 8 "$LOG" | awk '$1 == "start" { print $3 }' | while read -r p; do
		{ read -r c < "/proc/$p/comm"; } 2> /dev/null && [ "$c" = app.sh ] && echo "$p"
	done
}
pick() { local a=("$@"); [ ${#a[@]} -gt 0 ] && echo "${a[RANDOM % ${#a[@]}]}"; }

ncamp=0 dir="" first=1 bg=""
declare -A killed=([orchestrator]=0 [supervisor]=0 [program]=0) removed=0
dirs=()
new_campaign() {
	ncamp=$((ncamp + 1))
	dir=$W/c$ncamp
	first=1
	cfg "$W/c$ncamp.cfg" 1
	dirs+=("$dir")
}
start() { "$PS" run "$W/c$ncamp.cfg" --dir "$dir" --jobs 2 --quiet > "$W/last.out" 2>&1 & bg=$!; }
new_campaign
total=0
while [ "$total" -lt "$kills" ]; do
	kill -0 "$bg" 2> /dev/null || {
		[ -n "$bg" ] && wait "$bg" 2> /dev/null
		if [ -e "$dir/campaign.db" ] && [ "$(q "$dir" "SELECT COUNT(*) FROM runs WHERE state NOT IN (3, 4, 5, 6)")" = 0 ]; then
			new_campaign
		fi
		start
	}
	sleep "0.$((RANDOM % 6))$((RANDOM % 10))"
	case $((RANDOM % 3)) in
	0) target=orchestrator; pid=$bg ;;
	1) target=supervisor; pid=$(pick $(supervisors "$dir")) ;;
	2) target=program; pid=$(pick $(programs)) ;;
	esac
	if [ -n "${pid:-}" ] && kill -9 "$pid" 2> /dev/null; then
		killed[$target]=$((killed[$target] + 1))
		total=$((total + 1))
	fi
	if [ "$mode" = remove ] && [ $((RANDOM % 8)) = 0 ]; then
		kill -9 "$bg" 2> /dev/null; wait "$bg" 2> /dev/null
		rm -f "$dir"/campaign.db*
		removed=$((removed + 1))
		# the same directory, other points: n from 100 * removals
		cfg "$W/c$ncamp.cfg" $((100 * removed))
		start
	fi
done
kill -9 "$bg" 2> /dev/null; wait "$bg" 2> /dev/null

# finish every campaign, then wait until no program of this harness runs
for d in "${dirs[@]}"; do
	[ -e "$d/campaign.db" ] || continue
	c=${d##*/}
	"$PS" run "$W/$c.cfg" --dir "$d" --jobs 2 --quiet > "$W/$c.final" 2>&1
done
for _ in $(seq 600); do [ -z "$(programs)" ] && break; sleep 0.1; done

runs=0 done=0 failed=0 wrong=0 twice=0 old=0 ran=0
for d in "${dirs[@]}"; do
	[ -e "$d/campaign.db" ] || continue
	runs=$((runs + $(q "$d" "SELECT COUNT(*) FROM runs")))
	# executions of this store's runs that ran to their end: its directory, its n
	ns=" $(q "$d" "SELECT printf('%g', pv.value) FROM point_values pv JOIN params p ON p.idx = pv.param AND p.name = 'n'" | tr '\n' ' ')"
	ran=$((ran + $(awk -v d="$d/runs/" -v ns="$ns" '$1 == "end" && index($2, d) == 1 && index(ns, " " $4 " ") { n++ } END { print n + 0 }' "$LOG")))
	done=$((done + $(q "$d" "SELECT COUNT(*) FROM runs WHERE state = 3")))
	failed=$((failed + $(q "$d" "SELECT COUNT(*) FROM runs WHERE state = 4")))
	# the truth of each run: 1000 * its point's n + its repetition
	wrong=$((wrong + $(q "$d" "SELECT COUNT(*) FROM measurements m JOIN runs r ON r.id = m.run
		JOIN point_values pv ON pv.point = r.point JOIN params p ON p.idx = pv.param AND p.name = 'n'
		WHERE m.metric = 'v' AND m.value != 1000 * pv.value + r.repetition")))
	twice=$((twice + $(q "$d" "SELECT COUNT(*) FROM (SELECT 1 FROM measurements GROUP BY run, region, metric, rank HAVING COUNT(*) > 1)")))
	# an old store's value: an n this store does not have
	old=$((old + $(q "$d" "SELECT COUNT(*) FROM measurements m WHERE m.metric = 'v' AND CAST(m.value / 1000 AS INTEGER) NOT IN
		(SELECT pv.value FROM point_values pv JOIN params p ON p.idx = pv.param AND p.name = 'n')")))
done
starts=$(grep -c '^start ' "$LOG")
ends=$(grep -c '^end ' "$LOG")
printf 'kill harness (%s): %d kills: orchestrator %d, supervisor %d, program %d; %d store removals; load %s\n' \
	"$mode" "$total" "${killed[orchestrator]}" "${killed[supervisor]}" "${killed[program]}" "$removed" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %8s\n' "campaigns (directories)" "${#dirs[@]}"
printf '%-44s %8s\n' "runs in the final stores" "$runs"
printf '%-44s %8s\n' "  done" "$done"
printf '%-44s %8s\n' "  failed" "$failed"
printf '%-44s %8s\n' "executions started (all stores)" "$starts"
printf '%-44s %8s\n' "executions that ran to their end" "$ends"
printf '%-44s %8s\n' "  of the final stores' runs" "$ran"
printf '%-44s %8s\n' "values not their run's truth (misattributed)" "$wrong"
printf '%-44s %8s\n' "values stored twice" "$twice"
printf '%-44s %8s\n' "values of an old store taken" "$old"
[ "$wrong" = 0 ] && [ "$twice" = 0 ] && [ "$old" = 0 ] && [ "$done" = "$runs" ] && [ "$ran" = "$runs" ]
