#!/usr/bin/env bash
# perfsweep validate on the real LULESH profiles (Piz Daint, p x size, one
# repetition each) with Perf-Taint's lulesh.ll.json: every region whose
# black-box model uses a parameter its dependencies exclude is listed, and
# each listing says whether the cause is contention or noise.
set -u
ROOT=${PERFSWEEP_ROOT:-$(pwd)}
PS="${PERFSWEEP_BIN:-$ROOT/bin}/perfsweep"
L="$ROOT/tests/data/lulesh"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-62.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0; failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
is() { [ "$1" = "$2" ] && return 0; echo "#   got: '$1'"; echo "#   expected: '$2'"; return 1; }

"$PS" validate "$L" --deps "$L/lulesh.ll.json" --json >"$T/out.json" 2>"$T/err"
rc=$?
is "$rc" 3; ok $? "LULESH is blocked (exit 3)"
is "$(cat "$T/err")" ""; ok $? "no error output"

# From the report's own regions: parameters each black-box model uses that its
# dependencies exclude (the independent expectation), against the flags.
perl -MJSON::PP -e '
	local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
	my (%expect, %flag, %cause, %contention);
	for my $r (@{$j->{regions}}) {
		next unless defined $r->{dependencies} && defined $r->{model};
		my %allowed = map { $_ => 1 } map { @$_ } @{$r->{dependencies}};
		my %used = map { $_ => 1 } ($r->{model} =~ /\b(p|size)\^\(/g, $r->{model} =~ /log2\((p|size)\)/g);
		$expect{"$r->{callpath} $_"} = 1 for grep { !$allowed{$_} } keys %used;
	}
	for my $x (@{$j->{flags}}) {
		my $k = "$x->{callpath} " . ($x->{parameter} // "");
		if ($x->{kind} eq "false-dependency") {
			$flag{$k} = 1;
			($cause{$k}) = $x->{detail} =~ /cause: (contention|noise)/;
		}
		$contention{$k} = 1 if $x->{kind} eq "contention";
	}
	my @e = sort keys %expect; my @f = sort keys %flag;
	print scalar(@e), "\n", join("|", @e), "\n", join("|", @f), "\n";
	my $bad = 0;
	for my $k (@f) {
		$bad++ unless defined $cause{$k};
		$bad++ if ($cause{$k} // "") eq "contention" && !$contention{$k};
		$bad++ if ($cause{$k} // "") eq "noise" && $contention{$k};
	}
	print "$bad\n";
	for my $k (@f) { my ($leaf) = $k =~ /([^>]*)$/; print "# $leaf: $cause{$k}\n" }
' "$T/out.json" >"$T/check" 2>"$T/perr"
ok $? "report parses"
nexp=$(sed -n 1p "$T/check")
[ "${nexp:-0}" -gt 0 ]; ok $? "some black-box models use excluded parameters ($nexp)"
is "$(sed -n 3p "$T/check")" "$(sed -n 2p "$T/check")"; ok $? "exactly those regions are flagged as false dependencies"
is "$(sed -n 4p "$T/check")" 0; ok $? "each says contention or noise, consistent with the contention flags"
sed -n '5,$p' "$T/check"

# The text report names them too, with their cause, and notes unmatched regions.
"$PS" validate "$L" --deps "$L/lulesh.ll.json" >"$T/out.txt" 2>&1
grep -q "false-dependency: uses p, cause " "$T/out.txt"; ok $? "text lists false dependencies on p with a cause"
grep -q "^note: .* without dependency information" "$T/out.txt"; ok $? "text notes regions without dependencies"

# Without dependencies there is nothing to contradict: only ranks per node could flag.
"$PS" validate "$L" --json >"$T/nodeps.json" 2>&1
is "$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); print scalar @{$j->{flags}}' <"$T/nodeps.json")" 0
ok $? "no flags without a dependency file (one repetition: no noise test; no ranks per node)"

echo "1..$n"
[ "$failed" = 0 ]
