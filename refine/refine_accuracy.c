/* Refining for accuracy at a target (refine_accuracy.h). */
#include "refine/refine_accuracy.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/plan.h"
#include "models/ensemble.h"
#include "validator/validate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ACC_BOOT 32             /* bootstrap replicates per region */
#define ACC_MAX_PROPOSALS 20
#define ACC_MIN_GAIN 0.05       /* a point must narrow the summed variance by this share */
#define ACC_MAX_GRID 4096
#define ACC_VALUE 50            /* below every finding's kind (refine.c) */

static int same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(a));
}

/* The largest and next largest value of parameter k among the measured points. */
static void top_two(const struct refine_space *s, int k, double *top, double *next)
{
	*top = *next = -INFINITY;
	for (int p = 0; p < s->npoints; p++)
		*top = fmax(*top, s->points[p].coords[k]);
	for (int p = 0; p < s->npoints; p++)
		if (s->points[p].coords[k] < *top && !same(s->points[p].coords[k], *top))
			*next = fmax(*next, s->points[p].coords[k]);
}

/* Parameter k one step beyond its largest value (itself when it has one value). */
static double beyond(const struct refine_space *s, int k)
{
	double top, next;
	top_two(s, k, &top, &next);
	return isfinite(next) ? plan_step_beyond(top, next, s->is_int[k]) : top;
}

static int parse_named(struct refine_accuracy *a, const struct refine_space *s, const char *spec,
		       struct perr *err)
{
	char *copy = xstrdup(spec), *save = NULL;
	int rc = 0;
	for (char *kv = strtok_r(copy, ",", &save); kv && rc == 0; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), *end = NULL;
		int k = -1;
		if (eq) {
			*eq = '\0';
			for (int j = 0; j < s->nparams; j++)
				if (!strcmp(s->params[j], kv))
					k = j;
		}
		double v = eq ? strtod(eq + 1, &end) : NAN;
		if (!eq)
			rc = perr_set(err, "--target '%s': '%s' is no NAME=VALUE; write --target p=4096,size=60 or "
				      "--target beyond", spec, kv);
		else if (k < 0)
			rc = perr_set(err, "--target '%s': the campaign has no parameter '%s'", spec, kv);
		else if (end == eq + 1 || *end || !isfinite(v) || v <= 0)
			rc = perr_set(err, "--target '%s': %s wants a positive number, not '%s'", spec, kv, eq + 1);
		else
			a->target[k] = v;
	}
	free(copy);
	return rc;
}

int refine_accuracy_target(struct refine_accuracy *a, const struct refine_space *s, const char *spec,
			   struct perr *err)
{
	memset(a, 0, sizeof(*a));
	a->before = a->after = NAN;
	a->target = xcalloc((size_t)s->nparams + 1, sizeof(double));
	int all_beyond = !spec || !strcmp(spec, "beyond");
	for (int k = 0; k < s->nparams; k++) {
		double top, next;
		top_two(s, k, &top, &next);
		a->target[k] = all_beyond ? beyond(s, k) : top;
	}
	if (!all_beyond && parse_named(a, s, spec, err) < 0)
		return -1;
	struct strbuf sb;
	strbuf_init(&sb);
	point_text(&sb, (const char *const *)s->params, a->target, s->nparams, ",");
	a->target_text = strbuf_detach(&sb);
	return 0;
}

void refine_accuracy_release(struct refine_accuracy *a)
{
	free(a->target);
	free(a->target_text);
	free(a->region);
	memset(a, 0, sizeof(*a));
}

/* Candidate points, target first: row 0 the target, then the grid (acc.h). */
struct cands {
	int n;                  /* rows, the target included */
	double *x;              /* n x nparams */
	double *cost;           /* per run, core-hours */
	int *point;             /* the measured point, or -1 */
};

