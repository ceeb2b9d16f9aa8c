#!/usr/bin/env bash
# check: alone (its busy loops would disturb the tests beside it: scripts/check-tests.sh)
# Runs that know when they were disturbed, on real programs.
#
# 1. The demo's stream kernel (a fixed amount of work in the L2 cache), one
#    rank bound to a core; every even repetition runs with a busy loop on
#    that same core, in a session of its own (another program, not the
#    run's).  Whatever else the machine runs, those runs get at most half
#    the core: their rank records say so (CPU share = CPU time / wall time),
#    the census saw the busy loop take the rest while they waited, validate
#    flags every one of them disturbed, and model, validate
#    and refine leave them out: the campaign's model is the model of its
#    undisturbed runs alone (rebuilt here from the export as an Extra-P
#    file).  The store, status, export and the HTML report carry the
#    figures.  Nothing here assumes the machine is quiet: the other runs may
#    be disturbed too (then they are left out as well).
# 2. A program that mostly sleeps, with analysis.min_cpu_share = 0: the time
#    other programs took is not judged, and the text says so.
# 3. Two ranks, each running the kernel, report a time the test controls
#    (+50% at two ranks): on two cores of their own (compact) and forced
#    onto one core (an explicit map giving both the same core).  Growth
#    with ranks is flagged; it is "contention" or "oversubscribed" as the
#    ranks' recorded CPU share says (the rule of docs/validation.md: the
#    shares recomputed here from the rank records; oversubscribed when they
#    fell and the growth left is not beyond noise), and the two ranks on one core
#    are allowed half of it and never get more.  On a quiet machine that is
#    contention for the first and oversubscribed for the second
#    (docs/validation.md has the figures).
. "$(dirname "$0")/../lib/tap.sh"

# the busy loops this test starts die with it
trap 'for f in "$T"/*/runs/*/competitor.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null; done; rm -rf "$T"' EXIT

ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)

# the busy loop beside even repetitions: tests/lib/compete.sh

cat > "$T/c.cfg" <<CFG
name = "compete";
app = { command = [ "$ROOT/tests/lib/compete.sh", "$DEMO", "-n", "{n}", "-i", "4", "-k", "stream" ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 64, 80, 96 ]; },
               { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 4;
order_seed = 5;
collect = { wall = false; regex = ( { region = "stream"; metric = "time"; pattern = "stream: ([0-9.eE+-]+) s"; } ); };
CFG
D=$T/compete.campaign
"$PS" run "$T/c.cfg" --quiet > "$T/run.out" 2>&1; is $? 0 "the campaign with competing busy loops runs"
[ $? = 0 ] || diag < "$T/run.out"
# every busy loop was stopped with its run (poll: a killed process may take a moment to go)
left=""
for f in "$D"/runs/*/competitor.pid; do
	pid=$(cat "$f")
	for i in $(seq 100); do
		[ "$(ps -o stat= -p "$pid" 2> /dev/null | cut -c1)" = "" ] && break
		[ "$(ps -o stat= -p "$pid" 2> /dev/null | cut -c1)" = Z ] && break
		sleep 0.1
	done
	case "$(ps -o stat= -p "$pid" 2> /dev/null | cut -c1)" in ""|Z) ;; *) left="$left $pid" ;; esac
done
is "$left" "" "no busy loop is left"

# every rank record carries what the rank used, and its share is its CPU time over its wall time
bad=0; n=0
for f in "$D"/runs/*/rank-0.json; do
	n=$((n + 1))
	json "$f" 'my $ok = 1; $ok &&= defined $j->{$_} for qw(utime stime cpu_share maxrss_kb nvcsw nivcsw load_start load_end);
		$ok && abs($j->{cpu_share} - ($j->{utime} + $j->{stime}) / $j->{wall}) <= 1e-9 * $j->{cpu_share} ? "ok" : "bad"' \
		| grep -q '^ok$' || bad=$((bad + 1))
done
is "$n:$bad" "12:0" "12 rank records with usage, cpu_share = (utime + stime) / wall"

# the runs that had a busy loop beside them: at most half the core, whatever else runs
competing=$(sqlite3 "$D/campaign.db" 'SELECT id FROM runs WHERE repetition % 2 = 0 ORDER BY id' | tr '\n' ' ')
is "$(echo $competing | wc -w)" 6 "6 runs had a competitor"
high=""
for id in $competing; do
	s=$(json "$D/runs/$id/rank-0.json" '$j->{cpu_share}')
	awk -v s="$s" 'BEGIN { exit !(s != "" && s <= 0.6) }' || high="$high $id:$s"
done
is "$high" "" "each had at most ~half its core (CPU share <= 0.6)"

"$PS" validate "$D" --json > "$T/v.json"; rc=$?
is "$rc" 3 "validate: blocked"
flagged=$(json "$T/v.json" 'join " ", map { $_->{run} } grep { grep { $_ eq "foreign" } @{$_->{by}} } @{$j->{disturbed}{runs}}')
missing=""
for id in $competing; do
	case " $flagged " in *" $id "*) ;; *) missing="$missing $id" ;; esac
