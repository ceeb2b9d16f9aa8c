/*
 * Least-squares helpers over GSL for the tests that compare a basis with a
 * larger one: the residual sum of squares on the first k columns of a
 * design matrix, and the partial F-test of the extra columns.  The
 * volume-contradiction and false-dependency checks (validator/) and the
 * trend test (lof.h) use them.  Pure functions.
 */
#ifndef PS_LSQ_H
#define PS_LSQ_H
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

/*
 * Least squares of y on the first k columns of X, weighted by w (NULL:
 * ordinary): *rss its residual sum of squares, and *coef (when coef is not
 * NULL) its k coefficients, which the caller frees.  0, or GSL's status
 * (nothing allocated then).
 */
int lsq_rss(const gsl_matrix *X, size_t k, const gsl_vector *w, const gsl_vector *y, gsl_vector **coef,
	    double *rss);

/*
 * The partial F-test of df1 extra columns with df2 residual degrees of
 * freedom: *rss_full is first clamped to rss_base (rounding: the larger
 * basis never fits worse), then *f = ((rss_base - rss_full) / df1) /
 * (rss_full / df2) and the upper-tail p-value is returned; an exact full
 * fit gives f infinite and p 0 when the base misses, f 0 and p 1 when it
 * does not.
 */
double lsq_partial_f(double rss_base, double *rss_full, int df1, int df2, double *f);

#endif
