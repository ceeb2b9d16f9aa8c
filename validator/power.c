/* The smallest effect a t or F test detects at a given level and power. */
#include "validator/power.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>
#include <math.h>

double power_t_detectable(double se, int df, double alpha, double power)
{
	if (df < 1 || !isfinite(se) || se < 0)
		return NAN;
	return sqrt(power_f_lambda(1, df, alpha, power)) * se;
}

/*
 * The noncentral F tail as a Poisson mixture of central ones:
 * P(F' > f) = sum_j Poisson(j; lambda/2) * I_{1-y}(df2/2, df1/2 + j),
 * y = df1 f / (df2 + df1 f), summed until the weights left are below 1e-14.
 */
double power_f(double lambda, int df1, int df2, double alpha)
{
	if (df1 < 1 || df2 < 1 || !(lambda >= 0) || lambda > POWER_LAMBDA_MAX)
		return NAN;
	double f = gsl_cdf_fdist_Qinv(alpha, df1, df2);
	double y = df1 * f / (df2 + df1 * f);
	double mu = lambda / 2, sum = 0, wsum = 0;
	int jmax = (int)(mu + 12 * sqrt(mu) + 60);
	for (int j = 0; j <= jmax && wsum < 1 - 1e-14; j++) {
		double w = mu > 0 ? gsl_ran_poisson_pdf((unsigned)j, mu) : 1;
		sum += w * gsl_cdf_beta_Q(y, df1 / 2.0 + j, df2 / 2.0);
		wsum += w;
	}
	return sum;
}

struct f_target {
	int df1, df2;
	double alpha, power;
};

static double f_gap(double lambda, void *arg)
{
	const struct f_target *t = arg;
	return power_f(lambda, t->df1, t->df2, t->alpha) - t->power;
}

/* Bracket the root by doubling from lambda 16 (cheap: the series is short at small lambda), then Brent. */
double power_f_lambda(int df1, int df2, double alpha, double power)
{
	struct f_target t = { df1, df2, alpha, power };
	if (df1 < 1 || df2 < 1)
		return NAN;
	if (f_gap(0, &t) >= 0)
		return 0;
	double lo = 0, hi = 16;
	while (!(f_gap(hi, &t) > 0)) {
		if (hi >= POWER_LAMBDA_MAX)
			return NAN;
		lo = hi;
		hi = fmin(2 * hi, POWER_LAMBDA_MAX);
	}
	gsl_set_error_handler_off();
	gsl_function fn = { f_gap, &t };
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	double root = NAN;
	gsl_root_fsolver_set(s, &fn, lo, hi);
	for (int i = 0; i < 100; i++) {
		if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
			break;
		root = gsl_root_fsolver_root(s);
		if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0, 1e-9) ==
		    GSL_SUCCESS)
			break;
	}
	gsl_root_fsolver_free(s);
	return root;
}
