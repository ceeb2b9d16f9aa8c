#!/usr/bin/env bash
# perfsweep model: Extra-P's inputs, JSON output, dependencies, bad inputs, campaigns.
. "$(dirname "$0")/../lib/tap.sh"
D=$ROOT/tests/data/extrap-text

out=$("$PS" model "$D/one_parameter_1.txt" --selection extrap); is $? 0 "model exits 0"
like "$out" "compute (time)" "names the callpath and metric"
like "$out" "model:       -0.88979340980" "one_parameter_1: Extra-P's constant"
like "$out" "+ 0.2016824382649" "one_parameter_1: Extra-P's coefficient"
like "$out" "* x^(2)" "one_parameter_1: x^2"
like "$out" "smape 0.8719" "prints the quality figures"

"$PS" model "$D/two_parameter_5.txt" --json > "$T/tp5.json"; is $? 0 "model --json exits 0"
is "$(json "$T/tp5.json" 'scalar @$j')" 1 "one model"
like "$(json "$T/tp5.json" '$j->[0]{model}')" " * log2(p)^(1) * s^(1)" "two_parameter_5: log2(p) * s"
is "$(json "$T/tp5.json" 'sprintf "%.3f %.3f", $j->[0]{constant}, $j->[0]{terms}[0]{coefficient}')" "2.000 0.884" \
	"two_parameter_5: 2 + 0.884 * ..."
is "$(json "$T/tp5.json" 'join ",", map { "$_->{parameter}:$_->{poly_exponent}:$_->{log_exponent}" } @{$j->[0]{terms}[0]{factors}}')" \
	"p:0:1,s:1:0" "terms list parameters with their exponents"
is "$(json "$T/tp5.json" 'join ",", map { defined $j->[0]{$_} ? "y" : "n" } qw(callpath metric model constant terms rss ar2 smape re)')" \
	"y,y,y,y,y,y,y,y,y" "every field of the JSON contract"

out=$("$PS" model "$D/one_parameter_6.txt" --selection extrap); is $? 0 "one_parameter_6"
like "$out" "met1 (time)
  model:       4.068" "met1 is the constant 4.068"
is "$(echo "$out" | grep -c 'model: .* p^(2)$')" 3 "met2..met4 are x^2 models"

out=$("$PS" model "$D/two_parameter_1.txt" --selection extrap); is $? 0 "two_parameter_1"
like "$out" "1.37420831" "two_parameter_1: Extra-P's constant"
like "$out" " * log2(y)^(1) + 0.04384165" "two_parameter_1: Extra-P's first term and coefficient"
like "$out" "x^(3/2) * log2(x)^(2) * log2(y)^(1)" "two_parameter_1: Extra-P's product term"

# the same input gives bit-identical output, whatever the locale
"$PS" model "$D/three_parameter_1.txt" --json > "$T/a.json"
LC_ALL=C.UTF-8 LANG=de_DE.UTF-8 "$PS" model "$D/three_parameter_1.txt" --json > "$T/b.json"
cmp -s "$T/a.json" "$T/b.json"; ok $? "output is bit-identical across runs and locales"

# --median: one outlier repetition
cp "$ROOT/tests/data/robust/outlier.txt" "$T/outlier.txt"
"$PS" model "$T/outlier.txt" --selection extrap --median --json > "$T/med.json"
is "$(json "$T/med.json" 'sprintf "%.6f %.6g %s", $j->[0]{constant}, $j->[0]{terms}[0]{coefficient}, $j->[0]{terms}[0]{factors}[0]{poly_exponent}')" \
	"-0.000000 5 1" "--median fits the median: 5 * n"
mean=$("$PS" model "$T/outlier.txt" --selection extrap); like "$mean" "model:" "the mean fits something else"
ok $([ "$mean" != "$("$PS" model "$T/outlier.txt" --selection extrap --median)" ]; echo $?) "mean and median differ"

