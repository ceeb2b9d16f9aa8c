#!/usr/bin/env bash
# collect.preset = "lammps" on real LAMMPS runs (Debian's lmp; skipped
# without it): two tiny LJ melts of a few hundred atoms and 50 steps, under
# a second each.  Every region of the breakdown is stored for each run,
# the loop's CPU share is a share (0 to 1 per core, not a percentage), no
# run has a collection error, and `plan --explain` lists the patterns.
. "$(dirname "$0")/../lib/tap.sh"

if ! command -v lmp > /dev/null 2>&1; then
	skip "no lmp" "the lammps preset on real runs"
	done_testing
	exit
fi
cat > "$T/in.lj" <<'LMP'
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 ${x} 0 ${x} 0 ${x}
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 3.0 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
fix 1 all nve
run 50
LMP
cat > "$T/l.cfg" <<CFG
name = "l";
app = { command = [ "lmp", "-in", "$T/in.lj", "-var", "x", "{x}", "-log", "none" ]; timeout = 120.0; };
parameters = ( { name = "x"; values = [ 3, 4 ]; } );
repetitions = 1;
max_attempts = 1;
collect = { preset = "lammps"; };
CFG
"$PS" plan "$T/l.cfg" --explain > "$T/plan" 2>&1
like "$(cat "$T/plan")" "preset \"lammps\": the first" "plan --explain names the preset"
like "$(cat "$T/plan")" "regex main->loop->Pair/time in stdout, sum: ^MPI task timing breakdown:" "and spells out its patterns"
"$PS" run "$T/l.cfg" --quiet > "$T/out" 2>&1; rc=$?
is "$rc" 0 "two lmp runs with the preset: exit 0"
[ "$rc" -eq 0 ] || diag < "$T/out"
"$PS" status "$T/l.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{done} . "/" . $j->{collection_errors}')" "2/0" "both done, no collection error"
"$PS" export "$T/l.campaign" --format csv > "$T/csv"
for r in main-\>loop main-\>loop-\>Pair main-\>loop-\>Neigh main-\>loop-\>Comm main-\>loop-\>Output \
	 main-\>loop-\>Modify main-\>loop-\>Other; do
	is "$(grep -c "\"$r\",time," "$T/csv")" 2 "$r: a time for each run"
done
is "$(grep -c '"main->loop->Kspace"' "$T/csv")" 0 "no Kspace without kspace_style: no value, no error"
share=$(grep '"main->loop",cpu_share,' "$T/csv" | head -1 | cut -d, -f9)
ok "$(awk -v s="$share" 'BEGIN { exit !(s > 0 && s <= 1.01) }'; echo $?)" "the loop's CPU share is a share of one core ($share)"
done_testing
