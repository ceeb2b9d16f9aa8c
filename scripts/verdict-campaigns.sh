#!/bin/sh
# Run one ranks-per-node study N times and print each campaign's verdict on
# growth with ranks per node in one line: the load average before and after,
# the runs the disturbed check left out (and their lowest CPU share), the
# contention check's status, and a flag's kind, growth, p-value and the
# ranks' CPU share at 1 and at 2 ranks.  docs/validation.md's contention
# and oversubscription figures come from it:
#
#   scripts/verdict-campaigns.sh configs/contention-mpi-local.cfg configs/contention-mpi-local.deps 5
#   scripts/verdict-campaigns.sh configs/oversubscribed-local.cfg configs/oversubscribed-local.deps 5
#
#   scripts/verdict-campaigns.sh CONFIG DEPS [N] [BINDIR] [OUTDIR]
#
# QUIET_WAIT=600 waits before each campaign, up to that many seconds, until
# the machine's cores were at least QUIET_IDLE% (default 80) idle over 5 s
# (/proc/stat; the line says how long it waited and the idle share it
# started at); 0 does not wait.  A study on one core (the oversubscribed
# one) needs only the other core's work to stay there: QUIET_IDLE=45.
# The campaigns are kept in OUTDIR/1..N (default build/verdicts/NAME);
# REVALIDATE=1 runs nothing and validates the campaigns kept there again.
# RUN_ARGS adds options to each `perfsweep run` (the demo's false-flag
# count: RUN_ARGS="--jobs 1", one run at a time as scripts/demo.sh runs it).
set -e

. "$(dirname "$0")/quiet.sh"
CFG=$1
DEPS=$2
N=${3:-5}
BIN=${4:-bin}
[ -n "$CFG" ] && [ -n "$DEPS" ] || { echo "usage: $0 CONFIG DEPS [N] [BINDIR] [OUTDIR]" >&2; exit 2; }
OUT=${5:-build/verdicts/$(basename "$CFG" .cfg)}
mkdir -p "$OUT"
echo "# $CFG x $N, $(date -u '+%F %H:%M UTC')"
for k in $(seq "$N"); do
	D=$OUT/$k
	if [ -n "$REVALIDATE" ]; then
		before=$(cat "$OUT/$k.load" 2>/dev/null || echo "? -> ?")
		secs=? waited=? quiet=?
		after=${before#* -> }
		before=${before% -> *}
	else
		rm -rf "$D"
		wait_quiet
		before=$(cut -d' ' -f1-3 /proc/loadavg)
		start=$(date +%s)
		"$BIN/perfsweep" run "$CFG" --dir "$D" --quiet $RUN_ARGS > "$OUT/$k.run" 2>&1 || true
		secs=$(($(date +%s) - start))
		after=$(cut -d' ' -f1-3 /proc/loadavg)
		echo "$before -> $after" > "$OUT/$k.load"
	fi
	"$BIN/perfsweep" validate "$D" --deps "$DEPS" > "$OUT/$k.txt" 2>&1 || true
	"$BIN/perfsweep" validate "$D" --deps "$DEPS" --json > "$OUT/$k.json" 2> /dev/null || true
	perl -MJSON::PP -e '
		local $/;
		open my $fh, "<", $ARGV[0] or die "$ARGV[0]: $!";
		my $j = decode_json(<$fh>);
		my $d = $j->{disturbed};
		my @c = grep { $_->{check} eq "contention" } @{$j->{checks}};
		my @f = grep { $_->{kind} eq "contention" || $_->{kind} eq "oversubscribed" } @{$j->{flags}};
		my $low = 9;
		$low = $_->{cpu_share} < $low ? $_->{cpu_share} : $low for @{$d->{runs} || []};
		printf "%s: %ss (waited %ss, idle %s%%), load %s -> %s; disturbed %d of %d%s; contention check %s",
			$ARGV[1], $ARGV[2], $ARGV[5], $ARGV[6], $ARGV[3], $ARGV[4], scalar @{$d->{runs} || []}, $d->{judged} || 0,
			$low < 9 ? sprintf(" (lowest share %.2f)", $low) : "", @c ? $c[0]{status} : "none";
		printf ", detectable %.0f%%", 100 * $c[0]{detectable_growth} if @c && defined $c[0]{detectable_growth};
		printf ", growth %+.0f%% p=%.2g", 100 * $c[0]{growth}, $c[0]{p_value} if @c && defined $c[0]{growth};
		for my $f (@f) {
			printf "; FLAG %s %+.0f%% p=%.2g, CPU share %.2f -> %.2f", $f->{kind}, 100 * $f->{growth},
				$f->{p_value}, $f->{cpu_share_first} // -1, $f->{cpu_share_last} // -1;
		}
		print "; verdict $j->{verdict}\n";
	' "$OUT/$k.json" "$k" "$secs" "$before" "$after" "$waited" "$quiet"
done
