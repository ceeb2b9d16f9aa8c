#!/usr/bin/env bash
# Derived parameters and model = false (docs/config.md, "Derived
# parameters"): a value computed at each point from the swept ones, in the
# command, the cost model, the store and the models; a parameter that only
# places ranks (or that a derived one stands for) left out of models,
# exports and point names.
. "$(dirname "$0")/../lib/tap.sh"
cd "$T" || exit 1

cat > d.cfg <<'CFG'
name = "der";
app = { command = [ "/bin/echo", "edge {x} atoms {atoms} work {work}" ]; };
parameters = (
  { name = "x"; values = ( 1, 1.5, 2 ); model = false; },
  { name = "atoms"; value = "4000 * x^3"; },
  { name = "np"; values = [ 1 ]; role = "ranks"; model = false; },
  { name = "work"; value = "atoms * 2 + 0.5"; model = false; }
);
repetitions = 1;
cost_model = "atoms / 4000 * 3.6";     # seconds: a derived parameter in the cost model
collect = { regex = ( { region = "solve"; pattern = "atoms ([0-9.]+)"; } ); };
analysis = { min_cpu_share = 0.0; };   # echo's CPU share says nothing: no run is left out
CFG
"$PS" plan d.cfg --json > plan.json; is $? 0 "a campaign with derived parameters plans"
is "$(json plan.json 'join " ", map { $_->{params}{x} . ":" . $_->{params}{atoms} . ":" . $_->{params}{work} } @{$j->{points}}')" \
	"1:4000:8000.5 1.5:13500:27000.5 2:32000:64000.5" "each point's derived values, from the swept x and the derived atoms"
is "$(json plan.json 'join " ", map { sprintf "%.6f", $_->{core_hours} } @{$j->{points}}')" \
	"0.001000 0.003375 0.008000" "the cost model priced each point by its atoms"
is "$(json plan.json 'scalar @{$j->{points}}')" 3 "the design sweeps x and np only: 3 points"
"$PS" run d.cfg --quiet > run.out 2>&1; is $? 0 "it runs"
is "$(grep -lx '\["/bin/echo","edge 1.5 atoms 13500 work 27000.5"\]' der.campaign/runs/*/argv.json | wc -l)" 1 \
	"placeholders take derived values: integers without a point, reals as they are"
"$PS" export der.campaign --format extrap-text > e.txt
is "$(grep '^PARAMETER' e.txt)" "PARAMETER atoms" \
	"Extra-P gets atoms, not x nor work (atoms tells the points apart) nor np (one value)"
like "$(cat e.txt)" "POINTS ( 13500 )" "at its values"
"$PS" export der.campaign --format csv > e.csv
is "$(head -1 e.csv | cut -d, -f3-6)" "x,np,atoms,work" "the CSV keeps every parameter: it is the raw table"
like "$("$PS" status der.campaign --points --metric time 2>&1)" "atoms=13500 " "status names points by what is modelled"
"$PS" model der.campaign > m.out 2>&1
like "$(grep -A1 '^solve' m.out)" "* atoms" "model fits solve in atoms"

# model = false where it alone tells points apart: refused
sed -e 's/"der"/"hid"/' -e 's/{ name = "atoms"; value = "4000 \* x^3"; },/{ name = "atoms"; value = "4000 * x^3"; model = false; },/' \
	-e 's/{ name = "work"; value = "atoms \* 2 + 0.5"; model = false; }/{ name = "work"; value = "7"; }/' d.cfg > hid.cfg
out=$("$PS" plan hid.cfg 2>&1); is $? 2 "model = false on every parameter that varies is refused"
like "$out" "hid.cfg:4: model = false leaves 'x' out of the analysis, but the points x=1, np=1, atoms=4000, work=7 and x=1.5, np=1, atoms=13500, work=7 differ only in the parameters left out" \
	"naming the parameter's line and two points"

# errors, each at its line
bad() {   # NAME PARAMS WANT: PARAMS on line 4
	printf 'name = "b";\napp = { command = [ "/bin/true", "{y}" ]; };\nparameters = (\n%s\n);\n' "$2" > "$1.cfg"
	out=$("$PS" plan "$1.cfg" 2>&1); rc=$?
	is "$rc" 2 "$1: refused"
	like "$out" "$3" "$1: $3"
}
bad syntax '{ name = "x"; values = [ 1 ]; }, { name = "y"; value = "2 * * x"; }' \
	"syntax.cfg:4: bad value of derived parameter 'y' \"2 * * x\": column 5"
bad later '{ name = "y"; value = "2 * z"; }, { name = "z"; value = "x"; }, { name = "x"; values = [ 1 ]; }' \
	"later.cfg:4: bad value of derived parameter 'y' \"2 * z\""
bad both '{ name = "x"; values = [ 1 ]; }, { name = "y"; value = "x"; values = [ 2 ]; }' \
	"both.cfg:4: parameter 'y' has both value (derived) and values (swept); keep one"
bad role '{ name = "x"; values = [ 1 ]; }, { name = "y"; value = "x"; role = "ranks"; }' \
	"role.cfg:4: derived parameter 'y' takes no role"
bad infinite '{ name = "x"; values = [ 0, 1 ]; }, { name = "y"; value = "1 / x"; }' \
	"infinite.cfg:4: derived parameter 'y' = \"1 / x\" is inf at x=0; write an expression that is a finite number at every point"
bad alone '{ name = "y"; value = "2"; }' "alone.cfg:3: every parameter is derived; sweep at least one"
bad dup '{ name = "y"; values = [ 1 ]; }, { name = "y"; value = "2"; }' \
	"dup.cfg:4: duplicate parameter 'y'"
done_testing
