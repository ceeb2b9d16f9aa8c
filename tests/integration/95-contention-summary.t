#!/usr/bin/env bash
# scripts/contention-summary.sh on generated data of known truth: two lines
# (mib = 1, 2), p = 1 and 2, three repetitions each (the mean, +d, -d), +10%
# growth with p; the dependencies exclude p, so the validator's contention
# check runs along p.  By hand, per line normalised by its level (1.05):
#   slope b = 0.1 / 1.05, growth b / (1 - b/2) = +10.0%
#   residual SD of the slope fit sqrt(8.84 d^2 / 1.1025 / 9) = 0.944 d (df 9)
#   d = 2%:  noise 1.9%;  d = 10%: noise 9.4%
# The smallest growth flagged at 80% power (docs/validation.md): the larger
# of the slope test's sqrt(lambda(1, 9)) * se(b) and the ANOVA's
# sqrt(lambda(2, 8) / Sxx) * s_within, Sxx = 3, s_within = 1.001 d, with
# lambda(1, 9) = 17.74, lambda(2, 8) = 26.27 (noncentrality at 80% power,
# alpha 0.01; tests/unit/test_power.c checks them by simulation): the ANOVA's
# b = 2.962 d, so 6.1% at d = 2% (+10% flagged) and 34.8% at d = 10% (+10%
# passes: within the noise).
. "$(dirname "$0")/../lib/tap.sh"
export PERFSWEEP=$PS
gen() {  # gen FILE D: deviations +-D around each mean
	cat > "$1" <<TXT
PARAMETER mib
PARAMETER p
POINTS (1 1) (1 2) (2 1) (2 2)

REGION k
METRIC time
DATA 1 $(awk -v d="$2" 'BEGIN { print 1 + d }') $(awk -v d="$2" 'BEGIN { print 1 - d }')
DATA 1.1 $(awk -v d="$2" 'BEGIN { print 1.1 * (1 + d) }') $(awk -v d="$2" 'BEGIN { print 1.1 * (1 - d) }')
DATA 2 $(awk -v d="$2" 'BEGIN { print 2 * (1 + d) }') $(awk -v d="$2" 'BEGIN { print 2 * (1 - d) }')
DATA 2.2 $(awk -v d="$2" 'BEGIN { print 2.2 * (1 + d) }') $(awk -v d="$2" 'BEGIN { print 2.2 * (1 - d) }')
TXT
}
cat > "$T/k.deps" <<'DEPS'
parameters = [ "mib", "p" ];
functions = ( { name = "k"; deps = ( [ "mib" ] ); } );
DEPS
gen "$T/a.txt" 0.02
"$PS" import --text "$T/a.txt" --out "$T/a" --quiet > /dev/null 2>&1; is $? 0 "generated campaign imports"
out=$("$ROOT/scripts/contention-summary.sh" "$T/a" p --deps "$T/k.deps"); is $? 0 "contention-summary runs"
like "$out" "k              mib=1                             1          1.1   +10.0%" "growth of line mib=1: +10%"
like "$out" "k              mib=2                             2          2.2   +10.0%" "growth of line mib=2: +10%"
like "$out" "k [time]       contention along p flagged: growth +10.0% (p=" "2% noise: the validator flags +10%"
like "$out" "noise 1.9%, flagged from 6.1% (power 80%)" "2% noise: flagged from 6.1%"
gen "$T/b.txt" 0.10
"$PS" import --text "$T/b.txt" --out "$T/b" --quiet > /dev/null 2>&1
out=$("$ROOT/scripts/contention-summary.sh" "$T/b" p --deps "$T/k.deps")
like "$out" "k [time]       contention along p passed: growth +10.0% (p=" "10% noise: +10% passes"
like "$out" "noise 9.4%, flagged from 34.8% (power 80%)" "10% noise: flagged only from 34.8%"
# the same figures as the validator's own JSON
"$PS" validate "$T/b" --deps "$T/k.deps" --json > "$T/b.json"
is "$(json "$T/b.json" 'my ($c) = grep { $_->{check} eq "contention" } @{$j->{checks}};
	sprintf "%s %.3f %.4f %.3f %.1f", $c->{status}, $c->{growth}, $c->{noise}, $c->{detectable_growth}, $c->{power}')" \
	"passed 0.100 0.0944 0.348 0.8" "validate --json: the contention check's growth, noise, detectable growth, power"
out=$("$ROOT/scripts/contention-summary.sh" "$T/b" p 2>&1)
like "$out" "no contention check along p" "without dependencies, no contention check along a program parameter"
out=$("$ROOT/scripts/contention-summary.sh" "$T/b" q 2>&1); rc=$?
ok $([ $rc -ne 0 ]; echo $?) "an unknown parameter is an error"
like "$out" "no parameter q" "naming it"
done_testing
