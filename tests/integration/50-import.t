#!/usr/bin/env bash
# perfsweep import: Score-P experiment directories and Extra-P files into a campaign store.
. "$(dirname "$0")/../lib/tap.sh"
L=$ROOT/tests/data/lulesh

out=$("$PS" import --cube "$L" --out "$T/lu" --deps "$L/lulesh.ll.json" 2>&1); is $? 0 "import --cube exits 0"
like "$out" "imported 25 runs at 25 points of lulesh (p, size): 12 call paths" "25 points, the full call tree"
like "$out" "9 of 12 regions matched" "the dependency file matches the 9 instrumented regions it covers"
like "$out" "unmatched region: MPI_Init" "unmatched regions are listed"
like "$out" "dependency functions are not in the profile" "and so are functions not in the profile"
"$PS" status "$T/lu" --json > "$T/st.json"; is $? 0 "status of the imported campaign"
is "$(json "$T/st.json" '$j->{done} . "/" . $j->{planned} . "/" . $j->{backend}')" "25/25/import" "25 done runs, backend import"

"$PS" export "$T/lu" --format csv > "$T/lu.csv"; is $? 0 "export csv of the import"
# the value of one call path equals the independent reference (tests/data/lulesh/expected.py) to 17 digits
cp='lulesh2.0->int main(int, char**)->void CalcTimeConstraintsForElems(Domain&)->void CalcHydroConstraintForElems(Domain&, Index_t, Index_t*, Real_t, Real_t&)'
hex=$(awk -F'\t' -v cp="$cp" '$1=="lulesh.p125.size35.r1" && $2=="time" && $3==cp {print $4}' "$L/expected.tsv")
want=$(printf '%.17g' "$hex")
got=$(grep -F ",125,35,0,0,-1,\"$cp\",time," "$T/lu.csv" | awk -F, '{print $NF}')
is "${got:-none}" "${want:-missing}" "CalcHydroConstraintForElems at p=125 size=35: the reference value"

# experiment-directory names: decimals, repetitions, errors
mkdir -p "$T/d/app.x1.5.r1" "$T/d/app.x1.5.r2" "$T/d/app.x2,5.r1"
for d in "$T"/d/*; do cp "$L/lulesh.p27.size25.r1/profile.cubex" "$d/"; done
"$PS" import --cube "$T/d" --out "$T/dc" --metrics visits --aggregate sum --quiet; is $? 0 "decimal values and repetitions import"
"$PS" export "$T/dc" --format csv > "$T/dc.csv"
is "$(grep -c ',1.5,0,0,-1,"lulesh2.0->int main(int, char\*\*)->MPI_Init",visits,27$' "$T/dc.csv")" 2 "two repetitions at x=1.5, summed visits"
is "$(grep -c ',2.5,0,0,-1,"lulesh2.0->int main(int, char\*\*)->MPI_Init",visits,27$' "$T/dc.csv")" 1 "x=2,5 reads as 2.5"

mkdir -p "$T/d/app.xfoo.r1"; cp "$L/lulesh.p27.size25.r1/profile.cubex" "$T/d/app.xfoo.r1/"
out=$("$PS" import --cube "$T/d" --out "$T/bad1" 2>&1); is $? 2 "an unparsable directory name exits 2"
like "$out" "'app.xfoo.r1': parameter 'xfoo' has no value" "and names the directory and the problem"
ok $([ ! -e "$T/bad1" ]; echo $?) "and creates no campaign"
rm -r "$T/d/app.xfoo.r1"

head -c 20000 "$L/lulesh.p27.size25.r1/profile.cubex" > "$T/d/app.x2,5.r1/profile.cubex"
out=$("$PS" import --cube "$T/d" --out "$T/bad2" 2>&1); is $? 2 "a truncated profile exits 2"
like "$out" "app.x2,5.r1/profile.cubex: truncated tar archive" "and names the file"
ok $([ ! -e "$T/bad2/campaign.db" ]; echo $?) "and writes no campaign"

out=$("$PS" import --cube "$L" --out "$T/lu" 2>&1); is $? 2 "importing over a campaign exits 2"
like "$out" "already holds a campaign" "and says why"
out=$("$PS" import --out "$T/x" 2>&1); is $? 2 "no source is a usage error"
like "$out" "usage: perfsweep import" "with the usage line"

# the same profile re-packed by GNU tar (pax, gnu with a long member name, v7) and gzip-compressed
mkdir -p "$T/x" && (cd "$T/x" && tar xf "$L/lulesh.p27.size25.r1/profile.cubex" && touch "$(printf 'n%.0s' $(seq 1 150)).txt")
i=0
for f in pax gnu v7 gz; do
	i=$((i + 1)); mkdir -p "$T/fmt/app.k$i"
	case $f in
	gz) (cd "$T/x" && tar --format=pax -cf - *) | gzip -c > "$T/fmt/app.k$i/profile.cubex" ;;
	v7) (cd "$T/x" && tar --format=v7 -cf "$T/fmt/app.k$i/profile.cubex" anchor.xml [0-9]*) ;;
	*) (cd "$T/x" && tar --format=$f -cf "$T/fmt/app.k$i/profile.cubex" *) ;;
	esac
done
"$PS" import --cube "$T/fmt" --out "$T/fmtc" --quiet; is $? 0 "pax, gnu (long names), v7 and gzip-compressed archives import"
"$PS" export "$T/fmtc" --format csv > "$T/fmt.csv"
is "$(grep -c ',-1,"lulesh2.0->int main(int, char\*\*)->MPI_Init",time,0.10256326448628393$' "$T/fmt.csv")" 4 "all four give the same MPI_Init time"

# Extra-P files
"$PS" import --text "$ROOT/tests/data/extrap-text/two_parameter_1.txt" --out "$T/tx" --quiet; is $? 0 "import --text"
"$PS" status "$T/tx" --json > "$T/tx.json"
ok $([ "$(json "$T/tx.json" '$j->{done}')" -gt 0 ]; echo $?) "text import has done runs"
printf '{"params": {"x": 1}, "callpath": "main", "metric": "time", "value": [1.5, 2.5]}\n{"params": {"x": 2}, "callpath": "main", "metric": "time", "value": 3}\n' > "$T/m.jsonl"
"$PS" import --jsonl "$T/m.jsonl" --out "$T/jl" --quiet; is $? 0 "import --jsonl"
"$PS" export "$T/jl" --format csv > "$T/jl.csv"
is "$(grep -c '"main",time,' "$T/jl.csv")" 3 "one run per repetition (2 at x=1, 1 at x=2)"
printf '{"parameters": ["x"], "measurements": {"main": {"time": [{"point": [1, 2], "values": [1]}]}}}' > "$T/bad.json"
out=$("$PS" import --json "$T/bad.json" --out "$T/bj" 2>&1); is $? 2 "a bad JSON file exits 2"
like "$out" "bad.json: measurements.\"main\".\"time\"[0].point: expected 1 coordinates" "with the JSON path"
"$PS" help import > "$T/h.txt"; is $? 0 "help import"
like "$(cat "$T/h.txt")" "[prefix.]<param><value>" "documents the directory names"
done_testing
