#!/usr/bin/env bash
# contention-summary.sh DIR [PARAM [VALIDATE-OPTIONS...]]: the contention study
# of a campaign along PARAM (default p), line by line and as the validator
# judges it.
#   1. Per region (metric "time", rank 0, else the whole run) and line (the
#      other parameters fixed): the mean at PARAM's smallest and largest
#      value and the growth between them, from `perfsweep export DIR --format csv`.
#   2. Every contention check along PARAM from `perfsweep validate DIR --json
#      VALIDATE-OPTIONS` (e.g. --deps FILE --metric time): its status, the
#      measured growth and p-value, the noise, and the smallest growth the
#      check flags at that noise (the validator's alpha and power, never below
#      --min-growth; docs/validation.md has the formula).
# The statistics are the validator's; this script only adds the per-line means.
set -euo pipefail
dir=${1:?usage: contention-summary.sh DIR [PARAM [VALIDATE-OPTIONS...]]}
param=${2:-p}
shift $(( $# < 2 ? $# : 2 ))
ps=${PERFSWEEP:-perfsweep}
"$ps" export "$dir" --format csv | perl -e '
use strict; use warnings;
my ($x) = @ARGV;
my $hdr = <STDIN>; chomp $hdr; my @h = split /,/, $hdr;
my %col; @col{@h} = 0 .. $#h;
defined $col{$x} or die "contention-summary: no parameter $x in the campaign\n";
my @line = grep { $_ ne $x } @h[2 .. $col{nodes} - 1];
# Rank 0, else the whole run (rank -1: imported data, or wall time only).
my (%byrank, %regions);
while (<STDIN>) {
	chomp; my @f = split /,/;
	my $rank = $f[$col{rank}];
	next unless $f[$col{metric}] eq "time" && ($rank eq "0" || $rank eq "-1");
	(my $r = $f[$col{region}]) =~ s/"//g;
	my $l = join(" ", map { "$_=$f[$col{$_}]" } @line);
	push @{$byrank{$rank}{$r}{$l}{$f[$col{$x}]}}, $f[$col{value}];
	$regions{$r} = 1;
}
sub mean { my $s = 0; $s += $_ for @_; $s / @_ }
printf "%-14s %-22s %12s %12s %8s\n", "region", "line", "$x=min", "$x=max", "growth";
for my $r (sort keys %regions) {
	my $v = $byrank{0}{$r} // $byrank{-1}{$r};
	for my $l (sort keys %$v) {
		my @xs = sort { $a <=> $b } keys %{$v->{$l}};
		next if @xs < 2;
		my ($mlo, $mhi) = map { mean(@{$v->{$l}{$_}}) } $xs[0], $xs[-1];
		printf "%-14s %-22s %12.4g %12.4g %+7.1f%%\n", $r, $l, $mlo, $mhi, 100 * ($mhi / $mlo - 1);
	}
}' "$param"
rc=0
json=$("$ps" validate "$dir" --json "$@") || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || exit "$rc"   # 3: blocked, still a report
printf '%s\n' "$json" | perl -MJSON::PP -e '
use strict; use warnings;
my $x = shift;
my $j = JSON::PP->new->decode(do { local $/; <STDIN> });
my $n = 0;
sub pct { defined $_[0] ? sprintf($_[1], 100 * $_[0]) : "-" }
for my $c (grep { $_->{check} eq "contention" && ($_->{parameter} // "") eq $x } @{$j->{checks}}) {
	printf "%-14s contention along %s %s: growth %s (p=%s), noise %s, flagged from %s (power %.0f%%)\n",
		"$c->{callpath} [$c->{metric}]", $x, $c->{status}, pct($c->{growth}, "%+.1f%%"),
		defined $c->{p_value} ? sprintf("%.2g", $c->{p_value}) : "-", pct($c->{noise}, "%.1f%%"),
		pct($c->{detectable_growth}, "%.1f%%"), 100 * $c->{power};
	$n++;
}
print "no contention check along $x (a parameter the dependencies exclude, or ranks per node)\n" unless $n;
' "$param"
