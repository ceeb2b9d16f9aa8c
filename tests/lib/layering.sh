#!/usr/bin/env bash
# The include layering: every `#include "folder/..."` in a .c or .h file
# outside tests/ (and build*/, bin/, .git/) must point down this order
#
#   cli -> tui -> refine -> orchestrator -> analysis -> campaign -> validator -> models -> collectors
#       -> designs, placement -> common
#
# (a folder may skip floors downward; designs and placement share a floor
# and must not include each other), and no two folders may include each
# other.  Prints one line per violation, "FILE:LINE: FROM includes TO
# (...)", and exits 1 if there is any.
#
#   tests/lib/layering.sh [--graph] [ROOT]
#
# --graph prints the folder -> folder include counts instead (exit 0).
set -euo pipefail

graph=0 root=.
for a in "$@"; do
	case $a in
	--graph) graph=1 ;;
	-*) echo "usage: $0 [--graph] [ROOT]" >&2; exit 2 ;;
	*) root=$a ;;
	esac
done
cd "$root"

# FILE:LINE:FROM:TO for every quoted include of a folder's header
edges=$(find . \( -path ./tests -o -path './build*' -o -path ./bin -o -path ./.git \) -prune -o \
	-type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort |
	while IFS= read -r f; do
		case $f in */*) ;; *) continue ;; esac
		awk -v f="$f" '
		/^[ \t]*#[ \t]*include[ \t]*"[^"\/]+\/[^"]*"/ {
			s = $0; sub(/^[^"]*"/, "", s); sub(/\/.*/, "", s)
			from = f; sub(/\/.*/, "", from)
			print f ":" FNR ":" from ":" s
		}' "$f"
	done)

if [ "$graph" = 1 ]; then
	printf '%s\n' "$edges" | awk -F: 'NF == 4 && $3 != $4 { n[$3 " -> " $4]++ }
		END { for (k in n) printf "%-32s %d\n", k, n[k] }' | sort
	exit 0
fi

printf '%s\n' "$edges" | awk -F: '
BEGIN {
	split("common:1 designs:2 placement:2 collectors:3 models:4 validator:5 campaign:6 analysis:7 orchestrator:8 refine:9 tui:10 cli:11", t, " ")
	for (i in t) { split(t[i], kv, ":"); floor[kv[1]] = kv[2] }
}
NF == 4 {
	file = $1; line = $2; from = $3; to = $4
	if (!(from in floor)) next          # a folder outside the layering (examples/)
	if (from == to) next
	pair[from " " to] = file ":" line
	if (!(to in floor)) {
		printf "%s:%s: %s includes %s, a folder outside the layering\n", file, line, from, to; bad++
	} else if (floor[to] == floor[from]) {
		printf "%s:%s: %s includes its peer %s (same floor: neither may include the other)\n", file, line, from, to; bad++
	} else if (floor[to] > floor[from]) {
		printf "%s:%s: %s includes %s, a folder above it\n", file, line, from, to; bad++
	}
}
END {
	for (p in pair) {
		split(p, ft, " ")
		if ((ft[2] " " ft[1]) in pair && ft[1] < ft[2]) {
			printf "%s: %s and %s include each other (also %s)\n", pair[p], ft[1], ft[2], pair[ft[2] " " ft[1]]; bad++
		}
	}
	exit bad > 0
}'
