#!/bin/sh
# The disturbed check's known truth (docs/validation.md, "Disturbed runs"):
# a program that computes for a fixed amount of CPU time, 0.001 n^2 s, and
# reports the wall time that took, one rank bound to the last core (other
# campaigns' compact placements on a shared machine start at core 0).  Each of N
# pairs of campaigns is
#   - a campaign whose even repetitions run with a busy loop on the same
#     core (the rank gets half of it: CPU share ~0.5, twice the wall time),
#   - and its twin, run right after it without one.
# For each pair it prints: the competing runs the disturbed check flagged
# (of how many, their CPU shares), each campaign's model (perfsweep model:
# disturbed runs left out), whether the two models have the same terms, and
# each coefficient of the competing campaign against its twin's: the
# difference and whether it lies within the 95% confidence interval of the
# difference (least squares over the kept repetitions, with the terms the
# models chose, t quantile of the pooled degrees of freedom); and the same
# coefficients with every run kept (what leaving them out removed).
#
#   scripts/disturbed-twins.sh [N] [BINDIR] [OUTDIR]
#
# QUIET_WAIT and QUIET_IDLE as in scripts/verdict-campaigns.sh (default: no
# wait); the figures in docs were taken with QUIET_IDLE=45 QUIET_WAIT=60.
# CONTROL=1 runs the first campaign of each pair without its busy loop too:
# two undisturbed twins, which tells how often the comparison calls two
# campaigns of one undisturbed truth different.
set -e
N=${1:-10}
BIN=$(cd "${2:-bin}" && pwd)
OUT=${3:-build/disturbed-twins}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

cat > "$OUT/cpu-app" <<'PL'
#!/usr/bin/perl
# cpu-app N: compute until this process has used 0.001 N^2 s of CPU time;
# print the wall time that took ("time: S").  Alone on its core that is the
# CPU time; beside a busy loop on the same core about twice it.
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC CLOCK_PROCESS_CPUTIME_ID);
my $t = 0.001 * $ARGV[0] ** 2;
my ($c0, $w0) = (clock_gettime(CLOCK_PROCESS_CPUTIME_ID), clock_gettime(CLOCK_MONOTONIC));
my $x = 0;
while (clock_gettime(CLOCK_PROCESS_CPUTIME_ID) - $c0 < $t) {
	$x += sqrt($x + $_) for 1 .. 1000;
}
printf "time: %.6f\n", clock_gettime(CLOCK_MONOTONIC) - $w0;
PL
cat > "$OUT/compete.sh" <<'SH'
#!/bin/sh
# compete.sh APP ARGS...: run APP; on even repetitions with a busy loop on
# the run's own core (it inherits the binding), started outside APP's
# process tree so that its CPU time is not the rank's
if [ -n "$COMPETE" ] && [ $((PERFSWEEP_REPETITION % 2)) -eq 0 ]; then
	(timeout 120 sh -c 'while :; do :; done' & echo $! > "$PERFSWEEP_RUN_DIR/competitor.pid")
fi
"$@"
rc=$?
# and gone before this run ends, so that it takes nothing of the next run
# on the same core: timeout exits once its busy loop has, and then stays a
# zombie until it is reaped (kill -0 would wait for that: seconds)
if [ -f "$PERFSWEEP_RUN_DIR/competitor.pid" ]; then
	pid=$(cat "$PERFSWEEP_RUN_DIR/competitor.pid")
	kill "$pid" 2> /dev/null
	while s=$(cut -d' ' -f3 "/proc/$pid/stat" 2> /dev/null) && [ "$s" != Z ]; do sleep 0.01; done
