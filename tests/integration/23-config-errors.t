#!/usr/bin/env bash
# Config errors on the command line: exit 2, FILE:LINE, nothing written.
. "$(dirname "$0")/../lib/tap.sh"

check() {  # check LABEL LINE EXPECTED-TEXT CONFIG-TEXT
	local label=$1 line=$2 want=$3
	printf '%s\n' "$4" > "$T/bad.cfg"
	out=$("$PS" run "$T/bad.cfg" 2>&1); rc=$?
	is "$rc" 2 "$label: exit 2"
	like "$out" "$T/bad.cfg:$line: " "$label: names file and line $line"
	like "$out" "$want" "$label: says what is wrong"
	ok $([ ! -e "$T/bad.campaign" ] && [ ! -e "$T/t.campaign" ]; echo $?) "$label: writes nothing"
	is "$(echo "$out" | wc -l)" 1 "$label: one line"
}

A='app = { command = [ "/bin/true", "{n}" ]; };'
P='parameters = ( { name = "n"; values = [ 1, 2 ]; } );'
check "unknown key" 4 "unknown key 'colect'" "name = \"t\";
$A
$P
colect = { wall = true; };"
check "wrong type" 2 "must be a group" "name = \"t\";
app = 5;
$P"
check "empty value list" 3 "empty value list for parameter 'n'" "name = \"t\";
$A
parameters = ( { name = \"n\"; values = [ ]; } );"
check "duplicate parameter" 4 "duplicate parameter 'n'" "name = \"t\";
$A
parameters = ( { name = \"n\"; values = [ 1 ]; },
  { name = \"n\"; values = [ 2 ]; } );"
check "undefined placeholder" 2 "placeholder {size} names no parameter" "name = \"t\";
app = { command = [ \"/bin/true\", \"-s\", \"{size}\" ]; };
$P"
check "non-positive repetitions" 4 "repetitions must be at least 1" "name = \"t\";
$A
$P
repetitions = -2;"
check "CPU share out of range" 4 "min_cpu_share must be between 0 and 1, not 1.5" "name = \"t\";
$A
$P
analysis = { min_cpu_share = 1.5; };"
check "CPU share not a number" 4 "'min_cpu_share' must be a number, not a string" "name = \"t\";
$A
$P
analysis = { min_cpu_share = \"high\"; };"
check "region share out of range" 4 "min_share must be at least 0 and below 1, not 1" "name = \"t\";
$A
$P
analysis = { min_share = 1; };"
done_testing
