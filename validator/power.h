/*
 * The power of the validator's tests: the smallest effect a test at level
 * alpha detects with probability `power`, given the noise it measured.
 *
 *   F test with df1, df2 degrees of freedom: its power at noncentrality
 *   lambda, exactly, from the noncentral F distribution as a Poisson
 *   mixture of central ones (GSL's beta tails and Poisson weights).
 *
 *   Two-sided Student t test of one coefficient with standard error se on
 *   df degrees of freedom: t^2 is F(1, df) with noncentrality (delta/se)^2,
 *   so delta = sqrt(lambda) * se at the lambda where F(1, df) reaches the
 *   power (both tails counted, no normal approximation).
 *
 * Pure: no I/O, no global state.  alpha and power lie in (0, 1).
 */
#ifndef PS_POWER_H
#define PS_POWER_H

/* The largest noncentrality handled (an effect of about 32 standard
   errors); an effect that needs more is not "detectable". */
#define POWER_LAMBDA_MAX 1e3

/* delta for the t test; NaN when df < 1 or se is not finite. */
double power_t_detectable(double se, int df, double alpha, double power);

/* Probability that the F test at level alpha rejects at noncentrality lambda. */
double power_f(double lambda, int df1, int df2, double alpha);

/* The noncentrality at which the F test reaches power; NaN when the
   degrees of freedom are < 1 or no lambda up to POWER_LAMBDA_MAX reaches it. */
double power_f_lambda(int df1, int df2, double alpha, double power);

#endif