done
is "$missing" "" "every competing run is flagged disturbed by the time others took"
is "$(json "$T/v.json" '$j->{disturbed}{judged}')" 12 "all 12 runs judged"
is "$(json "$T/v.json" '$j->{disturbed}{shared} ? "shared" : "not"')" shared "half the runs disturbed: the machine was shared"
"$PS" validate "$D" > "$T/v.txt" 2>&1
like "$(cat "$T/v.txt")" "the machine was shared; re-measure on a quiet or exclusive node" "the text says so"
like "$(grep '^note     disturbed:' "$T/v.txt")" "runs left out of the models: run " "and lists the runs left out"
like "$(grep '^verdict:' "$T/v.txt")" "runs disturbed, left out: the machine was shared" "the verdict too"

# left out: the campaign's model is the model of its undisturbed runs alone
all=$(json "$T/v.json" 'join " ", map { $_->{run} } @{$j->{disturbed}{runs}}')
"$PS" export "$D" --format csv > "$T/c.csv"; is $? 0 "export csv"
perl -e '
	my %gone = map { $_ => 1 } split / /, $ARGV[0];
	my (@order, %seen, %vals);
	<STDIN>;
	while (<STDIN>) {
		my @f = /("[^"]*"|[^,]*)(?:,|$)/g;
		my ($run, $n, $np, $v) = ($f[0], $f[2], $f[3], $f[9]);
		my $pt = "$n $np";
		push @order, $pt unless $seen{$pt}++;     # the points in run order, as the store makes them
		push @{$vals{$pt}}, $v unless $gone{$run};
	}
	my @kept = grep { $vals{$_} } @order;
	exit 3 unless @kept;
	print "PARAMETER n\nPARAMETER np\nPOINTS ", join(" ", map { "( $_ )" } @kept), "\n";
	print "REGION stream\nMETRIC time\n";
	print "DATA ", join(" ", @{$vals{$_}}), "\n" for @kept;
' "$all" < "$T/c.csv" > "$T/kept.txt"; kept=$?
"$PS" model "$D" --json > "$T/m.camp" 2> "$T/m.err"; mc=$?
like "$(cat "$T/m.err")" "runs disturbed, left out of the models" "model notes the runs it leaves out"
if [ "$kept" = 3 ]; then
	is "$mc" 2 "every run was disturbed: nothing to model"
else
	"$PS" model "$T/kept.txt" --json > "$T/m.kept" 2> /dev/null
	is "$(cat "$T/m.camp")" "$(cat "$T/m.kept")" "the campaign's model is its undisturbed runs' model"
fi

