#!/usr/bin/env bash
# The config a campaign ran with, read back wherever the campaign lies: the
# campaign's dependency file is found from the campaign directory alone
# (validate, model, refine, run --until give the same answer beside the
# config, under --dir elsewhere and from another directory), a dependency
# file that has gone is named in one line and never silently left out;
# growth refuses edits that change what stored runs mean (a parameter's
# role, the backend, the placement) before it writes anything; refine
# refuses imported measurements; a refine point outside the config's range
# is not counted as retired; an unknown aggregate is refused alike by model
# and validate.  Real runs of a small program whose output the test sets.
. "$(dirname "$0")/../lib/tap.sh"
. "$ROOT/tests/lib/noisy.sh"

# app.sh N P REP: "time T", T growing with n and (a contention the
# dependency file does not explain) with p; +-0.2% by repetition
mkdir -p "$T/cfg" "$T/else" "$T/other"
cat > "$T/app.sh" <<'APP'
#!/bin/sh
awk -v n="$1" -v p="$2" -v r="$3" 'BEGIN { printf "time %.6f\n", (0.01 * n + 0.004 * p * n) * (1 + ((r * 7 + n * 3 + p) % 5 - 2) / 1000) }'
APP
chmod +x "$T/app.sh"
cat > "$T/cfg/h.cfg" <<CFG
name = "h";
app = { command = [ "$T/app.sh", "{n}", "{p}", "{rep}" ]; };
parameters = ( { name = "n"; values = [ 2, 4, 6, 8, 10 ]; }, { name = "p"; values = [ 1, 2, 4, 8 ]; } );
repetitions = 3;
order_seed = 1;
dependencies = "h.deps";
analysis = { min_cpu_share = 0.0; };   # two campaigns compared value for value: none left out as disturbed
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time ([0-9.]+)"; } ); };
CFG
# main depends on n only; comm (not measured) keeps p in the plan
cat > "$T/cfg/h.deps" <<'DEPS'
parameters = [ "n", "p" ];
functions = ( { name = "main"; deps = ( [ "n" ] ); }, { name = "comm"; deps = ( [ "p" ] ); } );
DEPS
B=$T/cfg/h.campaign     # beside the config
E=$T/else/h.campaign    # elsewhere, run from another directory
# (one run at a time in the same order: the same values in the same order, bit for bit the same fits)
(cd "$T/cfg" && "$PS" run h.cfg --jobs 1 --quiet > /dev/null 2>&1); is $? 0 "the campaign runs beside its config"
(cd "$T/other" && "$PS" run ../cfg/h.cfg --dir ../else/h.campaign --jobs 1 --quiet > /dev/null 2>&1)
is $? 0 "and again under --dir elsewhere, from another directory"

