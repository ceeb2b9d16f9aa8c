/* The level and trend of a region's ratio NEW/BASE (see compare_trend.h). */
#include "common/xalloc.h"
#include "validator/compare_trend.h"
#include "validator/power.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void compare_trend_release(struct compare_trend *t)
{
	free(t->param);
	memset(t, 0, sizeof(*t));
}

/* The working set: the usable points, their variances and the parameters that vary. */
struct trend_work {
	int n, k;               /* points used, parameters used */
	int *row;               /* n: index into the input */
	int *col;               /* k: parameter index */
	double *v;              /* n: each point's variance (shrunk); 1 when none is known */
};

static void work_release(struct trend_work *w)
{
	free(w->row);
	free(w->col);
	free(w->v);
}

/* Point r's repetitions: the degrees of freedom of its variance and the factor h with var(y) = s2 / h. */
static void point_reps(const struct trend_input *in, int r, int *df, double *h)
{
	if (in->npairs) {
		*df = in->npairs[r] - 1;
		*h = in->npairs[r];
	} else {
		*df = in->nbase[r] + in->nnew[r] - 2;
		*h = 1 / (1.0 / in->nbase[r] + 1.0 / in->nnew[r]);
	}
}

/*
 * Variances v' = (v + pooled) / 2, pooled = the region's per-repetition
 * variance s2 scaled to the point's repetitions.  Returns 1 when they come
 * from the repetitions, 0 when none is known (all 1: equal weights).
 */
static int variances(const struct trend_input *in, struct trend_work *w, struct compare_trend *t)
{
	double num = 0, den = 0, h;
	int df;
	for (int i = 0; i < w->n; i++) {
		int r = w->row[i];
		point_reps(in, r, &df, &h);
		if (df > 0 && isfinite(in->v[r])) {
			num += df * in->v[r] * h;
			den += df;
			t->rep_dof += df;
		}
	}
	double s2 = den > 0 ? num / den : 0;
	for (int i = 0; i < w->n; i++) {
		int r = w->row[i];
		point_reps(in, r, &df, &h);
		double pooled = s2 / h;
		w->v[i] = s2 > 0 ? (isfinite(in->v[r]) ? (in->v[r] + pooled) / 2 : pooled) : 1;
	}
	return s2 > 0;
}

/* The parameters that take two or more values at the used points. */
static void varying_params(const struct trend_input *in, struct trend_work *w, struct compare_trend *t)
{
	w->k = 0;
	for (int k = 0; k < in->nparams; k++) {
		double first = in->x[(size_t)w->row[0] * in->nparams + k];
		for (int i = 1; i < w->n; i++)
			if (in->x[(size_t)w->row[i] * in->nparams + k] != first) {
				t->param[k].varies = 1;
				w->col[w->k++] = k;
				break;
			}
	}
	if (w->n - 1 - w->k < 1)
		w->k = 0;       /* no residual left to judge the slopes by: the level alone */
}

/* One-sided test of coefficient b (standard error se, df degrees of freedom): bounds and p of its sign. */
static void one_sided(double b, double se, double df, double alpha, double *lo, double *hi, double *p)
{
	if (!(se > 0)) {
		*lo = *hi = b;
		*p = b != 0 ? 0 : 0.5;
		return;
	}
	double q = gsl_cdf_tdist_Qinv(alpha, df) * se;
	*lo = b - q;
	*hi = b + q;
	*p = gsl_cdf_tdist_Q(fabs(b) / se, df);
}

/* One point: the level from its own repetitions. */
static void single_point(const struct trend_input *in, int r, double alpha, struct compare_trend *t)
{
	double h;
	t->level = in->y[r];
	point_reps(in, r, &t->rep_dof, &h);
	t->dof = 0;
	t->df = t->rep_dof;
	t->scale = 1;
	t->weighted = isfinite(in->v[r]);
	t->tested = t->weighted && t->rep_dof > 0;
	if (t->tested) {
		t->level_se = sqrt(in->v[r]);
		one_sided(t->level, t->level_se, t->df, alpha, &t->level_lo, &t->level_hi, &t->level_p);
	}
}

/* A weighted least-squares fit over w's points and parameters, weights 1 / (v + tau2). */
struct wls {
	double *centre;         /* k: the weighted mean of each used parameter's log */
	gsl_vector *c;          /* k + 1 coefficients: level, slopes */
	gsl_matrix *cov;        /* their covariance with the weights taken as exact */
	double chisq;           /* sum of weighted squared residuals */
	double trace;           /* tr((X'WX)^-1 X'W^2 X), for the method of moments */
	double sumw;
};

