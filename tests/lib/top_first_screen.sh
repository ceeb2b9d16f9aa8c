#!/bin/bash
# top_first_screen.sh PERFSWEEP DIR: seconds from starting `perfsweep top DIR`
# in a private tmux server to its first screen (the progress line), and to
# its flags line; prints "FIRST FLAGS", or nothing without tmux or when the
# screen did not come within 120 s.
command -v tmux > /dev/null || exit 0
TM="tmux -L pstopfirst-$$ -f /dev/null"
trap '$TM kill-server 2> /dev/null' EXIT
t0=$(date +%s.%N)
$TM new-session -d -s m -x 100 -y 30 "$1 top $2" || exit 0
first= flags=
for ((i = 0; i < 2400; i++)); do
	scr=$($TM capture-pane -p -t m 2> /dev/null)
	[ -z "$first" ] && grep -q '^runs ' <<< "$scr" && first=$(date +%s.%N)
	if grep -q 'points\? above\|no point has' <<< "$scr"; then
		flags=$(date +%s.%N)
		break
	fi
	sleep 0.05
done
[ -n "$first" ] && [ -n "$flags" ] && awk -v a="$t0" -v b="$first" -v c="$flags" 'BEGIN { printf "%.2f %.2f\n", b - a, c - a }'
