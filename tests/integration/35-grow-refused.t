#!/usr/bin/env bash
# A change that alters what a campaign's stored runs mean is refused, with
# one line naming the key and a new campaign directory as the way out: the
# app command or its arguments, its environment, the collectors, the
# parameters, the placement of an existing point.  The store is unchanged.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T/app.sh" <<'APP'
#!/bin/sh
echo "run $*" >> "$COUNT"
echo "work: 0.01 s"
APP
chmod +x "$T/app.sh"
export COUNT=$T/count
cat > "$T/c.cfg" <<CFG
name = "fixed";
app = { command = [ "$T/app.sh", "{n}" ]; env = [ "A=1" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; } );
repetitions = 1;
collect = { regex = ( { region = "work"; pattern = "work: ([0-9.]+) s"; } ); };
CFG
C=$T/fixed.campaign
"$PS" run "$T/c.cfg" --quiet > /dev/null 2>&1; is $? 0 "the campaign runs"
sqlite3 "$C/campaign.db" 'SELECT id, state, seq FROM runs ORDER BY id' > "$T/before"

refused() {  # refused NAME SED-EXPR KEY WHAT
	sed -e "$2" "$T/c.cfg" > "$T/$1.cfg"
	cmp -s "$T/c.cfg" "$T/$1.cfg" && echo "# the edit changed nothing"
	"$PS" run "$T/$1.cfg" > "$T/out" 2> "$T/err"
	is $? 2 "$4: run exits 2"
	is "$(wc -l < "$T/err" | tr -d ' ')" 1 "$4: one line"
	like "$(cat "$T/err")" "$3" "$4: names the key"
	like "$(cat "$T/err")" "use a new campaign directory (--dir)" "$4: suggests a new campaign directory"
	"$PS" plan "$T/$1.cfg" --dir "$C" > /dev/null 2> "$T/err"
	is $? 2 "$4: plan --dir refuses it too"
}
refused args 's/"{n}" \]/"{n}", "--fast" ]/' "$T/args.cfg:2: app.command differs" "an argument added"
refused prog "s|$T/app.sh|/bin/echo|" "app.command differs" "another program"
refused env 's/"A=1"/"A=2"/' "app.env differs" "another environment"
refused collect 's/work: (/work:  *(/' "collect differs" "another collector pattern"
like "$(cat "$T/err")" "perfsweep collect" "a collector change names perfsweep collect as the alternative"
refused param 's/values = \[ 1, 2 \]; }/values = [ 1, 2 ]; }, { name = "m"; values = [ 1 ]; }/' \
	"parameters: 'm' is not a parameter of the campaign" "a parameter added"
is "$(sqlite3 "$C/campaign.db" 'SELECT id, state, seq FROM runs ORDER BY id')" "$(cat "$T/before")" \
	"the refusals left the store unchanged"
is "$(wc -l < "$COUNT" | tr -d ' ')" 2 "and executed nothing"

# harmless changes pass: comments, timeout, repetitions
sed -e 's/env = \[ "A=1" \]; };/env = [ "A=1" ]; timeout = 60.0; }; # longer/' "$T/c.cfg" > "$T/ok.cfg"
"$PS" run "$T/ok.cfg" --quiet > /dev/null 2>&1; is $? 0 "a timeout and a comment do not change what runs mean"

# placement: the same point with another policy is refused; a new point placed alike is not
ncores=$(hwloc-calc --number-of core machine:0 2> /dev/null || nproc)
if [ "$ncores" -lt 2 ]; then
	for i in 1 2 3 4 5 6; do ok 0 "# skip placement: needs 2 cores"; done
	done_testing; exit
fi
cat > "$T/p.cfg" <<CFG
name = "placed";
app = { command = [ "$T/app.sh", "{n}" ]; };
parameters = ( { name = "n"; values = [ 1 ]; }, { name = "np"; values = [ 2 ]; role = "ranks"; } );
repetitions = 1;
placement = { ranks_per_node = [ 2 ]; policy = "compact"; };
CFG
"$PS" run "$T/p.cfg" --quiet > /dev/null 2>&1; is $? 0 "a placed campaign runs"
sed 's/"compact"/"spread"/' "$T/p.cfg" > "$T/spread.cfg"
"$PS" run "$T/spread.cfg" > "$T/out" 2> "$T/err"; is $? 2 "another policy for an existing point: exit 2"
like "$(cat "$T/err")" "$T/spread.cfg:5: placement.policy: the placement of the campaign's point (n=1, np=2, ranks_per_node=2)" \
	"names the key and the point"
like "$(cat "$T/err")" "use a new campaign directory (--dir)" "suggests a new campaign directory"
sed 's/values = \[ 1 \]; }/values = [ 1, 3 ]; }/' "$T/p.cfg" > "$T/more.cfg"
"$PS" plan "$T/more.cfg" --dir "$T/placed.campaign" > "$T/plan.txt"; is $? 0 "a new value with the same placement grows the placed campaign"
like "$(cat "$T/plan.txt")" "added:   1 runs (1 new point)" "its run is added"
like "$(cat "$T/plan.txt")" "kept:    1 runs (1 done" "the placed run is kept"
done_testing
