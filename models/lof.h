/*
 * The lack-of-fit test behind robust model selection: is a hypothesis
 * rejected by the data, given the noise the repetitions show?
 *
 * Noise is measured in relative terms, because run times spread in
 * proportion to their size: the pooled relative pure-error variance
 *
 *   s2 = sum_i sum_j (v_ij - mean_i)^2 / mean_i^2 / sum_i (r_i - 1)
 *
 * over every point's kept repetitions (dof = sum_i (r_i - 1)), floored at
 * LOF_MIN_REL_SD^2 so that exact data do not make every model fail.  The
 * variance of point i's estimate is then factor * s2 * y_i^2 / r_i, where
 * factor is 1 for the mean, pi/2 for the median and 2 for the minimum.
 *
 * A hypothesis with k coefficients is fitted by weighted least squares
 * (weights r_i / y_i^2: relative residuals) and its statistic
 *
 *   F = sum_i r_i ((y_i - f_i) / y_i)^2 / (factor * s2) / (n - k)
 *
 * follows F(n - k, dof) when the hypothesis is true; it is rejected when
 * the upper tail probability is below alpha.  With n == k the hypothesis
 * interpolates the points and cannot be rejected (p = 1).
 *
 * Invariants: pure functions (lof_accepts keeps a per-thread cache of
 * critical values); arrays are only read.
 */
#ifndef PS_LOF_H
#define PS_LOF_H
#include "models/points.h"

#define LOF_MIN_REL_SD 0.001
/*
 * Hypotheses with as many coefficients whose chi-square is within this of
 * the best one's are equally supported by the data (a difference of 2 in
 * AIC; Burnham and Anderson): the robust selection takes the simplest.
 */
#define LOF_TIE_CHI2 2.0

struct lof_noise {
	double s2;              /* pooled relative pure-error variance (floored) */
	int dof;                /* its degrees of freedom; 0: no repetitions, no test */
	double factor;          /* variance factor of the aggregate */
};

/* Pool the pure error of n point estimates aggregated with how. */
void lof_noise_pool(const struct point_estimate *pe, int n, enum model_aggregate how,
		    struct lof_noise *out);

/* The weighted chi-square sum of residuals f - y (n points, r repetitions each). */
double lof_chi2(const double *f, const double *y, const double *r, int n, const struct lof_noise *nz);

/* The upper tail probability of chi2 for k coefficients on n points (1 when n <= k). */
double lof_p(double chi2, int n, int k, const struct lof_noise *nz);

/*
 * lof_p(chi2, n, k, nz) >= alpha, the same answer for every input, without
 * the tail probability unless chi2 is within LOF_CRIT_MARGIN (relative) of
 * the critical value.
 */
#define LOF_CRIT_MARGIN 1e-6
int lof_accepts(double chi2, int n, int k, const struct lof_noise *nz, double alpha);

/*
 * Weighted fit of y = c0 + c1 * t (c1 fixed at 0 when t is NULL) with
 * weights r_i / y_i^2.  Returns 0 with *c0, *c1 and *chi2 set, or -1 when
 * the system is degenerate (constant t, non-positive or non-finite y).
 */
int lof_fit_line(const double *t, const double *y, const double *r, int n,
		 const struct lof_noise *nz, double *c0, double *c1, double *chi2);

/*
 * The trend test of a rejected hypothesis: do its relative residuals
 * e_i = (y_i - f_i) / y_i follow the coordinates?  A wrong law leaves a
 * trend (a missing log2(n) factor: residuals that grow with n); points that
 * scatter about the right law by more than their repetitions show (a
 * program's behaviour at particular sizes, the host's level when each was
 * measured) leave none.  e is regressed, with weights r_i, on an intercept
 * and, per parameter with at least two values, ln x and (with three or
 * more) (ln x)^2 (x itself when a coordinate is not positive); the F-test
 * of those columns against the intercept alone, with the scatter about
 * the regression as the error, gives the p-value.  Returns 0 with *p set,
 * or -1 when there is no column or too few points (fewer than 3 degrees of
 * freedom for the error).  x is n x m, row-major.
 */
int lof_trend_p(const double *e, const double *r, const double *x, int n, int m, double *p);

#endif
