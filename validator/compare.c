/*
 * perfsweep compare's statistics (see compare.h): common points, per-point
 * rank tests on the repetitions, and the models of both sides.
 */
#include "common/xalloc.h"
#include "models/points.h"
#include "validator/compare.h"
#include "validator/ranktest.h"
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

void compare_options_init(struct compare_options *o)
{
	o->tolerance = 0.05;
	o->alpha = 0.01;
	o->metric = NULL;
}

void compare_release(struct compare *c)
{
	for (int k = 0; k < c->nparams; k++)
		free(c->params[k]);
	free(c->params);
	free(c->largest);
	for (int r = 0; r < c->nregions; r++) {
		struct compare_region *g = &c->regions[r];
		free(g->callpath);
		free(g->metric);
		free(g->fit_error);
		pmnf_release(&g->base);
		pmnf_release(&g->new);
	}
	free(c->regions);
	for (int i = 0; i < c->ncmp; i++)
		free(c->points[i].coords);
	free(c->points);
	memset(c, 0, sizeof(*c));
}

int compare_verdict(const struct compare *c)
{
	return c->nregressions || c->nmodel_regressions ? 3 : 0;
}

/* The parameter names of e, comma-separated, for messages. */
static void param_list(const struct experiment *e, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (int k = 0; k < e->nparams && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", k ? "," : "", e->params[k]);
}

/* map[k] = index in new of base's parameter k; -1 with err when the names differ. */
static int map_params(const struct experiment *base, const struct experiment *new, int *map,
		      struct perr *err)
{
	int bad = base->nparams != new->nparams;
	for (int k = 0; k < base->nparams && !bad; k++)
		bad = (map[k] = experiment_find_param(new, base->params[k])) < 0;
	if (!bad)
		return 0;
	char a[256], b[256];
	param_list(base, a, sizeof(a));
	param_list(new, b, sizeof(b));
	return perr_set(err, "the parameters differ: base has '%s', new has '%s'", a, b);
}

/* pairs[2i], pairs[2i+1]: the base and new index of each common point; returns the count. */
static int common_points(const struct experiment *base, const struct experiment *new, const int *map,
			 int *pairs)
{
	int n = 0;
	double x[64];
	for (int p = 0; p < base->npoints; p++) {
		for (int k = 0; k < base->nparams; k++)
			x[map[k]] = experiment_coord(base, p, k);
		int q = experiment_find_point(new, x);
		if (q >= 0) {
			pairs[2 * n] = p;
			pairs[2 * n + 1] = q;
			n++;
		}
	}
	return n;
}

/* The rank test of one point: on log values when all are positive, else relative to the base median. */
static int test_point(struct compare_point *pt, const struct exp_values *a, const struct exp_values *b,
		      const struct compare_options *opt, struct perr *err)
{
	int pos = 1;
	for (int i = 0; i < a->n; i++)
		pos &= a->v[i] > 0;
	for (int j = 0; j < b->n; j++)
		pos &= b->v[j] > 0;
	pt->nbase = a->n;
	pt->nnew = b->n;
	pt->base_median = values_median(a->v, a->n);
	pt->new_median = values_median(b->v, b->n);
	struct rank_test rt;
	int rc;
	if (pos) {
		double *la = xmalloc(sizeof(*la) * (size_t)(a->n + b->n)), *lb = la + a->n;
		for (int i = 0; i < a->n; i++)
			la[i] = log(a->v[i]);
		for (int j = 0; j < b->n; j++)
			lb[j] = log(b->v[j]);
		rc = rank_test(la, a->n, lb, b->n, opt->alpha, &rt, err);
		free(la);
		pt->rel = expm1(rt.shift);
		pt->rel_lo = expm1(rt.lo);
		pt->rel_hi = expm1(rt.hi);
	} else {
		rc = rank_test(a->v, a->n, b->v, b->n, opt->alpha, &rt, err);
		double s = fabs(pt->base_median);
		pt->rel = s > 0 ? rt.shift / s : NAN;
		pt->rel_lo = s > 0 ? rt.lo / s : NAN;
		pt->rel_hi = s > 0 ? rt.hi / s : NAN;
	}
	if (rc < 0)
		return -1;
	pt->p = rt.p;
	pt->p_min = rt.p_min;
	pt->exact = rt.exact;
	pt->reachable = rt.p_min < opt->alpha;
	pt->status = CMP_UNCHANGED;
	if (rt.p < opt->alpha && pt->rel > opt->tolerance)
		pt->status = CMP_REGRESSION;
	else if (rt.p < opt->alpha && pt->rel < -opt->tolerance)
		pt->status = CMP_IMPROVEMENT;
	return 0;
}

int compare_leading_term(const struct pmnf_model *m, const double *x)
{
	int best = -1;
	double bp = 0, bl = 0, bc = 0;
	for (int t = 0; t < m->nterms; t++) {
		const struct pmnf_term *tm = &m->terms[t];
		double p = 0, l = 0, c = x ? fabs(tm->coef * pmnf_term_eval(tm, x)) : 0;
		for (int i = 0; i < tm->nfactors; i++) {
			p += tm->factors[i].poly_exp;
			l += tm->factors[i].log_exp;
		}
		int better = best < 0 || p > bp + EPS ||
			     (fabs(p - bp) <= EPS && (l > bl + EPS || (fabs(l - bl) <= EPS && c > bc)));
		if (better) {
			best = t;
			bp = p;
			bl = l;
			bc = c;
		}
	}
	return best;
}

/* The (poly, log) exponents of parameter name in term t of m; 0, 0 if it has none. */
static void term_order(const struct pmnf_model *m, int t, const char *name, double *p, double *l)
{
	*p = *l = 0;
	if (t < 0)
		return;
	const struct pmnf_term *tm = &m->terms[t];
	for (int i = 0; i < tm->nfactors; i++)
		if (!strcmp(m->params[tm->factors[i].param], name)) {
			*p = tm->factors[i].poly_exp;
			*l = tm->factors[i].log_exp;
		}
}

int compare_term_grew(const struct pmnf_model *a, int ta, const struct pmnf_model *b, int tb)
{
	if (tb < 0)
		return 0;
	const struct pmnf_term *t = &b->terms[tb];
	for (int i = 0; i < t->nfactors; i++) {
		const char *name = b->params[t->factors[i].param];
		double pa, la, pb, lb;
		term_order(a, ta, name, &pa, &la);
		term_order(b, tb, name, &pb, &lb);
		if (pb > pa + EPS || (fabs(pb - pa) <= EPS && lb > la + EPS))
			return 1;
	}
	return 0;
}

/* 1 when every factor of x's term t has the same exponents in y's term u (by parameter name). */
static int orders_match(const struct pmnf_model *x, int t, const struct pmnf_model *y, int u)
{
	if (t < 0)
		return 1;
	for (int i = 0; i < x->terms[t].nfactors; i++) {
		const char *name = x->params[x->terms[t].factors[i].param];
		double px, lx, py, ly;
		term_order(x, t, name, &px, &lx);
		term_order(y, u, name, &py, &ly);
		if (fabs(px - py) > EPS || fabs(lx - ly) > EPS)
			return 0;
	}
	return 1;
}

/* Both sides' models of one region, their leading terms and predicted ratios. */
static void fit_region(struct compare_region *g, const struct experiment *base, int bc, int bm,
		       const struct experiment *new, int nc, int nm, const int *map,
		       const struct compare *c, struct modeler *ctx)
{
	struct model_options mo;
	struct perr err;
	model_options_init(&mo);
	mo.aggregate = MODEL_MEDIAN;
	g->base_lead = g->new_lead = -1;
	g->ratio = g->ratio_2x = NAN;
	if (modeler_fit_series_ctx(ctx, base, bc, bm, &mo, NULL, &g->base, &err) < 0) {
		pmnf_init(&g->new, 0, NULL);
		g->fit_error = xasprintf("base: %s", err.msg);
		return;
	}
	if (modeler_fit_series_ctx(ctx, new, nc, nm, &mo, NULL, &g->new, &err) < 0) {
		g->fit_error = xasprintf("new: %s", err.msg);
		return;
	}
	g->modelled = 1;
	double x2[64], xn[64], xn2[64];
	for (int k = 0; k < c->nparams; k++) {
		x2[k] = 2 * c->largest[k];
		xn[map[k]] = c->largest[k];
		xn2[map[k]] = x2[k];
	}
	g->base_lead = compare_leading_term(&g->base, c->largest);
	g->new_lead = compare_leading_term(&g->new, xn);
	g->leading_changed = !orders_match(&g->base, g->base_lead, &g->new, g->new_lead) ||
			     !orders_match(&g->new, g->new_lead, &g->base, g->base_lead);
	g->leading_grew = compare_term_grew(&g->base, g->base_lead, &g->new, g->new_lead);
	g->ratio = pmnf_eval(&g->new, xn) / pmnf_eval(&g->base, c->largest);
	g->ratio_2x = pmnf_eval(&g->new, xn2) / pmnf_eval(&g->base, x2);
}

/* The region's test at the largest common point, or NULL. */
static const struct compare_point *top_point(const struct compare *c, int r, int first)
{
	for (int i = first; i < c->ncmp; i++)
		if (c->points[i].region == r &&
		    !memcmp(c->points[i].coords, c->largest, sizeof(double) * (size_t)c->nparams))
			return &c->points[i];
	return NULL;
}

/* Test every common point of one region; -1 with err for bad values. */
static int test_region(struct compare *c, int r, const struct experiment *base, int bc, int bm,
		       const struct experiment *new, int nc, int nm, const int *pairs, int npairs,
		       struct perr *err)
{
	for (int i = 0; i < npairs; i++) {
		const struct exp_values *a = experiment_values(base, bc, bm, pairs[2 * i]);
		const struct exp_values *b = experiment_values(new, nc, nm, pairs[2 * i + 1]);
		if (!a || !b || a->n == 0 || b->n == 0)
			continue;
		c->points = xrealloc(c->points, sizeof(*c->points) * (size_t)(c->ncmp + 1));
		struct compare_point *pt = &c->points[c->ncmp++];
		memset(pt, 0, sizeof(*pt));
		pt->region = r;
		pt->coords = xmalloc(sizeof(double) * (size_t)c->nparams);
		for (int k = 0; k < c->nparams; k++)
			pt->coords[k] = experiment_coord(base, pairs[2 * i], k);
		if (test_point(pt, a, b, &c->opt, err) < 0)
			return perr_prefix(err, "'%s' [%s]", base->callpaths[bc], base->metrics[bm]);
		c->nregressions += pt->status == CMP_REGRESSION;
		c->nimprovements += pt->status == CMP_IMPROVEMENT;
		c->nunchanged += pt->status == CMP_UNCHANGED;
		c->nunreachable += !pt->reachable;
	}
	return 0;
}

/* The common point with the largest coordinates (by the sum of their logs) into c->largest. */
static void pick_largest(struct compare *c, const struct experiment *base, const int *pairs, int n)
{
	double best = -INFINITY;
	c->largest = xcalloc((size_t)c->nparams + 1, sizeof(double));
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int k = 0; k < c->nparams; k++)
			s += log1p(fabs(experiment_coord(base, pairs[2 * i], k)));
		if (s > best) {
			best = s;
			for (int k = 0; k < c->nparams; k++)
				c->largest[k] = experiment_coord(base, pairs[2 * i], k);
		}
	}
}

