/*
 * Experiment designs (docs/designs.md): from a design_spec, the points of
 * the full, taint or sparse strategy, multiplied by the placement axis,
 * plus the contention experiment; each costed in core-hours and the whole
 * trimmed to the budget.  A pure function: no I/O.
 *
 * Counting and costing the full factorial never enumerates it (products
 * of value counts, expr_grid_sum for the cost).  The candidates are held
 * compactly (designs/plan_points.h) and the plan keeps them so: a 10^6-point
 * design costs tens of megabytes, and plan_design alone materialises it.
 */
#include "designs/analysis.h"
#include "designs/anchor.h"
#include "common/point_text.h"
#include "designs/expr.h"
#include "designs/plan.h"
#include "designs/plan_internal.h"
#include "designs/plan_points.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLAN_POINTS 2000000

enum kind { K_LINE, K_GROUP, K_EXTRA, K_FULL, K_PLACEMENT, K_CONTENTION };

struct builder {
	const struct design_spec *s;
	int np;
	int *base;              /* baseline value index per parameter */
	char *modelled;
	struct expr *cost;      /* seconds per run, or NULL */
	struct plan_points *pp; /* the candidates, compactly */
	char *base_reason;      /* "baseline", or with why its values were chosen (anchor.h) */
	int fresh;              /* the points being added are known new: add without looking */
	struct perr *err;
};

/* Append reason to point i's. */
static void cand_append_reason(struct builder *b, int i, const char *reason)
{
	struct pp_point *c = &b->pp->pt[i];
	char *both = xasprintf("%s; %s", b->pp->reasons[c->reason], reason);
	c->reason = plan_points_intern(b->pp, both);
	free(both);
}

/* Add a point (or merge its reason and requirement into an existing one). */
static int cand_add(struct builder *b, const uint32_t *ix, int rpn, int required, int contention,
		    const char *reason)
{
	int added = 1, i = b->fresh ? plan_points_append(b->pp, ix, rpn, reason)
				    : plan_points_add(b->pp, ix, rpn, reason, &added);
	if (!added) {
		b->pp->pt[i].required |= (char)required;
		if (!strstr(b->pp->reasons[b->pp->pt[i].reason], reason))
			cand_append_reason(b, i, reason);
		return i;
	}
	b->pp->pt[i].required = (char)required;
	b->pp->pt[i].contention = (char)contention;
	return i;
}

/* Charged resources of one run at values v and ranks-per-node rpn. */
static double resources(const struct builder *b, const double *v, int rpn)
{
	double ranks = plan_points_ranks(b->pp, v), cores = plan_points_cores(b->pp, v);
	rpn = plan_points_rpn(b->pp, v, rpn);
	if (b->s->charge == CHARGE_NODE) {   /* without ranks per node, as many as fit a node */
		double per = rpn > 0 ? rpn : fmax(1, floor(b->s->cores_per_node / cores));
		return ceil(ranks / per) * b->s->cores_per_node;
	}
	return ranks * cores;   /* every core a rank holds, its threads' too */
}

/* Core-hours of one run (0 without a cost model); -1 with err set if the model misbehaves. */

/* "n=72, i=5": the parameters' names with values v. */
static void builder_point_text(struct strbuf *sb, const struct builder *b, const double *v, const char *sep)
{
	const char *names[64];
	int n = b->np < 64 ? b->np : 64;
	for (int k = 0; k < n; k++)
		names[k] = b->s->params[k].name;
	point_text(sb, names, v, n, sep);
}

