#!/bin/sh
# The local contention study of docs/validation.md: run
# configs/contention-local.cfg (interleaved, seed 13, one run at a time, ranks
# pinned inside the cores the run was given), validate it with its
# dependency file, and print the per-rank cpusets from the store (export csv)
# that show the ranks of a 2-rank run were on different cores.  The load
# average is printed before and after: figures for the docs need a quiet
# machine (load average well below 1 on 2 cores).
#   scripts/contention-local.sh [BINDIR] [CAMPAIGN-DIR]
set -e
BIN=${1:-bin}
DIR=${2:-build/contention-local}
rm -rf "$DIR"
echo "before: $(uptime)"
"$BIN/perfsweep" run configs/contention-local.cfg --dir "$DIR" --quiet
echo "after:  $(uptime)"
"$BIN/perfsweep" status "$DIR" | grep '^order:'
"$BIN/perfsweep" validate "$DIR" --deps configs/contention-local.deps || true
echo "per-rank cpusets of pass 1 (run, np, rank, node, cpuset; the store's bindings table):"
sqlite3 -separator ' ' "$DIR/campaign.db" "
	SELECT b.run, 'np=' || r.ranks, 'rank=' || b.rank, b.node, b.cpuset
	FROM bindings b JOIN runs r ON r.id = b.run WHERE r.repetition = 1 ORDER BY b.run, b.rank"
