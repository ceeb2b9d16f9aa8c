/* The app section of a campaign config: command, environment, input templates and set-up steps. */
#include "campaign/config_get.h"
#include "campaign/config_parse.h"
#include "campaign/template.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* Placeholders every command may use besides the parameters; the first
   six differ from run to run of one point, so set-up steps may not use them. */
static const char *builtin_placeholders[] = {
	"rep", "run", "run_dir", "nodes", "ranks_per_node", "ranks", "config_dir", "setup", NULL,
};
#define PER_RUN_PLACEHOLDERS 6

int config_builtin_placeholder(const char *name)
{
	for (const char **b = builtin_placeholders; *b; b++)
		if (!strcmp(*b, name))
			return 1;
	return 0;
}

/* Is name a placeholder a template may use (a set-up step: no per-run one)? */
static int known_placeholder(const struct campaign_config *c, const char *name, int setup)
{
	if (config_find_param(c, name) >= 0 || config_find_derived(c, name) >= 0)
		return 1;
	for (int b = setup ? PER_RUN_PLACEHOLDERS : 0; builtin_placeholders[b]; b++)
		if (!strcmp(builtin_placeholders[b], name))
			return 1;
	return 0;
}

/* Check every {name} in a template names a parameter or a built-in (set-up
   steps: no per-run built-in). */
static int check_template_in(struct campaign_config *c, const config_setting_t *s, const char *t,
			     int setup, struct perr *err)
{
	for (const char *p = t; *p; p++) {
		if (p[0] == '{' && p[1] == '{') {
			p++;
			continue;
		}
		if (*p != '{')
			continue;
		const char *end = strchr(p, '}');
		if (!end)
			return config_error(c, s, err, "unclosed '{' in \"%s\"; write {name} or {{ for a literal brace", t);
		char *name = xstrndup(p + 1, (size_t)(end - p - 1));
		int known = known_placeholder(c, name, setup);
		if (!known && setup && known_placeholder(c, name, 0))
			config_error(c, s, err, "a set-up step runs once for all runs of its values: {%.*s} differs "
				     "from run to run; use parameters, {config_dir} or {setup}",
				     (int)(sizeof(err->msg) / 2), name);
		else if (!known)
			config_error(c, s, err, "placeholder {%.*s} names no parameter; define it under parameters or "
			    "use one of {rep}, {run}, {run_dir}, {nodes}, {ranks_per_node}, {ranks}, {config_dir}, {setup}",
			    (int)(sizeof(err->msg) / 2), name);
		free(name);
		if (!known)
			return -1;
		p = end;
	}
	return 0;
}

static int check_template(struct campaign_config *c, const config_setting_t *s, const char *t,
			  struct perr *err)
{
	return check_template_in(c, s, t, 0, err);
}

/* One entry of app.template: { from = "in.tmpl"; to = "in.lj"; into = "run" | "setup"; }. */
static int parse_template(struct campaign_config *c, const config_setting_t *g, int i, struct perr *err)
{
	static const char *const keys[] = { "from", "to", "into", NULL };
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return config_error(c, g, err, "template %d must be a group { from = \"in.tmpl\"; to = \"in.lj\"; }", i + 1);
	struct config_template *t = &c->templates[c->ntemplates++];
	char *from = NULL;
	const char *into = NULL, *why;
	if (config_check_keys(c, g, keys, "a template", err) || config_get_string(c, g, "from", &from, 1, err) ||
	    config_get_string(c, g, "to", &t->to, 1, err) || config_get_text(c, g, "into", &into, err)) {
		free(from);
		return -1;
	}
	t->from = config_resolve(c, from);
	free(from);
	if (!regex_file_valid(t->to, &why))
		return config_error(c, config_setting_get_member(g, "to"), err, "template target '%s': %s; write a "
			   "relative path, e.g. to = \"in.lj\"", t->to, why);
	if (into && strcmp(into, "run") && strcmp(into, "setup"))
		return config_error(c, config_setting_get_member(g, "into"), err, "unknown into '%s'; write "
			   "into = \"run\"; (the run's directory) or into = \"setup\"; (the set-up directory)", into);
	t->setup = into && !strcmp(into, "setup");
	for (int k = 0; k < c->ntemplates - 1; k++)
		if (c->templates[k].setup == t->setup && !strcmp(c->templates[k].to, t->to))
			return config_error(c, config_setting_get_member(g, "to"), err,
				   "two templates write '%s'; give each its own target", t->to);
	return 0;
}

/* app.template = ( { from; to; into; }, ... ): input files filled in per run or set-up. */
static int parse_templates(struct campaign_config *c, const config_setting_t *app, struct perr *err)
{
	const config_setting_t *ts = config_setting_get_member(app, "template");
	if (!ts)
		return 0;
	int t = config_setting_type(ts);
	if (t == CONFIG_TYPE_GROUP)     /* one template without its list */
		return config_error(c, ts, err, "app.template is a list of groups: template = ( { from = \"in.tmpl\"; "
			   "to = \"in.lj\"; } );");
	if (t != CONFIG_TYPE_LIST)
		return config_error(c, ts, err, "app.template must be a list of groups: template = ( { from = "
			   "\"in.tmpl\"; to = \"in.lj\"; } );");
	int n = config_setting_length(ts);
	c->templates = xcalloc((size_t)n + 1, sizeof(*c->templates));
	for (int i = 0; i < n; i++)
		if (parse_template(c, config_setting_get_elem(ts, (unsigned)i), i, err))
			return -1;
	return 0;
}

