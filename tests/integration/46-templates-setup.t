#!/usr/bin/env bash
# Input templates and set-up steps (docs/config.md): a template filled per
# run in its directory, set-up steps run once per distinct value they use
# (counted by the steps themselves), reused by a later run, made again when
# they change, their failure a clear run failure; and plan refusing a
# campaign whose workdir, template or set-up program is not there.
. "$(dirname "$0")/../lib/tap.sh"
cd "$T" || exit 1

# the program reads its templated input and the set-up's output
cat > app.sh <<'SH'
#!/bin/sh
cat in.txt
cat "$1/made.txt"
SH
# a set-up step: counts its calls, writes what it was given, keeps the template's text
cat > mk.sh <<'SH'
#!/bin/sh
echo "$1" >> "$COUNT"
{ echo "made for L=$1"; cat box.top; } > made.txt
SH
chmod +x app.sh mk.sh
printf 'box {L} steps {steps} rep {rep} run_dir {run_dir}\nkept: ${x} {unknown} {{literal}}\n' > in.tmpl
printf 'topology of L={L}\n' > box.top
cat > t.cfg <<CFG
name = "tpl";
app = { command = [ "./app.sh", "{setup}" ];
        env = [ "COUNT=$T/count" ];
        template = ( { from = "in.tmpl"; to = "in.txt"; },
                     { from = "box.top"; to = "box.top"; into = "setup"; } );
        setup = ( [ "./mk.sh", "{L}" ] ); };
parameters = ( { name = "L"; values = [ 3, 4 ]; }, { name = "steps"; values = [ 10, 20 ]; } );
repetitions = 2;
collect = { regex = ( { region = "r"; pattern = "box ([0-9]+)"; } ); };
CFG
COUNT=$T/count "$PS" run t.cfg --quiet > run.out 2>&1; is $? 0 "8 runs of 4 points complete"
is "$(sort count | tr '\n' ' ')" "3 4 " "the set-up step ran once per L (it uses L, not steps): twice for 8 runs"
ok $([ -d tpl.campaign/setup/L=3 ] && [ -d tpl.campaign/setup/L=4 ]; echo $?) "in setup/L=3 and setup/L=4"
r1=tpl.campaign/runs/1
line=$(head -1 $r1/stdout)
case "$line" in "box "[34]" steps "[12]"0 rep "[12]" run_dir $T/tpl.campaign/runs/1") ok 0 "the template is filled in the run's directory";;
	*) ok 1 "the template is filled in the run's directory"; diag "$line";; esac
is "$(sed -n 2p $r1/stdout)" 'kept: ${x} {unknown} {literal}' "an input's own braces are kept, {{ }} are braces"
L=$(head -1 $r1/stdout | cut -d' ' -f2)
is "$(sed -n 3,4p $r1/stdout | tr '\n' '|')" "made for L=$L|topology of L=$L|" \
	"the run reads its set-up's output through {setup}, and the set-up template was filled there"
