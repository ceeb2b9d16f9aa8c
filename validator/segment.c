/*
 * Change-point detection along a parameter line, in relative terms: the
 * best two-model split of the point estimates against one model, tested
 * against the repetitions' pure error.
 */
#include "validator/segment.h"
#include "common/xalloc.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The line's point estimates and the pure error pooled over them. */
struct seg_line {
	int n;
	double *x, *y, *r;
	struct exp_values *vals;
	struct lof_noise nz;
};

/* Fit points [lo, hi) of the line with the modeller (one parameter). */
static int fit_range(const struct seg_line *l, int lo, int hi, char *name,
		     const struct model_options *opt, struct pmnf_model *m, struct perr *err)
{
	char *names[1] = { name };
	struct model_input in = {
		.nparams = 1, .params = names, .npoints = hi - lo, .coords = &l->x[lo],
		.values = &l->vals[lo],
	};
	return modeler_fit(&in, opt, NULL, m, err);
}

/* Relative chi-square of model m on points [lo, hi), and the largest relative deviation. */
static double range_chi2(const struct seg_line *l, int lo, int hi, const struct pmnf_model *m,
			 double *maxdev)
{
	double s = 0;
	for (int i = lo; i < hi; i++) {
		double f = pmnf_eval(m, &l->x[i]), d = (l->y[i] - f) / l->y[i];
		s += l->r[i] * d * d;
		if (maxdev && fabs(d) > *maxdev)
			*maxdev = fabs(d);
	}
	return s / (l->nz.factor * l->nz.s2);
}

/* Coefficients of a one-parameter model plus one for the exponent choice. */
static int model_dof(const struct pmnf_model *m)
{
	return 1 + 2 * m->nterms;
}

/* Gather the line's point estimates; 0 when a value is not positive (no relative test). */
static int seg_line_init(struct seg_line *l, const struct experiment *e, const struct exp_series *s,
			 double scov, const struct segment_result *r, const struct model_options *opt)
{
	int n = r->npoints, ok = 1;
	struct point_estimate *pe = xmalloc(sizeof(*pe) * (size_t)(n ? n : 1));
	l->n = n;
	l->x = xmalloc(sizeof(double) * (size_t)(n ? n : 1));
	l->y = xmalloc(sizeof(double) * (size_t)(n ? n : 1));
	l->r = xmalloc(sizeof(double) * (size_t)(n ? n : 1));
	l->vals = xmalloc(sizeof(*l->vals) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++) {
		l->x[i] = experiment_coord(e, r->points[i], r->param);
		l->vals[i] = s->at[r->points[i]];
		point_estimate(&l->vals[i], opt->aggregate, 1, scov, opt->outlier_side, &pe[i]);
		l->y[i] = pe[i].value;
		l->r[i] = pe[i].n;
		ok &= l->y[i] > 0 && isfinite(l->y[i]);
	}
	lof_noise_pool(pe, n, opt->aggregate, &l->nz);
	if (l->nz.dof == 0) {
		l->nz.s2 = 1;   /* no repetitions: plain relative residuals, tested against each other */
		l->nz.factor = 1;
	}
	free(pe);
	return ok;
}

static void seg_line_release(struct seg_line *l)
{
	free(l->x);
	free(l->y);
	free(l->r);
	free(l->vals);
}

/* The split before point k: both sides fitted, kept in r when it is the best so far. */
static int try_split(const struct seg_line *l, int k, char *name, const struct model_options *opt,
		     struct segment_result *r, struct perr *err)
{
	struct pmnf_model a, b;
	int n = l->n;
	int ra = fit_range(l, 0, k, name, opt, &a, err);
	int rb = ra < 0 ? -1 : fit_range(l, k, n, name, opt, &b, err);
	if (rb < 0) {
		pmnf_release(&a);
		if (ra == 0)
			pmnf_release(&b);
		return -1;
	}
	double c = range_chi2(l, 0, k, &a, NULL) + range_chi2(l, k, n, &b, NULL);
	if (c < r->rss_two) {
		r->rss_two = c;
		r->change = k;
		pmnf_release(&r->left);
		pmnf_release(&r->right);
		r->left = a;
		r->right = b;
	} else {
		pmnf_release(&a);
		pmnf_release(&b);
	}
	return 0;
}

