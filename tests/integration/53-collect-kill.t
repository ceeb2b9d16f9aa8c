#!/usr/bin/env bash
# kill -9 during `perfsweep collect`: every run is either as it was or fully
# re-collected (one transaction per run), nothing is counted twice, `run`
# refuses the campaign until the re-collection is finished, and collect
# again finishes it without running anything.
. "$(dirname "$0")/../lib/tap.sh"

# 40 runs; each prints 20000 lines of padding, then a=n .. h=n (known truth),
# and appends to $T/count per execution.
cat > "$T/app.sh" <<'SH'
#!/bin/sh
echo run >> "$COUNT"
yes 'padding: a line the collectors read past' | head -n 20000
for k in a b c d e f g h; do printf '%s=%s\n' "$k" "$1"; done
SH
chmod +x "$T/app.sh"
head='name = "k";
app = { command = [ "'"$T"'/app.sh", "{n}" ]; env = [ "COUNT='"$T"'/count" ]; };
parameters = ( { name = "n"; values = [ '"$(seq -s, 1 40)"' ]; } );
repetitions = 1;'
# the campaign ran with a wrong pattern (upper case): nothing collected
printf '%s\ncollect = { wall = false; regex = ( { region = "a"; pattern = "^A=([0-9]+)$"; } ); };\n' "$head" > "$T/old.cfg"
rx=""
for k in a b c d e f g h; do rx="$rx{ region = \"$k\"; pattern = \"^$k=([0-9]+)\$\"; },"; done
printf '%s\ncollect = { wall = false; regex = ( %s ); };\n' "$head" "${rx%,}" > "$T/new.cfg"
"$PS" run "$T/old.cfg" --jobs 2 --quiet > /dev/null 2>&1; is $? 1 "the campaign ran; its collector matched nothing"
is "$(wc -l < "$T/count" | tr -d ' ')" 40 "40 executions"

DB=$T/k.campaign/campaign.db
q() { sqlite3 "$DB" "$1"; }
recollected() { q "SELECT COUNT(*) FROM run_events WHERE detail LIKE 're-collected%'"; }
# kill -9 once a few runs are re-collected; again if the collection had
# finished already (a fast machine), up to five times
interrupted=0
for attempt in 1 2 3 4 5; do
	base=$(recollected)
	"$PS" collect "$T/new.cfg" > /dev/null 2>&1 &
	pid=$!
	while kill -0 $pid 2> /dev/null && [ "$(recollected)" -lt $((base + 3)) ]; do sleep 0.01; done
	kill -9 $pid 2> /dev/null
	wait $pid 2> /dev/null
	if [ -n "$(q "SELECT value FROM meta WHERE key = 'collect_pending'")" ]; then interrupted=1; break; fi
done
ok $([ $interrupted = 1 ]; echo $?) "kill -9 interrupted a re-collection (attempt $attempt)"

# every run is whole: 0 values (as it was) or 8 (re-collected), each = n
counts=$(q "SELECT COUNT(*) FROM (SELECT r.id, COUNT(m.run) c FROM runs r LEFT JOIN measurements m ON m.run = r.id GROUP BY r.id) GROUP BY c ORDER BY c" | tr '\n' ' ')
parts=$(q "SELECT COUNT(*) FROM (SELECT r.id, COUNT(m.run) c FROM runs r LEFT JOIN measurements m ON m.run = r.id GROUP BY r.id) WHERE c NOT IN (0, 8)")
is "$parts" 0 "no run is half re-collected (runs per measurement count: $counts)"
ok $([ "$(q "SELECT COUNT(DISTINCT run) FROM measurements")" -ge 3 ]; echo $?) "some runs were re-collected before the kill"
is "$(q "SELECT COUNT(*) FROM (SELECT run, region, metric, rank FROM measurements GROUP BY 1, 2, 3, 4 HAVING COUNT(*) > 1)")" 0 \
	"nothing is stored twice"
is "$(q "SELECT COUNT(*) FROM measurements m JOIN runs r ON r.id = m.run JOIN point_values v ON v.point = r.point WHERE m.value != v.value")" 0 \
	"every stored value is the run's n"
is "$(q "SELECT COUNT(*) FROM runs r WHERE (SELECT COUNT(*) FROM measurements WHERE run = r.id) = 8 AND r.collect_error IS NOT NULL")" 0 \
	"a re-collected run has no collection error left"

# run refuses to add runs with either set of collectors meanwhile
"$PS" run "$T/new.cfg" > /dev/null 2> "$T/err"; is $? 2 "run refuses an unfinished re-collection"
like "$(cat "$T/err")" "perfsweep collect" "and names collect as the way on"
"$PS" run "$T/old.cfg" > /dev/null 2>&1; is $? 2 "with the old collectors as well"

# collect again finishes it, running nothing
"$PS" collect "$T/new.cfg" --json > "$T/c.json"; is $? 0 "collect again finishes"
is "$(json "$T/c.json" '$j->{runs}')" 40 "over all 40 runs"
is "$(q "SELECT COUNT(*) FROM measurements")" 320 "8 values per run"
is "$(q "SELECT COUNT(*) FROM measurements m JOIN runs r ON r.id = m.run JOIN point_values v ON v.point = r.point WHERE m.value != v.value")" 0 \
	"each the run's n"
is "$(q "SELECT COUNT(*) FROM meta WHERE key = 'collect_pending'")" 0 "nothing is pending"
"$PS" run "$T/new.cfg" > /dev/null 2>&1; is $? 0 "run accepts the campaign"
is "$(wc -l < "$T/count" | tr -d ' ')" 40 "no run was executed again"
done_testing