/* Parameter k's distinct measured values, and its step beyond when the target lies there. */
static int axis_values(const struct refine_space *s, const double *target, int k, double *out)
{
	int n = 0;
	for (int p = 0; p < s->npoints; p++) {
		int seen = 0;
		for (int i = 0; i < n && !seen; i++)
			seen = same(out[i], s->points[p].coords[k]);
		if (!seen)
			out[n++] = s->points[p].coords[k];
	}
	double top, next, b = beyond(s, k);
	top_two(s, k, &top, &next);
	if (b > top && !same(b, top) && (b <= target[k] || same(b, target[k])))
		out[n++] = b;
	return n;
}

static int find_measured(const struct refine_space *s, const double *x)
{
	for (int p = 0; p < s->npoints; p++) {
		int eq = 1;
		for (int k = 0; k < s->nparams && eq; k++)
			eq = same(s->points[p].coords[k], x[k]);
		if (eq)
			return p;
	}
	return -1;
}

static void cand_add(struct cands *c, const struct refine_space *s, const double *x, size_t *alloc)
{
	for (int i = 0; i < c->n; i++) {
		int eq = 1;
		for (int k = 0; k < s->nparams && eq; k++)
			eq = same(c->x[(size_t)i * (size_t)s->nparams + (size_t)k], x[k]);
		if (eq)
			return;
	}
	if ((size_t)c->n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 64;
		c->x = xrealloc(c->x, sizeof(double) * *alloc * (size_t)s->nparams);
	}
	memcpy(&c->x[(size_t)c->n++ * (size_t)s->nparams], x, sizeof(double) * (size_t)s->nparams);
}

/* The grid of every parameter's values, or beyond ACC_MAX_GRID each measured point stepped once. */
static void cand_grid(struct cands *c, const struct refine_space *s, const double *target, size_t *alloc)
{
	int np = s->nparams, *nv = xcalloc((size_t)np + 1, sizeof(int)), *idx = xcalloc((size_t)np + 1, sizeof(int));
	double **vals = xcalloc((size_t)np + 1, sizeof(double *)), *x = xmalloc(sizeof(double) * (size_t)np + 1);
	double total = 1;
	for (int k = 0; k < np; k++) {
		vals[k] = xmalloc(sizeof(double) * (size_t)(s->npoints + 2));
		nv[k] = axis_values(s, target, k, vals[k]);
		total *= nv[k];
	}
	for (int go = total <= ACC_MAX_GRID && np > 0; go;) {
		for (int k = 0; k < np; k++)
			x[k] = vals[k][idx[k]];
		cand_add(c, s, x, alloc);
		int k = np - 1;
		while (k >= 0 && ++idx[k] >= nv[k])
			idx[k--] = 0;
		go = k >= 0;
	}
	for (int p = 0; total > ACC_MAX_GRID && p < s->npoints; p++)
		for (int k = -1; k < np; k++) {
			memcpy(x, s->points[p].coords, sizeof(double) * (size_t)np);
			if (k >= 0 && nv[k] > 0 && vals[k][nv[k] - 1] > x[k])
				x[k] = vals[k][nv[k] - 1];
			cand_add(c, s, x, alloc);
		}
	for (int k = 0; k < np; k++)
		free(vals[k]);
	free(vals);
	free(nv);
	free(idx);
	free(x);
}

/* The dearest measured run at or below x in every parameter: a run costs no less as they all grow. */
static double dominated_cost(const struct refine_space *s, const double *x)
{
	double most = 0;
	for (int p = 0; p < s->npoints; p++) {
		int below = 1;
		for (int k = 0; k < s->nparams && below; k++)
			below = s->points[p].coords[k] <= x[k] || same(s->points[p].coords[k], x[k]);
		if (below && s->points[p].run_core_hours > most)
			most = s->points[p].run_core_hours;
	}
	return most;
}

/*
 * A new point's cost per run: the measured points' costs modelled as any
 * metric is (models/modeler.h, one value per point: Extra-P's rule), at
 * least the cheapest measured; the dearest measured when no model fits.
 */
