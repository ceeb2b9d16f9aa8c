#!/bin/sh
# gmx-run.sh SETUP-DIR ARGS...: `gmx ARGS...`, with the set-up directory's
# rdtscp-shim.so preloaded when gmx-shim.sh built one there (only on a
# machine where gmx refuses to start; docs/applications.md).  It execs gmx:
# the measured process is gmx itself.
setup=$1
shift
if [ -f "$setup/rdtscp-shim.so" ]; then
	LD_PRELOAD="$setup/rdtscp-shim.so${LD_PRELOAD:+:$LD_PRELOAD}"
	export LD_PRELOAD
fi
exec gmx "$@"
