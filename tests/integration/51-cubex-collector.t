#!/usr/bin/env bash
# The cubex collector in a real campaign: the run engine points Score-P at
# <run dir>/scorep; a stand-in "instrumented" program writes a profile there.
. "$(dirname "$0")/../lib/tap.sh"
L=$ROOT/tests/data/lulesh

# the stand-in application: copies the LULESH profile for p=27, size={size}
cat > "$T/fake-scorep-app" <<'APP'
#!/bin/sh
set -e
[ -n "$SCOREP_EXPERIMENT_DIRECTORY" ] || { echo "no SCOREP_EXPERIMENT_DIRECTORY" >&2; exit 3; }
mkdir -p "$SCOREP_EXPERIMENT_DIRECTORY"
[ "$2" = 40 ] && exit 0     # this run "forgets" to write its profile
cp "$1/lulesh.p27.size$2.r1/profile.cubex" "$SCOREP_EXPERIMENT_DIRECTORY/profile.cubex"
APP
chmod +x "$T/fake-scorep-app"
cat > "$T/c.cfg" <<CFG
name = "sp";
app = { command = [ "$T/fake-scorep-app", "$L", "{size}" ]; };
parameters = ( { name = "size"; values = [ 25, 30, 40 ]; } );
repetitions = 1;
order = "grouped";   # run 1 is size 25, which writes its profile
collect = { cubex = { metrics = [ "time", "visits" ]; }; };
CFG
"$PS" run "$T/c.cfg" --quiet > "$T/run.txt" 2>&1; is $? 1 "the campaign runs (exit 1: one run has no profile)"
like "$(cat "$T/run.txt")" "collector cubex matched nothing in 1 of 3 done runs" "the summary names the collector"
ok $([ -f "$T/sp.campaign/runs/1/scorep/profile.cubex" ]; echo $?) "Score-P's directory is inside the run directory"
"$PS" export "$T/sp.campaign" --format csv > "$T/m.csv"; is $? 0 "export"
is "$(grep -c ',-1,"lulesh2.0->int main(int, char\*\*)->MPI_Init",visits,1\($\|,\)' "$T/m.csv")" 2 "MPI_Init visits (mean 1 over ranks) for the two profiled runs"
is "$(grep -c ',-1,"lulesh2.0[^"]*",time,' "$T/m.csv")" 24 "12 call paths x time for two runs"
"$PS" status "$T/sp.campaign" --json > "$T/st.json"
like "$(cat "$T/st.json")" "no Score-P profile in" "the run without a profile has a collection error"
done_testing
