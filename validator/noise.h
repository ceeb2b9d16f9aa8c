/*
 * The noise check: the spread of each point's repetitions, judged by the
 * coefficient of variation (sd / mean) of the repetitions that are not
 * outlying (models/points.h), so that one outlying repetition does not
 * make a point noisy: it is reported as an outlier instead.  (A MAD-based
 * CoV is as robust but, from 5 repetitions, far too variable: it put a
 * point of 5% noise above 10% one time in four.)  A point is noisy when
 * its CoV is significantly above the threshold: the 95% lower confidence
 * bound of a normal sample's CoV, cov * sqrt((n-1) / chi2_{n-1}(0.95)),
 * exceeds it (with 5 repetitions: a CoV above 1.54 x the threshold).  The Perf-Taint study
 * trusted only points with CoV <= 0.1; points above the threshold are
 * noisy, and a series whose measured points are mostly noisy is
 * unreliable: it is reported instead of modelled.  A point whose
 * repetitions (outliers left out) spread over no more than the series'
 * resolution (experiment_resolution: the step its values are printed in,
 * GROMACS's 1 ms) is not noisy, whatever its CoV: rounding alone spreads a
 * steady value over one step (a 2 ms region read as 0.002 and 0.003).
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
	double *cov;            /* per point, NaN when unknown (fewer than 2 values kept, zero mean) */
	unsigned char *noisy;   /* per point: 1 when noisy */
	int nmeasured;          /* points with a CoV */
	int nnoisy;             /* noisy points */
	double resolution;      /* the series' resolution, 0 when none was said */
	int nresolved;          /* points above the CoV threshold whose spread is within the resolution: not noisy */
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
