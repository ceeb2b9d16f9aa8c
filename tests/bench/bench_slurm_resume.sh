#!/usr/bin/env bash
# Resuming a campaign whose orchestrator was killed (kill -9) while its job
# array ran: N runs of /bin/true as one array (max_inflight = 64), killed
# after KILL seconds, then `perfsweep run` again, which adopts every run in
# flight.  Prints how many runs were done at the kill, the seconds from
# the resume's start until it has taken over every run in flight (its last
# "adopted" or "collected" line), and the job lookups the controller served meanwhile
# (sdiag's REQUEST_JOB_INFO_SINGLE).  Target: resume start-up < 2 s.
# Timings only, never a test.
#   tests/bench/bench_slurm_resume.sh [N] [KILL]   (default 2000 150)
root=${PERFSWEEP_ROOT:-$(pwd)}
bindir=${PERFSWEEP_BIN:-$root/bin}
. "$root/tests/slurm/true_campaign.sh"
n=${1:-2000}
kill_after=${2:-150}
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v sdiag >/dev/null; then
	echo "bench_slurm_resume.sh: skipped (needs root and SLURM)"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-bench-resume-XXXXXX")
chmod 755 "$work"
cluster=$work/cluster
trap '"$root/tests/slurm/cluster.sh" stop "$cluster" >/dev/null 2>&1; [ -n "$KEEP" ] || rm -rf "$work"' EXIT
"$root/tests/slurm/cluster.sh" start "$cluster" >"$work/start.log" 2>&1 || { cat "$work/start.log"; exit 1; }
export SLURM_CONF=$cluster/slurm.conf

true_campaign_cfg "$work/c.cfg" "resume$n" "$n" 'partition = "emu,real"; max_inflight = 64; time_limit = 2;'
"$bindir/perfsweep" run "$work/c.cfg" --dir "$work/c" --quiet >"$work/first.out" 2>&1 &
pid=$!
sleep "$kill_after"
kill -9 "$pid"
wait "$pid" 2>/dev/null
done_at_kill=$("$bindir/perfsweep" status "$work/c" --json | sed -n 's/.*"done": *\([0-9]*\).*/\1/p' | head -n 1)

lookups() { sdiag | awk '$1 == "REQUEST_JOB_INFO_SINGLE" { sub(/.*count:/, ""); print $1 + 0; f = 1 } END { if (!f) print 0 }'; }
before=$(lookups)
t0=$EPOCHREALTIME
# each line of the resume's output with the time it arrived
"$bindir/perfsweep" run "$work/c.cfg" --dir "$work/c" 2>&1 |
	while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$work/resume.out"
# adopted: still running or queued; collected: finished while none ran
adopted=$(grep -c -E ' run [0-9]+: (adopted|collected):' "$work/resume.out")
last=$(grep -E ' run [0-9]+: (adopted|collected):' "$work/resume.out" | tail -n 1 | cut -d' ' -f1)
during=$(($(lookups) - before))
grep -q "$n done" "$work/resume.out" || { echo "the resumed campaign did not finish:" >&2; tail -n 5 "$work/resume.out" >&2; exit 1; }
printf '%d runs, killed after %d s with %s done: the resume adopted %d in %.2f s (%d job lookups in the whole resume)\n' \
	"$n" "$kill_after" "${done_at_kill:-?}" "$adopted" "$(echo "${last:-$t0} - $t0" | bc -l)" "$during"
