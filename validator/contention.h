/*
 * The growth test behind the contention check: do the measurements of one
 * series grow with a parameter X beyond noise?  X is a program parameter
 * the region's dependencies exclude, or ranks per node.
 *
 * Every line along X (other parameters fixed) is normalised by its own
 * mean level, so lines at different problem sizes pool into one relative
 * picture.  Over all repetition values it computes:
 *   - the pooled relative slope with per-line intercepts, its two-sided
 *     p-value (Student t) and 95% confidence interval;
 *   - with repetitions, a one-way ANOVA F-test of the X levels within each
 *     line against the repetition spread (gsl_cdf_fdist_Q);
 *   - the model in X: the PMNF modeller's single-parameter model of the
 *     pooled line, in the series' units (the mean level of the lines).
 * growth is the relative change over X's range, f(xmax)/f(xmin) - 1, from
 * the model in X, or from the linear slope when the model is constant.
 *
 * The test's sensitivity (growth_test_detectable): the smallest growth
 * the test finds at level alpha with probability `power`, at the noise it
 * measured, for a growth shared by every line.  The p-value is the larger
 * of the slope's and the ANOVA's, so the test detects a growth when both
 * do: the slope t test at b_t = (t(1 - alpha/2, df) + t(power, df)) * se(b),
 * the ANOVA where its noncentrality b^2 * Sxx / s_within^2 reaches the
 * power (validator/power.h); the detectable slope is the larger of the two,
 * turned into a growth over [xmin, xmax] like growth_lin.
 */
#ifndef PS_CONTENTION_H
#define PS_CONTENTION_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "models/modeler.h"
#include "models/pmnf.h"

struct growth_test {
	int param;                      /* X, an experiment parameter index */
	int nlines;                     /* lines that took part */
	int nobs;                       /* repetition values used */
	double xmin, xmax;
	double growth;                  /* relative change over [xmin, xmax] */
	double growth_lin;              /* the same from the pooled slope */
	double growth_lo, growth_hi;    /* 95% confidence interval of growth_lin, from the slope's t
					   interval: -1 at the least (a time that vanished), +inf when
					   the slope's upper end makes the line reach 0 at xmin; NaN
					   when the fit leaves no residual to judge it by */
	double slope_p;                 /* two-sided p-value of the slope */
	int slope_df;
	double anova_f, anova_p;        /* NaN without repetitions */
	int anova_df1, anova_df2;
	double p_value;                 /* the larger of slope_p and anova_p (if known) */
	double slope, slope_se;         /* pooled relative slope b and its standard error */
	double xbar, sxx;               /* mean X over the values; sum of squares of X within lines */
	double noise;                   /* relative residual SD of the slope fit */
	double noise_within;            /* relative SD of the repetitions (ANOVA), NaN without */
	struct pmnf_model model;        /* the model in X (one parameter) */
};

/*
 * Run the test for series s along parameter param; positive_only ignores
 * points whose coordinate is <= 0 (ranks per node 0: a run without a
 * placement).  Returns 1 when tested,
 * 0 when there is too little data (no line with 2 distinct X values, or no
 * residual degrees of freedom; with only two values the model in X is the
 * straight line of the pooled slope), -1 with err set when the modeller fails.
 * g is initialised in every case; release it with growth_test_release.
 */
int growth_test_run(const struct experiment *e, const struct exp_series *s, int param,
		    int positive_only, const struct model_options *opt, struct growth_test *g,
		    struct perr *err);
void growth_test_release(struct growth_test *g);

/*
 * The smallest growth over [xmin, xmax] that a tested g detects at level
 * alpha with probability power (both in (0, 1)); 0 without noise, NaN when
 * g was not tested or the growth is out of reach.
 */
double growth_test_detectable(const struct growth_test *g, double alpha, double power);

/*
 * Waiting for a core, not contention: the ranks' CPU share falling along X
 * by more than CONTENTION_SHARE_FALL (a tenth) makes them wait (a rank
 * that gets half a core takes twice as long), and explains a growth of
 * share(xmin) / share(xmax) - 1 at most.  Whether it explains the growth
 * measured is growth_test_unexplained's question.
 */
#define CONTENTION_SHARE_FALL 0.1

/*
 * The ranks' CPU share at the ends of a tested g: the median of share[p]
 * (NaN unknown) over the points of s with values at X = g->xmin (*first)
 * and X = g->xmax (*last); NaN where no point there has one.
 */
void growth_test_shares(const struct experiment *e, const struct exp_series *s, const struct growth_test *g,
			const double *share, double *first, double *last);

/* 1 when the share fell from first to last by more than CONTENTION_SHARE_FALL. */
int growth_test_share_fell(double first, double last);

/*
 * The growth the ranks' CPU share leaves unexplained: the growth test of s
 * along g's parameter (positive_only as for g) with every value times its
 * point's share[p], the time each rank would have taken with a core of
 * its own; points whose share is unknown or not positive are left out.
 * What u finds beyond noise is not the ranks' waiting: contention.
 * Returns as growth_test_run; u is initialised in every case (release it
 * with growth_test_release).
 */
int growth_test_unexplained(const struct experiment *e, const struct exp_series *s, const struct growth_test *g,
			    int positive_only, const double *share, const struct model_options *opt,
			    struct growth_test *u, struct perr *err);

/*
 * Oversubscription the CPU share shows by itself, when the growth test
 * found no growth beyond the time's noise: the share fell by more than
 * CONTENTION_SHARE_FALL, the growth that fall explains, first / last - 1,
 * is at least min_growth, and the time is consistent with it: the upper
 * end of the 95% interval of g's growth reaches half of that growth.  The
 * share is measured per rank from its CPU and wall time, so a fall is seen
 * even where the time is too noisy to show the growth it causes.
 */
int growth_test_share_shows(const struct growth_test *g, double first, double last, double min_growth);

#endif
