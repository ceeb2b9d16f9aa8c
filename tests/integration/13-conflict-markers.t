#!/usr/bin/env bash
# No merge conflict markers in the tracked tree (a merge once left two in
# docs/ unnoticed for a whole round).
. "$(dirname "$0")/../lib/tap.sh"

cd "$PERFSWEEP_ROOT" || exit 1
git rev-parse --git-dir > /dev/null 2>&1 || { echo "1..0 # SKIP not a git checkout"; exit 0; }
found=$(git grep -n -I -E '^(<<<<<<< |>>>>>>> |=======$)' -- . ':!tests/integration/13-conflict-markers.t' 2>/dev/null)
is "$found" "" "no merge conflict markers in tracked files"
done_testing
