/* The level and trend of a region's ratio NEW/BASE (see compare_trend.h). */
#include "common/xalloc.h"
#include "validator/compare_trend.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void compare_trend_release(struct compare_trend *t)
{
	free(t->param);
	memset(t, 0, sizeof(*t));
}

/* The working set: the usable points, their weights and the parameters that vary. */
struct trend_work {
	int n, k;               /* points used, parameters used */
	int *row;               /* n: index into the input */
	int *col;               /* k: parameter index */
	double *w;              /* n: weights */
};

static void work_release(struct trend_work *w)
{
	free(w->row);
	free(w->col);
	free(w->w);
}

/*
 * Weights 1 / v', v' = (v + pooled) / 2, pooled = the region's per-repetition
 * variance s2 scaled to the point's repetitions.  Returns 1 when weighted,
 * 0 when no variance is known (equal weights).
 */
static int weights(const struct trend_input *in, struct trend_work *w, struct compare_trend *t)
{
	double num = 0, den = 0;
	for (int i = 0; i < w->n; i++) {
		int r = w->row[i], df = in->nbase[r] + in->nnew[r] - 2;
		double h = 1 / (1.0 / in->nbase[r] + 1.0 / in->nnew[r]);
		if (df > 0 && isfinite(in->v[r])) {
			num += df * in->v[r] * h;
			den += df;
			t->rep_dof += df;
		}
	}
	double s2 = den > 0 ? num / den : 0;
	for (int i = 0; i < w->n; i++) {
		int r = w->row[i];
		double pooled = s2 / (1 / (1.0 / in->nbase[r] + 1.0 / in->nnew[r]));
		double v = isfinite(in->v[r]) ? (in->v[r] + pooled) / 2 : pooled;
		w->w[i] = s2 > 0 ? 1 / v : 1;
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

/* Half-width at 1 - alpha and two-sided p of coefficient b with standard error se on dof. */
static void t_test(double b, double se, int dof, double alpha, double *half, double *p)
{
	if (!(se > 0)) {
		*half = 0;
		*p = b != 0 ? 0 : 1;
		return;
	}
	*half = gsl_cdf_tdist_Qinv(alpha / 2, dof) * se;
	*p = 2 * gsl_cdf_tdist_Q(fabs(b) / se, dof);
}

/*
 * Interval and p of coefficient b whose unscaled variance is var: the
 * wider of the repetitions' (on their degrees of freedom) and the
 * scatter's (var * chi2 / dof, on the fit's); equal weights: the scatter's.
 */
static void coef_test(const struct compare_trend *t, double b, double var, double alpha, double *lo,
		      double *hi, double *p)
{
	double half, pv, h2, p2;
	t_test(b, sqrt(var) * t->scale, t->dof, alpha, &half, &pv);
	if (t->weighted && t->rep_dof > 0) {
		t_test(b, sqrt(var), t->rep_dof, alpha, &h2, &p2);
		half = fmax(half, h2);
		pv = fmax(pv, p2);
	}
	*lo = b - half;
	*hi = b + half;
	*p = pv;
}

/* One point: the level from its own repetitions (Welch-like, on their pooled degrees of freedom). */
static void single_point(const struct trend_input *in, int r, double alpha, struct compare_trend *t)
{
	t->level = in->y[r];
	t->dof = t->rep_dof = in->nbase[r] + in->nnew[r] - 2;
	t->scale = 1;
	t->weighted = isfinite(in->v[r]);
	t->tested = t->weighted && t->dof > 0;
	if (t->tested)
		coef_test(t, t->level, in->v[r], alpha, &t->level_lo, &t->level_hi, &t->level_p);
}

/* The weighted least-squares fit over w's points and parameters; -1 when GSL fails. */
static int fit(const struct trend_input *in, struct trend_work *w, double alpha, struct compare_trend *t)
{
	size_t n = (size_t)w->n, m = (size_t)w->k + 1;
	double *centre = xcalloc(m, sizeof(double));
	double sw = 0;
	for (int i = 0; i < w->n; i++) {
		sw += w->w[i];
		for (int j = 0; j < w->k; j++)
			centre[j] += w->w[i] * log(in->x[(size_t)w->row[i] * in->nparams + w->col[j]]);
	}
	gsl_matrix *X = gsl_matrix_alloc(n, m), *cov = gsl_matrix_alloc(m, m);
	gsl_vector *y = gsl_vector_alloc(n), *wv = gsl_vector_alloc(n), *c = gsl_vector_alloc(m);
	for (int j = 0; j < w->k; j++)
		centre[j] /= sw;
	for (size_t i = 0; i < n; i++) {
		int r = w->row[i];
		gsl_matrix_set(X, i, 0, 1);
		for (int j = 0; j < w->k; j++)
			gsl_matrix_set(X, i, (size_t)j + 1,
				       log(in->x[(size_t)r * in->nparams + w->col[j]]) - centre[j]);
		gsl_vector_set(y, i, in->y[r]);
		gsl_vector_set(wv, i, w->w[i]);
	}
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, m);
	double chisq;
	size_t rank;
	int status = gsl_multifit_wlinear_tsvd(X, wv, y, 1e-12, c, cov, &chisq, &rank, ws);
	gsl_multifit_linear_free(ws);
	int rc = status || rank < m ? -1 : 0;
	if (!rc) {
		t->dof = w->n - (int)m;
		t->scale = sqrt(chisq / t->dof);
		t->level = gsl_vector_get(c, 0);
		coef_test(t, t->level, gsl_matrix_get(cov, 0, 0), alpha, &t->level_lo, &t->level_hi, &t->level_p);
		t->tested = 1;
		for (int j = 0; j < w->k; j++) {
			struct trend_param *tp = &t->param[w->col[j]];
			tp->tested = 1;
			tp->centre = centre[j];
			tp->slope = gsl_vector_get(c, (size_t)j + 1);
			coef_test(t, tp->slope, gsl_matrix_get(cov, (size_t)j + 1, (size_t)j + 1), alpha, &tp->lo,
				  &tp->hi, &tp->p);
			double d = log(2 * tp->xmax) - tp->centre;
			tp->ratio_2x = exp(t->level + tp->slope * d);
			tp->excess_2x_lo = expm1(tp->lo * d);
			tp->excess_2x_hi = expm1(tp->hi * d);
		}
	}
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(wv);
	gsl_vector_free(c);
	free(centre);
	return rc;
}

int compare_trend_fit(const struct trend_input *in, double alpha, struct compare_trend *t,
		      struct perr *err)
{
	memset(t, 0, sizeof(*t));
	gsl_set_error_handler_off();
	t->nparams = in->nparams;
	t->param = xcalloc((size_t)in->nparams + 1, sizeof(*t->param));
	t->level = t->level_lo = t->level_hi = t->level_p = t->scale = NAN;
	for (int k = 0; k < in->nparams; k++) {
		struct trend_param *tp = &t->param[k];
		tp->slope = tp->lo = tp->hi = tp->p = tp->centre = tp->ratio_2x = tp->excess_2x_lo = tp->excess_2x_hi = NAN;
		tp->xmax = -INFINITY;
	}
	struct trend_work w = { 0 };
	w.row = xmalloc(sizeof(int) * ((size_t)in->n + 1));
	w.col = xmalloc(sizeof(int) * ((size_t)in->nparams + 1));
	w.w = xmalloc(sizeof(double) * ((size_t)in->n + 1));
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
		t->weighted = weights(in, &w, t);
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
	work_release(&w);
	return rc;
}
