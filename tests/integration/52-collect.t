#!/usr/bin/env bash
# perfsweep collect: a wrong regex fixed after the campaign ran fills in the
# measurements without running anything again (the app counts its
# executions); what changed is reported per region/metric (text and JSON);
# a collector that matched nothing makes `run` and `collect` exit 1 naming
# it and the count; ^ and $ match at line starts and ends (REG_NEWLINE);
# bad input gets one clear line.
. "$(dirname "$0")/../lib/tap.sh"

# The app appends a line to $T/count per execution and prints lines where
# the anchors matter: "note: setup: 99 s!" must not be read as the setup
# time, "result: 2n" sits in the middle of the output.
cat > "$T/app.sh" <<'SH'
#!/bin/sh
echo run >> "$COUNT"
printf 'note: setup: 99 s!\nsetup: %s s\nresult: %s\nbye\n' "$1" "$(($1 * 2))"
SH
chmod +x "$T/app.sh"
cfg() {  # cfg PATTERN [REGION METRIC]: the campaign with that second pattern (default res/v)
	cat > "$T/c.cfg" <<CFG
name = "c";
app = { command = [ "$T/app.sh", "{n}" ]; env = [ "COUNT=$T/count" ]; };
parameters = ( { name = "n"; values = [ 3, 4, 5, 6 ]; } );
repetitions = 1;
collect = { wall = false; regex = (
  { region = "setup"; pattern = "^setup: ([0-9]+) s\$"; },
  { region = "${2:-res}"; metric = "${3:-v}"; pattern = "$1"; } ); };
CFG
}
execs() { wc -l < "$T/count" | tr -d ' '; }
values() {  # values REGION METRIC: "n=value" of every run, sorted by n
	"$PS" export "$T/c.campaign" --format csv | awk -F, -v r="\"$1\"" -v m="$2" '$7 == r && $8 == m { print $3 "=" $9 }' | sort | tr '\n' ' '
}

# 1. a typo in the pattern: every run is done, the collector matched nothing
cfg 'reslt: ([0-9]+)'
"$PS" run "$T/c.cfg" > "$T/out" 2> "$T/err"; is $? 1 "run exits 1 when a collector matched nothing"
like "$(cat "$T/out")" "collector regex res/v matched nothing in 4 of 4 done runs" "its summary names the collector and the count"
like "$(cat "$T/err")" "perfsweep collect $T/c.cfg --dir" "and says how to fix it without running again"
is "$(execs)" 4 "four executions"
is "$(values setup time)" "3=3 4=4 5=5 6=6 " "^setup: ... s\$ reads the line that is the setup time, not the note"
is "$(values res v)" "" "no value is invented for the broken pattern"

# 2. the config fixed: run refuses to mix collectors, collect fills in
cfg '^result: ([0-9]+)$'
"$PS" run "$T/c.cfg" > /dev/null 2> "$T/err"; is $? 2 "run refuses a changed collect section"
like "$(cat "$T/err")" "perfsweep collect" "and names the fix (collect)"
is "$(wc -l < "$T/err")" 1 "in one line"
"$PS" collect "$T/c.cfg" > "$T/out" 2> "$T/err"; is $? 0 "collect with the fixed config"
like "$(cat "$T/out")" "campaign 'c': 4 done runs re-collected, none run again" "collect says what it did"
like "$(cat "$T/out")" "res/v: 4 added, 0 changed, 0 removed, 0 unchanged" "the new values are reported added"
like "$(cat "$T/out")" "1 region/metric unchanged in every run" "setup/time did not change"
is "$(cat "$T/err")" "" "nothing on stderr"
is "$(execs)" 4 "nothing ran again"
is "$(values res v)" "3=6 4=8 5=10 6=12 " "the measurements are filled in (2n)"
"$PS" run "$T/c.cfg" > "$T/out" 2>&1; is $? 0 "run accepts the re-collected campaign and exits 0"
is "$(execs)" 4 "and runs nothing: every run is done"
"$PS" status "$T/c.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{collection_errors}')" 0 "no collection error is left"

