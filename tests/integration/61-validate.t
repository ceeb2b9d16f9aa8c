#!/usr/bin/env bash
# perfsweep validate on Extra-P text inputs: verdicts and exit codes, the
# JSON contract, the HTML report, dependency files, and bad input.
. "$(dirname "$0")/../lib/tap.sh"
set -u
DATA="$ROOT/tests/data/extrap-text"
# run CMD...: sets out, err, rc
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; out=$(cat "$T/out"); err=$(cat "$T/err"); }

# JSON checks through Perl's core JSON::PP: prints what the expression says
jq_() { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); $_ = $j; print eval($ARGV[0]) // "undef", "\n"; die $@ if $@' "$1"; }

# --- help ---
run "$PS" help validate
is "$rc" 0 "help validate exits 0"
like "$out" "exit status: 0 publishable; 3 blocked" "help documents the exit codes"

# --- segmented data of Extra-P's tests ---
run "$PS" validate "$DATA/one_parameter_segmented_2.txt"
is "$rc" 3 "segmented input is blocked (exit 3)"
like "$out" "BLOCKING main [runtime] segmented: change between p=20 and 24" "text names the change point"
like "$out" "verdict: blocked" "text gives the verdict"

run "$PS" validate --json "$DATA/one_parameter_segmented_2.txt"
is "$rc" 3 "--json keeps the exit code"
is "$(printf '%s' "$out" | jq_ '$_->{verdict}')" blocked "json verdict blocked"
is "$(printf '%s' "$out" | jq_ 'join(",", sort keys %$_)')" "aggregate,checks,disturbed,flags,regions,selection,verdict" "json top-level keys (checks, selection, aggregate, disturbed added)"
is "$(printf '%s' "$out" | jq_ 'join(",", sort keys %{$_->{flags}[0]})')" \
   "callpath,change_between,cpu_share_first,cpu_share_last,detail,growth,kind,located,metric,model_after,model_before,p_after,p_before,p_value,parameter,share_explains,unexplained,unexplained_p" "json flag keys are the contract (the CPU shares, a segmented change's location and models, what the share explains added)"
is "$(printf '%s' "$out" | jq_ '$_->{flags}[0]{kind} . " " . $_->{flags}[0]{parameter}')" "segmented p" "json flag kind and parameter"
is "$(printf '%s' "$out" | jq_ '($_->{flags}[0]{located} ? "located" : "not located") . " " . join("|", @{$_->{flags}[0]{change_between}})')" "not located 20|24" "a change between p=20 and 24 is not located: it blocks"
like "$(printf '%s' "$out" | jq_ '$_->{flags}[0]{detail}')" "add points at p=21, 22 and 23 to locate it" "naming the points to add"

# a change between two consecutive integers, each side's model exact: a result, not a blocker
run "$PS" validate --json "$DATA/one_parameter_segmented_1.txt"
is "$rc" 0 "a located change does not block (exit 0)"
is "$(printf '%s' "$out" | jq_ '$_->{verdict} . " " . ($_->{flags}[0]{located} ? "located" : "not located") . " " . join("|", @{$_->{flags}[0]{change_between}}) . " " . $_->{flags}[0]{model_before} . " / " . $_->{flags}[0]{model_after}')" \
   "publishable located 5|6 0 + 1 * p^(2) / 30 + 1 * p^(1)" "json: located between p=5 and 6, with both models"
run "$PS" validate "$DATA/one_parameter_segmented_1.txt"
like "$out" "result   main [runtime] segmented (located): change between p=5 and 6" "text: segmented (located)"

# --- clean data ---
run "$PS" validate "$DATA/one_parameter_1.txt"
is "$rc" 0 "clean input is publishable (exit 0)"
like "$out" "verdict: publishable" "text says publishable"

