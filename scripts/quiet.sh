# Sourced by the measuring scripts (verdict-campaigns.sh, disturbed-twins.sh):
# how quiet the machine is, and waiting for it to be quiet.

idle() {  # the cores' idle share over the next 5 s, in percent
	a=$(head -1 /proc/stat); sleep 5; b=$(head -1 /proc/stat)
	echo "$a $b" | awk '{ t1 = 0; for (i = 2; i <= 11; i++) t1 += $i; t2 = 0; for (i = 13; i <= 22; i++) t2 += $i;
		printf "%.0f\n", 100 * ($16 - $5) / (t2 - t1) }'
}

# wait_quiet: until the cores are QUIET_IDLE% idle (80) or QUIET_WAIT seconds
# (0) have passed; sets $quiet (the last idle share) and $waited (seconds)
wait_quiet() {
	waited=0
	while :; do
		quiet=$(idle)
		[ "$quiet" -ge "${QUIET_IDLE:-80}" ] || [ "$waited" -ge "${QUIET_WAIT:-0}" ] && break
		waited=$((waited + 5))
	done
}