fi
exit $rc
SH
chmod +x "$OUT/cpu-app" "$OUT/compete.sh"
# the rank on the last core: other campaigns' compact placements start at core 0
echo "$(($(nproc) - 1))" > "$OUT/core.map"
# n from 10 (0.1 s: a shorter record is not judged) to 40 (1.6 s): over a
# factor of 4 the PMNF terms n^2 and n^(3/2) log2(n)^2 differ by 28% (over
# the factor of 2 of 16..32 by 10%, which the twins told apart only 5 times in 6)
cfg() {  # cfg NAME COMPETE
	cat > "$OUT/$1.cfg" <<CFG
name = "$1";
app = { command = [ "$OUT/compete.sh", "$OUT/cpu-app", "{n}" ]; env = [ "COMPETE=$2" ]; timeout = 120.0; };
parameters = ( { name = "n"; values = [ 10, 14, 20, 28, 40 ]; },
               { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "explicit"; map = "core.map"; ranks_per_node = [ 1 ]; };
repetitions = 4;
order_seed = 5;
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time: ([0-9.eE+-]+)"; } ); };
CFG
}
if [ -n "$CONTROL" ]; then cfg compete ""; else cfg compete 1; fi
cfg twin ""

. "$(dirname "$0")/quiet.sh"

echo "# disturbed twins x $N, $(date -u '+%F %H:%M UTC')"
for k in $(seq "$N"); do
	wait_quiet
	before=$(cut -d' ' -f1-3 /proc/loadavg)
	for c in compete twin; do
		D=$OUT/$k.$c
		rm -rf "$D"
		"$BIN/perfsweep" run "$OUT/$c.cfg" --dir "$D" --quiet > "$D.run" 2>&1 || true
		"$BIN/perfsweep" validate "$D" --json > "$D.json" 2> /dev/null || true
		"$BIN/perfsweep" model "$D" --json > "$D.model" 2> /dev/null || true
		"$BIN/perfsweep" export "$D" --format csv > "$D.csv" 2> /dev/null || true
	done
	after=$(cut -d' ' -f1-3 /proc/loadavg)
	printf '%s: waited %ss, idle %s%%, load %s -> %s: ' "$k" "$waited" "$quiet" "$before" "$after"
	perl -MJSON::PP -e '
		use strict;
		use warnings;
		my ($out, $k) = @ARGV;
		sub slurp { local $/; open my $fh, "<", $_[0] or return undef; my $s = <$fh>; $s }
		sub js { my $s = slurp($_[0]); defined $s && length $s ? decode_json($s) : undef }
		# t quantile 0.975 for df degrees of freedom (Cornish-Fisher, exact enough from df 5)
		sub t975 { my $d = shift; my $z = 1.959964; $z + ($z**3 + $z) / (4 * $d) + (5 * $z**5 + 16 * $z**3 + 3 * $z) / (96 * $d**2) }
		# the kept repetition values: [n, value, run, repetition]
		sub rows {
			my ($c, $gone) = @_;
			open my $fh, "<", "$out/$k.$c.csv" or return ();
			<$fh>;
			my @r;
			while (<$fh>) {
				my @f = /("[^"]*"|[^,]*)(?:,|$)/g;    # run 0, repetition 1, n 2, np 3, ..., value 9
				next if $gone->{$f[0]};
				push @r, [ $f[2], $f[9], $f[0], $f[1] ];
			}
			@r;
		}
		# least squares of values on the columns [1, terms...]: coefficients and standard errors
		sub fit {
			my ($terms, @r) = @_;
			my @X = map { my $n = $_->[0]; [ 1, map { $n ** $_->[0] * (log($n) / log(2)) ** $_->[1] } @$terms ] } @r;
			my @y = map { $_->[1] } @r;
			my $p = @{$X[0]};
			my (@A, @b);
			for my $i (0 .. $p - 1) {
				$b[$i] = 0;
				$b[$i] += $X[$_][$i] * $y[$_] for 0 .. $#y;
				for my $j (0 .. $p - 1) { $A[$i][$j] = 0; $A[$i][$j] += $X[$_][$i] * $X[$_][$j] for 0 .. $#y; }
			}
			# invert A (Gauss-Jordan)
			my @I = map { my $i = $_; [ map { $_ == $i ? 1 : 0 } 0 .. $p - 1 ] } 0 .. $p - 1;
			for my $c (0 .. $p - 1) {
				my $piv = $A[$c][$c];
				return () if abs($piv) < 1e-300;
				for my $j (0 .. $p - 1) { $A[$c][$j] /= $piv; $I[$c][$j] /= $piv; }
				for my $r (0 .. $p - 1) {
					next if $r == $c;
					my $f = $A[$r][$c];
					for my $j (0 .. $p - 1) { $A[$r][$j] -= $f * $A[$c][$j]; $I[$r][$j] -= $f * $I[$c][$j]; }
				}
			}
			my @beta = map { my $i = $_; my $s = 0; $s += $I[$i][$_] * $b[$_] for 0 .. $p - 1; $s } 0 .. $p - 1;
			my $rss = 0;
			for my $i (0 .. $#y) { my $f = 0; $f += $X[$i][$_] * $beta[$_] for 0 .. $p - 1; $rss += ($y[$i] - $f) ** 2; }
			my $df = @y - $p;
			return () if $df < 1;
			my $s2 = $rss / $df;
			return ([ @beta ], [ map { sqrt($s2 * $I[$_][$_]) } 0 .. $p - 1 ], $df);
		}
		my (%v, %m, %gone);
		for my $c (qw(compete twin)) {
			$v{$c} = js("$out/$k.$c.json");
			$m{$c} = js("$out/$k.$c.model");
			$gone{$c} = { map { $_->{run} => 1 } @{$v{$c}{disturbed}{runs} || []} };
		}
		# the competing runs: even repetitions of the competing campaign
		my @comp = grep { $_->[3] % 2 == 0 } rows("compete", {});
		my %seen;
		@comp = grep { !$seen{$_->[2]}++ } @comp;
		my @flag = grep { $gone{compete}{$_->[2]} } @comp;
		my %share = map { $_->{run} => $_->{cpu_share} } @{$v{compete}{disturbed}{runs} || []};
		my @sh = sort { $a <=> $b } map { $share{$_->[2]} } @flag;
		my @other = grep { $_->[3] % 2 == 1 && $gone{compete}{$_->[2]} } rows("compete", {});
		printf "competing runs flagged %d of %d (CPU share %.2f-%.2f), other runs flagged %d; twin runs flagged %d; ",
			scalar @flag, scalar @comp, $sh[0] // -1, $sh[-1] // -1, scalar @other, scalar keys %{$gone{twin}};
		my ($mc, $mt) = map { $m{$_} && @{$m{$_}} ? $m{$_}[0] : undef } qw(compete twin);
		unless ($mc && $mt) { print "no model\n"; exit }
		my $form = sub { join " + ", "c", map { my $f = $_->{factors}[0]; "n^$f->{poly_exponent}" . ($f->{log_exponent} ? "*log^$f->{log_exponent}" : "") } @{$_[0]{terms}} };
		my ($fc, $ft) = ($form->($mc), $form->($mt));
		printf "models %s | %s: %s; ", $mc->{model}, $mt->{model}, $fc eq $ft ? "same terms" : "DIFFERENT terms";
		my @terms = map { [ $_->{factors}[0]{poly_exponent}, $_->{factors}[0]{log_exponent} ] } @{$mt->{terms}};
		my ($bc, $sc, $dc) = fit(\@terms, rows("compete", $gone{compete}));
		my ($bt, $st, $dt) = fit(\@terms, rows("twin", $gone{twin}));
		my ($ba) = fit(\@terms, rows("compete", {}));
		unless ($bc && $bt && $ba) { print "no fit\n"; exit }
		my $t = t975($dc + $dt);
		my @out;
		my $all = 1;
		for my $i (0 .. $#$bt) {
			my $d = $bc->[$i] - $bt->[$i];
			my $ci = $t * sqrt($sc->[$i] ** 2 + $st->[$i] ** 2);
			my $in = abs($d) <= $ci;
			$all &&= $in;
			push @out, sprintf "%s %.4g vs %.4g (%+.2f%%, CI of the difference +-%.4g: %s; all runs kept %+.1f%%)",
				$i ? "n-term" : "constant", $bc->[$i], $bt->[$i], $bt->[$i] ? 100 * $d / abs($bt->[$i]) : 0, $ci,
				$in ? "within" : "OUTSIDE", $bt->[$i] ? 100 * ($ba->[$i] - $bt->[$i]) / abs($bt->[$i]) : 0;
		}
		printf "%s; %s\n", join("; ", @out), $fc eq $ft && $all ? "SAME MODEL" : "NOT the same";
	' "$OUT" "$k"
done