# 3. collect DIR with the stored config: nothing changes; the JSON object
"$PS" collect "$T/c.campaign" --json > "$T/c.json"; is $? 0 "collect DIR --json"
is "$(json "$T/c.json" 'join ",", sort keys %$j')" "campaign,collectors,dir,metrics,runs,runs_without_files,unmatched" "its keys"
is "$(json "$T/c.json" '$j->{runs} . " " . $j->{collectors}{changed} . " " . $j->{collectors}{config_stored}')" "4 0 0" \
	"4 runs, the stored collectors, the config left as it was"
is "$(json "$T/c.json" 'join ";", map { "$_->{region}/$_->{metric}:$_->{collector}:$_->{added},$_->{changed},$_->{removed},$_->{unchanged}" } @{$j->{metrics}}')" \
	"res/v:regex:0,0,0,4;setup/time:regex:0,0,0,4" "every region/metric unchanged in every run"
is "$(json "$T/c.json" 'scalar @{$j->{unmatched}}')" 0 "no collector unmatched"

# 4. a changed pattern changes some values: first digit only (6 8 10 12 -> 6 8 1 1)
cfg '^result: ([0-9])'
"$PS" collect "$T/c.cfg" --dir "$T/c.campaign" --json > "$T/c.json"; is $? 0 "collect CONFIG --dir DIR"
is "$(json "$T/c.json" 'join ",", map { "$_->{added},$_->{changed},$_->{removed},$_->{unchanged}" } grep { $_->{region} eq "res" } @{$j->{metrics}}')" \
	"0,2,0,2" "two runs changed, two unchanged"
is "$(values res v)" "3=6 4=8 5=1 6=1 " "the stored values follow the new pattern"

# 5. a removed pattern and one that matches nothing: reported, exit 1
cfg '^absent: ([0-9]+)' gone time
"$PS" collect "$T/c.cfg" > "$T/out" 2>&1; is $? 1 "collect exits 1 when a collector matched nothing"
like "$(cat "$T/out")" "res/v: 0 added, 0 changed, 4 removed, 0 unchanged" "removed values are reported"
like "$(cat "$T/out")" "collector regex gone/time matched nothing in 4 of 4 runs" "the unmatched collector and its count"
is "$(values res v)" "" "and gone from the store"
is "$(execs)" 4 "still nothing ran again"

# 6. bad input: one line, exit 2
bad() {  # bad LABEL EXPECTED ARGS...
	local label=$1 want=$2; shift 2
	out=$("$PS" collect "$@" 2>&1); rc=$?
	is "$rc" 2 "$label: exit 2"
	like "$out" "$want" "$label: says what is wrong"
	is "$(echo "$out" | wc -l)" 1 "$label: one line"
}
mkdir "$T/empty"
bad "a missing directory" "cannot read '$T/nope': No such file or directory; give a campaign DIR or a CONFIG" "$T/nope"
bad "not a campaign" "'$T/empty' is not a campaign directory" "$T/empty"
ok $([ ! -e "$T/empty/run.lock" ]; echo $?) "not a campaign: left untouched"
printf 'name = "c";\napp = { command = [ "x" ] }\nparameters = ;\n' > "$T/bad.cfg"
bad "a config syntax error" "$T/bad.cfg:3: syntax error" "$T/bad.cfg" --dir "$T/c.campaign"
sed -e 's/"n"; values = \[ 3, 4, 5, 6 \]/"n"; values = [ 3, 4, 5, 7 ]/' "$T/c.cfg" > "$T/other.cfg"
bad "a changed parameter" "$T/other.cfg:3: 'parameters[0].values[3]' differs from the config stored in" "$T/other.cfg" --dir "$T/c.campaign"
bad "a config beside no campaign" "cannot read campaign directory '$T/empty/x.campaign'" "$T/c.cfg" --dir "$T/empty/x.campaign"
out=$("$PS" collect "$T/c.campaign" --dir "$T/c.campaign" 2>&1); is $? 2 "DIR with --dir: a usage error"
like "$out" "with --dir give a CONFIG" "saying what to give"
is "$(execs)" 4 "no bad input ran anything"
done_testing
