/*
 * perfsweep compare's statistics (see compare.h): common points, per-point
 * rank tests on the repetitions, and the models of both sides.
 */
#include "common/xalloc.h"
#include "models/points.h"
#include "validator/compare.h"
#include "validator/disturbed.h"
#include "validator/noise.h"
#include "validator/ranktest.h"
#include "validator/validate.h"
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

void compare_options_init(struct compare_options *o)
{
	struct validate_options vo;
	validate_options_init(&vo);
	memset(o, 0, sizeof(*o));
	o->tolerance = 0.05;
	o->alpha = 0.01;
	o->metric = NULL;
	o->cov_threshold = vo.cov_threshold;
	o->unreliable_fraction = vo.unreliable_fraction;
}

void compare_add_diff(struct compare *c, const char *key, const char *base, const char *new)
{
	struct compare_inputs *in = &c->inputs;
	in->diffs = xrealloc(in->diffs, sizeof(*in->diffs) * (size_t)(in->ndiffs + 1));
	struct compare_diff *d = &in->diffs[in->ndiffs++];
	d->key = xstrdup(key);
	d->base = base ? xstrdup(base) : NULL;
	d->new = new ? xstrdup(new) : NULL;
}

static void inputs_release(struct compare_inputs *in)
{
	for (int i = 0; i < in->ndiffs; i++) {
		free(in->diffs[i].key);
		free(in->diffs[i].base);
		free(in->diffs[i].new);
	}
	free(in->diffs);
	free(in->config_note);
	for (int s = 0; s < 2; s++) {
		free(in->machine[s].hostname);
		free(in->machine[s].cpu_model);
		free(in->machine[s].ncores);
	}
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
		free(g->remeasure[0]);
		free(g->remeasure[1]);
		free(g->scaling);
		compare_trend_release(&g->trend);
		pmnf_release(&g->base);
		pmnf_release(&g->new);
	}
	free(c->regions);
	for (int i = 0; i < c->ncmp; i++)
		free(c->points[i].coords);
	free(c->points);
	inputs_release(&c->inputs);
	memset(c, 0, sizeof(*c));
}

void compare_init(struct compare *c, const struct compare_options *opt)
{
	memset(c, 0, sizeof(*c));
	if (opt)
		c->opt = *opt;
	else
		compare_options_init(&c->opt);
}

int compare_verdict(const struct compare *c)
{
	int inconclusive = c->inputs.shared;
	for (int r = 0; r < c->nregions; r++) {
		const struct compare_region *g = &c->regions[r];
		if (!g->decides)
			continue;
		if (g->outcome == CMP_REGRESSED)
			return COMPARE_REGRESSION;
		inconclusive |= g->outcome == CMP_INCONCLUSIVE;
	}
	return inconclusive ? COMPARE_INCONCLUSIVE : COMPARE_OK;
}

const char *compare_verdict_name(int verdict)
{
	return verdict == COMPARE_REGRESSION ? "regression" : verdict == COMPARE_INCONCLUSIVE ? "inconclusive" : "ok";
}

/* More than DISTURBED_SHARED_FRACTION of what was measured lost: the machine was shared. */
static int lost_too_many(int lost, int of)
{
	return of > 0 && lost > DISTURBED_SHARED_FRACTION * of;
}

void compare_note_disturbed(struct compare *c, int side, int judged, int disturbed)
{
	c->inputs.judged[side] = judged;
	c->inputs.disturbed[side] = disturbed;
	c->inputs.shared |= lost_too_many(disturbed, judged);
}

