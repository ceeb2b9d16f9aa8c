#!/usr/bin/env bash
# Inputs that try to fool the collectors and the files perfsweep reads and
# writes: NUL bytes in output, runaway patterns (match limit, CPU limit,
# SIGTERM during a collection), FIFOs and symlinks in the run directory,
# devices and directories as dependency files, read-only and corrupt
# stores, a failed export over an existing file, DESTDIR with a space, and
# the smaller ones (huge integers, partitions, --rounds, control characters
# in names, reference files, messages).  Durations are never asserted,
# except as generous bounds against a hang (a watchdog).
. "$(dirname "$0")/../lib/tap.sh"

# ended PID SECONDS: 0 when PID ended within SECONDS (it is killed otherwise)
ended() {
	local n=$(($2 * 10))
	while kill -0 "$1" 2>/dev/null && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	if kill -0 "$1" 2>/dev/null; then kill -9 "$1" 2>/dev/null; wait "$1" 2>/dev/null; return 1; fi
	return 0
}
H='parameters = ( { name = "n"; values = [ 1 ]; } );
repetitions = 1;
max_attempts = 1;'
collect_error() { json /dev/stdin '$j->{problems}[0]{collect_error}' < <("$PS" status "$1" --json); }
pending() { sqlite3 "$1/campaign.db" "SELECT count(*) FROM meta WHERE key = 'collect_pending'"; }

# 1. A NUL byte does not end the output.
cat > "$T/nul.cfg" <<CFG
name = "nul";
app = { command = [ "/usr/bin/printf", "warn\\\\000ing\\\\nt: 4.5\\\\n" ]; };
$H
collect = { wall = false; regex = ( { region = "r"; metric = "t"; pattern = "^t: ([0-9.]+)"; } ); };
CFG
"$PS" run "$T/nul.cfg" --quiet > "$T/out" 2>&1; is $? 0 "a value after a NUL byte is collected"
is "$("$PS" export "$T/nul.campaign" --format csv | grep '"r",t' | cut -d, -f9)" "4.5" "and it is 4.5"

# 2. Runaway patterns: the match limit stops one at once (with the default
# limits), the CPU limit another; each gets a collection error naming it.
cat > "$T/gen.sh" <<'SH'
#!/bin/sh
perl -e 'print(("a" x 100) . "bx\n") for 1..$ARGV[0]' "$1"
[ -n "$2" ] && touch "$2"
exit 0
SH
chmod +x "$T/gen.sh"
runaway() { # runaway NAME LINES-OF-OUTPUT COLLECT-SETTINGS PATTERNS...
	local name=$1 lines=$2 settings=$3; shift 3
	{ printf 'name = "%s";\napp = { command = [ "%s", %s ]; };\n%s\ncollect = { wall = false; %s\n  regex = (' \
		"$name" "$T/gen.sh" "$lines" "$H" "$settings"
	  local sep="" m=t
	  for p in "$@"; do printf '%s { region = "r"; metric = "%s"; pattern = "%s"; }' "$sep" $m "$p"; sep=,; m=u; done
	  printf ' ); };\n'; } > "$T/$name.cfg"
}
runaway rr '"600000"' "" '((a|a)*)*b([0-9])'
"$PS" run "$T/rr.cfg" --quiet > "$T/out" 2>&1 &
pid=$!
ended $pid 20; ok $? "run with a runaway pattern ends at the match limit (watchdog 20 s)"
wait $pid; is $? 1 "exit 1: the collector matched nothing"
like "$(collect_error "$T/rr.campaign")" "pattern for r/t stopped at line 1 of stdout: it backtracks too much there" \
	"the match limit names the pattern and the line"
like "$(cat "$T/out")" "collector regex r/t matched nothing in 1 of 1 done runs" "the summary names the collector"
runaway rc '"1000"' "cpu_limit = 2;" '(a|a){1,16}b[0-9]'
"$PS" run "$T/rc.cfg" --quiet > "$T/out" 2>&1 &
pid=$!
ended $pid 32; ok $? "run with a slow pattern ends (watchdog: the CPU limit + 30 s)"
wait $pid; is $? 1 "exit 1"
like "$(collect_error "$T/rc.campaign")" "pattern for r/t stopped in stdout after 2 s of CPU time (collect.cpu_limit)" \
	"the CPU limit names the pattern"

