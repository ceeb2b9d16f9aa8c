#!/usr/bin/env bash
# perfsweep deps: analysis of the shared dependency files and one error line per bad file.
. "$(dirname "$0")/../lib/tap.sh"
DATA="$ROOT/tests/data"

"$PS" deps "$DATA/lulesh/lulesh.ll.json" >"$T/out" 2>"$T/err"; rc=$?
is "$rc" 0 "lulesh: exit 0"
grep -Eq '^size +46 +48  multiplicative$' "$T/out"; ok $? "lulesh: size row (46 functions, 48 loops)"
grep -Eq '^regions +15 +15  multiplicative$' "$T/out"; ok $? "lulesh: regions row"
grep -Eq '^p +15 +17  multiplicative$' "$T/out"; ok $? "lulesh: p row"
like "$(cat "$T/out")" "  size * regions * p" "lulesh: the group"
like "$(cat "$T/out")" "product term in 2 functions: CalcQForElems(Domain&), main" "lulesh: functions behind it"
like "$(cat "$T/out")" "constant functions (no dependency, no need to model): 304" "lulesh: 304 constant functions"
like "$(cat "$T/out")" "pruned parameters (affect no loop; fixed at their baseline): none" "lulesh: nothing pruned"

"$PS" deps "$DATA/lulesh/lulesh.ll.json" --params size,p >"$T/out" 2>&1
grep -Eq '^regions +0 +0  held fixed' "$T/out"; ok $? "--params size,p: regions held fixed"
like "$(cat "$T/out")" "  size * p" "--params size,p: group size * p"

"$PS" deps "$DATA/perf-taint-unit/dataflow_multiple_deps.cpp.processed.json" >"$T/out" 2>&1
like "$(cat "$T/out")" "pruned parameters (affect no loop; fixed at their baseline): global" "multiple_deps: global pruned"
"$PS" deps "$DATA/perf-taint-unit/dataflow_nested_loop.cpp.processed.json" >"$T/out" 2>&1
like "$(cat "$T/out")" "  x1 * x2" "nested_loop: group x1 * x2"
like "$(cat "$T/out")" "  perf_nest_unknown(int, int)" "nested_loop: constant perf_nest_unknown"

printf 'parameters = ["size", "iters"];\nfunctions = ( { name = "a"; deps = (["size"], ["iters"]); } );\n' >"$T/add.deps"
"$PS" deps "$T/add.deps" >"$T/out" 2>&1
like "$(cat "$T/out")" "additive-only parameters (one-parameter lines suffice): size, iters" "native: additive-only parameters"
like "$(cat "$T/out")" "multiplicative groups (need combined points): none" "native: no groups"

# bad files: exit 2 and exactly one error line naming the file and position
bad() { # bad NAME CONTENT EXPECTED
	printf '%b' "$2" >"$T/$1"
	"$PS" deps "$T/$1" >"$T/out" 2>"$T/err"; local rc=$?
	is "$rc" 2 "$1: exit 2"
	is "$(wc -l <"$T/err")" 1 "$1: one error line"
	like "$(cat "$T/err")" "error: $T/$1$3" "$1: message"
}
bad empty.json '' ": file is empty"
bad truncated.json '{"parameters": ["m"], "functions": {"f": {"loops": [{"deps": [["m"' ":1:"
bad wrongtype.json '{"parameters": ["m"], "functions": {"f": {"loops": {}}}}' ': .functions["f"].loops: expected array, got object'
bad unknown.json '{"parameters": ["m"], "functions": {"f": {"loops": [{"deps": [["k"]]}]}}}' ": .functions[\"f\"].loops[0].deps[0][0]: unknown parameter 'k'"
bad unknown.deps 'parameters = ["m"];\nfunctions = (\n  { name = "f"; deps = (["m", "k"]); }\n);\n' ":3: unknown parameter 'k'"
bad truncated.deps 'parameters = ["m"];\nfunctions = (\n' ":3: syntax error"

"$PS" deps "$DATA/lulesh/lulesh.ll.json" --params size,iters >"$T/out" 2>"$T/err"; rc=$?
is "$rc" 2 "--params with an unknown name: exit 2"
like "$(cat "$T/err")" "error: parameter 'iters' is not in dependency file" "--params with an unknown name: message"
"$PS" deps >"$T/out" 2>"$T/err"; rc=$?
is "$rc" 2 "no file: usage error"
like "$(cat "$T/err")" "usage: perfsweep deps FILE" "no file: usage line"
done_testing
