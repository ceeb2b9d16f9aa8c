#!/usr/bin/env bash
# perfsweep plan CONFIG --evaluate DATA (docs/designs.md, "Evaluating a
# design"): the config's design against the other strategies on a generated
# truth (held out one step beyond) and on LULESH's measured profiles (p = 343
# and size = 45 held out); the --json contract, its agreement with plan's own
# costs, determinism, the text, --html, and bad input.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/gen.deps" <<'EOF'
parameters = [ "x", "y" ];
functions = ( { name = "main"; deps = ( [ "x", "y" ] ); } );
EOF
cat > "$T/gen.cfg" <<'EOF'
name = "gen2";
app = { command = [ "/bin/true" ]; };
parameters = ( { name = "x"; values = [ 4, 8, 16, 32, 64 ]; }, { name = "y"; values = [ 4, 8, 16, 32, 64 ]; } );
repetitions = 5;
dependencies = "gen.deps";
design = { strategy = "sparse"; };
cost_model = "10 + 0.5 * x^2 * y";
backend = "local";
EOF
TRUTH='gen:10 + 0.5 * x^2 * y,noise=0.05,seed=1,seeds=3'

"$PS" plan "$T/gen.cfg" --evaluate "$TRUTH" --json > "$T/e.json"; is $? 0 "plan --evaluate gen:... --json"
is "$(json "$T/e.json" 'join ",", sort keys %$j')" \
   "budgets,data,design,design_core_hours,first_seed,full_core_hours,held_out,held_out_rule,regions,seeds" "the keys"
is "$(json "$T/e.json" 'join ",", sort keys %{$j->{budgets}[0]}')" "core_hours,design_own,share,strategies" \
   "a budget's keys"
is "$(json "$T/e.json" 'join ",", sort keys %{$j->{budgets}[0]{strategies}[0]}')" \
   "core_hours,errors,feasible,median_error,models,points,repetitions,strategy,worst_error" "a strategy's keys"
is "$(json "$T/e.json" 'scalar @{$j->{budgets}}')" 11 "11 budgets: the design's own, 10% .. 100%"
is "$(json "$T/e.json" 'join ",", map { $_->{strategy} } @{$j->{budgets}[0]{strategies}}')" \
   "design,full,lines,cheapest,disagree" "5 strategies each"
is "$(json "$T/e.json" '$j->{budgets}[0]{design_own} ? 1 : 0')" 1 "the first is the design's own cost"
is "$(json "$T/e.json" '$j->{budgets}[10]{share}')" 1 "the last the full factorial's"
is "$(json "$T/e.json" '$j->{held_out_rule}')" "one step beyond" "held out one step beyond"
is "$(json "$T/e.json" 'scalar @{$j->{held_out}}')" 11 "11 points: the 6 x 6 grid less the 5 x 5"
is "$(json "$T/e.json" 'scalar grep { $_->{x} == 128 || $_->{y} == 128 } @{$j->{held_out}}')" 11 \
   "each with x or y at 128"
is "$(json "$T/e.json" '$j->{seeds} . " " . $j->{first_seed}')" "3 1" "3 seeds from 1"

"$PS" plan "$T/gen.cfg" --json > "$T/plan.json"
is "$(json "$T/e.json" 'sprintf "%.10g", $j->{design_core_hours}')" \
   "$(json "$T/plan.json" 'sprintf "%.10g", $j->{totals}{core_hours}')" "the design's cost is plan's total"
is "$(json "$T/e.json" 'sprintf "%.10g", $j->{full_core_hours}')" \
   "$(json "$T/plan.json" 'sprintf "%.10g", $j->{full_factorial}{core_hours}')" "the full factorial's is plan's"
is "$(json "$T/e.json" 'my $n = 0; for my $b (@{$j->{budgets}}) { for (@{$b->{strategies}}) {
	$n++ if $_->{feasible} && $_->{core_hours} > $b->{core_hours} * (1 + 1e-9) } } $n')" 0 \
   "no strategy spends more than its budget"
is "$(json "$T/e.json" 'my $n = 0; for my $b (@{$j->{budgets}}) { for (@{$b->{strategies}}) {
	$n++ if $_->{feasible} && ($_->{errors} != 3 || $_->{median_error} > $_->{worst_error}) } } $n')" 0 \
   "every feasible cell has 3 errors, the median no worse than the worst"
is "$(json "$T/e.json" 'my $f = $j->{budgets}[10]{strategies}[1]; "$f->{points}x$f->{repetitions}"')" "25x5" \
   "the full factorial at 100%: 25 points x 5"
is "$(json "$T/e.json" '$j->{budgets}[0]{strategies}[0]{points}')" 11 "the sparse design: 11 points"
like "$(json "$T/e.json" '$j->{budgets}[0]{strategies}[0]{models}[0]{model}')" "x^(2) * y^(1)" "and its model"

"$PS" plan "$T/gen.cfg" --evaluate "$TRUTH" --json > "$T/e2.json"
ok $(cmp -s "$T/e.json" "$T/e2.json"; echo $?) "the same evaluation twice"

out=$("$PS" plan "$T/gen.cfg" --evaluate "$TRUTH"); is $? 0 "the text form"
like "$out" "held out: one step beyond, 11 points: x=4,y=128;" "names the held-out points"
like "$out" "design 4.2%        design" "the design's own budget first"
like "$out" "models at the design's own cost (seed 1):" "the models"
like "$out" "the design at 4.2% of the full factorial's core-hours: median error" "and the design against the full"