/* app.setup = ( [ "prog", "arg", ... ], ... ): steps run once per distinct values they use. */
static int parse_steps(struct campaign_config *c, const config_setting_t *app, struct perr *err)
{
	const config_setting_t *ss = config_setting_get_member(app, "setup");
	if (!ss)
		return 0;
	static const char *const shape = "app.setup is a list of steps, each an argument list: "
					 "setup = ( [ \"./mkinput\", \"{n}\" ], [ \"./prepare\" ] );";
	int t = config_setting_type(ss);
	if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_ARRAY)
		return config_error(c, ss, err, "%s", shape);
	int n = config_setting_length(ss);
	c->steps = xcalloc((size_t)n + 1, sizeof(*c->steps));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(ss, (unsigned)i);
		int et = config_setting_type(e);
		if (et != CONFIG_TYPE_LIST && et != CONFIG_TYPE_ARRAY)
			return config_error(c, e, err, "%s", shape);
		struct config_step *st = &c->steps[c->nsteps++];
		if (config_get_strings(c, e, "setup", &st->argv, &st->argc, err))
			return -1;
		if (!st->argc)
			return config_error(c, e, err, "set-up step %d is empty; name the program to run", i + 1);
		for (int k = 0; k < st->argc; k++)
			if (check_template_in(c, e, st->argv[k], 1, err))
				return -1;
	}
	return 0;
}

/* {setup} names the set-up directory: a campaign without set-up has none. */
static int check_setup_used(struct campaign_config *c, const config_setting_t *app, struct perr *err)
{
	int setup = c->nsteps > 0;
	for (int t = 0; t < c->ntemplates; t++)
		setup |= c->templates[t].setup;
	for (int i = 0; !setup && i < c->app_argc + c->app_nenv; i++)
		if (template_uses(i < c->app_argc ? c->app_argv[i] : c->app_env[i - c->app_argc], "setup"))
			return config_error(c, config_setting_get_member(app, i < c->app_argc ? "command" : "env"), err,
				   "{setup} names the set-up directory, but the campaign has no set-up; add "
				   "app.setup = ( [ \"./prepare\", \"{n}\" ] ); or remove {setup}");
	return 0;
}

int config_parse_app(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *app = config_lookup(&c->cfg, "app");
	if (!app)
		return config_error(c, config_root_setting(&c->cfg), err,
			   "missing 'app'; write app = { command = [\"./prog\", \"-n\", \"{n}\"]; };");
	if (config_setting_type(app) != CONFIG_TYPE_GROUP)
		return config_error(c, app, err, "'app' must be a group: app = { command = [\"./prog\", \"{n}\"]; };");
	static const char *const keys[] = { "command", "workdir", "env", "timeout", "template", "setup", NULL };
	if (config_check_keys(c, app, keys, "app", err))
		return -1;
	const config_setting_t *cmd = config_setting_get_member(app, "command");
	if (!cmd)
		return config_error(c, app, err, "missing app.command; write command = [\"./prog\", \"-n\", \"{n}\"];");
	if (config_setting_type(cmd) == CONFIG_TYPE_STRING)
		return config_error(c, cmd, err, "app.command must be an argument list, not one string (no shell is used); write command = [\"./prog\", \"-n\", \"{n}\"];");
	if (config_get_strings(c, cmd, "command", &c->app_argv, &c->app_argc, err))
		return -1;
	if (c->app_argc == 0)
		return config_error(c, cmd, err, "app.command is empty; name the program to run");
	for (int i = 0; i < c->app_argc; i++)
		if (check_template(c, cmd, c->app_argv[i], err))
			return -1;
	char *workdir = NULL;
	if (config_get_string(c, app, "workdir", &workdir, 0, err))
		return -1;
	if (workdir) {
		c->app_workdir = config_resolve(c, workdir);
		free(workdir);
	}
	const config_setting_t *env = config_setting_get_member(app, "env");
	if (env) {
		if (config_get_strings(c, env, "env", &c->app_env, &c->app_nenv, err))
			return -1;
		for (int i = 0; i < c->app_nenv; i++) {
			const char *eq = strchr(c->app_env[i], '=');
			if (!eq || eq == c->app_env[i])
				return config_error(c, env, err, "env entry \"%s\" must be KEY=VALUE", c->app_env[i]);
			if (check_template(c, env, c->app_env[i], err))
				return -1;
		}
	}
	if (config_get_number(c, app, "timeout", &c->app_timeout, err))
		return -1;
	if (c->app_timeout < 0)
		return config_error(c, config_setting_get_member(app, "timeout"), err,
			   "app.timeout must be a positive number of seconds (0 for none)");
	return parse_templates(c, app, err) || parse_steps(c, app, err) || check_setup_used(c, app, err) ? -1 : 0;
}