# --- contention on ranks per node, with a native dependency file ---
# kernel: size^2 work, +50% from 2 to 18 ranks per node; setup: constant.
# Deterministic spread of +-1% around the truth (5 repetitions).
awk 'BEGIN {
	print "PARAMETER size"; print "PARAMETER ranks_per_node"; print "";
	ns = split("10 20 30 40 50", S, " "); nr = split("2 6 10 14 18", R, " ");
	for (i = 1; i <= ns; i++) for (j = 1; j <= nr; j++) printf "POINTS ( %s %s )\n", S[i], R[j];
	split("-0.01 0.005 0.0 -0.005 0.01", E, " ");
	for (reg = 0; reg < 2; reg++) {
		print ""; print (reg ? "REGION main->setup" : "REGION main->kernel"); print "METRIC time";
		for (i = 1; i <= ns; i++) for (j = 1; j <= nr; j++) {
			t = reg ? 2 : 0.01 * S[i] * S[i] * (1 + 0.5 * (R[j] - 2) / 16);
			line = "DATA";
			for (r = 1; r <= 5; r++) line = line " " t * (1 + E[1 + (r + i + j) % 5]);
			print line;
		}
	}
}' > "$T/contention.txt"
cat > "$T/deps.cfg" <<'CFG'
parameters = ["size"];
functions = (
  { name = "kernel"; deps = (["size"]); expect = "size^2"; },
  { name = "setup"; deps = (); }
);
CFG
run "$PS" validate --deps "$T/deps.cfg" --json "$T/contention.txt"
is "$rc" 3 "contention blocks (exit 3)"
is "$(printf '%s' "$out" | jq_ 'join(" ", map { "$_->{callpath}:$_->{kind}:$_->{parameter}" } @{$_->{flags}})')" \
   "main->kernel:contention:ranks_per_node main->kernel:false-dependency:ranks_per_node" "only the kernel is flagged: contention on ranks_per_node, which its black-box model uses"
like "$(printf '%s' "$out" | jq_ '$_->{flags}[1]{detail}')" "cause: contention" "the false dependency's cause is contention"
g=$(printf '%s' "$out" | jq_ '$_->{flags}[0]{growth}')
perl -e 'exit(abs($ARGV[0] - 0.5) <= 0.1 ? 0 : 1)' "$g"; ok $? "growth $g within 20% of the injected 0.5"
p=$(printf '%s' "$out" | jq_ '$_->{flags}[0]{p_value}')
perl -e 'exit($ARGV[0] < 0.01 ? 0 : 1)' "$p"; ok $? "growth is significant (p=$p)"
is "$(printf '%s' "$out" | jq_ 'join(",", @{$_->{regions}[0]{dependencies}[0]})')" size "regions list the dependencies"
run "$PS" validate --deps "$T/deps.cfg" "$T/contention.txt"
like "$out" "contention study: 1 of 2 regions grow significantly with ranks_per_node" "text has the contention-study summary"

# --- HTML report ---
run "$PS" validate --deps "$T/deps.cfg" --html "$T/report.html" "$T/contention.txt"
is "$rc" 3 "--html keeps the exit code"
html=$(cat "$T/report.html" 2>/dev/null)
like "$html" "<svg" "html has an inline SVG plot"
is "$(grep -c '<svg' "$T/report.html")" 5 "a plot per region and parameter (2 x 2), and the contention study"
like "$html" "<h2>Checks</h2>" "html has the checks table"
like "$html" "model in the study axis" "the contention plot shows the model in its axis"
like "$html" "black-box:" "html shows the black-box model"
like "$html" "constrained:" "html shows the constrained model"
like "$html" "Contention study" "html has the contention study"
! grep -qE '<(script|link|img)[^>]*(src|href)=' "$T/report.html"; ok $? "html is self-contained"
ls "$T" | grep -q '^perfsweep-report' && leftover=1 || leftover=0
is "$leftover" 0 "no temporary plot files left"

