/*
 * Campaign configuration: libconfig parsing and validation.  Every problem
 * is reported once as "FILE:LINE: what is wrong; what to write instead".
 * The schema is documented in docs/config.md.
 */
#include "campaign/config.h"
#include "campaign/config_get.h"
#include "campaign/config_parse.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/expr.h"
#include "models/points.h"
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *config_where(const struct campaign_config *c, const config_setting_t *s, char *buf,
			 size_t n)
{
	const char *file = s ? config_setting_source_file(s) : NULL;
	if (s && config_setting_source_line(s))
		snprintf(buf, n, "%s:%u", file ? file : c->path, config_setting_source_line(s));
	else    /* no line to name (a top-level key that is not there): the file */
		snprintf(buf, n, "%s", file ? file : c->path);
	return buf;
}

double config_number(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
							   : (double)config_setting_get_int64(s);
}

int config_find_param(const struct campaign_config *c, const char *name)
{
	for (int k = 0; k < c->nparams; k++)
		if (!strcmp(c->params[k].name, name))
			return k;
	return -1;
}

int config_find_derived(const struct campaign_config *c, const char *name)
{
	for (int d = 0; d < c->nderived; d++)
		if (!strcmp(c->derived[d].name, name))
			return d;
	return -1;
}

int config_has_threads(const struct campaign_config *c)
{
	return c->threads_per_rank > 0 || c->threads_param >= 0;
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
			return config_error(c, e, err, "value %d of '%s' must be a number, not %s", j + 1,
				   p->name, config_type_name(config_setting_type(e)));
		double x = config_number(e);
		if (!isfinite(x))
			return config_error(c, e, err, "value %d of '%s' is not finite", j + 1, p->name);
		/* from the integer itself: (double)(2^53 + 1) is 2^53 */
		if (config_setting_type(e) != CONFIG_TYPE_FLOAT &&
		    llabs(config_setting_get_int64(e)) > (long long)EXACT_INT)
			return config_error(c, e, err, "value %d of '%s' is too large; integers must be within "
				   "+-2^53 (9007199254740992)", j + 1, p->name);
		for (int q = 0; q < p->nvalues; q++)
			if (p->values[q] == x)
				return config_error(c, e, err, "value %g of '%s' is listed twice", x, p->name);
		if (config_setting_type(e) == CONFIG_TYPE_FLOAT)
			p->is_int = 0;
		if (p->role && (x < 1 || x > MAX_RANKS || x != floor(x)))
			return config_error(c, e, err, "%s counts of '%s' must be integers from 1 to %d, not %g",
				   strcmp(p->role, "threads") ? "rank" : "thread", p->name, MAX_RANKS, x);
		p->values[p->nvalues++] = x;
	}
	return 0;
}

/* The roles a parameter may have: each one's values count processes, ranks per node or threads. */
static const char *const param_roles[] = { "ranks", "ranks_per_node", "threads", NULL };

/* A parameter's name: an identifier, no built-in placeholder, not taken. */
static int check_param_name(struct campaign_config *c, const config_setting_t *g, const char *name,
			    struct perr *err)
{
	const config_setting_t *at = config_setting_get_member(g, "name");
	if (!valid_name(name))
		return config_error(c, at, err, "parameter name '%s' must be a letter or '_' followed by letters, "
			   "digits or '_'", name);
	if (config_builtin_placeholder(name))
		return config_error(c, at, err, "parameter name '%s' is reserved for a built-in placeholder; "
				   "rename it", name);
	if (config_find_param(c, name) >= 0 || config_find_derived(c, name) >= 0)
		return config_error(c, at, err, "duplicate parameter '%s'; each parameter is named once", name);
	return 0;
}

/* A derived parameter { name; value = "expr"; model; }: its expression is parsed later. */
static int parse_derived(struct campaign_config *c, const config_setting_t *g, char *name, struct perr *err)
{
	struct config_derived *d = &c->derived[c->nderived++];
	d->name = name;
	if (config_setting_get_member(g, "values"))
		return config_error(c, config_setting_get_member(g, "values"), err, "parameter '%s' has both "
			   "value (derived) and values (swept); keep one", name);
	if (config_setting_get_member(g, "role"))
		return config_error(c, config_setting_get_member(g, "role"), err, "derived parameter '%s' takes "
			   "no role; give the role to a swept parameter", name);
	return config_get_string(c, g, "value", &d->expr, 1, err);
}

