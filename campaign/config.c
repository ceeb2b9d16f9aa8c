/*
 * Campaign configuration: libconfig parsing and validation.  Every problem
 * is reported once as "FILE:LINE: what is wrong; what to write instead".
 * The schema is documented in docs/config.md.
 */
#include "campaign/config.h"
#include "campaign/slurm_extra.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "models/points.h"
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Placeholders every command may use besides the parameters. */
static const char *builtin_placeholders[] = {
	"rep", "run", "run_dir", "nodes", "ranks_per_node", "ranks", NULL,
};

const char *config_where(const struct campaign_config *c, const config_setting_t *s, char *buf,
			 size_t n)
{
	const char *file = s ? config_setting_source_file(s) : NULL;
	snprintf(buf, n, "%s:%u", file ? file : c->path, s ? config_setting_source_line(s) : 0);
	return buf;
}

static int bad(const struct campaign_config *c, struct perr *err, const config_setting_t *s,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int bad(const struct campaign_config *c, struct perr *err, const config_setting_t *s,
	       const char *fmt, ...)
{
	char where[PATH_MAX + 32], msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return perr_set(err, "%s: %s", config_where(c, s, where, sizeof(where)), msg);
}

static int check_keys(const struct campaign_config *c, const config_setting_t *group,
		      const char *const *allowed, const char *what, struct perr *err)
{
	int n = config_setting_length(group);
	for (int i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const char *name = config_setting_name(s);
		int ok = 0;
		for (const char *const *a = allowed; *a; a++)
			if (name && !strcmp(name, *a))
				ok = 1;
		if (!ok) {
			struct strbuf sb;
			strbuf_init(&sb);
			for (const char *const *a = allowed; *a; a++)
				strbuf_addf(&sb, "%s%s", a == allowed ? "" : ", ", *a);
			bad(c, err, s, "unknown key '%s' in %s; expected one of: %s", name ? name : "?",
			    what, sb.buf);
			strbuf_release(&sb);
			return -1;
		}
	}
	return 0;
}

static const char *type_name(int t)
{
	switch (t) {
	case CONFIG_TYPE_GROUP: return "a group { ... }";
	case CONFIG_TYPE_INT: case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a number";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "true or false";
	case CONFIG_TYPE_ARRAY: return "an array [ ... ]";
	case CONFIG_TYPE_LIST: return "a list ( ... )";
	}
	return "a setting";
}

static int get_string(const struct campaign_config *c, const config_setting_t *parent,
		      const char *key, char **out, int required, struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(parent, key);
	if (!s) {
		if (required)
			return bad(c, err, parent, "missing '%s'; write %s = \"...\";", key, key);
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return bad(c, err, s, "'%s' must be a string, not %s; write %s = \"...\";", key,
			   type_name(config_setting_type(s)), key);
	const char *v = config_setting_get_string(s);
	if (!*v)
		return bad(c, err, s, "'%s' is empty", key);
	free(*out);
	*out = xstrdup(v);
	return 0;
}

double config_number(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
							   : (double)config_setting_get_int64(s);
}

static int get_number(const struct campaign_config *c, const config_setting_t *parent,
		      const char *key, double *out, struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(parent, key);
	if (!s)
		return 0;
	if (!config_setting_is_number(s))
		return bad(c, err, s, "'%s' must be a number, not %s", key, type_name(config_setting_type(s)));
	*out = config_number(s);
	return 0;
}

static int get_int(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		   int *out, struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(parent, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
		return bad(c, err, s, "'%s' must be an integer, not %s; write %s = 3;", key,
			   type_name(t), key);
	long long v = config_setting_get_int64(s);
	if (v < INT_MIN || v > INT_MAX)
		return bad(c, err, s, "'%s' is out of range", key);
	*out = (int)v;
	return 0;
}

static int get_bool(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		    int *out, struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(parent, key);
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return bad(c, err, s, "'%s' must be true or false", key);
	*out = config_setting_get_bool(s);
	return 0;
}

/* A list or array of strings; *n and *out receive copies. */
static int get_strings(const struct campaign_config *c, const config_setting_t *s, const char *key,
		       char ***out, int *n, struct perr *err)
{
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
		return bad(c, err, s, "'%s' must be a list of strings, e.g. %s = [\"a\", \"b\"];", key, key);
	int len = config_setting_length(s);
	*out = xcalloc((size_t)len + 1, sizeof(char *));
	*n = 0;
	for (int i = 0; i < len; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return bad(c, err, e, "element %d of '%s' must be a string, not %s", i + 1, key,
				   type_name(config_setting_type(e)));
		(*out)[(*n)++] = xstrdup(config_setting_get_string(e));
	}
	return 0;
}

int config_find_param(const struct campaign_config *c, const char *name)
{
	for (int k = 0; k < c->nparams; k++)
		if (!strcmp(c->params[k].name, name))
			return k;
	return -1;
}

static int valid_name(const char *s)
{
	if (!*s || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

/* Exactly representable integers: beyond 2^53 two values may look equal. */
#define EXACT_INT 9007199254740992.0
#define MAX_RANKS 1048576

/* The values of parameter p from setting v (nv > 0 elements). */
static int parse_values(const struct campaign_config *c, struct plan_param *p,
			const config_setting_t *v, int nv, struct perr *err)
{
	p->values = xcalloc((size_t)nv, sizeof(double));
	p->is_int = 1;
	for (int j = 0; j < nv; j++) {
		const config_setting_t *e = config_setting_get_elem(v, (unsigned)j);
		if (!config_setting_is_number(e))
			return bad(c, err, e, "value %d of '%s' must be a number, not %s", j + 1,
				   p->name, type_name(config_setting_type(e)));
		double x = config_number(e);
		if (!isfinite(x))
			return bad(c, err, e, "value %d of '%s' is not finite", j + 1, p->name);
		if (config_setting_type(e) != CONFIG_TYPE_FLOAT && fabs(x) > EXACT_INT)
			return bad(c, err, e, "value %d of '%s' is too large; integers must be within "
				   "+-2^53 (9007199254740992)", j + 1, p->name);
		for (int q = 0; q < p->nvalues; q++)
			if (p->values[q] == x)
				return bad(c, err, e, "value %g of '%s' is listed twice", x, p->name);
		if (config_setting_type(e) == CONFIG_TYPE_FLOAT)
			p->is_int = 0;
		if (p->role && (x < 1 || x > MAX_RANKS || x != floor(x)))
			return bad(c, err, e, "rank counts of '%s' must be integers from 1 to %d, not %g",
				   p->name, MAX_RANKS, x);
		p->values[p->nvalues++] = x;
	}
	return 0;
}

static int parse_params(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *ps = config_lookup(&c->cfg, "parameters");
	if (!ps)
		return bad(c, err, config_root_setting(&c->cfg),
			   "missing 'parameters'; write parameters = ( { name = \"n\"; values = [1, 2, 4]; } );");
	if (config_setting_type(ps) != CONFIG_TYPE_LIST)
		return bad(c, err, ps, "'parameters' must be a list of groups: parameters = ( { name = \"n\"; values = [1, 2]; } );");
	int n = config_setting_length(ps);
	if (n == 0)
		return bad(c, err, ps, "'parameters' is empty; name at least one parameter");
	c->params = xcalloc((size_t)n, sizeof(*c->params));
	static const char *const keys[] = { "name", "values", "role", NULL };
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(ps, (unsigned)i);
		if (config_setting_type(g) != CONFIG_TYPE_GROUP)
			return bad(c, err, g, "parameter %d must be a group { name = ...; values = [...]; }", i + 1);
		if (check_keys(c, g, keys, "a parameter", err))
			return -1;
		struct plan_param *p = &c->params[c->nparams];
		if (get_string(c, g, "name", &p->name, 1, err))
			return -1;
		c->nparams++;
		if (!valid_name(p->name))
			return bad(c, err, config_setting_get_member(g, "name"),
				   "parameter name '%s' must be a letter or '_' followed by letters, digits or '_'",
				   p->name);
		for (const char **b = builtin_placeholders; *b; b++)
			if (!strcmp(*b, p->name))
				return bad(c, err, config_setting_get_member(g, "name"),
					   "parameter name '%s' is reserved for a built-in placeholder; rename it", p->name);
		for (int k = 0; k < c->nparams - 1; k++)
			if (!strcmp(c->params[k].name, p->name))
				return bad(c, err, config_setting_get_member(g, "name"),
					   "duplicate parameter '%s'; each parameter is named once", p->name);
		if (get_string(c, g, "role", &p->role, 0, err))
			return -1;
		if (p->role && strcmp(p->role, "ranks") && strcmp(p->role, "ranks_per_node"))
			return bad(c, err, config_setting_get_member(g, "role"),
				   "unknown role '%s'; write role = \"ranks\" (the number of processes) or "
				   "role = \"ranks_per_node\";", p->role);
		const config_setting_t *v = config_setting_get_member(g, "values");
		if (!v)
			return bad(c, err, g, "parameter '%s' has no values; write values = [1, 2, 4];", p->name);
		int t = config_setting_type(v);
		if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
			return bad(c, err, v, "values of '%s' must be a list of numbers, e.g. values = [1, 2, 4];", p->name);
		int nv = config_setting_length(v);
		if (nv == 0)
			return bad(c, err, v, "empty value list for parameter '%s'; give at least one value", p->name);
		if (parse_values(c, p, v, nv, err))
			return -1;
	}
	static const char *const roles[] = { "ranks", "ranks_per_node" };
	for (int r = 0; r < 2; r++) {
		int n_role = 0;
		for (int k = 0; k < c->nparams; k++)
			n_role += c->params[k].role && !strcmp(c->params[k].role, roles[r]);
		if (n_role > 1)
			return bad(c, err, ps, "more than one parameter has role = \"%s\"; only one may", roles[r]);
	}
	return 0;
}

/* Check every {name} in a template names a parameter or a built-in. */
static int check_template(struct campaign_config *c, const config_setting_t *s, const char *t,
			  struct perr *err)
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
			return bad(c, err, s, "unclosed '{' in \"%s\"; write {name} or {{ for a literal brace", t);
		char *name = xstrndup(p + 1, (size_t)(end - p - 1));
		int known = config_find_param(c, name) >= 0;
		for (const char **b = builtin_placeholders; *b; b++)
			known |= !strcmp(*b, name);
		if (!known) {
			bad(c, err, s, "placeholder {%.*s} names no parameter; define it under parameters or "
			    "use one of {rep}, {run}, {run_dir}, {nodes}, {ranks_per_node}, {ranks}",
			    (int)(sizeof(err->msg) / 2), name);
			free(name);
			return -1;
		}
		free(name);
		p = end;
	}
	return 0;
}

static int parse_app(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *app = config_lookup(&c->cfg, "app");
	if (!app)
		return bad(c, err, config_root_setting(&c->cfg),
			   "missing 'app'; write app = { command = [\"./prog\", \"-n\", \"{n}\"]; };");
	if (config_setting_type(app) != CONFIG_TYPE_GROUP)
		return bad(c, err, app, "'app' must be a group: app = { command = [\"./prog\", \"{n}\"]; };");
	static const char *const keys[] = { "command", "workdir", "env", "timeout", NULL };
	if (check_keys(c, app, keys, "app", err))
		return -1;
	const config_setting_t *cmd = config_setting_get_member(app, "command");
	if (!cmd)
		return bad(c, err, app, "missing app.command; write command = [\"./prog\", \"-n\", \"{n}\"];");
	if (config_setting_type(cmd) == CONFIG_TYPE_STRING)
		return bad(c, err, cmd, "app.command must be an argument list, not one string (no shell is used); write command = [\"./prog\", \"-n\", \"{n}\"];");
	if (get_strings(c, cmd, "command", &c->app_argv, &c->app_argc, err))
		return -1;
	if (c->app_argc == 0)
		return bad(c, err, cmd, "app.command is empty; name the program to run");
	for (int i = 0; i < c->app_argc; i++)
		if (check_template(c, cmd, c->app_argv[i], err))
			return -1;
	if (get_string(c, app, "workdir", &c->app_workdir, 0, err))
		return -1;
	const config_setting_t *env = config_setting_get_member(app, "env");
	if (env) {
		if (get_strings(c, env, "env", &c->app_env, &c->app_nenv, err))
			return -1;
		for (int i = 0; i < c->app_nenv; i++) {
			const char *eq = strchr(c->app_env[i], '=');
			if (!eq || eq == c->app_env[i])
				return bad(c, err, env, "env entry \"%s\" must be KEY=VALUE", c->app_env[i]);
			if (check_template(c, env, c->app_env[i], err))
				return -1;
		}
	}
	if (get_number(c, app, "timeout", &c->app_timeout, err))
		return -1;
	if (c->app_timeout < 0)
		return bad(c, err, config_setting_get_member(app, "timeout"),
			   "app.timeout must be a positive number of seconds (0 for none)");
	return 0;
}

/* backend.poll = { min = S; max = S; factor = F; safety = S; }: how often the
   slurm backend asks the controller (0 or absent: the backend's defaults). */
static int parse_poll(struct campaign_config *c, const config_setting_t *backend, struct perr *err)
{
	const config_setting_t *p = config_setting_get_member(backend, "poll");
	if (!p)
		return 0;
	static const char *const keys[] = { "min", "max", "factor", "safety", NULL };
	if (config_setting_type(p) != CONFIG_TYPE_GROUP)
		return bad(c, err, p, "backend.poll must be a group: poll = { min = 0.1; max = 5.0; factor = 1.5; safety = 30.0; };");
	struct backend_config *b = &c->backend;
	if (check_keys(c, p, keys, "backend.poll", err) ||
	    get_number(c, p, "min", &b->poll_min, err) || get_number(c, p, "max", &b->poll_max, err) ||
	    get_number(c, p, "factor", &b->poll_factor, err) ||
	    get_number(c, p, "safety", &b->poll_safety, err))
		return -1;
	if (config_setting_get_member(p, "min") && !(b->poll_min >= 0.05 && b->poll_min <= 60))
		return bad(c, err, config_setting_get_member(p, "min"),
			   "backend.poll.min must be from 0.05 to 60 seconds (the controller limits RPC rates)");
	if (config_setting_get_member(p, "max") &&
	    !(b->poll_max >= (b->poll_min > 0 ? b->poll_min : 0.1) && b->poll_max <= 600))
		return bad(c, err, config_setting_get_member(p, "max"),
			   "backend.poll.max must be from poll.min to 600 seconds");
	if (config_setting_get_member(p, "factor") && !(b->poll_factor >= 1 && b->poll_factor <= 10))
		return bad(c, err, config_setting_get_member(p, "factor"),
			   "backend.poll.factor must be from 1 to 10");
	if (config_setting_get_member(p, "safety") && !(b->poll_safety >= 1 && b->poll_safety <= 3600))
		return bad(c, err, config_setting_get_member(p, "safety"),
			   "backend.poll.safety must be from 1 to 3600 seconds");
	return 0;
}

/* backend.mpi goes into the job script's srun line: a plain word only. */
static int check_mpi(const struct campaign_config *c, const config_setting_t *s, const char *mpi,
		     struct perr *err)
{
	if (!mpi)
		return 0;
	size_t n = strspn(mpi, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	if (!*mpi || mpi[n] || mpi[0] == '-')
		return bad(c, err, config_setting_get_member(s, "mpi"),
			   "backend.mpi must be an srun MPI plugin name (letters, digits, '_', '-'), e.g. mpi = \"pmix\";");
	return 0;
}

static int parse_backend(struct campaign_config *c, struct perr *err)
{
	struct backend_config *b = &c->backend;
	const config_setting_t *s = config_lookup(&c->cfg, "backend");
	if (!s) {
		b->type = xstrdup("local");
		return 0;
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		b->type = xstrdup(config_setting_get_string(s));
	} else if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		static const char *const keys[] = { "type", "partition", "account", "qos", "time_limit",
						    "max_inflight", "extra", "mpi", "poll", NULL };
		if (check_keys(c, s, keys, "backend", err) ||
		    get_string(c, s, "type", &b->type, 1, err) ||
		    get_string(c, s, "partition", &b->partition, 0, err) ||
		    get_string(c, s, "account", &b->account, 0, err) ||
		    get_string(c, s, "qos", &b->qos, 0, err) ||
		    get_string(c, s, "mpi", &b->mpi, 0, err) ||
		    check_mpi(c, s, b->mpi, err) ||
		    get_int(c, s, "time_limit", &b->time_limit, err) ||
		    get_int(c, s, "max_inflight", &b->max_inflight, err))
			return -1;
		if (b->time_limit < 0)
			return bad(c, err, config_setting_get_member(s, "time_limit"),
				   "backend.time_limit must be a positive number of minutes");
		if (b->max_inflight < 0)
			return bad(c, err, config_setting_get_member(s, "max_inflight"),
				   "backend.max_inflight must be positive");
		const config_setting_t *x = config_setting_get_member(s, "extra");
		if (x && get_strings(c, x, "extra", &b->extra, &b->nextra, err))
			return -1;
		if (parse_poll(c, s, err))
			return -1;
		struct perr xerr;
		if (x && !strcmp(b->type, "slurm") &&
		    slurm_extra_check(b->nextra, b->extra, &xerr))
			return bad(c, err, x, "%s", xerr.msg);
	} else {
		return bad(c, err, s, "'backend' must be \"local\", \"slurm\" or a group { type = \"slurm\"; ... }");
	}
	if (strcmp(b->type, "local") && strcmp(b->type, "slurm"))
		return bad(c, err, s, "unknown backend '%s'; write backend = \"local\"; or backend = { type = \"slurm\"; ... };",
			   b->type);
	return 0;
}

/* A regex pattern's `file`: inside the run directory, and not with `stream`. */
static int check_regex_file(struct campaign_config *c, const config_setting_t *g,
			    const struct regex_pattern *p, struct perr *err)
{
	const char *why;
	if (!p->file)
		return 0;
	if (p->stream)
		return bad(c, err, config_setting_get_member(g, "file"),
			   "a regex pattern reads either a stream or a file; remove stream or file");
	if (!regex_file_valid(p->file, &why))
		return bad(c, err, config_setting_get_member(g, "file"),
			   "%s; write a path in the run directory, e.g. file = \"hpccoutf.txt\"", why);
	return 0;
}

/* One entry of collect.regex: its keys, defaults, and a pattern with one capture group. */
static int parse_regex_entry(struct campaign_config *c, const config_setting_t *g, int i,
			     struct perr *err)
{
	static const char *const rkeys[] = { "region", "metric", "pattern", "stream", "file", "aggregate", NULL };
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return bad(c, err, g, "regex entry %d must be a group { region; metric; pattern; }", i + 1);
	struct regex_pattern *p = &c->regex[c->nregex++];
	if (check_keys(c, g, rkeys, "a regex pattern", err) ||
	    get_string(c, g, "region", &p->region, 1, err) ||
	    get_string(c, g, "metric", &p->metric, 0, err) ||
	    get_string(c, g, "pattern", &p->pattern, 1, err) ||
	    get_string(c, g, "stream", &p->stream, 0, err) ||
	    get_string(c, g, "file", &p->file, 0, err) ||
	    get_string(c, g, "aggregate", &p->aggregate, 0, err) ||
	    check_regex_file(c, g, p, err))
		return -1;
	if (p->aggregate && !regex_aggregate_valid(p->aggregate))
		return bad(c, err, config_setting_get_member(g, "aggregate"),
			   "unknown aggregate '%s'; use last, first, sum, mean, max or min", p->aggregate);
	if (!p->metric)
		p->metric = xstrdup("time");
	if (!p->stream)
		p->stream = xstrdup("stdout");
	if (strcmp(p->stream, "stdout") && strcmp(p->stream, "stderr"))
		return bad(c, err, config_setting_get_member(g, "stream"),
			   "stream must be \"stdout\" or \"stderr\", not '%s'", p->stream);
	regex_t re;
	char msg[256];
	if (regex_compile(&re, p->pattern, msg, sizeof(msg)))
		return bad(c, err, config_setting_get_member(g, "pattern"),
			   "invalid regular expression: %s", msg);
	size_t groups = re.re_nsub;
	regfree(&re);
	if (groups < 1)
		return bad(c, err, config_setting_get_member(g, "pattern"),
			   "pattern needs one capture group around the number, e.g. \"time: ([0-9.eE+-]+)\"");
	return 0;
}

static int parse_collect(struct campaign_config *c, struct perr *err)
{
	c->collect_wall = 1;
	const config_setting_t *s = config_lookup(&c->cfg, "collect");
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return bad(c, err, s, "'collect' must be a group: collect = { wall = true; regex = ( ... ); };");
	static const char *const keys[] = { "wall", "regex", "cubex", NULL };
	if (check_keys(c, s, keys, "collect", err) || get_bool(c, s, "wall", &c->collect_wall, err))
		return -1;
	const config_setting_t *rx = config_setting_get_member(s, "regex");
	if (rx) {
		if (config_setting_type(rx) != CONFIG_TYPE_LIST)
			return bad(c, err, rx, "collect.regex must be a list of groups: regex = ( { region = \"r\"; metric = \"time\"; pattern = \"r: ([0-9.eE+-]+)\"; } );");
		int n = config_setting_length(rx);
		c->regex = xcalloc((size_t)n + 1, sizeof(*c->regex));
		for (int i = 0; i < n; i++)
			if (parse_regex_entry(c, config_setting_get_elem(rx, (unsigned)i), i, err))
				return -1;
	}
	const config_setting_t *cx = config_setting_get_member(s, "cubex");
	if (cx) {
		if (config_setting_type(cx) == CONFIG_TYPE_BOOL) {
			c->collect_cubex = config_setting_get_bool(cx);
		} else if (config_setting_type(cx) == CONFIG_TYPE_GROUP) {
			static const char *const ckeys[] = { "metrics", NULL };
			if (check_keys(c, cx, ckeys, "collect.cubex", err))
				return -1;
			c->collect_cubex = 1;
			const config_setting_t *m = config_setting_get_member(cx, "metrics");
			if (m && get_strings(c, m, "metrics", &c->cubex_metrics, &c->ncubex_metrics, err))
				return -1;
		} else {
			return bad(c, err, cx, "collect.cubex must be true or a group { metrics = [\"time\", \"visits\"]; }");
		}
		if (c->collect_cubex && !c->ncubex_metrics) {
			c->cubex_metrics = xcalloc(3, sizeof(char *));
			c->cubex_metrics[0] = xstrdup("time");
			c->cubex_metrics[1] = xstrdup("visits");
			c->ncubex_metrics = 2;
		}
	}
	return 0;
}

char *config_resolve(const struct campaign_config *c, const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	if (c->dir[0] == '/')
		return xasprintf("%s/%s", c->dir, p);
	/* absolute: runs read it from their own directories (perfsweep-bind, job.sh) */
	char *cwd = getcwd(NULL, 0);
	char *abs = !cwd ? xasprintf("%s/%s", c->dir, p)
		    : strcmp(c->dir, ".") ? xasprintf("%s/%s/%s", cwd, c->dir, p) : xasprintf("%s/%s", cwd, p);
	free(cwd);
	return abs;
}

/* A setting's value as text for placement_spec_parse: strings as they are, numbers printed. */
static char *setting_text(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		return xstrdup(config_setting_get_string(s));
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return xasprintf("%lld", (long long)config_setting_get_int64(s));
	case CONFIG_TYPE_FLOAT:
		return xasprintf("%g", config_setting_get_float(s));
	case CONFIG_TYPE_BOOL:
		return xstrdup(config_setting_get_bool(s) ? "true" : "false");
	default:
		return xstrdup("a group or list");
	}
}

/*
 * The placement section's policy, map and cores per rank, parsed and
 * checked by the one placement contract (placement_spec_parse); the
 * ranks-per-node axis and attach are the planner's.  A campaign without
 * the section gets the contract's defaults (compact, one core per rank).
 */
static int parse_placement_spec(struct campaign_config *c, struct perr *err)
{
	static const char *const key[] = { "policy", "map", "cores_per_rank", "ranks_per_node" };
	const config_setting_t *g = config_lookup(&c->cfg, "placement");
	if (!g || config_setting_type(g) != CONFIG_TYPE_GROUP)
		return placement_spec_parse(&c->placement_spec, NULL, NULL, NULL, 0, SPEC_CONFIG, 0, NULL, err);
	char *map = NULL, *policy = NULL;
	const config_setting_t *pol = config_setting_get_member(g, "policy");
	const config_setting_t *cpr = config_setting_get_member(g, "cores_per_rank");
	if (get_string(c, g, "map", &map, 0, err))
		return -1;
	if (map) {
		c->placement_map = config_resolve(c, map);
		free(map);
	}
	if (pol)
		policy = setting_text(pol);
	if (cpr)
		c->cores_per_rank = setting_text(cpr);
	enum spec_field field = SPEC_POLICY;
	int rc = placement_spec_parse(&c->placement_spec, policy, c->cores_per_rank, c->placement_map, 0,
				      SPEC_CONFIG, 0, &field, err);
	free(policy);
	if (rc < 0) {
		const config_setting_t *at = config_setting_get_member(g, key[field]);
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		return bad(c, err, at ? at : g, "%s", msg);
	}
	if (c->placement_map && access(c->placement_map, R_OK))
		return bad(c, err, config_setting_get_member(g, "map"), "cannot read placement map '%s': %s",
			   c->placement_map, strerror(errno));
	return 0;
}

/* order = "interleaved" | "random" | "grouped"; order_seed = N; */
static int parse_order(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *root = config_root_setting(&c->cfg);
	char *order = NULL;
	if (get_string(c, root, "order", &order, 0, err))
		return -1;
	c->order = ORDER_INTERLEAVED;
	if (order) {
		c->order = plan_order_parse(order);
		free(order);
		if (c->order < 0)
			return bad(c, err, config_setting_get_member(root, "order"),
				   "unknown order; write order = \"interleaved\", \"random\" or \"grouped\";");
	}
	const config_setting_t *s = config_setting_get_member(root, "order_seed");
	if (s) {
		int t = config_setting_type(s);
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) || config_setting_get_int64(s) < 0)
			return bad(c, err, s, "order_seed must be a non-negative integer; write order_seed = 42;");
		c->have_order_seed = 1;
		c->order_seed = (unsigned long)config_setting_get_int64(s);
	}
	return 0;
}

