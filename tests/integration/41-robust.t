#!/usr/bin/env bash
# Robust point estimates and selection on the command line: --aggregate,
# --selection, the echo in JSON, validate's checks, outliers as notes, the
# issue-14 slope-change line, and a campaign's analysis.aggregate.
. "$(dirname "$0")/../lib/tap.sh"

# 5 * n exactly, one repetition 45x the others at n = 4 (tests/data/robust/outlier.txt)
cp "$ROOT/tests/data/robust/outlier.txt" "$T/outlier.txt"
"$PS" model "$T/outlier.txt" --json > "$T/r.json"; is $? 0 "model exits 0 (robust by default)"
is "$(json "$T/r.json" 'sprintf "%.6g %s %s", $j->[0]{terms}[0]{coefficient}, $j->[0]{terms}[0]{factors}[0]{poly_exponent}, $j->[0]{terms}[0]{factors}[0]{log_exponent}')" \
	"5 1 0" "robust leaves the outlier out: 5 * n"
is "$(json "$T/r.json" '"$j->[0]{selection} $j->[0]{aggregate}"')" "robust mean" "JSON echoes selection and aggregate"
"$PS" model "$T/outlier.txt" --selection extrap --json > "$T/x.json"
ok $([ "$(json "$T/x.json" '$j->[0]{model}')" != "$(json "$T/r.json" '$j->[0]{model}')" ]; echo $?) \
	"Extra-P's rule on the mean is bent by the outlier"
is "$(json "$T/x.json" '$j->[0]{selection}')" extrap "--selection extrap is echoed"
"$PS" model "$T/outlier.txt" --aggregate min --json > "$T/m.json"
is "$(json "$T/m.json" '$j->[0]{aggregate}')" min "--aggregate min is echoed"
err=$("$PS" model "$T/outlier.txt" --aggregate avg 2>&1); is $? 2 "a bad --aggregate exits 2"
like "$err" "--aggregate wants mean, median or min, not 'avg'" "and says what to write"
err=$("$PS" validate "$T/outlier.txt" --selection best 2>&1); is $? 2 "a bad --selection exits 2"
like "$err" "--selection wants robust or extrap, not 'best'" "validate says what to write"

# validate: the outlier is a note, not a flag; the checks are listed
out=$("$PS" validate "$T/outlier.txt"); is $? 0 "one outlying repetition does not block"
like "$out" "note     k [time] 1 outlier at n=4: 900, 45x the median (repetition 3 of 3)" "the note names point, value and repetition"
like "$out" "checks (+ passed, ! flagged, ? not testable, - not run):" "the text ends with the checks table"
"$PS" validate "$T/outlier.txt" --json > "$T/v.json"
is "$(json "$T/v.json" 'join ",", sort keys %{$j->{checks}[0]}')" "callpath,check,metric,parameter,reason,status" "JSON checks carry the contract's keys"
is "$(json "$T/v.json" 'join ",", map { "$_->{check}:$_->{status}" } @{$j->{checks}}')" \
	"noise:passed,segmented:not-testable,extrapolation:passed" "each check has a status"
is "$(json "$T/v.json" '$j->{regions}[0]{outliers}[0]{point}{n} . " " . $j->{regions}[0]{outliers}[0]{repetition}')" "4 3" \
	"JSON regions list their outliers"

# issue 14's line: 12 log-spaced points, 0.05 x up to 16, then 0.8 (x/16)^2.5, +-1% spread
awk 'BEGIN {
	printf "PARAMETER x\nPOINTS"; for (i = 0; i < 12; i++) { x[i] = 2 * 128 ^ (i / 11); printf " %.6g", x[i] } print "";
	print "REGION line"; split("-0.01 0.005 0 -0.005 0.01", E, " ");
	for (i = 0; i < 12; i++) {
		y = x[i] <= 16 ? 0.05 * x[i] : 0.8 * (x[i] / 16) ^ 2.5; line = "DATA";
		for (r = 1; r <= 5; r++) line = line " " y * (1 + E[1 + (r + i) % 5]);
		print line;
	}
}' > "$T/slope.txt"
"$PS" validate "$T/slope.txt" --json > "$T/s.json"; is $? 3 "the slope change blocks"
is "$(json "$T/s.json" '$j->{flags}[0]{kind} . " " . $j->{flags}[0]{parameter}')" "segmented x" "flagged segmented along x"
like "$(json "$T/s.json" '$j->{flags}[0]{detail}')" "regime changes between x=11.6758 and x=18.149" "located between the two points around x=16"

# a campaign's analysis.aggregate is the default; the option overrides it
cat > "$T/a.cfg" <<CFG
name = "agg";
app = { command = [ "$DEMO", "-n", "{n}", "-k", "setup" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; } );
repetitions = 1;
analysis = { aggregate = "median"; min_cpu_share = 0.0; };   # about aggregates: no run left out as disturbed on a busy machine
CFG
"$PS" run "$T/a.cfg" --quiet > /dev/null 2>&1; is $? 0 "a campaign with analysis.aggregate runs"
"$PS" validate "$T/agg.campaign" --json > "$T/c.json"
is "$(json "$T/c.json" '$j->{aggregate}')" median "validate uses the campaign's aggregate"
"$PS" model "$T/agg.campaign" --aggregate min --json > "$T/cm.json"
is "$(json "$T/cm.json" '$j->[0]{aggregate}')" min "--aggregate overrides it"
printf 'name = "t";\napp = { command = [ "/bin/true" ]; };\nparameters = ( { name = "n"; values = [ 1 ]; } );\nanalysis = { aggregate = "avg"; };\n' > "$T/bad.cfg"
err=$("$PS" plan "$T/bad.cfg" 2>&1); is $? 2 "a bad analysis.aggregate exits 2"
like "$err" "$T/bad.cfg:4: unknown aggregate 'avg'; use mean, median or min" "and names file and line"
done_testing