static void wls_release(struct wls *f)
{
	free(f->centre);
	gsl_vector_free(f->c);
	gsl_matrix_free(f->cov);
}

static int wls_fit(const struct trend_input *in, const struct trend_work *w, double tau2, struct wls *f)
{
	size_t n = (size_t)w->n, m = (size_t)w->k + 1;
	double *wt = xmalloc(sizeof(double) * n);
	f->centre = xcalloc(m, sizeof(double));
	f->sumw = 0;
	for (int i = 0; i < w->n; i++) {
		wt[i] = 1 / (w->v[i] + tau2);
		f->sumw += wt[i];
		for (int j = 0; j < w->k; j++)
			f->centre[j] += wt[i] * log(in->x[(size_t)w->row[i] * in->nparams + w->col[j]]);
	}
	for (int j = 0; j < w->k; j++)
		f->centre[j] /= f->sumw;
	gsl_matrix *X = gsl_matrix_alloc(n, m);
	gsl_vector *y = gsl_vector_alloc(n), *wv = gsl_vector_alloc(n);
	f->c = gsl_vector_alloc(m);
	f->cov = gsl_matrix_alloc(m, m);
	for (size_t i = 0; i < n; i++) {
		int r = w->row[i];
		gsl_matrix_set(X, i, 0, 1);
		for (int j = 0; j < w->k; j++)
			gsl_matrix_set(X, i, (size_t)j + 1,
				       log(in->x[(size_t)r * in->nparams + w->col[j]]) - f->centre[j]);
		gsl_vector_set(y, i, in->y[r]);
		gsl_vector_set(wv, i, wt[i]);
	}
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, m);
	size_t rank;
	int status = gsl_multifit_wlinear_tsvd(X, wv, y, 1e-12, f->c, f->cov, &f->chisq, &rank, ws);
	gsl_multifit_linear_free(ws);
	f->trace = 0;
	for (size_t i = 0; i < n && !status; i++)
		for (size_t a = 0; a < m; a++)
			for (size_t b = 0; b < m; b++)
				f->trace += wt[i] * wt[i] * gsl_matrix_get(X, i, a) * gsl_matrix_get(f->cov, a, b) *
					    gsl_matrix_get(X, i, b);
	gsl_matrix_free(X);
	gsl_vector_free(y);
	gsl_vector_free(wv);
	free(wt);
	return status || rank < m ? -1 : 0;
}

/*
 * The tests' degrees of freedom and the factor on the fit's covariance:
 * without repetitions the scatter alone; when the points scatter no more
 * than their repetitions say, both estimates of the noise pooled; when
 * they do scatter more, the random-effects fit's covariance on the
 * Welch-Satterthwaite combination of the repetitions' part of a point's
 * variance (rep_dof) and the scatter's (the fit's residual dof).
 */
static double test_df(const struct compare_trend *t, const struct trend_work *w, double chisq, double *scale2)
{
	*scale2 = 1;
	if (!t->weighted) {
		*scale2 = chisq / t->dof;
		return t->dof;
	}
	if (t->pooled) {
		*scale2 = (t->rep_dof + chisq) / (t->rep_dof + t->dof);
		return t->rep_dof + t->dof;
	}
	if (!(t->tau2 > 0))
		return t->rep_dof;
	double vbar = 0;
	for (int i = 0; i < w->n; i++)
		vbar += w->v[i] / w->n;
	double f = vbar / (vbar + t->tau2);
	return 1 / (f * f / t->rep_dof + (1 - f) * (1 - f) / t->dof);
}

/* The coefficients' tests from the final fit f, its covariance times scale2. */
static void fill_tests(const struct trend_work *w, const struct wls *f, double scale2, double alpha,
		       struct compare_trend *t)
{
	t->level = gsl_vector_get(f->c, 0);
	t->level_se = sqrt(gsl_matrix_get(f->cov, 0, 0) * scale2);
	one_sided(t->level, t->level_se, t->df, alpha, &t->level_lo, &t->level_hi, &t->level_p);
	t->tested = 1;
	for (int j = 0; j < w->k; j++) {
		struct trend_param *tp = &t->param[w->col[j]];
		tp->tested = 1;
		tp->centre = f->centre[j];
		tp->slope = gsl_vector_get(f->c, (size_t)j + 1);
		double se = sqrt(gsl_matrix_get(f->cov, (size_t)j + 1, (size_t)j + 1) * scale2);
		/* Bonferroni over the parameters tested: "some parameter scales worse" holds at alpha */
		one_sided(tp->slope, se, t->df, alpha / w->k, &tp->lo, &tp->hi, &tp->p);
		tp->p = fmin(1, tp->p * w->k);
		double d = log(2 * tp->xmax) - tp->centre;
		tp->ratio_2x = exp(t->level + tp->slope * d);
		tp->excess_2x_lo = expm1(tp->lo * d);
		tp->excess_2x_hi = expm1(tp->hi * d);
	}
}