void compare_note_pairs(struct compare *c, int pairs, int lost)
{
	c->inputs.paired = 1;
	c->inputs.pairs = pairs;
	c->inputs.pairs_lost = lost;
	c->inputs.shared |= lost_too_many(lost, pairs);
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

/* The one place compare fits a model: opt.fit, or the modeller on the medians. */
static int fit_side(const struct compare *c, struct modeler *ctx, const struct experiment *e, int cp,
		    int m, struct pmnf_model *out, struct perr *err)
{
	if (c->opt.fit)
		return c->opt.fit(c->opt.fit_ctx, e, cp, m, out, err);
	struct model_options mo;
	model_options_init(&mo);
	mo.aggregate = MODEL_MEDIAN;
	return modeler_fit_series_ctx(ctx, e, cp, m, &mo, NULL, out, err);
}

/* One region's two series and the common points. */
struct region_pair {
	const struct experiment *base, *new;
	int bc, bm, nc, nm;
	const int *map;         /* map[k]: new's index of base's parameter k */
	const int *pairs;       /* pairs[2i], pairs[2i+1]: base and new index of common point i */
	int npairs;
};

/* Both sides' models of one region, their leading terms and predicted ratios. */
static void fit_region(struct compare_region *g, const struct region_pair *rp, const struct compare *c,
		       struct modeler *ctx)
{
	struct perr err;
	g->base_lead = g->new_lead = -1;
	g->ratio = g->ratio_2x = NAN;
	if (fit_side(c, ctx, rp->base, rp->bc, rp->bm, &g->base, &err) < 0) {
		pmnf_init(&g->new, 0, NULL);
		g->fit_error = xasprintf("base: %s", err.msg);
		return;
	}
	if (fit_side(c, ctx, rp->new, rp->nc, rp->nm, &g->new, &err) < 0) {
		g->fit_error = xasprintf("new: %s", err.msg);
		return;
	}
	g->modelled = 1;
	double x2[64], xn[64], xn2[64];
	for (int k = 0; k < c->nparams; k++) {
		x2[k] = 2 * c->largest[k];
		xn[rp->map[k]] = c->largest[k];
		xn2[rp->map[k]] = x2[k];
	}
	g->base_lead = compare_leading_term(&g->base, c->largest);
	g->new_lead = compare_leading_term(&g->new, xn);
	g->leading_changed = !orders_match(&g->base, g->base_lead, &g->new, g->new_lead) ||
			     !orders_match(&g->new, g->new_lead, &g->base, g->base_lead);
	g->leading_grew = compare_term_grew(&g->base, g->base_lead, &g->new, g->new_lead);
	g->ratio = pmnf_eval(&g->new, xn) / pmnf_eval(&g->base, c->largest);
	g->ratio_2x = pmnf_eval(&g->new, xn2) / pmnf_eval(&g->base, x2);
}

/* The noise check of one side's series (noise.h); a mostly noisy one marks g with its noisy points. */
static void region_noise(const struct compare *c, struct compare_region *g, int side, const struct experiment *e,
			 int cp, int m, const int *map)
{
	struct noise_result r;
	noise_check(e, experiment_series(e, cp, m), c->opt.cov_threshold, c->opt.unreliable_fraction, &r);
	if (r.unreliable) {
		g->noisy |= side ? CMP_NOISY_NEW : CMP_NOISY_BASE;
		g->remeasure[side] = xmalloc(sizeof(double) * (size_t)(r.nnoisy + 1) * (size_t)c->nparams);
		for (int p = 0; p < r.npoints; p++) {
			if (!r.noisy[p])
				continue;
			double *x = g->remeasure[side] + (size_t)g->nremeasure[side]++ * (size_t)c->nparams;
			for (int k = 0; k < c->nparams; k++)
				x[k] = experiment_coord(e, p, map ? map[k] : k);
		}
	}
	noise_result_release(&r);
}

static int all_positive(const struct exp_values *v)
{
	for (int i = 0; i < v->n; i++)
		if (!(v->v[i] > 0))
			return 0;
	return 1;
}

/* Mean and variance of the logs of v's repetitions (all of them: see trend_build_add). */
static void log_stats(const struct exp_values *v, double *mean, double *var)
{
	double s = 0, s2 = 0;
	for (int i = 0; i < v->n; i++)
		s += log(v->v[i]);
	*mean = s / v->n;
	for (int i = 0; i < v->n; i++)
		s2 += (log(v->v[i]) - *mean) * (log(v->v[i]) - *mean);
	*var = v->n > 1 ? s2 / (v->n - 1) : NAN;
}

/* The trend fit's input, built point by point. */
struct trend_build {
	struct trend_input in;
	double *x, *y, *v;
	double *b;              /* base's geometric mean per point (compare_fixed.h) */
	int *nb, *nn, *np;
	const struct exp_values **va, **vb;     /* each point's base and new repetitions */
};

static void trend_build_init(struct trend_build *tb, int npoints, int nparams)
{
	size_t n = (size_t)npoints + 1;
	memset(tb, 0, sizeof(*tb));
	tb->in.nparams = nparams;
	tb->in.x = tb->x = xmalloc(sizeof(double) * n * (size_t)nparams);
	tb->in.y = tb->y = xmalloc(sizeof(double) * n);
	tb->in.v = tb->v = xmalloc(sizeof(double) * n);
	tb->b = xmalloc(sizeof(double) * n);
	tb->in.nbase = tb->nb = xmalloc(sizeof(int) * n);
	tb->in.nnew = tb->nn = xmalloc(sizeof(int) * n);
	tb->np = xmalloc(sizeof(int) * n);
	tb->va = xmalloc(sizeof(*tb->va) * n);
	tb->vb = xmalloc(sizeof(*tb->vb) * n);
}

/* Unpaired: the level's variance from the passes of both sides (compare_pass_variance), Welch's df. */
static void trend_build_passes(struct trend_build *tb)
{
	double va, dfa, vb, dfb;
	tb->in.pass_var = NAN;
	tb->in.pass_df = 0;
	if (tb->in.npairs || tb->in.n < 2 || compare_pass_variance(tb->va, tb->in.n, &va, &dfa) < 0 ||
	    compare_pass_variance(tb->vb, tb->in.n, &vb, &dfb) < 0 || !(va + vb > 0))
		return;
	tb->in.pass_var = va + vb;
	tb->in.pass_df = (va + vb) * (va + vb) / (va * va / dfa + vb * vb / dfb);
}

/*
 * Add one point with positive values: its log ratio y, the difference of
 * the mean logs, and that difference's variance from the repetitions.
 * Every repetition counts: with three of them, what looks outlying is
 * mostly the noise itself, and leaving it out understated the points'
 * variance (the points then scattered more than their repetitions said
 * in 57% of generated no-change pairs instead of 45%, and the pooled test
 * lost power to it); a point whose repetitions really disagree weighs
 * less for it, and the test allows for points that scatter
 * (compare_trend.h).
 */
static void trend_build_add(struct trend_build *tb, const double *x, const struct exp_values *a,
			    const struct exp_values *b)
{
	int i = tb->in.n++;
	double ma, va, mb, vb;
	memcpy(tb->x + (size_t)i * (size_t)tb->in.nparams, x, sizeof(double) * (size_t)tb->in.nparams);
	log_stats(a, &ma, &va);
	log_stats(b, &mb, &vb);
	tb->nb[i] = a->n;
	tb->nn[i] = b->n;
	tb->y[i] = mb - ma;
	tb->b[i] = exp(ma);
	tb->v[i] = va / a->n + vb / b->n;
	tb->np[i] = 0;
	tb->va[i] = a;
	tb->vb[i] = b;
}

/*
 * Add one paired point (a and b of equal length, positive, the j-th values
 * measured next to each other): y the mean of the pairs' log ratios, v its
 * variance over the pairs.
 */
static void trend_build_add_paired(struct trend_build *tb, const double *x, const struct exp_values *a,
				   const struct exp_values *b)
{
	int i = tb->in.n++, n = a->n;
	double s = 0, s2 = 0, ma, va;
	memcpy(tb->x + (size_t)i * (size_t)tb->in.nparams, x, sizeof(double) * (size_t)tb->in.nparams);
	log_stats(a, &ma, &va);
	tb->b[i] = exp(ma);
	for (int j = 0; j < n; j++)
		s += log(b->v[j] / a->v[j]);
	for (int j = 0; j < n; j++)
		s2 += (log(b->v[j] / a->v[j]) - s / n) * (log(b->v[j] / a->v[j]) - s / n);
	tb->y[i] = s / n;
	tb->v[i] = n > 1 ? s2 / (n - 1) / n : NAN;
	tb->nb[i] = tb->nn[i] = tb->np[i] = n;
	tb->in.npairs = tb->np;
	tb->va[i] = a;
	tb->vb[i] = b;
}

static void trend_build_release(struct trend_build *tb)
{
	free(tb->x);
	free(tb->y);
	free(tb->v);
	free(tb->b);
	free(tb->nb);
	free(tb->nn);
	free(tb->np);
	free(tb->va);
	free(tb->vb);
}

/*
 * Whether trend t shows a scaling change in some parameter: a significant
 * slope whose low (high) end still adds (takes) more than tol at twice the
 * largest value.  Into scaling[k] (+1, -1, 0) when not NULL.
 */
static int trend_scales(const struct compare_trend *t, int nparams, double alpha, double tol, int *scaling)
{
	int any = 0;
	for (int k = 0; k < nparams; k++) {
		const struct trend_param *tp = &t->param[k];
		int sk = 0;
		if (tp->tested && tp->p < alpha) {      /* p is one-sided, in the slope's direction */
			if (tp->slope > 0 && tp->excess_2x_lo > tol)
				sk = 1;
			else if (tp->slope < 0 && tp->excess_2x_hi < -tol)
				sk = -1;
		}
		if (scaling)
			scaling[k] = sk;
		any |= sk != 0;
	}
	return any;
}

/* Test every common point of one region, then all of them together; -1 with err for bad values. */
static int test_region(struct compare *c, int r, const struct region_pair *rp, struct perr *err)
{
	struct trend_build tb;
	int rc = 0;
	trend_build_init(&tb, rp->npairs, c->nparams);
	for (int i = 0; i < rp->npairs && !rc; i++) {
		const struct exp_values *a = experiment_values(rp->base, rp->bc, rp->bm, rp->pairs[2 * i]);
		const struct exp_values *b = experiment_values(rp->new, rp->nc, rp->nm, rp->pairs[2 * i + 1]);
		if (!a || !b || a->n == 0 || b->n == 0)
			continue;
		c->points = xrealloc(c->points, sizeof(*c->points) * (size_t)(c->ncmp + 1));
		struct compare_point *pt = &c->points[c->ncmp++];
		memset(pt, 0, sizeof(*pt));
		pt->region = r;
		pt->coords = xmalloc(sizeof(double) * (size_t)c->nparams);
		for (int k = 0; k < c->nparams; k++)
			pt->coords[k] = experiment_coord(rp->base, rp->pairs[2 * i], k);
		if (test_point(pt, a, b, &c->opt, err) < 0) {
			rc = perr_prefix(err, "'%s' [%s]", rp->base->callpaths[rp->bc], rp->base->metrics[rp->bm]);
			break;
		}
		c->nregressions += pt->status == CMP_REGRESSION;
		c->nimprovements += pt->status == CMP_IMPROVEMENT;
		c->nunchanged += pt->status == CMP_UNCHANGED;
		c->nunreachable += !pt->reachable;
		c->regions[r].point_regressions += pt->status == CMP_REGRESSION;
		if (!all_positive(a) || !all_positive(b))
			continue;
		/* a measurement compared with itself (a campaign, a file or its reference) pairs with itself */
		int same = a->n == b->n && !memcmp(a->v, b->v, sizeof(double) * (size_t)a->n);
		if ((c->opt.paired || same) && a->n == b->n)
			trend_build_add_paired(&tb, pt->coords, a, b);
		else
			trend_build_add(&tb, pt->coords, a, b);
	}
	/* a mix of paired and unpaired points: all of them as unpaired */
	for (int i = 0; tb.in.npairs && i < tb.in.n; i++)
		if (!tb.np[i])
			tb.in.npairs = NULL;
	trend_build_passes(&tb);
	struct perr terr;
	struct compare_region *g = &c->regions[r];
	if (!rc && compare_trend_fit(&tb.in, c->opt.alpha, &g->trend, &terr) < 0)
		g->trend.tested = 0;         /* no point with positive values: nothing to fit */
	/* a trend that would be a scaling change: does a fixed part explain it? */
	if (!rc && g->trend.tested && trend_scales(&g->trend, c->nparams, c->opt.alpha, c->opt.tolerance, NULL))
		compare_fixed_fit(&tb.in, tb.b, &g->trend, c->opt.alpha, c->opt.tolerance, &g->fixed);
	trend_build_release(&tb);
	return rc;
}

/* The region-level verdicts: the constant part and the trend along each parameter. */
static void region_verdict(struct compare *c, struct compare_region *g)
{
	const struct compare_trend *t = &g->trend;
	double tol = c->opt.tolerance, alpha = c->opt.alpha;
	if (!t->tested)
		return;
	double change = expm1(t->level);
	/* the pooled level, or every point on its own (an intersection-union test) */
	int slower = (t->level_p < alpha && t->level > 0) || (t->npoints >= 2 && t->point_p_max < alpha);
	if (slower && change > tol)
		g->status = CMP_REGRESSION;
	else if (t->level_p < alpha && t->level < 0 && change < -tol)
		g->status = CMP_IMPROVEMENT;
	g->resolved = expm1(t->level_hi) <= tol;
	trend_scales(t, c->nparams, alpha, tol, g->scaling);
	/*
	 * A trend that a fixed part explains is a constant change of the rest,
	 * by beta: no scaling change, but the ratio rises (falls) significantly
	 * towards beta, so the region regressed (improved) where beta is beyond
	 * the tolerance, although the level, diluted by the fixed part, may not say so.
	 */
	for (int k = 0; g->fixed.explains && k < c->nparams; k++) {
		if (g->scaling[k] > 0 && g->fixed.beta - 1 > tol)
			g->status = CMP_REGRESSION;
		else if (g->scaling[k] < 0 && 1 - g->fixed.beta > tol && g->status != CMP_REGRESSION)
			g->status = CMP_IMPROVEMENT;
		g->scaling[k] = 0;
	}
	for (int k = 0; k < c->nparams; k++)
		g->regression |= g->scaling[k] > 0;
	c->nregion_regressions += g->status == CMP_REGRESSION;
	c->nregion_improvements += g->status == CMP_IMPROVEMENT;
	c->nmodel_regressions += g->regression;
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

/* One (region, metric) with values on both sides: noise, tests, models and verdicts. */
static int compare_region(struct compare *c, const struct region_pair *rp, struct modeler *ctx,
			  struct perr *err)
{
	c->regions = xrealloc(c->regions, sizeof(*c->regions) * (size_t)(c->nregions + 1));
	struct compare_region *g = &c->regions[c->nregions++];
	memset(g, 0, sizeof(*g));
	g->callpath = xstrdup(rp->base->callpaths[rp->bc]);
	g->metric = xstrdup(rp->base->metrics[rp->bm]);
	g->scaling = xcalloc((size_t)c->nparams + 1, sizeof(int));
	g->base_lead = g->new_lead = -1;
	g->ratio = g->ratio_2x = NAN;
	/* a noisy region is compared all the same: the pooled test weighs each point by its noise */
	region_noise(c, g, 0, rp->base, rp->bc, rp->bm, NULL);
	region_noise(c, g, 1, rp->new, rp->nc, rp->nm, rp->map);
	int rc = test_region(c, c->nregions - 1, rp, err);
	fit_region(g, rp, c, ctx);
	region_verdict(c, g);
	return rc;
}

/* Every (region, metric) with values on both sides. */
static int compare_regions(struct compare *c, const struct experiment *base, const struct experiment *new,
			   const int *map, const int *pairs, int npairs, struct perr *err)
{
	struct modeler *ctx = c->opt.fit ? NULL : modeler_new();
	int rc = 0;
	for (int bc = 0; bc < base->ncallpaths && !rc; bc++)
		for (int bm = 0; bm < base->nmetrics && !rc; bm++) {
			struct region_pair rp = { base, new, bc, bm, -1, -1, map, pairs, npairs };
			if (c->opt.metric && strcmp(base->metrics[bm], c->opt.metric))
				continue;
			if (!experiment_series(base, bc, bm))
				continue;
			if (counterpart(base, bc, bm, new, &rp.nc, &rp.nm) < 0) {
				c->only_base++;
				continue;
			}
			rc = compare_region(c, &rp, ctx, err);
		}
	if (ctx)
		modeler_free(ctx);
	return rc;
}

/* Whether region g's callpath is top-level (no "->"): its time is part of the total. */
static int top_level(const struct compare_region *g)
{
	return strstr(g->callpath, "->") == NULL;
}

/*
 * Each region's share of its metric's total (its base medians summed over
 * the common points, over the top-level regions' sum: what refine counts),
 * whether it decides, and its outcome.
 */
static void settle_regions(struct compare *c)
{
	double *sum = xcalloc((size_t)c->nregions + 1, sizeof(double));
	for (int i = 0; i < c->ncmp; i++)
		if (isfinite(c->points[i].base_median))
			sum[c->points[i].region] += fabs(c->points[i].base_median);
	for (int r = 0; r < c->nregions; r++) {
		struct compare_region *g = &c->regions[r];
		double total = 0;
		for (int q = 0; q < c->nregions; q++)
			if (!strcmp(c->regions[q].metric, g->metric) && top_level(&c->regions[q]))
				total += sum[q];
		g->share = total > 0 ? sum[r] / total : NAN;
		g->decides = !(c->opt.min_share > 0 && g->share < c->opt.min_share);
		if (g->status == CMP_REGRESSION || g->regression || g->point_regressions)
			g->outcome = CMP_REGRESSED;
		else
			g->outcome = g->trend.tested && g->resolved ? CMP_OK : CMP_INCONCLUSIVE;
		c->nsmall += !g->decides;
		c->nnot_compared += g->decides && g->outcome == CMP_INCONCLUSIVE;
	}
	free(sum);
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
	if (!rc)
		settle_regions(out);
	if (!rc && out->ncmp == 0)
		rc = out->opt.metric ? perr_set(err, "no values of metric '%s' at a common point", out->opt.metric)
				     : perr_set(err, "no region and metric with values at a common point");
	if (rc)
		compare_release(out);
	return rc;
}
