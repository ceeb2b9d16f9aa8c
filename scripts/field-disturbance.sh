#!/bin/bash
# Issue 41's field measurements of the disturbed check (docs/validation.md,
# "disturbed"), for a quiet window; prints one table.
#
#   scripts/field-disturbance.sh [BINDIR] [OUTDIR]
#
# 1. lammps-quiet  LAMMPS (Debian's `lmp`, serial, started as an Open MPI
#                  singleton), an in.lj-style input: 2 box sizes x 2 step
#                  counts x 3 repetitions, one rank bound to a core.  On a
#                  quiet machine: 0 disturbed.
# 2. lammps-busy   the same, with a busy loop bound to the run's core for a
#                  stretch in the middle (from BUSY_AFTER s after the start,
#                  for BUSY_FOR s): exactly the runs it overlapped (a
#                  quarter of the run or more) are disturbed, and each names
#                  the busy loop's pid; the runs it only touched are listed.
# 3. blocks-half   a program that blocks half its time (dd oflag=dsync
#                  writes, then the demo's stream kernel), at 1 and 2 ranks
#                  on cores of their own: 0 disturbed, no oversubscribed.
# 4. threads       one rank of two threads (perl threads) on the two cores
#                  its binding gives it (cores_per_rank = 2), a busy loop
#                  on its first core on even repetitions: allowed share 2,
#                  exactly the runs with the loop disturbed, the loop named.
#
# Columns: runs judged, disturbed, the runs that should be (busy loop
# overlap), those of them that name the busy loop, the runs disturbed that
# should not be, the allowed share, and flags.  QUIET_WAIT and QUIET_IDLE as
# in scripts/verdict-campaigns.sh (scripts/quiet.sh; default: no wait).
set -e
BIN=$(cd "${1:-bin}" && pwd)
OUT=${2:-build/field-disturbance}
PS=$BIN/perfsweep
DEMO=$BIN/demo-app
BUSY_AFTER=${BUSY_AFTER:-1.5}
BUSY_FOR=${BUSY_FOR:-2}
. "$(dirname "$0")/quiet.sh"
command -v lmp > /dev/null || { echo "lmp not found: apt-get install lammps" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
loops=
trap 'for p in $loops; do kill "$p" 2> /dev/null; done' EXIT
cpu0=$(hwloc-calc --physical-output --intersect PU core:0 2> /dev/null | cut -d, -f1)

printf '#!/bin/bash\nwhile [ $SECONDS -lt ${1:-3600} ]; do :; done\n' > "$OUT/busyloop"
chmod +x "$OUT/busyloop"
cat > "$OUT/in.lj" <<'LJ'
# Lennard-Jones liquid (LAMMPS bench/in.lj), box size s, t steps
variable s index 5
variable t index 100
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 ${s} 0 ${s} 0 ${s}
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
run ${t}
LJ
cat > "$OUT/lammps.cfg" <<CFG
name = "lammps";
app = { command = [ "lmp", "-in", "$OUT/in.lj", "-var", "s", "{s}", "-var", "t", "{t}", "-log", "none" ];
        timeout = 600.0; };
parameters = ( { name = "s"; values = [ 5, 7 ]; }, { name = "t"; values = [ 200, 400 ]; },
               { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; };
repetitions = 3;
collect = { wall = false; regex = (
  { region = "Loop"; metric = "time"; pattern = "Loop time of ([0-9.eE+-]+) on"; },
  { region = "Loop"; metric = "cpu_share"; pattern = "([0-9.]+)% CPU use"; scale = 0.01; } ); };
CFG
cat > "$OUT/blocks.sh" <<SH
#!/bin/sh
# half blocked (synchronous 4 KiB writes), half computing; the kernel's time
dd if=/dev/zero of=blocks.dat bs=4k count=\${BLOCKS:-300} oflag=dsync 2> /dev/null
rm -f blocks.dat
exec "$DEMO" -n 56 -i 2 -k stream
SH
chmod +x "$OUT/blocks.sh"
cat > "$OUT/blocks.cfg" <<CFG
name = "blocks";
app = { command = [ "$OUT/blocks.sh", "{n}" ]; timeout = 600.0; };
parameters = ( { name = "n"; values = [ 1, 2 ]; }, { name = "np"; values = [ 1, 2 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 2 ]; };
repetitions = 3;
collect = { wall = false; regex = ( { region = "stream"; metric = "time"; pattern = "stream: ([0-9.eE+-]+) s"; } ); };
CFG
cat > "$OUT/threads.pl" <<'PL'
use threads;
my @t = map { threads->create(sub { my $s = 0; $s += $_ for 1 .. 2e7; }) } 1 .. 2;
$_->join for @t;
print "time: 1\n";
PL
cat > "$OUT/compete.sh" <<SH
#!/bin/sh
# APP ARGS...: on even repetitions a busy loop on the rank's first core, another program's
loop=
if [ \$((PERFSWEEP_REPETITION % 2)) -eq 0 ]; then
	cpu=\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
	setsid taskset -c "\$cpu" "$OUT/busyloop" 600 &
	loop=\$!
	echo \$loop > "\$PERFSWEEP_RUN_DIR/competitor.pid"
fi
"\$@"
rc=\$?
[ -n "\$loop" ] && kill "\$loop" 2> /dev/null && wait "\$loop"
exit \$rc
SH
chmod +x "$OUT/compete.sh"
cat > "$OUT/threads.cfg" <<CFG
name = "threads";
app = { command = [ "$OUT/compete.sh", "perl", "$OUT/threads.pl", "{n}" ]; timeout = 600.0; };
parameters = ( { name = "n"; values = [ 1, 2 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { policy = "compact"; ranks_per_node = [ 1 ]; cores_per_rank = 2; };
repetitions = 4;
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time: ([0-9.]+)"; } ); };
CFG

# row NAME CAMPAIGN EXPECTED-IDS NAMED-PIDS: one line of the table
printf '%-13s %5s %9s %8s %6s %6s %8s  %s\n' case judged disturbed expected named extra allowed "flags (and what took the most)"
row() {
	local name=$1 dir=$2 want=" $3 " pids=" $4 "
	"$PS" validate "$dir" --json > "$dir.json" 2> /dev/null || true
	perl -MJSON::PP -e '
		local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
		my %want = map { $_ => 1 } split " ", $ARGV[2]; my %pids = map { $_ => 1 } split " ", $ARGV[3];
		my $d = $j->{disturbed} || { judged => 0, runs => [] };
		my @dis = @{$d->{runs}};
		my $named = grep { my $r = $_; $want{$r->{run}} && grep { $pids{$_->{pid}} } @{$r->{causes}} } @dis;
		my $extra = grep { !$want{$_->{run}} } @dis;
		my %kinds; $kinds{$_->{kind}}++ for @{$j->{flags}};
		my %who; for my $r (@dis) { my $c = $r->{causes}[0]; $who{"$c->{command}"}++ if $c }
		my @top = sort { $who{$b} <=> $who{$a} } keys %who;
		my $top = join ", ", map { "$_ x$who{$_}" } @top[0 .. ($#top < 2 ? $#top : 2)];
		printf "%-13s %5d %9d %8d %6s %6d %8s  %s%s\n", $ARGV[1], $d->{judged}, scalar @dis, scalar keys %want,
			%pids ? $named : "-", $extra, $ARGV[4],
			join(" ", map { "$_=$kinds{$_}" } sort keys %kinds) || "none", $top ? " ($top)" : "";
	' "$dir.json" "$name" "$want" "$pids" "$(sqlite3 "$dir/campaign.db" 'SELECT group_concat(DISTINCT allowed_share) FROM resources WHERE rank >= 0')"
}
run() {  # run NAME CONFIG [run options]: a campaign into $OUT/NAME.campaign
	local name=$1 cfg=$2; shift 2
	[ "${QUIET_WAIT:-0}" -gt 0 ] && wait_quiet
	"$PS" run "$cfg" --dir "$OUT/$name.campaign" --quiet "$@" > "$OUT/$name.out" 2>&1 || true
}

echo "# $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; signals: $("$PS" topo | sed -n 's/^disturbance signals: //p')"
run lammps-quiet "$OUT/lammps.cfg"
row lammps-quiet "$OUT/lammps-quiet.campaign" "" ""

# the busy loop in the middle, bound to the run's core
[ "${QUIET_WAIT:-0}" -gt 0 ] && wait_quiet
"$PS" run "$OUT/lammps.cfg" --dir "$OUT/lammps-busy.campaign" --quiet > "$OUT/lammps-busy.out" 2>&1 &
camp=$!
sleep "$BUSY_AFTER"
setsid taskset -c "${cpu0:-0}" "$OUT/busyloop" "$BUSY_FOR" &
busy=$!; loops=$busy
b0=$(date +%s.%N)
wait "$busy" || true
b1=$(date +%s.%N)
wait "$camp" || true
# overlapped: a quarter of the run or more beside the loop (a run it only
# touched, in LAMMPS's start-up wait, may have lost nothing to it)
over=$(sqlite3 "$OUT/lammps-busy.campaign/campaign.db" \
	"SELECT group_concat(id, ' ') FROM runs WHERE MIN(ended_at, $b1) - MAX(started_at, $b0) >= 0.25 * (ended_at - started_at)")
touched=$(sqlite3 "$OUT/lammps-busy.campaign/campaign.db" \
	"SELECT group_concat(id, ' ') FROM runs WHERE started_at < $b1 AND ended_at > $b0")
row lammps-busy "$OUT/lammps-busy.campaign" "$over" "$busy"
first=$(sqlite3 "$OUT/lammps-busy.campaign/campaign.db" 'SELECT MIN(started_at) FROM runs')
echo "#   busy loop pid $busy on core ${cpu0:-0} from $(awk -v a="$b0" -v b="$first" 'BEGIN { printf "%.1f", a - b }') s" \
	"for $(awk -v a="$b0" -v b="$b1" 'BEGIN { printf "%.1f", b - a }') s; overlapped runs: ${over:-none};" \
	"touched: ${touched:-none}"

run blocks-half "$OUT/blocks.cfg"
row blocks-half "$OUT/blocks-half.campaign" "" ""

run threads "$OUT/threads.cfg"
comp=$(for f in "$OUT"/threads.campaign/runs/*/competitor.pid; do basename "$(dirname "$f")"; done | tr '\n' ' ')
pids=$(cat "$OUT"/threads.campaign/runs/*/competitor.pid | tr '\n' ' ')
row threads "$OUT/threads.campaign" "$comp" "$pids"

echo "# after: load average $(cut -d' ' -f1-3 /proc/loadavg); busiest other programs:"
ps -eo pcpu=,comm= --sort=-pcpu | head -5 | sed 's/^/#   /'