/*
 * How the points scatter about the fixed-effect fit fe, against their
 * repetitions: the preliminary F test (scatter_p), and then either the two
 * estimates pooled or tau2 by the method of moments.
 */
static void scatter(const struct wls *fe, struct compare_trend *t)
{
	t->scale = sqrt(fe->chisq / t->dof);
	if (!t->weighted)
		return;
	t->scatter_p = gsl_cdf_fdist_Q(fe->chisq / t->dof, t->dof, t->rep_dof);
	if (t->scatter_p >= COMPARE_TREND_POOL_ALPHA)
		t->pooled = 1;
	else if (fe->sumw > fe->trace)
		t->tau2 = fmax(0, (fe->chisq - t->dof) / (fe->sumw - fe->trace));
}

/* The fixed-effect fit, its scatter, the random-effects fit when needed, and the tests; -1 when GSL fails. */
static int fit(const struct trend_input *in, struct trend_work *w, double alpha, struct compare_trend *t)
{
	struct wls fe = { 0 }, re = { 0 };
	int rc = wls_fit(in, w, 0, &fe);
	t->dof = w->n - w->k - 1;
	t->tau2 = 0;
	t->pooled = 0;
	t->scatter_p = NAN;
	if (!rc && t->dof >= 1)
		scatter(&fe, t);
	if (!rc && !t->weighted && t->dof < 1)
		rc = -1;        /* no repetitions and no scatter: nothing to judge by */
	if (!rc && t->tau2 > 0)
		rc = wls_fit(in, w, t->tau2, &re);
	if (!rc) {
		double scale2;
		t->df = test_df(t, w, fe.chisq, &scale2);
		fill_tests(w, t->tau2 > 0 ? &re : &fe, scale2, alpha, t);
	}
	wls_release(&fe);
	if (t->tau2 > 0)
		wls_release(&re);
	return rc;
}

int compare_pass_variance(const struct exp_values *const *v, int n, double *var, double *df)
{
	*var = NAN;
	*df = 0;
	int J = n > 0 ? INT32_MAX : 0;
	for (int p = 0; p < n; p++)
		J = v[p]->n < J ? v[p]->n : J;
	if (J < 3)
		return -1;
	double *d = xcalloc((size_t)J, sizeof(double));
	int bad = 0;
	for (int p = 0; p < n && !bad; p++) {
		double m = 0;
		for (int j = 0; j < J; j++) {
			bad |= !(v[p]->v[j] > 0);
			m += log(v[p]->v[j]) / J;
		}
		for (int j = 0; j < J && !bad; j++)
			d[j] += (log(v[p]->v[j]) - m) / n;
	}
	double ss = 0;
	for (int j = 0; j < J; j++)
		ss += d[j] * d[j];
	free(d);
	if (bad)
		return -1;
	*var = ss / ((J - 1.0) * J);
	*df = J - 1;
	return 0;
}

/*
 * Unpaired: when the passes say the level varies significantly more than
 * the repetitions do (the host drifted between passes), test the level
 * with the passes' variance and degrees of freedom.
 */
static void level_by_passes(const struct trend_input *in, double alpha, struct compare_trend *t)
{
	t->level_df = t->df;
	if (in->npairs || !t->tested || !isfinite(in->pass_var) || !(in->pass_df >= 1))
		return;
	t->pass_se = sqrt(in->pass_var);
	double se2 = t->level_se * t->level_se;
	if (!(se2 > 0) || !(t->df >= 1) || !(in->pass_var > se2) ||
	    gsl_cdf_fdist_Q(in->pass_var / se2, in->pass_df, t->df) >= COMPARE_TREND_PASS_ALPHA)
		return;
	t->by_passes = 1;
	t->level_se = t->pass_se;
	t->level_df = fmin(t->df, in->pass_df);
	one_sided(t->level, t->level_se, t->level_df, alpha, &t->level_lo, &t->level_hi, &t->level_p);
}