# the store, status, export and the report carry the figures
is "$(sqlite3 "$D/campaign.db" 'SELECT COUNT(*) FROM resources WHERE rank = 0 AND cpu_share > 0')" 12 "the store has a resource record per run"
"$PS" status "$D" --json > "$T/s.json"
is "$(json "$T/s.json" '$j->{resources}{runs}')" 12 "status --json: 12 runs recorded"
is "$(json "$T/s.json" 'join " ", @{$j->{resources}{disturbed_runs}}')" "$all" "status --json: the same disturbed runs"
like "$("$PS" status "$D")" "resources: 12 runs recorded: CPU share median" "status: one line of resources"
same=$(perl -MJSON::PP -e '
	my $bad = 0;
	<STDIN>;
	while (<STDIN>) {
		chomp;
		my @f = /("[^"]*"|[^,]*)(?:,|$)/g;
		local $/;
		open my $fh, "<", "$ARGV[0]/runs/$f[0]/rank-0.json" or die;
		my $j = decode_json(<$fh>);
		# run 0, rank 6, utime 12, cpu_share 15, nvcsw 18, load_start 20
		$bad++ if $f[15] != $j->{cpu_share} || $f[12] != $j->{utime} || $f[20] != $j->{load_start} || $f[18] != $j->{nvcsw};
	}
	print $bad' "$D" < "$T/c.csv")
is "$same" 0 "export csv: each row's resources are its rank's record"
"$PS" export "$D" --format jsonl > "$T/c.jsonl"
is "$(perl -MJSON::PP -ne 'my $j = decode_json($_); print scalar(@{$j->{cpu_share}}) == scalar(@{$j->{value}}) ? "y" : "n"' "$T/c.jsonl")" \
   "yyy" "export jsonl: a CPU share list per repetition value"
"$PS" validate "$D" --html "$T/r.html" > /dev/null 2>&1
grep -q "<h2>Disturbed runs</h2>" "$T/r.html" && grep -q "<h2>Resources</h2>" "$T/r.html"
ok $? "the HTML report shows the disturbed runs and the resources"

# refine measures the disturbed runs again first, and adds no repetitions where they were
"$PS" refine "$D" --dry-run --json > "$T/r.json"; is $? 0 "refine --dry-run"
is "$(json "$T/r.json" '$j->{proposals}[0]{finding}')" disturbed "refine: disturbed runs first"
is "$(json "$T/r.json" 'scalar grep { $_->{finding} eq "disturbed" } @{$j->{proposals}}')" \
   "$(echo $all | wc -w)" "one new attempt per disturbed run"
is "$(json "$T/r.json" 'my %d = map { $_->{params}{n} => 1 } grep { $_->{finding} eq "disturbed" } @{$j->{proposals}};
	scalar grep { $_->{finding} eq "noise" && $d{$_->{params}{n}} } @{$j->{proposals}}, @{$j->{dropped}}')" \
   0 "no noise repetitions where a disturbed run waits to be measured again"

# 2. a program that waits: analysis.min_cpu_share = 0, nothing disturbed
cat > "$T/w.cfg" <<'CFG'
name = "waits";
app = { command = [ "/bin/sh", "-c", "sleep 0.15; echo time: 0.15" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 3;
analysis = { min_cpu_share = 0.0; };
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time: ([0-9.]+)"; } ); };
CFG
"$PS" run "$T/w.cfg" --quiet > /dev/null 2>&1; is $? 0 "the waiting campaign runs"
"$PS" validate "$T/waits.campaign" --json > "$T/w.json"
is "$(json "$T/w.json" '$j->{disturbed}{judged} . " judged, " . scalar(@{$j->{disturbed}{runs}}) . " disturbed"')" \
   "6 judged, 0 disturbed" "a program that waits, min_cpu_share 0: no run disturbed"
like "$("$PS" validate "$T/waits.campaign")" "info     disturbed: none of 6 runs (time taken by other programs not judged: analysis.min_cpu_share = 0" \
     "the text says none"

# 3. contention and oversubscription
if [ "$ncores" -lt 2 ]; then
	echo "# SKIP contention and oversubscription: needs 2 cores"
	done_testing
	exit
fi
cat > "$T/work.sh" <<SH
#!/bin/sh
# real work (the demo's stream kernel in the L2 cache: a fixed amount of CPU
# time), then a time the test controls: 0.1 s x (1 + 0.5 (np - 1)), +-0.2%
"$DEMO" -n 56 -i 2 -k stream > /dev/null || exit 1
awk -v np="\$PERFSWEEP_NRANKS" -v r="\$PERFSWEEP_REPETITION" -v k="\$PERFSWEEP_RANK" \
	'BEGIN { printf "time: %.6f\n", 0.1 * (1 + 0.5 * (np - 1)) * (1 + ((r * 7 + k * 3) % 5 - 2) / 1000) }'
SH
chmod +x "$T/work.sh"
printf '# both ranks on core 0\n0\n0\n' > "$T/one.map"
cat > "$T/k.deps" <<'DEPS'
parameters = [ "n", "np" ];
functions = ( { name = "k"; deps = ( [ "n" ] ); } );
DEPS
study() {  # study NAME PLACEMENT: a 2x2 study of work.sh (the dependencies exclude np)
	cat > "$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ "$T/work.sh", "{n}" ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 1, 2 ]; }, { name = "np"; values = [ 1, 2 ]; role = "ranks"; } );
placement = $2;
repetitions = 3;
order_seed = 7;
analysis = { min_cpu_share = 0.0; };
collect = { wall = false; regex = ( { region = "k"; metric = "time"; pattern = "time: ([0-9.]+)"; } ); };
CFG
	"$PS" run "$T/$1.cfg" --quiet > "$T/$1.out" 2>&1
}
# verdict NAME: "KIND ok" when the flag's kind is what its recorded shares say, else why not
verdict() {
	"$PS" validate "$T/$1.campaign" --deps "$T/k.deps" --json > "$T/$1.json"
	"$PS" export "$T/$1.campaign" --format csv > "$T/$1.csv"
	perl -MJSON::PP -e '
		local $/;
		open my $fh, "<", $ARGV[0] or die;
		my $j = decode_json(<$fh>);
		my @f = grep { $_->{kind} eq "contention" || $_->{kind} eq "oversubscribed" } @{$j->{flags}};
		print("no growth flagged\n"), exit unless @f == 1;
		my $f = $f[0];
		my %gone = map { $_->{run} => 1 } @{$j->{disturbed}{runs}};
		# per point (n, np): the median CPU share of its kept runs ranks; then per np the median over points
		open my $c, "<", $ARGV[1] or die;
		$/ = "\n";
		<$c>;
		my (%at, %rows);
		while (<$c>) {
			my @x = /("[^"]*"|[^,]*)(?:,|$)/g;
			# run 0, n 2, np 3, rank 6, cpu_share 15
			next if $gone{$x[0]} || $rows{"$x[0] $x[6]"}++;
			push @{$at{$x[3]}{$x[2]}}, $x[15];
		}
		sub med { my @v = sort { $a <=> $b } @_; @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2 }
		my ($s1, $s2) = map { my $np = $_; med(map { med(@{$at{$np}{$_}}) } keys %{$at{$np}}) } 1, 2;
		printf "# %s: growth %+.0f%%, CPU share %.3f at 1 rank, %.3f at 2\n", $ARGV[2], 100 * $f->{growth}, $s1, $s2;
		# the share fell by more than a tenth: oversubscribed unless the ranks own time (each value
		# times its share) still grows beyond noise by 5% or more
		my $left = defined $f->{unexplained} && $f->{unexplained} >= 0.05 && $f->{unexplained_p} < 0.01;
		my $want = $s2 < 0.9 * $s1 && !$left ? "oversubscribed" : "contention";
		my $same = abs($f->{cpu_share_first} - $s1) < 1e-9 && abs($f->{cpu_share_last} - $s2) < 1e-9;
		print $same ? "" : "shares differ: $f->{cpu_share_first} $f->{cpu_share_last}\n";
		print $f->{kind}, $f->{kind} eq $want ? " ok\n" : " but the shares say $want\n";
	' "$T/$1.json" "$T/$1.csv" "$1"
}
study cores '{ policy = "compact"; ranks_per_node = [ 2 ]; }'; is $? 0 "two ranks on two cores run"
out=$(verdict cores); echo "$out" | grep '^#'
like "$(echo "$out" | grep -v '^#')" " ok" "two cores: the growth's kind is what the ranks' CPU share says"
# csv fields (awk): np 4, cpuset 12, cpu_share 16, allowed_share 17
is "$(awk -F, 'NR > 1 && $4 == 2 { print $17 }' "$T/cores.csv" | sort -u)" 1 "two cores: each rank may have a whole core"
study onecore '{ map = "one.map"; ranks_per_node = [ 2 ]; }'; is $? 0 "two ranks forced onto one core run"
out=$(verdict onecore); echo "$out" | grep '^#'
like "$(echo "$out" | grep -v '^#')" " ok" "one core: the growth's kind is what the ranks' CPU share says"
is "$(awk -F, 'NR > 1 && $4 == 2 { gsub(/"/, "", $12); print $12 ":" $17 }' "$T/onecore.csv" | sort -u)" "0:0.5" \
   "one core: both ranks bound to PU 0, each allowed half of it"
is "$(awk -F, 'NR > 1 && $4 == 2 && $16 > 0.6' "$T/onecore.csv" | wc -l)" 0 "and neither got more than ~half (CPU share <= 0.6)"
done_testing
