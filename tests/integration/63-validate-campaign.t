#!/usr/bin/env bash
# perfsweep validate on a campaign directory: the store is read, the HTML
# report shows the campaign's placements and cost.  The run times of this
# machine decide the flags, so only the structure is checked here.
. "$(dirname "$0")/../lib/tap.sh"
set -u

cat > "$T/c.cfg" <<CFG
name = "vcamp";
app = { command = [ "$BIN/demo-app", "-n", "{n}", "-i", "1", "-k", "stream" ]; timeout = 60.0; };
parameters = (
  { name = "n";  values = [ 4, 8, 12 ]; },
  { name = "np"; values = [ 1, 2 ]; role = "ranks"; }
);
repetitions = 2;
backend = "local";
analysis = { min_cpu_share = 0.0; };   # what is checked here is reading a campaign: a loaded machine leaves no run out
collect = { wall = false; regex = ( { region = "stream"; metric = "time"; pattern = "stream: ([0-9.eE+-]+) s"; } ); };
CFG
cat > "$T/c.deps" <<'CFG'
parameters = [ "n", "np" ];
functions = ( { name = "stream"; deps = ( [ "n" ] ); expect = "n"; } );
CFG
"$PS" run "$T/c.cfg" --dir "$T/camp" --jobs 1 --quiet >"$T/run.out" 2>&1
ok $? "the campaign runs"

"$PS" validate "$T/camp" --deps "$T/c.deps" --json --html "$T/r.html" >"$T/out.json" 2>"$T/err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ]; ok $? "validate reads the campaign (exit $rc, not an input error)"
[ ! -s "$T/err" ] || sed 's/^/# /' "$T/err" >&2
perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
	my ($r) = grep { $_->{callpath} eq "stream" } @{$j->{regions}};
	exit !($r && $r->{points} == 6 && JSON::PP->new->canonical->encode($r->{dependencies}) eq "[[\"n\"]]")' <"$T/out.json"
ok $? "the stream region has 6 points and its dependencies"
grep -q "<h2>Placements</h2>" "$T/r.html"; ok $? "html lists the placements"
grep -q "cost (core-hours)</th><td>planned [0-9.e+-]*, spent [0-9]" "$T/r.html"; ok $? "html shows the cost"
grep -q "<title>vcamp</title>" "$T/r.html"; ok $? "html is titled with the campaign name"

done_testing
