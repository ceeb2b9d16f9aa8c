#!/usr/bin/env bash
# perfsweep plan: pruning is never silent (the default output names the
# pruned parameter, why, and how to keep it); --summary gives the totals and
# each parameter's coverage without a row per point; --json streams its
# points and is the same contract (parsed, not compared as text).
. "$(dirname "$0")/../lib/tap.sh"

cat >"$T/d.deps" <<'DEPS'
parameters = ["n", "np"];
functions = ( { name = "main"; deps = ( ["n"] ); } );
DEPS
cat >"$T/p.cfg" <<CFG
name = "pr";
app = { command = [ "mpirun", "-np", "{np}", "app", "{n}" ]; };
parameters = ( { name = "n"; values = [ 10, 20, 30, 40 ]; },
               { name = "np"; values = [ 1, 2 ]; } );
repetitions = 3;
dependencies = "$T/d.deps";
cost_model = "n";
CFG
out=$("$PS" plan "$T/p.cfg" 2>&1); is "$?" 0 "plan exits 0"
like "$out" "pruned parameters:
  np: affects no loop in '$T/d.deps'; fixed at its baseline 1 (to keep it, give it a role or name it in a function's deps there)" \
	"a pruned parameter is named with the reason and how to keep it, without --explain"

sum=$("$PS" plan "$T/p.cfg" --summary 2>&1); is "$?" 0 "--summary exits 0"
like "$sum" "total:          4 points, 12 runs" "--summary has the totals"
like "$sum" "coverage:
  n: 4 of 4 values (10..40)
  np: 1 of 2 values (1..1)" "and each parameter's coverage"
is "$(echo "$sum" | grep -c '^ *[0-9][0-9]* ')" 0 "and no row per point"

"$PS" plan "$T/p.cfg" --json >"$T/p.json"; is "$?" 0 "--json exits 0"
is "$(json "$T/p.json" 'scalar(@{$j->{points}}) . " " . $j->{totals}{points} . " " . $j->{strategy} . " " . join(",", @{$j->{pruned}})')" \
	"4 4 full np" "--json streams a valid document with every point, the totals and the pruned parameter"
is "$(json "$T/p.json" 'join ",", map { $_->{params}{n} } @{$j->{points}}')" "10,20,30,40" "the points in plan order"
done_testing
