#!/usr/bin/env bash
# perfsweep plan with dependency files: LULESH taint and sparse designs against
# the 125-point factorial, the --json contract, --explain, budget boundaries,
# config errors with FILE:LINE, and run executing exactly the plan.
. "$(dirname "$0")/../lib/tap.sh"
LULESH=$ROOT/tests/data/lulesh/lulesh.ll.json

lulesh_cfg() { # lulesh_cfg FILE STRATEGY [EXTRA-LINES]
	cat > "$1" <<CFG
name = "lulesh";
app = { command = [ "lulesh2.0", "-s", "{size}", "-r", "{regions}" ]; };
parameters = (
  { name = "size";    values = [ 25, 30, 35, 40, 45 ]; },
  { name = "p";       values = [ 27, 64, 125, 216, 343 ]; role = "ranks"; },
  { name = "regions"; values = [ 1, 2, 4, 8, 16 ]; }
);
repetitions = 5;
dependencies = "$LULESH";
design = { strategy = "$2"; };
$3
CFG
}

# ---- LULESH taint and sparse
lulesh_cfg "$T/taint.cfg" taint
"$PS" plan "$T/taint.cfg" > "$T/taint.txt"; is $? 0 "taint: plan exits 0"
like "$(cat "$T/taint.txt")" "strategy taint, 125 points, 625 runs" "taint: 125 points (all three multiply)"
like "$(cat "$T/taint.txt")" "full factorial: 125 points, 625 runs" "taint: against the 125-point factorial"
like "$(cat "$T/taint.txt")" "saved:          0.0% of points" "taint: saves nothing on LULESH"
like "$(cat "$T/taint.txt")" "size*regions*p: product term in CalcQForElems(Domain&), main" "taint: names the functions behind the group"

lulesh_cfg "$T/sparse.cfg" sparse
"$PS" plan "$T/sparse.cfg" > "$T/sparse.txt"; is $? 0 "sparse: plan exits 0"
like "$(cat "$T/sparse.txt")" "strategy sparse, 18 points, 90 runs" "sparse: 18 points"
like "$(cat "$T/sparse.txt")" "saved:          85.6% of points, 85.6% of runs" "sparse: saves 85.6% against 125 points"
like "$(cat "$T/sparse.txt")" "size*regions*p: product term in CalcQForElems(Domain&), main" "sparse: names the functions behind the group"
sed -n '1,25p' "$T/taint.txt" | grep -q reason; ok $([ $? -ne 0 ]; echo $?) "without --explain: no reason column"

"$PS" plan "$T/sparse.cfg" --explain > "$T/explain.txt"
is "$(grep -c 'line size$' "$T/explain.txt")" 4 "--explain: four points on the size line"
is "$(grep -c 'separates the product from the sum' "$T/explain.txt")" 4 "--explain: one separating point per subset"
like "$(cat "$T/explain.txt")" "extra point to check the fit" "--explain: the extra point"

lulesh_cfg "$T/full.cfg" full
"$PS" plan "$T/full.cfg" --json > "$T/full.json"
is "$(json "$T/full.json" '$j->{totals}{points}')" 125 "full: 125 points"

# ---- the --json contract
"$PS" plan "$T/sparse.cfg" --json > "$T/sparse.json"; is $? 0 "--json exits 0"
is "$(json "$T/sparse.json" 'scalar @{$j->{points}}')" 18 "--json: 18 points"
is "$(json "$T/sparse.json" 'join ",", sort keys %{$j->{points}[0]}')" "core_hours,params,placement,reason,repetitions" "--json: point keys"
is "$(json "$T/sparse.json" 'join ",", sort keys %{$j->{points}[0]{placement}}')" "nodes,policy,ranks_per_node" "--json: placement keys"
is "$(json "$T/sparse.json" 'join ",", map { "$_=$j->{points}[0]{params}{$_}" } sort keys %{$j->{points}[0]{params}}')" "p=27,regions=1,size=25" "--json: the baseline first"
is "$(json "$T/sparse.json" '$j->{points}[0]{reason}')" "baseline" "--json: reason"
is "$(json "$T/sparse.json" 'join ",", sort keys %{$j->{totals}}')" "core_hours,points,runs" "--json: totals keys"
is "$(json "$T/sparse.json" '$j->{totals}{runs}')" 90 "--json: totals.runs"
is "$(json "$T/sparse.json" '$j->{full_factorial}{points} . "/" . $j->{full_factorial}{runs}')" "125/625" "--json: full_factorial"
is "$(json "$T/sparse.json" 'join "|", map { join ",", @$_ } @{$j->{groups}}')" "size,regions,p" "--json: groups"
is "$(json "$T/sparse.json" 'scalar @{$j->{pruned}}')" 0 "--json: nothing pruned"
is "$(json "$T/sparse.json" 'defined $j->{totals}{core_hours} ? "num" : "null"')" null "--json: no cost model, core_hours null"

