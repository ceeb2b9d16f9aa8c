#!/usr/bin/env bash
# Configs refused at load, with FILE:LINE, that were accepted and then
# measured or crashed: two collectors of one region and metric (averaged
# into one series: a: n and b: 100 modelled as 50 + 0.5 n), a regex named
# like the wall collector's main/time beside wall = true, and a cost_model
# of 60,000 terms (a stack overflow in the expression parser's tree).
. "$(dirname "$0")/../lib/tap.sh"

head='name = "c";
app = { command = [ "/bin/sh", "-c", "echo a: {n}; echo b: 100" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 3, 4 ]; } );
repetitions = 1;'
one_line() {   # one_line WHAT EXIT TEXT: $T/out is one line holding TEXT, and the exit status was EXIT
	is "$rc" "$2" "$1: exit $2"
	is "$(wc -l < "$T/out")" 1 "$1: one line"
	like "$(cat "$T/out")" "$3" "$1: it says where and why"
}

# 1. two patterns of one region and metric
cat > "$T/dup.cfg" <<CFG
$head
collect = { regex = (
  { region = "r"; metric = "t"; pattern = "^a: ([0-9]+)"; },
  { region = "r"; metric = "t"; pattern = "^b: ([0-9]+)"; stream = "stdout"; } ); };
CFG
"$PS" plan "$T/dup.cfg" > "$T/out" 2>&1; rc=$?
one_line "two patterns of r/t" 2 "$T/dup.cfg:7: regex entries 1 and 2 both measure region 'r' metric 't' (line 6)"
"$PS" run "$T/dup.cfg" > "$T/out" 2>&1; rc=$?
one_line "run of it" 2 "regex entries 1 and 2 both measure region 'r' metric 't'"
ok $([ ! -e "$T/c.campaign" ]; echo $?) "nothing was run"
sed -i 's/metric = "t"; pattern = "^b/metric = "u"; pattern = "^b/' "$T/dup.cfg"
"$PS" run "$T/dup.cfg" --quiet > /dev/null 2>&1; is $? 0 "with metrics of their own it runs"
is "$("$PS" export "$T/c.campaign" --format csv | grep -c ',"r",t,')" 4 "four values of r/t"
is "$("$PS" export "$T/c.campaign" --format csv | grep ',"r",u,' | cut -d, -f9 | sort -u)" 100 "and r/u is 100 apart"

# 2. a pattern named like the wall collector's region and metric
cat > "$T/wall.cfg" <<CFG
$head
collect = {
  regex = ( { region = "main"; metric = "time"; pattern = "^a: ([0-9]+)"; } ); };
CFG
"$PS" plan "$T/wall.cfg" > "$T/out" 2>&1; rc=$?
one_line "main/time beside wall = true" 2 "$T/wall.cfg:6: regex entry 1 measures region 'main' metric 'time', which the wall collector measures (collect.wall = true)"
sed -i 's/collect = {/collect = { wall = false;/' "$T/wall.cfg"
"$PS" plan "$T/wall.cfg" > /dev/null 2>&1; is $? 0 "with wall = false it is the only main/time, accepted"

# 3. a cost model of 60,000 terms
{ printf '%s\ncost_model = "' "$head"; for _ in $(seq 60000); do printf 'n + '; done; printf '1";\n'; } > "$T/cost.cfg"
"$PS" plan "$T/cost.cfg" > "$T/out" 2>&1; rc=$?
one_line "a 60,000-term cost_model" 2 "$T/cost.cfg:5: bad cost model \"n + n + n"
like "$(cat "$T/out")" "expression too long: more than 2000 operations in a chain" "it says the expression is too long"
ok $([ "$(wc -c < "$T/out")" -lt 400 ]; echo $?) "in a line of readable length"

done_testing
