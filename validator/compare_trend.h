/*
 * The change of one region over all its common points together: how much
 * slower NEW is than BASE (the level), and whether that ratio trends along
 * a parameter (a scaling change).  A random-effects meta-regression of the
 * per-point log ratios y_i = log(new/base) at point i on the logarithms of
 * the parameters, centred at their weighted means c_k:
 *
 *     y_i = level + sum_k slope_k * (log x_ik - c_k) + u_i + e_i
 *
 * e_i is the point's own noise, of variance v_i from its repetitions (halfway
 * shrunk to the region's pooled variance: three repetitions give a variance
 * with 2 degrees of freedom, too rough to weight by alone); u_i is what the
 * points scatter beyond that (runs of one point that shared a slow spell, a
 * ratio that is not a power law), of variance tau2.  Whether the points
 * scatter more than their repetitions say is tested first, by the
 * fixed-effect fit's chi2 / dof against F(dof, rep_dof) at
 * COMPARE_TREND_POOL_ALPHA (0.25: the "sometimes pool" rule of Bozivich,
 * Bancroft and Hartley, 1956, for pooling an interaction into the error):
 *   - they do not: tau2 is 0, every point weighs 1 / v_i, and the noise is
 *     the pooled estimate of the repetitions' and the scatter's, on
 *     rep_dof + dof degrees of freedom;
 *   - they do: tau2 by the DerSimonian-Laird method of moments from the
 *     fixed-effect residuals, every point weighs 1 / (v_i + tau2), on the
 *     Welch-Satterthwaite combination of rep_dof and dof (the fit's
 *     residual degrees of freedom, points - 1 - parameters).
 * So exp(level) is the constant part of the change (the weighted geometric
 * mean ratio) and slope_k the trend along parameter k with the others as
 * covariates.  A fixed-effect test alone would be the most powerful on
 * points that only differ by their noise, but its level breaks when runs of
 * one point share a slow spell; a random-effects test alone loses about a
 * tenth of the power at 3 repetitions (tests/bench/bench_compare_pooled.c,
 * docs/compare.md).
 *
 * The tests are one-sided Student t tests at level alpha: a slowdown
 * (level > 0) or a speed-up, a rising or a falling trend.  Every interval
 * [lo, hi] has one-sided 1 - alpha bounds at each end (a two-sided
 * 1 - 2 alpha interval), so "a slowdown beyond the tolerance is excluded"
 * reads as hi < log(1 + tolerance).  The trends' tests and bounds are
 * Bonferroni-adjusted over the k parameters tested (alpha / k each, p
 * times k), so that "some parameter's ratio rises" holds at alpha.
 * Without variances (single
 * repetitions) the scatter of the points about the fit is the only noise
 * (t on the fit's residual degrees of freedom).
 *
 * Every point on its own: point_p_max is the largest of the points' own
 * one-sided t tests of a slowdown (y_i against v_i, on the point's
 * repetitions' degrees of freedom).  Below alpha every point is slower: an
 * intersection-union test of "some point is not slower" at level alpha,
 * which needs no correction for the number of points and no model of how
 * they scatter, and so still speaks where a few points disagree in size
 * (a 2x2 design whose four slowdowns range from +85% to +280% leaves the
 * random-effects level one residual degree of freedom).
 *
 * Paired points (npairs set: both sides' j-th repetitions ran next to each
 * other, perfsweep compare --run): y_i is the mean of the pairs' log
 * ratios and v_i their variance over the pairs, on npairs - 1 degrees of
 * freedom.
 *
 * A parameter is tested when it takes two or more values at the points
 * and the fit keeps at least one residual degree of freedom; otherwise
 * only the level is (with one point: from its own repetitions).
 *
 * Pure: no I/O, no global state (GSL's error handler is switched off).
 */
#ifndef PS_COMPARE_TREND_H
#define PS_COMPARE_TREND_H
#include "collectors/experiment.h"
#include "common/error.h"

/* The power at which the detectable change is given. */
#define COMPARE_TREND_POWER 0.8
/* The preliminary test's level: above it the two noise estimates are pooled. */
#define COMPARE_TREND_POOL_ALPHA 0.25
/* The preliminary test of pass-to-pass drift beyond what the repetitions show. */
#define COMPARE_TREND_PASS_ALPHA 0.05

