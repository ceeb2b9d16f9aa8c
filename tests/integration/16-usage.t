#!/usr/bin/env bash
# Usage texts come from the option rows (cli/usage.c): every option a
# command lists is in its usage line and accepted by its parser, the man
# page's synopsis is the one the rows give, and every command reports a
# usage error in the one style.
. "$(dirname "$0")/../lib/tap.sh"
cd "$T" || exit 1

cmds=$("$PS" help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
ok "$([ "$(echo "$cmds" | wc -w)" -ge 15 ]; echo $?)" "help lists the commands ($(echo $cmds | wc -w))"
for c in $cmds; do
	[ "$c" = help ] && continue
	"$PS" help "$c" > "$T/help.$c" 2>&1
	usage=$(sed -n 's/^usage: perfsweep //p; /^       perfsweep /p' "$T/help.$c")
	listed=$(awk '/^options:/ { on = 1; next } /^$/ { on = 0 } on' "$T/help.$c" |
		sed -n 's/^  \(-., \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p')
	missing= refused=
	for o in $listed; do
		case " $usage " in *"$o "*|*"$o]"*) ;; *) missing="$missing $o" ;; esac
		timeout -s KILL 20 "$PS" "$c" "$o" < /dev/null > /dev/null 2> "$T/err"
		grep -q "unknown option '$o'" "$T/err" && refused="$refused $o"
	done
	is "$missing" "" "$c: every option it lists is in its usage line"
	is "$refused" "" "$c: and its parser takes every one"
	"$PS" "$c" --frobnicate > /dev/null 2> "$T/err"
	is "$?" 2 "$c --frobnicate: exit 2"
	is "$(head -n 1 "$T/err")" "error: unknown option '--frobnicate'" "$c: the one style of an unknown option"
	like "$(sed -n 2p "$T/err")" "usage: perfsweep $c" "$c: then its usage line"
done
"$PS" status --json=1 > /dev/null 2> "$T/err"
is "$(head -n 1 "$T/err")" "error: option '--json' takes no value" "a value given to a flag is named as such"
"$PS" probe x --runs > /dev/null 2> "$T/err"
is "$(head -n 1 "$T/err")" "error: option '--runs' needs a value" "and a missing value"

"$PS" help --man > "$T/gen"
is "$?" 0 "help --man prints the synopsis"
awk '/generated from the option rows/ { on = 1; next } /end of the generated synopsis/ { on = 0 } on' \
	"$ROOT/docs/man/perfsweep.1" > "$T/page"
diff "$T/gen" "$T/page" > "$T/diff"
ok $? "docs/man/perfsweep.1's synopsis is the rows' (else: make man)" || diag "$(head -n 20 "$T/diff")"
for c in $cmds; do
	grep -qx ".Cm $c" "$T/gen" || echo "$c"
done > "$T/absent"
is "$(cat "$T/absent")" "" "every command is in the man page's synopsis"
mandoc -Tlint -W warning "$ROOT/docs/man/perfsweep.1" 2>&1 | grep -v 'mandoc.db' > "$T/lint"
is "$(cat "$T/lint")" "" "mandoc finds no warning in the page" || diag "$(head -n 5 "$T/lint")"
done_testing
