#!/usr/bin/env bash
# Sanity checks (docs/config.md, "Sanity checks"): a run that exits 0
# without "Finished" in its output failed; it is retried within
# max_attempts, and its measurements are never stored or modelled.
. "$(dirname "$0")/../lib/tap.sh"
cd "$T" || exit 1

# the first attempt of each run gives up quietly (exit 0, no "Finished");
# later attempts finish, on stderr as gmx mdrun does, and write a log
cat > app.sh <<'SH'
#!/bin/sh
echo "solve: $1 s"
if [ -e "$MARKS/$PERFSWEEP_RUN_ID" ]; then
	echo "Finished app on rank 0" >&2
	echo "Performance: 12.5 ns/day" > md.log
else
	: > "$MARKS/$PERFSWEEP_RUN_ID"
fi
exit 0
SH
chmod +x app.sh
mkdir marks
cat > s.cfg <<CFG
name = "san";
app = { command = [ "$T/app.sh", "{n}" ]; env = [ "MARKS=$T/marks" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; } );
repetitions = 1;
max_attempts = 2;
collect = { regex = ( { region = "solve"; pattern = "solve: ([0-9.]+) s"; } );
            sanity = ( "Finished app", { pattern = "^Performance:"; file = "md.log"; } ); };
CFG
"$PS" run s.cfg > run.out 2>&1; is $? 0 "every run is done after its retry"
is "$(grep -c 'retry: sanity check failed: "Finished app" not found in stdout or stderr' run.out)" 2 \
	"each first attempt failed its sanity check, saying which pattern and where"
is "$("$PS" status san.campaign --json | perl -MJSON::PP -0 -ne 'my $j = decode_json($_); print "$j->{done} $j->{failed}"')" \
	"2 0" "2 done, none failed"
is "$("$PS" export san.campaign --format csv | grep -c ',"solve",')" 2 "one solve value per run: the failed attempts' were not stored"

# one attempt only: the run stays failed and is never modelled
rm -f marks/*
sed -e 's/"san"/"once"/' -e 's/max_attempts = 2;/max_attempts = 1;/' s.cfg > once.cfg
"$PS" run once.cfg --quiet > run.out 2>&1; is $? 1 "with max_attempts = 1 run exits 1"
"$PS" status once.campaign --json > s.json
is "$(json s.json '$j->{failed} . " " . $j->{done} . " " . $j->{measurements}')" "2 0 0" "both runs failed, nothing measured"
"$PS" model once.campaign > m.out 2>&1
ok $(grep -q 'solve' m.out; echo $((1 - $?))) "model has nothing of them"

# a missing file is named
rm -f marks/*
printf 'x\n' > marks/1; printf 'x\n' > marks/2
sed -e 's/"san"/"nolog"/' -e 's/file = "md.log"/file = "other.log"/' s.cfg > nolog.cfg
"$PS" run nolog.cfg > run.out 2>&1
like "$(cat run.out)" "sanity check failed: file 'other.log' is missing in the run directory (looking for \"^Performance:\")" \
	"a check's missing file is named"

# config errors
bad() {   # NAME SANITY WANT
	printf 'name = "b";\napp = { command = [ "/bin/true" ]; };\nparameters = ( { name = "n"; values = [ 1 ]; } );\ncollect = { sanity = %s; };\n' "$2" > "$1.cfg"
	out=$("$PS" plan "$1.cfg" 2>&1); rc=$?
	is "$rc" 2 "$1: refused"
	like "$out" "$3" "$1: $3"
}
bad regex '( "Finished (" )' "regex.cfg:4: invalid regular expression"
bad both '( { pattern = "x"; stream = "stdout"; file = "a.log"; } )' "both.cfg:4: a sanity check reads either a stream or a file"
bad empty '( "" )' "empty.cfg:4: an empty sanity pattern matches anything"
bad string '"Finished"' "string.cfg:4: collect.sanity must be a list: sanity = ( \"Finished mdrun\" );"
bad out '( { pattern = "x"; file = "../x"; } )' "out.cfg:4: file must stay inside the run directory"
done_testing
