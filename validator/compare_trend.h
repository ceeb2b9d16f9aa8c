/*
 * The change of one region over all its common points together: how much
 * slower NEW is than BASE (the level), and whether that ratio trends along
 * a parameter (a scaling change).  A weighted least-squares fit of the
 * per-point log ratios y_i = log(new/base) at point i on the logarithms of
 * the parameters, centred at their weighted means c_k:
 *
 *     y_i = level + sum_k slope_k * (log x_ik - c_k) + e_i
 *
 * so exp(level) is the constant part of the change (the weighted geometric
 * mean ratio) and slope_k the trend along parameter k with the others as
 * covariates.  Weights are 1 / v_i, v_i the variance of y_i from the
 * repetitions, halfway shrunk to the region's pooled variance (three
 * repetitions give a variance with 2 degrees of freedom, too rough to
 * weight by alone).  Each interval is the wider of two Student t
 * intervals: from the repetitions (the fit's covariance as it is, on the
 * repetitions' pooled degrees of freedom) and from the scatter of the
 * points around the fit (the covariance times chi2 / dof, on dof = points
 * - 1 - parameters), and its p the larger of the two.  So the points must
 * move more than their repetitions vary and more than they scatter around
 * the fit (runs of one point that shared a slow moment, a ratio that is
 * not a power law).  Without variances (single repetitions) only the
 * scatter's applies.
 *
 * A parameter is tested when it takes two or more values at the points
 * and the fit keeps at least one residual degree of freedom; otherwise
 * only the level is (with one point: from its own repetitions).
 *
 * Pure: no I/O, no global state (GSL's error handler is switched off).
 */
#ifndef PS_COMPARE_TREND_H
#define PS_COMPARE_TREND_H
#include "common/error.h"

/* The region's points: n rows of nparams coordinates (all > 0), the log ratio and its variance. */
struct trend_input {
	int n, nparams;
	const double *x;        /* n x nparams, row-major */
	const double *y;        /* log(new / base) per point */
	const double *v;        /* variance of y per point; NaN when unknown (one repetition) */
	const int *nbase, *nnew;        /* repetitions behind y on each side (pooling) */
};

struct trend_param {
	int varies;             /* takes two or more values at the points */
	int tested;
	double slope, lo, hi;   /* d log(ratio) / d log(x_k), its interval at 1 - alpha */
	double p;               /* two-sided p of slope = 0 */
	double centre;          /* c_k: the weighted mean of log x_k */
	double xmax;            /* the largest value of x_k at the points */
	double ratio_2x;        /* exp(level + slope * (log(2 xmax) - c_k)): NEW/BASE at twice xmax */
	double excess_2x_lo;    /* exp(lo * (log(2 xmax) - c_k)) - 1: the least the trend adds
				   to the constant part at twice xmax (at the interval's low end) */
	double excess_2x_hi;    /* the same at the interval's high end */
};

struct compare_trend {
	int npoints;
	int tested;             /* the level was tested */
	double level, level_lo, level_hi;       /* log ratio: the constant part and its interval */
	double level_p;         /* two-sided p of level = 0 */
	int dof;                /* the fit's residual degrees of freedom */
	int rep_dof;            /* the repetitions' pooled degrees of freedom */
	double scale;           /* sqrt(chi2 / dof): the points' scatter around the fit relative to
				   what their repetitions say (1 when they agree) */
	int weighted;           /* 1: weights from the repetitions; 0: none known, equal weights */
	int nparams;
	struct trend_param *param;      /* nparams */
};

/*
 * Fit in at level 1 - alpha into t (initialised by the call; release it).
 * Points with a non-finite y are left out.  Returns 0, or -1 with err set
 * (no usable point).
 */
int compare_trend_fit(const struct trend_input *in, double alpha, struct compare_trend *t,
		      struct perr *err);
void compare_trend_release(struct compare_trend *t);

#endif