/* Application arguments and environment values may hold any byte. */
static int free_text(const config_setting_t *s)
{
	const config_setting_t *list = config_setting_parent(s);
	const config_setting_t *app = list ? config_setting_parent(list) : NULL;
	const char *ln = list ? config_setting_name(list) : NULL;
	const char *an = app ? config_setting_name(app) : NULL;
	return ln && an && !strcmp(an, "app") && !config_setting_parent(config_setting_parent(app)) &&
	       (!strcmp(ln, "command") || !strcmp(ln, "env"));
}

/* The name of a setting, or of the list it is an element of. */
static const char *setting_name(const config_setting_t *s)
{
	const char *name = config_setting_name(s);
	if (!name && config_setting_parent(s))
		name = config_setting_name(config_setting_parent(s));
	return name ? name : "a string";
}

/* Offset of the first byte that breaks UTF-8 (overlong forms, surrogates
   and code points above U+10FFFF included), or -1 when s is valid. */
static long utf8_invalid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *start = p;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2
		      : (*p & 0xf8) == 0xf0 ? 3 : -1;
		if (n < 0 || (n == 1 && *p < 0xc2) || (n == 3 && *p > 0xf4))
			return (long)(p - start);
		for (int i = 1; i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return (long)(p - start);
		if ((n == 2 && *p == 0xe0 && p[1] < 0xa0) || (n == 2 && *p == 0xed && p[1] > 0x9f) ||
		    (n == 3 && *p == 0xf0 && p[1] < 0x90) || (n == 3 && *p == 0xf4 && p[1] > 0x8f))
			return (long)(p - start);
		p += n + 1;
	}
	return -1;
}

