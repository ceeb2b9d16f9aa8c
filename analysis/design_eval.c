/* Evaluating designs against DATA (design_eval.h). */
#include "analysis/design_eval.h"
#include "analysis/model_pipeline.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "models/ensemble.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_CANDIDATES 20000
#define DEFAULT_NBOOT 8
#define REPS_CAP 100            /* more repetitions than this buy no accuracy worth measuring */
#define SLACK (1 + 1e-9)        /* a design exactly at its budget fits it */

static const char *const strategy_names[] = { "design", "full", "lines", "cheapest", "disagree" };

const char *eval_strategy_name(enum eval_strategy s)
{
	return s >= 0 && s < EVAL_NSTRATEGIES ? strategy_names[s] : "?";
}

void eval_options_init(struct eval_options *o)
{
	memset(o, 0, sizeof(*o));
	model_options_robust(&o->model);
}

/* The evaluation under way. */
struct ev {
	struct design_spec sp;          /* the spec without placement, contention and budget */
	const struct design_spec *spec;
	const struct eval_data *d;
	struct model_options mo;
	struct perr *err;
	struct modeler *ctx;
	int nboot;
	int np, nmod, *mod;             /* spec parameters; the modelled ones (they vary) */
	char **modnames;
	int nc;                         /* candidates: the full factorial's points */
	double *cx, *cost;              /* nc x np values; core-hours of one run */
	int *sorted;                    /* candidates in the order of their values */
	int *epoint, *avail;            /* measured DATA: its point and repetitions per candidate */
	int reps, minreps;
	int nlines, *lines;
	int nreg, *cp;
	const struct dep_function **func;
	int nheld;
	double *hx;                     /* nheld x nmod: held-out points, modelled parameters */
	double *href;                   /* nheld x nreg: their reference values (NaN: none) */
};

struct selection {
	int n, *cand;
	int reps, feasible;
	double spent;
	unsigned char *more;    /* NULL, or per point: one repetition more (the budget's last rest) */
};

static void selection_release(struct selection *s)
{
	free(s->cand);
	free(s->more);
	memset(s, 0, sizeof(*s));
}

