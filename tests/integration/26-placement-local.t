#!/usr/bin/env bash
# Placement on the local backend: ranks start through perfsweep-bind, are
# bound with hwloc, and each rank's real binding is recorded in the run.
. "$(dirname "$0")/../lib/tap.sh"

ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)
if [ "$ncores" -lt 2 ]; then echo "1..0 # SKIP needs 2 cores"; exit 0; fi
last=$(( ncores - 1 ))

cat > "$T/c.cfg" <<CFG
name = "place";
app = { command = [ "$DEMO", "-n", "{n}", "-k", "setup" ]; };
parameters = ( { name = "n"; values = [ 10 ]; }, { name = "np"; values = [ 2 ]; role = "ranks"; } );
repetitions = 1;
placement = { ranks_per_node = [ 2 ]; policy = "compact"; };
CFG
"$PS" run "$T/c.cfg" --quiet > "$T/out" 2>&1; is $? 0 "a 2-rank run with the compact policy completes"
R=$T/place.campaign/runs/1
is "$(json "$R/rank-0.json" '$j->{cpuset} . "/" . $j->{policy}')" "0/compact" "rank 0 is bound to core 0"
is "$(json "$R/rank-1.json" '$j->{cpuset}')" "1" "rank 1 is bound to core 1"
ok $([ -s "$R/stdout" ] && [ -s "$R/rank-1.stdout" ]; echo $?) "each rank's output is kept"
"$PS" export "$T/place.campaign" --format csv > "$T/m.csv"
is "$(grep -c ',"main",time,' "$T/m.csv")" 3 "wall time of the run and of each rank"

# explicit map: the ranks swap cores
printf '# rank 0 on the last core, rank 1 on core 0\n%s\n0\n' "$last" > "$T/cores.map"
sed -e 's/"place"/"swap"/' -e 's/policy = "compact";/policy = "explicit"; map = "cores.map";/' "$T/c.cfg" > "$T/swap.cfg"
"$PS" run "$T/swap.cfg" --quiet > "$T/out" 2>&1; is $? 0 "a run with an explicit map completes"
R=$T/swap.campaign/runs/1
is "$(json "$R/rank-0.json" '$j->{cpuset}')" "$last" "rank 0 got the map's first line"
is "$(json "$R/rank-1.json" '$j->{cpuset}')" "0" "rank 1 got the map's second line"

# explicit without a map is refused before anything runs
sed -e 's/"place"/"nomap"/' -e 's/policy = "compact";/policy = "explicit";/' "$T/c.cfg" > "$T/nomap.cfg"
out=$("$PS" plan "$T/nomap.cfg" 2>&1); is $? 2 "explicit without a map is a config error"
like "$out" "nomap.cfg:5: " "naming the placement line"
like "$out" "map = " "and saying what to write"

# more ranks per node than cores: refused at plan time, naming the point and placement
sed -e 's/"place"/"toomany"/' -e "s/values = \[ 2 \]; role/values = [ $((ncores + 1)) ]; role/" \
    -e "s/ranks_per_node = \[ 2 \]/ranks_per_node = [ $((ncores + 1)) ]/" "$T/c.cfg" > "$T/toomany.cfg"
out=$("$PS" run "$T/toomany.cfg" --quiet 2>&1); is $? 2 "more ranks than cores is refused before anything runs"
like "$out" "toomany.cfg:5: point 1 (n=10, np=$((ncores + 1))): placement $((ncores + 1)) ranks, $((ncores + 1)) per node, compact needs $((ncores + 1)) cores, but this machine has $ncores usable cores" "naming the point and the placement"
ok $([ ! -e "$T/toomany.campaign/campaign.db" ]; echo $?) "and no campaign is created"

# more ranks than ranks per node needs a second node, which the local backend lacks
sed -e 's/"place"/"twonode"/' -e "s/ranks_per_node = \[ 2 \]/ranks_per_node = [ 1, 2 ]/" "$T/c.cfg" > "$T/twonode.cfg"
out=$("$PS" plan "$T/twonode.cfg" 2>&1); is $? 2 "np = 2 with ranks_per_node = 1 is refused by plan"
like "$out" "point 1 (n=10, np=2): placement 2 ranks, 1 per node, compact needs 2 nodes, but the local backend has one node" "saying the point needs two nodes"
done_testing
