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
	char *cost_text;        /* cost model from an earlier campaign, or with derived parameters inlined */
	double overrun;         /* budget.overrun */
	int fitted;             /* cost_text was fitted to an earlier campaign */
};

/* The design and budget sections, as the config kit read them, into the spec. */
static void design_and_budget(struct pb *b)
{
	const struct config_planning *p = &b->c->planning;
	b->spec.strategy = p->strategy;
	b->spec.baseline = p->baseline;
	b->spec.min_values = p->min_values;
	b->spec.sparse_extra = p->sparse_extra;
	b->spec.min_run_seconds = p->min_run_seconds;
	/* a two-arm run gives each arm its share (campaign_config.budget_share) */
	b->spec.budget_core_hours = p->core_hours * (b->c->budget_share > 0 ? b->c->budget_share : 1);
	b->overrun = p->overrun;
	b->spec.min_repetitions = p->min_repetitions;
	b->spec.cores_per_node = p->cores_per_node;
	b->spec.charge = p->charge;
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
static int cost_from_campaign(struct pb *b, const char *dir)
{
	const struct campaign_config *c = b->c;
	char *path = config_resolve(c, dir);
	struct store *st;
	struct perr e2;
	if (store_open(&st, path, STORE_READONLY, &e2) < 0) {
		free(path);
		return config_error_in(b->c, "cost_model.campaign", -1, NULL, b->err, "cannot use campaign '%s' as a cost model: %s", dir, e2.msg);
	}
	free(path);
	struct run *runs = NULL;
	int n = 0;
	if (store_load_runs(st, 0, &runs, &n, &e2) < 0) {
		store_close(st);
		return config_error_in(b->c, "cost_model.campaign", -1, NULL, b->err, "cannot read the runs of campaign '%s': %s", dir, e2.msg);
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
		return config_error_in(b->c, "cost_model.campaign", -1, NULL, b->err, "campaign '%s' has %d finished runs; a cost model over %d parameters needs "
			   "at least %d", dir, ndone, ncols, ncols + 2);
	if (rc < 0)
		return config_error_in(b->c, "cost_model.campaign", -1, NULL, b->err, "cannot fit a cost model to campaign '%s': %s", dir, e2.msg);
	b->spec.cost_model = b->cost_text;
	b->fitted = 1;
	return 0;
}

static int parse_cost(struct pb *b)
{
	const struct config_planning *p = &b->c->planning;
	if (p->cost_campaign)
		return cost_from_campaign(b, p->cost_campaign);
	if (!p->cost_expression)
		return 0;
	/* the design sweeps the swept parameters: derived names become their expressions */
	b->cost_text = b->c->nderived ? plan_inline_derived(b->c, p->cost_expression) : NULL;
	b->spec.cost_model = b->cost_text ? b->cost_text : p->cost_expression;
	return 0;
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
	const struct config_planning *p = &b->c->planning;
	if (p->have_placement) {
		b->spec.nrpn = p->nrpn;
		b->spec.rpn = p->rpn;
		/* policy, map and cores per rank: the contract the config loader parsed */
		b->spec.policy = policy_kind_name(b->c->placement_spec.policy);
		struct perr merr;
		if (b->c->placement_map && map_unreadable(b->c->placement_map, &merr))
			return config_error_in(b->c, "placement.map", -1, NULL, b->err, "%s", merr.msg);
		b->spec.nattach = p->nattach;
		b->spec.attach = p->attach;
	}
	if (p->have_contention) {
		b->spec.contention_point = p->contention_point;
		b->spec.ncontention = p->ncontention;
		b->spec.contention_rpn = p->contention_rpn;
		b->spec.contention_repetitions = p->contention_repetitions;
		if (!b->spec.policy)
			b->spec.policy = "compact";
	}
	if (config_has_threads(b->c) && !b->spec.policy)
		b->spec.policy = "compact";     /* a rank's threads are bound to its cores */
	return 0;
}

/* A note with a cost model fitted to an earlier campaign. */
static void note_fitted(struct plan *pl, const char *fitted, const struct campaign_config *c)
{
	if (!fitted)
		return;
	pl->notes = xrealloc(pl->notes, sizeof(char *) * (size_t)(pl->nnotes + 1));
	pl->notes[pl->nnotes++] = xasprintf("cost model fitted to campaign '%s': %s seconds per run",
					    c->planning.cost_campaign, fitted);
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
	design_and_budget(b);
	if (parse_cost(b) || parse_placement(b) ||
	    plan_check_files(c, err))
		return -1;
	if (c->dependencies) {
		if (access(c->dependencies, R_OK))
			return config_error_in(c, "dependencies", -1, NULL, err,
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
		const char *at = err->kind == PERR_COST_MODEL && config_has(c, "cost_model") ? "cost_model"
			       : err->kind == PERR_BUDGET ? "budget" : "design";
		if (!config_has(c, at))
			at = "parameters";
		if (config_has(c, at)) {
			char where[PATH_MAX + 32];
			perr_prefix(err, "%s", config_where_at(c, at, where, sizeof(where)));
		}
		goto done;
	}
	if (pl->runs > MAX_PLAN_RUNS) {
		char where[PATH_MAX + 32];
		perr_set(err, "%s: the plan has %lld runs, more than %d; use fewer repetitions or points",
			 config_where_at(c, config_has(c, "repetitions") ? "repetitions" : "design", where,
					 sizeof(where)), pl->runs, MAX_PLAN_RUNS);
		plan_release(pl);
		goto done;
	}
	if (plan_points_of(pl, c) && (plan_add_derived(pl, c, err) || plan_check_unmodelled(pl, c, err))) {
		plan_release(pl);
		goto done;
	}
	note_fitted(pl, b.fitted ? b.cost_text : NULL, c);
	pl->order = c->order;
	pl->order_seed = c->have_order_seed ? c->order_seed
		: (unsigned long)(wall_now() * 1000.0) ^ ((unsigned long)getpid() << 16);
	pl->budget_core_hours = b.spec.budget_core_hours;
	pl->charge = b.spec.charge;
	pl->budget_overrun = b.overrun;
	/* the placements against the backend: its nodes, cores, partitions */
	if (be->plan_check && be->plan_check(pl, c, err) < 0) {
		const char *at = c->planning.have_placement ? "placement"
			       : c->planning.have_contention ? "contention" : NULL;
		if (err->kind == PERR_BACKEND || !at)
			at = "backend";
		if (config_has(c, at)) {
			char where[PATH_MAX + 32];
			perr_prefix(err, "%s", config_where_at(c, at, where, sizeof(where)));
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
