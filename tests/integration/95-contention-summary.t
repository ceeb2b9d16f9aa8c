#!/usr/bin/env bash
# scripts/contention-summary.sh on generated data of known truth: two lines
# (mib = 1, 2), p = 1 and 2, three repetitions each, +10% growth with p and
# a relative standard deviation of exactly 2% (then 10%) in every cell.
#   SE = sd * sqrt(4 * (1/3)) / 2 lines;  df = 4 cells * 2 = 8
#   t(0.995, 8) = 3.3554, z(0.8) = 0.8416
#   sd 2%:  3.87% at 50% power, 4.85% at 80%, flagged from 5% (--min-growth)
#   sd 10%: 19.37% and 24.23%
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
# sd of (0, +d, -d) relative: sqrt(2 d^2 / 2) = d
gen "$T/a.txt" 0.02
"$PS" import --text "$T/a.txt" --out "$T/a" --quiet > /dev/null 2>&1; is $? 0 "generated campaign imports"
out=$("$ROOT/scripts/contention-summary.sh" "$T/a" p); is $? 0 "contention-summary runs"
like "$out" "k              mib=1                             1          1.1   +10.0%" "growth of line mib=1: +10%"
like "$out" "k              mib=2                             2          2.2   +10.0%" "growth of line mib=2: +10%"
like "$out" "noise 2.0% (df 8); detectable growth at alpha 0.01: 3.9% (50% power), 4.8% (80%); flagged from 5.0%" \
	"2% noise: detectable 3.9% / 4.8%, below the 5% the validator flags from"
gen "$T/b.txt" 0.10
"$PS" import --text "$T/b.txt" --out "$T/b" --quiet > /dev/null 2>&1
out=$("$ROOT/scripts/contention-summary.sh" "$T/b" p)
like "$out" "noise 10.0% (df 8); detectable growth at alpha 0.01: 19.4% (50% power), 24.2% (80%); flagged from 24.2%" \
	"10% noise: detectable 19.4% / 24.2%"
out=$("$ROOT/scripts/contention-summary.sh" "$T/b" q 2>&1); rc=$?
ok $([ $rc -ne 0 ]; echo $?) "an unknown parameter is an error"
like "$out" "no parameter q" "naming it"
done_testing
