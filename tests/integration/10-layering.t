#!/usr/bin/env bash
# The include layering (tests/lib/layering.sh): the tree's own includes all
# point down cli -> tui -> refine -> orchestrator -> analysis -> campaign -> validator -> models -> collectors
# -> designs, placement -> common; and the checker fails on small generated
# trees with an upward, a sideways (peer) or an unknown-folder include.
. "$(dirname "$0")/../lib/tap.sh"
CHECK=$ROOT/tests/lib/layering.sh

out=$("$CHECK" "$ROOT" 2>&1); rc=$?
is "$rc" 0 "every #include \"folder/...\" outside tests/ points down the layering"
[ "$rc" -eq 0 ] || echo "$out" | sed 's/^/#   /'
graph=$("$CHECK" --graph "$ROOT")
like "$graph" "cli -> orchestrator" "--graph prints the folder -> folder counts"
is "$(echo "$graph" | awk '{print $1 " " $3}' | awk '{ if (($2 " " $1) in seen) print; seen[$1 " " $2] = 1 }' | wc -l)" 0 \
	"no two folders include each other"

# a small tree: mk FILE INCLUDE...
mk() {
	local f=$1; shift
	mkdir -p "$(dirname "$f")"
	: > "$f"
	for inc in "$@"; do printf '#include "%s"\n' "$inc" >> "$f"; done
}
good=$T/good
mk "$good/cli/cmd_x.c" "cli/cli.h" "tui/top.h" "common/error.h"
mk "$good/tui/top.c" "campaign/store.h" "validator/noise.h" "refine/refine.h"
mk "$good/refine/refine.c" "orchestrator/runner.h" "analysis/input.h"
mk "$good/orchestrator/local/supervisor.c" "orchestrator/backend.h" "analysis/run_usage.h" "campaign/store.h"
mk "$good/campaign/store.c" "collectors/experiment.h" "designs/plan.h"
mk "$good/models/pmnf.c" "collectors/experiment.h"
mk "$good/placement/bind.c" "common/xalloc.h"
mk "$good/tests/unit/t.c" "cli/cli.h" "tests/lib/tap.h"
mk "$good/examples/demo.c" "cli/cli.h"
"$CHECK" "$good" > "$T/good.out" 2>&1; is $? 0 "a tree that only includes downward passes"
is "$(cat "$T/good.out")" "" "and prints nothing"

# bad NAME FILE INCLUDE MESSAGE WHAT: the good tree plus FILE including INCLUDE fails with MESSAGE
bad() {
	local tree=$T/$1
	cp -r "$good" "$tree"
	mkdir -p "$(dirname "$tree/$2")"
	printf '  #  include "%s"\n' "$3" >> "$tree/$2"
	out=$("$CHECK" "$tree" 2>&1); is $? 1 "$5 fails"
	like "$out" "$4" "and says so"
}
bad up campaign/store.c tui/top.h "campaign/store.c:3: campaign includes tui, a folder above it" \
	"an upward include"
like "$out" "campaign and tui include each other" "the cycle is named too"
bad peer designs/plan.c placement/topology.h "designs/plan.c:1: designs includes its peer placement" \
	"a peer include (designs -> placement)"
bad skip collectors/cubex.c models/pmnf.h "collectors/cubex.c:1: collectors includes models, a folder above it" \
	"collectors including models (one floor up)"
bad down analysis/input.c orchestrator/runner.h "analysis/input.c:1: analysis includes orchestrator, a folder above it" \
	"analysis including the orchestrator"
bad loop orchestrator/runner.c refine/refine.h "orchestrator/runner.c:1: orchestrator includes refine, a folder above it" \
	"the orchestrator including refine"
bad odd common/xalloc.c vendor/thing.h "common includes vendor, a folder outside the layering" \
	"an include of a folder outside the layering"
# One number per integration test file, so their order is never ambiguous.
dups=$(ls "$ROOT/tests/integration" | sed -n 's/^\([0-9]*\)-.*/\1/p' | sort | uniq -d | tr '\n' ' ')
is "$dups" "" "no two integration tests share a number"
done_testing
