# The TAP harness of every shell test (sourced; the SLURM tests through
# tests/slurm/testlib.sh).  Each script gets a scratch directory $T (and
# HOME), removed at exit.  A check prints one TAP line and returns the
# status it saw, so `is A B "what" || diag ...` adds detail to a failure.
ROOT=${PERFSWEEP_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${PERFSWEEP_BIN:-$ROOT/bin}
PS=$BIN/perfsweep
DEMO=$BIN/demo-app
T=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-it-XXXXXX")
export HOME=$T
_n=0
_failed=0
trap 'rm -rf "$T"' EXIT

# busy_every_core: a busy loop bound to each core, each in a session of its
# own, as another user's program would be (the scheduler's autogroups weigh
# sessions, and a loop in the session of the test, and of whatever runs the
# suite, took only a part of the run's core); busy_stop kills them by pid.
BUSY_PIDS=""
busy_every_core() {
	for c in $(seq 0 $(($(nproc) - 1))); do
		setsid taskset -c "$c" sh -c 'while :; do :; done' &
		BUSY_PIDS="$BUSY_PIDS $!"
	done
}
busy_stop() {
	for p in $BUSY_PIDS; do kill "$p" 2> /dev/null; done
	BUSY_PIDS=""
}

ok() {   # ok CONDITION-EXIT-STATUS DESCRIPTION
	local rc=$1; shift
	_n=$((_n + 1))
	if [ "$rc" -eq 0 ]; then echo "ok $_n - $*"; else echo "not ok $_n - $*"; _failed=$((_failed + 1)); fi
	return "$rc"
}

is() {   # is GOT WANT DESCRIPTION
	local got=$1 want=$2; shift 2
	if [ "$got" = "$want" ]; then ok 0 "$@"; else ok 1 "$@"; diag "  got: '$got'" "  expected: '$want'"; fi
}

like() { # like TEXT SUBSTRING DESCRIPTION
	local text=$1 sub=$2; shift 2
	case "$text" in *"$sub"*) ok 0 "$@" ;; *) ok 1 "$@"; diag "  '$text'" "  does not contain '$sub'" ;; esac
}

# diag [TEXT...]: TEXT (or stdin) as TAP comments on stderr, where a plain
# prove (make check) shows them next to the failure; stdout's comments it
# shows only with -v
diag() {
	if [ $# -gt 0 ]; then printf '%s\n' "$@"; else cat; fi | sed 's/^/# /' >&2
}

# note TEXT...: comments on stdout, shown by prove -v (what a run measured)
note() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

todo() {   # todo STATUS REASON DESCRIPTION: a known failure that does not fail the script (TAP "# TODO")
	local rc=$1 why=$2; shift 2
	_n=$((_n + 1))
	if [ "$rc" -eq 0 ]; then echo "ok $_n - $* # TODO $why"; else echo "not ok $_n - $* # TODO $why"; fi
}

skip() {   # skip REASON DESCRIPTION: a check this machine cannot make now (TAP "# skip")
	local why=$1; shift
	_n=$((_n + 1))
	echo "ok $_n - $* # skip $why"
}

# json FILE-OR-- PERL-EXPR: evaluate an expression over decoded JSON ($j)
json() {
	perl -MJSON::PP -e 'local $/; my $t = <STDIN>; my $j = JSON::PP->new->decode($t); print eval($ARGV[0]) // "", "\n"; die $@ if $@' "$2" < "$1"
}

done_testing() {
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
}
