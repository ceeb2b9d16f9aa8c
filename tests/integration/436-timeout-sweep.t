#!/usr/bin/env bash
# All of a run's processes are killed at its timeout, at its end and on
# cancel, also those it started in a session of their own (setsid) or
# double-forked away: the run's supervisor is their child subreaper
# (PR_SET_CHILD_SUBREAPER) and kills its session and every descendant.
# That needs no privilege: the same checks run as an unprivileged user when
# this test runs as root.  Each escapee sleeps a number of seconds no other
# process uses, by which it is found.
. "$(dirname "$0")/../lib/tap.sh"

N=$((400 + $$ % 500))
left() { pgrep -f -- "sleep $N\\.[0-9]" | wc -l; }
quiet() { for _ in $(seq 100); do [ "$(left)" = 0 ] && return 0; sleep 0.1; done; return 1; }
cfg() {  # cfg NAME SECONDS-TO-SLEEP [TIMEOUT]: $D/NAME.cfg
	cat > "$D/$1.cfg" <<CFG
name = "$1";
app = { command = [ "/bin/sh", "-c", "setsid sleep $N.1 & (setsid sh -c 'sleep $N.2' &); (sh -c 'sleep $N.3' &); sleep $2" ];
        timeout = ${3:-60.0}; };
parameters = ( { name = "n"; values = [ 1 ]; } );
repetitions = 1;
max_attempts = 1;
CFG
}
escaped() {   # until the run's three escapees run (10 s at most)
	for _ in $(seq 100); do [ "$(left)" -ge 3 ] && return 0; sleep 0.1; done
	return 1
}
chmod 755 "$T"
check() {   # check PREFIX COMMAND...: the three cases, run by COMMAND (perfsweep, or perfsweep as another user), in $D
	local who=$1; shift
	cfg "${who}to" 30 2.0
	"$@" run "$D/${who}to.cfg" --quiet > "$T/out" 2>&1
	like "$(cat "$T/out")" "run 1: failed: timed out after 2 s" "$who: the run timed out"
	quiet; ok $? "$who: at the timeout its setsid and double-forked processes are killed"

	cfg "${who}end" 0.2
	"$@" run "$D/${who}end.cfg" --quiet > "$T/out" 2>&1; is $? 0 "$who: a run that ends at once"
	quiet; ok $? "$who: what it left behind in other sessions is killed at its end"

	cfg "${who}cancel" 60
	"$@" run "$D/${who}cancel.cfg" --quiet > "$T/out" 2>&1 &
	local bg=$!
	escaped; ok $? "$who: a long run's three escapees run"
	"$@" cancel "$D/${who}cancel.campaign" > /dev/null 2>&1; is $? 0 "$who: perfsweep cancel"
	wait $bg
	quiet; ok $? "$who: cancel kills them too"
}

D=$T
check "$(id -un)" "$PS"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	D=$T/nobody
	mkdir "$D" && chown 65534 "$D"
	check nobody setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T" "$PS"
else
	skip "not root, or no setpriv" "the same as an unprivileged user"
fi
done_testing
