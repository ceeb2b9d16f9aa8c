#!/usr/bin/env bash
# Every file perfsweep reads goes through one opener (common/fsutil.h,
# fs_read_file): a regular file of bounded size, never a device, a FIFO or
# a directory, and never a blocking open.  A placement map, a config and
# an input to model, each as /dev/zero, a FIFO and an oversized file: one
# line naming the file, never a hang or an out-of-memory death (a watchdog
# guards every command; durations are never asserted).
. "$(dirname "$0")/../lib/tap.sh"

# ended PID SECONDS: 0 when PID ended within SECONDS (it is killed otherwise)
ended() {
	local n=$(($2 * 10))
	while kill -0 "$1" 2>/dev/null && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	if kill -0 "$1" 2>/dev/null; then kill -9 "$1" 2>/dev/null; wait "$1" 2>/dev/null; return 1; fi
	return 0
}
# an address-space bound of 4 GB, unless perfsweep cannot start under one
# (AddressSanitizer's shadow memory): the watchdog still ends a runaway
vlimit=4000000
(ulimit -v $vlimit; exec "$PS" --version) > /dev/null 2>&1 || vlimit=unlimited
# try WHAT WANT-EXIT WANT-TEXT CMD...: CMD ends within 20 s with WANT-EXIT and one line holding WANT-TEXT
try() {
	local what=$1 want=$2 text=$3; shift 3
	(ulimit -v $vlimit; exec "$@") > "$T/out" 2>&1 &
	local pid=$!
	ended $pid 20; ok $? "$what: ends (watchdog 20 s)"
	wait $pid; is $? "$want" "$what: exit $want"
	is "$(wc -l < "$T/out")" 1 "$what: one line"
	like "$(cat "$T/out")" "$text" "$what: it names the file and why"
}

mkfifo "$T/fifo"
head -c $((65 * 1024 * 1024)) /dev/zero | tr '\0' '#' > "$T/huge"

# 1. placement.map: plan and run refuse what is no map, at the map's line
map_cfg() {
	cat > "$T/m.cfg" <<CFG
name = "m";
app = { command = [ "/bin/echo", "t: 1" ]; };
parameters = ( { name = "np"; values = [ 1 ]; role = "ranks"; } );
placement = { ranks_per_node = [ 1 ]; policy = "explicit";
  map = "$1"; };
repetitions = 1;
max_attempts = 1;
CFG
}
for m in /dev/zero "$T/fifo" "$T/huge"; do
	map_cfg "$m"
	case $m in /dev/zero) why="it is a device, not a regular file" ;;
		*fifo) why="it is a FIFO, not a regular file" ;;
		*) why="it is larger than 64 MiB" ;; esac
	try "plan with map = $m" 2 "$T/m.cfg:5: cannot read placement map '$m': $why" "$PS" plan "$T/m.cfg"
	try "run with map = $m" 2 "$T/m.cfg:5: cannot read placement map '$m': $why" "$PS" run "$T/m.cfg" --dir "$T/m.campaign"
done
ok $([ ! -e "$T/m.campaign/campaign.db" ]; echo $?) "no campaign was made with such a map"

# 2. a config that is no file
try "plan of a FIFO config" 2 "cannot read config '$T/fifo': it is a FIFO, not a regular file" "$PS" plan "$T/fifo"
try "plan of /dev/zero" 2 "cannot read config '/dev/zero': it is a device, not a regular file" "$PS" plan /dev/zero
try "plan of an oversized config" 2 "cannot read config '$T/huge': it is larger than 64 MiB" "$PS" plan "$T/huge"

# 3. an input to model that is no file
mkfifo "$T/in.txt"
try "model of a FIFO" 2 "it is a FIFO, not a regular file" "$PS" model "$T/in.txt"

# 4. a campaign store that is a FIFO is no store, and never waited for
mkdir -p "$T/c"
mkfifo "$T/c/campaign.db"
try "status of a store that is a FIFO" 2 "$T/c/campaign.db: cannot open: it is a FIFO, not a regular file" "$PS" status "$T/c"

done_testing
