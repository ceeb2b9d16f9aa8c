#!/usr/bin/env bash
# A real campaign of the demo app on the local backend, end to end.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/c.cfg" <<CFG
name = "small";
app = { command = [ "$DEMO", "-n", "{n}", "-i", "{i}", "-k", "dense,sort" ]; };
parameters = ( { name = "n"; values = [ 10, 20, 30 ]; }, { name = "i"; values = [ 1, 2 ]; } );
repetitions = 2;
collect = { regex = (
  { region = "dense"; pattern = "dense: ([0-9.eE+-]+) s"; },
  { region = "sort"; pattern = "sort: ([0-9.eE+-]+) s"; } ); };
CFG

"$PS" plan "$T/c.cfg" > "$T/plan.txt"; is $? 0 "plan exits 0"
like "$(cat "$T/plan.txt")" "6 points, 12 runs" "plan counts 3x2 points x 2 repetitions"
ok $([ ! -e "$T/small.campaign" ]; echo $?) "plan runs nothing"
"$PS" plan "$T/c.cfg" --json > "$T/plan.json"
is "$(json "$T/plan.json" '$j->{totals}{runs}')" 12 "plan --json totals.runs"
is "$(json "$T/plan.json" '$j->{points}[5]{params}{n}')" 30 "plan --json lists the points"

"$PS" run "$T/c.cfg" --jobs 2 --quiet > "$T/run.txt" 2>&1; is $? 0 "run exits 0 when every run is done"
ok $([ -f "$T/small.campaign/campaign.db" ]; echo $?) "the campaign directory is beside the config"
"$PS" status "$T/small.campaign" --json > "$T/st.json"; is $? 0 "status --json exits 0"
is "$(json "$T/st.json" '$j->{planned}')" 12 "status: planned"
is "$(json "$T/st.json" '$j->{done}')" 12 "status: done"
is "$(json "$T/st.json" '$j->{pending} + $j->{running} + $j->{failed}')" 0 "status: nothing pending, running or failed"
is "$(json "$T/st.json" '$j->{campaign} . "/" . $j->{backend}')" "small/local" "status: campaign and backend"
ok $([ -s "$T/small.campaign/runs/1/stdout" ] && [ -f "$T/small.campaign/runs/1/argv.json" ]; echo $?) "run files kept in runs/<id>/"

"$PS" export "$T/small.campaign" --format csv > "$T/m.csv"; is $? 0 "export csv exits 0"
is "$(grep -c ',"dense",time,' "$T/m.csv")" 12 "one dense value per run"
is "$(grep -c ',"main",time,' "$T/m.csv")" 12 "one wall time per run"

# Extra-P formats: export, import, export again gives the same file
for fmt in jsonl json extrap-text; do
	opt=--$fmt; [ $fmt = extrap-text ] && opt=--text
	"$PS" export "$T/small.campaign" --format $fmt --out "$T/a.$fmt"; is $? 0 "export $fmt exits 0"
	"$PS" import $opt "$T/a.$fmt" --out "$T/imp-$fmt" --quiet > /dev/null; is $? 0 "the $fmt export imports"
	"$PS" export "$T/imp-$fmt" --format $fmt --out "$T/b.$fmt"
	if [ $fmt = jsonl ]; then   # what the runs used is the campaign's, not Extra-P's: not imported
		for f in a b; do perl -MJSON::PP -ne 'my $h = decode_json($_); delete @$h{qw(cpu_share maxrss_kb nivcsw)};
			print JSON::PP->new->canonical->encode($h), "\n"' "$T/$f.$fmt" > "$T/$f.cmp"; done
		ok $(cmp -s "$T/a.cmp" "$T/b.cmp"; echo $?) "$fmt: export, import, export is lossless (its measurements)"
	else
		ok $(cmp -s "$T/a.$fmt" "$T/b.$fmt"; echo $?) "$fmt: export, import, export is lossless"
	fi
done
like "$(cat "$T/a.extrap-text")" "REGION dense" "the text export names the regions"
"$PS" model "$T/a.extrap-text" > "$T/models.txt"; is $? 0 "model reads the text export"
like "$(cat "$T/models.txt")" "dense" "and models the dense region"

# running again is a no-op: everything is done
"$PS" run "$T/c.cfg" --quiet > "$T/run2.txt" 2>&1; is $? 0 "a finished campaign runs again as a no-op"
like "$(cat "$T/run2.txt")" "0 started" "and starts nothing"

# a concurrent reader while a campaign runs
sed -e 's/"small"/"slow"/' -e 's/"-n"/"-s", "0.2", "-n"/' "$T/c.cfg" > "$T/slow.cfg"
"$PS" run "$T/slow.cfg" --jobs 1 --quiet > /dev/null 2>&1 &
pid=$!
# the runs take 0.2 s each: ask until the first is done, however slow the machine
d=0 rc=0
for i in $(seq 600); do
	[ -e "$T/slow.campaign/campaign.db" ] && { "$PS" status "$T/slow.campaign" --json > "$T/live.json" 2>&1; rc=$?; }
	[ "$rc" = 0 ] && [ -s "$T/live.json" ] && d=$(json "$T/live.json" '$j->{done}')
	[ "$rc" != 0 ] || [ "${d:-0}" -ge 1 ] && break
	sleep 0.1
done
is "$rc" 0 "status reads while run writes"
ok $([ "$d" -ge 1 ] && [ "$d" -lt 12 ]; echo $?) "a partial count is visible ($d done)"
wait $pid; is $? 0 "the concurrent campaign completes"
done_testing