"$PS" plan "$T/gen.cfg" --evaluate "$TRUTH" --html "$T/e.html" > /dev/null; is $? 0 "--html"
like "$(cat "$T/e.html")" "<svg" "a page with a figure"
like "$(cat "$T/e.html")" "disagree" "one line per strategy"
like "$(cat "$T/e.html")" "median relative prediction error at the held-out points" "error against core-hours"
out=$(PERFSWEEP_GNUPLOT=/bin/false "$PS" plan "$T/gen.cfg" --evaluate "$TRUTH" --html "$T/f.html" 2>&1)
is $? 2 "a failing gnuplot is an error"
like "$out" "gnuplot failed" "saying so"

# LULESH: planned over p <= 216, size <= 40; the profiles measured p = 343 and size = 45 too
L=$ROOT/tests/data/lulesh
"$PS" plan "$L/evaluate.cfg" --evaluate "$L" --json > "$T/l.json"; is $? 0 "LULESH evaluated against its profiles"
is "$(json "$T/l.json" '$j->{held_out_rule}')" "DATA's points beyond the config's range" "held out: DATA beyond the range"
is "$(json "$T/l.json" 'scalar @{$j->{held_out}}')" 9 "9 points"
is "$(json "$T/l.json" 'scalar grep { $_->{p} == 343 || $_->{size} == 45 } @{$j->{held_out}}')" 9 "p = 343 or size = 45"
ok $([ "$(json "$T/l.json" 'scalar @{$j->{regions}}')" -ge 5 ]; echo $?) "the kernels with a dependency file"
is "$(json "$T/l.json" 'my $f = $j->{budgets}[10]{strategies}[1]; "$f->{points}x$f->{repetitions}"')" "16x1" \
   "the full factorial at 100%: 16 points, the one repetition measured"

# a campaign measured on a fuller grid (x, y up to 128) of a program whose time is known
mkdir -p "$T/s"
cat > "$T/full.cfg" <<EOF
name = "full";
app = { command = [ "$ROOT/tests/lib/pmnf-app.sh", "{x}", "{y}" ]; env = [ "PMNF_DIR=$T/s", "PMNF_A=10", "PMNF_B=0.5" ]; };
parameters = ( { name = "x"; values = [ 4, 8, 16, 32, 64, 128 ]; }, { name = "y"; values = [ 4, 8, 16, 32, 64, 128 ]; } );
repetitions = 2;
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time ([0-9.]+)"; } ); };
analysis = { min_cpu_share = 0.0; };
backend = "local";
EOF
"$PS" run "$T/full.cfg" --quiet > /dev/null 2>&1; is $? 0 "a campaign on the 6 x 6 grid runs"
"$PS" plan "$T/gen.cfg" --evaluate "$T/full.campaign" --json > "$T/c.json"; is $? 0 "evaluated against the campaign"
is "$(json "$T/c.json" 'scalar @{$j->{held_out}}')" 11 "its 11 points beyond the config's 5 x 5 held out"
is "$(json "$T/c.json" '$j->{budgets}[10]{strategies}[1]{repetitions}')" 2 \
   "the full factorial at 100%: the 2 repetitions measured"
is "$(json "$T/c.json" '$j->{budgets}[0]{strategies}[0]{median_error} < 0.1 ? 1 : 0')" 1 \
   "the design's models predict the held-out points within 10% (x^2 y with a +-3% jitter)"

out=$("$PS" plan "$T/gen.cfg" --evaluate 'gen:x * q' 2>&1); is $? 2 "an unknown parameter in the truth"
like "$out" "column 5: unknown parameter 'q'" "with its column"
out=$("$PS" plan "$T/gen.cfg" --evaluate 'gen:x,noise=2' 2>&1); is $? 2 "a noise of 200%"
like "$out" "noise must be a relative standard deviation in [0, 1)" "refused"
out=$("$PS" plan "$L/evaluate.cfg" --evaluate "$T/none.txt" 2>&1); is $? 2 "DATA that is not there"
sed 's/125, 216 ]/125, 216, 343 ]/; s/35, 40 ]/35, 40, 45 ]/' "$L/evaluate.cfg" > "$T/all.cfg"
sed -i "s|\"lulesh.ll.json\"|\"$L/lulesh.ll.json\"|" "$T/all.cfg"
out=$("$PS" plan "$T/all.cfg" --evaluate "$L" 2>&1); is $? 2 "DATA with nothing beyond the config's range"
like "$out" "DATA has no point beyond the config's range to hold out" "says so"
sed 's/size"; values = \[ 25, 30/size"; values = [ 25, 27, 30/' "$T/all.cfg" | sed 's/, 343 ]/ ]/; s/, 45 ]/ ]/' > "$T/gap.cfg"
out=$("$PS" plan "$T/gap.cfg" --evaluate "$L" 2>&1); is $? 2 "DATA without a point the lines measure"
like "$out" "DATA has no measurement at p=27,size=27, a point of the lines" "names it"
grep -v cost_model "$T/gen.cfg" > "$T/nocost.cfg"
out=$("$PS" plan "$T/nocost.cfg" --evaluate "$TRUTH" 2>&1); is $? 2 "no cost model"
like "$out" "--evaluate needs a cost model to price the budgets" "says what to add"
out=$("$PS" plan "$T/gen.cfg" --html "$T/x.html" 2>&1); is $? 2 "--html without --evaluate"
like "$out" "--html draws the evaluation: give --evaluate DATA" "is a usage error"
out=$("$PS" plan "$T/gen.cfg" --evaluate "$TRUTH" --dir "$T" 2>&1); is $? 2 "--evaluate with --dir"

done_testing
