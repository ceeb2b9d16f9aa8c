#!/bin/sh
# field-threads.sh [REPS]: a thread-MPI-style ranks study on this machine
# (docs/config.md, "Threads per rank"), for a quiet window: the OpenMP test
# program run as `threads-app -t NTMPI` (NTMPI threads of one process, as
# GROMACS's -ntmpi), weak scaling (the same work per thread), NTMPI = 1 and
# 2, REPS repetitions (default 5).  Prints, per run, the threads, the cores
# its record says it was bound to, its wall time, the core-hours charged
# (wall x cores) and its CPU share against the cores it was allowed, then
# the campaign's planned and spent core-hours and validate's contention
# study along ntmpi.  Needs 2 cores, cc -fopenmp and sqlite3.
set -eu
REPS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PS=${PERFSWEEP_BIN:-$ROOT/bin}/perfsweep
T=$(mktemp -d "${TMPDIR:-/tmp}/field-threads-XXXXXX")
trap 'rm -rf "$T"' EXIT
cc -fopenmp -O2 -o "$T/threads-app" "$ROOT/tests/data/apps/threads-app.c"
cat > "$T/t.cfg" <<CFG
name = "field-threads";
app = { command = [ "$T/threads-app", "-t", "{ntmpi}", "-n", "300" ];
        env = [ "OMP_NUM_THREADS=1" ]; };
parameters = ( { name = "ntmpi"; values = [ 1, 2 ]; role = "threads"; } );
repetitions = $REPS;
cost_model = "1.0";
collect = { regex = ( { region = "work"; pattern = "work: ([0-9.]+) s"; } );
            sanity = ( "Finished threads-app" ); };
CFG
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$PS" run "$T/t.cfg" --dir "$T/c" --quiet
echo
printf '%4s %6s %6s %9s %12s %9s %8s\n' run ntmpi cores wall_s core_hours cpu_share allowed
"$PS" export "$T/c" --format csv | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["rank"] == 0 && $col["region"] == "\"main\"" {
		n = split($col["cpuset"], parts, "-"); gsub(/"/, "", parts[1]); gsub(/"/, "", parts[n])
		cores = parts[n] - parts[1] + 1
		printf "%4s %6s %6d %9.3f %12.6f %9.2f %8s\n", $col["run"], $col["ntmpi"], cores,
			$col["value"], $col["value"] * cores / 3600, $col["cpu_share"], $col["allowed_share"]
	}'
echo
"$PS" status "$T/c" --json | perl -MJSON::PP -0 -ne 'my $b = decode_json($_)->{budget};
	printf "planned %.6f core-hours (1 s a run x its cores), spent %.6f\n", $b->{planned}, $b->{spent}'
sqlite3 "$T/c/campaign.db" "SELECT printf('store: wall x ntmpi summed %.6f core-hours', SUM(r.wall * v.value) / 3600)
	FROM runs r JOIN point_values v ON v.point = r.point WHERE r.wall > 0"
"$PS" validate "$T/c" 2>&1 | grep -E '^contention study|contention|oversubscribed|verdict' || true
