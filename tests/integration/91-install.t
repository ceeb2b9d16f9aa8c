#!/usr/bin/env bash
# make install into a DESTDIR, then use only what was installed: the demo
# and a placement campaign run with the installed perfsweep and
# perfsweep-bind (the source tree's bin/ out of PATH, PERFSWEEP_BIN unset),
# the man pages render, the bash completion completes; make uninstall
# leaves nothing behind.
. "$(dirname "$0")/../lib/tap.sh"
D=$T/dest
P=/opt/perfsweep        # not the default, so that nothing assumes /usr/local
# Install the programs this suite tested (-o: never rebuild them here).
make -s -C "$ROOT" install DESTDIR="$D" PREFIX=$P BIN="$BIN" \
	-o "$BIN/perfsweep" -o "$BIN/perfsweep-bind" -o "$BIN/demo-app" > "$T/install.log" 2>&1
rc=$?
is "$rc" 0 "make install DESTDIR=... PREFIX=$P"
[ $rc = 0 ] || diag < "$T/install.log"

want="bin/perfsweep bin/perfsweep-bind share/bash-completion/completions/perfsweep
share/man/man1/perfsweep-bind.1 share/man/man1/perfsweep.1 share/man/man5/perfsweep-deps.5
share/man/man5/perfsweep.cfg.5 share/perfsweep/bin/demo-app
share/perfsweep/configs/contention-llc-local.cfg share/perfsweep/configs/contention-llc-local.deps
share/perfsweep/configs/contention-local.cfg share/perfsweep/configs/contention-local.deps
share/perfsweep/configs/contention-slurm.cfg share/perfsweep/configs/cpusets-jobs2.cfg
share/perfsweep/configs/demo-slurm.cfg share/perfsweep/configs/demo-sparse.cfg
share/perfsweep/configs/demo.cfg share/perfsweep/configs/demo.deps
share/perfsweep/configs/hpcc-run.sh share/perfsweep/configs/hpcc-slurm.cfg
share/perfsweep/configs/hpcc.deps share/perfsweep/configs/last-core.map
share/perfsweep/configs/lulesh-sparse.cfg share/perfsweep/configs/oversubscribed-llc-local.cfg
share/perfsweep/configs/oversubscribed-local.cfg
share/perfsweep/configs/oversubscribed-local.deps
share/perfsweep/data/lulesh/ATTRIBUTION share/perfsweep/data/lulesh/lulesh.ll.json
share/perfsweep/examples/demo-app.c share/perfsweep/examples/gromacs/em.mdp
share/perfsweep/examples/gromacs/gmx-run.sh
share/perfsweep/examples/gromacs/gmx-shim.sh share/perfsweep/examples/gromacs/gromacs-ranks.cfg
share/perfsweep/examples/gromacs/gromacs.cfg share/perfsweep/examples/gromacs/md.mdp
share/perfsweep/examples/gromacs/rdtscp-shim.cpp share/perfsweep/examples/gromacs/run.sh
share/perfsweep/examples/gromacs/topol.top share/perfsweep/examples/lammps/in.lj.tmpl
share/perfsweep/examples/lammps/lammps.cfg share/perfsweep/examples/lammps/run.sh"
is "$(cd "$D$P" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')" "$(echo $want) " "the installed files"
ok $(cd "$D$P" && [ -x bin/perfsweep ] && [ -x bin/perfsweep-bind ] && [ -x share/perfsweep/bin/demo-app ] &&
	[ -x share/perfsweep/configs/hpcc-run.sh ] && [ ! -x share/perfsweep/configs/demo.cfg ]; echo $?) "modes: programs 755, data 644"

# From here on only the installed tree: no source bin/ in PATH, no PERFSWEEP_BIN.
unset PERFSWEEP_BIN PERFSWEEP_ROOT
export PATH="$D$P/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"
is "$(command -v perfsweep)" "$D$P/bin/perfsweep" "perfsweep resolves to the installed one"
cd "$T" || exit 1

# The demo campaign, small: the installed configs and demo program, copied.
mkdir work && cp -r "$D$P/share/perfsweep/configs" "$D$P/share/perfsweep/bin" work/
sed -i -e 's/values = \[ 72, 84, 98, 114, 134, 156, 182, 212 \]/values = [ 72, 84 ]/' \
       -e 's/values = \[ 1, 2, 3, 4, 5 \]/values = [ 1, 2 ]/' -e 's/^repetitions = 3/repetitions = 1/' work/configs/demo.cfg
