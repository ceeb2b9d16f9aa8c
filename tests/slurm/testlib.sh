# Shared by the SLURM tests (tests/integration/*slurm*.t): the one TAP
# harness (tests/lib/tap.sh: ok, is, like, diag, note, skip, todo,
# done_testing, the scratch directory $T) and a private cluster
# (tests/slurm/cluster.sh) that is always stopped on exit.
#   . "$root/tests/slurm/testlib.sh"; slurm_test_init; ... ; done_testing
root=${PERFSWEEP_ROOT:-$(pwd)}
. "$root/tests/lib/tap.sh"
# Programs in $PERFSWEEP_BIN (bin/, or build-san/bin for sanitized builds);
# unit-test programs in the matching build directory (or $PERFSWEEP_BUILD).
bindir=${PERFSWEEP_BIN:-$root/bin}
export PERFSWEEP_BIN=$bindir
perfsweep=$bindir/perfsweep
if [ -n "${PERFSWEEP_BUILD:-}" ]; then
	build=$PERFSWEEP_BUILD
elif [ "$(basename "$bindir")" = bin ] && [ "$(cd "$bindir/.." 2>/dev/null && pwd)" != "$(cd "$root" && pwd)" ]; then
	build=$(cd "$bindir/.." && pwd)
else
	build=$root/build
fi
# libslurm leaks a little on its error paths (unpacked error responses).
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$root/tests/slurm/lsan.supp

# Start the cluster in a fresh directory; skip the whole script when SLURM cannot run here.
slurm_test_init() {
	if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
		echo "1..0 # SKIP needs root, slurmctld, slurmd and munged"
		exit 0
	fi
	work=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-slurm-XXXXXX")
	cdir=$work/cluster
	export TMPDIR=$work   # scratch of the C tests goes away with $work
	trap 'slurm_test_cleanup' EXIT
	if ! "$root/tests/slurm/cluster.sh" start "$cdir" >"$work/start.log" 2>&1; then
		ok 1 "cluster starts"
		diag < "$work/start.log"
		done_testing
		exit 1
	fi
	export SLURM_CONF=$cdir/slurm.conf PERFSWEEP_TEST_CLUSTER=$cdir
}

slurm_test_cleanup() {
	[ -n "${bgpid:-}" ] && kill -9 "$bgpid" 2>/dev/null
	"$root/tests/slurm/cluster.sh" stop "$cdir" >/dev/null 2>&1
	rm -rf "$work" "$T"
}

# awk functions shared by the programs below: field(k), the record's value
# of key k ("JobName=..."); tasks(spec, out), the task ids of an array's
# task spec ("2-7%2", "1,4-6") in out[1..n], returning n.
slurm_awk_lib='
function field(k,   r) {
	r = ""
	if (match($0, " " k "=[^ ]*"))
		r = substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2)
	return r
}
function tasks(spec, out,   parts, np, i, lo, hi, r, t, n) {
	sub(/%.*/, "", spec)
	n = 0
	np = split(spec, parts, ",")
	for (i = 1; i <= np; i++) {
		lo = parts[i]; hi = lo
		if (index(lo, "-")) { split(lo, r, "-"); lo = r[1]; hi = r[2] }
		for (t = lo + 0; t <= hi + 0; t++)
			out[++n] = t
	}
	return n
}'

