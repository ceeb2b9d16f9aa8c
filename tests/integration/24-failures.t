#!/usr/bin/env bash
# Failed runs: retries, final failure with a reason, timeouts, exec errors, collection errors.
. "$(dirname "$0")/../lib/tap.sh"

# every run fails once, then succeeds: retried and done
cat > "$T/retry.cfg" <<CFG
name = "retry";
app = { command = [ "$DEMO", "--fail-once", "$T/marker-{run}", "-n", "{n}", "-k", "setup" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 3 ]; } );
repetitions = 1;
max_attempts = 2;
CFG
"$PS" run "$T/retry.cfg" > "$T/out" 2>&1; is $? 0 "runs that fail once are retried and succeed"
"$PS" status "$T/retry.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{done}')" 3 "all three done"
like "$(cat "$T/out")" "retry: exit status 3" "the retry and its reason are reported"

# the same with a single attempt: failed for good, exit 1, reason in status
sed -e 's/"retry"/"once"/' -e 's/max_attempts = 2/max_attempts = 1/' -e 's/marker-/m2-/' "$T/retry.cfg" > "$T/once.cfg"
"$PS" run "$T/once.cfg" --quiet > /dev/null 2>&1; is $? 1 "a campaign with failed runs exits 1"
"$PS" status "$T/once.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{failed}')" 3 "the runs stay failed"
is "$(json "$T/st.json" '$j->{problems}[0]{reason}')" "exit status 3" "with their reason"

# timeout: the whole process group is killed
cat > "$T/to.cfg" <<CFG
name = "to";
app = { command = [ "$DEMO", "-s", "{s}" ]; timeout = 0.5; };
parameters = ( { name = "s"; values = [ 30 ]; } );
repetitions = 1;
max_attempts = 1;
CFG
start=$(date +%s)
"$PS" run "$T/to.cfg" --quiet > /dev/null 2>&1; is $? 1 "a timed-out run fails"
ok $([ $(( $(date +%s) - start )) -lt 20 ]; echo $?) "the run was killed, not waited for"
"$PS" status "$T/to.campaign" --json > "$T/st.json"
like "$(json "$T/st.json" '$j->{problems}[0]{reason}')" "timed out after 0.5 s" "the reason names the timeout"
ok $(! pgrep -f "$DEMO -s 30" > /dev/null; echo $?) "no process of the run survives"

# a program that cannot be executed
cat > "$T/nx.cfg" <<CFG
name = "nx";
app = { command = [ "$T/no-such-program", "{n}" ]; };
parameters = ( { name = "n"; values = [ 1 ]; } );
CFG
"$PS" run "$T/nx.cfg" --quiet > /dev/null 2>&1; is $? 1 "an unexecutable program fails the run"
"$PS" status "$T/nx.campaign" --json > "$T/st.json"
like "$(json "$T/st.json" '$j->{problems}[0]{reason}')" "cannot execute" "with the exec error as reason"
is "$(sqlite3 "$T/nx.campaign/campaign.db" 'SELECT DISTINCT attempts FROM runs')" 1 "and is not tried again"

# a regex that never matches: a visible collection error, never a zero
cat > "$T/rx.cfg" <<CFG
name = "rx";
app = { command = [ "$DEMO", "-n", "{n}", "-k", "setup" ]; };
parameters = ( { name = "n"; values = [ 1 ]; } );
repetitions = 1;
collect = { regex = ( { region = "nope"; pattern = "nope: ([0-9.]+)"; } ); };
CFG
"$PS" run "$T/rx.cfg" --quiet > /dev/null 2>&1
"$PS" status "$T/rx.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{collection_errors}')" 1 "status counts the collection error"
like "$(json "$T/st.json" '$j->{problems}[0]{collect_error}')" "nope/time never matched stdout" "and names the pattern"
is "$("$PS" export "$T/rx.campaign" --format csv | grep -c nope)" 0 "no value is invented for it"
done_testing
