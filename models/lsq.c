/* Least-squares helpers (lsq.h). */
#include "models/lsq.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <math.h>

int lsq_rss(const gsl_matrix *X, size_t k, const gsl_vector *w, const gsl_vector *y, gsl_vector **coef,
	    double *rss)
{
	gsl_matrix_const_view xv = gsl_matrix_const_submatrix(X, 0, 0, X->size1, k);
	gsl_vector *c = gsl_vector_alloc(k);
	gsl_matrix *cov = gsl_matrix_alloc(k, k);
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(X->size1, k);
	int st = w ? gsl_multifit_wlinear(&xv.matrix, w, y, c, cov, rss, ws)
		   : gsl_multifit_linear(&xv.matrix, y, c, cov, rss, ws);
	gsl_multifit_linear_free(ws);
	gsl_matrix_free(cov);
	if (coef && !st)
		*coef = c;
	else
		gsl_vector_free(c);
	return st;
}

double lsq_partial_f(double rss_base, double *rss_full, int df1, int df2, double *f)
{
	if (*rss_full > rss_base)
		*rss_full = rss_base;
	if (*rss_full > 0) {
		*f = ((rss_base - *rss_full) / df1) / (*rss_full / df2);
		return gsl_cdf_fdist_Q(*f, df1, df2);
	}
	*f = rss_base > 0 ? INFINITY : 0;
	return rss_base > 0 ? 0 : 1;
}