# bad inputs: one line, with the file position, exit 2
printf 'PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nDATA 3\n' > "$T/more.txt"
err=$("$PS" model "$T/more.txt" 2>&1); is $? 2 "more DATA lines than points exits 2"
is "$err" "error: $T/more.txt:6: more DATA lines than points (2) for region 'r' metric 'time'" "and says where"
printf 'PARAMETER x\nPOINTS 1 2 3\nREGION r\nDATA 1\nDATA 2\n' > "$T/fewer.txt"
err=$("$PS" model "$T/fewer.txt" 2>&1); is $? 2 "fewer DATA lines exits 2"
is "$err" "error: $T/fewer.txt:5: fewer DATA lines (2) than points (3) for region 'r' metric 'time'" "fewer: message"
printf 'PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2x\n' > "$T/nan.txt"
is "$("$PS" model "$T/nan.txt" 2>&1)" "error: $T/nan.txt:5: '2x' is not a number" "non-numeric value"
printf 'POINTS 1 2\nREGION r\nDATA 1\nDATA 2\n' > "$T/nopar.txt"
is "$("$PS" model "$T/nopar.txt" 2>&1)" "error: $T/nopar.txt:1: POINTS before any PARAMETER line" "no PARAMETER line"
printf 'PARAMETER p s\nPOINTS ( 1 2 ) ( 3 4 5 )\n' > "$T/width.txt"
is "$("$PS" model "$T/width.txt" 2>&1)" "error: $T/width.txt:2: point 2 has 3 values, expected 2 (one per parameter)" \
	"POINTS tuple of the wrong width"
err=$("$PS" model "$D/one_parameter_1.txt" --metric bogus 2>&1); is $? 2 "unknown metric exits 2"
like "$err" "no metric 'bogus'" "and names it"
err=$("$PS" model 2>&1); is $? 2 "missing input exits 2"
like "$err" "usage: perfsweep model" "with the usage line"
err=$("$PS" model "$D/one_parameter_1.txt" "$T" 2>&1); is $? 2 "two inputs exit 2"

# JSON and JSON-lines inputs
cat > "$T/in.json" <<JSON
{"parameters": ["x"], "measurements": {"compute": {"time": [
 {"point": [2], "values": [204]}, {"point": [4], "values": [216]}, {"point": [8], "values": [264]},
 {"point": [16], "values": [456]}, {"point": [32], "values": [1224]}]}}}
JSON
out=$("$PS" model "$T/in.json"); is $? 0 "a .json INPUT reads Extra-P JSON"
like "$out" "model:       199.99999999999" "JSON input: 200 + x^2"
like "$out" " * x^(2)" "JSON input: x^2"
"$PS" model "$T/in.json" --json > "$T/in.out.json"; is $? 0 "FILE --json: JSON in and out"
is "$(json "$T/in.out.json" '$j->[0]{terms}[0]{factors}[0]{poly_exponent}')" 2 "JSON in, JSON out"
for x in 2 4 8 16 32; do echo "{\"params\": {\"x\": $x}, \"callpath\": \"c\", \"metric\": \"m\", \"value\": $((7 + 3 * x))}"; done > "$T/in.jsonl"
"$PS" model "$T/in.jsonl" --json > "$T/jl.json"; is $? 0 ".jsonl input"
is "$(json "$T/jl.json" 'sprintf "%.6g %.6g %s", $j->[0]{constant}, $j->[0]{terms}[0]{coefficient}, $j->[0]{terms}[0]{factors}[0]{poly_exponent}')" \
	"7 3 1" ".jsonl input: 7 + 3x"

# dependencies: the constrained model next to the black box
awk 'BEGIN {
	printf "PARAMETER p s\nPOINTS"; for (j = 1; j <= 16; j *= 2) ; 
	for (b = 2; b <= 32; b *= 2) for (a = 2; a <= 32; a *= 2) printf " ( %d %d )", a, b; printf "\n";
	split("solve halo setup other", r, " ");
	for (k = 1; k <= 4; k++) { printf "REGION main->%s\nMETRIC time\n", r[k];
		for (b = 2; b <= 32; b *= 2) for (a = 2; a <= 32; a *= 2) {
			if (r[k] == "solve") v = 3 + 2 * a * b; else if (r[k] == "halo") v = 5 + 0.5 * a * b;
			else if (r[k] == "setup") v = 7; else v = 1 + a;
			printf "DATA %.17g %.17g\n", v, v } }
}' > "$T/deps.txt"
cat > "$T/app.deps" <<DEPS
parameters = [ "s", "p" ];
functions = (
  { name = "solve"; deps = ( [ "p", "s" ] ); },
  { name = "halo"; deps = ( [ "p" ], [ "s" ] ); },
  { name = "setup"; deps = ( ); }
);
DEPS
"$PS" model "$T/deps.txt" --deps "$T/app.deps" --json > "$T/deps.json"; is $? 0 "model --deps exits 0"
q() { json "$T/deps.json" "my (\$m) = grep { \$_->{callpath} eq 'main->$1' } @\$j; $2"; }
is "$(q solve '$m->{function} . " " . ($m->{constrained} ? 1 : 0)')" "solve 1" "solve matched and constrained"
is "$(q solve 'sprintf "%.6g %d", $m->{terms}[0]{coefficient}, scalar @{$m->{terms}[0]{factors}}')" "2 2" \
	"solve: product allowed by a joint dependency"