static void cand_costs(struct cands *c, const struct refine_space *s)
{
	int np = s->nparams, n = 0;
	double *x = xmalloc(sizeof(double) * (size_t)(s->npoints + 1) * (size_t)(np + 1));
	double *y = xmalloc(sizeof(double) * (size_t)s->npoints + 1), dearest = 0, cheapest = INFINITY;
	struct exp_values *v = xcalloc((size_t)s->npoints + 1, sizeof(*v));
	for (int p = 0; p < s->npoints; p++) {
		if (!(s->points[p].run_core_hours > 0))
			continue;
		dearest = fmax(dearest, s->points[p].run_core_hours);
		cheapest = fmin(cheapest, s->points[p].run_core_hours);
		memcpy(&x[(size_t)n * (size_t)np], s->points[p].coords, sizeof(double) * (size_t)np);
		y[n] = s->points[p].run_core_hours;
		v[n] = (struct exp_values){ &y[n], 1, 0 };
		n++;
	}
	struct model_input in = { np, s->params, n, x, v };
	struct pmnf_model m;
	struct perr err;
	int fitted = n > 0 && modeler_fit(&in, NULL, NULL, &m, &err) == 0;
	c->cost = xmalloc(sizeof(double) * (size_t)c->n + 1);
	c->point = xmalloc(sizeof(int) * (size_t)c->n + 1);
	for (int i = 0; i < c->n; i++) {
		const double *xi = &c->x[(size_t)i * (size_t)np];
		double est = fitted ? pmnf_eval(&m, xi) : dearest;
		c->point[i] = find_measured(s, xi);
		est = fmax(isfinite(est) ? est : dearest, fmax(cheapest, dominated_cost(s, xi)));
		c->cost[i] = c->point[i] >= 0 && s->points[c->point[i]].run_core_hours > 0 ?
			s->points[c->point[i]].run_core_hours : est;
	}
	pmnf_release(&m);
	free(x);
	free(y);
	free(v);
}

/* One region's ensembles, read as the covariance of the log predictions at the candidates. */
struct acc_region {
	int ri;
	int nboot, nalt;        /* bootstrap fits, competing hypotheses (models/ensemble.h) */
	double tau2;            /* a run's relative noise variance */
	double *S;              /* n x n, row 0 the target */
};

/* A run's relative noise variance: the pooled repetitions, else the fit's residuals. */
static double region_noise(const struct experiment *e, const struct exp_series *sr, const struct pmnf_model *m)
{
	double ss = 0, rs = 0;
	int dof = 0, n = 0;
	for (int p = 0; p < e->npoints; p++) {
		const struct exp_values *v = &sr->at[p];
		double mean = 0;
		for (int j = 0; j < v->n; j++)
			mean += v->v[j] / v->n;
		for (int j = 0; j < v->n && v->n > 1 && mean > 0; j++)
			ss += (v->v[j] / mean - 1) * (v->v[j] / mean - 1);
		dof += v->n > 1 ? v->n - 1 : 0;
		double f = pmnf_eval(m, &e->coords[(size_t)p * (size_t)e->nparams]);
		if (v->n && f > 0 && mean > 0) {
			rs += (mean / f - 1) * (mean / f - 1);
			n++;
		}
	}
	double tau2 = dof >= 2 ? ss / dof : n > m->nterms + 1 ? rs / (n - m->nterms - 1) : rs;
	return fmax(tau2, 1e-6);
}

/*
 * Ensemble en's members as columns col0.. of L (n candidates x b columns):
 * each member's log prediction at each candidate relative to m's, centred
 * over the members and scaled by scale.
 */