/*
 * No control character (a byte below 0x20, or 0x7f) in any string but the
 * application's arguments and environment values: names, paths, partitions
 * and options end up in job scripts, file names and one-line messages.
 */
static int check_control(const struct campaign_config *c, const config_setting_t *s,
			 struct perr *err)
{
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		long bad_at = utf8_invalid(config_setting_get_string(s));
		if (bad_at >= 0)
			return bad(c, err, s, "'%s' is not valid UTF-8 (byte %ld); JSON output could not "
				   "carry it: write the file in UTF-8", setting_name(s), bad_at + 1);
		const unsigned char *v = (const unsigned char *)config_setting_get_string(s);
		for (; *v; v++)
			if (*v < 0x20 || *v == 0x7f)
				break;
		if (*v && !free_text(s))
			return bad(c, err, s, "'%s' contains a control character (byte 0x%02x); "
				   "write it without newlines, tabs or other control characters",
				   setting_name(s), *v);
		return 0;
	}
	int n = config_setting_is_aggregate(s) ? config_setting_length(s) : 0;
	for (int i = 0; i < n; i++)
		if (check_control(c, config_setting_get_elem(s, (unsigned)i), err))
			return -1;
	return 0;
}

/* The config's text: a readable regular file without NUL bytes. */
static int read_config_text(struct campaign_config *c, const char *path, struct perr *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return perr_set(err, "cannot read config '%s': it is a directory", path);
	struct strbuf sb;
	strbuf_init(&sb);
	if (strbuf_read_file(&sb, path)) {
		int e = errno;
		strbuf_release(&sb);
		return perr_set(err, "cannot read config '%s': %s", path, strerror(e));
	}
	const char *nul = memchr(sb.buf, '\0', sb.len);
	if (nul) {
		int line = 1;
		for (const char *p = sb.buf; p < nul; p++)
			line += *p == '\n';
		strbuf_release(&sb);
		return perr_set(err, "%s:%d: the file contains a NUL byte; a config is text", path, line);
	}
	c->text = strbuf_detach(&sb);
	return 0;
}