is "$(q halo 'join ",", map { scalar @{$_->{factors}} } @{$m->{terms}}')" "1,1" \
	"halo: separate dependencies give an additive model"
like "$(q halo '$m->{black_box}{model}')" " * p^(1) * s^(1)" "halo: the black box has the product"
is "$(q setup 'scalar @{$m->{terms}} . " " . $m->{constant}')" "0 7" "setup: no dependencies, constant model"
is "$(q other '(defined $m->{function} ? "f" : "null") . " " . ($m->{constrained} ? 1 : 0)')" "null 0" \
	"other: no function matched, black box only"
out=$("$PS" model "$T/deps.txt" --deps "$T/app.deps"); is $? 0 "text output with --deps"
like "$out" "main->halo (time)  function: halo
  constrained:" "text output shows the constrained model"
like "$out" "  black box:" "and the black box"
printf 'parameters = [ "p" ];\nfunctions = ( { name = "x"; deps = ( [ "q" ] ); } );\n' > "$T/bad.deps"
err=$("$PS" model "$T/deps.txt" --deps "$T/bad.deps" 2>&1); is $? 2 "a bad dependency file exits 2"
like "$err" "bad.deps" "and names the file"

# a campaign directory
cat > "$T/c.cfg" <<CFG
name = "m";
app = { command = [ "$DEMO", "-n", "{n}", "-i", "{i}", "-k", "stream" ]; };
parameters = ( { name = "n"; values = [ 10, 20, 30, 40, 50 ]; }, { name = "i"; values = [ 1, 2 ]; } );
repetitions = 1;
collect = { regex = ( { region = "stream"; pattern = "stream: ([0-9.eE+-]+) s"; } ); };
analysis = { min_cpu_share = 0.0; };   # a busy machine must not leave every run out
CFG
"$PS" run "$T/c.cfg" --jobs 2 --quiet > /dev/null 2>&1; is $? 0 "a small campaign runs"
"$PS" model "$T/m.campaign" --json > "$T/camp.json"; is $? 0 "model DIR exits 0"
like "$(json "$T/camp.json" 'join ",", map { $_->{callpath} } @$j')" "stream" "models the campaign's regions"
is "$(json "$T/camp.json" '(grep { $_->{callpath} eq "stream" } @$j)[0]{metric}')" "time" "with their metric"
err=$("$PS" model "$T" 2>&1); is $? 2 "a directory that is no campaign exits 2"
like "$err" "not a campaign directory" "and says so"
like "$("$PS" model "$D/one_parameter_1.txt")" "* x^(2)" "a file INPUT without an option: text by extension"
like "$("$PS" model "$T/in.json")" "* x^(2)" "a .json INPUT is read as JSON"
err=$("$PS" model "$T/none.txt" 2>&1); is $? 2 "a missing input file exits 2"
is "$err" "error: cannot read '$T/none.txt': No such file or directory" "and says why"
err=$("$PS" model "$T" --format text 2>&1); is $? 2 "a directory given as --format text exits 2"
is "$err" "error: '$T' is a directory, not an Extra-P text file" "and says why"

# the format: by content when the extension says nothing, or forced by --format
cp "$T/in.json" "$T/in.data"
like "$("$PS" model "$T/in.data")" "* x^(2)" "a file starting with { is read as JSON"
cp "$D/one_parameter_1.txt" "$T/op1.json"
like "$("$PS" model "$T/op1.json" --format text)" "* x^(2)" "--format text reads a .json-named text file"
err=$("$PS" model "$T/op1.json" 2>&1); is $? 2 "and without --format the extension says JSON"
err=$("$PS" model "$T/in.json" --format xml 2>&1); is $? 2 "an unknown --format exits 2"
like "$err" "unknown format 'xml'; use campaign, scorep, text, reference, json or jsonl" "and lists the formats"