/* The region's points: n rows of nparams coordinates (all > 0), the log ratio and its variance. */
struct trend_input {
	int n, nparams;
	const double *x;        /* n x nparams, row-major */
	const double *y;        /* log(new / base) per point */
	const double *v;        /* variance of y per point; NaN when unknown (one repetition) */
	const int *nbase, *nnew;        /* repetitions behind y on each side (pooling) */
	const int *npairs;              /* paired points: the pairs behind y; NULL when unpaired */
	/* Unpaired: the level's variance from the passes (the j-th repetitions
	   of every point, run in one time window: compare_pass_variance), and
	   its degrees of freedom; NaN / 0 when not known. */
	double pass_var, pass_df;
};

/*
 * The passes' estimate of the variance of a side's mean log level: with
 * log x_pj the j-th repetition of point p (n points, the first J common to
 * all, J >= 3), D_j the mean over the points of log x_pj less its point's
 * mean, var = sum_j D_j^2 / ((J - 1) J) and df = J - 1.  A host whose speed
 * drifts from one pass to the next moves every point of a pass together,
 * which the repetitions' variance does not see.  Returns 0, or -1 (var
 * NaN) with fewer than 3 common repetitions or a value that is not positive.
 */
int compare_pass_variance(const struct exp_values *const *v, int n, double *var, double *df);

struct trend_param {
	int varies;             /* takes two or more values at the points */
	int tested;
	double slope, lo, hi;   /* d log(ratio) / d log(x_k), its one-sided bounds at 1 - alpha / k */
	double p;               /* one-sided p of the slope's sign (rising when slope > 0), times k */
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
	double level, level_lo, level_hi;       /* log ratio: the constant part, its one-sided bounds */
	double level_p;         /* one-sided p of the level's sign (a slowdown when level > 0) */
	double level_se;        /* the level's standard error */
	double df;              /* the tests' degrees of freedom (Welch-Satterthwaite, see above) */
	double level_df;        /* the level test's: df, or the passes' when they widened it */
	double pass_se;         /* the level's standard error from the passes (unpaired), NaN unknown */
	int by_passes;          /* 1: the passes' variance was significantly larger than the
				   repetitions' (F test at COMPARE_TREND_PASS_ALPHA) and the level
				   was tested with it */
	double point_p_max;     /* the largest over the points of each point's own one-sided p of a
				   slowdown (its log ratio against its repetitions' variance): below
				   alpha, every point on its own is slower; NaN when a point has no
				   variance */
	double detectable;      /* the smallest slowdown (log ratio) the level's one-sided test finds
				   with power COMPARE_TREND_POWER at alpha */
	int dof;                /* the fit's residual degrees of freedom */
	int rep_dof;            /* the repetitions' pooled degrees of freedom */
	double scale;           /* sqrt(chi2 / dof) of the fixed-effect fit: the points' scatter around
				   it relative to what their repetitions say (1 when they agree) */
	double scatter_p;       /* the preliminary test of scatter beyond the repetitions (F test), NaN
				   when not made */
	int pooled;             /* scatter_p >= COMPARE_TREND_POOL_ALPHA: the repetitions' and the
				   scatter's estimates of the noise pooled, tau2 0 */
	double tau2;            /* the scatter beyond the repetitions (variance of a log ratio) */
	int weighted;           /* 1: weights from the repetitions; 0: none known, equal weights */
	int paired;             /* y and v came from paired repetitions */
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

/*
 * Each input point's weight from the repetitions' pooled variance alone,
 * h_i / s2 (s2 the per-repetition variance pooled over the points, h_i as
 * the point's repetitions scale it; 1 where none is known, 0 for a
 * non-finite y), into wt[in->n]: with noise of one coefficient of
 * variation everywhere, a weighted sum of squares about a true curve is
 * then chi2 / dof ~ F(dof, rep_dof).
 */
void compare_trend_pooled_weights(const struct trend_input *in, double *wt);

#endif
