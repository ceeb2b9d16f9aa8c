#!/bin/sh
# Print the cpusets of a --jobs 2 campaign: each run's start, end and the
# cpuset its rank 0 was bound to (from rank-0.json), and whether runs that
# overlapped in time shared a core.  Give the bin directory of the build to
# test (default: bin), e.g. an old build for "before":
#   scripts/cpusets-jobs2.sh [BINDIR] [CAMPAIGN-DIR]
set -e
BIN=${1:-bin}
DIR=${2:-build/cpusets-jobs2}
rm -rf "$DIR"
uptime
"$BIN/perfsweep" run configs/cpusets-jobs2.cfg --dir "$DIR" --jobs 2 --quiet
perl -MJSON::PP -e '
	my @r;
	for my $f (sort { ($a =~ m{runs/(\d+)/})[0] <=> ($b =~ m{runs/(\d+)/})[0] } glob "$ARGV[0]/runs/*/rank-0.json") {
		open my $h, "<", $f or die; local $/; my $j = JSON::PP->new->decode(<$h>);
		my ($run) = $f =~ m{runs/(\d+)/};
		push @r, [ $run, $j->{start}, $j->{end}, $j->{cpuset} ];
	}
	my $t0 = $r[0][1];
	printf "run %s: %.3f-%.3f s cpuset %s\n", $_->[0], $_->[1] - $t0, $_->[2] - $t0, $_->[3] for @r;
	my ($pairs, $shared) = (0, 0);
	for my $i (0 .. $#r) { for my $k ($i + 1 .. $#r) {
		next if $r[$i][1] >= $r[$k][2] || $r[$k][1] >= $r[$i][2];
		$pairs++; $shared++ if $r[$i][3] eq $r[$k][3];
	} }
	print "overlapping pairs: $pairs, sharing a cpuset: $shared\n";
' "$DIR"
uptime
