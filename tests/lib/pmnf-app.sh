#!/bin/sh
# pmnf-app.sh X Y: a program whose time is a known function of two
# parameters, for the refine --for accuracy tests.  It prints "time T" with
#   T = PMNF_A + PMNF_B * X^2 * Y, times (1 + jitter)
# (defaults 1 and 0.001), jitter a fixed function of X, Y and the execution
# count K at that point, within +-3% (a noise of about 2%), so that a
# campaign's measurements are the same on every machine and under any load.
# Every execution appends "X Y" to $PMNF_DIR/log.
x=$1 y=$2
d=${PMNF_DIR:?PMNF_DIR is not set}
exec 9>>"$d/lock"
flock 9
k=$(( $(cat "$d/count.$x.$y" 2>/dev/null || echo 0) + 1 ))
echo "$k" > "$d/count.$x.$y"
echo "$x $y" >> "$d/log"
flock -u 9
awk -v x="$x" -v y="$y" -v k="$k" -v a="${PMNF_A:-1}" -v b="${PMNF_B:-0.001}" 'BEGIN {
	jitter = ((k * 37 + x * 11 + y * 5) % 13 - 6) / 200
	printf "time %.6f\n", (a + b * x * x * y) * (1 + jitter)
}'