/* The new side's callpath and metric of base's (bc, bm) with values, or -1. */
static int counterpart(const struct experiment *from, int fc, int fm, const struct experiment *to,
		       int *tc, int *tm)
{
	*tc = experiment_find_callpath(to, from->callpaths[fc]);
	*tm = experiment_find_metric(to, from->metrics[fm]);
	return *tc >= 0 && *tm >= 0 && experiment_series(to, *tc, *tm) ? 0 : -1;
}

/* Every (region, metric) with values on both sides: tests and models. */
static int compare_regions(struct compare *c, const struct experiment *base, const struct experiment *new,
			   const int *map, const int *pairs, int npairs, struct perr *err)
{
	struct modeler *ctx = modeler_new();
	int rc = 0;
	for (int bc = 0; bc < base->ncallpaths && !rc; bc++)
		for (int bm = 0; bm < base->nmetrics && !rc; bm++) {
			int nc, nm;
			if (c->opt.metric && strcmp(base->metrics[bm], c->opt.metric))
				continue;
			if (!experiment_series(base, bc, bm))
				continue;
			if (counterpart(base, bc, bm, new, &nc, &nm) < 0) {
				c->only_base++;
				continue;
			}
			c->regions = xrealloc(c->regions, sizeof(*c->regions) * (size_t)(c->nregions + 1));
			struct compare_region *g = &c->regions[c->nregions++];
			memset(g, 0, sizeof(*g));
			g->callpath = xstrdup(base->callpaths[bc]);
			g->metric = xstrdup(base->metrics[bm]);
			int first = c->ncmp;
			rc = test_region(c, c->nregions - 1, base, bc, bm, new, nc, nm, pairs, npairs, err);
			fit_region(g, base, bc, bm, new, nc, nm, map, c, ctx);
			const struct compare_point *top = top_point(c, c->nregions - 1, first);
			g->top = top ? (int)(top - c->points) : -1;
			g->regression = g->leading_grew && g->ratio_2x > 1 + c->opt.tolerance && top &&
					top->p < c->opt.alpha && top->rel > 0;
			c->nmodel_regressions += g->regression;
		}
	modeler_free(ctx);
	return rc;
}

