#!/usr/bin/env bash
# One MPI world per run on the local backend (backend.mpi = "openmpi"): a
# run of np ranks is one mpirun world of np ranks, each bound by
# perfsweep-bind to a core of its own; two worlds at once (--jobs 2) never
# share a core; a world larger than the machine is refused at plan time;
# a rank that fails and a world that hangs past its timeout each end as one
# failed run, with nothing of the world left running.  Without backend.mpi,
# plan says that np ranks are np independent copies.
. "$(dirname "$0")/../lib/tap.sh"

MS=$BIN/mpi-stream
if ! command -v mpirun > /dev/null || ! command -v mpicc > /dev/null || [ ! -x "$MS" ]; then
	echo "1..0 # SKIP needs Open MPI (mpirun, mpicc) and bin/mpi-stream"
	exit 0
fi
ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)
if [ "$ncores" -lt 2 ]; then echo "1..0 # SKIP needs at least 2 cores"; exit 0; fi

# a marker in every world's command line: what is left of them is found by it
MARK=$((424242 + $$ % 1000))
left() { pgrep -f -- "-a $MARK" | wc -l; }

WORLD='{ type = "local"; mpi = "openmpi"; }'
# cfg NAME NP-VALUES RANKS-PER-NODE EXTRA-ARGS [BACKEND]
cfg() {
	cat > "$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ "$MS", "-a", "$MARK", "-i", "2" $4 ]; timeout = 60.0; };
parameters = ( { name = "np"; values = [ $2 ]; role = "ranks"; } );
placement = { ranks_per_node = [ $3 ]; policy = "compact"; };
repetitions = 1;
max_attempts = 1;
backend = ${5:-$WORLD};
collect = { wall = false; regex = ( { region = "triad"; metric = "time"; pattern = "triad: ([0-9.eE+-]+) s"; } ); };
CFG
}

# np 1 and 2: one world each, of that size, its ranks on distinct cores
cfg world "1, 2" 2 ""
plan=$("$PS" plan "$T/world.cfg" 2>&1); is $? 0 "plan accepts backend.mpi = \"openmpi\" on the local backend"
like "$plan" "note: a run of p ranks is one MPI world of p ranks" "plan says a run is one MPI world"
"$PS" run "$T/world.cfg" --dir "$T/world" --quiet > "$T/out" 2>&1; is $? 0 "np 1 and 2 as MPI worlds complete"
for d in "$T"/world/runs/*/; do
	np=$(sqlite3 "$T/world/campaign.db" "SELECT ranks FROM runs WHERE id = $(basename "$d")")
	is "$(grep -c '^world ' "$d/stdout")" "$np" "run $(basename "$d") (np $np): every rank says its world"
	is "$(grep '^world ' "$d/stdout" | cut -d' ' -f1,2 | sort -u)" "world $np" "run $(basename "$d"): one world of size $np"
	is "$(ls "$d"/rank-*.json | wc -l)" "$np" "run $(basename "$d"): $np rank records"
	is "$(for f in "$d"/rank-*.json; do json "$f" '$j->{cores}'; done | sort -u | wc -l)" "$np" \
		"run $(basename "$d"): the ranks' cores are distinct"
done
is "$(sqlite3 "$T/world/campaign.db" "SELECT COUNT(*) FROM bindings")" 3 "the store has a binding per rank of each world"

# without backend.mpi, plan says what np ranks are
cfg copies "1, 2" 2 "" '"local"'
like "$("$PS" plan "$T/copies.cfg" 2>&1)" "p independent copies of the program (a throughput study), never one MPI world" \
	"without backend.mpi, plan says a run of p ranks is p independent copies"

# --jobs 2: two 1-rank worlds at once, on different cores.  Each waits (up
# to 60 s) until both have started, so they surely overlap; worlds that
# shared a core could not both start.
cat > "$T/jobs.cfg" <<CFG
name = "jobs";
app = { command = [ "sh", "-c", "touch '$T/up.{k}'; i=0; while [ ! -e '$T/up.1' ] || [ ! -e '$T/up.2' ]; do i=\$((i+1)); [ \$i -gt 600 ] && exit 9; sleep 0.1; done; exec '$MS' -a $MARK -i 2" ]; timeout = 120.0; };
parameters = ( { name = "k"; values = [ 1, 2 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { ranks_per_node = [ 1 ]; policy = "compact"; };
repetitions = 1;
max_attempts = 1;
backend = { type = "local"; mpi = "openmpi"; };
CFG
"$PS" run "$T/jobs.cfg" --dir "$T/jobs" --jobs 2 --quiet > "$T/out" 2>&1; is $? 0 "two 1-rank worlds with --jobs 2 complete side by side"
is "$(cat "$T"/jobs/runs/*/stdout | grep -c '^world 1 rank 0$')" 2 "each is a world of one"
is "$(for f in "$T"/jobs/runs/*/rank-0.json; do json "$f" '$j->{cores}'; done | sort -u | wc -l)" 2 \
	"the two worlds ran on different cores"

