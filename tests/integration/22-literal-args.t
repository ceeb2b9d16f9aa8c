#!/usr/bin/env bash
# Arguments reach the program literally: no shell is ever involved.
. "$(dirname "$0")/../lib/tap.sh"
cd "$T"
cat > "$T/c.cfg" <<CFG
name = "lit";
app = { command = [ "$DEMO", "--echo", "{n};touch pwned1", "\$(touch pwned2)", "a b", "x{{y}}", "\`touch pwned3\`" ]; };
parameters = ( { name = "n"; values = ( 7, 2.5 ); } );
repetitions = 1;
order = "grouped";   # run 1 is n = 7, run 2 is n = 2.5
CFG
"$PS" run "$T/c.cfg" --quiet > /dev/null 2>&1; is $? 0 "the campaign runs"
out=$(cat "$T/lit.campaign/runs/1/stdout")
like "$out" "arg: 7;touch pwned1" "a value next to ';' stays one literal argument"
like "$out" 'arg: $(touch pwned2)' "command substitution stays literal"
like "$out" "arg: a b" "a space does not split an argument"
like "$out" "arg: x{y}" "doubled braces are literal braces"
like "$(cat "$T/lit.campaign/runs/2/stdout")" "arg: 2.5;touch" "a real value is substituted as written"
n=$(find "$T" -name 'pwned*' | wc -l)
is "$n" 0 "nothing was executed by a shell"
done_testing