/* A swept parameter { name; values; role; model; }. */
static int parse_swept(struct campaign_config *c, const config_setting_t *g, char *name, struct perr *err)
{
	struct plan_param *p = &c->params[c->nparams++];
	p->name = name;
	if (config_get_string(c, g, "role", &p->role, 0, err))
		return -1;
	int known = !p->role;
	for (const char *const *r = param_roles; *r && !known; r++)
		known = !strcmp(*r, p->role);
	if (!known)
		return config_error(c, config_setting_get_member(g, "role"), err,
			   "unknown role '%s'; write role = \"ranks\" (the number of processes), "
			   "role = \"ranks_per_node\" or role = \"threads\" (threads per rank);", p->role);
	const config_setting_t *v = config_setting_get_member(g, "values");
	if (!v)
		return config_error(c, g, err, "parameter '%s' has no values; write values = [1, 2, 4]; "
			   "(or value = \"2 * n\"; for one derived from the others)", p->name);
	int t = config_setting_type(v);
	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
		return config_error(c, v, err, "values of '%s' must be a list of numbers, e.g. values = [1, 2, 4];", p->name);
	int nv = config_setting_length(v);
	if (nv == 0)
		return config_error(c, v, err, "empty value list for parameter '%s'; give at least one value", p->name);
	return parse_values(c, p, v, nv, err);
}

/* Every derived expression over the swept parameters and the derived ones before it. */
static int parse_derived_exprs(struct campaign_config *c, const config_setting_t *ps, struct perr *err)
{
	char **names = xcalloc((size_t)(c->nparams + c->nderived + 1), sizeof(char *));
	for (int k = 0; k < c->nparams; k++)
		names[k] = c->params[k].name;
	int rc = 0, d = 0;
	for (int i = 0; i < config_setting_length(ps) && !rc; i++) {
		const config_setting_t *g = config_setting_get_elem(ps, (unsigned)i);
		if (!config_setting_get_member(g, "value"))
			continue;
		struct perr e2;
		struct expr *x = expr_parse(c->derived[d].expr, c->nparams + d, names, &e2);
		if (!x)
			rc = config_error(c, config_setting_get_member(g, "value"), err, "bad value of derived "
					  "parameter '%s' \"%s\": %s (it may use the swept parameters and the derived "
					  "ones above it)", c->derived[d].name, c->derived[d].expr, e2.msg);
		expr_free(x);
		names[c->nparams + d] = c->derived[d].name;
		d++;
	}
	free(names);
	return rc;
}

/* At most one parameter per role; the threads parameter's index. */
static int check_roles(struct campaign_config *c, const config_setting_t *ps, struct perr *err)
{
	c->threads_param = -1;
	for (const char *const *r = param_roles; *r; r++) {
		int n_role = 0;
		for (int k = 0; k < c->nparams; k++)
			if (c->params[k].role && !strcmp(c->params[k].role, *r)) {
				n_role++;
				if (!strcmp(*r, "threads"))
					c->threads_param = k;
			}
		if (n_role > 1)
			return config_error(c, ps, err, "more than one parameter has role = \"%s\"; only one may", *r);
	}
	return 0;
}