int compare_experiments(const struct experiment *base, const struct experiment *new,
			const struct compare_options *opt, struct compare *out, struct perr *err)
{
	memset(out, 0, sizeof(*out));
	if (opt)
		out->opt = *opt;
	else
		compare_options_init(&out->opt);
	int map[64];
	if (base->nparams > 64)
		return perr_set(err, "too many parameters (%d; at most 64)", base->nparams);
	if (map_params(base, new, map, err) < 0)
		return -1;
	int *pairs = xmalloc(sizeof(int) * 2 * (size_t)(base->npoints + 1));
	int n = common_points(base, new, map, pairs);
	if (n == 0) {
		free(pairs);
		return perr_set(err, "no common points: base and new measured different parameter values");
	}
	out->nparams = base->nparams;
	out->params = xcalloc((size_t)base->nparams + 1, sizeof(char *));
	for (int k = 0; k < base->nparams; k++)
		out->params[k] = xstrdup(base->params[k]);
	out->npoints = n;
	pick_largest(out, base, pairs, n);
	int rc = compare_regions(out, base, new, map, pairs, n, err);
	free(pairs);
	for (int nc = 0; nc < new->ncallpaths && !rc; nc++)
		for (int nm = 0; nm < new->nmetrics; nm++) {
			int bc, bm;
			if (experiment_series(new, nc, nm) && counterpart(new, nc, nm, base, &bc, &bm) < 0 &&
			    (!out->opt.metric || !strcmp(new->metrics[nm], out->opt.metric)))
				out->only_new++;
		}
	if (!rc && out->ncmp == 0)
		rc = out->opt.metric ? perr_set(err, "no values of metric '%s' at a common point", out->opt.metric)
				     : perr_set(err, "no region and metric with values at a common point");
	if (rc)
		compare_release(out);
	return rc;
}
