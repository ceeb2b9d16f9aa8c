#!/usr/bin/env bash
# perfsweep plan: pruning is never silent (the default output names the
# pruned parameter, why, and how to keep it); --summary gives the totals and
# each parameter's coverage without a row per point, and they are the
# listing's; --json streams its points and is the same contract (parsed,
# not compared as text), within a bounded memory for a large design.
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
# ---- --summary is the listing counted: a budget that drops points, a
# placement axis and a contention point with a value outside b's list
cat >"$T/cov.cfg" <<'CFG'
name = "cov";
app = { command = [ "app", "{a}", "{b}", "{p}" ]; };
parameters = ( { name = "a"; values = [ 1, 2, 3, 4, 5 ]; },
               { name = "b"; values = [ 0.5, 1.5, 2.5, 3.5, 4.5 ]; },
               { name = "p"; values = [ 1, 2 ]; role = "ranks"; } );
repetitions = 4;
cost_model = "a * b * 60";
budget = { core_hours = 8; };
placement = { ranks_per_node = [ 2 ]; policy = "compact"; };
contention = { point = { p = 1; b = 2.75; }; ranks_per_node = [ 1, 2 ]; repetitions = 2; };
CFG
sum=$("$PS" plan "$T/cov.cfg" --summary 2>&1); is "$?" 0 "--summary of a trimmed, placed plan exits 0"
like "$sum" "budget: dropped" "the budget drops points"
"$PS" plan "$T/cov.cfg" --json >"$T/cov.json"
want=$(json "$T/cov.json" 'my @p = @{$j->{points}}; my ($r, $ch) = (0, 0);
	for (@p) { $r += $_->{repetitions}; $ch += $_->{core_hours} }
	my $s = sprintf "total:          %d points, %d runs, %.4g core-hours\ncoverage:\n", scalar @p, $r, $ch;
	for my $k ("a", "b", "p") {
		my %seen = map { ($_->{params}{$k} => 1) } @p;
		my @v = sort { $a <=> $b } keys %seen;
		$s .= sprintf "  %s: %d of 5 values (%s..%s)\n", $k, scalar @v, $v[0], $v[-1];
	}
	$s =~ s/of 5 values \((1\.\.2)\)/of 2 values ($1)/; $s')
got=$(echo "$sum" | sed -n -e '/^total:/p' -e '/^coverage:/,$p')
is "$got" "$want" "--summary's totals and coverage are those of the listed points"
rows=$("$PS" plan "$T/cov.cfg" --explain | grep -c '^ *[0-9]')
is "$rows" "$(json "$T/cov.json" 'scalar @{$j->{points}}')" "the listing has as many rows as --json points"

# ---- a large design: --json streams 300,000 points from compactly held
# ones, in the address space a tiny plan needs plus 50 MB (the points
# held whole took about 90 MB more), and they are the listing's points
big() {
	cat >"$1" <<CFG
name = "big";
app = { command = [ "app", "{a}", "{b}", "{c}", "{d}", "{e}", "{p}" ]; };
parameters = (
  { name = "a"; values = [ $2 ]; }, { name = "b"; values = [ $2 ]; },
  { name = "c"; values = [ $2 ]; }, { name = "d"; values = [ $2 ]; },
  { name = "e"; values = [ $2 ]; },
  { name = "p"; values = [ 16, 32, 48 ]; role = "ranks"; }
);
repetitions = 3;
cost_model = "1e-3 * a^2 * b / p + c + log2(d) + e";
CFG
}
big "$T/tiny.cfg" "1, 2"
big "$T/big.cfg" "1, 2, 3, 4, 5, 6, 7, 8, 9, 10"
# the address space a tiny plan needs here (libraries and all), in 10 MB steps
floor=20000
while [ $floor -lt 2000000 ] && ! (ulimit -v $floor; "$PS" plan "$T/tiny.cfg" --json >/dev/null 2>&1); do
	floor=$((floor + 10000))
done
if [ $floor -lt 2000000 ]; then
	(ulimit -v $((floor + 50000)); "$PS" plan "$T/big.cfg" --json >"$T/big.json" 2>"$T/big.err")
	is "$?" 0 "--json of 300,000 points within a tiny plan's address space + 50 MB"
else    # a sanitizer build reserves terabytes: no address-space limit applies
	"$PS" plan "$T/big.cfg" --json >"$T/big.json" 2>"$T/big.err"
	ok 0 "# SKIP no tiny plan runs in 2 GB of address space (a sanitizer build?)"
fi
is "$(cat "$T/big.err")" "" "and says nothing on stderr"
"$PS" plan "$T/big.cfg" >"$T/big.txt"
# each point's params, from its line (JSON::PP takes half a minute over 56 MB)
perl -ne 'print join(" ", $1, $2, $3, $4, $5, $6), "\n"
	if /^ *\{"params":\{"a":(\d+),"b":(\d+),"c":(\d+),"d":(\d+),"e":(\d+),"p":(\d+)\}/' \
	"$T/big.json" >"$T/big.json.rows"
awk '$1 ~ /^[0-9]+$/ && NF == 8 { print $1, $2, $3, $4, $5, $6 }' "$T/big.txt" >"$T/big.txt.rows"
is "$(wc -l <"$T/big.json.rows")" 300000 "--json lists all 300,000 points"
ok "$(cmp -s "$T/big.json.rows" "$T/big.txt.rows"; echo $?)" "and they are the listing's points, in its order"
done_testing