# a world larger than the machine: refused at plan time, with the numbers
big=$((ncores + 1))
cfg big "$big" "$big" ""
out=$("$PS" plan "$T/big.cfg" 2>&1); is $? 2 "a $big-rank world on $ncores cores is refused at plan time"
like "$out" "needs $big cores, but this machine has $ncores usable cores" "the refusal gives the numbers"
is "$(printf '%s\n' "$out" | wc -l)" 1 "in one line"

# a rank that exits non-zero: one failed run naming the rank
cfg fail "2" 2 ', "-x", "3"'
out=$("$PS" run "$T/fail.cfg" --dir "$T/fail" 2>&1)
like "$out" "run 1: failed: rank 1 of 2: exit status 3" "a failing rank fails the run, naming the rank and how"
is "$(sqlite3 "$T/fail/campaign.db" "SELECT COUNT(*) || ' ' || reason FROM runs")" "1 rank 1 of 2: exit status 3" \
	"the store has one run, failed for that reason"
is "$(left)" 0 "nothing of the failed world is left"

# rank records that disagree with the world: a record of a rank the world
# does not have fails the run, saying so
perl -MJSON::PP -e 'local $/; my $j = JSON::PP->new->decode(<STDIN>); $j->{rank} = 7; print encode_json($j)' \
	< "$(ls "$T"/world/runs/*/rank-0.json | head -1)" > "$T/rank-7.json"
printf '#!/bin/sh\ncp "%s" "$PERFSWEEP_RUN_DIR/"\nexec "$@"\n' "$T/rank-7.json" > "$T/stray.sh"
chmod +x "$T/stray.sh"
cfg odd "2" 2 ""
sed -i "s|command = \[ \"$MS\"|command = [ \"$T/stray.sh\", \"$MS\"|" "$T/odd.cfg"
out=$("$PS" run "$T/odd.cfg" --dir "$T/odd" 2>&1)
like "$out" "run 1: failed: rank 7's record is outside a world of 2 ranks" "a stray rank record fails the run, naming it"

# a world that hangs past its timeout: killed whole
cfg hang "2" 2 ', "-s", "300"'
sed -i 's/timeout = 60.0/timeout = 2.0/' "$T/hang.cfg"
out=$("$PS" run "$T/hang.cfg" --dir "$T/hang" 2>&1)
like "$out" "run 1: failed: timed out after 2 s" "a hung world fails at its timeout"
is "$(left)" 0 "no mpirun, perfsweep-bind or rank of the hung world is left"

# the launcher, and what the local backend does not take
mkdir -p "$T/nompi"
ln -s "$(command -v sqlite3)" "$T/nompi/"
out=$(PATH=$T/nompi "$PS" plan "$T/world.cfg" 2>&1); is $? 2 "no mpirun in PATH: plan refuses"
like "$out" "starts each run with 'mpirun', which is not in PATH; install the package openmpi-bin" \
	"naming mpirun and openmpi-bin"
sed 's/mpi = "openmpi"/mpi = "mpich"/' "$T/world.cfg" > "$T/mpich.cfg"
out=$("$PS" plan "$T/mpich.cfg" 2>&1); is $? 2 "backend.mpi = \"mpich\" is refused on the local backend"
like "$out" "mpich.cfg:" "at its file and line"

done_testing
