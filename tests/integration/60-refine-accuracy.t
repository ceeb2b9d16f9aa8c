#!/usr/bin/env bash
# refine --for accuracy on real runs of tests/lib/pmnf-app.sh (time 1 +
# 0.001 x^2 y, a fixed +-3% jitter): the runs that most narrow the spread of
# the models' predictions at the target, after the findings, in refine's
# format; the JSON addition; bad targets; measuring them narrows the spread;
# run --until publishable --for accuracy.  Every run takes about 0.1 s
# (PMNF_SLEEP): refine weighs a run's information by its measured cost, and
# the cost of a bare shell script is the machine's noise, which made the
# runs it chose, and whether they narrowed the spread, depend on the load.
. "$(dirname "$0")/../lib/tap.sh"

# acc_cfg FILE NAME STATE-DIR: the sparse design of x, y in 4..64, 3 repetitions
acc_cfg() {
	mkdir -p "$3"
	cat > "$T/acc.deps" <<'EOF'
parameters = [ "x", "y" ];
functions = ( { name = "main"; deps = ( [ "x", "y" ] ); } );
EOF
	cat > "$1" <<EOF
name = "$2";
app = { command = [ "$ROOT/tests/lib/pmnf-app.sh", "{x}", "{y}" ]; env = [ "PMNF_DIR=$3", "PMNF_SLEEP=0.1" ]; };
parameters = ( { name = "x"; values = [ 4, 8, 16, 32, 64 ]; }, { name = "y"; values = [ 4, 8, 16, 32, 64 ]; } );
repetitions = 3;
order_seed = 1;
dependencies = "acc.deps";
design = { strategy = "sparse"; };
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time ([0-9.]+)"; } ); };
# the program reports the time the test chose: no run is disturbed by load
analysis = { min_cpu_share = 0.0; };
backend = "local";
EOF
}

acc_cfg "$T/acc.cfg" acc "$T/s1"
D=$T/acc.campaign
"$PS" run "$T/acc.cfg" --quiet > /dev/null 2>&1; is $? 0 "the campaign runs (11 points x 3)"

"$PS" refine "$D" --for accuracy --dry-run --json > "$T/a.json"; is $? 0 "refine --for accuracy --dry-run --json"
is "$(json "$T/a.json" 'join ",", sort keys %$j')" "accuracy,budget,dropped,pending,proposals,runs,verdict" \
   "the JSON gains accuracy"
is "$(json "$T/a.json" 'join ",", sort keys %{$j->{accuracy}}')" "region,regions,spread_after,spread_before,target" \
   "its keys"
is "$(json "$T/a.json" 'join ",", map { "$_=$j->{accuracy}{target}{$_}" } sort keys %{$j->{accuracy}{target}}')" \
   "x=128,y=128" "the default target: one step beyond the config's values"
is "$(json "$T/a.json" '$j->{accuracy}{region}')" "main" "the region weighed"
n=$(json "$T/a.json" 'scalar grep { $_->{finding} eq "accuracy" } @{$j->{proposals}}')
ok $([ "$n" -ge 1 ]; echo $?) "accuracy proposals ($n)"
is "$(json "$T/a.json" 'scalar grep { $_->{params}{x} == 128 && $_->{params}{y} == 128 } @{$j->{proposals}}')" 0 \
   "none at the target itself"
is "$(json "$T/a.json" '$j->{accuracy}{spread_after} < $j->{accuracy}{spread_before} ? 1 : 0')" 1 \
   "they narrow the spread there"
is "$(json "$T/a.json" 'my @k = map { $_->{finding} } @{$j->{proposals}}; my $seen = 0; my $bad = 0;
	for (@k) { $seen = 1 if $_ eq "accuracy"; $bad = 1 if $seen && $_ ne "accuracy" } $bad')" 0 \
   "after the findings' proposals"
like "$(json "$T/a.json" '(grep { $_->{finding} eq "accuracy" } @{$j->{proposals}})[0]{reason}')" \
   "main: the prediction at x=128,y=128 spreads" "each with its reason"
is "$(json "$T/a.json" '$j->{runs}')" 0 "a dry run writes nothing"

out=$("$PS" refine "$D" --for accuracy --dry-run); is $? 0 "the text form"
like "$out" "accuracy at x=128,y=128: main's prediction there spreads" "says where and how wide"
like "$out" "accuracy      main: the prediction at x=128,y=128" "the proposals in refine's table"

"$PS" refine "$D" --for accuracy --target x=256,y=64 --dry-run --json > "$T/b.json"; is $? 0 "--target x=256,y=64"
is "$(json "$T/b.json" '"$j->{accuracy}{target}{x},$j->{accuracy}{target}{y}"')" "256,64" "is the target"
out=$("$PS" refine "$D" --for accuracy --target q=1 2>&1); is $? 2 "an unknown parameter"
like "$out" "--target 'q=1': the campaign has no parameter 'q'" "is named"
out=$("$PS" refine "$D" --target x=1 2>&1); is $? 2 "--target without --for accuracy"
like "$out" "--target is the point --for accuracy aims at: give both" "is a usage error"
out=$("$PS" refine "$D" --for speed 2>&1); is $? 2 "--for speed"
like "$out" "--for takes 'accuracy', not 'speed'" "is refused"
"$PS" refine "$D" --for accuracy --budget 0 --dry-run --json > "$T/z.json"
is "$(json "$T/z.json" 'scalar @{$j->{proposals}}')" 0 "--budget 0: nothing"

before=$(json "$T/a.json" '$j->{accuracy}{spread_before}')
out=$("$PS" refine "$D" --for accuracy 2>&1); is $? 0 "refine --for accuracy writes the runs"
like "$out" "wrote " "and says how many"
"$PS" run "$D" --quiet > /dev/null 2>&1; is $? 0 "run DIR executes them"
"$PS" refine "$D" --for accuracy --dry-run --json > "$T/c.json"
is "$(json "$T/c.json" "\$j->{accuracy}{spread_before} < $before ? 1 : 0")" 1 \
   "measured, they narrow the spread at the target ($before -> $(json "$T/c.json" '$j->{accuracy}{spread_before}'))"

out=$("$PS" run "$T/acc.cfg" --for accuracy 2>&1); is $? 2 "--for accuracy without --until"
like "$out" "--for accuracy refines the rounds of --until publishable; give both" "is a usage error"
acc_cfg "$T/until.cfg" until "$T/s2"
out=$("$PS" run "$T/until.cfg" --until publishable --for accuracy --rounds 2 --quiet 2>&1); rc=$?
is "$rc" 0 "run --until publishable --for accuracy --rounds 2"
like "$out" "round 1: refine added" "round 1 refines"
like "$out" "accuracy" "for accuracy"
like "$out" "publishable after 2 rounds" "publishable once the rounds are done"

done_testing