/* Core-hours of one run at v taking t seconds; -1 with err for a bad t. */
static double run_cost_at(struct builder *b, const double *v, int rpn, double t)
{
	if (!isfinite(t) || t < 0) {
		struct strbuf sb;
		strbuf_init(&sb);
		builder_point_text(&sb, b, v, ", ");
		perr_set_kind(b->err, PERR_COST_MODEL, "cost model gives %g seconds at %s", t, sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	return t * resources(b, v, rpn) / 3600.0;
}

static double run_cost(struct builder *b, const double *v, int rpn)
{
	return b->cost ? run_cost_at(b, v, rpn, expr_eval(b->cost, v)) : 0;
}

static void base_values(const struct builder *b, double *v)
{
	for (int k = 0; k < b->np; k++)
		v[k] = b->s->params[k].values[b->base[k]];
}

/* The baseline's indices. */
static void base_index(const struct builder *b, uint32_t *ix)
{
	for (int k = 0; k < b->np; k++)
		ix[k] = plan_points_canon(b->pp, k, b->base[k]);
}

static uint32_t *new_index(const struct builder *b)
{
	return xmalloc(sizeof(uint32_t) * (size_t)(b->np + 1));
}

/* The indices of values v (a value outside a parameter's list gets one). */
static void values_index(struct builder *b, const double *v, uint32_t *ix)
{
	for (int k = 0; k < b->np; k++)
		ix[k] = plan_points_value_index(b->pp, k, v[k]);
}

static void add_note(struct plan *pl, char *note)
{
	pl->notes = xrealloc(pl->notes, sizeof(char *) * (size_t)(pl->nnotes + 1));
	pl->notes[pl->nnotes++] = note;
}

/* ---- strategies ---- */

static void add_lines(struct builder *b, int rpn)
{
	uint32_t *ix = new_index(b);
	base_index(b, ix);
	cand_add(b, ix, rpn, 1, 0, b->base_reason);
	for (int k = 0; k < b->np; k++) {
		if (!b->modelled[k])
			continue;
		char reason[200];
		snprintf(reason, sizeof(reason), "line %s", b->s->params[k].name);
		for (int i = 0; i < b->s->params[k].nvalues; i++) {
			if (i == b->base[k])
				continue;
			base_index(b, ix);
			ix[k] = plan_points_canon(b->pp, k, i);
			cand_add(b, ix, rpn, 1, 0, reason);
		}
	}
	free(ix);
}

/* The grid over params gp[0..g) (others at baseline). */
static void add_grid(struct builder *b, const int *gp, int g, int rpn, const char *reason,
		     int required)
{
	int *idx = xcalloc((size_t)g + 1, sizeof(int));
	uint32_t *ix = new_index(b);
	double n = 1;
	for (int j = 0; j < g; j++)
		n *= b->s->params[gp[j]].nvalues;
	if (n <= MAX_PLAN_POINTS)
		plan_points_reserve(b->pp, (size_t)b->pp->n + (size_t)n);
	/* a grid on no points over distinct values has no point twice */
	b->fresh = b->pp->n == 0;
	for (int j = 0; j < g; j++)
		for (int i = 0; i < b->s->params[gp[j]].nvalues; i++)
			b->fresh &= plan_points_canon(b->pp, gp[j], i) == (uint32_t)i;
	for (;;) {
		base_index(b, ix);
		int online = 0, off = -1;
		for (int j = 0; j < g; j++) {
			ix[gp[j]] = plan_points_canon(b->pp, gp[j], idx[j]);
			if (idx[j] != b->base[gp[j]]) {
				online++;
				off = gp[j];
			}
		}
		char line[200];
		if (online == 0)
			snprintf(line, sizeof(line), "%s", b->base_reason);
		else if (online == 1)
			snprintf(line, sizeof(line), "line %s", b->s->params[off].name);
		cand_add(b, ix, rpn, required || online <= 1, 0, online <= 1 ? line : reason);
		int j = g - 1;
		for (; j >= 0; j--) {
			if (++idx[j] < b->s->params[gp[j]].nvalues)
				break;
			idx[j] = 0;
		}
		if (j < 0)
			break;
	}
	b->fresh = 0;
	free(idx);
	free(ix);
}

/* Rank of a candidate for "cheapest first": its cost, or without a model its distance from the baseline. */
static double pick_cost(struct builder *b, const double *v, const int *idx, const int *gp, int g, int rpn)
{
	if (b->cost)
		return run_cost(b, v, rpn);
	double d = 0;
	for (int j = 0; j < g; j++)
		d += abs(idx[j] - b->base[gp[j]]);
	return d;
}

static double run_floor(const struct builder *b)
{
	return b->s->min_run_seconds > 0 ? b->s->min_run_seconds : 0.1;
}

/*
 * Rank of a candidate for a sparse extra point, lowest first: points whose
 * estimated run time is above the measurability floor before those below
 * it, and among them mid-range values (each member's value index nearest
 * the middle of its range) before extreme ones, the cheaper breaking ties.
 * Below the floor, the longest runs first.
 */
static double extra_key(struct builder *b, const double *v, const int *idx, const int *gp, int g,
			unsigned mask, int rpn)
{
	double mid = 0, cost = pick_cost(b, v, idx, gp, g, rpn);
	if (cost < 0)
		return -1;
	for (int j = 0; j < g; j++) {
		int n = b->s->params[gp[j]].nvalues;
		if ((mask >> j & 1) && n > 1)
			mid += fabs(idx[j] - (n - 1) / 2.0) / ((n - 1) / 2.0);
	}
	double key = mid + 0.5 * cost / (1 + cost);
	if (b->cost) {
		double secs = expr_eval(b->cost, v);
		if (secs < run_floor(b))
			key = 1e6 + (run_floor(b) - secs);
	}
	return key;
}

/* Why an extra point was chosen, for --explain. */
static char *extra_reason(struct builder *b, const char *reason, const double *v)
{
	if (!b->cost)
		return xasprintf("%s; mid-range values (no cost model)", reason);
	double secs = expr_eval(b->cost, v), fl = run_floor(b);
	if (secs >= fl)
		return xasprintf("%s; mid-range values, est. %.3g s per run (above min_run_seconds %g s)",
				 reason, secs, fl);
	return xasprintf("%s; est. %.3g s per run, below min_run_seconds %g s: no candidate above it",
			 reason, secs, fl);
}

static int popcount(unsigned x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

/* Is planned point i off baseline in exactly the parameters mask selects from gp? */
static int support_matches(const struct builder *b, int i, const int *gp, int g, unsigned mask, int rpn)
{
	const struct pp_point *c = &b->pp->pt[i];
	if (c->rpn != rpn || c->contention)
		return 0;
	const uint32_t *ix = plan_points_index(b->pp, i);
	for (int k = 0; k < b->np; k++) {
		int off = b->pp->vals[k][ix[k]] != b->s->params[k].values[b->base[k]], in = 0;
		for (int j = 0; j < g; j++)
			if (gp[j] == k)
				in = mask >> j & 1;
		if (off != in)
			return 0;
	}
	return 1;
}

/* Planned points whose off-baseline parameters are exactly mask of gp. */
static int count_support(const struct builder *b, const int *gp, int g, unsigned mask, int rpn)
{
	int n = 0;
	for (int i = 0; i < b->pp->n; i++)
		n += support_matches(b, i, gp, g, mask, rpn);
	return n;
}

/* An already planned point whose off-baseline parameters are exactly mask of gp, or -1. */
static int find_support(const struct builder *b, const int *gp, int g, unsigned mask, int rpn)
{
	for (int i = 0; i < b->pp->n; i++) {
		if (support_matches(b, i, gp, g, mask, rpn))
			return i;
	}
	return -1;
}

/*
 * Values per member of mask: off-baseline indices by distance from the
 * baseline into opts[j] (nopt[j] of them), all of them while the candidates
 * number at most budget, otherwise the k nearest with k^|mask| <= budget.
 */
static void nearest_options(const struct builder *b, const int *gp, int g, unsigned mask, double budget,
			    int **opts, int *nopt)
{
	int size = popcount(mask);
	double all = 1;
	for (int j = 0; j < g; j++)
		if (mask >> j & 1)
			all *= b->s->params[gp[j]].nvalues - 1;
	int k = INT32_MAX;
	if (all > budget) {
		k = (int)floor(pow(budget, 1.0 / size) + 1e-9);
		if (k < 1)
			k = 1;
	}
	for (int j = 0; j < g; j++) {
		if (!(mask >> j & 1))
			continue;
		int n = b->s->params[gp[j]].nvalues, base = b->base[gp[j]];
		opts[j] = xmalloc(sizeof(int) * (size_t)n);
		for (int d = 1; d < n && nopt[j] < k; d++) {
			if (base - d >= 0 && nopt[j] < k)
				opts[j][nopt[j]++] = base - d;
			if (base + d < n && nopt[j] < k)
				opts[j][nopt[j]++] = base + d;
		}
	}
}

/* The keep cheapest points seen so far, cheapest first. */
struct best_list {
	int keep, n;
	double *cost;
	double **v;
};

/* Insert point v (np values) of cost cst when it is among the cheapest. */
static void best_insert(struct best_list *bl, double cst, const double *v, int np)
{
	int at = bl->n;
	while (at > 0 && bl->cost[at - 1] > cst)
		at--;
	if (at >= bl->keep)
		return;
	if (bl->n == bl->keep)
		free(bl->v[--bl->n]);
	memmove(bl->cost + at + 1, bl->cost + at, sizeof(double) * (size_t)(bl->n - at));
	memmove(bl->v + at + 1, bl->v + at, sizeof(double *) * (size_t)(bl->n - at));
	bl->cost[at] = cst;
	bl->v[at] = xmalloc(sizeof(double) * (size_t)(np + 1));
	memcpy(bl->v[at], v, sizeof(double) * (size_t)np);
	bl->n++;
}

/*
 * Add the `want` cheapest points not yet planned whose off-baseline
 * parameters are exactly the subset mask of gp[0..g).  Each parameter of the
 * subset takes its values nearest the baseline: all of them while the
 * candidates number at most `budget`, otherwise the k nearest with
 * k^|subset| <= budget (at least the nearest one).
 */
static int add_cheapest(struct builder *b, const int *gp, int g, unsigned mask, int want, int rpn,
			const char *reason, int required, double budget)
{
	int **opts = xcalloc((size_t)g + 1, sizeof(int *));
	int *nopt = xcalloc((size_t)g + 1, sizeof(int));
	nearest_options(b, gp, g, mask, budget, opts, nopt);
	int keepn = want + count_support(b, gp, g, mask, rpn);
	struct best_list bl = { keepn, 0, xmalloc(sizeof(double) * (size_t)keepn),
				xcalloc((size_t)keepn, sizeof(double *)) };
	int rc = 0;
	int *pos = xcalloc((size_t)g + 1, sizeof(int));
	double *v = xmalloc(sizeof(double) * (size_t)(b->np + 1));
	int *idx = xmalloc(sizeof(int) * (size_t)(g + 1));
	for (;;) {
		base_values(b, v);
		for (int j = 0; j < g; j++) {
			idx[j] = (mask >> j & 1) ? opts[j][pos[j]] : b->base[gp[j]];
			v[gp[j]] = b->s->params[gp[j]].values[idx[j]];
		}
		double cst = required ? pick_cost(b, v, idx, gp, g, rpn)
				      : extra_key(b, v, idx, gp, g, mask, rpn);
		if (cst < 0) {
			rc = -1;
			break;
		}
		best_insert(&bl, cst, v, b->np);
		int j = g - 1;
		for (; j >= 0; j--) {
			if (!(mask >> j & 1))
				continue;
			if (++pos[j] < nopt[j])
				break;
			pos[j] = 0;
		}
		if (j < 0)
			break;
	}
	int added = 0;
	uint32_t *ix = new_index(b);
	for (int i = 0; i < bl.n; i++) {
		if (rc == 0 && added < want) {
			values_index(b, bl.v[i], ix);
			if (plan_points_find(b->pp, ix, rpn) >= 0) {
				free(bl.v[i]);
				continue;
			}
			char *why = required ? NULL : extra_reason(b, reason, bl.v[i]);
			cand_add(b, ix, rpn, required, 0, why ? why : reason);
			free(why);
			added++;
		}
		free(bl.v[i]);
	}
	for (int j = 0; j < g; j++)
		free(opts[j]);
	free(opts);
	free(nopt);
	free(bl.v);
	free(bl.cost);
	free(pos);
	free(idx);
	free(ix);
	free(v);
	return rc;
}

static int add_sparse(struct builder *b, const int *gp, int g, const char *gname, int rpn)
{
	if (g > 12)
		return perr_set(b->err, "group %s has %d parameters; sparse designs handle at most 12", gname, g);
	/* candidates evaluated per subset, so that a whole group costs ~2e5 evaluations */
	double budget = 2e5 / ((1u << g) - g);
	if (budget < 64)
		budget = 64;
	/* one point per interaction subset, smallest subsets first */
	for (int size = 2; size <= g; size++)
		for (unsigned mask = 0; mask < (1u << g); mask++) {
			if (popcount(mask) != size)
				continue;
			struct strbuf r;
			strbuf_init(&r);
			strbuf_addstr(&r, "sparse ");
			for (int j = 0, first = 1; j < g; j++)
				if (mask >> j & 1) {
					strbuf_addf(&r, "%s%s", first ? "" : "*", b->s->params[gp[j]].name);
					first = 0;
				}
			strbuf_addstr(&r, ": separates the product from the sum");
			int have = find_support(b, gp, g, mask, rpn), rc = 0;
			if (have >= 0) {        /* another group's point serves this subset too */
				b->pp->pt[have].required = 1;
				cand_append_reason(b, have, r.buf);
			} else {
				rc = add_cheapest(b, gp, g, mask, 1, rpn, r.buf, 1, budget);
			}
			strbuf_release(&r);
			if (rc < 0)
				return -1;
		}
	int extra = b->s->sparse_extra == 0 ? 1 : b->s->sparse_extra < 0 ? 0 : b->s->sparse_extra;
	if (extra > 0) {
		char reason[600];
		snprintf(reason, sizeof(reason), "sparse %s: extra point to check the fit", gname);
		if (add_cheapest(b, gp, g, (1u << g) - 1, extra, rpn, reason, 0, budget) < 0)
			return -1;
	}
	return 0;
}

static int add_full(struct builder *b, int rpn)
{
	double n = 1;
	int *gp = xmalloc(sizeof(int) * (size_t)(b->np + 1));
	int g = 0;
	for (int k = 0; k < b->np; k++)
		if (b->modelled[k]) {
			gp[g++] = k;
			n *= b->s->params[k].nvalues;
		}
	if (n > MAX_PLAN_POINTS) {
		free(gp);
		return perr_set(b->err, "the full factorial has %.0f points (limit %d); use strategy "
				"taint or sparse", n, MAX_PLAN_POINTS);
	}
	add_grid(b, gp, g, rpn, "full factorial", 0);
	free(gp);
	return 0;
}

/* Whether a point belongs to the placement axis' attachment. */
static int attached(const struct builder *b, const double *v)
{
	if (!b->s->nattach)
		return 1;
	for (int a = 0; a < b->s->nattach; a++) {
		const char *what = b->s->attach[a];
		if (!strcmp(what, "all"))
			return 1;
		int off = -1, noff = 0;
		for (int k = 0; k < b->np; k++)
			if (v[k] != b->s->params[k].values[b->base[k]]) {
				off = k;
				noff++;
			}
		if (noff == 0)
			return 1;       /* the baseline is on every line */
		if (noff == 1 && !strcmp(b->s->params[off].name, what))
			return 1;
	}
	return 0;
}

/* ---- full factorial totals without enumeration ---- */

static int full_factorial(struct builder *b, struct plan *pl)
{
	const struct design_spec *s = b->s;
	double n = 1;
	for (int k = 0; k < b->np; k++)
		n *= s->params[k].nvalues;
	int nplace = 1;
	int all = !s->nattach;
	for (int a = 0; a < s->nattach; a++)
		all |= !strcmp(s->attach[a], "all");
	if (s->nrpn > 0 && all)
		nplace = s->nrpn;
	n *= nplace;
	pl->full_points = n > 9e18 ? -1 : (long long)n;
	pl->full_runs = n * s->repetitions > 9e18 ? -1 : (long long)(n * s->repetitions);
	if (!b->cost) {
		pl->full_core_hours = 0;
		return 0;
	}
	/* cost per run = model * resources, as one expression */
	char **names = xmalloc(sizeof(char *) * (size_t)(b->np + 1));
	int *nv = xmalloc(sizeof(int) * (size_t)(b->np + 1));
	double **vals = xmalloc(sizeof(double *) * (size_t)(b->np + 1));
	for (int k = 0; k < b->np; k++) {
		names[k] = s->params[k].name;
		nv[k] = s->params[k].nvalues;
		vals[k] = s->params[k].values;
	}
	double total = 0;
	int rc = 0;
	for (int r = 0; r < nplace && rc == 0; r++) {
		int rpn = s->nrpn > 0 ? s->rpn[r] : 0;
		char ranks[200];
		if (b->pp->ranks_param >= 0)
			snprintf(ranks, sizeof(ranks), "(%s)", names[b->pp->ranks_param]);
		else
			snprintf(ranks, sizeof(ranks), "%d", s->ranks > 0 ? s->ranks : 1);
		if (b->pp->ranks_param < 0 && b->pp->rpn_param >= 0)
			snprintf(ranks, sizeof(ranks), "(%s)", names[b->pp->rpn_param]);
		char per[240], cores[200];
		if (b->pp->threads_param >= 0)
			snprintf(cores, sizeof(cores), "(%s)", names[b->pp->threads_param]);
		else
			snprintf(cores, sizeof(cores), "%d", b->pp->cores);
		if (b->pp->rpn_param >= 0)
			snprintf(per, sizeof(per), "(%s)", names[b->pp->rpn_param]);
		else if (rpn > 0)
			snprintf(per, sizeof(per), "%d", rpn);
		else if (b->pp->threads_param < 0)   /* as many ranks as fit a node */
			snprintf(per, sizeof(per), "%d", s->cores_per_node / b->pp->cores > 0
				 ? s->cores_per_node / b->pp->cores : 1);
		else    /* the full factorial's figure: a node's cores over the threads, unrounded */
			snprintf(per, sizeof(per), "(%d / %s)", s->cores_per_node, cores);
		char *text;
		if (s->charge == CHARGE_NODE)
			text = xasprintf("(%s) * ceil(%s / %s) * %d", s->cost_model, ranks, per,
					 s->cores_per_node);
		else
			text = xasprintf("(%s) * %s * %s", s->cost_model, ranks, cores);
		struct perr e2;
		struct expr *e = expr_parse(text, b->np, names, &e2);
		double sum = 0;
		if (!e || expr_grid_sum(e, nv, vals, 2e7, &sum, NULL, &e2) < 0) {
			add_note(pl, xasprintf("full factorial cost unknown: %s", e2.msg));
			total = -1;
			rc = 1;
		} else {
			total += sum;
		}
		expr_free(e);
		free(text);
	}
	pl->full_core_hours = total < 0 ? -1 : total * s->repetitions / 3600.0;
	free(names);
	free(nv);
	free(vals);
	return 0;
}

/* ---- budget ---- */

static double plan_cost(const struct builder *b, const char *keep, int reps)
{
	double t = 0;
	for (int i = 0; i < b->pp->n; i++)
		if (keep[i]) {
			int r = b->pp->pt[i].reps < reps ? b->pp->pt[i].reps : reps;
			t += b->pp->run_ch[i] * r;
		}
	return t;
}

static int cmp_cost_desc(const void *x, const void *y, void *arg)
{
	const double *ch = arg;
	int i = *(const int *)x, j = *(const int *)y;
	/* equal costs keep their order, whatever sort qsort is */
	return ch[i] != ch[j] ? (ch[i] < ch[j]) - (ch[i] > ch[j]) : (i > j) - (i < j);
}

static int fit_budget(struct builder *b, struct plan *pl, char *keep, int *reps_out)
{
	const struct design_spec *s = b->s;
	double budget = s->budget_core_hours;
	double eps = budget * 1e-9 + 1e-12;
	int reps = s->repetitions;
	*reps_out = reps;
	if (budget <= 0 || plan_cost(b, keep, reps) <= budget + eps)
		return 0;
	int minr = s->min_repetitions > 0 ? s->min_repetitions : 3;
	if (minr > reps)
		minr = reps;
	double before = plan_cost(b, keep, reps);
	while (reps > minr && plan_cost(b, keep, reps) > budget + eps)
		reps--;
	if (reps != s->repetitions)
		add_note(pl, xasprintf("budget: repetitions reduced from %d to %d (%.4g -> %.4g core-hours)",
				       s->repetitions, reps, before, plan_cost(b, keep, reps)));
	*reps_out = reps;
	if (plan_cost(b, keep, reps) <= budget + eps)
		return 0;
	int *order = xmalloc(sizeof(int) * (size_t)(b->pp->n + 1));
	int n = 0;
	for (int i = 0; i < b->pp->n; i++)
		if (!b->pp->pt[i].required)
			order[n++] = i;
	qsort_r(order, (size_t)n, sizeof(int), cmp_cost_desc, b->pp->run_ch);
	/* a running cost: each drop subtracts its point's cost, so trimming is
	   one sort and one pass (the total is summed afresh once, below) */
	int dropped = 0;
	double cost = plan_cost(b, keep, reps);
	for (int i = 0; i < n && cost > budget + eps; i++) {
		const struct pp_point *c = &b->pp->pt[order[i]];
		keep[order[i]] = 0;
		cost -= b->pp->run_ch[order[i]] * (c->reps < reps ? c->reps : reps);
		dropped++;
	}
	free(order);
	pl->dropped = dropped;
	if (dropped)
		add_note(pl, xasprintf("budget: dropped %d optional point%s, the most expensive first",
				       dropped, dropped == 1 ? "" : "s"));
	double need = plan_cost(b, keep, reps);
	if (need <= budget + eps)
		return 0;
	/* infeasible: the shortfall and the cheapest feasible alternative */
	struct strbuf alt;
	strbuf_init(&alt);
	int r2 = reps;
	while (r2 > 1 && plan_cost(b, keep, r2) > budget + eps)
		r2--;
	if (plan_cost(b, keep, r2) <= budget + eps)
		strbuf_addf(&alt, "min_repetitions = %d (%.4f core-hours)", r2, plan_cost(b, keep, r2));
	else
		strbuf_addf(&alt, "budget.core_hours = %.4f (required points, 1 repetition)",
			    plan_cost(b, keep, 1));
	perr_set_kind(b->err, PERR_BUDGET, "plan needs %.4f core-hours at %d repetitions with only the "
		      "points modelling needs, over the budget of %.4f by %.4f core-hours; cheapest "
		      "feasible alternative: %s", need, reps, budget, need - budget, alt.buf);
	strbuf_release(&alt);
	return -1;
}

/* ---- plan_design ---- */

/* Every parameter's baseline index and whether it is modelled (varies); -1 with err. */
static int setup_params(struct builder *b)
{
	const struct design_spec *s = b->s;
	b->base = xcalloc((size_t)s->nparams + 1, sizeof(int));
	b->modelled = xcalloc((size_t)s->nparams + 1, 1);
	b->pp->ranks_param = b->pp->rpn_param = -1;
	b->pp->ranks = s->ranks > 0 ? s->ranks : 1;
	int cores = s->cores_per_rank && (!s->policy || strcmp(s->policy, "explicit")) ? atoi(s->cores_per_rank) : 0;
	b->pp->cores = cores > 0 ? cores : 1;   /* "all" shares the cores: one each */
	for (int k = 0; k < s->nparams; k++) {
		const struct plan_param *p = &s->params[k];
		if (p->nvalues < 1)
			return perr_set(b->err, "parameter '%s' has no values", p->name);
		if (p->role && !strcmp(p->role, "ranks"))
			b->pp->ranks_param = k;
		if (p->role && !strcmp(p->role, "ranks_per_node"))
			b->pp->rpn_param = k;
		if (p->role && !strcmp(p->role, "threads"))
			b->pp->threads_param = k;
		int bi = 0;
		for (int i = 1; i < p->nvalues; i++)
			if (p->values[i] < p->values[bi])
				bi = i;
		if (s->baseline && !isnan(s->baseline[k])) {
			bi = -1;
			for (int i = 0; i < p->nvalues && bi < 0; i++)
				if (fabs(p->values[i] - s->baseline[k]) <= 1e-12 * fabs(s->baseline[k]))
					bi = i;
			if (bi < 0)
				return perr_set(b->err, "baseline %g of '%s' is not one of its values",
						s->baseline[k], p->name);
		}
		b->base[k] = bi;
		b->modelled[k] = p->nvalues > 1;
	}
	return 0;
}

/* The placement settings: charge, ranks per node, contention, attach; -1 with err. */
static int check_placement(const struct builder *b)
{
	const struct design_spec *s = b->s;
	if (s->charge == CHARGE_NODE && s->cores_per_node <= 0)
		return perr_set(b->err, "charge \"node\" needs cores_per_node");
	if (b->pp->rpn_param >= 0 && (s->nrpn > 0 || s->ncontention > 0))
		return perr_set(b->err, "parameter '%s' (role \"ranks_per_node\") sets the ranks per node; "
				"give no other ranks_per_node list", s->params[b->pp->rpn_param].name);
	for (int i = 0; i < s->nrpn; i++)
		if (s->rpn[i] <= 0)
			return perr_set(b->err, "ranks per node must be positive, not %d", s->rpn[i]);
	for (int i = 0; i < s->ncontention; i++)
		if (s->contention_rpn[i] <= 0)
			return perr_set(b->err, "contention ranks per node must be positive, not %d",
					s->contention_rpn[i]);
	for (int a = 0; a < s->nattach; a++) {
		const char *w = s->attach[a];
		int known = !strcmp(w, "all") || !strcmp(w, "baseline");
		for (int k = 0; k < s->nparams; k++)
			known |= !strcmp(w, s->params[k].name);
		if (!known)
			return perr_set(b->err, "placement attaches to '%s': not all, baseline or a parameter", w);
	}
	return 0;
}

/* Fix the parameters the analysis pruned at their baseline, with the reason in pl. */
static void prune_params(struct builder *b, struct plan *pl, const struct deps_analysis *an, char **names)
{
	const struct design_spec *s = b->s;
	for (int k = 0; k < s->nparams; k++) {
		int dk = deps_find_param(s->deps, names[k]);
		if (!b->modelled[k] || dk < 0 || !an->pruned[dk] || plan_param_is_study_axis(&s->params[k]))
			continue;       /* a study axis stays, even when no loop depends on it */
		b->modelled[k] = 0;
		pl->pruned = xrealloc(pl->pruned, sizeof(char *) * (size_t)(pl->npruned + 1));
		pl->pruned_why = xrealloc(pl->pruned_why, sizeof(char *) * (size_t)(pl->npruned + 1));
		pl->pruned[pl->npruned] = xstrdup(names[k]);
		char base[32];
		value_text(base, sizeof(base), s->params[k].values[b->base[k]]);
		pl->pruned_why[pl->npruned] = xasprintf(
			"affects no loop in '%s'; fixed at its baseline %s (to keep it, give it a role"
			" or name it in a function's deps there)",
			s->deps->path ? s->deps->path : "the dependency file", base);
		pl->npruned++;
	}
}

/* The analysis's multiplicative groups, by name, into pl. */
static void copy_groups(struct plan *pl, const struct deps *d, const struct deps_analysis *an)
{
	for (int g = 0; g < an->ngroups; g++) {
		const struct deps_group *dg = &an->groups[g];
		pl->groups = xrealloc(pl->groups, sizeof(*pl->groups) * (size_t)(pl->ngroups + 1));
		struct plan_group *pg = &pl->groups[pl->ngroups++];
		pg->nparams = dg->n;
		pg->params = xmalloc(sizeof(char *) * (size_t)dg->n);
		for (int i = 0; i < dg->n; i++)
			pg->params[i] = xstrdup(d->params[dg->params[i]]);
		pg->nfuncs = dg->nfuncs;
		pg->funcs = xmalloc(sizeof(char *) * (size_t)(dg->nfuncs + 1));
		for (int i = 0; i < dg->nfuncs; i++)
			pg->funcs[i] = xstrdup(d->funcs[dg->funcs[i]].name);
	}
}

/* Analyse the dependency file over the modelled parameters; prune and group.  -1 with err. */
static int setup_deps(struct builder *b, struct plan *pl, struct deps_analysis *an, char **names, int *have_an)
{
	const struct design_spec *s = b->s;
	char **sel = xmalloc(sizeof(char *) * (size_t)(s->nparams + 1));
	int nsel = 0;
	/* full and lines only prune: parameters the file does not know are simply swept */
	for (int k = 0; k < s->nparams; k++)
		if (b->modelled[k] && ((s->strategy != DESIGN_FULL && s->strategy != DESIGN_LINES) ||
				       deps_find_param(s->deps, names[k]) >= 0))
			sel[nsel++] = names[k];
	int rc = deps_analyze(an, s->deps, sel, nsel, b->err);
	free(sel);
	if (rc < 0)
		return -1;
	*have_an = 1;
	prune_params(b, pl, an, names);
	copy_groups(pl, s->deps, an);
	return 0;
}

static double anchor_resources(void *ctx, const double *v)
{
	const struct builder *b = ctx;
	return resources(b, v, b->s->nrpn > 0 ? b->s->rpn[0] : 0);
}

/* With a cost model, the baseline values not given are chosen by cost and noise (anchor.h). */
static void choose_anchors(struct builder *b, struct plan *pl)
{
	const struct design_spec *s = b->s;
	b->base_reason = xstrdup("baseline");
	if (!b->cost)
		return;
	char *fixed = xcalloc((size_t)s->nparams + 1, 1);
	for (int k = 0; k < s->nparams; k++)
		fixed[k] = s->baseline && !isnan(s->baseline[k]);
	int minr = s->min_repetitions > 0 ? s->min_repetitions : 3;
	struct anchor_input in = {
		.s = s, .cost = b->cost, .modelled = b->modelled, .fixed = fixed, .floor = run_floor(b),
		.min_repetitions = minr < s->repetitions ? minr : s->repetitions,
		.resources = anchor_resources, .ctx = b,
	};
	char *why = anchor_choose(&in, b->base);
	if (why) {
		free(b->base_reason);
		b->base_reason = xasprintf("baseline; %s", why);
		add_note(pl, why);
	}
	free(fixed);
}

/* Check the spec and prepare b (baseline, cost model, analysis); -1 with err. */
static int setup(struct builder *b, struct plan *pl, struct deps_analysis *an, int *have_an)
{
	const struct design_spec *s = b->s;
	*have_an = 0;
	if (s->nparams <= 0)
		return perr_set(b->err, "no parameters to design over");
	if (s->repetitions < 1)
		return perr_set(b->err, "repetitions must be at least 1, not %d", s->repetitions);
	if (setup_params(b) < 0 || check_placement(b) < 0)
		return -1;
	char **names = xmalloc(sizeof(char *) * (size_t)(s->nparams + 1));
	for (int k = 0; k < s->nparams; k++)
		names[k] = s->params[k].name;
	int rc = -1;
	struct perr e2;
	if (s->cost_model && !(b->cost = expr_parse(s->cost_model, s->nparams, names, &e2)))
		perr_set_kind(b->err, PERR_COST_MODEL, "cost model \"%.60s%s\": %s", s->cost_model,
			 strlen(s->cost_model) > 60 ? "..." : "", e2.msg);
	else if (s->budget_core_hours > 0 && !b->cost)
		perr_set_kind(b->err, PERR_BUDGET, "a budget needs a cost model to price the points");
	else if ((s->strategy == DESIGN_TAINT || s->strategy == DESIGN_SPARSE) && !s->deps)
		perr_set(b->err, "strategy '%s' needs a dependency file",
			 s->strategy == DESIGN_TAINT ? "taint" : "sparse");
	else if (!s->deps || setup_deps(b, pl, an, names, have_an) == 0)
		rc = 0;
	free(names);
	if (rc < 0)
		return -1;
	int minv = s->min_values > 0 ? s->min_values : 5;
	for (int k = 0; k < s->nparams; k++)
		if (b->modelled[k] && s->params[k].nvalues < minv && !plan_param_is_study_axis(&s->params[k]))
			add_note(pl, xasprintf("warning: parameter '%s' has %d values; a reliable model "
					       "needs at least %d", s->params[k].name,
					       s->params[k].nvalues, minv));
	choose_anchors(b, pl);
	return 0;
}

/*
 * Each candidate's repetitions and the cost of one run, and a note naming
 * the points whose estimated run time is below the floor: one evaluation
 * of the cost model per point.  -1 with err when the model misbehaves.
 */
static int price_points(struct builder *b, struct plan *pl)
{
	const struct design_spec *s = b->s;
	double fl = run_floor(b);
	int n = 0, rc = 0;
	struct strbuf sb;
	strbuf_init(&sb);
	double *v = xmalloc(sizeof(double) * (size_t)(b->np + 1));
	for (int i = 0; i < b->pp->n; i++) {
		struct pp_point *c = &b->pp->pt[i];
		c->reps = c->contention && s->contention_repetitions > 0 ? s->contention_repetitions
									: s->repetitions;
		if (!b->cost)
			continue;
		plan_points_values(b->pp, plan_points_index(b->pp, i), v);
		double secs = expr_eval(b->cost, v);
		if ((b->pp->run_ch[i] = run_cost_at(b, v, c->rpn, secs)) < 0) {
			rc = -1;
			break;
		}
		if (!(secs < fl) || ++n > 3)
			continue;
		strbuf_addstr(&sb, n > 1 ? "; " : "");
		builder_point_text(&sb, b, v, " ");
		if (b->pp->pt[i].rpn > 0)
			strbuf_addf(&sb, " rpn=%d", b->pp->pt[i].rpn);
		strbuf_addf(&sb, " (%.3g s)", secs);
	}
	if (n && rc == 0)
		add_note(pl, xasprintf("warning: %d point%s estimated below min_run_seconds = %g s per run, "
				       "too short to measure reliably: %s%s", n, n == 1 ? " is" : "s are", fl,
				       sb.buf, n > 3 ? "; ..." : ""));
	strbuf_release(&sb);
	free(v);
	return rc;
}

static int group_index(const struct design_spec *s, const char *name)
{
	for (int k = 0; k < s->nparams; k++)
		if (!strcmp(s->params[k].name, name))
			return k;
	return -1;
}

/* The points of the strategy: full factorial, or lines plus each group's grid or sparse set.  -1 with err. */
static int add_points(struct builder *b, const struct plan *pl, int rpn0)
{
	const struct design_spec *s = b->s;
	if (s->strategy == DESIGN_FULL)
		return add_full(b, rpn0);
	add_lines(b, rpn0);
	if (s->strategy == DESIGN_LINES)
		return 0;
	for (int g = 0; g < pl->ngroups; g++) {
		const struct plan_group *pg = &pl->groups[g];
		int *gp = xmalloc(sizeof(int) * (size_t)pg->nparams);
		struct strbuf gname;
		strbuf_init(&gname);
		for (int i = 0; i < pg->nparams; i++) {
			gp[i] = group_index(s, pg->params[i]);
			strbuf_addf(&gname, "%s%s", i ? "*" : "", pg->params[i]);
		}
		int grc = 0;
		if (s->strategy == DESIGN_TAINT) {
			char *reason = xasprintf("group %s", gname.buf);
			add_grid(b, gp, pg->nparams, rpn0, reason, 0);
			free(reason);
		} else {
			grc = add_sparse(b, gp, pg->nparams, gname.buf, rpn0);
		}
		strbuf_release(&gname);
		free(gp);
		if (grc < 0)
			return -1;
	}
	return 0;
}

/* The placement axis (other ranks per node for the attached points) and the contention points. */
static void add_rpn_points(struct builder *b)
{
	const struct design_spec *s = b->s;
	int nbase = b->pp->n;
	double *v = xmalloc(sizeof(double) * (size_t)(b->np + 1));
	uint32_t *ix = new_index(b);
	for (int r = 1; r < s->nrpn; r++) {
		for (int i = 0; i < nbase; i++) {
			/* a copy: adding a point moves the indices */
			memcpy(ix, plan_points_index(b->pp, i), sizeof(uint32_t) * (size_t)b->np);
			plan_points_values(b->pp, ix, v);
			if (!attached(b, v))
				continue;
			char *reason = xasprintf("placement %d ranks/node; %s", s->rpn[r],
						 b->pp->reasons[b->pp->pt[i].reason]);
			cand_add(b, ix, s->rpn[r], 0, 0, reason);
			free(reason);
		}
	}
	/* contention: one point, ranks per node varied */
	for (int r = 0; r < s->ncontention; r++) {
		base_values(b, v);
		for (int k = 0; k < b->np; k++)
			if (s->contention_point && !isnan(s->contention_point[k]))
				v[k] = s->contention_point[k];
		values_index(b, v, ix);
		char *reason = xasprintf("contention %d ranks/node", s->contention_rpn[r]);
		int i = cand_add(b, ix, s->contention_rpn[r], 0, 1, reason);
		b->pp->pt[i].contention = 1;
		free(reason);
	}
	free(v);
	free(ix);
}

/* The plan: the kept candidates at reps repetitions, compactly (the points move into pl). */
static void emit_plan(struct builder *b, struct plan *pl, const char *keep, int reps)
{
	const struct design_spec *s = b->s;
	struct plan_points *pp = b->pp;
	plan_copy_params(pl, s);
	static const char *names[] = { "full", "taint", "sparse", "lines" };
	pl->strategy = names[s->strategy >= 0 && s->strategy <= DESIGN_LINES ? s->strategy : 0];
	pl->cost_known = b->cost != NULL;
	pl->repetitions = reps;
	pp->reps = reps;
	pp->placed = s->nrpn > 0 || s->ncontention > 0;
	pp->policy = s->policy ? xstrdup(s->policy) : NULL;
	pp->map = s->map ? xstrdup(s->map) : NULL;
	pp->cores_per_rank = s->cores_per_rank ? xstrdup(s->cores_per_rank) : NULL;
	if (pp->threads_param >= 0) {   /* each point's cores per rank: its thread count */
		int k = pp->threads_param;
		pp->threads_text = xcalloc((size_t)pp->nvals[k] + 1, sizeof(char *));
		for (int i = 0; i < pp->nvals[k]; i++)
			pp->threads_text[i] = xasprintf("%.0f", pp->vals[k][i]);
	}
	for (int i = 0; i < pp->n; i++) {
		if (!keep[i])
			continue;
		if (pl->npoints < i) {  /* a point dropped: say which are kept */
			if (!pp->kept) {
				pp->kept = xmalloc(sizeof(int) * (size_t)(pp->n + 1));
				for (int j = 0; j < pl->npoints; j++)
					pp->kept[j] = j;
			}
			pp->kept[pl->npoints] = i;
		}
		int r = pp->pt[i].reps < reps ? pp->pt[i].reps : reps;
		pl->npoints++;
		pl->runs += r;
		pl->core_hours += pp->run_ch[i] * r;
	}
	pl->compact = pp;
	b->pp = NULL;
}

int plan_design_compact(struct plan *pl, const struct design_spec *s, struct perr *err)
{
	memset(pl, 0, sizeof(*pl));
	struct builder b = { .s = s, .np = s->nparams, .err = err };
	struct deps_analysis an;
	int have_an = 0, rc = -1;
	char *keep = NULL;
	b.pp = plan_points_new(s->params, s->nparams > 0 ? s->nparams : 0);
	if (setup(&b, pl, &an, &have_an) < 0)
		goto done;
	if (add_points(&b, pl, s->nrpn > 0 ? s->rpn[0] : 0) < 0)
		goto done;
	add_rpn_points(&b);
	if (price_points(&b, pl) < 0)
		goto done;
	full_factorial(&b, pl);
	keep = xmalloc((size_t)b.pp->n + 1);
	memset(keep, 1, (size_t)b.pp->n + 1);
	int reps;
	if (fit_budget(&b, pl, keep, &reps) < 0)
		goto done;
	emit_plan(&b, pl, keep, reps);
	rc = 0;
done:
	if (rc < 0)
		plan_release(pl);
	plan_points_free(b.pp);
	free(keep);
	free(b.base);
	free(b.base_reason);
	free(b.modelled);
	expr_free(b.cost);
	if (have_an)
		deps_analysis_release(&an);
	return rc;
}

int plan_design(struct plan *pl, const struct design_spec *s, struct perr *err)
{
	int rc = plan_design_compact(pl, s, err);
	if (rc == 0)
		plan_materialize(pl);
	return rc;
}