# SIGTERM during a collection: run stops within a bound, the run is left pending.
runaway rt "\"600000\", \"$T/app-done\"" "" '((a|a)*)*b([0-9])' '(a|a){1,16}b[0-9]'
"$PS" run "$T/rt.cfg" --quiet > "$T/out" 2>&1 &
pid=$!
n=600; while [ ! -e "$T/app-done" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
ok $([ -e "$T/app-done" ]; echo $?) "the application finished"
kill -TERM $pid
ended $pid 20; ok $? "SIGTERM ends run during a collection (watchdog 20 s)"
wait $pid; is $? 1 "exit 1"
like "$(cat "$T/out")" "interrupted: run the same command again to resume" "it says how to resume"
is "$("$PS" status "$T/rt.campaign" --json | json /dev/stdin '$j->{pending} . " " . $j->{done}')" "1 0" \
	"the run is pending again, not done with half its values"

# 3. A FIFO named as a collector file: neither run nor collect hangs.
cat > "$T/fifo.cfg" <<CFG
name = "fifo";
app = { command = [ "/bin/sh", "-c", "mkfifo out.txt; echo t: 1" ]; };
$H
collect = { wall = false; regex = ( { region = "r"; metric = "t"; pattern = "^t: ([0-9]+)"; file = "out.txt"; } ); };
CFG
"$PS" run "$T/fifo.cfg" --quiet > /dev/null 2>&1 &
pid=$!
ended $pid 60; ok $? "run with a FIFO as the collector file ends (watchdog 60 s)"
like "$(collect_error "$T/fifo.campaign")" "pattern for r/t cannot read 'out.txt' in the run directory: it is a FIFO, not a regular file" \
	"the collection error names the FIFO"
"$PS" collect "$T/fifo.campaign" > /dev/null 2>&1 &
pid=$!
ended $pid 60; ok $? "collect ends too (watchdog 60 s)"
is "$(pending "$T/fifo.campaign")" 0 "and leaves no collect_pending"

# 4. Symlinks in the run directory are not followed; dependency files are regular files.
cat > "$T/link.cfg" <<CFG
name = "link";
app = { command = [ "/bin/sh", "-c", "ln -s /etc/passwd link.txt; ln -s /etc sub; echo t: 1" ]; };
$H
collect = { wall = false; regex = (
  { region = "l"; metric = "uid"; pattern = "^root:[^:]*:([0-9]+)"; file = "link.txt"; },
  { region = "s"; metric = "uid"; pattern = "^root:[^:]*:([0-9]+)"; file = "sub/passwd"; } ); };
CFG
"$PS" run "$T/link.cfg" --quiet > /dev/null 2>&1
is "$("$PS" export "$T/link.campaign" --format csv | grep -c uid)" 0 "nothing is read through a symlink"
err=$(collect_error "$T/link.campaign")
like "$err" "cannot read 'link.txt' in the run directory: it is a symbolic link" "a symlinked file is named"
like "$err" "cannot read 'sub/passwd' in the run directory: it goes through a symbolic link" "a symlinked directory too"
for dep in /dev/zero "$T"; do
	printf 'name = "d";\napp = { command = [ "/bin/true" ]; };\n%s\ndependencies = "%s";\n' "$H" "$dep" > "$T/d.cfg"
	"$PS" plan "$T/d.cfg" > "$T/out" 2>&1 &
	pid=$!
	ended $pid 20; ok $? "plan with dependencies = $dep ends (watchdog 20 s)"
	wait $pid; is $? 2 "exit 2"
	is "$(wc -l < "$T/out")" 1 "one line"
done
like "$(cat "$T/out")" "cannot read dependency file '$T': it is a directory" "a directory is called one"

# 5. Read-only media and corrupt stores.
M=$T/ro
mkdir -p "$M" "$T/ro-src"
cp "$T/nul.campaign/campaign.db" "$T/ro-src/"       # no -shm beside it: WAL needs one
if mount --bind "$T/ro-src" "$M" 2>/dev/null && mount -o remount,ro,bind "$M" 2>/dev/null; then
	trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT
	ok $(! touch "$M/x" 2>/dev/null; echo $?) "the store is on a read-only bind mount"
	"$PS" status "$M" > "$T/out" 2>&1; is $? 0 "status reads it"
	is "$("$PS" export "$M" --format csv | grep -c '"r",t')" 1 "export reads it"
	"$PS" model "$M" > /dev/null 2>&1; is $? 0 "model reads it"
	"$PS" validate "$M" > "$T/out" 2>&1
	ok $(! grep -q error: "$T/out"; echo $?) "validate reads it"
	"$PS" export "$M" --format reference --out "$T/ref-ro.json"
	"$PS" compare "$T/ref-ro.json" "$M" > "$T/out" 2>&1
	ok $(! grep -q error: "$T/out"; echo $?) "compare reads it"
	umount "$M"
else
	echo "ok $((_n + 1)) # skip no read-only bind mount here"; _n=$((_n + 1))
fi
mkdir -p "$T/trunc" "$T/junk"
sz=$(stat -c %s "$T/nul.campaign/campaign.db")
head -c $((sz / 2)) "$T/nul.campaign/campaign.db" > "$T/trunc/campaign.db"
echo "not a database at all" > "$T/junk/campaign.db"
like "$("$PS" status "$T/trunc" 2>&1)" "the store is corrupt" "a truncated store is called corrupt"
like "$("$PS" status "$T/junk" 2>&1)" "not a perfsweep campaign store (not an SQLite database)" "a text file is no store"

# 6. A regex that never matches, run, then collect (UBSan: qsort(NULL, 0)).
sed -e 's/name = "nul"/name = "never"/' -e 's/\^t: /^never: /' "$T/nul.cfg" > "$T/never.cfg"
"$PS" run "$T/never.cfg" --quiet > /dev/null 2>&1
"$PS" collect "$T/never.campaign" > /dev/null 2>&1; is $? 1 "collect of a campaign with no value at all: exit 1, no crash"
is "$(pending "$T/never.campaign")" 0 "collect_pending is cleared"
"$PS" run "$T/never.cfg" --quiet > /dev/null 2>&1; ok $([ $? -le 1 ]; echo $?) "and a later run is not refused"

# 8. A failed export --out leaves the old file.
cp -r "$T/nul.campaign" "$T/broken.campaign"
sqlite3 "$T/broken.campaign/campaign.db" "DROP TABLE measurements"
echo precious > "$T/keep.csv"
"$PS" export "$T/broken.campaign" --format csv --out "$T/keep.csv" 2> /dev/null; is $? 2 "an export that fails exits 2"
is "$(cat "$T/keep.csv")" "precious" "and leaves --out FILE as it was"
is "$(ls -A "$T" | grep -c '^\.keep\.csv\.')" 0 "no temporary file is left"
"$PS" export "$T/nul.campaign" --format csv --out "$T/keep.csv"; is "$(grep -c '"r",t' "$T/keep.csv")" 1 "a good export replaces it"

# 9. make install and uninstall with a space in DESTDIR.
D="$T/stage dir"
make -s -C "$ROOT" install DESTDIR="$D" PREFIX=/opt/p BIN="$BIN" \
	-o "$BIN/perfsweep" -o "$BIN/perfsweep-bind" -o "$BIN/demo-app" > "$T/install.log" 2>&1
is $? 0 "make install DESTDIR='stage dir'"
ok $([ -x "$D/opt/p/bin/perfsweep" ] && [ -f "$D/opt/p/share/man/man1/perfsweep.1" ]; echo $?) "installs into it"
ok $([ ! -e "$T/stage" ] && [ ! -e "$ROOT/dir" ]; echo $?) "and nowhere else"
make -s -C "$ROOT" uninstall DESTDIR="$D" PREFIX=/opt/p > /dev/null 2>&1
is "$(find "$D" -type f | wc -l)" 0 "make uninstall removes every file"

# 10. The smaller ones.
bad_plan() { # bad_plan LABEL EXPECTED CONFIG-TEXT
	printf '%s\n' "$3" > "$T/bad.cfg"
	out=$("$PS" plan "$T/bad.cfg" 2>&1); rc=$?
	is "$rc" 2 "$1: exit 2"
	like "$out" "$2" "$1: says why"
	is "$(echo "$out" | wc -l)" 1 "$1: one line"
}
B='name = "b";
app = { command = [ "/bin/true" ]; };'
bad_plan "2^53+1" "bad.cfg:3: the integer 9007199254740993 does not fit in 32 bits" \
	"$B
parameters = ( { name = \"n\"; values = [ 1, 9007199254740993 ]; } );"
bad_plan "2^53+1 as a 64-bit integer" "bad.cfg:3: value 2 of 'n' is too large" \
	"$B
parameters = ( { name = \"n\"; values = [ 1L, 9007199254740993L ]; } );"
bad_plan "time_limit = 99999999999" "bad.cfg:6: the integer 99999999999 does not fit in 32 bits" \
	"$B
$H
backend = { type = \"slurm\"; time_limit = 99999999999; };"
bad_plan "partition = \",\"" "bad.cfg:6: backend.partition must be partition names separated by commas" \
	"$B
$H
backend = { type = \"slurm\"; partition = \",\"; };"
out=$("$PS" run "$T/nul.cfg" --rounds 3 2>&1); rc=$?
is "$rc" 2 "--rounds without --until: exit 2"
is "$out" "error: --rounds counts the rounds of --until publishable; give both" "in one line"
like "$("$PS" run -x 2>&1)" "unknown option '-x'" "run -x is an unknown option"

# Control characters in names from input files never reach the terminal raw.
printf 'PARAMETER n\n\nPOINTS ( 1 ) ( 2 ) ( 3 ) ( 4 ) ( 5 )\n\nREGION reg\033]0;x\007\033[31mred\nMETRIC time\n' > "$T/esc.txt"
for x in 1 2 3 4 5; do printf 'DATA %s %s.1 %s.0 %s.2\n' $x $x $x $x >> "$T/esc.txt"; done
"$PS" model "$T/esc.txt" > "$T/out" 2>&1
is "$(grep -c $'\033' "$T/out")" 0 "model: no raw ESC"
like "$(cat "$T/out")" 'reg\x1b]0;x\x07\x1b[31mred (time)' "model: the name escaped"
"$PS" import --text "$T/esc.txt" --out "$T/esc.campaign" --quiet
"$PS" export "$T/esc.campaign" --format reference --out "$T/esc-ref.json"
"$PS" compare "$T/esc-ref.json" "$T/esc.campaign" > "$T/out" 2>&1
is "$(grep -c $'\033' "$T/out")" 0 "compare: no raw ESC"
like "$(cat "$T/out")" 'reg\x1b]0;x\x07\x1b[31mred' "compare: the name escaped"
"$PS" validate "$T/esc.txt" > "$T/out" 2>&1
is "$(grep -c $'\033' "$T/out")" 0 "validate: no raw ESC"

# Reference files: empty values, duplicates, and many values.
ref() { printf '{"format": "perfsweep-reference", "version": 1, "parameters": ["n"], "regions": [%s]}' "$1" > "$T/r.json"; }
pt() { printf '{"coordinates": [%s], "values": [%s]}' "$1" "$2"; }
reg() { printf '{"callpath": "%s", "metric": "time", "points": [%s]}' "$1" "$2"; }
ref "$(reg main "$(pt 1 1), $(pt 2 "")")"
like "$("$PS" compare "$T/r.json" "$T/esc-ref.json" 2>&1)" "region 1 ('main') point 2: \"values\" must be a non-empty array" "a point without values is refused"
ref "$(reg main "$(pt 1 1), $(pt 1 2)")"
like "$("$PS" compare "$T/r.json" "$T/esc-ref.json" 2>&1)" "point 2: the same coordinates as an earlier point" "a point given twice is refused"
ref "$(reg main "$(pt 1 1)"), $(reg main "$(pt 2 1)")"
like "$("$PS" compare "$T/r.json" "$T/esc-ref.json" 2>&1)" "region 2: 'main' [time] is given twice" "a region given twice is refused"
ref "$(reg main "$(pt 1 "$(perl -e 'print join(",", (1.5) x 200000)')")")"
out=$("$PS" compare "$T/r.json" "$T/esc-ref.json" 2>&1)
ok $(echo "$out" | grep -q "coordinates"; [ $? = 1 ]; echo $?) "200,000 values are no coordinate problem"

# Messages.
printf 'name = "wd";\napp = { command = [ "/bin/true" ]; workdir = "%s/nowhere"; };\n%s\n' "$T" "$H" > "$T/wd.cfg"
like "$("$PS" run "$T/wd.cfg" --quiet 2>&1)" "wd.cfg:2: app.workdir '$T/nowhere' does not exist" "a missing workdir is named before anything runs"
printf 'name = "gr";\napp = { command = [ "/bin/true" ];\n  env = [ "A=1" ]; };\n%s\n' "$H" > "$T/gr.cfg"
"$PS" run "$T/gr.cfg" --quiet > /dev/null 2>&1
printf 'name = "gr";\napp = { command = [ "/bin/true" ]; };\n%s\n' "$H" > "$T/gr.cfg"
like "$("$PS" run "$T/gr.cfg" 2>&1)" "gr.cfg:2: app.env differs from the campaign" "a removed env names the app group's line"
like "$("$PS" collect "$T/nonexist.cfg" 2>&1)" "cannot read '$T/nonexist.cfg': No such file or directory; give a campaign DIR or a CONFIG" \
	"collect of a missing file says so"
cat > "$T/bud.cfg" <<CFG
name = "bud";
app = { command = [ "/bin/true" ]; };
parameters = ( { name = "n"; values = [ 1 ]; } );
repetitions = 1;
cost_model = "0.001";
budget = { core_hours = 0.1; };
CFG
"$PS" run "$T/bud.cfg" --quiet > /dev/null 2>&1
like "$("$PS" status "$T/bud.campaign")" "planned, budget 0.1
" "status prints the budget as 0.1"
done_testing
