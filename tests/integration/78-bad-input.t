#!/usr/bin/env bash
# Bad input that used to get through (issue 12): control characters and
# invalid UTF-8 in config strings, NUL bytes, a directory as config, rank
# counts, unbounded runs, huge synthetic topologies, a file at runs/,
# output errors, CSV quoting, foreign SQLite files, unclear messages.
. "$(dirname "$0")/../lib/tap.sh"

check() {  # check LABEL LINE EXPECTED-TEXT CONFIG-TEXT: `plan` refuses it, FILE:LINE, one line
	local label=$1 line=$2 want=$3
	printf '%s\n' "$4" > "$T/bad.cfg"
	out=$("$PS" plan "$T/bad.cfg" 2>&1); rc=$?
	is "$rc" 2 "$label: exit 2"
	like "$out" "$T/bad.cfg:$line: " "$label: names file and line $line"
	like "$out" "$want" "$label: says what is wrong"
	is "$(printf '%s\n' "$out" | wc -l)" 1 "$label: one line"
}
A='app = { command = [ "/bin/true", "{n}" ]; };'
P='parameters = ( { name = "n"; values = [ 1, 2 ]; } );'

# control characters in every string that is not an argument or env value
for c in '\n' '\r' '\t' '\x1b' '\x7f' '\x01'; do
	check "name with $c" 1 "'name' contains a control character" "name = \"a${c}b\";
$A
$P"
	for key in partition account qos; do
		check "$key with $c" 4 "'$key' contains a control character" "name = \"t\";
