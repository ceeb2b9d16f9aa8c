#!/usr/bin/env bash
# A local run's notes (runs/<id>/local.start, local.end) carry the id of
# the store whose run it is, as SLURM jobs do: a store made afresh at the
# same path (campaign.db removed) never collects another store's finished
# runs nor adopts its running ones under its own points.  The old store's
# live runs are left alone, said once, and write nothing over the new
# store's notes.  Each run prints its own parameter, so a value stored
# under the wrong point shows.
. "$(dirname "$0")/../lib/tap.sh"

cfg() {  # cfg NAME VALUES SECONDS
	cat > "$T/$1.cfg" <<CFG
name = "same";
app = { command = [ "/bin/sh", "-c", "echo \$PERFSWEEP_RUN_ID {n} >> '$T/exec.log'; sleep $3; echo 'v: {n}'" ]; };
parameters = ( { name = "n"; values = [ $2 ]; } );
repetitions = 1;
max_attempts = 1;
collect = { wall = false; regex = ( { region = "r"; metric = "v"; pattern = "^v: ([0-9]+)"; } ); };
CFG
}
q() { sqlite3 "$T/D/campaign.db" "$1"; }
stored() { q "SELECT group_concat(v, ' ') FROM (SELECT printf('%g', value) AS v FROM measurements ORDER BY value)"; }
# each run's stored value is what its own execution printed
own_values() {
	for d in "$T"/D/runs/*/; do
		local id v
		id=$(basename "$d")
		v=$(sed -n 's/^v: //p' "$d/stdout")
		is "$(q "SELECT printf('%g', value) FROM measurements WHERE run = $id")" "$v" "run $id's value is what it printed ($v)"
	done
}
# until no process names the campaign's log (its runs have ended), 60 s at most
wait_quiet() {
	for _ in $(seq 600); do pgrep -f -- "$T/exec.log" > /dev/null || return 0; sleep 0.1; done
	return 1
}

# 1. finished runs of the old store are not collected by the new one
cfg a "1, 2, 3" 0.2
cfg b "7, 8, 9" 0.2
"$PS" run "$T/a.cfg" --dir "$T/D" --quiet > "$T/out" 2>&1; is $? 0 "the first store's campaign completes"
rm -f "$T"/D/campaign.db*
: > "$T/exec.log"
"$PS" run "$T/b.cfg" --dir "$T/D" > "$T/out" 2>&1; is $? 0 "a new store at the same path completes"
ok $(! grep -q "collected" "$T/out"; echo $?) "it collects nothing of the old store's runs"
like "$(cat "$T/out")" "this session: 3 started, 0 retried, 0 re-run after a restart, 0 adopted" "it starts all three"
is "$(wc -l < "$T/exec.log")" 3 "three executions, its own"
is "$(stored)" "7 8 9" "the values stored are 7, 8 and 9"
own_values
id=$(q "SELECT value FROM meta WHERE key = 'store_id'")
is "$(json "$T/D/runs/1/local.start" '$j->{store}')" "$id" "local.start names the store's id"
is "$(json "$T/D/runs/1/local.end" '$j->{store}')" "$id" "local.end names it too"

# 2. runs of the old store still in flight are neither adopted nor killed
rm -rf "$T/D"
: > "$T/exec.log"
cfg a "1, 2" 4
cfg b "7, 8" 0.5
"$PS" run "$T/a.cfg" --dir "$T/D" --jobs 2 > "$T/out" 2>&1 &
bg=$!
for _ in $(seq 300); do [ "$(wc -l < "$T/exec.log")" -ge 2 ] && break; sleep 0.1; done
is "$(wc -l < "$T/exec.log")" 2 "the old store's two runs run"
kill -9 $bg; wait $bg 2> /dev/null
rm -f "$T"/D/campaign.db*
"$PS" run "$T/b.cfg" --dir "$T/D" --jobs 2 > "$T/out" 2>&1; is $? 0 "the new store's campaign completes"
ok $(! grep -q "adopted:" "$T/out"; echo $?) "it adopts none of the old store's runs"
like "$(cat "$T/out")" "warning: local runs of another campaign store made earlier in this directory are still running; left alone" \
	"it says the old store's runs are left alone"
is "$(grep -c 'warning: local runs of another' "$T/out")" 1 "once"
is "$(stored)" "7 8" "the values stored are the new store's, 7 and 8"
own_values
wait_quiet; ok $? "the old store's runs end by themselves"
is "$(grep -c ' [12]$' "$T/exec.log")" 2 "they ran once each"
id=$(q "SELECT value FROM meta WHERE key = 'store_id'")
for r in 1 2; do
	is "$(json "$T/D/runs/$r/local.end" '$j->{store}')" "$id" "run $r's end note is still the new store's after the old run ended"
done
"$PS" run "$T/b.cfg" --dir "$T/D" > "$T/out" 2>&1; is $? 0 "resuming the new store"
like "$(cat "$T/out")" "this session: 0 started" "starts nothing again"
is "$(stored)" "7 8" "and its values stay"

done_testing
