#!/usr/bin/env bash
# The man pages: mandoc -Tlint finds nothing at warning level or above, man -l
# renders each without a troff complaint, and the pages document what the
# program has: every command and option of `perfsweep help`, every key the
# campaign and dependency file readers accept.
. "$(dirname "$0")/../lib/tap.sh"
MAN=$ROOT/docs/man
pages="perfsweep.1 perfsweep-bind.1 perfsweep.cfg.5 perfsweep-deps.5"

for p in $pages; do
	out=$(mandoc -Tlint -W warning "$MAN/$p" 2>&1); rc=$?
	is "$rc:$out" "0:" "mandoc -Tlint: $p is clean"
	MANWIDTH=80 man -l "$MAN/$p" > "$T/out" 2> "$T/err"; rc=$?
	is "$rc:$(cat "$T/err")" "0:" "man -l renders $p without complaints"
	name=${p%.[15]}
	like "$(head -n 5 "$T/out")" "$(echo "$name" | tr a-z A-Z)(${p##*.})" "$p: header names $name(${p##*.})"
	like "$(tr -s ' \n' ' ' < "$T/out")" "NAME $name " "$p: NAME section"
done

# perfsweep(1): every command of `perfsweep help`, each with every option of its usage.
src=$(cat "$MAN/perfsweep.1")
cmds=$("$PS" help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
ok $([ "$(echo "$cmds" | wc -l)" -ge 12 ]; echo $?) "perfsweep help lists the commands ($(echo $cmds))"
missing=
for c in $cmds compare; do
	grep -q "^\.It Cm $c\( \|$\)" "$MAN/perfsweep.1" || missing="$missing $c"
	for o in $("$PS" help "$c" 2>/dev/null | sed -n 's/^usage: //p' | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "Fl ${o#-}\( \|$\)" "$MAN/perfsweep.1" || missing="$missing $c:$o"
	done
done
is "$missing" "" "perfsweep(1) documents every command and option"
like "$src" ".Sh EXIT STATUS" "perfsweep(1) has the exit statuses"

# perfsweep-bind(1): every option of its usage line.
missing=
for o in $("$BIN/perfsweep-bind" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "Fl ${o#-}\( \|$\)" "$MAN/perfsweep-bind.1" || missing="$missing $o"
done
is "$missing" "" "perfsweep-bind(1) documents every option"

# perfsweep.cfg(5) and perfsweep-deps(5): every key the readers accept.
keys() {  # keys C-FILE: the strings of every `...keys[] = { ... }` / `known[]` table
	perl -0ne 'while (/(?:keys|known)\[\d*\]\s*=\s*\{([^}]*)\}/g) { my $l = $1; print "$1\n" while $l =~ /"([a-z_]+)"/g }' "$1" | sort -u
}
missing=
for k in $(keys "$ROOT/campaign/config.c"); do
	grep -q "Ic $k\b\|\b$k = " "$MAN/perfsweep.cfg.5" || missing="$missing $k"
done
ok $([ "$(keys "$ROOT/campaign/config.c" | wc -l)" -ge 30 ]; echo $?) "config.c's key tables are found"
is "$missing" "" "perfsweep.cfg(5) documents every key config.c accepts"
missing=
for k in parameters functions $(keys "$ROOT/designs/deps_config.c"); do
	grep -q "^\.It Ic .*\b$k\b" "$MAN/perfsweep-deps.5" || missing="$missing $k"
done
is "$missing" "" "perfsweep-deps(5) documents every key of the native form"
done_testing
