#!/bin/bash
# What a local run costs beside starting its program: N runs of /bin/true in
# one campaign (perfsweep run, --jobs 1 and --jobs 2) against a shell loop
# of N /bin/true, all in one go so the ratios hold on a busy machine.  CPU
# is user + sys of every process waited for (bash's times), wall is the
# command's.  Targets (issue 47): CPU at most 1.5x the shell loop's,
# --jobs 2 at least 1.6x faster than --jobs 1.  ROUNDS rounds (3) of all
# four, interleaved, and the median of each round's ratios: on these 2-core
# machines one shell loop's CPU scatters by 20% from one to the next
# (1.60-1.94 s, 2026-12-08), which one round's ratio carries whole.
ROOT=${PERFSWEEP_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${PERFSWEEP_BIN:-$ROOT/bin}
N=${LOCAL_BENCH_N:-2000}
ROUNDS=${LOCAL_BENCH_ROUNDS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-bench-XXXXXX")
trap 'rm -rf "$T"' EXIT
PS=$BIN/perfsweep

# N runs: 40 points x N/40 repetitions
reps=$(( (N + 39) / 40 ))
N=$(( reps * 40 ))
for ((r = 1; r <= ROUNDS; r++)); do for j in 1 2; do
	cat > "$T/c$j-$r.cfg" <<CFG
name = "true$j-$r";
app = { command = [ "/bin/true" ]; };   # k only names the points
parameters = ( { name = "k"; values = [ $(seq -s ', ' 1 40) ]; } );
repetitions = $reps;
collect = { wall = true; };
CFG
done; done

# seconds of CPU (children) and wall of one command: "cpu wall"
measure() {
	local t0 t1
	t0=$(date +%s.%N)
	local before after
	times > "$T/times"   # a builtin redirected: no subshell, whose times would be its own
	before=$(tail -1 "$T/times")
	"$@" > /dev/null 2>&1 || { echo "bench_local_runs: '$*' failed" >&2; exit 1; }
	times > "$T/times"
	after=$(tail -1 "$T/times")
	t1=$(date +%s.%N)
	awk -v a="$before" -v b="$after" -v t0="$t0" -v t1="$t1" '
		function s(x,  m, r) { split(x, m, "m"); sub("s", "", m[2]); return m[1] * 60 + m[2] }
		BEGIN { split(a, x, " "); split(b, y, " ")
			printf "%.3f %.3f\n", s(y[1]) + s(y[2]) - s(x[1]) - s(x[2]), t1 - t0 }'
}
# Both sides run the same command line, bare /bin/true: given one
# argument, coreutils' true sets its locale up (some 25 files opened under
# C.UTF-8), so runs of "/bin/true {k}" against a loop of bare /bin/true
# left that work on perfsweep's side of the ratio (measured 2026-12-07:
# the runs' own CPU 2.2 s against the loop's 1.45 s).  On ext4 without a
# journal, a run of this bench within a minute of the last one measures
# the inode allocator passing the last one's removed files.
shell_loop() { bash -c "for ((i = 0; i < $N; i++)); do /bin/true; done"; }
# the same N in two loops side by side: how far this machine's process
# starts scale over two cores at all (the ceiling of --jobs 2)
half=$(( N / 2 ))
two_loops() { bash -c "for ((i = 0; i < $half; i++)); do /bin/true; done" &
	bash -c "for ((i = 0; i < $half; i++)); do /bin/true; done"; wait; }

load=$(cut -d' ' -f1 /proc/loadavg)
# the runs' files are on it: ext4 without a journal scans past every inode
# removed in the last minute (docs/performance.md); TMPDIR=/dev/shm: tmpfs
fs=$(stat -f -c %T "$T" 2> /dev/null || echo unknown)
echo "local runs: $N of /bin/true, $ROUNDS rounds, load $load, the runs' files on $fs"
for ((r = 1; r <= ROUNDS; r++)); do
	read -r sh_cpu sh_wall < <(measure shell_loop)
	read -r sh2_cpu sh2_wall < <(measure two_loops)
	read -r j1_cpu j1_wall < <(measure "$PS" run "$T/c1-$r.cfg" --jobs 1 --quiet)
	read -r j2_cpu j2_wall < <(measure "$PS" run "$T/c2-$r.cfg" --jobs 2 --quiet)
	awk -v r="$r" -v n="$N" -v sc="$sh_cpu" -v sw="$sh_wall" -v c1="$j1_cpu" -v w1="$j1_wall" \
	    -v c2="$j2_cpu" -v w2="$j2_wall" -v c3="$sh2_cpu" -v w3="$sh2_wall" 'BEGIN {
		printf "round %d\n", r
		printf "  shell loop      cpu %6.2f s (%.2f ms per run)  wall %6.2f s\n", sc, sc * 1000 / n, sw
		printf "  two shell loops cpu %6.2f s (%.2f ms per run)  wall %6.2f s  %.2fx faster than one (this machine'"'"'s ceiling for --jobs 2)\n",
		       c3, c3 * 1000 / n, w3, sw / w3
		printf "  run --jobs 1    cpu %6.2f s (%.2f ms per run)  wall %6.2f s  cpu %.2fx the shell loop (target 1.5x)\n",
		       c1, c1 * 1000 / n, w1, c1 / sc
		printf "  run --jobs 2    cpu %6.2f s (%.2f ms per run)  wall %6.2f s  %.2fx faster than --jobs 1 (target 1.6x)\n",
		       c2, c2 * 1000 / n, w2, w1 / w2
		printf "ratios %.4f %.4f\n", c1 / sc, w1 / w2 > "/dev/stderr" }' 2>> "$T/ratios"
done
# the median over the rounds of column COL of the ratios ("ratios CPU SPEED-UP")
median() { sort -n -k"$1" "$T/ratios" | awk -v c="$1" '{ a[NR] = $c } END { printf "%.2f", a[int((NR + 1) / 2)] }'; }
echo "median of $ROUNDS rounds: cpu $(median 2)x the shell loop (target 1.5x)," \
     "--jobs 2 $(median 3)x faster than --jobs 1 (target 1.6x)"