/* Free n strings and their array. */
static void free_strings(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * analysis.lower_is_better / higher_is_better: lists of metric names whose
 * better direction the name does not say (models/points.h); checked here,
 * read from the stored config by model and validate (engine/input.c).
 */
static int check_better(struct campaign_config *c, const config_setting_t *g, struct perr *err)
{
	static const char *const lists[2] = { "lower_is_better", "higher_is_better" };
	char **names[2] = { NULL, NULL };
	int n[2] = { 0, 0 }, rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		const config_setting_t *s = config_setting_get_member(g, lists[k]);
		if (s && get_strings(c, s, lists[k], &names[k], &n[k], err))
			rc = -1;
		for (int i = 0; !rc && i < n[k]; i++)
			if (!names[k][i][0])
				rc = bad(c, err, config_setting_get_elem(s, (unsigned)i),
					 "an empty metric name in '%s'; write the metric's name, e.g. \"GBs\"", lists[k]);
	}
	for (int i = 0; !rc && i < n[1]; i++)
		for (int j = 0; !rc && j < n[0]; j++)
			if (!strcmp(names[1][i], names[0][j]))
				rc = bad(c, err, config_setting_get_elem(config_setting_get_member(g, lists[1]), (unsigned)i),
					 "metric '%s' is in both lower_is_better and higher_is_better; keep it in one",
					 names[1][i]);
	free_strings(names[0], n[0]);
	free_strings(names[1], n[1]);
	return rc;
}