static void ensemble_columns(const struct model_ensemble *en, const struct pmnf_model *m, const struct cands *c,
			     int nparams, double scale, double *L, int b, int col0)
{
	double *l = xmalloc(sizeof(double) * (size_t)(en->n + 1));
	for (int i = 0; i < c->n; i++) {
		const double *x = &c->x[(size_t)i * (size_t)nparams];
		double mean = 0;
		model_ensemble_log_ratios(en, x, fmax(pmnf_eval(m, x), 1e-300), l);
		for (int j = 0; j < en->n; j++)
			mean += l[j] / en->n;
		for (int j = 0; j < en->n; j++)
			L[(size_t)i * (size_t)b + (size_t)(col0 + j)] = (l[j] - mean) * scale;
	}
	free(l);
}

/*
 * Region ri's covariance over the candidates: the bootstrap's (the
 * coefficients and the selection under resampled noise) plus the competing
 * hypotheses', weighed equally (what the data do not yet tell apart; on
 * generated campaigns equal weights halved more than weights by fit or by
 * p-value, docs/designs.md).  0 when it has none (not modelled, too few fits).
 */
static int region_cov(const struct validation *v, int ri, const struct cands *c, struct acc_region *ar)
{
	const struct vregion *r = &v->regions[ri];
	const struct experiment *e = v->e;
	const struct exp_series *sr = experiment_series(e, r->callpath, r->metric);
	const struct pmnf_model *m = r->has_constrained ? &r->constrained : &r->black_box;
	if (!r->modelled || !sr || !(pmnf_eval(m, c->x) > 0))
		return 0;
	struct model_input in = { e->nparams, e->params, e->npoints, e->coords, sr->at };
	struct model_options mo = model_options_for_series(&v->opt.model, e, sr);
	struct model_constraint con = { v->deps, r->func };
	struct model_ensemble en, alt = { 0, NULL };
	struct perr err;
	if (model_ensemble_fit(&en, NULL, &in, &mo, r->has_constrained ? &con : NULL, m, ACC_BOOT,
			       1009u + (unsigned)ri, &err) < 0 || en.n < 4) {
		model_ensemble_release(&en);
		return 0;
	}
	if (model_ensemble_alternatives(&alt, NULL, &in, &mo, r->has_constrained ? &con : NULL, &err) < 0 ||
	    alt.n < 2)
		model_ensemble_release(&alt);
	/* S = L L' / (b - 1): the bootstrap's sample covariance plus the alternatives' (equal weights) */
	int n = c->n, b = en.n + alt.n;
	double *L = xmalloc(sizeof(double) * (size_t)n * (size_t)b);
	ensemble_columns(&en, m, c, e->nparams, 1, L, b, 0);
	if (alt.n)
		ensemble_columns(&alt, m, c, e->nparams, sqrt((double)(b - 1) / alt.n), L, b, en.n);
	ar->ri = ri;
	ar->nboot = en.n;
	ar->nalt = alt.n;
	ar->tau2 = region_noise(e, sr, m);
	ar->S = xmalloc(sizeof(double) * (size_t)n * (size_t)n);
	for (int i = 0; i < n; i++)
		for (int k = 0; k <= i; k++) {
			double s = 0;
			for (int j = 0; j < b; j++)
				s += L[(size_t)i * (size_t)b + (size_t)j] * L[(size_t)k * (size_t)b + (size_t)j];
			ar->S[(size_t)i * (size_t)n + (size_t)k] = ar->S[(size_t)k * (size_t)n + (size_t)i] = s / (b - 1);
		}
	free(L);
	model_ensemble_release(&en);
	model_ensemble_release(&alt);
	return 1;
}

/* How much measuring candidate i with reps runs narrows region a's variance at the target. */
static double gain_of(const struct acc_region *a, int n, int i, int reps)
{
	double cti = a->S[i], cii = a->S[(size_t)i * (size_t)n + (size_t)i];
	return cti * cti / (cii + a->tau2 / reps);
}

