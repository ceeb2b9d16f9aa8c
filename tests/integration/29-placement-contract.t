#!/usr/bin/env bash
# The placement contract in the config and the plan: the placement section's
# policy, map and cores per rank are checked by one function
# (placement_spec_parse) with FILE:LINE errors; plan --json carries each
# point's map and cores per rank when set (additions only); a parameter with
# role = "ranks_per_node" sets each point's ranks per node, is a study axis
# (kept by the design, no "needs at least 5 values" warning) and is checked
# against the local node like a placement axis.
. "$(dirname "$0")/../lib/tap.sh"

# cfg FILE PARAMETERS PLACEMENT [EXTRA]
cfg() {
	cat > "$1" <<CFG
name = "pc";
app = { command = [ "/bin/true" ]; };
parameters = (
$2
);
$3
repetitions = 2;
$4
CFG
}

# ---- 1. placement errors with FILE:LINE, from the one parser
NP='  { name = "np"; values = [ 1, 2 ]; role = "ranks"; }'
err_case() { # err_case NAME PLACEMENT-BODY EXPECTED
	cfg "$T/$1.cfg" "$NP" "placement = { ranks_per_node = [ 2 ];
  $2
};"
	"$PS" plan "$T/$1.cfg" > "$T/$1.out" 2>&1
	local rc=$?
	is "$rc" 2 "$1: plan refuses it"
	is "$(cat "$T/$1.out")" "error: $T/$1.cfg:7: $3" "$1: one line naming file and line"
}
err_case cores-real 'cores_per_rank = 1.5;' "cores_per_rank must be a positive integer or \"all\", not '1.5'; write cores_per_rank = 2;"
err_case cores-word 'cores_per_rank = "many";' "cores_per_rank must be a positive integer or \"all\", not 'many'; write cores_per_rank = 2;"
err_case cores-zero 'cores_per_rank = 0;' "cores_per_rank must be a positive integer or \"all\", not '0'; write cores_per_rank = 2;"
err_case policy 'policy = "packed";' "unknown policy 'packed'; write policy = \"compact\", \"spread\" or \"explicit\";"
err_case explicit-nomap 'policy = "explicit";' "policy \"explicit\" needs the core sets: map = \"cores.map\"; (one line of cores per local rank, docs/placement.md)"
printf '0\n1\n' > "$T/cores.map"
err_case map-policy 'policy = "spread"; map = "cores.map";' "a placement map goes with policy = \"explicit\";"
err_case map-cores 'policy = "explicit"; map = "cores.map"; cores_per_rank = 1;' "cores_per_rank does not apply to an explicit map"

# ---- 2. plan --json: map and cores_per_rank per point when set, nothing when not
cfg "$T/cpr.cfg" "$NP" 'placement = { ranks_per_node = [ 2 ]; policy = "spread"; cores_per_rank = 1; };'
"$PS" plan --json "$T/cpr.cfg" > "$T/cpr.json"; is $? 0 "cores_per_rank: plan --json exits 0"
is "$(json "$T/cpr.json" 'join ",", map { $_->{placement}{cores_per_rank} // "-" } @{$j->{points}}')" "1,1" \
	"every placed point carries cores_per_rank"
is "$(json "$T/cpr.json" 'join ",", map { exists $_->{placement}{map} ? "map" : "-" } @{$j->{points}}')" "-,-" \
	"and no map without one"
is "$(json "$T/cpr.json" 'join ",", sort keys %{$j->{points}[0]{placement}}')" "cores_per_rank,nodes,policy,ranks_per_node" \
	"the placement object: the old keys plus cores_per_rank"
cfg "$T/map.cfg" "$NP" 'placement = { ranks_per_node = [ 2 ]; policy = "explicit"; map = "cores.map"; };'
"$PS" plan --json "$T/map.cfg" > "$T/map.json"; is $? 0 "map: plan --json exits 0"
is "$(json "$T/map.json" 'join ",", map { $_->{placement}{map} // "-" } @{$j->{points}}')" "$T/cores.map,$T/cores.map" \
	"every placed point carries the map's path"
is "$(json "$T/map.json" 'exists $j->{points}[0]{placement}{cores_per_rank} ? "yes" : "no"')" "no" \
	"and no cores_per_rank with a map"