run env PERFSWEEP_GNUPLOT=/nonexistent/gnuplot "$PS" validate --html "$T/r2.html" "$DATA/one_parameter_segmented_1.txt"
is "$rc" 2 "missing gnuplot is an error (exit 2)"
like "$err" "error: gnuplot failed: cannot run '/nonexistent/gnuplot'" "missing gnuplot is named"

# --- false dependency, --strict ---
# calc: size^2 work that gets 30% faster from p=2 to 32 although its
# dependencies exclude p (a speedup, not contention).
awk 'BEGIN {
	print "PARAMETER size"; print "PARAMETER p"; print "";
	ns = split("10 20 30 40 50", S, " "); np = split("2 4 8 16 32", P, " ");
	for (i = 1; i <= ns; i++) for (j = 1; j <= np; j++) printf "POINTS ( %s %s )\n", S[i], P[j];
	print ""; print "REGION main->calc"; print "METRIC time";
	for (i = 1; i <= ns; i++) for (j = 1; j <= np; j++) {
		t = 0.001 * S[i] * S[i] * (1 - 0.3 * log(P[j]) / log(2) / 5);
		printf "DATA %.10g %.10g %.10g\n", t, t * 1.002, t * 0.998;
	}
}' > "$T/falsedep.txt"
cat > "$T/deps2.cfg" <<'CFG'
parameters = ["size", "p"];
functions = ( { name = "calc"; deps = (["size"]); } );
CFG
run "$PS" validate --deps "$T/deps2.cfg" "$T/falsedep.txt"
is "$rc" 0 "a false dependency alone does not block"
like "$out" "warning  main->calc [time] false-dependency: uses p, cause speedup" "false dependency reported with its cause"
run "$PS" validate --strict --deps "$T/deps2.cfg" "$T/falsedep.txt"
is "$rc" 3 "--strict makes it blocking"
# the contention data again, at a significance level no test can meet: noise
run "$PS" validate --alpha 1e-300 --deps "$T/deps.cfg" "$T/contention.txt"
like "$out" "false-dependency: uses ranks_per_node, cause noise" "growth that is not significant is noise"
is "$rc" 0 "and does not block"

# --- input errors (exit 2, one line) ---
run "$PS" validate "$T/nonexistent.txt"
is "$rc" 2 "missing input: exit 2"
like "$err" "error: cannot read '$T/nonexistent.txt'" "missing input named"
printf 'PARAMETER p\nPOINTS ( 1 ) ( 2 )\nREGION r\nMETRIC time\nDATA 1 1\nDATA x 2\n' > "$T/bad.txt"
run "$PS" validate "$T/bad.txt"
is "$rc" 2 "bad text input: exit 2"
like "$err" "$T/bad.txt:6:" "bad text input names file and line"
is "$(printf '%s\n' "$err" | wc -l)" 1 "one error line"
printf 'parameters = ["size"];\nfunctions = ( { name = "k"; deps = (["nope"]); } );\n' > "$T/bad.cfg"
run "$PS" validate --deps "$T/bad.cfg" "$DATA/one_parameter_1.txt"
is "$rc" 2 "bad dependency file: exit 2"
like "$err" "$T/bad.cfg:" "bad dependency file named with its line"
run "$PS" validate --metric nosuch "$DATA/one_parameter_1.txt"
is "$rc" 2 "unknown metric: exit 2"
like "$err" "no metric 'nosuch'" "unknown metric named"
run "$PS" validate --bogus "$DATA/one_parameter_1.txt"
is "$rc" 2 "unknown option: exit 2"
like "$err" "usage: perfsweep validate" "unknown option prints usage"
like "$err" "error: unknown option '--bogus'" "unknown option named"
run "$PS" validate "$DATA/one_parameter_1.txt" --html
is "$rc" 2 "option without its value: exit 2"
like "$err" "error: option '--html' needs a value" "option without its value named"
run "$PS" validate
is "$rc" 2 "no input: exit 2"
run "$PS" validate --alpha 2 "$DATA/one_parameter_1.txt"
is "$rc" 2 "bad --alpha: exit 2"

done_testing