# slurm_task_names: the job names a job array's tasks stand for, from
# `scontrol -o show jobs` on stdin: one line "ARRAYJOB TASK NAME" per task,
# NAME the run's own job name (ps:<campaign>:<run>.<attempt>) from the
# array's map (runs/.arrays/TAG.sh, named by its comment); a pending
# record's task range ("2-7%2") gives a line per task.
slurm_task_names() {
	awk "$slurm_awk_lib"'
	{
		if (substr($0, 1, 6) != "JobId=")
			next
		name = field("JobName"); task = field("ArrayTaskId"); aj = field("ArrayJobId")
		if (task == "" || name !~ /:array$/ || !match($0, / Comment=perfsweep [0-9a-f]+ .* array [0-9a-f]+ /))
			next
		c = substr($0, RSTART + 1, RLENGTH - 2); n = split(c, w, " "); tag = w[n]
		dir = c; sub(/^Comment=perfsweep [0-9a-f]+ /, "", dir); sub(/ array [0-9a-f]+$/, "", dir)
		camp = name; sub(/array$/, "", camp)
		map = dir "/runs/.arrays/" tag ".sh"
		split("", run)
		while ((getline line < map) > 0)
			if (line ~ /^# task /) { split(line, f, " "); run[f[3]] = f[5] "." f[7] }
		close(map)
		n = tasks(task, ts)
		for (i = 1; i <= n; i++)
			print aj, ts[i], camp run[ts[i]]
	}'
}

# slurm_jobs: one line "NAME STATE" per job SLURM knows of (any state), an
# array task named as its run's own job would be (slurm_task_names).
slurm_jobs() {
	local all
	all=$(scontrol -o show jobs 2>/dev/null)
	printf '%s\n' "$all" | slurm_task_names | sort -u >"$work/.tasknames"
	printf '%s\n' "$all" | awk -v names="$work/.tasknames" "$slurm_awk_lib"'
	BEGIN { while ((getline line < names) > 0) { split(line, f, " "); nm[f[1] " " f[2]] = f[3] } }
	substr($0, 1, 6) == "JobId=" {
		name = field("JobName"); state = field("JobState"); task = field("ArrayTaskId"); aj = field("ArrayJobId")
		if (task == "" || name !~ /:array$/) { print name, state; next }
		n = tasks(task, ts)
		for (i = 1; i <= n; i++)
			print ((aj " " ts[i]) in nm ? nm[aj " " ts[i]] : name), state
	}'
}

# slurm_jobcomp: the job completion log, an array task's Name= its run's
# own job name (slurm_task_names; the controller must still know the array).
slurm_jobcomp() {
	scontrol -o show jobs 2>/dev/null | slurm_task_names | sort -u >"$work/.tasknames"
	awk -v names="$work/.tasknames" '
	BEGIN { while ((getline line < names) > 0) { split(line, f, " "); nm[f[1] " " f[2]] = f[3] } }
	{
		aj = ""; t = ""
		if (match($0, / ArrayJobId=[0-9]+/)) aj = substr($0, RSTART + 12, RLENGTH - 12)
		if (match($0, / ArrayTaskId=[0-9]+/)) t = substr($0, RSTART + 13, RLENGTH - 13)
		if (aj != "" && (aj " " t) in nm)
			sub(/ Name=[^ ]*/, " Name=" nm[aj " " t])
		print
	}' "$cdir/log/jobcomp.log"
}

# jobs_named NAME: how many SLURM jobs (any state) carry this name (an
# array task: its run's own job name, slurm_jobs).
jobs_named() {
	slurm_jobs | grep -c "^$1 " || true
}

# wait_until SECONDS COMMAND...: poll (0.2 s) until COMMAND succeeds.
wait_until() {
	local limit=$1 i
	shift
	for ((i = 0; i < limit * 5; i++)); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# status_field DIR FIELD: a number from `perfsweep status --json`.
status_field() {
	"$perfsweep" status "$1" --json 2>/dev/null | sed -n "s/^  \"$2\": \\([0-9]*\\).*/\\1/p"
}

# run_campaign CONFIG DIR DESCRIPTION: perfsweep run --quiet, one TAP line
# for its exit status 0, its output as diagnostics when it fails.
run_campaign() {
	"$perfsweep" run "$1" --dir "$2" --quiet >"$2.out" 2>&1
	local rc=$?
	is "$rc" 0 "$3"
	[ $rc = 0 ] || diag < "$2.out"
}

# bind_records DIR PREFIX: per run "node:local_rank:cpuset,..." (sorted) from
# its rank-*.json, then "RECORDS=n BAD=b"; a record is bad unless the rank's
# own stdout has a line PREFIX<cpuset> (PREFIX a perl regex) and it exited 0.
bind_records() {
	perl -MJSON::PP -e '
		my ($bad, $n) = (0, 0);
		for my $d (sort glob("$ARGV[0]/runs/*")) {
			my @r;
			for my $f (sort glob("$d/rank-*.json")) {
				open my $fh, "<", $f or die; local $/; my $j = decode_json(<$fh>);
				my $out = $j->{rank} ? "$d/rank-$j->{rank}.stdout" : "$d/stdout";
				open my $o, "<", $out or die "$out"; my $txt = <$o>;
				$bad++ unless $txt =~ /$ARGV[1]\Q$j->{cpuset}\E$/m && $j->{exit_status} == 0;
				push @r, "$j->{node}:$j->{local_rank}:$j->{cpuset}";
				$n++;
			}
			print join(",", sort @r), " ";
		}
		print "RECORDS=$n BAD=$bad\n";' "$1" "$2"
}
