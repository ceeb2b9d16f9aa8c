/*
 * The noise check: the spread of each point's repetitions, judged by the
 * robust coefficient of variation 1.4826 * MAD / median
 * (models/points.h), so that one outlying repetition does not make a
 * point noisy: it is reported as an outlier instead.  The Perf-Taint study
 * trusted only points with CoV <= 0.1; points above the threshold are
 * noisy, and a series whose measured points are mostly noisy is
 * unreliable: it is reported instead of modelled.
 *
 * Invariants: cov has one entry per experiment point, NaN where the point
 * has fewer than two repetitions or a zero median (no verdict possible);
 * outliers are ordered by point, then repetition.
 */
#ifndef PS_NOISE_H
#define PS_NOISE_H
#include "collectors/experiment.h"

/* One outlying repetition (models/points.h). */
struct noise_outlier {
	int point;              /* experiment point */
	int rep;                /* repetition index (0-based, in the order measured) */
	int nreps;              /* the point's repetitions */
	double value;
	double ratio;           /* value / the point's median */
	double z;               /* robust z-score */
};

struct noise_result {
	int npoints;            /* experiment points (length of cov) */
	double *cov;            /* per point, NaN when unknown */
	int nmeasured;          /* points with a CoV */
	int nnoisy;             /* points with CoV > threshold */
	double max_cov;         /* NaN when nmeasured == 0 */
	int worst_point;        /* point with max_cov, -1 if none */
	double median_cov;      /* NaN when nmeasured == 0 */
	int unreliable;         /* nnoisy > unreliable_fraction * nmeasured */
	int noutliers;
	struct noise_outlier *outliers;
};

/* Classical CoV (sd / mean) of one point's repetitions: NaN for fewer than 2 values or a zero mean. */
double noise_cov(const struct exp_values *v);

/*
 * Check one series.  threshold is the CoV limit (0.1 in the study);
 * unreliable_fraction the share of noisy points above which the series is
 * unreliable (0.5: "mostly noisy").  r is initialised by the call.
 */
void noise_check(const struct experiment *e, const struct exp_series *s, double threshold,
		 double unreliable_fraction, struct noise_result *r);
void noise_result_release(struct noise_result *r);

#endif
