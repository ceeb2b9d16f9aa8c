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

done_testing
