/* Power-law fits on logarithms (GSL truncated SVD). */
#include "models/powerlaw.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>

int model_power_law(const double *x, const double *y, int n, int m, double *c, double *a,
		    struct perr *err)
{
	if (n < m + 2)
		return perr_set(err, "%d points; a power law over %d parameters needs at least %d", n, m, m + 2);
	for (int i = 0; i < n; i++)
		for (int j = -1; j < m; j++)
			if (!((j < 0 ? y[i] : x[(size_t)i * (size_t)m + (size_t)j]) > 0))
				return perr_set(err, "a value at point %d is not positive", i + 1);
	gsl_set_error_handler_off();
	gsl_matrix *X = gsl_matrix_alloc((size_t)n, (size_t)m + 1);
	gsl_vector *ly = gsl_vector_alloc((size_t)n), *coef = gsl_vector_alloc((size_t)m + 1);
	gsl_matrix *cov = gsl_matrix_alloc((size_t)m + 1, (size_t)m + 1);
	for (int i = 0; i < n; i++) {
		gsl_matrix_set(X, (size_t)i, 0, 1);
		for (int j = 0; j < m; j++)
			gsl_matrix_set(X, (size_t)i, (size_t)j + 1, log(x[(size_t)i * (size_t)m + (size_t)j]));
		gsl_vector_set(ly, (size_t)i, log(y[i]));
	}
	double chisq;
	size_t rank;
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc((size_t)n, (size_t)m + 1);
	int status = gsl_multifit_linear_tsvd(X, ly, 1e-12, coef, cov, &chisq, &rank, w);
	if (status == GSL_SUCCESS) {
		*c = exp(gsl_vector_get(coef, 0));
		for (int j = 0; j < m; j++)
			a[j] = gsl_vector_get(coef, (size_t)j + 1);
	}
	gsl_multifit_linear_free(w);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(ly);
	gsl_vector_free(coef);
	if (status != GSL_SUCCESS)
		return perr_set(err, "%s", gsl_strerror(status));
	return 0;
}
