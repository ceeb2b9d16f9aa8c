#!/usr/bin/env bash
# The GROMACS examples (examples/gromacs) on this machine, in miniature:
# the example's own set-up steps (solvate, grompp, the RDTSCP check of
# gmx-shim.sh) and gmx-run.sh, on one box of 300 water molecules for 20
# steps (a few seconds; skipped without gmx or a C++ compiler).  Where gmx
# refuses to start (a VM that hides RDTSCP, docs/applications.md), the
# set-up step builds the work-around and the run is done all the same; the
# gromacs preset reads its md.log without a collection error.  Also: the
# three example campaigns plan as they are, and the ranks study charges a
# 2-rank run 2 cores.
. "$(dirname "$0")/../lib/tap.sh"
EX=$ROOT/examples

# the GROMACS configs' set-up steps name gmx: without it, plan says so
gromacs=lammps/lammps.cfg
command -v gmx > /dev/null 2>&1 && gromacs="$gromacs gromacs/gromacs.cfg gromacs/gromacs-ranks.cfg"
for c in $gromacs; do
	"$PS" plan "$EX/$c" --json > "$T/plan.json" 2> "$T/err"; rc=$?
	is "$rc" 0 "examples/$c plans as it is"
	[ "$rc" -eq 0 ] || diag < "$T/err"
done
if command -v gmx > /dev/null 2>&1; then
	"$PS" plan "$EX/gromacs/gromacs-ranks.cfg" --json > "$T/plan.json"
	is "$(json "$T/plan.json" 'join ",", map { $_->{params}{ntmpi} . ":" . $_->{placement}{cores_per_rank} . ":" . sprintf("%.2f", $_->{core_hours} / $j->{points}[0]{core_hours}) } @{$j->{points}}')" \
		"1:1:1.00,2:2:2.00" "the ranks study holds and charges 2 cores for -ntmpi 2, 1 for -ntmpi 1"
else
	"$PS" plan "$EX/gromacs/gromacs.cfg" > /dev/null 2> "$T/err"; rc=$?
	is "$rc:$(wc -l < "$T/err")" "2:1" "without gmx, plan of the GROMACS example exits 2 with one line"
	like "$(cat "$T/err")" "gromacs.cfg:15: set-up step 1: program 'gmx' is not in PATH" \
		"which names the file, its line and the missing program"
	skip "no gmx" "the ranks study holds and charges 2 cores for -ntmpi 2, 1 for -ntmpi 1"
fi

if ! command -v gmx > /dev/null 2>&1 || ! command -v c++ > /dev/null 2>&1; then
	skip "no gmx or c++" "the GROMACS example's set-up and run"
	done_testing
	exit
fi
# a copy of the example's own files; a small box and a short run
cp -r "$EX/gromacs" "$T/ex"
sed -e 's/^name = .*/name = "g";/' \
    -e 's/values = \[ 500, 1000, 1500, 2000, 2500 \]/values = [ 300 ]/' \
    -e 's/values = \[ 100, 150, 200, 250, 300 \]/values = [ 20 ]/' \
    -e 's/^repetitions = .*/repetitions = 1;/' "$EX/gromacs/gromacs.cfg" > "$T/ex/g.cfg"
"$PS" run "$T/ex/g.cfg" --dir "$T/g.campaign" --quiet > "$T/out" 2>&1; rc=$?
is "$rc" 0 "one mdrun of the example, set-up steps included: exit 0"
[ "$rc" -eq 0 ] || { diag < "$T/out"; cat "$T"/g.campaign/setup/*/setup-*.stderr 2>/dev/null | tail -20 | diag; }
"$PS" status "$T/g.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{done} . "/" . $j->{collection_errors}')" "1/0" "done, no collection error"
refuses=$(cat "$T"/g.campaign/setup/*/setup-3.stdout 2>/dev/null)
case $refuses in
*"built "*rdtscp-shim.so*) ok 0 "gmx refuses RDTSCP here: the set-up step built the work-around" ;;
"") ok 0 "gmx starts here: nothing built, nothing preloaded" ;;
*) ok 1 "the RDTSCP step says what it did"; diag "$refuses" ;;
esac
"$PS" export "$T/g.campaign" --format csv > "$T/csv"
for r in main-\>mdrun main-\>mdrun-\>Force main-\>mdrun-\>PME_mesh main-\>mdrun-\>Neighbor_search; do
	is "$(grep -c "\"$r\",time," "$T/csv")" 1 "$r: its time"
done
is "$(grep -c '"main->mdrun->Comm_coord"' "$T/csv")" 0 "one rank: no Comm. coord., and no error for it"
done_testing
