#!/usr/bin/env bash
# The include layering (tests/lib/layering.sh): the tree's own includes all
# point down cli -> tui -> orchestrator -> validator -> models -> collectors
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
mk "$good/tui/top.c" "orchestrator/store.h" "validator/noise.h"
mk "$good/orchestrator/store.c" "collectors/experiment.h" "designs/plan.h"
mk "$good/models/pmnf.c" "collectors/experiment.h"
mk "$good/placement/bind.c" "common/xalloc.h"
mk "$good/tests/unit/t.c" "cli/cli.h" "tests/lib/tap.h"
mk "$good/examples/demo.c" "cli/cli.h"
"$CHECK" "$good" > "$T/good.out" 2>&1; is $? 0 "a tree that only includes downward passes"
is "$(cat "$T/good.out")" "" "and prints nothing"

up=$T/up
cp -r "$good" "$up"
printf '  #  include "tui/top.h"\n' >> "$up/orchestrator/store.c"
out=$("$CHECK" "$up" 2>&1); is $? 1 "an upward include fails"
like "$out" "orchestrator/store.c:3: orchestrator includes tui, a folder above it" "and names file, line and folders"
like "$out" "orchestrator and tui include each other" "the cycle is named too"

peer=$T/peer
cp -r "$good" "$peer"
mk "$peer/designs/plan.c" "placement/topology.h"
out=$("$CHECK" "$peer" 2>&1); is $? 1 "a peer include (designs -> placement) fails"
like "$out" "designs/plan.c:1: designs includes its peer placement" "and says so"

skip=$T/skip
cp -r "$good" "$skip"
mk "$skip/collectors/cubex.c" "models/pmnf.h"
out=$("$CHECK" "$skip" 2>&1); is $? 1 "collectors including models (one floor up) fails"
like "$out" "collectors includes models, a folder above it" "and says so"

odd=$T/odd
cp -r "$good" "$odd"
mk "$odd/common/xalloc.c" "vendor/thing.h"
out=$("$CHECK" "$odd" 2>&1); is $? 1 "an include of a folder outside the layering fails"
like "$out" "common includes vendor, a folder outside the layering" "and says so"
done_testing