/*
 * analysis = { aggregate = "mean" | "median" | "min"; lower_is_better = [...];
 * higher_is_better = [...]; min_cpu_share = 0.9; }: how model, validate and
 * top estimate a point, and which runs they leave out as disturbed
 * (validator/disturbed.h; read from the stored config by engine/run_usage.c).
 */
static int parse_analysis(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *g = config_setting_get_member(config_root_setting(&c->cfg), "analysis");
	static const char *const keys[] = { "aggregate", "lower_is_better", "higher_is_better", "min_cpu_share",
					    NULL };
	enum model_aggregate a;
	double share = 0;
	if (!g)
		return 0;
	if (!config_setting_is_group(g))
		return bad(c, err, g, "analysis must be a group: analysis = { aggregate = \"median\"; }");
	if (check_keys(c, g, keys, "analysis", err) || get_string(c, g, "aggregate", &c->aggregate, 0, err) ||
	    get_number(c, g, "min_cpu_share", &share, err))
		return -1;
	if (c->aggregate && model_aggregate_parse(c->aggregate, &a) < 0)
		return bad(c, err, config_setting_get_member(g, "aggregate"),
			   "unknown aggregate '%s'; use mean, median or min", c->aggregate);
	if (!(share >= 0 && share <= 1))
		return bad(c, err, config_setting_get_member(g, "min_cpu_share"),
			   "min_cpu_share must be between 0 and 1, not %g (0.9 for a program that computes, "
			   "0 for one that waits on I/O or the network)", share);
	return check_better(c, g, err);
}

