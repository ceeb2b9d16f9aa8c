/* Campaign config: valid files load; each kind of mistake gets FILE:LINE and a hint. */
#include "campaign/config.h"
#include "campaign/config_get.h"
#include "orchestrator/plan_build.h"
#include "tests/lib/tap.h"
#include <string.h>

static const char *write_cfg(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", tap_tmpdir(), name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

#define GOOD_APP "app = { command = [\"./prog\", \"-n\", \"{n}\"]; };\n"
#define GOOD_PARAMS "parameters = ( { name = \"n\"; values = [1, 2, 4]; } );\n"

/* Load text; expect failure whose message contains want (and "FILE:LINE"). */
static void expect_error(const char *label, const char *text, const char *line, const char *want)
{
	struct campaign_config c;
	struct perr err = { 0 };
	const char *path = write_cfg("bad.cfg", text);
	int rc = config_load(&c, path, &err);
	config_release(&c);
	ok(rc == -1, "%s: rejected", label);
	char where[600];
	snprintf(where, sizeof(where), "%s:%s: ", path, line);
	contains(err.msg, where, "%s: error names file and line %s", label, line);
	contains(err.msg, want, "%s: error says what is wrong", label);
}

/* Load text and build its plan; expect the planner's sections to fail at FILE:line with want. */
static void expect_plan_error(const char *label, const char *text, const char *line, const char *want)
{
	struct campaign_config c;
	struct plan pl;
	struct perr err = { 0 };
	const char *path = write_cfg("plan.cfg", text);
	int rc = config_load(&c, path, &err);
	if (rc == 0 && (rc = plan_build(&pl, &c, &err)) == 0)
		plan_release(&pl);
	config_release(&c);
	ok(rc == -1, "%s: rejected", label);
	char where[600];
	snprintf(where, sizeof(where), "%s:%s: ", path, line);
	contains(err.msg, where, "%s: error names file and line %s", label, line);
	contains(err.msg, want, "%s: error says what is wrong", label);
}

/* The kit's typed getters on a loaded config: values, absence, FILE:LINE errors. */
static void getters(void)
{
	struct campaign_config c;
	struct perr err = { 0 };
	const char *path = write_cfg("get.cfg", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
				     "design = { min_values = 2; };\n");
	ok(config_load(&c, path, &err) == 0, "a config for the getters loads");
	const config_setting_t *b = config_lookup(&c.cfg, "design");
	int v = 7;
	const char *t = "x";
	is_int(config_get_int(&c, b, "absent", 1, &v, &err), 0, "an absent integer is no error");
	is_int(v, 7, "and leaves the default");
	ok(config_get_int(&c, b, "min_values", 3, &v, &err) == -1, "below min: an error");
	char want[600];
	snprintf(want, sizeof(want), "%s:4: 'min_values' must be at least 3, not 2", path);
	is_str(err.msg, want, "naming FILE:LINE, the key and the bound");
	is_int(config_get_int(&c, b, "min_values", 2, &v, &err), 0, "within min: read");
	is_int(v, 2, "the value");
	ok(config_get_text(&c, b, "min_values", &t, &err) == -1 && !t, "a number for a string: an error");
	contains(err.msg, "'min_values' must be a string, not an integer", "naming both types");
	static const char *const only[] = { "strategy", NULL };
	ok(config_check_keys(&c, b, only, "design", &err) == -1, "an unknown key: an error");
	contains(err.msg, "unknown key 'min_values' in design; expected one of: strategy", "with the keys allowed");
	ok(config_error_in(&c, "design.absent", -1, NULL, &err, "x") == -1 && strstr(err.msg, ":4: x"),
	   "an error at an absent key names its parent's line");
	ok(config_error_in(&c, "nothing.here", 0, "k", &err, "y") == -1 && !strncmp(err.msg, path, strlen(path)) &&
	   !strcmp(err.msg + strlen(path), ": y"), "and the file when no parent is there");
	config_release(&c);
}

int main(void)
{
	struct campaign_config c;
	struct perr err = { 0 };
	const char *path = write_cfg("good.cfg",
		"name = \"t\";\n" GOOD_APP
		"parameters = ( { name = \"n\"; values = [1, 2, 4]; },\n"
		"  { name = \"p\"; values = [8, 27]; role = \"ranks\"; },\n"
		"  { name = \"x\"; values = (0.5, 1, 2.25); } );\n"
		"repetitions = 4;\n"
		"collect = { regex = ( { region = \"k\"; pattern = \"k: ([0-9.]+)\"; } ); };\n"
		"budget = { core_hours = 10.0; overrun = 0.25; };\n"
		"cost_model = \"n * 2\";\n"
		"dependencies = \"deps.json\";\n");
	int rc = config_load(&c, path, &err);
	is_int(rc, 0, "a valid config loads");
	if (rc)
		diag("%s", err.msg);
	is_int(c.nparams, 3, "three parameters");
	is_int(c.repetitions, 4, "repetitions");
	is_int(c.max_attempts, 2, "max_attempts defaults to 2");
	is_str(c.backend.type, "local", "backend defaults to local");
	is_str(c.params[1].role, "ranks", "role kept");
	ok(c.params[0].is_int && !c.params[2].is_int, "integer and real parameters told apart");
	is_rel(c.params[2].values[2], 2.25, 0, "a real value in a list");
	is_str(c.regex[0].metric, "time", "regex metric defaults to time");
	is_rel(c.planning.core_hours, 10.0, 0, "budget.core_hours read for the planner");
	is_rel(c.planning.overrun, 0.25, 0, "budget.overrun too");
	is_str(c.planning.cost_expression, "n * 2", "and the cost model's expression");
	contains(c.dependencies, "/deps.json", "dependencies path resolved beside the config");
	config_release(&c);

	expect_error("unknown key", "name = \"t\";\n" GOOD_APP GOOD_PARAMS "repetiions = 3;\n", "4",
		     "unknown key 'repetiions'");
	expect_error("wrong type", "name = \"t\";\n" GOOD_APP GOOD_PARAMS "repetitions = \"3\";\n", "4",
		     "must be an integer");
	expect_error("empty values", "name = \"t\";\n" GOOD_APP
		     "parameters = ( { name = \"n\"; values = []; } );\n", "3", "empty value list");
	expect_error("duplicate parameter", "name = \"t\";\n" GOOD_APP
		     "parameters = ( { name = \"n\"; values = [1]; },\n{ name = \"n\"; values = [2]; } );\n",
		     "4", "duplicate parameter 'n'");
	expect_error("undefined placeholder", "name = \"t\";\n"
		     "app = { command = [\"./prog\", \"{m}\"]; };\n" GOOD_PARAMS, "2",
		     "placeholder {m} names no parameter");
	expect_error("non-positive repetitions", "name = \"t\";\n" GOOD_APP GOOD_PARAMS "repetitions = 0;\n",
		     "4", "repetitions must be at least 1");
	expect_error("syntax error", "name = \"t\";\n" GOOD_APP GOOD_PARAMS "repetitions = = 3;\n", "4", "syntax error");
	expect_error("command as one string", "name = \"t\";\napp = { command = \"./prog {n}\"; };\n" GOOD_PARAMS,
		     "2", "argument list");
	expect_error("regex without group", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
		     "collect = { regex = ( { region = \"k\"; pattern = \"k: [0-9]+\"; } ); };\n", "4",
		     "capture group");
	expect_error("scale 0", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
		     "collect = { regex = ( { region = \"k\"; metric = \"cpu_share\"; pattern = \"([0-9.]+)%\";\n"
		     "  scale = 0.0; } ); };\n", "5", "scale must be a finite number other than 0");
	expect_error("negative wait_quiet", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
		     "backend = { type = \"local\"; wait_quiet = -1; };\n", "4", "wait_quiet must be from 0");
	expect_error("non-numeric value", "name = \"t\";\n" GOOD_APP
		     "parameters = ( { name = \"n\"; values = (1, \"two\"); } );\n", "3", "must be a number");

	getters();
	/* a planner's error that names a parameter called "budget" is not the budget's */
	write_cfg("t.deps", "parameters = [\"n\"];\nfunctions = ( { name = \"f\"; deps = ([\"n\"]); } );\n");
	expect_plan_error("parameter named budget", "name = \"t\";\n"
			  "app = { command = [\"./prog\", \"{n}\", \"{budget}\"]; };\n"
			  "parameters = ( { name = \"n\"; values = [1, 2, 4, 8, 16]; },\n"
			  "  { name = \"budget\"; values = [1, 2, 4, 8, 16]; } );\n"
			  "design = { strategy = \"taint\"; };\n"
			  "dependencies = \"t.deps\";\n"
			  "budget = { core_hours = 1000.0; };\ncost_model = \"1\";\n", "5",
			  "parameter 'budget' is not in dependency file");
	/* which backends there are, and their own keys, the backend registry
	   says when the plan is built (orchestrator/backend.h) */
	expect_plan_error("unknown backend", "name = \"t\";\n" GOOD_APP GOOD_PARAMS "backend = \"pbs\";\n", "4",
			  "unknown backend 'pbs' (there are local, slurm); write backend = \"local\";");
	expect_plan_error("unknown backend type", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
			  "backend = {\n  type = \"flux\";\n};\n", "4", "unknown backend 'flux'");
	expect_plan_error("local MPI other than Open MPI", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
			  "backend = {\n  type = \"local\";\n  mpi = \"mpich\";\n};\n", "6",
			  "backend.mpi = \"mpich\" is not supported on the local backend");
	expect_plan_error("slurm extra option", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
			  "backend = {\n  type = \"slurm\";\n  extra = [\"--frob=1\"];\n};\n", "6",
			  "unsupported slurm extra option '--frob=1'");
	/* the planner's sections read through the same kit: the same messages */
	expect_plan_error("design strategy not a string", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
			  "design = { strategy = 3; };\n", "4", "'strategy' must be a string, not an integer");
	expect_plan_error("min_values below 1", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
			  "design = { min_values = 0; };\n", "4", "'min_values' must be at least 1, not 0");
	expect_plan_error("unknown design key", "name = \"t\";\n" GOOD_APP GOOD_PARAMS
			  "design = { stratgy = \"full\"; };\n", "4", "unknown key 'stratgy' in design");
	expect_plan_error("unreadable map", "name = \"t\";\n" GOOD_APP
			  "parameters = ( { name = \"n\"; values = [1]; }, { name = \"p\"; values = [1]; role = \"ranks\"; } );\n"
			  "placement = { ranks_per_node = [1]; policy = \"explicit\"; map = \"/nonexistent/x.map\"; };\n",
			  "4", "cannot read placement map '/nonexistent/x.map'");

	err.msg[0] = '\0';
	ok(config_load(&c, "/nonexistent/x.cfg", &err) == -1, "a missing file is an error");
	contains(err.msg, "/nonexistent/x.cfg", "the error names the file");
	config_release(&c);
	return done_testing();
}
