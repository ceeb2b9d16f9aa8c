#!/usr/bin/env bash
# Threads per rank (docs/config.md, "Threads per rank"): an OpenMP program
# with placement.threads_per_rank, and a thread-MPI ranks study (the thread
# count a parameter with role "threads", as GROMACS's -ntmpi): each rank
# runs its threads, is bound to as many cores (its rank record), and every
# reserved core is charged, planned and spent.
. "$(dirname "$0")/../lib/tap.sh"

ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)
if [ "$ncores" -lt 2 ]; then echo "1..0 # SKIP needs 2 cores"; exit 0; fi
if ! cc -fopenmp -O2 -o "$T/threads-app" "$ROOT/tests/data/apps/threads-app.c" 2> "$T/cc.err"; then
	echo "1..0 # SKIP no OpenMP compiler: $(head -1 "$T/cc.err")"; exit 0
fi
cd "$T" || exit 1

# core-hours spent by the store's record: wall x cores per rank, summed
spent_by_walls() {   # DIR PARAM: the runs' wall x the value of PARAM (their threads)
	sqlite3 "$1/campaign.db" "SELECT printf('%.10f', SUM(r.wall * v.value) / 3600.0) FROM runs r
		JOIN point_values v ON v.point = r.point JOIN params p ON p.idx = v.param AND p.name = '$2'
		WHERE r.wall > 0"
}

# OpenMP: placement.threads_per_rank = 2
cat > omp.cfg <<'CFG'
name = "omp";
app = { command = [ "./threads-app", "-n", "{n}" ]; };
parameters = ( { name = "n"; values = [ 1 ]; }, { name = "two"; values = [ 2 ]; model = false; } );
repetitions = 1;
placement = { threads_per_rank = 2; };
cost_model = "36";
collect = { regex = ( { region = "work"; pattern = "work: ([0-9.]+) s"; } ); };
CFG
"$PS" plan omp.cfg --json > plan.json; is $? 0 "a campaign with threads_per_rank plans"
is "$(json plan.json '$j->{points}[0]{placement}{cores_per_rank} . " " . $j->{points}[0]{placement}{policy}')" \
	"2 compact" "each rank holds 2 cores, bound compact"
is "$(json plan.json '$j->{points}[0]{core_hours}')" "0.02" "planned: 36 s x 1 rank x 2 cores = 0.02 core-hours"
"$PS" run omp.cfg --quiet > run.out 2>&1; is $? 0 "it runs"
R=omp.campaign/runs/1
like "$(cat $R/stdout)" "threads: 2 (OMP_NUM_THREADS=2)" "OMP_NUM_THREADS is the rank's threads"
is "$(json $R/rank-0.json '$j->{cpuset} . " " . $j->{cores_per_rank}')" "0-1 2" \
	"the rank is bound to 2 cores, as its record says"
is "$("$PS" status omp.campaign --json | perl -MJSON::PP -0 -ne 'printf "%.10f", decode_json($_)->{budget}{spent}')" \
	"$(spent_by_walls omp.campaign two)" "spent: the run's wall time x its 2 cores"

# app.env's OMP_NUM_THREADS wins (a thread-MPI run gives 1 thread per thread-rank)
sed -e 's/"omp"/"env"/' -e 's/"{n}" \]; };/"{n}" ]; env = [ "OMP_NUM_THREADS=1" ]; };/' omp.cfg > env.cfg
"$PS" run env.cfg --quiet > run.out 2>&1
like "$(cat env.campaign/runs/1/stdout)" "threads: 1 (OMP_NUM_THREADS=1)" "app.env's OMP_NUM_THREADS is kept"
is "$(json env.campaign/runs/1/rank-0.json '$j->{cpuset}')" "0-1" "and the rank still holds its 2 cores"

# Thread-MPI, weak scaling: -t {ntmpi} threads of one process, the work per
# thread fixed (a derived total), ntmpi = 1 and 2 (GROMACS's -ntmpi 1 vs 2).
# The work is timed in CPU seconds (-c), 20 M iterations a thread: 1 M timed
# in wall seconds scattered 61-109% beside two busy loops and make check's
# other lane, too noisy to model, and the study line was missing.
cat > tmpi.cfg <<'CFG'
name = "tmpi";
app = { command = [ "./threads-app", "-t", "{ntmpi}", "-n", "20", "-c" ];
        env = [ "OMP_NUM_THREADS=1" ]; };