static int parse_params(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *ps = config_lookup(&c->cfg, "parameters");
	if (!ps)
		return config_error(c, config_root_setting(&c->cfg), err,
			   "missing 'parameters'; write parameters = ( { name = \"n\"; values = [1, 2, 4]; } );");
	if (config_setting_type(ps) != CONFIG_TYPE_LIST)
		return config_error(c, ps, err, "'parameters' must be a list of groups: parameters = ( { name = \"n\"; values = [1, 2]; } );");
	int n = config_setting_length(ps);
	if (n == 0)
		return config_error(c, ps, err, "'parameters' is empty; name at least one parameter");
	c->params = xcalloc((size_t)n, sizeof(*c->params));
	c->derived = xcalloc((size_t)n, sizeof(*c->derived));
	unsigned char *off = xcalloc((size_t)n, 1);     /* model = false, in file order */
	static const char *const keys[] = { "name", "values", "role", "value", "model", NULL };
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		const config_setting_t *g = config_setting_get_elem(ps, (unsigned)i);
		if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
			rc = config_error(c, g, err, "parameter %d must be a group { name = ...; values = [...]; }", i + 1);
			break;
		}
		char *name = NULL;
		int model = 1;
		if (config_check_keys(c, g, keys, "a parameter", err) || config_get_string(c, g, "name", &name, 1, err) ||
		    check_param_name(c, g, name, err) || config_get_bool(c, g, "model", &model, err)) {
			free(name);
			rc = -1;
			break;
		}
		off[i] = !model;
		rc = config_setting_get_member(g, "value") ? parse_derived(c, g, name, err) : parse_swept(c, g, name, err);
	}
	if (!rc) {   /* the flags in the parameters' order: swept, then derived */
		c->unmodelled = xcalloc((size_t)n, 1);
		for (int i = 0, sw = 0, dv = 0; i < n; i++) {
			int der = config_setting_get_member(config_setting_get_elem(ps, (unsigned)i), "value") != NULL;
			c->unmodelled[der ? c->nparams + dv++ : sw++] = off[i];
		}
	}
	free(off);
	if (rc || check_roles(c, ps, err))
		return -1;
	if (!c->nparams)
		return config_error(c, ps, err, "every parameter is derived; sweep at least one: values = [1, 2, 4];");
	return parse_derived_exprs(c, ps, err);
}

/* backend.poll = { min = S; max = S; factor = F; safety = S; notes = S; }: how
   often the slurm backend asks the controller and reads its jobs' notes (0 or
   absent: the backend's defaults). */
static int parse_poll(struct campaign_config *c, const config_setting_t *backend, struct perr *err)
{
	const config_setting_t *p = config_setting_get_member(backend, "poll");
	if (!p)
		return 0;
	static const char *const keys[] = { "min", "max", "factor", "safety", "notes", NULL };
	if (config_setting_type(p) != CONFIG_TYPE_GROUP)
		return config_error(c, p, err, "backend.poll must be a group: poll = { min = 0.1; max = 5.0; factor = 1.5; safety = 30.0; notes = 0.5; };");
	struct backend_config *b = &c->backend;
	if (config_check_keys(c, p, keys, "backend.poll", err) ||
	    config_get_number(c, p, "min", &b->poll_min, err) || config_get_number(c, p, "max", &b->poll_max, err) ||
	    config_get_number(c, p, "factor", &b->poll_factor, err) ||
	    config_get_number(c, p, "safety", &b->poll_safety, err) ||
	    config_get_number(c, p, "notes", &b->poll_notes, err))
		return -1;
	if (config_setting_get_member(p, "min") && !(b->poll_min >= 0.05 && b->poll_min <= 60))
		return config_error(c, config_setting_get_member(p, "min"), err,
			   "backend.poll.min must be from 0.05 to 60 seconds (the controller limits RPC rates)");
	if (config_setting_get_member(p, "max") &&
	    !(b->poll_max >= (b->poll_min > 0 ? b->poll_min : 0.1) && b->poll_max <= 600))
		return config_error(c, config_setting_get_member(p, "max"), err,
			   "backend.poll.max must be from poll.min to 600 seconds");
	if (config_setting_get_member(p, "factor") && !(b->poll_factor >= 1 && b->poll_factor <= 10))
		return config_error(c, config_setting_get_member(p, "factor"), err,
			   "backend.poll.factor must be from 1 to 10");
	if (config_setting_get_member(p, "safety") && !(b->poll_safety >= 1 && b->poll_safety <= 3600))
		return config_error(c, config_setting_get_member(p, "safety"), err,
			   "backend.poll.safety must be from 1 to 3600 seconds");
	if (config_setting_get_member(p, "notes") && !(b->poll_notes >= 0.05 && b->poll_notes <= 60))
		return config_error(c, config_setting_get_member(p, "notes"), err,
			   "backend.poll.notes must be from 0.05 to 60 seconds");
	return 0;
}

/* SLURM's partition list: names of letters, digits, '-', '_' and '.',
   separated by single commas. */
