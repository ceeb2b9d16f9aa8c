/*
 * A trend in NEW/BASE that a fixed part explains.  A program's time is
 * often a fixed part (start-up, MPI initialisation, reading the input)
 * plus the work that scales.  When NEW changes only the work, by a
 * constant factor beta, and the fixed part s is the same on both sides,
 *
 *     NEW_i = s + beta * (BASE_i - s),
 *
 * and the ratio NEW/BASE = beta - (beta - 1) * s / BASE_i rises with the
 * problem size (the fixed part weighs less in larger runs) but levels off
 * at beta: a constant change of the work, not a scaling change, although
 * the log ratio's trend along a parameter is significant (LAMMPS's whole
 * run with a larger neighbour skin: the pair and neighbour work +45-54%,
 * the start-up unchanged).
 *
 * The fit: s on a grid over [0, min BASE_i), beta by golden-section search
 * of the weighted squared error of the log ratios (weights from the
 * repetitions' pooled variance, compare_trend_pooled_weights; not the
 * trend fit's tau2: that scatter is the trend model's misfit, and it would
 * hide the fixed part's).  The fixed part explains the trend when
 *   1. s > 0 (s = 0 is the constant ratio the trend test already rejected),
 *   2. the points do not scatter about it beyond what their repetitions say
 *      (chi2 / (n - 2) against F(n - 2, rep_dof) at alpha: a step at the
 *      larger points, which the curve s + beta * (BASE - s) follows about
 *      as well as a power-law trend does, is told apart here), and
 *   3. its residuals show no trend of their own: the trend test of
 *      compare_trend.h on the residuals finds no parameter whose slope is
 *      significant and adds more than the tolerance at twice its largest
 *      value (the same rule as a scaling change).
 * Both tests are as sensitive as the trend test itself, so that a change
 * that really grows with a parameter (a larger exponent, a step at the
 * larger points) is not explained away where the data can tell.
 *
 * Pure: no I/O, no global state.
 */
#ifndef PS_COMPARE_FIXED_H
#define PS_COMPARE_FIXED_H
#include "validator/compare_trend.h"

struct fixed_part {
	int tested;             /* enough points (3 or more with positive base values) */
	int explains;           /* conditions 1-3 above hold */
	double s;               /* the fixed part, in the metric's unit */
	double beta;            /* the factor on the rest */
	double fit_p;           /* condition 2's p (NaN when no noise is known) */
	double trend_p;         /* condition 3: the smallest residual slope's p, NaN when none was tested */
};

/*
 * Fit the points of in (their base values base[i], > 0) given the region's
 * trend fit t; alpha and tol as compare's.  Fills fp; never fails.
 */
void compare_fixed_fit(const struct trend_input *in, const double *base, const struct compare_trend *t,
		       double alpha, double tol, struct fixed_part *fp);

#endif
