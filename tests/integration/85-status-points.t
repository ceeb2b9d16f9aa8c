#!/usr/bin/env bash
# perfsweep status --points: the mean of a metric's repetitions per region
# at every measured point, from real runs whose values are known (each run
# prints its own n and n*10 as two regions' times, its repetition adding
# 0, 1 or 2 to n*10, so the mean is n*10 + 1).
. "$(dirname "$0")/../lib/tap.sh"

cat >"$T/p.cfg" <<CFG
name = "pts";
app = { command = [ "/bin/sh", "-c", "echo a: {n}; echo b: \$(( {n} * 10 + {rep} - 1 ))" ]; };
parameters = ( { name = "n"; values = [ 3, 1, 2 ]; } );
repetitions = 3;
collect = { regex = ( { region = "a"; metric = "time"; pattern = "^a: ([0-9]+)"; },
                      { region = "b"; metric = "time"; pattern = "^b: ([0-9]+)"; } ); };
CFG
"$PS" run "$T/p.cfg" --dir "$T/pts" --quiet >/dev/null 2>&1
is "$?" 0 "the campaign runs"
out=$("$PS" status "$T/pts" --points 2>&1); rc=$?
is "$rc" 0 "status --points exits 0"
is "$(echo "$out" | sed -n 2,4p | awk '{print $1, $2, $3}' | tr '\n' ';')" "n=1 1 11;n=2 2 21;n=3 3 31;" \
	"one row per point in order, the mean per region"
like "$(echo "$out" | head -1)" "[time, mean of repetitions]" "the header names the metric"
json=$("$PS" status "$T/pts" --points --json); echo "$json" >"$T/p.json"
is "$(json "$T/p.json" 'join ",", map { "$_->{point}=$_->{time}{b}" } @$j')" "n=1=11,n=2=21,n=3=31" "--json: {point, METRIC} rows"
out=$("$PS" status "$T/pts" --points --metric bytes 2>&1); rc=$?
is "$rc" 2 "an unknown metric is an input error"
like "$out" "no measurements of metric 'bytes'" "and says so"
done_testing