: > count
COUNT=$T/count "$PS" run t.cfg --dir again --quiet > /dev/null 2>&1
rm -rf again/setup/L=4
sed -i 's/repetitions = 2;/repetitions = 3;/' t.cfg
COUNT=$T/count "$PS" run t.cfg --dir again --quiet > run.out 2>&1; is $? 0 "a grown campaign runs its new repetitions"
is "$(sort count | tr '\n' ' ')" "3 4 4 " "its finished set-up is reused; a removed one is made again"
printf 'topology v2 of L={L}\n' > box.top
: > count
sed -i 's/repetitions = 3;/repetitions = 4;/' t.cfg
COUNT=$T/count "$PS" run t.cfg --dir again --quiet > /dev/null 2>&1
is "$(sort count | tr '\n' ' ')" "3 4 " "a changed set-up template makes the set-up again"
like "$(tail -1 "$(ls -d again/runs/* | sort -t/ -k3 -n | tail -1)/stdout")" "topology v2" "and runs read the new one"
: > count
sed -i 's/repetitions = 4;/repetitions = 5;/' t.cfg
COUNT=$T/count "$PS" run t.cfg --dir again --quiet > /dev/null 2>&1
is "$(sort count | tr '\n' ' ')" "" "then it is kept again"

sed 's|"./mk.sh", "{L}"|"./mk.sh", "{L}", "v2"|' t.cfg > t2.cfg
out=$("$PS" run t2.cfg --dir again --quiet 2>&1); is $? 2 "other set-up steps are refused for a campaign that ran"
like "$out" "t2.cfg:6: app.setup differs from the campaign" "naming app.setup"

# a failing step: the runs of its value fail with the reason, the others run
cat > fail.sh <<'SH'
#!/bin/sh
echo "$1" >> "$COUNT"
[ "$1" = 4 ] && { echo "no box of 4" >&2; exit 3; }
echo ok > made.txt
SH
chmod +x fail.sh
sed -e 's/"tpl"/"fail"/' -e 's|"./mk.sh"|"./fail.sh"|' -e 's/repetitions = [0-9];/repetitions = 2;/' \
    -e '/into = "setup"/d' -e 's/{ from = "in.tmpl"; to = "in.txt"; },/{ from = "in.tmpl"; to = "in.txt"; } );/' t.cfg > fail.cfg
: > count
COUNT=$T/count "$PS" run fail.cfg --quiet > run.out 2>&1; is $? 1 "run exits 1 when a set-up step fails"
like "$("$PS" status fail.campaign)" "4 failed" "the 4 runs at L=4 failed"
"$PS" status fail.campaign --json > s.json
is "$(json s.json 'join "|", sort { $a cmp $b } keys %{{ map { ($_->{reason} // "") => 1 } @{$j->{problems}} }}')" \
	"set-up step 1 (./fail.sh) exited with status 3; its output is in $T/fail.campaign/setup/L=4/setup-1.stderr" \
	"each with the step, its status and where its output is"
is "$(cat fail.campaign/setup/L=4/setup-1.stderr)" "no box of 4" "which holds the step's stderr"
is "$(sort count | tr '\n' ' ')" "3 4 " "the failing step ran once, not once per run"

# SIGINT while a set-up step runs: the step is stopped, the run stays pending
cat > slow.sh <<'SH'
#!/bin/sh
echo $$ > "$1/slow.pid"
exec sleep 300
SH
chmod +x slow.sh
printf 'name = "slow";\napp = { command = [ "/bin/true", "{setup}" ]; setup = ( [ "./slow.sh", "%s" ] ); };\nparameters = ( { name = "n"; values = [ 1 ]; } );\nrepetitions = 1;\n' "$T" > slow.cfg
"$PS" run slow.cfg --quiet > slow.out 2>&1 &
pid=$!
for _ in $(seq 600); do [ -s slow.pid ] && break; sleep 0.1; done
kill -INT $pid
wait $pid; rc=$?
ok $([ "$rc" != 0 ] && ! kill -0 "$(cat slow.pid)" 2> /dev/null; echo $?) "SIGINT stops run and its set-up step (exit $rc)"
like "$("$PS" status slow.campaign)" "1 pending" "the run stays pending"

# plan refuses missing files, naming the key's line
mkcfg() {   # NAME APP-LINES
	printf 'name = "%s";\napp = { command = [ "./app.sh" ];\n%s };\nparameters = ( { name = "L"; values = [ 1 ]; } );\n' "$1" "$2" > "$1.cfg"
}
mkcfg wd '  workdir = "nowhere";'
out=$("$PS" plan wd.cfg 2>&1); is $? 2 "a missing workdir is refused by plan"
is "$out" "error: wd.cfg:3: app.workdir '$T/nowhere' does not exist; create it or fix the path" "naming its line"
out=$("$PS" run wd.cfg --quiet 2>&1); is $? 2 "and by run"
ok $([ ! -e wd.campaign ]; echo $?) "before anything is created"
mkcfg tp '  template = ( { from = "in.tmpl"; to = "a"; },
    { from = "gone.tmpl"; to = "b"; } );'
out=$("$PS" plan tp.cfg 2>&1); is $? 2 "a missing template is refused"
is "$out" "error: tp.cfg:4: template '$T/gone.tmpl' cannot be read: No such file or directory" "naming its from"
mkcfg st '  setup = ( [ "./mk.sh" ], [ "no-such-program-45" ] );'
out=$("$PS" plan st.cfg 2>&1); is $? 2 "a set-up program not in PATH is refused"
is "$out" "error: st.cfg:3: set-up step 2: program 'no-such-program-45' is not in PATH; install it or give its path" "naming the step"
mkcfg sp '  setup = ( [ "{config_dir}/gone.sh" ] );'
like "$("$PS" plan sp.cfg 2>&1)" "sp.cfg:3: set-up step 1: program '$T/gone.sh' does not exist" "a set-up path is checked"
mkcfg pr '  setup = ( [ "./mk.sh", "{rep}" ] );'
like "$("$PS" plan pr.cfg 2>&1)" "pr.cfg:3: a set-up step runs once for all runs of its values: {rep} differs from run to run" \
	"a per-run placeholder in a set-up step is refused"
mkcfg to '  template = ( { from = "in.tmpl"; to = "../x"; } );'
like "$("$PS" plan to.cfg 2>&1)" "to.cfg:3: template target '../x': " "a template target outside its directory is refused"
mkcfg one '  setup = [ "./mk.sh", "x" ];'
like "$("$PS" plan one.cfg 2>&1)" "one.cfg:3: app.setup is a list of steps, each an argument list" "one step without its list is refused"
done_testing
