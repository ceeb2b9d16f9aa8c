#!/usr/bin/env bash
# Knowledge kept in its home (tests/lib/homes.sh): in the tree, no backend
# name is compared outside its folder, no libconfig call is made outside
# campaign/ but in the listed exceptions, no error is told apart by its
# text; and the checker fails on small generated trees that do each.
. "$(dirname "$0")/../lib/tap.sh"
CHECK=$ROOT/tests/lib/homes.sh

out=$("$CHECK" "$ROOT" 2>&1); rc=$?
is "$rc" 0 "the tree keeps backend names, libconfig and error kinds at home"
[ "$rc" -eq 0 ] || diag "$out"

# a small tree: put FILE TEXT
put() {
	mkdir -p "$(dirname "$1")"
	printf '%b' "$2" > "$1"
}
good=$T/good
put "$good/orchestrator/backend.c" 'static int f(const char *s, const struct backend_entry *e) { return strcmp(s, e->name); }\n'
put "$good/orchestrator/local/local_entry.c" 'int a(const char *t) { return !strcmp(t, "local"); }\n'
put "$good/orchestrator/slurm/slurm_entry.c" 'int b(const char *t) {\n\treturn !strncmp(t,\n\t\t"slurm", 5);\n}\n'
put "$good/orchestrator/flux/flux_entry.c" 'int r(const char *t) { return !strcmp(t, "flux"); }\n'
put "$good/campaign/config.c" '#include <libconfig.h>\nint c(config_t *x) { return config_lookup(x, "backend") != 0; }\n'
put "$good/cli/cmd_x.c" '/* strcmp(type, "slurm") in a comment */\nint d(const char *s) { return !strcmp(s, "slurmish") && !strcmp(s, "local_rank"); }\n'
put "$good/tests/unit/t.c" 'int e(const char *s, config_t *c) { return !strcmp(s, "slurm") && config_lookup(c, "x"); }\n'
put "$good/designs/deps_config.c" 'int g(const config_setting_t *s) { return config_setting_length(s); }\n'
"$CHECK" "$good" > "$T/good.out" 2>&1; is $? 0 "a tree that keeps them at home passes"
is "$(cat "$T/good.out")" "" "and prints nothing"

# bad NAME FILE TEXT MESSAGE WHAT: the good tree plus FILE holding TEXT fails with MESSAGE
bad() {
	local tree=$T/$1
	cp -r "$good" "$tree"
	put "$tree/$2" "$3"
	out=$("$CHECK" "$tree" 2>&1); is $? 1 "$5 fails"
	like "$out" "$4" "and says where"
}
bad cli cli/cmd_run.c 'int r(const char *t)\n{\n\tif (strcmp(t, "slurm"))\n\t\treturn 1;\n\treturn 0;\n}\n' \
	'cli/cmd_run.c:3: strcmp compares the backend name "slurm" outside orchestrator/slurm/' \
	"a backend name compared in cli/"
bad split orchestrator/runner.c 'int r(const char *t)\n{\n\treturn !strcmp(t,\n\t\t       "local");\n}\n' \
	'orchestrator/runner.c:3: strcmp compares the backend name "local" outside orchestrator/local/' \
	"a compare split over two lines"
bad other orchestrator/local/x.c 'int r(const char *t) { return !strcasecmp(t, "slurm"); }\n' \
	'orchestrator/local/x.c:1: strcasecmp compares the backend name "slurm" outside orchestrator/slurm/' \
	"one backend's folder comparing another's name"
bad newbackend cli/cmd_x.c 'int r(const char *t) { return !strcmp(t, "flux"); }\n' \
	'cli/cmd_x.c:1: strcmp compares the backend name "flux" outside orchestrator/flux/' \
	"a new backend's name (its folder makes it one) compared in cli/"
bad libconfig validator/x.c 'int v(const config_setting_t *s) { return config_setting_get_int(s); }\n' \
	'validator/x.c:1: libconfig (config_setting_t) outside campaign/' "a libconfig call in a new file outside campaign/"
like "$out" "validator/x.c:1: libconfig (config_setting_get_int) outside campaign/" "every call is named"
bad gone designs/deps_config.c 'int t(void) { return 0; }\n' \
	'designs/deps_config.c: listed as a libconfig exception in tests/lib/homes.sh but calls none: remove it' \
	"an exception that no longer calls libconfig"
bad former orchestrator/plan_build.c 'int p(const struct campaign_config *c) { return config_lookup(&c->cfg, "design") != 0; }\n' \
	'orchestrator/plan_build.c:1: libconfig (config_lookup) outside campaign/' \
	"the planner reading a setting raw again"
bad text analysis/input.c 'int i(struct perr *err) { return strstr(err->msg, "no Score-P") != 0; }\n' \
	"analysis/input.c:1: strstr on an error's text: give the error a kind" "an error told apart by its text"
bad textdot campaign/x.c 'int i(struct perr e) { return !strncmp(e.msg, "parameters", 10); }\n' \
	"campaign/x.c:1: strncmp on an error's text" "the same through a struct, in campaign/"
done_testing