static int partition_list_valid(const char *p)
{
	for (;;) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.");
		if (!n)
			return 0;
		p += n;
		if (!*p)
			return 1;
		if (*p++ != ',')
			return 0;
	}
}

/* backend.mpi goes into a job script's srun line or names a launcher: a plain word only. */
static int check_mpi(const struct campaign_config *c, const config_setting_t *s, const char *mpi,
		     struct perr *err)
{
	if (!mpi)
		return 0;
	size_t n = strspn(mpi, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	if (!*mpi || mpi[n] || mpi[0] == '-')
		return config_error(c, config_setting_get_member(s, "mpi"), err,
			   "backend.mpi must be an srun MPI plugin name (letters, digits, '_', '-'), e.g. mpi = \"pmix\";");
	return 0;
}

/*
 * The backend section's keys, whichever backend reads them.  Which backends
 * there are, and the keys only one backend reads, are checked by the
 * backend registry (orchestrator/backend.h) when a plan is built.
 */
static int parse_backend(struct campaign_config *c, struct perr *err)
{
	struct backend_config *b = &c->backend;
	const config_setting_t *s = config_lookup(&c->cfg, "backend");
	if (!s) {       /* the default: the registry's first backend */
		b->type = xstrdup("local");
		return 0;
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		b->type = xstrdup(config_setting_get_string(s));
	} else if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		static const char *const keys[] = { "type", "partition", "account", "qos", "time_limit",
						    "max_inflight", "extra", "mpi", "poll", "arrays", "wait_quiet", NULL };
		int arrays = 1;
		if (config_check_keys(c, s, keys, "backend", err) ||
		    config_get_string(c, s, "type", &b->type, 1, err) ||
		    config_get_string(c, s, "partition", &b->partition, 0, err) ||
		    config_get_string(c, s, "account", &b->account, 0, err) ||
		    config_get_string(c, s, "qos", &b->qos, 0, err) ||
		    config_get_string(c, s, "mpi", &b->mpi, 0, err) ||
		    check_mpi(c, s, b->mpi, err) ||
		    config_get_int(c, s, "time_limit", INT_MIN, &b->time_limit, err) ||
		    config_get_int(c, s, "max_inflight", INT_MIN, &b->max_inflight, err) ||
		    config_get_bool(c, s, "arrays", &arrays, err) ||
		    config_get_number(c, s, "wait_quiet", &b->wait_quiet, err))
			return -1;
		b->no_arrays = !arrays;
		const config_setting_t *wq = config_setting_get_member(s, "wait_quiet");
		if (wq && !(b->wait_quiet >= 0 && b->wait_quiet <= 86400))
			return config_error(c, wq, err, "backend.wait_quiet must be from 0 to 86400 seconds, e.g. "
					    "wait_quiet = 60;");
		if (b->time_limit < 0)
			return config_error(c, config_setting_get_member(s, "time_limit"), err,
				   "backend.time_limit must be a positive number of minutes");
		if (b->partition && !partition_list_valid(b->partition))
			return config_error(c, config_setting_get_member(s, "partition"), err,
				   "backend.partition must be partition names separated by commas, not '%s'; "
				   "write partition = \"debug\"; or \"debug,batch\"", b->partition);
		if (b->max_inflight < 0)
			return config_error(c, config_setting_get_member(s, "max_inflight"), err,
				   "backend.max_inflight must be positive");
		const config_setting_t *x = config_setting_get_member(s, "extra");
		if (x && config_get_strings(c, x, "extra", &b->extra, &b->nextra, err))
			return -1;
		if (parse_poll(c, s, err))
			return -1;
	} else {
		return config_error(c, s, err, "'backend' must be a name or a group; write backend = "
				    "\"local\"; or backend = { type = \"slurm\"; ... };");
	}
	return 0;
}