/*
 * repetitions = 5; or adaptive: repetitions = { min = 3; max = 10; target = 0.05; }
 * (c->repetitions is min; the run engine adds passes up to max).
 */
static int parse_repetitions(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *g = config_setting_get_member(config_root_setting(&c->cfg), "repetitions");
	static const char *const keys[] = { "min", "max", "target", NULL };
	c->repetitions = 5;
	if (!g || !config_setting_is_group(g)) {
		if (get_int(c, config_root_setting(&c->cfg), "repetitions", &c->repetitions, err))
			return -1;
		if (c->repetitions < 1)
			return bad(c, err, g, "repetitions must be at least 1, not %d", c->repetitions);
		return 0;
	}
	c->repetitions = 3;
	c->repetitions_max = 10;
	c->repetitions_target = 0.05;
	if (check_keys(c, g, keys, "repetitions", err) || get_int(c, g, "min", &c->repetitions, err) ||
	    get_int(c, g, "max", &c->repetitions_max, err) ||
	    get_number(c, g, "target", &c->repetitions_target, err))
		return -1;
	if (c->repetitions < 1)
		return bad(c, err, config_setting_get_member(g, "min"),
			   "repetitions.min must be at least 1, not %d", c->repetitions);
	if (c->repetitions_max < c->repetitions)
		return bad(c, err, config_setting_get_member(g, "max") ? config_setting_get_member(g, "max") : g,
			   "repetitions.max (%d) must be at least min (%d)", c->repetitions_max, c->repetitions);
	if (!(c->repetitions_target > 0 && c->repetitions_target < 1))
		return bad(c, err, config_setting_get_member(g, "target"),
			   "repetitions.target is a relative width in (0, 1), not %g; write target = 0.05;",
			   c->repetitions_target);
	return 0;
}

