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
 * y = df1 f / (df2 + df1 f) at the critical f: Beta(df1/2, df2/2)'s upper
 * alpha quantile.  GSL's inverses fail for some large df2 (F(1, 597) at
 * 0.01); then bisection on its tail, which does not.
 */
static double critical_y(int df1, int df2, double alpha)
{
	double a = df1 / 2.0, b = df2 / 2.0, y = gsl_cdf_beta_Qinv(alpha, a, b);
	if (isfinite(y))
		return y;
	double lo = 0, hi = 1;
	for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		y = (lo + hi) / 2;
		if (gsl_cdf_beta_Q(y, a, b) > alpha)
			lo = y;
		else
			hi = y;
	}
	return (lo + hi) / 2;
}

/*
 * The noncentral F tail as a Poisson mixture of central ones:
 * P(F' > f) = sum_j Poisson(j; lambda/2) * Q_beta(y; df1/2 + j, df2/2),
 * y = df1 f / (df2 + df1 f).  The terms within 9 standard deviations (+12)
 * of the Poisson mean carry all but about 1e-15 of the weight; the rest is
 * left out.
 */
double power_f(double lambda, int df1, int df2, double alpha)
{
	if (df1 < 1 || df2 < 1 || !(lambda >= 0) || lambda > POWER_LAMBDA_MAX)
		return NAN;
	gsl_set_error_handler_off();
	double y = critical_y(df1, df2, alpha);
	double mu = lambda / 2, spread = 9 * sqrt(mu) + 12, sum = 0;
	int jlo = (int)fmax(0, mu - spread), jhi = (int)(mu + spread);
	for (int j = jlo; j <= jhi; j++) {
		double w = mu > 0 ? gsl_ran_poisson_pdf((unsigned)j, mu) : j == 0;
		if (w > 0)
			sum += w * gsl_cdf_beta_Q(y, df1 / 2.0 + j, df2 / 2.0);
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

/*
 * A first guess: for df1 = 1 the textbook (t(1 - alpha/2) + t(power))^2,
 * else 16.  Bracket the root by steps of 1.5 from there (every step costs
 * a series), then Brent.
 */
double power_f_lambda(int df1, int df2, double alpha, double power)
{
	struct f_target t = { df1, df2, alpha, power };
	if (df1 < 1 || df2 < 1)
		return NAN;
	if (f_gap(0, &t) >= 0)
		return 0;
	double guess = 16;
	if (df1 == 1) {
		double d = gsl_cdf_tdist_Qinv(alpha / 2, df2) + gsl_cdf_tdist_Qinv(1 - power, df2);
		guess = fmin(d * d, POWER_LAMBDA_MAX);
	}
	double lo = guess, hi = guess;
	if (f_gap(guess, &t) > 0) {
		do
			lo /= 1.5;
		while (lo > 1e-3 && f_gap(lo, &t) > 0);
		hi = fmin(lo * 1.5, guess);
		if (lo <= 1e-3)
			lo = 0;
	} else {
		do {
			if (hi >= POWER_LAMBDA_MAX)
				return NAN;
			lo = hi;
			hi = fmin(hi * 1.5, POWER_LAMBDA_MAX);
		} while (!(f_gap(hi, &t) > 0));
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
		if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0, 1e-6) ==
		    GSL_SUCCESS)
			break;
	}
	gsl_root_fsolver_free(s);
	return root;
}
