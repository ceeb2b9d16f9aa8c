#!/usr/bin/env bash
# Disjoint cores on the local backend: runs that overlap in time never share
# a core (checked on the cpusets perfsweep-bind read back and the recorded
# start/end times), a run that needs more cores than are free waits, and a
# placement campaign runs one run at a time by default.
. "$(dirname "$0")/../lib/tap.sh"

ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)
if [ "$ncores" -lt 2 ]; then echo "1..0 # SKIP needs at least 2 cores"; exit 0; fi

# overlaps DIR: for every pair of runs whose rank records overlap in time,
# "shared" if their cpusets intersect; prints "pairs=N shared=M"
overlaps() {
	perl -MJSON::PP -e '
		sub cpus { my %s; for (split /,/, $_[0]) { my ($a, $b) = split /-/; $b //= $a; $s{$_} = 1 for $a .. $b } \%s }
		my @r;
		for my $f (glob "$ARGV[0]/runs/*/rank-*.json") {
			open my $h, "<", $f or die; local $/; my $j = JSON::PP->new->decode(<$h>);
			my ($run) = $f =~ m{runs/(\d+)/};
			push @r, [ $run, $j->{start}, $j->{end}, cpus($j->{cpuset} // "") ];
		}
		my ($pairs, $shared) = (0, 0);
		for my $i (0 .. $#r) { for my $k ($i + 1 .. $#r) {
			my ($x, $y) = ($r[$i], $r[$k]);
			next if $x->[0] == $y->[0] || $x->[1] >= $y->[2] || $y->[1] >= $x->[2];
			$pairs++;
			$shared++ if grep { $y->[3]{$_} } keys %{ $x->[3] };
		} }
		print "pairs=", $pairs > 0 ? "some" : "none", " shared=$shared\n";
	' "$1"
}

cat > "$T/one.cfg" <<CFG
name = "one";
app = { command = [ "sleep", "{t}" ]; };
parameters = ( { name = "t"; values = [ 0.3, 0.4 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
repetitions = 3;
placement = { ranks_per_node = [ 1 ]; policy = "compact"; };
CFG
"$PS" run "$T/one.cfg" --jobs 2 --quiet > "$T/out" 2>&1; is $? 0 "six 1-rank compact runs with --jobs 2 complete"
is "$(ls "$T"/one.campaign/runs/*/rank-0.json | wc -l)" 6 "each run left its rank record"
is "$(overlaps "$T/one.campaign")" "pairs=some shared=0" "runs overlap in time, and overlapping runs never share a core"
n=$(for f in "$T"/one.campaign/runs/*/rank-0.json; do json "$f" '$j->{cpuset}'; done | sort -u | wc -l)
ok $([ "$n" -ge 2 ]; echo $?) "the runs used more than one core ($n distinct cpusets)"

# the store keeps each rank's real binding, and export carries node and cpuset
"$PS" export "$T/one.campaign" --format csv > "$T/one.csv"; is $? 0 "export csv"
is "$(head -1 "$T/one.csv" | awk -F, '{ for (i = 1; i <= NF; i++) if ($i == "value") print $(i + 1) "," $(i + 2) }')" \
   "node,cpuset" "the csv has node and cpuset after value"
want=$(for d in "$T"/one.campaign/runs/*/; do r=$(basename "$d"); echo "$r $(json "$d/rank-0.json" '$j->{node} . " " . $j->{cpuset}')"; done | sort -n)
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "rank") rk = i; if ($i == "node") nd = i; if ($i == "cpuset") cs = i }; next }
	$rk == 0 { gsub(/"/, "", $cs); print $1, $nd, $cs }' "$T/one.csv" | sort -un)
is "$got" "$want" "each rank's node and cpuset in the export match its rank record"
is "$(sqlite3 "$T/one.campaign/campaign.db" "SELECT COUNT(*) FROM bindings")" 6 "the store holds one binding per rank"

# the default for a placement campaign is one run at a time
sed 's/"one"/"seq"/' "$T/one.cfg" > "$T/seq.cfg"
"$PS" run "$T/seq.cfg" --quiet > "$T/out" 2>&1; is $? 0 "the same campaign without --jobs completes"
is "$(overlaps "$T/seq.campaign")" "pairs=none shared=0" "without --jobs, placement runs never overlap"

# a run that takes every core makes the next one wait, even with --jobs 2
cat > "$T/all.cfg" <<CFG
name = "all";
app = { command = [ "sleep", "0.3" ]; };
parameters = ( { name = "np"; values = [ $ncores ]; role = "ranks"; } );
repetitions = 3;
placement = { ranks_per_node = [ $ncores ]; policy = "spread"; };
CFG
"$PS" run "$T/all.cfg" --jobs 2 --quiet > "$T/out" 2>&1; is $? 0 "runs of $ncores ranks with --jobs 2 complete"
is "$(overlaps "$T/all.campaign")" "pairs=none shared=0" "a run needing all cores waits for the one before"
r0=$(json "$T/all.campaign/runs/1/rank-0.json" '$j->{cpuset}')
r1=$(json "$T/all.campaign/runs/1/rank-1.json" '$j->{cpuset}')
ok $([ -n "$r0" ] && [ "$r0" != "$r1" ]; echo $?) "inside its cores a run's ranks are on different cores ($r0 / $r1)"

# unbound runs reserve cores too: with --jobs 8, at most $ncores run at once
cat > "$T/free.cfg" <<CFG
name = "free";
app = { command = [ "sh", "-c", "echo \$(date +%s.%N) start >> ../../times; sleep 0.3; echo \$(date +%s.%N) end >> ../../times" ]; };
parameters = ( { name = "i"; values = [ 1, 2, 3, 4, 5, 6 ]; } );
repetitions = 1;
CFG
"$PS" run "$T/free.cfg" --jobs 8 --quiet > "$T/out" 2>&1; is $? 0 "unbound runs with --jobs 8 complete"
peak=$(sort -n "$T/free.campaign/times" | awk '$2 == "start" { n++ } $2 == "end" { n-- } n > m { m = n } END { print m }')
ok $([ "$peak" -le "$ncores" ]; echo $?) "at most one unbound run per core at once (peak $peak, $ncores cores)"
done_testing