/*
 * The best split; keeps its pair of models in r.  Up to SEGMENT_EXHAUSTIVE
 * candidate splits every one is tried.  A longer line (a campaign of 10^5
 * runs has lines of 1000 points, and each try fits every point of it) is
 * searched coarse to fine: SEGMENT_GRID splits evenly over the range, then
 * the range narrowed to the best one's neighbours, until it is short enough
 * to try whole: about 50 tries for 1000 points instead of 994, linear in
 * the line's points instead of quadratic.
 */
static int best_split(const struct seg_line *l, char *name, const struct model_options *opt,
		      struct segment_result *r, struct perr *err)
{
	int lo = SEGMENT_MIN_SIDE, hi = l->n - SEGMENT_MIN_SIDE;   /* splits lo..hi */
	r->rss_two = INFINITY;
	while (hi - lo + 1 > SEGMENT_EXHAUSTIVE) {
		int step = (hi - lo + SEGMENT_GRID - 2) / (SEGMENT_GRID - 1);
		for (int k = lo; k <= hi; k += step)
			if (try_split(l, k, name, opt, r, err) < 0)
				return -1;
		int best = r->change;
		lo = best - step > lo ? best - step : lo;
		hi = best + step < hi ? best + step : hi;
	}
	for (int k = lo; k <= hi; k++)
		if (try_split(l, k, name, opt, r, err) < 0)
			return -1;
	return 0;
}

/* Lack-of-fit p-value of model m on points [lo, hi) against the repetitions (NaN without them). */
static double side_p(const struct seg_line *l, int lo, int hi, const struct pmnf_model *m)
{
	if (l->nz.dof == 0)
		return NAN;
	int k = model_dof(m), n = hi - lo;
	return lof_p(range_chi2(l, lo, hi, m, NULL), n, k > n ? n : k, &l->nz);
}

/* The test of two models against one (see segment.h). */
static void seg_significance(const struct seg_line *l, struct segment_result *r)
{
	int n = l->n, k1 = model_dof(&r->one), k2 = model_dof(&r->left) + model_dof(&r->right) + 1;
	double gain = r->rss_one - r->rss_two;
	r->improvement = r->rss_one > 0 ? 1 - r->rss_two / r->rss_one : 0;
	r->df1 = k2 - k1 > 0 ? k2 - k1 : 1;
	if (l->nz.dof > 0) {
		/* against the pure error of the repetitions, or the points' scatter
		   about the two models where it is larger (segment.h) */
		int dfr = n - k2;
		double scatter = dfr >= SEGMENT_MIN_SCATTER_DOF ? r->rss_two / dfr : 0;
		r->df2 = scatter > 1 ? dfr : l->nz.dof;
		r->f = gain / r->df1 / (scatter > 1 ? scatter : 1);
		r->p_value = gain > 0 ? gsl_cdf_fdist_Q(r->f, r->df1, r->df2) : 1;
		r->p_one = lof_p(r->rss_one, n, k1 > n ? n : k1, &l->nz);
		r->p_left = side_p(l, 0, r->change, &r->left);
		r->p_right = side_p(l, r->change, n, &r->right);
		return;
	}
	r->df2 = n - k2;
	r->p_one = NAN;
	if (r->df2 < 1) {
		/* no room for a test: only an exact two-regime fit counts */
		r->p_value = r->rss_two == 0 && r->rss_one > 0 ? 0 : 1;
		return;
	}
	r->f = r->rss_two > 0 ? (gain / r->df1) / (r->rss_two / r->df2) : r->rss_one > 0 ? INFINITY : 0;
	r->p_value = r->f > 0 ? gsl_cdf_fdist_Q(r->f, r->df1, r->df2) : 1;
}