/* Condition region a's covariance on a measurement of candidate i. */
static void condition(struct acc_region *a, int n, int i, int reps)
{
	double d = a->S[(size_t)i * (size_t)n + (size_t)i] + a->tau2 / reps;
	double *col = xmalloc(sizeof(double) * (size_t)n);
	for (int j = 0; j < n; j++)
		col[j] = a->S[(size_t)j * (size_t)n + (size_t)i];
	for (int j = 0; j < n; j++)
		for (int k = 0; k < n; k++)
			a->S[(size_t)j * (size_t)n + (size_t)k] -= col[j] * col[k] / d;
	free(col);
}

/* The largest spread (sd of the log prediction) at the target over the regions; *which its index. */
static double widest(const struct acc_region *ar, int na, int *which)
{
	double best = -1;
	for (int i = 0; i < na; i++)
		if (ar[i].S[0] > best) {
			best = ar[i].S[0];
			*which = i;
		}
	return sqrt(fmax(best, 0));
}

/* The measured point nearest x, in log distance: the placement a new point takes. */
static int nearest_point(const struct refine_space *s, const double *x)
{
	int best = 0;
	double bd = INFINITY;
	for (int p = 0; p < s->npoints; p++) {
		double d = 0;
		for (int k = 0; k < s->nparams; k++) {
			double a = s->points[p].coords[k], b = x[k];
			d += a > 0 && b > 0 ? fabs(log(a / b)) : fabs(a - b);
		}
		if (d < bd) {
			bd = d;
			best = p;
		}
	}
	return best;
}

/* Proposals being made. */
struct acc_list {
	int n;
	size_t alloc;
	struct refine_proposal *p;
};

static void acc_add(struct acc_list *l, const struct refine_space *s, const struct cands *c, int i, int reps,
		    double value, char *reason)
{
	XGROW(l->p, (size_t)l->n + 1, l->alloc);
	struct refine_proposal *q = &l->p[l->n++];
	memset(q, 0, sizeof(*q));
	q->coords = xmalloc(sizeof(double) * (size_t)s->nparams);
	memcpy(q->coords, &c->x[(size_t)i * (size_t)s->nparams], sizeof(double) * (size_t)s->nparams);
	q->ncoords = s->nparams;
	q->point = c->point[i];
	q->from = c->point[i] >= 0 ? c->point[i] : nearest_point(s, q->coords);
	q->rep = -1;
	q->repetitions = reps;
	q->core_hours = c->cost[i] * reps;
	q->kind = REFINE_ACCURACY;
	q->value = value;
	q->reason = reason;
}

/* r's proposals, then l's, then r's dropped (one allocation, as refine_propose lays it out). */
static void append_result(struct refine_result *r, struct acc_list *l)
{
	if (!l->n)
		return;
	int n = r->nproposals + l->n + r->ndropped;
	struct refine_proposal *all = xmalloc(sizeof(*all) * (size_t)n);
	if (r->nproposals)
		memcpy(all, r->proposals, sizeof(*all) * (size_t)r->nproposals);
	memcpy(all + r->nproposals, l->p, sizeof(*all) * (size_t)l->n);
	if (r->ndropped)
		memcpy(all + r->nproposals + l->n, r->dropped, sizeof(*all) * (size_t)r->ndropped);
	for (int i = 0; i < l->n; i++)
		r->used += l->p[i].core_hours;
	free(r->proposals);
	r->proposals = all;
	r->nproposals += l->n;
	r->dropped = r->ndropped ? all + r->nproposals : NULL;
	free(l->p);
}

/* The best affordable candidate by variance narrowed per core-hour; -1 if none. */
static int best_candidate(const struct acc_region *ar, int na, const struct cands *c, const char *taken,
			  int reps, double avail, double *gain)
{
	int best = -1;
	double best_score = 0;
	for (int i = 1; i < c->n; i++) {
		double cost = c->cost[i] * reps;
		if (taken[i] || !(cost <= avail * (1 + 1e-9)) || !(cost > 0))
			continue;
		double g = 0;
		for (int a = 0; a < na; a++)
			g += gain_of(&ar[a], c->n, i, reps);
		if (g / cost > best_score) {
			best_score = g / cost;
			best = i;
			*gain = g;
		}
	}
	return best;
}

