#!/usr/bin/env bash
# The refine loop's figures on the demo (docs/refine.md, "Measured"): TRIES
# times (default 5) run configs/demo.cfg --until publishable --rounds ROUNDS
# (default 5), one run at a time, each into a fresh campaign, and report per
# try: the load average before and after, the wall time, how the loop
# stopped, the extra core-hours over the planned sweep, where the regime
# change was located (and whether to one step), and the segmented flags on
# a parameter the region does not depend on (configs/demo.deps: false ones),
# how many runs had a rank below a CPU share of 0.9 (the default
# analysis.min_cpu_share) and how many runs refine reran.
# Rerun it on a quiet machine: `make all && scripts/refine-measure.sh`.
# BUSY=15 puts a busy loop on the demo's core (core 0: compact placement
# binds each run to the lowest free core) for 15 s, DELAY (default 8) s into
# each try: the runs it shares its core with get about half of it, the
# disturbed check leaves them out and refine reruns them first.
set -uo pipefail
cd "$(dirname "$0")/.."
PS=bin/perfsweep
OUT=${OUT:-build/refine-measure}
TRIES=${TRIES:-5}
ROUNDS=${ROUNDS:-5}
BUSY=${BUSY:-0}
DELAY=${DELAY:-8}
mkdir -p "$OUT"

# json FILE EXPR: what the Perl expression says about the JSON document $j
json() { perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>); print eval($ARGV[1]) // "", "\n"; die $@ if $@' "$1" "$2"; }

printf '%-4s %-22s %-22s %7s %-30s %6s %8s %-26s %-15s %10s %s\n' try "load before" "load after" wall stop rounds extra% "regime change" "false segmented" disturbed reruns
publishable=0
for t in $(seq 1 "$TRIES"); do
	D=$OUT/try-$t.campaign
	rm -rf "$D"
	before=$(uptime | sed 's/.*load average: //')
	start=$(date +%s.%N)
	$PS run configs/demo.cfg --dir "$D" --jobs 1 --until publishable --rounds "$ROUNDS" --quiet > "$OUT/try-$t.log" 2>&1 &
	run=$!
	if [ "$BUSY" != 0 ]; then
		sleep "$DELAY"
		timeout "$BUSY" taskset -c 0 sh -c 'while :; do :; done'
	fi
	wait $run
	rc=$?
	wall=$(echo "$(date +%s.%N) - $start" | bc)
	after=$(uptime | sed 's/.*load average: //')
	[ $rc = 0 ] && publishable=$((publishable + 1))
	stop=$(grep -E '^(publishable after|stopped:)' "$OUT/try-$t.log" | head -n 1 | cut -c1-30)
	rounds=$(grep -c '^round [0-9]*: [a-z]* (' "$OUT/try-$t.log")
	extra=$(sqlite3 "$D/campaign.db" "
		WITH cost AS (SELECT origin, wall * MAX(ranks, 1) / 3600.0 AS ch FROM runs WHERE state = 3)
		SELECT printf('%.0f', 100.0 * (SELECT IFNULL(SUM(ch), 0) FROM cost WHERE origin IS NOT NULL)
		                            / (SELECT SUM(ch) FROM cost WHERE origin IS NULL))")
	$PS validate "$D" --json > "$OUT/try-$t.json" 2> /dev/null
	change=$(json "$OUT/try-$t.json" 'join " ", map { my ($a, $b) = @{$_->{change_between}}; "$_->{parameter}=$a|$b" . ($_->{located} ? " located" : (($b - $a) <= 1 ? " one step" : "")) } grep { $_->{kind} eq "segmented" && $_->{callpath} eq "regime" } @{$j->{flags}}')
	false=$(json "$OUT/try-$t.json" 'my %dep = map { my $r = $_; ($r->{callpath} => { map { map { ($_ => 1) } @$_ } @{$r->{dependencies} || []} }) } @{$j->{regions}};
		join " ", map { "$_->{callpath}:$_->{parameter}" } grep { $_->{kind} eq "segmented" && !$dep{$_->{callpath}}{$_->{parameter}} } @{$j->{flags}}')
	disturbed=$(sqlite3 "$D/campaign.db" "SELECT COUNT(DISTINCT run) || CASE WHEN COUNT(*) THEN printf(' (%.2f-%.2f)', MIN(cpu_share), MAX(cpu_share)) ELSE '' END
		FROM resources WHERE cpu_share < 0.9")
	reruns=$(sqlite3 "$D/campaign.db" "SELECT COUNT(*) FROM runs WHERE state = 3 AND origin IS NOT NULL AND remeasure > 0")
	printf '%-4s %-22s %-22s %6.0fs %-30s %6s %7s%% %-26s %-15s %-16s %s\n' "$t" "$before" "$after" "$wall" "$stop" "$rounds" "$extra" \
		"${change:-none}" "${false:-0}" "$disturbed" "$reruns"
done
echo "publishable in $publishable of $TRIES tries (logs and validations in $OUT)"
