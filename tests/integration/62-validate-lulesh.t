#!/usr/bin/env bash
# perfsweep validate on the real LULESH profiles (Piz Daint, p x size, one
# repetition each) with Perf-Taint's lulesh.ll.json: every region whose
# black-box model uses a parameter its dependencies exclude is listed, and
# each listing says whether the cause is contention or noise.
. "$(dirname "$0")/../lib/tap.sh"
set -u
L="$ROOT/tests/data/lulesh"

"$PS" validate "$L" --deps "$L/lulesh.ll.json" --json >"$T/out.json" 2>"$T/err"
rc=$?
is "$rc" 3 "LULESH is blocked (exit 3)"
is "$(cat "$T/err")" "" "no error output"

# From the report's own regions: parameters each black-box model uses that its
# dependencies exclude (the independent expectation), against the listing and
# the flags.
perl -MJSON::PP -e '
	local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
	my (%expect, %listed, %flag, %cause, %contention, $bad);
	for my $r (@{$j->{regions}}) {
		for my $x (@{$r->{excluded_parameters}}) {
			my $k = "$r->{callpath} $x->{parameter}";
			$listed{$k} = $x->{cause};
			$bad++ if $x->{flagged} != ($x->{effect} >= 0.05);
		}
		next unless defined $r->{dependencies} && defined $r->{model};
		my %allowed = map { $_ => 1 } map { @$_ } @{$r->{dependencies}};
		my %used = map { $_ => 1 } ($r->{model} =~ /\b(p|size)\^\(/g, $r->{model} =~ /log2\((p|size)\)/g);
		$expect{"$r->{callpath} $_"} = 1 for grep { !$allowed{$_} } keys %used;
	}
	for my $x (@{$j->{flags}}) {
		my $k = "$x->{callpath} " . ($x->{parameter} // "");
		if ($x->{kind} eq "false-dependency") {
			$flag{$k} = 1;
			($cause{$k}) = $x->{detail} =~ /cause: (contention|noise|speedup)/;
			$bad++ unless ($cause{$k} // "") eq ($listed{$k} // "-");
		}
		$contention{$k} = 1 if $x->{kind} eq "contention";
	}
	for my $k (keys %listed) {
		$bad++ if ($listed{$k} eq "contention") != !!$contention{$k};
	}
	my @e = sort keys %expect; my @l = sort keys %listed;
	print scalar(@e), "\n", join("|", @e), "\n", join("|", @l), "\n", $bad // 0, "\n", scalar(keys %flag), "\n";
	for my $k (@l) { my ($leaf) = $k =~ /([^>]*)$/; print "# $leaf: $listed{$k}", ($flag{$k} ? "" : " (not flagged)"), "\n" }
' "$T/out.json" >"$T/check" 2>"$T/perr"
ok $? "report parses"
nexp=$(sed -n 1p "$T/check")
[ "${nexp:-0}" -gt 0 ]; ok $? "some black-box models use excluded parameters ($nexp)"
is "$(sed -n 3p "$T/check")" "$(sed -n 2p "$T/check")" "exactly those are listed with a cause"
is "$(sed -n 4p "$T/check")" 0 "causes are contention/noise/speedup, consistent with the flags"
[ "$(sed -n 5p "$T/check")" -gt 0 ]; ok $? "those that change the model by 5% or more are flagged"
sed -n '6,$p' "$T/check"

# The text report names them too, with their cause, and notes unmatched regions.
"$PS" validate "$L" --deps "$L/lulesh.ll.json" >"$T/out.txt" 2>&1
grep -q "false-dependency: uses p, cause " "$T/out.txt"; ok $? "text lists false dependencies on p with a cause"
grep -q "^note: .* without dependency information" "$T/out.txt"; ok $? "text notes regions without dependencies"

# Without dependencies there is nothing to contradict: only ranks per node could flag.
"$PS" validate "$L" --json >"$T/nodeps.json" 2>&1
is "$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); print scalar @{$j->{flags}}' <"$T/nodeps.json")" 0 "no flags without a dependency file (one repetition: no noise test; no ranks per node)"

# The same profiles imported into a campaign store give the same report.
if "$PS" import --cube "$L" --out "$T/camp" --quiet >"$T/imp.out" 2>&1; then
	"$PS" validate "$T/camp" --deps "$L/lulesh.ll.json" --json >"$T/camp.json" 2>&1
	cmp -s "$T/camp.json" "$T/out.json"; ok $? "imported campaign: the same JSON report"
else
	sed 's/^/# /' "$T/imp.out" >&2; ok 1 "import the LULESH profiles"
fi

done_testing
