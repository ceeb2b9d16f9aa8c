#!/usr/bin/env bash
# Placements checked against a SLURM partition on the private cluster
# (tests/slurm/cluster.sh: "emu" has n1-n4 with 36 CPUs each):
#   - at plan time, by asking the controller: more nodes than the partition
#     has, or more ranks per node x cores per rank than a node's CPUs, is
#     refused by `plan` and `run`, naming the point and the placement;
#   - what only SLURM knows (here --cpus-per-task in backend.extra) is
#     refused at submission, and the run's error names the point and the
#     placement;
#   - the stored bindings show the ranks per node each run really had.
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/slurm/testlib.sh"
slurm_test_init

# cfg NAME RANKS RANKS-PER-NODE [PLACEMENT-EXTRA] [BACKEND-EXTRA]
cfg() {
	cat >"$work/$1.cfg" <<CFG
name = "$1";
app = { command = [ "/bin/sh", "-c", "echo time: 1" ]; };
parameters = ( { name = "np"; values = [ $2 ]; role = "ranks"; }, { name = "n"; values = [ 7 ]; } );
placement = { ranks_per_node = [ $3 ]; policy = "compact"; $4 };
repetitions = 1;
max_attempts = 1;
backend = { type = "slurm"; partition = "emu"; max_inflight = 4; time_limit = 5; $5 };
CFG
}

# 1. More nodes than the partition has: refused by plan, naming point and placement.
cfg nodes 5 1
"$perfsweep" plan "$work/nodes.cfg" >"$work/nodes.out" 2>&1
is "$?" 2 "plan: 5 nodes of 1 rank on a 4-node partition is refused"
is "$(cat "$work/nodes.out")" \
	"error: $work/nodes.cfg:4: point 1 (np=5, n=7): placement 5 ranks, 1 per node, compact needs 5 nodes, but partition 'emu' has 4" \
	"the error names the point, the placement and the partition's node count"

# 2. run refuses it too, before anything is stored or submitted.
"$perfsweep" run "$work/nodes.cfg" --dir "$work/nodes" --quiet >"$work/nodes-run.out" 2>&1
is "$?" 2 "run refuses the same plan"
[ ! -e "$work/nodes/campaign.db" ]
ok $? "and stores nothing"
is "$(jobs_named "ps:nodes:1.1")" 0 "and submits nothing"

# 3. More ranks per node x cores per rank than a node's 36 CPUs.
cfg cpus 2 2 "cores_per_rank = 20;"
"$perfsweep" plan "$work/cpus.cfg" >"$work/cpus.out" 2>&1
is "$?" 2 "plan: 2 ranks per node x 20 cores on 36-CPU nodes is refused"
grep -q "point 1 (np=2, n=7): placement 2 ranks, 2 per node, compact needs 40 CPUs on 1 node, but partition 'emu' has 0 such nodes (the largest has 36 CPUs)" "$work/cpus.out"
ok $? "the error names the CPUs needed and the largest node"
[ $? = 0 ] || diag < "$work/cpus.out"

# 4. What fits is planned: 8 ranks at 2 per node on 4 nodes, 18 x 2 cores per node.
cfg fits 8 2 "cores_per_rank = 18;"
"$perfsweep" plan "$work/fits.cfg" >"$work/fits.out" 2>&1
is "$?" 0 "plan: 4 nodes of 2 ranks x 18 cores fit"

# 5. An unknown partition is refused at plan time, pointing at the backend.
sed 's/partition = "emu"/partition = "nosuch"/' "$work/fits.cfg" >"$work/nosuch.cfg"
"$perfsweep" plan "$work/nosuch.cfg" >"$work/nosuch.out" 2>&1
is "$?" 2 "plan: an unknown partition is refused"
is "$(cat "$work/nosuch.out")" "error: $work/nosuch.cfg:7: slurm has no partition 'nosuch'" \
	"the error points at the backend section"

# 5b. A list of partitions, as sbatch -p takes it: a point fits when one of them can take it.
cfg list 3 1
sed -i 's/partition = "emu"/partition = "real,emu"/' "$work/list.cfg"
"$perfsweep" plan "$work/list.cfg" >"$work/list.out" 2>&1
is "$?" 0 "plan: 3 nodes fit partition list 'real,emu' (2-node real, 4-node emu)"
[ "$?" = 0 ] || diag < "$work/list.out"
sed 's/partition = "emu"/partition = "real,emu"/' "$work/nodes.cfg" >"$work/list5.cfg"
"$perfsweep" plan "$work/list5.cfg" >"$work/list5.out" 2>&1
is "$?" 2 "plan: 5 nodes fit neither partition of the list"
is "$(cat "$work/list5.out")" \
	"error: $work/list5.cfg:4: point 1 (np=5, n=7): placement 5 ranks, 1 per node, compact needs 5 nodes, but partition 'real' has 2" \
	"the error names the first partition's reason"
sed 's/partition = "emu"/partition = "emu,nosuch"/' "$work/fits.cfg" >"$work/nosuch2.cfg"
"$perfsweep" plan "$work/nosuch2.cfg" >"$work/nosuch2.out" 2>&1
is "$(cat "$work/nosuch2.out")" "error: $work/nosuch2.cfg:7: slurm has no partition 'nosuch'" \
	"an unknown partition in a list is named"

# 6. Only SLURM knows --cpus-per-task: refused at submission, the run's error names point and placement.
cfg cpt 2 2 "" 'extra = [ "--cpus-per-task=20" ];'
"$perfsweep" plan "$work/cpt.cfg" >/dev/null 2>&1
is "$?" 0 "plan: --cpus-per-task is SLURM's to check"
"$perfsweep" run "$work/cpt.cfg" --dir "$work/cpt" --quiet >"$work/cpt.out" 2>&1
is "$(status_field "$work/cpt" failed)" 1 "run: the run fails at submission"
reason=$("$perfsweep" status "$work/cpt" --json 2>/dev/null | perl -MJSON::PP -0ne 'my $j = decode_json($_); print join "\n", map { $_->{reason} // "" } @{$j->{runs} // []}')
[ -z "$reason" ] && reason=$(cat "$work/cpt.out")
case "$reason" in
*"slurm rejected the job for run 1 (point np=2, n=7; placement 2 ranks on 1 node, 2 per node, compact) in partition 'emu': "*) r=0 ;;
*) r=1 ;;
esac
ok $r "the submission error names the run, the point, the placement and the partition"
[ $r = 0 ] || diag "$reason" "$(cat "$work/cpt.out")"

# 7. Bound ranks per node from the stored bindings: 2 ranks at 1 and at 2 per node.
cfg bound 2 "1, 2"
run_campaign "$work/bound.cfg" "$work/bound" "a 2-rank campaign at 1 and 2 ranks per node completes"
"$perfsweep" validate "$work/bound" --html "$work/bound.html" >/dev/null 2>&1
placements=$(sed -n '/ranks\/node/,/<\/pre>/p' "$work/bound.html")
r=1
case "$placements" in *"    2      2           1  compact        1     1  1"*)
	case "$placements" in *"    1      2           2  compact        1     1  2"*) r=0 ;; esac ;;
esac
ok $r "the report's placements show the ranks per node the bindings record (1 and 2)"
[ $r = 0 ] || diag "$placements"

done_testing