char *config_resolve(const struct campaign_config *c, const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	/* absolute and without "..": runs read it from their own directories
	   (perfsweep-bind, job.sh), and the campaign stores it (campaign_config.h) */
	char *base = realpath(c->dir, NULL);
	if (base) {
		char *abs = xasprintf("%s%s%s", base, strcmp(base, "/") ? "/" : "", p);
		free(base);
		return abs;
	}
	if (c->dir[0] == '/')
		return xasprintf("%s/%s", c->dir, p);
	char *cwd = getcwd(NULL, 0);
	char *abs = !cwd ? xasprintf("%s/%s", c->dir, p)
		    : strcmp(c->dir, ".") ? xasprintf("%s/%s/%s", cwd, c->dir, p) : xasprintf("%s/%s", cwd, p);
	free(cwd);
	return abs;
}

char *config_dir_abs(const struct campaign_config *c)
{
	char *abs = realpath(c->dir, NULL);
	if (abs)
		return abs;
	abs = config_resolve(c, "x");   /* the directory is gone: its path all the same */
	abs[strlen(abs) - 2] = '\0';
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
 * Threads per rank (placement.threads_per_rank or a role "threads"
 * parameter) against the placement g: one source of the count, a rank's
 * cores at least its threads, bound by a policy that takes a core count.
 * threads_per_rank alone gives cores_per_rank its value.
 */
static int check_threads(struct campaign_config *c, const config_setting_t *g, struct perr *err)
{
	const config_setting_t *tpr = config_setting_get_member(g, "threads_per_rank");
	const config_setting_t *cpr = config_setting_get_member(g, "cores_per_rank");
	int t = c->threads_per_rank;
	if (!config_has_threads(c))
		return 0;
	if (t > MAX_RANKS)
		return config_error(c, tpr, err, "threads_per_rank must be from 1 to %d, not %d", MAX_RANKS, t);
	if (c->threads_param >= 0 && (tpr || cpr))
		return config_error(c, tpr ? tpr : cpr, err, "parameter '%s' (role \"threads\") gives each "
			   "rank its threads and cores; remove placement.%s", c->params[c->threads_param].name,
			   tpr ? "threads_per_rank" : "cores_per_rank");
	if (c->placement_spec.policy == POLICY_EXPLICIT)
		return config_error(c, config_setting_get_member(g, "policy") ? config_setting_get_member(g, "policy") : g,
			   err, "threads per rank do not go with an explicit map, which gives each rank its "
			   "cores; set OMP_NUM_THREADS in app.env instead");
	if (c->threads_param >= 0)
		return 0;
	if (cpr && c->placement_spec.cores_per_rank == 0)
		return config_error(c, cpr, err, "cores_per_rank = \"all\" shares every core among the ranks; "
			   "with threads_per_rank = %d give a count, e.g. cores_per_rank = %d;", t, t);
	if (cpr && c->placement_spec.cores_per_rank < t)
		return config_error(c, cpr, err, "cores_per_rank = %d is fewer than threads_per_rank = %d: the rank "
			   "would time-share its own cores; give at least %d (or leave it out)",
			   c->placement_spec.cores_per_rank, t, t);
	if (!cpr) {
		c->cores_per_rank = xasprintf("%d", t);
		c->placement_spec.cores_per_rank = t;
		c->placement_spec.have_cores = 1;
	}
	return 0;
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
	if (config_get_int(c, g, "threads_per_rank", 1, &c->threads_per_rank, err))
		return -1;
	char *map = NULL, *policy = NULL;
	const config_setting_t *pol = config_setting_get_member(g, "policy");
	const config_setting_t *cpr = config_setting_get_member(g, "cores_per_rank");
	if (config_get_string(c, g, "map", &map, 0, err))
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
		return config_error(c, at ? at : g, err, "%s", msg);
	}
	return check_threads(c, g, err);
}

