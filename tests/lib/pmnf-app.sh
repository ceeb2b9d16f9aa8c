#!/bin/sh
# pmnf-app.sh X Y: a program whose time is a known function of two
# parameters, for the refine --for accuracy tests.  It prints "time T" with
#   T = PMNF_A + PMNF_B * X^2 * Y, times (1 + jitter)
# (defaults 1 and 0.001), jitter a fixed function of X, Y and the run's
# repetition K (PERFSWEEP_REPETITION; else the execution count at that
# point), within +-3% (a noise of about 2%), so that a campaign's
# measurements are the same on every machine, under any load and in any
# order its runs happen to start (two repetitions of a point started at
# once, or a run started again, once swapped their values).
# Every execution appends "X Y" to $PMNF_DIR/log.  PMNF_SLEEP (seconds,
# default 0) makes every run take about that long, so that what a run costs
# is that and not mostly the noise of starting a shell on a loaded machine.
x=$1 y=$2
d=${PMNF_DIR:?PMNF_DIR is not set}
exec 9>>"$d/lock"
flock 9
k=$(( $(cat "$d/count.$x.$y" 2>/dev/null || echo 0) + 1 ))
echo "$k" > "$d/count.$x.$y"
k=${PERFSWEEP_REPETITION:-$k}
echo "$x $y" >> "$d/log"
flock -u 9
[ -n "${PMNF_SLEEP:-}" ] && sleep "$PMNF_SLEEP"
awk -v x="$x" -v y="$y" -v k="$k" -v a="${PMNF_A:-1}" -v b="${PMNF_B:-0.001}" 'BEGIN {
	jitter = ((k * 37 + x * 11 + y * 5) % 13 - 6) / 200
	printf "time %.6f\n", (a + b * x * x * y) * (1 + jitter)
}'
