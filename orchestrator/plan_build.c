/*
 * Campaign config -> plan.  Reads and validates the sections the designs
 * library needs (design, budget, cost_model, placement, contention, the
 * dependency file), each problem reported as "FILE:LINE: message", then
 * calls plan_design().  `perfsweep plan` prints what this returns and
 * `perfsweep run` stores and executes exactly the same plan.
 */
#include "orchestrator/plan_build.h"
#include "campaign/config_get.h"
#include "common/clock.h"
#include "models/powerlaw.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/deps.h"
#include "designs/expr.h"
#include "orchestrator/backend.h"
#include "orchestrator/plan_check.h"
#include "orchestrator/plan_derived.h"
#include "placement/placement_spec.h"
#include "placement/policy.h"
#include "campaign/store.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pb {
	const struct campaign_config *c;
	struct perr *err;
	struct design_spec spec;
	struct deps deps;
	int have_deps;
	double *baseline;
	int *rpn, *crpn;
	double *cpoint;
	char **attach;
	char *cost_text;        /* cost model from an earlier campaign, or with derived parameters inlined */
	double overrun;         /* budget.overrun */
	int fitted;             /* cost_text was fitted to an earlier campaign */
};

/* ranks_per_node = [2, 4, 8]; or { from = 2; to = 18; step = 2; } */
static int get_rpn(struct pb *b, const config_setting_t *g, int **out, int *n)
{
	const config_setting_t *s = config_setting_get_member(g, "ranks_per_node");
	*n = 0;
	if (!s)
		return config_error(b->c, g, b->err, "missing 'ranks_per_node'; write ranks_per_node = [16, 32];");
	if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		static const char *const k[] = { "from", "to", "step", NULL };
		int from = 0, to = 0, step = 1;
		if (config_check_keys(b->c, s, k, "ranks_per_node", b->err) || config_get_int(b->c, s, "from", 1, &from, b->err) ||
		    config_get_int(b->c, s, "to", 1, &to, b->err) || config_get_int(b->c, s, "step", 1, &step, b->err))
			return -1;
		if (!from || !to || to < from)
			return config_error(b->c, s, b->err, "ranks_per_node needs from <= to; write { from = 2; to = 18; step = 2; }");
		*out = xmalloc(sizeof(int) * (size_t)((to - from) / step + 1));
		for (int v = from; v <= to; v += step)
			(*out)[(*n)++] = v;
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return config_error(b->c, s, b->err, "'ranks_per_node' must be a list of integers, like [16, 32], or { from; to; step; }");
	int len = config_setting_length(s);
	if (len == 0)
		return config_error(b->c, s, b->err, "'ranks_per_node' is empty");
	*out = xmalloc(sizeof(int) * (size_t)len);
	for (int i = 0; i < len; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		int t = config_setting_type(e);
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) || config_setting_get_int64(e) < 1 ||
		    config_setting_get_int64(e) > 1 << 20)
			return config_error(b->c, s, b->err, "ranks_per_node values must be positive integers (element %d)", i + 1);
		for (int j = 0; j < *n; j++)
			if ((*out)[j] == (int)config_setting_get_int64(e))
				return config_error(b->c, s, b->err, "ranks_per_node lists %d twice", (*out)[j]);
		(*out)[(*n)++] = (int)config_setting_get_int64(e);
	}
	return 0;
}