/* order = "interleaved" | "random" | "grouped"; order_seed = N; */
static int parse_order(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *root = config_root_setting(&c->cfg);
	char *order = NULL;
	if (config_get_string(c, root, "order", &order, 0, err))
		return -1;
	c->order = ORDER_INTERLEAVED;
	if (order) {
		c->order = plan_order_parse(order);
		free(order);
		if (c->order < 0)
			return config_error(c, config_setting_get_member(root, "order"), err,
				   "unknown order; write order = \"interleaved\", \"random\" or \"grouped\";");
	}
	const config_setting_t *s = config_setting_get_member(root, "order_seed");
	if (s) {
		int t = config_setting_type(s);
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) || config_setting_get_int64(s) < 0)
			return config_error(c, s, err, "order_seed must be a non-negative integer; write order_seed = 42;");
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
			return config_error(c, s, err, "'%s' is not valid UTF-8 (byte %ld); JSON output could not "
				   "carry it: write the file in UTF-8", setting_name(s), bad_at + 1);
		const unsigned char *v = (const unsigned char *)config_setting_get_string(s);
		for (; *v; v++)
			if (*v < 0x20 || *v == 0x7f)
				break;
		if (*v && !free_text(s))
			return config_error(c, s, err, "'%s' contains a control character (byte 0x%02x); "
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
	struct strbuf sb;
	const char *why;
	strbuf_init(&sb);
	if (fs_read_file(&sb, path, 0, &why)) {
		strbuf_release(&sb);
		return perr_set(err, "cannot read config '%s': %s", path, why);
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
 * kept in c->better for model and validate (analysis/input.c).
 */
static int check_better(struct campaign_config *c, const config_setting_t *g, struct perr *err)
{
	static const char *const lists[2] = { "lower_is_better", "higher_is_better" };
	char **names[2];
	int *n = c->nbetter;
	for (int k = 0; k < 2; k++) {
		const config_setting_t *s = config_setting_get_member(g, lists[k]);
		if (s && config_get_strings(c, s, lists[k], &c->better[k], &n[k], err))
			return -1;
		names[k] = c->better[k];
		for (int i = 0; i < n[k]; i++)
			if (!names[k][i][0])
				return config_error(c, config_setting_get_elem(s, (unsigned)i), err,
						    "an empty metric name in '%s'; write the metric's name, e.g. \"GBs\"",
						    lists[k]);
	}
	for (int i = 0; i < n[1]; i++)
		for (int j = 0; j < n[0]; j++)
			if (!strcmp(names[1][i], names[0][j]))
				return config_error(c, config_setting_get_elem(config_setting_get_member(g, lists[1]),
									       (unsigned)i), err,
						    "metric '%s' is in both lower_is_better and higher_is_better; "
						    "keep it in one", names[1][i]);
	return 0;
}

/*
 * analysis = { aggregate = "mean" | "median" | "min"; lower_is_better = [...];
 * higher_is_better = [...]; min_cpu_share = 0.9; min_share = 0.01; }: how
 * model, validate and top estimate a point, which runs they leave out as
 * disturbed (validator/disturbed.h; read from the stored config by
 * analysis/run_usage.c), and which regions are too small to drive refine's runs.
 */
static int parse_analysis(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *g = config_setting_get_member(config_root_setting(&c->cfg), "analysis");
	static const char *const keys[] = { "aggregate", "lower_is_better", "higher_is_better", "min_cpu_share",
					    "min_share", NULL };
	enum model_aggregate a;
	double share = NAN;
	c->min_share = CONFIG_MIN_SHARE;
	c->min_cpu_share = NAN;
	if (!g)
		return 0;
	if (!config_setting_is_group(g))
		return config_error(c, g, err, "analysis must be a group: analysis = { aggregate = \"median\"; }");
	if (config_check_keys(c, g, keys, "analysis", err) || config_get_string(c, g, "aggregate", &c->aggregate, 0, err) ||
	    config_get_number(c, g, "min_cpu_share", &share, err) ||
	    config_get_number(c, g, "min_share", &c->min_share, err))
		return -1;
	if (c->aggregate && model_aggregate_parse(c->aggregate, &a) < 0)
		return config_error(c, config_setting_get_member(g, "aggregate"), err,
			   "unknown aggregate '%s'; use mean, median or min", c->aggregate);
	if (!isnan(share) && !(share >= 0 && share <= 1))
		return config_error(c, config_setting_get_member(g, "min_cpu_share"), err,
			   "min_cpu_share must be between 0 and 1, not %g (0.9 for a program that computes, "
			   "0 for one that waits on I/O or the network)", share);
	if (!(c->min_share >= 0 && c->min_share < 1))
		return config_error(c, config_setting_get_member(g, "min_share"), err,
			   "min_share must be at least 0 and below 1, not %g (0.01: regions under 1%% of the "
			   "time drive no refinement)", c->min_share);
	c->min_cpu_share = share;
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
		if (config_get_int(c, config_root_setting(&c->cfg), "repetitions", INT_MIN, &c->repetitions, err))
			return -1;
		if (c->repetitions < 1)
			return config_error(c, g, err, "repetitions must be at least 1, not %d", c->repetitions);
		return 0;
	}
	c->repetitions = 3;
	c->repetitions_max = 10;
	c->repetitions_target = 0.05;
	if (config_check_keys(c, g, keys, "repetitions", err) || config_get_int(c, g, "min", INT_MIN, &c->repetitions, err) ||
	    config_get_int(c, g, "max", INT_MIN, &c->repetitions_max, err) ||
	    config_get_number(c, g, "target", &c->repetitions_target, err))
		return -1;
	if (c->repetitions < 1)
		return config_error(c, config_setting_get_member(g, "min"), err,
			   "repetitions.min must be at least 1, not %d", c->repetitions);
	if (c->repetitions_max < c->repetitions)
		return config_error(c, config_setting_get_member(g, "max") ? config_setting_get_member(g, "max") : g, err,
			   "repetitions.max (%d) must be at least min (%d)", c->repetitions_max, c->repetitions);
	if (!(c->repetitions_target > 0 && c->repetitions_target < 1))
		return config_error(c, config_setting_get_member(g, "target"), err,
			   "repetitions.target is a relative width in (0, 1), not %g; write target = 0.05;",
			   c->repetitions_target);
	return 0;
}

/* libconfig reads an integer too large for 32 bits, written without L, as
   its low 32 bits (99999999999 becomes 1215752191): such literals are
   refused here, before it reads them.  Strings and comments are skipped. */
/* Past a float's fraction and exponent, from t[j] ('.', 'e' or 'E'). */
static size_t skip_float_tail(const char *t, size_t j)
{
	if (t[j] == '.')
		for (j++; isdigit((unsigned char)t[j]); j++)
			;
	if (t[j] == 'e' || t[j] == 'E') {
		j++;
		j += t[j] == '+' || t[j] == '-';
		while (isdigit((unsigned char)t[j]))
			j++;
	}
	return j;
}

static int check_int_literals(const struct campaign_config *c, struct perr *err)
{
	const char *t = c->text;
	int line = 1;
	for (size_t i = 0; t[i];) {
		if (t[i] == '\n') {
			line++, i++;
		} else if (t[i] == '"') {
			for (i++; t[i] && t[i] != '"'; i++) {
				if (t[i] == '\\' && t[i + 1])
					i++;
				line += t[i] == '\n';
			}
			i += t[i] == '"';
		} else if (t[i] == '#' || (t[i] == '/' && t[i + 1] == '/')) {
			while (t[i] && t[i] != '\n')
				i++;
		} else if (t[i] == '/' && t[i + 1] == '*') {
			for (i += 2; t[i] && !(t[i] == '*' && t[i + 1] == '/'); i++)
				line += t[i] == '\n';
			i += t[i] ? 2 : 0;
		} else if (isalpha((unsigned char)t[i]) || t[i] == '*' || t[i] == '_') {
			/* t[i] first: strchr finds the terminator in any set */
			while (isalnum((unsigned char)t[i]) || (t[i] && strchr("-_*", t[i])))
				i++;
		} else if (t[i] == '.' && isdigit((unsigned char)t[i + 1])) {
			i = skip_float_tail(t, i);      /* ".5" */
		} else if (isdigit((unsigned char)t[i]) ||
			   ((t[i] == '-' || t[i] == '+') && isdigit((unsigned char)t[i + 1]))) {
			size_t s = i, j = i + (t[i] == '-' || t[i] == '+');
			int hex = t[j] == '0' && (t[j + 1] == 'x' || t[j + 1] == 'X');
			j += hex ? 2 : 0;
			while (hex ? isxdigit((unsigned char)t[j]) : isdigit((unsigned char)t[j]))
				j++;
			i = j;
			if (!hex && (t[j] == '.' || t[j] == 'e' || t[j] == 'E')) {
				i = skip_float_tail(t, j);      /* a float: its fraction is no integer */
				continue;
			}
			if (t[j] == 'L')
				continue;       /* a 64-bit integer */
			errno = 0;
			long long v = strtoll(t + s, NULL, hex ? 16 : 10);
			if (errno == ERANGE || (hex ? v > 0xffffffffLL : v > INT_MAX || v < INT_MIN))
				return perr_set(err, "%s:%d: the integer %.*s does not fit in 32 bits; write %.*sL "
						"for a 64-bit integer", c->path, line, (int)(j - s), t + s,
						(int)(j - s), t + s);
		} else {
			i++;
		}
	}
	return 0;
}

/* c->text parsed and checked; c->path names it in messages. */
static int config_parse(struct campaign_config *c, struct perr *err)
{
	const char *path = c->path;
	if (check_int_literals(c, err))
		return -1;
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
	if (config_check_keys(c, root, keys, "the campaign", err) || check_control(c, root, err))
		return -1;
	if (config_get_string(c, root, "name", &c->name, 1, err))
		return -1;
	if (strchr(c->name, '/'))
		return config_error(c, config_setting_get_member(root, "name"), err, "name must not contain '/'");
	if (parse_params(c, err) || config_parse_app(c, err))
		return -1;
	c->max_attempts = 2;
	if (parse_repetitions(c, err) || config_get_int(c, root, "max_attempts", INT_MIN, &c->max_attempts, err))
		return -1;
	if (c->max_attempts < 1)
		return config_error(c, config_setting_get_member(root, "max_attempts"), err,
			   "max_attempts must be at least 1, not %d", c->max_attempts);
	if (parse_backend(c, err) || config_parse_collect(c, err))
		return -1;
	char *deps = NULL;
	if (config_get_string(c, root, "dependencies", &deps, 0, err))
		return -1;
	if (deps) {
		c->dependencies = config_resolve(c, deps);
		free(deps);
	}
	if (parse_placement_spec(c, err) || parse_order(c, err) || parse_analysis(c, err))
		return -1;
	config_add_preset_better(c);
	if (config_parse_planning(c, err))
		return -1;
	const config_setting_t *topo = config_setting_get_member(root, "topology");
	if (topo && config_setting_type(topo) != CONFIG_TYPE_STRING)
		return config_error(c, topo, err, "'topology' must be a string: a synthetic description "
				    "such as \"pack:2 numa:1 core:18 pu:1\" or an .xml file");
	return config_get_string(c, root, "topology", &c->topology, 0, err);
}

int config_load(struct campaign_config *c, const char *path, struct perr *err)
{
	memset(c, 0, sizeof(*c));
	c->threads_param = -1;
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
	c->threads_param = -1;
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
	cs->limits = (struct collect_limits){ .cpu_seconds = c->collect_cpu_limit,
					      .memory_mb = c->collect_memory_limit };
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
	for (int d = 0; d < c->nderived; d++) {
		free(c->derived[d].name);
		free(c->derived[d].expr);
	}
	free(c->derived);
	free(c->unmodelled);
	for (int i = 0; i < c->ntemplates; i++) {
		free(c->templates[i].from);
		free(c->templates[i].to);
	}
	free(c->templates);
	for (int i = 0; i < c->nsteps; i++)
		free_strings(c->steps[i].argv, c->steps[i].argc);
	free(c->steps);
	for (int i = 0; i < c->nsanity; i++) {
		free(c->sanity[i].pattern);
		free(c->sanity[i].stream);
		free(c->sanity[i].file);
	}
	free(c->sanity);
	free(c->backend.type);
	free(c->backend.partition);
	free(c->backend.account);
	free(c->backend.qos);
	free(c->backend.mpi);
	free_strings(c->backend.extra, c->backend.nextra);
	for (int i = 0; i < c->nregex; i++)
		config_free_regex_pattern(&c->regex[i]);
	free(c->regex);
	free(c->collect_preset);
	free_strings(c->cubex_metrics, c->ncubex_metrics);
	free_strings(c->better[0], c->nbetter[0]);
	free_strings(c->better[1], c->nbetter[1]);
	free(c->dependencies);
	free(c->placement_map);
	free(c->cores_per_rank);
	free(c->text);
	free(c->topology);
	config_release_planning(&c->planning);
	config_destroy(&c->cfg);
	memset(c, 0, sizeof(*c));
}