static int cmp_rows(const double *a, const double *b, int np)
{
	for (int k = 0; k < np; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

static int cmp_cand(const void *x, const void *y, void *ctx)
{
	const struct ev *v = ctx;
	int a = *(const int *)x, b = *(const int *)y;
	return cmp_rows(&v->cx[(size_t)a * (size_t)v->np], &v->cx[(size_t)b * (size_t)v->np], v->np);
}

/* The candidate with values x, or -1. */
static int find_cand(const struct ev *v, const double *x)
{
	int lo = 0, hi = v->nc - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = v->sorted[mid];
		int s = cmp_rows(&v->cx[(size_t)c * (size_t)v->np], x, v->np);
		if (!s)
			return c;
		if (s < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Plan strategy st at budget b (0: none) from the stripped spec. */
static int plan_variant(const struct ev *v, int st, double b, struct plan *pl, struct perr *err)
{
	struct design_spec s = v->sp;
	s.strategy = st;
	s.budget_core_hours = b;
	return plan_design(pl, &s, err);
}

/* The candidates (the full factorial, costed) and the modelled parameters; -1 with err. */
static int build_grid(struct ev *v, const struct eval_options *o, struct eval_result *r)
{
	struct plan pl;
	int max = o->max_candidates > 0 ? o->max_candidates : DEFAULT_MAX_CANDIDATES;
	if (plan_variant(v, DESIGN_FULL, 0, &pl, v->err) < 0)
		return -1;
	if (pl.npoints > max) {
		plan_release(&pl);
		return perr_set(v->err, "the full factorial has %d points; --evaluate compares designs of at "
				"most %d", pl.npoints, max);
	}
	v->nc = pl.npoints;
	v->cx = xmalloc(sizeof(double) * (size_t)v->nc * (size_t)v->np + 1);
	v->cost = xmalloc(sizeof(double) * (size_t)v->nc + 1);
	v->sorted = xmalloc(sizeof(int) * (size_t)v->nc + 1);
	for (int i = 0; i < v->nc; i++) {
		memcpy(&v->cx[(size_t)i * (size_t)v->np], pl.points[i].values, sizeof(double) * (size_t)v->np);
		v->cost[i] = pl.points[i].core_hours / pl.points[i].repetitions;
		v->sorted[i] = i;
	}
	r->full_cost = pl.core_hours;
	v->reps = pl.repetitions;
	plan_release(&pl);
	qsort_r(v->sorted, (size_t)v->nc, sizeof(int), cmp_cand, v);
	v->mod = xmalloc(sizeof(int) * (size_t)v->np + 1);
	v->modnames = xmalloc(sizeof(char *) * (size_t)v->np + 1);
	for (int k = 0; k < v->np; k++) {
		int varies = 0;
		for (int i = 1; i < v->nc && !varies; i++)
			varies = v->cx[(size_t)i * (size_t)v->np + (size_t)k] != v->cx[k];
		if (varies) {
			v->modnames[v->nmod] = v->spec->params[k].name;
			v->mod[v->nmod++] = k;
		}
	}
	if (!v->nmod)
		return perr_set(v->err, "no parameter varies: nothing to model");
	return 0;
}

/* A plan's points as candidates into sel (reps: the plan's); -1 with err for a point off the grid. */
static int plan_selection(const struct ev *v, const struct plan *pl, struct selection *sel)
{
	sel->cand = xmalloc(sizeof(int) * (size_t)pl->npoints + 1);
	sel->n = 0;
	for (int i = 0; i < pl->npoints; i++) {
		int c = find_cand(v, pl->points[i].values);
		if (c < 0)
			return perr_set(v->err, "the design's point %d is not in the full factorial", i);
		sel->cand[sel->n++] = c;
	}
	sel->reps = pl->repetitions;
	sel->feasible = 1;
	return 0;
}

/* The lines (and the baseline) and the design's own cost; -1 with err. */
static int build_lines(struct ev *v, struct eval_result *r)
{
	struct plan pl;
	if (plan_variant(v, DESIGN_LINES, 0, &pl, v->err) < 0)
		return -1;
	struct selection s = { 0 };
	int rc = plan_selection(v, &pl, &s);
	v->nlines = s.n;
	v->lines = s.cand;
	plan_release(&pl);
	if (rc < 0)
		return -1;
	/* the design as the config plans it, its own budget included */
	if (plan_variant(v, v->spec->strategy, v->spec->budget_core_hours, &pl, v->err) < 0)
		return -1;
	r->design_cost = pl.core_hours;
	r->design = pl.strategy;
	plan_release(&pl);
	return 0;
}

/* Measured DATA's point for every candidate (-1: not measured); -1 with err for a parameter DATA lacks. */
static int bind_data(struct ev *v)
{
	const struct experiment *e = v->d->e;
	int *fromk = xmalloc(sizeof(int) * (size_t)e->nparams + 1);
	double *x = xmalloc(sizeof(double) * (size_t)e->nparams + 1);
	int rc = 0;
	for (int j = 0; j < e->nparams; j++) {
		fromk[j] = -1;
		for (int k = 0; k < v->np; k++)
			if (!strcmp(v->spec->params[k].name, e->params[j]))
				fromk[j] = k;
		for (int p = 1; p < e->npoints && fromk[j] < 0 && rc == 0; p++)
			if (experiment_coord(e, p, j) != experiment_coord(e, 0, j))
				rc = perr_set(v->err, "DATA varies parameter '%s', which the config does not have",
					      e->params[j]);
	}
	for (int m = 0; m < v->nmod && rc == 0; m++)
		if (experiment_find_param(e, v->modnames[m]) < 0)
			rc = perr_set(v->err, "DATA has no parameter '%s'", v->modnames[m]);
	v->epoint = xmalloc(sizeof(int) * (size_t)v->nc + 1);
	v->avail = xcalloc((size_t)v->nc + 1, sizeof(int));
	for (int i = 0; i < v->nc && rc == 0; i++) {
		for (int j = 0; j < e->nparams; j++)
			x[j] = fromk[j] >= 0 ? v->cx[(size_t)i * (size_t)v->np + (size_t)fromk[j]]
					     : (e->npoints ? experiment_coord(e, 0, j) : 0);
		v->epoint[i] = experiment_find_point(e, x);
	}
	free(fromk);
	free(x);
	return rc;
}

/* Measured DATA: the region's aggregated value at point p (NaN: none). */
static double data_value(const struct ev *v, int cp, int p)
{
	const struct exp_values *vals = p >= 0 ? experiment_values(v->d->e, cp, v->d->metric, p) : NULL;
	return vals && vals->n ? model_aggregate_values(vals, v->mo.aggregate) : NAN;
}

/* A region's summed values over the grid (its share of the time, as refine weighs regions). */
static double region_sum(const struct ev *v, int cp)
{
	double s = 0;
	for (int i = 0; i < v->nc; i++) {
		double y = data_value(v, cp, v->epoint[i]);
		if (isfinite(y))
			s += fabs(y);
	}
	return s;
}

/* The regions to evaluate: "main" of a truth, or DATA's call paths (matched, large enough). */
static void pick_regions(struct ev *v, struct eval_result *r)
{
	const struct eval_data *d = v->d;
	int ncp = d->e ? d->e->ncallpaths : 1;
	v->cp = xmalloc(sizeof(int) * (size_t)ncp + 1);
	v->func = xcalloc((size_t)ncp + 1, sizeof(*v->func));
	r->regions = xcalloc((size_t)ncp + 1, sizeof(char *));
	if (!d->e) {
		v->cp[0] = 0;
		v->func[0] = d->deps ? deps_find_function(d->deps, "main") : NULL;
		r->regions[v->nreg++] = xstrdup("main");
		r->nregions = v->nreg;
		return;
	}
	double total = 0;
	for (int c = 0; c < ncp; c++)
		if (!strstr(d->e->callpaths[c], "->") && experiment_series(d->e, c, d->metric))
			total += region_sum(v, c);
	for (int c = 0; c < ncp; c++) {
		if (!experiment_series(d->e, c, d->metric) || (d->deps && d->funcs && !d->funcs[c]))
			continue;
		if (d->min_share > 0 && total > 0 && region_sum(v, c) < d->min_share * total)
			continue;
		v->cp[v->nreg] = c;
		v->func[v->nreg] = d->deps && d->funcs ? d->funcs[c] : NULL;
		r->regions[v->nreg++] = xstrdup(d->e->callpaths[c]);
	}
	r->nregions = v->nreg;
}

/* Keep held-out point x (np values) with its references. */
static void held_add(struct ev *v, struct eval_result *r, const double *x, const double *ref)
{
	r->held = xrealloc(r->held, sizeof(double) * (size_t)(r->nheld + 1) * (size_t)v->np);
	memcpy(&r->held[(size_t)r->nheld * (size_t)v->np], x, sizeof(double) * (size_t)v->np);
	v->hx = xrealloc(v->hx, sizeof(double) * (size_t)(r->nheld + 1) * (size_t)v->nmod);
	for (int m = 0; m < v->nmod; m++)
		v->hx[(size_t)r->nheld * (size_t)v->nmod + (size_t)m] = x[v->mod[m]];
	v->href = xrealloc(v->href, sizeof(double) * (size_t)(r->nheld + 1) * (size_t)v->nreg);
	memcpy(&v->href[(size_t)r->nheld * (size_t)v->nreg], ref, sizeof(double) * (size_t)v->nreg);
	v->nheld = ++r->nheld;
}

/* Smallest and largest value of modelled parameter k among the candidates. */
static void cand_range(const struct ev *v, int k, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int i = 0; i < v->nc; i++) {
		double x = v->cx[(size_t)i * (size_t)v->np + (size_t)k];
		*lo = fmin(*lo, x);
		*hi = fmax(*hi, x);
	}
}

/* Measured DATA's points beyond the config's range. */
static void held_data(struct ev *v, struct eval_result *r)
{
	const struct experiment *e = v->d->e;
	double *x = xmalloc(sizeof(double) * (size_t)v->np + 1), *ref = xmalloc(sizeof(double) * (size_t)v->nreg + 1);
	r->held_rule = EVAL_HELD_DATA;
	for (int p = 0; p < e->npoints; p++) {
		int beyond = 0, inside = 1;
		for (int k = 0; k < v->np; k++) {
			int j = experiment_find_param(e, v->spec->params[k].name);
			x[k] = j >= 0 ? experiment_coord(e, p, j) : v->cx[k];
			int m = 0;
			while (m < v->nmod && v->mod[m] != k)
				m++;
			double lo, hi;
			if (m == v->nmod) {
				inside &= x[k] == v->cx[k];
				continue;
			}
			cand_range(v, k, &lo, &hi);
			inside &= x[k] >= lo;
			beyond |= x[k] > hi;
		}
		if (!beyond || !inside)
			continue;
		for (int i = 0; i < v->nreg; i++)
			ref[i] = data_value(v, v->cp[i], p);
		held_add(v, r, x, ref);
	}
	free(x);
	free(ref);
}

/* One more value of modelled parameter k in its spacing (refine's extension). */
static double step_beyond(const struct ev *v, int k)
{
	const struct plan_param *p = &v->spec->params[k];
	double top = -INFINITY, next = -INFINITY;
	for (int i = 0; i < p->nvalues; i++)
		top = fmax(top, p->values[i]);
	for (int i = 0; i < p->nvalues; i++)
		if (p->values[i] < top)
			next = fmax(next, p->values[i]);
	return plan_step_beyond(top, next, p->is_int);
}

/* A truth's points one step beyond: the larger grid's points with a new value. */
static void held_truth(struct ev *v, struct eval_result *r)
{
	r->held_rule = EVAL_HELD_TRUTH;
	double *x = xmalloc(sizeof(double) * (size_t)v->np + 1), *beyond = xmalloc(sizeof(double) * (size_t)v->nmod + 1);
	int *idx = xcalloc((size_t)v->nmod + 1, sizeof(int)), *nv = xmalloc(sizeof(int) * (size_t)v->nmod + 1);
	for (int m = 0; m < v->nmod; m++) {
		beyond[m] = step_beyond(v, v->mod[m]);
		nv[m] = v->spec->params[v->mod[m]].nvalues + 1;
	}
	for (;;) {
		int out = 0;
		memcpy(x, v->cx, sizeof(double) * (size_t)v->np);   /* the fixed parameters */
		for (int m = 0; m < v->nmod; m++) {
			const struct plan_param *p = &v->spec->params[v->mod[m]];
			out |= idx[m] == p->nvalues;
			x[v->mod[m]] = idx[m] == p->nvalues ? beyond[m] : p->values[idx[m]];
		}
		if (out) {
			double ref = truth_value(v->d->truth, x);
			held_add(v, r, x, &ref);
		}
		int m = v->nmod - 1;
		while (m >= 0 && ++idx[m] >= nv[m])
			idx[m--] = 0;
		if (m < 0)
			break;
	}
	free(x);
	free(beyond);
	free(idx);
	free(nv);
}

/* Repetitions measured at candidate c when reps are asked for. */
static int reps_at(const struct ev *v, int c, int reps)
{
	return v->d->e ? (reps < v->avail[c] ? reps : v->avail[c]) : reps;
}

/* Point i's repetitions in s (before what DATA holds). */
static int point_reps(const struct selection *s, int i)
{
	return s->reps + (s->more ? s->more[i] : 0);
}

static double selection_spent(const struct ev *v, const struct selection *s)
{
	double t = 0;
	for (int i = 0; i < s->n; i++)
		t += v->cost[s->cand[i]] * reps_at(v, s->cand[i], point_reps(s, i));
	return t;
}

static double run_sum(const struct ev *v, const int *cand, int n)
{
	double t = 0;
	for (int i = 0; i < n; i++)
		t += v->cost[cand[i]];
	return t;
}

/* Cheaper first, then grid order. */
static int cmp_cost(const void *x, const void *y, void *ctx)
{
	const struct ev *v = ctx;
	int a = *(const int *)x, b = *(const int *)y;
	if (v->cost[a] != v->cost[b])
		return v->cost[a] < v->cost[b] ? -1 : 1;
	return (a > b) - (a < b);
}

/* What one more repetition of every point does not fit: one more of some, the cheapest first (s's points sorted so). */
static void spend_rest(const struct ev *v, struct selection *s, double budget)
{
	double left = budget * SLACK - selection_spent(v, s);
	qsort_r(s->cand, (size_t)s->n, sizeof(int), cmp_cost, (void *)v);
	free(s->more);
	s->more = xcalloc((size_t)s->n + 1, 1);
	for (int i = 0; i < s->n; i++) {
		int c = s->cand[i];
		/* DATA holds no more repetitions here: one more would measure nothing. */
		if (!(v->cost[c] <= left) || reps_at(v, c, s->reps + 1) == reps_at(v, c, s->reps))
			continue;
		s->more[i] = 1;
		left -= v->cost[c];
	}
}

/* A budget's rest on repetitions: as many more of every point as fit (and DATA holds). */
static void spend_surplus(const struct ev *v, struct selection *s, double budget)
{
	double one = run_sum(v, s->cand, s->n);
	int cap = REPS_CAP;
	if (v->d->e) {
		cap = 0;
		for (int i = 0; i < s->n; i++)
			cap = v->avail[s->cand[i]] > cap ? v->avail[s->cand[i]] : cap;
	}
	double more = one > 0 ? floor(budget * SLACK / one) : cap;
	int r = more > cap ? cap : (int)more;
	if (r > s->reps)
		s->reps = r;
	if (s->reps < cap)
		spend_rest(v, s, budget);
	s->spent = selection_spent(v, s);
}

/* The repetitions the lines get within budget: the configured ones, down to min_repetitions; 0: none fit. */
static int core_reps(const struct ev *v, double budget)
{
	double one = run_sum(v, v->lines, v->nlines);
	int r = v->reps;
	while (r > v->minreps && one * r > budget * SLACK)
		r--;
	return one * r <= budget * SLACK ? r : 0;
}

/* The lines, then the candidates of order[0..n) that fit, at the lines' repetitions. */
static void select_ordered(const struct ev *v, double budget, const int *order, int n, struct selection *s)
{
	s->cand = xmalloc(sizeof(int) * (size_t)v->nc + 1);
	s->reps = core_reps(v, budget);
	s->feasible = s->reps > 0;
	if (!s->feasible)
		return;
	memcpy(s->cand, v->lines, sizeof(int) * (size_t)v->nlines);
	s->n = v->nlines;
	double used = run_sum(v, v->lines, v->nlines) * s->reps;
	for (int i = 0; i < n; i++)
		if (used + v->cost[order[i]] * s->reps <= budget * SLACK) {
			used += v->cost[order[i]] * s->reps;
			s->cand[s->n++] = order[i];
		}
	spend_surplus(v, s, budget);
}

/* The full factorial: the budget buys its repetitions, at least one. */
static void select_full(const struct ev *v, double budget, struct selection *s)
{
	s->cand = xmalloc(sizeof(int) * (size_t)v->nc + 1);
	for (int i = 0; i < v->nc; i++)
		s->cand[s->n++] = i;
	s->reps = 0;
	s->feasible = run_sum(v, s->cand, s->n) <= budget * SLACK;
	if (s->feasible)
		spend_surplus(v, s, budget);
}

/* Measured DATA holds every point of cand[0..n) (what: whose points they are); -1 with err. */
static int check_measured(const struct ev *v, const int *cand, int n, const char *what)
{
	for (int i = 0; v->d->e && i < n; i++) {
		if (v->epoint[cand[i]] >= 0 && v->avail[cand[i]] > 0)
			continue;
		struct strbuf sb;
		strbuf_init(&sb);
		for (int k = 0; k < v->np; k++) {
			char val[32];
			value_text(val, sizeof(val), v->cx[(size_t)cand[i] * (size_t)v->np + (size_t)k]);
			strbuf_addf(&sb, "%s%s=%s", k ? "," : "", v->spec->params[k].name, val);
		}
		perr_set(v->err, "DATA has no measurement at %s, a point of %s; evaluate against data measured "
			 "there", sb.buf, what);
		strbuf_release(&sb);
		return -1;
	}
	return 0;
}

/* The config's design trimmed to budget; infeasible when its required points do not fit.  -1 with err. */
static int select_design(const struct ev *v, double budget, struct selection *s)
{
	struct plan pl;
	struct perr e2;
	if (plan_variant(v, v->spec->strategy, budget, &pl, &e2) < 0) {
		s->feasible = 0;
		return 0;
	}
	int rc = plan_selection(v, &pl, s);
	plan_release(&pl);
	if (rc == 0)
		rc = check_measured(v, s->cand, s->n, "the design");
	if (rc == 0)
		spend_surplus(v, s, budget);
	return rc;
}

/* Repetitions DATA holds per candidate: the most of any region there. */
static void fill_avail(struct ev *v)
{
	for (int i = 0; i < v->nc; i++)
		for (int r = 0; r < v->nreg; r++) {
			const struct exp_values *vals = v->epoint[i] >= 0 ?
				experiment_values(v->d->e, v->cp[r], v->d->metric, v->epoint[i]) : NULL;
			if (vals && vals->n > v->avail[i])
				v->avail[i] = vals->n;
		}
}

/* The measurements of region r at s's points under seed: in points into vals and store. */
struct measured {
	struct model_input in;
	double *coords;
	struct exp_values *vals;
	double *store;
};

static void measure(const struct ev *v, const struct selection *s, int r, unsigned long seed, struct measured *m)
{
	m->coords = xmalloc(sizeof(double) * (size_t)s->n * (size_t)v->nmod + 1);
	m->vals = xcalloc((size_t)s->n + 1, sizeof(*m->vals));
	m->store = v->d->e ? NULL : xmalloc(sizeof(double) * (size_t)s->n * (size_t)(s->reps + 1) + 1);
	for (int i = 0; i < s->n; i++) {
		int reps = point_reps(s, i);
		const double *x = &v->cx[(size_t)s->cand[i] * (size_t)v->np];
		for (int k = 0; k < v->nmod; k++)
			m->coords[(size_t)i * (size_t)v->nmod + (size_t)k] = x[v->mod[k]];
		if (!v->d->e) {
			double *y = &m->store[(size_t)i * (size_t)(s->reps + 1)];
			for (int j = 0; j < reps; j++)
				y[j] = truth_measure(v->d->truth, seed, x, j);
			m->vals[i] = (struct exp_values){ y, reps, 0 };
			continue;
		}
		int p = v->epoint[s->cand[i]];
		const struct exp_values *have = p >= 0 ? experiment_values(v->d->e, v->cp[r], v->d->metric, p) : NULL;
		if (have)
			m->vals[i] = (struct exp_values){ have->v, have->n < reps ? have->n : reps, 0 };
	}
	m->in = (struct model_input){ v->nmod, v->modnames, s->n, m->coords, m->vals };
}

static void measured_release(struct measured *m)
{
	free(m->coords);
	free(m->vals);
	free(m->store);
}

/* Region r's models from s under seed into f; -1 when they cannot be fitted. */
static int fit_region(const struct ev *v, const struct selection *s, int r, unsigned long seed,
		      struct measured *m, struct model_fit *f)
{
	struct perr e2;
	measure(v, s, r, seed, m);
	return model_pipeline_fit_input(v->ctx, &m->in, &v->mo, v->d->deps, v->func[r], f, &e2);
}

/* Region r's mean relative error at the held-out points (NaN: none); *text its model when asked. */
static double region_error(const struct ev *v, const struct selection *s, int r, unsigned long seed,
			   char **text)
{
	struct measured m;
	struct model_fit f;
	double sum = 0;
	int n = 0;
	if (fit_region(v, s, r, seed, &m, &f) == 0) {
		const struct pmnf_model *pm = model_fit_chosen(&f);
		for (int h = 0; h < v->nheld; h++) {
			double ref = v->href[(size_t)h * (size_t)v->nreg + (size_t)r];
			double y = pmnf_eval(pm, &v->hx[(size_t)h * (size_t)v->nmod]);
			if (ref > 0 && isfinite(y)) {
				sum += fabs(y - ref) / ref;
				n++;
			}
		}
		if (text)
			*text = pmnf_format(pm, 4);
	}
	model_fit_release(&f);
	measured_release(&m);
	return n ? sum / n : NAN;
}

/* Fit region r on s and draw its ensemble; 0, or -1 (en empty). */
static int region_ensemble(const struct ev *v, const struct selection *s, int r, unsigned long seed,
			   struct pmnf_model *model, struct model_ensemble *en)
{
	struct measured m;
	struct model_fit f;
	struct perr e2;
	memset(en, 0, sizeof(*en));
	pmnf_init(model, 0, NULL);
	int rc = fit_region(v, s, r, seed, &m, &f);
	if (rc == 0) {
		struct model_constraint con = { v->d->deps, f.func };
		pmnf_copy(model, model_fit_chosen(&f));
		rc = model_ensemble_fit(en, v->ctx, &m.in, &v->mo, f.constrained ? &con : NULL, model,
					v->nboot, seed * 7919 + (unsigned long)s->n, &e2);
	}
	model_fit_release(&f);
	measured_release(&m);
	return rc;
}

/* The unmeasured candidate where the ensembles disagree most per core-hour (ties: cheaper). */
static int most_disagreed(const struct ev *v, const char *in, const struct pmnf_model *models,
			  const struct model_ensemble *ens, double *xm)
{
	int best = -1;
	double best_score = -1;
	for (int c = 0; c < v->nc; c++) {
		if (in[c])
			continue;
		for (int k = 0; k < v->nmod; k++)
			xm[k] = v->cx[(size_t)c * (size_t)v->np + (size_t)v->mod[k]];
		double var = 0;
		for (int r = 0; r < v->nreg; r++)
			var += model_ensemble_log_var(&ens[r], xm, pmnf_eval(&models[r], xm));
		double score = var / fmax(v->cost[c], 1e-300);
		if (best < 0 || score > best_score ||
		    (score == best_score && v->cost[c] < v->cost[best]))
			best = c, best_score = score;
	}
	return best;
}

/*
 * disagree's order under seed: from the lines at the configured
 * repetitions, each next point the one the ensembles disagree on most per
 * core-hour, refitted after every point while there are few, then after
 * every tenth of the points measured.  Returns the order's length.
 */
static int disagree_order(const struct ev *v, unsigned long seed, int *order)
{
	struct selection s = { 0 };
	char *in = xcalloc((size_t)v->nc + 1, 1);
	struct pmnf_model *models = xcalloc((size_t)v->nreg + 1, sizeof(*models));
	struct model_ensemble *ens = xcalloc((size_t)v->nreg + 1, sizeof(*ens));
	double *xm = xmalloc(sizeof(double) * (size_t)v->nmod + 1);
	s.cand = xmalloc(sizeof(int) * (size_t)v->nc + 1);
	s.reps = v->reps;
	for (int i = 0; i < v->nlines; i++)
		in[s.cand[s.n++] = v->lines[i]] = 1;
	int n = 0, since = -1;
	while (s.n < v->nc) {
		if (since < 0 || since >= (s.n / 10 > 1 ? s.n / 10 : 1)) {
			for (int r = 0; r < v->nreg; r++) {
				pmnf_release(&models[r]);
				model_ensemble_release(&ens[r]);
				region_ensemble(v, &s, r, seed, &models[r], &ens[r]);
			}
			since = 0;
		}
		int c = most_disagreed(v, in, models, ens, xm);
		in[c] = 1;
		s.cand[s.n++] = order[n++] = c;
		since++;
	}
	for (int r = 0; r < v->nreg; r++) {
		pmnf_release(&models[r]);
		model_ensemble_release(&ens[r]);
	}
	free(models);
	free(ens);
	free(xm);
	free(in);
	selection_release(&s);
	return n;
}

/* cheapest's order: the candidates off the lines, cheapest first. */
static int cheapest_order(const struct ev *v, int *order)
{
	char *online = xcalloc((size_t)v->nc + 1, 1);
	for (int i = 0; i < v->nlines; i++)
		online[v->lines[i]] = 1;
	int n = 0;
	for (int c = 0; c < v->nc; c++)
		if (!online[c])
			order[n++] = c;
	free(online);
	qsort_r(order, (size_t)n, sizeof(int), cmp_cost, (void *)v);
	return n;
}

/* What the cells gather over the seeds. */
struct gathered {
	double *err, *spent;
	int nerr, nspent;
};

/* Selection s of strategy st at budget b under seed (the si-th): its errors, and seed 0's models. */
static void gather(const struct ev *v, struct eval_result *r, struct gathered *g, int st, int b,
		   const struct selection *s, int si, unsigned long seed)
{
	struct eval_cell *cell = eval_cell_at(r, st, b);
	cell->feasible = s->feasible;
	if (!s->feasible)
		return;
	g->spent[g->nspent++] = s->spent;
	if (si == 0) {
		cell->points = s->n;
		cell->repetitions = s->reps;
		cell->models = xcalloc((size_t)v->nreg + 1, sizeof(char *));
	}
	for (int i = 0; i < v->nreg; i++) {
		double e = region_error(v, s, i, seed, si == 0 ? &cell->models[i] : NULL);
		if (isfinite(e))
			g->err[g->nerr++] = e;
	}
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median_of(double *a, int n)
{
	if (!n)
		return NAN;
	qsort(a, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

/* Each cell's median and worst error and median cost over the seeds. */
static void summarise(struct eval_result *r, struct gathered *g)
{
	for (int c = 0; c < EVAL_NSTRATEGIES * r->nbudgets; c++) {
		struct eval_cell *cell = &r->cells[c];
		cell->nerrors = g[c].nerr;
		cell->median_error = median_of(g[c].err, g[c].nerr);
		cell->worst_error = g[c].nerr ? g[c].err[g[c].nerr - 1] : NAN;
		cell->spent = median_of(g[c].spent, g[c].nspent);
		free(g[c].err);
		free(g[c].spent);
	}
}

/* The seed-independent strategies' selections at every budget; -1 with err. */
static int select_fixed(const struct ev *v, const struct eval_result *r, struct selection *fixed)
{
	int nb = r->nbudgets, *cheap = xmalloc(sizeof(int) * (size_t)v->nc + 1);
	int ncheap = cheapest_order(v, cheap), rc = 0;
	for (int b = 0; b < nb && rc == 0; b++) {
		double budget = r->cells[b].budget;
		rc = select_design(v, budget, &fixed[EVAL_DESIGN * nb + b]);
		select_full(v, budget, &fixed[EVAL_FULL * nb + b]);
		select_ordered(v, budget, NULL, 0, &fixed[EVAL_LINES * nb + b]);
		select_ordered(v, budget, cheap, ncheap, &fixed[EVAL_CHEAPEST * nb + b]);
	}
	free(cheap);
	return rc;
}

/* Every strategy at every budget under every seed; -1 with err. */
static int evaluate_all(const struct ev *v, struct eval_result *r)
{
	int nb = r->nbudgets, ncell = EVAL_NSTRATEGIES * nb;
	struct gathered *g = xcalloc((size_t)ncell, sizeof(*g));
	for (int c = 0; c < ncell; c++) {
		g[c].err = xmalloc(sizeof(double) * (size_t)r->nseeds * (size_t)v->nreg + 1);
		g[c].spent = xmalloc(sizeof(double) * (size_t)r->nseeds + 1);
	}
	struct selection *fixed = xcalloc((size_t)ncell, sizeof(*fixed));
	int *order = xmalloc(sizeof(int) * (size_t)v->nc + 1);
	int rc = select_fixed(v, r, fixed);
	for (int si = 0; si < r->nseeds && rc == 0; si++) {
		unsigned long seed = r->seed + (unsigned long)si;
		int norder = core_reps(v, r->full_cost) ? disagree_order(v, seed, order) : 0;
		for (int b = 0; b < nb; b++) {
			struct selection ds = { 0 };
			select_ordered(v, r->cells[b].budget, order, norder, &ds);
			for (int st = 0; st < EVAL_DISAGREE; st++)
				gather(v, r, &g[st * nb + b], st, b, &fixed[st * nb + b], si, seed);
			gather(v, r, &g[EVAL_DISAGREE * nb + b], EVAL_DISAGREE, b, &ds, si, seed);
			selection_release(&ds);
		}
	}
	summarise(r, g);
	for (int c = 0; c < ncell; c++)
		selection_release(&fixed[c]);
	free(fixed);
	free(order);
	free(g);
	return rc;
}

/* The budgets: the design's own cost, then the fractions of the full factorial's. */
static void set_budgets(struct eval_result *r, const struct eval_options *o)
{
	static const double tenths[] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 };
	int nf = o->nfractions > 0 ? o->nfractions : 10;
	const double *f = o->nfractions > 0 ? o->fractions : tenths;
	r->nbudgets = nf + 1;
	r->share = xmalloc(sizeof(double) * (size_t)r->nbudgets);
	r->cells = xcalloc((size_t)EVAL_NSTRATEGIES * (size_t)r->nbudgets, sizeof(*r->cells));
	r->share[0] = r->full_cost > 0 ? r->design_cost / r->full_cost : 0;
	for (int i = 0; i < nf; i++)
		r->share[i + 1] = f[i];
	for (int st = 0; st < EVAL_NSTRATEGIES; st++)
		for (int b = 0; b < r->nbudgets; b++) {
			struct eval_cell *c = eval_cell_at(r, st, b);
			c->budget = b ? r->share[b] * r->full_cost : r->design_cost;
			c->median_error = c->worst_error = c->spent = NAN;
		}
}

/* The data's side: its points, regions and held-out points; -1 with err. */
static int bind_all(struct ev *v, struct eval_result *r)
{
	const struct eval_data *d = v->d;
	if (d->e && bind_data(v) < 0)
		return -1;
	pick_regions(v, r);
	if (!v->nreg)
		return perr_set(v->err, "DATA has no region to evaluate%s", d->deps && d->funcs ?
				" (none matches a function of the dependency file)" : "");
	v->mo.outlier_side = d->e ? point_side_of_series(d->e, experiment_series(d->e, v->cp[0], d->metric))
				  : point_side_of_metric("time");
	if (d->e) {
		fill_avail(v);
		for (int i = 0; i < v->nc; i++)
			if (v->epoint[i] < 0 || !v->avail[i])
				v->cost[i] = INFINITY;  /* not measured: no strategy can take it */
		held_data(v, r);
		if (check_measured(v, v->lines, v->nlines, "the lines") < 0)
			return -1;
	} else {
		held_truth(v, r);
	}
	if (!v->nheld)
		return perr_set(v->err, "DATA has no point beyond the config's range to hold out; measure some, "
				"or leave the largest values out of the config");
	return 0;
}

static void ev_release(struct ev *v)
{
	free(v->mod);
	free(v->modnames);
	free(v->cx);
	free(v->cost);
	free(v->sorted);
	free(v->epoint);
	free(v->avail);
	free(v->lines);
	free(v->cp);
	free(v->func);
	free(v->hx);
	free(v->href);
	modeler_free(v->ctx);
}

int design_evaluate(struct eval_result *r, const struct design_spec *spec, const struct eval_data *d,
		    const struct eval_options *o, struct perr *err)
{
	memset(r, 0, sizeof(*r));
	if (!spec->cost_model)
		return perr_set(err, "--evaluate needs a cost model to price the budgets; add cost_model = \"...\";");
	if (!d->e && !d->truth)
		return perr_set(err, "nothing to evaluate against");
	struct ev v = { .sp = *spec, .spec = spec, .d = d, .mo = o->model, .err = err, .np = spec->nparams };
	v.nboot = o->nboot > 0 ? o->nboot : DEFAULT_NBOOT;
	v.sp.nrpn = v.sp.ncontention = v.sp.nattach = 0;
	v.sp.rpn = v.sp.contention_rpn = NULL;
	v.sp.contention_point = NULL;
	v.sp.attach = NULL;
	v.ctx = modeler_new();
	int rc = -1;
	if (build_grid(&v, o, r) < 0 || build_lines(&v, r) < 0 || bind_all(&v, r) < 0)
		goto done;
	v.minreps = spec->min_repetitions > 0 ? spec->min_repetitions : 3;
	v.minreps = v.minreps < v.reps ? v.minreps : v.reps;
	r->nparams = v.np;
	r->params = xcalloc((size_t)v.np + 1, sizeof(char *));
	for (int k = 0; k < v.np; k++)
		r->params[k] = xstrdup(spec->params[k].name);
	r->nseeds = d->e ? 1 : d->truth->nseeds;
	r->seed = d->e ? 0 : d->truth->seed;
	set_budgets(r, o);
	rc = evaluate_all(&v, r);
done:
	ev_release(&v);
	return rc;
}

void eval_result_release(struct eval_result *r)
{
	for (int k = 0; r->params && k < r->nparams; k++)
		free(r->params[k]);
	free(r->params);
	for (int c = 0; r->cells && c < EVAL_NSTRATEGIES * r->nbudgets; c++) {
		for (int i = 0; r->cells[c].models && i < r->nregions; i++)
			free(r->cells[c].models[i]);
		free(r->cells[c].models);
	}
	free(r->cells);
	for (int i = 0; r->regions && i < r->nregions; i++)
		free(r->regions[i]);
	free(r->regions);
	free(r->held);
	free(r->share);
	memset(r, 0, sizeof(*r));
}