/* A group { param = value; ... } of parameter values (NAN where absent). */
static int get_point(struct pb *b, const config_setting_t *g, const char *what, double **out, int member)
{
	const struct campaign_config *c = b->c;
	*out = xmalloc(sizeof(double) * (size_t)c->nparams);
	for (int k = 0; k < c->nparams; k++)
		(*out)[k] = NAN;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return config_error(b->c, g, b->err, "'%s' must be a group of parameter values: %s = { %s = %g; };", what, what,
			   c->params[0].name, c->params[0].values[0]);
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		int k = config_find_param(c, config_setting_name(s));
		if (k < 0)
			return config_error(b->c, s, b->err, "unknown parameter '%s' in %s", config_setting_name(s), what);
		if (!config_setting_is_number(s))
			return config_error(b->c, s, b->err, "the %s value of '%s' must be a number", what, config_setting_name(s));
		double v = config_number(s);
		if (member) {
			int found = 0;
			for (int j = 0; j < c->params[k].nvalues; j++)
				found |= c->params[k].values[j] == v;
			if (!found)
				return config_error(b->c, s, b->err, "%s %g of '%s' is not one of its values", what, v, c->params[k].name);
		}
		(*out)[k] = v;
	}
	return 0;
}

static int parse_design(struct pb *b)
{
	const config_setting_t *d = b->c->design;
	b->spec.strategy = DESIGN_FULL;
	if (!d)
		return 0;
	static const char *const k[] = { "strategy", "baseline", "min_values", "sparse_extra",
					 "min_run_seconds", NULL };
	if (config_check_group(b->c, d, "design", b->err) || config_check_keys(b->c, d, k, "design", b->err))
		return -1;
	const char *st;
	if (config_get_text(b->c, d, "strategy", &st, b->err))
		return -1;
	if (st) {
		if (!strcmp(st, "full"))
			b->spec.strategy = DESIGN_FULL;
		else if (!strcmp(st, "taint"))
			b->spec.strategy = DESIGN_TAINT;
		else if (!strcmp(st, "sparse"))
			b->spec.strategy = DESIGN_SPARSE;
		else
			return config_error(b->c, config_setting_get_member(d, "strategy"), b->err,
				   "unknown strategy '%s'; write strategy = \"full\", \"taint\" or \"sparse\";", st);
		if (b->spec.strategy != DESIGN_FULL && !b->c->dependencies)
			return config_error(b->c, config_setting_get_member(d, "strategy"), b->err,
				   "strategy \"%s\" needs a dependency file; add dependencies = \"app.deps\";", st);
	}
	const config_setting_t *bs = config_setting_get_member(d, "baseline");
	if (bs && get_point(b, bs, "baseline", &b->baseline, 1))
		return -1;
	b->spec.baseline = b->baseline;
	int extra = 1;
	if (config_get_int(b->c, d, "min_values", 1, &b->spec.min_values, b->err) || config_get_int(b->c, d, "sparse_extra", 0, &extra, b->err))
		return -1;
	b->spec.sparse_extra = extra == 0 ? -1 : extra;
	const config_setting_t *mr = config_setting_get_member(d, "min_run_seconds");
	if (mr && (!config_setting_is_number(mr) || config_number(mr) <= 0))
		return config_error(b->c, mr, b->err, "'min_run_seconds' must be a positive number of seconds; write "
			   "min_run_seconds = 0.1;");
	if (mr)
		b->spec.min_run_seconds = config_number(mr);
	return 0;
}

