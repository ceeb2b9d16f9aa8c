#!/usr/bin/env bash
# A corrupt store is refused by every reader, in one line, before anything
# is read from it: status, validate, model, export, top and compare each
# run SQLite's quick_check when they open a store (STORE_READONLY).  The
# corruption is in an index no reader uses (run_events_run), so a reader
# without the check would read the store silently and exit 0.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/c.cfg" <<CFG
name = "c";
app = { command = [ "/bin/sh", "-c", "echo 't: {n}'" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 4, 8, 16 ]; } );
repetitions = 3;
collect = { regex = ( { region = "r"; metric = "t"; pattern = "^t: ([0-9]+)"; } ); };
CFG
"$PS" run "$T/c.cfg" --quiet > /dev/null 2>&1; is $? 0 "a campaign of 15 runs"
db=$T/c.campaign/campaign.db
page=$(sqlite3 "$db" "SELECT rootpage FROM sqlite_master WHERE name = 'run_events_run'")
size=$(sqlite3 "$db" "PRAGMA page_size")
ok $([ "$page" -gt 1 ]; echo $?) "the index run_events_run is page $page"
# its first four cell pointers point past the page
printf '\377\377\377\377\377\377\377\377' | dd of="$db" bs=1 seek=$(( (page - 1) * size + 8 )) conv=notrunc 2> /dev/null
like "$(sqlite3 "$db" 'PRAGMA quick_check' | tr '\n' ' ')" "page $page" "SQLite's quick_check finds the corruption"

# reader ARGS...: the command line, "@" standing for the campaign directory
check() {
	local what="$*" args=()
	for a in "$@"; do [ "$a" = @ ] && args+=("$T/c.campaign") || args+=("$a"); done
	"$PS" "${args[@]}" > "$T/out" 2>&1
	is $? 2 "$what: exit 2"
	is "$(wc -l < "$T/out")" 1 "$what: one line"
	like "$(cat "$T/out")" "error: $db: the store is corrupt (" "$what: it says the store is corrupt"
	like "$(cat "$T/out")" "); restore it from a copy" "$what: and what to do"
}
check status @
check status @ --json
check validate @
check model @
check export @ --format csv
check top @ --once
check compare @ @

# interactive top shows its first screen before the store is checked (the
# check reads the whole file: a second at 10^6 runs), and still refuses it
if command -v tmux > /dev/null; then
	TM="tmux -L ps433-$$ -f /dev/null"
	trap '$TM kill-server 2> /dev/null' EXIT
	$TM new-session -d -s m -x 100 -y 30 "'$PS' top '$T/c.campaign' 2> '$T/top.err'; echo \$? > '$T/top.rc'"
	for ((i = 0; i < 300; i++)); do [ -s "$T/top.rc" ] && break; sleep 0.1; done
	is "$(cat "$T/top.rc" 2> /dev/null)" 2 "top (interactive): exit 2"
	is "$(wc -l < "$T/top.err")" 1 "top (interactive): one line"
	like "$(cat "$T/top.err")" "error: $db: the store is corrupt (" "top (interactive): it says the store is corrupt"
else
	for what in "exit 2" "one line" "it says the store is corrupt"; do
		skip "tmux is not installed" "top (interactive): $what"
	done
fi

done_testing
