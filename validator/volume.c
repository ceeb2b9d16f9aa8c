/* Drift of measured / expected volume across the design: log-log regression and F-test. */
#include "validator/volume.h"
#include "common/xalloc.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
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

int volume_test(const struct experiment *e, const struct exp_series *s, const double *expected,
		struct volume_result *r, struct perr *err)
{
	memset(r, 0, sizeof(*r));
	r->param = -1;
	r->ratio_min = r->ratio_max = r->growth = r->f = r->p_value = NAN;
	if (!s)
		return 0;
	gsl_set_error_handler_off();
	/* parameters that vary over the usable points */
	int *vary = xcalloc((size_t)(e->nparams ? e->nparams : 1), sizeof(int));
	double *lo = xmalloc(sizeof(double) * (size_t)(e->nparams ? e->nparams : 1));
	double *hi = xmalloc(sizeof(double) * (size_t)(e->nparams ? e->nparams : 1));
	int nvary = 0, nobs = 0, first = 1;
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
		if (first || ratio < r->ratio_min)
			r->ratio_min = ratio;
		if (first || ratio > r->ratio_max)
			r->ratio_max = ratio;
		for (int k = 0; k < e->nparams; k++) {
			double x = experiment_coord(e, p, k);
			if (first || x < lo[k])
				lo[k] = x;
			if (first || x > hi[k])
				hi[k] = x;
		}
		first = 0;
	}
	int *col_of = xmalloc(sizeof(int) * (size_t)(e->nparams ? e->nparams : 1));
	for (int k = 0; k < e->nparams; k++) {
		vary[k] = !first && hi[k] > lo[k];
		col_of[k] = vary[k] ? 1 + nvary++ : -1;
	}
	r->nobs = nobs;
	int rc = 0;
	size_t ncols = 1 + (size_t)nvary;
	if (nvary == 0 || nobs <= (int)ncols)
		goto done;
	gsl_matrix *x = gsl_matrix_alloc((size_t)nobs, ncols);
	gsl_vector *y = gsl_vector_alloc((size_t)nobs);
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
				if (vary[k])
					gsl_matrix_set(x, i, (size_t)col_of[k], log(experiment_coord(e, p, k)));
			i++;
		}
	}
	gsl_vector *c = gsl_vector_alloc(ncols);
	gsl_matrix *cov = gsl_matrix_alloc(ncols, ncols);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc((size_t)nobs, ncols);
	double rss_full;
	int st = gsl_multifit_linear(x, y, c, cov, &rss_full, w);
	if (st) {
		rc = perr_set(err, "least squares failed: %s", gsl_strerror(st));
	} else {
		double mean = 0, tss = 0;
		for (size_t j = 0; j < (size_t)nobs; j++)
			mean += gsl_vector_get(y, j);
		mean /= nobs;
		for (size_t j = 0; j < (size_t)nobs; j++)
			tss += (gsl_vector_get(y, j) - mean) * (gsl_vector_get(y, j) - mean);
		r->df1 = nvary;
		r->df2 = nobs - (int)ncols;
		if (rss_full > 0) {
			r->f = ((tss - rss_full) / r->df1) / (rss_full / r->df2);
			r->p_value = r->f > 0 ? gsl_cdf_fdist_Q(r->f, r->df1, r->df2) : 1;
		} else {
			r->f = tss > 0 ? INFINITY : 0;
			r->p_value = tss > 0 ? 0 : 1;
		}
		for (int k = 0; k < e->nparams; k++) {
			if (!vary[k])
				continue;
			double g = pow(hi[k] / lo[k], gsl_vector_get(c, (size_t)col_of[k])) - 1;
			if (r->param < 0 || fabs(g) > fabs(r->growth)) {
				r->param = k;
				r->growth = g;
			}
		}
		rc = 1;
	}
	gsl_multifit_linear_free(w);
	gsl_matrix_free(cov);
	gsl_vector_free(c);
	gsl_matrix_free(x);
	gsl_vector_free(y);
done:
	free(col_of);
	free(vary);
	free(lo);
	free(hi);
	return rc;
}
