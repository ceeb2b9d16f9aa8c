#!/usr/bin/env bash
# export carries each rank's real binding from the store: csv columns node
# and cpuset per rank row, jsonl fields node and cpuset per line (one list of
# the ranks' values per repetition value, parallel to "value").  The values
# must be those the ranks recorded in runs/N/rank-R.json, and the files must
# still read back as Extra-P input.  Campaigns without bound ranks keep the
# old columns and fields.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/b.cfg" <<'CFG'
name = "bound";
app = { command = [ "/bin/sh", "-c", "echo time: 1.$PERFSWEEP_NRANKS" ]; };
parameters = ( { name = "np"; values = [ 1, 2 ]; role = "ranks"; } );
placement = { ranks_per_node = [ 2 ]; policy = "compact"; };
repetitions = 2;
order = "grouped";
collect = { wall = false; regex = ( { region = "k"; metric = "time"; pattern = "time: ([0-9.]+)"; } ); };
CFG
"$PS" run "$T/b.cfg" --dir "$T/b" --quiet > "$T/run.out" 2>&1; ok $? "a bound campaign of 1- and 2-rank runs completes"

# what the ranks recorded: "run:rank:node:cpuset" per rank record
recorded=$(for f in "$T"/b/runs/*/rank-*.json; do
	run=$(basename "$(dirname "$f")")
	json "$f" "\"$run:\$j->{rank}:\$j->{node}:\$j->{cpuset}\""
done | sort)
is "$(echo "$recorded" | wc -l)" 6 "6 rank records (2 runs of 1 rank, 2 of 2)"

# csv: one row per rank; the binding columns are its record's
"$PS" export "$T/b" --format csv > "$T/b.csv"; ok $? "export csv exits 0"
is "$(head -1 "$T/b.csv")" "run,repetition,np,nodes,ranks_per_node,rank,region,metric,value,node,cpuset,utime,stime,rank_wall,cpu_share,allowed_share,maxrss_kb,nvcsw,nivcsw,load_start,load_end" \
	"csv header: node and cpuset after value, then what each rank used"
csv=$(tail -n +2 "$T/b.csv" | perl -ne 'chomp; my @f = /("[^"]*"|[^,]*)(?:,|$)/g; s/"//g for @f; print "$f[0]:$f[5]:$f[9]:$f[10]\n"' | sort)
is "$csv" "$recorded" "csv node and cpuset per rank are those the rank recorded"

# jsonl: per line, node and cpuset lists parallel to value, each the ranks' own
"$PS" export "$T/b" --format jsonl > "$T/b.jsonl"; ok $? "export jsonl exits 0"
is "$(wc -l < "$T/b.jsonl")" 2 "one line per point"
lines=$(perl -MJSON::PP -ne '
	my $j = decode_json($_);
	my $v = scalar @{$j->{value}};
	print "np=$j->{params}{np} values=$v nodes=", scalar @{$j->{node}}, " cpusets=", scalar @{$j->{cpuset}},
	      " ranks=", join("/", map { scalar @$_ } @{$j->{cpuset}}), "\n"' "$T/b.jsonl")
is "$lines" $'np=1 values=2 nodes=2 cpusets=2 ranks=1/1\nnp=2 values=2 nodes=2 cpusets=2 ranks=2/2' \
	"node and cpuset have one entry per repetition value, each with one entry per rank"
# runs 1-2 are np=1, 3-4 np=2 (grouped order): repetition value i is run i of its point
jsonl=$(perl -MJSON::PP -ne '
	my $j = decode_json($_);
	my $first = $j->{params}{np} == 1 ? 1 : 3;
	for my $i (0 .. $#{$j->{node}}) {
		for my $r (0 .. $#{$j->{node}[$i]}) {
			print $first + $i, ":$r:$j->{node}[$i][$r]:$j->{cpuset}[$i][$r]\n";
		}
	}' "$T/b.jsonl" | sort)
is "$jsonl" "$recorded" "jsonl node and cpuset per value and rank are those the ranks recorded"
"$PS" model "$T/b.jsonl" > "$T/model.out" 2>&1; ok $? "the jsonl still reads back as Extra-P input"

# unbound: no placement, the old columns and fields only
cat > "$T/u.cfg" <<'CFG'
name = "unbound";
app = { command = [ "/bin/sh", "-c", "echo time: 1" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; } );
repetitions = 1;
collect = { wall = false; regex = ( { region = "k"; metric = "time"; pattern = "time: ([0-9.]+)"; } ); };
CFG
"$PS" run "$T/u.cfg" --dir "$T/u" --quiet > /dev/null 2>&1
is "$("$PS" export "$T/u" --format csv | head -1 | cut -d, -f1-9)" "run,repetition,n,nodes,ranks_per_node,rank,region,metric,value" \
	"unbound csv: the old header first (what the run used is added after it)"
is "$("$PS" export "$T/u" --format jsonl | perl -MJSON::PP -ne 'my %h = %{decode_json($_)}; print join(",", grep { exists $h{$_} } qw(callpath metric params value)), "\n"' | sort -u)" \
	"callpath,metric,params,value" "unbound jsonl: the old fields are all there"

done_testing
