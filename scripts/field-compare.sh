#!/usr/bin/env bash
# The field check of perfsweep compare (issue 42, docs/compare.md "Field
# check"): LAMMPS's Lennard-Jones melt (configs/compare-lammps: a 2x2
# design of box and steps, 3 repetitions, one serial lmp bound to a core)
# compared with `perfsweep compare --run`, base and new in one time window:
#   cut     pair cut-off 2.5 against 3.5: Pair 2-4x slower, expected exit 3
#   skin    neighbour skin 0.3 against 0.6: a constant change, expected no
#           scaling regression
#   same    the same config twice: expected exit 0
# each on its own and beside one busy loop on the runs' core (core 0:
# compact placement binds each run to the lowest free core), and prints one
# table row per comparison: the load average when it started, its wall time,
# the exit status and verdict, the pairs and those lost to disturbed runs,
# the Pair and Loop changes with their one-sided bounds, the scaling
# regressions, and the regions left unresolved with the change each could
# have detected.  Rerun it on a quiet machine: `make all &&
# scripts/field-compare.sh`.  OUT (default build/field-compare) keeps the
# campaigns; CASES (default "cut skin same") and BUSY (default "0 1": each
# case quiet, then beside the busy loop) choose the rows; MIN_CPU_SHARE, when
# set, is written as every config's analysis.min_cpu_share (0 keeps the runs
# a loaded machine would leave out as disturbed).  BOXES replaces the box
# sizes ("6, 8, 10, 12": 8 points, enough for the whole run's trend along
# the box to be significant, and for the fixed part, LAMMPS's start-up, to
# be told from a scaling change: docs/compare.md).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PS=$ROOT/bin/perfsweep
OUT=${OUT:-build/field-compare}
CASES=${CASES:-cut skin same}
BUSY=${BUSY:-0 1}
command -v lmp > /dev/null || { echo "field-compare: lmp (LAMMPS) is not installed" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT/cfg"
cp configs/compare-lammps/* "$OUT/cfg/"
if [ -n "${BOXES:-}" ]; then
	for f in "$OUT"/cfg/*.cfg; do sed -i "s/values = \[ 6, 9 \]/values = [ $BOXES ]/" "$f"; done
fi
if [ -n "${MIN_CPU_SHARE:-}" ]; then
	for f in "$OUT"/cfg/*.cfg; do echo "analysis = { min_cpu_share = $MIN_CPU_SHARE; };" >> "$f"; done
fi

# json FILE EXPR: what the Perl expression says about the JSON document $j
json() { perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>); print eval($ARGV[1]) // "", "\n"; die $@ if $@' "$1" "$2"; }
# region FILE CALLPATH: "+38.1% [+20.0%, +58.3%]" of its all-points change, or "-"
region() {
	json "$1" "my (\$m) = grep { \$_->{callpath} eq '$2' } @{\$j->{models}}; my \$r = \$m && \$m->{region};
		\$r ? sprintf('%+.1f%% [%+.1f%%, %+.1f%%]', 100 * \$r->{change}, 100 * \$r->{ci}[0], 100 * \$r->{ci}[1]) : '-'"
}

printf '%-5s %-4s %-16s %6s %4s %-13s %-9s %-28s %-28s %-7s %s\n' case busy "load (1,5,15)" wall exit verdict "pairs/lost" \
	"pair change [bounds]" "loop change [bounds]" scaling "unresolved (detectable)"
for c in $CASES; do
	case $c in
	cut) new=lj-cut3.5 ;;
	skin) new=lj-skin0.6 ;;
	same) new=lj-cut2.5 ;;
	*) echo "field-compare: unknown case '$c'" >&2; exit 2 ;;
	esac
	for busy in $BUSY; do
		D=$OUT/$c-busy$busy
		load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)
		loop=""
		if [ "$busy" = 1 ]; then
			taskset -c 0 sh -c 'while :; do :; done' &
			loop=$!
		fi
		start=$(date +%s.%N)
		$PS compare --run "$OUT/cfg/lj-cut2.5.cfg" "$OUT/cfg/$new.cfg" --dir "$D" --json > "$D.json" 2> "$D.err"
		rc=$?
		wall=$(echo "$(date +%s.%N) - $start" | bc)
		[ -n "$loop" ] && kill "$loop" 2> /dev/null && wait "$loop" 2> /dev/null
		if ! [ -s "$D.json" ]; then
			printf '%-5s %-4s %-16s %6.0f %4s %s\n' "$c" "$busy" "$load" "$wall" "$rc" "$(tail -1 "$D.err")"
			continue
		fi
		printf '%-5s %-4s %-16s %6.0f %4s %-13s %-9s %-28s %-28s %-7s %s\n' "$c" "$busy" "$load" "$wall" "$rc" \
			"$(json "$D.json" '$j->{verdict}')" \
			"$(json "$D.json" '$j->{pairs} ? "$j->{pairs}{pairs}/$j->{pairs}{lost}" : "-"')" \
			"$(region "$D.json" pair)" "$(region "$D.json" loop)" \
			"$(json "$D.json" '$j->{scaling_regressions} . join "", map { $_->{fixed_part} && $_->{fixed_part}{explains} ? sprintf(" (%s: fixed %.3g, x%.3g)", $_->{callpath}, $_->{fixed_part}{value}, $_->{fixed_part}{factor}) : "" } @{$j->{models}}')" \
			"$(json "$D.json" 'join " ", map { defined $_->{detectable} ? sprintf("%s(%+.0f%%)", $_->{callpath}, 100 * $_->{detectable}) : "$_->{callpath}(n/a)" } @{$j->{not_compared}}')"
	done
done
echo "expected: cut exit 3; skin no scaling regression; same exit 0 (beside the busy loop: the same, or"
echo "inconclusive when the disturbed pairs it leaves out are more than a quarter: 'the machine was shared')"