static int parse_budget(struct pb *b)
{
	const config_setting_t *g = b->c->budget;
	if (!g)
		return 0;
	static const char *const k[] = { "core_hours", "min_repetitions", "charge", "cores_per_node",
					 "overrun", NULL };
	if (config_check_group(b->c, g, "budget", b->err) || config_check_keys(b->c, g, k, "budget", b->err))
		return -1;
	const config_setting_t *ch = config_setting_get_member(g, "core_hours");
	if (ch) {
		if (!config_setting_is_number(ch) || config_number(ch) <= 0)
			return config_error(b->c, ch, b->err, "'core_hours' must be a positive number; write core_hours = 500.0;");
		/* a two-arm run gives each arm its share (campaign_config.budget_share) */
		b->spec.budget_core_hours = config_number(ch) * (b->c->budget_share > 0 ? b->c->budget_share : 1);
	}
	const config_setting_t *ov = config_setting_get_member(g, "overrun");
	if (ov && (!config_setting_is_number(ov) || config_number(ov) < 0))
		return config_error(b->c, ov, b->err, "'overrun' must be a fraction >= 0; write overrun = 0.1; (10%%)");
	b->overrun = ov ? config_number(ov) : 0.1;
	if (config_get_int(b->c, g, "min_repetitions", 1, &b->spec.min_repetitions, b->err) ||
	    config_get_int(b->c, g, "cores_per_node", 1, &b->spec.cores_per_node, b->err))
		return -1;
	const char *charge;
	if (config_get_text(b->c, g, "charge", &charge, b->err))
		return -1;
	if (charge && !strcmp(charge, "node")) {
		b->spec.charge = CHARGE_NODE;
		if (!b->spec.cores_per_node)
			return config_error(b->c, config_setting_get_member(g, "charge"), b->err,
				   "charge = \"node\" needs the node size; add cores_per_node = 36; to budget");
	} else if (charge && strcmp(charge, "core")) {
		return config_error(b->c, config_setting_get_member(g, "charge"), b->err,
			   "unknown charge '%s'; write charge = \"core\" (ranks x time) or \"node\" "
			   "(nodes x cores_per_node x time);", charge);
	}
	if (b->spec.budget_core_hours > 0 && !b->c->cost_model)
		return config_error(b->c, g, b->err, "a budget needs a cost model to price runs; add cost_model = \"...\";");
	return 0;
}

/* Parameters here that varied, with positive values, in the finished runs
   of an earlier campaign: their old index in oldk, ours in newk.  Returns
   their count. */
static int varied_columns(const struct campaign_config *c, const struct store *st,
			  const struct run *runs, int n, int *oldk, int *newk)
{
	int ncols = 0;
	for (int k = 0; k < c->nparams; k++) {
		int ok = -1;
		for (int j = 0; j < store_nparams(st); j++)
			if (!strcmp(store_param_name(st, j), c->params[k].name))
				ok = j;
		if (ok < 0)
			continue;
		double first = NAN;
		int varies = 0, positive = 1;
		for (int i = 0; i < n; i++) {
			if (runs[i].state != RUN_DONE || runs[i].wall <= 0)
				continue;
			double v = runs[i].values[ok];
			positive &= v > 0;
			if (isnan(first))
				first = v;
			varies |= v != first;
		}
		if (varies && positive) {
			oldk[ncols] = ok;
			newk[ncols++] = k;
		}
	}
	return ncols;
}

/*
 * Runtime from an earlier campaign: fit log(wall) = c0 + sum a_k log(x_k)
 * to its finished runs (a power law in every parameter that varied there
 * and exists here), and use c0' * prod x_k^a_k as the cost model.
 */
