#!/usr/bin/env bash
# The LAMMPS and GROMACS examples' figures (docs/applications.md, "What the
# models were"): runs examples/lammps/run.sh, examples/gromacs/run.sh and
# examples/gromacs/run.sh gromacs-ranks.cfg one after another, each into a
# fresh campaign under OUT (default build/field-applications), and prints
# per campaign: the load average before and after, the wall time, the
# verdict, the runs done and disturbed, the core-hours planned and spent,
# and the model of each region the codes' known costs speak of:
#   LAMMPS  main->loop->Pair      expected c * atoms * steps
#           main->loop->Neigh     expected c * atoms * steps
#   GROMACS main->mdrun->Force    (nonbonded) expected c * atoms * steps
#           main->mdrun->PME_mesh expected c * atoms * log(atoms) * steps
# and for the ranks study the time and CPU share per ntmpi and the
# charged cores.  Needs lmp and gmx.  Rerun it on a quiet machine:
# `make all && scripts/field-applications.sh`.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PERFSWEEP=$ROOT/bin/perfsweep
OUT=${OUT:-$ROOT/build/field-applications}
mkdir -p "$OUT"

# json FILE EXPR: what the Perl expression says about the JSON document $j
json() { perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>); print eval($ARGV[1]) // "", "\n"; die $@ if $@' "$1" "$2"; }

# model DIR REGION METRIC: the black-box model of one region
model() {
	json "$1/model.json" "join '', map { \$_->{model} } grep { \$_->{callpath} eq '$2' && \$_->{metric} eq '$3' } @\$j" 2> /dev/null
}

one() {  # one LABEL SCRIPT [CONFIG]
	local label=$1 script=$2 cfg=${3:-} dir=$OUT/$1.campaign
	rm -rf "$dir"
	local before after t0 t1
	before=$(cut -d' ' -f1-3 /proc/loadavg)
	t0=$(date +%s)
	if [ -n "$cfg" ]; then "$script" "$cfg" "$dir"; else "$script" "$dir"; fi > "$OUT/$label.out" 2>&1
	t1=$(date +%s)
	after=$(cut -d' ' -f1-3 /proc/loadavg)
	"$PERFSWEEP" model "$dir" --json > "$dir/model.json" 2> /dev/null
	"$PERFSWEEP" validate "$dir" --json > "$dir/validate.json" 2> /dev/null
	"$PERFSWEEP" status "$dir" --json > "$dir/status.json"
	printf '%-14s load %-16s -> %-16s %5ss  %-11s done %3s  disturbed %3s  core-hours planned %.4g spent %.4g\n' \
		"$label" "$before" "$after" $((t1 - t0)) "$(json "$dir/validate.json" '$j->{verdict}')" \
		"$(json "$dir/status.json" '$j->{done}')" \
		"$(json "$dir/validate.json" '$j->{disturbed} ? scalar @{$j->{disturbed}{runs}} : 0')" \
		"$(json "$dir/status.json" '$j->{core_hours_planned}')" "$(json "$dir/status.json" '$j->{core_hours_spent}')"
}

one lammps examples/lammps/run.sh
d=$OUT/lammps.campaign
for r in main-\>loop main-\>loop-\>Pair main-\>loop-\>Neigh main-\>loop-\>Comm; do
	printf '  %-28s %s\n' "$r" "$(model "$d" "$r" time)"
done
one gromacs examples/gromacs/run.sh gromacs.cfg
d=$OUT/gromacs.campaign
for r in main-\>mdrun main-\>mdrun-\>Force main-\>mdrun-\>PME_mesh main-\>mdrun-\>Neighbor_search \
	 main-\>mdrun-\>Update; do
	printf '  %-34s %s\n' "$r" "$(model "$d" "$r" time)"
done
printf '  %-34s %s\n' "main->mdrun [ns_per_day]" "$(model "$d" main-\>mdrun ns_per_day)"
one ranks examples/gromacs/run.sh gromacs-ranks.cfg
d=$OUT/ranks.campaign
"$PERFSWEEP" export "$d" --format csv > "$d/export.csv"
for n in 1 2; do
	# the mdrun time (md.log), and the rank's CPU share and allowed share (its rank record), per ntmpi
	awk -F, -v n="$n" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["ntmpi"] == n && $c["region"] == "\"main->mdrun\"" && $c["metric"] == "time" {
			t += $c["value"]; s += $c["cpu_share"]; a += $c["allowed_share"]; k++ }
		END { printf "  ntmpi=%s: mdrun %.3f s, CPU share %.2f of %.2f allowed (mean of %d runs)\n", n,
		      k ? t / k : 0, k ? s / k : 0, k ? a / k : 0, k }' "$d/export.csv"
done
printf '  %s\n' "$(grep -h 'verdict:' "$OUT/ranks.out" | tail -1)"