/* The smallest slowdown the level's one-sided test at alpha finds with COMPARE_TREND_POWER. */
static void detectable(struct compare_trend *t, double alpha)
{
	if (!t->tested)
		return;
	if (!(t->level_se > 0)) {
		t->detectable = 0;
		return;
	}
	/* a two-sided test at 2 alpha is the one-sided one, but for a far tail of < alpha */
	int df = t->level_df >= 1 ? (int)floor(t->level_df) : 0;
	t->detectable = power_t_detectable(t->level_se, df, 2 * alpha, COMPARE_TREND_POWER);
}

/* The largest of the points' own one-sided p of a slowdown; NaN when one has no variance. */
static void every_point(const struct trend_input *in, const struct trend_work *w, struct compare_trend *t)
{
	t->point_p_max = 0;
	for (int i = 0; i < w->n; i++) {
		int r = w->row[i], df;
		double h;
		point_reps(in, r, &df, &h);
		if (df < 1 || !(in->v[r] >= 0) || !isfinite(in->v[r])) {
			t->point_p_max = NAN;
			return;
		}
		double p = in->v[r] > 0 ? gsl_cdf_tdist_Q(in->y[r] / sqrt(in->v[r]), df) : in->y[r] > 0 ? 0 : 1;
		t->point_p_max = fmax(t->point_p_max, p);
	}
}

static void trend_init(const struct trend_input *in, struct compare_trend *t)
{
	memset(t, 0, sizeof(*t));
	t->nparams = in->nparams;
	t->paired = in->npairs != NULL;
	t->param = xcalloc((size_t)in->nparams + 1, sizeof(*t->param));
	t->level = t->level_lo = t->level_hi = t->level_p = t->scale = NAN;
	t->level_se = t->df = t->level_df = t->pass_se = t->detectable = t->point_p_max = NAN;
	for (int k = 0; k < in->nparams; k++) {
		struct trend_param *tp = &t->param[k];
		tp->slope = tp->lo = tp->hi = tp->p = tp->centre = tp->ratio_2x = tp->excess_2x_lo = tp->excess_2x_hi = NAN;
		tp->xmax = -INFINITY;
	}
}

void compare_trend_pooled_weights(const struct trend_input *in, double *wt)
{
	double num = 0, den = 0, h;
	int df;
	for (int i = 0; i < in->n; i++) {
		point_reps(in, i, &df, &h);
		if (isfinite(in->y[i]) && df > 0 && isfinite(in->v[i])) {
			num += df * in->v[i] * h;
			den += df;
		}
	}
	double s2 = den > 0 ? num / den : 0;
	for (int i = 0; i < in->n; i++) {
		point_reps(in, i, &df, &h);
		wt[i] = !isfinite(in->y[i]) ? 0 : s2 > 0 ? h / s2 : 1;
	}
}

int compare_trend_fit(const struct trend_input *in, double alpha, struct compare_trend *t,
		      struct perr *err)
{
	gsl_set_error_handler_off();
	trend_init(in, t);
	struct trend_work w = { 0 };
	w.row = xmalloc(sizeof(int) * ((size_t)in->n + 1));
	w.col = xmalloc(sizeof(int) * ((size_t)in->nparams + 1));
	w.v = xmalloc(sizeof(double) * ((size_t)in->n + 1));
	for (int i = 0; i < in->n; i++)
		if (isfinite(in->y[i])) {
			w.row[w.n++] = i;
			for (int k = 0; k < in->nparams; k++)
				t->param[k].xmax = fmax(t->param[k].xmax, in->x[(size_t)i * in->nparams + k]);
		}
	t->npoints = w.n;
	int rc = 0;
	if (w.n == 0) {
		rc = perr_set(err, "no point with a log ratio");
	} else if (w.n == 1) {
		single_point(in, w.row[0], alpha, t);
	} else {
		t->weighted = variances(in, &w, t);
		varying_params(in, &w, t);
		/* a rank-deficient design (parameters that move together): the level alone */
		if (fit(in, &w, alpha, t) < 0 && w.k > 0) {
			w.k = 0;
			for (int k = 0; k < in->nparams; k++)
				t->param[k].tested = 0;
			if (fit(in, &w, alpha, t) < 0)
				rc = perr_set(err, "the trend fit failed");
		}
	}
	if (w.n == 1)
		t->level_df = t->df;
	else
		level_by_passes(in, alpha, t);
	detectable(t, alpha);
	if (w.n > 0)
		every_point(in, &w, t);
	work_release(&w);
	return rc;
}