/* Why candidate i: the widest region's spread before and after it. */
static char *why(const struct validation *v, const struct refine_space *s, const struct acc_region *w,
		 const struct refine_accuracy *a, const struct cands *c, int i, double before, double after)
{
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s: the prediction at %s spreads %.1f%% over %d bootstrap fits",
		    v->e->callpaths[v->regions[w->ri].callpath], a->target_text, 100 * before, w->nboot);
	if (w->nalt)
		strbuf_addf(&sb, " and %d competing hypotheses", w->nalt);
	strbuf_addstr(&sb, "; ");
	strbuf_addstr(&sb, c->point[i] >= 0 ? "more runs at " : "new point ");
	point_text(&sb, (const char *const *)s->params, &c->x[(size_t)i * (size_t)s->nparams], s->nparams, ",");
	strbuf_addf(&sb, " narrow%s it to %.1f%%", c->point[i] >= 0 ? "" : "s", 100 * after);
	return strbuf_detach(&sb);
}

/* Greedy: the candidates that narrow the spread most per core-hour, within avail. */
static void choose(const struct validation *v, const struct refine_space *s, struct acc_region *ar, int na,
		   const struct cands *c, double avail, struct refine_accuracy *a, struct acc_list *l)
{
	char *taken = xcalloc((size_t)c->n + 1, 1);
	int reps = s->repetitions > 0 ? s->repetitions : 1, w = 0;
	a->before = a->after = widest(ar, na, &w);
	a->region = xstrdup(v->e->callpaths[v->regions[ar[w].ri].callpath]);
	for (int step = 0; step < ACC_MAX_PROPOSALS; step++) {
		double total = 0, gain = 0;
		for (int i = 0; i < na; i++)
			total += ar[i].S[0];
		int i = best_candidate(ar, na, c, taken, reps, avail, &gain);
		if (i < 0 || !(gain >= ACC_MIN_GAIN * total))
			break;
		int wi = 0;
		double before = widest(ar, na, &wi);
		for (int k = 0; k < na; k++)
			condition(&ar[k], c->n, i, reps);
		double after = sqrt(fmax(ar[wi].S[0], 0));
		taken[i] = 1;
		avail -= c->cost[i] * reps;
		acc_add(l, s, c, i, reps, ACC_VALUE - step, why(v, s, &ar[wi], a, c, i, before, after));
		a->after = sqrt(fmax(ar[w].S[0], 0));
	}
	free(taken);
}

void refine_accuracy_propose(const struct refine_space *s, const struct validation *v, double min_share,
			     struct refine_accuracy *a, struct refine_result *r)
{
	struct cands c = { 0 };
	size_t alloc = 0;
	if (!s->npoints)
		return;
	cand_add(&c, s, a->target, &alloc);
	cand_grid(&c, s, a->target, &alloc);
	cand_costs(&c, s);
	struct acc_region *ar = xcalloc((size_t)v->nregions + 1, sizeof(*ar));
	int na = 0;
	for (int ri = 0; ri < v->nregions; ri++)
		if (!(min_share > 0 && refine_region_share(v, &v->regions[ri]) < min_share))
			na += region_cov(v, ri, &c, &ar[na]);
	a->nregions = na;
	double spent = 0;
	for (int p = 0; p < s->npoints; p++)
		spent += s->points[p].run_core_hours * s->points[p].nreps;
	double avail = (s->budget >= 0 ? s->budget : 0.5 * spent) - r->used;
	struct acc_list l = { 0, 0, NULL };
	if (na)
		choose(v, s, ar, na, &c, avail, a, &l);
	append_result(r, &l);
	for (int i = 0; i < na; i++)
		free(ar[i].S);
	free(ar);
	free(c.x);
	free(c.cost);
	free(c.point);
}