perfsweep run work/configs/demo.cfg --dir demo.campaign --quiet > run.out 2>&1
is $? 0 "the demo campaign runs with the installed programs"
is "$(perfsweep status demo.campaign --json | json /dev/stdin '$j->{done}')" 4 "4 runs done"
is "$(perfsweep export demo.campaign --format csv | grep -c '"dense",time')" 4 "each measured its dense kernel"

# Placement: the installed perfsweep starts the ranks through the installed perfsweep-bind.
sed -i -e 's/values = \[ 32, 48, 64 \]/values = [ 32 ]/' -e 's/^repetitions = 5/repetitions = 1/' \
       -e 's/"{i}", "-k"/"1", "-k"/' work/configs/contention-local.cfg
perfsweep run work/configs/contention-local.cfg --dir cont.campaign --quiet > run.out 2>&1
is $? 0 "a placement campaign runs with the installed perfsweep-bind"
is "$(ls cont.campaign/runs/*/rank-*.json 2>/dev/null | wc -l)" 3 "rank records of 1 + 2 ranks"
# Without perfsweep-bind beside it, perfsweep finds it in PATH.
mkdir solo && cp "$D$P/bin/perfsweep" solo/
solo/perfsweep run work/configs/contention-local.cfg --dir cont2.campaign --quiet > run.out 2>&1
is $? 0 "a perfsweep alone finds perfsweep-bind in PATH"
is "$(ls cont2.campaign/runs/*/rank-*.json 2>/dev/null | wc -l)" 3 "and binds its ranks"
PATH=/usr/bin:/bin solo/perfsweep run work/configs/contention-local.cfg --dir cont3.campaign --quiet > run.out 2>&1
is $? 1 "with perfsweep-bind nowhere, the runs fail"
like "$(perfsweep status cont3.campaign --json | json /dev/stdin '$j->{problems}[0]{reason}')" "perfsweep-bind" "naming perfsweep-bind"

# The other installed configs plan as they are.
for c in demo-slurm contention-slurm hpcc-slurm lulesh-sparse; do
	perfsweep plan "$D$P/share/perfsweep/configs/$c.cfg" > plan.out 2>&1
	is $? 0 "installed $c.cfg plans"
done

# Man pages from the installed tree.
for m in man1/perfsweep.1 man1/perfsweep-bind.1 man5/perfsweep.cfg.5 man5/perfsweep-deps.5; do
	MANWIDTH=80 man -l "$D$P/share/man/$m" > man.out 2> man.err
	is "$?:$(cat man.err):$(grep -c '^NAME' man.out)" "0::1" "man -l renders installed $m"
done

like "$(cat "$D$P/share/man/man1/perfsweep.1")" "Pa $P/share/perfsweep/configs/" "the man pages name this PREFIX's data directory"

# Bash completion: commands, options, config files, campaign directories.
complete_words() {  # complete_words WORD...: the completions of the last word
	bash -c 'shopt -s extglob; . "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_perfsweep; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ \
		"$D$P/share/bash-completion/completions/perfsweep" "$@"
}
cmds=$(perfsweep help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' | sort | tr '\n' ' ')
is "$(complete_words perfsweep '')" "--version $cmds" "completes every command"
is "$(complete_words perfsweep va)" "validate " "completes a command prefix"
is "$(complete_words perfsweep run --)" "--dir --for --jobs --quiet --rounds --target --until --wait-quiet " "completes a command's options"
is "$(complete_words perfsweep export demo.campaign --format '')" "csv extrap-text json jsonl $(perfsweep help export | grep -q reference && echo 'reference ')" \
	"completes --format values"
mkdir -p comp/a.campaign comp/b.campaign comp/plain && touch comp/a.campaign/campaign.db comp/b.campaign/campaign.db comp/x.cfg comp/y.txt
is "$(complete_words perfsweep status comp/)" "comp/a.campaign comp/b.campaign " "status completes campaign directories"
is "$(complete_words perfsweep run comp/)" "comp/a.campaign comp/b.campaign comp/plain comp/x.cfg " "run completes config files and directories"
is "$(complete_words perfsweep help vali)" "validate " "help completes commands"

# make uninstall removes every file and our own directories.
PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin make -s -C "$ROOT" uninstall DESTDIR="$D" PREFIX=$P > un.log 2>&1
is $? 0 "make uninstall"
is "$(find "$D" -type f -o -type l | wc -l)" 0 "no file is left"
is "$(find "$D$P" -mindepth 1 -name '*perfsweep*' | wc -l)" 0 "no perfsweep directory is left under PREFIX"
done_testing
