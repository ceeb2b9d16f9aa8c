#!/usr/bin/env bash
# The command line's fixed texts: for every line of tests/data/cli/cases.txt
# (help, usage errors, bad option values) the exact stdout, stderr and exit
# code recorded in tests/data/cli/expected.txt.  PERFSWEEP_REGEN=1 rewrites
# expected.txt from the current binary (review the diff before committing).
. "$(dirname "$0")/../lib/tap.sh"
CASES=$ROOT/tests/data/cli/cases.txt
EXPECTED=$ROOT/tests/data/cli/expected.txt

cd "$T" || exit 1
mkdir d got want
printf 'not a data file\n' > f.txt
: > e.json

# run_case LINE: one block "$ perfsweep LINE", [stdout], [stderr], [exit N]
run_case() {
	local line=$1 rc
	eval "set -- $line"
	"$PS" "$@" > out.txt 2> err.txt < /dev/null
	rc=$?
	printf '$ perfsweep %s\n[stdout]\n' "$line"
	cat out.txt
	printf '[stderr]\n'
	cat err.txt
	printf '[exit %d]\n' "$rc"
}

n=0
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	n=$((n + 1))
	run_case "$line" > "got/$n"
	printf '%s\n' "$line" > "got/$n.line"
done < "$CASES"

if [ -n "$PERFSWEEP_REGEN" ]; then
	for i in $(seq 1 "$n"); do cat "got/$i"; done > "$EXPECTED"
	echo "# rewrote $EXPECTED ($n cases)"
fi

# split expected.txt into one file per case
awk -v dir=want '/^\$ perfsweep /{ f = dir "/" ++k } { print > f }' "$EXPECTED"
is "$(ls want | wc -l)" "$n" "expected.txt holds one block per case"
for i in $(seq 1 "$n"); do
	line=$(cat "got/$i.line")
	if cmp -s "got/$i" "want/$i"; then
		ok 0 "perfsweep $line"
	else
		ok 1 "perfsweep $line"
		diff -u "want/$i" "got/$i" | sed 's/^/#   /'
	fi
done
done_testing