static void seg_result_init(struct segment_result *r, const struct experiment *e, const struct vline *line)
{
	memset(r, 0, sizeof(*r));
	r->param = line->param;
	r->change = -1;
	r->x_before = r->x_after = r->f = r->p_value = r->p_one = r->p_left = r->p_right = NAN;
	r->rss_one = r->rss_two = r->improvement = r->max_dev = NAN;
	char *names[1] = { e->params[line->param] };
	pmnf_init(&r->one, 1, names);
	pmnf_init(&r->left, 1, names);
	pmnf_init(&r->right, 1, names);
}

int segment_test(const struct experiment *e, const struct exp_series *s, double scov,
		 const struct vline *line, int min_points, const struct model_options *opt,
		 struct segment_result *r, struct perr *err)
{
	seg_result_init(r, e, line);
	if (!s)
		return 0;
	gsl_set_error_handler_off();
	r->points = xmalloc(sizeof(int) * (size_t)(line->npoints ? line->npoints : 1));
	for (int i = 0; i < line->npoints; i++)
		if (s->at[line->points[i]].n)
			r->points[r->npoints++] = line->points[i];
	if (r->npoints < min_points || r->npoints < 2 * SEGMENT_MIN_SIDE)
		return 0;
	struct seg_line l;
	struct model_options o = model_options_for_series(opt, e, s);
	int rc = -1;
	o.relative_fallback = 1;        /* the splits are compared in relative terms */
	opt = &o;
	if (!seg_line_init(&l, e, s, scov, r, opt)) {
		seg_line_release(&l);
		return 0;
	}
	pmnf_release(&r->one);
	if (fit_range(&l, 0, l.n, e->params[line->param], opt, &r->one, err) < 0)
		goto out;
	r->max_dev = 0;
	r->rss_one = range_chi2(&l, 0, l.n, &r->one, &r->max_dev);
	if (best_split(&l, e->params[line->param], opt, r, err) < 0)
		goto out;
	r->x_before = l.x[r->change - 1];
	r->x_after = l.x[r->change];
	r->is_int = 1;
	for (int p = 0; p < e->npoints; p++)
		if (experiment_coord(e, p, line->param) != floor(experiment_coord(e, p, line->param)))
			r->is_int = 0;
	seg_significance(&l, r);
	rc = 1;
out:
	seg_line_release(&l);
	return rc;
}

/* One step apart: nothing left to measure between them. */
static int one_step(double lo, double hi, int is_int)
{
	return is_int ? hi - lo <= 1 + 1e-9 : hi - lo <= SEGMENT_RESOLUTION * fabs(lo);
}

int segment_located(const struct segment_result *r, double alpha)
{
	return r->change > 0 && one_step(r->x_before, r->x_after, r->is_int) && r->p_left >= alpha &&
	       r->p_right >= alpha;
}

int segment_between_values(double lo, double hi, int is_int, double *out)
{
	int n = 0;
	if (one_step(lo, hi, is_int))
		return 0;
	if (is_int && hi - lo - 1 <= SEGMENT_BETWEEN_POINTS) {
		for (double x = floor(lo) + 1; x < hi - 1e-9; x += 1)
			out[n++] = x;
		return n;
	}
	int geo = lo > 0 && hi / lo >= 2;
	for (int i = 1; i <= SEGMENT_BETWEEN_POINTS; i++) {
		double t = (double)i / (SEGMENT_BETWEEN_POINTS + 1);
		double x = geo ? lo * pow(hi / lo, t) : lo + t * (hi - lo);
		if (is_int)
			x = round(x);
		if (x > lo && x < hi && (n == 0 || x != out[n - 1]))
			out[n++] = x;
	}
	return n;
}

void segment_result_release(struct segment_result *r)
{
	pmnf_release(&r->one);
	pmnf_release(&r->left);
	pmnf_release(&r->right);
	free(r->points);
	memset(r, 0, sizeof(*r));
}
