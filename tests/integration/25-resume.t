#!/usr/bin/env bash
# kill -9 of `perfsweep run` at several moments, then resume: every run is
# done exactly once and nothing recorded is lost or counted twice, even
# when the first kill comes before the store exists.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/c.cfg" <<CFG
name = "res";
app = { command = [ "$DEMO", "-s", "0.4", "-n", "{n}", "-k", "setup" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 3, 4, 5, 6, 7, 8 ]; } );
repetitions = 3;
collect = { regex = ( { region = "setup"; pattern = "setup: ([0-9.eE+-]+) s"; } ); };
CFG
for delay in 0.05 0.4 0.9 1.3; do
	"$PS" run "$T/c.cfg" --jobs 2 --quiet > /dev/null 2>&1 &
	pid=$!
	sleep $delay
	kill -9 $pid 2> /dev/null
	wait $pid 2> /dev/null
done
"$PS" status "$T/res.campaign" --json > "$T/mid.json"
mid=$(json "$T/mid.json" '$j->{done}')
ok $([ "$mid" -lt 24 ]; echo $?) "the kills interrupted the campaign ($mid of 24 done)"
"$PS" run "$T/c.cfg" --jobs 2 --quiet > "$T/out" 2>&1; is $? 0 "the resumed campaign completes" || diag < "$T/out"
"$PS" status "$T/res.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{done}')" 24 "every planned run is done"
is "$(json "$T/st.json" '$j->{measurements}')" 48 "exactly two measurements per run: none lost, none twice"
"$PS" export "$T/res.campaign" --format csv > "$T/m.csv"
dups=$(cut -d, -f1,8,9 "$T/m.csv" | sort | uniq -d | wc -l)
is "$dups" 0 "no run has a region recorded twice"
ok $(! pgrep -f "$DEMO -s 0.4" > /dev/null; echo $?) "no orphaned run process is left behind"

# kill -9 while the store is being created, at moments from 10 to 200 ms:
# the campaign directory must never be left with a store that cannot be
# opened ("not a perfsweep campaign store" broke every later run): after
# each kill there is no campaign.db, or one that status reads.
cat > "$T/big.cfg" <<CFG
name = "big";
app = { command = [ "/bin/sleep", "{n}{m}" ]; };
parameters = ( { name = "n"; values = [ $(seq -s, 100 139) ]; }, { name = "m"; values = [ $(seq -s, 1 25) ]; } );
repetitions = 2;
CFG
broken=""
for ms in 10 20 30 40 50 60 70 80 90 100 120 140 160 180 200; do
	rm -rf "$T/big.campaign"
	"$PS" run "$T/big.cfg" --jobs 1 --quiet > /dev/null 2>&1 &
	pid=$!
	sleep "0.$(printf %03d $ms)"
	kill -9 $pid 2> /dev/null
	wait $pid 2> /dev/null
	pkill -f "^/bin/sleep 1[0-9][0-9][0-9]*$" 2> /dev/null
	if [ -e "$T/big.campaign/campaign.db" ] && ! "$PS" status "$T/big.campaign" > "$T/big.out" 2>&1; then
		broken="$broken $ms ms ($(tail -1 "$T/big.out"));"
	fi
done
is "$broken" "" "a kill -9 at any moment of the store's creation leaves no store or a whole one"
# killed before the store's first commit: a campaign.db without tables is
# no campaign yet, and the same command starts it afresh
mkdir "$T/early.campaign"
sqlite3 "$T/early.campaign/campaign.db" "CREATE TABLE t(x); DROP TABLE t;"
sed 's/"res"/"early"/' "$T/c.cfg" > "$T/early.cfg"
"$PS" run "$T/early.cfg" --jobs 2 --quiet > "$T/out" 2>&1; is $? 0 "a store that never committed is started afresh"
"$PS" status "$T/early.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{done}')" 24 "and its campaign runs"
done_testing