cfg "$T/plain.cfg" '  { name = "n"; values = [ 1, 2 ]; }' ''
"$PS" plan --json "$T/plain.cfg" > "$T/plain.json"
is "$(json "$T/plain.json" 'join ",", sort keys %{$j->{points}[0]{placement}}')" "nodes,policy,ranks_per_node" \
	"a point without placement keeps exactly the old keys"
"$PS" plan "$T/plain.cfg" > "$T/plain.txt"
is "$(grep -c 'compact' "$T/plain.txt")" 0 "the table prints no policy for points without a placement"

# ---- 3. role = "ranks_per_node"
PPN='  { name = "n"; values = [ 10, 20 ]; },
  { name = "np"; values = [ 2 ]; role = "ranks"; },
  { name = "ppn"; values = [ 1, 2 ]; role = "ranks_per_node"; }'
cfg "$T/ppn.cfg" "$PPN" '' 'backend = "slurm";'
"$PS" plan --json "$T/ppn.cfg" > "$T/ppn.json" 2> "$T/ppn.err"; is $? 0 "role ranks_per_node: plan exits 0"
is "$(json "$T/ppn.json" 'join " ", map { "$_->{params}{ppn}:$_->{placement}{nodes}x$_->{placement}{ranks_per_node}" } @{$j->{points}}')" \
	"1:2x1 2:1x2 1:2x1 2:1x2" "each point's ranks per node is its ppn value, nodes = np / ppn"
is "$(json "$T/ppn.json" 'join "|", grep { /ppn/ } @{$j->{notes}}')" "" "no 'needs at least 5 values' warning for ppn"
printf 'parameters = [ "n", "np", "ppn" ];\nfunctions = ( { name = "k"; deps = ( [ "n" ] ); } );\n' > "$T/ppn.deps"
for s in taint sparse; do
	cfg "$T/ppn-$s.cfg" "$PPN" '' "backend = \"slurm\"; dependencies = \"ppn.deps\"; design = { strategy = \"$s\"; };"
	"$PS" plan --json "$T/ppn-$s.cfg" > "$T/ppn-$s.json" 2>&1
	is "$(json "$T/ppn-$s.json" 'join ",", @{$j->{pruned}}')" "" "$s: ppn is a study axis, never pruned although no function depends on it"
	is "$(json "$T/ppn-$s.json" 'my %v; $v{$_->{params}{ppn}}++ for @{$j->{points}}; join ",", sort keys %v')" "1,2" \
		"$s: both ppn values are planned"
done
# on the local backend, ppn = 1 with 2 ranks needs 2 nodes: refused, naming the point
cfg "$T/ppn-local.cfg" "$PPN" ''
"$PS" plan "$T/ppn-local.cfg" > "$T/ppn-local.out" 2>&1
is "$?" 2 "local: ppn = 1 with 2 ranks is refused at plan time"
like "$(cat "$T/ppn-local.out")" "point 1 (n=10, np=2, ppn=1): placement 2 ranks, 1 per node, compact needs 2 nodes, but the local backend has one node" \
	"the error names the point and its placement"
# the placement section may not set ranks per node again
cfg "$T/ppn-twice.cfg" "$PPN" 'placement = { ranks_per_node = [ 2 ]; };' 'backend = "slurm";'
"$PS" plan "$T/ppn-twice.cfg" > "$T/ppn-twice.out" 2>&1
is "$(cat "$T/ppn-twice.out")" "error: $T/ppn-twice.cfg:8: parameter 'ppn' (role \"ranks_per_node\") sets the ranks per node; remove placement.ranks_per_node" \
	"placement.ranks_per_node with a ranks_per_node parameter is refused"
cfg "$T/role.cfg" '  { name = "n"; values = [ 1 ]; role = "cores"; }' ''
"$PS" plan "$T/role.cfg" > "$T/role.out" 2>&1
is "$(cat "$T/role.out")" "error: $T/role.cfg:4: unknown role 'cores'; write role = \"ranks\" (the number of processes), role = \"ranks_per_node\" or role = \"threads\" (threads per rank);" \
	"an unknown role names the three roles"
cfg "$T/two.cfg" '  { name = "a"; values = [ 1 ]; role = "ranks_per_node"; },
  { name = "b"; values = [ 2 ]; role = "ranks_per_node"; }' ''
"$PS" plan "$T/two.cfg" > "$T/two.out" 2>&1
like "$(cat "$T/two.out")" "more than one parameter has role = \"ranks_per_node\"; only one may" "one ranks_per_node parameter at most"

done_testing