static int cost_from_campaign(struct pb *b, const config_setting_t *s, const char *dir)
{
	const struct campaign_config *c = b->c;
	char *path = config_resolve(c, dir);
	struct store *st;
	struct perr e2;
	if (store_open(&st, path, STORE_READONLY, &e2) < 0) {
		free(path);
		return config_error(b->c, s, b->err, "cannot use campaign '%s' as a cost model: %s", dir, e2.msg);
	}
	free(path);
	struct run *runs = NULL;
	int n = 0;
	if (store_load_runs(st, 0, &runs, &n, &e2) < 0) {
		store_close(st);
		return config_error(b->c, s, b->err, "cannot read the runs of campaign '%s': %s", dir, e2.msg);
	}
	/* old parameter index for each column: parameters here that varied there */
	int np = c->nparams, *oldk = xmalloc(sizeof(int) * (size_t)(np + 1)), *newk = xmalloc(sizeof(int) * (size_t)(np + 1));
	int ndone = 0;
	for (int i = 0; i < n; i++)
		ndone += runs[i].state == RUN_DONE && runs[i].wall > 0;
	int ncols = varied_columns(c, st, runs, n, oldk, newk);
	store_close(st);
	double *x = xmalloc(sizeof(double) * (size_t)(ndone ? ndone : 1) * (size_t)(ncols ? ncols : 1));
	double *y = xmalloc(sizeof(double) * (size_t)(ndone ? ndone : 1)), c0 = NAN, *expo = xmalloc(sizeof(double) * (size_t)(ncols + 1));
	int row = 0, rc = -1;
	for (int i = 0; i < n; i++) {
		if (runs[i].state != RUN_DONE || runs[i].wall <= 0)
			continue;
		for (int j = 0; j < ncols; j++)
			x[(size_t)row * (size_t)ncols + (size_t)j] = runs[i].values[oldk[j]];
		y[row++] = runs[i].wall;
	}
	if (ndone >= ncols + 2)
		rc = model_power_law(x, y, ndone, ncols, &c0, expo, &e2);
	if (rc == 0) {
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_addf(&sb, "%.10g", c0);
		for (int j = 0; j < ncols; j++)
			strbuf_addf(&sb, " * %s^%.10g", c->params[newk[j]].name, expo[j]);
		b->cost_text = strbuf_detach(&sb);
	}
	runs_free(runs, n);
	free(oldk);
	free(newk);
	free(x);
	free(y);
	free(expo);
	if (ndone < ncols + 2)
		return config_error(b->c, s, b->err, "campaign '%s' has %d finished runs; a cost model over %d parameters needs "
			   "at least %d", dir, ndone, ncols, ncols + 2);
	if (rc < 0)
		return config_error(b->c, s, b->err, "cannot fit a cost model to campaign '%s': %s", dir, e2.msg);
	b->spec.cost_model = b->cost_text;
	b->fitted = 1;
	return 0;
}

static int parse_cost(struct pb *b)
{
	const config_setting_t *s = b->c->cost_model;
	if (!s)
		return 0;
	const char *text = NULL;
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		text = config_setting_get_string(s);
	} else if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		static const char *const k[] = { "expression", "campaign", NULL };
		if (config_check_keys(b->c, s, k, "cost_model", b->err))
			return -1;
		const char *camp;
		if (config_get_text(b->c, s, "campaign", &camp, b->err) ||
		    config_get_text(b->c, s, "expression", &text, b->err))
			return -1;
		if (camp && text)
			return config_error(b->c, s, b->err, "cost_model takes an expression or a campaign, not both");
		if (camp)
			return cost_from_campaign(b, config_setting_get_member(s, "campaign"), camp);
		if (!text)
			return config_error(b->c, s, b->err, "cost_model needs expression = \"...\"; or campaign = \"DIR\";");
	} else {
		return config_error(b->c, s, b->err, "'cost_model' must be an expression string (seconds per run), like "
			   "cost_model = \"2e-3 * size^3 / p + 1\";");
	}
	const struct campaign_config *c = b->c;
	char **names = xmalloc(sizeof(char *) * (size_t)(c->nparams + c->nderived + 1));
	for (int k = 0; k < c->nparams; k++)
		names[k] = c->params[k].name;
	for (int d = 0; d < c->nderived; d++)
		names[c->nparams + d] = c->derived[d].name;
	struct perr e2;
	struct expr *e = expr_parse(text, c->nparams + c->nderived, names, &e2);
	free(names);
	if (!e)
		return config_error(b->c, s, b->err, "bad cost model \"%.60s%s\": %s", text,
				    strlen(text) > 60 ? "..." : "", e2.msg);   /* the error ends the line */
	expr_free(e);
	/* the design sweeps the swept parameters: derived names become their expressions */
	b->cost_text = c->nderived ? plan_inline_derived(c, text) : NULL;
	b->spec.cost_model = b->cost_text ? b->cost_text : text;
	return 0;
}

/* The parameter with this role, or -1. */
static int role_param(const struct campaign_config *c, const char *role)
{
	for (int k = 0; k < c->nparams; k++)
		if (c->params[k].role && !strcmp(c->params[k].role, role))
			return k;
	return -1;
}

