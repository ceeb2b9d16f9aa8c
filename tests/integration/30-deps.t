#!/usr/bin/env bash
# perfsweep deps: analysis of the shared dependency files and one error line per bad file.
ROOT=${PERFSWEEP_ROOT:-$(pwd)}
PS="${PERFSWEEP_BIN:-$ROOT/bin}/perfsweep"
DATA="$ROOT/tests/data"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-30.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
n=0; fail=0
check() { # check DESCRIPTION COMMAND...
	n=$((n + 1)); local d=$1; shift
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fail=1; fi
}
has() { # has FILE TEXT
	grep -qF -- "$2" "$1" || { echo "# '$1' lacks: $2"; sed 's/^/#   /' "$1" | head -20; return 1; }
}

"$PS" deps "$DATA/lulesh/lulesh.ll.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
check "lulesh: exit 0" test $rc -eq 0
check "lulesh: size row (46 functions, 48 loops)" grep -Eq '^size +46 +48  multiplicative$' "$TMP/out"
check "lulesh: regions row" grep -Eq '^regions +15 +15  multiplicative$' "$TMP/out"
check "lulesh: p row" grep -Eq '^p +15 +17  multiplicative$' "$TMP/out"
check "lulesh: the group" has "$TMP/out" "  size * regions * p"
check "lulesh: functions behind it" has "$TMP/out" "product term in 2 functions: CalcQForElems(Domain&), main"
check "lulesh: 304 constant functions" has "$TMP/out" "constant functions (no dependency, no need to model): 304"
check "lulesh: nothing pruned" has "$TMP/out" "pruned parameters (affect no loop; fixed at their baseline): none"

"$PS" deps "$DATA/lulesh/lulesh.ll.json" --params size,p >"$TMP/out" 2>&1
check "--params size,p: regions held fixed" grep -Eq '^regions +0 +0  held fixed' "$TMP/out"
check "--params size,p: group size * p" has "$TMP/out" "  size * p"

"$PS" deps "$DATA/perf-taint-unit/dataflow_multiple_deps.cpp.processed.json" >"$TMP/out" 2>&1
check "multiple_deps: global pruned" has "$TMP/out" "pruned parameters (affect no loop; fixed at their baseline): global"
"$PS" deps "$DATA/perf-taint-unit/dataflow_nested_loop.cpp.processed.json" >"$TMP/out" 2>&1
check "nested_loop: group x1 * x2" has "$TMP/out" "  x1 * x2"
check "nested_loop: constant perf_nest_unknown" has "$TMP/out" "  perf_nest_unknown(int, int)"

printf 'parameters = ["size", "iters"];\nfunctions = ( { name = "a"; deps = (["size"], ["iters"]); } );\n' >"$TMP/add.deps"
"$PS" deps "$TMP/add.deps" >"$TMP/out" 2>&1
check "native: additive-only parameters" has "$TMP/out" "additive-only parameters (one-parameter lines suffice): size, iters"
check "native: no groups" has "$TMP/out" "multiplicative groups (need combined points): none"

# bad files: exit 2 and exactly one error line naming the file and position
bad() { # bad NAME CONTENT EXPECTED
	printf '%b' "$2" >"$TMP/$1"
	"$PS" deps "$TMP/$1" >"$TMP/out" 2>"$TMP/err"; local rc=$?
	check "$1: exit 2" test $rc -eq 2
	check "$1: one error line" test "$(wc -l <"$TMP/err")" -eq 1
	check "$1: message" has "$TMP/err" "error: $TMP/$1$3"
}
bad empty.json '' ": file is empty"
bad truncated.json '{"parameters": ["m"], "functions": {"f": {"loops": [{"deps": [["m"' ":1:"
bad wrongtype.json '{"parameters": ["m"], "functions": {"f": {"loops": {}}}}' ': .functions["f"].loops: expected array, got object'
bad unknown.json '{"parameters": ["m"], "functions": {"f": {"loops": [{"deps": [["k"]]}]}}}' ": .functions[\"f\"].loops[0].deps[0][0]: unknown parameter 'k'"
bad unknown.deps 'parameters = ["m"];\nfunctions = (\n  { name = "f"; deps = (["m", "k"]); }\n);\n' ":3: unknown parameter 'k'"
bad truncated.deps 'parameters = ["m"];\nfunctions = (\n' ":3: syntax error"

"$PS" deps "$DATA/lulesh/lulesh.ll.json" --params size,iters >"$TMP/out" 2>"$TMP/err"; rc=$?
check "--params with an unknown name: exit 2" test $rc -eq 2
check "--params with an unknown name: message" has "$TMP/err" "error: parameter 'iters' is not in dependency file"
"$PS" deps >"$TMP/out" 2>"$TMP/err"; rc=$?
check "no file: usage error" test $rc -eq 2
check "no file: usage line" has "$TMP/err" "usage: perfsweep deps FILE"
echo "1..$n"
exit $fail