# ---- pruning through the CLI: multiple_deps' global affects nothing
cat > "$T/pr.cfg" <<CFG
name = "pr";
app = { command = [ "app", "{x1}", "{x2}", "{global}" ]; };
parameters = ( { name = "x1"; values = [1, 2, 3, 4, 5]; }, { name = "x2"; values = [1, 2, 3, 4, 5]; },
               { name = "global"; values = [1, 2, 3, 4, 5]; } );
repetitions = 5;
dependencies = "$ROOT/tests/data/perf-taint-unit/dataflow_multiple_deps.cpp.processed.json";
design = { strategy = "taint"; };
CFG
"$PS" plan "$T/pr.cfg" --json > "$T/pr.json"
is "$(json "$T/pr.json" 'join ",", @{$j->{pruned}}')" global "pruned: global"
is "$(json "$T/pr.json" '$j->{totals}{points}')" 25 "pruned: x1 x x2 grid only"
"$PS" plan "$T/pr.cfg" --explain > "$T/pr.txt"
like "$(cat "$T/pr.txt")" "  global: affects no loop in" "--explain says why global is pruned"

# ---- cost, placement, contention, budget
COST='cost_model = "2e-3 * size^3 / p * 8 + 1";'
lulesh_cfg "$T/c.cfg" sparse "$COST
backend = { type = \"slurm\"; partition = \"big\"; };
placement = { ranks_per_node = [ 36 ]; policy = \"spread\"; };
contention = { point = { p = 64; size = 30; }; ranks_per_node = { from = 2; to = 18; step = 2; }; };"
"$PS" plan "$T/c.cfg" --json > "$T/c.json"; is $? 0 "placement and contention plan"
is "$(json "$T/c.json" 'scalar grep { $_->{reason} =~ /^contention/ } @{$j->{points}}')" 9 "nine contention points"
is "$(json "$T/c.json" 'join ",", map { $_->{placement}{nodes} } grep { $_->{reason} =~ /^contention/ } @{$j->{points}}')" "32,16,11,8,7,6,5,4,4" "contention nodes = ceil(64 / rpn)"
is "$(json "$T/c.json" '$j->{points}[8]{placement}{nodes} . "x" . $j->{points}[8]{placement}{ranks_per_node} . " " . $j->{points}[8]{placement}{policy}')" "10x36 spread" "p=343 at 36 ranks/node: 10 nodes"

lulesh_cfg "$T/b0.cfg" sparse "$COST"
"$PS" plan "$T/b0.cfg" --json > "$T/b0.json"
total=$(json "$T/b0.json" 'sprintf "%.17g", $j->{totals}{core_hours}')
lulesh_cfg "$T/b1.cfg" sparse "$COST
budget = { core_hours = $total; };"
"$PS" plan "$T/b1.cfg" --json > "$T/b1.json"; is $? 0 "exactly at budget: accepted"
is "$(json "$T/b1.json" '$j->{totals}{runs}')" 90 "exactly at budget: nothing trimmed"
over=$(perl -e "printf '%.17g', $total - 1/3600")
lulesh_cfg "$T/b2.cfg" sparse "$COST
budget = { core_hours = $over; };"
"$PS" plan "$T/b2.cfg" --json > "$T/b2.json"; is $? 0 "one core-second over: accepted after trimming"
is "$(json "$T/b2.json" '$j->{totals}{runs}')" 72 "one core-second over: 4 repetitions per point"
like "$(json "$T/b2.json" '$j->{notes}[0]')" "repetitions reduced from 5 to 4" "one core-second over: the note says so"
lulesh_cfg "$T/b3.cfg" sparse "$COST
budget = { core_hours = 0.5; };"
"$PS" plan "$T/b3.cfg" > "$T/b3.out" 2> "$T/b3.err"; is $? 2 "infeasible budget: exit 2"
is "$(wc -l < "$T/b3.err")" 1 "infeasible budget: one error line"
like "$(cat "$T/b3.err")" "b3.cfg:12: plan needs" "infeasible budget: points at the budget line"
like "$(cat "$T/b3.err")" "cheapest feasible alternative:" "infeasible budget: offers the cheapest alternative"

# ---- config errors name FILE:LINE
err_case() { # err_case NAME STRATEGY EXTRA EXPECTED
	lulesh_cfg "$T/$1.cfg" "$2" "$3"
	"$PS" plan "$T/$1.cfg" > /dev/null 2> "$T/$1.err"; local rc=$?
	is "$rc" 2 "$1: exit 2"
	like "$(cat "$T/$1.err")" "$4" "$1: message"
}
err_case strat random "" "$T/strat.cfg:10: unknown strategy 'random'"
err_case costexpr sparse 'cost_model = "size^3 / q";' "$T/costexpr.cfg:11: bad cost model \"size^3 / q\": column 10: unknown parameter 'q'"
err_case nocost sparse 'budget = { core_hours = 10.0; };' "$T/nocost.cfg:11: a budget needs a cost model"
err_case charge sparse "$COST budget = { charge = \"rack\"; };" "$T/charge.cfg:11: unknown charge 'rack'"
err_case rpn sparse 'placement = { ranks_per_node = [ 0 ]; };' "$T/rpn.cfg:11: ranks_per_node values must be positive"
err_case cpoint sparse 'contention = { point = { q = 1; }; ranks_per_node = [ 2 ]; };' "$T/cpoint.cfg:11: unknown parameter 'q' in point"
err_case dkey sparse 'design = { strategy = "sparse"; baseline = { size = 33; }; };' "dkey.cfg:11: duplicate setting name"
sed -i 's/^design = { strategy = "sparse"; };$//' "$T/dkey.cfg"
"$PS" plan "$T/dkey.cfg" > /dev/null 2> "$T/dkey.err"
like "$(cat "$T/dkey.err")" "$T/dkey.cfg:11: baseline 33 of 'size' is not one of its values" "baseline not a value: FILE:LINE"
sed -i "s|^dependencies = .*|dependencies = \"$T/nope.json\";|" "$T/strat.cfg"
sed -i 's/random/taint/' "$T/strat.cfg"
"$PS" plan "$T/strat.cfg" > /dev/null 2> "$T/nodeps.err"; is $? 2 "missing dependency file: exit 2"
like "$(cat "$T/nodeps.err")" "nope.json" "missing dependency file: named"

# ---- run executes exactly the plan
cat > "$T/demo.deps" <<DEPS
parameters = [ "n", "i" ];
functions = ( { name = "dense"; deps = ( [ "n", "i" ] ); } );
DEPS
cat > "$T/run.cfg" <<CFG
name = "sp";
app = { command = [ "$DEMO", "-n", "{n}", "-i", "{i}", "-k", "sort" ]; };
parameters = ( { name = "n"; values = [ 10, 20, 30, 40, 50 ]; }, { name = "i"; values = [ 1, 2, 3, 4, 5 ]; } );
repetitions = 1;
dependencies = "demo.deps";
design = { strategy = "sparse"; };
CFG
"$PS" plan "$T/run.cfg" --json > "$T/run.json"
is "$(json "$T/run.json" '$j->{totals}{runs}')" 11 "demo sparse plan: 9 line points + 2 group points"
"$PS" run "$T/run.cfg" --jobs 2 --quiet > /dev/null 2>&1; is $? 0 "run exits 0"
"$PS" status "$T/sp.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{planned}')" 11 "run stored exactly the planned runs"
is "$(json "$T/st.json" '$j->{done}')" 11 "and ran them"

# ---- cost model from an earlier campaign's measurements
sed -e 's/name = "sp";/name = "sp2";/' -e 's/"sparse"/"taint"/' "$T/run.cfg" > "$T/next.cfg"
echo 'cost_model = { campaign = "sp.campaign"; };' >> "$T/next.cfg"
"$PS" plan "$T/next.cfg" --json > "$T/next.json"; is $? 0 "cost model from an earlier campaign: plans"
is "$(json "$T/next.json" '$j->{totals}{core_hours} > 0 && $j->{full_factorial}{core_hours} >= $j->{totals}{core_hours} * (1 - 1e-9) ? "priced" : "no"')" priced "the points and the factorial are priced from the old runs"
sed -i 's/sp.campaign/none.campaign/' "$T/next.cfg"
"$PS" plan "$T/next.cfg" > /dev/null 2> "$T/next.err"; is $? 2 "a missing cost campaign: exit 2"
like "$(cat "$T/next.err")" "next.cfg:7: cannot use campaign 'none.campaign' as a cost model" "a missing cost campaign: FILE:LINE"
done_testing
