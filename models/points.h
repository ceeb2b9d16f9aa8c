/*
 * Point estimates: one value per measured point from its repetitions, the
 * same way everywhere (model, validate, top, the reports), and the
 * repetitions that do not belong to it (outliers).
 *
 * An outlier is a repetition whose robust z-score against the point's
 * median and MAD, 0.6745 * |x - median| / MAD (Iglewicz and Hoaglin), is
 * above POINT_OUTLIER_Z and which is also more than POINT_OUTLIER_MIN_REL
 * away from the median in relative terms (so a point measured to 0.1%
 * does not report a 1% repetition).  Five repetitions give a rough MAD,
 * so the deviation must also exceed POINT_OUTLIER_SERIES_Z times the
 * series' typical spread (the median over its points of the CoV of their
 * repetitions with a robust z-score at most POINT_OUTLIER_Z, when known): a normal repetition is that far out about once in 10^6 draws.
 * With MAD == 0 (most repetitions
 * equal) every value away from the majority by that much is an outlier.
 * Points need 3 repetitions for an outlier to be defined.
 *
 * Interference only ever slows a run down: a time's disturbed repetitions
 * lie above its median, a rate's (GB/s, Gflop/s) below.  When a metric's
 * name says which (point_side_of_metric), a repetition on the favourable
 * side is outlying only when it is also POINT_OUTLIER_FAVOURABLE_RATIO
 * times better than the median (a run that stopped early, a misread
 * value): with 3 repetitions of which 2 were slowed, the fast one is the
 * true value, and a two-sided rule would leave it out.
 *
 * Invariants: pure functions of their input; values are only read.
 */
#ifndef PS_POINTS_H
#define PS_POINTS_H
#include "collectors/experiment.h"

enum model_aggregate {
	MODEL_MEAN = 0,                         /* Extra-P's default */
	MODEL_MEDIAN,
	MODEL_MIN,
};

#define POINT_OUTLIER_Z 3.5
#define POINT_OUTLIER_MIN_REL 0.05
#define POINT_OUTLIER_SERIES_Z 5
#define POINT_OUTLIER_FAVOURABLE_RATIO 2.0

/* Which side of its point's median a disturbed repetition lies on. */
enum point_side {
	POINT_SIDE_BOTH = 0,                    /* unknown: either */
	POINT_SIDE_HIGH,                        /* above: times, cycles (lower is better) */
	POINT_SIDE_LOW,                         /* below: rates (higher is better) */
};

/*
 * The side for a metric's name (case-insensitive): HIGH for "time" and
 * names ending in "time", "_s", "_ms", "_us", "_ns", "sec", "secs",
 * "seconds", "cycles" or "latency"; LOW for names
 * ending in "/s", "kbs", "mbs", "gbs", "tbs", "iops" or "rate" ("GB/s",
 * "GBs") or containing "flop", "bandwidth" or "throughput"; BOTH
 * otherwise (and for NULL).
 */
enum point_side point_side_of_metric(const char *metric);
/* The side of s's metric: what its campaign says (experiment_better()), else its name's. */
enum point_side point_side_of_series(const struct experiment *e, const struct exp_series *s);
/* "both", "high", "low". */
const char *point_side_name(enum point_side side);

/* "mean", "median", "min". */
const char *model_aggregate_name(enum model_aggregate a);
/* Parse one of those names; returns 0, or -1 for anything else. */
int model_aggregate_parse(const char *s, enum model_aggregate *out);
/* The index of s in names[0..n), -1 if absent or s is NULL (the option-name tables). */
int model_name_find(const char *const *names, int n, const char *s);

struct point_estimate {
	double value;           /* the aggregate of the kept repetitions; NaN if none */
	int n;                  /* repetitions kept */
	int noutliers;          /* repetitions left out (0 unless drop_outliers) */
	double rel_var;         /* sample variance of the kept repetitions / value^2; NaN if n < 2 */
};

/*
 * Mark the outliers of v in is_out (v->n entries, may be NULL); returns
 * their number (0 for fewer than 3 repetitions).  series_cov is the
 * series' typical spread (point_series_cov), NaN when unknown; side the
 * metric's (point_side_of_metric).
 */
int point_outliers(const struct exp_values *v, double series_cov, enum point_side side,
		   unsigned char *is_out);

/* The median over n points (those with 3 or more repetitions) of the CoV (sd / mean) of their
   repetitions with a robust z-score at most POINT_OUTLIER_Z; NaN if none. */
double point_series_cov(const struct exp_values *vals, int n);

/* The robust z-score of x against v's median and MAD; NaN for fewer than 3 values. */
double point_robust_z(const struct exp_values *v, double x);

/* The median of v (NaN when empty). */
double point_median(const struct exp_values *v);
/* The median of n values (copied: v keeps its order); NaN when n <= 0. */
double values_median(const double *v, int n);

/*
 * Robust coefficient of variation: 1.4826 * MAD / |median|, the CoV a
 * normal sample would have, unmoved by one outlying repetition.  NaN for
 * fewer than 2 values or a zero median.
 */
double point_robust_cov(const struct exp_values *v);

/* The point estimate of v; drop_outliers leaves the outliers out first (series_cov, side as above). */
void point_estimate(const struct exp_values *v, enum model_aggregate how, int drop_outliers,
		    double series_cov, enum point_side side, struct point_estimate *pe);

#endif
