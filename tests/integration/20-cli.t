#!/usr/bin/env bash
# The command line: help, version, usage errors and their exit codes.
. "$(dirname "$0")/../lib/tap.sh"

out=$("$PS" help 2>&1); is $? 0 "help exits 0"
like "$out" "exit codes" "help documents the exit codes"
like "$out" "plan" "help lists plan"
is "$("$PS" help | awk '/^  [a-z]/ {print $1}' | sort | uniq -d | wc -l)" 0 "every command is listed once"
for c in plan run status export model validate deps import topo cancel top; do
	"$PS" help $c > /dev/null 2>&1; is $? 0 "help $c exits 0"
done
out=$("$PS" --version); is $? 0 "--version exits 0"
like "$out" "perfsweep " "--version prints the version"
out=$("$PS" frobnicate 2>&1); is $? 2 "an unknown command exits 2"
like "$out" "usage: perfsweep" "and prints a usage line"
out=$("$PS" run --bogus x.cfg 2>&1); is $? 2 "an unknown option exits 2"
like "$out" "usage: perfsweep run CONFIG" "with the command's usage line"
out=$("$PS" status 2>&1); is $? 2 "a missing argument exits 2"
out=$("$PS" help run); is $? 0 "help run exits 0"
like "$out" "resume" "help run explains resuming"
out=$("$PS" status "$T" 2>&1); is $? 2 "status of a non-campaign exits 2"
like "$out" "not a campaign directory" "and says why"
done_testing