# ---- the campaign's dependency file, wherever the campaign is
(cd "$T/cfg" && "$PS" validate h.campaign --json > "$T/vb.json"); is $? 3 "validate DIR beside the config: blocked"
(cd / && "$PS" validate "$E" --json > "$T/ve.json"); is $? 3 "validate DIR elsewhere, from /: blocked too"
# the same report but for what the two campaigns' runs used and whether they were disturbed
# (measured, so never the same twice; on a loaded machine runs pass 0.1 s and are judged)
verdict_only() {
	perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
		sub strip { my $x = shift;
			if (ref $x eq "HASH") { delete $x->{$_} for grep { /cpu_share|resources|usage|disturbed|share_explains|unexplained|judged|nivcsw/ } keys %$x; strip($_) for values %$x }
			elsif (ref $x eq "ARRAY") { strip($_) for @$x } }
		strip($j); my $t = JSON::PP->new->canonical->encode($j);
		$t =~ s/; the ranks\x27 CPU share[^"]*//g; print $t' < "$1"
}
[ "$(verdict_only "$T/vb.json")" = "$(verdict_only "$T/ve.json")" ]; ok $? "the same report (what the runs used aside)"
is "$(json "$T/ve.json" 'join " ", map { "$_->{kind}:$_->{parameter}" } @{$j->{flags}}')" \
   "contention:p false-dependency:p" "without --deps: the contention and false dependency the dependency file reveals"
is "$(json "$T/ve.json" 'join " ", map { "$_->{check}=$_->{status}" } grep { $_->{check} =~ /^(contention|false-dependency)$/ } @{$j->{checks}}')" \
   "contention=flagged false-dependency=flagged" "the checks that need the dependency file ran"
"$PS" validate "$E" --deps "$T/cfg/h.deps" --json > "$T/vd.json"
cmp -s "$T/vd.json" "$T/ve.json"; ok $? "as with --deps given"

(cd "$T/cfg" && "$PS" model h.campaign --json > "$T/mb.json"); is $? 0 "model DIR beside the config"
(cd / && "$PS" model "$E" --json > "$T/me.json"); is $? 0 "model DIR elsewhere"
cmp -s "$T/mb.json" "$T/me.json"; ok $? "the same models"
is "$(json "$T/me.json" '$j->[0]{function} . " " . ($j->[0]{constrained} ? "constrained" : "black box")')" \
   "main constrained" "the campaign's dependency file constrains the model"

(cd "$T/cfg" && "$PS" refine h.campaign --dry-run --json > "$T/rb.json"); is $? 0 "refine --dry-run --json beside"
(cd / && "$PS" refine "$E" --dry-run --json > "$T/re.json"); is $? 0 "refine --dry-run --json elsewhere"
cmp -s "$T/rb.json" "$T/re.json"; ok $? "the same proposals"
is "$(json "$T/re.json" '$j->{verdict}')" "blocked" "refine sees the contention"

verdicts() { grep -E '^(round|stopped|publishable)' "$1"; }
(cd "$T/cfg" && "$PS" run h.cfg --until publishable --quiet > "$T/ub.out" 2> /dev/null); is $? 3 "run --until beside: exit 3"
(cd "$T/other" && "$PS" run ../cfg/h.cfg --dir ../else/h.campaign --until publishable --quiet > "$T/ue.out" 2> /dev/null)
is $? 3 "run --until under --dir elsewhere: exit 3 too"
is "$(verdicts "$T/ue.out")" "$(verdicts "$T/ub.out")" "the same verdicts"
like "$(cat "$T/ue.out")" "round 1: blocked" "blocked by the contention"

# ---- the dependency file gone: named in one line, no verdict without it
mv "$T/cfg/h.deps" "$T/h.deps.away"
gone() {  # gone LABEL EXIT COMMAND...
	local label=$1 want=$2; shift 2
	"$@" > "$T/out" 2> "$T/err"
	is $? "$want" "$label: exit $want"
	is "$(wc -l < "$T/err" | tr -d ' ')" 1 "$label: one line"
	like "$(cat "$T/err")" "'$T/cfg/h.deps'" "$label: names the missing file"
	ok $(! grep -q "verdict\|round\|proposals" "$T/out"; echo $?) "$label: no verdict without it"
}
gone "validate" 2 "$PS" validate "$E"
like "$(cat "$T/err")" "dependency file '$T/cfg/h.deps' of campaign 'h' is missing; give --deps FILE or restore it" \
     "validate: says what to do"
gone "model" 2 "$PS" model "$E"
gone "refine" 2 "$PS" refine "$E" --dry-run --json
gone "run --until" 2 "$PS" run "$T/cfg/h.cfg" --dir "$E" --until publishable --quiet
"$PS" validate "$E" --deps "$T/h.deps.away" > /dev/null 2>&1; is $? 3 "--deps FILE still overrides"
# top's v key: a message line naming the file, not a report made without it
if command -v tmux > /dev/null; then
	TM="tmux -L ps83-$$ -f /dev/null"
	trap '$TM kill-server 2> /dev/null; rm -rf "$T"' EXIT
	$TM new-session -d -s v -x 220 -y 24 "cd / && '$PS' top '$E' -d 0.5; sleep 600"
	shown() {  # shown TEXT: poll the screen until TEXT shows up (10 s at most)
		for _ in $(seq 1 50); do
			$TM capture-pane -p -t v | grep -qF -- "$1" && return 0
			sleep 0.2
		done
		return 1
	}
	shown "h (local)"; ok $? "top shows the campaign"
	$TM send-keys -t v v
	shown "validate: dependency file '$T/cfg/h.deps' of campaign 'h' is missing"; ok $? "top's v: one message line naming the file"
	ok $(! $TM capture-pane -p -t v | grep -q "validator report:"; echo $?) "and no report without it"
	$TM kill-server 2> /dev/null
else
	ok 0 "# skip top: tmux is not installed"; ok 0 "# skip"; ok 0 "# skip"
fi
mv "$T/h.deps.away" "$T/cfg/h.deps"

# ---- growth refuses a change of what stored runs mean, before writing anything
cat > "$T/g.cfg" <<CFG
name = "g";
app = { command = [ "$T/app.sh", "{n}", "1", "{rep}" ]; };
parameters = ( { name = "n"; values = [ 2, 4 ]; }, { name = "np"; values = [ 1 ]; } );
repetitions = 1;
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time ([0-9.]+)"; } ); };
CFG
G=$T/g.campaign
"$PS" run "$T/g.cfg" --quiet > /dev/null 2>&1; is $? 0 "a local campaign runs"
sqlite3 "$G/campaign.db" .dump > "$T/g.before"
refused() {  # refused LABEL CONFIG KEY-TEXT [ENV...]
	local label=$1 cfg=$2 key=$3; shift 3
	env "$@" "$PS" run "$cfg" --dir "$G" > "$T/out" 2> "$T/err"
	is $? 2 "$label: run exits 2"
	is "$(wc -l < "$T/err" | tr -d ' ')" 1 "$label: one line"
	like "$(cat "$T/err")" "$key" "$label: names the key with its old and new values"
	like "$(cat "$T/err")" "use a new campaign directory (--dir)" "$label: suggests a new campaign directory"
	sqlite3 "$G/campaign.db" .dump > "$T/g.after"
	cmp -s "$T/g.before" "$T/g.after"; ok $? "$label: the store is unchanged"
}
sed 's/values = \[ 1 \]; }/values = [ 1 ]; role = "ranks"; }/' "$T/g.cfg" > "$T/role.cfg"
refused "a role added" "$T/role.cfg" "role.cfg:3: the role of parameter 'np' differs from the campaign in '$G' (none there, \"ranks\" here"
sed 's/^repetitions = 1;/repetitions = 2;\nbackend = "slurm";/' "$T/g.cfg" > "$T/slurm.cfg"
refused "local to slurm, no slurm.conf" "$T/slurm.cfg" "backend differs from the campaign in '$G' (\"local\" there, \"slurm\" here" \
	SLURM_CONF="$T/nonexistent.conf"
"$PS" plan "$T/slurm.cfg" --dir "$G" > /dev/null 2> "$T/err"; is $? 2 "plan --dir refuses it too"
like "$(cat "$T/err")" "backend differs" "naming the key"
"$PS" status "$G" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{backend}')" "local" "status still says local"

# the placement of an existing point (one rank, so one core is enough)
cat > "$T/p.cfg" <<CFG
name = "pl";
app = { command = [ "$T/app.sh", "{n}", "1", "{rep}" ]; };
parameters = ( { name = "n"; values = [ 2 ]; }, { name = "np"; values = [ 1 ]; role = "ranks"; } );
repetitions = 1;
placement = { ranks_per_node = [ 1 ]; policy = "compact"; };
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time ([0-9.]+)"; } ); };
CFG
"$PS" run "$T/p.cfg" --dir "$T/pl.campaign" --quiet > /dev/null 2>&1; is $? 0 "a placed campaign runs"
G=$T/pl.campaign
sqlite3 "$G/campaign.db" .dump > "$T/g.before"
sed 's/"compact"/"spread"/' "$T/p.cfg" > "$T/spread.cfg"
refused "another placement policy" "$T/spread.cfg" "placement.policy: the placement of the campaign's point (n=2, np=1, ranks_per_node=1)"

# ---- refine on imported measurements: one line, nothing written
cat > "$T/noisy.txt" <<'TXT'
PARAMETER n

POINTS ( 2 )
POINTS ( 4 )
POINTS ( 6 )
POINTS ( 8 )
POINTS ( 10 )

REGION main
METRIC time
DATA 0.022 0.0221 0.0219 0.0220 0.0222
DATA 0.024 0.0241 0.0239 0.0240 0.0242
DATA 0.026 0.036 0.046 0.031 0.041
DATA 0.028 0.0281 0.0279 0.0280 0.0282
DATA 0.030 0.0301 0.0299 0.0300 0.0302
TXT
"$PS" import --text "$T/noisy.txt" --out "$T/imp" --quiet; is $? 0 "import a noisy Extra-P file"
"$PS" validate "$T/imp" > /dev/null 2>&1; is $? 3 "validate: blocked by the noisy point"
sqlite3 "$T/imp/campaign.db" .dump > "$T/i.before"
for args in "" "--dry-run --json"; do
	"$PS" refine "$T/imp" $args > "$T/out" 2> "$T/err"
	is $? 2 "refine $args on imported measurements: exit 2"
	is "$(wc -l < "$T/err" | tr -d ' ')" 1 "refine $args: one line"
	like "$(cat "$T/err")" "'$T/imp' holds imported measurements without a config to run new runs with" "refine $args: says why"
done
sqlite3 "$T/imp/campaign.db" .dump > "$T/i.after"
cmp -s "$T/i.before" "$T/i.after"; ok $? "refine wrote nothing"

# ---- a refine point beyond the config's range is kept, not retired
# (a jump of +0.02 s at n=16, the largest value: the model is unstable beyond it)
noisy_cfg "$T/seg.cfg" seg "$T/s2" "2, 4, 6, 8, 10, 12, 14, 16" 3 ', "NOISY_JUMP=0.02", "NOISY_AT=16"'
D=$T/seg.campaign
"$PS" run "$T/seg.cfg" --quiet > /dev/null 2>&1; is $? 0 "the campaign runs"
"$PS" refine "$D" --json > "$T/seg.json"; is $? 0 "refine"
is "$(json "$T/seg.json" 'join " ", sort map { "n=$_->{params}{n}" } @{$j->{proposals}}')" "n=18" \
   "it adds n=18 beyond the range"
"$PS" run "$D" --quiet > /dev/null 2>&1; is $? 0 "run DIR executes them"
"$PS" plan "$T/seg.cfg" --dir "$D" > "$T/plan.txt"; is $? 0 "plan --dir with the config unchanged"
like "$(cat "$T/plan.txt")" "retired: 0 runs" "nothing is retired"
like "$(cat "$T/plan.txt")" "outside the plan: 1 point added by refine kept (3 runs)" "the refine point is kept, and said so"
"$PS" plan "$T/seg.cfg" --dir "$D" --json > "$T/plan.json"
is "$(json "$T/plan.json" 'join " ", map { $j->{diff}{$_} } qw(retired retired_points kept_outside_points kept_outside)')" \
   "0 0 1 3" "plan --json: diff.retired 0, kept_outside_points 1"
"$PS" run "$T/seg.cfg" --quiet > /dev/null 2> "$T/err"; is $? 0 "run CONFIG again"
ok $(! grep -q "retired\|grew" "$T/err"; echo $?) "run does not claim that anything grew or retired"

# ---- an unknown aggregate: model and validate refuse it alike
cp -r "$B" "$T/agg.campaign"
sqlite3 "$T/agg.campaign/campaign.db" "UPDATE meta SET value = replace(value, 'analysis = { min_cpu_share', 'analysis = { aggregate = \"mode\"; min_cpu_share') WHERE key = 'config'"
"$PS" model "$T/agg.campaign" > /dev/null 2> "$T/model.err"; is $? 2 "model: a stored unknown aggregate exits 2"
"$PS" validate "$T/agg.campaign" > /dev/null 2> "$T/validate.err"; is $? 2 "validate: exits 2 too"
is "$(cat "$T/validate.err")" "$(cat "$T/model.err")" "with the same line"
like "$(cat "$T/model.err")" "$T/agg.campaign/campaign.db (stored config):7: unknown aggregate 'mode'; use mean, median or min" \
     "naming the stored config, its line and the choices"
"$PS" model "$T/agg.campaign" --aggregate mode > /dev/null 2> "$T/model.err"; is $? 2 "model --aggregate mode exits 2"
"$PS" validate "$T/agg.campaign" --aggregate mode > /dev/null 2> "$T/validate.err"; is $? 2 "validate --aggregate mode exits 2"
is "$(head -n 1 "$T/validate.err")" "$(head -n 1 "$T/model.err")" "with the same line, naming the option"
done_testing
