#!/usr/bin/perl
# gen.pl SEED SCALE C0 C1 EXP REPS NOISE [PARAM]: Extra-P text, truth scale*(c0 + c1*n^exp)
use strict; use warnings;
my ($seed, $scale, $c0, $c1, $exp, $reps, $noise, $param) = @ARGV;
$param //= "n";
srand($seed);
my @n = (8, 16, 32, 64, 128);
print "PARAMETER $param\nPOINTS @n\nREGION main->solve\nMETRIC time\n";
for my $x (@n) {
	my $t = $scale * ($c0 + $c1 * $x ** $exp);
	my @v;
	for (1 .. $reps) {
		my $g = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand());
		push @v, sprintf("%.9g", $t * (1 + $noise * $g));
	}
	print "DATA @v\n";
}
