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

# A file that ends in a bare word, with no newline: the check for integer
# literals too wide for libconfig once read past the end of the text there
# (a heap over-read the sanitizer build of this suite aborts on).
for tail in 'abc' 'repetitions = 2; ab-c_' 'x*'; do
	printf 'name = "t";\n%s\n%s\n%s' "$A" "$P" "$tail" > "$T/eof.cfg"
	out=$("$PS" run "$T/eof.cfg" 2>&1); rc=$?
	is "$rc" 2 "a file ending in '$tail' without a newline: exit 2"
	like "$out" "$T/eof.cfg:4: " "... names its last line"
	is "$(echo "$out" | wc -l)" 1 "... in one line"
done
done_testing