parameters = ( { name = "ntmpi"; values = [ 1, 2 ]; role = "threads"; },
               { name = "work"; value = "1000 * ntmpi"; model = false; } );
repetitions = 2;
cost_model = "36";
collect = { regex = ( { region = "work"; pattern = "work: ([0-9.]+) s"; } ); };
analysis = { min_cpu_share = 0.0; };   # a busy machine must not leave every run out here
CFG
"$PS" plan tmpi.cfg --json > plan.json; is $? 0 "a thread-MPI ranks study plans"
is "$(json plan.json 'join " ", map { $_->{params}{ntmpi} . ":" . $_->{params}{work} . ":" . $_->{placement}{cores_per_rank} . ":" . $_->{core_hours} } sort { $a->{params}{ntmpi} <=> $b->{params}{ntmpi} } @{$j->{points}}')" \
	"1:1000:1:0.02 2:2000:2:0.04" "ntmpi = 2 reserves 2 cores and is charged 2 (36 s x 2 reps x cores)"
"$PS" run tmpi.cfg --quiet > run.out 2>&1; is $? 0 "the study runs"
ok=0
for r in tmpi.campaign/runs/*/; do
	n=$(grep -o 'threads: [0-9]*' "$r/stdout" | cut -d' ' -f2)
	set=$(json "$r/rank-0.json" '$j->{cpuset}')
	case "$n:$set" in 1:0|1:1|2:0-1) ;; *) ok=1; diag "$r: $n threads on '$set'" ;; esac
done
ok $ok "each run's process runs its ntmpi threads on as many cores"
is "$("$PS" status tmpi.campaign --json | perl -MJSON::PP -0 -ne 'printf "%.10f", decode_json($_)->{budget}{spent}')" \
	"$(spent_by_walls tmpi.campaign ntmpi)" "spent: every run's wall x its ntmpi cores"
"$PS" validate tmpi.campaign > v.out 2>&1
like "$(cat v.out)" "contention study: " "validate reads it as a contention study"
like "$(grep '^contention study' v.out)" "grow significantly with ntmpi" "along the threads parameter"
ok $(grep -q "work=" v.out; echo $((1 - $?))) "the weak-scaling work (model = false) is in no point's name"

# config errors, each with its line
bad() {   # NAME PLACEMENT PARAMS WANT
	printf 'name = "b";\napp = { command = [ "./threads-app" ]; };\nparameters = ( %s );\n%s\n' "$3" "$2" > "$1.cfg"
	out=$("$PS" plan "$1.cfg" 2>&1); rc=$?
	is "$rc" 2 "$1: refused"
	like "$out" "$4" "$1: $4"
}
bad fewer 'placement = { threads_per_rank = 4; cores_per_rank = 2; };' '{ name = "n"; values = [ 1 ]; }' \
	"fewer.cfg:4: cores_per_rank = 2 is fewer than threads_per_rank = 4"
bad both 'placement = { threads_per_rank = 2; };' '{ name = "t"; values = [ 1, 2 ]; role = "threads"; }' \
	"both.cfg:4: parameter 't' (role \"threads\") gives each rank its threads and cores; remove placement.threads_per_rank"
bad all 'placement = { threads_per_rank = 2; cores_per_rank = "all"; };' '{ name = "n"; values = [ 1 ]; }' \
	"all.cfg:4: cores_per_rank = \"all\" shares every core among the ranks"
bad zero 'placement = { threads_per_rank = 0; };' '{ name = "n"; values = [ 1 ]; }' "zero.cfg:4: "
bad frac '' '{ name = "t"; values = ( 1, 1.5 ); role = "threads"; }' \
	"frac.cfg:3: thread counts of 't' must be integers from 1 to 1048576, not 1.5"
bad big 'placement = { threads_per_rank = 64; };' '{ name = "n"; values = [ 1 ]; }' \
	"needs 64 cores, but this machine has $ncores usable cores"
done_testing
