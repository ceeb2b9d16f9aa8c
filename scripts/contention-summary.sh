#!/usr/bin/env bash
# contention-summary.sh DIR [PARAM] [ALPHA] [MIN_GROWTH]: per region (metric
# "time", rank 0, else the whole run) and line of a campaign, the mean at each value of PARAM
# (default p: the ranks on the node), the growth from its smallest to its
# largest value, the noise (pooled relative standard deviation of the
# repetitions) and the smallest growth a test at ALPHA (0.01, two-sided)
# would find at that noise: t * SE at 50% power, (t + z_0.8) * SE at 80%,
# never below MIN_GROWTH (0.05, the validator's --min-growth).  It reads
# `perfsweep export DIR --format csv`; `perfsweep validate` gives the verdict,
# this gives the sensitivity behind a "passed".
set -euo pipefail
dir=${1:?usage: contention-summary.sh DIR [PARAM] [ALPHA] [MIN_GROWTH]}
param=${2:-p} alpha=${3:-0.01} ming=${4:-0.05}
ps=${PERFSWEEP:-perfsweep}
"$ps" export "$dir" --format csv | perl -e '
use strict; use warnings;
my ($x, $alpha, $ming) = @ARGV;
my $hdr = <STDIN>; chomp $hdr; my @h = split /,/, $hdr;
my %col; @col{@h} = 0 .. $#h;
defined $col{$x} or die "contention-summary: no parameter $x in the campaign\n";
my @line = grep { $_ ne $x } @h[2 .. $col{nodes} - 1];
# Rank 0, else the whole run (rank -1: imported data, or wall time only).
my (%byrank, %v, %regions);
while (<STDIN>) {
	chomp; my @f = split /,/;
	my $rank = $f[$col{rank}];
	next unless $f[$col{metric}] eq "time" && ($rank eq "0" || $rank eq "-1");
	(my $r = $f[$col{region}]) =~ s/"//g;
	my $l = join(" ", map { "$_=$f[$col{$_}]" } @line);
	push @{$byrank{$rank}{$r}{$l}{$f[$col{$x}]}}, $f[$col{value}];
	$regions{$r} = 1;
}
$v{$_} = $byrank{0}{$_} // $byrank{-1}{$_} for keys %regions;
# Quantile of the standard normal (Acklam) and Student t (Cornish-Fisher).
sub z { my $p = shift; my $q = $p < 0.5 ? $p : 1 - $p; my $t = sqrt(-2 * log($q));
	my $z = $t - (2.515517 + 0.802853 * $t + 0.010328 * $t * $t) / (1 + 1.432788 * $t + 0.189269 * $t * $t + 0.001308 * $t ** 3);
	return $p < 0.5 ? -$z : $z; }
sub tq { my ($p, $df) = @_; my $z = z($p);
	return $z + ($z ** 3 + $z) / (4 * $df) + (5 * $z ** 5 + 16 * $z ** 3 + 3 * $z) / (96 * $df ** 2)
	  + (3 * $z ** 7 + 19 * $z ** 5 + 17 * $z ** 3 - 15 * $z) / (384 * $df ** 3); }
sub mean { my $s = 0; $s += $_ for @_; $s / @_ }
printf "%-14s %-22s %12s %12s %8s\n", "region", "line", "$x=min", "$x=max", "growth";
for my $r (sort keys %regions) {
	my ($ss, $df, $inv, $nl) = (0, 0, 0, 0);
	for my $l (sort keys %{$v{$r}}) {
		my @xs = sort { $a <=> $b } keys %{$v{$r}{$l}};
		next if @xs < 2;
		my ($lo, $hi) = map { $v{$r}{$l}{$_} } $xs[0], $xs[-1];
		my ($mlo, $mhi) = (mean(@$lo), mean(@$hi));
		printf "%-14s %-22s %12.4g %12.4g %+7.1f%%\n", $r, $l, $mlo, $mhi, 100 * ($mhi / $mlo - 1);
		for my $c ($lo, $hi) {
			my $m = mean(@$c); next if @$c < 2 || $m <= 0;
			$ss += ($_ / $m - 1) ** 2 for @$c; $df += @$c - 1;
		}
		$inv += 1 / @$lo + 1 / @$hi; $nl++;
	}
	next unless $nl;
	if (!$df) { printf "%-14s noise unknown (one repetition)\n", $r; next }
	my $sd = sqrt($ss / $df);
	my $se = $sd * sqrt($inv) / $nl;        # SE of the mean relative growth over the lines
	my $t = tq(1 - $alpha / 2, $df);
	my ($d50, $d80) = ($t * $se, ($t + z(0.8)) * $se);
	printf "%-14s noise %.1f%% (df %d); detectable growth at alpha %g: %.1f%% (50%% power), %.1f%% (80%%); flagged from %.1f%%\n",
		$r, 100 * $sd, $df, $alpha, 100 * $d50, 100 * $d80, 100 * ($d80 > $ming ? $d80 : $ming);
}' "$param" "$alpha" "$ming"
