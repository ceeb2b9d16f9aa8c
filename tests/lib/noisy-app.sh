#!/bin/sh
# noisy-app.sh N: a program whose time is known, for the refine tests.  It
# sleeps T seconds and prints "time T", where
#   T = base(N) x (1 + jitter) x (1 + extra)
#   base(N) = NOISY_A + NOISY_B x N, plus NOISY_JUMP when N >= NOISY_AT
#             (defaults 0.02, 0.001, 0, never): a regime change at NOISY_AT
#   jitter  = +-0.3%, a fixed function of N and of the execution count K
#   extra   = FACTOR from a line "N K FACTOR" of $NOISY_DIR/noise (execution
#             K at N; K "*" means every execution), else 0
# With NOISY_SMALL=S it also prints "small U", a second region of S times
# base(N) x (1 + jitter) x (1 + extra'), extra' from a line "small N K FACTOR"
# (a region the test makes a small share of the time).
# With NOISY_FAIL=N it fails (exit 1, nothing printed) at that N.
# Every execution appends N to $NOISY_DIR/log, so a test counts executions.
n=$1
d=${NOISY_DIR:?NOISY_DIR is not set}
exec 9>>"$d/lock"
flock 9
k=$(( $(cat "$d/count.$n" 2>/dev/null || echo 0) + 1 ))
echo "$k" > "$d/count.$n"
echo "$n" >> "$d/log"
flock -u 9
[ "$n" = "${NOISY_FAIL:-}" ] && exit 1
out=$(awk -v n="$n" -v k="$k" -v a="${NOISY_A:-0.02}" -v b="${NOISY_B:-0.001}" \
	-v jump="${NOISY_JUMP:-0}" -v at="${NOISY_AT:-1e300}" -v small="${NOISY_SMALL:-0}" -v f="$d/noise" '
BEGIN {
	extra = 0
	sextra = 0
	while ((getline line < f) > 0) {
		split(line, w, " ")
		if (w[1] == n && (w[2] == k || w[2] == "*"))
			extra = w[3]
		if (w[1] == "small" && w[2] == n && (w[3] == k || w[3] == "*"))
			sextra = w[4]
	}
	base = a + b * n + (n >= at ? jump : 0)
	jitter = ((k * 37 + n * 11) % 7 - 3) / 1000
	printf "%.6f", base * (1 + jitter) * (1 + extra)
	if (small > 0)
		printf " %.9f", small * base * (1 + jitter) * (1 + sextra)
	printf "\n"
}')
t=${out%% *}
sleep "$t"
echo "time $t"
[ "$out" = "$t" ] || echo "small ${out#* }"