$A
$P
backend = { type = \"slurm\"; $key = \"x${c}touch /tmp/x\"; };"
	done
	check "extra with $c" 4 "'extra' contains a control character" "name = \"t\";
$A
$P
backend = { type = \"slurm\"; extra = [ \"--constraint=x${c}y\" ]; };"
	check "workdir with $c" 2 "'workdir' contains a control character" "name = \"t\";
app = { command = [ \"/bin/true\" ]; workdir = \"w${c}d\"; };
$P"
	check "parameter name with $c" 3 "contains a control character" "name = \"t\";
$A
parameters = ( { name = \"n${c}x\"; values = [ 1 ]; } );"
done
printf 'name = "t";\napp = { command = [ "/bin/printf", "a\\nb\\t%%s", "{n}" ]; env = [ "X=1\\n2" ]; };\n%s\n' "$P" > "$T/args.cfg"
"$PS" plan "$T/args.cfg" > /dev/null 2>&1
is $? 0 "control characters stay allowed in arguments and environment values"

# invalid UTF-8
printf 'name = "a\xffb";\n%s\n%s\n' "$A" "$P" > "$T/u.cfg"
out=$("$PS" plan "$T/u.cfg" 2>&1); rc=$?
is "$rc" 2 "invalid UTF-8 in the name: exit 2"
like "$out" "$T/u.cfg:1: 'name' is not valid UTF-8" "named with FILE:LINE"
printf 'name = "t";\napp = { command = [ "/bin/true", "\xc0\xaf" ]; };\n%s\n' "$P" > "$T/u2.cfg"
like "$("$PS" plan "$T/u2.cfg" 2>&1)" "$T/u2.cfg:2: 'command' is not valid UTF-8" "an overlong sequence in an argument too"

# NUL byte, a directory as config
printf 'name = "t";\n%s\n%s\nrepetitions = 2;\0\nrepetitions = 3;\n' "$A" "$P" > "$T/nul.cfg"
like "$("$PS" plan "$T/nul.cfg" 2>&1)" "$T/nul.cfg:4: the file contains a NUL byte" "a NUL byte is reported at its line"
mkdir -p "$T/cfgdir"
like "$("$PS" plan "$T/cfgdir" 2>&1)" "it is a directory" "a directory given as config says so"

# rank counts, huge integers, long placeholders, runs
check "rank count 0 after the first" 3 "rank counts of 'p' must be integers from 1" "name = \"t\";
$A
parameters = ( { name = \"n\"; values = [ 1 ]; }, { name = \"p\"; values = [ 2, 0 ]; role = \"ranks\"; } );"
check "negative rank count" 3 "not -4" "name = \"t\";
$A
parameters = ( { name = \"p\"; values = [ 2, -4 ]; role = \"ranks\"; }, { name = \"n\"; values = [ 1 ]; } );"
check "huge integers" 3 "too large" "name = \"t\";
$A
parameters = ( { name = \"n\"; values = [ 9223372036854775807L, 9223372036854775806L ]; } );"
long=$(printf 'p%.0s' $(seq 200))
printf 'name = "t";\napp = { command = [ "/bin/true", "{%s}" ]; };\n%s\n' "$long" "$P" > "$T/long.cfg"
like "$("$PS" plan "$T/long.cfg" 2>&1)" "{$long}" "a 200-character placeholder is named in full"
check "two billion repetitions" 4 "more than 10000000" "name = \"t\";
$A
$P
repetitions = 2000000000;"
check "poll.min too small" 4 "backend.poll.min must be from 0.05" "name = \"t\";
$A
$P
backend = { type = \"slurm\"; poll = { min = 0.001; }; };"
check "poll.factor" 4 "backend.poll.factor must be from 1 to 10" "name = \"t\";
$A
$P
backend = { type = \"slurm\"; poll = { factor = 0.5; }; };"
check "poll.safety" 4 "backend.poll.safety must be from 1 to 3600 seconds" "name = \"t\";
$A
$P
backend = { type = \"slurm\"; poll = { safety = 0.5; }; };"
check "poll.notes" 4 "backend.poll.notes must be from 0.05 to 60 seconds" "name = \"t\";
$A
$P
backend = { type = \"slurm\"; poll = { notes = 0; }; };"
check "arrays not a boolean" 4 "'arrays' must be true or false" "name = \"t\";
$A
$P
backend = { type = \"slurm\"; arrays = 1; };"

check "NaN cost model" 4 "cost model gives -nan seconds" "name = \"t\";
$A
$P
cost_model = \"0/0 * n\";
budget = { core_hours = 10.0; };"
V='values = ( 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 );'
check "10^9 points" 3 "1000000000 points" "name = \"t\";
$A
parameters = ( { name = \"n\"; $V }, { name = \"b\"; $V }, { name = \"c\"; $V }, { name = \"d\"; $V }, { name = \"e\"; $V }, { name = \"f\"; $V }, { name = \"g\"; $V }, { name = \"h\"; $V }, { name = \"i\"; $V } );"

# synthetic topologies are bounded
out=$(timeout 20 "$PS" topo --topology "pack:1000 core:1000 pu:10" 2>&1); rc=$?
is "$rc" 2 "a synthetic topology of 10^7 PUs is refused (not a hang)"
like "$out" "more than 65536 processing units" "saying why"

# a regular file at runs/
printf 'name = "f";\n%s\n%s\nrepetitions = 1;\n' "$A" "$P" > "$T/f.cfg"
mkdir -p "$T/fc"; : > "$T/fc/runs"
out=$("$PS" run "$T/f.cfg" --dir "$T/fc" 2>&1); rc=$?
is "$rc" 2 "a file at runs/ is refused"
like "$out" "$T/fc/runs" "naming the path"
like "$out" "Not a directory" "as not a directory"

# output errors are errors
"$PS" run "$T/f.cfg" --quiet > /dev/null 2>&1
for cmd in "status $T/f.campaign --json" "plan $T/f.cfg --json" "export $T/f.campaign --format csv" "status $T/f.campaign"; do
	out=$("$PS" $cmd 2>&1 > /dev/full); rc=$?
	is "$rc" 2 "$cmd > /dev/full: exit 2"
	like "$out" "No space left on device" "$cmd > /dev/full: says why"
done
out=$("$PS" export "$T/f.campaign" --format csv --out /nonexistent/x.csv 2>&1)
like "$out" "No such file or directory" "export to a missing directory says so"

# CSV quoting (RFC 4180)
cat > "$T/csv.cfg" <<CFG
name = "csv";
app = { command = [ "/bin/echo", "t: 1.5" ]; };
parameters = ( { name = "n"; values = [ 1 ]; } );
repetitions = 1;
collect = { wall = false; regex = ( { region = "r,x"; metric = "time,excl"; pattern = "t: ([0-9.]+)"; } ); };
CFG
"$PS" run "$T/csv.cfg" --quiet > /dev/null 2>&1
"$PS" export "$T/csv.campaign" --format csv > "$T/m.csv"
row=$(sed -n 2p "$T/m.csv")
like "$row" ',"r,x","time,excl",1.5' "a metric with a comma is quoted"
nf=$(head -1 "$T/m.csv" | perl -MText::ParseWords -ne 'print scalar(() = parse_line(",", 0, $_))')
is "$(perl -MText::ParseWords -ne 'print scalar(() = parse_line(",", 0, $_)), "\n"' "$T/m.csv" | sort -u | tr '\n' ' ')" "$nf " "every row has the header's $nf fields"

# a foreign SQLite file is left as it was
mkdir -p "$T/foreign"
sqlite3 "$T/foreign/campaign.db" "CREATE TABLE t(x); INSERT INTO t VALUES(1);"
before=$(sqlite3 "$T/foreign/campaign.db" "PRAGMA journal_mode;")
"$PS" run "$T/f.cfg" --dir "$T/foreign" > /dev/null 2>&1
is $? 2 "run refuses a foreign SQLite file"
is "$(sqlite3 "$T/foreign/campaign.db" "PRAGMA journal_mode;")" "$before" "and leaves its journal mode ($before)"
ok $([ ! -e "$T/foreign/campaign.db-wal" ]; echo $?) "no WAL file appears beside it"

# empty directories given on the command line
out=$("$PS" import --text "$T/f.cfg" --out "" 2>&1); rc=$?
is "$rc" 2 "import --out '' is refused"
like "$out" "empty" "as empty"
done_testing