/* c->text parsed and checked; c->path names it in messages. */
static int config_parse(struct campaign_config *c, struct perr *err)
{
	const char *path = c->path;
	/* relative @include paths resolve beside the config */
	config_set_include_dir(&c->cfg, c->dir);
	if (config_read_string(&c->cfg, c->text) != CONFIG_TRUE) {
		const char *msg = config_error_text(&c->cfg);
		const char *hint = strstr(msg, "mismatched element type")
			? "; an array [ ... ] holds one type: write 7.0 for a real, or use a list ( 7, 2.5 )" : "";
		return perr_set(err, "%s:%d: %s%s", path, config_error_line(&c->cfg), msg, hint);
	}

	const config_setting_t *root = config_root_setting(&c->cfg);
	static const char *const keys[] = { "name", "app", "parameters", "repetitions", "max_attempts",
					    "backend", "collect", "dependencies", "budget", "design",
					    "placement", "contention", "cost_model", "topology", "analysis", "order",
					    "order_seed", NULL };
	if (check_keys(c, root, keys, "the campaign", err) || check_control(c, root, err))
		return -1;
	if (get_string(c, root, "name", &c->name, 1, err))
		return -1;
	if (strchr(c->name, '/'))
		return bad(c, err, config_setting_get_member(root, "name"), "name must not contain '/'");
	if (parse_params(c, err) || parse_app(c, err))
		return -1;
	c->max_attempts = 2;
	if (parse_repetitions(c, err) || get_int(c, root, "max_attempts", &c->max_attempts, err))
		return -1;
	if (c->max_attempts < 1)
		return bad(c, err, config_setting_get_member(root, "max_attempts"),
			   "max_attempts must be at least 1, not %d", c->max_attempts);
	if (parse_backend(c, err) || parse_collect(c, err))
		return -1;
	char *deps = NULL;
	if (get_string(c, root, "dependencies", &deps, 0, err))
		return -1;
	if (deps) {
		c->dependencies = config_resolve(c, deps);
		free(deps);
	}
	if (parse_placement_spec(c, err) || parse_order(c, err) || parse_analysis(c, err))
		return -1;
	c->design = config_setting_get_member(root, "design");
	c->budget = config_setting_get_member(root, "budget");
	c->placement = config_setting_get_member(root, "placement");
	c->contention = config_setting_get_member(root, "contention");
	c->cost_model = config_setting_get_member(root, "cost_model");
	c->topology = config_setting_get_member(root, "topology");
	return 0;
}