static int ranks_param(const struct campaign_config *c)
{
	return role_param(c, "ranks");
}

/* A placement section that only binds (policy, cores or threads per rank) and places no axis. */
static int placement_without_axis(const struct campaign_config *c, const config_setting_t *g)
{
	return !config_setting_get_member(g, "ranks_per_node") && !config_setting_get_member(g, "attach") &&
	       (config_has_threads(c) || config_setting_get_member(g, "policy") ||
		config_setting_get_member(g, "cores_per_rank"));
}

/* The placement map read and parsed as every run reads it: a regular file
   of bounded size (never /dev/zero, never a FIFO).  0, or -1 (err). */
static int map_unreadable(const char *path, struct perr *err)
{
	struct policy p;
	policy_init(&p);
	int rc = policy_load_map(&p, path, err);
	policy_release(&p);
	return rc;
}

static int parse_placement(struct pb *b)
{
	const config_setting_t *g = b->c->placement;
	if (g) {
		static const char *const k[] = { "ranks_per_node", "policy", "attach", "map",
						 "cores_per_rank", "threads_per_rank", NULL };
		if (config_check_group(b->c, g, "placement", b->err) || config_check_keys(b->c, g, k, "placement", b->err))
			return -1;
		int rpn_k = role_param(b->c, "ranks_per_node");
		const config_setting_t *rs = config_setting_get_member(g, "ranks_per_node");
		/* without ranks_per_node (threads per rank, a policy alone) there is no axis */
		if (ranks_param(b->c) < 0 && rpn_k < 0 && (rs || !placement_without_axis(b->c, g)))
			return config_error(b->c, g, b->err, "a placement axis needs a parameter with role = \"ranks\"");
		if (rpn_k >= 0 && rs)
			return config_error(b->c, rs, b->err, "parameter '%s' (role \"ranks_per_node\") sets the ranks per node; "
				   "remove placement.ranks_per_node", b->c->params[rpn_k].name);
		if (rpn_k < 0 && (rs || !placement_without_axis(b->c, g)) && get_rpn(b, g, &b->rpn, &b->spec.nrpn))
			return -1;
		b->spec.rpn = b->rpn;
		/* policy, map and cores per rank: the contract the config loader parsed */
		b->spec.policy = policy_kind_name(b->c->placement_spec.policy);
		struct perr merr;
		if (b->c->placement_map && map_unreadable(b->c->placement_map, &merr))
			return config_error(b->c, config_setting_get_member(g, "map"), b->err, "%s", merr.msg);
		const config_setting_t *a = config_setting_get_member(g, "attach");
		if (a) {
			int t = config_setting_type(a);
			int len = t == CONFIG_TYPE_STRING ? 1 : config_setting_length(a);
			if (t != CONFIG_TYPE_STRING && t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
				return config_error(b->c, a, b->err, "'attach' must be \"all\", \"baseline\" or a list of parameter names");
			b->attach = xcalloc((size_t)len + 1, sizeof(char *));
			for (int i = 0; i < len; i++) {
				const config_setting_t *e = t == CONFIG_TYPE_STRING ? a : config_setting_get_elem(a, (unsigned)i);
				const char *w = config_setting_get_string(e);
				if (!w)
					return config_error(b->c, a, b->err, "'attach' lists strings: \"all\", \"baseline\" or parameter names");
				if (strcmp(w, "all") && strcmp(w, "baseline") && config_find_param(b->c, w) < 0)
					return config_error(b->c, a, b->err, "placement attaches to '%s', which is not all, baseline "
						   "or a parameter", w);
				b->attach[b->spec.nattach++] = (char *)w;
			}
			b->spec.attach = b->attach;
		}
	}
	const config_setting_t *ct = b->c->contention;
	if (ct) {
		static const char *const k[] = { "point", "ranks_per_node", "repetitions", NULL };
		if (config_check_group(b->c, ct, "contention", b->err) || config_check_keys(b->c, ct, k, "contention", b->err))
			return -1;
		if (ranks_param(b->c) < 0)
			return config_error(b->c, ct, b->err, "a contention experiment needs a parameter with role = \"ranks\"");
		int rpn_k = role_param(b->c, "ranks_per_node");
		if (rpn_k >= 0)
			return config_error(b->c, ct, b->err, "parameter '%s' (role \"ranks_per_node\") is the study axis already; "
				   "remove the contention block or the role", b->c->params[rpn_k].name);
		const config_setting_t *pt = config_setting_get_member(ct, "point");
		if (!pt)
			return config_error(b->c, ct, b->err, "contention needs the fixed point: point = { p = 64; size = 30; };");
		if (get_point(b, pt, "point", &b->cpoint, 0) || get_rpn(b, ct, &b->crpn, &b->spec.ncontention) ||
		    config_get_int(b->c, ct, "repetitions", 1, &b->spec.contention_repetitions, b->err))
			return -1;
		int rk = ranks_param(b->c);
		if (!isnan(b->cpoint[rk]) && (b->cpoint[rk] < 1 || b->cpoint[rk] != floor(b->cpoint[rk])))
			return config_error(b->c, pt, b->err, "the contention rank count must be a positive integer");
		b->spec.contention_point = b->cpoint;
		b->spec.contention_rpn = b->crpn;
		if (!b->spec.policy)
			b->spec.policy = "compact";
	}
	if (config_has_threads(b->c) && !b->spec.policy)
		b->spec.policy = "compact";     /* a rank's threads are bound to its cores */
	return 0;
}

/* A note with a cost model fitted to an earlier campaign. */
static void note_fitted(struct plan *pl, const char *fitted, const config_setting_t *cost)
{
	if (!fitted)
		return;
	const config_setting_t *camp = config_setting_get_member(cost, "campaign");
	pl->notes = xrealloc(pl->notes, sizeof(char *) * (size_t)(pl->nnotes + 1));
	pl->notes[pl->nnotes++] = xasprintf("cost model fitted to campaign '%s': %s seconds per run",
					    camp ? config_setting_get_string(camp) : "?", fitted);
}

/* Materialise pl when derived parameters or a model = false check need its
   points one by one; 1 then (0: nothing to add or check). */
static int plan_points_of(struct plan *pl, const struct campaign_config *c)
{
	int need = c->nderived > 0;
	for (int k = 0; k < c->nparams && !need; k++)
		need = c->unmodelled[k] && c->params[k].nvalues > 1;
	if (need)
		plan_materialize(pl);
	return need;
}

/* Runs are rows of the store: cap them as the planner caps points. */
#define MAX_PLAN_RUNS 10000000

/* The config's design sections and dependency file into b->spec; -1 with err.  Release b either way. */
static int pb_parse(struct pb *b, const struct campaign_config *c, struct perr *err)
{
	memset(b, 0, sizeof(*b));
	b->c = c;
	b->err = err;
	b->overrun = 0.1;
	b->spec.nparams = c->nparams;
	b->spec.params = c->params;
	b->spec.repetitions = c->repetitions;
	b->spec.ranks = 1;
	/* each placed point's map and cores per rank, so the store and the fingerprint cover them */
	b->spec.map = c->placement_map;
	b->spec.cores_per_rank = c->cores_per_rank;
	if (parse_design(b) || parse_budget(b) || parse_cost(b) || parse_placement(b) ||
	    plan_check_files(c, err))
		return -1;
	if (c->dependencies) {
		if (access(c->dependencies, R_OK))
			return config_error(c, config_lookup(&c->cfg, "dependencies"), err,
					    "cannot read dependency file '%s': %s", c->dependencies, strerror(errno));
		if (deps_read(&b->deps, c->dependencies, err) < 0)
			return -1;
		b->have_deps = 1;
		b->spec.deps = &b->deps;
	}
	return 0;
}

static void pb_release(struct pb *b)
{
	if (b->have_deps)
		deps_release(&b->deps);
	free(b->baseline);
	free(b->rpn);
	free(b->crpn);
	free(b->cpoint);
	free(b->attach);
	free(b->cost_text);
}

int plan_build_compact(struct plan *pl, const struct campaign_config *c, struct perr *err)
{
	memset(pl, 0, sizeof(*pl));
	struct pb b;
	int rc = -1;
	const struct backend_entry *be = backend_for_config(c, err);
	if (!be)
		return -1;
	if (pb_parse(&b, c, err))
		goto done;
	if (plan_design_compact(pl, &b.spec, err) < 0) {
		/* cost-model and budget problems point at those, others at the
		   design, else at the parameters that make the plan */
		const config_setting_t *at = err->kind == PERR_COST_MODEL && c->cost_model ? c->cost_model
					   : err->kind == PERR_BUDGET ? c->budget : c->design;
		if (!at)
			at = config_setting_get_member(config_root_setting(&c->cfg), "parameters");
		if (at) {
			char where[PATH_MAX + 32];
			perr_prefix(err, "%s", config_where(c, at, where, sizeof(where)));
		}
		goto done;
	}
	if (pl->runs > MAX_PLAN_RUNS) {
		const config_setting_t *at = config_setting_get_member(config_root_setting(&c->cfg),
								       "repetitions");
		char where[PATH_MAX + 32];
		perr_set(err, "%s: the plan has %lld runs, more than %d; use fewer repetitions or points",
			 config_where(c, at ? at : c->design, where, sizeof(where)), pl->runs, MAX_PLAN_RUNS);
		plan_release(pl);
		goto done;
	}
	if (plan_points_of(pl, c) && (plan_add_derived(pl, c, err) || plan_check_unmodelled(pl, c, err))) {
		plan_release(pl);
		goto done;
	}
	note_fitted(pl, b.fitted ? b.cost_text : NULL, c->cost_model);
	pl->order = c->order;
	pl->order_seed = c->have_order_seed ? c->order_seed
		: (unsigned long)(wall_now() * 1000.0) ^ ((unsigned long)getpid() << 16);
	pl->budget_core_hours = b.spec.budget_core_hours;
	pl->charge = b.spec.charge;
	pl->budget_overrun = b.overrun;
	/* the placements against the backend: its nodes, cores, partitions */
	if (be->plan_check && be->plan_check(pl, c, err) < 0) {
		const config_setting_t *at = c->placement ? c->placement : c->contention;
		if (err->kind == PERR_BACKEND || !at)
			at = config_lookup(&c->cfg, "backend");
		if (at) {
			char where[PATH_MAX + 32];
			perr_prefix(err, "%s", config_where(c, at, where, sizeof(where)));
		}
		plan_release(pl);
		goto done;
	}
	char *what = be->plan_note ? be->plan_note(pl, c) : NULL;
	if (what) {
		pl->notes = xrealloc(pl->notes, sizeof(char *) * (size_t)(pl->nnotes + 1));
		pl->notes[pl->nnotes++] = what;
	}
	rc = 0;
done:
	pb_release(&b);
	return rc;
}

int plan_build(struct plan *pl, const struct campaign_config *c, struct perr *err)
{
	int rc = plan_build_compact(pl, c, err);
	if (rc == 0)
		plan_materialize(pl);
	return rc;
}

struct plan_spec {
	struct pb b;
};

struct plan_spec *plan_spec_build(const struct campaign_config *c, struct perr *err)
{
	struct plan_spec *ps = xmalloc(sizeof(*ps));
	if (pb_parse(&ps->b, c, err) == 0)
		return ps;
	plan_spec_free(ps);
	return NULL;
}

const struct design_spec *plan_spec_design(const struct plan_spec *ps)
{
	return &ps->b.spec;
}

void plan_spec_free(struct plan_spec *ps)
{
	if (!ps)
		return;
	pb_release(&ps->b);
	free(ps);
}
