/* Drift of measured / expected volume across the design: log-log regression and F-test. */
#include "validator/volume.h"
#include "common/xalloc.h"
#include "models/lsq.h"
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int usable(const struct experiment *e, const double *expected, int p)
{
	if (!(expected[p] > 0) || !isfinite(expected[p]))
		return 0;
	for (int k = 0; k < e->nparams; k++)
		if (!(experiment_coord(e, p, k) > 0))
			return 0;
	return 1;
}

/* The ratio range and every parameter's range over the usable points; returns the values used. */
static int ratio_ranges(const struct experiment *e, const struct exp_series *s, const double *expected,
			struct volume_result *r, double *lo, double *hi, int *first)
{
	int nobs = 0;
	*first = 1;
	for (int p = 0; p < e->npoints; p++) {
		if (!usable(e, expected, p))
			continue;
		const struct exp_values *v = &s->at[p];
		double sum = 0;
		int n = 0;
		for (int k = 0; k < v->n; k++)
			if (v->v[k] > 0) {
				sum += v->v[k];
				n++;
			}
		if (!n)
			continue;
		nobs += n;
		double ratio = sum / n / expected[p];
		if (*first || ratio < r->ratio_min)
			r->ratio_min = ratio;
		if (*first || ratio > r->ratio_max)
			r->ratio_max = ratio;
		for (int k = 0; k < e->nparams; k++) {
			double x = experiment_coord(e, p, k);
			if (*first || x < lo[k])
				lo[k] = x;
			if (*first || x > hi[k])
				hi[k] = x;
		}
		*first = 0;
	}
	return nobs;
}

/* The regression's rows: log(value / expected) on log(x) of the columns' parameters. */
static void fill_rows(const struct experiment *e, const struct exp_series *s, const double *expected,
		      const int *col_of, gsl_matrix *x, gsl_vector *y)
{
	size_t i = 0;
	for (int p = 0; p < e->npoints; p++) {
		if (!usable(e, expected, p))
			continue;
		const struct exp_values *v = &s->at[p];
		for (int j = 0; j < v->n; j++) {
			if (!(v->v[j] > 0))
				continue;
			gsl_vector_set(y, i, log(v->v[j] / expected[p]));
			gsl_matrix_set(x, i, 0, 1.0);
			for (int k = 0; k < e->nparams; k++)
				if (col_of[k] >= 0)
					gsl_matrix_set(x, i, (size_t)col_of[k], log(experiment_coord(e, p, k)));
			i++;
		}
	}
}

/* The partial F-test of the considered slopes and the largest drift. */
static void drift_test(const struct experiment *e, const int *vary, const int *consider, const int *col_of,
		       const double *lo, const double *hi, const gsl_vector *c, double rss_full,
		       double rss_base, int ncons, int nobs, size_t ncols, struct volume_result *r)
{
	r->df1 = ncons;
	r->df2 = nobs - (int)ncols;
	r->p_value = lsq_partial_f(rss_base, &rss_full, r->df1, r->df2, &r->f);
	for (int k = 0; k < e->nparams; k++) {
		if (!vary[k] || (consider && !consider[k]))
			continue;
		double g = pow(hi[k] / lo[k], gsl_vector_get(c, (size_t)col_of[k])) - 1;
		if (r->param < 0 || fabs(g) > fabs(r->growth)) {
			r->param = k;
			r->growth = g;
		}
	}
}

int volume_test(const struct experiment *e, const struct exp_series *s, const double *expected,
		const int *consider, struct volume_result *r, struct perr *err)
{
	memset(r, 0, sizeof(*r));
	r->param = -1;
	r->ratio_min = r->ratio_max = r->growth = r->f = r->p_value = NAN;
	if (!s)
		return 0;
	gsl_set_error_handler_off();
	size_t np = (size_t)(e->nparams ? e->nparams : 1);
	int *vary = xcalloc(np, sizeof(int)), *col_of = xmalloc(sizeof(int) * np), first;
	double *lo = xmalloc(sizeof(double) * np), *hi = xmalloc(sizeof(double) * np);
	int nobs = ratio_ranges(e, s, expected, r, lo, hi, &first);
	/* columns: intercept, nuisance parameters, considered parameters */
	int nnuis = 0, ncons = 0;
	for (int k = 0; k < e->nparams; k++) {
		vary[k] = !first && hi[k] > lo[k];
		col_of[k] = -1;
		if (vary[k] && consider && !consider[k])
			col_of[k] = 1 + nnuis++;
	}
	for (int k = 0; k < e->nparams; k++)
		if (vary[k] && (!consider || consider[k]))
			col_of[k] = 1 + nnuis + ncons++;
	r->nobs = nobs;
	int rc = 0;
	size_t ncols = 1 + (size_t)(nnuis + ncons);
	if (ncons > 0 && nobs > (int)ncols) {
		gsl_matrix *x = gsl_matrix_alloc((size_t)nobs, ncols);
		gsl_vector *y = gsl_vector_alloc((size_t)nobs), *c = NULL;
		fill_rows(e, s, expected, col_of, x, y);
		double rss_full, rss_base;
		int st = lsq_rss(x, ncols, NULL, y, &c, &rss_full);
		if (!st)
			st = lsq_rss(x, 1 + (size_t)nnuis, NULL, y, NULL, &rss_base);
		rc = st ? perr_set(err, "least squares failed: %s", gsl_strerror(st)) : 1;
		if (rc == 1)
			drift_test(e, vary, consider, col_of, lo, hi, c, rss_full, rss_base, ncons, nobs, ncols, r);
		if (c)
			gsl_vector_free(c);
		gsl_matrix_free(x);
		gsl_vector_free(y);
	}
	free(col_of);
	free(vary);
	free(lo);
	free(hi);
	return rc;
}