int config_load(struct campaign_config *c, const char *path, struct perr *err)
{
	memset(c, 0, sizeof(*c));
	config_init(&c->cfg);
	c->path = xstrdup(path);
	char *tmp = xstrdup(path);
	c->dir = xstrdup(dirname(tmp));
	free(tmp);
	if (read_config_text(c, path, err))
		return -1;
	return config_parse(c, err);
}

int config_load_text(struct campaign_config *c, const char *text, const char *label, const char *dir,
		     struct perr *err)
{
	memset(c, 0, sizeof(*c));
	config_init(&c->cfg);
	c->path = xstrdup(label);
	c->dir = xstrdup(dir);
	c->text = xstrdup(text);
	return config_parse(c, err);
}

char *config_default_dir(const struct campaign_config *c)
{
	return xasprintf("%s/%s.campaign", c->dir, c->name);
}

void config_collectors(const struct campaign_config *c, struct collector_set *cs)
{
	cs->wall = c->collect_wall;
	cs->nregex = c->nregex;
	cs->regex = c->regex;
	cs->cubex = c->collect_cubex;
	cs->ncubex_metrics = c->ncubex_metrics;
	cs->cubex_metrics = c->cubex_metrics;
}

void config_release(struct campaign_config *c)
{
	free(c->path);
	free(c->dir);
	free(c->name);
	free(c->aggregate);
	free_strings(c->app_argv, c->app_argc);
	free(c->app_workdir);
	free_strings(c->app_env, c->app_nenv);
	for (int k = 0; k < c->nparams; k++) {
		free(c->params[k].name);
		free(c->params[k].role);
		free(c->params[k].values);
	}
	free(c->params);
	free(c->backend.type);
	free(c->backend.partition);
	free(c->backend.account);
	free(c->backend.qos);
	free(c->backend.mpi);
	free_strings(c->backend.extra, c->backend.nextra);
	for (int i = 0; i < c->nregex; i++) {
		free(c->regex[i].region);
		free(c->regex[i].metric);
		free(c->regex[i].pattern);
		free(c->regex[i].stream);
		free(c->regex[i].file);
		free(c->regex[i].aggregate);
	}
	free(c->regex);
	free_strings(c->cubex_metrics, c->ncubex_metrics);
	free(c->dependencies);
	free(c->placement_map);
	free(c->cores_per_rank);
	free(c->text);
	config_destroy(&c->cfg);
	memset(c, 0, sizeof(*c));
}