# --json only selects the output: the old input spellings still work for one
# release, with the same output as the new ones and a note on stderr
"$PS" model "$T/in.json" > "$T/new.txt" 2> "$T/new.err"
"$PS" model --json "$T/in.json" > "$T/old.txt" 2> "$T/old.err"; is $? 0 "old '--json FILE' exits 0"
cmp -s "$T/new.txt" "$T/old.txt"; ok $? "old '--json FILE' reads FILE as input and prints text, as before"
is "$(cat "$T/new.err")" "" "the new spelling prints no note"
like "$(cat "$T/old.err")" "note: 'model --json $T/in.json' reads $T/in.json as Extra-P JSON input, as before; this spelling is deprecated" 	"the old one a deprecation note"
"$PS" model --json "$T/in.json" --json > "$T/old2.json" 2> /dev/null; is $? 0 "old '--json FILE --json' exits 0"
cmp -s "$T/in.out.json" "$T/old2.json"; ok $? "and prints the same JSON as 'FILE --json'"
"$PS" model "$D/one_parameter_1.txt" > "$T/new1.txt" 2>/dev/null
"$PS" model --text "$D/one_parameter_1.txt" > "$T/old1.txt" 2> "$T/old1.err"; is $? 0 "old '--text FILE' exits 0"
cmp -s "$T/new1.txt" "$T/old1.txt"; ok $? "old '--text FILE' gives the same models"
like "$(cat "$T/old1.err")" "note: 'model --text $D/one_parameter_1.txt' is deprecated: write 'model $D/one_parameter_1.txt'" 	"with a deprecation note"
"$PS" model --jsonl "$T/in.jsonl" --json > "$T/old3.json" 2> "$T/old3.err"; is $? 0 "old '--jsonl FILE' exits 0"
cmp -s "$T/jl.json" "$T/old3.json"; ok $? "old '--jsonl FILE' gives the same models"
like "$(cat "$T/old3.err")" "note: 'model --jsonl $T/in.jsonl' is deprecated" "with a deprecation note"
"$PS" model "$T/in.json" --json > "$T/bare.json" 2> "$T/bare.err"
is "$(json "$T/bare.json" '$j->[0]{terms}[0]{factors}[0]{poly_exponent}')" 2 "'FILE --json' selects JSON output"
is "$(cat "$T/bare.err")" "" "without a note"

# a region validate calls unreliable (most points noisy) is modelled, and marked with validate's reason
printf 'PARAMETER x\nPOINTS 1 2 3 4 5\nREGION quiet\nDATA 1 1.01 0.99\nDATA 2 2.02 1.98\nDATA 3 3.03 2.97\nDATA 4 4.04 3.96\nDATA 5 5.05 4.95\nREGION noisy\nDATA 1 2 0.5\nDATA 2 4 1\nDATA 3 6 1.5\nDATA 4 4.04 3.96\nDATA 5 10 2.5\n' > "$T/noisy.txt"
out=$("$PS" model "$T/noisy.txt"); is $? 0 "a noisy region is still modelled"
like "$out" "unreliable:  4 of 5 points above CoV 0.1 (95% lower bound, outliers left out): re-measure x=1 (CoV" "and marked unreliable with the reason"
like "$out" ": validate reports this region, does not model it" "as validate says"
is "$(echo "$out" | grep -c 'unreliable:')" 1 "only the noisy region"
"$PS" model "$T/noisy.txt" --json > "$T/noisy.json"
is "$(json "$T/noisy.json" 'join " ", map { "$_->{callpath}:" . ($_->{reliable} ? "reliable" : "unreliable") } @$j')" \
   "quiet:reliable noisy:unreliable" "JSON: reliable true and false"
like "$(json "$T/noisy.json" '$j->[1]{unreliable}')" "4 of 5 points above CoV 0.1" "JSON: the reason"
"$PS" validate "$T/noisy.txt" > "$T/noisy.v"
like "$(cat "$T/noisy.v")" "noisy [time] noise: 4/5 points" "validate agrees"
like "$(cat "$T/noisy.v")" "unreliable, not modelled: 4 of 5 points above CoV 0.1" "and does not model it"
done_testing
