#!/bin/sh
# compete.sh APP ARGS...: run APP; on even repetitions with a busy loop
# beside it on the run's own core (it inherits the binding), in a session of
# its own: another program.  The loop is not the rank's child (a double
# fork): the rank never waits for it, so its CPU time is never counted as
# the rank's (wait4 adds a waited child's).  APP starts once the loop runs:
# a loaded machine may start it late.  The loop's pid is in
# $PERFSWEEP_RUN_DIR/competitor.pid (for the test to check it is gone).
loop=
if [ $((PERFSWEEP_REPETITION % 2)) -eq 0 ]; then
	d=$PERFSWEEP_RUN_DIR
	( setsid sh -c 'echo $$ > "$1/competitor.pid"; : > "$1/loop.ready"; exec timeout 120 sh -c "while :; do :; done"' loop "$d" & )
	while [ ! -e "$d/loop.ready" ]; do sleep 0.01; done
	loop=$(cat "$d/competitor.pid")
fi
"$@"
rc=$?
[ -n "$loop" ] && kill "$loop" 2> /dev/null
exit $rc
